"""HTML views of an estimate: KPI cards, summary, warnings, assumptions, sharing, glossary, session notice.

Everything here speaks the viewer's language: labels come from
``explorer/data/labels.csv``, and the model's warnings and errors (ids with
parameters, :mod:`explorer.messages`) are rendered from ``explorer/data/messages.csv``.
"""

from __future__ import annotations

import html
import json
import math

from explorer import catalog, prices
from explorer.errors import ScenarioError
from explorer.messages import render
from explorer.model import Estimate
from explorer.model.checks import people_largest
from explorer.text import count_in, label, labels, money_in, quantity

__all__ = ["region_note_html", "kpi_html", "summary_text", "warnings_html", "assumptions_html", "share_html", "glossary_html",
           "session_html", "translate", "error_text", "STYLE", "APP_MAX_WIDTH_PX", "HEARTBEAT_SECONDS",
           "SESSION_TIMEOUT_SECONDS", "banner_html", "BANNER_LINES_MAX"]

#: How often the page pings the kernel, and how long without an answer before the session counts as ended [s].
HEARTBEAT_SECONDS = 4
SESSION_TIMEOUT_SECONDS = 20

#: CSS for the app, injected once. The body stacks below 900 px; charts are laid out for their box's width
#: (explorer/app/responsive.py) and scale down only while that is on its way. ipympl's top canvas (rubber band and
#: resize handle) is hidden: the charts take no mouse input.
#: The widest the app grows [CSS px]: a 2,560 px screen is used whole (the page was capped at 1,320 px until issue 41,
#: leaving 585 px of a 1,920 px screen blank); past it the lines of the summary would grow too long to read.
APP_MAX_WIDTH_PX = 2560

