"""Issue 27 in chromium at 1400, 768 and 390 px, in English and Chinese: a preset then a new size (the line of
settings without a control appears, then clears), the MoE summary and a typed rate named as one. The pages fail on
any console error and on the "Unsatisfied version" warnings of labextensions that need JupyterLab's own core:
voila.json denies Voila the two JupyterLab-only extensions (jupytext's and Voila's own preview button), whose
shared @jupyterlab/* packages require versions (^4.7) newer than Voila 0.5's core."""

from __future__ import annotations

import pytest

from conftest import ARTIFACTS
from pages import summary, type_into, wait_change

pytestmark = [pytest.mark.server, pytest.mark.browser]


def _open(chromium, url, width, lang):
    page = chromium.new_page(viewport={"width": width, "height": 1000})
    warnings: list[str] = []
    page.on("console", lambda msg: warnings.append(msg.text) if msg.type == "warning" else None)
    page.route("**/*", lambda route: route.continue_() if route.request.url.startswith("http://127.0.0.1")
               else route.abort())
    page.goto(url + ("?lang=zh" if lang == "zh" else ""), timeout=180_000)
    page.wait_for_selector(".explorer-summary p", timeout=180_000)
    return page, warnings


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("width", [1400, 768, 390])
def test_preset_then_size_moe_and_typed_rate(voila_url, chromium, width, lang):
    page, warnings = _open(chromium, voila_url, width, lang)
    kept = page.locator(".explorer-kept")
    assert not kept.is_visible()
    before = summary(page)
    page.locator(".explorer-control-preset select").select_option(value="deepseek_v3")
    wait_change(page, before)
    # the preset's layers, width and sequence have no control: listed, with a reset
    kept.wait_for(state="visible", timeout=60_000)
    assert "61" in kept.inner_text() and "7,168" in kept.inner_text()
    text = summary(page)
    assert ("671B-parameter MoE (37B active)" if lang == "en" else "671B 参数的 MoE 模型（激活 37B）") in text
    assert ("Typed rate $2 per GPU-hour" if lang == "en" else "输入的费率") in text
    page.screenshot(path=str(ARTIFACTS / f"app27-deepseek-{width}-{lang}.png"), full_page=False)
    before = summary(page)
    type_into(page, "params", "7B")
    wait_change(page, before)
    kept.wait_for(state="hidden", timeout=60_000)  # a new size clears the model's shape
    text = summary(page)
    assert ("7B-parameter MoE" if lang == "en" else "7B 参数的 MoE 模型") in text
    page.screenshot(path=str(ARTIFACTS / f"app27-7b-{width}-{lang}.png"), full_page=False)
    unsatisfied = [w for w in warnings if "Unsatisfied version" in w]
    assert unsatisfied == [], unsatisfied
    page.close()
