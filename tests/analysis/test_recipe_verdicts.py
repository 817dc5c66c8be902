"""Issue 16 item 7: one source of truth for the fact-check and the savings recipe's verdicts.

Hand values: regions.csv industrial electricity cn-avg $0.0905, cn-ningxia $0.0508, cn-inner-mongolia $0.0536 per kWh;
measured FP8 speed-ups 1.1-1.35x (defaults.csv fp8_speedup source) and the model's 1.28x; LLaMA-MoE activates
3.0-3.5B of 6.7B parameters (Zhu et al. 2024, arXiv 2406.16554); Code Llama continued Llama 2's 2T tokens on 500B
(Roziere et al. 2023); typical spot discounts 30-70% (defaults.csv spot_discount source).
"""

from __future__ import annotations

import pytest

from explorer import Scenario, recipe_verdicts
from explorer import claims as C
from explorer.text import labels


@pytest.fixture(scope="module")
def checked():
    return C.check_claims().set_index("id")


def test_going_west_is_judged_on_the_price_as_the_fact_check_does(checked):
    # before: 65.7% "larger than claimed", because the PUE moved with the region
    df = recipe_verdicts(Scenario(region="cn-avg", pricing="owned", gpus=256))
    row = df.loc["region_west"]
    assert row["metric"] == "electricity_usd_per_kwh"
    assert row["saving"] == pytest.approx(1 - 0.0508 / 0.0905, rel=1e-9)  # to Ningxia, the cheapest sourced price
    assert row["verdict"] == "as claimed"
    assert row["fact_check"] == checked.loc["b_west_40", "verdict"] == C.HOLDS
    assert (row["sourced_low"], row["sourced_high"]) == pytest.approx((1 - 0.0536 / 0.0905, 1 - 0.0508 / 0.0905))


def test_fp8_at_1_28x_is_consistent_with_a_30_percent_claim(checked):
    df = recipe_verdicts(Scenario(gpus=512, failure_rate_per_gpu_hour=0.0))
    row = df.loc["fp8"]
    assert row["saving"] == pytest.approx(1 - 1 / 1.28, rel=1e-6)  # 21.9% < 1 - 1/1.3 = 23.1%
    assert (row["sourced_low"], row["sourced_high"]) == pytest.approx((1 - 1 / 1.1, 1 - 1 / 1.35))
    assert row["verdict"] == C.CONSISTENT
    assert row["fact_check"] == checked.loc["b_chips_30", "verdict"] == C.CONDITIONAL


def test_spot_is_judged_against_the_sourced_discounts():
    # the generic 50% discount (minus nothing on the rate) is inside the sourced 30-70%, which reaches the claimed 70%
    df = recipe_verdicts(Scenario(gpus=512))
    assert df.loc["spot", "verdict"] == C.CONSISTENT
    assert (df.loc["spot", "sourced_low"], df.loc["spot", "sourced_high"]) == (0.3, 0.7)
    # a catalog spot price 79.5% below on-demand is inside the claimed 70-90%
    claim = C.recipe_claims()["spot"]
    assert C.saving_verdict(0.795, claim["low"], claim["high"]) == C.AS_CLAIMED
    assert C.saving_verdict(0.60, claim["low"], claim["high"]) == C.SMALLER


def test_moe_uses_the_cited_llama_moe_not_the_articles_quarter(checked):
    lo, hi, words = C.sourced_saving("moe")
    assert (lo, hi) == pytest.approx((1 - 3.5 / 6.7, 1 - 3.0 / 6.7))
    assert "LLaMA-MoE" in words
    assert checked.loc["b_moe_quarter", "verdict"] == C.FAILS
    # FLOP ratio: 3.25 / 6.7 = 0.485 of the parameter FLOP, plus the attention FLOP that do not shrink; not 0.25
    assert 3.25 / 6.7 <= checked.loc["b_moe_quarter", "number"] <= 0.55
    df = recipe_verdicts(Scenario(gpus=512))
    assert df.loc["moe", "verdict"] == C.SMALLER and df.loc["moe", "fact_check"] == C.FAILS


def test_claims_with_no_sourced_figure_cannot_be_checked(checked):
    for cid in ("b_filter_10_80", "b_synthetic_70", "b_moe_45"):
        assert checked.loc[cid, "verdict"] == C.CANNOT_CHECK, cid
    df = recipe_verdicts(Scenario(gpus=512))
    assert df.loc["data_cleaning", "verdict"] == C.CANNOT_CHECK
    assert C.CANNOT_CHECK in C.VERDICTS


def test_lora_is_compared_with_full_pretraining(checked):
    row = checked.loc["b_lora"]
    # (4 + 6 x 1%) N on 1B tokens vs 6 N on Llama 2's 2T tokens
    assert row["number"] == pytest.approx(1 - 4.06 / 6 * 1e9 / 2e12, abs=1e-4)
    assert row["verdict"] == C.HOLDS and "pre-training" in row["unit"]


def test_continual_pretraining_agrees_in_both(checked):
    df = recipe_verdicts(Scenario(gpus=512))
    assert df.loc["continual_pretrain", "saving"] == pytest.approx(0.75)  # 500B of 2T tokens
    # revised (issue 25 item 5): 75% is inside the sourced range 75.0% (Code Llama) - 97.6% (Meditron-70B), which
    # reaches the claimed 90%+: consistent with the claim, "holds only under stated conditions" in both
    assert df.loc["continual_pretrain", "verdict"] == C.CONSISTENT
    assert df.loc["continual_pretrain", "fact_check"] == checked.loc["b_continual_90", "verdict"] == C.CONDITIONAL


def test_one_table_of_claimed_ranges_and_one_mapping():
    rc = C.recipe_claims()
    ids = {c.id for c in C.CLAIMS}
    assert all(r["claim_id"] in ids for r in rc.values())
    assert (rc["region_west"]["low"], rc["region_west"]["high"]) == (0.40, 0.40)
    assert rc["fp8"]["low"] == pytest.approx(1 - 1 / 1.30, abs=1e-3) and rc["fp8"]["high"] is None
    for v in C.RECIPE_VERDICTS:
        assert C.fact_check_verdict(v) in C.VERDICTS
    for v in (C.CONSISTENT, C.CANNOT_CHECK):  # shown in the app in both languages
        key = "verdict_" + v.replace(" ", "_")
        assert key in labels() and labels()[key]["zh"] != labels()[key]["en"]
