"""Every quantitative claim of the two source articles, each tested and given a computed verdict.

The two articles (Chinese) are cited by title: article A, 《大模型训练成本全维度拆解与优化指南》
(a full-lifecycle breakdown of training cost), and article B, 《大模型训练成本怎么控制，大模型训练成本优化》
(a guide to cutting it). :data:`ARTICLE_A` and :data:`ARTICLE_B` (``"A"``, ``"B"``) are the ids their claims
carry here; ``explorer/data/article_claims.csv`` and ``recipe_claims.csv`` cite them as "article A" and "article B".

Each claim is a :class:`Claim` whose ``test`` function runs a scenario through
the cost model (:func:`explorer.estimate`) or reads the project's sourced data
(``explorer/data/*.csv``) and returns a :class:`Finding`: the number it
computed, the verdict and the reason. Nothing in a verdict is typed in: it is
decided by comparing the computed number with the claimed one.

The article's dated cost figures are checked by :func:`explorer.history.check_dated_costs`
(``explorer/data/article_claims.csv``); this module takes those rows as they
are and maps them onto the three verdicts, so the two never disagree.

Verdicts
--------
``holds``
    The computed or sourced number agrees with the claim (within the stated tolerance).
``holds only under stated conditions``
    It agrees only under a condition the article does not state; the condition is
    computed and given in ``why``.
``does not hold``
    It disagrees.
``cannot be checked``
    The claim rests on a figure for which the project has no sourced value
    (what it implies is computed and given in ``why``).

The savings claims of article B that the savings recipe applies
(:func:`explorer.analysis.recipe_verdicts`) are judged by one function,
:func:`saving_verdict`, on one table of claimed ranges
(``explorer/data/recipe_claims.csv``) and one set of sourced ranges
(:func:`sourced_saving`): a saving inside the claimed range is ``as claimed``
(the fact-check's ``holds``); outside it but inside the range of sourced
figures, when that range reaches the claimed one, ``consistent with the
claim`` (``holds only under stated conditions``: at one end of the evidence);
else ``smaller than claimed`` or ``larger than claimed`` (``does not hold``).

Each finding also names its ``basis``: ``data`` (a sourced value in
``explorer/data``), ``model`` (the cost model on a stated scenario) or
``arithmetic`` (what the claim's own numbers imply, where the project has no
sourced value to test them against).

>>> df = check_claims()
>>> len(df) >= 27
True
>>> df.set_index("id").loc["a_2018_bert", "verdict"]
'does not hold'
"""

from __future__ import annotations

import functools
import math
import statistics
from dataclasses import dataclass, field
from typing import Callable, Mapping

import pandas as pd

from explorer import catalog, prices
from explorer.text import label, money_in, quantity_in
from explorer.history import check_dated_costs
from explorer.model import estimate
from explorer.presets import presets, published_run
from explorer.scenario import Scenario

__all__ = ["HOLDS", "CONDITIONAL", "FAILS", "CANNOT_CHECK", "VERDICTS", "AS_CLAIMED", "CONSISTENT", "SMALLER",
           "LARGER", "NOT_APPLIED", "RECIPE_VERDICTS", "Claim", "Finding", "CLAIMS", "check_claims", "verdict_of",
           "recipe_claims", "recipe_steps", "moe_step", "sourced_saving", "saving_verdict", "fact_check_verdict", "text", "texts", "verdict_text"]

HOLDS = "holds"
CONDITIONAL = "holds only under stated conditions"
FAILS = "does not hold"
CANNOT_CHECK = "cannot be checked"
VERDICTS = (HOLDS, CONDITIONAL, FAILS, CANNOT_CHECK)

#: Verdicts of a saving against a claimed range (the savings recipe).
AS_CLAIMED = "as claimed"
CONSISTENT = "consistent with the claim"
SMALLER = "smaller than claimed"
LARGER = "larger than claimed"
NOT_APPLIED = "not applied"
RECIPE_VERDICTS = (AS_CLAIMED, CONSISTENT, SMALLER, LARGER, CANNOT_CHECK, NOT_APPLIED)

#: Short ids of the two source articles (titles in the module docstring); the ``source`` column of
#: ``article_claims.csv`` and ``recipe_claims.csv`` cites them as "article A" and "article B".
ARTICLE_A = "A"
ARTICLE_B = "B"

#: Relative tolerance within which a computed number "agrees" with a claimed one.
#: The articles write "about" (约) throughout; 15% is our reading of "about".
TOLERANCE = 0.15
#: Our readings of the articles' vague words, stated so a verdict can be computed (not sourced figures):
#: "several" (数倍, 多个数量级) is at least 2; "a considerable share" (相当比例) at least 10%;
#: "not negligible" (不可忽视) at least 5% of the final run's cost.
SEVERAL = 2.0
CONSIDERABLE = 0.10
NOT_NEGLIGIBLE = 0.05


@dataclass(frozen=True)
class Finding:
    """The outcome of testing one claim.

    The words (``unit``, ``why``, ``test``) are templates of ``explorer/data/claim_texts.csv``
    (``<key>.unit``, ``<key>.why``, ``<key>.test``, in English and Chinese) filled with ``params``:
    numbers are written in the language asked for (:meth:`words`); a callable parameter is called
    with the language (for parts that are themselves assembled from templates).

    Parameters
    ----------
    number : float
        The computed or sourced number the verdict rests on, in ``unit``.
    verdict : str
        One of :data:`VERDICTS`.
    basis : str
        ``data``, ``model`` or ``arithmetic``.
    key : str
        The templates' key (the claim id, or a key shared by claims of one kind).
    params : mapping
        The values the templates are filled with.
    """

    number: float
    verdict: str
    basis: str
    key: str
    params: Mapping = field(default_factory=dict)

    def words(self, language: str = "en") -> dict[str, str]:
        """``unit``, ``why`` (the comparison, and the condition for a conditional verdict) and ``test``
        (the scenario or data that tests the claim) in ``language`` ("en" or "zh")."""
        return {part: text(f"{self.key}.{part}", language, **self.params) for part in ("unit", "why", "test")}

    @property
    def unit(self) -> str:
        """The unit of ``number``, in English."""
        return self.words()["unit"]

    @property
    def why(self) -> str:
        """The comparison, in English."""
        return self.words()["why"]

    @property
    def test(self) -> str:
        """The scenario or data that tests the claim, in English."""
        return self.words()["test"]


@functools.cache
def texts() -> Mapping[str, Mapping[str, str]]:
    """The claims' word templates: ``{id: {"en": ..., "zh": ...}}`` (``explorer/data/claim_texts.csv``).

    Returns
    -------
    mapping of str to mapping of str to str
        Each template id -> its English and Chinese templates (:meth:`str.format` fields).
    """
    return {r["id"]: {"en": r["en"], "zh": r["zh"]} for r in catalog.read_csv("claim_texts.csv")}


class _Value:
    """A template parameter written in one language: ``{x:usd}`` money, ``{x:cny}``, ``{x:usd_exact}``,
    ``{x:q}`` a compact number, ``{x:x2}`` a ratio with 2 decimals (``1.24x`` / ``1.24倍``), ``{x:sci}``
    powers of ten; any other spec is Python's (``{x:.0%}``)."""

    def __init__(self, value, language: str):
        """Hold ``value`` to write in ``language``."""
        self.value, self.language = value, language

    def __format__(self, spec: str) -> str:
        """The value written by ``spec`` in the language."""
        v, zh = self.value, self.language == "zh"
        if spec in ("usd", "cny"):
            return money_in(v, spec.upper(), self.language)
        if spec == "usd_exact":
            return f"{v:,.0f}美元" if zh else f"${v:,.0f}"
        if spec == "q":
            return quantity_in(v, self.language)
        if spec[:1] == "x" and spec[1:].isdigit():
            return f"{v:.{int(spec[1:])}f}" + ("倍" if zh else "x")
        if spec == "sci":
            mantissa, exp = f"{v:.2e}".split("e")
            return f"{mantissa}×10^{int(exp)}" if zh else f"{float(mantissa):g}e{int(exp)}"
        return format(v, spec)


