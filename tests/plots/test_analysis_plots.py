"""explorer.plots.analysis: figures are built once and updated in place, in English and Chinese."""

from __future__ import annotations

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

from explorer import Scenario, attribute, compare, sensitivity, simulate
from explorer.plots.analysis import CompareBarsPlot, LeverWaterfallPlot, SimulationPlot, TornadoPlot

S = Scenario(gpus=512, experiments_multiplier=2.0)
T = S.replace(precision="fp8", pricing="spot")

CASES = [
    (TornadoPlot, lambda: sensitivity(S), lambda: sensitivity(T)),
    (LeverWaterfallPlot, lambda: attribute(S, T), lambda: attribute(T, S.replace(tokens=3e12))),
    (CompareBarsPlot, lambda: compare([S, T]), lambda: compare([S, T, S, T])),
    (SimulationPlot, lambda: simulate(S, n=2000), lambda: simulate(T, n=3000, seed=2)),
]


def _artists(fig):
    ax = fig.axes[0]
    return len(ax.patches), len(ax.lines), len(ax.texts)


@pytest.mark.parametrize("cls, first, second", CASES)
@pytest.mark.parametrize("language", ["en", "zh"])
def test_update_in_place(cls, first, second, language):
    plot = cls(language=language)
    FigureCanvasAgg(plot.figure)
    plot.update(first(), "USD", 1.0, draw=False)
    plot.figure.canvas.draw()
    before = _artists(plot.figure)
    plot.update(second(), "CNY", 7.0, draw=False)
    plot.figure.canvas.draw()
    assert _artists(plot.figure) == before  # same artists, moved


def test_lever_waterfall_shows_the_levers_that_differ():
    plot = LeverWaterfallPlot()
    FigureCanvasAgg(plot.figure)
    plot.update(attribute(S, T), draw=False)
    assert plot.keys == ["baseline", "precision", "pricing", "current"]
    ticks = [t.get_text() for t in plot.ax.get_xticklabels()]
    assert ticks == ["Baseline", "Precision", "Pricing mode", "Current"]


def test_tornado_widest_bar_on_top():
    plot = TornadoPlot()
    FigureCanvasAgg(plot.figure)
    table = sensitivity(S)
    plot.update(table, draw=False)
    widths = [lo.get_width() + hi.get_width() for lo, hi in zip(plot.low_bars, plot.high_bars)]
    assert widths[0] == max(widths)
    assert plot.ax.get_yticklabels()[0].get_text() == "Experiments multiplier"


def test_no_pyplot():
    import explorer.plots.analysis as module

    source = open(module.__file__, encoding="utf-8").read()
    assert "matplotlib.pyplot" not in source and "import pyplot" not in source
