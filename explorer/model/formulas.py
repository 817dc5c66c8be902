"""The cost model's formulas: one public, cited function per formula.

Every function is pure and vectorized: it takes numbers or numpy arrays that
broadcast, and returns arrays. Units are in the names and in brackets in the
docstrings (pvlib's convention). :func:`explorer.model.compute` chains them.
"""

from __future__ import annotations

import math

import numpy as np

#: A quantity the formulas take and return: a float, or an array of them (the vectorized model).
Num = float | np.ndarray

__all__ = [
    "HOURS_PER_YEAR",
    "DAYS_PER_MONTH",
    "model_shape",
    "moe_shape",
    "attention_flop_per_token",
    "train_flop",
    "ideal_gpu_hours",
    "daly_checkpoint_interval_hours",
    "goodput",
    "billed_gpu_hours",
    "training_state_bytes_per_param",
    "activation_bytes_per_layer",
    "min_gpus_for_memory",
    "memory_bytes_per_gpu",
    "critical_batch_tokens",
    "energy_kwh",
    "EPOCH_AMORTIZATION_PER_YEAR",
    "epoch_value_usd",
    "AMORTIZATION_RULES",
    "capital_recovery_factor",
    "cluster_capital_usd",
    "owned_hourly_usd",
    "hosting_usd_per_gpu_hour",
    "breakeven_months",
]

#: Hours in a year of 365.25 days [h].
HOURS_PER_YEAR = 8766.0
#: Days in a month, 365.25 / 12 [days].
DAYS_PER_MONTH = 30.4375
#: Smallest normal float [1]: a failure rate below it never interrupts (:func:`goodput`).
_TINY = float(np.finfo(float).tiny)


def model_shape(params: Num) -> tuple[np.ndarray, np.ndarray]:
    """Layers and width of a standard decoder-only transformer of ``params`` parameters.

    The standard shapes satisfy ``N ~ 12 L d**2`` (Kaplan et al. 2020 [1]_, table 1:
    non-embedding parameters ``12 n_layer d_model**2``) with an aspect ratio
    ``d / L ~ 128`` (GPT-3 175B [2]_: 12288 / 96 = 128; Llama 3.1 405B [3]_: 16384 / 126 = 130),
    so ``d = (128 N / 12) ** (1/3)`` and ``L = d / 128``.

    Parameters
    ----------
    params : array_like
        Parameters N [1].

    Returns
    -------
    n_layers, d_model : ndarray
        Layers L [1] (at least 1) and width d [1], rounded to whole numbers.

    References
    ----------
    .. [1] Kaplan, J., McCandlish, S., Henighan, T., Brown, T. B., Chess, B., Child, R.,
       Gray, S., Radford, A., Wu, J., Amodei, D. (2020). "Scaling Laws for Neural
       Language Models". arXiv:2001.08361.
    .. [2] Brown, T. B. et al. (2020). "Language Models are Few-Shot Learners".
       arXiv:2005.14165, table 2.1.
    .. [3] Llama Team, AI @ Meta (2024). "The Llama 3 Herd of Models". arXiv:2407.21783.

    Examples
    --------
    >>> L, d = model_shape(175e9)
    >>> int(L), int(d)
    (96, 12313)
    """
    params = np.asarray(params, dtype=float)
    d = np.cbrt(128.0 * params / 12.0)
    return np.maximum(np.round(d / 128.0), 1.0), np.round(d)


def moe_shape(active_params: Num) -> tuple[np.ndarray, np.ndarray]:
    """Layers and width of a Mixture-of-Experts transformer from its *active* parameters.

    The experts multiply the feed-forward weights but not the layers, the
    width or the attention, so an MoE has roughly the shape of a dense model
    of its active size: :func:`model_shape` of ``Na``. Sizing it from the total
    count would give attention for a dense model of that total (DeepSeek-V3's
    671B: 151 layers and d = 19,272).

    Checked against published shapes (not fitted): DeepSeek-V3, 37B active,
    61 layers, d = 7168 (DeepSeek-AI 2024 [1]_, section 4.2) gives
    57 and 7335; Mixtral 8x7B, 12.9B active, 32 layers, d = 4096 (Jiang et al.
    2024 [2]_, table 1 and section 2.1) gives 40 and 5163.

    Parameters
    ----------
    active_params : array_like
        Parameters active per token Na [1].

    Returns
    -------
    n_layers, d_model : ndarray
        Layers L [1] and width d [1].

    References
    ----------
    .. [1] DeepSeek-AI (2024). "DeepSeek-V3 Technical Report". arXiv:2412.19437.
    .. [2] Jiang, A. Q. et al. (2024). "Mixtral of Experts". arXiv:2401.04088.

    Examples
    --------
    >>> L, d = moe_shape(37e9)  # DeepSeek-V3
    >>> int(L), int(d)
    (57, 7335)
    """
    return model_shape(active_params)


