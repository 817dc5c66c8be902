"""Cloud prices per accelerator: who sells and how you commit, by one rule that prices the hardware, not the seller.

A price has two parts, as a buyer sees it:

**Who sells** (``seller``, :func:`sellers`)
    ``specialist``: the specialist GPU clouds (Lambda, RunPod, CoreWeave,
    Nebius, ...), the market median (the default); ``hyperscaler``: AWS,
    Google Cloud, Azure and Oracle, the market median; or one named provider
    of the price table (its id, :data:`PROVIDERS`), at its own latest price
    with its date.
**How you commit** (:data:`COMMITMENTS`)
    ``on_demand``, ``reserved_1y`` and ``reserved_3y`` (1- and 3-year
    committed use), ``spot`` (on-demand less the spot discount).

The price bases of a scenario's ``pricing`` name both parts at once for the
two seller groups (:data:`BASIS_MARKET`): ``on_demand``, ``reserved_1y``,
``reserved_3y`` and ``spot`` are the specialists'; ``hyperscaler_on_demand``,
``hyperscaler_reserved_1y`` and ``hyperscaler_reserved_3y`` the hyperscalers'
(until issue 27, ``reserved_1y``/``reserved_3y`` meant the hyperscalers'
committed prices, 2.3x the specialist on-demand median for an H100; they now
mean committed use from the default seller, never dearer than ``on_demand``).
A ``seller`` given to :func:`quote` picks the seller of an unprefixed basis.

**Within one seller, committed use never costs more than on-demand**: a
committed price above the same seller's on-demand price is capped at it (the
rule says so). Committed prices listed long ago can sit above today's
on-demand price after on-demand prices fell.

The rule (:func:`quote`), for one accelerator, one seller group and one basis:

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
   a hyperscaler committed basis where the accelerator has a committed list
   price of its own: committed-use discounts differ by provider, so that list
   price stands. Such prices are marked ``derived``; when the accelerator has
   no price of its own on the basis they are also ``estimated``.
3. **Cross-basis estimate.** No within-provider ratio on any basis, no price on
   an on-demand basis but one on the other: that price times the median ratio
   between the two bases over the accelerators priced on both.
4. **Peer estimate.** With no price at all: the nearest catalog accelerator
   priced on the basis (same vendor first, then GPU or TPU, nearest release
   year, nearest 16-bit peak), per unit of dense 16-bit peak FLOP/s.
5. **Committed use.** Hyperscalers: rules 1-2 on their committed lists, else
   their on-demand price less the median discount over their offers that list
   both. Specialists publish few committed prices (no chip has them from
   :data:`MIN_PROVIDERS` specialists in the data): the market median when
   that many list it, else the specialist on-demand price (rules 1-4) less
   :func:`committed_discount`, the median discount over the specialist offers
   that list on-demand and committed prices on one row, marked ``estimated``.
   A named provider: its own committed price, else its own on-demand price
   less its group's median discount (``estimated``).
6. **Spot**: the seller's on-demand price times (1 - ``spot_discount``), the
   default of defaults.csv (no provider's spot prices are in the price data).

A named provider that lists no on-demand price for the accelerator has no
price (NaN, rule "unknown"): the estimate then warns and asks for a typed rate.

Steps 3 to 6 are estimates and are marked so. Prices come from
``explorer/data/cloud_prices.csv``: Epoch AI's hardware price database (CC BY
4.0; "Epoch AI, training-cost-trends"; Cottier et al. 2024, "The rising costs
of training frontier AI models", arXiv 2405.21015) and newer dated prices,
each row with its source.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import functools
import math
import statistics
from typing import Mapping
from dataclasses import dataclass

from explorer import catalog
from explorer.errors import ScenarioError
from explorer.messages import Message

__all__ = ["BASES", "CLOUD_BASES", "COMMITMENTS", "SELLER_GROUPS", "DEFAULT_SELLER", "PROVIDERS", "WINDOW_DAYS",
           "MIN_PROVIDERS", "REFERENCE", "BASIS_MARKET", "RATIO_BASES", "Quote", "quote", "sellers", "seller_name",
           "seller_date", "split_basis", "market_prices", "within_provider_ratios", "basis_ratio",
           "committed_discount", "check_basis", "check_seller", "check_price_date", "price_date_range", "WINDOW_DAYS_MAX"]

#: The cloud price bases, in display order: the specialists' (the default seller), then the hyperscalers'.
CLOUD_BASES: tuple[str, ...] = ("on_demand", "reserved_1y", "reserved_3y", "spot", "hyperscaler_on_demand",
                                "hyperscaler_reserved_1y", "hyperscaler_reserved_3y")
#: Every price basis: the cloud bases and owned hardware.
BASES: tuple[str, ...] = CLOUD_BASES + ("owned",)
#: How you commit, whoever sells.
COMMITMENTS: tuple[str, ...] = ("on_demand", "reserved_1y", "reserved_3y", "spot")
#: The seller groups (``provider_kind`` in the price table); the first is the default seller.
SELLER_GROUPS: tuple[str, ...] = ("specialist", "hyperscaler")
DEFAULT_SELLER = "specialist"
#: A provider's latest price counts when it is at most this many days older than the accelerator's newest price
#: on the same basis.
WINDOW_DAYS = 365
#: ... widened up to this many days when fewer than :data:`MIN_PROVIDERS` providers' first-hand prices fall in
#: :data:`WINDOW_DAYS` (issue 37: in December 2026 the providers' own pages stored for H100 SXM are DigitalOcean's
#: of May 2026 and Epoch AI's archived copies of February-March 2025).
WINDOW_DAYS_MAX = 730
#: Fewer providers than this on a basis, and the price is derived from within-provider ratios (rule 2). Three: a
#: median of three is the fewest that one provider's premium cannot set (issue 25).
MIN_PROVIDERS = 3
#: The reference accelerator of rule 2: the chip the most providers list on every basis.
REFERENCE = "h100-sxm"
_COLUMNS = {"on_demand": "on_demand_usd_per_gpu_hour", "reserved_1y": "committed_1y_usd_per_gpu_hour",
            "reserved_3y": "committed_3y_usd_per_gpu_hour"}
#: Each basis with a price table: (seller group = ``provider_kind``, price column).
BASIS_MARKET: dict[str, tuple[str, str]] = {
    **{c: ("specialist", col) for c, col in _COLUMNS.items()},
    **{f"hyperscaler_{c}": ("hyperscaler", col) for c, col in _COLUMNS.items()},
}
#: Where rule 2 looks for within-provider ratios, in order: the basis's own lists first, then the nearest basis.
RATIO_BASES: dict[str, tuple[str, ...]] = {
    "on_demand": ("on_demand", "hyperscaler_on_demand"),
    "hyperscaler_on_demand": ("hyperscaler_on_demand", "on_demand"),
    "reserved_1y": ("reserved_1y", "on_demand", "hyperscaler_on_demand"),
    "reserved_3y": ("reserved_3y", "on_demand", "hyperscaler_on_demand"),
    "hyperscaler_reserved_1y": ("hyperscaler_reserved_1y", "hyperscaler_on_demand", "on_demand"),
    "hyperscaler_reserved_3y": ("hyperscaler_reserved_3y", "hyperscaler_on_demand", "on_demand"),
}


def _slug(name: str) -> str:
    return "-".join("".join(ch if ch.isalnum() else " " for ch in name.lower()).split())


@functools.cache
def _providers() -> dict[str, tuple[str, str, str]]:
    """Each provider of the price table: id -> (name, seller group, date of its newest price)."""
    out: dict[str, tuple[str, str, str]] = {}
    for r in catalog.read_csv("cloud_prices.csv"):
        pid = _slug(r["provider"])
        name, kind, day = out.get(pid, (r["provider"], r["provider_kind"], ""))
        out[pid] = (name, kind, max(day, r["price_date"]))
    return dict(sorted(out.items()))


#: Each named provider of the price table: id (its name in lower case, words joined by "-") -> (name, seller
#: group, date of its newest price in the table).
PROVIDERS: dict[str, tuple[str, str, str]] = _providers()


def sellers() -> tuple[str, ...]:
    """Every seller a price can come from: the two groups (:data:`SELLER_GROUPS`), then each provider id.

    Returns
    -------
    tuple of str
        ``"specialist"``, ``"hyperscaler"``, then the ids of :data:`PROVIDERS` in alphabetical order.
    """
    return SELLER_GROUPS + tuple(PROVIDERS)


def seller_name(seller: str) -> str:
    """A seller's display name: the provider's name, or the group id for a group.

    Parameters
    ----------
    seller : str
        A seller group or a provider id (:func:`sellers`).

    Returns
    -------
    str
        The provider's name as the price table writes it; any other ``seller`` as given.
    """
    return PROVIDERS[seller][0] if seller in PROVIDERS else seller


def seller_date(seller: str, accelerator: str | None = None) -> str:
    """The date (ISO) of a provider's newest price, of ``accelerator`` if given ("" for a group or no price).

    Parameters
    ----------
    seller : str
        A seller group or a provider id (:func:`sellers`).
    accelerator : str, optional
        Catalog id; None (the default): the provider's newest price of any accelerator.

    Returns
    -------
    str
        The date of the newest row (``YYYY-MM-DD``), or "" for a seller group or a provider that lists no price of
        ``accelerator``.
    """
    if seller not in PROVIDERS:
        return ""
    if accelerator is None:
        return PROVIDERS[seller][2]
    days = [r["price_date"] for r in catalog.read_csv("cloud_prices.csv")
            if r["accelerator"] == accelerator and _slug(r["provider"]) == seller]
    return max(days, default="")


def check_seller(seller: str) -> str:
    """``seller`` if it is a seller (:func:`sellers`), else :class:`ScenarioError` naming the allowed ones.

    Parameters
    ----------
    seller : str
        The seller to check.

    Returns
    -------
    str
        ``seller``, unchanged.

    Raises
    ------
    ScenarioError
        When ``seller`` is not one of :func:`sellers` (field ``seller``).
    """
    if seller not in sellers():
        raise ScenarioError("seller", seller, Message("allowed_choices", choices=list(sellers()), field="seller"))
    return seller


def split_basis(basis: str, seller: str | None = None) -> tuple[str, str]:
    """(commitment, seller) of a cloud price basis and an optional seller.

    A ``hyperscaler_`` basis names its seller group (``seller`` must then be
    None, a group or the default); an unprefixed basis is sold by ``seller``
    (default :data:`DEFAULT_SELLER`).

    Parameters
    ----------
    basis : str
        One of :data:`CLOUD_BASES`.
    seller : str, optional
        A seller (:func:`sellers`); None: the basis's own group, else :data:`DEFAULT_SELLER`.

    Returns
    -------
    tuple of (str, str)
        The commitment (one of :data:`COMMITMENTS`) and the seller (a group or a provider id).

    Raises
    ------
    ScenarioError
        An unknown basis or seller, or a named provider with a ``hyperscaler_`` basis.
    """
    if basis not in CLOUD_BASES:
        raise ScenarioError("pricing", basis,
                            Message("allowed_cloud_basis", choices=list(CLOUD_BASES), field="pricing"))
    if seller is not None:
        check_seller(seller)
    if basis.startswith("hyperscaler_"):
        if seller not in (None, *SELLER_GROUPS):
            raise ScenarioError("seller", seller, Message("allowed_choices", choices=list(SELLER_GROUPS),
                                                          field="seller"))
        return basis[len("hyperscaler_"):], "hyperscaler"
    return basis, seller or DEFAULT_SELLER


@dataclass(frozen=True)
class Quote:
    """A price of one accelerator on one basis, and how it was found.

    Parameters
    ----------
    accelerator : str
        Catalog id.
    basis : str
        Price basis (:data:`CLOUD_BASES`); a named provider's price and hyperscaler spot carry the commitment
        alone (:data:`COMMITMENTS`), with the seller in ``seller``.
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
    seller : str
        Who sells at this price: a seller group or a provider id (:func:`sellers`).
    """

    accelerator: str
    basis: str
    usd_per_gpu_hour: float
    rule: str
    providers: tuple[str, ...] = ()
    date: str = ""
    estimated: bool = False
    derived: bool = False
    seller: str = DEFAULT_SELLER

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
    """``basis`` if it is a price basis, else :class:`ScenarioError` naming the allowed ones.

    Parameters
    ----------
    basis : str
        The basis to check.

    Returns
    -------
    str
        ``basis``, unchanged.

    Raises
    ------
    ScenarioError
        When ``basis`` is not one of :data:`BASES` (field ``pricing``).
    """
    if basis not in BASES:
        raise ScenarioError("pricing", basis, Message("allowed_choices", choices=list(BASES), field="pricing"))
    return basis


def _date(text: str) -> _dt.date:
    return _dt.date.fromisoformat(text)


def check_price_date(text: str | None) -> str:
    """The last day a price date ``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD`` covers (ISO), "" for None or "" (newest).

    Parameters
    ----------
    text : str or None
        The date as typed: a year, a month or a day.

    Returns
    -------
    str
        The last day it covers (``YYYY-MM-DD``: 31 December of a year, the month's last day), or "" for None or ""
        (the newest prices).

    Raises
    ------
    ScenarioError
        Text that is not such a date, or one before the first price of the table or after today.
    """
    if not text:
        return ""
    first = price_date_range()[0]
    allowed = Message("allowed_price_date", first=first[:7])
    if not isinstance(text, str) or len(text) > 10:
        raise ScenarioError("price_date", text, allowed)
    try:
        parts = [int(x) for x in text.split("-")]
        if len(parts) == 1 and len(text) == 4:
            day = _dt.date(parts[0], 12, 31)
        elif len(parts) == 2 and len(text) == 7:
            _dt.date(parts[0], parts[1], 1)  # a month that exists
            nxt = _dt.date(parts[0] + parts[1] // 12, parts[1] % 12 + 1, 1)
            day = nxt - _dt.timedelta(days=1)
        elif len(parts) == 3 and len(text) == 10:
            day = _dt.date(*parts)
        else:
            raise ValueError(text)
    except (ValueError, OverflowError):
        raise ScenarioError("price_date", text, allowed) from None
    if day.isoformat() < first or day.year > _dt.date.today().year:
        raise ScenarioError("price_date", text, allowed)
    return day.isoformat()


@functools.cache
def price_date_range() -> tuple[str, str]:
    """The first and the newest date of the price table (ISO).

    Returns
    -------
    tuple of (str, str)
        The earliest and the latest ``price_date`` of ``cloud_prices.csv`` (``YYYY-MM-DD``).
    """
    days = [r["price_date"] for r in catalog.read_csv("cloud_prices.csv")]
    return min(days), max(days)


@functools.cache
def _rows(as_of: str = "") -> tuple[Mapping[str, str], ...]:
    """The rows of the price table dated on or before ``as_of`` (ISO; "" for every row)."""
    return tuple(r for r in catalog.read_csv("cloud_prices.csv") if not as_of or r["price_date"] <= as_of)


@functools.cache
def _series(accelerator: str, basis: str, as_of: str = "",
            first_hand: bool = True) -> dict[str, tuple[tuple[_dt.date, float], ...]]:
    """Each provider's prices of ``accelerator`` on ``basis`` by date: provider -> ((date, median that day), ...).

    Only rows dated on or before ``as_of``; only first-hand rows (the provider's own page, live or archived) when
    ``first_hand``.
    """
    kind, column = BASIS_MARKET[basis]
    days: dict[str, dict[_dt.date, list[float]]] = {}
    for r in _rows(as_of):
        if r["accelerator"] != accelerator or r["provider_kind"] != kind or not r[column]:
            continue
        if first_hand and r["source_kind"] != "first-hand":
            continue
        days.setdefault(r["provider"], {}).setdefault(_date(r["price_date"]), []).append(float(r[column]))
    return {p: tuple(sorted((d, statistics.median(v)) for d, v in by_day.items())) for p, by_day in days.items()}


@functools.cache
def market_prices(accelerator: str, basis: str, as_of: str = "",
                  first_hand: bool = True) -> tuple[tuple[str, float, str], ...]:
    """Each provider's latest price on ``basis`` within the window: (provider, USD/GPU-hour, date), sorted by price.

    The window: :data:`WINDOW_DAYS` before the accelerator's newest price on the same basis (as of ``as_of``),
    widened up to :data:`WINDOW_DAYS_MAX` until :data:`MIN_PROVIDERS` providers are in it. First-hand prices only
    when ``first_hand`` (the default: a market median rests on the providers' own pages).

    Parameters
    ----------
    accelerator : str
        Catalog id.
    basis : str
        A basis with a price table (:data:`BASIS_MARKET`); any other basis has no market prices.
    as_of : str, optional
        Only rows dated on or before this day count (ISO); "" (the default): every row.
    first_hand : bool, optional
        Only the providers' own pages, live or archived (the default); False: transcribed prices too.

    Returns
    -------
    tuple of (str, float, str)
        (provider, latest price [USD/GPU-hour], its date ``YYYY-MM-DD``) per provider in the window, sorted by price
        then provider; empty when no provider lists the accelerator on ``basis``. A provider's price on a day is
        the median of its rows of that day.
    """
    if basis not in BASIS_MARKET:
        return ()
    series = _series(accelerator, basis, as_of, first_hand)
    if not series:
        return ()
    latest = sorted(((p, s[-1][1], s[-1][0]) for p, s in series.items()), key=lambda x: x[2], reverse=True)
    newest = latest[0][2]
    age = [(newest - d).days for *_, d in latest]
    window = WINDOW_DAYS
    if len(latest) >= MIN_PROVIDERS and age[MIN_PROVIDERS - 1] > WINDOW_DAYS:
        window = min(age[MIN_PROVIDERS - 1], WINDOW_DAYS_MAX)
    out = [(p, v, d.isoformat()) for (p, v, d), a in zip(latest, age) if a <= window]
    return tuple(sorted(out, key=lambda x: (x[1], x[0])))


@functools.cache
def within_provider_ratios(accelerator: str, basis: str, reference: str = REFERENCE,
                           as_of: str = "") -> tuple[tuple[str, float, str, str], ...]:
    """Within-provider price ratios of ``accelerator`` to ``reference`` on ``basis`` [1].

    For each provider whose latest price of ``accelerator`` counts on the basis
    (:func:`market_prices`, first-hand or transcribed: a ratio of two prices of
    one provider sets no level, the reference's first-hand median does) and who
    lists ``reference`` on the same basis: that price over the provider's price
    of ``reference`` at the nearest date (the later one on a tie), as of ``as_of``.

    Parameters
    ----------
    accelerator : str
        Catalog id of the accelerator priced.
    basis : str
        A basis with a price table (:data:`BASIS_MARKET`).
    reference : str, optional
        Catalog id of the accelerator the ratio is to (default :data:`REFERENCE`).
    as_of : str, optional
        Only rows dated on or before this day count (ISO); "" (the default): every row.

    Returns
    -------
    tuple of (str, float, str, str)
        (provider, ratio [1], accelerator's price date, reference's price date), sorted by ratio then provider.
    """
    ref = _series(reference, basis, as_of, False)
    out = []
    for provider, price, day in market_prices(accelerator, basis, as_of, False):
        if provider not in ref:
            continue
        d = _date(day)
        ref_day, ref_price = min(ref[provider], key=lambda dp: (abs((dp[0] - d).days), -dp[0].toordinal()))
        out.append((provider, price / ref_price, day, ref_day.isoformat()))
    return tuple(sorted(out, key=lambda x: (x[1], x[0])))


def _median_quote(accelerator: str, basis: str, as_of: str = "") -> Quote | None:
    prices = market_prices(accelerator, basis, as_of)
    if not prices:
        return None
    value = statistics.median(p for _, p, _ in prices)
    listed = ", ".join(f"{p} {v:.2f} ({d})" for p, v, d in prices)
    n = len(prices)
    rule = f"median of {n} provider{'s' if n > 1 else ''}' latest first-hand prices: {listed}" if n > 1 else \
        f"one provider's latest first-hand price: {listed}"
    return Quote(accelerator, basis, value, rule, tuple(p for p, _, _ in prices), max(d for *_, d in prices))


def _derived_quote(accelerator: str, basis: str, as_of: str = "") -> Quote | None:
    """Rule 2: the reference's price on ``basis`` x the median within-provider ratio; None without a ratio."""
    ref = _median_quote(REFERENCE, basis, as_of)
    if ref is None:
        return None
    own = market_prices(accelerator, basis, as_of)
    # committed-use discounts differ by provider and chip (AWS's A100 3-year list is 65% off, Google's H100 56%): a
    # chip's own committed list is better evidence than an on-demand ratio carried over to a committed basis
    search = (basis,) if own and basis.startswith("hyperscaler_reserved") else RATIO_BASES[basis]
    for ratio_basis in search:
        ratios = within_provider_ratios(accelerator, ratio_basis, REFERENCE, as_of)
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
def basis_ratio(numerator: str = "on_demand", denominator: str = "hyperscaler_on_demand", as_of: str = "") -> float:
    """Median over accelerators priced on both bases of the ratio of their market medians [1].

    Parameters
    ----------
    numerator, denominator : str, optional
        Two bases with a price table (:data:`BASIS_MARKET`); by default the specialists' on-demand price over the
        hyperscalers'.
    as_of : str, optional
        Only rows dated on or before this day count (ISO); "" (the default): every row. When no accelerator
        was priced on both bases by then, today's ratio.

    Returns
    -------
    float
        The median ratio [1], NaN when no accelerator has a market median on both bases.
    """
    ratios = []
    for acc in catalog.accelerators():
        a, b = _median_quote(acc, numerator, as_of), _median_quote(acc, denominator, as_of)
        if a and b:
            ratios.append(a.usd_per_gpu_hour / b.usd_per_gpu_hour)
    if not ratios and as_of:  # no chip was priced on both bases by then: today's ratio
        return basis_ratio(numerator, denominator)
    return statistics.median(ratios) if ratios else math.nan


@functools.cache
def committed_discount(basis: str, as_of: str = "") -> float:
    """Median discount of a committed ``basis`` off on-demand, over its seller group's offers listing both [1].

    One offer: a provider, accelerator, date and location whose row lists an
    on-demand and a committed price (each offer counted once). ``reserved_1y``
    and ``reserved_3y`` are the specialists' (in the price data one offer:
    Oblivus Cloud's V100 of 2024-02-26, 0.87 on demand, 0.61 and 0.43
    committed, 30% and 51% off; Oblivus's whole list of that day, 12 offers in
    Epoch's database, is 30% and 50% off throughout), ``hyperscaler_reserved_1y``
    and ``hyperscaler_reserved_3y`` the hyperscalers'.

    Parameters
    ----------
    basis : str
        A committed basis of :data:`BASIS_MARKET` (``reserved_1y``, ``reserved_3y``, ``hyperscaler_reserved_1y``
        or ``hyperscaler_reserved_3y``).
    as_of : str, optional
        Only rows dated on or before this day count (ISO); "" (the default): every row.

    Returns
    -------
    float
        The median of ``1 - committed / on-demand`` over the offers [fraction], NaN when no offer lists both.
    """
    kind, column = BASIS_MARKET[basis]
    seen, discounts = set(), []
    for r in _rows(as_of):
        if r["provider_kind"] != kind or not r[column] or not r["on_demand_usd_per_gpu_hour"]:
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


def _peer_quote(acc: catalog.Accelerator, basis: str, as_of: str = "") -> Quote | None:
    peers = [(a, q) for a in catalog.accelerators().values() if a.id != acc.id
             for q in [_own_quote(a.id, basis, as_of)] if q is not None and not q.estimated]
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
def _own_quote(accelerator: str, basis: str, as_of: str = "") -> Quote | None:
    """The accelerator's price from its own listings (rules 1-3); None when it has none to start from."""
    q = _median_quote(accelerator, basis, as_of)
    if accelerator != REFERENCE and (q is None or len(q.providers) < MIN_PROVIDERS):
        q = _derived_quote(accelerator, basis, as_of) or q
    if q is not None or basis not in ("on_demand", "hyperscaler_on_demand"):
        return q
    other = "hyperscaler_on_demand" if basis == "on_demand" else "on_demand"
    o = _median_quote(accelerator, other, as_of)
    if o is None:
        return None
    ratio = basis_ratio(as_of=as_of) if basis == "on_demand" else 1.0 / basis_ratio(as_of=as_of)
    rule = (f"estimate: no {basis} price; its {other} price {o.usd_per_gpu_hour:.2f} x {ratio:.3f}, the median "
            f"{basis}/{other} ratio over accelerators priced on both ({o.rule})")
    return Quote(accelerator, basis, o.usd_per_gpu_hour * ratio, rule, o.providers, o.date, True)


def _capped(q: Quote, on_demand: Quote) -> Quote:
    """``q`` (a committed price) no dearer than the same seller's on-demand price ``on_demand``."""
    if math.isfinite(q.usd_per_gpu_hour) and math.isfinite(on_demand.usd_per_gpu_hour) \
            and q.usd_per_gpu_hour > on_demand.usd_per_gpu_hour:
        rule = (f"{on_demand.usd_per_gpu_hour:.2f}, the seller's on-demand price (committed use is never dearer "
                f"than on-demand; the committed price found was {q.usd_per_gpu_hour:.2f}: {q.rule})")
        return dataclasses.replace(q, usd_per_gpu_hour=on_demand.usd_per_gpu_hour, rule=rule,
                                   date=max(q.date, on_demand.date))
    return q


def _latest(accelerator: str, provider: str, column: str, as_of: str = "") -> tuple[float, str] | None:
    """A provider's latest price of ``accelerator`` in ``column``: (median of its rows that day, date), or None."""
    by_day: dict[str, list[float]] = {}
    for r in _rows(as_of):
        if r["accelerator"] == accelerator and _slug(r["provider"]) == provider and r[column]:
            by_day.setdefault(r["price_date"], []).append(float(r[column]))
    if not by_day:
        return None
    day = max(by_day)
    return statistics.median(by_day[day]), day


def _provider_quote(accelerator: str, commitment: str, provider: str, as_of: str = "") -> Quote:
    """One named provider's own price (rules 5-6 for what it does not list); NaN and "unknown" without on-demand."""
    name, kind, _ = PROVIDERS[provider]
    acc_name = catalog.accelerator(accelerator).name
    od = _latest(accelerator, provider, _COLUMNS["on_demand"], as_of)
    if od is None:
        rule = f"unknown: {name} lists no on-demand price for {acc_name} in the price table"
        own = _latest(accelerator, provider, _COLUMNS[commitment], as_of) if commitment in _COLUMNS else None
        if own is None:
            return Quote(accelerator, commitment, math.nan, rule, (), "", seller=provider)
        return Quote(accelerator, commitment, own[0], f"{name}'s latest {commitment} price {own[0]:.2f} ({own[1]})",
                     (name,), own[1], seller=provider)
    od_q = Quote(accelerator, "on_demand", od[0], f"{name}'s latest on-demand price {od[0]:.2f} ({od[1]})", (name,),
                 od[1], seller=provider)
    if commitment == "on_demand":
        return od_q
    if commitment == "spot":
        discount = catalog.default("spot_discount")
        return Quote(accelerator, "spot", od[0] * (1 - discount),
                     f"{name}'s on-demand {od[0]:.2f} ({od[1]}) less the spot discount {discount:.0%}", (name,),
                     od[1], True, seller=provider)
    own = _latest(accelerator, provider, _COLUMNS[commitment], as_of)
    if own is not None:
        q = Quote(accelerator, commitment, own[0], f"{name}'s latest {commitment} price {own[0]:.2f} ({own[1]})",
                  (name,), own[1], seller=provider)
    else:
        group_basis = commitment if kind == "specialist" else f"hyperscaler_{commitment}"
        d = committed_discount(group_basis, as_of)
        q = Quote(accelerator, commitment, od[0] * (1 - d),
                  f"estimate: {name} lists no {commitment} price for {acc_name}; its on-demand {od[0]:.2f} "
                  f"({od[1]}) less {d:.0%}, the median {commitment} discount over {kind} offers listing both",
                  (name,), od[1], True, seller=provider)
    return _capped(q, od_q)


def _group_quote(accelerator: str, basis: str, as_of: str = "") -> Quote:
    """The price of a seller group's basis (:data:`BASIS_MARKET` or ``spot``), before any cap."""
    acc = catalog.accelerator(accelerator)
    if basis == "spot":
        od = quote(accelerator, "on_demand", as_of=as_of)
        discount = catalog.default("spot_discount")
        rule = f"on_demand {od.usd_per_gpu_hour:.2f} less the spot discount {discount:.0%} ({od.rule})"
        return Quote(accelerator, basis, od.usd_per_gpu_hour * (1 - discount), rule, od.providers, od.date, True,
                     od.derived)
    if basis in ("hyperscaler_reserved_1y", "hyperscaler_reserved_3y"):
        od = quote(accelerator, "hyperscaler_on_demand", as_of=as_of)
        q = _own_quote(accelerator, basis, as_of)
        if q is None:
            d = committed_discount(basis, as_of)
            rule = (f"estimate: hyperscaler_on_demand {od.usd_per_gpu_hour:.2f} less {d:.0%}, the median {basis} "
                    f"discount over hyperscaler offers listing both ({od.rule})")
            q = Quote(accelerator, basis, od.usd_per_gpu_hour * (1 - d), rule, od.providers, od.date, True,
                      od.derived)
        return _capped(q, od)
    if basis in ("reserved_1y", "reserved_3y"):
        od = quote(accelerator, "on_demand", as_of=as_of)
        q = _median_quote(accelerator, basis, as_of)
        if q is None or len(q.providers) < MIN_PROVIDERS:
            d = committed_discount(basis, as_of)
            listed = f"; listed by {len(q.providers)} specialist(s) only: {q.rule}" if q is not None else ""
            rule = (f"estimate: specialist on_demand {od.usd_per_gpu_hour:.2f} less {d:.0%}, the median {basis} "
                    f"discount over specialist offers listing both (fewer than {MIN_PROVIDERS} specialists list "
                    f"committed prices for {acc.name}{listed}) ({od.rule})")
            q = Quote(accelerator, basis, od.usd_per_gpu_hour * (1 - d), rule, od.providers, od.date, True,
                      od.derived)
        return _capped(q, od)
    q = _own_quote(accelerator, basis, as_of) or _peer_quote(acc, basis, as_of)
    if q is None:
        return Quote(accelerator, basis, math.nan, f"no {basis} price for {acc.name} and no accelerator to "
                     "estimate it from")
    return q


@functools.cache
def quote(accelerator: str, basis: str = "on_demand", seller: str | None = None, as_of: str = "") -> Quote:
    """The price of ``accelerator`` on ``basis`` from ``seller``, by the rule in this module's docstring.

    Parameters
    ----------
    accelerator : str
        Catalog id (``explorer.catalog.accelerators()``).
    basis : str
        One of :data:`CLOUD_BASES`: a commitment (:data:`COMMITMENTS`), or a
        ``hyperscaler_`` basis naming the hyperscalers as seller.
    seller : str, optional
        Who sells (:func:`sellers`): ``specialist`` (the default), ``hyperscaler``
        or a provider id. Must be None or a group with a ``hyperscaler_`` basis.
    as_of : str, optional
        Price the market as it was on this day (ISO ``YYYY-MM-DD``, from
        :func:`check_price_date`): only rows dated on or before it count; an
        accelerator first listed later is priced as of its first listing
        (marked estimated). "" (the default): the newest prices.

    Returns
    -------
    Quote
        The price [USD/GPU-hour] and how it was derived; ``usd_per_gpu_hour``
        is NaN when no rule gives one (a provider that lists no on-demand
        price for the accelerator).

    Raises
    ------
    ScenarioError
        An unknown basis or seller (:func:`split_basis`).

    Examples
    --------
    >>> q = quote("h100-sxm", "on_demand")
    >>> 2.0 < q.usd_per_gpu_hour < 5.0, q.estimated, q.derived
    (True, False, False)
    >>> quote("h800", "on_demand").derived  # one small provider lists it: priced by its ratio to its own H100
    True
    >>> quote("h100-sxm", "reserved_1y").usd_per_gpu_hour <= q.usd_per_gpu_hour  # committed: never dearer
    True
    >>> quote("h100-sxm", "on_demand", "nebius").date  # one named provider, at its own dated price
    '2026-09-25'
    """
    catalog.accelerator(accelerator)
    commitment, who = split_basis(basis, seller)
    if who in PROVIDERS:
        return _provider_quote(accelerator, commitment, who, as_of)
    if who == "hyperscaler" and commitment == "spot":
        od = quote(accelerator, "hyperscaler_on_demand", as_of=as_of)
        discount = catalog.default("spot_discount")
        rule = f"hyperscaler_on_demand {od.usd_per_gpu_hour:.2f} less the spot discount {discount:.0%} ({od.rule})"
        return Quote(accelerator, "spot", od.usd_per_gpu_hour * (1 - discount), rule, od.providers, od.date, True,
                     od.derived, seller=who)
    group_basis = commitment if who == "specialist" else f"hyperscaler_{commitment}"
    q = dataclasses.replace(_floored(_group_quote(accelerator, group_basis, as_of), as_of), seller=who)
    if as_of and math.isnan(q.usd_per_gpu_hour):  # nothing listed by then: as of the first day it has a price
        for day in sorted({r["price_date"] for r in catalog.read_csv("cloud_prices.csv")
                           if r["accelerator"] in (accelerator, REFERENCE) and r["price_date"] > as_of}):
            later = quote(accelerator, basis, seller, day)
            if math.isfinite(later.usd_per_gpu_hour):
                return dataclasses.replace(later, rule=f"nothing listed by {as_of}: as of the first day it has a "
                                                       f"price, {day}: {later.rule}", estimated=True)
    return q


def _floored(q: Quote, as_of: str = "") -> Quote:
    """A price of a seller group that sells no such chip, no lower than the lowest price its own sellers list.

    Nobody rents a chip for less than its cheapest listed price on any basis: a TPU, sold by Google alone, priced
    at Google's TPU/H100 ratio x the specialists' H100 median, came out below Google's own 3-year commitment
    (issue 37: TPU v6e 1.07 against 1.22). Applies only where no provider of the basis's seller group lists the
    chip at all; spot is left alone (spot prices may lie below any list).
    """
    if not (q.derived or q.estimated) or q.basis == "spot" or not math.isfinite(q.usd_per_gpu_hour):
        return q
    kind = BASIS_MARKET[q.basis][0] if q.basis in BASIS_MARKET else DEFAULT_SELLER
    mine = [r for r in _rows(as_of) if r["accelerator"] == q.accelerator]
    if any(r["provider_kind"] == kind for r in mine):
        return q
    listed = [(float(r[c]), r["provider"], r["price_date"], c) for r in mine if r["source_kind"] == "first-hand"
              for c in _COLUMNS.values() if r[c]]
    if not listed:
        return q
    low = min(listed)
    if q.usd_per_gpu_hour >= low[0]:
        return q
    rule = (f"{low[0]:.2f}, the lowest price its sellers list ({low[1]}, {low[3]}, {low[2]}): the rule gave "
            f"{q.usd_per_gpu_hour:.2f} ({q.rule})")
    return dataclasses.replace(q, usd_per_gpu_hour=low[0], rule=rule)
