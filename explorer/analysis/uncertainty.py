"""Uncertain inputs: sourced intervals, the tornado (:func:`sensitivity`) and Monte Carlo (:func:`simulate`)."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np
import pandas as pd

from explorer import catalog
from explorer.analysis.levers import ACCELERATOR, EXPERIMENTS, MFU, PRICING, REGION, RELIABILITY, lever_atoms, compose_inputs
from explorer.errors import ScenarioError
from explorer.messages import Message
from explorer.model import COST_DIMENSIONS
from explorer.model.vectorized import compute
from explorer.scenario import Scenario

__all__ = ["uncertainty_ranges", "sensitivity", "Simulation", "simulate", "mfu_bounds", "MAX_DRAWS", "MAX_SEED"]

_Z = {"lognormal_90": 1.6448536269514722, "lognormal_50": 0.6744897501960817}


@functools.cache
def _catalog_ranges() -> pd.DataFrame:
    rows = catalog.read_csv("uncertainty.csv")
    df = pd.DataFrame([dict(r) for r in rows]).set_index("id")
    df["low"] = df["low"].astype(float)
    df["high"] = df["high"].astype(float)
    return df


def uncertainty_ranges() -> pd.DataFrame:
    """The uncertain inputs and their sourced intervals (``explorer/data/uncertainty.csv``).

    Returns
    -------
    pandas.DataFrame
        Index ``id``; ``low``, ``high`` (the interval named by
        ``distribution``: ``lognormal_90`` = P5-P95, ``lognormal_50`` =
        P25-P75), ``unit``, ``scale`` (``relative``: a multiplier on the
        scenario's resolved value; ``absolute``: the value itself),
        ``distribution``, ``source``, ``notes``. A copy: edit it and pass it
        as ``ranges=`` to :func:`sensitivity` or :func:`simulate`.
    """
    return _catalog_ranges().copy()


def _check_ranges(ranges: pd.DataFrame | None) -> pd.DataFrame:
    df = uncertainty_ranges() if ranges is None else ranges
    known = set(_catalog_ranges().index)
    for key, row in df.iterrows():
        if key not in known:
            raise ScenarioError("ranges", key, Message("allowed_uncertain_input", choices=sorted(known), field="unc"))
        if row["distribution"] not in _Z:
            raise ScenarioError("ranges", f"{key}: {row['distribution']}", Message("allowed_choices", choices=list(_Z)))
        lo, hi = float(row["low"]), float(row["high"])
        if not (0 < lo <= hi and math.isfinite(hi)):
            raise ScenarioError("ranges", f"{key}: {lo:g}, {hi:g}", Message("allowed_low_high"))
    return df


def _lognormal(row: pd.Series) -> tuple[float, float]:
    """Mean and standard deviation of log(multiplier) for a sourced interval: centred on the point value.

    One central value per quantity: the point estimate's value (the named
    default or the scenario's) is the median of the sourced, unbounded
    distribution, so the mean of ``log`` is 0 (a draw bounded on one side,
    such as MFU, has its median where the bounds put it); the interval gives only the spread, ``sigma = ln(high / low)
    / (2 z)``. An interval whose own middle is not the point's value (other
    losses: 0.862-1.322 around 1.16, middle 1.067) is read for its width only.
    For an ``absolute`` interval (the experiments multiplier) the draw is the
    same multiplier on the scenario's own value.
    """
    lo, hi = math.log(float(row["low"])), math.log(float(row["high"]))
    return 0.0, (hi - lo) / (2.0 * _Z[row["distribution"]])


def _p5_p95(row: pd.Series) -> tuple[float, float]:
    mu, sigma = _lognormal(row)
    z = _Z["lognormal_90"]
    return math.exp(mu - z * sigma), math.exp(mu + z * sigma)


@functools.cache
def _mfu_bounds_table() -> Mapping[str, tuple[float, float]]:
    return {r["id"]: (float(r["low"]), float(r["high"])) for r in catalog.read_csv("mfu_bounds.csv")}


def mfu_bounds(gpu: str) -> tuple[float, float]:
    """Physical bounds of a drawn MFU on accelerator ``gpu``, by its generation [1] (against the 16-bit peak).

    The bounds of the accelerator's MFU default (``mfu_default`` in
    ``accelerators.csv``; ``mfu_dense`` when blank) in ``mfu_bounds.csv``:
    [0.15, 0.55] for A100/H100-class runs (the lowest and highest published
    runs), [0.15, 0.48] for V100 (its best single-GPU figure, NVIDIA ADLR).

    >>> mfu_bounds("h100-sxm"), mfu_bounds("v100")
    ((0.15, 0.55), (0.15, 0.48))
    """
    name = catalog.accelerator(gpu).mfu_default or "mfu_dense"
    table = _mfu_bounds_table()
    return table.get(name, table["mfu_dense"])


def _point_mfu(atoms: Mapping[str, Mapping[str, float]]) -> float:
    """The MFU the point scenario uses (a typed one, else the accelerator's) [1]."""
    override = float(np.asarray(atoms[MFU]["override"]).flat[0]) > 0
    return float(np.asarray(atoms[MFU]["mfu"] if override else atoms[ACCELERATOR]["mfu_base"]).flat[0])


def _log_bounds(key: str, scenario: Scenario, atoms: Mapping[str, Mapping[str, float]]) -> tuple[float, float]:
    """Bounds ``(a, b)`` of log(multiplier) a draw of ``key`` may take [1].

    MFU: the generation's physical bounds (:func:`mfu_bounds`) over the point
    MFU, asymmetric: the sourced lognormal is conditioned on them, not
    re-centred, so the median draw falls where the bounded distribution puts
    it (below the point value for A100/H100-class runs: the low-MFU tail is
    kept). A typed MFU above the upper bound is bounded by 1 instead, one
    below the lower bound by nothing. The other-losses factor and the
    experiments multiplier: truncated at 1 below and at the same log-distance
    above. ``(-inf, inf)`` for the other inputs.
    """
    if key == "mfu":
        m0 = _point_mfu(atoms)
        if not 0 < m0 < 1:
            return 0.0, 0.0
        lo, hi = mfu_bounds(scenario.gpu)
        return (math.log(lo / m0) if m0 > lo else -math.inf), math.log((hi if m0 < hi else 1.0) / m0)
    if key == "other_losses":
        w = math.log(max(float(np.asarray(atoms[RELIABILITY]["other"]).flat[0]), 1.0))
        return -w, w
    if key == "experiments":
        w = math.log(max(float(np.asarray(atoms[EXPERIMENTS]["mult"]).flat[0]), 1.0))
        return -w, w
    return -math.inf, math.inf


def _phi(x: float) -> float:
    """Standard normal CDF [1]."""
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0))) if math.isfinite(x) else (1.0 if x > 0 else 0.0)


