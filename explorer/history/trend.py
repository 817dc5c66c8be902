"""Historical training cost: the data (history.csv, Epoch AI's frontier set, the deflator) and the trend fit.

:func:`load_history` and :func:`load_claims` read the tables, :func:`fit_trend`, :func:`fit_periods` and
:func:`fit_acquisition_periods` fit log-linear trends with bootstrap intervals. The claims check and the
printed report are in :mod:`explorer.history.report`; :mod:`explorer.history` exports both (see its
docstring for the sources and references).
"""

from __future__ import annotations

import functools
import io
import math
from dataclasses import dataclass
from importlib import resources
from types import MappingProxyType
from typing import Mapping

import numpy as np
import pandas as pd

from explorer import catalog
from explorer.errors import ScenarioError
from explorer.messages import Message


#: Cost methods, key -> English description. Keep them apart in fits.
METHODS: Mapping[str, str] = {
    "amortized": "amortized hardware + energy",
    "cloud": "cloud rental price",
    "developer": "stated by the developer",
}

#: What a cost covers.
SCOPES: Mapping[str, str] = {
    "final_run": "final training run",
    "project": "whole project",
}

#: Epoch AI's published growth of the amortized hardware + energy cost of the
#: final training run of frontier models, 2016-2023 (Cottier et al. 2024, abstract and sec. 3).
EPOCH_GROWTH_PER_YEAR = 2.4
#: Its 90% confidence interval, arXiv:2405.21015 v2 abstract ("90% CI: 2.0x to 2.9x"),
#: the level of this module's intervals.
EPOCH_GROWTH_CI90 = (2.0, 2.9)
#: The 95% interval of the paper's first version (v1 abstract: "95% CI: 2.0x to 3.1x").
EPOCH_GROWTH_CI95 = (2.0, 3.1)
EPOCH_REFERENCE = "Cottier et al. 2024, arXiv:2405.21015"

#: Which models the amortized trend is fitted on, in words (explorer/data/epoch_frontier.csv).
SELECTION_RULE = ("Epoch AI's frontier set: the 82 models that were in the top 10 by training compute at their "
                  "publication date (training-cost-trends, top_n = 10)")
#: First year of the fitted period: Epoch's "since 2016" (Cottier et al. 2024) (the set also holds three 2015 models).
FIT_START_YEAR = 2016.0
#: The two periods reported [decimal yr, inclusive]: the paper's and all of Epoch's data.
PERIODS: Mapping[str, tuple[float, float | None]] = MappingProxyType({
    "2016-2023": (2016.0, 2024.0),
    "2016-2025": (2016.0, None),
})

#: Dollar year every fitted cost is converted to.
TARGET_DOLLAR_YEAR = "2024-12"

#: PPI PCU518210518210 (Dec 2000 = 100) for the dollar years present in
#: history.csv, from Epoch AI's copy of the FRED series (module reference [3]). "2023 USD" in
#: Epoch's database and in the AI Index 2024 is the Dec-2023 level: Epoch's
#: 2024-12 USD re-runs of GNMT, AlphaGo Zero, GPT-3 (cloud), RoBERTa, LaMDA
#: and GPT-4 (cloud) are all 1.0027x the 2023 USD values = 119.349 / 119.029.
PPI_PCU518210518210: Mapping[str, float] = MappingProxyType({
    r["id"]: float(r["ppi_pcu518210518210"]) for r in catalog.read_csv("price_index.csv")
})  # explorer/data/price_index.csv

#: Cost levels [USD] whose crossing year is projected.
THRESHOLDS_USD = (1e9, 1e10, 1e11)

#: Bootstrap settings: resamples, seed (fixed, so reports are reproducible)
#: and the two-sided level of the reported intervals.
N_BOOT = 10000  # 4000 left the 2016-2023 upper limit 0.02 from its converged value (~2.94x at 40,000)
SEED = 20240531
CI_LEVEL = 0.90

#: Minimum number of points (at distinct dates) for a fit.
MIN_POINTS = 3

_HISTORY_COLUMNS = (
    "id", "model", "date", "date_source", "cost_usd", "dollar_year", "method",
    "scope", "frontier", "estimate", "source", "notes",
)


