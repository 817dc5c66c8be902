"""Resolve a scenario against the catalogs and named defaults.

:func:`resolve` turns a :class:`~explorer.scenario.Scenario` into the keyword
arguments of :func:`~explorer.model.compute`, with the list of assumptions it
used (each value with its source) and the warnings that do not depend on the
result. Nothing here computes a result.
"""

from __future__ import annotations

import copy
import datetime as _dt
import functools
import math
from dataclasses import dataclass, field
from typing import Any, Mapping

from explorer import catalog, rules
from explorer import prices as prices_module
from explorer.catalog import default
from explorer.errors import ScenarioError
from explorer.messages import Message
from explorer.model import formulas as F
from explorer.model.inputs import compute_inputs
from explorer.model.layout import ZERO_UNSHARDED
from explorer.model.vectorized import RECOMPUTE_LEVELS
from explorer.scenario import Scenario, experiments_default_name

__all__ = ["Assumption", "Resolved", "resolve", "resolve_mfu", "reference_precision"]


@dataclass(frozen=True)
class Assumption:
    """A value the estimate used and where it came from, named by a row of ``explorer/data/messages.csv``.

    Parameters
    ----------
    id : str
        The row naming the assumption (``assumption_<what>``): its ``en`` and ``zh`` templates.
    params : mapping
        What the templates fill in: ids and names as the catalogs hold them (``gpu="h100-sxm"``,
        ``precision="bf16"``), never words of a language.
    value : float or str
        The value used [``unit``]; a str is a choice (``"selective"``).
    unit : str
        Its unit, as labels.csv's ``term:<unit>`` rows name it (``"USD/GPU-hour"``).
    source : str
        Where the value comes from: a citation (kept in its language), or a
        :class:`~explorer.messages.Message` where the words are the model's own.

    Examples
    --------
    >>> a = Assumption("assumption_tdp", {"gpu": "h100-sxm"}, 700.0, "W", "NVIDIA")
    >>> a.name, str(a)  # the English name, as before assumptions had ids
    ('TDP (h100-sxm)', 'TDP (h100-sxm)')
    >>> a.render("zh")
    '热设计功耗 TDP（h100-sxm）'
    """

    id: str
    params: Mapping[str, Any]
    value: float | str
    unit: str
    source: str

    @property
    def name(self) -> str:
        """The name in plain English: field and default names as they are (what the CLI and notebooks read)."""
        return str(Message(self.id, **self.params))

    def render(self, language: str = "en") -> str:
        """The name in ``language`` ("en" or "zh"), names of defaults and fields by their labels."""
        text = Message(self.id, **self.params).render(language)
        return text[:1].upper() + text[1:] if language == "en" else text

    def __str__(self) -> str:
        return self.name

    def __hash__(self) -> int:
        return hash((self.id, tuple(sorted(self.params.items())), self.value, self.unit, str(self.source)))


def _named(name: str, value: float | str, unit: str, source: str | Message) -> Assumption:
    """An assumption named by a default or a field (``name``, labelled ``term:<name>`` in labels.csv)."""
    return Assumption("assumption_named", {"name": name}, value, unit, source)


def _set(name: str, value: float | str, unit: str) -> Assumption:
    """A value the scenario gives (its field ``name``)."""
    return _named(name, value, unit, _source("assumption_source_set"))


@functools.lru_cache(maxsize=4096)
def _source(msg_id: str, **params: Any) -> Message:
    """The source ``msg_id`` in the model's own words (a :class:`Message`): made once per id and params, since
    a Message writes its English when it is made and every estimate names the same few."""
    return Message(msg_id, **params)


@dataclass
class Resolved:
    """What :func:`resolve` found: ``inputs`` of compute, assumptions, warnings and context.

    Besides ``inputs``, two views of the same values for the layers above, so that no rule is decided twice:

    ``factors``
        The inputs that are products or sums of parts set by different choices, split into those parts
        (what :mod:`explorer.analysis` swaps lever by lever): ``peak_ref_flop_per_s`` (the accelerator's
        peak at its reference, 16-bit precision) [FLOP/s] and ``peak_ratio`` (the training precision's peak
        over it) [1]; ``mfu_base`` (the accelerator's named default MFU), ``mfu_precision_factor`` (the
        realized FP8/FP4 speed-up over the peak ratio) and ``mfu_moe_factor`` [1], ``mfu_set`` (the
        scenario gives the MFU); ``on_demand_usd_per_gpu_hour`` (the accelerator's on-demand price, NaN
        if none) [USD/GPU-hour]; ``owned_reference``: ``accelerator_usd_per_gpu_hour`` and
        ``hardware_usd_per_gpu_hour`` of owning the accelerator on the default terms (:func:`owned_terms`)
        [USD/GPU-hour]; ``failure_rate_base_per_gpu_hour`` and ``spot_failures_per_gpu_hour`` (their sum
        is the input) [1/GPU-hour]; ``electricity_usd_per_kwh`` (the region's price, used or not) [USD/kWh];
        ``storage_usd_per_gb_month`` (kept checkpoints or not) [USD/GB-month]; ``data_fixed_usd``
        (labelled examples and synthetic tokens) [USD]; ``trainable_fraction`` [1]; ``activation_scale``
        (activation bytes of the precision over 2) [1].
    ``fallbacks``
        For each optional scenario field (a blank box in the app), the value the model uses when it is
        None [the field's unit]; None where the value is unknown or does not apply.
    """

    inputs: dict[str, Any]
    used: list[Assumption] = field(default_factory=list)
    warnings: list[Message] = field(default_factory=list)
    mfu: float = math.nan
    shape: tuple[int, int, int] = (0, 0, 0)
    memory_bytes_per_param: dict[str, Any] = field(default_factory=dict)
    estimated: list[str] = field(default_factory=list)
    in_rate: dict[str, Any] = field(default_factory=dict)
    owned: dict[str, Any] = field(default_factory=dict)
    factors: dict[str, Any] = field(default_factory=dict)
    fallbacks: dict[str, Any] = field(default_factory=dict)
    activation_bytes: dict[str, Any] = field(default_factory=dict)


