"""Figure of the historical training-cost curve, updated in place.

Built with :class:`matplotlib.figure.Figure` (never pyplot), so it works
headless (Agg) and inside an ipympl canvas. :class:`HistoryPlot` owns the chart
and its state (its figure of each language, the artists it moves, the currency,
the marker and its interval, the blitted backgrounds): build one, then
:meth:`HistoryPlot.set_marker` moves the "your run" marker by changing existing
artists, cheap enough for every control change in the app.

Mark one's own run::

    from explorer import Scenario, estimate
    from explorer.plots.history import HistoryPlot

    plot = HistoryPlot("en")
    e = estimate(Scenario(params=70e9, tokens=1.4e12))
    plot.set_marker(e.final_run_usd, 2026.5, "my 70B run")  # the final run: the scope of the curve's points
    plot.figure.savefig("history.png")

The functions (:func:`history_figure`, :func:`set_scenario_marker`,
:func:`set_marker_interval`, :func:`set_history_currency`,
:func:`reset_history_limits`, :func:`enable_marker_blitting`,
:func:`redraw_marker`) are thin wrappers kept for scripts written against them:
each finds the figure's :class:`HistoryPlot` (``figure.history_plot``) and calls
its method. ``figure.history_handles`` is a read-only view of the artists, for
inspection.

Switching language or currency is cheap too: the label placement is computed
once per language in a process (with the layout engine, no full draw), the
band once per fit, a currency changes only the axis and a few texts (the data
stay in USD), and with :func:`enable_marker_blitting` the background of each
language, currency and view already drawn is restored instead of drawn again.

Methods are told apart by marker shape (and legend), not by colour alone;
colours are from the Okabe-Ito palette, readable with colour-vision
deficiencies.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.transforms import IdentityTransform
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, MultipleLocator

from explorer import history
from explorer.errors import ScenarioError
from explorer.messages import Message
from explorer.plots.blit import Blitter
from explorer.plots.figure import NotebookFigure
from explorer.plots.fonts import text_kwargs
from explorer.plots.label_placement import LabelInsideAxes, place_labels, placement_key

if TYPE_CHECKING:
    from matplotlib.artist import Artist
    from matplotlib.axes import Axes
    from matplotlib.legend import Legend
    from matplotlib.text import Annotation
from explorer.text import label, labels, money_in, quantity_in

__all__ = ["HistoryHandles", "HistoryPlot", "history_figure", "set_scenario_marker", "enable_marker_blitting", "redraw_marker",
           "set_marker_interval", "reset_history_limits"]

#: Marker shape per method (the primary cue), then colour.
MARKERS = {"amortized": "o", "cloud": "s", "developer": "^"}
COLORS = {"amortized": "#0072B2", "cloud": "#E69F00", "developer": "#009E73"}
TREND_COLOR = "#0072B2"
SCENARIO_COLOR = "#D55E00"

#: Labels of points dated from this year on [decimal yr] are stacked in a column.
COLUMN_FROM_YEAR = 2023.5


def _short_name(model: str, language: str) -> str:
    """Point label of a model: its short name in labels.csv (key ``short:<model>``), else the name itself."""
    key = f"short:{model}"
    return label(key, language) if key in labels() else model


def _labels(language: str) -> dict[str, Any]:
    """All text of the figure in ``language``, from the one label table (explorer/data/labels.csv)."""
    keys = ("title", "subtitle", "xlabel", "ylabel", "hollow", "trend", "band", "crossing", "scenario",
            "scenario_point", "retrain", "footer")
    lab: dict[str, Any] = {k: label(f"history_{k}", language) for k in keys}
    lab["methods"] = {m: label(f"history_method_{m}", language) for m in history.METHODS}
    lab["method_words"] = {m: label(f"history_words_{m}", language) for m in history.METHODS}
    return lab


LANGUAGES = ("en", "zh")


def _star_entry(legend: Legend) -> Artist:
    """The legend's entry of the "your run" star, its last handle."""
    entry = legend.legend_handles[-1]
    assert entry is not None  # matplotlib has None only for a handle type it cannot draw; the star is a Line2D
    return entry

@dataclass(eq=False)
class HistoryHandles:
    """Artists of a history figure that are updated in place, with what they show (a :class:`HistoryPlot`'s).

    Attributes
    ----------
    ax : matplotlib.axes.Axes
    fit : explorer.history.TrendFit
    scenario_marker : matplotlib.lines.Line2D
        The "your run" star; empty data when hidden.
    scenario_label : matplotlib.text.Annotation
    language : str
    point_labels : list of matplotlib.text.Annotation
    limits : tuple
        ``(xlim, ylim)`` as built, before a marker widened them (see :meth:`HistoryPlot.reset_limits`).
    interval_line : matplotlib.lines.Line2D or None
        The marker's error bar, made on its first use.
    """

    ax: Axes
    fit: history.TrendFit
    scenario_marker: Line2D
    scenario_label: LabelInsideAxes
    language: str
    point_labels: list[Annotation] = field(default_factory=list)
    blitter: Blitter | None = None
    crossing_labels: list[tuple[history.Crossing, Annotation]] = field(default_factory=list)
    currency: str = "USD"
    fx: float = 1.0
    ylabel_usd: str = ""
    content_key: int = 0
    limits: tuple = ()
    interval_line: Line2D | None = None



def _usd_axis(x, _pos=None) -> str:
    if x <= 0:
        return ""
    exp = math.log10(x)
    if abs(exp - round(exp)) > 1e-6:
        return ""
    for div, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
        if x >= div:
            return f"${x / div:g}{suffix}"
    return f"${x:g}"


