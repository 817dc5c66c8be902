"""explorer/hosting/server/pool_wake.py: a replacement sleeping out Voila's fill delay starts when a viewer takes it.

Voila's pool holds the replacement as a task that sleeps ``fill_delay`` seconds before it starts a kernel; the
real-server test is tests/hosting/test_workshop_class.py (4 students on one lesson, 2 of them past the pool).
Here the tasks are plain coroutines standing in for the kernel start, on the patched ``wait_before``.
"""

from __future__ import annotations

import asyncio
import logging

from clients import run_async
from explorer.hosting.server import pool_wake


class _Pools:
    """The part of Voila's kernel manager pool_wake uses: ``_pools`` (found through
    ``upstream_server.kernel_pools``, which asks for ``kernel_pools_config`` first) and ``get_rendered_notebook``."""

    def __init__(self):
        self.kernel_pools_config: dict = {}
        self._pools: dict[str, list] = {}
        self.taken: list = []

    async def get_rendered_notebook(self, notebook_name, *args, **kwargs):
        task = self._pools[notebook_name].pop(0)  # Voila takes the first and awaits it
        self.taken.append(await task)
        return self.taken[-1]


def test_a_taken_replacement_starts_at_once_and_ready_kernels_go_first():
    async def scenario():
        started = []

        async def kernel(name):
            started.append(name)
            return name

        km = _Pools()
        check = pool_wake.attach(km, logging.getLogger("test"))
        ready = asyncio.ensure_future(pool_wake.wait_before(0, kernel("ready")))
        await asyncio.sleep(0.01)
        sleeping = asyncio.ensure_future(pool_wake.wait_before(600, kernel("replacement")))
        await asyncio.sleep(0.01)
        km._pools["nb"] = [sleeping, ready]  # the sleeping one first: a viewer still gets the ready one
        assert pool_wake.take_order(ready) == 0 and pool_wake.take_order(sleeping) == 2
        assert await km.get_rendered_notebook("nb") == "ready"
        assert started == ["ready"]  # the replacement still sleeps
        # the next viewer takes the sleeping replacement: it starts now, not in 600 s
        got = await asyncio.wait_for(km.get_rendered_notebook("nb"), timeout=30)
        assert got == "replacement" and started == ["ready", "replacement"]
        check.cancel()

    run_async(scenario())


def test_waking_a_finished_or_started_task_does_nothing():
    async def scenario():
        async def kernel():
            await asyncio.sleep(0.05)
            return 1

        task = asyncio.ensure_future(pool_wake.wait_before(0, kernel()))
        await asyncio.sleep(0.01)
        assert not pool_wake.sleeping(task) and pool_wake.take_order(task) == 1  # starting
        assert pool_wake.wake(task) is False
        assert await task == 1
        assert pool_wake.take_order(task) == 0 and pool_wake.wake(task) is False

    run_async(scenario())


def test_after_a_quiet_spell_every_sleeping_replacement_starts(monkeypatch):
    """No pool kernel taken for QUIET_AFTER_S and the load low: the replacements start (a clock stands in)."""
    monkeypatch.setattr(pool_wake, "CHECK_EVERY_S", 0.01)

    async def scenario():
        now = [0.0]
        started = []

        async def kernel(name):
            started.append(name)
            return name

        km = _Pools()
        load = [5.0]
        check = pool_wake.attach(km, logging.getLogger("test"), clock=lambda: now[0], load=lambda: load[0])
        km._pools["nb"] = [asyncio.ensure_future(pool_wake.wait_before(600, kernel(i))) for i in range(3)]
        now[0] = pool_wake.QUIET_AFTER_S + 1
        await asyncio.sleep(0.1)
        assert started == []  # quiet, but the machine is loaded: the rush may still be rendering
        load[0] = 0.2
        for _ in range(200):
            if len(started) == 3:
                break
            await asyncio.sleep(0.01)
        assert sorted(started) == [0, 1, 2]
        check.cancel()

    run_async(scenario())
