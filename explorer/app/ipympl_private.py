"""Every private ipympl and matplotlib name the app uses, and the ipympl canvas of its charts.

This is the one module of the package that touches names ipympl or matplotlib
do not document. An upgrade that renames one breaks the app here and nowhere
else, and ``tests/app/test_ipympl_private.py`` fails naming it
(:data:`PRIVATE_NAMES` lists them; ``pyproject.toml`` pins ipympl to the minor
version they were checked against). The private names and why each is used:

``ipympl.backend_nbagg.Canvas._handle_message``
    Overridden by :class:`GuardedCanvas` to check every message a page sends a chart.
``ipympl.backend_nbagg.Canvas._data_url``, ``syncing_data_url``
    The image a page loads first; :meth:`GuardedCanvas.send_binary` writes it whole, with its prefix.
``matplotlib.backends.backend_webagg_core.FigureCanvasWebAggCore._last_buff``
    The last rendered pixels, encoded into ``_data_url``.
``..._force_full``, ``..._png_is_old``
    Make the next image a whole one (not a difference from an image the page does not hold), and re-encode
    the current buffer without rendering again (:meth:`GuardedCanvas.reveal`).
``..._capture_scroll``
    Sent again to a page that connected while the chart was hidden.
``matplotlib.backend_bases.FigureCanvasBase._set_device_pixel_ratio``
    A pixel ratio reported while a chart is hidden is applied without a render.
``matplotlib.figure.Figure._original_dpi``, ``Figure._set_dpi``
    A figure moved onto a canvas takes the canvas's pixel ratio (:func:`attach_figure`); downloads are
    drawn at 1x (:func:`original_dpi`).

The canvas
----------

Any viewer can send a chart's canvas any message over the kernel websocket.
ipympl obeys ``{"type": "resize", "width": 10000, "height": 10000}`` and
``set_device_pixel_ratio`` without bounds, even with ``resizable=False``, and
the next ``draw`` then renders an image of hundreds of megabytes (a kernel grew
from 372 MB to 1,333 MB, and past 4 GB with a pixel ratio of 2).
:class:`GuardedCanvas` accepts only the messages the page needs, clamps the
pixel ratio, ignores resizes unless the canvas is resizable and clamps them
when it is, and ignores mouse, keyboard and toolbar events (the charts have
none).

It also draws only charts that are on screen. When a page connects, every
chart's canvas asks for a full draw, hidden tabs included (six in this
app, the history chart the dearest). A canvas whose ``shown`` is False
notes the request instead, and :meth:`GuardedCanvas.reveal` answers it when
the app shows the chart.

And it keeps the image a page loads first loadable. Until a page has said
``initialized``, ipympl stores each rendered image in the synced ``_data_url``
trait as bare base64, without its ``data:image/png;base64,`` prefix
(``ipympl.backend_nbagg.Canvas.send_binary``, 0.9-0.10). A page that connects
then sets ``<img src="iVBORw0KGgo...">``: the browser asks the server for that
relative URL (403), the image is "broken", the model's ``change:_size`` handler
throws on ``drawImage`` ("Error setting state"), and the chart stays 0 x 0
until a resize. Any draw between building a figure and the page connecting
hits it: a share link with ``lang=zh`` relaid every chart in Chinese there.
:meth:`GuardedCanvas.send_binary` writes the prefix (and sends the PNG, where
ipympl sent the raw pixel buffer).
"""

from __future__ import annotations

import io
import math
from base64 import b64encode
from typing import cast

import numpy as np
from PIL import Image

from ipympl.backend_nbagg import Canvas, FigureManager
from matplotlib.figure import Figure

__all__ = ["GuardedCanvas", "MAX_DEVICE_PIXEL_RATIO", "MAX_CSS_PIXELS", "PRIVATE_NAMES", "attach_figure",
           "canvas_of", "original_dpi", "page_connected", "image_url", "widget_figure"]