def _read_csv(name: str) -> pd.DataFrame:
    catalog.read_csv(name)  # schema check (explorer.catalog.SCHEMAS) before pandas parses the same text
    text = (resources.files("explorer") / "data" / name).read_text(encoding="utf-8")
    return pd.read_csv(io.StringIO(text), dtype={"date": str, "dollar_year": str})


def decimal_year(date: str) -> float:
    """Convert ``"YYYY-MM"`` (or ``"YYYY"``) to a decimal year.

    Parameters
    ----------
    date : str
        Year and month, e.g. ``"2020-05"``; a bare year is placed at mid-year.

    Returns
    -------
    float
        Decimal year [yr], at the middle of the month (2020-05 -> 2020.375).
    """
    parts = str(date).strip().split("-")
    year = int(parts[0])
    if len(parts) == 1:
        return year + 0.5
    month = int(parts[1])
    if not 1 <= month <= 12:
        raise ScenarioError("date", date, Message("allowed_date"))
    return year + (month - 0.5) / 12.0


def deflator(dollar_year: str, target: str = TARGET_DOLLAR_YEAR) -> float:
    """Factor converting USD of ``dollar_year`` into USD of ``target``.

    Parameters
    ----------
    dollar_year, target : str
        ``"YYYY-MM"`` keys of :data:`PPI_PCU518210518210`.

    Returns
    -------
    float
        Multiply a cost [USD of dollar_year] by this to get [USD of target].
    """
    for key in (dollar_year, target):
        if key not in PPI_PCU518210518210:
            raise ScenarioError("dollar_year", key, Message("allowed_choices", choices=list(PPI_PCU518210518210)))
    return PPI_PCU518210518210[target] / PPI_PCU518210518210[dollar_year]


def _epoch_rows() -> pd.DataFrame:
    """Rows of ``epoch_frontier.csv`` in the columns of ``history.csv`` (amortized, final run, frontier)."""
    catalog.read_csv("epoch_frontier.csv")  # schema check
    text = (resources.files("explorer") / "data" / "epoch_frontier.csv").read_text(encoding="utf-8")
    ep = pd.read_csv(io.StringIO(text), dtype={"publication_date": str})
    out = []
    for method, column in (("amortized", "amortized_hardware_energy_cost_usd"), ("cloud", "cloud_cost_usd")):
        sub = ep[ep[column].notna()]
        out.append(pd.DataFrame({
            "id": sub["id"] + ("" if method == "amortized" else "_cloud"), "model": sub["model"],
            "date": sub["publication_date"].str[:7],
            "date_source": "Epoch AI database publication date " + sub["publication_date"],
            "cost_usd": sub[column].astype(float),
            "dollar_year": "2024-12",  # model_costs.csv: inflation-adjusted to Dec 2024 USD (PPI PCU518210518210)
            "method": method, "scope": "final_run", "frontier": "true",
            "estimate": f"Epoch AI frontier set ({method})", "source": sub["source"], "notes": "",
        }))
    return pd.concat(out, ignore_index=True)


@functools.cache
def history_table() -> pd.DataFrame:
    """Every dated cost estimate: ``history.csv`` and Epoch AI's frontier rows, read once (do not modify it).

    Returns
    -------
    pandas.DataFrame
        The shared table (:func:`load_history` gives a copy): the columns of ``history.csv``, ``frontier`` as
        bool, plus ``year`` [decimal yr] and ``cost_usd_target`` [USD of :data:`TARGET_DOLLAR_YEAR`].
    """
    df = pd.concat([_read_csv("history.csv"), _epoch_rows()], ignore_index=True)
    missing = set(_HISTORY_COLUMNS) - set(df.columns)
    if missing:  # pragma: no cover - guards the packaged file
        raise RuntimeError(f"history.csv lacks columns {sorted(missing)}")
    df["frontier"] = df["frontier"].astype(str).str.lower().eq("true")
    df["notes"] = df["notes"].fillna("")
    df["year"] = df["date"].map(decimal_year)
    df["cost_usd_target"] = df["cost_usd"] * df["dollar_year"].map(deflator)
    return df


