"""The Plan tab: "What can I train for $5M by June?" (issue 27).

The viewer types a budget and, optionally, picks the accelerator, the price basis, a deadline, a GPU cap and
what the budget pays for (the whole project or the final run). :func:`explorer.analysis.plan` answers with the
largest compute-optimal model (about 20 tokens per parameter, the Chinchilla rule of lesson 3), its cluster
and its costs; :func:`explorer.analysis.plan_curve` draws "model size you can afford" against the budget with
the viewer's budget marked. "Use this plan" loads the planned scenario into the app.

Everything else (region, team, precision, data, ...) comes from the scenario shown in the app. The tab holds
an empty box until it is first opened: a page that never opens it builds none of its widgets.
"""

from __future__ import annotations

import html
import math
from typing import TYPE_CHECKING, Any, Callable

import ipywidgets as w
import numpy as np
from matplotlib.figure import Figure

from explorer import catalog
from explorer.analysis import plan, plan_curve
from explorer.analysis.plan import PLAN_SCOPES, Plan
from explorer.app.tabs.lazy_tab import LazyTab
from explorer.app.surface import ChartSurface
from explorer.app.ipympl_private import canvas_of
from explorer.app.typed_input import parse_budget, parse_deadline, parse_gpu_cap
from explorer.app.shared import (AUTO_WIDTH, BUTTON_STYLE, DESCRIPTION_STYLE, FLEX_INPUT, INPUT_STYLE, PLAIN,
                                 TOGGLE_STYLE, WRAP_ROW, html as shared_html)
from explorer.app.pages.estimate_html import translate
from explorer.errors import ScenarioError
from explorer.messages import Message
from explorer.model import Estimate
from explorer.plots.plan import PlanCurvePlot
from explorer.app.bindings import seller_options
from explorer.scenario import PRICING_MODES, SELLERS, Scenario
from explorer.text import breakeven_text, count_in, label, money_in, power_of_ten, readable_number

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["PlanView", "plan_html", "typed_size", "DEFAULT_BUDGET_TEXT", "CURVE_DECADES", "parse_deadline", "LINK_KEYS", "LINK_TEXT_MAX"]

#: The budget the tab starts with: the question of issue 27 ("What can I train for $5M by June?"), in the
#: app's currency.
DEFAULT_BUDGET_TEXT = "5M"
#: The curve spans the budget / 10**CURVE_DECADES to budget * 10**CURVE_DECADES, CURVE_POINTS_PER_DECADE
#: points a decade (4 decades, 9 points: each plan is a bisection of about 14 estimates).
CURVE_DECADES = 2
CURVE_POINTS_PER_DECADE = 2
_INPUT, _ROW, _TEXT_STYLE = FLEX_INPUT, WRAP_ROW, INPUT_STYLE
#: The Plan tab's inputs in a share link (see :meth:`PlanView.decision_items`).
LINK_KEYS = ("plan_budget", "plan_gpu", "plan_pricing", "plan_seller", "plan_deadline", "plan_cap", "plan_scope")
#: The longest typed value a link may give a box [characters]: the same bound as the budget's ``budget_text``.
LINK_TEXT_MAX = 40


def _link_checks() -> dict[str, tuple[Callable[[str], bool], Message]]:
    """Per link key: whether a value is allowed, and what is allowed (for the banner's refusal)."""
    gpus, scopes = list(catalog.accelerators()), list(PLAN_SCOPES)

    def reads(parse: Callable[[str], float | None]) -> Callable[[str], bool]:
        def ok(text: str) -> bool:
            try:
                return parse(text) is not None
            except ValueError:
                return False
        return ok

    return {"plan_budget": (reads(parse_budget), Message("allowed_plan_budget")),
            "plan_gpu": (lambda t: t in gpus, Message("allowed_choices", choices=gpus, field="gpu")),
            "plan_pricing": (lambda t: t in PRICING_MODES,
                             Message("allowed_choices", choices=list(PRICING_MODES), field="pricing")),
            "plan_seller": (lambda t: t in SELLERS, Message("allowed_choices", choices=list(SELLERS), field="seller")),
            "plan_deadline": (reads(parse_deadline), Message("allowed_plan_deadline")),
            "plan_cap": (reads(parse_gpu_cap), Message("allowed_gpu_cap")),
            "plan_scope": (lambda t: t in scopes, Message("allowed_choices", choices=scopes, field="plan_scope"))}


