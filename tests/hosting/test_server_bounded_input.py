"""Issue 24 items 2, 3, 4 and 6 against a real server on 127.0.0.1: bounded input and bounded work.

- 60,000 digits and a letter in a number box, in a link and in a workshop answer are refused and the kernel
  answers the next message (the old parser backtracked: 40,000 characters cost more than a minute);
- the links of death render the app with the refusal banner (they raised decimal.Overflow: no app);
- 40 What-if sort changes sent at once leave the kernel idle again soon (each recomputed the grid and redrew
  the heat-map: minutes of CPU per burst);
- the workshop Check button answers ``1e308 x 10^10`` and ``5e-324``.

Every wait is on a condition, with a generous deadline (the machine is shared); each test frees its kernels.
"""

from __future__ import annotations

import time
import uuid

import pytest
import websocket

import clients as cl
from conftest import Server

from explorer.text import label

pytestmark = pytest.mark.server

LONG = "1" * 60_000 + "a"
LESSON1 = "explorer/notebooks/lessons/en/01_flops_to_dollars.ipynb"


# ------------------------------------------------------------------ helpers
def _connect(server: Server, page: cl.Page) -> websocket.WebSocket:
    """The page's kernel websocket, with the page's cookie (only the page that owns a kernel may connect)."""
    return websocket.create_connection(cl.ws_url(server.url, page.kernel_id, uuid.uuid4().hex), timeout=60,
                                       subprotocols=[cl.V1], cookie=page.cookie)


def _release(server: Server, page: cl.Page) -> None:
    """Shut the page's kernel down as its unload beacon does (the kernels of a test do not pile up)."""
    xsrf = page.cookies.get("_xsrf")
    if not (xsrf and page.kernel_id):
        return
    try:
        cl.beacon(server.url, page.kernel_id, page.cookie, xsrf)  # _xsrf and the seat cookie
    except OSError:  # the server may be gone (urllib's URLError is an OSError)
        pass


def _states(ws: websocket.WebSocket) -> dict[str, dict]:
    return {cid: st.get("state", st) for cid, st in cl.widget_states(ws, timeout=120).items()}


def _update(ws: websocket.WebSocket, comm_id: str, state: dict) -> None:
    cl.send_comm_msg(ws, comm_id, {"method": "update", "state": state, "buffer_paths": []}, v1=True)


def _frames(ws: websocket.WebSocket, seconds: float):
    """The messages ``ws`` receives in ``seconds`` [s] or until none comes for that long: (type, content)."""
    for raw in cl.frames_until(ws, seconds):
        if isinstance(raw, bytes):
            _, msg = cl.parse_v1_frame(raw)
            yield msg["header"]["msg_type"], msg["content"]


def _wait_for_html(ws: websocket.WebSocket, needle: str, timeout: float) -> str | None:
    """The first widget update within ``timeout`` [s] whose value holds ``needle``."""
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        for kind, content in _frames(ws, left):
            value = str(content.get("data", {}).get("state", {}).get("value", "")) if kind == "comm_msg" else ""
            if needle in value:
                return value
            if time.monotonic() > deadline:
                break
    return None


def _answers_next_message(ws: websocket.WebSocket, timeout: float = 180) -> float:
    """Seconds until the kernel answers a ``comm_info_request`` sent now (inf when it does not in ``timeout``)."""
    start = time.monotonic()
    ws.send_binary(cl.v1_frame("comm_info_request", {"target_name": "jupyter.widget"}))
    for kind, _ in _frames(ws, timeout):
        if kind == "comm_info_reply":
            return time.monotonic() - start
        if time.monotonic() - start > timeout:
            break
    return float("inf")


def _wait_idle(pid: int, timeout: float, quiet_s: float = 3.0, step: float = 0.5) -> float | None:
    """Seconds until process ``pid`` used less than 0.15 CPU-s in ``quiet_s`` [s]; None if not within ``timeout``."""
    start = time.monotonic()
    samples = [(start, cl.cpu_seconds(pid))]
    while time.monotonic() - start < timeout:
        time.sleep(step)
        now = (time.monotonic(), cl.cpu_seconds(pid))
        samples.append(now)
        old = [s for s in samples if now[0] - s[0] >= quiet_s]
        if old and now[1] - old[-1][1] < 0.15:
            return old[-1][0] - start
    return None


@pytest.fixture(scope="module")
def app_server():
    srv = Server("v3-input", pool_size=1)
    yield srv
    srv.stop()


