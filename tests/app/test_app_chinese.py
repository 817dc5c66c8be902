"""The app in Chinese and across a language switch: every word, unit, warning and chart glyph, headless."""

from __future__ import annotations

import re
import warnings

import pytest

from explorer import Scenario, catalog, estimate
from explorer.app.pages import estimate_html
from explorer.app.tabs import analysis_views
from explorer.app.pages.estimate_html import translate
from explorer.plots.history import history_figure
from explorer.presets import presets


def test_chinese_everywhere(app):
    app.controls["language"].value = "zh"
    app.controls["gpu"].value = "gaudi2"  # an estimated price and a fallback power factor: two warnings
    app.controls["mfu_default"].value = False
    app.controls["mfu"].value = 0.9
    assert app.estimate.warnings
    for w in app.estimate.warnings:
        assert translate(w, "zh") != w, w
    items = re.findall(r"<li>(.*?)</li>", app.warnings.value)
    assert items and all(re.search(r"[\u4e00-\u9fff]", item) for item in items), items
    app.tabs.selected_index = 5  # Assumptions: its tables are written when the tab is shown
    table = app.assumptions.value
    assert "mfu_dense" not in table and "failure_rate_per_gpu_hour" not in table
    assert "术语表" in app.glossary.value
    app.controls["currency"].value = "CNY"
    assert "人民币" in app.kpis.value
    app.tabs.selected_index = 2  # the history chart is laid out again in the new language when it is shown
    assert "人民币" in app.history_fig.history_handles.ax.get_ylabel()


def test_every_model_warning_has_a_chinese_version():
    scenarios = [p.scenario.replace(pricing=m) for p in presets().values()
                 for m in ("on_demand", "spot", "owned")]
    scenarios += [Scenario(gpu=g, precision=catalog.accelerator(g).nearest_precision("bf16"), pricing=m)
                  for g in catalog.accelerators() for m in ("on_demand", "owned")]
    scenarios += [Scenario(pricing="owned", region=r) for r in catalog.regions()]
    scenarios += [Scenario(gpus=1), Scenario(gpus=200_000), Scenario(mfu=0.9), Scenario(recompute="full"),
                  Scenario(team_headcount=3), Scenario(params=2e12, tokens=1e14, gpus=None, deadline_days=30),
                  Scenario(gpu="a100-80gb", precision="bf16", pricing="owned", rate_usd_per_gpu_hour=2.0),
                  Scenario(active_params=1e9), Scenario(architecture="moe", experts=8, top_k=2)]
    seen = set()
    for s in scenarios:
        seen.update(estimate(s).warnings)
    missing = [w for w in seen if translate(w, "zh") == w]
    assert not missing, missing


def test_chinese_charts_draw_every_glyph(make_app):
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=r".*Glyph .* missing")
        app = make_app(query_string="lang=zh&currency=CNY")
        for pid in ("deepseek_v3", "gpt3", "startup_7b"):
            app.controls["preset"].value = pid
            for scope in ("run", "project"):
                app.controls["scope"].value = scope
                for fig in (app.breakdown.figure, app.waterfall.figure, app.history_fig):
                    fig.canvas.draw()
        app.controls["pricing"].value = "owned"
        app.controls["region"].value = "jp"  # unknown energy: "未知"
        for fig in (app.breakdown.figure, app.waterfall.figure, app.history_fig):
            fig.canvas.draw()
        assert app.breakdown.value_texts[1].get_text() == "未知"


def test_cjk_font_is_found_by_path_when_the_cache_lacks_it(monkeypatch):
    from matplotlib import font_manager

    from explorer.plots import fonts

    without = [f for f in font_manager.fontManager.ttflist if "CJK" not in f.name]
    monkeypatch.setattr(font_manager.fontManager, "ttflist", without)
    fonts.cjk_font.cache_clear()
    try:
        assert fonts.cjk_font() is not None  # registered from /usr/share/fonts by path
    finally:
        fonts.cjk_font.cache_clear()


TABS = {"breakdown": 0, "waterfall": 1, "history": 2, "compare": 3, "uncertainty": 4, "assumptions": 5, "share": 6}


