"""The whole decision in the link and the files (issue 27): tab, What-if picks and sort, By-lever view, the budget
and GPU cap as typed; what-if.csv's base scenario; the By-lever chart's own files. The Plan tab's inputs
(issue 29) come back as typed; a link's value that is not allowed is left out and named, never applied.

Round trips are headless: build an app with ``make_app``, set the state, take the Share tab's link, open a new
app from it, compare.
"""

from __future__ import annotations

import csv
import io
import re
from urllib.parse import parse_qs, urlencode

import pytest

from explorer import Scenario
from explorer.app import link
from explorer.app.tabs.plan import LINK_KEYS, LINK_TEXT_MAX, PlanView
from explorer.app.link import scenario_from_query
from explorer.app.tabs.what_if import WhatIfView
from explorer.text import label

from conftest import open_tab

_KEYS = ("breakdown", "waterfall", "history", "compare", "uncertainty", "assumptions", "share", "whatif", "plan",
         "models")


def _tab(app, key: str) -> None:
    app.tabs.selected_index = _KEYS.index(key)


def _link(app) -> str:
    """The query string of the Share tab's link (the tab is opened, as a viewer does to copy it)."""
    _tab(app, "share")
    return re.search(r'href="\?([^"]+)"', app.share.value).group(1).replace("&amp;", "&")


def _picked(app) -> dict:
    return {lv.value: tuple(v.value) for lv, v in zip(app.whatif.levers, app.whatif.values) if lv.value}


def test_tab_whatif_picks_sort_and_by_lever_travel_whole(make_app):
    app = make_app()
    app.set_scenario(Scenario(params=70e9, tokens=1.4e12, gpus=512))
    _tab(app, "waterfall")
    app.analysis.what_changed.mode.value = "lever"
    _tab(app, "whatif")
    wi = app.whatif
    wi.levers[0].value = "gpu"
    wi.values[0].value = ("h100-sxm", "a100-80gb")
    wi.levers[2].value = ""
    wi.sort.value = "days"
    link = _link(app)
    keys = parse_qs(link)
    assert keys["tab"] == ["whatif"]  # the tab looked at before Share, where the link is copied
    assert keys["view"] == ["lever"] and keys["whatif_sort"] == ["days"]

    restored = make_app(query_string=link)
    assert restored._tab_key() == "whatif"
    assert restored.scenario == app.scenario
    assert _picked(restored) == {"gpu": ("h100-sxm", "a100-80gb"), "precision": ("bf16", "fp8")}
    assert restored.whatif.sort.value == "days"
    assert restored.analysis.what_changed.mode.value == "lever"
    assert restored.whatif.table is not None and len(restored.whatif.table) == 4  # the grid is computed for it
    assert restored.error == ""


def test_an_unopened_whatif_adds_nothing_and_the_default_tab_is_not_written(make_app):
    app = make_app()
    keys = parse_qs(_link(app))
    assert not {"tab", "whatif", "whatif_sort", "view"} & set(keys)
    restored = make_app(query_string=_link(app))
    assert restored._tab_key() == "breakdown" and not restored.whatif.built


def test_budget_and_gpu_cap_come_back_as_typed(make_app):
    app = make_app()
    open_tab(app, "uncertainty")  # the boxes are built when their tab is first opened
    app.analysis.uncertainty.budget_box.value = "5M"
    app.analysis.uncertainty.cap_box.value = "4k"
    open_tab(app, "breakdown")  # a link made elsewhere: the restored app opens on Breakdown
    keys = parse_qs(_link(app))
    assert keys["budget_usd"] == ["5000000"] and keys["budget_text"] == ["5M"] and keys["gpu_cap"] == ["4k"]
    restored = make_app(query_string=_link(app))
    assert restored.analysis.uncertainty.budget_usd == 5e6 and restored.analysis.uncertainty.gpu_cap == 4000  # before the tab opens
    open_tab(restored, "uncertainty")
    assert restored.analysis.uncertainty.budget_box.value == "5M" and restored.analysis.uncertainty.cap_box.value == "4k"
    assert restored.analysis.uncertainty.budget_usd == 5e6 and restored.analysis.uncertainty.gpu_cap == 4000


def test_a_typed_budget_that_disagrees_with_the_amount_is_not_shown(make_app):
    # budget_text is shown only when it reads as the same amount: a forged 9M beside 5000000 shows 5000000
    restored = make_app(query_string="budget_usd=5000000&budget_text=9M&gpu_cap=12&view=sideways&tab=nowhere"
                                     "&whatif=evil:1;pricing:spot,moon&whatif_sort=cheapest")
    assert restored.analysis.what_changed.mode.value == "dimension" and restored._tab_key() == "breakdown"
    open_tab(restored, "uncertainty")
    assert restored.analysis.uncertainty.budget_box.value == "5000000" and restored.analysis.uncertainty.budget_usd == 5e6
    assert restored.analysis.uncertainty.cap_box.value == "12"
    open_tab(restored, "breakdown")
    _tab(restored, "whatif")
    assert _picked(restored) == {"pricing": ("spot",)} and restored.whatif.sort.value == "total_usd"
    assert restored.error == ""