@functools.cache
def claims_table() -> pd.DataFrame:
    """The source article's dated cost claims (``article_claims.csv``), read once (do not modify it).

    Returns
    -------
    pandas.DataFrame
        The shared table (:func:`load_claims` gives a copy): one row per claim, the columns of
        ``article_claims.csv`` (``claimed_usd`` [USD]), ``notes`` "" where blank.
    """
    df = _read_csv("article_claims.csv")
    df["notes"] = df["notes"].fillna("")
    return df


def load_history() -> pd.DataFrame:
    """The historical cost table (a copy; the file is read once).

    Returns
    -------
    pandas.DataFrame
        Columns of ``history.csv`` plus ``year`` [decimal yr] and
        ``cost_usd_target`` [USD of :data:`TARGET_DOLLAR_YEAR`].
    """
    return history_table().copy()


def load_claims() -> pd.DataFrame:
    """The article's dated cost claims (``article_claims.csv``, a copy).

    Returns
    -------
    pandas.DataFrame
        A copy of :func:`claims_table`.
    """
    return claims_table().copy()


def check_method(method: str | None) -> str:
    """``method`` if it is a cost method of the history (``None``: ``"amortized"``), else a ScenarioError.

    Parameters
    ----------
    method : str or None
        A key of :data:`METHODS`, or None.

    Returns
    -------
    str
        ``method``, or ``"amortized"`` for None.

    Raises
    ------
    ScenarioError
        For any other value (field ``method``).
    """
    if method is None:
        return "amortized"
    if method not in METHODS:
        raise ScenarioError("method", method, Message("allowed_choices", choices=list(METHODS), field="history_method"))
    return method


def fittable_methods() -> tuple[str, ...]:
    """Methods with at least MIN_POINTS final-run estimates at distinct dates.

    Returns
    -------
    tuple of str
        Keys of :data:`METHODS`, in its order.
    """
    df = history_table()
    fin = df[df["scope"] == "final_run"]
    return tuple(m for m in METHODS if fin.loc[fin["method"] == m, "year"].nunique() >= MIN_POINTS)


def _level_key(cost_usd: float) -> str:
    """JSON key of a cost level: 1e9 -> "1e9"."""
    exp = math.log10(cost_usd)
    return f"1e{round(exp)}" if abs(exp - round(exp)) < 1e-9 else f"{cost_usd:g}"


@dataclass(frozen=True)
class Crossing:
    """When the trend reaches a cost level.

    Parameters
    ----------
    cost_usd : float
        The level [USD of TARGET_DOLLAR_YEAR].
    year : float
        Central estimate [decimal yr]; ``inf`` if the trend never gets there.
    lo, hi : float
        Bootstrap interval [decimal yr] at the fit's ``ci_level``.
    """

    cost_usd: float
    year: float
    lo: float
    hi: float


