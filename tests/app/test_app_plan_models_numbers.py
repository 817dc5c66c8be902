"""Issue 41 (app v5) without a browser: Chinese numbers, the Plan under owned hardware and without a fit, "Use this
plan" as typed, the Models tab's cost ratio and developer price, the CLI's budget currency, notebook reprs.

Expected values are hand calculations from the catalog's figures (each written out beside its assertion).
"""

from __future__ import annotations

import math
import re

import pytest

from explorer import Scenario
from explorer.analysis import budget_status, plan
from explorer.app.pages import estimate_html
from explorer.app.tabs.models import KEY_COLUMNS, ModelsView, developer_prices, with_cost_ratio
from explorer.app.tabs.plan import plan_html, typed_size
from explorer.model import estimate
from explorer.text import count_in, money_in, quantity_in

#: English scale letters after a digit (1.8M, 605k, 1000B), and e-notation (1.18e+24): none on a zh page.
_ENGLISH_SCALE = re.compile(r"\d(?:[kMBT]\b|e[+-]?\d)")


def test_chinese_numbers_by_hand():
    assert money_in(3.66e7, "CNY", "zh", symbol=True) == "¥3,660万"  # 36.6M = 3,660 x 10^4
    assert money_in(1.89e8, "CNY", "zh", symbol=True) == "¥1.89亿"  # 1.89 x 10^8
    assert money_in(-2.5e5, "USD", "zh", symbol=True) == "-$25万"
    assert count_in(6.05e5, "zh") == "60.5万"  # 605k GPU-hours
    assert count_in(1.18e24, "zh") == "1.18×10²⁴"  # FLOP: never 1.18e+24
    assert quantity_in(1.44e12, "zh") == "1.44万亿"  # 1.44T tokens = 1.44 x 10^12
    assert money_in(3.66e7, "CNY", "en") == "¥36.6M"  # English unchanged


def test_zh_kpis_and_summary_have_no_english_scales():
    e = estimate(Scenario(currency="CNY", params=70e9, tokens=1.4e12))
    text = re.sub("<[^>]+>", " ", estimate_html.kpi_html(e, "zh")) + estimate_html.summary_text(e, "zh")
    assert not _ENGLISH_SCALE.search(text), _ENGLISH_SCALE.search(text)
    assert "万" in text and "¥" in text
    # the English page keeps its letters
    assert re.search(r"\$\d[\d.]*M", re.sub("<[^>]+>", " ", estimate_html.kpi_html(estimate(Scenario(params=70e9)), "en")))


def test_plan_under_owned_hardware_shows_what_to_buy_and_the_break_even():
    base = Scenario(pricing="owned", gpus=1024)
    p = plan(5e6, base, gpu_cap=1024, cluster="base")
    o = p.estimate.owned
    # capex = GPUs x capital per GPU (purchase with servers and network), by hand from the estimate's parts
    assert o["capex_usd"] == pytest.approx(1024 * o["capital_usd_per_gpu"])
    out = plan_html(p, "USD", 1.0, "en")
    text = re.sub("<[^>]+>", " ", out)
    assert "Hardware to buy first" in text and "Break-even against renting" in text
    capex_text = money_in(o["capex_usd"], "USD", "en")
    assert capex_text in text
    times = o["capex_usd"] / 5e6  # $70.1M / $5M = 14x
    assert f"{times:.2g}× the budget" in text
    assert f"{o['breakeven_months']['on_demand']:.0f} months" in text
    assert "hardware financed" in text  # the budget's rule is stated
    zh = re.sub("<[^>]+>", " ", plan_html(p, "CNY", 7.0, "zh"))
    assert "需先购置的硬件" in zh and not _ENGLISH_SCALE.search(zh.replace("H100 SXM5 80GB", ""))


def test_no_model_fits_says_why():
    # a fixed team of 40 people for 12 months at the default loaded pay: far above a $1M budget
    base = Scenario(team_headcount=40, project_months=12)
    p = plan(1e6, base)
    assert p.scenario is None and p.limited_by == "budget" and p.smallest is not None
    people = p.smallest.cost()["people"]
    assert people > 1e6  # the team alone costs more than the budget
    text = re.sub("<[^>]+>", " ", plan_html(p, "USD", 1.0, "en"))
    assert "Why:" in text and money_in(people, "USD", "en") in text and "people" in text
    assert "Plan(budget=$1M" in repr(p) and "nothing fits: budget" in repr(p)


@pytest.mark.parametrize("x, typed", [(71_939_498_352.88113, 71.9e9), (1_438_789_967_057.6, 1.43e12),
                                      (999_999.0, 999_000.0), (7e9, 7e9)])
def test_use_this_plan_types_sizes_as_a_person_would(x, typed):
    assert typed_size(x) == typed  # three significant digits, rounded down (the plan stays affordable)


def test_use_this_plan_writes_a_short_size(make_app):
    a = make_app(query_string="")
    a.tabs.selected_index = 8  # Plan
    a.plan_view.render(True)
    assert a.plan_view.use_plan()
    digits = re.sub(r"[^\d]", "", f"{a.scenario.params:.0f}".rstrip("0"))
    assert len(digits) <= 3  # 71.9B, never 71.93949835288113B


def test_models_cost_ratio_and_developer_price():
    prices = developer_prices()
    assert prices["run:DeepSeek-V3"][0] == 2.0  # $2 per H800-hour, DeepSeek-V3 report Table 1
    from explorer.analysis.runs import models_table
    t = with_cost_ratio(models_table())
    row = t[t["id"] == "run:DeepSeek-V3"].iloc[0]
    assert row["cost_ratio"] == pytest.approx(row["replay_run_usd"] / 5_576_000)  # reported $5.576M
    at_two = with_cost_ratio(models_table(), developer_price=True)
    row2 = at_two[at_two["id"] == "run:DeepSeek-V3"].iloc[0]
    # at $2/h the rate part of the replay is 2 x its GPU-hours; the replay costs less than at the catalog price
    assert row2["replay_run_usd"] < row["replay_run_usd"]
    assert row2["replay_run_usd"] >= 2.0 * row["replay_gpu_hours"] * 0.999


