"""A preheated-kernel pool that follows demand: it grows when viewers arrive and shrinks when they stop.

Voila's pool (``voila.voila_kernel_manager``) keeps a fixed number of kernels per notebook that have already
run the notebook, and refills it after each viewer takes one. A fixed size is either too small for a class or
a shared link arriving at once (each viewer past the pool waits for a kernel and the notebook run), or holds
memory for nobody the rest of the day. :class:`DemandPool` sets the size of each notebook's pool every
``interval`` seconds by one rule, :func:`pool_target`:

* the configured size (``--pool_size``, ``kernel_pools_config``; voila.json's 4) is the floor;
* while viewers arrive, the pool is at least the number of page loads of that notebook in the last
  ``window`` seconds (the demand of the last minute is what the next minute is planned for), and never
  smaller than it already is;
* when no viewer has arrived for ``idle_after`` seconds, it goes back to the floor: the extra kernels that
  nobody took are shut down;
* one address counts for at most ``seats_per_address`` arrivals (the kernels it may hold): page loads and
  beacons in a loop from one address grew the pool from 4 to 40 (issue 39);
* it grows only as far as the memory budget allows: ``memory_fraction`` of the memory the machine (or the
  container's cgroup) has available, in total over the resizes, divided by what one kernel holds of its own (the median USS of this
  server's kernels, measured each time; ``kernel_mb`` before there is one), and never past ``max_size``
  (default: the server's ``max_kernels``, the number of viewers it would serve at once);
* a lesson in two languages (``lessons/en/X.ipynb`` and ``lessons/zh/X.ipynb``, :func:`language_floors`):
  once one language has had no arrival for ``idle_after`` seconds while its sibling has had some, its floor
  moves to the sibling (its idle pool kernels are shut down and the sibling's pool grows by as many, within
  the memory and CPU rules below); the floor comes back on the next arrival in that language. A class that
  opens only the English lesson 1 gets the whole preheated pool in English (issue 42: 15 + 15 by language
  left half the class waiting);
* it grows only while the CPU has room: the machine's CPU was busy at most ``max_cpu_busy`` (0.5) of the
  time since the last resize, and the 1-minute load average per core is below ``max_load_per_core`` (1.0).
  Pool kernels started during a rush run the notebook on the same cores as the rush's viewers and slowed
  them (docs/deploy.md); the pool grows once the rush is served, for the next wave. The load average alone
  lags by several seconds: on a quiet machine it let a rush of 30 grow the pool from 4 to 23 during the
  rush, which doubled the rush's p95 (``benchmarks/kernel_rush.py``).

Arrivals are the page loads Voila's page handler asks the pool about (its ``get_pool_size`` call, once per
page that starts a kernel; a viewer refused by the seat cap never gets there). Settings: section
``DemandPool`` of voila.json or ``--DemandPool.<name>=`` on the command line; ``--DemandPool.enabled=False``
keeps Voila's fixed pool. The pool must be on (``preheat_kernel: true``).
"""

from __future__ import annotations

import asyncio
import collections
import logging
import math
import os
import re
import statistics
import time
from pathlib import Path
from typing import Any

import psutil
from traitlets import Bool, Float, Int, validate
from traitlets.config import LoggingConfigurable

from explorer.hosting.server import upstream_server
from explorer.hosting.server.seats import ARRIVING_FROM, is_exempt, own_memory_mb

__all__ = ["DemandPool", "DemandPoolSettingError", "available_memory_mb", "language_floors", "lesson_language",
           "pool_target"]

USS_SAMPLE = 8  # kernels whose private memory is read for the median (the newest)

# the log of the notebook runs of pool kernels shut down: a logger outside logging's registry, so that no
# logging configuration (traitlets' dictConfig) turns it back on
_DISCARDED = logging.Logger("explorer.hosting.server.demand_pool.discarded", level=logging.CRITICAL + 1)
_DISCARDED.addHandler(logging.NullHandler())
_DISCARDED.propagate = False


