"""Each student's checks, recorded in their own home, and the lecturer's class view built from them.

When a lesson's check runs in a student's JupyterLab on the class hub, :func:`record_check` appends one JSON
line to ``~/.llm-cost-explorer/checks.jsonl``: the lesson, the check (``E1``, ``Q2``, ``plan``), whether it
passed, and the time. Recording is on only where :data:`RECORD_ENV` is ``"1"`` (the hub's
``jupyterhub_config.py`` and ``z2jh-values.yaml`` set it) and never in a Voila kernel, so the public read-only
app and a student's own laptop write nothing. A failed write is ignored: it never fails the exercise.

Each home is its student's alone on the class hub (0700, an OS account each), so a student can write their own
record and no one else's; the hub reads every home as root (:func:`read_own_records`: no link followed, every
part owned by that student) and gives the records to its admin only. The lecturer's notebook
(``deploy/jupyterhub/class_view.ipynb``) gets them with :func:`fetch_class` (or :func:`read_class` over a folder of
homes it may read) and shows :func:`class_table` (students × checks) and :func:`stuck` (tried :data:`STUCK_TRIES` times or
more, never passed). A record file is bounded (:data:`MAX_RECORD_BYTES`): beyond it the older half is dropped.

This module imports nothing of the package (pandas only inside the two table functions).
"""

from __future__ import annotations

import json
import os
import re
import stat
from datetime import datetime, timezone
from pathlib import Path

__all__ = ["RECORD_ENV", "RECORDS", "MAX_RECORD_BYTES", "STUCK_TRIES", "recording_on", "record_check",
           "read_records", "read_own_records", "read_class", "fetch_class", "class_table", "stuck", "notebook_stem",
           "course_checks"]

RECORD_ENV = "WORKSHOP_RECORD_CHECKS"
RECORDS = Path(".llm-cost-explorer") / "checks.jsonl"   # under a student's home
# a record is at most about 120 bytes: 64 kB holds 500 checks or more, several times what a class gives
MAX_RECORD_BYTES = 64_000
STUCK_TRIES = 3   # tried this many times and not passed: the definition of stuck
_FIELD = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")   # what a lesson stem or check id looks like


def recording_on(environ=None) -> bool:
    """Are checks recorded here? Only where :data:`RECORD_ENV` is ``"1"`` and the kernel is not Voila's."""
    env = os.environ if environ is None else environ
    voila = any(k.startswith("VOILA_") for k in env)  # Voila gives its kernels VOILA_KERNEL_ID, VOILA_BASE_URL, ...
    return env.get(RECORD_ENV) == "1" and not voila


def notebook_stem(environ=None) -> str:
    """The running notebook's name without ``.ipynb`` (JupyterLab's ``JPY_SESSION_NAME``), or ``"unknown"``.

    jupyter_server sets ``JPY_SESSION_NAME`` to the kernel's folder joined with the session's name, which
    JupyterLab gives as the notebook's file name; a client that gives no name leaves only the folder (unknown).
    """
    env = os.environ if environ is None else environ
    name = Path(env.get("JPY_SESSION_NAME", "")).name
    stem = name[:-len(".ipynb")] if name.endswith(".ipynb") else ""
    return stem if _FIELD.match(stem) else "unknown"


def record_check(lesson: str, lang: str, check: str, passed: bool, *, home: Path | None = None,
                 now: datetime | None = None, environ=None) -> bool:
    """Append one check to the student's record file; True if written.

    Parameters
    ----------
    lesson : str
        The notebook's stem, e.g. ``"01_flops_to_dollars"``.
    lang : str
        ``"en"`` or ``"zh"``.
    check : str
        ``"E1"`` (exercise 1), ``"Q2"`` (concept question 2) or ``"plan"`` (the capstone).
    passed : bool
        Whether the answer was accepted.
    home : Path, optional
        The student's home (default ``Path.home()``).
    now : datetime, optional
        The time of the check [UTC] (default: now).
    environ : mapping, optional
        The environment :func:`recording_on` reads (default ``os.environ``).

    Never raises: a full disk, a read-only home or a bad value returns False and the exercise goes on.
    """
    try:
        if not recording_on(environ):
            return False
        path = (Path.home() if home is None else Path(home)) / RECORDS
        when = (now or datetime.now(timezone.utc)).astimezone(timezone.utc)
        line = json.dumps({"time": when.isoformat(timespec="seconds"), "lesson": str(lesson), "lang": str(lang),
                           "check": str(check), "passed": bool(passed)}, ensure_ascii=False) + "\n"
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() and path.stat().st_size + len(line) > MAX_RECORD_BYTES:
            _drop_older_half(path)
        with open(path, "a", encoding="utf-8") as f:
            f.write(line)
        return True
    except Exception:  # noqa: BLE001 - recording is a courtesy to the lecturer, never the student's problem
        return False


