"""A class of 30 opening lesson 1 at the same second, on `make workshop` (directory mode).

    python benchmarks/workshop_rush.py                 # POOL=15 (lesson 1 in en and zh), then cold
    python benchmarks/workshop_rush.py --pool 0        # cold only
    python benchmarks/workshop_rush.py --browsers 30   # every student a chromium page
    python benchmarks/workshop_rush.py --launched      # also the default with kernels launched normally (before)
    python benchmarks/workshop_rush.py --window 10     # the students arrive evenly within 10 s
    python benchmarks/workshop_rush.py --make-workshop --one-address --english --window 10
                                       # make workshop's own options (class of --students, fill delay 600 s),
                                       # every student from one address and on the English lesson 1; with
                                       # --one-address also the public app's 6 seats per address (before)

Starts the hardened server over ``notebooks`` as the Makefile does, waits until every pool kernel has run
the lesson ("... waits for a viewer" in the log), then the students arrive at once (or evenly within
``--window``), half opening ``lessons/en/01``, half ``lessons/zh/01`` (:func:`benchmarks.bench_server.rush`).
Kernels are forked from the server's warm template (``make workshop``'s setting); ``--launched`` first
measures each setting with every kernel launched normally (``local-provisioner``, before issue 26).

* A protocol client is timed from its request to the page read and the widget handshake done (kernel
  websocket open, every widget's state received: what the page's widget manager does).
* A browser (``--browsers N`` of the students; chromium, headless) is timed in the page, from navigation
  to the first animation frame in which every exercise's and question's Check button is in the page
  (:data:`LESSON_RENDERED_PROBE`): the lesson's widgets are drawn and a student can answer. The browsers run
  on the same two cores as the server, which a class's laptops would not: a pessimistic figure.

Prints one JSON document: p50/p95/max seconds (protocol and browser apart), how many rendered, and the
kernels' memory (RSS, and USS / PSS: what each holds of its own, read from ``smaps_rollup`` right after the
rush); ``--save`` also writes ``benchmarks/workshop_rush_<date>.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # the package and the tests' shared helpers

from benchmarks.bench_server import _percentile, report, rush  # noqa: E402
import clients as cl  # noqa: E402
from deploy.serve import free_port, wait_for_port  # noqa: E402

LESSONS = ["lessons/en/01_flops_to_dollars.ipynb", "lessons/zh/01_flops_to_dollars.ipynb"]

# The first animation frame in which the page holds ``window.__checks`` Check buttons (one per exercise and
# concept question, in English or Chinese); ``window.__rendered`` in ms since the epoch, as bench_server's probe.
LESSON_RENDERED_PROBE = """
(() => {
  const names = new Set(['Check', '检查']);
  const count = () => [...document.querySelectorAll('.jupyter-widgets button')]
    .filter(b => names.has(b.textContent.trim())).length;
  const watch = new MutationObserver(() => {
    if (count() >= window.__checks) {
      watch.disconnect();
      requestAnimationFrame(() => { window.__rendered = performance.timeOrigin + performance.now(); });
    }
  });
  document.addEventListener('DOMContentLoaded', () => watch.observe(document.body, {childList: true, subtree: true}));
})();
"""


def check_buttons(path: str) -> int:
    """Check buttons a lesson shows in Voila: one per ``ws.exercise`` and ``ws.concept`` call in its code cells."""
    cells = json.loads((ROOT / "explorer" / "notebooks" / path).read_text())["cells"]
    code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    return code.count("ws.exercise(") + code.count("ws.concept(")


def serve(pool: int, max_kernels: int, log: Path, launched: bool = False, workshop: int = 0,
          seats_per_address: int | None = None) -> subprocess.Popen:
    port = free_port()
    # every student of this benchmark comes from 127.0.0.1; in a class each laptop has its own address, so the
    # per-address seat cap (6) is lifted, as the tests' servers do (it turned 24 of 30 away, 2 Dec 2026)
    options = [f"--ExplorerVoila.max_kernels={max_kernels}", "--ExplorerVoila.seats_per_address=0"]
    if workshop:  # `make workshop`'s own options for a class of ``workshop`` (one address: what it sees)
        from explorer.hosting.commands import workshop_argv

        options = [o for o in workshop_argv(port=port, class_size=workshop, pool=pool,
                                            seats_per_address=seats_per_address)[1:]
                   if not o.startswith(("--Voila.ip", "--port", "--no-browser"))]
    elif pool:
        pools = {"default": {"pool_size": 0}, **{nb: {"pool_size": pool} for nb in LESSONS}}
        options += ["--preheat_kernel=True", "--VoilaKernelManager.fill_delay=60",
                    f"--VoilaKernelManager.kernel_pools_config={json.dumps(pools)}"]
    else:
        options += ["--preheat_kernel=False"]
    if launched:
        options += ["--KernelProvisionerFactory.default_provisioner_name=local-provisioner"]
    out = open(log, "w")
    proc = subprocess.Popen([sys.executable, "-m", "explorer.hosting", "explorer/notebooks", "--Voila.ip=127.0.0.1",
                             f"--port={port}", "--no-browser", *options], cwd=ROOT, stdout=out,
                            stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    proc.port = port
    wait_for_port(port, 90)
    return proc


def run(pool: int, students: int, max_kernels: int, browsers: int = 0, window: float = 0.0,
        launched: bool = False, workshop: bool = False, seats_per_address: int | None = None,
        lessons: list[str] = LESSONS, addresses: int = 1) -> dict:
    log = ROOT / "artifacts" / f"workshop-rush-pool{pool}{'-launched' if launched else ''}.log"
    log.parent.mkdir(exist_ok=True)
    proc = serve(pool, max_kernels, log, launched, students if workshop else 0, seats_per_address)
    try:
        if pool:
            deadline = time.monotonic() + 600
            while log.read_text().count("waits for a viewer") < pool * len(LESSONS):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the pool did not fill; see {log}")
                time.sleep(1)
            time.sleep(3)
        server = psutil.Process(proc.pid)
        base = f"http://127.0.0.1:{proc.port}/"
        checks = {check_buttons(path) for path in LESSONS}
        assert len(checks) == 1, f"the lessons differ in their Check buttons: {checks}"
        probe = f"window.__checks = {checks.pop()};" + LESSON_RENDERED_PROBE
        handshake = (from_addresses(addresses) if addresses > 1  # each student from a loopback address of their own
                     else lambda url: cl.viewer_handshake(url, base, timeout=300.0))  # websocket at the root
        times = rush([base + "voila/render/" + path for path in lessons], students, window, browsers,
                     probe=probe, handshake_fn=handshake)
        done = sorted(times["protocol"] + times["browser"])
        kernels, memory = cl.children(server.pid), []  # the kernels, not their template
        for pid in kernels:
            try:
                info = psutil.Process(pid).memory_full_info()
            except psutil.NoSuchProcess:
                continue
            memory.append({"rss": info.rss / 2**20, "uss": info.uss / 2**20, "pss": info.pss / 2**20})
        log_text = log.read_text()
        out = {"pool_per_lesson": pool, "kernels_launched": launched, "students": students, "window_s": window,
               "make_workshop_options": workshop, "lessons": lessons, "addresses": addresses,
               "seats_per_address": "make workshop's" if workshop and seats_per_address is None else
               (seats_per_address if workshop else 0),
               "refused_busy": log_text.count("Busy:"),
               "woken_replacements": log_text.count("still waiting its fill delay: started now"),
               "browsers": browsers, "rendered": len(done),
               "p50_s": round(_percentile(done, 0.5), 2), "p95_s": round(_percentile(done, 0.95), 2),
               "max_s": round(max(done), 2) if done else None}
        for kind in ("protocol", "browser"):
            if times[kind]:
                out[f"{kind}_rendered"] = len(times[kind])
                out[f"{kind}_p50_s"] = round(_percentile(times[kind], 0.5), 2)
                out[f"{kind}_p95_s"] = round(_percentile(times[kind], 0.95), 2)
        out["kernels"] = len(memory)
        for key in ("rss", "uss", "pss"):
            values = [m[key] for m in memory]
            out[f"kernels_{key}_gb"] = round(sum(values) / 1024, 2)
            out[f"kernel_{key}_mb_median"] = round(statistics.median(values), 1) if values else None
        return out
    finally:
        kids = psutil.Process(proc.pid).children(recursive=True)
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        for k in kids:
            try:
                k.kill()
            except psutil.NoSuchProcess:
                pass


def from_addresses(addresses: int):
    """A protocol student who comes from the next of ``addresses`` loopback addresses (127.0.1.2, ...): the page
    read and the widget handshake from that address, as benchmarks/kernel_rush.py's viewers do."""
    import threading

    from benchmarks.kernel_rush import _address, _live_handshake

    counter = iter(range(10**9))
    lock = threading.Lock()

    def student(url: str) -> tuple[bool, float]:
        with lock:
            i = next(counter)
        start = time.monotonic()
        try:
            return _live_handshake(url, _address(i, addresses), start), time.monotonic() - start
        except Exception:  # noqa: BLE001 - a failed student is counted, not raised
            return False, time.monotonic() - start

    return student


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pool", type=int, default=15, help="preheated kernels per lesson 1 (en, zh); 0: cold only")
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--cold", action="store_true", help="also measure without a pool")
    parser.add_argument("--browsers", type=int, default=0, help="students that are chromium pages (timed in the page)")
    parser.add_argument("--window", type=float, default=0.0, help="arrivals spread evenly over this [s]; 0: at once")
    parser.add_argument("--launched", action="store_true",
                        help="also each setting with kernels launched normally (before issue 26), first")
    parser.add_argument("--make-workshop", action="store_true",
                        help="serve with make workshop's own options for a class of --students (fill delay 600 s, "
                             "its seats per address), not the benchmark's (fill delay 60 s, no per-address cap)")
    parser.add_argument("--one-address", action="store_true",
                        help="with --make-workshop: also measure, first, the public app's 6 seats per address "
                             "(make workshop before issue 42); every student comes from 127.0.0.1 either way")
    parser.add_argument("--english", action="store_true", help="every student opens the English lesson 1")
    parser.add_argument("--addresses", type=int, default=1,
                        help="with --make-workshop: the students come from this many loopback addresses in turn "
                             "(127.0.1.2 ...); 1: all from 127.0.0.1, as a room behind one NAT address")
    parser.add_argument("--save", action="store_true", help="also write benchmarks/workshop_rush_<date>.json")
    args = parser.parse_args()
    lessons = LESSONS[:1] if args.english else LESSONS
    if args.make_workshop:
        out = {"machine_cpus": os.cpu_count(), "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
               "command": "python benchmarks/workshop_rush.py " + " ".join(sys.argv[1:]),
               "load_before": os.getloadavg()}
        if args.one_address:
            out["one_address_before"] = run(args.pool, args.students, 0, args.browsers, args.window,
                                            workshop=True, seats_per_address=6, lessons=lessons)
        out["one_address" if args.one_address else "make_workshop"] = run(
            args.pool, args.students, 0, args.browsers, args.window, workshop=True, lessons=lessons,
            addresses=args.addresses)
        out["load_after"] = os.getloadavg()
        report(out, "workshop_rush", args.save)
        return
    out = {"machine_cpus": os.cpu_count(), "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
           "command": "python benchmarks/workshop_rush.py " + " ".join(sys.argv[1:])}
    max_kernels = 2 * args.students + 2 * args.pool + 2
    for launched in ([True, False] if args.launched else [False]):  # before issue 26, then make workshop's
        suffix = "_launched" if launched else ""
        if args.pool:
            out["preheated" + suffix] = run(args.pool, args.students, max_kernels, args.browsers, args.window,
                                            launched)
        if args.cold or not args.pool:
            out["cold" + suffix] = run(0, args.students, max_kernels, args.browsers, args.window, launched)
    report(out, "workshop_rush", args.save)


if __name__ == "__main__":
    main()
