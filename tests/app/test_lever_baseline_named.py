"""Issue 41: the By-lever chart (and its PNG/SVG) names its baseline: the first bar is slot A (with the name the
viewer gave it), not a bare "Baseline" the reader had to guess at."""

from __future__ import annotations

from matplotlib.backends.backend_agg import FigureCanvasAgg

from explorer import Scenario
from explorer.app.export import figure_file


def _bar_names(fig) -> list[str]:
    FigureCanvasAgg(fig).draw()  # as the PNG is drawn
    return [t.get_text() for t in fig.axes[0].get_xticklabels()]


def test_the_by_lever_png_names_slot_a_as_its_baseline(make_app):
    app = make_app()
    app.analysis.pin("A", app.estimate, name="7B plan")
    app.set_scenario(Scenario(params=13e9, gpus=256, precision="fp8"))
    files = {name: fig for fig, _fmt, name, _cap in app.chart_files()}
    fig = files["what-changed-by-lever.png"]
    assert figure_file(fig, "png", "caption")[:4] == b"\x89PNG"
    names = _bar_names(fig)
    assert names[0] == "Baseline: slot A · 7B plan" and names[-1] == "Current", names


def test_in_chinese_too(make_app):
    app = make_app(query_string="lang=zh")
    app.pin_baseline()
    app.set_scenario(Scenario(params=13e9, gpus=256))
    files = {name: fig for fig, _fmt, name, _cap in app.chart_files()}
    assert _bar_names(files["what-changed-by-lever.png"])[0] == "基线：栏位 A"
