"""Issue 41: What-if can price every row at a single provider, as the Plan tab can (headless)."""

from __future__ import annotations

import pytest

from explorer import Scenario, estimate
from explorer.app.bindings import sellers_of

from conftest import open_tab


def test_whatif_can_pick_a_single_provider(make_app):
    a = make_app(query_string="")
    open_tab(a, "whatif")
    v = a.whatif
    offered = [s for _, s in v.seller.options]
    assert offered[0] == "" and set(offered) == {""} | set(sellers_of("h100-sxm"))  # only who prices the H100
    row = (v.table["pricing"] == "on_demand") & (v.table["precision"] == "bf16") & (v.table["region"] == "us-avg")
    as_scenario = float(v.table.loc[row, "total_usd"].iloc[0])
    v.seller.value = "coreweave"
    assert v.table["pricing"].tolist()  # the grid was computed again, for CoreWeave
    at_coreweave = float(v.table.loc[(v.table["pricing"] == "on_demand") & (v.table["precision"] == "bf16")
                                     & (v.table["region"] == "us-avg"), "total_usd"].iloc[0])
    # the row is the estimate of the scenario with CoreWeave as its seller (the model's own path, not the grid's)
    alone = estimate(a.scenario.replace(seller="coreweave", pricing="on_demand", precision="bf16", region="us-avg"))
    assert at_coreweave == pytest.approx(alone.total_usd, rel=1e-9)
    assert at_coreweave != pytest.approx(as_scenario, rel=1e-6)  # CoreWeave's H100 is not the specialist median
    assert a.scenario.seller == "specialist"  # the tab's pick leaves the app's scenario as it was
    # the link keeps the pick, and a page opened from it shows the same grid
    query = a.share_query()
    assert "whatif_seller=coreweave" in query
    b = make_app(query_string=query)
    open_tab(b, "whatif")
    assert b.whatif.seller.value == "coreweave"
    assert b.whatif.table["total_usd"].tolist() == pytest.approx(v.table["total_usd"].tolist())
    # an accelerator CoreWeave does not price: back to the scenario's seller, and out of the link
    assert "coreweave" not in sellers_of("p100")
    a.controls["gpu"].value = "p100"
    assert v.seller.value == "" and "coreweave" not in {s for _, s in v.seller.options}
    assert "whatif_seller" not in a.share_query()


def test_a_link_with_an_unknown_provider_is_ignored(make_app):
    a = make_app(query_string="?whatif_seller=nobody&tab=whatif")
    open_tab(a, "whatif")
    assert a.whatif.seller.value == "" and a.error == ""
    assert a.whatif.base() == a.scenario == Scenario()
