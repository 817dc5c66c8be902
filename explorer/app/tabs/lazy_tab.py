"""A tab of the app built when it is first opened, whose callbacks show errors to the viewer.

The What if, Plan, Models, Compare and Uncertainty tabs (and "What changed", built at once: the app reads its
toggle and places its widgets) share this preamble: an empty box until the tab is first
shown, a ``_safely`` that runs a widget callback through :func:`~explorer.app.guard.errors_to_viewer`
(skipped while the tab writes its own widgets, :meth:`LazyTab.muted`), and the tab's charts as
:class:`~explorer.app.surface.ChartSurface` objects, drawn only while the tab is on screen.

>>> class Hello(LazyTab):
...     def _build(self):
...         self.widget.children = [w.Label("hello")]
>>> tab = Hello(css_class="explorer-hello")
>>> tab.built, len(tab.widget.children)
(False, 0)
>>> tab.render(False); tab.built
False
>>> tab.render(True); tab.built, tab.widget.children[0].value
(True, 'hello')
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

import ipywidgets as w

from explorer.app.guard import errors_to_viewer
from explorer.app.shared import PLAIN
from explorer.app.surface import ChartSurface
from explorer.messages import Message

__all__ = ["LazyTab"]


class LazyTab:
    """A tab built the first time it is shown: its widget, its charts and its guarded callbacks.

    Parameters
    ----------
    language : {"en", "zh"}
    on_error : callable
        Shows a message when a callback fails unexpectedly (never a traceback).
    css_class : str
        A class of the tab's box (for the page's style and the browser tests).
    lazy : bool
        False: build at once (a tab whose state others read before it is opened).

    Attributes
    ----------
    widget : ipywidgets.VBox
        The tab's box: empty until :meth:`build`.
    built : bool
        Whether the tab's widgets exist.
    charts : dict of str to ChartSurface
        The tab's charts by key (empty until built).
    """

    #: The key of the tab's main chart in :attr:`charts` ("" for none): its flag is the tab's :attr:`stale`.
    key = ""

    def __init__(self, language: str = "en", *, on_error: Callable[[Message], object] = lambda m: None,
                 css_class: str = "", lazy: bool = True):
        self.language = language
        self.on_error = on_error
        self.built = False
        self._muted = False
        self.charts: dict[str, ChartSurface] = {}
        self.widget = w.VBox(layout=PLAIN)
        if css_class:
            self.widget.add_class(css_class)
        if not lazy:
            self.build()

    # ------------------------------------------------------------------ building
    def build(self) -> None:
        """Make the tab's widgets and charts (once)."""
        if not self.built:
            self.built = True
            self._build()

    def _build(self) -> None:
        """Make the widgets (a subclass's): fill ``self.widget`` and ``self.charts``."""
        raise NotImplementedError

    @property
    def stale(self) -> bool:
        """Whether the tab's chart (and what is computed with it) is out of date: always, before the tab is built."""
        return self.charts[self.key].stale if self.built else True

    @stale.setter
    def stale(self, value: bool) -> None:
        if self.built:
            self.charts[self.key].stale = value

    # ------------------------------------------------------------------ callbacks
    def _safely(self, fn: Callable, *args) -> None:
        """Run a widget callback: skipped while muted; an unexpected error becomes a message, never a traceback."""
        if self._muted:
            return
        with errors_to_viewer(self.on_error):
            fn(*args)

    @contextlib.contextmanager
    def muted(self) -> Iterator[None]:
        """Change the tab's own widgets without running their callbacks."""
        was, self._muted = self._muted, True
        try:
            yield
        finally:
            self._muted = was

    # ------------------------------------------------------------------ rendering
    def on_screen(self, visible: bool) -> dict[str, bool]:
        """Which of :attr:`charts` are on screen when the tab is (``visible``) or is not: all or none."""
        return {key: visible for key in self.charts}

    def render(self, visible: bool) -> None:
        """Build the tab the first time it is shown; draw its charts on screen that are out of date.

        A hidden chart is not drawn: it keeps its flags (:class:`~explorer.app.surface.ChartSurface`) and is
        drawn when its tab opens. An unexpected error becomes a message.
        """
        if not self.built:
            if not visible:
                return
            with errors_to_viewer(self.on_error):
                self.build()
        with errors_to_viewer(self.on_error):
            for key, shown in self.on_screen(visible).items():
                self.charts[key].show_and_render(shown)
