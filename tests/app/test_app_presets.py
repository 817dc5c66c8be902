"""Presets in the app: choosing one sets the scenario and every control, and keeps what is not the preset's."""

from __future__ import annotations

from explorer.app.bindings import BINDINGS
from explorer.presets import presets


def test_every_preset_builds_and_moves_the_controls(app):
    for preset_id, preset in presets().items():
        app.controls["preset"].value = preset_id
        assert app.error == "", preset_id
        assert app.scenario == preset.scenario, preset_id
        assert app.controls["gpu"].value == preset.scenario.gpu
        assert app.rows["params"].value == preset.scenario.params
    app.controls["preset"].value = ""


def test_every_control_matches_the_scenario_after_each_preset(app):
    for pid, preset in presets().items():
        app.controls["preset"].value = pid
        # the preset's own scenario, not the app's: a preset that changed nothing leaves controls and app agreeing
        s = preset.scenario
        assert app.error == "", pid
        assert app.scenario == s, pid
        for b in BINDINGS:
            if b.field and b.kind in ("choice", "toggle", "log", "number") and getattr(s, b.name) is not None:
                if b.name == "active_fraction":
                    continue
                assert app.controls[b.name].value == getattr(s, b.name), (pid, b.name)


def test_preset_keeps_currency_and_language(app):
    app.controls["language"].value = "zh"
    app.controls["currency"].value = "CNY"
    app.controls["preset"].value = "gpt3"
    assert app.scenario.currency == "CNY" and app.language == "zh"
    assert "¥" in app.summary.value and "训练" in app.summary.value


def test_slider_ranges_cover_every_preset(app):
    for preset in presets().values():
        s = preset.scenario
        for name in ("params", "tokens", "gpus", "experiments_multiplier"):
            value = getattr(s, name)
            if value is None:
                continue
            slider = app.rows[name].widget
            assert 10 ** slider.min <= value <= 10 ** slider.max, (preset.id, name)
