"""The class server (`make hub`): three students log in, open lesson 1 in JupyterLab and run it to the end.

Starts JupyterHub with deploy/jupyterhub/jupyterhub_config.py on free ports of 127.0.0.1, as root (the hub
makes an OS account per student), with its state in a new folder under /tmp. Each student logs in with the
class password through the login form (as a browser does; the trusted-room login), the hub starts their
JupyterLab as their own account with the lessons copied into their home (0700, theirs), the student opens
lesson 1 in JupyterLab (the lab page and the notebook's contents), starts its kernel and runs every code
cell in order over the kernel websocket (Run All), with one wrong answer typed in exercise 1 first.
Needs the `hub` extra and configurable-http-proxy from npm (`make hub` installs both; so does .ci/run).
The helpers here (running_hub, login, execute, ...) serve the other test_hub_*.py files; the accounts a hub
made are removed when it stops.
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "deploy" / "jupyterhub" / "jupyterhub_config.py"
PROXY = ROOT / "deploy" / "jupyterhub" / "node_modules" / ".bin" / "configurable-http-proxy"
LESSON = "lessons/en/01_flops_to_dollars.ipynb"
PASSWORD = "cost-workshop-2026"
STUDENTS = ("ada", "bo", "chen")
KERNEL_IDLE_S = 40

requests = pytest.importorskip("requests")
websocket = pytest.importorskip("websocket")
pytestmark = [pytest.mark.server]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def hub_installed() -> None:
    """Skip (fail on CI) without the hub, or when not root (the hub makes an OS account per student)."""
    if shutil.which("jupyterhub", path=str(Path(sys.executable).parent)) is None or not PROXY.exists():
        if os.environ.get("CI"):
            pytest.fail("the hub is not installed; .ci/run installs the hub extra and the npm proxy")
        pytest.skip("make hub installs JupyterHub (pip) and configurable-http-proxy (npm)")
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        if os.environ.get("CI"):
            pytest.fail("CI runs as root; the class hub's tests need root (an OS account per student)")
        pytest.skip("the class hub makes an OS account per student: run as root")


@contextlib.contextmanager
def running_hub(log_name: str, **env: str):
    """A hub of ``$HUB_TEST_CONFIG`` (default deploy/jupyterhub/jupyterhub_config.py) on free ports of 127.0.0.1.

    Its state is a new folder under /tmp (which every account can cross; pytest's own tmp folder is root's,
    0700). Yields (url, state, process). Afterwards the hub is stopped, the OS accounts it made (those whose home
    is in its state) are removed with their groups, and the state is deleted.
    """
    hub_installed()
    state = Path(tempfile.mkdtemp(prefix="hub-test-", dir="/tmp"))
    os.chmod(state, 0o711)
    port = _free_port()
    clean = {k: v for k, v in os.environ.items() if not k.startswith("WORKSHOP_")}
    full = {**clean, "WORKSHOP_HUB_STATE": str(state), "WORKSHOP_HUB_PORT": str(port),
            "WORKSHOP_HUB_API_PORT": str(_free_port()), "WORKSHOP_PROXY_API_PORT": str(_free_port()), **env}
    log = ROOT / "artifacts" / log_name
    log.parent.mkdir(exist_ok=True)
    config = os.environ.get("HUB_TEST_CONFIG", str(CONFIG))
    with open(log, "w") as out:
        proc = subprocess.Popen([str(Path(sys.executable).parent / "jupyterhub"), "-f", config], cwd=state,
                                stdout=out, stderr=subprocess.STDOUT, env=full, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                if requests.get(url + "/hub/health", timeout=5).status_code == 200:
                    break
            except requests.RequestException:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"jupyterhub did not start; see {log}")
            time.sleep(0.5)
        yield url, state, proc
    finally:
        proc.terminate()  # the hub stops the students' servers (cleanup_servers) and its proxy
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait(timeout=30)
        for account in accounts_of(state):
            _kill_processes_of(pwd.getpwnam(account).pw_uid)
            subprocess.run(["userdel", account], capture_output=True, timeout=60)
        shutil.rmtree(state, ignore_errors=True)


def _kill_processes_of(uid: int) -> None:
    """SIGKILL every process of the account (a server the hub failed to stop), read from /proc."""
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            uids = next(line for line in status.read_text().splitlines() if line.startswith("Uid:")).split()[1:]
            if str(uid) in uids:
                os.kill(int(status.parent.name), 9)
        except (OSError, StopIteration, ValueError):
            continue


def accounts_of(state: Path) -> list[str]:
    """The OS accounts a hub made: their home is in its state folder."""
    import pwd

    return [p.pw_name for p in pwd.getpwall() if p.pw_dir.startswith(str(state) + "/")]


@pytest.fixture(scope="module")
def hub():
    # the trusted-room login (one class password, any name): the students' names are ada, bo, chen and dee
    with running_hub("jupyterhub.log", WORKSHOP_TRUSTED_ROOM="1", WORKSHOP_PASSWORD=PASSWORD,
                     # kernels idle for 40 s are culled inside JupyterLab (the class's setting is 20 minutes)
                     WORKSHOP_KERNEL_IDLE_TIMEOUT=str(KERNEL_IDLE_S), WORKSHOP_KERNEL_CULL_EVERY="5") as (url, state, _):
        yield url, state


def login(url: str, name: str, password: str = PASSWORD, **post) -> tuple[requests.Session, requests.Response]:
    """The login form, as a browser sends it; (session, response)."""
    s = requests.Session()
    s.get(url + "/hub/login", timeout=30)
    r = s.post(url + "/hub/login?next=", data={"username": name, "password": password,
                                               "_xsrf": s.cookies.get("_xsrf")}, timeout=300, **post)
    return s, r


def account(url: str, s: requests.Session) -> str:
    """The hub's name for the logged-in student (``ws-…`` for a typed name)."""
    r = s.get(url + "/hub/api/user", headers={"Referer": url + "/hub/"}, timeout=30)
    assert r.ok, r.text
    return r.json()["name"]


