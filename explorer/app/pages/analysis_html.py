"""The analysis tabs' HTML: functions from data to an HTML string, in the viewer's language (no widgets).

The Compare table (:func:`compare_html`), the savings recipe's verdicts (:func:`recipe_html`), the budget
status (:func:`budget_html`), one line per scenario (:func:`scenario_line`) and the names of the compare slots.
Every text is escaped (a slot name or a link's value comes from anyone) and every label comes from
``labels.csv`` in English or Chinese. Amounts arrive in USD with the rate ``fx`` to the shown currency.
"""

from __future__ import annotations

import html
import math
import re
from typing import Callable

import pandas as pd

from explorer import catalog
from explorer.analysis import Simulation
from explorer.analysis.budget import AT_RISK_PROBABILITY
from explorer.app import export
from explorer.app.bindings import BINDINGS
from explorer.app.pages.estimate_html import pricing_words
from explorer.messages import Message
from explorer.model import COST_DIMENSIONS, Estimate
from explorer.plots.analysis import SLOT_COLORS
from explorer.scenario import Scenario
from explorer.text import breakeven_text, count_in, label, labels, money_in, quantity_in, readable_number

__all__ = ["SLOTS", "SLOT_NAME_MAX", "AT_RISK", "scenario_line", "field_value_text", "differing_fields",
           "differences_text", "field_label", "slot_title", "clean_slot_name", "compare_html", "recipe_steps_html",
           "recipe_html", "budget_html"]

#: The compare slots; slot A is the baseline of "What changed".
SLOTS = ("A", "B", "C", "D")
SLOT_NAME_MAX = 40  # characters of a viewer's name for a slot


def scenario_line(e: Estimate, language: str) -> str:
    """One line describing a scenario: size, tokens, cluster, precision, pricing."""
    return _scenario_text(e, language)


def _scenario_text(e: Estimate, language: str) -> str:
    """One line describing a scenario: size, tokens, cluster, precision, pricing."""
    s = e.scenario
    arch = " MoE" if s.architecture == "moe" else ""
    if s.architecture == "moe":
        arch += " " + label("slot_active", language).format(active=count_in(s.active_params_effective, language))
    return (f"{count_in(s.params, language)}{arch} · {count_in(s.tokens, language)} {label('term:tokens', language)} · {e.gpus:,} × "
            f"{catalog.accelerator(s.gpu).name} · {s.precision.upper()} · {pricing_words(e, language)}")


#: Scenario fields in USD, shown in the page's currency (the money boxes of the control panel)
_MONEY_FIELDS = frozenset(b.name for b in BINDINGS if b.money)

#: Fields the scenario line of a slot always shows (:func:`_scenario_text`); other differences are listed.
_IN_SCENARIO_TEXT = ("params", "architecture", "tokens", "gpu", "precision", "pricing", "seller", "gpus",
                     "deadline_days")


def field_value_text(name: str, value, language: str) -> str:
    """A scenario field's value in words: choices by their label, regions by name, numbers as the boxes show them."""
    if value is None:
        return label("compare_default", language)
    if name == "region":
        from explorer.app.pages.estimate_html import region_name

        return region_name(catalog.regions()[value].name, language)
    if name == "training_kind":
        return label(f"kind_{value}", language)
    if name == "gpu":
        return catalog.accelerator(value).name
    for prefix in ("pricing", "amortization", "team_pay_basis", "recovery", "facility"):
        if name == prefix and f"{prefix}_{value}" in labels():
            return label(f"{prefix}_{value}", language)
    if isinstance(value, bool):
        return "✓" if value else "✗"
    if isinstance(value, (int, float)):  # in Chinese with 万/亿 (70亿), as a Chinese box also reads them
        return quantity_in(float(f"{value:.6g}"), "zh", 6) if language == "zh" else readable_number(float(f"{value:.6g}"))
    return str(value)