# ------------------------------------------------------------------ item 4: links of death
DEATH_LINKS = {
    "?tokens=1e1000000": "tokens",
    "?params=1e99999999999999999999": "params",
    "?budget_usd=1e1000000": "budget_usd",
    "?gpu_cap=1e1000000": "gpu_cap",
    "?slot_B=tokens%3D1e1000000": "slot_B",
    "?tokens=" + "1" * 3000 + "a": "tokens",
}


@pytest.mark.parametrize("link", list(DEATH_LINKS), ids=list(DEATH_LINKS.values())[:5] + ["tokens-3000-digits"])
def test_a_link_of_death_renders_the_app_with_the_refusal_banner(app_server, link):
    page = cl.get_page(app_server.url + link, timeout=300)
    try:
        assert page.status == 200 and page.rendered, page.body[-500:]
        assert "There was an error when executing cell" not in page.body and "Traceback" not in page.body
        ws = _connect(app_server, page)
        field = label(f"field:{DEATH_LINKS[link]}") if DEATH_LINKS[link].startswith("slot") else None
        words = {"tokens": "Training tokens", "params": "Model size", "budget_usd": "Budget",
                 "gpu_cap": "GPUs"}.get(DEATH_LINKS[link], field)
        deadline = time.monotonic() + 180
        banner = ""
        while time.monotonic() < deadline:  # a preheated kernel applies the link once the request reaches it
            banner = next((st["value"] for st in _states(ws).values()
                           if 'class="explorer-banner"' in str(st.get("value", ""))), "")
            if banner:
                break
            time.sleep(1)
        ws.close()
        assert "explorer-banner" in banner and words in banner and "not allowed" in banner, banner[:500]
        assert len(banner) < 2000
    finally:
        _release(app_server, page)


# ------------------------------------------------------------------ item 2: 60,000 digits in a box
def test_sixty_thousand_digits_in_a_number_box_are_refused_and_the_kernel_answers(app_server):
    page = cl.get_page(app_server.url, timeout=300)
    try:
        ws = _connect(app_server, page)
        states = _states(ws)
        tokens = next(cid for cid, st in states.items()
                      if st.get("_model_name") == "TextModel" and st.get("value") == "1T")  # the tokens box
        assert _answers_next_message(ws) < 180
        start = time.monotonic()
        _update(ws, tokens, {"value": LONG})
        refusal = _wait_for_html(ws, 'class="explorer-banner"', 180)
        answered = _answers_next_message(ws)
        took = time.monotonic() - start
        assert refusal is not None and "Training tokens" in refusal and "60,001 characters" in refusal, refusal
        assert answered < 180, f"the kernel did not answer the next message ({took:.1f} s)"
        _update(ws, tokens, {"value": "2T"})  # the box still works
        assert _wait_for_html(ws, "2T", 180) is not None or _answers_next_message(ws) < 180
        ws.close()
    finally:
        _release(app_server, page)


def test_sixty_thousand_digits_in_a_link_are_refused_and_the_kernel_answers(app_server):
    """The server refuses a link over its 16,384 characters before any kernel reads it (the app reads 4,096 of
    them and names what it left out: issue 41); a link with a 4,000-digit number reaches the app, which refuses the
    number in the banner and answers."""
    whole = cl.get_page(app_server.url + "?tokens=" + LONG, timeout=300)  # 60,008 characters of query
    assert whole.status == 400 and "16,384" in whole.body and "Traceback" not in whole.body
    page = cl.get_page(app_server.url + "?tokens=" + LONG[:4000] + "a", timeout=300)
    try:
        assert page.status == 200 and page.rendered and "There was an error" not in page.body
        ws = _connect(app_server, page)
        assert _answers_next_message(ws) < 180
        deadline, banner = time.monotonic() + 180, ""
        while time.monotonic() < deadline and not banner:
            banner = next((st["value"] for st in _states(ws).values()
                           if 'class="explorer-banner"' in str(st.get("value", ""))), "")
        ws.close()
        assert "4,001 characters" in banner and "not allowed" in banner, banner[:300]
    finally:
        _release(app_server, page)


