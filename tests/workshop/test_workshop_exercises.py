"""Every exercise of every lesson, answered as a student would: wrong, then right, in both languages.

Two ways in, as in class:

* Voila (no code visible): type into the answer box and press Check (``box.value = ...``,
  ``button.click()``), read the feedback under it;
* JupyterLab: replace ``None`` in the exercise cell with an answer and run the lesson; the check cell
  reads the student's variable.

Each wrong answer is one a student gives (off by 10³, total instead of active parameters, a ratio upside
down, hours for minutes); the feedback must name that mistake, not only say "wrong". The lessons run with
the helper names of v1 (``t``, ``W``, ``e``, ...) overwritten after the setup and after every exercise cell.
"""

from __future__ import annotations

import math
import re

import pytest

from explorer.workshop import Lesson, parse_answer
from workshop_run import cells, run

STEMS = ["01_flops_to_dollars", "02_utilization_precision", "03_architecture_scaling", "04_buying_compute",
         "05_energy_region_carbon", "06_budgeting_governance"]

# (stem, exercise): (hand-computed answer, its tolerance, a wrong answer as typed from the answer a,
#                    words the feedback must contain in en and in zh)
EXPECTED = {
    ("01_flops_to_dollars", 1): (6 * 175e9 * 300e9, 0.01, lambda a: f"{a / 1e3:.3g}", "10³", "10³"),
    ("01_flops_to_dollars", 2): (6 * 7e9 * 2e12 / (989.5e12 * 0.38 * 3600), 0.01, lambda a: f"{a * 3600:.4g}",
                                 "GPU-seconds", "卡秒"),
    ("02_utilization_precision", 1): (0.8 / 0.5, 0.01, lambda a: "0.625", "upside down", "倒过来"),
    ("02_utilization_precision", 2): (None, 0.05, lambda a: "50%", "Only the cached activations shrink", "只有缓存的激活"),
    ("03_architecture_scaling", 1): ((5.76e23 / 120) ** 0.5, 0.02, lambda a: f"{a / 1e9:.1f}", "10⁹", "10⁹"),
    ("03_architecture_scaling", 2): (None, 0.02, lambda a: "1", "active parameters", "激活参数"),
    ("04_buying_compute", 1): (60 * (2 * (0.5 / 60) / (16384 * 1.97e-5)) ** 0.5, 0.05, lambda a: f"{a / 60:.3f}",
                               "hours", "小时"),
    ("04_buying_compute", 2): (None, 0.02, lambda a: f"{1 / a:.3f}", "upside down", "倒过来"),
    ("05_energy_region_carbon", 1): (None, 0.01, lambda a: f"{a * 1000:.4g}", "10³", "10³"),
    ("05_energy_region_carbon", 2): (1 - 0.0508 / 0.0905, 0.02, lambda a: f"{1 - a:.3f}", "1 minus", "1 减去"),
    ("06_budgeting_governance", 1): (0.38 / 1.2, 0.01, lambda a: f"{0.38 * 1.2:.3f}", "divide by 1.2", "除以 1.2"),
    ("06_budgeting_governance", 2): (None, 0.02, lambda a: f"{-a:.0f}", "sign", "符号"),
}


@pytest.fixture(scope="module", params=[(lang, stem) for stem in STEMS for lang in ("en", "zh")],
                ids=lambda p: f"{p[0]}-{p[1][:2]}")
def lesson(request):
    """A lesson run to the end with the student's helper-name collisions (t = 2e12, W = 0.0508, ...)."""
    lang, stem = request.param
    return lang, stem, run(lang, stem, shadow=True)


