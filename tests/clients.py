"""Protocol-level clients of a Voila server, for attack, release and load tests.

They speak to the server as a script on the internet would: plain HTTP for the
page, and the kernel websocket either without a subprotocol (the old JSON
frames that the 2025 attack used) or with ``v1.kernel.websocket.jupyter.org``
(the binary frames the browser sends). Nothing here imports the app.
"""

from __future__ import annotations

import json
import os
import re
import signal
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import websocket  # websocket-client, a dependency of jupyter_server

V1 = "v1.kernel.websocket.jupyter.org"


@dataclass
class Page:
    """One ``GET`` of the app: status, body, cookies and the kernel it started."""

    status: int
    body: str
    seconds: float
    cookies: dict[str, str] = field(default_factory=dict)
    set_cookies: list[str] = field(default_factory=list)  # the response's Set-Cookie headers, as sent

    @property
    def kernel_id(self) -> str | None:
        found = re.search(r'"kernelId":\s*"([0-9a-f-]{36})"', self.body)
        return found.group(1) if found else None

    @property
    def cookie(self) -> str:
        """The cookies the page set, as a ``Cookie`` header: the kernel websocket is accepted only with them."""
        return "; ".join(f"{name}={value}" for name, value in self.cookies.items())

    @property
    def rendered(self) -> bool:
        """The page holds the app's widget (not an empty or error page)."""
        return "application/vnd.jupyter.widget-view+json" in self.body