def pool_target(*, arrivals: int, current: int, floor: int, idle_s: float, idle_after_s: float,
                available_mb: float, kernel_mb: float, memory_fraction: float, max_size: int,
                cpu_busy: bool = False, moved_in: int = 0) -> int:
    """The size a notebook's pool should have now [kernels].

    Parameters
    ----------
    arrivals : int
        Page loads of the notebook in the last window [viewers].
    current : int
        The pool's size now, as last set [kernels].
    floor : int
        The configured pool size, below which the pool never goes [kernels].
    idle_s : float
        Time since the notebook's last arrival [s] (``math.inf`` if none yet).
    idle_after_s : float
        After this long without an arrival the pool goes back to ``floor`` [s].
    available_mb : float
        Memory the machine (or container) has available now [MB].
    kernel_mb : float
        Memory one kernel holds of its own (USS) [MB]; must be > 0.
    memory_fraction : float
        Share of ``available_mb`` new pool kernels may take, in [0, 1].
    max_size : int
        Largest pool [kernels]; 0 for no cap besides memory.
    cpu_busy : bool
        The machine's CPU is busy: the pool does not grow (its new kernels would run the notebook at the
        same time as the viewers of a rush, on the same cores), but keeps its size.
    moved_in : int
        The floor of a sibling language moved to this pool (:func:`language_floors`) [kernels]: wanted as
        the floor is, idle or not, but reached only within the memory budget, ``max_size`` and the CPU rule
        (the configured ``floor`` alone is kept whatever they say).

    Returns
    -------
    int
        ``max(floor, current, arrivals)`` while viewers arrive (``max(floor, current)`` while the CPU is busy),
        ``floor`` once idle; growth is bounded by ``max_size`` and by a memory budget that is a total:
        ``min(current, floor) + floor(memory_fraction * (available_mb / kernel_mb + above))``, where ``above``
        is ``max(0, current - floor)``, the pool's kernels above its floor (their memory is no longer in
        ``available_mb``): however many resizes it takes, the kernels above the floor hold at most
        ``memory_fraction`` of the memory there was before they started. Memory never
        forces a shrink (the pool's own kernels are already out of ``available_mb``), and the floor is
        kept even when memory is short or ``max_size`` is smaller (it was configured).
    """
    held = floor + max(moved_in, 0)  # the floor this pool holds now, its sibling's included
    if idle_s >= idle_after_s:
        wanted = held
    else:
        wanted = max(held, current) if cpu_busy else max(held, current, arrivals)
    if cpu_busy:
        wanted = min(wanted, max(floor, current))  # no growth past what it has
    # the budget is a total: the kernels the pool holds above its floor count against it, so that growing resize
    # after resize never takes more than memory_fraction of the memory there was (issue 39: "half the free
    # memory" applied per resize took 81% of it in 3 resizes)
    above_floor = max(0, current - floor)
    budget = math.floor(memory_fraction * (max(available_mb, 0.0) / kernel_mb + above_floor))
    room = max(current, min(current, floor) + budget)
    grown = min(wanted, room)
    if max_size > 0:
        grown = min(grown, max_size)
    return max(floor, grown)


_LESSON = re.compile(r"^(?P<before>.*/)?(?P<lang>en|zh)/(?P<name>[^/]+\.ipynb)$")


def lesson_language(notebook: str) -> tuple[str, str] | None:
    """(the lesson, its language) of a notebook in a language folder, None otherwise.

    >>> lesson_language("lessons/zh/01_flops_to_dollars.ipynb")
    ('lessons/*/01_flops_to_dollars.ipynb', 'zh')
    >>> lesson_language("claims.ipynb") is None
    True
    """
    found = _LESSON.match(notebook)
    if found is None:
        return None
    return f"{found['before'] or ''}*/{found['name']}", found["lang"]


