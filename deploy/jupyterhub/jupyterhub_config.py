"""JupyterHub for a workshop class on one machine: ``make hub`` (http://127.0.0.1:8000), run as root.

Each student reaches only their own work (docs/workshop.md, "The class hub: who can see what"):

* login (``workshop_auth.py``, rules in ``passwords.py``): ``WORKSHOP_ROSTER=names.txt``, one name per line, and
  each student gets a login code of their own, printed by the lecturer (``roster.py``; the codes of new names go
  to ``<state>/hub/codes-to-print.txt``); or, only when asked for, ``WORKSHOP_TRUSTED_ROOM=1`` with one class
  password ``WORKSHOP_PASSWORD`` and any name (anyone with the password can log in as anyone), at most
  ``WORKSHOP_CLASS_SIZE`` (30) accounts. Failed logins are throttled per name and per address.
  ``WORKSHOP_ADMIN_PASSWORD`` (optional, 32+ characters) lets the teacher (``WORKSHOP_ADMIN``, ``teacher``) in
  as the hub's admin. Any name a student types (``陈明``, ``li.wei``, ``dana li``) maps to an account ``ws-…``
  (``names.py``); ``WORKSHOP_LANG`` (``en+zh``; ``en``, ``zh``) is the login page's language;
* each student is an OS account of their own, created at the first login (``useradd``, no password, no shell),
  and their JupyterLab and kernels run as that account (JupyterHub's ``LocalProcessSpawner``), in a home
  ``<state>/homes/<account>`` that is theirs alone (0700); ``<state>/homes`` is root's and can be crossed but not
  listed (0711); the hub's database, cookie secret, roster and pid files are in ``<state>/hub`` (0700 root);
* a student's server gets in its environment its own hub token and nothing of the hub's (JupyterHub passes only
  ``Spawner.environment`` below, its own ``JUPYTERHUB_*`` and the student's ``HOME``/``USER``/``SHELL``);
* the lessons and the fact-check are copied into the home at each start where missing, by the student's own
  process (``student_start.py``): their edits are never overwritten; the teacher's home gets ``class_view.ipynb``;
* each check a student runs is recorded in their home (``explorer/classroom.py``); the teacher's class view asks
  the hub (``/hub/class-records``, ``class_records.py``), which reads every home as root for an admin only;
* servers idle for an hour are stopped by jupyterhub-idle-culler (their files stay); inside JupyterLab, a
  kernel idle for 20 minutes is shut down; at most the class size (+ the teacher) servers run at once;
* the proxy is configurable-http-proxy from npm (``deploy/jupyterhub/node_modules``).

Environment: ``WORKSHOP_HUB_PORT`` (8000), ``WORKSHOP_HUB_API_PORT`` (8081), ``WORKSHOP_PROXY_API_PORT``
(8001), ``WORKSHOP_HUB_STATE`` (``.hub`` in the repository), ``WORKSHOP_IDLE_TIMEOUT`` [s] (3600),
``WORKSHOP_KERNEL_IDLE_TIMEOUT`` [s] (1200) and ``WORKSHOP_KERNEL_CULL_EVERY`` [s] (60).
It listens on 127.0.0.1 only: put it behind nginx with TLS for a room (docs/workshop.md).
"""

import os
import pwd
import shutil
import stat
import subprocess
import sys
import sysconfig
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parents[1]))  # this checkout's explorer (class_records.py reads records with it)
from names import account_name  # noqa: E402 - next to this file
from passwords import USER_TOOLS, class_size, problem, roster_names  # noqa: E402

if problem():  # JupyterHub would stop with a traceback, or start unsafe; say the rule in one line instead
    sys.exit(problem())
ROOT = HERE.parents[1]
STATE = Path(os.environ.get("WORKSHOP_HUB_STATE", ROOT / ".hub")).resolve()
PRIVATE = STATE / "hub"   # the hub's own: database, cookie secret, roster, pid files (0700 root)
HOMES = STATE / "homes"   # one home per student (each 0700, the student's); crossed, not listed (0711 root)
ROSTER = os.environ.get("WORKSHOP_ROSTER", "")
TEACHER = os.environ.get("WORKSHOP_ADMIN", "teacher")
CLASS_SIZE = len(roster_names(Path(ROSTER))) if ROSTER else class_size()

c = get_config()  # noqa: F821 - provided by JupyterHub


def _root_dir(path: Path, mode: int) -> None:
    """A folder owned by root with ``mode``, whatever was there before (a hub of issue 42 left 0755)."""
    path.mkdir(parents=True, exist_ok=True)
    os.chown(path, 0, 0)
    os.chmod(path, mode)


