"""One resolution path: the estimate, the attribution and the app's blank boxes read the values resolve() chose.

A catalog value changed in one place (a named default, an accelerator's price) must reach all three; a blank
box must show the value that, typed in, gives the same result.
"""

import dataclasses
import math
from types import MappingProxyType

import pytest
from conftest import app_factory

from explorer import Scenario, attribute, catalog, estimate, prices
from explorer.analysis import PRICING, RELIABILITY
from explorer.analysis.levers import lever_atoms
from explorer.app.bindings import BINDINGS
from explorer.model.resolve import resolve
from explorer.text import label, readable_number

OPTIONAL = [b.name for b in BINDINGS if b.kind == "optional"]


#: The boxes that take money (USD/..., yuan in yuan mode): their placeholder is rounded as money is shown.
MONEY = {"rate_usd_per_gpu_hour", "purchase_usd_per_gpu", "hosting_usd_per_gpu_hour", "electricity_usd_per_kwh",
         "team_loaded_usd_per_year", "storage_usd_per_gb_month"}


def shown(value, lang="en", name="") -> str:
    """The placeholder text of a box whose blank stands for ``value`` (labels.csv placeholder_used): rounded as
    the results show it, 3 significant digits for money and 4 for other figures, whole numbers from 1,000 up."""
    digits = 3 if name in MONEY else 4
    rounded = float(f"{value:.{digits}g}") if abs(value) < 1000 else float(round(value))
    return label("placeholder_used", lang).format(value=readable_number(rounded))


@pytest.fixture(scope="module")
def app():
    """One app for the module's tests (they only read it), closed after the last one (conftest.app_factory)."""
    with app_factory() as make:
        yield make()


def with_default(monkeypatch, name: str, value: float) -> float:
    """Change the named default ``name`` (defaults.csv) for this test; returns the catalog's value."""
    original = catalog.defaults()
    patched = MappingProxyType({**original, name: dataclasses.replace(original[name], value=value)})
    monkeypatch.setattr(catalog, "defaults", lambda: patched)
    return original[name].value


def test_a_changed_default_reaches_the_estimate_the_attribution_and_the_blank_box(monkeypatch, app):
    s = Scenario(gpus=512)
    old = with_default(monkeypatch, "failure_rate_per_gpu_hour", 1e-4)
    assert old != 1e-4
    # the model
    assert resolve(s).inputs["failure_rate_per_gpu_hour"] == 1e-4
    assert estimate(s).fallbacks["failure_rate_per_gpu_hour"] == 1e-4
    # the attribution: its reliability lever holds the new rate, and typing the catalog's old rate is a change
    assert lever_atoms(s)[RELIABILITY]["failure"] == 1e-4
    a = attribute(s, s.replace(failure_rate_per_gpu_hour=old))
    assert a.parts_usd["reliability"] < 0  # fewer failures than the changed default: a saving
    assert a.parts_usd["reliability"] == pytest.approx(a.change_usd, rel=1e-12)
    # the app
    assert app.set_scenario(s)
    assert app.controls["failure_rate_per_gpu_hour"].placeholder == shown(1e-4)


_REAL_QUOTE = prices.quote


def _clear_price_caches():
    for f in (_REAL_QUOTE, *vars(prices).values()):
        if callable(getattr(f, "cache_clear", None)):
            f.cache_clear()


def test_a_changed_price_reaches_the_estimate_the_attribution_and_the_blank_box(monkeypatch, request, app):
    """Double the H100's on-demand price: the rate, the spot rate, the pricing lever's part and the box follow."""
    s = Scenario(gpu="h100-sxm", gpus=512)
    before = attribute(s, s.replace(pricing="spot"))
    price = prices.quote("h100-sxm", "on_demand").usd_per_gpu_hour
    real = prices.quote

    def doubled(accelerator, basis="on_demand", seller=None, as_of=""):  # the seller (issue 27), the date (37)
        q = real(accelerator, basis, seller, as_of)
        if accelerator == "h100-sxm" and basis == "on_demand" and seller in (None, "specialist"):
            q = dataclasses.replace(q, usd_per_gpu_hour=2 * q.usd_per_gpu_hour)
        return q

    monkeypatch.setattr(prices, "quote", doubled)
    _clear_price_caches()  # explorer.prices caches quotes derived from the on-demand price (spot)
    request.addfinalizer(_clear_price_caches)
    assert resolve(s).inputs["rate_usd_per_gpu_hour"] == 2 * price
    assert resolve(s.replace(pricing="spot")).inputs["rate_usd_per_gpu_hour"] == pytest.approx(
        2 * price * (1 - catalog.default("spot_discount")), rel=1e-12)
    assert lever_atoms(s)["accelerator"]["od_ref"] == 2 * price
    # on-demand -> spot on a cloud: every dollar of the change is rate x GPU-hours, so twice the price, twice it
    after = attribute(s, s.replace(pricing="spot"))
    assert after.parts_usd[PRICING] == pytest.approx(2 * before.parts_usd[PRICING], rel=1e-9)
    assert app.set_scenario(s)
    assert app.controls["rate_usd_per_gpu_hour"].placeholder == shown(2 * price, name="rate_usd_per_gpu_hour")


