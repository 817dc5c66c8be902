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

The article's dated cost figures are checked by :func:`explorer.history.check_claims`
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

import math
from dataclasses import dataclass
from typing import Callable

import pandas as pd

from explorer import catalog, prices
from explorer.history import check_claims as _history_claims
from explorer.model import estimate
from explorer.presets import presets, published_run
from explorer.scenario import Scenario

__all__ = ["HOLDS", "CONDITIONAL", "FAILS", "CANNOT_CHECK", "VERDICTS", "AS_CLAIMED", "CONSISTENT", "SMALLER",
           "LARGER", "NOT_APPLIED", "RECIPE_VERDICTS", "Claim", "Finding", "CLAIMS", "check_claims", "verdict_of",
           "recipe_claims", "sourced_saving", "saving_verdict", "fact_check_verdict"]

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


@dataclass(frozen=True)
class Finding:
    """The outcome of testing one claim.

    Attributes
    ----------
    number : float
        The computed or sourced number the verdict rests on, in ``unit``.
    unit : str
    verdict : str
        One of :data:`VERDICTS`.
    why : str
        The comparison, and the condition for a conditional verdict.
    test : str
        The scenario or data that tests the claim.
    basis : str
        ``data``, ``model`` or ``arithmetic``.
    """

    number: float
    unit: str
    verdict: str
    why: str
    test: str
    basis: str


@dataclass(frozen=True)
class Claim:
    """One quantitative claim of a source article, with its test."""

    id: str
    article: str
    section: str
    claim_zh: str
    claim_en: str
    test: Callable[[], Finding]


def verdict_of(computed: float, claimed: float, tolerance: float = TOLERANCE) -> str:
    """``holds`` if ``computed`` is within ``tolerance`` of ``claimed`` (relative), else ``does not hold``.

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


def recipe_claims() -> dict[str, dict]:
    """Article B's savings claims (``recipe_claims.csv``), by recipe id: ``low``, ``high`` [1] (None: unbounded or
    no figure), ``claim_id`` (the row of :data:`CLAIMS`), ``metric``, ``lever``, texts and source."""
    out = {}
    for r in catalog.read_csv("recipe_claims.csv"):
        row = dict(r)
        row["low"] = float(r["low"]) if r["low"].strip() else None
        row["high"] = float(r["high"]) if r["high"].strip() else None
        out[r["id"]] = row
    return out


def west_price_saving() -> tuple[float, float]:
    """Electricity price saved by the two western regions with a sourced price against the China average [1]."""
    avg = catalog.region("cn-avg").electricity_usd_per_kwh
    saved = [1 - catalog.region(r).electricity_usd_per_kwh / avg for r in ("cn-ningxia", "cn-inner-mongolia")]
    return min(saved), max(saved)


def sourced_saving(recipe_id: str, gpu: str | None = None) -> tuple[float, float, str] | None:
    """The range of sourced figures for a savings claim: ``(low, high, words)`` [1], or None if there is none.

    ``gpu`` is kept for the signature: no provider spot prices are in the price data, so spot is judged
    against the sourced discount range (the spot basis is on-demand less ``spot_discount``; explorer.prices).
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
        f = CODE_LLAMA_TOKEN_FRACTION
        return 1 - f, 1 - f, "Code Llama: 500B tokens continuing Llama 2's 2T (Roziere et al. 2023)"
    return None  # data cleaning, the FP8 + MoE + cleaning combination: no sourced figure of the saving