def test_budget_in_yuan_comes_back_as_typed(make_app):
    app = make_app(query_string="currency=CNY")
    open_tab(app, "uncertainty")  # the link then opens on it too
    app.analysis.uncertainty.budget_box.value = "36M"
    restored = make_app(query_string=_link(app))
    assert restored.analysis.uncertainty.budget_box.value == "36M"
    assert restored.analysis.uncertainty.budget_usd == app.analysis.uncertainty.budget_usd


def test_whatif_csv_carries_the_base_scenario(make_app):
    app = make_app()
    app.set_scenario(Scenario(params=70e9, tokens=1.4e12, gpus=512, region="fr"))
    _tab(app, "whatif")
    app.whatif.csv_button.click()
    import base64

    data = re.search(r'href="data:text/csv;charset=utf-8;base64,([^"]+)"', app.whatif.csv_link.value).group(1)
    rows = list(csv.DictReader(io.StringIO(base64.b64decode(data).decode())))
    assert len(rows) == 12  # 3 pricing x 2 precisions x 2 regions (the default picks)
    bases = {r["base_scenario"] for r in rows}
    assert len(bases) == 1 and scenario_from_query(bases.pop()) == app.scenario
    default = WhatIfView.csv(app.whatif.table, ["pricing", "precision", "region"], "USD", 1.0, base=Scenario())
    assert next(csv.DictReader(io.StringIO(default)))["base_scenario"] == "default"


def test_the_by_lever_chart_has_its_own_files(make_app):
    app = make_app()
    app.pin_baseline()
    app.set_scenario(Scenario(params=13e9, gpus=256, precision="fp8"))
    names = [name for _fig, _fmt, name, _cap in app.chart_files()]
    assert {"what-changed.png", "what-changed-by-lever.png", "what-changed-by-lever.svg"} <= set(names)
    files = {name: fig for fig, _fmt, name, _cap in app.chart_files()}
    assert files["what-changed-by-lever.png"] is app.analysis.what_changed.lever_plot.figure
    assert files["what-changed.png"] is app.waterfall.figure
    _tab(app, "share")
    assert 'download="what-changed-by-lever.svg"' in app.downloads.value


# ---------------------------------------------------------------------------------------- the Plan tab (issue 29)
def test_every_plan_key_is_a_known_link_key():
    assert set(LINK_KEYS) <= set(link.EXTRA_KEYS)
    _, extras = link.scenario_fields_from_query("plan_budget=20M&plan_scope=final_run&plan_gpu=h100-sxm")
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


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_value_a_link_leaves_out_is_named_in_the_banner_and_beside_its_box(make_app, lang):
    """A link with three bad values (a model size, the Plan's budget and deadline) names all three, not the
    first alone, and the model-size box shows its own refusal; the link's good value (2T tokens) applies."""
    link = urlencode({"params": "-7", "tokens": "2T", "plan_budget": "-5", "plan_deadline": "abc", "lang": lang})
    app = make_app(query_string=link)
    assert app.scenario.tokens == 2e12 and app.scenario.params == Scenario().params
    for key, value in (("params", "-7"), ("plan_budget", "-5"), ("plan_deadline", "abc")):
        assert key in app.error
        assert f"&#x27;{value}&#x27;" in app.banner.value or f"'{value}'" in app.banner.value, (key, app.banner.value)
    assert app.banner.value.count("<br>") == 2  # one line each
    plan_budget = {"en": "Plan: budget", "zh": "预算规划：预算"}[lang]  # not the Uncertainty tab's budget
    assert plan_budget in app.banner.value
    assert "-7" in app.rows["params"].message.value
    other = "en" if lang == "zh" else "zh"
    app.controls["language"].value = other  # switched: still all three, in the other language
    assert app.banner.value.count("<br>") == 2 and label("input_error", other) in app.banner.value


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_link_refusing_every_value_keeps_the_banner_short(make_app, lang):
    """64 keys, every known one refused (43 numbers, the Plan's 6) and 15 unknown ones: the banner names six
    lines' worth, the last one counting the rest, which are each named beside their own box."""
    numeric = [k for k in link._FIELD_ORDER if link.field_spec(k).get("kind", "str") in ("int", "float")]
    keys = {k: "-1" for k in numeric}  # below every number field's range (model size, tokens, GPUs... all > 0)
    keys.update({k: "nope" for k in LINK_KEYS})
    keys.update({f"junk{i}": "x" for i in range(64 - len(keys))})
    assert len(keys) == 64
    app = make_app(query_string=urlencode({**keys, "lang": lang}))
    refused = app.error.count("'-1'") + app.error.count("'nope'")
    assert refused == len(numeric) + len(LINK_KEYS)  # no number field takes -1, no Plan box takes "nope"
    banner = app.banner.value
    assert banner.count("<br>") == 5  # six lines
    more = {"en": f"… and {refused - 5} more", "zh": f"另有 {refused - 5} 项"}[lang]
    assert more in banner, banner
    assert len(banner) < 2000
    assert "-1" in app.rows[numeric[-1]].message.value  # the last refusal, past the banner's lines, is beside its box
