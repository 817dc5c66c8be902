"""A run that cannot happen prints no money (issue 25 item 4): the reason and the nearest feasible alternative
instead, exit code 0 (a valid question, answered), and null for every money figure in ``--json``."""

from __future__ import annotations

import json
import re

import pytest

from conftest import run_cli

from explorer.catalog import default

#: 1e14 parameters on 1e15 tokens: one sequence's activations alone exceed an H100 even split 8 ways (it fits
#: on no cluster), and 6 x 1e14 x 1e15 = 6e29 FLOP at 989.5 TFLOP/s x 0.38 would take 4.4e11 GPU-hours, about
#: 500 years even on 100,000 GPUs.
HUGE = ("estimate", "--params", "1e14", "--tokens", "1e15")
#: Llama 3.1 405B's run in 3 days: at least 6 x 405e9 x 15.6e12 / (989.5e12 x 0.38 x 3600) = 28.0M GPU-hours,
#: 11.7 days on 100,000 GPUs even at perfect goodput.
LLAMA_3_DAYS = ("estimate", "--params", "405e9", "--tokens", "15.6e12", "--days", "3")
#: Money figures of the JSON output.
MONEY = ("final_run_usd", "usd_per_1m_tokens", "usd_per_pflop_day")


def _run(*args):
    proc = run_cli(*args)
    assert proc.returncode == 0, proc.stderr  # a valid but infeasible question is answered, not refused
    assert "Traceback" not in proc.stderr
    return proc.stdout


def _money_lines(text: str) -> list[str]:
    """Lines of the cost table that show an amount."""
    names = ("compute", "energy", "data", "people", "hardware", "hidden", "total", "final run only",
             "experiments", "failures+restarts", "other losses", "storage", "USD per 1M tokens", "USD per PFLOP-day")
    return [line for line in text.splitlines()  # (the energy line in MWh is not money)
            if re.match(r"\s+(" + "|".join(map(re.escape, names)) + r")\s+[\d.,]+", line) and "MWh" not in line]


@pytest.mark.parametrize("args, why", [(HUGE, "fits on no cluster"), (LLAMA_3_DAYS, "misses its deadline")])
def test_text_prints_the_reason_and_no_money(args, why):
    out = _run(*args)
    assert "INFEASIBLE" in out and why in out, out
    assert not _money_lines(out), _money_lines(out)
    assert "1,000,000,000,000" not in out  # never the deadline solve's numerical bound


@pytest.mark.parametrize("args", [HUGE, LLAMA_3_DAYS])
def test_json_has_null_money(args):
    d = json.loads(_run(*args, "--json"))
    assert d["feasible"] is False and d["infeasible_reason"]
    assert all(v is None for v in d["cost"].values()), d["cost"]
    assert all(d[k] is None for k in MONEY), {k: d[k] for k in MONEY}
    assert all(v is None for v in d["hidden_parts"].values())
    assert d["gpus"] <= default("max_gpus") or d["infeasible_reason"] == "no_fit"


def test_deadline_names_the_nearest_feasible_alternative():
    d = json.loads(_run(*LLAMA_3_DAYS, "--json"))
    assert d["infeasible_reason"] == "deadline"
    alt = d["alternative"]
    assert alt["gpus"] == default("max_gpus")
    # at least the failure-free time on the largest cluster (hand: 11.7 days), and beyond the deadline
    floor_days = 6 * 405e9 * 15.6e12 / (989.5e12 * 0.38 * 3600) / (24 * default("max_gpus"))
    assert alt["wall_days"] >= floor_days > 3
    assert d["gpus"] == alt["gpus"] and d["wall_days"] == pytest.approx(alt["wall_days"])
    out = _run(*LLAMA_3_DAYS)
    assert f"nearest feasible: {default('max_gpus'):,.0f} GPUs" in out


def test_a_run_longer_than_five_years_is_infeasible():
    # 70B on 15T tokens on 32 H100: 6 x 70e9 x 15e12 / (989.5e12 x 0.38 x 3600) = 4.65M GPU-hours = 16.6 years
    # (8 GPUs, the former case, are now below the memory floor: "no_fit" first, issue 38)
    d = json.loads(_run("estimate", "--params", "70e9", "--tokens", "15e12", "--gpus", "32", "--json"))
    assert d["feasible"] is False and d["infeasible_reason"] == "too_long"
    assert d["wall_days"] > default("max_run_years") * 365.25
    assert d["cost"]["total"] is None
    # the nearest feasible alternative is the fewest GPUs that end within 5 years (issue 38: it was always the
    # largest cluster): at least 4.65M GPU-hours / (5 x 365.25 x 24 h) = 106, far fewer than 100,000
    assert 106 <= d["alternative"]["gpus"] < 200
    assert d["alternative"]["wall_days"] <= default("max_run_years") * 365.25
    assert any("years" in w for w in d["warnings"])


def test_a_feasible_run_keeps_its_money():
    d = json.loads(_run("estimate", "--params", "7e9", "--tokens", "1e12", "--json"))
    assert d["feasible"] is True and d["infeasible_reason"] is None and d["alternative"] is None
    assert d["cost"]["total"] > 0
