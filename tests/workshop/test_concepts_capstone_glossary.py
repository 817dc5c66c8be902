"""The end-of-lesson concept questions, the capstone and the glossary, answered as a student would.

Concept questions: in Voila the student picks a letter and presses Check; in JupyterLab they set
``q1 = "B"`` and run the cell. A wrong letter names the misconception, the right one says why it holds.
The capstone: a plan of the student's choosing, checked for consistency against hand calculations.
"""

from __future__ import annotations

import csv
import json
import math
import re
from pathlib import Path

import pytest

from explorer.workshop import Lesson
from workshop_run import LESSONS, cells, run

STEMS = ["01_flops_to_dollars", "02_utilization_precision", "03_architecture_scaling", "04_buying_compute",
         "05_energy_region_carbon", "06_budgeting_governance"]
ROOT = Path(__file__).resolve().parents[2]

# (stem, question): (the right letter, a wrong letter, words its feedback must hold in en and in zh), worked out
# from the lessons by hand: e.g. lesson 1 Q2, C = 6·N·D with N and D doubled is 4 times (B), not 8 times (C)
EXPECTED = {
    ("01_flops_to_dollars", "Q1"): ("B", "A", "same number of GPU-hours", "卡时数相同"),
    ("01_flops_to_dollars", "Q2"): ("B", "C", "two factors", "两个"),
    ("02_utilization_precision", "Q1"): ("A", "B", "not half", "而不是一半"),
    ("02_utilization_precision", "Q2"): ("B", "A", "12 bytes", "12 字节"),
    ("03_architecture_scaling", "Q1"): ("B", "A", "all 671B", "全部 671B"),
    ("03_architecture_scaling", "Q2"): ("B", "A", "smaller model", "模型越小"),
    ("04_buying_compute", "Q1"): ("B", "A", "cheaper per hour", "便宜"),
    ("04_buying_compute", "Q2"): ("A", "B", "square root", "平方根"),
    ("05_energy_region_carbon", "Q1"): ("B", "A", "already includes power", "已包含电费"),
    ("05_energy_region_carbon", "Q2"): ("A", "B", "not the difference", "而不是差值"),
    ("06_budgeting_governance", "Q1"): ("B", "A", "2.788M H800-hours", "278.8 万 H800 卡时"),
    ("06_budgeting_governance", "Q2"): ("A", "B", "add up to the total change", "等于总变化"),
}


