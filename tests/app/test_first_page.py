"""What the app builds and sends before a viewer sees the first page (issue 26: a lighter first page).

A control row's CSS classes go out with the row's first state, not as a message each after it (about 120 of
the first page's 600 messages were such; benchmarks/first_page.py counts them). The History tab is not on the
first screen: its chart is built when its tab is first shown (or its figure is read for a file).
"""

from __future__ import annotations

from urllib.parse import parse_qs

import numpy as np
import pytest

from explorer import Scenario, estimate
from explorer.plots.fonts import text_kwargs
from explorer.text import money

HISTORY = 2  # the History tab's index


def test_a_control_rows_classes_are_in_its_first_state(app):
    row = app.rows["params"]
    assert "explorer-control-params" in row.box._dom_classes
    assert "explorer-control-message" in row.message._dom_classes


def test_the_history_chart_is_built_when_its_tab_is_first_shown(make_app):
    link = "lang=zh&preset=deepseek_v3"
    late = make_app(query_string=link)
    assert not late.history.built and late.history.figures == {}
    assert not late.history.figure.axes  # the canvas holds a blank figure of the chart's size
    canvas = late.history.figure.canvas
    early = make_app(query_string=link)
    early.tabs.selected_index = HISTORY  # built at once, then updated in place while hidden
    early.tabs.selected_index = 0
    for app in (late, early):
        app.set_scenario(app.scenario.replace(params=app.scenario.params * 2, currency="CNY"))
        assert app.tabs.selected_index == 0
    assert not late.history.built  # a new result, in yuan, did not build it
    late.tabs.selected_index = early.tabs.selected_index = HISTORY  # the viewer opens History
    assert late.history.built and late.history.figure.canvas is canvas  # the same widget, now with the chart
    assert late.charts["history"].draws >= 1 and not late.charts["history"].stale
    shown = {name: app.history.figure.history_handles for name, app in (("late", late), ("early", early))}
    assert shown["late"].language == shown["early"].language == text_kwargs("zh")[1]
    # the same chart either way: the marker at the result on screen's final run, its label, the axis in yuan
    for attr in ("get_xdata", "get_ydata"):
        assert np.array_equal(getattr(shown["late"].scenario_marker, attr)(),
                              getattr(shown["early"].scenario_marker, attr)())
    assert float(np.asarray(shown["late"].scenario_marker.get_ydata())[0]) == late.estimate.final_run_usd
    assert shown["late"].scenario_label.get_text() == shown["early"].scenario_label.get_text()
    assert shown["late"].ax.get_ylabel() == shown["early"].ax.get_ylabel()
    assert "人民币" in shown["late"].ax.get_ylabel()  # as tests/app/test_app_chinese.py reads it
    assert shown["late"].scenario_marker.get_visible()


def test_a_link_to_the_history_tab_builds_it_at_once(make_app):
    app = make_app(query_string="tab=history")
    assert app.history.built and app.history.figure.history_handles.scenario_marker.get_visible()


# ------------------------------------------------------------------ the Compare and Uncertainty tabs
COMPARE, UNCERTAINTY = 3, 4


def test_the_compare_and_uncertainty_tabs_are_built_when_first_opened(app):
    for key, index in (("compare", COMPARE), ("uncertainty", UNCERTAINTY)):
        tab = getattr(app.analysis, key)
        assert not tab.built and tab.widget.children == () and key not in app.all_charts()
        app.tabs.selected_index = index  # the viewer opens it
        assert tab.built and tab.widget.children and key in app.all_charts()
        assert app.all_charts()[key].draws >= 1 and not app.all_charts()[key].stale
    assert app.error == ""


def test_a_links_slots_are_shown_when_the_compare_tab_opens(make_app):
    app = make_app(query_string="slot_B=params%3D13e9&name_B=Big")
    assert not app.analysis.compare.built
    assert app.analysis.slots["B"].scenario.params == 13e9 and app.analysis.slot_names["B"] == "Big"
    app.tabs.selected_index = COMPARE
    a_total, b_total = estimate(Scenario()).total_usd, estimate(Scenario(params=13e9)).total_usd
    table = app.analysis.compare.compare_html.value
    assert money(a_total, "USD") in table and money(b_total, "USD") in table and "B · Big" in table
    bars = app.analysis.compare.compare_plot
    total = bars.groups.index("total")
    assert bars.slot_names == ["A", "B · Big"]
    assert bars.slot_bars[1][total].get_height() == pytest.approx(b_total)


def test_a_links_budget_and_cap_are_kept_until_the_uncertainty_tab_opens(make_app):
    app = make_app(query_string="budget_usd=1000000&budget_text=1M&gpu_cap=1000")
    assert not app.analysis.uncertainty.built
    assert app.analysis.uncertainty.budget_usd == 1e6 and app.analysis.uncertainty.gpu_cap == 1000
    assert app.analysis.uncertainty.status is not None and app.analysis.uncertainty.status.budget_usd == 1e6  # read from the model
    keys = parse_qs(app.share_query()[1:])  # the share link carries them as typed, before the tab was opened
    assert keys["budget_usd"] == ["1000000"] and keys["budget_text"] == ["1M"] and keys["gpu_cap"] == ["1000"]
    app.controls["usd_to_cny"].value = "7"
    app.controls["currency"].value = "CNY"  # the budget follows the currency while the tab is closed
    app.tabs.selected_index = UNCERTAINTY
    assert app.analysis.uncertainty.budget_box.value == "7000000" and app.analysis.uncertainty.cap_box.value == "1000"  # 1M USD x 7
    assert "(CNY)" in app.analysis.uncertainty.budget_box.description
    assert "¥7M" in app.analysis.uncertainty.budget_status_html.value and app.analysis.uncertainty.budget_usd == 1e6
    assert app.error == ""


def test_a_refused_link_budget_is_named_at_once(make_app):
    app = make_app(query_string="budget_usd=lots")
    assert not app.analysis.uncertainty.built and app.analysis.uncertainty.budget_usd is None
    assert "lots" in app.banner.value
