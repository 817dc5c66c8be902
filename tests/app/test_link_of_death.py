"""Issue 24 item 4: links whose numbers are past any float show the app with the refusal banner.

On main these raised ``decimal.Overflow`` / ``InvalidOperation`` out of the link reader: the viewer got
Voila's "There was an error when executing cell" and no app. The server test is in
tests/hosting/test_server_bounded_input.py.
"""

from __future__ import annotations

import pytest

from explorer.scenario import Scenario

from conftest import open_tab

DEATH_LINKS = {
    "tokens=1e1000000": "tokens",
    "params=1e99999999999999999999": "params",
    "budget_usd=1e1000000": "budget_usd",
    "gpu_cap=1e1000000": "gpu_cap",
    "slot_B=tokens%3D1e1000000": "slot_B",
    "tokens=" + "1" * 3000 + "a": "tokens",  # longer than any number: refused before it is read
    "tokens=banana": "tokens",  # no number at all: named in the banner (issue 39; it was dropped without a word)
}


@pytest.mark.parametrize("link", sorted(DEATH_LINKS))
@pytest.mark.parametrize("build", ["constructor", "apply_query"])
def test_a_link_of_death_shows_the_app_with_the_refusal_banner(make_app, link, build):
    if build == "constructor":
        app = make_app(link)
    else:  # a preheated kernel: the app is built first, the link applied when the request comes
        app = make_app()
        app.apply_query(link)
    field = DEATH_LINKS[link]
    default = Scenario()
    assert app.scenario.tokens == default.tokens and app.scenario.params == default.params  # nothing absurd used
    assert app.estimate is not None and app.summary.value  # the app is there, with its results
    if field is None:
        assert app.error == ""
        return
    assert field in app.error and "explorer-banner" in app.banner.value
    assert link.split("=", 1)[1].replace("%3D", "=")[:30] in app.banner.value  # the value, quoted
    assert len(app.banner.value) < 1000


@pytest.mark.parametrize("text", ["1e1000000", "1" * 60_000 + "a", "5e-324"])
def test_a_number_box_refuses_text_past_any_number_beside_the_control(make_app, text):
    app = make_app()
    before = app.estimate.total_usd
    app.controls["tokens"].set_state({"value": text})  # what a browser edit sends
    assert "tokens" in app.error and app.estimate.total_usd == before  # the last good result stays
    assert "Overflow" not in app.banner.value and "decimal" not in app.banner.value
    assert len(app.banner.value) < 1000  # 60,000 characters are quoted cut short
    app.controls["tokens"].set_state({"value": "2T"})
    assert app.error == "" and app.scenario.tokens == 2e12  # the box works again


@pytest.mark.parametrize("box", ["budget_box", "cap_box"])
def test_the_budget_and_gpu_cap_boxes_refuse_text_past_any_number(make_app, box):
    app = make_app()
    open_tab(app, "uncertainty")  # the boxes are built when their tab is first opened
    views = app.analysis.uncertainty  # the budget and GPU-cap boxes are its
    for text in ("1e1000000", "9" * 60_000 + "x"):
        getattr(views, box).set_state({"value": text})
        assert views.budget_usd is None and views.gpu_cap is None
        assert "budget-message" not in text and len(views.budget_message.value) < 1000
