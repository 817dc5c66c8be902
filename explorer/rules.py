"""Defaults that follow the run: the team, the project's length and an MoE's active share.

Each rule is a least-squares line in log-log space over a small sourced table in
``explorer/data`` (every row with its source), evaluated with its input clipped to
the table's range (the team only from below), so that a default leaves the data it
rests on only where the estimate says so:

- **Team** (``team_sizes.csv``, pre-training rows of large-scale runs, at least
  ``team_fit_min_flop``): listed authors of a published run against its training
  compute, ``ln(authors) = a + b ln(C)``; the default headcount is those authors x
  ``team_fte_per_author`` (Cottier et al. 2024 [1]_ section 2.5.1: the mean
  full-time-equivalent share per listed contributor, 28.5%, since their team cost is
  a sum over contributors). A run smaller than the data takes the team of the
  smallest (said in the assumption); a run larger than the data follows the line
  beyond it, and the estimate warns (:func:`team_beyond_data`). Continual
  pre-training, full fine-tuning and LoRA reuse a base model, so they take the team
  of one sourced project of their kind instead (a LoRA, for which no team was
  found, takes the full fine-tune's).
- **Project months** (the rows with a project length): ``ln(months) = a + b ln(C)``
  for pre-training, the project of the kind otherwise; the model never pays people
  for less than the run itself, nor, by default, for more than ``project_months_max``.
- **MoE active share** (``moe_models.csv``): active over total parameters against
  total parameters, ``ln(share) = a + b ln(N)``: the larger the model, the smaller
  the share (Mixtral 8x7B 28%, Llama 4 Scout 16%, Qwen3-235B 9.4%, DeepSeek-V3 5.5%).

References
----------
.. [1] Cottier, B., Rahman, R., Fattorini, L., Maslej, N., Besiroglu, T., Owen, D. (2024).
   "The rising costs of training frontier AI models". arXiv:2405.21015.
"""

from __future__ import annotations

import functools

import numpy as np

from explorer import catalog

__all__ = ["Fit", "team_fit", "months_fit", "moe_fit", "team_headcount", "project_months", "moe_active_fraction",
           "team_source", "months_source", "moe_source", "reference_project", "team_beyond_data"]

#: The training kind whose sourced project stands in for a kind without one.
_STAND_IN = {"lora": "full_finetune"}


class Fit:
    """A line ``ln(y) = intercept + slope ln(x)`` fitted by least squares, used with x clipped to the data [x].

    Parameters
    ----------
    x, y : array_like
        The data points, all positive, in the units of the rule (e.g. FLOP and authors).
    what : str
        What is fitted against what, in words, for its ``repr`` (``"authors vs FLOP"``).
    extrapolate_up : bool, optional
        Follow the line beyond the largest ``x`` (default False: hold it at the largest).
    """

    def __init__(self, x, y, what: str, extrapolate_up: bool = False):
        self.x, self.y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        self.slope, self.intercept = (float(v) for v in np.polyfit(np.log(self.x), np.log(self.y), 1))
        self.lo, self.hi = float(self.x.min()), float(self.x.max())
        self.what = what
        self.extrapolate_up = extrapolate_up

    def __call__(self, x):
        """The fitted value at ``x`` clipped to the data's range (from below only with ``extrapolate_up``) [y]."""
        upper = np.inf if self.extrapolate_up else self.hi
        return np.exp(self.intercept + self.slope * np.log(np.clip(np.asarray(x, dtype=float), self.lo, upper)))

    def __repr__(self) -> str:
        return f"Fit({self.what}: ln y = {self.intercept:.4g} + {self.slope:.4g} ln x, x in [{self.lo:.3g}, {self.hi:.3g}])"


def _rows(name: str):
    return catalog.read_csv(name)


@functools.cache
def team_fit() -> Fit:
    """Listed authors against training compute [FLOP] over the large-scale pre-training rows of ``team_sizes.csv``.

    The rows of at least ``team_fit_min_flop`` (1e23 FLOP, Epoch AI's large-scale models); the line is followed
    beyond the largest run (the estimate warns, :func:`team_beyond_data`) and held at the smallest below it.

    Returns
    -------
    Fit
        Authors [people] against training compute [FLOP], extrapolated upward.
    """
    floor = catalog.default("team_fit_min_flop")
    rows = [r for r in _rows("team_sizes.csv") if r["training_kind"] == "pretrain" and float(r["train_flop"]) >= floor]
    return Fit([float(r["train_flop"]) for r in rows], [float(r["authors"]) for r in rows], "authors vs FLOP",
               extrapolate_up=True)


def team_beyond_data(train_flop, training_kind: str) -> bool:
    """Whether the default team of a run of ``train_flop`` [FLOP] is extrapolated past the largest published run.

    Parameters
    ----------
    train_flop : float or array_like
        Training compute of the final run [FLOP].
    training_kind : str
        One of :data:`explorer.scenario.TRAINING_KINDS`.

    Returns
    -------
    bool
        True for a pre-training run (the largest of an array) beyond the largest compute of :func:`team_fit`'s
        data; False for any other kind.
    """
    return training_kind == "pretrain" and float(np.max(train_flop)) > team_fit().hi


@functools.cache
def months_fit() -> Fit:
    """Project months against training compute [FLOP] over the pre-training rows with a project length.

    Returns
    -------
    Fit
        Project length [months] against training compute [FLOP], clipped to the data at both ends.
    """
    rows = [r for r in _rows("team_sizes.csv") if r["training_kind"] == "pretrain" and r["project_months"]]
    return Fit([float(r["train_flop"]) for r in rows], [float(r["project_months"]) for r in rows], "months vs FLOP")


