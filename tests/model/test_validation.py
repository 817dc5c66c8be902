"""Bad input: a ScenarioError (a ValueError) naming the field, in the library and the CLI."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from explorer import Scenario, ScenarioError

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


# ---------------------------------------------------------------- CLI
def _cli(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "explorer", *args], capture_output=True, text=True, timeout=60, cwd=cwd
    )


def _assert_one_line_error(proc, field):
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    assert field in lines[0], (field, lines[0])
    assert proc.stdout == ""


BASE_ARGS = ["estimate", "--params", "7e9", "--tokens", "1e12"]


@pytest.mark.parametrize(
    "args, field",
    [
        (["--params=-1"], "params"),
        (["--params", "nan"], "params"),
        (["--tokens", "0"], "tokens"),
        (["--tokens=-1e9"], "tokens"),
        (["--gpus", "nan"], "gpus"),
        (["--gpus=-4"], "gpus"),
        (["--mfu", "0"], "mfu"),
        (["--params", "lots"], "params"),
        (["--active-params", "8e9"], "active_params"),
        (["--gpu", "h900"], "gpu"),
        (["--region", "atlantis"], "region"),
        (["--gpu", "a100-80gb", "--precision", "fp8"], "precision"),
        (["--gpus", "64", "--days", "30"], "--days"),
        (["--experiments", "0.5"], "experiments"),
    ],
)
def test_cli_bad_option_exits_2_with_one_line(args, field):
    _assert_one_line_error(_cli(*BASE_ARGS, *args), field)


@pytest.mark.parametrize(
    "content, field",
    [
        ("{not json", "scenario"),
        ("[1, 2, 3]", "scenario"),
        (json.dumps({**GOOD, "parameters": 7e9}), "parameters"),
        (json.dumps({**GOOD, "deadline_days": 30.0}), "gpus"),  # both gpus and deadline
        (json.dumps({**GOOD, "tokens": 0}), "tokens"),
    ],
)
def test_cli_bad_scenario_file_exits_2_with_one_line(tmp_path, content, field):
    path = tmp_path / "scenario.json"
    path.write_text(content, encoding="utf-8")
    _assert_one_line_error(_cli("estimate", "--scenario", str(path)), field)


def test_cli_missing_scenario_file(tmp_path):
    _assert_one_line_error(_cli("estimate", "--scenario", str(tmp_path / "nope.json")), "scenario")


def test_cli_scenario_file_not_utf8(tmp_path):
    path = tmp_path / "scenario.json"
    path.write_bytes(b"\xff\xfe{\x00")  # e.g. a UTF-16 file or binary junk
    _assert_one_line_error(_cli("estimate", "--scenario", str(path)), "scenario")


# --- hostile scenario text (hosting review): one clear error, never a traceback or a huge message ---------------

HOSTILE_JSON = {
    "400-digit integer": '{"params": 1' + "0" * 400 + "}",
    "5,000-digit integer": '{"params": 1' + "0" * 5000 + "}",
    "100,000 nested lists": "[" * 100_000 + "]" * 100_000,
    "40,000 nested lists": "[" * 40_000 + "]" * 40_000,
    "2 MB of text": '{"gpu": "' + "x" * 2_000_000 + '"}',
}


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


@pytest.mark.parametrize("name", ["400-digit integer", "5,000-digit integer", "100,000 nested lists"])
def test_cli_hostile_scenario_file_exits_2_with_one_line(tmp_path, name):
    path = tmp_path / "scenario.json"
    path.write_text(HOSTILE_JSON[name])
    proc = subprocess.run([sys.executable, "-m", "explorer", "estimate", "--scenario", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("error: ")
    assert "Traceback" not in proc.stderr and proc.stdout == ""
