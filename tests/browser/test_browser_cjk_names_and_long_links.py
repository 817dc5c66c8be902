"""Issue 41's minors in a real browser: a Chinese slot name drawn in the English Compare legend, and a link over
the length limit that says what it dropped. Any console error fails a test."""

from __future__ import annotations

import pytest

from conftest import ARTIFACTS
from pages import DRAWN, open_app

pytestmark = [pytest.mark.server, pytest.mark.browser]

#: The Compare chart's pixels (its canvas as a data URL).
_CANVAS = """() => document.querySelector('.explorer-compare-chart .jupyter-matplotlib-canvas-div canvas').toDataURL()"""


def _pin_b(page, name: str) -> None:
    page.locator(".explorer-slot-row button", has_text="B").click()
    box = page.locator(".explorer-slot-name input")
    box.fill(name)
    box.press("Enter")
    page.get_by_text("Pin current to slot").click()
    page.wait_for_function("n => [...document.querySelectorAll('.explorer-compare th')]"
                           ".some(th => th.innerText.includes(n))", arg=name, timeout=120_000)


def test_browser_a_chinese_slot_name_is_inked_in_the_english_compare_legend(voila_url, chromium):
    """Two Chinese names of the same length: boxes (.notdef, one box for every character) would draw the same
    legend; drawn glyphs draw different ones."""
    page, errors = open_app(chromium, voila_url + "?lang=en", width=1400, height=1000)
    page.get_by_text("Compare", exact=True).click()
    page.wait_for_selector(".explorer-compare th", timeout=120_000)
    _pin_b(page, "中文方案")
    page.wait_for_function(DRAWN, arg=".explorer-compare-chart", timeout=120_000)
    page.wait_for_timeout(800)
    first = page.evaluate(_CANVAS)
    page.locator(".explorer-compare-tab").screenshot(path=str(ARTIFACTS / "minors41-compare-cjk-en.png"))
    _pin_b(page, "中中中中")
    page.wait_for_function(f"before => ({_CANVAS})() !== before", arg=first, timeout=60_000)
    assert errors == [], errors
    page.close()


def test_browser_a_link_over_the_limit_names_what_it_dropped(voila_url, chromium):
    """The 4,123-character link of tests/app/test_link_over_limit.py: its tab and Plan GPU cap lie past 4,096
    characters. The page opens with what came before them and its banner names them (before: no banner, and the
    hosting layer's limit was the app's, so a little longer link was refused whole)."""
    from urllib.parse import quote

    link = f"gpus=64&name_B={quote('中' * 453)}&tab=plan&plan_cap=1024&lang=en"
    assert len(link) == 4123
    page, errors = open_app(chromium, voila_url + "?" + link, width=1400, height=1000)
    page.wait_for_selector(".explorer-banner", timeout=120_000)
    banner = page.locator(".explorer-banner").inner_text()
    assert "Link length [characters]: 4,123" in banner and "at most 4,096" in banner, banner
    assert "Plan: most GPUs" in banner and "Link: tab shown" in banner and "Link: language" in banner, banner
    page.locator(".explorer-right").screenshot(path=str(ARTIFACTS / "minors41-link-over-limit.png"))
    assert errors == [], errors
    page.close()


def test_a_link_past_the_hosting_bound_is_refused_with_a_page(server):
    import clients as cl

    page = cl.get_page(server.url + "?gpus=64&x=" + "1" * 17_000, timeout=30)
    assert page.status == 400 and "Link too long" in page.body and "16,384" in page.body
