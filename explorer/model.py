"""The cost model: from a :class:`~explorer.scenario.Scenario` to an :class:`Estimate`.

Two layers:

* :func:`compute` holds every formula. It takes plain numbers or numpy arrays
  and broadcasts, so a sweep over a million scenarios is one call.
* :func:`estimate` resolves a scenario against the catalogs and named
  defaults, calls :func:`compute` once, and adds warnings and the list of
  assumptions in use.

Formulas and their sources (see ``explorer/data/defaults.csv`` for values):

1. Training compute ``C = k * Na * D + 12 * L * d * s * D`` [FLOP], k = 6 for
   pre-training and full fine-tuning (Kaplan et al. 2020; EleutherAI,
   *Transformer Math 101*), ``4 + 6 * f`` per total parameter for LoRA with
   trainable fraction f (no weight gradients for frozen weights); the
   attention term is PaLM's (Chowdhery et al. 2022, appendix B).
2. Ideal GPU-hours ``C / (P * u * 3600)`` with peak P [FLOP/s] and MFU u.
3. Goodput (Young 1974; Daly 2006): with cluster failure rate
   ``lam * n`` [1/h], checkpoint write time ``delta`` and interval
   ``tau = sqrt(2 * delta / (lam * n))``, each failure loses ``tau / 2 + R``;
   goodput ``(1 - lam * n * (tau / 2 + R)) / (1 + delta / tau)``.
4. Energy ``GPU-hours * TDP * server factor * average power fraction * PUE``
   (Epoch AI, Cottier et al. 2024); carbon = energy * grid intensity.
5. Money in the six dimensions of the first source article: compute, energy,
   data, people, hardware, hidden. A cloud rate already pays for power and
   hardware, so energy and hardware are charged only for owned hardware.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from explorer import catalog
from explorer.catalog import default
from explorer.scenario import Scenario

__all__ = ["Estimate", "estimate", "compute", "COST_DIMENSIONS", "resolve_mfu", "HOURS_PER_YEAR"]

#: The six cost dimensions of the first source article's table, in display order.
COST_DIMENSIONS: tuple[str, ...] = ("compute", "energy", "data", "people", "hardware", "hidden")

HOURS_PER_YEAR = 8766.0  # 365.25 days
_GPU_COUNT_CEILING = 1e12  # numerical bound of the deadline solve, far above any cluster (max_gpus)
DAYS_PER_MONTH = 30.4375  # 365.25 / 12
_WEIGHT_BYTES = {"fp32": 4.0, "tf32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "fp4": 0.5}


def compute(
    *,
    params,
    active_params,
    tokens,
    flop_per_param_token=6.0,
    attention_flop_per_token=0.0,
    peak_flop_per_s,
    mfu,
    gpus=np.nan,
    deadline_days=np.nan,
    max_gpus=np.inf,
    failure_rate_per_gpu_hour=0.0,
    checkpoint_write_hours=0.0,
    checkpoint_interval_hours=np.nan,
    restart_hours=0.0,
    state_bytes_per_param=16.0,
    memory_gb=np.nan,
    tdp_w=np.nan,
    server_power_factor=1.0,
    avg_power_fraction=1.0,
    pue=1.0,
    grid_gco2_per_kwh=0.0,
    rate_usd_per_gpu_hour=0.0,
    owned=False,
    accelerator_usd_per_gpu_hour=0.0,
    hardware_usd_per_gpu_hour=0.0,
    electricity_usd_per_kwh=0.0,
    data_usd=0.0,
    team_usd_per_month=0.0,
    project_months=np.nan,
    checkpoints_kept=0.0,
    storage_usd_per_gb_month=0.0,
    experiments_multiplier=1.0,
) -> dict[str, np.ndarray]:
    """Every formula of the model, vectorized over broadcastable inputs.

    Parameters
    ----------
    params, active_params : array_like
        Total and active (per token) parameters [1].
    tokens : array_like
        Training tokens D [1].
    flop_per_param_token : array_like
        FLOP per parameter per token: 6 (training), ``4 + 6 f`` for LoRA [FLOP].
    attention_flop_per_token : array_like
        Attention FLOP per token, ``12 * L * d * s`` [FLOP].
    peak_flop_per_s : array_like
        Dense peak of one accelerator at the training precision [FLOP/s].
    mfu : array_like
        Model FLOPs utilization against that peak [1].
    gpus, deadline_days : array_like
        Accelerator count [1] or deadline [days]; where ``gpus`` is NaN the
        count is solved from ``deadline_days``.
    max_gpus : array_like
        Largest cluster a deadline may ask for [1].
    failure_rate_per_gpu_hour : array_like
        Interruptions per GPU-hour (failures plus spot preemptions) [1/h].
    checkpoint_write_hours, restart_hours : array_like
        Stall per checkpoint and restart time per interruption [h].
    checkpoint_interval_hours : array_like
        Checkpoint interval [h]; NaN = Young/Daly optimum.
    state_bytes_per_param : array_like
        Training state per parameter (weights, gradients, optimizer) [bytes].
    memory_gb : array_like
        Memory of one accelerator [GB]; NaN (the default) leaves the memory floor unknown.
    tdp_w, server_power_factor, avg_power_fraction, pue : array_like
        Accelerator TDP [W] (NaN, the default, leaves energy unknown), server-to-accelerator power ratio [x], average
        fraction of server max power while training [1], facility PUE [1].
    grid_gco2_per_kwh : array_like
        Grid carbon intensity [gCO2/kWh].
    rate_usd_per_gpu_hour : array_like
        Cloud rate after any discount [USD/GPU-hour]; unused when owned.
    owned : array_like of bool
        Owned hardware: pay capital, hardware and energy instead of a rate.
    accelerator_usd_per_gpu_hour, hardware_usd_per_gpu_hour : array_like
        Owned only: the accelerator's share of capital, and servers, network
        and hosting, per GPU-hour [USD/GPU-hour].
    electricity_usd_per_kwh : array_like
        Electricity price [USD/kWh], paid only when owned.
    data_usd, team_usd_per_month : array_like
        Data cost [USD] and team cost per month [USD/month].
    project_months : array_like
        Months of team and storage; NaN = the run's wall-clock months.
    checkpoints_kept, storage_usd_per_gb_month : array_like
        Checkpoints stored [1] and storage price [USD/GB-month].
    experiments_multiplier : array_like
        Total development compute relative to the final run [x], >= 1.

    Returns
    -------
    dict of ndarray
        ``train_flop`` [FLOP], ``ideal_gpu_hours``, ``gpu_hours`` [GPU-hour],
        ``goodput`` [1], ``gpus`` [1], ``wall_days`` [days],
        ``deadline_impossible`` [bool], ``min_gpus_memory`` [1],
        ``energy_it_mwh``, ``energy_mwh`` [MWh], ``co2_tonnes`` [t],
        ``cost_<dimension>_usd`` for the six dimensions and ``total_usd``
        [USD], ``restart_loss_usd``, ``experiments_usd``, ``storage_usd``
        [USD], ``usd_per_1m_tokens``, ``usd_per_pflop_day``,
        ``tokens_per_gpu_hour``, ``effective_utilization`` [1].
    """
    f = {k: np.asarray(v, dtype=float) for k, v in locals().items() if k != "owned"}
    owned = np.asarray(owned, dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):  # impossible runs give inf, flagged below
        return _compute(f, owned)


def _goodput(n, lam, delta, restart, interval):
    """Useful fraction of GPU time at ``n`` GPUs (Young/Daly; see the module docstring)."""
    cluster_rate = lam * n
    optimal = np.sqrt(2.0 * delta / cluster_rate)
    tau = np.where(np.isnan(interval), optimal, interval)
    tau = np.where(np.isfinite(tau) & (tau > 0), tau, np.inf)  # no failures: never lose work
    lost = np.where(cluster_rate > 0, cluster_rate * (np.where(np.isinf(tau), 0.0, tau / 2.0) + restart), 0.0)
    stall = np.where(np.isinf(tau), 0.0, delta / tau)
    return np.clip((1.0 - lost) / (1.0 + stall), 0.0, 1.0)


def _solve_gpus(ideal, gpus, deadline_days, lam, delta, restart, interval, max_steps: int = 60):
    """GPU count: ``gpus`` where given, else the smallest count that meets the deadline.

    ``n -> ceil(ideal / (24 days goodput(n)))`` only grows (goodput falls with
    n), so from the failure-free count it climbs to the smallest count that
    meets the deadline, if there is one; the caller flags counts above the
    largest cluster and missed deadlines. Only the elements still moving are
    iterated; they settle in a few steps unless failures stop all progress,
    when the count runs up to ``_GPU_COUNT_CEILING`` within ``max_steps``.
    """
    arrays = np.broadcast_arrays(ideal, gpus, deadline_days, lam, delta, restart, interval)
    ideal, gpus, deadline_days, lam, delta, restart, interval = (a.ravel() for a in arrays)
    n = np.where(np.isnan(gpus), np.clip(np.ceil(ideal / (24.0 * deadline_days)), 1.0, _GPU_COUNT_CEILING), gpus)
    active = np.flatnonzero(np.isnan(gpus))
    for _ in range(max_steps):
        if active.size == 0:
            break
        g = _goodput(n[active], lam[active], delta[active], restart[active], interval[active])
        need = np.clip(np.ceil(ideal[active] / (24.0 * deadline_days[active] * g)), 1.0, _GPU_COUNT_CEILING)
        moving = need != n[active]
        n[active] = need
        active = active[moving]
    return n.reshape(arrays[0].shape)


def _compute(f: Mapping[str, np.ndarray], owned: np.ndarray) -> dict[str, np.ndarray]:
    """Body of :func:`compute` on float arrays ``f`` keyed by parameter name."""
    out: dict[str, np.ndarray] = {}

    train_flop = (f["flop_per_param_token"] * f["active_params"] + f["attention_flop_per_token"]) * f["tokens"]
    throughput = f["peak_flop_per_s"] * f["mfu"]
    ideal = train_flop / (throughput * 3600.0)

    lam, delta, restart = f["failure_rate_per_gpu_hour"], f["checkpoint_write_hours"], f["restart_hours"]
    interval = f["checkpoint_interval_hours"]

    # GPU count: given, or solved from the deadline by fixed-point iteration on the goodput.
    n = _solve_gpus(ideal, f["gpus"], f["deadline_days"], lam, delta, restart, interval)
    given = ~np.isnan(f["gpus"])
    goodput = _goodput(n, lam, delta, restart, interval)
    gpu_hours = np.where(goodput > 0, ideal / goodput, np.inf)
    wall_days = gpu_hours / (24.0 * n)
    missed = wall_days > f["deadline_days"] * (1.0 + 1e-9)
    impossible = (~given) & ((n > f["max_gpus"]) | (goodput <= 0.0) | missed)

    state_bytes = f["params"] * f["state_bytes_per_param"]
    min_gpus = np.ceil(state_bytes / (f["memory_gb"] * 1e9))

    energy_it_kwh = gpu_hours * f["tdp_w"] / 1000.0 * f["server_power_factor"] * f["avg_power_fraction"]
    energy_kwh = energy_it_kwh * f["pue"]
    co2_tonnes = energy_kwh * f["grid_gco2_per_kwh"] / 1e6

    per_gpu_hour = np.where(owned, f["accelerator_usd_per_gpu_hour"], f["rate_usd_per_gpu_hour"])
    compute_usd = ideal * per_gpu_hour
    restart_loss_usd = (gpu_hours - ideal) * per_gpu_hour
    energy_usd = np.where(owned, energy_kwh * f["electricity_usd_per_kwh"], 0.0)
    hardware_usd = np.where(owned, gpu_hours * f["hardware_usd_per_gpu_hour"], 0.0)
    run_machine_usd = compute_usd + restart_loss_usd + energy_usd + hardware_usd
    experiments_usd = (f["experiments_multiplier"] - 1.0) * run_machine_usd
    months = np.where(np.isnan(f["project_months"]), wall_days / DAYS_PER_MONTH, f["project_months"])
    checkpoint_gb = state_bytes / 1e9
    storage_usd = f["checkpoints_kept"] * checkpoint_gb * f["storage_usd_per_gb_month"] * months
    people_usd = f["team_usd_per_month"] * months
    hidden_usd = restart_loss_usd + experiments_usd + storage_usd
    data_usd = np.broadcast_to(f["data_usd"], np.broadcast(f["data_usd"], train_flop).shape)

    out.update(
        train_flop=train_flop,
        ideal_gpu_hours=ideal,
        gpu_hours=gpu_hours,
        goodput=goodput,
        gpus=n,
        wall_days=wall_days,
        deadline_impossible=impossible,
        min_gpus_memory=min_gpus,
        energy_it_mwh=energy_it_kwh / 1000.0,
        energy_mwh=energy_kwh / 1000.0,
        co2_tonnes=co2_tonnes,
        cost_compute_usd=compute_usd,
        cost_energy_usd=energy_usd,
        cost_data_usd=data_usd,
        cost_people_usd=people_usd,
        cost_hardware_usd=hardware_usd,
        cost_hidden_usd=hidden_usd,
        restart_loss_usd=restart_loss_usd,
        experiments_usd=experiments_usd,
        storage_usd=storage_usd,
    )
    total = compute_usd + energy_usd + data_usd + people_usd + hardware_usd + hidden_usd
    out["total_usd"] = total
    out["usd_per_1m_tokens"] = total / (f["tokens"] / 1e6)
    out["usd_per_pflop_day"] = run_machine_usd / (train_flop / (1e15 * 86400.0))
    out["tokens_per_gpu_hour"] = f["tokens"] / gpu_hours
    out["effective_utilization"] = train_flop / (gpu_hours * 3600.0 * f["peak_flop_per_s"])
    return out


@dataclass(frozen=True)
class Assumption:
    """A value the estimate used and where it came from."""

    name: str
    value: float | str
    unit: str
    source: str


@dataclass(frozen=True)
class Estimate:
    """The result of :func:`estimate` for one scenario.

    Attributes
    ----------
    scenario : Scenario
        The input.
    train_flop : float
        Training compute of the final run [FLOP].
    ideal_gpu_hours, gpu_hours : float
        GPU-hours at steady-state MFU, and including failure and checkpoint
        losses [GPU-hour].
    goodput : float
        Useful fraction of GPU-hours [1].
    gpus : int
        Accelerators used (given or solved from the deadline) [1].
    wall_days : float
        Wall-clock time of the final run [days].
    min_gpus_memory : int
        Fewest accelerators whose memory holds the training state, fully
        sharded (ZeRO-3/FSDP), activations not counted [1].
    mfu : float
        MFU against the peak at the training precision [1].
    energy_it_mwh, energy_mwh : float
        IT energy and facility energy (x PUE) of the final run [MWh]; NaN if
        the accelerator's TDP is unknown.
    co2_tonnes : float
        Location-based emissions of the final run [tCO2]; NaN if unknown.
    cost_usd : mapping
        The six dimensions and ``total`` [USD]; NaN where a price is unknown.
    usd_per_1m_tokens, usd_per_pflop_day, tokens_per_gpu_hour, effective_utilization : float
        Unit figures: total [USD] per 1M training tokens, final-run machine
        cost [USD] per PFLOP-day, tokens per GPU-hour, achieved FLOP/s over
        peak across all GPU-hours [1].
    details_usd : mapping
        Parts of the hidden dimension: ``restart_loss``, ``experiments``, ``storage`` [USD].
    warnings : tuple of str
        What the user should know about this result.
    assumptions : tuple of Assumption
        Every catalog value and named default the estimate used, with its source.
    """

    scenario: Scenario
    train_flop: float
    ideal_gpu_hours: float
    gpu_hours: float
    goodput: float
    gpus: int
    wall_days: float
    min_gpus_memory: int
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
    warnings: tuple[str, ...] = ()
    assumptions: tuple[Assumption, ...] = field(default=(), repr=False)

    @property
    def total_usd(self) -> float:
        """Total cost of the scenario [USD]."""
        return self.cost_usd["total"]

    @property
    def final_run_usd(self) -> float:
        """Machine cost of the final run: compute, restart losses, energy and hardware [USD].

        The scope of published training-cost estimates (no data, people,
        storage or experiments).
        """
        c = self.cost_usd
        return c["compute"] + c["energy"] + c["hardware"] + self.details_usd["restart_loss"]

    @property
    def usd_to_currency(self) -> float:
        """Factor from USD to the scenario's currency [currency/USD]."""
        if self.scenario.currency == "USD":
            return 1.0
        return self.scenario.usd_to_cny or default("usd_to_cny")

    def cost(self) -> dict[str, float]:
        """The six dimensions and ``total`` in the scenario's currency."""
        fx = self.usd_to_currency
        return {k: v * fx for k, v in self.cost_usd.items()}

    def to_dict(self) -> dict:
        """A JSON-ready summary (the CLI's ``--json`` output); unknown or infinite values are None."""
        return _json_safe({
            "train_flop": self.train_flop,
            "ideal_gpu_hours": self.ideal_gpu_hours,
            "gpu_hours": self.gpu_hours,
            "goodput": self.goodput,
            "wall_days": self.wall_days,
            "gpus": self.gpus,
            "min_gpus_memory": self.min_gpus_memory,
            "mfu": self.mfu,
            "energy_it_mwh": self.energy_it_mwh,
            "energy_mwh": self.energy_mwh,
            "co2_tonnes": self.co2_tonnes,
            "cost": self.cost(),
            "currency": self.scenario.currency,
            "usd_per_1m_tokens": self.usd_per_1m_tokens,
            "usd_per_pflop_day": self.usd_per_pflop_day,
            "tokens_per_gpu_hour": self.tokens_per_gpu_hour,
            "effective_utilization": self.effective_utilization,
            "deadline_impossible": self.deadline_impossible,
            "warnings": list(self.warnings),
        })


