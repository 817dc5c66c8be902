"""The pool follows the languages a class opens (issue 42): a lesson's floor moves from a language nobody opens to
its sibling (explorer/hosting/server/demand_pool.py, ``language_floors``).

The rule by hand and by its laws, with :func:`pool_target`'s (the move never adds preheated kernels, never takes
a floor from a language with arrivals, never passes the memory budget); the resizing against Voila's own
kernel manager in directory mode (two sibling lessons preheated, one opened); and once against `make workshop`'s
server on 127.0.0.1, where only the English lesson 1 is opened.
"""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from traitlets.config import LoggingConfigurable
from voila.voila_kernel_manager import voila_kernel_manager_factory

import clients as cl
from strategies import examples
from explorer.hosting.server import upstream_server
from explorer.hosting.server.demand_pool import DemandPool, language_floors, lesson_language, pool_target
from test_demand_pool import InstantKernels, WaitingRenderer, settled

EN, ZH = "lessons/en/01_flops_to_dollars.ipynb", "lessons/zh/01_flops_to_dollars.ipynb"


# ---------------------------------------------------------------- the rule, by hand
def test_a_lesson_is_named_by_its_folder_and_language():
    assert lesson_language(EN) == ("lessons/*/01_flops_to_dollars.ipynb", "en")
    assert lesson_language("explorer/notebooks/lessons/zh/02.ipynb") == ("explorer/notebooks/lessons/*/02.ipynb", "zh")
    assert lesson_language("claims.ipynb") is None and lesson_language("lessons/index.ipynb") is None


def test_the_floor_of_a_language_nobody_opens_moves_to_the_one_opened_by_hand():
    both = {"en": 15, "zh": 15}
    # English opened 10 s ago, Chinese never, 400 s after the start: 15 + 15 in English, none in Chinese
    assert language_floors(both, {"en": 10.0, "zh": 400.0}, 300.0) == ({"en": (15, 15), "zh": (0, 0)},
                                                                       frozenset({"zh"}))
    # 100 s after the start: too early to tell, the configured split
    assert language_floors(both, {"en": 10.0, "zh": 100.0}, 300.0) == ({"en": (15, 0), "zh": (15, 0)}, frozenset())
    # both opened: the configured split
    assert language_floors(both, {"en": 10.0, "zh": 250.0}, 300.0)[0] == {"en": (15, 0), "zh": (15, 0)}
    # the class is quiet (on lesson 2): the move stays, Chinese kernels do not come back for nobody
    assert language_floors(both, {"en": 900.0, "zh": 2000.0}, 300.0, frozenset({"zh"}))[0] == {
        "en": (15, 15), "zh": (0, 0)}
    # a Chinese page opened again: Chinese has its floor back (and English, quiet for 900 s, gives its up)
    assert language_floors(both, {"en": 900.0, "zh": 5.0}, 300.0, frozenset({"zh"})) == (
        {"en": (0, 0), "zh": (15, 15)}, frozenset({"en"}))
    # nobody ever: nothing moves
    assert language_floors(both, {"en": math.inf, "zh": math.inf}, 300.0) == ({"en": (15, 0), "zh": (15, 0)},
                                                                               frozenset())


def test_a_moved_floor_is_reached_within_the_memory_budget_by_hand():
    # English: its floor 15 and the 15 moved from Chinese; 1,400 MB free, 140 MB a kernel, half for the pool:
    # room = 15 + floor(0.5 * 1400 / 140) = 20, not the 30 wanted; the next resizes grow it as memory frees
    case = dict(arrivals=3, current=15, floor=15, idle_s=10.0, idle_after_s=300.0, available_mb=1400.0,
                kernel_mb=140.0, memory_fraction=0.5, max_size=60)
    assert pool_target(**case, moved_in=15) == 20
    assert pool_target(**{**case, "available_mb": 20000.0}, moved_in=15) == 30
    assert pool_target(**{**case, "available_mb": 20000.0}, moved_in=15, cpu_busy=True) == 15  # busy: no growth
    # idle, above the moved floor: back to 30, not to 15
    assert pool_target(**{**case, "current": 40, "idle_s": 400.0, "available_mb": 0.0}, moved_in=15) == 30


