"""Cloud prices per accelerator on named price bases, by one rule that prices the hardware, not the seller.

Every accelerator is priced on the same five bases, so that two accelerators
compared on one basis differ by the hardware, not by who sells it:

``on_demand``
    Specialist GPU clouds (Lambda, RunPod, CoreWeave, Nebius, ...), on-demand:
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

A basis is a group of sellers (``provider_kind`` in the price table) and a
commitment (a price column): :data:`BASIS_MARKET`. A later "who sells" choice
(one named provider, the specialists, the hyperscalers) and a "how you commit"
choice map onto the same pair, and the rule below works on any pair.

The rule (:func:`quote`), for one accelerator and one basis:

1. **Market median.** Take each provider's latest price on the basis (the
   median of that provider's rows on its latest date), keep the providers
   whose latest price is within :data:`WINDOW_DAYS` of the accelerator's
   newest price on that basis, and take the median over those providers. It
   is the price when at least :data:`MIN_PROVIDERS` providers list the
   accelerator on the basis, and always for the reference accelerator
   :data:`REFERENCE` (H100 SXM, the most widely listed chip).
2. **Derived from within-provider ratios** (fewer than :data:`MIN_PROVIDERS`
   providers). Price = the reference's price on the basis (rule 1) x the
   median over providers of the ratio (accelerator / reference) in that
   provider's own list: the accelerator's latest price from that provider
   against the provider's reference price at the nearest date. A price resting
   on few providers so cannot carry one provider's premium: CoreWeave's H200
   at 6.31 USD/GPU-hour sits beside its own H100 at 6.16 (ratio 1.02), and it
   is that ratio, not CoreWeave's level, that prices the H200. Ratios come from
   the basis's own lists; if no provider lists both chips there, from the
   nearest basis that has such a provider (:data:`RATIO_BASES`) -- except on
   a committed basis where the accelerator has a committed list price of its
   own: committed-use discounts differ by provider, so that list price stands
   (no chip, the reference included, has committed prices from 3 providers in
   the data; comparisons say so). Such prices are marked ``derived``; when the
   accelerator has no price of its own on the basis they are also
   ``estimated``.
3. **Cross-basis estimate.** No within-provider ratio on any basis, no price on
   an on-demand basis but one on the other: that price times the median ratio
   between the two bases over the accelerators priced on both.
4. **Peer estimate.** With no price at all: the nearest catalog accelerator
   priced on the basis (same vendor first, then GPU or TPU, nearest release
   year, nearest 16-bit peak), per unit of dense 16-bit peak FLOP/s.
5. **Committed use** without a listed committed price or ratio: the
   hyperscaler on-demand price less the median discount over the offers that
   list both.
6. **Spot**: ``on_demand`` times (1 - ``spot_discount``), the default of
   defaults.csv (no provider's spot prices are in the price data).

Steps 3 to 6 are estimates and are marked so. Prices come from
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

__all__ = ["BASES", "CLOUD_BASES", "WINDOW_DAYS", "MIN_PROVIDERS", "REFERENCE", "BASIS_MARKET", "RATIO_BASES",
           "Quote", "quote", "market_prices", "within_provider_ratios", "basis_ratio", "committed_discount",
           "check_basis"]

#: The cloud price bases, in display order.
CLOUD_BASES: tuple[str, ...] = ("on_demand", "hyperscaler_on_demand", "reserved_1y", "reserved_3y", "spot")
#: Every price basis: the cloud bases and owned hardware.
BASES: tuple[str, ...] = CLOUD_BASES + ("owned",)
#: A provider's latest price counts when it is at most this many days older than the accelerator's newest price
#: on the same basis.
WINDOW_DAYS = 365
#: Fewer providers than this on a basis, and the price is derived from within-provider ratios (rule 2). Three: a
#: median of three is the fewest that one provider's premium cannot set (issue 25).
MIN_PROVIDERS = 3
#: The reference accelerator of rule 2: the chip the most providers list on every basis.
REFERENCE = "h100-sxm"
#: Each basis with a price table: (seller group = ``provider_kind``, price column).
BASIS_MARKET: dict[str, tuple[str, str]] = {
    "on_demand": ("specialist", "on_demand_usd_per_gpu_hour"),
    "hyperscaler_on_demand": ("hyperscaler", "on_demand_usd_per_gpu_hour"),
    "reserved_1y": ("hyperscaler", "committed_1y_usd_per_gpu_hour"),
    "reserved_3y": ("hyperscaler", "committed_3y_usd_per_gpu_hour"),
}
#: Where rule 2 looks for within-provider ratios, in order: the basis's own lists first, then the nearest basis.
RATIO_BASES: dict[str, tuple[str, ...]] = {
    "on_demand": ("on_demand", "hyperscaler_on_demand"),
    "hyperscaler_on_demand": ("hyperscaler_on_demand", "on_demand"),
    "reserved_1y": ("reserved_1y", "hyperscaler_on_demand", "on_demand"),
    "reserved_3y": ("reserved_3y", "hyperscaler_on_demand", "on_demand"),
}


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
        Providers whose prices make the value: the listing providers of a
        market median, the providers whose within-provider ratios derive it
        (empty for an estimate from another accelerator).
    date : str
        Date of the newest price used (ISO), or "".
    estimated : bool
        True when no price of the accelerator on this basis was used (another
        basis, another accelerator, a discount).
    derived : bool
        True when the value is the reference's price times within-provider
        ratios (rule 2), because fewer than :data:`MIN_PROVIDERS` providers
        list the accelerator on the basis.
    """

    accelerator: str
    basis: str
    usd_per_gpu_hour: float
    rule: str
    providers: tuple[str, ...] = ()
    date: str = ""
    estimated: bool = False
    derived: bool = False

    @property
    def source(self) -> str:
        """One line for an assumption's source column."""
        return f"{self.rule} (explorer/data/cloud_prices.csv; Epoch AI hardware price database, CC BY 4.0)"

    @property
    def thin(self) -> bool:
        """True when the price rests on one provider: its listing or the one ratio that derives it."""
        return len(self.providers) == 1

    @property
    def caveat(self) -> str:
        """"estimated", "derived", "one provider" or "": what a comparison of this price should say."""
        if self.estimated:
            return "estimated"
        if self.derived:
            return "derived"
        return "one provider" if self.thin else ""


