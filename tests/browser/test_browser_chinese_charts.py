"""Issue 17 in a real browser: Chinese share links draw their charts at desktop widths.

Before the fix, ``?lang=zh`` at 1400 and 1920 px opened with a 0 x 0 Breakdown
canvas: ipympl had stored the image drawn before the page connected as bare
base64, the page loaded it as a relative URL (``GET /voila/files/iVBORw0KGgo...``,
403) and threw on ``drawImage`` (explorer/app/ipympl_private.py explains). Each load
here waits for every visible chart to hold drawn (non-blank) pixels; the
``chromium`` fixture fails the test on any console error, and no request may
ask the server for an image's base64 text.
"""

from __future__ import annotations

import pytest

from conftest import ARTIFACTS

pytestmark = [pytest.mark.server, pytest.mark.browser]

#: Visible chart canvases, with their size and how many pixels are not blank (not transparent, not white).
DRAWN = """() => [...document.querySelectorAll('.explorer-app .jupyter-matplotlib-canvas-div canvas:first-child')]
  .filter(c => c.offsetParent !== null && c.getBoundingClientRect().width > 0)
  .map(c => {
    if (!c.width || !c.height) { return [c.width, c.height, 0]; }
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (d[i + 3] > 0 && (d[i] < 250 || d[i + 1] < 250 || d[i + 2] < 250)) { n++; }
    }
    return [c.width, c.height, n];
  })"""

#: A chart counts as drawn when this many of its pixels are inked (the breakdown inks about 60,000 at 864 x 355).
MIN_INKED = 5000


def _load_and_check(chromium, url: str, width: int, shot: str | None = None) -> list:
    page = chromium.new_page(viewport={"width": width, "height": 1000})
    file_requests: list[str] = []
    page.on("request", lambda r: file_requests.append(r.url[:120]) if "/files/" in r.url else None)
    try:
        page.goto(url, timeout=120_000)
        page.wait_for_selector(".explorer-summary p", timeout=120_000)
        charts = None
        try:
            page.wait_for_function(
                f"() => {{ const c = ({DRAWN})(); return c.length > 0 && c.every(x => x[2] >= {MIN_INKED}); }}",
                timeout=120_000, polling=200)
        finally:
            charts = page.evaluate(DRAWN)
            if shot:
                page.screenshot(path=str(ARTIFACTS / shot), full_page=True)
        assert charts and all(n >= MIN_INKED for _, _, n in charts), (url, width, charts)
        summary = page.locator(".explorer-summary").inner_text()
        assert any("\u4e00" <= ch <= "\u9fff" for ch in summary), summary  # the page is in Chinese
        assert file_requests == [], file_requests
        return charts
    finally:
        page.close()


@pytest.mark.parametrize("width", [1400, 1920])
@pytest.mark.parametrize("query", ["?lang=zh", "?preset=deepseek_v3&lang=zh"])
def test_chinese_links_draw_every_visible_chart_at_desktop_widths(voila_url, chromium, query, width):
    """Five loads each: the Breakdown chart (and anything else visible) is drawn every time, with no console error."""
    ARTIFACTS.mkdir(exist_ok=True)
    for attempt in range(5):
        shot = f"issue17-{query.strip('?').replace('&', '-').replace('=', '_')}-{width}.png" if attempt == 0 else None
        charts = _load_and_check(chromium, voila_url + query, width, shot)
        assert charts[0][0] > 0, charts


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_phone_shows_the_kpis_before_the_controls(voila_url, chromium, lang):
    page = chromium.new_page(viewport={"width": 390, "height": 900})
    try:
        page.goto(voila_url + f"?lang={lang}", timeout=120_000)
        page.wait_for_selector(".explorer-kpi.total", timeout=120_000)
        kpi = page.locator(".explorer-kpi.total").bounding_box()
        control = page.locator(".explorer-control-params").first.bounding_box()
        assert kpi["y"] + kpi["height"] <= control["y"], (kpi, control)
        assert kpi["y"] < 900  # on the first screen
    finally:
        page.close()


def test_what_if_tab_draws_its_table_and_heatmap(voila_url, chromium):
    page = chromium.new_page(viewport={"width": 1400, "height": 1000})
    try:
        page.goto(voila_url + "?lang=zh&params=70B&tokens=2T", timeout=120_000)
        page.wait_for_selector(".explorer-summary p", timeout=120_000)
        page.locator(".lm-TabBar-tab").nth(7).click()
        page.wait_for_selector(".explorer-whatif-table tr.best", timeout=120_000)
        assert page.locator(".explorer-whatif-table tr").count() == 13  # header + 12 combinations
        page.wait_for_function(
            f"() => {{ const c = ({DRAWN})(); return c.length === 1 && c[0][2] >= {MIN_INKED}; }}",
            timeout=120_000, polling=200)
    finally:
        page.close()


@pytest.mark.parametrize("lang,words", [("en", "Swipe sideways"), ("zh", "左右滑动")])
def test_phone_charts_that_scroll_sideways_say_so(voila_url, chromium, lang, words):
    page = chromium.new_page(viewport={"width": 390, "height": 900})
    try:
        page.goto(voila_url + f"?lang={lang}", timeout=120_000)
        page.wait_for_selector(".explorer-summary p", timeout=120_000)
        page.locator(".lm-TabBar-tab").nth(2).click()  # History: 858 px wide, scrolls on a phone
        page.wait_for_function(
            "() => { const t = document.querySelector('.explorer-history-tab'); return t && t.offsetParent; }",
            timeout=120_000)
        hint = page.evaluate("""() => getComputedStyle(document.querySelector('.explorer-history-tab'), '::before')
                                .content""")
        assert words in hint, hint
        box = page.locator(".explorer-history-tab")
        assert page.evaluate("e => e.scrollWidth > e.clientWidth", box.element_handle())
        page.wait_for_function(  # the chart is still drawn below the hint
            f"() => {{ const c = ({DRAWN})(); return c.length === 1 && c[0][2] >= {MIN_INKED}; }}",
            timeout=120_000, polling=200)
        box.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / f"issue17-scroll-hint-{lang}.png"))
    finally:
        page.close()
