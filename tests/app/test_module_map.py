"""Issue 40, "a structure a newcomer reads": docs/architecture.md's entry for ``explorer/app/`` names every module of
the app, each once, and no module that is not there; so a module moved, added or split shows up on the page a
newcomer reads first (the Processes table is checked the same way for ``explorer/hosting/``)."""

from __future__ import annotations

import re

from conftest import ROOT


def _app_entry() -> str:
    """The ``explorer/app/`` entry of the page's "Where things are": its line and the indented lines under it."""
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    block = page.split("## Where things are", 1)[1].split("```", 2)[1]
    lines = block.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("explorer/app/"))
    entry = [lines[start]]
    for line in lines[start + 1:]:
        if not line.startswith(" "):
            break
        entry.append(line)
    return " ".join(entry)


def test_the_architecture_page_names_every_module_of_the_app_once():
    entry = _app_entry()
    named = re.findall(r"\b(\w+)\.py\b", entry)
    app = ROOT / "explorer" / "app"
    modules = sorted(p.name for p in app.rglob("*.py") if p.stem != "__init__")
    assert sorted(f"{n}.py" for n in set(named)) == modules
    assert len(named) == len(set(named)), sorted(n for n in set(named) if named.count(n) > 1)
    # the folders' modules under their folder's name: tabs/ (...), pages/ (...)
    for folder in ("tabs", "pages"):
        part = entry.split(f"{folder}/ (", 1)[1]
        inside = set(re.findall(r"\b(\w+)\.py\b", part[:part.index(");") if ");" in part else len(part)]))
        assert {p.stem for p in (app / folder).glob("*.py") if p.stem != "__init__"} <= inside, folder
