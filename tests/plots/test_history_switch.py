"""The History chart switches language and currency cheaply and still shows the same thing.

Its label placement is cached per process and computed without a full draw;
the app's marker blitter keeps a background per language, currency and
limits. These tests pin what the viewer sees: yuan ticks at the USD positions,
labels that do not overlap and form a column, a cached layout equal to a fresh
one, and images from the caches equal to full draws.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import matplotlib

matplotlib.use("Agg")

from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.text import Text  # noqa: E402

from explorer.plots import history as ph  # noqa: E402
from explorer.plots import label_placement  # noqa: E402
from explorer.plots.fonts import cjk_font  # noqa: E402

FX = 7.084  # CNY per USD, a rate that puts yuan ticks between USD decades


def _figure(language="en"):
    fig = Figure(figsize=(13.0, 7.8), dpi=66, layout="constrained")
    FigureCanvasAgg(fig)
    return ph.history_figure(figure=fig, language=language)


def _label_boxes(fig):
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    # the text only (an annotation's own extent includes its leader line)
    return [Text.get_window_extent(a, renderer) for a in fig.history_handles.point_labels]


def _overlaps(boxes, tol=1.0):
    """Pairs of label boxes that overlap by more than ``tol`` px each way."""
    out = []
    for i, a in enumerate(boxes):
        for j in range(i + 1, len(boxes)):
            b = boxes[j]
            if min(a.x1, b.x1) - max(a.x0, b.x0) > tol and min(a.y1, b.y1) - max(a.y0, b.y0) > tol:
                out.append((i, j))
    return out


def _specs(fig):
    return [(a.get_text(), a.xy, tuple(np.round(a.xyann, 6)), a.get_ha(), a.get_va(), a.arrow_patch is not None)
            for a in fig.history_handles.point_labels]


def test_cny_ticks_are_yuan_at_usd_positions():
    fig = _figure()
    ph.set_history_currency(fig, "CNY", FX)
    fig.canvas.draw()
    ax = fig.history_handles.ax
    y0, y1 = ax.get_ylim()
    ticks = [(t.get_loc(), t.label1.get_text()) for t in ax.yaxis.get_major_ticks()
             if y0 <= t.get_loc() <= y1 and t.label1.get_text()]
    assert len(ticks) >= 6
    for usd, text in ticks:
        assert text.startswith("¥"), text
        yuan = usd * FX  # the data stay in USD: a tick sits at its yuan amount / rate
        assert abs(np.log10(yuan) - round(np.log10(yuan))) < 1e-9, (usd, text)
    # by hand: one billion yuan is 1e9 / 7.084 = 141,163,184.6 USD
    assert dict((text, usd) for usd, text in ticks)["¥1B"] == pytest.approx(141_163_184.6, rel=1e-9)
    assert "7.084 CNY/USD" in ax.get_ylabel()
    crossing_texts = [t.get_text() for _c, t in fig.history_handles.crossing_labels]
    assert crossing_texts and all("¥" in t for t in crossing_texts)
    # and back: dollar ticks at the decades
    ph.set_history_currency(fig, "USD")
    fig.canvas.draw()
    texts = [t.label1.get_text() for t in ax.yaxis.get_major_ticks() if y0 <= t.get_loc() <= y1]
    assert "$1M" in texts and not any("¥" in t for t in texts)


def test_placement_needs_no_full_draw():
    fig = Figure(figsize=(13.0, 7.8), dpi=66, layout="constrained")
    FigureCanvasAgg(fig)
    draws = []
    fig.canvas.mpl_connect("draw_event", lambda _e: draws.append(1))
    label_placement.PLACEMENTS.clear()
    ph.history_figure(figure=fig)
    assert draws == []


def test_cached_layout_equals_a_fresh_layout():
    label_placement.PLACEMENTS.clear()
    fresh = _specs(_figure("en"))
    assert len(label_placement.PLACEMENTS) == 1
    fig = _figure("en")  # from the cache
    assert _specs(fig) == fresh
    # computed again on a figure that was drawn in another language first: the same
    ph.history_figure(figure=fig, language="zh")
    fig.canvas.draw()
    label_placement.PLACEMENTS.clear()
    ph.history_figure(figure=fig, language="en")
    assert _specs(fig) == fresh


def test_labels_do_not_overlap_after_switching_language_back_and_forth():
    label_placement.PLACEMENTS.clear()
    fig = _figure("en")
    first = _label_boxes(fig)
    assert not _overlaps(first)
    for language in ("zh", "en", "zh"):
        ph.history_figure(figure=fig, language=language)
        assert not _overlaps(_label_boxes(fig)), language
    ph.history_figure(figure=fig, language="en")
    again = _label_boxes(fig)
    assert [tuple(np.round(b.bounds, 3)) for b in again] == [tuple(np.round(b.bounds, 3)) for b in first]


def test_recent_labels_form_a_column_on_the_first_render():
    # the column's left edges line up: the placement used the axes position of the final layout
    label_placement.PLACEMENTS.clear()
    fig = _figure("en")
    boxes = _label_boxes(fig)
    h = fig.history_handles
    column = [b for a, b in zip(h.point_labels, boxes) if a.xy[0] >= ph.COLUMN_FROM_YEAR]
    assert len(column) >= 5
    assert max(b.x0 for b in column) - min(b.x0 for b in column) < 1.0


@pytest.mark.skipif(cjk_font() is None, reason="no font covers Chinese")
def test_no_missing_glyphs_in_chinese_fresh_or_cached():
    label_placement.PLACEMENTS.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(2):  # fresh, then from the cache
            fig = _figure("zh")
            ph.set_history_currency(fig, "CNY", FX)
            fig.canvas.draw()
            assert fig.history_handles.language == "zh"
    missing = [str(w.message) for w in caught if re.search(r"[Gg]lyph.*missing", str(w.message))]
    assert missing == []


# -- the app: images from the caches equal full draws ------------------------------------------

@pytest.fixture
def app(make_app):
    """A fresh app on the History tab whose history canvas has connected."""
    from explorer.app.ipympl_private import page_connected

    app = make_app()
    page_connected(app.history_fig.canvas)
    app.tabs.selected_index = 2
    return app


def _image(fig):
    return np.asarray(fig.canvas.buffer_rgba()).copy()


def _full_draw_image(fig):
    """What a full draw shows now (the blitter draws the marker over it)."""
    fig.history_handles.blitter.background = None
    fig.canvas.draw()
    return _image(fig)


def _assert_same(a, b):
    diff = np.abs(a.astype(int) - b.astype(int))
    # anti-aliasing of the blitted marker may differ by one level in a few pixels
    assert diff.max() <= 1 and (diff > 0).sum() < 200, ((diff > 0).sum(), diff.max())


def test_currency_switched_back_is_restored_not_drawn(app):
    fig = app.history_fig
    app.controls["currency"].value = "CNY"
    app.controls["currency"].value = "USD"
    draws = []
    cid = fig.canvas.mpl_connect("draw_event", lambda _e: draws.append(1))
    try:
        app.controls["currency"].value = "CNY"
        cny = _image(fig)
        app.controls["currency"].value = "USD"
        usd = _image(fig)
    finally:
        fig.canvas.mpl_disconnect(cid)
    assert draws == []  # both from the background cache
    assert not np.array_equal(cny, usd)
    _assert_same(usd, _full_draw_image(fig))
    app.controls["currency"].value = "CNY"
    _assert_same(cny, _full_draw_image(fig))
    app.controls["currency"].value = "USD"


def test_language_switched_back_shows_what_a_full_draw_shows(app):
    for language in ("zh", "en", "zh"):
        app.controls["language"].value = language
    fig = app.history_fig  # the chart of the language shown: one is kept per language
    zh = _image(fig)
    assert fig.history_handles.language == ("zh" if cjk_font() else "en")
    _assert_same(zh, _full_draw_image(fig))
    app.controls["language"].value = "en"
    fig = app.history_fig
    en = _image(fig)
    _assert_same(en, _full_draw_image(fig))


def test_background_cache_is_bounded(app):
    for language in ("zh", "en"):
        app.controls["language"].value = language
        for currency in ("CNY", "USD"):
            app.controls["currency"].value = currency
    assert 0 < len(app.history.backgrounds) <= 4


def test_app_first_render_has_the_label_column_aligned(make_app):
    # the first build of the app's chart is laid out on its own canvas; the column of recent labels must
    # line up when the tab is first shown (it did not when the placement used a throw-away layout)

    fresh = make_app(query_string="")
    fresh.tabs.selected_index = 2
    fig = fresh.history_fig
    renderer = fig.canvas.get_renderer()
    h = fig.history_handles
    column = [Text.get_window_extent(a, renderer) for a in h.point_labels if a.xy[0] >= ph.COLUMN_FROM_YEAR]
    assert len(column) >= 5
    assert max(b.x0 for b in column) - min(b.x0 for b in column) < 1.0


# -- the app: a chart per language, kept --------------------------------------------------------

def _pushed_images(canvas):
    """The images ``canvas`` sends the page from now on, decoded (each whole: see ``_push_whole``)."""
    import io
    import json

    from PIL import Image

    images = []
    original = canvas.send

    def send(content, buffers=None):
        if json.loads(content["data"])["type"] == "binary":
            images.append(np.asarray(Image.open(io.BytesIO(bytes(buffers[0])))).copy())
        return original(content, buffers=buffers)

    canvas.send = send
    return images


def _push_whole(canvas):
    """Make the next image sent whole, not a difference from the one before (which the page holds)."""
    canvas._force_full = True


@pytest.mark.parametrize("ratio", [1, 2])
def test_a_language_switched_back_shows_its_first_image_and_builds_nothing(monkeypatch, ratio, make_app):
    """A repeat switch on the History tab builds no chart and pushes exactly the first image of that language
    (at a pixel ratio of 2 a rebuild laid the labels out at the screen's dpi, unlike the first build)."""
    from explorer.plots import history as plots_history

    app = make_app(query_string="")
    canvas = app.history_fig.canvas
    for message in ({"type": "send_image_mode"}, {"type": "refresh"}, {"type": "initialized"},
                    {"type": "set_device_pixel_ratio", "device_pixel_ratio": ratio}):
        canvas._handle_message(canvas, message, [])
    images = _pushed_images(canvas)
    app.tabs.selected_index = 2  # the first render: the reference
    assert len(images) == 1  # whole: the page had no image of the chart
    first, built, artists = {}, {}, {}

    def keep_first():
        shown = app.history_fig.history_handles.language  # "en" for "zh" when no font covers Chinese
        if shown not in first:
            first[shown], built[shown] = images[-1], app.history_fig
            artists[shown] = set(map(id, app.history_fig.findobj()))
        return shown

    keep_first()
    _push_whole(canvas)
    app.controls["language"].value = "zh"  # the first render in Chinese: built
    keep_first()

    builds = []
    real = plots_history._draw  # what draws a chart, for HistoryPlot and history_figure alike
    monkeypatch.setattr(plots_history, "_draw", lambda *a, **k: builds.append(1) or real(*a, **k))
    for language in ("en", "zh", "en", "zh"):
        _push_whole(canvas)
        count = len(images)
        app.controls["language"].value = language
        assert len(images) == count + 1, "one image per switch"
        shown = keep_first()
        np.testing.assert_array_equal(images[-1], first[shown])
        assert builds == []
        assert app.history_fig is built[shown] and app.history_fig.canvas is canvas
        assert set(map(id, app.history_fig.findobj())) == artists[shown]  # no artist made or dropped
    # the chart not shown holds no background of its own: only the shared cache does, four at most
    hidden = [fig for fig in built.values() if fig is not app.history_fig]
    assert all(fig.history_handles.blitter.background is None for fig in hidden)
    assert len(app.history.backgrounds) <= 4


def test_a_kept_chart_comes_back_with_the_limits_it_was_built_with(app):
    """A marker only ever widens the limits; the chart of a language switched back shows them as built."""
    app.controls["language"].value = "en"
    ax = app.history_fig.history_handles.ax
    limits = (ax.get_xlim(), ax.get_ylim())
    ax.set_ylim(1.0, 1e15)  # as a marker far off the chart leaves them
    app.controls["language"].value = "zh"
    app.controls["language"].value = "en"
    assert app.history_fig.history_handles.ax is ax
    assert (ax.get_xlim(), ax.get_ylim()) == limits
