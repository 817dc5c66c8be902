"""Issue 17 in the app, headless: a decision travels whole (names, labels, CSV, link), one number parser."""

from __future__ import annotations

import base64
import csv
import io
import re
import subprocess
import sys

import pytest

from explorer import Scenario, estimate
from explorer.app import ExplorerApp, views
from explorer.app.analysis_views import parse_budget
from explorer.app.query import scenario_fields_from_query

TABS = {"breakdown": 0, "waterfall": 1, "history": 2, "compare": 3, "uncertainty": 4, "assumptions": 5, "share": 6}


def _csv_from_link(html_text: str) -> list[dict]:
    url = re.search(r'href="data:text/csv;charset=utf-8;base64,([^"]+)"', html_text).group(1)
    return list(csv.DictReader(io.StringIO(base64.b64decode(url).decode("utf-8"))))


def _headers(app) -> list[str]:
    return re.findall(r"<th><span[^>]*></span>([^<]*)</th>", app.analysis.compare_html.value)


# ------------------------------------------------------------------------------------ compare slots
def test_slot_names_survive_control_changes(app):
    app.tabs.selected_index = TABS["compare"]
    app.controls["region"].value = "cn-ningxia"
    app.analysis.slot_choice.value = "B"
    app.analysis.slot_name_box.value = "Ningxia"
    app.analysis.pin_slot_button.click()
    assert _headers(app) == ["A", "B · Ningxia"]
    app.controls["params"].value = 13e9  # the next control change used to reset every name
    app.controls["pricing"].value = "spot"
    assert app.error == ""
    assert _headers(app) == ["A", "B · Ningxia"]
    assert [r["slot"] for r in _csv_from_link(app.analysis.compare_html.value)] == ["A", "B · Ningxia"]


def test_slots_that_differ_only_in_region_and_kind_say_so(app):
    app.tabs.selected_index = TABS["compare"]
    app.analysis.pin("B", estimate(Scenario(region="cn-ningxia", training_kind="continual_pretrain", mfu=0.3)),
                     name="")
    page = app.analysis.compare_html.value
    row = re.search(r"<th>Also differs</th>(.*?)</tr>", page).group(1)
    cells = re.findall(r"<td>(.*?)</td>", row)
    assert "US average" in cells[0] or "us" in cells[0].lower(), cells
    assert "Ningxia" in cells[1] and "Continual pre-training" in cells[1] and "MFU: 0.3" in cells[1], cells
    assert "Pre-training" in cells[0] and "MFU: default" in cells[0], cells


def test_comparison_csv_carries_every_scenario_field(app):
    app.tabs.selected_index = TABS["compare"]
    b = Scenario(region="cn-ningxia", pricing="spot", training_kind="lora")
    app.analysis.pin("B", estimate(b), name="lora")
    rows = _csv_from_link(app.analysis.compare_html.value)
    fields = Scenario().to_dict()
    assert all(f"scenario.{k}" in rows[0] for k in fields)
    assert rows[1]["scenario.region"] == "cn-ningxia" and rows[1]["scenario.pricing"] == "spot"
    assert rows[1]["scenario.training_kind"] == "lora" and rows[0]["scenario.training_kind"] == "pretrain"
    # a row rebuilds its scenario
    rebuilt = {k[len("scenario."):]: v for k, v in rows[1].items() if k.startswith("scenario.")}
    assert rebuilt["params"] == "7000000000"


