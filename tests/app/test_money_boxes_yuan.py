"""Money boxes take yuan while the results are shown in yuan (issue 27's leftover), and the link keeps USD.

The rate is the sourced default of ``explorer/data/defaults.csv``: ``usd_to_cny`` = 7.084 CNY/USD (the 2023
annual average the China rows of regions.csv use). Expected values are hand calculations with that rate:
4 USD/GPU-hour x 7.084 = 28.336 CNY/GPU-hour; 200,000 USD/person-year x 7.084 = 1,416,800 CNY; 2 USD per 1M
tokens x 7.084 = 14.168 CNY.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from strategies import examples
from explorer import Scenario, catalog
from explorer.app.panel import placeholder_number
from explorer.model import currency_per_usd, estimate

FX = 7.084  # CNY/USD, defaults.csv (read by hand from the file, not from the code under test)


def test_the_hand_rate_is_the_catalogs():
    assert catalog.default("usd_to_cny") == FX


@pytest.mark.parametrize("name, usd, cny", [
    ("rate_usd_per_gpu_hour", "4", "28.336"),
    ("team_loaded_usd_per_year", "200000", "1416800"),
    ("purchase_usd_per_gpu", "30000", "212520"),
])
def test_yuan_typed_in_yuan_mode_is_the_usd_typed_in_usd_mode(make_app, name, usd, cny):
    in_usd = make_app()
    in_usd.controls[name].value = usd
    if name == "purchase_usd_per_gpu":
        in_usd.controls["pricing"].value = "owned"
    in_cny = make_app("currency=CNY")
    if name == "purchase_usd_per_gpu":
        in_cny.controls["pricing"].value = "owned"
    in_cny.controls[name].value = cny
    assert in_usd.error == in_cny.error == ""
    assert getattr(in_cny.scenario, name) == pytest.approx(float(usd), rel=1e-12)
    assert getattr(in_cny.scenario, name) == pytest.approx(getattr(in_usd.scenario, name), rel=1e-12)
    assert in_cny.estimate.total_usd == pytest.approx(in_usd.estimate.total_usd, rel=1e-9)
    assert f"{name}={usd}" in in_cny.share_query()  # the link keeps USD


def test_a_number_box_of_money_takes_yuan_too(make_app):
    app = make_app("currency=CNY")
    app.controls["data_usd_per_1m_tokens"].value = 14.168  # 2 USD per 1M tokens
    assert app.error == "" and app.scenario.data_usd_per_1m_tokens == pytest.approx(2.0, rel=1e-12)


def test_switching_currency_rewrites_the_boxes_and_keeps_the_exact_usd(make_app):
    app = make_app("rate_usd_per_gpu_hour=2.5&team_loaded_usd_per_year=123456.789")
    app.controls["currency"].value = "CNY"
    assert app.controls["rate_usd_per_gpu_hour"].value == "17.71"  # 2.5 x 7.084
    assert app.controls["team_loaded_usd_per_year"].value == "874567.893276"  # 123,456.789 x 7.084
    assert "CNY/GPU-hour" in app.rows["rate_usd_per_gpu_hour"].caption.value
    assert "7.084" in app.rows["currency"].note
    app.controls["params"].value = 13e9  # another change reads the unchanged yuan boxes back
    assert (app.scenario.rate_usd_per_gpu_hour, app.scenario.team_loaded_usd_per_year) == (2.5, 123456.789)
    app.controls["currency"].value = "USD"
    assert app.controls["rate_usd_per_gpu_hour"].value == "2.5"
    assert "USD/GPU-hour" in app.rows["rate_usd_per_gpu_hour"].caption.value
    assert (app.scenario.rate_usd_per_gpu_hour, app.scenario.team_loaded_usd_per_year) == (2.5, 123456.789)


def test_a_rate_of_ones_own_converts_the_boxes_at_it(make_app):
    app = make_app("currency=CNY&rate_usd_per_gpu_hour=4")
    app.controls["usd_to_cny"].value = "7"
    assert app.error == "" and app.scenario.rate_usd_per_gpu_hour == 4
    assert app.controls["rate_usd_per_gpu_hour"].value == "28"  # 4 x 7
    app.controls["rate_usd_per_gpu_hour"].value = "35"  # 5 USD at 7 CNY/USD
    assert app.scenario.rate_usd_per_gpu_hour == pytest.approx(5.0, rel=1e-12)


def test_chinese_labels_name_yuan_and_refusals_stay_beside_the_box(make_app):
    app = make_app("currency=CNY&lang=zh")
    app.groups.selected_index = 2  # pricing
    assert "元/GPU 时" in app.rows["rate_usd_per_gpu_hour"].caption.value
    assert "美元" not in app.rows["rate_usd_per_gpu_hour"].caption.value
    assert "7.084" in app.rows["currency"].note
    good = app.estimate
    app.controls["rate_usd_per_gpu_hour"].value = "abc"
    assert app.error and app.estimate is good and app.rows["rate_usd_per_gpu_hour"].message.value


def test_placeholders_in_yuan_and_rounded(make_app):
    app = make_app("gpu=h100-sxm&pricing=reserved_1y")
    # 2.99 x 0.61 / 0.87 = 2.0964 USD: the specialists' first-hand H100 median less Oblivus's 1-year discount
    used = app.estimate.fallbacks["rate_usd_per_gpu_hour"]
    assert used == pytest.approx(2.99 * 0.61 / 0.87, rel=1e-9)
    assert app.controls["rate_usd_per_gpu_hour"].placeholder == "blank = 2.1"
    app.controls["currency"].value = "CNY"
    assert app.controls["rate_usd_per_gpu_hour"].placeholder == "blank = 14.9"  # 2.0964 x 7.084 = 14.851
    assert used * FX == pytest.approx(14.851, abs=5e-4)


@pytest.mark.parametrize("x, digits, text", [(2.69943, 3, "2.7"), (33810.4, 3, "33,810"), (0.0806, 3, "0.0806"),
                                             (388000.0, 3, "388,000"), (1.9203019323671495, 3, "1.92"),
                                             (7.084, 4, "7.084"), (2.04e-5, 4, "0.0000204")])
def test_placeholder_number_rounds_as_the_results_do(x, digits, text):
    assert placeholder_number(x, digits) == text


def test_the_rate_box_shows_the_rate_of_the_card(make_app):
    app = make_app("currency=CNY")
    assert app.controls["usd_to_cny"].placeholder == "blank = 7.084"  # defaults.csv, as the KPI card shows it


def test_the_rate_of_money_is_one_in_dollars_the_typed_rate_else_the_sourced_one():
    """The one rule for the boxes and the results: by hand, 1 in USD, 6.5 typed, else 7.084 from defaults.csv."""
    cases = [(Scenario(), 1.0), (Scenario(usd_to_cny=6.5), 1.0), (Scenario(currency="CNY"), FX),
             (Scenario(currency="CNY", usd_to_cny=6.5), 6.5)]
    for s, rate in cases:
        assert currency_per_usd(s) == rate
        assert estimate(s).cost()["total"] == pytest.approx(estimate(s).cost_usd["total"] * rate, rel=1e-12)


@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(usd=st.floats(0.05, 50.0), fx=st.floats(1.0, 20.0))
def test_any_rate_typed_in_yuan_is_that_many_dollars_divided_by_the_rate(make_app, usd, fx):
    """Law: at any rate, yuan typed in a money box are the same scenario as their dollars typed in USD mode."""
    app = make_app(f"currency=CNY&usd_to_cny={fx!r}")
    app.controls["rate_usd_per_gpu_hour"].value = repr(usd * fx)
    assert app.error == ""
    assert app.scenario.rate_usd_per_gpu_hour == pytest.approx(usd, rel=1e-9)