@dataclass(frozen=True, eq=False)
class TrendFit:
    """A least-squares line through log10(cost) against decimal year.

    ``log10(cost_usd) = intercept_log10 + slope_log10_per_year * (year - year_ref)``

    Parameters
    ----------
    method : str
        Key of :data:`METHODS` (or ``"synthetic"``).
    subset : str
        Which rows were used, in words.
    year, cost_usd : numpy.ndarray
        The fitted points [decimal yr], [USD of ``dollar_year``].
    labels : tuple of str
        Model names of the points.
    year_ref : float
        Centering year [decimal yr] (mean of ``year``).
    intercept_log10, slope_log10_per_year : float
        Fitted line [log10 USD], [log10 USD / yr].
    boot_intercept_log10, boot_slope_log10_per_year : numpy.ndarray
        The same for each bootstrap resample of the points.
    ci_level : float
        Two-sided level of the reported intervals (0.90).
    dollar_year : str
        Dollar year of ``cost_usd``.
    """

    method: str
    subset: str
    year: np.ndarray
    cost_usd: np.ndarray
    labels: tuple
    year_ref: float
    intercept_log10: float
    slope_log10_per_year: float
    boot_intercept_log10: np.ndarray
    boot_slope_log10_per_year: np.ndarray
    ci_level: float = CI_LEVEL
    dollar_year: str = TARGET_DOLLAR_YEAR

    # -- derived numbers --------------------------------------------------
    @property
    def n_points(self) -> int:
        """Number of fitted points."""
        return int(self.year.size)

    def _q(self, values: np.ndarray) -> tuple[float, float]:
        a = (1.0 - self.ci_level) / 2.0
        v = np.asarray(values, dtype=float)
        v = v[~np.isnan(v)]
        lo, hi = np.quantile(v, [a, 1.0 - a], method="inverted_cdf")
        return float(lo), float(hi)

    @property
    def growth_per_year(self) -> float:
        """Fitted growth factor per year [1/yr], e.g. 2.4 for 2.4x/yr."""
        return float(10.0 ** self.slope_log10_per_year)

    @property
    def growth_ci(self) -> tuple[float, float]:
        """Bootstrap interval of the growth factor [1/yr] at ``ci_level``."""
        lo, hi = self._q(self.boot_slope_log10_per_year)
        return 10.0 ** lo, 10.0 ** hi

    @staticmethod
    def _doubling_months(slope_log10: np.ndarray | float) -> np.ndarray:
        s = np.asarray(slope_log10, dtype=float)
        with np.errstate(divide="ignore"):
            return np.where(s > 0, 12.0 * math.log10(2.0) / np.where(s > 0, s, 1.0), np.inf)

    @property
    def doubling_months(self) -> float:
        """Doubling time of the trend [months]; ``inf`` if not growing."""
        return float(self._doubling_months(self.slope_log10_per_year))

    @property
    def doubling_months_ci(self) -> tuple[float, float]:
        """Bootstrap interval of the doubling time [months]."""
        lo, hi = self._q(self._doubling_months(self.boot_slope_log10_per_year))
        return lo, hi

    def predict_cost_usd(self, year) -> np.ndarray:
        """Trend cost [USD of ``dollar_year``] at ``year`` [decimal yr]."""
        t = np.asarray(year, dtype=float)
        return 10.0 ** (self.intercept_log10 + self.slope_log10_per_year * (t - self.year_ref))

    def band_cost_usd(self, year) -> tuple[np.ndarray, np.ndarray]:
        """Bootstrap band of the trend line [USD] at ``year`` [decimal yr].

        This is the uncertainty of the fitted line, not the spread of
        individual models around it.
        """
        t = np.atleast_1d(np.asarray(year, dtype=float))
        logs = self.boot_intercept_log10[:, None] + self.boot_slope_log10_per_year[:, None] * (
            t[None, :] - self.year_ref
        )
        a = (1.0 - self.ci_level) / 2.0
        quantile = np.nanquantile if np.isnan(logs).any() else np.quantile  # the same numbers, half the time
        lo, hi = quantile(logs, [a, 1.0 - a], axis=0)
        return 10.0 ** lo, 10.0 ** hi

    def crossing(self, cost_usd: float) -> Crossing:
        """Year at which the trend reaches ``cost_usd`` [USD], with interval."""
        target = math.log10(cost_usd)

        def years(a, b):
            a = np.asarray(a, dtype=float)
            b = np.asarray(b, dtype=float)
            with np.errstate(divide="ignore", invalid="ignore"):
                return np.where(b > 0, self.year_ref + (target - a) / np.where(b > 0, b, 1.0), np.inf)

        central = float(years(self.intercept_log10, self.slope_log10_per_year))
        lo, hi = self._q(years(self.boot_intercept_log10, self.boot_slope_log10_per_year))
        return Crossing(cost_usd=float(cost_usd), year=central, lo=lo, hi=hi)

    @property
    def crossings(self) -> tuple[Crossing, ...]:
        """Crossings of :data:`THRESHOLDS_USD`."""
        return tuple(self.crossing(c) for c in THRESHOLDS_USD)

    def epoch_comparison(self) -> dict:
        """Compare the fitted growth with Epoch AI's 2.4x/yr (90% CI 2.0-2.9x, 2016-2023).

        Returns
        -------
        dict
            ``epoch_growth_per_year``, ``epoch_ci90``, ``epoch_ci95`` (the
            paper's v1 interval), ``inside`` (fitted central value within
            Epoch's 90% interval), ``intervals_overlap``, ``reference``,
            ``period`` (Epoch's: 2016-2023).
        """
        g = self.growth_per_year
        lo, hi = self.growth_ci
        elo, ehi = EPOCH_GROWTH_CI90
        return {
            "epoch_growth_per_year": EPOCH_GROWTH_PER_YEAR,
            "epoch_ci90": [elo, ehi],
            "epoch_ci95": list(EPOCH_GROWTH_CI95),
            "inside": bool(elo <= g <= ehi),
            "intervals_overlap": bool(lo <= ehi and hi >= elo),
            "reference": EPOCH_REFERENCE,
            "period": "2016-2023",
        }

    def as_dict(self) -> dict:
        """The numbers ``python -m explorer history --json`` prints."""

        def num(x, nd):
            x = float(x)
            return round(x, nd) if math.isfinite(x) else None

        cross = self.crossings
        return {
            "growth_per_year": num(self.growth_per_year, 3),
            "growth_ci90": [num(v, 3) for v in self.growth_ci],
            "doubling_months": num(self.doubling_months, 1),
            "crossing_year": {_level_key(c.cost_usd): num(c.year, 2) for c in cross},
            "method": self.method,
            "n_points": self.n_points,
            # extras
            "doubling_months_ci90": [num(v, 1) for v in self.doubling_months_ci],
            "crossing_year_ci90": {
                _level_key(c.cost_usd): [num(c.lo, 2), num(c.hi, 2)] for c in cross
            },
            "epoch": self.epoch_comparison(),
            "subset": self.subset,
            "dollar_year": self.dollar_year,
            "years": [num(self.year.min(), 2), num(self.year.max(), 2)],
        }


