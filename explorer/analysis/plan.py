"""Plan from a budget: the largest compute-optimal model a budget pays for, and the curve of size against budget.

"What can I train for $5M by June?" is the estimate turned around. For a budget, a base scenario (accelerator,
price basis, region, team, ...), optionally a deadline and a GPU cap, :func:`plan` finds the largest model of
``params`` parameters trained compute-optimally on ``tokens_per_param x params`` tokens whose cost, on the chosen
scope, stays within the budget and which the cluster can run:

* **compute-optimal split**: about 20 tokens per parameter, Hoffmann et al. (2022, "Training Compute-Optimal Large
  Language Models", arXiv 2203.15556), whose other two methods and Besiroglu et al.'s refit of the third (2024,
  arXiv 2404.10102; lesson 3 of the workshop) put the optimum there;
* **scope** ``"project"`` (default): the whole project's cost as :func:`~explorer.model.estimate` counts it
  (experiments, people, data, storage, failures: the six dimensions), or ``"final_run"``: the final run alone;
* **the cluster** (issue 38): without a deadline the planner picks it, the cheapest cluster on which the run ends
  within ``plan_longest_run_days`` (118 days, the longest published final pre-training run: BLOOM, defaults.csv),
  never above ``gpu_cap``; with a deadline, the cluster the model solves for that deadline, which must not exceed
  ``gpu_cap``; with ``cluster="base"``, the base's GPU count (capped at ``gpu_cap``). A model that does not fit in
  the cluster's memory, or a deadline the cluster cannot meet, is not affordable at any price. The plan says
  which limit binds, and warns when a longer run or more GPUs would buy a larger model.

The cost of a scenario grows with its size (the monotone law of ``tests/model/test_properties.py``) and so does
the cluster it needs, so "affordable and runnable" holds for every size below the answer and for none above it:
a bisection in log10 of the size finds the boundary to 0.1%.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, cast

import pandas as pd

from explorer.catalog import default
from explorer.errors import ScenarioError
from explorer.messages import Message
from explorer.model import Estimate, estimate
from explorer.scenario import Scenario, field_spec

__all__ = ["PLAN_SCOPES", "PLAN_CLUSTERS", "TOKENS_PER_PARAM", "Plan", "plan", "plan_curve"]

#: What a plan's budget pays for: the whole project (the six dimensions) or the final run alone.
PLAN_SCOPES = ("project", "final_run")
#: Where a plan's cluster comes from: chosen by the planner (``auto``), or the base's GPU count (``base``).
PLAN_CLUSTERS = ("auto", "base")

#: Compute-optimal training tokens per parameter: about 20 (Hoffmann et al. 2022, arXiv 2203.15556, Table 3
#: and section 3; Besiroglu et al. 2024's refit, arXiv 2404.10102, lands near 20 as well).
TOKENS_PER_PARAM = 20.0

_RELATIVE_PRECISION = 1e-3  # the bisection stops when the size is known to 0.1%

#: What stops a plan, for each reason an estimate is infeasible (explorer.model.INFEASIBLE_REASONS): its memory,
#: its deadline, or a run longer than the longest the model allows (``max_run_years``), deadline or not.
_LIMITS = {"no_fit": "memory", "deadline": "deadline", "too_long": "run_length"}


@dataclass(frozen=True)
class Plan:
    """The largest compute-optimal run a budget pays for.

    Attributes
    ----------
    budget_usd : float
        The budget [USD].
    scope : {"project", "final_run"}
        What the budget pays for.
    tokens_per_param : float
        Training tokens per parameter of the plan [tokens/parameter].
    scenario : Scenario or None
        The planned scenario (``params``, ``tokens`` and the cluster set); None when even the smallest model
        does not fit the budget or the cluster.
    estimate : Estimate or None
        Its estimate.
    cost_usd : float
        Its cost on ``scope`` [USD]; NaN without a plan.
    limited_by : {"budget", "deadline", "gpu_cap", "memory", "run_length", "largest_model"}
        What stops a larger model: the budget, the deadline (no cluster meets it), the GPU cap, the cluster's
        memory (fixed GPU count), the longest run (``max_run_years`` of ``defaults.csv``: a larger model would
        train for longer, whatever the deadline; for a cluster the planner picks, ``plan_longest_run_days`` on the
        largest cluster the model allows), or the largest model a scenario allows.
    cluster : {"auto", "base", "deadline"}
        Where the GPU count came from: picked by the planner, the base's count, or solved for the deadline.
    warnings : tuple of Message
        What the plan assumes that the user should know.
    smallest : Estimate or None
        Without a plan, the estimate of the smallest model tried: why nothing fits (its cost on ``scope``, its
        people, its cluster); None otherwise.

    Notes
    -----
    In a notebook a plan prints as a short table (``_repr_html_``); ``repr`` is one line.
    """

    budget_usd: float
    scope: str
    tokens_per_param: float
    scenario: Scenario | None
    estimate: Estimate | None
    cost_usd: float
    limited_by: str
    warnings: tuple[Message, ...] = ()
    cluster: str = "auto"
    smallest: Estimate | None = None

    def _rows(self) -> list[tuple[str, str]]:
        """(name, value) of the plan's figures, as :meth:`__repr__` and :meth:`_repr_html_` print them."""
        from explorer.text import money, power_of_ten, quantity

        rows = [("budget", money(self.budget_usd)), ("scope", self.scope), ("limited by", self.limited_by)]
        e = self.estimate
        if e is None:
            if self.smallest is not None:
                rows.append(("smallest model costs", money(_cost(self.smallest, self.scope))))
            return rows
        rows[2:2] = [("model", f"{quantity(self.params)} parameters on {quantity(self.tokens)} tokens"),
                     ("compute", f"{power_of_ten(e.train_flop)} FLOP"),
                     ("cluster", f"{int(e.gpus):,} x {e.scenario.gpu}, {e.wall_days:.3g} days ({self.cluster})"),
                     ("cost on scope", money(self.cost_usd)), ("final run", money(e.final_run_usd)),
                     ("whole project", money(e.total_usd))]
        if e.scenario.pricing == "owned" and e.owned:
            rows.append(("hardware to buy", money(float(cast(float, e.owned["capex_usd"])))))
        return rows

    def __repr__(self) -> str:
        if self.estimate is None:
            return f"Plan(budget={self._rows()[0][1]}, scope={self.scope!r}, nothing fits: {self.limited_by})"
        e = self.estimate
        from explorer.text import money, quantity

        return (f"Plan(budget={money(self.budget_usd)}, scope={self.scope!r}: {quantity(self.params)} parameters on "
                f"{quantity(self.tokens)} tokens, {int(e.gpus):,} x {e.scenario.gpu}, {e.wall_days:.3g} days, "
                f"cost {money(self.cost_usd)}, limited by {self.limited_by})")

    def _repr_html_(self) -> str:
        from explorer.text import rows_html

        return rows_html("Plan", self._rows(), self.warnings)

    @property
    def params(self) -> float:
        """Parameters of the planned model; NaN without a plan."""
        return self.scenario.params if self.scenario is not None else math.nan

    @property
    def tokens(self) -> float:
        """Training tokens of the planned model; NaN without a plan."""
        return self.scenario.tokens if self.scenario is not None else math.nan

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: the plan's figures and the planned ``scenario`` (``Scenario.from_dict`` reads it)."""
        e = self.estimate
        return {
            "budget_usd": self.budget_usd, "scope": self.scope, "tokens_per_param": self.tokens_per_param,
            "params": self.params, "tokens": self.tokens, "cost_usd": self.cost_usd, "limited_by": self.limited_by,
            "cluster": self.cluster,
            "gpus": e.gpus if e is not None else None, "wall_days": e.wall_days if e is not None else None,
            "total_usd": e.total_usd if e is not None else None,
            "final_run_usd": e.final_run_usd if e is not None else None,
            "warnings": [str(w) for w in self.warnings],
            "scenario": self.scenario.to_dict() if self.scenario is not None else None,
        }


