"""Tests of the historical cost curve: data, trend fit, claims check, figure."""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import matplotlib

matplotlib.use("Agg")

from explorer import history  # noqa: E402
from explorer.errors import ScenarioError  # noqa: E402
from strategies import examples  # noqa: E402


# -- data -------------------------------------------------------------------

def test_every_row_has_source_method_scope_and_date():
    df = history.load_history()
    assert len(df) >= 20
    assert df["id"].is_unique
    for col in ("source", "date_source", "estimate"):
        assert df[col].astype(str).str.strip().str.len().gt(0).all(), col
    assert set(df["method"]) <= set(history.METHODS)
    assert set(df["method"]) == set(history.METHODS)  # all three methods present, kept apart
    assert set(df["scope"]) <= set(history.SCOPES)
    assert df["cost_usd"].gt(0).all()
    assert df["date"].str.fullmatch(r"\d{4}-\d{2}").all()
    assert df["dollar_year"].isin(list(history.PPI_PCU518210518210)).all()


def test_methods_differ_for_the_same_run():
    """The reason the methods are kept apart: same run, different cost."""
    df = history.load_history().set_index("id")["cost_usd"]
    # Epoch AI's two estimates of Gemini 1.0 Ultra (epoch_frontier.csv): $198.9M cloud, $28.3M amortized
    assert 3 <= df["epochf_gemini_1_0_ultra_cloud"] / df["epochf_gemini_1_0_ultra"] <= 20


def test_known_publication_months():
    df = history.load_history().set_index("id")
    assert df.loc["aiindex_gpt3", "date"] == "2020-05"
    assert df.loc["aiindex_bert_large", "date"] == "2018-10"


def test_decimal_year_and_deflator():
    assert history.decimal_year("2020-01") == pytest.approx(2020 + 0.5 / 12)
    assert history.decimal_year("2020-12") < 2021
    assert history.deflator("2024-12") == 1.0
    # Epoch's 2024-12 USD re-run of GPT-4 (cloud) vs the AI Index 2024 value:
    # only inflation differs, so the deflator must reproduce the ratio.
    assert 78_352_034 * history.deflator("2023-12") == pytest.approx(78_562_017, rel=2e-4)
    with pytest.raises(ScenarioError, match=r"dollar_year: '1999-01' is not allowed"):
        history.deflator("1999-01")


def test_data_is_read_from_the_package_not_shared(monkeypatch):
    import builtins

    real_open = builtins.open

    def guarded(path, *a, **k):
        assert "/work/shared" not in str(path)
        return real_open(path, *a, **k)

    monkeypatch.setattr(builtins, "open", guarded)
    history.trend.history_table.cache_clear()
    history.trend.claims_table.cache_clear()
    assert len(history.load_history()) > 0
    assert len(history.load_claims()) > 0


# -- fitting ------------------------------------------------------------------

def test_synthetic_recovery_of_known_growth():
    rng = np.random.default_rng(1)
    growth = 3.0
    years = np.linspace(2015, 2025, 40)
    cost = 1e5 * growth ** (years - 2015) * 10 ** rng.normal(0, 0.15, years.size)
    fit = history.fit_log_linear(years, cost, n_boot=1000)
    assert fit.growth_per_year == pytest.approx(growth, rel=0.08)
    lo, hi = fit.growth_ci
    assert lo < growth < hi
    assert fit.doubling_months == pytest.approx(12 * math.log(2) / math.log(growth), rel=0.1)
    # crossing of $1B: 1e5 * 3**(t-2015) = 1e9  ->  t = 2015 + 4/log10(3)
    assert fit.crossing(1e9).year == pytest.approx(2015 + 4 / math.log10(3), abs=0.3)


@settings(max_examples=examples(30), deadline=None)
@given(
    growth=st.floats(1.2, 8.0),
    start_cost=st.floats(1e2, 1e8),
    n=st.integers(5, 30),
)
def test_exact_data_is_fitted_exactly(growth, start_cost, n):
    years = np.linspace(2010, 2024, n)
    cost = start_cost * growth ** (years - 2010)
    fit = history.fit_log_linear(years, cost, n_boot=200)
    assert fit.growth_per_year == pytest.approx(growth, rel=1e-6)
    lo, hi = fit.growth_ci
    assert lo == pytest.approx(growth, rel=1e-6) and hi == pytest.approx(growth, rel=1e-6)
    np.testing.assert_allclose(fit.predict_cost_usd(years), cost, rtol=1e-6)
    # crossings are ordered with the level
    ys = [c.year for c in fit.crossings]
    assert ys == sorted(ys)


