"""Issue 9 in a real browser: MoE sequences, the V100 switch, narrow screens, and the session-ended notice."""

from __future__ import annotations

import os
import signal

import pytest

from conftest import ARTIFACTS, Server
from pages import open_app, summary, total, type_into, wait_change

pytestmark = [pytest.mark.server, pytest.mark.browser]


def test_browser_moe_sequences_and_v100_switch(voila_url, chromium):
    page, errors = open_app(chromium, voila_url)
    dense = total(page)
    before = summary(page)
    page.get_by_text("Mixture-of-Experts", exact=True).click()
    wait_change(page, before)
    moe = total(page)
    from explorer.text import parse_number

    # 7B MoE is cheaper, not dearer (by less than 3x since money model v3: the project's people and data
    # costs do not shrink with the active parameters)
    assert parse_number(moe.strip("$")) < parse_number(dense.strip("$")), (moe, dense)

    # after the 405B preset, type 7B and choose MoE: accepted, no message
    before = summary(page)
    page.locator(".explorer-control-preset select").select_option(label="Llama 3.1 405B (2024)")
    wait_change(page, before)
    page.get_by_text("Dense", exact=True).click()
    page.wait_for_timeout(1500)
    before = summary(page)
    type_into(page, "params", "7000000000")
    wait_change(page, before)
    before = summary(page)
    page.get_by_text("Mixture-of-Experts", exact=True).click()
    wait_change(page, before)
    assert page.locator(".explorer-banner").count() == 0 or not page.locator(".explorer-banner").inner_text()
    assert "7B-parameter MoE" in summary(page)  # issue 27: the summary names the MoE and its active parameters

    # V100 from BF16: FP16 is chosen, said beside the control, and the results use it
    page.get_by_text("Hardware", exact=True).click()
    before = summary(page)
    page.locator(".explorer-control-gpu select").select_option(label="NVIDIA V100 SXM2 32GB")
    wait_change(page, before)
    assert "V100" in summary(page) and "FP16" in summary(page)
    assert page.locator(".explorer-control-precision select option:checked").inner_text() == "FP16"
    assert "FP16" in page.locator(".explorer-control-precision .explorer-note").inner_text()
    assert errors == [], errors
    page.close()


@pytest.mark.parametrize("width", [390, 768])
def test_browser_narrow_screens(voila_url, chromium, width):
    page, errors = open_app(chromium, voila_url, width=width, height=900)
    overflow = page.evaluate("() => [document.documentElement.scrollWidth, document.body.scrollWidth]")
    assert max(overflow) <= width, overflow
    for selector in (".explorer-kpi.total", ".explorer-summary", ".jupyter-matplotlib-canvas-div canvas"):
        box = page.locator(selector).first.bounding_box()
        assert box is not None and box["width"] > 0, selector
        assert box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, (selector, box)
    canvas = page.locator(".jupyter-matplotlib-canvas-div canvas").first.bounding_box()
    assert canvas["height"] > 80  # scaled with its container, not collapsed
    # no element of the app sticks out sideways
    wide = page.evaluate(f"""() => [...document.querySelectorAll('.explorer-app *')]
        .filter(e => e.offsetParent !== null && e.getBoundingClientRect().right > {width} + 1)
        .map(e => e.className).slice(0, 5)""")
    assert wide == [], wide
    page.screenshot(path=str(ARTIFACTS / f"narrow-{width}.png"))
    assert errors == [], errors
    page.close()


def test_browser_session_ended_notice(chromium):
    from clients import children

    # the kernel is killed below; no idle culling (it was 3 s: under a CPU hog the kernel was culled after its
    # notebook ran and before the page connected, and the page never drew, seed 3430832835)
    srv = Server("cull", pool_size=0)
    try:
        page, _ = open_app(chromium, srv.url)
        notice = page.locator(".explorer-session-ended")
        page.wait_for_timeout(6000)  # heartbeats are answered: no notice while the kernel lives
        assert not notice.is_visible()
        for pid in children(srv.proc.pid):
            os.kill(pid, signal.SIGKILL)
        notice.wait_for(state="visible", timeout=120_000)
        text = notice.inner_text()
        assert "session has ended" in text and "会话已结束" in text
        assert "Reload" in text and "重新加载" in text
        page.screenshot(path=str(ARTIFACTS / "session-ended.png"))
        page.close()
    finally:
        srv.stop()


def test_browser_share_link_is_absolute(voila_url, chromium):
    page, errors = open_app(chromium, voila_url + "?params=13000000000")
    page.get_by_text("Share and export", exact=True).click()
    # the page widget makes the link absolute at the next animation frame after the box changes: wait for it
    # (read at once, the box can still hold the kernel's relative link: failed once under seed 1013330659)
    page.wait_for_function("() => (document.querySelector('.explorer-share-url input, input.explorer-share-url, "
                           ".explorer-share-url textarea') || {}).value?.startsWith('http')", timeout=120_000)
    url = page.locator(".explorer-share-url").input_value()
    assert url.startswith(voila_url) and "params=13000000000" in url
    assert errors == [], errors
    page.close()


