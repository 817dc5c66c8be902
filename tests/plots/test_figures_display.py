"""Issue 17, JupyterLab as a home: figures show themselves, the analyst notebook runs and draws."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer import Scenario, estimate
from explorer.analysis import sensitivity
from explorer.plots.analysis import CompareBarsPlot, LeverWaterfallPlot, SimulationPlot, TornadoPlot
from explorer.plots.breakdown import BreakdownPlot, WaterfallPlot
from explorer.plots.history import history_figure

ROOT = Path(__file__).resolve().parents[2]
PNG = b"\x89PNG\r\n\x1a\n"


def _formats(obj) -> dict:
    """What IPython would display for ``obj`` (no backend, no %matplotlib)."""
    from IPython.core.formatters import DisplayFormatter

    data, _ = DisplayFormatter().format(obj)
    return data


@pytest.mark.parametrize("make", [
    lambda: BreakdownPlot(), lambda: WaterfallPlot(), lambda: TornadoPlot(), lambda: LeverWaterfallPlot(),
    lambda: CompareBarsPlot(), lambda: SimulationPlot()])
def test_every_plot_and_its_figure_display_as_png(make):
    plot = make()
    for obj in (plot, plot.figure):
        data = _formats(obj)
        assert data.get("image/png", b"")[:8] == PNG, (type(obj).__name__, list(data))


def test_drawn_figures_display_their_content():
    plot = TornadoPlot()
    plot.update(sensitivity(Scenario()))
    assert _formats(plot.figure)["image/png"][:8] == PNG
    bars = BreakdownPlot()
    bars.update(estimate(Scenario()))
    assert len(_formats(bars)["image/png"]) > 10_000
    assert _formats(history_figure())["image/png"][:8] == PNG


def test_analyst_notebook_runs_and_every_chart_cell_draws():
    nbformat = pytest.importorskip("nbformat")
    from nbclient import NotebookClient

    nb = nbformat.read(ROOT / "explorer" / "notebooks" / "analyst.ipynb", as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert errors == []
    charts = [c for c in nb.cells if c.cell_type == "code" and ("plots" in c.source or "history_figure" in c.source)]
    assert len(charts) == 3
    for cell in charts:
        assert any("image/png" in o.get("data", {}) for o in cell.outputs), cell.source
        assert not any("<Figure size" in json.dumps(o.get("data", {}).get("text/plain", "")) and
                       "image/png" not in o.get("data", {}) for o in cell.outputs)
    widget = [c for c in nb.cells if c.cell_type == "code" and "app.widget" in c.source][0]
    assert any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in widget.outputs)
