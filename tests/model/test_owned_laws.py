"""Laws of owning the cluster as a buyer sees it: capex and the buy-versus-rent break-even (Compare, What-if).

Over the whole input space of an owned scenario (tests/strategies.py: every ownable accelerator, region, size,
cluster, MFU, MoE, shape, team, financing and amortization):

1. **Capex grows with the GPU count and the price per GPU**: capital per GPU x GPUs, so doubling either doubles
   it; a run that cannot happen has no capex (NaN), never money.
2. **Break-even falls when the rent rises**: for one cluster, the dearer a cloud basis is per GPU-hour, the sooner
   owning pays back (formula and estimate, at any financing rate).
3. **Break-even is "never" when renting is cheaper per hour than owning's running cost** (hosting and energy):
   infinite, never a negative or NaN number of months; otherwise a positive number. Compare and What-if carry
   it the same way (inf, which the views and CSVs print as never, `explorer.text.breakeven_text`).

One hand calculation against the catalog's published purchase price: an H100 SXM is $33,810 (an HGX 8-GPU
baseboard at $270,480, 2024-02-21; Epoch AI's hardware price database, accelerators.csv), times Epoch's server
overhead 1.64, over 1 - 0.19 for the interconnect (Cottier et al. 2024): $68,454.81 per GPU, $70,097,730 for
1,024 GPUs. Its break-even against the specialist on-demand median ($3.995/GPU-hour, explorer.prices) follows by
hand from the catalog's colocation price, power and electricity.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from explorer import Scenario, estimate, prices
from explorer.analysis import compare, what_if
from explorer.model import formulas as F
from explorer.model.estimating import CLOUD_BASES
from strategies import MAX_GPUS, OWNABLE, examples, log_uniform, scenarios

HOURS_PER_MONTH = 8766.0 / 12  # 365.25 days x 24 h / 12


def _owned(draw_scenario: Scenario) -> Scenario:
    return draw_scenario.replace(pricing="owned", seller="specialist")


owned_scenarios = scenarios(mode="gpus").filter(lambda s: s.gpu in OWNABLE).map(_owned)
financing = st.sampled_from([None, 0.0, 0.05, 0.12])


# ------------------------------------------------------------------ 1. capex
@settings(max_examples=examples(40), deadline=None)
@given(owned_scenarios, st.integers(1, 8), financing)
def test_capex_is_capital_per_gpu_times_gpus_and_grows_with_them(s, times, rate):
    s = s.replace(financing_rate=rate)
    n2 = min(MAX_GPUS, s.gpus * (times + 1))
    a, b = estimate(s), estimate(s.replace(gpus=n2))
    for e in (a, b):
        o = e.owned
        if e.feasible:
            assert o["capex_usd"] == pytest.approx(o["capital_usd_per_gpu"] * e.gpus, rel=1e-12)
            assert o["capex_usd"] > 0
        else:  # a run that cannot happen: nothing to buy, never money
            assert math.isnan(o["capex_usd"])
    if a.feasible and b.feasible and n2 > s.gpus:
        assert b.owned["capex_usd"] > a.owned["capex_usd"]
        assert b.owned["capex_usd"] / a.owned["capex_usd"] == pytest.approx(n2 / s.gpus, rel=1e-12)


@settings(max_examples=examples(40), deadline=None)
@given(owned_scenarios, log_uniform(1e3, 1e6), st.floats(1.01, 10.0))
def test_capex_grows_with_the_price_per_gpu(s, price, factor):
    a = estimate(s.replace(purchase_usd_per_gpu=price))
    b = estimate(s.replace(purchase_usd_per_gpu=price * factor))
    assume(a.feasible and b.feasible and a.gpus == b.gpus)  # the price moves no GPU count under a fixed cluster
    assert b.owned["capex_usd"] > a.owned["capex_usd"]
    assert b.owned["capex_usd"] / a.owned["capex_usd"] == pytest.approx(factor, rel=1e-9)


# ------------------------------------------------------------------ 2. and 3. break-even, the formula
MONTHLY = log_uniform(1.0, 1e6)


@settings(max_examples=examples(200), deadline=None)
@given(log_uniform(1e2, 1e7), MONTHLY, MONTHLY, st.floats(1.0001, 100.0), st.floats(0.0, 1.0))
def test_break_even_falls_when_the_rent_rises(capital, rent, running, factor, rate):
    a = float(F.breakeven_months(capital, rent, running, rate))
    b = float(F.breakeven_months(capital, rent * factor, running, rate))
    assert b <= a  # inf <= inf: never stays never
    for m, r in ((a, rent), (b, rent * factor)):
        assert m > 0 and not math.isnan(m)  # positive or inf: never negative, never NaN
        if r <= running:
            assert math.isinf(m)  # renting costs no more than running owned hardware: never
        elif rate == 0.0:
            assert m == pytest.approx(capital / (r - running), rel=1e-12)  # the plain payback


# ------------------------------------------------------------------ 2. and 3. break-even, the estimate
@settings(max_examples=examples(40), deadline=None)
@given(owned_scenarios, financing)
def test_in_an_estimate_a_dearer_basis_breaks_even_sooner_and_never_is_infinite(s, rate):
    e = estimate(s.replace(financing_rate=rate))
    o = e.owned
    months = o["breakeven_months"]
    assert set(months) == set(CLOUD_BASES)
    rents = {b: prices.quote(s.gpu, b).usd_per_gpu_hour for b in CLOUD_BASES}
    for b, m in months.items():
        assert m > 0 and not math.isnan(m), (b, m)
    order = sorted(CLOUD_BASES, key=lambda b: rents[b])
    for cheap, dear in zip(order, order[1:]):  # rent up, break-even down (or both never)
        assert months[dear] <= months[cheap] * (1 + 1e-12) or math.isinf(months[cheap]), (cheap, dear)
    assert o["breakeven_within_life"] == {b: m <= o["life_months"] for b, m in months.items()}


@settings(max_examples=examples(25), deadline=None)
@given(owned_scenarios, st.floats(1.0, 10.0))
def test_hosting_dearer_than_every_rent_never_breaks_even(s, extra):
    """Running costs above the dearest rent: owning never pays back, on every basis, at any financing rate."""
    dearest = max(prices.quote(s.gpu, b).usd_per_gpu_hour for b in CLOUD_BASES)
    e = estimate(s.replace(hosting_usd_per_gpu_hour=dearest * extra))
    assert all(math.isinf(m) and m > 0 for m in e.owned["breakeven_months"].values())
    assert not any(e.owned["breakeven_within_life"].values())


def test_compare_and_what_if_carry_never_as_infinity_not_as_a_number():
    never = Scenario(pricing="owned", hosting_usd_per_gpu_hour=50.0)  # $50/GPU-hour to host: above every rent
    cheap = Scenario(pricing="owned")
    table = compare({"never": never, "pays back": cheap, "rented": Scenario()})
    assert math.isinf(table.loc["never", "breakeven_months"]) and table.loc["never", "breakeven_months"] > 0
    assert 0 < table.loc["pays back", "breakeven_months"] < math.inf
    assert math.isnan(table.loc["rented", "breakeven_months"]) and math.isnan(table.loc["rented", "capex_usd"])
    grid = what_if(never, {"precision": ["bf16", "fp8"], "recovery": ["auto", "storage"]})
    assert np.isinf(grid["breakeven_months"]).all() and (grid["breakeven_months"] > 0).all()
    assert (grid["capex_usd"] > 0).all()


# ------------------------------------------------------------------ the hand calculation
def test_capex_and_break_even_of_1024_h100_by_hand():
    e = estimate(Scenario(pricing="owned", gpus=1024))
    o = e.owned
    purchase = 270_480 / 8  # HGX H100 8-GPU baseboard, 2024-02-21 (accelerators.csv, Epoch AI price database)
    assert purchase == 33_810 == o["purchase_usd"]
    capital = purchase * 1.64 / (1 - 0.19)  # Epoch's server overhead; interconnect 19% of the cluster
    assert capital == pytest.approx(68_454.81, abs=0.01)
    assert o["capital_usd_per_gpu"] == pytest.approx(capital, rel=1e-12)
    assert o["capex_usd"] == pytest.approx(70_097_730, abs=1)
    # running costs per GPU-hour: colocation $184.06/kW-month (CBRE H2 2024) on 0.7 kW x 1.82 (DGX H100 server
    # factor), and the energy: 0.7 kW x 1.82 x 0.75 average power x PUE 1.1 x $0.0806/kWh (us-avg)
    hosting = 184.06 * 0.7 * 1.82 / HOURS_PER_MONTH
    energy = 0.7 * 1.82 * 0.75 * 1.1 * 0.0806
    assert hosting == pytest.approx(0.3210, abs=1e-4) and energy == pytest.approx(0.08472, abs=1e-5)
    rent = prices.quote("h100-sxm", "on_demand").usd_per_gpu_hour
    assert rent == 2.99  # the specialist median of five providers' own pages (cloud_prices.csv, issue 37)
    months = capital / ((rent - hosting - energy) * HOURS_PER_MONTH)  # no financing by default (Epoch)
    assert months == pytest.approx(36.26, abs=0.01)
    assert o["breakeven_months"]["on_demand"] == pytest.approx(months, rel=1e-9)
