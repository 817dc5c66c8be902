"""What the three analysis tabs share: the result they read, and one chart computed and drawn only when shown.

:class:`AnalysisState` holds what :class:`~explorer.app.tabs.analysis_views.AnalysisViews` hands to its tabs (the
result shown, the compare slots and their names, the Monte Carlo draws). :class:`AnalysisTab` is a
:class:`~explorer.app.tabs.lazy_tab.LazyTab` with one chart (a :class:`~explorer.app.surface.ChartSurface`): a new
result marks its data and its chart stale (:meth:`AnalysisTab.mark_stale`); the data are computed when the
chart is drawn (its tab is shown) or exported (:meth:`AnalysisTab.bring_up_to_date`, no draw).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from matplotlib.figure import Figure

from explorer.analysis import Simulation
from explorer.app.ipympl_private import canvas_of
from explorer.app.pages.analysis_html import SLOTS
from explorer.app.tabs.lazy_tab import LazyTab
from explorer.app.surface import ChartSurface
from explorer.model import Estimate
from explorer.plots.breakdown import freeze_layout
from explorer.messages import Message

__all__ = ["AnalysisState", "AnalysisTab"]


@dataclass
class AnalysisState:
    """The result the analysis tabs show and the compare slots, shared by the three tabs.

    Attributes
    ----------
    estimate : Estimate
        The result shown.
    slots : dict of str to Estimate or None
        The pinned scenarios A-D (None: empty); A is the baseline of "What changed".
    slot_names : dict of str to str
        The viewer's names of the slots ("" for none).
    simulation : Simulation or None
        The Monte Carlo draws of ``estimate`` (None when it could not be simulated).
    """

    estimate: Estimate
    slots: dict = field(default_factory=lambda: {s: None for s in SLOTS})
    slot_names: dict = field(default_factory=lambda: {s: "" for s in SLOTS})
    simulation: Simulation | None = None

    def pinned(self) -> dict[str, Estimate]:
        """The slots that hold a scenario."""
        return {s: est for s, est in self.slots.items() if est is not None}


class AnalysisTab(LazyTab):
    """An analysis tab: its widgets (built when first shown, ``lazy``), one chart, and data computed only when needed.

    Subclasses set :attr:`key`, build :attr:`figure` and the widgets in ``_build``, and give
    ``_update`` (compute the data and move the artists, no draw), ``_plots`` (the plots relabelled after a
    language switch) and ``_layout_key`` (what the figure's margins depend on).

    Parameters
    ----------
    state : AnalysisState
        The estimate and baseline the tab shows.
    language : {"en", "zh"}
    on_error : callable
        Shows a message when a callback fails unexpectedly.
    after_draw : callable
        Called with the figure after each draw.
    css_class : str
        The tab box's class.
    lazy : bool
        Build the widgets and the chart when the tab is first shown (or its chart exported); False: at once.
        What the app reads before (a budget, the slots) is kept outside the widgets.

    Subclasses also take ``make_figure``, ``make_figure(width_in, height_in)`` -> a Figure on a widget canvas
    [in], which they call in ``_build``.
    """

    key = ""

    def __init__(self, state: AnalysisState, language: str = "en", *, on_error: Callable[[Message], object],
                 after_draw: Callable[[Figure], None] = lambda fig: None, css_class: str = "", lazy: bool = True):
        self.state = state
        self.after_draw = after_draw
        self._data_stale = True
        self._relabel: set = set()
        self._layout: tuple | None = None
        super().__init__(language, on_error=on_error, css_class=css_class, lazy=lazy)

    figure: Figure

    def build(self) -> None:
        """Make the tab's widgets and its chart (once), in the language and with the values set so far."""
        if self.built:
            return
        super().build()
        canvas_of(self.figure).add_class("explorer-chart")
        canvas_of(self.figure).add_class(f"explorer-{self.key}-chart")
        self.charts[self.key] = ChartSurface.of(self.figure, self._redraw)
        self._data_stale = True

    @property
    def chart(self) -> ChartSurface:
        """The tab's chart (the tab is built if it was not)."""
        self.build()
        return self.charts[self.key]

    def mark_stale(self) -> None:
        """The result (or what the tab shows of it) changed: compute and draw again when shown."""
        self._data_stale = True
        if self.built:
            self.charts[self.key].stale = True

    def set_language(self, language: str) -> None:
        """Relabel the widgets now (a tab not built yet is built in it); the chart is relabelled when it is next
        brought up to date."""
        self.language = language
        if self.built:
            self._relabel = set(self._plots())  # a switch costs nothing for a hidden chart
            self._label_widgets()
        self.mark_stale()

    def bring_up_to_date(self) -> None:
        """Compute the tab's data if they are stale (no draw: the chart is drawn when shown); builds the tab first."""
        self.build()
        if not self._data_stale:
            return
        self._data_stale = False
        for plot in self._plots():
            if plot in self._relabel:
                self._relabel.discard(plot)
                plot.set_language(self.language)
        self._update()

    def _redraw(self) -> None:
        """Bring the data up to date and draw; lay out again (about 40% of a draw) only when the labels changed."""
        self.bring_up_to_date()
        fig, key = self.figure, self._layout_key()
        if self._layout != key:
            freeze_layout(fig)  # a full draw with the layout engine, then the axes stay where it put them
            self._layout = key
        else:
            fig.canvas.draw()
        self.after_draw(fig)

    # ------------------------------------------------------------------ a subclass's
    def _label_widgets(self) -> None:
        """Relabel the tab's widgets in :attr:`language`."""

    def _plots(self) -> tuple:
        raise NotImplementedError

    def _update(self) -> None:
        raise NotImplementedError

    def _layout_key(self) -> tuple:
        raise NotImplementedError
