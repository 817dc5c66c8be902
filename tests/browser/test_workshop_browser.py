"""`make workshop` in a real browser: the index page and every lesson render without errors.

Starts its own server as `make workshop` does (the hardened ``python -m explorer.hosting`` over the
``notebooks`` directory, kernels not preheated) on a free port of 127.0.0.1, and drives Debian's
chromium with plain playwright (the ``chromium`` fixture of conftest.py).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from conftest import Server

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
STEMS = sorted(p.stem for p in (ROOT / "explorer" / "notebooks" / "lessons" / "en").glob("[0-9][0-9]_*.ipynb"))
INDEX = "voila/render/lessons/index.ipynb"

pytestmark = [pytest.mark.browser, pytest.mark.server]
_SERVER: dict = {}


@pytest.fixture(scope="module")
def workshop_url():
    """The hardened server over ``notebooks`` (as `make workshop` starts it), no preheated kernels."""
    srv = Server("workshop", notebook="explorer/notebooks", pool_size=0, ready_timeout=90.0)
    _SERVER["pid"] = srv.proc.pid
    yield srv.url
    srv.stop()


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
    # nothing is typeset as math: the lessons write formulas in Unicode, so any MathJax output is money
    # ("$5.576M ... $2") read as TeX
    assert page.locator("mjx-container, .MathJax").count() == 0, (url, page.locator("mjx-container").first.inner_text())
    if shot:
        page.screenshot(path=str(ARTIFACTS / shot), full_page=False)
    return page, errors, body


def test_index_links_lessons_in_order(chromium, workshop_url):
    page, errors, body = _render(chromium, workshop_url + INDEX, wait_widgets=False, shot="workshop-index.png")
    hrefs = page.eval_on_selector_all("a[href$='.ipynb']", "els => els.map(e => e.getAttribute('href'))")
    en = [h for h in hrefs if h.startswith("en/")]
    assert en == [f"en/{s}.ipynb" for s in STEMS] + ["en/capstone.ipynb"]
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
    assert page.eval_on_selector_all("img", "els => els.filter(e => !e.alt && e.offsetParent !== null).length") == 0, "an image without alt text"
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
    answer = page.get_by_text("1.003 times the reported")
    assert not answer.is_visible(), "the answer shows before the student opens it"
    page.get_by_text("Show the solution").first.click()
    answer.wait_for(state="visible", timeout=120_000)
    page.close()
    assert not errors, errors


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_student_answers_an_exercise_in_voila(chromium, workshop_url, lang):
    """As a student: a wrong answer (10³ too small), then the right one, then the solution on request."""
    page, errors, _ = _render(chromium, workshop_url + f"voila/render/lessons/{lang}/{STEMS[0]}.ipynb",
                              wait_widgets=True)
    box = page.locator("input[placeholder*='3.2e23']").first
    check = page.locator("button.mod-primary").first
    solution = page.get_by_text("1.003" if lang == "en" else "1.003 倍").first
    box.fill("3.15e20")
    check.click()
    page.get_by_text("10³ times too small" if lang == "en" else "太小了 10³ 倍").wait_for(timeout=120_000)
    assert not solution.is_visible()
    box.fill("3.15 × 10^23")
    check.click()
    page.get_by_text("Correct" if lang == "en" else "正确").first.wait_for(timeout=120_000)
    assert not solution.is_visible(), "the solution opens only when the student asks"
    # the page's summary, under every check: lesson 1 has 2 exercises and 2 concept questions
    said = "This lesson: you answered 1 of 4 checks correctly." if lang == "en" else "本课：4 项检查中你已答对 1 项。"
    # one line, shown under each of the four checks: four widgets, each updated by its own message after the
    # check's verdict (a count read at once saw 0 of 4 on a loaded machine), so wait until all four say it
    expect(page.get_by_text(said)).to_have_count(4, timeout=120_000)
    page.get_by_text(said).first.wait_for(state="visible", timeout=120_000)
    page.get_by_text("Show the solution" if lang == "en" else "显示解答").first.click()
    solution.wait_for(state="visible", timeout=120_000)
    page.screenshot(path=str(ARTIFACTS / f"workshop-exercise-{lang}.png"))
    page.close()
    assert not errors, errors


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_student_answers_a_concept_question_in_voila(chromium, workshop_url, lang):
    """Lesson 1, question 1 at phone width: a wrong letter names the misconception, the right one says why."""
    page = chromium.new_page(viewport={"width": 390, "height": 800})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.route("**/*", _local_only)
    page.goto(workshop_url + f"voila/render/lessons/{lang}/{STEMS[0]}.ipynb", wait_until="domcontentloaded",
              timeout=120_000)
    letters = page.locator(".widget-toggle-buttons").first
    letters.wait_for(timeout=120_000)
    check = page.locator(".widget-vbox", has=letters).locator("button.mod-primary").first
    letters.locator("button", has_text="A").click()
    check.click()
    page.get_by_text("same number of GPU-hours" if lang == "en" else "卡时数相同").wait_for(timeout=120_000)
    letters.locator("button", has_text="B").click()
    check.click()
    page.get_by_text("Correct (B)" if lang == "en" else "正确（B）").wait_for(timeout=120_000)
    box = check.bounding_box()
    assert box["x"] + box["width"] <= 390, box  # the Check button is on screen on a phone
    page.screenshot(path=str(ARTIFACTS / f"workshop-concept-{lang}.png"))
    page.close()
    assert not errors, errors


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_student_checks_a_capstone_plan_in_voila(chromium, workshop_url, lang):
    """The capstone form: a plan with GPU-seconds is explained, the hand figure passes."""
    page, errors, _ = _render(chromium, workshop_url + f"voila/render/lessons/{lang}/capstone.ipynb",
                              wait_widgets=True)
    hours = page.locator("input[placeholder*='62,000']").first
    check = page.locator("button", has_text="Check my plan" if lang == "en" else "检查我的方案")
    hours.fill("223398000")  # 62,055 GPU-hours x 3600: GPU-seconds
    check.click()
    page.get_by_text("GPU-seconds" if lang == "en" else "卡秒").wait_for(timeout=120_000)
    hours.fill("62,000")
    check.click()
    page.get_by_text("matches your run" if lang == "en" else "与你的训练相符").wait_for(timeout=120_000)
    page.screenshot(path=str(ARTIFACTS / f"workshop-capstone-{lang}.png"), full_page=True)
    page.close()
    assert not errors, errors


def test_glossary_and_capstone_are_linked_from_the_index(chromium, workshop_url):
    page, errors, body = _render(chromium, workshop_url + INDEX, wait_widgets=False)
    hrefs = page.eval_on_selector_all("a[href$='.ipynb']", "els => els.map(e => e.getAttribute('href'))")
    assert {"en/capstone.ipynb", "zh/capstone.ipynb", "glossary.ipynb"} <= set(hrefs)
    page.close()
    page, errors2, body = _render(chromium, workshop_url + "voila/render/lessons/glossary.ipynb", wait_widgets=False)
    assert "Goodput" in body and "有效训练比例" in body
    page.close()
    assert not errors + errors2


def test_claims_verdicts_fit_a_phone_in_both_languages(chromium, workshop_url):
    page = chromium.new_page(viewport={"width": 390, "height": 800})
    page.route("**/*", _local_only)
    page.goto(workshop_url + "voila/render/claims.ipynb?lang=zh", wait_until="domcontentloaded", timeout=120_000)
    page.wait_for_selector("table.claims", timeout=120_000)
    first = page.locator("table.claims td.claims-verdict").first
    box = first.bounding_box()
    assert box["x"] + box["width"] <= 390, box  # the verdict (a card's second line) is on screen without scrolling
    assert "成立" in first.inner_text() or "无法核实" in first.inner_text()
    page.screenshot(path=str(ARTIFACTS / "workshop-claims-390.png"))
    page.close()


def test_lesson_shows_session_ended_when_its_kernel_dies(chromium, workshop_url):
    """A dead kernel is not silent: the notice with Reload covers the top of the lesson."""
    from clients import children

    before = set(children(_SERVER["pid"]))
    page, errors, _ = _render(chromium, workshop_url + f"voila/render/lessons/zh/{STEMS[1]}.ipynb",
                              wait_widgets=True)
    notice = page.locator(".explorer-session-ended")
    assert not notice.is_visible()
    mine = set(children(_SERVER["pid"])) - before
    assert len(mine) == 1, mine
    os.kill(mine.pop(), 9)
    notice.wait_for(state="visible", timeout=120_000)
    assert "Reload" in notice.inner_text() and "重新加载" in notice.inner_text()
    page.close()
