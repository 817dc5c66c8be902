"""Charts laid out again for the width the page gives them (narrow screens).

The page measures the width of the visible chart's box and sends it through
the app's front-end widget (:class:`~explorer.app.page_bridge.PageBridge`), on
load and after the window or the tab changes (debounced). The kernel clamps it, rounds it down to
:data:`WIDTH_STEP_PX`, and, when it differs from the current one, resizes the
figures to it: narrower on a phone, and on a wide screen wider, up to
:data:`GROW_WIDTH_MAX` times their designed width (issue 41). The caller lays out again only the
visible figure (one layout per message), the others when their tab opens. In a running kernel the widths are
coalesced (:class:`WidthRequests`): the latest one is laid out at most every :data:`WIDTH_COALESCE_SECONDS`.

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

import asyncio
import math
from typing import Callable, Iterable, Mapping

from matplotlib.figure import Figure

from explorer.app.ipympl_private import MAX_CSS_PIXELS, MIN_CSS_PIXELS

__all__ = ["ChartSizer", "WIDTH_STEP_PX", "parse_width", "WidthRequests", "WIDTH_COALESCE_SECONDS"]

WIDTH_STEP_PX = 20  # widths are rounded down to this step [CSS px]: dragging a window lays out at most every 20 px
#: A wide box widens the charts up to this many times their designed width, and their height by at most
#: :data:`GROW_HEIGHT_MAX` (text stays at its size in points): a 1,920 px screen is used, not left blank (issue 41).
GROW_WIDTH_MAX = 1.6
GROW_HEIGHT_MAX = 1.2
MIN_WIDTH_PX = 240  # narrowest layout [CSS px]: the breakdown's labels and bars still fit (120 px collapses it);
# a narrower box scales that layout down
#: In a running kernel, chart widths from the page are laid out at most this often, the latest one only [s].
WIDTH_COALESCE_SECONDS = 0.25


def parse_width(value: object) -> int | None:
    """A chart width the page reported, clamped and rounded down to the step [CSS px]; None if it is no width.

    Examples
    --------
    >>> [parse_width(v) for v in (372, 50, 999999, 360.7, -3, "372", None, True, float("nan"))]
    [360, 240, 1600, 360, None, None, None, None, None]
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        return None
    px = min(max(int(value), MIN_WIDTH_PX, MIN_CSS_PIXELS[0]), MAX_CSS_PIXELS[0])
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
    width_px : int or None
        The last width applied [CSS px]; None: the designed sizes.
    """

    def __init__(self, figures: Iterable[Figure], on_resize: Mapping[Figure, Callable[[float], None]] | None = None):
        self.figures = tuple(figures)
        self.on_resize = dict(on_resize or {})
        # designed size of each figure [CSS px]
        self.design = {fig: tuple(fig.get_size_inches() * self._css_dpi(fig)) for fig in self.figures}
        self.width_px: int | None = None

    @staticmethod
    def _css_dpi(fig: Figure) -> float:
        """The figure's dots per inch at a device pixel ratio of 1 [CSS px/in]."""
        ratio = getattr(fig.canvas, "device_pixel_ratio", 1.0) or 1.0
        return fig.dpi / ratio

    def size_px(self, fig: Figure, width_px: int | None) -> tuple[float, float]:
        """The size of ``fig`` for a box ``width_px`` wide [CSS px]: the box's width, from 240 px up to
        :data:`GROW_WIDTH_MAX` times the designed width; the designed height, taller by the width's growth
        up to :data:`GROW_HEIGHT_MAX` times."""
        design_w, design_h = self.design[fig]
        if width_px is None or width_px == design_w:
            return design_w, design_h
        if width_px < design_w:
            return float(width_px), design_h
        grown = min(float(width_px), design_w * GROW_WIDTH_MAX)
        return grown, design_h * min(grown / design_w, GROW_HEIGHT_MAX)

    def apply(self, width_px: int | None) -> set[Figure]:
        """Resize the figures for a box ``width_px`` wide; the figures whose size changed."""
        if width_px == self.width_px:
            return set()
        self.width_px = width_px
        return {fig for fig in self.figures if self._fit(fig, width_px)}

    def add(self, fig: Figure) -> Figure:
        """Size ``fig`` with the others from now on: a chart made after the page reported its width (the Plan
        tab's, built when first opened). Its size now is its designed size; it is laid out for the last width
        at once, before its first draw. Returns ``fig``."""
        if fig not in self.design:
            self.figures += (fig,)
            self.design[fig] = tuple(fig.get_size_inches() * self._css_dpi(fig))
            self._fit(fig, self.width_px)
        return fig

    def _fit(self, fig: Figure, width_px: int | None) -> bool:
        """Resize ``fig`` for a box ``width_px`` wide; whether its size changed."""
        dpi = self._css_dpi(fig)
        w_px, h_px = self.size_px(fig, width_px)
        old = fig.get_size_inches() * dpi
        if math.isclose(old[0], w_px, abs_tol=0.5) and math.isclose(old[1], h_px, abs_tol=0.5):
            return False
        fig.set_size_inches(w_px / dpi, h_px / dpi, forward=False)
        manager = getattr(fig.canvas, "manager", None)
        if manager is not None:  # tells the browser the canvas's new size (ipympl's resize protocol)
            manager.resize(*fig.bbox.size, forward=False)
        if fig in self.on_resize:
            self.on_resize[fig](w_px)
        return True


class WidthRequests:
    """The chart widths the page reports, laid out at once, or in a running kernel the latest one at most every
    :data:`WIDTH_COALESCE_SECONDS` (a flood of widths costs one layout, not one each).

    Parameters
    ----------
    lay_out : callable
        ``lay_out(width_px)``: lay the charts out for a box ``width_px`` wide [CSS px] (a width from
        :func:`parse_width`).

    Attributes
    ----------
    coalesce : bool or None
        Coalesce widths: None (the default) only in a running IPython kernel (Voila, JupyterLab), where the comm
        handler runs on the kernel's event loop; True or False force it. Another library's loop in the same thread
        (playwright's, in a test process) never runs the deferred layout, so a running loop is not enough.
    """

    def __init__(self, lay_out: Callable[[int], None]):
        self.lay_out = lay_out
        self.coalesce: bool | None = None
        self._pending_px: int | None = None  # a width waiting to be laid out [CSS px]
        self._scheduled = False

    def on_width(self, change: dict) -> None:
        """The observer of the page's ``chart_width``: garbage is ignored, a width laid out now or coalesced."""
        width = parse_width(change["new"])
        if width is None:
            return
        loop = self.event_loop()
        if loop is None:  # headless use (tests, a script): lay out now
            self.lay_out(width)
            return
        self._pending_px = width
        if not self._scheduled:
            self._scheduled = True
            loop.call_later(WIDTH_COALESCE_SECONDS, self._lay_out_pending)

    def event_loop(self) -> asyncio.AbstractEventLoop | None:
        """The running kernel's event loop, where the app coalesces or defers work (as widths are), else None."""
        if not self._in_kernel():
            return None
        try:
            return asyncio.get_running_loop()
        except RuntimeError:
            return None

    def _in_kernel(self) -> bool:
        if self.coalesce is not None:
            return self.coalesce
        try:
            from ipykernel.kernelapp import IPKernelApp
        except ImportError:
            return False
        return IPKernelApp.initialized()

    def _lay_out_pending(self) -> None:
        self._scheduled = False
        if self._pending_px is not None:
            width, self._pending_px = self._pending_px, None
            self.lay_out(width)