def attention_flop_per_token(n_layers: Num, d_model: Num, seq_len: Num) -> Num:
    """Attention FLOP per training token (forward and backward), ``12 L d s`` [FLOP].

    The ``Q K^T`` and ``softmax(.) V`` products cost ``2 * 2 * s * d`` FLOP per token
    and layer in the forward pass, three times that with the backward pass
    (Chowdhery et al. 2022 [1]_, appendix B; Korthikanti et al. 2022 [2]_).

    Parameters
    ----------
    n_layers, d_model, seq_len : array_like
        Layers L [1], width d [1] and training sequence length s [tokens].

    References
    ----------
    .. [1] Chowdhery, A. et al. (2022). "PaLM: Scaling Language Modeling with Pathways".
       arXiv:2204.02311.
    .. [2] Korthikanti, V., Casper, J., Lym, S., McAfee, L., Andersch, M., Shoeybi, M.,
       Catanzaro, B. (2022). "Reducing Activation Recomputation in Large Transformer
       Models". arXiv:2205.05198.

    Examples
    --------
    >>> float(attention_flop_per_token(80, 8192, 2048))  # LLaMA-65B
    16106127360.0
    """
    return 12.0 * np.asarray(n_layers, float) * np.asarray(d_model, float) * np.asarray(seq_len, float)


def train_flop(flop_per_param_token: Num, active_params: Num, tokens: Num, attention_per_token: Num = 0.0) -> Num:
    """Training compute ``C = k Na D + A D`` [FLOP].

    ``k = 6`` FLOP per parameter and token for pre-training and full fine-tuning
    (Kaplan et al. 2020 [1]_; EleutherAI, *Transformer Math 101* [2]_), ``4 + 6 f`` for
    LoRA with trainable fraction f (no weight gradients for frozen weights);
    ``A`` is :func:`attention_flop_per_token`. MoE: ``Na`` is the active count.

    Parameters
    ----------
    flop_per_param_token : array_like
        k [FLOP].
    active_params : array_like
        Na, parameters active per token [1].
    tokens : array_like
        Training tokens D [1].
    attention_per_token : array_like
        A [FLOP].

    References
    ----------
    .. [1] Kaplan, J., McCandlish, S., Henighan, T., Brown, T. B., Chess, B., Child, R.,
       Gray, S., Radford, A., Wu, J., Amodei, D. (2020). "Scaling Laws for Neural
       Language Models". arXiv:2001.08361.
    .. [2] Anthony, Q., Biderman, S., Schoelkopf, H. (2023). "Transformer Math 101".
       EleutherAI blog, https://blog.eleuther.ai/transformer-math/.

    Examples
    --------
    >>> float(train_flop(6.0, 175e9, 300e9))  # GPT-3 without attention
    3.15e+23
    """
    return (np.asarray(flop_per_param_token, float) * active_params + attention_per_token) * np.asarray(tokens, float)


def ideal_gpu_hours(flop: Num, peak_flop_per_s: Num, mfu: Num) -> Num:
    """GPU-hours at steady-state MFU, ``C / (P u 3600)`` [GPU-hour].

    Parameters
    ----------
    flop : array_like
        Training compute C [FLOP].
    peak_flop_per_s : array_like
        Dense peak P of one accelerator at the training precision [FLOP/s].
    mfu : array_like
        Model FLOPs utilization u, measured in steady state [1].
    """
    return np.asarray(flop, float) / (np.asarray(peak_flop_per_s, float) * mfu * 3600.0)


