"""The parallel layout of a run: how its GPUs split the model, the data and the batch.

:func:`choose_layout` picks, for a run on ``gpus`` accelerators, the standard layout a practitioner would
(Narayanan et al. 2021, "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM",
SC21, takeaway 1: tensor parallelism up to the GPUs of one server, then pipeline parallelism across servers;
data parallelism for the rest): a ZeRO stage (Rajbhandari et al. 2020: 1, the sharded optimizer Megatron-LM and
DeepSeek-V3 use, before 2 and 3, which shard more and communicate more), the smallest tensor-parallel group
that fits and keeps the batch the cluster forces at or below the critical batch, then the pipeline depth
below; for an MoE model, at each pipeline depth the fewest expert-parallel ranks that fit (expert parallelism
where it helps memory, before a deeper pipeline: DeepSeek-AI 2024, 64-way). Recomputation is chosen by :func:`explorer.model.compute` (none, selective, full: the first
that fits); a part the scenario sets is kept and the rest chosen around it. The memory rule is
:func:`explorer.model.formulas.memory_bytes_per_gpu`: any layout that fits here fits in compute's bound too
(ZeRO-3 over all GPUs with the largest tensor-parallel group holds the least), so a run compute finds feasible
always gets a layout that fits.

Pipeline depth and whole replicas: at the ZeRO stage and tensor group that order picks, the depth (any that
fits, up to the layers, not only a power of two: Smith et al. 2022, "Using DeepSpeed and Megatron to Train
Megatron-Turing NLG 530B", arXiv 2201.11990, TP 8 x PP 35 for 105 layers on 4,480 A100s) that leaves the least
of the paid GPU time unused, the fewest stages among equals. Two things leave it unused: the GPUs beyond
``floor(gpus / (t p e)) x e`` whole data-parallel replicas sit idle (``idle_gpus``), paid but computing nothing;
and a pipeline goes at the pace of its fullest stage (:func:`pipeline_pace`). The share used is ``(gpus -
idle_gpus) / gpus x pipeline_pace``. The pipeline's fill and drain (its bubble, ``(p - 1) / m`` of a step with
``m`` micro-batches: Narayanan et al. 2021, section 2.2.1) is left to the MFU, which published runs measure with
it. Compute's time and cost count every GPU at the MFU: the estimate warns where many sit idle. The memory of a
layout with idle GPUs is compute's rule, the sharded state over all ``gpus`` (so a count compute finds feasible
keeps a layout that fits); were the idle GPUs to hold no shard, the working ones would hold ``gpus / (gpus -
idle_gpus)`` times that sharded part.

Batch and steps: each step takes at least one sequence per micro-batch of every data-parallel replica, and a
pipeline of ``p`` stages keeps ``p`` micro-batches in flight (1F1B), so at least ``(gpus - idle_gpus) / t``
sequences a step; the batch is the critical batch of the run's compute
(:func:`explorer.model.formulas.critical_batch_tokens`, DeepSeek-AI 2024) rounded to whole sequences per
replica, never below that least one nor below the least batch of the cluster (``min_batch_tokens``).
"""

from __future__ import annotations

import bisect
import functools
import math
from dataclasses import asdict, dataclass
from typing import Any, Mapping

from explorer.model import formulas as F

__all__ = ["Layout", "choose_layout", "pipeline_pace", "ZERO_UNSHARDED"]

#: Parts of the training state a ZeRO stage leaves unsharded over data parallelism (Rajbhandari et al. 2020,
#: arXiv 1910.02054, section 5): stage 0 none sharded, 1 the optimizer sharded, 2 also the gradients, 3 all.
ZERO_UNSHARDED = {0: ("weights", "gradients", "optimizer"), 1: ("weights", "gradients"), 2: ("weights",), 3: ()}


