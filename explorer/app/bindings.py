"""The one table between Scenario fields and the app's controls.

Each :class:`Binding` says which widget shows a field, in which group, with
which slider range, which options (a dropdown or toggle) and when it is
visible. Building, reading, writing and relabelling the controls all loop over
:data:`BINDINGS` (:class:`explorer.app.panel.ControlPanel`), so a new control
is one line here and its label in ``explorer/data/labels.csv``; a choice
field's options are its ``field_spec`` choices labelled ``<name>_<choice>``
unless its line names a provider.

Kinds
    ``log``      log-scale slider with a typed twin holding the exact value
                 (the slider covers ``slider``, default the field's range;
                 the twin accepts anything and the Scenario checks it)
    ``slider``   linear slider over the field's range
    ``choice``   dropdown; ``toggle`` toggle buttons (options from the binding's
                 ``options`` provider, default :func:`field_choices`)
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

from explorer import catalog, prices
from explorer.app.pages import estimate_html
from explorer.presets import presets
from explorer.scenario import (AMORTIZATION_RULES, FACILITIES, PAY_BASES, PRICING_MODES, RECOVERY_MODES, SELLERS,
                               TRAINING_KINDS, field_spec)
from explorer.text import label

__all__ = ["Binding", "BINDINGS", "GROUPS", "Options", "binding", "field_choices", "labelled"]

#: An options provider: (language, current control values by name) -> [(label, value), ...].
Options = Callable[[str, Mapping[str, Any]], list]

#: Accordion groups, in order, with their label keys.
GROUPS = ("model", "hardware", "pricing", "region", "advanced")


def _is(name: str, *values: Any) -> Callable[[Mapping[str, Any]], bool]:
    return lambda v: v.get(name) in values


def labelled(prefix: str, values) -> Options:
    """Options ``values`` labelled ``<prefix>_<value>`` (labels.csv) in the viewer's language."""
    return lambda language, _v: [(label(f"{prefix}_{value}", language), value) for value in values]


def field_choices(name: str) -> Options:
    """The default options of a choice field: its ``field_spec`` choices, labelled ``<name>_<choice>``."""
    spec = field_spec(name)
    if spec.get("kind") != "choice":
        raise ValueError(f"binding {name}: a choice or toggle that is no choice field of Scenario needs its options")
    return labelled(name, spec["choices"])


def fixed(*options: tuple[str, Any]) -> Options:
    """Options whose labels are the same in every language (names, currencies)."""
    return lambda _language, _v: list(options)


def sellers_of(gpu: str | None) -> tuple[str, ...]:
    """The sellers offered for accelerator ``gpu``: the groups, then each provider with a price of it in
    cloud_prices.csv (8 of 26 list no H100: offering them priced the run "unknown", issue 41); every seller when
    ``gpu`` is not in the catalog."""
    if gpu not in catalog.accelerators():
        return tuple(SELLERS)
    return tuple(s for s in SELLERS if s in prices.SELLER_GROUPS or prices.seller_date(s, gpu))


def seller_options(language: str, gpu: str | None, keep: str | None = None) -> list[tuple[str, str]]:
    """(label, seller) of :func:`sellers_of` ``gpu``, each provider with the date of its price of ``gpu``; ``keep``
    (the seller a scenario holds, say from a link) is offered too, so it is shown as it is."""
    offered = sellers_of(gpu)
    if keep in SELLERS and keep not in offered:
        offered = (*offered, keep)
    out = []
    for s in offered:
        if s in prices.SELLER_GROUPS or gpu not in catalog.accelerators():
            out.append((estimate_html.seller_words(s, language), s))
        else:
            date = prices.seller_date(s, gpu) or prices.seller_date(s)
            out.append((label("seller_provider", language).format(name=prices.seller_name(s), date=date), s))
    return out


def _precisions(_language: str, v: Mapping[str, Any]) -> list:
    """Only the precisions the accelerator has: the dropdown never shows one the results cannot use."""
    return [(p.upper(), p) for p in catalog.accelerator(v.get("gpu") or "h100-sxm").precisions]


def _price_dates(language: str, v: Mapping[str, Any]) -> list:
    """The newest prices, then each year of the price table (prices as of its last day; explorer.prices), and a
    month or day the scenario holds (from a link or a file)."""
    first, last = (int(d[:4]) for d in prices.price_date_range())
    years = [str(y) for y in range(last, first - 1, -1)]
    held = v.get("price_date")
    # "" for the newest: a dropdown whose value is None shows nothing (the Scenario reads "" as None)
    return ([(label("price_date_newest", language), "")] + ([(held, held)] if held and held not in years else [])
            + [(y, y) for y in years])