STYLE = """
<style>
.explorer-app {box-sizing:border-box; max-width:100%; overflow-x:hidden;}
.explorer-body {display:flex; flex-flow:row wrap; width:100%; gap:0 14px;}
.explorer-left {flex:0 1 390px; min-width:0; max-width:100%;}
.explorer-right {flex:1 1 480px; min-width:0; max-width:100%;}
.explorer-header {display:flex; flex-flow:row wrap; gap:0 10px; width:100%;}
.explorer-header > .widget-vbox {width:auto !important; flex:1 1 150px;}
@media (max-width: 900px) { .explorer-left, .explorer-right {flex:1 1 100%;}
  /* on a phone the result comes first: the refusal banner and the KPIs above the controls, the rest below */
  .explorer-right {display:contents !important;}
  .explorer-right > * {order:1; flex:1 1 100%; min-width:0; max-width:100%;}
  .explorer-right > .explorer-banner-box {order:-2;} .explorer-right > .explorer-kpis-box {order:-1;}
  .explorer-left {order:0;} }
.explorer-app .widget-tab, .explorer-app .jupyter-widget-Collapse, .explorer-app .widget-accordion {max-width:100%; min-width:0;}
.explorer-app .lm-TabBar-content {flex-wrap:wrap;}
.explorer-app .lm-TabBar, .explorer-app .widget-tab > .lm-TabBar {min-height:var(--jp-widgets-horizontal-tab-height, 24px); height:auto !important; overflow:visible;}
.explorer-app .lm-TabBar-tab {min-width:fit-content !important; flex:1 1 auto !important; padding:0 8px;}
.explorer-app .jupyter-matplotlib, .explorer-app .jupyter-matplotlib-figure,
.explorer-app .jupyter-matplotlib-canvas-container, .explorer-app .jupyter-matplotlib-canvas-div
  {width:100% !important; max-width:100% !important; min-width:0 !important; height:auto !important;}
.explorer-app .jupyter-matplotlib-canvas-div {position:relative;}
.explorer-app .jupyter-matplotlib-canvas-div canvas:first-child
  {position:relative !important; display:block; max-width:100% !important; height:auto !important;}
.explorer-app .jupyter-matplotlib-canvas-div canvas:not(:first-child) {display:none !important;}
.explorer-app .widget-text input, .explorer-app .widget-hbox {min-width:0;}
.explorer-app .widget-text {max-width:calc(100% - 6px);}
.explorer-app .widget-toggle-buttons {flex-wrap:wrap; max-width:100%;}
.explorer-kpis {display:flex; flex-wrap:wrap; gap:8px; margin:4px 0 6px 0;}
.explorer-kpi {border:1px solid #d5d8dc; border-radius:6px; padding:6px 10px; min-width:96px; background:#fbfcfc;}
@media (min-width: 1200px) { /* a desktop: the cards share one row */
  .explorer-kpis {flex-wrap:nowrap;} .explorer-kpi {flex:1 1 auto; min-width:0; padding:5px 8px;}
  .explorer-kpi .v {white-space:nowrap;} }
@media (min-width: 1600px) { .explorer-left {flex-basis:440px;} }
.explorer-kpi .v {font-size:19px; font-weight:600; color:#1b2631; line-height:1.25;}
.explorer-kpi .k {font-size:11.5px; color:#566573;}
.explorer-kpi.total .v {color:#0b5394; font-size:22px;}
.explorer-kpi .est {font-size:11px; color:#a04000; font-weight:600;}
.explorer-kpi .range {font-size:11.5px; color:#1b4f72;}
.explorer-compare, .explorer-recipe {overflow-x:auto; max-width:100%;}
.explorer-compare table, .explorer-recipe table {border-collapse:collapse; font-size:12px; margin:4px 0;}
.explorer-compare th, .explorer-compare td, .explorer-recipe th, .explorer-recipe td
  {border-bottom:1px solid #e5e8e8; padding:3px 8px; text-align:right; vertical-align:top; line-height:1.3;}
.explorer-compare td, .explorer-recipe td.num {white-space:nowrap;}
.explorer-compare tr.desc td {white-space:normal;}
.explorer-app .explorer-analysis-html {width:100%; min-width:0;}
.explorer-app .explorer-analysis-html > .widget-html-content, .explorer-app .explorer-analysis-html > .jupyter-widget-html-content
  {min-width:0; max-width:100%; line-height:1.4;}
@media (max-width: 600px) { .explorer-compare table, .explorer-recipe table {font-size:11px;}
  .explorer-compare th, .explorer-compare td, .explorer-recipe th, .explorer-recipe td {padding:2px 4px;} }
.explorer-compare th:first-child, .explorer-recipe td:first-child, .explorer-recipe th:first-child {text-align:left;}
/* row labels on one line (with four slots they wrapped to 3-6 lines); the Models table's load and model columns stay
   in view while the rest scrolls */
.explorer-compare:not(.explorer-models-table) th:first-child {white-space:nowrap;}
.explorer-models-table td:nth-child(-n+2), .explorer-models-table th:nth-child(-n+2)
  {position:sticky; background:#fff; z-index:1;}
.explorer-models-table td:first-child, .explorer-models-table th:first-child {left:0;}
.explorer-models-table td:nth-child(2), .explorer-models-table th:nth-child(2) {left:var(--explorer-load-width, 52px);}
.explorer-compare tr.desc td {font-size:11px; color:#566573; text-align:left; min-width:110px;}
.explorer-compare tr.total td {font-weight:600;}
.explorer-swatch {display:inline-block; width:10px; height:10px; margin-right:4px; border-radius:2px;}
.explorer-recipe h4 {margin:8px 0 2px 0; font-size:13px;}
.explorer-recipe td.verdict.ok {color:#1e8449;} .explorer-recipe td.verdict.less {color:#a04000;}
.explorer-recipe td.verdict.more {color:#1b4f72;} .explorer-recipe td.verdict.na {color:#566573;}
.explorer-recipe td.verdict, .explorer-recipe th.verdict {text-align:left;}
.explorer-budget {font-size:13.5px; margin:4px 0;}
.explorer-budget.within b {color:#1e8449;} .explorer-budget.over b {color:#a04000;} .explorer-budget.review b {color:#c0392b;}
.explorer-budget-row {flex-wrap:wrap; gap:4px 12px; width:100%;}
.explorer-app .explorer-budget-row .widget-text {width:auto !important; min-width:0; max-width:100%; flex:1 1 260px;}
.explorer-app .explorer-budget-row .widget-text input {min-width:60px;}
.explorer-app .explorer-budget-row .widget-text label {white-space:normal; flex-shrink:1;}
.explorer-slot-row {flex-wrap:wrap; gap:4px 8px; align-items:center;}
@media (max-width: 600px) {
  /* the analysis charts keep a readable size on a phone and scroll sideways inside their tab */
  .explorer-app .explorer-chart-scroll {overflow-x:auto; max-width:100%;}
  .explorer-app .explorer-chart-scroll > .explorer-chart,
  .explorer-app .explorer-chart-scroll > .explorer-chart .jupyter-matplotlib-figure,
  .explorer-app .explorer-chart-scroll > .explorer-chart .jupyter-matplotlib-canvas-container,
  .explorer-app .explorer-chart-scroll > .explorer-chart .jupyter-matplotlib-canvas-div
    {min-width:600px !important; width:600px !important;}
  .explorer-app .explorer-history-tab.explorer-chart-scroll > .explorer-chart,
  .explorer-app .explorer-history-tab.explorer-chart-scroll > .explorer-chart .jupyter-matplotlib-figure,
  .explorer-app .explorer-history-tab.explorer-chart-scroll > .explorer-chart .jupyter-matplotlib-canvas-container,
  .explorer-app .explorer-history-tab.explorer-chart-scroll > .explorer-chart .jupyter-matplotlib-canvas-div
    {min-width:858px !important; width:858px !important;}
}
.explorer-warnings {background:#fef5e7; border-left:4px solid #e67e22; padding:4px 10px; margin:4px 0; font-size:12.5px;}
.explorer-warnings ul {margin:2px 0 2px 16px; padding:0;}
.explorer-message {color:#a93226; font-size:12px; line-height:1.3;}
.explorer-banner {background:#fdedec; border-left:4px solid #c0392b; padding:4px 10px; font-size:12.5px;}
.explorer-summary {font-size:13.5px; line-height:1.45; color:#1b2631; margin:2px 0 4px 0;}
.explorer-note {font-size:11.5px; color:#566573; line-height:1.35;}
.explorer-kept {gap:2px 8px; margin:0 0 6px 0;} .explorer-kept .widget-html-content {line-height:1.35;}
.explorer-kept .widget-button {flex:0 0 auto;}
.explorer-tip {text-decoration:none; cursor:help;}
.explorer-app a.explorer-download, .explorer-app .explorer-share a {color:#0b5394; text-decoration:underline; margin-right:14px;}
.explorer-share-url {width:100%; max-width:640px; font-family:monospace; font-size:12px; padding:3px;}
.explorer-assumptions {overflow-x:auto; max-width:100%;}
.explorer-assumptions table {border-collapse:collapse; font-size:12px;}
.explorer-assumptions td, .explorer-assumptions th {border-bottom:1px solid #e5e8e8; padding:3px 6px; text-align:left; vertical-align:top;}
.explorer-assumptions td.src {color:#566573; max-width:520px;}
@media (max-width: 600px) {
  /* on a phone each assumption is a card: name, value and unit on a line, its source below (not in a
     fourth column off the screen) */
  .explorer-assumptions table, .explorer-assumptions tbody, .explorer-assumptions tr {display:block; width:100%;}
  .explorer-assumptions tr:first-child {display:none;}
  .explorer-assumptions tr {border-bottom:1px solid #e5e8e8; padding:4px 0;}
  .explorer-assumptions td {display:inline; border:none; padding:0 6px 0 0; overflow-wrap:anywhere;}
  .explorer-assumptions td:first-child {font-weight:600;}
  .explorer-assumptions td.src {display:block; max-width:none; padding:2px 0 0 0; font-size:11px; line-height:1.35;
                                overflow-wrap:anywhere;}
}
.explorer-glossary dt {font-weight:600; font-size:12.5px; margin-top:6px;}
.explorer-glossary dd {margin:0 0 0 12px; font-size:12.5px; color:#333;}
.explorer-session-ended {display:none; position:fixed; top:0; left:0; right:0; z-index:10000; background:#7b241c;
  color:white; padding:12px 16px; font-size:14px; box-shadow:0 2px 8px rgba(0,0,0,.3);}
.explorer-session-ended button {margin-left:12px; font-size:14px; padding:4px 14px; cursor:pointer;}
</style>
"""


