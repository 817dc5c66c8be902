"""Prices a buyer recognises (issue 27): who sells x how you commit, and owned beside them with capex and break-even.

Expected values are read by hand off ``explorer/data/cloud_prices.csv`` and ``accelerators.csv``/``defaults.csv``
(the rows are quoted in each test), not from the code under test.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from strategies import examples
from explorer import Scenario, ScenarioError, catalog, compare, estimate, prices
from explorer.analysis import what_if

ACCELERATORS = sorted(catalog.accelerators())
SELLERS = list(prices.sellers())
COMMITTED = ("reserved_1y", "reserved_3y")


# ------------------------------------------------------------------ laws over every accelerator x seller
@settings(max_examples=examples(300), deadline=None)
@given(acc=st.sampled_from(ACCELERATORS), seller=st.sampled_from(SELLERS))
def test_within_one_seller_committed_use_is_never_dearer_than_on_demand(acc, seller):
    on_demand = prices.quote(acc, "on_demand", seller).usd_per_gpu_hour
    for commitment in COMMITTED:
        q = prices.quote(acc, commitment, seller)
        if math.isnan(on_demand):
            continue  # the seller lists no on-demand price: the committed one stands alone (or is unknown)
        assert q.usd_per_gpu_hour <= on_demand, (acc, seller, commitment, q.rule)
        assert q.usd_per_gpu_hour > 0


@settings(max_examples=examples(300), deadline=None)
@given(acc=st.sampled_from(ACCELERATORS), seller=st.sampled_from(SELLERS),
       commitment=st.sampled_from(prices.COMMITMENTS))
def test_every_seller_and_commitment_gives_a_price_or_an_unknown_warning_never_an_exception(acc, seller, commitment):
    q = prices.quote(acc, commitment, seller)
    assert q.seller == seller and q.rule
    if math.isnan(q.usd_per_gpu_hour):
        assert q.rule.startswith("unknown") or q.rule.startswith("no "), q.rule
        e = estimate(Scenario(gpu=acc, precision=catalog.accelerator(acc).precisions[0], pricing=commitment,
                              seller=seller, gpus=64))
        assert {w.id for w in e.warnings} & {"seller_price_unknown", "cloud_price_unknown"}
        assert math.isnan(e.total_usd)
    else:
        assert q.usd_per_gpu_hour > 0


def test_the_law_holds_for_every_pair_exhaustively():
    """The hypothesis laws sample; this walks every accelerator x seller once (the quotes are cached)."""
    broken = []
    for acc in ACCELERATORS:
        for seller in SELLERS:
            od = prices.quote(acc, "on_demand", seller).usd_per_gpu_hour
            for c in COMMITTED:
                v = prices.quote(acc, c, seller).usd_per_gpu_hour
                if math.isfinite(od) and not v <= od:
                    broken.append((acc, seller, c, v, od))
    assert not broken


# ------------------------------------------------------------------ figures by hand from cloud_prices.csv
#: The specialist H100 SXM on-demand median of the providers' own pages (tests/model/test_money.py lists the five): 2.99.
H100_SPECIALIST_ON_DEMAND = 23.92 / 8  # DigitalOcean's 8x droplet, the middle of 2.45, 2.94, 2.99, 2.99, 3.95
#: The one specialist offer listing on-demand and committed prices on one row: Oblivus Cloud, V100, 2024-02-26.
OBLIVUS_V100 = (0.87, 0.61, 0.43)


def test_the_specialists_committed_price_is_their_on_demand_less_the_listed_discount():
    od, c1, c3 = OBLIVUS_V100
    assert prices.committed_discount("reserved_1y") == pytest.approx(1 - c1 / od)
    assert prices.committed_discount("reserved_3y") == pytest.approx(1 - c3 / od)
    q1 = prices.quote("h100-sxm", "reserved_1y")
    assert q1.usd_per_gpu_hour == pytest.approx(H100_SPECIALIST_ON_DEMAND * c1 / od)  # 2.10 (2.80 before issue 37, 7.67 before 27)
    assert q1.estimated and q1.seller == "specialist"
    assert prices.quote("h100-sxm", "reserved_3y").usd_per_gpu_hour == pytest.approx(H100_SPECIALIST_ON_DEMAND * c3 / od)


def test_the_hyperscalers_committed_prices_keep_their_names_and_values():
    # Google Cloud a3-highgpu, 2025-03-17: 11.06 on demand, 7.67 (1y), 4.86 (3y): the old reserved_1y/3y figures
    assert prices.quote("h100-sxm", "hyperscaler_reserved_1y").usd_per_gpu_hour == pytest.approx(7.67)
    assert prices.quote("h100-sxm", "hyperscaler_reserved_3y").usd_per_gpu_hour == pytest.approx(4.86)
    assert prices.quote("h100-sxm", "reserved_1y", "hyperscaler").usd_per_gpu_hour == pytest.approx(7.67)
    # AWS p4de A100 80GB lists 5.12 / 3.00 / 1.81 (us-east-1): its own committed price
    q = prices.quote("a100-80gb", "reserved_1y", "amazon-web-services")
    assert q.usd_per_gpu_hour == pytest.approx(3.00) and not q.estimated


def test_one_named_provider_is_priced_at_its_own_dated_price():
    # Lambda's pricing page read 2026-09-25: 1x H100 SXM 4.29, 8x 3.99 -> the median that day
    q = prices.quote("h100-sxm", "on_demand", "lambda-labs")
    assert q.usd_per_gpu_hour == pytest.approx((4.29 + 3.99) / 2) and q.date == "2026-09-25"
    # Nebius lists no committed price: its on-demand 3.85 less the specialists' median discount, an estimate
    n = prices.quote("h100-sxm", "reserved_1y", "nebius")
    assert n.usd_per_gpu_hour == pytest.approx(3.85 * OBLIVUS_V100[1] / OBLIVUS_V100[0]) and n.estimated
    # a provider that does not list the chip: unknown, not a guess
    assert math.isnan(prices.quote("tpu-v4", "on_demand", "lambda-labs").usd_per_gpu_hour)
    assert prices.seller_date("lambda-labs", "h100-sxm") == "2026-09-25"


def test_a_committed_list_above_todays_on_demand_is_capped_and_says_so():
    # Oblivus listed H100 1y at 3.62 on 2024-02-26; its latest on-demand is 2.94 (2025-03-03)
    q = prices.quote("h100-sxm", "reserved_1y", "oblivus-cloud")
    assert q.usd_per_gpu_hour == pytest.approx(2.94)
    assert "never dearer" in q.rule and "3.62" in q.rule


# ------------------------------------------------------------------ names old and new
def test_hyperscaler_names_load_as_commitment_and_seller():
    s = Scenario(pricing="hyperscaler_reserved_1y")
    assert (s.pricing, s.seller) == ("reserved_1y", "hyperscaler")
    assert Scenario.from_json(s.to_json()) == s
    assert estimate(s).rate_usd_per_gpu_hour == pytest.approx(7.67)


def test_old_reserved_names_now_mean_the_default_sellers_committed_use_never_dearer_than_on_demand():
    for pricing in COMMITTED:
        old = estimate(Scenario(pricing=pricing))
        assert old.scenario.seller == "specialist"
        assert old.rate_usd_per_gpu_hour <= estimate(Scenario()).rate_usd_per_gpu_hour
        assert "committed_price_estimated" in {w.id for w in old.warnings}


def test_a_named_provider_with_a_hyperscaler_name_is_refused_naming_the_field():
    with pytest.raises(ScenarioError) as err:
        Scenario(pricing="hyperscaler_on_demand", seller="lambda-labs")
    assert err.value.field == "seller" and "lambda-labs" in str(err.value)
    with pytest.raises(ScenarioError) as err:
        Scenario(seller="no-such-cloud")
    assert err.value.field == "seller"
    with pytest.raises(ScenarioError, match=r"^seller: 'no-such-cloud' is not allowed; allowed: one of specialist"):
        prices.quote("h100-sxm", "on_demand", "no-such-cloud")


# ------------------------------------------------------------------ owned as a buyer sees it
#: H100 SXM, 2,048 GPUs: 33,810 USD each (accelerators.csv) x server overhead 1.64 / (1 - network 0.19)
#: (defaults.csv) = 68,454.81 USD per GPU with servers and network.
CAPITAL_PER_GPU = 33_810 * 1.64 / (1 - 0.19)


def test_compare_shows_capex_and_break_even_beside_owned_and_nothing_beside_rent():
    owned = Scenario(params=70e9, tokens=1.4e12, gpus=2048, pricing="owned")
    rent = owned.replace(pricing="reserved_1y", seller="lambda-labs")
    df = compare({"rent": rent, "own": owned})
    assert df.loc["own", "capex_usd"] == pytest.approx(CAPITAL_PER_GPU * 2048)  # 140.2M up front
    months = df.loc["own", "breakeven_months"]
    # at least the capital over the whole on-demand rent of a month (730 h at 3.995): running costs only lengthen it
    assert months >= CAPITAL_PER_GPU / (H100_SPECIALIST_ON_DEMAND * 24 * 365.25 / 12)
    assert months == pytest.approx(estimate(owned).owned["breakeven_months"]["on_demand"])
    assert months < 12 * 5  # it pays back within the five-year life
    assert math.isnan(df.loc["rent", "capex_usd"]) and math.isnan(df.loc["rent", "breakeven_months"])


def test_what_if_rows_of_owned_carry_capex_and_break_even():
    grid = what_if(Scenario(params=70e9, tokens=1.4e12, gpus=2048),
                   {"pricing": ["on_demand", "reserved_1y", "owned"], "precision": ["bf16", "fp8"]})
    owned = grid[grid["pricing"] == "owned"]
    rented = grid[grid["pricing"] != "owned"]
    assert len(owned) == 2 and owned["capex_usd"].tolist() == pytest.approx([CAPITAL_PER_GPU * 2048] * 2)
    assert (owned["breakeven_months"] > 0).all()
    assert rented["capex_usd"].isna().all() and rented["breakeven_months"].isna().all()
    od = grid[(grid["pricing"] == "on_demand")]["total_usd"].tolist()
    r1 = grid[(grid["pricing"] == "reserved_1y")]["total_usd"].tolist()
    assert all(a < b for a, b in zip(r1, od))  # committed with the same seller costs less than on-demand


def test_epochs_committed_discounts_bracket_ours():
    """Epoch AI's DEFAULT_CUD (cud_estimate.ipynb; /work/shared pricing notes): AWS 41%/64%, Google 37%/56%,
    Azure 25%/49%, Lambda (assumed average) 34%/56%. Ours: the hyperscalers' median over listed offers and the
    specialists' one listed offer must fall inside Epoch's range of providers."""
    epoch_1y, epoch_3y = (0.25, 0.41), (0.49, 0.64)
    for basis, (lo, hi) in (("reserved_1y", epoch_1y), ("hyperscaler_reserved_1y", epoch_1y),
                            ("reserved_3y", epoch_3y), ("hyperscaler_reserved_3y", epoch_3y)):
        assert lo <= prices.committed_discount(basis) <= hi, basis
