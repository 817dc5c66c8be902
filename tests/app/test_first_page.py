"""What the app builds and sends before a viewer sees the first page (issue 26: a lighter first page).

A control row's CSS classes go out with the row's first state, not as a message each after it (about 120 of
the first page's 600 messages were such; benchmarks/first_page.py counts them). The History tab is not on the
first screen: its chart is built when its tab is first shown (or its figure is read for a file).
"""

from __future__ import annotations

import numpy as np

from explorer.plots.fonts import text_kwargs

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
