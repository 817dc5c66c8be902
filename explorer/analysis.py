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

from explorer import catalog, prices
from explorer.catalog import default
from explorer.errors import ScenarioError
from explorer.model import COST_DIMENSIONS, estimate
from explorer.model.resolve import country_price_region, owned_terms, reference_precision, resolve
from explorer.model.vectorized import compute
from explorer.scenario import Scenario

__all__ = [
    "LEVERS", "PRECISION", "ARCHITECTURE", "MODEL_SIZE", "TOKENS", "ACCELERATOR", "CLUSTER", "PRICING",
    "REGION", "MFU", "RELIABILITY", "DATA", "TEAM", "EXPERIMENTS", "TRAINING_KIND", "OTHER",
    "REVIEW_RATIO", "COMPARE_COLUMNS",
    "basis_warnings", "compare", "Attribution", "attribute", "joint_key", "uncertainty_ranges", "sensitivity",
    "Simulation", "simulate",
    "BudgetStatus", "budget_status", "budget_verdict", "savings_recipe", "recipe_verdicts", "WHAT_IF_LEVERS", "what_if",
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
#: (first source article, 《大模型训练成本全维度拆解与优化指南》, section 五, step 3).
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


def basis_warnings(scenarios) -> list[str]:
    """Warnings for a comparison of accelerators priced on different bases.

    Two accelerators compared on two price bases differ by who sells them as
    much as by the hardware (a hyperscaler's list price is about 3x a
    specialist cloud's for the same H100; explorer.prices). Empty when every
    scenario uses one basis or one accelerator.
    """
    scenarios = list(scenarios.values()) if isinstance(scenarios, Mapping) else list(scenarios)
    bases = sorted({s.pricing for s in scenarios if s.rate_usd_per_gpu_hour is None})
    gpus = sorted({s.gpu for s in scenarios})
    if len(bases) > 1 and len(gpus) > 1:
        return [f"These scenarios compare accelerators ({', '.join(gpus)}) on different price bases "
                f"({', '.join(bases)}): part of the difference is the seller, not the hardware; put them on one "
                "basis to compare the hardware."]
    return []


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
        ``df.attrs["warnings"]``: :func:`basis_warnings` of the scenarios.

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
    df.attrs["warnings"] = basis_warnings(scenarios)
    return df


# ----------------------------------------------------------------- attribution
def _nan(x) -> float:
    return math.nan if x is None else float(x)


def _owned_reference(s: Scenario) -> tuple[float, float]:
    """Owned capital and other hardware per GPU-hour of ``s``'s accelerator with the default owned terms [USD/GPU-hour]."""
    acc = catalog.accelerator(s.gpu)
    plain = Scenario(gpu=acc.id, precision=s.precision, pricing="owned")
    terms = owned_terms(plain, acc)
    return terms["accelerator_usd_per_gpu_hour"], terms["hardware_usd_per_gpu_hour"]


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
    on_demand = prices.quote(acc.id, "on_demand").usd_per_gpu_hour
    od_ref = on_demand if math.isfinite(on_demand) and on_demand > 0 else 1.0
    a_ref, h_ref = _owned_reference(s)
    if not (math.isfinite(a_ref) and a_ref > 0 and math.isfinite(h_ref) and h_ref > 0):
        # no catalog purchase price (resolve() estimates one from a peer): the pricing lever carries the value
        a_ref = h_ref = 1.0
    base_failure = s.failure_rate_per_gpu_hour if s.failure_rate_per_gpu_hour is not None \
        else default("failure_rate_per_gpu_hour")
    reg = catalog.region(s.region)
    electricity = s.electricity_usd_per_kwh if s.electricity_usd_per_kwh is not None else reg.electricity_usd_per_kwh
    if electricity is None and country_price_region(reg) is not None:  # as resolve() does: the country's price
        electricity = country_price_region(reg).electricity_usd_per_kwh
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
                          above=x["recovery_above_gpus"], write_mem_h=x["checkpoint_write_hours_in_memory"],
                          restart_mem_h=x["restart_hours_in_memory"],
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
        recovery_above_gpus=rel["above"],
        checkpoint_write_hours_in_memory=rel["write_mem_h"],
        restart_hours_in_memory=rel["restart_mem_h"],
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
    inseparable : tuple of dict
        Levers whose parts cannot be separated because a scenario mixing them
        has no finite cost (e.g. a 1-day deadline with the baseline's 405B
        parameters cannot be met): each dict has ``levers``, ``key`` (their
        joint key in ``parts_usd``, :func:`joint_key`), ``from_target`` and
        ``from_baseline`` (an infeasible mix) and ``reason`` (``deadline`` or
        ``undefined``). :meth:`note` says it in words.
    """

    parts_usd: dict[str, float]
    baseline_usd: float
    target_usd: float
    change_usd: float
    inseparable: tuple = ()

    def note(self, language: str = "en") -> str:
        """In words, which levers could not be separated and why ("" when every lever has its own part).

        One sentence per joint part (``labels.csv`` ``attribution_inseparable``), e.g. "Model size, Training
        tokens and GPU count / deadline cannot be separated: with the target's Model size and the baseline's
        ... the run cannot meet its deadline. Their joint part is one bar (model_size+tokens+cluster)."
        """
        from explorer.text import label

        def names(levers):
            return label("list_and", language).join(label(f"lever_{lv}", language) for lv in levers)

        out = []
        for group in self.inseparable:
            out.append(label("attribution_inseparable", language).format(
                levers=names(group["levers"]), on=names(group["from_target"]), off=names(group["from_baseline"]),
                reason=label(f"attribution_reason_{group['reason']}", language), key=joint_key(group["levers"])))
        return " ".join(out)

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


def joint_key(levers) -> str:
    """Key of the part of levers that cannot be separated: ``"model_size+tokens+cluster"``."""
    return "+".join(levers)


def _consistent(groups: list[list[int]], k: int) -> np.ndarray:
    """Coalitions (bitmasks over ``k`` players) in which each group is wholly on or wholly off."""
    masks = np.arange(1 << k)
    ok = np.ones(1 << k, bool)
    for g in groups:
        bits = [(masks >> i) & 1 for i in g]
        for b in bits[1:]:
            ok &= b == bits[0]
    return ok


def _merge_infeasible(values: np.ndarray, k: int) -> list[list[int]]:
    """Group players until every coalition the Shapley value needs has a finite value.

    A mixed scenario can be infeasible although both ends are valid (405B
    parameters on 15.6T tokens with a 1-day deadline: no cluster is large
    enough), so its total is NaN and so would be the Shapley parts. Greedily,
    the two groups whose merging removes the most non-finite coalitions are
    merged (ties: the first in lever order) until none is left; with every
    player in one group only the two ends remain, which are finite.
    """
    groups = [[i] for i in range(k)]
    masks = np.arange(1 << k)
    finite = np.isfinite(values)
    while True:
        bad = _consistent(groups, k) & ~finite
        if not bad.any():
            return groups
        best, pair = -1, None
        for a in range(len(groups)):
            for b in range(a + 1, len(groups)):
                split = ((masks >> groups[a][0]) & 1) != ((masks >> groups[b][0]) & 1)
                n = int(np.count_nonzero(bad & split))
                if n > best:
                    best, pair = n, (a, b)
        a, b = pair
        groups[a] = sorted(groups[a] + groups[b])
        del groups[b]


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
    out = compute(**_compose(mixed))
    totals = np.asarray(out["total_usd"], dtype=float)
    b, t = float(totals[0]), float(totals[-1])
    for name, value, s in (("baseline", b, baseline), ("target", t, target)):
        if not math.isfinite(value):
            why = "its deadline cannot be met" if bool(np.asarray(out["deadline_impossible"]).ravel()[
                0 if name == "baseline" else -1]) else "its total cost is not defined"
            raise ScenarioError(name, why, "a scenario with a finite total cost")
    groups = _merge_infeasible(totals, k) if k else []
    impossible = np.broadcast_to(np.asarray(out["deadline_impossible"], bool), totals.shape)
    inseparable = []
    keys = []
    for g in groups:
        levers = [lv for i in g for lv in ([names[i]] if names[i] != OTHER else [OTHER])]
        keys.append(names[g[0]] if len(g) == 1 else joint_key(levers))
        if len(g) > 1:
            # an example of a mixed scenario of this group that has no finite cost
            # (one that mixes the group's levers, with the fewest levers switched to the target)
            masks = np.arange(1 << k)
            on = sum(((masks >> i) & 1) for i in g)
            mixed_group = (on > 0) & (on < len(g))
            bad = np.flatnonzero(mixed_group & ~np.isfinite(totals))
            m = int(bad[np.argmin([bin(int(x)).count("1") for x in bad])]) if bad.size else 0
            inseparable.append(dict(
                levers=tuple(levers), key=keys[-1],
                from_target=tuple(names[i] for i in g if (m >> i) & 1),
                from_baseline=tuple(names[i] for i in g if not (m >> i) & 1),
                reason="deadline" if bad.size and bool(impossible[m]) else "undefined"))
    parts = {lv: 0.0 for lv in chosen if not any(lv in grp["levers"] for grp in inseparable)}
    if rest and not any(OTHER in grp["levers"] for grp in inseparable):
        parts[OTHER] = 0.0
    if groups:
        bits = np.array([sum(1 << i for i in g) for g in groups])
        gm = np.arange(1 << len(groups))
        player_masks = np.zeros(1 << len(groups), dtype=int)
        for j, bit in enumerate(bits):
            player_masks |= np.where((gm >> j) & 1, bit, 0)
        for key, value in zip(keys, _shapley(totals[player_masks], len(groups))):
            parts[key] = float(value)
    ordered = {}
    for lv in (*LEVERS, OTHER):
        if lv in parts:
            ordered[lv] = parts[lv]
        for grp in inseparable:
            if grp["levers"][0] == lv:
                ordered[grp["key"]] = parts[grp["key"]]
    return Attribution(parts_usd=ordered, baseline_usd=b, target_usd=t, change_usd=t - b,
                       inseparable=tuple(inseparable))


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
    """Mean and standard deviation of log(multiplier) for a sourced interval: centred on the point value.

    One central value per quantity: the point estimate's value (the named
    default or the scenario's) is the median of every draw, so the mean of
    ``log`` is 0; the interval gives only the spread, ``sigma = ln(high / low)
    / (2 z)``. An interval whose own middle is not the point's value (other
    losses: 0.862-1.322 around 1.16, middle 1.067) is read for its width only.
    For an ``absolute`` interval (the experiments multiplier) the draw is the
    same multiplier on the scenario's own value.
    """
    lo, hi = math.log(float(row["low"])), math.log(float(row["high"]))
    return 0.0, (hi - lo) / (2.0 * _Z[row["distribution"]])


def _p5_p95(row) -> tuple[float, float]:
    mu, sigma = _lognormal(row)
    z = _Z["lognormal_90"]
    return math.exp(mu - z * sigma), math.exp(mu + z * sigma)


def _half_width(key: str, atoms: Mapping[str, Mapping[str, float]]) -> float:
    """Largest |log(multiplier)| a draw of ``key`` may take: the distance to its physical bound [1].

    MFU is bounded above by the highest MFU seen in published runs
    (``calibrated_mfu_max``, 0.55, against the 16-bit peak; 1.0 for a typed
    MFU at or above it); the other-losses factor and the experiments
    multiplier below by 1. The draw is truncated at the same distance on the
    other side, so it stays symmetric in log space around the point value and
    the median of the total stays on the point estimate (a one-sided bound
    would move it up: +2.6% on the default scenario). Infinite for the other
    inputs.
    """
    if key == "mfu":
        override = float(np.asarray(atoms[MFU]["override"]).flat[0]) > 0
        m0 = float(np.asarray(atoms[MFU]["mfu"] if override else atoms[ACCELERATOR]["mfu_base"]).flat[0])
        ceiling = default("calibrated_mfu_max")
        return math.log((ceiling if m0 < ceiling else 1.0) / m0) if 0 < m0 < 1 else 0.0
    if key == "other_losses":
        return math.log(max(float(np.asarray(atoms[RELIABILITY]["other"]).flat[0]), 1.0))
    if key == "experiments":
        return math.log(max(float(np.asarray(atoms[EXPERIMENTS]["mult"]).flat[0]), 1.0))
    return math.inf


def _truncated_normal(rng: np.random.Generator, n: int, k: float) -> np.ndarray:
    """``n`` standard normal draws truncated to ``[-k, k]`` (redrawn until inside) [1]."""
    z = rng.standard_normal(n)
    if not math.isfinite(k):
        return z
    if k <= 0.0:
        return np.zeros(n)
    bad = np.flatnonzero(np.abs(z) > k)
    while bad.size:
        z[bad] = rng.standard_normal(bad.size)
        bad = bad[np.abs(z[bad]) > k]
    return z


def _applies(key: str, s: Scenario) -> bool:
    if key == "spot_discount":  # the spot rate's spread; a typed rate is what is paid
        return s.pricing == "spot" and s.rate_usd_per_gpu_hour is None
    return key != "experiments" or s.experiments_multiplier_effective > 1.0


def _apply(atoms: dict, key: str, value, scale: str) -> None:
    """Set uncertain input ``key`` in ``atoms`` (in place) to ``value`` (a multiplier when relative)."""
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
        # bounded by the highest MFU seen in published runs (calibrated_mfu_max, against the 16-bit peak),
        # or the scenario's own higher value: draws above it are censored at it (the median is unchanged)
        ceiling = default("calibrated_mfu_max")
        base = acc["mfu_base"]
        acc["mfu_base"] = np.minimum(base * value, np.maximum(ceiling, base))
        m["mfu"] = np.minimum(m["mfu"] * value, np.maximum(ceiling, m["mfu"]))
    elif key == "other_losses":
        atoms[RELIABILITY]["other"] = np.maximum(atoms[RELIABILITY]["other"] * value, 1.0)
    elif key == "failure_rate":
        atoms[RELIABILITY]["failure"] = atoms[RELIABILITY]["failure"] * value
    elif key == "spot_discount":
        pr = atoms[PRICING]
        pr["rate_factor"] = pr["rate_factor"] * value
    elif key == "spot_preemption":
        atoms[PRICING]["spot_failures"] = atoms[PRICING]["spot_failures"] * value
    elif key == "experiments":
        # absolute intervals are read for their width only (see _lognormal): a multiplier on the scenario's value
        atoms[EXPERIMENTS]["mult"] = np.maximum(atoms[EXPERIMENTS]["mult"] * value, 1.0)
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
    base = _atoms(scenario)
    atoms = _broadcast_atoms(base, 2 * len(keys) + 1)
    ends = []
    for i, key in enumerate(keys):
        row = df.loc[key]
        lo, hi = _p5_p95(row)
        bound = _half_width(key, base)
        lo, hi = max(lo, math.exp(-bound)), min(hi, math.exp(bound))
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
        k = _half_width(key, base) / sigma if sigma > 0 else math.inf
        value = np.exp(mu + sigma * _truncated_normal(rng, n, k))
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
    median_usd : float
        Median (P50) of the simulated totals [USD]; the draws are centred on
        the point estimate, so it is within a few percent of ``total_usd``.
    note : str
        Why ``status`` and ``probability_over`` read differently, when they
        do (the point total within the budget but more than half the draws
        over it, or the reverse); empty otherwise.
    experiment_usd : float
        Machine cost of one experiment the size of the final run [USD]
        (``Estimate.final_run_usd``): what the first source article's rule
        checks ("单次实验超过预算的120%即触发复核", a single experiment over 120% of
        its budget goes to review). The project total is ``total_usd``.
    experiment_budget_usd : float or None
        Budget of one experiment [USD], as given.
    experiment_status : {"within", "over", "review"} or None
        The rule applied to ``experiment_usd`` against ``experiment_budget_usd``;
        None without an experiment budget.
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
    median_usd: float = math.nan
    note: str = ""
    experiment_usd: float = math.nan
    experiment_budget_usd: float | None = None
    experiment_status: str | None = None


def budget_status(scenario: Scenario, budget_usd: float, simulation: Simulation | None = None,
                  gpu_cap: float | None = None, experiment_budget_usd: float | None = None) -> BudgetStatus:
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
    experiment_budget_usd : float, optional
        Budget of one experiment [USD], > 0: the 120% review rule is applied
        to the final run's machine cost against it (``experiment_status``).

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
    p_over = simulation.probability_over(budget_usd)
    median = float(np.median(simulation.totals_usd))
    note = ""
    if (status == "within") == (p_over > 0.5) and math.isfinite(e.total_usd):
        note = (f"The status compares the point estimate ({e.total_usd / budget_usd:.1%} of the budget) with the "
                f"budget; P(over) counts the draws, whose median is {median / e.total_usd - 1:+.1%} from the point "
                "estimate: at a budget this close to the estimate the two can fall on either side.")
    exp_status = None
    if experiment_budget_usd is not None:
        exp_status = budget_verdict(e.final_run_usd, experiment_budget_usd)
    return BudgetStatus(status=status, total_usd=e.total_usd, budget_usd=float(budget_usd),
                        ratio=e.total_usd / budget_usd, probability_over=p_over,
                        gpus_needed=gpus, gpu_cap=None if gpu_cap is None else float(gpu_cap),
                        deadline_feasible=feasible, within_gpu_cap=within, days=days, median_usd=median, note=note,
                        experiment_usd=e.final_run_usd,
                        experiment_budget_usd=None if experiment_budget_usd is None else float(experiment_budget_usd),
                        experiment_status=exp_status)


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


def recipe_verdicts(scenario: Scenario) -> pd.DataFrame:
    """What each step of :func:`savings_recipe` saves, against the article's claimed range.

    Each step's saving is measured on the claim's metric relative to the
    scenario before that step: ``final_run_usd`` (the machine cost of the final
    run) or, for the move west, ``electricity_usd_per_kwh`` (the electricity
    price, the lever the article names, as the fact-check measures it); the
    FP8 + MoE + data-cleaning row is the combined saving of those steps. The
    verdict comes from the fact-check's own rule and ranges
    (:func:`explorer.claims.saving_verdict`, ``recipe_claims.csv``,
    :func:`explorer.claims.sourced_saving`), so the two never disagree on the
    same number. The by-lever Shapley parts of the whole recipe
    (:func:`attribute` from the first to the last scenario) are given in
    ``shapley_usd``.

    Returns
    -------
    pandas.DataFrame
        Index: claim id (``recipe_claims.csv``). Columns ``lever``,
        ``applied`` (bool), ``metric``, ``before_usd``, ``after_usd`` [USD, or
        USD/kWh for the electricity price], ``saving`` (fraction of
        ``before``) [1], ``claimed_low``, ``claimed_high`` [1] (NaN =
        unbounded or no figure), ``sourced_low``, ``sourced_high`` [1] (the
        range of sourced figures; NaN = none), ``verdict`` (``as claimed``,
        ``consistent with the claim``, ``smaller than claimed``, ``larger than
        claimed``, ``cannot be checked``, ``not applied``), ``claim_id`` and
        ``fact_check`` (the row of :func:`explorer.claims.check_claims` and the
        verdict this saving means there), ``shapley_usd`` [USD, negative =
        saving], ``claim_en``, ``source``.
    """
    from explorer import claims as C

    steps = savings_recipe(scenario)
    ests = {name: estimate(s) for name, s in steps}
    scen = dict(steps)
    order = [name for name, _ in steps]
    attribution = attribute(steps[0][1], steps[-1][1]) if len(steps) > 1 else None

    def metric(name, m):
        if m == "electricity_usd_per_kwh":
            return float(_atoms(scen[name])[REGION]["electricity"])
        e = ests[name]
        return e.final_run_usd if m == "final_run_usd" else e.cost_usd[m.removesuffix("_usd")]

    rows = {}
    for cid, claim in C.recipe_claims().items():
        low, high = claim["low"], claim["high"]
        m = claim["metric"]
        if cid == "fp8_moe_data":
            done = [n for n in ("fp8", "moe") if n in order]
            first, last = (order[order.index(done[0]) - 1], done[-1]) if done else (None, None)
        else:
            first, last = (order[order.index(cid) - 1], cid) if cid in order else (None, None)
        sourced = C.sourced_saving(cid, scenario.gpu)
        if first is None:
            before = after = saving = math.nan
            verdict = C.CANNOT_CHECK if low is None and high is None and sourced is None else C.NOT_APPLIED
        else:
            before, after = metric(first, m), metric(last, m)
            saving = 1.0 - after / before if before else math.nan
            verdict = C.saving_verdict(saving, low, high, sourced)
        lever = claim["lever"]
        shap = math.nan
        if attribution is not None and first is not None:
            group = (PRECISION, ARCHITECTURE, DATA) if lever == "combined" else (lever,)
            shap = sum(v for k, v in attribution.parts_usd.items() if set(k.split("+")) & set(group))
        rows[cid] = dict(lever=lever, applied=first is not None, metric=m, before_usd=before, after_usd=after,
                         saving=saving, claimed_low=_nan(low), claimed_high=_nan(high),
                         sourced_low=_nan(sourced[0] if sourced else None),
                         sourced_high=_nan(sourced[1] if sourced else None), verdict=verdict,
                         claim_id=claim["claim_id"],
                         fact_check=C.fact_check_verdict(verdict) if verdict != C.NOT_APPLIED else "",
                         shapley_usd=shap, claim_en=claim["claim_en"], source=claim["source"])
    df = pd.DataFrame.from_dict(rows, orient="index")
    df.index.name = "claim"
    return df


# ---------------------------------------------------------------------------------------------- what-if grid
#: Levers a what-if grid can vary: Scenario fields whose values are a closed set.
WHAT_IF_LEVERS: tuple[str, ...] = ("pricing", "precision", "region", "gpu", "architecture", "facility", "recovery",
                                   "training_kind")


def what_if(scenario: Scenario, levers: Mapping[str, Iterable]) -> pd.DataFrame:
    """Every combination of the values of two or three levers, computed in one vectorized call.

    Each combination is ``scenario`` with those fields changed; each is
    resolved from the catalogs (cheap, per combination), and the model then
    runs once over arrays of all of them (:func:`explorer.model.vectorized.compute`),
    not once per cell.

    Parameters
    ----------
    scenario : Scenario
        The starting point; fields not named in ``levers`` keep its values.
    levers : mapping of str to iterable
        Field name (one of :data:`WHAT_IF_LEVERS`) -> the values to try.

    Returns
    -------
    pandas.DataFrame
        One row per combination, in the order of ``itertools.product``: a column
        per lever, then ``total_usd`` (whole project), ``final_run_usd``, the six
        ``<dimension>_usd`` [USD], ``days``, ``gpus``, ``gpu_hours``,
        ``energy_mwh``, ``co2_tonnes``, ``usd_per_1m_tokens``, ``vs_start``
        (total / the starting scenario's total [1]) and ``note``: "" or why the
        combination is not possible (its numbers are then NaN). ``attrs["warnings"]``:
        :func:`basis_warnings` of the possible combinations.

    Raises
    ------
    ScenarioError
        For an unknown lever, a lever without values, or more than 1,000 combinations.

    Examples
    --------
    >>> from explorer import Scenario
    >>> grid = what_if(Scenario(), {"pricing": ["on_demand", "spot"], "precision": ["bf16", "fp8"]})
    >>> len(grid), list(grid.columns[:3])
    (4, ['pricing', 'precision', 'total_usd'])
    """
    import itertools

    names = list(levers)
    for name in names:
        if name not in WHAT_IF_LEVERS:
            raise ScenarioError("levers", name, f"one of {', '.join(WHAT_IF_LEVERS)}")
    values = [list(dict.fromkeys(levers[n])) for n in names]
    if not names or any(not v for v in values):
        raise ScenarioError("levers", {n: v for n, v in zip(names, values)}, "at least one value per lever")
    combos = list(itertools.product(*values))
    if len(combos) > 1000:
        raise ScenarioError("levers", len(combos), "at most 1,000 combinations")
    start = scenario.to_dict()
    inputs, notes, ok = [], [], []
    for combo in combos:
        try:
            s = Scenario.from_dict({**start, **dict(zip(names, combo))})
            inputs.append(resolve(s).inputs)
            notes.append("")
            ok.append(s)
        except (ScenarioError, ValueError) as exc:
            inputs.append(None)
            notes.append(str(exc))
    good = [x for x in inputs if x is not None]
    out_cols = ["total_usd", "final_run_usd", *(f"{d}_usd" for d in COST_DIMENSIONS), "days", "gpus", "gpu_hours",
                "energy_mwh", "co2_tonnes", "usd_per_1m_tokens"]
    table = pd.DataFrame({n: [c[i] for c in combos] for i, n in enumerate(names)})
    for col in out_cols:
        table[col] = np.nan
    if good:
        arrays = {k: np.array([x[k] for x in good]) for k in good[0]}
        v = compute(**arrays)  # the one call over every possible combination
        rows = np.array([x is not None for x in inputs])
        computed = {"total_usd": v["total_usd"], "final_run_usd": v["final_run_usd"],
                    **{f"{d}_usd": v[f"cost_{d}_usd"] for d in COST_DIMENSIONS}, "days": v["wall_days"],
                    "gpus": v["gpus"], "gpu_hours": v["gpu_hours"], "energy_mwh": v["energy_mwh"],
                    "co2_tonnes": v["co2_tonnes"], "usd_per_1m_tokens": v["usd_per_1m_tokens"]}
        for col, arr in computed.items():
            table.loc[rows, col] = np.asarray(arr, dtype=float)
        impossible = np.zeros(len(combos), dtype=bool)
        impossible[rows] = np.asarray(v["deadline_impossible"], dtype=bool)
        for i in np.flatnonzero(impossible):
            notes[i] = "the deadline cannot be met"
            table.loc[i, out_cols] = np.nan
    table["vs_start"] = table["total_usd"] / estimate(scenario).total_usd
    table["note"] = notes
    table.attrs["warnings"] = basis_warnings(ok) if ok else []
    return table
