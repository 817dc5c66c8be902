"""Charts on hidden tabs do not render when a page connects; they render when their tab is shown.

A connecting page asks every chart canvas for a full draw, hidden tabs included.
The kernel answers only the chart on screen, and the others when their tab opens.
"""

from __future__ import annotations

import json

import pytest

from explorer.app import ExplorerApp


def _instrument(canvas):
    """Count full renders of ``canvas``'s figure and record what it sends to the browser."""
    renders, sent = [], []
    canvas.mpl_connect("draw_event", lambda event: renders.append(event))
    original = canvas.send

    def send(content, buffers=None):
        sent.append((json.loads(content["data"])["type"], buffers))
        return original(content, buffers=buffers)

    canvas.send = send
    return renders, sent


def _connect(canvas, ratio=None):
    """The messages a chart view sends when a page connects (ipympl's mpl_widget.js)."""
    for message in ({"type": "send_image_mode"}, {"type": "refresh"}, {"type": "initialized"}):
        canvas._handle_message(canvas, message, [])
    if ratio is not None:
        canvas._handle_message(canvas, {"type": "set_device_pixel_ratio", "device_pixel_ratio": ratio}, [])
    canvas._handle_message(canvas, {"type": "draw"}, [])  # the page answers draw_idle's "draw" event


@pytest.fixture()
def app():
    return ExplorerApp(query_string="")


def test_a_hidden_chart_does_not_render_until_its_tab_is_shown(app):
    history = app.history_fig.canvas
    renders, sent = _instrument(history)
    _connect(history)
    assert renders == [] and not [kind for kind, _ in sent if kind == "binary"]
    assert history.deferred

    app.tabs.selected_index = 2  # the viewer opens the History tab
    images = [buffers for kind, buffers in sent if kind == "binary"]
    assert len(images) == 1, "the current image, sent once"
    assert bytes(images[0][0][:8]) == b"\x89PNG\r\n\x1a\n"
    assert not history.deferred and history._force_full is False  # a whole image went out, not a difference
    assert len(renders) <= 1


def test_the_chart_on_screen_renders_at_once(app):
    breakdown = app.breakdown.figure.canvas
    renders, sent = _instrument(breakdown)
    _connect(breakdown)
    assert len(renders) >= 1
    assert [kind for kind, _ in sent if kind == "binary"]


def test_a_pixel_ratio_set_while_hidden_renders_when_shown(app):
    waterfall = app.waterfall.figure.canvas
    renders, sent = _instrument(waterfall)
    width_1x = waterfall.get_renderer().width
    _connect(waterfall, ratio=2)
    assert renders == []
    app.tabs.selected_index = 1
    assert len(renders) == 1
    assert waterfall.get_renderer().width == 2 * width_1x  # rendered again at the new ratio
    assert [kind for kind, _ in sent if kind == "binary"]


def test_a_client_asking_hidden_charts_to_draw_costs_no_render(app):
    history = app.history_fig.canvas
    renders, _ = _instrument(history)
    for _ in range(200):
        history._handle_message(history, {"type": "draw"}, [])
        history._handle_message(history, {"type": "refresh"}, [])
    assert renders == []


def test_analysis_charts_defer_until_their_tab_or_mode_is_shown(app):
    compare = app.analysis.compare_plot.figure.canvas
    lever = app.analysis.lever_plot.figure.canvas
    renders, sent = _instrument(compare)
    lever_renders, lever_sent = _instrument(lever)
    _connect(compare)
    _connect(lever)
    assert renders == [] and lever_renders == []

    app.tabs.selected_index = 3  # Compare
    assert [kind for kind, _ in sent if kind == "binary"], "the compare chart gets its image when its tab opens"
    assert lever_renders == []  # still hidden

    app.tabs.selected_index = 1  # What changed, by dimension: the lever chart stays hidden
    assert lever_renders == [] and not lever.shown
    app.analysis.mode.value = "lever"
    assert [kind for kind, _ in lever_sent if kind == "binary"]
    assert not app.waterfall.figure.canvas.shown  # the by-dimension chart is hidden now