# ---------------------------------------------------------------- the laws
sizes = st.integers(0, 60)
idles = st.one_of(st.floats(0, 2000), st.just(math.inf))
pool_cases = st.fixed_dictionaries({
    "idle_after_s": st.floats(1, 1e3), "available_mb": st.floats(0, 1e6), "kernel_mb": st.floats(1, 2000),
    "memory_fraction": st.floats(0, 1), "max_size": st.integers(0, 100), "cpu_busy": st.booleans()})
language = st.fixed_dictionaries({"floor": sizes, "current": sizes, "arrivals": sizes, "idle_s": idles})


@settings(max_examples=examples(300), deadline=None)
@given(pool_cases, st.dictionaries(st.sampled_from(["en", "zh", "fr"]), language, min_size=1),
       st.frozensets(st.sampled_from(["en", "zh", "fr"])))
def test_moving_a_floor_between_languages_laws(case, by_language, dropped_before):
    configured = {lang: v["floor"] for lang, v in by_language.items()}
    idle = {lang: v["idle_s"] for lang, v in by_language.items()}
    floors, dropped = language_floors(configured, idle, case["idle_after_s"], dropped_before & set(configured))
    assert sum(a + b for a, b in floors.values()) == sum(configured.values())  # floors only move
    assert dropped < set(configured) or not dropped  # some language keeps a floor
    with_move, without = 0, 0
    for lang, v in by_language.items():
        own, moved_in = floors[lang]
        size = pool_target(**case, arrivals=v["arrivals"], current=v["current"], idle_s=v["idle_s"], floor=own,
                           moved_in=moved_in)
        alone = pool_target(**case, arrivals=v["arrivals"], current=v["current"], idle_s=v["idle_s"],
                            floor=v["floor"])
        with_move, without = with_move + size, without + alone
        if v["idle_s"] < case["idle_after_s"]:
            assert own == v["floor"] and size >= v["floor"]  # a language with arrivals keeps its floor
        budget = math.floor(case["memory_fraction"] * case["available_mb"] / case["kernel_mb"])
        assert size <= max(own, v["current"] + budget)  # new kernels fit in the memory budget
        if case["cpu_busy"]:
            assert size <= max(own, v["current"])  # a busy CPU: no growth
        if case["max_size"]:
            assert size <= max(own, case["max_size"])
    assert with_move <= without  # the move never adds preheated kernels


# ---------------------------------------------------------------- against Voila's kernel manager
def lessons_km(floor: int, root):
    """Voila's ``VoilaKernelManager`` over :class:`InstantKernels` serving ``root`` with lesson 1 in en and zh,
    ``floor`` kernels preheated for each (as `make workshop` configures them; Voila fills them at once)."""
    for nb in (EN, ZH):
        (root / nb).parent.mkdir(parents=True, exist_ok=True)
        (root / nb).write_text("{}")
    base = voila_kernel_manager_factory(InstantKernels, preheat_kernel=True, default_pool_size=0)

    class Manager(base):
        def _notebook_renderer_factory(self, notebook_path=None):
            return WaitingRenderer(notebook_path)

    parent = LoggingConfigurable()
    parent.root_dir, parent.notebook_path = str(root), None
    parent.base_url, parent.server_url, parent.port = "/", "/", 0
    return Manager(parent=parent, kernel_pools_config={"default": {"pool_size": 0}, EN: {"pool_size": floor},
                                                       ZH: {"pool_size": floor}})


