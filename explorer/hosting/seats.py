"""Who holds which kernel, and the warden that frees kernels nobody is using.

A *seat* is a kernel handed to a viewer's page. The page handler records the
client address and the page's ``_xsrf`` token for each seat; with them the
server

* caps the seats one address may hold (:func:`seats_of`),
* lets only the page that owns a kernel shut it down (the unload beacon),
* frees seats that hold a kernel for nothing (:class:`Warden`): a page with no
  interaction for ``page_idle_timeout`` (the page then shows its session
  notice), a busy kernel with no connection for ``busy_cull_timeout`` (a
  kernel stuck before its page could connect), and any kernel past
  ``kernel_memory_mb``.

Websocket activity is noted by :mod:`explorer.hosting.websocket`
(:func:`note_interaction`); the page's heartbeat does not count as interaction.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Seat", "SEATS", "client_address", "seats_of", "note_interaction", "Warden", "rss_mb"]


@dataclass
class Seat:
    """A kernel handed to a page: the client ``address``, the page's ``xsrf`` token and when [monotonic s]."""
    address: str
    xsrf: bytes
    since: float = field(default_factory=time.monotonic)
    last_interaction: float = field(default_factory=time.monotonic)


SEATS: dict[str, Seat] = {}  # kernel id -> its seat (one server process)
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


def seats_of(address: str, live_kernels) -> int:
    """Seats ``address`` holds now (kernels still running) plus its page loads in progress."""
    live = set(live_kernels)
    return sum(1 for kid, seat in SEATS.items() if seat.address == address and kid in live) + PENDING.get(address, 0)


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


class Warden:
    """A periodic check that frees seats held for nothing (see the module docstring).

    Parameters are in seconds and MB; 0 switches a check off.
    """

    def __init__(self, kernel_manager, log: logging.Logger, *, interval: float, page_idle_timeout: float,
                 busy_cull_timeout: float, kernel_memory_mb: float, connections):
        self.km = kernel_manager
        self.log = log
        self.interval = interval
        self.page_idle_timeout = page_idle_timeout
        self.busy_cull_timeout = busy_cull_timeout
        self.kernel_memory_mb = kernel_memory_mb
        self.connections = connections  # kernel id -> open kernel websockets
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

    async def check(self) -> None:
        """Free seats held for nothing (idle page, busy kernel with no connection, memory); forget gone kernels."""
        now = time.monotonic()
        live = set(self.km.list_kernel_ids())
        for kernel_id in list(SEATS):
            if kernel_id not in live:
                SEATS.pop(kernel_id, None)
                self._no_connection_since.pop(kernel_id, None)
        for prune in ON_GONE:
            prune(live)
        for kernel_id in live:
            if self.kernel_memory_mb:
                pid = self._pid(kernel_id)
                used = rss_mb(pid) if pid else 0.0
                if used > self.kernel_memory_mb:
                    await self._free(kernel_id, f"{used:.0f} MB, over the limit of {self.kernel_memory_mb:.0f} MB")
                    continue
            seat = SEATS.get(kernel_id)
            if seat is None:
                continue  # a preheated kernel waiting in the pool
            if self.page_idle_timeout and now - seat.last_interaction > self.page_idle_timeout:
                await self._free(kernel_id, f"no interaction for {now - seat.last_interaction:.0f} s")
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