_root_dir(STATE, 0o711)
_root_dir(PRIVATE, 0o700)
_root_dir(HOMES, 0o711)
for old in ("jupyterhub.sqlite", "jupyterhub_cookie_secret", "jupyterhub.pid", "proxy.pid"):
    if (STATE / old).is_file():  # the state of a hub before issue 42 sat beside the homes, readable by all: set
        os.replace(STATE / old, PRIVATE / f"{old}.before-issue-42")  # aside, private (its users had no accounts)
for old_home in HOMES.iterdir():  # its homes were root's, 0755: no student account may read them
    if not old_home.name.startswith("ws-") and old_home.is_dir() and not old_home.is_symlink():
        os.chmod(old_home, 0o700)



def _as_nobody(argv: list[str]) -> subprocess.CompletedProcess:
    """Run ``argv`` as ``nobody`` (uid 65534, no groups): what any student account can do."""
    try:
        return subprocess.run(argv, user=65534, group=65534, extra_groups=[], cwd="/", capture_output=True,
                              text=True, env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent"}, timeout=300)
    except OSError as e:  # the program itself cannot be reached
        return subprocess.CompletedProcess(argv, 126, "", f"{e.strerror}: {e.filename}")


def _link_tree(src: Path, dst: Path, ignore=None) -> None:
    """``src`` copied to ``dst`` as hard links (1 s for the venv's 46,000 files), or as copies across file systems."""
    def link(a, b):
        try:
            os.link(a, b)
        except OSError:
            shutil.copy2(a, b)
    shutil.copytree(src, dst, symlinks=True, copy_function=link, ignore=ignore)


def student_python() -> tuple[Path, Path]:
    """(the Python the students' servers and kernels run, the checkout they read), rebuilt at each start.

    The project's venv may sit on an interpreter no other account can run (a pyenv build under /root, 0700, as
    on the project's CI machine). So the students get a venv of their own, ``<state>/runtime`` (made by hand:
    ``pyvenv.cfg``, ``bin/python``, no pip), on the first interpreter of this Python version that ``nobody`` can
    run: the venv's own, then the system's; the same packages, compiled for the same Python version.

    * When every account can read this checkout and the project venv, the runtime points at them: its ``etc`` and
      ``share`` are the venv's (JupyterLab's extension, assets and kernel), its ``.pth`` puts this checkout and
      the venv's packages on the path;
    * otherwise (a checkout under /root, 0700) it holds its own copy, hard-linked where it can: the venv's
      ``etc``, ``share`` and packages, and of the checkout what a student uses (``explorer``, the lessons, the
      fact-check, ``student_start.py``, the class view) in ``<state>/runtime/app``. ``WORKSHOP_STUDENT_COPY=1``
      makes the copy in any case.

    One line and exit when even that cannot be used.
    """
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    candidates = [Path(getattr(sys, "_base_executable", sys.executable)).resolve(),
                  Path("/usr/bin") / version, Path("/usr/local/bin") / version]
    base = next((p for p in candidates if p.exists() and _as_nobody([str(p), "-c", "pass"]).returncode == 0), None)
    if base is None:
        sys.exit(f"no {version} that every account can run ({', '.join(map(str, candidates))}): install Debian's "
                 f"{version} (apt-get install {version}) / 学生账户无法运行 {version}")
    packages = Path(sysconfig.get_paths()["purelib"])
    runtime, python = STATE / "runtime", STATE / "runtime" / "bin" / "python"
    site = runtime / "lib" / version / "site-packages"

    def build(copy: bool) -> Path:
        if runtime.is_symlink() or runtime.is_file():
            runtime.unlink()
        elif runtime.exists():
            shutil.rmtree(runtime)  # rebuilt at each start; its links are removed, never followed
        (runtime / "bin").mkdir(parents=True)
        (runtime / "pyvenv.cfg").write_text(f"home = {base.parent}\ninclude-system-site-packages = false\n",
                                            encoding="utf-8")
        for name in ("python", "python3", version):
            (runtime / "bin" / name).symlink_to(base)
        if not copy:
            site.mkdir(parents=True)
            for shared in ("etc", "share"):  # Jupyter's config (server extensions) and data (JupyterLab, kernels)
                (runtime / shared).symlink_to(Path(sys.prefix) / shared)
            (site / "_workshop.pth").write_text(f"{ROOT}\nimport site; site.addsitedir({str(packages)!r})\n",
                                                encoding="utf-8")
            checkout = ROOT
        else:
            for shared in ("etc", "share"):
                if (Path(sys.prefix) / shared).is_dir():
                    _link_tree(Path(sys.prefix) / shared, runtime / shared)
            # the packages, less the editable install of this checkout (the app's copy stands in for it)
            _link_tree(packages, site, ignore=lambda d, names: [n for n in names if n.startswith("__editable__")])
            checkout = runtime / "app"
            # the package holds the lessons and the fact-check (explorer/notebooks, issue 40)
            _link_tree(ROOT / "explorer", checkout / "explorer",
                       ignore=shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints"))
            (checkout / "deploy" / "jupyterhub").mkdir(parents=True)
            for name in ("deploy/jupyterhub/student_start.py", "deploy/jupyterhub/class_view.ipynb"):
                shutil.copy2(ROOT / name, checkout / name)
            (site / "_workshop.pth").write_text(f"{checkout}\n", encoding="utf-8")
        for path in [runtime, *runtime.rglob("*")]:  # readable by every account (whatever the umask)
            if path.is_symlink():
                continue
            if path.is_dir():
                os.chmod(path, 0o755)
            elif path.stat().st_nlink == 1:  # a hard link shares its mode with the project's file: left alone
                os.chmod(path, 0o644 | (path.stat().st_mode & 0o111))
        return checkout

    copy = os.environ.get("WORKSHOP_STUDENT_COPY") == "1"
    for attempt in ((copy,) if copy else (False, True)):
        checkout = build(attempt)
        reach = _as_nobody([str(python), "-c", (
            "import os, explorer, jupyterhub, jupyterlab, ipykernel\n"
            f"os.stat({str(HOMES)!r})\n"
            f"open({str(checkout / 'deploy/jupyterhub/student_start.py')!r}).close()\n"
            f"open({str(checkout / 'explorer/notebooks/lessons/index.ipynb')!r}).close()")])
        if reach.returncode == 0:
            return python, checkout
    sys.exit(f"a student's account cannot use the copy of the project in {runtime} or reach {HOMES} "
             f"({(reach.stderr.strip().splitlines() or ['?'])[-1]}): every folder above {STATE} must let every "
             "account through (chmod o+x), or set WORKSHOP_HUB_STATE to a folder that does, e.g. /srv/workshop-hub "
             "/ 学生账户无法访问课堂服务器的目录")


PYTHON, STUDENT_CHECKOUT = student_python()

c.JupyterHub.bind_url = f"http://127.0.0.1:{os.environ.get('WORKSHOP_HUB_PORT', '8000')}"
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = int(os.environ.get("WORKSHOP_HUB_API_PORT", "8081"))
c.JupyterHub.db_url = f"sqlite:///{PRIVATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(PRIVATE / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(PRIVATE / "jupyterhub.pid")
c.JupyterHub.cleanup_servers = True  # a stopped hub stops the students' servers (their files stay)

c.ConfigurableHTTPProxy.command = [str(HERE / "node_modules" / ".bin" / "configurable-http-proxy")]
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{os.environ.get('WORKSHOP_PROXY_API_PORT', '8001')}"
c.ConfigurableHTTPProxy.pid_file = str(PRIVATE / "proxy.pid")

# the login: a roster with a code per student, or a trusted room's shared password (workshop_auth.py)
from class_records import ClassRecordsHandler  # noqa: E402
from roster import issue_codes  # noqa: E402
from workshop_auth import WorkshopAuthenticator  # noqa: E402

if ROSTER:
    try:
        issued = issue_codes(Path(ROSTER), PRIVATE)
    except ValueError as e:  # two names of the roster with one account: one line
        sys.exit(str(e))
    if issued:
        print(f"{len(issued)} new login codes: print {PRIVATE / 'codes-to-print.txt'} and cut it into slips "
              f"(then delete it) / 新登录码 {len(issued)} 个：请打印 {PRIVATE / 'codes-to-print.txt'}", file=sys.stderr)
c.JupyterHub.authenticator_class = WorkshopAuthenticator
c.WorkshopAuthenticator.mode = "roster" if ROSTER else "trusted"
c.WorkshopAuthenticator.private_dir = str(PRIVATE)
c.WorkshopAuthenticator.class_password = "" if ROSTER else os.environ.get("WORKSHOP_PASSWORD", "")
c.WorkshopAuthenticator.teacher = TEACHER
c.WorkshopAuthenticator.teacher_password = os.environ.get("WORKSHOP_ADMIN_PASSWORD", "")
c.WorkshopAuthenticator.class_size = CLASS_SIZE
c.WorkshopAuthenticator.language = os.environ.get("WORKSHOP_LANG", "en+zh")
# the per-address allowance is the class: a room behind one NAT address where each student mistypes once
c.WorkshopAuthenticator.throttle_settings = {"addr_free": max(10, CLASS_SIZE)}
if os.environ.get("WORKSHOP_ADMIN_PASSWORD"):
    c.Authenticator.admin_users = {account_name(TEACHER)}
c.Authenticator.allow_all = True  # WorkshopAuthenticator.authenticate is the gate: the roster, or the class cap
STUDENT_COMMENT = "llm-cost-explorer workshop student"  # marks the accounts this hub made (and may remove)
# an account per student, made at the first login: no password (the hub logs them in), no login shell, its home
# made by the pre-spawn hook below (root's, then given to the student, 0700)
c.WorkshopAuthenticator.create_system_users = True
c.WorkshopAuthenticator.add_user_cmd = [shutil.which("useradd", path=USER_TOOLS),
                                        "--no-create-home", "--home-dir", f"{HOMES}/USERNAME",
                                        "--shell", "/usr/sbin/nologin", "--user-group",
                                        "--comment", STUDENT_COMMENT]
ClassRecordsHandler.homes = HOMES

# one JupyterLab per student, a process of the student's own account, opened on the lesson index
c.JupyterHub.spawner_class = "localprocess"
# student_start.py sets the home up, as the student, then starts jupyterhub-singleuser
c.Spawner.cmd = [str(PYTHON), str(STUDENT_CHECKOUT / "deploy" / "jupyterhub" / "student_start.py")]
c.Spawner.default_url = "/lab/tree/lessons/index.ipynb"
# Nothing of the hub's environment beyond this (JupyterHub's env_keep is only JUPYTERHUB_SINGLEUSER_APP)
c.Spawner.environment = {"PATH": f"{PYTHON.parent}{os.pathsep}/usr/local/bin:/usr/bin:/bin", "MPLBACKEND": "Agg",
                         "WORKSHOP_RECORD_CHECKS": "1"}  # each check is recorded in the student's home
# Kernels idle for WORKSHOP_KERNEL_IDLE_TIMEOUT (20 min) are shut down, open tab or not (a class moves on to the
# next lesson and leaves the last one open: each holds a kernel of 0.1-0.3 GB); a busy kernel is never culled.
# A culled lesson shows "No Kernel" in JupyterLab; Run All starts a new one.
c.Spawner.args = [
    f"--MappingKernelManager.cull_idle_timeout={int(os.environ.get('WORKSHOP_KERNEL_IDLE_TIMEOUT', '1200'))}",
    f"--MappingKernelManager.cull_interval={int(os.environ.get('WORKSHOP_KERNEL_CULL_EVERY', '60'))}",
    "--MappingKernelManager.cull_connected=True",
    "--MappingKernelManager.cull_busy=False",
]
c.Spawner.start_timeout = 180  # 30 students starting on 2 cores
c.Spawner.http_timeout = 180
c.JupyterHub.concurrent_spawn_limit = 10
c.JupyterHub.active_server_limit = CLASS_SIZE + 1  # the class and its teacher (about 125 MB each, issue 42)


def prepare_home(spawner) -> None:
    """As root, before the student's server starts: their home exists, is theirs and theirs alone (0700).

    The home's parent is root's (0711), so the student cannot swap their home for a link; its mode is set again
    at every start in case the student opened it up. The account's home is set to it (an account made by a hub
    with another state folder pointed elsewhere).
    """
    account = spawner.user.name
    user = pwd.getpwnam(account)
    if user.pw_gecos != STUDENT_COMMENT:  # an account of the machine's own that happens to have this name
        raise RuntimeError(f"{account} is an account this hub did not make: the hub will not run a server as it")
    home = HOMES / account
    if user.pw_dir != str(home):
        subprocess.run([shutil.which("usermod", path=USER_TOOLS), "--home", str(home), account], check=True,
                       capture_output=True, timeout=60)
    try:
        os.mkdir(home, 0o700)
    except FileExistsError:
        pass
    if not stat.S_ISDIR(os.lstat(home).st_mode):
        raise RuntimeError(f"{home} is not a folder")
    os.chown(home, user.pw_uid, user.pw_gid)
    os.chmod(home, 0o700)
    if spawner.user.admin:  # student_start.py gives the teacher the class view
        spawner.environment = {**spawner.environment, "WORKSHOP_TEACHER": "1"}


c.Spawner.pre_spawn_hook = prepare_home

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
