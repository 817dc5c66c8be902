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
* it drops messages beyond a per-connection rate (a token bucket), so one
  client cannot keep a kernel and the shared CPU busy.

:class:`SafeKernelWebsocketHandler` is Voila's handler with a bounded header
reader, in case another connection class is configured.
"""

from __future__ import annotations

import json
import time

from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection
from tornado import web
from traitlets import Float, Int
from voila.tornado.kernel_websocket_handler import VoilaKernelWebsocketHandler

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


class GuardedKernelWebsocketConnection(ZMQChannelsWebsocketConnection):
    """A kernel websocket connection for anonymous, possibly hostile viewers.

    Configure it with ``Voila.kernel_websocket_connection_class`` (the
    project's ``voila.json`` does).
    """

    messages_per_second = Float(50.0, config=True, help="Sustained incoming messages a connection may send [1/s].")
    burst_messages = Int(400, config=True, help="Incoming messages a connection may send at once.")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.kernel_ws_protocol = V1_PROTOCOL  # never negotiate the old protocol
        self._tokens = float(self.burst_messages)
        self._last_refill = time.monotonic()
        self._dropped = 0

    async def prepare(self):
        """Refuse clients that do not offer the v1 subprotocol, before any frame is read."""
        offered = self.websocket_handler.request.headers.get("Sec-WebSocket-Protocol", "")
        if V1_PROTOCOL not in [p.strip() for p in offered.split(",")]:
            self.log.warning("Refused a kernel websocket without the %s subprotocol", V1_PROTOCOL)
            raise web.HTTPError(400, f"this server speaks only the {V1_PROTOCOL} subprotocol")
        await super().prepare()

    def _take_token(self) -> bool:
        now = time.monotonic()
        self._tokens = min(float(self.burst_messages), self._tokens + (now - self._last_refill) * self.messages_per_second)
        self._last_refill = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
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

    def write_message(self, message, binary: bool = False):
        if isinstance(message, bytes):
            header = _bounded_header(message)
        elif isinstance(message, dict):
            header = message.get("header")
        else:
            header = None
        if isinstance(header, dict) and header.get("msg_type") == "execute_input":
            return None
        return super(VoilaKernelWebsocketHandler, self).write_message(message, binary)