# ------------------------------------------------------------------ item 3: 40 What-if sorts at once
def test_forty_what_if_sort_changes_at_once_leave_the_kernel_idle_soon(app_server):
    from explorer.app.tabs.what_if import SORT_KEYS, _SORT_LABEL, lever_values

    page = cl.get_page(app_server.url, timeout=300)
    try:
        ws = _connect(app_server, page)
        pid = cl.kernel_pid(app_server.proc.pid, app_server.log, page.kernel_id)
        states = _states(ws)
        tab = next(cid for cid, st in states.items() if st.get("_model_name") == "TabModel")
        _update(ws, tab, {"selected_index": 7})  # What if: the tab builds its pickers when first shown
        sort_labels = [label(_SORT_LABEL[k]) for k in SORT_KEYS]
        deadline, sort, pickers = time.monotonic() + 240, None, []
        while time.monotonic() < deadline and sort is None:
            time.sleep(1)
            states = _states(ws)
            sort = next((cid for cid, st in states.items() if st.get("_options_labels") == sort_labels), None)
            pickers = [cid for cid, st in states.items() if st.get("_model_name") == "SelectMultipleModel"]
        assert sort is not None and len(pickers) == 3
        regions = list(lever_values("region"))
        by_options = {tuple(states[cid]["_options_labels"]): cid for cid in pickers}
        region_box = next(cid for opts, cid in by_options.items() if len(opts) == len(regions))
        pricing_box = next(cid for opts, cid in by_options.items() if len(opts) == len(lever_values("pricing")))
        precision_box = next(cid for cid in pickers if cid not in (region_box, pricing_box))
        # a large grid within the limit (MAX_GRID_ROWS = 200): six pricings x one precision x every region =
        # 6 x 1 x 27 = 162 rows (all eight pricings since the seller split of issue 27 would be 216, refused)
        _update(ws, pricing_box, {"index": list(range(6))})
        _update(ws, precision_box, {"index": [0]})
        _update(ws, region_box, {"index": list(range(len(regions)))})
        assert _wait_idle(pid, 300) is not None
        assert _answers_next_message(ws) < 180
        before = cl.cpu_seconds(pid)
        for i in range(40):  # the last one sorts by days
            _update(ws, sort, {"index": (i + 3) % len(SORT_KEYS)})
        idle_after = _wait_idle(pid, 120)
        burst_cpu = cl.cpu_seconds(pid) - before
        table = next((st["value"] for st in _states(ws).values() if "explorer-whatif-table" in str(st.get("value"))),
                     "")
        assert table.count("<tr") == 6 * len(regions) + 1  # the header and the 162 rows of the grid
        assert f"<th class=sorted>{label('kpi_days')} ▲" in table, table[:1200]  # the latest sort was applied
        print(f"40 sort changes on a {6 * len(regions)}-row grid: {burst_cpu:.2f} CPU-s, idle after {idle_after} s")
        assert idle_after is not None and idle_after < 60, (idle_after, burst_cpu)
        assert burst_cpu < 10, burst_cpu  # one table of reordered rows per coalesced answer, no grid, no heat-map
        assert _answers_next_message(ws) < 60
        ws.close()
    finally:
        _release(app_server, page)


# ------------------------------------------------------------------ items 2 and 6: a workshop answer
@pytest.fixture(scope="module")
def lesson_server():
    srv = Server("v3-lesson", notebook=LESSON1, pool_size=0)
    yield srv
    srv.stop()


def test_workshop_answers_past_any_number_get_feedback_and_the_kernel_answers(lesson_server):
    page = cl.get_page(lesson_server.url, timeout=300)
    try:
        assert page.status == 200 and page.rendered
        ws = _connect(lesson_server, page)
        states = _states(ws)
        box = next(cid for cid, st in states.items()
                   if st.get("_model_name") == "TextModel" and "3.2e23" in st.get("placeholder", ""))
        row = next(st for st in states.values()
                   if st.get("_model_name") == "HBoxModel" and f"IPY_MODEL_{box}" in st.get("children", []))
        button = next(c.removeprefix("IPY_MODEL_") for c in row["children"] if c != f"IPY_MODEL_{box}")
        for answer, feedback in ((LONG, "not a number I can read"), ("1e308 x 10^10", "too large or too small"),
                                 ("5e-324", "too large or too small")):
            _update(ws, box, {"value": answer})
            cl.send_comm_msg(ws, button, {"method": "custom", "content": {"event": "click"}}, v1=True)
            shown = _wait_for_html(ws, "✘", 180)
            assert shown is not None and feedback in shown, (answer[:20], shown)
            assert _answers_next_message(ws) < 180
        ws.close()
        assert "Traceback" not in lesson_server.log.read_text()
    finally:
        _release(lesson_server, page)


def test_the_servers_log_no_traceback(app_server):
    text = app_server.log.read_text()
    assert "Traceback" not in text and "decimal.Overflow" not in text, text[text.find("Traceback"):][:2000]
