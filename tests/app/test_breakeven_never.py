"""An owned run that never pays back reads "never" everywhere it is shown, not "∞" or "inf".

The run: owned hardware whose hosting alone costs $50 per GPU-hour, above every rent in the catalog (the
dearest on-demand price is under $15), so renting is always cheaper and the break-even is infinite
(tests/model/test_owned_laws.py states that law). The views, the legend and both CSVs word it the same way.
"""

from __future__ import annotations

import csv
import io
import math

import pytest

from explorer.analysis import compare, what_if
from explorer.app.export import breakdown_csv, compare_csv
from explorer.app.pages.analysis_html import compare_html
from explorer.app.tabs.what_if import WhatIfView
from explorer import Scenario, estimate
from explorer.text import breakeven_text, label

NEVER = Scenario(pricing="owned", hosting_usd_per_gpu_hour=50.0)
PAYS_BACK = Scenario(pricing="owned")


def test_the_words_for_never_in_both_languages():
    assert breakeven_text(math.inf) == "never" and breakeven_text(math.inf, "zh") == "永不"
    assert breakeven_text(26.11) == "26 months" and breakeven_text(math.nan) == "–"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_compare_table_and_csv_say_never(lang):
    slots = {"A": estimate(NEVER), "B": estimate(PAYS_BACK)}
    table = compare({"A": NEVER, "B": PAYS_BACK})
    assert math.isinf(table.loc["A", "breakeven_months"])
    page = compare_html(slots, table, "USD", 1.0, lang)
    assert label("owned_never", lang) in page and "∞" not in page
    rows = {r["slot"]: r for r in csv.DictReader(io.StringIO(compare_csv(table)))}
    assert rows["A"]["breakeven_months"] == "never"
    assert 0 < float(rows["B"]["breakeven_months"]) < 120


def test_what_if_cell_and_breakdown_csv_say_never():
    grid = what_if(NEVER, {"precision": ["bf16", "fp8"]})
    assert all(math.isinf(m) for m in grid["breakeven_months"])
    assert WhatIfView._cell("breakeven_months", math.inf, "USD", 1.0, "zh") == "永不"
    rows = [r for r in csv.reader(io.StringIO(breakdown_csv(estimate(NEVER)))) if r and r[0].startswith("owned_breakeven")]
    assert rows and all(r[1] == "never" for r in rows)
    assert "inf" not in breakdown_csv(estimate(NEVER)).lower().replace("infeasible", "")


@pytest.mark.parametrize("lang, never_words, after_words, capex", [
    ("en", "buying never beats renting", "Buy beats renting after 36 months", "$70.1M"),
    ("zh", "自建始终不如租用划算", "自建胜过租用的时间 36 个月", "$7,010万")])  # 7,009.77万: 万 in Chinese (issue 41)
def test_compare_legend_reads_as_words_with_one_dollar_sign(lang, never_words, after_words, capex):
    """The legend of an owned slot: its capex once, as "$70.1M" on screen, and its payback in words.

    By hand: 1,024 H100 at $33,810 each, x1.64 server overhead / (1 - 0.19) interconnect = $70,097,730 of capex
    (Epoch AI's cost_analysis_standalone.py factors), shown as $70.1M; it pays back after 68,455 / ((2.99 - 0.321
    hosting - 0.085 electricity) x 730.5 hours) = 36.3 months against renting at $2.99 per GPU-hour (the specialists'
    first-hand median, issue 37), shown as 36 months. A "$" reaches the legend escaped once (``\\$``, which
    mathtext draws as "$"); escaped twice it drew a backslash before the amount.
    """
    from explorer.plots.analysis import CompareBarsPlot

    plot = CompareBarsPlot(language=lang)
    plot.update(compare({"A": NEVER, "B": PAYS_BACK}), draw=False)
    never, pays_back = (t.get_text() for t in plot.legend.get_texts())
    for entry in (never, pays_back):
        shown = entry.replace(r"\$", "$")  # what mathtext draws
        assert "\\" not in shown, entry
        assert shown.count(capex) == 1, shown
    assert never_words in never and label("owned_breakeven", lang) not in never
    assert after_words in pays_back