def check_basis(basis: str) -> str:
    """``basis`` if it is a price basis, else :class:`ScenarioError` naming the allowed ones."""
    if basis not in BASES:
        raise ScenarioError("pricing", basis, Message("allowed_choices", choices=list(BASES), field="pricing"))
    return basis


def _date(text: str) -> _dt.date:
    return _dt.date.fromisoformat(text)


@functools.cache
def _series(accelerator: str, basis: str) -> dict[str, tuple[tuple[_dt.date, float], ...]]:
    """Each provider's prices of ``accelerator`` on ``basis`` by date: provider -> ((date, median that day), ...)."""
    kind, column = BASIS_MARKET[basis]
    days: dict[str, dict[_dt.date, list[float]]] = {}
    for r in catalog.read_csv("cloud_prices.csv"):
        if r["accelerator"] != accelerator or r["provider_kind"] != kind or not r[column]:
            continue
        days.setdefault(r["provider"], {}).setdefault(_date(r["price_date"]), []).append(float(r[column]))
    return {p: tuple(sorted((d, statistics.median(v)) for d, v in by_day.items())) for p, by_day in days.items()}


@functools.cache
def market_prices(accelerator: str, basis: str) -> tuple[tuple[str, float, str], ...]:
    """Each provider's latest price on ``basis`` within the window: (provider, USD/GPU-hour, date), sorted by price.

    The window: :data:`WINDOW_DAYS` before the accelerator's newest price on the same basis.
    """
    if basis not in BASIS_MARKET:
        return ()
    series = _series(accelerator, basis)
    if not series:
        return ()
    newest = max(s[-1][0] for s in series.values())
    out = [(p, s[-1][1], s[-1][0].isoformat()) for p, s in series.items() if (newest - s[-1][0]).days <= WINDOW_DAYS]
    return tuple(sorted(out, key=lambda x: (x[1], x[0])))


