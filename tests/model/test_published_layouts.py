"""Published parallel layouts fit their published memory in the model, and the model lays out every run
(issue 38: PaLM 540B on 6,144 TPU v4 at the default sequence length was "INFEASIBLE" although full
recomputation fits; the model assumed TP 8, fully sharded state and selective recomputation everywhere).

Each case sets the layout its paper reports, checks the memory per accelerator against a hand calculation
(Rajbhandari et al. 2020 for the state: 2 + 2 + 12 bytes per parameter, the part the ZeRO stage leaves
unsharded over the tensor x pipeline ranks, the rest over all GPUs; Korthikanti et al. 2022 for the
activations: ``L s d 34`` bytes with selective recomputation, ``L s d (34 + 5 a s / d)`` without, over the
tensor-parallel group) and against the accelerator's memory, then leaves the layout to the model, which must
find one that fits as well. The peer tool checks its layouts the same way (llm-analysis, its published
configurations).
"""

from __future__ import annotations

import pytest

from explorer import Scenario, catalog, estimate

GB = 1e9
LAYOUT_FIELDS = ("tensor_parallel", "pipeline_parallel", "zero_stage", "expert_parallel")


def _auto(s: Scenario) -> Scenario:
    return s.replace(**{k: None for k in LAYOUT_FIELDS})


# --- PaLM 540B: Chowdhery et al. 2022, "PaLM: Scaling Language Modeling with Pathways" (arXiv 2204.02311),
# section 4: two TPU v4 pods of 3,072 chips, "12-way model parallelism and 256-way fully sharded data
# parallelism" within each pod (2 x 256 = 512 replicas); table 1: 118 layers, d 18,432; sequence 2,048; 780B
# tokens. TPU v4: 32 GiB of HBM per chip (Jouppi et al. 2023, ISCA, table 1; the catalog holds 32 GB).
PALM = Scenario(params=540e9, tokens=780e9, gpu="tpu-v4", gpus=6144, n_layers=118, d_model=18432)


def test_palm_published_layout_fits_its_memory():
    e = estimate(PALM.replace(seq_len=2048, tensor_parallel=12, zero_stage=3))
    assert e.feasible and e.layout.text() == "TP 12 x PP 1 x DP 512, ZeRO-3, selective recomputation"
    state = 540e9 * 16 / 6144  # fully sharded: 1.406 GB
    act = 118 * 2048 * 18432 * 34 / 12  # selective, over 12: 12.62 GB (none needs 42 GB: 34 + 5 x 144 x 2048 / 18432)
    assert e.memory_gb_per_gpu["total"] == pytest.approx((state + act) / GB, rel=1e-9)
    assert e.memory_gb_per_gpu["total"] <= 32.0


@pytest.mark.parametrize("seq_len", [2048, 4096])
def test_palm_is_feasible_with_money_and_a_layout_at_its_own_and_the_default_sequence(seq_len):
    e = estimate(PALM.replace(seq_len=seq_len))  # nothing of the layout set: the model's choice
    assert e.feasible and e.total_usd > 0 and e.layout.fits
    assert e.memory_gb_per_gpu["total"] <= 32.0
    # at 4,096 even selective recomputation needs 34 x 4096 x 18432 x 118 / 8 = 37.9 GB on TP 8: full it is
    assert e.layout.recompute == ("full" if seq_len == 4096 else "selective")


def test_palm_at_the_default_sequence_is_feasible_from_the_cli_defaults():
    e = estimate(PALM)  # seq_len blank: the default 4,096 (issue 38's finding 1)
    assert e.feasible and e.infeasible_reason == "" and e.total_usd > 0


# --- Megatron-Turing NLG 530B: Smith et al. 2022, "Using DeepSpeed and Megatron to Train Megatron-Turing NLG
# 530B" (arXiv 2201.11990), sections 2-3: 8-way tensor slicing within a DGX A100 node x 35-way pipeline
# parallelism, data parallelism across Selene's 560 DGX A100 (80 GB A100s); 105 layers, d 20,480, sequence 2,048.
# ZeRO-0 (no sharding) is set: the most memory any stage takes, independent of the data-parallel size.
def test_mt_nlg_published_layout_fits_its_memory():
    e = estimate(Scenario(params=530e9, tokens=270e9, gpu="a100-80gb", gpus=4480, n_layers=105, d_model=20480,
                          seq_len=2048, tensor_parallel=8, pipeline_parallel=35, zero_stage=0))
    assert e.feasible and e.layout.text() == "TP 8 x PP 35 x DP 16, ZeRO-0, selective recomputation"
    state = 530e9 * 16 / (8 * 35)  # 30.29 GB, nothing sharded over data parallelism
    act = 105 * 2048 * 20480 * 34 / 8  # 18.72 GB (none would need 114 per value: 62.8 GB)
    assert e.memory_gb_per_gpu["total"] == pytest.approx((state + act) / GB, rel=1e-9)
    assert e.memory_gb_per_gpu["total"] <= 80.0
    assert e.layout.fits and e.layout.state_gb + e.layout.activations_gb <= 80.0
    assert estimate(_auto(e.scenario)).layout.fits