class PlanView(LazyTab):
    """The Plan tab: inputs, the plan, the curve and "Use this plan".

    Parameters
    ----------
    make_figure : callable
        ``make_figure(width_in, height_in)`` -> a Figure on a widget canvas.
    language : {"en", "zh"}
    on_use : callable
        Called with the planned :class:`~explorer.scenario.Scenario` when the viewer clicks "Use this plan".
    on_error : callable
        Called with a message when something fails (shown by the app, never a traceback).

    Attributes
    ----------
    plan : Plan or None
        The plan shown (the last good one).
    curve : pandas.DataFrame or None
        The curve shown (rows of :func:`~explorer.analysis.plan_curve`).
    budget_usd : float
        The budget of the plan shown [USD].
    """

    key = "plan"

    def __init__(self, make_figure: Callable[[float, float], Figure], language: str = "en", *,
                 on_use: Callable[[Scenario], object], on_error: Callable[[Message], object] = lambda m: None):
        super().__init__(language, on_error=on_error, css_class="explorer-plan")
        self.make_figure, self.on_use = make_figure, on_use
        self.estimate: Estimate | None = None
        self.plan: Plan | None = None
        self.curve: pd.DataFrame | None = None
        self.budget_usd = math.nan
        self._curve_key: tuple[Scenario, tuple[tuple[str, Any], ...], float] | None = None
        self._linked: dict[str, str] = {}  # the inputs a share link gave, set when the tab is built


    # ------------------------------------------------------------------ building
    def _build(self) -> None:
        self.intro = shared_html()
        self.budget_box = w.Text(value=DEFAULT_BUDGET_TEXT, continuous_update=False, layout=_INPUT, style=_TEXT_STYLE)
        self.budget_box.add_class("explorer-plan-budget")
        self.gpu = w.Dropdown(layout=_INPUT, style=DESCRIPTION_STYLE)
        self.pricing = w.Dropdown(layout=_INPUT, style=DESCRIPTION_STYLE)
        self.seller = w.Dropdown(layout=_INPUT, style=DESCRIPTION_STYLE)  # one provider, or as the scenario
        self.seller.add_class("explorer-plan-seller")
        self.deadline_box = w.Text(value="", continuous_update=False, layout=_INPUT, style=_TEXT_STYLE)
        self.deadline_box.add_class("explorer-plan-deadline")
        self.cap_box = w.Text(value="", continuous_update=False, layout=_INPUT, style=_TEXT_STYLE)
        self.cap_box.add_class("explorer-plan-cap")
        self.scope = w.ToggleButtons(options=[("", s) for s in PLAN_SCOPES], value="project", style=TOGGLE_STYLE,
                                     layout=PLAIN)
        self.message = shared_html()
        self.message.add_class("explorer-plan-message")
        self.result = shared_html()
        self.result.add_class("explorer-plan-result")
        self.use_button = w.Button(layout=AUTO_WIDTH, style=BUTTON_STYLE, icon="check")
        self.use_button.add_class("explorer-plan-use")
        self.use_button.on_click(lambda _b: self._safely(self.use_plan))
        self.chart = PlanCurvePlot(self.make_figure(9.0, 3.7), language=self.language)
        canvas_of(self.chart.figure).add_class("explorer-chart")
        canvas_of(self.chart.figure).add_class("explorer-plan-chart")
        #: the curve; its redraw plans again and writes the plan beside it (the tab's out-of-date work)
        self.charts[self.key] = ChartSurface.of(self.chart.figure, self._refresh)
        for box in (self.budget_box, self.gpu, self.pricing, self.seller, self.deadline_box, self.cap_box, self.scope):
            box.observe(lambda _c: self._safely(self._changed), names="value")
        self.gpu.observe(lambda _c: self._safely(self._seller_options), names="value")
        self.widget.children = [self.intro, w.HBox([self.budget_box, self.gpu, self.pricing, self.seller], layout=_ROW),
                                w.HBox([self.deadline_box, self.cap_box, self.scope], layout=_ROW),
                                self.message, self.result, self.use_button, self.chart.figure.canvas]
        self.set_language(self.language)
        self._set_linked()

    # ------------------------------------------------------------------ the inputs in a link
    def _boxes(self) -> dict[str, w.Widget]:
        return {"plan_budget": self.budget_box, "plan_gpu": self.gpu, "plan_pricing": self.pricing,
                "plan_seller": self.seller,
                "plan_deadline": self.deadline_box, "plan_cap": self.cap_box, "plan_scope": self.scope}

    def decision_items(self) -> dict[str, str]:
        """The tab's inputs as share-link keys (:data:`LINK_KEYS`), as typed, when not the tab's defaults and
        allowed; nothing while the tab was never opened (unless a link gave them: they travel on)."""
        if not self.built:
            return dict(self._linked)
        defaults = {"plan_budget": DEFAULT_BUDGET_TEXT, "plan_scope": "project"}
        checks = _link_checks()
        items = {}
        for key, box in self._boxes().items():
            text = str(box.value).strip()
            if text and text != defaults.get(key, "") and len(text) <= LINK_TEXT_MAX and checks[key][0](text):
                items[key] = text
        return items

    def apply_decision(self, extras: dict[str, str]) -> list[ScenarioError]:
        """Take the tab's inputs from a link; a value not allowed (or longer than :data:`LINK_TEXT_MAX`) is
        left out and its refusal returned (for the app's banner). The boxes are set when the tab is built."""
        refused = []
        checks = _link_checks()
        for key in LINK_KEYS:
            if key not in extras:
                continue
            text = str(extras[key]).strip()
            ok, allowed = checks[key]
            if len(text) <= LINK_TEXT_MAX and ok(text):
                self._linked[key] = text
            else:
                refused.append(ScenarioError(key, text[:LINK_TEXT_MAX], allowed))
        if self.built:
            self._set_linked()
        return refused

    def _set_linked(self) -> None:
        """Put the link's inputs in the boxes (without a change each): the plan follows when the tab is shown."""
        if not self._linked:
            return
        boxes = self._boxes()
        with self.muted():
            for key, text in self._linked.items():
                boxes[key].value = text
        self.stale = True

    def _changed(self) -> None:
        self.stale = True
        self.render(True)

    # ------------------------------------------------------------------ app side
    def set_language(self, language: str) -> None:
        """Relabel the tab in ``language`` (``"en"`` or ``"zh"``) without firing a change."""
        self.language = lang = language
        self.stale = True
        if not self.built:
            return
        self._muted = True
        try:
            self.intro.value = f'<div class="explorer-note">{html.escape(label("plan_intro", lang))}</div>'
            self.budget_box.description = label("plan_budget", lang) + f" ({self._currency()[0]})"
            self.budget_box.placeholder = DEFAULT_BUDGET_TEXT
            self.deadline_box.description = label("plan_deadline", lang)
            self.deadline_box.placeholder = label("plan_deadline_placeholder", lang)
            self.cap_box.description = label("budget_gpu_cap", lang)
            self.cap_box.placeholder = label("budget_cap_placeholder", lang)
            self.gpu.description = label("gpu", lang)
            gpu = self.gpu.value
            self.gpu.options = [(label("plan_as_scenario", lang), "")] + [
                (a.name, a.id) for a in catalog.accelerators().values()]
            self.gpu.value = gpu or ""
            self.pricing.description = label("pricing", lang)
            basis = self.pricing.value
            self.pricing.options = [(label("plan_as_scenario", lang), "")] + [
                (label(f"pricing_{p}", lang), p) for p in PRICING_MODES]
            self.pricing.value = basis if basis in PRICING_MODES else ""
            self.seller.description = label("seller", lang)
            self._seller_options()
            self.scope.options = [(label(f"plan_scope_{s}", lang), s) for s in PLAN_SCOPES]
            self.use_button.description = label("plan_use", lang)
        finally:
            self._muted = False
        self.chart.set_language(lang)

    def _seller_options(self) -> None:
        """The sellers of the tab's accelerator (or the scenario's), after "as in the scenario"; a seller that does
        not price the new accelerator goes back to "as in the scenario"."""
        gpu = self.gpu.value or (self.estimate.scenario.gpu if self.estimate is not None else None)
        keep = self.seller.value
        options = [(label("plan_as_scenario", self.language), "")] + seller_options(self.language, gpu)
        with self.muted():
            self.seller.options = options
            self.seller.value = keep if keep in {v for _, v in options} else ""

    def update(self, e: Estimate) -> None:
        """A new scenario in the app: the plan starts from it (planned again when the tab is shown)."""
        if self.estimate is not None and e.scenario == self.estimate.scenario:
            return
        self.estimate = e
        self.stale = True

    def _currency(self) -> tuple[str, float]:
        e = self.estimate
        return (e.scenario.currency, e.usd_to_currency) if e is not None else ("USD", 1.0)

    def base(self) -> Scenario:
        """The scenario a plan starts from: the app's, with the tab's accelerator and price basis, pre-training,
        without the layer count, width and MoE split of another size (the size is what the plan chooses)."""
        s = self.estimate.scenario if self.estimate is not None else Scenario()
        # the layer count and width belong to a model size (a preset's): the plan's size chooses its own
        fields: dict = dict(training_kind="pretrain", n_layers=None, d_model=None, active_params=None,
                            experts=None, top_k=None)
        if self.built and self.gpu.value:
            acc = catalog.accelerator(self.gpu.value)
            fields.update(gpu=acc.id, precision=acc.nearest_precision(s.precision))
        if self.built and self.pricing.value:
            fields.update(pricing=self.pricing.value, rate_usd_per_gpu_hour=None)
        if self.built and self.seller.value:  # one provider's own prices
            fields.update(seller=self.seller.value, rate_usd_per_gpu_hour=None)
        return s.replace(**fields)

    def _inputs(self) -> tuple[dict | None, list[tuple[str, str]]]:
        """The plan's options read from the boxes, and (label key, typed text) of each box refused."""
        refused = []
        cur, fx = self._currency()
        options: dict = {"scope": self.scope.value}
        try:
            budget = parse_budget(self.budget_box.value, cur)  # the box is in the shown currency
            if budget is None:
                raise ValueError(self.budget_box.value)
            options["budget_usd"] = budget / fx
        except ValueError:
            refused.append(("plan_budget_bad", self.budget_box.value))
        try:
            options["deadline_days"] = parse_deadline(self.deadline_box.value)
        except ValueError:
            refused.append(("plan_deadline_bad", self.deadline_box.value))
        try:
            options["gpu_cap"] = parse_gpu_cap(self.cap_box.value)
        except ValueError:
            refused.append(("budget_cap_bad", self.cap_box.value))
        return (None if refused else options), refused

    def _refresh(self) -> None:
        """Plan again (the tab is on screen and was out of date: see :class:`ChartSurface`)."""
        lang = self.language
        options, refused = self._inputs()
        if refused or options is None:  # beside the boxes; the last good plan stays (options is None iff refused)
            self.message.value = "".join(
                f'<div class="explorer-message">{html.escape(label(key, lang))}: {html.escape(text.strip()[:40])}</div>'
                for key, text in refused)
            return
        budget = options.pop("budget_usd")
        base = self.base()
        try:
            result = plan(budget, base, **options)
        except ScenarioError as exc:
            self.message.value = f'<div class="explorer-message">{html.escape(exc.render(lang))}</div>'
            return
        self.message.value = ""
        self.plan, self.budget_usd = result, budget
        key = (base, tuple(sorted(options.items())), round(math.log10(budget), 6))
        if key != self._curve_key:
            budgets = budget * np.logspace(-CURVE_DECADES, CURVE_DECADES, 2 * CURVE_DECADES * CURVE_POINTS_PER_DECADE + 1)
            self.curve, self._curve_key = plan_curve(budgets, base, **options), key
        self._show()

    def _show(self) -> None:
        lang, p = self.language, self.plan
        cur, fx = self._currency()
        self.result.value = plan_html(p, cur, fx, lang)
        self.use_button.disabled = p is None or p.scenario is None
        self.chart.update(self.curve, self.budget_usd, p.params if p is not None else None, cur, fx, draw=False)
        self.chart.figure.canvas.draw()

    def use_plan(self) -> bool:
        """Load the plan shown into the app (what "Use this plan" does); False without a plan."""
        if self.plan is None or self.plan.scenario is None:
            return False
        s = self.plan.scenario  # the size as a person would type it (71.9B, 1.44T), not 71.93949835288113B
        return bool(self.on_use(s.replace(params=typed_size(s.params), tokens=typed_size(s.tokens))))