def _money_axis(language: str, symbol: str = "$", fx: float = 1.0):
    """A tick formatter of powers of ten of money: ``$1B`` in English; on a Chinese chart 万/亿 as Chinese readers
    write them (``¥1,000亿``, not ``¥1000B``, issue 41), when the chart can draw Chinese."""
    drawable = text_kwargs(language)[1]

    def fmt(y, _pos=None) -> str:
        x = y * fx
        if drawable != "zh":
            return _usd_axis(x).replace("$", symbol)
        if x <= 0 or abs(math.log10(x) - round(math.log10(x))) > 1e-6:
            return ""
        return symbol + quantity_in(float(f"{x:.3g}"), "zh")
    return FuncFormatter(fmt)


#: Trend band and line on a grid, by fit and grid ends (see :func:`_trend_curves`), newest last.
_CURVES: dict = {}


@functools.lru_cache(maxsize=1)
def default_fit() -> "history.TrendFit":
    """The trend the chart draws by default (:func:`explorer.history.fit_trend` with its defaults), fitted once.

    The fit is a pure function of the data files (its bootstrap has a fixed seed), and was about 40% of the
    time of building the chart. Fitted once per process, it is fitted once per server when the app is
    warmed in the template kernels are forked from (:mod:`explorer.app.warm`). Its arrays are made read-only:
    every figure shares them.
    """
    fit = history.fit_trend()
    for name in ("year", "cost_usd", "boot_intercept_log10", "boot_slope_log10_per_year"):
        value = getattr(fit, name)
        if isinstance(value, np.ndarray):
            value.setflags(write=False)
    return fit


def _trend_curves(fit, x0: float, x1: float) -> tuple:
    """``grid, lo, hi, trend`` of ``fit`` on 300 years from ``x0`` to ``x1``, computed once per fit in a process.

    The bootstrap band (a quantile over every resample at every grid year) is
    most of the time of building the figure, and the same for every build.
    """
    key = (fit.method, fit.year_ref, fit.intercept_log10, fit.slope_log10_per_year, fit.ci_level,
           np.asarray(fit.boot_intercept_log10).tobytes(), np.asarray(fit.boot_slope_log10_per_year).tobytes(),
           float(x0), float(x1))
    curves = _CURVES.get(key)
    if curves is None:
        grid = np.linspace(x0, x1, 300)
        lo, hi = fit.band_cost_usd(grid)
        curves = (grid, lo, hi, fit.predict_cost_usd(grid))
        for a in curves:
            a.setflags(write=False)
        _CURVES[key] = curves
        while len(_CURVES) > 8:
            del _CURVES[next(iter(_CURVES))]
    return curves


def _runs(data) -> list:
    """One row per run (model and date), in order of first appearance: ``x, y_lo, y_hi, n, model, estimate, cost``.

    The run is labelled by its first estimate used in the fit, else its
    costliest (ties: the first in the table), at that estimate's cost.
    """
    year = data["year"].to_numpy(float)
    cost = data["cost_usd_target"].to_numpy(float)
    in_fit = data["in_fit"].to_numpy(bool)
    groups: dict = {}
    for i, key in enumerate(zip(data["model"], data["date"])):
        groups.setdefault(key, []).append(i)
    out = []
    for (model, _date), rows in groups.items():
        top = min(rows, key=lambda i: (not in_fit[i], -cost[i], i))
        out.append((float(year[rows[0]]), float(cost[rows].min()), float(cost[rows].max()), len(rows), model,
                    data["estimate"].iat[top], float(cost[top])))
    return out


def _labelled_runs(data, runs) -> set:
    """Indices of the runs of :func:`_runs` that get a name on the chart.

    Epoch AI's frontier set has 82 models, too many to name: a run is named if
    it has an estimate outside that set (the AI Index, developer and other
    figures of ``history.csv``, which the article's claims refer to), or if it
    is the costliest run of its publication year in the set.
    """
    outside = set(zip(data.loc[~data["id"].str.startswith("epochf_"), "model"],
                      data.loc[~data["id"].str.startswith("epochf_"), "date"]))
    keys = list(dict.fromkeys(zip(data["model"], data["date"])))
    top: dict = {}
    for j, (x, _lo, _hi, _n, _model, _est, cost) in enumerate(runs):
        year = int(x)
        if year not in top or cost > runs[top[year]][6]:
            top[year] = j
    return {j for j, key in enumerate(keys) if key in outside} | set(top.values())


def history_figure(fit=None, *, figure: Figure | None = None, language: str = "en") -> Figure:
    """Cost of notable models against date, with trend, band and projections.

    Parameters
    ----------
    fit : explorer.history.TrendFit, optional
        The trend to draw; default :func:`explorer.history.fit_trend` (frontier
        models, amortized method).
    figure : matplotlib.figure.Figure, optional
        Draw into this figure (it is cleared), e.g. an ipympl canvas figure.
    language : {"en", "zh"}
        Label language; "zh" falls back to English when no installed font
        covers Chinese.

    Returns
    -------
    matplotlib.figure.Figure
        Owned by a :class:`HistoryPlot` (``figure.history_plot``); ``figure.history_handles`` views its artists.

    See Also
    --------
    HistoryPlot : the chart's owner; ``HistoryPlot(language).set_marker(cost_usd, year, label)`` marks a run.
    set_scenario_marker : mark your own run on the figure (a star with its cost), in place.

    Examples
    --------
    Mark one's own run: its final-run cost (the scope of the curve's points) in the year it is trained.

    >>> from explorer import Scenario, estimate
    >>> from explorer.plots.history import history_figure, set_scenario_marker
    >>> fig = history_figure()
    >>> e = estimate(Scenario(params=70e9, tokens=1.4e12))
    >>> set_scenario_marker(fig, e.final_run_usd, 2026.5, "my 70B run")
    >>> fig.history_handles.scenario_label.get_text().startswith("my 70B run: $")
    True
    """
    fig = figure if figure is not None else NotebookFigure(figsize=(13, 7.8), dpi=100, layout="constrained")
    return HistoryPlot(language, fit=fit, figure=fig).figure


