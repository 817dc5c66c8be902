"""The article's dated cost figures checked against the sourced data, and the report of ``python -m explorer history``.

:func:`check_dated_costs` compares each figure of ``article_claims.csv`` with ``history.csv`` and judges each
forecast on every cost basis of :mod:`explorer.history.trend`; :func:`render_report` prints the fit and the
check. :mod:`explorer.history` exports both.
"""

from __future__ import annotations

import json
import math
from typing import Mapping

import numpy as np
import pandas as pd

from explorer.history.trend import (
    ACQUISITION,
    ACQUISITION_WORDS,
    EPOCH_REFERENCE,
    METHODS,
    SCOPES,
    SELECTION_RULE,
    TrendFit,
    check_method,
    claims_table,
    history_table,
    fit_acquisition_periods,
    fit_periods,
    fit_trend,
    fittable_methods,
    select_points,
)
from explorer.errors import ScenarioError
from explorer.messages import Message
from explorer.text import money

#: Claims check: a claimed figure within this factor of the sourced one is
#: "consistent"; beyond FLAG_FACTOR it is flagged.
CONSISTENT_FACTOR = 1.25
FLAG_FACTOR = 2.0


def _ratio_words(ratio: float) -> str:
    if ratio >= 1:
        return f"{ratio:.0f}x too high" if ratio >= 10 else f"{ratio:.1f}x too high"
    inv = 1 / ratio
    return f"{inv:.0f}x too low" if inv >= 10 else f"{inv:.1f}x too low"


def _fmt_year(y: float) -> str:
    return f"{y:.1f}" if math.isfinite(y) else "never"


