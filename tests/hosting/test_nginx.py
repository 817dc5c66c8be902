"""The app behind nginx, as deploy/serve.py runs it: two Voila processes, one nginx, 127.0.0.1 only.

Proves the config does something: websockets and sticky sessions work in a real browser, page
loads are rate-limited per address, oversized requests stop at nginx, static files are cached.
"""

from __future__ import annotations

import http.client
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

from deploy.serve import find_nginx, free_port, wait_for_port
from conftest import ARTIFACTS, ROOT

pytestmark = pytest.mark.server

SERVE = ROOT / "deploy" / "serve.py"


@dataclass
class Stack:
    host: str
    port: int
    voila_ports: list[int]
    prefix: Path

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    def access_log(self) -> str:
        return (self.prefix / "logs" / "access.log").read_text(encoding="utf-8")


def _require_nginx() -> str:
    nginx = find_nginx()
    if nginx is None:
        if os.environ.get("CI"):
            pytest.fail("nginx is not installed; .ci/run installs it with apt-get")
        pytest.skip("nginx is not installed (apt-get install nginx)")
    return nginx


def _distinct_free_ports(n: int) -> list[int]:
    ports: list[int] = []
    for _ in range(20 * n):  # bounded: the OS rarely hands out the same free port twice
        port = free_port()
        if port not in ports:
            ports.append(port)
        if len(ports) == n:
            return ports
    raise RuntimeError("no free ports")


