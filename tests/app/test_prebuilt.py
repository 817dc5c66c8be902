"""The app built in the kernel template and taken by a kernel (explorer/app/prebuilt.py).

In a kernel forked from the template, tests/hosting/test_provisioner.py; here what holds in any process.
"""

from __future__ import annotations

import datetime as dt
import threading

import pytest
from ipywidgets.widgets import widget

from explorer.app import prebuilt


def test_prebuild_puts_the_app_aside_out_of_the_registry_and_starts_no_thread():
    before, threads = set(widget._instances), threading.active_count()
    prebuilt.prebuild()
    try:
        aside = prebuilt._aside["widgets"]
        assert len(aside) > 200  # the whole app: controls, tabs, charts
        assert set(widget._instances) == before  # a kernel that never takes it shows a page none of them
        assert threading.active_count() == threads  # the template forks only with one thread
        assert prebuilt._aside["app"].summary in aside
        assert all(made.comm is None and made._model_id for made in aside)  # no comm, and its id kept
        aside[0].close()  # does nothing, sends nothing
    finally:
        prebuilt._aside.clear()


def test_outside_a_kernel_take_app_builds_a_new_app_and_leaves_the_prebuilt_one(make_app):
    """(``make_app``: its factory closes every widget made during the test, take_app's app too.)"""
    prebuilt.prebuild()
    try:
        aside = prebuilt._aside["app"]
        app = prebuilt.take_app()
        assert app is not aside and prebuilt._aside["app"] is aside
        assert app.summary.model_id in widget._instances and app.scenario == aside.scenario
    finally:
        prebuilt._aside.clear()


def test_mark_today_moves_an_old_current_marker_to_this_year_and_keeps_a_presets(make_app):
    app = make_app(query_string="")
    app.marker.year = 2001.5  # as if built in a template started long ago
    app.mark_today()
    assert int(app.marker.year) == dt.date.today().year
    preset = make_app(query_string="preset=deepseek_v3")
    year, label = preset.marker.year, preset.marker.label
    assert label and int(year) != dt.date.today().year  # the preset's release, not today
    preset.mark_today()
    assert (preset.marker.year, preset.marker.label) == (year, label)


def test_a_failed_build_in_the_template_leaves_no_widget_registered(monkeypatch):
    """The template forks after a failed warm-up: no kernel may inherit the half-built app's widgets."""
    from explorer.app import explorer_app

    def fail(self):
        raise RuntimeError("a build that fails half-way")

    monkeypatch.setattr(explorer_app.ExplorerApp, "_layout", fail)  # after the controls and views are made
    before = set(widget._instances)
    with pytest.raises(RuntimeError, match="fails half-way"):  # raised to the template, which logs it
        prebuilt.prebuild()
    assert set(widget._instances) == before and not prebuilt._aside


def test_an_app_that_cannot_be_taken_gives_the_kernel_a_new_one(make_app, monkeypatch, capfd):
    """If giving the template's app to the kernel fails, the viewer gets a new app and the server's log the cause;
    the widgets already given comms are closed, not left half-open in the registry."""
    prebuilt.prebuild()
    aside, widgets = prebuilt._aside["app"], prebuilt._aside["widgets"]
    monkeypatch.setattr(prebuilt, "_in_a_kernel", lambda: True)

    def fail():
        raise RuntimeError("no marker today")

    monkeypatch.setattr(aside, "mark_today", fail)  # after every widget got its comm back
    app = prebuilt.take_app()
    assert app is not aside and app.summary.model_id in widget._instances
    assert all(made.comm is None for made in widgets)  # closed again
    assert not any(made._model_id in widget._instances for made in widgets)
    assert "could not be taken (RuntimeError: no marker today)" in capfd.readouterr().err
    assert not prebuilt._aside  # taken once: a second call builds
