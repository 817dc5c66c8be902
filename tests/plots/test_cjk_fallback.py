"""Issue 41: Chinese text on an English chart is drawn, not boxed. A user may name a Compare slot in Chinese on the
English page; its legend (and compare.png) carry the CJK font as a fallback behind DejaVu Sans.

A missing glyph is drawn as the font's .notdef box, the same box for every character: two different Chinese names
of the same length then render to the same pixels. Drawn glyphs differ. Matplotlib also warns "Glyph ... missing".
"""

from __future__ import annotations

import io
import warnings

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

from explorer import Scenario, compare
from explorer.app.export import figure_file
from explorer.plots.analysis import CompareBarsPlot
from explorer.plots.fonts import cjk_font, text_kwargs

pytestmark = pytest.mark.skipif(cjk_font() is None, reason="no font covers Chinese on this machine")

S = Scenario(gpus=512)
T = S.replace(precision="fp8")


def _legend_pixels(name: str) -> np.ndarray:
    plot = CompareBarsPlot(language="en")
    FigureCanvasAgg(plot.figure)
    table = compare({"A": S, "B": T}).rename(index={"A": "A", "B": f"B · {name}"})
    plot.update(table, "USD", 1.0, draw=False)
    canvas = plot.figure.canvas
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*missing from font")
        canvas.draw()
    box = plot.legend.get_window_extent(canvas.get_renderer())
    image = np.asarray(canvas.buffer_rgba())[:, :, :3]
    height = image.shape[0]
    return image[int(height - box.y1):int(height - box.y0) + 1, int(box.x0):int(box.x1) + 1]


def test_english_charts_carry_a_cjk_fallback_font():
    family = text_kwargs("en")[0]["fontfamily"]
    assert family[0] == "DejaVu Sans" and cjk_font() in family  # Latin text as before, Chinese from the fallback
    assert text_kwargs("en")[1] == "en" and text_kwargs("zh")[0]["fontfamily"][0] == cjk_font()


def test_a_chinese_slot_name_is_inked_in_the_english_compare_legend():
    first, second = _legend_pixels("中文方案"), _legend_pixels("中中中中")
    assert first.shape == second.shape
    # boxes would make both legends the same pixels; drawn glyphs make them differ
    assert (np.abs(first.astype(int) - second.astype(int)).sum(axis=2) > 100).sum() > 40


def test_compare_png_of_the_english_page_draws_a_chinese_caption_and_legend():
    plot = CompareBarsPlot(language="en")
    FigureCanvasAgg(plot.figure)
    plot.update(compare({"A": S, "B": T}).rename(index={"B": "B · 中文方案"}), "USD", 1.0, draw=False)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*missing from font")
        png = figure_file(plot.figure, "png", "Scenario: 中文方案", language="en")
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(io.BytesIO(png).getvalue()) > 1000
