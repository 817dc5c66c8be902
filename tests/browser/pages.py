"""The app's page in chromium, for the browser tests: open it, read the summary and the total, type into a box."""

from __future__ import annotations


#: Whether the chart under a CSS selector is drawn: its canvas is on screen, sized, and has ink (dark pixels,
#: sampled every 97th). ``page.wait_for_function(DRAWN, arg=".explorer-plan-chart")``.
DRAWN = """sel => { const c = document.querySelector(sel + ' .jupyter-matplotlib-canvas-div canvas');
    if (!c || c.offsetParent === null || c.width === 0) return false;
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let ink = 0; for (let i = 0; i < d.length; i += 4 * 97) { if (d[i] < 200 && d[i + 3] > 0) ink++; }
    return ink > 20; }"""


def open_app(chromium, url, width=1400, height=1000):
    page = chromium.new_page(viewport={"width": width, "height": height})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.route("**/*", lambda route: route.continue_() if route.request.url.startswith("http://127.0.0.1")
               else route.abort())
    page.goto(url, timeout=120_000)
    page.wait_for_selector(".explorer-summary p", timeout=120_000)
    page.wait_for_function(
        """() => [...document.querySelectorAll('.jupyter-matplotlib-figure canvas')]
                 .some(c => c.offsetParent !== null && c.width > 0)""", timeout=120_000)
    page.wait_for_timeout(500)
    return page, errors


def summary(page) -> str:
    return page.locator(".explorer-summary").inner_text()


def total(page) -> str:
    return page.locator(".explorer-kpi.total .v").inner_text()


def wait_change(page, before: str):
    page.wait_for_function("s => document.querySelector('.explorer-summary').innerText !== s", arg=before,
                           timeout=120_000)
    page.wait_for_timeout(300)


def type_into(page, control: str, text: str):
    box = page.locator(f".explorer-control-{control} input[type=text]").first
    box.fill(text)
    box.press("Enter")