MAX_DEVICE_PIXEL_RATIO = 2.0  # a high-density phone screen; 3 would triple memory and render time again
MAX_CSS_PIXELS = (1600, 1200)  # the largest chart the layout can show [CSS px]
MIN_CSS_PIXELS = (120, 80)
# Messages the page sends to a chart; everything else is dropped.
_PASS = {"initialized", "closing", "refresh", "draw", "ack", "send_image_mode"}
_RATIO = {"set_device_pixel_ratio": "device_pixel_ratio", "set_dpi_ratio": "dpi_ratio"}

#: (module, class or None, name, how it is used): every private name this module relies on. "read" names
#: must exist on the class; "source" names are attributes the library sets and reads on an instance, so its
#: module's source must still mention them (setting one the library no longer reads would do nothing).
PRIVATE_NAMES = (
    ("ipympl.backend_nbagg", "Canvas", "_handle_message", "read"),
    ("ipympl.backend_nbagg", "Canvas", "_data_url", "read"),
    ("ipympl.backend_nbagg", "Canvas", "syncing_data_url", "source"),
    ("matplotlib.backends.backend_webagg_core", "FigureCanvasWebAggCore", "_last_buff", "source"),
    ("matplotlib.backends.backend_webagg_core", "FigureCanvasWebAggCore", "_force_full", "source"),
    ("matplotlib.backends.backend_webagg_core", "FigureCanvasWebAggCore", "_png_is_old", "source"),
    ("matplotlib.backends.backend_webagg_core", "FigureCanvasWebAggCore", "_capture_scroll", "source"),
    ("matplotlib.backend_bases", "FigureCanvasBase", "_set_device_pixel_ratio", "read"),
    ("matplotlib.backend_bases", "FigureCanvasBase", "_original_dpi", "source"),
    ("matplotlib.figure", "Figure", "_set_dpi", "read"),
)