def check_dated_costs(fits: Mapping[str, TrendFit] | None = None) -> pd.DataFrame:
    """Compare the article's dated figures with the sourced data.

    Each ``figure`` claim is compared with the row of ``history.csv`` for
    its model and method whose date is nearest the claimed year, in that
    row's own dollars (the article quotes nominal figures). If the figure is
    off, other rows of the same model are searched for one it does match.
    Each ``forecast`` claim is judged on every cost basis: the year the
    fitted trend crosses the claimed cost, for its method over each of
    :data:`PERIODS` (2016-2023, 2016-2025), on the cloud-price trend (its own
    series) and on Epoch AI's hardware-acquisition cost
    (:func:`fit_acquisition_periods`). "By 2027" means by the end of 2027
    (decimal year 2028.0): it holds on a basis when that is not earlier than
    the basis's 90% interval. It is ``flagged`` when it is earlier than the
    90% interval of every period of the claim's own method.

    Parameters
    ----------
    fits : mapping of str to TrendFit, optional
        A fit per method to use instead (one basis per method); default
        :func:`fit_periods` for the claim's method and for the cloud price.

    Returns
    -------
    pandas.DataFrame
        One row per claim: ``id, kind, year, claim_zh, claim_en, model,
        method, claimed_usd, sourced_usd, sourced_id, sourced_date, scope,
        ratio`` (claimed / sourced), ``flagged`` (off by more than
        FLAG_FACTOR, or forecast earlier than the trend's interval),
        ``verdict``, ``source``; for forecasts ``bases`` (one dict per basis:
        ``basis``, ``method``, ``period``, ``year``, ``lo``, ``hi``, ``when``)
        and ``holds_on`` (the bases on which the claimed year is not earlier
        than the interval).
    """
    hist = history_table()
    given = dict(fits or {})
    cache: dict = {}

    def bases_of(method: str) -> dict:
        if method in given:
            return {f"{METHODS[method]} ({given[method].subset.rsplit(', ', 1)[-1]})": (method, given[method])}
        if method not in cache:
            cache[method] = fit_periods(method)
        return {f"{METHODS[method]}, {period}": (method, f) for period, f in cache[method].items()}
    out = []
    for _, cl in claims_table().iterrows():
        rec = {k: cl[k] for k in ("id", "kind", "year", "claim_zh", "claim_en", "model", "method",
                                  "claimed_usd", "source")}
        rec.update(sourced_usd=np.nan, sourced_id="", sourced_date="", scope="", ratio=np.nan,
                   flagged=False, verdict="", bases=[], holds_on=[])
        claimed = float(cl["claimed_usd"])
        if cl["kind"] == "forecast":
            method = check_method(cl["method"])
            by = float(cl["year"])
            bases = bases_of(method)
            if method != "cloud" and "cloud" in fittable_methods():
                bases.update(bases_of("cloud"))
            if not given:
                bases.update({f"{ACQUISITION_WORDS}, {period}": (ACQUISITION, f)
                              for period, f in fit_acquisition_periods().items()})
            by_end = by + 1.0  # "by 2027": before the end of 2027
            parts = []
            for name, (m, fit) in bases.items():
                cr = fit.crossing(claimed)
                when = "earlier than" if by_end < cr.lo else "later than" if by_end > cr.hi else "within"
                period = fit.subset.rsplit(", ", 1)[-1]
                rec["bases"].append(dict(basis=name, method=m, period=period, year=cr.year, lo=cr.lo, hi=cr.hi,
                                         when=when))
                if by_end >= cr.lo:
                    rec["holds_on"].append(name)
                parts.append(f"{name}: {money(claimed)} in {_fmt_year(cr.year)} ({fit.ci_level:.0%}: "
                             f"{_fmt_year(cr.lo)}-{_fmt_year(cr.hi)}), 'by {by:.0f}' is {when} that interval")
            own = [b for b in rec["bases"] if b["method"] == method]
            rec["flagged"] = all(b["when"] == "earlier than" for b in own)
            rec["verdict"] = "; ".join(parts)
            out.append(rec)
            continue
        same = hist[(hist["model"] == cl["model"]) & (hist["method"] == cl["method"])]
        if same.empty:
            rec["verdict"] = "no sourced value for this model and method"
            rec["flagged"] = True
            out.append(rec)
            continue
        if pd.notna(cl["year"]):
            row = same.iloc[int(np.argmin(np.abs(same["year"].to_numpy() - (float(cl["year"]) + 0.5))))]
        else:
            row = same.iloc[0]
        ratio = claimed / float(row["cost_usd"])
        rec.update(sourced_usd=float(row["cost_usd"]), sourced_id=row["id"], sourced_date=row["date"],
                   scope=SCOPES[row["scope"]], ratio=ratio)
        off = max(ratio, 1 / ratio)
        if off <= CONSISTENT_FACTOR:
            verdict = f"consistent with {row['estimate']} ({row['date']})"
        elif off <= FLAG_FACTOR:
            verdict = f"roughly: {_ratio_words(ratio)} vs {row['estimate']} ({row['date']})"
        else:
            rec["flagged"] = True
            verdict = f"OFF: {_ratio_words(ratio)} vs {row['estimate']} ({row['date']})"
            others = hist[(hist["model"] == cl["model"]) & (hist["id"] != row["id"])]
            r2 = claimed / others["cost_usd"]
            match = others[(r2 <= CONSISTENT_FACTOR) & (r2 >= 1 / CONSISTENT_FACTOR)]
            if not match.empty:
                m = match.iloc[0]
                verdict += (f"; matches {m['estimate']} dated {m['date']} (${m['cost_usd']:,.0f}, "
                            f"id {m['id']}) instead")
        rec["verdict"] = verdict
        out.append(rec)
    return pd.DataFrame(out)


