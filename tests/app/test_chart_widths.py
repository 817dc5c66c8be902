"""Charts laid out for the width the page reports: one layout per width, a flood coalesced to the latest."""

from __future__ import annotations

import asyncio

import pytest

from explorer.app.responsive import WIDTH_COALESCE_SECONDS


def test_chart_widths_in_a_running_kernel_are_coalesced_to_the_latest(make_app):
    app = make_app(query_string="")
    app.widths.coalesce = True  # as in a kernel: the comm handler runs on the event loop below
    applied: list = []
    apply = app.sizer.apply
    app.sizer.apply = lambda width: applied.append(width) or apply(width)

    async def flood() -> None:
        for i in range(60):  # what a page (or a script) can send within the rate limit
            app.bridge.chart_width = 320 + 20 * (i % 30)
        app.bridge.chart_width = 372
        for _ in range(100):  # bounded wait for the one layout
            await asyncio.sleep(WIDTH_COALESCE_SECONDS / 5)
            if applied:
                break
        await asyncio.sleep(WIDTH_COALESCE_SECONDS * 2)

    import threading  # a loop of its own, also when the test process already runs one (playwright)

    runner = threading.Thread(target=lambda: asyncio.run(flood()))
    runner.start()
    runner.join(timeout=120)
    assert len(applied) == 1 and app.sizer.width_px == 360  # 372 px rounds down to the 20 px step


def _px(fig):
    return tuple(round(v) for v in fig.get_size_inches() * fig.dpi)


def test_charts_are_laid_out_for_the_width_the_page_reports(make_app):
    a = make_app(query_string="")
    wide = {f: _px(f) for f in (a.breakdown.figure, a.waterfall.figure)}
    history = _px(a.history_fig)
    assert wide[a.breakdown.figure] == (864, 355)  # 9.0 x 3.7 in at 96 dpi (designed size)
    a.bridge.chart_width = 372  # what a 390 px phone reports: rounded down to 360 px
    for fig in wide:
        assert _px(fig) == (360, 355), fig
    assert _px(a.history_fig) == history  # laid out for 13 x 7.8 in only (see explorer/app/responsive.py)
    assert not a.charts["breakdown"].needs_layout  # the visible chart is laid out at once
    assert a.charts["waterfall"].needs_layout  # the other when its tab opens
    a.tabs.selected_index = 1
    assert not a.charts["waterfall"].needs_layout
    a.bridge.chart_width = 860  # about the designed width (864 px, rounded down to the 20 px step): as designed
    assert {f: _px(f) for f in wide} == {f: (860, 355) for f in wide}
    # a 1,920 px desktop's box (issue 41): wider, up to 1.6 x 864 = 1,382.4 px, and taller by the growth up to
    # 1.2 x 355.2 = 426.2 px (the charts had stayed 864 px wide in a 1,480 px box)
    a.bridge.chart_width = 1480
    assert _px(a.breakdown.figure) == (1382, 426)
    a.bridge.chart_width = 960  # 960 / 864 = 1.111: 355.2 x 1.111 = 394.7 px tall
    assert _px(a.breakdown.figure) == (960, 395)


@pytest.mark.parametrize("text", [0, -5, 99999999, "x", 1e9, 300.5, "", "w 372", None, float("inf"), [360]])
def test_width_messages_are_clamped_or_ignored(text, make_app):
    a = make_app(query_string="")
    a.bridge.chart_width = text
    w_px, h_px = _px(a.breakdown.figure)
    assert 240 <= w_px <= 1382 and 355 <= h_px <= 426  # 864 x 355 designed; at most 1.6 x as wide, 1.2 x as tall
    assert a.error == ""


def test_one_layout_per_width_message(make_app):
    from explorer.plots import breakdown as B

    a = make_app(query_string="")
    calls = []
    original = B.freeze_layout

    def counting(fig):
        calls.append(fig)
        original(fig)

    import explorer.app.surface as X
    X.freeze_layout, saved = counting, X.freeze_layout
    try:
        a.bridge.chart_width = 372
        a.bridge.chart_width = 375  # the same 20 px step: nothing to do
    finally:
        X.freeze_layout = saved
    assert calls == [a.breakdown.figure]  # one layout, of the chart in view (its time: benchmarks, not here)


def test_narrow_waterfall_values_and_ticks_do_not_overlap(make_app):
    a = make_app(query_string="")
    a.tabs.selected_index = 1
    a.controls["params"].value = 70e9  # every bar changes: eight value texts
    a.bridge.chart_width = 324
    renderer = a.waterfall.figure.canvas.get_renderer()
    boxes = sorted((t.get_window_extent(renderer) for t in a.waterfall.texts if t.get_text()), key=lambda b: b.x0)
    assert len(boxes) == 8
    for left, right in zip(boxes, boxes[1:]):  # value texts: side by side, none over its neighbour
        assert left.x1 <= right.x0 + 1 or left.y1 <= right.y0 or right.y1 <= left.y0, (left, right)
    assert all(t.get_rotation() == 50 for t in a.waterfall.ax.get_xticklabels())  # steeper ticks when narrow
    a.bridge.chart_width = 1400
    assert all(t.get_rotation() == 20 for t in a.waterfall.ax.get_xticklabels())


def test_the_plan_chart_widens_with_the_page(make_app):
    """Issue 41: the Plan chart stayed 864 px wide in a 1,480 px box while Breakdown grew to 1,382 px."""
    a = make_app(query_string="")
    a.bridge.chart_width = 1480  # the page reports its box before the Plan tab is first opened
    a.tabs.selected_index = 8  # Plan: built now, at the width already reported
    plan_fig = a.plan_view.chart.figure
    # as Breakdown: 1.6 x 864 = 1,382.4 px wide, 1.2 x 355.2 = 426.2 px tall (explorer/app/responsive.py)
    assert _px(plan_fig) == _px(a.breakdown.figure) == (1382, 426)
    draws = a.plan_view.charts["plan"].draws
    a.bridge.chart_width = 372  # a phone: 360 px, the designed height; laid out at once (the tab is shown)
    assert _px(plan_fig) == (360, 355)
    assert not a.plan_view.charts["plan"].needs_layout and a.plan_view.charts["plan"].draws > draws
    a.tabs.selected_index = 0
    a.bridge.chart_width = 960  # hidden: resized, laid out when its tab opens again
    assert _px(plan_fig) == (960, 395) and a.plan_view.charts["plan"].needs_layout
    a.tabs.selected_index = 8
    assert not a.plan_view.charts["plan"].needs_layout