def _budget(app, text: str) -> str:
    app.analysis.uncertainty.budget_box.value = text
    return app.analysis.uncertainty.budget_status_html.value


@pytest.mark.parametrize("language, words", [("en", "90% range"), ("zh", "90% 区间")])
def test_history_legend_says_what_the_bar_through_the_marker_is(language, words):
    from explorer.plots.history import set_marker_interval, set_scenario_marker

    fig = history_figure(language=language)
    legend = fig.history_handles.ax.get_legend()
    # no bar drawn: the legend promises none (issue 41: it read "bar: its 90% range" with no bar)
    assert not any(words in t.get_text() for t in legend.get_texts())
    set_scenario_marker(fig, 5e6, 2025.0, draw=False)
    set_marker_interval(fig, 4e6, 7e6)
    assert any(words in t.get_text() for t in legend.get_texts())
    set_marker_interval(fig, None, None)
    assert not any(words in t.get_text() for t in legend.get_texts())


def test_chinese_and_cny_views_draw_every_glyph(make_app):
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=r".*Glyph .* missing")
        app = make_app(query_string="lang=zh&currency=CNY")
        app.controls["params"].value = 13e9
        app.tabs.selected_index = TABS["compare"]
        app.analysis.compare.slot_choice.value = "B"
        app.analysis.compare.pin_slot_button.click()
        app.tabs.selected_index = TABS["waterfall"]
        app.analysis.what_changed.recipe_button.click()
        app.tabs.selected_index = TABS["uncertainty"]
        _budget(app, "100000")
        for fig in app.analysis.figures:
            fig.canvas.draw()
        app.tabs.selected_index = TABS["history"]
        app.history_fig.canvas.draw()
    assert app.error == ""
    assert "90% 区间" in app.kpis.value and "¥" in app.kpis.value
    assert "超出预算 120%：需复核" in app.analysis.uncertainty.budget_status_html.value
    assert "小于文章说法" in app.analysis.what_changed.recipe_html.value and "FP8 训练" in app.analysis.what_changed.recipe_html.value
    assert "¥" in app.analysis.compare.compare_html.value and "方案" in app.analysis.compare.compare_html.value
    assert [app.tabs.get_title(i) for i in (3, 4)] == ["方案对比", "不确定性与预算"]
    assert app.analysis.what_changed.mode.options == (("按维度", "dimension"), ("按因素", "lever"))
    tornado_labels = [t.get_text() for t in app.analysis.uncertainty.tornado.ax.get_yticklabels()]
    assert "算力利用率（MFU）" in tornado_labels
    assert app.analysis.what_changed.lever_plot.ax.get_title(loc="left") == "变化来源：按因素"


def test_hidden_analysis_charts_are_relabelled_when_their_tab_opens(app, monkeypatch):
    from explorer.plots import analysis as plots

    calls = []
    original = plots.LabelledPlot.set_language
    monkeypatch.setattr(plots.LabelledPlot, "set_language",
                        lambda self, language: (calls.append(type(self).__name__), original(self, language)))
    app.controls["language"].value = "zh"  # on the Breakdown tab: the analysis charts are hidden
    assert calls == []
    app.tabs.selected_index = TABS["compare"]
    assert calls == ["CompareBarsPlot"]
    ticks = [t.get_text() for t in app.analysis.compare.compare_plot.ax.get_xticklabels()]
    assert "算力" in ticks  # the compare chart speaks Chinese when shown


def test_language_switch_does_not_simulate_again(app, monkeypatch):
    calls = []
    real = analysis_views.simulate
    monkeypatch.setattr(analysis_views, "simulate", lambda *a, **k: calls.append(1) or real(*a, **k))
    app.controls["language"].value = "zh"
    assert calls == []
    app.controls["params"].value = 13e9
    assert calls == [1]


def test_units_countries_and_regions_inside_warnings_are_chinese(make_app):
    import re

    a = make_app(query_string="lang=zh&gpu=gaudi2&region=jp")
    text = re.sub(r"<[^>]+>", " ", a.warnings.value)
    assert "美元/GPU 时" in text and "USD/GPU-hour" not in text
    assert "请填写日本的实际成本" in text and "Japan" not in text
    a = make_app(query_string="lang=zh&pricing=owned&region=jp")
    text = re.sub(r"<[^>]+>", " ", a.warnings.value)
    assert "日本（东京）及其所在国家" in text and "Japan" not in text