def text(key: str, language: str = "en", **params) -> str:
    """The template ``key`` of ``claim_texts.csv`` in ``language``, filled with ``params``.

    Parameters
    ----------
    key : str
        A template id of ``claim_texts.csv``.
    language : {"en", "zh"}
        The language of the words.
    **params
        The values of its fields: a string as it is, a callable called with ``language``, any other value
        written in ``language`` by the field's spec (``{x:usd}`` money, ``{x:q}`` a compact number,
        ``{x:x2}`` a ratio, ``{x:sci}`` powers of ten, or Python's format spec).

    Returns
    -------
    str
        The filled template (the English one where the Chinese cell is empty).

    Raises
    ------
    KeyError
        For a key that is not in ``claim_texts.csv``, or a field without a parameter.

    Examples
    --------
    >>> text("verdict.holds", "zh"), text("hist.too_high", "en", r="91")
    ('成立', '91x too high')
    """
    row = texts()[key]
    template = row.get(language) or row["en"]
    values = {k: v(language) if callable(v) else v if isinstance(v, str) else _Value(v, language)
              for k, v in params.items()}
    return template.format(**values)


def verdict_text(verdict: str, language: str = "en") -> str:
    """A fact-check verdict (:data:`VERDICTS`) in ``language``.

    Parameters
    ----------
    verdict : str
        One of :data:`VERDICTS`.
    language : {"en", "zh"}
        The language of the words.

    Returns
    -------
    str
        The verdict's words (template ``verdict.<verdict>`` of ``claim_texts.csv``, spaces as underscores).
    """
    return text("verdict." + verdict.replace(" ", "_"), language)


@dataclass(frozen=True)
class Claim:
    """One quantitative claim of a source article, with its test.

    Parameters
    ----------
    id : str
        Claim id (``a_...`` for article A, ``b_...`` for article B).
    article : str
        :data:`ARTICLE_A` or :data:`ARTICLE_B`.
    section : str
        Where in the article the claim stands (its heading, or a word such as ``"closing"``).
    claim_zh : str
        The claim as the article writes it (Chinese).
    claim_en : str
        The claim in English.
    test : callable
        Called without arguments, tests the claim and returns its :class:`Finding`.
    """

    id: str
    article: str
    section: str
    claim_zh: str
    claim_en: str
    test: Callable[[], Finding]


def verdict_of(computed: float, claimed: float, tolerance: float = TOLERANCE) -> str:
    """``holds`` if ``computed`` is within ``tolerance`` of ``claimed`` (relative), else ``does not hold``.

    Parameters
    ----------
    computed : float
        The computed or sourced number.
    claimed : float
        The article's number, in the same unit.
    tolerance : float, optional
        Relative tolerance [fraction of ``claimed``]; default :data:`TOLERANCE`.

    Returns
    -------
    str
        :data:`HOLDS` or :data:`FAILS`.

    Examples
    --------
    >>> verdict_of(1.6, 1.6), verdict_of(1.28, 1.6)
    ('holds', 'does not hold')
    """
    return HOLDS if abs(computed - claimed) <= tolerance * abs(claimed) else FAILS


def graded(holds: bool, holds_if: bool) -> str:
    """``holds`` if the claim holds as stated, else the conditional verdict if it holds under the
    computed condition, else ``does not hold``."""
    return HOLDS if holds else CONDITIONAL if holds_if else FAILS


#: Measured end-to-end FP8 over BF16 speed-ups (defaults.csv ``fp8_speedup`` source:
#: MosaicML llm-foundry 1.1-1.35x; TorchAO MXFP8 1.22-1.28x; Megatron-Bridge 1.28x).
FP8_MEASURED_SPEEDUP = (1.1, 1.35)
#: Typical GPU spot discounts off on-demand (defaults.csv ``spot_discount`` source: 30-70%).
SPOT_DISCOUNT_RANGE = (0.3, 0.7)
#: Middle half of measured MFU (defaults.csv ``mfu_dense`` source: Epoch AI, 0.30-0.50).
MFU_MIDDLE_HALF = (0.30, 0.50)
#: Llama 2 pre-training tokens, all sizes (Touvron et al. 2023, section 2.2: 2T tokens).
LLAMA2_TOKENS = 2e12


def in_range(x: float, lo: float, hi: float) -> bool:
    """``lo <= x <= hi``."""
    return lo <= x <= hi


# ---------------------------------------------------------------- savings: one source for the recipe and the check
#: LLaMA-MoE (Zhu et al. 2024, "LLaMA-MoE: Building Mixture-of-Experts from LLaMA with Continual Pre-training",
#: arXiv 2406.16554), the model article B cites for "1/4 of the compute": 3.0-3.5B of 6.7B parameters active.
LLAMA_MOE_ACTIVE_B = (3.0, 3.5)
LLAMA_MOE_TOTAL_B = 6.7
#: Code Llama continued Llama 2 (2T tokens) on 500B tokens (Roziere et al. 2023, arXiv 2308.12950, section 2).
CODE_LLAMA_TOKEN_FRACTION = 500e9 / 2e12
#: Meditron-70B continued Llama 2 70B (2T tokens) on the 48.1B tokens of its GAP-Replay corpus (Chen et al. 2023,
#: "MEDITRON-70B: Scaling Medical Pretraining for Large Language Models", arXiv 2311.16079, section 3): domain
#: adaptation on a small corpus, 1 - 48.1B / 2T = 97.6% of the from-scratch tokens saved.
MEDITRON_TOKEN_FRACTION = 48.1e9 / 2e12
#: Published frontier runs trained in FP8 beyond published_runs.csv's precision column: Llama 4 (Meta AI, "The Llama 4
#: herd", 2025-04-05: Behemoth pre-trained in FP8 on 32K GPUs at 390 TFLOP/s per GPU), by name -> its words in
#: claim_texts.csv. No published LLM pre-training run in INT4 was found.
FP8_RUNS_ELSEWHERE = {"Llama 4": "b_fp8_int4_mainstream.llama4"}


@functools.cache
def recipe_steps() -> Mapping[str, float]:
    """The savings steps' sourced values (``recipe_steps.csv``).

    ``moe_active_fraction`` (LLaMA-MoE, 0.4851) and ``continual_pretrain_token_fraction`` (Code Llama, 0.25) [1].
    The savings recipe (:func:`explorer.analysis.savings_recipe`) and every fact-check of a savings claim read
    these, so one MoE active share and one continual-training corpus stand behind every verdict.

    Returns
    -------
    mapping of str to float
        Step id -> value [1].
    """
    return {r["id"]: float(r["value"]) for r in catalog.read_csv("recipe_steps.csv")}