def test_models_tab_leads_with_its_key_columns():
    v = ModelsView("en", on_load=lambda s: True)
    v.render(True)
    assert [c for c, _ in KEY_COLUMNS][:8] == ["model", "source", "reported_gpu_hours", "replay_gpu_hours",
                                               "gpu_hours_error", "reported_cost_usd", "replay_run_usd", "cost_ratio"]
    assert v.table.columns[4] == "Replay error" and len(v.table.columns) == len(KEY_COLUMNS)
    row = next(r for r in v.table.rows if r["id"] == "run:DeepSeek-V3")
    assert row["cells"][7].endswith("×")
    assert "DeepSeek-V3" in v.price_note.value and "$2" in v.price_note.value
    v.all_columns.value = True
    assert len(v.table.columns) > len(KEY_COLUMNS)


def test_budget_status_and_plan_print_like_pandas():
    b = budget_status(Scenario(), 2e6)
    assert repr(b).startswith("BudgetStatus(") and len(repr(b)) < 200
    assert "<table>" in b._repr_html_() and "P(over budget)" in b._repr_html_()
    p = plan(5e6, Scenario(gpus=1024), scope="final_run", cluster="base")
    assert len(repr(p)) < 250 and "limited by budget" in repr(p)
    assert "<table>" in p._repr_html_() and "×10" in p._repr_html_()  # compute as a power of ten


def test_cli_budget_in_the_chosen_currency(tmp_path):
    from explorer.cli import main
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["plan", "--budget", "5000万", "--currency", "CNY", "--usd-to-cny", "7"]) == 0
    first = out.getvalue().splitlines()[0]
    # 5000万 yuan at 7 yuan a dollar: 50,000,000 / 7 = 7,142,857 USD
    assert "50,000,000 CNY" in first and "7,142,857 USD" in first, first
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["plan", "--budget-usd", "5000万", "--currency", "CNY", "--usd-to-cny", "7"]) == 0
    first = out.getvalue().splitlines()[0]
    assert "50,000,000 USD" in first and "--budget-usd is in dollars" in first, first


def test_sellers_offered_are_those_pricing_the_chip():
    from explorer import prices
    from explorer.app.bindings import sellers_of
    from explorer.model import estimate as est

    offered = sellers_of("h100-sxm")
    assert offered[:2] == prices.SELLER_GROUPS
    for seller in offered[2:]:  # every provider offered prices the chip: the run is never "unknown"
        e = est(Scenario(gpu="h100-sxm", seller=seller))
        assert math.isfinite(e.rate_usd_per_gpu_hour), seller
    left_out = [s for s in prices.sellers() if s not in offered]
    assert left_out and all(not prices.seller_date(s, "h100-sxm") for s in left_out)


def test_accelerator_change_keeps_the_seller_or_falls_back_with_a_note(make_app):
    from explorer.app.bindings import sellers_of

    a = make_app(query_string="")
    a.controls["seller"].value = "coreweave"  # prices the H100 and the H200, not the P100
    assert "coreweave" in sellers_of("h200")
    a.controls["gpu"].value = "h200"
    assert a.controls["seller"].value == "coreweave" and a.rows["seller"].note == ""
    assert "coreweave" not in sellers_of("p100")
    a.controls["gpu"].value = "p100"
    assert a.controls["seller"].value == "specialist" and a.scenario.seller == "specialist"
    assert "CoreWeave" in a.rows["seller"].note and "P100" in a.rows["seller"].note
    assert {v for _, v in a.controls["seller"].options} == set(sellers_of("p100"))


def test_a_link_with_a_seller_that_does_not_price_the_chip_still_opens(make_app):
    a = make_app(query_string="?gpu=h100-sxm&seller=vultr")
    assert a.scenario.seller == "vultr" and a.controls["seller"].value == "vultr"


def test_plan_can_pick_a_single_provider(make_app):
    from explorer.app.bindings import sellers_of
    from explorer.model import estimate as est

    a = make_app(query_string="")
    a.tabs.selected_index = 8  # Plan
    v = a.plan_view
    offered = {s for _, s in v.seller.options}
    assert offered == {""} | set(sellers_of("h100-sxm"))
    v.seller.value = "coreweave"
    assert v.plan.scenario.seller == "coreweave"
    # the plan is priced at CoreWeave's own H100 rate, the one an estimate with that seller uses
    assert v.plan.estimate.rate_usd_per_gpu_hour == est(Scenario(seller="coreweave")).rate_usd_per_gpu_hour
    v.gpu.value = "p100"  # CoreWeave lists no P100: back to the scenario's seller
    assert v.seller.value == "" and "coreweave" not in {s for _, s in v.seller.options}
    assert "plan_seller" not in a.share_query()


def test_simulation_prints_money_not_e_notation():
    from explorer.analysis import simulate

    sim = simulate(Scenario(), n=500, seed=0)
    text = repr(sim) + sim._repr_html_()
    assert not re.search(r"\de[+-]\d", text), text[:300]
    lo, hi = sim.interval_usd
    assert money_in(lo, "USD", "en") in repr(sim) and money_in(hi, "USD", "en") in repr(sim)
    assert sim.percentiles_text().loc["P50", "total_usd"].startswith("$")