def _assumption(name: str) -> Assumption:
    d = catalog.defaults()[name]
    return _named(name, d.value, d.unit, d.source)


def _pick(value: float | None, name: str, used: list[Assumption], fallbacks: dict[str, Any] | None = None,
          field: str | None = None) -> float:
    """The scenario's value, else the named default (recorded as used, and in ``fallbacks[field or name]``)."""
    if fallbacks is not None:
        fallbacks[field or name] = default(name)
    if value is not None:
        return value
    used.append(_assumption(name))
    return default(name)


def _team(s: Scenario, train_flop: float, used: list[Assumption], fallbacks: dict[str, Any], warnings: list[Message]) -> dict[str, Any]:
    """The team and the project's months: the scenario's, else the defaults that follow the run (explorer.rules).

    Returns ``headcount`` [people], ``project_months`` [months] (the run's own length is applied in
    compute) and ``project_months_max`` [months] (``project_months_max`` when the months are a default, else
    inf). ``train_flop`` is the final run's compute [FLOP]. A default team extrapolated past the largest
    published run is warned about (``team_beyond_data``).
    """
    kind = s.training_kind
    fte = float(rules.team_headcount(train_flop, kind))
    fallbacks["team_headcount"] = fte
    headcount = fte if s.team_headcount is None else s.team_headcount
    if s.team_headcount is None:
        used.append(_named("team_headcount", fte, "people (FTE)", rules.team_source(kind)))
    months = s.project_months
    cap = math.inf
    if months is None:
        months = float(rules.project_months(train_flop, kind))
        cap = _pick(None, "project_months_max", [])
        used.append(_named("project_months", months, "months", rules.months_source(kind)))
    if s.team_headcount is None and rules.team_beyond_data(train_flop, kind):
        warnings.append(Message("team_beyond_data", flop=float(train_flop), largest=rules.team_fit().hi,
                                people=fte))
    return dict(headcount=headcount, project_months=months, project_months_max=cap)


def _where(reg: catalog.Region) -> dict[str, Any]:
    """The params naming region ``reg`` in an assumption: its id (English) and its name (Chinese, by its label)."""
    return {"region": reg.id, "region_name": reg.name}


def _nan(x: float | None) -> float:
    return math.nan if x is None else x


def reference_precision(acc: catalog.Accelerator) -> str:
    """The 16-bit (else widest tensor) precision that default MFUs are measured against."""
    for p in ("bf16", "fp16", "tf32", "fp32"):
        if p in acc.peak_tflops:
            return p
    return acc.precisions[0]


def resolve_mfu(scenario: Scenario) -> tuple[float, list[Assumption]]:
    """Steady-state MFU against the peak at the scenario's precision, and the defaults it used.

    A default MFU is measured against the 16-bit peak, on the generation the
    catalog names (``mfu_default`` in accelerators.csv). FP8/FP4 runs get the
    realized speed-up over BF16 (``fp8_speedup``, ``fp4_speedup``), capped by the
    accelerator's peak ratio; MoE runs are scaled by ``moe_mfu_factor``.
    """
    if scenario.mfu is not None:
        return scenario.mfu, [_set("mfu", scenario.mfu, "1")]
    return _default_mfu(scenario, _mfu_factors(scenario, catalog.accelerator(scenario.gpu)))


def _default_mfu(scenario: Scenario, f: dict[str, Any]) -> tuple[float, list[Assumption]]:
    """The default MFU from its factors (:func:`_mfu_factors`) and the defaults it used."""
    used = [_assumption(f["mfu_base_name"])]
    if scenario.precision in ("fp8", "fp4"):
        used.append(_assumption(f"{scenario.precision}_speedup"))
    mfu = f["mfu_base"] * f["mfu_precision_factor"]
    if scenario.architecture == "moe":
        used.append(_assumption("moe_mfu_factor"))
        mfu *= f["mfu_moe_factor"]
    return mfu, used


def _mfu_factors(s: Scenario, acc: catalog.Accelerator) -> dict[str, Any]:
    """The default MFU's parts: the accelerator's base, the precision's and the MoE factor [1], and the peaks.

    Default MFU = ``mfu_base`` x ``mfu_precision_factor`` x ``mfu_moe_factor``; the peak at the training
    precision = ``peak_ref_flop_per_s`` x ``peak_ratio``.
    """
    base_name = acc.mfu_default or "mfu_dense"
    ref = reference_precision(acc)
    ratio = acc.peak_tflops[s.precision] / acc.peak_tflops[ref]
    precision_factor = 1.0
    if s.precision in ("fp8", "fp4"):
        precision_factor = min(default(f"{s.precision}_speedup"), ratio) / ratio
    return dict(mfu_base_name=base_name, mfu_base=default(base_name), mfu_precision_factor=precision_factor,
                mfu_moe_factor=default("moe_mfu_factor") if s.architecture == "moe" else 1.0,
                mfu_set=s.mfu is not None, peak_ref_flop_per_s=acc.peak_tflops[ref] * 1e12, peak_ratio=ratio)


def _shape(s: Scenario, used: list[Assumption]) -> tuple[int, int, int]:
    """Layers, width and sequence length: the scenario's, else derived or default (listed in ``used``)."""
    seq = int(_pick(s.seq_len, "seq_len", used))
    if s.n_layers is not None and s.d_model is not None:  # a pair: Scenario refuses one without the other
        return s.n_layers, s.d_model, seq
    if s.architecture == "moe":  # attention and width follow the active parameters, not the experts
        L, d = (int(x) for x in F.moe_shape(s.active_params_effective))
        kind, how = "assumption_derived_shape_moe", "Na = 12 L d^2 with d = 128 L over the active parameters (moe_shape)"
    else:
        L, d = (int(x) for x in F.model_shape(s.params))
        kind, how = "assumption_derived_shape", "N = 12 L d^2 with d = 128 L (Kaplan et al. 2020)"
    used.append(Assumption(kind, {"name": "n_layers"}, L, "1", how))
    used.append(Assumption(kind, {"name": "d_model"}, d, "1", how))
    return L, d, seq