def wait_until(condition, timeout: float, step: float = 0.5) -> bool:
    """Whether ``condition()`` became true within ``timeout`` [s], asked every ``step`` [s] (and once at the end)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return condition()


def get_page(url: str, timeout: float = 180.0, headers: dict | None = None) -> Page:
    """Fetch ``url`` (with request ``headers``) and read it to the end (Voila streams the page while the
    notebook runs)."""
    start = time.monotonic()
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=timeout) as response:
            body = response.read().decode("utf-8", "replace")
            status = response.status
            headers = response.headers
    except urllib.error.HTTPError as exc:
        body, status, headers = exc.read().decode("utf-8", "replace"), exc.code, exc.headers
    cookies = {}
    set_cookies = headers.get_all("Set-Cookie") or []
    for raw in set_cookies:
        name, _, rest = raw.partition("=")
        cookies[name.strip()] = rest.split(";", 1)[0]
    return Page(status, body, time.monotonic() - start, cookies, list(set_cookies))


def beacon(base_url: str, kernel_id: str, cookie: str, xsrf: str, timeout: float = 60.0) -> int:
    """What a page's unload beacon sends (``navigator.sendBeacon`` with a FormData holding ``_xsrf``), sent
    with the ``Cookie`` header ``cookie``; the HTTP status (204: the kernel was shut down)."""
    body = urllib.parse.urlencode({"_xsrf": urllib.parse.unquote(xsrf)}).encode()
    request = urllib.request.Request(f"{base_url}voila/api/shutdown/{kernel_id}", data=body, method="POST",
                                     headers={"Cookie": cookie})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def ws_url(base_url: str, kernel_id: str, session_id: str = "x") -> str:
    return base_url.replace("http://", "ws://").rstrip("/") + f"/api/kernels/{kernel_id}/channels?session_id={session_id}"


def _header(msg_type: str, session: str) -> dict:
    return {"msg_id": uuid.uuid4().hex, "msg_type": msg_type, "username": "", "session": session,
            "date": "2026-01-01T00:00:00.000000Z", "version": "5.3"}


def legacy_message(msg_type: str, content: dict, channel: str = "shell", session: str = "x") -> str:
    """A kernel message as the old (pre-v1) protocol frames it: JSON text with a ``channel`` key."""
    return json.dumps({"header": _header(msg_type, session), "parent_header": {}, "metadata": {},
                       "content": content, "channel": channel, "buffers": []})


def v1_frame(msg_type: str, content: dict, channel: str = "shell", session: str = "x",
             metadata: dict | None = None) -> bytes:
    """A kernel message in the v1 binary framing (offset count, offsets, channel, parts)."""
    parts = [json.dumps(p).encode() for p in (_header(msg_type, session), {}, metadata or {}, content)]
    channel_bytes = channel.encode()
    offsets = [8 * (1 + 1 + len(parts) + 1)]
    offsets.append(offsets[-1] + len(channel_bytes))
    for part in parts:
        offsets.append(offsets[-1] + len(part))
    head = len(offsets).to_bytes(8, "little") + b"".join(o.to_bytes(8, "little") for o in offsets)
    return head + channel_bytes + b"".join(parts)


def parse_v1_frame(frame: bytes) -> tuple[str, dict]:
    """(channel, message) of a v1 frame the server sent; buffers are dropped."""
    count = int.from_bytes(frame[:8], "little")
    if not 2 <= count <= 1 << 16:
        raise ValueError(f"not a v1 frame: {count} offsets")
    offsets = [int.from_bytes(frame[8 * (i + 1):8 * (i + 2)], "little") for i in range(count)]
    channel = frame[offsets[0]:offsets[1]].decode()
    names = ("header", "parent_header", "metadata", "content")
    msg = {name: json.loads(frame[offsets[i + 1]:offsets[i + 2]]) for i, name in enumerate(names)}
    return channel, msg


def connect(base_url: str, kernel_id: str, *, v1: bool, timeout: float = 30.0,
            cookie: str | None = None) -> websocket.WebSocket:
    """Open the kernel websocket, offering the v1 subprotocol or none at all."""
    kwargs = {"timeout": timeout}
    if v1:
        kwargs["subprotocols"] = [V1]
    if cookie:
        kwargs["cookie"] = cookie
    return websocket.create_connection(ws_url(base_url, kernel_id), **kwargs)


def widget_comm_ids(ws: websocket.WebSocket, *, v1: bool, timeout: float = 30.0) -> list[str]:
    """Ask the kernel for its ``jupyter.widget`` comms (``comm_info_request``)."""
    content = {"target_name": "jupyter.widget"}
    ws.send_binary(v1_frame("comm_info_request", content)) if v1 else ws.send(
        legacy_message("comm_info_request", content))
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        ws.settimeout(left)  # per call: the server's pings would otherwise keep a lone recv() waiting
        try:
            raw = ws.recv()
        except websocket.WebSocketTimeoutException:
            break
        if v1 and isinstance(raw, bytes):
            _, msg = parse_v1_frame(raw)
        elif not v1 and isinstance(raw, str):
            msg = json.loads(raw)
        else:
            continue
        if msg["header"]["msg_type"] == "comm_info_reply":
            return list(msg["content"]["comms"])
    raise TimeoutError("no comm_info_reply")


def send_comm_msg(ws: websocket.WebSocket, comm_id: str, data: dict, *, v1: bool) -> None:
    content = {"comm_id": comm_id, "data": data}
    ws.send_binary(v1_frame("comm_msg", content)) if v1 else ws.send(legacy_message("comm_msg", content))


def rss_mb(pid: int) -> float:
    """Resident memory of one process [MB] (from /proc; 0 when it is gone).

    A kernel listed a moment ago may have ended since (culled, shut down, replaced): it then holds nothing.
    """
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _direct_children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def is_kernel_template(pid: int) -> bool:
    """Whether ``pid`` is a kernel template (explorer/hosting/kernel/kernel_template.py), the parent of forked kernels."""
    try:
        return "kernel_template.py" in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return False


def children(pid: int) -> list[int]:
    """The kernels of a Voila server: its child processes, where a kernel template stands for the kernels
    forked from it (explorer.hosting.server.provisioner); the template itself is not a kernel."""
    found = []
    for child in _direct_children(pid):
        if is_kernel_template(child):
            found.extend(_direct_children(child))
        else:
            found.append(child)
    return found


def kernel_templates(pid: int) -> list[int]:
    """The kernel templates a Voila server started (none when it launches every kernel normally)."""
    return [child for child in _direct_children(pid) if is_kernel_template(child)]


def forked_kernel_pid(log: Path, kernel_id: str) -> int | None:
    """The pid of ``kernel_id`` when the server forked it from its kernel template, from the server's ``log``.

    A forked kernel (explorer.hosting.server.provisioner) keeps the template's command line, so its pid is read from
    the provisioner's "Kernel <id> forked from template <pid> as <pid>" line; None when no such line is there.
    """
    text = log.read_text(errors="replace") if log.exists() else ""
    found = re.search(rf"Kernel {re.escape(kernel_id)} forked from template \d+ as (\d+)", text)
    return int(found.group(1)) if found else None


def kernel_pid(server_pid: int, log: Path, kernel_id: str) -> int:
    """The pid of the kernel ``kernel_id`` of the server ``server_pid`` (whose log is ``log``), forked or launched.

    A forked kernel is named in the log (:func:`forked_kernel_pid`); a launched one has its connection file,
    which holds its id, on its command line.
    """
    forked = forked_kernel_pid(log, kernel_id)
    if forked is not None:
        return forked
    for pid in children(server_pid):
        try:
            if kernel_id in Path(f"/proc/{pid}/cmdline").read_text():
                return pid
        except OSError:
            continue
    raise AssertionError(f"no process for kernel {kernel_id}")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time used so far by one process [s] (from /proc; 0 when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree_rss_mb(pid: int) -> float:
    """Resident memory of a server, its kernel templates and its kernels [MB]."""
    total = 0.0
    for p in [pid, *kernel_templates(pid), *children(pid)]:
        total += rss_mb(p)
    return total


def kill_if_over(pid: int, limit_mb: float) -> bool:
    """Kill ``pid`` and its kernels when they hold more than ``limit_mb``; a guard for attack tests."""
    if tree_rss_mb(pid) <= limit_mb:
        return False
    for p in [*children(pid), *kernel_templates(pid), pid]:
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass
    return True


def frames_until(ws: websocket.WebSocket, seconds: float):
    """Yield each frame ``ws`` receives until ``seconds`` [s] have passed or none comes before then."""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        ws.settimeout(left)
        try:
            yield ws.recv()
        except websocket.WebSocketTimeoutException:
            return


def widget_states(ws: websocket.WebSocket, timeout: float = 60.0) -> dict[str, dict]:
    """Every widget's state by comm id, fetched as the page's widget manager does.

    ipywidgets 8 answers one ``request_states`` on a ``jupyter.widget.control``
    comm with the state of every widget (``update_states``).
    """
    control = uuid.uuid4().hex
    ws.send_binary(v1_frame("comm_open", {"comm_id": control, "target_name": "jupyter.widget.control", "data": {}},
                            metadata={"version": "1.0.0"}))
    ws.send_binary(v1_frame("comm_msg", {"comm_id": control, "data": {"method": "request_states"}}))
    for raw in frames_until(ws, timeout):
        if not isinstance(raw, bytes):
            continue
        _, msg = parse_v1_frame(raw)
        content = msg["content"]
        if msg["header"]["msg_type"] == "comm_msg" and content.get("comm_id") == control:
            return content.get("data", {}).get("states", {})
    return {}


def request_all_states(ws: websocket.WebSocket, comm_ids: list[str], timeout: float = 60.0) -> int:
    """How many of ``comm_ids`` got their state in one ``request_states`` (the page's handshake)."""
    return len(set(widget_states(ws, timeout)) & set(comm_ids))


def kernel_exists(base_url: str, kernel_id: str) -> bool:
    """Whether the server at ``base_url`` (ending in /) still runs kernel ``kernel_id``.

    ``GET api/kernels/<id>`` without the kernel's seat cookie: 403 for a kernel the server runs (only its page
    may read it, explorer.hosting.server.kernel_rest), 404 for one it does not; 200 where that route is not guarded.
    """
    try:
        with urllib.request.urlopen(f"{base_url}api/kernels/{kernel_id}", timeout=10) as response:
            return response.status == 200
    except urllib.error.HTTPError as exc:
        assert exc.code in (403, 404), exc.code
        return exc.code == 403


def viewer_handshake(page_url: str, base_url: str | None = None, timeout: float = 180.0) -> tuple[bool, float]:
    """Load a page to its end and complete the widget handshake, as the page's widget manager does.

    ``base_url`` is the server's root, where the kernel websocket is (default: ``page_url``; for a notebook
    under ``voila/render/`` it is not the page's path). Returns (rendered, seconds); a failed viewer is
    counted as not rendered, not raised (the benchmarks count them).
    """
    start = time.monotonic()
    try:
        page = get_page(page_url, timeout=timeout)
        if not (page.status == 200 and page.rendered and page.kernel_id):
            return False, time.monotonic() - start
        ws = connect(base_url or page_url, page.kernel_id, v1=True, timeout=timeout, cookie=page.cookie)
        try:
            ids = widget_comm_ids(ws, v1=True, timeout=timeout)
            got = request_all_states(ws, ids, timeout=max(timeout - (time.monotonic() - start), 1.0))
        finally:
            ws.close()
        return got == len(ids) and len(ids) > 0, time.monotonic() - start
    except Exception:  # noqa: BLE001 - a failed viewer is counted, not raised
        return False, time.monotonic() - start


def run_async(coroutine):
    """Run ``coroutine`` to its end on a fresh event loop in a thread of its own, and return its result.

    ``asyncio.run`` refuses to start when the test process's main thread already has a running loop ("asyncio.run()
    cannot be called from a running event loop"). Playwright's sync API leaves one: between its calls it marks its
    dispatcher's loop as running in the thread that entered ``sync_playwright()`` (playwright/_impl/_greenlets.py,
    ``wait_for_future``), and ``tests/conftest.py`` keeps one chromium open for the whole session, so every
    in-process test after the first browser test sees it. A thread has no loop of its own until ``asyncio.run``
    makes one.
    """
    import asyncio
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()
