"""The Compare tab: pin up to four scenarios (slots A-D, A is the baseline), a table and bars of them.

The table is :func:`~explorer.app.pages.analysis_html.compare_html` of :func:`explorer.analysis.compare`; both are
computed only when the tab is shown (or its chart exported).
"""

from __future__ import annotations

import html
from typing import Callable

import ipywidgets as w
from matplotlib.figure import Figure

from explorer.analysis import compare
from explorer.app.tabs.analysis_tab import AnalysisState, AnalysisTab
from explorer.app.pages.analysis_html import SLOTS, clean_slot_name, compare_html, slot_title
from explorer.app.shared import AUTO_WIDTH, BUTTON_STYLE, PLAIN, TEXT_STYLE, WRAP_ROW, shared
from explorer.app.shared import html as shared_html
from explorer.app.pages.estimate_html import translate
from explorer.errors import ScenarioError
from explorer.messages import Message
from explorer.model import Estimate
from explorer.plots.analysis import CompareBarsPlot
from explorer.text import label

__all__ = ["CompareView"]

_NAME = shared(w.Layout, width="auto", flex="1 1 160px", max_width="260px")


class CompareView(AnalysisTab):
    """The Compare tab: slot picker, name box, pin and clear buttons, the table and the bars.

    Parameters
    ----------
    make_figure, state, language, on_error, after_draw
        As for :class:`~explorer.app.tabs.analysis_tab.AnalysisTab`.
    on_slot : callable
        ``on_slot(slot)`` after a slot was pinned or cleared (slot A pinned: the app's new baseline).

    Attributes
    ----------
    table : pandas.DataFrame or None
        :func:`explorer.analysis.compare` of the pinned slots (None while none is), computed when the tab is shown.

    Notes
    -----
    The widgets are built when the tab is first shown (the slots live in the shared
    :class:`~explorer.app.tabs.analysis_tab.AnalysisState`, so a link's slots are pinned before).
    """

    key = "compare"

    def __init__(self, make_figure: Callable[[float, float], Figure], state: AnalysisState, language: str = "en", *,
                 on_slot: Callable[[str], None], on_error: Callable[[Message], object],
                 after_draw: Callable[[Figure], None] = lambda fig: None):
        self.make_figure, self.on_slot = make_figure, on_slot
        self.table = None
        super().__init__(state, language, on_error=on_error, after_draw=after_draw, css_class="explorer-compare-tab")

    def _build(self) -> None:
        self.slot_choice = w.ToggleButtons(options=SLOTS, value="B", style={"button_width": "42px"}, layout=PLAIN)
        self.pin_slot_button = w.Button(icon="thumb-tack", layout=AUTO_WIDTH, style=BUTTON_STYLE)
        self.clear_slot_button = w.Button(icon="times", layout=AUTO_WIDTH, style=BUTTON_STYLE)
        self.slot_name_box = w.Text(value="", continuous_update=False, layout=_NAME, style=TEXT_STYLE)
        self.slot_name_box.add_class("explorer-slot-name")
        self.pin_slot_button.on_click(lambda _b: self._safely(self.pin, self.slot_choice.value, None))
        self.clear_slot_button.on_click(lambda _b: self._safely(self.clear, self.slot_choice.value))
        self.compare_message = shared_html()
        self.compare_html = shared_html()
        self.compare_plot = CompareBarsPlot(self.make_figure(9.0, 3.7), language=self.language)
        self.figure = self.compare_plot.figure
        row = w.HBox([self.slot_choice, self.slot_name_box, self.pin_slot_button, self.clear_slot_button],
                     layout=WRAP_ROW)
        row.add_class("explorer-slot-row")
        self.widget.children = [row, self.compare_message, self.compare_html, self.figure.canvas]
        self.widget.add_class("explorer-chart-scroll")  # on a phone the chart scrolls sideways (pages/estimate_html.py, STYLE)
        for view in (self.compare_message, self.compare_html):
            view.add_class("explorer-analysis-html")  # wraps and scrolls within the panel (pages/estimate_html.py, STYLE)
        self._label_widgets()

    def _label_widgets(self) -> None:
        lang = self.language
        self.pin_slot_button.description = label("compare_pin", lang)
        self.clear_slot_button.description = label("compare_clear", lang)
        self.slot_name_box.placeholder = label("compare_name_placeholder", lang)
        self.slot_choice.tooltips = [f"{label('compare_slot', lang)} {s}" for s in SLOTS]
        if self.compare_message.value:
            self.compare_message.value = ""

    def _plots(self) -> tuple:
        return (self.compare_plot,)

    def _layout_key(self) -> tuple:
        return (self.language, self.state.estimate.scenario.currency, tuple(self.compare_plot.slot_names))

    def _update(self) -> None:
        state = self.state
        e, pinned = state.estimate, state.pinned()
        self.table = compare({s: est.scenario for s, est in pinned.items()}, scenario_columns=False) if pinned else None
        cur, fx = e.scenario.currency, e.usd_to_currency
        warned = self.table.attrs.get("warnings", []) if self.table is not None else []
        self.compare_html.value = (compare_html(state.slots, self.table, cur, fx, self.language, state.slot_names)
                                   + "".join(f'<div class="explorer-message">{html.escape(translate(m, self.language, (cur, fx)))}'
                                             "</div>" for m in warned))
        if self.table is not None:
            titled = self.table.rename(index=lambda s: slot_title(s, state.slot_names[s]))
            self.compare_plot.update(titled, cur, fx, draw=False, styles=[SLOTS.index(s) for s in self.table.index])

    def figure_for_export(self) -> Figure | None:
        """The chart brought up to date for a download (None while no slot is pinned)."""
        if not self.state.pinned():
            return None
        self.bring_up_to_date()
        return self.figure

    # ------------------------------------------------------------------ actions
    def pin(self, slot: str, estimate: Estimate | None = None, name: str | None = None) -> None:
        """Pin ``estimate`` (default: the current result) to ``slot``; slot A becomes the app's baseline.

        ``name`` (default: the name box's text, which is then emptied; blank before the tab is built) names the
        slot in the table, the chart and the CSV, after its letter; blank for none.
        """
        if slot not in SLOTS:
            raise ScenarioError("slot", slot, Message("allowed_choices", choices=list(SLOTS), field="slot"))
        estimate = estimate or self.state.estimate
        if name is None:
            name = ""
            if self.built:
                name, self.slot_name_box.value = self.slot_name_box.value, ""
        self.state.slot_names[slot] = clean_slot_name(name)
        self.state.slots[slot] = estimate
        if self.built:
            self.compare_message.value = ""
        self.mark_stale()
        self.on_slot(slot)

    def clear(self, slot: str) -> bool:
        """Empty ``slot``; slot A (the baseline) is kept, with a message beside the buttons.

        Returns
        -------
        bool
            False when the slot was kept.
        """
        if slot == "A":
            if self.built:
                self.compare_message.value = (f'<div class="explorer-message">'
                                              f'{html.escape(label("compare_slot_a_kept", self.language))}</div>')
            return False
        self.state.slots[slot] = None
        self.state.slot_names[slot] = ""
        if self.built:
            self.compare_message.value = ""
        self.mark_stale()
        self.on_slot(slot)
        return True
