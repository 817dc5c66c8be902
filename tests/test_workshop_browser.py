"""`make workshop` in a real browser: the index page and every lesson render without errors.

Starts its own server as `make workshop` does (the hardened ``python -m explorer.hosting`` over the
``notebooks`` directory, kernels not preheated) on a free port of 127.0.0.1, and drives Debian's
chromium with plain playwright (the ``chromium`` fixture of conftest.py).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "artifacts"
STEMS = sorted(p.stem for p in (ROOT / "notebooks" / "lessons" / "en").glob("*.ipynb"))
INDEX = "voila/render/lessons/index.ipynb"

pytestmark = [pytest.mark.browser, pytest.mark.server]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def workshop_url():
    port = _free_port()
    ARTIFACTS.mkdir(exist_ok=True)
    log = ARTIFACTS / "voila-workshop.log"
    args = [sys.executable, "-m", "explorer.hosting", "notebooks", "--Voila.ip=127.0.0.1", f"--port={port}",
            "--port_retries=0", "--no-browser", "--preheat_kernel=False"]
    with open(log, "w") as out:
        proc = subprocess.Popen(args, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                                env={**os.environ, "PYTHONUNBUFFERED": "1"})
    deadline = time.monotonic() + 90
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=2):
                break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"voila did not start; see {log}")
            time.sleep(0.3)
    yield f"http://127.0.0.1:{port}/"
    from tests.clients import children

    kernels = children(proc.pid)
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
    for pid in kernels:
        try:
            os.kill(pid, 9)
        except OSError:
            pass


def _local_only(route):
    if route.request.url.startswith("http://127.0.0.1"):
        route.continue_()
    else:
        route.abort()


def _render(chromium, url: str, *, wait_widgets: bool, shot: str | None = None):
    page = chromium.new_page(viewport={"width": 1100, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.route("**/*", _local_only)
    response = page.goto(url, wait_until="domcontentloaded", timeout=120_000)
    assert response is not None and response.status == 200, url
    if wait_widgets:
        page.wait_for_selector(".jupyter-widgets.widget-container, .widget-vbox", timeout=120_000)
    page.wait_for_load_state("networkidle", timeout=120_000)
    body = page.inner_text("body")
    for bad in ("Traceback", "There was an error when executing cell", "Error", "NameError", "Assertion"):
        assert bad not in body, (url, bad)
    assert not page.query_selector(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']"), url
    if shot:
        page.screenshot(path=str(ARTIFACTS / shot), full_page=False)
    return page, errors, body


def test_index_links_lessons_in_order(chromium, workshop_url):
    page, errors, body = _render(chromium, workshop_url + INDEX, wait_widgets=False, shot="workshop-index.png")
    hrefs = page.eval_on_selector_all("a[href$='.ipynb']", "els => els.map(e => e.getAttribute('href'))")
    en = [h for h in hrefs if h.startswith("en/")]
    assert en == [f"en/{s}.ipynb" for s in STEMS]
    assert "../claims.ipynb" in hrefs
    page.close()
    assert not errors, errors


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("stem", STEMS)
def test_lesson_renders(chromium, workshop_url, stem, lang):
    shot = f"workshop-{lang}-{stem[:2]}.png" if stem[:2] in ("01", "02") else None
    page, errors, body = _render(chromium, workshop_url + f"voila/render/lessons/{lang}/{stem}.ipynb",
                                 wait_widgets=True, shot=shot)
    assert ("Summary" if lang == "en" else "小结") in body
    assert page.eval_on_selector_all("img", "els => els.filter(e => !e.alt).length") == 0, "an image without alt text"
    # the answers are folded away until the student opens them
    titles = page.locator(".lm-AccordionPanel-title, .p-Accordion-title, .jupyter-widget-Collapse-header")
    assert titles.count() >= 2
    page.close()
    assert not errors, errors


def test_claims_notebook_renders(chromium, workshop_url):
    page, errors, body = _render(chromium, workshop_url + "voila/render/claims.ipynb", wait_widgets=True,
                                 shot="workshop-claims.png")
    assert "does not hold" in body and "holds only under stated conditions" in body
    page.close()
    assert not errors, errors


def test_reveal_shows_the_answer(chromium, workshop_url):
    page, errors, _ = _render(chromium, workshop_url + f"voila/render/lessons/en/{STEMS[0]}.ipynb",
                              wait_widgets=True)
    answer = page.get_by_text("1.003 times the reported figure")
    assert not answer.is_visible(), "the answer shows before the student opens it"
    page.get_by_text("Show the answer").first.click()
    answer.wait_for(state="visible", timeout=10_000)
    page.close()
    assert not errors, errors
