"""The minimum versions: each runtime dependency of pyproject.toml pinned to its lower bound, as pip constraints.

    python3 scripts/min_versions.py > build/min-versions.txt

.ci/run installs the package with these constraints in a second venv and runs the tests without servers or
browsers (the minimum-versions job): a lower bound in pyproject.toml is a version the tests pass with. A
dependency without a lower bound is an error (its minimum would be untested). Standard library only (CI runs it
before any venv exists).
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def min_versions(pyproject: Path = PYPROJECT) -> list[str]:
    """``name==lower`` for every entry of ``project.dependencies``."""
    pins = []
    for requirement in tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["dependencies"]:
        name = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement).group(0)
        lower = re.search(r">=\s*([0-9][0-9A-Za-z.]*)", requirement)
        if lower is None:
            raise SystemExit(f"error: {requirement!r} in {pyproject} has no lower bound (>=)")
        pins.append(f"{name}=={lower.group(1)}")
    return pins


if __name__ == "__main__":
    sys.stdout.write("".join(pin + "\n" for pin in min_versions()))
