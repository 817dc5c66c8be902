"""A class of 30 opening lesson 1 at the same second, on `make workshop` (directory mode).

    python benchmarks/workshop_rush.py                 # POOL=15 (lesson 1 in en and zh), then cold
    python benchmarks/workshop_rush.py --pool 0        # cold only

Starts the hardened server over ``notebooks`` as the Makefile does, waits until every pool kernel has run
the lesson ("... waits for a viewer" in the log), then starts 30 protocol clients at once (half open
``lessons/en/01``, half ``lessons/zh/01``). Each is timed from its request to the page read and the widget
handshake done (kernel websocket open, every widget's state received: what the page's widget manager
does), by ``benchmarks.bench_server.handshake``. Prints one JSON document: p50/p95/max seconds, how many
rendered, and the kernels' memory.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # the package and the tests' shared helpers

from benchmarks.bench_server import _percentile  # noqa: E402
import clients as cl  # noqa: E402
from deploy.serve import free_port, wait_for_port  # noqa: E402

LESSONS = ["lessons/en/01_flops_to_dollars.ipynb", "lessons/zh/01_flops_to_dollars.ipynb"]


def handshake(base: str, path: str, timeout: float = 300.0) -> tuple[bool, float]:
    """Read the page to its end and complete the widget handshake, as the page does; (rendered, seconds).

    As ``benchmarks.bench_server.handshake``, for a notebook under ``voila/render/`` (the kernel
    websocket is at the server's root, not under the page's path).
    """
    return cl.viewer_handshake(base + "voila/render/" + path, base, timeout=timeout)


def serve(pool: int, max_kernels: int, log: Path) -> subprocess.Popen:
    port = free_port()
    options = [f"--ExplorerVoila.max_kernels={max_kernels}"]
    if pool:
        pools = {"default": {"pool_size": 0}, **{nb: {"pool_size": pool} for nb in LESSONS}}
        options += ["--preheat_kernel=True", "--VoilaKernelManager.fill_delay=60",
                    f"--VoilaKernelManager.kernel_pools_config={json.dumps(pools)}"]
    else:
        options += ["--preheat_kernel=False"]
    out = open(log, "w")
    proc = subprocess.Popen([sys.executable, "-m", "explorer.hosting", "notebooks", "--Voila.ip=127.0.0.1",
                             f"--port={port}", "--no-browser", *options], cwd=ROOT, stdout=out,
                            stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    proc.port = port
    wait_for_port(port, 90)
    return proc


def run(pool: int, students: int, max_kernels: int) -> dict:
    log = ROOT / "artifacts" / f"workshop-rush-pool{pool}.log"
    log.parent.mkdir(exist_ok=True)
    proc = serve(pool, max_kernels, log)
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
        urls = [LESSONS[i % 2] for i in range(students)]
        results, lock = [], threading.Lock()
        barrier = threading.Barrier(students)

        def student(url):
            barrier.wait()
            ok, seconds = handshake(base, url)
            with lock:
                results.append((ok, seconds))

        threads = [threading.Thread(target=student, args=(u,)) for u in urls]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=400)
        done = sorted(s for ok, s in results if ok)
        kernels = [p for p in server.children(recursive=True) if "ipykernel" in " ".join(p.cmdline())]
        rss = sorted(p.memory_info().rss / 2**20 for p in kernels)
        return {"pool_per_lesson": pool, "students": students, "rendered": len(done),
                "p50_s": round(_percentile(done, 0.5), 2), "p95_s": round(_percentile(done, 0.95), 2),
                "max_s": round(max(done), 2) if done else None, "kernels": len(kernels),
                "kernels_rss_gb": round(sum(rss) / 1024, 2),
                "kernel_rss_mb_median": round(rss[len(rss) // 2], 0) if rss else None}
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pool", type=int, default=15, help="preheated kernels per lesson 1 (en, zh); 0: cold only")
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--cold", action="store_true", help="also measure without a pool")
    args = parser.parse_args()
    out = {"machine_cpus": os.cpu_count(), "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    max_kernels = 2 * args.students + 2 * args.pool + 2
    if args.pool:
        out["preheated"] = run(args.pool, args.students, max_kernels)
    if args.cold or not args.pool:
        out["cold"] = run(0, args.students, max_kernels)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
