"""Where a viewer's CPU goes when kernels are forked: server, template and kernels, and what each spends it on.

    python benchmarks/cpu_breakdown.py                          # 10 protocol clients at once, CPU per process
    python benchmarks/cpu_breakdown.py --profile                # and what the CPU is spent on (py-spy samples)
    python benchmarks/cpu_breakdown.py --viewers 10 --window 0 --profile --save
    python benchmarks/cpu_breakdown.py --held off               # widget messages sent during the notebook run

The server is started as ``make app`` starts it (``python -m explorer.hosting explorer/notebooks/explorer.ipynb`` with
voila.json: forked kernels, a preheated pool of 4) with the pool held at 4 (``--DemandPool.enabled=False``;
``--demand`` keeps it on), so that every viewer past the pool pays the whole start. Once the pool's kernels
have run the notebook, ``--viewers`` protocol clients arrive within ``--window`` seconds
(:func:`benchmarks.bench_server.rush`: each loads the page, connects its kernel's websocket and waits for the
widget handshake, as a browser does, without drawing). CPU is read from ``/proc`` (user + system) for the
server, the kernel template and every kernel before and after the rush.

With ``--profile`` (``pip install py-spy``), py-spy samples the server and the template with its forked
kernels (``--subprocesses``) 100 times a second during the rush (``--nonblocking``: the processes are not
paused; py-spy's own CPU competes for the cores, so take the times from a run without it and the shares
from this one). Each sample of a kernel is put in a phase, by the message it was handling (running the
notebook: ``execute_request``; answering the page: ``comm_msg``/``comm_info_request``/``kernel_info_request``;
the start after the fork), and in an activity, by the deepest frame of a known library (serialising and
sending messages; matplotlib; widgets and traitlets; the app's own code). Server samples are put in page
render, websocket relay, kernel management and the rest.

Prints one JSON document; ``--save`` writes it to ``benchmarks/cpu_breakdown_<date>.json``.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # the package and the tests' shared helpers

from benchmarks.bench_server import DEFAULT_POOL_SIZE, _percentile, _server, report, rush  # noqa: E402
import clients as cl  # noqa: E402

#: (category, substrings of a frame) for a server sample, the first match from the leaf wins
SERVER_ACTIVITIES = (
    ("websocket relay (kernel messages to and from the pages)", ("websocket", "zmqhandlers", "channels",
                                                                 "kernel_websocket", "session.py", "zmq")),
    ("page render (nbconvert, jinja2, the notebook's outputs)", ("notebook_renderer", "jinja2", "nbconvert",
                                                                 "exporter", "handler.py", "nbformat")),
    ("kernel start and management (provisioner, kernel manager)", ("provisioner", "kernelmanager",
                                                                   "multikernelmanager", "manager.py")),
    ("the hardening (seats, warden, demand pool)", ("explorer/hosting",)),
    ("HTTP and the event loop (tornado, asyncio)", ("tornado", "asyncio")),
)
def _kernel_phase(frames: list[str]) -> str:
    """What a forked kernel was doing in one sample, by the frames of its stack (root first)."""
    text = ";".join(frames)
    if "Thread._bootstrap" in text:
        return "the kernel's other threads (IOPub sending, heartbeat, parent poller)"
    if "execute_request" in text:
        return "running the notebook (execute_request)"
    if any(m in text for m in ("comm_msg", "comm_info_request", "comm_open", "kernel_info_request")):
        return "answering the page (comm_msg, comm_info, kernel_info)"
    if "become_kernel" in text and "IPKernelApp.start" not in text:
        return "becoming a kernel after the fork (IPKernelApp.initialize)"
    return "the kernel's event loop between messages"

KERNEL_ACTIVITIES = (
    ("serialising and sending messages (json, jupyter_client.session, zmq)", ("session.py", "jsonutil",
                                                                             "json/", "zmq", "iostream.py")),
    ("matplotlib and ipympl (figures, drawing)", ("matplotlib", "ipympl")),
    ("widgets (ipywidgets, traitlets, comm)", ("ipywidgets", "traitlets", "/comm/", "anywidget")),
    ("the app's own code (explorer/)", ("(explorer/",)),
    ("numpy and pandas", ("numpy", "pandas")),
)


def _classify(frames: list[str], rules) -> str:
    for frame in reversed(frames):  # from the leaf up
        for name, marks in rules:
            if any(m in frame for m in marks):
                return name
    return "other"


def _samples(path: Path) -> list[tuple[list[str], int]]:
    """py-spy's raw (collapsed) output: ``frame;frame;... count`` per line, the root first."""
    out = []
    if path.exists():
        for line in path.read_text(errors="replace").splitlines():
            stack, _, count = line.rpartition(" ")
            if stack and count.isdigit():
                out.append((stack.split(";"), int(count)))
    return out


