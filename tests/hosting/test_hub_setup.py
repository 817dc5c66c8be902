"""The hub's sharp edges, without starting a hub: the password rule, the home copy, the z2jh copy.

* `make hub` with a password that breaks the rule stops with one readable line, before it installs or starts
  anything (JupyterHub itself refuses an admin password under 32 characters, with a traceback);
* the pre-spawn hook of deploy/jupyterhub/jupyterhub_config.py copies the lessons once, so that they open
  unmodified (the kernel's ``language_info``, a trust signature in the student's own database) and without
  JupyterLab's news pop-up, and never overwrites a student's edit;
* the z2jh ``postStart`` command, run twice in a temporary HOME, leaves one ``lessons`` folder.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[2]
HUB = ROOT / "deploy" / "jupyterhub"

sys.path.insert(0, str(HUB))
from passwords import problem  # noqa: E402


def _make_hub(**env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("WORKSHOP_")}
    return subprocess.run(["make", "--no-print-directory", "hub"], cwd=ROOT, env={**clean, **env},
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("env, says", [
    ({}, "WORKSHOP_PASSWORD must have 8 or more characters (it has 0)"),
    ({"WORKSHOP_PASSWORD": "seven77"}, "WORKSHOP_PASSWORD must have 8 or more characters (it has 7)"),
    ({"WORKSHOP_PASSWORD": "eight888", "WORKSHOP_ADMIN_PASSWORD": "teacher-password-of-31-characte"},
     "WORKSHOP_ADMIN_PASSWORD must have 32 or more characters (it has 31)"),
    ({"WORKSHOP_PASSWORD": "x" * 32, "WORKSHOP_ADMIN_PASSWORD": "x" * 32}, "must differ"),
], ids=["unset", "7 characters", "admin 31 characters", "admin = class"])
def test_make_hub_with_a_bad_password_stops_with_one_line(env, says):
    result = _make_hub(**env)
    out = (result.stdout + result.stderr).strip()
    assert result.returncode != 0
    assert len(out.splitlines()) == 1 and says in out and "Traceback" not in out, out
    assert "个字符" in out or "不能" in out  # said in Chinese too


def test_the_rule_accepts_what_it_says():
    assert problem({"WORKSHOP_PASSWORD": "8" * 8}) == ""
    assert problem({"WORKSHOP_PASSWORD": "8" * 8, "WORKSHOP_ADMIN_PASSWORD": "a" * 32}) == ""


def test_jupyterhub_started_by_hand_with_a_short_admin_password_says_one_line(tmp_path):
    jupyterhub = Path(sys.executable).parent / "jupyterhub"
    if not jupyterhub.exists():
        pytest.skip("make hub installs JupyterHub")
    env = {**os.environ, "WORKSHOP_PASSWORD": "class-password", "WORKSHOP_ADMIN_PASSWORD": "short",
           "WORKSHOP_HUB_STATE": str(tmp_path)}
    result = subprocess.run([str(jupyterhub), "-f", str(HUB / "jupyterhub_config.py")], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=300)
    out = (result.stdout + result.stderr).strip()
    assert result.returncode != 0 and "Traceback" not in out, out
    assert out.splitlines()[-1].startswith("WORKSHOP_ADMIN_PASSWORD must have 32"), out


def _hub_config(state: Path):
    """Run jupyterhub_config.py as JupyterHub does (with get_config), its state in ``state``."""
    traitlets = pytest.importorskip("traitlets.config")
    config = traitlets.Config()
    old = dict(os.environ)
    os.environ.update(WORKSHOP_PASSWORD="class-password", WORKSHOP_HUB_STATE=str(state))
    try:
        code = (HUB / "jupyterhub_config.py").read_text(encoding="utf-8")
        exec(compile(code, str(HUB / "jupyterhub_config.py"), "exec"),
             {"get_config": lambda: config, "__file__": str(HUB / "jupyterhub_config.py")})
    finally:
        os.environ.clear()
        os.environ.update(old)
    return config


def test_kernels_are_culled_inside_jupyterlab(tmp_path):
    args = _hub_config(tmp_path).Spawner.args
    assert "--MappingKernelManager.cull_idle_timeout=1200" in args  # 20 minutes
    assert "--MappingKernelManager.cull_connected=True" in args      # a lesson left open in a tab, too
    assert "--MappingKernelManager.cull_busy=False" in args


def test_lessons_are_copied_once_open_unmodified_and_without_news(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    ipkernel = pytest.importorskip("ipykernel.ipkernel")
    from nbformat.sign import NotebookNotary

    hook = _hub_config(tmp_path).Spawner.pre_spawn_hook
    spawner = SimpleNamespace(home_dir_template=str(tmp_path / "homes" / "{username}"),
                              user=SimpleNamespace(name="ada"))
    hook(spawner)
    home = tmp_path / "homes" / "ada"
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
    # the student edits a lesson; the next start copies nothing over it and nests nothing
    lesson.write_text(lesson.read_text().replace("Exercise 1", "My exercise 1"))
    hook(spawner)
    assert "My exercise 1" in lesson.read_text()
    assert not (home / "lessons" / "lessons").exists()


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