def scroll_hint_css() -> str:
    """CSS that writes a hint above the charts that scroll sideways on a phone, in the app's language.

    The words come from ``labels.csv`` (``scroll_hint``); the app's root carries
    ``explorer-lang-zh`` while it is in Chinese.
    """
    def text(lang: str) -> str:
        return label("scroll_hint", lang).replace("\\", "").replace('"', "'")

    return ("<style>@media (max-width: 600px) {"
            ".explorer-app .explorer-history-tab.explorer-chart-scroll {flex-wrap:wrap;}"  # a row: the hint on its own line
            ".explorer-app .explorer-chart-scroll::before {content:\"" + text("en") + "\"; position:sticky; left:0;"
            " display:block; flex:0 0 auto; white-space:nowrap; width:max-content; max-width:calc(100vw - 40px); font-size:11.5px; color:#1b4f72;"
            " background:#eaf2f8; border-radius:4px; padding:2px 8px; margin:2px 0 4px 0;}"
            ".explorer-app.explorer-lang-zh .explorer-chart-scroll::before {content:\"" + text("zh") + "\";}"
            "}</style>")


# ---------------------------------------------------------------------------------------------- messages
def _term(text: str, language: str) -> str:
    """A word of an assumption in ``language`` (``term:<text>`` in labels.csv), else a field's label, else as is."""
    for key in (f"term:{text}", text):
        if key in labels():
            return label(key, language)
    return text


