"""Every private ipywidgets and comm name the app uses: the widget registry, and a widget's comm retired and reopened.

The one module of the app that touches names ipywidgets or comm do not document (as
:mod:`explorer.app.ipympl_private` is for ipympl and matplotlib). :data:`PRIVATE_NAMES` lists them; the server
checks them when it starts (``explorer/hosting/upstream_names.py`` holds a copy, kept equal by
``tests/hosting/test_upstream_names.py``). The private names and why each is used:

``ipywidgets.widgets.widget._instances``
    ipywidgets' registry of open widgets (model id -> widget). A page gets the state of every widget in it:
    the warm-up closes, and the prebuilt app takes out, the widgets they made (:mod:`explorer.app.warm`,
    :mod:`explorer.app.prebuilt`).
``ipywidgets.widgets.widget.Widget._model_id``
    A widget opened again takes the model id it had (``Widget.open`` passes it as the comm id), so the widgets
    that hold it still name it rightly.
``comm.base_comm.BaseComm._closed``
    A retired comm is marked closed, so its ``close`` (and its ``__del__``) sends no ``comm_close``.
"""

from __future__ import annotations

from ipywidgets.widgets import widget as _widget

__all__ = ["PRIVATE_NAMES", "widget_registry", "retire_comm"]

#: (module, class or None, name, how it is used), as in :data:`explorer.app.ipympl_private.PRIVATE_NAMES`.
PRIVATE_NAMES = (
    ("ipywidgets.widgets.widget", None, "_instances", "read"),
    ("ipywidgets.widgets.widget", "Widget", "_model_id", "source"),
    ("comm.base_comm", "BaseComm", "_closed", "source"),
)


def widget_registry() -> dict:
    """ipywidgets' registry of open widgets: model id -> widget (the dict itself, to read or take from)."""
    return _widget._instances


def retire_comm(widget, manager) -> None:
    """Take ``widget``'s comm away without a message (no page ever knew it); the widget keeps its model id.

    ``manager`` is the kernel's comm manager the comm is registered with, if it is.
    """
    old = widget.comm
    if manager.get_comm(old.comm_id) is old:
        manager.unregister_comm(old)
    old._closed = True  # else its close (and its __del__) would send a comm_close and unregister it again
    widget.comm = None  # ipywidgets keeps the id it had in ``widget._model_id``
