"""The hub's login rules, said once and checked before JupyterHub starts (``make hub`` and the config).

Who may log in is chosen by the lecturer, explicitly (docs/workshop.md, "The class hub"):

* ``WORKSHOP_ROSTER=names.txt`` (recommended): one student per line; the hub gives each a login code of its own,
  written once to a sheet for the lecturer to print (``roster.py``). A name is bound to a person;
* ``WORKSHOP_TRUSTED_ROOM=1`` with ``WORKSHOP_PASSWORD``: one class password and any name, for a room where
  everyone trusts everyone. Its risk: anyone who has the class password can log in *as any other student*
  (their files, their record) by typing that student's name. The password is 8 characters or more, has 5 or
  more different characters, and is not one of the 11,611 common passwords in ``common-passwords.txt``;
  ``WORKSHOP_CLASS_SIZE`` (30) caps the accounts.

``WORKSHOP_ADMIN_PASSWORD`` (optional) is the teacher's: 32 characters or more (JupyterHub's own rule for an
admin password), 10 or more different characters, not a common password, and not the class password.

The hub gives each student an OS account, so it runs as root. ``python deploy/jupyterhub/passwords.py`` prints
the first problem as one line (nothing when all is fine), so that the Makefile can stop with it; it always exits 0
(make reads what it prints). Standard library only (make runs it with the system Python).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from names import clean_name  # noqa: E402 - next to this file

CLASS_MIN = 8        # JupyterHub's SharedPasswordAuthenticator.user_password rule
CLASS_DISTINCT = 5   # refuses "aaaaaaaa", "        ", "abababab" (8 spaces were accepted in issue 42)
ADMIN_MIN = 32       # JupyterHub's SharedPasswordAuthenticator.admin_password rule
ADMIN_DISTINCT = 10  # refuses 32 × "a" (accepted in issue 42) and other patterns of a few keys
CLASS_SIZE = 30      # make workshop's default class (CLASS=30)
CLASS_SIZE_MAX = 200  # one machine of 2-8 cores serves far fewer JupyterLabs (about 125 MB each, issue 42)
COMMON = HERE / "common-passwords.txt"
USER_TOOLS = "/usr/sbin:/usr/bin:/sbin:/bin"  # where Debian puts useradd (not always on a user's PATH)


def common_passwords() -> frozenset[str]:
    """The common passwords (lower case) of ``common-passwords.txt``; its header names its source."""
    lines = COMMON.read_text(encoding="utf-8").splitlines()
    return frozenset(line.strip().casefold() for line in lines if line.strip() and not line.startswith("#"))


def password_problem(password: str, *, what: str, minimum: int, distinct: int) -> str:
    """What is wrong with one password, or ''."""
    if len(password) < minimum:
        return f"{what} must have {minimum} or more characters (it has {len(password)})"
    if len(set(password)) < distinct:
        return f"{what} must have {distinct} or more different characters (it has {len(set(password))})"
    if password.strip().casefold() in common_passwords():
        return f"{what} is a common password (deploy/jupyterhub/common-passwords.txt): choose another"
    return ""


def roster_names(path: Path) -> list[str]:
    """The names of a roster file (one per line; blank lines and lines starting with # skipped), cleaned.

    ValueError with one line: the file cannot be read, has no name, a bad name, or one name twice.
    """
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"WORKSHOP_ROSTER: cannot read {str(path)!r} ({e.__class__.__name__}): "
                         "give a text file with one student's name per line / 无法读取名单文件") from None
    names, seen = [], {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            name = clean_name(line)
        except ValueError as e:
            raise ValueError(f"WORKSHOP_ROSTER {path}, line {number}: {e}") from None
        if name in seen:
            raise ValueError(f"WORKSHOP_ROSTER {path}, line {number}: {line.strip()!r} is already on line "
                             f"{seen[name]} (add a second name or an initial to tell them apart) / 名单中姓名重复")
        seen[name] = number
        names.append(name)
    if not names:
        raise ValueError(f"WORKSHOP_ROSTER {path} has no name: one student's name per line / 名单为空")
    return names


def class_size(environ=os.environ) -> int:
    """WORKSHOP_CLASS_SIZE (30); ValueError with one line when it is not a whole number from 1 to 200."""
    raw = environ.get("WORKSHOP_CLASS_SIZE", str(CLASS_SIZE)).strip()
    if not raw.isdigit() or not 1 <= int(raw) <= CLASS_SIZE_MAX:
        raise ValueError(f"WORKSHOP_CLASS_SIZE must be a whole number from 1 to {CLASS_SIZE_MAX} (it is {raw!r}) "
                         f"/ 班级人数须为 1 到 {CLASS_SIZE_MAX} 的整数")
    return int(raw)


def problem(environ=os.environ, euid: int | None = None) -> str:
    """The first thing wrong with the hub's login settings, as one line in English and Chinese; '' when none."""
    euid = (os.geteuid() if hasattr(os, "geteuid") else 0) if euid is None else euid
    if euid != 0:
        return ("the class hub gives each student an OS account of their own and must run as root: "
                "sudo -E make hub / 课堂服务器需要以 root 运行（为每个学生创建系统账户）")
    missing = [tool for tool in ("useradd", "usermod") if not shutil.which(tool, path=USER_TOOLS)]
    if missing:
        return (f"{' and '.join(missing)} not found: the hub makes an OS account per student with them "
                "(Debian's passwd package) / 未找到 useradd：请安装 passwd 软件包")
    roster, trusted = environ.get("WORKSHOP_ROSTER", ""), environ.get("WORKSHOP_TRUSTED_ROOM", "") == "1"
    user, admin = environ.get("WORKSHOP_PASSWORD", ""), environ.get("WORKSHOP_ADMIN_PASSWORD", "")
    if roster and trusted:
        return "set WORKSHOP_ROSTER or WORKSHOP_TRUSTED_ROOM=1, not both / 只能选择一种登录方式"
    if not roster and not trusted:
        return ("say who may log in: WORKSHOP_ROSTER=names.txt (a login code per student, printed for you) or "
                "WORKSHOP_TRUSTED_ROOM=1 WORKSHOP_PASSWORD=... (anyone with the class password can log in as "
                "any student) / 请设置 WORKSHOP_ROSTER（每个学生一个登录码）或 WORKSHOP_TRUSTED_ROOM=1 与班级密码")
    try:
        if roster:
            roster_names(Path(roster))
        else:
            class_size(environ)
    except ValueError as e:
        return str(e)
    if trusted:
        said = password_problem(user, what="WORKSHOP_PASSWORD", minimum=CLASS_MIN, distinct=CLASS_DISTINCT)
        if said:
            return f"{said} / 班级密码至少 {CLASS_MIN} 个字符、{CLASS_DISTINCT} 个不同字符，且不能是常见密码"
    if admin:
        said = password_problem(admin, what="WORKSHOP_ADMIN_PASSWORD", minimum=ADMIN_MIN, distinct=ADMIN_DISTINCT)
        if said:
            return (f"{said}, or leave it unset / 教师密码至少 {ADMIN_MIN} 个字符、{ADMIN_DISTINCT} 个不同字符，"
                    "且不能是常见密码，或不设置")
        if admin == user:
            return "WORKSHOP_ADMIN_PASSWORD must differ from WORKSHOP_PASSWORD / 教师密码不能与班级密码相同"
    return ""


if __name__ == "__main__":
    print(problem())