def moe_step(s: Scenario) -> Scenario:
    """The recipe's MoE step: a dense model becomes an MoE of the same total size, partly active.

    Parameters
    ----------
    s : Scenario
        The scenario before the step.

    Returns
    -------
    Scenario
        ``s`` with ``architecture="moe"`` and ``active_params`` = ``params`` x
        ``recipe_steps()["moe_active_fraction"]`` (``experts`` and ``top_k`` cleared).
    """
    return s.replace(architecture="moe", active_params=s.params * recipe_steps()["moe_active_fraction"],
                     experts=None, top_k=None)


def recipe_claims() -> dict[str, dict]:
    """Article B's savings claims (``recipe_claims.csv``), by recipe id.

    Returns
    -------
    dict of str to dict
        Recipe id -> its row: ``low``, ``high`` [1] as floats (None: unbounded or no figure), ``claim_id``
        (the row of :data:`CLAIMS`), ``metric``, ``lever``, texts and source as read.
    """
    out = {}
    for r in catalog.read_csv("recipe_claims.csv"):
        row: dict[str, str | float | None] = dict(r)
        row["low"] = float(r["low"]) if r["low"].strip() else None
        row["high"] = float(r["high"]) if r["high"].strip() else None
        out[r["id"]] = row
    return out


def west_price_saving() -> tuple[float, float]:
    """Electricity price saved by the two western regions with a sourced price against the China average [1]."""
    avg = _price_usd_per_kwh(catalog.region("cn-avg"))
    saved = [1 - _price_usd_per_kwh(catalog.region(r)) / avg for r in ("cn-ningxia", "cn-inner-mongolia")]
    return min(saved), max(saved)


def _price_usd_per_kwh(region: catalog.Region) -> float:
    """A region's electricity price [USD/kWh]; a claim on a region with none is a mistake in the claim."""
    if region.electricity_usd_per_kwh is None:
        raise ValueError(f"region {region.id!r} has no sourced electricity price, and a claim uses it")
    return region.electricity_usd_per_kwh


def sourced_saving(recipe_id: str, gpu: str | None = None) -> tuple[float, float, str] | None:
    """The range of sourced figures for a savings claim: ``(low, high, words)`` [1], or None if there is none.

    Parameters
    ----------
    recipe_id : str
        A recipe id of :func:`recipe_claims` (``"fp8"``, ``"moe"``, ``"spot"``, ``"region_west"``,
        ``"continual_pretrain"`` have sourced figures).
    gpu : str, optional
        Unused, kept for the signature: no provider spot prices are in the price data, so spot is judged
        against the sourced discount range (the spot basis is on-demand less ``spot_discount``; explorer.prices).

    Returns
    -------
    tuple of (float, float, str) or None
        The lowest and highest sourced saving [fraction] and their sources in words; None for a recipe without
        a sourced figure.
    """
    if recipe_id == "fp8":
        lo, hi = FP8_MEASURED_SPEEDUP
        return 1 - 1 / lo, 1 - 1 / hi, (f"measured end-to-end FP8 speed-ups {lo}-{hi}x "
                                        f"({catalog.defaults()['fp8_speedup'].source})")
    if recipe_id == "moe":
        a_lo, a_hi = LLAMA_MOE_ACTIVE_B
        return (1 - a_hi / LLAMA_MOE_TOTAL_B, 1 - a_lo / LLAMA_MOE_TOTAL_B,
                f"LLaMA-MoE, the model the article cites, activates {a_lo}-{a_hi}B of {LLAMA_MOE_TOTAL_B}B parameters "
                "(Zhu et al. 2024, arXiv 2406.16554): compute saved = 1 - active/total")
    if recipe_id == "spot":
        lo, hi = SPOT_DISCOUNT_RANGE
        return lo, hi, f"typical GPU spot discounts ({catalog.defaults()['spot_discount'].source})"
    if recipe_id == "region_west":
        lo, hi = west_price_saving()
        return lo, hi, "regions.csv: cn-ningxia and cn-inner-mongolia industrial electricity price vs cn-avg"
    if recipe_id == "continual_pretrain":
        return (1 - CODE_LLAMA_TOKEN_FRACTION, 1 - MEDITRON_TOKEN_FRACTION,
                "Code Llama: 500B tokens continuing Llama 2's 2T (Roziere et al. 2023); Meditron-70B: 48.1B "
                "(Chen et al. 2023)")
    return None  # data cleaning, the FP8 + MoE + cleaning combination: no sourced figure of the saving


def saving_verdict(saving: float, low: float | None, high: float | None,
                   sourced: tuple[float, float, str] | None = None) -> str:
    """Verdict of a ``saving`` [fraction] against the claimed range ``[low, high]`` and the sourced range.

    A point claim (low == high: the articles write "about", 约) holds within :data:`TOLERANCE` of it.

    Parameters
    ----------
    saving : float
        The computed saving [fraction]; None or NaN cannot be checked.
    low, high : float or None
        The claimed range [fraction]; None: unbounded on that side (both None: no claimed figure).
    sourced : tuple of (float, float, str), optional
        The sourced range of :func:`sourced_saving`.

    Returns
    -------
    str
        One of :data:`RECIPE_VERDICTS`: :data:`AS_CLAIMED` within the claimed range, :data:`CONSISTENT` outside it
        but within a sourced range that overlaps it, else :data:`SMALLER` or :data:`LARGER`;
        :data:`CANNOT_CHECK` without a number or a claimed figure.

    Examples
    --------
    >>> saving_verdict(0.219, 0.231, None, (0.091, 0.259, "FP8 speed-ups 1.1-1.35x"))
    'consistent with the claim'
    >>> saving_verdict(0.44, 0.40, 0.40), saving_verdict(0.37, 0.75, 0.75), saving_verdict(0.5, None, None)
    ('as claimed', 'smaller than claimed', 'cannot be checked')
    """
    if saving is None or not math.isfinite(saving) or (low is None and high is None):
        return CANNOT_CHECK
    tol = 1e-9
    c_lo = -math.inf if low is None else low * (1 - TOLERANCE) if low == high else low
    c_hi = math.inf if high is None else high * (1 + TOLERANCE) if low == high else high
    if c_lo - tol <= saving <= c_hi + tol:
        return AS_CLAIMED
    if sourced is not None:
        s_lo, s_hi = sourced[0], sourced[1]
        if s_lo - tol <= saving <= s_hi + tol and s_hi >= c_lo - tol and s_lo <= c_hi + tol:
            return CONSISTENT
    return SMALLER if saving < c_lo else LARGER


def fact_check_verdict(recipe_verdict: str) -> str:
    """The fact-check verdict that a recipe verdict of the same number means (so the two never disagree).

    Parameters
    ----------
    recipe_verdict : str
        One of :data:`RECIPE_VERDICTS`.

    Returns
    -------
    str
        :data:`HOLDS` for :data:`AS_CLAIMED`, :data:`CONDITIONAL` for :data:`CONSISTENT`, :data:`FAILS` for
        :data:`SMALLER` and :data:`LARGER`, else :data:`CANNOT_CHECK`.
    """
    return {AS_CLAIMED: HOLDS, CONSISTENT: CONDITIONAL, SMALLER: FAILS, LARGER: FAILS}.get(recipe_verdict,
                                                                                      CANNOT_CHECK)


def _judge(recipe_id: str, saving: float, gpu: str | None = None) -> tuple[str, Callable[[str], str]]:
    """(fact-check verdict, words in a language) of ``saving`` for the recipe claim ``recipe_id``."""
    claim = recipe_claims()[recipe_id]
    src = sourced_saving(recipe_id, gpu)
    v = saving_verdict(saving, claim["low"], claim["high"], src)

    def words(language: str) -> str:
        said = text("judge.saved", language, saving=saving,
                    verdict=label("verdict_" + v.replace(" ", "_"), language) if language == "zh" else v)
        if src is None:
            return said
        return said + text("judge.sourced", language, lo=src[0], hi=src[1], src=src[2])

    return fact_check_verdict(v), words


