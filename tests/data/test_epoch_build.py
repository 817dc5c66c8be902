"""explorer/data/build/epoch_tables.py rebuilds the Epoch-derived tables from files in Epoch's own format.

The real input is a checkout of epoch-research/training-cost-trends (not shipped; the build was checked against
commit 263c40a, where ``--check`` reports "unchanged"). Here the Epoch-format files are written back from the
committed tables (Epoch's column names, a byte-order mark, each price listed once more for a second instance
size, the models shuffled), and the script must rebuild both tables exactly, keep the rows of other sources, and say
"differ" when a price changes.
"""

from __future__ import annotations

import csv
import importlib.util
import io
import random
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "explorer" / "data" / "build" / "epoch_tables.py"


def _load():
    spec = importlib.util.spec_from_file_location("epoch_tables", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rows(name: str) -> list[dict[str, str]]:
    with (ROOT / "explorer" / "data" / name).open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _write(path: Path, header: list[str], rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=header)
    w.writeheader()
    w.writerows(rows)
    path.write_text("\ufeff" + out.getvalue(), encoding="utf-8")


def _epoch_checkout(tmp: Path, module) -> Path:
    """Epoch's three files, in Epoch's columns, written from the committed tables."""
    epoch = tmp / "training-cost-trends"
    frontier = _rows("epoch_frontier.csv")
    random.Random(7).shuffle(frontier)  # the script sorts the models by name
    _write(epoch / "model_costs.csv", ["Model", "Cloud_Cost", "Hardware_Acquisition_Cost", "Hardware_Capex_Energy_Cost"],
           [{"Model": r["model"], "Cloud_Cost": r["cloud_cost_usd"],
             "Hardware_Acquisition_Cost": r["hardware_acquisition_cost_usd"],
             "Hardware_Capex_Energy_Cost": r["amortized_hardware_energy_cost_usd"]} for r in frontier])
    systems = [{"Model": r["model"], "Organization": r["organization"], "Publication date": r["publication_date"],
                "Parameters": r["parameters"] and f"{float(r['parameters'])}",  # Epoch writes 46400244.0
                "Training compute (FLOP)": r["training_compute_flop"], "Training hardware": r["training_hardware"],
                "Hardware quantity": r["hardware_quantity"] and f"{float(r['hardware_quantity'])}"}
               for r in frontier]
    _write(epoch / "data" / "All ML Systems - full view.csv", list(systems[0]), systems)
    prices = []
    for r in _rows("cloud_prices.csv"):
        if not r["source"].startswith(module.PRICE_SOURCE):
            continue
        row = {"Price source": r["source"][len(module.PRICE_SOURCE):], "Price date": r["price_date"],
               "Hardware model": r["epoch_hardware_model"], "Manufacturer": "", "Vendor": r["provider"],
               "Location": r["location"], "Price per chip-hour (on-demand)": r["on_demand_usd_per_gpu_hour"],
               "Price per chip-hour (1-year CUD)": r["committed_1y_usd_per_gpu_hour"],
               "Price per chip-hour (3-year CUD)": r["committed_3y_usd_per_gpu_hour"], "Price (hardware purchase)": "",
               "Notes": "", "Cloud GPU description": r["offer"], "Number of GPUs": "1"}
        prices += [row, dict(row, **{"Number of GPUs": "8"})]  # the same rate for a second instance size
    prices.append({**prices[0], "Hardware model": "NVIDIA GeForce RTX 4090", "Vendor": "vast.ai"})  # not in catalog
    _write(epoch / "data" / "Hardware prices.csv", list(prices[0]), prices)
    return epoch


def test_the_script_rebuilds_both_tables_and_keeps_other_sources(tmp_path, monkeypatch):
    module = _load()
    data = tmp_path / "data"
    shutil.copytree(ROOT / "explorer" / "data", data, ignore=shutil.ignore_patterns("build", "__pycache__"))
    monkeypatch.setattr(module, "DATA", data)
    epoch = _epoch_checkout(tmp_path, module)
    before = {name: (data / name).read_bytes() for name in ("epoch_frontier.csv", "cloud_prices.csv")}
    assert module.main([str(epoch), "--check"]) == 0
    assert module.main([str(epoch)]) == 0
    assert {name: (data / name).read_bytes() for name in before} == before  # byte for byte, line endings too


def test_a_changed_price_is_reported(tmp_path, monkeypatch, capsys):
    module = _load()
    data = tmp_path / "data"
    shutil.copytree(ROOT / "explorer" / "data", data, ignore=shutil.ignore_patterns("build", "__pycache__"))
    monkeypatch.setattr(module, "DATA", data)
    epoch = _epoch_checkout(tmp_path, module)
    path = epoch / "data" / "Hardware prices.csv"
    rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8-sig"))))
    rows[0]["Price per chip-hour (on-demand)"] = "9.99"
    _write(path, list(rows[0]), rows)
    assert module.main([str(epoch), "--check"]) == 1
    assert capsys.readouterr().out.strip() == "differ: cloud_prices.csv"


def test_an_empty_committed_table_is_refused_before_the_epoch_files_are_read(tmp_path):
    """No header to keep: a ValueError saying so, not a TypeError from the CSV writer (found by mypy)."""
    with pytest.raises(ValueError, match="empty"):
        _load().prices(tmp_path / "no-such-epoch-folder", "")
