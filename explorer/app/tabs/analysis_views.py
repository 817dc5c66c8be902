"""The app's analysis views (issue 10): compare slots, "what changed" by lever, uncertainty, budget, savings recipe.

:class:`AnalysisViews` holds one object per tab (:class:`~explorer.app.tabs.compare.CompareView`,
:class:`~explorer.app.tabs.what_changed.LeverView` for "What changed", :class:`~explorer.app.tabs.uncertainty.
UncertaintyView`) and what they share (:class:`~explorer.app.tabs.analysis_tab.AnalysisState`). The app
(:class:`~explorer.app.explorer_app.ExplorerApp`) places their widgets in its tabs, calls
:meth:`AnalysisViews.update` with every result it shows and :meth:`AnalysisViews.render` with the tab in
view. Work is done only as needed:

* every update: one Monte Carlo run of :data:`~explorer.app.tabs.uncertainty.APP_DRAWS` draws (the KPI
  cards' 90% range and the history marker's error bar are always in view);
* only when their tab is in view: the by-lever attribution (What changed, by
  lever), the comparison table and bars (Compare), the sensitivity tornado,
  the histogram and the budget status (Uncertainty and budget). A hidden view's
  chart (a :class:`~explorer.app.surface.ChartSurface`) is marked stale and
  brought up to date when its tab is opened.

The HTML the tabs write is made by the pure functions of :mod:`explorer.app.pages.analysis_html`, and the boxes are
read by :mod:`explorer.app.typed_input`. A tab's widgets are reached through it
(``app.analysis.uncertainty.budget_box``), not forwarded here. Amounts are computed in USD and shown in the
scenario's currency. A value the views cannot use shows a message beside its control and the last good
result stays.
"""

from __future__ import annotations

import math
from typing import Callable

import ipywidgets as w
from matplotlib.figure import Figure

from explorer.analysis import Simulation, simulate
from explorer.app.tabs.analysis_tab import AnalysisState
from explorer.app.tabs.compare import CompareView
from explorer.app.guard import errors_to_viewer
from explorer.app.pages.analysis_html import SLOTS
from explorer.app.tabs.what_changed import LeverView
from explorer.app.surface import ChartSurface
from explorer.app.tabs.uncertainty import APP_DRAWS, UncertaintyView
from explorer.errors import ScenarioError
from explorer.model import Estimate, estimate
from explorer.scenario import Scenario
from explorer.messages import Message

__all__ = ["AnalysisViews", "APP_SEED"]

#: Fixed seed: the same scenario always shows the same range (no flicker on a language switch).
APP_SEED = 0


