"""Backtest of the cost model against the disclosed runs in ``explorer/data/published_runs.csv``.

GPU-hours: every run that reports GPU-hours and has params and tokens and whose
hardware maps to a catalog accelerator, estimated with the model's default MFU,
failure rate and everything else (no per-run tuning).

Energy: the four runs whose energy Patterson et al. 2021 measured (T5-11B,
Meena, Switch Transformer, GPT-3).
"""

from __future__ import annotations

import math
import statistics

import pytest

from explorer import Scenario, catalog, estimate
from explorer.catalog import default
from explorer.model import compute

#: hardware text of published_runs.csv -> catalog accelerator id (rows with other text are skipped)
HARDWARE = {
    "NVIDIA P100": "p100",
    "NVIDIA V100": "v100",
    "NVIDIA V100 32GB": "v100",
    "NVIDIA A100 40GB": "a100-40gb",
    "NVIDIA A100 80GB": "a100-80gb",
    "NVIDIA H100 80GB": "h100-sxm",
    "NVIDIA H800": "h800",
    "Google TPU v3": "tpu-v3",
    "Google TPU v4": "tpu-v4",
}

#: Runs that report GPU-hours but neither the accelerator count nor the wall time.
#: Llama 2 70B: Meta does not give the count; we use 2048 A100-80GB, the cluster
#: size Meta reported for LLaMA-1 (Touvron et al. 2023) a few months earlier on the same hardware.
FALLBACK_GPUS = {"Llama 2 70B": 2048}

MAX_MEDIAN_ABS_LOG10 = 0.12
ENERGY_TOLERANCE = 0.30
ENERGY_MEASURED = ("T5-11B", "Meena", "Switch Transformer (1.5T)", "GPT-3 175B (davinci)")


def _num(text):
    return float(text) if text and text.strip() else None


def _precision(row, gpu):
    if row["precision"].upper().startswith("FP8"):
        return "fp8"
    return "fp16" if gpu == "v100" else "bf16"


def _scenario(row):
    gpu = HARDWARE[row["hardware"]]
    kw = dict(params=_num(row["params_total"]), tokens=_num(row["tokens"]), gpu=gpu, precision=_precision(row, gpu))
    active = _num(row["params_active"])
    if active is not None:
        kw.update(architecture="moe", active_params=active)
    n = _num(row["n_accelerators"])
    if n is not None:
        kw["gpus"] = int(n)
    elif _num(row["wall_days"]) is not None:  # count solved from the reported wall time
        kw.update(gpus=None, deadline_days=_num(row["wall_days"]))
    else:
        kw["gpus"] = FALLBACK_GPUS[row["model"]]
    return Scenario(**kw)


def _backtest_rows():
    rows = []
    for row in catalog.published_runs():
        if not (_num(row["gpu_hours"]) and _num(row["params_total"]) and _num(row["tokens"])):
            continue
        if row["hardware"] not in HARDWARE:
            continue
        rows.append(row)
    return rows


def test_backtest_gpu_hours(record_property):
    rows = _backtest_rows()
    assert len(rows) >= 8, [r["model"] for r in rows]
    lines = [f"{'model':<24} {'gpu':<10} {'prec':<5} {'gpus':>6} {'reported':>12} {'predicted':>12} {'log10':>7}"]
    errors = []
    for row in rows:
        s = _scenario(row)
        e = estimate(s)
        reported = _num(row["gpu_hours"])
        log_ratio = math.log10(e.gpu_hours / reported)
        errors.append(abs(log_ratio))
        lines.append(
            f"{row['model'][:24]:<24} {s.gpu:<10} {s.precision:<5} {e.gpus:>6} {reported:>12,.0f} "
            f"{e.gpu_hours:>12,.0f} {log_ratio:>+7.3f}"
        )
    median = statistics.median(errors)
    lines.append(f"median |log10(predicted/reported)| = {median:.3f} over {len(errors)} runs (limit {MAX_MEDIAN_ABS_LOG10})")
    table = "\n".join(lines)
    print("\n" + table)
    record_property("backtest_gpu_hours", table)
    assert median <= MAX_MEDIAN_ABS_LOG10, table
    # no single run off by more than a factor of 2
    assert max(errors) <= math.log10(2), table


def _energy_from_reported_gpu_hours(row):
    """Energy formula through compute() with the run's reported chip-hours.

    TPU v3 TDP from the catalog, the model's default TPU server factor, power
    fraction and PUE (the model default, not the PUE in the row's notes: the
    point is how well the defaults do). Tokens are set so that the ideal
    GPU-hours equal the reported ones; no failures (reported hours are all-in).
    """
    acc = catalog.accelerator(HARDWARE[row["hardware"]])
    hours = _num(row["gpu_hours"])
    n = _num(row["params_total"])
    peak, mfu = acc.peak_tflops["bf16"] * 1e12, default("mfu_dense")
    r = compute(
        params=n,
        active_params=n,
        tokens=hours * 3600 * peak * mfu / (6 * n),
        peak_flop_per_s=peak,
        mfu=mfu,
        gpus=_num(row["n_accelerators"]),
        tdp_w=acc.tdp_w,
        server_power_factor=default("server_power_factor_tpu"),
        avg_power_fraction=default("avg_power_fraction_tpu"),
        pue=default("pue"),
    )
    assert float(r["gpu_hours"]) == pytest.approx(hours, rel=1e-9)
    return float(r["energy_mwh"])


def test_backtest_energy(record_property):
    rows = {r["model"]: r for r in catalog.published_runs()}
    lines = [f"{'model':<26} {'measured MWh':>12} {'predicted':>10} {'ratio':>6}"]
    bad = []
    for name in ENERGY_MEASURED:
        row = rows[name]
        measured = _num(row["energy_mwh"])
        if _num(row["tokens"]) is None:
            predicted = _energy_from_reported_gpu_hours(row)
        else:  # GPT-3: the full estimate
            predicted = estimate(_scenario(row)).energy_mwh
        ratio = predicted / measured
        lines.append(f"{name[:26]:<26} {measured:>12,.1f} {predicted:>10,.1f} {ratio:>6.2f}")
        if abs(ratio - 1) > ENERGY_TOLERANCE:
            bad.append(name)
    table = "\n".join(lines)
    print("\n" + table)
    record_property("backtest_energy", table)
    assert not bad, table
