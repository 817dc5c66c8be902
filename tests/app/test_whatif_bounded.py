"""Issue 24 item 3: bounded work per What-if message.

A sort reorders the rows already computed (no grid, no heat-map, no CSV); a burst of requests is answered
once, by the latest; a grid past MAX_GRID_ROWS is refused beside the pickers and the last grid stays; the
CSV is written when its button is pressed. The server test (40 sort changes at once against a real kernel)
is in tests/hosting/test_server_bounded_input.py.
"""

from __future__ import annotations

from unittest import mock

import explorer.app.tabs.what_if as whatif_module
from explorer.app import ExplorerApp
from explorer.app.tabs.what_if import MAX_GRID_ROWS, SORT_KEYS, lever_values


def _open(app: ExplorerApp) -> None:
    app.tabs.selected_index = 7  # What if
    assert app.whatif.table is not None and len(app.whatif.table) == 12  # the question of issue 17: 3 x 2 x 2


def test_a_sort_reorders_the_rows_and_computes_nothing_again(make_app):
    app = make_app()
    _open(app)
    view = app.whatif
    with mock.patch.object(whatif_module, "what_if", wraps=whatif_module.what_if) as grid, \
            mock.patch.object(view, "_draw_heatmap", wraps=view._draw_heatmap) as heatmap, \
            mock.patch.object(view, "csv", wraps=view.csv) as csv:
        for key in [*SORT_KEYS, *SORT_KEYS]:
            view.sort.value = key
            first = view.table.sort_values(key, kind="stable", na_position="last").iloc[0]
            best = view.table_html.value.split('<tr class="best">')[1].split("</tr>")[0]
            assert all(f"<td>{v}</td>" in best or v.upper() in best for v in (first.precision,)), (key, best)
    assert grid.call_count == 0 and heatmap.call_count == 0 and csv.call_count == 0
    # a value change is a new grid: computed once
    with mock.patch.object(whatif_module, "what_if", wraps=whatif_module.what_if) as grid:
        view.values[2].value = ("cn-ningxia",)
    assert grid.call_count == 1 and len(view.table) == 6


def test_a_burst_of_requests_is_answered_once_with_the_latest(make_app):
    app = make_app()
    _open(app)
    view = app.whatif
    scheduled = []

    class Loop:  # the kernel's event loop, run by hand
        def call_later(self, delay, fn):
            scheduled.append((delay, fn))

    view.event_loop = lambda: Loop()
    with mock.patch.object(whatif_module, "what_if", wraps=whatif_module.what_if) as grid, \
            mock.patch.object(view, "table_page", wraps=view.table_page) as pages:
        for i in range(40):
            view.sort.value = SORT_KEYS[i % len(SORT_KEYS)]
        view.values[1].value = ("bf16",)  # and one grid change among them
        assert len(scheduled) == 1 and pages.call_count == 0  # nothing answered yet, one answer scheduled
        scheduled.pop()[1]()
    assert grid.call_count == 1 and pages.call_count == 1  # one grid, one table, with the latest picks
    assert len(view.table) == 6 and "▲" in view.table_html.value
    assert view.last_cost[1] == "grid" and view.last_cost[0] > 0


def test_a_grid_past_the_limit_is_refused_beside_the_pickers_and_the_last_grid_stays(make_app):
    app = make_app()
    _open(app)
    view = app.whatif
    pricing, regions = lever_values("pricing"), lever_values("region")
    view.values[0].value = tuple(pricing)
    shown, rows = view.table_html.value, len(view.table)
    asked = len(pricing) * 2 * len(regions)
    assert rows == len(pricing) * 2 * 2 and asked > MAX_GRID_ROWS  # every region with the other levers
    with mock.patch.object(whatif_module, "what_if", wraps=whatif_module.what_if) as grid:
        view.values[2].value = tuple(regions)
    assert grid.call_count == 0 and len(view.table) == rows and view.table_html.value == shown
    assert f"{asked}" in view.message.value and str(MAX_GRID_ROWS) in view.message.value
    view.values[2].value = ("us-avg",)
    assert len(view.table) == len(pricing) * 2 and str(MAX_GRID_ROWS) not in view.message.value


def test_the_csv_is_written_when_asked_for(make_app):
    app = make_app("lang=zh")
    _open(app)
    view = app.whatif
    assert "data:text/csv" not in view.table_html.value and view.csv_link.value == ""
    view.csv_button.click()
    assert "what-if.csv" in view.csv_link.value and "下载" in view.csv_link.value
    view.values[1].value = ("fp8",)  # a new grid: the old file is not offered for it
    assert view.csv_link.value == ""
