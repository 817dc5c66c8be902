"""The Plan chart: the largest compute-optimal model a budget pays for, against the budget.

:class:`PlanCurvePlot` draws :func:`explorer.analysis.plan_curve` (parameters against budget, both on log
axes) and marks the viewer's budget and its plan. Object-oriented matplotlib only; the artists are made once
and moved by :meth:`PlanCurvePlot.update`. Amounts come in USD and are shown in ``currency``.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator

from explorer.plots.analysis import font_properties, LabelledPlot, mathtext_money
from explorer.plots.figure import NotebookFigure
from explorer.text import count_in, label, readable_number

__all__ = ["PlanCurvePlot"]

_LINE, _MARK = "#0072B2", "#D55E00"


def _params_text(x: float, language: str = "en") -> str:
    """A model size as the page's language writes it: ``71.9B``, in Chinese ``719亿``."""
    if not (math.isfinite(x) and x > 0):
        return ""
    return count_in(x, "zh") if language == "zh" else readable_number(float(f"{x:.3g}"))


class PlanCurvePlot(LabelledPlot):
    """Model size [parameters] a budget pays for against the budget [currency], with the viewer's plan marked.

    Parameters
    ----------
    figure : Figure, optional
        Figure to draw into (the app passes one on a widget canvas); a new one when omitted.
    language : {"en", "zh"}
    """

    title_key = "plan_chart_title"

    def __init__(self, figure: Figure | None = None, language: str = "en"):
        self.figure = figure if figure is not None else NotebookFigure(figsize=(9.0, 3.7), layout="constrained")
        self.ax = self.figure.add_subplot()
        (self.line,) = self.ax.plot([1, 10], [1, 10], color=_LINE, lw=1.8, marker="o", ms=3.5)
        self.budget_line = self.ax.axvline(1, color=_MARK, lw=1.2, ls="--")
        (self.point,) = self.ax.plot([1], [1], "o", color=_MARK, ms=8, zorder=5)
        self.note = self.ax.annotate("", (1, 1), xytext=(8, -4), textcoords="offset points", fontsize=9,
                                     ha="left", va="top", color=_MARK, annotation_clip=False)
        self.ax.set_xscale("log")
        self.ax.set_yscale("log")
        self.ax.grid(True, which="major", color="0.9", lw=0.6)
        self.ax.spines[["top", "right"]].set_visible(False)
        self.ax.yaxis.set_major_locator(LogLocator(base=10))
        self.ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: _params_text(v, self.lang)))
        self.legend = None
        self.currency = "USD"
        self._init_language(language)

    def _moving_artists(self) -> list:
        return [self.line, self.budget_line, self.point, self.note]

    def _relabel(self) -> None:
        self.ax.set_xlabel(label("plan_chart_x", self.lang), **self.kw)
        self.ax.set_ylabel(label("plan_chart_y", self.lang), **self.kw)
        if self.legend is not None:
            self.legend.remove()
        self.legend = self.ax.legend([self.line, self.point], [label("plan_chart_curve", self.lang),
                                                               label("plan_chart_you", self.lang)],
                                     loc="upper left", frameon=False, prop=font_properties(self.kw))

    def update(self, curve: pd.DataFrame, budget_usd: float | None, params: float | None, currency: str = "USD",
               usd_to_currency: float = 1.0, *, draw: bool = True) -> None:
        """Show ``curve`` (rows of :func:`~explorer.analysis.plan_curve`) and the plan of ``budget_usd``.

        Parameters
        ----------
        curve : pandas.DataFrame
            ``budget_usd`` [USD] and ``params`` [parameters] per budget; budgets without a plan (NaN) are left out.
        budget_usd : float or None
            The viewer's budget [USD] (None: no mark).
        params : float or None
            Its plan's parameters (None or NaN: the budget is marked, no point).
        currency : str
            Currency of the axis; ``usd_to_currency`` converts.
        """
        fx = usd_to_currency
        ok = curve[np.isfinite(curve["params"])]
        xs, ys = ok["budget_usd"].to_numpy() * fx, ok["params"].to_numpy()
        self.line.set_data(xs, ys)
        # the plan's parameters, None when there is no point to show
        plan = params if budget_usd is not None and params is not None and math.isfinite(params) else None
        has_plan = plan is not None
        bx = budget_usd * fx if budget_usd is not None else (xs[0] if xs.size else 1.0)
        self.budget_line.set_xdata([bx, bx])
        self.budget_line.set_visible(budget_usd is not None)
        self.point.set_data([bx], [plan if plan is not None else np.nan])
        self.point.set_visible(has_plan)
        self.note.xy = (bx, plan if plan is not None else 1.0)
        self.note.set_text(f"{_params_text(plan, self.lang)} · {mathtext_money(bx, currency, 3, self.lang)}"
                           if plan is not None else "")
        self.note.set(**self.kw)
        x_all = np.concatenate([xs, [bx]]) if budget_usd is not None else xs
        y_all = np.concatenate([ys, [plan]]) if plan is not None else ys
        if x_all.size:
            self.ax.set_xlim(x_all.min() / 1.5, x_all.max() * 1.5)
        if y_all.size:
            self.ax.set_ylim(y_all.min() / 2, y_all.max() * 2)
        self.ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: mathtext_money(v, currency, 2, self.lang)))
        self.ax.tick_params(labelfontfamily=self.fonts())
        self.currency = currency
        if draw:
            self.figure.canvas.draw_idle()
