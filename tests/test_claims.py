"""The claims check (explorer/claims.py): verdicts against numbers checked by hand.

Each expected number below was worked out by hand from the cited source, not
read back from the module.
"""

from __future__ import annotations

import pytest

from explorer.claims import CLAIMS, CONDITIONAL, FAILS, HOLDS, VERDICTS, check_claims


@pytest.fixture(scope="module")
def claims():
    return check_claims().set_index("id")


def test_every_claim_has_a_verdict_and_a_number(claims):
    assert len(claims) >= 27
    assert claims.index.is_unique
    assert set(claims["verdict"]) <= set(VERDICTS)
    assert claims["number"].notna().all()
    assert set(claims["basis"]) <= {"data", "model", "arithmetic"}
    assert {c.article for c in CLAIMS} == {"A", "B"}


def test_gpt3_1_4m_is_a_2023_retraining_estimate_not_the_2020_cost(claims):
    row = claims.loc["a_2020_gpt3_cost"]
    # AI Index 2024: GPT-3 cost $4,324,883 (Dec-2023 USD); the article's $1.4M is 0.32x of it
    assert row["number"] == pytest.approx(4_324_883)
    assert row["verdict"] == CONDITIONAL
    assert "sunyan_gpt3_retrain_2023" in row["why"] and "2023-01" in row["why"]


def test_bert_large_300k_vs_ai_index_3_3k(claims):
    row = claims.loc["a_2018_bert"]
    assert row["number"] == pytest.approx(3288)          # AI Index 2024: $3,288
    assert row["verdict"] == FAILS
    assert "91x too high" in row["why"]                  # 300,000 / 3,288 = 91.2


def test_roberta_was_not_cheaper_than_bert(claims):
    row = claims.loc["a_2019_cheaper"]
    assert row["number"] == pytest.approx(160_018 / 3288)  # 48.7x more
    assert row["verdict"] == FAILS


def test_gemini_is_2_44x_gpt4(claims):
    row = claims.loc["a_2023_ratio"]
    assert row["number"] == pytest.approx(191_400_000 / 78_352_034)  # 2.443
    assert row["verdict"] == HOLDS


def test_gpt3_energy_and_six_nd(claims):
    assert claims.loc["a_2020_gpt3_energy", "number"] == 1287   # Patterson et al. 2021
    assert claims.loc["a_2020_gpt3_energy", "verdict"] == HOLDS
    # 6 * 175e9 * 300e9 = 3.15e23 vs 3.14e23 reported (Brown et al. 2020)
    assert claims.loc["a_6nd", "number"] == pytest.approx(3.15e23 / 3.14e23)
    assert claims.loc["a_6nd", "verdict"] == HOLDS


def test_50_vs_80_percent_utilization_is_60_percent(claims):
    # cost is proportional to 1 / utilization: 0.8 / 0.5 = 1.6
    assert claims.loc["a_util_50_80", "number"] == pytest.approx(1.6, rel=1e-6)
    assert claims.loc["a_util_50_80", "verdict"] == HOLDS


def test_120_percent_rule_trigger(claims):
    # 0.38 / 1.2 = 0.3167, inside Epoch AI's middle half of MFU 0.30-0.50
    assert claims.loc["a_review_120", "number"] == pytest.approx(0.38 / 1.2, rel=1e-3)
    assert claims.loc["a_review_120", "verdict"] == CONDITIONAL


def test_forecasts_do_not_hold(claims):
    for cid in ("a_forecast_10b", "a_forecast_100b"):
        assert claims.loc[cid, "verdict"] == FAILS
        assert claims.loc[cid, "number"] > 2027


def test_fp8_halves_weights_not_optimizer_state(claims):
    row = claims.loc["b_fp8_memory"]
    # FP8 mixed precision keeps BF16 weights and the FP32 master copy (Micikevicius et al. 2022; DeepSeek-V3
    # section 3.3): 2 + 2 + 12 = 16 bytes/param either way -> nothing saved; activations save 7/34 at most
    assert row["number"] == pytest.approx(0.0)
    assert row["verdict"] == FAILS
    assert "keeps BF16 weights (0% saved)" in row["why"]


def test_fp8_speedup_is_28_percent_not_30(claims):
    assert claims.loc["b_chips_30", "number"] == pytest.approx(0.28)   # 1.28x, Megatron-Bridge
    assert claims.loc["b_chips_30", "verdict"] == CONDITIONAL


def test_savings_claims_of_the_second_article(claims):
    # FP8 alone: 1 - 1/1.28 = 21.9% of compute cost; 40-60% needs more than FP8
    assert claims.loc["b_savings_40_60", "number"] == pytest.approx(1 - 1 / 1.28, abs=0.005)
    assert claims.loc["b_savings_40_60", "verdict"] == CONDITIONAL
    # Code Llama 34B: 500B continual tokens vs 2T from scratch -> 75% saved, not 90%+
    assert claims.loc["b_continual_90", "number"] == pytest.approx(0.75, abs=0.005)
    assert claims.loc["b_continual_90", "verdict"] == FAILS  # smaller than claimed, as in the recipe
    # LoRA against pre-training the model, as the article compares: (4 + 6 x 1%) N x 1B tokens vs 6 N x 2T tokens
    assert claims.loc["b_lora", "number"] == pytest.approx(1 - 4.06 / 6 * 1e9 / 2e12, abs=1e-4)
    assert claims.loc["b_lora", "verdict"] == HOLDS
    # western China: Ningxia 0.0508 and Inner Mongolia 0.0536 vs 0.0905 USD/kWh -> 44% and 41%
    saved = ((1 - 0.0508 / 0.0905) + (1 - 0.0536 / 0.0905)) / 2
    assert claims.loc["b_west_40", "number"] == pytest.approx(saved)
    assert claims.loc["b_west_40", "verdict"] == HOLDS
    # spot at the default 50% discount costs about half of on-demand, not 10-30%
    assert claims.loc["b_spot", "number"] == pytest.approx(0.5, abs=0.02)
    assert claims.loc["b_spot", "verdict"] == CONDITIONAL


def test_domestic_accelerator_price_per_flop(claims):
    # Ascend 910B $16,854 / 376 TFLOP/s = $44.8; H800 $33,800 / 989.5 = $34.2 -> 31% dearer
    expected = 1 - (16854 / 376) / (33800 / 989.5)
    assert claims.loc["b_domestic_20_30", "number"] == pytest.approx(expected)
    assert claims.loc["b_domestic_20_30", "verdict"] == CONDITIONAL


def test_fp8_int4_not_mainstream(claims):
    assert claims.loc["b_fp8_int4_mainstream", "number"] == pytest.approx(1 / 8)
    assert claims.loc["b_fp8_int4_mainstream", "verdict"] == FAILS


def test_history_claims_are_not_duplicated():
    """The dated figures come from explorer.history.check_claims, not from a second table."""
    from explorer.history import load_claims

    ids = {c.id for c in CLAIMS}
    assert len(load_claims()) == 10
    assert len([i for i in ids if i.startswith("a_20") or i.startswith(("a_now", "a_next", "a_forecast"))]) >= 10
