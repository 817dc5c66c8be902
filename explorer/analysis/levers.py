"""The levers of an attribution, and a scenario split into per-lever quantities.

:func:`lever_atoms` splits a scenario's resolved inputs into the quantities each
lever owns; :func:`compose_inputs` turns (arrays of) them back into the inputs of
:func:`~explorer.model.vectorized.compute`. Attribution swaps whole groups
between two scenarios; sensitivity and Monte Carlo scale single quantities.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np

from explorer.model.inputs import compute_inputs
from explorer.model.resolve import resolve
from explorer.scenario import Scenario

__all__ = ["LEVERS", "PRECISION", "ARCHITECTURE", "MODEL_SIZE", "TOKENS", "ACCELERATOR", "CLUSTER", "PRICING",
           "REGION", "MFU", "RELIABILITY", "DATA", "TEAM", "EXPERIMENTS", "TRAINING_KIND", "OTHER"]

PRECISION = "precision"
ARCHITECTURE = "architecture"
MODEL_SIZE = "model_size"
TOKENS = "tokens"
ACCELERATOR = "accelerator"
CLUSTER = "cluster"
PRICING = "pricing"
REGION = "region"
MFU = "mfu"
RELIABILITY = "reliability"
DATA = "data"
TEAM = "team"
EXPERIMENTS = "experiments"
TRAINING_KIND = "training_kind"
#: Part of an :class:`Attribution` holding the levers left out of ``levers=``.
OTHER = "other"

#: Every lever :func:`attribute` knows, in display order.
LEVERS: tuple[str, ...] = (PRECISION, ARCHITECTURE, MODEL_SIZE, TOKENS, ACCELERATOR, CLUSTER, PRICING, REGION,
                           MFU, RELIABILITY, DATA, TEAM, EXPERIMENTS, TRAINING_KIND)


def nan_if_none(x: float | None) -> float:
    return math.nan if x is None else float(x)


def _ratio(value: float, ref: float) -> float:
    return value / ref if math.isfinite(ref) and ref != 0.0 else value


def lever_atoms(s: Scenario) -> dict[str, dict[str, float]]:
    """The scenario split into per-lever quantities that :func:`compose_inputs` turns back into compute inputs.

    Coupled inputs are products or sums of parts owned by different levers;
    :func:`~explorer.model.resolve.resolve` gives the parts (``Resolved.factors``),
    so no value is decided here: peak = accelerator peak at its 16-bit
    precision x precision ratio; default MFU = accelerator's measured MFU x
    precision speed-up factor x MoE factor (or the MFU lever's override); rate
    = on-demand price x pricing factor (or a rate override); owned capital and
    hardware = the accelerator's cost on the default terms x the pricing
    lever's factor; active params = params x MoE active fraction; data cost =
    tokens x price per token + fixed data costs; failures = base rate + spot
    preemptions.
    """
    r = resolve(s)
    x, f = r.inputs, r.factors
    trainable = f["trainable_fraction"]
    parts = r.memory_bytes_per_param
    act_scale = f["activation_scale"]
    on_demand = f["on_demand_usd_per_gpu_hour"]
    od_ref = on_demand if math.isfinite(on_demand) and on_demand > 0 else 1.0
    a_ref = f["owned_reference"]["accelerator_usd_per_gpu_hour"]
    h_ref = f["owned_reference"]["hardware_usd_per_gpu_hour"]
    if not (math.isfinite(a_ref) and a_ref > 0 and math.isfinite(h_ref) and h_ref > 0):
        # no catalog purchase price (resolve() estimates one from a peer): the pricing lever carries the value
        a_ref = h_ref = 1.0
    rate_override = s.rate_usd_per_gpu_hour is not None
    return {
        PRECISION: dict(peak_ratio=f["peak_ratio"], mfu_factor=f["mfu_precision_factor"], weight_bytes=parts["weights"],
                        update_bytes=(parts["gradients"] + parts["optimizer"]) / trainable, act_scale=act_scale),
        ARCHITECTURE: dict(active_fraction=x["active_params"] / x["params"], moe_factor=f["mfu_moe_factor"]),
        MODEL_SIZE: dict(params=x["params"], attention=x["attention_flop_per_token"],
                         act_ref=x["activation_bytes"] / act_scale,
                         act_sel_ref=x["activation_bytes_selective"] / act_scale,
                         act_full_ref=x["activation_bytes_full"] / act_scale),
        TOKENS: dict(tokens=x["tokens"]),
        ACCELERATOR: dict(peak_ref=f["peak_ref_flop_per_s"], mfu_base=f["mfu_base"], memory_gb=x["memory_gb"],
                          tdp_w=x["tdp_w"], server_power_factor=x["server_power_factor"],
                          avg_power_fraction=x["avg_power_fraction"], chip_power_w=x["chip_power_w"], od_ref=od_ref,
                          a_ref=a_ref, h_ref=h_ref),
        CLUSTER: dict(gpus=x["gpus"], deadline_days=x["deadline_days"], max_gpus=x["max_gpus"],
                      max_wall_days=x["max_wall_days"], tensor_parallel=x["tensor_parallel"],
                      pipeline_parallel=x["pipeline_parallel"], unsharded=x["unsharded_bytes_per_param"]),
        PRICING: dict(owned=float(x["owned"]), rate_override=float(rate_override),
                      rate=x["rate_usd_per_gpu_hour"] if rate_override else math.nan,
                      rate_factor=math.nan if rate_override else x["rate_usd_per_gpu_hour"] / od_ref,
                      a_factor=_ratio(x["accelerator_usd_per_gpu_hour"], a_ref),
                      h_factor=_ratio(x["hardware_usd_per_gpu_hour"], h_ref),
                      spot_failures=f["spot_failures_per_gpu_hour"]),
        REGION: dict(pue=x["pue"], grid=x["grid_gco2_per_kwh"], electricity=nan_if_none(f["electricity_usd_per_kwh"])),
        MFU: dict(override=float(f["mfu_set"]), mfu=x["mfu"] if f["mfu_set"] else math.nan),
        RELIABILITY: dict(failure=f["failure_rate_base_per_gpu_hour"], write_h=x["checkpoint_write_hours"],
                          interval_h=x["checkpoint_interval_hours"], restart_h=x["restart_hours"],
                          above=x["recovery_above_gpus"], write_mem_h=x["checkpoint_write_hours_in_memory"],
                          restart_mem_h=x["restart_hours_in_memory"],
                          other=x["other_losses_factor"]),
        DATA: dict(per_1m=s.data_usd_per_1m_tokens, fixed=f["data_fixed_usd"], checkpoints=s.checkpoints_kept,
                   storage=f["storage_usd_per_gb_month"]),
        TEAM: dict(per_month=x["team_usd_per_month"], months=x["project_months"],
                   months_max=x["project_months_max"]),
        EXPERIMENTS: dict(mult=x["experiments_multiplier"]),
        TRAINING_KIND: dict(flop_factor=x["flop_per_param_token"], trainable=trainable),
    }


def compose_inputs(a: Mapping[str, Mapping[str, float | np.ndarray]]) -> dict[str, Any]:
    """Inputs of :func:`compute` from per-lever quantities (arrays broadcast over coalitions or draws)."""
    p, ar, m, acc = a[PRECISION], a[ARCHITECTURE], a[MODEL_SIZE], a[ACCELERATOR]
    pr, rel, d, tk = a[PRICING], a[RELIABILITY], a[DATA], a[TRAINING_KIND]
    tokens = a[TOKENS]["tokens"]
    default_mfu = acc["mfu_base"] * p["mfu_factor"] * ar["moe_factor"]
    return compute_inputs(dict(  # every input of compute (explorer.model.inputs): one missing fails here
        params=m["params"],
        active_params=m["params"] * ar["active_fraction"],
        tokens=tokens,
        flop_per_param_token=tk["flop_factor"],
        attention_flop_per_token=m["attention"],
        peak_flop_per_s=acc["peak_ref"] * p["peak_ratio"],
        mfu=np.where(a[MFU]["override"] > 0, a[MFU]["mfu"], default_mfu),
        other_losses_factor=rel["other"],
        gpus=a[CLUSTER]["gpus"],
        deadline_days=a[CLUSTER]["deadline_days"],
        max_gpus=a[CLUSTER]["max_gpus"],
        max_wall_days=a[CLUSTER]["max_wall_days"],  # a run longer than this is infeasible: no money, as estimate
        failure_rate_per_gpu_hour=rel["failure"] + pr["spot_failures"],
        checkpoint_write_hours=rel["write_h"],
        checkpoint_interval_hours=rel["interval_h"],
        restart_hours=rel["restart_h"],
        recovery_above_gpus=rel["above"],
        checkpoint_write_hours_in_memory=rel["write_mem_h"],
        restart_hours_in_memory=rel["restart_mem_h"],
        state_bytes_per_param=p["weight_bytes"] + tk["trainable"] * p["update_bytes"],
        activation_bytes=m["act_ref"] * p["act_scale"],
        activation_bytes_selective=m["act_sel_ref"] * p["act_scale"],
        activation_bytes_full=m["act_full_ref"] * p["act_scale"],
        tensor_parallel=a[CLUSTER]["tensor_parallel"],
        pipeline_parallel=a[CLUSTER]["pipeline_parallel"],
        unsharded_bytes_per_param=a[CLUSTER]["unsharded"],
        memory_gb=acc["memory_gb"],
        tdp_w=acc["tdp_w"],
        chip_power_w=acc["chip_power_w"],
        server_power_factor=acc["server_power_factor"],
        avg_power_fraction=acc["avg_power_fraction"],
        pue=a[REGION]["pue"],
        grid_gco2_per_kwh=a[REGION]["grid"],
        rate_usd_per_gpu_hour=np.where(pr["rate_override"] > 0, pr["rate"], acc["od_ref"] * pr["rate_factor"]),
        owned=np.asarray(pr["owned"]) > 0,
        accelerator_usd_per_gpu_hour=acc["a_ref"] * pr["a_factor"],
        hardware_usd_per_gpu_hour=acc["h_ref"] * pr["h_factor"],
        electricity_usd_per_kwh=a[REGION]["electricity"],
        data_usd=tokens / 1e6 * d["per_1m"] + d["fixed"],
        team_usd_per_month=a[TEAM]["per_month"],
        project_months=a[TEAM]["months"],
        project_months_max=a[TEAM]["months_max"],
        checkpoints_kept=d["checkpoints"],
        storage_usd_per_gb_month=d["storage"],
        experiments_multiplier=a[EXPERIMENTS]["mult"],
    ))
