"""Charts laid out again for the width the page gives them (narrow screens).

The page measures the width of the visible chart's box and types it into a
hidden text box (``.explorer-chart-width-in``), on load and after the window
or the tab changes (debounced). The kernel clamps it, rounds it down to
:data:`WIDTH_STEP_PX`, and, when it differs from the current one, resizes the
figures to it: never wider than they were designed, so a wide screen keeps
the designed charts and costs nothing. The caller lays out again only the
visible figure (one layout per message), the others when their tab opens.

Text stays at its size in points, so at 390 px the charts are narrower with
text as large as on a desktop, instead of a desktop chart scaled down whole.
The history chart is not sized here: its title, legend and point labels are
laid out for 13 x 7.8 in and collapse below about 600 px
(``explorer/plots/history.py`` would need a narrow layout), so on a phone it
is still scaled down whole.
Nothing here trusts the page: garbage is ignored, widths are clamped to
:data:`MIN_WIDTH_PX` .. :data:`~explorer.app.ipympl_private.MAX_CSS_PIXELS`.
"""

from __future__ import annotations

import html
import math
import re
from typing import Callable, Iterable, Mapping

import ipywidgets as w
from matplotlib.figure import Figure

from explorer.app.ipympl_private import MAX_CSS_PIXELS, MIN_CSS_PIXELS
from explorer.app.shared import HIDDEN, TEXT_STYLE, html as shared_html

__all__ = ["ChartSizer", "WIDTH_STEP_PX", "parse_width", "SCRIPT"]

WIDTH_STEP_PX = 20  # widths are rounded down to this step [CSS px]: dragging a window lays out at most every 20 px
MIN_WIDTH_PX = 240  # narrowest layout [CSS px]: the breakdown's labels and bars still fit (120 px collapses it);
# a narrower box scales that layout down
_WIDTH = re.compile(r"^w (\d{1,6})$")

#: Measures the visible chart box and reports its width [CSS px] through the hidden text box.
SCRIPT = """
if (!window.__explorerChartWidth) {
  window.__explorerChartWidth = true;
  var last = '', timer = null;
  function report() {
    var input = document.querySelector('.explorer-chart-width-in input');
    var box = [...document.querySelectorAll('.explorer-app .jupyter-matplotlib')]
      .find(function (e) { return e.offsetParent !== null && e.clientWidth > 0; });
    if (!input || !box) { return; }
    var text = 'w ' + Math.floor(box.clientWidth);
    if (text === last) { return; }
    last = text;
    input.value = text;
    input.dispatchEvent(new Event('change', {bubbles: true}));
  }
  function later() { clearTimeout(timer); timer = setTimeout(report, 250); }
  window.addEventListener('resize', later);
  document.addEventListener('click', later);
  setInterval(report, 2000);  // until the charts exist, and after tab switches without a click
}
"""


def parse_width(text: object) -> int | None:
    """A chart width from the page's ``"w <px>"``, clamped and rounded down to the step [CSS px]; None if garbage.

    Examples
    --------
    >>> [parse_width(t) for t in ("w 372", "w 50", "w 999999", "w -3", "372", None)]
    [360, 240, 1600, None, None, None]
    """
    m = _WIDTH.match(text) if isinstance(text, str) else None
    if m is None:
        return None
    px = min(max(int(m.group(1)), MIN_WIDTH_PX, MIN_CSS_PIXELS[0]), MAX_CSS_PIXELS[0])
    return px - px % WIDTH_STEP_PX


class ChartSizer:
    """Sizes of the app's figures for the width of their box.

    Parameters
    ----------
    figures : iterable of Figure
        Figures on ipympl canvases, at their designed size.
    on_resize : mapping of Figure to callable, optional
        Called with a figure's new width [CSS px] after it changes (say, to steepen tick labels).

    Attributes
    ----------
    input : ipywidgets.Text
        The hidden text box the page types the width into.
    script : ipywidgets.HTML
        Runs :data:`SCRIPT` in the page (an ``<img onerror>``: inline scripts are allowed by the CSP).
    width_px : int or None
        The last width applied [CSS px]; None: the designed sizes.
    """

    def __init__(self, figures: Iterable[Figure], on_resize: Mapping[Figure, Callable[[float], None]] | None = None):
        self.figures = tuple(figures)
        self.on_resize = dict(on_resize or {})
        # designed size of each figure [CSS px]
        self.design = {fig: tuple(fig.get_size_inches() * self._css_dpi(fig)) for fig in self.figures}
        self.width_px: int | None = None
        self.input = w.Text(value="", continuous_update=False, layout=HIDDEN, style=TEXT_STYLE)
        self.input.add_class("explorer-chart-width-in")
        self.script = shared_html(f'<img alt="" src="data:," style="display:none" '
                                    f'onerror="{html.escape(SCRIPT, quote=True)}">')

    @staticmethod
    def _css_dpi(fig: Figure) -> float:
        """The figure's dots per inch at a device pixel ratio of 1 [CSS px/in]."""
        ratio = getattr(fig.canvas, "device_pixel_ratio", 1.0) or 1.0
        return fig.dpi / ratio

    def size_px(self, fig: Figure, width_px: int | None) -> tuple[float, float]:
        """The size of ``fig`` for a box ``width_px`` wide [CSS px]: the designed size, narrower when the box is."""
        design_w, design_h = self.design[fig]
        if width_px is None or width_px >= design_w:
            return design_w, design_h
        return float(width_px), design_h

    def apply(self, width_px: int | None) -> set[Figure]:
        """Resize the figures for a box ``width_px`` wide; the figures whose size changed."""
        if width_px == self.width_px:
            return set()
        self.width_px = width_px
        changed = set()
        for fig in self.figures:
            dpi = self._css_dpi(fig)
            w_px, h_px = self.size_px(fig, width_px)
            old = fig.get_size_inches() * dpi
            if math.isclose(old[0], w_px, abs_tol=0.5) and math.isclose(old[1], h_px, abs_tol=0.5):
                continue
            fig.set_size_inches(w_px / dpi, h_px / dpi, forward=False)
            manager = getattr(fig.canvas, "manager", None)
            if manager is not None:  # tells the browser the canvas's new size (ipympl's resize protocol)
                manager.resize(*fig.bbox.size, forward=False)
            if fig in self.on_resize:
                self.on_resize[fig](w_px)
            changed.add(fig)
        return changed
