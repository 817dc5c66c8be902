"""The fact-check page (``explorer/notebooks/claims.ipynb``): every claim of the two source articles with its verdict.

The page is in one language at a time: English, or Chinese with ``?lang=zh`` in the
address (Voila) or with the language buttons at its top (both Voila and JupyterLab).
Every word the page computes — verdict, unit, explanation, test — comes from
:func:`explorer.claims.check_claims` in that language; the claim itself is the
article's Chinese sentence in Chinese and our English summary in English.

On a wide screen the claims are a table (claim, verdict, number); on a phone
(narrower than 640 px) each claim is a card with its verdict under the claim, so
the verdict is on screen without sideways scrolling.
"""

from __future__ import annotations

import html
import re
from typing import Any

import ipywidgets as W
import pandas as pd

from explorer.app import link
from explorer.claims import CANNOT_CHECK, CONDITIONAL, FAILS, HOLDS, check_claims

__all__ = ["COLORS", "page_language", "claims_table_html", "why_html", "claims_page"]

COLORS = {HOLDS: "#1a7f37", CONDITIONAL: "#9a6700", FAILS: "#cf222e", CANNOT_CHECK: "#57606a"}

#: The page's own words, by language: each a str, but ``basis`` (a dict: the name of each basis).
WORDS: dict[str, dict[str, Any]] = {
    "en": {"all": "All claims", "claim": "claim", "verdict": "verdict", "number": "number",
           "why_title": "Why: pick a claim", "pick": "claim", "test": "test", "why": "why",
           "basis": {"data": "sourced data", "model": "cost model", "arithmetic": "arithmetic"},
           "article": "article",
           "title": "Fact-check: every quantitative claim of the two source articles",
           "intro": ("Each claim of article A, 《大模型训练成本全维度拆解与优化指南》, and article B, "
                     "《大模型训练成本怎么控制，大模型训练成本优化》, is tested by a scenario of the cost model or by "
                     "sourced data, and given a verdict that is computed, not typed in: holds, holds only under "
                     "stated conditions, does not hold, or cannot be checked (no sourced figure to test it "
                     "against). The code is explorer/claims.py.")},
    "zh": {"all": "全部论断", "claim": "论断", "verdict": "结论", "number": "数值",
           "why_title": "原因：选择一个论断", "pick": "论断", "test": "检验", "why": "原因",
           "basis": {"data": "有出处的数据", "model": "成本模型", "arithmetic": "算术"},
           "article": "文章",
           "title": "论断核查：两篇源文章中的每个定量论断",
           "intro": ("文章 A《大模型训练成本全维度拆解与优化指南》和文章 B《大模型训练成本怎么控制，大模型训练成本优化》"
                     "中的每个论断都用成本模型的场景或有出处的数据检验，并给出计算得出（而非手写）的结论："
                     "成立、仅在所述条件下成立、不成立、无法核实（没有可靠数据可供检验）。代码见 explorer/claims.py。")},
}

#: A table on a wide screen, cards on a phone (the verdict stays on screen without sideways scrolling).
CSS = """<style>
.claims {border-collapse: collapse; width: 100%}
.claims td, .claims th {text-align: left !important; vertical-align: top; padding: 4px 6px;
  border-bottom: 1px solid #d0d7de; overflow-wrap: anywhere}
.claims .claims-verdict {min-width: 7em}
@media (max-width: 640px) {
  .claims thead {display: none}
  .claims, .claims tbody, .claims tr, .claims td {display: block; width: auto}
  .claims tr {border: 1px solid #d0d7de; border-radius: 6px; margin: 0 0 8px 0; padding: 4px}
  .claims td {border: none; padding: 2px 4px}
}
</style>"""


def page_language(query_string: str | None = None) -> str:
    """``"zh"`` if the page address asks for Chinese (``?lang=zh``), else ``"en"``; the app's rule
    (:func:`explorer.app.link.page_language`).

    ``query_string`` defaults to the request of this Voila kernel ("" in JupyterLab).
    """
    if query_string is None:
        query_string = link.request_query_string()
    return link.page_language(link.scenario_fields_from_query(query_string)[1].get("lang")) or "en"


def _rich(text: str) -> str:
    """Escaped text with `code` spans as <code>."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))


def _number(x: float, unit: str) -> str:
    if unit.startswith(("year", "拟合趋势达到该数字的年份")):
        return f"{x:.0f}"  # 2031, not 2,031
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    shown = f"{x:.3g}"
    # 3 significant digits, or more when they would round a fraction to a whole number (LoRA's 0.99965 is no "1")
    for digits in range(4, 7):
        if x == round(x) or float(shown) != round(float(shown)):
            break
        shown = f"{x:.{digits}g}"
    return shown


def _section(section: str, language: str) -> str:
    """The article's section as the claims name it ("section 二 (成本量级演进)"), in ``language``."""
    if language != "zh":
        return section
    section = {"opening": "开篇", "closing": "结尾"}.get(section, section)
    return section.removeprefix("section ").replace(" (", "（").replace(")", "）").replace("FAQ ", "常见问题 ")


