"""The one module of the hosting layer's kernel side that reaches names ipykernel, comm, ipywidgets and ipympl
do not document.

It runs in the kernel template and in each kernel forked from it (:mod:`explorer.hosting.kernel.kernel_template`,
:mod:`explorer.hosting.kernel.held_widgets`). :data:`PRIVATE_NAMES` lists the names (checked when the server starts,
:func:`explorer.hosting.upstream_names.require`); the functions raise
:class:`~explorer.hosting.upstream_names.UpstreamChanged` when one is missing, never fall back (a kernel that
cannot start as planned ends, and its page gets the error page). The app's own kernel-side names are in
:mod:`explorer.app.widgets_private` and :mod:`explorer.app.ipympl_private`.

It imports only the standard library at import time: the kernel template imports it before it may import
numpy.
"""

from __future__ import annotations

import sys
from typing import Any, Callable

from explorer.hosting.upstream_names import PrivateName, gone

__all__ = ["PRIVATE_NAMES", "start_kernel_app", "register_with_shell", "comm_class", "replace_create_comm",
           "wrap_shell_handler"]

_TEMPLATE = "explorer/hosting/kernel/kernel_template.py"
_HELD = "explorer/hosting/kernel/held_widgets.py"

#: Every private or undocumented kernel-side name the hosting layer relies on.
PRIVATE_NAMES = (
    PrivateName("ipykernel", "ipykernel.kernelapp", "IPKernelApp", "parent_handle", "attr",
                f"{_TEMPLATE}: a forked kernel ends when its template does (ipykernel's parent poller)"),
    PrivateName("ipykernel", "ipykernel.kernelapp", None, "launch_instance", "source",
                f"{_TEMPLATE}: ipykernel's launcher (launch_new_instance = IPKernelApp.launch_instance) re-done "
                "in the forked child: instance, initialize, start"),
    PrivateName("ipykernel", "ipykernel.kernelapp", "IPKernelApp", "kernel", "attr",
                f"{_TEMPLATE}: the forked kernel's shell and kernel, for the held widgets and registrations"),
    PrivateName("ipykernel", "ipykernel.kernelbase", "Kernel", "shell_handlers", "source",
                f"{_HELD}: the first front-end message releases the held widget messages"),
    PrivateName("comm", "comm.base_comm", "BaseComm", "publish_msg", "source",
                f"{_HELD}: a comm sends everything through publish_msg, which a held widget's comm overrides"),
    PrivateName("comm", "comm", None, "create_comm", "attr",
                f"{_HELD}: widget comms are created held; explorer/app/prebuilt.py reopens prebuilt widgets"),
    PrivateName("ipywidgets", "ipywidgets", None, "register_comm_target", "attr",
                f"{_TEMPLATE}: the widget comm targets, skipped when the template imported ipywidgets"),
    PrivateName("ipympl", "ipympl.backend_nbagg", None, "flush_figures", "attr",
                f"{_TEMPLATE}: ipympl's post_execute hook, skipped when the template imported ipympl"),
)


def start_kernel_app(argv: list[str], before_start: Callable[[Any], None]) -> None:
    """Run ipykernel in this (forked) process as ``python -m ipykernel_launcher`` would, on ``argv``.

    ``before_start(app)`` runs between ipykernel's ``initialize`` and ``start`` (ipykernel_launcher's
    ``launch_new_instance`` offers no such step).
    """
    sys.argv = list(argv)
    from ipykernel.kernelapp import IPKernelApp

    app = IPKernelApp.instance()
    app.initialize()
    before_start(app)
    app.start()


def register_with_shell(shell) -> None:
    """Do what ipywidgets and ipympl do at import when a shell runs, for modules imported without one.

    ipywidgets' comm targets (``jupyter.widget`` and the page's ``jupyter.widget.control``) and ipympl's
    ``post_execute`` hook (figures shown after a cell).
    """
    widgets = sys.modules.get("ipywidgets")
    if widgets is not None:
        if not hasattr(widgets, "register_comm_target"):
            raise gone("ipywidgets.register_comm_target", "a page would get no widget state")
        widgets.register_comm_target()
    nbagg = sys.modules.get("ipympl.backend_nbagg")
    if nbagg is not None:
        if not hasattr(nbagg, "flush_figures"):
            raise gone("ipympl.backend_nbagg.flush_figures", "figures shown after a cell")
        shell.events.register("post_execute", nbagg.flush_figures)


def comm_class() -> type:
    """ipykernel's ``Comm``, checked to still publish through ``publish_msg`` (held widgets override it)."""
    from ipykernel.comm import Comm

    if not callable(getattr(Comm, "publish_msg", None)):
        raise gone("ipykernel.comm.Comm.publish_msg", "held widget messages")
    return Comm


def replace_create_comm(make: Callable[[Callable], Callable]) -> None:
    """Set ``comm.create_comm`` to ``make(original)`` (the function ipywidgets calls for each widget's comm)."""
    import comm

    original = getattr(comm, "create_comm", None)
    if not callable(original):
        raise gone("comm.create_comm", "held widget messages")
    comm.create_comm = make(original)


def wrap_shell_handler(kernel, msg_type: str, wrap: Callable[[Callable], Callable]) -> None:
    """Replace ipykernel's handler of shell message ``msg_type`` in ``kernel`` by ``wrap(handler)``.

    A kernel without ``shell_handlers``, or without a handler for ``msg_type``, raises: the wrapper would
    never run (held widget messages would stay held for ever).
    """
    handlers = getattr(kernel, "shell_handlers", None)
    if not isinstance(handlers, dict) or msg_type not in handlers:
        raise gone(f"ipykernel Kernel.shell_handlers[{msg_type!r}]", "releasing held widget messages")
    handlers[msg_type] = wrap(handlers[msg_type])