def differing_fields(scenarios: dict[str, Scenario]) -> list[str]:
    """Scenario fields whose values are not the same in every one of ``scenarios``, in the Scenario's order."""
    items = list(scenarios.values())
    if len(items) < 2:
        return []
    dicts = [sc.to_dict() for sc in items]
    return [k for k in dicts[0] if any(d.get(k) != dicts[0].get(k) for d in dicts[1:])]


def field_label(name: str, language: str, currency: str = "USD") -> str:
    """A scenario field's name and unit as a table shows them: ``Electricity [CNY/kWh]``, ``Layers``.

    The control's label without its box hints ("blank = region"); a money field's unit in ``currency`` (USD or
    CNY, the ``<name>_cny`` label); a field with no label, its name.
    """
    key = f"{name}_cny" if currency == "CNY" and name in _MONEY_FIELDS else name
    if key not in labels():
        return name
    text = label(key, language)
    bracketed = re.fullmatch(r"(.*?)\s*\[([^\[\]]*)\]", text)  # the name, then the unit and hints in brackets
    if bracketed is None:
        return text
    head, inside = bracketed.groups()
    units = [part.strip() for part in re.split("[;；]", inside) if not part.strip().startswith(("blank", "留空"))]
    return f"{head} [{'; '.join(units)}]" if units else head


def differences_text(scenario: Scenario, fields: list[str], language: str, currency: str = "USD",
                     fx: float = 1.0) -> str:
    """What sets ``scenario`` apart, beyond :func:`_scenario_text`: ``Region: Ningxia · MFU [0-1]: 0.3``.

    Money fields are shown in ``currency``, at ``fx`` of it per USD [currency/USD], with their unit.
    """
    values = scenario.to_dict()
    parts = []
    for k in fields:
        if k in _IN_SCENARIO_TEXT:
            continue
        value = values[k]
        if k in _MONEY_FIELDS and value is not None:  # None: the catalog's, said as "default"
            value = value * fx
        parts.append(f"{field_label(k, language, currency)}: {field_value_text(k, value, language)}")
    return " · ".join(parts)


def slot_title(slot: str, name: str = "") -> str:
    """What a slot is called on screen and in exports: ``"B"``, or ``"B · spot run"`` when the viewer named it."""
    return f"{slot} · {name}" if name else slot


def clean_slot_name(text: str) -> str:
    """A viewer's name for a slot: one line, printable, at most :data:`SLOT_NAME_MAX` characters."""
    text = "".join(ch if ch.isprintable() else " " for ch in str(text or ""))
    return " ".join(text.split())[:SLOT_NAME_MAX]


