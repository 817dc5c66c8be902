"""A team that follows the run (issue 25 item 2) and a size-aware MoE active share (item 7, issue 27 item 4).

Expected values come from the sourced tables typed in tests/model/team_by_hand.py and a least-squares line
worked by hand there; the laws over the whole input space are hypothesis property tests.
"""

from __future__ import annotations

import csv
import math
from importlib import resources

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from strategies import examples
from explorer import Scenario, estimate, rules
from explorer.presets import presets
from tests.model import team_by_hand as H
from tests.strategies import MAX_GPUS, PARAMS, TOKENS, log_uniform, scenarios

SETTINGS = settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
DIMENSIONS = ("compute", "energy", "data", "people", "hardware", "hidden")
PEOPLE_IDS = {"people_largest", "people_largest_default"}


def _table(name):
    with resources.files("explorer").joinpath("data", name).open(encoding="utf-8") as f:
        return list(csv.DictReader(f))


# ------------------------------------------------------------------ the data and the fits
def test_team_table_holds_the_sourced_counts_and_the_fit_is_the_hand_least_squares():
    rows = [r for r in _table("team_sizes.csv") if r["training_kind"] == "pretrain"]
    table = sorted((float(r["train_flop"]), float(r["authors"])) for r in rows)
    assert [c for c, _ in table] == pytest.approx([c for c, _ in sorted(H.PRETRAIN)], rel=1e-3)
    assert [n for _, n in table] == [n for _, n in sorted(H.PRETRAIN)]
    assert all(r["source"] for r in _table("team_sizes.csv"))
    a, b = H.line(H.large_scale())
    f = rules.team_fit()
    assert len(f.x) == 8  # GPT-3 to Llama 3.1 405B: the runs of at least 1e23 FLOP
    assert (f.intercept, f.slope) == pytest.approx((a, b), rel=1e-6)
    assert 0.5 < b < 0.9  # authors grow with compute, slower than it (about x5 per 10x among large-scale runs)
    a, b = H.line(H.MONTHS)
    assert (rules.months_fit().intercept, rules.months_fit().slope) == pytest.approx((a, b), rel=1e-6)


def test_moe_table_and_fit():
    rows = _table("moe_models.csv")
    table = sorted((float(r["params_total"]), float(r["params_active"])) for r in rows)
    assert [x for pair in table for x in pair] == pytest.approx([x for pair in sorted(H.MOE) for x in pair])
    a, b = H.line([(n, act / n) for n, act in H.MOE])
    assert (rules.moe_fit().intercept, rules.moe_fit().slope) == pytest.approx((a, b), rel=1e-6)


# ------------------------------------------------------------------ the defaults, by hand
def test_default_scenario_team_and_months_follow_its_compute():
    e = estimate(Scenario())
    C = e.train_flop  # 7B on 1T tokens: about 4.6e22 FLOP with attention
    people = H.team(C) * H.AI_LAB_USD_PER_YEAR / 12 * max(H.months(C), e.wall_days / H.DAYS_PER_MONTH)
    assert e.cost_usd["people"] == pytest.approx(people, rel=1e-9)
    assert e.fallbacks["team_headcount"] == pytest.approx(H.team(C), rel=1e-9)
    sources = {a.name: a.source for a in e.assumptions}
    assert "Cottier" in sources["team_headcount"] and "team_sizes.csv" in sources["team_headcount"]
    assert "project_months_max" in sources["project_months"]


def test_a_bigger_run_gets_a_bigger_team_and_the_line_goes_on_beyond_the_data():
    small = estimate(Scenario(params=1e9, tokens=100e9)).fallbacks["team_headcount"]
    big = estimate(Scenario(params=405e9, tokens=15.6e12, gpus=16384)).fallbacks["team_headcount"]
    assert small < 10 < big
    # held at the smallest large-scale run (GPT-3, 3.14e23 FLOP) below it; followed beyond Llama 3.1 405B (warned)
    assert rules.team_headcount(1e10, "pretrain") == pytest.approx(H.team(3.14e23))
    assert rules.team_headcount(1e27, "pretrain") == pytest.approx(H.team(1e27))
    assert rules.team_headcount(1e27, "pretrain") > 5 * rules.team_headcount(3.8e25, "pretrain")


