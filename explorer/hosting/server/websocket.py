"""The kernel websocket of a public Voila server, treated as hostile input.

Voila 0.5 forwards every viewer's websocket frames to a kernel. Two readers in
that path trust the frame's first eight bytes as a count and build a list of
that many offsets: Voila's own ``read_header_from_binary_message`` (on frames
going out in the old, pre-v1 binary format) and jupyter_server's
``deserialize_msg_from_ws_v1`` (on every v1 frame coming in). A plain
websocket client could make the server build a list of about 1e18 entries and
grow until the OOM killer stopped it.

:class:`GuardedKernelWebsocketConnection` closes both holes at the door:

* it accepts only clients that offer the ``v1.kernel.websocket.jupyter.org``
  subprotocol, as every browser running Voila's page does (HTTP 400 otherwise),
  so no old-format frame ever reaches Voila's reader;
* it checks each incoming v1 frame's layout (offset count, order and bounds)
  before jupyter_server parses it, and drops text frames;
* it drops messages beyond a rate (a token bucket) shared by all the
  connections of a kernel, so more sockets do not buy more messages;
* it closes the websocket (1007) on a message whose JSON nests deeper than
  :data:`~explorer.hosting.server.json_depth.MAX_JSON_DEPTH`, before anything
  parses it (a 50,000-deep list raised ``RecursionError`` in the server);
* it accepts a websocket to a kernel only from the page that owns it: the
  request must carry the seat cookie recorded with the kernel's seat
  (:data:`explorer.hosting.server.seats.SEAT_COOKIE`, one per page), so knowing a
  kernel id is not enough (HTTP 403 otherwise);
* it refuses a connection beyond ``max_per_kernel`` websockets on one kernel
  or ``max_total`` on the server (HTTP 503), which bounds the server's ZMQ
  sockets and file descriptors (each connection opens four ZMQ sockets). A
  place is taken only once the websocket is open (:meth:`take_place`, from
  the handler's ``open``) and given back when it closes, however it ends; a
  refused handshake never holds one, and the websockets of a kernel that has
  been shut down are closed (:func:`close_gone`);
* it drops ``comm_open`` for ``jupyter.widget`` from the page: the app
  creates all its widgets in the kernel, and models created from the page
  grew a kernel by gigabytes;
* it sends the page's widget messages to the kernel one at a time and within
  a CPU budget per kernel, coalescing what waits
  (:mod:`explorer.hosting.server.kernel_budget`);
* it notes each message other than the page's heartbeat as interaction
  (:func:`explorer.hosting.server.seats.note_interaction`), when it names a widget
  the kernel has shown the page (:mod:`explorer.hosting.server.live_widgets`).

:class:`SafeKernelWebsocketHandler` is Voila's handler with a bounded header
reader, in case another connection class is configured, and a bound on
what it buffers for a client that does not read (``max_buffer_bytes``): such
a connection is closed instead of growing the server. It refuses a handshake
tornado would refuse (no ``Upgrade: websocket``, no ``Connection: Upgrade``,
``Sec-WebSocket-Version`` other than 13, a foreign ``Origin``) before any
kernel work, and whatever ends the request gives its place and its session
entry back.
"""

from __future__ import annotations

import json
import time
from typing import Any

from jupyter_server.auth.decorator import ws_authenticated
from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection
from tornado import web
from tornado.ioloop import IOLoop
from tornado.websocket import WebSocketClosedError
from traitlets import Float, Int
from voila.tornado.kernel_websocket_handler import VoilaKernelWebsocketHandler

from explorer.hosting.server import seats, upstream_server
from explorer.hosting.server.json_depth import MAX_JSON_DEPTH, nested_deeper_than
from explorer.hosting.server.kernel_budget import KernelGate, Pending, cpu_seconds
from explorer.hosting.server.live_widgets import LiveWidgets
from explorer.hosting.server.seats import note_interaction

__all__ = ["V1_PROTOCOL", "GuardedKernelWebsocketConnection", "SafeKernelWebsocketHandler", "v1_frame_is_valid",
           "kernel_connections", "close_gone", "is_interaction"]

V1_PROTOCOL = "v1.kernel.websocket.jupyter.org"
# A v1 frame holds a channel, header, parent header, metadata, content and buffers: 6 offsets and one
# per buffer. Widget messages from the browser carry a few buffers at most.
MAX_V1_OFFSETS = 6 + 16


