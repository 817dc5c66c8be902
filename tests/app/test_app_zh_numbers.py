"""Issue 41: every number of the Chinese page in 万/亿, in the page's currency (warnings included), headless.

The KPI cards and their 90% range, the summary, the warnings, the Compare and What-if tables, the budget line and
the analysis charts' ticks, value labels and legends (read from the matplotlib figures after a draw): no English
scale letter after a digit (``1.8M``, ``605k``, ``1000B``), no e-notation (``1.18e+24``) and, in yuan, no amount in
dollars (``$444k``, ``444,000 美元``). Expected strings are converted by hand at the catalog's exchange rate.
"""

from __future__ import annotations

import csv
import pathlib
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer import Scenario, estimate
from explorer.app.pages import estimate_html
from explorer.app.pages.analysis_html import compare_html
from explorer.analysis import compare
from explorer.messages import Message
from explorer.text import money_in

from conftest import open_tab
from strategies import examples, scenarios

ROOT = pathlib.Path(__file__).resolve().parents[2]

#: English scale letters after a digit (1.8M, 605k, 1000B) and e-notation (1.18e+24): none on a zh page.
ENGLISH_SCALE = re.compile(r"\d(?:[kMBT]\b|e[+-]?\d)")
#: An amount in dollars: a dollar sign before a digit (``$1.8M``, mathtext's ``\$1.8M``), or a number before 美元
#: (``444,000 美元``, ``44.4万美元``); a month such as ``2024-12 美元`` (the price level of the History axis) and the
#: exchange rate's unit ``元/美元`` are no amounts.
DOLLAR_AMOUNT = re.compile(r"\$\s*\d|(?<![-\d.,])\d[\d,.]*\s*[万亿]?\s*美元")


def _rate_csv() -> float:
    """The catalog's exchange rate as its CSV row states it [CNY/USD] (explorer/data/defaults.csv)."""
    with open(ROOT / "explorer/data/defaults.csv", encoding="utf-8") as f:
        return float(next(r for r in csv.DictReader(f) if r["name"] == "usd_to_cny")["value"])


def _text(html_text: str) -> str:
    return re.sub(r"<[^>]+>", " ", html_text or "")


def _bad(text: str, yuan: bool = True) -> list[str]:
    """The English scales, e-notation and (in yuan) dollar amounts in ``text``, each with a little context."""
    found = [m for m in ENGLISH_SCALE.finditer(text)] + ([m for m in DOLLAR_AMOUNT.finditer(text)] if yuan else [])
    return [text[max(0, m.start() - 25):m.end() + 10] for m in found]


def _figure_texts(figure) -> list[str]:
    """Every text a figure draws: tick labels (formatted at a draw), axis labels, titles, texts and legends."""
    figure.canvas.draw()
    out = [t.get_text() for t in figure.texts]
    for ax in figure.axes:
        out += [t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels()]
        out += [ax.get_xlabel(), ax.get_ylabel(), ax.get_title(), ax.get_title("left")]
        out += [t.get_text() for t in ax.texts]
        if ax.get_legend() is not None:
            out += [t.get_text() for t in ax.get_legend().get_texts()]
    return [t for t in out if t]


# ------------------------------------------------------------------------------------------- by hand
def test_the_rate_and_a_million_dollars_in_yuan_by_hand():
    rate = _rate_csv()
    assert rate == 7.084  # defaults.csv, usd_to_cny
    # $1,000,000 x 7.084 = 7,084,000 yuan = 708.4 x 10^4: 708万 to three digits
    assert money_in(1e6 * rate, "CNY", "zh", symbol=True) == "¥708万"
    # $50M x 7.084 = 354,200,000 yuan = 3.542 x 10^8: 3.54亿
    assert money_in(5e7 * rate, "CNY", "zh", symbol=True) == "¥3.54亿"


def test_a_warning_in_yuan_quotes_yuan_by_hand():
    assert _rate_csv() == 7.084  # the rate of the hand conversions below
    e = estimate(Scenario(region="cn-avg", currency="CNY"))  # a Chinese region with the US default pay
    w = next(m for m in e.warnings if m.id == "team_pay_us_default")
    assert w.params["usd"] == 444_000  # the US loaded pay, in dollars (the issue: "每年 444,000 美元")
    # 444,000 x 7.084 = 3,145,296 yuan = 314.5 x 10^4: 315万元
    text = _text(estimate_html.warnings_html(e, "zh"))
    assert "每年 315万元" in text and "美元" not in text, text
    # English in yuan: the same amount in yuan with its code, 444,000 x 7.084 = 3,145,296
    assert "3,145,296 CNY a year" in _text(estimate_html.warnings_html(e, "en"))
    # in dollars the page quotes dollars; str() (the model's own text, the CLI's English) stays in USD
    assert "每年 44.4万美元" in _text(estimate_html.warnings_html(estimate(Scenario(region="cn-avg")), "zh"))
    assert "(444,000 USD a year)" in str(w)


def test_a_price_warning_in_yuan_by_hand():
    m = Message("market_price_estimated", gpu="Gaudi2", rate=1.5)
    # 1.5 USD/GPU-hour x 7.084 = 10.626 yuan: 10.6元/GPU 时
    assert "10.6元/GPU 时为估算值" in m.render("zh", currency=("CNY", 7.084))
    assert "1.5美元/GPU 时为估算值" in m.render("zh")
    assert "1.5 USD/GPU-hour is an estimate" in str(m)
    plan_note = Message("plan_cluster_binds", days=118.24, gpus=100_000.0, cost=9.2e9, budget=1e10)
    # 9.2e9 x 7 = 6.44e10 = 644亿; 1e10 x 7 = 7e10 = 700亿
    assert "本方案花费 644亿元，预算为 700亿元" in plan_note.render("zh", currency=("CNY", 7.0))