def daly_checkpoint_interval_hours(mtbf_hours: Num, write_hours: Num) -> Num:
    """Optimal compute time between checkpoints, Daly's higher-order estimate [h].

    ``tau = sqrt(2 d M) [1 + sqrt(d / 2M) / 3 + (d / 2M) / 9] - d`` for
    ``d < 2M``, else ``M`` (Daly 2006 [1]_, eq. 37). It refines Young's
    (1974) [2]_ ``sqrt(2 d M)``.

    Parameters
    ----------
    mtbf_hours : array_like
        Mean time between interruptions of the whole job M [h].
    write_hours : array_like
        Time to write one checkpoint d [h].

    References
    ----------
    .. [1] Daly, J. T. (2006). "A higher order estimate of the optimum checkpoint interval
       for restart dumps". Future Generation Computer Systems 22(3), 303-312.
    .. [2] Young, J. W. (1974). "A first order approximation to the optimum checkpoint
       interval". Communications of the ACM 17(9), 530-531.

    Examples
    --------
    Daly's own cases (5-minute dumps): M = 24 h gives 117 min, M = 15 min gives 9.1 min.

    >>> round(float(daly_checkpoint_interval_hours(24.0, 5 / 60)) * 60)
    117
    >>> round(float(daly_checkpoint_interval_hours(0.25, 5 / 60)) * 60, 1)
    9.1
    """
    m = np.asarray(mtbf_hours, float)
    d = np.asarray(write_hours, float)
    two_m = 2.0 * m
    x = d / two_m
    tau = np.sqrt(x)  # sqrt(2 d M) [1 + sqrt(x) / 3 + x / 9] - d, term by term in place (the same roundings)
    tau /= 3.0
    tau += 1.0
    tau += x / 9.0
    tau *= np.sqrt(2.0 * d * m)
    tau -= d
    short = d < two_m
    if np.ndim(tau) and short.all():  # d < 2M everywhere (as usual): tau as it is
        return tau
    return np.where(short, tau, m)


def goodput(cluster_failures_per_hour: Num, write_hours: Num, restart_hours: Num, interval_hours: Num = np.nan) -> Num:
    """Useful fraction of wall-clock time under failures and checkpoints [1].

    Daly 2006 [1]_ (eq. 20): a job of solve time ``T`` checkpointing every ``tau``
    hours (each write taking ``d``), interrupted at rate ``1/M`` and restarting
    in ``R``, takes ``M e^(R/M) (e^((tau + d)/M) - 1) T / tau`` hours, so the
    goodput is ``tau / (M e^(R/M) (e^((tau + d)/M) - 1))``. Without failures it is
    ``tau / (tau + d)`` (1 when never checkpointing).

    With no write stall (``d = 0``, recovery from a live in-memory replica of
    the state, as Gemini 1.0 does [2]_) and no interval given, the optimum interval
    tends to 0 and the goodput to its limit ``e^(-R/M)``: each interruption
    costs only the restart.

    Parameters
    ----------
    cluster_failures_per_hour : array_like
        Interruptions of the whole job per hour, ``1/M`` [1/h].
    write_hours, restart_hours : array_like
        Checkpoint write time d and restart time R [h].
    interval_hours : array_like
        Checkpoint interval tau [h]; NaN: :func:`daly_checkpoint_interval_hours`.

    References
    ----------
    .. [1] Daly, J. T. (2006). "A higher order estimate of the optimum checkpoint interval
       for restart dumps". Future Generation Computer Systems 22(3), 303-312.
    .. [2] Gemini Team, Google (2023). "Gemini: A Family of Highly Capable Multimodal
       Models". arXiv:2312.11805.

    Examples
    --------
    Daly's M = 24 h, d = 5 min, R = 10 min, tau = 117 min: wall time over solve
    time is ``24 e^(1/144) (e^(2.0333/24) - 1) / 1.95 = 1.0958`` (by hand).

    >>> round(1 / float(goodput(1 / 24, 5 / 60, 10 / 60, 117 / 60)), 4)
    1.0958

    No write stall: one interruption per hour and 3-minute restarts keep
    ``e^(-0.05) = 0.9512`` (by hand).

    >>> round(float(goodput(1.0, 0.0, 0.05)), 4)
    0.9512
    """
    rate = np.asarray(cluster_failures_per_hour, float)
    d = np.asarray(write_hours, float)
    r = np.asarray(restart_hours, float)
    interval = np.asarray(interval_hours, float)
    optimal = np.isnan(interval)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if d.ndim == 0 and d <= 0.0 and optimal.ndim == 0 and optimal:  # no write stall: the limit
            g = np.exp(-r * rate)
        else:
            m = 1.0 / rate
            tau = daly_checkpoint_interval_hours(m, d)
            if not (optimal.ndim == 0 and optimal):
                tau = np.where(optimal, tau, interval)
            failing = np.exp(r * rate) * np.expm1((tau + d) * rate) / rate
            g = tau / failing
            # a subnormal rate (below the smallest normal float, 2.2e-308 per hour): never interrupted, as at 0
            # (1 / rate overflows, inf / inf was 0; (tau + d) rate rounds to the subnormal grid, 5e-324 gave 1)
            failing_ok = (rate >= _TINY) & np.isfinite(tau)
            if not failing_ok.all():  # else no run free of failures anywhere (the usual case)
                free = np.where(np.isfinite(tau) & (tau > 0), tau / (tau + d), 1.0)
                g = np.where(failing_ok, g, free)
            if (d <= 0.0).any():
                g = np.where((d <= 0.0) & optimal, np.exp(-r * rate), g)
    g = np.asarray(g, float)
    if g.ndim == 0:  # one value (an estimate): as below, without the array machinery (NaN 0, then within [0, 1])
        v = float(g)
        return np.float64(0.0 if v != v else min(max(v, 0.0), 1.0))
    # a fresh array here: cleaned in place, NaN 0, then within [0, 1] (fmax drops the NaN)
    np.fmax(g, 0.0, out=g)
    return np.minimum(g, 1.0, out=g)