def _draw(fig: Figure, fit, language: str) -> HistoryHandles:
    """Draw the chart into ``fig`` (cleared) and return the artists a :class:`HistoryPlot` moves."""
    text_kw, language = text_kwargs(language)
    lab = _labels(language)
    if fit is None:
        fit = default_fit()
    old = getattr(fig, "history_plot", None)
    if old is not None:  # drawn again: the artists of the last drawing go, and their blitter
        old._forget(fig)
    fig.clear()
    if hasattr(fig, "set_layout_engine"):
        fig.set_layout_engine("constrained")
    ax = fig.add_subplot()
    ax.set_yscale("log")

    data = history.load_history()
    in_fit = {(m, round(float(y), 6)) for m, y in zip(fit.labels, fit.year)}
    frontier_fit = "frontier" in fit.subset
    data["in_fit"] = [
        (r.method == fit.method) and ((r.model, round(float(r.year), 6)) in in_fit) and r.scope == "final_run"
        and (r.frontier or not frontier_fit)
        for r in data.itertuples()
    ]

    # trend, band, projection
    crossings = fit.crossings
    last_cross = crossings[-1]
    x_end = float(np.clip(max(last_cross.year + 1.0, last_cross.hi + 0.6), fit.year.max() + 2,
                          fit.year.max() + 16)) \
        if math.isfinite(last_cross.year) else fit.year.max() + 8
    grid, lo, hi, trend = _trend_curves(fit, fit.year.min(), x_end)
    ax.fill_between(grid, lo, hi, color=TREND_COLOR, alpha=0.13, linewidth=0, zorder=1)
    split = grid <= fit.year.max()
    ax.plot(grid[split], trend[split], color=TREND_COLOR, lw=2, zorder=2)
    ax.plot(grid[~split], trend[~split], color=TREND_COLOR, lw=2, ls="--", zorder=2)

    # threshold lines and crossings
    crossing_labels = []
    for c in crossings:
        ax.axhline(c.cost_usd, color="0.6", lw=0.8, ls=":", zorder=0)
        if not math.isfinite(c.year):
            continue
        xerr = [[c.year - c.lo], [max(c.hi, c.year) - c.year]] if math.isfinite(c.hi) else None
        ax.errorbar([c.year], [c.cost_usd], xerr=xerr, fmt="D", color="black", ms=7, capsize=4,
                    lw=1.4, zorder=5)
        crossing_labels.append((c, ax.annotate(f"{money_in(c.cost_usd, 'USD', language, symbol=True)}: {c.year:.0f}",
                                               (c.year, c.cost_usd), **text_kw,
                                               xytext=(0, 9), textcoords="offset points", ha="center",
                                               va="bottom", fontsize=10, fontweight="bold", zorder=6)))

    # points: shape per method, filled if used in the fit
    for method in history.METHODS:
        sub = data[data["method"] == method]
        for used, sel in ((True, sub[sub["in_fit"]]), (False, sub[~sub["in_fit"]])):
            if sel.empty:
                continue
            ax.plot(sel["year"], sel["cost_usd_target"], ls="none", marker=MARKERS[method], ms=8,
                    mec=COLORS[method], mew=1.6, mfc=COLORS[method] if used else "white", zorder=3)

    # scenario marker (hidden until set)
    (marker,) = ax.plot([], [], ls="none", marker="*", ms=22, mfc=SCENARIO_COLOR, mec="black", mew=1.0,
                        zorder=8)
    ann = LabelInsideAxes("", (fit.year.max(), 1e6), xytext=(130, -70), textcoords="offset points",
                           arrowprops=dict(arrowstyle="-", color=SCENARIO_COLOR, lw=1.2, shrinkB=9),
                           fontsize=11, fontweight="bold", color=SCENARIO_COLOR, zorder=9, va="top",
                           bbox=dict(boxstyle="round,pad=0.3", fc="white", ec=SCENARIO_COLOR, alpha=0.95),
                           annotation_clip=False, **text_kw)
    ann.set_transform(IdentityTransform())  # as Axes.annotate does (and no clipping to the axes)
    ax.add_artist(ann)
    ann.set_clip_path(None)
    ann.set_visible(False)
    ann.set_in_layout(False)

    # axes, titles, legend
    ymin = min(1e2, float(data["cost_usd_target"].min()) / 3)
    ax.set_ylim(ymin, max(3e11, crossings[-1].cost_usd * 3))
    # whole-year limits at least a year from any 5-year tick, so no tick label sticks out of the axes: the
    # constrained layout then does not depend on the axes' previous width (a language switched back lays out the same)
    right = math.ceil(x_end) + (1 if math.ceil(x_end) % 5 == 0 else 0)
    ax.set_xlim(math.floor(min(fit.year.min(), data["year"].min())) - 1, right)
    ax.yaxis.set_major_formatter(_money_axis(language))
    if text_kw:  # the ticks write 万/亿 in Chinese: drawn in the CJK font
        ax.tick_params(axis="y", labelfontfamily=text_kw["fontfamily"])
    # whole years every 5, whatever the axes' size: the layout then does not depend on the figure's previous state
    ax.xaxis.set_major_locator(MultipleLocator(5))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _pos=None: f"{x:.0f}"))
    ax.grid(True, which="major", color="0.88", lw=0.8)
    ax.set_axisbelow(True)
    ax.tick_params(labelsize=11)
    ax.set_xlabel(lab["xlabel"], fontsize=12, **text_kw)
    ax.set_ylabel(lab["ylabel"].format(dollar_year=fit.dollar_year), fontsize=12, **text_kw)
    glo, ghi = fit.growth_ci
    method_words = lab["method_words"].get(fit.method, fit.method)
    fig.suptitle(lab["title"], fontsize=16, fontweight="bold", **text_kw)
    period = f"{int(fit.year.min())}–{int(fit.year.max())}"
    ax.set_title(lab["subtitle"].format(method=method_words, g=fit.growth_per_year, lo=glo, hi=ghi,
                                        d=fit.doubling_months, period=period, n=fit.n_points),
                 fontsize=11.5, **text_kw)
    ax.annotate(lab["footer"], xy=(0, 0), xycoords="axes fraction", xytext=(0, -42),
                textcoords="offset points", fontsize=9, color="0.35", ha="left", va="top", **text_kw)

    handles: list[Artist] = [Line2D([], [], ls="none", marker=MARKERS[m], ms=8, mec=COLORS[m], mfc=COLORS[m], mew=1.6,
                      label=lab["methods"][m]) for m in history.METHODS]
    handles += [
        Line2D([], [], ls="none", marker="o", ms=8, mec="0.3", mfc="white", mew=1.6, label=lab["hollow"]),
        Line2D([], [], color=TREND_COLOR, lw=2, label=lab["trend"]),
        Patch(facecolor=TREND_COLOR, alpha=0.13, label=lab["band"]),
        Line2D([], [], ls="none", marker="D", color="black", ms=7, label=lab["crossing"]),
        Line2D([], [], ls="none", marker="*", ms=16, mfc=SCENARIO_COLOR, mec="black", label=lab["scenario_point"]),
    ]
    legend = ax.legend(handles=handles, loc="upper left", fontsize=10, framealpha=0.95,
                       prop={"family": text_kw["fontfamily"], "size": 10} if text_kw else None)
    _star_entry(legend).set_visible(False)  # the star's entry: shown with the star (set_scenario_marker)
    legend.get_texts()[-1].set_visible(False)

    # one label per labelled run (see _labelled_runs): estimates of the same model and date are joined by a thin line
    label_x: list[float] = []
    label_y: list[float] = []
    names: list[str] = []
    runs = _runs(data)
    named = _labelled_runs(data, runs)
    for j, (x, y_lo, y_hi, n, model, estimate, cost) in enumerate(runs):
        if n > 1:
            ax.plot([x, x], [y_lo, y_hi], color="0.55", lw=1.0, zorder=2.5)
        if j not in named:
            continue
        name = _short_name(model, language)
        if str(estimate).startswith("2023 re-training"):
            name += lab["retrain"]
        label_x.append(x)
        label_y.append(cost)
        names.append(name)
    lx, ly, all_xy = np.array(label_x), np.array(label_y), data[["year", "cost_usd_target"]].to_numpy(float)
    key = placement_key(fig, ax, lx, ly, names, 9, text_kw, all_xy, COLUMN_FROM_YEAR)
    labels = place_labels(fig, ax, lx, ly, names, 9, text_kw, all_xy=all_xy, column_from_x=COLUMN_FROM_YEAR,
                           key=key)

    # what the figure shows, apart from currency, limits and the marker: the key of its blitted backgrounds
    content = hash((key, fit.method, fit.year_ref, fit.intercept_log10, fit.slope_log10_per_year, x_end))
    return HistoryHandles(ax=ax, fit=fit, scenario_marker=marker, scenario_label=ann, language=language,
                          point_labels=labels, crossing_labels=crossing_labels, ylabel_usd=ax.get_ylabel(),
                          content_key=content, limits=(ax.get_xlim(), ax.get_ylim()))


