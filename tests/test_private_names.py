"""No module imports another module's private name (issue 40: "no private name imported across modules").

A name that one module needs from another is public in its home module (no leading underscore) and documented
there; a name that starts with ``_`` is used only where it is defined. Checked over the package's source, with the
standard library's parser: ``from explorer.x import _name`` and ``module._name`` for an imported ``explorer`` module.
"""

from __future__ import annotations

import ast

from conftest import ROOT


def _private_imports(tree: ast.AST) -> list[tuple[int, str]]:
    found, modules = [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("explorer"):
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append((node.lineno, f"from {node.module} import {alias.name}"))
                else:
                    modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("explorer"):
                    modules[alias.asname or alias.name.split(".")[0]] = alias.name
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
                and isinstance(node.value, ast.Name) and node.value.id in modules):
            found.append((node.lineno, f"{node.value.id}.{node.attr}"))
    return found


def test_no_module_imports_a_private_name_of_another():
    found = [f"{path.relative_to(ROOT)}:{line}: {what}" for path in sorted((ROOT / "explorer").rglob("*.py"))
             for line, what in _private_imports(ast.parse(path.read_text(encoding="utf-8")))]
    assert not found, "\n".join(found)


def test_the_check_sees_both_forms():
    source = "from explorer.analysis.levers import _atoms\nfrom explorer import history\nhistory._error(1)\n"
    assert [what for _, what in _private_imports(ast.parse(source))] == [
        "from explorer.analysis.levers import _atoms", "history._error"]
