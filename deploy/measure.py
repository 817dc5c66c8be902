"""Measure what one viewer costs: memory and CPU of Voila's kernels, for capacity planning.

Starts one Voila on 127.0.0.1 (as tests/conftest.py does), optionally behind nginx, then opens
pages one after another and reads the kernel processes from /proc (psutil)::

    python deploy/measure.py --pages 8                  # real pages in Debian's chromium
    python deploy/measure.py --pages 8 --http-only      # protocol client: GET / only, no browser
    python deploy/measure.py --pages 4 --nginx          # through deploy/serve.py's nginx
    python deploy/measure.py ... -- --preheat_kernel=True --pool_size=2   # options for Voila

Prints one JSON document.  Pages are opened one at a time (the figures are per viewer, not a
rush; benchmarks/ measures rushes).  Only our own child processes are read or stopped.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from deploy.serve import (ROOT, find_nginx, free_port, nginx_command, render, stop,  # noqa: E402
                          voila_command, wait_for_port)

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
MB = 1024 * 1024


def kernels(server: psutil.Process) -> list[psutil.Process]:
    """The server's kernels: launched (``ipykernel_launcher``) or forked from a kernel template (its children)."""
    found = []
    for p in server.children(recursive=True):
        line = " ".join(p.cmdline())
        if "kernel_template.py" in line:
            if p.ppid() != server.pid:  # the template itself is not a kernel; its children are
                found.append(p)
        elif "ipykernel" in line:
            found.append(p)
    return found


def mem(proc: psutil.Process) -> dict:
    info = proc.memory_full_info()
    return {"rss_mb": info.rss / MB, "pss_mb": info.pss / MB, "uss_mb": info.uss / MB}


def cpu_s(proc: psutil.Process) -> float:
    t = proc.cpu_times()
    return t.user + t.system


def summary(values: list[float], digits: int = 1) -> dict:
    return {"min": round(min(values), digits), "median": round(statistics.median(values), digits),
            "max": round(max(values), digits)} if values else {}