# ---------------------------------------------------------------------------------------------- artists of one figure
def _reset_limits(h: HistoryHandles) -> None:
    xlim, ylim = h.limits
    h.ax.set_xlim(xlim)
    h.ax.set_ylim(ylim)


def _set_currency(h: HistoryHandles, currency: str, usd_to_currency: float) -> None:
    fx = 1.0 if currency == "USD" else float(usd_to_currency)
    if (h.currency, h.fx) == (currency, fx):
        return
    h.currency, h.fx = currency, fx
    ax = h.ax
    if currency == "USD":
        ax.yaxis.set_major_locator(LogLocator(base=10))
        ax.yaxis.set_major_formatter(_money_axis(h.language))
        ax.set_ylabel(h.ylabel_usd)
    else:
        ax.yaxis.set_major_locator(FixedLocator([10.0 ** k / fx for k in range(0, 16)]))
        ax.yaxis.set_major_formatter(_money_axis(h.language, "¥", fx))
        zh = h.language == "zh"
        ax.set_ylabel(h.ylabel_usd.replace(" 美元", f" 美元折合人民币，{fx:.4g} 元/美元") if zh else
                      h.ylabel_usd.replace(" USD,", f" USD in CNY at {fx:.4g} CNY/USD,"))
    drawable = text_kwargs(h.language)[1]
    for c, text in h.crossing_labels:
        text.set_text(f"{money_in(c.cost_usd * fx, currency, drawable, symbol=True)}: {c.year:.0f}")
    legend = ax.get_legend()
    if legend is not None:  # the thresholds' entry in the page's currency too ($1B at 7.08 CNY/USD: ¥70.8亿)
        amounts = ("/" if drawable == "zh" else " / ").join(
            money_in(usd * fx, currency, drawable, symbol=True) for usd in history.THRESHOLDS_USD)
        legend.get_texts()[-2].set_text(label("history_crossing", drawable) if currency == "USD" else
                                        label("history_crossing_in", drawable).format(amounts=amounts))
    if h.blitter is not None:
        h.blitter.background = None  # the axis changed: a full draw, or this currency's background if cached


