"""Who holds which kernel, and the warden that frees kernels nobody is using.

A *seat* is a kernel handed to a viewer's page. The page handler records the
client address and the page's own token (sent to the page as its seat cookie,
:data:`SEAT_COOKIE`) for each seat; with them the server

* caps the seats one address may hold (:func:`seats_of`),
* lets only the page that owns a kernel shut it down (the unload beacon),
* frees seats that hold a kernel for nothing (:class:`Warden`): a page that has
  not opened its kernel websocket ``connect_timeout`` after it was sent (an
  arrival that never connects), a page with no
  interaction for ``page_idle_timeout`` (the page then shows its session
  notice), a kernel busy on one message for longer than ``busy_message_limit``
  whether its page is connected or not (the page shows its session notice
  when the kernel stops answering its heartbeat), a busy kernel with no
  connection for ``busy_cull_timeout`` (a kernel stuck before its page could
  connect), and any kernel past ``kernel_memory_mb``.

Interaction is noted by :mod:`explorer.hosting.websocket`
(:func:`note_interaction`, for the messages of
:func:`~explorer.hosting.websocket.is_interaction`: a control's new value or a
button's click); the page's heartbeat, its width reports, state requests and
websocket pings are not interaction.

How long a kernel has been busy on one message comes from its own status
messages (:class:`BusyClock`): the kernel publishes ``busy`` when it starts a
message and ``idle`` when it is done, both naming the message as their parent,
so a queue of short messages never looks like one long one.
"""

from __future__ import annotations

import asyncio
import contextvars
import hmac
import ipaddress
import json
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["SEAT_COOKIE", "owns", "Seat", "SEATS", "client_address", "seats_of", "note_interaction", "note_connected", "Warden", "rss_mb", "own_memory_mb", "memory_for_limit_mb", "BusyClock",
           "forget_gone"]


@dataclass
class Seat:
    """A kernel handed to a page: the client ``address``, the page's ``token`` and when [monotonic s]."""
    address: str
    token: str
    since: float = field(default_factory=time.monotonic)
    last_interaction: float = field(default_factory=time.monotonic)
    delivered: float | None = None  # when the page was sent to its end [monotonic s]; None while it renders
    connected: bool = False  # whether the page has opened its kernel websocket


#: The cookie a page gets with its kernel, holding its seat's token; scoped to that kernel's paths
#: (:class:`explorer.hosting.handlers.ExplorerPageHandler`).
SEAT_COOKIE = "explorer_seat"

SEATS: dict[str, Seat] = {}  # kernel id -> its seat (one server process)
#: the client address of the page request being handled (set by the page handler; the demand pool counts
#: arrivals per address with it)
ARRIVING_FROM: contextvars.ContextVar[str | None] = contextvars.ContextVar("explorer_arriving_from", default=None)
PENDING: dict[str, int] = {}  # address -> page loads in progress whose kernel is not known yet
ON_GONE: list = []  # callables given the set of live kernel ids after each check (to drop what is kept for others)


