"""Mixture-of-experts in the model: active parameters for compute, total for memory, a default active fraction, a shape."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings

from tests.model import team_by_hand as H
from explorer import Scenario, catalog, estimate
from explorer.catalog import default
from strategies import examples, log_uniform


def _attention_per_token(L, d, s):
    """12 L d s FLOP per token (PaLM appendix B), by hand."""
    return 12.0 * L * d * s


REL = 1e-9  # relative tolerance for hand-computed values (floating-point order only)


def approx(x, rel=REL):
    return pytest.approx(x, rel=rel)


def korthikanti_selective_bytes(L, d, s):
    """Activations of one sequence through L layers, selective recomputation, 16-bit: 34 s d bytes per layer."""
    return 34 * s * d * L


@pytest.mark.parametrize("name, total, active, layers, width", [
    # DeepSeek-AI 2024 (arXiv 2412.19437) section 4.2: 61 layers, hidden 7168; 671B total, 37B active
    ("DeepSeek-V3", 671e9, 37e9, 61, 7168),
    # Jiang et al. 2024 (arXiv 2401.04088) table 1: 32 layers, dim 4096; 46.7B total, 12.9B active
    ("Mixtral 8x7B", 46.7e9, 12.9e9, 32, 4096),
])
def test_moe_without_shape_is_within_10_percent_of_its_published_shape(name, total, active, layers, width):
    s = Scenario(params=total, architecture="moe", active_params=active, tokens=1e12, seq_len=4096, gpus=2048)
    e = estimate(s)
    published = (6.0 * active + _attention_per_token(layers, width, 4096)) * 1e12
    assert e.train_flop / published == pytest.approx(1.0, abs=0.10), (name, e.shape)
    L, d, _ = e.shape
    assert 0.5 < L / layers < 1.5 and 0.5 < d / width < 1.5, e.shape


def test_moe_toggle_shape_follows_active_parameters():
    # the app's MoE toggle sets no shape: a 671B MoE at the default active fraction (37B)
    e = estimate(Scenario(params=671e9, architecture="moe", tokens=14.8e12, gpus=2048, seq_len=4096))
    assert e.shape[0] < 80 and e.shape[1] < 9000  # DeepSeek-V3: 61 layers, 7168


def test_moe_default_active_fraction_follows_model_size():
    # the share of the line over published MoE models (tests/model/team_by_hand.py), no longer DeepSeek-V3's
    # 37/671 at every size
    for params in (7e9, 70e9, 405e9):
        s = Scenario(params=params, architecture="moe")
        assert s.active_params_effective == pytest.approx(params * H.moe_share(params), rel=1e-9)
    # switching a 7B dense model to MoE lowers compute, never raises it
    dense, moe = estimate(Scenario()), estimate(Scenario(architecture="moe"))
    # at 7B the share is the line's value at Mixtral's 46.7B (the table's smallest), 27%, plus attention
    assert moe.train_flop < dense.train_flop * 0.35
    assert moe.total_usd < dense.total_usd


def test_moe_active_fraction_field_and_precedence():
    s = Scenario(params=100e9, architecture="moe", active_fraction=0.25)
    assert s.active_params_effective == pytest.approx(25e9)
    # explicit active parameters win, and the fraction they imply is reported
    s = Scenario(params=100e9, architecture="moe", active_params=10e9, active_fraction=0.25)
    assert s.active_fraction_effective == pytest.approx(0.1)
    assert Scenario().active_fraction_effective == 1.0


def test_lora_on_moe_counts_active_params():
    # LoRA on an MoE model: the frozen forward/backward pass (4 FLOP per parameter-token)
    # runs through the active parameters only (an MoE's compute comes from its active parameters Na).
    N, Na, D, f = 671e9, 37e9, 1e9, 0.01
    e = estimate(Scenario(params=N, architecture="moe", active_params=Na, tokens=D, training_kind="lora",
                          lora_trainable_fraction=f, gpu="h800", gpus=256))
    L, d, s = e.shape
    attention = 12 * L * d * s * D
    lower = 4 * Na * D + attention  # frozen weights, active experts only
    upper = (4 * Na + 6 * f * N) * D + attention  # even if adapters sat on every parameter
    assert lower <= e.train_flop <= upper * (1 + 1e-9), (e.train_flop, lower, upper)


def test_moe_uses_active_params_for_compute_total_for_memory():
    N, Na, D = 671e9, 37e9, 14.8e12
    mem = catalog.accelerator("h800").memory_gb
    L, d, s = 61, 7168, 4096  # DeepSeek-V3 (DeepSeek-AI 2024, section 4.2)
    e = estimate(Scenario(params=N, architecture="moe", active_params=Na, tokens=D, gpu="h800", gpus=2048,
                          n_layers=L, d_model=d, seq_len=s, recompute="selective"))  # set: auto takes full (issue 38)
    assert e.train_flop == approx(6 * Na * D + 12 * L * d * s * D)
    assert e.min_gpus_memory == math.ceil(N * 16 / (mem * 1e9 - korthikanti_selective_bytes(L, d, s) / 8))


def test_moe_active_from_experts_and_top_k():
    N, E, k, D = 100e9, 64, 4, 1e12
    e = estimate(Scenario(params=N, architecture="moe", experts=E, top_k=k, tokens=D, gpus=256, n_layers=40,
                          d_model=5120, seq_len=4096))
    assert e.train_flop == approx(6 * (N * k / E) * D + 12 * 40 * 5120 * 4096 * D)


def test_moe_mfu_factor():
    e = estimate(Scenario(params=100e9, architecture="moe", active_params=10e9, tokens=1e12, gpus=512))
    assert e.mfu == approx(default("mfu_dense") * default("moe_mfu_factor"))


def test_the_default_active_share_is_warned_with_the_spread_of_its_source_models():
    # issue 38: the default share was off by a median x1.6 on MoE models outside its table, silently. The five
    # models it is fitted on (moe_models.csv: Mixtral 8x7B 12.9/46.7B, Jiang et al. 2024; Llama 4 Scout 17/109B
    # and Maverick 17/400B, Meta 2025; Qwen3-235B-A22B 22/235B; DeepSeek-V3 37/671B, DeepSeek-AI 2024): a
    # least-squares line of ln(share) on ln(total), by hand with numpy, and each model's share over the line
    total = np.array([46.7e9, 109e9, 235e9, 400e9, 671e9])
    share = np.array([12.9e9, 17e9, 22e9, 17e9, 37e9]) / total
    slope, intercept = np.polyfit(np.log(total), np.log(share), 1)
    ratio = share / np.exp(intercept + slope * np.log(total))
    e = estimate(Scenario(params=300e9, architecture="moe"))
    (w,) = [w for w in e.warnings if w.id == "moe_active_spread"]
    assert w.params["n"] == 5
    assert w.params["lo"] == approx(ratio.min(), rel=1e-9) and w.params["hi"] == approx(ratio.max(), rel=1e-9)
    assert w.params["lo"] < 1 < w.params["hi"]
    fitted = np.exp(intercept + slope * np.log(300e9))
    assert w.params["share_lo"] == approx(fitted * ratio.min(), rel=1e-9)
    # a typed share or active count is not warned about
    assert not [w for w in estimate(Scenario(params=300e9, architecture="moe", active_params=20e9)).warnings
                if w.id == "moe_active_spread"]


@settings(max_examples=examples(60), deadline=None)
@given(log_uniform(2e9, 1e13))
def test_every_defaulted_share_is_warned_with_the_spread_around_it(params):
    # the property over every size an MoE may take: the warning brackets the default share by the ratios of the
    # five source models to the line (0.69x-1.28x, by hand in the test above), whatever the size
    e = estimate(Scenario(params=params, architecture="moe"))
    (w,) = [w for w in e.warnings if w.id == "moe_active_spread"]
    share = e.scenario.active_fraction_effective
    assert w.params["share_lo"] < share < w.params["share_hi"]
    assert w.params["share_lo"] == approx(share * w.params["lo"], rel=1e-9)
    assert w.params["share_hi"] == approx(share * w.params["hi"], rel=1e-9)
