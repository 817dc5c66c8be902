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
    "range_error",
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


def _num(default: float | None, lo: float, hi: float, *, lo_open: bool = False, unit: str = "",
         optional: bool = False, integer: bool = False) -> Any:
    """A numeric field with its allowed range [lo, hi] (lo excluded when lo_open)."""
    meta = {"kind": "int" if integer else "float", "min": lo, "max": hi, "lo_open": lo_open,
            "unit": unit, "optional": optional}
    return field(default=default, metadata=meta)


def _choice(default: str | None, choices: tuple[str, ...], *, optional: bool = False) -> Any:
    """A field that takes one of ``choices``."""
    return field(default=default, metadata={"kind": "choice", "choices": choices, "optional": optional})


@dataclass(frozen=True)
class Scenario:
    """Inputs of one training run and its project.

    The fields follow the groups of the app: the model and its parallel layout, the hardware, reliability,
    pricing, the region and facility, then data, team, storage, experiments and currency. Ranges and choices are
    in each field's metadata (:func:`field_spec`); a value outside them raises :class:`ScenarioError`.
    The default of ``data_usd_per_1m_tokens`` (cleaning open web text) is the sourced row of the same name in
    ``explorer/data/defaults.csv``; the team and experiments follow the run and its training kind, so the default
    scenario is a whole project; set ``team_headcount``, ``project_months`` and ``experiments_multiplier`` to 0,
    0 and 1 for the final run alone.

    Parameters
    ----------
    params : float
        Total parameters [1].
    architecture : {"dense", "moe"}
        Dense transformer or mixture of experts.
    active_params : float, optional
        MoE: parameters active per token [1], at most ``params``.
    active_fraction : float, optional
        MoE: active over total parameters [0-1], used when neither ``active_params`` nor ``experts`` and
        ``top_k`` are given; None: the size-aware default of :func:`explorer.rules.moe_active_fraction`, which
        the model warns about.
    experts, top_k : int, optional
        MoE: experts, and experts per token [1] (``top_k`` at most ``experts``); with both, active = params *
        top_k / experts, a lower bound that ignores shared layers.
    tokens : float
        Training tokens [1].
    n_layers, d_model : int, optional
        Layers [1] and hidden size [1], both or neither; None: derived from ``params``. With ``seq_len`` they
        give the attention FLOP and the activations.
    seq_len : int, optional
        Sequence length [tokens]; None: the ``seq_len`` default.
    recompute : {"auto", "selective", "none", "full"}
        Activation recomputation (Korthikanti et al. 2022); ``"auto"``: the first of none, selective and full
        whose activations fit.
    tensor_parallel, pipeline_parallel : int, optional
        Tensor- and pipeline-parallel degrees [1]; None: the model's choice (:mod:`explorer.model.layout`).
    zero_stage : int, optional
        ZeRO stage, 0-3 (Rajbhandari et al. 2020); None: the model's choice.
    expert_parallel : int, optional
        MoE: expert-parallel degree [1]; None: the model's choice, the fewest expert ranks that fit where that
        helps memory (:mod:`explorer.model.layout`).
    training_kind : {"pretrain", "continual_pretrain", "full_finetune", "lora"}
        What the run is; sets the default team, project length and experiments.
    lora_trainable_fraction : float
        LoRA: fraction of the parameters trained [0-1].
    gpu : str
        Accelerator id (``explorer.catalog.accelerators()``).
    precision : str
        Training precision (:data:`explorer.catalog.PRECISIONS`), one the accelerator has a dense peak for.
    mfu : float, optional
        Steady-state model FLOP utilization [0-1], overriding the model's default.
    other_losses_factor : float, optional
        Billed time beyond failures and checkpoints [x]; None: the ``other_losses_factor`` default.
    gpus : int, optional
        Accelerators [1]. Exactly one of ``gpus`` and ``deadline_days`` is given.
    deadline_days : float, optional
        Deadline [days]: the model takes the cheapest cluster that meets it.
    failure_rate_per_gpu_hour : float, optional
        Interruptions per GPU-hour [1/GPU-hour]; None: the sourced default.
    checkpoint_interval_hours : float, optional
        Checkpoint interval [h]; None: the Young/Daly optimum.
    checkpoint_write_minutes, restart_minutes : float, optional
        Stall per checkpoint and restart time per interruption [min]; None: the sourced defaults of the recovery
        technique.
    recovery : {"auto", "storage", "in_memory"}
        ``"storage"``: checkpoints reloaded from storage (Llama 3); ``"in_memory"``: redundant in-memory state, no
        write stall, short restarts (Gemini 1.0); ``"auto"``: the one with the larger goodput at every size.
    pricing : str
        The price basis (:data:`PRICING_MODES`, :mod:`explorer.prices`): how you commit, ``"owned"``, or a
        ``hyperscaler_`` basis (stored as the commitment with ``seller="hyperscaler"``).
    seller : str
        Who sells (:data:`SELLERS`): ``"specialist"`` (the median of specialist GPU clouds), ``"hyperscaler"``
        or one provider's id (its own dated price).
    price_date : str, optional
        Cloud prices as of this day (``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD``,
        :func:`explorer.prices.check_price_date`); None or "": the newest.
    rate_usd_per_gpu_hour : float, optional
        The rate actually paid [USD/GPU-hour], replacing the catalog price and its discounts.
    spot_discount : float, optional
        Spot discount off on-demand [0-1]; None: the ``spot_discount`` default.
    spot_preemption_per_gpu_hour : float, optional
        Spot preemptions per GPU-hour [1/GPU-hour], under spot pricing; None: the sourced default.
    purchase_usd_per_gpu : float, optional
        Owned: purchase price per accelerator [USD]; None: the catalog's.
    server_overhead : float, optional
        Owned: server cost per accelerator as a multiple of the accelerator price [x]; None: the default.
    network_fraction : float, optional
        Owned: cluster interconnect as a fraction of total cluster capital [0-1]; None: the default.
    depreciation_years : float, optional
        Owned: depreciation period [years]; None: the default.
    hosting_usd_per_gpu_hour : float, optional
        Owned: hosting [USD/GPU-hour]; None: colocation at the sourced rate per kW.
    amortization : {"straight_line", "epoch"}
        Owned: straight-line depreciation, or Epoch AI's (0.322 a year).
    owned_utilization : float, optional
        Owned: fraction of the cluster's life it does paid work [0-1]; None: the default.
    financing_rate : float, optional
        Owned: annual cost of capital [1/year]; None: the default.
    region : str
        Region id (``explorer.catalog.regions()``): its electricity price and grid carbon intensity (and its PUE
        under ``facility="regional_average"``).
    electricity_usd_per_kwh : float, optional
        Electricity price [USD/kWh], overriding the region's.
    pue : float, optional
        Power usage effectiveness [1], typed; wins over ``facility``.
    grid_gco2_per_kwh : float, optional
        Grid carbon intensity [gCO2/kWh], overriding the region's.
    facility : {"hyperscale", "industry_average", "regional_average"}
        The data centre's type, which sets its PUE: a sourced default (``"hyperscale"``,
        ``"industry_average"``), or the region's surveyed average, else the industry average
        (``"regional_average"``).
    data_usd_per_1m_tokens : float
        Data acquisition and cleaning [USD/1M tokens].
    labelled_examples : float
        Labelled examples bought [1].
    usd_per_labelled_example : float
        Price of one labelled example [USD].
    synthetic_tokens : float
        Synthetic tokens generated [1].
    synthetic_usd_per_1m_tokens : float
        Price of synthetic tokens [USD/1M tokens].
    team_headcount : float, optional
        Full-time-equivalent team [people]; None: the default that follows the run's compute and training kind
        (:func:`explorer.rules.team_headcount`).
    team_loaded_usd_per_year : float, optional
        Loaded pay per person [USD/person-year]; None: the sourced US default of ``team_pay_basis``.
    team_pay_basis : {"ai_lab", "industry"}
        Whose pay: an AI lab's (Cottier et al. 2024) or general industry's (BLS).
    project_months : float, optional
        Months the team is paid [months]; None: the default that follows the run
        (:func:`explorer.rules.project_months`), never shorter than the run and at most ``project_months_max``.
    checkpoints_kept : float
        Checkpoints stored [1].
    storage_usd_per_gb_month : float, optional
        Storage price [USD/GB-month]; None: the default.
    experiments_multiplier : float, optional
        Total development compute relative to the final run [x] (1.0: the final run only); None: the default of
        the training kind.
    currency : {"USD", "CNY"}
        Currency of the results.
    usd_to_cny : float, optional
        Exchange rate [CNY/USD]; None: the default.
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
        return float(rules.moe_active_fraction(self.params))

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
    """Range and kind of a scenario field: ``min``, ``max``, ``choices``, ``optional``...

    Parameters
    ----------
    name : str
        A field of :class:`Scenario`.

    Returns
    -------
    mapping
        The field's metadata, read-only: ``kind`` (``"float"``, ``"int"``, ``"choice"`` or ``"str"``) and
        ``optional``; a number's ``min``, ``max``, ``lo_open`` (``min`` excluded) and ``unit``; a choice's
        ``choices``. Empty for ``gpu`` and ``region``, ids checked against their catalogs.

    Raises
    ------
    KeyError
        For a name that is not a field.
    """
    for f in dataclasses.fields(Scenario):
        if f.name == name:
            return f.metadata
    raise KeyError(name)


def range_error(name: str, value: Any) -> ScenarioError:
    """The one refusal of a number outside field ``name``'s range, one past any float (``1e400``) included.

    The app's boxes, a link's values and the CLI's options all refuse with it, so ``1e400`` reads the same
    wherever it is typed: ``params: '1e400' is not allowed; allowed: a number in [1e+06, 1e+14]``.

    Parameters
    ----------
    name : str
        A numeric field of :class:`Scenario` (its range comes from :func:`field_spec`).
    value : object
        The value as given: the text when it was text (``"1e400"``, not the ``inf`` it reads as).

    Returns
    -------
    ScenarioError
        The refusal, naming the field, the value and the field's range (``allowed_range`` or
        ``allowed_whole_range`` of messages.csv).
    """
    spec = field_spec(name)
    return ScenarioError(name, value, Message("allowed_whole_range" if spec.get("kind") == "int" else "allowed_range",
                                              lo=spec["min"], hi=spec["max"], bracket="(" if spec["lo_open"] else "["))


def _check_field(f: dataclasses.Field[Any], value: Any) -> Any:
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

    def out_of_range(given: Any) -> ScenarioError:  # the message is built only for a refusal (every estimate checks)
        return range_error(f.name, given)
    given = value
    try:
        value = float(value)
    except OverflowError:  # an integer beyond the float range (1e308)
        raise out_of_range(value) from None
    except (TypeError, ValueError):
        raise ScenarioError(f.name, value, Message("allowed_number")) from None
    if not math.isfinite(value):  # "1e400" typed is named as typed (as a link's is), not as the inf it reads as
        raise out_of_range(given if isinstance(given, str) else value)
    lo, hi = meta["min"], meta["max"]
    if value < lo or value > hi or (meta["lo_open"] and value == lo):
        raise out_of_range(value)
    if kind == "int":
        if value != int(value):
            raise out_of_range(value)
        return int(value)
    return float(value)
