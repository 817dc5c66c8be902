"""Share links: a scenario written to a query string reads back to the same scenario; bad keys are refused one by one."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer import Scenario, estimate
from explorer.app import ExplorerApp
from explorer.app.export import breakdown_csv
from explorer.app.link import query_from_scenario, scenario_fields_from_query
from explorer.presets import presets
from conftest import open_tab
from strategies import examples


def _read_back(scenario: Scenario) -> Scenario:
    fields, _extras = scenario_fields_from_query(query_from_scenario(scenario))
    return Scenario.from_dict({**Scenario().to_dict(), **fields})


@settings(max_examples=examples(150), deadline=None)
@given(
    params=st.floats(1e6, 1e14),
    tokens=st.floats(1e6, 1e15),
    mfu=st.none() | st.floats(0.01, 1.0),
    gpus=st.integers(1, 10_000_000),
    pue=st.none() | st.floats(1.0, 5.0),
    currency=st.sampled_from(["USD", "CNY"]),
)
def test_share_link_round_trip_is_exact(params, tokens, mfu, gpus, pue, currency):
    s = Scenario(params=params, tokens=tokens, mfu=mfu, gpus=gpus, pue=pue, currency=currency)
    assert _read_back(s) == s


def test_deadline_link_round_trip():
    s = Scenario(params=123456789012.0, tokens=2.5e12, gpus=None, deadline_days=12.345678901, mfu=0.4123456)
    assert _read_back(s) == s


def test_share_link_and_downloads_round_trip(make_app, app):
    app.set_scenario(Scenario(params=13e9, tokens=3e12, gpu="a100-80gb", gpus=512, region="fr"))
    app.tabs.selected_index = 6  # Share and export: its links are written when the tab is shown
    href = re.search(r'href="\?([^"]+)"', app.share.value).group(1).replace("&amp;", "&")
    restored = make_app(href)
    assert restored.scenario == app.scenario
    json_url = re.search(r'download="scenario.json" href="data:application/json;charset=utf-8;base64,([^"]+)"',
                         app.downloads.value).group(1)
    import base64

    assert Scenario.from_json(base64.b64decode(json_url).decode()) == app.scenario
    rows = dict(line.split(",")[:2] for line in breakdown_csv(app.estimate).splitlines()[1:])
    assert float(rows["cost_total"]) == pytest.approx(app.estimate.total_usd, rel=1e-5)


def test_query_string_refuses_out_of_range_and_ignores_unknown_keys(make_app):
    a = make_app("params=1e20&tokens=abc&gpu=nonsense&evil=<script>&lang=zh&mfu=0.5&region=se")
    assert a.scenario.params == Scenario().params and "params" in a.error  # out of range: refused, said (issue 20)
    assert a.scenario.tokens == Scenario().tokens  # unreadable: ignored
    assert a.scenario.gpu == Scenario().gpu
    assert a.scenario.mfu == 0.5 and a.scenario.region == "se"
    assert a.language == "zh"
    b = make_app("preset=gpt3")
    assert b.scenario == presets()["gpt3"].scenario
    assert make_app("params=-5").scenario.params == Scenario().params  # refused, not clamped


def test_query_string_with_one_bad_key_keeps_the_others(make_app):
    a = make_app("deadline_days=30&params=70e9&tokens=2e12")
    assert a.scenario.deadline_days == 30 and a.scenario.gpus is None  # a deadline replaces the GPU count
    assert a.scenario.params == 70e9 and a.scenario.tokens == 2e12
    assert a.rows["count_mode"].widget.value == "deadline"
    # an impossible deadline in the link: dropped, the rest applied, no impossible result on screen
    b = make_app("gpus=&deadline_days=0.001&params=30e9&region=fr")
    assert not b.estimate.deadline_impossible and b.error == ""
    assert b.scenario.params == 30e9 and b.scenario.region == "fr"
    # a precision the accelerator lacks: that key dropped, the others applied
    c = make_app("gpu=a100-80gb&precision=fp8&tokens=3e12")
    assert c.scenario.gpu == "a100-80gb" and c.scenario.precision == "bf16" and c.scenario.tokens == 3e12


def test_share_link_restores_budget_cap_slots_and_names(make_app):
    app = make_app("lang=zh&currency=CNY")
    app.analysis.pin("B", estimate(Scenario(region="cn-ningxia", pricing="spot")), name="宁夏 spot")
    app.analysis.pin("C", estimate(Scenario(precision="fp8")), name="FP8")
    open_tab(app, "uncertainty")  # the boxes are built when their tab is first opened (the link opens on it)
    app.analysis.uncertainty.budget_box.value = "70M"  # CNY
    app.analysis.uncertainty.cap_box.value = "4,096"
    app.controls["params"].value = 13e9
    assert app.error == "" and app.analysis.uncertainty.budget_message.value == ""
    link = app.share_query()
    # the cap and the budget travel as typed too (issue 27): 4,096 and 70M come back as 4,096 and 70M
    assert "budget_usd=" in link and "budget_text=70M" in link and "gpu_cap=4%2C096" in link and "slot_B=" in link \
        and "name_B=" in link
    for build in ("init", "apply"):
        if build == "init":
            other = make_app(link[1:])
        else:
            other = make_app()
            other.apply_query(link[1:])
        a = other.analysis
        assert a.slot_names == {"A": "", "B": "宁夏 spot", "C": "FP8", "D": ""}, build
        assert a.slots["B"].scenario.region == "cn-ningxia" and a.slots["B"].scenario.pricing == "spot"
        assert a.slots["C"].scenario.precision == "fp8" and a.slots["D"] is None
        u = a.uncertainty
        assert u.budget_usd == pytest.approx(app.analysis.uncertainty.budget_usd) and u.gpu_cap == 4096
        assert u.budget_box.value == "70M" and u.cap_box.value == "4,096"
        assert other.scenario.params == 13e9 and other.language == "zh"
        assert other.share_query() == link


def test_a_link_with_a_broken_slot_keeps_the_rest(make_app):
    app = make_app("slot_B=params%3Dbanana%26region%3Dnowhere&slot_C=precision%3Dfp8&"
                   "budget_usd=-5&gpu_cap=lots&name_C=" + "x" * 300)
    assert "budget_usd" in app.error  # named in the banner (issue 24: a link's unusable number is never silent)
    assert app.analysis.slots["C"].scenario.precision == "fp8" and len(app.analysis.slot_names["C"]) <= 40
    assert app.analysis.uncertainty.budget_usd is None and app.analysis.uncertainty.gpu_cap is None


def test_link_reads_params_7B(make_app):
    fields, _ = scenario_fields_from_query("params=7B&tokens=2T")
    assert fields == {"params": 7e9, "tokens": 2e12}
    assert make_app("params=70B").scenario.params == 70e9


def test_share_link_is_completed_to_an_absolute_url_with_a_copy_button(make_app, app):
    app.set_scenario(Scenario(params=13e9, gpus=512))
    app.tabs.selected_index = 6  # Share and export: its links are written when the tab is shown
    share = app.share.value
    assert 'class="explorer-copy"' in share and "Copy link" in share
    # the page's widget completes it from the page's address (explorer/app/page_bridge.py)
    assert 'class="explorer-share-url" readonly data-query="?' in share
    assert "new window.URL(input.getAttribute('data-query'), location.href)" in app.bridge._esm
    query = re.search(r'data-query="([^"]+)"', share).group(1).replace("&amp;", "&")
    assert make_app(query[1:]).scenario == app.scenario


def _applied(make_app, link: str) -> ExplorerApp:
    app = make_app()
    app.apply_query(link)
    return app


def test_absurd_link_values_are_refused_with_a_message_not_clamped(make_app):
    for build in (lambda: make_app("tokens=1e309&gpus=1e99"),
                  lambda: _applied(make_app, "tokens=1e309&gpus=1e99")):
        app = build()
        assert app.scenario.tokens == 1e12 and app.scenario.gpus != 10_000_000  # the defaults, not the clamps
        assert "tokens" in app.error or "gpus" in app.error
        assert "explorer-banner" in app.banner.value
