"""The warden's memory check reads a kernel's private memory only when its resident size could be over the limit.

A process's private pages (USS) are part of its resident ones (RSS), so a process resident within the limit is
within it; ``/proc/<pid>/smaps_rollup`` (USS) walks the page tables and costs 8-9 ms a kernel, ``/proc/<pid>/status``
(RSS) about 0.1 ms (docs/hosting-history.md, "Where a forked viewer's CPU goes").
"""

from __future__ import annotations

import os

from explorer.hosting.server import seats


def test_within_the_limit_the_resident_size_settles_it(monkeypatch):
    read = []
    monkeypatch.setattr(seats, "own_memory_mb", lambda pid: read.append(pid) or 0.0)
    resident = seats.rss_mb(os.getpid())
    assert resident > 0
    assert seats.memory_for_limit_mb(os.getpid(), resident * 10) == resident  # an upper bound, within the limit
    assert read == []  # smaps_rollup not read


def test_over_the_resident_bound_the_private_memory_is_read():
    pid = os.getpid()
    private = seats.memory_for_limit_mb(pid, 0.0)  # any process is resident above 0 MB
    assert 0 < private <= seats.rss_mb(pid) * 1.01  # USS <= RSS (read a moment apart)


def test_a_process_that_is_gone_holds_nothing():
    assert seats.memory_for_limit_mb(2**22 + 12345, 1024.0) == 0.0  # above Linux's default pid_max