def _memory(s: Scenario, shape: tuple[int, int, int], used: list[Assumption]
            ) -> tuple[dict[str, float], dict[str, float]]:
    """Bytes per parameter of the training state by part, and activation bytes of one sequence."""
    prec = catalog.precisions()[s.precision]
    wide = s.precision in ("fp32", "tf32")
    grad_name = "bytes_grad_fp32" if wide else "bytes_grad_low_precision"
    opt_name = "bytes_state_optimizer_fp32" if wide else "bytes_state_optimizer"
    trainable = s.lora_trainable_fraction if s.training_kind == "lora" else 1.0
    parts = {"weights": prec.weight_bytes, "gradients": trainable * default(grad_name),
             "optimizer": trainable * default(opt_name)}
    used.append(Assumption("assumption_weight_bytes", {"precision": s.precision}, prec.weight_bytes, "bytes",
                           prec.source))
    act_bytes = _activation_bytes(s.precision)
    if prec.activation_bytes is None:
        kept = _WIDER_ACTIVATIONS.get(s.precision)
        used.append(Assumption("assumption_activation_bytes_kept" if kept else "assumption_activation_bytes_16bit",
                               {"precision": s.precision, "kept": kept or ""}, act_bytes, "bytes", prec.source))
    L, d, seq = shape
    heads = max(1.0, d / _pick(None, "head_dim", used))
    modes = RECOMPUTE_LEVELS if s.recompute == "auto" else (s.recompute,)
    act = {m: L * float(F.activation_bytes_per_layer(seq, d, heads, act_bytes, m)) for m in modes}
    used.append(Assumption("assumption_recompute", {}, s.recompute, "",
                           "Korthikanti et al. 2022: none 34 + 5as/d, selective 34, full 2 bytes-units per s*d"
                           + ("; auto: the first of none, selective, full that fits" if s.recompute == "auto" else "")))
    return parts, act


def _layout_inputs(s: Scenario, shape: tuple[int, int, int], parts: dict[str, Any], used: list[Assumption]
                   ) -> dict[str, Any]:
    """The parts of the layout the scenario sets, as compute's inputs: ``pipeline_parallel`` [1] and
    ``unsharded_bytes_per_param`` [bytes] (blank: no pipeline and ZeRO-3, the layout that fits on the fewest
    GPUs; :mod:`explorer.model.layout` then chooses the standard layout at the count)."""
    pp = 1.0
    if s.pipeline_parallel is not None:
        if s.pipeline_parallel > shape[0]:
            raise ScenarioError("pipeline_parallel", s.pipeline_parallel,
                                Message("allowed_range", bracket="[", lo=1, hi=shape[0]))
        pp = float(s.pipeline_parallel)
        used.append(_set("pipeline_parallel", s.pipeline_parallel, "1"))
    stage = 3 if s.zero_stage is None else s.zero_stage
    if s.zero_stage is not None:
        used.append(_set("zero_stage", s.zero_stage, "1"))
    if s.expert_parallel is not None:
        used.append(_set("expert_parallel", s.expert_parallel, "1"))
    scale = expert_scale(s)
    return dict(pipeline_parallel=pp, unsharded_bytes_per_param=scale * sum(parts[k] for k in ZERO_UNSHARDED[stage]))


def expert_scale(s: Scenario) -> float:
    """The share of the unsharded state one model-parallel rank holds under expert parallelism [1].

    The routed experts, taken as the parameters no token uses (``params - active``, a lower bound of the routed
    parameters, so the memory is an upper bound), are split over the ``expert_parallel`` ranks as well
    (DeepSeek-AI 2024, section 3.2.1: 64-way expert parallelism); 1 for a dense model or without it.
    """
    if s.architecture != "moe" or not s.expert_parallel:
        return 1.0
    experts = 1.0 - s.active_params_effective / s.params
    return (1.0 - experts) + experts / s.expert_parallel


@functools.cache
def moe_share_spread() -> tuple[float, float, int]:
    """How far the MoE models the default active share is fitted on lie from it: the least and the largest ratio
    of a model's active share to the fitted share at its size (``explorer.rules.moe_fit`` over
    ``moe_models.csv``) [x], and how many models [1]."""
    rows = catalog.read_csv("moe_models.csv")
    fit = rules.moe_fit()
    ratios = [float(r["params_active"]) / float(r["params_total"]) / float(fit(float(r["params_total"])))
              for r in rows]
    return min(ratios), max(ratios), len(ratios)


def _ref_peak(acc: catalog.Accelerator) -> float:
    return float(acc.peak_tflops[reference_precision(acc)])


def price_peer(acc: catalog.Accelerator, attribute: str) -> catalog.Accelerator | None:
    """The catalog accelerator nearest to ``acc`` with a value of ``attribute``.

    Nearest: the same vendor, then the same kind (GPU or TPU), then the
    closest release year, then the closest 16-bit peak: the rule
    :mod:`explorer.prices` uses for cloud prices. The fallback for an
    accelerator without a sourced purchase price: the peer's price per dense
    16-bit peak FLOP/s times its own peak. None when no other accelerator has
    the price.
    """
    peers = [a for a in catalog.accelerators().values() if a.id != acc.id and getattr(a, attribute)]
    if not peers:
        return None
    return min(peers, key=lambda a: (a.vendor != acc.vendor, a.is_tpu != acc.is_tpu, abs(a.year - acc.year),
                                     abs(math.log(_ref_peak(a) / _ref_peak(acc)))))


def _estimated_price(acc: catalog.Accelerator, attribute: str, what: str, unit: str, used: list[Assumption],
                     estimated: list[str], warnings: list[Message]) -> float | None:
    """``acc``'s ``attribute`` scaled from the nearest peer by peak FLOP/s, recorded as an estimate."""
    peer = price_peer(acc, attribute)
    if peer is None:
        return None
    value = float(getattr(peer, attribute) * _ref_peak(acc) / _ref_peak(peer))
    source = _source("assumption_source_peer_price", peer=peer.name, year=peer.year, price=getattr(peer, attribute),
                     unit=unit, peak=_ref_peak(acc), peer_peak=_ref_peak(peer), precision=reference_precision(acc))
    used.append(Assumption("assumption_price_estimated", {"what": what, "gpu": acc.id}, value, unit, source))
    estimated.append(what)
    warnings.append(Message("price_estimated", what=what, gpu=acc.name, value=value, unit=unit, peer=peer.name))
    return value


