"""Whole data-parallel replicas (issue 38): the layout chooser tried only powers of two for the tensor and pipeline
sizes, so on most typed counts the data parallelism was fractional ("DP 156.2"; OPT-175B's 992 A100s at TP 4 x
PP 32 gave DP 7.75, 9.7% of the GPUs without a replica). A practitioner picks a model-parallel group that divides
the cluster, with any pipeline depth (Smith et al. 2022, "Using DeepSpeed and Megatron to Train Megatron-Turing
NLG 530B", arXiv 2201.11990: TP 8 x PP 35); where none fits, the GPUs beyond the whole replicas sit idle, paid.

The property test finds the fitting whole layouts by brute force, independently of the chooser: every tensor size
of 1, 2, 4 or 8 that divides the count, every pipeline depth up to the layers that makes the split whole, every
ZeRO stage and (MoE) every power-of-two expert-rank count within the replicas, with the memory by hand
(Rajbhandari et al. 2020: 2 + 2 + 12 bytes per parameter; ZeRO-1 leaves the 4 bytes of weights and gradients
unsharded, ZeRO-2 the 2 of weights, ZeRO-3 none; the unsharded part over the t x p ranks, an MoE rank holding
``1 - r + r / e`` of it, the rest over all GPUs; the activations of one sequence over t).
"""

from __future__ import annotations

import math

import pytest
from hypothesis import event, example, given, settings
from hypothesis import strategies as st

from explorer import Scenario, estimate
from explorer.model.layout import choose_layout
from explorer.presets import presets
from strategies import examples, log_uniform

PARTS = {"weights": 2.0, "gradients": 2.0, "optimizer": 12.0}
UNSHARDED_BYTES = {1: 4.0, 2: 2.0, 3: 0.0}  # per parameter, by ZeRO stage (Rajbhandari et al. 2020, section 5)


def _memory_bytes(n, params, act, t, p, z, share):
    """State and activations on one GPU of ``n`` (hand formula, see the module docstring) [bytes]."""
    u = share * UNSHARDED_BYTES[z] * params
    return u / (t * p) + (16.0 * params - u) / n + act / t