def compare_html(slots: dict[str, Estimate | None], table: pd.DataFrame | None, currency: str, fx: float,
                 language: str = "en", names: dict[str, str] | None = None) -> str:
    """The comparison table: one column per pinned slot, one row per quantity.

    Parameters
    ----------
    slots : dict of str to Estimate or None
        The slots (None: empty).
    table : pandas.DataFrame or None
        :func:`explorer.analysis.compare` of the pinned slots (index: slot letters) [USD and units].
    currency : str
        Currency shown; ``fx`` its units per USD [currency/USD].
    names : dict of str to str, optional
        The viewer's names of the slots (see :func:`slot_title`).
    """
    if table is None or table.empty:
        return f'<div class="explorer-note">{html.escape(label("compare_empty", language))}</div>'
    given = names or {}
    titled = table.rename(index=lambda n: slot_title(n, given.get(n, "")))  # for the CSV
    pinned = list(table.index)  # the slots compared, each holding an estimate
    estimates = {n: e for n, e in slots.items() if e is not None}
    head = "".join(f'<th><span class="explorer-swatch" style="background:{SLOT_COLORS[SLOTS.index(n)]}"></span>'
                   f"{html.escape(slot_title(n, given.get(n, '')))}</th>" for n in pinned)
    unknown = label("unit_unknown", language)

    def cash(x: float) -> str:
        return money_in(x * fx, currency, language, symbol=True).replace("unknown", unknown)

    rows = [(label("compare_scenario", language), [_scenario_text(estimates[n], language) for n in pinned], "desc")]
    differ = differing_fields({n: estimates[n].scenario for n in pinned})
    if any(k not in _IN_SCENARIO_TEXT for k in differ):  # what else differs: region, training kind, overrides
        rows.append((label("compare_differs", language),
                     [differences_text(estimates[n].scenario, differ, language, currency, fx) for n in pinned], "desc"))
    rows += [(label(f"dim_{d}", language), [cash(table.loc[n, f"{d}_usd"]) for n in pinned], "")
             for d in COST_DIMENSIONS]
    rows += [
        (label("kpi_total_project", language), [cash(table.loc[n, "total_usd"]) for n in pinned], "total"),
        (label("kpi_total_run", language), [cash(table.loc[n, "final_run_usd"]) for n in pinned], ""),
        (label("kpi_days", language), [f"{count_in(table.loc[n, 'days'], language)} {label('unit_days', language)}"
                                       for n in pinned], ""),
        (label("kpi_gpus", language), [f"{int(table.loc[n, 'gpus']):,}" for n in pinned], ""),
        (label("kpi_gpu_hours", language), [count_in(table.loc[n, "gpu_hours"], language) for n in pinned], ""),
        (label("kpi_energy", language), [f"{count_in(table.loc[n, 'energy_mwh'], language)} {label('unit_mwh', language)}"
                                         for n in pinned], ""),
        (label("kpi_co2", language), [f"{count_in(table.loc[n, 'co2_tonnes'], language)} {label('unit_tco2', language)}"
                                      for n in pinned], ""),
        (label("kpi_per_token", language), [cash(table.loc[n, "usd_per_1m_tokens"]) for n in pinned], ""),
    ]
    if table["capex_usd"].notna().any():  # owned beside rented: what owning costs up front and when it pays back
        rows += [(label("owned_capex", language), [_owned_cell(table.loc[n, "capex_usd"], cash) for n in pinned], ""),
                 (label("owned_breakeven", language),
                  [_owned_cell(table.loc[n, "breakeven_months"], lambda m: _months(m, language)) for n in pinned], "")]
    body = "".join(f'<tr class="{cls}"><th>{html.escape(k)}</th>'
                   + "".join(f"<td>{html.escape(v.replace('unknown', unknown))}</td>" for v in values) + "</tr>"
                   for k, values, cls in rows)
    if currency == "USD":  # no exchange rate to state ("1 USD/USD")
        note = label("compare_note_usd", language)
    else:
        note = label("compare_note", language).format(currency=label(f"term:{currency}", language), fx=f"{fx:.4g}")
    link = export.download_link(export.compare_csv(titled, currency, fx,
                                                   scenarios=[estimates[n].scenario for n in pinned]),
                                "text/csv", "comparison.csv",
                                label("download_compare", language))
    return (f'<div class="explorer-compare"><table><tr><th></th>{head}</tr>{body}</table></div>'
            f'<div class="explorer-note">{html.escape(note)}</div><div>{link}</div>')


def _owned_cell(x: float, fmt: Callable[[float], str]) -> str:
    """A cell of an owned-only row: "–" for a rented slot (NaN), else ``fmt(x)``."""
    return "–" if math.isnan(x) else fmt(x)


def _months(m: float, language: str) -> str:
    """A break-even in months: ``"34 months"``, or "never" (:func:`explorer.text.breakeven_text`)."""
    return breakeven_text(m, language)


def _percent(x: float) -> str:
    """A fraction as a percentage with 3 significant digits: 0.231 -> "23.1%", 0.4 -> "40%"."""
    return "–" if x is None or not math.isfinite(x) else f"{x * 100:.3g}%"


def _claimed(low: float, high: float) -> str:
    """A claimed range as text: "70%–90%", "75%", "≥ 23.1%" or "–"."""
    lo, hi = (v if math.isfinite(v) else None for v in (low, high))
    if lo is not None and hi is not None:
        return _percent(lo) if lo == hi else f"{_percent(lo)}–{_percent(hi)}"
    if lo is not None:
        return f"≥ {_percent(lo)}"
    if hi is not None:
        return f"≤ {_percent(hi)}"
    return "–"


