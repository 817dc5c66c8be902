"""The class server (`make hub`): three students log in, open lesson 1 in JupyterLab and run it to the end.

Starts JupyterHub with deploy/jupyterhub/jupyterhub_config.py on free ports of 127.0.0.1, with its state
in a temporary folder. Each student logs in with the workshop password through the login form (as a
browser does), the hub starts their JupyterLab with the lessons copied into their home, the student opens
lesson 1 in JupyterLab (the lab page and the notebook's contents), starts its kernel and runs every code
cell in order over the kernel websocket (Run All), with one wrong answer typed in exercise 1 first.
Needs the `hub` extra and configurable-http-proxy from npm (`make hub` installs both; so does .ci/run).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
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


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    if shutil.which("jupyterhub", path=str(Path(sys.executable).parent)) is None or not PROXY.exists():
        if os.environ.get("CI"):
            pytest.fail("the hub is not installed; .ci/run installs the hub extra and the npm proxy")
        pytest.skip("make hub installs JupyterHub (pip) and configurable-http-proxy (npm)")
    state = tmp_path_factory.mktemp("hub")
    port = _free_port()
    env = {**os.environ, "WORKSHOP_PASSWORD": PASSWORD, "WORKSHOP_HUB_STATE": str(state),
           "WORKSHOP_HUB_PORT": str(port), "WORKSHOP_HUB_API_PORT": str(_free_port()),
           "WORKSHOP_PROXY_API_PORT": str(_free_port()),
           # kernels idle for 40 s are culled inside JupyterLab (the class's setting is 20 minutes)
           "WORKSHOP_KERNEL_IDLE_TIMEOUT": str(KERNEL_IDLE_S), "WORKSHOP_KERNEL_CULL_EVERY": "5"}
    log = ROOT / "artifacts" / "jupyterhub.log"
    log.parent.mkdir(exist_ok=True)
    with open(log, "w") as out:
        proc = subprocess.Popen([str(Path(sys.executable).parent / "jupyterhub"), "-f", str(CONFIG)], cwd=state,
                                stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            if requests.get(url + "/hub/health", timeout=5).status_code == 200:
                break
        except requests.RequestException:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"jupyterhub did not start; see {log}")
        time.sleep(0.5)
    yield url, state
    proc.terminate()  # the hub stops the students' servers (cleanup_servers) and its proxy
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)


def _login(url: str, name: str) -> requests.Session:
    s = requests.Session()
    s.get(url + "/hub/login", timeout=30)
    r = s.post(url + "/hub/login?next=", data={"username": name, "password": PASSWORD,
                                               "_xsrf": s.cookies.get("_xsrf")}, timeout=300)
    assert r.status_code == 200, (name, r.status_code, r.url)
    return s


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
    sessions = {name: _login(url, name) for name in STUDENTS}  # the login spawns each student's server
    for name, s in sessions.items():
        deadline = time.monotonic() + 300
        while True:  # wait for the server the login started (the hub's own spawn page polls likewise)
            r = s.get(f"{url}/hub/api/users/{name}", headers={"Referer": url + "/hub/"}, timeout=30)
            if r.ok and r.json().get("servers", {}).get("", {}).get("ready"):
                break
            assert time.monotonic() < deadline, (name, r.status_code, r.text[:300])
            assert r.ok and (r.json().get("servers") or time.monotonic() < deadline - 290), \
                f"{name}'s server failed to start; see artifacts/jupyterhub.log"
            time.sleep(1)
    for name, s in sessions.items():
        home = state / "homes" / name
        assert (home / LESSON).exists() and (home / "claims.ipynb").exists(), "the lessons were copied home"
        # JupyterLab opens lesson 1 (the browser's OAuth dance to the student's server, then the lab page)
        lab = s.get(f"{url}/user/{name}/lab/tree/{LESSON}", timeout=120)
        assert lab.status_code == 200 and "JupyterLab" in lab.text and lab.url.endswith(LESSON), lab.url
        xsrf = s.cookies.get("_xsrf", path="/hub/") or s.cookies.get("_xsrf")
        r = s.post(f"{url}/hub/api/users/{name}/tokens", json={"note": "test", "expires_in": 600},
                   headers={"X-XSRFToken": xsrf, "Referer": url + "/hub/token"}, timeout=30)
        assert r.status_code == 201, r.text
        texts = _run_notebook(url, s, name, r.json()["token"])
        assert re.search(r"10³ times too small", "".join(texts)), texts[-1][:300]
        # the check was recorded in the student's own home, for the lecturer's class view
        records = (home / ".llm-cost-explorer" / "checks.jsonl").read_text(encoding="utf-8").splitlines()
        assert [{k: r[k] for k in ("lesson", "lang", "check", "passed")} for r in map(json.loads, records)] == [
            {"lesson": "01_flops_to_dollars", "lang": "en", "check": "E1", "passed": False}]


def _server_ready_with_token(url: str, name: str) -> tuple[requests.Session, str]:
    """Log in, wait for the student's JupyterLab, open it (OAuth) and make an API token."""
    s = _login(url, name)
    deadline = time.monotonic() + 300
    while True:
        r = s.get(f"{url}/hub/api/users/{name}", headers={"Referer": url + "/hub/"}, timeout=30)
        if r.ok and r.json().get("servers", {}).get("", {}).get("ready"):
            break
        assert time.monotonic() < deadline, (name, r.status_code, r.text[:300])
        time.sleep(1)
    assert s.get(f"{url}/user/{name}/lab", timeout=120).status_code == 200
    xsrf = s.cookies.get("_xsrf", path="/hub/") or s.cookies.get("_xsrf")
    r = s.post(f"{url}/hub/api/users/{name}/tokens", json={"note": "test", "expires_in": 900},
               headers={"X-XSRFToken": xsrf, "Referer": url + "/hub/token"}, timeout=30)
    assert r.status_code == 201, r.text
    return s, r.json()["token"]


def test_jupyterlab_culls_an_idle_kernel_and_shows_no_news(hub):
    """A lesson left open: its kernel, idle past the timeout, is shut down; a busy one is not."""
    url, _ = hub
    s, token = _server_ready_with_token(url, "dee")
    auth = {"Authorization": f"token {token}"}
    api = f"{url}/user/dee/api"
    news = s.get(f"{url}/user/dee/lab/api/settings/@jupyterlab/apputils-extension:notification",
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
