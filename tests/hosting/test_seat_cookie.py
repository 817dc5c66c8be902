"""Each page owns its kernel through a seat cookie of its own, so two pages of one browser never lock each other out.

Before, the owner of a kernel was the page's ``_xsrf`` token, one per browser. Two pages opened at once by a
browser without the cookie (two tabs restored, a class benchmark's three students in one browser) were each
given a new token; the browser kept the last, and the first page's websocket was refused (403) for good: Voila's
page then retries without the v1 subprotocol, which the server refuses too (seen in
``benchmarks/workshop_rush.py --pool 0``: 2 of 3 pages never rendered, 2 refusals "not the page that owns it"
and 14 "without the v1.kernel.websocket.jupyter.org subprotocol" in the log).

Against a real server on 127.0.0.1 with no pool (a cold kernel per page: its response starts only once the
kernel has started, so two page loads sent together both leave without a cookie, as in the bug).
"""

from __future__ import annotations

import pytest
import websocket

import clients as cl
from conftest import BROWSER_WAIT_MS, Server

pytestmark = pytest.mark.server


@pytest.fixture(scope="module")
def cold_server():
    srv = Server("seat-cookie", pool_size=0)
    yield srv
    srv.stop()


def test_each_page_gets_a_seat_cookie_scoped_to_its_own_kernel(cold_server):
    page = cl.get_page(cold_server.url)  # no cookie sent
    kernel_id = page.kernel_id
    seat = [c for c in page.set_cookies if c.startswith("explorer_seat=")]
    paths = sorted(next(p.split("=", 1)[1] for p in c.split("; ") if p.lower().startswith("path=")) for c in seat)
    assert paths == [f"/api/kernels/{kernel_id}", f"/voila/api/shutdown/{kernel_id}"]  # sent nowhere else
    assert all("HttpOnly" in c and "SameSite=Strict" in c for c in seat)  # no script reads it, no other site sends it
    assert len({c.split(";", 1)[0] for c in seat}) == 1 and len(seat[0].split(";", 1)[0]) > 30  # one random token


def test_a_page_whose_xsrf_cookie_was_overwritten_by_another_page_still_owns_its_kernel(cold_server):
    """The browser's jar after two pages opened at once: the second page's ``_xsrf``, and each page's seat cookie
    on its own kernel's paths. The first page connects and can free its kernel; its seat cookie opens no other."""
    first_page, second_page = cl.get_page(cold_server.url), cl.get_page(cold_server.url)  # neither sends a cookie
    first_kernel, first = first_page.kernel_id, first_page.cookies
    second_kernel, second = second_page.kernel_id, second_page.cookies
    assert first["_xsrf"] != second["_xsrf"]  # two pages without a cookie: two tokens, the browser keeps the last
    as_the_browser_sends = f"_xsrf={second['_xsrf']}; explorer_seat={first['explorer_seat']}"
    ws = cl.connect(cold_server.url, first_kernel, v1=True, cookie=as_the_browser_sends, timeout=120)
    try:
        assert cl.widget_comm_ids(ws, v1=True, timeout=120)  # the first page's widgets answer it
    finally:
        ws.close()
    with pytest.raises(websocket.WebSocketBadStatusException) as refused:  # its seat cookie on the other kernel
        cl.connect(cold_server.url, second_kernel, v1=True, cookie=as_the_browser_sends, timeout=120)
    assert refused.value.status_code == 403
    assert cl.beacon(cold_server.url, second_kernel, as_the_browser_sends, second["_xsrf"]) == 403
    assert cl.beacon(cold_server.url, first_kernel, as_the_browser_sends, second["_xsrf"]) == 204
    assert not cl.kernel_exists(cold_server.url, first_kernel)
    assert cl.kernel_exists(cold_server.url, second_kernel)


@pytest.mark.browser
def test_two_tabs_of_a_new_browser_opened_at_once_both_draw_the_app(cold_server, chromium):
    refused_before = cold_server.log.read_text().count("not the page that owns it")  # the test above makes some
    context = chromium.new_context(viewport={"width": 1400, "height": 1000})
    try:
        pages = [context.new_page() for _ in range(2)]
        for page in pages:  # both requests leave before either response (a cold kernel starts first)
            page.evaluate("url => { window.location.href = url; }", cold_server.url)
        for page in pages:
            page.wait_for_selector(".explorer-summary p", timeout=BROWSER_WAIT_MS)
        xsrf = {c["value"] for c in context.cookies() if c["name"] == "_xsrf"}
        assert len(xsrf) == 1  # one _xsrf left in the browser, yet both pages hold their kernels
        kernels = {cl.Page(200, page.content(), 0.0).kernel_id for page in pages}
        assert len(kernels) == 2 and None not in kernels
        for page in pages:  # and both keep talking to them: a change reaches the kernel and comes back
            before = page.locator(".explorer-summary").inner_text()
            box = page.locator(".explorer-control-params input[type=text]").first
            box.fill("123B")  # not the default (7B)
            box.press("Enter")
            page.wait_for_function("s => document.querySelector('.explorer-summary').innerText !== s", arg=before,
                                   timeout=BROWSER_WAIT_MS)
    finally:
        context.close()
    assert cold_server.log.read_text().count("not the page that owns it") == refused_before
