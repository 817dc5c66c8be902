"""docs/architecture.md's checkable statements agree with the code (CodeCarbon keeps such drift tests).

The layer list of the architecture page and the import-linter contracts of ``pyproject.toml`` (run by
``make lint``) name the same layers in the same order, and the contracts do fail on an upward import. The
page's other checkable statements are checked too: every path and dotted name it gives exists, the model
imports only numpy, no pyplot in library code and no widgets in plots, the analysis names load lazily, the
charts' interface, the CLI's options from ``field_spec``, a control from one ``Binding`` line (a choice with
its options in it), and the app notebook's order. No test file builds an app outside ``conftest.app_factory``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

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
        names -= {"explorer.hosting", "explorer.data", "explorer.notebooks"}  # hosting: its own contract; the rest: no module
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
    assert "3 kept, 0 broken" in clean.stdout
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


# --- the page's other checkable statements -----------------------------------------------------------------------

PAGE = ROOT / "docs" / "architecture.md"


def _page() -> str:
    return PAGE.read_text(encoding="utf-8")


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports, at any depth of its code (function-level imports too)."""
    import ast

    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
    return found


def _package_files(*parts: str) -> list[Path]:
    base = ROOT.joinpath("explorer", *parts)
    return sorted(base.rglob("*.py")) if base.is_dir() else [base.with_suffix(".py")]


def test_every_path_the_page_names_exists():
    paths = set(re.findall(r"`((?:explorer|tests|docs|notebooks|deploy)/[\w/.\-]*\w/?)`", _page()))
    paths |= set(re.findall(r"^((?:explorer|notebooks|deploy)/[\w/.\-]*\w/?)\s", _page(), re.M))  # the layer list
    paths = {p for p in paths if not p.startswith("docs/_build/")}  # what `make docs` writes
    missing = sorted(p for p in paths if not (ROOT / p).exists())
    assert len(paths) > 40 and not missing, missing


def test_every_dotted_name_the_page_names_resolves():
    import importlib

    names = set(re.findall(r"`(explorer(?:\.\w+)+)(?:\(\))?`", _page()))
    unresolved = []
    for name in sorted(names):
        parts = name.split(".")
        for cut in range(len(parts), 0, -1):  # the longest importable module, then attributes
            try:
                obj = importlib.import_module(".".join(parts[:cut]))
            except ModuleNotFoundError:
                continue
            try:
                for attr in parts[cut:]:
                    obj = getattr(obj, attr)
            except AttributeError:
                unresolved.append(name)
            break
        else:
            unresolved.append(name)
    assert len(names) >= 3 and not unresolved, unresolved


