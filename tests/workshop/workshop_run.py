"""Run a lesson notebook in this process, as a student would in JupyterLab (helpers for the workshop tests)."""

from __future__ import annotations

import contextlib
import io
import json
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LESSONS = ROOT / "explorer" / "notebooks" / "lessons"

# what a student may well write in an exercise cell: the names the lessons used as helpers before v2
SHADOW = "t = 2e12\nW = 0.0508\ne = 2.718\nanswer = 42\npanel = table = money = reveal = None\n"


def cells(lang: str, stem: str) -> list[dict]:
    nb = json.loads((LESSONS / lang / f"{stem}.ipynb").read_text(encoding="utf-8"))
    return [c for c in nb["cells"] if c["cell_type"] == "code"]


def run(lang: str, stem: str, *, shadow: bool = True, answers: dict | None = None) -> dict:
    """Execute every code cell in one namespace; returns it.

    ``shadow`` runs :data:`SHADOW` after the setup cell and after each exercise cell.
    ``answers`` maps an exercise's variable name to the text a student types in place of ``None``.
    """
    ns: dict = {"__name__": "__main__"}
    here = os.getcwd()
    os.chdir(LESSONS / lang)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            for c in cells(lang, stem):
                src = c["source"]
                tags = c["metadata"].get("tags", [])
                if ("exercise" in tags or "concept" in tags or "capstone" in tags) and answers:
                    for var, text in answers.items():
                        src = src.replace(f"\n{var} = None\n", f"\n{var} = {text}\n")
                exec(compile(src, f"<{lang}/{stem}>", "exec"), ns)
                if shadow and ("setup" in tags or "exercise" in tags):
                    exec(SHADOW, ns)
    finally:
        os.chdir(here)
    return ns
