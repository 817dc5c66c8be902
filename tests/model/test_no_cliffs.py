"""No cliffs (issue 25 item 3): one more GPU moves no figure by more than about 1% anywhere from 1 to 100,000
GPUs, and a looser deadline never costs more (the solver returns the cheapest cluster that meets it).

Each law is checked over every GPU count (or a dense grid of deadlines) of a scenario in one vectorized
``compute`` call, for scenarios drawn by hypothesis over the whole valid domain and every recovery mode.
Under the former rule (recovery ``auto``: storage checkpoints up to 16,384 GPUs, in-memory above) goodput
jumped from 0.880 to 0.987 between 16,384 and 16,385 GPUs: one more GPU saved 11% of the GPU-hours, and a
95-day deadline for Llama 3.1 405B cost less than a 100-day one.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from explorer import Scenario, estimate
from explorer.model import compute
from explorer.model.resolve import resolve
from explorer.scenario import RECOVERY_MODES
from strategies import MAX_GPUS, examples, log_uniform, scenarios

SETTINGS = settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
#: One more GPU moves GPU-hours and the machine cost by at most this fraction (the law's "about 1%").
STEP = 0.01
#: Llama 3.1 405B: 405B parameters, 15.6T tokens on H100 (Llama Team 2024).
LLAMA_405B = Scenario(params=405e9, tokens=15.6e12, gpu="h100-sxm", precision="bf16")


def _over_counts(s: Scenario, counts: np.ndarray) -> dict:
    """``compute`` of ``s`` at every GPU count in ``counts`` (one call)."""
    inputs = dict(resolve(s.replace(gpus=1, deadline_days=None)).inputs)
    inputs.update(gpus=counts.astype(float), deadline_days=np.nan)
    return {k: np.asarray(v, float) for k, v in compute(**inputs).items()}


def _over_deadlines(s: Scenario, days: np.ndarray) -> dict:
    """``compute`` of ``s`` at every deadline in ``days`` [days] (one call)."""
    inputs = dict(resolve(s.replace(gpus=None, deadline_days=1.0)).inputs)
    inputs.update(gpus=np.nan, deadline_days=days)
    return {k: np.asarray(v, float) for k, v in compute(**inputs).items()}


def _steps_ok(r: dict, counts: np.ndarray) -> list[str]:
    """Where one more GPU moves a figure by more than the law allows (empty when none)."""
    time_priced = r["cost_people_usd"] + r["storage_usd"]  # priced per month of the run (when it outlasts the project)
    machine = r["total_usd"] - time_priced
    n = counts[:-1]
    ok = np.isfinite(r["gpu_hours"]) & np.isfinite(machine) & (r["goodput"] > 0)
    both = ok[:-1] & ok[1:]
    bad = []

    def rel(x):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.abs(x[1:] / x[:-1] - 1.0)

    for name, x in (("gpu_hours", r["gpu_hours"]), ("machine cost", machine)):
        worst = np.where(both & (x[:-1] > 0), rel(x), 0.0)
        if np.nanmax(worst) > STEP:
            i = int(np.nanargmax(worst))
            bad.append(f"{name}: {x[i]:.6g} at {n[i]:.0f} GPUs -> {x[i + 1]:.6g} at {n[i] + 1:.0f} ({worst[i]:.2%})")
    # days fall as 1/n on a perfect cluster: beyond that, one GPU moves them by at most STEP
    days = r["wall_days"]
    ratio = np.where(both, days[1:] * (n + 1) / (days[:-1] * n), 1.0)
    if np.nanmax(np.abs(ratio - 1.0)) > STEP:
        i = int(np.nanargmax(np.abs(ratio - 1.0)))
        bad.append(f"wall_days x n: {days[i] * n[i]:.6g} -> {days[i + 1] * (n[i] + 1):.6g} at {n[i]:.0f} GPUs")
    # what is paid by the month follows the days: never down by more than the days, never up by more than STEP
    # (up at all only where a default adaptation team is capped at a share of the other costs, issue 25 item 2:
    # then it follows the machine cost, which one more GPU moves by less than STEP)
    tp = np.where(both & (time_priced[:-1] > 0), time_priced[1:] / np.where(time_priced[:-1] > 0, time_priced[:-1], 1),
                  1.0)
    low = n / (n + 1) * (1.0 - STEP)
    if np.any(tp > 1.0 + STEP) or np.any(tp < low):
        i = int(np.argmax((tp > 1.0 + STEP) | (tp < low)))
        bad.append(f"people+storage: {time_priced[i]:.6g} -> {time_priced[i + 1]:.6g} at {n[i]:.0f} GPUs")
    return bad


def test_llama_405b_has_no_cliff_at_16384_gpus():
    """The cliff of the former rule: 16,384 -> 16,385 H100 for 405B / 15.6T (goodput 0.880 -> 0.987)."""
    e1, e2 = estimate(LLAMA_405B.replace(gpus=16_384)), estimate(LLAMA_405B.replace(gpus=16_385))
    assert e2.gpu_hours == pytest.approx(e1.gpu_hours, rel=STEP)
    assert e2.cost_usd["total"] == pytest.approx(e1.cost_usd["total"], rel=STEP)
    assert e2.goodput == pytest.approx(e1.goodput, abs=0.001)


def test_llama_405b_sweep_of_every_gpu_count():
    counts = np.arange(1, MAX_GPUS + 1)
    assert not _steps_ok(_over_counts(LLAMA_405B, counts), counts)


@SETTINGS
@given(scenarios(mode="gpus"), st.sampled_from(RECOVERY_MODES),
       st.none() | log_uniform(1e-6, 1e-4), st.sampled_from([None, 0.5, 5.0]))
def test_one_more_gpu_moves_no_figure_by_more_than_one_percent(s, recovery, failures, write_minutes):
    """Every count from 1 to 100,000 GPUs, every recovery mode, failure rates up to 5x the spot-inclusive
    default, checkpoint writes from none to 5 minutes."""
    s = s.replace(recovery=recovery, failure_rate_per_gpu_hour=failures, checkpoint_write_minutes=write_minutes)
    counts = np.arange(1, MAX_GPUS + 1)
    bad = _steps_ok(_over_counts(s, counts), counts)
    assert not bad, bad


def test_looser_deadline_for_llama_405b_costs_no_more():
    """95 against 100 days for 405B / 15.6T on H100 (issue 25: $107.7M against $120.5M under the cliff)."""
    e95 = estimate(LLAMA_405B.replace(gpus=None, deadline_days=95.0))
    e100 = estimate(LLAMA_405B.replace(gpus=None, deadline_days=100.0))
    assert e100.cost_usd["total"] <= e95.cost_usd["total"] * (1 + 1e-12)
    assert e100.gpus <= e95.gpus and e100.wall_days > 95.0  # it uses its slack: fewer GPUs for longer


@SETTINGS
@given(scenarios(mode="deadline"), st.sampled_from(RECOVERY_MODES))
@example(s=LLAMA_405B.replace(gpus=None, deadline_days=95.0), recovery="auto")
def test_looser_deadline_never_costs_more(s, recovery):
    """Over 300 deadlines from 0.1 day to 10 years: where a deadline is met, every looser one is met too, at
    no higher total cost, and the solved cluster meets it."""
    s = s.replace(recovery=recovery)
    days = np.geomspace(0.1, 3650.0, 300)
    r = _over_deadlines(s, days)
    met = ~r["deadline_impossible"].astype(bool)
    first = int(np.argmax(met)) if met.any() else len(days)
    assert met[first:].all(), days[first:][~met[first:]][:3]
    assert (r["wall_days"][met] <= days[met] * (1 + 1e-9)).all()
    total = r["total_usd"][met]
    if np.isfinite(total).all():
        rises = np.flatnonzero(total[1:] > total[:-1] * (1 + 1e-9) + 1e-6)
        assert not rises.size, [(days[met][i], total[i], days[met][i + 1], total[i + 1]) for i in rises[:3]]


def test_the_llama_preset_against_meta_gpu_hours():
    """Where the Llama 3.1 405B preset lands against Meta's 30.84M GPU-hours (model card): 35.7M (1.16x) with
    the cheaper recovery at every size; 40.1M (1.30x) with storage checkpoints, as under the former rule at
    16,384 GPUs. The rest of the gap is the default MFU (0.38 against the run's 0.41) and other losses."""
    from explorer.presets import presets

    s = presets()["llama31_405b"].scenario
    reported = 30.84e6
    auto, storage = estimate(s).gpu_hours / reported, estimate(s.replace(recovery="storage")).gpu_hours / reported
    assert 0.67 <= auto <= 1.5  # the replay band of the README's table
    assert abs(math.log(auto)) < abs(math.log(storage))  # the cheaper recovery lands nearer Meta's hours
    assert not math.isnan(estimate(s).cost_usd["total"])
