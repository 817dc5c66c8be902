"""Prices as of a date in the app (issue 37): the Pricing group's *Prices as of*, a link's ``price_date``, and the
summary that says which date the prices are from."""

import pytest


def test_a_link_prices_gpt3s_v100_at_mid_2020(make_app):
    app = make_app("price_date=2020-06&gpu=v100&precision=fp16")
    assert app.estimate.scenario.price_date == "2020-06"
    assert app.controls["price_date"].value == "2020-06"  # a month from a link is shown as it is
    # by hand from cloud_prices.csv as of 2020-06-30: no specialist lists a V100 yet, so the specialist basis is
    # the hyperscalers' on-demand median (AWS 3.90 of 2019-08-05; Azure (3.06 + 2.75) / 2 of 2020-03-09) x the
    # specialist/hyperscaler ratio, floored at the cheapest price its sellers list: Azure's 3-year 1.16
    assert app.estimate.rate_usd_per_gpu_hour == pytest.approx(1.16)
    assert "as of 2020-06-30" in app.summary.value


def test_newest_prices_and_a_year_from_the_dropdown(make_app):
    app = make_app()
    newest = app.estimate.rate_usd_per_gpu_hour
    # the dropdown shows "Newest prices" (its value "", which the Scenario reads as None)
    assert app.controls["price_date"].value == "" and app.controls["price_date"].label == "Newest prices"
    assert newest == pytest.approx(23.92 / 8)  # DigitalOcean's, the middle of the five first-hand prices
    app.controls["price_date"].value = "2024"
    assert app.estimate.scenario.price_date == "2024"
    assert app.estimate.rate_usd_per_gpu_hour != pytest.approx(newest)
    app.controls["price_date"].value = ""
    assert app.estimate.scenario.price_date is None and app.estimate.rate_usd_per_gpu_hour == pytest.approx(newest)
    app.controls["price_date"].value = "2024"
    app.apply_query("preset=gpt3")  # a preset without a date goes back to the newest prices
    assert app.estimate.scenario.price_date is None and app.controls["price_date"].value == ""


@pytest.mark.parametrize("bad", ["2020-13", "1999", "20x0", "2020-06-31"])
def test_a_bad_price_date_in_a_link_is_named_and_dropped(make_app, bad):
    app = make_app(f"price_date={bad}&params=13B")
    assert app.estimate.scenario.price_date is None
    assert app.estimate.scenario.params == 13e9  # the rest of the link is kept
    assert "price_date" in app.banner.value or "Prices as of" in app.banner.value