def translate(message: object, language: str = "en", currency: tuple[str, float] = ("USD", 1.0)) -> str:
    """A model warning or error in ``language``, rendered from its id (:mod:`explorer.messages`).

    ``message`` is a :class:`~explorer.messages.Message` or a
    :class:`~explorer.errors.ScenarioError`; other text has no id and shows as it is. ``currency``: the page's
    (ISO code, units per US dollar); amounts the message holds in dollars are shown in it.

    Examples
    --------
    >>> from explorer.messages import Message
    >>> translate(Message("mfu_outside_range", mfu=0.9, lo=0.15, hi=0.55), "zh")
    'MFU 0.90 超出公开训练中见过的范围（0.15–0.55）。'
    """
    return render(message, language, currency=currency)


def page_currency(e: Estimate) -> tuple[str, float]:
    """The currency ``e`` is shown in and its units per US dollar, as :func:`translate` takes them."""
    return e.scenario.currency, e.usd_to_currency


def error_text(exc: ScenarioError, language: str = "en") -> str:
    """A refused value in words, naming the control by its label (not the field name), numbers as the boxes show them.

    >>> from explorer import Scenario
    >>> try:
    ...     Scenario(params=250000.0)
    ... except ScenarioError as exc:
    ...     print(error_text(exc))
    ...     print(error_text(exc, "zh"))
    Model size [parameters]: 250,000 is not allowed; allowed: a number in [1M, 100T]
    模型规模 [参数量]：25万不可用；允许：[100万, 100万亿] 内的数
    """
    return exc.render(language)


#: The banner names at most this many refused values (the last line says how many more, each beside its box).
BANNER_LINES_MAX = 6


def banner_html(texts: list[str], language: str = "en") -> str:
    """The app's banner of values not applied: one line per refusal, at most :data:`BANNER_LINES_MAX`.

    Parameters
    ----------
    texts : list of str
        The refusals in words (:func:`error_text`, :func:`translate`), the first the one beside its control.
    language : {"en", "zh"}

    Returns
    -------
    str
        Escaped HTML; a link can refuse about 50 values at once: past the limit the last line says how many more
        there are (each is named beside its box).
    """
    if len(texts) > BANNER_LINES_MAX:
        texts = [*texts[:BANNER_LINES_MAX - 1],
                 label("input_error_more", language).format(n=len(texts) - BANNER_LINES_MAX + 1)]
    colon = "：" if language == "zh" else ": "
    return (f'<div class="explorer-banner"><b>{html.escape(label("input_error", language))}{colon}</b>'
            + "<br>".join(map(html.escape, texts)) + "</div>")


def unit_text(unit: str, language: str = "en") -> str:
    """A unit in ``language`` (``term:<unit>`` of labels.csv): ``USD/GPU-hour`` -> ``美元/GPU 时``."""
    return unit if language == "en" else _term(unit, language)


def region_name(name: str, language: str = "en") -> str:
    """A region or country name in ``language`` (``term:<name>`` of labels.csv)."""
    return name if language == "en" else _term(name, language)


# ---------------------------------------------------------------------------------------------- views
def _num(x: float) -> str:
    """A KPI number: compact, "unknown" for NaN, "∞" for infinity."""
    return quantity(x)


