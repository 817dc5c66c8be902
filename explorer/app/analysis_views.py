"""The app's analysis views (issue 10): compare slots, "what changed" by lever, uncertainty, budget, savings recipe.

:class:`AnalysisViews` owns the widgets and figures of these views; the app
(:class:`~explorer.app.explorer_app.ExplorerApp`) places them in its tabs,
calls :meth:`AnalysisViews.update` with every result it shows and
:meth:`AnalysisViews.render` with the tab in view. Work is done only as needed:

* every update: one Monte Carlo run of :data:`APP_DRAWS` draws (the KPI
  cards' 90% range and the history marker's error bar are always in view);
* only when their tab is in view: the by-lever attribution (What changed, by
  lever), the comparison table and bars (Compare), the sensitivity tornado,
  the histogram and the budget status (Uncertainty and budget). A hidden view
  is marked stale and brought up to date when its tab is opened.

Figures are built once and updated in place (no pyplot). Amounts are
computed in USD and shown in the scenario's currency. A value the views
cannot use shows a message beside its control and the last good result stays.
"""

from __future__ import annotations

import contextlib
import html
import math
from typing import Callable, Iterator

import ipywidgets as w
import pandas as pd
from matplotlib.figure import Figure

from explorer import catalog
from explorer.analysis import (Simulation, attribute, budget_status, compare, sensitivity,
                               simulate)
from explorer.analysis.budget import AT_RISK_PROBABILITY
from explorer.app import export
from explorer.app.views import pricing_words, translate
from explorer.app.shared import AUTO_WIDTH, BUTTON_STYLE, HIDDEN, INPUT_STYLE, PLAIN, TEXT_STYLE, WRAP_ROW, shared
from explorer.app.shared import html as shared_html
from explorer.errors import ScenarioError, short_repr
from explorer.messages import Message
from explorer.scenario import Scenario
from explorer.model import COST_DIMENSIONS, Estimate, estimate
from explorer.plots.analysis import (SLOT_COLORS, CompareBarsPlot, LeverWaterfallPlot, SimulationPlot,
                                     TornadoPlot)
from explorer.plots.breakdown import freeze_layout
from explorer.text import NumberError, label, labels, money, parse_number, quantity, readable_number

__all__ = ["AnalysisViews", "SLOTS", "SLOT_NAME_MAX", "slot_title", "clean_slot_name", "APP_DRAWS", "APP_SEED",
           "compare_html", "recipe_html", "scenario_line", "budget_html", "parse_budget", "parse_gpu_cap"]

#: The compare slots; slot A is the baseline of "What changed".
SLOTS = ("A", "B", "C", "D")
SLOT_NAME_MAX = 40  # characters of a viewer's name for a slot

#: Monte Carlo draws per result shown [1]. The standard error of an estimated
#: P5 (or P95) is sqrt(0.05 x 0.95 / n) in probability: 0.22 percentage points
#: at 10,000 draws, so the KPI range's ends sit between the true P4.6 and P5.4
#: (2 standard errors), and the probability of exceeding a budget is within
#: +-1 percentage point (2 x sqrt(0.25 / n) at its worst, p = 0.5). Measured on
#: this machine: about 6 ms per run (benchmarks/bench_app.py).
APP_DRAWS = 10_000
#: Fixed seed: the same scenario always shows the same range (no flicker on a language switch).
APP_SEED = 0

_SHARED = AUTO_WIDTH  # shared by buttons (see explorer.app.shared)
_INPUT = shared(w.Layout, width="auto", flex="1 1 220px")
_NAME = shared(w.Layout, width="auto", flex="1 1 160px", max_width="260px")
_WRAP = WRAP_ROW
_INPUT_STYLE = INPUT_STYLE


# ---------------------------------------------------------------------------------------------- parsing
def _parse_number(text: str, currency: str | None = None) -> float | None:
    """A typed number as every box reads it (``10M``, ``2.5e6``, ``2,500,000``, ``500万``:
    :func:`explorer.text.parse_number`); None for a blank box; ValueError when not a number."""
    text = (text or "").strip()
    if not text:
        return None
    return parse_number(text, currency=currency)


def parse_budget(text: str, currency: str = "USD") -> float | None:
    """A typed budget [``currency``]: None for blank, ValueError unless a finite amount > 0.

    The box's own currency symbol is read (``$5M`` in a USD box, ``¥5M`` in a CNY box); the other one is
    refused with :class:`explorer.text.NumberError` (reason ``"currency"``), not converted: the box names its
    currency, and the viewer switches it there.

    >>> parse_budget("2,500,000"), parse_budget("10M"), parse_budget(""), parse_budget("$5M")
    (2500000.0, 10000000.0, None, 5000000.0)
    >>> parse_budget("500万", "CNY"), parse_budget("¥5M", "CNY"), parse_budget("5亿", "CNY")
    (5000000.0, 5000000.0, 500000000.0)
    """
    value = _parse_number(text, currency)
    if value is not None and not (math.isfinite(value) and value > 0):
        raise ValueError(text)
    return value


