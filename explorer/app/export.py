"""Downloads as data URLs: the scenario (JSON) and the cost breakdown (CSV)."""

from __future__ import annotations

import base64
import csv
import html
import io

from explorer.model import COST_DIMENSIONS, Estimate

__all__ = ["data_url", "scenario_json", "breakdown_csv", "download_link"]


def data_url(text: str, mime: str) -> str:
    """``data:`` URL carrying ``text`` (UTF-8, base64)."""
    return f"data:{mime};charset=utf-8;base64," + base64.b64encode(text.encode("utf-8")).decode("ascii")


def scenario_json(estimate: Estimate) -> str:
    """The scenario as indented JSON (reads back with ``Scenario.from_json``)."""
    return estimate.scenario.to_json(indent=1)


def breakdown_csv(estimate: Estimate) -> str:
    """One row per cost dimension plus the total, and the key quantities."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    currency = estimate.scenario.currency
    writer.writerow(["item", "value", "unit"])
    cost = estimate.cost()
    for d in (*COST_DIMENSIONS, "total"):
        writer.writerow([f"cost_{d}", f"{cost[d]:.6g}", currency])
    for name, unit in (("train_flop", "FLOP"), ("gpu_hours", "GPU-hour"), ("wall_days", "days"),
                       ("energy_mwh", "MWh"), ("co2_tonnes", "tCO2")):
        writer.writerow([name, f"{getattr(estimate, name):.6g}", unit])
    writer.writerow(["gpus", estimate.gpus, "GPUs"])
    return out.getvalue()


def download_link(text: str, mime: str, filename: str, caption: str) -> str:
    """An HTML ``<a download>`` link to ``text``."""
    return (f'<a download="{html.escape(filename)}" href="{data_url(text, mime)}" '
            f'class="explorer-download">{html.escape(caption)}</a>')
