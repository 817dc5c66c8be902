"""A deadline so short that the cluster implies a global batch beyond any published run's is said
(issue 25 item 7, minor): each step takes at least one sequence per tensor-parallel group of 8 GPUs."""

from __future__ import annotations

import math

from explorer import Scenario, estimate
from explorer.presets import presets

#: Largest published global batches: Llama 3 405B, 16M tokens = 2,048 sequences of 8,192 (Llama Team 2024,
#: section 3.4.1 and table 4); DeepSeek-V3, 15,360 sequences of 4,096 tokens (DeepSeek-AI 2024, section 4.2).
DENSE_LIMIT = 2048 * 8192
MOE_LIMIT = 15360 * 4096


def _batch_warnings(e):
    return [w for w in e.warnings if w.id.startswith("batch_beyond_published")]


def test_one_hour_deadline_on_7b_warns_about_its_batch():
    # 7B on the default tokens in 1 hour: tens of thousands of GPUs (issue 25: 43,298), one 4,096-token sequence
    # per 8 GPUs is >= 22M tokens a step, against Llama 2's 4M (Touvron et al. 2023) and Llama 3's 16M
    e = estimate(Scenario(params=7e9, gpus=None, deadline_days=1 / 24))
    assert e.feasible and e.gpus > 20_000
    (w,) = _batch_warnings(e)
    assert w.params["batch"] == math.ceil(e.gpus / 8) * 4096 > DENSE_LIMIT
    assert w.params["limit"] == DENSE_LIMIT
    assert "批量" in w.render("zh")


def test_llama_405b_preset_uses_the_published_batch_without_a_warning():
    # 16,384 GPUs / 8 x 8,192 tokens = 16,777,216: exactly the batch Llama 3 405B trained with
    assert not _batch_warnings(estimate(presets()["llama31_405b"].scenario))


def test_default_scenario_has_no_batch_warning():
    assert not _batch_warnings(estimate(Scenario()))


def test_moe_is_held_to_the_largest_published_moe_batch():
    # 100,000 GPUs: 12,500 sequences of 4,096 = 51.2M tokens, above the dense 16.8M, below DeepSeek-V3's 62.9M
    moe = Scenario(params=671e9, architecture="moe", active_params=37e9, gpus=100_000, seq_len=4096)
    assert not _batch_warnings(estimate(moe))
    assert _batch_warnings(estimate(moe.replace(architecture="dense", active_params=None)))
    assert MOE_LIMIT > 12_500 * 4096 > DENSE_LIMIT
