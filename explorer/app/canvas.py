"""The ipympl canvas of the app's charts, with every message from the browser checked.

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

import numpy as np
from PIL import Image

from ipympl.backend_nbagg import Canvas

__all__ = ["GuardedCanvas", "MAX_DEVICE_PIXEL_RATIO", "MAX_CSS_PIXELS"]

MAX_DEVICE_PIXEL_RATIO = 2.0  # a high-density phone screen; 3 would triple memory and render time again
MAX_CSS_PIXELS = (1600, 1200)  # the largest chart the layout can show [CSS px]
MIN_CSS_PIXELS = (120, 80)
# Messages the page sends to a chart; everything else is dropped.
_PASS = {"initialized", "closing", "refresh", "draw", "ack", "send_image_mode"}
_RATIO = {"set_device_pixel_ratio": "device_pixel_ratio", "set_dpi_ratio": "dpi_ratio"}


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
