"""Who holds which kernel (the warden that frees kernels nobody is using is :mod:`explorer.hosting.server.warden`).

A *seat* is a kernel handed to a viewer's page. The page handler records the
client address and the page's own token (sent to the page as its seat cookie,
:data:`SEAT_COOKIE`) for each seat; with them the server

* caps the seats one address may hold (:func:`seats_of`),
* lets only the page that owns a kernel shut it down (the unload beacon),
* frees seats that hold a kernel for nothing (:class:`~explorer.hosting.server.warden.Warden`): a page that has
  not opened its kernel websocket ``connect_timeout`` after it was sent (an
  arrival that never connects), a page with no
  interaction for ``page_idle_timeout`` (the page then shows its session
  notice), a kernel busy on one message for longer than ``busy_message_limit``
  whether its page is connected or not (the page shows its session notice
  when the kernel stops answering its heartbeat), a busy kernel with no
  connection for ``busy_cull_timeout`` (a kernel stuck before its page could
  connect), and any kernel past ``kernel_memory_mb``.

Interaction is noted by :mod:`explorer.hosting.server.websocket`
(:func:`note_interaction`, for the messages of
:func:`~explorer.hosting.server.websocket.is_interaction`: a control's new value or a
button's click); the page's heartbeat, its width reports, state requests and
websocket pings are not interaction.

How long a kernel has been busy on one message comes from its own status
messages (:class:`~explorer.hosting.server.warden.BusyClock`): the kernel publishes ``busy`` when it starts a
message and ``idle`` when it is done, both naming the message as their parent,
so a queue of short messages never looks like one long one.
"""

from __future__ import annotations

import contextvars
import hmac
import ipaddress
import time
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["SEAT_COOKIE", "owns", "Seat", "SEATS", "client_address", "seats_of", "note_interaction", "note_connected", "rss_mb", "own_memory_mb", "memory_for_limit_mb",
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
#: (:class:`explorer.hosting.server.handlers.ExplorerPageHandler`).
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
    """The viewer's address, read from a proxy's headers only when the connection comes from a configured proxy.

    From a trusted proxy: ``X-Real-IP`` (what deploy/nginx.conf.in sets), else the last address of
    ``X-Forwarded-For`` that is not itself a trusted proxy (what Caddy and Traefik send; the addresses before it
    were written by the client and prove nothing). From anyone else both headers are ignored.
    """
    peer = request.remote_ip or ""
    if trusted_proxies and _in_networks(peer, trusted_proxies):
        forwarded = (request.headers.get("X-Real-IP") or "").strip()
        hops = [h.strip() for h in (request.headers.get("X-Forwarded-For") or "").split(",")]
        for candidate in [forwarded, *(h for h in reversed(hops) if not _in_networks(h, trusted_proxies))][:2]:
            try:
                return str(ipaddress.ip_address(candidate))
            except ValueError:
                continue
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

    What a kernel costs the machine. A kernel forked from the template (explorer.hosting.server.provisioner) shares the
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


def __getattr__(name: str):
    """``Warden`` and ``BusyClock`` moved to :mod:`explorer.hosting.server.warden`; still importable from here."""
    if name in ("Warden", "BusyClock"):
        from explorer.hosting.server import warden

        return getattr(warden, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
