"""Issue 25 item 7: the buy-versus-rent break-even discounts the monthly savings at the financing rate.

Hand calculation: capital $1,200, rent $150 and running costs $50 a month: 12 months at 0%; at 8% a year the monthly
rate is 1.08^(1/12) - 1 = 0.643403%, and the discounted payback n solves sum_{k=1..n} 100 / (1 + i)^k = 1,200:
n = -ln(1 - 1200 i / 100) / ln(1 + i) = 12.529 months.
"""

from __future__ import annotations

import datetime as dt
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from strategies import examples
from explorer import Scenario, estimate
from explorer.model import formulas as F


def test_hand_values():
    assert float(F.breakeven_months(1200.0, 150.0, 50.0)) == pytest.approx(12.0)
    i = 1.08 ** (1 / 12) - 1
    assert i == pytest.approx(0.00643403, abs=1e-8)
    n = float(F.breakeven_months(1200.0, 150.0, 50.0, 0.08))
    assert n == pytest.approx(12.529, abs=5e-4)
    # the present value of 100 a month over n months is the capital (annuity formula, fractional n)
    assert 100 * (1 - (1 + i) ** -n) / i == pytest.approx(1200.0, rel=1e-9)


def test_interest_that_eats_the_margin_never_breaks_even():
    # 1% a month on $20,000 is $200 > a $100 margin: never
    assert math.isinf(float(F.breakeven_months(20_000.0, 150.0, 50.0, 1.01 ** 12 - 1)))
    assert math.isinf(float(F.breakeven_months(1200.0, 50.0, 50.0, 0.08)))


@settings(max_examples=examples(200), deadline=None)
@given(capital=st.floats(1e3, 1e6), rent=st.floats(10.0, 1e5), running=st.floats(0.0, 1e5),
       r1=st.floats(0.0, 0.5), r2=st.floats(0.0, 0.5))
def test_break_even_rises_with_the_financing_rate(capital, rent, running, r1, r2):
    lo, hi = sorted((r1, r2))
    a = float(F.breakeven_months(capital, rent, running, lo))
    b = float(F.breakeven_months(capital, rent, running, hi))
    assert b >= a * (1 - 1e-12) or math.isinf(b)
    if rent > running:
        assert a >= capital / (rent - running) * (1 - 1e-12)   # never sooner than the undiscounted payback


def test_the_default_owned_cluster_breaks_even_later_at_8_percent():
    # the case (34.3 months at the old specialist H100 median of 3.14): at today's first-hand median 2.99
    # (explorer.prices, issue 37) the monthly margin is (2.99 - 0.406 running: all-in 1.968 less capital 68,455 /
    # 43,830 h) x 730.5 h = 1,888 USD, and 68,455 / 1,888 = 36.3 months at 0%
    at0 = estimate(Scenario(pricing="owned", financing_rate=0.0)).owned
    at8 = estimate(Scenario(pricing="owned", financing_rate=0.08)).owned
    for basis, months in at0["breakeven_months"].items():
        assert at8["breakeven_months"][basis] > months, basis
    assert at0["breakeven_months"]["on_demand"] == pytest.approx(68455 / ((2.99 - 0.406) * 730.5), abs=0.5)
    # at 8% the undiscounted savings are worth less: hand, with the same margin m = capital / n0
    capital, n0 = at0["capital_usd_per_gpu"], at0["breakeven_months"]["on_demand"]
    i = 1.08 ** (1 / 12) - 1
    expected = -math.log(1 - capital * i / (capital / n0)) / math.log(1 + i)
    assert at8["breakeven_months"]["on_demand"] == pytest.approx(expected, rel=1e-6)


def test_break_even_against_the_amortization_rules_life():
    # straight line over 5 years: 60 months; Epoch's rule writes the value off at ln(10) x 0.14 = 0.3224 a year:
    # 12 / 0.3224 = 37.2 months. On the straight line at 8% the on-demand break-even comes within its 60 months: at
    # 2.99 (issue 37) the margin is 1,888 USD a month (above), and -ln(1 - 68,455 x i / 1,888) / ln(1 + i),
    # i = 1.08^(1/12) - 1, = 41.4 months. Epoch's rule charges the H100 at its value when the run starts (since
    # issue 37): $33,810 of 2024-02-21 less 0.14 orders of magnitude a year to 2026-11-09 (the table's newest price),
    # x 1.64 / 0.81, no hosting; its spot margin (1.495 - 0.085 energy) x 730.5 h then pays it back at 8% well
    # within Epoch's 37.2 months
    sl = estimate(Scenario(pricing="owned", financing_rate=0.08)).owned
    ep = estimate(Scenario(pricing="owned", financing_rate=0.08, amortization="epoch")).owned
    assert sl["life_months"] == pytest.approx(60.0)
    assert ep["life_months"] == pytest.approx(12 / (math.log(10) * 0.14), rel=1e-9)
    i = 1.08 ** (1 / 12) - 1
    assert sl["breakeven_months"]["on_demand"] == pytest.approx(
        -math.log(1 - 68455 * i / ((2.99 - 0.406) * 730.5)) / math.log(1 + i), abs=0.5)
    assert sl["breakeven_within_life"]["on_demand"]  # 41.4 <= 60 months
    years = (dt.date(2026, 11, 9) - dt.date(2024, 2, 21)).days / 365.25
    capital = 33_810 * 10 ** (-0.14 * years) * 1.64 / 0.81
    spot = -math.log(1 - capital * i / ((2.99 * 0.5 - 0.0847) * 730.5)) / math.log(1 + i)
    assert ep["breakeven_months"]["spot"] == pytest.approx(spot, abs=0.5)  # 30.6 months
    assert ep["breakeven_within_life"]["spot"] and ep["breakeven_within_life"]["on_demand"]
    for o in (sl, ep):
        assert o["breakeven_within_life"] == {b: m <= o["life_months"] for b, m in o["breakeven_months"].items()}