def _text(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


@pytest.fixture(scope="module", params=[(lang, stem) for stem in STEMS for lang in ("en", "zh")],
                ids=lambda p: f"{p[0]}-{p[1][:2]}")
def lesson(request):
    lang, stem = request.param
    return lang, stem, run(lang, stem, shadow=True)


def test_each_lesson_ends_with_two_concept_questions(lesson):
    lang, stem, ns = lesson
    assert sorted(ns["ws"].concepts) == ["Q1", "Q2"]
    code = cells(lang, stem)
    kinds = [t for c in code for t in c["metadata"].get("tags", []) if t.startswith("concept")]
    assert kinds == ["concept-answer", "concept"] * 2
    for c in code:  # the feedback cell is folded, and its first line (what JupyterLab shows) gives nothing away
        if "concept-answer" in c["metadata"].get("tags", []):
            assert c["metadata"]["jupyter"]["source_hidden"] is True
            first = c["source"].splitlines()[0]
            assert first.startswith("#") and "answer=" not in first
    # the questions come after the exercises and before the summary
    nb = json.loads((LESSONS / lang / f"{stem}.ipynb").read_text(encoding="utf-8"))
    order = [("concept" if "concept" in c["metadata"].get("tags", []) else
              "exercise" if "exercise" in c["metadata"].get("tags", []) else
              "summary" if c["cell_type"] == "markdown" and re.search(r"^## (Summary|小结)", c["source"], re.M)
              else None) for c in nb["cells"]]
    order = [o for o in order if o]
    assert order == ["exercise", "exercise", "concept", "concept", "summary"]


def test_concept_questions_in_voila_wrong_then_right(lesson):
    """Pick a wrong letter, press Check: the misconception is named; pick the right one: why it holds."""
    lang, stem, ns = lesson
    for key, q in ns["ws"].concepts.items():
        right, wrong, why_en, why_zh = EXPECTED[(stem, key)]
        assert q.answer == right, (stem, key)
        q.pick.value = wrong
        q.button.click()
        feedback = _text(q.feedback.value)
        assert feedback.startswith("✘"), (stem, key, feedback)
        assert (why_en if lang == "en" else why_zh) in feedback, (stem, key, feedback)
        assert (re.search(r"[\u4e00-\u9fff]", feedback) is not None) == (lang == "zh"), feedback
        q.pick.value = right
        q.button.click()
        feedback = _text(q.feedback.value)
        assert feedback.startswith("✔") and len(feedback) > (40 if lang == "en" else 20), (stem, key, feedback)  # says why
        for letter in q.letters:  # every option explains itself, in the lesson's language
            assert len(q.why[letter][0]) > 20 and re.search(r"[\u4e00-\u9fff]", q.why[letter][1])


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("stem", STEMS)
def test_concept_questions_in_jupyterlab_read_the_students_variable(stem, lang):
    for wrong_run in (True, False):
        answers = {f"q{i}": repr(EXPECTED[(stem, f"Q{i}")][1 if wrong_run else 0].lower()) for i in (1, 2)}
        ns = run(lang, stem, shadow=False, answers=answers)
        for key in ("Q1", "Q2"):
            feedback = _text(ns["ws"].concepts[key].feedback.value)
            assert feedback.startswith("✘" if wrong_run else "✔"), (stem, key, wrong_run, feedback)


def test_a_concept_answer_that_is_not_a_letter_is_explained():
    ws = Lesson("zh")
    ws.concept("Q1", answer="B", why={"A": ("a" * 30, "甲"), "B": ("b" * 30, "乙")})
    q = ws.concepts["Q1"]
    assert q.judge(None) == (False, "请先选一个字母。")
    ok, msg = q.judge("D")
    assert not ok and "不是选项" in msg
    assert q.judge(" (b) ")[0] and q.judge("b.")[0]
    with pytest.raises(ValueError, match=r"^answer: 'C' is not one of \['A'\]"):
        ws.concept("Q2", answer="C", why={"A": ("x", "甲")})


# ------------------------------------------------------------------------------------------------ capstone
# 7B on 2T tokens on H100 (BF16 peak 989.5 TFLOP/s, MFU 0.38, lesson 1): by hand 6·N·D / (peak·MFU·3600)
HAND_7B_2T = 6 * 7e9 * 2e12 / (989.5e12 * 0.38 * 3600)  # 62,055 GPU-hours


@pytest.fixture(scope="module", params=["en", "zh"])
def capstone(request):
    return request.param, run(request.param, "capstone", shadow=True)


def _results(cap) -> dict:
    return {name: (ok, _text(msg)) for name, ok, msg in cap.results}


def test_capstone_wrong_plan_is_explained_then_right_plan_passes(capstone):
    lang, ns = capstone
    ws = ns["ws"]
    assert math.isclose(HAND_7B_2T, 62055, rel_tol=1e-4)
    from explorer import Scenario, estimate

    # the form's run: the plan below changes the pricing and keeps the form's team (8 people at AI-lab pay, the
    # team of lessons 4 and 6, which the capstone starts from)
    e = estimate(Scenario(params=7e9, tokens=2e12, gpu="h100-sxm", gpus=256, pricing="reserved_1y",
                          team_headcount=8, team_pay_basis="ai_lab"))
    total, run_only = e.cost_usd["total"], e.final_run_usd
    # a plan with every mistake: GPU-seconds, the final run's cost as the budget, compute as the biggest cost,
    # a deadline the run cannot meet, no defence
    ws.check_capstone(dict(params_b=7, tokens_t=2, gpu="h100-sxm", gpus=256, pricing="reserved_1y",
                           deadline_days=10, gpu_hours=f"{HAND_7B_2T * 3600:.0f}", budget_usd=f"{run_only:.0f}",
                           biggest="compute", why=""))
    r = _results(ws.capstone())
    assert not any(ok for name, (ok, _) in r.items() if name != "memory"), r
    words = {"en": ("GPU-seconds", "final run only", "not always the biggest", "past your deadline"),
             "zh": ("卡秒", "只够最终训练", "并不总是最大", "超过你的期限")}[lang]
    for name, word in zip(("gpu_hours", "budget", "biggest", "deadline"), words):
        assert word in r[name][1], (name, r[name])
    # the deadline: at the same MFU, GPUs x days is fixed, so the page suggests about gpus * days / deadline GPUs
    need = math.ceil(256 * e.wall_days / 10)
    assert f"{need:,}" in r["deadline"][1]
    # the right plan: hand GPU-hours within 10%, a budget over the project estimate, the largest dimension named
    from explorer import COST_DIMENSIONS

    top = max(COST_DIMENSIONS, key=lambda d: e.cost_usd[d])
    assert top != "compute"  # a small run's biggest cost is not compute (lesson 6), which the check must catch
    ws.check_capstone(dict(deadline_days=30, gpu_hours="62,000", budget_usd=f"{1.3 * total:.0f}", biggest=top,
                           why="A 7B model we can serve cheaply; 2T tokens on 256 H100s for a year's "
                               "reservation; the risk is MFU, and the budget keeps 30% headroom for it."))
    r = _results(ws.capstone())
    assert all(ok for ok, _ in r.values()), r
    assert "62,055" in r["gpu_hours"][1]  # the hand figure is shown next to the model's billed hours


def test_capstone_budget_without_headroom_warns_about_the_120_rule(capstone):
    lang, ns = capstone
    ws = ns["ws"]
    cap = ws.capstone()
    from explorer import Scenario, estimate

    # the capstone's run (issue 28): lessons 4 and 6's, with its team of 8 at AI-lab pay
    e = estimate(Scenario(params=7e9, tokens=2e12, gpu="h100-sxm", gpus=256, pricing="on_demand", team_headcount=8,
                          team_pay_basis="ai_lab"))
    ws.check_capstone(dict(params_b=7, tokens_t=2, gpu="h100-sxm", gpus=256, pricing="on_demand",
                           budget_usd=f"{1.05 * e.cost_usd['total']:.0f}"))
    ok, msg = _results(cap)["budget"]
    assert ok and ("120%" in msg)


def test_capstone_in_jupyterlab_reads_my_plan(capstone):
    """Edit my_plan in the cell and run it: the check reads the student's dict."""
    lang, _ = capstone
    cell = next(c for c in cells(lang, "capstone") if "capstone" in c["metadata"].get("tags", []))
    assert "my_plan = dict(" in cell["source"] and "ws.check_capstone(my_plan)" in cell["source"]
    namespace = run(lang, "capstone", shadow=False)  # the cell as committed: nothing answered, nothing judged
    assert namespace["ws"].capstone().results == []
    src = cell["source"].replace("gpu_hours=None,", "gpu_hours=620550,")  # the student's answer, 10x too many
    exec(compile(src, "<capstone>", "exec"), namespace)
    ok, msg = _results(namespace["ws"].capstone())["gpu_hours"]
    assert not ok and "10¹" in msg


def test_capstone_refuses_a_field_it_does_not_know():
    ws = Lesson("en")
    with pytest.raises(ValueError, match="my_plan"):
        ws.check_capstone({"param": 7})


# ------------------------------------------------------------------------------------------------ glossary
def test_glossary_reuses_the_apps_definitions_and_covers_every_lesson():
    nb = json.loads((LESSONS / "glossary.ipynb").read_text(encoding="utf-8"))
    text = "\n".join(c["source"] for c in nb["cells"])
    with open(ROOT / "explorer" / "data" / "labels.csv", encoding="utf-8", newline="") as f:
        labels = {r["key"]: r for r in csv.DictReader(f)}
    app_terms = [k for k in labels if k.startswith("glossary_") and not k.endswith("_term")]
    for key in app_terms:  # every definition the app shows is in the workshop's glossary, word for word
        assert labels[key]["en"] in text and labels[key]["zh"] in text, key
    for stem in STEMS:
        assert f"en/{stem}.ipynb" in text and f"zh/{stem}.ipynb" in text
    entries = re.findall(r"^- \*\*(.+?)\*\* · \*\*(.+?)\*\*<br>(.+?)<br>(.+)$", text, re.M)
    assert len(entries) >= 30
    for en, zh, def_en, def_zh in entries:
        assert re.search(r"[\u4e00-\u9fff]", def_zh) and not re.search(r"[\u4e00-\u9fff]", def_en), en
        assert "$" not in def_en + def_zh
    terms = {en.split(" (")[0].lower() for en, *_ in entries}
    for must in ("mfu", "gpu-hour", "goodput", "pue", "mixture-of-experts", "checkpoint", "shapley attribution"):
        assert must in terms, must


def test_index_links_the_capstone_and_the_glossary():
    text = "".join(c["source"] for c in json.loads((LESSONS / "index.ipynb").read_text(encoding="utf-8"))["cells"])
    for link in ("en/capstone.ipynb", "zh/capstone.ipynb", "glossary.ipynb", "../claims.ipynb"):
        assert f"]({link})" in text, link
    assert text.index("06_budgeting_governance") < text.index("en/capstone.ipynb") < text.index("glossary.ipynb")