def saving_verdict(saving: float, low: float | None, high: float | None,
                   sourced: tuple[float, float, str] | None = None) -> str:
    """Verdict of a ``saving`` [fraction] against the claimed range ``[low, high]`` and the sourced range.

    A point claim (low == high: the articles write "about", 约) holds within :data:`TOLERANCE` of it.

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
    """The fact-check verdict that a recipe verdict of the same number means (so the two never disagree)."""
    return {AS_CLAIMED: HOLDS, CONSISTENT: CONDITIONAL, SMALLER: FAILS, LARGER: FAILS}.get(recipe_verdict,
                                                                                      CANNOT_CHECK)


def _judge(recipe_id: str, saving: float, gpu: str | None = None) -> tuple[str, str]:
    """(fact-check verdict, words) of ``saving`` for the recipe claim ``recipe_id``."""
    claim = recipe_claims()[recipe_id]
    src = sourced_saving(recipe_id, gpu)
    v = saving_verdict(saving, claim["low"], claim["high"], src)
    words = f"{saving:.1%} saved: {v}"
    if src is not None:
        words += f" (sourced range {src[0]:.1%}-{src[1]:.1%}: {src[2]})"
    return fact_check_verdict(v), words


def _d(name: str) -> float:
    return catalog.default(name)


# ---------------------------------------------------------------- article A, dated figures
def _history(claim_id: str) -> Callable[[], Finding]:
    """A test that reads the row of :func:`explorer.history.check_claims` for ``claim_id``."""

    def test() -> Finding:
        row = _history_claims().set_index("id").loc[claim_id]
        if row["kind"] == "forecast":
            # judged on each basis: the claim's method over 2016-2023 and 2016-2025, and the cloud-price trend
            own = [b for b in row["bases"] if b["method"] == row["method"]]
            year = min(b["year"] for b in own)
            held = list(row["holds_on"])
            verdict = HOLDS if all(b["basis"] in held for b in own) else CONDITIONAL if held else FAILS
            why = row["verdict"] + (f" - holds only on: {', '.join(held)}" if verdict == CONDITIONAL else "")
            return Finding(year, "year the fitted trend reaches the figure (earliest basis of its method)", verdict,
                           why, f"history.fit_periods('{row['method']}') and fit_periods('cloud') over Epoch AI's "
                           "frontier set (explorer/data/epoch_frontier.csv)", "data")
        verdict = HOLDS
        if row["flagged"]:
            verdict = CONDITIONAL if "matches" in row["verdict"] else FAILS
        why = row["verdict"]
        if verdict == CONDITIONAL:
            why += " - the figure holds only for that other estimate, not for the year the article gives"
        return Finding(float(row["sourced_usd"]), "USD (sourced)", verdict, why,
                       f"history.csv row {row['sourced_id']} for {row['model']} ({row['method']})", "data")

    return test


def _history_row(model: str, method: str = "cloud") -> pd.Series:
    from explorer.history import load_history

    h = load_history()
    return h[(h["model"] == model) & (h["method"] == method)].iloc[0]


def _roberta_cheaper() -> Finding:
    roberta = float(_history_row("RoBERTa Large")["cost_usd"])
    bert = float(_history_row("BERT-Large")["cost_usd"])
    ratio = roberta / bert
    return Finding(ratio, "x (RoBERTa Large / BERT-Large, AI Index)", HOLDS if ratio < 1 else FAILS,
                   f"AI Index 2024: RoBERTa Large ${roberta:,.0f} vs BERT-Large ${bert:,.0f}: "
                   f"{ratio:.0f}x more, not less",
                   "history.csv rows aiindex_roberta_large and aiindex_bert_large", "data")


def _gpt3_energy() -> Finding:
    run = published_run("GPT-3 175B (davinci)")
    measured = float(run["energy_mwh"])
    e = estimate(presets()["gpt3"].scenario)
    verdict = verdict_of(measured, 1287)
    return Finding(measured, "MWh (measured)", verdict,
                   f"Patterson et al. 2021 measured {measured:,.0f} MWh; the model's replay of the run "
                   f"(gpt3 preset) gives {e.energy_mwh:,.0f} MWh ({e.energy_mwh / measured:.2f}x)",
                   "published_runs.csv GPT-3 175B; estimate(presets()['gpt3'])", "data")


def _gemini_vs_gpt4() -> Finding:
    gem = float(_history_row("Gemini 1.0 Ultra")["cost_usd"])
    gpt4 = float(_history_row("GPT-4")["cost_usd"])
    ratio = gem / gpt4
    return Finding(ratio, "x (Gemini 1.0 Ultra / GPT-4, AI Index)", verdict_of(ratio, 2.5),
                   f"AI Index 2024: ${gem / 1e6:,.1f}M / ${gpt4 / 1e6:,.1f}M = {ratio:.2f}x",
                   "history.csv rows aiindex_gemini_ultra and aiindex_gpt4", "data")


def _six_nd() -> Finding:
    run = published_run("GPT-3 175B (davinci)")
    n, d, reported = float(run["params_total"]), float(run["tokens"]), float(run["train_flop"])
    ratio = 6 * n * d / reported
    e = estimate(presets()["gpt3"].scenario)
    return Finding(ratio, "x (6·N·D / reported FLOP, GPT-3)", verdict_of(ratio, 1.0, 0.1),
                   f"6·N·D = {6 * n * d:.3g} FLOP vs {reported:.3g} reported (Brown et al. 2020); "
                   f"the model's attention term adds {e.train_flop / (6 * n * d) - 1:.1%} at 2,048 tokens "
                   "of context, more for long sequences",
                   "published_runs.csv GPT-3 175B: params, tokens, train_flop", "data")


def _fifty_vs_eighty() -> Finding:
    # the claim is about the compute bill: the final run alone (no data, team or experiments)
    base = Scenario(params=70e9, tokens=1.4e12, gpu="h100-sxm", gpus=1024, data_usd_per_1m_tokens=0.0,
                    team_headcount=0.0, experiments_multiplier=1.0)
    lo, hi = estimate(base.replace(mfu=0.5)), estimate(base.replace(mfu=0.8))
    ratio = lo.usd_per_1m_tokens / hi.usd_per_1m_tokens
    return Finding(ratio, "x (unit cost at 50% / at 80%)", verdict_of(ratio - 1, 0.6),
                   f"unit cost {lo.usd_per_1m_tokens:.2f} vs {hi.usd_per_1m_tokens:.2f} USD per 1M tokens: "
                   f"the 50% run costs {ratio - 1:.0%} more (the 80% run {1 - 1 / ratio:.1%} less). "
                   f"Note no published run reached MFU {_d('calibrated_mfu_max'):.2f}+",
                   "70B dense, 1.4T tokens, 1,024 H100, mfu 0.5 vs 0.8", "model")


def _review_120() -> Finding:
    median = _d("mfu_dense")
    trigger = median / 1.2
    base = Scenario(params=70e9, tokens=1.4e12, gpu="h100-sxm", gpus=1024)
    ratio = estimate(base.replace(mfu=trigger)).cost_usd["compute"] / estimate(base.replace(mfu=median)).cost_usd["compute"]
    verdict = graded(trigger < MFU_MIDDLE_HALF[0], True)
    return Finding(trigger, "MFU at which the run reaches 120% of plan", verdict,
                   f"planned at the median MFU {median}, the compute bill reaches {ratio:.0%} of plan when MFU "
                   f"falls to {trigger:.3f}: inside the middle half of measured runs (0.30-0.50, Epoch AI), "
                   "so the rule fires for ordinary spread. A sensible trigger only if the plan's own "
                   "uncertainty is narrower than +-20% (it is a policy, not a fact)",
                   "70B dense on 1,024 H100 at the median MFU vs MFU / 1.2", "model")


def _energy_linear() -> Finding:
    base = Scenario(params=70e9, tokens=1.4e12, gpu="h100-sxm", gpus=1024)
    e1 = estimate(base)
    longer = estimate(base.replace(tokens=2.8e12))        # twice the time, same cluster
    fewer = estimate(base.replace(gpus=512))              # twice the time, half the cluster
    r_long = longer.energy_mwh / e1.energy_mwh
    r_fewer = fewer.energy_mwh / e1.energy_mwh
    verdict = graded(verdict_of(r_fewer, 2.0) == HOLDS, verdict_of(r_long, 2.0) == HOLDS)
    return Finding(r_long, "x energy for 2x duration (same cluster)", verdict,
                   f"twice the tokens on the same cluster: {longer.wall_days / e1.wall_days:.2f}x the days, "
                   f"{r_long:.2f}x the energy; the same work on half the GPUs: "
                   f"{fewer.wall_days / e1.wall_days:.2f}x the days but {r_fewer:.2f}x the energy. "
                   "Energy is linear in GPU-hours, so in duration only at a fixed cluster size",
                   "70B dense, 1,024 H100: tokens doubled; GPUs halved", "model")


# ---------------------------------------------------------------- article B
def _dense70() -> Scenario:
    return Scenario(params=70e9, tokens=1.4e12, gpu="h100-sxm", precision="bf16", gpus=1024)


def _savings_40_60() -> Finding:
    base = estimate(_dense70())
    fp8 = estimate(_dense70().replace(precision="fp8"))
    moe = estimate(_dense70().replace(precision="fp8", architecture="moe", active_params=70e9 / 4))
    s_fp8 = 1 - fp8.cost_usd["compute"] / base.cost_usd["compute"]
    s_both = 1 - moe.cost_usd["compute"] / base.cost_usd["compute"]
    verdict = graded(in_range(s_fp8, 0.4, 0.6), s_both >= 0.4)
    return Finding(s_fp8, "fraction of compute cost saved by FP8 alone", verdict,
                   f"FP8 alone saves {s_fp8:.0%} (measured speed-up {_d('fp8_speedup')}x); FP8 plus an MoE with "
                   f"a quarter of the parameters active saves {s_both:.0%} - if that MoE matches the dense "
                   "model's quality. 40-60% needs the MoE (or fewer tokens from data cleaning); "
                   "data cleaning's effect on tokens has no sourced figure here",
                   "70B dense BF16 on 1,024 H100 vs FP8 vs FP8 + MoE (active = N/4)", "model")


def _fp8_memory() -> Finding:
    s = _dense70()
    bf, f8 = estimate(s).memory_gb_per_gpu, estimate(s.replace(precision="fp8")).memory_gb_per_gpu
    state = lambda m: m["weights"] + m["gradients"] + m["optimizer"]  # noqa: E731
    saved_state = 1 - state(f8) / state(bf)
    saved_weights = 1 - f8["weights"] / bf["weights"]
    saved_total = 1 - f8["total"] / bf["total"]
    verdict = graded(verdict_of(saved_state, 0.5) == HOLDS, verdict_of(saved_weights, 0.5) == HOLDS)
    return Finding(saved_state, "fraction of training state (weights+grads+optimizer) saved", verdict,
                   f"FP8 mixed precision computes in FP8 but keeps BF16 weights ({saved_weights:.0%} saved), "
                   f"FP32 master weights and moments (12 bytes/param), so the training state shrinks "
                   f"{saved_state:.1%}; only the linear layers' cached inputs are FP8 (7 of 34 bytes per "
                   f"activation value saved), so total memory per GPU falls {saved_total:.0%} here",
                   "70B dense on 1,024 H100, BF16 vs FP8: Estimate.memory_gb_per_gpu", "model")


def _chips_30() -> Finding:
    speedup = _d("fp8_speedup")
    verdict, _ = _judge("fp8", 1 - 1 / speedup)  # a >= 30% speed-up is a >= 23.1% cheaper final run
    return Finding(speedup - 1, "measured end-to-end FP8 speed-up over BF16", verdict,
                   f"measured FP8 speed-ups are {FP8_MEASURED_SPEEDUP[0]}-{FP8_MEASURED_SPEEDUP[1]}x (defaults.csv fp8_speedup: {speedup}x, "
                   f"{catalog.defaults()['fp8_speedup'].source}); 30%+ holds only at the top of that range. "
                   "On paper the FP8 peak is 2x",
                   "defaults.csv fp8_speedup", "data")


def _lora() -> Finding:
    lora = presets()["lora_70b"].scenario
    full = lora.replace(training_kind="full_finetune")
    e_l, e_f = estimate(lora), estimate(full)
    saved = 1 - e_l.cost_usd["compute"] / e_f.cost_usd["compute"]
    scratch = estimate(lora.replace(training_kind="pretrain", tokens=LLAMA2_TOKENS, gpus=1024))
    vs_scratch = 1 - e_l.cost_usd["compute"] / scratch.cost_usd["compute"]
    # the article sets LoRA against training the model (全量训练), as its other savings are: full pre-training
    verdict = HOLDS if vs_scratch >= 0.9 else FAILS
    return Finding(vs_scratch, "fraction of compute cost saved vs pre-training the same model", verdict,
                   f"LoRA (1% trainable) on the preset's tokens saves {vs_scratch:.2%} of compute against "
                   f"pre-training 70B on Llama 2's 2T tokens, as the article compares. Per token against a full "
                   f"fine-tune it saves only {saved:.0%} (no weight gradients: about 4·N·D vs 6·N·D); its big "
                   f"saving there is memory: {e_l.min_gpus_memory} vs {e_f.min_gpus_memory} GPUs at least",
                   "lora_70b preset vs pre-training the same 70B model on 2T tokens", "model")


def _moe_quarter() -> Finding:
    # the article's source for "1/4 of the compute" is LLaMA-MoE: 3.0-3.5B of 6.7B parameters active
    frac = sum(LLAMA_MOE_ACTIVE_B) / 2 / LLAMA_MOE_TOTAL_B
    dense = estimate(_dense70())
    moe = estimate(_dense70().replace(architecture="moe", active_params=70e9 * frac))
    flop = moe.train_flop / dense.train_flop
    hours = moe.gpu_hours / dense.gpu_hours
    verdict, words = _judge("moe", 1 - flop)
    return Finding(flop, "x compute (FLOP) of the MoE vs the dense model", verdict,
                   f"LLaMA-MoE activates {LLAMA_MOE_ACTIVE_B[0]}-{LLAMA_MOE_ACTIVE_B[1]}B of {LLAMA_MOE_TOTAL_B}B "
                   f"parameters (Zhu et al. 2024): with that share active, FLOP are {flop:.2f}x the dense model's, "
                   f"not 0.25x; {words}. MoE runs also reach lower MFU (x{_d('moe_mfu_factor')}): GPU-hours "
                   f"{hours:.2f}x. 'Equal quality' is the article's; the model cannot test quality",
                   f"70B dense vs 70B MoE with {frac:.1%} active (LLaMA-MoE), 1.4T tokens, 1,024 H100", "model")


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
    shown = ", ".join(f"{m} {a:.1%}" for m, a in real.items())
    return Finding(needed, "largest active/total fraction that saves 45%", verdict,
                   f"the ERNIE 4.5 and Qwen 2.5 training costs the article cites are not published, so the "
                   f"figure itself cannot be checked; in the model, switching a dense run to an MoE of the same "
                   f"total size saves 45% when at most {needed:.0%} of the parameters are active and quality is "
                   f"matched. Published MoE runs activate {shown}",
                   "70B dense vs MoE of the same total size; active fraction solved for a 45% saving", "model")


def _data_share() -> Finding:
    run = presets()["startup_7b"].scenario
    e = estimate(run)
    other = e.total_usd - e.cost_usd["data"]
    lo, hi = (s / (1 - s) * other / (run.tokens / 1e6) for s in (0.3, 0.4))
    share = e.cost_usd["data"] / e.total_usd
    return Finding(lo, "USD per 1M tokens of data needed for a 30% share", graded(False, lo > 0),
                   f"for the startup_7b preset at the sourced cost of cleaning open web text "
                   f"(${run.data_usd_per_1m_tokens:.4g} per 1M tokens, FineWeb) data is {share:.1%} of the "
                   f"budget; it is 30-40% (total without data ${other:,.0f}) only if data costs "
                   f"${lo:.3f}-{hi:.3f} per 1M training tokens (bought or licensed text), and the share falls "
                   "as compute grows",
                   "startup_7b preset; data_usd_per_1m_tokens solved for a 30% and 40% share", "model")


def _filter_share() -> Finding:
    raw_before, raw_after = 1 / 0.10, 1 / 0.80
    saved = 1 - raw_after / raw_before
    return Finding(saved, "fraction less raw data to process per useful token", CANNOT_CHECK,
                   f"if the useful share rises from 10% to 80%, raw data per useful token falls from "
                   f"{raw_before:.0f} to {raw_after:.2f} ({saved:.1%} less to collect and clean). The two shares "
                   "are the article's own, with no source in the project data; training compute depends on "
                   "the tokens trained, which this does not change",
                   "arithmetic on the claim's numbers", "arithmetic")


def _synthetic() -> Finding:
    price_ratio = 1 - 0.70
    return Finding(price_ratio, "synthetic / human cost per labelled example needed", CANNOT_CHECK,
                   f"a 70% cut needs a synthetic example (generation + filtering + the seed data) to cost at most "
                   f"{price_ratio:.0%} of a human-labelled one; the project has no sourced price for either "
                   "(the article cites an unnamed cloud vendor)",
                   "arithmetic on the claim's numbers", "arithmetic")


def _continual() -> Finding:
    cont = presets()["continual_34b"].scenario
    scratch = cont.replace(training_kind="pretrain", tokens=LLAMA2_TOKENS)
    saved = 1 - estimate(cont).cost_usd["compute"] / estimate(scratch).cost_usd["compute"]
    verdict, words = _judge("continual_pretrain", saved)
    return Finding(saved, "fraction of compute saved (Code Llama 34B vs 34B from scratch)", verdict,
                   f"Code Llama 34B continued Llama 2 34B on 500B tokens; pre-training it took 2T: the "
                   f"continual run saves {saved:.0%}, not 90%+ ({words}). The saving is 1 - new tokens / "
                   "from-scratch tokens: 90%+ only when the new data is under a tenth of the original",
                   "continual_34b preset vs the same model pre-trained on 2T tokens", "model")


def _west_power() -> Finding:
    avg = catalog.region("cn-avg")
    west = [catalog.region(r) for r in ("cn-ningxia", "cn-inner-mongolia")]
    saved = [1 - r.electricity_usd_per_kwh / avg.electricity_usd_per_kwh for r in west]
    lo, hi = min(saved), max(saved)
    verdict, _ = _judge("region_west", (lo + hi) / 2)
    return Finding((lo + hi) / 2, "fraction of electricity price saved (west vs national average)", verdict,
                   f"industrial electricity: Ningxia ${west[0].electricity_usd_per_kwh}/kWh "
                   f"({west[0].price_year}), Inner Mongolia ${west[1].electricity_usd_per_kwh}/kWh "
                   f"({west[1].price_year}) vs China average ${avg.electricity_usd_per_kwh}/kWh "
                   f"({avg.price_year}): {lo:.0%}-{hi:.0%} cheaper (prices of different years). "
                   "The grid there is dirtier (see regions.csv), and a cloud rate already includes power",
                   "regions.csv: cn-ningxia, cn-inner-mongolia vs cn-avg", "data")


def _spot() -> Finding:
    run = presets()["startup_7b"].scenario.replace(pricing="on_demand")
    od = estimate(run).cost_usd["compute"]
    sp = estimate(run.replace(pricing="spot")).cost_usd["compute"]
    ratio = sp / od
    verdict, _ = _judge("spot", 1 - ratio, run.gpu)  # 10-30% of on-demand = a 70-90% saving
    return Finding(ratio, "spot / on-demand compute cost", verdict,
                   f"with the default spot discount ({_d('spot_discount'):.0%}; "
                   f"{catalog.defaults()['spot_discount'].source}) and preemption losses, spot costs "
                   f"{ratio:.0%} of on-demand. 10-30% is reached only at the deepest discounts (70% off), "
                   "and large synchronous jobs rarely get that much spot capacity",
                   "startup_7b preset, on-demand vs spot", "model")


def _utilization() -> Finding:
    top = _d("calibrated_mfu_max")
    return Finding(top, "highest MFU of a published run", graded(top >= 0.85, True),
                   f"as MFU, 85% is far above any published run (highest {top}; median {_d('mfu_dense')}), and "
                   "most well-run jobs are below 60%. The rule holds only for the nvidia-smi "
                   "'GPU utilization' counter (share of time a kernel runs), a different and much looser measure",
                   "defaults.csv calibrated_mfu_max and mfu_dense", "data")


def _hundred_b_cny() -> Finding:
    on_demand = Scenario(params=100e9, tokens=2e12, gpu="h800", precision="bf16", gpus=1024,
                         pricing="on_demand", region="cn-avg", currency="CNY")
    e = estimate(on_demand)
    cny = e.cost()["compute"]
    cheap = on_demand.replace(precision="fp8", architecture="moe", active_params=100e9 / 4,
                              training_kind="continual_pretrain", tokens=200e9)
    cheap_cny = estimate(cheap).cost()["compute"]
    ok = in_range(cny, 1e6, 1e8) and cheap_cny < 1e6
    return Finding(cny, "CNY, compute of a 100B dense run on demand", HOLDS if ok else CONDITIONAL,
                   f"100B dense on 2T tokens (20 per parameter, Chinchilla) on H800 at "
                   f"${prices.quote('h800', 'on_demand').usd_per_gpu_hour:.2f}/GPU-hour (specialist-cloud median): "
                   f"{cny / 1e6:,.1f}M CNY; FP8 + MoE (a quarter active) + continual training on 200B tokens: "
                   f"{cheap_cny / 1e6:,.2f}M CNY. The 'under a million' needs all three and a small "
                   "continual-training corpus",
                   "100B, 2T tokens, 1,024 H800 on demand, CNY; then FP8 + MoE + 200B continual tokens", "model")


def _domestic() -> Finding:
    asc = catalog.accelerator("ascend-910b")
    per = lambda a: a.purchase_usd / a.peak_tflops["fp16"]  # noqa: E731  USD per peak TFLOP/s
    vs = {g: 1 - per(asc) / per(catalog.accelerator(g)) for g in ("a100-80gb", "h100-sxm", "h800")}
    verdict = CONDITIONAL if any(in_range(v, 0.2, 0.3) for v in vs.values()) else FAILS
    words = ", ".join(f"{g} {v:+.0%}" for g, v in vs.items())
    return Finding(vs["h800"], "fraction cheaper per peak FP16 TFLOP/s than H800", verdict,
                   f"purchase price per peak FP16 TFLOP/s, Ascend 910B cheaper by: {words}. 20-30% holds "
                   "against the A100, not against the H100/H800; equal MFU assumed, subsidies not modelled",
                   "accelerators.csv purchase price / peak FP16", "data")


def _fp8_int4_mainstream() -> Finding:
    runs = catalog.published_runs()
    stated = [r for r in runs if r["precision"]]
    fp8 = [r["model"] for r in stated if "fp8" in r["precision"].lower()]
    int4 = [r["model"] for r in stated if "int4" in r["precision"].lower()]
    share = len(fp8) / len(stated)
    return Finding(share, "share of published runs with stated precision trained in FP8", FAILS if share < 0.5 else HOLDS,
                   f"of {len(runs)} published runs, {len(stated)} state their precision: {len(fp8)} FP8 "
                   f"({', '.join(fp8)}), {len(int4)} INT4; the rest BF16/FP16/FP32. INT4 is an inference format",
                   "published_runs.csv precision column", "data")


A_SECTION2 = "section 二 (成本量级演进)"
CLAIMS: tuple[Claim, ...] = (
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
    Claim("a_6nd", ARTICLE_A, "section 四.1, 五.3", "总计算量(FLOPs) ≈ 6 × 参数量 × 训练Token数",
          "Training compute C ≈ 6·N·D", _six_nd),
    Claim("a_util_50_80", ARTICLE_A, "section 四.2", "利用率50%与80%相比，等效单位成本相差约60%",
          "50% vs 80% utilization: unit cost differs by about 60%", _fifty_vs_eighty),
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
    Claim("b_100b_cny", ARTICLE_B, "FAQ Q1", "千亿参数大模型……按需实例全量训练，成本可能在数百万至千万人民币级别；MoE+量化+增量训练……百万元以内",
          "A 100B model costs millions to tens of millions CNY on demand, under 1M CNY with MoE + quantization "
          "+ continual training", _hundred_b_cny),
    Claim("b_domestic_20_30", ARTICLE_B, "FAQ Q3", "在同等算力下，国产芯片采购成本通常低于进口芯片20%-30%",
          "Domestic accelerators cost 20-30% less for equal compute", _domestic),
    Claim("b_fp8_int4_mainstream", ARTICLE_B, "混合精度与量化技术", "主流大模型训练已从FP32全面转向FP8甚至INT4量化训练",
          "FP8 and even INT4 training are mainstream", _fp8_int4_mainstream),
)


def check_claims() -> pd.DataFrame:
    """Test every claim.

    Returns
    -------
    pandas.DataFrame
        One row per claim: ``id, article, section, claim_en, claim_zh, test,
        number, unit, verdict, why, basis``.
    """
    rows = []
    for c in CLAIMS:
        f = c.test()
        if f.verdict not in VERDICTS:
            raise AssertionError(f"{c.id}: verdict {f.verdict!r}")
        rows.append({"id": c.id, "article": c.article, "section": c.section, "claim_en": c.claim_en,
                     "claim_zh": c.claim_zh, "test": f.test, "number": f.number, "unit": f.unit,
                     "verdict": f.verdict, "why": f.why, "basis": f.basis})
    return pd.DataFrame(rows)


