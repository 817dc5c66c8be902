"""Release habits (issue 40): the version written once and in the changelog, pre-commit running what CI runs."""

from __future__ import annotations

import re

import yaml

from conftest import ROOT

import explorer


def test_the_changelog_keeps_an_unreleased_section_and_the_current_version():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    versions = re.findall(r"^## \[([^\]]+)\](?: - (\d{4}-\d\d-\d\d))?$", text, re.M)
    assert versions[0] == ("Unreleased", "")
    assert (explorer.__version__, versions[1][1]) == versions[1] and versions[1][1], versions[:2]


def test_pre_commit_runs_the_pinned_ruff_and_the_import_contracts():
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    pinned = re.search(r"^ruff==(\S+)$", (ROOT / "constraints.txt").read_text(), re.M).group(1)
    ruff = next(r for r in config["repos"] if r["repo"].endswith("ruff-pre-commit"))
    assert ruff["rev"] == f"v{pinned}"
    local = {h["id"]: h for r in config["repos"] if r["repo"] == "local" for h in r["hooks"]}
    assert local["import-contracts"]["entry"].endswith("lint-imports")
    assert "scripts/figures.py --check" in local["readme-figures"]["entry"]


def test_contributing_names_the_commands_that_exist():
    guide = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    targets = set(re.findall(r"^([a-z][a-z-]*):", (ROOT / "Makefile").read_text(), re.M))
    named = set(re.findall(r"`make ([a-z][a-z-]*)", guide)) | set(re.findall(r"^make ([a-z][a-z-]*)", guide, re.M))
    assert named and named <= targets, named - targets
