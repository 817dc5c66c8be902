"""Issue 9, model side: an MoE follows the model, precision fallbacks, sourced price fallbacks, "in the rate"."""

from __future__ import annotations

import math

import pytest

from explorer import Scenario, catalog, estimate


def test_moe_default_active_fraction_follows_model_size():
    # DeepSeek-V3: 37B of 671B active (arXiv 2412.19437) = 0.0551
    for params in (7e9, 70e9, 405e9):
        s = Scenario(params=params, architecture="moe")
        assert s.active_params_effective == pytest.approx(params * 37 / 671, rel=1e-3)
    # switching a 7B dense model to MoE lowers compute, never raises it
    dense, moe = estimate(Scenario()), estimate(Scenario(architecture="moe"))
    assert moe.train_flop < dense.train_flop / 5
    assert moe.total_usd < dense.total_usd


def test_moe_active_fraction_field_and_precedence():
    s = Scenario(params=100e9, architecture="moe", active_fraction=0.25)
    assert s.active_params_effective == pytest.approx(25e9)
    # explicit active parameters win, and the fraction they imply is reported
    s = Scenario(params=100e9, architecture="moe", active_params=10e9, active_fraction=0.25)
    assert s.active_fraction_effective == pytest.approx(0.1)
    assert Scenario().active_fraction_effective == 1.0


@pytest.mark.parametrize("gpu, asked, expected", [("v100", "bf16", "fp16"), ("p100", "bf16", "fp16"),
                                                  ("ascend-910b", "bf16", "fp16"), ("a100-80gb", "fp8", "bf16"),
                                                  ("h100-sxm", "bf16", "bf16")])
def test_nearest_precision(gpu, asked, expected):
    assert catalog.accelerator(gpu).nearest_precision(asked) == expected


def test_unknown_cloud_price_is_estimated_from_peer_per_peak_flop():
    e = estimate(Scenario(gpu="gaudi2"))
    # Gaudi 2 (2022, 432 TFLOP/s BF16; no Intel accelerator is priced) from H100 PCIe (2022, 756 TFLOP/s), whose
    # specialist-cloud median is that of Oblivus 1.98, RunPod 2.39, Cudo 2.45 and Lambda 2.49 (2025-02/03): 2.42
    rate = (2.39 + 2.45) / 2 * 432 / 756
    assert rate == pytest.approx(1.3829, abs=1e-4)
    assert math.isfinite(e.total_usd)
    assert e.cost_usd["compute"] == pytest.approx(e.ideal_gpu_hours * rate)
    assert "cloud price" in e.estimated
    assert any("is an estimate" in w for w in e.warnings)
    assert not any("rate_usd_per_gpu_hour" in w for w in e.warnings)
    for gpu in ("tpu-v5p", "mi250x"):
        acc = catalog.accelerator(gpu)
        e = estimate(Scenario(gpu=gpu, precision=acc.nearest_precision("bf16")))
        assert math.isfinite(e.cost_usd["compute"]) and e.estimated == ("cloud price",), gpu


def test_owned_region_without_price_uses_country_average():
    e = estimate(Scenario(pricing="owned", region="cn-shanghai"))
    # China national average 0.641 CNY/kWh at 7.084 = 0.0905 USD/kWh (regions.csv)
    kwh = e.energy_mwh * 1000
    assert e.cost_usd["energy"] == pytest.approx(kwh * 0.0905)
    assert "electricity price" in e.estimated


def test_cloud_rate_shows_what_it_pays_for():
    e = estimate(Scenario())
    parts = e.in_rate_usd
    assert set(parts) == {"hardware", "energy", "margin"}
    assert sum(parts.values()) == pytest.approx(e.cost_usd["compute"])
    # hardware: H100 $33,810 x 1.64 server overhead / (1 - 0.19 network) over 5 years of 8,766 h (Epoch AI),
    # plus colocation at CBRE's $184.06 per kW-month for 700 W x 1.82 (DGX H100) over 730.5 hours
    hourly_hw = 33810 * 1.64 / 0.81 / (5 * 8766) + 184.06 * 0.7 * 1.82 / 730.5
    assert hourly_hw == pytest.approx(1.5617 + 0.3210, abs=1e-3)
    rate = 3.14  # the specialist-cloud median (tests/model/test_money.py)
    assert parts["hardware"] == pytest.approx(e.cost_usd["compute"] * hourly_hw / rate, rel=1e-3)
    # energy in the rate follows the region's electricity price; the bill does not
    cheap = estimate(Scenario(region="ca-quebec"))
    assert cheap.in_rate_usd["energy"] < estimate(Scenario(region="de")).in_rate_usd["energy"] / 3
    # owned hardware: energy and hardware are dimensions of their own, nothing "in the rate"
    assert estimate(Scenario(pricing="owned")).in_rate_usd == {}


def test_team_without_a_cost_per_person_uses_the_sourced_us_loaded_cost():
    from explorer.presets import presets

    e = estimate(presets()["startup_7b"].scenario)
    # BLS: $133,080 median software-developer wage / 0.704 wage share of employer costs = $189,034 a year
    loaded = 133_080 / 0.704
    assert loaded == pytest.approx(189_034, abs=1)
    months = max(8.3, e.wall_days / 30.4375)  # the project (Cottier et al. 2024's median), never shorter than the run
    industry = estimate(presets()["startup_7b"].scenario.replace(team_pay_basis="industry"))
    assert industry.cost_usd["people"] == pytest.approx(8 * 189_000 / 12 * months, rel=1e-6)
    assert e.cost_usd["people"] == pytest.approx(8 * 388_000 / 12 * months, rel=1e-6)  # an AI lab's, the default
    assert e.cost_usd["people"] > 0
    # a typed cost wins; outside the US the default is flagged
    assert estimate(Scenario(team_headcount=2, team_loaded_usd_per_year=0.0)).cost_usd["people"] == 0
    assert any("US loaded cost" in w for w in estimate(Scenario(team_headcount=2, region="de")).warnings)
