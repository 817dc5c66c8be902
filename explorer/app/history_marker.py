"""The History chart's marker: where the result shown sits on the curve of past training runs, and its name.

A preset's marker stands at its published run (mid-year of its release) under the run's name; any other
scenario's is "current", at today's date. The app moves it with every result (:meth:`HistoryMarker.mark`, which
calls :meth:`~explorer.plots.history.HistoryPlot.mark`): the curve holds final training runs, so the marker is
the final run's machine cost, in the result's currency, with the Monte Carlo's 90 % range as its error bar.
"""

from __future__ import annotations

import datetime as _dt
import math

from explorer.app.pages import estimate_html
from explorer.model import Estimate
from explorer.plots.history import HistoryPlot
from explorer.presets import presets, published_run
from explorer.text import label

__all__ = ["today_year", "HistoryMarker"]


def today_year() -> float:
    """Today as a decimal year, at mid-day (2026-01-01 is 2026.0014) [year]."""
    today = _dt.date.today()
    return today.year + (today.timetuple().tm_yday - 0.5) / 365.25


class HistoryMarker:
    """Where the History chart's marker stands and what it is called.

    Attributes
    ----------
    year : float
        The marker's place on the time axis [decimal year]: today, or a preset's release (mid-year).
    label : str
        The published run's name (English) of a preset's marker; "" for "current".
    """

    def __init__(self) -> None:
        self.year = today_year()
        self.label = ""

    def at_preset(self, preset_id: str) -> None:
        """Stand at the published run of preset ``preset_id`` (today, "current", when it names no run)."""
        p = presets()[preset_id]
        if p.run:
            self.year = float(published_run(p.run)["year"]) + 0.5
            self.label = p.name["en"]
        else:
            self.at_today()

    def at_today(self) -> None:
        """Stand at today, as "current" (a scenario changed by hand is no preset's run any more)."""
        self.year, self.label = today_year(), ""

    def catch_up_today(self) -> bool:
        """Move a "current" marker to today if the day changed since it was placed (an app built well before it is
        shown, :mod:`explorer.app.prebuilt`); a preset's stays. Whether it moved."""
        today = today_year()
        if self.label or self.year == today:
            return False
        self.year = today
        return True

    def mark(self, history: HistoryPlot, e: Estimate, language: str,
             run_interval_usd: tuple[float | None, float | None]) -> None:
        """Put ``history`` in ``e``'s currency and the marker at ``e``'s final run (no draw).

        Parameters
        ----------
        history : HistoryPlot
            The app's History chart.
        e : Estimate
            The result shown.
        language : {"en", "zh"}
            The marker's words.
        run_interval_usd : tuple of float or None
            P5 and P95 of the final run's machine cost [USD], the error bar; (None, None) for none.
        """
        run_label = self.label or f"{label('current', language)} ({int(self.year)})"
        run_label += f", {label('marker_scope', language)} ({estimate_html.pricing_words(e, language)})"
        run_usd = e.final_run_usd if math.isfinite(e.final_run_usd) and e.final_run_usd > 0 else None
        history.mark(e.scenario.currency, e.usd_to_currency, run_usd, self.year, run_label, run_interval_usd)
