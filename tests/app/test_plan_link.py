"""The Plan tab's inputs travel in the share link (issue 29): budget, accelerator, price basis, deadline, GPU cap
and scope come back as typed; a link's value that is not allowed is left out and named, never applied.

Round trips are headless: build an app with ``make_app``, open the Plan tab, type, take the Share tab's link,
open a new app from it, compare with what was typed.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlencode

import pytest

from explorer.app import query
from explorer.app.plan_view import LINK_KEYS, LINK_TEXT_MAX, PlanView

_KEYS = ("breakdown", "waterfall", "history", "compare", "uncertainty", "assumptions", "share", "whatif", "plan",
         "models")


def _tab(app, key: str) -> None:
    app.tabs.selected_index = _KEYS.index(key)


def _link(app) -> str:
    """The query string of the Share tab's link (the tab is opened, as a viewer does to copy it)."""
    _tab(app, "share")
    return re.search(r'href="\?([^"]+)"', app.share.value).group(1).replace("&amp;", "&")


def test_every_plan_key_is_a_known_link_key():
    assert set(LINK_KEYS) <= set(query.EXTRA_KEYS)
    _, extras = query.scenario_fields_from_query("plan_budget=20M&plan_scope=final_run&plan_gpu=h100-sxm")
    assert extras == {"plan_budget": "20M", "plan_scope": "final_run", "plan_gpu": "h100-sxm"}


def test_the_plan_inputs_come_back_as_typed_and_plan_the_same(make_app):
    app = make_app()
    _tab(app, "plan")
    pv = app.plan_view
    pv.budget_box.value = "20M"
    pv.gpu.value = "h100-sxm"
    pv.pricing.value = "spot"
    pv.deadline_box.value = "90"
    pv.cap_box.value = "2k"
    pv.scope.value = "final_run"
    keys = parse_qs(_link(app))
    assert {k: v[0] for k, v in keys.items() if k.startswith("plan_")} == {
        "plan_budget": "20M", "plan_gpu": "h100-sxm", "plan_pricing": "spot", "plan_deadline": "90", "plan_cap": "2k",
        "plan_scope": "final_run"}
    assert keys["tab"] == ["plan"]  # the tab looked at before Share
    restored = make_app(query_string=_link(app))
    assert restored._tab_key() == "plan" and restored.error == ""
    rv = restored.plan_view
    assert (rv.budget_box.value, rv.gpu.value, rv.pricing.value, rv.deadline_box.value, rv.cap_box.value,
            rv.scope.value) == ("20M", "h100-sxm", "spot", "90", "2k", "final_run")
    assert rv.budget_usd == 20e6  # "20M" read by hand: 20 x 10**6 USD (the default scenario is in USD)
    assert rv.plan.scenario == pv.plan.scenario  # the same inputs plan the same run


def test_an_unopened_plan_tab_adds_nothing_but_passes_a_links_inputs_on(make_app):
    app = make_app()
    assert not any(k.startswith("plan_") for k in parse_qs(_link(app)))
    passed = make_app(query_string="plan_budget=7M&plan_deadline=120")
    assert not passed.plan_view.built
    keys = parse_qs(_link(passed))
    assert keys["plan_budget"] == ["7M"] and keys["plan_deadline"] == ["120"]


@pytest.mark.parametrize("key, value", [
    ("plan_budget", "1e1000000"), ("plan_budget", "-5M"), ("plan_budget", "five"),
    ("plan_gpu", "<script>alert(1)</script>"), ("plan_pricing", "free"), ("plan_deadline", "2001-01-01"),
    ("plan_deadline", "0"), ("plan_cap", "0.5"), ("plan_scope", "everything"),
    ("plan_budget", "1" * (LINK_TEXT_MAX + 1)),  # a number, but longer than any box takes from a link
])
def test_a_hostile_plan_value_is_left_out_and_named(make_app, key, value):
    other, other_value = ("plan_cap", "4k") if key == "plan_scope" else ("plan_scope", "final_run")  # an allowed one
    app = make_app(query_string=urlencode({key: value, other: other_value}))
    assert key in app.error  # the banner names the refused key
    assert "<script>" not in app.banner.value  # shown as text (escaped), never as markup
    _tab(app, "plan")
    boxes = app.plan_view._boxes()
    start = {"plan_budget": "5M", "plan_gpu": "", "plan_pricing": "", "plan_deadline": "", "plan_cap": "",
             "plan_scope": "project"}  # the tab's own start values (plan_view.DEFAULT_BUDGET_TEXT: 5M)
    assert str(boxes[key].value) == start[key]
    assert str(boxes[other].value) == other_value  # the rest of the link is applied


def test_a_refusal_names_the_field_value_and_what_is_allowed():
    view = PlanView(lambda w, h: None, "en", on_use=lambda s: True)
    try:
        refused = view.apply_decision({"plan_deadline": "x" * 5000, "plan_budget": "3M"})
        assert [e.field for e in refused] == ["plan_deadline"]
        text = str(refused[0])
        assert "x" * LINK_TEXT_MAX in text and "x" * (LINK_TEXT_MAX + 1) not in text  # the value, bounded
        assert "future date" in text  # what is allowed (messages.csv allowed_plan_deadline)
        assert view.decision_items() == {"plan_budget": "3M"}
    finally:
        view.widget.close()