def _shares(counter: collections.Counter) -> dict[str, float]:
    total = sum(counter.values()) or 1
    return {k: round(v / total, 3) for k, v in counter.most_common()}


def _top_functions(path: Path, count: int = 12) -> dict[str, float]:
    """Shares of samples by the innermost frame of the package or library it is in (``file:function``)."""
    inner = collections.Counter()
    for frames, n in _samples(path):
        leaf = frames[-1] if frames else "?"
        # "function (path/to/module.py:line)" -> "module.py:function"
        name, _, where = leaf.partition(" (")
        inner[f"{Path(where.split(':')[0]).name}:{name}"] += n
    total = sum(inner.values()) or 1
    return {k: round(v / total, 3) for k, v in inner.most_common(count)}


def profile_summary(server_file: Path, kernels_file: Path, template_pid: int | None) -> dict:
    """Shares of samples by category (see the module docstring)."""
    server = collections.Counter()
    for frames, n in _samples(server_file):
        server[_classify(frames, SERVER_ACTIVITIES)] += n
    phases, activities = collections.Counter(), collections.Counter()
    by_phase = collections.defaultdict(collections.Counter)
    for frames, n in _samples(kernels_file):
        phase = _kernel_phase(frames)
        activity = _classify(frames, KERNEL_ACTIVITIES)
        phases[phase] += n
        activities[activity] += n
        by_phase[phase][activity] += n
    return {"server_samples": sum(server.values()), "server": _shares(server),
            "server_top_functions": _top_functions(server_file), "kernel_top_functions": _top_functions(kernels_file),
            "kernel_samples": sum(phases.values()), "kernel_phases": _shares(phases),
            "kernel_activities": _shares(activities),
            "kernel_activities_by_phase": {p: _shares(c) for p, c in by_phase.items()}}


def _pyspy(pid: int, out: Path, subprocesses: bool) -> subprocess.Popen:
    args = [shutil.which("py-spy") or "py-spy", "record", "--pid", str(pid), "--rate", "100", "--nonblocking",
            "--format", "raw", "--output", str(out)]
    if subprocesses:
        args.append("--subprocesses")
    return subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)


