"""A student's name as typed (``陈明``, ``li.wei``, ``dana li``) and the account the hub gives it.

The hub runs each student's JupyterLab as an OS account of its own, so an account name must be a valid Linux
user name (Debian's ``useradd``: lower-case ASCII letters, digits, ``-``, ``_``, at most 32 characters) and must
never be an account the machine already has (``root``, ``daemon``, a colleague's). :func:`account_name` is
deterministic and collision-safe:

* the name is first cleaned (:func:`clean_name`): Unicode NFKC, spaces collapsed, case folded, so that
  ``Li Wei`` and ``li  wei`` are one person, while ``li.wei`` and ``li wei`` stay two;
* the account is ``ws-`` + the ASCII letters and digits of the name (runs of anything else become one ``-``, at
  most 16 characters) + ``-`` + 6 hex digits of the SHA-256 of the cleaned name: ``li.wei`` → ``ws-li-wei-…``,
  ``陈明`` → ``ws-…`` (hex only), at most 3 + 16 + 1 + 6 = 26 characters;
* the ``ws-`` prefix keeps every student off the machine's own accounts; the hash tells apart names whose ASCII
  part is the same (``li.wei``, ``li wei``). Two different names with the same 24-bit hash and the same ASCII part
  are possible in principle (about 1 in 16 million per pair); the roster refuses such a pair and the
  trusted-room login refuses the second name (``workshop_auth.py``), so one account is never two people.

Standard library only: ``make hub`` checks a roster with the system Python before anything is installed.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

PREFIX = "ws-"
SLUG_MAX = 16   # 3 + 16 + 1 + 6 = 26 characters, under useradd's 32
HASH_HEX = 6    # 24 bits: a clash between two names of one class is about 30² / 2 / 2²⁴ ≈ 3e-5, and is refused
NAME_MAX = 64   # characters of a typed name: a full name in any script fits
ACCOUNT = re.compile(r"^ws-[a-z0-9-]{1,28}$")


def clean_name(typed: str) -> str:
    """The name as the hub compares it; ValueError with one line when it is not a name."""
    name = " ".join(unicodedata.normalize("NFKC", str(typed)).split()).casefold()
    if not name:
        raise ValueError("type your name / 请输入姓名")
    if len(name) > NAME_MAX:
        raise ValueError(f"a name has at most {NAME_MAX} characters / 姓名最多 {NAME_MAX} 个字符")
    if any(unicodedata.category(ch)[0] == "C" or ch in "/\\" for ch in name):
        raise ValueError("a name has letters, digits, spaces, dots or dashes / 姓名只能包含文字、数字、空格、点或短横线")
    return name


def account_name(typed: str) -> str:
    """The account of a typed name, e.g. ``li.wei`` → ``ws-li-wei-`` + 6 hex digits (see the module's doc)."""
    name = clean_name(typed)
    ascii_part = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_part).strip("-")[:SLUG_MAX].strip("-")
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:HASH_HEX]
    return f"{PREFIX}{slug}-{digest}" if slug else f"{PREFIX}{digest}"


if __name__ == "__main__":  # python names.py '陈明' 'li.wei' 'dana li'
    import sys

    for arg in sys.argv[1:]:
        try:
            print(f"{arg}\t{account_name(arg)}")
        except ValueError as e:
            print(f"{arg}\t{e}")
