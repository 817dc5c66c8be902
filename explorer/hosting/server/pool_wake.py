"""A viewer never waits out a pool's fill delay: a replacement still sleeping starts when a viewer takes it.

Voila refills a preheated pool after each viewer takes a kernel by putting a *sleeping* replacement in the
pool: a task that waits ``fill_delay`` seconds (the workshop's 600, so that refills do not compete with the
rush), then starts a kernel and runs the notebook. The pool counts it as a kernel, so the next viewer pops it
and waits with it: in issue 42, 30 students opening the English lesson 1 at ``make workshop``'s defaults got
15 kernels at once and 15 pages that waited 601-606 s, and any reload of lesson 1 hung for 10 minutes.

:func:`install` changes two things, for every pool of the server:

* a viewer who takes a kernel gets a ready one first (the pool is reordered: ready, starting, sleeping), and a
  sleeping one is woken (its kernel starts at once): it waits a kernel's start and notebook run, as a viewer
  with no pool does, never the fill delay;
* once no viewer has taken a pool kernel for :data:`QUIET_AFTER_S` and the machine's load allows
  (:data:`MAX_LOAD_PER_CORE`), every sleeping replacement is woken: after a rush the pools are full again
  within a minute, not ten.
"""

from __future__ import annotations

import asyncio
import os
import time
import weakref

import voila.voila_kernel_manager as vkm

from explorer.hosting.server import upstream_server

__all__ = ["install", "attach", "wake", "sleeping", "take_order", "QUIET_AFTER_S", "MAX_LOAD_PER_CORE"]

#: No pool kernel taken for this long [s]: the rush is over, the sleeping replacements start. A class arrives
#: within about 10 s (benchmarks/workshop_rush.py --window 10); three times that is quiet.
QUIET_AFTER_S = 30.0
#: ... and only while the 1-minute load average per core is below this (the demand pool's default rule,
#: explorer/hosting/server/demand_pool.py: refills must not slow the viewers still rendering).
MAX_LOAD_PER_CORE = 1.0
CHECK_EVERY_S = 5.0

_WAKE: "weakref.WeakKeyDictionary[asyncio.Task, asyncio.Event]" = weakref.WeakKeyDictionary()
_original_wait_before = vkm.wait_before


def _event(task: asyncio.Task) -> asyncio.Event:
    event = _WAKE.get(task)
    if event is None:
        event = _WAKE[task] = asyncio.Event()
    return event


async def wait_before(delay: float, aw):
    """Voila's ``wait_before`` (sleep ``delay`` [s], then await ``aw``), ended early by :func:`wake`."""
    task = asyncio.current_task()
    event = _event(task) if task is not None else asyncio.Event()
    if delay and delay > 0 and not event.is_set():
        try:
            await asyncio.wait_for(event.wait(), delay)
        except asyncio.TimeoutError:
            pass
    event.set()  # no longer sleeping
    return await aw


def sleeping(task: asyncio.Task) -> bool:
    """Whether ``task`` (a pool item) is a replacement still waiting out its fill delay (or not yet run)."""
    if task.done():
        return False
    event = _WAKE.get(task)
    return event is None or not event.is_set()


def wake(task: asyncio.Task) -> bool:
    """Start ``task``'s kernel now if it is sleeping; True if it was."""
    if not sleeping(task):
        return False
    _event(task).set()
    return True


def take_order(task: asyncio.Task) -> int:
    """Sort key of a pool item for a viewer: 0 ready, 1 starting (kernel and notebook run under way), 2 sleeping."""
    if task.done():
        return 0 if not task.cancelled() and task.exception() is None else 3
    return 2 if sleeping(task) else 1


def install() -> None:
    """Make Voila's pools use :func:`wait_before` (the fill delay a viewer or :func:`wake` can end)."""
    upstream_server.replace_function(vkm, "wait_before", wait_before)


def attach(kernel_manager, log, *, clock=time.monotonic, load=lambda: os.getloadavg()[0] / (os.cpu_count() or 1)):
    """Make ``kernel_manager`` hand out ready kernels first and wake what a viewer takes; start the quiet check.

    Returns the quiet check's task (None when the server preheats nothing).
    """
    pools = upstream_server.kernel_pools(kernel_manager)  # raises if Voila preheats but keeps no _pools
    if pools is None:
        return None
    take = kernel_manager.get_rendered_notebook
    last_take = [clock()]

    async def get_rendered_notebook(notebook_name, *args, **kwargs):
        pool = pools.get(notebook_name)
        if pool:
            pool.sort(key=take_order)  # stable: the oldest ready kernel first, as Voila takes them
            if wake(pool[0]):
                log.info("A viewer took a pool kernel of %s still waiting its fill delay: started now",
                         notebook_name)
        last_take[0] = clock()
        return await take(notebook_name, *args, **kwargs)

    kernel_manager.get_rendered_notebook = get_rendered_notebook

    async def quiet_check():
        while True:
            await asyncio.sleep(CHECK_EVERY_S)
            try:
                if clock() - last_take[0] < QUIET_AFTER_S or load() >= MAX_LOAD_PER_CORE:
                    continue
                woken = 0
                for notebook, pool in list(pools.items()):
                    for task in list(pool):
                        woken += wake(task)
                if woken:
                    log.info("No pool kernel taken for %.0f s: %d waiting replacements started", QUIET_AFTER_S,
                             woken)
            except Exception:  # noqa: BLE001 - the check must keep running
                log.warning("Pool wake check failed", exc_info=True)

    return asyncio.ensure_future(quiet_check())