def _in_networks(address: str, networks: list[str]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    for net in networks:
        try:
            if ip in ipaddress.ip_network(net, strict=False):
                return True
        except ValueError:
            continue
    return False


def client_address(request, trusted_proxies: list[str]) -> str:
    """The viewer's address: ``X-Real-IP`` only when the connection comes from a configured proxy."""
    peer = request.remote_ip or ""
    if trusted_proxies and _in_networks(peer, trusted_proxies):
        forwarded = (request.headers.get("X-Real-IP") or "").strip()
        try:
            return str(ipaddress.ip_address(forwarded))
        except ValueError:
            pass
    return peer


def is_exempt(address: str, exempt_networks: list[str]) -> bool:
    return bool(exempt_networks) and _in_networks(address, exempt_networks)


def owns(kernel_id: str, token: str | None) -> bool:
    """Whether ``token`` (a request's seat cookie) is the one recorded with ``kernel_id``'s seat."""
    seat = SEATS.get(kernel_id)
    if seat is None or not token:
        return False
    return hmac.compare_digest(seat.token.encode(), token.encode())


def seats_of(address: str, live_kernels) -> int:
    """Seats ``address`` holds now (kernels still running) plus its page loads in progress."""
    live = set(live_kernels)
    return sum(1 for kid, seat in SEATS.items() if seat.address == address and kid in live) + PENDING.get(address, 0)


def forget_gone(live) -> None:
    """Drop what is kept for kernels not in ``live`` (the running kernel ids), and close their websockets."""
    live = set(live)
    for prune in ON_GONE:
        prune(live)


def note_connected(kernel_id: str) -> None:
    """Record that the page of ``kernel_id`` opened its kernel websocket (its seat is claimed)."""
    seat = SEATS.get(kernel_id)
    if seat is not None:
        seat.connected = True


def note_interaction(kernel_id: str) -> None:
    """Record that the viewer of ``kernel_id`` did something now (resets the page-idle clock)."""
    seat = SEATS.get(kernel_id)
    if seat is not None:
        seat.last_interaction = time.monotonic()


def rss_mb(pid: int) -> float:
    """Resident memory of a process [MB] (0 when it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def own_memory_mb(pid: int) -> float:
    """Memory only this process holds [MB]: its private pages (USS), 0 when it is gone.

    What a kernel costs the machine. A kernel forked from the template (explorer.hosting.provisioner) shares the
    template's imported modules copy-on-write: its resident size counts those pages (about 100 MB at once), its
    private ones grow only as it works. Falls back to the resident size where ``smaps_rollup`` is missing.
    """
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return rss_mb(pid)
    private_kb = sum(int(line.split()[1]) for line in text.splitlines()
                     if line.startswith(("Private_Clean:", "Private_Dirty:")))
    return private_kb / 1024


def memory_for_limit_mb(pid: int, limit_mb: float) -> float:
    """A process's private memory (USS) [MB] when it may be over ``limit_mb``; otherwise its resident size.

    The private pages are part of the resident ones (USS <= RSS), so a process resident within the limit is
    within it, and reading its resident size (``/proc/<pid>/status``, about 0.1 ms) settles it. Only a
    process resident above the limit has its private pages counted (``/proc/<pid>/smaps_rollup``, which
    walks its page tables: 8-9 ms of the server's CPU for a 150 MB kernel on the loaded development
    machine). Reading it for every kernel at every check took a fifth of the server's samples during a
    rush (docs/deploy.md, "Where a forked viewer's CPU goes").
    """
    resident = rss_mb(pid)
    return resident if resident <= limit_mb else own_memory_mb(pid)


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

    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self._busy: dict[str, dict[str, float]] = {}  # kernel id -> {parent msg id: when it went busy}

    def watch(self, kernel_id: str, kernel) -> bool:
        """Start listening to ``kernel`` (once); False when it has no activity stream to listen to."""
        stream = getattr(kernel, "_activity_stream", None)
        if stream is None or getattr(stream, "_explorer_busy_clock", None) is self:
            return stream is not None
        original = getattr(stream, "_recv_callback", None)

        def record(msg_list):
            try:
                if original is not None:
                    original(msg_list)
            finally:
                self.record(kernel_id, msg_list)

        stream.on_recv(record)
        stream._explorer_busy_clock = self
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

    def start(self) -> asyncio.Task:
        """Run :meth:`check` every ``interval`` seconds on the current event loop."""
        return asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            try:
                await self.check()
            except Exception:  # noqa: BLE001 - the warden must keep running
                self.log.warning("Seat check failed", exc_info=True)

    def _pid(self, kernel_id: str) -> int | None:
        try:
            kernel = self.km.get_kernel(kernel_id)
        except KeyError:
            return None
        process = getattr(getattr(kernel, "provisioner", None), "process", None)
        return getattr(process, "pid", None)

    async def _free(self, kernel_id: str, why: str) -> None:
        self.log.warning("Freeing kernel %s: %s", kernel_id, why)
        SEATS.pop(kernel_id, None)
        self._no_connection_since.pop(kernel_id, None)
        try:
            await self.km.shutdown_kernel(kernel_id, now=True)
        except Exception:  # noqa: BLE001 - already gone
            pass
        forget_gone(self.km.list_kernel_ids())  # its websockets close and give their places back

    async def check(self) -> None:
        """Free seats held for nothing (idle page, one message too long, busy kernel with no connection, memory).

        Kernels that have gone are forgotten, and their websockets closed.
        """
        now = self.clock()
        live = set(self.km.list_kernel_ids())
        for kernel_id in list(SEATS):
            if kernel_id not in live:
                SEATS.pop(kernel_id, None)
                self._no_connection_since.pop(kernel_id, None)
        forget_gone(live)
        self.busy_clock.forget(live)
        for kernel_id in live:
            try:
                self.busy_clock.watch(kernel_id, self.km.get_kernel(kernel_id))
            except KeyError:
                continue
            if self.kernel_memory_mb:
                pid = self._pid(kernel_id)
                used = memory_for_limit_mb(pid, self.kernel_memory_mb) if pid else 0.0
                if used > self.kernel_memory_mb:
                    await self._free(kernel_id, f"{used:.0f} MB, over the limit of {self.kernel_memory_mb:.0f} MB")
                    continue
            seat = SEATS.get(kernel_id)
            if seat is None:
                continue  # a preheated kernel waiting in the pool
            if (self.connect_timeout and not seat.connected and seat.delivered is not None
                    and now - seat.delivered > self.connect_timeout):  # an arrival that never connected
                await self._free(kernel_id, f"its page never connected in the {now - seat.delivered:.0f} s "
                                            f"since it was sent (connect_timeout {self.connect_timeout:.0f} s)")
                continue
            if self.page_idle_timeout and now - seat.last_interaction > self.page_idle_timeout:
                await self._free(kernel_id, f"no interaction for {now - seat.last_interaction:.0f} s")
                continue
            # counted from the hand-over: a preheated kernel has been busy since the pool ran its notebook, which
            # waits for a viewer's query string (minutes in a quiet pool), and that wait is not the viewer's
            busy_for = min(self.busy_clock.busy_for(kernel_id), now - seat.since)
            if self.busy_message_limit and busy_for > self.busy_message_limit:
                await self._free(kernel_id, f"busy on one message for {busy_for:.0f} s, over the limit of "
                                            f"{self.busy_message_limit:.0f} s")
                continue
            if self.connections(kernel_id):
                self._no_connection_since.pop(kernel_id, None)
                continue
            since = self._no_connection_since.setdefault(kernel_id, now)
            try:
                state = self.km.get_kernel(kernel_id).execution_state
            except KeyError:
                continue
            if self.busy_cull_timeout and state == "busy" and now - max(since, seat.since) > self.busy_cull_timeout:
                await self._free(kernel_id, f"busy with no connection for {now - max(since, seat.since):.0f} s")