def billed_gpu_hours(ideal_hours: Num, goodput_fraction: Num, other_losses_factor: Num = 1.0) -> Num:
    """GPU-hours paid for: ideal hours over goodput, times the other losses [GPU-hour].

    ``other_losses_factor`` (>= 1) covers time lost beyond failures and
    checkpoints: evaluations, restarts of the software stack, stragglers,
    ramp-up (``defaults.csv``, derived from runs reporting both steady-state MFU
    and allocated hours). Zero goodput gives infinite hours.
    """
    g = np.asarray(goodput_fraction, float)
    with np.errstate(divide="ignore"):
        return np.where(g > 0, np.asarray(ideal_hours, float) / g, np.inf) * other_losses_factor


def training_state_bytes_per_param(weight_bytes: Num, grad_bytes: Num, optimizer_bytes: Num,
                                   trainable_fraction: Num = 1.0) -> Num:
    """Training state per parameter: weights, plus gradients and optimizer state of trainable ones [bytes].

    Mixed-precision AdamW keeps ``2 + 2 + 12 = 16`` bytes per parameter
    (Rajbhandari et al. 2020 [1]_, section 3.1). FP8 mixed precision keeps
    these 16 (BF16 weights, FP32 master copy; ``precisions.csv``); a format
    storing 1-byte weights would hold ``1 + 2 + 12 = 15``.

    References
    ----------
    .. [1] Rajbhandari, S., Rasley, J., Ruwase, O., He, Y. (2020). "ZeRO: Memory
       Optimizations Toward Training Trillion Parameter Models". SC20; arXiv:1910.02054.

    Examples
    --------
    >>> float(training_state_bytes_per_param(2, 2, 12)), float(training_state_bytes_per_param(1, 2, 12))
    (16.0, 15.0)
    """
    return np.asarray(weight_bytes, float) + np.asarray(trainable_fraction, float) * (
        np.asarray(grad_bytes, float) + optimizer_bytes)


def activation_bytes_per_layer(seq_len: Num, d_model: Num, n_heads: Num, activation_bytes: Num = 2.0,
                               recompute: str = "selective") -> Num:
    """Activation memory of one transformer layer for one sequence [bytes].

    Korthikanti et al. 2022 [1]_, eqs. 1-2 and section 5 (16-bit activations, micro-batch 1):
    ``s d (34 + 5 a s / d)`` without recomputation, ``34 s d`` with selective
    recomputation (attention scores recomputed), ``2 s d`` with full
    recomputation (only the layer input kept). Scaled by ``activation_bytes / 2``
    for other storage widths. Divide by the tensor-parallel degree when
    sequence parallelism is used.

    Parameters
    ----------
    seq_len, d_model, n_heads : array_like
        s [tokens], d [1], attention heads a [1].
    activation_bytes : array_like
        Bytes per stored activation [bytes].
    recompute : {"none", "selective", "full"}
        What the backward pass recomputes instead of storing.

    References
    ----------
    .. [1] Korthikanti, V., Casper, J., Lym, S., McAfee, L., Andersch, M., Shoeybi, M.,
       Catanzaro, B. (2022). "Reducing Activation Recomputation in Large Transformer
       Models". arXiv:2205.05198.

    Examples
    --------
    GPT-3 175B layer (s = 2048, d = 12288, a = 96), selective:

    >>> float(activation_bytes_per_layer(2048, 12288, 96)) / 2**20
    816.0
    """
    s = np.asarray(seq_len, float)
    d = np.asarray(d_model, float)
    per_value = {"none": 34.0 + 5.0 * np.asarray(n_heads, float) * s / d, "selective": 34.0, "full": 2.0}[recompute]
    return s * d * per_value * np.asarray(activation_bytes, float) / 2.0


