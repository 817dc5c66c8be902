"""Historical training cost of notable AI models: data, trend fit, projection.

The first source article (section 二) tells the story of training cost rising
from about $900 (2017) to $78M and $191M (2023) and quotes a forecast of
$10B-$100B "within three years". This module makes that story checkable:

* :func:`load_history` reads ``explorer/data/history.csv`` (cloud-price,
  developer-stated and other estimates, one row each with its date, dollar
  year, method, scope and source) and ``explorer/data/epoch_frontier.csv``:
  Epoch AI's amortized hardware + energy cost (and, for 35 of them, the
  cloud-price cost) of the final run of each of its 82 frontier models (Epoch AI, training-cost-trends, CC BY 4.0; Cottier et
  al. 2024 [1]_). The selection rule is Epoch's, not ours: a model is frontier if
  it was among the 10 largest by training compute at its publication date
  (the repository's ``top_n = 10`` selection, ``frontier_systems_by_top_n.json``,
  fine-tunes excluded).
* :func:`fit_trend` fits a log-linear trend of cost against date for one
  method and subset (default: frontier models from 2016 on, amortized
  hardware + energy, as Epoch AI does), with a bootstrap interval, the
  doubling time and the years at which the trend crosses $1B, $10B and $100B.
  :func:`fit_periods` fits the two periods reported side by side: 2016-2023
  (the paper's, 2.4x/yr, 90% CI 2.0-2.9x [1]_) and 2016-2025 (all of Epoch's data).
  The cloud-price series is its own trend (``method="cloud"``), never mixed in.
* :func:`check_dated_costs` compares each dated figure of the article
  (``explorer/data/article_claims.csv``) with the sourced value (the AI Index
  2024 [2]_ and developer figures in ``history.csv``, Epoch AI's set).
* :func:`render_report` is what ``python -m explorer history`` prints.

The data and the fit are in :mod:`explorer.history.trend`, the claims check and the report in
:mod:`explorer.history.report`; this package exports the public names of both.

The methods are never mixed in one fit: for the same run they differ by
3-20x (Gemini 1.0 Ultra: $191M at cloud prices, $30M amortized). Costs are
compared in one dollar year, deflated by the producer price index Epoch AI uses [3]_.

References
----------
.. [1] Cottier, B., Rahman, R., Fattorini, L., Maslej, N., Owen, D. (2024).
   "The rising costs of training frontier AI models". arXiv:2405.21015.
.. [2] Stanford HAI (2024). "AI Index Report 2024", chapter 1.
.. [3] U.S. Bureau of Labor Statistics, Producer Price Index by Industry:
   Data Processing, Hosting and Related Services (PCU518210518210), via FRED;
   the deflator used by Epoch AI (github.com/epoch-research/training-cost-trends,
   data/PCU518210518210.csv).
"""

from explorer.history.report import check_dated_costs, render_report
from explorer.history.trend import (
    EPOCH_GROWTH_CI90,
    EPOCH_GROWTH_CI95,
    EPOCH_GROWTH_PER_YEAR,
    FIT_START_YEAR,
    METHODS,
    PERIODS,
    SCOPES,
    SELECTION_RULE,
    TARGET_DOLLAR_YEAR,
    THRESHOLDS_USD,
    Crossing,
    decimal_year,
    deflator,
    fit_acquisition_periods,
    fit_log_linear,
    fit_periods,
    fit_trend,
    fittable_methods,
    load_claims,
    load_history,
    select_points,
    TrendFit,
)

# Names of the module this package was, kept for the code that reads them (claims, plots, tests)
from explorer.history.report import CONSISTENT_FACTOR as CONSISTENT_FACTOR  # noqa: E402
from explorer.history.report import FLAG_FACTOR as FLAG_FACTOR  # noqa: E402
from explorer.history.trend import (  # noqa: E402
    ACQUISITION as ACQUISITION,
    ACQUISITION_WORDS as ACQUISITION_WORDS,
    CI_LEVEL as CI_LEVEL,
    EPOCH_REFERENCE as EPOCH_REFERENCE,
    MIN_POINTS as MIN_POINTS,
    N_BOOT as N_BOOT,
    PPI_PCU518210518210 as PPI_PCU518210518210,
    SEED as SEED,
)

__all__ = [
    "METHODS",
    "SCOPES",
    "TARGET_DOLLAR_YEAR",
    "THRESHOLDS_USD",
    "EPOCH_GROWTH_PER_YEAR",
    "EPOCH_GROWTH_CI95",
    "EPOCH_GROWTH_CI90",
    "FIT_START_YEAR",
    "PERIODS",
    "SELECTION_RULE",
    "fit_periods",
    "Crossing",
    "TrendFit",
    "load_history",
    "load_claims",
    "decimal_year",
    "deflator",
    "fit_log_linear",
    "fit_trend",
    "fit_acquisition_periods",
    "fittable_methods",
    "select_points",
    "check_dated_costs",
    "render_report",
]
