"""The History chart's "your run" label and its cost stay inside the chart, as the app writes them, in every file and
at every pixel ratio, in both languages (issue 27: the label was clipped at the right edge, its cost unreadable).

The app's History chart keeps one size in inches at every page width: on a phone (390 px) and a tablet (768 px) it
scrolls sideways inside its box (``explorer-chart-scroll``), on a desktop (1400, 1920 px) it is shown whole, so what
differs between those widths is the pixel ratio of the screen (1 to 3), checked here, and the downloaded PNG and SVG.
Where the label lies is measured at the draw itself, with that draw's renderer.
"""

from __future__ import annotations

import io

import pytest
from matplotlib.text import Text

from explorer import Scenario
from explorer.app import export

#: Runs whose label is long (a typed rate, yuan) or lands at the chart's edges (cheap, early / dear, late).
RUNS = {
    "deepseek_typed_rate_cny": dict(preset="deepseek_v3", currency="CNY"),
    "405b_dear": dict(scenario=Scenario(params=405e9, tokens=15.6e12, gpus=16384, rate_usd_per_gpu_hour=2.0)),
    "small_cheap": dict(scenario=Scenario(params=1e8, tokens=2e9, gpus=8)),
}


def _recording(fig, label):
    """Record, at each draw of ``label``, its text box and the axes' box, in that draw's pixels."""
    seen = []
    original = label.draw

    def draw(renderer):
        original(renderer)
        if label.get_visible():
            seen.append((Text.get_window_extent(label, renderer).frozen(), label.axes.get_window_extent(renderer).frozen()))

    label.draw = draw
    return seen


def _app(make_app, language, run):
    app = make_app(language=language)
    if "preset" in run:
        app.controls["preset"].value = run["preset"]
    else:
        app.set_scenario(run["scenario"])
    if run.get("currency"):
        app.controls["currency"].value = run["currency"]
    assert app.error == ""
    return app


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("run", list(RUNS))
def test_the_label_and_its_cost_are_inside_the_chart_in_every_file_and_pixel_ratio(make_app, language, run):
    app = _app(make_app, language, RUNS[run])
    fig = app.history.figure_for(language)
    label = fig.history_handles.scenario_label
    text = label.get_text()
    assert label.get_visible() and text.startswith(app.history.shown["label"])  # the app's label, then its cost
    assert ("¥" if RUNS[run].get("currency") == "CNY" else "$") in text.rsplit(":", 1)[-1]
    seen = _recording(fig, label)
    for fmt in ("png", "svg"):  # the Share tab's files, with the scenario written below
        export.figure_file(fig, fmt, app.chart_caption(), language)
    for ratio in (1, 2, 3):  # the screen: the figure's size at the pixel ratios of phones and desktops
        fig.savefig(io.BytesIO(), format="png", backend="agg", dpi=export.original_dpi(fig) * ratio)
    assert len(seen) >= 5  # a file cut to its content ("tight") is drawn twice
    for box, axes in seen:
        assert axes.x0 <= box.x0 and box.x1 <= axes.x1, (run, language, text, box, axes)
        assert axes.y0 <= box.y0 and box.y1 <= axes.y1, (run, language, text, box, axes)