def language_floors(configured: dict[str, int], idle_s: dict[str, float], idle_after_s: float,
                    dropped: frozenset[str] = frozenset()) -> tuple[dict[str, tuple[int, int]], frozenset[str]]:
    """The floors of one lesson's pools by language, after the languages its students open [kernels].

    Parameters
    ----------
    configured : dict
        Language -> the configured floor of the lesson's pool in it [kernels].
    idle_s : dict
        Language -> time since its last arrival [s], counted from the server's start when it had none.
    idle_after_s : float
        A language with no arrival for this long while a sibling had one gives its floor up [s].
    dropped : frozenset
        The languages that had given their floor up at the previous resize.

    Returns
    -------
    tuple
        (language -> (its own floor, the floor moved in from siblings), the languages that give theirs up).
        A language with an arrival in the last ``idle_after_s`` keeps its floor and is never dropped; one
        without gives its floor up while a sibling has one, and stays dropped (while the class is quiet)
        until its next arrival. The floors dropped go to the languages with arrivals (split evenly, the first
        in order taking the remainder), else to those not dropped: the floors add up to the configured total.
    """
    active = {lang for lang in configured if idle_s.get(lang, math.inf) < idle_after_s}
    now_dropped = set(dropped) - active
    if active:
        now_dropped |= {lang for lang in configured if idle_s.get(lang, math.inf) >= idle_after_s}
    if now_dropped >= set(configured):
        now_dropped = set()
    takers = sorted(active - now_dropped) or sorted(set(configured) - now_dropped)
    moved = sum(configured[lang] for lang in now_dropped)
    floors = {lang: (0, 0) if lang in now_dropped else (floor, 0) for lang, floor in configured.items()}
    for i, lang in enumerate(takers):
        share = moved // len(takers) + (1 if i < moved % len(takers) else 0)
        floors[lang] = (floors[lang][0], share)
    return floors, frozenset(now_dropped)


def _meminfo_available_mb(path: Path = Path("/proc/meminfo")) -> float | None:
    try:
        for line in path.read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def _cgroup_available_mb(root: Path = Path("/sys/fs/cgroup")) -> float | None:
    """The room left under this process's cgroup v2 memory limit [MB], None without a limit."""
    try:
        limit = (root / "memory.max").read_text().strip()
        if limit == "max":
            return None
        return (int(limit) - int((root / "memory.current").read_text())) / 2**20
    except (OSError, ValueError):
        return None


def available_memory_mb() -> float:
    """Memory available for new kernels [MB]: the smaller of MemAvailable and the cgroup's room (a pod's limit).

    In a container ``/proc/meminfo`` shows the node's memory, not the pod's limit; ``memory.max`` minus
    ``memory.current`` is what the kernel's OOM killer judges by. 0 when neither can be read.
    """
    found = [v for v in (_meminfo_available_mb(), _cgroup_available_mb()) if v is not None]
    return max(min(found), 0.0) if found else 0.0


def recent_cpu_busy() -> float:
    """Share of the machine's CPU time spent busy since the previous call, in [0, 1] (0.0 at the first call).

    :func:`psutil.cpu_percent` with no interval: all cores, read from ``/proc/stat``; in a container, the
    node's CPU, like the load average.
    """
    return psutil.cpu_percent(interval=None) / 100.0


def load_per_core() -> float:
    """The 1-minute load average per CPU core (runnable processes per core; 1.0: the cores are full)."""
    return os.getloadavg()[0] / (os.cpu_count() or 1)


class DemandPoolSettingError(ValueError):
    """A ``DemandPool`` setting out of its range; the message names the setting, the value and the range."""


#: setting -> (lowest, highest, whether the lowest is allowed) of the DemandPool settings that are numbers
_RANGES = {"interval": (0.0, math.inf, False), "window": (0.0, math.inf, False), "idle_after": (0.0, math.inf, False),
           "memory_fraction": (0.0, 1.0, True), "max_cpu_busy": (0.0, 1.0, True),
           "max_load_per_core": (0.0, math.inf, True), "kernel_mb": (0.0, math.inf, False),
           "uss_refresh": (0.0, math.inf, True)}