# ------------------------------------------------------------------------------------ the share link
def test_share_link_restores_budget_cap_slots_and_names():
    app = ExplorerApp(query_string="lang=zh&currency=CNY")
    app.analysis.pin("B", estimate(Scenario(region="cn-ningxia", pricing="spot")), name="宁夏 spot")
    app.analysis.pin("C", estimate(Scenario(precision="fp8")), name="FP8")
    app.analysis.budget_box.value = "70M"  # CNY
    app.analysis.cap_box.value = "4,096"
    app.controls["params"].value = 13e9
    assert app.error == "" and app.analysis.budget_message.value == ""
    link = app.share_query()
    assert "budget_usd=" in link and "gpu_cap=4096" in link and "slot_B=" in link and "name_B=" in link
    for build in ("init", "apply"):
        if build == "init":
            other = ExplorerApp(query_string=link[1:])
        else:
            other = ExplorerApp(query_string="")
            other.apply_query(link[1:])
        a = other.analysis
        assert a.slot_names == {"A": "", "B": "宁夏 spot", "C": "FP8", "D": ""}, build
        assert a.slots["B"].scenario.region == "cn-ningxia" and a.slots["B"].scenario.pricing == "spot"
        assert a.slots["C"].scenario.precision == "fp8" and a.slots["D"] is None
        assert a.budget_usd == pytest.approx(app.analysis.budget_usd) and a.gpu_cap == 4096
        assert a.budget_box.value.replace(",", "") == "70000000" and a.cap_box.value == "4096"
        assert other.scenario.params == 13e9 and other.language == "zh"
        assert other.share_query() == link


def test_a_link_with_a_broken_slot_keeps_the_rest():
    app = ExplorerApp(query_string="slot_B=params%3Dbanana%26region%3Dnowhere&slot_C=precision%3Dfp8&"
                                   "budget_usd=-5&gpu_cap=lots&name_C=" + "x" * 300)
    assert app.error == ""
    assert app.analysis.slots["C"].scenario.precision == "fp8" and len(app.analysis.slot_names["C"]) <= 40
    assert app.analysis.budget_usd is None and app.analysis.gpu_cap is None


# ------------------------------------------------------------------------------------ one number parser
def test_budget_box_accepts_10M(app):
    assert parse_budget("10M") == 10e6
    app.tabs.selected_index = TABS["uncertainty"]
    app.analysis.budget_box.value = "10M"
    assert app.analysis.budget_message.value == "" and app.analysis.budget_usd == pytest.approx(10e6)


def test_link_reads_params_7B():
    fields, _ = scenario_fields_from_query("params=7B&tokens=2T")
    assert fields == {"params": 7e9, "tokens": 2e12}
    assert ExplorerApp(query_string="params=70B").scenario.params == 70e9


