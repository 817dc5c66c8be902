"""Widget messages held back in a kernel until a page asks for the widgets.

Voila runs a notebook in a kernel before any page is connected to it (a preheated kernel even before anyone
asks for the page). While the app is built, every widget sends its ``comm_open`` with its whole state, and
many send updates as the app sets their values: 489 messages (507 KB) for the explorer's first page
(``python benchmarks/first_page.py``, 2 Dec 2026). Nobody reads them: the server's notebook runner
(nbclient) only stores their states, and the page, once it connects, asks the kernel for every widget's
current state in one message (ipywidgets 8's ``jupyter.widget.control`` comm, ``request_states``) and
builds its models from that reply. Serialising and signing the messages costs the kernel, and decoding them
costs the server.

:func:`hold_until_a_page_asks` makes the kernel hold them back: widget comms created before a page speaks
are registered with the kernel's comm manager as usual (a page's messages reach them, their ids are in
``comm_info_reply`` and their state in ``request_states``) but publish nothing. The first comm message from a
front end (``comm_open``, ``comm_msg`` or ``comm_info_request`` on the shell channel: the page's control comm,
or an older page asking for each widget) releases them all, before that message is handled, so its reply and
everything after it are sent as usual. Output widgets are never held: nbclient captures a cell's output into
them only when it sees them open.

It is for kernels whose notebook runs before a page connects, as the kernels Voila starts: the forked kernels
of :mod:`explorer.hosting.kernel.kernel_template` install it when their environment has
``EXPLORER_HOLD_WIDGET_MESSAGES=1`` (set by :class:`explorer.hosting.server.provisioner.ForkProvisioner`, setting
``hold_widget_messages``). Never in JupyterLab: its widget manager learns of a widget displayed later only
from that widget's ``comm_open``.
"""

from __future__ import annotations

import os
from typing import Any, Callable

__all__ = ["ENV", "hold_until_a_page_asks"]

#: The kernel's environment variable that asks for held widget messages ("1").
ENV = "EXPLORER_HOLD_WIDGET_MESSAGES"
#: Shell messages that only a front end sends: the first of them releases the held widgets.
_FRONT_END_MESSAGES = ("comm_open", "comm_msg", "comm_info_request")

_state = {"held": False}


def _release() -> None:
    """Let every widget comm publish from now on (a page is there)."""
    _state["held"] = False


def hold_until_a_page_asks(kernel: Any) -> bool:
    """Hold back widget messages in ``kernel`` (an ipykernel ``IPythonKernel``) until a front end speaks.

    Returns False, and changes nothing, when ``EXPLORER_HOLD_WIDGET_MESSAGES`` is not ``1`` in the environment.
    """
    if os.environ.get(ENV) != "1":
        return False
    from explorer.hosting.kernel import upstream_kernel

    # the base is found at run time (ipykernel's or comm's Comm class): mypy takes no call as a base class
    class HeldComm(upstream_kernel.comm_class()):  # type: ignore[misc]
        """A widget's comm that publishes nothing while held (no page has spoken to this kernel yet)."""

        def publish_msg(self, msg_type, data=None, metadata=None, buffers=None, **keys):
            if _state["held"]:
                return
            super().publish_msg(msg_type, data, metadata, buffers, **keys)

    def held(create):
        def create_comm(*args: Any, **kwargs: Any):
            if _state["held"] and kwargs.get("target_name") == "jupyter.widget" and not _is_output(kwargs):
                return HeldComm(*args, **kwargs)
            return create(*args, **kwargs)
        return create_comm

    upstream_kernel.replace_create_comm(held)
    for msg_type in _FRONT_END_MESSAGES:  # each must exist: a missing one would hold the widgets for ever
        upstream_kernel.wrap_shell_handler(kernel, msg_type, _released_first)
    _state["held"] = True
    return True


def _released_first(handler: Callable) -> Callable:
    def handle(*args: Any, **kwargs: Any):
        _release()
        return handler(*args, **kwargs)

    return handle


def _is_output(kwargs: dict) -> bool:
    """Whether a comm about to be opened is an Output widget's (its state names ``OutputModel``)."""
    state = (kwargs.get("data") or {}).get("state") or {}
    return state.get("_model_name") == "OutputModel"