def _cloud_rate(s: Scenario, acc: catalog.Accelerator, used: list[Assumption], warnings: list[Message],
                estimated: list[str]) -> float:
    """The rate on the scenario's cloud price basis (explorer.prices), its assumption and any estimate warning."""
    basis = "on_demand" if s.pricing == "spot" and s.spot_discount is not None else s.pricing
    q = prices_module.quote(acc.id, basis, s.seller, prices_module.check_price_date(s.price_date))
    rate = q.usd_per_gpu_hour
    if math.isnan(rate):
        warnings.append(Message("cloud_price_unknown", gpu=acc.name) if s.seller in prices_module.SELLER_GROUPS else
                        Message("seller_price_unknown", gpu=acc.name, seller=prices_module.seller_name(s.seller)))
        return rate
    if s.seller == prices_module.DEFAULT_SELLER:
        kind = ("assumption_cloud_price_estimated" if q.estimated else "assumption_cloud_price_derived" if q.derived
                else "assumption_cloud_price")
        params = {"basis": basis, "gpu": acc.id}
    else:
        kind = ("assumption_seller_price_estimated" if q.estimated else "assumption_seller_price_derived" if q.derived
                else "assumption_seller_price")
        params = {"seller": prices_module.seller_name(s.seller), "basis": basis, "gpu": acc.id}
    used.append(Assumption(kind, params, rate, "USD/GPU-hour", q.source))
    if s.pricing == "spot":
        if s.spot_discount is not None:
            rate *= 1.0 - s.spot_discount
        else:
            used.append(_assumption("spot_discount"))
    if q.estimated and s.pricing != "spot":
        estimated.append("cloud price")
        term = prices_module.split_basis(basis, s.seller)[0]
        warnings.append(Message("committed_price_estimated", gpu=acc.name, rate=rate, years=int(term[-2]))
                        if term in ("reserved_1y", "reserved_3y") else
                        Message("market_price_estimated", gpu=acc.name, rate=rate))
    elif q.derived:  # fewer than prices.MIN_PROVIDERS providers list it: the reference's price x within-provider ratios
        estimated.append("cloud price (derived)")
        warnings.append(Message("market_price_derived", gpu=acc.name, rate=rate, n=len(q.providers),
                                reference=catalog.accelerator(prices_module.REFERENCE).name))
    return rate


def _as_owned(s: Scenario) -> Scenario:
    """``s`` with ``pricing="owned"`` and no typed rate: ``s.replace(...)`` without validating it again (both
    values are valid whatever the rest, and no check combines them with another field), on every estimate."""
    owned = copy.copy(s)
    object.__setattr__(owned, "pricing", "owned")
    object.__setattr__(owned, "rate_usd_per_gpu_hour", None)
    return owned


def owned_terms(s: Scenario, acc: catalog.Accelerator, used: list[Assumption] | None = None,
                warnings: list[Message] | None = None, estimated: list[str] | None = None,
                fallbacks: dict[str, Any] | None = None) -> dict[str, Any]:
    """Owned hardware for scenario ``s``: capital per GPU and per GPU-hour, hosting and the rule [USD].

    Returns a dict with ``purchase_usd`` (per accelerator), ``capital_usd_per_gpu``
    (servers and interconnect included), ``accelerator_usd_per_gpu_hour``,
    ``hardware_usd_per_gpu_hour`` (servers, network, hosting), ``hosting_usd_per_gpu_hour``,
    ``years``, ``utilization``, ``financing_rate`` and ``amortization``; NaN where the price is unknown.
    Also the reference for what a cloud rate pays for (:func:`_in_rate`) with the defaults.
    ``fallbacks`` (optional) receives the value of each owned-hardware field of ``s`` used when it is None.
    """
    used = [] if used is None else used
    warnings = [] if warnings is None else warnings
    estimated = [] if estimated is None else estimated
    typed = s.purchase_usd_per_gpu is not None
    purchase = s.purchase_usd_per_gpu if typed else acc.purchase_usd
    if not typed and purchase is not None:
        used.append(Assumption("assumption_purchase_price", {"gpu": acc.id, "basis": acc.purchase_basis},
                               _nan(purchase), "USD", acc.purchase_source or acc.source))
    if purchase is None:
        purchase = _estimated_price(acc, "purchase_usd", "purchase price", "USD", used, estimated, warnings)
    if purchase is None:
        warnings.append(Message("purchase_price_unknown", gpu=acc.name))
    if fallbacks is not None:
        blank = purchase if not typed else acc.purchase_usd if acc.purchase_usd is not None else \
            _estimated_price(acc, "purchase_usd", "purchase price", "USD", [], [], [])
        fallbacks["purchase_usd_per_gpu"] = blank
    years = _pick(s.depreciation_years, "depreciation_years", used, fallbacks)
    if s.server_overhead is not None:
        overhead = s.server_overhead
    elif s.purchase_usd_per_gpu is None and acc.purchase_basis == "system":
        overhead = 1.0  # the price is already per GPU of a whole server or rack
        used.append(Assumption("assumption_server_overhead_system", {"gpu": acc.id}, 1.0, "x",
                               "Epoch AI cost_analysis_standalone.py: DGX/system per-GPU prices used as-is"))
    else:
        overhead = _pick(None, "server_overhead", used)
    network = _pick(s.network_fraction, "network_fraction", used, fallbacks)
    if s.hosting_usd_per_gpu_hour is not None and fallbacks is None:
        hosting = s.hosting_usd_per_gpu_hour
    else:
        power = _power(s, acc, [], [])
        colo = _pick(None, "colocation_usd_per_kw_month", used if s.hosting_usd_per_gpu_hour is None else [])
        hosting = float(F.hosting_usd_per_gpu_hour(colo, power["tdp_w"], power["server_power_factor"]))
        if fallbacks is not None:
            fallbacks["hosting_usd_per_gpu_hour"] = hosting if math.isfinite(hosting) else None
        if s.hosting_usd_per_gpu_hour is not None:
            hosting = s.hosting_usd_per_gpu_hour
        elif s.amortization == "epoch":  # Epoch AI's amortized costs count capital and energy, no hosting
            hosting = 0.0
            if fallbacks is not None:
                fallbacks["hosting_usd_per_gpu_hour"] = 0.0
            used.append(Assumption("assumption_hosting", {"gpu": acc.id}, hosting, "USD/GPU-hour",
                                   _source("assumption_source_epoch_no_hosting")))
        else:
            used.append(Assumption("assumption_hosting", {"gpu": acc.id}, hosting, "USD/GPU-hour",
                                   _source("assumption_source_hosting", colo=colo,
                                           watts=power["tdp_w"] * power["server_power_factor"])))
    utilization = _pick(s.owned_utilization, "owned_utilization", used, fallbacks)
    financing = _pick(s.financing_rate, "financing_rate", used, fallbacks)
    epoch = s.amortization == "epoch"
    if epoch and not typed and purchase is not None and acc.purchase_date:
        purchase = _epoch_value(s, acc, purchase, used)
    used.append(_named("amortization", s.amortization, "",
                       _source("assumption_source_epoch_amortization") if epoch else
                       _source("assumption_source_straight_line", years=years)))
    a, h = F.owned_hourly_usd(_nan(purchase), overhead, network, years, hosting, utilization, financing, epoch)
    return dict(purchase_usd=_nan(purchase),
                capital_usd_per_gpu=float(F.cluster_capital_usd(_nan(purchase), overhead, network)),
                accelerator_usd_per_gpu_hour=float(a), hardware_usd_per_gpu_hour=float(h),
                hosting_usd_per_gpu_hour=hosting, years=years, utilization=utilization, financing_rate=financing,
                amortization=s.amortization)


