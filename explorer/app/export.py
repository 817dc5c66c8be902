"""Downloads as data URLs: the scenario (JSON), the cost breakdown (CSV) and the charts (PNG, SVG)."""

from __future__ import annotations

import base64
import csv
import html
import io
import math
import textwrap
from decimal import Decimal

from matplotlib.figure import Figure

from explorer.app.ipympl_private import original_dpi
from explorer.model import COST_DIMENSIONS, HIDDEN_PARTS, Estimate
from explorer.plots.fonts import text_kwargs
from explorer.scenario import field_spec

__all__ = ["data_url", "scenario_json", "breakdown_csv", "compare_csv", "download_link", "plain_decimal",
           "figure_file", "figure_link"]


def data_url(text: str, mime: str) -> str:
    """``data:`` URL carrying ``text`` (UTF-8, base64)."""
    return f"data:{mime};charset=utf-8;base64," + base64.b64encode(text.encode("utf-8")).decode("ascii")


def scenario_json(estimate: Estimate) -> str:
    """The scenario as indented JSON (reads back with ``Scenario.from_json``)."""
    return estimate.scenario.to_json(indent=1)


def plain_decimal(x: float | int | None, places: int | None = None) -> str:
    """A number as plain decimal text, never in exponent notation ("" for None, "nan"/"inf" as such).

    Examples
    --------
    >>> plain_decimal(3.5e22), plain_decimal(1.97e-05), plain_decimal(1234.5678, 2)
    ('35000000000000000000000', '0.0000197', '1234.57')
    """
    if x is None:
        return ""
    if isinstance(x, bool) or isinstance(x, str):
        return str(x)
    if not math.isfinite(x):
        return str(x)
    if places is not None:
        return f"{x:.{places}f}"
    d = Decimal(repr(float(x))) if isinstance(x, float) else Decimal(x)
    text = format(d, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def breakdown_csv(estimate: Estimate) -> str:
    """The cost breakdown, key quantities, exchange rate and the whole scenario, as plain-decimal CSV.

    Rows are ``item, value, unit``: whether the run is feasible (if not, why,
    and the nearest feasible alternative; every money cell is then blank:
    a run that cannot happen has no cost), the six dimensions and the total of the
    project and of the final run (in the scenario's currency, 2 decimals),
    what a cloud rate pays for, the quantities, the exchange rate used, then
    every scenario field as ``scenario.<field>`` (blank = catalog or default).
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    currency = estimate.scenario.currency
    fx = estimate.usd_to_currency
    writer.writerow(["item", "value", "unit"])
    # a run that cannot happen has no cost: its money cells are blank (unknown), and the rows below say why
    writer.writerow(["feasible", "true" if estimate.feasible else "false", ""])
    if not estimate.feasible:
        writer.writerow(["infeasible_reason", estimate.infeasible_reason, ""])
        writer.writerow(["alternative_gpus", plain_decimal(estimate.alternative.get("gpus")), "GPUs"])
        writer.writerow(["alternative_wall_days", plain_decimal(estimate.alternative.get("wall_days")), "days"])

    def money_cell(x: float, places: int = 2) -> str:
        return plain_decimal(x, places) if estimate.feasible else ""

    cost = estimate.cost()
    for d in (*COST_DIMENSIONS, "total"):
        writer.writerow([f"cost_{d}", money_cell(cost[d]), currency])
    writer.writerow(["cost_final_run", money_cell(estimate.final_run_usd * fx), currency])
    for part in HIDDEN_PARTS:  # the hidden dimension's named parts; they add up to cost_hidden
        writer.writerow([f"hidden_{part}", money_cell(estimate.details_usd[part] * fx), currency])
    writer.writerow(["price_basis", estimate.price_basis, ""])
    writer.writerow(["rate_per_gpu_hour", plain_decimal(estimate.rate_usd_per_gpu_hour * fx, 4),
                     f"{currency}/GPU-hour"])
    writer.writerow(["project_months", plain_decimal(round(estimate.project_months, 6)), "months"])
    o = estimate.owned
    if o:
        writer.writerow(["owned_capex", money_cell(o["capex_usd"] * fx), currency])
        writer.writerow(["owned_capital_per_gpu", plain_decimal(o["capital_usd_per_gpu"] * fx, 2), currency])
        writer.writerow(["owned_amortization", o["amortization"], ""])
        writer.writerow(["owned_utilization", plain_decimal(o["utilization"]), "1"])
        writer.writerow(["owned_financing_rate", plain_decimal(o["financing_rate"]), "1/year"])
        for basis, months in o["breakeven_months"].items():
            writer.writerow([f"owned_breakeven_vs_{basis}",  # "never": renting stays cheaper than owning
                             plain_decimal(round(months, 3)) if math.isfinite(months) else "never", "months"])
    for k, v in estimate.in_rate_usd.items():
        writer.writerow([f"in_rate_{k}", money_cell(v * fx), currency])
    for name, unit in (("train_flop", "FLOP"), ("gpu_hours", "GPU-hour"), ("wall_days", "days"),
                       ("energy_mwh", "MWh"), ("co2_tonnes", "tCO2")):
        writer.writerow([name, plain_decimal(round(getattr(estimate, name), 6)), unit])
    writer.writerow(["gpus", estimate.gpus, "GPUs"])
    writer.writerow(["exchange_rate", plain_decimal(fx), f"{currency}/USD"])
    writer.writerow(["estimated_prices", "; ".join(estimate.estimated), ""])
    for name, value in estimate.scenario.to_dict().items():
        spec = field_spec(name)
        writer.writerow([f"scenario.{name}", plain_decimal(value) if not isinstance(value, str) else value,
                         spec.get("unit", "")])
    return out.getvalue()


def compare_csv(table, currency: str = "USD", usd_to_currency: float = 1.0, scenarios=None) -> str:
    """Compared slots as plain-decimal CSV: one row per slot, amounts in ``currency``, with the rate used.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`explorer.analysis.compare` (index: slot names; amounts [USD]).
    currency : str
        Currency of the amount columns; every row carries it and ``usd_to_currency``.
    usd_to_currency : float
        Units of ``currency`` per USD [currency/USD].
    scenarios : sequence of Scenario, optional
        The scenario of each row, in the table's order: every field is written as a
        ``scenario.<field>`` column (blank = catalog or default), so the rows can be told apart and rebuilt.

    Returns
    -------
    str
        Columns ``slot``, the six dimensions, ``total``, ``final_run``, ``per_1m_tokens`` (amounts, 2 decimals),
        ``days``, ``gpus``, ``gpu_hours``, ``energy_mwh``, ``co2_tonnes``, ``capex`` (owned: the cluster's
        purchase up front, in ``currency``; blank when rented) and ``breakeven_months`` (owned: against renting
        on demand; ``never`` when renting stays cheaper), ``currency``, ``usd_to_currency``,
        then ``scenario.<field>`` for every Scenario field when ``scenarios`` are given.
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    amounts = [*(f"{d}_usd" for d in COST_DIMENSIONS), "total_usd", "final_run_usd", "usd_per_1m_tokens"]
    names = [*COST_DIMENSIONS, "total", "final_run", "per_1m_tokens"]
    quantities = ("days", "gpus", "gpu_hours", "energy_mwh", "co2_tonnes")
    dicts = [sc.to_dict() for sc in scenarios] if scenarios is not None else None
    if dicts is not None and len(dicts) != len(table):
        raise ValueError(f"scenarios: {len(dicts)} given for {len(table)} rows")
    fields = list(dicts[0]) if dicts else []
    writer.writerow(["slot", *names, *quantities, "capex", "breakeven_months", "currency", "usd_to_currency",
                     *(f"scenario.{f}" for f in fields)])
    for i, (slot, row) in enumerate(table.iterrows()):
        scenario = [plain_decimal(v) if not isinstance(v, str) else v for v in dicts[i].values()] if dicts else []
        capex, months = (float(row.get(c, math.nan)) for c in ("capex_usd", "breakeven_months"))
        writer.writerow([slot, *(plain_decimal(float(row[c]) * usd_to_currency, 2) for c in amounts),
                         *(plain_decimal(round(float(row[q]), 6)) for q in quantities),
                         "" if math.isnan(capex) else plain_decimal(capex * usd_to_currency, 2),
                         "" if math.isnan(months) else plain_decimal(round(months, 3)) if math.isfinite(months)
                         else "never",
                         currency, plain_decimal(usd_to_currency), *scenario])
    return out.getvalue()


def download_link(text: str, mime: str, filename: str, caption: str) -> str:
    """An HTML ``<a download>`` link to ``text``."""
    return (f'<a download="{html.escape(filename)}" href="{data_url(text, mime)}" '
            f'class="explorer-download">{html.escape(caption)}</a>')


_MIME = {"png": "image/png", "svg": "image/svg+xml"}


def figure_file(fig: Figure, fmt: str, caption: str, language: str = "en") -> bytes:
    """``fig`` as a PNG or SVG file with ``caption`` (the scenario) written below it.

    The figure is saved through a fresh canvas of matplotlib's own (``backend``),
    so the widget canvas, its renderer and its blitted background are not
    touched; artists animated for blitting are drawn too, and the caption is
    removed again. Size: the figure's own at 1x [px].
    """
    if fmt not in _MIME:
        raise ValueError(f"format: {fmt!r} is not one of png, svg")
    animated = [a for a in fig.findobj(lambda a: a.get_animated())]
    per_line = int(fig.get_figwidth() * (8 if language == "zh" else 15))  # characters across at 7.5 pt
    lines = textwrap.wrap(caption.replace("$", r"\$"), width=max(per_line, 40))  # "$" is not mathtext here
    # an English caption can quote Chinese (the source articles' titles): give it the CJK font as a fallback
    has_cjk = any("\u3000" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef" for ch in caption)
    text = fig.text(0.005, -0.01, "\n".join(lines), ha="left", va="top", fontsize=7.5, color="#333333",
                    **text_kwargs("zh" if has_cjk else language)[0])
    for a in animated:
        a.set_animated(False)
    try:
        out = io.BytesIO()
        dpi = original_dpi(fig)
        fig.savefig(out, format=fmt, backend="agg" if fmt == "png" else "svg", dpi=dpi, bbox_inches="tight",
                    pad_inches=0.1, facecolor="white")
        return out.getvalue()
    finally:
        text.remove()
        for a in animated:
            a.set_animated(True)


def figure_link(fig: Figure, fmt: str, filename: str, link_caption: str, caption: str, language: str = "en") -> str:
    """An HTML ``<a download>`` link to :func:`figure_file` of ``fig``."""
    body = base64.b64encode(figure_file(fig, fmt, caption, language)).decode("ascii")
    return (f'<a download="{html.escape(filename)}" href="data:{_MIME[fmt]};base64,{body}" '
            f'class="explorer-download">{html.escape(link_caption)}</a>')
