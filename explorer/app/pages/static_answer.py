"""The app's first answer for a link, as static HTML: what a viewer sees before any kernel runs.

The public server (:mod:`explorer.hosting.server.static_page`) shows this to a viewer who opens a link, and starts a
kernel only when they first touch the page. It is the app's own first screen, built by the same code the
app's kernel runs: the link read by :mod:`explorer.app.link` (the same clamping and the same refusals, named
in the same banner), the first estimate as :class:`~explorer.app.explorer_app.ExplorerApp` makes it
(:func:`explorer.app.share_link.first_estimate`: a field that makes the scenario invalid dropped, one at a
time), the KPI cards, the warnings and the summary of
:mod:`explorer.app.pages.estimate_html` with the uncertainty range of the app's simulation (same draws, same seed), and the
first chart, the cost breakdown of :class:`~explorer.plots.breakdown.BreakdownPlot`, drawn through a fresh
Agg canvas to PNG (no pyplot, no widget).

The hosting layer imports nothing of the app; it names this module in ``voila.json``
(``ExplorerVoila.static_answer``) and calls :func:`normalized_query` and :func:`answer`.
"""

from __future__ import annotations

import base64
import html
import math
from typing import Any

from explorer.app import link
from explorer.app.pages import estimate_html
from explorer.app.tabs.analysis_views import APP_SEED
from explorer.app.share_link import first_estimate
from explorer.app.tabs.uncertainty import APP_DRAWS
from explorer.analysis.uncertainty import simulate
from explorer.errors import ScenarioError
from explorer.plots.breakdown import BreakdownPlot
from explorer.plots.figure import NotebookFigure, png_bytes
from explorer.presets import presets
from explorer.scenario import Scenario
from explorer.text import label

__all__ = ["normalized_query", "answer", "CHART_SIZE_IN", "CHART_DPI", "NOTEBOOK"]

#: The notebook whose first answer this is (the server uses the renderer only when it serves this notebook).
NOTEBOOK = "explorer.ipynb"

#: The breakdown chart's size [inches]: the app's (ExplorerApp: ``widget_figure(9.0, 3.7)``).
CHART_SIZE_IN = (9.0, 3.7)
#: Pixels per inch of the PNG (100: 900 x 370 px, drawn at the app's width on a 1400 px screen).
CHART_DPI = 100
#: The chart for a phone [inches]: 360 x 370 px, the width of a 390 px screen's chart box, laid out for it as the
#: app lays out a narrow breakdown (the designed height, the box's width); shown below :data:`NARROW_BELOW_PX`.
NARROW_SIZE_IN = (3.6, 3.7)
#: Screens narrower than this [CSS px] get the narrow chart (the wide one scaled to them has unreadable text).
NARROW_BELOW_PX = 600


def _link(query_string: str) -> tuple[dict[str, Any], dict[str, str], list[ScenarioError]]:
    """(scenario fields, extra keys, refusals) of a link, read as the app reads it."""
    fields, extras = link.scenario_fields_from_query(query_string)
    return fields, extras, link.refused_fields_from_query(query_string)


def normalized_query(query_string: str) -> str:
    """The part of a link the static answer depends on, in a fixed form: the cache key of the answer.

    Two links that differ only in key order, in keys the app ignores, in values it clamps to the same
    number, or in the view keys the answer does not show (tab, compare slots...) give the same key;
    values it refuses are kept (as written), since the banner names them.

    >>> normalized_query("tokens=2T&params=13B&utm=x") == normalized_query("params=13e9&tokens=2e12")
    True
    >>> normalized_query("lang=zh-Hans") == normalized_query("lang=zh")
    True
    """
    fields, extras, refused = _link(query_string)
    language = link.page_language(extras.get("lang")) or "en"
    preset = extras.get("preset", "") if extras.get("preset", "") in presets() else ""
    scope = extras.get("scope", "project")
    if scope not in ("project", "run"):
        scope = "project"
    parts = [f"lang={language}", f"preset={preset}", f"scope={scope}"]
    parts += [f"{k}={v!r}" for k, v in fields.items()]
    parts += [f"refused:{e.field}={e.value!r}" for e in refused]
    return "&".join(parts)