def _drop_older_half(path: Path) -> None:
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)
    keep = lines[len(lines) // 2:]
    tmp = path.with_suffix(".tmp")
    tmp.write_text("".join(keep), encoding="utf-8")
    os.replace(tmp, path)


def read_records(path: Path) -> list[dict]:
    """The well-formed records of one file, oldest first (a bad line, a foreign field or a huge file is skipped).

    A student can write anything into their own file: only records whose lesson and check look like a stem and
    an id, with a boolean ``passed``, are kept, and at most the last 4 × :data:`MAX_RECORD_BYTES` bytes are read.
    """
    path = Path(path)
    try:
        with open(path, "rb") as f:
            return _parse(_tail(f))
    except OSError:
        return []


def read_own_records(home: Path, owner: int) -> list[dict]:
    """The records in one student's home as :func:`read_records` gives them, read safely by a privileged reader.

    The class hub reads every home as root, for the teacher's class view. A student owns their home and could
    put there, instead of their record file, a link to another student's file or folder (to show that student's
    passes as theirs), a FIFO (to hang the reader) or a hard link. So: ``home`` itself, the
    ``.llm-cost-explorer`` folder and ``checks.jsonl`` are each opened without following a link, each must be
    owned by ``owner`` (the student's uid), and the file must be a regular file (a hard link to another student's
    file is that student's: not owned by ``owner``). Anything else reads as no record. ``home``'s parents must be writable by root only (the hub's homes folder).
    """
    nofollow = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    opened: list[int] = []
    try:
        fd = os.open(home, nofollow | os.O_DIRECTORY)
        opened.append(fd)
        fd = os.open(RECORDS.parent.name, nofollow | os.O_DIRECTORY, dir_fd=opened[-1])
        opened.append(fd)
        fd = os.open(RECORDS.name, nofollow | getattr(os, "O_NONBLOCK", 0), dir_fd=opened[-1])
        opened.append(fd)
        stats = [os.fstat(f) for f in opened]
        if any(st.st_uid != owner for st in stats) or not stat.S_ISREG(stats[-1].st_mode):
            return []
        with os.fdopen(os.dup(opened[-1]), "rb") as f:
            return _parse(_tail(f))
    except OSError:
        return []
    finally:
        for fd in opened:
            os.close(fd)


def _tail(f) -> str:
    size = f.seek(0, os.SEEK_END)
    f.seek(max(0, size - 4 * MAX_RECORD_BYTES))
    return f.read(4 * MAX_RECORD_BYTES).decode("utf-8", errors="replace")


def _parse(text: str) -> list[dict]:
    out = []
    for line in text.splitlines():
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if (isinstance(r, dict) and isinstance(r.get("passed"), bool) and _FIELD.match(str(r.get("lesson", "")))
                and _FIELD.match(str(r.get("check", ""))) and isinstance(r.get("time"), str)):
            out.append({"time": r["time"][:32], "lesson": r["lesson"], "lang": str(r.get("lang", ""))[:8],
                        "check": r["check"], "passed": r["passed"]})
    return out


def read_class(root: Path) -> dict[str, list[dict]]:
    """Every student's records: ``{home directory name: records}`` for each home under ``root`` (sorted).

    For a folder of homes the caller may read (a copy, or a machine of one account); on the class hub, where
    each home is its student's alone, the teacher's view uses :func:`fetch_class`.
    """
    root = Path(root)
    if not root.is_dir():
        raise ValueError(f"homes root: {str(root)!r} is not a directory; pass the folder holding one home per "
                         "student, or use fetch_class() on the class hub")
    return {home.name: read_records(home / RECORDS) for home in sorted(root.iterdir()) if home.is_dir()}


def fetch_class(api_url: str | None = None, token: str | None = None, timeout: float = 60.0) -> dict[str, list[dict]]:
    """Every student's records as the class hub reads them for its admin: ``{student's name: records}``.

    The hub (``deploy/jupyterhub/class_records.py``) reads each student's home as root, link-safe, and answers
    its admin only. ``api_url`` and ``token`` default to the teacher's server's ``JUPYTERHUB_API_URL`` and
    ``JUPYTERHUB_API_TOKEN``. ValueError with one line when not on the hub or not allowed; a record the hub
    sends is checked again as :func:`read_records` checks a file.
    """
    import urllib.error
    import urllib.request

    api_url = api_url or os.environ.get("JUPYTERHUB_API_URL", "")
    token = token or os.environ.get("JUPYTERHUB_API_TOKEN", "")
    if not api_url or not token:
        raise ValueError("not on the class hub (no JUPYTERHUB_API_URL / JUPYTERHUB_API_TOKEN): set WORKSHOP_HOMES "
                         "to a folder of homes and use read_class")
    url = api_url.rstrip("/").removesuffix("/api") + "/class-records"
    request = urllib.request.Request(url, headers={"Authorization": f"token {token}"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 - the hub's own URL
            answer = json.loads(response.read().decode("utf-8"))
    except urllib.error.HTTPError as e:
        raise ValueError(f"the hub refused the class view ({e.code}): log in as the hub's admin (teacher)") from None
    except (OSError, ValueError) as e:
        raise ValueError(f"the hub did not answer the class view at {url}: {e}") from None
    return {str(s.get("name") or s.get("account")): _parse("\n".join(json.dumps(r) for r in s.get("records", [])))
            for s in answer.get("students", [])}


def _tries(records_by_student: dict[str, list[dict]]) -> dict[tuple[str, str], tuple[int, bool]]:
    """{(student, "lesson · check"): (tries, passed ever)} — a check counts as one, whatever its language."""
    out: dict = {}
    for student, records in records_by_student.items():
        for r in records:
            key = (student, f"{r['lesson']} · {r['check']}")
            tries, passed = out.get(key, (0, False))
            out[key] = (tries + 1, passed or r["passed"])
    return out


#: The English lessons (the zh ones have the same names and checks), read by :func:`course_checks`.
LESSONS_EN = Path(__file__).resolve().parent / "notebooks" / "lessons" / "en"


def course_checks(lessons: Path = LESSONS_EN) -> list[str]:
    """Every check of the course as the class view names it, ``"<lesson> · <check>"``, whether tried or not.

    Read from the lesson notebooks' code: each ``ws.exercise(N, ...)`` is ``EN``, each ``ws.concept("QN", ...)``
    is ``QN``, and the capstone's form is ``plan`` (the checks :class:`explorer.workshop.Lesson` records).
    """
    checks = set()
    for nb in sorted(lessons.glob("*.ipynb")):
        code = "\n".join("".join(c["source"]) for c in json.loads(nb.read_text(encoding="utf-8"))["cells"]
                         if c["cell_type"] == "code")
        checks |= {f"{nb.stem} · E{n}" for n in re.findall(r"\bws\.exercise\((\d+)", code)}
        checks |= {f"{nb.stem} · {q}" for q in re.findall(r"\bws\.concept\(\"(Q\d+)\"", code)}
        if re.search(r"\bws\.(?:check_)?capstone\(", code):
            checks.add(f"{nb.stem} · plan")
    return sorted(checks)


def class_table(records_by_student: dict[str, list[dict]], checks: list[str] | None = None):
    """A pandas DataFrame, students × checks: ``"✔"`` passed, ``"✘ 3"`` tried 3 times and not passed, ``""`` not tried.

    Every student of ``records_by_student`` has a row, those with no record too; every check of ``checks``
    (default: :func:`course_checks`, the whole course) has a column, those no one tried too, and so has any other
    check in the records. The columns are sorted by lesson and check, and a last column ``passed`` counts each
    student's passed checks.
    """
    import pandas as pd

    tries = _tries(records_by_student)
    columns = sorted({check for _, check in tries} | set(course_checks() if checks is None else checks))
    rows = {}
    for student in records_by_student:
        cells: dict[str, str | int] = {}
        for check in columns:
            n, ok = tries.get((student, check), (0, False))
            cells[check] = "✔" if ok else (f"✘ {n}" if n else "")
        cells["passed"] = sum(1 for check in columns if tries.get((student, check), (0, False))[1])
        rows[student] = cells
    table = pd.DataFrame.from_dict(rows, orient="index", columns=columns + ["passed"])
    table.index.name = "student"
    return table


def stuck(records_by_student: dict[str, list[dict]], tries: int = STUCK_TRIES):
    """Who is stuck: a DataFrame of (student, check, tries) for checks tried ``tries`` times or more, never passed."""
    import pandas as pd

    rows = [(student, check, n) for (student, check), (n, ok) in sorted(_tries(records_by_student).items())
            if n >= tries and not ok]
    return pd.DataFrame(rows, columns=["student", "check", "tries"])
