"""The class view: each student's checks recorded in their home, read back into "who passed what" and "who is stuck".

The expected tables are written out by hand from the fake records each test writes; the lesson runs as a student
would in JupyterLab on the hub (``WORKSHOP_RECORD_CHECKS=1``, ``JPY_SESSION_NAME`` the notebook's path, ``HOME`` a
temporary home).
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer import classroom
from explorer.classroom import (MAX_RECORD_BYTES, RECORDS, STUCK_TRIES, class_table, read_class, read_records,
                                record_check, stuck)
from strategies import examples
from workshop_run import run

ROOT = Path(__file__).resolve().parents[2]
ON = {"WORKSHOP_RECORD_CHECKS": "1"}
T0 = datetime(2026, 12, 2, 9, 0, tzinfo=timezone.utc)


def _lines(home: Path) -> list[dict]:
    return [json.loads(line) for line in (home / RECORDS).read_text(encoding="utf-8").splitlines()]


def test_a_check_is_appended_to_the_students_home_as_one_json_line(tmp_path):
    assert record_check("01_flops_to_dollars", "en", "E1", False, home=tmp_path, now=T0, environ=ON)
    assert record_check("01_flops_to_dollars", "en", "E1", True, home=tmp_path, now=T0, environ=ON)
    assert _lines(tmp_path) == [
        {"time": "2026-12-02T09:00:00+00:00", "lesson": "01_flops_to_dollars", "lang": "en", "check": "E1",
         "passed": False},
        {"time": "2026-12-02T09:00:00+00:00", "lesson": "01_flops_to_dollars", "lang": "en", "check": "E1",
         "passed": True}]


@pytest.mark.parametrize("env", [{}, {"WORKSHOP_RECORD_CHECKS": "0"},
                                 {**ON, "VOILA_PREHEAT": "False", "VOILA_BASE_URL": "/"}],
                         ids=["unset", "off", "a Voila kernel"])
def test_nothing_is_recorded_off_the_hub_or_in_voila(tmp_path, env):
    assert not record_check("01_flops_to_dollars", "en", "E1", True, home=tmp_path, environ=env)
    assert not (tmp_path / RECORDS).exists()


def test_a_failed_write_never_fails_the_check(tmp_path):
    home = tmp_path / "home"
    home.write_text("a file where the home should be")  # mkdir fails
    assert record_check("01_flops_to_dollars", "en", "E1", True, home=home, environ=ON) is False


def test_the_record_file_stays_bounded(tmp_path):
    for i in range(2_000):  # about 100 bytes each: three times the bound
        record_check("01_flops_to_dollars", "en", f"E{i % 2 + 1}", i % 3 == 0, home=tmp_path, now=T0, environ=ON)
    size = (tmp_path / RECORDS).stat().st_size
    assert MAX_RECORD_BYTES / 2 <= size <= MAX_RECORD_BYTES
    assert len(read_records(tmp_path / RECORDS)) == len(_lines(tmp_path))  # every kept line whole


def test_bad_lines_and_foreign_fields_are_skipped(tmp_path):
    path = tmp_path / "checks.jsonl"
    good = {"time": "2026-12-02T09:00:00+00:00", "lesson": "02_utilization_precision", "lang": "zh", "check": "Q1",
            "passed": True}
    path.write_text("\n".join([
        json.dumps(good), "not json", json.dumps([1, 2]), json.dumps({**good, "passed": "yes"}),
        json.dumps({**good, "lesson": "<script>alert(1)</script>"}), json.dumps({**good, "check": "x" * 100}),
    ]) + "\n", encoding="utf-8")
    assert read_records(path) == [good]
    assert read_records(tmp_path / "missing.jsonl") == []


def _fake_class(root: Path) -> None:
    """ada passed E1 at the second try and tried E2 three times; bo failed Q1 twice; cy has no records."""
    def write(student, *records):
        home = root / student
        home.mkdir(parents=True)
        for lesson, check, passed in records:
            record_check(lesson, "en", check, passed, home=home, now=T0, environ=ON)
    write("ada", ("01_flops_to_dollars", "E1", False), ("01_flops_to_dollars", "E1", True),
          ("01_flops_to_dollars", "E2", False), ("01_flops_to_dollars", "E2", False),
          ("01_flops_to_dollars", "E2", False))
    write("bo", ("01_flops_to_dollars", "Q1", False), ("01_flops_to_dollars", "Q1", False),
          ("01_flops_to_dollars", "E1", True))
    write("cy")
    (root / "not-a-home.txt").write_text("x")


def test_the_class_table_shows_who_passed_which_check(tmp_path):
    _fake_class(tmp_path)
    table = class_table(read_class(tmp_path), checks=[])  # only the checks in the records
    assert list(table.index) == ["ada", "bo", "cy"]
    assert list(table.columns) == ["01_flops_to_dollars · E1", "01_flops_to_dollars · E2",
                                   "01_flops_to_dollars · Q1", "passed"]
    assert table.loc["ada"].tolist() == ["✔", "✘ 3", "", 1]
    assert table.loc["bo"].tolist() == ["✔", "", "✘ 2", 1]
    assert table.loc["cy"].tolist() == ["", "", "", 0]


def test_stuck_is_three_tries_or_more_never_passed(tmp_path):
    _fake_class(tmp_path)
    records = read_class(tmp_path)
    assert stuck(records).values.tolist() == [["ada", "01_flops_to_dollars · E2", 3]]
    assert stuck(records, tries=2).values.tolist() == [["ada", "01_flops_to_dollars · E2", 3],
                                                       ["bo", "01_flops_to_dollars · Q1", 2]]


def test_an_empty_class_and_a_wrong_root(tmp_path):
    assert class_table(read_class(tmp_path)).empty
    assert stuck(read_class(tmp_path)).empty
    with pytest.raises(ValueError, match="homes root: .* is not a directory"):
        read_class(tmp_path / "nowhere")


@pytest.fixture
def on_the_hub(tmp_path, monkeypatch):
    """A student's kernel on the hub: recording on, a home of its own, the notebook's path as JupyterLab gives it."""
    for k in [k for k in os.environ if k.startswith("VOILA_")]:
        monkeypatch.delenv(k)
    monkeypatch.setenv("WORKSHOP_RECORD_CHECKS", "1")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("JPY_SESSION_NAME", str(tmp_path / "lessons" / "en" / "01_flops_to_dollars.ipynb"))
    return tmp_path


def test_lesson_1_records_each_check_and_says_how_many_of_its_four_are_answered(on_the_hub):
    ws = run("en", "01_flops_to_dollars", shadow=False)["ws"]
    assert (len(ws.exercises), len(ws.concepts)) == (2, 2)   # lesson 1: exercises 1, 2 and questions 1, 2
    assert ws.progress.value == ""                            # nothing said before the first check
    ws.exercises[1].submit("1e23")                            # wrong (the answer is 6 × 175e9 × 300e9)
    ws.exercises[1].submit("3.15e23")                         # right
    ws.concepts["Q1"].submit(ws.concepts["Q1"].answer)
    assert ws.summary() == (2, 4)
    assert "you answered 2 of 4 checks correctly" in ws.progress.value
    assert ws.progress in ws.exercises[2].widget.children     # the same line under every check of the page
    assert ws.progress in ws.concepts["Q2"].widget.children
    ws.exercises[2].submit(f"{ws.exercises[2].answer:.4g}")
    ws.concepts["Q2"].submit(ws.concepts["Q2"].answer)
    assert ws.summary() == (4, 4) and "all 4 checks answered correctly" in ws.progress.value
    got = [(r["lesson"], r["lang"], r["check"], r["passed"]) for r in _lines(on_the_hub)]
    assert got == [("01_flops_to_dollars", "en", "E1", False), ("01_flops_to_dollars", "en", "E1", True),
                   ("01_flops_to_dollars", "en", "Q1", True), ("01_flops_to_dollars", "en", "E2", True),
                   ("01_flops_to_dollars", "en", "Q2", True)]


def test_the_summary_in_chinese(on_the_hub, monkeypatch):
    monkeypatch.setenv("JPY_SESSION_NAME", "lessons/zh/01_flops_to_dollars.ipynb")
    ws = run("zh", "01_flops_to_dollars", shadow=False)["ws"]
    ws.exercises[1].submit("3.15e23")
    assert "4 项检查中你已答对 1 项" in ws.progress.value
    assert _lines(on_the_hub)[-1]["lang"] == "zh"


def test_the_capstone_records_its_plan(on_the_hub, monkeypatch):
    monkeypatch.setenv("JPY_SESSION_NAME", "lessons/en/capstone.ipynb")
    ws = run("en", "capstone", shadow=False)["ws"]
    ws.capstone().submit()   # the form as it starts: nothing stated, so the plan does not pass
    assert _lines(on_the_hub)[-1] == {**_lines(on_the_hub)[-1], "lesson": "capstone", "check": "plan",
                                      "passed": False}


def test_the_lecturers_notebook_shows_the_class(tmp_path, monkeypatch):
    _fake_class(tmp_path / "homes")
    monkeypatch.setenv("WORKSHOP_HOMES", str(tmp_path / "homes"))
    nb = json.loads((ROOT / "deploy" / "jupyterhub" / "class_view.ipynb").read_text(encoding="utf-8"))
    ns: dict = {}
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            assert not cell["outputs"]
            exec(compile("".join(cell["source"]), "class_view", "exec"), ns)
    tried = ["01_flops_to_dollars · E1", "01_flops_to_dollars · E2", "01_flops_to_dollars · Q1", "passed"]
    assert ns["table"].loc["ada", tried].tolist() == ["✔", "✘ 3", "", 1]  # and a blank for every check not tried
    assert ns["stuck_now"].values.tolist() == [["ada", "01_flops_to_dollars · E2", 3]]


def _own_record(home: Path) -> None:
    record_check("02_memory", "en", "E1", True, home=home, environ=ON)


def test_the_hub_reads_a_students_own_record(tmp_path):
    home = tmp_path / "ada"
    home.mkdir()
    _own_record(home)
    assert [(r["lesson"], r["passed"]) for r in classroom.read_own_records(home, os.getuid())] == [("02_memory", True)]
    assert classroom.read_own_records(home, os.getuid() + 1) == []  # owned by someone else: not hers
    assert classroom.read_own_records(tmp_path / "nobody", os.getuid()) == []


@pytest.mark.parametrize("trick", ["folder link", "file link", "fifo", "home link"])
def test_a_record_planted_by_a_link_a_fifo_or_a_hard_link_reads_as_none(tmp_path, trick):
    """Alice, in her own home, points the hub's reader at Bob's record (his passes shown as hers) or hangs it."""
    bob, alice = tmp_path / "bob", tmp_path / "alice"
    bob.mkdir()
    _own_record(bob)
    alice.mkdir()
    folder = alice / RECORDS.parent
    if trick == "folder link":
        folder.symlink_to(bob / RECORDS.parent)
    elif trick == "home link":
        alice.rmdir()
        alice.symlink_to(bob)
    else:
        folder.mkdir()
        if trick == "file link":
            (alice / RECORDS).symlink_to(bob / RECORDS)
        else:
            os.mkfifo(alice / RECORDS)  # an open for reading would wait for a writer: the hub would hang
    assert classroom.read_own_records(alice, os.getuid()) == []
    assert len(classroom.read_own_records(bob, os.getuid())) == 1  # Bob's own, read as ever


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs two owners (root; CI is)")
def test_a_hard_link_to_another_students_record_is_not_hers(tmp_path):
    bob, alice = tmp_path / "bob", tmp_path / "alice"
    bob.mkdir()
    _own_record(bob)
    for path in (bob, bob / RECORDS.parent, bob / RECORDS):
        os.chown(path, 54321, 54321)  # Bob's account
    (alice / RECORDS.parent).mkdir(parents=True)
    os.link(bob / RECORDS, alice / RECORDS)
    assert classroom.read_own_records(alice, os.getuid()) == []
    assert len(classroom.read_own_records(bob, 54321)) == 1


def test_the_class_view_off_the_hub_says_so_in_one_line(monkeypatch):
    monkeypatch.delenv("JUPYTERHUB_API_URL", raising=False)
    monkeypatch.delenv("JUPYTERHUB_API_TOKEN", raising=False)
    with pytest.raises(ValueError, match=r"^not on the class hub [^\n]*WORKSHOP_HOMES[^\n]*$"):
        classroom.fetch_class()
    with pytest.raises(ValueError, match=r"^the hub did not answer the class view at http://127\.0\.0\.1:9/hub/"):
        classroom.fetch_class("http://127.0.0.1:9/hub/api", "token", timeout=5)


def test_notebook_stem_reads_jupyterlabs_session_name():
    assert classroom.notebook_stem({"JPY_SESSION_NAME": "/home/ada/lessons/en/03_architecture_scaling.ipynb"}) \
        == "03_architecture_scaling"
    assert classroom.notebook_stem({}) == "unknown"
    assert classroom.notebook_stem({"JPY_SESSION_NAME": "lessons/<b>.ipynb"}) == "unknown"
    assert classroom.notebook_stem({"JPY_SESSION_NAME": "/home/ada/lessons/en/"}) == "unknown"   # no session name


# ------------------------------------------------------------------ laws over any sequence of answers
_CHECKS = ["E1", "E2", "Q1", "Q2"]


@lru_cache(maxsize=1)
def _lesson_1():
    return run("en", "01_flops_to_dollars", shadow=False)["ws"]


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_CHECKS), st.booleans()), max_size=20))
def test_the_summary_counts_the_checks_whose_last_answer_was_right(answers):
    """Whatever the order of right and wrong answers, "n of 4" is the number of checks last answered right."""
    ws = _lesson_1()
    for check in _CHECKS:            # a fresh page: nothing answered
        (ws.exercises[int(check[1])] if check[0] == "E" else ws.concepts[check]).correct = False
    last = {}
    for check, right in answers:
        if check[0] == "E":
            ex = ws.exercises[int(check[1])]
            ex.submit(f"{ex.answer:.4g}" if right else f"{ex.answer * 7:.4g}")
        else:
            q = ws.concepts[check]
            q.submit(q.answer if right else next(x for x in q.letters if x != q.answer))
        last[check] = right
    assert ws.summary() == (sum(last.values()), 4)


_records = st.lists(st.fixed_dictionaries({
    "time": st.just("2026-12-02T09:00:00+00:00"), "lesson": st.sampled_from(["01_flops_to_dollars", "capstone"]),
    "lang": st.sampled_from(["en", "zh"]), "check": st.sampled_from(_CHECKS + ["plan"]), "passed": st.booleans()}),
    max_size=12)


@settings(max_examples=examples(60), deadline=None)
@given(st.dictionaries(st.sampled_from(["ada", "bo", "cy", "dee"]), _records, max_size=4))
def test_the_class_table_and_stuck_agree_with_the_records(by_student):
    table, now_stuck = class_table(by_student), stuck(by_student)
    for student, records in by_student.items():
        for r in records:
            cell = table.loc[student, f"{r['lesson']} · {r['check']}"]
            tries = sum(1 for x in records if (x["lesson"], x["check"]) == (r["lesson"], r["check"]))
            ever = any(x["passed"] for x in records if (x["lesson"], x["check"]) == (r["lesson"], r["check"]))
            assert cell == ("✔" if ever else f"✘ {tries}")
            listed = ((now_stuck.student == student) & (now_stuck.check == f"{r['lesson']} · {r['check']}")).any()
            assert listed == (not ever and tries >= STUCK_TRIES)
        assert table.loc[student, "passed"] == sum(1 for c in table.columns[:-1] if table.loc[student, c] == "✔")


def test_the_class_table_has_a_column_for_every_check_of_the_course_tried_or_not():
    """Issue 42: the class view listed only the checks someone had tried, so an exercise the whole class skipped
    did not show. Now every check of the course has a column: 6 lessons × 2 exercises (12, "### Exercise" in the
    sources) + 6 × 2 concept questions + the capstone's plan = 25; a student who tried nothing has a row of blanks."""
    records = {"ada": [], "bo": [{"lesson": "01_flops_to_dollars", "lang": "en", "check": "E1", "passed": True,
                                   "time": "2026-12-07T10:00:00+00:00"}]}
    table = class_table(records)
    checks = [c for c in table.columns if c != "passed"]
    assert len(checks) == 25 and sum(" · E" in c for c in checks) == 12 and "capstone · plan" in checks
    assert "06_budgeting_governance · E2" in checks and "03_architecture_scaling · Q1" in checks
    assert set(table.loc["ada", checks]) == {""} and table.loc["ada", "passed"] == 0
    assert table.loc["bo", "01_flops_to_dollars · E1"] == "✔" and table.loc["bo", "passed"] == 1