def _presets(language: str, _v: Mapping[str, Any]) -> list:
    return [(label("preset_none", language), "")] + [(p.name[language], p.id) for p in presets().values()]


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
    options : callable or None
        A ``choice`` or ``toggle``'s options, ``options(language, values)`` -> [(label, value), ...] (values:
        the current control values by name, e.g. the accelerator for its precisions); None: the field's
        ``field_spec`` choices labelled ``<name>_<choice>`` (:func:`field_choices`).
    money : bool
        The box takes money: in USD, or in yuan when the results are shown in yuan (converted at the
        results' rate, :attr:`explorer.model.Estimate.usd_to_currency`); the scenario keeps USD.
    """

    name: str
    kind: str
    group: str
    slider: tuple[float, float] | None = None
    integer: bool = False
    visible: Callable[[Mapping[str, Any]], bool] | None = None
    field: bool = True
    options: Options | None = None
    money: bool = False

    def option_list(self, language: str, values: Mapping[str, Any]) -> list:
        """The (label, value) options of this choice or toggle in ``language``, given the current ``values``."""
        provider = self.options or field_choices(self.name)
        return provider(language, values)


BINDINGS: tuple[Binding, ...] = (
    Binding("preset", "choice", "header", field=False, options=_presets),
    Binding("currency", "toggle", "header", options=fixed(("USD $", "USD"), ("CNY ¥", "CNY"))),
    Binding("language", "toggle", "header", field=False, options=fixed(("English", "en"), ("中文", "zh"))),
    Binding("scope", "toggle", "header", field=False, options=labelled("scope", ("project", "run"))),
    Binding("params", "log", "model"),
    Binding("tokens", "log", "model"),
    Binding("architecture", "toggle", "model", options=labelled("arch", ("dense", "moe"))),
    Binding("active_fraction", "log", "model", slider=(0.001, 1.0), visible=_is("architecture", "moe")),
    Binding("training_kind", "choice", "model", options=labelled("kind", TRAINING_KINDS)),
    Binding("lora_trainable_fraction", "number", "model", visible=_is("training_kind", "lora")),
    Binding("gpu", "choice", "hardware",
            options=lambda _l, _v: [(a.name, a.id) for a in catalog.accelerators().values()]),
    Binding("precision", "choice", "hardware", options=_precisions),
    Binding("count_mode", "toggle", "hardware", field=False, options=labelled("count", ("gpus", "deadline"))),
    Binding("gpus", "log", "hardware", integer=True, visible=_is("count_mode", "gpus")),
    Binding("deadline_days", "log", "hardware", slider=(0.1, 3650.0), visible=_is("count_mode", "deadline")),
    Binding("mfu_default", "check", "hardware", field=False),
    Binding("mfu", "slider", "hardware"),
    # how you commit, and owned; the hyperscalers are a seller (explorer.prices)
    Binding("pricing", "choice", "pricing",
            options=labelled("pricing", tuple(p for p in PRICING_MODES if not p.startswith("hyperscaler_")))),
    Binding("seller", "choice", "pricing", visible=lambda v: v.get("pricing") != "owned",
            options=lambda lang, v: seller_options(lang, v.get("gpu"), v.get("seller"))),
    Binding("price_date", "choice", "pricing", visible=lambda v: v.get("pricing") != "owned", options=_price_dates),
    Binding("rate_usd_per_gpu_hour", "optional", "pricing", visible=lambda v: v.get("pricing") != "owned", money=True),
    Binding("spot_discount", "optional", "pricing", visible=_is("pricing", "spot")),
    Binding("spot_preemption_per_gpu_hour", "optional", "pricing", visible=_is("pricing", "spot")),
    Binding("purchase_usd_per_gpu", "optional", "pricing", visible=_is("pricing", "owned"), money=True),
    Binding("depreciation_years", "optional", "pricing", visible=_is("pricing", "owned")),
    Binding("hosting_usd_per_gpu_hour", "optional", "pricing", visible=_is("pricing", "owned"), money=True),
    Binding("amortization", "choice", "pricing", visible=_is("pricing", "owned"),
            options=labelled("amortization", AMORTIZATION_RULES)),
    Binding("owned_utilization", "optional", "pricing", visible=_is("pricing", "owned")),
    Binding("financing_rate", "optional", "pricing", visible=_is("pricing", "owned")),
    Binding("region", "choice", "region",
            options=lambda lang, _v: [(estimate_html.region_name(r.name, lang), r.id) for r in catalog.regions().values()]),
    Binding("electricity_usd_per_kwh", "optional", "region", money=True),
    Binding("facility", "choice", "region", options=labelled("facility", FACILITIES)),
    Binding("pue", "optional", "region"),
    Binding("grid_gco2_per_kwh", "optional", "region"),
    Binding("experiments_multiplier", "optional", "advanced"),
    Binding("data_usd_per_1m_tokens", "number", "advanced", money=True),
    Binding("labelled_examples", "number", "advanced"),
    Binding("usd_per_labelled_example", "number", "advanced", money=True),
    Binding("synthetic_tokens", "number", "advanced"),
    Binding("synthetic_usd_per_1m_tokens", "number", "advanced", money=True),
    Binding("team_headcount", "optional", "advanced"),
    Binding("team_pay_basis", "choice", "advanced", options=labelled("team_pay_basis", PAY_BASES)),
    Binding("team_loaded_usd_per_year", "optional", "advanced", money=True),
    Binding("project_months", "optional", "advanced"),
    Binding("checkpoints_kept", "number", "advanced"),
    Binding("storage_usd_per_gb_month", "optional", "advanced", money=True),
    Binding("failure_rate_per_gpu_hour", "optional", "advanced"),
    Binding("recovery", "choice", "advanced", options=labelled("recovery", RECOVERY_MODES)),
    Binding("restart_minutes", "optional", "advanced"),
    Binding("checkpoint_interval_hours", "optional", "advanced"),
    Binding("usd_to_cny", "optional", "footer", visible=_is("currency", "CNY")),
)

_BY_NAME = {b.name: b for b in BINDINGS}


def binding(name: str) -> Binding:
    """The binding of ``name``; KeyError if it has no control."""
    return _BY_NAME[name]
