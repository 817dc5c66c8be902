"""Memory of one JupyterLab kernel per lesson after Run All, for sizing the hub's per-student limit.

For each lesson notebook, starts an ipykernel (jupyter_client, as JupyterLab does), runs every code cell in
order and reads the kernel's resident memory (RSS) and proportional set size (PSS, shared pages split among
the processes that map them) from /proc. Prints one JSON document::

    python benchmarks/lesson_kernel_memory.py              # the English lessons, the capstone and claims
    python benchmarks/lesson_kernel_memory.py --lang zh
    python benchmarks/lesson_kernel_memory.py --forked [--before DIR]   # Voila's kernels: forked from the template

``--forked`` measures what a kernel forked from the server's warm template (``make workshop``'s kernels,
:mod:`explorer.hosting.kernel.kernel_template`, with voila.json's preload and warm-ups) holds of its own (USS,
``smaps_rollup``) after running each lesson's code cells in order: this process becomes the template
(preloads once), then forks one child per lesson, which runs the cells in an IPython shell and reports its
USS. ``--before DIR`` also runs the lessons of another checkout's ``explorer/notebooks`` (e.g. ``git archive``
of an older commit) in the same run, from the same template: before and after side by side.

One kernel at a time (a student's kernels do not run at the same second); only our own kernels are read.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import io
import json
import os
import platform
import sys
import time
from pathlib import Path

import nbformat
from jupyter_client.manager import start_new_kernel

ROOT = Path(__file__).resolve().parents[1]
STEMS = ["01_flops_to_dollars", "02_utilization_precision", "03_architecture_scaling", "04_buying_compute",
         "05_energy_region_carbon", "06_budgeting_governance", "capstone"]


def _mb(pid: int, key: str, path: str) -> float:
    total = 0
    with open(f"/proc/{pid}/{path}") as f:
        for line in f:
            if line.startswith(key + ":"):
                total += int(line.split()[1])
    return total / 1024


def measure(notebook: Path) -> dict:
    nb = nbformat.read(notebook, as_version=4)
    km, kc = start_new_kernel(kernel_name="python3", cwd=str(notebook.parent))
    try:
        pid = km.provisioner.process.pid
        idle = _mb(pid, "VmRSS", "status")
        for cell in nb.cells:
            if cell.cell_type == "code":
                reply = kc.execute_interactive(cell.source, timeout=600, output_hook=lambda msg: None)
                if reply["content"]["status"] != "ok":
                    raise RuntimeError(f"{notebook.name}: {reply['content'].get('evalue')}")
        return {"notebook": str(notebook.relative_to(ROOT)), "rss_mb_started": round(idle, 1),
                "rss_mb_after_run_all": round(_mb(pid, "VmRSS", "status"), 1),
                "pss_mb_after_run_all": round(_mb(pid, "Pss", "smaps_rollup"), 1)}
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def _uss_mb() -> float:
    text = Path("/proc/self/smaps_rollup").read_text().splitlines()
    return sum(int(line.split()[1]) for line in text if line.startswith(("Private_Clean:", "Private_Dirty:"))) / 1024


def measure_forked(notebooks: dict[str, list[Path]]) -> dict:
    """{variant: [{notebook, uss_mb_forked, uss_mb_after_run_all, s}]} for kernels forked from this process."""
    sys.path.insert(0, str(ROOT))
    from explorer.hosting.kernel import kernel_template

    preload = json.loads((ROOT / "explorer" / "hosting" / "voila.json").read_text())["ForkProvisioner"]["preload"]
    ready = kernel_template.preload(preload)
    from IPython.core.interactiveshell import InteractiveShell

    InteractiveShell.instance()
    out: dict = {"template": ready}
    for variant, paths in notebooks.items():
        rows = []
        for notebook in paths:
            cells = ["".join(c["source"]) for c in json.loads(notebook.read_text())["cells"] if c["cell_type"] == "code"]
            read, write = os.pipe()
            pid = os.fork()
            if pid == 0:  # the kernel: run the lesson, report, exit
                os.close(read)
                os.chdir(notebook.parent)
                shell, start, forked = InteractiveShell.instance(), time.perf_counter(), _uss_mb()
                failed = [i for i, cell in enumerate(cells) if not shell.run_cell(cell, silent=True).success]
                os.write(write, json.dumps({"notebook": "/".join(notebook.parts[-3:]), "uss_mb_forked": round(forked, 1),
                                            "uss_mb_after_run_all": round(_uss_mb(), 1),
                                            "s": round(time.perf_counter() - start, 2), "failed_cells": failed}).encode())
                os._exit(0)
            os.close(write)
            with os.fdopen(read) as pipe:
                rows.append(json.loads(pipe.read()))
            os.waitpid(pid, 0)
        out[variant] = rows
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", default="en", choices=["en", "zh"])
    parser.add_argument("--forked", action="store_true", help="kernels forked from the warm template (USS)")
    parser.add_argument("--before", type=Path, help="with --forked: also this checkout's lessons (before)")
    args = parser.parse_args()
    if args.forked:
        for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ.setdefault(name, "1")
        os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
        variants = {}
        if args.before:
            variants["before"] = [args.before / "explorer" / "notebooks" / "lessons" / args.lang / f"{s}.ipynb"
                                  for s in STEMS]
        variants["after"] = [ROOT / "explorer" / "notebooks" / "lessons" / args.lang / f"{s}.ipynb" for s in STEMS]
        with contextlib.redirect_stdout(io.StringIO()):
            out = measure_forked(variants)
        print(json.dumps({"date": datetime.date.today().isoformat(), "load_avg": os.getloadavg(),
                          "command": "python benchmarks/lesson_kernel_memory.py " + " ".join(sys.argv[1:]), **out},
                         indent=1))
        return
    os.environ.setdefault("MPLBACKEND", "Agg")
    lessons = ROOT / "explorer" / "notebooks" / "lessons"
    notebooks = [lessons / args.lang / f"{stem}.ipynb" for stem in STEMS] + [ROOT / "explorer" / "notebooks" / "claims.ipynb"]
    rows = [measure(nb) for nb in notebooks]
    print(json.dumps({"date": datetime.date.today().isoformat(), "python": sys.version.split()[0],
                      "machine": platform.machine(), "kernels": rows,
                      "max_rss_mb": max(r["rss_mb_after_run_all"] for r in rows)}, indent=1))


if __name__ == "__main__":
    main()
