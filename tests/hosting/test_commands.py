"""``llm-cost-explorer app | workshop | lab`` (explorer/hosting/commands.py): what each passes to its server.

No server is started here: ``_serve`` is replaced by a recorder. tests/hosting/test_installed_wheel.py serves the
app from an installed wheel; tests/hosting/test_workshop_server.py serves the workshop as `make workshop` sizes it.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from conftest import ROOT, run_cli
from explorer.hosting import commands


@pytest.fixture
def served(monkeypatch):
    """The argv each command would start the server with (the server is not started)."""
    calls: list[list[str]] = []
    monkeypatch.setattr(commands, "_serve", lambda argv: calls.append(argv) or 0)
    return calls


def test_the_served_notebooks_and_settings_are_in_the_package():
    assert commands.APP_NOTEBOOK.is_file() and commands.ANALYST_NOTEBOOK.is_file()
    for lesson in commands.FIRST_LESSONS:
        assert (commands.NOTEBOOKS / lesson).is_file(), lesson
    assert (commands.NOTEBOOKS / "claims.ipynb").is_file()
    settings = json.loads((ROOT / "explorer" / "hosting" / "voila.json").read_text())
    assert settings["KernelProvisionerFactory"]["default_provisioner_name"] == "explorer-fork"


def test_app_passes_what_make_app_passed(served):
    assert run_cli("app").returncode == 0
    assert served[-1] == [str(commands.APP_NOTEBOOK), "--Voila.ip=127.0.0.1", "--port=8866", "--no-browser"]
    assert run_cli("app", "--port", "0", "--pool", "30").returncode == 0
    assert served[-1][1:] == ["--Voila.ip=127.0.0.1", "--port=0", "--no-browser", "--pool_size=30",
                              "--VoilaKernelManager.fill_delay=60"]


def test_options_the_command_does_not_know_go_to_the_server(served):
    assert run_cli("app", "--ip=0.0.0.0", "--ExplorerVoila.max_kernels=20").returncode == 0
    assert "--Voila.ip=0.0.0.0" in served[-1] and served[-1][-1] == "--ExplorerVoila.max_kernels=20"
    result = run_cli("workshop", "--class", "4", "--ExplorerVoila.seats_per_address=0")
    assert result.returncode == 0 and served[-1][-1] == "--ExplorerVoila.seats_per_address=0"
    assert "Sized for a class of 4: 2 preheated kernels per first lesson, at most 8 viewers' kernels" in result.stdout
    # the model's commands still refuse an option they do not know, in one line
    result = run_cli("estimate", "--ExplorerVoila.max_kernels=20")
    assert result.returncode == 2 and "unrecognized arguments: --ExplorerVoila.max_kernels=20" in result.stderr


def test_make_app_is_a_thin_call_of_the_command():
    out = subprocess.run(["make", "-n", "--no-print-directory", "app", "POOL=30"], cwd=ROOT, capture_output=True,
                         text=True, timeout=120).stdout
    assert out.strip().splitlines()[-1].endswith("llm-cost-explorer app --port 8866 --pool 30")


@pytest.mark.parametrize("argv0, prog", [("/venv/bin/llm-cost-explorer", "llm-cost-explorer"),
                                         (str(ROOT / "explorer" / "__main__.py"), "python -m explorer")])
def test_help_names_the_command_the_user_typed(monkeypatch, argv0, prog):
    monkeypatch.setattr(sys, "argv", [argv0])
    result = run_cli("app", "--help")
    assert result.returncode == 0 and result.stdout.startswith(f"usage: {prog} app ")
    assert f"(see {prog} estimate --help)" in run_cli("estimate", "--gpus", "x").stderr


def test_lab_without_jupyterlab_says_so_in_one_line(monkeypatch, tmp_path):
    real = commands.importlib.util.find_spec
    monkeypatch.setattr(commands.importlib.util, "find_spec", lambda name: None if name == "jupyterlab" else real(name))
    result = run_cli("lab", "--dir", str(tmp_path))
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "pip install 'llm-cost-explorer[lab]'" in result.stderr
    assert list(Path(tmp_path).iterdir()) == []  # nothing copied when nothing can open it


def test_kit_writes_the_lecturers_kit_and_refuses_what_it_does_not_know(tmp_path):
    result = run_cli("kit", "--out", str(tmp_path / "kit"), "--class-url", "https://class.example.org/x")
    assert result.returncode == 0, result.stderr
    handout = (tmp_path / "kit" / "handout.zh.html").read_text(encoding="utf-8")
    assert "https://class.example.org/x" in handout and 'lang="zh-Hans"' in handout
    assert (tmp_path / "kit" / "answer_key.en.html").is_file()
    result = run_cli("kit", "--pool", "3")
    assert result.returncode == 2 and "kit does not take '--pool 3'" in result.stderr
    out = subprocess.run(["make", "-n", "--no-print-directory", "kit"], cwd=ROOT, capture_output=True,
                         text=True, timeout=120).stdout
    assert out.strip().splitlines()[-1].endswith("llm-cost-explorer kit --out build/kit")


def test_version_is_written_once_and_printed_by_name():
    declared = re.search(r'^__version__ = "([^"]+)"$', (ROOT / "explorer" / "__init__.py").read_text(), re.M)
    result = run_cli("--version")
    assert result.returncode == 0 and result.stdout.split()[-1] == declared.group(1)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "version" not in project and project["dynamic"] == ["version"]  # read from explorer/__init__.py


def test_kernel_at_once_turns_the_static_first_answer_off(served):
    """Issue 39: the operator who prefers a kernel with every page says so with one flag."""
    assert run_cli("app", "--kernel-at-once").returncode == 0
    assert served[-1][-1] == "--ExplorerVoila.static_first=False"
    assert run_cli("app").returncode == 0 and not any("static_first" in a for a in served[-1])