def _same_amount(text: str, amount: float, parse: Callable[[str], float | None]) -> bool:
    """Whether ``text`` reads (with ``parse``) as ``amount``, to 1 part in 10**9 (a typed box shown back as typed)."""
    try:
        value = parse(text)
    except ValueError:
        return False
    return value is not None and math.isclose(value, amount, rel_tol=1e-9)


def parse_gpu_cap(text: str) -> float | None:
    """A typed GPU cap [GPUs]: None for blank, ValueError unless a finite number >= 1.

    >>> parse_gpu_cap("4096"), parse_gpu_cap(" ")
    (4096.0, None)
    """
    value = _parse_number(text)
    if value is not None and not (math.isfinite(value) and value >= 1):
        raise ValueError(text)
    return value


# ---------------------------------------------------------------------------------------------- HTML views
def scenario_line(e: Estimate, language: str) -> str:
    """One line describing a scenario: size, tokens, cluster, precision, pricing."""
    return _scenario_text(e, language)


def _scenario_text(e: Estimate, language: str) -> str:
    """One line describing a scenario: size, tokens, cluster, precision, pricing."""
    s = e.scenario
    arch = " MoE" if s.architecture == "moe" else ""
    if s.architecture == "moe":
        arch += " " + label("slot_active", language).format(active=quantity(s.active_params_effective))
    return (f"{quantity(s.params)}{arch} · {quantity(s.tokens)} {label('term:tokens', language)} · {e.gpus:,} × "
            f"{catalog.accelerator(s.gpu).name} · {s.precision.upper()} · {pricing_words(e, language)}")


#: Fields the scenario line of a slot always shows (:func:`_scenario_text`); other differences are listed.
_IN_SCENARIO_TEXT = ("params", "architecture", "tokens", "gpu", "precision", "pricing", "seller", "gpus",
                     "deadline_days")


def _field_value_text(name: str, value, language: str) -> str:
    """A scenario field's value in words: choices by their label, regions by name, numbers as the boxes show them."""
    if value is None:
        return label("compare_default", language)
    if name == "region":
        from explorer.app.views import region_name

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
    if isinstance(value, (int, float)):
        return readable_number(float(f"{value:.6g}"))
    return str(value)


def differing_fields(scenarios: dict[str, Scenario]) -> list[str]:
    """Scenario fields whose values are not the same in every one of ``scenarios``, in the Scenario's order."""
    items = list(scenarios.values())
    if len(items) < 2:
        return []
    dicts = [sc.to_dict() for sc in items]
    return [k for k in dicts[0] if any(d.get(k) != dicts[0].get(k) for d in dicts[1:])]


def differences_text(scenario: Scenario, fields: list[str], language: str) -> str:
    """What sets ``scenario`` apart, beyond :func:`_scenario_text`: ``Region: Ningxia · Training kind: LoRA``."""
    values = scenario.to_dict()
    return " · ".join(f"{label(k, language).split(' [')[0] if k in labels() else k}: {_field_value_text(k, values[k], language)}"
                      for k in fields if k not in _IN_SCENARIO_TEXT)


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
    names = list(table.index)
    head = "".join(f'<th><span class="explorer-swatch" style="background:{SLOT_COLORS[SLOTS.index(n)]}"></span>'
                   f"{html.escape(slot_title(n, given.get(n, '')))}</th>" for n in names)
    unknown = label("unit_unknown", language)

    def cash(x: float) -> str:
        return money(x * fx, currency).replace("unknown", unknown)

    rows = [(label("compare_scenario", language), [_scenario_text(slots[n], language) for n in names], "desc")]
    differ = differing_fields({n: slots[n].scenario for n in names})
    if any(k not in _IN_SCENARIO_TEXT for k in differ):  # what else differs: region, training kind, overrides
        rows.append((label("compare_differs", language),
                     [differences_text(slots[n].scenario, differ, language) for n in names], "desc"))
    rows += [(label(f"dim_{d}", language), [cash(table.loc[n, f"{d}_usd"]) for n in names], "")
             for d in COST_DIMENSIONS]
    rows += [
        (label("kpi_total_project", language), [cash(table.loc[n, "total_usd"]) for n in names], "total"),
        (label("kpi_total_run", language), [cash(table.loc[n, "final_run_usd"]) for n in names], ""),
        (label("kpi_days", language), [f"{quantity(table.loc[n, 'days'])} {label('unit_days', language)}"
                                       for n in names], ""),
        (label("kpi_gpus", language), [f"{int(table.loc[n, 'gpus']):,}" for n in names], ""),
        (label("kpi_gpu_hours", language), [quantity(table.loc[n, "gpu_hours"]) for n in names], ""),
        (label("kpi_energy", language), [f"{quantity(table.loc[n, 'energy_mwh'])} {label('unit_mwh', language)}"
                                         for n in names], ""),
        (label("kpi_co2", language), [f"{quantity(table.loc[n, 'co2_tonnes'])} {label('unit_tco2', language)}"
                                      for n in names], ""),
        (label("kpi_per_token", language), [cash(table.loc[n, "usd_per_1m_tokens"]) for n in names], ""),
    ]
    if table["capex_usd"].notna().any():  # owned beside rented: what owning costs up front and when it pays back
        rows += [(label("owned_capex", language), [_owned_cell(table.loc[n, "capex_usd"], cash) for n in names], ""),
                 (label("owned_breakeven", language),
                  [_owned_cell(table.loc[n, "breakeven_months"], lambda m: _months(m, language)) for n in names], "")]
    body = "".join(f'<tr class="{cls}"><th>{html.escape(k)}</th>'
                   + "".join(f"<td>{html.escape(v.replace('unknown', unknown))}</td>" for v in values) + "</tr>"
                   for k, values, cls in rows)
    if currency == "USD":  # no exchange rate to state ("1 USD/USD")
        note = label("compare_note_usd", language)
    else:
        note = label("compare_note", language).format(currency=label(f"term:{currency}", language), fx=f"{fx:.4g}")
    link = export.download_link(export.compare_csv(titled, currency, fx,
                                                   scenarios=[slots[n].scenario for n in names]),
                                "text/csv", "comparison.csv",
                                label("download_compare", language))
    return (f'<div class="explorer-compare"><table><tr><th></th>{head}</tr>{body}</table></div>'
            f'<div class="explorer-note">{html.escape(note)}</div><div>{link}</div>')


