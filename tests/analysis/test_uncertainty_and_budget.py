"""Monte Carlo and the budget rule against hand values: the median is the estimate, draws stay in range, 50% at the estimate."""

from __future__ import annotations

import numpy as np
import pytest

from explorer import Scenario, estimate


def _scenarios():
    from explorer.presets import presets
    return {"default": Scenario(), **{k: p.scenario for k, p in presets().items()}}


@pytest.mark.parametrize("name", list(_scenarios()))
def test_simulated_median_is_near_the_point_estimate(name):
    # revised (issue 25 item 6): MFU is drawn within its generation's bounds and not re-centred; it was +2.8% on
    # the default scenario, up to +9.4% for presets calibrated near the 0.55 cap (llama31_405b). Issue 38: the
    # bounded MFU is calibrated to its sourced median, so the MFU's median is the point; the other draws (price,
    # failures, losses, experiments) and the skew of the bounded MFU leave the total's median within +-3%
    # (measured at 20,000 draws, seed 0, on 7 Dec 2026: -0.8% GPT-3 to +2.5% Llama 65B). Each input alone keeps
    # it at the point (test_each_uncertain_input_alone_...): the excess is the inputs together
    from explorer import simulate
    s = _scenarios()[name]
    sim = simulate(s, n=20_000, seed=0)
    assert sim.percentiles.loc["P50", "total_usd"] / estimate(s).total_usd == pytest.approx(1.0, abs=0.03)


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
    # revised (issue 25 item 6): at the point estimate P(over) is no longer 0.5 by construction (the low-MFU tail
    # is kept), and at P(over) >= 0.2 the status is "at_risk" with its note
    assert b.status == "at_risk" and b.note
    assert 0.5 < b.probability_over < 0.7
    assert b.median_usd == pytest.approx(b.total_usd, rel=0.08)


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


@pytest.mark.parametrize("name", list(_scenarios()))
def test_each_uncertain_input_alone_keeps_the_median_at_the_point_estimate(name):
    # issue 38: every input is drawn around the point value (its median is the point's: the bounded MFU
    # calibrated to the sourced median, the truncated other losses and experiments symmetric in log), so with one
    # input drawn and the others at their point values the total's median is the point estimate. 20,000 draws:
    # the median of a lognormal of sigma 0.38 (MFU, the widest relative input) has a standard error of
    # 1.2533 x 0.38 / sqrt(20,000) = 0.34%, so +-0.7% is two standard errors. What is left of the +-3% above is
    # the inputs together: the median of a product of independent draws is not the product of their medians
    # when one of them is skewed (the bounded MFU's long low tail, 0.15 below 0.38 against 0.55 above), e.g.
    # Llama-65B +0.1% with MFU alone, -0.2% with the experiments alone, +2.1% with the two together (40,000 draws,
    # seeds 0 and 1).
    from explorer import simulate
    from explorer.analysis.uncertainty import uncertainty_ranges
    s = _scenarios()[name]
    point = estimate(s).total_usd
    ranges = uncertainty_ranges()
    for key in ranges.index:
        sim = simulate(s, n=20_000, seed=3, ranges=ranges.loc[[key]])
        assert sim.percentiles.loc["P50", "total_usd"] / point == pytest.approx(1.0, abs=0.007), key
