"""Are this tree's results those of another commit, bit for bit? ``python benchmarks/same_results.py --against REV``.

A speed change must not move a figure (issue 38). This runs :func:`explorer.model.compute` on the random inputs of
the sweep benchmark (:func:`run.sweep_inputs`), and on half of the seeds with more inputs varied (project months and
their cap, automatic recovery, the 5-year limit, a given checkpoint interval, activations at each recomputation,
ZeRO's unsharded state, pipeline stages, other losses), and :func:`explorer.estimate` on the presets and a few
hundred random scenarios (every pricing, counts and deadlines, financing rates, teams), in the commit ``REV``
(``git archive`` in a temporary directory) and in this tree, each in its own interpreter, and prints the outputs
that differ (NaN equals NaN). Exit status 1 when any does. Not a test: the other commit is not there at test time.
"""

from __future__ import annotations

import argparse
import json
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np


def _compute_rows(n: int, seed: int) -> dict:
    from run import sweep_inputs

    inputs = sweep_inputs(n, seed)
    if seed % 2:
        rng = np.random.default_rng(seed + 100)
        inputs.update(
            project_months=np.where(rng.random(n) < 0.5, rng.uniform(1, 30, n), np.nan),
            project_months_max=np.where(rng.random(n) < 0.3, rng.uniform(6, 60, n), np.inf),
            recovery_above_gpus=np.where(rng.random(n) < 0.5, np.nan, 16384.0),
            max_wall_days=np.where(rng.random(n) < 0.5, 1826.0, np.inf),
            checkpoint_interval_hours=np.where(rng.random(n) < 0.2, 1.0, np.nan),
            activation_bytes=rng.uniform(0, 5e10, n), activation_bytes_selective=rng.uniform(0, 2e10, n),
            activation_bytes_full=rng.uniform(0, 1e9, n), unsharded_bytes_per_param=rng.choice([0.0, 4.0], n),
            pipeline_parallel=rng.choice([1.0, 4.0], n), other_losses_factor=rng.uniform(1, 1.3, n))
    return inputs


def _scenarios():
    import random

    from explorer import Scenario
    from explorer.presets import presets

    out = [Scenario()] + [p.scenario for p in presets().values()]
    rng = random.Random(5)
    for _ in range(300):
        kw = dict(params=10 ** rng.uniform(8, 12), tokens=10 ** rng.uniform(10, 13),
                  gpu=rng.choice(["h100-sxm", "a100-80gb", "v100", "b200", "tpu-v4"]),
                  pricing=rng.choice(["on_demand", "reserved_1y", "spot", "owned"]))
        if rng.random() < 0.4:
            kw.update(gpus=None, deadline_days=10 ** rng.uniform(0, 3))
        else:
            kw.update(gpus=int(10 ** rng.uniform(0, 4.5)))
        if rng.random() < 0.3:
            kw.update(financing_rate=rng.choice([0.0, 1e-12, 0.08]))
        if rng.random() < 0.3:
            kw.update(experiments_multiplier=rng.uniform(1, 4), team_headcount=rng.uniform(0, 50))
        try:
            out.append(Scenario(**kw))
        except ValueError:  # a combination the scenario refuses (e.g. a precision the accelerator lacks)
            continue
    return out


def _dump(path: str, n: int, seeds: list[int]) -> None:
    """Write this interpreter's results (its tree is first on ``sys.path``) to ``path``."""
    from explorer import estimate
    from explorer.model import compute

    rows = {}
    with np.errstate(all="ignore"):
        for seed in seeds:
            rows[seed] = {k: np.asarray(v) for k, v in compute(**_compute_rows(n, seed)).items()}
    estimates = []
    for s in _scenarios():
        try:
            estimates.append(json.dumps(estimate(s).to_dict(), sort_keys=True, default=repr))
        except ValueError as exc:
            estimates.append(repr(exc))
    with open(path, "wb") as fh:
        pickle.dump({"rows": rows, "estimates": estimates}, fh)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", required=True, metavar="REV", help="the commit to compare with")
    parser.add_argument("--rows", type=int, default=200_000, help="compute rows per seed (default 200,000)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3])
    parser.add_argument("--dump", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.dump:
        _dump(args.dump, args.rows, args.seeds)
        return 0
    here = Path(__file__).resolve().parent.parent
    rev = subprocess.run(["git", "-C", str(here), "rev-parse", "--short", args.against], check=True,
                         capture_output=True, text=True).stdout.strip()
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(here), "archive", rev], check=True, capture_output=True).stdout
        old = Path(tmp) / "tree"
        old.mkdir()
        subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
        for name, tree in ((rev, old), ("this tree", here)):
            path = str(Path(tmp) / f"{len(results)}.pkl")
            env = {**__import__("os").environ, "PYTHONPATH": f"{tree}{':'}{here / 'benchmarks'}"}
            subprocess.run([sys.executable, str(here / "benchmarks" / "same_results.py"), "--against", rev,
                            "--rows", str(args.rows), "--seeds", *map(str, args.seeds), "--dump", path],
                           check=True, cwd=tree, env=env)
            with open(path, "rb") as fh:
                results[name] = pickle.load(fh)
    a, b = results[rev], results["this tree"]
    differ = 0
    for seed in args.seeds:
        bad = []
        for key, x in a["rows"][seed].items():
            y = b["rows"][seed].get(key)
            if y is None:
                bad.append((key, "missing"))
                continue
            x, y = np.broadcast_arrays(x, y)
            same = (x == y) | ((x != x) & (y != y))
            if not same.all():
                bad.append((key, int((~same).sum())))
        differ += len(bad)
        print(f"compute, seed {seed}, {args.rows:,} rows: {'identical' if not bad else bad}")
    diff = [i for i, (x, y) in enumerate(zip(a["estimates"], b["estimates"])) if x != y]
    differ += len(diff)
    print(f"estimate, {len(a['estimates'])} scenarios: {'identical' if not diff else f'{len(diff)} differ: {diff[:10]}'}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
