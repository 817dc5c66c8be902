"""Do the lessons open in JupyterLab unmodified? Main's plain copy against the hub's copy (jupyterhub_config.py).

Copies the lessons twice into a temporary folder: as they are committed ("plain") and through the hub's
pre-spawn hook ("hooked": the kernel's language_info and a trust signature in the student's home). Starts
JupyterLab on 127.0.0.1 with HOME set to that student's home, opens lesson 1 of each copy twice in Debian's
chromium (a fresh workspace each time), waits for the kernel to be idle and then up to 20 s for the
notebook model to turn dirty. Prints {"plain": [dirty?, dirty?], "hooked": [...]}::

    python benchmarks/lessons_open_unmodified.py     # 2026-12-02: {"plain": [true, true], "hooked": [false, false]}
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
LESSON = "en/01_flops_to_dollars.ipynb"
DIRTY = """path => { for (const w of window.jupyterapp.shell.widgets('main')) {
    if (w.context && w.context.path === path) return w.context.model.dirty; } return null; }"""


def _copies(root: Path) -> None:
    sys.path.insert(0, str(ROOT / "deploy/jupyterhub"))
    from student_start import set_up_home  # the hub's home copy, run as the student at each start

    shutil.copytree(ROOT / "explorer/notebooks/lessons", root / "plain", ignore=shutil.ignore_patterns("src", "*.py"))
    (root / "home_ada").mkdir()
    set_up_home(root / "home_ada")
    shutil.move(str(root / "home_ada" / "lessons"), str(root / "hooked"))


def main() -> None:
    from conftest import port_from_log
    from playwright.sync_api import sync_playwright

    root = Path(tempfile.mkdtemp(prefix="lessons-open-"))
    _copies(root)
    log = root / "lab.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--port=0", "--ServerApp.ip=127.0.0.1",
         "--ServerApp.port_retries=0", "--IdentityProvider.token=", "--ServerApp.password=",
         "--ServerApp.disable_check_xsrf=True", f"--ServerApp.root_dir={root}", "--allow-root",
         "--LabApp.expose_app_in_browser=True", f"--LabApp.workspaces_dir={root / '.ws'}"],
        stdout=open(log, "w"), stderr=subprocess.STDOUT,
        env={**os.environ, "MPLBACKEND": "Agg", "HOME": str(root / "home_ada")})
    result: dict[str, list] = {}
    try:
        port = port_from_log(proc, log, r"http://127\.0\.0\.1:(\d+)/lab", 180)
        url = f"http://127.0.0.1:{port}/"
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=[
                "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"])
            for n, which in enumerate(("plain", "hooked", "plain", "hooked")):
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.goto(f"{url}lab/workspaces/w{n}/tree/{which}/{LESSON}?reset", timeout=180_000)
                page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=180_000)
                started, dirty = time.monotonic(), False
                while not dirty and time.monotonic() - started < 20:
                    dirty = bool(page.evaluate(DIRTY, f"{which}/{LESSON}"))
                    time.sleep(0.5)
                result.setdefault(which, []).append(dirty)
                page.close()
            browser.close()
    finally:
        proc.terminate()
        proc.wait(30)
        shutil.rmtree(root, ignore_errors=True)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
