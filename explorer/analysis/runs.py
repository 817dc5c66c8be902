"""Every published run and every model of Epoch's frontier set in one table, each beside the model's replay.

The Models tab shows this table: a run's disclosed facts (date, parameters, tokens, compute, hardware, GPU
count, GPU-hours, cost) beside the model's **replay** of it (the run's own facts as the scenario's inputs,
every other field the model's default, no per-run tuning: the rule of ``tests/model/test_backtest.py``) and
the replay's error on GPU-hours, and each cost method: the developer's reported cost, Epoch AI's cloud,
hardware-acquisition and amortized hardware+energy estimates (Cottier et al. 2024), and the replay's final run
on the default price basis.

Two sources, kept apart (a model in both appears twice, once per source):

* ``published_runs.csv``: disclosed runs (params, tokens, hardware, GPU-hours, cost), a source per row;
* ``epoch_frontier.csv``: Epoch AI's frontier set (82 models in the top 10 by compute when published), which
  gives compute but not tokens: a replay takes tokens = C / (6 N) (the 6·N·D rule the model itself uses), and
  the table marks them derived.

A row can be replayed when its parameters, tokens (or compute, for an Epoch row) and an accelerator of the
catalog are known; otherwise :func:`run_scenario` says what is missing.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Mapping

import pandas as pd

from explorer import catalog
from explorer.errors import ScenarioError
from explorer.messages import Message
from explorer.model import estimate
from explorer.scenario import Scenario

__all__ = ["HARDWARE_IDS", "models_table", "run_scenario", "MODEL_COLUMNS"]

#: Hardware text of the two tables -> catalog accelerator id. Rule: the catalog's accelerator of the same chip
#: and memory; an A100 of unstated memory -> the 40 GB part (the one sold first, 2020; both have the same
#: peak FLOP/s, so GPU-hours do not depend on it); V100 variants (DGXS 16/32 GB, V100S PCIe) -> the V100 SXM2
#: (dense FP16 peak 125 TFLOP/s, V100S PCIe 130: within 4%). Chips the catalog does not hold (K40, K80,
#: GTX TITAN X, TPU v1) and rows that name none cannot be replayed.
HARDWARE_IDS: Mapping[str, str] = {
    "NVIDIA P100": "p100",
    "NVIDIA V100": "v100",
    "NVIDIA V100 32GB": "v100",
    "NVIDIA Tesla V100 DGXS 32 GB": "v100",
    "NVIDIA Tesla V100 DGXS 16 GB": "v100",
    "NVIDIA Tesla V100S PCIe 32 GB": "v100",
    "NVIDIA A100": "a100-40gb",
    "NVIDIA A100 40GB": "a100-40gb",
    "NVIDIA A100 SXM4 40 GB": "a100-40gb",
    "NVIDIA A100 80GB": "a100-80gb",
    "NVIDIA A100 SXM4 80 GB": "a100-80gb",
    "NVIDIA H100 80GB": "h100-sxm",
    "NVIDIA H100 SXM5 80GB": "h100-sxm",
    "NVIDIA H800": "h800",
    "Google TPU v2 (Cloud TPU)": "tpu-v2",
    "Google TPU v3": "tpu-v3",
    "Google TPU v4": "tpu-v4",
}

#: Columns of :func:`models_table`, in order.
MODEL_COLUMNS = ("id", "source", "model", "organization", "date", "params", "tokens", "tokens_derived",
                 "compute_flop", "hardware", "gpu", "gpus", "reported_gpu_hours", "replay_gpu_hours",
                 "gpu_hours_error", "reported_cost_usd", "epoch_cloud_usd", "epoch_acquisition_usd",
                 "epoch_amortized_usd", "replay_run_usd", "missing")


def _num(text: str | None) -> float | None:
    try:
        value = float(text) if text and text.strip() else None
    except ValueError:
        return None
    return value if value is not None and math.isfinite(value) else None


def _published_facts(row: Mapping[str, str]) -> dict[str, Any]:
    params, active = _num(row["params_total"]), _num(row["params_active"])
    tokens = _num(row["tokens"])
    flop = _num(row["train_flop"])
    return {"id": "run:" + row["model"], "source": "published", "model": row["model"], "organization": row["org"],
            "date": row["year"], "params": params, "active_params": active, "tokens": tokens, "tokens_derived": False,
            "compute_flop": flop, "hardware": row["hardware"], "gpus": _num(row["n_accelerators"]),
            "wall_days": _num(row["wall_days"]), "precision": row["precision"],
            "shape": {k: int(row[k]) for k in ("n_layers", "d_model", "seq_len") if row[k]},
            "reported_gpu_hours": _num(row["gpu_hours"]), "reported_cost_usd": _num(row["reported_cost_usd"]),
            "epoch_cloud_usd": None, "epoch_acquisition_usd": None, "epoch_amortized_usd": None}


def _epoch_facts(row: Mapping[str, str]) -> dict[str, Any]:
    params, flop = _num(row["parameters"]), _num(row["training_compute_flop"])
    tokens = flop / (6 * params) if params and flop else None  # C = 6 N D, turned around (marked derived)
    return {"id": row["id"], "source": "epoch", "model": row["model"], "organization": row["organization"],
            "date": row["publication_date"], "params": params, "active_params": None, "tokens": tokens,
            "tokens_derived": tokens is not None, "compute_flop": flop, "hardware": row["training_hardware"],
            "gpus": _num(row["hardware_quantity"]), "wall_days": None, "precision": "", "shape": {},
            "reported_gpu_hours": None, "reported_cost_usd": None,
            "epoch_cloud_usd": _num(row["cloud_cost_usd"]),
            "epoch_acquisition_usd": _num(row["hardware_acquisition_cost_usd"]),
            "epoch_amortized_usd": _num(row["amortized_hardware_energy_cost_usd"])}


def _missing(facts: dict[str, Any]) -> list[str]:
    missing = []
    if not facts["params"]:
        missing.append("params")
    if not facts["tokens"]:
        missing.append("compute_flop" if facts["source"] == "epoch" else "tokens")
    if facts["hardware"] not in HARDWARE_IDS:
        missing.append("gpu")
    return missing


def _scenario(facts: dict[str, Any]) -> Scenario:
    """The replay scenario of a row with everything it needs (the rule of tests/model/test_backtest.py)."""
    gpu = HARDWARE_IDS[facts["hardware"]]
    fp8 = facts["precision"].upper().startswith("FP8")
    precision = "fp8" if fp8 else "fp16" if gpu == "v100" else "bf16"
    if precision not in catalog.accelerator(gpu).precisions:
        precision = catalog.accelerator(gpu).nearest_precision(precision)
    kw: dict[str, Any] = dict(params=facts["params"], tokens=facts["tokens"], gpu=gpu, precision=precision, **facts["shape"])
    if facts["active_params"]:
        kw.update(architecture="moe", active_params=facts["active_params"])
    if facts["gpus"]:
        kw["gpus"] = int(facts["gpus"])
    elif facts["wall_days"]:  # the count solved from the reported wall time
        kw.update(gpus=None, deadline_days=facts["wall_days"])
    return Scenario(**kw)


@functools.cache
def _facts() -> tuple[dict[str, Any], ...]:
    return (tuple(_published_facts(r) for r in catalog.published_runs())
            + tuple(_epoch_facts(r) for r in catalog.read_csv("epoch_frontier.csv")))


def run_scenario(row_id: str) -> Scenario:
    """The replay scenario of the table's row ``row_id`` (``run:<model>`` or an Epoch id).

    Raises
    ------
    ScenarioError
        For an unknown id, or a row without what a replay needs (the message names the missing fields).
    """
    for facts in _facts():
        if facts["id"] == row_id:
            missing = _missing(facts)
            if missing:
                raise ScenarioError("model_row", facts["model"], Message("models_missing", fields=tuple(missing)))
            return _scenario(facts)
    raise ScenarioError("model_row", row_id, Message("allowed_model_row", example=repr(next(iter(_facts()))["id"])))


@functools.cache
def models_table() -> pd.DataFrame:
    """Every published run and every Epoch frontier model, with the replay and each cost method.

    Returns
    -------
    pandas.DataFrame
        One row per model and source, columns :data:`MODEL_COLUMNS`: ``date`` (text: a year or ISO date),
        ``params`` [parameters], ``tokens`` [tokens] (``tokens_derived``: C/(6N) from Epoch's compute),
        ``compute_flop`` [FLOP], ``gpu`` (catalog id or ""), ``gpus`` [GPUs], ``reported_gpu_hours`` and
        ``replay_gpu_hours`` [GPU-h], ``gpu_hours_error`` (replay / reported - 1), the costs [USD, the
        dollars of each source], ``missing`` (fields a replay needs and the row lacks; "" when it replays).
        Unknown values are NaN. Built once per process (about 100 estimates).
    """
    rows = []
    for facts in _facts():
        missing = _missing(facts)
        replay_hours = replay_usd = math.nan
        gpus = facts["gpus"]
        if not missing:
            try:
                e = estimate(_scenario(facts))
            except ScenarioError:
                missing = ["scenario"]
            else:
                replay_hours, replay_usd, gpus = e.gpu_hours, e.final_run_usd, e.gpus
        reported = facts["reported_gpu_hours"]
        rows.append({
            **{k: facts[k] for k in ("id", "source", "model", "organization", "date", "tokens_derived", "hardware")},
            **{k: (math.nan if facts[k] is None else facts[k])
               for k in ("params", "tokens", "compute_flop", "reported_gpu_hours", "reported_cost_usd",
                         "epoch_cloud_usd", "epoch_acquisition_usd", "epoch_amortized_usd")},
            "gpu": HARDWARE_IDS.get(facts["hardware"], ""),
            "gpus": math.nan if gpus is None else float(gpus),
            "replay_gpu_hours": replay_hours, "replay_run_usd": replay_usd,
            "gpu_hours_error": replay_hours / reported - 1 if reported and math.isfinite(replay_hours) else math.nan,
            "missing": ", ".join(missing),
        })
    return pd.DataFrame(rows, columns=list(MODEL_COLUMNS))