def _total(e: Estimate, scope: str) -> float:
    """The total of ``scope`` ("project" or "run") in the scenario's currency."""
    return e.cost()["total"] if scope == "project" else e.final_run_usd * e.usd_to_currency


def kpi_html(e: Estimate, language: str = "en", scope: str = "project",
             interval: tuple[float, float] | None = None) -> str:
    """The KPI cards: total (of the project or the final run), days, GPUs, GPU-hours, MWh, tCO2, cost per 1M tokens.

    ``interval``: the 90% range (P5, P95) of the total [currency], shown under it.
    """
    cur = e.scenario.currency
    fx = e.usd_to_currency
    total = _total(e, scope)
    unknown = label("unit_unknown", language)
    est = (f'<div class="est">≈ {html.escape(label("kpi_estimate", language))}</div>'
           if e.estimated and math.isfinite(total) else "")
    if interval is not None and all(math.isfinite(v) for v in interval):
        est = (f'<div class="range">{html.escape(label("kpi_range90", language))}{"：" if language == "zh" else ": "}'
               f"{html.escape(money_in(interval[0], cur, language, symbol=True))} – {html.escape(money_in(interval[1], cur, language, symbol=True))}</div>") + est
    if not e.feasible:  # a run that cannot happen has no cost: say so where the total would be
        est = f'<div class="range">{html.escape(label("chart_infeasible", language))}</div>'
    cards = [
        ("total", label(f"kpi_total_{scope}", language),
         money_in(total, cur, language, symbol=True).replace("unknown", unknown) if e.feasible else label("kpi_infeasible", language), est),
        ("", label("kpi_days", language), f"{count_in(e.wall_days, language)} {label('unit_days', language)}", ""),
        ("", label("kpi_gpus", language), f"{e.gpus:,}", ""),
        ("", label("kpi_gpu_hours", language), count_in(e.gpu_hours, language), ""),
        ("", label("kpi_energy", language), f"{count_in(e.energy_mwh, language)} {label('unit_mwh', language)}",
         f'<div class="range">{html.escape(label("kpi_energy_gpu_only", language))} '
         f"{html.escape(count_in(e.energy_gpu_mwh, language))} {html.escape(label('unit_mwh', language))}</div>"),
        ("", label("kpi_co2", language), f"{count_in(e.co2_tonnes, language)} {label('unit_tco2', language)}", ""),
        ("", label("kpi_per_token", language), money_in(total / (e.scenario.tokens / 1e6), cur, language, symbol=True), ""),
    ]
    body = "".join(
        f'<div class="explorer-kpi {cls}"><div class="v">{html.escape(v.replace("unknown", unknown))}</div>'
        f'<div class="k">{html.escape(k)}</div>{extra}</div>'
        for cls, k, v, extra in cards
    )
    if fx != 1.0:
        body += (f'<div class="explorer-kpi"><div class="v">{fx:.4g}</div>'
                 f'<div class="k">{html.escape(label("kpi_fx", language))}</div></div>')
    return f'<div class="explorer-kpis">{body}</div>'


