"""The History chart's "your run" label stays inside the axes wherever the run lands, in both languages, and the
legend lists the run only when its star is drawn (issue 27 item 3: the label was clipped at the right edge).

The chart is laid out in inches and shrunk whole to the screen (HistoryPlot), so one size covers every width."""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.text import Text  # noqa: E402

from explorer.plots.history import HistoryPlot, set_scenario_marker  # noqa: E402

YEARS = [2016.0, 2024.0, 2026.9, 2028.0, 2030.5]
COSTS = [3e3, 1.08e6, 6e10]


@pytest.fixture(scope="module", params=["en", "zh"])
def figure(request):
    fig = HistoryPlot.build(request.param)
    FigureCanvasAgg(fig)  # as a download renders it, whatever canvas earlier tests left as the default
    return fig


def _text_box(fig, ann):
    renderer = fig.canvas.get_renderer()
    return Text.get_window_extent(ann, renderer)  # where the last draw put it  # the text and its padding, not the arrow to the star


@pytest.mark.parametrize("year", YEARS)
@pytest.mark.parametrize("cost", COSTS)
def test_the_label_is_inside_the_axes(figure, year, cost):
    label = "你的训练" if figure.history_handles.language == "zh" else "your run (final run, H100, on-demand)"
    set_scenario_marker(figure, cost, year, label, draw=False)
    figure.canvas.draw()  # the label finds its place when drawn, as on screen and in a file
    h = figure.history_handles
    box, axes = _text_box(figure, h.scenario_label), h.ax.get_window_extent()
    assert axes.x0 <= box.x0 and box.x1 <= axes.x1, (year, cost, box, axes)
    assert axes.y0 <= box.y0 and box.y1 <= axes.y1, (year, cost, box, axes)


def test_the_png_shows_the_whole_label(figure):
    set_scenario_marker(figure, 1.08e6, 2026.9, "your run", draw=False)
    buf = io.BytesIO()
    figure.savefig(buf, format="png")  # the downloaded file
    h = figure.history_handles
    box, fig_box = _text_box(figure, h.scenario_label), figure.bbox
    assert fig_box.x0 <= box.x0 and box.x1 <= fig_box.x1


def test_the_legend_lists_the_run_only_when_it_is_drawn(figure):
    legend = figure.history_handles.ax.get_legend()
    entry = legend.get_texts()[-1]
    assert entry.get_text().startswith(("Your estimate", "你的估算"))
    set_scenario_marker(figure, None, 2026.0, draw=False)
    assert not entry.get_visible() and not legend.legend_handles[-1].get_visible()
    set_scenario_marker(figure, 1e6, 2026.0, draw=False)
    assert entry.get_visible() and legend.legend_handles[-1].get_visible()
