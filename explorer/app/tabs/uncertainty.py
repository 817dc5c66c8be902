"""The Uncertainty and budget tab: the Monte Carlo histogram, the sensitivity tornado and the budget status.

The draws are the ones :class:`~explorer.app.tabs.analysis_views.AnalysisViews` makes for every result (the KPI
range needs them); the tornado (:func:`explorer.analysis.sensitivity`) and the budget status
(:func:`explorer.analysis.budget_status`, :func:`~explorer.app.pages.analysis_html.budget_html`) are computed when the
tab is shown. The budget and GPU cap boxes read what :mod:`explorer.app.typed_input` reads; a refused value
shows a message beside the boxes and the last good status stays.
"""

from __future__ import annotations

import html
from typing import Callable, cast

import ipywidgets as w
import numpy as np
from matplotlib.figure import Figure

from explorer.analysis import BudgetStatus, budget_status, sensitivity
from explorer.app import export
from explorer.app.tabs.analysis_tab import AnalysisState, AnalysisTab
from explorer.app.pages.analysis_html import budget_html
from explorer.app.shared import INPUT_STYLE, PLAIN, shared
from explorer.app.shared import html as shared_html
from explorer.app.typed_input import parse_budget, parse_gpu_cap, same_amount
from explorer.errors import ScenarioError, short_repr
from explorer.messages import Message
from explorer.plots.analysis import SimulationPlot, TornadoPlot
from explorer.text import NumberError, label

__all__ = ["UncertaintyView", "APP_DRAWS"]

#: Monte Carlo draws per result shown [1]. The standard error of an estimated
#: P5 (or P95) is sqrt(0.05 x 0.95 / n) in probability: 0.22 percentage points
#: at 10,000 draws, so the KPI range's ends sit between the true P4.6 and P5.4
#: (2 standard errors), and the probability of exceeding a budget is within
#: +-1 percentage point (2 x sqrt(0.25 / n) at its worst, p = 0.5). Measured on
#: this machine: about 6 ms per run (benchmarks/bench_app.py).
APP_DRAWS = 10_000

_INPUT = shared(w.Layout, width="auto", flex="1 1 220px")