def _check_marker(cost_usd: float | None, year: float) -> None:
    """Refuse a marker that is no positive finite cost (or None) at a finite year, before anything moves."""
    if cost_usd is not None:
        cost = float(cost_usd)
        if not (math.isfinite(cost) and cost > 0):
            raise ScenarioError("cost_usd", cost_usd, Message("allowed_cost_or_none"))
        if not math.isfinite(float(year)):
            raise ScenarioError("year", year, Message("allowed_year"))


def _set_marker(h: HistoryHandles, cost_usd: float | None, year: float, label: str) -> None:
    if cost_usd is None:
        h.scenario_marker.set_data([], [])
        h.scenario_marker.set_visible(False)
        h.scenario_label.set_visible(False)
    else:
        cost, t = float(cost_usd), float(year)
        h.scenario_marker.set_data([t], [cost])
        h.scenario_marker.set_visible(True)
        h.scenario_label.xy = (t, cost)
        h.scenario_label.set_text(f"{label}: {money_in(cost * h.fx, h.currency, text_kwargs(h.language)[1], symbol=True)}")
        h.scenario_label.set_visible(True)
        ax = h.ax
        y0, y1 = ax.get_ylim()
        if cost < y0 * 1.5 or cost > y1 / 1.5:
            ax.set_ylim(min(y0, cost / 3), max(y1, cost * 3))
        x0, x1 = ax.get_xlim()
        if t < x0 or t > x1:
            ax.set_xlim(min(x0, t - 0.5), max(x1, t + 0.5))
        # beside the star, on the side with more room, then moved inside the axes (text measured)
        right = t > x0 + 0.5 * (x1 - x0)
        h.scenario_label.offset = (-130, -70) if right else (130, -70)  # moved inside the axes when drawn
        h.scenario_label.xyann = h.scenario_label.offset
        h.scenario_label.set_horizontalalignment("right" if right else "left")
    shown = cost_usd is not None
    legend = h.ax.get_legend()
    if legend is not None:  # the legend's last entry is the star: listed only when it is drawn
        _star_entry(legend).set_visible(shown)
        legend.get_texts()[-1].set_visible(shown)


def _set_interval(h: HistoryHandles, low_usd: float | None, high_usd: float | None) -> None:
    line = h.interval_line
    if line is None:
        line = h.ax.plot([], [], color=SCENARIO_COLOR, lw=1.6, marker="_", markersize=12, markeredgewidth=1.6,
                         zorder=h.scenario_marker.get_zorder() - 0.1)[0]
        h.interval_line = line
        if h.blitter is not None:
            line.set_animated(True)
            h.blitter.artists = (line, *h.blitter.artists)
    xs = np.asarray(h.scenario_marker.get_xdata())
    ok = (low_usd is not None and high_usd is not None and len(xs) == 1 and h.scenario_marker.get_visible()
          and all(math.isfinite(v) and v > 0 for v in (low_usd, high_usd)))
    if not ok:
        line.set_data([], [])
        line.set_visible(False)
    else:
        assert low_usd is not None and high_usd is not None  # ok says so
        t = float(xs[0])
        low, high = sorted((float(low_usd), float(high_usd)))
        line.set_data([t, t], [low, high])
        line.set_visible(True)
        y0, y1 = h.ax.get_ylim()
        if low < y0 or high > y1:
            h.ax.set_ylim(min(y0, low / 1.5), max(y1, high * 1.5))
    # the legend promises the bar only when one is drawn (issue 41)
    legend = h.ax.get_legend()
    if legend is not None:
        text = legend.get_texts()[-1]
        want = label("history_scenario" if ok else "history_scenario_point", h.language)
        if text.get_text() != want:
            text.set_text(want)
            if h.blitter is not None:
                h.blitter.background = None  # the legend is in the background: a full draw


def _enable_blitting(fig: Figure, h: HistoryHandles, cache: dict) -> None:
    # The key must change with everything the background shows: a new non-animated artist that changes
    # between renders must be animated (add it to the blitter's artists) or change this key, else a cached
    # background without it comes back.
    def key():  # the legend lists the star only while it is shown
        return h.content_key, h.currency, h.fx, h.ax.get_xlim(), h.ax.get_ylim(), h.scenario_marker.get_visible()

    # four backgrounds (two languages x two currencies) at the app's 858 x 515 px are 7 MB (28 MB at a pixel
    # ratio of 2)
    artists = (h.scenario_marker, h.scenario_label) + ((h.interval_line,) if h.interval_line is not None else ())
    if h.interval_line is not None:
        h.interval_line.set_animated(True)
    h.blitter = Blitter(fig, artists, key, cache=cache, cache_size=4)


