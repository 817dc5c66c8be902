"""Mixture-of-experts in the app: the toggle follows the model size, presets keep their active fraction."""

from __future__ import annotations

import pytest

from explorer import estimate
from tests.model import team_by_hand as H


def test_moe_at_7b_lowers_the_cost(app):
    dense = app.estimate.final_run_usd
    app.controls["architecture"].value = "moe"
    assert app.error == ""
    # the run's machine cost (people and data do not scale with compute): at 7B the size-aware default share is
    # the line's value at Mixtral's 46.7B, 27% (tests/model/team_by_hand.py), at MoE MFU 0.77: 0.27 / 0.77 = 0.35,
    # plus the attention FLOP both share (the old 5.5% of DeepSeek-V3 at every size gave < 1/3)
    assert app.estimate.final_run_usd < dense / 2


def test_moe_follows_model_size(app):
    app.controls["architecture"].value = "moe"
    app.controls["params"].value = 70e9
    share = H.moe_share(70e9)  # the line over published MoE models at 70B: 20%, between Mixtral and Llama 4 Scout
    assert app.scenario.active_params_effective == pytest.approx(70e9 * share, rel=1e-9)
    ratio = estimate(app.scenario.replace(architecture="dense", active_fraction=None)).train_flop / app.estimate.train_flop
    # 6*N*D over 6*share*N*D, diluted by the attention FLOP both share: between 3x and 1/share = 4.9x
    assert 3 < ratio < 1 / share


def test_after_405b_preset_typing_7b_then_moe_is_accepted(app):
    app.controls["preset"].value = "llama31_405b"
    app.controls["params"].value = 7e9
    app.controls["architecture"].value = "moe"
    assert app.error == ""
    assert app.scenario.params == 7e9 and app.scenario.architecture == "moe"
    assert app.scenario.active_params_effective < 7e9


def test_deepseek_preset_then_new_size_takes_the_share_of_its_size(app):
    """DeepSeek-V3's 37B of 671B active is that model's shape: a 100B MoE takes the share fitted for its size
    (issue 27: the 5.5% kept made a 70B "MoE" 3.9B active, 5x cheaper, and nothing said so)."""
    app.controls["preset"].value = "deepseek_v3"
    assert app.controls["active_fraction"].value == pytest.approx(37 / 671, rel=1e-3)
    app.controls["params"].value = 100e9
    s = app.scenario
    assert app.error == "" and s.architecture == "moe"
    assert s.active_params is None and s.active_fraction is None  # the size-aware default, stated as one
    # moe_models.csv: Mixtral 8x7B 12.9/46.7 = 28% and Llama 4 Scout 17/109 = 16% bracket a 100B MoE's share
    assert 17 / 109 * 0.9 < s.active_fraction_effective < 12.9 / 46.7
    assert "default for this size" in app.summary.value


def test_a_typed_share_survives_a_new_size(app):
    app.controls["architecture"].value = "moe"
    app.controls["active_fraction"].value = 0.125
    app.controls["params"].value = 100e9
    assert app.error == "" and app.scenario.active_fraction == 0.125
    assert app.scenario.active_params_effective == pytest.approx(12.5e9)
