"""Issue 28 item 7: the answer boxes read the notations the lessons themselves write, in both languages.

v2 refused ``3.15×10²³`` (lesson 1 writes it), ``3.15e+23 FLOP``, ``0.38/1.2`` (lesson 6's own solution) and
``-$1.09M`` (how the lessons show money), and read a decimal comma ``1,6`` as 16, then called it "10¹ times
too large". Expected values are hand calculations: 6 x 175e9 x 300e9 = 3.15e23 FLOP (GPT-3), 0.38 / 1.2 (the
120% rule), 0.8 / 0.5 = 1.6 (lesson 2, exercise 1).
"""

from __future__ import annotations

import re

import pytest

from workshop_run import run

LANGS = ("en", "zh")


@pytest.fixture(scope="module", params=LANGS)
def lessons(request):
    lang = request.param
    return lang, {stem: run(lang, stem, shadow=False)["ws"] for stem in
                  ("01_flops_to_dollars", "02_utilization_precision", "06_budgeting_governance")}


def _judge(ex, text: str) -> str:
    ex.box.value = text
    ex.button.click()
    return re.sub(r"<[^>]+>", "", ex.feedback.value)


@pytest.mark.parametrize("text", ["3.15×10²³", "3.15 × 10^23", "3.15e+23 FLOP", "3.15e23 FLOPs", "3.15·10²³"])
def test_lesson_1_reads_its_own_scientific_notation(lessons, text):
    _, ws = lessons
    assert _judge(ws["01_flops_to_dollars"].exercises[1], text).startswith("✔"), text


def test_a_unit_other_than_the_exercise_names_is_not_read(lessons):
    lang, ws = lessons
    feedback = _judge(ws["01_flops_to_dollars"].exercises[1], "3.15e+23 MWh")
    assert feedback.startswith("✘") and ("not a number I can read" in feedback or "无法读取" in feedback)


def test_lesson_6_reads_a_quotient_and_dollars(lessons):
    lang, ws = lessons
    l6 = ws["06_budgeting_governance"]
    assert _judge(l6.exercises[1], "0.38/1.2").startswith("✔")
    change = l6.exercises[2].answer
    shown = f"{'-' if change < 0 else ''}${abs(change) / 1e3:.1f}k"  # e.g. -$318.5k, as the lesson writes money
    assert _judge(l6.exercises[2], shown).startswith("✔"), shown
    assert _judge(l6.exercises[2], shown + (" USD" if lang == "en" else " 美元")).startswith("✔")
    refused = _judge(l6.exercises[2], "¥" + shown.lstrip("-$"))
    assert refused.startswith("✘"), refused
    assert ("US dollars" in refused) if lang == "en" else ("美元" in refused), refused


def test_a_decimal_comma_gets_the_reading_that_applies(lessons):
    """1,6 is no thousands grouping: refused with the rule (a comma needs three digits after it) and the fix;
    1,600 is a thousands grouping: read as 1600, and when 1.6 is the answer the feedback says so."""
    lang, ws = lessons
    ex = ws["02_utilization_precision"].exercises[1]
    assert ex.answer == pytest.approx(0.8 / 0.5)
    comma = _judge(ex, "1,6")
    assert ("three digits" in comma and "1,234" in comma) if lang == "en" else ("三位数字" in comma), comma
    assert "10¹" not in comma
    thousands = _judge(ex, "1,600")
    assert thousands.startswith("✘")
    assert ("reads as 1,600" in thousands and "1.6" in thousands) if lang == "en" else ("读作 1,600" in thousands)


@pytest.mark.parametrize("text", ["1.6x", "1.6×", "1.60x", "1.60 ×"])
def test_lesson_2_reads_a_ratio_with_its_times_sign(lessons, text):
    """Issue 42: lesson 2 prints its ratios as "1.60x"; the answer 0.8 / 0.5 = 1.6 typed that way was refused."""
    _, ws = lessons
    assert _judge(ws["02_utilization_precision"].exercises[1], text).startswith("✔"), text


def test_scale_words_are_read_as_their_suffixes():
    """Issue 42: "69.3 billion" and "$3.2 million" (how the lessons and the news write amounts) were refused.
    Hand values: 69.3 × 10⁹ and 3.2 × 10⁶; the error for a form still refused names what was typed."""
    from explorer.text import NumberError
    from explorer.workshop import parse_answer

    assert parse_answer("69.3 billion") == pytest.approx(69.3e9)
    assert parse_answer("$3.2 million") == pytest.approx(3.2e6)
    assert parse_answer("-$1.5 Trillion") == pytest.approx(-1.5e12)
    assert parse_answer("3.15 x 10^23") == pytest.approx(3.15e23)  # an x before a power of ten is a product
    with pytest.raises(NumberError, match="69.3 billion tokens"):
        parse_answer("69.3 billion tokens")


from hypothesis import given, strategies as st  # noqa: E402


@given(st.floats(min_value=1e-6, max_value=1e15, allow_nan=False))
def test_a_times_sign_or_a_scale_word_never_changes_a_number(value):
    """Law: "{v}x" reads as v, and "{v} million" as v × 10⁶, for every number the box reads."""
    from explorer.workshop import parse_answer

    text = repr(value)
    assert parse_answer(text + "x") == parse_answer(text + " ×") == parse_answer(text)
    assert parse_answer(text + " million") == pytest.approx(parse_answer(text) * 1e6, rel=1e-12)


@pytest.fixture(scope="module", params=LANGS)
def lesson_5(request):
    return request.param, run(request.param, "05_energy_region_carbon", shadow=False)["ws"]


def test_energy_is_read_in_the_units_the_lessons_print(lesson_5):
    """Issue 42: lesson 5 prints kWh (prices, grids) and MWh (a run); "1.47e6 kWh" for exercise 1's MWh was
    refused as "not a number". 1 MWh = 1,000 kWh = 0.001 GWh: the same energy in any of them is accepted, and a
    kWh figure typed as MWh is still 10³ too large."""
    lang, ws = lesson_5
    ex = ws.exercises[1]
    mwh = ex.answer
    kwh_word, mwh_word = ("kWh", "MWh") if lang == "en" else ("千瓦时", "兆瓦时")
    for text in (f"{mwh * 1e3:.4e} kWh", f"{mwh * 1e3:,.0f} kWh", f"{mwh * 1e3:.4e}kwh", f"{mwh / 1e3:.5f} GWh",
                 f"{mwh:,.1f} MWh", f"{mwh * 1e3:.4e} {kwh_word}", f"{mwh:.1f} {mwh_word}"):
        assert _judge(ex, text).startswith("✔"), text
    assert "10³" in _judge(ex, f"{mwh * 1e3:.4e} MWh")
    assert "10³" in _judge(ex, f"{mwh:.1f} kWh")