def _d(name: str) -> float:
    return catalog.default(name)


def _listed(items: list, language: str) -> str:
    """Items joined in ``language`` (", " or "、"); "none" / "无" if empty."""
    if not items:
        return text("list.none", language)
    return ("、" if language == "zh" else ", ").join(i(language) if callable(i) else str(i) for i in items)


# ---------------------------------------------------------------- article A, dated figures
#: The estimates of history.csv in Chinese (the English is the ``estimate`` column itself).
def _estimate(name: str) -> Callable[[str], str]:
    def words(language: str) -> str:
        key = "estimate." + name
        return text(key, language) if language == "zh" and key in texts() else name
    return words


def _history(claim_id: str) -> Callable[[], Finding]:
    """A test that reads the row of :func:`explorer.history.check_dated_costs` for ``claim_id``."""

    def test() -> Finding:
        from explorer.history import CONSISTENT_FACTOR, FLAG_FACTOR, load_history

        row = check_dated_costs().set_index("id").loc[claim_id]
        if row["kind"] == "forecast":
            # judged on each basis: the claim's method over 2016-2023 and 2016-2025, and the cloud-price trend
            # every cost basis counts (the claim's own method, the cloud price, Epoch's hardware acquisition):
            # holds if the claimed year is reachable on all of them, conditional when they disagree
            year = min(b["year"] for b in row["bases"])
            held = list(row["holds_on"])
            verdict = HOLDS if all(b["basis"] in held for b in row["bases"]) else CONDITIONAL if held else FAILS
            by = float(row["year"])

            def basis_name(b: dict) -> Callable[[str], str]:
                return lambda language: text("hist.basis", language, method=text("method." + b["method"], language),
                                             period=b["period"])

            def parts(language: str) -> str:
                return ("；" if language == "zh" else "; ").join(
                    text("hist.crossing", language, basis=basis_name(b), usd=float(row["claimed_usd"]),
                         year=b["year"], lo=b["lo"], hi=b["hi"], by=by,
                         when=text("hist.when." + b["when"].replace(" ", "_"), language))
                    for b in row["bases"])

            def only(language: str) -> str:
                if verdict != CONDITIONAL:
                    return ""
                names = [basis_name(b) for b in row["bases"] if b["basis"] in held]
                return text("hist.holds_only_on", language, bases=_listed(names, language))

            return Finding(year, verdict, "data", "hist_forecast",
                           dict(parts=parts, only=only, method=str(row["method"])))
        hist = load_history().set_index("id")
        src = hist.loc[row["sourced_id"]]
        ratio = float(row["ratio"])
        off = max(ratio, 1 / ratio)
        grade = "consistent" if off <= CONSISTENT_FACTOR else "roughly" if off <= FLAG_FACTOR else "off"
        r = ratio if ratio >= 1 else 1 / ratio
        r_text = f"{r:.0f}" if r >= 10 else f"{r:.1f}"
        ratio_words = (lambda language: text("hist.too_high" if ratio >= 1 else "hist.too_low", language, r=r_text))  # noqa: E731
        match = None
        if grade == "off":
            others = hist[(hist["model"] == src["model"]) & (hist.index != row["sourced_id"])]
            r2 = float(row["claimed_usd"]) / others["cost_usd"]
            found = others[(r2 <= CONSISTENT_FACTOR) & (r2 >= 1 / CONSISTENT_FACTOR)]
            match = None if found.empty else found.iloc[0]
        verdict = HOLDS
        if row["flagged"]:
            verdict = CONDITIONAL if match is not None else FAILS

        def matched(language: str) -> str:
            if match is None:
                return ""
            return text("hist.matches", language, estimate=_estimate(match["estimate"]), date=match["date"],
                        usd=float(match["cost_usd"]), id=match.name,
                        only=text("hist.only_other", language) if verdict == CONDITIONAL else "")

        return Finding(float(row["sourced_usd"]), verdict, "data", "hist_figure",
                       dict(grade=lambda language: text("hist." + grade, language, ratio=ratio_words,
                                                        estimate=_estimate(src["estimate"]), date=row["sourced_date"]),
                            matched=matched, sid=row["sourced_id"], model=str(row["model"]),
                            method=lambda language: text("method." + row["method"], language)))

    return test


def _history_row(model: str, method: str = "cloud") -> pd.Series:
    from explorer.history import load_history

    h = load_history()
    return h[(h["model"] == model) & (h["method"] == method)].iloc[0]


def _roberta_cheaper() -> Finding:
    roberta = float(_history_row("RoBERTa Large")["cost_usd"])
    bert = float(_history_row("BERT-Large")["cost_usd"])
    ratio = roberta / bert
    return Finding(ratio, HOLDS if ratio < 1 else FAILS, "data", "a_2019_cheaper",
                   dict(roberta=roberta, bert=bert, ratio=ratio))


def _gpt3_energy() -> Finding:
    run = published_run("GPT-3 175B (davinci)")
    measured = float(run["energy_mwh"])
    e = estimate(presets()["gpt3"].scenario)
    return Finding(measured, verdict_of(measured, 1287), "data", "a_2020_gpt3_energy",
                   dict(measured=measured, model=e.energy_mwh, ratio=e.energy_mwh / measured))


def _gemini_vs_gpt4() -> Finding:
    gem = float(_history_row("Gemini 1.0 Ultra")["cost_usd"])
    gpt4 = float(_history_row("GPT-4")["cost_usd"])
    ratio = gem / gpt4
    return Finding(ratio, verdict_of(ratio, 2.5), "data", "a_2023_ratio", dict(gem=gem, gpt4=gpt4, ratio=ratio))


def _orders_of_magnitude() -> Finding:
    from explorer.history import load_history

    h = load_history()
    cloud = h[h["method"] == "cloud"]
    first = _history_row("Transformer")
    top = cloud.loc[cloud["cost_usd"].idxmax()]
    orders = math.log10(float(top["cost_usd"]) / float(first["cost_usd"]))
    return Finding(orders, HOLDS if orders >= SEVERAL else FAILS, "data", "a_orders",
                   dict(first=float(first["cost_usd"]), first_year=first["date"], top=float(top["cost_usd"]),
                        top_model=str(top["model"]), top_year=top["date"], orders=orders, several=SEVERAL))


def _same_budget_several_fold() -> Finding:
    lo, hi = _d("calibrated_mfu_min"), _d("calibrated_mfu_max")
    ratio = hi / lo
    return Finding(ratio, HOLDS if ratio >= SEVERAL else FAILS, "data", "a_several_fold",
                   dict(lo=lo, hi=hi, ratio=ratio, several=SEVERAL))


def _project_parts(s: Scenario) -> dict:
    """Shares of a project's cost [1]: all GPU time (final run + experiments, as article A counts
    compute), people, data, storage; and the final run [USD]."""
    e = estimate(s)
    t = e.total_usd
    return {"gpu": (e.final_run_usd + e.details_usd["experiments"]) / t, "people": e.cost_usd["people"] / t,
            "data": e.cost_usd["data"] / t, "storage": e.details_usd["storage"] / t, "final_usd": e.final_run_usd,
            "months": e.project_months, "team": e.fallbacks["team_headcount"] if s.team_headcount is None
            else s.team_headcount}


