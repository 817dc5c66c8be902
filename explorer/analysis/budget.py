"""Budget guardrails: within / over / review, the probability of overrun, a deadline under a GPU cap."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from explorer.analysis.uncertainty import Simulation, simulate
from explorer.errors import ScenarioError
from explorer.messages import Message
from explorer.model import estimate
from explorer.model.resolve import resolve
from explorer.model.vectorized import compute
from explorer.scenario import Scenario

__all__ = ["REVIEW_RATIO", "AT_RISK_PROBABILITY", "budget_verdict", "BudgetStatus", "budget_status"]

#: Ratio of cost to budget above which a run goes to review: "单次实验超过预算的120%即触发复核"
#: (first source article, 《大模型训练成本全维度拆解与优化指南》, section 五, step 3).
REVIEW_RATIO = 1.2
#: Probability of exceeding the budget [1] at or above which a point estimate within the budget is
#: "at risk" (:func:`budget_status` and the app's budget view read this one constant). Our threshold,
#: not a sourced figure: one chance in five.
AT_RISK_PROBABILITY = 0.2


def budget_verdict(total_usd: float, budget_usd: float) -> str:
    """``"within"`` (total <= budget), ``"over"`` (up to :data:`REVIEW_RATIO` x budget) or ``"review"`` (beyond).

    >>> [budget_verdict(t, 100.0) for t in (100.0, 100.5, 120.0, 120.5)]
    ['within', 'over', 'over', 'review']
    """
    if not (isinstance(budget_usd, (int, float)) and not isinstance(budget_usd, bool) and math.isfinite(budget_usd)
            and budget_usd > 0):
        raise ScenarioError("budget_usd", budget_usd, Message("allowed_budget"))
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
    status : {"within", "at_risk", "over", "review"}
        Point total within the budget, within it but with a probability of
        exceeding it of at least :data:`AT_RISK_PROBABILITY` (``at_risk``, with a
        ``note``), over it, or over :data:`REVIEW_RATIO` times it (review, the
        first source article's rule).
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
        Median (P50) of the simulated totals [USD]. It falls where the sourced
        input distributions put it (MFU bounded per accelerator generation,
        :func:`explorer.analysis.simulate`), not on ``total_usd`` by construction.
    note : Message or str
        For ``at_risk``: the probability of going over and the threshold
        (``budget_status_at_risk``). For ``over`` or ``review`` with at most
        half the draws over the budget: why the two read differently
        (``budget_status_disagrees``). Empty otherwise.
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

    Notes
    -----
    In a notebook the check prints as a short table (``_repr_html_``); ``repr`` is one line.
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
    note: str = ""  # a Message (explorer.messages) when not blank
    experiment_usd: float = math.nan
    experiment_budget_usd: float | None = None
    experiment_status: str | None = None

    def _rows(self) -> list[tuple[str, str]]:
        """(name, value) of the check, as :meth:`__repr__` and :meth:`_repr_html_` print them."""
        from explorer.text import money

        rows = [("status", self.status), ("total (point)", money(self.total_usd)), ("budget", money(self.budget_usd)),
                ("total / budget", f"{self.ratio:.2f}x"), ("P(over budget)", f"{self.probability_over:.1%}"),
                ("median of the draws", money(self.median_usd)), ("GPUs needed", f"{self.gpus_needed:,}"),
                ("days", f"{self.days:.3g}")]
        if self.gpu_cap is not None:
            rows.append(("GPU cap", f"{self.gpu_cap:,.0f}" + ("" if self.within_gpu_cap else " (exceeded)")))
        if self.deadline_feasible is not None:
            rows.append(("deadline feasible", "yes" if self.deadline_feasible else "no"))
        if self.experiment_status is not None:
            rows.append(("one experiment", f"{money(self.experiment_usd)}: {self.experiment_status}"))
        if self.note:
            rows.append(("note", str(self.note)))
        return rows

    def __repr__(self) -> str:
        from explorer.text import money

        return (f"BudgetStatus({self.status}: {money(self.total_usd)} of {money(self.budget_usd)} "
                f"(x{self.ratio:.2f}), P(over) {self.probability_over:.1%}, {self.gpus_needed:,} GPUs, "
                f"{self.days:.3g} days)")

    def _repr_html_(self) -> str:
        from explorer.text import rows_html

        return rows_html("Budget status", self._rows())


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
        raise ScenarioError("gpu_cap", gpu_cap, Message("allowed_gpu_cap"))
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
    if status == "within" and p_over >= AT_RISK_PROBABILITY:
        status = "at_risk"
        note = Message("budget_status_at_risk", p=p_over, threshold=AT_RISK_PROBABILITY,
                       share=e.total_usd / budget_usd)
    elif status != "within" and p_over <= 0.5 and math.isfinite(e.total_usd):
        note = Message("budget_status_disagrees", share=e.total_usd / budget_usd,
                       median_offset=median / e.total_usd - 1)
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
