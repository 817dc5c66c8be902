"""The hub's sharp edges, without starting a hub: the login rules, the home copy, the z2jh copy.

* `make hub` with a login setting that breaks the rules stops with one readable line, before it installs or
  starts anything: no login mode chosen, a short or common class password, an admin password of 32 × "a", a
  roster that cannot be read or names a student twice; not root (the hub makes an OS account per student);
* ``student_start.py`` (run as the student at each start) copies the lessons once, so that they open unmodified
  (the kernel's ``language_info``, a trust signature in the student's own database) and without JupyterLab's
  news pop-up, never overwrites a student's edit, and never writes through a link the student left;
* the z2jh ``postStart`` command, run twice in a temporary HOME, leaves one ``lessons`` folder.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[2]
HUB = ROOT / "deploy" / "jupyterhub"

sys.path.insert(0, str(HUB))
from passwords import problem  # noqa: E402
from student_start import set_up_home  # noqa: E402

IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
needs_root = pytest.mark.skipif(not IS_ROOT, reason="the class hub runs as root (CI does)")
TRUSTED = {"WORKSHOP_TRUSTED_ROOM": "1"}


def _make_hub(**env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("WORKSHOP_")}
    return subprocess.run(["make", "--no-print-directory", "hub"], cwd=ROOT, env={**clean, **env},
                          capture_output=True, text=True, timeout=120)


@needs_root
@pytest.mark.parametrize("env, says", [
    ({}, "say who may log in: WORKSHOP_ROSTER=names.txt"),
    ({**TRUSTED}, "WORKSHOP_PASSWORD must have 8 or more characters (it has 0)"),
    ({**TRUSTED, "WORKSHOP_PASSWORD": "seven77"}, "WORKSHOP_PASSWORD must have 8 or more characters (it has 7)"),
    ({**TRUSTED, "WORKSHOP_PASSWORD": "12345678"}, "WORKSHOP_PASSWORD is a common password"),
    ({**TRUSTED, "WORKSHOP_PASSWORD": "Password"}, "WORKSHOP_PASSWORD is a common password"),
    ({**TRUSTED, "WORKSHOP_PASSWORD": " " * 8}, "WORKSHOP_PASSWORD must have 5 or more different characters"),
    ({**TRUSTED, "WORKSHOP_PASSWORD": "eight-88", "WORKSHOP_ADMIN_PASSWORD": "teacher-password-of-31-characte"},
     "WORKSHOP_ADMIN_PASSWORD must have 32 or more characters (it has 31)"),
    ({**TRUSTED, "WORKSHOP_PASSWORD": "eight-88", "WORKSHOP_ADMIN_PASSWORD": "a" * 32},
     "WORKSHOP_ADMIN_PASSWORD must have 10 or more different characters"),
    ({**TRUSTED, "WORKSHOP_PASSWORD": "The quick brown fox jumps over 3", "WORKSHOP_ADMIN_PASSWORD":
      "The quick brown fox jumps over 3"}, "must differ"),
    ({**TRUSTED, "WORKSHOP_PASSWORD": "eight-88", "WORKSHOP_CLASS_SIZE": "lots"},
     "WORKSHOP_CLASS_SIZE must be a whole number from 1 to 200"),
    ({"WORKSHOP_ROSTER": "/nonexistent/names.txt"}, "WORKSHOP_ROSTER: cannot read '/nonexistent/names.txt'"),
    ({"WORKSHOP_ROSTER": "TWICE"}, "is already on line 1"),
    ({"WORKSHOP_ROSTER": "x", **TRUSTED}, "not both"),
], ids=["no mode", "unset", "7 characters", "common", "common, any case", "8 spaces", "admin 31 characters",
        "admin 32 x a", "admin = class", "class size", "no roster file", "roster twice", "both modes"])
def test_make_hub_with_a_bad_login_setting_stops_with_one_line(env, says, tmp_path):
    if env.get("WORKSHOP_ROSTER") == "TWICE":
        (tmp_path / "names.txt").write_text("Li Wei\nli  wei\n", encoding="utf-8")
        env = {**env, "WORKSHOP_ROSTER": str(tmp_path / "names.txt")}
    result = _make_hub(**env)
    out = (result.stdout + result.stderr).strip()
    assert result.returncode != 0
    assert len(out.splitlines()) == 1 and says in out and "Traceback" not in out, out
    assert any("\u4e00" <= ch <= "\u9fff" for ch in out)  # said in Chinese too


def test_the_rules_accept_what_they_say(tmp_path):
    roster = tmp_path / "names.txt"
    roster.write_text("# the class of 7 December\n陈明\nli.wei\ndana li\n\n", encoding="utf-8")
    assert problem({**TRUSTED, "WORKSHOP_PASSWORD": "cost-workshop-2026"}, euid=0) == ""
    assert problem({**TRUSTED, "WORKSHOP_PASSWORD": "cost-workshop-2026",
                    "WORKSHOP_ADMIN_PASSWORD": "teacher-Pass-phrase-of-the-class-2026"}, euid=0) == ""
    assert problem({"WORKSHOP_ROSTER": str(roster)}, euid=0) == ""
    assert "must run as root" in problem({"WORKSHOP_ROSTER": str(roster)}, euid=1000)


@needs_root
def test_jupyterhub_started_by_hand_with_a_short_admin_password_says_one_line(tmp_path):
    jupyterhub = Path(sys.executable).parent / "jupyterhub"
    if not jupyterhub.exists():
        pytest.skip("make hub installs JupyterHub")
    env = {**os.environ, **TRUSTED, "WORKSHOP_PASSWORD": "cost-workshop-2026", "WORKSHOP_ADMIN_PASSWORD": "short",
           "WORKSHOP_HUB_STATE": str(tmp_path)}
    result = subprocess.run([str(jupyterhub), "-f", str(HUB / "jupyterhub_config.py")], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=300)
    out = (result.stdout + result.stderr).strip()
    assert result.returncode != 0 and "Traceback" not in out, out
    assert out.splitlines()[-1].startswith("WORKSHOP_ADMIN_PASSWORD must have 32"), out


def _hub_config(**env: str):
    """Run jupyterhub_config.py as JupyterHub does (with get_config), as root, its state in a new /tmp folder."""
    if not IS_ROOT:
        pytest.skip("the class hub's config runs as root (CI does)")
    traitlets = pytest.importorskip("traitlets.config")
    config = traitlets.Config()
    state = Path(tempfile.mkdtemp(prefix="hub-config-", dir="/tmp"))
    old = dict(os.environ)
    os.environ.update({**TRUSTED, "WORKSHOP_PASSWORD": "cost-workshop-2026", "WORKSHOP_HUB_STATE": str(state),
                       **env})
    try:
        code = (HUB / "jupyterhub_config.py").read_text(encoding="utf-8")
        exec(compile(code, str(HUB / "jupyterhub_config.py"), "exec"),
             {"get_config": lambda: config, "__file__": str(HUB / "jupyterhub_config.py")})
    finally:
        os.environ.clear()
        os.environ.update(old)
    return config, state


@pytest.fixture(scope="module")
def hub_config():
    config, state = _hub_config()
    yield config, state
    shutil.rmtree(state, ignore_errors=True)


def test_kernels_are_culled_inside_jupyterlab(hub_config):
    args = hub_config[0].Spawner.args
    assert "--MappingKernelManager.cull_idle_timeout=1200" in args  # 20 minutes
    assert "--MappingKernelManager.cull_connected=True" in args      # a lesson left open in a tab, too
    assert "--MappingKernelManager.cull_busy=False" in args
    assert not any("allow_root" in a for a in args)  # no student runs as root


def test_the_state_is_the_hubs_and_the_homes_are_not_listed(hub_config):
    config, state = hub_config
    mode = {p: (state / p).stat().st_mode & 0o777 for p in ("", "hub", "homes")}
    assert mode == {"": 0o711, "hub": 0o700, "homes": 0o711}
    assert Path(config.JupyterHub.cookie_secret_file).parent == state / "hub"
    assert config.JupyterHub.db_url == f"sqlite:///{state / 'hub' / 'jupyterhub.sqlite'}"
    assert config.JupyterHub.spawner_class == "localprocess"
    assert config.WorkshopAuthenticator.create_system_users is True
    assert config.JupyterHub.active_server_limit == 31  # a class of 30 and its teacher
    # nothing of the hub's environment but what is listed: no password, no WORKSHOP_HOMES
    assert set(config.Spawner.environment) == {"PATH", "MPLBACKEND", "WORKSHOP_RECORD_CHECKS"}
    # the students' Python: every account can run it
    python = Path(config.Spawner.cmd[0])
    assert python.is_relative_to(state / "runtime")
    ran = subprocess.run([str(python), "-c", "import explorer, jupyterlab"], user=65534, group=65534,
                         extra_groups=[], cwd="/", capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr


def test_a_checkout_students_cannot_reach_is_served_from_a_copy():
    """A lecturer's checkout under /root (0700): the students get a copy of what they use, in the hub's state."""
    config, state = _hub_config(WORKSHOP_STUDENT_COPY="1")  # as if nobody could read this checkout
    try:
        python, start = map(Path, config.Spawner.cmd)
        assert start == state / "runtime" / "app" / "deploy" / "jupyterhub" / "student_start.py"
        ran = subprocess.run([str(python), "-c", "import explorer, jupyterlab, sys; print(explorer.__file__); "
                              "print(*[p for p in sys.path if p.startswith(" + repr(str(ROOT)) + ")])"],
                             user=65534, group=65534, extra_groups=[], cwd="/", capture_output=True, text=True,
                             timeout=120)
        assert ran.returncode == 0, ran.stderr
        assert ran.stdout.split("\n")[:2] == [str(state / "runtime" / "app" / "explorer" / "__init__.py"), ""]
        assert (state / "runtime" / "app" / "explorer" / "notebooks" / "lessons" / "index.ipynb").exists()
    finally:
        shutil.rmtree(state, ignore_errors=True)


def test_a_students_home_is_made_theirs_alone_at_each_start(hub_config):
    config, state = hub_config
    prepare = config.Spawner.pre_spawn_hook
    account = "ws-home-test-0a0a0a"
    subprocess.run(["useradd", "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin",
                    "--user-group", "--comment", "llm-cost-explorer workshop student", account], check=True)
    try:
        spawner = SimpleNamespace(user=SimpleNamespace(name=account, admin=False), environment={})
        prepare(spawner)
        home = state / "homes" / account
        entry = pwd.getpwnam(account)
        assert entry.pw_dir == str(home)  # an account made by a hub with another state folder, moved here
        assert (home.stat().st_uid, home.stat().st_mode & 0o777) == (entry.pw_uid, 0o700)
        os.chmod(home, 0o755)  # the student opened it up: the next start closes it again
        prepare(spawner)
        assert home.stat().st_mode & 0o777 == 0o700 and "WORKSHOP_TEACHER" not in spawner.environment
    finally:
        subprocess.run(["userdel", account], capture_output=True)
    # an account of the machine's own (not made by the hub) never gets a server
    with pytest.raises(RuntimeError, match="did not make"):
        prepare(SimpleNamespace(user=SimpleNamespace(name="root", admin=False), environment={}))


def test_lessons_are_copied_once_open_unmodified_and_without_news(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    ipkernel = pytest.importorskip("ipykernel.ipkernel")
    from nbformat.sign import NotebookNotary

    home = tmp_path / "ada"
    home.mkdir()
    set_up_home(home)
    lesson = home / "lessons" / "en" / "01_flops_to_dollars.ipynb"
    nb = nbformat.read(lesson, as_version=4)
    # what the kernel will report (JupyterLab writes it into the notebook, which marks it modified)
    assert nb.metadata.language_info == ipkernel.IPythonKernel.language_info
    assert nb.metadata.language_info["version"] == sys.version.split()[0]
    notary = NotebookNotary(data_dir=str(home / ".local" / "share" / "jupyter"))
    assert notary.check_signature(nb)
    assert notary.check_signature(nbformat.read(home / "claims.ipynb", as_version=4))
    # the committed cells, unchanged
    committed = json.loads((ROOT / "explorer" / "notebooks" / "lessons" / "en" / "01_flops_to_dollars.ipynb").read_text())
    assert [c["source"] for c in nb.cells] == [
        "".join(c["source"]) if isinstance(c["source"], list) else c["source"] for c in committed["cells"]]
    settings = home / ".jupyter/lab/user-settings/@jupyterlab/apputils-extension/notification.jupyterlab-settings"
    assert json.loads(settings.read_text())["fetchNews"] == "false"
    assert not (home / "class_view.ipynb").exists()  # the teacher's only
    # the student edits a lesson; the next start copies nothing over it and nests nothing
    lesson.write_text(lesson.read_text().replace("Exercise 1", "My exercise 1"))
    set_up_home(home)
    assert "My exercise 1" in lesson.read_text()
    assert not (home / "lessons" / "lessons").exists()


def test_the_home_copy_never_writes_through_a_students_link(tmp_path):
    home, target = tmp_path / "ada", tmp_path / "elsewhere.ipynb"
    home.mkdir()
    (home / "claims.ipynb").symlink_to(target)   # a dangling link where the fact-check goes
    (home / "class_view.ipynb").symlink_to(tmp_path / "view.ipynb")
    set_up_home(home, teacher=True)
    assert not target.exists() and not (tmp_path / "view.ipynb").exists()
    assert (home / "lessons" / "index.ipynb").exists()


def _post_start() -> str:
    yaml = pytest.importorskip("yaml")
    values = yaml.safe_load((HUB / "z2jh-values.yaml").read_text(encoding="utf-8"))
    command = values["singleuser"]["lifecycleHooks"]["postStart"]["exec"]["command"]
    assert command[:2] == ["sh", "-c"]
    return command[2]


def test_z2jh_post_start_run_twice_leaves_one_lessons_folder(tmp_path):
    srv, home = tmp_path / "srv", tmp_path / "home"
    shutil.copytree(ROOT / "explorer" / "notebooks" / "lessons", srv / "lessons", ignore=shutil.ignore_patterns("src", "*.py"))
    shutil.copy2(ROOT / "explorer" / "notebooks" / "claims.ipynb", srv / "claims.ipynb")
    home.mkdir()
    script = _post_start()
    assert script.count("/srv/") == 2  # the lessons and the fact-check, from the image
    script = script.replace("/srv/", f"{srv}/")
    env = {"HOME": str(home), "PATH": os.environ["PATH"]}
    for _ in range(2):  # a pod's first start, then a restart
        subprocess.run(["sh", "-c", script], env=env, check=True, timeout=60)
        (home / "lessons" / "index.ipynb").write_text("edited")  # the student's edit
    assert sorted(p.name for p in home.iterdir()) == ["claims.ipynb", "lessons"]
    assert not (home / "lessons" / "lessons").exists()
    assert (home / "lessons" / "en" / "01_flops_to_dollars.ipynb").exists()
    assert (home / "lessons" / "index.ipynb").read_text() == "edited"


def test_z2jh_values_cull_kernels_and_turn_the_news_off():
    yaml = pytest.importorskip("yaml")
    values = yaml.safe_load((HUB / "z2jh-values.yaml").read_text(encoding="utf-8"))
    files = values["singleuser"]["extraFiles"]
    culling = files["kernel-culling"]
    assert "jupyter_server_config.d" in culling["mountPath"] and culling["mountPath"].endswith(".json")
    assert culling["data"]["MappingKernelManager"]["cull_idle_timeout"] == 1200
    assert culling["data"]["MappingKernelManager"]["cull_connected"] is True
    news = files["lab-settings"]["data"]["@jupyterlab/apputils-extension:notification"]
    assert news["fetchNews"] == "false"