def test_lora_of_70b_on_1b_tokens_no_longer_gets_a_751k_team():
    e = estimate(Scenario(params=70e9, tokens=1e9, training_kind="lora", gpus=8))
    c = e.cost_usd
    # Alpaca's 8 authors x 28.5% over its 0.46 months (at least the run): a small sourced team, not a share cap
    assert c["people"] == pytest.approx(
        H.team(0, "lora") * H.AI_LAB_USD_PER_YEAR / 12 * max(0.46, e.wall_days / H.DAYS_PER_MONTH), rel=1e-9)
    assert c["people"] < 751_000 / 10
    # a typed team is used as typed
    typed = estimate(Scenario(params=70e9, tokens=1e9, training_kind="lora", gpus=8, team_headcount=1.0))
    assert typed.cost_usd["people"] == pytest.approx(
        1.0 * H.AI_LAB_USD_PER_YEAR / 12 * max(0.46, typed.wall_days / H.DAYS_PER_MONTH), rel=1e-9)


def test_full_finetune_of_7b_on_1b_tokens():
    e = estimate(Scenario(params=7e9, tokens=1e9, training_kind="full_finetune", gpus=8))
    # was $751,592 of $751,724: now Alpaca's team over its 0.46 months
    assert e.cost_usd["people"] == pytest.approx(
        H.team(0, "full_finetune") * H.AI_LAB_USD_PER_YEAR / 12 * max(0.46, e.wall_days / H.DAYS_PER_MONTH), rel=1e-9)


def test_continual_pretraining_takes_meditrons_team():
    e = estimate(presets()["continual_34b"].scenario)
    months = max(4.3, e.wall_days / H.DAYS_PER_MONTH)
    assert e.cost_usd["people"] == pytest.approx(
        H.team(0, "continual_pretrain") * H.AI_LAB_USD_PER_YEAR / 12 * months, rel=1e-9)


def test_a_59000_year_run_does_not_pay_people_for_its_length():
    e = estimate(Scenario(params=1e14, tokens=1e15))
    assert e.wall_days / H.DAYS_PER_MONTH > 1e5
    assert e.project_months == H.MONTHS_MAX  # was 7e5 months
    # a typed project length is used as typed (never shorter than the run)
    assert estimate(Scenario(params=7e9, tokens=1e12, project_months=100.0)).project_months == 100.0


# ------------------------------------------------------------------ laws over the whole input space
@SETTINGS
@given(st.sampled_from(["pretrain", "continual_pretrain", "full_finetune", "lora"]), PARAMS, TOKENS, TOKENS,
       log_uniform(1, MAX_GPUS), st.sampled_from(["h100-sxm", "a100-80gb", "v100"]))
def test_default_people_cost_is_monotone_in_compute_and_bounded(kind, params, t1, t2, gpus, gpu):
    lo, hi = sorted((t1, t2))
    base = dict(params=params, training_kind=kind, gpus=int(gpus), gpu=gpu,
                precision="fp16" if gpu == "v100" else "bf16")
    a, b = estimate(Scenario(**base, tokens=lo)), estimate(Scenario(**base, tokens=hi))
    assert a.train_flop <= b.train_flop
    if math.isfinite(a.total_usd) and math.isfinite(b.total_usd):
        assert b.cost_usd["people"] >= a.cost_usd["people"] * (1 - 1e-9)
    # bounded: the run's team by hand for at most project_months_max, at an AI lab's pay
    bound = H.team(b.train_flop, kind) * H.AI_LAB_USD_PER_YEAR / 12 * H.MONTHS_MAX
    if b.feasible:
        assert b.cost_usd["people"] <= bound * (1 + 1e-9)
    else:  # a run that cannot happen prints no money (issue 25 item 4)
        assert math.isnan(b.cost_usd["people"])
    assert b.project_months <= H.MONTHS_MAX


