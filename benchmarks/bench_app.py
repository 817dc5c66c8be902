"""App responsiveness: one control change, inside the kernel, with charts rendered.

``app_update_ms_*``: set one control's value on an :class:`ExplorerApp`
(validation, estimate, KPI/summary/assumptions HTML, links, artists moved in
place, the visible chart rendered and pushed to its canvas). The canvases are
told a browser is attached (ipympl's ``initialized`` message), as in Voila.

The fair comparison with what a typical ipywidgets app does (a ``pyplot``
figure re-created in an ``Output`` widget) is timed in the browser, where a
viewer feels it: ``benchmarks/bench_browser.py``. (An earlier kernel-side
"rebuild all three figures" baseline here was unfair: a typical app redraws
only the visible chart.)

Percentiles over all timed changes, cycling through several controls; the
first tab (the breakdown) is visible, as on start. ``*_history_tab`` repeats
the update with the history chart visible (the marker is blitted);
``*_uncertainty_tab`` with the "Uncertainty and budget" view visible and a
budget set (every change: the simulation, the sensitivity, the budget status,
the histogram and tornado moved and the figure drawn in full).
"""

from __future__ import annotations

import os
import time

import numpy as np

from benchmarks.run import register

# (control, values cycled) - every change is a real change of the scenario
_CHANGES = (
    ("params", (13e9, 70e9)),
    ("tokens", (2e12, 5e12)),
    ("gpu", ("a100-80gb", "h100-sxm")),
    ("pricing", ("reserved_1y", "on_demand")),
    ("region", ("de", "us-avg")),
)


def _changes(app, repeats):
    for i in range(repeats):
        for name, values in _CHANGES:
            control = app.rows[name].twin or app.controls[name]
            yield lambda control=control, value=values[i % 2]: setattr(control, "value", value)


def _percentiles(times_s) -> tuple[float, float]:
    ms = np.asarray(times_s) * 1000.0
    return float(np.percentile(ms, 50)), float(np.percentile(ms, 90))


def _attached_app():
    from explorer.app import ExplorerApp
    from explorer.app.ipympl_private import page_connected

    app = ExplorerApp(query_string="")
    for fig in (app.breakdown.figure, app.waterfall.figure, app.history_fig, *app.analysis.figures):
        page_connected(fig.canvas)
    return app


def _change_times(app, n: int) -> list[float]:
    """Seconds of each of ``n`` control changes on ``app`` (see :func:`_changes`)."""
    times = []
    for change in _changes(app, n):
        t0 = time.perf_counter()
        change()
        times.append(time.perf_counter() - t0)
    return times


@register("app_update")
def bench_app_update(repeats: int) -> dict[str, float]:
    app = _attached_app()
    next(iter(_changes(app, 1)))()  # warm-up
    times = _change_times(app, repeats * 2)
    p50, p90 = _percentiles(times)

    app.tabs.selected_index = 2
    h50, h90 = _percentiles(_change_times(app, repeats))

    app.tabs.selected_index = 4  # Uncertainty and budget
    app.analysis.uncertainty.budget_box.value = "1000000"
    u50, u90 = _percentiles(_change_times(app, repeats))
    app.tabs.selected_index = 0

    return {
        "app_update_ms_p50": p50,
        "app_update_ms_p90": p90,
        "app_update_ms_p50_history_tab": h50,
        "app_update_ms_p90_history_tab": h90,
        "app_update_ms_p50_uncertainty_tab": u50,
        "app_update_ms_p90_uncertainty_tab": u90,
        "app_update_samples": len(times),
    }


# ---------------------------------------------------------------- the History tab: language, currency, cold build
_COLD = """
import os
import time
from explorer.app import ExplorerApp
t0 = time.perf_counter()
app = ExplorerApp(query_string="")
t1 = time.perf_counter()
app.tabs.selected_index = 2
print(t1 - t0, time.perf_counter() - t1)
"""


def _switch_times(app, name: str, values: tuple, repeats: int) -> dict:
    """Seconds of each change of control ``name`` to each of ``values``, cycled ``repeats`` times."""
    control = app.controls[name]
    times: dict = {v: [] for v in values}
    for _ in range(repeats):
        for v in values:
            t0 = time.perf_counter()
            control.value = v
            times[v].append(time.perf_counter() - t0)
    return times


@register("app_history")
def bench_app_history(repeats: int) -> dict[str, float]:
    """History tab visible: language and currency switches in the kernel, and a cold ``ExplorerApp()``.

    A switch is the control's value set on an attached app (estimate, HTML, the
    history chart brought to the new language or currency and pushed to its
    canvas). ``*_first_ms`` is the first switch to each value after the app was
    built (nothing cached yet); the medians are over ``max(repeats, 7)``
    switches each way; ``*_full_draws`` counts the full draws of the chart
    among all those switches (the others were blits). ``app_cold_build_s`` is ``ExplorerApp()`` (imports
    done) in a fresh process and ``app_cold_history_tab_open_s`` the first
    opening of the History tab after it (the chart's first full draw),
    medians of 5 processes.
    """
    import statistics
    import subprocess
    import sys
    from pathlib import Path

    n = max(repeats, 7)
    app = _attached_app()
    app.tabs.selected_index = 2
    out: dict[str, float] = {}
    draws = []
    # counted on the canvas: a draw_event handler follows its figure, and the app shows one figure per language
    canvas = app.history_fig.canvas
    full_draw = canvas.draw
    canvas.draw = lambda *a, **k: draws.append(1) or full_draw(*a, **k)
    for name, values in (("language", ("zh", "en")), ("currency", ("CNY", "USD"))):
        draws.clear()
        times = _switch_times(app, name, values, n)
        out[f"history_{name}_full_draws"] = len(draws)  # of 2 * n switches
        for v, ts in times.items():
            out[f"history_{name}_{v}_ms_p50"] = statistics.median(ts) * 1000.0
            out[f"history_{name}_{v}_first_ms"] = ts[0] * 1000.0
    app.tabs.selected_index = 0
    root = str(Path(__file__).resolve().parent.parent)
    cold = [[float(x) for x in subprocess.run([sys.executable, "-c", _COLD], capture_output=True, text=True,
                                              check=True, cwd=root,
                                              env={**os.environ, "PYTHONPATH": root}).stdout.split()[-2:]]
            for _ in range(5)]
    out["app_cold_build_s"] = statistics.median(c[0] for c in cold)
    out["app_cold_history_tab_open_s"] = statistics.median(c[1] for c in cold)
    out["history_switch_repeats"] = n
    return out