def _day(text: str, day_of_year: str) -> _dt.date:
    """A date of ``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD``: a year or a month is taken at ``day_of_year``'s place."""
    parts = text.split("-")
    if len(parts) == 3:
        return _dt.date.fromisoformat(text)
    if len(parts) == 2:
        return _dt.date(int(parts[0]), int(parts[1]), 15)
    return _dt.date.fromisoformat(f"{parts[0]}-{day_of_year}")


def _epoch_value(s: Scenario, acc: catalog.Accelerator, purchase: float, used: list[Assumption]) -> float:
    """Epoch AI's value of the accelerator when the run starts [USD]: its dated price less hardware progress.

    As cost_analysis_standalone.py does (Cottier et al. 2024): a GPU is acquired at its price's date, at the earliest
    90 days after its release year's middle, and a run starts no earlier than that; a TPU (not sold) is acquired at
    its release. The run starts at the scenario's price date, else at the newest price of the price table.
    """
    start = _dt.date.fromisoformat(prices_module.check_price_date(s.price_date) or prices_module.price_date_range()[1])
    acquired = _day(acc.purchase_date, "07-01")
    if not acc.is_tpu:
        acquired = max(acquired, _dt.date(acc.year, 7, 1) + _dt.timedelta(days=90))
        start = max(start, acquired)
    years = (start - acquired).days / 365.25
    value = float(F.epoch_value_usd(purchase, years))
    used.append(Assumption("assumption_epoch_value", {"gpu": acc.id, "start": start.isoformat()}, value, "USD",
                           _source("assumption_source_epoch_value", price=purchase, acquired=acquired.isoformat(),
                                   years=years)))
    return value


def _prices(s: Scenario, acc: catalog.Accelerator, used: list[Assumption], warnings: list[Message],
            estimated: list[str] | None = None, fallbacks: dict[str, Any] | None = None) -> dict[str, Any]:
    """Rate on the price basis, or owned capital and hardware per GPU-hour, and the extra interruption rate of spot."""
    owned = s.pricing == "owned"
    out: dict[str, Any] = dict(owned=owned, accelerator_usd_per_gpu_hour=0.0, hardware_usd_per_gpu_hour=0.0,
                               extra_failures=0.0)
    estimated = [] if estimated is None else estimated
    fallbacks = {} if fallbacks is None else fallbacks
    rate = math.nan
    if s.rate_usd_per_gpu_hour is not None:
        rate = s.rate_usd_per_gpu_hour
        used.append(_set("rate_usd_per_gpu_hour", rate, "USD/GPU-hour"))
        fallbacks["rate_usd_per_gpu_hour"] = None if owned else _cloud_rate(s, acc, [], [], [])
    elif not owned:
        rate = _cloud_rate(s, acc, used, warnings, estimated)
        fallbacks["rate_usd_per_gpu_hour"] = rate
    fallbacks["spot_discount"] = default("spot_discount")  # explorer.prices: spot = on-demand less this discount
    spot = s.pricing == "spot"
    extra = _pick(s.spot_preemption_per_gpu_hour, "spot_preemption_per_gpu_hour", used if spot else [], fallbacks)
    if spot:
        out["extra_failures"] = extra
    out["rate_usd_per_gpu_hour"] = rate
    if owned:
        terms = owned_terms(s, acc, used, warnings, estimated, fallbacks)
        out.update(accelerator_usd_per_gpu_hour=terms["accelerator_usd_per_gpu_hour"],
                   hardware_usd_per_gpu_hour=terms["hardware_usd_per_gpu_hour"], _owned_terms=terms)
    return out


