"""Issue 16 ("Model v3"), items 1-4 and 8: expected values from papers and hand calculations.

Each test names where its expected value comes from; none is the code's own formula.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from explorer import Scenario, ScenarioError, estimate


# ---------------------------------------------------------------- item 1: MoE shape
def _attention_per_token(L, d, s):
    """12 L d s FLOP per token (PaLM appendix B), by hand."""
    return 12.0 * L * d * s


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


# ---------------------------------------------------------------- item 3: facility PUE
def test_region_does_not_change_the_facility_pue():
    # same run in Virginia, Germany and China's average grid: same building, same IT and facility energy
    runs = [estimate(Scenario(region=r, gpus=512)) for r in ("us-virginia", "de", "cn-avg")]
    assert len({round(e.energy_mwh, 6) for e in runs}) == 1
    assert runs[0].energy_mwh / runs[0].energy_it_mwh == pytest.approx(1.1)  # Epoch AI: hyperscale PUE 1.1
    # carbon still follows the grid (regions.csv: OWID/Ember 2023, Germany vs US average)
    assert runs[1].co2_tonnes != runs[0].co2_tonnes


def test_facility_type_sets_pue_and_typed_pue_wins():
    e = estimate(Scenario(gpus=512, facility="industry_average"))
    assert e.energy_mwh / e.energy_it_mwh == pytest.approx(1.58)  # Uptime Institute 2023 survey average
    e = estimate(Scenario(gpus=512, region="de", facility="regional_average"))
    assert e.energy_mwh / e.energy_it_mwh == pytest.approx(1.46)  # Uptime 2020, Europe (regions.csv)
    e = estimate(Scenario(gpus=512, facility="industry_average", pue=1.3))
    assert e.energy_mwh / e.energy_it_mwh == pytest.approx(1.3)


def test_unknown_facility_is_a_scenario_error():
    with pytest.raises(ScenarioError, match="facility"):
        Scenario(facility="igloo")


# ---------------------------------------------------------------- item 8: unmeasured MFU warns
@pytest.mark.parametrize("gpu", ["mi300x", "gaudi3", "ascend-910b", "b200", "tpu-v5p"])
def test_mfu_never_measured_on_the_accelerator_warns(gpu):
    # mfu_dense's sources (Epoch AI median over 62 runs; Llama 3.1 on H100) measured none of these
    from explorer import catalog
    precision = catalog.accelerator(gpu).nearest_precision("bf16")
    e = estimate(Scenario(gpu=gpu, precision=precision, gpus=512))
    assert any(w.startswith("No measured MFU for") for w in e.warnings), e.warnings


def test_measured_mfu_does_not_warn():
    e = estimate(Scenario(gpu="h100-sxm", gpus=512))
    assert not any("No measured MFU" in w for w in e.warnings)


# ---------------------------------------------------------------- item 8: FP8 memory
def test_fp8_keeps_bf16_weights_and_caches_only_linear_inputs_in_fp8():
    bf16 = estimate(Scenario(gpus=64, n_layers=32, d_model=4096, seq_len=4096))
    fp8 = estimate(Scenario(gpus=64, n_layers=32, d_model=4096, seq_len=4096, precision="fp8"))
    # Micikevicius et al. 2022; DeepSeek-V3 section 3.3: weights, master weights and moments not in FP8: 16 bytes
    assert fp8.memory_gb_per_gpu["weights"] == pytest.approx(bf16.memory_gb_per_gpu["weights"])
    total_state = sum(fp8.memory_gb_per_gpu[k] for k in ("weights", "gradients", "optimizer"))
    assert total_state == pytest.approx(7e9 * 16 / 64 / 1e9)
    # Korthikanti et al. 2022 section 4.1: 34 s d bytes per layer, of which the linear inputs are
    # 2 + 2 + 2 + 8 = 14; FP8 halves those: 27 / 34 (hand calculation)
    ratio = fp8.memory_gb_per_gpu["activations"] / bf16.memory_gb_per_gpu["activations"]
    assert ratio == pytest.approx(27 / 34, rel=1e-3)


# ---------------------------------------------------------------- item 8: GPU-only energy
def test_gpu_only_energy_is_the_model_card_figure():
    from explorer.model import compute
    # Llama 3.1 model card: 30.84M H100 GPU-hours at 700 W (TDP) -> 21,588 MWh GPU-only (hand: 30.84e6 * 0.7 / 1e3)
    r = compute(params=405e9, active_params=405e9, tokens=30.84e6 * 3600 * 989e12 * 0.4 / (6 * 405e9),
                peak_flop_per_s=989e12, mfu=0.4, gpus=16384, tdp_w=700.0, chip_power_w=700.0,
                server_power_factor=1.82, avg_power_fraction=0.75, pue=1.1)
    assert float(r["gpu_hours"]) == pytest.approx(30.84e6)
    assert float(r["energy_gpu_mwh"]) == pytest.approx(21588.0)
    # facility energy: x 1.82 (DGX H100 10.2 kW / 8 / 700 W) x 0.75 (Epoch) x 1.1 = 1.50x the GPU-only figure
    assert float(r["energy_mwh"]) / float(r["energy_gpu_mwh"]) == pytest.approx(1.82 * 0.75 * 1.1)


def test_estimate_reports_gpu_only_energy_beside_facility_energy():
    e = estimate(Scenario(gpus=512))
    assert e.energy_gpu_mwh == pytest.approx(e.gpu_hours * 700 / 1e6)  # H100 SXM TDP 700 W (datasheet)
    assert e.to_dict()["energy_gpu_mwh"] == pytest.approx(e.energy_gpu_mwh)
    assert 1.5 <= e.energy_mwh / e.energy_gpu_mwh <= 2.4


# ---------------------------------------------------------------- item 2: goodput at scale
def test_goodput_at_100k_gpus_with_in_memory_recovery():
    # Gemini 1.0 (arXiv 2312.11805, section 3): 97% goodput at its largest scale with in-memory replicas.
    # Hand: 1e5 GPUs x 1.97e-5 = 1.97 interruptions/h; no write stall; exp(-1.97 x 2.4 / 60) = 0.924
    e = estimate(Scenario(params=1e12, tokens=20e12, gpus=100_000))
    assert e.goodput >= 0.85
    assert e.goodput == pytest.approx(math.exp(-1.97e-5 * 1e5 * 2.4 / 60), rel=1e-3)


def test_goodput_at_llama3_scale_stays_below_95_percent():
    # Llama 3 405B on 16,384 H100 (Llama Team 2024, 3.3.4): >90% effective time, with storage checkpoints
    e = estimate(Scenario(params=405e9, tokens=15.6e12, gpus=16_384))
    assert 0.80 <= e.goodput <= 0.95


def test_recovery_choice_is_validated_and_storage_keeps_the_old_behaviour():
    with pytest.raises(ScenarioError, match="recovery"):
        Scenario(recovery="prayer")
    storage = estimate(Scenario(params=1e12, tokens=20e12, gpus=100_000, recovery="storage"))
    assert storage.goodput < 0.85  # 10-minute restarts every 30 minutes (Llama 3's storage recovery)


# ---------------------------------------------------------------- item 4: Monte Carlo centred and bounded
def _scenarios():
    from explorer.presets import presets
    return {"default": Scenario(), **{k: p.scenario for k, p in presets().items()}}


@pytest.mark.parametrize("name", list(_scenarios()))
def test_simulated_median_is_the_point_estimate(name):
    from explorer import simulate
    s = _scenarios()[name]
    sim = simulate(s, n=20_000, seed=0)
    assert sim.percentiles.loc["P50", "total_usd"] / estimate(s).total_usd == pytest.approx(1.0, abs=0.02)


def test_no_mfu_draw_above_the_ceiling():
    from explorer import simulate
    # calibrated_mfu_max 0.55: PaLM 0.462, Epoch's middle half tops out at 0.50 (defaults.csv)
    for s in (Scenario(gpus=512), Scenario(gpus=512, mfu=0.5)):
        sim = simulate(s, n=50_000, seed=1)
        mfu = (s.mfu or 0.38) * sim.draws["mfu"]
        assert mfu.max() <= 0.55 + 1e-12


def test_spot_discount_is_drawn_only_for_spot():
    from explorer import simulate
    spot = simulate(Scenario(gpus=512, pricing="spot", experiments_multiplier=1.0), n=20_000, seed=2)
    assert "spot_discount" in spot.draws
    # 30-70% off (defaults.csv spot_discount source) around 50%: rate multiplier 0.6-1.4 is the 90% interval
    lo, hi = np.percentile(spot.draws["spot_discount"], [5, 95])
    assert lo == pytest.approx((0.6 / 1.4) ** 0.5, rel=0.03) and hi == pytest.approx((1.4 / 0.6) ** 0.5, rel=0.03)
    assert "spot_discount" not in simulate(Scenario(gpus=512), n=100, seed=2).draws


def test_budget_at_the_estimate_is_a_coin_toss_and_says_so():
    from explorer import budget_status
    s = Scenario(gpus=512)
    b = budget_status(s, estimate(s).total_usd)
    assert b.status == "within"
    assert b.probability_over == pytest.approx(0.5, abs=0.03)
    assert b.median_usd == pytest.approx(b.total_usd, rel=0.02)
    assert (b.probability_over > 0.5) == bool(b.note)


# ---------------------------------------------------------------- item 8: budget rule per experiment
def test_budget_rule_applies_per_experiment_with_the_project_total_beside():
    from explorer import budget_status
    # first source article, section 5 step 3: a single experiment over 120% of its budget goes to review
    s = Scenario(gpus=512)
    e = estimate(s)
    b = budget_status(s, 10 * e.total_usd, experiment_budget_usd=e.final_run_usd / 1.25)
    assert b.experiment_usd == pytest.approx(e.final_run_usd)
    assert b.experiment_status == "review"  # 125% of the experiment budget
    assert b.status == "within" and b.total_usd == pytest.approx(e.total_usd)
    b = budget_status(s, 10 * e.total_usd, experiment_budget_usd=e.final_run_usd / 1.1)
    assert b.experiment_status == "over"


# ---------------------------------------------------------------- item 8: H20 in the catalog
def test_h20_specs_from_nvidia_figures_and_no_price():
    from explorer import catalog
    a = catalog.accelerator("h20")
    # NVIDIA HGX H20 spec sheet (Tom's Hardware, TweakTown 2024): 96 GB, FP8 296, BF16 148 TFLOPS dense, 400 W
    assert (a.memory_gb, a.peak_tflops["fp8"], a.peak_tflops["bf16"], a.tdp_w) == (96, 296, 148, 400)
    from explorer import prices
    assert not prices.market_prices("h20", "on_demand") and a.purchase_usd is None  # no market price found
    assert prices.quote("h20", "on_demand").estimated  # derived by the peer rule, and marked
    e = estimate(Scenario(gpu="h20", gpus=512))
    assert any("No measured MFU for NVIDIA H20" in w for w in e.warnings)
    # 989.5 / 148 = 6.69x the H100's ideal hours at the same MFU (hand)
    h100 = estimate(Scenario(gpu="h100-sxm", gpus=512, mfu=0.38))
    assert estimate(Scenario(gpu="h20", gpus=512, mfu=0.38)).ideal_gpu_hours / h100.ideal_gpu_hours == \
        pytest.approx(989.5 / 148)
