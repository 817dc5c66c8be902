"""The private memory (USS) of a viewer's kernel after the viewer used every tab: what the cap is sized by.

    python benchmarks/kernel_memory.py                  # 3 viewers, one after another, en
    python benchmarks/kernel_memory.py --viewers 2 --lang zh

The app is served as ``make app`` serves it (``python -m explorer.hosting`` with the project's voila.json: forked
kernels, the preheated pool), the live app opened in headless chromium (``live=1``: past the static first
answer), and every tab of the app clicked in turn (their titles are ``tab_<key>`` of labels.csv, in the order of
``explorer.app.explorer_app.TAB_KEYS``); after each click the benchmark waits until the kernel has spent no CPU
for 2 s (it has drawn the tab). Then it reads the kernel's USS (``Private_Clean + Private_Dirty`` of
``/proc/<pid>/smaps_rollup``: the pages only this kernel holds, what one more viewer costs), PSS and RSS, and
the kernel's USS right after the page first drew (before any tab), for comparison.

The median over the viewers is the figure of ``explorer/hosting/capacity.csv`` (``kernel_uss_mb_all_tabs``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import clients as cl  # noqa: E402

from benchmarks.bench_server import _server  # noqa: E402
from benchmarks.kernel_rush import memory_mb  # noqa: E402


def _quiet(pid: int, still_s: float = 2.0, timeout: float = 120.0) -> None:
    """Wait until the process ``pid`` has used no CPU for ``still_s`` seconds (or ``timeout`` passes)."""
    deadline = time.monotonic() + timeout
    last, since = cl.cpu_seconds(pid), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.25)
        now = cl.cpu_seconds(pid)
        if now - last > 0.005:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= still_s:
            return


def one_viewer(srv, browser, lang: str) -> dict:
    from explorer.app.explorer_app import TAB_KEYS
    from explorer.text import label

    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(srv.url + f"?lang={lang}&live=1", timeout=300_000)
    page.wait_for_function("""() => [...document.querySelectorAll('.jupyter-matplotlib-figure canvas')]
                              .some(c => c.offsetParent !== null && c.width > 0)""", timeout=300_000)
    kernel_id = page.evaluate("() => document.body.innerHTML.match(/\"kernelId\":\\s*\"([0-9a-f-]{36})\"/)[1]")
    pid = cl.kernel_pid(srv.proc.pid, srv.log, kernel_id)
    _quiet(pid)
    first = memory_mb(pid)
    for key in TAB_KEYS:
        page.locator(".lm-TabBar-tab", has_text=label(f"tab_{key}", lang)).first.click()
        _quiet(pid)
    after = memory_mb(pid)
    page.close()
    template = cl.kernel_templates(srv.proc.pid)
    return {"kernel_uss_mb_first_paint": round(first["uss"], 1),
            "template_rss_mb": round(memory_mb(template[0])["rss"], 1) if template else None,
            **{f"kernel_{k}_mb_all_tabs": round(v, 1) for k, v in after.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--viewers", type=int, default=3)
    parser.add_argument("--lang", default="en", choices=("en", "zh"))
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    from conftest import CHROMIUM_ARGS

    out: dict = {"when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "load_avg_1min": os.getloadavg()[0],
                 "lang": args.lang, "viewers": []}
    srv = _server("kernel-memory", "--ExplorerVoila.static_first=True", "--ExplorerVoila.max_kernels=10", pool_size=2,
                  ready_timeout=600)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS)
            for _ in range(args.viewers):
                out["viewers"].append(one_viewer(srv, browser, args.lang))
                print(json.dumps(out["viewers"][-1]), file=sys.stderr, flush=True)
            browser.close()
    finally:
        srv.stop()
    for key in out["viewers"][0]:
        out[f"median_{key}"] = round(statistics.median(v[key] for v in out["viewers"]), 1)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