def _chart_scale(page) -> list:
    """For each visible chart canvas: CSS width, drawn width in CSS px (canvas width / pixel ratio), top canvas shown."""
    return page.evaluate("""() => [...document.querySelectorAll('.jupyter-matplotlib-canvas-div')]
        .filter(d => d.offsetParent !== null)
        .map(d => { const c = d.querySelector('canvas'); const top = d.querySelectorAll('canvas')[1];
                    return [c.getBoundingClientRect().width, c.width / window.devicePixelRatio,
                            top ? getComputedStyle(top).display !== 'none' : false]; })""")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_browser_charts_are_laid_out_for_390_px_not_scaled_down(voila_url, chromium, lang):
    """At 390 px the breakdown and waterfall are drawn at the width they are shown (text at full size).

    The history chart keeps its own size (858 px) and scrolls sideways inside its tab: not scaled down to a
    third, where its labels were 3 px tall.
    """
    page, errors = open_app(chromium, voila_url + f"?lang={lang}", width=390, height=900)
    tabs = page.locator(".explorer-app .lm-TabBar-tab")
    tabs.nth(2).click()
    page.wait_for_timeout(1500)
    scales = _chart_scale(page)
    assert scales
    for css_w, drawn_w, top_shown in scales:
        assert abs(css_w - 858) < 2 and abs(css_w - drawn_w) < 4 and not top_shown, (css_w, drawn_w)
    tab_box = page.locator(".explorer-history-tab").bounding_box()
    assert tab_box["x"] >= 0 and tab_box["x"] + tab_box["width"] <= 390 + 0.5, tab_box
    page.screenshot(path=str(ARTIFACTS / f"narrow-chart-{lang}-tab2.png"), full_page=True)
    for i in (0, 1):
        tabs.nth(i).click()
        # the clicked tab is current and shows its chart, redrawn at the width shown (a wait that ran before the
        # tab switched passed on the chart of the tab before; the kernel may still be building History's chart)
        page.wait_for_function(
            """(i) => {
                 const tab = document.querySelectorAll('.explorer-app .lm-TabBar-tab')[i];
                 const shown = [...document.querySelectorAll('.jupyter-matplotlib-canvas-div')]
                     .filter(d => d.offsetParent !== null);
                 return tab && tab.classList.contains('lm-mod-current') && shown.length > 0
                     && shown.every(d => { const c = d.querySelector('canvas');
                         return !d.closest('.explorer-history-tab')
                             && Math.abs(c.getBoundingClientRect().width - c.width / devicePixelRatio) < 4; }); }""",
            arg=i, timeout=120_000)
        scales = _chart_scale(page)
        assert scales, i
        for css_w, drawn_w, top_shown in scales:
            assert css_w <= 390 and abs(css_w - drawn_w) < 4, (i, css_w, drawn_w)  # not scaled down
            assert not top_shown  # no resize-handle triangle
        page.screenshot(path=str(ARTIFACTS / f"narrow-chart-{lang}-tab{i}.png"), full_page=True)
    overflow = page.evaluate("() => [document.documentElement.scrollWidth, document.body.scrollWidth]")
    assert max(overflow) <= 390, overflow
    assert errors == [], errors
    page.close()


def test_browser_readable_number_boxes(voila_url, chromium):
    page, errors = open_app(chromium, voila_url)
    box = page.locator(".explorer-control-params input[type=text]").first
    assert box.input_value() == "7B"
    assert page.locator(".explorer-control-tokens input[type=text]").first.input_value() == "1T"
    before = summary(page)
    type_into(page, "params", "1.5T")
    wait_change(page, before)
    assert "1.5T parameters" in summary(page) and box.input_value() == "1.5T"
    before = summary(page)
    type_into(page, "params", "70e9")
    wait_change(page, before)
    assert "70B parameters" in summary(page)
    page.wait_for_function("() => document.querySelector('.explorer-control-params input[type=text]').value === '70B'")
    type_into(page, "params", "-5")
    page.wait_for_function("() => document.querySelector('.explorer-control-params .explorer-message') !== null",
                           timeout=120_000)
    assert "70B parameters" in summary(page)  # the last good result stays
    assert box.input_value() == "-5"  # never clamped
    assert errors == [], errors
    page.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_browser_assumptions_show_their_sources_on_a_phone(voila_url, chromium, lang):
    """At 390 px each assumption is a card with its source below it, not a fourth column off the screen."""
    page, errors = open_app(chromium, voila_url + f"?lang={lang}", width=390, height=900)
    page.locator(".explorer-app .lm-TabBar-tab").nth(5).click()  # Assumptions
    page.wait_for_selector(".explorer-assumptions td.src", timeout=120_000)
    page.wait_for_timeout(500)
    cells = page.evaluate("""() => [...document.querySelectorAll('.explorer-assumptions td.src')].slice(0, 5)
        .map(c => { const r = c.getBoundingClientRect(); return [r.left, r.right, r.height, c.innerText.length]; })""")
    assert cells
    for left, right, height, chars in cells:
        assert 0 <= left and right <= 390 and chars > 0, cells
        assert height < 12 * 20, cells  # a readable paragraph, not a one-word-wide column
    overflow = page.evaluate("() => [document.documentElement.scrollWidth, document.body.scrollWidth]")
    assert max(overflow) <= 390, overflow
    assert errors == [], errors
    page.close()
