"""Charts on hidden tabs do not render when a page connects; they render when their tab is shown.

A connecting page asks every chart canvas for a full draw, hidden tabs included.
The kernel answers only the chart on screen, and the others when their tab opens.
"""

from __future__ import annotations

import json
import re




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
    assert not app.analysis.compare.built  # the Compare tab and its chart are built when it is first opened
    lever = app.analysis.what_changed.lever_plot.figure.canvas
    lever_renders, lever_sent = _instrument(lever)
    _connect(lever)
    assert lever_renders == []

    app.tabs.selected_index = 3  # Compare
    compare = app.analysis.compare.compare_plot.figure.canvas
    renders, sent = _instrument(compare)
    _connect(compare)  # the page shows the new canvas and connects
    assert [kind for kind, _ in sent if kind == "binary"], "the compare chart gets its image when its tab opens"
    assert lever_renders == []  # still hidden

    app.tabs.selected_index = 1  # What changed, by dimension: the lever chart stays hidden
    assert lever_renders == [] and not lever.shown
    app.analysis.what_changed.mode.value = "lever"
    assert [kind for kind, _ in lever_sent if kind == "binary"]
    assert not app.waterfall.figure.canvas.shown  # the by-dimension chart is hidden now


def _all_canvases(app):
    """The canvases a new app has (Compare and Uncertainty get theirs when their tab is first opened)."""
    return {"breakdown": app.breakdown.figure.canvas, "waterfall": app.waterfall.figure.canvas,
            "history": app.history_fig.canvas, "lever": app.analysis.what_changed.lever_plot.figure.canvas}


def test_each_action_sends_each_chart_at_most_one_image(make_app, monkeypatch):
    """ipympl's page keeps one ``Image``: a second image sent before the first loaded replaces it, so a
    full image followed by a difference leaves only the difference (a blank chart, when the page had no
    image of it yet). Every action must send each chart at most one image, and whole when it is the first."""
    from explorer.app.tabs.analysis_tab import AnalysisTab

    app = make_app(query_string="")
    canvases = _all_canvases(app)
    sent = {name: _instrument(canvas)[1] for name, canvas in canvases.items()}
    for canvas in canvases.values():
        _connect(canvas)
    new: list[str] = []  # canvases of tabs built by the last action: the page connects to them after it
    modes: dict[str, list] = {}  # the image mode of every image a canvas born in an action sent
    build = AnalysisTab.build

    def build_and_watch(tab):
        was = tab.built
        build(tab)
        if not was:  # watched from its birth: what it sends before the page connects counts too
            canvas = tab.figure.canvas
            canvases[tab.key] = canvas
            sent[tab.key] = _instrument(canvas)[1]
            modes[tab.key] = []
            send = canvas.send

            def send_and_note(content, buffers=None):
                if buffers:
                    modes[tab.key].append(canvas._image_mode)
                return send(content, buffers=buffers)

            canvas.send = send_and_note
            new.append(tab.key)

    monkeypatch.setattr(AnalysisTab, "build", build_and_watch)

    def images() -> dict[str, int]:
        counts = {name: sum(kind == "binary" for kind, _ in log) for name, log in sent.items()}
        for log in sent.values():
            log.clear()
        return counts

    on_connect = images()
    assert max(on_connect.values()) <= 1, ("on connect", on_connect)
    actions = [
        ("language zh", lambda: setattr(app.controls["language"], "value", "zh")),
        ("open What changed", lambda: setattr(app.tabs, "selected_index", 1)),
        ("open History", lambda: setattr(app.tabs, "selected_index", 2)),
        ("language en on History", lambda: setattr(app.controls["language"], "value", "en")),
        ("open Compare", lambda: setattr(app.tabs, "selected_index", 3)),
        ("open Uncertainty", lambda: setattr(app.tabs, "selected_index", 4)),
        ("GPUs on Uncertainty", lambda: setattr(app.controls["gpus"], "value", 512)),
        ("back to What changed", lambda: setattr(app.tabs, "selected_index", 1)),
        ("by lever", lambda: setattr(app.analysis.what_changed.mode, "value", "lever")),
        ("back to Breakdown", lambda: setattr(app.tabs, "selected_index", 0)),
        ("a narrow screen", lambda: setattr(app.bridge, "chart_width", 360)),
    ]
    had_image = {name for name, count in on_connect.items() if count}
    for name, action in actions:
        action()
        born = set(new)
        while new:
            _connect(canvases[new.pop()])
        counts = images()
        for chart in born:
            # a chart built by this action draws as it is built, then answers the page's first request: every
            # image it sends is whole (the page keeps the last one), never a difference
            assert modes[chart] and set(modes[chart]) == {"full"}, (name, chart, modes[chart])
            had_image.add(chart)
            counts.pop(chart)
        assert max(counts.values()) <= 1, (name, counts)
        for chart, count in counts.items():
            if count and chart not in had_image:  # the page has no image of it yet: this one must be whole
                assert canvases[chart]._image_mode == "full", (name, chart)
                had_image.add(chart)


def test_hidden_html_pages_are_written_when_shown_and_match_the_result(app):
    """The Assumptions and Share pages are not sent on every change; opening them shows the current result."""
    before = (app.assumptions.value, app.share.value)
    app.controls["gpus"].value = 512
    app.controls["language"].value = "zh"
    assert (app.assumptions.value, app.share.value) == before  # nobody looks at them: nothing was sent
    app.tabs.selected_index = 6
    assert "gpus=512" in app.share.value and "lang=zh" in app.share.value
    app.tabs.selected_index = 5
    assert "术语表" in app.glossary.value  # written in the language chosen while the tab was hidden
    assert "术语表" not in before[0] and re.search(r"[\u4e00-\u9fff]", app.assumptions.value)


def test_closed_control_groups_are_relabelled_when_opened(app):
    from explorer.app.bindings import GROUPS

    app.controls["language"].value = "zh"
    assert "Model size" not in app.rows["params"].caption.value  # the open Model group: at once
    assert dict((v, k) for k, v in app.controls["pricing"].options)["spot"] == "Spot"  # closed: not yet
    app.groups.selected_index = GROUPS.index("pricing")
    assert re.search(r"[\u4e00-\u9fff]", dict((v, k) for k, v in app.controls["pricing"].options)["spot"])
    assert re.search(r"[\u4e00-\u9fff]", app.rows["pricing"].caption.value)
    app.groups.selected_index = None  # all closed, then back to English: only the header follows
    app.controls["language"].value = "en"
    app.groups.selected_index = GROUPS.index("model")
    assert "Model size" in app.rows["params"].caption.value