def _login(url: str, name: str) -> requests.Session:
    s, r = login(url, name)
    assert r.status_code == 200, (name, r.status_code, r.url)
    return s


def wait_ready(url: str, s: requests.Session, name: str) -> None:
    """Wait for the server the login started (the hub's own spawn page polls likewise)."""
    deadline = time.monotonic() + 300
    while True:
        r = s.get(f"{url}/hub/api/users/{name}", headers={"Referer": url + "/hub/"}, timeout=30)
        if r.ok and r.json().get("servers", {}).get("", {}).get("ready"):
            return
        assert time.monotonic() < deadline, (name, r.status_code, r.text[:300])
        assert r.ok and (r.json().get("servers") or time.monotonic() < deadline - 290), \
            f"{name}'s server failed to start; see artifacts/*.log"
        time.sleep(1)


def server_token(url: str, s: requests.Session, name: str) -> str:
    """Open the student's JupyterLab (the OAuth dance) and make an API token."""
    assert s.get(f"{url}/user/{name}/lab", timeout=120).status_code == 200
    xsrf = s.cookies.get("_xsrf", path="/hub/") or s.cookies.get("_xsrf")
    r = s.post(f"{url}/hub/api/users/{name}/tokens", json={"note": "test", "expires_in": 900},
               headers={"X-XSRFToken": xsrf, "Referer": url + "/hub/token"}, timeout=30)
    assert r.status_code == 201, r.text
    return r.json()["token"]


def execute(url: str, name: str, token: str, code: str) -> str:
    """Run ``code`` in a new kernel of ``name``'s server; its printed text (the kernel is shut down after)."""
    auth = {"Authorization": f"token {token}"}
    api = f"{url}/user/{name}/api"
    r = requests.post(f"{api}/kernels", headers=auth, json={"name": "python3"}, timeout=120)
    assert r.status_code == 201, r.text
    kernel_id = r.json()["id"]
    ws = websocket.create_connection(f"{api}/kernels/{kernel_id}/channels".replace("http://", "ws://"),
                                     header=[f"Authorization: token {token}"], timeout=180)
    msg_id, texts = uuid.uuid4().hex, []
    try:
        ws.send(json.dumps({"header": {"msg_id": msg_id, "msg_type": "execute_request", "session": uuid.uuid4().hex,
                                       "username": name, "version": "5.3", "date": ""},
                            "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
                            "content": {"code": code, "silent": False, "store_history": False,
                                        "user_expressions": {}, "allow_stdin": False}}))
        replied = idle = False
        while not (replied and idle):  # the reply (shell) and the output (iopub) may come in either order
            msg = json.loads(ws.recv())
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind, content = msg["header"]["msg_type"], msg["content"]
            if kind == "stream":
                texts.append(content["text"])
            elif kind == "error":
                pytest.fail(f"{name}: {content['ename']}: {content['evalue']}")
            elif kind == "execute_reply":
                replied = True
            elif kind == "status" and content.get("execution_state") == "idle":
                idle = True
    finally:
        ws.close()
        requests.delete(f"{api}/kernels/{kernel_id}", headers=auth, timeout=60)
    return "".join(texts)


