"""The scenario: every input of the cost model, immutable and validated.

A :class:`Scenario` is a flat, frozen record whose field names carry their
units. Fields left at ``None`` take the catalog value or the named default
(see ``explorer/data/defaults.csv``) when the scenario is estimated. Every
field's range lives in its metadata, so the CLI and the app validate and clamp
against the same table.
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass, field
from typing import Any, Mapping

from explorer import catalog, prices, rules
from explorer.errors import ScenarioError
from explorer.messages import Message

__all__ = [
    "Scenario",
    "TRAINING_KINDS",
    "PRICING_MODES",
    "SELLERS",
    "ARCHITECTURES",
    "CURRENCIES",
    "RECOMPUTE_MODES",
    "AMORTIZATION_RULES",
    "PAY_BASES",
    "FACILITIES",
    "RECOVERY_MODES",
    "field_spec",
]

TRAINING_KINDS = ("pretrain", "continual_pretrain", "full_finetune", "lora")
#: Price bases (explorer.prices): how you commit -- on-demand (the default), 1- and 3-year committed use, spot --
#: from the scenario's ``seller``; the hyperscalers' on-demand and committed list prices under names of their own
#: (``hyperscaler_``: the seller is the hyperscalers; a Scenario stores them as the commitment with
#: ``seller="hyperscaler"``); and owned hardware. ``reserved_1y``/``reserved_3y`` meant
#: the hyperscalers' committed prices until issue 27; old links and files with them load as the default seller's.
PRICING_MODES = ("on_demand", "reserved_1y", "reserved_3y", "spot", "owned", "hyperscaler_on_demand",
                 "hyperscaler_reserved_1y", "hyperscaler_reserved_3y")
#: Who sells under cloud pricing (explorer.prices.sellers): the specialist-cloud median (the default), the
#: hyperscalers' median, or one provider of the price table by id.
SELLERS = prices.sellers()
AMORTIZATION_RULES = ("straight_line", "epoch")
#: Loaded pay per person: an AI lab's (Cottier et al. 2024) or general industry's (BLS).
PAY_BASES = ("ai_lab", "industry")
ARCHITECTURES = ("dense", "moe")
#: Activation recomputation: ``auto`` (the first of none, selective, full whose activations fit; issue 38), or one.
RECOMPUTE_MODES = ("auto", "selective", "none", "full")
CURRENCIES = ("USD", "CNY")
#: Data-centre types with a sourced default PUE (``defaults.csv`` ``pue_<facility>``); ``regional_average``
#: takes the region's surveyed average (``regions.csv`` typical_pue), else the industry average.
FACILITIES = ("hyperscale", "industry_average", "regional_average")
#: How a job recovers from an interruption: ``auto`` (the technique with the larger goodput at every size),
#: ``storage`` (checkpoints reloaded from storage), ``in_memory`` (redundant state).
RECOVERY_MODES = ("auto", "storage", "in_memory")

_INF = math.inf


def _num(default, lo, hi, *, lo_open=False, unit="", optional=False, integer=False):
    """A numeric field with its allowed range [lo, hi] (lo excluded when lo_open)."""
    meta = {"kind": "int" if integer else "float", "min": lo, "max": hi, "lo_open": lo_open,
            "unit": unit, "optional": optional}
    return field(default=default, metadata=meta)


def _choice(default, choices, *, optional=False):
    return field(default=default, metadata={"kind": "choice", "choices": choices, "optional": optional})


@dataclass(frozen=True)
class Scenario:
    """Inputs of one training run and its project.

    Model
        ``params`` total parameters [1]; ``architecture`` ``"dense"`` or ``"moe"``;
        for MoE ``active_params`` [1], or ``experts`` and ``top_k`` (then
        active = params * top_k / experts, a lower bound that ignores shared
        layers), or ``active_fraction`` of params [0-1] (None: the size-aware
        default of :func:`explorer.rules.moe_active_fraction`, which the model
        warns about); ``tokens`` training tokens [1]; ``n_layers`` and ``d_model``
        (None: derived from ``params``) and ``seq_len`` [tokens] (None: the
        ``seq_len`` default) give the attention FLOP and the activations;
        ``recompute`` activation recomputation ``"auto"`` (the first of none,
        selective and full that fits), ``"selective"``, ``"none"`` or ``"full"``
        (Korthikanti et al. 2022); the parallel layout ``tensor_parallel``,
        ``pipeline_parallel`` [1] and ``zero_stage`` (0-3; Rajbhandari et al.
        2020), each None for the model's choice (:mod:`explorer.model.layout`),
        and for MoE ``expert_parallel`` [1] (None: chosen where it helps memory);
        ``training_kind``; for LoRA ``lora_trainable_fraction`` of parameters trained.
    Hardware
        ``gpu`` accelerator id (``explorer.catalog.accelerators()``);
        ``precision``; ``mfu`` steady-state override [0-1];
        ``other_losses_factor`` billed time beyond failures and checkpoints [x]; exactly one of ``gpus`` [1] or
        ``deadline_days`` [days].
    Reliability
        ``failure_rate_per_gpu_hour`` [1/GPU-hour]; ``checkpoint_interval_hours``
        (None = Young/Daly optimum) [h]; ``checkpoint_write_minutes`` and
        ``restart_minutes`` [min] (None: the sourced defaults of the recovery
        technique); ``recovery`` ``"auto"``, ``"storage"`` (Llama 3: checkpoints
        on storage) or ``"in_memory"`` (Gemini 1.0: redundant in-memory state,
        no write stall, short restarts); ``auto`` takes the one with the larger
        goodput at every size (both apply at any scale), so no size is a step.
    Pricing
        ``pricing``, the price basis (:data:`PRICING_MODES`; ``explorer.prices``): how you commit, or a
        ``hyperscaler_`` basis; ``seller`` who sells (:data:`SELLERS`): ``specialist`` (the median of
        specialist GPU clouds, the default), ``hyperscaler`` or one provider's id (its own dated price); ``rate_usd_per_gpu_hour`` is the rate actually paid,
        replacing the catalog price and its discounts [USD/GPU-hour]; spot ``spot_discount`` [0-1] and
        ``spot_preemption_per_gpu_hour``; owned ``purchase_usd_per_gpu`` [USD],
        ``server_overhead`` [x], ``network_fraction`` [0-1],
        ``depreciation_years`` [years], ``hosting_usd_per_gpu_hour`` (None: colocation at the sourced rate
        per kW), ``amortization`` ``"straight_line"`` or ``"epoch"`` (Epoch AI's 0.322 a year),
        ``owned_utilization`` of the cluster's life [0-1] and ``financing_rate`` a year [0-1].
    Region and facility
        ``region`` id (grid price and carbon), or overrides
        ``electricity_usd_per_kwh``, ``grid_gco2_per_kwh``; ``facility`` the
        data centre's type, which sets its PUE (``"hyperscale"`` 1.1,
        ``"industry_average"``, or ``"regional_average"`` of the region), or
        ``pue`` [1] typed, which wins over the facility.
    Data, team, storage, experiments
        ``data_usd_per_1m_tokens`` (acquisition and cleaning) [USD/1M tokens], ``labelled_examples``
        x ``usd_per_labelled_example``, ``synthetic_tokens`` x
        ``synthetic_usd_per_1m_tokens``; ``team_headcount`` [people] (None: the
        default that follows the run's compute and training kind, :func:`explorer.rules.team_headcount`) x
        ``team_loaded_usd_per_year`` (None: the sourced US default of ``team_pay_basis``, ``"ai_lab"`` or
        ``"industry"``) x ``project_months`` (None: the default that follows the run,
        :func:`explorer.rules.project_months`, never shorter than the run and at most ``project_months_max``);
        ``checkpoints_kept`` x ``storage_usd_per_gb_month``;
        ``experiments_multiplier`` (1.0 = final run only; total development
        compute relative to the final run; None: the default of the training kind) [x].
        The default of ``data_usd_per_1m_tokens`` (cleaning open web text) is the
        sourced row of the same name in ``explorer/data/defaults.csv``; the team
        and experiments follow the run and its training kind,
        so the default scenario is a whole project; set them to 0, 0 and 1 for
        the final run alone.
    Currency
        ``currency`` ``"USD"`` or ``"CNY"`` at ``usd_to_cny`` [CNY/USD].
    """

    # model
    params: float = _num(7e9, 1e6, 1e14, lo_open=False)
    architecture: str = _choice("dense", ARCHITECTURES)
    active_params: float | None = _num(None, 1e5, 1e14, optional=True)
    active_fraction: float | None = _num(None, 0.0, 1.0, lo_open=True, optional=True)
    experts: int | None = _num(None, 2, 4096, optional=True, integer=True)
    top_k: int | None = _num(None, 1, 4096, optional=True, integer=True)
    tokens: float = _num(1e12, 1e6, 1e15)
    n_layers: int | None = _num(None, 1, 1000, optional=True, integer=True)
    d_model: int | None = _num(None, 64, 262144, optional=True, integer=True)
    seq_len: int | None = _num(None, 16, 10_000_000, optional=True, integer=True)
    recompute: str = _choice("auto", RECOMPUTE_MODES)
    # parallel layout (issue 38): None lets the model choose (explorer.model.layout)
    tensor_parallel: int | None = _num(None, 1, 1024, optional=True, integer=True)
    pipeline_parallel: int | None = _num(None, 1, 1024, optional=True, integer=True)
    zero_stage: int | None = _num(None, 0, 3, optional=True, integer=True)
    expert_parallel: int | None = _num(None, 1, 4096, optional=True, integer=True)
    training_kind: str = _choice("pretrain", TRAINING_KINDS)
    lora_trainable_fraction: float = _num(0.01, 0.0, 1.0, lo_open=True)
    # hardware
    gpu: str = "h100-sxm"
    precision: str = _choice("bf16", catalog.PRECISIONS)
    mfu: float | None = _num(None, 0.01, 1.0, optional=True)
    other_losses_factor: float | None = _num(None, 1.0, 5.0, optional=True)
    gpus: int | None = _num(1024, 1, 10_000_000, optional=True, integer=True)
    deadline_days: float | None = _num(None, 0.0, 3650.0, lo_open=True, optional=True, unit="days")
    # reliability
    failure_rate_per_gpu_hour: float | None = _num(None, 0.0, 1e-2, optional=True)
    checkpoint_interval_hours: float | None = _num(None, 0.01, 1000.0, optional=True)
    checkpoint_write_minutes: float | None = _num(None, 0.0, 600.0, optional=True)
    restart_minutes: float | None = _num(None, 0.0, 1440.0, optional=True)
    recovery: str = _choice("auto", RECOVERY_MODES)
    # pricing
    pricing: str = _choice("on_demand", PRICING_MODES)
    seller: str = _choice("specialist", SELLERS)
    # the cloud prices as of this day (YYYY, YYYY-MM or YYYY-MM-DD; None: the newest), explorer.prices.quote
    price_date: str | None = field(default=None, metadata={"kind": "str", "optional": True})
    rate_usd_per_gpu_hour: float | None = _num(None, 0.0, 1000.0, optional=True)
    spot_discount: float | None = _num(None, 0.0, 0.99, optional=True)
    spot_preemption_per_gpu_hour: float | None = _num(None, 0.0, 1e-1, optional=True)
    purchase_usd_per_gpu: float | None = _num(None, 0.0, 1e7, optional=True)
    server_overhead: float | None = _num(None, 1.0, 10.0, optional=True)
    network_fraction: float | None = _num(None, 0.0, 0.9, optional=True)
    depreciation_years: float | None = _num(None, 0.5, 30.0, optional=True)
    hosting_usd_per_gpu_hour: float | None = _num(None, 0.0, 1000.0, optional=True)
    amortization: str = _choice("straight_line", AMORTIZATION_RULES)
    owned_utilization: float | None = _num(None, 0.0, 1.0, lo_open=True, optional=True)
    financing_rate: float | None = _num(None, 0.0, 1.0, optional=True)
    # region
    region: str = "us-avg"
    electricity_usd_per_kwh: float | None = _num(None, 0.0, 10.0, optional=True)
    pue: float | None = _num(None, 1.0, 5.0, optional=True)
    grid_gco2_per_kwh: float | None = _num(None, 0.0, 2000.0, optional=True)
    facility: str = _choice("hyperscale", FACILITIES)
    # data
    data_usd_per_1m_tokens: float = _num(catalog.default("data_usd_per_1m_tokens"), 0.0, 1e6)
    labelled_examples: float = _num(0.0, 0.0, 1e12)
    usd_per_labelled_example: float = _num(0.0, 0.0, 1e5)
    synthetic_tokens: float = _num(0.0, 0.0, 1e15)
    synthetic_usd_per_1m_tokens: float = _num(0.0, 0.0, 1e6)
    # team
    team_headcount: float | None = _num(None, 0.0, 1e5, optional=True)
    team_loaded_usd_per_year: float | None = _num(None, 0.0, 1e8, optional=True)
    team_pay_basis: str = _choice("ai_lab", PAY_BASES)
    project_months: float | None = _num(None, 0.0, 600.0, optional=True)
    # storage
    checkpoints_kept: float = _num(0.0, 0.0, 1e5)
    storage_usd_per_gb_month: float | None = _num(None, 0.0, 100.0, optional=True)
    # experiments
    experiments_multiplier: float | None = _num(None, 1.0, 100.0, optional=True)
    # currency
    currency: str = _choice("USD", CURRENCIES)
    usd_to_cny: float | None = _num(None, 0.01, 1000.0, optional=True)

    def __post_init__(self) -> None:
        if self.price_date == "":  # an empty box or the dropdown's "newest prices": the newest
            object.__setattr__(self, "price_date", None)
        for f in dataclasses.fields(self):
            object.__setattr__(self, f.name, _check_field(f, getattr(self, f.name)))
        self._check_combinations()
        if self.pricing.startswith("hyperscaler_"):  # one spelling of a price: (how you commit, who sells)
            object.__setattr__(self, "pricing", self.pricing[len("hyperscaler_"):])
            object.__setattr__(self, "seller", "hyperscaler")

    def _check_combinations(self) -> None:
        acc = catalog.accelerator(self.gpu)
        catalog.region(self.region)
        if self.precision not in acc.peak_tflops:
            raise ScenarioError("precision", self.precision,
                                Message("allowed_precision", choices=list(acc.precisions), gpu=acc.id))
        if (self.gpus is None) == (self.deadline_days is None):
            raise ScenarioError("gpus", self.gpus, Message("allowed_gpus_or_deadline", a="gpus", b="deadline_days"))
        if self.architecture == "moe":
            if self.experts is not None and self.top_k is not None and self.top_k > self.experts:
                raise ScenarioError("top_k", self.top_k, Message("allowed_at_most_experts", experts=self.experts))
        if self.active_params is not None and self.active_params > self.params:
            raise ScenarioError("active_params", self.active_params,
                                Message("allowed_at_most_params", params=self.params))
        if (self.n_layers is None) != (self.d_model is None):
            raise ScenarioError("n_layers", self.n_layers, Message("allowed_shape_pair"))
        prices.check_price_date(self.price_date)
        if self.pricing.startswith("hyperscaler_") and self.seller not in prices.SELLER_GROUPS:
            raise ScenarioError("seller", self.seller, Message("allowed_choices", choices=list(prices.SELLER_GROUPS),
                                                               field="seller"))

    # --- derived -------------------------------------------------------
    @property
    def active_params_effective(self) -> float:
        """Parameters active per token [1]: ``params`` for dense models."""
        if self.architecture == "dense":
            return self.params
        if self.active_params is not None:
            return self.active_params
        if self.experts is not None and self.top_k is not None:
            return self.params * self.top_k / self.experts
        return self.params * self.active_fraction_effective

    @property
    def experiments_multiplier_effective(self) -> float:
        """Development compute over the final run [x]: as given, else the training kind's default."""
        if self.experiments_multiplier is not None:
            return self.experiments_multiplier
        return catalog.default(experiments_default_name(self.training_kind))

    @property
    def active_fraction_effective(self) -> float:
        """Active over total parameters [0-1]: 1 for dense, else as given or the size-aware default.

        The default follows the total parameters (:func:`explorer.rules.moe_active_fraction`, fitted over
        ``moe_models.csv``): 27% up to Mixtral 8x7B's 46.7B, 4.3% from DeepSeek-V3's 671B.
        """
        if self.architecture == "dense":
            return 1.0
        if self.active_params is not None or (self.experts is not None and self.top_k is not None):
            return self.active_params_effective / self.params
        if self.active_fraction is not None:
            return self.active_fraction
        return rules.moe_active_fraction(self.params)

    def replace(self, **changes: Any) -> "Scenario":
        """A copy with some fields changed (validated)."""
        return dataclasses.replace(self, **changes)

    # --- serialisation -------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """All fields as plain JSON-compatible values."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def to_json(self, **kwargs: Any) -> str:
        """JSON text; :meth:`from_json` reads it back to an equal scenario."""
        return json.dumps(self.to_dict(), **kwargs)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Scenario":
        """A scenario from a mapping of field names; unknown keys are an error."""
        if not isinstance(data, Mapping):
            raise ScenarioError("scenario", type(data).__name__, Message("allowed_json_object"))
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise ScenarioError(unknown[0], data[unknown[0]], Message("allowed_scenario_field", names=sorted(names)))
        return cls(**data)

    @classmethod
    def from_json(cls, text: str) -> "Scenario":
        """A scenario from JSON text (see :meth:`to_json`).

        Text from anywhere is safe here: oversized text, numbers with hundreds of
        digits and deeply nested arrays end in one :class:`ScenarioError`.
        """
        if not isinstance(text, (str, bytes, bytearray)):
            raise ScenarioError("scenario", type(text).__name__, Message("allowed_json_text"))
        if len(text) > MAX_JSON_CHARS:
            raise ScenarioError("scenario", Message("value_characters", n=len(text)),
                                Message("allowed_json_size", limit=MAX_JSON_CHARS))
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ScenarioError("scenario", text[:40],
                                Message("allowed_json_valid", detail=exc.msg, line=exc.lineno)) from None
        except RecursionError:
            raise ScenarioError("scenario", text[:40], Message("allowed_json_depth")) from None
        except ValueError:  # an integer of more than 4,300 digits (Python's int_max_str_digits)
            raise ScenarioError("scenario", text[:40], Message("allowed_json_digits")) from None
        return cls.from_dict(data)


MAX_JSON_CHARS = 100_000  # a full scenario is about 1,500 characters


def experiments_default_name(training_kind: str) -> str:
    """Name of the experiments default of a training kind (defaults.csv)."""
    return "experiments_multiplier" if training_kind == "pretrain" else "experiments_multiplier_adaptation"


def field_spec(name: str) -> Mapping[str, Any]:
    """Range and kind of a scenario field: ``min``, ``max``, ``choices``, ``optional``..."""
    for f in dataclasses.fields(Scenario):
        if f.name == name:
            return f.metadata
    raise KeyError(name)


def _check_field(f: dataclasses.Field, value: Any) -> Any:
    meta = f.metadata
    kind = meta.get("kind", "str")
    if value is None:
        if meta.get("optional"):
            return None
        raise ScenarioError(f.name, value, Message("allowed_required"))
    if kind == "choice":
        if value not in meta["choices"]:
            raise ScenarioError(f.name, value, Message("allowed_choices", choices=list(meta["choices"]), field=f.name))
        return value
    if kind == "str":
        if not isinstance(value, str) or not value:
            raise ScenarioError(f.name, value, Message("allowed_id"))
        return value
    if isinstance(value, bool):
        raise ScenarioError(f.name, value, Message("allowed_not_bool"))
    lo, hi = meta["min"], meta["max"]

    def out_of_range(given: Any) -> ScenarioError:  # the message is built only for a refusal (every estimate checks)
        return ScenarioError(f.name, given, Message("allowed_whole_range" if kind == "int" else "allowed_range",
                                                    lo=lo, hi=hi, bracket="(" if meta["lo_open"] else "["))
    try:
        value = float(value)
    except OverflowError:  # an integer beyond the float range (1e308)
        raise out_of_range(value) from None
    except (TypeError, ValueError):
        raise ScenarioError(f.name, value, Message("allowed_number")) from None
    if not math.isfinite(value):
        raise out_of_range(value)
    if value < lo or value > hi or (meta["lo_open"] and value == lo):
        raise out_of_range(value)
    if kind == "int":
        if value != int(value):
            raise out_of_range(value)
        return int(value)
    return float(value)
