"""A long sweep is computed in blocks of rows (issue 38, speed): the blocks change no value, shape or type.

Every row of :func:`explorer.model.compute` is computed on its own, so one call over all rows and the same rows
in blocks must agree exactly. The blocks are made small here (``_CHUNK_ROWS``) so that a few thousand rows,
with typed counts, deadlines, planner rows (neither) and infeasible ones, span several blocks and a last short one.
"""

from __future__ import annotations

import numpy as np
import pytest

from explorer.model import compute, vectorized


def _inputs(n: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    params = 10 ** rng.uniform(8, 12.5, n)
    kind = rng.integers(0, 3, n)  # 0 a typed count, 1 a deadline, 2 neither (the cheapest cluster)
    return dict(
        params=params, active_params=params, tokens=10 ** rng.uniform(10, 13.5, n),
        peak_flop_per_s=rng.choice([312e12, 989.5e12], n), mfu=rng.uniform(0.15, 0.55, n),
        gpus=np.where(kind == 0, np.round(10 ** rng.uniform(0, 5, n)), np.nan),
        deadline_days=np.where(kind == 1, 10 ** rng.uniform(0, 3, n), np.nan),
        max_gpus=1e5, failure_rate_per_gpu_hour=rng.uniform(0, 5e-5, n),
        recovery_above_gpus=np.where(rng.random(n) < 0.5, np.nan, 16384.0),
        memory_gb=rng.choice([32.0, 80.0], n), tdp_w=700.0, chip_power_w=700.0,
        rate_usd_per_gpu_hour=rng.uniform(1, 10, n), owned=rng.random(n) < 0.25,
        accelerator_usd_per_gpu_hour=0.8, hardware_usd_per_gpu_hour=0.4, electricity_usd_per_kwh=0.1,
        team_usd_per_month=rng.uniform(0, 1e6, n), project_months=np.where(rng.random(n) < 0.3, 6.0, np.nan),
        experiments_multiplier=rng.uniform(1, 4, n),
    )


@pytest.mark.parametrize("seed", [0, 1])
def test_blocks_change_nothing(monkeypatch, seed):
    inputs = _inputs(2_500, seed)
    with np.errstate(all="ignore"):
        whole = compute(**inputs)
        monkeypatch.setattr(vectorized, "_CHUNK_ROWS", 1_000)
        blocks = compute(**inputs)
    assert set(blocks) == set(whole)
    assert np.any(whole["infeasible"]) and np.any(np.isnan(inputs["gpus"]))
    for key, value in whole.items():
        got = blocks[key]
        assert np.shape(got) == np.shape(value) and np.asarray(got).dtype == np.asarray(value).dtype, key
        np.testing.assert_array_equal(got, value, err_msg=key)  # NaN equals NaN


def test_inputs_left_as_they_were():
    """compute() writes NaN over the money of infeasible runs in its own arrays, never in an input (data_usd is
    passed through as cost_data_usd)."""
    inputs = _inputs(2_500, 2)
    inputs["data_usd"] = np.random.default_rng(3).uniform(0, 1e6, 2_500)
    before = {k: np.array(v, copy=True) for k, v in inputs.items()}
    with np.errstate(all="ignore"):
        out = compute(**inputs)
    assert np.any(out["infeasible"]) and np.isnan(out["cost_data_usd"][out["infeasible"]]).all()
    for key, value in before.items():
        np.testing.assert_array_equal(inputs[key], value, err_msg=key)


def test_scalar_inputs_beside_a_column_of_counts(monkeypatch):
    """Every input but the count one value, a first block feasible everywhere and infeasible runs in the others: the
    figures from scalar inputs alone (the training compute) stay one value, the rest are the columns of one call."""
    n = 2_500
    gpus = np.round(10 ** np.random.default_rng(5).uniform(0, 5, n))
    gpus[:1_000] = 1_000.0  # the first block feasible everywhere
    gpus[1_500] = np.nan  # a count to search for: the sweep goes in blocks
    inputs = dict(params=7e10, active_params=7e10, tokens=2e12, gpus=gpus, peak_flop_per_s=989e12, mfu=0.4,
                  memory_gb=80.0, tdp_w=700.0, chip_power_w=700.0, rate_usd_per_gpu_hour=2.0, data_usd=5.0)
    with np.errstate(all="ignore"):
        whole = compute(**inputs)
        monkeypatch.setattr(vectorized, "_CHUNK_ROWS", 1_000)
        blocks = compute(**inputs)
    assert np.ndim(whole["train_flop"]) == 0 and np.shape(whole["cost_data_usd"]) == (n,)
    assert np.any(whole["infeasible"][1_000:])
    assert not np.any(whole["infeasible"][:1_000])
    for key, value in whole.items():
        got = blocks[key]
        assert np.shape(got) == np.shape(value) and np.asarray(got).dtype == np.asarray(value).dtype, key
        np.testing.assert_array_equal(got, value, err_msg=key)
