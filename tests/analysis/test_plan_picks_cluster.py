"""Without a deadline the planner picks the cluster (issue 38 finding 2: ``plan --budget-usd 1B`` kept the base's
1,024 GPUs and bought 649B parameters "limited by run length", a 1,826-day run; $10B bought the same).

The cluster is the cheapest on which the run ends within ``plan_longest_run_days`` (118.24 days: BLOOM-176B's
final run, the longest in published_runs.csv; Luccioni et al. 2023, table 1), capped by ``gpu_cap`` and the
largest cluster the model allows (``max_gpus``); the plan names the limit that binds.
"""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from explorer import Scenario, catalog
from explorer.analysis import plan, plan_curve
from explorer.catalog import default
from explorer.model.resolve import reference_precision
from strategies import PRICED, examples, log_uniform

LONGEST = 118.24  # days: BLOOM-176B, 118 d 5 h 41 min (Luccioni et al. 2023)


def test_a_billion_dollars_picks_a_cluster_and_buys_more_than_1024_gpus_do():
    p = plan(1e9)
    fixed = plan(1e9, Scenario(gpus=1024), cluster="base")
    assert p.cluster == "auto" and p.limited_by == "budget" and p.cost_usd <= 1e9
    assert p.estimate.gpus != 1024 and p.estimate.wall_days <= LONGEST * (1 + 1e-9)
    assert fixed.limited_by == "run_length" and fixed.estimate.wall_days > 1000  # the 1,826-day run
    assert p.params > 1.2 * fixed.params  # the issue: 649B at 1,024 GPUs, 1.02T with a 180-day deadline


def test_ten_billion_is_limited_by_the_longest_run_on_the_largest_cluster_and_says_so():
    p = plan(1e10)
    assert p.limited_by == "run_length" and p.estimate.gpus <= default("max_gpus")
    assert p.cost_usd < 1e10
    assert any(w.id == "plan_cluster_binds" for w in p.warnings)
    assert p.params > plan(1e9).params


def test_a_gpu_cap_binds_and_is_named():
    p = plan(1e9, gpu_cap=4096)
    assert p.limited_by == "gpu_cap" and p.estimate.gpus <= 4096
    assert any(w.id == "plan_cluster_binds" for w in p.warnings)
    assert p.params < plan(1e9).params


@settings(max_examples=examples(10), deadline=None)
@given(st.sampled_from(PRICED), st.sampled_from(["on_demand", "reserved_3y", "spot"]), log_uniform(1e5, 1e8))
def test_the_curve_grows_over_four_decades_with_no_flat_stretch_from_a_fixed_cluster(gpu, pricing, budget):
    precision = reference_precision(catalog.accelerator(gpu))  # BF16, else FP16 (V100)
    base = Scenario(gpu=gpu, pricing=pricing, precision=precision)  # its default 1,024 GPUs: not kept
    df = plan_curve([budget * 10 ** (k / 2) for k in range(-4, 5)], base, scope="final_run")
    planned = df[df["params"].notna()]
    for (_, a), (_, b) in zip(planned.iterrows(), planned.iloc[1:].iterrows()):
        assert b["params"] >= a["params"] * (1 - 1e-3), (a.to_dict(), b.to_dict())
        if b["params"] <= a["params"] * 1.01:  # flat: only where the largest cluster or model binds
            assert b["limited_by"] in ("run_length", "largest_model"), (a.to_dict(), b.to_dict())
            assert b["limited_by"] == "largest_model" or b["gpus"] >= 0.5 * default("max_gpus")
        if b["limited_by"] == "budget":  # a budget-bound plan spends most of it
            assert b["cost_usd"] <= b["budget_usd"] and b["wall_days"] <= LONGEST * (1 + 1e-9)
    assert not math.isnan(df["params"].iloc[-1])
