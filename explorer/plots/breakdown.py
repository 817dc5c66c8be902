"""Cost-breakdown and "what changed" figures, built once and updated in place.

Each class owns one :class:`matplotlib.figure.Figure` (object API, no pyplot).
``update`` moves existing artists; nothing is cleared or rebuilt, so the app
can call it on every control change. Amounts are written on the bars, so the
value axis is left out and bars are scaled to the largest one: the axes never
change with the data, and on an interactive canvas ``enable_blitting`` lets
``redraw`` re-render only the bars and their labels. Dimensions are told
apart by their labels, not by colour alone.
"""

from __future__ import annotations

import math
import numpy as np
from matplotlib.figure import Figure

from explorer.model import COST_DIMENSIONS, HIDDEN_PARTS, Estimate
from explorer.plots.blit import Blitter
from explorer.plots.figure import NotebookFigure, png_bytes
from explorer.plots.fonts import text_kwargs
from explorer.text import label, money_in

__all__ = ["BreakdownPlot", "WaterfallPlot", "DIMENSION_COLORS", "freeze_layout"]

#: One colour per dimension (Okabe-Ito, colour-blind safe); labels carry the meaning.
DIMENSION_COLORS = {
    "compute": "#0072B2",
    "energy": "#E69F00",
    "data": "#009E73",
    "people": "#CC79A7",
    "hardware": "#56B4E9",
    "hidden": "#D55E00",
}
_UP, _DOWN, _TOTAL = "#C0392B", "#1E8449", "#5D6D7E"