def _owned_cell(x: float, fmt: Callable[[float], str]) -> str:
    """A cell of an owned-only row: "–" for a rented slot (NaN), else ``fmt(x)``."""
    return "–" if math.isnan(x) else fmt(x)


def _months(m: float, language: str) -> str:
    """A break-even in months: ``"34 months"``, or "∞" (never)."""
    return "∞" if math.isinf(m) else f"{m:.0f} {label('unit_months', language)}"


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
                label(f"arch_{b[k]}", language) if k == "architecture" else _field_value_text(k, b[k], language))
            parts.append(f"{label(k, language).split(' [')[0] if k in labels() else k}: {value}")
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
        part = money(r["shapley_usd"] * fx, currency) if math.isfinite(r["shapley_usd"]) else "–"
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
    ratio = label("budget_ratio", language).format(ratio=status.ratio, total=money(status.total_usd * fx, currency),
                                                   budget=money(status.budget_usd * fx, currency))
    lines = [f'<div class="explorer-budget {css}"><b>{html.escape(label(key, language))}</b> · '
             f"{html.escape(ratio)}</div>"]
    if simulation is not None:
        text = label("budget_probability", language).format(p=_share(status.probability_over), n=simulation.n)
        lines.append(f"<div>{html.escape(text)}</div>")
        if status.status == "at_risk" and isinstance(status.note, Message):
            lines.append(f'<div class="explorer-note">{html.escape(status.note.render(language))}</div>')
        elif getattr(status, "note", ""):  # status and P(over) disagree: say why
            why = label("budget_disagree", language).format(
                median=f"{status.median_usd / status.total_usd - 1:+.1%}" if status.total_usd else "?")
            lines.append(f'<div class="explorer-note">{html.escape(why)}</div>')
    if status.gpu_cap is not None:
        cap = f"{int(status.gpu_cap):,}"
        if status.deadline_feasible is not None:
            text = (label("budget_deadline_ok", language).format(days=quantity(status.days), gpus=status.gpus_needed,
                                                                 cap=cap)
                    if status.deadline_feasible and status.within_gpu_cap
                    else label("budget_deadline_no", language).format(cap=cap))
        else:
            key = "budget_gpus_within_cap" if status.within_gpu_cap else "budget_gpus_over_cap"
            text = label(key, language).format(gpus=status.gpus_needed, cap=cap)
        lines.append(f"<div>{html.escape(text)}</div>")
    lines.append(f'<div class="explorer-note">{html.escape(label("budget_rule", language))}</div>')
    return "".join(lines)


