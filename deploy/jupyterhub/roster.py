"""The class roster: one login code per student, issued once, kept by the hub only as a hash.

``make hub WORKSHOP_ROSTER=names.txt`` (or the config itself) calls :func:`issue_codes`: each name of the roster
without a code gets one, and the new codes are added to ``<state>/hub/codes-to-print.txt`` (root only, 0600)
for the lecturer to print and cut into slips; the hub keeps only ``<state>/hub/roster.json`` (0600) with a salted
scrypt hash of each code. A code lost: ``python deploy/jupyterhub/roster.py --state .hub --reissue "li.wei"``
prints a new one (the old one stops working at once: the hub reads ``roster.json`` at each login). A name added to the roster file gets its
code at the next start.

* a code is 10 characters from 31 that cannot be misread (no 0/o, 1/l/i), shown as ``abcde-fghjk``: 31¹⁰ ≈ 2⁴⁹·⁵
  codes. With the hub's throttle (``workshop_auth.py``: after 3 failures a name waits 1, 2, 4 … up to 300 s) a
  guesser gets about 12 tries an hour per name; typing ignores case, spaces and the dash;
* scrypt (n = 2¹⁴, r = 8: 16 MB and about 50 ms a check) so that a stolen ``roster.json`` does not give the codes
  away quickly; the file itself is readable by root only.

Standard library only.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import os
import secrets
import sys
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from names import account_name, clean_name  # noqa: E402 - next to this file
from passwords import roster_names  # noqa: E402

ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz"  # 31 characters that cannot be misread on paper
CODE_LENGTH = 10
SCRYPT = {"n": 2 ** 14, "r": 8, "p": 1, "dklen": 32}


def new_code() -> str:
    code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
    return f"{code[:5]}-{code[5:]}"


def typed_code(text: str) -> str:
    """A code as typed, compared without case, spaces or dashes."""
    return "".join(ch for ch in str(text).casefold() if ch not in " -\t")


def code_hash(code: str, salt: bytes) -> str:
    return hashlib.scrypt(typed_code(code).encode("utf-8"), salt=salt, **SCRYPT).hex()


def check_code(entry: dict, code: str) -> bool:
    """Does ``code`` match a roster entry (``{"salt": hex, "hash": hex}``)? In constant time."""
    try:
        return hmac.compare_digest(code_hash(code, bytes.fromhex(entry["salt"])), entry["hash"])
    except (KeyError, TypeError, ValueError):
        return False


def _write_private(path: Path, text: str) -> None:
    """Write a file readable by its owner only (root), replacing it atomically."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)


def load(private: Path) -> dict:
    """``{account: {"name": cleaned name, "salt": hex, "hash": hex}}`` of ``<private>/roster.json``."""
    try:
        return json.loads((private / "roster.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def issue_codes(roster_file: Path, private: Path, reissue: str = "") -> dict[str, str]:
    """Give every roster name without a code one (and ``reissue`` a new one); returns ``{name: new code}``.

    Also drops the entries of names no longer on the roster, refuses two names with one account (ValueError with
    one line), and writes the new codes to ``<private>/codes-to-print.txt``.
    """
    names = roster_names(roster_file)
    accounts: dict[str, str] = {}
    for name in names:
        account = account_name(name)
        if account in accounts:
            raise ValueError(f"WORKSHOP_ROSTER: {accounts[account]!r} and {name!r} would share the account "
                             f"{account}: add an initial to one of them / 两个姓名对应同一账户，请为其一加上首字母")
        accounts[account] = name
    again = clean_name(reissue) if reissue else ""
    if again and again not in names:
        raise ValueError(f"--reissue: {reissue!r} is not on the roster {roster_file}")
    old, new, issued = load(private), {}, {}
    for account, name in accounts.items():
        entry = old.get(account)
        if entry and entry.get("name") == name and name != again:
            new[account] = entry
            continue
        code, salt = new_code(), secrets.token_bytes(16)
        new[account] = {"name": name, "salt": salt.hex(), "hash": code_hash(code, salt)}
        issued[name] = code
    private.mkdir(mode=0o700, parents=True, exist_ok=True)
    _write_private(private / "roster.json", json.dumps(new, ensure_ascii=False, indent=1))
    if issued:  # added to the sheet, never over it: codes not yet printed exist nowhere else
        sheet_path = private / "codes-to-print.txt"
        try:
            sheet = [sheet_path.read_text(encoding="utf-8").rstrip("\n"), ""]
        except OSError:
            sheet = ["Login codes for the class hub · 课堂服务器登录码", "Cut along the lines; each student gets one slip. "
                     "Type the name as written here. · 沿线剪开，每人一张；姓名按此处输入。", ""]
        sheet.append(f"== issued {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC (a later code for a name replaces "
                     "an earlier one) ==")
        for name, code in issued.items():
            sheet += ["-" * 48, f"name · 姓名:      {name}", f"code · 登录码:    {code}", ""]
        _write_private(sheet_path, "\n".join(sheet) + "\n")
    return issued


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Issue the class hub's login codes (see the module's doc).")
    parser.add_argument("--roster", default=os.environ.get("WORKSHOP_ROSTER", ""),
                        help="one name per line (default: WORKSHOP_ROSTER)")
    parser.add_argument("--state", default=os.environ.get("WORKSHOP_HUB_STATE", str(HERE.parents[1] / ".hub")),
                        help="the hub's state folder (default: WORKSHOP_HUB_STATE or .hub)")
    parser.add_argument("--reissue", default="", help="a name whose code is lost: give it a new one")
    args = parser.parse_args(argv)
    if not args.roster:
        print("give the roster: --roster names.txt or WORKSHOP_ROSTER=names.txt", file=sys.stderr)
        return 2
    try:
        issued = issue_codes(Path(args.roster), Path(args.state).resolve() / "hub", args.reissue)
    except (ValueError, OSError) as e:
        print(str(e), file=sys.stderr)
        return 2
    for name, code in issued.items():
        print(f"{name}\t{code}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
