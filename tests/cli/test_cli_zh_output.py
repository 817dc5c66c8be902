"""``--lang zh`` for the whole CLI output (issue 41): headings, row names, units and numbers as Chinese readers
write them (万/亿), in every subcommand with a table; ``--lang en`` as before; ``--json`` keeps English keys.

The allow-list below is the English a Chinese reader sees on purpose: units and abbreviations of the field
(FLOP, MFU, TP/PP/DP, ZeRO, GB, CO2, PUE, kWh, TDP), the word *token*, and the source named in the batch row
(DeepSeek LLM 2024), the grid operators in two region names (ERCOT, PJM), AI and TPU; in ``history``, the names
of its sources (Epoch AI, AI Index 2024). Ids (accelerators, regions), option names (``--gpu-cap``) and code names
(``plan_longest_run_days``) are taken out before the check: they are what a user types.
"""

from __future__ import annotations

import json
import re

import pytest

from explorer import catalog
from explorer.cli import main

#: English words allowed in ``--lang zh`` output (units, abbreviations, the cited source); keep it short.
ALLOWED = frozenset({"GPU", "token", "FLOP", "TFLOP", "PFLOP", "MFU", "TP", "PP", "DP", "EP", "ZeRO", "GB", "CO",
                     "BF", "FP", "MoE", "IT", "TDP", "TPU", "AI", "PUE", "kWh", "gCO", "DeepSeek", "LLM", "ERCOT",
                     "PJM",
                     # history: Epoch AI, the source of the fitted data, by its name; the AI Index 2024, a report's title
                     "Epoch", "Index"})


def _run(capsys, *argv: str) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def _english_words(text: str) -> list[str]:
    """Words of two or more Latin letters left after ids, option names and code names are taken out."""
    ids = set(catalog.accelerators()) | set(catalog.regions()) | set(catalog.PRECISIONS)
    text = re.sub(r"--[a-z][a-z-]*", " ", text)  # option names
    text = re.sub(r"\b[a-z0-9]+(?:_[a-z0-9]+)+\b", " ", text)  # code names (plan_longest_run_days)
    text = " ".join(w for w in re.split(r"[\s,（）()：:;；，、*+]+", text) if w.lower() not in ids)
    return [w for w in re.findall(r"[A-Za-z]{2,}", text) if w not in ALLOWED]


@pytest.mark.parametrize("argv", [
    "estimate --params 7B --tokens 1T",
    "estimate --params 70B --pricing owned --currency CNY",
    "plan --budget-usd 5M --gpu-cap 1024",
    "compare --params 7B --params 70B --pricing spot --pricing owned",
    "attribute --params 70B",
    "simulate --params 7B --n 200 --seed 1 --budget 2M --gpu-cap 100",
    "what-if --vary pricing=on_demand,spot --vary architecture=dense,moe",
    "catalog gpus",
    "catalog regions",
])
def test_chinese_output_has_no_english_outside_the_allow_list(capsys, argv):
    out = _run(capsys, *argv.split(), "--lang", "zh")
    assert re.search(r"[\u4e00-\u9fff]", out)
    assert _english_words(out) == [], argv


@pytest.mark.parametrize("argv", ["estimate --params 1T --gpus 8", "estimate --params 405B --tokens 15.6T --days 1"])
def test_an_infeasible_run_in_chinese(capsys, argv):
    # the table above the warnings (the warnings come from messages.csv and cite their sources by name)
    out = _run(capsys, *argv.split(), "--lang", "zh").split("\n警告：")[0]
    assert "不可行" in out and "无：无法进行的训练没有成本" in out
    assert _english_words(out) == [], argv


def test_catalog_defaults_in_chinese_names_heads_and_names(capsys):
    # the sources are cited as published (titles of papers and pages): only the heads and the names are checked
    lines = _run(capsys, "catalog", "defaults", "--lang", "zh").splitlines()
    assert lines[0].split()[:4] == ["名称", "数值", "单位", "出处"]
    names = [line[:28] for line in lines[1:]]
    assert _english_words("\n".join(names)) == []
    # numbers as Chinese readers write them, no e-notation: max_gpus 100,000 = 10万; 1.97e-05 failures a GPU-hour
    assert "10万 张 GPU" in _row("\n".join(lines), "最大集群")
    assert "0.0000197 次/GPU 时" in _row("\n".join(lines), "故障率（每 GPU 时）")


def _row(out: str, name: str) -> str:
    return next(line for line in out.splitlines() if line.strip().startswith(name))


def test_estimate_total_is_the_english_total_in_wan(capsys):
    en = _run(capsys, "estimate", "--params", "7B", "--tokens", "1T")
    zh = _run(capsys, "estimate", "--params", "7B", "--tokens", "1T", "--lang", "zh")
    assert _row(en, "total").split() == ["total", "1,803,238"]  # USD
    # by hand: 1,803,238 = 180.3万, three significant digits -> 180万 (美元: the heading says 成本（美元）)
    assert _row(zh, "总计").split() == ["总计", "180万"]
    assert "成本（美元）" in zh and "cost (USD)" not in zh
    assert "1.7 天" in _row(zh, "训练时长") and "4.88×10²² FLOP" in _row(zh, "训练算力")  # en: 1.7 days, 4.88e+22


