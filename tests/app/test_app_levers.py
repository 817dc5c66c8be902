"""Levers that tell the truth, headless: precision fallbacks, scope and "in the rate", values in use, the Python API."""

from __future__ import annotations

import pytest

from explorer import Scenario, catalog
from explorer.app.bindings import BINDINGS


# ---------------------------------------------------------------------------------------- 2. values in use
@pytest.mark.parametrize("gpu, expected", [("v100", "fp16"), ("p100", "fp16"), ("ascend-910b", "fp16")])
def test_accelerator_switch_adapts_precision(app, gpu, expected):
    app.controls["gpu"].value = gpu
    assert app.error == ""
    assert app.scenario.gpu == gpu and app.scenario.precision == expected
    assert app.controls["precision"].value == expected
    assert catalog.accelerator(gpu).name in app.summary.value
    assert "BF16" in app.rows["precision"].note


# ---------------------------------------------------------------------------------------- 3, 4. six dimensions
def test_scope_switch_and_in_the_rate(app):
    e = app.estimate
    app.controls["scope"].value = "run"
    assert "final run" in app.kpis.value.lower()
    texts = {t.get_text() for t in app.breakdown.value_texts}
    assert any("in the rate" in t for t in texts)
    # the energy row shows the electricity the rate contains at the region's price
    energy_text = app.breakdown.value_texts[1].get_text()
    assert "in the rate" in energy_text
    assert app.breakdown.rate_bars[1].get_width() * app.breakdown.scale == pytest.approx(e.in_rate_usd["energy"])
    app.controls["region"].value = "de"  # dearer electricity: more of the rate pays for it
    assert app.estimate.in_rate_usd["energy"] > e.in_rate_usd["energy"] * 2
    assert app.estimate.total_usd == pytest.approx(e.total_usd)  # the bill does not change under cloud pricing
    app.tabs.selected_index = 5  # Assumptions: its tables are written when the tab is shown
    assert "in_rate" in app.glossary.value or "rate" in app.glossary.value


def test_unknown_price_gets_an_estimate_in_kpi_and_warnings(app):
    app.controls["gpu"].value = "gaudi2"
    assert app.error == ""
    assert "estimated" in app.kpis.value
    assert "unknown" not in app.kpis.value.split("explorer-kpi total")[1].split("</div>")[0]
    assert any("is an estimate" in w for w in app.estimate.warnings)
    assert "rate_usd_per_gpu_hour" not in app.warnings.value


# ---------------------------------------------------------------------------------------- 9, 11. inputs and API


def test_set_scenario_is_the_way_to_drive_the_app(app):
    s = Scenario(params=70e9, tokens=2e12, gpu="a100-80gb", gpus=512, pricing="spot", architecture="moe",
                 active_fraction=0.25)
    assert app.set_scenario(s) is True
    assert app.scenario == s
    assert app.controls["pricing"].value == "spot" and app.controls["active_fraction"].value == 0.25
    with pytest.raises(TypeError):
        app.set_scenario({"params": 1})


def test_blank_boxes_show_the_value_in_use(app):
    app.controls["pricing"].value = "owned"
    assert "33,810" in app.controls["purchase_usd_per_gpu"].placeholder  # readable (issue 9 item 9)
    assert "5" in app.controls["depreciation_years"].placeholder
    assert "0.0806" in app.controls["electricity_usd_per_kwh"].placeholder
    assert "MFU" in app.rows["mfu"].caption.value and "title=" in app.rows["mfu"].caption.value


# ---------------------------------------------------------------------------------------- 8. sessions
def test_heartbeat_is_answered(app):
    app.bridge.ping = 7  # what the page sends (explorer/app/page_bridge.py)
    assert app.bridge.pong == "7"
    app.bridge.ping = "x" * 1000  # anything: echoed, cut short
    assert app.bridge.pong == "x" * 24
    assert "explorer-session-ended" in app.session.value and "重新加载" in app.session.value


# ---------------------------------------------------------------------------------------- 12. one table
def test_one_binding_table_builds_every_control(app):
    assert set(app.rows) == {b.name for b in BINDINGS}
    source = open(__import__("explorer.app.explorer_app", fromlist=["x"]).__file__).read()
    assert '"lora_trainable_fraction"' not in source  # no field written by hand in the app


def test_region_lever_is_explained_and_owned_is_one_click_away(app):
    app.controls["region"].value = "de"
    note = app.region_note.value
    assert "inside the rate" in note and "0.2522" in note  # Germany 0.2522 USD/kWh (Eurostat, regions.csv)
    app.owned_button.click()
    assert app.scenario.pricing == "owned"
    # Germany's electricity now on the bill: energy MWh x 252.2 USD/MWh
    assert app.estimate.cost_usd["energy"] == pytest.approx(app.estimate.energy_mwh * 252.2, rel=1e-6)
    assert "paid directly" in app.region_note.value and app.owned_button.layout.display == "none"


def test_the_app_stays_light_on_widgets(make_app):
    # every widget (and Layout) is a comm a page and an attacker can address; the hosting tests send each
    # a few messages within the server's 90 s websocket ping timeout (tests/hosting/test_hosting.py)
    from ipywidgets.widgets import widget

    before = len(widget._instances)
    make_app(query_string="")
    # 595 with issue 10's views; 259 since the layouts and styles that never change are shared (made once,
    # when explorer.app.shared is imported: see tests/app/test_shared_widgets.py)
    # 282 with the six controls of money and model v3 (owned: amortization, utilisation, financing; pay basis;
    # facility; recovery): about 4 models each
    # 291 with issue 27's seller choice, the line of settings without a control and its reset, and the Plan and
    # Models tabs (empty until first opened)
    assert len(widget._instances) - before <= 300