def main() -> int:
    argv = sys.argv[1:]
    voila_extra: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, voila_extra = argv[:cut], argv[cut + 1:]
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=5)
    parser.add_argument("--http-only", action="store_true", help="GET / without a browser")
    parser.add_argument("--nginx", action="store_true", help="go through nginx (deploy/serve.py's config)")
    parser.add_argument("--root", type=Path, default=ROOT,
                        help="checkout to serve (default: this one); its voila.json applies")
    parser.add_argument("--moves", type=int, default=10, help="slider steps per page, for CPU per change")
    args = parser.parse_args(argv)

    work = Path(tempfile.mkdtemp(prefix="explorer-measure-"))
    work.chmod(0o755)
    port = free_port()
    log = open(work / "voila.log", "w")
    if any((Path(args.root) / "explorer" / "hosting" / where / "seats.py").exists() for where in ("server", ".")):
        voila_extra = ["--ExplorerVoila.seats_per_address=0", *voila_extra]  # every page comes from this machine
    voila = subprocess.Popen(voila_command(port, voila_extra, args.root), cwd=args.root, stdout=log,
                             stderr=subprocess.STDOUT,
                             env={**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(args.root)})
    procs = [voila]
    result: dict = {
        "machine": {"cpus": os.cpu_count(), "cpu": platform.processor() or platform.machine(),
                    "memory_gb": round(psutil.virtual_memory().total / 1024 ** 3, 1),
                    "python": platform.python_version()},
        "command": " ".join(voila_command(port, voila_extra, args.root)), "root": str(args.root),
        "pages": args.pages,
        "client": "http-only" if args.http_only else "chromium", "via_nginx": args.nginx,
    }
    try:
        if not wait_for_port(port, 120, voila):
            raise SystemExit(f"voila did not start: {(work / 'voila.log').read_text()[-2000:]}")
        url = f"http://127.0.0.1:{port}/"
        if args.nginx:
            nport = free_port()
            render(work / "nginx", f"127.0.0.1:{nport}", [f"127.0.0.1:{port}"],
                   page_burst=args.pages + 5)  # measuring, not limiting
            procs.append(subprocess.Popen(nginx_command(find_nginx(), work / "nginx", "-g", "daemon off;")))
            if not wait_for_port(nport, 15, procs[-1]):
                raise SystemExit("nginx did not start")
            url = f"http://127.0.0.1:{nport}/"
        server = psutil.Process(voila.pid)
        time.sleep(3)  # a preheated pool starts its kernels now
        pool = kernels(server)
        result["idle"] = {"server": mem(server), "server_cpu_s": round(cpu_s(server), 2),
                          "pool_kernels": [mem(k) for k in pool]}

        per_page = []
        browser = pw = None
        if not args.http_only:
            from playwright.sync_api import sync_playwright
            pw = sync_playwright().start()
            browser = pw.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS)
        pages = []
        for i in range(args.pages):
            before = {k.pid for k in kernels(server)}
            server_cpu0 = cpu_s(server)
            start = time.monotonic()
            if args.http_only:
                with urllib.request.urlopen(url, timeout=180) as response:
                    html = response.read().decode("utf-8")
            else:
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("http://127.0.0.1")
                           else r.abort())
                page.goto(url, timeout=180_000)
                page.wait_for_selector(".explorer-summary p", timeout=180_000)
                page.wait_for_function(
                    "() => [...document.querySelectorAll('.jupyter-matplotlib-figure canvas')]"
                    ".some(c => c.offsetParent !== null && c.width > 0)", timeout=60_000)
                pages.append(page)
                html = page.content()
            render_s = time.monotonic() - start
            time.sleep(1.0)  # let the last draw land
            now = kernels(server)
            new = [k for k in now if k.pid not in before]
            # the page's own kernel (with a preheated pool it is an older one, and a new one
            # refills the pool): its id is in the page and in the kernel's connection file name
            kernel_id = re.search(r'"kernelId": "([0-9a-f-]{36})"', html).group(1)
            kernel = next(k for k in now if f"kernel-{kernel_id}.json" in " ".join(k.cmdline()))
            entry = {"render_s": round(render_s, 2), "kernels": len(now), "new_kernels": len(new),
                     "kernel": mem(kernel), "kernel_cpu_to_render_s": round(cpu_s(kernel), 2)}
            if not args.http_only and args.moves:
                page = pages[-1]
                summary0 = page.locator(".explorer-summary").inner_text()
                c0 = cpu_s(kernel)
                handle = page.locator(".noUi-handle").first
                handle.focus()
                for _ in range(args.moves):
                    handle.press("ArrowRight")
                    page.wait_for_timeout(150)
                page.wait_for_function("s => document.querySelector('.explorer-summary').innerText !== s",
                                       arg=summary0, timeout=60_000)
                time.sleep(1.5)
                entry["kernel_cpu_per_move_s"] = round((cpu_s(kernel) - c0) / args.moves, 3)
                entry["kernel_after_moves"] = mem(kernel)
            entry["server"] = mem(server)
            entry["server_cpu_s"] = round(cpu_s(server) - server_cpu0, 2)
            per_page.append(entry)
            print(json.dumps({"page": i + 1, **entry}), file=sys.stderr, flush=True)
        result["per_page"] = per_page
        result["summary"] = {
            "render_s": summary([p["render_s"] for p in per_page]),
            "kernel_rss_mb": summary([p["kernel"]["rss_mb"] for p in per_page]),
            "kernel_pss_mb": summary([p["kernel"]["pss_mb"] for p in per_page]),
            "kernel_uss_mb": summary([p["kernel"]["uss_mb"] for p in per_page]),
            "kernel_rss_after_moves_mb": summary([p["kernel_after_moves"]["rss_mb"] for p in per_page
                                                  if "kernel_after_moves" in p]),
            "kernel_cpu_to_render_s": summary([p["kernel_cpu_to_render_s"] for p in per_page]),
            "kernel_cpu_per_move_s": summary([p["kernel_cpu_per_move_s"] for p in per_page
                                              if "kernel_cpu_per_move_s" in p], 3),
            "server_cpu_per_page_s": summary([p["server_cpu_s"] for p in per_page], 2),
            "server_rss_mb_end": round(mem(server)["rss_mb"], 1),
            "all_kernels_rss_mb_end": round(sum(mem(k)["rss_mb"] for k in kernels(server)), 1),
        }
        if args.nginx:
            ngx = psutil.Process(procs[-1].pid)
            result["summary"]["nginx_rss_mb"] = round(sum(mem(p)["rss_mb"] for p in [ngx, *ngx.children()]), 1)
        if pages:
            for page in pages:
                # leaving the page fires Voila's unload beacon (close() does not); the beacon is
                # lost if it is still routed through playwright or the page closes at once
                page.unroute("**/*")
                page.goto("about:blank")
                page.wait_for_timeout(1000)
                page.close()
            time.sleep(5)
            result["summary"]["kernels_left_5s_after_closing_all_pages"] = len(kernels(server))
            result["shutdown_requests"] = [line.strip()[-120:] for line in
                                           (work / "voila.log").read_text(errors="replace").splitlines()
                                           if "shutdown" in line.lower()][-10:]
        if browser is not None:
            browser.close()
            pw.stop()
    finally:
        stop(procs)
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