def _median_location(a: float, b: float, sigma: float) -> float:
    """Location ``m`` of a normal of width ``sigma`` whose part within ``[a, b]`` has its median at 0 [1].

    Solves ``Phi(-m / s) - Phi((a - m) / s) = Phi((b - m) / s) - Phi(-m / s)`` by bisection (60 halvings of
    ``[a, b]``): the bounded distribution then has half its mass on each side of 0 (issue 38: the sourced
    median, not the median of the unbounded fit, is where the bounded MFU draws are centred).
    """
    if not (sigma > 0 and a < 0 < b):
        return 0.0
    lo, hi = max(a, -10 * sigma), min(b, 10 * sigma)

    def excess(m: float) -> float:  # mass below 0 minus mass above 0, within [a, b]; falls as m rises
        below = _phi(-m / sigma) - _phi((a - m) / sigma)
        above = _phi((b - m) / sigma) - _phi(-m / sigma)
        return below - above

    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if excess(mid) > 0 else (lo, mid)
    return 0.5 * (lo + hi)


def _truncated_normal(rng: np.random.Generator, n: int, a: float, b: float) -> np.ndarray:
    """``n`` standard normal draws conditioned on ``[a, b]`` (redrawn until inside) [1]."""
    z = rng.standard_normal(n)
    if not (math.isfinite(a) or math.isfinite(b)):
        return z
    if b <= a:
        return np.full(n, min(max(0.0, a), b))
    bad = np.flatnonzero((z < a) | (z > b))
    while bad.size:
        z[bad] = rng.standard_normal(bad.size)
        bad = bad[(z[bad] < a) | (z[bad] > b)]
    return z


def _applies(key: str, s: Scenario) -> bool:
    if key == "spot_discount":  # the spot rate's spread; a typed rate is what is paid
        return s.pricing == "spot" and s.rate_usd_per_gpu_hour is None
    return key != "experiments" or s.experiments_multiplier_effective > 1.0


