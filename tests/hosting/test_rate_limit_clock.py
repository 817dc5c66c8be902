"""The kernel websocket's token bucket, on a fake clock: no test waits for a real-time refill.

``GuardedKernelWebsocketConnection`` drops a kernel's incoming messages beyond ``burst_messages`` at once and
``messages_per_second`` sustained, over all of that kernel's connections (explorer/hosting/server/websocket.py). Its
``clock`` is set on the class here; the expected counts are the bucket's arithmetic done by hand. The server
tests (tests/hosting/test_hosting.py, test_server_limits.py) check only that a real server drops a flood.
"""

from __future__ import annotations

import uuid

import pytest
from traitlets.config import Configurable

from explorer.hosting.server.websocket import GuardedKernelWebsocketConnection


class FakeClock:
    """A clock [s] that moves only when told to."""

    def __init__(self, now: float = 1000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class KernelManager(Configurable):
    """What a connection reads of its kernel's manager: the kernel id."""

    def __init__(self, kernel_id: str):
        super().__init__()
        self.kernel_id = kernel_id


@pytest.fixture
def clock(monkeypatch):
    fake = FakeClock()
    monkeypatch.setattr(GuardedKernelWebsocketConnection, "clock", staticmethod(fake))
    monkeypatch.setattr(GuardedKernelWebsocketConnection, "_buckets", {})
    return fake


def _connection(kernel_id: str, *, burst: int = 20, per_second: float = 5.0) -> GuardedKernelWebsocketConnection:
    return GuardedKernelWebsocketConnection(parent=KernelManager(kernel_id), burst_messages=burst,
                                            messages_per_second=per_second)


def _taken(connection: GuardedKernelWebsocketConnection, asked: int) -> int:
    return sum(connection._take_token() for _ in range(asked))


def test_a_burst_passes_then_the_bucket_refills_at_its_rate(clock):
    ws = _connection(uuid.uuid4().hex)
    assert _taken(ws, 60) == 20  # a full bucket: the burst, then nothing
    assert _taken(ws, 1) == 0
    clock.advance(1.0)  # 5 a second
    assert _taken(ws, 60) == 5
    clock.advance(0.1)  # half a token: not yet one
    assert _taken(ws, 1) == 0
    clock.advance(0.1)  # 0.5 + 0.5 = 1 token
    assert _taken(ws, 5) == 1


def test_a_long_pause_refills_to_the_burst_and_no_more(clock):
    ws = _connection(uuid.uuid4().hex)
    assert _taken(ws, 20) == 20
    clock.advance(3600.0)  # an hour idle: 18,000 tokens of refill, capped at the burst
    assert _taken(ws, 100) == 20


def test_the_rate_is_per_kernel_not_per_connection(clock):
    kernel = uuid.uuid4().hex
    first, second = _connection(kernel), _connection(kernel)
    assert _taken(first, 15) + _taken(second, 15) == 20  # one bucket for both
    clock.advance(2.0)
    assert _taken(second, 60) == 10  # 2 s x 5/s, whichever connection asks
    other = _connection(uuid.uuid4().hex)  # another kernel has its own
    assert _taken(other, 60) == 20


def test_the_default_clock_is_the_monotonic_one():
    import time

    assert GuardedKernelWebsocketConnection.clock is time.monotonic
