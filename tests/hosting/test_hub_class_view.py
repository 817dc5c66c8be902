"""The hub records each student's checks and gives its admin the class view (without starting a hub)."""

from __future__ import annotations

import shutil

from test_hub_setup import _hub_config, set_up_home


def test_the_hub_records_checks_and_gives_the_teacher_the_class_view(tmp_path):
    config, state = _hub_config()
    shutil.rmtree(state, ignore_errors=True)
    env = config.Spawner.environment
    assert env["WORKSHOP_RECORD_CHECKS"] == "1" and "WORKSHOP_HOMES" not in env
    for name, teacher in (("teacher", True), ("ada", False)):
        (tmp_path / name).mkdir()
        set_up_home(tmp_path / name, teacher=teacher)
    assert (tmp_path / "teacher" / "class_view.ipynb").exists()
    assert not (tmp_path / "ada" / "class_view.ipynb").exists()