def _apply(atoms: dict[str, Any], key: str, value: np.ndarray, scale: str) -> None:
    """Set uncertain input ``key`` in ``atoms`` (in place) to ``value`` (a multiplier when relative)."""
    if key == "accelerator_price":
        pr = atoms[PRICING]
        atoms[ACCELERATOR]["od_ref"] = atoms[ACCELERATOR]["od_ref"] * value
        pr["rate"] = pr["rate"] * value
        atoms[ACCELERATOR]["a_ref"] = atoms[ACCELERATOR]["a_ref"] * value
        atoms[ACCELERATOR]["h_ref"] = atoms[ACCELERATOR]["h_ref"] * value
    elif key == "electricity":
        atoms[REGION]["electricity"] = atoms[REGION]["electricity"] * value
    elif key == "mfu":
        # the draw is already within the generation's bounds (_log_bounds, simulate)
        acc, m = atoms[ACCELERATOR], atoms[MFU]
        acc["mfu_base"] = acc["mfu_base"] * value
        m["mfu"] = m["mfu"] * value
    elif key == "other_losses":
        atoms[RELIABILITY]["other"] = np.maximum(atoms[RELIABILITY]["other"] * value, 1.0)
    elif key == "failure_rate":
        atoms[RELIABILITY]["failure"] = atoms[RELIABILITY]["failure"] * value
    elif key == "spot_discount":
        pr = atoms[PRICING]
        pr["rate_factor"] = pr["rate_factor"] * value
    elif key == "spot_preemption":
        atoms[PRICING]["spot_failures"] = atoms[PRICING]["spot_failures"] * value
    elif key == "experiments":
        # absolute intervals are read for their width only (see _lognormal): a multiplier on the scenario's value
        atoms[EXPERIMENTS]["mult"] = np.maximum(atoms[EXPERIMENTS]["mult"] * value, 1.0)
    else:  # pragma: no cover - _check_ranges refuses unknown ids
        raise KeyError(key)


def _broadcast_atoms(atoms: dict[str, Any], n: int) -> dict[str, Any]:
    return {lv: {q: np.full(n, v, dtype=float) for q, v in group.items()} for lv, group in atoms.items()}


def sensitivity(scenario: Scenario, ranges: pd.DataFrame | None = None) -> pd.DataFrame:
    """Total cost as each uncertain input moves across its 90% interval, the others at their point values.

    Parameters
    ----------
    scenario : Scenario
        The point scenario.
    ranges : pandas.DataFrame, optional
        Intervals as returned by :func:`uncertainty_ranges` (default: the
        sourced catalog); rows may be dropped or edited.

    Returns
    -------
    pandas.DataFrame
        One row per uncertain input that applies to the scenario, sorted by
        ``swing_usd``, widest first: ``name``; ``low``, ``high`` the input's
        P5 and P95 (a multiplier on the resolved value when ``scale`` is
        relative, else the value) [``unit``]; ``total_usd_low``,
        ``total_usd_high`` the total cost at each end [USD]; ``swing_usd`` =
        ``|high - low|`` of the total [USD]; ``unit``, ``scale``, ``source``.
        ``attrs["point_usd"]`` holds the point total [USD].
    """
    df = _check_ranges(ranges)
    keys = [k for k in df.index if _applies(k, scenario)]
    base = lever_atoms(scenario)
    atoms = _broadcast_atoms(base, 2 * len(keys) + 1)
    ends = []
    for i, key in enumerate(keys):
        row = df.loc[key]
        lo, hi = _p5_p95(row)
        a, b = _log_bounds(key, scenario, base)
        lo, hi = max(lo, math.exp(a)), min(hi, math.exp(b))
        ends.append((lo, hi))
        for j, value in ((1 + 2 * i, lo), (2 + 2 * i, hi)):
            one = {lv: {q: v[j:j + 1] for q, v in g.items()} for lv, g in atoms.items()}
            _apply(one, key, np.asarray([value]), row["scale"])
            for lv, g in one.items():
                for q, v in g.items():
                    atoms[lv][q][j] = v[0]
    totals = np.asarray(compute(**compose_inputs(atoms))["total_usd"], dtype=float)
    out = pd.DataFrame({
        "name": keys,
        "low": [e[0] for e in ends],
        "high": [e[1] for e in ends],
        "total_usd_low": totals[1::2][:len(keys)],
        "total_usd_high": totals[2::2][:len(keys)],
    })
    out["swing_usd"] = (out["total_usd_high"] - out["total_usd_low"]).abs()
    out["unit"] = [df.loc[k, "unit"] for k in keys]
    out["scale"] = [df.loc[k, "scale"] for k in keys]
    out["source"] = [df.loc[k, "source"] for k in keys]
    out = out.sort_values("swing_usd", ascending=False, kind="stable").reset_index(drop=True)
    out.attrs["point_usd"] = float(totals[0])
    return out