def _clamped(value: object, lo: float, hi: float) -> float | None:
    """``value`` as a finite number clamped to [lo, hi], or None when it is not a number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return min(max(float(value), lo), hi)


class GuardedCanvas(Canvas):
    """An ipympl ``Canvas`` whose browser messages are checked and bounded (see the module docstring).

    Attributes
    ----------
    shown : bool
        Whether the chart is on screen (set by the app). A hidden canvas defers
        the browser's draw requests until :meth:`reveal`.
    deferred : bool
        A draw request is waiting for :meth:`reveal`.
    """

    shown = True
    deferred = False
    _stale_pixels = False  # the pixel ratio changed while hidden: the buffer must be rendered again

    def _handle_message(self, object, content, buffers):  # noqa: A002 - ipympl's signature
        kind = content.get("type") if isinstance(content, dict) else None
        if kind in ("refresh", "draw") and not self.shown:
            self.deferred = True
            return None
        if kind in _PASS:
            return super()._handle_message(object, {"type": kind}, buffers)
        if kind in _RATIO:
            ratio = _clamped(content.get(_RATIO[kind]), 1.0, MAX_DEVICE_PIXEL_RATIO)
            if ratio is not None and not self.shown:
                if self._set_device_pixel_ratio(ratio):  # the figure's dpi follows; render when shown
                    self.deferred = self._stale_pixels = True
            elif ratio is not None:
                super()._handle_message(object, {"type": kind, _RATIO[kind]: ratio}, buffers)
            return None
        if kind == "resize" and self.resizable:
            width = _clamped(content.get("width"), MIN_CSS_PIXELS[0], MAX_CSS_PIXELS[0])
            height = _clamped(content.get("height"), MIN_CSS_PIXELS[1], MAX_CSS_PIXELS[1])
            if width is not None and height is not None:
                super()._handle_message(object, {"type": "resize", "width": int(width), "height": int(height)},
                                        buffers)
        return None

    def send_binary(self, data: bytes) -> None:
        """Send a rendered image; before a page is there, also keep it whole as a ``data:`` URL.

        ``data`` is the PNG the manager made (whole or a difference from the last
        image). ``_data_url`` is what a page that connects later loads first, so it
        holds the whole current buffer, with its ``data:image/png;base64,`` prefix.
        """
        if self.syncing_data_url:
            pixels = self._last_buff.view(dtype=np.uint8).reshape((*self._last_buff.shape, 4))
            with io.BytesIO() as png:
                Image.fromarray(pixels).save(png, format="png")
                self._data_url = "data:image/png;base64," + b64encode(png.getvalue()).decode("ascii")
        self.send({"data": '{"type": "binary"}'}, buffers=[data])

    def reveal(self, *, draw: bool = True) -> None:
        """The chart is on screen: answer the draw request it deferred while hidden, if any.

        Parameters
        ----------
        draw : bool
            Push the image now: the last rendered buffer, or a fresh render if
            the pixel ratio changed. False when the caller draws next (the next
            image then goes out whole, not as a difference).
        """
        self.shown = True
        if not self.deferred:
            return
        self.deferred = False
        if self.manager is not None:
            self.send_event("figure_label", label=self.manager.get_window_title())
        self.send_event("capture_scroll", capture_scroll=getattr(self, "_capture_scroll", False))
        self._force_full = True  # the browser holds no image of this canvas to apply a difference to
        if self._stale_pixels or not draw:
            self._stale_pixels = False
            if draw:
                self.draw()
            return
        self._png_is_old = True
        if self.manager is not None:
            self.manager.refresh_all()  # the current buffer, encoded once, without rendering again


def widget_figure(width_in: float, height_in: float, dpi: float = 96, figure: Figure | None = None) -> Figure:
    """A figure shown through a :class:`GuardedCanvas` widget (no pyplot); ``figure`` attaches an existing one.

    The canvas shows the image only: no header, footer, toolbar, resize handle or scroll capture.
    """
    fig = figure if figure is not None else Figure(figsize=(width_in, height_in), dpi=dpi, layout="constrained")
    canvas = GuardedCanvas(fig)
    with canvas.hold_sync():  # one message to the page for these six settings, not six
        FigureManager(canvas, 0)
        canvas.header_visible = False
        canvas.footer_visible = False
        canvas.toolbar_visible = False
        canvas.resizable = False
        canvas.capture_scroll = False
    return fig


def attach_figure(fig: Figure, canvas: GuardedCanvas) -> None:
    """Show ``fig`` on ``canvas`` instead of the canvas's figure (no draw).

    The figure takes the dpi of the canvas's device pixel ratio (set on the
    figure shown when the page reported it), so it renders at the size of the
    image the page holds and into the same buffer.
    """
    canvas.figure = fig
    fig.set_canvas(canvas)
    # both private names are in PRIVATE_NAMES (checked against the installed matplotlib); its stubs omit them
    dpi = canvas.device_pixel_ratio * fig._original_dpi  # type: ignore[attr-defined]  # set by FigureCanvasBase
    if fig.dpi != dpi:
        fig._set_dpi(dpi, forward=False)  # type: ignore[attr-defined]  # private: no redraw, unlike set_dpi


def canvas_of(fig: Figure) -> GuardedCanvas:
    """The widget canvas of ``fig``, a figure made by :func:`widget_figure` (or given to :func:`attach_figure`).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        A figure shown through a :class:`GuardedCanvas`.

    Returns
    -------
    GuardedCanvas
        ``fig.canvas``, typed as the widget it is (matplotlib types it as its base canvas, which has no
        widget traits such as ``layout`` or ``add_class``); not checked at run time.
    """
    return cast(GuardedCanvas, fig.canvas)


def original_dpi(fig: Figure) -> float:
    """The dots per inch of ``fig`` at a device pixel ratio of 1 [px/in] (a canvas raises ``fig.dpi`` with it)."""
    return getattr(fig, "_original_dpi", fig.dpi)


def page_connected(canvas: GuardedCanvas) -> None:
    """Tell ``canvas`` a page holds it, as ipympl's front end does on load (``initialized``), for headless use."""
    canvas._handle_message(canvas, {"type": "initialized"}, [])


def image_url(canvas: GuardedCanvas) -> str:
    """The image a page that connects now loads first: a ``data:image/png;base64,`` URL once a chart was drawn."""
    return canvas._data_url