@functools.cache
def within_provider_ratios(accelerator: str, basis: str,
                           reference: str = REFERENCE) -> tuple[tuple[str, float, str, str], ...]:
    """Within-provider price ratios of ``accelerator`` to ``reference`` on ``basis`` [1].

    For each provider whose latest price of ``accelerator`` counts on the basis
    (:func:`market_prices`) and who lists ``reference`` on the same basis: that
    price over the provider's price of ``reference`` at the nearest date (the
    later one on a tie).

    Returns
    -------
    tuple of (provider, ratio, accelerator's date, reference's date)
        Sorted by ratio.
    """
    ref = _series(reference, basis)
    out = []
    for provider, price, day in market_prices(accelerator, basis):
        if provider not in ref:
            continue
        d = _date(day)
        ref_day, ref_price = min(ref[provider], key=lambda dp: (abs((dp[0] - d).days), -dp[0].toordinal()))
        out.append((provider, price / ref_price, day, ref_day.isoformat()))
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


def _derived_quote(accelerator: str, basis: str) -> Quote | None:
    """Rule 2: the reference's price on ``basis`` x the median within-provider ratio; None without a ratio."""
    ref = _median_quote(REFERENCE, basis)
    if ref is None:
        return None
    own = market_prices(accelerator, basis)
    # committed-use discounts differ by provider and chip (AWS's A100 3-year list is 65% off, Google's H100 56%): a
    # chip's own committed list is better evidence than an on-demand ratio carried over to a committed basis
    search = (basis,) if own and basis in ("reserved_1y", "reserved_3y") else RATIO_BASES[basis]
    for ratio_basis in search:
        ratios = within_provider_ratios(accelerator, ratio_basis)
        if ratios:
            break
    else:
        return None
    ratio = statistics.median(r for _, r, _, _ in ratios)
    listed = ", ".join(f"{p} {r:.3f} ({d} vs {rd})" for p, r, d, rd in ratios)
    where = "" if ratio_basis == basis else f" from the {ratio_basis} lists (no provider lists both on {basis})"
    few = (f"{len(own)} provider{'s' if len(own) != 1 else ''} list{'s' if len(own) == 1 else ''} it on {basis}"
           if own else f"no provider lists it on {basis}")
    name = catalog.accelerator(REFERENCE).name
    rule = (f"derived: {few} (fewer than {MIN_PROVIDERS}); {name} {basis} {ref.usd_per_gpu_hour:.2f} USD/GPU-hour "
            f"x {ratio:.3f}, the median within-provider ratio to {name}{where}: {listed}")
    return Quote(accelerator, basis, ref.usd_per_gpu_hour * ratio, rule, tuple(p for p, *_ in ratios),
                 max([ref.date, *(d for _, _, d, _ in ratios)]), estimated=not own, derived=True)


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
    column = BASIS_MARKET[basis][1]
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
    """The accelerator's price from its own listings (rules 1-3); None when it has none to start from."""
    q = _median_quote(accelerator, basis)
    if accelerator != REFERENCE and (q is None or len(q.providers) < MIN_PROVIDERS):
        q = _derived_quote(accelerator, basis) or q
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
    >>> 2.0 < q.usd_per_gpu_hour < 5.0, q.estimated, q.derived
    (True, False, False)
    >>> quote("h800", "on_demand").derived  # one small provider lists it: priced by its ratio to its own H100
    True
    """
    acc = catalog.accelerator(accelerator)
    if basis not in CLOUD_BASES:
        raise ScenarioError("pricing", basis,
                            Message("allowed_cloud_basis", choices=list(CLOUD_BASES), field="pricing"))
    if basis == "spot":
        od = quote(accelerator, "on_demand")
        discount = catalog.default("spot_discount")
        rule = f"on_demand {od.usd_per_gpu_hour:.2f} less the spot discount {discount:.0%} ({od.rule})"
        return Quote(accelerator, basis, od.usd_per_gpu_hour * (1 - discount), rule, od.providers, od.date, True,
                     od.derived)
    if basis in ("reserved_1y", "reserved_3y"):
        q = _own_quote(accelerator, basis)
        if q is not None:
            return q
        od = quote(accelerator, "hyperscaler_on_demand")
        d = committed_discount(basis)
        rule = (f"estimate: hyperscaler_on_demand {od.usd_per_gpu_hour:.2f} less {d:.0%}, the median {basis} "
                f"discount over hyperscaler offers listing both ({od.rule})")
        return Quote(accelerator, basis, od.usd_per_gpu_hour * (1 - d), rule, od.providers, od.date, True,
                     od.derived)
    q = _own_quote(accelerator, basis) or _peer_quote(acc, basis)
    if q is None:
        return Quote(accelerator, basis, math.nan, f"no {basis} price for {acc.name} and no accelerator to "
                     "estimate it from")
    return q
