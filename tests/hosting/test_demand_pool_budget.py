"""The demand pool's memory budget is a total, and one address asks for no more pool kernels than its seats
(issue 39, attack 5); the real-server attack is in tests/hosting/test_kernel_attacks.py."""

from __future__ import annotations

import math

from hypothesis import given, settings, strategies as st
from traitlets.config import Configurable

from explorer.hosting.server.demand_pool import DemandPool, pool_target
from strategies import examples


def _grow(available0_mb: float, kernel_mb: float, fraction: float, floor: int, arrivals: int, resizes: int) -> int:
    """The pool's size after ``resizes`` resizes while ``arrivals`` keep coming, each kernel it adds above its
    floor taking ``kernel_mb`` out of the machine's available memory (as a real kernel does)."""
    size = floor
    for _ in range(resizes):
        available = max(available0_mb - (size - floor) * kernel_mb, 0.0)
        size = pool_target(arrivals=arrivals, current=size, floor=floor, idle_s=1.0, idle_after_s=300.0,
                           available_mb=available, kernel_mb=kernel_mb, memory_fraction=fraction, max_size=0)
    return size


def test_three_resizes_take_half_the_memory_not_more_by_hand():
    # 1,000 MB free, 100 MB a kernel, half of it for the pool: 5 kernels above the floor, however many resizes.
    # Before: 4 -> 9 (5 of 10 free), -> 11 (2 of the 5 left), -> 12: 800 MB, 80% of the memory there was.
    assert _grow(1000.0, 100.0, 0.5, floor=4, arrivals=40, resizes=1) == 9
    assert _grow(1000.0, 100.0, 0.5, floor=4, arrivals=40, resizes=3) == 9


@settings(max_examples=examples(200), deadline=None)
@given(st.floats(0, 1e5), st.floats(1, 2000), st.floats(0, 1), st.integers(0, 10), st.integers(0, 500),
       st.integers(1, 12))
def test_the_pool_above_its_floor_never_holds_more_than_its_share_of_the_memory_there_was(
        available0_mb, kernel_mb, fraction, floor, arrivals, resizes):
    size = _grow(available0_mb, kernel_mb, fraction, floor, arrivals, resizes)
    assert (size - floor) * kernel_mb <= fraction * available0_mb + 1e-6 * available0_mb


class _Server(Configurable):
    """The settings of ExplorerVoila the pool reads."""

    seats_per_address = 6
    exempt_networks = ["10.0.0.0/8"]
    max_kernels = 40


def test_one_address_counts_for_at_most_its_seats():
    class Km:
        def get_pool_size(self, notebook):
            return 1

    pool = DemandPool(Km(), parent=_Server(), clock=lambda: 0.0)
    for _ in range(40):
        pool.arrived("app.ipynb", "192.0.2.7")  # loads and beacons in a loop from one address
    for i in range(3):
        pool.arrived("app.ipynb", f"192.0.2.{20 + i}")
    for _ in range(8):
        pool.arrived("app.ipynb", "10.1.2.3")  # a class behind one NAT, exempt from the seat cap
    assert pool.arrivals("app.ipynb") == (6 + 3 + 8, 0.0)
    assert math.isinf(pool.arrivals("other.ipynb")[1])
