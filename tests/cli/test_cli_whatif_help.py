"""Issue 41: the CLI's ``--help`` shows examples (each one runs), a ``what-if`` subcommand computes what the app's
What-if tab does (through explorer.analysis.what_if, not the app), and ``what-if --lang zh`` writes its headings in
Chinese too. Bad input: exit code 2 and one line. The CLI runs as a subprocess, as a user runs it."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys

import pytest

from explorer import Scenario, estimate
from explorer.cli import EXAMPLES

from conftest import ROOT


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "explorer", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def test_help_shows_examples_for_the_program_and_its_commands():
    top = cli("--help")
    assert top.returncode == 0 and "examples:" in top.stdout and "what-if" in top.stdout
    for command in ("estimate", "what-if", "plan", "compare", "simulate"):
        out = cli(command, "--help").stdout
        assert "examples:" in out and f"python -m explorer {command} " in out, command


@pytest.mark.parametrize("line", sorted({line for lines in EXAMPLES.values() for line in lines}))
def test_every_help_example_runs(line):
    result = cli(*shlex.split(line))
    assert result.returncode == 0, (line, result.stderr)
    assert result.stdout.strip() and "Traceback" not in result.stderr


def test_what_if_is_the_grid_of_the_model_sorted_best_first():
    result = cli("what-if", "--vary", "pricing=on_demand,spot", "--vary", "precision=bf16,fp8", "--json")
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)["rows"]
    assert [(r["pricing"], r["precision"]) for r in rows][-1] == ("on_demand", "bf16")  # the dearest: neither lever
    for r in rows:  # each total is the one-scenario estimate of that combination (the scalar path, not the grid's)
        one = estimate(Scenario(pricing=r["pricing"], precision=r["precision"])).total_usd
        assert r["total_usd"] == pytest.approx(one, rel=1e-9)
    assert [r["total_usd"] for r in rows] == sorted(r["total_usd"] for r in rows)
    start = next(r for r in rows if (r["pricing"], r["precision"]) == ("on_demand", "bf16"))
    assert start["vs_start"] == pytest.approx(1.0)  # the defaults are on-demand BF16: the start itself


def test_what_if_text_in_english_and_in_chinese():
    en = cli("what-if", "--vary", "pricing=on_demand,spot", "--vary", "precision=bf16,fp8").stdout
    assert "4 combinations" in en and "Pricing" in en and "Wall-clock [days]" in en and "vs current" in en
    zh = cli("what-if", "--vary", "pricing=on_demand,spot", "--vary", "precision=bf16,fp8", "--lang", "zh").stdout
    head = zh.splitlines()[2]
    assert "计费方式" in head and "精度" in head and "总成本（整个项目）" in head and "训练时长 [天]" in head
    assert head.isascii() is False and not any(w in zh for w in ("Pricing", "Wall-clock", "combinations", "vs current"))


@pytest.mark.parametrize("args, words", [
    (["--vary", "pricing"], "vary: 'pricing' is not allowed"),
    (["--vary", "nope=1,2"], "levers: 'nope' is not allowed"),
    (["--vary", "pricing=spot", "--sort", "cheapest"], "invalid choice"),
    (["--vary", "pricing=" + ",".join(["spot"] * 60)], "vary:"),
])
def test_bad_input_is_one_line_and_exit_code_2(args, words):
    result = cli("what-if", *args)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and words in result.stderr, result.stderr


def test_bad_input_in_chinese():
    result = cli("what-if", "--vary", "pricing", "--lang", "zh")
    assert result.returncode == 2 and result.stderr.startswith("错误：")


#: The estimate table's row names and headings in English (``python -m explorer estimate``).
_ENGLISH_ROWS = ("train compute", "GPU-hours", "GPUs", "memory per GPU", "layout", "batch", "wall-clock", "energy",
                 "carbon", "whole project", "price basis", "cost (", "compute", "people", "hidden", "total",
                 "final run only", "tokens per GPU-hour", "USD per 1M tokens")


def test_estimate_in_chinese_names_its_rows_and_headings_in_chinese():
    zh = cli("estimate", "--lang", "zh")
    assert zh.returncode == 0
    starts = [line.strip() for line in zh.stdout.splitlines() if line.strip()]
    assert starts[0].startswith("场景：")
    left = [s for s in starts if s.startswith(_ENGLISH_ROWS)]
    assert left == [], left
    for words in ("训练算力", "训练时长", "成本（美元）", "金额", "占比", "人才", "总计", "仅正式训练", "警告"):
        assert words in zh.stdout, words
    en = cli("estimate").stdout  # English as before
    assert "  train compute        " in en and "  cost (USD)" in en and "Scenario: " in en