def summary_text(e: Estimate, language: str = "en", scope: str = "project") -> str:
    """One paragraph: total cost, days, GPUs, MWh, tCO2 of the estimate."""
    s = e.scenario
    cur = s.currency
    acc = catalog.accelerator(s.gpu)
    total = _total(e, scope)
    model = label(f"summary_model_{s.architecture}", language).format(
        params=count_in(s.params, language), active=count_in(s.active_params_effective, language))
    text = label(f"summary_{scope}", language).format(
        model=model,
        tokens=count_in(s.tokens, language),
        gpus=f"{e.gpus:,}",
        gpu=acc.name,
        precision=s.precision.upper(),
        pricing=pricing_words(e, language),
        days=count_in(e.wall_days, language),
        gpu_hours=count_in(e.gpu_hours, language),
        mwh=count_in(e.energy_mwh, language),
        co2=count_in(e.co2_tonnes, language),
        total=money_in(total, cur, language, symbol=True),
        per_token=money_in(total / (s.tokens / 1e6), cur, language, symbol=True),
    )
    sep = "" if language == "zh" else " "
    if s.architecture == "moe":
        defaulted = s.active_params is None and s.active_fraction is None and (s.experts is None or s.top_k is None)
        text += sep + label("summary_moe_default" if defaulted else "summary_moe", language).format(
            active=count_in(s.active_params_effective, language), params=count_in(s.params, language),
            share=_share(s.active_fraction_effective))
    if e.layout is not None:  # the parallel layout, batch and steps (issue 38)
        L = e.layout
        dp = f"{L.data_parallel:,.0f}" if float(L.data_parallel).is_integer() else f"{L.data_parallel:,.1f}"
        text += sep + label("summary_layout", language).format(
            tp=L.tensor_parallel, pp=L.pipeline_parallel, dp=dp, zero=L.zero_stage,
            recompute=label(f"term:{L.recompute}", language), batch=count_in(L.batch_tokens, language), steps=f"{L.steps:,}",
            idle=label("summary_layout_idle", language).format(idle=count_in(L.idle_gpus, language)) if L.idle_gpus else "")
    if scope == "project" and math.isfinite(total) and total > 0:  # lets a viewer test the "data is 30-40%" claim
        text += sep + label("summary_data_share", language).format(share=_share(e.cost()["data"] / total))
        text += sep + hidden_text(e, language)
        if people_largest(e.cost_usd):
            key = "summary_people_largest_default" if s.team_headcount is None else "summary_people_largest"
            text += sep + label(key, language).format(share=_share(e.cost_usd["people"] / e.cost_usd["total"]))
    if not e.feasible:
        text += sep + label("summary_infeasible", language)
    if "cloud price" in e.estimated:
        text += sep + label("summary_basis_estimated", language).format(pricing=basis_words(s, language))
    elif "cloud price (derived)" in e.estimated:
        text += sep + label("summary_basis_derived", language).format(
            pricing=basis_words(s, language), reference=catalog.accelerator(prices.REFERENCE).name)
    if s.pricing == "owned" and e.owned:
        text += sep + owned_text(e, language)
    return text.replace("unknown", label("unit_unknown", language))


def seller_words(seller: str, language: str) -> str:
    """Who sells, in words: a seller group's label, or a provider's name with the date of its newest price."""
    if seller in prices.SELLER_GROUPS:
        return label(f"seller_{seller}", language)
    return label("seller_provider", language).format(name=prices.seller_name(seller), date=prices.seller_date(seller))


def basis_words(s, language: str) -> str:
    """How the scenario pays and to whom: ``"Committed 1 year, Lambda Labs (prices of 2026-09-25)"``."""
    words = label(f"pricing_{s.pricing}", language)
    if s.pricing == "owned":
        return words
    parts = [words, seller_words(s.seller, language)]
    if s.price_date:  # the market of another day than the newest
        parts.append(label("prices_as_of", language).format(date=prices.check_price_date(s.price_date)))
    return ("，" if language == "zh" else ", ").join(parts)


def pricing_words(e: Estimate, language: str) -> str:
    """The price basis in words, or the typed rate with its price when one replaces the basis.

    Slot headers, chart captions, the History label and the summary all name the price this way, so a
    typed rate is never shown under the name of the basis it replaced ("Typed rate $2.00 per GPU-hour").
    """
    s = e.scenario
    if s.rate_usd_per_gpu_hour is None or s.pricing == "owned":
        return basis_words(s, language)
    typed, per = label("term:rate_usd_per_gpu_hour", language), label("per_gpu_hour", language)
    rate = money_in(s.rate_usd_per_gpu_hour * e.usd_to_currency, s.currency, language, symbol=True)
    return f"{typed} {per} {rate}" if language == "zh" else f"{typed} {rate} {per}"


def hidden_text(e: Estimate, language: str = "en") -> str:
    """The hidden-cost dimension in words: its named parts (they add up to it), and people over the project."""
    cur, fx = e.scenario.currency, e.usd_to_currency
    d = e.details_usd
    return label("summary_hidden", language).format(
        hidden=money_in(e.cost_usd["hidden"] * fx, cur, language, symbol=True), mult=f"{e.scenario.experiments_multiplier_effective:g}",
        experiments=money_in(d["experiments"] * fx, cur, language, symbol=True), failures=money_in(d["failure_loss"] * fx, cur, language, symbol=True),
        other=money_in(d["other_loss"] * fx, cur, language, symbol=True), storage=money_in(d["storage"] * fx, cur, language, symbol=True),
        people=money_in(e.cost_usd["people"] * fx, cur, language, symbol=True), months=f"{e.project_months:.3g}")


