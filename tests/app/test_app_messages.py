"""The app shows warnings and refusals in its language, rendered from their ids (explorer.messages)."""

from __future__ import annotations

import html
import re

import pytest

from explorer import Scenario


def _text(value: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", value))


@pytest.fixture()
def zh_app(make_app):
    return make_app(query_string="lang=zh")


def test_abc_in_the_model_size_box_gives_a_chinese_message_and_keeps_the_last_result(zh_app):
    app = zh_app
    good = app.estimate
    app.rows["params"].twin.value = "abc"
    # the report was "模型规模 [参数量]：'abc' 不可用；允许：a number"
    assert _text(app.rows["params"].message.value) == "模型规模 [参数量]：'abc' 不可用；允许：数字"
    assert _text(app.banner.value) == "未应用：模型规模 [参数量]：'abc' 不可用；允许：数字"
    assert app.estimate is good and app.scenario.params == good.scenario.params
    assert app.error == "params: 'abc' is not allowed; allowed: a number"  # the English for logs and tests
    app.controls["language"].value = "en"
    assert _text(app.rows["params"].message.value) == "Model size [parameters]: 'abc' is not allowed; allowed: a number"
    app.rows["params"].twin.value = 7e9  # what the box sends for "7B" (explorer.app.controls.NumberBox)
    assert app.error == "" and app.scenario.params == 7e9


def test_an_optional_box_and_a_range_refusal_are_chinese(zh_app):
    app = zh_app
    app.controls["pue"].value = "abc"
    assert _text(app.rows["pue"].message.value).endswith("'abc' 不可用；允许：数字，或留空使用默认值")
    app.controls["pue"].value = ""
    app.controls["gpus"].value = 0
    # the gpus field's range in scenario.py: whole numbers in [1, 1e7]
    assert _text(app.rows["gpus"].message.value) == "GPU [张]：0 不可用；允许：[1, 1,000万] 内的整数"


def test_an_impossible_deadline_is_refused_in_chinese(zh_app):
    app = zh_app
    app.set_scenario(Scenario(params=7e9, tokens=1e12, gpus=None, deadline_days=30))
    app.rows["deadline_days"].twin.value = 0.01
    message = _text(app.rows["deadline_days"].message.value)
    assert message.startswith("截止时间无法满足") and "Deadline" not in message
    assert app.scenario.deadline_days == 30


def test_warnings_are_chinese(zh_app):
    app = zh_app
    app.set_scenario(Scenario(gpus=200_000, pricing="spot"))
    items = [_text(i) for i in re.findall(r"<li>(.*?)</li>", app.warnings.value)]
    assert ("200,000 张 GPU 超过模型已知的最大集群（100,000 张）：没有公开的训练达到这一规模，"
            "故障与有效训练比例是外推值。") in items
    assert not any(re.search(r"\b(the|is|GPUs|of)\b", i) for i in items), items
