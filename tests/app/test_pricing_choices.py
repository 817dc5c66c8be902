"""The app's two pricing choices (issue 27): a Seller dropdown beside the pricing one, links that carry both, old
links that still load, and owned with its capex and break-even wherever it is compared (Compare tab, What-if CSV)."""

from __future__ import annotations

import base64
import csv
import io

import pytest

from explorer import Scenario, estimate, prices
from explorer.analysis import compare, what_if
from explorer.app import link
from explorer.app.pages.analysis_html import compare_html
from explorer.app.pages.estimate_html import basis_words
from explorer.app.tabs.what_if import WhatIfView
from explorer.text import label

#: H100 SXM capital per GPU by hand: 33,810 USD x 1.64 / (1 - 0.19) (accelerators.csv, defaults.csv).
CAPITAL_PER_GPU = 33_810 * 1.64 / (1 - 0.19)


def test_a_link_carries_seller_and_commitment_and_comes_back_equal():
    s = Scenario(pricing="reserved_3y", seller="nebius", gpus=512)
    text = link.query_from_scenario(s)
    assert "seller=nebius" in text and "pricing=reserved_3y" in text
    assert link.scenario_from_query(text) == s


@pytest.mark.parametrize("old,pricing,seller", [
    ("pricing=reserved_1y", "reserved_1y", "specialist"),  # now: committed use from the default seller
    ("pricing=reserved_3y", "reserved_3y", "specialist"),
    ("pricing=hyperscaler_on_demand", "on_demand", "hyperscaler"),
    ("pricing=hyperscaler_reserved_1y", "reserved_1y", "hyperscaler"),
])
def test_old_share_links_still_load(old, pricing, seller):
    s = link.scenario_from_query(old)
    assert (s.pricing, s.seller) == (pricing, seller)
    if seller == "specialist":  # the old name means the specialists' commitment: never dearer than on-demand
        assert estimate(s).rate_usd_per_gpu_hour <= estimate(Scenario()).rate_usd_per_gpu_hour


def test_a_link_naming_a_provider_with_a_hyperscaler_basis_loads_as_the_hyperscalers(make_app):
    """The two keys disagree; the old name carries its seller, so the page shows the hyperscalers' on-demand."""
    assert link.scenario_from_query("pricing=hyperscaler_on_demand&seller=lambda-labs") is None  # no silent mix
    app = make_app("pricing=hyperscaler_on_demand&seller=lambda-labs")
    assert (app.estimate.scenario.pricing, app.estimate.scenario.seller) == ("on_demand", "hyperscaler")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_seller_dropdown_sits_beside_pricing_and_changes_the_summary(make_app, lang):
    app = make_app(f"pricing=reserved_1y&seller=nebius&lang={lang}")
    seller = app.controls["seller"]
    assert seller.value == "nebius"
    labels = dict((v, k) for k, v in seller.options)
    # the groups and the providers that price the H100 (issue 41: a seller without a price of the chip is not offered)
    assert set(labels) == {s for s in prices.sellers() if s in prices.SELLER_GROUPS or prices.seller_date(s, "h100-sxm")}
    assert labels["specialist"] == label("seller_specialist", lang)
    assert "Nebius" in labels["nebius"] and "2026-09-25" in labels["nebius"]  # the provider with its price date
    pricing_values = [v for _, v in app.controls["pricing"].options]
    assert pricing_values == ["on_demand", "reserved_1y", "reserved_3y", "spot", "owned"]
    assert "Nebius" in app.summary.value
    before = app.estimate.total_usd
    seller.value = "hyperscaler"
    assert app.estimate.scenario.seller == "hyperscaler"
    assert app.estimate.total_usd > before  # the hyperscalers' committed list is dearer than Nebius's
    assert label("seller_hyperscaler", lang) in app.summary.value
    app.controls["pricing"].value = "owned"  # who sells means nothing for owned hardware: the dropdown hides
    assert app.rows["seller"].box.layout.display == "none"


def test_the_words_of_a_basis_name_the_seller():
    assert basis_words(Scenario(pricing="reserved_1y"), "en") == "Committed 1 year, Specialist clouds (median)"
    assert basis_words(Scenario(pricing="reserved_1y", seller="lambda-labs"), "zh").startswith("承诺使用 1 年，Lambda Labs")
    assert basis_words(Scenario(pricing="owned"), "en") == label("pricing_owned", "en")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_compare_tab_shows_capex_and_break_even_beside_owned(lang):
    own = Scenario(params=70e9, tokens=1.4e12, gpus=2048, pricing="owned")
    rent = own.replace(pricing="reserved_1y")
    slots = {"A": estimate(rent), "B": estimate(own)}
    table = compare({k: e.scenario for k, e in slots.items()})
    page = compare_html(slots, table, "USD", 1.0, lang)
    assert label("owned_capex", lang) in page and label("owned_breakeven", lang) in page
    # 68,454.81 x 2,048 GPUs up front = $140.2M, which a Chinese reader writes $1.4亿 (亿 = 10^8; issue 41)
    assert ("$140M" in page or "$140.2M" in page) if lang == "en" else ("$1.4亿" in page or "$1.402亿" in page)
    # the CSV of the Compare tab carries them too
    href = page.split('download="comparison.csv" href="')[1].split('"')[0]
    rows = list(csv.DictReader(io.StringIO(base64.b64decode(href.split("base64,", 1)[1]).decode("utf-8"))))
    assert rows[0]["capex"] == "" and float(rows[1]["capex"]) == pytest.approx(CAPITAL_PER_GPU * 2048, abs=0.01)
    assert float(rows[1]["breakeven_months"]) > 0


def test_what_if_csv_has_capex_and_break_even_columns():
    grid = what_if(Scenario(params=70e9, tokens=1.4e12, gpus=2048), {"pricing": ["on_demand", "owned"]})
    text = WhatIfView.csv(grid, ["pricing"], "USD", 1.0)
    rows = {r["pricing"]: r for r in csv.DictReader(io.StringIO(text))}
    assert float(rows["owned"]["capex"]) == pytest.approx(CAPITAL_PER_GPU * 2048, abs=0.01)
    assert float(rows["owned"]["breakeven_months"]) == pytest.approx(
        estimate(Scenario(params=70e9, tokens=1.4e12, gpus=2048, pricing="owned")).owned["breakeven_months"]["on_demand"],
        abs=1e-3)
    assert rows["on_demand"]["capex"] == "" and rows["on_demand"]["breakeven_months"] == ""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_compare_chart_legend_gives_an_owned_slot_its_capex_and_break_even(lang):
    from explorer.plots.analysis import CompareBarsPlot

    own = Scenario(params=70e9, tokens=1.4e12, gpus=2048, pricing="owned")
    table = compare({"A": own.replace(pricing="reserved_1y"), "B": own})
    plot = CompareBarsPlot(language=lang)
    plot.update(table, draw=False)
    texts = [t.get_text() for t in plot.legend.get_texts()]
    assert texts[0] == "A"
    assert label("owned_capex", lang) in texts[1] and ("140M" if lang == "en" else "1.4亿") in texts[1]
    months = table.loc["B", "breakeven_months"]
    assert f"{months:.0f} {label('unit_months', lang)}" in texts[1]
