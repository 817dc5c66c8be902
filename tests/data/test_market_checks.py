"""The default prices against the market (issue 37): first-hand rows set them, no marketplace does, and they land in
the bands that outside sources give (explorer/data/market_checks.csv, each row with its source and date).
"""

import csv
from importlib import resources

import pytest

from explorer import Scenario, estimate, presets, prices


def _table(name):
    with resources.files("explorer").joinpath("data", name).open(encoding="utf-8") as f:
        return list(csv.DictReader(f))


PRICES = _table("cloud_prices.csv")
CHECKS = {r["id"]: r for r in _table("market_checks.csv")}


def _band(check_id):
    r = CHECKS[check_id]
    return float(r["low_usd_per_gpu_hour"]), float(r["high_usd_per_gpu_hour"])


def test_every_row_of_a_specialist_on_demand_median_is_the_providers_own_page():
    for acc in ("h100-sxm", "a100-80gb", "h200", "b200", "v100"):
        for provider, price, day in prices.market_prices(acc, "on_demand"):
            rows = [r for r in PRICES if r["accelerator"] == acc and r["provider"] == provider
                    and r["price_date"] == day and r["on_demand_usd_per_gpu_hour"]]
            assert rows and all(r["source_kind"] == "first-hand" for r in rows), (acc, provider, day)
            assert all(float(r["on_demand_usd_per_gpu_hour"]) > 0 for r in rows)
    # a transcription stays in the table, for its own provider: Nebius's H100 of 2026-09-25 (a GitHub dataset)
    assert any(r["provider"] == "Nebius" and r["source_kind"] == "secondary" for r in PRICES)
    assert "Nebius" not in prices.quote("h100-sxm", "on_demand").providers


def test_no_default_median_includes_a_marketplace():
    marketplaces = {r["provider"] for r in PRICES if r["provider_kind"] == "marketplace"}
    assert {"Spheron", "RunPod Community Cloud"} <= marketplaces  # per-host listings
    for acc in {r["accelerator"] for r in PRICES}:
        for basis in prices.BASIS_MARKET:
            assert not set(prices.quote(acc, basis).providers) & marketplaces, (acc, basis)
    # a marketplace can still be named as the seller, at its own price
    assert prices.quote("h100-sxm", "on_demand", "spheron").usd_per_gpu_hour == pytest.approx(5.07)


def test_default_h100_prices_lie_in_the_market_bands():
    on_demand = prices.quote("h100-sxm", "on_demand").usd_per_gpu_hour
    low, high = _band("mercatus-2026-05-h100-specialty")  # $2.50-3.50, specialist clouds, May 2026
    assert low <= on_demand <= high, f"on-demand {on_demand:.2f} outside the specialist band {low}-{high}"
    committed = prices.quote("h100-sxm", "reserved_1y").usd_per_gpu_hour
    low, high = _band("semianalysis-2025-10-to-2026-06-h100-1y-band")  # 1-year contracts, $1.70-2.65
    assert low <= committed <= high, f"1-year {committed:.2f} outside the contract band {low}-{high}"
    # the hyperscalers' lists: within the range of AWS's cut p5 and Azure's ND H100 v5 (April 2026)
    low, high = _band("pixlodo-2026-04-h100-large-clouds")
    assert low <= prices.quote("h100-sxm", "hyperscaler_on_demand").usd_per_gpu_hour <= high


def test_a_tpu_on_the_default_basis_is_not_below_googles_own_cheapest_price():
    # Google's own TPU v6e 3-year commitment in the table (its archived pricing page, 2025-03-03): 1.22 in US East
    google_3y = min(float(r["committed_3y_usd_per_gpu_hour"]) for r in PRICES
                    if r["accelerator"] == "tpu-v6e" and r["committed_3y_usd_per_gpu_hour"])
    assert google_3y == pytest.approx(1.22)
    for basis in ("on_demand", "reserved_1y", "reserved_3y"):
        assert prices.quote("tpu-v6e", basis).usd_per_gpu_hour >= google_3y - 1e-12, basis
    # a chip the specialists do sell keeps its own committed discount (no floor): H100 1-year below on-demand
    assert prices.quote("h100-sxm", "reserved_1y").usd_per_gpu_hour < prices.quote("h100-sxm").usd_per_gpu_hour


def test_gpt3_at_2020_prices_lands_on_the_ai_index_figure():
    # AI Index 2024 (Epoch AI's estimate): GPT-3 175B's final run cost $4,324,883 to rent at its time's prices
    ai_index = next(float(r["cost_usd"]) for r in _table("history.csv") if r["id"] == "aiindex_gpt3")
    assert ai_index == 4_324_883
    gpt3 = presets.presets()["gpt3"].scenario
    then = estimate(gpt3.replace(price_date="2020-06"))
    assert 0.67 <= then.final_run_usd / ai_index <= 1.5, then.final_run_usd
    # at today's prices a V100 is cheaper: the same run costs less
    assert estimate(gpt3).final_run_usd < then.final_run_usd


def test_a_price_date_uses_only_rows_listed_by_then():
    q = prices.quote("h100-sxm", "hyperscaler_on_demand", as_of=prices.check_price_date("2024-06"))
    assert q.date <= "2024-06-30"
    assert all(d <= "2024-06-30" for *_, d in prices.market_prices("h100-sxm", "hyperscaler_on_demand", "2024-06-30"))
    with pytest.raises(ValueError, match="price_date"):
        Scenario(price_date="2020-13")