# ---------------------------------------------------------------------------------------------- the owner
class HistoryPlot:
    """The history chart and everything it shows: one figure per language, swapped onto one canvas.

    Like :class:`~explorer.plots.breakdown.BreakdownPlot`, it owns its figure
    and the state of what it shows (currency, marker, interval, backgrounds):
    :meth:`set_marker` (or :meth:`mark`, everything at once) moves the "your
    run" marker, :meth:`redraw` renders it (a blit with :meth:`enable_blitting`).
    A language switch is cheap: :meth:`set_language` only notes the language,
    and :meth:`relayout` puts that language's figure on the canvas, built the
    first time (about 35 ms once its label placement is cached, 0.25 s the first
    time in a process) and kept after that (two figures of about 70 artists:
    little memory), with the currency and marker last set. The figures share one
    background cache of at most four images (two languages x two currencies).

    Parameters
    ----------
    language : {"en", "zh"}
        Language of the first figure ("zh" falls back to English without a CJK font).
    attach : callable, optional
        ``attach(figure, canvas)`` puts a kept or new figure on the canvas of the
        one shown (the app's sets its dpi for the screen's pixel ratio); default:
        :meth:`matplotlib.figure.Figure.set_canvas`.
    fit : explorer.history.TrendFit, optional
        The trend to draw; default :func:`explorer.history.fit_trend` (frontier models, amortized method).
    figure : matplotlib.figure.Figure, optional
        Draw the first figure into this one (it is cleared); default: a new one of :attr:`SIZE_IN`.
    deferred : bool
        Build nothing yet: :attr:`figure` is a blank figure of the chart's size (to put on a canvas) until the
        first :meth:`relayout` (or :meth:`ensure_built`) builds the chart in the language last set, with what
        :meth:`mark` set meanwhile. The app defers it: its tab is not on the first screen.

    Attributes
    ----------
    figure : matplotlib.figure.Figure
        The figure shown (read it again after :meth:`relayout`).
    figures : dict of str to Figure
        The figure of each language built so far.

    Examples
    --------
    Mark one's own run: its final-run cost (the scope of the curve's points) in the year it is trained.

    >>> from explorer import Scenario, estimate
    >>> from explorer.plots.history import HistoryPlot
    >>> plot = HistoryPlot("en")
    >>> plot.set_marker(estimate(Scenario(params=70e9, tokens=1.4e12)).final_run_usd, 2026.5, "my 70B run")
    >>> plot.handles.scenario_label.get_text().startswith("my 70B run: $")
    True
    """

    #: Size the chart is laid out for [in], and its dpi before a canvas sets it (lower: shrunk whole to a panel).
    SIZE_IN = (13.0, 7.8)
    DPI = 66

    def __init__(self, language: str = "en", *, attach=None, fit=None, figure: Figure | None = None,
                 deferred: bool = False):
        if language not in LANGUAGES:
            raise ScenarioError("language", language, Message("allowed_choices", choices=list(LANGUAGES)))
        self.fit = fit
        self._attach = attach or _set_canvas
        self._handles: dict[int, HistoryHandles] = {}  # by id of each figure it drew
        self.blitting = False
        #: the rendered backgrounds of all its figures, by what they show (at most four: a language switched
        #: back, or a currency, restores one instead of drawing)
        self.backgrounds: dict = {}
        #: what every figure shows: currency, rate [currency/USD], marker cost [USD], year, label, interval [USD]
        self._shown: dict[str, Any] = {"currency": "USD", "fx": 1.0, "cost_usd": None, "year": 0.0, "label": "",
                       "low_usd": None, "high_usd": None}
        self._marked = False  # a marker was set: a figure built or shown later gets it
        if deferred:  # blank, the chart's size: built by the first relayout
            self.figure = figure if figure is not None else Figure(figsize=self.SIZE_IN, dpi=self.DPI)
            self.figures = {}
            self._language = text_kwargs(language)[1]
            return
        self.figure = self._draw(language, figure)
        self.figures = {self.handles.language: self.figure}
        self._language = self.handles.language

    # ------------------------------------------------------------------ figures
    @classmethod
    def build(cls, language: str) -> Figure:
        """The chart in ``language`` on its own plot, not yet on a widget canvas.

        It is built on an Agg canvas at :attr:`DPI` (its label placement
        measures text), so it is laid out alike whatever the screen's pixel
        ratio and whichever language an app started in.
        """
        return cls(language).figure

    def _draw(self, language: str, figure: Figure | None = None) -> Figure:
        fig = figure if figure is not None else Figure(figsize=self.SIZE_IN, dpi=self.DPI, layout="constrained")
        handles = _draw(fig, self.fit, language)
        self._handles[id(fig)] = handles
        # attributes of our own on matplotlib's Figure, which declares no such names
        fig.history_plot = self  # type: ignore[attr-defined]  # the owner: the functions of this module find it here
        fig.history_handles = handles  # type: ignore[attr-defined]  # a read-only view of its artists, for inspection
        return fig

    def _forget(self, fig: Figure) -> None:
        """``fig`` is drawn again (by another plot, or this one): its artists and blitter go."""
        h = self._handles.pop(id(fig), None)
        if h is not None and h.blitter is not None:
            h.blitter.disconnect()

    def handles_of(self, fig: Figure) -> HistoryHandles:
        """The artists of ``fig``, one of this plot's figures."""
        return self._handles[id(fig)]

    @property
    def handles(self) -> HistoryHandles:
        """The artists of the figure shown."""
        return self._handles[id(self.figure)]

    @property
    def built(self) -> bool:
        """Whether the figure shown is the chart (not the blank one of a deferred plot)."""
        return id(self.figure) in self._handles

    @property
    def language(self) -> str | None:
        """Language of the figure shown (None before a deferred plot is built)."""
        return self.handles.language if self.built else None

    def ensure_built(self) -> Figure:
        """Build the chart now if it was deferred (in the language last set, marked; no draw); return it."""
        return self.figure if self.built else self.relayout()

    # ------------------------------------------------------------------ what it shows
    @property
    def shown(self) -> dict:
        """What every figure of the plot shows (a copy): ``currency``, ``fx`` [currency/USD], the marker's
        ``cost_usd`` [USD] (None: hidden), ``year`` [decimal yr] and ``label``, its interval ``low_usd`` and
        ``high_usd`` [USD]."""
        return dict(self._shown)

    def set_currency(self, currency: str, usd_to_currency: float = 1.0) -> None:
        """Show the cost axis, its labels and the marker in ``currency``, in place (no draw).

        The data stay in USD; the ticks sit at round amounts of ``currency``
        (``usd_to_currency`` units per USD) and the axis title names the rate.

        Parameters
        ----------
        currency : {"USD", "CNY"}
            Currency to show.
        usd_to_currency : float
            Units of ``currency`` per USD [currency/USD].
        """
        self._shown.update(currency=currency, fx=usd_to_currency)
        if not self.built:  # applied when built
            return
        _set_currency(self.handles, currency, usd_to_currency)
        if self._marked:  # the marker's label shows its cost in the new currency
            _set_marker(self.handles, self._shown["cost_usd"], self._shown["year"], self._shown["label"])

    def set_marker(self, cost_usd: float | None, year: float, label: str = "your run") -> None:
        """Move the highlighted "your run" marker, in place (no draw).

        Parameters
        ----------
        cost_usd : float or None
            Cost of the run [USD]: its final run's, the scope of the curve's points; None hides the marker.
        year : float
            Where to place it [decimal yr].
        label : str
            Text shown next to the marker (the cost is appended).
        """
        _check_marker(cost_usd, year)
        self._shown.update(cost_usd=cost_usd, year=year, label=label)
        self._marked = True
        if self.built:  # else applied when built
            _set_marker(self.handles, cost_usd, year, label)

    def set_interval(self, low_usd: float | None, high_usd: float | None) -> None:
        """Show an error bar from ``low_usd`` to ``high_usd`` through the marker, in place (no draw).

        Parameters
        ----------
        low_usd, high_usd : float or None
            Ends of the interval, e.g. P5 and P95 of the final run's cost [USD]; None (or a value that is not
            a finite amount > 0, or a hidden marker) hides the bar.
        """
        self._shown.update(low_usd=low_usd, high_usd=high_usd)
        if self.built:  # else applied when built
            _set_interval(self.handles, low_usd, high_usd)

    def mark(self, currency: str, usd_to_currency: float, cost_usd: float | None, year: float, label: str,
             interval_usd: tuple[float | None, float | None] = (None, None)) -> None:
        """Show the cost axis in ``currency`` and the "your run" marker with its interval (no draw).

        Parameters
        ----------
        currency : {"USD", "CNY"}
        usd_to_currency : float
            Units of ``currency`` per USD [currency/USD].
        cost_usd : float or None
            The run's cost [USD]; None hides the marker.
        year : float
            Where to place it [decimal yr].
        label : str
            Text beside the marker (the cost is appended).
        interval_usd : (float or None, float or None)
            The run's P5 and P95 [USD], drawn as an error bar; Nones hide it.
        """
        _check_marker(cost_usd, year)
        low, high = interval_usd
        self._shown = {"currency": currency, "fx": usd_to_currency, "cost_usd": cost_usd, "year": year,
                       "label": label, "low_usd": low, "high_usd": high}
        self._marked = True
        if self.built:  # else applied when built (relayout)
            self._apply(self.figure)

    def _apply(self, fig: Figure) -> None:
        """Show on ``fig`` what this plot shows (currency, marker, interval)."""
        h, v = self.handles_of(fig), self._shown
        _set_currency(h, v["currency"], v["fx"])
        if self._marked:
            _set_marker(h, v["cost_usd"], v["year"], v["label"])
            _set_interval(h, v["low_usd"], v["high_usd"])

    def reset_limits(self) -> None:
        """Put the axes back to the limits the figure was built with, in place (no draw).

        :meth:`set_marker` and :meth:`set_interval` only ever widen the limits;
        a figure kept and shown again calls this before placing its marker, to
        show what a fresh build would.
        """
        if self.built:
            _reset_limits(self.handles)

    # ------------------------------------------------------------------ languages
    def set_language(self, language: str) -> bool:
        """Show ``language`` at the next :meth:`relayout`; whether that changes the figure shown."""
        self._language = text_kwargs(language)[1]
        return self._language != self.language

    def relayout(self) -> Figure:
        """Put the figure of the language last set on the canvas (built the first time), marked; return it (no draw)."""
        old = self.figure
        if self.built and self.handles.language == self._language:
            return old
        canvas = old.canvas
        if self.built and self.handles.blitter is not None:  # only the cache keeps backgrounds, so at most its four are held
            self.handles.blitter.background = None
        fig = self.figures.get(self._language)
        if fig is None:
            fig = self._draw(self._language)
            self._attach(fig, canvas)
            if self.blitting:  # its draw_event handler is the figure's: it follows the figure
                _enable_blitting(fig, self.handles_of(fig), self.backgrounds)
            self.figures[self._language] = fig
        else:
            self._attach(fig, canvas)
            _reset_limits(self.handles_of(fig))  # as built: the marker shown widens them again if needed
        self.figure = fig
        self._apply(fig)
        return fig

    def figure_for(self, language: str) -> Figure:
        """A figure in ``language`` with the last marker, for a file: the kept one, else one built for the file."""
        language = text_kwargs(language)[1]
        if self.built and self.language == language:
            return self.figure
        fig = self.figures.get(language)
        if fig is None:
            fig = self._draw(language)
            self._apply(fig)
            self._handles.pop(id(fig))  # a file's figure: not kept (its artists stay with it)
            return fig
        self._apply(fig)
        return fig

    # ------------------------------------------------------------------ rendering
    def enable_blitting(self, cache: dict | None = None) -> None:
        """Blit the marker in :meth:`redraw` (call once the figure is on its widget canvas).

        The marker, its label and its interval become animated artists: a plain ``savefig`` no longer shows
        them, so use this only on figures shown through a widget canvas. ``cache``: where the rendered
        backgrounds are kept (at most four), default the plot's own.
        """
        if cache is not None:
            self.backgrounds = cache
        if self.built:  # a deferred chart gets it when built (relayout)
            _enable_blitting(self.figure, self.handles, self.backgrounds)
        self.blitting = True

    def redraw(self) -> None:
        """Render the figure shown after :meth:`set_marker` or :meth:`mark`: a blit when enabled, else a full draw
        (nothing before a deferred chart is built)."""
        if not self.built:
            return
        blitter = self.handles.blitter
        if blitter is None:
            self.figure.canvas.draw()
        else:
            blitter.redraw()


