"""A rush of viewers on `make app`'s defaults, kernels launched normally (before) and forked (after), in one run.

    python benchmarks/kernel_rush.py                        # 30 viewers within 10 s, 3 of them chromium
    python benchmarks/kernel_rush.py --viewers 10 --window 0 --browsers 0
    python benchmarks/kernel_rush.py --rounds 2              # launched, forked-sent, forked, twice
    python benchmarks/kernel_rush.py --modes forked-sent forked   # held widget messages alone
    python benchmarks/kernel_rush.py --modes forked-built forked  # the app taken from the template alone

For each mode the server is started as ``make app`` starts it (``python -m explorer.hosting
explorer/notebooks/explorer.ipynb`` with the project's voila.json: a preheated pool of 4, refilled at once), with one
difference: ``launched`` selects jupyter_client's ``local-provisioner`` (a new Python process per kernel,
the setting before issue 26), ``forked-sent`` keeps voila.json's ``explorer-fork`` but sends every widget
message as it happens (``--ForkProvisioner.hold_widget_messages=False``, the setting before
:mod:`explorer.hosting.held_widgets`), ``forked-built`` holds them but leaves the app's build to each kernel
(voila.json's preload without ``explorer.app.prebuilt:prebuild``, the setting before
:mod:`explorer.app.prebuilt`), ``forked`` is ``make app`` as it is. The rush starts once the
pool's kernels have run the notebook; the viewers arrive evenly within the window, each from the benchmark
(:func:`benchmarks.bench_server.rush`: protocol clients timed to the widget handshake, chromium pages timed
to the first frame with the summary and a chart drawn).

Memory is read from ``/proc/<pid>/smaps_rollup`` (psutil's ``memory_full_info``) right after the rush, while
every viewer's kernel still runs: per kernel RSS (resident, shared pages counted in full), PSS (shared pages
divided among the processes that share them) and USS (pages only this kernel holds: what one more viewer
costs), and the template's own.

Prints one JSON document and writes it to ``benchmarks/kernel_rush_<date>.json`` with ``--save``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # the package and the tests' shared helpers

from benchmarks.bench_server import DEFAULT_POOL_SIZE, RUSH_BROWSERS, _percentile, _server, report, rush  # noqa: E402
from benchmarks.first_page import voila_preload  # noqa: E402
import clients as cl  # noqa: E402


def _preload_without_prebuild() -> tuple[str, ...]:
    """voila.json's preload without the app built in the template (the notebook builds it in each kernel).

    One option per module: the server's command line takes a list as the option repeated.
    """
    return tuple(f"--ForkProvisioner.preload={m}" for m in voila_preload(prebuilt=False))


#: Server options of each mode: kernels launched normally (before issue 26), forked with every widget message
#: sent as it happens, forked and held with the app built by the notebook in each kernel (before
#: :mod:`explorer.app.prebuilt`), and ``make app``'s settings: forked, held, the app taken from the template
MODES = {"launched": ("--KernelProvisionerFactory.default_provisioner_name=local-provisioner",),
         "forked-sent": ("--ForkProvisioner.hold_widget_messages=False",),
         "forked-built": _preload_without_prebuild(), "forked": ()}


def memory_mb(pid: int) -> dict[str, float]:
    """RSS, PSS and USS of one process [MB]."""
    info = psutil.Process(pid).memory_full_info()
    return {"rss": info.rss / 2**20, "pss": info.pss / 2**20, "uss": info.uss / 2**20}


def one(mode: str, viewers: int, window: float, browsers: int) -> dict:
    srv = _server(f"kernel-rush-{mode}", f"--ExplorerVoila.max_kernels={viewers + 10}", *MODES[mode],
                  pool_size=DEFAULT_POOL_SIZE, ready_timeout=600)
    try:
        srv.wait_ready_kernels(DEFAULT_POOL_SIZE, timeout=900)
        time.sleep(2.0)  # the last pool kernel's notebook run has ended (logged as it ends)
        load = os.getloadavg()[0]
        cpu0 = sum(cl.cpu_seconds(p) for p in [srv.proc.pid, *cl.kernel_templates(srv.proc.pid),
                                                *cl.children(srv.proc.pid)])
        start = time.monotonic()
        times = rush(srv.url, viewers, window, browsers=browsers)
        wall = time.monotonic() - start
        kernels = cl.children(srv.proc.pid)
        templates = cl.kernel_templates(srv.proc.pid)
        cpu1 = sum(cl.cpu_seconds(p) for p in [srv.proc.pid, *templates, *kernels])
        mem = [memory_mb(p) for p in kernels]
        every = times["protocol"] + times["browser"]
        out = {"mode": mode, "load_avg_1min_before": round(load, 2), "viewers": viewers, "window_s": window,
               "browsers": browsers, "pool_size": DEFAULT_POOL_SIZE, "rendered": len(every),
               "browsers_rendered": len(times["browser"]),
               "p50_s": round(_percentile(every, 0.5), 2), "p95_s": round(_percentile(every, 0.95), 2),
               "max_s": round(max(every), 2) if every else None, "rush_wall_s": round(wall, 1),
               "cpu_s_server_and_kernels": round(cpu1 - cpu0, 1),
               "kernels": len(kernels)}
        for key in ("rss", "pss", "uss"):
            out[f"kernel_{key}_mb_median"] = round(statistics.median(m[key] for m in mem), 1) if mem else None
            out[f"kernels_{key}_mb_total"] = round(sum(m[key] for m in mem), 0)
        if templates:
            out["template_mb"] = {k: round(v, 1) for k, v in memory_mb(templates[0]).items()}
        out["server_rss_mb"] = round(memory_mb(srv.proc.pid)["rss"], 1)
        return out
    finally:
        srv.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--viewers", type=int, default=30)
    parser.add_argument("--window", type=float, default=10.0, help="arrivals spread evenly over this [s]")
    parser.add_argument("--browsers", type=int, default=RUSH_BROWSERS, help="viewers that are chromium pages")
    parser.add_argument("--rounds", type=int, default=1, help="every mode in turn, this many times")
    parser.add_argument("--modes", nargs="+", choices=list(MODES), default=list(MODES), help="in this order")
    parser.add_argument("--save", action="store_true", help="also write benchmarks/kernel_rush_<date>.json")
    args = parser.parse_args()
    out: dict = {"machine_cpus": os.cpu_count(), "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                 "runs": []}
    for _ in range(args.rounds):
        for mode in args.modes:
            out["runs"].append(one(mode, args.viewers, args.window, args.browsers))
            print(json.dumps(out["runs"][-1]), file=sys.stderr, flush=True)
    by_mode = {m: [r for r in out["runs"] if r["mode"] == m] for m in args.modes}
    ratio = {}
    for before_mode in [m for m in args.modes if m != "forked"]:
        if "forked" not in by_mode:
            break
        for key in ("p50_s", "p95_s", "kernel_uss_mb_median", "kernel_pss_mb_median", "kernel_rss_mb_median",
                    "cpu_s_server_and_kernels"):
            before = statistics.median(r[key] for r in by_mode[before_mode])
            after = statistics.median(r[key] for r in by_mode["forked"])
            ratio[f"{key}_{before_mode}_over_forked"] = round(before / after, 2) if after else None
    out["ratios"] = ratio
    report(out, "kernel_rush", args.save)


if __name__ == "__main__":
    main()