def _check(budget_usd: object, scope: object, tokens_per_param: object, deadline_days: object,
           gpu_cap: object) -> None:
    if not (isinstance(budget_usd, (int, float)) and not isinstance(budget_usd, bool) and math.isfinite(budget_usd)
            and budget_usd > 0):
        raise ScenarioError("budget_usd", budget_usd, Message("allowed_budget"))
    if scope not in PLAN_SCOPES:
        raise ScenarioError("scope", scope, Message("allowed_choices", choices=PLAN_SCOPES))
    if not (isinstance(tokens_per_param, (int, float)) and not isinstance(tokens_per_param, bool)
            and 1.0 <= tokens_per_param <= 1000.0):
        raise ScenarioError("tokens_per_param", tokens_per_param,
                            Message("allowed_range", bracket="[", lo=1.0, hi=1000.0))
    if gpu_cap is not None and not (isinstance(gpu_cap, (int, float)) and not isinstance(gpu_cap, bool)
                                    and 1 <= gpu_cap <= field_spec("gpus")["max"]):
        raise ScenarioError("gpu_cap", gpu_cap, Message("allowed_range", bracket="[", lo=1,
                                                        hi=field_spec("gpus")["max"]))
    if deadline_days is not None:
        spec = field_spec("deadline_days")
        if not (isinstance(deadline_days, (int, float)) and not isinstance(deadline_days, bool)
                and spec["min"] < deadline_days <= spec["max"]):
            raise ScenarioError("deadline_days", deadline_days,
                                Message("allowed_range", bracket="(", lo=spec["min"], hi=spec["max"]))