def v1_frame_is_valid(frame: object, max_offsets: int = MAX_V1_OFFSETS) -> bool:
    """True when ``frame`` is laid out as a v1 kernel-websocket frame.

    Layout (jupyter_server ``serialize_msg_to_ws_v1``): an 8-byte little-endian
    count ``n``, ``n`` 8-byte offsets, then the channel name and the message
    parts. The first offset is where the channel starts (``8·(n+1)``), offsets
    never decrease and none passes the end of the frame.

    Parameters
    ----------
    frame : object
        What the websocket delivered (bytes for a binary frame, str for text).
    max_offsets : int
        Largest offset count accepted.
    """
    if not isinstance(frame, bytes) or len(frame) < 8:
        return False
    count = int.from_bytes(frame[:8], "little")
    if not 6 <= count <= max_offsets or len(frame) < 8 * (count + 1):
        return False
    offsets = [int.from_bytes(frame[8 * (i + 1):8 * (i + 2)], "little") for i in range(count)]
    if offsets[0] != 8 * (count + 1) or offsets[-1] > len(frame):
        return False
    return all(a <= b for a, b in zip(offsets, offsets[1:]))


_MAX_PARSED_BYTES = 4096  # parts longer than this are not parsed to classify a message
# state keys of the page's own front-end widget (explorer.app.page_bridge.PageBridge), which it sends by itself:
# the heartbeat's ping (and its answer) and the chart box's width; none of them is a viewer's choice
_PAGE_SENT_KEYS = frozenset({"ping", "pong", "chart_width"})
_RETRY_S = 0.2  # how soon a waiting widget message is offered to the gate again [s]
_INTERACTION_METHODS = frozenset({"update", "custom"})  # a control's new value, a button's click


def is_interaction(header: bytes, content: bytes) -> bool:
    """True when a message from the page is something a viewer could have done by hand.

    The rule: a widget ``comm_msg`` whose ``data.method`` is ``update`` (a
    control's new value) or ``custom`` (a button's click), other than an update
    of only the keys the page's own widget sends by itself (heartbeat ``ping``,
    ``chart_width``). Everything else the page sends without the
    viewer (``request_state(s)``, ``comm_info_request``, ``kernel_info_request``,
    the heartbeat, websocket pings) keeps no seat.

    Parameters
    ----------
    header, content : bytes
        The message's header and content parts (JSON).
    """
    if b'"comm_msg"' not in header[:_MAX_PARSED_BYTES]:
        return False
    try:
        data = json.loads(content).get("data") if len(content) <= 1 << 20 else None
    except (ValueError, AttributeError, UnicodeDecodeError):
        return False
    if not isinstance(data, dict) or data.get("method") not in _INTERACTION_METHODS:
        return False
    if data["method"] == "update":
        state = data.get("state")
        return isinstance(state, dict) and bool(set(state) - _PAGE_SENT_KEYS)
    return True


def _part(frame: bytes, index: int) -> bytes:
    """Part ``index`` of a valid v1 frame (0 channel, 1 header, 2 parent, 3 metadata, 4 content)."""
    start = int.from_bytes(frame[8 * (index + 1):8 * (index + 2)], "little")
    count = int.from_bytes(frame[:8], "little")
    end = int.from_bytes(frame[8 * (index + 2):8 * (index + 3)], "little") if index + 1 < count else len(frame)
    return frame[start:end]


def kernel_connections(kernel_id: str) -> int:
    """Open kernel websockets of ``kernel_id`` on this server."""
    return GuardedKernelWebsocketConnection.per_kernel.get(kernel_id, 0)


def close_gone(live: set) -> None:
    """Close the open websockets of kernels that are no longer running (``live``: the running kernel ids).

    jupyter_server keeps a kernel's websocket open after the kernel is shut
    down; closing it gives its place back (and tells the page).
    """
    for connection in [c for c in GuardedKernelWebsocketConnection._open if c.kernel_id not in live]:
        handler = connection.websocket_handler
        connection.release_place()
        try:
            handler.close(1001, "kernel shut down")
        except Exception:  # noqa: BLE001 - already closing
            pass


def _owner_cookie_matches(handler, kernel_id: str) -> bool:
    """Whether the request carries the seat cookie recorded with ``kernel_id``'s seat (:func:`seats.owns`)."""
    return seats.owns(kernel_id, handler.get_cookie(seats.SEAT_COOKIE))