@dataclass(frozen=True, eq=False)
class Simulation:
    """Monte Carlo draws of a scenario's cost (:func:`simulate`).

    Attributes
    ----------
    totals_usd : ndarray
        Total cost of each draw [USD], shape (n,).
    dimensions_usd : dict of str -> ndarray
        Each cost dimension of each draw [USD].
    percentiles : pandas.DataFrame
        Rows ``P5``, ``P50``, ``P95``; columns ``total_usd`` and
        ``<dimension>_usd`` [USD] (each column's own percentiles).
    point_usd : float
        Total of the point scenario, all inputs at their values [USD].
    draws : dict of str -> ndarray
        The drawn uncertain inputs (multipliers or values, as in the ranges).
    n, seed : int
        Number of draws and the seed of :func:`numpy.random.default_rng`.
    final_runs_usd : ndarray or None
        Machine cost of the final run of each draw [USD], shape (n,) (what the
        history chart plots; see :attr:`run_interval_usd`).

    Notes
    -----
    In a notebook a simulation prints its percentiles as money (``_repr_html_``); ``repr`` is one line.
    """

    totals_usd: np.ndarray
    dimensions_usd: dict[str, Any]
    percentiles: pd.DataFrame
    point_usd: float
    draws: dict[str, Any] = field(default_factory=dict)
    n: int = 0
    seed: int | None = 0
    final_runs_usd: np.ndarray | None = None

    def percentiles_text(self) -> pd.DataFrame:
        """:attr:`percentiles` as money text (``$1.66M``), never e-notation: what a notebook shows."""
        from explorer.text import money

        return self.percentiles.map(lambda v: money(float(v)))

    def __repr__(self) -> str:
        from explorer.text import money

        lo, hi = self.interval_usd
        return (f"Simulation({self.n:,} draws, seed {self.seed}: point {money(self.point_usd)}, "
                f"90% range {money(lo)} - {money(hi)})")

    def _repr_html_(self) -> str:
        import html

        return (f"<p><b>Simulation</b>: {html.escape(repr(self)[len('Simulation('):-1])}</p>"
                + str(self.percentiles_text().to_html()))

    def probability_over(self, budget_usd: float) -> float:
        """Fraction of draws whose total exceeds ``budget_usd`` [1]; a draw whose run cannot happen (no cost,
        NaN) counts as over: it does not come in within the budget."""
        return float(np.mean((self.totals_usd > budget_usd) | np.isnan(self.totals_usd)))

    @property
    def infeasible_share(self) -> float:
        """Fraction of draws whose run cannot happen (no cost: NaN total) [1]."""
        return float(np.mean(np.isnan(self.totals_usd)))

    @property
    def interval_usd(self) -> tuple[float, float]:
        """P5 and P95 of the total [USD]."""
        return float(self.percentiles.loc["P5", "total_usd"]), float(self.percentiles.loc["P95", "total_usd"])

    @property
    def run_interval_usd(self) -> tuple[float, float]:
        """P5 and P95 of the final run's machine cost [USD] (NaN, NaN without those draws)."""
        if self.final_runs_usd is None or not self.final_runs_usd.size:
            return math.nan, math.nan
        low, high = _percentiles(self.final_runs_usd, [5, 95])
        return float(low), float(high)


MAX_DRAWS = 2_000_000
#: The largest seed [1]: 2**32 - 1, the range every NumPy seeding interface accepts (``RandomState`` seeds
#: "must be convertible to 32 bit unsigned integers", NumPy reference, numpy.random.RandomState); a
#: 23-digit seed reproduces nothing a smaller one cannot and only invites typos (issue 24).
MAX_SEED = 2**32 - 1


def _percentiles(values: np.ndarray, q: list[float] | np.ndarray) -> np.ndarray:
    """Percentiles ``q`` of the draws whose run can happen (infeasible draws have no cost, NaN); NaN if none can."""
    v = np.asarray(values, float)
    v = v[~np.isnan(v)]
    return np.percentile(v, q) if v.size else np.full(len(q), np.nan)


