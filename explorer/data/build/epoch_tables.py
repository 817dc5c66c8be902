"""Rebuild the tables derived from Epoch AI's training-cost-trends from Epoch's published files.

Usage::

    python explorer/data/build/epoch_tables.py PATH/TO/training-cost-trends [--check]

``PATH`` is a checkout of github.com/epoch-research/training-cost-trends (CC BY 4.0; the tables were built from
commit 263c40a, 2026-04-01). The script rewrites, in ``explorer/data/``:

* ``epoch_frontier.csv``: every row of Epoch's ``model_costs.csv`` (cloud, hardware-acquisition and amortized
  hardware + energy cost) joined by model name with organisation, publication date, parameters, training compute,
  hardware and chip count from ``data/All ML Systems - full view.csv``;
* the Epoch rows of ``cloud_prices.csv``: every dated cloud price of ``data/Hardware prices.csv`` (on-demand,
  1-year and 3-year committed use) for a chip the catalog knows (:data:`HARDWARE`), its provider classed as
  hyperscaler or specialist (:data:`HYPERSCALERS`), first-hand or secondary by its source (:func:`source_kind`);
  the rows of other sources in that file are kept as they are.

With ``--check`` it writes nothing and exits 1 when a rebuilt table differs from the committed one (the way to
see what a newer Epoch commit changes). Numbers are written with 10 significant digits. It runs offline on the
checkout; the package never runs it (explorer/data/NOTICE.md gives the licence and the changes made).
"""

from __future__ import annotations

import argparse
import csv
import io
import re
import sys
from pathlib import Path
from typing import Sequence

DATA = Path(__file__).resolve().parents[1]
COMMIT = "263c40a"

#: Epoch's hardware names -> catalog accelerator ids (explorer/data/accelerators.csv); other chips are left out.
HARDWARE = {
    "Google TPU v2": "tpu-v2", "Google TPU v3": "tpu-v3", "Google TPU v4": "tpu-v4", "Google TPU v5e": "tpu-v5e",
    "Google TPU v6e Trillium": "tpu-v6e", "NVIDIA A100 SXM4 40 GB": "a100-40gb", "NVIDIA A100 SXM4 80 GB": "a100-80gb",
    "NVIDIA H100 PCIe": "h100-pcie", "NVIDIA H100 SXM5 80GB": "h100-sxm", "NVIDIA H200 SXM": "h200",
    "NVIDIA H800 SXM5": "h800", "NVIDIA P100": "p100", "NVIDIA Tesla V100 DGXS 16 GB": "v100",
    "NVIDIA Tesla V100 DGXS 32 GB": "v100", "NVIDIA Tesla V100 SXM2 16 GB": "v100", "NVIDIA V100": "v100",
}
#: Providers priced as hyperscalers (explorer/prices.py: the hyperscaler bases); every other is a specialist cloud.
HYPERSCALERS = {"Amazon Web Services", "Google Cloud", "Microsoft Azure", "Oracle Cloud"}

FRONTIER_SOURCE = (f"Epoch AI, training-cost-trends (CC BY 4.0), commit {COMMIT} (2026-04-01): model_costs.csv "
                   "joined with 'All ML Systems - full view.csv'; Cottier et al. 2024, arXiv 2405.21015")
PRICE_SOURCE = (f"Epoch AI hardware price database (CC BY 4.0; github.com/epoch-research/training-cost-trends "
                f"data/Hardware prices.csv, commit {COMMIT}): ")