class GuardedKernelWebsocketConnection(ZMQChannelsWebsocketConnection):
    """A kernel websocket connection for anonymous, possibly hostile viewers.

    Configure it with ``Voila.kernel_websocket_connection_class`` (the
    project's ``voila.json`` does).
    """

    messages_per_second = Float(50.0, config=True, help="Sustained incoming messages a kernel may receive, "
                                                        "over all its connections [1/s].")
    burst_messages = Int(400, config=True, help="Incoming messages a kernel may receive at once.")
    max_per_kernel = Int(2, config=True, help="Most websockets open on one kernel (a page uses one; a reload "
                                              "overlaps briefly); further ones get HTTP 503.")
    max_total = Int(200, config=True, help="Most kernel websockets open on this server; each holds 4 ZMQ sockets "
                                           "and about 9 file descriptors (docs/deploy.md, capacity).")

    per_kernel: dict[str, int] = {}  # kernel id -> open websockets
    total = 0  # open websockets on the server
    _open: set = set()  # the connections holding a place
    _buckets: dict[str, list[float]] = {}  # kernel id -> [tokens, last refill]
    #: the time [s] the token buckets refill by (``time.monotonic``; tests may set another on the class)
    clock = staticmethod(time.monotonic)
    live_widgets = LiveWidgets()  # the widget ids each kernel has shown its page (the idle rule counts only them)
    _kernel_manager = None  # the server's kernel manager (set by the first connection), for the kernels' pids
    gate = KernelGate(lambda kernel_id: _kernel_cpu_seconds(GuardedKernelWebsocketConnection._kernel_manager,
                                                            kernel_id))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.kernel_ws_protocol = V1_PROTOCOL  # never negotiate the old protocol
        self._dropped = 0
        self._counted = False
        self._pending = Pending()  # widget messages waiting for the kernel's gate
        self._retry = None
        GuardedKernelWebsocketConnection._kernel_manager = self.multi_kernel_manager

    def _full(self) -> bool:
        cls = GuardedKernelWebsocketConnection
        return cls.total >= self.max_total or cls.per_kernel.get(self.kernel_id, 0) >= self.max_per_kernel

    async def prepare(self):
        """Refuse clients without the v1 subprotocol (400), not the kernel's page (403), beyond the caps (503).

        Nothing is counted here: a place is taken when the websocket opens (:meth:`take_place`).
        """
        handler = self.websocket_handler
        offered = handler.request.headers.get("Sec-WebSocket-Protocol", "")
        if V1_PROTOCOL not in [p.strip() for p in offered.split(",")]:
            self.log.warning("Refused a kernel websocket without the %s subprotocol", V1_PROTOCOL)
            raise web.HTTPError(400, f"this server speaks only the {V1_PROTOCOL} subprotocol")
        if not _owner_cookie_matches(handler, self.kernel_id):
            self.log.warning("Refused a kernel websocket to kernel %s from %s: not the page that owns it",
                             self.kernel_id, handler.request.remote_ip)
            raise web.HTTPError(403, "not this page's kernel")
        if self._full():
            cls = GuardedKernelWebsocketConnection
            self.log.warning("Refused a kernel websocket: %d open on kernel %s, %d on the server",
                             cls.per_kernel.get(self.kernel_id, 0), self.kernel_id, cls.total)
            raise web.HTTPError(503, "too many connections")
        await super().prepare()

    def take_place(self) -> bool:
        """Count this websocket, now open, in the caps; False (nothing counted) when they are full.

        Called when the handshake has succeeded. Handshakes that were checked
        against the caps at the same time may find them full here.
        """
        if self._counted:
            return True
        if self._full():
            return False
        cls = GuardedKernelWebsocketConnection
        cls.per_kernel[self.kernel_id] = cls.per_kernel.get(self.kernel_id, 0) + 1
        cls.total += 1
        cls._open.add(self)
        self._counted = True
        seats.note_connected(self.kernel_id)  # the page has claimed its seat (Warden.connect_timeout)
        return True

    def release_place(self) -> None:
        """Give this websocket's place back (once; nothing if it never took one)."""
        if not self._counted:
            return
        self._counted = False
        cls = GuardedKernelWebsocketConnection
        cls._open.discard(self)
        cls.total -= 1
        left = cls.per_kernel.get(self.kernel_id, 1) - 1
        if left > 0:
            cls.per_kernel[self.kernel_id] = left
        else:
            cls.per_kernel.pop(self.kernel_id, None)

    def disconnect(self):
        """Release this connection's place in the per-kernel and server caps, then disconnect."""
        self.release_place()
        return super().disconnect()

    def _take_token(self) -> bool:
        now = self.clock()
        bucket = self._buckets.setdefault(self.kernel_id, [float(self.burst_messages), now])
        bucket[0] = min(float(self.burst_messages), bucket[0] + (now - bucket[1]) * self.messages_per_second)
        bucket[1] = now
        if bucket[0] >= 1.0:
            bucket[0] -= 1.0
            return True
        return False

    def handle_incoming_message(self, incoming_msg) -> None:
        """Pass a well-formed v1 frame within the rate on to the kernel; drop anything else."""
        if self.subprotocol != V1_PROTOCOL or not v1_frame_is_valid(incoming_msg):
            self._drop("malformed frame")
            return
        if not self._take_token():
            self._drop("rate limit")
            return
        if any(nested_deeper_than(_part(incoming_msg, i)) for i in (1, 2, 3, 4)):  # before any JSON parser runs
            self._drop(f"JSON nested deeper than {MAX_JSON_DEPTH} levels")
            self.websocket_handler.close(1007, f"JSON nested deeper than {MAX_JSON_DEPTH} levels")
            return
        header = _part(incoming_msg, 1)
        if b'"comm_open"' in header[:_MAX_PARSED_BYTES]:
            content = _part(incoming_msg, 4)
            try:
                target = json.loads(content).get("target_name") if len(content) <= 1 << 16 else None
            except (ValueError, AttributeError):
                target = None
            if target != "jupyter.widget.control":  # the page's widget manager asks for states through it
                self._drop(f"comm_open {str(target)[:40]!r} from the page")
                return
        if is_interaction(header, _part(incoming_msg, 4)) and self.live_widgets.is_live(
                self.kernel_id, _comm_id(_part(incoming_msg, 4))):  # a widget of this page, not any id
            note_interaction(self.kernel_id)
        gated, key, msg_id = widget_message_key(header, _part(incoming_msg, 4))
        if gated:  # a widget message: one at a time, within the kernel's CPU budget, the newest value kept
            if not self._pending.add(key, msg_id, incoming_msg):
                self._drop("too many widget messages waiting")
            self.flush_pending()
            return
        super().handle_incoming_message(incoming_msg)

    def flush_pending(self) -> None:
        """Send the oldest waiting widget message if the gate lets it go; retry later while some wait."""
        cls = GuardedKernelWebsocketConnection
        while len(self._pending) and cls.gate.may_send(self.kernel_id):
            msg_id, frame = self._pending.pop()
            cls.gate.sent(self.kernel_id, msg_id)
            super().handle_incoming_message(frame)  # type: ignore[arg-type]  # a v1 frame is bytes; jupyter_server annotates str
        if len(self._pending) and self._retry is None:
            self._retry = IOLoop.current().call_later(_RETRY_S, self._retry_flush)

    def _retry_flush(self) -> None:
        self._retry = None
        if self.websocket_handler.ws_connection is not None:  # still open
            self.flush_pending()

    def kernel_status(self, parent_id: str, execution_state: str) -> None:
        """The kernel's status message on its way to the page: an idle ends the widget message in flight."""
        if GuardedKernelWebsocketConnection.gate.status(self.kernel_id, parent_id, execution_state):
            for connection in [c for c in GuardedKernelWebsocketConnection._open if c.kernel_id == self.kernel_id]:
                connection.flush_pending()

    def _drop(self, why: str) -> None:
        self._dropped += 1
        if self._dropped in (1, 10, 100, 1000, 10000):
            self.log.warning("Dropped %d incoming kernel message(s) from %s (%s)", self._dropped,
                             self.websocket_handler.request.remote_ip, why)