def _verdict_key(verdict: str) -> str:
    """labels.csv key of a :func:`~explorer.analysis.recipe_verdicts` verdict."""
    return "verdict_" + verdict.split(" (")[0].replace(" ", "_")


def _changes_text(before: Scenario, after: Scenario, language: str) -> str:
    """Every field that differs from ``before`` to ``after``, in words: ``Precision: FP8 · Training tokens: 500B``."""
    a, b = before.to_dict(), after.to_dict()
    parts = []
    for k in a:
        if a[k] != b[k]:
            value = b[k].upper() if k == "precision" and isinstance(b[k], str) else (
                label(f"arch_{b[k]}", language) if k == "architecture" else field_value_text(k, b[k], language))
            parts.append(f"{field_label(k, language)}: {value}")
    return " · ".join(parts)


def recipe_steps_html(steps: list[tuple[str, Scenario]] | None, language: str = "en") -> str:
    """What the recipe changed, step by step, every field named: the scenario it answers for is this one."""
    if not steps or len(steps) < 2:
        return ""
    items = []
    for (_, prev), (name, cur) in zip(steps, steps[1:]):
        title = label(f"recipe_step_{name}", language) if f"recipe_step_{name}" in labels() else name
        items.append(f"<li><b>{html.escape(title)}</b>: {html.escape(_changes_text(prev, cur, language))}</li>")
    return (f'<div class="explorer-note"><b>{html.escape(label("recipe_applied", language))}</b>'
            f'<ol style="margin:2px 0 2px 18px;padding:0">{"".join(items)}</ol></div>')


def recipe_html(verdicts: pd.DataFrame | None, currency: str, fx: float, language: str = "en",
                steps: list[tuple[str, Scenario]] | None = None, project_usd: float | None = None) -> str:
    """What each recipe step saved against the article's claimed range, with the verdict.

    Parameters
    ----------
    verdicts : pandas.DataFrame or None
        :func:`explorer.analysis.recipe_verdicts` of the scenario before the recipe; None: not applied yet.
    currency : str
        Currency of the by-lever parts; ``fx`` its units per USD [currency/USD].
    steps : list of (str, Scenario), optional
        :func:`explorer.analysis.savings_recipe` of that scenario: listed above the table, every change named.
    project_usd : float, optional
        The whole-project total before the recipe [USD]: each by-lever part is also given as a share of it
        (the saving column is a share of the claim's own metric, mostly the final run).
    """
    if verdicts is None:
        return ""
    claims = {r["id"]: r for r in catalog.read_csv("recipe_claims.csv")}
    cols = ("recipe_col_lever", "recipe_col_saving", "recipe_col_claimed", "recipe_col_verdict", "recipe_col_part")
    head = "".join(f'<th class="{k.removeprefix("recipe_col_")}">{html.escape(label(k, language))}</th>' for k in cols)
    rows = []
    for cid, r in verdicts.iterrows():
        claim = claims.get(cid, {}).get("claim_zh" if language == "zh" else "claim_en", r["claim_en"])
        verdict = r["verdict"]
        cls = {"as claimed": "ok", "consistent with the claim": "ok", "smaller than claimed": "less",
               "larger than claimed": "more"}.get(verdict, "na")
        part = money_in(r["shapley_usd"] * fx, currency, language, symbol=True) if math.isfinite(r["shapley_usd"]) else "–"
        if math.isfinite(r["shapley_usd"]) and project_usd and math.isfinite(project_usd) and project_usd > 0:
            part += " " + label("recipe_of_project", language).format(share=f"{r['shapley_usd'] / project_usd:+.1%}")
        saving = _percent(r["saving"])
        if math.isfinite(r["saving"]) and f"recipe_metric_{r['metric']}" in labels():
            saving += " " + label(f"recipe_metric_{r['metric']}", language)
        if verdict == "not applied" and cid == "spot" and steps and any(n.startswith("reserved") for n, _ in steps):
            verdict_note = " " + label("recipe_spot_instead", language)
        else:
            verdict_note = ""
        rows.append(f'<tr><td title="{html.escape(claim, quote=True)}">{html.escape(label(f"recipe_step_{cid}", language))}'
                    f'</td><td class="num">{html.escape(saving)}</td>'
                    f'<td class="num">{_claimed(r["claimed_low"], r["claimed_high"])}</td>'
                    f'<td class="verdict {cls}">{html.escape(label(_verdict_key(verdict), language) + verdict_note)}</td>'
                    f'<td class="num">{html.escape(part)}</td></tr>')
    return (f'<div class="explorer-recipe"><h4>{html.escape(label("recipe_title", language))}</h4>'
            f'{recipe_steps_html(steps, language)}<table><tr>{head}</tr>{"".join(rows)}</table></div>')