def _json_safe(value):
    """``value`` with NaN and infinities replaced by None, recursively (strict JSON has neither)."""
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _reference_precision(acc: catalog.Accelerator) -> str:
    """The 16-bit (else widest tensor) precision that default MFUs are measured against."""
    for p in ("bf16", "fp16", "tf32", "fp32"):
        if p in acc.peak_tflops:
            return p
    return acc.precisions[0]


def resolve_mfu(scenario: Scenario) -> tuple[float, list[Assumption]]:
    """MFU against the peak at the scenario's precision, and the defaults it used.

    A default MFU is measured against the 16-bit peak. FP8/FP4 runs get the
    realized speed-up over BF16 (``fp8_speedup``, ``fp4_speedup``), capped
    by the accelerator's peak ratio; MoE runs are scaled by ``moe_mfu_factor``.
    """
    acc = catalog.accelerator(scenario.gpu)
    if scenario.mfu is not None:
        return scenario.mfu, [Assumption("mfu", scenario.mfu, "1", "set in the scenario")]
    used = []
    base_name = "mfu_v100" if acc.id == "v100" else "mfu_dense"
    base = default(base_name)
    used.append(_assumption(base_name))
    ref = _reference_precision(acc)
    mfu = base
    if scenario.precision in ("fp8", "fp4"):
        speedup_name = f"{scenario.precision}_speedup"
        used.append(_assumption(speedup_name))
        ratio = acc.peak_tflops[scenario.precision] / acc.peak_tflops[ref]
        mfu = base * min(default(speedup_name), ratio) / ratio
    if scenario.architecture == "moe":
        used.append(_assumption("moe_mfu_factor"))
        mfu *= default("moe_mfu_factor")
    return mfu, used


