"""The CLI's bad-input rule: one line naming the field on stderr, exit code 2, never a traceback."""

from __future__ import annotations

import json

import pytest

from conftest import run_cli
from strategies import HOSTILE_JSON

from explorer.cli import main


def test_cli_simulate_negative_seed_exits_2_without_traceback(capsys):
    assert main(["simulate", "--seed", "-1", "--n", "10"]) == 2
    err = capsys.readouterr().err
    assert "seed" in err and "Traceback" not in err


def test_cli_refuses_bad_money_input_with_exit_code_2():
    r = run_cli("estimate", "--pricing", "owned", "--financing-rate", "5")
    assert r.returncode == 2
    assert r.stderr.startswith("error: financing_rate") and "Traceback" not in r.stderr


GOOD = dict(params=7e9, tokens=1e12, gpu="h100-sxm", gpus=64)


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
    _assert_one_line_error(run_cli(*BASE_ARGS, *args), field)


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
    _assert_one_line_error(run_cli("estimate", "--scenario", str(path)), field)


def test_cli_missing_scenario_file(tmp_path):
    _assert_one_line_error(run_cli("estimate", "--scenario", str(tmp_path / "nope.json")), "scenario")


def test_cli_scenario_file_not_utf8(tmp_path):
    path = tmp_path / "scenario.json"
    path.write_bytes(b"\xff\xfe{\x00")  # e.g. a UTF-16 file or binary junk
    _assert_one_line_error(run_cli("estimate", "--scenario", str(path)), "scenario")


@pytest.mark.parametrize("name", ["400-digit integer", "5,000-digit integer", "100,000 nested lists"])
def test_cli_hostile_scenario_file_exits_2_with_one_line(tmp_path, name):
    path = tmp_path / "scenario.json"
    path.write_text(HOSTILE_JSON[name])
    proc = run_cli("estimate", "--scenario", str(path))
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("error: ")
    assert "Traceback" not in proc.stderr and proc.stdout == ""


@pytest.mark.parametrize("args", [
    ("simulate", "--n", "-5"),
    ("simulate", "--tokens", "abc"),
    ("simulate", "--params", "-1"),
    ("compare", "--scenario", "/nonexistent.json"),
    ("attribute", "--target", "/nonexistent.json"),
    ("simulate", "--n", "2.5"),
    ("compare", "--name", "x", "--name", "y"),
    ("attribute", "--scenario", "/nonexistent.json", "--target", "/nonexistent.json"),
    ("simulate", "--gpu", "no-such-gpu"),
])
def test_cli_bad_input_is_one_line_exit_2(args):
    p = run_cli(*args)
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert "Traceback" not in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1