def _banner(refused: list[ScenarioError], language: str) -> str:
    """The app's banner for a link's refused values (the words and limit of the app's, ``estimate_html.banner_html``), or ""."""
    return estimate_html.banner_html([estimate_html.error_text(exc, language) for exc in refused], language) if refused else ""


def _interval(e, scope: str) -> tuple[float, float] | None:
    """The KPI's 90 % range as the app computes it (AnalysisViews.update and interval), or None."""
    try:
        sim = simulate(e.scenario, n=APP_DRAWS, seed=APP_SEED)
    except (ScenarioError, ValueError, FloatingPointError):
        return None
    low, high = sim.interval_usd if scope == "project" else sim.run_interval_usd
    fx = e.usd_to_currency
    return (low * fx, high * fx) if math.isfinite(low) and math.isfinite(high) else None


def _chart_png(e, scope: str, language: str, size_in: tuple[float, float] = CHART_SIZE_IN) -> bytes:
    """The cost breakdown chart of ``e`` as PNG (a plain Figure, rendered through a fresh Agg canvas)."""
    figure = NotebookFigure(figsize=size_in, layout="constrained")
    plot = BreakdownPlot(figure, language=language)
    plot.update(e, draw=False, scope=scope, language=language)
    return png_bytes(figure, dpi=CHART_DPI)


def answer(query_string: str) -> dict[str, str]:
    """The app's first answer for ``query_string`` (a link's query, without ``?``).

    Returns
    -------
    dict
        ``lang`` ("en" or "zh"), ``title`` (plain text), ``style`` (the app's CSS, a ``<style>`` block),
        ``html`` (the banner, KPI cards, warnings, summary and the breakdown chart as an inline PNG, with a
        narrow one for phones (:data:`NARROW_SIZE_IN`); the
        total cost is in the element of class ``explorer-kpi total``), ``total_usd`` (the total as a
        number, in US dollars, for checks), ``hint`` and ``opening`` (the line above the answer before and
        after the first touch, plain text).
    """
    fields, extras, refused = _link(query_string)
    language = link.page_language(extras.get("lang")) or "en"
    scope = extras.get("scope", "project")
    if scope not in ("project", "run"):
        scope = "project"
    start = Scenario()
    preset = extras.get("preset", "")
    if preset in presets():
        start = presets()[preset].scenario
    e = first_estimate(start, fields)
    png = base64.b64encode(_chart_png(e, scope, language)).decode("ascii")
    narrow = base64.b64encode(_chart_png(e, scope, language, NARROW_SIZE_IN)).decode("ascii")
    alt = label("tab_breakdown", language)
    body = (f'<div class="explorer-banner-box">{_banner(refused, language)}</div>'
            f'<div class="explorer-kpis-box">{estimate_html.kpi_html(e, language, scope, interval=_interval(e, scope))}</div>'
            f"{estimate_html.warnings_html(e, language)}"
            f'<div class="explorer-summary"><p class="explorer-summary-text">'
            f"{html.escape(estimate_html.summary_text(e, language, scope))}</p></div>"
            f'<picture><source media="(max-width: {NARROW_BELOW_PX - 1}px)" srcset="data:image/png;base64,{narrow}">'
            f'<img class="explorer-static-chart" alt="{html.escape(alt)}" width="{int(CHART_SIZE_IN[0] * CHART_DPI)}"'
            f' height="{int(CHART_SIZE_IN[1] * CHART_DPI)}" src="data:image/png;base64,{png}"></picture>')
    total = e.total_usd if scope == "project" else e.final_run_usd
    return {"lang": language, "title": label("app_title", language),
            "style": estimate_html.STYLE, "html": body, "total_usd": repr(float(total)),
            "hint": label("static_hint", language), "opening": label("static_opening", language)}