def _text(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


def test_lessons_survive_students_shadowing_helper_names(lesson):
    lang, stem, ns = lesson
    assert ns["t"] == 2e12 and ns["W"] == 0.0508  # the student's own values stay theirs
    assert isinstance(ns["ws"], Lesson) and ns["ws"].LANG == lang
    assert sorted(ns["ws"].exercises) == [1, 2]


def test_each_exercise_in_voila_wrong_then_right(lesson):
    """The answer box: a named mistake is explained, the right answer accepted, the solution only on request."""
    lang, stem, ns = lesson
    for n, ex in ns["ws"].exercises.items():
        hand, tol, wrong, why_en, why_zh = EXPECTED[(stem, n)]
        if hand is not None:  # the lesson's answer is the hand calculation (or the paper's figure)
            assert ex.answer == pytest.approx(hand, rel=tol), (stem, n)
        assert ex.tolerance == tol
        assert ex.fold.selected_index is None  # solution folded away
        ex.box.value = wrong(ex.answer)
        ex.button.click()
        feedback = _text(ex.feedback.value)
        assert feedback.startswith("✘"), (stem, n, feedback)
        assert (why_en if lang == "en" else why_zh) in feedback, (stem, n, feedback)
        assert (re.search(r"[\u4e00-\u9fff]", feedback) is not None) == (lang == "zh"), feedback
        assert ex.fold.selected_index is None, "a wrong answer must not open the solution"
        # just inside the stated tolerance is right; just outside is not
        ex.box.value = f"{ex.answer * (1 + 0.9 * tol):.6g}"
        ex.button.click()
        assert _text(ex.feedback.value).startswith("✔"), (stem, n, ex.feedback.value)
        ex.box.value = f"{ex.answer * (1 + 1.5 * tol):.6g}"
        ex.button.click()
        assert _text(ex.feedback.value).startswith("✘"), (stem, n, ex.feedback.value)
        assert ex.fold.selected_index is None
        ex.fold.selected_index = 0  # the student asks for the solution
        solution = _text(ex.fold.children[0].value)
        assert re.search(r"\d", solution) and "{" not in solution, solution


def test_each_exercise_in_jupyterlab_reads_the_students_variable(lesson):
    """Replace None in the exercise cell, run the lesson: the check cell judges the student's own variable."""
    lang, stem, ns = lesson
    exercise_cells = [c for c in cells(lang, stem) if "exercise" in c["metadata"].get("tags", [])]
    names = [re.search(r"^(\w+) = None$", c["source"], re.M).group(1) for c in exercise_cells]
    for wrong_run in (True, False):
        answers = {}
        for n, var in enumerate(names, 1):
            a = ns["ws"].exercises[n].answer
            answers[var] = repr(parse_answer(EXPECTED[(stem, n)][2](a))) if wrong_run else repr(a)
        student = run(lang, stem, shadow=False, answers=answers)
        for n in (1, 2):
            feedback = _text(student["ws"].exercises[n].feedback.value)
            assert feedback.startswith("✘" if wrong_run else "✔"), (stem, n, wrong_run, feedback)


def test_answer_box_reads_what_students_type():
    assert parse_answer("3.15e23") == 3.15e23
    assert parse_answer("3.15 × 10^23") == pytest.approx(3.15e23)
    assert parse_answer("69B") == 69e9
    assert parse_answer("8%") == pytest.approx(0.08)
    assert parse_answer("62,055") == 62055
    assert parse_answer("-1,092k") == -1092e3
    for bad in ("abc", "", "1e400", "nan"):
        with pytest.raises(ValueError, match=rf"^(not a number|outside the float range).*{re.escape(repr(bad))}"):
            parse_answer(bad)
    ws = Lesson("zh")
    assert ws.exercise(1, 100.0, tolerance=0.01) is None  # the checker cell shows nothing
    ex = ws.exercises[1]
    assert "无法读取" in ex.judge("一百")[1]
    assert not ex.judge(None)[0]


def test_checker_cells_give_nothing_away_when_folded():
    """JupyterLab shows the first line of a folded cell: it must be a comment, not the answer."""
    for stem in STEMS:
        for lang in ("en", "zh"):
            for c in cells(lang, stem):
                if "answer" in c["metadata"].get("tags", []):
                    first = c["source"].splitlines()[0]
                    assert first.startswith("#") and not re.search(r"\d{2}|=", first[2:]), first
                    assert c["metadata"]["jupyter"]["source_hidden"] is True


def test_chinchilla_refit_puts_the_optimum_near_20_tokens_per_parameter(lesson):
    """Besiroglu et al. 2024's refit: the compute-optimal split of Chinchilla's compute is about 20 tokens per
    parameter (the rounded constants of Hoffmann et al. put it near 90: arXiv 2404.10102, section 3)."""
    lang, stem, ns = lesson
    if stem != "03_architecture_scaling":
        pytest.skip("lesson 3 only")
    assert 15 <= ns["best"] <= 25
    loss = ns["chinchilla_loss"]
    split = ns["split"]
    assert loss(*split(20)) < loss(*split(100)) and loss(*split(20)) < loss(*split(5))
    # Hoffmann et al.'s rounded printed fit, for contrast: its optimum is far above 20
    grid = [10 ** (i / 100) for i in range(301)]
    old = min(grid, key=lambda r: (lambda n, d: 1.69 + 406.4 / n**0.34 + 410.7 / d**0.28)(*split(r)))
    assert old > 60 and not math.isclose(old, ns["best"], rel_tol=0.5)


CJK = re.compile(r"[\u4e00-\u9fff]")


def test_chinese_readers_see_labels_not_ids():
    """Dropdowns show words (按需, 宁夏), tables name the cost dimensions, warnings are translated."""
    l4 = run("zh", "04_buying_compute")["ws"]
    pricing = l4.panels[0].children[0]
    assert dict(pricing.options)  # (label, id) pairs
    assert all(CJK.search(text) and text != value for text, value in pricing.options), pricing.options
    assert pricing.value == "on_demand"
    l5 = run("zh", "05_energy_region_carbon")["ws"]
    region = l5.panels[0].children[0]
    assert all(CJK.search(text) for text, _ in region.options), region.options
    region.value = "cn-ningxia"
    assert "宁夏" in region.label
    l6 = run("zh", "06_budgeting_governance")
    table = _text(l6["ws"].panels[0].children[-1].value)
    for word in ("算力", "人才", "隐性成本"):
        assert word in table
    assert not re.search(r"\b(compute|people|hidden)\b", table), table
    l1 = run("zh", "01_flops_to_dollars")["ws"]
    params, tokens, gpus, out = l1.panels[0].children
    assert params.value == 7  # the slider selects 7B exactly (v1 showed 6.31)
    params.value, gpus.value = 671, 8
    assert "显存" in _text(out.value) and "Does not fit" not in out.value  # the memory warning, in Chinese


def test_restart_loss_is_zero_without_failures():
    """v1 showed USD 53.8M 'lost to restarts' at zero failures and 100% goodput."""
    l4 = run("en", "04_buying_compute")["ws"]
    failures, restart, out = l4.panels[1].children
    failures.value = 0
    text = _text(out.value)
    assert "goodput100.0%" in text.replace(" ", "") or "100.0%" in text
    assert re.search(r"lost to failures \(work since the checkpoint, restarts\)\$0(?!\.\d*[1-9])", text), text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_lesson_4_failure_panel_first_shows_the_figures_its_prose_cites(lang):
    """v2 showed 37.2M under prose saying 35.7M: the restart slider started at 10 minutes (a restart from storage)
    while the prose cited the model's default (2.4 minutes, recovery from memory at 16,384 GPUs). The panel's first
    GPU-hours are the prose's first figure; at 10 minutes they are its second (35.7M and 37.2M, to 3 digits)."""
    from pathlib import Path

    l4 = run(lang, "04_buying_compute")["ws"]
    failures, restart, out = l4.panels[1].children
    assert failures.value == pytest.approx(19.7) and restart.value == pytest.approx(2.4)  # defaults.csv
    src = (Path(__file__).resolve().parents[2] / "explorer" / "notebooks" / "lessons" / "src"
           / f"04_buying_compute.{lang}.md").read_text(encoding="utf-8")

    def shown_hours() -> float:  # the GPU-hours row of the panel, e.g. "GPU-hours35,724,701"
        return float(re.search(r"(?:GPU-hours|卡时)([\d,]+)", _text(out.value)).group(1).replace(",", ""))

    def cited(x: float) -> str:
        return f"{x / 1e6:.1f}M" if lang == "en" else f"{float(f'{x:.3g}') / 1e4:,.0f} 万"

    first = shown_hours()
    restart.value = 10.0
    storage = shown_hours()
    assert storage > first
    for x in (first, storage):
        assert cited(x) in src, (cited(x), lang)


def test_no_money_is_written_as_math():
    """Voila and JupyterLab typeset $...$: no lesson text carries a dollar sign, and every HTML output that
    may carry one (tables, feedback, solutions) is marked tex2jax_ignore."""
    from workshop_run import LESSONS
    import json

    paths = [*LESSONS.glob("*/*.ipynb"), LESSONS / "index.ipynb", LESSONS / "glossary.ipynb",
             LESSONS.parent / "claims.ipynb"]
    for path in paths:
        for c in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if c["cell_type"] == "markdown":
                assert "$" not in c["source"], (path.name, c["source"][:80])
    ns = run("en", "06_budgeting_governance")
    assert "$" in ns["ws"].panels[0].children[-1].value  # money is there ...
    assert ns["ws"].panels[0].children[-1].value.startswith('<div class="tex2jax_ignore mathjax_ignore">')  # ... and not math
