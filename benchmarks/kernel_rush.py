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
:mod:`explorer.hosting.kernel.held_widgets`), ``forked-built`` holds them but leaves the app's build to each kernel
(voila.json's preload without ``explorer.app.prebuilt:prebuild``, the setting before
:mod:`explorer.app.prebuilt`), ``forked`` is ``make app`` as it is. The rush starts once the
pool's kernels have run the notebook; the viewers arrive evenly within the window, each from the benchmark
(:func:`benchmarks.bench_server.rush`: protocol clients timed to the widget handshake, chromium pages timed
to the first frame with the summary and a chart drawn).

Memory is read from ``/proc/<pid>/smaps_rollup`` (psutil's ``memory_full_info``) right after the rush, while
every viewer's kernel still runs: per kernel RSS (resident, shared pages counted in full), PSS (shared pages
divided among the processes that share them) and USS (pages only this kernel holds: what one more viewer
costs), and the template's own.

Issue 39 (a look costs no kernel), before and after in one run, on ``make app``'s defaults (its cap of
viewers' kernels and its 6 seats per address), each viewer from its own loopback address::

    python benchmarks/kernel_rush.py --modes base look --viewers 100 --addresses 100 --window 10 --browsers 0 \
        --defaults --base-root /work/wt/look39-base

``base`` serves the checkout at ``--base-root`` (the commit before: every page starts a kernel; a viewer is
served when the widget handshake is done), ``look`` this checkout (a viewer is served when the static answer,
with the link's total cost, has arrived; with ``--touch F`` a share F of them then touch it and open the live
app, timed to its widget handshake, reported apart as ``touch_*``).

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
         "forked-built": _preload_without_prebuild(), "forked": (), "base": (), "look": ()}
#: Modes whose viewers are served by the static answer when there is one (issue 39)
_LOOK_MODES = ("base", "look")
_ANSWER_MARK = 'id="explorer-static"'


def _address(i: int, addresses: int) -> str:
    """The loopback address of viewer ``i`` among ``addresses`` (127.0.1.1, 127.0.1.2, ...)."""
    n = i % max(addresses, 1) + 1
    return f"127.0.{1 + n // 250}.{n % 250 + 1}"


def _get(url: str, source: str, timeout: float = 300.0) -> tuple[int, str, dict[str, str]]:
    """GET ``url`` from the local address ``source``: (status, body, cookies set)."""
    import http.client
    import urllib.parse

    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout, source_address=(source, 0))
    try:
        conn.request("GET", parts.path + (f"?{parts.query}" if parts.query else ""))
        response = conn.getresponse()
        body = response.read().decode("utf-8", "replace")
        cookies = {}
        for raw in response.headers.get_all("Set-Cookie") or []:
            name, _, rest = raw.partition("=")
            cookies[name.strip()] = rest.split(";", 1)[0]
        return response.status, body, cookies
    finally:
        conn.close()


def _live_handshake(url: str, source: str, start: float, timeout: float = 300.0) -> bool:
    """Open the live page at ``url`` from ``source`` and complete the widget handshake (clients.viewer_handshake)."""
    import re
    import socket
    import urllib.parse

    import websocket

    status, body, cookies = _get(url, source, timeout)
    found = re.search(r'"kernelId":\s*"([0-9a-f-]{36})"', body)
    if status != 200 or not found or "application/vnd.jupyter.widget-view+json" not in body:
        return False
    parts = urllib.parse.urlsplit(url)
    sock = socket.create_connection((parts.hostname, parts.port), timeout=timeout, source_address=(source, 0))
    base = f"{parts.scheme}://{parts.netloc}/"
    ws = websocket.create_connection(cl.ws_url(base, found.group(1)), timeout=timeout, subprotocols=[cl.V1],
                                     cookie="; ".join(f"{k}={v}" for k, v in cookies.items()), socket=sock)
    try:
        ids = cl.widget_comm_ids(ws, v1=True, timeout=timeout)
        got = cl.request_all_states(ws, ids, timeout=max(timeout - (time.monotonic() - start), 1.0))
    finally:
        ws.close()
    return got == len(ids) and len(ids) > 0


def _look_viewer(mode: str, addresses: int, touch: float, touched: list, viewers: int):
    """The rush's viewer of ``mode``: (rendered, seconds) of the look; a share ``touch`` also opens the live app."""
    import threading

    counter = iter(range(10**9))
    lock = threading.Lock()
    every = round(1 / touch) if touch > 0 else 0

    def viewer(url: str) -> tuple[bool, float]:
        with lock:
            i = next(counter)
        source = _address(i, addresses)
        start = time.monotonic()
        try:
            if mode == "base":
                return _live_handshake(url, source, start), time.monotonic() - start
            status, body, _ = _get(url, source)
            ok = status == 200 and _ANSWER_MARK in body and "explorer-kpi total" in body
            seconds = time.monotonic() - start
            if ok and every and i % every == 0:
                t0 = time.monotonic()
                live = _live_handshake(url + ("&" if "?" in url else "?") + "live=1", source, t0)
                with lock:
                    touched.append((live, time.monotonic() - t0))
            return ok, seconds
        except Exception:  # noqa: BLE001 - a failed viewer is counted, not raised
            return False, time.monotonic() - start

    return viewer