# ------------------------------------------------------------------------------------- the views
@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios(), scenarios())
def test_zh_views_in_yuan_have_chinese_numbers_and_no_dollars(a, b):
    a, b = a.replace(currency="CNY"), b.replace(currency="CNY")
    ea, eb = estimate(a), estimate(b)
    total = estimate_html._total(ea, "project")
    text = (_text(estimate_html.kpi_html(ea, "zh", interval=(total * 0.9, total * 1.2))) + estimate_html.summary_text(ea, "zh")
            + _text(estimate_html.warnings_html(ea, "zh")) + _text(estimate_html.warnings_html(eb, "zh")))
    table = compare({"A": a, "B": b}, scenario_columns=False)
    text += _text(compare_html({"A": ea, "B": eb}, table, "CNY", ea.usd_to_currency, "zh"))
    assert not _bad(text), _bad(text)


# ---------------------------------------------------------------------------------------- the app
@pytest.mark.parametrize("preset", ["deepseek_v3", "llama31_405b", "startup_7b", "lora_70b"])
def test_zh_page_in_yuan_every_tab_and_chart(make_app, preset):
    a = make_app(query_string=f"lang=zh&currency=CNY&preset={preset}&region=cn-avg")
    texts = {"kpis": _text(a.kpis.value), "summary": _text(a.summary.value), "warnings": _text(a.warnings.value)}
    assert "¥" in texts["kpis"] and "万" in texts["kpis"] + texts["summary"]
    open_tab(a, "compare")
    a.analysis.compare.slot_choice.value = "B"
    a.controls["pricing"].value = "owned"  # owned beside rented: the capex and break-even rows too
    a.analysis.compare.pin_slot_button.click()
    texts["compare"] = _text(a.analysis.compare.compare_html.value)
    assert "¥" in texts["compare"]
    open_tab(a, "uncertainty")
    a.analysis.uncertainty.budget_box.value = "5亿"
    a.analysis.uncertainty.cap_box.value = "2048"
    texts["budget"] = _text(a.analysis.uncertainty.budget_status_html.value)
    open_tab(a, "waterfall")
    a.analysis.what_changed.mode.value = "lever"
    open_tab(a, "whatif")
    texts["whatif"] = _text(a.whatif.table_html.value)
    assert "¥" in texts["whatif"] and "金额单位 元" in texts["whatif"]  # the currency in words, not "CNY"
    open_tab(a, "plan")
    texts["plan"] = _text(a.plan_view.result.value)
    texts["kpis after"] = _text(a.kpis.value)
    open_tab(a, "models")  # model names (Llama 3.1 405B) are no numbers: only the amounts and counts are read
    texts["models"] = " ".join(" ".join(r["cells"][1:]) for r in a.models_view.table.rows)
    bad = {k: _bad(v) for k, v in texts.items() if _bad(v)}
    assert not bad, bad
    charts = a.all_charts()
    assert {"compare", "uncertainty", "lever", "whatif", "plan"} <= set(charts), set(charts)
    for name, surface in charts.items():
        drawn = _figure_texts(surface.figure)
        bad = [t for t in drawn if _bad(t) and not re.fullmatch(r"[\w .\-]+ \d+(\.\d+)?B", t)]  # a model's name
        assert not bad, (name, bad)
    # the money axes are in yuan, in 万/亿
    ticks = [t.get_text() for t in charts["compare"].figure.axes[0].get_yticklabels()]
    assert any("¥" in t and ("万" in t or "亿" in t) for t in ticks), ticks


def test_history_legend_follows_the_currency(make_app):
    rate = _rate_csv()
    a = make_app(query_string="lang=zh&currency=CNY")
    open_tab(a, "history")
    legend = [t.get_text() for t in a.history_fig.axes[0].get_legend().get_texts()]
    # the thresholds $1B / $10B / $100B at 7.084: 70.84亿 -> 70.8亿 (three digits), 708.4亿 -> 708亿, and 7,084亿
    # (whole 亿 from a thousand up, as ¥3,660万)
    assert rate == 7.084 and "趋势到达¥70.8亿/¥708亿/¥7,084亿（90%区间）" in legend, legend


@settings(max_examples=examples(500), deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False) | st.integers(-10**15, 10**15))
def test_a_chinese_number_as_a_box_reads_it_is_exact(x):
    from explorer.text import parse_number, readable_number

    text = readable_number(x, "zh")
    if x == 0 or 2.2250738585072014e-308 <= abs(x):  # parse_number refuses subnormals (reason "range")
        assert parse_number(text) == x, text
    if 1e4 <= abs(x) < 1e15:  # in Chinese scales, no English letter and no e-notation
        assert not re.search(r"[kMBTe]", text), text


def test_models_tab_amounts_follow_the_page_currency(make_app):
    a = make_app(query_string="lang=zh&currency=CNY")
    open_tab(a, "models")
    row = next(r for r in a.models_view.table.rows if r["id"] == "run:DeepSeek-V3")
    # DeepSeek-V3's reported $5.576M x 7.084 = 39,500,384 yuan = 3,950.0万: ¥3,950万 (whole 万 from a thousand up)
    assert row["cells"][5] == "¥3,950万", row["cells"]
    # its $2 per H800-hour at 7.084: 14.168 yuan, 14.2元 to three digits
    assert "14.2元" in a.models_view.price_note.value
    a.controls["currency"].value = "USD"
    row = next(r for r in a.models_view.table.rows if r["id"] == "run:DeepSeek-V3")
    assert row["cells"][5] == "$558万"  # 5,576,000 = 557.6万
