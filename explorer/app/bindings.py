"""The one table between Scenario fields and the app's controls.

Each :class:`Binding` says which widget shows a field, in which group, with
which slider range and when it is visible. Building, reading and writing the
controls all loop over :data:`BINDINGS`, so a new field is one line here (and
its label in ``explorer/data/labels.csv``).

Kinds
    ``log``      log-scale slider with a typed twin holding the exact value
                 (the slider covers ``slider``, default the field's range;
                 the twin accepts anything and the Scenario checks it)
    ``slider``   linear slider over the field's range
    ``choice``   dropdown; ``toggle`` toggle buttons (options from the app)
    ``number``   a number box (any number; the Scenario checks it)
    ``optional`` a text box where blank means the catalog or named default
    ``check``    a checkbox
App settings that are not Scenario fields (``count_mode``, ``mfu_default``,
``scope``, ``preset``, ``currency`` is a field, ``language``) are listed too,
with ``field=False``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

__all__ = ["Binding", "BINDINGS", "GROUPS", "binding"]

#: Accordion groups, in order, with their label keys.
GROUPS = ("model", "hardware", "pricing", "region", "advanced")


def _is(name: str, *values: Any) -> Callable[[Mapping[str, Any]], bool]:
    return lambda v: v.get(name) in values


@dataclass(frozen=True)
class Binding:
    """How one Scenario field (or app setting) is shown.

    Attributes
    ----------
    name : str
        Scenario field or app setting.
    kind : str
        Widget kind (see the module docstring).
    group : str
        One of :data:`GROUPS`, or ``"header"`` (above the groups).
    slider : tuple of float or None
        Ends of a log slider; None: the field's own range.
    integer : bool
        Whole numbers only.
    visible : callable or None
        Rule on the current control values (a mapping of name to value); None: always shown.
    field : bool
        True when ``name`` is a Scenario field.
    """

    name: str
    kind: str
    group: str
    slider: tuple[float, float] | None = None
    integer: bool = False
    visible: Callable[[Mapping[str, Any]], bool] | None = None
    field: bool = True


BINDINGS: tuple[Binding, ...] = (
    Binding("preset", "choice", "header", field=False),
    Binding("currency", "toggle", "header"),
    Binding("language", "toggle", "header", field=False),
    Binding("scope", "toggle", "header", field=False),
    Binding("params", "log", "model"),
    Binding("tokens", "log", "model"),
    Binding("architecture", "toggle", "model"),
    Binding("active_fraction", "log", "model", slider=(0.001, 1.0), visible=_is("architecture", "moe")),
    Binding("training_kind", "choice", "model"),
    Binding("lora_trainable_fraction", "number", "model", visible=_is("training_kind", "lora")),
    Binding("gpu", "choice", "hardware"),
    Binding("precision", "choice", "hardware"),
    Binding("count_mode", "toggle", "hardware", field=False),
    Binding("gpus", "log", "hardware", integer=True, visible=_is("count_mode", "gpus")),
    Binding("deadline_days", "log", "hardware", slider=(0.1, 3650.0), visible=_is("count_mode", "deadline")),
    Binding("mfu_default", "check", "hardware", field=False),
    Binding("mfu", "slider", "hardware"),
    Binding("pricing", "choice", "pricing"),
    Binding("seller", "choice", "pricing", visible=lambda v: v.get("pricing") != "owned"),
    Binding("rate_usd_per_gpu_hour", "optional", "pricing", visible=lambda v: v.get("pricing") != "owned"),
    Binding("spot_discount", "optional", "pricing", visible=_is("pricing", "spot")),
    Binding("spot_preemption_per_gpu_hour", "optional", "pricing", visible=_is("pricing", "spot")),
    Binding("purchase_usd_per_gpu", "optional", "pricing", visible=_is("pricing", "owned")),
    Binding("depreciation_years", "optional", "pricing", visible=_is("pricing", "owned")),
    Binding("hosting_usd_per_gpu_hour", "optional", "pricing", visible=_is("pricing", "owned")),
    Binding("amortization", "choice", "pricing", visible=_is("pricing", "owned")),
    Binding("owned_utilization", "optional", "pricing", visible=_is("pricing", "owned")),
    Binding("financing_rate", "optional", "pricing", visible=_is("pricing", "owned")),
    Binding("region", "choice", "region"),
    Binding("electricity_usd_per_kwh", "optional", "region"),
    Binding("facility", "choice", "region"),
    Binding("pue", "optional", "region"),
    Binding("grid_gco2_per_kwh", "optional", "region"),
    Binding("experiments_multiplier", "optional", "advanced"),
    Binding("data_usd_per_1m_tokens", "number", "advanced"),
    Binding("labelled_examples", "number", "advanced"),
    Binding("usd_per_labelled_example", "number", "advanced"),
    Binding("synthetic_tokens", "number", "advanced"),
    Binding("synthetic_usd_per_1m_tokens", "number", "advanced"),
    Binding("team_headcount", "optional", "advanced"),
    Binding("team_pay_basis", "choice", "advanced"),
    Binding("team_loaded_usd_per_year", "optional", "advanced"),
    Binding("project_months", "optional", "advanced"),
    Binding("checkpoints_kept", "number", "advanced"),
    Binding("storage_usd_per_gb_month", "optional", "advanced"),
    Binding("failure_rate_per_gpu_hour", "optional", "advanced"),
    Binding("recovery", "choice", "advanced"),
    Binding("restart_minutes", "optional", "advanced"),
    Binding("checkpoint_interval_hours", "optional", "advanced"),
    Binding("usd_to_cny", "optional", "footer", visible=_is("currency", "CNY")),
)

_BY_NAME = {b.name: b for b in BINDINGS}


def binding(name: str) -> Binding:
    """The binding of ``name``; KeyError if it has no control."""
    return _BY_NAME[name]