def _read(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8-sig", newline="") as f:  # Epoch's files start with a byte-order mark
        return list(csv.DictReader(f))


def _num(text: str) -> str:
    return f"{float(text):.10g}" if text and text.strip() else ""


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-")


def _write(rows: list[dict[str, str]], header: Sequence[str]) -> str:
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=header, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    return out.getvalue()


def frontier(epoch: Path) -> str:
    """The text of ``epoch_frontier.csv`` rebuilt from the checkout ``epoch``."""
    systems = {r["Model"]: r for r in _read(epoch / "data" / "All ML Systems - full view.csv")}
    rows = []
    for c in _read(epoch / "model_costs.csv"):
        s = systems.get(c["Model"], {})
        rows.append({
            "id": "epochf_" + re.sub(r"[^a-z0-9]+", "_", c["Model"].lower()).strip("_"),
            "model": c["Model"], "organization": s.get("Organization", ""),
            "publication_date": s.get("Publication date", ""), "parameters": _num(s.get("Parameters", "")),
            "training_compute_flop": _num(s.get("Training compute (FLOP)", "")),
            "training_hardware": s.get("Training hardware", ""), "hardware_quantity": _num(s.get("Hardware quantity", "")),
            "cloud_cost_usd": _num(c["Cloud_Cost"]), "hardware_acquisition_cost_usd": _num(c["Hardware_Acquisition_Cost"]),
            "amortized_hardware_energy_cost_usd": _num(c["Hardware_Capex_Energy_Cost"]), "source": FRONTIER_SOURCE,
        })
    rows.sort(key=lambda r: r["model"])
    return _write(rows, list(rows[0]))


def source_kind(url: str) -> str:
    """``first-hand`` for the provider's own page (live or an archived copy), ``secondary`` for another's table.

    Epoch's price sources are archived copies of the providers' pricing pages (web.archive.org), a few live
    provider pages, and a third party's table of cloud GPU prices on GitHub (the-full-stack), which is secondary.
    """
    return "secondary" if "github.com" in url else "first-hand"


def prices(epoch: Path, committed: str) -> str:
    """The text of ``cloud_prices.csv`` with its Epoch rows rebuilt and its other rows as in ``committed``."""
    reader = csv.DictReader(io.StringIO(committed))
    header, others = reader.fieldnames, [r for r in reader if not r["source"].startswith(PRICE_SOURCE)]
    if header is None:
        raise ValueError("the committed cloud_prices.csv is empty: it has no header row to keep")
    epoch_rows, kept = [], set()
    for r in _read(epoch / "data" / "Hardware prices.csv"):
        gpu = HARDWARE.get(r["Hardware model"])
        cloud = tuple(r[f"Price per chip-hour ({k})"] for k in ("on-demand", "1-year CUD", "3-year CUD"))
        if gpu is None or not r["Vendor"] or not any(v.strip() for v in cloud):
            continue
        row = {"accelerator": gpu, "provider": r["Vendor"],
               "provider_kind": "hyperscaler" if r["Vendor"] in HYPERSCALERS else "specialist",
               "price_date": r["Price date"], "location": r["Location"],
               "on_demand_usd_per_gpu_hour": cloud[0], "committed_1y_usd_per_gpu_hour": cloud[1],
               "committed_3y_usd_per_gpu_hour": cloud[2], "epoch_hardware_model": r["Hardware model"],
               # Epoch's instance description on one line, cut at 60 characters (one holds a whole URL)
               "offer": " ".join(r["Cloud GPU description"].split("\n"))[:60].strip(),
               "source": PRICE_SOURCE + r["Price source"], "source_kind": source_kind(r["Price source"])}
        # one row per provider, date, place and price: Epoch lists some instance sizes (and the 16 and 32 GB V100)
        # at the same rate per chip
        content = tuple(row[k] for k in ("accelerator", "provider", "price_date", "location",
                                         "on_demand_usd_per_gpu_hour", "committed_1y_usd_per_gpu_hour",
                                         "committed_3y_usd_per_gpu_hour"))
        if content not in kept:
            kept.add(content)
            epoch_rows.append(row)
    # Epoch's rows in its order, then the other sources', sorted (stably) by chip, date and provider; ids numbered
    rows = sorted(epoch_rows + others, key=lambda r: (r["accelerator"], r["price_date"], r["provider"]))
    seen: dict[str, int] = {}
    for row in rows:
        if row in others:
            continue
        key = f"{row['accelerator']}/{_slug(row['provider'])}/{row['price_date']}"
        seen[key] = seen.get(key, 0) + 1
        row["id"] = f"{key}/{seen[key]}"
    return _write(rows, header)


def main(argv: list[str] | None = None) -> int:
    """Rebuild (or with ``--check`` compare) the Epoch-derived tables; exit 1 when ``--check`` finds a change."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("epoch", type=Path, help="checkout of epoch-research/training-cost-trends")
    parser.add_argument("--check", action="store_true", help="compare with the committed tables, write nothing")
    args = parser.parse_args(argv)
    prices_path = DATA / "cloud_prices.csv"
    built = {DATA / "epoch_frontier.csv": frontier(args.epoch),
             prices_path: prices(args.epoch, prices_path.read_text(encoding="utf-8"))}
    changed = [p.name for p, text in built.items() if p.read_text(encoding="utf-8") != text]
    if args.check:
        print("unchanged" if not changed else "differ: " + ", ".join(changed))
        return 1 if changed else 0
    for path, text in built.items():
        with path.open(encoding="utf-8", newline="") as f:
            ending = "\r\n" if "\r\n" in f.readline() else "\n"  # keep the file's line endings (a diff of data only)
        path.write_text(text, encoding="utf-8", newline=ending)
    print("rewrote " + ", ".join(p.name for p in built))
    return 0


if __name__ == "__main__":
    sys.exit(main())