def owned_text(e: Estimate, language: str = "en") -> str:
    """Owning the cluster in words: capex, the amortization rule, utilisation and the break-even against on-demand."""
    o, cur, fx = e.owned, e.scenario.currency, e.usd_to_currency
    months = o["breakeven_months"]["on_demand"]
    when = label("owned_never", language) if not math.isfinite(months) else \
        f"{months:.0f} {label('months', language)}"
    rule = label(f"rule_{o['amortization']}", language).format(years=f"{o['years']:g}")
    return label("summary_owned", language).format(
        capex=money_in(o["capex_usd"] * fx, cur, language, symbol=True), per_gpu=money_in(o["capital_usd_per_gpu"] * fx, cur, language, symbol=True), rule=rule,
        utilization=f"{o['utilization']:.0%}", months=when)


def _share(fraction: float) -> str:
    """A share in percent: one decimal below 10% (0.1%, 3.1%), none above (34%)."""
    return f"{fraction:.1%}" if fraction < 0.095 else f"{fraction:.0%}"


def warnings_html(e: Estimate, language: str = "en") -> str:
    """Warnings beside the KPIs, in ``language``; empty when there are none."""
    if not e.warnings:
        return ""
    items = "".join(f"<li>{html.escape(translate(w, language, page_currency(e)))}</li>" for w in e.warnings)
    return f'<div class="explorer-warnings"><b>{html.escape(label("warnings", language))}</b><ul>{items}</ul></div>'


def assumptions_html(e: Estimate, language: str = "en") -> str:
    """Every catalog value and default the estimate used, with its source, in ``language``.

    Names come from each assumption's id and params (:meth:`explorer.model.Assumption.render`); a source in
    the model's own words is a :class:`~explorer.messages.Message` and is rendered too, citations stay as written.
    A dimensionless value (unit ``"1"`` in the model, as SI writes it: MFU, PUE, layer counts, parallel degrees)
    shows no unit: a reader took "1" for a number (issue 41).
    """
    head = "".join(f"<th>{html.escape(label(k, language))}</th>" for k in
                   ("assumption_name", "assumption_value", "assumption_unit", "assumption_source"))
    rows = []
    unknown = label("unit_unknown", language)
    for a in e.assumptions:  # each an id and params (explorer.model.Assumption), rendered from messages.csv
        value = _choice_text(a, language) if isinstance(a.value, str) else (
            f"{a.value:.4g}" if math.isfinite(a.value) else unknown)
        rows.append(f"<tr><td>{html.escape(a.render(language))}</td><td>{html.escape(value)}</td>"
                    f'<td>{html.escape(unit_text(a.unit, language) if a.unit != "1" else "")}</td>'  # "1": none
                    f'<td class="src">{html.escape(render(a.source, language))}</td></tr>')
    return f'<div class="explorer-assumptions"><table><tr>{head}</tr>{"".join(rows)}</table></div>'


def _choice_text(a, language: str) -> str:
    """A choice an assumption records (``"selective"``, ``"straight_line"``) in ``language``: its ``term:`` row,
    else the choice's label of the field the assumption names (``amortization_straight_line``), else as it is."""
    for key in (f"term:{a.value}", f"{a.params.get('name')}_{a.value}"):
        if key in labels():
            return label(key, language)
    return a.value


GLOSSARY = ("mfu", "goodput", "pue", "precision", "moe", "dim_hidden", "owned_compute", "in_rate", "scope")


def glossary_html(language: str = "en") -> str:
    """Short explanations of the terms a newcomer would not know."""
    items = "".join(f"<dt>{html.escape(label(f'glossary_{k}_term', language))}</dt>"
                    f"<dd>{html.escape(label(f'glossary_{k}', language))}</dd>" for k in GLOSSARY)
    return (f'<div class="explorer-glossary"><h4 style="margin:10px 0 2px 0">{html.escape(label("glossary", language))}'
            f"</h4><dl>{items}</dl></div>")


#: The label of each field without a control, where it is not ``term:<field>``.
_KEPT_TERMS = {"active_params": "term:active parameters", "recompute": "term:activation recomputation"}