@SETTINGS
@given(scenarios())
def test_default_team_of_an_adaptation_is_its_sourced_project(s):
    e = estimate(s)
    c = e.cost_usd
    if s.training_kind != "pretrain" and s.team_headcount is None and s.project_months is None and e.feasible:
        months = max(H.months(0, s.training_kind), e.wall_days / H.DAYS_PER_MONTH)
        pay = s.team_loaded_usd_per_year or e.fallbacks["team_loaded_usd_per_year"]
        assert c["people"] == pytest.approx(H.team(0, s.training_kind) * pay / 12 * min(months, H.MONTHS_MAX),
                                            rel=1e-9)


@SETTINGS
@given(scenarios())
def test_people_warning_appears_exactly_when_people_is_the_largest_dimension(s):
    e = estimate(s)
    c = e.cost_usd
    largest = math.isfinite(c["people"]) and c["people"] > 0 and all(
        math.isfinite(c[d]) and c["people"] >= c[d] for d in DIMENSIONS)
    ids = {w.id for w in e.warnings} & PEOPLE_IDS
    assert bool(ids) == largest, (c, ids)
    if ids:
        assert ids == {"people_largest_default" if s.team_headcount is None else "people_largest"}


@SETTINGS
@given(PARAMS, PARAMS)
def test_moe_default_active_parameters_grow_with_size_and_share_shrinks(p1, p2):
    lo, hi = sorted((p1, p2))
    a, b = Scenario(params=lo, architecture="moe"), Scenario(params=hi, architecture="moe")
    assert a.active_params_effective <= b.active_params_effective * (1 + 1e-12)
    assert a.active_fraction_effective >= b.active_fraction_effective * (1 - 1e-12)
    assert b.active_fraction_effective == pytest.approx(H.moe_share(hi), rel=1e-9)


# ------------------------------------------------------------------ MoE default: size-aware, and said
@pytest.mark.parametrize("params", [7e9, 70e9, 235e9, 671e9, 2e12])
def test_moe_default_share_follows_total_size(params):
    s = Scenario(params=params, architecture="moe")
    assert s.active_params_effective == pytest.approx(params * H.moe_share(params), rel=1e-9)


def test_70b_moe_gets_a_share_between_mixtral_and_scout_and_a_warning():
    s = Scenario(params=70e9, architecture="moe")
    # was 5.5% (3.9B active) whatever the size; 70B lies between Mixtral (46.7B, 28%) and Scout (109B, 16%)
    assert 17 / 109 < s.active_fraction_effective < 12.9 / 46.7
    e = estimate(s)
    assert "moe_active_defaulted" in {w.id for w in e.warnings}
    typed = estimate(Scenario(params=70e9, architecture="moe", active_params=14e9))
    assert "moe_active_defaulted" not in {w.id for w in typed.warnings}


def test_presets_keep_their_sourced_teams_and_active_parameters():
    # team_headcount typed in presets.csv (authors x 28.5%) stays; DeepSeek-V3 keeps its 37B active
    assert presets()["llama31_405b"].scenario.team_headcount == pytest.approx(554 * 0.285, abs=0.05)
    # GPT-3 and OPT-175B type their sourced project lengths (Cottier et al. 2024), not the fitted line
    assert (presets()["gpt3"].scenario.project_months, presets()["opt175b"].scenario.project_months) == (8.3, 6.3)
    assert presets()["deepseek_v3"].scenario.active_params_effective == 37e9
    assert "moe_active_defaulted" not in {w.id for w in estimate(presets()["deepseek_v3"].scenario).warnings}