CASES = {
    "default": Scenario(),
    "spot": Scenario(gpus=512, pricing="spot"),
    "owned": Scenario(gpus=512, pricing="owned", region="cn-ningxia"),
    "owned, no sourced purchase price": Scenario(gpu="tpu-v5p", gpus=512, pricing="owned"),
    "regional-average facility": Scenario(gpus=512, facility="regional_average", region="us-avg"),
    "hyperscale facility in a region with its own PUE": Scenario(gpus=512, region="fr"),
    "CNY, AI-lab pay, LoRA": Scenario(gpus=64, currency="CNY", team_headcount=3, team_pay_basis="ai_lab",
                                      training_kind="lora", params=8e9, tokens=1e9),
}


def _comparable(e) -> dict:
    d = e.to_dict()
    d.pop("warnings")
    return d


def _close(a, b, path=""):
    if isinstance(a, dict):
        assert a.keys() == b.keys(), path
        for k in a:
            _close(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, float) and isinstance(b, float):
        assert a == pytest.approx(b, rel=1e-12, abs=1e-12), path
    else:
        assert a == b, path


@pytest.mark.parametrize("case", CASES)
def test_typing_what_a_blank_box_stands_for_changes_nothing(case):
    """Each blank optional field's fallback, typed in, gives the same estimate (the fallback is what was used)."""
    s = CASES[case]
    e = estimate(s)
    checked = 0
    for name in OPTIONAL:
        value = e.fallbacks.get(name)
        if getattr(s, name) is not None or value is None:
            continue
        _close(_comparable(estimate(s.replace(**{name: value}))), _comparable(e), name)
        checked += 1
    assert checked >= 12


@pytest.mark.parametrize("case", CASES)
def test_every_blank_box_shows_the_estimates_fallback(case, app):
    s = CASES[case]
    assert app.set_scenario(s)
    fx = app.estimate.usd_to_currency  # in yuan mode a money box takes, and shows, yuan at the results' rate
    for name in OPTIONAL:
        value = app.estimate.fallbacks.get(name)
        if value is not None and name in MONEY:
            value *= fx
        expected = (label("placeholder_optimal", "en") if name == "checkpoint_interval_hours"
                    else label("placeholder_unknown", "en") if value is None else shown(value, name=name))
        assert app.controls[name].placeholder == expected, name


def test_blank_pue_follows_the_facility_not_the_region(app):
    """defaults.csv: a hyperscale facility's PUE is `pue` (1.1) wherever it is; regional_average takes the
    region's surveyed PUE, else the industry average `pue_industry_average` (1.58)."""
    fr = catalog.region("fr")
    assert fr.pue is not None and fr.pue != catalog.default("pue")
    assert app.set_scenario(Scenario(gpus=512, region="fr"))
    assert app.controls["pue"].placeholder == shown(catalog.default("pue"))
    us = catalog.region("us-avg")
    assert us.pue is None
    assert app.set_scenario(Scenario(gpus=512, region="us-avg", facility="regional_average"))
    assert app.controls["pue"].placeholder == shown(catalog.default("pue_industry_average"))


def test_blank_boxes_follow_an_accelerator_switch_at_once(app):
    """The boxes show the new accelerator's values after the switch (they read the estimate just made)."""
    assert app.set_scenario(Scenario(gpu="h100-sxm", gpus=512, pricing="owned"))
    app.controls["gpu"].value = "a100-80gb"
    assert app.scenario.gpu == "a100-80gb"
    a100 = catalog.accelerator("a100-80gb")
    assert app.controls["purchase_usd_per_gpu"].placeholder == shown(a100.purchase_usd, name="purchase_usd_per_gpu")
    hosting = app.estimate.owned["hosting_usd_per_gpu_hour"]
    assert math.isfinite(hosting) and app.controls["hosting_usd_per_gpu_hour"].placeholder == shown(hosting, name="hosting_usd_per_gpu_hour")


def test_blank_boxes_follow_the_language(app):
    assert app.set_scenario(Scenario(gpus=512))
    app.controls["language"].value = "zh"
    try:
        assert app.controls["failure_rate_per_gpu_hour"].placeholder == shown(
            catalog.default("failure_rate_per_gpu_hour"), "zh")
    finally:
        app.controls["language"].value = "en"
