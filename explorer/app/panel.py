"""The app's control panel: one object that builds, reads, writes and relabels the controls.

:class:`ControlPanel` owns one :class:`~explorer.app.controls.ControlRow` per line of the binding table
(:data:`~explorer.app.bindings.BINDINGS`) and loops over that table for everything it does: build a row by
its kind (a choice or toggle with the options its binding provides), read the
:class:`~explorer.scenario.Scenario` the controls describe, write a Scenario into them without firing the
app's observers, relabel them in a language, show or hide them by their visibility rules, and show a
refusal beside the control it names. :class:`~explorer.app.explorer_app.ExplorerApp` composes one and
decides what a change means (estimate, views, charts).

Money boxes (``Binding.money``) take US dollars, or yuan while the results are shown in yuan: the panel
converts at the rate the results use (:attr:`explorer.model.Estimate.usd_to_currency`: the scenario's
``usd_to_cny``, else the sourced default) and the scenario, its link and its JSON keep USD.
"""

from __future__ import annotations

import contextlib
import html
import math
from typing import Any, Iterator, Mapping, Sequence

import ipywidgets as w

from explorer import catalog, prices, rules
from explorer.app import bindings as _bindings
from explorer.app import controls as c
from explorer.app.bindings import GROUPS, Binding, sellers_of
from explorer.prices import DEFAULT_SELLER
from explorer.app.shared import CHECKBOX_STYLE, FULL_WIDTH, PLAIN
from explorer.model import currency_per_usd
from explorer.scenario import Scenario, field_spec
from explorer.text import label, number_text, readable_number

__all__ = ["ControlPanel", "shown_share", "placeholder_number"]

#: One model's disclosed shape (a preset's published run): a new model size clears them.
_SHAPE_FIELDS = ("n_layers", "d_model", "seq_len")
#: Fields shown on the MoE share's row (a refusal of any of them is shown there).
_ACTIVE_ROW_FIELDS = ("active_params", "experts", "top_k")


def shown_share(x: float) -> float:
    """The MoE active share as its box shows it: three significant digits [1]."""
    return float(f"{x:.3g}")


def placeholder_number(x: float, digits: int = 3) -> str:
    """A value a blank box stands for, rounded as the results show it, in readable form: ``digits``
    significant digits (3 for money, as :func:`explorer.text.money`; 4 for other figures, as the exchange
    rate's card), whole numbers from 1,000 up (``2.69943`` -> ``2.7``, ``33810.4`` -> ``33,810``)."""
    return readable_number(float(f"{x:.{digits}g}") if abs(x) < 1000 else float(round(x)))