def _verdict(r) -> str:
    return f"<b style='color:{COLORS[r.verdict]}'>{html.escape(r.verdict_text)}</b>"


def claims_table_html(claims: pd.DataFrame, language: str) -> str:
    """The claims as an HTML table (cards on a narrow screen), in ``language``."""
    w = WORDS[language]
    rows = "".join(
        f"<tr data-claim='{html.escape(r.id)}'><td>{html.escape(r.claim)}<br><small>{w['article']} "
        f"{html.escape(r.article)}{'，' if language == 'zh' else ', '}{html.escape(_section(r.section, language))}"
        f"</small></td><td class='claims-verdict'>{_verdict(r)}</td>"
        f"<td>{_number(r.number, r.unit)}<br><small>{html.escape(r.unit)}</small></td></tr>"
        for r in claims.itertuples())
    # tex2jax_ignore: "$900" is money, not math
    return (CSS + f"<div class='tex2jax_ignore mathjax_ignore' lang='{'zh-Hans' if language == 'zh' else 'en'}'>"
            f"<table class='claims'><thead><tr><th>{w['claim']}</th><th>{w['verdict']}</th><th>{w['number']}</th>"
            f"</tr></thead><tbody>{rows}</tbody></table></div>")


def why_html(claims: pd.DataFrame, claim_id: str, language: str) -> str:
    """One claim's verdict, test and explanation, in ``language``."""
    w = WORDS[language]
    r = next(claims[claims["id"] == claim_id].itertuples())
    sep = "：" if language == "zh" else ": "
    return (f"<div class='tex2jax_ignore mathjax_ignore claims-why' lang='{'zh-Hans' if language == 'zh' else 'en'}'>"
            f"<p><b>{html.escape(r.claim)}</b><br><small>{w['article']} {html.escape(r.article)}"
            f"{'，' if language == 'zh' else ', '}{html.escape(_section(r.section, language))}</small></p>"
            f"<p>{_verdict(r)}</p>"
            f"<p><b>{w['test']}</b>{sep}{_rich(r.test)} ({w['basis'][r.basis]})</p>"
            f"<p><b>{w['why']}</b>{sep}{_rich(r.why)}</p></div>")


def claims_page(language: str | None = None) -> W.VBox:
    """The page: language buttons, the table of every claim, and a picker that explains one verdict.

    Parameters
    ----------
    language : {"en", "zh"}, optional
        Default: :func:`page_language` of the request (``?lang=zh``), else English.
    """
    lang = language or page_language()
    cache: dict[str, pd.DataFrame] = {}

    def claims(language: str) -> pd.DataFrame:
        if language not in cache:
            cache[language] = check_claims(language)
        return cache[language]

    switch = W.ToggleButtons(options=[("English", "en"), ("中文", "zh")], value=lang,
                             layout=W.Layout(width="auto"), style={"button_width": "6em"})
    heading = W.HTML()  # the page's title and first paragraph, in its language
    title = W.HTML()
    table = W.HTML(layout=W.Layout(width="100%"))
    why_title = W.HTML()
    pick = W.Dropdown(layout=W.Layout(width="auto", max_width="100%"))
    why = W.HTML(layout=W.Layout(width="100%"))

    def show_why(_=None) -> None:
        if pick.value is not None:
            why.value = why_html(claims(switch.value), pick.value, switch.value)

    def show(_=None) -> None:
        language = switch.value
        df = claims(language)
        w = WORDS[language]
        heading.value = (f"<h1>{html.escape(w['title'])}</h1><p lang='{'zh-Hans' if language == 'zh' else 'en'}'>"
                         f"{html.escape(w['intro'])}</p>")
        title.value = f"<h2>{w['all']}</h2>"
        table.value = claims_table_html(df, language)
        why_title.value = f"<h2>{w['why_title']}</h2>"
        chosen = pick.value
        short = lambda t: t if len(t) <= 40 else t[:39] + "…"  # noqa: E731
        pick.options = [(short(r.claim), r.id) for r in df.itertuples()]
        pick.value = chosen if chosen in set(df["id"]) else df["id"].iloc[0]
        show_why()

    switch.observe(show, "value")
    pick.observe(show_why, "value")
    show()
    return W.VBox([heading, switch, title, table, why_title, pick, why], layout=W.Layout(width="100%"))