def memory_mb(pid: int) -> dict[str, float]:
    """RSS, PSS and USS of one process [MB]."""
    info = psutil.Process(pid).memory_full_info()
    return {"rss": info.rss / 2**20, "pss": info.pss / 2**20, "uss": info.uss / 2**20}


def one(mode: str, viewers: int, window: float, browsers: int, *, defaults: bool = False, addresses: int = 1,
        touch: float = 0.0, base_root: str = "", query: str = "") -> dict:
    import conftest

    cap = () if defaults else (f"--ExplorerVoila.max_kernels={viewers + 10}",)
    # make app's 6 seats per address (the tests' Server lifts the cap unless told), its static first answer
    seats = ("--ExplorerVoila.seats_per_address=6", "--ExplorerVoila.static_first=True") if defaults else ()
    root = conftest.ROOT
    if mode == "base":
        conftest.ROOT = Path(base_root).resolve()  # the server runs from that checkout (its package, its voila.json)
        seats = seats[:1]
    try:
        srv = _server(f"kernel-rush-{mode}", *cap, *seats, *MODES[mode], pool_size=DEFAULT_POOL_SIZE, ready_timeout=600)
    finally:
        conftest.ROOT = root
    touched: list = []
    handshake_fn = _look_viewer(mode, addresses, touch, touched, viewers) if mode in _LOOK_MODES else None
    url = srv.url + (f"?{query}" if query else "")
    try:
        srv.wait_ready_kernels(DEFAULT_POOL_SIZE, timeout=900)
        time.sleep(2.0)  # the last pool kernel's notebook run has ended (logged as it ends)
        load = os.getloadavg()[0]
        cpu0 = sum(cl.cpu_seconds(p) for p in [srv.proc.pid, *cl.kernel_templates(srv.proc.pid),
                                                *cl.children(srv.proc.pid)])
        start = time.monotonic()
        times = rush(url, viewers, window, browsers=browsers, handshake_fn=handshake_fn)
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
               "kernels": len(kernels), "addresses": addresses, "make_app_defaults": defaults}
        if touched:
            ok = sorted(sec for good, sec in touched if good)
            out.update({"touch_viewers": len(touched), "touch_rendered": len(ok),
                        "touch_p50_s": round(_percentile(ok, 0.5), 2), "touch_p95_s": round(_percentile(ok, 0.95), 2)})
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
    parser.add_argument("--addresses", type=int, default=1, help="base and look: viewers come from this many "
                        "loopback addresses in turn (127.0.1.2 ...)")
    parser.add_argument("--defaults", action="store_true", help="make app's cap of kernels and seats per address "
                        "(else the cap is lifted to viewers + 10 and seats are not capped)")
    parser.add_argument("--touch", type=float, default=0.0, help="look: this share of viewers then touch the "
                        "page and open the live app")
    parser.add_argument("--base-root", default="", help="base: the checkout of the commit before")
    parser.add_argument("--query", default="", help="the link's query (without ?) every viewer opens")
    args = parser.parse_args()
    out: dict = {"machine_cpus": os.cpu_count(), "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                 "runs": []}
    for _ in range(args.rounds):
        for mode in args.modes:
            out["runs"].append(one(mode, args.viewers, args.window, args.browsers, defaults=args.defaults,
                                   addresses=args.addresses, touch=args.touch, base_root=args.base_root,
                                   query=args.query))
            print(json.dumps(out["runs"][-1]), file=sys.stderr, flush=True)
    by_mode = {m: [r for r in out["runs"] if r["mode"] == m] for m in args.modes}
    ratio = {}
    after_mode = "look" if "look" in by_mode else "forked"
    for before_mode in [m for m in args.modes if m != after_mode]:
        if after_mode not in by_mode:
            break
        for key in ("p50_s", "p95_s", "kernel_uss_mb_median", "kernel_pss_mb_median", "kernel_rss_mb_median",
                    "cpu_s_server_and_kernels"):
            try:
                before = statistics.median(r[key] for r in by_mode[before_mode])
                after = statistics.median(r[key] for r in by_mode[after_mode])
            except (TypeError, KeyError):
                continue
            ratio[f"{key}_{before_mode}_over_{after_mode}"] = round(before / after, 2) if after and before else None
    out["ratios"] = ratio
    report(out, "kernel_rush", args.save)


if __name__ == "__main__":
    main()