def _compute_biggest() -> Finding:
    parts = {k: _project_parts(p.scenario) for k, p in presets().items()}
    names = {k: p.name for k, p in presets().items()}
    biggest = {k: v["gpu"] > max(v["people"], v["data"], v["storage"]) for k, v in parts.items()}
    yes = [k for k in parts if biggest[k]]
    no = [k for k in parts if not biggest[k]]
    base = Scenario()
    d = _project_parts(base)
    verdict = HOLDS if not no else CONDITIONAL if yes else FAILS

    def named(keys: list) -> Callable[[str], str]:
        return lambda language: _listed([text("compute_biggest.item", language, name=names[k][language],
                                              share=parts[k]["gpu"]) for k in keys], language)

    final = lambda keys: [parts[k]["final_usd"] for k in keys]  # noqa: E731
    return Finding(d["gpu"], verdict, "model", "a_compute_biggest",
                   dict(n_yes=len(yes), n=len(parts), yes=named(yes), no=named(no), people=d["people"],
                        gpu=d["gpu"], team=d["team"], months=d["months"],
                        yes_lo=min(final(yes)) if yes else math.nan, yes_hi=max(final(yes)) if yes else math.nan,
                        no_lo=min(final(no)) if no else math.nan, no_hi=max(final(no)) if no else math.nan,
                        base_final=d["final_usd"]))


def _energy_not_negligible() -> Finding:
    base = Scenario(pricing="owned")
    e = estimate(base)
    share = e.cost_usd["energy"] / e.final_run_usd
    by_region = {}
    for r in catalog.regions():
        er = estimate(base.replace(region=r))
        by_region[r] = er.cost_usd["energy"] / er.final_run_usd
    above = sorted((r for r, s in by_region.items() if s >= NOT_NEGLIGIBLE), key=lambda r: -by_region[r])
    cloud = estimate(Scenario())
    in_rate = cloud.in_rate_usd["energy"] / cloud.final_run_usd
    verdict = graded(share >= NOT_NEGLIGIBLE, bool(above))
    return Finding(share, verdict, "model", "a_energy_thousand",
                   dict(share=share, reading=NOT_NEGLIGIBLE, lo=min(by_region.values()), hi=max(by_region.values()),
                        n_above=len(above), n=len(by_region),
                        above=lambda language: _listed([f"`{r}`" for r in above], language), in_rate=in_rate))


def _hidden_share() -> Finding:
    shares = {}
    for k, p in presets().items():
        e = estimate(p.scenario)
        shares[k] = (p.scenario.training_kind, e.cost_usd["hidden"] / e.total_usd)
    pre = [s for kind, s in shares.values() if kind == "pretrain"]
    adapt = {k: s for k, (kind, s) in shares.items() if kind != "pretrain"}
    # "often" (往往): in most pre-training runs, so the median preset, not the smallest (issue 37's people made
    # the small start-up's hidden costs 9% of a project that is mostly people)
    middle = statistics.median(pre)
    verdict = graded(all(s >= CONSIDERABLE for _, s in shares.values()), middle >= CONSIDERABLE)
    names = {k: p.name for k, p in presets().items()}
    return Finding(middle, verdict, "model", "a_hidden_share",
                   dict(lo=min(pre), hi=max(pre), median=middle, n=len(pre), reading=CONSIDERABLE,
                        adapt=lambda language: _listed([text("compute_biggest.item", language,
                                                             name=names[k][language], share=s)
                                                        for k, s in adapt.items()], language)))


def _rerun_months() -> Finding:
    e = estimate(Scenario())
    return Finding(1.0, CANNOT_CHECK, "arithmetic", "a_rerun_months",
                   dict(final=e.final_run_usd, days=e.wall_days))


def _six_nd() -> Finding:
    run = published_run("GPT-3 175B (davinci)")
    n, d, reported = float(run["params_total"]), float(run["tokens"]), float(run["train_flop"])
    ratio = 6 * n * d / reported
    e = estimate(presets()["gpt3"].scenario)
    return Finding(ratio, verdict_of(ratio, 1.0, 0.1), "data", "a_6nd",
                   dict(c=6 * n * d, reported=reported, att=e.train_flop / (6 * n * d) - 1))


def _fifty_vs_eighty() -> Finding:
    # the claim is about the compute bill: the final run alone (no data, team or experiments)
    base = Scenario(params=70e9, tokens=1.4e12, gpu="h100-sxm", gpus=1024, data_usd_per_1m_tokens=0.0,
                    team_headcount=0.0, experiments_multiplier=1.0)
    lo, hi = estimate(base.replace(mfu=0.5)), estimate(base.replace(mfu=0.8))
    ratio = lo.usd_per_1m_tokens / hi.usd_per_1m_tokens
    return Finding(ratio, verdict_of(ratio - 1, 0.6), "model", "a_util_50_80",
                   dict(lo=lo.usd_per_1m_tokens, hi=hi.usd_per_1m_tokens, more=ratio - 1, less=1 - 1 / ratio,
                        top=_d("calibrated_mfu_max")))


def _review_120() -> Finding:
    median = _d("mfu_dense")
    trigger = median / 1.2
    base = Scenario(params=70e9, tokens=1.4e12, gpu="h100-sxm", gpus=1024)
    ratio = estimate(base.replace(mfu=trigger)).cost_usd["compute"] / estimate(base.replace(mfu=median)).cost_usd["compute"]
    verdict = graded(trigger < MFU_MIDDLE_HALF[0], True)
    return Finding(trigger, verdict, "model", "a_review_120",
                   dict(median=median, ratio=ratio, trigger=trigger, lo=MFU_MIDDLE_HALF[0], hi=MFU_MIDDLE_HALF[1]))


def _energy_linear() -> Finding:
    base = Scenario(params=70e9, tokens=1.4e12, gpu="h100-sxm", gpus=1024)
    e1 = estimate(base)
    longer = estimate(base.replace(tokens=2.8e12))        # twice the time, same cluster
    fewer = estimate(base.replace(gpus=512))              # twice the time, half the cluster
    r_long = longer.energy_mwh / e1.energy_mwh
    r_fewer = fewer.energy_mwh / e1.energy_mwh
    verdict = graded(verdict_of(r_fewer, 2.0) == HOLDS, verdict_of(r_long, 2.0) == HOLDS)
    return Finding(r_long, verdict, "model", "a_energy_linear",
                   dict(d_long=longer.wall_days / e1.wall_days, r_long=r_long,
                        d_fewer=fewer.wall_days / e1.wall_days, r_fewer=r_fewer))


# ---------------------------------------------------------------- article B
def _dense70() -> Scenario:
    return Scenario(params=70e9, tokens=1.4e12, gpu="h100-sxm", precision="bf16", gpus=1024)


def _savings_40_60() -> Finding:
    # the recipe's own steps (FP8, then the MoE at LLaMA-MoE's active share) and its metric, judged by its rule
    base = _dense70()
    fp8 = base.replace(precision="fp8")
    moe = moe_step(fp8)
    b, f, m = (estimate(x).final_run_usd for x in (base, fp8, moe))
    s_fp8, s_both = 1 - f / b, 1 - m / b
    verdict, words = _judge("fp8_moe_data", s_both)
    return Finding(s_both, verdict, "model", "b_savings_40_60",
                   dict(s_fp8=s_fp8, speedup=_d("fp8_speedup"), s_both=s_both,
                        share=recipe_steps()["moe_active_fraction"], words=words))