def _serve(prefix: Path, *args: str) -> tuple[subprocess.Popen, int]:
    """Start deploy/serve.py; return it and its nginx port once nginx listens."""
    port = free_port()
    log = open(prefix.with_suffix(".log"), "w")
    proc = subprocess.Popen([sys.executable, str(SERVE), "--listen", f"127.0.0.1:{port}",
                             "--prefix", str(prefix), "--timeout", "120", *args],
                            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    log.close()
    if not wait_for_port(port, 180, proc):
        _stop(proc)
        pytest.fail(f"deploy/serve.py did not start: {prefix.with_suffix('.log').read_text()[-3000:]}"
                    f"\n{(prefix / 'logs' / 'error.log').read_text()[-2000:] if (prefix / 'logs' / 'error.log').exists() else ''}")
    return proc, port


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()  # serve.py stops its own nginx and Voila processes
    try:
        proc.wait(timeout=40)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    """deploy/serve.py with two Voila processes and the shipped default limits."""
    _require_nginx()
    # as root, nginx's workers run as nobody: the prefix must be world-searchable (pytest's
    # tmp_path is not)
    base = Path(tempfile.mkdtemp(prefix="explorer-nginx-test-"))
    base.chmod(0o755)
    prefix = base / "prefix"
    voila_ports = _distinct_free_ports(2)
    # a preheated pool of one kernel per process at most (voila.json may ask for more)
    proc, port = _serve(prefix, "--ports", ",".join(map(str, voila_ports)), "--", "--pool_size=1",
                        "--ExplorerVoila.static_first=False")  # pages with a kernel at once (issue 39)
    yield Stack("127.0.0.1", port, voila_ports, prefix)
    _stop(proc)
    ARTIFACTS.mkdir(exist_ok=True)
    for log in (prefix / "logs").glob("*.log"):  # keep the evidence for CI
        (ARTIFACTS / f"nginx-{log.name}").write_bytes(log.read_bytes())
    shutil.rmtree(base, ignore_errors=True)


def _request(url: str, method: str = "GET", headers: dict | None = None, path: str = "/",
             timeout: float = 120) -> tuple[int, dict, bytes]:
    """One request with http.client (no redirects, no cookie jar, any status returned)."""
    host, port = url.split("//")[1].rstrip("/").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        conn.putrequest(method, path, skip_accept_encoding=True)
        for name, value in (headers or {}).items():
            conn.putheader(name, value)
        conn.endheaders()
        response = conn.getresponse()
        body = response.read()
        return response.status, {k.lower(): v for k, v in response.getheaders()} | {
            "set-cookie-all": response.headers.get_all("Set-Cookie") or []}, body
    finally:
        conn.close()


def _log_lines(stack: Stack, needle: str, at_least: int = 0) -> list[str]:
    """The access-log lines holding ``needle``; waits (up to 5 s) for ``at_least`` of them.

    nginx logs a request after it has sent the response, so the last answer's line can land a
    moment after the client has read it.
    """
    for _ in range(50):
        lines = [line for line in stack.access_log().splitlines() if needle in line]
        if len(lines) >= at_least:
            break
        time.sleep(0.1)
    return lines


def test_static_files_are_cached_with_cache_headers(stack):
    status, headers, body = _request(stack.url, path="/voila/static/voila.js")
    assert status == 200 and len(body) > 1000
    # Voila sends only an ETag for voila.js; nginx adds an hour of browser caching ...
    assert headers["cache-control"] == "max-age=3600" and "expires" in headers
    status, headers, _ = _request(stack.url, path="/voila/static/voila.js")
    assert headers["x-cache-status"] == "HIT"  # ... and keeps its own copy
    # no Voila cookie is stored with, or served from, the cache
    assert not any(c.startswith("username-") for c in headers["set-cookie-all"])
    # versioned URLs, as the page names its CSS: kept for good
    status, headers, _ = _request(stack.url, path="/voila/templates/lab/static/index.css?v=0123")
    assert status == 200 and headers["cache-control"] == "max-age=315360000"
    assert headers["x-content-type-options"] == "nosniff" and "frame-ancestors 'self'" in headers[
        "content-security-policy"]


def test_static_files_are_compressed_and_pages_are_not(stack):
    import gzip

    gz = {"Accept-Encoding": "gzip"}
    status, plain_headers, plain = _request(stack.url, path="/voila/static/voila.js")
    status, headers, body = _request(stack.url, path="/voila/static/voila.js", headers=gz)
    assert status == 200 and headers.get("content-encoding") == "gzip" and "Accept-Encoding" in headers["vary"]
    assert gzip.decompress(body) == plain and len(body) < len(plain) / 2
    # a labextension script, as the page names it
    page_status, page_headers, page = _request(stack.url, headers=gz, timeout=180)
    assert page_status == 200 and "content-encoding" not in page_headers
    entry = re.search(rb'"load": "(static/remoteEntry\.[0-9a-f]+\.js)", "name": "([^"]+)"', page)
    status, headers, _ = _request(stack.url, headers=gz,
                                  path=f"/voila/labextensions/{entry.group(2).decode()}/{entry.group(1).decode()}")
    assert status == 200 and headers.get("content-encoding") == "gzip"
    # the page itself is sent as is (BREACH): it came back uncompressed although gzip was offered
    assert page.lstrip().startswith(b"<!DOCTYPE html>") or page.lstrip().lower().startswith(b"<!doctype html")


def test_oversized_requests_stop_at_nginx(stack):
    # this test's requests carry their own User-Agent, which the access log records: a late log
    # line from an earlier test's request (nginx logs after the response) cannot be mistaken for
    # one of these
    agent = {"User-Agent": "oversized-probe"}
    long_query = "/?" + "&".join(f"key{i}=value{i}" for i in range(2000))  # ~28 KB
    status, _, _ = _request(stack.url, path=long_query, headers=agent, timeout=30)
    assert status == 414
    many_keys = "/?" + "&".join("a" for _ in range(2000))  # 4 KB, but 2,000 keys
    status, headers, body = _request(stack.url, path=many_keys, headers=agent, timeout=30)
    assert status == 400 and b"Too many query parameters" in body
    assert headers["content-type"].startswith("text/plain")
    status, _, _ = _request(stack.url, headers=agent | {"Cookie": "c=" + "x" * 10_000}, timeout=30)
    assert status == 400
    status, _, _ = _request(stack.url, method="POST", path="/voila/api/shutdown/x",
                            headers=agent | {"Content-Length": "100000"}, timeout=30)
    assert status == 413
    # none of them reached Voila: nginx logs no upstream for them (a line may land just after
    # the response). nginx refuses the 414 on the request line, before it reads the User-Agent
    # header, so that line is logged with "-" as the agent and is found by its status instead.
    def probes() -> list[str]:
        lines = stack.access_log().splitlines()
        return [line for line in lines if '"oversized-probe"' in line or '" 414 ' in line]
    for _ in range(50):
        new = probes()
        if len(new) >= 4:
            break
        time.sleep(0.1)
    assert len(new) == 4 and all(" up=- " in line for line in new), new


def test_sticky_sessions_keep_a_page_on_its_voila_process(stack):
    status, headers, body = _request(stack.url, timeout=180)
    assert status == 200 and b"application/vnd.jupyter.widget-view+json" in body
    cookie = next(c for c in headers["set-cookie-all"] if c.startswith("voila_route="))
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie
    route = cookie.split(";")[0]
    for name in ("content-security-policy", "x-frame-options", "referrer-policy", "x-content-type-options"):
        assert name in headers
    kernel_id = re.search(rb'"kernelId": "([0-9a-f-]{36})"', body).group(1).decode()
    # the page's seat cookie: only the owner may read its kernel (explorer.hosting.server.kernel_rest)
    seat = next(c.split(";")[0] for c in headers["set-cookie-all"] if c.startswith("explorer_seat="))
    # with its cookie, every request reaches the process that owns the kernel
    for _ in range(10):
        status, _, _ = _request(stack.url, path=f"/api/kernels/{kernel_id}", headers={"Cookie": f"{route}; {seat}"})
        assert status == 200
    # other routes spread over both processes: some of them do not know this kernel
    statuses = {_request(stack.url, path=f"/api/kernels/{kernel_id}",
                         headers={"Cookie": f"voila_route={uuid.uuid4().hex}; {seat}"})[0] for _ in range(20)}
    assert statuses == {200, 404}
    upstreams = {m for line in _log_lines(stack, f"/api/kernels/{kernel_id} ", at_least=20)
                 for m in re.findall(r"up=(\S+)", line)}
    assert upstreams == {f"127.0.0.1:{p}" for p in stack.voila_ports}

    # the kernel websocket handshake passes nginx; jupyter_server still compares Origin with the
    # Host nginx forwards, so a page on another site cannot open it
    page_cookies = "; ".join(c.split(";")[0] for c in headers["set-cookie-all"])  # the route and the page's _xsrf

    def handshake(origin: str) -> int:
        return _request(stack.url, path=f"/api/kernels/{kernel_id}/channels?session_id=test", timeout=30,
                        headers={"Cookie": page_cookies, "Origin": origin, "Connection": "Upgrade",
                                 "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
                                 "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
                                 "Sec-WebSocket-Protocol": "v1.kernel.websocket.jupyter.org"})[0]
    assert handshake(stack.url.rstrip("/")) == 101
    assert handshake("http://evil.example") == 403


def test_page_loads_are_rate_limited_per_address(stack):
    """A second nginx, same template, one page per minute and a burst of 1, in front of Voila."""
    proc, port = _serve(stack.prefix.with_name("strict"), "--backend", f"127.0.0.1:{stack.voila_ports[0]}",
                        "--page-rate", "1r/m", "--page-burst", "1")
    try:
        strict = Stack("127.0.0.1", port, stack.voila_ports[:1], stack.prefix.with_name("strict"))
        statuses, bodies = [], []
        for _ in range(4):  # each admitted load starts a kernel: keep the burst small
            status, headers, body = _request(strict.url, timeout=180)
            statuses.append(status)
            bodies.append((headers, body))
        assert statuses == [200, 200, 429, 429], statuses
        headers, body = bodies[-1]
        assert headers["retry-after"] == "30" and "try again" in body.decode()
        lines = _log_lines(strict, '"GET / HTTP', at_least=4)
        assert [" up=- " in line for line in lines] == [False, False, True, True]
        # static files have their own, gentler zone: still served
        assert _request(strict.url, path="/voila/static/voila.js")[0] == 200
    finally:
        _stop(proc)


def _total(page) -> str:
    return page.locator(".explorer-summary").inner_text(timeout=120_000)


@pytest.mark.browser
def test_browser_through_nginx(stack, chromium):
    page = chromium.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    sockets: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    # console errors (a CSP violation is one), except the CDN requests this test aborts
    page.on("console", lambda msg: errors.append(msg.text)
            if msg.type == "error" and "net::ERR_FAILED" not in msg.text else None)
    page.on("websocket", lambda ws: sockets.append(ws.url))
    page.route("**/*", lambda route: route.continue_() if route.request.url.startswith("http://127.0.0.1")
               else route.abort())
    page.goto(stack.url, timeout=120_000)
    page.wait_for_selector(".explorer-summary p", timeout=120_000)
    page.wait_for_selector(".jupyter-matplotlib-figure canvas", state="attached", timeout=120_000)
    page.wait_for_timeout(500)
    summary0 = _total(page)

    handle = page.locator(".noUi-handle").first  # the model size
    handle.focus()
    for _ in range(25):
        handle.press("ArrowRight")
    page.wait_for_function("s => document.querySelector('.explorer-summary').innerText !== s", arg=summary0,
                           timeout=120_000)
    page.wait_for_timeout(1000)
    assert _total(page) != summary0

    # the kernel websocket went through nginx (port stack.port), upgraded, to one process
    assert any(url.startswith(f"ws://127.0.0.1:{stack.port}/api/kernels/") for url in sockets), sockets
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "app-nginx.png"), full_page=True)
    assert errors == [], errors
    kernel_id = re.search(r'"kernelId": "([0-9a-f-]{36})"', page.content()).group(1)
    page_upstream = re.search(r"up=(\S+)", _log_lines(stack, '"GET / HTTP')[-1]).group(1)
    # leaving the page sends Voila's unload beacon: it passes nginx and reaches the kernel's process
    # (Voila answers 403 until the server sets an _xsrf cookie, 204 once it does)
    page.unroute("**/*")
    page.goto("about:blank")
    beacon: list[str] = []
    for _ in range(50):
        beacon = _log_lines(stack, f"POST /voila/api/shutdown/{kernel_id} ")
        if beacon:
            break
        time.sleep(0.2)
    assert beacon and f" up={page_upstream} " in beacon[0], beacon
    page.close()
    # nginx logs a websocket when it closes: wait (bounded) for the upgraded channel's line
    channels: list[str] = []
    for _ in range(50):
        channels = [line for line in _log_lines(stack, "/channels?") if '" 101 ' in line]
        if channels:
            break
        time.sleep(0.2)
    assert channels, "no upgraded kernel websocket in nginx's access log"
    assert all(re.search(r"route=[0-9a-f]{32}", line) for line in channels)  # the sticky cookie was sent