def _assumption(name: str) -> Assumption:
    d = catalog.defaults()[name]
    return Assumption(name, d.value, d.unit, d.source)


def _pick(value, name: str, used: list[Assumption]) -> float:
    """The scenario's value, else the named default (recorded as used)."""
    if value is not None:
        return value
    used.append(_assumption(name))
    return default(name)


def _flop_factor(s: Scenario) -> tuple[float, float]:
    """FLOP per parameter-token and the parameter count it multiplies."""
    if s.training_kind == "lora":  # frozen weights: no weight gradients, adapters train on active experts
        return 4.0 + 6.0 * s.lora_trainable_fraction, s.active_params_effective
    return 6.0, s.active_params_effective


def _state_bytes_per_param(s: Scenario) -> float:
    """Training-state bytes per parameter: weights at the training precision,
    low-precision gradients and AdamW state for trainable parameters."""
    weights = _WEIGHT_BYTES[s.precision]
    wide = s.precision in ("fp32", "tf32")
    grad = default("bytes_grad_fp32" if wide else "bytes_grad_low_precision")
    optimizer = default("bytes_state_optimizer_fp32" if wide else "bytes_state_optimizer")
    trainable = s.lora_trainable_fraction if s.training_kind == "lora" else 1.0
    return weights + trainable * (grad + optimizer)


