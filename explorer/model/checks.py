"""Warnings about a scenario and its result: what the user should know before trusting it."""

from __future__ import annotations

import math
from typing import Mapping

from explorer import catalog
from explorer.catalog import default
from explorer.model.resolve import reference_precision
from explorer.model.vectorized import GPU_COUNT_CEILING
from explorer.scenario import Scenario

__all__ = ["result_warnings"]


def _count(n: float) -> str:
    return f"{n:,.0f}" if math.isfinite(n) else "no number of"


def result_warnings(s: Scenario, v: Mapping[str, float], mfu: float) -> list[str]:
    """Warnings about the result ``v`` (scalar outputs of :func:`~explorer.model.compute`) of scenario ``s``."""
    acc = catalog.accelerator(s.gpu)
    out: list[str] = []
    gpus, floor, good = v["gpus"], v["min_gpus_memory"], v["goodput"]
    max_gpus = default("max_gpus")
    largest = f"the largest cluster the model knows ({max_gpus:,.0f} GPUs)"
    if v["deadline_impossible"]:
        if good <= 0.0 or gpus >= GPU_COUNT_CEILING:
            out.append(f"Deadline impossible: no cluster meets it; at the size it would need, failures stop "
                       f"all progress (well beyond {largest}).")
        elif gpus > max_gpus:
            out.append(f"Deadline impossible: it needs {gpus:,.0f} GPUs, more than {largest}.")
        else:
            out.append(f"Deadline impossible: even {gpus:,.0f} GPUs take {v['wall_days']:.3g} days.")
    elif s.gpus is not None and gpus > max_gpus:
        out.append(f"{gpus:,.0f} GPUs is more than {largest}: no disclosed training run is this large, "
                   "so the failure and goodput figures are extrapolated.")
    if good <= 0.0:
        out.append("Goodput 0: at this scale failures arrive faster than the job can restart and checkpoint, "
                   "so no training progress is made and the GPU-hours, time and total cost are unknown; "
                   "lower the failure rate, restart time or GPU count.")
    elif good < default("min_useful_goodput"):
        out.append(f"Goodput {good:.2f}: failures, restarts and checkpoints lose {1 - good:.0%} of the GPU time "
                   f"(more than {1 - default('min_useful_goodput'):.0%}); check the reliability inputs.")
    if s.deadline_days is not None and not v["deadline_impossible"] and gpus == floor and floor > 1:
        out.append(f"The GPU count is set by memory, not the deadline: {floor:,.0f} x {acc.name} are needed to hold "
                   "the training state and activations.")
    if math.isinf(floor):
        out.append(f"Activations do not fit in memory: one sequence needs {v['activation_gb_per_gpu']:,.0f} GB per {acc.name} "
                   f"even split over the tensor-parallel group ({s.recompute} recomputation, {acc.memory_gb:g} GB "
                   "each); use full recomputation, a shorter sequence or more model parallelism. The GPU count "
                   "covers the training state only.")
    elif gpus < floor:
        out.append(
            f"Does not fit in memory: the training state and activations need at least {_count(floor)} x {acc.name} "
            f"({acc.memory_gb:g} GB each, fully sharded, {s.recompute} recomputation); the run has {gpus:,.0f}."
        )
    if s.pricing == "owned" and s.rate_usd_per_gpu_hour is not None:
        out.append("The typed cloud rate is ignored for owned hardware (capital, hosting and energy are used).")
    if s.architecture == "dense" and (s.experts is not None or s.active_params is not None):
        out.append("The MoE settings (experts, active parameters) are ignored for a dense model.")
    if s.pricing == "spot" and gpus >= default("spot_large_job_gpus"):
        out.append(f"Spot at {gpus:,.0f} GPUs: one reclaimed node stalls the whole synchronous job; "
                   "capacity this large is rarely available as spot.")
    if s.precision in ("fp8", "fp4"):
        ref = reference_precision(acc)
        if acc.peak_tflops[s.precision] <= acc.peak_tflops[ref]:
            out.append(f"{s.precision.upper()} on {acc.name} runs at the {ref.upper()} rate: no speed-up.")
    lo, hi = default("calibrated_mfu_min"), default("calibrated_mfu_max")
    if not lo <= mfu <= hi:
        out.append(f"MFU {mfu:.2f} is outside the range seen in published runs ({lo:.2f}-{hi:.2f}).")
    if s.architecture == "moe" and s.active_params is None and s.experts is not None and s.top_k is not None:
        out.append("Active parameters from experts and top-k ignore shared layers: compute is a lower bound.")
    if s.mfu is None and not acc.mfu_default:
        out.append(f"No measured MFU for {acc.name}: the default {default('mfu_dense'):.2f} was measured on other "
                   "hardware (A100, H100, TPU); type the MFU you measure.")
    if s.recompute == "full":
        out.append("Full recomputation repeats the forward pass (about a third more hardware FLOP; Korthikanti "
                   "et al. 2022): the default MFU, measured with selective recomputation, may be too high.")
    if s.labelled_examples > 0 and s.usd_per_labelled_example == 0:
        out.append(f"{s.labelled_examples:,.0f} labelled examples cost nothing here: no sourced price per example; "
                   "type the labelling price.")
    return out
