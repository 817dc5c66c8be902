"""Mixture-of-experts in the app: the toggle follows the model size, presets keep their active fraction."""

from __future__ import annotations

import pytest

from explorer import estimate


def test_moe_at_7b_lowers_the_cost(app):
    dense = app.estimate.final_run_usd
    app.controls["architecture"].value = "moe"
    assert app.error == ""
    # the run's machine cost (people and data do not scale with compute): 5.5% active (DeepSeek-V3), MoE MFU 0.77
    assert app.estimate.final_run_usd < dense / 3


def test_moe_follows_model_size(app):
    app.controls["architecture"].value = "moe"
    app.controls["params"].value = 70e9
    assert app.scenario.active_params_effective == pytest.approx(70e9 * 37 / 671, rel=1e-3)
    ratio = estimate(app.scenario.replace(architecture="dense", active_fraction=None)).train_flop / app.estimate.train_flop
    # 6*N*D over 6*0.0551*N*D, diluted by the attention FLOP both share: between 5x and 1/0.0551 = 18x
    assert 5 < ratio < 671 / 37


def test_after_405b_preset_typing_7b_then_moe_is_accepted(app):
    app.controls["preset"].value = "llama31_405b"
    app.controls["params"].value = 7e9
    app.controls["architecture"].value = "moe"
    assert app.error == ""
    assert app.scenario.params == 7e9 and app.scenario.architecture == "moe"
    assert app.scenario.active_params_effective < 7e9


def test_deepseek_preset_then_new_size_keeps_its_active_fraction(app):
    app.controls["preset"].value = "deepseek_v3"
    assert app.controls["active_fraction"].value == pytest.approx(37 / 671, rel=1e-3)
    app.controls["params"].value = 100e9
    assert app.error == "" and app.scenario.active_params_effective == pytest.approx(100e9 * 37 / 671, rel=1e-3)
