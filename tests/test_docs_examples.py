"""Every printed example in the documents runs and prints what the document shows (issue 40).

A fenced block that starts with ``$ python -m explorer ...`` or ``$ llm-cost-explorer ...`` is run as a user would
run it (a subprocess, from the checkout); each line the document prints after the command must appear in the real
output (standard output, then standard error), in order, and ``...`` stands for lines left out. A ``python`` block is
executed, so an example that no longer runs fails here (a sketch that needs a value of the reader's own is marked
``<!-- not run: ... -->`` just above its fence). The blocks between ``figures:`` markers are also rewritten by
``make figures``; this test catches the hand-written ones and an output the generator would leave stale.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys

import matplotlib
import pytest

from conftest import ROOT

DOCUMENTS = (ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md")))
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


def _blocks(kind: str) -> list[tuple[str, str]]:
    """(``document:line``, text) of every fenced block of ``kind`` ("shell": a ``$`` command; "python")."""
    out = []
    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            where = f"{document.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}"
            body = m.group(2)
            if re.search(r"<!-- not run: [^>]*-->\s*$", text[:m.start()]):
                continue  # a sketch with a value of the reader's own to fill in
            if kind == "python" and m.group(1) == "python":
                out.append((where, body))
            elif kind == "shell" and re.match(r"\$ (python -m explorer|llm-cost-explorer) ", body):
                out.append((where, body))
    return out


def _expected_in_order(expected: list[str], actual: list[str]) -> str | None:
    """None when every expected line appears in ``actual`` in order (``...`` skips lines), else the first missing."""
    position, skipping = 0, False
    for line in expected:
        if line.strip() == "...":
            skipping = True
            continue
        found = next((i for i in range(position, len(actual)) if actual[i].rstrip() == line.rstrip()), None)
        if found is None or (not skipping and found != position):
            return line
        position, skipping = found + 1, False
    return None


def test_the_documents_hold_examples():
    assert len(_blocks("shell")) >= 5 and len(_blocks("python")) >= 5


@pytest.mark.parametrize(("where", "block"), _blocks("shell"), ids=[w for w, _ in _blocks("shell")])
def test_a_printed_command_prints_what_the_document_shows(where, block):
    command, *expected = block.rstrip("\n").split("\n")
    args = shlex.split(command[2:])
    args = [sys.executable, "-m", "explorer", *args[3:]] if args[:3] == ["python", "-m", "explorer"] else \
        [sys.executable, "-m", "explorer", *args[1:]]
    env = {**os.environ, "COLUMNS": "120"}
    result = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)
    actual = (result.stdout + result.stderr).splitlines()
    missing = _expected_in_order(expected, actual)
    assert missing is None, f"{where}: {missing!r} is not in the output of {command!r}:\n" + "\n".join(actual)


def test_the_order_check_refuses_what_is_not_printed():
    assert _expected_in_order(["a", "...", "c"], ["a", "b", "c"]) is None
    assert _expected_in_order(["a", "c"], ["a", "b", "c"]) == "c"  # no "..." between: the lines follow each other
    assert _expected_in_order(["a", "x"], ["a", "b"]) == "x"


@pytest.mark.parametrize(("where", "block"), _blocks("python"), ids=[w for w, _ in _blocks("python")])
def test_a_python_example_runs(where, block, monkeypatch, tmp_path):
    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)  # an example that writes a file writes it here
    exec(compile(block, where, "exec"), {"__name__": "__docs__"})  # noqa: S102 - the document's own example


def test_every_relative_link_and_image_in_the_documents_exists():
    broken = []
    for document in DOCUMENTS:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", document.read_text(encoding="utf-8")):
            if "://" not in target and not (document.parent / target).exists():
                broken.append(f"{document.relative_to(ROOT)} -> {target}")
    assert not broken, broken
