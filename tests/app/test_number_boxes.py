"""Readable number boxes (7B, 1.5T, 250k), the values in use shown in blank boxes, and the budget box.

Headless: the app is built with ``make_app()`` (tests/conftest.py) and driven from
Python. Expected values come from the sources (explorer/data/defaults.csv) or
from hand calculation, never from the model's own formula.
"""

from __future__ import annotations

import pytest

from explorer.app.typed_input import parse_budget

FINEWEB_USD, FINEWEB_TOKENS = 500_000.0, 15e12  # FineWeb: ~half a million USD of GPU compute for 15T tokens
LLAMA_AUTHORS, FTE_PER_CONTRIBUTOR = 14, 0.20  # LLaMA paper's author list; Cottier et al. 2024 section 2.5.1


def test_default_app_shows_data_share_so_the_30_40_percent_claim_can_be_tested(app):
    e = app.estimate
    share = e.cost_usd["data"] / e.total_usd
    assert 0 < share < 0.3  # open web text at FineWeb's cleaning cost: far below the articles' 30-40%
    assert share == pytest.approx(33_300 / e.total_usd)  # data by hand: 1T tokens x $0.0333 per 1M
    assert f"Data is {share * 100:.1f}% of this total" in app.summary.value


# ------------------------------------------------------------------ item 9: readable number boxes
def test_boxes_show_readable_values_inside_the_box(make_app):
    a = make_app()
    assert a.controls["params"].value == 7e9  # the public API: value is a number
    assert a.controls["params"].get_state()["value"] == "7B"  # what the browser shows
    assert a.controls["tokens"].get_state()["value"] == "1T"
    a.controls["params"].value = 70e9  # still works from Python
    assert a.scenario.params == 70e9 and a.controls["params"].get_state()["value"] == "70B"
    a.controls["tokens"].value = 300e9
    assert a.controls["tokens"].get_state()["value"] == "300B"
    assert a.controls["gpus"].get_state()["value"] == "1,024"
    assert a.controls["data_usd_per_1m_tokens"].get_state()["value"] == "0.0333"


@pytest.mark.parametrize("typed, expected", [("7B", 7e9), ("70e9", 70e9), ("1.5T", 1.5e12),
                                             ("405000000000", 405e9), ("405,000,000,000", 405e9)])
def test_typed_text_in_the_browser_is_read_as_a_number(make_app, typed, expected):
    a = make_app()
    box = a.controls["params"]
    box.set_state({"value": typed})  # what a browser edit sends
    assert box.value == expected and a.scenario.params == expected
    assert a.rows["params"].message.value == ""
    assert a.rows["params"].widget.value == pytest.approx(expected, rel=1e-9)  # the log slider follows


def test_optional_boxes_take_readable_numbers_too(make_app):
    a = make_app()
    # the value in use, readable: an AI lab's loaded pay (Cottier et al. 2024), the default pay basis
    assert a.controls["team_loaded_usd_per_year"].placeholder.endswith("444,000")  # the means of its distributions
    a.controls["team_pay_basis"].value = "industry"
    assert a.controls["team_loaded_usd_per_year"].placeholder.endswith("189,000")  # BLS
    a.controls["team_loaded_usd_per_year"].value = "250k"
    assert a.scenario.team_loaded_usd_per_year == 250_000
    a.controls["team_headcount"].set_state({"value": "12"})
    assert a.scenario.team_headcount == 12


# ------------------------------------------------------------------ the budget box


TABS = {"breakdown": 0, "waterfall": 1, "history": 2, "compare": 3, "uncertainty": 4, "assumptions": 5, "share": 6}


def test_budget_box_accepts_10M(app):
    assert parse_budget("10M") == 10e6
    app.tabs.selected_index = TABS["uncertainty"]
    app.analysis.uncertainty.budget_box.value = "10M"
    assert app.analysis.uncertainty.budget_message.value == "" and app.analysis.uncertainty.budget_usd == pytest.approx(10e6)