def _power(s: Scenario, acc: catalog.Accelerator, used: list[Assumption], warnings: list[Message]
           ) -> dict[str, Any]:
    """Power per accelerator and how it scales to the wall (catalog power basis)."""
    kind = "tpu" if acc.is_tpu else "gpu"
    if acc.power_basis == "measured_system":
        used.append(Assumption("assumption_system_power", {"gpu": acc.id}, _nan(acc.system_power_w), "W",
                               acc.power_source))
        return dict(tdp_w=_nan(acc.system_power_w), server_power_factor=1.0, avg_power_fraction=1.0)
    if acc.tdp_w is None:
        warnings.append(Message("tdp_unknown", gpu=acc.name))
    else:
        used.append(Assumption("assumption_tdp", {"gpu": acc.id}, acc.tdp_w, "W", acc.source))
    if acc.server_power_factor is not None:
        factor = acc.server_power_factor
        used.append(Assumption("assumption_server_power_factor", {"gpu": acc.id}, factor, "x", acc.power_source))
    else:
        factor = _pick(None, "server_power_factor_gpu", used)
        if acc.tdp_w is not None:
            warnings.append(Message("server_power_factor_fallback", gpu=acc.name, factor=factor))
    fraction = _pick(None, f"avg_power_fraction_{kind}", used)
    return dict(tdp_w=_nan(acc.tdp_w), server_power_factor=factor, avg_power_fraction=fraction)


def facility_pue(s: Scenario, used: list[Assumption]) -> float:
    """PUE of the scenario's data centre: typed ``pue``, else the facility type's sourced default [1].

    The region sets the grid (price and carbon), not the building: a hyperscale
    facility in Germany has the PUE of one in Virginia. Only ``"regional_average"``
    takes the region's surveyed average (``regions.csv`` typical_pue), falling
    back to the industry average where the region has none.
    """
    if s.pue is not None:
        return s.pue
    return _facility_default_pue(s, used)


def _facility_default_pue(s: Scenario, used: list[Assumption]) -> float:
    """The PUE used when the scenario gives none: the facility type's default (see :func:`facility_pue`) [1]."""
    if s.facility == "regional_average":
        reg = catalog.region(s.region)
        if reg.pue is not None:
            used.append(Assumption("assumption_pue_region", _where(reg), reg.pue, "1", reg.source))
            return reg.pue
        return _pick(None, "pue_industry_average", used)
    return _pick(None, "pue" if s.facility == "hyperscale" else f"pue_{s.facility}", used)


def _region(s: Scenario, owned: bool, used: list[Assumption], warnings: list[Message], fallbacks: dict[str, Any]
            ) -> dict[str, Any]:
    reg = catalog.region(s.region)
    pue = facility_pue(s, used)
    fallbacks["pue"] = pue if s.pue is None else _facility_default_pue(s, [])
    fallbacks["grid_gco2_per_kwh"] = reg.grid_gco2_per_kwh
    gco2 = s.grid_gco2_per_kwh if s.grid_gco2_per_kwh is not None else reg.grid_gco2_per_kwh
    if gco2 is None:
        warnings.append(Message("grid_carbon_unknown", region=reg.name))
    elif s.grid_gco2_per_kwh is None:
        used.append(Assumption("assumption_grid_carbon", _where(reg), gco2, "gCO2/kWh", reg.source))
    price = s.electricity_usd_per_kwh if s.electricity_usd_per_kwh is not None else reg.electricity_usd_per_kwh
    note = []
    if price is None:
        peer = country_price_region(reg)
        if peer is not None:
            price = peer.electricity_usd_per_kwh
            used.append(Assumption("assumption_electricity_peer",
                                   {**_where(reg), "peer": peer.name, "year": peer.price_year}, _nan(price), "USD/kWh",
                                   peer.source))
            note.append("electricity price")
            if owned:
                warnings.append(Message("electricity_price_from_peer", region=reg.name, price=price, peer=peer.name))
        elif owned:
            warnings.append(Message("electricity_price_unknown", region=reg.name))
    elif s.electricity_usd_per_kwh is None:
        used.append(Assumption("assumption_electricity", {**_where(reg), "year": reg.price_year}, price, "USD/kWh",
                               reg.source))
    if s.electricity_usd_per_kwh is None:
        fallbacks["electricity_usd_per_kwh"] = price
    else:
        peer = country_price_region(reg) if reg.electricity_usd_per_kwh is None else reg
        fallbacks["electricity_usd_per_kwh"] = None if peer is None else peer.electricity_usd_per_kwh
    return dict(pue=pue, grid_gco2_per_kwh=_nan(gco2), electricity_usd_per_kwh=_nan(price) if owned else 0.0,
                _region_price=_nan(price), _estimated=note)


def country_price_region(reg: catalog.Region) -> catalog.Region | None:
    """Another region of ``reg``'s country with an electricity price, the national average first; None if none."""
    peers = [r for r in catalog.regions().values()
             if r.country == reg.country and r.id != reg.id and r.electricity_usd_per_kwh is not None]
    peers.sort(key=lambda r: (not r.id.endswith("-avg"), r.id))
    return peers[0] if peers else None


def _recovery(s: Scenario, write_h: float, restart_h: float, used: list[Assumption]) -> dict[str, Any]:
    """Where the job recovers from redundant in-memory state instead of storage, and its times [h].

    ``storage``: checkpoints written to storage and reloaded after every
    interruption (Llama 3). ``in_memory``: the state is recovered from an intact
    replica in memory (Gemini 1.0), no write stall and a short restart.
    ``auto``: the technique with the larger goodput at every size (NaN; see
    ``explorer.model.vectorized._goodput_at``: both apply at any scale, so the
    cheaper is chosen, with no step between sizes). Typed write and restart
    times apply to both.
    """
    if s.recovery == "storage":
        above = math.inf
    elif s.recovery == "in_memory":
        above = 0.0
    else:
        above = math.nan
    write_mem = write_h if s.checkpoint_write_minutes is not None else math.nan
    restart_mem = restart_h if s.restart_minutes is not None else math.nan
    if not above == math.inf:
        if math.isnan(write_mem):
            write_mem = _pick(None, "checkpoint_write_minutes_in_memory", used) / 60.0
        if math.isnan(restart_mem):
            restart_mem = _pick(None, "restart_minutes_in_memory", used) / 60.0
    return dict(recovery_above_gpus=above, checkpoint_write_hours_in_memory=_nan_to(write_mem, write_h),
                restart_hours_in_memory=_nan_to(restart_mem, restart_h))


