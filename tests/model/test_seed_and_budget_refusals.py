"""Issue 20, minor items: bad seeds and budgets are refused in the project's one error form."""

from __future__ import annotations

import pytest

from explorer import Scenario, ScenarioError
from explorer.analysis import budget_status, simulate
from explorer.cli import main


@pytest.mark.parametrize("seed", [-1, 1.5, "x", True])
def test_simulate_refuses_a_bad_seed_with_a_scenario_error(seed):
    with pytest.raises(ScenarioError) as info:
        simulate(Scenario(gpus=512), n=10, seed=seed)
    assert info.value.field == "seed" and "None" in info.value.allowed


def test_budget_true_is_not_one_dollar():
    with pytest.raises(ScenarioError) as info:
        budget_status(Scenario(gpus=512), budget_usd=True)
    assert info.value.field == "budget_usd"


def test_cli_simulate_negative_seed_exits_2_without_traceback(capsys):
    assert main(["simulate", "--seed", "-1", "--n", "10"]) == 2
    err = capsys.readouterr().err
    assert "seed" in err and "Traceback" not in err