def _set_canvas(fig: Figure, canvas) -> None:
    canvas.figure = fig
    fig.set_canvas(canvas)


# ---------------------------------------------------------------------------------------------- thin wrappers
def _plot_of(fig: Figure) -> HistoryPlot:
    """The :class:`HistoryPlot` that drew ``fig``; a refusal naming the figure for any other."""
    plot = getattr(fig, "history_plot", None)
    if plot is None or id(fig) not in plot._handles:
        raise ScenarioError("figure", type(fig).__name__, Message("allowed_history_figure"))
    return plot


def _shown_on(fig: Figure) -> HistoryPlot:
    """The plot of ``fig`` with ``fig`` as the figure it shows (a wrapper acts on the figure it is given)."""
    plot = _plot_of(fig)
    plot.figure = fig
    return plot


def reset_history_limits(fig: Figure) -> None:
    """Put the axes of ``fig`` back to the limits it was built with (:meth:`HistoryPlot.reset_limits`)."""
    _shown_on(fig).reset_limits()


def set_history_currency(fig: Figure, currency: str, usd_to_currency: float = 1.0) -> None:
    """Show the cost axis of ``fig`` in ``currency`` (:meth:`HistoryPlot.set_currency`), in place.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        A figure built by :func:`history_figure`.
    currency : {"USD", "CNY"}
        Currency to show.
    usd_to_currency : float
        Units of ``currency`` per USD [currency/USD].
    """
    _shown_on(fig).set_currency(currency, usd_to_currency)