def _nan_to(x: float, other: float) -> float:
    return other if math.isnan(x) else x


def resolve(s: Scenario) -> Resolved:
    """Inputs of :func:`~explorer.model.compute` for scenario ``s``, with assumptions and warnings."""
    acc = catalog.accelerator(s.gpu)
    used = [Assumption("assumption_peak", {"precision": s.precision, "gpu": acc.id}, acc.peak_tflops[s.precision],
                       "TFLOP/s", acc.source)]
    warnings: list[Message] = []
    fallbacks: dict[str, Any] = {}
    factors = _mfu_factors(s, acc)
    if s.mfu is None:
        mfu, mfu_used = _default_mfu(s, factors)
        if s.precision == "fp4" and factors["mfu_precision_factor"] < 1.0:
            # fp4_speedup is "up to ~1.6x" in its source: an upper bound used as the point value
            warnings.append(Message("fp4_speedup_upper_bound", speedup=min(default("fp4_speedup"),
                                                                           factors["peak_ratio"])))
    else:
        mfu, mfu_used = resolve_mfu(s)
    used += mfu_used
    other = _pick(s.other_losses_factor, "other_losses_factor", used)
    shape = _shape(s, used)
    parts, activation = _memory(s, shape, used)
    estimated: list[str] = []
    prices = _prices(s, acc, used, warnings, estimated, fallbacks)
    base_failure = _pick(s.failure_rate_per_gpu_hour, "failure_rate_per_gpu_hour", used, fallbacks)
    spot_failures = prices.pop("extra_failures")
    failure_rate = base_failure + spot_failures
    # owning this cluster: the scenario's own terms when owned, else the default terms of owning it (computed
    # once: the cloud rate's "in the rate" parts and the estimate's buy-versus-rent figures both read them)
    owned = prices.pop("_owned_terms", None) or owned_terms(_as_owned(s), acc,
                                                            fallbacks=fallbacks)
    write_h = _pick(s.checkpoint_write_minutes, "checkpoint_write_minutes", used) / 60.0
    restart_h = _pick(s.restart_minutes, "restart_minutes", used, fallbacks) / 60.0
    recovery = _recovery(s, write_h, restart_h, used)
    if s.recovery != "storage" and s.restart_minutes is None:
        # the blank box stands for the restart of the technique in use: in-memory recovery (under auto, the
        # larger goodput at every size with the default times), so typing that value changes nothing
        fallbacks["restart_minutes"] = recovery["restart_hours_in_memory"] * 60.0
    storage_price = _pick(s.storage_usd_per_gb_month, "storage_usd_per_gb_month", used if s.checkpoints_kept else [],
                          fallbacks)
    storage = storage_price if s.checkpoints_kept else 0.0
    data_fixed = s.labelled_examples * s.usd_per_labelled_example + s.synthetic_tokens / 1e6 * s.synthetic_usd_per_1m_tokens
    data_usd = s.tokens / 1e6 * s.data_usd_per_1m_tokens + data_fixed
    if s.data_usd_per_1m_tokens == default("data_usd_per_1m_tokens"):  # the sourced default kept: its source
        used.append(_assumption("data_usd_per_1m_tokens"))
    if s.experiments_multiplier is None:
        used.append(_assumption(experiments_default_name(s.training_kind)))
    fallbacks["experiments_multiplier"] = default(experiments_default_name(s.training_kind))
    max_gpus = _pick(None, "max_gpus", used)
    max_wall_days = _pick(None, "max_run_years", used) * F.HOURS_PER_YEAR / 24.0
    tensor_parallel = _pick(s.tensor_parallel, "tensor_parallel", used)
    if s.tensor_parallel is not None:
        used.append(_set("tensor_parallel", s.tensor_parallel, "GPUs"))
    layout = _layout_inputs(s, shape, parts, used)
    if s.currency != "USD":
        _pick(s.usd_to_cny, "usd_to_cny", used, fallbacks)
        if s.usd_to_cny is not None:
            used.append(_set("usd_to_cny", s.usd_to_cny, "CNY/USD"))
    region = _region(s, prices["owned"], used, warnings, fallbacks)
    region_price = region.pop("_region_price")
    estimated += region.pop("_estimated")
    if s.architecture == "moe" and s.active_params is None and (s.experts is None or s.top_k is None):
        if s.active_fraction is None:
            used.append(_named("moe_active_fraction", s.active_fraction_effective, "1", rules.moe_source()))
            warnings.append(Message("moe_active_defaulted", share=s.active_fraction_effective,  # 3 digits: 1.89B
                                    active=float(f"{s.active_params_effective:.3g}"), params=s.params))
            lo, hi, n = moe_share_spread()
            warnings.append(Message("moe_active_spread", n=n, lo=lo, hi=hi, share_lo=s.active_fraction_effective * lo,
                                    share_hi=s.active_fraction_effective * hi))
        used.append(Assumption("assumption_active_params_moe", {}, s.active_params_effective, "1",
                               _source("assumption_source_active_fraction", fraction=s.active_fraction_effective)))
    flop_factor = 4.0 + 6.0 * s.lora_trainable_fraction if s.training_kind == "lora" else 6.0
    attention = float(F.attention_flop_per_token(*shape))
    team = _team(s, float(F.train_flop(flop_factor, s.active_params_effective, s.tokens, attention)), used, fallbacks,
                 warnings)
    months = team["project_months"]
    loaded = s.team_loaded_usd_per_year or 0.0
    pay_name = "team_loaded_usd_per_year_ai_lab" if s.team_pay_basis == "ai_lab" else "team_loaded_usd_per_year"
    fallbacks["team_loaded_usd_per_year"] = default(pay_name)
    if team["headcount"] > 0 and s.team_loaded_usd_per_year is None:
        loaded = _pick(None, pay_name, used)
        country = catalog.region(s.region).country
        if country != "United States":
            warnings.append(Message("team_pay_us_default", usd=loaded, country=country))
    inputs = compute_inputs(dict(  # every input of compute, checked against explorer.model.inputs
        params=s.params,
        active_params=s.active_params_effective,
        tokens=s.tokens,
        flop_per_param_token=flop_factor,
        attention_flop_per_token=attention,
        peak_flop_per_s=acc.peak_tflops[s.precision] * 1e12,
        mfu=mfu,
        other_losses_factor=other,
        gpus=_nan(s.gpus),
        deadline_days=_nan(s.deadline_days),
        max_gpus=max_gpus,
        max_wall_days=max_wall_days,
        failure_rate_per_gpu_hour=failure_rate,
        checkpoint_write_hours=write_h,
        checkpoint_interval_hours=_nan(s.checkpoint_interval_hours),
        restart_hours=restart_h,
        **recovery,
        state_bytes_per_param=sum(parts.values()),
        activation_bytes=activation.get("none", activation[s.recompute] if s.recompute != "auto" else math.nan),
        activation_bytes_selective=activation.get("selective", math.nan) if s.recompute == "auto" else math.nan,
        activation_bytes_full=activation.get("full", math.nan) if s.recompute == "auto" else math.nan,
        tensor_parallel=tensor_parallel,
        **layout,
        memory_gb=acc.memory_gb,
        **_power(s, acc, used, warnings),
        chip_power_w=_nan(acc.tdp_w),
        **region,
        **prices,
        data_usd=data_usd,
        team_usd_per_month=team["headcount"] * loaded / 12.0,
        project_months=months,
        project_months_max=team["project_months_max"],
        checkpoints_kept=s.checkpoints_kept,
        storage_usd_per_gb_month=storage,
        experiments_multiplier=s.experiments_multiplier_effective,
    ))
    in_rate = {} if prices["owned"] else _in_rate(owned, region_price)
    fallbacks.setdefault("usd_to_cny", default("usd_to_cny"))
    fallbacks["project_months"] = None  # the run's length decides it: explorer.model.estimate gives it when blank
    fallbacks["checkpoint_interval_hours"] = None  # the optimal interval, found for each cluster size
    for name in ("tensor_parallel", "pipeline_parallel", "zero_stage", "expert_parallel"):  # the layout at the count decides them
        fallbacks[name] = None
    factors.pop("mfu_base_name")
    factors.update(
        on_demand_usd_per_gpu_hour=prices_module.quote(
            acc.id, "on_demand", as_of=prices_module.check_price_date(s.price_date)).usd_per_gpu_hour,
        owned_reference=_owned_reference(s, acc, owned),
        failure_rate_base_per_gpu_hour=base_failure, spot_failures_per_gpu_hour=spot_failures,
        electricity_usd_per_kwh=region_price, storage_usd_per_gb_month=storage_price, data_fixed_usd=data_fixed,
        trainable_fraction=s.lora_trainable_fraction if s.training_kind == "lora" else 1.0,
        activation_scale=_activation_bytes(s.precision) / 2.0)
    fallbacks = {k: (None if v is None or (isinstance(v, float) and not math.isfinite(v)) else v)
                 for k, v in fallbacks.items()}
    return Resolved(inputs, used, warnings, mfu, shape, parts, estimated=estimated, in_rate=in_rate, owned=owned,
                    factors=factors, fallbacks=fallbacks, activation_bytes=activation)