def _fp8_memory() -> Finding:
    s = _dense70()
    bf, f8 = estimate(s).memory_gb_per_gpu, estimate(s.replace(precision="fp8")).memory_gb_per_gpu
    state = lambda m: m["weights"] + m["gradients"] + m["optimizer"]  # noqa: E731
    saved_state = 1 - state(f8) / state(bf)
    saved_weights = 1 - f8["weights"] / bf["weights"]
    saved_total = 1 - f8["total"] / bf["total"]
    # lesson 2's exercise 2: the same 70B run on 64 GPUs, where activations are a smaller share of memory
    bf64, f864 = (estimate(s.replace(gpus=64, precision=p)).memory_gb_per_gpu["total"] for p in ("bf16", "fp8"))
    verdict = graded(verdict_of(saved_state, 0.5) == HOLDS, verdict_of(saved_weights, 0.5) == HOLDS)
    return Finding(saved_state, verdict, "model", "b_fp8_memory",
                   dict(w=saved_weights, s=saved_state, t=saved_total, t64=1 - f864 / bf64))


def _chips_30() -> Finding:
    speedup = _d("fp8_speedup")
    verdict, _ = _judge("fp8", 1 - 1 / speedup)  # a >= 30% speed-up is a >= 23.1% cheaper final run
    return Finding(speedup - 1, verdict, "data", "b_chips_30",
                   dict(lo=FP8_MEASURED_SPEEDUP[0], hi=FP8_MEASURED_SPEEDUP[1], speedup=speedup,
                        src=catalog.defaults()["fp8_speedup"].source))


def _lora() -> Finding:
    lora = presets()["lora_70b"].scenario
    full = lora.replace(training_kind="full_finetune")
    # a full fine-tune of 70B does not fit on LoRA's 8 GPUs (issue 38: such a run is infeasible, no money): it
    # runs on the fewest that hold it; its compute cost is its GPU-hours, which hardly depend on the count
    e_l = estimate(lora)
    # e_l.gpus: LoRA's cluster, the preset's count or the one its deadline chose; a count, not a deadline, then
    full = full.replace(gpus=max(e_l.gpus, int(estimate(full).min_gpus_memory)), deadline_days=None)
    e_f = estimate(full)
    saved = 1 - e_l.cost_usd["compute"] / e_f.cost_usd["compute"]
    scratch = estimate(lora.replace(training_kind="pretrain", tokens=LLAMA2_TOKENS, gpus=1024, deadline_days=None))
    vs_scratch = 1 - e_l.cost_usd["compute"] / scratch.cost_usd["compute"]
    # the article sets LoRA against training the model (全量训练), as its other savings are: full pre-training
    verdict = HOLDS if vs_scratch >= 0.9 else FAILS
    return Finding(vs_scratch, verdict, "model", "b_lora",
                   dict(trainable=lora.lora_trainable_fraction, vs=vs_scratch, saved=saved,
                        gl=e_l.min_gpus_memory, gf=e_f.min_gpus_memory))


def _moe_quarter() -> Finding:
    # the article's source for "1/4 of the compute" is LLaMA-MoE: 3.0-3.5B of 6.7B parameters active
    frac = recipe_steps()["moe_active_fraction"]   # LLaMA-MoE's middle, the recipe's share
    dense = estimate(_dense70())
    moe = estimate(moe_step(_dense70()))
    flop = moe.train_flop / dense.train_flop
    hours = moe.gpu_hours / dense.gpu_hours
    verdict, words = _judge("moe", 1 - flop)
    return Finding(flop, verdict, "model", "b_moe_quarter",
                   dict(a_lo=LLAMA_MOE_ACTIVE_B[0] * 1e9, a_hi=LLAMA_MOE_ACTIVE_B[1] * 1e9,
                        tot=LLAMA_MOE_TOTAL_B * 1e9, flop=flop, words=words, f=_d("moe_mfu_factor"), hours=hours,
                        frac=frac))


def _moe_45() -> Finding:
    dense = estimate(_dense70()).cost_usd["compute"]

    def saved(a: float) -> float:
        moe = _dense70().replace(architecture="moe", active_params=70e9 * a)
        return 1 - estimate(moe).cost_usd["compute"] / dense

    lo, hi = 0.001, 1.0                      # saved() falls as the active fraction grows
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if saved(mid) >= 0.45 else (lo, mid)
    needed = lo
    real = {r["model"]: float(r["params_active"]) / float(r["params_total"])
            for r in catalog.published_runs() if r["params_active"]}
    verdict = CANNOT_CHECK  # the costs it compares are not published
    return Finding(needed, verdict, "model", "b_moe_45",
                   dict(needed=needed, shown=lambda language: _listed([f"{m} {a:.1%}" for m, a in real.items()],
                                                                      language)))


def _data_share() -> Finding:
    run = presets()["startup_7b"].scenario
    e = estimate(run)
    other = e.total_usd - e.cost_usd["data"]
    lo, hi = (s / (1 - s) * other / (run.tokens / 1e6) for s in (0.3, 0.4))
    share = e.cost_usd["data"] / e.total_usd
    return Finding(lo, graded(False, lo > 0), "model", "b_data_share",
                   dict(rate=run.data_usd_per_1m_tokens, share=share, other=other, lo=lo, hi=hi))


def _filter_share() -> Finding:
    raw_before, raw_after = 1 / 0.10, 1 / 0.80
    saved = 1 - raw_after / raw_before
    return Finding(saved, CANNOT_CHECK, "arithmetic", "b_filter_10_80",
                   dict(before=raw_before, after=raw_after, saved=saved))


def _synthetic() -> Finding:
    price_ratio = 1 - 0.70
    return Finding(price_ratio, CANNOT_CHECK, "arithmetic", "b_synthetic_70", dict(r=price_ratio))


def _continual() -> Finding:
    cont = presets()["continual_34b"].scenario
    scratch = cont.replace(training_kind="pretrain", tokens=LLAMA2_TOKENS)
    saved = 1 - estimate(cont).cost_usd["compute"] / estimate(scratch).cost_usd["compute"]
    verdict, words = _judge("continual_pretrain", saved)
    return Finding(saved, verdict, "model", "b_continual_90",
                   dict(saved=saved, words=words, meditron=1 - MEDITRON_TOKEN_FRACTION))


def _west_power() -> Finding:
    avg = catalog.region("cn-avg")
    west = [catalog.region(r) for r in ("cn-ningxia", "cn-inner-mongolia")]
    saved = [1 - _price_usd_per_kwh(r) / _price_usd_per_kwh(avg) for r in west]
    lo, hi = min(saved), max(saved)
    # the number is Ningxia's, the saving lesson 5 (exercise 2) has students compute; the range is in the words
    verdict, _ = _judge("region_west", saved[0])
    return Finding(saved[0], verdict, "data", "b_west_40",
                   dict(nx=str(west[0].electricity_usd_per_kwh), nxy=str(west[0].price_year),
                        nm=str(west[1].electricity_usd_per_kwh), nmy=str(west[1].price_year),
                        avg=str(avg.electricity_usd_per_kwh), avgy=str(avg.price_year), lo=lo, hi=hi,
                        nxs=saved[0]))


def _spot() -> Finding:
    run = presets()["startup_7b"].scenario.replace(pricing="on_demand")
    od = estimate(run).cost_usd["compute"]
    sp = estimate(run.replace(pricing="spot")).cost_usd["compute"]
    ratio = sp / od
    verdict, _ = _judge("spot", 1 - ratio, run.gpu)  # 10-30% of on-demand = a 70-90% saving
    return Finding(ratio, verdict, "model", "b_spot",
                   dict(disc=_d("spot_discount"), src=catalog.defaults()["spot_discount"].source, ratio=ratio))


