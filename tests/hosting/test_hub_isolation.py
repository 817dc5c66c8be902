"""Issue 42's attacks on the class hub, each tried against a real hub on 127.0.0.1 (trusted-room login).

Alice, Bob and Carol log in with the class password (the class is capped at 3); the teacher with the admin's.
From a kernel of her own JupyterLab, Alice tries what she did on the hub of e8e7e9d: list the homes, read Bob's
lesson, write into Bob's home and his check record, read the hub's cookie secret and database, read
``/proc/<pid>/environ`` of the hub and of Bob's server; she looks for a secret in her own environment; she
points her own record at Bob's folder so that his passes show as hers. The teacher's class view then shows Bob's
one record and nothing for Alice. Then: wrong passwords for one name are throttled (the right one is refused
while the wait lasts, and accepted after it); a fourth student is refused (the class is full).

Each attempt is reported by the kernel as "ok" or the error's name; the test needs every one "denied".
To see these fail on the config of e8e7e9d: ``HUB_TEST_CONFIG=/path/to/old/jupyterhub_config.py pytest ...``.
"""

from __future__ import annotations

import json
import re
import time

import pytest
from test_hub import account, execute, login, running_hub, server_token, wait_ready

requests = pytest.importorskip("requests")
websocket = pytest.importorskip("websocket")
pytestmark = [pytest.mark.server]

PASSWORD = "cost-workshop-2026"
ADMIN_PASSWORD = "teacher-Pass-phrase-of-the-class-2026"


@pytest.fixture(scope="module")
def hub():
    with running_hub("jupyterhub-isolation.log", WORKSHOP_TRUSTED_ROOM="1", WORKSHOP_PASSWORD=PASSWORD,
                     WORKSHOP_ADMIN_PASSWORD=ADMIN_PASSWORD, WORKSHOP_CLASS_SIZE="3") as running:
        yield running


@pytest.fixture(scope="module")
def students(hub):
    """{typed name: (account, session, token)} for alice and bob, their servers ready."""
    url, _, _ = hub
    out = {}
    for typed in ("alice", "bob"):
        s, r = login(url, typed, PASSWORD)
        assert r.status_code == 200, (typed, r.status_code, r.url)
        out[typed] = (account(url, s), s)
    for typed, (name, s) in out.items():
        wait_ready(url, s, name)
        out[typed] = (name, s, server_token(url, s, name))
    return out


ATTACK = r'''
import json, os
def attempt(f):
    try:
        f()
        return "ok"
    except Exception as e:
        return "denied " + type(e).__name__
forged = json.dumps({"time": "2026-12-07T10:00:00+00:00", "lesson": "01_flops_to_dollars", "lang": "en",
                     "check": "E2", "passed": True}) + "\n"
print(json.dumps({
    "list the homes": attempt(lambda: os.listdir(HOMES)),
    "list Bob's home": attempt(lambda: os.listdir(BOB)),
    "read Bob's lesson": attempt(lambda: open(BOB + "/lessons/en/01_flops_to_dollars.ipynb").read(100)),
    "write into Bob's home": attempt(lambda: open(BOB + "/alice-was-here.txt", "w").write("x")),
    "write Bob's record": attempt(lambda: open(BOB + "/.llm-cost-explorer/checks.jsonl", "a").write(forged)),
    "read the cookie secret": attempt(lambda: open(COOKIE).read()),
    "read the hub's database": attempt(lambda: open(DB, "rb").read(16)),
    "read the hub's environment": attempt(lambda: open(f"/proc/{HUB}/environ", "rb").read()),
    "read Bob's server's environment": attempt(lambda: open(f"/proc/{BOB_SERVER}/environ", "rb").read()),
}))
'''


def test_alice_reaches_nothing_of_bob_or_the_hub(hub, students):
    url, state, proc = hub
    bob, bob_session, bob_token = students["bob"]
    alice, _, alice_token = students["alice"]
    # Bob's home, his server's process (his kernel's parent) and one record of his, from his own kernel
    where = json.loads(execute(url, bob, bob_token, (
        "import json, os\nfrom explorer.classroom import record_check\n"
        "print(json.dumps({'home': os.path.expanduser('~'), 'server': os.getppid(), 'recorded': "
        "record_check('01_flops_to_dollars', 'en', 'E1', False)}))")))
    assert where["recorded"], "Bob's check was recorded in his home"
    cookie, db = next(state.rglob("jupyterhub_cookie_secret")), next(state.rglob("jupyterhub.sqlite"))
    names = {"HOMES": str(state / "homes"), "BOB": where["home"], "COOKIE": str(cookie), "DB": str(db),
             "HUB": proc.pid, "BOB_SERVER": where["server"]}
    setup = "".join(f"{k} = {v!r}\n" for k, v in names.items())
    # the harness works: Alice reads and writes her own home
    own = execute(url, alice, alice_token, "import os\nopen(os.path.expanduser('~/mine.txt'), 'w').write('x')\n"
                                            "print(open(os.path.expanduser('~/mine.txt')).read())")
    assert own.strip() == "x"
    tried = json.loads(execute(url, alice, alice_token, setup + ATTACK))
    assert {k: v for k, v in tried.items() if not v.startswith("denied")} == {}, tried
    # nothing of the hub's secrets in her own environment: only her own server's token
    env = json.loads(execute(url, alice, alice_token, "import json, os\nprint(json.dumps(dict(os.environ)))"))
    secrets = {PASSWORD, ADMIN_PASSWORD, cookie.read_text().strip()}
    assert not [k for k, v in env.items() if v in secrets or any(x in v for x in secrets)], sorted(env)
    assert not [k for k in env if "PASSWORD" in k or k == "CONFIGPROXY_AUTH_TOKEN"], sorted(env)
    # her own account, no root, a bounded number of tasks (a fork bomb stops at her own limit)
    me = json.loads(execute(url, alice, alice_token, "import json, os, resource, pwd\nprint(json.dumps("
                            "[os.getuid(), pwd.getpwuid(os.getuid()).pw_name, resource.getrlimit(resource.RLIMIT_NPROC)]))"))
    assert me[0] != 0 and me[1] == alice and me[2] == [1024, 1024], me


