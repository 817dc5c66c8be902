"""The inputs of :func:`~explorer.model.compute`, declared once.

Each input is an :class:`InputSpec`: its name, its default (none: required), its unit and what it is.
:data:`COMPUTE_INPUTS` is the one list: :func:`~explorer.model.compute` takes its signature and the
Parameters of its docstring from it, and :func:`compute_inputs` checks what the callers that build every
input (:func:`~explorer.model.resolve.resolve`, ``explorer.analysis.levers.compose_inputs``) pass against it. An
input added here is one a caller that forgets it fails on at once, naming it.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass
from typing import Any, Mapping, NoReturn

__all__ = ["InputSpec", "COMPUTE_INPUTS", "INPUT_NAMES", "compute_inputs", "parameters_doc", "signature"]

#: An input with no default: the caller must give it.
REQUIRED: Any = inspect.Parameter.empty


@dataclass(frozen=True)
class InputSpec:
    """One input of compute.

    Parameters
    ----------
    name : str
        Its keyword, with its unit in the name where it has one (``_usd``, ``_hours``).
    default : float or bool
        The value when it is not given; :data:`REQUIRED` when it must be.
    unit : str
        Its unit, as numpydoc brackets write it (``"USD/GPU-hour"``, ``"1"``).
    doc : str
        What it is, one or two sentences.
    """

    name: str
    default: Any
    unit: str
    doc: str


_nan, _inf = math.nan, math.inf

#: Every input of compute, in the order of its signature.
COMPUTE_INPUTS: tuple[InputSpec, ...] = (
    InputSpec("params", REQUIRED, "1", "Total parameters N."),
    InputSpec("active_params", REQUIRED, "1", "Active parameters per token Na (= N for a dense model)."),
    InputSpec("tokens", REQUIRED, "1", "Training tokens D."),
    InputSpec("flop_per_param_token", 6.0, "FLOP",
              "FLOP per parameter per token: 6 (training), ``4 + 6 f`` for LoRA."),
    InputSpec("attention_flop_per_token", 0.0, "FLOP", "Attention FLOP per token, ``12 L d s``."),
    InputSpec("peak_flop_per_s", REQUIRED, "FLOP/s", "Dense peak of one accelerator at the training precision."),
    InputSpec("mfu", REQUIRED, "1", "Steady-state model FLOPs utilization against that peak."),
    InputSpec("other_losses_factor", 1.0, "x", "Billed time beyond failures and checkpoints (evaluations, stack "
              "restarts, stragglers, ramp-up) as a factor, >= 1."),
    InputSpec("gpus", _nan, "1", "Accelerator count; NaN: the cheapest cluster that meets ``deadline_days`` (the "
              "total cost, GPU-hours breaking ties), never below the memory floor."),
    InputSpec("deadline_days", _nan, "days", "Deadline, used where ``gpus`` is NaN."),
    InputSpec("max_gpus", _inf, "1", "Largest cluster a deadline may ask for, and the largest a run may need for "
              "its training state."),
    InputSpec("max_wall_days", _inf, "days", "Longest wall-clock a run may take; a longer one is infeasible."),
    InputSpec("failure_rate_per_gpu_hour", 0.0, "1/h", "Interruptions per GPU-hour (failures plus spot "
              "preemptions)."),
    InputSpec("checkpoint_write_hours", 0.0, "h", "Stall per checkpoint."),
    InputSpec("checkpoint_interval_hours", _nan, "h", "Checkpoint interval; NaN = Daly's optimum."),
    InputSpec("restart_hours", 0.0, "h", "Restart time per interruption."),
    InputSpec("recovery_above_gpus", _inf, "1", "Above this many accelerators the job recovers from redundant "
              "in-memory state: ``inf`` never (checkpoints on storage), 0 always; NaN (``recovery = \"auto\"``) "
              "the technique with the larger goodput at every size (``_goodput_at``)."),
    InputSpec("checkpoint_write_hours_in_memory", 0.0, "h", "Stall per checkpoint with in-memory recovery."),
    InputSpec("restart_hours_in_memory", 0.0, "h", "Restart time per interruption with in-memory recovery."),
    InputSpec("state_bytes_per_param", 16.0, "bytes", "Training state per parameter (weights, gradients, "
              "optimizer)."),
    InputSpec("activation_bytes", 0.0, "bytes", "Activations of one sequence through all layers, without "
              "recomputation where it is chosen (``recompute = \"auto\"``), else at the scenario's recomputation."),
    InputSpec("activation_bytes_selective", _nan, "bytes", "The same with selective recomputation; NaN: "
              "``activation_bytes`` (recomputation set)."),
    InputSpec("activation_bytes_full", _nan, "bytes", "The same with full recomputation; NaN: "
              "``activation_bytes`` (recomputation set). Compute keeps the first of the three that fits."),
    InputSpec("tensor_parallel", 8.0, "1", "Largest tensor-parallel group the activations are split over."),
    InputSpec("pipeline_parallel", 1.0, "1", "Pipeline stages the unsharded state is split over (1: none)."),
    InputSpec("unsharded_bytes_per_param", 0.0, "bytes", "State per parameter the ZeRO stage does not shard over "
              "data parallelism (0 under ZeRO-3/FSDP; weights and gradients under ZeRO-1)."),
    InputSpec("memory_gb", _nan, "GB", "Memory of one accelerator; NaN leaves the memory floor unknown."),
    InputSpec("tdp_w", _nan, "W", "Power per accelerator (TDP, or a measured system power with factor and "
              "fraction 1); NaN leaves energy unknown."),
    InputSpec("chip_power_w", _nan, "W", "Rated power of the accelerator alone (its TDP), for the GPU-only "
              "energy that model cards publish; NaN leaves it unknown."),
    InputSpec("server_power_factor", 1.0, "x", "Server-to-accelerator power ratio."),
    InputSpec("avg_power_fraction", 1.0, "1", "Average fraction of server max power while training."),
    InputSpec("pue", 1.0, "1", "Facility PUE."),
    InputSpec("grid_gco2_per_kwh", 0.0, "gCO2/kWh", "Grid carbon intensity."),
    InputSpec("rate_usd_per_gpu_hour", 0.0, "USD/GPU-hour", "Cloud rate after any discount; unused when owned."),
    InputSpec("owned", False, "bool", "Owned hardware: pay capital, hardware and energy instead of a rate."),
    InputSpec("accelerator_usd_per_gpu_hour", 0.0, "USD/GPU-hour", "Owned only: the accelerator's share of "
              "capital per GPU-hour."),
    InputSpec("hardware_usd_per_gpu_hour", 0.0, "USD/GPU-hour", "Owned only: servers, network and hosting per "
              "GPU-hour."),
    InputSpec("electricity_usd_per_kwh", 0.0, "USD/kWh", "Electricity price, paid only when owned."),
    InputSpec("data_usd", 0.0, "USD", "Data cost."),
    InputSpec("team_usd_per_month", 0.0, "USD/month", "Team cost per month."),
    InputSpec("project_months", _nan, "months", "Months of team and storage, never fewer than the run's "
              "wall-clock months; NaN = the run's wall-clock months."),
    InputSpec("project_months_max", _inf, "months", "Most months of team and storage, applied after the run's "
              "length (a default project's bound); inf = none."),
    InputSpec("checkpoints_kept", 0.0, "1", "Checkpoints stored."),
    InputSpec("storage_usd_per_gb_month", 0.0, "USD/GB-month", "Storage price."),
    InputSpec("experiments_multiplier", 1.0, "x", "Total development compute relative to the final run, >= 1."),
)

#: The names of :data:`COMPUTE_INPUTS`, in order.
INPUT_NAMES: tuple[str, ...] = tuple(spec.name for spec in COMPUTE_INPUTS)
_DEFAULTS = {spec.name: spec.default for spec in COMPUTE_INPUTS if spec.default is not REQUIRED}
_REQUIRED = tuple(spec.name for spec in COMPUTE_INPUTS if spec.default is REQUIRED)
_NAMES = frozenset(INPUT_NAMES)
_REQUIRED_SET = frozenset(_REQUIRED)


def compute_inputs(values: Mapping[str, Any], *, complete: bool = True) -> dict[str, Any]:
    """``values`` as compute's inputs, checked against :data:`COMPUTE_INPUTS`.

    Parameters
    ----------
    values : mapping
        Input name -> value (scalars or arrays, in each input's unit).
    complete : bool
        True (what ``resolve`` and the analysis pass): every input must be given. False (a call of
        compute): the required ones, the others take their defaults.

    Raises
    ------
    TypeError
        Naming the inputs that are not compute's, or those missing (as a call with a wrong keyword does).
    """
    keys = values.keys()
    if complete:
        if keys != _NAMES:  # one set comparison and a copy: this runs on every estimate
            _refuse(values, INPUT_NAMES)
        return dict(values)
    if not (keys <= _NAMES and _REQUIRED_SET <= keys):
        _refuse(values, _REQUIRED)
    return {**_DEFAULTS, **values}


def _refuse(values: Mapping[str, Any], needed: tuple[str, ...]) -> NoReturn:
    unknown = [k for k in values if k not in _NAMES]
    if unknown:
        raise TypeError(f"compute() got unexpected inputs {sorted(unknown)}; its inputs are "
                        "explorer.model.inputs.INPUT_NAMES")
    missing = [k for k in needed if k not in values]
    raise TypeError(f"compute() is missing inputs {missing} (explorer.model.inputs.COMPUTE_INPUTS)")


def signature(return_annotation: Any = inspect.Signature.empty) -> inspect.Signature:
    """The keyword-only signature of compute: one parameter per input, with its default."""
    return inspect.Signature([inspect.Parameter(s.name, inspect.Parameter.KEYWORD_ONLY, default=s.default)
                              for s in COMPUTE_INPUTS], return_annotation=return_annotation)


def parameters_doc(indent: str = "    ") -> str:
    """The numpydoc Parameters entries of compute, one per input: ``name : array_like`` and its doc [unit]."""
    lines = []
    for s in COMPUTE_INPUTS:
        kind = "array_like of bool" if s.unit == "bool" else "array_like"
        unit = "" if s.unit == "bool" else f" [{s.unit}]"
        lines += [f"{indent}{s.name} : {kind}", f"{indent}    {s.doc}{unit}"]
    return "\n".join(lines)
