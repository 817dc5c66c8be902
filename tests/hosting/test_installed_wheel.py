"""The package as a user installs it: wheel and sdist built, checked, installed outside the checkout, app served.

One run, in a temporary folder outside the checkout (removed at the end): a tools venv builds the wheel and
the sdist (``python -m build``) and checks them (``twine check``); a second, fresh venv gets the wheel alone
(``pip install -c constraints.txt``: the versions CI runs), and ``llm-cost-explorer app --port 0`` started
from that folder serves the app until a viewer's page renders and its widgets answer over the websocket
(:func:`clients.viewer_handshake`). The two venvs are apart so that no build tool can stand in for a
dependency the wheel forgot. It needs the package registry (pip) and takes about 1-2 minutes, most of it pip.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path

import pytest

import conftest
from clients import get_page, viewer_handshake
from conftest import ARTIFACTS, ROOT

pytestmark = pytest.mark.server

#: Files an installed wheel needs to serve the app and the workshop (package data, pyproject.toml).
PACKAGE_DATA = ("explorer/notebooks/explorer.ipynb", "explorer/notebooks/claims.ipynb",
                "explorer/notebooks/analyst.ipynb", "explorer/notebooks/lessons/index.ipynb",
                "explorer/notebooks/lessons/en/01_flops_to_dollars.ipynb",
                "explorer/notebooks/lessons/zh/01_flops_to_dollars.ipynb", "explorer/hosting/voila.json",
                "explorer/hosting/templates/index.html.j2", "explorer/data/NOTICE.md",
                "explorer/notebooks/lessons/build_kit.py", "explorer/notebooks/lessons/src/agendas.csv",
                "explorer/notebooks/lessons/src/01_flops_to_dollars.zh.md")
#: The version the checkout declares (explorer/__init__.py, the one place it is written); the wheel must report it
VERSION = re.search(r'^__version__ = "([^"]+)"', (ROOT / "explorer" / "__init__.py").read_text(), re.M).group(1)


def _env() -> dict[str, str]:
    """This environment without the test venv and the checkout on the path (as a user's shell would be)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    return {**env, "PYTHONUNBUFFERED": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


def _run(*args, cwd: Path, timeout: float = 900) -> str:
    result = subprocess.run([str(a) for a in args], cwd=cwd, env=_env(), capture_output=True, text=True,
                            timeout=timeout)
    assert result.returncode == 0, f"{args}: {result.stdout[-2000:]}\n{result.stderr[-3000:]}"
    return result.stdout


class InstalledApp(conftest.Server):
    """``llm-cost-explorer app --port 0`` from an installed wheel, started in ``cwd`` (stopped as a Server)."""

    def __init__(self, venv: Path, cwd: Path):
        self.port, self.url, self.pool_size = 0, "", None
        self.log = ARTIFACTS / "voila-installed-wheel.log"
        ARTIFACTS.mkdir(exist_ok=True)
        command = [str(venv / "bin" / "llm-cost-explorer"), "app", "--port", "0",
                   "--ExplorerVoila.seats_per_address=0"]  # an unknown option goes to the server as it is
        with open(self.log, "w") as out:
            self.proc = subprocess.Popen(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, env=_env())
        self._wait_ready(180.0)


@pytest.fixture(scope="module")
def workdir():
    """A folder outside the checkout for the venvs, the dist files and the server's working directory."""
    folder = Path(tempfile.mkdtemp(prefix="explorer-wheel-"))
    assert not folder.resolve().is_relative_to(ROOT)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_the_installed_wheel_serves_the_app(workdir):
    times: dict[str, float] = {}
    start = time.monotonic()
    tools, venv, dist, cwd = (workdir / name for name in ("tools", "venv", "dist", "cwd"))
    cwd.mkdir()
    _run(sys.executable, "-m", "venv", tools, cwd=workdir)
    _run(tools / "bin" / "pip", "install", "--quiet", "build", "twine", cwd=workdir)
    _run(tools / "bin" / "python", "-m", "build", "--outdir", dist, ROOT, cwd=workdir)
    times["build"] = time.monotonic() - start
    wheel, = dist.glob("llm_cost_explorer-*.whl")
    sdist, = dist.glob("llm_cost_explorer-*.tar.gz")
    _run(tools / "bin" / "twine", "check", "--strict", wheel, sdist, cwd=workdir)
    in_wheel = set(zipfile.ZipFile(wheel).namelist())
    assert not [f for f in PACKAGE_DATA if f not in in_wheel], sorted(in_wheel)
    in_sdist = {name.split("/", 1)[1] for name in tarfile.open(sdist).getnames() if "/" in name}
    assert not [f for f in (*PACKAGE_DATA, "pyproject.toml", "LICENSE") if f not in in_sdist]

    step = time.monotonic()
    _run(sys.executable, "-m", "venv", venv, cwd=workdir)
    _run(venv / "bin" / "pip", "install", "--quiet", "-c", ROOT / "constraints.txt", wheel, cwd=cwd)
    times["install"] = time.monotonic() - step
    where = _run(venv / "bin" / "python", "-c", "import explorer; print(explorer.__file__)", cwd=cwd).strip()
    assert Path(where).is_relative_to(venv), where  # the installed package, not the checkout

    step = time.monotonic()
    server = InstalledApp(venv, cwd)
    try:
        # the app's first page: the static answer (issue 39), with no kernel; live=1 is the first touch
        look = get_page(server.url)
        assert look.status == 200 and 'id="explorer-static"' in look.body and look.kernel_id is None
        rendered, seconds = viewer_handshake(server.url + "?live=1", base_url=server.url, timeout=240)
        times["widgets"] = time.monotonic() - step
        assert rendered, f"no widgets from the installed app in {seconds:.0f} s; see {server.log}"
        page = get_page(server.url + "?live=1")
        assert page.status == 200 and page.rendered
        assert "from explorer.app import" not in page.body and "Traceback" not in page.body  # voila.json applies
        log = server.log.read_text(errors="replace")
        assert "forked from template" in log  # voila.json's explorer-fork provisioner, found in the package
        assert "could not import" not in log  # every preload module of voila.json is in the wheel
    finally:
        server.stop()
    # the kit from the wheel alone: the lessons' sources ship, the guide's agendas are package data
    assert _run(venv / "bin" / "llm-cost-explorer", "--version", cwd=cwd).split() == ["llm-cost-explorer", VERSION]
    _run(venv / "bin" / "llm-cost-explorer", "kit", "--out", "kit", cwd=cwd)
    handout = (cwd / "kit" / "handout.en.html").read_text(encoding="utf-8")
    assert "C ≈ 6 · N · D" in handout and (cwd / "kit" / "lecturer" / "zh" / "01_flops_to_dollars.html").is_file()
    print(f"wheel {wheel.stat().st_size / 1e6:.2f} MB, sdist {sdist.stat().st_size / 1e6:.2f} MB; build and check "
          f"{times['build']:.0f} s, install {times['install']:.0f} s, app started to widgets {times['widgets']:.0f} s")
