"""The preheated pool that follows demand (explorer/hosting/server/demand_pool.py).

The rule is checked on hand-computed cases and by its laws over the input space; the resizing against
Voila's own kernel manager (``voila_kernel_manager_factory``'s ``VoilaKernelManager``, over kernels that start
at once) with a clock the test moves; and once against a real server on
127.0.0.1, whose pool grows after a burst of protocol-client page loads and shrinks back once idle (timings
scaled down through ``--DemandPool.*``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import math
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from traitlets.config import LoggingConfigurable
from voila.voila_kernel_manager import voila_kernel_manager_factory

from strategies import examples
import clients as cl
from explorer.hosting.server import upstream_server
from explorer.hosting.server.demand_pool import DemandPool, _cgroup_available_mb, _meminfo_available_mb, pool_target

RUSH = dict(current=4, floor=4, idle_s=1.0, idle_after_s=300.0, memory_fraction=0.5, max_size=40)


# ---------------------------------------------------------------- the rule, by hand
@pytest.mark.parametrize("case, expected", [
    # 30 arrivals, 20 GB free, 84 MB a kernel: room = 4 + floor(0.5 * 20000 / 84) = 4 + 119 = 123 -> the 30 wanted
    (dict(RUSH, arrivals=30, available_mb=20000, kernel_mb=84), 30),
    # 1 GB free, 125 MB a kernel: room = 4 + floor(500 / 125) = 8 kernels, fewer than the 30 wanted
    (dict(RUSH, arrivals=30, available_mb=1000, kernel_mb=125), 8),
    # 60 arrivals: the cap (the server's 40 seats) holds
    (dict(RUSH, arrivals=60, available_mb=20000, kernel_mb=84), 40),
    # no arrival for the idle period: back to the configured 4, however large it was
    (dict(RUSH, arrivals=0, current=30, idle_s=300.0, available_mb=20000, kernel_mb=84), 4),
    # fewer arrivals now than before, not yet idle: the pool keeps its size
    (dict(RUSH, arrivals=2, current=30, idle_s=100.0, available_mb=20000, kernel_mb=84), 30),
    # no memory left: no growth, but no shrink either
    (dict(RUSH, arrivals=30, current=10, available_mb=0, kernel_mb=84), 10),
    # a configured floor above the cap is kept
    (dict(RUSH, arrivals=30, max_size=2, available_mb=20000, kernel_mb=84), 4),
    # the workshop: floor 0, 15 arrivals, 8 GB free, 140 MB a kernel: room = floor(4000 / 140) = 28 -> 15
    (dict(RUSH, arrivals=15, current=0, floor=0, available_mb=8000, kernel_mb=140, max_size=0), 15),
    # no cap (max_size 0): memory alone, room = 0 + floor(0.5 * 3000 / 100) = 15 of the 100 wanted
    (dict(RUSH, arrivals=100, current=0, floor=0, available_mb=3000, kernel_mb=100, max_size=0), 15),
    # never an arrival (idle_s infinite): the floor
    (dict(RUSH, arrivals=0, idle_s=math.inf, available_mb=20000, kernel_mb=84), 4),
    # the rush of the first case on a busy CPU: no growth, the pool keeps the 10 it has
    (dict(RUSH, arrivals=30, current=10, available_mb=20000, kernel_mb=84, cpu_busy=True), 10),
    # busy and idle: back to the floor all the same
    (dict(RUSH, arrivals=0, current=10, idle_s=300.0, available_mb=20000, kernel_mb=84, cpu_busy=True), 4),
])
def test_pool_target_by_hand(case, expected):
    assert pool_target(**case) == expected


sizes = st.integers(0, 200)
cases = st.fixed_dictionaries({
    "arrivals": sizes, "current": sizes, "floor": st.integers(0, 50),
    "idle_s": st.floats(0, 1e4), "idle_after_s": st.floats(1, 1e3),
    "available_mb": st.floats(0, 1e6), "kernel_mb": st.floats(1, 2000),
    "memory_fraction": st.floats(0, 1), "max_size": st.integers(0, 100), "cpu_busy": st.booleans()})


@settings(max_examples=examples(300), deadline=None)
@given(cases, st.integers(0, 200), st.floats(0, 1e6))
def test_pool_target_laws(case, more_arrivals, more_memory_mb):
    size = pool_target(**case)
    assert size >= case["floor"]  # never below the configured pool
    if case["max_size"]:
        assert size <= max(case["floor"], case["max_size"])  # never past the cap, unless the floor is
    budget = math.floor(case["memory_fraction"] * case["available_mb"] / case["kernel_mb"])
    assert size <= max(case["floor"], case["current"] + budget)  # new kernels fit in the memory budget
    assert size <= max(case["floor"], case["current"], case["arrivals"])  # no more than demand asks
    if case["idle_s"] >= case["idle_after_s"]:
        assert size == case["floor"]  # idle: back to the floor
    if case["cpu_busy"]:
        assert size <= max(case["floor"], case["current"])  # a busy CPU: no growth
    # monotone: more arrivals, or more memory, never give a smaller pool
    assert pool_target(**{**case, "arrivals": case["arrivals"] + more_arrivals}) >= size
    assert pool_target(**{**case, "available_mb": case["available_mb"] + more_memory_mb}) >= size


def test_available_memory_is_read_from_meminfo_and_the_cgroup(tmp_path):
    (tmp_path / "meminfo").write_text("MemTotal:       24576000 kB\nMemAvailable:   2048000 kB\n")
    assert _meminfo_available_mb(tmp_path / "meminfo") == 2000.0  # 2,048,000 kB / 1,024
    (tmp_path / "memory.max").write_text("max\n")
    assert _cgroup_available_mb(tmp_path) is None  # no limit
    (tmp_path / "memory.max").write_text(f"{4 * 2**30}\n")  # a pod limited to 4 GiB, 1 GiB of it used
    (tmp_path / "memory.current").write_text(f"{2**30}\n")
    assert _cgroup_available_mb(tmp_path) == 3072.0


# ---------------------------------------------------------------- the resizing, against Voila's kernel manager
class InstantKernels(LoggingConfigurable):
    """Below Voila's pool: jupyter_server's kernel starts and shutdowns, instant (no process), recorded.

    Voila's ``VoilaKernelManager`` (its pools, ``fill_if_needed``, ``get_pool_size``, ``shutdown_kernel``, the
    pool config) is made from this by Voila's own ``voila_kernel_manager_factory``, as the server makes it from
    jupyter_server's manager: the demand pool is checked against Voila's code, not a copy of its ``_pools``.
    """

    starting: dict | None = None  # kernel id -> a future the test sets to let that kernel finish starting

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.kernels: dict[str, object] = {}
        self.shut: list[str] = []
        self.started = 0

    async def start_kernel(self, kernel_name=None, **kwargs):
        self.started += 1
        kernel_id = f"k{self.started}"
        if self.starting is not None:
            self.starting[kernel_id] = asyncio.get_running_loop().create_future()
            await self.starting[kernel_id]
        self.kernels[kernel_id] = SimpleNamespace(has_kernel=False)  # no process (jupyter_client's has_kernel)
        return kernel_id

    def get_kernel(self, kernel_id):
        return self.kernels[kernel_id]

    async def shutdown_kernel(self, kernel_id, now=False, restart=False):
        self.shut.append(kernel_id)
        self.kernels.pop(kernel_id, None)

    def list_kernel_ids(self):
        return list(self.kernels)

    def finish(self, kernel_id):
        self.starting.pop(kernel_id).set_result(None)


class WaitingRenderer:
    """Voila's notebook renderer as the pool sees it: the notebook run waits for a viewer's query (never here)."""

    def __init__(self, notebook_path):
        self.notebook_path = notebook_path
        self.notebook = SimpleNamespace(metadata=SimpleNamespace(kernelspec=SimpleNamespace(name="python3")))
        self.template_name, self.theme, self.rendered_cache, self.stop_generator = "lab", "light", [], False

    async def initialize(self):
        return None

    async def generate_content_hybrid(self, kernel_id, kernel_future):
        await asyncio.get_running_loop().create_future()


def voila_km(floor: int, root: Path, *, notebook: str | None = "app.ipynb"):
    """Voila's ``VoilaKernelManager`` over :class:`InstantKernels`, preheating ``floor`` kernels for ``notebook``.

    With a notebook (one-notebook mode, as ``make app``) Voila fills its pool at once, which needs a running
    event loop; ``notebook=None`` serves the (empty) folder ``root`` and starts nothing.
    """
    base = voila_kernel_manager_factory(InstantKernels, preheat_kernel=True, default_pool_size=floor)

    class Manager(base):
        def _notebook_renderer_factory(self, notebook_path=None):
            return WaitingRenderer(notebook_path)

    parent = LoggingConfigurable()  # what Voila's manager reads of the Voila app that makes it
    parent.root_dir, parent.notebook_path = str(root), str(root / notebook) if notebook else None
    parent.base_url, parent.server_url, parent.port = "/", "/", 0
    return Manager(parent=parent)


def pools(km) -> dict:
    return upstream_server.kernel_pools(km)


async def settled(km) -> None:
    """Let every pool task that can finish (kernels not held by the test) finish."""
    for _ in range(50):
        waiting = [t for pool in pools(km).values() for t in pool if not t.done()]
        if not waiting:
            return
        await asyncio.sleep(0)


def test_the_pool_grows_with_arrivals_and_shrinks_when_idle(tmp_path):
    async def scenario():
        km = voila_km(2, tmp_path)
        await settled(km)  # Voila filled its pool when it was made
        now = [1000.0]
        pool = DemandPool(km, clock=lambda: now[0], memory=lambda: 10000.0, load=lambda: 0.5, busy=lambda: 0.1,
                          window=60, idle_after=120, kernel_mb=100, max_size=0)
        for _ in range(7):  # seven page loads: Voila's handler asks the pool's size once for each
            km.get_pool_size("app.ipynb")
        assert pool.arrivals("app.ipynb") == (7, 0.0)
        assert await pool.resize() == {"app.ipynb": 7}
        assert km.kernel_pools_config["app.ipynb"]["pool_size"] == 7 and len(pools(km)["app.ipynb"]) == 7
        await settled(km)  # Voila's pool tasks start the five kernels
        now[0] += 61  # the arrivals leave the window, but the pool is not idle yet: it keeps its size
        assert pool.arrivals("app.ipynb") == (0, 61.0)
        assert await pool.resize() == {"app.ipynb": 7} and km.shut == []
        now[0] += 60  # 121 s since the last arrival: back to 2, the five newest ready kernels shut down
        assert await pool.resize() == {"app.ipynb": 2}
        assert km.shut == ["k7", "k6", "k5", "k4", "k3"] and len(pools(km)["app.ipynb"]) == 2
        assert all(t.result()["task"].cancelled() is False for t in pools(km)["app.ipynb"])  # the kept ones run
        assert km.kernel_pools_config["app.ipynb"]["pool_size"] == 2

    cl.run_async(scenario())


def test_a_busy_cpu_stops_growth_but_not_the_return_to_the_floor(tmp_path):
    async def scenario():
        km = voila_km(2, tmp_path)
        await settled(km)  # Voila filled its pool when it was made
        now, load = [0.0], [3.0]  # 3 runnable processes per core: a rush is on
        pool = DemandPool(km, clock=lambda: now[0], memory=lambda: 10000.0, load=lambda: load[0], busy=lambda: 0.1,
                          kernel_mb=100, max_size=0, idle_after=120)
        for _ in range(6):
            pool.arrived("app.ipynb")
        assert await pool.resize() == {} and len(pools(km)["app.ipynb"]) == 2  # no kernel added
        load[0] = 0.5  # the rush is over: the pool grows for the next wave
        assert await pool.resize() == {"app.ipynb": 6}
        load[0] = 3.0
        now[0] = 121.0
        assert await pool.resize() == {"app.ipynb": 2}  # idle: back to the floor, busy or not

    cl.run_async(scenario())


def test_arrivals_older_than_the_rule_looks_at_are_forgotten_and_an_off_pool_counts_none(tmp_path):
    km = voila_km(1, tmp_path, notebook=None)
    now = [0.0]
    pool = DemandPool(km, clock=lambda: now[0], window=60, idle_after=300)
    for _ in range(1000):  # one page load a second for 1,000 s
        km.get_pool_size("app.ipynb")
        now[0] += 1.0
    assert len(pool._arrivals["app.ipynb"]) == 301  # the last 300 s, ends included
    assert pool.arrivals("app.ipynb") == (60, 1.0)  # 60 in the last minute, the last one a second ago
    off = voila_km(1, tmp_path, notebook=None)
    asked = off.get_pool_size
    DemandPool(off, enabled=False)
    assert off.get_pool_size == asked  # Voila's method left as it is


def test_a_cpu_busy_since_the_last_resize_stops_growth_while_the_load_average_still_lags(tmp_path):
    """A rush on a quiet machine: the 1-minute load average is still low, but the CPU was busy since the last resize.

    Seen in ``benchmarks/kernel_rush.py``: with the load average alone, 30 viewers within 10 s grew the pool from
    4 to 23 during the rush, and its p95 went from about 3 s to 6.5 s.
    """
    async def scenario():
        km = voila_km(2, tmp_path)
        await settled(km)  # Voila filled its pool when it was made
        busy, reads = [0.05], []

        def read_busy():
            reads.append(busy[0])
            return busy[0]

        pool = DemandPool(km, clock=lambda: 0.0, memory=lambda: 10000.0, load=lambda: 0.1, busy=read_busy,
                          kernel_mb=100, max_size=0)
        assert await pool.resize() == {} and reads == [0.05]  # read with no arrival: the next share starts here
        busy[0] = 0.97  # the rush's viewers' kernels run their notebooks on both cores
        for _ in range(6):
            pool.arrived("app.ipynb")
        assert await pool.resize() == {} and len(pools(km)["app.ipynb"]) == 2  # no kernel added
        busy[0] = 0.5  # at the limit (max_cpu_busy = 0.5): room enough
        assert await pool.resize() == {"app.ipynb": 6} and len(pools(km)["app.ipynb"]) == 6
        assert reads == [0.05, 0.97, 0.5]
        await settled(km)  # the new kernels start (a task cancelled unstarted leaves Voila's coroutine unawaited)

    cl.run_async(scenario())


def test_the_recent_cpu_share_is_read_from_the_machine():
    import time

    from explorer.hosting.server.demand_pool import recent_cpu_busy

    recent_cpu_busy()
    deadline = time.process_time() + 0.3
    while time.process_time() < deadline:  # this process keeps one core busy for 0.3 CPU-s
        pass
    share = recent_cpu_busy()
    assert 0.0 < share <= 1.0  # one busy core of the machine's, or more with other work beside it


@pytest.mark.parametrize("setting, value, allowed", [
    ("memory_fraction", 1.5, "from 0 to 1"), ("memory_fraction", -0.1, "from 0 to 1"),
    ("interval", 0.0, "from 0 (excluded) to inf"), ("kernel_mb", -5.0, "from 0 (excluded) to inf"),
    ("window", float("nan"), "from 0 (excluded) to inf"), ("max_cpu_busy", 1.5, "from 0 to 1")])
def test_a_setting_out_of_range_is_refused_with_its_name_value_and_range(setting, value, allowed, tmp_path):
    from explorer.hosting.server.demand_pool import DemandPoolSettingError

    with pytest.raises(DemandPoolSettingError) as refused:
        DemandPool(voila_km(1, tmp_path, notebook=None), **{setting: value})
    assert f"DemandPool.{setting} = {value!r}" in str(refused.value) and allowed in str(refused.value)
    assert isinstance(refused.value, ValueError)
    assert DemandPool(voila_km(1, tmp_path, notebook=None), memory_fraction=0.0, uss_refresh=0.0).memory_fraction == 0.0


def test_the_budget_bounds_growth_and_kernels_still_starting_are_shut_down_once_ready(tmp_path):
    async def scenario():
        km = voila_km(1, tmp_path)
        await settled(km)  # Voila filled its pool when it was made (k1)
        km.starting = {}  # the next kernels stay starting until the test finishes them
        now = [0.0]
        # 0.5 * 450 MB / 150 MB = 1 more kernel per resize
        pool = DemandPool(km, clock=lambda: now[0], memory=lambda: 450.0, load=lambda: 0.5, busy=lambda: 0.1,
                          kernel_mb=150, max_size=0, idle_after=10)
        for _ in range(5):
            pool.arrived("app.ipynb")
        assert await pool.resize() == {"app.ipynb": 2}  # k2
        assert await pool.resize() == {"app.ipynb": 3}  # k3, the next resize, with memory still free
        now[0] = 11.0  # idle: back to 1; only k1 is ready to be shut down
        assert await pool.resize() == {"app.ipynb": 1}
        assert km.shut == ["k1"] and len(pools(km)["app.ipynb"]) == 2
        km.finish("k2")  # k2 has started: the next resize shuts it down, k3 stays the pool's one
        await settled(km)
        assert await pool.resize() == {"app.ipynb": 1}
        assert km.shut == ["k1", "k2"] and len(pools(km)["app.ipynb"]) == 1
        assert await pool.resize() == {"app.ipynb": 1} and km.shut == ["k1", "k2"]

    cl.run_async(scenario())


# ---------------------------------------------------------------- a real server
@pytest.mark.server
def test_a_real_servers_pool_grows_after_a_burst_and_shrinks_back_when_idle():
    import clients as cl
    from conftest import Server

    srv = Server("demand-pool", "--DemandPool.interval=0.5", "--DemandPool.window=60", "--DemandPool.idle_after=60",
                 # the test machine is shared: its load is not this server's
                 "--DemandPool.max_load_per_core=1000", "--DemandPool.max_cpu_busy=1",
                 "--MappingKernelManager.cull_idle_timeout=3600",
                 "--ExplorerVoila.connect_timeout=0",  # its viewers are page loads that never connect; they stay
                 pool_size=1, ready_timeout=600)
    try:
        burst = 4
        with concurrent.futures.ThreadPoolExecutor(burst) as ex:  # four viewers at once, each a page load
            pages = list(ex.map(lambda _: cl.get_page(srv.url, timeout=600), range(burst)))
        assert all(p.status == 200 and p.kernel_id for p in pages)
        size = burst  # one pool kernel per arrival of the last minute (a resize may see part of the burst first)
        grown = re.compile(rf"Demand pool for \S+: \d+ -> {size} kernels \({burst} arrivals")
        assert cl.wait_until(lambda: grown.search(srv.log.read_text()), 120), "the pool did not grow"
        # the pool's kernels are started (forked: seconds), well within the idle period: the viewers' 4 and the pool's 4
        assert cl.wait_until(lambda: len(cl.children(srv.proc.pid)) >= burst + size, 50), \
            f"{len(cl.children(srv.proc.pid))} kernels, not {burst + size}"
        shrunk = re.compile(rf"Demand pool for \S+: {size} -> 1 kernels")
        assert cl.wait_until(lambda: shrunk.search(srv.log.read_text()), 180), "the pool did not shrink"
        assert cl.wait_until(lambda: len(cl.children(srv.proc.pid)) == burst + 1, 120), \
            f"{len(cl.children(srv.proc.pid))} kernels, not the viewers' {burst} and the pool's 1"
        assert all(cl.kernel_exists(srv.url, p.kernel_id) for p in pages)  # the viewers kept their kernels
        # a pool kernel shut down while its notebook run waits for a viewer ends quietly (its run is cancelled)
        assert "Kernel died" not in srv.log.read_text() and "Error at server" not in srv.log.read_text()
    finally:
        srv.stop()