@settings(max_examples=examples(20), deadline=None)
@given(seed=st.integers(0, 10_000), noise=st.floats(0.05, 0.6))
def test_interval_contains_estimate_and_crossings_ordered(seed, noise):
    rng = np.random.default_rng(seed)
    years = rng.uniform(2016, 2025, 15)
    cost = 1e6 * 2.4 ** (years - 2016) * 10 ** rng.normal(0, noise, years.size)
    fit = history.fit_log_linear(years, cost, n_boot=400, seed=seed)
    lo, hi = fit.growth_ci
    assert lo <= hi
    for c in fit.crossings:
        assert c.lo <= c.hi
    blo, bhi = fit.band_cost_usd([2020.0])
    assert blo[0] <= fit.predict_cost_usd(2020.0) <= bhi[0]


def test_fit_rejects_bad_input():
    with pytest.raises(ScenarioError, match=r"points: 2 is not allowed; allowed: at least 3 distinct dates"):
        history.fit_log_linear([2020, 2021], [1e6, 2e6])
    with pytest.raises(ScenarioError, match=r"cost_usd: .*allowed: finite costs > 0 USD"):
        history.fit_log_linear([2020, 2021, 2022], [1e6, -1, 2e6])


def test_default_fit_on_real_data_is_inside_epoch_interval():
    fit = history.fit_trend()
    assert fit.method == "amortized"
    assert "frontier" in fit.subset
    assert fit.n_points >= 10
    elo, ehi = history.EPOCH_GROWTH_CI95
    assert elo <= fit.growth_per_year <= ehi
    assert fit.epoch_comparison()["inside"] is True
    # only frontier, final-run, amortized rows were used
    df = history.load_history()
    used = df[df["model"].isin(fit.labels) & (df["method"] == "amortized")]
    assert used["frontier"].all() and (used["scope"] == "final_run").all()
    assert "DeepSeek-V3" not in fit.labels  # not top-10 by compute at release


def test_crossing_years_follow_from_the_line():
    fit = history.fit_trend()
    for c in fit.crossings:
        assert fit.predict_cost_usd(c.year) == pytest.approx(c.cost_usd, rel=1e-9)
        assert c.lo <= c.year <= c.hi
        assert c.year > fit.year.max()  # all three levels lie in the future of the data


# -- claims -----------------------------------------------------------------

def test_claims_have_sources_and_keys_into_history():
    claims = history.load_claims()
    assert claims["source"].str.startswith("article A, ").all()
    assert claims["claim_zh"].str.len().gt(0).all() and claims["claim_en"].str.len().gt(0).all()
    models = set(history.load_history()["model"])
    figures = claims[claims["kind"] == "figure"]
    assert set(figures["model"]) <= models
    assert set(claims["method"]) <= set(history.METHODS)


def test_claims_check_flags_2018_bert_figure():
    table = history.check_dated_costs().set_index("id")
    df = history.load_history()
    bert = df[(df["model"] == "BERT-Large") & (df["method"] == "cloud")]["cost_usd"].iloc[0]
    row = table.loc["claim_2018"]
    assert row["model"] == "BERT-Large"
    assert row["sourced_usd"] == bert
    assert row["ratio"] == pytest.approx(row["claimed_usd"] / bert)
    assert row["ratio"] > 50
    assert bool(row["flagged"])
    assert "too high" in row["verdict"]


def test_claims_check_gpt3_points_to_the_2023_retraining_estimate():
    row = history.check_dated_costs().set_index("id").loc["claim_2020"]
    assert bool(row["flagged"])
    assert row["sourced_date"].startswith("2020")
    assert "2023" in row["verdict"] and "re-training" in row["verdict"]


def test_claims_that_copy_the_ai_index_are_consistent():
    table = history.check_dated_costs().set_index("id")
    for cid in ("claim_2017", "claim_2019", "claim_2023_flagship", "claim_2023_other"):
        assert not bool(table.loc[cid, "flagged"]), cid
        assert 0.8 <= table.loc[cid, "ratio"] <= 1.25


# -- report -----------------------------------------------------------------

def test_report_json_has_the_contracted_keys():
    out = json.loads(history.render_report(as_json=True))
    for key in ("growth_per_year", "growth_ci90", "doubling_months", "crossing_year", "method", "n_points"):
        assert key in out
    assert set(out["crossing_year"]) == {"1e9", "1e10", "1e11"}
    lo, hi = out["growth_ci90"]
    assert lo <= out["growth_per_year"] <= hi
    assert out["method"] == "amortized"
    assert isinstance(out["epoch"]["inside"], bool)


