"""Issue 39 in chromium: the static first answer, then the live app on the first touch, with the same answer.

At 390 and 1,400 px, in English and Chinese, with no console error (the ``chromium`` fixture). The static page
is served with no kernel; a click anywhere opens the live app at the same link; the answer stays on screen
until the app has drawn its own summary, and then the app shows the same total.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from conftest import Server

pytestmark = [pytest.mark.server, pytest.mark.browser]

LINK = "params=13B&tokens=2T"


@pytest.fixture(scope="module")
def look_url():
    srv = Server("static-first-browser", "--ExplorerVoila.static_first=True", pool_size=2)
    yield srv.url
    srv.stop()


@pytest.mark.parametrize("width,lang", [(1400, "en"), (390, "en"), (1400, "zh"), (390, "zh")])
def test_static_answer_then_the_live_app_on_the_first_touch(look_url, chromium, width, lang):
    page = chromium.new_page(viewport={"width": width, "height": 900})
    page.route("**/*", lambda route: route.continue_() if route.request.url.startswith("http://127.0.0.1")
               else route.abort())
    page.goto(look_url + f"?{LINK}&lang={lang}", timeout=120_000)
    static_total = page.locator("#explorer-static .explorer-kpi.total .v").inner_text()
    assert static_total.startswith("$")
    assert page.evaluate("() => document.documentElement.lang") == lang
    chart_px = page.evaluate("() => document.querySelector('.explorer-static-chart').naturalWidth")
    # a phone gets the chart drawn for its width (the desktop one, 900 px scaled to it, has unreadable text)
    assert 0 < chart_px <= width if width < 600 else chart_px >= 800, chart_px
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1")  # no sideways scroll
    assert page.locator(".jupyter-widgets").count() == 0  # no app yet
    page.locator("#explorer-static .explorer-summary").click()  # the first touch
    try:
        page.wait_for_function("() => !document.getElementById('explorer-static')"
                               " && document.querySelector('.explorer-summary p')", timeout=180_000)
    except PlaywrightTimeout:
        state = page.evaluate("() => [location.href, !!document.getElementById('explorer-static'),"
                              " document.querySelectorAll('.jupyter-widgets').length]")
        raise AssertionError(f"the live app did not replace the static answer: {state}") from None
    assert "live=1" not in page.url and f"lang={lang}" in page.url
    assert page.locator(".explorer-kpi.total .v").inner_text() == static_total
    page.close()
