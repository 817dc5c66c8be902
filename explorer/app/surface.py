"""One chart of the app on its canvas, and when it is laid out and rendered.

A :class:`ChartSurface` holds a plot (its figure on a
:class:`~explorer.app.ipympl_private.GuardedCanvas`, and its blitter) and two
flags: ``stale`` (its artists moved since it was last rendered) and
``needs_layout`` (its language or width changed: a full layout is due). The
app marks every chart when a result, language or width changes, and renders
only the one on screen (:meth:`ChartSurface.render`); the others keep their
flags until their tab opens. A hidden chart also defers the draw requests a
page sends it (``shown``), answered when it is revealed.

Every chart of the app has one: Breakdown, What changed and History (the app's), the analysis tabs'
(Compare, What changed by lever, Uncertainty), What if's heat-map and Plan's curve. A chart whose data are
computed only when it is shown (the analysis tabs', What if's, Plan's) is wrapped in a :class:`FigureChart`,
whose ``redraw`` brings its data up to date and draws it.

The render state of one chart::

    (clean) --mark stale--> stale --render--> redraw (a blit, or a full draw) --> (clean)
    (any) --language/width--> needs_layout --render--> relayout --> stale (History) or (clean) --> ...
"""

from __future__ import annotations

from typing import Callable, Protocol

from matplotlib.figure import Figure

from explorer.app.ipympl_private import GuardedCanvas, canvas_of
from explorer.plots.breakdown import freeze_layout

__all__ = ["ChartSurface", "FigureChart"]


class _Plot(Protocol):
    figure: Figure

    def redraw(self) -> None: ...


def _freeze(plot: _Plot) -> bool:
    """Lay out a chart whose axes stay put between layouts; a full draw that shows its current state."""
    freeze_layout(plot.figure)  # a full draw: refreshes the blit background too
    # ... and shows the current state: drawing again would send the page a second image, and ipympl's page
    # drops an image replaced before it loaded (a blank or stale chart)
    return False


class FigureChart:
    """A figure whose ``redraw`` is a function of its view: the view computes its data and draws it.

    Parameters
    ----------
    figure : matplotlib.figure.Figure
        On a widget canvas.
    redraw : callable
        ``redraw()`` brings the chart's data up to date and draws the figure (a full draw).
    """

    def __init__(self, figure: Figure, redraw: Callable[[], None]):
        self.figure = figure
        self._redraw = redraw

    def redraw(self) -> None:
        """Bring the data up to date and draw (what :meth:`ChartSurface.render` does when the chart is stale)."""
        self._redraw()


def _no_layout(plot: _Plot) -> bool:
    """A chart that lays itself out when it draws: a render after a new width or language is a redraw."""
    return True


class ChartSurface:
    """A chart on its canvas: its plot, whether it is out of date, and how it is brought up to date.

    Parameters
    ----------
    plot : object
        Has ``figure`` (on a widget canvas) and ``redraw()`` (render the moved
        artists: a blit when enabled): a
        :class:`~explorer.plots.breakdown.BreakdownPlot`,
        :class:`~explorer.plots.breakdown.WaterfallPlot` or
        :class:`~explorer.plots.history.HistoryPlot`.
    relayout : callable, optional
        ``relayout(plot) -> bool`` lays the chart out again and says whether a
        :meth:`redraw` must follow; default: a frozen constrained layout (a full
        draw, nothing after).

    Attributes
    ----------
    stale : bool
        The artists moved since the last render.
    needs_layout : bool
        The language or the width changed since the last layout.
    draws : int
        How many times :meth:`render` drew the chart (a layout or a redraw) [1]: a hidden chart's stays put.
    """

    def __init__(self, plot: _Plot, relayout: Callable[[_Plot], bool] | None = None, *, stale: bool = False):
        self.plot = plot
        self._relayout = relayout or _freeze
        self.stale = stale
        self.needs_layout = False
        self.draws = 0

    @classmethod
    def of(cls, figure: Figure, redraw: Callable[[], None], *, stale: bool = True) -> "ChartSurface":
        """The surface of a chart whose view computes and draws it (``redraw()``: see :class:`FigureChart`).

        It starts stale (nothing computed yet), and a new width or language is answered by a redraw.
        """
        return cls(FigureChart(figure, redraw), relayout=_no_layout, stale=stale)

    @property
    def figure(self) -> Figure:
        """The figure shown (the History chart's changes with its language)."""
        return self.plot.figure

    @property
    def canvas(self) -> GuardedCanvas:
        """The widget canvas (the same one for the chart's whole life)."""
        return canvas_of(self.plot.figure)

    def show(self, shown: bool) -> None:
        """Whether the chart is on screen: a hidden one defers the page's draw requests."""
        self.canvas.shown = shown

    def render(self) -> None:
        """Bring the chart on screen up to date: answer a deferred draw, lay it out if due, render if stale.

        An explicit draw pushes the new image to the page. (Only ``draw_idle``
        would let the page ask for it, and a request made while another is in
        flight is dropped, leaving a stale chart.)
        """
        canvas = self.canvas
        if not getattr(canvas, "shown", True):
            return  # a hidden chart keeps its flags until its tab opens
        if canvas.deferred:
            canvas.reveal(draw=not (self.needs_layout or self.stale))
        if self.needs_layout:
            self.needs_layout = False
            self.stale = self._relayout(self.plot)
            self.draws += 1
        if self.stale:
            self.stale = False
            self.plot.redraw()
            self.draws += 1

    def show_and_render(self, shown: bool) -> None:
        """Say whether the chart is on screen, and render it if it is (a hidden one stays flagged)."""
        self.show(shown)
        if shown:
            self.render()
