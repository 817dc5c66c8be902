"""The app as its viewers get it: Voila over HTTP, and a real browser."""

from __future__ import annotations

import time
import urllib.request

import pytest

from conftest import ARTIFACTS

pytestmark = pytest.mark.server


def test_voila_serves_the_app_without_source_or_traceback(voila_url):
    with urllib.request.urlopen(voila_url, timeout=120) as response:
        assert response.status == 200
        page = response.read().decode("utf-8")
    assert "application/vnd.jupyter.widget-view+json" in page  # the app's widget is rendered
    assert "from explorer.app import ExplorerApp" not in page  # sources are stripped
    for marker in ("Traceback (most recent call last)", "ModuleNotFoundError", "ScenarioError"):
        assert marker not in page


def test_voila_refuses_template_and_theme_override(voila_url):
    # Voila reads ?template= and ?theme= when voila.json allows overrides; ours does not
    with urllib.request.urlopen(voila_url + "?template=classic&theme=dark", timeout=120) as response:
        page = response.read().decode("utf-8")
    assert "/voila/templates/lab" in page and "/voila/templates/classic" not in page
    assert 'data-jp-theme-name="JupyterLab Light"' in page
    assert "from explorer.app import ExplorerApp" not in page


def _total(page) -> str:
    return page.locator(".explorer-summary").inner_text(timeout=120_000)


def _canvas_data(page) -> str:
    """Pixels of the first visible figure canvas, as a data URL."""
    return page.evaluate(
        """() => {
            const canvases = [...document.querySelectorAll('.jupyter-matplotlib-figure canvas')]
                .filter(c => c.offsetParent !== null && c.width > 0);
            return canvases.length ? canvases[0].toDataURL() : '';
        }"""
    )


@pytest.mark.browser
def test_browser_moves_slider_and_picks_accelerator(voila_url, chromium):
    page = chromium.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    # the page asks no other host for anything (Voila's own template asks cdn.jsdelivr.net for icon
    # fonts; CHROMIUM_ARGS resolve no host name, so such a request would fail, not leave the machine)
    elsewhere: list[str] = []
    page.on("request", lambda request: elsewhere.append(request.url)
            if not request.url.startswith(("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:")) else None)
    page.goto(voila_url, timeout=120_000)
    page.wait_for_selector(".explorer-summary p", timeout=120_000)
    page.wait_for_selector(".jupyter-matplotlib-figure canvas", state="attached", timeout=120_000)
    page.wait_for_function(
        """() => [...document.querySelectorAll('.jupyter-matplotlib-figure canvas')]
                 .some(c => c.offsetParent !== null && c.width > 0)""", timeout=120_000)
    page.wait_for_timeout(500)
    summary0, canvas0 = _total(page), _canvas_data(page)

    # the first slider on the page is the model size: move it with the keyboard
    handle = page.locator(".noUi-handle").first
    handle.focus()
    for _ in range(25):
        handle.press("ArrowRight")
    page.wait_for_function("s => document.querySelector('.explorer-summary').innerText !== s", arg=summary0,
                           timeout=120_000)
    page.wait_for_timeout(1500)  # let the last key presses arrive
    summary1 = _total(page)
    assert summary1 != summary0 and "7B parameters" in summary0 and "7B parameters" not in summary1

    # pick another accelerator in the Hardware group
    page.get_by_text("Hardware", exact=True).click()
    page.locator(".explorer-control-gpu select").select_option(label="NVIDIA A100 SXM4 80GB")
    page.wait_for_function("() => document.querySelector('.explorer-summary').innerText.includes('A100')",
                           timeout=120_000)
    summary2 = _total(page)
    assert "H100" in summary1 and "A100" in summary2
    assert summary2.split("costs")[1] != summary1.split("costs")[1]  # a new total
    page.wait_for_function("d => { const c = [...document.querySelectorAll('.jupyter-matplotlib-figure canvas')]"
                           ".filter(c => c.offsetParent !== null && c.width > 0); "
                           "return c.length && c[0].toDataURL() !== d; }", arg=canvas0, timeout=120_000)
    assert _canvas_data(page) != canvas0
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "app.png"), full_page=True)
    # the buttons' icons come from the Font Awesome that ipywidgets bundles, not from a CDN
    page.get_by_text("What changed", exact=True).click()
    page.wait_for_function("() => [...document.fonts].some(f => f.family.includes('Awesome') && f.status === 'loaded')",
                           timeout=120_000)
    assert errors == [], errors
    assert elsewhere == [], elsewhere
    page.close()


def _open(chromium, url, route=True):
    page = chromium.new_page(viewport={"width": 1400, "height": 1000})
    if route:
        page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("http://127.0.0.1") else r.abort())
    page.goto(url, timeout=120_000)
    page.wait_for_selector(".explorer-summary p", timeout=120_000)
    return page


@pytest.mark.browser
def test_share_link_is_applied_by_a_preheated_kernel(server, chromium):
    """The kernel ran the notebook before the request; the link's preset, language and size still show."""
    assert server.pool_size, "this test needs the preheated pool"
    page = _open(chromium, server.url + "?preset=deepseek_v3&lang=zh")
    text = _total(page)
    # DeepSeek-V3: 671B on H800, in Chinese, where 671B is written 6,710亿 (issue 41: Chinese numbers)
    assert "6,710亿" in text and "H800" in text and "参数" in text, text
    page.close()


@pytest.mark.browser
def test_leaving_the_page_frees_its_kernel(server, chromium):
    """The unload beacon carries the _xsrf cookie the page handler now sets; the server shuts the kernel down."""
    import clients as cl

    page = _open(chromium, server.url, route=False)  # routing would hold back the beacon
    kernel_id = page.evaluate("() => JSON.parse(document.getElementById('jupyter-config-data').textContent).kernelId")
    assert cl.kernel_exists(server.url, kernel_id)
    page.goto("about:blank")
    page.wait_for_timeout(1000)
    page.close()
    deadline = time.monotonic() + 20
    while cl.kernel_exists(server.url, kernel_id):
        assert time.monotonic() < deadline, "the kernel outlived its page"
        time.sleep(0.5)
