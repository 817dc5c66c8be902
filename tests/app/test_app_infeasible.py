"""The app with a run that cannot happen (issue 25 item 4), headless: no traceback, "infeasible" in the KPIs, a
message instead of bars, blank money in the CSV; a deadline no cluster meets keeps the last good result and
names the nearest feasible alternative."""

from __future__ import annotations

import base64
import csv
import io
import re

from explorer import Scenario, estimate
from explorer.catalog import default
from explorer.text import label
from explorer.app.explorer_app import TAB_KEYS

#: 70B on 15T tokens on 32 H100: about 4.7M GPU-hours, 16 years of wall-clock (longer than max_run_years); on 8 it
#: does not fit in memory at all since issue 38 (a count below the memory floor is infeasible).
TOO_LONG = Scenario(params=70e9, tokens=15e12, gpus=32)
#: 1e14 parameters: one sequence's activations exceed an H100 even split 8 ways (fits on no cluster).
NO_FIT = Scenario(params=1e14, tokens=1e15, gpus=1024)


def _breakdown_rows(app) -> dict:
    app.tabs.selected_index = TAB_KEYS.index("share")
    m = re.search(r'download="breakdown.csv" href="data:text/csv;charset=utf-8;base64,([^"]+)"', app.downloads.value)
    assert m, app.downloads.value[:300]
    rows = csv.DictReader(io.StringIO(base64.b64decode(m.group(1)).decode("utf-8")))
    return {r["item"]: r["value"] for r in rows}


def test_infeasible_run_shows_no_money_and_no_traceback(make_app):
    app = make_app()
    for s in (TOO_LONG, NO_FIT):
        assert app.refresh(s) is True and app.error == ""
        e = app.estimate
        assert not e.feasible
        assert label("kpi_infeasible", "en") in app.kpis.value
        assert "$" not in re.sub(r"<[^>]+>", " ", app.kpis.value)  # no amount on any card
        assert app.breakdown.message_text.get_text() == label("chart_infeasible", "en")
        assert all(t.get_text() == "" for t in app.breakdown.value_texts)
        assert all(b.get_width() == 0 for b in app.breakdown.bars)
        assert label("summary_infeasible", "en") in app.summary.value
        assert any(w.id.startswith("infeasible_") for w in e.warnings)


def test_infeasible_run_in_chinese(make_app):
    app = make_app(language="zh")
    assert app.refresh(TOO_LONG)
    assert label("kpi_infeasible", "zh") in app.kpis.value
    assert "不可行" in app.warnings.value


def test_breakdown_csv_of_an_infeasible_run_has_blank_money(make_app):
    app = make_app()
    app.refresh(TOO_LONG)
    rows = _breakdown_rows(app)
    assert rows["feasible"] == "false" and rows["infeasible_reason"] == "too_long"
    # the nearest feasible cluster (issue 38): the fewest GPUs on which the run ends within 5 years, not the largest
    alternative = int(rows["alternative_gpus"])
    assert alternative < int(default("max_gpus"))
    assert estimate(TOO_LONG.replace(gpus=alternative)).feasible
    assert not estimate(TOO_LONG.replace(gpus=alternative - 1)).feasible
    assert all(rows[k] == "" for k in rows if k.startswith(("cost_", "hidden_", "in_rate_")))
    assert float(rows["wall_days"]) > 5 * 365


def test_feasible_run_after_an_infeasible_one_shows_bars_again(make_app):
    app = make_app()
    app.refresh(TOO_LONG)
    assert app.refresh(Scenario(gpus=512))
    assert app.estimate.feasible and app.breakdown.message_text.get_text() == ""
    assert any(b.get_width() > 0 for b in app.breakdown.bars)
    assert label("kpi_infeasible", "en") not in app.kpis.value


def test_deadline_no_cluster_meets_keeps_the_last_result_and_names_the_alternative(make_app):
    app = make_app()
    good = app.estimate
    assert app.refresh(Scenario(params=405e9, tokens=15.6e12, gpus=None, deadline_days=3)) is False
    assert app.estimate is good  # the last good result stays on screen
    assert "100,000 GPUs" in app.banner.value and "Traceback" not in app.banner.value
