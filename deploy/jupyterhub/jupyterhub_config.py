"""JupyterHub for a workshop class on one machine: ``make hub`` (http://127.0.0.1:8000).

* login: one shared workshop password (``WORKSHOP_PASSWORD``, at least 8 characters) and any user name;
  ``WORKSHOP_ADMIN_PASSWORD`` (optional, at least 32 characters, not the class password) makes the teacher
  an admin who can see every student's server (the rule is checked first, deploy/jupyterhub/passwords.py);
* each student gets a JupyterLab server as a local process of the hub's user (no system accounts),
  with a home of their own under ``$WORKSHOP_HUB_STATE/homes/<name>`` into which the lessons
  (``explorer/notebooks/lessons``) and the fact-check (``explorer/notebooks/claims.ipynb``) are copied at the first start;
  their own edits are never overwritten;
* servers idle for an hour are stopped by jupyterhub-idle-culler (their files stay); inside JupyterLab, a
  kernel idle for 20 minutes is shut down (an open lesson left behind holds 0.1-0.3 GB: docs/workshop.md);
* lessons open unmodified (the notebooks' ``language_info`` is the kernel's, and they are signed as trusted
  in the student's home) and JupyterLab's "news" pop-up is off;
* each check a student runs is recorded in their home (``~/.llm-cost-explorer/checks.jsonl``,
  ``explorer/classroom.py``); the admin's home gets ``class_view.ipynb``, which reads every home under
  ``WORKSHOP_HOMES`` (this hub's homes) and shows who passed which check and who is stuck;
* the proxy is configurable-http-proxy from npm (``deploy/jupyterhub/node_modules``).

Environment: ``WORKSHOP_HUB_PORT`` (8000), ``WORKSHOP_HUB_API_PORT`` (8081), ``WORKSHOP_PROXY_API_PORT``
(8001), ``WORKSHOP_HUB_STATE`` (``.hub`` in the repository), ``WORKSHOP_IDLE_TIMEOUT`` [s] (3600),
``WORKSHOP_KERNEL_IDLE_TIMEOUT`` [s] (1200) and ``WORKSHOP_KERNEL_CULL_EVERY`` [s] (60).
It listens on 127.0.0.1 only: put it behind nginx with TLS for a room (docs/workshop.md).
"""

import json
import os
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from passwords import problem  # noqa: E402 - next to this file

if problem():  # JupyterHub would stop with a traceback; say the rule in one line instead
    sys.exit(problem())
ROOT = HERE.parents[1]
STATE = Path(os.environ.get("WORKSHOP_HUB_STATE", ROOT / ".hub")).resolve()
HOMES = STATE / "homes"
BIN = Path(sys.executable).parent  # the project's venv, with jupyterhub, jupyterlab and the explorer

c = get_config()  # noqa: F821 - provided by JupyterHub

STATE.mkdir(parents=True, exist_ok=True)
HOMES.mkdir(parents=True, exist_ok=True)

c.JupyterHub.bind_url = f"http://127.0.0.1:{os.environ.get('WORKSHOP_HUB_PORT', '8000')}"
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = int(os.environ.get("WORKSHOP_HUB_API_PORT", "8081"))
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(STATE / "jupyterhub.pid")
c.JupyterHub.cleanup_servers = True  # a stopped hub stops the students' servers (their files stay)

c.ConfigurableHTTPProxy.command = [str(HERE / "node_modules" / ".bin" / "configurable-http-proxy")]
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{os.environ.get('WORKSHOP_PROXY_API_PORT', '8001')}"
c.ConfigurableHTTPProxy.pid_file = str(STATE / "proxy.pid")

# the workshop login: one password for the class, any name
c.JupyterHub.authenticator_class = "shared-password"
c.SharedPasswordAuthenticator.user_password = os.environ.get("WORKSHOP_PASSWORD", "")
if os.environ.get("WORKSHOP_ADMIN_PASSWORD"):
    c.SharedPasswordAuthenticator.admin_password = os.environ["WORKSHOP_ADMIN_PASSWORD"]
    c.Authenticator.admin_users = {os.environ.get("WORKSHOP_ADMIN", "teacher")}
c.Authenticator.allow_all = True
c.Authenticator.username_pattern = r"^[a-z0-9][a-z0-9_-]{0,31}$"  # a home directory name