@functools.cache
def moe_fit() -> Fit:
    """Active share against total parameters over ``moe_models.csv``.

    Returns
    -------
    Fit
        Active over total parameters [1] against total parameters [1], clipped to the data at both ends.
    """
    rows = _rows("moe_models.csv")
    total = [float(r["params_total"]) for r in rows]
    return Fit(total, [float(r["params_active"]) / n for r, n in zip(rows, total)], "active share vs parameters")


def reference_project(training_kind: str):
    """The sourced row of ``team_sizes.csv`` whose team an adaptation of ``training_kind`` takes.

    Parameters
    ----------
    training_kind : str
        A training kind other than ``"pretrain"`` (``"lora"`` takes the full fine-tune's project).

    Returns
    -------
    mapping
        The first row of ``team_sizes.csv`` of that kind, column name -> cell text.

    Raises
    ------
    StopIteration
        When ``team_sizes.csv`` has no row of the kind.
    """
    kind = _STAND_IN.get(training_kind, training_kind)
    return next(r for r in _rows("team_sizes.csv") if r["training_kind"] == kind)


def team_headcount(train_flop, training_kind: str):
    """Default full-time-equivalent team of a project [people], from its final run's compute [FLOP] and kind.

    Parameters
    ----------
    train_flop : float or array_like
        Training compute of the final run [FLOP].
    training_kind : str
        One of :data:`explorer.scenario.TRAINING_KINDS`.

    Returns
    -------
    float or numpy.ndarray
        The team [people], of the shape of ``train_flop``: ``team_fte_per_author`` x the authors of
        :func:`team_fit` for pre-training, x the authors of :func:`reference_project` otherwise.
    """
    share = catalog.default("team_fte_per_author")
    if training_kind == "pretrain":
        return share * team_fit()(train_flop)
    authors = float(reference_project(training_kind)["authors"])
    return np.full(np.shape(train_flop), share * authors)


def project_months(train_flop, training_kind: str):
    """Default months of people of a project [months], before the run's own length and the cap are applied.

    Parameters
    ----------
    train_flop : float or array_like
        Training compute of the final run [FLOP].
    training_kind : str
        One of :data:`explorer.scenario.TRAINING_KINDS`.

    Returns
    -------
    float or numpy.ndarray
        The project length [months], of the shape of ``train_flop``: :func:`months_fit` for pre-training, the
        months of :func:`reference_project` otherwise.
    """
    if training_kind == "pretrain":
        return months_fit()(train_flop)
    months = float(reference_project(training_kind)["project_months"])
    return np.full(np.shape(train_flop), months)


def moe_active_fraction(params) -> float | np.ndarray:
    """Default active over total parameters of an MoE of ``params`` total parameters [1].

    Parameters
    ----------
    params : float or array_like
        Total parameters [1].

    Returns
    -------
    float or numpy.ndarray
        The active share [1] (:func:`moe_fit`), a float for a scalar ``params``.
    """
    value = moe_fit()(params)
    return float(value) if np.ndim(value) == 0 else value


def team_source(training_kind: str) -> str:
    """How the default team of ``training_kind`` was chosen, with its sources (for the assumptions table).

    Parameters
    ----------
    training_kind : str
        One of :data:`explorer.scenario.TRAINING_KINDS`.

    Returns
    -------
    str
        The rule in one English sentence, starting ``"Rule: "``.
    """
    share = catalog.default("team_fte_per_author")
    if training_kind == "pretrain":
        f = team_fit()
        return (f"Rule: {share:.1%} (Cottier et al. 2024, mean FTE share per listed contributor) x authors = "
                f"exp({f.intercept:.3f} + {f.slope:.3f} ln FLOP), the least-squares line over the authors and compute "
                f"of {len(f.x)} published large-scale pre-training runs of {f.lo:.3g}-{f.hi:.3g} FLOP (team_sizes.csv); a "
                f"smaller run takes the team at {f.lo:.3g} FLOP, a larger one follows the line beyond the data")
    row = reference_project(training_kind)
    stand_in = " (no LoRA team found: the full fine-tune's)" if training_kind in _STAND_IN else ""
    return (f"Rule: {share:.1%} (Cottier et al. 2024) x the {row['authors']} authors of {row['project']}"
            f"{stand_in}; {row['source']}")


def months_source(training_kind: str) -> str:
    """How the default project length of ``training_kind`` was chosen, with its sources.

    Parameters
    ----------
    training_kind : str
        One of :data:`explorer.scenario.TRAINING_KINDS`.

    Returns
    -------
    str
        The rule in one English sentence, starting ``"Rule: "``.
    """
    cap = catalog.default("project_months_max")
    if training_kind == "pretrain":
        f = months_fit()
        body = (f"exp({f.intercept:.3f} + {f.slope:.3f} ln FLOP), the least-squares line over {len(f.x)} sourced "
                f"project lengths (team_sizes.csv: GPT-3, OPT-175B, GPT-4; Cottier et al. 2024), compute clipped to "
                f"{f.lo:.3g}-{f.hi:.3g} FLOP")
    else:
        row = reference_project(training_kind)
        body = f"{row['project']}'s {row['project_months']} months (an upper bound; team_sizes.csv)"
    return f"Rule: {body}; never shorter than the run, at most {cap:g} months (project_months_max)"


def moe_source() -> str:
    """How the default MoE active share was chosen, with its sources.

    Returns
    -------
    str
        The rule in one English sentence, starting ``"Rule: "``.
    """
    f = moe_fit()
    names = ", ".join(r["model"] for r in _rows("moe_models.csv"))
    return (f"Rule: share = exp({f.intercept:.3f} + {f.slope:.3f} ln params), the least-squares line over {names} "
            f"(moe_models.csv), parameters clipped to {f.lo:.3g}-{f.hi:.3g}")

