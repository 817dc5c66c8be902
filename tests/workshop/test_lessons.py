"""The workshop notebooks: built from their MyST text sources, in step across languages, in the Pythia shape.

The notebooks themselves are executed by ``pytest --nbval-lax explorer`` (``make test``).
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LESSONS = ROOT / "explorer" / "notebooks" / "lessons"


def _builder():
    spec = importlib.util.spec_from_file_location("build_lessons", LESSONS / "build_lessons.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


BUILD = _builder()
STEMS = list(BUILD.LESSONS)


def _nb(lang: str, stem: str) -> dict:
    return json.loads((LESSONS / lang / f"{stem}.ipynb").read_text(encoding="utf-8"))


def test_committed_notebooks_equal_the_generated_ones():
    """Edit explorer/notebooks/lessons/src/*.md and run `make lessons`; never edit the .ipynb files by hand."""
    stale = [str(p.relative_to(ROOT)) for p, text in BUILD.outputs().items()
             if not p.exists() or p.read_text(encoding="utf-8") != text]
    assert not stale, f"regenerate with `python explorer/notebooks/lessons/build_lessons.py`: {stale}"


def test_six_lessons_and_the_capstone_in_both_languages_and_nothing_else():
    assert len(STEMS) == 6
    for lang in ("en", "zh"):
        assert sorted(p.stem for p in (LESSONS / lang).glob("*.ipynb")) == sorted(STEMS + ["capstone"])


@pytest.mark.parametrize("stem", STEMS)
def test_languages_in_step(stem):
    en, zh = _nb("en", stem), _nb("zh", stem)
    assert [c["cell_type"] for c in en["cells"]] == [c["cell_type"] for c in zh["cells"]]
    for a, b in zip(en["cells"], zh["cells"]):
        if a["cell_type"] == "code" and "setup" not in a["metadata"].get("tags", []):
            assert a["source"] == b["source"]  # the same code; labels come from t(en, zh)
        if a["cell_type"] == "markdown":
            assert re.search(r"[\u4e00-\u9fff]", b["source"]), b["source"][:80]
            # every number in the English text appears in the Chinese text too, as a value: 2.788M is 278.8 万,
            # 7B is 70 亿, 2T is 2 万亿 (issue 28: written once, the Chinese way, not "2.788M 即 278.8 万")
            assert _values(a["source"]) <= _values(b["source"]) | {1.0, 2.0, 3.0}, (stem, a["source"][:60])


_SCALE = {"k": 1e3, "M": 1e6, "B": 1e9, "T": 1e12, "万": 1e4, "亿": 1e8, "万亿": 1e12, "thousand": 1e3,
          "million": 1e6, "billion": 1e9, "trillion": 1e12}


def _values(text: str) -> set[float]:
    """The numbers of a text as values, a number with its scale word as one (35.7M, 3,570 万, 1.91 亿); rounded to
    4 significant digits, so 35.7M and 3,570 万 are one value."""
    out = set()
    text = re.sub(r"(?<=\d),(?=\d{3})", "", text)  # thousands separators only: "A = 406.4, B" stays two numbers
    for m in re.finditer(r"(\d+(?:\.\d+)?)\s?(万亿|thousand|million|billion|trillion|[kMBT万亿](?![A-Za-z]))?", text):
        number = float(m.group(1)) * _SCALE.get(m.group(2) or "", 1.0)
        out.add(float(f"{number:.4g}"))
    return out


@pytest.mark.parametrize("stem", STEMS)
def test_pythia_shape(stem):
    text = "\n".join(c["source"] for c in _nb("en", stem)["cells"] if c["cell_type"] == "markdown")
    for heading in ("## Overview", "## Prerequisites", "Time to learn", "## Summary", "### What's next?",
                    "## Resources and references", "### Exercise 1", "### Exercise 2"):
        assert heading in text, heading


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("stem", STEMS)
def test_exercises_have_checked_revealable_answers_and_no_outputs(stem, lang):
    nb = _nb(lang, stem)
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    answers = [c for c in code if "answer" in c["metadata"].get("tags", [])]
    assert len(answers) >= 2
    for c in answers:  # a checker: computes and asserts the answer, registers it with its tolerance
        assert "assert " in c["source"] and "ws.exercise(" in c["source"] and "tolerance=" in c["source"]
        assert c["metadata"]["jupyter"]["source_hidden"] is True
    exercises = [c for c in code if "exercise" in c["metadata"].get("tags", [])]
    assert len(exercises) == len(answers)
    for c in exercises:  # the student's cell: their variable, read by the check
        assert re.search(r"^(\w+) = None\nws\.check\(\d, \1\)$", c["source"], re.M), c["source"]
    assert all(c["outputs"] == [] and c["execution_count"] is None for c in code)
    assert any("ws.W." in c["source"] and "ws.panel(" in c["source"] for c in code), "an interactive widget"
    for c in code:  # every image carries alt text
        if "figure_html(" in c["source"]:
            assert re.search(r"figure_html\(fig, ws\.t\(", c["source"])


def test_index_links_every_lesson_in_order_and_the_claims():
    cells = json.loads((LESSONS / "index.ipynb").read_text(encoding="utf-8"))["cells"]
    text = "".join(c["source"] for c in cells)
    positions = [text.index(f"en/{stem}.ipynb") for stem in STEMS]
    assert positions == sorted(positions)
    assert all(f"zh/{stem}.ipynb" in text for stem in STEMS)
    assert "../claims.ipynb" in text


@pytest.mark.parametrize("stem", STEMS)
def test_chinese_paragraphs_have_no_soft_line_breaks(stem):
    """A line break inside a Chinese paragraph renders as a stray space between two characters."""
    cjk = "\u3000-\u303f\u4e00-\u9fff\uff00-\uffef"
    for c in _nb("zh", stem)["cells"]:
        if c["cell_type"] == "markdown":
            for para in c["source"].split("\n\n"):
                for a, b in zip(para.split("\n"), para.split("\n")[1:]):
                    if re.match(r"\s*(?:[-*+>|#]|\d+\.)", b):
                        continue  # a list item, table row, heading: a block, not a soft break
                    assert not (re.search(f"[{cjk}]$", a) or re.match(f"[{cjk}]", b)), (stem, a[-20:], b[:20])