def run(viewers: int, window: float, profile: bool, demand: bool, keep: Path | None = None,
        held: bool = True) -> dict:
    options = [f"--ExplorerVoila.max_kernels={viewers + 10}", f"--ForkProvisioner.hold_widget_messages={held}"]
    if not demand:
        options.append("--DemandPool.enabled=False")
    srv = _server("cpu-breakdown", *options, pool_size=DEFAULT_POOL_SIZE, ready_timeout=600)
    spies: list[subprocess.Popen] = []
    work = Path(tempfile.mkdtemp(prefix="cpu-breakdown-"))
    try:
        srv.wait_ready_kernels(DEFAULT_POOL_SIZE, timeout=900)
        time.sleep(2.0)  # the last pool kernel's notebook run has ended (logged as it ends)
        templates = cl.kernel_templates(srv.proc.pid)
        before = {p: cl.cpu_seconds(p) for p in [srv.proc.pid, *templates, *cl.children(srv.proc.pid)]}
        if profile:
            spies = [_pyspy(srv.proc.pid, work / "server.txt", False)]
            if templates:
                spies.append(_pyspy(templates[0], work / "kernels.txt", True))
            time.sleep(1.0)  # py-spy attached
        load = os.getloadavg()[0]
        start = time.monotonic()
        times = rush(srv.url, viewers, window, browsers=0)
        wall = time.monotonic() - start
        time.sleep(1.0)  # the last replies have been sent
        kernels = cl.children(srv.proc.pid)
        after = {p: cl.cpu_seconds(p) for p in [srv.proc.pid, *templates, *kernels]}
        for spy in spies:
            spy.send_signal(signal.SIGINT)
        for spy in spies:
            try:
                spy.wait(timeout=60)
            except subprocess.TimeoutExpired:
                spy.kill()
        delta = {p: after[p] - before.get(p, 0.0) for p in after}
        kernel_cpu = sorted(delta[p] for p in kernels)
        used = [c for c in kernel_cpu if c > 0.05]  # the kernels that worked during the rush
        server_cpu = delta[srv.proc.pid]
        template_cpu = sum(delta[p] for p in templates)
        total = server_cpu + template_cpu + sum(kernel_cpu)
        out = {"viewers": viewers, "window_s": window, "pool_size": DEFAULT_POOL_SIZE, "demand_pool": demand,
               "profiled": profile, "load_avg_1min_before": round(load, 2),
               "rendered": len(times["protocol"]), "p50_s": round(_percentile(times["protocol"], 0.5), 2),
               "p95_s": round(_percentile(times["protocol"], 0.95), 2), "rush_wall_s": round(wall, 1),
               "cpu_s_total": round(total, 2), "cpu_s_per_viewer": round(total / viewers, 3),
               "cpu_s_server": round(server_cpu, 2), "cpu_s_server_per_viewer": round(server_cpu / viewers, 3),
               "cpu_s_template": round(template_cpu, 2),
               "cpu_s_kernels": round(sum(kernel_cpu), 2),
               "cpu_s_kernels_per_viewer": round(sum(kernel_cpu) / viewers, 3),
               "kernels_that_worked": len(used),
               "cpu_s_per_working_kernel_median": round(_percentile(used, 0.5), 3) if used else None,
               "cpu_s_per_working_kernel_max": round(max(used), 3) if used else None}
        if profile and keep is not None:
            keep.mkdir(parents=True, exist_ok=True)
            for name in ("server.txt", "kernels.txt"):
                if (work / name).exists():
                    shutil.copy(work / name, keep / name)
        if profile:
            out["profile"] = profile_summary(work / "server.txt", work / "kernels.txt",
                                             templates[0] if templates else None)
        return out
    finally:
        for spy in spies:
            if spy.poll() is None:
                spy.kill()
        srv.stop()
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--viewers", type=int, default=10)
    parser.add_argument("--window", type=float, default=0.0, help="arrivals spread evenly over this [s]")
    parser.add_argument("--profile", action="store_true", help="also sample with py-spy (pip install py-spy)")
    parser.add_argument("--demand", action="store_true", help="leave the demand-following pool on")
    parser.add_argument("--save", action="store_true", help="also write benchmarks/cpu_breakdown_<date>.json")
    parser.add_argument("--keep", type=Path, help="copy py-spy's raw samples (server.txt, kernels.txt) here")
    parser.add_argument("--held", choices=("on", "off"), default="on",
                        help="widget messages held until the page asks (make app's setting) or sent as they happen")
    parser.add_argument("--summarize", type=Path, help="only summarise the raw samples kept in this folder")
    args = parser.parse_args()
    if args.summarize:
        print(json.dumps(profile_summary(args.summarize / "server.txt", args.summarize / "kernels.txt", None),
                         indent=1))
        return
    if args.profile and not shutil.which("py-spy"):
        parser.error("--profile needs py-spy on the PATH (pip install py-spy)")
    out = {"machine_cpus": os.cpu_count(), "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
           "command": " ".join(["python", "benchmarks/cpu_breakdown.py", *sys.argv[1:]]),
           "run": run(args.viewers, args.window, args.profile, args.demand, args.keep, args.held == "on")}
    report(out, "cpu_breakdown", args.save)


if __name__ == "__main__":
    main()