def widget_message_key(header: bytes, content: bytes) -> tuple[bool, object, str]:
    """(gated, coalescing key, msg_id) of a message from the page (:mod:`explorer.hosting.server.kernel_budget`).

    Gated: a ``comm_msg`` other than an update of only the page's own heartbeat keys. The key of an update
    without buffers is (comm id, its state's keys), of a chart's ``draw`` request (ipympl) (comm id, "draw"): a
    newer one replaces the waiting one (a drawing asked for twice is drawn once); other messages have None (kept
    in order).
    """
    if b'"comm_msg"' not in header[:_MAX_PARSED_BYTES]:
        return False, None, ""
    try:
        head = json.loads(header) if len(header) <= _MAX_PARSED_BYTES else {}
        body = json.loads(content) if len(content) <= 1 << 20 else {}
    except (ValueError, UnicodeDecodeError):
        return True, None, ""
    msg_id = str(head.get("msg_id", "")) if isinstance(head, dict) else ""
    data = body.get("data") if isinstance(body, dict) else None
    if (isinstance(data, dict) and data.get("method") == "custom" and isinstance(data.get("content"), dict)
            and data["content"].get("type") == "draw"):
        return True, (str(body.get("comm_id")), "draw"), msg_id  # a chart's view asking for a drawing: one is enough
    if not isinstance(data, dict) or data.get("method") != "update" or not isinstance(data.get("state"), dict):
        return True, None, msg_id
    keys = set(data["state"])
    if keys <= _PAGE_SENT_KEYS:
        return False, None, msg_id  # the heartbeat and the chart's width go at once
    if data.get("buffer_paths"):
        return True, None, msg_id
    return True, (str(body.get("comm_id")), tuple(sorted(keys))), msg_id