@dataclass(frozen=True)
class Layout:
    """A run's parallel layout and batch.

    Attributes
    ----------
    tensor_parallel, pipeline_parallel : int
        Tensor-parallel group and pipeline stages [1].
    data_parallel : int
        Whole data-parallel replicas, ``(gpus - idle_gpus) / (tensor_parallel x pipeline_parallel)`` [1].
    zero_stage : int
        ZeRO stage of the data-parallel replicas (0-3).
    expert_parallel : int
        Ranks the routed experts of a stage are split over, within data parallelism [1] (1: none).
    recompute : str
        Activation recomputation (``"none"``, ``"selective"`` or ``"full"``).
    micro_batch_sequences : int
        Sequences per micro-batch [1].
    batch_tokens : float
        Global batch [tokens]: ``batch_sequences x seq_len``.
    batch_sequences : float
        Global batch [sequences].
    min_batch_tokens : float
        The least global batch of this cluster: one sequence per micro-batch of each whole replica of the
        largest tensor-parallel group (the set one where the scenario sets it) [tokens].
    critical_batch_tokens : float
        The loss-optimal batch of the run's compute (DeepSeek-AI 2024) [tokens].
    steps : int
        Optimizer steps, ``ceil(tokens / batch_tokens)`` [1].
    state_gb, activations_gb : float
        Training state and activations on each accelerator [GB].
    fits : bool
        The layout fits in the accelerator's memory.
    chosen : tuple of str
        The parts the model chose (the others the scenario set).
    idle_gpus : int
        GPUs beyond the whole replicas [GPUs]: 0 where the chosen group divides the count. The depth that
        leaves the least of the paid time unused may leave some (module docstring), as may a set group that
        does not divide the count. They are paid; the run's time and cost (:func:`explorer.model.compute`)
        still assume every GPU works.
    """

    tensor_parallel: int
    pipeline_parallel: int
    data_parallel: int
    zero_stage: int
    expert_parallel: int
    recompute: str
    micro_batch_sequences: int
    batch_tokens: float
    batch_sequences: float
    min_batch_tokens: float
    critical_batch_tokens: float
    steps: int
    state_gb: float
    activations_gb: float
    fits: bool
    chosen: tuple[str, ...] = ()
    idle_gpus: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The layout as a JSON-ready dict."""
        d = asdict(self)
        d["chosen"] = list(self.chosen)
        return d

    def text(self) -> str:
        """``TP 8 x PP 16 x DP 128, ZeRO-1, selective recomputation`` (``, 5 GPUs idle`` where some are)."""
        ep = f", EP {self.expert_parallel}" if self.expert_parallel > 1 else ""
        idle = f", {self.idle_gpus:,} GPUs idle" if self.idle_gpus > 0 else ""
        return (f"TP {self.tensor_parallel} x PP {self.pipeline_parallel} x DP {self.data_parallel:,}{ep}, "
                f"ZeRO-{self.zero_stage}, {self.recompute} recomputation{idle}")


_POWERS_OF_TWO = tuple(1 << k for k in range(63))


def _powers_of_two(upto: float) -> list[int]:
    """1, 2, 4, ... up to ``upto`` (none below 1)."""
    return list(_POWERS_OF_TWO[:bisect.bisect_right(_POWERS_OF_TWO, upto)])


def pipeline_pace(n_layers: int, stages: int) -> float:
    """Share of a step the stages of a pipeline keep busy with the layers they hold [1].

    A pipeline moves at the pace of its fullest stage (Narayanan et al. 2021, section 2.2: ``l / p`` layers a
    stage), so ``L`` layers on ``p`` stages keep them busy ``L / (p ceil(L / p))`` of the time; or, with the
    first and last stage one layer fewer for the embedding and the output layer (Llama Team 2024, "The Llama 3
    Herd of Models", section 3.3.2: 126 layers on 16 stages; BigScience 2022, BLOOM: 70 layers and its 2
    embeddings on 12 stages), ``(L + 2) / (p ceil((L + 2) / p))``: the better of the two.

    Parameters
    ----------
    n_layers : int
        Transformer layers L [1].
    stages : int
        Pipeline stages p, 1 to L [1].

    Returns
    -------
    float
        1.0 where the layers split evenly.

    Examples
    --------
    64 stages for 80 layers: 48 stages hold one layer and 16 hold two, so the run goes at 82 / 128 of its pace.

    >>> pipeline_pace(126, 16), pipeline_pace(70, 12), pipeline_pace(105, 35), pipeline_pace(80, 64)
    (1.0, 1.0, 1.0, 0.640625)
    """
    layers, p = max(1, int(n_layers)), max(1, int(stages))
    return max(layers / (p * math.ceil(layers / p)), (layers + 2) / (p * math.ceil((layers + 2) / p)))


@functools.lru_cache(maxsize=256)
def _paces(n_layers: int) -> tuple[float, ...]:
    """:func:`pipeline_pace` of every depth 0 to ``n_layers`` (index 0 unused) [1]."""
    return (0.0, *(pipeline_pace(n_layers, p) for p in range(1, max(1, n_layers) + 1)))


def layout_memory_bytes(gpus: float, params: float, parts: Mapping[str, float], activation_bytes: float,
                        tensor_parallel: float, pipeline_parallel: float, zero_stage: int,
                        expert_scale: float = 1.0) -> tuple[float, float]:
    """Training state and activations on each accelerator of a layout [bytes].

    Parameters
    ----------
    gpus : float
        Accelerators n [1].
    params : float
        Parameters N [1].
    parts : mapping
        Bytes per parameter of ``weights``, ``gradients`` and ``optimizer`` [bytes].
    activation_bytes : float
        Activations of one sequence through all layers at the layout's recomputation [bytes].
    tensor_parallel, pipeline_parallel : float
        t and p [1].
    zero_stage : int
        0 to 3.
    expert_scale : float
        Share of the unsharded state a rank holds under expert parallelism [1]
        (:func:`explorer.model.resolve.expert_scale`; 1 without it).

    Returns
    -------
    state, activations : float
        ``U / (t p) + (S - U) / n`` and ``A / t`` [bytes], U the state the stage leaves unsharded.
    """
    # the formula of explorer.model.formulas.memory_bytes_per_gpu, on floats (the chooser tries a few dozen)
    n = float(gpus)
    t = min(n, float(tensor_parallel))
    state = params * sum(parts.values())
    unsharded = expert_scale * params * sum(parts[k] for k in ZERO_UNSHARDED[int(zero_stage)])
    return unsharded / (t * pipeline_parallel) + (state - unsharded) / n, activation_bytes / t


def choose_layout(gpus: float, *, params: float, parts: Mapping[str, float], activation_bytes: float, recompute: str, memory_gb: float,
                  n_layers: int, seq_len: int, tokens: float, train_flop: float, tensor_parallel_max: float,
                  tensor_parallel: int | None = None, pipeline_parallel: int | None = None,
                  zero_stage: int | None = None, expert_parallel: int | None = None,
                  expert_scale: float = 1.0, routed_share: float = 0.0, experts: int | None = None) -> Layout:
    """The standard layout of a run on ``gpus`` accelerators (see the module's docstring).

    Parameters
    ----------
    gpus : float
        Accelerators [1].
    params : float
        Parameters [1].
    parts : mapping
        Bytes per parameter of ``weights``, ``gradients`` and ``optimizer`` [bytes].
    activation_bytes : float
        Activations of one sequence through all layers at ``recompute`` [bytes].
    recompute : str
        The recomputation compute chose or the scenario set.
    memory_gb : float
        Memory of one accelerator [GB]; NaN: unknown (nothing is known to fit or not).
    n_layers, seq_len : int
        Layers [1] and sequence length [tokens].
    tokens, train_flop : float
        Training tokens [1] and compute [FLOP].
    tensor_parallel_max : float
        GPUs of one server: the largest tensor-parallel group [1].
    tensor_parallel, pipeline_parallel, zero_stage, expert_parallel : int, optional
        Parts the scenario sets (kept).
    expert_scale : float
        Share of the unsharded state a rank holds under a set ``expert_parallel`` [1].
    routed_share : float
        Share of the parameters in routed experts, ``r`` [1] (0: a dense model). Where it is above 0 and
        ``expert_parallel`` is not set, expert parallelism is chosen when it helps memory: at each tensor and
        pipeline group the fewest expert ranks ``e`` (1, 2, 4, ...) that fit, a rank then holding ``1 - r + r / e``
        of the unsharded state (DeepSeek-AI 2024, section 3.2.1: 64-way expert parallelism), and ``e`` within
        the data-parallel replicas (``t p e <= gpus``) and at most ``experts``.
    experts : int, optional
        Routed experts per layer (the most expert ranks); None: unknown, no bound but the GPUs.

    Returns
    -------
    Layout

    Examples
    --------
    Llama 3 405B on 16,384 H100 (126 layers, 8,192 tokens, 15.6T tokens; Llama Team 2024, table 4: TP 8,
    PP 16, DP 128): with full recomputation the model needs no pipeline, and keeps the published one when set.

    >>> parts = {"weights": 2.0, "gradients": 2.0, "optimizer": 12.0}
    >>> L = choose_layout(16384, params=405e9, parts=parts, activation_bytes=126 * 2 * 8192 * 16384.0,
    ...                   recompute="full", memory_gb=80, n_layers=126, seq_len=8192, tokens=15.6e12,
    ...                   train_flop=3.8e25, tensor_parallel_max=8, tensor_parallel=8, pipeline_parallel=16)
    >>> L.text(), L.fits, L.min_batch_tokens == 16384 / 8 * 8192
    ('TP 8 x PP 16 x DP 128, ZeRO-1, full recomputation', True, True)
    """
    n = float(gpus)
    mem = float(memory_gb) * 1e9
    known = math.isfinite(mem)
    critical = float(F.critical_batch_tokens(train_flop))
    t_top = max(1, int(min(n, tensor_parallel_max)))
    t_list = [int(min(n, tensor_parallel))] if tensor_parallel is not None else sorted(
        set(_powers_of_two(t_top)) | {t_top})
    z_list = [zero_stage] if zero_stage is not None else [1, 2, 3]
    auto_ep = expert_parallel is None and routed_share > 0
    ep_counts = routed_share > 0 or expert_scale != 1.0  # expert ranks split the replicas only for an MoE model

    state = params * sum(parts.values())
    unsharded = {z: params * sum(parts[k] for k in ZERO_UNSHARDED[z]) for z in z_list}
    t_ref = t_top if tensor_parallel is None else int(min(n, tensor_parallel))
    least_sequences = float(n // t_ref)  # one sequence per micro-batch of each whole replica of the largest group

    def scale(e: int) -> float:  # share of the unsharded state one rank holds at e expert ranks
        return (1.0 - routed_share) + routed_share / e if auto_ep else expert_scale

    def working(t: int, p: int, e: int) -> tuple[int, int]:  # whole replicas and the GPUs they hold
        per = e if ep_counts else 1
        dp = int(n // (t * p * per)) * per
        return dp, dp * t * p

    def micro_batches(p: int, dp: int) -> int:  # sequences a step per replica, micro-batches of one sequence
        return max(p, round(critical / (dp * seq_len)), math.ceil(least_sequences / dp)) if dp > 0 else p

    def fits(t: int, p: int, z: int, e: int) -> bool:  # layout_memory_bytes, inlined: the chooser tries many layouts
        if p * t * e > n:
            return False
        u = scale(e) * unsharded[z]
        return u / (t * p) + (state - u) / n + activation_bytes / t <= mem

    def ranks(t: int, p: int, z: int) -> int | None:
        """The expert ranks at ``t`` and ``p``: the set ones, or the fewest (1, 2, 4, ...) that fit; None: none."""
        if not auto_ep:
            e = expert_parallel or 1
            return e if fits(t, p, z, e) else None
        most = _powers_of_two(min(n / (t * p), experts if experts is not None else math.inf)) or [1]
        return next((e for e in most if fits(t, p, z, e)), None)

    paces = _paces(int(n_layers))  # the pace of each depth, 0 to the layers (cached per layer count)

    def useful_share(t: int, p: int, e: int) -> float:  # of the paid GPU time, the share the layout can use
        dp, used = working(t, p, e)
        return used / n * paces[p] if dp > 0 else 0.0

    def best_depth(t: int, z: int) -> tuple[int, int] | None:
        """At ``t`` and ``z``, the depth (set, or any that fits up to the layers) and its expert ranks that leave
        the least of the paid time unused, the fewest stages among equals; None when none fits."""
        if pipeline_parallel is not None:
            e = ranks(t, pipeline_parallel, z)
            return None if e is None else (pipeline_parallel, e)
        deepest = max(1, int(min(n_layers, n // t)))
        shallowest = 1
        if not auto_ep:  # memory only falls as the pipeline deepens: the fewest stages that fit, by bisection
            if ranks(t, deepest, z) is None:
                return None
            lo, hi = 0, deepest  # hi fits, lo does not (0 stages: nothing)
            while hi - lo > 1:
                mid = (lo + hi) // 2
                lo, hi = (lo, mid) if ranks(t, mid, z) is not None else (mid, hi)
            shallowest = hi
        best: tuple[float, int, int] | None = None
        for p in range(shallowest, deepest + 1):
            if best is not None and paces[p] <= best[0] * (1.0 + 1e-9):  # the share is at most the pace
                continue
            e = ranks(t, p, z) if auto_ep else expert_parallel or 1  # below: deeper than the fewest that fit
            if e is not None:
                share = useful_share(t, p, e)
                if best is None or share > best[0] * (1.0 + 1e-9):
                    best = (share, p, e)
                    if share >= 1.0:  # every GPU in a whole replica and the layers split evenly: none does better
                        break
        return None if best is None else (best[1], best[2])

    pick = None
    if known:
        for z in z_list:
            for i, t in enumerate(t_list):
                last_t = i == len(t_list) - 1
                if not last_t and n / t * seq_len > critical:  # a larger group cuts the batch the cluster forces
                    continue
                pe = best_depth(t, z)
                if pe is not None:
                    pick = (t, *pe, z)
                    break
            if pick is not None:
                break
    if pick is None:  # nothing fits (or memory unknown): compute's bound, ZeRO-3 over the largest group
        pick = (t_list[-1], pipeline_parallel or 1, expert_parallel or 1, 3 if zero_stage is None else zero_stage)
    t, p, e, z = pick
    dp, used = working(t, p, e)
    s, a = layout_memory_bytes(n, params, parts, activation_bytes, t, p, z, scale(e))
    per_replica = micro_batches(p, dp)
    batch_sequences = float(per_replica * dp)
    batch_tokens = batch_sequences * seq_len
    chosen = tuple(name for name, v in (("tensor_parallel", tensor_parallel), ("pipeline_parallel", pipeline_parallel),
                                        ("zero_stage", zero_stage)) if v is None)
    chosen += ("expert_parallel",) if auto_ep else ()
    return Layout(tensor_parallel=int(t), pipeline_parallel=int(p), data_parallel=dp, zero_stage=int(z),
                  expert_parallel=int(e),
                  recompute=recompute, micro_batch_sequences=1, batch_tokens=batch_tokens,
                  batch_sequences=batch_sequences, min_batch_tokens=least_sequences * seq_len,
                  critical_batch_tokens=critical,
                  steps=int(math.ceil(tokens / batch_tokens)) if batch_tokens > 0 else 0,
                  state_gb=s / 1e9, activations_gb=a / 1e9, fits=bool(known and used >= 1 and s + a <= mem),
                  chosen=chosen, idle_gpus=int(round(n - used)))
