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
from explorer.text import label, money, money_in

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
        than the interval); ``matched_id``: for an off figure, the id of the
        other row of its model that it matches ("" if none).
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
                   flagged=False, verdict="", bases=[], holds_on=[], matched_id="")
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
                rec["matched_id"] = m["id"]
                verdict += (f"; matches {m['estimate']} dated {m['date']} (${m['cost_usd']:,.0f}, "
                            f"id {m['id']}) instead")
        rec["verdict"] = verdict
        out.append(rec)
    return pd.DataFrame(out)


def render_report(as_json: bool = False, method: str | None = None, language: str = "en") -> str:
    """Report of the trend fit and the claims check.

    Parameters
    ----------
    as_json : bool
        Return the fit numbers as JSON (see :meth:`TrendFit.as_dict`); keys in English whatever ``language``.
    method : {"amortized", "cloud", "developer"}, optional
        Cost method of the fit; default ``"amortized"`` (frontier models).
    language : {"en", "zh"}
        Language of the text report: headings, row names and units from ``labels.csv`` (keys ``history:*``),
        amounts in 万/亿 in Chinese (:func:`explorer.text.money_in`), the article's claims in their Chinese text.
        Model names, ids and the titles of the cited sources stay as published.

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
    if language == "zh":
        return _render_zh(method, fit)

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


def _zh(key: str, **values: object) -> str:
    """The Chinese label ``history:<key>`` of labels.csv, formatted with ``values``."""
    return label(f"history:{key}", "zh").format(**values)


def _year_zh(y: float) -> str:
    return f"{y:.1f}" if math.isfinite(y) else _zh("never")


def _subset_zh(subset: str) -> str:
    """The subset of :func:`explorer.history.trend.select_points` (English words) in Chinese."""
    words = []
    if subset.startswith("frontier models"):
        words.append(_zh("subset_frontier"))
    words.append(_zh("subset_final"))
    words += [_zh(f"method:{m}") for m, text in METHODS.items() if text in subset][:1]
    if "(all models:" in subset:
        words.append(_zh("subset_all_models"))
    years = subset.rsplit(", ", 1)[-1]
    if years[:1].isdigit():
        words.append(years)
    return "，".join(words)


def _ratio_zh(ratio: float) -> str:
    off = ratio if ratio >= 1 else 1 / ratio
    times = f"{off:.0f}" if off >= 10 else f"{off:.1f}"
    return _zh("too_high" if ratio >= 1 else "too_low", times=times)


def _render_zh(method: str, fit: TrendFit) -> str:
    """:func:`render_report` in Chinese (the same lines as the English report, in the same order)."""
    hist = history_table()
    by_id = hist.set_index("id")
    ci = f"{fit.ci_level:.0%}"
    lo, hi = fit.growth_ci
    dlo, dhi = fit.doubling_months_ci
    periods = fit_periods(method)
    subset = _subset_zh(fit.subset)
    lines = [
        _zh("title"),
        _zh("data", n=len(hist), dollar_year=fit.dollar_year, reference=EPOCH_REFERENCE),
        "",
        _zh("fit", subset=subset),
        "     " + _zh("fit_points", n=fit.n_points, first=f"{fit.year.min():.1f}", last=f"{fit.year.max():.1f}",
                      ci=ci, n_boot=fit.boot_slope_log10_per_year.size),
        "  " + _zh("growth", g=f"{fit.growth_per_year:.2f}", ci=ci, lo=f"{lo:.2f}", hi=f"{hi:.2f}"),
        "  " + _zh("doubling", d=f"{fit.doubling_months:.1f}", ci=ci, lo=f"{dlo:.1f}", hi=f"{dhi:.1f}"),
        "  " + _zh("by_period"),
    ]
    for name, f in periods.items():
        plo, phi = f.growth_ci
        lines.append("    " + _zh("period", period=name, g=f"{f.growth_per_year:.2f}", ci=f"{f.ci_level:.0%}",
                                  lo=f"{plo:.2f}", hi=f"{phi:.2f}", n=f.n_points))
    ep = fit.as_dict()["epoch"]
    inside = periods["2016-2023"].epoch_comparison()["inside"]
    lines.append("  " + _zh("epoch", reference=ep["reference"], g=ep["epoch_growth_per_year"], lo=ep["epoch_ci90"][0],
                            hi=ep["epoch_ci90"][1], where=_zh("inside" if inside else "outside")))
    if method != "amortized":
        lines.append("  " + _zh("epoch_other_method"))
    lines.append("  " + _zh("crosses"))
    for c in fit.crossings:
        lines.append(f"    {money_in(c.cost_usd, language='zh'):>8}  " + _zh(
            "crossing", year=_year_zh(c.year), ci=ci, lo=_year_zh(c.lo), hi=_year_zh(c.hi)))
    lines.append("  " + _zh("scatter"))
    lines.append("  " + _zh("sensitivity"))
    for key, kw in (("from_2020", dict(start_year=2020.0)), ("all_models", dict(frontier_only=False))):
        try:
            alt = fit_trend(method, **kw)
        except ValueError:
            continue
        alo, ahi = alt.growth_ci
        lines.append("    " + _zh("sensitivity_row", subset=_zh(key), g=f"{alt.growth_per_year:.2f}",
                                  lo=f"{alo:.2f}", hi=f"{ahi:.2f}", n=alt.n_points))
    lines += ["", _zh("points", subset=subset), "  " + _zh("points_head")]
    rows, _ = select_points(method)
    for _, r in rows.iterrows():
        lines.append(f"  {r['date']:<8} {r['model'][:28]:<28} {money_in(r['cost_usd_target'], language='zh'):>12}  "
                     f"{_estimate_zh(r['estimate'])}")

    scope_keys = {text: key for key, text in SCOPES.items()}
    lines += ["", _zh("claims")]
    for _, c in check_dated_costs().iterrows():
        year = _zh("now") if pd.isna(c["year"]) else f"{c['year']:.0f}"
        lines.append(f"  [{_zh('flagged' if c['flagged'] else 'consistent_mark')}] {year:<4} {c['claim_zh']}")
        if c["kind"] == "figure" and c["sourced_id"]:
            lines.append("       " + _zh("claim_figure", model=c["model"], method=_zh(f"method:{c['method']}"),
                                         scope=_zh(f"scope:{scope_keys[c['scope']]}"),
                                         claimed=money_in(c["claimed_usd"], language="zh"),
                                         sourced=money_in(c["sourced_usd"], language="zh"),
                                         id=c["sourced_id"], ratio=f"{c['ratio']:.2f}"))
        lines.append("       → " + _verdict_zh(c, by_id))
    return "\n".join(lines)


def _estimate_zh(estimate: str) -> str:
    """An estimate's name (history.csv ``estimate``) in Chinese; a source's title (AI Index 2024) as published."""
    return label(f"history:estimate:{estimate}", "zh")


def _verdict_zh(c: pd.Series, by_id: pd.DataFrame) -> str:
    """The verdict of one claim of :func:`check_dated_costs` in Chinese."""
    if c["kind"] == "forecast":
        parts = []
        for b in c["bases"]:
            words = _zh("method:acquisition") if b["method"] == ACQUISITION else _zh(f"method:{b['method']}")
            parts.append(_zh("forecast_basis", basis=words, period=b["period"],
                             amount=money_in(c["claimed_usd"], language="zh"), year=_year_zh(b["year"]),
                             lo=_year_zh(b["lo"]), hi=_year_zh(b["hi"]), by=f"{c['year']:.0f}",
                             when=_zh("when:" + b["when"].replace(" ", "_"))))
        return "；".join(parts)
    if not c["sourced_id"]:
        return _zh("no_sourced_value")
    row = by_id.loc[c["sourced_id"]]
    est, date = _estimate_zh(row["estimate"]), row["date"]
    off = max(c["ratio"], 1 / c["ratio"])
    if off <= CONSISTENT_FACTOR:
        return _zh("verdict_consistent", estimate=est, date=date)
    key = "verdict_roughly" if off <= FLAG_FACTOR else "verdict_off"
    text = _zh(key, ratio=_ratio_zh(c["ratio"]), estimate=est, date=date)
    if c["matched_id"]:
        m = by_id.loc[c["matched_id"]]
        text += _zh("verdict_matches", estimate=_estimate_zh(m["estimate"]), date=m["date"],
                    amount=money_in(float(m["cost_usd"]), language="zh"), id=c["matched_id"])
    return text
