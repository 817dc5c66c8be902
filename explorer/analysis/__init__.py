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
* :func:`plan` and :func:`plan_curve`: the largest compute-optimal model a budget
  pays for (about 20 tokens per parameter, Hoffmann et al. 2022), whole project
  or final run, with a deadline and a GPU cap.
* :func:`savings_recipe` and :func:`recipe_verdicts`: the second source
  article's levers applied one after another, each saving set against the
  article's claimed range (``explorer/data/recipe_claims.csv``).

Modules by concern: :mod:`~explorer.analysis.comparison` (:func:`compare`,
:func:`what_if`), :mod:`~explorer.analysis.levers` (a scenario split into the
quantities each lever owns), :mod:`~explorer.analysis.attribution`,
:mod:`~explorer.analysis.uncertainty` (sensitivity, Monte Carlo),
:mod:`~explorer.analysis.budget`, :mod:`~explorer.analysis.recipe`. Every
public name is importable from this package.

>>> from explorer import Scenario, attribute
>>> a = attribute(Scenario(gpus=512), Scenario(gpus=512, precision="fp8", pricing="reserved_1y"))
>>> abs(sum(a.parts_usd.values()) - a.change_usd) <= 1e-9 * abs(a.change_usd)
True
>>> a.parts_usd["region"]
0.0
"""

from explorer.analysis.attribution import Attribution, attribute, joint_key
from explorer.analysis.budget import REVIEW_RATIO, BudgetStatus, budget_status, budget_verdict
from explorer.analysis.comparison import COMPARE_COLUMNS, WHAT_IF_LEVERS, basis_warnings, compare, what_if
from explorer.analysis.levers import (ACCELERATOR, ARCHITECTURE, CLUSTER, DATA, EXPERIMENTS, LEVERS, MFU, MODEL_SIZE,
                                      OTHER, PRECISION, PRICING, REGION, RELIABILITY, TEAM, TOKENS, TRAINING_KIND)
from explorer.analysis.plan import PLAN_SCOPES, TOKENS_PER_PARAM, Plan, plan, plan_curve
from explorer.analysis.recipe import recipe_verdicts, savings_recipe
from explorer.analysis.uncertainty import MAX_DRAWS, Simulation, sensitivity, simulate, uncertainty_ranges

__all__ = [
    "LEVERS", "PRECISION", "ARCHITECTURE", "MODEL_SIZE", "TOKENS", "ACCELERATOR", "CLUSTER", "PRICING",
    "REGION", "MFU", "RELIABILITY", "DATA", "TEAM", "EXPERIMENTS", "TRAINING_KIND", "OTHER",
    "REVIEW_RATIO", "COMPARE_COLUMNS",
    "basis_warnings", "compare", "Attribution", "attribute", "joint_key", "uncertainty_ranges", "sensitivity",
    "Simulation", "simulate",
    "BudgetStatus", "budget_status", "budget_verdict", "savings_recipe", "recipe_verdicts", "WHAT_IF_LEVERS", "what_if",
    "MAX_DRAWS", "PLAN_SCOPES", "TOKENS_PER_PARAM", "Plan", "plan", "plan_curve",
]