def fit_log_linear(
    year,
    cost_usd,
    *,
    labels=None,
    method: str = "synthetic",
    subset: str = "given points",
    n_boot: int = N_BOOT,
    seed: int = SEED,
    ci_level: float = CI_LEVEL,
    dollar_year: str = TARGET_DOLLAR_YEAR,
) -> TrendFit:
    """Fit log10(cost) = a + b·(year − mean year) by least squares.

    The interval comes from a nonparametric bootstrap over points
    (resampling rows with replacement, ``n_boot`` times, fixed ``seed``).

    Parameters
    ----------
    year : array_like
        Dates [decimal yr].
    cost_usd : array_like
        Costs [USD], all in one dollar year and one method.
    labels : sequence of str, optional
        Point names; None: ``"0"``, ``"1"``, ...
    method : str, optional
        How the costs were estimated, recorded in the fit: a key of :data:`METHODS`, ``"acquisition"``
        (:func:`fit_acquisition_periods`) or ``"synthetic"`` (the default).
    subset : str, optional
        Which points these are, in words, recorded in the fit.
    n_boot : int
        Bootstrap resamples.
    seed : int
        Seed of the resampling.
    ci_level : float
        Two-sided level of the intervals, in (0, 1).
    dollar_year : str, optional
        Dollar year of ``cost_usd`` (default :data:`TARGET_DOLLAR_YEAR`), recorded in the fit.

    Returns
    -------
    TrendFit
        The line, its bootstrap resamples and the points.

    Raises
    ------
    explorer.errors.ScenarioError
        When ``year`` and ``cost_usd`` differ in length, a value is not finite or a cost is not positive, fewer
        than :data:`MIN_POINTS` dates are distinct, or ``ci_level`` is outside (0, 1).
    """
    t = np.asarray(year, dtype=float).ravel()
    c = np.asarray(cost_usd, dtype=float).ravel()
    if t.shape != c.shape:
        raise ScenarioError("cost_usd", Message("value_count", n=c.size), Message("allowed_one_per_year", n=t.size))
    if not (np.all(np.isfinite(t)) and np.all(np.isfinite(c)) and np.all(c > 0)):
        raise ScenarioError("cost_usd", Message("value_nonpositive"), Message("allowed_positive_costs"))
    if np.unique(t).size < MIN_POINTS:
        raise ScenarioError("points", int(np.unique(t).size), Message("allowed_distinct_dates", n=MIN_POINTS))
    if not 0.0 < ci_level < 1.0:
        raise ScenarioError("ci_level", ci_level, Message("allowed_between_0_1"))
    y = np.log10(c)
    t_ref = float(t.mean())
    x = t - t_ref
    slope = float(np.sum(x * (y - y.mean())) / np.sum(x * x))
    intercept = float(y.mean())  # at t_ref, since x has mean 0

    rng = np.random.default_rng(seed)
    idx = rng.integers(0, t.size, size=(int(n_boot), t.size))
    xb, yb = x[idx], y[idx]
    xm, ym = xb.mean(axis=1, keepdims=True), yb.mean(axis=1, keepdims=True)
    sxx = np.sum((xb - xm) ** 2, axis=1)
    sxy = np.sum((xb - xm) * (yb - ym), axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        b_boot = np.where(sxx > 0, sxy / np.where(sxx > 0, sxx, 1.0), np.nan)
    a_boot = ym[:, 0] + b_boot * (0.0 - xm[:, 0])  # value of each line at t_ref
    for arr in (t, c, a_boot, b_boot):
        arr.flags.writeable = False
    return TrendFit(
        method=method,
        subset=subset,
        year=t,
        cost_usd=c,
        labels=tuple(labels) if labels is not None else tuple(str(i) for i in range(t.size)),
        year_ref=t_ref,
        intercept_log10=intercept,
        slope_log10_per_year=slope,
        boot_intercept_log10=a_boot,
        boot_slope_log10_per_year=b_boot,
        ci_level=ci_level,
        dollar_year=dollar_year,
    )


def select_points(method: str | None = "amortized", *, frontier_only: bool = True,
                  start_year: float | None = FIT_START_YEAR,
                  end_year: float | None = None) -> tuple[pd.DataFrame, str]:
    """Rows of the history used by a fit, and that subset in words.

    Only final-run estimates are fitted, dated from ``start_year`` (default
    2016, Epoch's period) to ``end_year`` inclusive [decimal yr]. With
    ``frontier_only``, the rows of models in Epoch AI's frontier selection
    (:data:`SELECTION_RULE`) are kept; if fewer than :data:`MIN_POINTS`
    remain (the developer-stated method) all final-run rows of the method are
    used and the subset text says so.

    Parameters
    ----------
    method : {"amortized", "cloud", "developer"}
        Cost method; ``None`` means ``"amortized"``.
    frontier_only : bool
        Keep only frontier models (default), when at least :data:`MIN_POINTS` dates remain.
    start_year, end_year : float, optional
        First and last date kept [decimal yr]; None: no bound.

    Returns
    -------
    rows : pandas.DataFrame
        The rows of :func:`history_table` used, sorted by ``year`` and ``id``.
    words : str
        The subset in words (which models, the method, the years).

    Raises
    ------
    explorer.errors.ScenarioError
        For an unknown method, or one with fewer than :data:`MIN_POINTS` final-run dates
        (:func:`fittable_methods`).
    """
    method = check_method(method)
    if method not in fittable_methods():
        raise ScenarioError("method", method, Message("allowed_fittable_method", choices=list(fittable_methods()),
                                               n=MIN_POINTS, field="history_method"))
    df = history_table()
    rows = df[(df["method"] == method) & (df["scope"] == "final_run")]
    if start_year is not None:
        rows = rows[rows["year"] >= start_year]
    if end_year is not None:
        rows = rows[rows["year"] <= end_year]
    words = f"final training runs, {METHODS[method]}"
    if frontier_only:
        front = rows[rows["frontier"]]
        if front["year"].nunique() >= MIN_POINTS:
            rows = front
            words = "frontier models (Epoch AI: top 10 by training compute at publication), " + words
        else:
            words += f" (all models: fewer than {MIN_POINTS} frontier points)"
    if not rows.empty:
        words += f", {int(rows['year'].min())}-{int(rows['year'].max())}"
    return rows.sort_values(["year", "id"], kind="stable"), words


def fit_trend(method: str | None = "amortized", *, frontier_only: bool = True,
              start_year: float | None = FIT_START_YEAR, end_year: float | None = None,
              n_boot: int = N_BOOT, seed: int = SEED, ci_level: float = CI_LEVEL) -> TrendFit:
    """Fit the historical cost trend for one method.

    Costs are converted to :data:`TARGET_DOLLAR_YEAR` USD with the PPI
    deflator Epoch AI uses (a 0.3% change for its 2023 USD rows).

    Parameters
    ----------
    method : {"amortized", "cloud", "developer"}
        Cost method; ``None`` means ``"amortized"``.
    frontier_only : bool
        Keep only frontier models (default, as Epoch AI does).
    start_year, end_year : float, optional
        Restrict to dates in [start_year, end_year] [decimal yr]; default from
        2016 (:data:`FIT_START_YEAR`) to the newest point.
    n_boot : int
        Bootstrap resamples (default :data:`N_BOOT`).
    seed : int
        Seed of the resampling (default :data:`SEED`).
    ci_level : float
        Two-sided level of the intervals, in (0, 1) (default :data:`CI_LEVEL`).

    Returns
    -------
    TrendFit
        The fit of :func:`fit_log_linear` over :func:`select_points`, in USD of :data:`TARGET_DOLLAR_YEAR`.

    Raises
    ------
    explorer.errors.ScenarioError
        For an unknown method or too few points.
    """
    rows, words = select_points(method, frontier_only=frontier_only,
                                start_year=start_year, end_year=end_year)
    return fit_log_linear(
        rows["year"].to_numpy(), rows["cost_usd_target"].to_numpy(),
        labels=rows["model"].tolist(), method=check_method(method), subset=words,
        n_boot=n_boot, seed=seed, ci_level=ci_level,
    )


def fit_periods(method: str | None = "amortized", **kw) -> dict[str, TrendFit]:
    """:func:`fit_trend` over each of :data:`PERIODS`: ``{"2016-2023": fit, "2016-2025": fit}``.

    On Epoch's frontier set (amortized) these give 2.46x/yr (90% bootstrap
    interval 2.08-2.92) for 2016-2023, reproducing the paper's 2.4x (90% CI
    2.0-2.9x), and 2.79x (2.44-3.19) for 2016-2025.

    Parameters
    ----------
    method : {"amortized", "cloud", "developer"}
        Cost method; ``None`` means ``"amortized"``.
    **kw
        Further keywords of :func:`fit_trend` (``frontier_only``, ``n_boot``, ``seed``, ``ci_level``).

    Returns
    -------
    dict of str to TrendFit
        One fit per period name of :data:`PERIODS`, in its order.
    """
    return {name: fit_trend(method, start_year=lo, end_year=hi, **kw) for name, (lo, hi) in PERIODS.items()}


#: The forecast claims are also judged on Epoch AI's hardware-acquisition basis (the up-front price of the
#: training cluster's hardware, epoch_frontier.csv ``hardware_acquisition_cost_usd``, Dec 2024 USD): a basis
#: of its own, never mixed into the chart's methods (:data:`METHODS`).
ACQUISITION = "acquisition"
ACQUISITION_WORDS = "hardware acquisition cost"


@functools.cache
def fit_acquisition_periods() -> dict[str, TrendFit]:
    """Log-linear trend of Epoch AI's hardware-acquisition cost of frontier runs, over each of :data:`PERIODS`.

    The frontier set's ``hardware_acquisition_cost_usd`` (46 models with a value, 2016-2025; Dec 2024 USD, as
    Epoch publishes them): 2.15x/yr over 2016-2023 and 2.35x/yr over 2016-2025, on which the trend reaches
    $10B in 2028.2 (90%: 2027.3-2029.5); the largest point is Grok-3 at $5.48B (2025-02).

    Returns
    -------
    dict of str to TrendFit
        One fit per period name of :data:`PERIODS`, method ``"acquisition"``, in USD of
        :data:`TARGET_DOLLAR_YEAR`.
    """
    catalog.read_csv("epoch_frontier.csv")  # schema check
    text = (resources.files("explorer") / "data" / "epoch_frontier.csv").read_text(encoding="utf-8")
    ep = pd.read_csv(io.StringIO(text), dtype={"publication_date": str})
    ep = ep[ep["hardware_acquisition_cost_usd"].notna()].copy()
    ep["year"] = ep["publication_date"].str[:7].map(decimal_year)
    out = {}
    for name, (lo, hi) in PERIODS.items():
        rows = ep[(ep["year"] >= lo) & ((ep["year"] <= hi) if hi is not None else True)]
        rows = rows.sort_values(["year", "id"], kind="stable")
        out[name] = fit_log_linear(rows["year"].to_numpy(),
                                   rows["hardware_acquisition_cost_usd"].to_numpy(float) * deflator("2024-12"),
                                   labels=rows["model"].tolist(), method=ACQUISITION,
                                   subset=f"frontier models, {ACQUISITION_WORDS}, {name}")
    return out
