"""Every chart of the app is a ChartSurface and obeys its law (issue 29): drawn only when on screen.

A fully opened app (every tab shown once, so What if and Plan are built) has eight charts. For each: with a
chart-less tab on screen, a change of the scenario draws no figure at all (counted by the figures' own
``draw_event``, which matplotlib emits on every full draw, and by the surfaces' counters); showing the chart's
tab draws it once, and showing it again without a change draws nothing.
"""

from __future__ import annotations

import pytest

from explorer.app.surface import ChartSurface

_KEYS = ("breakdown", "waterfall", "history", "compare", "uncertainty", "assumptions", "share", "whatif", "plan",
         "models")
#: Chart -> (the tab that shows it, the "What changed" toggle then).
WHERE = {"breakdown": ("breakdown", "dimension"), "waterfall": ("waterfall", "dimension"),
         "history": ("history", "dimension"), "compare": ("compare", "dimension"),
         "lever": ("waterfall", "lever"), "uncertainty": ("uncertainty", "dimension"),
         "whatif": ("whatif", "dimension"), "plan": ("plan", "dimension")}


def _tab(app, key: str) -> None:
    app.tabs.selected_index = _KEYS.index(key)


@pytest.fixture
def opened(make_app):
    app = make_app()
    for key in _KEYS:  # every tab once: the lazily built ones (What if, Plan, Models) are built
        _tab(app, key)
    _tab(app, "assumptions")
    return app


def _full_draws(app) -> dict[str, list]:
    """Per chart, a list that grows by one on each full draw of its figure (matplotlib's draw_event)."""
    seen = {}
    for key, surface in app.all_charts().items():
        seen[key] = []
        surface.figure.canvas.mpl_connect("draw_event", lambda _e, out=seen[key]: out.append(1))
    return seen


def test_every_chart_of_a_fully_opened_app_is_a_chart_surface(opened):
    charts = opened.all_charts()
    assert set(charts) == set(WHERE)
    assert all(isinstance(surface, ChartSurface) for surface in charts.values())
    figures = [surface.figure for surface in charts.values()]
    assert len({id(f) for f in figures}) == len(figures)  # one figure per chart


@pytest.mark.parametrize("chart", sorted(WHERE))
def test_a_hidden_chart_is_not_drawn_and_is_drawn_once_when_shown(opened, chart):
    app = opened
    tab, mode = WHERE[chart]
    app.analysis.what_changed.mode.value = mode
    full = _full_draws(app)
    before = {key: s.draws for key, s in app.all_charts().items()}
    for params in (13e9, 70e9):  # two changes while nothing is on screen but the Assumptions page
        app.controls["params"].value = params
    assert app.error == ""
    assert {key: s.draws for key, s in app.all_charts().items()} == before
    assert {key: len(n) for key, n in full.items()} == dict.fromkeys(full, 0)
    assert app.all_charts()[chart].stale or app.all_charts()[chart].needs_layout  # what it shows moved
    _tab(app, tab)
    after = {key: s.draws for key, s in app.all_charts().items()}
    assert after[chart] == before[chart] + 1  # drawn once, when shown
    others = {key for key in after if key != chart}  # "What changed" shows one of its two charts
    assert {key: after[key] for key in others} == {key: before[key] for key in others}
    assert {key: len(full[key]) for key in others} == dict.fromkeys(others, 0)  # the hidden ones: no draw
    _tab(app, "assumptions")
    _tab(app, tab)  # shown again without a change: nothing to draw
    assert app.all_charts()[chart].draws == after[chart]
