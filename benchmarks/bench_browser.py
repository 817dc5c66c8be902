"""Latency as a viewer feels it: headless chromium against a real server on 127.0.0.1.

``browser_control_<name>_ms_p50``
    For every visible control of the app: from the viewer's input event
    (keydown, click or change, caught in the page) to the new summary text,
    median over the repeats. ``browser_control_max_ms_p50`` is the slowest
    control; ``..._history`` repeats currency and language with the History tab
    open.
``browser_slider_to_chart_ms_p50``, ``baseline_slider_to_chart_ms_p50``
    A slider move to both the new summary and the new chart image: in the app,
    and in the fair baseline a user would write (``benchmarks/baseline.ipynb``:
    a ``pyplot`` figure re-created in an ``Output`` widget on each change),
    served the same way. ``baseline_over_app_slider_p50`` is their ratio.
"""

from __future__ import annotations

import shutil
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for _path in (ROOT, ROOT / "tests"):  # the package, and the tests' shared helpers (conftest, clients)
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from benchmarks.run import register  # noqa: E402

# Arm a watcher: the first input event after arming starts the clock, the next change of the summary stops it.
_ARM = """(selector) => {
  window.__t0 = null; window.__t1 = null;
  const summary = document.querySelector(selector);
  const before = summary.innerText;
  if (!window.__armed) {
    for (const kind of ['keydown', 'mousedown', 'click', 'change', 'input']) {
      document.addEventListener(kind, () => { if (window.__t0 === null) window.__t0 = performance.now(); }, true);
    }
    window.__armed = true;
  }
  if (window.__observer) window.__observer.disconnect();
  window.__observer = new MutationObserver(() => {
    if (window.__t1 === null && window.__t0 !== null && summary.innerText !== before) window.__t1 = performance.now();
  });
  window.__observer.observe(summary, {subtree: true, childList: true, characterData: true});
}"""
_CANVAS = """() => { const c = [...document.querySelectorAll('.jupyter-matplotlib-figure canvas')]
  .filter(c => c.offsetParent !== null && c.width > 0); return c.length ? c[0].toDataURL() : ''; }"""
_IMAGE = "() => { const i = document.querySelector('.baseline-chart img'); return i ? i.src : ''; }"


def _page(browser, url: str):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("http://127.0.0.1") else r.abort())
    page.goto(url, timeout=180_000)
    page.wait_for_selector(".explorer-summary p", timeout=180_000)
    page.wait_for_timeout(1500)
    return page


def _timed(page, action, timeout_ms: int = 5000) -> float | None:
    """Milliseconds from the input event that ``action`` causes to the new summary; None if it never changes."""
    page.evaluate(_ARM, ".explorer-summary")
    action()
    try:
        page.wait_for_function("() => window.__t1 !== null", timeout=timeout_ms)
    except Exception:  # noqa: BLE001 - this control does not change the summary here
        return None
    return page.evaluate("() => window.__t1 - window.__t0")


def _actions(page, row):
    """Two actions that move control ``row`` back and forth, chosen by the widget it holds."""
    select = row.locator("select")
    if select.count():
        values = select.first.evaluate("s => [...s.options].filter(o => !o.disabled).map(o => o.value)")
        current = select.first.input_value()
        other = next((v for v in values if v != current), None)
        if other is None:
            return None
        return (lambda: select.first.select_option(other), lambda: select.first.select_option(current))
    buttons = row.locator(".widget-toggle-button")
    if buttons.count() > 1:
        def press_other():
            row.locator(".widget-toggle-button:not(.mod-active)").first.click()
        return (press_other, press_other)
    handle = row.locator(".noUi-handle")
    if handle.count():
        def key(name):
            def press():
                handle.first.focus()
                handle.first.press(name)
            return press
        return (key("ArrowRight"), key("ArrowLeft"))
    box = row.locator("input[type=checkbox]")
    if box.count():
        return (lambda: box.first.click(), lambda: box.first.click())
    return None