def _amount(x_usd: float, currency: str, fx: float, lang: str) -> str:
    return money_in(x_usd * fx, currency, lang, symbol=True)


def _why_nothing(p: Plan, currency: str, fx: float, lang: str) -> str:
    """Why no model fits, and what would: the smallest model's cost and its largest part, or the binding limit."""
    e = p.smallest
    if e is None:
        return ""
    if p.limited_by == "budget":
        cost = e.total_usd if p.scope == "project" else e.final_run_usd
        parts = {k: v for k, v in e.cost().items() if k != "total"} if p.scope == "project" else {}
        if parts:
            part, value = max(parts.items(), key=lambda kv: kv[1])  # in the scenario's currency
            largest = label("plan_nothing_largest", lang).format(
                part=label(f"dim_{part}", lang).lower() if lang == "en" else label(f"dim_{part}", lang),
                cost=money_in(value, e.scenario.currency, lang, symbol=True))
        else:
            largest = ""
        text = label("plan_nothing_budget", lang).format(
            params=count_in(e.scenario.params, lang), cost=_amount(cost, currency, fx, lang), largest=largest)
    elif p.limited_by in ("memory", "gpu_cap"):
        text = label(f"plan_nothing_{p.limited_by}", lang).format(
            params=count_in(e.scenario.params, lang), gpus=f"{int(e.min_gpus_memory):,}" if
            math.isfinite(e.min_gpus_memory) else "?")
    else:
        text = label(f"plan_limited_{p.limited_by}", lang)
    return f'<div class="explorer-message explorer-plan-why">{html.escape(text)}</div>'


