"""The result of one scenario: :class:`Estimate` and :func:`estimate`."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, cast

import numpy as np

from explorer import catalog, prices
from explorer.catalog import default
from explorer.messages import Message
from explorer.model import formulas as F
from explorer.model.checks import result_warnings
from explorer.model.layout import ZERO_UNSHARDED, Layout, choose_layout
from explorer.model.resolve import Assumption, Resolved, expert_scale, resolve
from explorer.prices import CLOUD_BASES
from explorer.model.vectorized import INFEASIBLE_REASONS, RECOMPUTE_LEVELS, compute
from explorer.scenario import Scenario

__all__ = ["COST_DIMENSIONS", "HIDDEN_PARTS", "Estimate", "estimate", "json_safe", "currency_per_usd"]

#: The six cost dimensions of the first source article's table, in display order.
COST_DIMENSIONS: tuple[str, ...] = ("compute", "energy", "data", "people", "hardware", "hidden")
#: The named parts of the hidden dimension, in display order (they add up to it).
HIDDEN_PARTS: tuple[str, ...] = ("experiments", "failure_loss", "other_loss", "storage")
_OWNED_MONEY = ("purchase_usd", "capital_usd_per_gpu", "capex_usd", "hosting_usd_per_gpu_hour", "usd_per_gpu_hour")


def currency_per_usd(s: Scenario) -> float:
    """Units of the currency ``s`` shows its results in per US dollar [currency/USD].

    1 in dollars; in yuan the scenario's ``usd_to_cny``, else the sourced default of ``defaults.csv``. The one
    rule for every money figure: the results (:attr:`Estimate.usd_to_currency`) and the app's money boxes.
    """
    if s.currency == "USD":
        return 1.0
    return s.usd_to_cny or default("usd_to_cny")


@dataclass(frozen=True)
class Estimate:
    """The result of :func:`estimate` for one scenario.

    Attributes
    ----------
    scenario : Scenario
        The input.
    train_flop : float
        Training compute of the final run, attention included [FLOP].
    ideal_gpu_hours, gpu_hours : float
        GPU-hours at steady-state MFU, and billed: including failure,
        checkpoint and other losses [GPU-hour].
    goodput : float
        Useful fraction of GPU-hours under failures and checkpoints [1].
    gpus : int
        Accelerators used (given, or solved from the deadline and never below
        the memory floor) [1].
    wall_days : float
        Wall-clock time of the final run [days].
    min_gpus_memory : int or float
        Fewest accelerators whose memory holds the training state (fully
        sharded, ZeRO-3/FSDP) and the activations (Korthikanti et al. 2022) [1];
        ``inf`` when the activations alone do not fit.
    memory_gb_per_gpu : mapping
        Memory per accelerator at ``gpus``: ``weights``, ``gradients``,
        ``optimizer``, ``activations`` and ``total`` [GB], in a reference
        layout (the parts the scenario sets kept, the others ZeRO-3 over all
        GPUs, tensor parallel over up to ``tensor_parallel`` of them, and
        under ``recompute="auto"`` selective recomputation, full where it
        does not fit), so that runs compare like for like; the chosen
        layout's own memory is ``layout.state_gb`` and ``layout.activations_gb``.
    mfu : float
        Steady-state MFU against the peak at the training precision [1].
    energy_it_mwh, energy_mwh : float
        IT energy and facility energy (x PUE) of the final run [MWh]; NaN if
        the accelerator's power is unknown.
    energy_gpu_mwh : float
        GPU-only energy of the final run, GPU-hours x the accelerator's TDP
        [MWh]: the figure most model cards publish (Llama 2 and 3: "GPU hours x
        power consumption", the TDP), without servers, average load or PUE;
        NaN without a published TDP.
    co2_tonnes : float
        Location-based emissions of the final run [tCO2]; NaN if unknown.
    energy_project_mwh, co2_project_tonnes : float
        The same for the whole project (final run x experiments multiplier).
    cost_usd : mapping
        The six dimensions and ``total`` of the whole project [USD]; NaN where a
        price is unknown.
    usd_per_1m_tokens, usd_per_pflop_day, tokens_per_gpu_hour, effective_utilization : float
        Unit figures: total [USD] per 1M training tokens, final-run machine
        cost [USD] per PFLOP-day, tokens per GPU-hour, achieved FLOP/s over
        peak across all GPU-hours [1].
    details_usd : mapping
        Parts of the hidden dimension [USD]: ``experiments`` (R&D compute:
        experiments and failed runs), ``failure_loss`` (failures, restarts and
        checkpoints), ``other_loss`` (evaluations, stack restarts, stragglers,
        ramp-up) and ``storage``; they add up to ``cost_usd["hidden"]``.
        ``restart_loss`` is ``failure_loss + other_loss`` (all hours beyond the ideal).
    price_basis : str
        The price basis of the compute rate (``scenario.pricing``; see :mod:`explorer.prices`).
    rate_usd_per_gpu_hour : float
        The rate paid per GPU-hour under cloud pricing; owned: the capital and
        hardware per used GPU-hour [USD/GPU-hour].
    project_months : float
        Months of people and storage [months].
    owned : mapping
        Owning the same cluster (whatever the pricing): ``purchase_usd`` and
        ``capital_usd_per_gpu`` [USD per accelerator], ``capex_usd`` (the
        cluster: capital x GPUs) [USD], ``amortization``, ``years``,
        ``utilization``, ``financing_rate``, ``hosting_usd_per_gpu_hour``,
        ``usd_per_gpu_hour`` (capital, hardware, hosting and electricity per
        used GPU-hour) and ``breakeven_months``: for each cloud price basis,
        the months of use after which owning costs less than renting, the
        savings discounted at ``financing_rate`` (the discounted payback
        period, :func:`explorer.model.formulas.breakeven_months`; inf: never)
        [months]; ``life_months``, the hardware's life under the amortization
        rule (12 x ``years`` straight line; 12 / 0.322 = 37.3 under Epoch's
        rule) [months], and ``breakeven_within_life`` (per basis: the
        break-even comes before the hardware is written off).
    warnings : tuple of explorer.messages.Message
        What the user should know about this result: each a ``str`` (its English
        text) with an ``id`` and ``params``; ``w.render("zh")`` gives it in Chinese.
    estimated : tuple of str
        Prices that had no sourced value and were estimated (``"cloud price"``,
        ``"purchase price"``, ``"electricity price"``), and ``"cloud price (derived)"``
        when fewer than three providers list the accelerator on the basis and its
        price is the reference's times within-provider ratios (:mod:`explorer.prices`);
        the total is an estimate then.
    in_rate_usd : mapping
        Under cloud pricing, what the compute dimension's rate pays for [USD]:
        ``hardware`` (owning the same accelerators: purchase, servers and
        network over their depreciation years), ``energy`` (the electricity at
        the region's price) and ``margin`` (the rest: the provider's margin
        and costs not modelled; negative when the rate is below those costs).
        They sum to ``cost_usd["compute"]`` and are not added to the total.
        Empty for owned hardware (there energy and hardware are dimensions).
    assumptions : tuple of Assumption
        Every catalog value and named default the estimate used, with its source: each an ``id`` and
        ``params`` (:class:`~explorer.model.resolve.Assumption`); ``a.name`` is its English name,
        ``a.render("zh")`` gives it in Chinese.
    feasible : bool
        False when the run cannot happen: it fits on no cluster up to the
        largest the model allows (``max_gpus``), misses its deadline on that
        cluster, or lasts longer than ``max_run_years``. Every money figure
        (``cost_usd``, ``details_usd``, the unit costs, ``in_rate_usd``, the
        cluster's capital) is then NaN, and ``warnings`` say why.
    infeasible_reason : str
        ``""`` (feasible), ``"no_fit"``, ``"deadline"`` or ``"too_long"``.
    alternative : mapping
        The nearest feasible alternative of an infeasible run: ``gpus`` and
        ``wall_days`` [days]: for a deadline no cluster meets, the largest
        cluster the model allows at its shortest time; otherwise the fewest
        GPUs that fit in memory and end within ``max_run_years``; empty when
        the run is feasible or no cluster makes it so.
        Where a deadline needs more than the largest cluster, ``gpus``,
        ``wall_days`` and the other figures are those of the largest cluster.
    fallbacks : mapping
        For each optional scenario field (a blank box in the app), the value the model uses when it is
        None, in the field's unit (:attr:`explorer.model.resolve.Resolved.fallbacks`); None where unknown or
        not applicable. ``project_months`` is the result's months when the scenario leaves it blank (the
        run's length decides it), else None; so are the layout's parts the scenario leaves blank.
    layout : Layout or None
        The run's parallel layout (:func:`explorer.model.layout.choose_layout`): tensor, pipeline and
        data parallelism, ZeRO stage, recomputation, micro-batch, global batch [tokens] and steps, and its
        memory per accelerator (``state_gb``, ``activations_gb``). None without a GPU count.
    """

    scenario: Scenario
    train_flop: float
    ideal_gpu_hours: float
    gpu_hours: float
    goodput: float
    gpus: int
    wall_days: float
    min_gpus_memory: int | float
    mfu: float
    peak_tflops: float
    energy_it_mwh: float
    energy_mwh: float
    co2_tonnes: float
    cost_usd: Mapping[str, float]
    details_usd: Mapping[str, float]
    usd_per_1m_tokens: float
    usd_per_pflop_day: float
    tokens_per_gpu_hour: float
    effective_utilization: float
    deadline_impossible: bool
    warnings: tuple[Message, ...] = ()
    assumptions: tuple[Assumption, ...] = field(default=(), repr=False)
    energy_project_mwh: float = math.nan
    co2_project_tonnes: float = math.nan
    memory_gb_per_gpu: Mapping[str, float] = field(default_factory=dict)
    shape: tuple[int, int, int] = (0, 0, 0)
    estimated: tuple[str, ...] = ()
    in_rate_usd: Mapping[str, float] = field(default_factory=dict)
    energy_gpu_mwh: float = math.nan
    price_basis: str = "on_demand"
    rate_usd_per_gpu_hour: float = math.nan
    project_months: float = math.nan
    owned: Mapping[str, Any] = field(default_factory=dict)
    fallbacks: Mapping[str, float | None] = field(default_factory=dict, repr=False)
    feasible: bool = True
    infeasible_reason: str = ""
    alternative: Mapping[str, float] = field(default_factory=dict)
    layout: Layout | None = None

    @property
    def total_usd(self) -> float:
        """Total cost of the scenario, the whole project [USD]."""
        return self.cost_usd["total"]

    @property
    def final_run_usd(self) -> float:
        """Machine cost of the final run: compute, losses, energy and hardware [USD].

        The scope of published training-cost estimates (no data, people,
        storage or experiments).
        """
        c = self.cost_usd
        return c["compute"] + c["energy"] + c["hardware"] + self.details_usd["restart_loss"]

    @property
    def usd_to_currency(self) -> float:
        """Factor from USD to the scenario's currency [currency/USD] (:func:`currency_per_usd`)."""
        return currency_per_usd(self.scenario)

    def _rows(self) -> list[tuple[str, str]]:
        """(name, value) of the estimate's headline figures, as :meth:`__repr__` and :meth:`_repr_html_` print them,
        money in the scenario's currency."""
        from explorer.text import money, power_of_ten, quantity

        s, fx, cur = self.scenario, self.usd_to_currency, self.scenario.currency
        rows = [("model", f"{quantity(s.params)} parameters on {quantity(s.tokens)} tokens"
                 + (f" ({quantity(s.active_params)} active)" if s.architecture == "moe" and s.active_params else "")),
                ("compute", f"{power_of_ten(self.train_flop)} FLOP")]
        if not self.feasible:
            return rows + [("infeasible", self.infeasible_reason or "no cluster the model allows")]
        rows += [("cluster", f"{int(self.gpus):,} x {s.gpu}, {self.wall_days:.3g} days, {quantity(self.gpu_hours)} "
                             f"GPU-hours at MFU {self.mfu:.2f}"),
                 ("whole project", money(self.total_usd * fx, cur)), ("final run", money(self.final_run_usd * fx, cur))]
        rows += [(f"  {d}", money(self.cost_usd[d] * fx, cur)) for d in COST_DIMENSIONS]
        rows += [("energy", f"{self.energy_project_mwh:.3g} MWh"), ("carbon", f"{self.co2_project_tonnes:.3g} tCO2")]
        return rows

    def __repr__(self) -> str:
        """One line: the run and its total (the dataclass's own repr printed every field, about 5,000 characters)."""
        from explorer.text import money, quantity

        s = self.scenario
        head = f"Estimate({quantity(s.params)} parameters on {quantity(s.tokens)} tokens"
        if not self.feasible:
            return f"{head}: infeasible, {self.infeasible_reason or 'no cluster the model allows'})"
        return (f"{head}, {int(self.gpus):,} x {s.gpu}, {self.wall_days:.3g} days: whole project "
                f"{money(self.total_usd * self.usd_to_currency, s.currency)}, final run "
                f"{money(self.final_run_usd * self.usd_to_currency, s.currency)})")

    def _repr_html_(self) -> str:
        from explorer.text import rows_html

        return rows_html("Estimate", self._rows(), self.warnings)

    def cost(self) -> dict[str, float]:
        """The six dimensions and ``total`` in the scenario's currency."""
        fx = self.usd_to_currency
        return {k: v * fx for k, v in self.cost_usd.items()}

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (the CLI's ``--json`` output); unknown or infinite values are None."""
        return cast(dict[str, Any], json_safe({
            "train_flop": self.train_flop,
            "ideal_gpu_hours": self.ideal_gpu_hours,
            "gpu_hours": self.gpu_hours,
            "goodput": self.goodput,
            "wall_days": self.wall_days,
            "gpus": self.gpus,
            "min_gpus_memory": self.min_gpus_memory,
            "memory_gb_per_gpu": dict(self.memory_gb_per_gpu),
            "mfu": self.mfu,
            "energy_gpu_mwh": self.energy_gpu_mwh,
            "energy_it_mwh": self.energy_it_mwh,
            "energy_mwh": self.energy_mwh,
            "co2_tonnes": self.co2_tonnes,
            "energy_project_mwh": self.energy_project_mwh,
            "co2_project_tonnes": self.co2_project_tonnes,
            "final_run_usd": self.final_run_usd * self.usd_to_currency,
            "cost": self.cost(),
            "hidden_parts": {k: self.details_usd[k] * self.usd_to_currency for k in HIDDEN_PARTS},
            "price_basis": self.price_basis,
            "rate_per_gpu_hour": self.rate_usd_per_gpu_hour * self.usd_to_currency,
            "project_months": self.project_months,
            "owned": {k: (v * self.usd_to_currency if k in _OWNED_MONEY else v) for k, v in self.owned.items()},
            "currency": self.scenario.currency,
            "usd_per_1m_tokens": self.usd_per_1m_tokens,
            "usd_per_pflop_day": self.usd_per_pflop_day,
            "tokens_per_gpu_hour": self.tokens_per_gpu_hour,
            "effective_utilization": self.effective_utilization,
            "deadline_impossible": self.deadline_impossible,
            "feasible": self.feasible,
            "infeasible_reason": self.infeasible_reason or None,
            "alternative": dict(self.alternative) or None,
            "layout": self.layout.to_dict() if self.layout is not None else None,
            "warnings": [str(w) for w in self.warnings],
        }))


HOURS_PER_MONTH = F.HOURS_PER_YEAR / 12.0


def json_safe(value: Any) -> Any:
    """``value`` with NaN and infinities replaced by None, recursively (strict JSON has neither)."""
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_safe(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def estimate(scenario: Scenario) -> Estimate:
    """Estimate compute, time, energy, carbon and cost of a scenario.

    Parameters
    ----------
    scenario : Scenario
        Validated inputs.

    Returns
    -------
    Estimate
        Results with warnings and the assumptions in use.

    Examples
    --------
    >>> from explorer import Scenario, estimate
    >>> gpt3 = Scenario(params=175e9, tokens=300e9, gpu="v100", precision="fp16", gpus=10000,
    ...                 n_layers=96, d_model=12288, seq_len=2048)
    >>> round(estimate(gpt3).gpu_hours / 1e6, 2)  # GPT-3: 3.55M reported (Patterson et al. 2021)
    3.56
    """
    r = resolve(scenario)
    v = {k: float(np.asarray(x)) for k, x in compute(**r.inputs).items()}
    reason = INFEASIBLE_REASONS[int(v["infeasible_reason"])]
    n, floor = int(v["gpus"]), v["min_gpus_memory"]
    layout = _layout(scenario, r, v, n)
    parts = _memory_parts(scenario, r, v, n)
    cost = {d: v[f"cost_{d}_usd"] for d in COST_DIMENSIONS}
    cost["total"] = v["total_usd"]
    in_rate = {}
    if r.in_rate and v["gpu_hours"] > 0:
        rate = r.inputs["rate_usd_per_gpu_hour"]
        kwh_per_gpu_hour = v["energy_mwh"] * 1000.0 / v["gpu_hours"]
        hourly = {"hardware": r.in_rate["hardware"],
                  "energy": kwh_per_gpu_hour * r.in_rate["electricity_usd_per_kwh"]}
        hourly["margin"] = rate - hourly["hardware"] - hourly["energy"]
        in_rate = {k: cost["compute"] * p / rate if rate > 0 else math.nan for k, p in hourly.items()}
    return Estimate(
        scenario=scenario, train_flop=v["train_flop"], ideal_gpu_hours=v["ideal_gpu_hours"],
        gpu_hours=v["gpu_hours"], goodput=v["goodput"], gpus=n, wall_days=v["wall_days"],
        min_gpus_memory=int(floor) if math.isfinite(floor) else floor, mfu=r.mfu,
        peak_tflops=r.inputs["peak_flop_per_s"] / 1e12, energy_it_mwh=v["energy_it_mwh"],
        energy_mwh=v["energy_mwh"], co2_tonnes=v["co2_tonnes"], cost_usd=cost,
        details_usd={k: v[f"{k}_usd"] for k in ("restart_loss", *HIDDEN_PARTS)},
        usd_per_1m_tokens=v["usd_per_1m_tokens"], usd_per_pflop_day=v["usd_per_pflop_day"],
        tokens_per_gpu_hour=v["tokens_per_gpu_hour"], effective_utilization=v["effective_utilization"],
        deadline_impossible=bool(v["deadline_impossible"]),
        warnings=tuple(r.warnings + result_warnings(scenario, v, r.mfu, layout,
                                                    next_count_without_idle(scenario, r, layout))),
        assumptions=tuple(a for a in r.used if not (a.id == "assumption_recompute" and scenario.recompute == "auto"
                                                    and layout is not None)) + _layout_assumptions(scenario, layout),
        energy_project_mwh=v["energy_project_mwh"], co2_project_tonnes=v["co2_project_tonnes"],
        memory_gb_per_gpu=parts, shape=r.shape, estimated=tuple(r.estimated), in_rate_usd=in_rate,
        energy_gpu_mwh=v["energy_gpu_mwh"],
        price_basis=scenario.pricing, project_months=v["project_months"],
        rate_usd_per_gpu_hour=(r.inputs["accelerator_usd_per_gpu_hour"] + r.inputs["hardware_usd_per_gpu_hour"]
                               if r.inputs["owned"] else r.inputs["rate_usd_per_gpu_hour"]),
        owned=owned_summary(scenario, r, v, n),
        fallbacks={**r.fallbacks, "project_months": v["project_months"] if scenario.project_months is None else None,
                   **({k: getattr(layout, k) for k in layout.chosen} if layout is not None else {})},
        feasible=not reason, infeasible_reason=reason,
        alternative=({"gpus": v["alternative_gpus"], "wall_days": v["alternative_wall_days"]}
                     if reason and math.isfinite(v["alternative_gpus"]) else {}),
        layout=layout,
    )


def _recompute(scenario: Scenario, v: Mapping[str, float]) -> str:
    """The recomputation of the run: the scenario's, else the first that fits at the count (compute's)."""
    return RECOMPUTE_LEVELS[int(v["recompute_level"])] if scenario.recompute == "auto" else scenario.recompute


def _layout(scenario: Scenario, r: Resolved, v: Mapping[str, float], n: int) -> Layout | None:
    """The standard layout of the run at its count (:func:`explorer.model.layout.choose_layout`)."""
    if not (n >= 1 and math.isfinite(v["gpus"])):
        return None
    mode = _recompute(scenario, v)
    L, _, seq = r.shape
    return choose_layout(n, params=scenario.params, parts=r.memory_bytes_per_param,
                         activation_bytes=r.activation_bytes[mode], recompute=mode,
                         memory_gb=r.inputs["memory_gb"], n_layers=L, seq_len=seq, tokens=scenario.tokens,
                         train_flop=v["train_flop"], tensor_parallel_max=r.inputs["tensor_parallel"],
                         tensor_parallel=scenario.tensor_parallel, pipeline_parallel=scenario.pipeline_parallel,
                         zero_stage=scenario.zero_stage, expert_parallel=scenario.expert_parallel,
                         expert_scale=expert_scale(scenario), routed_share=_routed_share(scenario),
                         experts=scenario.experts if scenario.architecture == "moe" else None)


#: How many larger counts :func:`next_count_without_idle` tries, at most (one layout choice each, about 0.1 ms).
NEXT_COUNT_SEARCH = 512


def next_count_without_idle(scenario: Scenario, r: Resolved, layout: Layout | None) -> Layout | None:
    """The layout of the nearest larger GPU count on which the layout chosen there leaves no GPU idle.

    Searched only where ``layout`` leaves at least ``idle_gpus_warn_share`` of the GPUs idle (the warning that
    names it): each count above the run's, up to :data:`NEXT_COUNT_SEARCH` of them and the largest cluster
    (``max_gpus``), is estimated as a typed count would be (compute at that count, then
    :func:`explorer.model.layout.choose_layout`), and the first whose layout fits with none idle is returned.
    The next multiple of the current replica group is not the answer in general: the chooser may prefer
    another depth there (Llama 65B on 2,048 A100s: TP 2 x PP 42 with 32 idle; at 2,100 GPUs, a multiple of
    84, it takes PP 80 with 20 idle; at 2,080 PP 80 x DP 13 leaves none).

    Parameters
    ----------
    scenario : Scenario
        The run.
    r : Resolved
        ``resolve(scenario)``.
    layout : Layout or None
        The run's layout at its count.

    Returns
    -------
    Layout or None
        None where the layout leaves fewer GPUs idle than the warning's share, or no such count is found.
    """
    if layout is None or layout.idle_gpus == 0:
        return None
    n = layout.data_parallel * layout.tensor_parallel * layout.pipeline_parallel + layout.idle_gpus
    if layout.idle_gpus < default("idle_gpus_warn_share") * n:
        return None
    top = min(n + NEXT_COUNT_SEARCH, int(default("max_gpus")))
    if top <= n:
        return None
    counts = np.arange(n + 1, top + 1, dtype=float)
    out = compute(**dict(r.inputs, gpus=counts, deadline_days=np.nan))
    for i, count in enumerate(counts):
        if out["infeasible"][i]:
            continue
        v = {k: float(x) if np.ndim(x) == 0 else float(x[i]) for k, x in out.items()}
        candidate = _layout(scenario, r, v, int(count))
        if candidate is not None and candidate.fits and candidate.idle_gpus == 0:
            return candidate
    return None


def _routed_share(scenario: Scenario) -> float:
    """Share of the parameters in routed experts [1]: those no token uses (``params - active``, the lower bound
    :func:`explorer.model.resolve.expert_scale` takes); 0 for a dense model."""
    if scenario.architecture != "moe":
        return 0.0
    return max(0.0, 1.0 - scenario.active_params_effective / scenario.params)


#: Where the layout comes from (the source of its assumptions).
_LAYOUT_SOURCE = ("Chosen at the GPU count (explorer.model.layout): Narayanan et al. 2021 (SC21, Megatron-LM), tensor "
                  "parallel within a server, then pipeline across servers; ZeRO stage 1 before 2 and 3 (Rajbhandari "
                  "et al. 2020); recomputation none, selective, full, the first that fits (Korthikanti et al. 2022)")
_BATCH_SOURCE = ("DeepSeek-AI 2024 (arXiv 2401.02954) section 3.1: B_opt = 0.2920 C^0.3271 tokens, in whole sequences "
                 "per data-parallel replica, never below one per micro-batch")


def _layout_assumptions(scenario: Scenario, layout: Layout | None) -> tuple[Assumption, ...]:
    """The layout the model chose, the batch and the steps, as the Assumptions list them (with their sources)."""
    if layout is None:
        return ()
    out = [Assumption("assumption_named", {"name": k}, float(getattr(layout, k)), "1", _LAYOUT_SOURCE)
           for k in layout.chosen]
    if scenario.recompute == "auto":
        out.append(Assumption("assumption_recompute", {}, layout.recompute, "", _LAYOUT_SOURCE))
    out.append(Assumption("assumption_named", {"name": "data_parallel"}, float(layout.data_parallel), "1",
                          _LAYOUT_SOURCE))
    out.append(Assumption("assumption_named", {"name": "batch_tokens"}, float(layout.batch_tokens), "tokens",
                          _BATCH_SOURCE))
    out.append(Assumption("assumption_named", {"name": "steps"}, float(layout.steps), "1", _BATCH_SOURCE))
    return tuple(out)


def _memory_parts(scenario: Scenario, r: Resolved, v: Mapping[str, float], n: int) -> dict[str, Any]:
    """Memory per accelerator by part [GB] in the layout that needs the least: the parts of the layout the
    scenario sets kept, the others ZeRO-3 over all GPUs and the largest tensor-parallel group (compute's memory
    rule, the one its floor uses). A part the ZeRO stage leaves unsharded is split over the tensor x pipeline
    ranks (the routed experts over the expert ranks too), the others over all GPUs; the activations at the
    reference recomputation, over the tensor-parallel group: the scenario's, or under ``auto`` selective
    (Korthikanti et al. 2022, Megatron-LM's default) where it fits and full where it does not. The same rule
    for every precision and architecture, so two runs compare like for like (an FP8 run whose smaller
    activations let ``auto`` drop recomputation would otherwise seem to need more memory); the chosen layout's
    own memory is ``Estimate.layout``."""
    t = min(n, r.inputs["tensor_parallel"])
    p = r.inputs["pipeline_parallel"]
    kept = ZERO_UNSHARDED[3 if scenario.zero_stage is None else scenario.zero_stage]
    held = expert_scale(scenario) / (t * p)  # an unsharded part: the model-parallel rank's share
    parts = {k: b * scenario.params * (held if k in kept else 1.0 / n) / 1e9
             for k, b in r.memory_bytes_per_param.items()}
    if scenario.recompute == "auto":
        mem_gb = r.inputs["memory_gb"]
        sel = r.activation_bytes["selective"] / t / 1e9
        fits = not (v["state_gb_per_gpu"] + sel > mem_gb)  # unknown memory: selective
        parts["activations"] = sel if fits else r.activation_bytes["full"] / t / 1e9
    else:
        parts["activations"] = v["activation_gb_per_gpu"]
    parts["total"] = sum(parts.values())
    return parts


def owned_summary(scenario: Scenario, r: Resolved, v: Mapping[str, float], gpus: int) -> dict[str, Any]:
    """Owning the scenario's cluster: capital, amortization and the buy-versus-rent break-even per cloud basis."""
    acc = catalog.accelerator(scenario.gpu)
    t = r.owned  # resolve()'s owned terms of this cluster
    kwh_per_gpu_hour = v["energy_mwh"] * 1000.0 / v["gpu_hours"] if v["gpu_hours"] > 0 else math.nan
    electricity = r.inputs["electricity_usd_per_kwh"] if r.inputs["owned"] else r.in_rate.get(
        "electricity_usd_per_kwh", math.nan)
    energy_per_hour = kwh_per_gpu_hour * electricity
    hosting_life = t["hosting_usd_per_gpu_hour"]  # paid every hour of the cluster's life
    used = HOURS_PER_MONTH * t["utilization"]
    as_of = prices.check_price_date(scenario.price_date)
    rents = np.array([prices.quote(acc.id, basis, as_of=as_of).usd_per_gpu_hour for basis in CLOUD_BASES], float)
    months = F.breakeven_months(t["capital_usd_per_gpu"], rents * used,  # every basis in one call
                                hosting_life * HOURS_PER_MONTH + energy_per_hour * used, t["financing_rate"])
    breakeven = {basis: float(m) for basis, m in zip(CLOUD_BASES, np.atleast_1d(months))}
    # the amortization rule's life: straight line over its years, Epoch's rule writes the value off at 0.322 a year
    life_months = 12.0 / F.EPOCH_AMORTIZATION_PER_YEAR if t["amortization"] == "epoch" else 12.0 * t["years"]
    return dict(purchase_usd=t["purchase_usd"], capital_usd_per_gpu=t["capital_usd_per_gpu"],
                life_months=float(life_months),
                breakeven_within_life={b: bool(m <= life_months) for b, m in breakeven.items()},
                capex_usd=t["capital_usd_per_gpu"] * gpus if not v["infeasible"] else math.nan,
                amortization=t["amortization"], years=t["years"],
                utilization=t["utilization"], financing_rate=t["financing_rate"],
                hosting_usd_per_gpu_hour=hosting_life,
                usd_per_gpu_hour=t["accelerator_usd_per_gpu_hour"] + t["hardware_usd_per_gpu_hour"] + energy_per_hour,
                breakeven_months=breakeven)
