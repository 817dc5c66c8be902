"""Issue 17: JupyterLab as a home, in a real browser.

Opens explorer/notebooks/analyst.ipynb in JupyterLab (the optional ``lab`` extra),
runs all cells from the menu, and finds every cell executed, no error output,
the charts drawn as images and the embedded app's chart drawn on its canvas.
Skipped when JupyterLab is not installed (``pip install -e '.[lab]'``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from conftest import ARTIFACTS, ROOT, port_from_log

pytestmark = [pytest.mark.server, pytest.mark.browser]


@pytest.fixture(scope="module")
def lab_url(tmp_path_factory):
    if shutil.which("jupyter-lab", path=os.path.dirname(sys.executable)) is None:
        pytest.skip("JupyterLab is not installed (pip install -e '.[lab]')")
    root = tmp_path_factory.mktemp("lab")  # a copy: JupyterLab saves the notebook it runs
    shutil.copy(ROOT / "explorer" / "notebooks" / "analyst.ipynb", root / "analyst.ipynb")
    ARTIFACTS.mkdir(exist_ok=True)
    log_path = ARTIFACTS / "jupyterlab.log"
    log = open(log_path, "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--port=0", "--ServerApp.ip=127.0.0.1",
         "--ServerApp.port_retries=0", "--IdentityProvider.token=", "--ServerApp.password=",
         "--ServerApp.disable_check_xsrf=True", f"--ServerApp.root_dir={root}", "--LabApp.news_url=None",
         "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate", "--allow-root",
         "--LabApp.extension_manager=readonly",
         # a fresh workspace and settings: nothing restored from another run (it asked for files that are not here)
         f"--LabApp.workspaces_dir={root / '.workspaces'}", f"--LabApp.user_settings_dir={root / '.settings'}"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    deadline = time.monotonic() + 120
    # port 0: jupyter_server takes the port the OS gives it and logs its address
    port = port_from_log(proc, log_path, r"http://127\.0\.0\.1:(\d+)/lab", 120)
    if port is None:
        proc.kill()
        pytest.fail(f"JupyterLab did not start; see {log_path}")
    url = f"http://127.0.0.1:{port}/"
    while True:
        try:
            urllib.request.urlopen(url + "api/status", timeout=2)
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"JupyterLab did not start; see {ARTIFACTS / 'jupyterlab.log'}")
            time.sleep(0.5)
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


_STARTED = """() => [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]
                    .some(p => /\\[(\\*|\\d+)\\]/.test(p.textContent))"""


def _run_all_cells(page, attempts: int = 3) -> None:
    """Choose Run > Run All Cells as a user would, and see a cell start (its prompt turns ``[*]`` or ``[1]``).

    Under load the menu can open before JupyterLab has made the notebook its current widget: the item is then
    disabled and a click on it does nothing (two full runs beside a CPU hog timed out with every prompt ``[ ]``
    and the kernel idle). So the item is clicked only once it is enabled, and the choice is made again when no
    cell has started within 60 s.
    """
    for _ in range(attempts):
        page.locator(".jp-Notebook .jp-Cell").first.click()
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        item = page.locator(".lm-Menu-item:not(.lm-mod-disabled)", has_text="Run All Cells").first
        try:
            item.wait_for(state="visible", timeout=60_000)
        except PlaywrightTimeout:
            page.keyboard.press("Escape")  # the menu stays disabled: close it, and choose again
            continue
        item.click()
        try:
            page.wait_for_function(_STARTED, timeout=60_000, polling=250)
            return
        except PlaywrightTimeout:
            continue
    page.screenshot(path=str(ARTIFACTS / "issue17-jupyterlab-not-started.png"), full_page=True)
    pytest.fail(f"Run All Cells started no cell in {attempts} tries; {ARTIFACTS / 'jupyterlab.log'}",
                pytrace=False)


def test_analyst_notebook_runs_all_in_jupyterlab_and_draws(lab_url, chromium):
    page = chromium.new_page(viewport={"width": 1400, "height": 1000})
    try:
        page.goto(lab_url + "lab/tree/analyst.ipynb", timeout=120_000)
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
        page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=120_000)
        _run_all_cells(page)
        # from the file, not the page: JupyterLab renders a long notebook's cells as they come into view, and a
        # count read from the page before they all were found 2 of 11 (a quiet full run, 00a5e9d)
        notebook = json.loads((ROOT / "explorer" / "notebooks" / "analyst.ipynb").read_text())
        code_cells = sum(cell["cell_type"] == "code" for cell in notebook["cells"])
        try:
            page.wait_for_function(
                """n => [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]
                       .filter(p => /\\[\\d+\\]/.test(p.textContent)).length === n""",
                arg=code_cells, timeout=300_000, polling=500)
        except PlaywrightTimeout:  # say where it stopped: once, in a full run beside a CPU hog, it never finished
            page.screenshot(path=str(ARTIFACTS / "issue17-jupyterlab-timeout.png"), full_page=True)
            prompts = page.evaluate("() => [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]"
                                    ".map(p => p.textContent.trim())")
            status = page.evaluate("() => document.querySelector('.jp-Notebook-ExecutionIndicator')"
                                   "?.getAttribute('data-status')")
            pytest.fail(f"not every cell ran within 300 s: {code_cells} code cells, prompts {prompts}, "
                        f"kernel {status}; {ARTIFACTS / 'jupyterlab.log'}", pytrace=False)
        # the app's chart on its ipympl canvas, drawn
        page.wait_for_function(
            """() => [...document.querySelectorAll('.explorer-app .jupyter-matplotlib-canvas-div canvas:first-child')]
                 .some(c => { if (!c.width || !c.height) return false;
                   const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
                   let n = 0; for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++; return n > 5000; })""",
            timeout=120_000, polling=500)
        page.screenshot(path=str(ARTIFACTS / "issue17-jupyterlab.png"))
        errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']").count()
        tracebacks = page.locator(".jp-OutputArea-output .ansi-red-fg, .jp-RenderedText[data-mime-type*=error]").count()
        assert errors == 0 and tracebacks == 0
        images = page.locator(".jp-OutputArea-output img").count()
        assert images >= 3  # the breakdown, the tornado and the history chart draw themselves
        assert page.get_by_text("<Figure size").count() == 0
    finally:
        page.close()