def test_assumptions_table_names_values_and_units_are_chinese_sources_stay(make_app):
    import re

    a = make_app(query_string="lang=zh&gpu=gaudi2")
    a.tabs.selected_index = 5  # Assumptions: its tables are written when the tab is shown
    rows = re.findall(r"<tr><td>(.*?)</td><td>(.*?)</td><td>(.*?)</td><td class=\"src\">", a.assumptions.value)
    assert rows
    names, values, units = zip(*rows)
    assert "层数（由参数量推算）" in names and "按需价格（专业 GPU 云）（gaudi2，估算）" in names
    # activation recomputation: what "auto" (issue 38's default) chose, in Chinese
    assert {v for n, v, _ in rows if n == "激活重计算"} <= {"无", "选择性", "完全"}
    for unit in units:  # no English unit left (TFLOP/s, gCO2 and 1 are symbols)
        assert not re.search(r"USD|GPU-hour|tokens|years|people|bytes|min\b|kWh", unit), unit
    assert "Cottier" in a.assumptions.value  # citations stay in their original language


def test_region_dropdown_and_region_note_in_chinese(make_app):
    a = make_app(query_string="lang=zh&pricing=owned&region=jp")
    labels_ = dict((v, k) for k, v in a.controls["region"].options)
    assert labels_["cn-avg"] == "中国 - 全国平均" and labels_["us-avg"] == "美国平均"
    assert "unknown" not in a.region_note.value
    a.controls["language"].value = "en"
    a.groups.selected_index = 3  # the Region group: closed groups are relabelled when opened
    assert dict((v, k) for k, v in a.controls["region"].options)["us-avg"] == "US average"


def test_english_assumptions_show_readable_names():
    page = estimate_html.assumptions_html(estimate(Scenario()), "en")
    names = re.findall(r"<tr><td>([^<]*)</td>", page)
    assert "Default MFU, dense run" in names and "Sequence length" in names
    assert not [n for n in names if re.search(r"[a-z]_[a-z]", n)], names


def test_currency_and_language(app):
    app.set_scenario(Scenario())
    usd_total = app.estimate.total_usd
    app.controls["currency"].value = "CNY"
    assert "¥" in app.summary.value
    rate = catalog.default("usd_to_cny")
    assert app.estimate.cost()["total"] == pytest.approx(usd_total * rate)
    app.controls["language"].value = "zh"
    assert "总成本" in app.summary.value and "训练" in app.summary.value
    assert app.rows["params"].caption.value.count("模型规模") == 1
    app.controls["language"].value = "en"
    app.controls["currency"].value = "USD"
    assert "Training" in app.summary.value


def test_language_switch_lays_out_hidden_charts_when_their_tab_opens(make_app):
    """Switching language on the Breakdown tab does not rebuild the hidden history chart (about 0.25 s);
    opening its tab shows it in the new language, in the currency and with the marker of the result shown."""
    app = make_app(query_string="")
    before = app.history_fig.history_handles
    app.controls["currency"].value = "CNY"
    app.controls["language"].value = "zh"
    assert app.history_fig.history_handles is before  # not rebuilt while hidden
    app.tabs.selected_index = 2
    handles = app.history_fig.history_handles
    assert handles is not before
    assert "人民币" in handles.ax.get_ylabel()
    assert any("\u4e00" <= ch <= "\u9fff" for t in handles.ax.texts for ch in t.get_text())


def test_app_and_claims_page_read_the_link_language_by_one_rule(make_app):
    """``lang=zh-Hans`` (as a browser's language tag) opens both pages in Chinese; an unknown tag keeps English."""
    from explorer.app.pages.claims import page_language

    assert make_app(query_string="lang=zh-Hans").language == "zh" == page_language("lang=zh-Hans")
    assert make_app(query_string="lang=fr").language == "en" == page_language("lang=fr")
