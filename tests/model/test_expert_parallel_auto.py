"""Issue 38: expert parallelism is chosen for an MoE model when it helps memory (it was used only when set).

By hand (explorer.model.layout's memory rule: a rank holds ``U s / (t p) + (S - U s) / n + A / t``, U the state
the ZeRO stage leaves unsharded, ``s = 1 - r + r / e`` its share under e expert ranks, r the routed share):
2T parameters at 16 bytes (2 + 2 + 12) on 1,024 GPUs of 80 GB, 8 layers, 1 GB of activations a sequence.
S = 32e12 bytes; ZeRO-1 leaves U = 4 x 2e12 = 8e12 unsharded.
- Dense (r = 0): ZeRO-1 fits nowhere (the most model parallelism, t 8 x p 8: 8e12 / 64 = 125 GB), nor ZeRO-2
  (4e12 / 64 + 28e12 / 1,024 = 89.8 GB); ZeRO-3 at t 1, p 1: 32e12 / 1,024 + 1 GB = 32.25 GB fits.
- MoE, r = 0.95: at t 1 no e fits (p 8, e 128: s = 0.0574, 57.4 + 30.8 + 1 = 89.2 GB); at t 2, p 8 (16 ranks,
  e <= 64): s (5e11 - 7.8125e9) + 3.125e10 + 5e8 <= 8e10 needs s <= 0.0980, so 0.95 / e <= 0.0480, e >= 19.8:
  e = 32 (s = 0.0796875): 0.0796875 x 8e12 / 16 = 39.84 GB + (32e12 - 6.375e11) / 1,024 = 30.63 GB = 70.47 GB of
  state and 0.5 GB of activations, under ZeRO-1, the stage the chooser tries first.
"""

from __future__ import annotations

import pytest

from explorer import Scenario, estimate
from explorer.model.layout import choose_layout

PARTS = {"weights": 2.0, "gradients": 2.0, "optimizer": 12.0}
RUN = dict(params=2e12, parts=PARTS, activation_bytes=1e9, recompute="full", memory_gb=80.0, n_layers=8,
           seq_len=4096, tokens=1e13, train_flop=1e27, tensor_parallel_max=8)


def test_a_dense_model_gets_no_expert_parallelism():
    L = choose_layout(1024, **RUN)
    assert (L.tensor_parallel, L.pipeline_parallel, L.zero_stage, L.expert_parallel) == (1, 1, 3, 1)
    assert L.state_gb == pytest.approx(31.25) and L.fits and "expert_parallel" not in L.chosen


def test_expert_parallelism_is_chosen_for_moe_when_it_lets_the_state_fit():
    L = choose_layout(1024, routed_share=0.95, **RUN)
    assert (L.tensor_parallel, L.pipeline_parallel, L.zero_stage, L.expert_parallel) == (2, 8, 1, 32)
    assert L.state_gb == pytest.approx(39.84375 + 30.6274414, rel=1e-6) and L.activations_gb == pytest.approx(0.5)
    assert L.fits and "expert_parallel" in L.chosen
    assert "EP 32" in L.text()


def test_no_more_expert_ranks_than_experts():
    # 16 experts: e <= 16 leaves t 2 x p 8 short (e 16: s = 0.109, 0.109 x 8e12 / 16 + ... = 84.6 GB), so the
    # chooser goes on to t 4: p 4 (16 ranks) is the same group size; t 4, p 8 (32 ranks): e <= 16 with
    # s <= (8e10 - 3.125e10 - 2.5e8) / (2.5e11 - 7.8125e9) = 0.2002: 0.95 / e <= 0.1502, e >= 6.3: e = 8
    L = choose_layout(1024, routed_share=0.95, experts=16, **RUN)
    assert L.expert_parallel <= 16 and L.fits
    assert (L.tensor_parallel, L.pipeline_parallel, L.zero_stage, L.expert_parallel) == (4, 8, 1, 8)


def test_expert_parallelism_stays_1_where_the_state_fits_without_it():
    # 10B MoE on 1,024 GPUs: ZeRO-1 at t 1, p 1: 4 x 1e10 = 40 GB unsharded + 12 x 1e10 / 1,024 = 0.12 GB + 1 GB
    # = 41.1 GB fits with e = 1 (the fewest expert ranks that fit)
    L = choose_layout(1024, routed_share=0.95, **dict(RUN, params=1e10))
    assert (L.tensor_parallel, L.pipeline_parallel, L.zero_stage, L.expert_parallel) == (1, 1, 1, 1)
    assert L.state_gb == pytest.approx(40.0 + 12e10 / 1024 / 1e9)


def test_expert_ranks_come_before_pipeline_stages():
    # 20B: at t 1, p 1, e 1: 80 GB + 0.23 GB + 1 GB does not fit; e 2 (s = 0.05 + 0.475 = 0.525): 42 GB +
    # (32e10 - 4.2e10) / 1,024 = 0.27 GB + 1 GB = 43.3 GB fits, before a second pipeline stage (no bubble)
    L = choose_layout(1024, routed_share=0.95, **dict(RUN, params=2e10))
    assert (L.tensor_parallel, L.pipeline_parallel, L.zero_stage, L.expert_parallel) == (1, 1, 1, 2)
    assert L.state_gb == pytest.approx(42.0 + (32e10 - 4.2e10) / 1024 / 1e9)


def test_a_set_expert_parallelism_is_kept_and_an_estimate_shows_a_chosen_one():
    s = Scenario(params=671e9, architecture="moe", active_params=37e9, tokens=14.8e12, gpu="h800", gpus=2048,
                 n_layers=61, d_model=7168, seq_len=4096, expert_parallel=64)
    assert estimate(s).layout.expert_parallel == 64
    auto = estimate(s.replace(expert_parallel=None)).layout
    assert auto.fits and "expert_parallel" in auto.chosen
