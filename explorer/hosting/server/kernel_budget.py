"""A CPU budget per kernel for the page's widget messages, with the newest value of each control kept.

Each widget message is cheap to send and costs the kernel up to 0.4 CPU-s (a
tab switch 0.15, a region change 0.2, a Plan budget change 0.27-0.39; issue
39). Under the websocket's limit of 50 messages a second, 20 tab switches a
second held a kernel at 100% of a core for a minute and for 132 s after the
sender stopped; no single message was long, so the warden freed nothing.

:class:`KernelGate` forwards a page's widget messages (``comm_msg``, other
than the page's heartbeat) to the kernel

* one at a time: the next waits until the kernel has reported ``idle`` for the
  one before (its ``status`` message, seen on its way to the page), or
  :data:`IN_FLIGHT_MAX_S` has passed;
* within a CPU budget: only while the kernel's own CPU time over the last
  :data:`WINDOW_S` seconds (``/proc/<pid>/stat``, counted from the page's first
  widget message, so the render is not charged) is under :data:`CPU_SHARE` of
  that window.

What waits is coalesced (:class:`Pending`): a control's newer value replaces
the older one still waiting (a widget ``update`` replaces the waiting update
of the same widget and keys), so the kernel ends at the viewer's last choice
and never works through a backlog. Other waiting messages (button clicks,
state requests) keep their order, at most :data:`MAX_WAITING` of them.

The bound: over any window of :data:`WINDOW_S`, a kernel spends at most
``CPU_SHARE * WINDOW_S`` CPU-s on widget messages plus the one message that
was under way when the budget ran out. ``CPU_SHARE`` is 0.25: four viewers
at their budget fill one core, and a viewer working normally (a change every
few seconds) never meets it (2.5 CPU-s in 10 s is six Plan budget changes).
"""

from __future__ import annotations

import os
import time
from collections import OrderedDict, deque
from pathlib import Path

__all__ = ["CPU_SHARE", "WINDOW_S", "IN_FLIGHT_MAX_S", "MAX_WAITING", "KernelGate", "Pending", "cpu_seconds"]

CPU_SHARE = 0.25  # of one core, over WINDOW_S (see the module docstring)
WINDOW_S = 10.0  # [s]
IN_FLIGHT_MAX_S = 5.0  # [s] a message whose idle status never came (its page closed) holds the next no longer
MAX_WAITING = 64  # waiting messages of one kernel other than coalesced updates; further ones are dropped
_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float | None:
    """User and system CPU time of a process [s], None when it is gone (``/proc/<pid>/stat``)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / _TICKS


class _Kernel:
    """What the gate keeps for one kernel."""

    def __init__(self) -> None:
        self.samples: deque[tuple[float, float]] = deque()  # (time [s], CPU [s]) within the window
        self.in_flight: str | None = None  # the msg_id forwarded last, until its idle status
        self.in_flight_since = 0.0


class KernelGate:
    """When each kernel may get its next widget message (see the module docstring).

    Parameters
    ----------
    cpu_of : callable
        ``cpu_of(kernel_id)``: the kernel process's CPU time so far [s], or None when unknown.
    clock : callable
        The time [s] (``time.monotonic``; tests may pass another).
    """

    def __init__(self, cpu_of, *, share: float = CPU_SHARE, window: float = WINDOW_S, clock=time.monotonic):
        self.cpu_of = cpu_of
        self.share = share
        self.window = window
        self.clock = clock
        self._kernels: dict[str, _Kernel] = {}

    def used(self, kernel_id: str) -> float:
        """CPU-s the kernel used over the last window (since its first widget message, if later) [s]."""
        state = self._kernels.setdefault(kernel_id, _Kernel())
        now, cpu = self.clock(), self.cpu_of(kernel_id)
        if cpu is None:
            return 0.0
        state.samples.append((now, cpu))
        while len(state.samples) > 2 and state.samples[1][0] <= now - self.window:
            state.samples.popleft()  # keeps the last sample at or before the window's start
        return cpu - state.samples[0][1]

    def may_send(self, kernel_id: str) -> bool:
        """Whether a widget message may go to the kernel now (none in flight, budget left)."""
        state = self._kernels.setdefault(kernel_id, _Kernel())
        if state.in_flight is not None and self.clock() - state.in_flight_since < IN_FLIGHT_MAX_S:
            return False
        return self.used(kernel_id) < self.share * self.window

    def sent(self, kernel_id: str, msg_id: str) -> None:
        """Note that the widget message ``msg_id`` went to the kernel."""
        state = self._kernels.setdefault(kernel_id, _Kernel())
        state.in_flight, state.in_flight_since = msg_id, self.clock()

    def status(self, kernel_id: str, parent_id: str, execution_state: str) -> bool:
        """Note a status message of the kernel; True when it ended the message in flight."""
        state = self._kernels.get(kernel_id)
        if state is None or execution_state != "idle" or state.in_flight != parent_id:
            return False
        state.in_flight = None
        return True

    def forget(self, live) -> None:
        """Drop kernels not in ``live``."""
        for kernel_id in [k for k in self._kernels if k not in live]:
            del self._kernels[kernel_id]


class Pending:
    """A kernel's widget messages that wait for the gate: a control's newest value replaces the waiting one."""

    def __init__(self) -> None:
        self._waiting: OrderedDict = OrderedDict()  # key -> (msg_id, frame)
        self._serial = 0

    def __len__(self) -> int:
        return len(self._waiting)

    def add(self, key, msg_id: str, frame: bytes) -> bool:
        """Queue ``frame``; ``key`` None keeps it in order, else it replaces a waiting frame of that key.

        False when it was dropped (:data:`MAX_WAITING` messages without a key already wait).
        """
        if key is None:
            if sum(1 for k in self._waiting if k[0] == "order") >= MAX_WAITING:
                return False
            self._serial += 1
            key = ("order", self._serial)
        else:
            key = ("control", key)
            self._waiting.pop(key, None)  # the newer value takes the older one's place at the end
        self._waiting[key] = (msg_id, frame)
        return True

    def pop(self) -> tuple[str, bytes]:
        """The oldest waiting (msg_id, frame)."""
        return self._waiting.popitem(last=False)[1]
