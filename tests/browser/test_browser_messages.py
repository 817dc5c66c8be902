"""The reported case in a real browser: the Chinese page, ``abc`` typed in the model-size box."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.server, pytest.mark.browser]


def test_browser_abc_in_the_model_size_box_is_refused_in_chinese(voila_url, chromium):
    page = chromium.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.route("**/*", lambda route: route.continue_() if route.request.url.startswith("http://127.0.0.1")
               else route.abort())
    page.goto(voila_url + "?lang=zh", timeout=120_000)
    page.wait_for_selector(".explorer-summary p", timeout=120_000)
    summary = page.locator(".explorer-summary").inner_text()
    box = page.locator(".explorer-control-params input[type=text]").first
    box.fill("abc")
    box.press("Enter")
    message = page.locator(".explorer-control-params .explorer-message")
    message.wait_for(timeout=120_000)
    # the report was "模型规模 [参数量]：'abc' 不可用；允许：a number"
    assert message.inner_text().strip() == "模型规模 [参数量]：'abc' 不可用；允许：数字"
    assert page.locator(".explorer-summary").inner_text() == summary  # the last good result stays
    assert box.input_value() == "abc"
    assert errors == [], errors
    page.close()
