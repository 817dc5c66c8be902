"""Chromium's first paint of the answer, cold, before (every page a kernel) and after (the static answer), in one run.

    python benchmarks/static_first_paint.py --base-root /work/wt/look39-base          # 3 cold visits each
    python benchmarks/static_first_paint.py --base-root ../base --repeats 5 --query "params=70B&lang=zh"

Each mode's server is started as ``make app`` starts it (voila.json's settings, the preheated pool of 4): ``base``
from the checkout at ``--base-root`` (the commit before issue 39), ``look`` from this one. Every visit is cold: a
new browser context (empty HTTP cache, no cookies) in one chromium, and the server's pool refilled and ready
before the next visit. The time is from navigation to the first animation frame after the total cost
(``.explorer-kpi.total .v``) is in the page with its text, timed in the page (as benchmarks/bench_server.py
times the first render). For ``look`` the benchmark then touches the page (a click) and times the live app:
from the click to the frame where the app has replaced the static answer (``touch_to_live_s``).

Prints one JSON document; medians per mode and the ratio base / look.
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

from benchmarks.bench_server import DEFAULT_POOL_SIZE, _server  # noqa: E402

_PROBE = """
(() => {
  // checked every animation frame: the first frame where the total is shown (in a widget, it may be in the
  // page before its cell is made visible, which no DOM mutation of its own announces)
  const look = () => {
    const total = document.querySelector('.explorer-kpi.total .v');
    if (total && total.textContent.trim() && total.offsetParent !== null) {
      window.__answer = performance.timeOrigin + performance.now();
      return;
    }
    requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
})();
"""
_LIVE = """() => !document.getElementById('explorer-static') && document.querySelector('.explorer-summary p')
                 && document.querySelector('.jupyter-widgets')"""


def one(mode: str, base_root: str, repeats: int, query: str) -> dict:
    import conftest
    from playwright.sync_api import sync_playwright

    root = conftest.ROOT
    options = ("--ExplorerVoila.seats_per_address=6",)
    if mode == "base":
        conftest.ROOT = Path(base_root).resolve()
    else:
        options += ("--ExplorerVoila.static_first=True",)
    try:
        srv = _server(f"first-paint-{mode}", *options, pool_size=DEFAULT_POOL_SIZE, ready_timeout=600)
    finally:
        conftest.ROOT = root
    times, touches = [], []
    try:
        srv.wait_ready_kernels(DEFAULT_POOL_SIZE, timeout=600)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=conftest.CHROMIUM_ARGS)
            for _ in range(repeats):
                context = browser.new_context(viewport={"width": 1400, "height": 1000})  # cold: empty cache
                context.add_init_script(_PROBE)
                page = context.new_page()
                start = time.time()
                page.goto(srv.url + f"?{query}", timeout=300_000, wait_until="commit")
                page.wait_for_function("() => window.__answer !== undefined", timeout=300_000)
                times.append(page.evaluate("window.__answer") / 1000 - start)
                if mode == "look":
                    click = time.time()
                    page.locator(".explorer-summary").first.click(no_wait_after=True)
                    page.wait_for_function(_LIVE, timeout=300_000)
                    touches.append(time.time() - click)
                context.close()
                if mode == "base" or touches:  # a kernel was used: wait for the pool to be whole and ready again
                    srv.wait_ready_kernels(DEFAULT_POOL_SIZE + len(times), timeout=600)
            browser.close()
    finally:
        srv.stop()
    out = {"mode": mode, "first_paint_of_answer_s": [round(t, 3) for t in times],
           "first_paint_median_s": round(statistics.median(times), 3)}
    if touches:
        out["touch_to_live_s"] = [round(t, 2) for t in touches]
        out["touch_to_live_median_s"] = round(statistics.median(touches), 2)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-root", required=True, help="the checkout of the commit before")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--query", default="params=13B&tokens=2T")
    args = parser.parse_args()
    out = {"when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "load_avg_1min_before": os.getloadavg()[0],
           "query": args.query, "runs": [one(m, args.base_root, args.repeats, args.query) for m in ("base", "look")]}
    base, look = (r["first_paint_median_s"] for r in out["runs"])
    out["first_paint_ratio_base_over_look"] = round(base / look, 2)
    out["load_avg_1min_after"] = os.getloadavg()[0]
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