#: Scenario fields that set the terms of owning hardware (:func:`owned_terms`).
_OWNED_TERM_FIELDS = ("purchase_usd_per_gpu", "depreciation_years", "server_overhead", "network_fraction",
                      "hosting_usd_per_gpu_hour", "owned_utilization", "financing_rate", "amortization")


def _owned_reference(s: Scenario, acc: catalog.Accelerator, owned: dict[str, Any]) -> dict[str, Any]:
    """Owning ``s``'s accelerator on the default terms, per GPU-hour [USD/GPU-hour]: the accelerator's own part.

    ``owned`` (the scenario's terms) when the scenario sets none of them, else the terms of the plain scenario.
    """
    plain = _plain_owned(acc.id, s.precision)
    if any(getattr(s, name) != getattr(plain, name) for name in _OWNED_TERM_FIELDS):
        owned = owned_terms(plain, acc)
    return {k: owned[k] for k in ("accelerator_usd_per_gpu_hour", "hardware_usd_per_gpu_hour")}


@functools.cache
def _plain_owned(gpu: str, precision: str) -> Scenario:
    return Scenario(gpu=gpu, precision=precision, pricing="owned")


#: The next wider training format whose sourced activation storage a narrower format without one keeps: an FP4
#: recipe caches at most what the FP8 recipe caches (it quantizes the same GEMM inputs, to fewer bits), so FP4
#: memory is never above FP8's. Others fall back to the 16-bit value.
_WIDER_ACTIVATIONS = {"fp4": "fp8"}


def _activation_bytes(precision: str) -> float:
    """Bytes per activation value at ``precision``: its own, else the next wider format's (FP4: FP8's), else the
    16-bit value (none sourced) [bytes]."""
    table = catalog.precisions()
    act = table[precision].activation_bytes
    wider = _WIDER_ACTIVATIONS.get(precision)
    if act is None and wider is not None and wider in table:
        act = table[wider].activation_bytes
    return act if act is not None else float(table["bf16"].activation_bytes or math.nan)


def _in_rate(terms: dict[str, Any], electricity_usd_per_kwh: float) -> dict[str, Any]:
    """What one cloud GPU-hour pays for, per GPU-hour [USD]: ``hardware`` and ``energy`` (owner's costs).

    Hardware is what owning the same accelerator would cost per used hour
    (``terms``, :func:`owned_terms` of the scenario as owned: purchase, server overhead,
    network and hosting, amortized by its rule); energy is the electricity at
    the region's price. The rest of the rate is the provider's margin and
    everything else (computed by :func:`~explorer.model.estimate`). NaN where a
    price is unknown.
    """
    return {"hardware": terms["accelerator_usd_per_gpu_hour"] + terms["hardware_usd_per_gpu_hour"],
            "electricity_usd_per_kwh": electricity_usd_per_kwh}