# ---------------------------------------------------------------------------------------------- the views
class AnalysisViews:
    """Widgets, figures and state of the analysis views.

    Parameters
    ----------
    make_figure : callable
        ``make_figure(width_in, height_in)`` -> a Figure shown through a widget canvas [in].
    baseline : Estimate
        The first content of slot A (the baseline of "What changed").
    language : {"en", "zh"}
    on_baseline : callable
        Called with the Estimate pinned to slot A (the app makes it its baseline).
    on_recipe : callable
        Called when the savings-recipe button is clicked.
    on_error : callable
        Called with a message when an action fails unexpectedly (never a traceback).
    after_draw : callable, optional
        Called with each figure after it was drawn (the app fixes the first image of its canvas).

    Attributes
    ----------
    slots : dict of str to Estimate or None
        The pinned scenarios A-D (None: empty).
    simulation : Simulation or None
        Draws of the current result (:data:`APP_DRAWS`, seed :data:`APP_SEED`).
    budget_usd, gpu_cap : float or None
        The last good budget [USD] and GPU cap [GPUs].
    status : explorer.analysis.BudgetStatus or None
        Budget status of the current result (None without a budget).
    verdicts : pandas.DataFrame or None
        Verdicts of the last savings recipe applied.
    """

    def __init__(self, make_figure: Callable[[float, float], Figure], baseline: Estimate, language: str = "en", *,
                 on_baseline: Callable[[Estimate], None], on_recipe: Callable[[], None],
                 on_error: Callable[[str], None], after_draw: Callable[[Figure], None] = lambda fig: None):
        self.language = language
        self.on_baseline, self.on_recipe, self.on_error, self.after_draw = on_baseline, on_recipe, on_error, after_draw
        self.slots: dict[str, Estimate | None] = {s: None for s in SLOTS}
        self.slots["A"] = baseline
        self.slot_names: dict[str, str] = {s: "" for s in SLOTS}  # the viewer's names, "" for none
        self.estimate = baseline
        self.simulation: Simulation | None = None
        self._sim_scenario = None
        self.budget_usd: float | None = None
        self.gpu_cap: float | None = None
        self.status = None
        self.verdicts: pd.DataFrame | None = None
        self.table: pd.DataFrame | None = None
        self.attribution = None
        self.sensitivity_table: pd.DataFrame | None = None
        self._stale: set[str] = {"compare", "lever", "uncertainty"}
        self._relabel: set = set()  # charts to relabel in self.language before their next update
        self._layouts: dict[Figure, tuple] = {}
        self._currency = (baseline.scenario.currency, baseline.usd_to_currency)

        # Compare
        self.slot_choice = w.ToggleButtons(options=SLOTS, value="B", style={"button_width": "42px"}, layout=PLAIN)
        self.pin_slot_button = w.Button(icon="thumb-tack", layout=_SHARED, style=BUTTON_STYLE)
        self.clear_slot_button = w.Button(icon="times", layout=_SHARED, style=BUTTON_STYLE)
        self.slot_name_box = w.Text(value="", continuous_update=False, layout=_NAME, style=TEXT_STYLE)
        self.slot_name_box.add_class("explorer-slot-name")
        self.pin_slot_button.on_click(lambda _b: self._safely(self.pin, self.slot_choice.value, None))
        self.clear_slot_button.on_click(lambda _b: self._safely(self.clear, self.slot_choice.value))
        self.compare_message = shared_html()
        self.compare_html = shared_html()
        self.compare_plot = CompareBarsPlot(make_figure(9.0, 3.7), language=language)
        row = w.HBox([self.slot_choice, self.slot_name_box, self.pin_slot_button, self.clear_slot_button],
                     layout=_WRAP)
        row.add_class("explorer-slot-row")
        self.compare_tab = w.VBox([row, self.compare_message, self.compare_html, self.compare_plot.figure.canvas],
                                  layout=PLAIN)
        self.compare_tab.add_class("explorer-compare-tab")
        self.compare_tab.add_class("explorer-chart-scroll")  # on a phone the chart scrolls sideways (views.STYLE)

        # What changed: by dimension or by lever, and the savings recipe
        self.mode = w.ToggleButtons(options=[("", "dimension"), ("", "lever")], value="dimension", layout=PLAIN)
        self.mode.observe(lambda _c: self._safely(self._on_mode), names="value")
        self.lever_plot = LeverWaterfallPlot(make_figure(9.0, 3.7), language=language)
        self.lever_plot.figure.canvas.layout.display = "none"
        # which levers could not be separated, in words (Attribution.note); its own layout, shown with the chart
        self.lever_note = shared_html(layout=HIDDEN)  # shown by swapping shared layouts, as rows are
        self.lever_note.add_class("explorer-lever-note")
        self.lever_note.add_class("explorer-analysis-html")
        self.recipe_button = w.Button(icon="magic", layout=_SHARED, style=BUTTON_STYLE)
        self.recipe_button.on_click(lambda _b: self._safely(self.on_recipe))
        self.recipe_html = shared_html()
        self.recipe_html.add_class("explorer-recipe-box")
        self._dimension_canvas = None

        # Uncertainty and budget
        self.budget_box = w.Text(value="", continuous_update=False, style=_INPUT_STYLE, layout=_INPUT)
        self.cap_box = w.Text(value="", continuous_update=False, style=_INPUT_STYLE, layout=_INPUT)
        self.budget_box.add_class("explorer-budget-input")
        self.cap_box.add_class("explorer-gpu-cap-input")
        self.budget_box.observe(lambda _c: self._safely(self._on_budget), names="value")
        self.cap_box.observe(lambda _c: self._safely(self._on_budget), names="value")
        self.budget_message = shared_html()
        self.budget_message.add_class("explorer-budget-message")
        self.budget_status_html = shared_html()
        self.budget_status_html.add_class("explorer-budget-status")
        fig = make_figure(9.0, 7.2)
        top, bottom = fig.subfigures(2, 1, height_ratios=(1.0, 1.0))
        self.uncertainty_figure = fig
        self.simulation_plot = SimulationPlot(top, language=language)
        self.tornado = TornadoPlot(bottom, language=language)
        budget_row = w.HBox([self.budget_box, self.cap_box], layout=PLAIN)
        budget_row.add_class("explorer-budget-row")
        self.uncertainty_tab = w.VBox([budget_row, self.budget_message, self.budget_status_html, fig.canvas],
                                      layout=PLAIN)
        self.uncertainty_tab.add_class("explorer-uncertainty-tab")
        self.uncertainty_tab.add_class("explorer-chart-scroll")  # on a phone the chart scrolls sideways (views.STYLE)
        self._muted = False
        for view in (self.compare_message, self.compare_html, self.recipe_html, self.budget_message,
                     self.budget_status_html):
            view.add_class("explorer-analysis-html")  # wraps and scrolls within the panel (views.STYLE)
        self.figures = (self.compare_plot.figure, self.lever_plot.figure, self.uncertainty_figure)
        for f, name in zip(self.figures, ("compare", "lever", "uncertainty")):
            f.canvas.add_class("explorer-chart")
            f.canvas.add_class(f"explorer-{name}-chart")
        self.set_language(language)

    # ------------------------------------------------------------------ layout helpers
    def what_changed_children(self, pin_button: w.Widget, dimension_canvas: w.Widget) -> list[w.Widget]:
        """The "What changed" tab: pin button, by-dimension/by-lever toggle, both charts (one shown), recipe."""
        self._dimension_canvas = dimension_canvas
        return [pin_button, self.mode, dimension_canvas, self.lever_plot.figure.canvas, self.lever_note,
                self.recipe_button, self.recipe_html]

    def _safely(self, fn: Callable, *args) -> None:
        """Run a widget callback; an unexpected error becomes a message, never a traceback."""
        try:
            fn(*args)
        except Exception as exc:  # noqa: BLE001 - shown to the viewer, never a traceback
            self.on_error(Message("app_error", kind=type(exc).__name__, detail=str(exc)))

    # ------------------------------------------------------------------ language
    def set_language(self, language: str) -> None:
        """Relabel every widget and figure in ``language`` (the figures are drawn when next shown)."""
        self.language = lang = language
        self.pin_slot_button.description = label("compare_pin", lang)
        self.clear_slot_button.description = label("compare_clear", lang)
        self.slot_name_box.placeholder = label("compare_name_placeholder", lang)
        self.slot_choice.tooltips = [f"{label('compare_slot', lang)} {s}" for s in SLOTS]
        with self._mute():
            self.mode.options = [(label("waterfall_by_dimension", lang), "dimension"),
                                 (label("waterfall_by_lever", lang), "lever")]
        self.recipe_button.description = label("recipe_button", lang)
        self.recipe_button.tooltip = label("recipe_note", lang)
        self.budget_box.description = label("budget_label", lang) + f" ({self._currency[0]})"
        self.budget_box.placeholder = label("budget_placeholder", lang)
        self.cap_box.description = label("budget_gpu_cap", lang)
        self.cap_box.placeholder = label("budget_cap_placeholder", lang)
        # the charts are relabelled when their view is next brought up to date (_render): a language switch
        # then costs nothing for the hidden ones (their legends are rebuilt, about 1.5 ms each)
        self._relabel = {self.compare_plot, self.lever_plot, self.simulation_plot, self.tornado}
        if self.compare_message.value:
            self.compare_message.value = ""
        if self.budget_message.value:  # a refused budget or cap on screen: say it again in the new language
            self._on_budget()
        self.refresh_recipe()
        self._stale |= {"compare", "lever", "uncertainty"}

    @contextlib.contextmanager
    def _mute(self) -> Iterator[None]:
        """Change widgets without running their observers."""
        self._muted = True
        try:
            yield
        finally:
            self._muted = False

    # ------------------------------------------------------------------ updates
    def update(self, e: Estimate, baseline: Estimate, visible: str) -> None:
        """Take a new result: simulate it (always), mark the views stale, bring the visible one up to date.

        Parameters
        ----------
        e : Estimate
            The result shown.
        baseline : Estimate
            The app's baseline (kept in slot A).
        visible : str
            Key of the tab in view (``"waterfall"``, ``"compare"``, ``"uncertainty"``, ...).
        """
        self.estimate = e
        self.slots["A"] = baseline  # the viewer's names of the slots stay (they name what was pinned)
        currency = (e.scenario.currency, e.usd_to_currency)
        if currency != self._currency:
            self._currency = currency
            self.budget_box.description = label("budget_label", self.language) + f" ({currency[0]})"
            if self.budget_usd is not None:
                with self._mute():
                    self.budget_box.value = export.plain_decimal(round(self.budget_usd * currency[1], 2))
        if self._sim_scenario is None or self._sim_scenario != e.scenario:
            try:
                self.simulation = simulate(e.scenario, n=APP_DRAWS, seed=APP_SEED)
            except (ScenarioError, ValueError, FloatingPointError):
                self.simulation = None
            self._sim_scenario = e.scenario
        self._stale |= {"compare", "lever", "uncertainty"}
        self.render(visible)

    def interval(self, scope: str) -> tuple[float, float] | None:
        """P5 and P95 of the total of ``scope`` ("project" or "run") in the result's currency, or None."""
        sim = self.simulation
        if sim is None:
            return None
        low, high = sim.interval_usd if scope == "project" else sim.run_interval_usd
        fx = self.estimate.usd_to_currency
        return (low * fx, high * fx) if math.isfinite(low) and math.isfinite(high) else None

    def run_interval_usd(self) -> tuple[float | None, float | None]:
        """P5 and P95 of the final run's machine cost [USD] (the history marker's error bar), or (None, None)."""
        if self.simulation is None:
            return None, None
        return self.simulation.run_interval_usd

    def render(self, visible: str) -> None:
        """Bring the view of the tab ``visible`` up to date and draw its figure (other views stay stale).

        An unexpected error becomes a message (``on_error``); the other views and the app go on.
        """
        try:
            self._render(visible)
        except Exception as exc:  # noqa: BLE001 - shown to the viewer, never a traceback
            self.on_error(Message("app_error", kind=type(exc).__name__, detail=str(exc)))

    def _on_screen(self, visible: str) -> Figure | None:
        """The figure of these views on screen when the tab ``visible`` is shown (None: none of them)."""
        if visible == "waterfall":
            return self.lever_plot.figure if self.mode.value == "lever" else None
        return {"compare": self.compare_plot.figure, "uncertainty": self.uncertainty_figure}.get(visible)

    def _show_only(self, visible: str) -> None:
        """Let only the chart on screen answer the browser's draw requests; give it what it deferred."""
        on_screen = self._on_screen(visible)
        for fig in self.figures:
            fig.canvas.shown = fig is on_screen
        if on_screen is not None and on_screen.canvas.deferred:
            stale = {self.lever_plot.figure: "lever", self.compare_plot.figure: "compare",
                     self.uncertainty_figure: "uncertainty"}[on_screen] in self._stale
            on_screen.canvas.reveal(draw=not stale)  # one image: the draw that follows sends it whole

    def _relabelled(self, *plots) -> None:
        """Put ``plots`` in the current language if a language switch left them behind."""
        for plot in plots:
            if plot in self._relabel:
                self._relabel.discard(plot)
                plot.set_language(self.language)

    def _render(self, visible: str) -> None:
        self._show_only(visible)
        if visible == "waterfall" and self.mode.value == "lever" and "lever" in self._stale:
            self._stale.discard("lever")
            self._relabelled(self.lever_plot)
            self._update_lever()
            self._draw(self.lever_plot.figure)
        elif visible == "compare" and "compare" in self._stale:
            self._stale.discard("compare")
            self._relabelled(self.compare_plot)
            self._update_compare()
            self._draw(self.compare_plot.figure)
        elif visible == "uncertainty" and "uncertainty" in self._stale:
            self._stale.discard("uncertainty")
            self._relabelled(self.simulation_plot, self.tornado)
            self._update_uncertainty()
            self._draw(self.uncertainty_figure)

    def figure_for_export(self, key: str) -> Figure | None:
        """The Compare or Uncertainty figure brought up to date for a download (not drawn on its canvas).

        ``key`` is ``"compare"`` (None while no slot is pinned), ``"uncertainty"`` or ``"lever"`` (the "what
        changed" chart by lever). The
        view's data are updated as when its tab opens; the widget canvas draws them when shown.
        """
        if key == "compare":
            if not self._pinned():
                return None
            if "compare" in self._stale:
                self._stale.discard("compare")
                self._relabelled(self.compare_plot)
                self._update_compare()
            return self.compare_plot.figure
        if key == "uncertainty":
            if "uncertainty" in self._stale:
                self._stale.discard("uncertainty")
                self._relabelled(self.simulation_plot, self.tornado)
                self._update_uncertainty()
            return self.uncertainty_figure
        if key == "lever":  # the "what changed" chart by lever (None when the attribution has no finite end)
            if "lever" in self._stale:
                self._stale.discard("lever")
                self._relabelled(self.lever_plot)
                self._update_lever()
            return self.lever_plot.figure if self.attribution is not None else None
        raise KeyError(key)

    def _layout_key(self, fig: Figure) -> tuple:
        """What the figure's margins depend on: its language, currency and tick labels."""
        common = (self.language, self.estimate.scenario.currency)
        if fig is self.uncertainty_figure:
            return (*common, tuple(sorted(self.tornado.names)))
        if fig is self.lever_plot.figure:
            return (*common, tuple(self.lever_plot.keys))
        return (*common, tuple(self.compare_plot.slot_names))

    def _draw(self, fig: Figure) -> None:
        """Draw ``fig``; lay it out again (constrained layout, about 40% of a draw) only when its labels changed."""
        key = self._layout_key(fig)
        if self._layouts.get(fig) != key:
            freeze_layout(fig)  # a full draw with the layout engine, then the axes stay where it put them
            self._layouts[fig] = key
        else:
            fig.canvas.draw()
        self.after_draw(fig)

    def _update_lever(self) -> None:
        base, e = self.slots["A"] or self.estimate, self.estimate
        try:
            self.attribution = attribute(base.scenario, e.scenario)
        except ScenarioError as exc:  # an end with no finite cost: say so instead of showing empty bars
            self.attribution = None
            self.lever_note.value = f'<div class="explorer-note">{html.escape(exc.render(self.language))}</div>'
            return
        note = self.attribution.note(self.language)
        self.lever_note.value = f'<div class="explorer-note">{html.escape(note)}</div>' if note else ""
        self.lever_plot.update(self.attribution, e.scenario.currency, e.usd_to_currency, draw=False)

    def _pinned(self) -> dict[str, Estimate]:
        return {s: est for s, est in self.slots.items() if est is not None}

    def _update_compare(self) -> None:
        e = self.estimate
        pinned = self._pinned()
        self.table = compare({s: est.scenario for s, est in pinned.items()}, scenario_columns=False) if pinned else None
        cur, fx = e.scenario.currency, e.usd_to_currency
        warned = self.table.attrs.get("warnings", []) if self.table is not None else []
        self.compare_html.value = (compare_html(self.slots, self.table, cur, fx, self.language, self.slot_names)
                                   + "".join(f'<div class="explorer-message">{html.escape(translate(m, self.language))}'
                                             "</div>" for m in warned))
        if self.table is not None:
            titled = self.table.rename(index=lambda s: slot_title(s, self.slot_names[s]))
            self.compare_plot.update(titled, cur, fx, draw=False, styles=[SLOTS.index(s) for s in self.table.index])

    def _update_uncertainty(self) -> None:
        e = self.estimate
        cur, fx = e.scenario.currency, e.usd_to_currency
        self.sensitivity_table = sensitivity(e.scenario)
        self.tornado.update(self.sensitivity_table, cur, fx, draw=False)
        if self.simulation is not None:
            self.simulation_plot.update(self.simulation, cur, fx, draw=False)
        self._update_budget_status()

    def _update_budget_status(self) -> None:
        e = self.estimate
        if self.budget_usd is None:
            self.status = None
        else:
            self.status = budget_status(e.scenario, self.budget_usd, simulation=self.simulation, gpu_cap=self.gpu_cap)
        note = label("uncertainty_note", self.language).format(n=APP_DRAWS)
        self.budget_status_html.value = (budget_html(self.status, self.simulation, e.scenario.currency,
                                                     e.usd_to_currency, self.language)
                                         + f'<div class="explorer-note">{html.escape(note)}</div>')

    # ------------------------------------------------------------------ actions
    def pin(self, slot: str, estimate: Estimate | None = None, name: str | None = None) -> None:
        """Pin ``estimate`` (default: the current result) to ``slot``; slot A becomes the app's baseline.

        ``name`` (default: the name box's text, which is then emptied) names the
        slot in the table, the chart and the CSV, after its letter; blank for none.
        """
        if slot not in SLOTS:
            raise ScenarioError("slot", slot, Message("allowed_choices", choices=list(SLOTS), field="slot"))
        estimate = estimate or self.estimate
        if name is None:
            name, self.slot_name_box.value = self.slot_name_box.value, ""
        self.slot_names[slot] = clean_slot_name(name)
        self.slots[slot] = estimate
        self.compare_message.value = ""
        self._stale |= {"compare", "lever"}
        if slot == "A":
            self.on_baseline(estimate)  # the app updates its waterfall and renders the tab in view
        else:
            self.render("compare")

    def clear(self, slot: str) -> bool:
        """Empty ``slot``; slot A (the baseline) is kept, with a message beside the buttons.

        Returns
        -------
        bool
            False when the slot was kept.
        """
        if slot == "A":
            self.compare_message.value = (f'<div class="explorer-message">'
                                          f'{html.escape(label("compare_slot_a_kept", self.language))}</div>')
            return False
        self.slots[slot] = None
        self.slot_names[slot] = ""
        self.compare_message.value = ""
        self._stale.add("compare")
        self.render("compare")
        return True

    def _on_mode(self) -> None:
        if self._muted:
            return
        lever = self.mode.value == "lever"
        if self._dimension_canvas is not None:
            self._dimension_canvas.layout.display = "none" if lever else None
            self._dimension_canvas.shown = not lever
            if not lever and self._dimension_canvas.deferred:
                self._dimension_canvas.reveal()
        self.lever_plot.figure.canvas.layout.display = None if lever else "none"
        self.lever_note.layout = PLAIN if lever else HIDDEN
        self.render("waterfall")

    def show_recipe(self, verdicts: pd.DataFrame | None, steps: list | None = None,
                    project_usd: float | None = None) -> None:
        """Show the verdicts of an applied recipe (None: nothing could be applied) and the by-lever view.

        ``steps`` (the recipe's scenarios) are listed with every change; ``project_usd`` (the total before)
        gives each by-lever part as a share of the project.
        """
        self.verdicts = verdicts
        self._recipe_context = (steps, project_usd)
        e = self.estimate
        if verdicts is None:
            self.recipe_html.value = f'<div class="explorer-note">{html.escape(label("recipe_none", self.language))}</div>'
            return
        self.recipe_html.value = recipe_html(verdicts, e.scenario.currency, e.usd_to_currency, self.language,
                                             *self._recipe_context)
        self.mode.value = "lever"

    def refresh_recipe(self) -> None:
        """Show the last verdicts again in the current language and currency."""
        if self.verdicts is not None:
            e = self.estimate
            self.recipe_html.value = recipe_html(self.verdicts, e.scenario.currency, e.usd_to_currency, self.language,
                                                 *getattr(self, "_recipe_context", (None, None)))

    # ------------------------------------------------------------------ the decision in a link
    def decision_items(self) -> dict[str, str]:
        """The budget, GPU cap, pinned slots (scenario and name) and the "what changed" view (``view=lever``) as
        share-link keys (see :mod:`explorer.app.query`). The budget and cap travel as typed too (``5M``), when
        the box still holds what they were read from."""
        from explorer.app.query import query_from_scenario

        items: dict[str, str] = {}
        fx = self.estimate.usd_to_currency
        if self.budget_usd is not None:
            items["budget_usd"] = export.plain_decimal(self.budget_usd)  # exact: the box shows it back in its currency
            typed = self.budget_box.value.strip()[:40]
            if typed and typed != export.plain_decimal(round(self.budget_usd * fx, 2)) \
                    and _same_amount(typed, self.budget_usd * fx, parse_budget):
                items["budget_text"] = typed
        if self.gpu_cap is not None:
            typed = self.cap_box.value.strip()[:40]
            items["gpu_cap"] = (typed if _same_amount(typed, self.gpu_cap, parse_gpu_cap)
                                else export.plain_decimal(self.gpu_cap))
        if self.mode.value == "lever":
            items["view"] = "lever"
        for slot, est in self.slots.items():
            if est is not None:
                items[f"slot_{slot}"] = query_from_scenario(est.scenario) or "default"
                if self.slot_names[slot]:
                    items[f"name_{slot}"] = self.slot_names[slot]
        return items

    def apply_decision(self, extras: dict[str, str]) -> list[ScenarioError]:
        """Restore what :meth:`decision_items` wrote: budget, GPU cap, slots and their names.

        Anything unusable is left out (a link comes from anyone), the rest is applied.

        Returns
        -------
        list of ScenarioError
            Why each value left out was refused (a budget or GPU cap that is no amount, a slot's number out
            of its range, ``1e1000000``), for the app's banner.
        """
        from explorer.app.query import refused_fields_from_query, scenario_from_query

        refused: list[ScenarioError] = []
        for slot in SLOTS:
            text = extras.get(f"slot_{slot}")
            if text is None:
                continue
            refused += [ScenarioError(f"slot_{slot}", f"{err.field}={err.value}", err.allowed)
                        for err in refused_fields_from_query(text)]
            scenario = scenario_from_query("" if text == "default" else text)
            if scenario is None:
                continue
            try:
                est = estimate(scenario)
            except (ScenarioError, ValueError):
                continue
            self.pin(slot, est, name=extras.get(f"name_{slot}", ""))
        if extras.get("view") in ("lever", "dimension"):
            self.mode.value = extras["view"]
        budget = cap = None
        try:
            budget = parse_budget(extras.get("budget_usd", ""), "USD")  # a link's budget is in US dollars
        except ValueError:
            refused.append(ScenarioError("budget_usd", extras["budget_usd"], Message("allowed_budget")))
        try:
            cap = parse_gpu_cap(extras.get("gpu_cap", ""))
        except ValueError:
            refused.append(ScenarioError("gpu_cap", extras["gpu_cap"], Message("allowed_gpu_cap")))
        if budget is None and cap is None:
            return refused
        fx = self.estimate.usd_to_currency
        with self._mute():
            if budget is not None:
                typed = extras.get("budget_text", "")[:40]  # as typed (5M), if it is the same amount
                self.budget_box.value = (typed if _same_amount(typed, budget * fx, parse_budget)
                                         else export.plain_decimal(round(budget * fx, 2)))
            if cap is not None:
                typed = extras.get("gpu_cap", "")[:40]
                self.cap_box.value = typed if _same_amount(typed, cap, parse_gpu_cap) else export.plain_decimal(cap)
        self.budget_usd, self.gpu_cap = budget, cap
        self._update_budget_status()
        return refused

    def _on_budget(self) -> None:
        if self._muted:
            return
        fx = self.estimate.usd_to_currency
        messages = []
        budget, cap = self.budget_usd, self.gpu_cap
        try:
            value = parse_budget(self.budget_box.value, self._currency[0])
            budget = None if value is None else value / fx
        except NumberError as exc:
            key = {"currency": "budget_currency", "comma": "budget_comma"}.get(exc.reason, "budget_bad")
            messages.append(label(key, self.language).format(symbol=exc.symbol, currency=self._currency[0])
                            + f": {short_repr(self.budget_box.value.strip(), 40)}")
        except ValueError:
            messages.append(label("budget_bad", self.language) + f": {short_repr(self.budget_box.value.strip(), 40)}")
        try:
            cap = parse_gpu_cap(self.cap_box.value)
        except ValueError:
            messages.append(label("budget_cap_bad", self.language) + f": {short_repr(self.cap_box.value.strip(), 40)}")
        self.budget_message.value = "".join(f'<div class="explorer-message">{html.escape(m)}</div>' for m in messages)
        if messages:
            return  # the last good status stays
        self.budget_usd, self.gpu_cap = budget, cap
        self._update_budget_status()
