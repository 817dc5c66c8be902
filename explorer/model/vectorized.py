""":func:`compute`: every formula of the model chained, vectorized over numpy arrays."""

from __future__ import annotations

import numpy as np

from explorer.model import formulas as F

__all__ = ["compute", "GPU_COUNT_CEILING"]

#: Numerical bound of the deadline solve, far above any cluster (``max_gpus``).
GPU_COUNT_CEILING = 1e12


def compute(
    *,
    params,
    active_params,
    tokens,
    flop_per_param_token=6.0,
    attention_flop_per_token=0.0,
    peak_flop_per_s,
    mfu,
    other_losses_factor=1.0,
    gpus=np.nan,
    deadline_days=np.nan,
    max_gpus=np.inf,
    failure_rate_per_gpu_hour=0.0,
    checkpoint_write_hours=0.0,
    checkpoint_interval_hours=np.nan,
    restart_hours=0.0,
    recovery_above_gpus=np.inf,
    checkpoint_write_hours_in_memory=0.0,
    restart_hours_in_memory=0.0,
    state_bytes_per_param=16.0,
    activation_bytes=0.0,
    tensor_parallel=8.0,
    memory_gb=np.nan,
    tdp_w=np.nan,
    chip_power_w=np.nan,
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
    project_months_max=np.inf,
    people_share_max=np.nan,
    checkpoints_kept=0.0,
    storage_usd_per_gb_month=0.0,
    experiments_multiplier=1.0,
) -> dict[str, np.ndarray]:
    """Every formula of the model (:mod:`explorer.model.formulas`), vectorized over broadcastable inputs.

    Parameters
    ----------
    params, active_params : array_like
        Total and active (per token) parameters [1].
    tokens : array_like
        Training tokens D [1].
    flop_per_param_token : array_like
        FLOP per parameter per token: 6 (training), ``4 + 6 f`` for LoRA [FLOP].
    attention_flop_per_token : array_like
        Attention FLOP per token, ``12 L d s`` [FLOP].
    peak_flop_per_s : array_like
        Dense peak of one accelerator at the training precision [FLOP/s].
    mfu : array_like
        Steady-state model FLOPs utilization against that peak [1].
    other_losses_factor : array_like
        Billed time beyond failures and checkpoints (evaluations, stack
        restarts, stragglers, ramp-up) as a factor [x], >= 1.
    gpus, deadline_days : array_like
        Accelerator count [1] or deadline [days]; where ``gpus`` is NaN the
        count is solved from ``deadline_days``, never below the memory floor.
    max_gpus : array_like
        Largest cluster a deadline may ask for [1].
    failure_rate_per_gpu_hour : array_like
        Interruptions per GPU-hour (failures plus spot preemptions) [1/h].
    checkpoint_write_hours, restart_hours : array_like
        Stall per checkpoint and restart time per interruption [h].
    checkpoint_interval_hours : array_like
        Checkpoint interval [h]; NaN = Daly's optimum.
    recovery_above_gpus : array_like
        Above this many accelerators the job recovers from redundant in-memory
        state [1]: ``inf`` never (checkpoints on storage), 0 always.
    checkpoint_write_hours_in_memory, restart_hours_in_memory : array_like
        Stall per checkpoint and restart time with in-memory recovery [h].
    state_bytes_per_param : array_like
        Training state per parameter (weights, gradients, optimizer) [bytes].
    activation_bytes : array_like
        Activations of one sequence through all layers [bytes].
    tensor_parallel : array_like
        Largest tensor-parallel group the activations are split over [1].
    memory_gb : array_like
        Memory of one accelerator [GB]; NaN (the default) leaves the memory floor unknown.
    tdp_w, server_power_factor, avg_power_fraction, pue : array_like
        Power per accelerator [W] (TDP, or a measured system power with factor
        and fraction 1; NaN, the default, leaves energy unknown),
        server-to-accelerator power ratio [x], average fraction of server max
        power while training [1], facility PUE [1].
    chip_power_w : array_like
        Rated power of the accelerator alone (its TDP) [W], for the GPU-only
        energy that model cards publish; NaN (the default) leaves it unknown.
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
        Months of team and storage, never fewer than the run's wall-clock
        months; NaN = the run's wall-clock months.
    project_months_max : array_like
        Most months of team and storage [months], applied after the run's
        length (a default project's bound); inf = none.
    people_share_max : array_like
        Largest share of the total the team may cost [1] (a default team of an
        adaptation): people = min(team, s / (1 - s) x the other five
        dimensions); NaN = no cap.
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
        ``state_gb_per_gpu``, ``activation_gb_per_gpu`` [GB] at the GPU count,
        ``energy_gpu_mwh`` (GPU-hours x chip TDP, the model-card figure),
        ``energy_it_mwh``, ``energy_mwh`` [MWh], ``co2_tonnes`` [t] of the final
        run, ``energy_project_mwh`` [MWh], ``co2_project_tonnes`` [t] of the whole
        project (x experiments), ``cost_<dimension>_usd`` for the six dimensions
        and ``total_usd`` [USD] (the project), ``final_run_usd`` (machine cost of
        the final run), ``restart_loss_usd`` (hours beyond the ideal), split into
        ``failure_loss_usd`` (failures, restarts, checkpoints) and ``other_loss_usd``,
        ``project_months`` [months],
        ``experiments_usd``, ``storage_usd`` [USD], ``usd_per_1m_tokens``,
        ``usd_per_pflop_day``, ``tokens_per_gpu_hour``, ``effective_utilization`` [1].
    """
    f = dict(
        params=params, active_params=active_params, tokens=tokens, flop_per_param_token=flop_per_param_token,
        attention_flop_per_token=attention_flop_per_token, peak_flop_per_s=peak_flop_per_s, mfu=mfu,
        other_losses_factor=other_losses_factor, gpus=gpus, deadline_days=deadline_days, max_gpus=max_gpus,
        failure_rate_per_gpu_hour=failure_rate_per_gpu_hour, checkpoint_write_hours=checkpoint_write_hours,
        checkpoint_interval_hours=checkpoint_interval_hours, restart_hours=restart_hours,
        recovery_above_gpus=recovery_above_gpus, checkpoint_write_hours_in_memory=checkpoint_write_hours_in_memory,
        restart_hours_in_memory=restart_hours_in_memory,
        state_bytes_per_param=state_bytes_per_param, activation_bytes=activation_bytes,
        tensor_parallel=tensor_parallel, memory_gb=memory_gb, tdp_w=tdp_w, chip_power_w=chip_power_w,
        server_power_factor=server_power_factor, avg_power_fraction=avg_power_fraction, pue=pue,
        grid_gco2_per_kwh=grid_gco2_per_kwh, rate_usd_per_gpu_hour=rate_usd_per_gpu_hour,
        accelerator_usd_per_gpu_hour=accelerator_usd_per_gpu_hour,
        hardware_usd_per_gpu_hour=hardware_usd_per_gpu_hour, electricity_usd_per_kwh=electricity_usd_per_kwh,
        data_usd=data_usd, team_usd_per_month=team_usd_per_month, project_months=project_months,
        project_months_max=project_months_max, people_share_max=people_share_max, checkpoints_kept=checkpoints_kept, storage_usd_per_gb_month=storage_usd_per_gb_month,
        experiments_multiplier=experiments_multiplier,
    )
    f = {k: np.asarray(v, dtype=float) for k, v in f.items()}
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # impossible runs give inf, flagged
        return _compute(f, np.asarray(owned, dtype=bool))


