"""Laws of the plan from a budget (explorer.analysis.plan, the Plan tab) over the whole input space.

The base scenario is drawn as the model's property tests draw one (tests/strategies.py: every accelerator with a
price, every price basis, the seller groups and the named providers that list the accelerator, every region,
MFU, MoE, shapes, team, experiments, a fixed cluster or a deadline), pre-training, and the plan's own options
are drawn beside it: budget, scope, deadline, GPU cap. The laws:

1. **More budget never buys a smaller model**, and a budget that buys nothing is never above one that buys
   something.
2. **Feasible or nothing**: a plan is a run that can happen, priced within the budget: feasible, finite cost on
   its scope at most the budget, the cluster within the GPU cap and above the memory floor, the deadline met.
   A plan with no run prints no money (NaN cost and size) and says why (``plan_nothing_fits``).
3. **Compute-optimal split**: tokens = tokens-per-parameter x parameters exactly; the default is 20, Hoffmann
   et al. (2022)'s Chinchilla: 1.4T tokens for 70B parameters (1.4e12 / 70e9 = 20).
4. **The answer is the boundary**: when the budget is what stops it, half a percent more model costs more than
   the budget (or cannot run).
5. **Looser constraints never buy a smaller model**: the final run alone instead of the whole project, a later
   deadline, a larger GPU cap under a deadline, a cheaper typed rate per GPU-hour.

A hand check of law 3 against the paper: with nothing but the final run's GPU-hours at $2 on an H100 SXM (989.5
dense BF16 TFLOP/s, NVIDIA datasheet) at MFU 0.5, the budget that pays 6 x 70e9 x 1.4e12 FLOP buys Chinchilla's
70B on 1.4T tokens.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer import Scenario, estimate, prices
from explorer.analysis import TOKENS_PER_PARAM, plan
from explorer.scenario import field_spec
from strategies import PRICED, examples, log_uniform, scenarios

H100_BF16_FLOPS = 989.5e12  # NVIDIA H100 SXM datasheet, dense BF16
COMMITMENTS = ("on_demand", "reserved_1y", "reserved_3y", "spot")
#: accelerator -> the named providers that list an on-demand price for it (a provider's quote is then finite)
PROVIDERS_OF = {g: [p for p in prices.sellers()[2:] if math.isfinite(prices.quote(g, "on_demand", p).usd_per_gpu_hour)]
                for g in PRICED}
TOL = 2e-3  # the bisection knows the size to 0.1%: two answers may differ by that much either way
MAX_GPUS = field_spec("gpus")["max"]


@st.composite
def bases(draw):
    """A pre-training base scenario over the whole input space, its seller possibly a named provider."""
    s = draw(scenarios()).replace(training_kind="pretrain")
    providers = PROVIDERS_OF.get(s.gpu, [])
    if s.pricing in COMMITMENTS and providers and draw(st.booleans()):
        s = s.replace(seller=draw(st.sampled_from(providers)))
    return s


@st.composite
def options(draw):
    """The plan's options: scope, and optionally a deadline, a GPU cap and another split than Chinchilla's."""
    kw = dict(scope=draw(st.sampled_from(["project", "final_run"])))
    if draw(st.integers(0, 3)) == 0:
        kw["tokens_per_param"] = draw(log_uniform(1.0, 1000.0))
    if draw(st.booleans()):
        kw["deadline_days"] = draw(log_uniform(1.0, 1000.0))
    if draw(st.booleans()):
        kw["gpu_cap"] = int(draw(log_uniform(1, MAX_GPUS)))
    return kw


BUDGETS = log_uniform(1e3, 1e10)


def _cost(e, scope: str) -> float:
    return e.total_usd if scope == "project" else e.final_run_usd


def _assert_feasible_or_nothing(p, budget: float, kw: dict, base: Scenario) -> None:
    """Law 2 (and 3 on a plan that has a run)."""
    if p.scenario is None:
        assert p.estimate is None and math.isnan(p.cost_usd) and math.isnan(p.params) and math.isnan(p.tokens)
        assert "plan_nothing_fits" in [w.id for w in p.warnings]
        assert p.to_dict()["total_usd"] is None and p.to_dict()["scenario"] is None
        return
    e = p.estimate
    assert e.feasible and not e.deadline_impossible, (e.infeasible_reason, p.limited_by)
    assert math.isfinite(p.cost_usd) and 0 < p.cost_usd <= budget
    assert p.cost_usd == _cost(e, kw["scope"])
    assert e.min_gpus_memory <= e.gpus
    if kw.get("gpu_cap") is not None:
        assert e.gpus <= kw["gpu_cap"]
    deadline = kw.get("deadline_days", base.deadline_days)
    if deadline is not None:
        assert e.wall_days <= deadline * (1 + 1e-9)
    assert p.tokens == pytest.approx(p.tokens_per_param * p.params, rel=1e-12)  # law 3
    # what the plan prints is what an estimate of its scenario says
    assert estimate(p.scenario).total_usd == pytest.approx(e.total_usd, rel=1e-12)
    if p.limited_by == "deadline":  # "limited by the deadline" only where there is one
        assert deadline is not None


@settings(max_examples=examples(20), deadline=None)
@given(bases(), options(), BUDGETS, BUDGETS)
def test_more_budget_buys_no_smaller_model_and_every_plan_can_run(base, kw, b1, b2):
    lo, hi = sorted((b1, b2))
    p_lo, p_hi = plan(lo, base, **kw), plan(hi, base, **kw)
    for budget, p in ((lo, p_lo), (hi, p_hi)):
        _assert_feasible_or_nothing(p, budget, kw, base)
    if p_hi.scenario is None:  # law 1: nothing at the larger budget, nothing at the smaller
        assert p_lo.scenario is None
    elif p_lo.scenario is not None:
        assert p_lo.params <= p_hi.params * (1 + TOL)
    for budget, p in ((lo, p_lo), (hi, p_hi)):  # law 4
        # (a model 0.5% larger past the fields' ranges is no model at all: nothing to price)
        if p.limited_by == "budget" and p.scenario is not None and p.tokens * 1.005 <= field_spec("tokens")["max"] \
                and p.params * 1.005 <= field_spec("params")["max"]:
            bigger = estimate(p.scenario.replace(params=p.params * 1.005, tokens=p.tokens * 1.005))
            cost = _cost(bigger, kw["scope"])
            assert not bigger.feasible or not cost <= budget, (cost, budget)


LOOSER = st.sampled_from(["scope", "deadline", "gpu_cap", "rate"])


@settings(max_examples=examples(20), deadline=None)
@given(bases(), options(), BUDGETS, LOOSER, st.floats(1.05, 10.0))
def test_a_looser_constraint_never_buys_a_smaller_model(base, kw, budget, which, factor):
    tight, loose = dict(kw), dict(kw)
    if which == "scope":  # the final run costs no more than the whole project
        tight["scope"], loose["scope"] = "project", "final_run"
    elif which == "deadline":
        days = kw.get("deadline_days", 30.0)
        tight["deadline_days"], loose["deadline_days"] = days, min(days * factor, field_spec("deadline_days")["max"])
    elif which == "gpu_cap":  # under a deadline the cap bounds the cluster the solve may choose
        cap = kw.get("gpu_cap", 64)
        tight.update(gpu_cap=cap, deadline_days=kw.get("deadline_days", 30.0))
        loose.update(gpu_cap=min(MAX_GPUS, int(cap * factor) + 1), deadline_days=tight["deadline_days"])
    else:  # a typed cloud rate: dearer GPU-hours
        rate = prices.quote(base.gpu, "on_demand").usd_per_gpu_hour
        cloud = base.replace(pricing="on_demand", seller="specialist")
        p_dear = plan(budget, cloud.replace(rate_usd_per_gpu_hour=rate * factor), **kw)
        p_cheap = plan(budget, cloud.replace(rate_usd_per_gpu_hour=rate), **kw)
        _check_looser(p_dear, p_cheap)
        return
    _check_looser(plan(budget, base, **tight), plan(budget, base, **loose))


def _check_looser(p_tight, p_loose) -> None:
    if p_loose.scenario is None:
        assert p_tight.scenario is None
    elif p_tight.scenario is not None:
        assert p_tight.params <= p_loose.params * (1 + TOL), (p_tight.limited_by, p_loose.limited_by)


def test_the_default_split_is_chinchillas():
    """Hoffmann et al. 2022: Chinchilla, 70B parameters on 1.4T tokens."""
    assert TOKENS_PER_PARAM == 1.4e12 / 70e9 == 20.0


def test_the_budget_of_chinchillas_compute_buys_chinchilla():
    """Hand: 6 x 70e9 x 1.4e12 = 5.88e23 FLOP; at 989.5 TFLOP/s x 0.5 MFU that is 5.88e23 / (4.9475e14 x 3600)
    = 330,134 GPU-hours, $660,268 at $2: that budget buys 70B parameters on 1.4T tokens."""
    bare = Scenario(gpu="h100-sxm", gpus=1024, mfu=0.5, rate_usd_per_gpu_hour=2.0, failure_rate_per_gpu_hour=0.0,
                    other_losses_factor=1.0, experiments_multiplier=1.0, team_headcount=0.0,
                    data_usd_per_1m_tokens=0.0, seq_len=16)
    flop = 6 * 70e9 * 1.4e12
    hours = flop / (H100_BF16_FLOPS * 0.5 * 3600)
    assert hours == pytest.approx(330_134, abs=1)
    p = plan(hours * 2.0, bare, scope="final_run")
    assert p.params == pytest.approx(70e9, rel=TOL) and p.tokens == pytest.approx(1.4e12, rel=TOL)
    assert p.limited_by == "budget"


def test_a_run_too_long_to_start_limits_the_plan_by_its_length_not_by_a_deadline():
    """No deadline given, 1,024 GPUs, $10B: the model grows until its run would outlast the longest run the
    model allows (max_run_years, 5 years = 1,826.25 days); the plan says so, not "the deadline"."""
    p = plan(1e10, Scenario(gpus=1024), scope="final_run", cluster="base")  # the fixed cluster (issue 38: opt-in)
    assert p.limited_by == "run_length"
    assert p.estimate.feasible and p.estimate.wall_days <= 5 * 365.25
    assert p.estimate.wall_days > 0.99 * 5 * 365.25  # the boundary: within 1% of the longest run
    longer = estimate(p.scenario.replace(params=p.params * 1.005, tokens=p.tokens * 1.005))
    assert longer.infeasible_reason == "too_long" and math.isnan(longer.final_run_usd)


@pytest.mark.parametrize("limit", ["budget", "deadline", "gpu_cap", "memory", "run_length", "largest_model"])
def test_every_limit_a_plan_can_name_has_a_label_in_both_languages(limit):
    from explorer.text import label

    en, zh = label(f"plan_limited_{limit}", "en"), label(f"plan_limited_{limit}", "zh")
    assert en and zh and en != zh and en != f"plan_limited_{limit}"


def test_a_split_whose_largest_model_rounds_past_the_token_range_still_plans():
    """1e15 / 107.46078283213176 * 107.46078283213176 is 1e15 + 0.125 in floating point (by hand in Python),
    past the tokens field's 1e15: the probe of the largest model once raised ScenarioError (a seed of the law
    above found it)."""
    split = 107.46078283213176
    assert 1e15 / split * split > 1e15  # the rounding this test is about
    p = plan(1e3, Scenario(), scope="final_run", tokens_per_param=split)
    assert p.scenario is None or p.scenario.tokens <= 1e15
