"""The default cap on viewers' kernels, set by the machine's memory (issue 39).

The cap is the number of viewers' kernels that fit in the memory available when the server starts, after a
floor of free memory, the kernel template and the preheated pool. Several server processes on one machine
(``deploy/serve.py --processes N``) each get an N-th of the room above the floor, since each has its own
template, pool and kernels (the floor is the machine's, kept once)::

    floor_mb = max(free_floor_min_mb, free_floor_fraction × MemTotal)
    cap      = floor(((MemAvailable − floor_mb) / N − template_rss_mb − pool_size × kernel_mb) / kernel_mb), at least 1

``kernel_mb`` is the measured private memory (USS) of a viewer's kernel after the viewer opened every tab:
the pages one more viewer adds (a kernel forked from the template shares its imported modules, counted once
in ``template_rss_mb``). The figures and the rules are rows of ``capacity.csv`` (value, rule, source, date);
``MemTotal`` and ``MemAvailable`` come from ``/proc/meminfo``. The arithmetic, with this machine's figures, is
in docs/deploy.md ("A cap set by memory").
"""

from __future__ import annotations

import csv
import functools
import math
from pathlib import Path

__all__ = ["meminfo_mb", "capacity_figures", "free_floor_mb", "memory_cap", "default_max_kernels"]

_CAPACITY = Path(__file__).parents[1] / "capacity.csv"  # explorer/hosting/capacity.csv


@functools.cache
def capacity_figures() -> dict[str, float]:
    """The rows of ``capacity.csv``: name -> value (MB, or a share)."""
    with open(_CAPACITY, newline="", encoding="utf-8") as f:
        return {row["name"]: float(row["value"]) for row in csv.DictReader(f)}


def meminfo_mb(text: str | None = None) -> dict[str, float]:
    """``MemTotal`` and ``MemAvailable`` of ``/proc/meminfo`` (or of ``text`` in its format) [MB]."""
    text = Path("/proc/meminfo").read_text() if text is None else text
    found = {}
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        if key in ("MemTotal", "MemAvailable"):
            found[key] = int(rest.split()[0]) / 1024  # kB
    return found


def free_floor_mb(total_mb: float, fraction: float, minimum_mb: float) -> float:
    """Memory kept free [MB]: ``fraction`` of the machine's ``total_mb``, at least ``minimum_mb``."""
    return max(minimum_mb, fraction * total_mb)


def memory_cap(available_mb: float, total_mb: float, *, kernel_mb: float, template_mb: float, pool_size: int,
               floor_fraction: float, floor_min_mb: float, processes: int = 1) -> int:
    """Viewers' kernels that fit in ``available_mb`` (see the module docstring); at least 1.

    Parameters
    ----------
    available_mb, total_mb : float
        ``MemAvailable`` and ``MemTotal`` [MB].
    kernel_mb : float
        Private memory of one viewer's kernel after every tab [MB].
    template_mb : float
        Resident memory of the kernel template [MB].
    pool_size : int
        Preheated kernels kept waiting (each costs ``kernel_mb`` or less).
    floor_fraction, floor_min_mb : float
        The free-memory floor: this share of ``total_mb``, at least ``floor_min_mb`` [MB].
    processes : int
        Server processes sharing the machine (this one included); each plans for its share of the room above the
        floor. At least 1.

    Examples
    --------
    A 4 GiB machine with 3 GiB available: floor 1,024 MB, so (3,072 − 1,024 − 200 − 4 × 100) / 100 = 14.48.

    >>> memory_cap(3072, 4096, kernel_mb=100, template_mb=200, pool_size=4, floor_fraction=0.1, floor_min_mb=1024)
    14

    Two processes on that machine: (2,048 / 2 − 200 − 4 × 100) / 100 = 4.24 each, so 2 × (200 + 8 × 100 + 4 × 100)
    = 2,800 MB at most, against 2 × (200 + 18 × 100) = 4,000 MB of 2,048 with the whole machine's cap each.

    >>> memory_cap(3072, 4096, kernel_mb=100, template_mb=200, pool_size=4, floor_fraction=0.1, floor_min_mb=1024,
    ...            processes=2)
    4
    """
    if processes < 1:
        raise ValueError(f"processes: {processes!r}; allowed: a whole number of server processes, at least 1")
    room = ((available_mb - free_floor_mb(total_mb, floor_fraction, floor_min_mb)) / processes
            - template_mb - pool_size * kernel_mb)
    return max(1, math.floor(room / kernel_mb))


def default_max_kernels(pool_size: int, meminfo_text: str | None = None,
                        processes: int = 1) -> tuple[int, dict[str, float]]:
    """The cap for this process now (one of ``processes`` on the machine), and the figures it came from."""
    mem = meminfo_mb(meminfo_text)
    fig = capacity_figures()
    cap = memory_cap(mem["MemAvailable"], mem["MemTotal"], kernel_mb=fig["kernel_uss_mb_all_tabs"],
                     template_mb=fig["template_rss_mb"], pool_size=pool_size,
                     floor_fraction=fig["free_floor_fraction"], floor_min_mb=fig["free_floor_min_mb"],
                     processes=processes)
    return cap, {**mem, **fig, "pool_size": pool_size, "processes": processes}
