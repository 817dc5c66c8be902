"""The guide's agendas fit the notebooks' own "time to learn" and end when they say.

Reads the two agenda tables of docs/workshop.md (time, block, minutes, notebook) and the "Time to learn" line
of each lesson source (English and Chinese). Each block must start when the previous one ends, the last row
must be the agenda's length, and a block that teaches a notebook must last at least the upper end of that
notebook's stated time.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "explorer" / "notebooks" / "lessons" / "src"
GUIDE = (ROOT / "docs" / "workshop.md").read_text(encoding="utf-8")


def _stated_minutes(stem: str, lang: str) -> int:
    """The upper end of a notebook's "Time to learn" (``20–25 minutes`` -> 25)."""
    text = (SRC / f"{stem}.{lang}.md").read_text(encoding="utf-8")
    line = re.search(r"\*\*(?:Time to learn|学习时间)\*\*[:：]\s*([0-9–-]+)", text)
    assert line, (stem, lang)
    return int(re.split(r"[–-]", line.group(1))[-1])


def _agenda(title: str) -> list[tuple[int, str, int | None, str]]:
    section = GUIDE[GUIDE.index(f"### {title}"):]
    section = section[:section.index("\n### ", 1)]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and re.fullmatch(r"\d:\d\d", cells[0]):
            h, m = cells[0].split(":")
            rows.append((int(h) * 60 + int(m), cells[1], int(cells[2]) if cells[2] else None, cells[3]))
    return rows


@pytest.mark.parametrize("title, length", [("3 hours (one break)", 180), ("2 hours (no break)", 120)])
def test_agenda_adds_up_and_fits_the_stated_times(title, length):
    rows = _agenda(title)
    assert rows and rows[0][0] == 0 and rows[-1][0] == length and rows[-1][1] == "End", rows[-1]
    for (start, block, minutes, _), (next_start, *_) in zip(rows, rows[1:]):
        assert start + minutes == next_start, (title, block)
    taught = 0
    for _, block, minutes, notebook in rows:
        stem = re.search(r"`(0\d_[a-z_]+|capstone)`", notebook)
        if stem:
            for lang in ("en", "zh"):
                assert minutes >= _stated_minutes(stem.group(1), lang), (title, block, minutes)
            taught += 1
    assert taught >= 4  # at least three lessons and the capstone


def test_capstone_states_the_time_the_agendas_give_it():
    assert _stated_minutes("capstone", "en") == _stated_minutes("capstone", "zh") == 30
    for title in ("3 hours (one break)", "2 hours (no break)"):
        capstone = [r for r in _agenda(title) if "`capstone`" in r[3]]
        assert [r[2] for r in capstone] == [30], title
        assert "20 min" in capstone[0][1] and "10 min" in capstone[0][1]