def _comm_id(content: bytes) -> object:
    """The ``comm_id`` of a message's content part (None when it has none or is not JSON)."""
    try:
        body = json.loads(content) if len(content) <= 1 << 20 else None
    except (ValueError, UnicodeDecodeError):
        return None
    return body.get("comm_id") if isinstance(body, dict) else None


def _kernel_cpu_seconds(kernel_manager, kernel_id: str) -> float | None:
    """CPU time of ``kernel_id``'s process so far [s] (None when it is gone or has no process yet).

    A kernel whose process cannot be found through jupyter_client raises
    :class:`~explorer.hosting.upstream_names.UpstreamChanged` (:func:`upstream_server.kernel_pid`): the budget
    never lets messages through unmetered.
    """
    if kernel_id not in kernel_manager:  # gone (jupyter_server's get_kernel would raise a 404, not KeyError)
        return None
    pid = upstream_server.kernel_pid(kernel_manager.get_kernel(kernel_id))
    return cpu_seconds(pid) if pid else None


def _status_of(ws_msg: bytes) -> tuple[str, str] | None:
    """(parent msg_id, execution_state) of a v1 ``status`` frame from the kernel, or None."""
    try:
        parent = json.loads(_part(ws_msg, 2))
        content = json.loads(_part(ws_msg, 4))
        return str(parent.get("msg_id", "")), str(content.get("execution_state", ""))
    except (ValueError, UnicodeDecodeError, AttributeError):
        return None


