"""JupyterHub for a workshop class on one machine: ``make hub`` (http://127.0.0.1:8000).

* login: one shared workshop password (``WORKSHOP_PASSWORD``, at least 8 characters) and any user name;
  ``WORKSHOP_ADMIN_PASSWORD`` (optional) makes the teacher an admin who can see every student's server;
* each student gets a JupyterLab server as a local process of the hub's user (no system accounts),
  with a home of their own under ``$WORKSHOP_HUB_STATE/homes/<name>`` into which the lessons
  (``notebooks/lessons``) and the fact-check (``notebooks/claims.ipynb``) are copied at the first start;
  their own edits are never overwritten;
* servers idle for an hour are stopped by jupyterhub-idle-culler (their files stay);
* the proxy is configurable-http-proxy from npm (``deploy/jupyterhub/node_modules``).

Environment: ``WORKSHOP_HUB_PORT`` (8000), ``WORKSHOP_HUB_API_PORT`` (8081), ``WORKSHOP_PROXY_API_PORT``
(8001), ``WORKSHOP_HUB_STATE`` (``.hub`` in the repository), ``WORKSHOP_IDLE_TIMEOUT`` [s] (3600).
It listens on 127.0.0.1 only: put it behind nginx with TLS for a room (docs/workshop.md).
"""

import os
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
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
c.Spawner.environment = {"PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "MPLBACKEND": "Agg"}
if hasattr(os, "geteuid") and os.geteuid() == 0:  # CI and containers run as root; Jupyter refuses without this
    c.Spawner.args = ["--ServerApp.allow_root=True"]
c.Spawner.start_timeout = 180  # 30 students starting on 2 cores
c.Spawner.http_timeout = 180
c.JupyterHub.concurrent_spawn_limit = 10


def copy_lessons(spawner) -> None:
    """The lessons and the fact-check into the student's home, once: their edits are never overwritten."""
    home = Path(spawner.home_dir_template.format(username=spawner.user.name))
    home.mkdir(parents=True, exist_ok=True)
    lessons = home / "lessons"
    if not lessons.exists():
        shutil.copytree(ROOT / "notebooks" / "lessons", lessons,
                        ignore=shutil.ignore_patterns("*.py", "src", "__pycache__", ".ipynb_checkpoints"))
    claims = home / "claims.ipynb"  # the lessons link ../claims.ipynb from the index
    if not claims.exists():
        shutil.copy2(ROOT / "notebooks" / "claims.ipynb", claims)


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
