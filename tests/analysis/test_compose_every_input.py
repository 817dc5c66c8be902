"""Every input of compute reaches it through the analysis's lever split (levers.lever_atoms -> levers.compose_inputs).

Attribution, sensitivity and the Monte Carlo price scenarios through ``compute(**compose_inputs(lever_atoms(s)))``; the
estimate prices them through ``compute(**resolve(s).inputs)``. Until this test, ``compose_inputs`` gave compute's
defaults for two inputs instead of the scenario's: ``max_wall_days`` (inf instead of the 5 years of
``max_run_years``: a run too long to start got money in attribution and the Monte Carlo while its estimate had
none) and ``chip_power_w`` (NaN instead of the accelerator's TDP: no GPU-only energy).

The check enumerates :data:`~explorer.model.inputs.COMPUTE_INPUTS`: for each input, the value ``compose_inputs`` gives
equals the one ``resolve`` gives on every scenario of a set chosen so that each input takes at least two values
across it (a constant typed into ``compose_inputs`` cannot pass), except the inputs that no field of a scenario moves,
named below with the default they come from. Then every output of the two paths agrees, over the whole input
space (hypothesis).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings

from explorer import Scenario, estimate
from explorer.analysis.levers import lever_atoms, compose_inputs
from explorer.catalog import default
from explorer.model import compute
from explorer.model.inputs import COMPUTE_INPUTS, INPUT_NAMES
from explorer.model.resolve import resolve
from explorer.presets import presets
from strategies import examples, scenarios

#: Inputs no field of a Scenario moves: each is a named default of defaults.csv, as resolve reads it.
SET_BY_NO_FIELD = {
    "max_gpus": lambda: default("max_gpus"),
    "max_wall_days": lambda: default("max_run_years") * 8766.0 / 24.0,  # years x 365.25 days
}

#: Scenarios that move every other input: the presets, and one or more per input the presets leave alone.
SCENARIOS = [p.scenario for p in presets().values()] + [
    Scenario(pricing="owned"), Scenario(pricing="owned", purchase_usd_per_gpu=20_000.0, hosting_usd_per_gpu_hour=0.5),
    Scenario(pricing="spot", gpu="a100-80gb"), Scenario(rate_usd_per_gpu_hour=1.5, gpu="b200", precision="fp8"),
    Scenario(architecture="moe", experts=8, top_k=2, training_kind="lora", lora_trainable_fraction=0.01),
    Scenario(gpus=None, deadline_days=30.0, recovery="in_memory"), Scenario(recovery="storage", gpus=4096),
    Scenario(tensor_parallel=4, pipeline_parallel=4, zero_stage=1, recompute="full"),  # the layout set (issue 38)
    Scenario(checkpoint_interval_hours=2.0, checkpoint_write_minutes=3.0, restart_minutes=20.0,
             other_losses_factor=1.3, failure_rate_per_gpu_hour=5e-5),
    Scenario(n_layers=80, d_model=8192, seq_len=8192, region="cn-shanghai", checkpoints_kept=3.0,
             storage_usd_per_gb_month=0.05, team_headcount=12.0, project_months=9.0),
    Scenario(gpu="tpu-v4", precision="bf16"),  # a measured system power: factor and average fraction 1
    Scenario(pue=1.4, region="de"),
    # far too long to start: infeasible ("too_long"); 512 GPUs hold it (one GPU is now "no_fit" first, issue 38)
    Scenario(params=1e12, tokens=1e13, gpus=512),
]


def _same(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype == bool or b.dtype == bool:
        return bool(np.array_equal(a.astype(bool), b.astype(bool)))
    return bool(np.allclose(a.astype(float), b.astype(float), rtol=1e-12, atol=0.0, equal_nan=True))


#: Inputs whose composed value differed from resolve's on some scenario and was proven to move nothing there.
unchanged: dict[str, int] = {name: 0 for name in INPUT_NAMES}


@pytest.fixture(scope="module")
def both_paths():
    return [(resolve(s).inputs, compose_inputs(lever_atoms(s))) for s in SCENARIOS]


@pytest.mark.parametrize("name", INPUT_NAMES)
def test_each_input_reaches_compute_as_resolve_gives_it(name, both_paths):
    resolved = [r[name] for r, _ in both_paths]
    composed = [c[name] for _, c in both_paths]
    for s, (inputs, _), r, c in zip(SCENARIOS, both_paths, resolved, composed):
        if _same(c, r):
            continue
        # a different value is allowed only where compute proves it moves nothing: every output is the same with
        # the composed value in its place (a region's electricity price under a cloud rate, which pays for it;
        # a storage price with no checkpoint kept)
        a, b = compute(**inputs), compute(**(inputs | {name: c}))
        assert all(_same(a[k], b[k]) for k in a), (name, s.gpu, s.pricing, r, c)
        unchanged[name] += 1
    distinct = {"nan" if math.isnan(x) else x for x in (float(np.asarray(v, float)) for v in resolved)}
    if name in SET_BY_NO_FIELD:  # proven not to change: one value, the named default
        assert len(distinct) == 1 and distinct.pop() == pytest.approx(SET_BY_NO_FIELD[name]()), name
    else:  # the set moves it (NaN, "not given", counts as a value), so a constant in compose_inputs would fail above
        assert len(distinct) >= 2, (name, distinct)


def test_the_declared_list_is_the_whole_list():
    assert set(SET_BY_NO_FIELD) <= set(INPUT_NAMES)
    assert len(COMPUTE_INPUTS) == len(INPUT_NAMES)


def test_only_the_two_multiplied_by_zero_differ(both_paths):
    """The inputs where compose_inputs may give another value than resolve, each proven above to move nothing."""
    for name in INPUT_NAMES:
        test_each_input_reaches_compute_as_resolve_gives_it(name, both_paths)
    assert {n for n, count in unchanged.items() if count} <= {"electricity_usd_per_kwh", "storage_usd_per_gb_month"}


def test_a_run_too_long_to_start_has_no_money_in_the_analysis_either():
    s = SCENARIOS[-1]
    e = estimate(s)
    assert not e.feasible and e.infeasible_reason == "too_long" and math.isnan(e.total_usd)
    out = compute(**compose_inputs(lever_atoms(s)))
    assert np.isnan(out["total_usd"]) and int(out["infeasible_reason"]) == 3  # INFEASIBLE_REASONS[3] = too_long


def test_gpu_only_energy_is_known_in_the_analysis():
    """chip_power_w = the accelerator's TDP: GPU-hours x 700 W for an H100 SXM (NVIDIA datasheet)."""
    s = Scenario(gpu="h100-sxm")
    out = compute(**compose_inputs(lever_atoms(s)))
    assert float(out["energy_gpu_mwh"]) == pytest.approx(float(out["gpu_hours"]) * 700 / 1e6, rel=1e-12)
    assert float(out["energy_gpu_mwh"]) == pytest.approx(estimate(s).energy_gpu_mwh, rel=1e-12)


@settings(max_examples=examples(60), deadline=None)
@given(scenarios())
def test_every_output_of_the_two_paths_agrees_over_the_input_space(s):
    a = compute(**resolve(s).inputs)
    b = compute(**compose_inputs(lever_atoms(s)))
    assert a.keys() == b.keys()
    for k in a:
        assert _same(a[k], b[k]) or np.allclose(np.asarray(a[k], float), np.asarray(b[k], float), rtol=1e-9,
                                                equal_nan=True), (k, a[k], b[k])
