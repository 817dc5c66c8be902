"""Build the workshop notebooks from their text sources in ``notebooks/lessons/src/``.

Run from the repository root after editing a source (``make lessons``)::

    python notebooks/lessons/build_lessons.py

Each lesson is a Jupytext MyST markdown file per language, ``src/NN_name.en.md`` and
``src/NN_name.zh.md``: the prose is plain markdown, each code cell a ```` ```{code-cell} ````
block whose YAML header carries the cell's tags (``setup``, ``answer``, ``exercise``,
``concept``, ``preheat``) and ``jupyter: source_hidden``. With jupytext installed, JupyterLab
opens a source as a notebook (right click, *Open With*, *Jupytext Notebook*) and runs it.
``src/index.md`` and ``src/glossary.md`` are the bilingual index and glossary.

This script writes ``notebooks/lessons/{en,zh}/NN_name.ipynb``, ``index.ipynb`` and
``glossary.ipynb``: nbformat 4.5, no outputs, the kernelspec, a ``lang`` key for a lesson's
language and stable cell ids. ``tests/test_lessons.py`` fails when a committed notebook
differs from what this script writes, and when the two languages of a lesson differ in their
code (the code is the same in both; labels come from ``ws.t(english, chinese)``).
Importing this module writes nothing.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE / "src"
LANGS = ("en", "zh")
KERNEL = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
# the lessons, in order: src/<stem>.<lang>.md -> <lang>/<stem>.ipynb
LESSONS = tuple(sorted({p.name.split(".")[0] for p in SRC.glob("[0-9][0-9]_*.en.md")}))
# bilingual pages: src/<name>.md -> <name>.ipynb
PAGES = ("index", "glossary")


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


def notebook(path: Path, stem: str, lang: str | None) -> dict:
    """The notebook's JSON for the source ``path`` (``lang`` None: a bilingual page)."""
    cells = _cells(path)
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


def outputs() -> dict[Path, str]:
    """Every generated notebook: path -> text."""
    def dump(nb: dict) -> str:
        return json.dumps(nb, ensure_ascii=False, indent=1) + "\n"

    out: dict[Path, str] = {}
    for stem in LESSONS:
        for lang in LANGS:
            out[HERE / lang / f"{stem}.ipynb"] = dump(notebook(SRC / f"{stem}.{lang}.md", stem, lang))
    for name in PAGES:
        if (SRC / f"{name}.md").exists():
            out[HERE / f"{name}.ipynb"] = dump(notebook(SRC / f"{name}.md", name, None))
    return out


def main() -> int:
    for path, text in outputs().items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(path.relative_to(HERE.parents[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