def test_a_class_opening_only_english_gets_the_chinese_pool_in_english(tmp_path):
    async def scenario():
        km = lessons_km(2, tmp_path)
        await settled(km)
        pools = upstream_server.kernel_pools(km)
        assert len(pools[EN]) == 2 and len(pools[ZH]) == 2
        now = [0.0]
        pool = DemandPool(km, clock=lambda: now[0], memory=lambda: 10000.0, load=lambda: 0.5, busy=lambda: 0.1,
                          window=60, idle_after=120, kernel_mb=100, max_size=0)
        now[0] = 30.0
        km.get_pool_size(EN)  # one student opens the English lesson 1
        assert await pool.resize() == {} and len(pools[EN]) == 2  # 30 s after the start: not yet
        now[0] = 121.0  # Chinese: nothing for 121 s; English: an arrival 91 s ago
        assert await pool.resize() == {EN: 4, ZH: 0}
        await settled(km)
        assert len(pools[ZH]) == 0 and len(pools[EN]) == 4 and len(km.shut) == 2
        assert km.kernel_pools_config[ZH]["pool_size"] == 0 and km.kernel_pools_config[EN]["pool_size"] == 4
        now[0] = 1000.0  # the whole class is quiet: the move stays
        assert await pool.resize() == {EN: 4, ZH: 0} and len(km.shut) == 2
        km.get_pool_size(ZH)  # a Chinese student after all: Chinese has the floors back, English (quiet) none
        now[0] = 1001.0
        sizes = await pool.resize()
        await settled(km)
        assert sizes == {EN: 0, ZH: 4} and len(pools[ZH]) == 4 and len(pools[EN]) == 0 and len(km.shut) == 6
        assert set(pool._dropped) == {"lessons/*/01_flops_to_dollars.ipynb"}

    cl.run_async(scenario())


def test_a_lesson_preheated_in_no_language_moves_nothing(tmp_path):
    """`make workshop`'s other lessons have a floor of 0 in both languages: nothing to move, nothing logged."""
    async def scenario():
        km = lessons_km(0, tmp_path)
        now = [0.0]
        pool = DemandPool(km, clock=lambda: now[0], memory=lambda: 10000.0, load=lambda: 0.5, busy=lambda: 0.1,
                          window=60, idle_after=120, kernel_mb=100, max_size=0)
        now[0] = 100.0
        km.get_pool_size(EN)
        now[0] = 121.0  # English opened 21 s ago, Chinese never: the demand rule alone (one arrival, one kernel)
        assert await pool.resize() == {EN: 1} and pool._dropped == {}
        await settled(km)

    cl.run_async(scenario())

    cl.run_async(scenario())


# ---------------------------------------------------------------- a real server
@pytest.mark.server
def test_a_workshop_opened_only_in_english_moves_the_chinese_pool_to_english():
    """`make workshop CLASS=4` (2 + 2 preheated), idle_after 30 s: one student opens the English lesson 1; the
    Chinese pool gives its 2 kernels up and the English pool grows to 4 (read from the server's log)."""
    from test_workshop_class import Workshop, _make_workshop

    server = Workshop(*_make_workshop("CLASS=4"), "--DemandPool.interval=0.5", "--DemandPool.idle_after=30",
                      "--DemandPool.max_load_per_core=1000", "--DemandPool.max_cpu_busy=1",  # a shared test machine
                      "--ExplorerVoila.connect_timeout=0", "--MappingKernelManager.cull_idle_timeout=3600",
                      name="workshop-languages")
    try:
        server.wait_ready_kernels(4, timeout=600)
        page = cl.get_page(f"{server.url}voila/render/{EN}", timeout=600)
        assert page.status == 200
        log = lambda: server.log.read_text()  # noqa: E731
        moved = re.compile(r"Demand pool for lessons/\*/01_flops_to_dollars.ipynb: en opened, zh not for 30 s: "
                           r"preheated en 4, zh 0")
        assert cl.wait_until(lambda: moved.search(log()), 180), log()[-3000:]
        assert cl.wait_until(lambda: re.search(rf"Demand pool for {ZH}: 2 -> 0 kernels", log()), 60), log()[-3000:]
        assert cl.wait_until(lambda: re.search(rf"Demand pool for {EN}: 2 -> 4 kernels", log()), 60), log()[-3000:]
        # the two Chinese pool kernels are shut down (nobody took a pool kernel but the one English viewer, whose
        # kernel stays) and two more English ones run the lesson: 4 in the English pool (the one the viewer took
        # is replaced by Voila, its replacement waiting the fill delay as before)
        assert cl.wait_until(lambda: log().count("Kernel shutdown:") >= 2, 120), log()[-3000:]
        assert cl.wait_until(lambda: f"Kernel pool of {EN} is filled with 4 kernel(s)" in log(), 120), log()[-3000:]
        assert cl.kernel_exists(server.url, page.kernel_id)
        assert "Error at server" not in log() and "Kernel died" not in log()
    finally:
        server.stop()
