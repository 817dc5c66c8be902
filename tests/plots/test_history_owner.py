"""HistoryPlot owns the History chart's state; the module's functions are thin wrappers around it (issue 29 item 8).

Expected amounts are hand calculations: a run of 25,000,000 USD shown at 7 CNY/USD is 175,000,000 CNY (¥175M).
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from explorer.errors import ScenarioError  # noqa: E402
from explorer.plots import history as ph  # noqa: E402
from explorer.plots.history import HistoryPlot  # noqa: E402


@pytest.fixture(scope="module")
def plot():
    return HistoryPlot("en")


def test_the_figure_holds_its_owner_and_a_view_nothing_else(plot):
    """The only attributes the module puts on a figure: its owner and the owner's view of its artists."""
    fig = ph.history_figure(figure=Figure(figsize=HistoryPlot.SIZE_IN, dpi=HistoryPlot.DPI))
    added = set(vars(fig)) - set(vars(Figure()))
    assert added == {"history_plot", "history_handles"}
    owner = fig.history_plot
    assert isinstance(owner, HistoryPlot) and owner.figure is fig and fig.history_handles is owner.handles
    ph.set_marker_interval(fig, 1e6, 4e6)  # the error bar is a field of the handles, not a new attribute
    assert owner.handles.interval_line is not None and set(vars(fig)) - set(vars(Figure())) == added


def test_a_wrapper_does_what_the_method_does(plot):
    by_function = ph.history_figure()
    ph.set_scenario_marker(by_function, 2.5e7, 2025.0, "run A", draw=False)
    plot.set_marker(2.5e7, 2025.0, "run A")
    a, b = by_function.history_handles, plot.handles
    assert a.scenario_label.get_text() == b.scenario_label.get_text() == "run A: $25M"
    assert list(a.scenario_marker.get_xdata()) == list(b.scenario_marker.get_xdata()) == [2025.0]
    assert by_function.history_plot.shown["cost_usd"] == plot.shown["cost_usd"] == 2.5e7


def test_the_marker_follows_a_currency_set_after_it():
    """Set in dollars, then the axis in yuan at 7 CNY/USD: the label reads 25M x 7 = ¥175M."""
    fig = ph.history_figure()
    ph.set_scenario_marker(fig, 2.5e7, 2025.0, "run A", draw=False)
    ph.set_history_currency(fig, "CNY", 7.0)
    assert fig.history_handles.scenario_label.get_text() == "run A: ¥175M"
    assert fig.history_plot.shown["currency"] == "CNY" and fig.history_plot.shown["fx"] == 7.0


def test_a_language_switch_shows_the_same_marker_and_interval():
    plot = HistoryPlot("en")
    plot.mark("CNY", 7.0, 2.5e7, 2025.0, "run A", (1e7, 5e7))
    plot.set_language("zh")
    fig = plot.relayout()  # "zh" falls back to English without a CJK font: then the same figure
    h = plot.handles
    # 2.5e7 USD x 7 = 1.75e8 CNY: ¥1.75亿 on a Chinese chart (issue 41), ¥175M when it fell back to English
    assert fig is plot.figure and h.scenario_label.get_text() in ("run A: ¥1.75亿", "run A: ¥175M")
    assert list(h.interval_line.get_ydata()) == [1e7, 5e7]
    assert plot.shown == {"currency": "CNY", "fx": 7.0, "cost_usd": 2.5e7, "year": 2025.0, "label": "run A",
                          "low_usd": 1e7, "high_usd": 5e7}


def test_a_figure_for_a_file_is_not_kept(plot):
    kept = dict(plot._handles)
    other = "zh" if plot.language == "en" else "en"
    fig = plot.figure_for(other)  # the shown figure itself when no font covers Chinese
    assert plot._handles.keys() == kept.keys() and (fig is plot.figure or id(fig) not in plot._handles)


def test_drawing_a_figure_again_makes_the_new_plot_its_owner():
    fig = ph.history_figure()
    first = fig.history_plot
    ph.history_figure(figure=fig, language="en")
    assert fig.history_plot is not first and id(fig) not in first._handles
    ph.set_scenario_marker(fig, 1e6, 2020.0, draw=False)  # acts through the new owner
    assert fig.history_plot.shown["cost_usd"] == 1e6


def test_functions_refuse_a_figure_no_plot_drew():
    with pytest.raises(ScenarioError, match="figure") as err:
        ph.set_scenario_marker(Figure(), 1e6, 2020.0)
    assert isinstance(err.value, ValueError)


@pytest.mark.parametrize("cost, year, field", [(-5.0, 2026.0, "cost_usd"), (float("nan"), 2026.0, "cost_usd"),
                                               (1e6, float("inf"), "year")])
def test_a_bad_marker_is_refused_and_nothing_moves(plot, cost, year, field):
    plot.set_marker(2.5e7, 2025.0, "kept")
    with pytest.raises(ScenarioError, match=field):
        plot.set_marker(cost, year, "bad")
    assert plot.shown["label"] == "kept" and plot.handles.scenario_label.get_text() == "kept: $25M"


def test_an_unknown_language_is_refused_naming_the_choices():
    with pytest.raises(ScenarioError, match="language"):
        HistoryPlot("fr")