# --- issue 20: attacks through nginx ----------------------------------------------------------------------------

def test_the_query_socket_is_not_reachable_through_nginx(stack):
    """Preheated kernels reach Voila directly; from outside, /voila/query/<id> (the stranding attack) is 404."""
    status, _, _ = _request(stack.url, path=f"/voila/query/{uuid.uuid4()}", timeout=30,
                            headers={"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
                                     "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="})
    assert status == 404


def test_slow_request_heads_from_one_address_do_not_lock_out_another(stack):
    """1,100 connections from 127.0.0.2 that never finish their head; 127.0.0.3 is still served."""
    import resource
    import socket

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 1400:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
    slow: list[socket.socket] = []
    try:
        for _ in range(1100):  # the review's figure; nginx's old worker_connections was 1,024
            s = socket.socket()
            s.bind(("127.0.0.2", 0))
            s.settimeout(10)
            s.connect(("127.0.0.1", stack.port))
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")  # never the blank line
            slow.append(s)
        served = 0
        for _ in range(8):
            s = socket.socket()
            s.bind(("127.0.0.3", 0))
            s.settimeout(30)
            s.connect(("127.0.0.1", stack.port))
            s.sendall(b"GET /voila/static/voila.js HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            served += s.recv(64).startswith(b"HTTP/1.1 200")
            s.close()
        assert served == 8
        # and the slow ones are closed after the head timeout (5 s)
        s = slow[0]
        s.settimeout(60)
        try:
            closed = s.recv(1024) == b""
        except ConnectionResetError:  # reset_timedout_connection: nginx resets it
            closed = True
        assert closed
    finally:
        for s in slow:
            s.close()
    assert "worker_connections are not enough" not in (stack.prefix / "logs" / "error.log").read_text()


def test_seats_are_counted_per_client_address_behind_nginx(stack):
    """One Voila process, 2 seats per address: 127.0.0.2 gets 2 pages and then the busy page, even when it
    claims another address in X-Real-IP (nginx replaces it); 127.0.0.3 still gets in."""
    prefix = stack.prefix.with_name("seats")
    proc, port = _serve(prefix, "--processes", "1", "--page-rate", "60r/m", "--page-burst", "20", "--",
                        "--pool_size=0", "--ExplorerVoila.seats_per_address=2", "--ExplorerVoila.static_first=False")

    def load(source: str, headers: dict | None = None) -> int:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=180, source_address=(source, 0))
        try:
            conn.request("GET", "/", headers=headers or {})
            response = conn.getresponse()
            response.read()
            return response.status
        finally:
            conn.close()

    try:
        statuses = [load("127.0.0.2"), load("127.0.0.2"), load("127.0.0.2", {"X-Real-IP": "198.51.100.7"})]
        assert statuses == [200, 200, 503], (statuses, _what_the_servers_said(prefix))
        assert load("127.0.0.3") == 200, _what_the_servers_said(prefix)
    finally:
        _stop(proc)


