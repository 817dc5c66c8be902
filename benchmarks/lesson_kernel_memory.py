"""Memory of one JupyterLab kernel per lesson after Run All, for sizing the hub's per-student limit.

For each lesson notebook, starts an ipykernel (jupyter_client, as JupyterLab does), runs every code cell in
order and reads the kernel's resident memory (RSS) and proportional set size (PSS, shared pages split among
the processes that map them) from /proc. Prints one JSON document::

    python benchmarks/lesson_kernel_memory.py              # the English lessons, the capstone and claims
    python benchmarks/lesson_kernel_memory.py --lang zh

One kernel at a time (a student's kernels do not run at the same second); only our own kernels are read.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", default="en", choices=["en", "zh"])
    args = parser.parse_args()
    os.environ.setdefault("MPLBACKEND", "Agg")
    lessons = ROOT / "explorer" / "notebooks" / "lessons"
    notebooks = [lessons / args.lang / f"{stem}.ipynb" for stem in STEMS] + [ROOT / "explorer" / "notebooks" / "claims.ipynb"]
    rows = [measure(nb) for nb in notebooks]
    print(json.dumps({"date": datetime.date.today().isoformat(), "python": sys.version.split()[0],
                      "machine": platform.machine(), "kernels": rows,
                      "max_rss_mb": max(r["rss_mb_after_run_all"] for r in rows)}, indent=1))


if __name__ == "__main__":
    main()