def _owned_rows(p: Plan, currency: str, fx: float, lang: str) -> tuple[list[tuple[str, str]], str]:
    """Under owned hardware: what must be bought first and the break-even against renting, and the budget's rule."""
    e = p.estimate
    o = e.owned if e is not None and e.scenario.pricing == "owned" else None
    if not o:
        return [], ""
    capex = o["capex_usd"]
    times = capex / p.budget_usd if p.budget_usd > 0 else math.nan
    rows = [("plan_capex", f"{_amount(capex, currency, fx, lang)} "
                           f"({label('plan_capex_times', lang).format(times=f'{times:.2g}')})"),
            ("plan_breakeven", " · ".join(
                f"{label(f'pricing_{b}', lang)}: {breakeven_text(o['breakeven_months'].get(b, math.nan), lang)}"
                for b in ("on_demand", "reserved_1y") if b in o["breakeven_months"]))]
    note = label("plan_owned_budget_rule", lang).format(capex=_amount(capex, currency, fx, lang))
    return rows, f'<div class="explorer-note explorer-plan-owned">{html.escape(note)}</div>'


def plan_html(p: Plan | None, currency: str, fx: float, language: str = "en") -> str:
    """The plan in a few lines: model and tokens, compute, cluster and days, final-run and whole-project cost; under
    owned hardware what must be bought first and the break-even; without a plan, why nothing fits."""
    lang = language
    if p is None:
        return ""
    warnings = "".join(f'<div class="explorer-note">{html.escape(translate(m, lang, (currency, fx)))}</div>' for m in p.warnings
                       if getattr(m, "id", "") != "plan_nothing_fits")
    if p.scenario is None or p.estimate is None:
        return (f'<div class="explorer-message">{html.escape(label("plan_nothing", lang))}</div>'
                f'{_why_nothing(p, currency, fx, lang)}{warnings}')
    e = p.estimate
    acc = catalog.accelerator(e.scenario.gpu)
    size = (lambda x: count_in(x, lang)) if lang == "zh" else (lambda x: readable_number(float(f"{x:.3g}")))
    rows = [
        ("plan_model", f"{size(p.params)} {label('plan_params_unit', lang)}"),
        ("plan_tokens", f"{size(p.tokens)} "
                        f"({p.tokens_per_param:g} {label('plan_tokens_per_param', lang)})"),
        ("plan_compute", f"{power_of_ten(e.train_flop)} FLOP"),
        ("plan_cluster", f"{int(e.gpus):,} × {acc.name} · {count_in(e.wall_days, lang)} {label('unit_days', lang)}"),
        ("kpi_total_run", _amount(e.final_run_usd, currency, fx, lang)),
        ("kpi_total_project", _amount(e.total_usd, currency, fx, lang)),
    ]
    owned, owned_note = _owned_rows(p, currency, fx, lang)
    rows += owned
    cells = "".join(f"<tr><th>{html.escape(label(k, lang))}</th><td>{html.escape(v)}</td></tr>" for k, v in rows)
    limit = html.escape(label(f"plan_limited_{p.limited_by}", lang))
    return (f'<table class="explorer-table explorer-plan-table">{cells}</table>{owned_note}'
            f'<div class="explorer-note"><b>{limit}</b> · {html.escape(label("plan_rule", lang))}</div>{warnings}')


def typed_size(x: float) -> float:
    """A planned size as a person types it: three significant digits, rounded down so the plan stays affordable
    (71,939,498,352 -> 71.9B; the box read "71.93949835288113B")."""
    if not math.isfinite(x) or x <= 0:
        return x
    step = 10.0 ** (math.floor(math.log10(x)) - 2)
    return float(f"{math.floor(x / step + 1e-9) * step:.3g}")