def _run_notebook(url: str, s: requests.Session, name: str, token: str) -> list[str]:
    """Run every code cell of lesson 1 in the student's own kernel; returns the text outputs."""
    auth = {"Authorization": f"token {token}"}
    api = f"{url}/user/{name}/api"
    nb = s.get(f"{api}/contents/{LESSON}", headers=auth, timeout=60).json()["content"]
    # the session's name is the notebook's file name, as JupyterLab sends it (the kernel's JPY_SESSION_NAME)
    r = s.post(f"{api}/sessions", headers=auth, timeout=120,
               json={"path": LESSON, "type": "notebook", "name": Path(LESSON).name, "kernel": {"name": "python3"}})
    assert r.status_code == 201, r.text
    kernel_id = r.json()["kernel"]["id"]
    ws = websocket.create_connection(f"{api}/kernels/{kernel_id}/channels".replace("http://", "ws://"),
                                     header=[f"Authorization: token {token}"], timeout=180)
    session, texts = uuid.uuid4().hex, []
    try:
        for cell in nb["cells"]:
            if cell["cell_type"] != "code":
                continue
            source = cell["source"]
            if "exercise" in cell["metadata"].get("tags", []) and "my_flop = None" in source:
                source = source.replace("my_flop = None", "my_flop = 3.15e20")  # the student's first try
            msg_id = uuid.uuid4().hex
            ws.send(json.dumps({"header": {"msg_id": msg_id, "msg_type": "execute_request", "session": session,
                                           "username": name, "version": "5.3", "date": ""},
                                "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
                                "content": {"code": source, "silent": False, "store_history": True,
                                            "user_expressions": {}, "allow_stdin": False, "stop_on_error": True}}))
            while True:
                msg = json.loads(ws.recv())
                if msg.get("parent_header", {}).get("msg_id") != msg_id:
                    continue
                kind, content = msg["header"]["msg_type"], msg["content"]
                if kind == "stream":
                    texts.append(content["text"])
                elif kind == "error":
                    pytest.fail(f"{name}: {content['ename']}: {content['evalue']} in\n{source[:300]}")
                elif kind == "execute_reply":
                    assert content["status"] == "ok", (name, content)
                    break
        # the check cell of exercise 1 read the student's variable: its feedback names the mistake
        msg_id = uuid.uuid4().hex
        ws.send(json.dumps({"header": {"msg_id": msg_id, "msg_type": "execute_request", "session": session,
                                       "username": name, "version": "5.3", "date": ""},
                            "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
                            "content": {"code": "print(ws.exercises[1].feedback.value)", "silent": False,
                                        "store_history": False, "user_expressions": {}, "allow_stdin": False}}))
        while True:
            msg = json.loads(ws.recv())
            if msg.get("parent_header", {}).get("msg_id") == msg_id and msg["header"]["msg_type"] == "stream":
                texts.append(msg["content"]["text"])
                break
    finally:
        ws.close()
    return texts


def test_three_students_log_in_open_lesson_1_in_jupyterlab_and_run_it(hub):
    url, state = hub
    sessions = {}
    for typed in STUDENTS:  # the login spawns each student's server
        s = _login(url, typed)
        sessions[account(url, s)] = s
    for name, s in sessions.items():
        wait_ready(url, s, name)
    for name, s in sessions.items():
        home = state / "homes" / name
        assert (home / LESSON).exists() and (home / "claims.ipynb").exists(), "the lessons were copied home"
        assert home.stat().st_uid == pwd.getpwnam(name).pw_uid and home.stat().st_mode & 0o777 == 0o700
        # JupyterLab opens lesson 1 (the browser's OAuth dance to the student's server, then the lab page)
        lab = s.get(f"{url}/user/{name}/lab/tree/{LESSON}", timeout=120)
        assert lab.status_code == 200 and "JupyterLab" in lab.text and lab.url.endswith(LESSON), lab.url
        texts = _run_notebook(url, s, name, server_token(url, s, name))
        assert re.search(r"10³ times too small", "".join(texts)), texts[-1][:300]
        # the check was recorded in the student's own home, for the lecturer's class view
        records = (home / ".llm-cost-explorer" / "checks.jsonl").read_text(encoding="utf-8").splitlines()
        assert [{k: r[k] for k in ("lesson", "lang", "check", "passed")} for r in map(json.loads, records)] == [
            {"lesson": "01_flops_to_dollars", "lang": "en", "check": "E1", "passed": False}]


def test_jupyterlab_culls_an_idle_kernel_and_shows_no_news(hub):
    """A lesson left open: its kernel, idle past the timeout, is shut down; a busy one is not."""
    url, _ = hub
    s = _login(url, "dee")
    name = account(url, s)
    wait_ready(url, s, name)
    token = server_token(url, s, name)
    auth = {"Authorization": f"token {token}"}
    api = f"{url}/user/{name}/api"
    news = s.get(f"{url}/user/{name}/lab/api/settings/@jupyterlab/apputils-extension:notification",
                 headers=auth, timeout=60).json()
    assert news["settings"]["fetchNews"] == "false", news.get("settings")
    r = s.post(f"{api}/sessions", headers=auth, timeout=120,
               json={"path": LESSON, "type": "notebook", "name": "", "kernel": {"name": "python3"}})
    assert r.status_code == 201, r.text
    kernel_id = r.json()["kernel"]["id"]
    started = time.monotonic()
    while True:  # culled once idle for KERNEL_IDLE_S (checked every 5 s); a loaded machine may take longer
        ids = [k["id"] for k in s.get(f"{api}/kernels", headers=auth, timeout=60).json()]
        if kernel_id not in ids:
            break
        assert time.monotonic() - started < 600, "the idle kernel was never culled; see artifacts/jupyterhub.log"
        time.sleep(2)
    assert time.monotonic() - started >= KERNEL_IDLE_S - 1  # not before it was idle for the timeout