#: Inputs of :func:`_goodput_at` (the only ones the deadline solve iterates over).
_GOODPUT_KEYS = ("failure_rate_per_gpu_hour", "checkpoint_write_hours", "restart_hours", "checkpoint_interval_hours",
                 "recovery_above_gpus", "checkpoint_write_hours_in_memory", "restart_hours_in_memory")


def _goodput_at(n, f):
    """Goodput at ``n`` accelerators, with in-memory recovery above ``recovery_above_gpus``."""
    rate = f["failure_rate_per_gpu_hour"] * n
    g = F.goodput(rate, f["checkpoint_write_hours"], f["restart_hours"], f["checkpoint_interval_hours"])
    mem = np.flatnonzero(n > f["recovery_above_gpus"])  # usually few: recompute only those
    if mem.size:
        if g.ndim == 0:
            return F.goodput(rate, f["checkpoint_write_hours_in_memory"], f["restart_hours_in_memory"],
                             f["checkpoint_interval_hours"])
        shape = g.shape
        g, rate = g.ravel(), np.broadcast_to(rate, shape).ravel()

        def at(k):
            v = f[k]
            return v if np.ndim(v) == 0 else np.broadcast_to(v, shape).ravel()[mem]

        g[mem] = F.goodput(rate[mem], at("checkpoint_write_hours_in_memory"), at("restart_hours_in_memory"),
                           at("checkpoint_interval_hours"))
        g = g.reshape(shape)
    return g