def render_report(as_json: bool = False, method: str | None = None) -> str:
    """Report of the trend fit and the claims check.

    Parameters
    ----------
    as_json : bool
        Return the fit numbers as JSON (see :meth:`TrendFit.as_dict`).
    method : {"amortized", "cloud", "developer"}, optional
        Cost method of the fit; default ``"amortized"`` (frontier models).

    Returns
    -------
    str

    Raises
    ------
    explorer.errors.ScenarioError
        For an unknown method.
    """
    method = check_method(method)
    if method not in fittable_methods():
        raise ScenarioError("method", method, Message("allowed_choices", choices=list(fittable_methods()),
                                               field="history_method"))
    fit = fit_trend(method)
    if as_json:
        out = fit.as_dict()
        out["selection_rule"] = SELECTION_RULE
        out["periods"] = {name: {k: f.as_dict()[k] for k in ("growth_per_year", "growth_ci90", "n_points", "years")}
                          for name, f in fit_periods(method).items()}
        return json.dumps(out, ensure_ascii=False, indent=2)

    d = fit.as_dict()
    ep = d["epoch"]
    lo, hi = fit.growth_ci
    dlo, dhi = fit.doubling_months_ci
    periods = fit_periods(method)
    lines = [
        "Training cost of notable AI models: historical trend",
        f"Data: {SELECTION_RULE}, explorer/data/epoch_frontier.csv (Epoch AI, training-cost-trends, CC BY 4.0; "
        f"{EPOCH_REFERENCE}), plus explorer/data/history.csv (AI Index 2024 and developer figures, not fitted); "
        f"{len(history_table())} estimates; costs in {fit.dollar_year} USD (US PPI PCU518210518210, the deflator Epoch AI uses).",
        "",
        f"Fit: log10(cost) linear in date, {fit.subset}",
        f"     {fit.n_points} points, {fit.year.min():.1f}-{fit.year.max():.1f}; "
        f"{fit.ci_level:.0%} intervals from {fit.boot_slope_log10_per_year.size} bootstrap resamples over points",
        f"  growth per year  {fit.growth_per_year:.2f}x   ({fit.ci_level:.0%}: {lo:.2f}-{hi:.2f}x)",
        f"  doubling time    {fit.doubling_months:.1f} months ({fit.ci_level:.0%}: {dlo:.1f}-{dhi:.1f})",
        "  By period:",
    ]
    for name, f in periods.items():
        plo, phi = f.growth_ci
        lines.append(f"    {name}  {f.growth_per_year:.2f}x/yr ({f.ci_level:.0%}: {plo:.2f}-{phi:.2f}x), n={f.n_points}")
    paper = periods["2016-2023"]
    lines.append(
        f"  Epoch AI ({ep['reference']}), 2016-2023: {ep['epoch_growth_per_year']}x/yr, 90% CI "
        f"{ep['epoch_ci90'][0]}-{ep['epoch_ci90'][1]}x -> the 2016-2023 fit here is "
        + ("INSIDE" if paper.epoch_comparison()["inside"] else "OUTSIDE") + " that interval")
    if method != "amortized":
        lines.append("  (Epoch's figure is for the amortized method; other methods are not directly comparable.)")
    lines.append("  Trend crosses:")
    for c in fit.crossings:
        lines.append(f"    {money(c.cost_usd):>6}  in {_fmt_year(c.year)}  ({fit.ci_level:.0%}: "
                     f"{_fmt_year(c.lo)}-{_fmt_year(c.hi)})")
    lines.append("  (intervals are for the trend line; single models scatter ~3x either side of it)")
    lines.append("  Sensitivity of the growth per year to the subset:")
    for words, kw in (("from 2020 only", dict(start_year=2020.0)),
                      ("all models, not only frontier", dict(frontier_only=False))):
        try:
            alt = fit_trend(method, **kw)
        except ValueError:
            continue
        alo, ahi = alt.growth_ci
        lines.append(f"    {words:<44} {alt.growth_per_year:.2f}x ({alo:.2f}-{ahi:.2f}), n={alt.n_points}")
    lines += ["", f"Points fitted ({fit.subset}):", f"  {'date':<8} {'model':<28} {'cost':>9}  estimate"]
    rows, _ = select_points(method)
    for _, r in rows.iterrows():
        lines.append(f"  {r['date']:<8} {r['model'][:28]:<28} {money(r['cost_usd_target']):>9}  {r['estimate']}")

    claims = check_dated_costs()
    lines += ["", "Article claims check (《大模型训练成本全维度拆解与优化指南》, section 二), compared in the source's own dollars:"]
    for _, c in claims.iterrows():
        year = "now" if pd.isna(c["year"]) else f"{c['year']:.0f}"
        mark = "!!" if c["flagged"] else "ok"
        lines.append(f"  [{mark}] {year:<4} {c['claim_en']}")
        lines.append(f"       {c['claim_zh']}")
        if c["kind"] == "figure" and c["sourced_id"]:
            lines.append(f"       model {c['model']} ({METHODS[c['method']]}, {c['scope']}): claimed "
                         f"{money(c['claimed_usd'])}, sourced {money(c['sourced_usd'])} "
                         f"[{c['sourced_id']}], ratio {c['ratio']:.2f}")
        lines.append(f"       -> {c['verdict']}")
    return "\n".join(lines)
