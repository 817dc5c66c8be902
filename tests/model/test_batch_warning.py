"""The global batch and the step count of a run, and the warning when its cluster forces a batch well above
the critical batch of its compute (issue 38 item 2; issue 25 item 7 warned only above 16.8M tokens whatever the
size, so a 1B model on 32,768 GPUs got 14x its batch silently).

The critical batch is DeepSeek-AI 2024's fit ("DeepSeek LLM", arXiv 2401.02954, section 3.1):
``B_opt = 0.2920 C^0.3271`` tokens for C FLOP; the warning fires above ``batch_over_critical_max`` = 2 times it
(McCandlish et al. 2018: at 2 B_crit a run needs 1.5x the data it needs at B_crit).
"""

from __future__ import annotations

import math

from explorer import Scenario, estimate
from explorer.presets import presets


def _b_opt(flop):
    return 0.2920 * flop ** 0.3271  # DeepSeek-AI 2024, section 3.1 (by hand, not the model's function)


def _batch_warnings(e):
    return [w for w in e.warnings if w.id == "batch_beyond_critical"]


def test_one_hour_deadline_on_7b_warns_about_its_batch():
    # 7B on the default tokens in 1 hour: tens of thousands of GPUs, one 4,096-token sequence per 8 GPUs is
    # >= 22M tokens a step; 6 x 7e9 x 1e12 = 4.2e22 FLOP (plus attention) wants about 7.4M. The replicas are
    # whole: one sequence for each whole group of 8 (43,298 GPUs: 5,412 groups, 2 GPUs left over)
    e = estimate(Scenario(params=7e9, gpus=None, deadline_days=1 / 24))
    assert e.feasible and e.gpus > 20_000
    (w,) = _batch_warnings(e)
    assert w.params["batch"] == e.gpus // 8 * 4096
    assert math.isclose(w.params["critical"], _b_opt(e.train_flop), rel_tol=1e-3)
    assert w.params["critical"] < 0.5 * w.params["batch"]
    assert "批量" in w.render("zh")


def test_small_model_on_a_huge_cluster_is_warned():
    # the case: 1B on 20B tokens across 32,768 GPUs forces 32,768 / 8 x 4,096 = 16.8M tokens a step,
    # which the fixed 16.8M limit let through; 6 x 1e9 x 20e9 = 1.2e20 FLOP wants about 1.1M
    e = estimate(Scenario(params=1e9, tokens=20e9, gpus=32_768))
    (w,) = _batch_warnings(e)
    assert w.params["batch"] == 32_768 / 8 * 4096
    assert 10 < w.params["ratio"] < 20  # about 14x (issue 38)
    assert e.layout.steps == math.ceil(20e9 / e.layout.batch_tokens) < 2000


def test_llama_405b_preset_uses_the_published_batch_without_a_warning():
    # 16,384 GPUs / 8 x 8,192 tokens = 16,777,216: exactly the batch Llama 3 405B trained with (Llama Team 2024,
    # section 3.4.1), below the 3.8e25 FLOP run's critical batch (about 68M tokens)
    e = estimate(presets()["llama31_405b"].scenario)
    assert not _batch_warnings(e)
    assert e.layout.min_batch_tokens == 16_384 / 8 * 8192
    assert e.layout.batch_tokens >= e.layout.min_batch_tokens


def test_default_scenario_has_no_batch_warning_and_shows_its_steps():
    e = estimate(Scenario())
    assert not _batch_warnings(e)
    # the batch is the critical batch in whole sequences per replica, and the steps cover the tokens
    L = e.layout
    assert abs(L.batch_tokens - _b_opt(e.train_flop)) <= L.data_parallel * e.shape[2] / 2 + 1
    assert L.steps == math.ceil(e.scenario.tokens / L.batch_tokens)


def test_the_warning_follows_the_size_not_a_fixed_limit():
    # the same 100,000-GPU cluster (12,500 sequences of 4,096 = 51.2M tokens a step) is warned about for a run
    # whose compute wants a smaller batch, and not for one whose compute wants a larger one
    big = Scenario(params=2e12, tokens=4e13, gpus=100_000, seq_len=4096)  # 4.8e26 FLOP: about 156M tokens
    small = big.replace(params=70e9, tokens=1.4e12)  # 5.9e23 FLOP: about 18M tokens
    assert _b_opt(6 * 2e12 * 4e13) > 51.2e6 / 2 and _b_opt(6 * 70e9 * 1.4e12) < 51.2e6 / 2
    assert not _batch_warnings(estimate(big))
    assert _batch_warnings(estimate(small))