def test_owned_in_yuan_uses_wan_and_yi(capsys):
    argv = ["estimate", "--params", "70B", "--pricing", "owned", "--currency", "CNY"]
    en, zh = _run(capsys, *argv), _run(capsys, *argv, "--lang", "zh")
    assert _row(en, "total").split() == ["total", "26,385,361"]
    assert "496,572,322 CNY (484,934 per GPU" in _row(en, "owned: capex")
    # by hand: 26,385,361 = 2,638.5万 -> 2,639万; 496,572,322 = 4.966亿 -> 4.97亿元; 484,934 = 48.49万 -> 48.5万元
    assert _row(zh, "总计").split() == ["总计", "2,639万"]
    assert "4.97亿元（每张 GPU 连同服务器与网络 48.5万元）" in _row(zh, "自建：资本支出")


def test_plan_attribute_and_simulate_amounts_in_wan(capsys):
    plan = _run(capsys, "plan", "--budget-usd", "5M", "--gpu-cap", "1024", "--lang", "zh")
    assert plan.startswith("规划：500万美元（整个项目）")  # 5,000,000 = 500万
    att = _run(capsys, "attribute", "--params", "70B", "--lang", "zh")
    # en: baseline 1,803,238 USD -> target 4,595,977 USD (change +2,792,739 USD): 180万, 460万, +279万
    assert att.splitlines()[0] == "基线 180万美元 → 目标 460万美元（变化 +279万美元）"
    sim = _run(capsys, "simulate", "--params", "7B", "--n", "200", "--seed", "1", "--lang", "zh")
    assert sim.startswith("总计 180万美元（点估计）；90% 区间 ")


def test_json_keeps_english_keys_whatever_the_language(capsys):
    en = json.loads(_run(capsys, "estimate", "--params", "7B", "--json"))
    zh = json.loads(_run(capsys, "estimate", "--params", "7B", "--json", "--lang", "zh"))
    assert {k: v for k, v in zh.items() if k != "warnings"} == {k: v for k, v in en.items() if k != "warnings"}
    assert "machine-readable" in _help(capsys, "estimate") and "whole output" in _help(capsys, "estimate")


def _help(capsys, command: str) -> str:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    return " ".join(capsys.readouterr().out.split())


#: ``--lang en`` output of main 5bed25e (before issue 41's CLI change), numbers masked as ``#`` and runs of spaces
#: as one: the words, units and row order must not change (the numbers follow the data, which other work moves).
_EN_ESTIMATE = """\
Scenario: #e+# params (dense), #e+# tokens, h#-sxm BF# on-demand from specialist clouds (median), region us-avg

 train compute #e+# FLOP
 MFU # of # TFLOP/s peak
 GPU-hours # (ideal # goodput #)
 GPUs # (memory needs at least #)
 memory per GPU # GB (weights # gradients # optimizer # activations #)
 layout TP # x PP # x DP # ZeRO-# none recomputation (chosen: tensor parallel, pipeline parallel, zero stage)
 memory in layout # GB per GPU (state # activations #); the line above: fully sharded, the least any layout needs
 batch # tokens a step (# sequences; critical batch # DeepSeek LLM #), # steps
 wall-clock # days
 energy # MWh (IT # MWh)
 carbon # tCO#
 whole project # MWh, # tCO# (x# experiments, # months of people)
 price basis on_demand from specialist clouds (median) at the newest prices: # USD/GPU-hour

 cost (USD) amount share
 compute # #%
 energy # #%
 data # #%
 people # #%
 hardware # #%
 hidden # #%
 experiments (R&D) #
 failures+restarts #
 other losses #
 storage #
 total #
 final run only # (compute, losses, energy, hardware)

 USD per #M tokens #
 USD per PFLOP-day #
 tokens per GPU-hour #
"""

_EN_SIMULATE = """\
total # USD (point); #% range # - # USD (# draws, seed #)

 P# P# P#
total_usd # # #
compute_usd # # #
energy_usd # # #
data_usd # # #
people_usd # # #
hardware_usd # # #
hidden_usd # # #
"""

_EN_ATTRIBUTE = """\
baseline # USD -> target # USD (change +# USD)

 model_size +#
 team +#
"""


def _masked(text: str) -> str:
    return re.sub(r" +", " ", re.sub(r"\d[\d,.]*", "#", text))


@pytest.mark.parametrize("argv, expected", [
    ("estimate --params 7B --tokens 1T", _EN_ESTIMATE),
    ("simulate --params 7B --n 200 --seed 1", _EN_SIMULATE),
    ("attribute --params 70B", _EN_ATTRIBUTE),
])
def test_english_output_is_unchanged(capsys, argv, expected):
    out = _run(capsys, *argv.split(), "--lang", "en")
    assert _masked(out.split("\nWarnings:")[0].rstrip("\n") + "\n") == expected
