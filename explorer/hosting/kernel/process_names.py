"""Names for the server's processes in ``ps`` and ``top``: the kernel template, and each kernel by its id.

A kernel forked from the template (:mod:`explorer.hosting.kernel.kernel_template`) inherits the template's command
line, so ``ps`` showed every kernel as ``python .../kernel_template.py 5 ipykernel.kernelapp ...``.
:func:`name_this_process` gives a process

* a short name (Linux ``prctl(PR_SET_NAME)``, at most 15 bytes: ``ps -o comm``, ``top``, ``pgrep``), and
* a command line (what ``ps aux`` and ``/proc/<pid>/cmdline`` show), written over the process's own argument
  area through ``/proc/self/mem``: no larger than the command line it replaces (the rest is cut).

Standard library only (``setproctitle`` is not a dependency): :mod:`ctypes` for ``prctl``, the argument area's
bounds from fields 48 and 49 of ``/proc/self/stat``. Both are Linux only; elsewhere, or if the kernel refuses,
nothing changes (a name is for people reading ``ps``, not for the server, which tracks kernels by pid).
"""

from __future__ import annotations

import ctypes
import os

__all__ = ["name_this_process", "kernel_title", "KERNEL_NAME", "TEMPLATE_NAME"]

_PR_SET_NAME = 15  # <linux/prctl.h>
KERNEL_NAME = "kernel-{id8}"  # the short name of a kernel: "kernel-" and the first 8 characters of its id
TEMPLATE_NAME = "kernel-template"


def kernel_title(argv: list[str]) -> tuple[str, str]:
    """(short name, command line) of a kernel started with ipykernel's ``argv`` (``-f <connection file>``)."""
    connection = next((a.split("=", 1)[1] for a in argv if a.startswith("--f=")), None)
    if connection is None and "-f" in argv[:-1]:
        connection = argv[argv.index("-f") + 1]
    stem = os.path.basename(connection or "")
    kernel_id = stem[len("kernel-"):-len(".json")] if stem.startswith("kernel-") and stem.endswith(".json") else ""
    short = KERNEL_NAME.format(id8=kernel_id[:8]) if kernel_id else "kernel"
    return short, f"explorer-kernel ipykernel -f {connection}" if connection else "explorer-kernel ipykernel"


def _set_short_name(name: str) -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_NAME, ctypes.c_char_p(name.encode()[:15]), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _set_command_line(line: str) -> bool:
    try:
        with open("/proc/self/stat", "rb") as f:
            stat = f.read().decode()
        fields = stat[stat.rindex(")") + 2:].split()  # field 3 (state) onwards
        start, end = int(fields[48 - 3]), int(fields[49 - 3])  # arg_start, arg_end
        if end <= start:
            return False
        data = line.encode()[:end - start - 1]
        with open("/proc/self/mem", "r+b", buffering=0) as mem:
            mem.seek(start)
            mem.write(data + b"\0" * (end - start - len(data)))
        return True
    except (OSError, ValueError, IndexError):
        return False


def name_this_process(short: str, command_line: str | None = None) -> bool:
    """Name this process ``short`` (15 bytes at most) and, if given, show ``command_line`` as its arguments.

    Returns whether the short name was set.
    """
    done = _set_short_name(short)
    if command_line is not None:
        _set_command_line(command_line)
    return done
