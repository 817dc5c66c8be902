"""Cloud prices per accelerator on named price bases, each derived from dated provider prices by one rule.

Every accelerator is priced on the same five bases, so that two accelerators
compared on one basis differ by the hardware, not by who sells it:

``on_demand``
    Specialist GPU clouds (Lambda, RunPod, CoreWeave, Cudo, ...), on-demand:
    what renting today costs where most training capacity is rented. The
    default basis.
``hyperscaler_on_demand``
    AWS, Google Cloud, Azure and Oracle list prices, on-demand.
``reserved_1y``, ``reserved_3y``
    1- and 3-year committed use at the hyperscalers (Epoch AI's cloud-cost
    method applies committed-use discounts to hyperscaler list prices;
    Cottier et al. 2024).
``spot``
    The specialist on-demand price less the spot discount.

The rule (:func:`quote`), for one accelerator and one basis:

1. **Market median.** Take each provider's latest price on the basis (the
   median of that provider's rows on its latest date), keep the providers
   whose latest price is within :data:`WINDOW_DAYS` of the newest price of the
   accelerator on any basis, and take the median over those providers.
2. **Cross-basis estimate.** With no price on an on-demand basis but one on the
   other: that price times the median ratio between the two bases over the
   accelerators priced on both (a TPU is sold by Google alone; an old GPU is
   no longer listed by specialist clouds).
3. **Peer estimate.** With no price at all: the nearest catalog accelerator
   priced on the basis (same vendor first, then GPU or TPU, nearest release
   year, nearest 16-bit peak), per unit of dense 16-bit peak FLOP/s.
4. **Committed use** without listed committed prices: the hyperscaler
   on-demand price less the median discount over the offers that list both.
5. **Spot**: ``on_demand`` times (1 - ``spot_discount``), the default of
   defaults.csv (no provider's spot prices are in the price data).

Steps 2 to 5 are estimates and are marked so. Prices come from
``explorer/data/cloud_prices.csv``: Epoch AI's hardware price database (CC BY
4.0; "Epoch AI, training-cost-trends"; Cottier et al. 2024, "The rising costs
of training frontier AI models", arXiv 2405.21015) and newer dated prices,
each row with its source.
"""

from __future__ import annotations

import datetime as _dt
import functools
import math
import statistics
from dataclasses import dataclass

from explorer import catalog
from explorer.errors import ScenarioError
from explorer.messages import Message

__all__ = ["BASES", "CLOUD_BASES", "WINDOW_DAYS", "Quote", "quote", "market_prices", "basis_ratio",
           "committed_discount", "check_basis"]

#: The cloud price bases, in display order.
CLOUD_BASES: tuple[str, ...] = ("on_demand", "hyperscaler_on_demand", "reserved_1y", "reserved_3y", "spot")
#: Every price basis: the cloud bases and owned hardware.
BASES: tuple[str, ...] = CLOUD_BASES + ("owned",)
#: A provider's latest price counts when it is at most this many days older than the accelerator's newest price.
WINDOW_DAYS = 365

_COLUMN = {"on_demand": "on_demand_usd_per_gpu_hour", "hyperscaler_on_demand": "on_demand_usd_per_gpu_hour",
           "reserved_1y": "committed_1y_usd_per_gpu_hour", "reserved_3y": "committed_3y_usd_per_gpu_hour"}
_KIND = {"on_demand": "specialist", "hyperscaler_on_demand": "hyperscaler", "reserved_1y": "hyperscaler",
         "reserved_3y": "hyperscaler"}


@dataclass(frozen=True)
class Quote:
    """A price of one accelerator on one basis, and how it was found.

    Attributes
    ----------
    accelerator, basis : str
        Catalog id and price basis (:data:`CLOUD_BASES`).
    usd_per_gpu_hour : float
        The price [USD/GPU-hour]; NaN when nothing could be derived.
    rule : str
        How the value was found, with the providers and prices used.
    providers : tuple of str
        Providers whose prices make the value (empty for an estimate from another accelerator).
    date : str
        Date of the newest price used (ISO), or "".
    estimated : bool
        True unless the value is a median of the accelerator's own prices on the basis.
    """

    accelerator: str
    basis: str
    usd_per_gpu_hour: float
    rule: str
    providers: tuple[str, ...] = ()
    date: str = ""
    estimated: bool = False

    @property
    def source(self) -> str:
        """One line for an assumption's source column."""
        return f"{self.rule} (explorer/data/cloud_prices.csv; Epoch AI hardware price database, CC BY 4.0)"


