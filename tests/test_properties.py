"""Properties of the cost model over the whole valid domain (hypothesis).

Scenarios are drawn from catalog accelerators that have an on-demand price and
a TDP, precisions each accelerator supports, every pricing mode (owned only
where a purchase price and the region's electricity price are known), regions
with a known grid carbon intensity, and params/tokens log-uniform over the
Scenario field ranges.

GPU counts are drawn up to the model's largest cluster (``max_gpus``): far
above it, the default failure rate stops all progress (goodput 0), which the
model reports as infinite GPU-hours with a warning; that case is checked on
its own.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer import COST_DIMENSIONS, Scenario, catalog, estimate
from explorer import prices
from explorer.catalog import default
from explorer.model import compute
from explorer.scenario import PRICING_MODES, TRAINING_KINDS, field_spec

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

PRICED = [a.id for a in catalog.accelerators().values() if prices.market_prices(a.id, "on_demand") and a.tdp_w]
OWNABLE = [i for i in PRICED if catalog.accelerator(i).purchase_usd]
REGIONS = [r.id for r in catalog.regions().values() if r.grid_gco2_per_kwh is not None]
POWERED = [r for r in REGIONS if catalog.region(r).electricity_usd_per_kwh is not None]
MAX_GPUS = int(default("max_gpus"))


def log_uniform(lo, hi):
    return st.floats(math.log10(lo), math.log10(hi)).map(lambda x: min(hi, max(lo, 10.0**x)))


PARAMS = log_uniform(field_spec("params")["min"], field_spec("params")["max"])
TOKENS = log_uniform(field_spec("tokens")["min"], field_spec("tokens")["max"])


@st.composite
def scenarios(draw, mode=None):
    """A valid scenario with every catalog value it needs known.

    mode: None (either), "gpus" or "deadline".
    """
    pricing = draw(st.sampled_from(PRICING_MODES))
    gpu = draw(st.sampled_from(OWNABLE if pricing == "owned" else PRICED))
    acc = catalog.accelerator(gpu)
    region = draw(st.sampled_from(POWERED if pricing == "owned" else REGIONS))
    params = draw(PARAMS)
    kw = dict(
        params=params,
        tokens=draw(TOKENS),
        gpu=gpu,
        precision=draw(st.sampled_from(acc.precisions)),
        pricing=pricing,
        region=region,
        mfu=draw(st.none() | st.floats(0.05, 0.8)),
        training_kind=draw(st.sampled_from(TRAINING_KINDS)),
        lora_trainable_fraction=draw(st.floats(1e-4, 1.0)),
        experiments_multiplier=draw(st.sampled_from([1.0, 1.5, 3.0])),
        checkpoints_kept=draw(st.sampled_from([0.0, 3.0])),
        team_headcount=draw(st.sampled_from([0.0, 20.0])),
        team_loaded_usd_per_year=250000.0,
        data_usd_per_1m_tokens=draw(st.sampled_from([0.0, 0.01])),
        project_months=draw(st.none() | st.floats(0.5, 24.0)),
        currency=draw(st.sampled_from(["USD", "CNY"])),
    )
    if draw(st.booleans()):
        kw["architecture"] = "moe"
        if draw(st.booleans()):
            kw["active_params"] = max(1e5, params * draw(log_uniform(0.01, 1.0)))
        else:
            experts = draw(st.sampled_from([8, 16, 64, 256]))
            kw.update(experts=experts, top_k=draw(st.integers(1, 8)))
    if draw(st.booleans()):
        kw.update(n_layers=draw(st.integers(1, 128)), d_model=draw(st.sampled_from([512, 4096, 16384])),
                  seq_len=draw(st.sampled_from([2048, 8192, 131072])))
    use_deadline = draw(st.booleans()) if mode is None else mode == "deadline"
    if use_deadline:
        kw.update(gpus=None, deadline_days=draw(log_uniform(0.1, 3650.0)))
    else:
        kw["gpus"] = int(draw(log_uniform(1, MAX_GPUS)))
    return Scenario(**kw)


def _numbers(e):
    """Every numeric field of an Estimate, with its name."""
    out = {}
    for f in dataclasses.fields(e):
        v = getattr(e, f.name)
        if isinstance(v, bool) or f.name in ("scenario", "warnings", "assumptions"):
            continue
        if isinstance(v, (int, float)):
            out[f.name] = v
        elif f.name in ("cost_usd", "details_usd"):
            out.update({f"{f.name}.{k}": x for k, x in v.items()})
    return out


def _months_follow_run(s):
    # with a deadline the GPU count is solved, and people are paid for at least the run: a bigger job that needs
    # more GPUs for memory can finish sooner than a smaller one on the few GPUs it needs (project_months set or not)
    return s.gpus is None


def _total_without_time_costs(e):
    """Total minus the parts priced per wall-clock month (people, storage)."""
    return e.cost_usd["total"] - e.cost_usd["people"] - e.details_usd["storage"]


def _check_not_less(a, b, what):
    assert b >= a * (1 - 1e-12) - 1e-9, (what, a, b)


def _check_grows(s1, s2):
    e1, e2 = estimate(s1), estimate(s2)
    _check_not_less(e1.gpu_hours, e2.gpu_hours, "gpu_hours")
    if e2.goodput == 0.0:  # infinite GPU-hours: costs are not comparable
        return
    if s1.gpus is not None:
        _check_not_less(e1.wall_days, e2.wall_days, "wall_days")
    if _months_follow_run(s1):
        # With a deadline, the solved count is a whole number: a bigger job can
        # finish a little sooner on one more GPU, so month-priced costs may drop.
        _check_not_less(_total_without_time_costs(e1), _total_without_time_costs(e2), "total - people - storage")
    else:
        _check_not_less(e1.cost_usd["total"], e2.cost_usd["total"], "total")


@SETTINGS
@given(scenarios(), log_uniform(1.0, 100.0))
def test_cost_and_time_grow_with_params(s, k):
    # one recovery technique: under "auto" a bigger model's deadline can need a cluster past the in-memory threshold
    # (16,384 GPUs), whose better goodput then needs fewer GPU-hours, a switch of technique, not a growth law
    s = s.replace(recovery="storage")
    bigger = min(s.params * k, field_spec("params")["max"])
    _check_grows(s, s.replace(params=bigger))


@SETTINGS
@given(scenarios(), log_uniform(1.0, 100.0))
def test_cost_and_time_grow_with_tokens(s, k):
    more = min(s.tokens * k, field_spec("tokens")["max"])
    _check_grows(s, s.replace(tokens=more))


@SETTINGS
@given(scenarios(), st.floats(0.05, 0.9), st.floats(0.05, 0.9))
def test_more_mfu_means_fewer_gpu_hours(s, m1, m2):
    # one recovery technique: under "auto" a lower MFU can need a deadline cluster past the in-memory threshold
    # (16,384 GPUs), whose better goodput needs fewer GPU-hours (as in test_cost_and_time_grow_with_params)
    s = s.replace(recovery="storage")
    lo, hi = sorted((m1, m2))
    e_lo, e_hi = estimate(s.replace(mfu=lo)), estimate(s.replace(mfu=hi))
    assert e_hi.gpu_hours <= e_lo.gpu_hours * (1 + 1e-12)
    assert e_hi.ideal_gpu_hours <= e_lo.ideal_gpu_hours * (1 + 1e-12)
    if s.gpus is not None:
        assert math.isclose(e_hi.ideal_gpu_hours, e_lo.ideal_gpu_hours * lo / hi, rel_tol=1e-9)


@SETTINGS
@given(scenarios())
def test_estimate_numbers_are_finite_and_non_negative(s):
    e = estimate(s)
    if e.goodput == 0.0:
        # No progress at all (only when a deadline asks for an enormous cluster): said in a warning.
        assert e.deadline_impossible and any("progress" in w for w in e.warnings), e.warnings
        return
    for name, v in _numbers(e).items():
        if name == "min_gpus_memory" and math.isinf(v):  # activations cannot fit at all: said in a warning
            assert any(w.startswith("Activations do not fit") for w in e.warnings), e.warnings
            continue
        assert math.isfinite(v), (name, v)
        assert v >= 0, (name, v)
    assert 0 < e.goodput <= 1
    assert e.gpu_hours >= e.ideal_gpu_hours * (1 - 1e-12)
    assert e.effective_utilization <= e.mfu * (1 + 1e-12)
    assert math.isclose(e.cost_usd["total"], math.fsum(e.cost_usd[d] for d in COST_DIMENSIONS), rel_tol=1e-9)
    if s.pricing != "owned":
        assert e.cost_usd["energy"] == 0 and e.cost_usd["hardware"] == 0
    assert e.energy_mwh > 0 and e.co2_tonnes >= 0
    if e.gpus < e.min_gpus_memory:
        assert any("memory" in w for w in e.warnings)


@SETTINGS
@given(scenarios(mode="gpus"), log_uniform(1.0, 2.0 * MAX_GPUS))
def test_deadline_is_met_or_flagged(s, target_gpus):
    """A deadline drawn so that it asks for ~target_gpus at perfect goodput
    (log-uniform up to twice the largest cluster): the solved count meets it,
    or the estimate says it is impossible."""
    ideal = estimate(s).ideal_gpu_hours
    days = min(3650.0, max(1e-6, ideal / (24.0 * target_gpus)))
    e = estimate(s.replace(gpus=None, deadline_days=days))
    assert e.deadline_impossible or e.wall_days <= days * (1 + 1e-3), (
        days, e.gpus, e.wall_days, e.goodput, e.warnings,
    )
    if not e.deadline_impossible:
        assert e.gpus <= MAX_GPUS


@SETTINGS
@given(scenarios())
def test_json_round_trip_is_exact(s):
    text = s.to_json()
    back = Scenario.from_json(text)
    assert back == s
    assert back.to_json() == text


# ---------------------------------------------------------------- vectorized == scalar
_FLOAT_INPUTS = {
    "tokens": log_uniform(1e6, 1e15),
    "attention_flop_per_token": st.sampled_from([0.0, 12.0 * 32 * 4096 * 4096]),
    "peak_flop_per_s": log_uniform(1e13, 1e16),
    "mfu": st.floats(0.05, 0.9),
    "max_gpus": st.sampled_from([1e3, 1e5, np.inf]),
    "failure_rate_per_gpu_hour": st.sampled_from([0.0, 2e-5, 1e-4]),
    "checkpoint_write_hours": st.sampled_from([0.0, 0.5 / 60, 0.2]),
    "checkpoint_interval_hours": st.sampled_from([np.nan, 0.5, 5.0]),
    "restart_hours": st.sampled_from([0.0, 1 / 6, 1.0]),
    "state_bytes_per_param": st.sampled_from([2.14, 15.0, 16.0]),
    "memory_gb": st.sampled_from([16.0, 80.0, 192.0]),
    "tdp_w": st.floats(150.0, 1200.0),
    "server_power_factor": st.floats(1.0, 2.0),
    "avg_power_fraction": st.floats(0.3, 1.0),
    "pue": st.floats(1.0, 2.0),
    "grid_gco2_per_kwh": st.floats(0.0, 800.0),
    "rate_usd_per_gpu_hour": st.floats(0.0, 10.0),
    "accelerator_usd_per_gpu_hour": st.floats(0.0, 3.0),
    "hardware_usd_per_gpu_hour": st.floats(0.0, 3.0),
    "electricity_usd_per_kwh": st.floats(0.0, 0.3),
    "data_usd": st.floats(0.0, 1e7),
    "team_usd_per_month": st.floats(0.0, 1e6),
    "project_months": st.sampled_from([np.nan, 1.0, 12.0]),
    "checkpoints_kept": st.sampled_from([0.0, 5.0]),
    "storage_usd_per_gb_month": st.floats(0.0, 0.1),
    "experiments_multiplier": st.floats(1.0, 4.0),
}


@st.composite
def compute_rows(draw):
    row = {k: draw(v) for k, v in _FLOAT_INPUTS.items()}
    params = draw(log_uniform(1e6, 1e14))
    row["params"] = params
    row["active_params"] = params * draw(st.sampled_from([1.0, 0.1, 0.0552]))
    row["flop_per_param_token"] = draw(st.sampled_from([6.0, 4.06]))
    if draw(st.booleans()):
        row["gpus"], row["deadline_days"] = float(int(draw(log_uniform(1, 1e5)))), np.nan
    else:
        row["gpus"], row["deadline_days"] = np.nan, draw(log_uniform(0.1, 3650.0))
    row["owned"] = draw(st.booleans())
    return row


@settings(max_examples=100, deadline=None)
@given(st.lists(compute_rows(), min_size=1, max_size=25))
def test_vectorized_compute_equals_scalar_results(rows):
    with np.errstate(all="ignore"):
        arrays = compute(**{k: np.array([r[k] for r in rows]) for k in rows[0]})
        scalars = [compute(**r) for r in rows]
    assert set(arrays) == set(scalars[0])
    for key, arr in arrays.items():
        assert arr.shape == (len(rows),), key
        expected = np.array([np.asarray(s[key]).item() for s in scalars])
        np.testing.assert_array_equal(arr, expected, err_msg=key)
