"""Benchmarks of the public server: first render, a rush of viewers, memory per kernel.

Each metric is measured against a real server (``python -m explorer.hosting``,
as ``make app`` starts it) on 127.0.0.1, in one run, on this machine:

``voila_first_render_cold_s``
    One viewer, no preheated kernel: from the request to the widget handshake
    done (page read to its end, kernel websocket open with the v1 protocol,
    ``comm_info_request`` answered and every widget's state received, as the
    page's widget manager does). Median over the repeats.
``voila_first_render_preheated_s``
    The same from a preheated pool (``--pool_size``), the default setting.
``browser_first_render_cold_s``, ``browser_first_render_preheated_s``
    The same in headless chromium: from navigation to the first frame that shows
    the summary and a chart's image (timed in the page), for a returning viewer
    (scripts in the browser's cache); ``browser_first_visit_*_s`` for the first
    visit of a new browser.
``rush_<n>_<setting>_p50_s``, ``..._p95_s``, ``..._rendered``, ``..._pool_size``
    ``n`` viewers arriving evenly within a window (10 at once; 30 within 10 s),
    each timed from its arrival to its page rendered; ``rendered`` counts the
    complete ones. Three of them are chromium pages (summary shown, chart
    drawn: ``..._browsers_rendered``, ``..._browser_max_s``), since a browser
    also makes the kernel draw its chart; the others are protocol clients (page
    read, widget handshake done), since 30 chromiums would measure chromium.
    The rush starts once the pool's kernels have run the notebook. ``default``
    is voila.json's pool; ``workshop`` is the setting of docs/deploy.md: a pool the size of the class, refilled a minute
    after use so that refills do not compete with the rush.
``kernel_rss_mb``
    Median resident memory of the kernels of open pages.

The protocol client is in ``tests/clients.py``; see ``docs/deploy.md`` for what
the figures mean for capacity.
"""

from __future__ import annotations

import json
import shutil
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for _path in (ROOT, ROOT / "tests"):  # the package, and the tests' shared helpers (conftest, clients)
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from benchmarks.run import register  # noqa: E402

RUSH_BROWSERS = 3  # real chromium pages among the viewers of a rush; the rest are protocol clients
DEFAULT_POOL_SIZE = json.loads((ROOT / "explorer" / "hosting" / "voila.json").read_text())["VoilaConfiguration"]["default_pool_size"]


def _server(name: str, *options: str, pool_size: int, notebook: str = "explorer/notebooks/explorer.ipynb",
            ready_timeout: float = 120.0):
    import pytest  # the Server helper reports start-up failures through pytest.fail

    from conftest import Server

    try:
        return Server(f"bench-{name}", *options, pool_size=pool_size, notebook=notebook, ready_timeout=ready_timeout)
    except pytest.fail.Exception as exc:  # pragma: no cover - reported, not raised
        raise RuntimeError(str(exc)) from None


def handshake(url: str, timeout: float = 180.0) -> tuple[bool, float]:
    """Load the page and complete the widget handshake; (rendered, seconds)."""
    import clients as cl

    return cl.viewer_handshake(url, timeout=timeout)


# Timed in the page, not by polling from playwright: ``wait_for_selector`` polls every 500 ms once a
# wait is long, which added 0.2-0.5 s to every first render measured that way (measured: the summary's
# first frame at 0.99 s, playwright saw it at 1.14-1.6 s). The probe records the first animation frame
# after the summary is in the page, and the first frame after a chart's image is drawn onto a visible
# chart canvas (ipympl draws each image it receives with drawImage); ``window.__rendered`` is the later
# of the two, in ms since the epoch (performance.timeOrigin + now).
_FIRST_RENDER_PROBE = """
(() => {
  const marks = window.__firstRender = {summary: null, chart: null};
  const frame = (key) => requestAnimationFrame(() => {
    if (marks[key] === null) marks[key] = performance.timeOrigin + performance.now();
    if (marks.summary !== null && marks.chart !== null) window.__rendered = Math.max(marks.summary, marks.chart);
  });
  const draw = CanvasRenderingContext2D.prototype.drawImage;
  CanvasRenderingContext2D.prototype.drawImage = function (...args) {
    const canvas = this.canvas;
    if (marks.chart === null && canvas.closest && canvas.closest('.jupyter-matplotlib-figure')
        && canvas.offsetParent !== null && canvas.width > 0) frame('chart');
    return draw.apply(this, args);
  };
  const watch = new MutationObserver(() => {
    if (document.querySelector('.explorer-summary p')) { watch.disconnect(); frame('summary'); }
  });
  document.addEventListener('DOMContentLoaded', () => watch.observe(document.body, {childList: true, subtree: true}));
})();
"""
_RENDERED = "() => window.__rendered !== undefined"


