"""Exports, headless: the comparison and breakdown CSVs carry the whole scenario, every chart downloads with a caption."""

from __future__ import annotations

import base64
import csv
import io
import re

import pytest

from explorer import Scenario, estimate
from explorer.app.export import breakdown_csv
from explorer.plots.fonts import text_kwargs

from conftest import csv_from_link


TABS = {"breakdown": 0, "waterfall": 1, "history": 2, "compare": 3, "uncertainty": 4, "assumptions": 5, "share": 6}


# ------------------------------------------------------------------------------------ compare slots


def test_comparison_csv_carries_every_scenario_field(app):
    app.tabs.selected_index = TABS["compare"]
    b = Scenario(region="cn-ningxia", pricing="spot", training_kind="lora")
    app.analysis.pin("B", estimate(b), name="lora")
    rows = csv_from_link(app.analysis.compare.compare_html.value)
    fields = Scenario().to_dict()
    assert all(f"scenario.{k}" in rows[0] for k in fields)
    assert rows[1]["scenario.region"] == "cn-ningxia" and rows[1]["scenario.pricing"] == "spot"
    assert rows[1]["scenario.training_kind"] == "lora" and rows[0]["scenario.training_kind"] == "pretrain"
    # a row rebuilds its scenario
    rebuilt = {k[len("scenario."):]: v for k, v in rows[1].items() if k.startswith("scenario.")}
    assert rebuilt["params"] == "7000000000"


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


def test_every_chart_can_be_downloaded_with_cjk_safe_captions(recwarn, make_app):
    import base64
    import re


    app = make_app(query_string="")
    links = app.chart_links()
    names = re.findall(r'download="([^"]+)"', links)
    assert {"breakdown.png", "breakdown.svg", "what-changed.png", "history.png", "compare.png",
            "uncertainty.png"} <= set(names)
    for body in re.findall(r'href="data:image/png;base64,([^"]+)"', links):
        assert base64.b64decode(body)[:8] == b"\x89PNG\r\n\x1a\n"
    # the English caption quotes the source articles' Chinese titles: no glyph is missing from its font
    assert not [w for w in recwarn if "missing from font" in str(w.message)]


def test_history_download_is_in_the_language_shown_even_before_its_tab_opened(recwarn, make_app):

    app = make_app(query_string="")
    app.controls["language"].value = "zh"  # the History tab was never opened: its chart is not built yet
    app.chart_links()
    assert not [w for w in recwarn if "missing from font" in str(w.message)]  # the marker label is Chinese
    assert not app.history.built  # the file's figure was built for the file: the canvas' chart waits for its tab
    app.tabs.selected_index = 2
    assert app.history.built and app.history_fig.history_handles.language == text_kwargs("zh")[1]  # en: no CJK font


def test_csv_has_plain_decimals_exchange_rate_and_scenario(app):
    app.set_scenario(Scenario(params=175e9, tokens=300e9, currency="CNY", usd_to_cny=7.2))
    text = breakdown_csv(app.estimate)
    assert "e+" not in text and "e-" not in text
    rows = {r[0]: r[1] for r in csv.reader(io.StringIO(text))}
    assert rows["exchange_rate"] == "7.2"
    assert rows["scenario.params"] == "175000000000" and rows["scenario.currency"] == "CNY"
    assert float(rows["cost_total"]) == pytest.approx(app.estimate.total_usd * 7.2, abs=0.01)
    app.tabs.selected_index = 6  # Share and export: its links are written when the tab is shown
    link = re.search(r'download="breakdown.csv" href="data:text/csv;charset=utf-8;base64,([^"]+)"',
                     app.downloads.value).group(1)
    assert base64.b64decode(link).decode() == text
