"""Issue 17: the image a page loads first is a loadable ``data:`` URL, whenever it was drawn (headless)."""

from __future__ import annotations

import base64
import io

import pytest
from PIL import Image

from explorer.app.explorer_app import TAB_KEYS

PREFIX = "data:image/png;base64,"


def _image(url: str) -> Image.Image:
    assert url.startswith(PREFIX), url[:40]
    return Image.open(io.BytesIO(base64.b64decode(url[len(PREFIX):])))


@pytest.mark.parametrize("query", ["lang=zh", "preset=deepseek_v3&lang=zh", "lang=zh&pricing=spot"])
def test_share_link_redraws_keep_the_data_url_prefix(query, make_app):
    """A link applied after the app was built (the notebook's path) redraws the charts before any page is there.

    ipympl stored those images as bare base64, which the page loaded as a relative URL (a blank chart).
    """
    app = make_app(query_string="")
    app.apply_query(query)
    fig = app.breakdown.figure  # the chart on screen (the others draw when their tab opens)
    url = fig.canvas._data_url
    assert url is not None
    if True:
        img = _image(url)
        assert img.size == tuple(int(v) for v in fig.bbox.size), (img.size, fig.bbox.size)
        assert img.getextrema()[0][0] < 200  # something dark is drawn (text, bars)


def test_every_chart_drawn_before_a_page_connects_is_a_data_url(make_app):
    """The chart on screen is drawn at once, the others when their tab opens; each image is a loadable PNG."""
    app = make_app(query_string="lang=zh")
    app.controls["params"].value = 7e9  # a control change before any page connected
    charts = {"breakdown": app.breakdown.figure, "waterfall": app.waterfall.figure, "history": app.history_fig}
    drawn = {name for name, fig in charts.items() if fig.canvas._data_url is not None}
    assert drawn == {"breakdown"}  # the first tab's chart; hidden tabs cost their kernel nothing yet
    for name, fig in charts.items():
        app.tabs.selected_index = TAB_KEYS.index(name)
        fig = app.history_fig if name == "history" else fig  # the History figure follows the language
        img = _image(fig.canvas._data_url)
        assert img.size == tuple(int(v) for v in fig.bbox.size), (name, img.size, fig.bbox.size)
        assert img.getextrema()[0][0] < 200, name  # something dark is drawn (text, bars)


def test_images_go_as_png_and_after_the_page_initialized_not_into_the_state(make_app):
    """ipympl sent the raw pixel buffer as the "PNG" until the page said ``initialized``."""
    app = make_app(query_string="lang=zh")
    canvas = app.breakdown.figure.canvas
    sent = []
    canvas.send = lambda content, buffers=None: sent.append((content, buffers))
    canvas._force_full = True
    canvas.draw()
    assert bytes(sent[-1][1][0])[:8] == b"\x89PNG\r\n\x1a\n"
    canvas._handle_message(canvas, {"type": "initialized"}, [])
    before = canvas._data_url
    canvas.draw()
    binaries = [b for c, b in sent if c == {"data": '{"type": "binary"}'}]
    assert binaries and bytes(binaries[-1][0])[:8] == b"\x89PNG\r\n\x1a\n"
    assert canvas._data_url == before