def _what_the_servers_said(prefix: Path) -> str:
    """nginx's access and error logs and Voila's warnings, for a failure's message (a load test that failed once
    under a CPU hog with nothing else to go on)."""
    logs = prefix / "logs"
    parts = []
    for path in sorted(logs.glob("*.log")) if logs.exists() else []:
        lines = path.read_text(errors="replace").splitlines()
        if path.name.startswith("voila"):
            lines = [line for line in lines if "WARNING" in line or "ERROR" in line or "Busy" in line]
        parts.append(f"--- {path.name}\n" + "\n".join(line[:300] for line in lines[-30:]))
    return "\n".join(parts)


def _voila_pid(port: int) -> int | None:
    """The Voila process serve.py started on ``port`` (from /proc)."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmd = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"explorer.hosting" in cmd and f"--port={port}".encode() in cmd:
                return int(entry.name)
    return None


def test_a_websocket_that_does_not_read_is_closed_behind_nginx(stack):
    """nginx stops reading from Voila when its client does not read; Voila then closes that websocket
    instead of buffering without bound (the review: 115 -> 1,883 MB in 30 s)."""
    import websocket

    import clients as cl

    agent = f"non-reading-test-{uuid.uuid4().hex}"  # finds this request's own log line (logged after the reply)
    status, headers, body = _request(stack.url, headers={"User-Agent": agent}, timeout=180)
    assert status == 200
    route = "; ".join(c.split(";")[0] for c in headers["set-cookie-all"])  # the route and the page's _xsrf cookie
    kernel_id = re.search(rb'"kernelId": "([0-9a-f-]{36})"', body).group(1).decode()
    mine = _log_lines(stack, agent, at_least=1)
    assert mine, "nginx did not log the page request"
    upstream = re.search(r"up=127\.0\.0\.1:(\d+)", mine[-1]).group(1)
    pid = _voila_pid(int(upstream))
    assert pid
    url = stack.url.replace("http://", "ws://") + f"api/kernels/{kernel_id}/channels?session_id="
    silent = websocket.create_connection(url + uuid.uuid4().hex, subprotocols=[cl.V1], cookie=route, timeout=30)
    sender = websocket.create_connection(url + uuid.uuid4().hex, subprotocols=[cl.V1], cookie=route, timeout=30)
    before = cl.rss_mb(pid)
    peak = before
    control = uuid.uuid4().hex
    voila_log = stack.prefix / "logs" / f"voila-{upstream}.log"
    try:
        sender.send_binary(cl.v1_frame("comm_open", {"comm_id": control, "target_name": "jupyter.widget.control",
                                                     "data": {}}, metadata={"version": "1.0.0"}))
        # until Voila says it closed a reader that does not read: the replies must first fill nginx's buffers and
        # the sockets', which takes longer where the kernel answers slowly (a loaded machine), so the bound is
        # generous and the loop ends on the condition, not on a clock
        deadline, next_look = time.monotonic() + 180, time.monotonic() + 1
        while time.monotonic() < deadline:  # 40 a second, inside the rate limit; the replies go to both sockets
            sender.send_binary(cl.v1_frame("comm_msg", {"comm_id": control, "data": {"method": "request_states"}}))
            time.sleep(0.025)
            peak = max(peak, cl.rss_mb(pid))
            if cl.kill_if_over(pid, 6000):
                pytest.fail("Voila grew past 6 GB and was killed")
            if time.monotonic() > next_look:
                next_look = time.monotonic() + 1
                if "does not read" in voila_log.read_text():
                    break
    except (websocket.WebSocketConnectionClosedException, ConnectionError):
        pass  # the sender does not read either: closed by the server
    finally:
        silent.close()
        sender.close()
    assert peak - before < 400, f"Voila grew from {before:.0f} to {peak:.0f} MB"
    assert cl.wait_until(lambda: "does not read" in voila_log.read_text(), 30), voila_log.read_text()[-3000:]
