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
* it refuses a connection beyond ``max_per_kernel`` websockets on one kernel
  or ``max_total`` on the server (HTTP 503), which bounds the server's ZMQ
  sockets and file descriptors (each connection opens four ZMQ sockets);
* it drops ``comm_open`` for ``jupyter.widget`` from the page: the app
  creates all its widgets in the kernel, and models created from the page
  grew a kernel by gigabytes;
* it notes each message other than the page's heartbeat as interaction
  (:func:`explorer.hosting.seats.note_interaction`).

:class:`SafeKernelWebsocketHandler` is Voila's handler with a bounded header
reader, in case another connection class is configured, and a bound on
what it buffers for a client that does not read (``max_buffer_bytes``): such
a connection is closed instead of growing the server.
"""

from __future__ import annotations

import json
import re
import time

from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection
from tornado import web
from tornado.websocket import WebSocketClosedError
from traitlets import Float, Int
from voila.tornado.kernel_websocket_handler import VoilaKernelWebsocketHandler

from explorer.hosting.seats import note_interaction

__all__ = ["V1_PROTOCOL", "GuardedKernelWebsocketConnection", "SafeKernelWebsocketHandler", "v1_frame_is_valid"]

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


# the page's heartbeat: an update of the ping alone (explorer.app.page_bridge.PageBridge)
_HEARTBEAT = re.compile(rb'"state"\s*:\s*\{\s*"ping"\s*:\s*\d+\s*\}')
_MAX_PARSED_BYTES = 4096  # parts longer than this are not parsed to classify a message


def _part(frame: bytes, index: int) -> bytes:
    """Part ``index`` of a valid v1 frame (0 channel, 1 header, 2 parent, 3 metadata, 4 content)."""
    start = int.from_bytes(frame[8 * (index + 1):8 * (index + 2)], "little")
    count = int.from_bytes(frame[:8], "little")
    end = int.from_bytes(frame[8 * (index + 2):8 * (index + 3)], "little") if index + 1 < count else len(frame)
    return frame[start:end]


def kernel_connections(kernel_id: str) -> int:
    """Open (or opening) kernel websockets of ``kernel_id`` on this server."""
    return GuardedKernelWebsocketConnection.per_kernel.get(kernel_id, 0)


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

    per_kernel: dict[str, int] = {}
    total = 0
    _buckets: dict[str, list[float]] = {}  # kernel id -> [tokens, last refill]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.kernel_ws_protocol = V1_PROTOCOL  # never negotiate the old protocol
        self._dropped = 0
        self._counted = False

    async def prepare(self):
        """Refuse clients that do not offer the v1 subprotocol, and connections beyond the caps."""
        offered = self.websocket_handler.request.headers.get("Sec-WebSocket-Protocol", "")
        if V1_PROTOCOL not in [p.strip() for p in offered.split(",")]:
            self.log.warning("Refused a kernel websocket without the %s subprotocol", V1_PROTOCOL)
            raise web.HTTPError(400, f"this server speaks only the {V1_PROTOCOL} subprotocol")
        cls = GuardedKernelWebsocketConnection
        if cls.total >= self.max_total or cls.per_kernel.get(self.kernel_id, 0) >= self.max_per_kernel:
            self.log.warning("Refused a kernel websocket: %d open on kernel %s, %d on the server",
                             cls.per_kernel.get(self.kernel_id, 0), self.kernel_id, cls.total)
            raise web.HTTPError(503, "too many connections")
        cls.per_kernel[self.kernel_id] = cls.per_kernel.get(self.kernel_id, 0) + 1
        cls.total += 1
        self._counted = True
        await super().prepare()

    def disconnect(self):
        """Release this connection's place in the per-kernel and server caps, then disconnect."""
        if self._counted:
            self._counted = False
            cls = GuardedKernelWebsocketConnection
            cls.total -= 1
            left = cls.per_kernel.get(self.kernel_id, 1) - 1
            if left > 0:
                cls.per_kernel[self.kernel_id] = left
            else:
                cls.per_kernel.pop(self.kernel_id, None)
        return super().disconnect()

    def _take_token(self) -> bool:
        now = time.monotonic()
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
        content = _part(incoming_msg, 4)
        if not (len(content) < 512 and _HEARTBEAT.search(content)):
            note_interaction(self.kernel_id)
        super().handle_incoming_message(incoming_msg)

    def _drop(self, why: str) -> None:
        self._dropped += 1
        if self._dropped in (1, 10, 100, 1000, 10000):
            self.log.warning("Dropped %d incoming kernel message(s) from %s (%s)", self._dropped,
                             self.websocket_handler.request.remote_ip, why)


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
        self.finish(f"{status_code} {self._reason}\n")

    max_buffer_bytes = 8 << 20  # set from ExplorerVoila.max_ws_buffer_bytes

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
        if msg_type == "error" or (msg_type == "stream" and _is_stderr(message)):
            # a kernel traceback (a malformed widget message raises in the kernel) names the server's
            # install path; the read-only app never shows either to a viewer
            return None
        stream = getattr(self.ws_connection, "stream", None)
        if stream is not None:
            # bytes written but not yet taken by the client (tornado's IOStream counters)
            pending = getattr(stream, "_total_write_index", 0) - getattr(stream, "_total_write_done_index", 0)
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