def _bounded_header(ws_msg: bytes) -> dict | None:
    """The header of a v1 frame, or None when ``ws_msg`` is not one (never trusts its count)."""
    if not v1_frame_is_valid(ws_msg, max_offsets=1 << 16):
        return None
    start = int.from_bytes(ws_msg[16:24], "little")  # offsets[1]: the header starts after the channel
    end = int.from_bytes(ws_msg[24:32], "little")
    try:
        return json.loads(ws_msg[start:end].decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None


class SafeKernelWebsocketHandler(VoilaKernelWebsocketHandler):
    """Voila's kernel websocket handler, reading outgoing headers with bounds.

    Voila drops ``execute_input`` messages on their way to the browser, so that
    the notebook's source is not shown; this keeps that rule.
    """

    def write_error(self, status_code: int, **kwargs) -> None:
        """A plain-text refusal (jupyter_server's error template needs settings Voila lacks)."""
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.finish(f"{status_code} {upstream_server.response_reason(self)}\n")

    max_buffer_bytes = 8 << 20  # set from ExplorerVoila.max_ws_buffer_bytes

    def _refused_handshake(self) -> tuple[int, str] | None:
        """The status and reason tornado would refuse this handshake with, or None (checked before any kernel work)."""
        headers = self.request.headers
        if headers.get("Upgrade", "").lower() != "websocket":
            return 400, 'Can "Upgrade" only to "WebSocket".'
        if "upgrade" not in [p.strip().lower() for p in headers.get("Connection", "").split(",")]:
            return 400, '"Connection" must be "Upgrade".'
        if headers.get("Sec-WebSocket-Version") != "13":
            return 426, "Upgrade Required"
        origin = headers.get("Origin", headers.get("Sec-Websocket-Origin"))
        if origin is not None and not self.check_origin(origin):
            return 403, "Cross origin websockets not allowed"
        return None

    @ws_authenticated
    async def get(self, kernel_id):
        """Refuse a handshake tornado would refuse before any kernel work; give back whatever the request held."""
        refused = self._refused_handshake()
        if refused is not None:
            status, reason = refused
            self.log.warning("Refused a kernel websocket handshake from %s: %s", self.request.remote_ip, reason)
            if status == 426:
                self.set_header("Sec-WebSocket-Version", "13")
            raise web.HTTPError(status, reason)
        try:
            await super().get(kernel_id)
        finally:
            self._give_back()

    async def pre_get(self):
        """jupyter_server's checks and the connection's ``prepare``; remembers the connection to release it."""
        try:
            await super().pre_get()
        finally:
            self._guarded_connection = getattr(self, "connection", None)

    def _give_back(self) -> None:
        """Release the connection's place, and its session entry if the websocket never opened."""
        connection = getattr(self, "_guarded_connection", None)
        if connection is None:
            return
        if hasattr(connection, "release_place"):
            connection.release_place()
        if self.get_status() != 101:  # never opened: jupyter_server's prepare() registered the session anyway
            upstream_server.forget_session(connection, self)

    async def open(self, kernel_id):
        """Take the websocket's place in the caps now that it is open (close it if they filled meanwhile)."""
        take = getattr(self.connection, "take_place", None)
        if take is not None and not take():
            self.log.warning("Closing a kernel websocket to %s: the caps filled during its handshake", kernel_id)
            self._never_connected = True
            self.close(1013, "too many connections")
            return
        await super().open(kernel_id)

    def on_close(self):
        """Give the place back, then jupyter_server's close (for a connection that was connected)."""
        connection = getattr(self, "connection", None)
        if connection is None:
            return
        if hasattr(connection, "release_place"):
            connection.release_place()
        if getattr(self, "_never_connected", False):
            # closed in open() before connecting: nothing to disconnect, and jupyter_server's disconnect would
            # count a disconnection that had no connection (a kernel with -1 connections is never culled)
            upstream_server.forget_session(connection, self)
            self.connection = None
            return
        super().on_close()

    def write_message(self, message, binary: bool = False):
        """Send a kernel message to the page, except source echoes and tracebacks; close a socket that does not read."""
        if isinstance(message, bytes):
            header = _bounded_header(message)
        elif isinstance(message, dict):
            header = message.get("header")
        else:
            header = None
        msg_type = header.get("msg_type") if isinstance(header, dict) else None
        if msg_type == "execute_input":
            return None
        if isinstance(message, bytes) and msg_type in ("comm_open", "comm_msg", "comm_info_reply", "comm_close"):
            GuardedKernelWebsocketConnection.live_widgets.outgoing(getattr(self, "kernel_id", ""), msg_type,
                                                                   _part(message, 4))
        if msg_type == "status" and isinstance(message, bytes):  # ends a widget message in flight (kernel_budget)
            status = _status_of(message)
            connection: Any = getattr(self, "connection", None)
            if status is not None and hasattr(connection, "kernel_status"):
                connection.kernel_status(*status)
        if msg_type == "error" or (msg_type == "stream" and _is_stderr(message)):
            # a kernel traceback (a malformed widget message raises in the kernel) names the server's
            # install path; the read-only app never shows either to a viewer
            return None
        stream = upstream_server.websocket_stream(self)  # never None-by-default for an open socket
        if stream is not None:
            # bytes written but not yet taken by the client (tornado's IOStream counters)
            pending = upstream_server.pending_write_bytes(stream)
            limit = self.settings.get("explorer_max_ws_buffer_bytes", self.max_buffer_bytes)
            if limit and pending > limit:
                self.log.warning("Closing a kernel websocket from %s that does not read (%d bytes waiting)",
                                 self.request.remote_ip, pending)
                self.close(1008, "not reading")
                return None
        try:
            future = super(VoilaKernelWebsocketHandler, self).write_message(message, binary)
        except WebSocketClosedError:  # the client has gone: nothing to send, nothing to log
            return None
        future.add_done_callback(_retrieve)  # a write that fails when the client leaves is not a logged error
        return future


def _is_stderr(message) -> bool:
    """True for a ``stream`` message to stderr (v1 bytes or a dict)."""
    if isinstance(message, dict):
        return message.get("content", {}).get("name") == "stderr"
    if isinstance(message, bytes) and v1_frame_is_valid(message, max_offsets=1 << 16):
        return b'"name": "stderr"' in _part(message, 4)[:64] or b'"name":"stderr"' in _part(message, 4)[:64]
    return False


def _retrieve(future) -> None:
    if not future.cancelled():
        future.exception()


seats.ON_GONE.append(close_gone)
seats.ON_GONE.append(GuardedKernelWebsocketConnection.gate.forget)
seats.ON_GONE.append(GuardedKernelWebsocketConnection.live_widgets.forget)
