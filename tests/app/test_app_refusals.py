"""Bad input in the app: a message beside the control (or a banner), the last good result stays, never a clamp or a traceback."""

from __future__ import annotations

import math

import pytest

from explorer import Scenario

from conftest import open_tab


def test_impossible_deadline_shows_message_and_keeps_last_good_result(app):
    app.set_scenario(Scenario())
    gpus = app.estimate.gpus
    app.controls["count_mode"].value = "deadline"
    # the deadline starts at the shown run's days (rounded up): about the same cluster
    assert app.scenario.deadline_days == pytest.approx(math.ceil(app.estimate.wall_days * 10) / 10, abs=0.11)
    assert app.estimate.gpus <= gpus
    app.rows["deadline_days"].twin.value = 60.0
    good = app.estimate
    assert app.scenario.deadline_days == 60.0 and app.error == ""
    # GPT-4-scale compute in one day needs far more than the largest cluster
    app.rows["params"].twin.value = 2e12
    app.rows["tokens"].twin.value = 2e13
    app.rows["deadline_days"].twin.value = 1.0
    assert "Deadline impossible" in app.error
    assert "Deadline impossible" in app.rows["deadline_days"].message.value
    assert app.estimate.scenario.deadline_days != 1.0
    app.controls["count_mode"].value = "gpus"
    assert app.error == ""
    assert app.estimate is not good  # back to a valid scenario, shown


def test_bad_typed_value_shows_message_beside_its_control(app):
    app.controls["pue"].value = "abc"
    assert "pue" in app.error and "abc" in app.rows["pue"].message.value
    app.controls["pue"].value = "0.5"  # below 1
    assert "pue" in app.error
    app.controls["pue"].value = ""
    assert app.error == ""


def test_callbacks_never_raise_on_odd_values(app):
    # Voila forwards widget messages from any viewer: odd values end as messages, not tracebacks
    app.controls["usd_to_cny"].value = "1e400"
    assert "usd_to_cny" in app.error
    app.controls["usd_to_cny"].value = ""
    app.rows["tokens"].twin.value = 1e6
    assert app.error == "" and app.scenario.tokens == 1e6


def test_refused_choice_goes_back(app):
    app.set_scenario(Scenario(deadline_days=30.0, gpus=None))
    good = app.estimate
    app.controls["params"].value = 2e12
    app.controls["tokens"].value = 1e14  # no cluster finishes this in 30 days
    assert "Deadline" in app.error
    assert app.estimate.scenario.tokens == good.scenario.tokens
    app.set_scenario(Scenario())
    app.controls["deadline_days"].value = 30.0
    app.controls["count_mode"].value = "deadline"
    assert app.error == ""
    app.controls["training_kind"].value = "lora"
    assert app.controls["training_kind"].value == app.scenario.training_kind


def test_a_refusal_on_screen_follows_a_language_switch(app):
    app.controls["gpus"].value = 0
    english = app.banner.value
    assert app.error and "is not allowed" in english
    app.controls["language"].value = "zh"
    assert app.error  # still refused: the last good result stays
    assert "is not allowed" not in app.banner.value and "未应用" in app.banner.value and "不可用" in app.banner.value
    assert "不可用" in app.rows["gpus"].message.value
    app.controls["language"].value = "en"
    assert app.banner.value == english
    open_tab(app, "uncertainty")  # the budget box is built when its tab is first opened
    app.analysis.uncertainty.budget_box.value = "-5"
    assert "positive" in app.analysis.uncertainty.budget_message.value
    app.controls["language"].value = "zh"
    assert "请输入正数金额" in app.analysis.uncertainty.budget_message.value


def test_out_of_range_values_get_a_message_not_a_clamp(app):
    good = app.estimate
    app.controls["params"].value = 5e12
    assert app.error == "" and app.scenario.params == 5e12  # within the field's range: taken as is
    app.controls["gpus"].value = 0
    assert "GPUs" in app.error or "gpus" in app.error
    assert app.rows["gpus"].message.value and app.scenario.gpus != 0
    app.controls["gpus"].value = 256
    app.controls["params"].value = -7e9
    assert app.error and app.rows["params"].message.value and app.scenario.params == 5e12
    app.controls["params"].value = 7e9
    assert app.error == ""
    del good


