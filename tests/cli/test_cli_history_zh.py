"""``history --lang zh`` (issue 41): the whole report in Chinese, amounts in 万/亿, the article's claims in their
Chinese text; ``--lang en`` as before.

Besides the allow-list of :mod:`tests.cli.test_cli_zh_output`, the check takes out what the report names as
published: model names (as their developers write them), file paths (what a user opens) and the citation of Epoch
AI's data (repository, licence, paper, the PPI series id).
"""

from __future__ import annotations

import re

import pytest

from explorer.history.trend import EPOCH_REFERENCE, claims_table, history_table
from tests.cli.test_cli_zh_output import _english_words, _masked, _run

#: Cited as published (see the module docstring).
CITED = (EPOCH_REFERENCE, "training-cost-trends", "CC BY 4.0", "PCU518210518210")


def _without_names(text: str) -> str:
    names = set(history_table()["model"]) | set(claims_table()["model"].dropna())
    names |= {n[:28] for n in names}  # the points table cuts names at 28 characters
    for name in sorted(names, key=len, reverse=True):
        text = text.replace(name, " ")
    for cited in CITED:
        text = text.replace(cited, " ")
    return re.sub(r"explorer/data/[a-z_]+\.csv", " ", text)


@pytest.mark.parametrize("method", ["amortized", "cloud"])
def test_history_in_chinese_has_no_english_outside_the_allow_list(capsys, method):
    out = _run(capsys, "history", "--method", method, "--lang", "zh")
    assert out.startswith("重要AI模型的训练成本：历史趋势")
    assert _english_words(_without_names(out)) == [], method
    assert not re.search(r"\d[eE][+-]?\d", out)  # no e-notation
    assert not re.search(r"\$\d", out)  # no English money ($1.4M)


def _line(out: str, start: str) -> str:
    return next(line for line in out.splitlines() if line.strip().startswith(start))


def test_history_figures_in_chinese_are_the_english_ones_in_wan_and_yi(capsys):
    en = _run(capsys, "history")
    zh = _run(capsys, "history", "--lang", "zh")
    # GPT-4 (2023-03), Epoch AI's amortized cost: en $40.7M; by hand 40.7M = 40,700,000 = 4,070万
    assert _line(en, "2023-03  GPT-4 ").split()[2] == "$40.7M"
    assert _line(zh, "2023-03  GPT-4 ").split()[2] == "4,070万美元"
    # the trend crosses $1B and $100B: 10亿 and 1,000亿 (10^9 = 10 x 10^8; 10^11 = 1,000 x 10^8), same years
    assert _line(en, "$1B  in").split()[2] == _line(zh, "10亿美元").split()[2]
    assert _line(zh, "1,000亿美元").split()[2] == _line(en, "$100B  in").split()[2]
    # GPT-3: claimed $1.4M, sourced $4.32M = 140万, 432万; the claim in its Chinese text, not the English one
    assert "claimed $1.4M, sourced $4.32M" in en
    assert "文章 140万美元，出处 432万美元" in zh
    assert "单次训练算力成本估算约140万美元" in zh and "a 175B-parameter model" not in zh
    assert "偏低 3.1 倍" in zh and "sunyan_gpt3_retrain_2023" in zh  # en: 3.1x too low; matches the 2023 estimate


def test_history_json_keeps_english_keys_whatever_the_language(capsys):
    assert _run(capsys, "history", "--json", "--lang", "zh") == _run(capsys, "history", "--json")


def test_history_lang_help_says_the_whole_output(capsys):
    with pytest.raises(SystemExit):
        from explorer.cli import main
        main(["history", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "whole output" in text and "the report is in English" not in text


#: ``history`` in English at main cf13f7c (before this change), numbers masked as ``#`` and runs of spaces as one:
#: the heading, the fit and the column heads (the points and claims below follow the data).
_EN_HEAD = """\
Training cost of notable AI models: historical trend
Data: Epoch AI's frontier set: the # models that were in the top # by training compute at their publication date \
(training-cost-trends, top_n = #), explorer/data/epoch_frontier.csv (Epoch AI, training-cost-trends, CC BY #; Cottier \
et al. # arXiv:#), plus explorer/data/history.csv (AI Index # and developer figures, not fitted); # estimates; costs \
in #-# USD (US PPI PCU# the deflator Epoch AI uses).

Fit: log#(cost) linear in date, frontier models (Epoch AI: top # by training compute at publication), final \
training runs, amortized hardware + energy, #-#
 # points, #-#; #% intervals from # bootstrap resamples over points
 growth per year #x (#%: #-#x)
 doubling time # months (#%: #-#)
 By period:
 #-# #x/yr (#%: #-#x), n=#
 #-# #x/yr (#%: #-#x), n=#
 Epoch AI (Cottier et al. # arXiv:#), #-#: #x/yr, #% CI #-#x -> the #-# fit here is INSIDE that interval
 Trend crosses:
 $#B in # (#%: #-#)
 $#B in # (#%: #-#)
 $#B in # (#%: #-#)
 (intervals are for the trend line; single models scatter ~#x either side of it)
 Sensitivity of the growth per year to the subset:
 from # only #x (#-#), n=#
 all models, not only frontier #x (#-#), n=#

Points fitted (frontier models (Epoch AI: top # by training compute at publication), final training runs, amortized \
hardware + energy, #-#):
 date model cost estimate
"""


def test_history_in_english_is_unchanged(capsys):
    out = _run(capsys, "history", "--lang", "en")
    assert out == _run(capsys, "history")
    lines = out.splitlines()
    head = lines[:lines.index("  date     model                             cost  estimate") + 1]
    assert "\n".join(_masked(line) for line in head) + "\n" == _EN_HEAD
    assert "Article claims check (《大模型训练成本全维度拆解与优化指南》, section 二), compared in the source's own " \
           "dollars:" in lines
    assert "  [ok] 2017 2017: an early self-attention pretrained model cost on the order of $900 to train" in lines
    assert "       -> OFF: 91x too high vs AI Index 2024 (2018-10)" in lines


def test_every_estimate_of_the_history_has_a_chinese_name():
    from explorer.text import labels

    missing = [e for e in history_table()["estimate"].unique() if f"history:estimate:{e}" not in labels()]
    assert missing == []