def test_cli_accepts_params_7B():
    out = subprocess.run([sys.executable, "-m", "explorer", "estimate", "--params", "7B", "--tokens", "2T"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("Scenario: 7e+09 params") and "2e+12 tokens" in out.stdout
    bad = subprocess.run([sys.executable, "-m", "explorer", "estimate", "--params", "7X"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "'7X' is not a number" in bad.stderr


# ------------------------------------------------------------------------------------ readable words
def test_english_assumptions_show_readable_names():
    page = views.assumptions_html(estimate(Scenario()), "en")
    names = re.findall(r"<tr><td>([^<]*)</td>", page)
    assert "Default MFU, dense run" in names and "Sequence length" in names
    assert not [n for n in names if re.search(r"[a-z]_[a-z]", n)], names


# ------------------------------------------------------------------------------------ charts to send
def test_each_chart_downloads_as_png_and_breakdown_as_svg_with_the_scenario_below(app):
    import xml.etree.ElementTree as ET

    from PIL import Image

    app.controls["region"].value = "cn-ningxia"
    app.tabs.selected_index = TABS["share"]
    assert app.error == ""
    files = {m.group(1): (m.group(2), base64.b64decode(m.group(3))) for m in re.finditer(
        r'download="([^"]+)" href="data:([^;]+);base64,([^"]+)"', app.downloads.value)}
    assert {"breakdown.png", "breakdown.svg", "what-changed.png", "history.png"} <= set(files)
    for name, fig in (("breakdown.png", app.breakdown.figure), ("what-changed.png", app.waterfall.figure)):
        img = Image.open(io.BytesIO(files[name][1]))
        # the caption adds lines below the chart: taller than the chart itself at 1x
        assert img.height > fig.get_figheight() * 96 * 1.05, (name, img.size)
        assert img.convert("L").getextrema()[0] < 100  # drawn, not blank
    ET.fromstring(files["breakdown.svg"][1])  # well-formed SVG
    caption = app.chart_caption()
    assert "Ningxia" in caption and "Pre-training" in caption and "7B" in caption and "$" in caption
    # saving did not disturb the widget canvas: the on-screen chart still draws
    app.tabs.selected_index = TABS["breakdown"]
    app.controls["params"].value = 13e9
    assert app.error == ""


# ------------------------------------------------------------------------------------ the savings recipe in words
def test_recipe_says_every_step_and_each_number_names_its_basis(app):
    app.controls["params"].value = 70e9
    app.controls["tokens"].value = 2e12
    app.tabs.selected_index = TABS["waterfall"]
    assert app.apply_savings_recipe() and app.error == ""
    page = re.sub(r"<[^>]+>", " ", app.analysis.recipe_html.value)
    # the steps that change the question are said: MoE and continual pre-training on 500B tokens
    assert "Mixture-of-Experts" in page and "Continual pre-training" in page and "500B" in page
    assert "Reserved 1 year" in page and "reserved 1 year applied instead" in page  # spot "not applied" explained
    # the saving is a share of the final run; the part is a share of the project: both say so
    assert "21.9% of the final run" in page
    m = re.search(r"-\$750k \((-[\d.]+)% of the project\)", page)
    assert m and abs(float(m.group(1))) < 21.9


def test_within_budget_with_a_real_chance_of_going_over_is_not_green(app):
    total = app.estimate.total_usd
    app.tabs.selected_index = TABS["uncertainty"]
    app.analysis.budget_box.value = f"{total * 1.03:.0f}"
    status = app.analysis.status
    assert status.status == "within" and status.probability_over >= 0.2, status
    page = app.analysis.budget_status_html.value
    assert "Within budget, at risk" in page and 'class="explorer-budget over"' in page
    app.analysis.budget_box.value = f"{total * 3:.0f}"
    assert app.analysis.status.probability_over < 0.2
    assert 'class="explorer-budget within"' in app.analysis.budget_status_html.value


def test_continual_and_full_finetune_explain_why_the_run_costs_the_same(app):
    run = app.estimate.final_run_usd
    for kind in ("continual_pretrain", "full_finetune"):
        app.controls["training_kind"].value = kind
        assert app.error == "" and app.estimate.final_run_usd == pytest.approx(run)
        assert "6·N·D" in app.rows["training_kind"].note and "x1" in app.rows["training_kind"].note
    app.controls["training_kind"].value = "pretrain"
    assert app.rows["training_kind"].note == ""


def test_every_chart_can_be_downloaded_with_cjk_safe_captions(recwarn):
    import base64
    import re

    from explorer.app import ExplorerApp

    app = ExplorerApp(query_string="")
    links = app.chart_links()
    names = re.findall(r'download="([^"]+)"', links)
    assert {"breakdown.png", "breakdown.svg", "what-changed.png", "history.png", "compare.png",
            "uncertainty.png"} <= set(names)
    for body in re.findall(r'href="data:image/png;base64,([^"]+)"', links):
        assert base64.b64decode(body)[:8] == b"\x89PNG\r\n\x1a\n"
    # the English caption quotes the source articles' Chinese titles: no glyph is missing from its font
    assert not [w for w in recwarn if "missing from font" in str(w.message)]


def test_history_download_is_in_the_language_shown_even_before_its_tab_opened(recwarn):
    from explorer.app import ExplorerApp

    app = ExplorerApp(query_string="")
    app.controls["language"].value = "zh"  # the History tab was drawn (and kept) in English only
    app.chart_links()
    assert not [w for w in recwarn if "missing from font" in str(w.message)]  # the marker label is Chinese
    assert app.history_fig.history_handles.language == "en"  # the canvas' chart is untouched until its tab opens
