"""Issue 24 item 3 / issue 27 item 7: the Share tab shows at once, with a loading sign, and renders its chart
files in the background, one per turn of the kernel's event loop (it rendered every file on the spot:
2.6 CPU-s, 12-16 s blank on a loaded machine)."""

from __future__ import annotations

from unittest import mock

import explorer.app.export as export

SHARE = 6


class Loop:
    """The kernel's event loop, turned by hand."""

    def __init__(self):
        self.ready = []

    def call_soon(self, fn, *args):
        self.ready.append((fn, args))

    def turn(self) -> bool:
        if not self.ready:
            return False
        fn, args = self.ready.pop(0)
        fn(*args)
        return True


def test_the_share_tab_shows_at_once_and_its_chart_files_follow_one_per_turn(make_app):
    app = make_app()
    loop = Loop()
    app.html_tabs.event_loop = lambda: loop
    with mock.patch.object(export, "figure_file", wraps=export.figure_file) as files:
        app.tabs.selected_index = SHARE
        assert files.call_count == 0  # nothing rendered on the spot
        assert "scenario.json" in app.downloads.value and "explorer-loading" in app.downloads.value
        assert app.share.value  # the link is there at once
        turns = 0
        while loop.turn():
            turns += 1
            assert files.call_count == turns  # one file per turn: other messages are answered in between
    expected = len(app.chart_files())
    assert turns == expected >= 4  # breakdown PNG and SVG, what changed, history
    assert app.downloads.value.count("explorer-download") == expected + 2 and "explorer-loading" not in \
        app.downloads.value


def test_a_newer_page_stops_the_files_of_the_older_one(make_app):
    app = make_app()
    loop = Loop()
    app.html_tabs.event_loop = lambda: loop
    app.tabs.selected_index = SHARE
    loop.turn()  # one file of the English page
    app.controls["language"].value = "zh"  # a newer page: its own chain
    with mock.patch.object(export, "figure_file", wraps=export.figure_file) as files:
        while loop.turn():
            pass
    assert files.call_count == len(app.chart_files())  # the older chain rendered nothing more
    assert "下载" in app.downloads.value and "explorer-loading" not in app.downloads.value


def test_headless_the_share_tab_has_every_file_at_once(make_app):
    app = make_app()
    app.tabs.selected_index = SHARE
    assert app.downloads.value.count("explorer-download") == len(app.chart_files()) + 2
