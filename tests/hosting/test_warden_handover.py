"""The warden's busy limit counts from the moment a kernel becomes a viewer's, not from its time in the pool.

A preheated kernel runs the notebook as soon as the pool starts it; the notebook then waits, busy on that one
message, for a viewer's query string. Found by the Plan/Models browser tests (issue 27): after a quiet minute in
the pool the next viewer's kernel was freed at once ("busy on one message for 87 s, over the limit of 60 s") and
the page never loaded. Driven here on a fake clock and a stand-in kernel manager, with no server.
"""

from __future__ import annotations

import logging

import pytest

import clients as cl

from explorer.hosting.server import seats


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class FakeKernelManager:
    """Just what the warden calls: the live ids, a kernel (no activity stream, no process) and shutdown."""

    def __init__(self, ids) -> None:
        self.ids = set(ids)
        self.shut_down: list[str] = []

    def list_kernel_ids(self):
        return list(self.ids)

    def get_kernel(self, kernel_id):
        if kernel_id not in self.ids:
            raise KeyError(kernel_id)
        return type("Kernel", (), {"execution_state": "busy"})()

    async def shutdown_kernel(self, kernel_id, now=False):
        self.ids.discard(kernel_id)
        self.shut_down.append(kernel_id)


@pytest.fixture
def warden_and_clock(monkeypatch):
    monkeypatch.setattr(seats, "SEATS", {})
    clock = FakeClock()
    km = FakeKernelManager({"pooled"})
    warden = seats.Warden(km, logging.getLogger("test-warden"), interval=1.0, page_idle_timeout=0,
                          busy_cull_timeout=0, kernel_memory_mb=0, connections=lambda _k: 1,
                          busy_message_limit=60.0, clock=clock)
    return warden, clock, km


def test_a_kernel_busy_in_the_pool_is_not_freed_when_a_viewer_takes_it(warden_and_clock):
    warden, clock, km = warden_and_clock
    warden.busy_clock.status("pooled", "run-notebook", "busy")  # the pool runs the notebook, which waits
    clock.now += 267.0  # the longest wait seen in the pool
    cl.run_async(warden.check())
    assert km.shut_down == []  # no seat yet: a pool kernel is never judged
    seats.SEATS["pooled"] = seats.Seat("127.0.0.1", b"x", since=clock.now, last_interaction=clock.now)
    clock.now += 5.0  # the viewer's notebook run goes on: 5 s into its own time
    cl.run_async(warden.check())
    assert km.shut_down == []


def test_the_viewers_own_minute_still_counts(warden_and_clock):
    warden, clock, km = warden_and_clock
    warden.busy_clock.status("pooled", "run-notebook", "busy")
    clock.now += 267.0
    seats.SEATS["pooled"] = seats.Seat("127.0.0.1", b"x", since=clock.now, last_interaction=clock.now)
    clock.now += 61.0  # the same message is still unfinished 61 s after the hand-over: over the limit of 60 s
    cl.run_async(warden.check())
    assert km.shut_down == ["pooled"]


def test_a_message_started_after_the_hand_over_is_timed_from_its_start(warden_and_clock):
    warden, clock, km = warden_and_clock
    seats.SEATS["pooled"] = seats.Seat("127.0.0.1", b"x", since=clock.now, last_interaction=clock.now)
    clock.now += 100.0
    warden.busy_clock.status("pooled", "a-click", "busy")
    clock.now += 59.0
    cl.run_async(warden.check())
    assert km.shut_down == []
    clock.now += 2.0
    cl.run_async(warden.check())
    assert km.shut_down == ["pooled"]


class OneBrokenKernelManager(FakeKernelManager):
    """A kernel manager one of whose kernels cannot be read (as a kernel half torn down may be)."""

    def get_kernel(self, kernel_id):
        if kernel_id == "broken":
            raise RuntimeError("a kernel that cannot be read")
        return super().get_kernel(kernel_id)


def test_one_kernel_that_cannot_be_checked_does_not_spare_the_others(monkeypatch, caplog):
    """Before, the first exception ended the whole pass: every kernel after it in the list went unchecked, for good
    if the failure repeats (found looking for why CI's never-connected arrivals outlived the wait)."""
    monkeypatch.setattr(seats, "SEATS", {})
    clock = FakeClock()
    km = OneBrokenKernelManager(["broken", "arrival"])
    km.list_kernel_ids = lambda: ["broken", "arrival"] if "arrival" in km.ids else ["broken"]  # the broken one first
    warden = seats.Warden(km, logging.getLogger("test-warden"), interval=1.0, page_idle_timeout=0,
                          busy_cull_timeout=0, kernel_memory_mb=0, connections=lambda _k: 0, connect_timeout=20.0,
                          clock=clock)
    for kernel_id in ("broken", "arrival"):
        seats.SEATS[kernel_id] = seats.Seat("127.0.0.1", b"x", since=clock.now, last_interaction=clock.now)
        seats.SEATS[kernel_id].delivered = clock.now  # the page was sent; no websocket ever opened
    clock.now += 21.0
    with caplog.at_level(logging.WARNING, logger="test-warden"):
        cl.run_async(warden.check())
    assert km.shut_down == ["arrival"]
    assert "Seat check of kernel broken failed" in caplog.text


def test_a_kernel_that_keeps_failing_its_check_logs_one_traceback(monkeypatch, caplog):
    """The Warden checks every 5 s: a kernel whose check fails on every pass logged a traceback each time (about
    720 an hour). The first failure keeps its traceback, the repeats are one line each, and a kernel that goes and
    comes back fails loudly again."""
    monkeypatch.setattr(seats, "SEATS", {})
    km = OneBrokenKernelManager(["broken"])
    warden = seats.Warden(km, logging.getLogger("test-warden-repeat"), interval=1.0, page_idle_timeout=0,
                          busy_cull_timeout=0, kernel_memory_mb=0, connections=lambda _k: 0, clock=FakeClock())
    with caplog.at_level(logging.WARNING, logger="test-warden-repeat"):
        for _ in range(3):
            cl.run_async(warden.check())
    failures = [r for r in caplog.records if "Seat check of kernel broken failed" in r.getMessage()]
    assert len(failures) == 3
    assert [bool(r.exc_info) for r in failures] == [True, False, False]
    assert "RuntimeError: a kernel that cannot be read" in failures[1].getMessage()
    km.list_kernel_ids = lambda: []  # the kernel goes: forgotten
    cl.run_async(warden.check())
    km.list_kernel_ids = lambda: ["broken"]  # a kernel of that id again: its first failure is logged whole
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="test-warden-repeat"):
        cl.run_async(warden.check())
    assert [bool(r.exc_info) for r in caplog.records if "broken" in r.getMessage()] == [True]
