"""Names bound to people: the roster login of a real hub on 127.0.0.1, with real names, in Chinese.

The roster holds ``陈明``, ``li.wei``, ``li wei`` and ``dana li``; the hub issues a code for each at its start,
on a sheet only root can read. Each student logs in with their name as typed and their code, and gets an OS
account of their own whose name is the deterministic ``ws-…`` mapping (``names.py``); ``li.wei`` and ``li wei``
are two people. A wrong code, another student's code, or a name not on the roster is refused with one line in
the class's language (``WORKSHOP_LANG=zh``: the login page too).
"""

from __future__ import annotations

import pwd
import re
import sys
from pathlib import Path

import pytest
from test_hub import account, login, running_hub

requests = pytest.importorskip("requests")
pytestmark = [pytest.mark.server]

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "deploy" / "jupyterhub"))
from names import account_name  # noqa: E402

ROSTER = ["陈明", "li.wei", "li wei", "dana li"]
DEBIAN_NAME = re.compile(r"^[a-z][-a-z0-9_]*$")  # Debian's useradd NAME_REGEX, without the trailing $


@pytest.fixture(scope="module")
def roster_hub(tmp_path_factory):
    names = tmp_path_factory.mktemp("roster") / "names.txt"
    names.write_text("# class of 7 December\n" + "\n".join(ROSTER) + "\n", encoding="utf-8")
    with running_hub("jupyterhub-roster.log", WORKSHOP_ROSTER=str(names), WORKSHOP_LANG="zh") as (url, state, _):
        sheet = state / "hub" / "codes-to-print.txt"
        assert sheet.stat().st_mode & 0o777 == 0o600
        text = sheet.read_text(encoding="utf-8")
        codes = dict(re.findall(r"name · 姓名:\s+(.+)\ncode · 登录码:\s+(\S+)", text))
        assert sorted(codes) == sorted(ROSTER), text
        yield url, state, codes


def _error(r) -> str:
    m = re.search(r'class="login_error">([^<]*)<', r.content.decode("utf-8", "replace"))
    return m.group(1) if m else ""


def test_the_login_page_is_in_the_class_language(roster_hub):
    url, _, _ = roster_hub
    page = requests.get(f"{url}/hub/login", timeout=30).content.decode("utf-8")
    assert "姓名" in page and "登录码" in page and "Username:" not in page


def test_each_student_logs_in_with_their_name_and_code_as_their_own_account(roster_hub):
    url, state, codes = roster_hub
    accounts = {}
    for name, code in codes.items():
        s, r = login(url, name, code, allow_redirects=False)
        assert r.status_code == 302, (name, r.status_code, _error(r))
        accounts[name] = account(url, s)
    assert accounts == {name: account_name(name) for name in ROSTER}
    assert len(set(accounts.values())) == len(ROSTER)  # li.wei and li wei are two people
    for name, acct in accounts.items():
        assert DEBIAN_NAME.match(acct) and len(acct) <= 32, acct
        entry = pwd.getpwnam(acct)  # an OS account of their own, with its home in the hub's homes, no shell
        assert entry.pw_dir == str(state / "homes" / acct) and entry.pw_shell.endswith("nologin")
    # typed another way (spaces, case, a full-width letter): the same person
    s, r = login(url, "  \uff24ana   LI ", codes["dana li"].upper().replace("-", " "), allow_redirects=False)
    assert r.status_code == 302 and account(url, s) == accounts["dana li"]


@pytest.mark.parametrize("typed, whose", [
    ("陈明", "wrong"),         # a wrong code
    ("li.wei", "li wei"),     # another student's code
    ("zoe", "陈明"),           # a name not on the roster, with a valid code
])
def test_a_wrong_code_or_a_name_off_the_roster_is_refused_in_one_line(roster_hub, typed, whose):
    url, _, codes = roster_hub
    _, r = login(url, typed, codes.get(whose, "abcde-fghjk"), allow_redirects=False)
    assert r.status_code == 403 and _error(r) == "姓名或登录码不对：请按纸条上的姓名和登录码输入", _error(r)
