"""The interactive explorer: controls on the left, results on the right.

:class:`ExplorerApp` builds every widget and figure once. A control change
runs :meth:`ExplorerApp.refresh`: read the controls into a
:class:`~explorer.scenario.Scenario`, estimate it, and update the artists,
HTML views and links in place; the summary is updated last. A value the model
cannot use shows a message beside its control and the last good result stays.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import html
import math
from typing import Any, Iterator

import ipywidgets as w
from ipympl.backend_nbagg import FigureManager
from matplotlib.figure import Figure

from explorer import catalog
from explorer.app import controls as c
from explorer.app import export, query, views
from explorer.app.canvas import GuardedCanvas
from explorer.errors import ScenarioError
from explorer.model import Estimate, estimate
from explorer.plots.breakdown import BreakdownPlot, WaterfallPlot, freeze_layout
from explorer.plots.fonts import text_kwargs
from explorer.plots.history import enable_marker_blitting, history_figure, redraw_marker, set_scenario_marker
from explorer.presets import presets, published_run
from explorer.scenario import PRICING_MODES, TRAINING_KINDS, Scenario, field_spec
from explorer.text import label, number_text

__all__ = ["ExplorerApp"]

# Optional text fields: blank = catalog value or named default.
_OPTIONAL_FIELDS = {
    "pricing": ("rate_usd_per_gpu_hour", "spot_discount", "spot_preemption_per_gpu_hour",
                "purchase_usd_per_gpu", "depreciation_years", "hosting_usd_per_gpu_hour"),
    "region": ("electricity_usd_per_kwh", "pue", "grid_gco2_per_kwh"),
    "advanced": ("project_months", "storage_usd_per_gb_month", "failure_rate_per_gpu_hour",
                 "restart_minutes", "checkpoint_interval_hours"),
}
# Every optional text box, "usd_to_cny" (beside the currency toggle) included.
_OPTIONAL_NAMES = (*_OPTIONAL_FIELDS["pricing"], *_OPTIONAL_FIELDS["region"], *_OPTIONAL_FIELDS["advanced"],
                   "usd_to_cny")
# Advanced numbers that always have a value (their ranges come from the Scenario's fields).
_NUMBER_FIELDS = ("data_usd_per_1m_tokens", "labelled_examples", "usd_per_labelled_example", "synthetic_tokens",
                  "synthetic_usd_per_1m_tokens", "team_headcount", "team_loaded_usd_per_year", "checkpoints_kept")
_SPOT_ONLY = ("spot_discount", "spot_preemption_per_gpu_hour")
_OWNED_ONLY = ("purchase_usd_per_gpu", "depreciation_years", "hosting_usd_per_gpu_hour")


def _widget_figure(width_in: float, height_in: float, dpi: float = 96, figure: Figure | None = None) -> Figure:
    """A figure shown through an ipympl canvas widget (no pyplot); ``figure`` attaches an existing one."""
    fig = figure if figure is not None else Figure(figsize=(width_in, height_in), dpi=dpi, layout="constrained")
    canvas = GuardedCanvas(fig)
    FigureManager(canvas, 0)
    canvas.header_visible = False
    canvas.footer_visible = False
    canvas.toolbar_visible = False
    canvas.resizable = False
    canvas.capture_scroll = False
    return fig


def _fix_initial_image(canvas: GuardedCanvas) -> None:
    """Give the image drawn before any browser attached its ``data:`` prefix.

    ipympl keeps that first image in ``_data_url`` as bare base64, which the
    browser cannot load ("broken" image, blank chart) unless a later redraw
    happens to replace it; with the prefix it shows at once.
    """
    url = getattr(canvas, "_data_url", None)
    if getattr(canvas, "syncing_data_url", False) and url and not url.startswith("data:"):
        canvas._data_url = "data:image/png;base64," + url


def _first_estimate(start: Scenario, fields: dict) -> Estimate:
    """Estimate of ``start`` with the query's ``fields`` on top.

    A field that makes the scenario invalid, or the deadline impossible, is
    dropped, one at a time: the one the error names, else the last in the
    Scenario's field order (``fields`` come in that order, so the result does
    not depend on the order of the URL's keys); the rest stay.
    """
    fields = dict(fields)
    while True:
        try:
            result = estimate(Scenario.from_dict({**start.to_dict(), **fields}))
        except ScenarioError as exc:
            culprit = exc.field if exc.field in fields else next(reversed(fields), None)
        else:
            if not result.deadline_impossible:
                return result
            culprit = "deadline_days" if "deadline_days" in fields else next(reversed(fields), None)
        if culprit is None:
            return estimate(start)
        fields.pop(culprit)
        if culprit in ("deadline_days", "gpus"):  # give back the start's way of sizing the cluster
            fields.pop("gpus", None)
            fields.pop("deadline_days", None)


def _spec_range(name: str) -> tuple[float, float]:
    """Allowed [min, max] of a Scenario field (the one table of ranges)."""
    spec = field_spec(name)
    return spec["min"], spec["max"]


def _today_year() -> float:
    today = _dt.date.today()
    return today.year + (today.timetuple().tm_yday - 0.5) / 365.25


class ExplorerApp:
    """The explorer as one ipywidgets tree.

    Parameters
    ----------
    scenario : Scenario, optional
        Starting scenario (default: ``Scenario()``), overridden by the query string.
    query_string : str, optional
        URL query to read (default: Voila's ``QUERY_STRING`` environment variable).
    language : {"en", "zh"}
        Starting language (a ``lang`` query key overrides it).

    Attributes
    ----------
    widget : ipywidgets.VBox
        The root to display.
    controls : dict of str to ipywidgets.Widget
        The control widgets by name (``params``, ``tokens``, ``precision``, ...).
    summary : ipywidgets.HTML
        One-paragraph summary of the result (CSS class ``explorer-summary``).
    scenario : Scenario
        The scenario behind the results shown.
    estimate : Estimate
        The results shown (the last good one).
    baseline : Estimate
        The pinned baseline of the "what changed" view.
    error : str
        The message of the last rejected change ("" when the controls are valid).
    """

    def __init__(self, scenario: Scenario | None = None, *, query_string: str | None = None, language: str = "en"):
        self._muted = 0
        self.language = language if language in ("en", "zh") else "en"
        self.error = ""
        self.marker_year = _today_year()
        self.marker_label = ""
        self.estimate, preset_id = self._estimate_from_query(
            scenario or Scenario(), query.request_query_string() if query_string is None else query_string)
        self.baseline = self.estimate
        start = self.scenario

        self._build_controls(start, preset_id)
        self._build_views()
        self._layout()
        self._stale_figures: set = set()
        self._set_language(self.language)
        self._sync_visibility()
        self._show(self.estimate)
        for row in self.rows.values():
            # a log slider and its typed twin mirror each other: the twin holds the value
            (row.twin or row.widget).observe(self._on_change, names="value")
        self.tabs.observe(self._on_tab, names="selected_index")
        for fig in (self.breakdown.figure, self.waterfall.figure, self.history_fig):
            _fix_initial_image(fig.canvas)

    def _estimate_from_query(self, start: Scenario, query_string: str) -> tuple[Estimate, str]:
        """The first result for ``query_string`` on top of ``start``, and the preset it names ("" for none).

        Sets the language and the history marker the query asks for.
        """
        fields, extras = query.scenario_fields_from_query(query_string)
        preset_id = extras.get("preset", "")
        if preset_id in presets():
            start = presets()[preset_id].scenario
            self._set_marker_for_preset(preset_id)
        else:
            preset_id = ""
        if extras.get("lang") in ("en", "zh"):
            self.language = extras["lang"]
        return _first_estimate(start, fields), preset_id

    def apply_query(self, query_string: str) -> None:
        """Show the scenario, preset and language of a share link's ``query_string``.

        The notebook calls it when the app was built before the request came
        (a preheated Voila kernel), with :func:`explorer.app.query.request_query_string`.
        """
        if not query_string:
            return
        language = self.language
        result, preset_id = self._estimate_from_query(self.scenario, query_string)
        if self.language != language:
            with self._mute():
                self.controls["language"].value = self.language
            self._set_language(self.language)
        with self._mute():
            self.controls["preset"].value = preset_id
        self.baseline = result
        self.set_scenario(result.scenario, keep_preset=True)

    # ------------------------------------------------------------------ building
    def _build_controls(self, s: Scenario, preset_id: str) -> None:
        """Create every control; :meth:`_write_controls` then sets them to ``s``.

        Typed twins and plain numbers accept the Scenario field's whole range;
        log sliders show a narrower, usual range (the twin holds the exact value).
        """
        def log_row(name, lo, hi, **kw):
            text_lo, text_hi = _spec_range(name)
            return c.log_slider_row(name, lo, lo, hi, text_lo=text_lo, text_hi=text_hi, **kw)

        rows: dict[str, c.ControlRow] = {}
        rows["params"] = log_row("params", 1e8, 2e12)
        rows["tokens"] = log_row("tokens", 1e8, 1e14)
        rows["architecture"] = c.toggle_row("architecture", self._options("architecture"), s.architecture)
        rows["active_params"] = log_row("active_params", 1e8, 2e12)
        rows["training_kind"] = c.choice_row("training_kind", self._options("training_kind"), s.training_kind)
        rows["lora_trainable_fraction"] = c.number_row("lora_trainable_fraction", s.lora_trainable_fraction,
                                                       *_spec_range("lora_trainable_fraction"))
        rows["gpu"] = c.choice_row("gpu", [(a.name, a.id) for a in catalog.accelerators().values()], s.gpu)
        rows["precision"] = c.choice_row("precision", self._precision_options(s.gpu), s.precision)
        rows["count_mode"] = c.toggle_row("count_mode", self._options("count_mode"), "gpus")
        rows["gpus"] = log_row("gpus", 1, 100_000, integer=True)
        rows["deadline_days"] = log_row("deadline_days", 1.0, 1000.0)
        rows["mfu_default"] = c.ControlRow("mfu_default", w.Checkbox(value=True, indent=False))
        rows["mfu"] = c.slider_row("mfu", self.estimate.mfu, *_spec_range("mfu"), 0.01)
        rows["pricing"] = c.choice_row("pricing", self._options("pricing"), s.pricing)
        rows["region"] = c.choice_row("region", [(r.name, r.id) for r in catalog.regions().values()], s.region)
        for name in _OPTIONAL_NAMES:
            rows[name] = c.optional_number_row(name)
        for name in _NUMBER_FIELDS:
            rows[name] = c.number_row(name, getattr(s, name), *_spec_range(name))
        rows["experiments_multiplier"] = log_row("experiments_multiplier", 1.0, 100.0)
        rows["preset"] = c.choice_row("preset", self._preset_options(), preset_id)
        rows["currency"] = c.toggle_row("currency", [("USD $", "USD"), ("CNY ¥", "CNY")], s.currency)
        rows["language"] = c.toggle_row("language", [("English", "en"), ("中文", "zh")], self.language)
        self.rows = rows
        self.controls: dict[str, w.Widget] = {name: row.widget for name, row in rows.items()}
        self._write_controls(s)

    def _build_views(self) -> None:
        self.title = w.HTML()
        self.banner = w.HTML()
        self.kpis = w.HTML()
        self.warnings = w.HTML()
        self.summary = w.HTML()
        self.summary.add_class("explorer-summary")
        self.scope_note = w.HTML()
        self.breakdown = BreakdownPlot(_widget_figure(9.0, 3.7), language=self.language)
        self.waterfall = WaterfallPlot(_widget_figure(9.0, 3.7), language=self.language)
        self.breakdown.enable_blitting()
        self.waterfall.enable_blitting()
        # The history chart is laid out for 13 x 7.8 in; a lower dpi shrinks it whole to the panel. It is
        # built on an Agg canvas (its label placement draws) and shown through ipympl once built.
        history = history_figure(figure=Figure(figsize=(13.0, 7.8), dpi=66, layout="constrained"),
                                 language=self.language)
        self.history_fig = _widget_figure(0, 0, figure=history)
        enable_marker_blitting(self.history_fig)
        self.pin_button = w.Button(icon="thumb-tack", layout=w.Layout(width="auto"))
        self.pin_button.on_click(self._on_pin)
        self.assumptions = w.HTML()
        self.downloads = w.HTML()
        self.share = w.HTML()
        self.tabs = w.Tab(children=[
            self.breakdown.figure.canvas,
            w.VBox([self.pin_button, self.waterfall.figure.canvas]),
            self.history_fig.canvas,
            self.assumptions,
            w.VBox([self.downloads, self.share]),
        ])

    def _group(self, names: tuple[str, ...]) -> w.VBox:
        return w.VBox([self.rows[n].box for n in names], layout=w.Layout(width="100%"))

    def _layout(self) -> None:
        self.groups = w.Accordion(children=[
            self._group(("params", "tokens", "architecture", "active_params", "training_kind",
                         "lora_trainable_fraction")),
            self._group(("gpu", "precision", "count_mode", "gpus", "deadline_days", "mfu_default", "mfu")),
            self._group(("pricing", *_OPTIONAL_FIELDS["pricing"])),
            self._group(("region", *_OPTIONAL_FIELDS["region"])),
            self._group(("experiments_multiplier", *_NUMBER_FIELDS,
                         *_OPTIONAL_FIELDS["advanced"])),
        ], selected_index=0)
        header = w.HBox([self.rows["preset"].box, self.rows["currency"].box, self.rows["language"].box],
                        layout=w.Layout(width="100%", justify_content="space-between"))
        left = w.VBox([header, self.groups, self.rows["usd_to_cny"].box],
                      layout=w.Layout(width="390px", min_width="330px", flex="0 0 390px"))
        right = w.VBox([self.banner, self.kpis, self.warnings, self.summary, self.tabs, self.scope_note],
                       layout=w.Layout(flex="1 1 auto", min_width="480px", padding="0 0 0 14px"))
        self.widget = w.VBox([w.HTML(views.STYLE), self.title, w.HBox([left, right], layout=w.Layout(width="100%"))],
                             layout=w.Layout(width="100%", max_width="1320px"))
        self.widget.add_class("explorer-app")

    # ------------------------------------------------------------------ options and labels
    def _options(self, name: str) -> list[tuple[str, str]]:
        lang = getattr(self, "language", "en")
        if name == "architecture":
            return [(label("arch_dense", lang), "dense"), (label("arch_moe", lang), "moe")]
        if name == "training_kind":
            return [(label(f"kind_{k}", lang), k) for k in TRAINING_KINDS]
        if name == "pricing":
            return [(label(f"pricing_{p}", lang), p) for p in PRICING_MODES]
        if name == "count_mode":
            return [(label("count_gpus", lang), "gpus"), (label("count_deadline", lang), "deadline")]
        raise KeyError(name)

    def _precision_options(self, gpu: str) -> list[tuple[str, str]]:
        acc = catalog.accelerator(gpu)
        na = label("not_available", self.language)
        return [(p.upper() if p in acc.peak_tflops else f"{p.upper()} ({na})", p) for p in catalog.PRECISIONS]

    def _preset_options(self) -> list[tuple[str, str]]:
        return [(label("preset_none", self.language), "")] + [
            (p.name[self.language], p.id) for p in presets().values()]

    @contextlib.contextmanager
    def _mute(self) -> Iterator[None]:
        self._muted += 1
        try:
            yield
        finally:
            self._muted -= 1

    def _set_language(self, language: str) -> None:
        self.language = language
        lang = language
        for row in self.rows.values():
            row.set_language(lang)
        for name in ("architecture", "training_kind", "pricing", "count_mode"):
            c.relabel_options(self.controls[name], self._options(name), self._mute)
        c.relabel_options(self.controls["precision"], self._precision_options(self.controls["gpu"].value), self._mute)
        c.relabel_options(self.controls["preset"], self._preset_options(), self._mute)
        self.title.value = (f'<h2 style="margin:4px 0 0 0">{label("app_title", lang)}</h2>'
                            f'<div class="explorer-note">{label("app_subtitle", lang)}</div>')
        for i, (key) in enumerate(("group_model", "group_hardware", "group_pricing", "group_region",
                                   "group_advanced")):
            self.groups.set_title(i, label(key, lang))
        for i, key in enumerate(("tab_breakdown", "tab_waterfall", "tab_history", "tab_assumptions", "tab_share")):
            self.tabs.set_title(i, label(key, lang))
        self.pin_button.description = label("pin_baseline", lang)
        self.scope_note.value = f'<div class="explorer-note">{label("scope_note", lang)}</div>'
        self.breakdown.set_language(lang)
        self.waterfall.set_language(lang)
        for plot in (self.breakdown, self.waterfall):
            freeze_layout(plot.figure)  # a full draw: refreshes the blit background too
        if self.history_fig.history_handles.language != text_kwargs(lang)[1]:
            history_figure(figure=self.history_fig, language=lang)
            enable_marker_blitting(self.history_fig)
        self._stale_figures = {self.breakdown.figure, self.waterfall.figure, self.history_fig}

    # ------------------------------------------------------------------ reading controls
    def _read_scenario(self) -> Scenario:
        """The scenario the controls describe; ScenarioError when they cannot."""
        r = self.rows
        # fields without a control (attention shape, experts, checkpoint write time) keep their values
        fields: dict[str, Any] = self.scenario.to_dict()
        fields.update({
            "params": r["params"].value,
            "tokens": r["tokens"].value,
            "architecture": r["architecture"].value,
            "training_kind": r["training_kind"].value,
            "lora_trainable_fraction": r["lora_trainable_fraction"].value,
            "gpu": r["gpu"].value,
            "precision": r["precision"].value,
            "mfu": None if r["mfu_default"].value else r["mfu"].value,
            "pricing": r["pricing"].value,
            "region": r["region"].value,
            "experiments_multiplier": r["experiments_multiplier"].value,
            "currency": r["currency"].value,
        })
        moe = fields["architecture"] == "moe"
        fields["active_params"] = r["active_params"].value if moe else None
        if not moe:
            fields["experts"] = fields["top_k"] = None
        if r["count_mode"].value == "gpus":
            fields["gpus"], fields["deadline_days"] = r["gpus"].value, None
        else:
            fields["gpus"], fields["deadline_days"] = None, r["deadline_days"].value
        for name in _OPTIONAL_NAMES:
            fields[name] = c.parse_optional_number(name, r[name].value)
        for name in _NUMBER_FIELDS:
            fields[name] = r[name].value
        return Scenario.from_dict(fields)

    # ------------------------------------------------------------------ events
    def _on_change(self, change: dict) -> None:
        """Every control's observer: a public entry point, so it never raises."""
        if self._muted:
            return
        owner = change["owner"]
        try:
            if owner is self.controls["language"]:
                self._set_language(owner.value)
                self._show(self.estimate)
                return
            if owner is self.controls["preset"]:
                if owner.value:
                    self._set_marker_for_preset(owner.value)
                    self.set_scenario(presets()[owner.value].scenario, keep_preset=True)
                return
            if owner is self.controls["gpu"]:
                c.relabel_options(self.controls["precision"], self._precision_options(owner.value), self._mute)
            if owner is not self.controls["currency"] and owner is not self.controls["usd_to_cny"]:
                with self._mute():
                    self.controls["preset"].value = ""
                self.marker_year, self.marker_label = _today_year(), ""
            self._sync_visibility()
            self.refresh()
        except Exception as exc:  # noqa: BLE001 - shown to the viewer, never a traceback
            self._reject("app", f"{type(exc).__name__}: {exc}")

    def _sync_visibility(self) -> None:
        r = self.rows
        r["active_params"].show(r["architecture"].value == "moe")
        r["lora_trainable_fraction"].show(r["training_kind"].value == "lora")
        by_gpus = r["count_mode"].value == "gpus"
        r["gpus"].show(by_gpus)
        r["deadline_days"].show(not by_gpus)
        r["mfu"].widget.disabled = bool(r["mfu_default"].value)
        pricing = r["pricing"].value
        for name in _SPOT_ONLY:
            r[name].show(pricing == "spot")
        for name in _OWNED_ONLY:
            r[name].show(pricing == "owned")
        r["usd_to_cny"].show(r["currency"].value == "CNY")
        reg = catalog.region(r["region"].value)
        for name, value in (("electricity_usd_per_kwh", reg.electricity_usd_per_kwh), ("pue", reg.pue),
                            ("grid_gco2_per_kwh", reg.grid_gco2_per_kwh)):
            r[name].widget.placeholder = f"{value:g}" if value is not None else label("unit_unknown", self.language)

    def _field_row(self, field: str) -> c.ControlRow | None:
        if field in self.rows:
            return self.rows[field]
        return {"active_params": self.rows["active_params"], "experts": self.rows["active_params"],
                "top_k": self.rows["active_params"]}.get(field)

    def _reject(self, field: str, message: str) -> None:
        """Show why a change was not applied; the last good result stays."""
        self.error = message
        for row in self.rows.values():
            row.set_message("")
        row = self._field_row(field)
        if row is not None:
            row.set_message(html.escape(message))
        self.banner.value = (f'<div class="explorer-banner"><b>{label("input_error", self.language)}:</b> '
                             f"{html.escape(message)}</div>")

    @property
    def scenario(self) -> Scenario:
        """The scenario behind the results shown."""
        return self.estimate.scenario

    def refresh(self, scenario: Scenario | None = None) -> None:
        """Estimate ``scenario`` (default: read the controls) and update every view (the summary last)."""
        try:
            scenario = scenario or self._read_scenario()
            result = estimate(scenario)
        except ScenarioError as exc:
            self._reject(exc.field, str(exc))
            return
        if result.deadline_impossible:
            self._reject("deadline_days", next(m for m in result.warnings if m.startswith("Deadline")))
            return
        self.estimate, self.error = result, ""
        for row in self.rows.values():
            row.set_message("")
        self.banner.value = ""
        self._show(result)

    def _show(self, e: Estimate) -> None:
        lang = self.language
        if self.rows["mfu_default"].value:
            with self._mute():
                self.controls["mfu"].value = round(e.mfu, 2)
        self.kpis.value = views.kpi_html(e, lang)
        self.warnings.value = views.warnings_html(e, lang)
        self.breakdown.update(e, draw=False)
        self.waterfall.update(self.baseline, e, draw=False)
        # the curve holds final training runs: compare the run, not the whole project
        run_label = self.marker_label or f"{label('current', lang)} ({int(self.marker_year)})"
        run_label += f", {label('marker_scope', lang)} ({label(f'pricing_{e.scenario.pricing}', lang)})"
        run_usd = e.final_run_usd if math.isfinite(e.final_run_usd) and e.final_run_usd > 0 else None
        set_scenario_marker(self.history_fig, run_usd, self.marker_year, run_label, draw=False)
        self._render(self.breakdown.figure, self.waterfall.figure, self.history_fig)
        self.assumptions.value = views.assumptions_html(e, lang)
        self.downloads.value = (
            export.download_link(export.scenario_json(e), "application/json", "scenario.json",
                                 label("download_scenario", lang)) + " &nbsp; " +
            export.download_link(export.breakdown_csv(e), "text/csv", "breakdown.csv",
                                 label("download_breakdown", lang)))
        link = "?" + query.query_from_scenario(e.scenario, lang=lang)
        self.share.value = (f'<p class="explorer-share">{label("share_link", lang)}: <a href="{html.escape(link)}" target="_blank">'
                            f'<code>{html.escape(link)}</code></a></p>')
        self.summary.value = f'<p class="explorer-summary-text">{html.escape(views.summary_text(e, lang))}</p>'

    # ------------------------------------------------------------------ public actions
    def _set_marker_for_preset(self, preset_id: str) -> None:
        p = presets()[preset_id]
        if p.run:
            self.marker_year = float(published_run(p.run)["year"]) + 0.5
            self.marker_label = p.name["en"]
        else:
            self.marker_year, self.marker_label = _today_year(), ""

    def _on_pin(self, _button) -> None:
        try:
            self.pin_baseline()
        except Exception as exc:  # noqa: BLE001 - shown to the viewer, never a traceback
            self._reject("app", f"{type(exc).__name__}: {exc}")

    def pin_baseline(self) -> None:
        """Make the current result the baseline of the "what changed" view."""
        self.baseline = self.estimate
        self.waterfall.update(self.baseline, self.estimate, draw=False)
        self._render(self.waterfall.figure)

    # ------------------------------------------------------------------ rendering
    def _visible_figure(self) -> Figure | None:
        return {0: self.breakdown.figure, 1: self.waterfall.figure, 2: self.history_fig}.get(self.tabs.selected_index)

    def _render(self, *changed: Figure) -> None:
        """Render the visible figure now; render the others when their tab is opened.

        An explicit ``canvas.draw()`` pushes the new image to the browser. (Only
        ``draw_idle`` would let the browser ask for it, and a request made while
        another is in flight is dropped, leaving a stale chart.)
        """
        self._stale_figures.update(changed)
        visible = self._visible_figure()
        if visible in self._stale_figures:
            self._stale_figures.discard(visible)
            if visible is self.history_fig:
                redraw_marker(visible)
            else:
                (self.breakdown if visible is self.breakdown.figure else self.waterfall).redraw()
            _fix_initial_image(visible.canvas)  # when this runs before a browser attached

    def _on_tab(self, _change: dict) -> None:
        try:
            self._render()
        except Exception as exc:  # noqa: BLE001 - shown to the viewer, never a traceback
            self._reject("app", f"{type(exc).__name__}: {exc}")

    def set_scenario(self, scenario: Scenario, *, keep_preset: bool = False) -> None:
        """Move every control to ``scenario`` and show its result."""
        with self._mute():
            if not keep_preset:
                self.controls["preset"].value = ""
        self._write_controls(scenario)
        self._sync_visibility()
        self.refresh(scenario)

    def _write_controls(self, s: Scenario) -> None:
        """Set every control to the value of ``s``, without triggering updates."""
        r = self.rows
        with self._mute():
            r["gpu"].widget.value = s.gpu
            c.relabel_options(r["precision"].widget, self._precision_options(s.gpu), self._mute)
            # a log row's twin holds the value; it moves its slider (clamped to the slider's range)
            r["params"].twin.value = s.params
            r["tokens"].twin.value = s.tokens
            r["architecture"].widget.value = s.architecture
            r["active_params"].twin.value = s.active_params_effective
            r["training_kind"].widget.value = s.training_kind
            r["lora_trainable_fraction"].widget.value = s.lora_trainable_fraction
            r["precision"].widget.value = s.precision
            r["count_mode"].widget.value = "gpus" if s.gpus is not None else "deadline"
            if s.gpus is not None:
                r["gpus"].twin.value = s.gpus
            if s.deadline_days is not None:
                r["deadline_days"].twin.value = s.deadline_days
            r["mfu_default"].widget.value = s.mfu is None
            if s.mfu is not None:
                r["mfu"].widget.value = s.mfu
            r["pricing"].widget.value = s.pricing
            r["region"].widget.value = s.region
            for name in _OPTIONAL_NAMES:
                r[name].widget.value = number_text(getattr(s, name))
            for name in _NUMBER_FIELDS:
                r[name].widget.value = getattr(s, name)
            r["experiments_multiplier"].twin.value = s.experiments_multiplier
            r["currency"].widget.value = s.currency

    def _ipython_display_(self) -> None:  # pragma: no cover - display hook in notebooks
        from IPython.display import display

        display(self.widget)