def _solve_gpus(billed_ideal, floor, f, max_steps: int = 60):
    """GPU count: ``gpus`` where given, else the smallest count >= ``floor`` that meets the deadline.

    ``n -> max(n, floor, ceil(hours / (24 days goodput(n))))`` only grows, so
    from the failure-free count it climbs to a count that meets the deadline,
    if there is one (the smallest one while goodput falls with n; where
    in-memory recovery starts above a size, goodput jumps up there and the
    count found may be a little above the smallest); the caller flags counts
    above the largest cluster and missed deadlines. Only the elements still
    moving are iterated.
    """
    shape = np.broadcast_shapes(*(np.shape(a) for a in (billed_ideal, floor, *f.values())))

    def flat(v):  # scalars stay scalars: no copy of a broadcast value, no indexing in the loop
        return v if np.ndim(v) == 0 else np.broadcast_to(v, shape).ravel()

    b = {k: flat(f[k]) for k in _GOODPUT_KEYS}
    hours = np.broadcast_to(billed_ideal, shape).ravel()
    low = np.nan_to_num(np.broadcast_to(floor, shape).ravel(), nan=1.0)
    days = np.broadcast_to(f["deadline_days"], shape).ravel()
    given = ~np.isnan(np.broadcast_to(f["gpus"], shape).ravel())
    gpus = np.broadcast_to(f["gpus"], shape).ravel()

    def need(idx, g):
        raw = np.ceil(hours[idx] / (24.0 * days[idx] * g))
        return np.clip(np.maximum(raw, low[idx]), 1.0, GPU_COUNT_CEILING)

    n = np.where(given, gpus, need(slice(None), 1.0))
    active = np.flatnonzero(~given)
    for _ in range(max_steps):
        if active.size == 0:
            break
        sub = {k: v if np.ndim(v) == 0 else v[active] for k, v in b.items()}
        new = np.maximum(need(active, _goodput_at(n[active], sub)), n[active])
        moving = new != n[active]
        n[active] = new
        active = active[moving]
    return n.reshape(shape)