def check_basis(basis: str) -> str:
    """``basis`` if it is a price basis, else :class:`ScenarioError` naming the allowed ones."""
    if basis not in BASES:
        raise ScenarioError("pricing", basis, Message("allowed_choices", choices=list(BASES), field="pricing"))
    return basis


def _date(text: str) -> _dt.date:
    return _dt.date.fromisoformat(text)


@functools.cache
def market_prices(accelerator: str, basis: str) -> tuple[tuple[str, float, str], ...]:
    """Each provider's latest price on ``basis`` within the window: (provider, USD/GPU-hour, date), sorted by price."""
    rows = [r for r in catalog.read_csv("cloud_prices.csv") if r["accelerator"] == accelerator]
    if not rows or basis not in _COLUMN:
        return ()
    newest = max(_date(r["price_date"]) for r in rows)
    column, kind = _COLUMN[basis], _KIND[basis]
    latest: dict[str, tuple[_dt.date, list[float]]] = {}
    for r in rows:
        if r["provider_kind"] != kind or not r[column]:
            continue
        d, price = _date(r["price_date"]), float(r[column])
        seen = latest.get(r["provider"])
        if seen is None or d > seen[0]:
            latest[r["provider"]] = (d, [price])
        elif d == seen[0]:
            seen[1].append(price)
    out = [(p, statistics.median(v), d.isoformat()) for p, (d, v) in latest.items()
           if (newest - d).days <= WINDOW_DAYS]
    return tuple(sorted(out, key=lambda x: (x[1], x[0])))


def _median_quote(accelerator: str, basis: str) -> Quote | None:
    prices = market_prices(accelerator, basis)
    if not prices:
        return None
    value = statistics.median(p for _, p, _ in prices)
    listed = ", ".join(f"{p} {v:.2f} ({d})" for p, v, d in prices)
    n = len(prices)
    rule = f"median of {n} provider{'s' if n > 1 else ''}' latest prices: {listed}" if n > 1 else \
        f"one provider's latest price: {listed}"
    return Quote(accelerator, basis, value, rule, tuple(p for p, _, _ in prices), max(d for *_, d in prices))


@functools.cache
def basis_ratio(numerator: str = "on_demand", denominator: str = "hyperscaler_on_demand") -> float:
    """Median over accelerators priced on both bases of the ratio of their market medians [1]."""
    ratios = []
    for acc in catalog.accelerators():
        a, b = _median_quote(acc, numerator), _median_quote(acc, denominator)
        if a and b:
            ratios.append(a.usd_per_gpu_hour / b.usd_per_gpu_hour)
    return statistics.median(ratios) if ratios else math.nan


@functools.cache
def committed_discount(basis: str) -> float:
    """Median discount of ``basis`` (reserved_1y or reserved_3y) off on-demand, over hyperscaler offers listing both [1].

    One offer: a provider, accelerator, date and location whose row lists an
    on-demand and a committed price (each offer counted once).
    """
    column = _COLUMN[basis]
    seen, discounts = set(), []
    for r in catalog.read_csv("cloud_prices.csv"):
        if r["provider_kind"] != "hyperscaler" or not r[column] or not r["on_demand_usd_per_gpu_hour"]:
            continue
        key = (r["accelerator"], r["provider"], r["location"], r["on_demand_usd_per_gpu_hour"], r[column])
        if key in seen:
            continue
        seen.add(key)
        discounts.append(1.0 - float(r[column]) / float(r["on_demand_usd_per_gpu_hour"]))
    return statistics.median(discounts) if discounts else math.nan


def _ref_peak(acc: catalog.Accelerator) -> float:
    for p in ("bf16", "fp16", "tf32", "fp32"):
        if p in acc.peak_tflops:
            return acc.peak_tflops[p]
    return next(iter(acc.peak_tflops.values()))