# --- Llama 3 405B: Llama Team 2024, "The Llama 3 Herd of Models" (arXiv 2407.21783), table 4: TP 8, CP 1,
# PP 16, DP 128 on 16,384 H100 (80 GB HBM3) at sequence 8,192; section 3.3.2: FSDP shards the optimizer state
# and gradients but does not reshard the weights after the forward pass (ZeRO-2); table 3: 126 layers, d 16,384.
def test_llama3_405b_published_layout_fits_its_memory():
    e = estimate(Scenario(params=405e9, tokens=15.6e12, gpu="h100-sxm", gpus=16384, n_layers=126, d_model=16384,
                          seq_len=8192, tensor_parallel=8, pipeline_parallel=16, zero_stage=2))
    assert e.feasible and e.layout.text() == "TP 8 x PP 16 x DP 128, ZeRO-2, selective recomputation"
    state = 405e9 * 2 / (8 * 16) + 405e9 * 14 / 16384  # 6.33 GB of weights + 0.35 GB sharded
    act = 126 * 8192 * 16384 * 34 / 8  # 71.87 GB
    assert e.memory_gb_per_gpu["total"] == pytest.approx((state + act) / GB, rel=1e-9)
    assert e.memory_gb_per_gpu["total"] <= 80.0
    # the batch the layout forces is Llama 3's own: 16,384 / 8 sequences of 8,192 = 16M tokens (section 3.4.1)
    assert e.layout.min_batch_tokens == 2048 * 8192
    assert estimate(_auto(e.scenario)).layout.fits


# --- DeepSeek-V3: DeepSeek-AI 2024, "DeepSeek-V3 Technical Report" (arXiv 2412.19437), section 3.2.1:
# "16-way Pipeline Parallelism, 64-way Expert Parallelism spanning 8 nodes, and ZeRO-1 Data Parallelism", no
# tensor parallelism, on 2,048 H800 (80 GB); 671B parameters, 37B active, 61 layers, d 7,168, 4K sequences, FP8.
def test_deepseek_v3_published_layout_fits_its_memory():
    e = estimate(Scenario(params=671e9, architecture="moe", active_params=37e9, tokens=14.8e12, gpu="h800",
                          precision="fp8", gpus=2048, n_layers=61, d_model=7168, seq_len=4096, tensor_parallel=1,
                          pipeline_parallel=16, expert_parallel=64, zero_stage=1))
    assert e.feasible and e.layout.text() == "TP 1 x PP 16 x DP 128, EP 64, ZeRO-1, selective recomputation"
    experts = 1 - 37 / 671  # routed experts: at least the parameters no token uses
    held = (1 - experts) + experts / 64  # a pipeline rank's share of the weights and gradients
    state = 671e9 * 4 * held / 16 + 671e9 * 12 / 2048  # 11.73 GB unsharded + 3.93 GB of optimizer (ZeRO-1)
    fp8_act = catalog.precisions()["fp8"].activation_bytes  # 1.588 bytes a value (precisions.csv)
    act = 61 * 4096 * 7168 * 34 * fp8_act / 2  # 48.3 GB, TP 1
    assert e.memory_gb_per_gpu["total"] == pytest.approx((state + act) / GB, rel=1e-9)
    assert e.memory_gb_per_gpu["total"] <= 80.0
    assert e.layout.fits and e.layout.state_gb + e.layout.activations_gb <= 80.0
    assert estimate(_auto(e.scenario)).layout.fits


# --- BLOOM 176B: BigScience Workshop 2022, "BLOOM: A 176B-Parameter Open-Access Multilingual Language Model"
# (arXiv 2211.05100), section 3.4: 48 nodes of 8 A100 80GB, 3D parallelism TP 4 x PP 12 x DP 8 with ZeRO stage 1;
# 70 layers, d 14,336, 112 heads, sequence 2,048.
def test_bloom_published_layout_fits_its_memory():
    e = estimate(Scenario(params=176.247e9, tokens=366e9, gpu="a100-80gb", gpus=384, n_layers=70, d_model=14336,
                          seq_len=2048, tensor_parallel=4, pipeline_parallel=12, zero_stage=1))
    assert e.feasible and e.layout.tensor_parallel == 4 and e.layout.pipeline_parallel == 12
    assert e.layout.data_parallel == 8 and e.layout.zero_stage == 1
    state = 176.247e9 * 4 / (4 * 12) + 176.247e9 * 12 / 384  # 14.69 + 5.51 GB
    # no recomputation fits: 34 + 5 x 112 x 2048 / 14336 = 114 per value, 58.6 GB over TP 4
    assert e.layout.recompute == "none"
    act = 70 * 2048 * 14336 * (34 + 5 * 112 * 2048 / 14336) / 4
    assert e.layout.state_gb + e.layout.activations_gb == pytest.approx((state + act) / GB, rel=1e-9)
    assert e.layout.state_gb + e.layout.activations_gb <= 80.0
    # memory_gb_per_gpu is the reference, like for like across runs: selective recomputation, 17.5 GB
    act_selective = 70 * 2048 * 14336 * 34 / 4
    assert e.memory_gb_per_gpu["total"] == pytest.approx((state + act_selective) / GB, rel=1e-9)
    assert estimate(_auto(e.scenario)).layout.fits
