"""Issue 27: no hidden state after a preset, MoE and typed rates named truthfully, one refused box at a time."""

from __future__ import annotations

import dataclasses

import pytest

from explorer import Scenario
from explorer.app.bindings import BINDINGS
from explorer.presets import presets

#: Scenario fields that have no control in the app (the binding table says which have one).
UNCONTROLLED = [f.name for f in dataclasses.fields(Scenario) if f.name not in {b.name for b in BINDINGS}]


@pytest.mark.parametrize("preset_id", list(presets()))
def test_after_a_preset_and_a_new_size_no_field_without_a_control_differs_from_its_default(make_app, preset_id):
    app = make_app()
    app.controls["preset"].value = preset_id
    kept = app.kept_fields()
    # whatever the preset holds without a control is listed on the page, with a reset
    assert set(kept) == {n for n in UNCONTROLLED if getattr(app.scenario, n) != getattr(Scenario(), n)}
    assert (app.kept_box.layout.display != "none") == bool(kept)
    for name in kept:
        assert f"{kept[name]:,}"[:2] in app.kept.value or name == "active_params", (preset_id, name)
    new_size = 13e9 if app.scenario.params != 13e9 else 14e9
    app.controls["params"].value = new_size
    assert app.error == "", (preset_id, app.error)
    default = Scenario()
    assert {n: getattr(app.scenario, n) for n in UNCONTROLLED if getattr(app.scenario, n) != getattr(default, n)} == {}
    assert app.kept_box.layout.display == "none" and app.kept.value == ""


def test_deepseek_then_7b_keeps_the_run_choices_and_drops_the_model_and_its_team(app):
    """The report: DeepSeek-V3 then 7B kept 61 layers x 7168 (+30% compute) and 39.8 people ($10.7M of $10.9M)."""
    app.controls["preset"].value = "deepseek_v3"
    assert "61" in app.kept.value and "7,168" in app.kept.value
    app.controls["params"].value = 7e9
    s = app.scenario
    assert (s.n_layers, s.d_model, s.seq_len, s.active_params) == (None, None, None, None)
    # the run's choices are visible controls and stay: accelerator, precision, region, the typed $2/h
    assert (s.gpu, s.precision, s.region, s.rate_usd_per_gpu_hour) == ("h800", "fp8", "cn-avg", 2.0)
    # DeepSeek's 199 contributors x 20% are that project's team: a 7B project takes the team that follows its run
    assert s.team_headcount is None and app.controls["team_headcount"].value == ""
    assert app.estimate.cost_usd["people"] < 0.5 * 39.8 * app.estimate.project_months / 12 * 1e6


def test_a_typed_team_survives_a_new_size(app):
    app.controls["preset"].value = "deepseek_v3"
    app.controls["team_headcount"].value = "12"
    app.controls["params"].value = 7e9
    assert app.scenario.team_headcount == 12


def test_the_reset_clears_what_has_no_control(app):
    app.set_scenario(Scenario(n_layers=80, d_model=8192, seq_len=8192))
    assert app.kept_box.layout.display != "none"
    for word in ("80", "8,192", "Layers"):
        assert word in app.kept.value
    app.kept_reset.click()
    assert app.error == "" and app.kept_fields() == {} and app.kept_box.layout.display == "none"
    assert (app.scenario.n_layers, app.scenario.d_model, app.scenario.seq_len) == (None, None, None)


def test_the_kept_line_in_chinese(make_app):
    app = make_app(language="zh")
    app.controls["preset"].value = "deepseek_v3"
    assert "层数 61" in app.kept.value and "保留" in app.kept.value
    assert app.kept_reset.description == "全部重置"


def test_moe_summary_names_the_moe_and_its_active_parameters(app):
    app.set_scenario(Scenario(params=70e9, architecture="moe", active_params=3.9e9))
    assert "Training a 70B-parameter MoE (3.9B active) on" in app.summary.value
    app.controls["language"].value = "zh"
    assert "700亿 参数的 MoE 模型（激活 39亿）" in app.summary.value  # 万/亿 on the Chinese page (issue 41)


def test_the_active_share_box_is_rounded_and_an_unchanged_box_keeps_the_exact_share(app):
    app.controls["preset"].value = "deepseek_v3"
    assert app.controls["active_fraction"].value == 0.0551  # 37 / 671 = 0.05514..., to 3 digits
    app.controls["tokens"].value = 10e12  # another change: the share behind the box stays exact
    assert app.scenario.active_params_effective == 37e9


def test_a_typed_rate_is_named_as_one_in_slots_captions_summary_and_history(app):
    app.controls["pricing"].value = "reserved_3y"
    app.controls["rate_usd_per_gpu_hour"].value = "2"
    app.pin_baseline()
    app.tabs.selected_index = 3  # Compare: its slot headers are written when it is shown
    history_label = app.history.shown["label"]  # the text beside the History chart's "your run" marker
    for text in (app.summary.value, app.chart_caption(), app.analysis.compare.compare_html.value, history_label):
        assert "Typed rate $2 per GPU-hour" in text, text
        assert "3-year" not in text.split("Typed rate")[0][-40:]
    app.controls["language"].value = "zh"
    assert "输入的费率" in app.summary.value and "输入的费率" in app.chart_caption()


def test_one_refused_box_does_not_block_the_others(app):
    app.controls["pue"].value = "abc"
    assert app.error and "abc" in app.rows["pue"].message.value
    app.controls["params"].value = 70e9  # another box: applied, the refusal stays beside its own box
    assert app.scenario.params == 70e9
    assert "abc" in app.rows["pue"].message.value and "explorer-message" not in app.rows["params"].message.value
    app.controls["pue"].value = "1.2"
    assert app.error == "" and app.scenario.pue == 1.2 and app.scenario.params == 70e9


@pytest.mark.parametrize("name, value, zh", [("recovery", "storage", "存储检查点（Llama 3）"),
                                             ("team_pay_basis", "industry", "一般行业（美国）")])
def test_option_labels_follow_the_language(app, name, value, zh):
    app.controls["language"].value = "zh"
    app.groups.selected_index = 4  # the advanced group, where these are
    assert dict((v, k) for k, v in app.rows[name].widget.options)[value] == zh
