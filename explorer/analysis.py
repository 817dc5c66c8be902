"""Analysis on the cost model: compare, attribute by lever, sensitivity, Monte Carlo, budget, savings.

Pure functions on :mod:`explorer.model` (numpy and pandas; no widgets, no
matplotlib). Every amount is in USD whatever the scenario's display currency.

* :func:`compare`: one row per scenario, every cost dimension and unit figure.
* :func:`attribute`: exact Shapley values of a cost change over the levers
  that differ (:data:`LEVERS`), all ``2**k`` coalitions in one vectorized
  :func:`~explorer.model.compute` call.
* :func:`sensitivity`: total cost at the low and high end of each uncertain
  input (``explorer/data/uncertainty.csv``), for a tornado chart.
* :func:`simulate`: Monte Carlo over the same inputs, lognormal from sourced
  intervals as Epoch AI does (Cottier et al. 2024, arXiv 2405.21015).
* :func:`budget_status`: within / over / review (over 120% of the budget, the
  first source article's rule), the probability of exceeding the budget, and
  whether a deadline fits under a GPU cap.
* :func:`savings_recipe` and :func:`recipe_verdicts`: the second source
  article's levers applied one after another, each saving set against the
  article's claimed range (``explorer/data/recipe_claims.csv``).

>>> from explorer import Scenario, attribute
>>> a = attribute(Scenario(gpus=512), Scenario(gpus=512, precision="fp8", pricing="reserved_1y"))
>>> abs(sum(a.parts_usd.values()) - a.change_usd) <= 1e-9 * abs(a.change_usd)
True
>>> a.parts_usd["region"]
0.0
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Iterable, Mapping

import numpy as np
import pandas as pd

from explorer import catalog
from explorer.catalog import default
from explorer.errors import ScenarioError
from explorer.model import COST_DIMENSIONS, estimate
from explorer.model import formulas as F
from explorer.model.resolve import reference_precision, resolve
from explorer.model.vectorized import compute
from explorer.scenario import Scenario

__all__ = [
    "LEVERS", "PRECISION", "ARCHITECTURE", "MODEL_SIZE", "TOKENS", "ACCELERATOR", "CLUSTER", "PRICING",
    "REGION", "MFU", "RELIABILITY", "DATA", "TEAM", "EXPERIMENTS", "TRAINING_KIND", "OTHER",
    "REVIEW_RATIO", "COMPARE_COLUMNS",
    "compare", "Attribution", "attribute", "uncertainty_ranges", "sensitivity", "Simulation", "simulate",
    "BudgetStatus", "budget_status", "budget_verdict", "savings_recipe", "recipe_verdicts",
]

# ----------------------------------------------------------------- levers
PRECISION = "precision"
ARCHITECTURE = "architecture"
MODEL_SIZE = "model_size"
TOKENS = "tokens"
ACCELERATOR = "accelerator"
CLUSTER = "cluster"
PRICING = "pricing"
REGION = "region"
MFU = "mfu"
RELIABILITY = "reliability"
DATA = "data"
TEAM = "team"
EXPERIMENTS = "experiments"
TRAINING_KIND = "training_kind"
#: Part of an :class:`Attribution` holding the levers left out of ``levers=``.
OTHER = "other"

#: Every lever :func:`attribute` knows, in display order.
LEVERS: tuple[str, ...] = (PRECISION, ARCHITECTURE, MODEL_SIZE, TOKENS, ACCELERATOR, CLUSTER, PRICING, REGION,
                           MFU, RELIABILITY, DATA, TEAM, EXPERIMENTS, TRAINING_KIND)

#: Ratio of cost to budget above which a run goes to review: "单次实验超过预算的120%即触发复核"
#: (first source article, 000_1c7b37d5a0a3fefc.txt, section 五, step 3).
REVIEW_RATIO = 1.2

#: Columns of :func:`compare`, in order.
COMPARE_COLUMNS: tuple[str, ...] = (*(f"{d}_usd" for d in COST_DIMENSIONS), "total_usd", "final_run_usd", "days",
                                    "gpus", "gpu_hours", "energy_mwh", "co2_tonnes", "usd_per_1m_tokens")


# ----------------------------------------------------------------- compare
def _named(scenarios, names) -> tuple[list[str], list[Scenario]]:
    if isinstance(scenarios, Scenario):
        scenarios = [scenarios]
    if isinstance(scenarios, Mapping):
        names = list(scenarios) if names is None else list(names)
        scenarios = list(scenarios.values())
    scenarios = list(scenarios)
    if not scenarios:
        raise ScenarioError("scenarios", scenarios, "at least one scenario")
    for s in scenarios:
        if not isinstance(s, Scenario):
            raise ScenarioError("scenarios", type(s).__name__, "Scenario objects")
    if names is None:
        names = [chr(ord("A") + i) if i < 26 else f"S{i + 1}" for i in range(len(scenarios))]
    names = [str(n) for n in names]
    if len(names) != len(scenarios):
        raise ScenarioError("names", len(names), f"one name per scenario ({len(scenarios)})")
    if len(set(names)) != len(names):
        raise ScenarioError("names", names, "distinct names")
    return names, scenarios


def compare(scenarios, names=None) -> pd.DataFrame:
    """Side-by-side results of several scenarios.

    Parameters
    ----------
    scenarios : sequence of Scenario, or mapping of name -> Scenario
        The scenarios to compare.
    names : sequence of str, optional
        Row names; default ``A, B, C...`` (the app's slots), or the mapping's keys.

    Returns
    -------
    pandas.DataFrame
        Index: names. Columns (:data:`COMPARE_COLUMNS`): ``<dimension>_usd`` for
        the six cost dimensions and ``total_usd`` of the whole project [USD];
        ``final_run_usd`` machine cost of the final run [USD]; ``days``
        wall-clock [days]; ``gpus`` [1]; ``gpu_hours`` billed [GPU-hour];
        ``energy_mwh`` [MWh] and ``co2_tonnes`` [tCO2] of the final run;
        ``usd_per_1m_tokens`` total per million training tokens [USD].

    Examples
    --------
    >>> from explorer import Scenario, compare
    >>> df = compare([Scenario(gpus=256), Scenario(gpus=256, pricing="spot")], names=["on-demand", "spot"])
    >>> bool(df.loc["spot", "compute_usd"] < df.loc["on-demand", "compute_usd"])
    True
    """
    names, scenarios = _named(scenarios, names)
    rows = []
    for s in scenarios:
        e = estimate(s)
        row = {f"{d}_usd": e.cost_usd[d] for d in COST_DIMENSIONS}
        row.update(total_usd=e.total_usd, final_run_usd=e.final_run_usd, days=e.wall_days, gpus=e.gpus,
                   gpu_hours=e.gpu_hours, energy_mwh=e.energy_mwh, co2_tonnes=e.co2_tonnes,
                   usd_per_1m_tokens=e.usd_per_1m_tokens)
        rows.append(row)
    df = pd.DataFrame(rows, index=pd.Index(names, name="scenario"), columns=list(COMPARE_COLUMNS))
    return df


# ----------------------------------------------------------------- attribution
def _nan(x) -> float:
    return math.nan if x is None else float(x)


def _owned_reference(acc: catalog.Accelerator) -> tuple[float, float]:
    """Owned capital and other hardware per GPU-hour of ``acc`` with the default parameters [USD/GPU-hour]."""
    overhead = 1.0 if acc.purchase_basis == "system" else default("server_overhead")
    a, h = F.owned_hourly_usd(_nan(acc.purchase_usd), overhead, default("network_fraction"),
                              default("depreciation_years"), 0.0)
    return float(a), float(h)


def _ratio(value: float, ref: float) -> float:
    return value / ref if math.isfinite(ref) and ref != 0.0 else value


def _atoms(s: Scenario) -> dict[str, dict[str, float]]:
    """The scenario split into per-lever quantities that :func:`_compose` turns back into compute inputs.

    Coupled inputs are products or sums of parts owned by different levers:
    peak = accelerator peak at its 16-bit precision x precision ratio;
    default MFU = accelerator's measured MFU x precision speed-up factor x MoE
    factor (or the MFU lever's override); rate = on-demand price x pricing
    factor (or a rate override); active params = params x MoE active
    fraction; data cost = tokens x price per token + fixed data costs;
    failures = base rate + spot preemptions.
    """
    r = resolve(s)
    x = r.inputs
    acc = catalog.accelerator(s.gpu)
    ref = reference_precision(acc)
    ratio = acc.peak_tflops[s.precision] / acc.peak_tflops[ref]
    prec_mfu = 1.0
    if s.precision in ("fp8", "fp4"):
        prec_mfu = min(default(f"{s.precision}_speedup"), ratio) / ratio
    trainable = s.lora_trainable_fraction if s.training_kind == "lora" else 1.0
    parts = r.memory_bytes_per_param
    act_bytes = catalog.precisions()[s.precision].activation_bytes
    act_scale = (act_bytes if act_bytes is not None else catalog.precisions()["bf16"].activation_bytes) / 2.0
    on_demand = _nan(acc.on_demand_usd_per_gpu_hour)
    od_ref = on_demand if math.isfinite(on_demand) and on_demand > 0 else 1.0
    a_ref, h_ref = _owned_reference(acc)
    base_failure = s.failure_rate_per_gpu_hour if s.failure_rate_per_gpu_hour is not None \
        else default("failure_rate_per_gpu_hour")
    reg = catalog.region(s.region)
    electricity = s.electricity_usd_per_kwh if s.electricity_usd_per_kwh is not None else reg.electricity_usd_per_kwh
    storage = s.storage_usd_per_gb_month if s.storage_usd_per_gb_month is not None \
        else default("storage_usd_per_gb_month")
    rate_override = s.rate_usd_per_gpu_hour is not None
    return {
        PRECISION: dict(peak_ratio=ratio, mfu_factor=prec_mfu, weight_bytes=parts["weights"],
                        update_bytes=(parts["gradients"] + parts["optimizer"]) / trainable, act_scale=act_scale),
        ARCHITECTURE: dict(active_fraction=x["active_params"] / x["params"],
                           moe_factor=default("moe_mfu_factor") if s.architecture == "moe" else 1.0),
        MODEL_SIZE: dict(params=x["params"], attention=x["attention_flop_per_token"],
                         act_ref=x["activation_bytes"] / act_scale),
        TOKENS: dict(tokens=x["tokens"]),
        ACCELERATOR: dict(peak_ref=acc.peak_tflops[ref] * 1e12,
                          mfu_base=default(acc.mfu_default or "mfu_dense"), memory_gb=x["memory_gb"],
                          tdp_w=x["tdp_w"], server_power_factor=x["server_power_factor"],
                          avg_power_fraction=x["avg_power_fraction"], od_ref=od_ref, a_ref=a_ref, h_ref=h_ref),
        CLUSTER: dict(gpus=x["gpus"], deadline_days=x["deadline_days"], max_gpus=x["max_gpus"],
                      tensor_parallel=x["tensor_parallel"]),
        PRICING: dict(owned=float(x["owned"]), rate_override=float(rate_override),
                      rate=x["rate_usd_per_gpu_hour"] if rate_override else math.nan,
                      rate_factor=math.nan if rate_override else x["rate_usd_per_gpu_hour"] / od_ref,
                      a_factor=_ratio(x["accelerator_usd_per_gpu_hour"], a_ref),
                      h_factor=_ratio(x["hardware_usd_per_gpu_hour"], h_ref),
                      spot_failures=x["failure_rate_per_gpu_hour"] - base_failure),
        REGION: dict(pue=x["pue"], grid=x["grid_gco2_per_kwh"], electricity=_nan(electricity)),
        MFU: dict(override=float(s.mfu is not None), mfu=_nan(s.mfu)),
        RELIABILITY: dict(failure=base_failure, write_h=x["checkpoint_write_hours"],
                          interval_h=x["checkpoint_interval_hours"], restart_h=x["restart_hours"],
                          other=x["other_losses_factor"]),
        DATA: dict(per_1m=s.data_usd_per_1m_tokens,
                   fixed=s.labelled_examples * s.usd_per_labelled_example
                   + s.synthetic_tokens / 1e6 * s.synthetic_usd_per_1m_tokens,
                   checkpoints=s.checkpoints_kept, storage=storage),
        TEAM: dict(per_month=x["team_usd_per_month"], months=x["project_months"]),
        EXPERIMENTS: dict(mult=x["experiments_multiplier"]),
        TRAINING_KIND: dict(flop_factor=x["flop_per_param_token"], trainable=trainable),
    }


def _compose(a: Mapping[str, Mapping[str, np.ndarray]]) -> dict:
    """Inputs of :func:`compute` from per-lever quantities (arrays broadcast over coalitions or draws)."""
    p, ar, m, acc = a[PRECISION], a[ARCHITECTURE], a[MODEL_SIZE], a[ACCELERATOR]
    pr, rel, d, tk = a[PRICING], a[RELIABILITY], a[DATA], a[TRAINING_KIND]
    tokens = a[TOKENS]["tokens"]
    default_mfu = acc["mfu_base"] * p["mfu_factor"] * ar["moe_factor"]
    return dict(
        params=m["params"],
        active_params=m["params"] * ar["active_fraction"],
        tokens=tokens,
        flop_per_param_token=tk["flop_factor"],
        attention_flop_per_token=m["attention"],
        peak_flop_per_s=acc["peak_ref"] * p["peak_ratio"],
        mfu=np.where(a[MFU]["override"] > 0, a[MFU]["mfu"], default_mfu),
        other_losses_factor=rel["other"],
        gpus=a[CLUSTER]["gpus"],
        deadline_days=a[CLUSTER]["deadline_days"],
        max_gpus=a[CLUSTER]["max_gpus"],
        failure_rate_per_gpu_hour=rel["failure"] + pr["spot_failures"],
        checkpoint_write_hours=rel["write_h"],
        checkpoint_interval_hours=rel["interval_h"],
        restart_hours=rel["restart_h"],
        state_bytes_per_param=p["weight_bytes"] + tk["trainable"] * p["update_bytes"],
        activation_bytes=m["act_ref"] * p["act_scale"],
        tensor_parallel=a[CLUSTER]["tensor_parallel"],
        memory_gb=acc["memory_gb"],
        tdp_w=acc["tdp_w"],
        server_power_factor=acc["server_power_factor"],
        avg_power_fraction=acc["avg_power_fraction"],
        pue=a[REGION]["pue"],
        grid_gco2_per_kwh=a[REGION]["grid"],
        rate_usd_per_gpu_hour=np.where(pr["rate_override"] > 0, pr["rate"], acc["od_ref"] * pr["rate_factor"]),
        owned=np.asarray(pr["owned"]) > 0,
        accelerator_usd_per_gpu_hour=acc["a_ref"] * pr["a_factor"],
        hardware_usd_per_gpu_hour=acc["h_ref"] * pr["h_factor"],
        electricity_usd_per_kwh=a[REGION]["electricity"],
        data_usd=tokens / 1e6 * d["per_1m"] + d["fixed"],
        team_usd_per_month=a[TEAM]["per_month"],
        project_months=a[TEAM]["months"],
        checkpoints_kept=d["checkpoints"],
        storage_usd_per_gb_month=d["storage"],
        experiments_multiplier=a[EXPERIMENTS]["mult"],
    )


def _same(x: float, y: float) -> bool:
    return x == y or (isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y))


@dataclass(frozen=True)
class Attribution:
    """A cost change split among levers (:func:`attribute`).

    Attributes
    ----------
    parts_usd : dict of str -> float
        Shapley value of each lever [USD] (negative = a saving), in
        :data:`LEVERS` order; exactly 0.0 for a lever that does not differ.
        With ``levers=`` given, the levers left out share one ``"other"`` part.
    baseline_usd, target_usd, change_usd : float
        Total cost of the whole project before and after, and their
        difference [USD]; the parts add up to ``change_usd``.
    """

    parts_usd: dict[str, float]
    baseline_usd: float
    target_usd: float
    change_usd: float

    def to_frame(self) -> pd.DataFrame:
        """Parts as a table: index lever; ``usd`` [USD] and ``share`` of the change [1]."""
        df = pd.DataFrame({"usd": pd.Series(self.parts_usd, dtype=float)})
        df.index.name = "lever"
        df["share"] = df["usd"] / self.change_usd if self.change_usd else 0.0
        return df

    @property
    def differing(self) -> tuple[str, ...]:
        """Levers with a nonzero part."""
        return tuple(k for k, v in self.parts_usd.items() if v != 0.0)


def _shapley(values: np.ndarray, k: int) -> np.ndarray:
    """Exact Shapley values of ``k`` players from the values of all ``2**k`` coalitions (bitmask order)."""
    masks = np.arange(1 << k)
    size = np.zeros(1 << k, dtype=int)
    for i in range(k):
        size += (masks >> i) & 1
    fact = np.array([math.factorial(j) for j in range(k + 1)], dtype=float)
    out = np.zeros(k)
    for i in range(k):
        without = masks[((masks >> i) & 1) == 0]
        s = size[without]
        weights = fact[s] * fact[k - s - 1] / fact[k]
        out[i] = float(np.sum(weights * (values[without | (1 << i)] - values[without])))
    return out


def attribute(baseline: Scenario, target: Scenario, levers: Iterable[str] | None = None) -> Attribution:
    """Split the change in total cost from ``baseline`` to ``target`` among the levers that differ.

    Exact Shapley values: each lever's part is its marginal effect averaged
    over every order in which the changes could be made, so the parts add up
    to the change whatever the order, levers that change nothing get exactly
    zero, and levers with the same effect get the same part. All ``2**k``
    mixed scenarios of the ``k`` differing levers are evaluated in one call of
    :func:`~explorer.model.compute`.

    Each endpoint is resolved once (catalogs, defaults); a lever then swaps
    its whole group of resolved quantities. Quantities that several levers
    set are split into parts (see ``_atoms``): e.g. the peak FLOP/s is the
    accelerator's 16-bit peak times the precision's ratio to it, the rate is
    the accelerator's on-demand price times the pricing mode's factor.

    Parameters
    ----------
    baseline, target : Scenario
        Before and after.
    levers : iterable of str, optional
        Levers to split out (default :data:`LEVERS`); the differing levers not
        named are moved together as one ``"other"`` part.

    Returns
    -------
    Attribution
        Parts [USD], totals and change [USD].

    Raises
    ------
    ScenarioError
        For an unknown lever name or a non-scenario argument.
    """
    for name, s in (("baseline", baseline), ("target", target)):
        if not isinstance(s, Scenario):
            raise ScenarioError(name, type(s).__name__, "a Scenario")
    chosen = LEVERS if levers is None else tuple(levers)
    for lever in chosen:
        if lever not in LEVERS:
            raise ScenarioError("levers", lever, "one of " + ", ".join(LEVERS))
    base, tgt = _atoms(baseline), _atoms(target)
    differs = [lv for lv in LEVERS if any(not _same(base[lv][q], tgt[lv][q]) for q in base[lv])]
    players = [[lv] for lv in chosen if lv in differs]
    rest = [lv for lv in differs if lv not in chosen]
    names = [p[0] for p in players]
    if rest:
        players.append(rest)
        names.append(OTHER)
    k = len(players)
    masks = np.arange(1 << k)
    mixed = {}
    for lv in LEVERS:
        owner = next((i for i, group in enumerate(players) if lv in group), None)
        on = ((masks >> owner) & 1).astype(bool) if owner is not None else np.zeros(1 << k, bool)
        mixed[lv] = {q: np.where(on, tgt[lv][q], base[lv][q]) for q in base[lv]}
    totals = np.asarray(compute(**_compose(mixed))["total_usd"], dtype=float)
    parts = dict.fromkeys(chosen, 0.0)
    if rest:
        parts[OTHER] = 0.0
    for name, value in zip(names, _shapley(totals, k) if k else []):
        parts[name] = float(value)
    b, t = float(totals[0]), float(totals[-1])
    return Attribution(parts_usd=parts, baseline_usd=b, target_usd=t, change_usd=t - b)


# ----------------------------------------------------------------- uncertainty
_Z = {"lognormal_90": 1.6448536269514722, "lognormal_50": 0.6744897501960817}


@functools.cache
def _catalog_ranges() -> pd.DataFrame:
    rows = catalog.read_csv("uncertainty.csv")
    df = pd.DataFrame([dict(r) for r in rows]).set_index("id")
    df["low"] = df["low"].astype(float)
    df["high"] = df["high"].astype(float)
    return df


def uncertainty_ranges() -> pd.DataFrame:
    """The uncertain inputs and their sourced intervals (``explorer/data/uncertainty.csv``).

    Returns
    -------
    pandas.DataFrame
        Index ``id``; ``low``, ``high`` (the interval named by
        ``distribution``: ``lognormal_90`` = P5-P95, ``lognormal_50`` =
        P25-P75), ``unit``, ``scale`` (``relative``: a multiplier on the
        scenario's resolved value; ``absolute``: the value itself),
        ``distribution``, ``source``, ``notes``. A copy: edit it and pass it
        as ``ranges=`` to :func:`sensitivity` or :func:`simulate`.
    """
    return _catalog_ranges().copy()


def _check_ranges(ranges: pd.DataFrame | None) -> pd.DataFrame:
    df = uncertainty_ranges() if ranges is None else ranges
    known = set(_catalog_ranges().index)
    for key, row in df.iterrows():
        if key not in known:
            raise ScenarioError("ranges", key, "an uncertain input of uncertainty.csv: " + ", ".join(sorted(known)))
        if row["distribution"] not in _Z:
            raise ScenarioError(f"ranges[{key}].distribution", row["distribution"], "one of " + ", ".join(_Z))
        lo, hi = float(row["low"]), float(row["high"])
        if not (0 < lo <= hi and math.isfinite(hi)):
            raise ScenarioError(f"ranges[{key}]", (lo, hi), "0 < low <= high, finite")
    return df


def _lognormal(row) -> tuple[float, float]:
    """Mean and standard deviation of log(value) for a sourced interval."""
    lo, hi = math.log(float(row["low"])), math.log(float(row["high"]))
    return (lo + hi) / 2.0, (hi - lo) / (2.0 * _Z[row["distribution"]])


def _p5_p95(row) -> tuple[float, float]:
    mu, sigma = _lognormal(row)
    z = _Z["lognormal_90"]
    return math.exp(mu - z * sigma), math.exp(mu + z * sigma)


def _applies(key: str, s: Scenario) -> bool:
    return key != "experiments" or s.experiments_multiplier > 1.0


def _apply(atoms: dict, key: str, value, scale: str) -> None:
    """Set uncertain input ``key`` in ``atoms`` (in place) to ``value`` (a multiplier when relative)."""
    rel = scale == "relative"
    if key == "accelerator_price":
        pr = atoms[PRICING]
        atoms[ACCELERATOR]["od_ref"] = atoms[ACCELERATOR]["od_ref"] * value
        pr["rate"] = pr["rate"] * value
        atoms[ACCELERATOR]["a_ref"] = atoms[ACCELERATOR]["a_ref"] * value
        atoms[ACCELERATOR]["h_ref"] = atoms[ACCELERATOR]["h_ref"] * value
    elif key == "electricity":
        atoms[REGION]["electricity"] = atoms[REGION]["electricity"] * value
    elif key == "mfu":
        acc, m = atoms[ACCELERATOR], atoms[MFU]
        # the MFU cap applies to the composed value: scale both the default and any override
        acc["mfu_base"] = acc["mfu_base"] * value
        m["mfu"] = np.minimum(m["mfu"] * value, 1.0)
        cap = 1.0 / (atoms[PRECISION]["mfu_factor"] * atoms[ARCHITECTURE]["moe_factor"])
        acc["mfu_base"] = np.minimum(acc["mfu_base"], cap)
    elif key == "other_losses":
        atoms[RELIABILITY]["other"] = np.maximum(atoms[RELIABILITY]["other"] * value, 1.0)
    elif key == "failure_rate":
        atoms[RELIABILITY]["failure"] = atoms[RELIABILITY]["failure"] * value
    elif key == "spot_preemption":
        atoms[PRICING]["spot_failures"] = atoms[PRICING]["spot_failures"] * value
    elif key == "experiments":
        mult = atoms[EXPERIMENTS]["mult"]
        atoms[EXPERIMENTS]["mult"] = np.maximum(mult * value if rel else np.full(np.shape(value), 1.0) * value, 1.0)
    else:  # pragma: no cover - _check_ranges refuses unknown ids
        raise KeyError(key)


def _broadcast_atoms(atoms: dict, n: int) -> dict:
    return {lv: {q: np.full(n, v, dtype=float) for q, v in group.items()} for lv, group in atoms.items()}


def sensitivity(scenario: Scenario, ranges: pd.DataFrame | None = None) -> pd.DataFrame:
    """Total cost as each uncertain input moves across its 90% interval, the others at their point values.

    Parameters
    ----------
    scenario : Scenario
        The point scenario.
    ranges : pandas.DataFrame, optional
        Intervals as returned by :func:`uncertainty_ranges` (default: the
        sourced catalog); rows may be dropped or edited.

    Returns
    -------
    pandas.DataFrame
        One row per uncertain input that applies to the scenario, sorted by
        ``swing_usd``, widest first: ``name``; ``low``, ``high`` the input's
        P5 and P95 (a multiplier on the resolved value when ``scale`` is
        relative, else the value) [``unit``]; ``total_usd_low``,
        ``total_usd_high`` the total cost at each end [USD]; ``swing_usd`` =
        ``|high - low|`` of the total [USD]; ``unit``, ``scale``, ``source``.
        ``attrs["point_usd"]`` holds the point total [USD].
    """
    df = _check_ranges(ranges)
    keys = [k for k in df.index if _applies(k, scenario)]
    atoms = _broadcast_atoms(_atoms(scenario), 2 * len(keys) + 1)
    ends = []
    for i, key in enumerate(keys):
        row = df.loc[key]
        lo, hi = _p5_p95(row)
        ends.append((lo, hi))
        for j, value in ((1 + 2 * i, lo), (2 + 2 * i, hi)):
            one = {lv: {q: v[j:j + 1] for q, v in g.items()} for lv, g in atoms.items()}
            _apply(one, key, np.asarray([value]), row["scale"])
            for lv, g in one.items():
                for q, v in g.items():
                    atoms[lv][q][j] = v[0]
    totals = np.asarray(compute(**_compose(atoms))["total_usd"], dtype=float)
    out = pd.DataFrame({
        "name": keys,
        "low": [e[0] for e in ends],
        "high": [e[1] for e in ends],
        "total_usd_low": totals[1::2][:len(keys)],
        "total_usd_high": totals[2::2][:len(keys)],
    })
    out["swing_usd"] = (out["total_usd_high"] - out["total_usd_low"]).abs()
    out["unit"] = [df.loc[k, "unit"] for k in keys]
    out["scale"] = [df.loc[k, "scale"] for k in keys]
    out["source"] = [df.loc[k, "source"] for k in keys]
    out = out.sort_values("swing_usd", ascending=False, kind="stable").reset_index(drop=True)
    out.attrs["point_usd"] = float(totals[0])
    return out


@dataclass(frozen=True, eq=False)
class Simulation:
    """Monte Carlo draws of a scenario's cost (:func:`simulate`).

    Attributes
    ----------
    totals_usd : ndarray
        Total cost of each draw [USD], shape (n,).
    dimensions_usd : dict of str -> ndarray
        Each cost dimension of each draw [USD].
    percentiles : pandas.DataFrame
        Rows ``P5``, ``P50``, ``P95``; columns ``total_usd`` and
        ``<dimension>_usd`` [USD] (each column's own percentiles).
    point_usd : float
        Total of the point scenario, all inputs at their values [USD].
    draws : dict of str -> ndarray
        The drawn uncertain inputs (multipliers or values, as in the ranges).
    n, seed : int
        Number of draws and the seed of :func:`numpy.random.default_rng`.
    final_runs_usd : ndarray or None
        Machine cost of the final run of each draw [USD], shape (n,) (what the
        history chart plots; see :attr:`run_interval_usd`).
    """

    totals_usd: np.ndarray
    dimensions_usd: dict
    percentiles: pd.DataFrame
    point_usd: float
    draws: dict = field(default_factory=dict)
    n: int = 0
    seed: int | None = 0
    final_runs_usd: np.ndarray | None = None

    def probability_over(self, budget_usd: float) -> float:
        """Fraction of draws whose total exceeds ``budget_usd`` [1]."""
        return float(np.mean(self.totals_usd > budget_usd))

    @property
    def interval_usd(self) -> tuple[float, float]:
        """P5 and P95 of the total [USD]."""
        return float(self.percentiles.loc["P5", "total_usd"]), float(self.percentiles.loc["P95", "total_usd"])

    @property
    def run_interval_usd(self) -> tuple[float, float]:
        """P5 and P95 of the final run's machine cost [USD] (NaN, NaN without those draws)."""
        if self.final_runs_usd is None or not self.final_runs_usd.size:
            return math.nan, math.nan
        low, high = np.percentile(self.final_runs_usd, [5, 95])
        return float(low), float(high)


MAX_DRAWS = 2_000_000


def simulate(scenario: Scenario, n: int = 10_000, seed: int | None = 0,
             ranges: pd.DataFrame | None = None) -> Simulation:
    """Monte Carlo of the total cost over the uncertain inputs.

    Each uncertain input of the ranges (accelerator price, electricity, MFU,
    other losses, failure rate, spot preemption, experiments multiplier) is
    drawn independently from a lognormal fitted to its sourced interval,
    Epoch AI's manner of treating cost inputs (Cottier et al. 2024, arXiv
    2405.21015); relative inputs multiply the scenario's resolved value. All
    draws go through one vectorized :func:`~explorer.model.compute` call.
    With every interval collapsed (low = high = 1) each draw equals the
    point estimate.

    Parameters
    ----------
    scenario : Scenario
    n : int
        Number of draws [1], 1 to 2,000,000.
    seed : int or None
        Seed of :func:`numpy.random.default_rng`; the same seed gives the same draws.
    ranges : pandas.DataFrame, optional
        As :func:`uncertainty_ranges` (default: the sourced catalog).

    Returns
    -------
    Simulation

    Examples
    --------
    >>> from explorer import Scenario, simulate
    >>> sim = simulate(Scenario(gpus=512), n=2000, seed=1)
    >>> lo, hi = sim.interval_usd
    >>> bool(lo < sim.point_usd < hi)
    True
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= MAX_DRAWS:
        raise ScenarioError("n", n, f"a whole number of draws in [1, {MAX_DRAWS:,}]")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise ScenarioError("seed", seed, "a whole number >= 0, or None")
    df = _check_ranges(ranges)
    rng = np.random.default_rng(seed)
    base = _atoms(scenario)
    atoms = _broadcast_atoms(base, n)
    draws = {}
    for key in df.index:
        if not _applies(key, scenario):
            continue
        row = df.loc[key]
        mu, sigma = _lognormal(row)
        value = np.exp(mu + sigma * rng.standard_normal(n))
        draws[key] = value
        _apply(atoms, key, value, row["scale"])
    out = compute(**_compose(atoms))
    point = float(np.asarray(compute(**_compose(base))["total_usd"]))
    totals = np.asarray(out["total_usd"], dtype=float)
    dims = {d: np.broadcast_to(np.asarray(out[f"cost_{d}_usd"], float), totals.shape) for d in COST_DIMENSIONS}
    table = {"total_usd": totals, **{f"{d}_usd": v for d, v in dims.items()}}
    pct = pd.DataFrame({k: np.percentile(v, [5, 50, 95]) for k, v in table.items()}, index=["P5", "P50", "P95"])
    runs = np.broadcast_to(np.asarray(out["final_run_usd"], float), totals.shape)
    return Simulation(totals_usd=totals, dimensions_usd=dims, percentiles=pct, point_usd=point, draws=draws, n=n,
                      seed=seed, final_runs_usd=runs)


# ----------------------------------------------------------------- budget
def budget_verdict(total_usd: float, budget_usd: float) -> str:
    """``"within"`` (total <= budget), ``"over"`` (up to :data:`REVIEW_RATIO` x budget) or ``"review"`` (beyond).

    >>> [budget_verdict(t, 100.0) for t in (100.0, 100.5, 120.0, 120.5)]
    ['within', 'over', 'over', 'review']
    """
    if not (isinstance(budget_usd, (int, float)) and not isinstance(budget_usd, bool) and math.isfinite(budget_usd)
            and budget_usd > 0):
        raise ScenarioError("budget_usd", budget_usd, "a positive number of USD")
    if total_usd <= budget_usd:
        return "within"
    if total_usd <= REVIEW_RATIO * budget_usd:
        return "over"
    return "review"


@dataclass(frozen=True)
class BudgetStatus:
    """Budget check of a scenario (:func:`budget_status`).

    Attributes
    ----------
    status : {"within", "over", "review"}
        Point total within the budget, over it, or over :data:`REVIEW_RATIO`
        times it (review, the first source article's rule).
    total_usd, budget_usd : float
        Point total and budget [USD]; ``ratio`` = total / budget [1].
    probability_over : float
        Share of the simulation's draws above the budget [1].
    gpus_needed : int
        GPUs the run uses (given) or needs to meet its deadline [1].
    gpu_cap : float or None
        The cap checked against [1].
    deadline_feasible : bool or None
        For a deadline scenario: the deadline can be met with at most
        ``gpu_cap`` GPUs (and the model's largest cluster); None when the
        scenario gives a GPU count instead.
    within_gpu_cap : bool or None
        ``gpus_needed <= gpu_cap``; None without a cap.
    days : float
        Wall-clock of the final run at ``gpus_needed`` [days].
    """

    status: str
    total_usd: float
    budget_usd: float
    ratio: float
    probability_over: float
    gpus_needed: int
    gpu_cap: float | None
    deadline_feasible: bool | None
    within_gpu_cap: bool | None
    days: float


def budget_status(scenario: Scenario, budget_usd: float, simulation: Simulation | None = None,
                  gpu_cap: float | None = None) -> BudgetStatus:
    """Budget guardrails of a scenario: status, probability of overrun, deadline under a GPU cap.

    Parameters
    ----------
    scenario : Scenario
    budget_usd : float
        Budget of the whole project [USD], > 0.
    simulation : Simulation, optional
        Draws for ``probability_over``; default ``simulate(scenario, n=10_000, seed=0)``.
    gpu_cap : float, optional
        Most GPUs available [1]; for a deadline scenario the GPU count is
        solved under this cap.

    Returns
    -------
    BudgetStatus

    Examples
    --------
    >>> from explorer import Scenario, budget_status
    >>> s = Scenario(gpus=512)
    >>> budget_status(s, 1e12).status
    'within'
    """
    if gpu_cap is not None and not (isinstance(gpu_cap, (int, float)) and not isinstance(gpu_cap, bool)
                                    and math.isfinite(gpu_cap) and gpu_cap >= 1):
        raise ScenarioError("gpu_cap", gpu_cap, "a number of GPUs >= 1")
    e = estimate(scenario)
    status = budget_verdict(e.total_usd, budget_usd)
    if simulation is None:
        simulation = simulate(scenario, n=10_000, seed=0)
    feasible = None
    gpus, days = e.gpus, e.wall_days
    if scenario.deadline_days is not None:
        inputs = resolve(scenario).inputs
        if gpu_cap is not None:
            inputs["max_gpus"] = min(float(inputs["max_gpus"]), float(gpu_cap))
        out = compute(**inputs)
        feasible = not bool(np.asarray(out["deadline_impossible"]))
        gpus, days = int(np.asarray(out["gpus"])), float(np.asarray(out["wall_days"]))
    within = None if gpu_cap is None else bool(gpus <= gpu_cap)
    return BudgetStatus(status=status, total_usd=e.total_usd, budget_usd=float(budget_usd),
                        ratio=e.total_usd / budget_usd, probability_over=simulation.probability_over(budget_usd),
                        gpus_needed=gpus, gpu_cap=None if gpu_cap is None else float(gpu_cap),
                        deadline_feasible=feasible, within_gpu_cap=within, days=days)


# ----------------------------------------------------------------- savings recipe
@functools.cache
def _recipe_value(name: str) -> float:
    for row in catalog.read_csv("recipe_steps.csv"):
        if row["id"] == name:
            return float(row["value"])
    raise KeyError(name)


def _cheaper_region(s: Scenario) -> str | None:
    here = catalog.region(s.region)
    price = s.electricity_usd_per_kwh if s.electricity_usd_per_kwh is not None else here.electricity_usd_per_kwh
    same = [r for r in catalog.regions().values()
            if r.country == here.country and r.electricity_usd_per_kwh is not None]
    if not same:
        return None
    best = min(same, key=lambda r: r.electricity_usd_per_kwh)
    if price is not None and best.electricity_usd_per_kwh >= price:
        return None
    return best.id if best.id != s.region else None


def savings_recipe(scenario: Scenario) -> list[tuple[str, Scenario]]:
    """The second source article's levers applied one after another, where they apply.

    Steps, each on top of the previous one (a step that does not apply is left out):

    1. ``fp8``: FP8 training where the accelerator has an FP8 peak and the
       run trains wider.
    2. ``moe``: a dense model becomes an MoE of the same total size with 1/4
       of it active (the article's LLaMA-MoE figure, ``recipe_steps.csv``).
    3. ``data_cleaning``: not applied: no sourced figure for the tokens a
       cleaned corpus saves (see ``recipe_claims.csv``); listed by
       :func:`recipe_verdicts` as unknown.
    4. ``spot`` or ``reserved_1y``: spot for jobs up to ``spot_large_job_gpus``
       GPUs, else a 1-year reservation (spot capacity is rarely usable for
       large synchronous jobs); owned hardware is left as it is.
    5. ``region_west``: the region with the cheapest sourced electricity in
       the same country.
    6. ``continual_pretrain``: a pre-training run becomes continual
       pre-training on a quarter of the tokens (Code Llama on Llama 2,
       ``recipe_steps.csv``); this assumes a suitable base model exists.

    Returns
    -------
    list of (str, Scenario)
        Step id and the scenario after it, in order; the first entry is
        ``("baseline", scenario)``.
    """
    steps = [("baseline", scenario)]
    s = scenario
    acc = catalog.accelerator(s.gpu)
    if "fp8" in acc.peak_tflops and s.precision in ("fp32", "tf32", "bf16", "fp16"):
        s = s.replace(precision="fp8")
        steps.append(("fp8", s))
    if s.architecture == "dense" and s.training_kind in ("pretrain", "continual_pretrain"):
        s = s.replace(architecture="moe", active_params=s.params * _recipe_value("moe_active_fraction"),
                      experts=None, top_k=None)
        steps.append(("moe", s))
    gpus = estimate(s).gpus
    if s.pricing in ("on_demand", "reserved_1y") and gpus <= default("spot_large_job_gpus"):
        s = s.replace(pricing="spot")
        steps.append(("spot", s))
    elif s.pricing == "on_demand":
        s = s.replace(pricing="reserved_1y")
        steps.append(("reserved_1y", s))
    west = _cheaper_region(s)
    if west is not None and s.electricity_usd_per_kwh is None:
        s = s.replace(region=west)
        steps.append(("region_west", s))
    if s.training_kind == "pretrain":
        s = s.replace(training_kind="continual_pretrain",
                      tokens=max(s.tokens * _recipe_value("continual_pretrain_token_fraction"), 1e6))
        steps.append(("continual_pretrain", s))
    return steps


def _claims() -> dict[str, Mapping[str, str]]:
    return {r["id"]: r for r in catalog.read_csv("recipe_claims.csv")}


def _verdict(saving: float, low: float | None, high: float | None) -> str:
    if not math.isfinite(saving):
        return "unknown"
    if low is None and high is None:
        return "unknown"
    tol = 1e-9
    if low is not None and saving < low - tol:
        return "smaller than claimed"
    if high is not None and saving > high + tol:
        return "larger than claimed"
    return "as claimed"


def recipe_verdicts(scenario: Scenario) -> pd.DataFrame:
    """What each step of :func:`savings_recipe` saves, against the article's claimed range.

    Each step's saving is measured on the claim's metric (``final_run_usd``,
    the machine cost of the final run, or ``energy_usd``) relative to the
    scenario before that step; the FP8 + MoE + data-cleaning row is the
    combined saving of those steps. The by-lever Shapley parts of the whole
    recipe (:func:`attribute` from the first to the last scenario) are given
    in ``shapley_usd``.

    Returns
    -------
    pandas.DataFrame
        Index: claim id (``recipe_claims.csv``). Columns ``lever``,
        ``applied`` (bool), ``metric``, ``before_usd``, ``after_usd`` [USD],
        ``saving`` (fraction of ``before``) [1], ``claimed_low``,
        ``claimed_high`` [1] (NaN = unbounded or unknown), ``verdict``
        (``as claimed``, ``smaller than claimed``, ``larger than claimed``,
        ``not applied``, ``unknown``), ``shapley_usd`` [USD, negative = saving],
        ``claim_en``, ``source``.
    """
    steps = savings_recipe(scenario)
    ests = {name: estimate(s) for name, s in steps}
    order = [name for name, _ in steps]
    attribution = attribute(steps[0][1], steps[-1][1]) if len(steps) > 1 else None

    def metric(e, m):
        return e.final_run_usd if m == "final_run_usd" else e.cost_usd[m.removesuffix("_usd")]

    rows = {}
    for cid, claim in _claims().items():
        low = float(claim["low"]) if claim["low"].strip() else None
        high = float(claim["high"]) if claim["high"].strip() else None
        m = claim["metric"]
        if cid == "fp8_moe_data":
            done = [n for n in ("fp8", "moe") if n in order]
            first, last = (order[order.index(done[0]) - 1], done[-1]) if done else (None, None)
        else:
            step = "spot" if cid == "spot" else cid
            first, last = (order[order.index(step) - 1], step) if step in order else (None, None)
        if first is None:
            before = after = saving = math.nan
            verdict = "unknown" if cid == "data_cleaning" else "not applied"
        else:
            before, after = metric(ests[first], m), metric(ests[last], m)
            saving = 1.0 - after / before if before else math.nan
            verdict = _verdict(saving, low, high)
            if m == "energy_usd" and before == 0.0:
                verdict = "not testable (energy is in the cloud rate)"
        lever = claim["lever"]
        shap = math.nan
        if attribution is not None and first is not None:
            group = (PRECISION, ARCHITECTURE, DATA) if lever == "combined" else (lever,)
            shap = sum(attribution.parts_usd.get(lv, 0.0) for lv in group)
        rows[cid] = dict(lever=lever, applied=first is not None, metric=m, before_usd=before, after_usd=after,
                         saving=saving, claimed_low=_nan(low), claimed_high=_nan(high), verdict=verdict,
                         shapley_usd=shap, claim_en=claim["claim_en"], source=claim["source"])
    df = pd.DataFrame.from_dict(rows, orient="index")
    df.index.name = "claim"
    return df
