"""The second source article's savings recipe, step by step, against its claimed ranges."""

from __future__ import annotations

import math

import pandas as pd

from explorer import catalog
from explorer.analysis.attribution import attribute
from explorer.analysis.levers import ARCHITECTURE, DATA, PRECISION, REGION, lever_atoms, nan_if_none
from explorer.catalog import default
from explorer.model import estimate
from explorer.scenario import Scenario

__all__ = ["savings_recipe", "recipe_verdicts"]

def _recipe_value(name: str) -> float:
    """A step's sourced value (``recipe_steps.csv``, read by :func:`explorer.claims.recipe_steps`: one table for the
    recipe and the fact-check)."""
    from explorer import claims as C

    return C.recipe_steps()[name]


#: Article B's move west is about western China (宁夏, 内蒙古 data centres): its claim is judged only for a scenario
#: in China; elsewhere the step's saving is shown and the claim is "not applied".
CLAIM_COUNTRY = "China"


def _country(s: Scenario) -> str:
    return catalog.region(s.region).country


def _cheaper_region(s: Scenario) -> str | None:
    here = catalog.region(s.region)
    price = s.electricity_usd_per_kwh if s.electricity_usd_per_kwh is not None else here.electricity_usd_per_kwh
    same = [r for r in catalog.regions().values()
            if r.country == here.country and r.electricity_usd_per_kwh is not None]
    if not same:
        return None
    best = min(same, key=lambda r: r.electricity_usd_per_kwh or math.inf)  # each has a price (filtered above)
    if price is not None and (best.electricity_usd_per_kwh or math.inf) >= price:
        return None
    return best.id if best.id != s.region else None


def savings_recipe(scenario: Scenario) -> list[tuple[str, Scenario]]:
    """The second source article's levers applied one after another, where they apply.

    Steps, each on top of the previous one (a step that does not apply is left out):

    1. ``fp8``: FP8 training where the accelerator has an FP8 peak and the
       run trains wider.
    2. ``moe``: a dense model becomes an MoE of the same total size with
       48.5% of it active (LLaMA-MoE, the model the article cites: 3.0-3.5B of
       6.7B; ``recipe_steps.csv``, :func:`explorer.claims.moe_step`).
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
       ``recipe_steps.csv``); this assumes a suitable base model exists. A
       smaller domain-adaptation corpus saves more (Meditron-70B: 48.1B
       tokens, 97.6%), the other end of the sourced range.

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
        from explorer import claims as C

        s = C.moe_step(s)
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

    def metric(name: str, m: str) -> float:
        if m == "electricity_usd_per_kwh":
            return float(lever_atoms(scen[name])[REGION]["electricity"])
        e = ests[name]
        return float(e.final_run_usd if m == "final_run_usd" else e.cost_usd[m.removesuffix("_usd")])

    rows = {}
    for cid, claim in C.recipe_claims().items():
        low, high = claim["low"], claim["high"]
        m = claim["metric"]
        if cid == "fp8_moe_data":
            # the claim is the combination: judged only where both FP8 and the MoE step apply
            done = [n for n in ("fp8", "moe") if n in order]
            first, last = (order[order.index(done[0]) - 1], done[-1]) if len(done) == 2 else (None, None)
        else:
            first, last = (order[order.index(cid) - 1], cid) if cid in order else (None, None)
        sourced = C.sourced_saving(cid, scenario.gpu)
        judged = first is not None and not (cid == "region_west" and _country(scenario) != CLAIM_COUNTRY)
        if first is None:
            before = after = saving = math.nan
            verdict = C.CANNOT_CHECK if low is None and high is None and sourced is None else C.NOT_APPLIED
        else:
            if cid == "spot" and scen[first].pricing != "on_demand":
                # "spot costs 10-30% of on-demand": measured against on-demand, whatever the step started from
                before = estimate(scen[first].replace(pricing="on_demand")).final_run_usd
            else:
                before = metric(first, m)
            assert last is not None  # set with first
            after = metric(last, m)
            saving = 1.0 - after / before if before else math.nan
            verdict = C.saving_verdict(saving, low, high, sourced) if judged else C.NOT_APPLIED
        lever = claim["lever"]
        shap = math.nan
        if attribution is not None and first is not None:
            group = (PRECISION, ARCHITECTURE, DATA) if lever == "combined" else (lever,)
            shap = sum(v for k, v in attribution.parts_usd.items() if set(k.split("+")) & set(group))
        rows[cid] = dict(lever=lever, applied=first is not None, metric=m, before_usd=before, after_usd=after,
                         saving=saving, claimed_low=nan_if_none(low), claimed_high=nan_if_none(high),
                         sourced_low=nan_if_none(sourced[0] if sourced else None),
                         sourced_high=nan_if_none(sourced[1] if sourced else None), verdict=verdict,
                         claim_id=claim["claim_id"],
                         fact_check=C.fact_check_verdict(verdict) if verdict != C.NOT_APPLIED else "",
                         shapley_usd=shap, claim_en=claim["claim_en"], source=claim["source"])
    df = pd.DataFrame.from_dict(rows, orient="index")
    df.index.name = "claim"
    return df
