"""The "What changed" tab: the app's chart by cost dimension, or the attribution by lever, and the savings recipe.

The by-dimension chart is the app's (:class:`~explorer.plots.breakdown.WaterfallPlot`); this view owns the
toggle between the two, the by-lever chart (exact Shapley values of :func:`explorer.analysis.attribute` from
slot A to the result shown, computed only when shown), the note on levers that could not be separated and
the savings recipe's button and verdicts (:func:`~explorer.app.pages.analysis_html.recipe_html`).
"""

from __future__ import annotations

import html
from typing import Callable

import ipywidgets as w
import pandas as pd
from matplotlib.figure import Figure

from explorer.analysis import Attribution, attribute
from explorer.app.ipympl_private import canvas_of
from explorer.app.tabs.analysis_tab import AnalysisState, AnalysisTab
from explorer.app.pages.analysis_html import recipe_html, slot_title
from explorer.app.shared import AUTO_WIDTH, BUTTON_STYLE, HIDDEN, PLAIN
from explorer.app.shared import html as shared_html
from explorer.errors import ScenarioError
from explorer.plots.analysis import LeverWaterfallPlot
from explorer.text import label
from explorer.messages import Message

__all__ = ["LeverView"]


class LeverView(AnalysisTab):
    """The "What changed" tab's toggle, by-lever chart, its note and the savings recipe.

    Parameters
    ----------
    make_figure, state, language, on_error, after_draw
        As for :class:`~explorer.app.tabs.analysis_tab.AnalysisTab`.
    on_recipe : callable
        Called when the savings-recipe button is clicked.
    on_mode : callable
        Called when the viewer switches between the two charts (the app renders the one now shown).

    Attributes
    ----------
    attribution : explorer.analysis.Attribution or None
        The by-lever split shown (None when an end has no finite cost).
    verdicts : pandas.DataFrame or None
        Verdicts of the last savings recipe applied.
    """

    key = "lever"

    def __init__(self, make_figure: Callable[[float, float], Figure], state: AnalysisState, language: str = "en", *,
                 on_recipe: Callable[[], None], on_mode: Callable[[], None], on_error: Callable[[Message], object],
                 after_draw: Callable[[Figure], None] = lambda fig: None):
        self.make_figure, self.on_recipe, self.on_mode = make_figure, on_recipe, on_mode
        self.attribution: Attribution | None = None
        self.verdicts: pd.DataFrame | None = None
        self._recipe_context: tuple = (None, None)
        self._dimension_canvas: w.Widget | None = None
        # built at once: the app reads its toggle (by dimension or by lever) and puts its widgets in its tab
        super().__init__(state, language, on_error=on_error, after_draw=after_draw, lazy=False)

    def _build(self) -> None:
        self.mode = w.ToggleButtons(options=[("", "dimension"), ("", "lever")], value="dimension", layout=PLAIN)
        self.mode.observe(lambda _c: self._safely(self._on_mode), names="value")
        self.lever_plot = LeverWaterfallPlot(self.make_figure(9.0, 3.7), language=self.language)
        self.figure = self.lever_plot.figure
        canvas_of(self.figure).layout.display = "none"
        # which levers could not be separated, in words (Attribution.note); its own layout, shown with the chart
        self.lever_note = shared_html(layout=HIDDEN)  # shown by swapping shared layouts, as rows are
        self.lever_note.add_class("explorer-lever-note")
        self.lever_note.add_class("explorer-analysis-html")
        self.recipe_button = w.Button(icon="magic", layout=AUTO_WIDTH, style=BUTTON_STYLE)
        self.recipe_button.on_click(lambda _b: self._safely(self.on_recipe))
        self.recipe_html = shared_html()
        self.recipe_html.add_class("explorer-recipe-box")
        self.recipe_html.add_class("explorer-analysis-html")
        self._label_widgets()

    def what_changed_tab(self, pin_button: w.Widget, dimension_canvas: w.Widget) -> w.VBox:
        """The "What changed" tab: pin button, by-dimension/by-lever toggle, both charts (one shown), recipe."""
        self._dimension_canvas = dimension_canvas
        self.widget.children = [pin_button, self.mode, dimension_canvas, self.figure.canvas, self.lever_note,
                                self.recipe_button, self.recipe_html]
        return self.widget

    def _label_widgets(self) -> None:
        lang = self.language
        with self.muted():
            self.mode.options = [(label("waterfall_by_dimension", lang), "dimension"),
                                 (label("waterfall_by_lever", lang), "lever")]
        self.recipe_button.description = label("recipe_button", lang)
        self.recipe_button.tooltip = label("recipe_note", lang)
        self.refresh_recipe()

    def on_screen(self, visible: bool) -> dict[str, bool]:
        """The by-lever chart is on screen when the tab is and the toggle says "by lever"."""
        return {self.key: visible and self.mode.value == "lever"}

    def _plots(self) -> tuple:
        return (self.lever_plot,)

    def _layout_key(self) -> tuple:
        return (self.language, self.state.estimate.scenario.currency, tuple(self.lever_plot.keys),
                self.lever_plot.baseline_slot)

    def _update(self) -> None:
        base, e = self.state.slots["A"] or self.state.estimate, self.state.estimate
        try:
            self.attribution = attribute(base.scenario, e.scenario)
        except ScenarioError as exc:  # an end with no finite cost: say so instead of showing empty bars
            self.attribution = None
            self.lever_note.value = f'<div class="explorer-note">{html.escape(exc.render(self.language))}</div>'
            return
        note = self.attribution.note(self.language)
        self.lever_note.value = f'<div class="explorer-note">{html.escape(note)}</div>' if note else ""
        # the first bar names the baseline: slot A (and its name), the By-lever PNG included
        self.lever_plot.baseline_slot = slot_title("A", self.state.slot_names["A"]) if self.state.slots["A"] else ""
        self.lever_plot.update(self.attribution, e.scenario.currency, e.usd_to_currency, draw=False)

    def figure_for_export(self) -> Figure | None:
        """The by-lever chart brought up to date for a download (None when the attribution has no finite end)."""
        self.bring_up_to_date()
        return self.figure if self.attribution is not None else None

    def _on_mode(self) -> None:
        lever = self.mode.value == "lever"
        if self._dimension_canvas is not None:
            self._dimension_canvas.layout.display = "none" if lever else None
        canvas_of(self.figure).layout.display = None if lever else "none"
        self.lever_note.layout = PLAIN if lever else HIDDEN
        self.on_mode()  # the app shows the chart now on screen (and hides the other)

    # ------------------------------------------------------------------ the savings recipe
    def show_recipe(self, verdicts: pd.DataFrame | None, steps: list | None = None,
                    project_usd: float | None = None) -> None:
        """Show the verdicts of an applied recipe (None: nothing could be applied) and the by-lever view.

        ``steps`` (the recipe's scenarios) are listed with every change; ``project_usd`` (the total before)
        gives each by-lever part as a share of the project.
        """
        self.verdicts = verdicts
        self._recipe_context = (steps, project_usd)
        if verdicts is None:
            self.recipe_html.value = f'<div class="explorer-note">{html.escape(label("recipe_none", self.language))}</div>'
            return
        self.refresh_recipe()
        self.mode.value = "lever"

    def refresh_recipe(self) -> None:
        """Show the last verdicts again in the current language and currency."""
        if self.verdicts is not None:
            e = self.state.estimate
            self.recipe_html.value = recipe_html(self.verdicts, e.scenario.currency, e.usd_to_currency, self.language,
                                                 *self._recipe_context)
