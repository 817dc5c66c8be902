"""An app built once in the server's kernel template and taken by each kernel forked from it.

A Voila server forks every kernel from one template process (:mod:`explorer.hosting.kernel.kernel_template`);
``voila.json`` names :func:`prebuild` in ``ForkProvisioner.preload``, after the warm-up. It builds the app with
no link (``query_string=""``), as the notebook's first cell does, and puts it aside: its widgets are taken out
of ipywidgets' registry and their comms out of the comm manager, so a kernel that never asks for it (a
lesson's, a notebook of its own) shows a page none of them and answers no message for them. Every forked
kernel inherits it copy-on-write.

The notebook calls :func:`take_app`. In a kernel forked from such a template, the first call takes the app
built there: each of its widgets gets a comm of this kernel again (same model id, opened as any widget's is:
held back until a page asks when the kernel holds widget messages, :mod:`explorer.hosting.kernel.held_widgets`, and
sent with its state otherwise), and the app's "today" marker is moved if the day has changed since the
template built it. A viewer's app is then its own copy: setting a value in one kernel changes nothing in
another. Anywhere else (JupyterLab, a test, a second call) it builds a new :class:`ExplorerApp`.

Taking the app instead of building it cuts a forked kernel's notebook run from 0.29 to 0.09 CPU-s and its own
memory (USS) from 66 to 48 MB: the app's objects stay in pages shared with the template until written
(``python benchmarks/first_page.py --kernels 5 --prebuilt both``, 3 Dec 2026; docs/deploy.md).
"""

from __future__ import annotations

import sys

import comm
from ipywidgets.widgets import widget as _widget

from explorer.app.explorer_app import ExplorerApp
from explorer.app.widgets_private import retire_comm, widget_registry

__all__ = ["prebuild", "take_app"]

#: The app put aside by :func:`prebuild` ("app") and its widgets ("widgets"), until :func:`take_app` takes them.
_aside: dict = {}


def prebuild() -> None:
    """Build the app with no link and put it aside for :func:`take_app` (in the kernel template, before forking).

    Its widgets leave ipywidgets' registry and the comm manager; no message is sent (no kernel runs here). If
    the build fails, the widgets it made leave them all the same (the template logs the error and forks
    anyway: no kernel may inherit them) and :func:`take_app` builds the app in each kernel.
    """
    registry = widget_registry()
    before = set(registry)
    _aside.clear()
    try:
        app = ExplorerApp(query_string="")
    finally:
        # in the order they were made (the registry is a dict): taken, they are opened in that order, children
        # first, so the kernel's registry and the page's widget state come in the order of a freshly built app
        made = [widget for model_id, widget in registry.items() if model_id not in before]
        for widget in made:
            registry.pop(widget.model_id, None)
            _retire_comm(widget)
    _aside.update(app=app, widgets=made)


def take_app() -> ExplorerApp:
    """The app :func:`prebuild` put aside, given to this kernel, the first time in a running kernel; else a new one.

    Returns
    -------
    ExplorerApp
        Built with no link (``query_string=""``): the notebook gives it the link's settings
        (:meth:`ExplorerApp.apply_query`).
    """
    if not _aside or not _in_a_kernel():
        return ExplorerApp(query_string="")
    app, widgets = _aside.pop("app"), _aside.pop("widgets")
    try:
        _reopen(widgets)
        app.mark_today()
    except Exception as exc:  # noqa: BLE001 - the viewer gets a new app; the server's log gets the cause
        for widget in widgets:
            if widget.comm is not None:
                widget.close()
        print(f"explorer.app.prebuilt: the template's app could not be taken ({type(exc).__name__}: {exc}); "
              "building a new one", file=sys.__stderr__)  # the kernel's own stderr: the server's log, not the page
        return ExplorerApp(query_string="")
    return app


def _retire_comm(widget: _widget.Widget) -> None:
    """Take ``widget``'s comm away without a message (no page ever knew it); the widget keeps its model id.

    Until :func:`_reopen`, the widget sends nothing (ipywidgets sends a state only through a comm) and
    ``widget.close()`` does nothing.
    """
    retire_comm(widget, comm.get_comm_manager())  # explorer.app.widgets_private: the private names


def _reopen(widgets: list[_widget.Widget]) -> None:
    """Give each of ``widgets`` a comm of the running kernel, with the model id it had (:meth:`Widget.open`).

    A widget is opened after the widgets its traits hold (a box's children, its layout and style): its state,
    sent with its ``comm_open``, names them by model id, which a widget without a comm does not have.
    """
    pending = {id(widget) for widget in widgets}

    def visit(widget: _widget.Widget) -> None:
        if id(widget) not in pending:
            return
        pending.discard(id(widget))
        for name in widget.keys:
            for held in _widgets_in(getattr(widget, name)):
                visit(held)
        widget.open()  # a new comm with the same id, registered with this kernel's comm manager and the registry

    for widget in widgets:
        visit(widget)


def _widgets_in(value: object):
    """The widgets a trait's value holds: itself, or those in a list, tuple or dict of values."""
    if isinstance(value, _widget.Widget):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _widgets_in(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _widgets_in(item)


def _in_a_kernel() -> bool:
    try:
        from ipykernel.kernelapp import IPKernelApp
    except ImportError:
        return False
    return IPKernelApp.initialized()