def kept_fields_html(fields: dict, language: str = "en") -> str:
    """The line under the preset picker naming the settings the scenario holds without a control.

    Parameters
    ----------
    fields : dict of str to object
        Scenario fields that have no control and differ from their default (``ExplorerApp.kept_fields``).
    language : {"en", "zh"}

    Returns
    -------
    str
        HTML, "" when ``fields`` is empty: "Settings kept without a control: Layers 61, ...".
    """
    if not fields:
        return ""
    items = []
    for name, value in fields.items():
        if isinstance(value, str):
            text = label(f"term:{value}", language)
        elif name == "active_params":
            text = count_in(value, language)
        else:
            text = f"{value:,}" if isinstance(value, int) else f"{value:,.4g}"
        items.append(f"{label(_KEPT_TERMS.get(name, f'term:{name}'), language)} {text}")
    sep = "，" if language == "zh" else ", "
    return (f'<span class="explorer-note">{html.escape(label("kept_fields", language))}'
            f"{html.escape(sep.join(items))}</span>")


def region_note_html(e: Estimate, language: str = "en") -> str:
    """Where the region changes the bill: inside a cloud rate (its electricity), or paid directly when owned."""
    s = e.scenario
    reg = catalog.region(s.region)
    price = s.electricity_usd_per_kwh if s.electricity_usd_per_kwh is not None else reg.electricity_usd_per_kwh
    price_text = f"{price:.4g}" if price is not None else label("unit_unknown", language)
    cur = s.currency
    unknown = label("unit_unknown", language)
    if s.pricing == "owned":
        energy = money_in(e.cost()["energy"], cur, language, symbol=True).replace("unknown", unknown)
        text = label("region_note_owned", language).format(energy=energy, price=price_text)
    else:
        inside = e.in_rate_usd.get("energy", math.nan) * e.usd_to_currency
        text = label("region_note_cloud", language).format(energy=money_in(inside, cur, language, symbol=True).replace("unknown", unknown),
                                                           price=price_text)
    return f'<div class="explorer-note" style="margin:6px 0 4px 0">{html.escape(text)}</div>'


def share_html(query: str, language: str = "en") -> str:
    """The share link as an absolute URL (completed in the browser from the page's address) and a copy button.

    The kernel does not know the address viewers use (a proxy may sit in
    front), so the page turns the query into ``origin + path + query``
    (:class:`~explorer.app.page_bridge.PageBridge`).
    """
    q = html.escape(query, quote=True)
    copied = html.escape(label("share_copied", language), quote=True)
    copy = ("var b=this.parentNode,i=b.querySelector('input');i.select();"
            "var done=function(){b.querySelector('.explorer-copied').textContent=this_copied;};"
            "if(navigator.clipboard){navigator.clipboard.writeText(i.value).then(done,function(){"
            "document.execCommand('copy');done();});}else{document.execCommand('copy');done();}").replace(
        "this_copied", json.dumps(label("share_copied", language)))
    return (f'<div class="explorer-share"><div>{html.escape(label("share_link", language))}:</div>'
            f'<input class="explorer-share-url" readonly data-query="{q}" value="{q}" '
            f'aria-label="{html.escape(label("share_link", language), quote=True)}">'
            f'<button class="explorer-copy" type="button" onclick="{html.escape(copy, quote=True)}">'
            f'{html.escape(label("share_copy", language))}</button> '
            f'<span class="explorer-copied" data-text="{copied}"></span> '
            f'<a href="{q}" target="_blank">{html.escape(label("share_open", language))}</a></div>')


def session_html() -> str:
    """The session-ended notice (hidden), in both languages, with a reload button.

    The page's widget (:class:`~explorer.app.page_bridge.PageBridge`) pings the
    kernel every :data:`HEARTBEAT_SECONDS` and shows this notice after
    :data:`SESSION_TIMEOUT_SECONDS` without an answer (the kernel was culled,
    crashed or the server restarted).
    """
    en, zh = label("session_ended", "en"), label("session_ended", "zh")
    reload_en, reload_zh = label("reload", "en"), label("reload", "zh")
    return (f'<div class="explorer-session-ended" role="alert"><div lang="en">{html.escape(en)}</div>'
            f'<div lang="zh">{html.escape(zh)}</div>'
            f'<button type="button" onclick="location.reload()">{html.escape(reload_en)} / '
            f'{html.escape(reload_zh)}</button></div>')
