"""The claims' words (explorer/data/claim_texts.csv) in English and Chinese: complete, filled, and
the Chinese free of English words beyond names and units."""

from __future__ import annotations

import re
import string

import pytest

from explorer.claims import VERDICTS, check_claims, texts, verdict_text
from explorer.text import money_in, quantity_in

#: Latin words the Chinese may keep: names of models, people, organisations, datasets and hardware,
#: units and abbreviations Chinese technical text writes in Latin letters.
ALLOWED = {
    # units and abbreviations
    "GPU", "MFU", "FLOP", "TFLOP", "s", "PUE", "FP8", "FP16", "FP32", "BF16", "INT4", "MoE", "LoRA", "token", "N", "D",
    "USD", "CNY", "Q1", "Q3",
    # hardware
    "H100", "H800", "A100",
    # models, datasets, organisations, people
    "AI", "Index", "Epoch", "Transformer", "BERT-Large", "RoBERTa", "Large", "GPT-3", "GPT-4", "davinci", "Gemini",
    "Ultra", "Grok-3", "Llama", "LLaMA-MoE", "LLaMA-65B", "Code", "DeepSeek-V3", "Qwen3-235B-A22B", "MPT-7B",
    "OPT-175B", "BLOOM-176B", "Chinchilla", "FineWeb", "Patterson", "Brown", "Zhu", "Meditron-70B", "Meditron", "Meta",
}
LATIN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-.][A-Za-z0-9]+)*")


def latin_words(text: str) -> set[str]:
    """Latin words of ``text`` outside `code` spans and numbers with a size suffix (7B, 1.4T)."""
    text = re.sub(r"`[^`]*`", " ", text)
    text = re.sub(r"(?<![A-Za-z0-9.-])\d+(?:\.\d+)?[kMBT]\b", " ", text)
    return set(LATIN.findall(text))


@pytest.fixture(scope="module")
def zh():
    return check_claims("zh")


@pytest.fixture(scope="module")
def en():
    return check_claims("en")


def test_every_template_has_both_languages():
    for key, row in texts().items():
        assert row["en"].strip() and row["zh"].strip(), key


def test_templates_take_the_same_values_in_both_languages():
    fields = lambda t: {f for _, f, _, _ in string.Formatter().parse(t) if f}  # noqa: E731
    for key, row in texts().items():
        # only the English names the source of a figure in full ({src}); the Chinese points to its row
        assert fields(row["zh"]) == fields(row["en"]) - {"src"}, key


@pytest.mark.parametrize("column", ["verdict_text", "unit", "why", "test"])
def test_chinese_words_have_no_english_beyond_names_and_units(zh, column):
    leftovers = {r.id: latin_words(getattr(r, column)) - ALLOWED for r in zh.itertuples()}
    assert not {k: v for k, v in leftovers.items() if v}, leftovers


def test_every_claim_has_chinese_words_filled(zh, en):
    assert list(zh["id"]) == list(en["id"])
    for df in (zh, en):
        for column in ("verdict_text", "unit", "why", "test"):
            assert not df[column].str.contains(r"[{}]").any(), column   # every placeholder filled
            assert (df[column].str.len() > 0).all(), column
    assert zh["why"].str.contains(r"[\u4e00-\u9fff]").all()
    assert zh["unit"].str.contains(r"[\u4e00-\u9fff]").all()
    assert (zh["verdict"] == en["verdict"]).all()                          # the verdict does not depend on language
    assert (zh["number"] == en["number"]).all()


def test_verdicts_in_chinese():
    assert [verdict_text(v, "zh") for v in VERDICTS] == ["成立", "仅在所述条件下成立", "不成立", "无法核实"]
    assert [verdict_text(v, "en") for v in VERDICTS] == list(VERDICTS)


def test_numbers_are_written_per_language(zh, en):
    # GPT-3's re-training estimate: $1,400,000 (history.csv sunyan_gpt3_retrain_2023) = 140万美元
    assert "140万美元" in zh.set_index("id").loc["a_2020_gpt3_cost", "why"]
    assert "$1.4M" in en.set_index("id").loc["a_2020_gpt3_cost", "why"]
    assert "偏高，是其 91 倍" in zh.set_index("id").loc["a_2018_bert", "why"]   # 300,000 / 3,288 = 91.2


@pytest.mark.parametrize("x, currency, expected", [
    (1.4e6, "USD", "140万美元"), (1.914e8, "USD", "1.91亿美元"), (930, "USD", "930美元"),
    (2.2916e7, "CNY", "2,292万元"), (6.02e5, "CNY", "60.2万元"), (1e10, "USD", "100亿美元")])
def test_money_in_chinese(x, currency, expected):
    assert money_in(x, currency, "zh") == expected


def test_quantity_in_english_is_unchanged():
    assert quantity_in(1.4e6, "en") == "1.4M" and money_in(1.4e6) == "$1.4M"