def test_refusals_name_the_control_not_the_field(app):
    app.controls["gpus"].value = 0
    assert "GPUs [count]: 0" in app.banner.value and "is not allowed" in app.banner.value
    app.controls["language"].value = "zh"
    app.controls["gpus"].value = -3
    assert "GPU [张]：-3" in app.banner.value and "不可用" in app.banner.value and "gpus" not in app.banner.value


TABS = {"breakdown": 0, "waterfall": 1, "history": 2, "compare": 3, "uncertainty": 4, "assumptions": 5, "share": 6}


def _budget(app, text: str) -> str:
    app.analysis.uncertainty.budget_box.value = text
    return app.analysis.uncertainty.budget_status_html.value


def test_a_bad_budget_shows_a_message_and_the_last_status_stays(app):
    app.tabs.selected_index = TABS["uncertainty"]
    good = _budget(app, "1000000")
    for bad in ("-5", "0", "abc", "nan"):
        assert _budget(app, bad) == good
        assert "positive amount" in app.analysis.uncertainty.budget_message.value
        assert app.analysis.uncertainty.budget_usd == 1e6
    _budget(app, "")
    assert app.analysis.uncertainty.budget_message.value == "" and app.analysis.uncertainty.status is None
    app.analysis.uncertainty.cap_box.value = "0.5"
    assert "GPUs of at least 1" in app.analysis.uncertainty.budget_message.value and app.error == ""


@pytest.mark.parametrize("typed", ["-7B", "0", "1e20", "abc"])
def test_negative_out_of_range_or_garbage_gets_a_message_never_a_clamp(make_app, typed):
    a = make_app()
    total = a.estimate.total_usd
    a.controls["params"].set_state({"value": typed})
    assert a.rows["params"].message.value != ""  # one clear message beside the control
    assert "Traceback" not in a.rows["params"].message.value
    assert a.scenario.params == 7e9 and a.estimate.total_usd == total  # the last good result stays
    assert a.controls["params"].get_state()["value"] != "7B"  # the box keeps what was typed, not a clamp


def test_budget_forms_of_both_languages_and_a_currency_symbol_of_the_box(app):
    """Issue 28 item 7: 500万, 5亿, $5M and ¥5M are read in a box of their currency; ¥ in a USD box (or $ in a
    CNY one) is refused beside the box, not converted, and the last good budget stays."""
    app.tabs.selected_index = TABS["uncertainty"]
    for text, usd in (("$5M", 5e6), ("5M", 5e6), ("500万", 5e6), ("5亿", 5e8)):  # 500 x 10^4, 5 x 10^8
        _budget(app, text)
        assert app.analysis.uncertainty.budget_message.value == "" and app.analysis.uncertainty.budget_usd == usd
    good = _budget(app, "$5M")
    assert _budget(app, "¥5M") == good and app.analysis.uncertainty.budget_usd == 5e6
    message = app.analysis.uncertainty.budget_message.value
    assert "This box is in USD" in message and "¥" in message and "not converted" in message
    assert _budget(app, "3,5") == good and "write a decimal with a dot" in app.analysis.uncertainty.budget_message.value
    app.controls["usd_to_cny"].value = "7"
    app.controls["currency"].value = "CNY"
    _budget(app, "¥35M")
    assert app.analysis.uncertainty.budget_message.value == "" and app.analysis.uncertainty.budget_usd == pytest.approx(5e6)  # 35M / 7
    _budget(app, "$5M")
    assert "This box is in CNY" in app.analysis.uncertainty.budget_message.value
    app.controls["language"].value = "zh"
    _budget(app, "$5M")
    assert "此框以 CNY 计" in app.analysis.uncertainty.budget_message.value