def _nan(x) -> float:
    return math.nan if x is None else x


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
    >>> e = estimate(Scenario(params=175e9, tokens=300e9, gpu="v100", precision="fp16", gpus=10000))
    >>> round(e.gpu_hours / 1e6, 2)  # GPT-3: 3.55M reported (Patterson et al. 2021)
    3.25
    """
    s = scenario
    acc = catalog.accelerator(s.gpu)
    reg = catalog.region(s.region)
    used: list[Assumption] = [
        Assumption(f"peak {s.precision} ({acc.id})", acc.peak_tflops[s.precision], "TFLOP/s", acc.source)
    ]
    warnings: list[str] = []

    mfu, mfu_used = resolve_mfu(s)
    used += mfu_used
    flop_factor, flop_params = _flop_factor(s)
    attention = 12.0 * s.n_layers * s.d_model * s.seq_len if s.n_layers else 0.0

    failure_rate = _pick(s.failure_rate_per_gpu_hour, "failure_rate_per_gpu_hour", used)
    write_h = _pick(s.checkpoint_write_minutes, "checkpoint_write_minutes", used) / 60.0
    restart_h = _pick(s.restart_minutes, "restart_minutes", used) / 60.0

    # prices
    # A rate set in the scenario is what is paid; discounts apply to the catalog's on-demand price.
    owned = s.pricing == "owned"
    own_rate = s.rate_usd_per_gpu_hour
    if own_rate is None and not owned:
        used.append(Assumption(f"on-demand price ({acc.id})", _nan(acc.on_demand_usd_per_gpu_hour),
                               "USD/GPU-hour", acc.price_date))
    rate = _nan(acc.on_demand_usd_per_gpu_hour)
    if s.pricing in ("reserved_1y", "reserved_3y") and own_rate is None:
        rate *= 1.0 - _pick(None, f"{s.pricing}_discount", used)
    elif s.pricing == "spot":
        if own_rate is not None:
            pass
        elif s.spot_discount is not None:
            rate *= 1.0 - s.spot_discount
        elif acc.spot_usd_per_gpu_hour and acc.on_demand_usd_per_gpu_hour:
            rate = acc.spot_usd_per_gpu_hour
            used.append(Assumption(f"spot price ({acc.id}, catalog)", rate, "USD/GPU-hour", acc.source))
        else:
            rate *= 1.0 - _pick(None, "spot_discount", used)
        failure_rate += _pick(s.spot_preemption_per_gpu_hour, "spot_preemption_per_gpu_hour", used)
    if own_rate is not None:
        rate = own_rate
    if not owned and math.isnan(rate):
        warnings.append(f"No sourced cloud price for {acc.id}: compute cost unknown; set rate_usd_per_gpu_hour.")

    accelerator_hourly = hardware_hourly = 0.0
    if owned:
        purchase = s.purchase_usd_per_gpu if s.purchase_usd_per_gpu is not None else acc.purchase_usd
        if s.purchase_usd_per_gpu is None:
            used.append(Assumption(f"purchase price ({acc.id})", _nan(purchase), "USD", acc.source))
        if purchase is None:
            warnings.append(f"No sourced purchase price for {acc.id}: owned cost unknown; set purchase_usd_per_gpu.")
        purchase = _nan(purchase)
        years = _pick(s.depreciation_years, "depreciation_years", used)
        overhead = _pick(s.server_overhead, "server_overhead", used)
        network = _pick(s.network_fraction, "network_fraction", used)
        hosting = _pick(s.hosting_usd_per_gpu_hour, "hosting_usd_per_gpu_hour", used)
        life_hours = years * HOURS_PER_YEAR
        server_capital = purchase * overhead
        cluster_capital = server_capital / (1.0 - network)
        accelerator_hourly = purchase / life_hours
        hardware_hourly = (cluster_capital - purchase) / life_hours + hosting

    # power and region
    kind = "tpu" if acc.is_tpu else "gpu"
    server_factor = _pick(None, f"server_power_factor_{kind}", used)
    power_fraction = _pick(None, f"avg_power_fraction_{kind}", used)
    if acc.tdp_w is None:
        warnings.append(f"{acc.id} has no published TDP: energy and carbon unknown.")
    pue = s.pue if s.pue is not None else reg.pue
    if pue is None:
        pue = _pick(None, "pue", used)
    elif s.pue is None:
        used.append(Assumption(f"PUE ({reg.id})", pue, "1", reg.source))
    gco2 = s.grid_gco2_per_kwh if s.grid_gco2_per_kwh is not None else reg.grid_gco2_per_kwh
    if gco2 is None:
        warnings.append(f"No sourced grid carbon intensity for {reg.id}: CO2 unknown; set grid_gco2_per_kwh.")
    elif s.grid_gco2_per_kwh is None:
        used.append(Assumption(f"grid carbon ({reg.id})", gco2, "gCO2/kWh", reg.source))
    price_kwh = s.electricity_usd_per_kwh if s.electricity_usd_per_kwh is not None else reg.electricity_usd_per_kwh
    if owned:
        if price_kwh is None:
            warnings.append(f"No sourced electricity price for {reg.id}: energy cost unknown; set electricity_usd_per_kwh.")
        elif s.electricity_usd_per_kwh is None:
            used.append(Assumption(f"electricity ({reg.id}, {reg.price_year})", price_kwh, "USD/kWh", reg.source))

    data_usd = (
        s.tokens / 1e6 * s.data_usd_per_1m_tokens
        + s.labelled_examples * s.usd_per_labelled_example
        + s.synthetic_tokens / 1e6 * s.synthetic_usd_per_1m_tokens
    )
    storage_price = _pick(s.storage_usd_per_gb_month, "storage_usd_per_gb_month", used) if s.checkpoints_kept else 0.0

    r = compute(
        params=s.params,
        active_params=flop_params,
        tokens=s.tokens,
        flop_per_param_token=flop_factor,
        attention_flop_per_token=attention,
        peak_flop_per_s=acc.peak_tflops[s.precision] * 1e12,
        mfu=mfu,
        gpus=_nan(s.gpus),
        deadline_days=_nan(s.deadline_days),
        max_gpus=default("max_gpus"),
        failure_rate_per_gpu_hour=failure_rate,
        checkpoint_write_hours=write_h,
        checkpoint_interval_hours=_nan(s.checkpoint_interval_hours),
        restart_hours=restart_h,
        state_bytes_per_param=_state_bytes_per_param(s),
        memory_gb=acc.memory_gb,
        tdp_w=_nan(acc.tdp_w),
        server_power_factor=server_factor,
        avg_power_fraction=power_fraction,
        pue=pue,
        grid_gco2_per_kwh=_nan(gco2),
        rate_usd_per_gpu_hour=rate,
        owned=owned,
        accelerator_usd_per_gpu_hour=accelerator_hourly,
        hardware_usd_per_gpu_hour=hardware_hourly,
        electricity_usd_per_kwh=_nan(price_kwh) if owned else 0.0,
        data_usd=data_usd,
        team_usd_per_month=s.team_headcount * s.team_loaded_usd_per_year / 12.0,
        project_months=_nan(s.project_months),
        checkpoints_kept=s.checkpoints_kept,
        storage_usd_per_gb_month=storage_price,
        experiments_multiplier=s.experiments_multiplier,
    )
    v = {k: float(np.asarray(x)) for k, x in r.items()}
    gpus = int(v["gpus"])
    min_gpus = int(v["min_gpus_memory"])

    # warnings about the result
    if v["deadline_impossible"]:
        largest = f"the largest cluster ({default('max_gpus'):,.0f})"
        if v["goodput"] <= 0.0 or gpus >= _GPU_COUNT_CEILING:
            warnings.append(f"Deadline impossible: no cluster meets it; at the size it would need, failures stop "
                            f"all progress (well beyond {largest}).")
        elif gpus > default("max_gpus"):
            warnings.append(f"Deadline impossible: it needs {gpus:,} GPUs, more than {largest}.")
        else:
            warnings.append(f"Deadline impossible: even {gpus:,} GPUs take {v['wall_days']:.3g} days.")
    elif v["goodput"] <= 0.0:
        warnings.append("Failures at this scale stop all progress (goodput 0): lower the failure rate or restart time.")
    elif v["goodput"] < default("min_useful_goodput"):
        warnings.append(
            f"Goodput {v['goodput']:.2f}: failures, restarts and checkpoints waste most of the GPU time; "
            "check the reliability inputs."
        )
    if owned and s.rate_usd_per_gpu_hour is not None:
        warnings.append("rate_usd_per_gpu_hour is ignored for owned hardware (capital, hosting and energy are used).")
    if s.architecture == "dense" and (s.experts is not None or s.active_params is not None):
        warnings.append("experts, top_k and active_params are ignored for a dense model.")
    if gpus < min_gpus:
        warnings.append(
            f"Does not fit in memory: the training state needs at least {min_gpus:,} x {acc.id} "
            f"({acc.memory_gb:g} GB each, fully sharded, before activations); the run has {gpus:,}."
        )
    if s.pricing == "spot" and gpus >= default("spot_large_job_gpus"):
        warnings.append(
            f"Spot at {gpus:,} GPUs: one reclaimed node stalls the whole synchronous job; capacity this large is rarely available as spot."
        )
    if s.precision in ("fp8", "fp4"):
        ref = _reference_precision(acc)
        if acc.peak_tflops[s.precision] <= acc.peak_tflops[ref]:
            warnings.append(f"{s.precision.upper()} on {acc.id} runs at the {ref.upper()} rate: no speed-up.")
    lo, hi = default("calibrated_mfu_min"), default("calibrated_mfu_max")
    if not lo <= mfu <= hi:
        warnings.append(f"MFU {mfu:.2f} is outside the range seen in published runs ({lo:.2f}-{hi:.2f}).")
    if s.architecture == "moe" and s.active_params is None:
        warnings.append("Active parameters from experts and top-k ignore shared layers: compute is a lower bound.")
    if acc.id == "p100" or acc.id.startswith("tpu-v2"):
        warnings.append(f"No measured MFU for {acc.id}: the default comes from later hardware.")

    cost = {d: v[f"cost_{d}_usd"] for d in COST_DIMENSIONS}
    cost["total"] = v["total_usd"]
    return Estimate(
        scenario=s,
        train_flop=v["train_flop"],
        ideal_gpu_hours=v["ideal_gpu_hours"],
        gpu_hours=v["gpu_hours"],
        goodput=v["goodput"],
        gpus=gpus,
        wall_days=v["wall_days"],
        min_gpus_memory=min_gpus,
        mfu=mfu,
        peak_tflops=acc.peak_tflops[s.precision],
        energy_it_mwh=v["energy_it_mwh"],
        energy_mwh=v["energy_mwh"],
        co2_tonnes=v["co2_tonnes"],
        cost_usd=cost,
        details_usd={k: v[f"{k}_usd"] for k in ("restart_loss", "experiments", "storage")},
        usd_per_1m_tokens=v["usd_per_1m_tokens"],
        usd_per_pflop_day=v["usd_per_pflop_day"],
        tokens_per_gpu_hour=v["tokens_per_gpu_hour"],
        effective_utilization=v["effective_utilization"],
        deadline_impossible=bool(v["deadline_impossible"]),
        warnings=tuple(warnings),
        assumptions=tuple(used),
    )