def test_the_class_view_shows_each_students_own_records_only(hub, students):
    url, _, _ = hub
    alice, _, alice_token = students["alice"]
    bob, _, bob_token = students["bob"]
    execute(url, bob, bob_token, "from explorer.classroom import record_check\n"
                                 "record_check('02_memory', 'en', 'E1', True)")
    # Alice points her own record folder at Bob's (and records a pass of her own)
    execute(url, alice, alice_token, (
        "import os\nhome = os.path.expanduser('~')\nbob = os.path.join(os.path.dirname(home), " + repr(bob) + ")\n"
        "import shutil\nshutil.rmtree(os.path.join(home, '.llm-cost-explorer'), ignore_errors=True)\n"
        "os.symlink(os.path.join(bob, '.llm-cost-explorer'), os.path.join(home, '.llm-cost-explorer'))\n"))
    teacher, r = login(url, "teacher", ADMIN_PASSWORD, allow_redirects=False)
    assert r.status_code == 302, r.status_code
    view = teacher.get(f"{url}/hub/class-records", timeout=60)
    assert view.status_code == 200, view.text[:300]
    by_account = {s["account"]: s for s in view.json()["students"]}
    assert set(by_account) >= {alice, bob} and all(not a.startswith("ws-teacher") for a in by_account)
    assert [(r["lesson"], r["check"], r["passed"]) for r in by_account[bob]["records"]] == [
        ("01_flops_to_dollars", "E1", False), ("02_memory", "E1", True)][-len(by_account[bob]["records"]):]
    assert ("02_memory", "E1", True) in [(r["lesson"], r["check"], r["passed"]) for r in by_account[bob]["records"]]
    assert by_account[alice]["records"] == [], "Bob's records, reached through Alice's link, are not hers"
    assert by_account[bob]["name"] == "bob"
    # a student cannot read the class view, with her login or her server's token
    _, bob_session, _ = students["bob"]
    assert bob_session.get(f"{url}/hub/class-records", timeout=60).status_code == 403
    assert requests.get(f"{url}/hub/class-records", headers={"Authorization": f"token {alice_token}"},
                        timeout=60).status_code == 403
    # the teacher's class_view.ipynb, run in the teacher's own JupyterLab, shows the same
    teacher_account = account(url, teacher)
    teacher.get(f"{url}/hub/spawn", timeout=120)
    wait_ready(url, teacher, teacher_account)
    shown = json.loads(execute(url, teacher_account, server_token(url, teacher, teacher_account), (
        "import json, os\nnb = json.load(open(os.path.expanduser('~/class_view.ipynb')))\nns = {}\n"
        "for cell in nb['cells']:\n    if cell['cell_type'] == 'code':\n        exec(''.join(cell['source']), ns)\n"
        "print(json.dumps({'records': ns['records'], 'rows': list(ns['table'].index)}))")))
    assert shown["records"]["alice"] == [] and "teacher" not in shown["rows"], shown
    assert ("02_memory", "E1", True) in [(r["lesson"], r["check"], r["passed"]) for r in shown["records"]["bob"]]


def _error(r) -> str:
    m = re.search(r'class="login_error">([^<]*)<', r.content.decode("utf-8", "replace"))
    return m.group(1) if m else ""


def test_wrong_passwords_for_one_name_are_throttled(hub):
    url, _, _ = hub
    failures, waits, deadline = 0, [], time.monotonic() + 120
    while failures < 6:  # 3 free failures, then each try waits 1, 2, 4 s after the last failure
        _, r = login(url, "carol", "not-the-password", allow_redirects=False)
        assert r.status_code in (403, 429) and time.monotonic() < deadline, r.status_code
        if r.status_code == 403:
            failures += 1
        else:  # refused unchecked: wait as told (the count of failures does not grow)
            waits.append(int(re.search(r"wait (\d+) s", _error(r)).group(1)))
            time.sleep(waits[-1])
    assert waits and max(waits) >= 2, waits  # the wait grew
    refused_at = time.monotonic()
    _, r = login(url, "carol", PASSWORD, allow_redirects=False)  # the right password, at once: refused (8 s)
    assert r.status_code == 429 and "wait" in _error(r), (r.status_code, _error(r))
    while True:  # accepted once the wait it named is over
        _, r = login(url, "carol", PASSWORD, allow_redirects=False)
        if r.status_code == 302:
            break
        assert r.status_code == 429 and time.monotonic() < refused_at + 60, (r.status_code, _error(r))
        time.sleep(0.5)
    assert time.monotonic() - refused_at >= 1


def test_accounts_are_capped_at_the_class_size(hub, students):
    url, _, _ = hub
    _, r = login(url, "carol", PASSWORD, allow_redirects=False)  # the third of 3 (again, or for the first time)
    assert r.status_code in (302, 429), (r.status_code, _error(r))
    _, r = login(url, "dave", PASSWORD, allow_redirects=False)
    assert r.status_code == 403 and "class is full" in _error(r), (r.status_code, _error(r))
    _, r = login(url, "alice", PASSWORD, allow_redirects=False)  # a student of the class still gets in
    assert r.status_code == 302
