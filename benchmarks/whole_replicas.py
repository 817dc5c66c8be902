"""Whole data-parallel replicas over random typed GPU counts (issue 38): how many layouts leave GPUs without a
whole replica, and what share of the GPUs that is.

Draws ``--n`` random scenarios (seed 38): parameters log-uniform over 1e9-2e12, 20 tokens per parameter, a typed
count log-uniform over 10-100,000, an accelerator with a known memory; keeps the feasible ones. A layout is not
whole when its data parallelism is fractional (before issue 38's change) or it has idle GPUs (after); its idle
share is ``(gpus - whole replicas x TP x PP) / gpus``. Also prints OPT-175B's preset layout (992 A100s).

Run: ``PYTHONPATH=$PWD .venv/bin/python benchmarks/whole_replicas.py [--n 500] [--before DIR]``, DIR a checkout
of the commit to compare (``git worktree add /tmp/base38 271a16d``): both trees are measured in one run, each
in its own process, on the same draws.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys


def measure(n_draws: int) -> dict[str, object]:
    """The share of feasible random typed counts whose layout is not whole, their idle shares, the layouts whose
    stages split the layers unevenly, and the share of the paid GPU time left unused (idle or waiting on the
    fullest stage) [1]."""
    from explorer import Scenario, catalog, estimate
    from explorer.presets import presets

    rng = random.Random(38)
    known = sorted(a for a, acc in catalog.accelerators().items() if math.isfinite(acc.memory_gb or math.nan))
    shares, feasible, unused, uneven = [], 0, [], 0
    for _ in range(n_draws):
        params, n, gpu = 10 ** rng.uniform(9, 12.3), int(round(10 ** rng.uniform(1, 5))), rng.choice(known)
        try:
            e = estimate(Scenario(params=params, tokens=20 * params, gpus=n, gpu=gpu))
        except ValueError:  # a precision the accelerator lacks
            continue
        L = e.layout
        if L is None or not e.feasible:
            continue
        feasible += 1
        group = L.tensor_parallel * L.pipeline_parallel
        idle = getattr(L, "idle_gpus", n - math.floor(L.data_parallel + 1e-9) * group)
        if idle > 0 or not float(L.data_parallel).is_integer():
            shares.append(idle / n)
        # the pace of the fullest stage: ceil(layers / p), or ceil((layers + 2) / p) with the embedding and the
        # output on the end stages (Llama Team 2024, section 3.3.2), whichever splits better
        layers, p = e.shape[0], L.pipeline_parallel
        pace = max(layers / (p * math.ceil(layers / p)), (layers + 2) / (p * math.ceil((layers + 2) / p)))
        uneven += pace < 1.0
        unused.append(1.0 - (n - idle) / n * pace)
    shares.sort()
    unused.sort()

    def q(x: float) -> float:
        return shares[min(len(shares) - 1, int(x * len(shares)))] if shares else 0.0

    return dict(feasible=feasible, not_whole=len(shares), idle_share_median=q(0.5), idle_share_p90=q(0.9),
                idle_share_max=shares[-1] if shares else 0.0,
                idle_share_mean_over_feasible=sum(shares) / max(1, feasible), uneven_stages=uneven,
                unused_share_mean=sum(unused) / max(1, len(unused)),
                unused_share_p90=unused[min(len(unused) - 1, int(0.9 * len(unused)))] if unused else 0.0,
                opt175b=estimate(presets()["opt175b"].scenario).layout.text())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=500, help="random scenarios drawn (default 500)")
    ap.add_argument("--before", help="a checkout of the commit to compare, measured in its own process")
    ap.add_argument("--json", action="store_true", help="print one JSON object (the tree on PYTHONPATH only)")
    args = ap.parse_args()
    if args.json:
        print(json.dumps(measure(args.n)))
        return
    trees = {"before": args.before, "this tree": os.getcwd()} if args.before else {"this tree": os.getcwd()}
    rows = {}
    for name, path in trees.items():
        out = subprocess.run([sys.executable, os.path.abspath(__file__), "--n", str(args.n), "--json"], cwd=path,
                             env={**os.environ, "PYTHONPATH": path}, capture_output=True, text=True, check=True)
        rows[name] = json.loads(out.stdout)
    print(f"{'':32}" + "".join(f"{name:>50}" for name in rows))
    for key in next(iter(rows.values())):
        print(f"{key:32}" + "".join(f"{_fmt(r[key]):>50}" for r in rows.values()))


def _fmt(v: object) -> str:
    return f"{v:.4%}" if isinstance(v, float) else str(v)


if __name__ == "__main__":
    main()