def _utilization() -> Finding:
    top = _d("calibrated_mfu_max")
    return Finding(top, graded(top >= 0.85, True), "data", "b_util_85_60",
                   dict(top=str(top), median=str(_d("mfu_dense"))))


def _hundred_b_cny() -> Finding:
    on_demand = Scenario(params=100e9, tokens=2e12, gpu="h800", precision="bf16", gpus=1024,
                         pricing="on_demand", region="cn-avg", currency="CNY")
    e = estimate(on_demand)
    cny = e.cost()["compute"]
    # the recipe's FP8 and MoE steps (one active share), then continual training on a corpus the size b_continual_90
    # rests on: Code Llama's quarter (a new skill) or Meditron's 2.4% (domain adaptation, its stated condition)
    cheap = moe_step(on_demand.replace(precision="fp8")).replace(training_kind="continual_pretrain")
    general = estimate(cheap.replace(tokens=2e12 * recipe_steps()["continual_pretrain_token_fraction"])).cost()["compute"]
    domain = estimate(cheap.replace(tokens=2e12 * MEDITRON_TOKEN_FRACTION)).cost()["compute"]
    first = in_range(cny, 1e6, 1e8)
    verdict = HOLDS if first and general < 1e6 else CONDITIONAL if first and domain < 1e6 else FAILS
    return Finding(cny, verdict, "model", "b_100b_cny",
                   dict(rate=prices.quote("h800", "on_demand").usd_per_gpu_hour, cny=cny, general=general,
                        domain=domain, share=recipe_steps()["moe_active_fraction"]))


def _domestic() -> Finding:
    asc = catalog.accelerator("ascend-910b")
    per = lambda a: a.purchase_usd / a.peak_tflops["fp16"]  # noqa: E731  USD per peak TFLOP/s
    vs = {g: 1 - per(asc) / per(catalog.accelerator(g)) for g in ("a100-80gb", "h100-sxm", "h800")}
    verdict = CONDITIONAL if any(in_range(v, 0.2, 0.3) for v in vs.values()) else FAILS
    return Finding(vs["h800"], verdict, "data", "b_domestic_20_30",
                   dict(words=lambda language: _listed([f"`{g}` {v:+.0%}" for g, v in vs.items()], language)))


def _fp8_int4_mainstream() -> Finding:
    runs = catalog.published_runs()
    stated = [r for r in runs if r["precision"]]
    fp8 = [r["model"] for r in stated if "fp8" in r["precision"].lower()] + list(FP8_RUNS_ELSEWHERE)
    int4 = [r["model"] for r in stated if "int4" in r["precision"].lower()]
    share = len(fp8) / (len(stated) + len(FP8_RUNS_ELSEWHERE))
    # FP8 and INT4 both mainstream: holds; FP8 in some frontier runs but no INT4 training: partly (conditional);
    # neither: does not hold
    verdict = HOLDS if share >= 0.5 and int4 else CONDITIONAL if fp8 else FAILS
    return Finding(share, verdict, "data", "b_fp8_int4_mainstream",
                   dict(n=len(runs), k=len(stated), nf=len(fp8), fp8=lambda language: _listed(fp8, language),
                        ni=len(int4), elsewhere=lambda language: _listed(
                            [text(k, language) for k in FP8_RUNS_ELSEWHERE.values()], language)))


def _weeks_lost() -> Finding:
    s = presets()["llama31_405b"].scenario
    e = estimate(s)
    rate = s.failure_rate_per_gpu_hour or _d("failure_rate_per_gpu_hour")
    mtbf_h = 1 / (rate * e.gpus)  # the estimate's cluster: the preset's count, or the one its deadline chose
    failures = e.wall_days * 24 / mtbf_h
    return Finding(mtbf_h, graded(failures >= 1 and e.wall_days >= 14, failures >= 1), "model", "b_weeks_lost",
                   dict(gpus=float(e.gpus), mtbf=mtbf_h, days=e.wall_days, failures=failures, rate=rate))


def _training_share_falls() -> Finding:
    return Finding(0.0, CANNOT_CHECK, "data", "b_training_share", {})