def _rendered_after(page, start_epoch_s: float, timeout_ms: int) -> float:
    """Seconds from ``start_epoch_s`` (``time.time()``) to the page's first frame with the summary and a chart drawn."""
    page.wait_for_function(_RENDERED, timeout=timeout_ms)
    return page.evaluate("window.__rendered") / 1000 - start_epoch_s


async def _rendered_after_async(page, start_epoch_s: float, timeout_ms: int) -> float:
    """:func:`_rendered_after` for playwright's async API (the rush's browser pages)."""
    await page.wait_for_function(_RENDERED, timeout=timeout_ms)
    return await page.evaluate("window.__rendered") / 1000 - start_epoch_s


def _browser_viewers(visits: list[tuple[str, float]], results, probe: str = _FIRST_RENDER_PROBE) -> None:
    """Open one chromium page per (url, delay [s after the rush starts]); put (rendered, seconds) on ``results``.

    Runs in its own process: chromium is launched before the rush starts, and
    each page is timed from its arrival to ``window.__rendered``, set by ``probe``
    (by default: the app's summary shown and a chart drawn).
    """
    import asyncio

    from playwright.async_api import async_playwright

    from conftest import CHROMIUM_ARGS

    async def main() -> None:
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS)
            results.put(("launched", 0.0))
            go = time.monotonic() + 1.0  # the protocol clients start at the same moment (see rush)
            results.put(("start", go))

            async def viewer(url: str, delay: float) -> tuple[bool, float]:
                await asyncio.sleep(max(go + delay - time.monotonic(), 0.0))
                start, start_epoch = time.monotonic(), time.time()
                # each viewer a browser of its own (its own cookies), as people arriving are
                context = await browser.new_context(viewport={"width": 1400, "height": 1000})
                await context.add_init_script(probe)
                page = await context.new_page()
                try:
                    await page.goto(url, timeout=300_000)
                    return True, await _rendered_after_async(page, start_epoch, 300_000)
                except Exception:  # noqa: BLE001 - a failed viewer is counted, not raised
                    return False, time.monotonic() - start

            for ok, seconds in await asyncio.gather(*(viewer(u, d) for u, d in visits)):
                results.put((ok, seconds))
            await browser.close()

    asyncio.run(main())


def rush(url: str | list[str], viewers: int, window_s: float, browsers: int = 0, *,
         probe: str = _FIRST_RENDER_PROBE, handshake_fn=None) -> dict[str, list[float]]:
    """``viewers`` arriving evenly within ``window_s``; ``browsers`` of them are chromium pages.

    ``url`` is one page, or a list the arrivals take in turn (a class opening a lesson in two
    languages). The browsers are timed to ``window.__rendered`` as set by ``probe``; the protocol
    clients by ``handshake_fn(url) -> (rendered, seconds)`` (:func:`handshake` by default).

    Returns the seconds of the rendered viewers, ``{"protocol": [...], "browser": [...]}``
    (the browsers are spread evenly among the arrivals), and counts failures by
    their absence. Protocol clients are threads of this process (about 0.02
    CPU-seconds each, measured); the browsers run in a process of their own.
    """
    import multiprocessing

    urls = [url] if isinstance(url, str) else list(url)
    arrivals = [window_s * i / max(viewers - 1, 1) for i in range(viewers)]
    # the middle arrival of each of ``browsers`` equal groups: distinct slots up to browsers == viewers
    browser_slots = {min(int((i + 0.5) * viewers / browsers), viewers - 1) for i in range(min(browsers, viewers))} \
        if browsers and shutil.which("chromium") else set()
    results: list[tuple[bool, float]] = []
    lock = threading.Lock()
    queue = multiprocessing.get_context("spawn").Queue()
    proc = None
    go = time.monotonic()
    if browser_slots:
        proc = multiprocessing.get_context("spawn").Process(
            target=_browser_viewers, args=([(urls[i % len(urls)], arrivals[i]) for i in sorted(browser_slots)],
                                           queue, probe))
        proc.start()
        queue.get(timeout=120)  # chromium launched
        go = queue.get(timeout=30)[1]

    def viewer(page_url: str, delay: float) -> None:
        time.sleep(max(go + delay - time.monotonic(), 0.0))
        ok, seconds = (handshake_fn or handshake)(page_url)
        with lock:
            results.append((ok, seconds))

    threads = [threading.Thread(target=viewer, args=(urls[i % len(urls)], arrivals[i])) for i in range(viewers) if i not in browser_slots]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=400)
    browser_results = [queue.get(timeout=400) for _ in browser_slots]
    if proc is not None:
        proc.join(timeout=60)
    return {"protocol": sorted(s for ok, s in results if ok), "browser": sorted(s for ok, s in browser_results if ok)}