def _compute(f, owned):
    """Body of :func:`compute` on float arrays ``f`` keyed by parameter name."""
    flop = F.train_flop(f["flop_per_param_token"], f["active_params"], f["tokens"], f["attention_flop_per_token"])
    ideal = F.ideal_gpu_hours(flop, f["peak_flop_per_s"], f["mfu"])

    state_bytes = f["params"] * f["state_bytes_per_param"]
    memory_bytes = f["memory_gb"] * 1e9
    floor = F.min_gpus_for_memory(state_bytes, f["activation_bytes"], memory_bytes, f["tensor_parallel"])

    # where the activations cannot fit at all, the solve still honours the training-state floor (checks warn)
    state_floor = np.maximum(np.ceil(state_bytes / memory_bytes), 1.0)
    n = _solve_gpus(ideal * f["other_losses_factor"], np.where(np.isinf(floor), state_floor, floor), f)
    given = ~np.isnan(f["gpus"])
    good = _goodput_at(n, f)
    gpu_hours = F.billed_gpu_hours(ideal, good, f["other_losses_factor"])
    wall_days = gpu_hours / (24.0 * n)
    missed = wall_days > f["deadline_days"] * (1.0 + 1e-9)
    impossible = (~given) & ((n > f["max_gpus"]) | (good <= 0.0) | missed)
    tp = np.minimum(n, f["tensor_parallel"])

    energy_kwh = F.energy_kwh(gpu_hours, f["tdp_w"], f["server_power_factor"], f["avg_power_fraction"], f["pue"])
    energy_it_kwh = energy_kwh / f["pue"]
    co2_tonnes = energy_kwh * f["grid_gco2_per_kwh"] / 1e6
    mult = f["experiments_multiplier"]

    per_gpu_hour = np.where(owned, f["accelerator_usd_per_gpu_hour"], f["rate_usd_per_gpu_hour"])
    compute_usd = ideal * per_gpu_hour
    restart_loss_usd = (gpu_hours - ideal) * per_gpu_hour
    failure_loss_usd = (ideal / good - ideal) * per_gpu_hour  # failures, restarts and checkpoints (goodput)
    other_loss_usd = restart_loss_usd - failure_loss_usd  # evaluations, stack restarts, stragglers, ramp-up
    energy_usd = np.where(owned, energy_kwh * f["electricity_usd_per_kwh"], 0.0)
    hardware_usd = np.where(owned, gpu_hours * f["hardware_usd_per_gpu_hour"], 0.0)
    final_run_usd = compute_usd + restart_loss_usd + energy_usd + hardware_usd
    experiments_usd = (mult - 1.0) * final_run_usd
    run_months = wall_days / F.DAYS_PER_MONTH
    months = np.where(np.isnan(f["project_months"]), run_months, np.maximum(f["project_months"], run_months))
    months = np.minimum(months, f["project_months_max"])
    storage_usd = f["checkpoints_kept"] * state_bytes / 1e9 * f["storage_usd_per_gb_month"] * months
    hidden_usd = restart_loss_usd + experiments_usd + storage_usd
    data_usd = np.broadcast_to(f["data_usd"], np.broadcast(f["data_usd"], flop).shape)
    others_usd = compute_usd + energy_usd + data_usd + hardware_usd + hidden_usd
    share = f["people_share_max"]
    with np.errstate(divide="ignore", invalid="ignore"):
        people_cap_usd = np.where(np.isnan(share), np.inf, share / (1.0 - share) * others_usd)
    people_usd = np.minimum(f["team_usd_per_month"] * months, people_cap_usd)
    total = others_usd + people_usd

    return dict(
        train_flop=flop,
        ideal_gpu_hours=ideal,
        gpu_hours=gpu_hours,
        goodput=good,
        gpus=n,
        wall_days=wall_days,
        deadline_impossible=impossible,
        min_gpus_memory=floor,
        state_gb_per_gpu=state_bytes / n / 1e9,
        activation_gb_per_gpu=f["activation_bytes"] / tp / 1e9,
        energy_gpu_mwh=gpu_hours * f["chip_power_w"] / 1e6,
        energy_it_mwh=energy_it_kwh / 1000.0,
        energy_mwh=energy_kwh / 1000.0,
        co2_tonnes=co2_tonnes,
        energy_project_mwh=energy_kwh * mult / 1000.0,
        co2_project_tonnes=co2_tonnes * mult,
        cost_compute_usd=compute_usd,
        cost_energy_usd=energy_usd,
        cost_data_usd=data_usd,
        cost_people_usd=people_usd,
        cost_hardware_usd=hardware_usd,
        cost_hidden_usd=hidden_usd,
        final_run_usd=final_run_usd,
        restart_loss_usd=restart_loss_usd,
        failure_loss_usd=failure_loss_usd,
        other_loss_usd=other_loss_usd,
        project_months=months,
        experiments_usd=experiments_usd,
        storage_usd=storage_usd,
        total_usd=total,
        usd_per_1m_tokens=total / (f["tokens"] / 1e6),
        usd_per_pflop_day=final_run_usd / (flop / (1e15 * 86400.0)),
        tokens_per_gpu_hour=f["tokens"] / gpu_hours,
        effective_utilization=flop / (gpu_hours * 3600.0 * f["peak_flop_per_s"]),
    )
