"""HTML views of an estimate: KPI cards, the one-paragraph summary, warnings, assumptions."""

from __future__ import annotations

import html
import math

from explorer import catalog
from explorer.model import Estimate
from explorer.text import label, money, quantity

__all__ = ["kpi_html", "summary_text", "warnings_html", "assumptions_html", "STYLE"]

#: CSS for the app, injected once.
STYLE = """
<style>
.explorer-kpis {display:flex; flex-wrap:wrap; gap:8px; margin:4px 0 6px 0;}
.explorer-kpi {border:1px solid #d5d8dc; border-radius:6px; padding:6px 10px; min-width:104px; background:#fbfcfc;}
.explorer-kpi .v {font-size:19px; font-weight:600; color:#1b2631; line-height:1.25;}
.explorer-kpi .k {font-size:11.5px; color:#566573;}
.explorer-kpi.total .v {color:#0b5394; font-size:22px;}
.explorer-warnings {background:#fef5e7; border-left:4px solid #e67e22; padding:4px 10px; margin:4px 0; font-size:12.5px;}
.explorer-warnings ul {margin:2px 0 2px 16px; padding:0;}
.explorer-message {color:#a93226; font-size:12px; line-height:1.3;}
.explorer-banner {background:#fdedec; border-left:4px solid #c0392b; padding:4px 10px; font-size:12.5px;}
.explorer-summary {font-size:13.5px; line-height:1.45; color:#1b2631; margin:2px 0 4px 0;}
.explorer-note {font-size:11.5px; color:#566573;}
.explorer-app a.explorer-download, .explorer-app .explorer-share a {color:#0b5394; text-decoration:underline; margin-right:14px;}
.explorer-assumptions table {border-collapse:collapse; font-size:12px;}
.explorer-assumptions td, .explorer-assumptions th {border-bottom:1px solid #e5e8e8; padding:3px 6px; text-align:left; vertical-align:top;}
.explorer-assumptions td.src {color:#566573; max-width:520px;}
</style>
"""


def _num(x: float) -> str:
    """A KPI number: compact, "unknown" for NaN, "∞" for infinity."""
    return quantity(x)


def kpi_html(e: Estimate, language: str = "en") -> str:
    """The KPI cards: total, days, GPUs, GPU-hours, MWh, tCO2, cost per 1M tokens."""
    cur = e.scenario.currency
    fx = e.usd_to_currency
    cards = [
        ("total", label("kpi_total", language), money(e.cost()["total"], cur)),
        ("", label("kpi_days", language), f"{_num(e.wall_days)} {label('unit_days', language)}"),
        ("", label("kpi_gpus", language), f"{e.gpus:,}"),
        ("", label("kpi_gpu_hours", language), _num(e.gpu_hours)),
        ("", label("kpi_energy", language), f"{_num(e.energy_mwh)} {label('unit_mwh', language)}"),
        ("", label("kpi_co2", language), f"{_num(e.co2_tonnes)} {label('unit_tco2', language)}"),
        ("", label("kpi_per_token", language), money(e.usd_per_1m_tokens * fx, cur)),
    ]
    body = "".join(
        f'<div class="explorer-kpi {cls}"><div class="v">{html.escape(v)}</div>'
        f'<div class="k">{html.escape(k)}</div></div>'
        for cls, k, v in cards
    )
    return f'<div class="explorer-kpis">{body}</div>'


def summary_text(e: Estimate, language: str = "en") -> str:
    """One paragraph: total cost, days, GPUs, MWh, tCO2 of the estimate."""
    s = e.scenario
    cur = s.currency
    acc = catalog.accelerator(s.gpu)
    return label("summary", language).format(
        params=quantity(s.params),
        tokens=quantity(s.tokens),
        gpus=f"{e.gpus:,}",
        gpu=acc.name,
        precision=s.precision.upper(),
        pricing=label(f"pricing_{s.pricing}", language),
        days=_num(e.wall_days),
        gpu_hours=_num(e.gpu_hours),
        mwh=_num(e.energy_mwh),
        co2=_num(e.co2_tonnes),
        total=money(e.cost()["total"], cur),
        per_token=money(e.usd_per_1m_tokens * e.usd_to_currency, cur),
    )


def warnings_html(e: Estimate, language: str = "en") -> str:
    """Warnings beside the KPIs; empty when there are none."""
    if not e.warnings:
        return ""
    items = "".join(f"<li>{html.escape(w)}</li>" for w in e.warnings)
    return f'<div class="explorer-warnings"><b>{html.escape(label("warnings", language))}</b><ul>{items}</ul></div>'


def assumptions_html(e: Estimate, language: str = "en") -> str:
    """Every catalog value and default the estimate used, with its source."""
    head = "".join(f"<th>{html.escape(label(k, language))}</th>" for k in
                   ("assumption_name", "assumption_value", "assumption_unit", "assumption_source"))
    rows = []
    for a in e.assumptions:
        value = a.value if isinstance(a.value, str) else (f"{a.value:.4g}" if math.isfinite(a.value) else "unknown")
        rows.append(f"<tr><td>{html.escape(a.name)}</td><td>{html.escape(value)}</td><td>{html.escape(a.unit)}</td>"
                    f'<td class="src">{html.escape(a.source)}</td></tr>')
    return f'<div class="explorer-assumptions"><table><tr>{head}</tr>{"".join(rows)}</table></div>'
