"""``--lang zh``: the CLI's warnings and errors in Chinese, rendered from the message ids; exit code 2 stays."""

from __future__ import annotations

import json

import pytest

from explorer.cli import main


def _run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_warnings_in_chinese(capsys):
    # 200,000 GPUs is twice the largest cluster the model knows (defaults.csv max_gpus 100,000) and spot at that size
    code, out, _ = _run(capsys, "estimate", "--gpus", "200000", "--pricing", "spot", "--lang", "zh")
    assert code == 0
    block = out.split("警告：", 1)[1]
    assert "200,000 张 GPU 超过模型已知的最大集群（100,000 张）" in block
    assert "张 GPU 使用竞价实例" in block and "Spot at" not in block and "Warnings:" not in out


def test_english_stays_the_default(capsys):
    code, out, _ = _run(capsys, "estimate", "--gpus", "200000", "--pricing", "spot")
    assert code == 0 and "Warnings:" in out and "200,000 GPUs is more than the largest cluster" in out


def test_json_warnings_in_the_chosen_language(capsys):
    code, out, _ = _run(capsys, "estimate", "--pricing", "owned", "--rate", "2", "--json", "--lang", "zh")
    assert code == 0
    warnings = json.loads(out)["warnings"]
    assert warnings[0] == "自建硬件不使用所填的云端租价（改用资本、托管和电费）。"
    # the default 7B project owned: people are its largest cost, from the default team (issue 25 item 2)
    assert len(warnings) == 2 and warnings[1].startswith("人力是最大的成本项")


@pytest.mark.parametrize("lang, expected", [
    ("en", "error: params: 250,000 is not allowed; allowed: a number in [1M, 100T]"),  # as typed, not 1e+06
    ("zh", "错误：模型规模 [参数量]：25万不可用；允许：[100万, 100万亿] 内的数"),  # 万/亿 (issue 41)
])
def test_refusal_exit_code_2_in_either_language(capsys, lang, expected):
    code, out, err = _run(capsys, "estimate", "--params", "250000", "--lang", lang)
    assert code == 2 and out == "" and err.strip() == expected


def test_a_missing_scenario_file_in_chinese(capsys, tmp_path):
    code, _, err = _run(capsys, "estimate", "--scenario", str(tmp_path / "none.json"), "--lang", "zh")
    assert code == 2 and err.strip() == f"错误：场景文件：'{tmp_path / 'none.json'}' 不可用；允许：可读取的 JSON 文件"


def test_compare_warnings_in_chinese(capsys, tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps({"gpu": "h100-sxm", "pricing": "on_demand"}))
    b.write_text(json.dumps({"gpu": "mi300x", "precision": "bf16", "pricing": "spot"}))
    code, out, _ = _run(capsys, "compare", "--scenario", str(a), "--scenario", str(b), "--lang", "zh")
    assert code == 0 and "这些场景在不同的计价口径" in out and "These scenarios" not in out


@pytest.mark.parametrize("command", ["estimate", "compare", "attribute", "simulate", "catalog gpus", "history"])
def test_every_subcommand_takes_lang(capsys, command):
    argv = command.split() + ["--lang", "zh"]
    if command == "simulate":
        argv += ["--n", "10"]
    code, _, err = _run(capsys, *argv)
    assert code == 0, err
