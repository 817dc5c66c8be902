"""The hub records each student's checks and gives its admin the class view (without starting a hub)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from test_hub_setup import _hub_config


def test_the_hub_records_checks_and_gives_the_admin_the_class_view(tmp_path):
    config = _hub_config(tmp_path)
    env = config.Spawner.environment
    assert env["WORKSHOP_RECORD_CHECKS"] == "1" and Path(env["WORKSHOP_HOMES"]).name == "homes"
    hook = config.Spawner.pre_spawn_hook
    for name, admin in (("teacher", True), ("ada", False)):
        hook(SimpleNamespace(home_dir_template=str(tmp_path / "homes" / "{username}"),
                             user=SimpleNamespace(name=name, admin=admin)))
    assert (tmp_path / "homes" / "teacher" / "class_view.ipynb").exists()
    assert not (tmp_path / "homes" / "ada" / "class_view.ipynb").exists()
