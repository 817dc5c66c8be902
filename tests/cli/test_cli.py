"""``python -m explorer``: estimate (JSON, deadline, scenario file, currency) and catalog listings."""

from __future__ import annotations

import csv
import json
import math
import subprocess
import sys
from importlib import resources

import pytest

from conftest import run_cli

from explorer.catalog import default

GPT3_ARGS = ["estimate", "--params", "175e9", "--tokens", "300e9", "--gpu", "v100", "--precision", "fp16", "--gpus", "10000",
             "--layers", "96", "--d-model", "12288", "--seq-len", "2048"]  # Brown et al. 2020, table 2.1


def _cli(*args):
    proc = run_cli(*args)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return proc


def _json(*args):
    proc = _cli(*args, "--json")

    def strict(name):
        raise ValueError(f"non-standard JSON constant {name}")

    return json.loads(proc.stdout, parse_constant=strict)


def _csv_rows(name):
    text = resources.files("explorer").joinpath("data", name).read_text(encoding="utf-8")
    return list(csv.DictReader(text.splitlines()))


def _gpt3_row():
    rows = [r for r in _csv_rows("published_runs.csv") if r["model"].startswith("GPT-3")]
    assert len(rows) == 1
    return rows[0]


@pytest.fixture(scope="module")
def gpt3():
    return _json(*GPT3_ARGS)


def test_gpt3_json_has_all_keys(gpt3):
    assert isinstance(gpt3, dict)
    for key in ("train_flop", "gpu_hours", "wall_days", "gpus", "mfu", "energy_mwh", "co2_tonnes", "cost",
                "currency", "warnings"):
        assert key in gpt3, key
    assert set(gpt3["cost"]) >= {"compute", "energy", "data", "people", "hardware", "hidden", "total"}
    assert gpt3["currency"] == "USD"
    assert isinstance(gpt3["warnings"], list)
    assert gpt3["gpus"] == 10000
    assert gpt3["train_flop"] == pytest.approx(6 * 175e9 * 300e9 + 12 * 96 * 12288 * 2048 * 300e9)


def test_gpt3_gpu_hours_within_25_percent_of_published(gpt3):
    reported = float(_gpt3_row()["gpu_hours"])  # 10,000 V100 x 14.8 days (Brown et al. 2020; Patterson et al. 2021)
    assert abs(gpt3["gpu_hours"] / reported - 1) <= 0.25, (gpt3["gpu_hours"], reported)


def test_gpt3_energy_within_30_percent_of_measured(gpt3):
    measured = float(_gpt3_row()["energy_mwh"])  # 1,287 MWh, Patterson et al. 2021
    assert abs(gpt3["energy_mwh"] / measured - 1) <= 0.30, (gpt3["energy_mwh"], measured)


def test_text_output_is_readable():
    # the one run of the real program (`python -m explorer`, as a user types it); every other CLI test calls
    # explorer.cli.main in-process (conftest.run_cli)
    proc = subprocess.run([sys.executable, "-m", "explorer", *GPT3_ARGS], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    out = proc.stdout
    assert "GPU-hours" in out and "total" in out
    for d in ("compute", "energy", "data", "people", "hardware", "hidden"):
        assert d in out


def test_days_mode_solves_gpu_count():
    r = _json("estimate", "--params", "70e9", "--tokens", "2e12", "--gpu", "h100-sxm", "--days", "30")
    assert isinstance(r["gpus"], int) and r["gpus"] > 1
    assert r["wall_days"] <= 30.0 * (1 + 1e-6)
    assert r["gpu_hours"] == pytest.approx(r["wall_days"] * 24 * r["gpus"], rel=1e-9)
    # not wastefully many: 1% fewer GPUs would miss the deadline
    assert r["gpu_hours"] / (24 * 0.99 * r["gpus"]) > 30.0
    # a longer deadline needs fewer GPUs
    r60 = _json("estimate", "--params", "70e9", "--tokens", "2e12", "--gpu", "h100-sxm", "--days", "60")
    assert r60["gpus"] < r["gpus"]


def test_scenario_file_and_overrides(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"params": 13e9, "tokens": 1e12, "gpu": "a100-80gb", "gpus": 512, "pricing": "hyperscaler_reserved_1y",
                                "n_layers": 40, "d_model": 5120, "seq_len": 2048}))  # LLaMA-13B shape
    r = _json("estimate", "--scenario", str(path))
    assert r["train_flop"] == pytest.approx(6 * 13e9 * 1e12 + 12 * 40 * 5120 * 2048 * 1e12)
    assert r["gpus"] == 512
    # 1-year committed A100-80GB at the hyperscalers (named hyperscaler_reserved_1y since issue 27, when
    # reserved_1y became the specialists'), 2025-03-02 (Epoch AI price DB): AWS p4de 3.00, Azure NC A100 v4 3.06
    # -> median 3.03
    assert r["cost"]["compute"] == pytest.approx(r["ideal_gpu_hours"] * (3.00 + 3.06) / 2)
    # options override the file
    # (the file's seller, the hyperscalers, stays unless --seller changes it too)
    r2 = _json("estimate", "--scenario", str(path), "--tokens", "2e12", "--days", "20", "--pricing", "on_demand",
               "--seller", "specialist")
    assert r2["train_flop"] == pytest.approx(6 * 13e9 * 2e12 + 12 * 40 * 5120 * 2048 * 2e12)
    assert r2["wall_days"] <= 20.0 * (1 + 1e-6)
    # specialist on-demand A100-80GB from the providers' own pages (issue 37), each provider's latest within a year of
    # the newest (2025-03-03, Epoch AI's archived copies): Oblivus Cloud 1.57, RunPod 1.89, CR8DL 2.93: median 1.89
    assert r2["cost"]["compute"] == pytest.approx(r2["ideal_gpu_hours"] * 1.89)


def test_currency_cny_multiplies_costs(gpt3):
    cny = _json(*GPT3_ARGS, "--currency", "CNY", "--usd-to-cny", "7.2")
    assert cny["currency"] == "CNY"
    for k, v in gpt3["cost"].items():
        assert cny["cost"][k] == pytest.approx(v * 7.2)
    cny_default = _json(*GPT3_ARGS, "--currency", "CNY")
    assert cny_default["cost"]["total"] == pytest.approx(gpt3["cost"]["total"] * default("usd_to_cny"))
    # physical quantities do not change with currency
    assert cny["gpu_hours"] == gpt3["gpu_hours"] and cny["energy_mwh"] == gpt3["energy_mwh"]


@pytest.mark.parametrize("which, csv_name", [("gpus", "accelerators.csv"), ("regions", "regions.csv")])
def test_catalog_lists_every_id(which, csv_name):
    ids = [r["id"] for r in _csv_rows(csv_name)]
    assert ids
    text = _cli("catalog", which).stdout
    listed = [line.split()[0] for line in text.splitlines()[1:] if line.strip()]
    assert listed == ids
    rows = json.loads(_cli("catalog", which, "--json").stdout)
    assert [r["id"] for r in rows] == ids


def test_catalog_defaults_lists_every_name():
    names = [r["name"] for r in _csv_rows("defaults.csv")]
    rows = json.loads(_cli("catalog", "defaults", "--json").stdout)
    assert [r["name"] for r in rows] == names
    assert all(not math.isnan(r["value"]) for r in rows)


def test_cli_accepts_params_7B():
    out = run_cli("estimate", "--params", "7B", "--tokens", "2T")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("Scenario: 7e+09 params") and "2e+12 tokens" in out.stdout
    bad = run_cli("estimate", "--params", "7X")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "'7X' is not a number" in bad.stderr