def _whole_layouts_that_fit(n, params, act, mem, n_layers, t_max, routed, experts):
    """Every (t, p, z, e) whose group t p e divides ``n`` and that fits in ``mem`` bytes (brute force)."""
    out = []
    for t in (1, 2, 4, 8):
        if t > t_max or n % t:
            continue
        for p in range(1, min(n_layers, n // t) + 1):
            if n % (t * p):
                continue
            e_all = [1]
            if routed > 0:
                e_all = [2 ** k for k in range(20) if 2 ** k <= min(n // (t * p), experts) and n % (t * p * 2 ** k) == 0]
            for z in (1, 2, 3):
                for e in e_all:
                    share = 1.0 - routed + routed / e
                    if _memory_bytes(n, params, act, t, p, z, share) <= mem:
                        out.append((t, p, z, e))
    return out


@settings(max_examples=examples(300))
@given(n=st.integers(1, 100_000), params=log_uniform(1e8, 2e12), n_layers=st.integers(4, 160),
       act=log_uniform(1e8, 2e12), memory_gb=st.sampled_from([16.0, 40.0, 80.0, 141.0]),
       t_max=st.sampled_from([4, 8]), seq_len=st.sampled_from([2048, 4096, 8192]),
       moe=st.none() | st.tuples(st.sampled_from([0.5, 0.9, 0.97]), st.sampled_from([8, 64, 256])))
@example(n=992, params=175e9, n_layers=96, act=96 * 2048 * 12288 * 114.0, memory_gb=80.0, t_max=8, seq_len=2048,
         moe=None)  # OPT-175B (Zhang et al. 2022): 992 A100s; fractional at TP 4 x PP 32 before
@example(n=1021, params=70e9, n_layers=80, act=80 * 4096 * 8192 * 194.0, memory_gb=80.0, t_max=8, seq_len=4096,
         moe=None)  # a prime count: no whole layout fits, some GPUs idle
def test_whenever_a_whole_layout_fits_the_chosen_one_has_whole_replicas(n, params, n_layers, act, memory_gb, t_max,
                                                                        seq_len, moe):
    routed, experts = moe if moe is not None else (0.0, 1)
    tokens = 20.0 * params
    L = choose_layout(n, params=params, parts=PARTS, activation_bytes=act, recompute="selective",
                      memory_gb=memory_gb, n_layers=n_layers, seq_len=seq_len, tokens=tokens,
                      train_flop=6.0 * params * tokens, tensor_parallel_max=t_max, routed_share=routed,
                      experts=experts if moe is not None else None)
    t, p, z, e = L.tensor_parallel, L.pipeline_parallel, L.zero_stage, L.expert_parallel
    whole = _whole_layouts_that_fit(n, params, act, memory_gb * 1e9, n_layers, t_max, routed, experts)
    event("a whole layout fits" if whole else "no whole layout fits")
    if whole:
        assert n % (t * p * (e if moe is not None else 1)) == 0, (L, whole[:3])  # every GPU in a whole replica
        assert L.data_parallel == n // (t * p) and L.idle_gpus == 0 and L.fits
        # the chosen layout's memory fits, by hand, and as the layout reports it
        share = 1.0 - routed + routed / e
        assert _memory_bytes(n, params, act, t, p, z, share) <= memory_gb * 1e9 * (1 + 1e-12)
        assert L.state_gb + L.activations_gb <= memory_gb * (1 + 1e-12)
    else:  # whole replicas, the rest idle
        assert L.data_parallel == int(L.data_parallel) and L.idle_gpus == n - L.data_parallel * t * p >= 0
        if L.fits and moe is None:  # at its tensor group and ZeRO stage, no depth that fits leaves fewer idle
            idle = [n % (t * q) for q in range(1, min(n_layers, n // t) + 1)
                    if _memory_bytes(n, params, act, t, q, z, 1.0) <= memory_gb * 1e9]
            assert L.idle_gpus == min(idle)
    # the batch is whole sequences for each whole replica, at least one per micro-batch in flight
    if L.data_parallel > 0:
        assert L.batch_sequences % L.data_parallel == 0 and L.batch_sequences >= L.data_parallel * p
        assert L.steps == math.ceil(tokens / L.batch_tokens)


def test_opt_175b_preset_gets_whole_replicas():
    # Zhang et al. 2022: 992 A100 80GB, 96 layers, d 12,288, 96 heads, sequence 2,048, FP16. By hand, with no
    # recomputation (what compute picks here): activations 96 x 2048 x 12288 x (34 + 5 x 96 x 2048 / 12288 = 114)
    # = 275.4 GB a sequence, so t >= 4 (68.85 GB at TP 4); ZeRO-1 then holds 12 x 175e9 / 992 = 2.12 GB of
    # optimizer and 4 x 175e9 / (4 p) of weights and gradients, which fits for p >= 19.4. Powers of two gave
    # p = 32 (DP 7.75); the whole depths at TP 4 divide 992 / 4 = 248 = 8 x 31: p = 31, DP 8 (76.6 GB)
    e = estimate(presets()["opt175b"].scenario)
    L = e.layout
    assert e.gpus == 992 and L.data_parallel * L.tensor_parallel * L.pipeline_parallel == 992
    assert (L.tensor_parallel, L.pipeline_parallel, L.data_parallel, L.zero_stage) == (4, 31, 8, 1)
    assert L.idle_gpus == 0 and L.fits
    state = 4 * 175e9 / (4 * 31) + 12 * 175e9 / 992
    assert L.state_gb * 1e9 + L.activations_gb * 1e9 == pytest.approx(state + 275.4e9 / 4, rel=1e-3)
    assert not [w for w in e.warnings if w.id == "layout_idle_gpus"]


def test_a_prime_count_reports_its_idle_gpus_and_warns():
    # 70B (80 layers, d 8,192, 64 heads) on 1,021 H100s (a prime), sequence 4,096, no recomputation. By hand: one
    # sequence is 80 x 4096 x 8192 x (34 + 5 x 64 x 4096 / 8192 = 194) = 520.8 GB, over t: only t = 8 fits
    # (65.1 GB); the one whole split of 1,021 GPUs into groups of at most 80 layers is t 1 x p 1, which cannot
    # hold it. At TP 8, ZeRO-1: 12 x 70e9 / 1021 = 0.82 GB of optimizer plus 280e9 / (8 p) fits for p >= 2.5.
    # The fewest idle: 8 p k GPUs work for k whole replicas, p k <= 127 (1,016 / 8), and 127 is prime (p 1 or
    # 127 > 80 layers), so at most 8 x 126 = 1,008 work, first at p = 3 (k = 42): 13 idle, 1021 / 1008 as long
    # (powers of two gave p = 4, 31 replicas on 992 GPUs, 29 idle)
    e = estimate(Scenario(params=70e9, tokens=1e12, gpus=1021, n_layers=80, d_model=8192))
    L = e.layout
    assert e.feasible and L.recompute == "none"
    assert (L.tensor_parallel, L.pipeline_parallel, L.data_parallel) == (8, 3, 42)
    assert L.idle_gpus == 13
    assert L.text().endswith(", 13 GPUs idle") and "DP 42," in L.text()
    assert L.fits and L.batch_sequences % 42 == 0
    (w,) = [w for w in e.warnings if w.id == "layout_idle_gpus"]
    assert w.params["factor"] == 1021 / 1008 and w.params["idle"] == 13 and w.params["next"] == 1032  # 43 x 24
    assert "assume all 1,021 GPUs work" in str(w) and "1.013x as long" in str(w)
    assert "闲置" in w.render("zh") and "1.013 倍" in w.render("zh")
    assert L.to_dict()["idle_gpus"] == 13 and e.gpus == 1021  # the time and cost still count every GPU


def test_set_parts_that_do_not_divide_are_kept_and_leave_gpus_idle():
    # TP 8 x PP 16 set on 1,000 GPUs: 1000 // 128 = 7 whole replicas on 896 GPUs, 104 idle (10.4%)
    e = estimate(Scenario(params=70e9, tokens=1e12, gpus=1000, n_layers=80, d_model=8192, tensor_parallel=8,
                          pipeline_parallel=16))
    L = e.layout
    assert (L.tensor_parallel, L.pipeline_parallel, L.data_parallel) == (8, 16, 7)
    assert L.idle_gpus == 104
    (w,) = [w for w in e.warnings if w.id == "layout_idle_gpus"]
    assert w.params["factor"] == 1000 / 896 and w.params["next"] == 1024


def test_a_non_power_of_two_pipeline_makes_the_split_whole():
    # Megatron-Turing NLG 530B (Smith et al. 2022: 105 layers, d 20,480, sequence 2,048, TP 8 x PP 35, ZeRO-0) on
    # half its cluster, 2,240 A100 80GB, TP 8 and ZeRO-0 set. By hand, with full recomputation (compute's pick):
    # activations 105 x 2048 x 20480 x 2 / 8 = 1.10 GB, state 16 x 530e9 / (8 p) fits for p >= 13.4. Powers of two
    # gave p = 16 and DP 17.5; the whole depths divide 2240 / 8 = 280: 14 (7.5 layers a stage), DP 20
    e = estimate(Scenario(params=530e9, tokens=270e9, gpu="a100-80gb", gpus=2240, n_layers=105, d_model=20480,
                          seq_len=2048, tensor_parallel=8, zero_stage=0))
    L = e.layout
    assert L.recompute == "full"
    assert (L.tensor_parallel, L.pipeline_parallel, L.data_parallel) == (8, 14, 20)
    assert L.idle_gpus == 0 and L.fits
    assert L.state_gb + L.activations_gb == pytest.approx((16 * 530e9 / (8 * 14) + 105 * 2048 * 20480 * 2 / 8) / 1e9,
                                                          rel=1e-9)


def test_bloom_preset_left_to_the_model_gets_its_published_layout():
    # BigScience Workshop 2022 (arXiv 2211.05100), section 3.4: 384 A100 80GB, TP 4 x PP 12 x DP 8, ZeRO-1; 70
    # layers, d 14,336, 112 heads, sequence 2,048. By hand, with no recomputation (compute's pick): activations
    # 70 x 2048 x 14336 x (34 + 5 x 112 x 2048 / 14336 = 114) / 4 = 58.57 GB at TP 4 (TP 2: 117 GB); ZeRO-1 holds
    # 12 x 176.247e9 / 384 = 5.51 GB of optimizer and 4 x 176.247e9 / (4 p) of weights and gradients: fits for
    # p >= 11.1. Powers of two gave p = 16 (DP 6); the whole depths divide 384 / 4 = 96: 12, DP 8, 78.77 GB
    e = estimate(presets()["bloom"].scenario)
    L = e.layout
    assert e.shape == (70, 14336, 2048) and L.recompute == "none"
    assert (L.tensor_parallel, L.pipeline_parallel, L.data_parallel, L.zero_stage) == (4, 12, 8, 1)
    assert L.idle_gpus == 0
    assert L.state_gb + L.activations_gb == pytest.approx(
        (176.247e9 / 12 + 12 * 176.247e9 / 384 + 70 * 2048 * 14336 * 114 / 4) / 1e9, rel=1e-9)


def test_the_idle_gpus_are_shown_wherever_the_layout_is(capsys):
    # the same run as above (13 idle, by hand): the English CLI prints Layout.text(); the Chinese CLI and the app's
    # summary, in both languages, build their own layout line and must say it too (they did not, at d1f8666)
    from explorer.app.pages.estimate_html import summary_text
    from explorer.cli import main
    e = estimate(Scenario(params=70e9, tokens=1e12, gpus=1021, n_layers=80, d_model=8192))
    assert "TP 8 × PP 3 × DP 42, ZeRO-1, recomputation none, 13 GPUs idle beyond whole replicas" in summary_text(e)
    assert "数据并行 42，零冗余优化器第 1 阶段，无重计算，整副本之外 13 张 GPU 闲置" in summary_text(e, "zh")
    assert main(["estimate", "--params", "70e9", "--tokens", "1e12", "--gpus", "1021", "--layers", "80",
                 "--d-model", "8192", "--lang", "zh"]) == 0
    (line,) = [x for x in capsys.readouterr().out.splitlines() if "并行布局" in x]
    assert "TP 8 × PP 3 × DP 42，ZeRO-1，激活重计算：无，13 张 GPU 闲置" in line
    # a whole layout says nothing of idle GPUs
    whole = estimate(Scenario(params=70e9, tokens=1e12, gpus=1024, n_layers=80, d_model=8192))
    assert whole.layout.idle_gpus == 0 and "idle" not in summary_text(whole) and "闲置" not in summary_text(whole, "zh")