class UncertaintyView(AnalysisTab):
    """The Uncertainty and budget tab: budget and GPU cap boxes, the status, the histogram and the tornado.

    Parameters
    ----------
    make_figure, state, language, on_error, after_draw
        As for :class:`~explorer.app.tabs.analysis_tab.AnalysisTab`.

    Attributes
    ----------
    budget_usd, gpu_cap : float or None
        The last good budget [USD] and GPU cap [GPUs].
    status : explorer.analysis.BudgetStatus or None
        Budget status of the current result (None without a budget).
    sensitivity_table : pandas.DataFrame or None
        The tornado's table.

    Notes
    -----
    The widgets are built when the tab is first shown. Until then the budget and GPU cap (a link's) are kept
    here, with the text their boxes will hold, and the status is computed from the model.
    """

    key = "uncertainty"

    def __init__(self, make_figure: Callable[[float, float], Figure], state: AnalysisState, language: str = "en", *,
                 on_error: Callable[[Message], object], after_draw: Callable[[Figure], None] = lambda fig: None):
        self.make_figure = make_figure
        self.budget_usd: float | None = None
        self.gpu_cap: float | None = None
        self.status: BudgetStatus | None = None
        self.sensitivity_table = None
        self._pending = {"budget": "", "cap": ""}  # what the boxes will hold when the tab is built
        e = state.estimate
        self._currency = (e.scenario.currency, e.usd_to_currency)
        super().__init__(state, language, on_error=on_error, after_draw=after_draw,
                         css_class="explorer-uncertainty-tab")

    def _build(self) -> None:
        self.budget_box = w.Text(value=self._pending["budget"], continuous_update=False, style=INPUT_STYLE,
                                 layout=_INPUT)
        self.cap_box = w.Text(value=self._pending["cap"], continuous_update=False, style=INPUT_STYLE, layout=_INPUT)
        self.budget_box.add_class("explorer-budget-input")
        self.cap_box.add_class("explorer-gpu-cap-input")
        self.budget_box.observe(lambda _c: self._safely(self._on_budget), names="value")
        self.cap_box.observe(lambda _c: self._safely(self._on_budget), names="value")
        self.budget_message = shared_html()
        self.budget_message.add_class("explorer-budget-message")
        self.budget_status_html = shared_html()
        self.budget_status_html.add_class("explorer-budget-status")
        fig = self.make_figure(9.0, 7.2)
        # two rows: an array of two (matplotlib's stub also allows the lone SubFigure of a 1 x 1 grid)
        top, bottom = cast(np.ndarray, fig.subfigures(2, 1, height_ratios=(1.0, 1.0)))
        self.figure = fig
        self.simulation_plot = SimulationPlot(top, language=self.language)
        self.tornado = TornadoPlot(bottom, language=self.language)
        budget_row = w.HBox([self.budget_box, self.cap_box], layout=PLAIN)
        budget_row.add_class("explorer-budget-row")
        self.widget.children = [budget_row, self.budget_message, self.budget_status_html, fig.canvas]
        self.widget.add_class("explorer-chart-scroll")  # on a phone the chart scrolls sideways (pages/estimate_html.py, STYLE)
        for view in (self.budget_message, self.budget_status_html):
            view.add_class("explorer-analysis-html")  # wraps and scrolls within the panel (pages/estimate_html.py, STYLE)
        self._label_widgets()

    def _label_widgets(self) -> None:
        lang = self.language
        self.budget_box.description = label("budget_label", lang) + f" ({self._currency[0]})"
        self.budget_box.placeholder = label("budget_placeholder", lang)
        self.cap_box.description = label("budget_gpu_cap", lang)
        self.cap_box.placeholder = label("budget_cap_placeholder", lang)
        if self.budget_message.value:  # a refused budget or cap on screen: say it again in the new language
            self._on_budget()

    def _plots(self) -> tuple:
        return (self.simulation_plot, self.tornado)

    def _layout_key(self) -> tuple:
        return (self.language, self.state.estimate.scenario.currency, tuple(sorted(self.tornado.names)))

    def set_currency(self, currency: tuple[str, float]) -> None:
        """The result's currency and rate changed: the budget box names it and shows the budget in it."""
        if currency == self._currency:
            return
        self._currency = currency
        if self.built:
            self.budget_box.description = label("budget_label", self.language) + f" ({currency[0]})"
        if self.budget_usd is not None:
            self._write("budget", export.plain_decimal(round(self.budget_usd * currency[1], 2)))

    def _text(self, box: str) -> str:
        """What the ``"budget"`` or ``"cap"`` box holds (or will hold, before the tab is built)."""
        if not self.built:
            return self._pending[box]
        return (self.budget_box if box == "budget" else self.cap_box).value

    def _write(self, box: str, text: str) -> None:
        """Put ``text`` in the ``"budget"`` or ``"cap"`` box without reading it (kept until the tab is built)."""
        if not self.built:
            self._pending[box] = text
            return
        with self.muted():
            (self.budget_box if box == "budget" else self.cap_box).value = text

    def _update(self) -> None:
        e = self.state.estimate
        cur, fx = e.scenario.currency, e.usd_to_currency
        self.sensitivity_table = sensitivity(e.scenario)
        self.tornado.update(self.sensitivity_table, cur, fx, draw=False)
        if self.state.simulation is not None:
            self.simulation_plot.update(self.state.simulation, cur, fx, draw=False)
        self.update_status()

    def figure_for_export(self) -> Figure:
        """The histogram and tornado brought up to date for a download."""
        self.bring_up_to_date()
        return self.figure

    def update_status(self) -> None:
        """Write the budget status of the current result (no chart)."""
        e, sim = self.state.estimate, self.state.simulation
        if self.budget_usd is None:
            self.status = None
        else:
            self.status = budget_status(e.scenario, self.budget_usd, simulation=sim, gpu_cap=self.gpu_cap)
        if not self.built:  # written when the tab is shown
            return
        note = label("uncertainty_note", self.language).format(n=APP_DRAWS)
        self.budget_status_html.value = (budget_html(self.status, sim, e.scenario.currency, e.usd_to_currency,
                                                     self.language)
                                         + f'<div class="explorer-note">{html.escape(note)}</div>')

    # ------------------------------------------------------------------ the budget in a link
    def decision_items(self) -> dict[str, str]:
        """The budget (exact, in USD, and as typed when the box still holds it) and the GPU cap as link keys."""
        items: dict[str, str] = {}
        fx = self.state.estimate.usd_to_currency
        if self.budget_usd is not None:
            items["budget_usd"] = export.plain_decimal(self.budget_usd)  # exact: the box shows it back in its currency
            typed = self._text("budget").strip()[:40]
            if typed and typed != export.plain_decimal(round(self.budget_usd * fx, 2)) \
                    and same_amount(typed, self.budget_usd * fx, parse_budget):
                items["budget_text"] = typed
        if self.gpu_cap is not None:
            typed = self._text("cap").strip()[:40]
            items["gpu_cap"] = (typed if same_amount(typed, self.gpu_cap, parse_gpu_cap)
                                else export.plain_decimal(self.gpu_cap))
        return items

    def apply_decision(self, extras: dict[str, str]) -> list[ScenarioError]:
        """Restore the budget and GPU cap :meth:`decision_items` wrote; why each value left out was refused."""
        refused: list[ScenarioError] = []
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
        fx = self.state.estimate.usd_to_currency
        if budget is not None:
            typed = extras.get("budget_text", "")[:40]  # as typed (5M), if it is the same amount
            self._write("budget", typed if same_amount(typed, budget * fx, parse_budget)
                        else export.plain_decimal(round(budget * fx, 2)))
        if cap is not None:
            typed = extras.get("gpu_cap", "")[:40]
            self._write("cap", typed if same_amount(typed, cap, parse_gpu_cap) else export.plain_decimal(cap))
        self.budget_usd, self.gpu_cap = budget, cap
        self.update_status()
        return refused

    def _on_budget(self) -> None:
        fx = self.state.estimate.usd_to_currency
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
        self.update_status()
