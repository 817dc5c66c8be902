"""The class hub's login parts, without a hub: names to accounts, the throttle, the roster's codes, the common list.

The real hub is tried in test_hub_isolation.py (throttle, cap) and test_hub_roster.py (codes, real names).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

HUB = Path(__file__).resolve().parents[2] / "deploy" / "jupyterhub"
sys.path.insert(0, str(HUB))
from names import account_name, clean_name  # noqa: E402
from passwords import common_passwords, password_problem  # noqa: E402
from roster import check_code, issue_codes, load, typed_code  # noqa: E402

DEBIAN_NAME = re.compile(r"^[a-z][-a-z0-9_]*$")  # useradd's NAME_REGEX on Debian


@pytest.mark.parametrize("typed", ["陈明", "li.wei", "dana li", "José Ñúñez", "o'brien", "ALICE", "a" * 64, "root",
                                   "Ｗｅｉ", "محمد", "1984"])
def test_any_name_maps_to_a_valid_account_of_its_own(typed):
    acct = account_name(typed)
    assert DEBIAN_NAME.match(acct) and len(acct) <= 32 and acct.startswith("ws-"), acct
    assert account_name(typed) == acct  # deterministic
    assert account_name(f"  {typed}  ") == acct


def test_names_that_look_alike_stay_apart_and_one_typed_twice_stays_one():
    assert account_name("li.wei") != account_name("li wei") != account_name("liwei")
    assert account_name("Li  Wei") == account_name("li wei") == account_name("ＬＩ ＷＥＩ")
    assert account_name("li.wei").startswith("ws-li-wei-") and account_name("陈明") != account_name("陈敏")
    assert account_name("root") != "root" and account_name("teacher").startswith("ws-teacher-")


@pytest.mark.parametrize("typed", ["", "   ", "a/b", "x" * 65, "tab\x07bell"])
def test_a_non_name_is_refused_with_one_line(typed):
    with pytest.raises(ValueError, match=r"^[^\n]+ / [^\n]+$"):
        clean_name(typed)


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def test_the_throttle_doubles_the_wait_per_name_and_a_success_clears_it():
    from workshop_auth import Throttle  # needs jupyterhub (the hub extra)

    clock = Clock()
    t = Throttle(name_free=3, name_cap=300, addr_free=30, addr_cap=60, clock=clock)
    for _ in range(3):
        assert t.wait("ws-bob", "10.0.0.1") == (0.0, "")
        t.failed("ws-bob", "10.0.0.1")
    waits = []
    for _ in range(12):
        wait, kind = t.wait("ws-bob", "10.0.0.1")
        waits.append(wait)
        assert kind == "name"
        clock.now += wait
        t.failed("ws-bob", "10.0.0.1")
    assert waits == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300]
    assert t.wait("ws-ada", "10.0.0.2") == (0.0, "")  # another name, another address: not slowed
    t.succeeded("ws-bob")
    assert t.wait("ws-bob", "10.0.0.3") == (0.0, "")
    clock.now += 3600  # an hour later the address's failures are forgotten too
    assert t.wait("ws-carol", "10.0.0.1") == (0.0, "")


def test_one_address_trying_many_names_is_slowed_past_the_class_allowance():
    from workshop_auth import Throttle

    clock = Clock()
    t = Throttle(name_free=3, name_cap=300, addr_free=30, addr_cap=60, clock=clock)
    for i in range(30):  # a class of 30 behind one NAT address, each mistyping once: nobody waits
        assert t.wait(f"ws-s{i}", "203.0.113.9") == (0.0, "")
        t.failed(f"ws-s{i}", "203.0.113.9")
    assert t.wait("ws-s30", "203.0.113.9") == (1.0, "addr")
    for _ in range(8):
        clock.now += t.wait("ws-x", "203.0.113.9")[0]
        t.failed("ws-x", "203.0.113.9")
    assert t.wait("ws-y", "203.0.113.9")[0] == 60  # capped at a minute


def test_roster_codes_are_issued_once_kept_as_hashes_and_bound_to_the_name(tmp_path):
    names, private = tmp_path / "names.txt", tmp_path / "hub"
    names.write_text("陈明\nli.wei\n", encoding="utf-8")
    issued = issue_codes(names, private)
    assert sorted(issued) == ["li.wei", "陈明"] and all(re.match(r"^[2-9a-z]{5}-[2-9a-z]{5}$", c) for c in issued.values())
    stored = load(private)
    assert issued["陈明"] not in json.dumps(stored)  # only a hash
    assert (private / "roster.json").stat().st_mode & 0o777 == 0o600
    assert (private / "codes-to-print.txt").stat().st_mode & 0o777 == 0o600
    entry = stored[account_name("陈明")]
    assert check_code(entry, issued["陈明"]) and check_code(entry, issued["陈明"].upper().replace("-", " "))
    assert not check_code(entry, issued["li.wei"]) and not check_code(entry, "")
    names.write_text("陈明\nli.wei\ndana li\n", encoding="utf-8")  # a name added: only it gets a code
    assert list(issue_codes(names, private)) == ["dana li"]
    again = issue_codes(names, private, reissue="li.wei")  # a lost code: a new one, the old one no longer works
    assert list(again) == ["li.wei"] and not check_code(load(private)[account_name("li.wei")], issued["li.wei"])
    sheet = (private / "codes-to-print.txt").read_text(encoding="utf-8")  # every code issued, none written over
    assert all(code in sheet for code in [*issued.values(), *again.values()]) and sheet.count("== issued") == 3
    assert typed_code(" AbCde-FGHJK ") == "abcdefghjk"


def test_the_common_passwords_file_names_its_source_and_refuses_what_issue_42_accepted():
    header = [line for line in (HUB / "common-passwords.txt").read_text().splitlines() if line.startswith("#")]
    assert any("zxcvbn 4.5.0" in line for line in header) and any("MIT" in line for line in header)
    common = common_passwords()
    assert len(common) > 10_000 and {"password", "12345678", "iloveyou"} <= common
    for accepted_in_issue_42 in ("12345678", "password", " " * 8):
        assert password_problem(accepted_in_issue_42, what="P", minimum=8, distinct=5)
    assert password_problem("a" * 32, what="A", minimum=32, distinct=10)
    assert password_problem("cost-workshop-2026", what="P", minimum=8, distinct=5) == ""


def test_no_os_account_is_made_for_a_name_outside_the_workshop():
    """An older hub's database (names like alice, root) or the admin page: the hub makes no OS account for them."""
    from types import SimpleNamespace

    from tests.clients import run_async  # asyncio.run is refused after a browser test (the session's chromium)

    from workshop_auth import WorkshopAuthenticator

    auth = WorkshopAuthenticator(create_system_users=True, add_user_cmd=["/bin/false"])
    for name in ("alice", "root", "ws-", "ws-../x"):
        with pytest.raises(ValueError, match="not a workshop account"):
            run_async(auth.add_user(SimpleNamespace(name=name)))
