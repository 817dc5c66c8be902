"""llm-cost-explorer: what it costs to train a large language model, and why.

>>> from explorer import Scenario, estimate
>>> e = estimate(Scenario(params=70e9, tokens=2e12, gpu="a100-80gb", gpus=2048))
>>> e.wall_days > 0
True
"""

from explorer.errors import ScenarioError
from explorer.model import COST_DIMENSIONS, Estimate, estimate
from explorer.scenario import Scenario

__all__ = ["Scenario", "Estimate", "estimate", "ScenarioError", "COST_DIMENSIONS",
           "compare", "attribute", "Attribution", "sensitivity", "simulate", "Simulation", "budget_status",
           "BudgetStatus", "savings_recipe", "recipe_verdicts", "plan", "Plan"]
__version__ = "0.1.0"

#: Names served lazily from :mod:`explorer.analysis` (it imports pandas; the model must not need it).
_ANALYSIS = ("compare", "attribute", "Attribution", "sensitivity", "simulate", "Simulation", "budget_status",
             "BudgetStatus", "savings_recipe", "recipe_verdicts", "plan", "Plan")


def __getattr__(name: str):
    if name in _ANALYSIS:
        from explorer import analysis

        return getattr(analysis, name)
    raise AttributeError(f"module 'explorer' has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), *_ANALYSIS])