class ControlPanel:
    """The controls of the app, built from the binding table.

    Parameters
    ----------
    scenario : Scenario
        The scenario the controls show first.
    settings : mapping of str to object
        Starting values of the app settings that are no Scenario field (``preset``, ``language``, ``scope``);
        the others start at their first option.
    language : {"en", "zh"}
        The language of the labels.
    bindings : sequence of Binding, optional
        The table to build from (default: :data:`explorer.app.bindings.BINDINGS`, read when the panel is built).

    Attributes
    ----------
    rows : dict of str to ControlRow
        One row per binding, by name.
    controls : dict of str to ipywidgets.Widget
        The widget that holds each value (a log slider's typed twin), by name.
    language : str
        The language the labels are in.
    money_rate : float
        Units of the shown currency per USD the money boxes are written in [1 or CNY/USD].
    """

    def __init__(self, scenario: Scenario, *, settings: Mapping[str, Any] | None = None, language: str = "en",
                 bindings=None):
        self.bindings: tuple[Binding, ...] = tuple(_bindings.BINDINGS if bindings is None else bindings)
        self.group_of = {b.name: b.group for b in self.bindings}
        self.language = language
        self._muted = 0
        self.money_rate = 1.0
        self._money_shown: dict[str, tuple[Any, float | None]] = {}  # box value written -> the USD behind it
        self._unlabelled: set[str] = set()
        state: dict[str, Any] = {**scenario.to_dict(), "count_mode": "gpus", **(settings or {})}
        self.rows: dict[str, c.ControlRow] = {}
        for b in self.bindings:
            self.rows[b.name] = self._make_row(b, state)
            state[b.name] = self.rows[b.name].value
        self.controls: dict[str, w.Widget] = {name: row.twin or row.widget for name, row in self.rows.items()}
        self.write(scenario)

    # ------------------------------------------------------------------ building
    def _make_row(self, b: Binding, state: dict) -> c.ControlRow:
        if b.kind == "log":
            lo, hi = b.slider or _spec_range(b.name)
            return c.log_slider_row(b.name, lo, lo, hi, integer=b.integer)
        if b.kind == "slider":
            lo, hi = _spec_range(b.name)
            return c.slider_row(b.name, lo, lo, hi, 0.01)
        if b.kind in ("choice", "toggle"):
            options = b.option_list(self.language, state)
            value = state.get(b.name)
            if value not in [v for _, v in options]:
                value = options[0][1]
            return (c.choice_row if b.kind == "choice" else c.toggle_row)(b.name, options, value)
        if b.kind == "number":
            return c.number_row(b.name, state.get(b.name) or 0)
        if b.kind == "optional":
            return c.optional_number_row(b.name)
        if b.kind == "check":
            return c.ControlRow(b.name, w.Checkbox(value=True, indent=False, layout=PLAIN, style=CHECKBOX_STYLE))
        raise ValueError(f"binding {b.name}: unknown kind {b.kind!r}")

    def group_box(self, group: str) -> w.VBox:
        """The rows of ``group``, in table order, in one box."""
        return w.VBox([self.rows[b.name].box for b in self.bindings if b.group == group], layout=FULL_WIDTH)

    def names(self, group: str) -> list[str]:
        """The bindings of ``group``, in table order."""
        return [b.name for b in self.bindings if b.group == group]

    # ------------------------------------------------------------------ muting
    @contextlib.contextmanager
    def mute(self) -> Iterator[None]:
        """Within it, the panel's observers ignore changes (the app's own writes to controls)."""
        self._muted += 1
        try:
            yield
        finally:
            self._muted -= 1

    @property
    def muted(self) -> bool:
        """True while the controls are being written (:meth:`mute`)."""
        return self._muted > 0

    # ------------------------------------------------------------------ options and labels
    def options(self, name: str) -> list[tuple[str, Any]]:
        """The (label, value) options of the choice or toggle ``name`` now (its binding's provider)."""
        b = next(b for b in self.bindings if b.name == name)
        return b.option_list(self.language, self.values())

    def set_language(self, language: str, shown: set[str] | None = None) -> None:
        """Relabel the controls in ``language``: those of the ``shown`` groups now (default: all); the others
        when their group opens (:meth:`label_opened`), which spares the page about 40 widget messages."""
        self.language = language
        shown = set(GROUPS) if shown is None else shown
        self._unlabelled = set(GROUPS) - shown
        self._label(shown)

    def label_opened(self, shown: set[str]) -> None:
        """Label the controls of groups now ``shown`` that a language switch left unlabelled."""
        opened = shown & self._unlabelled
        if opened:
            self._unlabelled -= opened
            self._label(opened)

    def _label(self, groups: set[str]) -> None:
        values = self.values()
        for b in self.bindings:
            if b.group in GROUPS and b.group not in groups:
                continue
            row = self.rows[b.name]
            row.label_key = self._label_key(b)
            row.set_language(self.language)
            if b.kind in ("choice", "toggle"):
                options = b.option_list(self.language, values)
                if [tuple(o) for o in row.widget.options] != [tuple(o) for o in options]:
                    c.relabel_options(row.widget, options, self.mute)

    def _label_key(self, b: Binding) -> str:
        """A money box's label in the currency it takes: ``<name>_cny`` while it takes yuan."""
        return f"{b.name}_cny" if b.money and self.money_rate != 1.0 else b.name

    # ------------------------------------------------------------------ reading
    def values(self) -> dict[str, Any]:
        """The current value of every control, by binding name."""
        return {name: row.value for name, row in self.rows.items()}

    def read(self, current: Scenario, *, keep: frozenset = frozenset(),
             preset_project: Mapping[str, Any] | None = None) -> Scenario:
        """The scenario the controls describe, starting from ``current``; ScenarioError when they cannot.

        Parameters
        ----------
        current : Scenario
            The scenario of the results shown: fields without a control keep its values.
        keep : frozenset of str
            Fields whose box holds a refused value: they keep ``current``'s value.
        preset_project : mapping, optional
            The team and project length a preset set: a new model size gives them back to the rules that
            follow the run, unless they were typed since.
        """
        v = self.values()
        fields: dict[str, Any] = current.to_dict()
        for b in self.bindings:
            if not b.field:
                continue
            if b.name in keep:
                fields[b.name] = getattr(current, b.name)
            elif b.money:
                fields[b.name] = self._read_money(b, v[b.name])
            else:
                fields[b.name] = (c.parse_optional_number(b.name, v[b.name]) if b.kind == "optional"
                                  else v[b.name])
        if "mfu_default" in v:
            fields["mfu"] = None if v["mfu_default"] else v["mfu"]
        if "count_mode" in v:
            fields["deadline_days" if v["count_mode"] == "gpus" else "gpus"] = None
        old = current
        resized = v["params"] != old.params
        if resized:
            # a new size is another model: one model's disclosed shape goes, and a preset's published team and
            # project length (not typed since) give way to the rules that follow the run
            fields.update({name: None for name in _SHAPE_FIELDS})
            fields.update({name: None for name, value in (preset_project or {}).items() if fields[name] == value})
        if v["architecture"] == "dense":
            fields.update(active_params=None, active_fraction=None, experts=None, top_k=None)
        else:
            # the box shows the share rounded (shown_share): an unchanged box keeps the exact value behind it
            same = (old.architecture == "moe" and v["active_fraction"] == shown_share(old.active_fraction_effective))
            # the toggle from dense with the box showing the size-aware default keeps the default (not typed)
            shown_default = (old.architecture == "dense"
                             and v["active_fraction"] == shown_share(float(rules.moe_active_fraction(old.params))))
            if same and old.experts is not None and old.top_k is not None:
                fields.update(active_params=None, active_fraction=None)  # experts and top-k scale with the model
            elif same and old.active_fraction is None and (old.active_params is None or resized):
                # the sourced default, as before; a model's disclosed active parameters go with its size
                fields.update(active_params=None, active_fraction=None)
            elif same:
                pass  # as before: the typed share, or the active parameters, exact
            elif shown_default:
                fields.update(active_params=None, active_fraction=None, experts=None, top_k=None)
            else:
                fields.update(active_params=None, experts=None, top_k=None)
        return Scenario.from_dict(fields)

    def _read_money(self, b: Binding, shown: Any) -> Any:
        """The USD a money box holds: the value written there if it is unchanged (exact), else what was typed
        divided by the rate it is shown at."""
        written = self._money_shown.get(b.name)
        if written is not None and written[0] == shown:
            return written[1]
        value = c.parse_optional_number(b.name, shown) if b.kind == "optional" else shown
        if value is None or isinstance(value, (str, bool)) or self.money_rate == 1.0:
            return value  # blank, or text the Scenario refuses as typed
        return value / self.money_rate

    # ------------------------------------------------------------------ writing
    def write(self, s: Scenario, only: tuple[str, ...] | None = None) -> None:
        """Set every control (or those named in ``only``) to the value of ``s``, without firing observers.

        The money boxes are written in the currency ``s`` shows its results in (:func:`explorer.model.currency_per_usd`).
        """
        r = self.rows
        rate = currency_per_usd(s)
        relabel = rate != self.money_rate
        with self.mute():
            if only is None and "precision" in r:
                r["precision"].widget.options = self.bindings_by_name("precision").option_list(
                    self.language, {"gpu": s.gpu})
            if only is None and "seller" in r:  # the sellers of this accelerator (and the scenario's own)
                r["seller"].widget.options = self.bindings_by_name("seller").option_list(
                    self.language, {"gpu": s.gpu, "seller": s.seller})
            if only is None or relabel:
                self.money_rate = rate
            for b in self.bindings:
                if not b.field or (only is not None and b.name not in only and not (relabel and b.money)):
                    continue
                value = getattr(s, b.name)
                row = r[b.name]
                if b.name == "active_fraction":
                    value = shown_share(s.active_fraction_effective if s.architecture == "moe"
                                        else float(rules.moe_active_fraction(s.params)))  # a float already
                usd = value
                if b.money and value is not None and self.money_rate != 1.0:
                    value = _tidy(value * self.money_rate)
                if b.kind == "optional":
                    row.widget.value = number_text(value)
                elif value is None and b.kind != "choice":
                    continue  # gpus or deadline: the other one sizes the cluster
                elif value is None:  # a choice left to its default: its "" option (price_date: the newest prices)
                    row.widget.value = ""
                elif b.kind == "choice" and value not in [v for _, v in row.widget.options]:
                    # a value the options hold only once chosen (a link's price date by month)
                    row.widget.options = b.option_list(self.language, {**self.values(), b.name: value})
                    row.widget.value = value
                elif b.kind == "log":
                    assert row.twin is not None  # a log slider's row has its twin (log_slider_row)
                    row.twin.value = value  # the twin moves its slider (within the slider's range)
                else:
                    row.widget.value = value
                if b.money:
                    self._money_shown[b.name] = (row.value, usd)
            if relabel:
                for b in self.bindings:
                    if b.money:
                        r[b.name].label_key = self._label_key(b)
                        r[b.name].set_language(self.language)
            if only is not None:
                return
            if "count_mode" in r:
                r["count_mode"].widget.value = "gpus" if s.gpus is not None else "deadline"
            if "mfu_default" in r:
                r["mfu_default"].widget.value = s.mfu is None

    def settle_money(self, s: Scenario) -> None:
        """After ``s`` was accepted: its money boxes hold its USD values (typed boxes keep their text), and
        after a change of currency or rate they are written again in the currency shown."""
        if currency_per_usd(s) != self.money_rate:
            self.write(s, only=())
            return
        for b in self.bindings:
            if b.money:
                self._money_shown[b.name] = (self.rows[b.name].value, getattr(s, b.name))

    def bindings_by_name(self, name: str) -> Binding:
        """The binding ``name`` of this panel's table."""
        return next(b for b in self.bindings if b.name == name)

    # ------------------------------------------------------------------ showing
    def sync_visibility(self) -> None:
        """Show each row its binding's rule allows; the MFU slider is disabled while the default is used."""
        v = self.values()
        for b in self.bindings:
            if b.visible is not None:
                self.rows[b.name].show(b.visible(v))
        if "mfu" in self.rows and "mfu_default" in v:
            self.rows["mfu"].widget.disabled = bool(v["mfu_default"])

    def placeholders(self, fallbacks: Mapping[str, Any]) -> None:
        """Show in each blank box the value the model uses in its place (``Estimate.fallbacks``), rounded as
        the results are (:func:`placeholder_number`); a money box's in the currency it takes."""
        lang = self.language
        for b in self.bindings:
            if b.kind != "optional":
                continue
            value = fallbacks.get(b.name)
            if b.name == "checkpoint_interval_hours":
                text = label("placeholder_optimal", lang)
            elif value is None:
                text = label("placeholder_unknown", lang)
            else:
                shown = value * self.money_rate if b.money else value
                text = label("placeholder_used", lang).format(
                    value=placeholder_number(float(shown), 3 if b.money else 4))
            self.rows[b.name].widget.placeholder = text

    def row_of(self, field: str) -> c.ControlRow | None:
        """The row a refusal of ``field`` is shown beside (the MoE share's for its shape), None for none."""
        if field in self.rows:
            return self.rows[field]
        if field in _ACTIVE_ROW_FIELDS:
            return self.rows.get("active_fraction")
        return None

    def show_refusal(self, field: str, text: str, others: Sequence[tuple[str, str]] = ()) -> None:
        """Clear every control's message, then show ``text`` (plain) beside the control of ``field``, if any.

        ``others``: more values refused at once (a link's), as (field, text) pairs: each beside its own control,
        unless that is ``field``'s (which shows ``text``).
        """
        self.clear_messages()
        row = self.row_of(field)
        if row is not None:
            row.set_message(html.escape(text))
        for other_field, other_text in others:
            other = self.row_of(other_field)
            if other is not None and other is not row:
                other.set_message(html.escape(other_text))

    def clear_messages(self) -> None:
        """No refusal beside any control."""
        for row in self.rows.values():
            row.set_message("")

    def adapt_precision(self, gpu: str) -> None:
        """Offer only ``gpu``'s precisions; keep the precision, or switch to the nearest and say so."""
        row = self.rows["precision"]
        old = row.widget.value
        acc = catalog.accelerator(gpu)
        new = acc.nearest_precision(old)
        with self.mute():
            row.widget.options = self.bindings_by_name("precision").option_list(self.language, {"gpu": gpu})
            row.widget.value = new
        row.set_note(html.escape(label("precision_switched", self.language).format(
            old=old.upper(), new=new.upper(), gpu=acc.name)) if new != old else "")

    def adapt_seller(self, gpu: str) -> None:
        """Offer only the sellers with a price of ``gpu``; keep the seller if it has one, else fall back to the
        default group and say so beside the list."""
        row = self.rows["seller"]
        old = row.widget.value
        offered = sellers_of(gpu)
        new = old if old in offered else DEFAULT_SELLER
        with self.mute():
            row.widget.options = self.bindings_by_name("seller").option_list(self.language, {"gpu": gpu, "seller": new})
            row.widget.value = new
        row.set_note(html.escape(label("seller_switched", self.language).format(
            old=prices.seller_name(old), gpu=catalog.accelerator(gpu).name,
            new=label(f"seller_{new}", self.language))) if new != old else "")

    def start_cluster_from(self, mode: str, gpus: int, wall_days: float) -> None:
        """Start the way of sizing the cluster just chosen from the cluster shown (no refresh: muted).

        ``mode`` "deadline": the deadline box takes the cluster's wall-clock time, rounded up to 0.1 day
        (``wall_days`` [days]); else the GPU count box takes its ``gpus`` [1].
        """
        with self.mute():  # both are log sliders' rows, which have their twins (log_slider_row)
            if mode == "deadline":
                days = self.rows["deadline_days"].twin
                assert days is not None
                days.value = float(math.ceil(wall_days * 10) / 10)
            else:
                count = self.rows["gpus"].twin
                assert count is not None
                count.value = int(gpus)

    def kind_note(self, s: Scenario) -> str:
        """The note beside the kind of training (plain text): continual pretraining and a full fine-tune run the
        experiments of pretraining (their multiplier); else ""."""
        if s.training_kind not in ("continual_pretrain", "full_finetune"):
            return ""
        return label("kind_note_same_compute", self.language).format(
            mult=f"{s.experiments_multiplier_effective:g}", pretrain=f"{catalog.default('experiments_multiplier'):g}")

    def kept_fields(self, s: Scenario) -> dict[str, Any]:
        """The fields of ``s`` that have no control and differ from their default, by name (the kept line)."""
        default = Scenario()
        return {name: getattr(s, name) for name in Scenario.__dataclass_fields__
                if name not in self.rows and getattr(s, name) != getattr(default, name)}

    def money_note(self, s: Scenario) -> str:
        """The note beside the currency switch (plain text): in yuan, the rate the money boxes take; else ""."""
        if s.currency != "CNY":
            return ""
        return label("currency_inputs_cny", self.language).format(fx=f"{currency_per_usd(s):.4g}")


def _spec_range(name: str) -> tuple[float, float]:
    """Allowed [min, max] of a Scenario field (the one table of ranges)."""
    spec = field_spec(name)
    return spec["min"], spec["max"]


def _tidy(x: float) -> float:
    """A converted amount without the float's last-digit noise (17.749999999999996 -> 17.75) [same unit]."""
    return float(f"{x:.12g}")