def report(out: dict, name: str, save: bool) -> None:
    """Print a benchmark's JSON document; with ``save``, also write it to ``benchmarks/<name>_<date>.json``."""
    text = json.dumps(out, indent=1)
    print(text)
    if save:
        (ROOT / "benchmarks" / f"{name}_{time.strftime('%Y-%m-%d', time.gmtime())}.json").write_text(text + "\n")


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    k = min(int(round(q * (len(values) - 1))), len(values) - 1)
    return sorted(values)[k]


def _browser_first_render(url: str, repeats: int, server=None) -> tuple[float, float]:
    """Seconds from navigation to the first frame showing the summary and a chart drawn, in headless chromium.

    Returns (first visit, median of the returning visits): one browser context
    with its HTTP cache, so returning visits revalidate Voila's scripts as a
    returning viewer's browser does. (Playwright's request routing would turn
    that cache off: chromium's host resolver keeps the page local instead.)
    """
    from playwright.sync_api import sync_playwright

    from conftest import CHROMIUM_ARGS

    executable = shutil.which("chromium")
    if executable is None:
        return float("nan"), float("nan")
    times = []
    ready = server.ready_kernels() if server is not None else 0
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        context.add_init_script(_FIRST_RENDER_PROBE)
        for _ in range(repeats + 1):
            page = context.new_page()
            start_epoch = time.time()
            page.goto(url, timeout=180_000)
            times.append(_rendered_after(page, start_epoch, 180_000))
            page.close()
            if server is not None and server.pool_size:
                server.wait_ready_kernels(ready + len(times))  # the refilled kernel has run the notebook
            else:
                time.sleep(3.0)
        browser.close()
    return times[0], statistics.median(times[1:])


@register("server")
def bench_server(repeats: int) -> dict[str, float]:
    import clients as cl

    out: dict[str, float] = {}
    repeats = max(3, min(repeats, 5))
    cold = _server("cold", pool_size=0)
    try:
        handshake(cold.url)  # warm the server's own caches (templates, kernel spec)
        out["voila_first_render_cold_s"] = statistics.median(handshake(cold.url)[1] for _ in range(repeats))
        out["browser_first_visit_cold_s"], out["browser_first_render_cold_s"] = _browser_first_render(cold.url, repeats)
    finally:
        cold.stop()
    warm = _server("preheated", pool_size=2)
    try:
        warm.wait_ready_kernels(2)
        times = []
        for _ in range(repeats):
            times.append(handshake(warm.url)[1])
            warm.wait_ready_kernels(2 + len(times))  # the pool refilled and ready, as between real viewers
        out["voila_first_render_preheated_s"] = statistics.median(times)
        out["browser_first_visit_preheated_s"], out["browser_first_render_preheated_s"] = _browser_first_render(
            warm.url, repeats, server=warm)
        kernels = [cl.rss_mb(pid) for pid in cl.children(warm.proc.pid)]
        out["kernel_rss_mb"] = statistics.median(kernels) if kernels else float("nan")
        out["server_rss_mb"] = cl.rss_mb(warm.proc.pid)
    finally:
        warm.stop()
    # The rush, twice: with the public default (voila.json: a pool of 4, refilled 1 s after use), and with
    # the workshop setting of docs/deploy.md (a pool the size of the class, refilled a minute later).
    for setting, pool, options in (("default", None, ()),
                                   ("workshop", "viewers", ("--VoilaKernelManager.fill_delay=60",))):
        for viewers, window in ((10, 0.0), (30, 10.0)):
            size = viewers if pool == "viewers" else DEFAULT_POOL_SIZE
            srv = _server(f"rush{viewers}-{setting}", f"--ExplorerVoila.max_kernels={viewers + 10}", *options,
                          pool_size=size, ready_timeout=600)
            try:
                srv.wait_ready_kernels(size, timeout=900)  # the class arrives once the pool is ready
                times = rush(srv.url, viewers, window, browsers=RUSH_BROWSERS)
            finally:
                srv.stop()
            key = f"rush_{viewers}_{setting}"
            every = times["protocol"] + times["browser"]
            out[f"{key}_pool_size"] = size
            out[f"{key}_p50_s"] = _percentile(every, 0.5)
            out[f"{key}_p95_s"] = _percentile(every, 0.95)
            out[f"{key}_rendered"] = len(every)
            out[f"{key}_browsers_rendered"] = len(times["browser"])
            out[f"{key}_browser_max_s"] = max(times["browser"], default=float("nan"))
    return out
