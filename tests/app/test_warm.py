"""The warm-up a kernel template runs before it forks (explorer/app/warm.py, voila.json's preload).

Whatever it leaves in the process, every kernel forked afterwards inherits: it must leave no widget (a page
gets the state of every open widget), no thread (the template refuses to fork with more than one), and an
app built after it must be the app built without it.
"""

from __future__ import annotations

import threading

from ipywidgets.widgets import widget

from explorer.app import shared
from explorer.app.warm import warm_up


def test_the_warm_up_closes_every_widget_it_made_and_starts_no_thread():
    before = set(widget._instances)
    threads = threading.active_count()
    warm_up()
    assert set(widget._instances) == before  # nothing added, and the shared layouts are still open
    assert shared.PLAIN.model_id in widget._instances and shared.HTML_STYLE.comm is not None
    assert threading.active_count() == threads


def test_an_app_built_after_the_warm_up_shows_what_one_built_before_it_shows(make_app):
    cold = make_app(query_string="lang=zh&preset=deepseek_v3")
    warm_up()
    warm = make_app(query_string="lang=zh&preset=deepseek_v3")
    assert warm.summary.value == cold.summary.value and warm.kpis.value == cold.kpis.value
    assert warm.scenario == cold.scenario and warm.language == "zh"
    # the same widget tree: as many widgets, of the same kinds, in the same order
    def kinds(app):
        seen, stack, out = set(), [app.widget], []
        while stack:
            node = stack.pop()
            if node.model_id in seen:
                continue
            seen.add(node.model_id)
            out.append(type(node).__name__)
            stack.extend(getattr(node, "children", ()))
        return out
    assert kinds(warm) == kinds(cold)