def test_the_model_knows_only_numpy():
    """"explorer.model imports no pandas, matplotlib or widgets, so it can be imported fast"."""
    assert "imports no pandas, matplotlib or widgets" in _page()
    heavy = ("pandas", "matplotlib", "ipywidgets", "ipympl", "anywidget")
    written = {str(p.relative_to(ROOT)): sorted(m for m in _imports(p) if m.split(".")[0] in heavy)
               for p in _package_files("model")}
    assert not any(written.values()), written
    code = ("import sys, explorer.model, explorer\nexplorer.estimate(explorer.Scenario())\n"
            f"print(sorted(m for m in {heavy!r} if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert loaded.returncode == 0, loaded.stderr
    assert loaded.stdout.strip() == "[]", loaded.stdout  # nothing heavy loaded on the way either


def test_the_package_loads_the_analysis_names_lazily():
    """"explorer/__init__.py loads the analysis names (compare, attribute, simulate, ...) lazily"."""
    code = ("import sys, explorer\nbefore = 'explorer.analysis' in sys.modules\nexplorer.compare\n"
            "print(before, 'explorer.analysis' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.stdout.split() == ["False", "True"], out.stdout + out.stderr


def test_no_pyplot_in_library_code_and_plots_know_nothing_of_widgets():
    pyplot = {str(p.relative_to(ROOT)) for p in _package_files() if "matplotlib.pyplot" in _imports(p)
              or re.search(r"\bpyplot\b", "\n".join(_imports(p)))}
    assert not pyplot, pyplot
    widgets = {str(p.relative_to(ROOT)): sorted(m for m in _imports(p)
                                                if m.split(".")[0] in ("ipywidgets", "ipympl", "anywidget"))
               for p in _package_files("plots")}
    assert not any(widgets.values()), widgets
    assert "no pyplot" in _page() and "Plots know nothing of widgets" in _page()


def test_each_chart_of_the_app_has_the_interface_the_page_names():
    """"Each chart is a class that owns one Figure, with update(...), redraw() and set_language(...)"."""
    from explorer.plots.analysis import CompareBarsPlot, LeverWaterfallPlot, SimulationPlot, TornadoPlot
    from explorer.plots.breakdown import BreakdownPlot, WaterfallPlot
    from explorer.plots.history import HistoryPlot

    for cls in (BreakdownPlot, WaterfallPlot, TornadoPlot, LeverWaterfallPlot, CompareBarsPlot, SimulationPlot):
        assert all(callable(getattr(cls, m, None)) for m in ("update", "redraw", "set_language")), cls
    # the history chart is moved by its marker (mark), as the page says under "One control change"
    assert all(callable(getattr(HistoryPlot, m, None)) for m in ("mark", "redraw", "set_language", "relayout"))
    assert "`HistoryPlot.mark`" in _page()


def test_the_cli_reads_each_scenario_fields_range_and_choices_from_field_spec():
    """"The range of a scenario field is declared once (field_spec), and the app, the query string and the CLI
    all read it from there": the CLI has one option per field, with field_spec's choices and range."""
    import argparse
    import dataclasses

    from explorer import Scenario
    from explorer.cli import _ALIASES, _parser
    from explorer.scenario import field_spec

    estimate = next(a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction)).choices["estimate"]
    actions = {a.dest: a for a in estimate._actions}
    for f in dataclasses.fields(Scenario):
        spec = field_spec(f.name)
        action = actions[_ALIASES.get(f.name, f.name)]
        if spec.get("kind") == "choice":
            assert list(action.choices) == list(spec["choices"]), f.name
        elif spec.get("kind") in ("float", "int"):
            assert f"{spec['min']:g}, {spec['max']:g}]" in action.help, (f.name, action.help)


def test_a_control_is_one_binding_line_even_a_choice(make_app, monkeypatch):
    """The page's "A new control in the app" row: one Binding line and its label, a choice or toggle with its
    options in that line. Scenario fields the app does not show yet become working controls by Binding lines
    alone: a number box, and a choice from the field's own choices (``field_spec``), built, read into the
    scenario and written back from it, with no other code."""
    from explorer.app import bindings
    from explorer.app.bindings import BINDINGS, Binding
    from explorer.scenario import field_spec

    row = "| A new control in the app |"
    text = next(line for line in _page().splitlines() if line.startswith(row))
    assert "one `Binding` line" in text and "carries its options in that line" in text
    assert "ExplorerApp._options" not in text  # no branch anywhere else

    number, choice = "other_losses_factor", "recompute"  # Scenario fields with no control
    assert not {number, choice} & {b.name for b in BINDINGS}
    added = (*BINDINGS, Binding(number, "optional", "advanced"), Binding(choice, "choice", "advanced"))
    monkeypatch.setattr(bindings, "BINDINGS", added)
    app = make_app()
    before = app.estimate.total_usd
    app.controls[number].set_state({"value": "1.5"})  # what a browser edit sends
    assert app.error == "" and app.scenario.other_losses_factor == 1.5
    assert app.estimate.total_usd > before  # more billed time beyond failures costs more
    assert f"{number}=1.5" in app.share_query()  # the share link follows the dataclass

    widget = app.controls[choice]  # appeared, with the field's choices
    assert [v for _, v in widget.options] == list(field_spec(choice)["choices"])
    assert widget.value == app.scenario.recompute == "auto"  # written from the scenario (issue 38's default)
    widget.value = "full"  # read into it: full recomputation runs the forward pass again
    assert app.error == "" and app.scenario.recompute == "full"
    assert f"{choice}=full" in app.share_query()
    app.set_scenario(app.scenario.replace(recompute="none"))
    assert widget.value == "none"
    app.controls["language"].value = "zh"  # relabelled with the rest, when its group opens
    app.groups.selected_index = list(bindings.GROUPS).index("advanced")
    assert "激活重计算" in app.rows[choice].caption.value and widget.value == "none" and app.error == ""


def test_each_choice_binding_carries_its_options(make_app):
    """Every choice and toggle of the table has options in both languages from its own Binding line; the
    precision options depend on the panel state (the accelerator chosen)."""
    from explorer import catalog
    from explorer.app.bindings import BINDINGS, binding

    values = {"gpu": "a100-80gb", "pricing": "on_demand"}
    for b in BINDINGS:
        if b.kind in ("choice", "toggle"):
            for language in ("en", "zh"):
                assert b.option_list(language, values), (b.name, language)
    a100 = [v for _, v in binding("precision").option_list("en", {"gpu": "a100-80gb"})]
    h100 = [v for _, v in binding("precision").option_list("en", {"gpu": "h100-sxm"})]
    assert a100 == list(catalog.accelerator("a100-80gb").precisions) and "fp8" not in a100 and "fp8" in h100


def test_a_choice_binding_of_no_choice_field_needs_its_options(make_app, monkeypatch):
    """A choice without options that is no choice field of Scenario: the panel says which binding, on build."""
    from explorer.app import bindings
    from explorer.app.bindings import BINDINGS, Binding

    monkeypatch.setattr(bindings, "BINDINGS", (*BINDINGS, Binding("mfu", "choice", "advanced")))
    with pytest.raises(ValueError, match="binding mfu: a choice or toggle that is no choice field"):
        make_app()


def test_the_app_notebook_builds_the_app_then_applies_the_request():
    """"explorer/notebooks/explorer.ipynb builds the app with take_app() and then calls
    app.apply_query(request_query_string())" (a preheated kernel runs it before the request arrives), and
    take_app builds it with an empty query string (or takes the one the template built so)."""
    import inspect
    import json

    from explorer.app import prebuilt

    cells = json.loads((ROOT / "explorer" / "notebooks" / "explorer.ipynb").read_text(encoding="utf-8"))["cells"]
    code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    built, applied = code.find("app = take_app()"), code.find("app.apply_query(request_query_string())")
    assert 0 <= built < applied, code
    assert "builds the app with `take_app()`" in _page()
    empty = "ExplorerApp" + '(query_string="")'  # spelt in two parts: no test file builds an app but conftest
    source = inspect.getsource(prebuilt)
    # every app built there (prebuild's, take_app's and its fallback's) has the empty query string
    assert source.count(empty) >= 2 and source.count(empty) == source.count("ExplorerApp" + "(")


def test_one_error_to_viewer_wrapper():
    """docs/architecture.md: an unforeseen error in a callback goes through ``errors_to_viewer`` only (issue 29
    item 3: the wrapper was written 15 times); a bare ``except Exception`` that builds ``app_error`` elsewhere in
    the app would be a second copy."""
    import re
    from pathlib import Path

    app = Path(__file__).resolve().parents[1] / "explorer" / "app"
    copies = [f"{path.name}:{i}" for path in sorted(app.rglob("*.py")) if path.name != "guard.py"
              for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
              if re.search(r'Message\("app_error"', line)]
    assert copies == [], copies


def test_the_chart_render_state_machine_and_the_callback_guard_are_written_once():
    """docs/architecture.md, "One chart": the states of a chart (shown, deferred, revealed) are kept by
    ``ChartSurface`` only (and the canvas itself, ``ipympl_private``); a tab's guarded callback (``_safely``) is
    ``LazyTab``'s only (issue 29 item 3: the analysis views and What if kept their own flags)."""
    import re
    from pathlib import Path

    app = Path(__file__).resolve().parents[1] / "explorer" / "app"
    texts = {path.name: path.read_text(encoding="utf-8") for path in sorted(app.rglob("*.py"))}
    touching = sorted(name for name, text in texts.items() if name not in ("surface.py", "ipympl_private.py")
                      and re.search(r"\.reveal\(|\.shown\s*=[^=]|\.deferred\b", text))
    assert touching == [], touching
    guards = sorted(name for name, text in texts.items() if re.search(r"def _safely\(", text))
    assert guards == ["lazy_tab.py"], guards
    assert "`ChartSurface.of(figure, redraw)`" in _page() and "`LazyTab`" in _page()


def test_hosting_is_laid_out_as_the_processes_table_says():
    """Each module of the Processes table's server row is in ``explorer/hosting/server/`` (or named as one of
    ``explorer/hosting/``'s own), each of the template and kernel rows in ``explorer/hosting/kernel/``, and every
    module of those two folders is in its row (issue 39: ``hosting/`` laid out by process)."""
    section = _page().split("## Processes", 1)[1].split("\n## ", 1)[0]
    rows = [line.split(" | ") for line in section.splitlines() if line.startswith("| ") and "`explorer/hosting/" in line]
    assert len(rows) == 3, rows
    hosting = ROOT / "explorer" / "hosting"
    for _process, _started, folder, modules in rows:
        where = ROOT / folder.strip("` ")
        own, _, shared = modules.partition("from `explorer/hosting/`:")
        named = set(re.findall(r"`(\w+)\.py`", _hosting_part(own)))
        assert where.parent == hosting and named, (folder, modules)
        assert not [m for m in named if not (where / f"{m}.py").is_file()], (folder, named)
        assert not [m for m in re.findall(r"`(\w+)\.py`", shared) if not (hosting / f"{m}.py").is_file()], shared
    in_rows = {folder.strip("` "): set() for _p, _s, folder, _m in rows}
    for _process, _started, folder, modules in rows:
        in_rows[folder.strip("` ")] |= set(re.findall(r"`(\w+)\.py`", _hosting_part(modules)))
    for folder, named in in_rows.items():
        files = {p.stem for p in (ROOT / folder).glob("*.py") if p.stem != "__init__"}
        assert files == named, (folder, sorted(files ^ named))
    assert {p.stem for p in hosting.glob("*.py")} == {"__init__", "__main__", "commands", "upstream_names"}


def _hosting_part(modules: str) -> str:
    """A Processes row's modules up to the shared ones (``from explorer/hosting/:``) or the app's (``then ...``)."""
    return re.split(r"from `explorer/hosting/`:|then ", modules)[0]
