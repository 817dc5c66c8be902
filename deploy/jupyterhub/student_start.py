"""A student's JupyterLab, started as the student: first their home is set up, then jupyterhub-singleuser.

Run with the students' Python (``jupyterhub_config.student_python``).

The hub's spawner runs this (``Spawner.cmd``) as the student's own OS account, in their home. Everything it
writes is written as the student, so a link the student left in their home can lead it nowhere they could not go
themselves (a copy made by root could be sent through such a link to any file on the machine):

* the lessons (``explorer/notebooks/lessons``) and the fact-check (``explorer/notebooks/claims.ipynb``) are copied once, never
  over the student's edits, and made to open unmodified (the kernel's ``language_info`` and a trust signature in
  the student's own database, as ``jupyter trust`` run by the student would put it);
* the teacher (``WORKSHOP_TEACHER=1``, set by the hub for its admin) gets ``class_view.ipynb``;
* JupyterLab's "news" pop-up and update check are turned off in the student's own settings, once;
* at most :data:`MAX_TASKS` processes and threads for the student; JupyterLab's terminal runs bash (the account's
  own shell is ``nologin``: nobody logs in to it but through the hub).

A failed copy is reported on stderr (the hub's log) and JupyterLab starts anyway.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
LAB_SETTINGS = {"@jupyterlab/apputils-extension/notification.jupyterlab-settings":
                {"fetchNews": "false", "checkForUpdates": False}}


def _as_opened(notebooks: list[Path], home: Path) -> None:
    """Make a copied notebook open unmodified: the kernel's ``language_info`` and a trust signature.

    JupyterLab writes the running kernel's ``language_info`` into a notebook when the kernel starts, which
    marks a notebook whose metadata holds only ``{"name": "python"}`` as modified; the student's kernel is
    this venv's ipykernel, so its ``language_info`` is known here.
    """
    import nbformat
    from ipykernel.ipkernel import IPythonKernel
    from nbformat.sign import NotebookNotary

    data_dir = home / ".local" / "share" / "jupyter"
    data_dir.mkdir(parents=True, exist_ok=True)
    notary = NotebookNotary(data_dir=str(data_dir))
    for notebook in notebooks:
        nb = nbformat.read(notebook, as_version=4)
        nb.metadata["language_info"] = json.loads(json.dumps(IPythonKernel.language_info))
        nbformat.write(nb, notebook)
        notary.sign(nb)


def set_up_home(home: Path, teacher: bool = False) -> None:
    """The lessons, the fact-check (and the class view for the teacher) into ``home``, once."""
    copied = []
    lessons = home / "lessons"
    if not lessons.exists() and not lessons.is_symlink():
        shutil.copytree(ROOT / "explorer" / "notebooks" / "lessons", lessons,
                        ignore=shutil.ignore_patterns("*.py", "src", "__pycache__", ".ipynb_checkpoints"))
        copied += sorted(lessons.rglob("*.ipynb"))
    claims = home / "claims.ipynb"  # the lessons link ../claims.ipynb from the index
    if not claims.exists() and not claims.is_symlink():
        shutil.copy2(ROOT / "explorer" / "notebooks" / "claims.ipynb", claims)
        copied.append(claims)
    view = home / "class_view.ipynb"
    if teacher and not view.exists() and not view.is_symlink():
        shutil.copy2(HERE / "class_view.ipynb", view)
        copied.append(view)
    if copied:
        _as_opened(copied, home)
    for name, settings in LAB_SETTINGS.items():
        path = home / ".jupyter" / "lab" / "user-settings" / name
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(settings, indent=2), encoding="utf-8")


# Tasks (processes and threads) one student may run. A JupyterLab holds about 20, a kernel about 10 plus one
# OpenBLAS thread per core: 8 open lessons on a 64-core machine stay under 700. A fork bomb stops here instead
# of taking the machine, and the class, down with it (Linux counts this per account, so per student); a class of
# 30 at the limit, 30 × 1024, stays under Linux's usual pid_max of 32768.
MAX_TASKS = 1024


def main() -> None:
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NPROC)
    limit = MAX_TASKS if hard == resource.RLIM_INFINITY else min(MAX_TASKS, hard)
    resource.setrlimit(resource.RLIMIT_NPROC, (limit, limit))
    if os.environ.get("SHELL", "").endswith("nologin"):  # the account has no login shell; JupyterLab's terminal
        os.environ["SHELL"] = "/bin/bash"                 # is a shell in the student's own server, as their account
    try:
        set_up_home(Path.home(), teacher=os.environ.get("WORKSHOP_TEACHER") == "1")
    except Exception as e:  # noqa: BLE001 - a failed copy must not keep the student out of JupyterLab
        print(f"student_start: the lessons were not copied into {Path.home()}: {e!r}", file=sys.stderr)
    # jupyterhub-singleuser's script names the project venv's interpreter, which a student may not reach
    os.execv(sys.executable, [sys.executable, "-m", "jupyterhub.singleuser", *sys.argv[1:]])


if __name__ == "__main__":
    main()