def _share(p: float) -> str:
    """A probability as a whole percentage, never rounded to a certainty it is not: "<1%", ">99%".

    >>> [_share(p) for p in (0.0, 0.004, 0.5, 0.996, 1.0)]
    ['0%', '<1%', '50%', '>99%', '100%']
    """
    if 0.0 < p < 0.01:
        return "<1%"
    if 0.99 < p < 1.0:
        return ">99%"
    return f"{p:.0%}"


#: A budget the point estimate is within, but with at least this probability of being exceeded, is shown
#: "within budget, at risk" (amber, not green): the one constant of explorer.analysis.budget.
AT_RISK = AT_RISK_PROBABILITY


def budget_html(status, simulation: Simulation | None, currency: str, fx: float, language: str = "en") -> str:
    """Budget status, probability of exceeding it and the deadline under a GPU cap.

    Parameters
    ----------
    status : explorer.analysis.BudgetStatus or None
        None: no budget entered.
    simulation : Simulation or None
        The draws behind ``status.probability_over`` (for the draw count).
    """
    if status is None:
        return f'<div class="explorer-note">{html.escape(label("budget_none", language))}</div>'
    key, css = f"budget_status_{status.status}", status.status
    if status.status == "at_risk":  # budget_status: within, but P(over) >= AT_RISK_PROBABILITY
        key, css = "budget_status_within_risk", "over"  # not a green "within" beside a real chance of going over
    ratio = label("budget_ratio", language).format(ratio=status.ratio, total=money_in(status.total_usd * fx, currency, language, symbol=True),
                                                   budget=money_in(status.budget_usd * fx, currency, language,
                                                                   symbol=True))
    lines = [f'<div class="explorer-budget {css}"><b>{html.escape(label(key, language))}</b> · '
             f"{html.escape(ratio)}</div>"]
    if simulation is not None:
        text = label("budget_probability", language).format(p=_share(status.probability_over), n=simulation.n)
        lines.append(f"<div>{html.escape(text)}</div>")
        if status.status == "at_risk" and isinstance(status.note, Message):
            lines.append(f'<div class="explorer-note">{html.escape(status.note.render(language, currency=(currency, fx)))}</div>')
        elif getattr(status, "note", ""):  # status and P(over) disagree: say why
            why = label("budget_disagree", language).format(
                median=f"{status.median_usd / status.total_usd - 1:+.1%}" if status.total_usd else "?")
            lines.append(f'<div class="explorer-note">{html.escape(why)}</div>')
    if status.gpu_cap is not None:
        cap = f"{int(status.gpu_cap):,}"
        if status.deadline_feasible is not None:
            text = (label("budget_deadline_ok", language).format(days=count_in(status.days, language), gpus=status.gpus_needed,
                                                                 cap=cap)
                    if status.deadline_feasible and status.within_gpu_cap
                    else label("budget_deadline_no", language).format(cap=cap))
        else:
            key = "budget_gpus_within_cap" if status.within_gpu_cap else "budget_gpus_over_cap"
            text = label(key, language).format(gpus=status.gpus_needed, cap=cap)
        lines.append(f"<div>{html.escape(text)}</div>")
    lines.append(f'<div class="explorer-note">{html.escape(label("budget_rule", language))}</div>')
    return "".join(lines)
