"""Benchmarks of the cost model: ``python benchmarks/run.py [--json] [--repeats N] [--only NAME ...] [--against REV]``.

``--against REV`` measures the commit ``REV`` and the working tree in one run (issue 38: before and after side
by side): each side is the package of its tree (``git archive REV`` unpacked in a temporary directory, and this
checkout), run in its own interpreter with that tree first on ``sys.path``, the two alternating ``--rounds``
times; the table gives each side's median over the rounds.

Every benchmark is a function registered under a name; it takes the number of
repeats and returns a mapping of metric name -> value (medians over the
repeats, measured with :func:`time.perf_counter`). The results of all
benchmarks are merged into one JSON object together with the number of repeats
and the machine. This is a benchmark, not a test: nothing here asserts on time.

Adding a benchmark (e.g. the app's update latency) from another module::

    from benchmarks.run import register   # or: import run; run.register(...)

    @register("app_update")
    def app_update(repeats):
        ...
        return {"app_update_ms_p50": p50, "app_update_ms_p95": p95}

or call ``register("app_update", fn)`` directly. Modules named
``benchmarks/bench_*.py`` are imported automatically, so a file there that
calls ``register`` is picked up without editing this one.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Callable, Mapping

import numpy as np

#: name -> fn(repeats) -> {metric: value}; filled by :func:`register`.
BENCHMARKS: dict[str, Callable[[int], Mapping[str, float]]] = {}

DEFAULT_REPEATS = 7


def register(name: str, fn: Callable[[int], Mapping[str, float]] | None = None):
    """Register a benchmark ``fn(repeats) -> {metric: value}`` under ``name``.

    Usable as ``register("name", fn)`` or as a decorator ``@register("name")``.
    """

    def add(f):
        if name in BENCHMARKS and BENCHMARKS[name] is not f:
            raise ValueError(f"benchmark {name!r} is already registered")
        BENCHMARKS[name] = f
        return f

    return add(fn) if fn is not None else add


def median_time(fn: Callable[[], object], repeats: int, number: int = 1) -> float:
    """Median over ``repeats`` of the time of one call [s], each repeat timing ``number`` calls."""
    fn()  # warm-up (imports, caches)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    return statistics.median(times)


# ---------------------------------------------------------------- model benchmarks
@register("estimate")
def bench_estimate(repeats: int) -> dict[str, float]:
    """One scalar ``estimate(Scenario(...))``: validation, catalog look-ups, formulas."""
    from explorer import Scenario, estimate

    def one():
        return estimate(Scenario(params=70e9, tokens=2e12, gpu="h100-sxm", precision="bf16", gpus=2048,
                                 pricing="reserved_1y", region="de"))

    return {"estimate_us": median_time(one, repeats, number=200) * 1e6}


def sweep_inputs(n: int, seed: int = 0) -> dict[str, np.ndarray]:
    """Random inputs of :func:`explorer.model.compute` for ``n`` scenarios."""
    rng = np.random.default_rng(seed)
    params = 10 ** rng.uniform(8, 12.5, n)
    deadline = rng.random(n) < 0.3
    return dict(
        params=params,
        active_params=params * np.where(rng.random(n) < 0.2, 0.1, 1.0),
        tokens=10 ** rng.uniform(10, 13.5, n),
        peak_flop_per_s=rng.choice([125e12, 312e12, 989.5e12, 1979e12, 2250e12], n),
        mfu=rng.uniform(0.15, 0.55, n),
        gpus=np.where(deadline, np.nan, np.round(10 ** rng.uniform(0, 5, n))),
        deadline_days=np.where(deadline, 10 ** rng.uniform(0, 3, n), np.nan),
        max_gpus=1e5,
        failure_rate_per_gpu_hour=rng.uniform(0, 5e-5, n),
        checkpoint_write_hours=0.5 / 60,
        restart_hours=10 / 60,
        recovery_above_gpus=16384.0,  # issue 16: in-memory recovery above Llama 3's scale
        checkpoint_write_hours_in_memory=0.0,
        restart_hours_in_memory=2.4 / 60,
        memory_gb=rng.choice([32.0, 80.0, 192.0], n),
        tdp_w=(tdp := rng.choice([300.0, 400.0, 700.0, 1000.0], n)),
        chip_power_w=tdp,
        server_power_factor=1.82,
        avg_power_fraction=0.75,
        pue=rng.uniform(1.05, 1.6, n),
        grid_gco2_per_kwh=rng.uniform(5, 700, n),
        rate_usd_per_gpu_hour=rng.uniform(1, 10, n),
        owned=rng.random(n) < 0.25,
        accelerator_usd_per_gpu_hour=rng.uniform(0.3, 1.2, n),
        hardware_usd_per_gpu_hour=rng.uniform(0.2, 0.8, n),
        electricity_usd_per_kwh=rng.uniform(0.04, 0.3, n),
        data_usd=rng.uniform(0, 1e6, n),
        team_usd_per_month=rng.uniform(0, 1e6, n),
        checkpoints_kept=rng.integers(0, 10, n).astype(float),
        storage_usd_per_gb_month=0.023,
        experiments_multiplier=rng.uniform(1, 4, n),
    )


@register("sweep")
def bench_sweep(repeats: int) -> dict[str, float]:
    """One vectorized ``compute()`` call over 1,000,000 random scenarios."""
    from explorer.model import compute

    inputs = sweep_inputs(1_000_000)

    def one():
        with np.errstate(all="ignore"):
            return compute(**inputs)

    return {"sweep_1e6_s": median_time(one, repeats)}


@register("simulate")
def bench_simulate(repeats: int) -> dict[str, float]:
    """``explorer.simulate`` with 100,000 Monte Carlo draws (issue 10: under 0.5 s)."""
    from explorer import Scenario, simulate

    scenario = Scenario(params=70e9, tokens=2e12, gpu="h100-sxm", gpus=2048, pricing="spot",
                        experiments_multiplier=2.0)
    return {"simulate_1e5_s": median_time(lambda: simulate(scenario, n=100_000, seed=0), repeats)}


# ---------------------------------------------------------------- driver
def _load_plugins() -> None:
    here = Path(__file__).resolve().parent
    for path in sorted(here.glob("bench_*.py")):
        name = f"benchmarks.{path.stem}"
        if name in sys.modules:  # already imported by another plugin
            continue
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules.setdefault("run", sys.modules[__name__])  # plugins may `import run`
        sys.modules[name] = module  # so that a plugin importing another gets this same module
        spec.loader.exec_module(module)


def machine() -> dict[str, str | int]:
    import os

    return {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count() or 0,
    }


def run(names=None, repeats: int = DEFAULT_REPEATS) -> dict:
    """Run the benchmarks (all, or ``names``) and return one result object."""
    results: dict = {}
    for name, fn in BENCHMARKS.items():
        if names and name not in names:
            continue
        results.update(fn(repeats))
    results["repeats"] = repeats
    results["machine"] = machine()
    return results


def _against(args) -> int:
    """Measure ``args.against`` and this tree alternately, each in a fresh interpreter, and print both."""
    import statistics
    import subprocess
    import tempfile

    here = Path(__file__).resolve().parent.parent
    rev = subprocess.run(["git", "-C", str(here), "rev-parse", "--short", args.against], check=True,
                         capture_output=True, text=True).stdout.strip()
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(here), "archive", rev], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        trees = {rev: Path(tmp), "this tree": here}
        runs: dict[str, list[dict]] = {name: [] for name in trees}
        for _ in range(max(1, args.rounds)):
            for name, tree in trees.items():
                cmd = [sys.executable, str(tree / "benchmarks" / "run.py"), "--json", "--repeats", str(args.repeats)]
                if args.only:
                    cmd += ["--only", *args.only]
                env = {**__import__("os").environ, "PYTHONPATH": str(tree)}
                out = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=tree, env=env).stdout
                runs[name].append(json.loads(out))
    keys = [k for k in runs["this tree"][0] if k not in ("repeats", "machine")]
    result = {name: {k: statistics.median(r[k] for r in rs if k in r) for k in keys if any(k in r for r in rs)}
              for name, rs in runs.items()}
    if args.json:
        print(json.dumps({"rounds": args.rounds, "repeats": args.repeats, **result, "machine": machine()}))
        return 0
    print(f"{'metric':<24} {rev:>14} {'this tree':>14}")
    for k in keys:
        print(f"{k:<24} {result[rev].get(k, float('nan')):>14.4g} {result['this tree'][k]:>14.4g}")
    print(f"\nmedian of {args.rounds} alternating rounds of {args.repeats} repeats each")
    for key, value in machine().items():
        print(f"{key:<10} {value}")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--repeats", type=int, default=DEFAULT_REPEATS, help="timed repeats per benchmark (median)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run only these benchmarks")
    parser.add_argument("--against", metavar="REV", help="also measure git revision REV, alternating with this tree")
    parser.add_argument("--rounds", type=int, default=3, help="alternations of --against (default 3)")
    args = parser.parse_args(argv)
    if args.against:
        return _against(args)
    _load_plugins()
    unknown = set(args.only or ()) - set(BENCHMARKS)
    if unknown:
        parser.error(f"unknown benchmark(s) {sorted(unknown)}; known: {sorted(BENCHMARKS)}")
    results = run(args.only, max(1, args.repeats))
    if args.json:
        print(json.dumps(results))
        return 0
    print(f"{'metric':<24} {'median':>14}")
    for key, value in results.items():
        if key in ("repeats", "machine"):
            continue
        print(f"{key:<24} {value:>14.4g}")
    print(f"\nrepeats: {results['repeats']}")
    for key, value in results["machine"].items():
        print(f"{key:<10} {value}")
    return 0


if __name__ == "__main__":
    # Running as a script: make `from benchmarks.run import register` and `import run`
    # resolve to this module rather than a second copy.
    import types

    this = sys.modules[__name__]
    package = sys.modules.setdefault("benchmarks", types.ModuleType("benchmarks"))
    if not hasattr(package, "__path__"):
        package.__path__ = [str(Path(__file__).resolve().parent)]
    package.run = this
    sys.modules.setdefault("run", this)
    sys.modules.setdefault("benchmarks.run", this)
    sys.exit(main())
