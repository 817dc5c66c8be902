"""Warnings about a scenario and its result: what the user should know before trusting it."""

from __future__ import annotations

import math
from typing import Mapping

from explorer import catalog, rules
from explorer.catalog import default
from explorer.messages import Message
from explorer.model.resolve import reference_precision
from explorer.model.formulas import HOURS_PER_YEAR
from explorer.model.layout import Layout
from explorer.model.vectorized import GPU_COUNT_CEILING, INFEASIBLE_REASONS
from explorer.scenario import Scenario

__all__ = ["result_warnings", "people_largest", "DIMENSIONS"]

#: The six cost dimensions, as compute names them (``cost_<dimension>_usd``).
DIMENSIONS = ("compute", "energy", "data", "people", "hardware", "hidden")


def people_largest(cost: Mapping[str, float]) -> bool:
    """True when people cost more than nothing and at least as much as each other dimension [USD by dimension]."""
    people = cost["people"]
    others = [cost[d] for d in DIMENSIONS if d != "people"]
    return bool(math.isfinite(people) and people > 0 and all(math.isfinite(x) and people >= x for x in others))


def result_warnings(s: Scenario, v: Mapping[str, float], mfu: float, layout: Layout | None = None,
                    next_without_idle: Layout | None = None) -> list[Message]:
    """Warnings about the result ``v`` (scalar outputs of :func:`~explorer.model.compute`) of scenario ``s``.

    ``layout`` (an :class:`explorer.model.layout.Layout`) is the run's parallel layout: when the least
    global batch the cluster allows (one sequence per micro-batch of each replica of the largest
    tensor-parallel group; with a 1F1B pipeline of p stages each replica keeps p micro-batches in flight,
    Narayanan et al. 2021, so pipelining does not lower it) is more than ``batch_over_critical_max`` times
    the critical batch of the run's compute (DeepSeek-AI 2024, ``B_opt = 0.2920 C^0.3271``), it is warned
    about: beyond the critical batch (McCandlish et al. 2018, arXiv 1812.06162) a larger batch no longer
    cuts the steps, so more GPUs no longer shorten the run as the model assumes. When the layout leaves at least
    ``idle_gpus_warn_share`` of the GPUs idle beyond whole data-parallel replicas, it says so and by how much the
    run would lengthen on the GPUs that work, ``gpus / (gpus - idle_gpus)``: the time and cost assume every GPU
    works. ``next_without_idle`` is the layout of the nearest larger count on which none sits idle, where one was
    found (:func:`explorer.model.estimating.next_count_without_idle`).
    """
    acc = catalog.accelerator(s.gpu)
    out: list[Message] = []
    gpus, floor, good = v["gpus"], v["min_gpus_memory"], v["goodput"]
    max_gpus = default("max_gpus")
    needed = v.get("gpus_needed", gpus)
    controlled = catalog.export_controls().get(s.gpu)  # a US-controlled chip priced in a Chinese region
    if controlled is not None and catalog.region(s.region).country == controlled["destination_country"]:
        out.append(Message("export_controlled", gpu=acc.name))
    if v["deadline_impossible"]:
        if needed >= GPU_COUNT_CEILING or (good <= 0.0 and needed <= max_gpus):
            out.append(Message("deadline_unreachable", max_gpus=max_gpus))
        elif needed > max_gpus:
            out.append(Message("deadline_too_many_gpus", gpus=needed, max_gpus=max_gpus))
        else:
            out.append(Message("deadline_impossible", gpus=gpus, days=v["wall_days"]))
    elif s.gpus is not None and gpus > max_gpus:
        out.append(Message("gpus_beyond_known", gpus=gpus, max_gpus=max_gpus))
    reason = INFEASIBLE_REASONS[int(v.get("infeasible_reason", 0))]
    recompute = layout.recompute if layout is not None else ("full" if s.recompute == "auto" else s.recompute)
    if reason == "no_fit" and math.isfinite(floor) and floor > max_gpus:
        out.append(Message("state_fits_no_cluster", floor=floor, gpu=acc.name, max_gpus=max_gpus))
    if reason == "too_long" and good > 0.0:
        out.append(Message("run_too_long", years=v["wall_days"] * 24.0 / HOURS_PER_YEAR,
                           max_years=default("max_run_years")))
    if reason:
        alt_gpus = v.get("alternative_gpus", math.nan)
        if math.isfinite(alt_gpus) and reason == "deadline":
            out.append(Message("infeasible_no_money", gpus=alt_gpus, days=v["alternative_wall_days"]))
        elif math.isfinite(alt_gpus):
            out.append(Message("infeasible_nearest", gpus=alt_gpus, days=v["alternative_wall_days"],
                               max_years=default("max_run_years")))
        else:
            out.append(Message("infeasible_no_alternative", max_gpus=max_gpus))
    if layout is not None:
        factor = default("batch_over_critical_max")
        if layout.min_batch_tokens > factor * layout.critical_batch_tokens:
            out.append(Message("batch_beyond_critical", gpus=gpus, batch=layout.min_batch_tokens,
                               critical=layout.critical_batch_tokens, ratio=layout.min_batch_tokens
                               / layout.critical_batch_tokens, factor=factor, steps=float(layout.steps)))
        group = layout.tensor_parallel * layout.pipeline_parallel
        used = layout.data_parallel * group
        if used > 0 and layout.idle_gpus >= default("idle_gpus_warn_share") * (used + layout.idle_gpus):
            # compute's time and cost count every GPU: say by how much, where it is more than a rounding
            n = used + layout.idle_gpus
            out.append(Message("layout_idle_gpus", idle=float(layout.idle_gpus), gpus=float(n),
                               replicas=float(layout.data_parallel), group=float(group), share=layout.idle_gpus / n,
                               used=float(used), factor=n / used))
            if next_without_idle is not None:
                nxt = next_without_idle
                out.append(Message("layout_idle_next", next=float(nxt.data_parallel * nxt.tensor_parallel
                                                                  * nxt.pipeline_parallel),
                                   tp=float(nxt.tensor_parallel), pp=float(nxt.pipeline_parallel),
                                   dp=float(nxt.data_parallel)))
    if good <= 0.0:
        out.append(Message("goodput_zero"))
    elif good < default("min_useful_goodput"):
        out.append(Message("goodput_low", goodput=good, lost=1 - good, limit=1 - default("min_useful_goodput")))
    if s.deadline_days is not None and not v["deadline_impossible"] and gpus == floor and floor > 1:
        out.append(Message("gpus_set_by_memory", gpus=floor, gpu=acc.name))
    if math.isinf(floor):
        out.append(Message("activations_do_not_fit", activation_gb=v["activation_gb_per_gpu"], gpu=acc.name,
                           recompute=recompute, memory_gb=acc.memory_gb))
    elif gpus < floor:
        out.append(Message("memory_short", floor=floor, gpu=acc.name, memory_gb=acc.memory_gb, recompute="full"
                           if s.recompute == "auto" else s.recompute, gpus=gpus))
    if s.pricing == "owned" and s.rate_usd_per_gpu_hour is not None:
        out.append(Message("owned_rate_ignored"))
    if s.architecture == "dense" and (s.experts is not None or s.active_params is not None):
        out.append(Message("moe_settings_ignored"))
    if s.pricing == "spot" and gpus >= default("spot_large_job_gpus"):
        out.append(Message("spot_large", gpus=gpus))
    if s.precision in ("fp8", "fp4"):
        ref = reference_precision(acc)
        if acc.peak_tflops[s.precision] <= acc.peak_tflops[ref]:
            out.append(Message("precision_no_speedup", precision=s.precision.upper(), gpu=acc.name,
                               reference=ref.upper()))
    lo, hi = default("calibrated_mfu_min"), default("calibrated_mfu_max")
    if not lo <= mfu <= hi:
        out.append(Message("mfu_outside_range", mfu=mfu, lo=lo, hi=hi))
    if s.architecture == "moe" and s.active_params is None and s.experts is not None and s.top_k is not None:
        out.append(Message("moe_active_lower_bound"))
    if s.mfu is None and not acc.mfu_default:
        out.append(Message("mfu_unmeasured", gpu=acc.name, mfu=default("mfu_dense")))
    if recompute == "full":
        out.append(Message("full_recompute_mfu"))
    if s.labelled_examples > 0 and s.usd_per_labelled_example == 0:
        out.append(Message("labelled_examples_free", n=s.labelled_examples))
    cost = {d: float(v[f"cost_{d}_usd"]) for d in DIMENSIONS}
    if people_largest(cost):
        default_team = s.team_headcount is None
        headcount = float(rules.team_headcount(v["train_flop"], s.training_kind)) if default_team else s.team_headcount
        out.append(Message("people_largest_default" if default_team else "people_largest",
                           share=cost["people"] / sum(cost.values()), headcount=headcount,
                           months=float(v["project_months"])))
    return out
