"""Build the workshop notebooks from their text sources in ``explorer/notebooks/lessons/src/``.

Run from the repository root after editing a source (``make lessons``)::

    python explorer/notebooks/lessons/build_lessons.py

Each lesson is a Jupytext MyST markdown file per language, ``src/NN_name.en.md`` and
``src/NN_name.zh.md``: the prose is plain markdown, each code cell a ```` ```{code-cell} ````
block whose YAML header carries the cell's tags (``setup``, ``answer``, ``exercise``,
``concept``, ``preheat``) and ``jupyter: source_hidden``. With jupytext installed, JupyterLab
opens a source as a notebook (right click, *Open With*, *Jupytext Notebook*) and runs it.
``src/capstone.{en,zh}.md`` is the capstone exercise, ``src/index.md`` the bilingual index, and
``src/glossary.csv`` the bilingual glossary's terms (a row naming a ``label`` takes its term and
definition from the ``glossary_<label>`` rows of ``explorer/data/labels.csv``, which the app shows).

This script writes ``explorer/notebooks/lessons/{en,zh}/NN_name.ipynb``, ``{en,zh}/capstone.ipynb``,
``index.ipynb`` and ``glossary.ipynb``: nbformat 4.5, no outputs, the kernelspec, a ``lang`` key for a lesson's
language and stable cell ids. ``tests/workshop/test_lessons.py`` fails when a committed notebook
differs from what this script writes, and when the two languages of a lesson differ in their
code (the code is the same in both; labels come from ``ws.t(english, chinese)``).
Importing this module writes nothing.
"""

from __future__ import annotations

import csv
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE / "src"
LANGS = ("en", "zh")
KERNEL = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
# the lessons, in order: src/<stem>.<lang>.md -> <lang>/<stem>.ipynb
LESSONS = tuple(sorted({p.name.split(".")[0] for p in SRC.glob("[0-9][0-9]_*.en.md")}))
# pages in each language that are not numbered lessons: src/<name>.<lang>.md -> <lang>/<name>.ipynb
EXTRAS = ("capstone",)
LABELS = HERE.parents[2] / "explorer" / "data" / "labels.csv"


def _cells(path: Path) -> list[dict]:
    """The cells of a MyST source, as nbformat dicts without outputs (the id is set later)."""
    import jupytext

    nb = jupytext.read(path, fmt="md:myst")
    cells = []
    for c in nb.cells:
        meta = dict(c.metadata)
        if c.cell_type == "markdown":
            cells.append({"cell_type": "markdown", "metadata": meta, "source": c.source})
        else:
            cells.append({"cell_type": "code", "execution_count": None, "metadata": meta, "outputs": [],
                          "source": c.source})
    return cells


def notebook(path: Path | list, stem: str, lang: str | None) -> dict:
    """The notebook's JSON for the source ``path`` or a list of cells (``lang`` None: a bilingual page)."""
    cells = _cells(path) if isinstance(path, Path) else path
    for i, cell in enumerate(cells):
        cell["id"] = f"{stem[:12]}-{i:02d}"
    return {
        "cells": [_ordered(c) for c in cells],
        "metadata": {"kernelspec": KERNEL, "language_info": {"name": "python"},
                     **({"lang": "zh-Hans" if lang == "zh" else "en"} if lang else {})},
        "nbformat": 4, "nbformat_minor": 5,
    }


def _ordered(cell: dict) -> dict:
    keys = ("cell_type", "execution_count", "metadata", "outputs", "source", "id")
    return {k: cell[k] for k in keys if k in cell}


def title(stem: str, lang: str) -> str:
    """A lesson's title: the first heading of its source."""
    text = (SRC / f"{stem}.{lang}.md").read_text(encoding="utf-8")
    heading = re.search(r"^# (.+)$", text, re.M)
    if heading is None:
        raise ValueError(f"{stem}.{lang}.md has no '# ' heading to take its title from")
    return heading.group(1).strip()


def glossary() -> list[dict]:
    """The terms of ``src/glossary.csv``, one markdown cell per lesson, English and Chinese side by side."""
    with open(LABELS, encoding="utf-8", newline="") as f:
        labels = {r["key"]: r for r in csv.DictReader(f)}
    with open(SRC / "glossary.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    head = labels["glossary"]
    cells = [{"cell_type": "markdown", "metadata": {}, "source": (
        f"# {head['en']} · {head['zh']}\n\n"
        "The terms of the six lessons, in English and Simplified Chinese, each with a one-line "
        "definition, in the order the lessons introduce them.\n\n"
        "六节课中的术语，中英对照，每个附一句话定义，按课程中出现的顺序排列。")}]
    lessons = dict(enumerate(LESSONS, 1))
    for n, stem in lessons.items():
        items = []
        for r in (r for r in rows if int(r["lesson"]) == n):
            if r["label"]:
                k = f"glossary_{r['label']}"
                term = (labels[k + "_term"]["en"], labels[k + "_term"]["zh"])
                text = (labels[k]["en"], labels[k]["zh"])
            else:
                term, text = (r["term_en"], r["term_zh"]), (r["definition_en"], r["definition_zh"])
            items.append(f"- **{term[0]}** · **{term[1]}**<br>{text[0]}<br>{text[1]}")
        cells.append({"cell_type": "markdown", "metadata": {}, "source": (
            f"## {n}. [{title(stem, 'en')}](en/{stem}.ipynb) · [{title(stem, 'zh')}](zh/{stem}.ipynb)\n\n"
            + "\n".join(items))})
    return cells


def outputs() -> dict[Path, str]:
    """Every generated notebook: path -> text."""
    def dump(nb: dict) -> str:
        return json.dumps(nb, ensure_ascii=False, indent=1) + "\n"

    out: dict[Path, str] = {}
    for stem in LESSONS + EXTRAS:
        for lang in LANGS:
            out[HERE / lang / f"{stem}.ipynb"] = dump(notebook(SRC / f"{stem}.{lang}.md", stem, lang))
    out[HERE / "index.ipynb"] = dump(notebook(SRC / "index.md", "index", None))
    out[HERE / "glossary.ipynb"] = dump(notebook(glossary(), "glossary", None))
    return out


def main() -> int:
    for path, text in outputs().items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(path.relative_to(HERE.parents[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
