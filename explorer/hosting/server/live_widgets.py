"""The widget ids a kernel has shown its page: only messages to them count as a viewer's interaction.

The idle rule (:class:`explorer.hosting.server.seats.Warden`, ``page_idle_timeout``) frees a page nobody uses. It
counted any widget ``update`` or ``custom`` message as interaction (:func:`explorer.hosting.server.websocket.is_interaction`),
so a script kept its seat for ever by sending updates to widget ids that do not exist (issue 39). A page learns
its widgets' ids only from its kernel: the reply to its ``request_states`` (``update_states``, every widget's
state by id), a ``comm_open``, a ``comm_info_reply``, or a widget state that names another (``IPY_MODEL_<id>``).
:class:`LiveWidgets` collects the ids in those messages on their way from the kernel to the page (a scan for
32-digit hexadecimal ids, in C), forgets a widget at its ``comm_close``, and answers whether a message from
the page names one of them.
"""

from __future__ import annotations

import re

__all__ = ["LiveWidgets", "MAX_IDS_PER_KERNEL"]

MAX_IDS_PER_KERNEL = 20_000  # the app holds about 300 widgets; beyond this, new ids are not recorded
_ID = re.compile(rb"(?<![0-9a-f])[0-9a-f]{32}(?![0-9a-f])")  # ipywidgets' model ids: uuid4().hex
_SHOWN = frozenset({"comm_open", "comm_msg", "comm_info_reply"})  # kernel messages that show ids to the page


class LiveWidgets:
    """Widget ids each kernel has sent its page (kernel id -> set of ids)."""

    def __init__(self) -> None:
        self._ids: dict[str, set[bytes]] = {}

    def outgoing(self, kernel_id: str, msg_type: str | None, content: bytes) -> None:
        """Note the ids in a message from the kernel (``content``: its content part, JSON)."""
        if msg_type == "comm_close":
            found = _ID.search(content[:200])
            if found:
                self._ids.get(kernel_id, set()).discard(found.group(0))
            return
        if msg_type not in _SHOWN:
            return
        ids = self._ids.setdefault(kernel_id, set())
        if len(ids) < MAX_IDS_PER_KERNEL:
            ids.update(_ID.findall(content))

    def is_live(self, kernel_id: str, comm_id: object) -> bool:
        """Whether ``comm_id`` (from a page's message) is a widget ``kernel_id`` has shown its page."""
        return isinstance(comm_id, str) and comm_id.encode("ascii", "replace") in self._ids.get(kernel_id, ())

    def forget(self, live) -> None:
        """Drop kernels not in ``live``."""
        for kernel_id in [k for k in self._ids if k not in live]:
            del self._ids[kernel_id]
