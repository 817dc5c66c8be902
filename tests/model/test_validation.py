"""Bad input: a ScenarioError (a ValueError) naming the field, in the library and the CLI."""

from __future__ import annotations

import json
import math

import pytest

from explorer import Scenario, ScenarioError, estimate
from explorer.analysis import budget_status, simulate
from explorer.app.pages.estimate_html import error_text

from strategies import HOSTILE_JSON


GOOD = dict(params=7e9, tokens=1e12, gpu="h100-sxm", gpus=64)


def test_scenario_error_is_a_value_error():
    assert issubclass(ScenarioError, ValueError)


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"params": -1.0}, "params"),
        ({"params": math.nan}, "params"),
        ({"params": math.inf}, "params"),
        ({"tokens": 0.0}, "tokens"),
        ({"tokens": -5e9}, "tokens"),
        ({"tokens": math.nan}, "tokens"),
        ({"mfu": 0.0}, "mfu"),
        ({"mfu": 1.5}, "mfu"),
        ({"mfu": math.nan}, "mfu"),
        ({"gpus": 0}, "gpus"),
        ({"gpus": -8}, "gpus"),
        ({"gpus": 2.5}, "gpus"),
        ({"gpus": math.nan}, "gpus"),
        ({"gpus": None, "deadline_days": -1.0}, "deadline_days"),
        ({"gpus": None, "deadline_days": 0.0}, "deadline_days"),
        ({"failure_rate_per_gpu_hour": -1e-5}, "failure_rate_per_gpu_hour"),
        ({"rate_usd_per_gpu_hour": -2.0}, "rate_usd_per_gpu_hour"),
        ({"rate_usd_per_gpu_hour": math.nan}, "rate_usd_per_gpu_hour"),
        ({"pue": 0.9}, "pue"),
        ({"experiments_multiplier": 0.5}, "experiments_multiplier"),
        ({"team_headcount": -1.0}, "team_headcount"),
        ({"usd_to_cny": 0.0}, "usd_to_cny"),
        ({"architecture": "moe", "active_params": 8e9}, "active_params"),  # active > total
        ({"active_params": 8e9}, "active_params"),  # active > total, dense
        ({"architecture": "moe", "experts": 8, "top_k": 9}, "top_k"),
        ({"gpu": "h900"}, "gpu"),
        ({"gpu": ""}, "gpu"),
        ({"region": "atlantis"}, "region"),
        ({"gpu": "a100-80gb", "precision": "fp8"}, "precision"),  # A100 has no FP8
        ({"gpu": "v100", "precision": "bf16"}, "precision"),
        ({"precision": "int4"}, "precision"),
        ({"pricing": "free"}, "pricing"),
        ({"currency": "EUR"}, "currency"),
        ({"gpus": 64, "deadline_days": 30.0}, "gpus"),  # both
        ({"gpus": None, "deadline_days": None}, "gpus"),  # neither
        ({"n_layers": 32}, "n_layers"),  # attention fields without the others
        ({"params": "lots"}, "params"),
    ],
)
def test_bad_field_raises_scenario_error_naming_it(changes, field):
    with pytest.raises(ScenarioError) as info:
        Scenario(**{**GOOD, **changes})
    assert info.value.field == field
    assert str(info.value).startswith(f"{field}:")
    assert isinstance(info.value, ValueError)


def test_boolean_is_not_a_number():
    # JSON true is not a GPU count; it must not silently become 1 GPU.
    with pytest.raises(ScenarioError) as info:
        Scenario.from_dict({**GOOD, "gpus": True})
    assert info.value.field == "gpus"


def test_replace_validates():
    s = Scenario(**GOOD)
    with pytest.raises(ScenarioError) as info:
        s.replace(tokens=0.0)
    assert info.value.field == "tokens"


@pytest.mark.parametrize("text", ["{", "not json", "[1, 2]", '"params"', "{'params': 1e9}"])
def test_malformed_json(text):
    with pytest.raises(ScenarioError) as info:
        Scenario.from_json(text)
    assert info.value.field == "scenario"


def test_unknown_key_is_named():
    with pytest.raises(ScenarioError) as info:
        Scenario.from_json(json.dumps({**GOOD, "parameters": 7e9}))
    assert info.value.field == "parameters"


def test_bad_value_in_json_is_named():
    with pytest.raises(ScenarioError) as info:
        Scenario.from_json(json.dumps({**GOOD, "tokens": -1}))
    assert info.value.field == "tokens"
    with pytest.raises(ScenarioError) as info:
        Scenario.from_json('{"params": NaN}')
    assert info.value.field == "params"


# --- hostile scenario text (hosting review): one clear error, never a traceback or a huge message ---------------

@pytest.mark.parametrize("name", HOSTILE_JSON)
def test_hostile_json_ends_in_one_short_scenario_error(name):
    with pytest.raises(ScenarioError) as info:
        Scenario.from_json(HOSTILE_JSON[name])
    message = str(info.value)
    assert len(message) < 400 and "\n" not in message
    assert info.value.field in ("scenario", "params")


def test_error_message_shortens_a_huge_value_and_escapes_newlines():
    with pytest.raises(ScenarioError) as info:
        Scenario(**{**GOOD, "gpu": "line\nbreak" * 2_000_000})  # 20 MB
    message = str(info.value)
    assert message.startswith("gpu: 'line\\nbreak")
    assert "20,000,000 characters" in message and len(message) < 600 and "\n" not in message


@pytest.mark.parametrize("seed", [-1, 1.5, "x", True])
def test_simulate_refuses_a_bad_seed_with_a_scenario_error(seed):
    with pytest.raises(ScenarioError) as info:
        simulate(Scenario(gpus=512), n=10, seed=seed)
    assert info.value.field == "seed" and "None" in info.value.allowed


def test_budget_true_is_not_one_dollar():
    with pytest.raises(ScenarioError) as info:
        budget_status(Scenario(gpus=512), budget_usd=True)
    assert info.value.field == "budget_usd"


def test_unknown_facility_is_a_scenario_error():
    with pytest.raises(ScenarioError, match="facility"):
        Scenario(facility="igloo")


def test_recovery_choice_is_validated_and_storage_keeps_the_old_behaviour():
    with pytest.raises(ScenarioError, match="recovery"):
        Scenario(recovery="prayer")
    storage = estimate(Scenario(params=1e12, tokens=20e12, gpus=100_000, recovery="storage"))
    assert storage.goodput < 0.85  # 10-minute restarts every 30 minutes (Llama 3's storage recovery)


@pytest.mark.parametrize("field, value", [("owned_utilization", -0.5), ("financing_rate", 5.0),
                                          ("pricing", "bogus_basis")])
def test_bad_money_input_is_one_clear_error_in_both_languages(field, value):
    with pytest.raises(ScenarioError) as info:
        Scenario(**{field: value})
    assert info.value.field == field
    assert field in str(info.value) and str(value) in str(info.value)
    zh = error_text(info.value, "zh")
    assert any("\u4e00" <= ch <= "\u9fff" for ch in zh), zh