def control_latencies(page, repeats: int, suffix: str = "", only: tuple[str, ...] = ()) -> dict[str, float]:
    out: dict[str, float] = {}
    groups = page.locator(".p-Accordion-header, .lm-AccordionPanel-title, .jupyter-widget-Collapse-header")
    n_groups = max(groups.count(), 1)
    seen: set[str] = set()
    for g in range(n_groups):
        if groups.count():
            groups.nth(g).click()
            page.wait_for_timeout(300)
        rows = page.locator("[class*='explorer-control-']")
        for i in range(rows.count()):
            row = rows.nth(i)
            name = next((c[len("explorer-control-"):] for c in (row.get_attribute("class") or "").split()
                         if c.startswith("explorer-control-")), None)
            if not name or name in seen or (only and name not in only) or not row.is_visible():
                continue
            actions = _actions(page, row)
            if actions is None:
                continue
            seen.add(name)
            times = []
            for r in range(repeats):
                ms = _timed(page, actions[r % 2])
                if ms is not None:
                    times.append(ms)
                page.wait_for_timeout(250)
            if times:
                out[f"browser_control_{name}{suffix}_ms_p50"] = statistics.median(times)
    return out


def slider_to_chart(page, chart_js: str, repeats: int) -> float:
    """Median ms from a slider key press to a new summary and a new chart image."""
    handle = page.locator(".noUi-handle").first
    times = []
    for r in range(repeats):
        before = page.evaluate(chart_js)
        page.evaluate(_ARM, ".explorer-summary")
        handle.focus()
        handle.press("ArrowRight" if r % 2 == 0 else "ArrowLeft")
        page.wait_for_function("() => window.__t1 !== null", timeout=30_000)
        page.wait_for_function(f"(b) => ({chart_js})() !== b", arg=before, timeout=30_000)
        times.append(page.evaluate("() => performance.now() - window.__t0"))
        page.wait_for_timeout(400)
    return statistics.median(times)


@register("browser")
def bench_browser(repeats: int) -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    from benchmarks.bench_server import _server
    from conftest import CHROMIUM_ARGS

    if shutil.which("chromium") is None:
        return {}
    repeats = max(5, repeats)
    out: dict[str, float] = {}
    app = _server("browser-app", pool_size=1)
    baseline = _server("browser-baseline", pool_size=0, notebook="benchmarks/baseline.ipynb")
    baseline_url = baseline.url
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS)
            page = _page(browser, app.url)
            out.update(control_latencies(page, repeats))
            page.locator(".lm-TabBar-tab, .p-TabBar-tab").nth(2).click()  # the History tab
            page.wait_for_timeout(1000)
            out.update(control_latencies(page, repeats, "_history", only=("currency", "language")))
            page.close()
            page = _page(browser, app.url)
            out["browser_slider_to_chart_ms_p50"] = slider_to_chart(page, _CANVAS, repeats)
            page.close()
            page = _page(browser, baseline_url)
            out["baseline_slider_to_chart_ms_p50"] = slider_to_chart(page, _IMAGE, repeats)
            page.close()
            browser.close()
    finally:
        app.stop()
        baseline.stop()
    controls = [v for k, v in out.items() if k.startswith("browser_control_")]
    if controls:
        out["browser_control_max_ms_p50"] = max(controls)
    if out.get("browser_slider_to_chart_ms_p50"):
        out["baseline_over_app_slider_p50"] = out["baseline_slider_to_chart_ms_p50"] / out["browser_slider_to_chart_ms_p50"]
    return out


@register("browser_history")
def bench_browser_history(repeats: int) -> dict[str, float]:
    """Only the History tab: currency and language, input event to new summary, in chromium.

    Each control is switched ``max(7, repeats)`` times back and forth (the first
    switch to each value pays for the chart's first layout or draw in that
    state; the median is over all).
    """
    from playwright.sync_api import sync_playwright

    from benchmarks.bench_server import _server
    from conftest import CHROMIUM_ARGS

    if shutil.which("chromium") is None:
        return {}
    out: dict[str, float] = {}
    app = _server("browser-history", pool_size=1)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS)
            page = _page(browser, app.url)
            page.locator(".lm-TabBar-tab, .p-TabBar-tab").nth(2).click()  # the History tab
            page.wait_for_timeout(1000)
            out.update(control_latencies(page, max(7, repeats), "_history", only=("currency", "language")))
            page.close()
            browser.close()
    finally:
        app.stop()
    return out