A_SECTION2 = "section 二 (成本量级演进)"
CLAIMS: tuple[Claim, ...] = (
    Claim("a_several_fold", ARTICLE_A, "section 一", "同样的算力预算，利用率与训练策略不同，最终产出可能相差数倍",
          "The same compute budget can yield several times more or less, depending on utilization and strategy",
          _same_budget_several_fold),
    Claim("a_orders", ARTICLE_A, A_SECTION2, "据公开资料，大模型训练成本在数年间上升了多个数量级",
          "Training costs rose by several orders of magnitude within a few years", _orders_of_magnitude),
    Claim("a_2017_transformer", ARTICLE_A, A_SECTION2, "2017年，早期基于自注意力机制的预训练模型，训练成本约900美元量级",
          "2017: an early self-attention model cost about $900 to train", _history("claim_2017")),
    Claim("a_2018_bert", ARTICLE_A, A_SECTION2, "2018年，某3.4亿参数规模的预训练语言模型，训练成本约30万美元",
          "2018: a 340M-parameter model (BERT-Large) cost about $300k", _history("claim_2018")),
    Claim("a_2019_roberta", ARTICLE_A, A_SECTION2, "2019年，某在其基础上优化的增强版模型……以约16万美元完成训练",
          "2019: an improved model (RoBERTa) was trained for about $160k", _history("claim_2019")),
    Claim("a_2019_cheaper", ARTICLE_A, A_SECTION2, "……低于同类早期模型，说明训练效率优化能够显著影响总投入",
          "2019: ... less than comparable earlier models", _roberta_cheaper),
    Claim("a_2020_gpt3_cost", ARTICLE_A, A_SECTION2, "2020年，某1750亿参数的超大规模语言模型，单次训练算力成本估算约140万美元",
          "2020: a 175B model's (GPT-3) single run cost about $1.4M", _history("claim_2020")),
    Claim("a_2020_gpt3_energy", ARTICLE_A, A_SECTION2, "……电力消耗约1287兆瓦时", "2020: GPT-3 used about 1,287 MWh",
          _gpt3_energy),
    Claim("a_2023_gpt4", ARTICLE_A, A_SECTION2, "2023年，某旗舰级大模型训练成本预估约7800万美元",
          "2023: a flagship model (GPT-4) about $78M", _history("claim_2023_flagship")),
    Claim("a_2023_gemini", ARTICLE_A, A_SECTION2, "同期另一超大规模模型预估约1.91亿美元",
          "2023: another model (Gemini 1.0 Ultra) about $191M", _history("claim_2023_other")),
    Claim("a_2023_ratio", ARTICLE_A, A_SECTION2, "……约为前者的2.5倍", "... about 2.5x the former", _gemini_vs_gpt4),
    Claim("a_now_100m", ARTICLE_A, A_SECTION2, "当前，头部对话式与多模态模型的训练费用已达约1亿美元量级",
          "Now: leading models cost about $100M", _history("claim_current_100m")),
    Claim("a_next_1b", ARTICLE_A, A_SECTION2, "处于研发阶段的下一代模型训练成本更是逼近10亿美元",
          "Next-generation models approach $1B", _history("claim_current_1b")),
    Claim("a_forecast_10b", ARTICLE_A, A_SECTION2, "未来三年内训练顶尖大语言模型的成本可能达到100亿美元",
          "Within three years a top LLM may cost $10B", _history("claim_forecast_10b")),
    Claim("a_forecast_100b", ARTICLE_A, A_SECTION2, "……甚至1000亿美元量级", "... or even $100B",
          _history("claim_forecast_100b")),
    Claim("a_compute_biggest", ARTICLE_A, "section 三", "算力成本通常是最大头",
          "Compute is usually the biggest cost", _compute_biggest),
    Claim("a_energy_thousand", ARTICLE_A, "section 三", "电力与能耗成本在千卡级集群上不可忽视",
          "On a cluster of a thousand GPUs, energy cost is not negligible", _energy_not_negligible),
    Claim("a_hidden_share", ARTICLE_A, "section 三", "隐性成本……往往合计占总投入的相当比例",
          "Hidden costs (failed experiments, storage, ...) often add up to a considerable share of the total",
          _hidden_share),
    Claim("a_6nd", ARTICLE_A, "section 四.1, 五.3", "总计算量(FLOPs) ≈ 6 × 参数量 × 训练Token数",
          "Training compute C ≈ 6·N·D", _six_nd),
    Claim("a_util_50_80", ARTICLE_A, "section 四.2", "利用率50%与80%相比，等效单位成本相差约60%",
          "50% vs 80% utilization: unit cost differs by about 60%", _fifty_vs_eighty),
    Claim("a_rerun_months", ARTICLE_A, "section 四.3", "一次大规模重训的算力损失，可能抵消数月的优化收益",
          "The compute lost to one large re-run can cancel months of optimization gains", _rerun_months),
    Claim("a_review_120", ARTICLE_A, "section 五.3", "单次实验超过预算的120%即触发复核",
          "An experiment over 120% of budget triggers a review", _review_120),
    Claim("a_energy_linear", ARTICLE_A, "section 三", "制冷、供电损耗等基础设施开销会随训练时长线性放大",
          "Energy and facility overhead grow linearly with training duration", _energy_linear),
    Claim("b_savings_40_60", ARTICLE_B, "opening", "混合精度训练+稀疏激活架构+数据智能清洗……算力成本降低40%-60%",
          "Mixed precision + MoE + data cleaning cut compute cost 40-60%", _savings_40_60),
    Claim("b_fp8_memory", ARTICLE_B, "混合精度与量化技术", "使用FP8混合精度训练，相比传统FP16，显存需求减少约50%",
          "FP8 mixed precision needs about 50% less memory than FP16", _fp8_memory),
    Claim("b_chips_30", ARTICLE_B, "混合精度与量化技术", "新一代芯片对低精度计算进行了专门优化，推理与训练速度提升30%以上",
          "New chips speed low-precision training by 30%+", _chips_30),
    Claim("b_lora", ARTICLE_B, "混合精度与量化技术", "LoRA……仅需训练0.1%-1%的参数，成本可降低90%",
          "LoRA trains 0.1-1% of the parameters and costs 90% less", _lora),
    Claim("b_moe_quarter", ARTICLE_B, "稀疏激活架构（MoE）", "LLaMA-MoE在保持性能不变的情况下，计算量仅为稠密模型的1/4",
          "MoE needs a quarter of dense compute at equal quality", _moe_quarter),
    Claim("b_moe_45", ARTICLE_B, "稀疏激活架构（MoE）", "采用改进型MoE结构，使得单次训练算力成本较2024年下降约45%",
          "MoE cut one training run's cost about 45% against 2024", _moe_45),
    Claim("b_data_share", ARTICLE_B, "数据工程", "数据清洗、标注和存储占据了总预算的30%-40%",
          "Data cleaning, labelling and storage are 30-40% of the budget", _data_share),
    Claim("b_filter_10_80", ARTICLE_B, "智能数据清洗与去重", "使有效数据比例从10%提升至80%",
          "Quality filtering raises the useful share of data from 10% to 80%", _filter_share),
    Claim("b_synthetic_70", ARTICLE_B, "智能数据清洗与去重", "合成数据可将标注成本降低70%",
          "Synthetic data cuts labelling cost 70%", _synthetic),
    Claim("b_continual_90", ARTICLE_B, "数据生命周期管理", "采用增量预训练……节省90%以上的算力",
          "Continual pre-training saves 90%+ of compute", _continual),
    Claim("b_west_40", ARTICLE_B, "地域与云资源选择", "将非实时训练任务部署在西部低成本数据中心，电力成本可降低40%",
          "Western Chinese data centres cut power cost 40%", _west_power),
    Claim("b_spot", ARTICLE_B, "地域与云资源选择", "Spot Instance（竞价实例），价格仅为按需实例的10%-30%",
          "Spot instances cost 10-30% of on-demand", _spot),
    Claim("b_util_85_60", ARTICLE_B, "实时资源监控", "确保GPU利用率保持在85%以上，若低于60%，通常意味着数据加载瓶颈或通信延迟",
          "Keep GPU utilization above 85%; below 60% signals a bottleneck", _utilization),
    Claim("b_weeks_lost", ARTICLE_B, "实时资源监控", "建立完善的Checkpoint机制，避免因硬件故障导致数周训练成果归零",
          "Without checkpoints, a hardware failure can wipe out weeks of training", _weeks_lost),
    Claim("b_training_share", ARTICLE_B, "closing", "随着推理侧优化技术的成熟，训练成本的占比将进一步下降",
          "As inference optimization matures, training's share of cost will fall further", _training_share_falls),
    Claim("b_100b_cny", ARTICLE_B, "FAQ Q1", "千亿参数大模型……按需实例全量训练，成本可能在数百万至千万人民币级别；MoE+量化+增量训练……百万元以内",
          "A 100B model costs millions to tens of millions CNY on demand, under 1M CNY with MoE + quantization "
          "+ continual training", _hundred_b_cny),
    Claim("b_domestic_20_30", ARTICLE_B, "FAQ Q3", "在同等算力下，国产芯片采购成本通常低于进口芯片20%-30%",
          "Domestic accelerators cost 20-30% less for equal compute", _domestic),
    Claim("b_fp8_int4_mainstream", ARTICLE_B, "混合精度与量化技术", "主流大模型训练已从FP32全面转向FP8甚至INT4量化训练",
          "FP8 and even INT4 training are mainstream", _fp8_int4_mainstream),
)


def check_claims(language: str = "en") -> pd.DataFrame:
    """Test every claim.

    Parameters
    ----------
    language : {"en", "zh"}
        The language of the words (``claim``, ``verdict_text``, ``unit``, ``why``, ``test``).

    Returns
    -------
    pandas.DataFrame
        One row per claim: ``id, article, section, claim_en, claim_zh, claim, test,
        number, unit, verdict`` (one of :data:`VERDICTS`, in English: an id), ``verdict_text``
        (in ``language``), ``why, basis``.
    """
    rows = []
    for c in CLAIMS:
        f = c.test()
        if f.verdict not in VERDICTS:
            raise AssertionError(f"{c.id}: verdict {f.verdict!r}")
        w = f.words(language)
        rows.append({"id": c.id, "article": c.article, "section": c.section, "claim_en": c.claim_en,
                     "claim_zh": c.claim_zh, "claim": c.claim_zh if language == "zh" else c.claim_en,
                     "test": w["test"], "number": f.number, "unit": w["unit"], "verdict": f.verdict,
                     "verdict_text": verdict_text(f.verdict, language), "why": w["why"], "basis": f.basis})
    return pd.DataFrame(rows)
