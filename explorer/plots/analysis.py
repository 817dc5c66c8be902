"""Figures of the analysis layer (:mod:`explorer.analysis`), built once and updated in place.

* :class:`TornadoPlot`: total cost at the low and high end of each uncertain
  input (:func:`explorer.analysis.sensitivity`).
* :class:`LeverWaterfallPlot`: "what changed", by lever
  (:func:`explorer.analysis.attribute`).
* :class:`CompareBarsPlot`: grouped bars of up to four compared slots
  (:func:`explorer.analysis.compare`).
* :class:`SimulationPlot`: histogram of the Monte Carlo totals with P5, P50,
  P95 and the point estimate (:func:`explorer.analysis.simulate`).

Object-oriented matplotlib only (no pyplot); every artist is created in
``__init__`` and moved by ``update``. Amounts come in USD and are shown in
``currency`` at ``usd_to_currency``. Labels come from ``labels.csv``
(English and Chinese; Chinese needs a CJK font, :mod:`explorer.plots.fonts`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.ticker import FuncFormatter

from explorer.analysis import LEVERS, Attribution, Simulation
from explorer.model import COST_DIMENSIONS
from explorer.plots.breakdown import finite_or_zero, PlotBase, place_waterfall, waterfall_artists
from explorer.plots.figure import NotebookFigure
from explorer.plots.fonts import text_kwargs
from explorer.text import breakeven_text, label, money_in

__all__ = ["TornadoPlot", "LeverWaterfallPlot", "CompareBarsPlot", "SimulationPlot", "SLOT_COLORS"]

_LOW, _HIGH = "#56B4E9", "#E69F00"
#: One colour per compared slot A-D (Okabe-Ito); hatching tells them apart without colour.
SLOT_COLORS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7")
_SLOT_HATCH = ("", "//", "..", "xx")


def mathtext_money(x: float, currency: str, digits: int = 3, language: str = "en") -> str:
    """:func:`~explorer.text.money_in` (with its sign first: ``$8.1M``, ``¥3,660万``) with ``$`` escaped: two of
    them in one text would start mathtext."""
    return money_in(x, currency, language, digits, symbol=True).replace("$", r"\$")


def font_properties(kw: dict, size: float = 9):
    from matplotlib.font_manager import FontProperties

    return FontProperties(family=kw["fontfamily"], size=size) if kw else FontProperties(size=size)


class LabelledPlot(PlotBase):
    """Language handling shared by the analysis figures."""

    title_key = ""
    ax: Axes
    legend: Legend | None

    def _init_language(self, language: str) -> None:
        self.language = ""
        self.lang = "en"
        self.kw: dict = {}
        self.set_language(language)

    def set_language(self, language: str) -> None:
        """Relabel the title (and, at the next update, the ticks) in ``language``."""
        if language == self.language:
            return
        self.language = language
        self.kw, self.lang = text_kwargs(language)
        self.ax.set_title(label(self.title_key, self.lang), loc="left", fontsize=11, fontweight="bold", **self.kw)
        self._relabel()

    def _relabel(self) -> None:
        pass

    def fonts(self) -> list[str]:
        """The font families of the language drawn (the CJK font first in Chinese: 万 and 亿 in numbers)."""
        return self.kw.get("fontfamily", ["DejaVu Sans"])

    def _money_axis(self, axis, currency: str) -> None:
        axis.set_major_formatter(FuncFormatter(lambda v, _pos: mathtext_money(v, currency, 2, self.lang)))
        axis.set_tick_params(labelfontfamily=self.fonts())


class TornadoPlot(LabelledPlot):
    """Tornado chart: one bar per uncertain input from its low-end to its high-end total.

    Parameters
    ----------
    figure : Figure, optional
    language : {"en", "zh"}
    max_rows : int
        Bars drawn (the widest swings); the rest are left out.
    """

    title_key = "chart_tornado_title"

    def __init__(self, figure: Figure | None = None, language: str = "en", max_rows: int = 7):
        self.figure = figure if figure is not None else NotebookFigure(figsize=(7.0, 3.6), layout="constrained")
        self.ax = self.figure.add_subplot()
        self.max_rows = max_rows
        y = np.arange(max_rows)[::-1]
        self.low_bars = self.ax.barh(y, np.zeros(max_rows), left=np.zeros(max_rows), height=0.6, color=_LOW)
        self.high_bars = self.ax.barh(y, np.zeros(max_rows), left=np.zeros(max_rows), height=0.6, color=_HIGH)
        self.range_texts = [self.ax.text(0, yi, "", va="center", ha="left", fontsize=8.5) for yi in y]
        self.point_line = self.ax.axvline(0, color="0.2", lw=1.0)
        self.legend = None
        self.ax.set_yticks(y)
        self.ax.spines[["top", "right"]].set_visible(False)
        self.ax.tick_params(axis="y", length=0, labelsize=9.5)
        self.names: list[str] = []
        self._init_language(language)

    def _moving_artists(self) -> list:
        return [*self.low_bars, *self.high_bars, *self.range_texts, self.point_line]

    def _relabel(self) -> None:
        names = self.names + [""] * (self.max_rows - len(self.names))
        self.ax.set_yticklabels([label(f"unc_{n}", self.lang) if n else "" for n in names], **self.kw)
        self.ax.set_xlabel(label("an_total_cost", self.lang), **self.kw)
        if self.legend is not None:
            self.legend.remove()
        self.legend = self.ax.legend([self.low_bars[0], self.high_bars[0]],
                                     [label("an_input_low", self.lang), label("an_input_high", self.lang)],
                                     loc="lower right", frameon=False, prop=font_properties(self.kw))

    def update(self, table: pd.DataFrame, currency: str = "USD", usd_to_currency: float = 1.0, *,
               draw: bool = True) -> None:
        """Show a :func:`~explorer.analysis.sensitivity` table (``attrs["point_usd"]`` marks the point)."""
        rows = table.head(self.max_rows)
        fx = usd_to_currency
        point = finite_or_zero(table.attrs.get("point_usd", math.nan)) * fx
        self.names = list(rows["name"])
        lo_all, hi_all = [point], [point]
        for i in range(self.max_rows):
            lb, hb, text = self.low_bars[i], self.high_bars[i], self.range_texts[i]
            if i >= len(rows):
                for bar in (lb, hb):
                    bar.set_width(0.0)
                text.set_text("")
                continue
            r = rows.iloc[i]
            lo, hi = finite_or_zero(r["total_usd_low"]) * fx, finite_or_zero(r["total_usd_high"]) * fx
            # blue: the input at its low end; orange: at its high end (each drawn from the point)
            lb.set_x(min(point, lo))
            lb.set_width(abs(lo - point))
            hb.set_x(min(point, hi))
            hb.set_width(abs(hi - point))
            lo_all += [lo, hi]
            hi_all += [lo, hi]
            text.set_text(f"{mathtext_money(min(lo, hi), currency, 3, self.lang)} – {mathtext_money(max(lo, hi), currency, 3, self.lang)}")
            text.set_x(max(lo, hi))
            text.set_fontfamily(self.fonts())
        left, right = min(lo_all), max(hi_all)
        pad = 0.05 * (right - left) if right > left else max(abs(point), 1.0) * 0.1
        self.ax.set_xlim(left - pad, right + 3.5 * pad)
        for text in self.range_texts:
            text.set_x(text.get_position()[0] + 0.3 * pad)
        self.point_line.set_xdata([point, point])
        self._money_axis(self.ax.xaxis, currency)
        self._relabel()
        if draw:
            self.figure.canvas.draw_idle()


class LeverWaterfallPlot(LabelledPlot):
    """Waterfall of a change by lever: baseline total, each differing lever's part, target total.

    Increases are red and labelled ``+``, decreases green and labelled ``-``.
    """

    title_key = "chart_lever_waterfall_title"

    def __init__(self, figure: Figure | None = None, language: str = "en"):
        self.figure = figure if figure is not None else NotebookFigure(figsize=(7.0, 3.6), layout="constrained")
        self.ax = self.figure.add_subplot()
        self.bars, self.texts, self.connectors = waterfall_artists(self.ax, len(LEVERS) + 3, fontsize=9)
        self.keys: list[str] = ["baseline", "current"]
        #: What the first bar is, when it is a slot: ``"A"`` or ``"A · name"`` (the app's baseline, issue 41: the
        #: PNG named no baseline); "" for a plain "Baseline".
        self.baseline_slot = ""
        self._init_language(language)

    def _moving_artists(self) -> list:
        return [*self.bars, *self.texts, self.connectors]

    def _bar_name(self, key: str) -> str:
        if key == "baseline" and self.baseline_slot:
            return label("lever_baseline_slot", self.lang).format(slot=self.baseline_slot)
        if key in ("baseline", "current"):
            return label(key, self.lang)
        return " + ".join(label(f"lever_{part}", self.lang) for part in key.split("+"))

    def _relabel(self) -> None:
        names = [self._bar_name(k) for k in self.keys]
        self.ax.set_xticks(np.arange(len(names)))
        self.ax.set_xticklabels(names, rotation=20, ha="right", fontsize=9, **self.kw)

    @staticmethod
    def steps(attribution: Attribution) -> list[tuple[str, float, float]]:
        """(key, bottom, height) of each bar [USD]: baseline, the nonzero levers, current."""
        out = [("baseline", 0.0, attribution.baseline_usd)]
        level = attribution.baseline_usd
        for key, value in attribution.parts_usd.items():
            if value != 0.0 and math.isfinite(value):
                out.append((key, level, value))
                level += value
        out.append(("current", 0.0, attribution.target_usd))
        return out

    def update(self, attribution: Attribution, currency: str = "USD", usd_to_currency: float = 1.0, *,
               draw: bool = True) -> None:
        """Show ``attribution``, moving the existing bars; unused bars are hidden."""
        steps = [(k, b * usd_to_currency, h * usd_to_currency) for k, b, h in self.steps(attribution)]
        self.keys = [k for k, _, _ in steps]
        totals = [k in ("baseline", "current") for k in self.keys]

        def text_of(i: int, height: float, scale: float) -> str:
            if totals[i]:
                return mathtext_money(height, currency, 3, self.lang)
            return ("+" if height > 0 else "-") + mathtext_money(abs(height), currency, 3, self.lang)

        place_waterfall(self.bars, self.texts, self.connectors, [(b, h) for _, b, h in steps], totals, text_of)
        for text in self.texts:
            text.set_fontfamily(self.fonts())
        self.ax.set_xlim(-0.6, len(steps) - 0.4)
        self.ax.set_ylim(0, 1.2)
        self._relabel()
        if draw:
            self.figure.canvas.draw_idle()


class CompareBarsPlot(LabelledPlot):
    """Grouped bars: the six cost dimensions and the total, one bar per compared slot (up to four)."""

    title_key = "chart_compare_title"
    MAX_SLOTS = 4

    def __init__(self, figure: Figure | None = None, language: str = "en"):
        self.figure = figure if figure is not None else NotebookFigure(figsize=(7.0, 3.6), layout="constrained")
        self.ax = self.figure.add_subplot()
        self.groups = (*COST_DIMENSIONS, "total")
        x = np.arange(len(self.groups))
        width = 0.8 / self.MAX_SLOTS
        self.slot_bars = []
        for j in range(self.MAX_SLOTS):
            bars = self.ax.bar(x + (j - (self.MAX_SLOTS - 1) / 2) * width, np.zeros(len(x)), width=width * 0.95,
                               color=SLOT_COLORS[j], hatch=_SLOT_HATCH[j], edgecolor="white", linewidth=0.4)
            self.slot_bars.append(bars)
        self.ax.set_xticks(x)
        self.ax.spines[["top", "right"]].set_visible(False)
        self.ax.tick_params(axis="x", length=0)
        self.slot_names: list[str] = []
        self.legend = None
        self._init_language(language)

    def _moving_artists(self) -> list:
        return [b for bars in self.slot_bars for b in bars]

    def _relabel(self) -> None:
        names = [label(f"dim_{g}", self.lang) if g != "total" else label("an_total_cost", self.lang)
                 for g in self.groups]
        self.ax.set_xticklabels(names, rotation=15, ha="right", fontsize=9.5, **self.kw)

    def _slot_name(self, name, row, currency: str, usd_to_currency: float) -> str:
        """A slot's legend entry; an owned slot's says what it costs up front and when it pays back."""
        capex = float(row.get("capex_usd", float("nan")))
        if not np.isfinite(capex):
            return str(name)
        months = float(row.get("breakeven_months", float("nan")))
        payback = (label("owned_never_beats", self.lang) if months == math.inf
                   else f"{label('owned_breakeven', self.lang)} {breakeven_text(months, self.lang)}")
        # plain text: update() escapes every "$" of the entry once
        parts = (f"{label('owned_capex', self.lang)} {money_in(capex * usd_to_currency, currency, self.lang, symbol=True)}", payback)
        return f"{name}（{'，'.join(parts)}）" if self.lang == "zh" else f"{name} ({', '.join(parts)})"

    def update(self, table: pd.DataFrame, currency: str = "USD", usd_to_currency: float = 1.0, *,
               draw: bool = True, styles: list[int] | None = None) -> None:
        """Show a :func:`~explorer.analysis.compare` table (its first four rows).

        An owned slot's legend entry carries its capex and break-even (``capex_usd``, ``breakeven_months``).

        ``styles`` gives each row's colour and hatch (an index into the four
        slot styles), so that a slot keeps its colour whichever slots are
        pinned; default: in row order.
        """
        rows = table.head(self.MAX_SLOTS)
        # names in the legend are plain text: a "$" would start matplotlib's mathtext
        self.slot_names = [self._slot_name(n, r, currency, usd_to_currency).replace("$", r"\$")
                           for n, r in rows.iterrows()]
        styles = list(styles or range(len(rows)))[:len(rows)]
        top = 0.0
        for j, bars in enumerate(self.slot_bars):
            used = j < len(rows)
            if used:
                for bar in bars:
                    bar.set_facecolor(SLOT_COLORS[styles[j]])
                    bar.set_hatch(_SLOT_HATCH[styles[j]])
            for bar, g in zip(bars, self.groups):
                value = finite_or_zero(rows.iloc[j][f"{g}_usd"]) * usd_to_currency if used else 0.0
                bar.set_height(value)
                bar.set_visible(used)
                top = max(top, value)
        self.ax.set_ylim(0, max(top, 1e-9) * 1.08)
        self._money_axis(self.ax.yaxis, currency)
        if self.legend is not None:
            self.legend.remove()
        self.legend = self.ax.legend([bars[0] for bars in self.slot_bars[:len(rows)]], self.slot_names,
                                     loc="upper left", frameon=False, prop=font_properties(self.kw))
        self._relabel()
        if draw:
            self.figure.canvas.draw_idle()


class SimulationPlot(LabelledPlot):
    """Histogram of the simulated totals with the P5-P95 band, the median and the point estimate.

    Parameters
    ----------
    bins : int
        Histogram bars, fixed at construction (the bars are moved, not rebuilt).
    """

    title_key = "chart_simulation_title"

    def __init__(self, figure: Figure | None = None, language: str = "en", bins: int = 60):
        self.figure = figure if figure is not None else NotebookFigure(figsize=(7.0, 3.6), layout="constrained")
        self.ax = self.figure.add_subplot()
        self.nbins = bins
        self.bars = self.ax.bar(np.arange(bins), np.zeros(bins), width=1.0, align="edge", color="#9DB4C0",
                                edgecolor="white", linewidth=0.3)
        self.band = self.ax.axvspan(0, 1, color=_HIGH, alpha=0.15, lw=0, zorder=0)
        self.median_line = self.ax.axvline(0, color="#0072B2", lw=1.6)
        self.point_line = self.ax.axvline(0, color="0.15", lw=1.4, ls="--")
        self.note = self.ax.text(0.99, 0.97, "", transform=self.ax.transAxes, ha="right", va="top", fontsize=9)
        self.ax.yaxis.set_visible(False)
        self.ax.spines[["top", "right", "left"]].set_visible(False)
        self.legend = None
        self.currency = "USD"
        self._init_language(language)

    def _moving_artists(self) -> list:
        return [*self.bars, self.band, self.median_line, self.point_line, self.note]

    def _relabel(self) -> None:
        self.ax.set_xlabel(label("an_total_cost", self.lang), **self.kw)
        if self.legend is not None:
            self.legend.remove()
        prop = font_properties(self.kw)
        self.legend = self.ax.legend([self.band, self.median_line, self.point_line],
                                     [label("an_interval90", self.lang), label("an_median", self.lang),
                                      label("an_point", self.lang)], loc="upper right", bbox_to_anchor=(1.0, 0.84),
                                     frameon=False, prop=prop)

    def update(self, simulation: Simulation, currency: str = "USD", usd_to_currency: float = 1.0, *,
               draw: bool = True) -> None:
        """Show ``simulation``'s totals (the central 99.5% of draws; the far tail is left out of the axis)."""
        fx = usd_to_currency
        totals = simulation.totals_usd[np.isfinite(simulation.totals_usd)] * fx
        p5, p50, p95 = (float(simulation.percentiles.loc[p, "total_usd"]) * fx for p in ("P5", "P50", "P95"))
        point = simulation.point_usd * fx
        if totals.size:
            lo, hi = np.percentile(totals, [0.25, 99.75])
            lo, hi = min(lo, point), max(hi, point)
        else:
            lo, hi = 0.0, 1.0
        if hi <= lo:
            lo, hi = lo * 0.95 - 1e-9, hi * 1.05 + 1e-9
        counts, edges = np.histogram(totals, bins=self.nbins, range=(lo, hi))
        width = edges[1] - edges[0]
        top = max(int(counts.max()) if counts.size else 0, 1)
        for bar, c, left in zip(self.bars, counts, edges[:-1]):
            bar.set_x(left)
            bar.set_width(width)
            bar.set_height(c / top)
        self.band.set_x(p5)
        self.band.set_width(p95 - p5)
        self.median_line.set_xdata([p50, p50])
        self.point_line.set_xdata([point, point])
        self.note.set_text(f"{mathtext_money(p5, currency, 3, self.lang)} – {mathtext_money(p95, currency, 3, self.lang)}\n"
                           f"{simulation.n:,} {label('an_draws', self.lang)}")
        self.note.set(**self.kw)
        self.ax.set_xlim(lo, hi)
        self.ax.set_ylim(0, 1.25)
        self._money_axis(self.ax.xaxis, currency)
        if draw:
            self.figure.canvas.draw_idle()