def _peer_quote(acc: catalog.Accelerator, basis: str) -> Quote | None:
    peers = [(a, q) for a in catalog.accelerators().values() if a.id != acc.id
             for q in [_own_quote(a.id, basis)] if q is not None and not q.estimated]
    if not peers:
        return None
    peer, q = min(peers, key=lambda aq: (aq[0].vendor != acc.vendor, aq[0].is_tpu != acc.is_tpu,
                                         abs(aq[0].year - acc.year), abs(math.log(_ref_peak(aq[0]) / _ref_peak(acc)))))
    value = q.usd_per_gpu_hour * _ref_peak(acc) / _ref_peak(peer)
    rule = (f"estimate: no {basis} price for {acc.name}; {peer.name} {q.usd_per_gpu_hour:.2f} USD/GPU-hour x peak "
            f"{_ref_peak(acc):g} / {_ref_peak(peer):g} TFLOP/s (nearest priced accelerator: same vendor, then kind, "
            "release year, 16-bit peak)")
    return Quote(acc.id, basis, value, rule, (), q.date, True)


@functools.cache
def _own_quote(accelerator: str, basis: str) -> Quote | None:
    """The accelerator's market median on an on-demand basis, else from its other on-demand basis (rules 1-2)."""
    q = _median_quote(accelerator, basis)
    if q is not None or basis not in ("on_demand", "hyperscaler_on_demand"):
        return q
    other = "hyperscaler_on_demand" if basis == "on_demand" else "on_demand"
    o = _median_quote(accelerator, other)
    if o is None:
        return None
    ratio = basis_ratio() if basis == "on_demand" else 1.0 / basis_ratio()
    rule = (f"estimate: no {basis} price; its {other} price {o.usd_per_gpu_hour:.2f} x {ratio:.3f}, the median "
            f"{basis}/{other} ratio over accelerators priced on both ({o.rule})")
    return Quote(accelerator, basis, o.usd_per_gpu_hour * ratio, rule, o.providers, o.date, True)


@functools.cache
def quote(accelerator: str, basis: str = "on_demand") -> Quote:
    """The price of ``accelerator`` on ``basis``, by the rule in this module's docstring.

    Parameters
    ----------
    accelerator : str
        Catalog id (``explorer.catalog.accelerators()``).
    basis : str
        One of :data:`CLOUD_BASES`.

    Returns
    -------
    Quote
        The price [USD/GPU-hour] and how it was derived; ``usd_per_gpu_hour``
        is NaN when no rule gives one.

    Examples
    --------
    >>> q = quote("h100-sxm", "on_demand")
    >>> 2.0 < q.usd_per_gpu_hour < 4.0, q.estimated
    (True, False)
    """
    acc = catalog.accelerator(accelerator)
    if basis not in CLOUD_BASES:
        raise ScenarioError("pricing", basis,
                            Message("allowed_cloud_basis", choices=list(CLOUD_BASES), field="pricing"))
    if basis == "spot":
        od = quote(accelerator, "on_demand")
        discount = catalog.default("spot_discount")
        rule = f"on_demand {od.usd_per_gpu_hour:.2f} less the spot discount {discount:.0%} ({od.rule})"
        return Quote(accelerator, basis, od.usd_per_gpu_hour * (1 - discount), rule, od.providers, od.date, True)
    if basis in ("reserved_1y", "reserved_3y"):
        q = _median_quote(accelerator, basis)
        if q is not None:
            return q
        od = quote(accelerator, "hyperscaler_on_demand")
        d = committed_discount(basis)
        rule = (f"estimate: hyperscaler_on_demand {od.usd_per_gpu_hour:.2f} less {d:.0%}, the median {basis} "
                f"discount over hyperscaler offers listing both ({od.rule})")
        return Quote(accelerator, basis, od.usd_per_gpu_hour * (1 - d), rule, od.providers, od.date, True)
    q = _own_quote(accelerator, basis) or _peer_quote(acc, basis)
    if q is None:
        return Quote(accelerator, basis, math.nan, f"no {basis} price for {acc.name} and no accelerator to "
                     "estimate it from")
    return q