def test_report_text_has_fit_epoch_verdict_and_claims():
    text = history.render_report()
    assert "growth per year" in text
    assert "INSIDE" in text or "OUTSIDE" in text
    assert "BERT-Large" in text and "!!" in text


def test_report_other_method_and_bad_method():
    out = json.loads(history.render_report(as_json=True, method="cloud"))
    assert out["method"] == "cloud"
    with pytest.raises(ValueError) as err:
        history.render_report(method="vibes")
    assert "method" in str(err.value) and "amortized" in str(err.value)
    try:
        from explorer.errors import ScenarioError
    except ImportError:  # pragma: no cover
        return
    assert isinstance(err.value, ScenarioError)


# -- figure -----------------------------------------------------------------

@pytest.fixture(scope="module")
def fig():
    from explorer.plots.history import history_figure

    return history_figure()


def test_figure_renders_headless(fig):
    from matplotlib.figure import Figure

    assert isinstance(fig, Figure)
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    assert buf.getvalue()[:8] == b"\x89PNG\r\n\x1a\n"
    ax = fig.history_handles.ax
    assert ax.get_yscale() == "log"
    # methods are told apart by marker shape in the legend
    markers = {h.get_marker() for h in ax.get_legend().legend_handles if hasattr(h, "get_marker")}
    assert {"o", "s", "^"} <= markers
    # Epoch's 82 frontier models are too many to name: the runs the article's claims refer to (AI Index,
    # developer figures) and the costliest run of each year are named
    df = history.load_history()
    names = {t.get_text() for t in fig.history_handles.point_labels}
    assert len(names) < df.groupby(["model", "date"]).ngroups
    assert {"Transformer", "BERT-Large", "RoBERTa", "GPT-4", "Gemini Ultra", "Grok-3", "DeepSeek-V3"} <= names
    # the chart says which data and which selection rule
    assert "top 10 by compute when published" in fig.history_handles.ax.texts[-1].get_text() or any(
        "top 10 by compute when published" in t.get_text() for t in fig.history_handles.ax.texts)
    assert "Epoch AI rule" in fig.history_handles.ax.get_title()


def test_marker_moves_in_place(fig):
    from explorer.plots.history import set_scenario_marker

    h = fig.history_handles
    marker, label = h.scenario_marker, h.scenario_label
    n_children = len(h.ax.get_children())
    set_scenario_marker(fig, 2.5e7, 2025.0, label="run A")
    fig.canvas.draw()
    assert fig.history_handles is h and h.scenario_marker is marker and h.scenario_label is label
    assert list(marker.get_xdata()) == [2025.0] and list(marker.get_ydata()) == [2.5e7]
    assert marker.get_visible() and "run A" in label.get_text()
    set_scenario_marker(fig, 3e9, 2027.5, label="run B")
    fig.canvas.draw()
    assert list(marker.get_xdata()) == [2027.5] and list(marker.get_ydata()) == [3e9]
    assert label.xy == (2027.5, 3e9) and "run B" in label.get_text()
    assert len(h.ax.get_children()) == n_children  # nothing added, nothing cleared
    set_scenario_marker(fig, None, 2026.0)
    assert not marker.get_visible() and not label.get_visible()
    with pytest.raises(ScenarioError, match=r"cost_usd: -5\.0 is not allowed"):
        set_scenario_marker(fig, -5.0, 2026.0)


def test_marker_outside_view_extends_limits(fig):
    from explorer.plots.history import set_scenario_marker

    ax = fig.history_handles.ax
    set_scenario_marker(fig, 10.0, 2026.0)
    assert ax.get_ylim()[0] <= 10.0
    set_scenario_marker(fig, None, 2026.0)


def test_draw_into_given_figure_and_chinese_labels():
    from matplotlib.figure import Figure

    from explorer.plots.fonts import cjk_font
    from explorer.plots.history import history_figure
    from explorer.text import label

    given_fig = Figure(figsize=(12, 7))
    out = history_figure(figure=given_fig, language="zh")
    assert out is given_fig
    title = out._suptitle.get_text()
    if cjk_font() is None:
        assert out.history_handles.language == "en" and title == label("history_title", "en")
    else:
        assert out.history_handles.language == "zh" and title == label("history_title", "zh")
    out.canvas.draw()
    with pytest.raises(ScenarioError, match=r"language: 'fr' is not allowed; allowed: one of en, zh"):
        history_figure(language="fr")


def test_history_module_does_not_import_matplotlib():
    import subprocess
    import sys

    code = "import sys, explorer.history; print('matplotlib' in sys.modules)"
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert res.stdout.strip() == "False"