def min_gpus_for_memory(state_bytes: Num, activation_bytes: Num, memory_bytes: Num, tensor_parallel: Num = 8.0,
                        unsharded_bytes: Num = 0.0, pipeline_parallel: Num = 1.0) -> Num:
    """Fewest accelerators whose memory holds the training state and the activations [1].

    A layout of ``n`` accelerators splits the model over ``t`` tensor-parallel
    (``t = min(n, tensor_parallel)``) and ``p`` pipeline stages, and the rest is
    data parallel with a ZeRO stage (Rajbhandari et al. 2020 [1]_): the part of
    the state the stage shards (all of it under ZeRO-3/FSDP) is spread over all
    ``n`` accelerators, the rest (``unsharded_bytes``) over the ``t p``
    model-parallel ones. The activations of one in-flight sequence through all
    layers are split over the tensor-parallel group (Korthikanti et al. 2022
    [2]_: with sequence parallelism, and with 1F1B pipelining the first stage
    holds ``p`` micro-batches of ``L / p`` layers, L layers' worth). So ``n``
    fits when ``U / (t p) + (S - U) / n + A / t <= memory`` and ``n >= t p``.
    Infinite when nothing fits even at ``t = tensor_parallel``.

    Parameters
    ----------
    state_bytes, activation_bytes, memory_bytes : array_like
        Training state S [bytes], activations A of one sequence [bytes], memory of one accelerator [bytes].
    tensor_parallel : array_like
        Largest tensor-parallel group [1].
    unsharded_bytes : array_like
        State the ZeRO stage leaves unsharded over data parallelism U [bytes]: 0 under ZeRO-3.
    pipeline_parallel : array_like
        Pipeline stages p [1].

    References
    ----------
    .. [1] Rajbhandari, S., Rasley, J., Ruwase, O., He, Y. (2020). "ZeRO: Memory
       Optimizations Toward Training Trillion Parameter Models". SC20; arXiv:1910.02054.
    .. [2] Korthikanti, V., Casper, J., Lym, S., McAfee, L., Andersch, M., Shoeybi, M.,
       Catanzaro, B. (2022). "Reducing Activation Recomputation in Large Transformer
       Models". arXiv:2205.05198.

    Examples
    --------
    405B parameters at 16 bytes on 80 GB, no activations: 81.

    >>> int(min_gpus_for_memory(405e9 * 16, 0.0, 80e9))
    81

    The same with ZeRO-1 (2 + 2 bytes unsharded) over TP 8 x PP 16 = 128 model-parallel GPUs:
    4 x 405e9 / 128 = 12.66 GB unsharded, so 12 x 405e9 / (80 - 12.66) GB = 72.2, and at least 128:

    >>> int(min_gpus_for_memory(405e9 * 16, 0.0, 80e9, 8, 405e9 * 4, 16))
    128
    """
    state = np.asarray(state_bytes, float)
    act = np.asarray(activation_bytes, float)
    mem = np.asarray(memory_bytes, float)
    t = np.asarray(tensor_parallel, float)
    u = np.asarray(unsharded_bytes, float)
    p = np.asarray(pipeline_parallel, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        small = np.ceil((state + act) / mem)  # n <= t (one stage): everything split n ways
        spare = mem - act / t - u / (t * p)
        large = np.where(spare > 0, np.ceil((state - u) / spare), np.inf)
        n = np.where((small <= t) & (p <= 1.0), small, np.maximum(large, t * p))
    return np.where(np.isnan(mem), np.nan, np.maximum(n, 1.0))


def memory_bytes_per_gpu(gpus: Num, state_bytes: Num, activation_bytes: Num, tensor_parallel: Num = 8.0,
                         unsharded_bytes: Num = 0.0, pipeline_parallel: Num = 1.0) -> tuple[Num, np.ndarray]:
    """Training state and activations on each of ``gpus`` accelerators [bytes] (the layout of :func:`min_gpus_for_memory`).

    Returns
    -------
    state, activations : ndarray
        ``U / (t p) + (S - U) / n`` and ``A / t`` with ``t = min(n, tensor_parallel)`` [bytes].

    Examples
    --------
    GPT-3 175B state (16 bytes) on 1,024 GPUs under ZeRO-3, 816 MiB x 96 layers of activations over TP 8:

    >>> s, a = memory_bytes_per_gpu(1024, 175e9 * 16, 96 * 816 * 2**20)
    >>> round(float(s) / 1e9, 3), round(float(a) / 1e9, 2)
    (2.734, 10.27)
    """
    n = np.asarray(gpus, float)
    t = np.minimum(n, np.asarray(tensor_parallel, float))
    u = np.asarray(unsharded_bytes, float)
    p = np.asarray(pipeline_parallel, float)
    state = u / (t * p) + (np.asarray(state_bytes, float) - u) / n
    return state, np.asarray(activation_bytes, float) / t


def critical_batch_tokens(train_flop: Num) -> Num:
    """Loss-optimal global batch for a compute budget, ``B_opt = 0.2920 C^0.3271`` [tokens].

    DeepSeek-AI (2024) [1]_, section 3.1 (``B_opt = 0.2920 C^0.3271``): fitted
    over small-scale sweeps of batch size and learning rate (``C`` the
    training compute in FLOP, attention included; ``B`` in tokens). The batch a larger compute budget wants grows
    slowly, as McCandlish et al. (2018) [2]_ found for the critical batch: past
    it, a larger batch no longer cuts the steps in proportion.

    References
    ----------
    .. [1] DeepSeek-AI (2024). "DeepSeek LLM: Scaling Open-Source Language Models with
       Longtermism". arXiv:2401.02954.
    .. [2] McCandlish, S., Kaplan, J., Amodei, D., OpenAI Dota Team (2018). "An Empirical
       Model of Large-Batch Training". arXiv:1812.06162.

    Examples
    --------
    At 1e24 FLOP, 0.2920 x 10^(24 x 0.3271) = 0.2920 x 10^7.8504 (by hand):

    >>> round(float(critical_batch_tokens(1e24)) / 1e6, 1)
    20.7
    """
    return 0.2920 * np.asarray(train_flop, float) ** 0.3271


def energy_kwh(gpu_hours: Num, power_w: Num, server_power_factor: Num = 1.0, avg_power_fraction: Num = 1.0,
               pue: Num = 1.0) -> Num:
    """Facility energy, ``GPU-hours x power x server factor x average fraction x PUE`` [kWh].

    Epoch AI (Cottier et al. 2024 [1]_, ``cost_analysis_standalone.py``): chip TDP
    times a per-generation chip-to-server multiplier (DGX H100: 10.2 kW / 8 /
    700 W = 1.82), times 0.75 of server max power on average for GPUs, times PUE.
    For a measured mean system power per chip (PaLM [2]_, appendix B: TPU v4
    378.5 W) the factor and fraction are 1.

    References
    ----------
    .. [1] Cottier, B. et al. (2024). "The rising costs of training frontier AI models".
       arXiv:2405.21015; code: Epoch AI, training-cost-trends,
       ``cost_analysis_standalone.py`` (github.com/epoch-research/training-cost-trends).
    .. [2] Chowdhery, A. et al. (2022). "PaLM: Scaling Language Modeling with Pathways".
       arXiv:2204.02311.

    Examples
    --------
    PaLM: 8,404,992 chip-hours at 378.5 W and PUE 1.08 (Chowdhery et al. 2022 [2]_):

    >>> round(float(energy_kwh(8404992, 378.5, pue=1.08)) / 1000)
    3436
    """
    return (np.asarray(gpu_hours, float) * np.asarray(power_w, float) / 1000.0 * server_power_factor
            * avg_power_fraction * pue)


#: Epoch AI's amortization rate: value declines 0.14 orders of magnitude a year (ML GPU price-performance),
#: so the optimal replacement rate is ln(10) x 0.14 = 0.322 of the hardware's value a year (Cottier et al. 2024).
EPOCH_AMORTIZATION_PER_YEAR = math.log(10.0) * 0.14
#: Amortization rules of owned hardware.
AMORTIZATION_RULES = ("straight_line", "epoch")


def capital_recovery_factor(rate: Num, years: Num) -> Num:
    """Annual payment that repays 1 of capital over ``years`` at interest ``rate`` [1/year].

    ``r / (1 - (1 + r)^-n)``; ``1 / n`` at ``r = 0`` (an annuity; any finance
    textbook, e.g. [1]_).

    References
    ----------
    .. [1] Brealey, R. A., Myers, S. C., Allen, F. *Principles of Corporate Finance*
       (McGraw-Hill), the chapter on present values of annuities.

    Examples
    --------
    >>> round(float(capital_recovery_factor(0.08, 5)), 4)
    0.2505
    >>> float(capital_recovery_factor(0.0, 4))
    0.25
    """
    r = np.asarray(rate, float)
    n = np.asarray(years, float)
    with np.errstate(divide="ignore", invalid="ignore", under="ignore"):
        crf = r / -np.expm1(-n * np.log1p(r))  # 1 - (1 + r)^-n without cancellation at small r
        # r n < 1e-6 (subnormal rates included): the Taylor series 1/n (1 + r (n + 1) / 2 + r^2 (n^2 - 1) / 12)
        series = (1.0 + r * (n + 1.0) / 2.0 + r * r * (n * n - 1.0) / 12.0) / n
    return np.where(r * n < 1e-6, series, crf)


def cluster_capital_usd(purchase_usd: Num, server_overhead: Num, network_fraction: Num) -> Num:
    """Capital per accelerator of a whole cluster: servers and interconnect included [USD].

    A chip price is raised by the server overhead (pass 1 for a price that is
    already per GPU of a whole system), and the cluster interconnect is
    ``network_fraction`` of total cluster capital (Epoch AI
    ``cost_analysis_standalone.py``: server overhead 1.64, interconnect 19%;
    Cottier et al. 2024 [1]_).

    References
    ----------
    .. [1] Cottier, B. et al. (2024). "The rising costs of training frontier AI models".
       arXiv:2405.21015; code: Epoch AI, training-cost-trends,
       ``cost_analysis_standalone.py`` (github.com/epoch-research/training-cost-trends).

    Examples
    --------
    >>> round(float(cluster_capital_usd(33810, 1.64, 0.19)))
    68455
    """
    return np.asarray(purchase_usd, float) * server_overhead / (1.0 - np.asarray(network_fraction, float))


def epoch_value_usd(purchase_usd: Num, years_since_acquisition: Num) -> Num:
    """The value of hardware after ``years_since_acquisition`` of price-performance progress [USD].

    Epoch AI's ``depreciate_by_hardware_progress``: the acquisition price falls by
    ``EPOCH_AMORTIZATION_PER_YEAR / ln 10`` = 0.14 orders of magnitude a year, the
    trend of ML GPU price-performance (Hobbhahn & Besiroglu 2022, "Trends in
    machine learning hardware", Epoch AI), so a run is charged for the hardware at
    its value when the run starts, not at its price when it was bought.

    Parameters
    ----------
    purchase_usd : array_like
        Price at acquisition [USD].
    years_since_acquisition : array_like
        Years from acquisition to the start of the run [years]; negative for a
        TPU used before its public release (Epoch's convention: its value rises).

    Returns
    -------
    numpy.ndarray
        Value at the start of the run [USD].

    References
    ----------
    Cottier et al. 2024, "The rising costs of training frontier AI models" (arXiv 2405.21015), and
    github.com/epoch-research/training-cost-trends cost_analysis_standalone.py.

    Examples
    --------
    >>> round(float(epoch_value_usd(10_000.0, 1.0)))  # 10^-0.14 = 0.724
    7244
    """
    return np.asarray(purchase_usd, dtype=float) * 10.0 ** (
        -EPOCH_AMORTIZATION_PER_YEAR / math.log(10.0) * np.asarray(years_since_acquisition, dtype=float))


def owned_hourly_usd(purchase_usd: Num, server_overhead: Num, network_fraction: Num, years: Num,
                     hosting_usd_per_gpu_hour: Num = 0.0, utilization: Num = 1.0, financing_rate: Num = 0.0,
                     epoch_rule: bool | np.ndarray = False) -> tuple[np.ndarray, np.ndarray]:
    """Owned hardware per used accelerator-hour: the accelerator's capital, and the rest [USD/GPU-hour].

    The cluster's capital (:func:`cluster_capital_usd`) is recovered each year
    either straight-line over ``years`` with interest (the capital recovery
    factor at ``financing_rate``), or by Epoch AI's rule [1]_: the value declines at
    :data:`EPOCH_AMORTIZATION_PER_YEAR` (0.322 a year) plus ``financing_rate``
    on it. The yearly cost is spread over the hours the cluster is used
    (``utilization`` of 8,766 hours a year); hosting is paid for every hour.

    Parameters
    ----------
    purchase_usd : array_like
        Purchase price per accelerator [USD].
    server_overhead, network_fraction : array_like
        Server cost over the chip price [x]; interconnect share of cluster capital [1].
    years : array_like
        Straight-line life [years] (unused by Epoch's rule).
    hosting_usd_per_gpu_hour : array_like
        Colocation (space, power delivery, cooling; not the electricity) per
        accelerator-hour of the cluster's life [USD/GPU-hour].
    utilization : array_like
        Fraction of the cluster's life it does paid work (0, 1] [1].
    financing_rate : array_like
        Annual cost of capital [1/year].
    epoch_rule : array_like of bool
        Epoch AI's amortization instead of straight line.

    Returns
    -------
    accelerator_usd_per_gpu_hour, hardware_usd_per_gpu_hour : ndarray
        The purchase price's share, and servers, network and hosting.

    References
    ----------
    .. [1] Cottier, B. et al. (2024). "The rising costs of training frontier AI models".
       arXiv:2405.21015; code: Epoch AI, training-cost-trends,
       ``cost_analysis_standalone.py`` (github.com/epoch-research/training-cost-trends).

    Examples
    --------
    A DGX B200 at $47,409 per GPU (a system price) over 5 years:

    >>> a, h = owned_hourly_usd(47409, 1.0, 0.19, 5)
    >>> round(float(a + h), 3)
    1.335
    """
    purchase = np.asarray(purchase_usd, float)
    cluster = cluster_capital_usd(purchase, server_overhead, network_fraction)
    r = np.asarray(financing_rate, float)
    per_year = np.where(epoch_rule, EPOCH_AMORTIZATION_PER_YEAR + r, capital_recovery_factor(r, years))
    used_hours = HOURS_PER_YEAR * np.asarray(utilization, float)
    hosting = np.asarray(hosting_usd_per_gpu_hour, float) / np.asarray(utilization, float)
    return purchase * per_year / used_hours, (cluster - purchase) * per_year / used_hours + hosting


def hosting_usd_per_gpu_hour(colocation_usd_per_kw_month: Num, power_w: Num, server_power_factor: Num = 1.0) -> Num:
    """Colocation per accelerator-hour: the rate per kW of IT capacity times the server's kW per accelerator [USD/GPU-hour].

    Wholesale colocation is priced per kW of critical IT load a month
    (electricity billed apart); a server of accelerators needs ``power_w``
    times the server factor per accelerator.

    Examples
    --------
    >>> round(float(hosting_usd_per_gpu_hour(184.06, 700, 1.82)), 3)  # H100 at CBRE's H2 2024 rate
    0.321
    """
    kw = np.asarray(power_w, float) * np.asarray(server_power_factor, float) / 1000.0
    return np.asarray(colocation_usd_per_kw_month, float) * kw / (HOURS_PER_YEAR / 12.0)


def breakeven_months(capital_usd: Num, rent_usd_per_month: Num, running_usd_per_month: Num,
                     financing_rate: Num = 0.0) -> Num:
    """Months of use after which owning costs less than renting [months]; inf when renting is never dearer.

    Owning costs the capital up front plus running costs (hosting, energy) a
    month; renting costs the rent a month. Without financing they are equal
    after ``capital / (rent - running)`` months. With a cost of capital ``r``
    a year (``financing_rate`` [1/year]), the month's saving is discounted at
    ``i = (1 + r)^(1/12) - 1`` a month and the break-even is the discounted
    payback period, where the present value of the savings equals the capital:
    ``n = -ln(1 - capital * i / margin) / ln(1 + i)``; inf when the interest
    on the capital alone (``capital * i``) eats the whole monthly margin.

    Examples
    --------
    >>> float(breakeven_months(1200.0, 150.0, 50.0))
    12.0
    >>> round(float(breakeven_months(1200.0, 150.0, 50.0, 0.08)), 3)
    12.529

    References
    ----------
    Brealey, Myers and Allen, *Principles of Corporate Finance*: the discounted payback period.
    """
    capital = np.asarray(capital_usd, float)
    margin = np.asarray(rent_usd_per_month, float) - np.asarray(running_usd_per_month, float)
    i = np.expm1(np.log1p(np.asarray(financing_rate, float)) / 12.0)  # (1 + r)^(1/12) - 1, exact at small r
    with np.errstate(divide="ignore", invalid="ignore", under="ignore"):
        share = capital * i / np.where(margin > 0, margin, 1.0)
        financed = -np.log1p(-np.minimum(share, 1.0)) / np.log1p(np.where(i > 0, i, 1.0))
        plain = capital / margin
        # near a zero rate (subnormal ones included) the first-order series, continuous and rising with the rate:
        # -ln(1 - s) / ln(1 + i) = (capital / margin) (1 + (s + i) / 2 + ...)
        small = (share < 1e-6) & (i < 1e-6)
        financed = np.where(small, plain * (1.0 + 0.5 * (share + i)), financed)
        months = np.where(i > 0, np.where(share < 1.0, financed, np.inf), plain)
        # the financed months are never fewer than the plain ones
        return np.where(margin > 0, np.where(i > 0, np.maximum(months, plain), months), np.inf)
