"""The Models tab (issue 27): every published run and Epoch frontier model, searchable, sortable, loadable.

Expected values come from the data files and the papers, not from the code under test: GPT-3's disclosed
3.552M V100-hours (Patterson et al. 2021, published_runs.csv), Epoch's 82 frontier models, DeepSeek-V3's 671B
total parameters on 2,048 H800s (DeepSeek-AI 2024).
"""

from __future__ import annotations

import csv
import math
from importlib import resources

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.analysis.runs import models_table, run_scenario
from explorer.app.tabs.models import SORT_COLUMNS, filter_sort
from strategies import examples
from explorer.errors import ScenarioError

_MODELS = 9  # index of the Models tab (explorer_app.TAB_KEYS)


def _rows(name: str) -> list[dict]:
    with resources.files("explorer.data").joinpath(name).open(encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_every_published_run_and_every_epoch_model_is_a_row():
    table = models_table()
    published, epoch = _rows("published_runs.csv"), _rows("epoch_frontier.csv")
    assert len(epoch) == 82  # Epoch AI's frontier set (Cottier et al. 2024)
    assert len(table) == len(published) + len(epoch)
    assert set(table[table.source == "published"].model) == {r["model"] for r in published}
    assert set(table[table.source == "epoch"].id) == {r["id"] for r in epoch}


def test_gpt3_reported_hours_beside_the_replay_and_its_error():
    row = models_table().set_index("id").loc["run:GPT-3 175B (davinci)"]
    assert row.reported_gpu_hours == 3_552_000  # Patterson et al. 2021: 14.8 days on 10,000 V100s
    assert row.replay_gpu_hours > 0
    assert row.gpu_hours_error == pytest.approx(row.replay_gpu_hours / 3_552_000 - 1)
    assert abs(row.gpu_hours_error) < 0.78  # the backtest's bound: |log10| <= 0.25 (tests/model/test_backtest.py)


def test_epoch_tokens_are_derived_from_compute_and_marked():
    row = models_table().set_index("id").loc["epochf_llama_3_1_405b"]
    # C / (6 N): 3.8e25 FLOP / (6 x 405B) = 15.6T, Meta's reported 15.6T tokens (Llama Team 2024)
    assert row.tokens_derived and row.tokens == pytest.approx(row.compute_flop / (6 * row.params))
    assert row.tokens == pytest.approx(15.6e12, rel=0.02)
    assert math.isfinite(row.epoch_cloud_usd) and math.isfinite(row.epoch_amortized_usd)


def test_rows_that_cannot_be_replayed_say_what_is_missing():
    table = models_table().set_index("id")
    assert table.loc["run:GPT-4", "missing"] == "params, tokens, gpu"  # speculative hardware, no size disclosed
    with pytest.raises(ScenarioError) as exc:
        run_scenario("run:GPT-4")
    assert exc.value.field == "model_row" and "missing" in str(exc.value)
    with pytest.raises(ScenarioError, match=r"^model_row: 'no such row' is not allowed; allowed: a row id of the "
                       r"Models table, such as 'run:"):  # once "one of t, h, e, ...": a string taken for a list
        run_scenario("no such row")


def test_search_and_sort():
    table = models_table()
    llama = filter_sort(table, "LLAMA", "params", True)
    assert len(llama) >= 6 and all("llama" in m.lower() for m in llama.model)
    assert list(llama.params.dropna()) == sorted(llama.params.dropna(), reverse=True)
    meta = filter_sort(table, "meta", "date", False)
    assert len(meta) >= 3
    by_error = filter_sort(table, "", "gpu_hours_error", True)
    errors = by_error.gpu_hours_error.dropna().abs().tolist()
    assert errors == sorted(errors, reverse=True)  # largest miss first
    assert by_error.gpu_hours_error.isna().sum() == table.gpu_hours_error.isna().sum()  # unknowns last, all kept
    assert filter_sort(table, "", "not a column", True).index.tolist() == filter_sort(table, "", "evidence", True).index.tolist()


def test_tab_is_built_when_opened_and_loads_a_row_in_one_click(make_app):
    app = make_app()
    view = app.models_view
    assert not view.built and view.widget.children == ()
    app.tabs.selected_index = _MODELS
    assert view.built and len(view.table.rows) == len(models_table())
    view.search.value = "DeepSeek"
    assert [r["cells"][0] for r in view.table.rows] == ["DeepSeek-V3"]
    view.table.picked = ["run:DeepSeek-V3", 1]  # what the row's button sends
    assert app.scenario.params == 671e9 and app.scenario.gpu == "h800" and app.scenario.gpus == 2048
    assert app.scenario.architecture == "moe"
    assert app._tab_key() == "breakdown" and app.error == ""


def test_a_row_without_enough_fields_says_what_is_missing_and_changes_nothing(make_app):
    app = make_app()
    app.tabs.selected_index = _MODELS
    before = app.scenario
    view = app.models_view
    missing = next(r for r in view.table.rows if r["id"] == "run:GPT-4")["missing"]
    assert "parameters" in missing and "tokens" in missing
    view.table.picked = ["run:GPT-4", 2]
    assert app.scenario == before and "GPT-4" in view.message.value and "parameters" in view.message.value
    for junk in (None, 3, ["no such row", 1], [[1, 2]], "x" * 10_000):  # a page may send anything
        view.table.picked = junk
        assert app.scenario == before and app.error == ""


def test_chinese_labels(make_app):
    app = make_app(query_string="lang=zh")
    app.tabs.selected_index = _MODELS
    view = app.models_view
    assert view.table.columns[0] == "模型" and view.table.load_label == "载入"
    assert app.tabs.titles[_MODELS] == "模型对照"
    assert "缺少" in next(r for r in view.table.rows if r["id"] == "run:GPT-4")["missing"]


@settings(max_examples=examples(100), deadline=None)
@given(text=st.text(max_size=120), column=st.sampled_from([*SORT_COLUMNS, "evil"]), descending=st.booleans())
def test_any_search_keeps_only_matching_rows_and_every_one_of_them(text, column, descending):
    table = models_table()
    shown = filter_sort(table, text, column, descending)
    needle = text.strip().lower()[:80]
    hay = (table.model + " " + table.organization.fillna("") + " " + table.hardware.fillna("")).str.lower()
    assert sorted(shown.index) == sorted(table.index[hay.str.contains(needle, regex=False)])


def test_each_replay_is_the_estimate_of_its_scenario():
    from explorer import estimate

    table = models_table()
    for _, row in table[table.missing == ""].iterrows():
        assert estimate(run_scenario(row.id)).gpu_hours == pytest.approx(row.replay_gpu_hours)


def test_default_sort_puts_the_rows_with_a_replay_error_first(make_app):
    """Issue 41: sorted by date, the newest frontier models (nothing reported, nothing replayed) came first. The rule
    (models_view.DEFAULT_SORT): replay error known, then a reported cost beside a replay, then a replay or any
    reported figure, then nothing; the newest first within each."""
    table = models_table()
    n = int(table.gpu_hours_error.notna().sum())
    assert n >= 9
    # the tab opens with every row whose replay error is known first, the error column filled
    app = make_app()
    app.tabs.selected_index = _MODELS
    view = app.models_view
    assert all(r["cells"][4].endswith("%") for r in view.table.rows[:n]), [r["cells"][:5] for r in view.table.rows[:3]]
    from explorer.app.tabs.models import DEFAULT_SORT, evidence_rank

    assert view.sort.value == DEFAULT_SORT
    rows = filter_sort(table, "", DEFAULT_SORT, True)
    known = rows.gpu_hours_error.notna().tolist()
    assert known == [True] * n + [False] * (len(rows) - n)  # every row with an error, before any other
    first = rows.head(n)
    assert first.date.tolist() == sorted(first.date, reverse=True)  # newest first among them
    # by hand from the rows' facts: DeepSeek-V3 reports 2.788M H800-hours and is replayed (rank 0); a row with no
    # reported figure and no replay is ranked 3 and comes after every row that has one
    by_id = dict(zip(table.id, evidence_rank(table)))
    assert by_id["run:DeepSeek-V3"] == 0
    nothing = table[table.replay_gpu_hours.isna() & table.replay_run_usd.isna() & table.reported_gpu_hours.isna()
                    & table.reported_cost_usd.isna()]
    assert len(nothing) and all(by_id[i] == 3 for i in nothing.id)
    assert set(rows.id.tail(len(nothing))) == set(nothing.id)
    # ascending is the reverse order of ranks
    assert evidence_rank(filter_sort(table, "", DEFAULT_SORT, False)).is_monotonic_decreasing
