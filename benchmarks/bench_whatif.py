"""CPU per page message of the What-if tab and the Share tab (issue 24 item 3), inside the kernel.

``whatif_grid_cpu_s_*``: one change of a What-if picker that asks for the largest grid the app computes
(:data:`explorer.app.tabs.what_if.MAX_GRID_ROWS` rows: pricing 5 x precision 5 x region 8 = 200), i.e. the grid,
its table rows and the heat-map drawn on an attached canvas; ``whatif_sort_cpu_s_*``: one sort change on that
grid (rows reordered, nothing computed); ``whatif_refused_cpu_s``: a pick past the limit (refused beside the
pickers); ``whatif_csv_cpu_s``: the CSV button. ``share_tab_cpu_s``: the Share tab written once (every chart
file rendered: the figure it is measured against when the tab renders on request).

CPU time of this process (:func:`time.process_time`), the measure the per-message bound is stated in; medians
and maxima over the repeats. Run: ``python benchmarks/run.py --only whatif_message --repeats 5``.
"""

from __future__ import annotations

import statistics
import time

from benchmarks.run import register


def _cpu(fn) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


@register("whatif_message")
def bench_whatif_message(repeats: int) -> dict[str, float]:
    from explorer.app import ExplorerApp
    from explorer.app.ipympl_private import page_connected
    from explorer.app.tabs.what_if import MAX_GRID_ROWS, SORT_KEYS, lever_values

    app = ExplorerApp(query_string="")
    app.tabs.selected_index = 7  # What if: built and shown
    view = app.whatif
    page_connected(view.figure.canvas)  # a browser is attached: the heat-map is rendered and sent
    pricing, precision, regions = (lever_values(lv) for lv in ("pricing", "precision", "region"))
    largest = [(0, tuple(pricing[:5])), (1, tuple(precision[:5])), (2, tuple(regions[:8]))]
    small = [(0, tuple(pricing[:3])), (1, tuple(precision[:2])), (2, tuple(regions[:2]))]
    grid, sort = [], []
    for r in range(repeats):
        for i, values in small:  # start from the question of issue 17 each time
            view.values[i].value = values
        for i, values in largest[:-1]:
            view.values[i].value = values
        grid.append(_cpu(lambda: setattr(view.values[2], "value", largest[2][1])))
        assert len(view.table) == MAX_GRID_ROWS, len(view.table)
        for k in range(len(SORT_KEYS)):
            key = SORT_KEYS[(k + 1 + r) % len(SORT_KEYS)]
            sort.append(_cpu(lambda key=key: setattr(view.sort, "value", key)))
    refused = _cpu(lambda: setattr(view.values[2], "value", tuple(regions)))
    csv = _cpu(view.csv_button.click)
    app.tabs.selected_index = 0
    app.controls["params"].value = 13e9  # the Share page is stale: written when its tab is shown
    share = _cpu(lambda: setattr(app.tabs, "selected_index", 6))
    return {
        "whatif_grid_rows": float(MAX_GRID_ROWS),
        "whatif_grid_cpu_s_median": statistics.median(grid),
        "whatif_grid_cpu_s_max": max(grid),
        "whatif_sort_cpu_s_median": statistics.median(sort),
        "whatif_sort_cpu_s_max": max(sort),
        "whatif_refused_cpu_s": refused,
        "whatif_csv_cpu_s": csv,
        "share_tab_cpu_s": share,
    }