def _cost(e: Estimate, scope: str) -> float:
    return e.total_usd if scope == "project" else e.final_run_usd


def plan(budget_usd: float, base: Scenario | None = None, *, scope: str = "project",
         tokens_per_param: float = TOKENS_PER_PARAM, deadline_days: float | None = None,
         gpu_cap: float | None = None, cluster: str = "auto") -> Plan:
    """The largest compute-optimal model ``budget_usd`` pays for on ``base``'s hardware, prices and team.

    Parameters
    ----------
    budget_usd : float
        The budget [USD].
    base : Scenario, optional
        Everything but the size: accelerator, precision, price basis, region, team, ... (default: the
        default scenario). Its ``params`` and ``tokens`` are replaced; its GPU count is the cluster only with
        ``cluster="base"``. Pre-training only (fine-tuning starts from a model whose size is given).
    scope : {"project", "final_run"}
        What the budget pays for (default: the whole project).
    tokens_per_param : float
        Training tokens per parameter [tokens/parameter], in [1, 1000] (default 20, Chinchilla).
    deadline_days : float, optional
        Wall-clock deadline [days]: the model solves the GPU count for it.
    gpu_cap : float, optional
        Most GPUs available; the base's count is capped at it, and a cluster needing more is not affordable.
    cluster : {"auto", "base"}
        Without a deadline: ``auto`` (default) picks the cheapest cluster on which the run ends within
        ``plan_longest_run_days`` [days]; ``base`` keeps the base's GPU count.

    Returns
    -------
    Plan

    Raises
    ------
    ScenarioError
        For a budget that is not a positive number, an unknown scope, a ratio or cap out of range, or a base
        that is not pre-training.

    Examples
    --------
    >>> p = plan(5e6, Scenario(gpu="h100-sxm", gpus=1024), scope="final_run")
    >>> p.limited_by, p.cost_usd <= 5e6, round(p.tokens / p.params)
    ('budget', True, 20)
    """
    base = Scenario() if base is None else base
    if not isinstance(base, Scenario):
        raise ScenarioError("base", base, Message("allowed_a_scenario"))
    _check(budget_usd, scope, tokens_per_param, deadline_days, gpu_cap)
    if cluster not in PLAN_CLUSTERS:
        raise ScenarioError("cluster", cluster, Message("allowed_choices", choices=PLAN_CLUSTERS))
    if base.training_kind != "pretrain":
        raise ScenarioError("training_kind", base.training_kind, Message("allowed_choices", choices=("pretrain",)))
    if deadline_days is None and base.deadline_days is not None:
        deadline_days = base.deadline_days  # the base's own deadline
    source = "deadline" if deadline_days is not None else cluster
    longest = default("plan_longest_run_days")
    if deadline_days is not None:
        base = base.replace(gpus=None, deadline_days=float(deadline_days))
    elif cluster == "auto":  # the cheapest cluster on which the run ends within the longest published run
        base = base.replace(gpus=None, deadline_days=longest)
    elif gpu_cap is not None and base.gpus is not None and base.gpus > gpu_cap:
        base = base.replace(gpus=int(gpu_cap))
    max_gpus = min(default("max_gpus"), gpu_cap if gpu_cap is not None else math.inf)

    lo = max(field_spec("params")["min"], field_spec("tokens")["min"] / tokens_per_param)
    hi = min(field_spec("params")["max"], field_spec("tokens")["max"] / tokens_per_param)
    if base.architecture == "moe" and base.active_params is not None:
        lo = max(lo, base.active_params)

    tokens_lo, tokens_hi = field_spec("tokens")["min"], field_spec("tokens")["max"]

    def attempt(params: float) -> tuple[str | None, Scenario, Estimate]:
        # clamped: at the ends, (max / split) * split can round to a hair past the field's range (1e15 + 0.1)
        s = base.replace(params=params, tokens=min(max(tokens_per_param * params, tokens_lo), tokens_hi))
        e = estimate(s)
        if not (math.isfinite(e.gpus) and e.gpus <= max_gpus):
            beyond = e.gpus > default("max_gpus")
            why = "gpu_cap" if not beyond else {"deadline": "deadline", "auto": "run_length"}.get(source, "gpu_cap")
            return why, s, e
        if e.min_gpus_memory > e.gpus:
            return "memory", s, e
        if not e.feasible:  # a run that cannot happen has no cost: say why, never "the budget"
            why = _LIMITS[e.infeasible_reason]
            return ("run_length" if source == "auto" and why == "deadline" else why), s, e
        cost = _cost(e, scope)
        if not (math.isfinite(cost) and cost <= budget_usd):
            return "budget", s, e
        return None, s, e

    warnings: tuple[Message, ...] = ((Message("plan_moe_split", tokens_per_param=tokens_per_param),)
                                     if base.architecture == "moe" else ())
    why, s, e = attempt(lo)
    if why is not None:
        return Plan(float(budget_usd), scope, float(tokens_per_param), None, None, math.nan, why,
                    warnings + (Message("plan_nothing_fits", params=lo, tokens=tokens_per_param * lo),), source,
                    smallest=e)
    best = (s, e)
    why_hi, s_hi, e_hi = attempt(hi)
    if why_hi is None:
        return Plan(float(budget_usd), scope, float(tokens_per_param), s_hi, e_hi, _cost(e_hi, scope),
                    "largest_model", warnings, source)
    limited_by = why_hi
    lo_x, hi_x = math.log10(lo), math.log10(hi)
    while hi_x - lo_x > math.log10(1 + _RELATIVE_PRECISION):
        mid = (lo_x + hi_x) / 2
        why, s, e = attempt(10.0 ** mid)
        if why is None:
            lo_x, best = mid, (s, e)
        else:
            hi_x, limited_by = mid, why
    s, e = best
    if source == "auto" and limited_by in ("run_length", "gpu_cap"):  # the budget would buy more
        warnings += (Message("plan_cluster_binds", days=longest, gpus=max_gpus, budget=float(budget_usd),
                             cost=_cost(e, scope)),)
    return Plan(float(budget_usd), scope, float(tokens_per_param), s, e, _cost(e, scope), limited_by, warnings,
                source)


def plan_curve(budgets_usd: Iterable[float], base: Scenario | None = None, **options: Any) -> pd.DataFrame:
    """The plan for each budget: the curve of "model size you can afford" against budget.

    Parameters
    ----------
    budgets_usd : iterable of float
        Budgets [USD].
    base : Scenario, optional
        As :func:`plan`.
    **options
        ``scope``, ``tokens_per_param``, ``deadline_days``, ``gpu_cap``, ``cluster``, as :func:`plan`.

    Returns
    -------
    pandas.DataFrame
        One row per budget: ``budget_usd``, ``params``, ``tokens``, ``gpus``, ``wall_days``, ``cost_usd``,
        ``limited_by``.
    """
    rows = []
    for budget in budgets_usd:
        p = plan(budget, base, **options)
        rows.append({"budget_usd": p.budget_usd, "params": p.params, "tokens": p.tokens,
                     "gpus": p.estimate.gpus if p.estimate is not None else math.nan,
                     "wall_days": p.estimate.wall_days if p.estimate is not None else math.nan,
                     "cost_usd": p.cost_usd, "limited_by": p.limited_by})
    return pd.DataFrame(rows, columns=["budget_usd", "params", "tokens", "gpus", "wall_days", "cost_usd",
                                       "limited_by"])
