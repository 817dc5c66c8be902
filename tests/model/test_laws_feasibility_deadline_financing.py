"""Laws of feasibility, deadlines and financing (issue 38), each a hypothesis property over the whole input space
that failed on e8e7e9d.

- A feasible run has a layout that fits its memory, and a part of the layout the scenario sets is kept.
- A typed GPU count below the memory floor is infeasible (no money) and names the nearest feasible count.
- The deadline solver respects the longest run the model allows (``max_run_years``): a looser deadline never
  loses its money (``--days 1800`` gave $10.31M, ``--days 1900`` INFEASIBLE).
- Financing rates near 0 are continuous (``1e-16`` gave an infinite cost).
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from explorer import Scenario, catalog, estimate
from explorer.catalog import default
from explorer.model import formulas as F
from strategies import examples, log_uniform, scenarios

MAX_WALL_DAYS = default("max_run_years") * 365.25


@settings(max_examples=examples(150), suppress_health_check=[HealthCheck.filter_too_much])
@given(scenarios(), st.none() | st.sampled_from([1, 2, 4, 8]), st.none() | st.sampled_from([1, 2, 4, 16]),
       st.none() | st.integers(0, 3))
def test_a_feasible_run_has_a_layout_that_fits_and_keeps_what_is_set(s, tp, pp, zero):
    try:
        s = s.replace(tensor_parallel=tp, pipeline_parallel=pp, zero_stage=zero)
        e = estimate(s)
    except ValueError:  # more pipeline stages than layers: refused, naming the field
        assume(False)
    assume(e.feasible)
    L = e.layout
    assert L is not None and L.fits, (L, e.memory_gb_per_gpu)
    mem = catalog.accelerator(s.gpu).memory_gb
    assert e.memory_gb_per_gpu["total"] <= mem * (1 + 1e-9)
    if tp is not None:
        assert L.tensor_parallel == min(tp, e.gpus)
    if pp is not None:
        assert L.pipeline_parallel == pp
    if zero is not None:
        assert L.zero_stage == zero
    assert L.tensor_parallel * L.pipeline_parallel <= e.gpus
    assert L.batch_tokens >= L.min_batch_tokens * (1 - 1e-12) or L.tensor_parallel < 8
    assert L.steps == math.ceil(s.tokens / L.batch_tokens)


@settings(max_examples=examples(150), suppress_health_check=[HealthCheck.filter_too_much])
@given(scenarios(mode="gpus"), st.floats(0.0, 1.0))
def test_a_typed_count_below_the_memory_floor_is_infeasible_and_names_the_nearest(s, share):
    floor = estimate(s).min_gpus_memory
    assume(math.isfinite(floor) and 2 <= floor <= default("max_gpus"))
    s = s.replace(gpus=max(1, min(int(floor * share), int(floor) - 1)))  # a count below the floor
    e = estimate(s)
    assert e.min_gpus_memory == floor
    assert not e.feasible and e.infeasible_reason == "no_fit" and math.isnan(e.total_usd)
    if e.alternative:  # the nearest feasible count: the floor, or the fewest above it that end within 5 years
        assert e.alternative["gpus"] >= floor
        ok = estimate(s.replace(gpus=int(e.alternative["gpus"])))
        assert ok.feasible and math.isfinite(ok.total_usd)
        if e.alternative["gpus"] > floor:  # one fewer would run too long
            assert not estimate(s.replace(gpus=int(e.alternative["gpus"]) - 1)).feasible


def test_the_issue_example_below_the_floor():
    # 70B on 100B tokens on 8 H100 printed $1.31M; it needs at least 17 (issue 38) with selective recomputation;
    # by hand, full recomputation: state 70e9 x 16 = 1.12 TB, activations 80 x 8192 x 4096 x 2 bytes / 8 =
    # 0.67 GB a GPU, so n >= 1.12e12 / (80e9 - 0.67e9) = 14.1: 15
    e = estimate(Scenario(params=70e9, tokens=100e9, gpus=8))
    assert not e.feasible and e.infeasible_reason == "no_fit" and math.isnan(e.total_usd)
    assert e.min_gpus_memory == 15 and e.alternative["gpus"] == 15
    assert any(w.id == "infeasible_nearest" for w in e.warnings)


@settings(max_examples=examples(100))
@given(scenarios(mode="deadline"), log_uniform(1.0, 3650.0), st.floats(1.0, 4.0))
def test_a_looser_deadline_never_loses_its_money(s, days, looser):
    tight = estimate(s.replace(deadline_days=days))
    loose = estimate(s.replace(deadline_days=min(3650.0, days * looser)))
    if tight.feasible:
        assert loose.feasible, (tight.gpus, tight.wall_days, loose.infeasible_reason, loose.gpus, loose.wall_days)
        assert loose.total_usd <= tight.total_usd * (1 + 1e-6)


@settings(max_examples=examples(60))
@given(log_uniform(1e9, 1e11), log_uniform(1e12, 1e13), st.sampled_from([None, 0.0, 20.0]),
       st.floats(0.5, 1.0), st.floats(1.0001, 2.0))
@example(params=1e9, tokens=1e13, team=0.0, inside=1.0, beyond=2.0)  # found on e8e7e9d: 5 years fine, 10 not
def test_a_deadline_beyond_five_years_keeps_the_money_of_one_within(params, tokens, team, inside, beyond):
    # the pairs that straddle the limit, where the solver ignored it (issue 38: --days 1800 gave $10.31M, --days
    # 1900 INFEASIBLE): runs of tens of GPUs for years, a deadline of `inside` and one of `beyond` x 5 years
    s = Scenario(params=params, tokens=tokens, team_headcount=team, gpus=None, deadline_days=1.0)
    tight = estimate(s.replace(deadline_days=MAX_WALL_DAYS * inside))
    loose = estimate(s.replace(deadline_days=min(3650.0, MAX_WALL_DAYS * beyond)))
    if tight.feasible:
        assert loose.feasible and loose.wall_days <= MAX_WALL_DAYS * (1 + 1e-9)
        assert loose.total_usd <= tight.total_usd * (1 + 1e-6)


def test_the_issue_example_of_the_five_year_limit():
    base = Scenario(params=70e9, tokens=3e12, team_headcount=0, gpus=None, deadline_days=1800)
    a, b = estimate(base), estimate(base.replace(deadline_days=1900))
    assert a.feasible and b.feasible and b.total_usd <= a.total_usd
    assert b.wall_days <= MAX_WALL_DAYS


@settings(max_examples=examples(200))
@given(st.floats(0.0, 1e-6), log_uniform(0.5, 30.0))
def test_capital_recovery_is_continuous_near_a_zero_rate(rate, years):
    # r / (1 - (1 + r)^-n) = 1/n (1 + r (n + 1) / 2 + r^2 (n^2 - 1) / 12 + ...) (Taylor series, by hand)
    crf = float(F.capital_recovery_factor(rate, years))
    assert math.isfinite(crf)
    upper = 1 / years * (1 + rate * (years + 1) / 2 + rate**2 * years**2)
    assert 1 / years * (1 - 1e-12) <= crf <= upper * (1 + 1e-12)


def test_owned_cost_at_tiny_financing_rates_is_the_zero_rate_cost():
    base = Scenario(pricing="owned", gpus=1024)
    zero = estimate(base.replace(financing_rate=0.0)).total_usd
    for r in (1e-16, 1e-15, 1e-12, 1e-9):
        t = estimate(base.replace(financing_rate=r)).total_usd
        assert math.isfinite(t) and zero <= t <= zero * (1 + 1e-6), (r, t, zero)


def test_breakeven_is_continuous_near_a_zero_rate():
    plain = float(F.breakeven_months(1200.0, 150.0, 50.0))
    for r in (1e-300, 1e-16, 1e-12):
        assert float(F.breakeven_months(1200.0, 150.0, 50.0, r)) == np.float64(plain) or math.isclose(
            float(F.breakeven_months(1200.0, 150.0, 50.0, r)), plain, rel_tol=1e-9)