def freeze_layout(figure: Figure) -> None:
    """Run the constrained layout once, then keep the axes where it put them.

    The layout engine costs about 40% of every render; the axes of these
    figures do not move when their data change, only when labels do (call
    this again after a language change).
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    figure.set_layout_engine("constrained")
    if hasattr(figure.canvas, "get_renderer"):
        figure.canvas.draw()
    else:
        FigureCanvasAgg(figure).draw()
    figure.set_layout_engine("none")


def finite_or_zero(x: float) -> float:
    return 0.0 if x is None or not math.isfinite(x) else x


def waterfall_artists(ax, n: int, fontsize: float) -> tuple:
    """The empty artists of a waterfall of ``n`` steps on ``ax``: bars, value texts, connector line."""
    x = np.arange(n)
    bars = ax.bar(x, np.zeros(n), bottom=np.zeros(n), width=0.65, color=_TOTAL)
    texts = [ax.text(xi, 0, "", ha="center", va="bottom", fontsize=fontsize) for xi in x]
    connectors = ax.plot([], [], color="0.55", lw=0.8, ls=":")[0]
    ax.yaxis.set_visible(False)
    ax.spines[["top", "right", "left"]].set_visible(False)
    ax.tick_params(axis="x", length=0)
    return bars, texts, connectors


def place_waterfall(bars, texts, connectors, steps, is_total, text_of) -> float:
    """Move a waterfall's artists to ``steps``; bars beyond ``len(steps)`` are hidden.

    Parameters
    ----------
    steps : list of (float, float)
        (bottom, height) of each bar [currency].
    is_total : list of bool
        Which bars are totals (grey); the others are red when they rise, green when they fall.
    text_of : callable
        ``text_of(i, height, scale)`` -> the label of bar ``i``.

    Returns
    -------
    float
        Amount [currency] of a bar of height 1.
    """
    scale = max(max(max(b, b + h) for b, h in steps), 1e-9)
    xs, ys = [], []
    for i, (bar, text) in enumerate(zip(bars, texts)):
        if i >= len(steps):
            bar.set_height(0.0)
            bar.set_visible(False)
            text.set_text("")
            continue
        bottom, height = steps[i]
        bar.set_visible(True)
        bar.set_y(bottom / scale)
        bar.set_height(height / scale)
        bar.set_color(_TOTAL if is_total[i] else (_UP if height > 0 else _DOWN if height < 0 else "0.75"))
        text.set_text(text_of(i, height, scale))
        text.set_position((i, max(bottom, bottom + height) / scale + 0.01))
        end = (bottom + height) / scale
        xs += [i + 0.33, i + 0.67, np.nan]
        ys += [end, end, np.nan]
    connectors.set_data(xs[:-3], ys[:-3])
    return scale


class PlotBase:
    """Shared parts: the figure, its language, and optional blitting of the moving artists."""

    figure: Figure
    blitter: Blitter | None = None

    def _moving_artists(self) -> list:
        raise NotImplementedError

    def _repr_png_(self) -> bytes:
        """The chart as PNG, so a plot object shows itself in a notebook whatever the backend."""
        return png_bytes(self.figure)

    def enable_blitting(self) -> None:
        """Re-render only the moving artists in :meth:`redraw` (interactive canvases only:
        ``savefig`` leaves animated artists out)."""
        self.blitter = Blitter(self.figure, self._moving_artists())

    def redraw(self) -> None:
        """Render now: a blit when enabled, else a full draw."""
        if self.blitter is not None:
            self.blitter.redraw()
        else:
            self.figure.canvas.draw()


class BreakdownPlot(PlotBase):
    """Horizontal bars of the six cost dimensions, with amounts and shares.

    Parameters
    ----------
    figure : Figure, optional
        Figure to draw into (the app passes one attached to an ipympl canvas);
        a new figure when omitted.
    language : {"en", "zh"}
        Label language; falls back to English without a CJK font.

    Attributes
    ----------
    scale : float
        Amount [currency] of a bar of length 1.
    """

    def __init__(self, figure: Figure | None = None, language: str = "en"):
        self.figure = figure if figure is not None else NotebookFigure(figsize=(7.0, 3.6), layout="constrained")
        self.ax = self.figure.add_subplot()
        y = np.arange(len(COST_DIMENSIONS))[::-1]
        self.bars = self.ax.barh(y, np.zeros(len(y)), color=[DIMENSION_COLORS[d] for d in COST_DIMENSIONS],
                                 height=0.62)
        # plain text: two amounts in one label would otherwise read "$...$" as mathtext
        self.value_texts = [self.ax.text(0, yi, "", va="center", ha="left", fontsize=10, parse_math=False)
                            for yi in y]
        # what a cloud rate pays for (hatched, inside compute, not added): energy and hardware rows
        self.rate_bars = self.ax.barh(y, np.zeros(len(y)), height=0.62, fill=False, hatch="///",
                                      edgecolor=[DIMENSION_COLORS[d] for d in COST_DIMENSIONS], linewidth=0.8)
        # the hidden row is drawn as its named parts, stacked (experiments first, darkest); they add up to it
        row = y[COST_DIMENSIONS.index("hidden")]
        self.bars[COST_DIMENSIONS.index("hidden")].set_visible(False)
        self.hidden_segments = [self.ax.barh([row], [0.0], height=0.62, color=DIMENSION_COLORS["hidden"],
                                             alpha=a, edgecolor="white", linewidth=0.6)[0]
                                for a in (1.0, 0.72, 0.5, 0.3)]
        # the experiments part named inside its segment when it is wide enough (the summary names every part)
        self.hidden_text = self.ax.text(0.012, row, "", va="center", ha="left", fontsize=9, color="white",
                                        parse_math=False)
        # a run that cannot happen has no bars: this message instead (empty otherwise)
        self.message_text = self.ax.text(0.5, 0.5, "", transform=self.ax.transAxes, ha="center", va="center",
                                         fontsize=10.5, wrap=True, parse_math=False)
        self.ax.set_yticks(y)
        self.ax.set_xlim(0, 1.38)
        self.ax.xaxis.set_visible(False)
        self.ax.spines[["top", "right", "bottom"]].set_visible(False)
        self.ax.tick_params(axis="y", length=0, labelsize=10.5)
        self.scale = 1.0
        self.language = ""
        self.set_language(language)

    def _moving_artists(self) -> list:
        return [*self.bars, *self.rate_bars, *self.hidden_segments, *self.value_texts, self.hidden_text,
                self.message_text]

    def set_language(self, language: str) -> None:
        """Relabel axes and title in ``language``."""
        if language == self.language:
            return
        self.language = language
        kw, lang = text_kwargs(language)
        for text in self.value_texts:  # emptied: the next update writes them in the new language
            text.set_text("")
            text.set_fontfamily(kw.get("fontfamily", ["DejaVu Sans"]))
        self.ax.set_yticklabels([label(f"dim_{d}", lang) for d in COST_DIMENSIONS], **kw)
        self.ax.set_title(label("chart_breakdown_title", lang), loc="left", fontsize=11, fontweight="bold", **kw)

    def update(self, estimate: Estimate, *, draw: bool = True, scope: str = "project",
               language: str | None = None) -> None:
        """Show ``estimate``'s costs in its currency, moving the existing bars.

        Parameters
        ----------
        estimate : Estimate
            The result to show.
        draw : bool
            False leaves rendering to the caller (no ``draw_idle``).
        scope : {"project", "run"}
            The whole project, or the final run only (data and people at 0,
            hidden costs = failure and other losses only).
        language : str, optional
            Relabel in this language first.

        Under cloud pricing, hatched bars on the energy and hardware rows show
        the parts of the compute rate that pay for them (``Estimate.in_rate_usd``),
        marked "in the rate"; they are inside compute and not added to the total.
        An infeasible estimate (``Estimate.feasible`` False) has no money: no
        bars, and a message in their place.
        """
        if language is not None:
            self.set_language(language)
        lang = self.language or "en"
        fx = estimate.usd_to_currency
        cost = estimate.cost()
        parts = {p: finite_or_zero(estimate.details_usd.get(p, 0.0)) * fx for p in HIDDEN_PARTS}
        if scope == "run":
            cost.update(data=0.0, people=0.0, hidden=estimate.details_usd["restart_loss"] * fx)
            parts.update(experiments=0.0, storage=0.0)
        currency = estimate.scenario.currency
        values = [finite_or_zero(cost[d]) for d in COST_DIMENSIONS]
        in_rate = {d: finite_or_zero(estimate.in_rate_usd.get(d, 0.0)) * fx for d in ("energy", "hardware")}
        total = sum(values)
        self.scale = max(max(values), *in_rate.values(), 1e-9)
        fonts = text_kwargs(lang)[0].get("fontfamily", ["DejaVu Sans"])  # 万/亿 in Chinese: the CJK font
        for bar, rate_bar, text, d, v in zip(self.bars, self.rate_bars, self.value_texts, COST_DIMENSIONS, values):
            text.set_fontfamily(fonts)
            length = v / self.scale
            bar.set_width(length)
            inside = in_rate.get(d, 0.0)
            rate_bar.set_width(inside / self.scale)
            raw = cost[d]
            share = f"  ({v / total:.0%})" if total > 0 and v > 0 else ""
            if not math.isfinite(raw):
                words = label("unit_unknown", lang)
            elif scope == "run" and d in ("data", "people"):
                words = label("not_in_run", lang)
            elif inside > 0 and v == 0:
                words = f"{money_in(inside, currency, text_kwargs(lang)[1], symbol=True)} {label('in_rate', lang)}"
            else:
                words = money_in(raw, currency, text_kwargs(lang)[1], symbol=True) + share
            text.set_text(words)
            text.set_x(max(length, inside / self.scale) + 0.012)
        kw, drawable = text_kwargs(lang)
        self.message_text.set_text("" if estimate.feasible else label("chart_infeasible", drawable))
        self.message_text.set_fontfamily(kw.get("fontfamily", ["DejaVu Sans"]))
        if not estimate.feasible:
            for text in self.value_texts:
                text.set_text("")
        experiments = parts["experiments"] / self.scale
        self.hidden_text.set_text(f"{label('hidden_experiments', drawable)} {money_in(parts['experiments'], currency, drawable, symbol=True)}"
                                  if experiments > 0.55 else "")
        self.hidden_text.set_fontfamily(kw.get("fontfamily", ["DejaVu Sans"]))
        left = 0.0
        for segment, p in zip(self.hidden_segments, HIDDEN_PARTS):
            segment.set_x(left)
            segment.set_width(parts[p] / self.scale)
            left += parts[p] / self.scale
        if draw:
            self.figure.canvas.draw_idle()


class WaterfallPlot(PlotBase):
    """Baseline total, the change in each dimension, and the current total.

    Increases are red and labelled ``+``, decreases green and labelled ``-``,
    so the sign is readable without colour.

    Attributes
    ----------
    scale : float
        Amount [currency] of a bar of height 1.
    """

    def __init__(self, figure: Figure | None = None, language: str = "en"):
        self.figure = figure if figure is not None else NotebookFigure(figsize=(7.0, 3.6), layout="constrained")
        self.ax = self.figure.add_subplot()
        n = len(COST_DIMENSIONS) + 2
        self.bars, self.texts, self.connectors = waterfall_artists(self.ax, n, fontsize=9.5)
        self.ax.set_xticks(np.arange(n))
        self.ax.set_ylim(0, 1.2)
        self.scale = 1.0
        self.language = ""
        self.narrow = False
        self.set_language(language)

    #: Below this width [CSS px] the tick labels stand steeper and the values are smaller, so neighbours do not overlap.
    NARROW_PX = 600

    def fit_width(self, width_px: float) -> None:
        """Fit ticks and value texts to a chart ``width_px`` wide [CSS px]; lay the figure out again after."""
        self.narrow = width_px < self.NARROW_PX
        for text in self.texts:  # upright values above the bars: side by side they would overlap
            text.set_fontsize(8.5 if self.narrow else 9.5)
            text.set_rotation(90 if self.narrow else 0)
        for tick in self.ax.get_xticklabels():
            tick.set_rotation(50 if self.narrow else 20)

    def _moving_artists(self) -> list:
        return [*self.bars, *self.texts, self.connectors]

    def set_language(self, language: str) -> None:
        """Relabel ticks and title in ``language``."""
        if language == self.language:
            return
        self.language = language
        kw, lang = text_kwargs(language)
        names = [label("baseline", lang)] + [label(f"dim_{d}", lang) for d in COST_DIMENSIONS] + [label("current", lang)]
        for text in self.texts:  # emptied: the next update writes them in the new language
            text.set_text("")
            text.set_fontfamily(kw.get("fontfamily", ["DejaVu Sans"]))
        self.ax.set_xticklabels(names, rotation=50 if getattr(self, "narrow", False) else 20, ha="right",
                                fontsize=9.5, rotation_mode="anchor", **kw)
        self.ax.set_title(label("chart_waterfall_title", lang), loc="left", fontsize=11, fontweight="bold", **kw)

    @staticmethod
    def steps(baseline: Estimate, current: Estimate) -> list[tuple[float, float]]:
        """(bottom, height) of each bar in the current estimate's currency.

        An unknown cost (NaN) counts as 0 here; :meth:`update` labels it "unknown".
        """
        fx = current.usd_to_currency
        base = {k: finite_or_zero(v) * fx for k, v in baseline.cost_usd.items()}
        cur = {k: finite_or_zero(v) * fx for k, v in current.cost_usd.items()}
        start = sum(base[d] for d in COST_DIMENSIONS)
        out = [(0.0, start)]
        level = start
        for d in COST_DIMENSIONS:
            delta = cur[d] - base[d]
            out.append((level, delta))
            level += delta
        out.append((0.0, level))
        return out

    def update(self, baseline: Estimate, current: Estimate, *, draw: bool = True) -> None:
        """Show the change from ``baseline`` to ``current``, moving the existing bars.

        ``draw=False`` leaves rendering to the caller (no ``draw_idle``).
        """
        currency = current.scenario.currency
        steps = self.steps(baseline, current)
        unknown_dims = [not (math.isfinite(baseline.cost_usd[d]) and math.isfinite(current.cost_usd[d]))
                        for d in COST_DIMENSIONS]
        unknown = [not math.isfinite(baseline.total_usd), *unknown_dims, not math.isfinite(current.total_usd)]
        last = len(steps) - 1
        drawable = text_kwargs(self.language or "en")[1]  # Chinese numbers only where Chinese is drawn

        def text_of(i: int, height: float, scale: float) -> str:
            if unknown[i]:
                return label("unit_unknown", self.language)
            if i in (0, last):
                return money_in(height, currency, drawable, symbol=True)
            if abs(height) < 1e-9 * scale:
                return "0"
            return ("+" if height > 0 else "-") + money_in(abs(height), currency, drawable, symbol=True)

        self.scale = place_waterfall(self.bars, self.texts, self.connectors, steps,
                                     [i in (0, last) for i in range(len(steps))], text_of)
        if draw:
            self.figure.canvas.draw_idle()