class AnalysisViews:
    """The three analysis tabs, the result they share and its Monte Carlo draws.

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
        Called with each figure after it was drawn.
    visible : callable, optional
        ``visible()`` -> the key of the app's tab in view (default ``"compare"``: the views alone).
    on_mode : callable, optional
        Called when "What changed" switches between its charts (default: render the views).

    Attributes
    ----------
    compare, what_changed, uncertainty : CompareView, LeverView, UncertaintyView
        The tabs; their widgets are theirs (``app.analysis.uncertainty.budget_box``).
    state : AnalysisState
        The result shown, the slots A-D and their names, the Monte Carlo draws.
    """

    def __init__(self, make_figure: Callable[[float, float], Figure], baseline: Estimate, language: str = "en", *,
                 on_baseline: Callable[[Estimate], None], on_recipe: Callable[[], None],
                 on_error: Callable[[Message], object], after_draw: Callable[[Figure], None] = lambda fig: None,
                 visible: Callable[[], str] = lambda: "compare", on_mode: Callable[[], None] | None = None):
        self.language = language
        self.on_baseline, self.on_error, self.visible = on_baseline, on_error, visible
        self.state = AnalysisState(baseline)
        self.state.slots["A"] = baseline
        self._sim_scenario: Scenario | None = None
        self.compare = CompareView(make_figure, self.state, language, on_slot=self._slot_changed,
                                   on_error=on_error, after_draw=after_draw)
        self.what_changed = LeverView(make_figure, self.state, language, on_recipe=on_recipe,
                                      on_mode=on_mode or (lambda: self.render(self.visible())),
                                      on_error=on_error, after_draw=after_draw)
        self.uncertainty = UncertaintyView(make_figure, self.state, language, on_error=on_error, after_draw=after_draw)
        self.tabs = (self.compare, self.what_changed, self.uncertainty)

    # ------------------------------------------------------------------ what the app reads
    @property
    def estimate(self) -> Estimate:
        """The result shown."""
        return self.state.estimate

    @property
    def slots(self) -> dict[str, Estimate | None]:
        """The pinned scenarios A-D (None: empty)."""
        return self.state.slots

    @property
    def slot_names(self) -> dict[str, str]:
        """The viewer's names of the slots ("" for none)."""
        return self.state.slot_names

    @property
    def simulation(self) -> Simulation | None:
        """Draws of the current result (:data:`~explorer.app.tabs.uncertainty.APP_DRAWS`, seed :data:`APP_SEED`)."""
        return self.state.simulation

    @property
    def compare_tab(self) -> w.VBox:
        """The Compare tab's box."""
        return self.compare.widget

    @property
    def uncertainty_tab(self) -> w.VBox:
        """The Uncertainty and budget tab's box."""
        return self.uncertainty.widget

    @property
    def uncertainty_figure(self) -> Figure:
        """The histogram and tornado's figure (the tab is built if it was not)."""
        self.uncertainty.build()
        return self.uncertainty.figure

    @property
    def figures(self) -> tuple[Figure, ...]:
        """The Compare, by-lever and Uncertainty figures (their tabs are built if they were not)."""
        for tab in self.tabs:
            tab.build()
        return tuple(tab.figure for tab in self.tabs)

    @property
    def charts(self) -> dict[str, ChartSurface]:
        """The charts by key (``compare``, ``lever``, ``uncertainty``) of the tabs built so far (Compare and
        Uncertainty are built when first shown)."""
        return {key: chart for tab in self.tabs for key, chart in tab.charts.items()}

    def what_changed_children(self, pin_button: w.Widget, dimension_canvas: w.Widget) -> list[w.Widget]:
        """The "What changed" tab's children (see :meth:`LeverView.what_changed_tab`)."""
        return list(self.what_changed.what_changed_tab(pin_button, dimension_canvas).children)

    # ------------------------------------------------------------------ language and results
    def set_language(self, language: str) -> None:
        """Relabel every widget in ``language``; the charts are relabelled when next shown."""
        self.language = language
        for tab in self.tabs:
            tab.set_language(language)

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
        self.state.estimate = e
        self.state.slots["A"] = baseline  # the viewer's names of the slots stay (they name what was pinned)
        self.uncertainty.set_currency((e.scenario.currency, e.usd_to_currency))
        if self._sim_scenario is None or self._sim_scenario != e.scenario:
            try:
                self.state.simulation = simulate(e.scenario, n=APP_DRAWS, seed=APP_SEED)
            except (ScenarioError, ValueError, FloatingPointError):
                self.state.simulation = None
            self._sim_scenario = e.scenario
        for tab in self.tabs:
            tab.mark_stale()
        self.render(visible)

    def interval(self, scope: str) -> tuple[float, float] | None:
        """P5 and P95 of the total of ``scope`` ("project" or "run") in the result's currency, or None."""
        sim = self.state.simulation
        if sim is None:
            return None
        low, high = sim.interval_usd if scope == "project" else sim.run_interval_usd
        fx = self.state.estimate.usd_to_currency
        return (low * fx, high * fx) if math.isfinite(low) and math.isfinite(high) else None

    def run_interval_usd(self) -> tuple[float | None, float | None]:
        """P5 and P95 of the final run's machine cost [USD] (the history marker's error bar), or (None, None)."""
        if self.state.simulation is None:
            return None, None
        return self.state.simulation.run_interval_usd

    def render(self, visible: str) -> None:
        """Show and draw the chart of the tab ``visible`` if it is out of date; the others stay stale."""
        with errors_to_viewer(self.on_error):
            self.compare.render(visible == "compare")
            self.what_changed.render(visible == "waterfall")
            self.uncertainty.render(visible == "uncertainty")

    def figure_for_export(self, key: str) -> Figure | None:
        """The Compare, Uncertainty or by-lever (``"lever"``) figure brought up to date for a download.

        None for Compare while no slot is pinned, and for the by-lever chart when the attribution has no
        finite end. The figure is not drawn on its canvas: the canvas draws it when its tab is shown.
        """
        tabs: dict[str, CompareView | UncertaintyView | LeverView] = {
            "compare": self.compare, "uncertainty": self.uncertainty, "lever": self.what_changed}
        return tabs[key].figure_for_export()

    # ------------------------------------------------------------------ actions
    def pin(self, slot: str, estimate: Estimate | None = None, name: str | None = None) -> None:
        """Pin ``estimate`` (default: the current result) to ``slot``; slot A becomes the app's baseline.

        ``name`` (default: the name box's text, which is then emptied) names the slot after its letter.
        """
        self.compare.pin(slot, estimate, name)

    def _slot_changed(self, slot: str) -> None:
        """A slot was pinned or cleared: slot A is the new baseline (the app renders); else render the tab in view."""
        self.what_changed.mark_stale()
        if slot == "A":
            self.on_baseline(self.state.slots["A"])  # the app updates its waterfall and renders the tab in view
        else:
            self.render(self.visible())

    # ------------------------------------------------------------------ the decision in a link
    def decision_items(self) -> dict[str, str]:
        """The budget, GPU cap, pinned slots (scenario and name) and the "what changed" view (``view=lever``) as
        share-link keys (see :mod:`explorer.app.link`). The budget and cap travel as typed too (``5M``), when
        the box still holds what they were read from."""
        from explorer.app.link import query_from_scenario

        items = self.uncertainty.decision_items()
        if self.what_changed.mode.value == "lever":
            items["view"] = "lever"
        for slot, est in self.state.slots.items():
            if est is not None:
                items[f"slot_{slot}"] = query_from_scenario(est.scenario) or "default"
                if self.state.slot_names[slot]:
                    items[f"name_{slot}"] = self.state.slot_names[slot]
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
        from explorer.app.link import refused_fields_from_query, scenario_from_query

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
            self.what_changed.mode.value = extras["view"]
        return refused + self.uncertainty.apply_decision(extras)
