"""Every exercise accepts what a student can compute from the page, and names the inverted answer.

For each exercise the student's by-hand answer is computed here, with the formula the question states, from
the numbers the page gives: written in the lesson's text (each is looked up in the lesson source of that
language), listed in the table under the question (``Exercise.given``), or shown by the lesson's widget
(the region table's electricity prices, read from the catalog the widget reads). The answer is typed into
the box as a student would (four significant figures). Then its inverse is typed: the feedback must say
"upside down" (倒过来), whatever the size of the answer.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from explorer import catalog
from workshop_run import run

SRC = Path(__file__).resolve().parents[2] / "explorer" / "notebooks" / "lessons" / "src"


def _given(ex) -> list[float]:
    """The numbers of the table under the question, as shown (``1,234``, ``-5,678 USD``, ``1.97``)."""
    return [float(re.sub(r"[^0-9.eE+-]", "", value.replace(",", ""))) for _, value in ex.given]


def _hours_given(ex) -> float:
    gpu_h, factor, avg, pue = _given(ex)
    return gpu_h * 300 * factor * avg * pue / 1e6   # MWh = GPU-hours × 300 W (V100) × factor × load × PUE


# (stem, exercise): (numbers the text states, by-hand answer from the page's numbers)
HAND = {
    ("01_flops_to_dollars", 1): (["175B", "300B"], lambda ex: 6 * 175e9 * 300e9),
    ("01_flops_to_dollars", 2): (["7B", "2T", "989.5", "0.38"],
                                 lambda ex: 6 * 7e9 * 2e12 / (989.5e12 * 0.38 * 3600)),
    ("02_utilization_precision", 1): (["0.5", "0.8"], lambda ex: 0.8 / 0.5),      # cost ∝ 1 / MFU
    ("02_utilization_precision", 2): ([], lambda ex: 1 - _given(ex)[1] / _given(ex)[0]),
    ("03_architecture_scaling", 1): (["5.76 × 10²³", "20·N"], lambda ex: math.sqrt(5.76e23 / 120)),
    ("03_architecture_scaling", 2): (["37B", "671B"], lambda ex: _given(ex)[0] / _given(ex)[1]),
    ("04_buying_compute", 1): (["16384", "1.97 × 10⁻⁵", "0.5"],
                               lambda ex: 60 * math.sqrt(2 * (0.5 / 60) / (16384 * 1.97e-5))),
    ("04_buying_compute", 2): ([], lambda ex: _given(ex)[0] / _given(ex)[1]),     # owned / committed
    ("05_energy_region_carbon", 1): (["300 W"], _hours_given),
    ("05_energy_region_carbon", 2): (["1.3"], lambda ex: 1 - catalog.region("cn-ningxia").electricity_usd_per_kwh
                                     / catalog.region("cn-avg").electricity_usd_per_kwh),
    ("06_budgeting_governance", 1): (["0.38", "120%"], lambda ex: 0.38 / 1.2),
    ("06_budgeting_governance", 2): ([], lambda ex: sum(_given(ex))),
}
STEMS = sorted({stem for stem, _ in HAND})
#: How the Chinese text states a number, once and the Chinese way (issue 28: no "175B 即 1750 亿" doublets).
ZH_FORMS = {"175B": "1750 亿", "300B": "3000 亿"}


@pytest.fixture(scope="module", params=[(lang, stem) for stem in STEMS for lang in ("en", "zh")],
                ids=lambda p: f"{p[0]}-{p[1][:2]}")
def lesson(request):
    lang, stem = request.param
    return lang, stem, run(lang, stem, shadow=False)


def _feedback(ex, typed: str) -> str:
    ex.box.value = typed
    ex.button.click()
    return re.sub(r"<[^>]+>", "", ex.feedback.value)


def test_every_exercise_accepts_the_by_hand_answer_and_names_the_inverse(lesson):
    lang, stem, ns = lesson
    page = (SRC / f"{stem}.{lang}.md").read_text(encoding="utf-8").replace(",", "")
    exercises = ns["ws"].exercises
    assert sorted(exercises) == [1, 2]
    for n, ex in exercises.items():
        numbers, hand = HAND[(stem, n)]
        for number in numbers:
            written = ZH_FORMS.get(number, number) if lang == "zh" else number  # Chinese text writes 1750 亿 once
            assert written.replace(",", "") in page, (stem, lang, n, written)
        value = hand(ex)
        typed = f"{value:.4g}"
        said = _feedback(ex, typed)
        assert said.startswith("✔"), (stem, lang, n, typed, ex.answer, said)
        said = _feedback(ex, f"{1 / value:.4g}")
        assert said.startswith("✘") and ("upside down" if lang == "en" else "倒过来") in said, \
            (stem, lang, n, said)


def test_lesson_3_exercise_2_states_its_numbers_and_accepts_37_over_671(lesson):
    lang, stem, ns = lesson
    if stem != "03_architecture_scaling":
        pytest.skip("lesson 3 only")
    ex = ns["ws"].exercises[2]
    assert [v for _, v in ex.given] == ["37B", "671B", "14.8T"]
    assert _feedback(ex, f"{37 / 671:.4f}").startswith("✔")   # 0.0551, by hand
    assert _feedback(ex, "0.0582").startswith("✔")   # estimate()'s share, attention included (JupyterLab)
    said = _feedback(ex, "18.1")                       # 671/37: the "31011% too high"
    assert ("upside down" if lang == "en" else "倒过来") in said, said
    assert "±2%" in re.sub(r"<[^>]+>", "", ex.widget.children[1].value)  # the tolerance, stated under the table


def test_answers_are_not_printed_above_their_exercises(lesson):
    """Lesson 1 exercise 1 (3.15e23 FLOP) and lesson 5 exercise 1 (the model's GPT-3 MWh): nothing above shows them."""
    lang, stem, ns = lesson
    if stem not in ("01_flops_to_dollars", "05_energy_region_carbon"):
        pytest.skip("lessons 1 and 5")
    answer = ns["ws"].exercises[1].answer
    source = (SRC / f"{stem}.{lang}.md").read_text(encoding="utf-8")
    before = source[:source.index("### Exercise 1" if lang == "en" else "### 练习 1")]
    shown = run_outputs_before_exercise_1(lang, stem)
    for text in (before, shown):
        for form in (f"{answer:.3g}", f"{answer:,.0f}", f"{answer:.2e}"):
            assert form not in text, (stem, lang, form)


def run_outputs_before_exercise_1(lang: str, stem: str) -> str:
    """What the cells above exercise 1 print or display, as text (run in a fresh namespace)."""
    import contextlib
    import io
    import json
    import os

    from IPython.core.interactiveshell import InteractiveShell  # noqa: F401 - display() needs IPython

    nb = json.loads((SRC.parent / lang / f"{stem}.ipynb").read_text(encoding="utf-8"))
    shown: list[str] = []
    ns: dict = {"__name__": "__main__"}
    here = os.getcwd()
    os.chdir(SRC.parent / lang)
    import IPython.display as ipd
    original = ipd.display
    ipd.display = lambda *objs, **kw: shown.extend(getattr(o, "data", str(o)) for o in objs)
    try:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            for cell in nb["cells"]:
                src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
                if cell["cell_type"] == "markdown" and ("### Exercise 1" in src or "### 练习 1" in src):
                    break
                if cell["cell_type"] == "code":
                    exec(compile(src, f"<{stem}>", "exec"), ns)
        shown.append(out.getvalue())
    finally:
        ipd.display = original
        os.chdir(here)
    return "\n".join(str(s) for s in shown)


def test_lesson_4_sets_the_models_llama_hours_beside_metas():
    """The prose's figures are the model's at the panel's defaults, and Meta's 30.84M is the published row."""
    from explorer import estimate
    from explorer.presets import presets, published_run

    e = estimate(presets()["llama31_405b"].scenario)
    meta = float(published_run("Llama 3.1 405B")["gpu_hours"])
    assert meta == 30.84e6
    # Meta's effective utilization over all hours: 3.8e25 FLOP / (hours x 3600 s x 989.5 TFLOP/s)
    assert 3.8e25 / (meta * 3600 * 989.5e12) == pytest.approx(0.35, abs=0.005)
    def wan(x: float) -> str:  # the Chinese way, once (issue 28): 35.7M = 3,570 万
        return f"{float(f'{x:.3g}') / 1e4:,.0f} 万"

    for lang in ("en", "zh"):
        text = (SRC / f"04_buying_compute.{lang}.md").read_text(encoding="utf-8")
        if lang == "en":
            assert f"{e.gpu_hours / 1e6:.1f}M" in text and f"{e.ideal_gpu_hours / 1e6:.1f}M" in text, lang
            assert "30.84M" in text
        else:
            assert wan(e.gpu_hours) in text and wan(e.ideal_gpu_hours) in text and "3,084 万" in text, lang
            assert not re.search(r"\d(?:\.\d+)?M\b", text.split("```{code-cell}")[0]), "a doublet or an M in prose"
        assert f"{1 - e.goodput:.0%}" in text and f"{e.mfu:.2f}" in text, lang