# one JupyterLab per student, a local process of this user, opened on the lesson index
c.JupyterHub.spawner_class = "simple"  # SimpleLocalProcessSpawner: no system accounts needed
c.SimpleLocalProcessSpawner.home_dir_template = str(HOMES / "{username}")
c.Spawner.cmd = [str(BIN / "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab/tree/lessons/index.ipynb"
c.Spawner.environment = {"PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "MPLBACKEND": "Agg",
                         # each check is recorded in the student's home; the class view reads them all
                         "WORKSHOP_RECORD_CHECKS": "1", "WORKSHOP_HOMES": str(HOMES)}
# Kernels idle for WORKSHOP_KERNEL_IDLE_TIMEOUT (20 min) are shut down, open tab or not (a class moves on to the
# next lesson and leaves the last one open: each holds a kernel of 0.1-0.3 GB); a busy kernel is never culled.
# A culled lesson shows "No Kernel" in JupyterLab; Run All starts a new one.
c.Spawner.args = [
    f"--MappingKernelManager.cull_idle_timeout={int(os.environ.get('WORKSHOP_KERNEL_IDLE_TIMEOUT', '1200'))}",
    f"--MappingKernelManager.cull_interval={int(os.environ.get('WORKSHOP_KERNEL_CULL_EVERY', '60'))}",
    "--MappingKernelManager.cull_connected=True",
    "--MappingKernelManager.cull_busy=False",
]
if hasattr(os, "geteuid") and os.geteuid() == 0:  # CI and containers run as root; Jupyter refuses without this
    c.Spawner.args.append("--ServerApp.allow_root=True")
c.Spawner.start_timeout = 180  # 30 students starting on 2 cores
c.Spawner.http_timeout = 180
c.JupyterHub.concurrent_spawn_limit = 10


# JupyterLab's "news" pop-up and update check, off (a student's own settings file, written once)
LAB_SETTINGS = {"@jupyterlab/apputils-extension/notification.jupyterlab-settings":
                {"fetchNews": "false", "checkForUpdates": False}}


def _as_opened(notebooks: list[Path], home: Path) -> None:
    """Make a copied notebook open unmodified: the kernel's ``language_info`` and a trust signature.

    JupyterLab writes the running kernel's ``language_info`` into a notebook when the kernel starts, which
    marks a notebook whose metadata holds only ``{"name": "python"}`` as modified; the student's kernel is
    this venv's ipykernel, so its ``language_info`` is known here. The signature goes into the student's
    own database (``~/.local/share/jupyter``), as ``jupyter trust`` run by the student would put it.
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


def copy_lessons(spawner) -> None:
    """The lessons and the fact-check into the student's home, once: their edits are never overwritten."""
    home = Path(spawner.home_dir_template.format(username=spawner.user.name))
    home.mkdir(parents=True, exist_ok=True)
    copied = []
    lessons = home / "lessons"
    if not lessons.exists():
        shutil.copytree(ROOT / "explorer" / "notebooks" / "lessons", lessons,
                        ignore=shutil.ignore_patterns("*.py", "src", "__pycache__", ".ipynb_checkpoints"))
        copied += sorted(lessons.rglob("*.ipynb"))
    claims = home / "claims.ipynb"  # the lessons link ../claims.ipynb from the index
    if not claims.exists():
        shutil.copy2(ROOT / "explorer" / "notebooks" / "claims.ipynb", claims)
        copied.append(claims)
    view = home / "class_view.ipynb"  # the lecturer's class view, for the admin only
    if getattr(spawner.user, "admin", False) and not view.exists():
        shutil.copy2(HERE / "class_view.ipynb", view)
        copied.append(view)
    if copied:
        _as_opened(copied, home)
    for name, settings in LAB_SETTINGS.items():
        path = home / ".jupyter" / "lab" / "user-settings" / name
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(settings, indent=2), encoding="utf-8")


c.Spawner.pre_spawn_hook = copy_lessons

# stop servers idle for an hour (WORKSHOP_IDLE_TIMEOUT seconds); files stay, a student logs in again
c.JupyterHub.services = [{
    "name": "idle-culler",
    "command": [sys.executable, "-m", "jupyterhub_idle_culler",
                f"--timeout={os.environ.get('WORKSHOP_IDLE_TIMEOUT', '3600')}", "--cull-every=300"],
}]
c.JupyterHub.load_roles = [{
    "name": "idle-culler",
    "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
    "services": ["idle-culler"],
}]
