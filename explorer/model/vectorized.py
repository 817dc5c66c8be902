""":func:`compute`: every formula of the model chained, vectorized over numpy arrays."""

from __future__ import annotations


import numpy as np

from explorer.model import formulas as F
from explorer.model.inputs import compute_inputs, parameters_doc, signature

__all__ = ["compute", "GPU_COUNT_CEILING", "MONEY_KEYS", "INFEASIBLE_REASONS", "RECOMPUTE_LEVELS"]

#: Numerical bound of the deadline solve, far above any cluster (``max_gpus``).
GPU_COUNT_CEILING = 1e12


def _any(mask) -> bool:
    """``np.any(mask)``, without its reduction machinery for one value (an estimate's)."""
    return bool(mask) if np.ndim(mask) == 0 else bool(np.asarray(mask).any())


def compute(**inputs) -> dict[str, np.ndarray]:
    """Every formula of the model (:mod:`explorer.model.formulas`), vectorized over broadcastable inputs.

    The inputs are keyword-only, declared once in :data:`explorer.model.inputs.COMPUTE_INPUTS` (the
    signature and the list below are made from it); those without a default are required.

    Parameters
    ----------
{parameters}

    Returns
    -------
    dict of ndarray
        ``train_flop`` [FLOP], ``ideal_gpu_hours``, ``gpu_hours`` [GPU-hour],
        ``goodput`` [1], ``gpus`` [1], ``wall_days`` [days],
        ``deadline_impossible`` [bool], ``min_gpus_memory`` [1],
        ``infeasible`` [bool] (the run fits on no cluster up to ``max_gpus``
        or not on the given count, misses its deadline on the largest one, or
        lasts longer than ``max_wall_days``: every money figure is then NaN),
        ``infeasible_reason`` (index into :data:`INFEASIBLE_REASONS`),
        ``alternative_gpus`` and ``alternative_wall_days`` (the nearest
        feasible alternative of an infeasible run: for a deadline no cluster
        meets, the largest cluster and its shortest time; otherwise the fewest
        GPUs that fit and end within ``max_wall_days``; NaN when there is
        none), ``recompute_level`` (index into :data:`RECOMPUTE_LEVELS`: the
        first recomputation whose activations fit at the GPU count), ``gpus_needed`` (the count a deadline needs, possibly
        beyond ``max_gpus``; where a deadline needs more, ``gpus`` and the
        figures are those of the largest cluster),
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
    f = compute_inputs(inputs, complete=False)
    owned = np.asarray(f.pop("owned"), dtype=bool)
    f = {k: np.asarray(v, dtype=float) for k, v in f.items()}
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # impossible runs give inf, flagged
        rows = _rows(f, owned)
        if rows <= _CHUNK_ROWS or not np.isnan(f["gpus"]).any():
            return _compute(f, owned)
        # a long sweep with counts to search for, in blocks of rows: the searches' arrays stay in the processor's
        # cache (every row is computed on its own, so the values are those of one call; with every count given,
        # one call is faster)
        return _join((_compute({k: v if v.ndim == 0 else v[i:i + _CHUNK_ROWS] for k, v in f.items()},
                               owned if owned.ndim == 0 else owned[i:i + _CHUNK_ROWS])
                      for i in range(0, rows, _CHUNK_ROWS)), rows)


#: Rows of a block of a long sweep (:func:`compute`): 2^16 rows are 512 kB per array. By CPU time on 1e6 rows of
#: benchmarks/run.py's sweep (8 Dec 2026, a loaded 2-core machine), 2^16 and 2^17 were the fastest of 2^12 to 2^18
#: and one block (1.26-1.33 and 1.23-1.50 CPU-s against 1.61 in one block; 2^12: 2.9).
_CHUNK_ROWS = 1 << 16


def _rows(f, owned) -> int:
    """The length of the inputs where every array among them is one-dimensional of that length, else 0."""
    lengths = {v.shape for v in (*f.values(), owned) if v.ndim}
    if len(lengths) != 1:
        return 0
    (shape,) = lengths
    return shape[0] if len(shape) == 1 else 0


def _join(parts, rows):
    """The outputs of :func:`_compute` on consecutive blocks of ``rows`` rows (an iterable: each block is copied
    into the joined columns, then dropped), joined; a value the same in every block (from scalar inputs only) is
    kept as one value."""
    arrays: dict[str, np.ndarray] = {}
    pending: dict[str, list] = {}  # the blocks where a key was one value, while it has no column: (start, stop, value)
    keys: list[str] = []
    for start, part in zip(range(0, rows, _CHUNK_ROWS), parts):
        stop = min(start + _CHUNK_ROWS, rows)
        keys = keys or list(part)
        for k, v in part.items():
            arr = arrays.get(k)
            if arr is None and np.ndim(v) == 0:
                pending.setdefault(k, []).append((start, stop, v))
                continue
            dtype = np.result_type(v) if arr is None else np.result_type(arr, v)
            if arr is None or arr.dtype != dtype:  # the key's first column (or a wider type): every row so far
                column = np.empty(rows, dtype)
                if arr is not None:
                    column[:start] = arr[:start]
                for a, b, w in pending.pop(k, ()):
                    column[a:b] = w
                arr = arrays[k] = column
            arr[start:stop] = v
    return {k: arrays[k] if k in arrays else pending[k][0][2] for k in keys}


compute.__signature__ = signature(dict[str, np.ndarray])
if compute.__doc__:  # None under python -OO
    compute.__doc__ = compute.__doc__.replace("{parameters}", parameters_doc())


#: Inputs of :func:`_goodput_at` (the only ones the deadline solve iterates over).
_GOODPUT_KEYS = ("failure_rate_per_gpu_hour", "checkpoint_write_hours", "restart_hours", "checkpoint_interval_hours",
                 "recovery_above_gpus", "checkpoint_write_hours_in_memory", "restart_hours_in_memory")


def _goodput_at(n, f):
    """Goodput at ``n`` accelerators under the recovery rule of ``recovery_above_gpus``.

    ``recovery_above_gpus`` NaN (``recovery = "auto"``): the larger goodput of
    the two techniques, storage checkpoints (Daly 2006) and recovery from a
    redundant in-memory replica (Gemini Team 2023; Wang et al. 2023), at every
    size. Both apply at any scale: in-memory checkpoints need only host memory
    on the job's own or a peer server (Wang et al. 2023, SOSP, "GEMINI: Fast
    Failure Recovery in Distributed Training with In-Memory Checkpoints": a
    local and a remote CPU-memory copy, storage as the last resort, 13x faster
    recovery without slowing training), so the cheaper one is chosen wherever
    both apply. As the larger of two continuous functions of ``n`` it has no
    step: one more GPU moves it by no more than either technique moves by
    itself (the former rule, storage up to 16,384 GPUs and in-memory above,
    jumped from 0.880 to 0.987 there). With the default times the in-memory
    goodput is the larger one at every size (no write stall, 2.4 min restarts
    against 10 min). Otherwise in-memory above ``recovery_above_gpus``
    accelerators: ``inf`` never (``storage``), 0 always (``in_memory``).
    """
    rate = f["failure_rate_per_gpu_hour"] * n
    above = f["recovery_above_gpus"]
    auto = np.isnan(above)
    if not _any(auto):  # an explicit threshold everywhere: each technique only where it applies
        return _by_threshold(n > above, rate, f, F.goodput)
    g = F.goodput(rate, f["checkpoint_write_hours"], f["restart_hours"], f["checkpoint_interval_hours"])
    mem = F.goodput(rate, f["checkpoint_write_hours_in_memory"], f["restart_hours_in_memory"],
                    f["checkpoint_interval_hours"])
    if np.ndim(auto) == 0:  # the automatic rule everywhere (an estimate's default)
        return np.maximum(g, mem)
    return np.where(auto, np.maximum(g, mem), np.where(n > above, mem, g))


#: Write and restart times [h] of the two recovery techniques: storage checkpoints, an in-memory replica.
_STORAGE_KEYS = ("checkpoint_write_hours", "restart_hours")
_MEMORY_KEYS = ("checkpoint_write_hours_in_memory", "restart_hours_in_memory")


def _by_threshold(over, rate, f, fn):
    """``fn(rate, write_hours, restart_hours, interval_hours)`` of the in-memory technique where ``over``, of
    storage checkpoints elsewhere: each evaluated only on its own elements (the same values as
    ``np.where(over, fn(memory), fn(storage))``)."""
    interval = f["checkpoint_interval_hours"]
    if not _any(over):
        return fn(rate, *(f[k] for k in _STORAGE_KEYS), interval)
    if np.all(over):
        return fn(rate, *(f[k] for k in _MEMORY_KEYS), interval)
    keys = (*_STORAGE_KEYS, *_MEMORY_KEYS, "checkpoint_interval_hours")
    shape = np.broadcast_shapes(np.shape(over), np.shape(rate), *(np.shape(f[k]) for k in keys))
    over = np.broadcast_to(over, shape)
    out = np.empty(shape)
    for mask, tech in ((~over, _STORAGE_KEYS), (over, _MEMORY_KEYS)):
        args = (v if np.ndim(v) == 0 else np.broadcast_to(v, shape)[mask]
                for v in (rate, *(f[k] for k in tech), interval))
        out[mask] = fn(*args)
    return out


def _elasticity(rate, write_hours, restart_hours, interval_hours):
    """``-d ln goodput / d ln rate`` of one recovery technique (:func:`explorer.model.formulas.goodput`) [1].

    With ``y = (tau + d) r``: ``r R + y / (1 - e^-y) - 1``, the interval ``tau`` held (Daly's interval is
    near the optimum, where goodput does not move with it); ``r R`` with no write stall (``e^-rR``).
    """
    r = np.asarray(rate, float)
    d = np.asarray(write_hours, float)
    interval = np.asarray(interval_hours, float)
    if d.ndim == 0 and d <= 0.0 and interval.ndim == 0 and np.isnan(interval):  # no write stall: r R, as below
        with np.errstate(invalid="ignore"):
            return _nan_to_zero(r * restart_hours)
    optimal = np.isnan(interval)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        tau = F.daly_checkpoint_interval_hours(1.0 / r, d)
        if not (optimal.ndim == 0 and optimal):  # an interval given somewhere (else Daly's everywhere)
            tau = np.where(optimal, tau, interval)
        y = (tau + d) * r
        em = np.expm1(-y)
        stall = (y + em) / -em  # y / (1 - e^-y) - 1 without cancellation
        e = r * restart_hours + np.where(y > 0, stall, 0.0)
        no_stall = (d <= 0.0) & optimal
        if not (no_stall.ndim == 0 and not no_stall):
            e = np.where(no_stall, r * restart_hours, e)
    return _nan_to_zero(e)


def _nan_to_zero(e):
    """``np.nan_to_num(e, nan=0.0, posinf=np.inf)`` (NaN 0, -inf the most negative float), in place on arrays."""
    e = np.asarray(e, float)
    if e.ndim == 0:
        return np.nan_to_num(e, nan=0.0, posinf=np.inf)
    if not e.flags.writeable or e.base is not None:  # a view or an input: a copy of our own
        e = e.copy()
    np.copyto(e, 0.0, where=np.isnan(e))
    return np.maximum(e, _MOST_NEGATIVE, out=e)


#: The most negative float [1]: where ``np.nan_to_num`` puts -inf (:func:`_nan_to_zero`).
_MOST_NEGATIVE = -float(np.finfo(float).max)


def _elasticity_at(n, f):
    """``-d ln goodput / d ln n`` at ``n`` accelerators under the rule of :func:`_goodput_at` [1]: the
    technique whose goodput :func:`_goodput_at` takes."""
    rate = f["failure_rate_per_gpu_hour"] * n
    above = f["recovery_above_gpus"]
    auto = np.isnan(above)
    if not _any(auto):
        return _by_threshold(n > above, rate, f, _elasticity)
    e = _elasticity(rate, f["checkpoint_write_hours"], f["restart_hours"], f["checkpoint_interval_hours"])
    e_mem = _elasticity(rate, f["checkpoint_write_hours_in_memory"], f["restart_hours_in_memory"],
                        f["checkpoint_interval_hours"])
    g = F.goodput(rate, f["checkpoint_write_hours"], f["restart_hours"], f["checkpoint_interval_hours"])
    mem = F.goodput(rate, f["checkpoint_write_hours_in_memory"], f["restart_hours_in_memory"],
                    f["checkpoint_interval_hours"])
    return np.where(auto, np.where(mem > g, e_mem, e), np.where(n > above, e_mem, e))


def _solve_gpus(billed_ideal, floor, f, max_steps: int = 60):
    """Smallest GPU count >= ``floor`` that meets the deadline (``gpus`` where given).

    ``n -> max(n, floor, ceil(hours / (24 days goodput(n))))`` only grows, so
    from the failure-free count it climbs to the smallest count that meets the
    deadline, if there is one (goodput falls with n under every recovery rule
    but an explicit ``recovery_above_gpus`` threshold); the caller flags counts
    above the largest cluster and missed deadlines. Only the elements still
    moving are iterated.
    """
    if np.ndim(f["gpus"]) == 0 and not np.isnan(f["gpus"]):  # a count given everywhere: nothing to solve
        return np.broadcast_to(f["gpus"], np.broadcast_shapes(np.shape(billed_ideal), np.shape(floor))).astype(float)
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
        raw = np.maximum(raw, low[idx])
        return _clip(raw, 1.0, GPU_COUNT_CEILING)

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


#: Regula falsi steps (Illinois) of the continuous least point, the start of the exact search.
_ROOT_STEPS = 12
#: Tie-break of the cheapest-cluster search [USD per GPU-hour]: where money does not depend on the count (no
#: prices), fewer GPU-hours win; a millionth of a dollar an hour moves no money figure.
_TIE_USD_PER_GPU_HOUR = 1e-6


def _objective(out):
    """What the cheapest-cluster search minimizes: the total cost, GPU-hours breaking ties; GPU-hours if unknown."""
    total = out["total_usd"] + _TIE_USD_PER_GPU_HOUR * out["gpu_hours"]
    return np.where(np.isnan(total), out["gpu_hours"], total)


def _cheapest_gpus(n_min, floor, f, owned, flop, ideal, state_bytes):
    """The cheapest cluster that meets the deadline: the cheapest count in ``[n_min, max_gpus]``.

    ``n_min`` is the smallest count that meets the deadline (:func:`_solve_gpus`). The cost of ``n`` GPUs is
    the machine time (GPU-hours, which grow with n as goodput falls) plus what is paid by the month (people
    and storage) over ``months(n) = min(max(project_months, run months), project_months_max)``. So on the
    counts that end within ``max_wall_days`` (from ``n_5y``) it has three pieces, split where the run lasts
    ``project_months_max`` (``n_max``) and ``project_months`` (``n_pm``), each the smallest count that ends
    within it (:func:`_solve_gpus`): below ``n_max`` the months are capped and the cost rises with n; above
    ``n_pm`` the months are the project's and it rises again; between, the months are the run's and the cost
    falls, then rises. The cheapest count at or above ``n_min`` is then one of ``n_min``, the least count of the
    middle piece at or above ``n_min`` (:func:`_least_count`: exact, an integer search; on each side of an
    explicit recovery threshold) and ``n_pm``, ties broken by fewer GPU-hours (:func:`_objective`). So the count
    is the cheapest whole count that meets the deadline: a looser deadline (a smaller ``n_min``) never costs
    more, and a run finishes before its deadline where a longer one would pay the team for longer than it saves.
    """
    shape = n_min.shape
    if np.ndim(f["gpus"]) == 0 and not np.isnan(f["gpus"]):  # a count given everywhere: no search
        return n_min
    hi_all = np.broadcast_to(np.minimum(f["max_gpus"], GPU_COUNT_CEILING), shape).ravel()
    lo_all = np.broadcast_to(np.nan_to_num(floor, nan=1.0), shape).ravel()
    n_flat = n_min.ravel().copy()
    given = ~np.isnan(np.broadcast_to(f["gpus"], shape).ravel())
    idx = np.flatnonzero(~given & (n_flat <= hi_all) & (lo_all <= hi_all))
    if idx.size == 0:
        return n_min
    sub = _take(f, idx, shape, _SEARCH_KEYS)
    sub_owned = owned if np.ndim(owned) == 0 else np.broadcast_to(owned, shape).ravel()[idx]
    sub_flop, sub_ideal, sub_state = (np.broadcast_to(x, shape).ravel()[idx] for x in (flop, ideal, state_bytes))
    lo, hi, start = np.maximum(lo_all[idx], 1.0), hi_all[idx], n_flat[idx]
    hours = sub_ideal * sub["other_losses_factor"]

    def within(days):  # the smallest count >= lo that ends within ``days`` (inf: lo)
        return np.minimum(_solve_gpus(hours, lo, dict(sub, gpus=np.nan, deadline_days=days)), hi)

    months, months_max = sub["project_months"], sub["project_months_max"]
    n_5y = within(sub["max_wall_days"])
    # no cap on the months (compute's default): the piece below n_max is empty; no project months: above n_pm
    n_max = n_5y if not _any(np.isfinite(months_max)) else np.maximum(
        within(months_max * F.DAYS_PER_MONTH), n_5y)
    n_pm = hi if np.all(np.isnan(months)) else np.where(
        np.isnan(months), hi, np.maximum(within(np.nan_to_num(months, nan=1.0) * F.DAYS_PER_MONTH), n_max))
    # the months are the run's own on [n_max, n_pm - 1] (n_pm is a candidate of its own); the least count at or
    # above n_min there, exact (an integer search); an explicit recovery threshold inside splits the counts in two (goodput
    # jumps up above it, so the cost has a least point on each side)
    p_lo, p_hi = np.maximum(n_max, start), np.maximum(n_pm, n_max) - 1.0
    above = np.broadcast_to(sub["recovery_above_gpus"], lo.shape)
    cut = np.floor(above)
    split = np.isfinite(above) & (cut >= p_lo) & (cut < p_hi)
    below = np.where(split, cut, p_hi)
    guess = _interior_least(p_lo, np.maximum(below, p_lo), sub, sub_owned, sub_state)
    x = _least_count(p_lo, below, guess, sub, sub_owned, sub_ideal, sub_state)
    x2 = x
    if _any(split):  # the counts above the threshold, where it splits them (searched from its first count)
        k = np.flatnonzero(split)
        ck = {key: sub[key] if np.ndim(sub[key]) == 0 else sub[key][k] for key in _LEAST_KEYS}
        x2 = x.copy()
        x2[k] = _least_count(cut[k] + 1.0, p_hi[k], cut[k] + 1.0, ck,
                             sub_owned if np.ndim(sub_owned) == 0 else sub_owned[k],
                             sub_ideal[k], sub_state[k])
    # the candidates at or above n_min: n_min itself, the least count of each piece, n_pm, and the first count above
    # an explicit recovery threshold (goodput jumps up there; compute's callers pass none)
    jump = np.where(np.isfinite(above), cut + 1.0, start)
    candidates = np.stack([start, x, x2, n_pm, jump])
    candidates = _clip(candidates, lo, hi)
    out = _at(candidates, sub, sub_owned, sub_flop, sub_ideal, sub_state)  # all five in one call
    costs = _objective(out)
    costs = np.where((candidates >= start) & ~np.isnan(costs), costs, np.inf)
    pick = np.argmin(costs, axis=0)[None]
    best = np.take_along_axis(candidates, pick, 0)[0]
    wall_days = np.take_along_axis(np.broadcast_to(out["wall_days"], candidates.shape), pick, 0)[0]
    days = sub["deadline_days"]
    n_flat[idx] = np.where(wall_days <= days * (1.0 + 1e-9), best, start)
    return n_flat.reshape(shape)


def _interior_least(n_lo, n_hi, f, owned, state_bytes):
    """The least point of ``gpu_hours(n) (A + K / n)`` on ``[n_lo, n_hi]``: the cost of a run paid by its months.

    Where the months are the run's own, the cost of ``n`` GPUs is ``gh(n) (A + K / n)`` plus what does not
    depend on n, with ``gh = H / goodput(n)``, ``A`` the money of a GPU-hour times the experiments (a cloud rate,
    or the owner's capital, hardware and energy) and ``K`` the money of a month (team and storage) over the hours
    of a month. Its derivative in ``x = ln n`` has the sign of ``F(x) = e(n) - K / (A n + K)``, ``e(n) = -d ln
    goodput / d ln n`` (:func:`_elasticity_at`), which rises with n (goodput falls faster on
    larger clusters, and the month's share falls): one root, found by ``_ROOT_STEPS`` steps of regula falsi
    (Illinois) in ``x``; the ends where F does not change sign. Not exact (the steps do not always narrow it to one
    GPU, and ``e`` holds the checkpoint interval): the start of :func:`_least_count`, which is.
    """
    per_hour = np.where(owned, f["accelerator_usd_per_gpu_hour"] + f["hardware_usd_per_gpu_hour"]
                        + f["tdp_w"] / 1000.0 * f["server_power_factor"] * f["avg_power_fraction"] * f["pue"]
                        * f["electricity_usd_per_kwh"], f["rate_usd_per_gpu_hour"])
    A = f["experiments_multiplier"] * per_hour + _TIE_USD_PER_GPU_HOUR
    K = (f["team_usd_per_month"] + f["checkpoints_kept"] * state_bytes / 1e9 * f["storage_usd_per_gb_month"]) \
        / (24.0 * F.DAYS_PER_MONTH)
    unknown = ~(np.isfinite(A) & np.isfinite(K))
    A, K = np.where(unknown, 1.0, A), np.where(unknown, 0.0, K)  # money unknown: the fewest GPU-hours

    def slope(x, f, A, K):
        n = np.exp(x)
        t = A * n
        t += K
        np.divide(K, t, out=t)
        e = _elasticity_at(n, f)
        return np.subtract(e, t, out=t)

    def rows(v, mask):
        return v[mask] if np.ndim(v) else v

    a, b = np.log(n_lo), np.log(n_hi)
    fa = slope(a, f, A, K)
    x = np.where(fa >= 0, a, b)  # no sign change: the end where the cost is least
    # the slope at the upper end only where the cost falls at the lower one (elsewhere the lower end is the least)
    falls = (fa < 0) & (b > a)
    if not _any(falls):
        return np.exp(x)
    g = {k: v if np.ndim(v) == 0 else v[falls] for k, v in f.items() if k in _GOODPUT_KEYS}
    fb = slope(b[falls], g, rows(A, falls), rows(K, falls))
    inside = np.zeros(np.shape(falls), bool)
    inside[falls] = fb > 0
    if _any(inside):
        g = {k: v if np.ndim(v) == 0 else v[inside] for k, v in f.items() if k in _GOODPUT_KEYS}
        A, K = rows(A, inside), rows(K, inside)
        a, b, fa, fb = a[inside], b[inside], fa[inside], fb[inside[falls]]
        side = np.zeros(a.shape)
        for _ in range(_ROOT_STEPS):
            d = fb - fa
            c = a * fb
            c -= b * fa
            c /= d
            flat = d == 0
            if flat.any():
                np.copyto(c, 0.5 * (a + b), where=flat)
            np.maximum(c, a, out=c)  # np.clip(c, a, b)
            np.minimum(c, b, out=c)
            fc = slope(c, g, A, K)
            right = fc > 0  # the root is in [a, c]
            left = ~right
            np.copyto(b, c, where=right)
            np.copyto(fb, fc, where=right)
            np.copyto(a, c, where=left)
            np.copyto(fa, fc, where=left)
            # Illinois: halve the value at the end kept twice in a row
            np.multiply(fa, 0.5, out=fa, where=right & (side > 0))
            np.multiply(fb, 0.5, out=fb, where=left & (side < 0))
            side = np.where(right, 1.0, -1.0)
        x = x.copy()
        x[inside] = np.where(np.abs(fa) < np.abs(fb), a, b)
    return np.exp(x)


def _least_count(n_lo, n_hi, guess, f, owned, ideal, state_bytes):
    """The cheapest whole GPU count on ``[n_lo, n_hi]``: exact, by an integer search from ``guess``.

    The cost is taken to fall, then rise on the counts given (one least point; :func:`_cheapest_gpus` splits
    them where it is not). Then "one more GPU costs at least as much", ``c(m + 1) >= c(m)``, is false below the
    least count and true from it on: a monotone predicate on whole counts. It is evaluated first at ``guess``
    (the continuous least point, :func:`_interior_least`) and the counts on either side, then at counts 2, 4,
    8, ... further away until it changes (galloping), then by bisection: the smallest count where it holds is the
    exact least count (the fewest GPUs of a tie). A guess within one GPU costs four costs in one step; any guess
    at most about ``2 log2(n_hi - n_lo) + 2`` steps.
    ``c`` is the part of the cost (:func:`_objective`) that depends on n where the months are the run's own,
    ``gpu_hours(n) (A + K / n)``: ``A`` the money of a GPU-hour times the experiments (a cloud rate, or the
    owner's capital, hardware and energy) plus the tie-break, ``K`` the money of a month (team and storage) over the hours of a
    month; money unknown: the GPU-hours (as :func:`_objective`).
    """
    lo = np.ceil(n_lo)
    hi = np.maximum(np.floor(n_hi), lo)
    act = np.flatnonzero(hi > lo)
    if act.size == 0:
        return lo
    rows = lo.shape
    per_hour = np.where(owned, f["accelerator_usd_per_gpu_hour"] + f["hardware_usd_per_gpu_hour"]
                        + f["tdp_w"] / 1000.0 * f["server_power_factor"] * f["avg_power_fraction"] * f["pue"]
                        * f["electricity_usd_per_kwh"], f["rate_usd_per_gpu_hour"])
    A = f["experiments_multiplier"] * per_hour + _TIE_USD_PER_GPU_HOUR
    K = (f["team_usd_per_month"] + f["checkpoints_kept"] * state_bytes / 1e9 * f["storage_usd_per_gb_month"]) \
        / (24.0 * F.DAYS_PER_MONTH)
    unknown = ~(np.isfinite(A) & np.isfinite(K))
    A, K = (np.broadcast_to(x, rows) for x in (np.where(unknown, 1.0, A), np.where(unknown, 0.0, K)))
    hours = np.broadcast_to(ideal * f["other_losses_factor"], rows)
    p = np.where(np.isnan(guess), lo, np.floor(np.nan_to_num(guess, nan=0.0)))
    step = np.full(rows, 2.0)
    known_lo, known_hi = np.zeros(rows, bool), np.zeros(rows, bool)  # the predicate seen false / true

    def costs(n, act):
        sub = {k: f[k] if np.ndim(f[k]) == 0 else f[k][act] for k in _GOODPUT_KEYS}
        good = _goodput_at(n, sub)
        gh = np.where(good > 0, hours[act] / good, np.inf)  # F.billed_gpu_hours (times 1.0)
        money = K[act] / n
        money += A[act]
        return np.multiply(gh, money, out=gh)

    # first the predicate at the guess and the counts on either side (four costs): most searches end there
    q = _clip(p[act], lo[act], hi[act] - 1.0)
    m = q + np.array([-1.0, 0.0, 1.0])[:, None]
    valid = (m >= lo[act]) & (m <= hi[act] - 1.0)
    c = costs(_clip(np.concatenate([m, m[-1:] + 1.0]), lo[act], hi[act]), act)
    rising = ~(c[1:] < c[:-1])
    seen_true, seen_false = valid & rising, valid & ~rising
    hi[act] = np.min(np.where(seen_true, m, hi[act]), axis=0)
    lo[act] = np.max(np.where(seen_false, m + 1.0, lo[act]), axis=0)
    known_hi[act], known_lo[act] = seen_true.any(axis=0), seen_false.any(axis=0)
    p[act] = np.where(known_hi[act] & ~known_lo[act], q - 2.0, np.where(known_lo[act] & ~known_hi[act], q + 2.0,
                                                                        np.floor(0.5 * (lo[act] + hi[act]))))
    act = act[hi[act] > lo[act]]
    while act.size:
        lo_a, hi_a = lo[act], hi[act]
        pa = np.maximum(p[act], lo_a)  # np.clip to [lo, hi - 1]: never the last count, the predicate looks one on
        np.minimum(pa, hi_a - 1.0, out=pa)
        c = costs(np.stack([pa, pa + 1.0]), act)
        rising = ~(c[1] < c[0])  # one more GPU costs no less (NaN: no cheaper): the least count is at or below pa
        falling = ~rising
        np.copyto(hi_a, pa, where=rising)
        np.copyto(lo_a, pa + 1.0, where=falling)
        hi[act], lo[act] = hi_a, lo_a
        seen_hi, seen_lo = known_hi[act] | rising, known_lo[act] | falling
        known_hi[act], known_lo[act] = seen_hi, seen_lo
        s = step[act]
        # away from the side not yet seen, 2, 4, 8, ... counts on; once both are seen, halfway
        nxt = lo_a + hi_a
        nxt *= 0.5
        np.floor(nxt, out=nxt)
        np.copyto(nxt, pa + s, where=falling & ~seen_hi)
        np.copyto(nxt, pa - s, where=rising & ~seen_lo)
        p[act] = nxt
        step[act] = 2.0 * s
        act = act[hi_a > lo_a]
    return lo


def _clip(x, lo, hi):
    """``np.clip(x, lo, hi)`` of a fresh array ``x`` of the result's shape, in place: ``np.minimum(np.maximum(x,
    lo), hi)``, many times faster than ``np.clip`` with array bounds."""
    np.maximum(x, lo, out=x)
    return np.minimum(x, hi, out=x)


def _take(f, idx, shape, keys):
    """``f``'s ``keys`` at the flat indices ``idx`` of ``shape`` (scalars kept as they are)."""
    return {k: f[k] if np.ndim(f[k]) == 0 else np.broadcast_to(f[k], shape).ravel()[idx] for k in keys}


#: Inputs of :func:`_at`.
_AT_KEYS = (*_GOODPUT_KEYS, "other_losses_factor", "tdp_w", "server_power_factor", "avg_power_fraction", "pue",
            "experiments_multiplier", "accelerator_usd_per_gpu_hour", "rate_usd_per_gpu_hour",
            "electricity_usd_per_kwh", "hardware_usd_per_gpu_hour", "project_months", "project_months_max",
            "checkpoints_kept", "storage_usd_per_gb_month", "data_usd", "team_usd_per_month")
#: Inputs of :func:`_least_count` (and :func:`_interior_least`).
_LEAST_KEYS = (*_GOODPUT_KEYS, "other_losses_factor", "accelerator_usd_per_gpu_hour", "hardware_usd_per_gpu_hour",
               "tdp_w", "server_power_factor", "avg_power_fraction", "pue", "electricity_usd_per_kwh",
               "rate_usd_per_gpu_hour", "experiments_multiplier", "team_usd_per_month", "checkpoints_kept",
               "storage_usd_per_gb_month")
#: Inputs of :func:`_cheapest_gpus` (with those of :func:`_solve_gpus`, :func:`_interior_least`,
#: :func:`_least_count` and :func:`_at`).
_SEARCH_KEYS = (*_AT_KEYS, "gpus", "deadline_days", "max_wall_days")


def _into(ufunc, a, b):
    """``ufunc(a, b)``, written over ``a`` (a fresh array of the caller's) where it has the result's shape."""
    if isinstance(a, np.ndarray) and a.ndim and a.shape == np.broadcast_shapes(a.shape, np.shape(b)):
        return ufunc(a, b, out=a)
    return ufunc(a, b)


def _sum(first, *rest):
    """``first + rest[0] + rest[1] + ...``, left to right, on the first sum's own array."""
    total = first + rest[0]
    for x in rest[1:]:
        total = _into(np.add, total, x)
    return total


def _at(n, f, owned, flop, ideal, state_bytes):
    """Time, energy and money of the run on ``n`` accelerators (``f`` as in :func:`_compute`)."""
    good = _goodput_at(n, f)
    gpu_hours = F.billed_gpu_hours(ideal, good, f["other_losses_factor"])
    wall_days = gpu_hours / (24.0 * n)
    energy_kwh = F.energy_kwh(gpu_hours, f["tdp_w"], f["server_power_factor"], f["avg_power_fraction"], f["pue"])
    mult = f["experiments_multiplier"]
    per_gpu_hour = np.where(owned, f["accelerator_usd_per_gpu_hour"], f["rate_usd_per_gpu_hour"])
    # each sum and product below in the order written, on fresh arrays in place (the same roundings)
    compute_usd = ideal * per_gpu_hour
    restart_loss_usd = _into(np.multiply, gpu_hours - ideal, per_gpu_hour)
    # failures, restarts and checkpoints (goodput)
    failure_loss_usd = _into(np.multiply, _into(np.subtract, ideal / good, ideal), per_gpu_hour)
    other_loss_usd = restart_loss_usd - failure_loss_usd  # evaluations, stack restarts, stragglers, ramp-up
    energy_usd = np.where(owned, energy_kwh * f["electricity_usd_per_kwh"], 0.0)
    hardware_usd = np.where(owned, gpu_hours * f["hardware_usd_per_gpu_hour"], 0.0)
    final_run_usd = _sum(compute_usd, restart_loss_usd, energy_usd, hardware_usd)
    experiments_usd = (mult - 1.0) * final_run_usd
    run_months = wall_days / F.DAYS_PER_MONTH
    project_months, months_max = f["project_months"], f["project_months_max"]
    if np.ndim(project_months) == 0 and np.isnan(project_months):  # the run's own months
        months = run_months
    else:
        months = np.where(np.isnan(project_months), run_months, np.maximum(project_months, run_months))
    if not (np.ndim(months_max) == 0 and months_max == np.inf):  # else no cap
        months = np.minimum(months, months_max)
    storage_usd = f["checkpoints_kept"] * state_bytes / 1e9 * f["storage_usd_per_gb_month"] * months
    hidden_usd = _sum(restart_loss_usd, experiments_usd, storage_usd)
    data_usd = f["data_usd"] if np.ndim(f["data_usd"]) == 0 and np.ndim(flop) == 0 else \
        np.broadcast_to(f["data_usd"], np.broadcast(f["data_usd"], flop).shape)
    total = _sum(compute_usd, energy_usd, data_usd, hardware_usd, hidden_usd)  # the others, then the people
    people_usd = f["team_usd_per_month"] * months
    total = _into(np.add, total, people_usd)
    return dict(
        goodput=good, gpu_hours=gpu_hours, wall_days=wall_days, energy_kwh=energy_kwh,
        cost_compute_usd=compute_usd, cost_energy_usd=energy_usd, cost_data_usd=data_usd,
        cost_people_usd=people_usd, cost_hardware_usd=hardware_usd, cost_hidden_usd=hidden_usd,
        final_run_usd=final_run_usd, restart_loss_usd=restart_loss_usd, failure_loss_usd=failure_loss_usd,
        other_loss_usd=other_loss_usd, project_months=months, experiments_usd=experiments_usd,
        storage_usd=storage_usd, total_usd=total,
    )


#: Money outputs of :func:`compute`: unknown (NaN) where the run is infeasible.
MONEY_KEYS = ("cost_compute_usd", "cost_energy_usd", "cost_data_usd", "cost_people_usd", "cost_hardware_usd",
              "cost_hidden_usd", "final_run_usd", "restart_loss_usd", "failure_loss_usd", "other_loss_usd",
              "experiments_usd", "storage_usd", "total_usd", "usd_per_1m_tokens", "usd_per_pflop_day")
#: Why a run is infeasible (``infeasible_reason`` of :func:`compute`).
INFEASIBLE_REASONS = ("", "no_fit", "deadline", "too_long")


#: Activation recomputation by level (``recompute_level`` of :func:`compute`): the first that fits is kept.
RECOMPUTE_LEVELS = ("none", "selective", "full")


def _compute(f, owned):
    """Body of :func:`compute` on float arrays ``f`` keyed by parameter name."""
    flop = F.train_flop(f["flop_per_param_token"], f["active_params"], f["tokens"], f["attention_flop_per_token"])
    ideal = F.ideal_gpu_hours(flop, f["peak_flop_per_s"], f["mfu"])

    state_bytes = f["params"] * f["state_bytes_per_param"]
    unsharded = f["params"] * f["unsharded_bytes_per_param"]
    memory_bytes = f["memory_gb"] * 1e9
    act_none = f["activation_bytes"]
    act_sel = np.where(np.isnan(f["activation_bytes_selective"]), act_none, f["activation_bytes_selective"])
    act_full = np.where(np.isnan(f["activation_bytes_full"]), act_sel, f["activation_bytes_full"])
    tp, pp = f["tensor_parallel"], f["pipeline_parallel"]
    # the memory floor: the fewest GPUs any layout fits, with the least activations recomputation keeps
    floor = F.min_gpus_for_memory(state_bytes, act_full, memory_bytes, tp, unsharded, pp)

    # where the activations cannot fit at all, the solve still honours the training-state floor (infeasible)
    state_floor = np.maximum(np.ceil(state_bytes / memory_bytes), 1.0)
    solve_floor = np.where(np.isinf(floor), state_floor, floor)
    given = ~np.isnan(f["gpus"])
    # a deadline beyond the longest run the model allows asks for that run (a looser deadline keeps its money);
    # no deadline and no count (a planner's run): the cheapest cluster that ends within it
    deadline = f["deadline_days"]
    f = dict(f, deadline_days=np.fmin(deadline, f["max_wall_days"]))
    n_min = _solve_gpus(ideal * f["other_losses_factor"], solve_floor, f)
    needed = _cheapest_gpus(np.asarray(n_min, float), solve_floor, f, owned, flop, ideal, state_bytes)
    out = _at(needed, f, owned, flop, ideal, state_bytes)
    missed = out["wall_days"] > np.fmin(deadline, np.inf) * (1.0 + 1e-9)
    impossible = (~given) & ((needed > f["max_gpus"]) | (out["goodput"] <= 0.0) | missed)

    below = given & (f["gpus"] < floor)  # a typed count the state and activations do not fit on
    no_fit = np.isinf(floor) | (floor > f["max_gpus"]) | below
    too_long = (out["wall_days"] > f["max_wall_days"]) | (out["goodput"] <= 0.0)
    reason = np.where(no_fit, 1, np.where(impossible, 2, np.where(too_long, 3, 0)))
    infeasible = reason > 0
    largest = np.fmax(f["max_gpus"], solve_floor)
    alt_gpus = alt_days = np.full(np.shape(reason), np.nan)
    fits_somewhere = ~(np.isinf(floor) | (floor > f["max_gpus"]))
    unfit = infeasible & fits_somewhere
    wanted = np.flatnonzero(np.broadcast_to(unfit, np.shape(reason)).ravel()) if _any(unfit) else ()
    if len(wanted):
        # the nearest feasible alternative: for a deadline no cluster meets, the largest cluster at its shortest
        # time; otherwise the fewest GPUs that fit and end within the longest run the model allows (solved only
        # where a run is infeasible)
        shape = np.shape(reason)
        g = _take(f, wanted, shape, (*_GOODPUT_KEYS, "gpus", "deadline_days", "max_wall_days"))
        hours, low, big = (np.broadcast_to(v, shape).ravel()[wanted] for v in
                           (ideal * f["other_losses_factor"], solve_floor, largest))
        within = _solve_gpus(hours, low, dict(g, gpus=np.nan, deadline_days=g["max_wall_days"]))
        alt_n = np.where(reason.ravel()[wanted] == 2, big, within)
        alt_good = _goodput_at(alt_n, g)
        alt_d = hours / alt_good / (24.0 * alt_n)
        # the estimate of the alternative must be feasible by the same comparison (a count at the limit by
        # rounding takes one GPU more)
        over = (alt_d > g["max_wall_days"]) & (reason.ravel()[wanted] != 2)
        if _any(over):
            alt_n = np.where(over, alt_n + 1.0, alt_n)
            alt_good = _goodput_at(alt_n, g)
            alt_d = hours / alt_good / (24.0 * alt_n)
        ok = np.isfinite(alt_n) & (alt_n <= big) & (alt_d <= g["max_wall_days"]) & (alt_good > 0.0)
        alt_gpus, alt_days = np.full(reason.size, np.nan), np.full(reason.size, np.nan)
        alt_gpus[wanted], alt_days[wanted] = np.where(ok, alt_n, np.nan), np.where(ok, alt_d, np.nan)
        alt_gpus, alt_days = alt_gpus.reshape(shape), alt_days.reshape(shape)
    # a deadline no cluster meets: the figures are those of the largest cluster, never the solve's bound
    n = np.where(impossible & np.isfinite(f["max_gpus"]) & (needed > f["max_gpus"]), largest, needed)
    changed = n != needed
    moved = np.flatnonzero(np.broadcast_to(changed, np.shape(n)).ravel()) if _any(changed) else ()
    if len(moved):  # the largest cluster where a deadline needs more: recomputed there only
        shape = np.shape(n)
        g = _take(f, moved, shape, _AT_KEYS)
        part = _at(np.broadcast_to(n, shape).ravel()[moved], g,
                   owned if np.ndim(owned) == 0 else np.broadcast_to(owned, shape).ravel()[moved],
                   *(np.broadcast_to(x, shape).ravel()[moved] for x in (flop, ideal, state_bytes)))
        for k, v in part.items():
            arr = out[k]
            if not (isinstance(arr, np.ndarray) and arr.shape == shape and arr.dtype == float
                    and arr.flags.writeable and arr.flags.c_contiguous):  # a broadcast or shared value: a copy
                arr = out[k] = np.array(np.broadcast_to(arr, shape), dtype=float)
            arr.reshape(-1)[moved] = v
    gpu_hours, energy_kwh = out["gpu_hours"], out.pop("energy_kwh")
    # recomputation at this count: none, selective, full, the first whose activations fit beside the state
    state_dev, _ = F.memory_bytes_per_gpu(n, state_bytes, 0.0, tp, unsharded, pp)
    t_eff = np.minimum(n, tp)
    level = np.where(state_dev + act_none / t_eff <= memory_bytes, 0,
                     np.where(state_dev + act_sel / t_eff <= memory_bytes, 1, 2))
    level = np.where(np.isnan(memory_bytes), 1, level)  # memory unknown: the standard, selective
    act_used = np.where(level == 0, act_none, np.where(level == 1, act_sel, act_full))
    energy_it_kwh = energy_kwh / f["pue"]
    co2_tonnes = energy_kwh * f["grid_gco2_per_kwh"] / 1e6
    mult = f["experiments_multiplier"]
    out.update(
        usd_per_1m_tokens=out["total_usd"] / (f["tokens"] / 1e6),
        usd_per_pflop_day=out["final_run_usd"] / (flop / (1e15 * 86400.0)),
    )
    anything_infeasible = _any(infeasible)
    # the infeasible rows by flat index: NaN written there in _at's own arrays (never an input), np.where elsewhere
    bad = np.flatnonzero(infeasible) if anything_infeasible and np.ndim(infeasible) else None
    for k in MONEY_KEYS:  # a run that cannot happen costs nothing known (all feasible: the values as they are)
        v = out[k]
        if anything_infeasible or np.shape(v) != np.shape(infeasible):
            if (bad is not None and isinstance(v, np.ndarray) and v.shape == np.shape(infeasible)
                    and v.base is None and v.flags.writeable and v.flags.owndata and v.flags.c_contiguous):
                v.reshape(-1)[bad] = np.nan
            else:
                out[k] = np.where(infeasible, np.nan, v)

    return dict(
        train_flop=flop,
        ideal_gpu_hours=ideal,
        gpus=n,
        gpus_needed=needed,
        deadline_impossible=impossible,
        infeasible=infeasible,
        infeasible_reason=reason,
        alternative_gpus=alt_gpus,
        alternative_wall_days=alt_days,
        min_gpus_memory=floor,
        recompute_level=level,
        state_gb_per_gpu=state_dev / 1e9,
        activation_gb_per_gpu=act_used / t_eff / 1e9,
        energy_gpu_mwh=gpu_hours * f["chip_power_w"] / 1e6,
        energy_it_mwh=energy_it_kwh / 1000.0,
        energy_mwh=energy_kwh / 1000.0,
        co2_tonnes=co2_tonnes,
        energy_project_mwh=energy_kwh * mult / 1000.0,
        co2_project_tonnes=co2_tonnes * mult,
        **out,
        tokens_per_gpu_hour=f["tokens"] / gpu_hours,
        effective_utilization=flop / (gpu_hours * 3600.0 * f["peak_flop_per_s"]),
    )
