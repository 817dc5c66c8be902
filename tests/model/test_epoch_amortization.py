"""Owned hardware by Epoch AI's method when asked (issue 37): the value at the run's start, no hosting.

Epoch AI's cost_analysis_standalone.py (Cottier et al. 2024, github.com/epoch-research/training-cost-trends): a GPU
is acquired at its dated purchase price (no earlier than 90 days after release), its value falls 0.14 orders of
magnitude a year (the ML GPU price-performance trend) until the run starts, and the run is charged ln(10) x 0.14 =
0.322 of that value a year, plus interconnect and energy; no hosting. The expected values here are that arithmetic
by hand, and Epoch's own published amortized costs (explorer/data/epoch_frontier.csv).
"""

import datetime as dt
import math
import statistics

import pytest

from explorer import Scenario, catalog, estimate
from explorer.analysis.runs import models_table, run_scenario


def test_a_v100_is_charged_at_its_value_when_gpt3_trained():
    e = estimate(Scenario(gpu="v100", precision="fp16", pricing="owned", amortization="epoch", price_date="2020-05"))
    # $11,458 (Microway, 2018-03/05: taken at 2018-04-15), no earlier than 90 days after mid-2018 (its release
    # year): acquired 2018-09-29; the run starts at the end of May 2020: 610 days = 1.670 years later
    years = (dt.date(2020, 5, 31) - dt.date(2018, 9, 29)).days / 365.25
    assert e.owned["purchase_usd"] == pytest.approx(11_458 * 10 ** (-0.14 * years), rel=1e-9)
    assert e.owned["purchase_usd"] == pytest.approx(6_689, abs=1)
    assert e.owned["hosting_usd_per_gpu_hour"] == 0.0  # Epoch counts capital and energy only
    typed = estimate(Scenario(gpu="v100", precision="fp16", pricing="owned", amortization="epoch",
                              price_date="2020-05", hosting_usd_per_gpu_hour=0.3))
    assert typed.owned["hosting_usd_per_gpu_hour"] == 0.3
    # the straight line keeps today's price and hosting
    line = estimate(Scenario(gpu="v100", precision="fp16", pricing="owned", price_date="2020-05"))
    assert line.owned["purchase_usd"] == 11_458 and line.owned["hosting_usd_per_gpu_hour"] > 0


def test_replays_land_near_epochs_own_amortized_costs():
    """Every Epoch frontier model the explorer can replay, owned by Epoch's rule at its publication month."""
    rows = {r["id"]: r for r in catalog.read_csv("epoch_frontier.csv")}
    ratios = []
    for _, m in models_table().iterrows():
        if m["id"] not in rows or m["missing"]:
            continue
        r = rows[m["id"]]
        s = run_scenario(m["id"]).replace(pricing="owned", amortization="epoch", price_date=r["publication_date"][:7])
        e = estimate(s)
        if math.isfinite(e.final_run_usd):
            ratios.append(e.final_run_usd / float(r["amortized_hardware_energy_cost_usd"]))
    assert len(ratios) >= 30
    # 2.33x before issue 37 (today's price, hosting): the GPU-hours are the explorer's own (its losses and MFU)
    assert 0.67 <= statistics.median(ratios) <= 1.5, sorted(round(x, 2) for x in ratios)
