"""Shared fixtures: a Voila server on 127.0.0.1 and a headless Debian chromium."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "artifacts"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def voila_url():
    """Serve notebooks/explorer.ipynb with the project's voila.json, as `make app` does."""
    port = _free_port()
    voila = Path(sys.executable).with_name("voila")
    log = (ARTIFACTS / "voila.log")
    ARTIFACTS.mkdir(exist_ok=True)
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [str(voila), "notebooks/explorer.ipynb", "--Voila.ip=127.0.0.1", f"--port={port}", "--no-browser"],
            cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 60
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=2):
                break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"voila did not start; see {log}")
            time.sleep(0.3)
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="session")
def chromium():
    """Debian's chromium driven by plain playwright (never `playwright install`)."""
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if executable is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed; .ci/run installs it with apt-get")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield browser
        browser.close()