def set_scenario_marker(fig: Figure, cost_usd: float | None, year: float, label: str = "your run", *,
                        draw: bool = True) -> None:
    """Move the highlighted "your run" marker of ``fig`` (:meth:`HistoryPlot.set_marker`), in place.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        A figure built by :func:`history_figure`.
    cost_usd : float or None
        Cost of the scenario [USD]; None hides the marker.
    year : float
        Where to place it [decimal yr].
    label : str
        Text shown next to the marker (the cost is appended).
    draw : bool
        Ask the canvas to redraw (``draw_idle``); False when the caller renders itself.
    """
    _shown_on(fig).set_marker(cost_usd, year, label)
    if draw:
        fig.canvas.draw_idle()


def set_marker_interval(fig: Figure, low_usd: float | None, high_usd: float | None, *, draw: bool = False) -> None:
    """Show an error bar through the "your run" marker of ``fig`` (:meth:`HistoryPlot.set_interval`), in place.

    Call it after :func:`set_scenario_marker`: it reads the marker's year.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        A figure built by :func:`history_figure`.
    low_usd, high_usd : float or None
        Ends of the interval, e.g. P5 and P95 of the final run's cost [USD];
        None (or a value that is not a finite amount > 0, or a hidden marker) hides the bar.
    draw : bool
        Ask the canvas to redraw (``draw_idle``); False when the caller renders itself.
    """
    _shown_on(fig).set_interval(low_usd, high_usd)
    if draw:
        fig.canvas.draw_idle()


def enable_marker_blitting(fig: Figure, cache: dict | None = None) -> None:
    """Make :func:`redraw_marker` blit the scenario marker of ``fig`` (:meth:`HistoryPlot.enable_blitting`).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        A figure of :func:`history_figure`.
    cache : dict, optional
        Where the rendered backgrounds are kept (at most four). Default: the plot's own.
    """
    _shown_on(fig).enable_blitting(cache)


def redraw_marker(fig: Figure) -> None:
    """Render ``fig`` after :func:`set_scenario_marker` (``draw=False``): a blit when enabled."""
    _shown_on(fig).redraw()
