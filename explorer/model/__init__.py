"""The cost model: from a :class:`~explorer.scenario.Scenario` to an :class:`Estimate`.

* :mod:`~explorer.model.formulas`: one pure, cited, vectorized function per formula.
* :func:`compute` (:mod:`~explorer.model.vectorized`) chains them over numpy
  arrays, so a sweep over a million scenarios is one call.
* :mod:`~explorer.model.resolve`: catalogs and named defaults to the inputs of
  :func:`compute`, with the assumptions used (each with its source).
* :mod:`~explorer.model.checks`: warnings about a result.
* :mod:`~explorer.model.layout`: the run's parallel layout, global batch and steps at its GPU count.
* :func:`estimate`: resolve, compute once, lay out, check.

numpy only: no pandas, matplotlib or widgets here.
"""

from explorer.model.estimating import COST_DIMENSIONS, HIDDEN_PARTS, Estimate, currency_per_usd, estimate, json_safe
from explorer.model.formulas import DAYS_PER_MONTH, HOURS_PER_YEAR
from explorer.model.layout import Layout, choose_layout
from explorer.model.resolve import Assumption, resolve, resolve_mfu
from explorer.model.vectorized import compute

__all__ = ["Estimate", "estimate", "currency_per_usd", "compute", "COST_DIMENSIONS", "HIDDEN_PARTS", "resolve_mfu", "resolve", "Assumption",
           "HOURS_PER_YEAR", "DAYS_PER_MONTH", "json_safe", "Layout", "choose_layout"]