class DemandPool(LoggingConfigurable):
    """Resizes Voila's preheated pools by :func:`pool_target` (see the module docstring)."""

    enabled = Bool(True, config=True, help="Follow demand; False keeps Voila's fixed pool size.")
    interval = Float(2.0, config=True, help="How often the pools are resized [s].")
    window = Float(60.0, config=True, help="Arrivals are counted over this last stretch of time [s].")
    idle_after = Float(300.0, config=True, help="With no arrival for this long, a pool goes back to its "
                                                 "configured size [s].")
    memory_fraction = Float(0.5, config=True, help="Share of the available memory (MemAvailable, or the "
                                                   "cgroup's room) that new pool kernels may take.")
    kernel_mb = Float(140.0, config=True, help="What one kernel holds of its own (USS) before one can be "
                                               "measured [MB]: a viewer's kernel after its page drew the charts, "
                                               "140 MB on 2 Dec 2026 (docs/hosting-history.md); kept above "
                                               "today's 114.6 MB (docs/deploy.md) so that the pool guesses "
                                               "small until it has measured a kernel.")
    uss_refresh = Float(30.0, config=True, help="A measured kernel USS is reused this long [s]: reading it walks "
                                                "a kernel's page tables (8-9 ms of CPU for each of the newest "
                                                f"{USS_SAMPLE} kernels read).")
    max_load_per_core = Float(1.0, config=True, help="The pool grows only while the 1-minute load average per "
                                                     "core is below this; 0: never grows. Pool kernels started "
                                                     "during a rush compete with its viewers for the CPU.")
    max_cpu_busy = Float(0.5, config=True, help="The pool grows only while the machine's CPU was busy at most "
                                                "this share of the time since the last resize (read every "
                                                "resize); 1: never stops growth. Half the cores left to viewers.")
    max_size = Int(-1, config=True, help="Largest pool per notebook [kernels]; 0: memory alone bounds it; "
                                         "-1 (default): the server's max_kernels.")

    @validate(*_RANGES)
    def _in_range(self, proposal):
        name, value = proposal["trait"].name, proposal["value"]
        low, high, low_allowed = _RANGES[name]
        if not (low < value <= high or (low_allowed and value == low)):
            raise DemandPoolSettingError(
                f"DemandPool.{name} = {value!r}: allowed is a number from {low:g}{'' if low_allowed else ' (excluded)'}"
                f" to {high:g}")
        return value

    def __init__(self, kernel_manager, *, clock=time.monotonic, memory=available_memory_mb, load=load_per_core,
                 busy=recent_cpu_busy, **kwargs):
        super().__init__(**kwargs)
        self.km = kernel_manager
        self.clock = clock
        self.memory = memory
        self.load = load
        self.busy = busy
        self._arrivals: dict[str, collections.deque] = collections.defaultdict(collections.deque)
        self._addresses: dict[str, collections.deque] = collections.defaultdict(collections.deque)  # by arrival
        self._floors: dict[str, int] = {}
        self._sizes: dict[str, int] = {}
        self._uss: tuple[float, float] | None = None  # (when [s], median USS [MB])
        self._dropped: dict[str, frozenset[str]] = {}  # lesson -> the languages whose floor moved to a sibling
        self._since = clock()  # a language never opened has been idle since the pool started
        if self.enabled:
            self._count_arrivals()

    # ------------------------------------------------------------------ arrivals
    def _count_arrivals(self) -> None:
        """Note each page load: Voila's page handler calls ``get_pool_size(notebook)`` once per page."""
        asked = self.km.get_pool_size

        def get_pool_size(notebook_name: str) -> int:
            self.arrived(notebook_name)
            return asked(notebook_name)

        self.km.get_pool_size = get_pool_size

    def arrived(self, notebook: str, address: str | None = None) -> None:
        """Count one viewer's page load of ``notebook`` from ``address`` (default: the page request's,
        :data:`explorer.hosting.server.seats.ARRIVING_FROM`), forgetting those older than the rule looks at."""
        times, now = self._arrivals[notebook], self.clock()
        times.append(now)
        addresses = self._addresses[notebook]
        addresses.append(address if address is not None else ARRIVING_FROM.get())
        while now - times[0] > max(self.window, self.idle_after):
            times.popleft()
            addresses.popleft()

    def _counted(self, addresses) -> int:
        """Arrivals counted for the pool: at most ``seats_per_address`` of the server from one address
        (one address cannot hold more kernels, so its page loads ask for no more pool kernels), except from
        ``exempt_networks`` and page loads of unknown address."""
        per_address = int(getattr(self.parent, "seats_per_address", 0) or 0)
        if not per_address:
            return len(addresses)
        exempt = list(getattr(self.parent, "exempt_networks", []) or [])
        counts = collections.Counter(addresses)
        return sum(n if address is None or is_exempt(address, exempt) else min(n, per_address)
                   for address, n in counts.items())

    def arrivals(self, notebook: str) -> tuple[int, float]:
        """(page loads within the last ``window`` [viewers], time since the last one [s], inf if none)."""
        times = self._arrivals.get(notebook)
        if not times:
            return 0, math.inf
        addresses = self._addresses[notebook]
        now = self.clock()
        while times and now - times[0] > max(self.window, self.idle_after):
            times.popleft()  # older than anything the rule looks at
            addresses.popleft()
        if not times:
            return 0, math.inf
        recent = [a for t, a in zip(times, addresses) if now - t <= self.window]
        return self._counted(recent), now - times[-1]

    # ------------------------------------------------------------------ the pools
    def _configured(self, notebook: str) -> int:
        config = self.km.kernel_pools_config
        default = config.get("default", {})
        return int(config.get(notebook, default).get("pool_size", default.get("pool_size", 1)))

    def _set_size(self, notebook: str, size: int) -> None:
        config: dict[str, Any] = dict(self.km.kernel_pools_config)
        default = config.get("default", {})
        config[notebook] = {**config.get(notebook, default), "pool_size": size}
        self.km.kernel_pools_config = config

    def kernel_uss_mb(self) -> float:
        """Median private memory of this server's newest kernels [MB]; ``kernel_mb`` when none can be read.

        Read at most every ``uss_refresh`` seconds, from at most :data:`USS_SAMPLE` kernels.
        """
        now = self.clock()
        if self._uss is not None and now - self._uss[0] < self.uss_refresh:
            return self._uss[1]
        sizes = []
        for kernel_id in list(self.km.list_kernel_ids())[-USS_SAMPLE:]:
            try:
                pid = upstream_server.kernel_pid(self.km.get_kernel(kernel_id))
            except KeyError:
                continue
            if pid is not None and (mb := own_memory_mb(pid)) > 0:
                sizes.append(mb)
        if not sizes:
            return self.kernel_mb
        self._uss = (now, statistics.median(sizes))
        return self._uss[1]

    def _max_size(self) -> int:
        if self.max_size >= 0:
            return self.max_size
        return int(getattr(self.parent, "max_kernels", 0) or 0)

    async def resize(self) -> dict[str, int]:
        """Set every notebook's pool to its target now; grow at once, shut down kernels nobody took to shrink.

        A pool kernel that is still starting when the pool shrinks is shut down by a later resize, once started.

        Returns the sizes set, by notebook.
        """
        pools = upstream_server.kernel_pools(self.km) or {}
        notebooks = sorted(n for n in set(pools) | set(self._arrivals) if n is not None)
        busy = self.busy()  # read at every resize: the share since the last one, not since the last arrival
        kernel_mb = None
        floors = self._language_floors(notebooks)
        # the pools that give their floor up shrink first: their kernels' memory is free when the sibling grows
        for notebook in sorted(notebooks, key=lambda n: (floors.get(n, (1, 0)) != (0, 0), n)):
            configured = self._floors.setdefault(notebook, self._configured(notebook))
            floor, moved_in = floors.get(notebook, (configured, 0))
            current = self._sizes.get(notebook, configured)
            arrivals, idle_s = self.arrivals(notebook)
            waiting = len(pools.get(notebook, ()))
            if arrivals == 0 and current == floor + moved_in and waiting <= current:
                continue  # nothing to do (and no memory to read)
            if kernel_mb is None:
                kernel_mb = max(self.kernel_uss_mb(), 1.0)
            target = pool_target(arrivals=arrivals, current=current, floor=floor, idle_s=idle_s,
                                 idle_after_s=self.idle_after, available_mb=self.memory(), kernel_mb=kernel_mb,
                                 memory_fraction=self.memory_fraction, max_size=self._max_size(),
                                 cpu_busy=busy > self.max_cpu_busy or self.load() >= self.max_load_per_core,
                                 moved_in=moved_in)
            if target != current:
                last = "none since" if math.isinf(idle_s) else f"last {idle_s:.0f} s ago"
                self.log.info("Demand pool for %s: %d -> %d kernels (%d arrivals in %.0f s, %s; %.0f MB per kernel)",
                              notebook, current, target, arrivals, self.window, last, kernel_mb)
                self._sizes[notebook] = target
                self._set_size(notebook, target)
            if target > current:
                self.km.fill_if_needed(delay=0, notebook_name=notebook)
            elif waiting > target:  # kernels still starting when the pool shrank are shut down once ready
                await self._shrink(notebook, target)
        return dict(self._sizes)

    def _language_floors(self, notebooks: list[str]) -> dict[str, tuple[int, int]]:
        """Notebook -> (its floor, the floor moved in from a sibling language), for the lessons held in more than
        one language (:func:`language_floors`); logs each move."""
        lessons: dict[str, dict[str, str]] = collections.defaultdict(dict)
        for notebook in notebooks:
            if (found := lesson_language(notebook)) is not None:
                lessons[found[0]][found[1]] = notebook
        since = self.clock() - self._since
        floors: dict[str, tuple[int, int]] = {}
        for lesson, by_language in lessons.items():
            if len(by_language) < 2:
                continue
            configured = {lang: self._floors.setdefault(nb, self._configured(nb)) for lang, nb in by_language.items()}
            if not any(configured.values()):
                continue  # no floor to move (`make workshop`'s lessons after the first)
            idle = {lang: min(self.arrivals(nb)[1], since) for lang, nb in by_language.items()}
            before = self._dropped.get(lesson, frozenset())
            by_floor, dropped = language_floors(configured, idle, self.idle_after, before)
            if dropped != before:
                preheated = ", ".join(f"{lang} {sum(by_floor[lang])}" for lang in sorted(by_floor))
                if dropped:
                    self.log.info("Demand pool for %s: %s opened, %s not for %.0f s: preheated %s", lesson,
                                  "+".join(sorted(set(by_language) - dropped)), "+".join(sorted(dropped)),
                                  self.idle_after, preheated)
                else:
                    self.log.info("Demand pool for %s: every language opened again: preheated %s", lesson, preheated)
                self._dropped[lesson] = dropped
            floors.update({by_language[lang]: pair for lang, pair in by_floor.items()})
        return floors

    async def _shrink(self, notebook: str, size: int) -> None:
        """Shut down the newest started, untaken pool kernels until at most ``size`` remain (not those starting)."""
        pool = (upstream_server.kernel_pools(self.km) or {}).get(notebook, [])
        extra = len(pool) - size
        for task in reversed(list(pool)):
            if extra <= 0:
                break
            if not task.done() or task.cancelled() or task.exception() is not None:
                continue  # still starting: the next resize sees it
            content = task.result()
            try:
                pool.remove(task)
            except ValueError:
                continue  # a viewer took it meanwhile
            extra -= 1
            # Its notebook run waits for a viewer's query string (voila.utils.get_query_string). Ended, nbclient
            # reports the wait as "Kernel died" and Voila logs it as a failed cell: not a failure here.
            renderer = content.get("renderer")
            for part in (renderer, getattr(renderer, "executor", None)):
                if part is not None:
                    part.log = _DISCARDED
            content["task"].cancel()
            await asyncio.wait({content["task"]}, timeout=5.0)
            try:
                await self.km.shutdown_kernel(content["kernel_id"], now=True)
            except Exception:  # noqa: BLE001 - already gone
                self.log.debug("Pool kernel %s was already gone", content["kernel_id"])

    # ------------------------------------------------------------------ the loop
    def start(self) -> asyncio.Task | None:
        """Run :meth:`resize` every ``interval`` seconds on the current event loop (None when off)."""
        # a kernel manager that preheats but whose pools cannot be found raises (UpstreamChanged), never "off"
        if not self.enabled or upstream_server.kernel_pools(self.km) is None:
            if self.enabled:
                self.log.info("Demand pool off: the server preheats no kernels (preheat_kernel is false)")
            return None
        return asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            try:
                await self.resize()
            except Exception:  # noqa: BLE001 - the pool must keep following demand
                self.log.warning("Pool resize failed", exc_info=True)
