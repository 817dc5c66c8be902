"""docs/architecture.md's checkable statements agree with the code (CodeCarbon keeps such drift tests).

The layer list of the architecture page and the import-linter contracts of ``pyproject.toml`` (run by
``make lint``) name the same layers in the same order, and the contracts do fail on an upward import.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _contracts() -> list[dict]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]


def _page_layers() -> list[set[str]]:
    """The layers of the architecture page's code block, top to bottom, each a set of dotted module names."""
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    block = page.split("## Layers", 1)[1].split("```", 2)[1]
    layers = []
    for line in block.splitlines():
        names = {"explorer." + m for m in re.findall(r"explorer/(\w+)(?:\.py|/|\b)", line)}
        names -= {"explorer.hosting", "explorer.data"}  # hosting has its own contract; data is no module
        if names:
            layers.append(names)
    return layers


def test_the_page_and_the_contract_list_the_same_layers_in_order():
    layers = next(c for c in _contracts() if c["type"] == "layers")["layers"]
    assert [set(layer.split(" | ")) for layer in layers] == _page_layers()


def test_hosting_may_import_no_other_layer():
    forbidden = next(c for c in _contracts() if c.get("source_modules") == ["explorer.hosting"])
    assert set(forbidden["forbidden_modules"]) == set().union(*_page_layers())
    # and every module of the package is in a layer or is hosting
    modules = {"explorer." + p.stem if p.is_file() else "explorer." + p.name
               for p in (ROOT / "explorer").iterdir()
               if (p.suffix == ".py" and not p.stem.startswith("__")) or (p / "__init__.py").is_file()}
    assert modules - {"explorer.hosting"} == set().union(*_page_layers())


def _lint_imports(tree: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(tree))  # the copy is found before the editable install
    return subprocess.run([str(LINT_IMPORTS), "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
                          cwd=tree, env=env, capture_output=True, text=True, timeout=600)


def test_lint_imports_passes_on_the_tree_and_fails_on_an_upward_import(tmp_path):
    tree = tmp_path / "src"
    shutil.copytree(ROOT / "explorer", tree / "explorer", ignore=shutil.ignore_patterns("data", "__pycache__"))
    clean = _lint_imports(tree)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "2 kept, 0 broken" in clean.stdout
    with (tree / "explorer" / "text.py").open("a", encoding="utf-8") as f:
        f.write("\n\ndef _upward():\n    from explorer.catalog import read_csv  # noqa\n    return read_csv\n")
    broken = _lint_imports(tree)
    assert broken.returncode != 0
    assert "explorer.text -> explorer.catalog" in broken.stdout, broken.stdout


def test_tests_build_apps_only_through_make_app():
    """An app holds about 300 widgets and its figures: built outside ``tests/conftest.py``'s ``app_factory``
    (the ``make_app`` fixture), nothing closes them and a long run keeps every test's app alive."""
    found = [f"{path.relative_to(ROOT)}:{n}" for path in sorted((ROOT / "tests").rglob("*.py"))
             if path.name != "conftest.py"
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if re.search(r"\bExplorerApp\(", line)]
    assert found == [], "build apps with the make_app fixture (tests/conftest.py): " + ", ".join(found)