def simulate(scenario: Scenario, n: int = 10_000, seed: int | None = 0,
             ranges: pd.DataFrame | None = None) -> Simulation:
    """Monte Carlo of the total cost over the uncertain inputs.

    Each uncertain input of the ranges (accelerator price, electricity, MFU,
    other losses, failure rate, spot preemption, experiments multiplier) is
    drawn independently from a lognormal fitted to its sourced interval,
    Epoch AI's manner of treating cost inputs (Cottier et al. 2024, arXiv
    2405.21015); relative inputs multiply the scenario's resolved value.
    MFU is drawn from a lognormal of the sourced width (quartiles 0.30/0.38 and
    0.50/0.38 of the point) conditioned on the physical bounds of the
    accelerator's generation (:func:`mfu_bounds`: [0.15, 0.55] for H100,
    [0.15, 0.48] for V100), and calibrated (issue 38) so that the bounded
    distribution's median is the point MFU, the sourced median (Epoch AI: 0.38
    over 62 runs): its location is moved until half the bounded mass lies on
    each side (:func:`_median_location`). Without it 59.5% of the H100 draws
    fell below 0.38 and the median total sat up to 9% above the point
    estimate. Each input drawn alone leaves the total's median within
    0.2% of the point estimate on every preset; drawn together they put it
    up to 2.5% above (Llama 65B; 20,000 draws, seed 0; measured 7 Dec 2026), because the total
    is a sum of terms that share some draws and not others (people follow
    MFU; compute the price, MFU and losses; the hidden costs also the
    experiments multiplier), and a sum of independent right-skewed terms has
    its median above the sum of their medians. All
    draws go through one vectorized :func:`~explorer.model.compute` call.
    With every interval collapsed (low = high = 1) each draw equals the
    point estimate.

    Parameters
    ----------
    scenario : Scenario
    n : int
        Number of draws [1], 1 to 2,000,000.
    seed : int or None
        Seed of :func:`numpy.random.default_rng`, 0 to :data:`MAX_SEED` (2**32 - 1); the same seed gives the
        same draws.
    ranges : pandas.DataFrame, optional
        As :func:`uncertainty_ranges` (default: the sourced catalog).

    Returns
    -------
    Simulation

    Examples
    --------
    >>> from explorer import Scenario, simulate
    >>> sim = simulate(Scenario(gpus=512), n=2000, seed=1)
    >>> lo, hi = sim.interval_usd
    >>> bool(lo < sim.point_usd < hi)
    True
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= MAX_DRAWS:
        raise ScenarioError("n", n, Message("allowed_draws", limit=MAX_DRAWS))
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))
                             or not 0 <= seed <= MAX_SEED):
        raise ScenarioError("seed", seed, Message("allowed_seed", limit=MAX_SEED))
    df = _check_ranges(ranges)
    rng = np.random.default_rng(seed)
    base = lever_atoms(scenario)
    atoms = _broadcast_atoms(base, n)
    draws = {}
    for key in df.index:
        if not _applies(key, scenario):
            continue
        row = df.loc[key]
        mu, sigma = _lognormal(row)
        a, b = _log_bounds(key, scenario, base)
        if key == "mfu" and sigma > 0:  # calibrated: the bounded draws' median is the point MFU (issue 38)
            mu = _median_location(a, b, sigma)
        value = (np.exp(mu + sigma * _truncated_normal(rng, n, (a - mu) / sigma, (b - mu) / sigma)) if sigma > 0
                 else np.full(n, math.exp(mu)))
        draws[key] = value
        _apply(atoms, key, value, row["scale"])
    out = compute(**compose_inputs(atoms))
    point = float(np.asarray(compute(**compose_inputs(base))["total_usd"]))
    totals = np.asarray(out["total_usd"], dtype=float)
    dims = {d: np.broadcast_to(np.asarray(out[f"cost_{d}_usd"], float), totals.shape) for d in COST_DIMENSIONS}
    table = {"total_usd": totals, **{f"{d}_usd": v for d, v in dims.items()}}
    pct = pd.DataFrame({k: _percentiles(v, [5, 50, 95]) for k, v in table.items()}, index=["P5", "P50", "P95"])
    runs = np.broadcast_to(np.asarray(out["final_run_usd"], float), totals.shape)
    return Simulation(totals_usd=totals, dimensions_usd=dims, percentiles=pct, point_usd=point, draws=draws, n=n,
                      seed=seed, final_runs_usd=runs)
