"""The warden: a periodic check that frees kernels nobody is using (moved here from :mod:`explorer.hosting.server.seats`).

It frees a seat (a kernel handed to a viewer's page, :mod:`explorer.hosting.server.seats`) held for nothing: a page
with no interaction for ``page_idle_timeout`` (the page then shows its session notice), a kernel busy on one
message for longer than ``busy_message_limit`` whether its page is connected or not (the page shows its
session notice when the kernel stops answering its heartbeat), a busy kernel with no connection for
``busy_cull_timeout`` (a kernel stuck before its page could connect), and any kernel past
``kernel_memory_mb``.

How long a kernel has been busy on one message comes from its own status messages (:class:`BusyClock`): the
kernel publishes ``busy`` when it starts a message and ``idle`` when it is done, both naming the message as
their parent, so a queue of short messages never looks like one long one. The clock listens on
jupyter_server's own IOPub stream of each kernel through :mod:`explorer.hosting.server.upstream_server`; a started,
seated kernel without that stream stops the server (:class:`~explorer.hosting.upstream_names.UpstreamChanged`)
rather than leave the busy-message limit silently off.

It runs in the server process, on its event loop (``ExplorerVoila.listen`` starts it).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import time
from typing import Callable

from explorer.hosting.server import seats, upstream_server
from explorer.hosting.upstream_names import UpstreamChanged

__all__ = ["BusyClock", "Warden", "MAX_BUSY_MESSAGES"]

_DELIMITER = b"<IDS|MSG>"
_UNKNOWN = "?"  # the message a kernel was already busy with when it was first watched
MAX_BUSY_MESSAGES = 256  # messages one kernel can be busy with at once (control and shell run side by side)


class BusyClock:
    """When each kernel started the message it is busy with, from the ``status`` messages on its IOPub.

    It listens on the kernel manager's own IOPub stream of each kernel
    (jupyter_server's ``_activity_stream``, which records ``execution_state``):
    its callback is wrapped, so no socket is added.

    Parameters
    ----------
    clock : callable
        Returns the time [s]; ``time.monotonic`` (tests may pass another).
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._busy: dict[str, dict[str, float]] = {}  # kernel id -> {parent msg id: when it went busy}
        self._watched: dict = {}  # kernel id -> the stream listened to

    def watch(self, kernel_id: str, kernel, *, seated: bool = False) -> bool:
        """Start listening to ``kernel`` (once); False while it has no activity stream yet (still starting).

        ``seated``: the kernel was handed to a viewer, so it has started; a started kernel without the stream
        raises :class:`~explorer.hosting.upstream_names.UpstreamChanged` (the limit would never fire).
        """
        stream = upstream_server.activity_stream(kernel, started=seated)
        if stream is None or self._watched.get(kernel_id) is stream:
            return stream is not None

        def record(original, msg_list):
            try:
                if original is not None:
                    original(msg_list)
            finally:
                self.record(kernel_id, msg_list)

        upstream_server.wrap_recv_callback(stream, record)
        self._watched[kernel_id] = stream
        if getattr(kernel, "execution_state", None) == "busy":
            self._busy.setdefault(kernel_id, {})[_UNKNOWN] = self.clock()
        return True

    def record(self, kernel_id: str, msg_list: list) -> None:
        """Note a ``status`` message of ``kernel_id`` (raw IOPub frames); anything else is ignored."""
        try:
            parts = msg_list[msg_list.index(_DELIMITER) + 1:]
        except ValueError:
            return
        if len(parts) < 5 or b'"status"' not in bytes(parts[1])[:2048]:
            return
        try:
            header, parent, content = (json.loads(bytes(parts[i])) for i in (1, 2, 4))
            if header.get("msg_type") != "status":
                return
            state = content.get("execution_state")
            parent_id = str(parent.get("msg_id", _UNKNOWN)) if isinstance(parent, dict) else _UNKNOWN
        except (ValueError, AttributeError, UnicodeDecodeError):
            return
        self.status(kernel_id, parent_id, state)

    def status(self, kernel_id: str, parent_id: str, state: str) -> None:
        """``kernel_id`` went ``state`` (busy or idle) on the message ``parent_id``."""
        busy = self._busy.setdefault(kernel_id, {})
        if state == "busy":
            if len(busy) < MAX_BUSY_MESSAGES:
                busy.setdefault(parent_id, self.clock())
        elif state == "idle":
            busy.pop(parent_id, None)
            busy.pop(_UNKNOWN, None)
            if not busy:
                self._busy.pop(kernel_id, None)

    def busy_for(self, kernel_id: str) -> float:
        """How long ``kernel_id`` has been busy on the oldest message it has not finished [s]; 0 when idle."""
        busy = self._busy.get(kernel_id)
        return self.clock() - min(busy.values()) if busy else 0.0

    def forget(self, live) -> None:
        """Drop kernels not in ``live``."""
        for kernel_id in [k for k in self._busy if k not in live]:
            del self._busy[kernel_id]
        for kernel_id in [k for k in self._watched if k not in live]:
            del self._watched[kernel_id]


class Warden:
    """A periodic check that frees seats held for nothing (see the module docstring).

    Parameters are in seconds and MB; 0 switches a check off. ``busy_message_limit``
    [s] bounds how long a viewer's kernel may be busy on one message, connected or
    not, counted from the moment the kernel became the viewer's (a preheated kernel's
    notebook run waits in the pool for a viewer, busy); ``clock`` returns the time [s]
    (``time.monotonic``, the clock of :class:`Seat`; tests may pass another).
    """

    def __init__(self, kernel_manager, log: logging.Logger, *, interval: float, page_idle_timeout: float,
                 busy_cull_timeout: float, kernel_memory_mb: float, connections, busy_message_limit: float = 0.0,
                 connect_timeout: float = 0.0, clock=time.monotonic):
        self.km = kernel_manager
        self.log = log
        self.interval = interval
        self.page_idle_timeout = page_idle_timeout
        self.busy_cull_timeout = busy_cull_timeout
        self.busy_message_limit = busy_message_limit
        self.connect_timeout = connect_timeout
        self.kernel_memory_mb = kernel_memory_mb
        self.connections = connections  # kernel id -> open kernel websockets
        self.clock = clock
        self.busy_clock = BusyClock(clock)
        self._no_connection_since: dict[str, float] = {}
        self._failing: set[str] = set()  # kernels whose check failed: logged with a traceback once, then a line a pass

    def start(self) -> asyncio.Task:
        """Run :meth:`check` every ``interval`` seconds on the current event loop."""
        return asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            try:
                await self.check()
            except UpstreamChanged as exc:  # fail closed: a server without its limits stops
                self.log.critical("Stopping the server: %s", exc)
                os.kill(os.getpid(), signal.SIGTERM)
                return
            except Exception:  # noqa: BLE001 - the warden must keep running
                self.log.warning("Seat check failed", exc_info=True)

    def _pid(self, kernel_id: str) -> int | None:
        if kernel_id not in self.km:  # gone (jupyter_server's get_kernel would raise a 404, not KeyError)
            return None
        return upstream_server.kernel_pid(self.km.get_kernel(kernel_id))  # UpstreamChanged when a started kernel's pid cannot be found

    async def _free(self, kernel_id: str, why: str) -> None:
        self.log.warning("Freeing kernel %s: %s", kernel_id, why)
        seats.SEATS.pop(kernel_id, None)
        self._no_connection_since.pop(kernel_id, None)
        try:
            await self.km.shutdown_kernel(kernel_id, now=True)
        except Exception:  # noqa: BLE001 - already gone
            pass
        seats.forget_gone(self.km.list_kernel_ids())  # its websockets close and give their places back

    async def check(self) -> None:
        """Free seats held for nothing (idle page, one message too long, busy kernel with no connection, memory).

        Kernels that have gone are forgotten, and their websockets closed.
        """
        now = self.clock()
        live = set(self.km.list_kernel_ids())
        for kernel_id in list(seats.SEATS):
            if kernel_id not in live:
                seats.SEATS.pop(kernel_id, None)
                self._no_connection_since.pop(kernel_id, None)
        seats.forget_gone(live)
        self.busy_clock.forget(live)
        self._failing &= live
        for kernel_id in live:
            try:
                await self._check_kernel(kernel_id, now)
            except UpstreamChanged:
                raise
            except Exception as exc:  # noqa: BLE001 - one kernel's failure must not spare the others their checks
                # the first failure with its traceback; a failure that repeats every pass as one line
                first = kernel_id not in self._failing
                self._failing.add(kernel_id)
                self.log.warning("Seat check of kernel %s failed%s", kernel_id,
                                 "" if first else f" again: {type(exc).__name__}: {exc}", exc_info=first)
            else:
                self._failing.discard(kernel_id)

    async def _check_kernel(self, kernel_id: str, now: float) -> None:
        """Free ``kernel_id`` if it is over its memory, never connected, idle, stuck on a message, or busy alone."""
        try:
            self.busy_clock.watch(kernel_id, self.km.get_kernel(kernel_id), seated=kernel_id in seats.SEATS)
        except KeyError:
            return
        if self.kernel_memory_mb:
            pid = self._pid(kernel_id)
            used = seats.memory_for_limit_mb(pid, self.kernel_memory_mb) if pid else 0.0
            if used > self.kernel_memory_mb:
                await self._free(kernel_id, f"{used:.0f} MB, over the limit of {self.kernel_memory_mb:.0f} MB")
                return
        seat = seats.SEATS.get(kernel_id)
        if seat is None:
            return  # a preheated kernel waiting in the pool
        if (self.connect_timeout and not seat.connected and seat.delivered is not None
                and now - seat.delivered > self.connect_timeout):  # an arrival that never connected
            await self._free(kernel_id, f"its page never connected in the {now - seat.delivered:.0f} s "
                                        f"since it was sent (connect_timeout {self.connect_timeout:.0f} s)")
            return
        if self.page_idle_timeout and now - seat.last_interaction > self.page_idle_timeout:
            await self._free(kernel_id, f"no interaction for {now - seat.last_interaction:.0f} s")
            return
        # counted from the hand-over: a preheated kernel has been busy since the pool ran its notebook, which
        # waits for a viewer's query string (minutes in a quiet pool), and that wait is not the viewer's
        busy_for = min(self.busy_clock.busy_for(kernel_id), now - seat.since)
        if self.busy_message_limit and busy_for > self.busy_message_limit:
            await self._free(kernel_id, f"busy on one message for {busy_for:.0f} s, over the limit of "
                                        f"{self.busy_message_limit:.0f} s")
            return
        if self.connections(kernel_id):
            self._no_connection_since.pop(kernel_id, None)
            return
        since = self._no_connection_since.setdefault(kernel_id, now)
        try:
            state = self.km.get_kernel(kernel_id).execution_state
        except KeyError:
            return
        if self.busy_cull_timeout and state == "busy" and now - max(since, seat.since) > self.busy_cull_timeout:
            await self._free(kernel_id, f"busy with no connection for {now - max(since, seat.since):.0f} s")
