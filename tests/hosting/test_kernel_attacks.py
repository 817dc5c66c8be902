"""Issue 39 (Hosting v4), finding 4: each attack of the fourth round against a real server on 127.0.0.1.

Each test failed on 1a78f69 (the commit before the fixes; docs/hosting-history.md, "Attacks, round 4"). Every wait is on a
condition.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import threading
import time
import uuid
from pathlib import Path

import pytest
import websocket

import clients as cl
from conftest import ROOT, Server

pytestmark = pytest.mark.server
#: kernels import this checkout's package (the kernel template does not run in the checkout's folder: an
#: installed editable package would give the kernels another checkout's app)
_THIS_CHECKOUT = {"PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)}


@pytest.fixture(scope="module")
def server():
    srv = Server("v4-attacks", pool_size=0, env=_THIS_CHECKOUT)
    yield srv
    srv.stop()


def _request(server: Server, method: str, path: str, headers: dict | None = None) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    try:
        conn.request(method, path, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


_FORGED_XSRF = {"Cookie": "_xsrf=abc", "X-XSRFToken": "abc"}  # tornado compares the two, nothing more


# --- major 1: the kernel REST route follows the owner-only rule --------------------------------------------------

def test_another_pages_kernel_cannot_be_read_or_shut_down_over_rest(server):
    victim, attacker = cl.get_page(server.url), cl.get_page(server.url)
    assert victim.rendered and attacker.rendered and victim.kernel_id != attacker.kernel_id
    path = f"/api/kernels/{victim.kernel_id}"
    as_attacker = {"Cookie": f"{attacker.cookie}; _xsrf=abc", "X-XSRFToken": "abc"}
    for headers in ({}, _FORGED_XSRF, as_attacker):
        status, body = _request(server, "GET", path, headers)
        assert status == 403 and b"connections" not in body and b"execution_state" not in body, (status, body)
        assert _request(server, "DELETE", path, headers)[0] == 403  # before: 204, the victim's page went dead
    status, body = _request(server, "GET", f"/api/kernels/{'0' * 8}-0000-4000-8000-{'0' * 12}", _FORGED_XSRF)
    assert status == 404
    # the victim's kernel lives on and its page still talks to it
    ws = cl.connect(server.url, victim.kernel_id, v1=True, cookie=victim.cookie, timeout=120)
    try:
        assert len(cl.widget_comm_ids(ws, v1=True, timeout=120)) > 10
    finally:
        ws.close()
    # the owner's own page may read its kernel (the seat cookie is scoped to this path)
    status, body = _request(server, "GET", path, {"Cookie": victim.cookie})
    assert status == 200 and json.loads(body)["id"] == victim.kernel_id
    assert "not the page that owns it" in server.log.read_text()


def test_no_other_kernel_or_session_route_is_served(server):
    page = cl.get_page(server.url)
    assert page.rendered
    kernel = page.kernel_id
    as_owner = {"Cookie": f"{page.cookie}; _xsrf=abc", "X-XSRFToken": "abc"}
    for method, path in (("GET", "/api/kernels"), ("POST", "/api/kernels"), ("GET", "/api/sessions"),
                         ("POST", "/api/sessions"), ("POST", f"/api/kernels/{kernel}/interrupt"),
                         ("POST", f"/api/kernels/{kernel}/restart"), ("GET", "/api/kernelspecs"),
                         ("GET", f"/api/sessions/{kernel}")):
        for headers in (_FORGED_XSRF, as_owner):
            # the page handler's catch-all sends GETs of other paths to the files handler (302), which serves
            # nothing under api/; other methods are not allowed there (405) or not found (404)
            status, body = _request(server, method, path, headers)
            assert status in (302, 404, 405) and kernel.encode() not in body, (method, path, status, body[:200])
            if status == 302:
                assert _request(server, "GET", path.replace("/api/", "/voila/files/api/"), headers)[0] in (403, 404)
    assert "Kernel interrupted" not in server.log.read_text() and "Kernel restarted" not in server.log.read_text()
    assert cl.kernel_exists(server.url, kernel)


# --- minor 9: a depth limit before any JSON parser -------------------------------------------------------------

def _close_code(ws: websocket.WebSocket, timeout: float) -> int | None:
    """The code of the close frame the server sends within ``timeout`` [s] (None: none came, the socket is open)."""
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        ws.settimeout(left)
        try:
            opcode, frame = ws.recv_data_frame(True)
        except websocket.WebSocketTimeoutException:
            return None
        except websocket.WebSocketConnectionClosedException:
            return 1006  # closed without a close frame
        if opcode == websocket.ABNF.OPCODE_CLOSE:
            return int.from_bytes(frame.data[:2], "big")
    return None


def _frame_with_content(frame: bytes, content: bytes) -> bytes:
    """A v1 frame (channel, header, parent, metadata, content) with its content part replaced by ``content``."""
    count = int.from_bytes(frame[:8], "little")
    offsets = [int.from_bytes(frame[8 * (i + 1):8 * (i + 2)], "little") for i in range(count)]
    offsets[-1] = offsets[-2] + len(content)
    head = count.to_bytes(8, "little") + b"".join(o.to_bytes(8, "little") for o in offsets)
    return head + frame[len(head):int.from_bytes(frame[8 * (count - 1):8 * count], "little")] + content


def test_a_deeply_nested_message_closes_its_websocket_before_any_parser(server):
    page = cl.get_page(server.url)
    ws = cl.connect(server.url, page.kernel_id, v1=True, cookie=page.cookie, timeout=120)
    try:
        comm = cl.widget_comm_ids(ws, v1=True, timeout=120)[0]
        content = (b'{"comm_id": "' + comm.encode() + b'", "data": {"method": "update", "state": {"value": '
                   + b"[" * 50_000 + b"]" * 50_000 + b"}}}")  # 50,000 levels (json.dumps would recurse too)
        ws.send_binary(_frame_with_content(cl.v1_frame("comm_msg", {}), content))
        code = _close_code(ws, 60)
    finally:
        ws.close()
    log = server.log.read_text()
    assert "RecursionError" not in log and "Traceback" not in log  # before: RecursionError in the server
    assert code == 1007 and "nested deeper than" in log, code
    assert cl.kernel_exists(server.url, page.kernel_id)  # the kernel never saw it


# --- major 3: a kernel that dies while starting ------------------------------------------------------------------

@pytest.fixture(scope="module")
def two_seats():
    srv = Server("v4-two-seats", "--ExplorerVoila.max_kernels=2", "--ExplorerVoila.seats_per_address=2", pool_size=0,
                 env=_THIS_CHECKOUT)
    yield srv
    srv.stop()


def _forked_pids(server: Server) -> list[int]:
    return [int(p) for p in re.findall(r"forked from template \d+ as (\d+)", server.log.read_text())]


def test_a_kernel_killed_while_starting_ends_its_page_and_gives_back_its_seat_and_slot(two_seats):
    before = len(_forked_pids(two_seats))
    result: dict = {}
    loader = threading.Thread(target=lambda: result.setdefault("page", cl.get_page(two_seats.url, timeout=300)),
                              daemon=True)
    loader.start()
    assert cl.wait_until(lambda: len(_forked_pids(two_seats)) > before, 120, step=0.01)
    os.kill(_forked_pids(two_seats)[before], signal.SIGKILL)  # before it answers kernel_info, as the OOM killer would
    loader.join(240)  # before: the page never ended (a heartbeat every 10 s)
    assert not loader.is_alive(), "the page of the dead kernel never ended"
    page = result["page"]
    assert page.status == 503 and "could not show this page" in page.body and not page.rendered, page.body[-300:]
    # the address has both its seats and the server both its slots again (before: the second was "busy")
    pages = [cl.get_page(two_seats.url, timeout=240) for _ in range(2)]
    assert [p.status for p in pages] == [200, 200] and all(p.rendered for p in pages)
    assert "died while the page was rendered" in two_seats.log.read_text()


# --- major 6: arrivals that never connect ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def defaults():
    """The production settings of the warden and the culler (no pool: every kernel here is a page's)."""
    srv = Server("v4-defaults", pool_size=0, env=_THIS_CHECKOUT)
    yield srv
    srv.stop()


def _arrive_and_leave(server: Server) -> None:
    """A page request whose client closes the connection at once (as a script would, 48 times from 8 addresses)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    conn.request("GET", "/")
    conn.close()


def test_arrivals_that_never_connect_are_freed_in_seconds(defaults):
    viewer = cl.get_page(defaults.url)
    ws = cl.connect(defaults.url, viewer.kernel_id, v1=True, cookie=viewer.cookie, timeout=120)
    try:
        # only the kernels started from here on: the module's server is shared, and a test before this one (in
        # pytest-randomly's order) may have left a connected page's kernel, which only the culler frees. CI
        # failed twice on that kernel (stop 44 and a clean-clone run), not on an arrival
        started = re.compile(r"Kernel started: (\S+)")
        before = len(started.findall(defaults.log.read_text()))
        for _ in range(3):
            _arrive_and_leave(defaults)
        assert cl.wait_until(lambda: len(started.findall(defaults.log.read_text())) >= before + 3, 120)
        arrivals = [k for k in started.findall(defaults.log.read_text())[before:] if k != viewer.kernel_id]
        assert len(arrivals) == 3, arrivals
        # Each is freed connect_timeout (20 s) after its page was rendered, plus up to a warden interval (5 s); before,
        # the culler freed them after its idle timeout (120 s, checked every 30 s: about 130 s). The render's own time
        # depends on the machine (three at once on two loaded cores), so the bound is read from the warden's own
        # count since each page was sent, and the wait is only long enough for slow renders.
        assert cl.wait_until(lambda: not any(cl.kernel_exists(defaults.url, k) for k in arrivals), 240, step=1), \
            "arrivals that never connected still hold their kernels:\n" + defaults.log.read_text()[-3000:]
        log = defaults.log.read_text()
        for kernel_id in arrivals:
            freed = re.search(rf"Freeing kernel {kernel_id}: its page never connected in the (\d+) s", log)
            assert freed, f"{kernel_id} was not freed as an arrival that never connected:\n{log[-3000:]}"
            assert int(freed.group(1)) <= 20 + 5 + 15, freed.group(0)  # not the culler's 120 s
        assert cl.kernel_exists(defaults.url, viewer.kernel_id)  # the viewer who connected keeps their app
        assert len(cl.widget_comm_ids(ws, v1=True, timeout=120)) > 10
    finally:
        ws.close()


# --- major 2: cheap messages pin a kernel --------------------------------------------------------------------------

SHARE = 0.25  # explorer.hosting.server.kernel_budget.CPU_SHARE: of one core, over any 10 s window


def _kernel_info_reply(ws: websocket.WebSocket, timeout: float) -> bool:
    """Whether a kernel_info reply came within ``timeout`` [s]: it is answered after the shell queue is done."""
    ws.send_binary(cl.v1_frame("kernel_info_request", {}))
    for raw in cl.frames_until(ws, timeout):
        if isinstance(raw, bytes) and cl.parse_v1_frame(raw)[1]["header"]["msg_type"] == "kernel_info_reply":
            return True
    return False


def test_twenty_tab_switches_a_second_cost_at_most_a_quarter_of_a_core(defaults):
    """Each switch as a browser makes it: the tab's new index, and the shown chart's view asking for a drawing
    (ipympl's front end sends ``draw`` when a canvas view appears); 40 messages a second, under the limit of 50."""
    page = cl.get_page(defaults.url)
    pid = cl.kernel_pid(defaults.proc.pid, defaults.log, page.kernel_id)
    ws = cl.connect(defaults.url, page.kernel_id, v1=True, cookie=page.cookie, timeout=120)
    try:
        states = cl.widget_states(ws)
        tabs = next(cid for cid, st in states.items() if st.get("state", {}).get("_model_name") == "TabModel"
                    and len(st["state"].get("children", [])) >= 4)
        canvases = [cid for cid, st in states.items() if st.get("state", {}).get("_model_name") == "MPLCanvasModel"]
        assert canvases

        def switch(index: int) -> None:
            cl.send_comm_msg(ws, tabs, {"method": "update", "state": {"selected_index": index}, "buffer_paths": []},
                             v1=True)
            cl.send_comm_msg(ws, canvases[index % len(canvases)], {"method": "custom", "content": {"type": "draw"}},
                             v1=True)

        for index in (1, 2, 3, 0):  # every tab built once, as a viewer's first visits do (not part of the attack)
            switch(index)
        assert _kernel_info_reply(ws, 300)
        cpu_before, start = cl.cpu_seconds(pid), time.monotonic()
        sent = 0
        while time.monotonic() - start < 10:  # 20 switches a second
            sent += 1
            switch(sent % 4)
            time.sleep(0.05)
        assert _kernel_info_reply(ws, 600)  # before: after every switch had been worked through
        cpu = cl.cpu_seconds(pid) - cpu_before
        elapsed = time.monotonic() - start
        print(f"tab switches: {sent} sent, {cpu:.2f} CPU-s of the kernel in {elapsed:.1f} s")
        # the budget (a quarter of a core) plus one message under way when it ran out; before: a core for as long
        # as the switches came, and after
        assert cpu <= SHARE * elapsed + 1.0, f"{cpu:.1f} CPU-s in {elapsed:.1f} s for {sent} tab switches"
        # the newest choice won: the kernel ends on the last tab sent
        assert cl.wait_until(lambda: cl.widget_states(ws)[tabs]["state"]["selected_index"] == sent % 4, 60, step=1)
    finally:
        ws.close()


# --- minor 8: every refused link value in the banner -----------------------------------------------------------

@pytest.mark.parametrize("lang, words", [("en", "is not allowed"), ("zh", "不可用")])
def test_every_refused_link_value_is_named_in_the_pages_banner(server, lang, words):
    link = "params=NaN&tokens=inf&mfu=abc&seq_len=1,5&gpus=%00&lang=" + lang  # before: all five dropped silently
    page = cl.get_page(f"{server.url}?{link}")
    assert page.rendered
    ws = cl.connect(server.url, page.kernel_id, v1=True, cookie=page.cookie, timeout=120)
    try:
        values = [str(s.get("state", {}).get("value", "")) for s in cl.widget_states(ws).values()]
    finally:
        ws.close()
    banner = next(v for v in values if 'class="explorer-banner"' in v)
    for value in ("&#x27;NaN&#x27;", "&#x27;inf&#x27;", "&#x27;abc&#x27;", "&#x27;1,5&#x27;", "&#x27;\\x00&#x27;"):
        assert value in banner, (value, banner)
    assert banner.count(words) == 5, banner


# --- minor 7: the idle rule counts only messages to the page's own widgets ---------------------------------------

@pytest.fixture(scope="module")
def idle_server():
    srv = Server("v4-idle", "--ExplorerVoila.page_idle_timeout=8", "--ExplorerVoila.warden_interval=1", pool_size=0,
                 env=_THIS_CHECKOUT)
    yield srv
    srv.stop()


def test_updates_to_widgets_that_do_not_exist_keep_no_seat(idle_server):
    faker, viewer = cl.get_page(idle_server.url), cl.get_page(idle_server.url)
    fake_ws = cl.connect(idle_server.url, faker.kernel_id, v1=True, cookie=faker.cookie, timeout=120)
    ws = cl.connect(idle_server.url, viewer.kernel_id, v1=True, cookie=viewer.cookie, timeout=120)
    try:
        cl.widget_states(fake_ws)  # as the page does: every widget's state, by id
        slider, value = next((cid, st["state"]["value"]) for cid, st in cl.widget_states(ws).items()
                             if "SliderModel" in str(st.get("state", {}).get("_model_name", "")))
        deadline = time.monotonic() + 90
        while cl.kernel_exists(idle_server.url, faker.kernel_id) and time.monotonic() < deadline:
            # a control's new value, as the page sends it, to an id no widget has (before: it kept the seat)
            cl.send_comm_msg(fake_ws, uuid.uuid4().hex, {"method": "update", "state": {"value": 7},
                                                         "buffer_paths": []}, v1=True)
            # the viewer moves a real slider (to the value it has: nothing to recompute)
            cl.send_comm_msg(ws, slider, {"method": "update", "state": {"value": value}, "buffer_paths": []},
                             v1=True)
            time.sleep(1)
        assert not cl.kernel_exists(idle_server.url, faker.kernel_id)
        assert cl.kernel_exists(idle_server.url, viewer.kernel_id)
    finally:
        fake_ws.close()
        ws.close()


# --- major 5: one address grows the demand pool ------------------------------------------------------------------

@pytest.fixture(scope="module")
def pool_server():
    srv = Server("v4-pool", "--ExplorerVoila.seats_per_address=2", "--DemandPool.interval=0.5",
                 # the test machine is shared: its load is not this server's
                 "--DemandPool.max_load_per_core=1000", "--DemandPool.max_cpu_busy=1", pool_size=1,
                 env=_THIS_CHECKOUT, ready_timeout=300)
    yield srv
    srv.stop()


def test_one_address_in_a_loop_grows_the_pool_no_further_than_its_seats(pool_server):
    for _ in range(8):  # loads and beacons in a loop from one address (before: the pool grew to 40)
        page = cl.get_page(pool_server.url, timeout=300)
        assert page.status == 200 and page.kernel_id
        assert cl.beacon(pool_server.url, page.kernel_id, page.cookie, page.cookies["_xsrf"]) == 204
    resized = re.compile(r"Demand pool for \S+: \d+ -> (\d+) kernels")
    assert cl.wait_until(lambda: resized.search(pool_server.log.read_text()), 60), "the pool did not follow demand"
    sizes = [int(n) for n in resized.findall(pool_server.log.read_text())]
    assert max(sizes) <= 2, sizes  # the pool's floor of 1 and the address's 2 seats, not its 8 loads


# --- major 4: the template is a single point of failure ------------------------------------------------------------

@pytest.fixture(scope="module")
def template_server():
    srv = Server("v4-template", pool_size=1, env=_THIS_CHECKOUT, ready_timeout=300)
    yield srv
    srv.stop()


def _oom(pid: int, name: str) -> int:
    return int(Path(f"/proc/{pid}/{name}").read_text())


def test_the_templates_death_costs_no_viewer_their_app_and_no_arrival_an_error_page(template_server):
    viewer = cl.get_page(template_server.url)
    ws = cl.connect(template_server.url, viewer.kernel_id, v1=True, cookie=viewer.cookie, timeout=120)
    try:
        comms = len(cl.widget_comm_ids(ws, v1=True, timeout=120))
        assert comms > 100
        (template,) = cl.kernel_templates(template_server.proc.pid)
        kernel = cl.kernel_pid(template_server.proc.pid, template_server.log, viewer.kernel_id)
        # the OOM killer's choice: a kernel (one viewer) before the template (every arrival); before, the
        # template's score was the highest of the server's processes
        assert _oom(kernel, "oom_score_adj") > _oom(template, "oom_score_adj")
        assert _oom(kernel, "oom_score") > _oom(template, "oom_score")
        template_server.wait_ready_kernels(template_server.ready_kernels() or 1, 120)
        os.kill(template, signal.SIGKILL)  # as the OOM killer would
        assert cl.wait_until(lambda: not Path(f"/proc/{template}").exists()
                             or Path(f"/proc/{template}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z", 60)
        # the connected viewer keeps their app: the same kernel, all its widgets (before: a blank fork, 22 comms)
        assert len(cl.widget_comm_ids(ws, v1=True, timeout=120)) == comms
        assert Path(f"/proc/{kernel}").exists() and "AsyncIOLoopKernelRestarter: restarting" not in \
            template_server.log.read_text()
        # the next arrivals get the app (before: an error page from each dead pool kernel)
        for _ in range(2):
            page = cl.get_page(template_server.url, timeout=300)
            assert page.status == 200 and page.rendered, page.body[-300:]
    finally:
        ws.close()
