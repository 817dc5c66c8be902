"""The interactive explorer: controls on the left, results on the right.

:class:`ExplorerApp` builds every widget and figure once. A control change
runs :meth:`ExplorerApp.refresh`: read the controls into a
:class:`~explorer.scenario.Scenario`, estimate it, and update the artists,
HTML views and links in place; the summary is updated last. A value the model
cannot use shows a message beside its control and the last good result stays.

The app composes the modules beside it and holds none of their work: the controls
(:mod:`explorer.app.panel`), a share link (:mod:`explorer.app.share_link`), the
Assumptions and Share tabs (:mod:`explorer.app.html_tabs`), the History chart's
marker (:mod:`explorer.app.history_marker`), chart widths from the page
(:mod:`explorer.app.responsive`), the other tabs (``explorer/app/tabs/``) and
their HTML (``explorer/app/pages/``).
"""

from __future__ import annotations

import html
from typing import Any

import ipywidgets as w
from matplotlib.figure import Figure

from explorer.analysis import recipe_verdicts, savings_recipe
from explorer.app import html_tabs, link, share_link
from explorer.app.pages import estimate_html
from explorer.app.tabs.analysis_views import AnalysisViews
from explorer.app.tabs.what_if import WhatIfView
from explorer.app.tabs.plan import PlanView
from explorer.app.tabs.models import ModelsView
from explorer.app.bindings import GROUPS
from explorer.app.panel import ControlPanel
from explorer.app import responsive
from explorer.app.page_bridge import PageBridge
from explorer.app.ipympl_private import attach_figure, widget_figure
from explorer.app.guard import errors_to_viewer
from explorer.app.history_marker import HistoryMarker
from explorer.app.surface import ChartSurface
from explorer.app.shared import AUTO_WIDTH, BUTTON_STYLE, HIDDEN, PLAIN, html as shared_html
from explorer.errors import ScenarioError
from explorer.messages import Message
from explorer.model import Estimate, estimate
from explorer.plots.breakdown import BreakdownPlot, WaterfallPlot
from explorer.plots.history import HistoryPlot
from explorer.presets import presets
from explorer.scenario import Scenario
from explorer.text import label

__all__ = ["ExplorerApp"]

_REVERTIBLE = (w.Dropdown, w.ToggleButtons, w.Checkbox, w.FloatSlider)
#: The tabs, in order (their titles are ``tab_<key>`` in labels.csv).
TAB_KEYS = ("breakdown", "waterfall", "history", "compare", "uncertainty", "assumptions", "share", "whatif", "plan",
             "models")
#: A preset's published project (its listed team and length): a new model size gives them back to the rules
#: that follow the run, unless they were typed since (explorer/rules.py).
_PROJECT_FIELDS = ("team_headcount", "project_months")


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
    panel : explorer.app.panel.ControlPanel
        The controls: built from the binding table, read into a scenario, written, relabelled.
    controls : dict of str to ipywidgets.Widget
        The control widgets by name (``params``, ``tokens``, ``precision``, ...): ``panel.controls``.
    rows : dict of str to explorer.app.controls.ControlRow
        The control rows by name (label, widget, message): ``panel.rows``.
    summary : ipywidgets.HTML
        One-paragraph summary of the result (CSS class ``explorer-summary``).
    scenario : Scenario
        The scenario behind the results shown.
    estimate : Estimate
        The results shown (the last good one).
    baseline : Estimate
        The pinned baseline of the "what changed" view (compare slot A).
    analysis : explorer.app.tabs.analysis_views.AnalysisViews
        The analysis views: compare slots, by-lever attribution, uncertainty, budget, savings recipe.
    error : str
        The message of the last rejected change ("" when the controls are valid).
    scope : {"project", "run"}
        What the total shows: the whole project or the final training run.
    history_fig : matplotlib.figure.Figure
        The History chart shown. One figure is kept per language and swapped
        onto the one canvas, so read it again after a language switch.
    history : explorer.plots.history.HistoryPlot
        The History chart (its figure of each language, the marker).
    marker : explorer.app.history_marker.HistoryMarker
        Where the History chart's marker stands (today, or a preset's published run) and its name.
    html_tabs : explorer.app.html_tabs.HtmlTabs
        Writes the Assumptions and Share tabs when shown and out of date.
    widths : explorer.app.responsive.WidthRequests
        The chart widths the page reports (coalesced in a running kernel; ``widths.coalesce`` forces it).
    charts : dict of str to explorer.app.surface.ChartSurface
        The Breakdown, What changed and History charts with their render flags, by tab key.

    Notes
    -----
    Drive the app from Python with :meth:`set_scenario`, or set a control's
    ``value`` (``app.controls["params"].value = 70e9``). Controls take any
    value: one the Scenario does not allow is refused with a message beside
    the control, never clamped.
    """

    def __init__(self, scenario: Scenario | None = None, *, query_string: str | None = None, language: str = "en"):
        self.language = language if language in ("en", "zh") else "en"
        self.scope = "project"
        self.error = ""
        self._refusal: tuple | None = None  # (field, message, ScenarioError or None, others) of the refusal shown
        self.marker = HistoryMarker()  # the History chart's marker: today's, or a preset's published run
        self._preset_project: dict = {}  # the team and project length the last preset set (see _read_scenario)
        query_link = link.request_query_string() if query_string is None else query_string
        opened = self._open_link(scenario or Scenario(), query_link)
        self.estimate, preset_id = opened.estimate, opened.preset_id
        self.baseline = self.estimate
        start = self.scenario

        self._build_controls(start, preset_id)
        self._build_views()
        self._layout()
        self._set_language(self.language)
        self.panel.sync_visibility()
        self.panel.placeholders(self.estimate.fallbacks)
        self._show(self.estimate)
        for row in self.rows.values():
            # a log slider and its typed twin mirror each other: the twin holds the value
            (row.twin or row.widget).observe(self._on_change, names="value")
        self.tabs.observe(self._on_tab, names="selected_index")
        self.groups.observe(self._on_group, names="selected_index")
        self._apply_link_decision(query_link)

    # ------------------------------------------------------------------ share links (explorer/app/share_link.py)
    def _apply_link_decision(self, query_string: str) -> None:
        """Hand the link's decision to the tabs (:func:`~explorer.app.share_link.apply_link_decision`), open the
        tab it was made on, and name every value it left out (not clamped silently), the first beside its control."""
        extras = self._link_extras
        refused = share_link.apply_link_decision(query_string, extras, (self.analysis, self.plan_view, self.whatif))
        if extras.get("tab") in TAB_KEYS:  # the tab the link was made on (its What-if, Plan... built then)
            self.tabs.selected_index = TAB_KEYS.index(extras["tab"])
        if refused:
            self._reject(refused[0].field, str(refused[0]), refused[0], tuple(refused[1:]))

    def _open_link(self, start: Scenario, query_string: str) -> share_link.OpenedLink:
        """Read ``query_string`` on top of ``start`` (:func:`~explorer.app.share_link.read_link`): take its
        language, scope and preset (its history marker and project), and keep its decision for the tabs."""
        opened = share_link.read_link(start, query_string)
        self._link_extras = opened.extras  # the decision (budget, GPU cap, compare slots), applied once the views exist
        if opened.preset_id:
            self.marker.at_preset(opened.preset_id)
            self._remember_preset(opened.preset_id)
        self.language = opened.language or self.language
        self.scope = opened.scope or self.scope
        return opened

    def apply_query(self, query_string: str) -> None:
        """Show the scenario, preset and language of a share link's ``query_string``.

        The notebook calls it when the app was built before the request came
        (a preheated Voila kernel), with :func:`explorer.app.link.request_query_string`.
        """
        if not query_string:
            return
        language = self.language
        opened = self._open_link(self.scenario, query_string)
        if self.language != language:
            with self._mute():
                self.controls["language"].value = self.language
            self._set_language(self.language)
        with self._mute():
            self.controls["preset"].value = opened.preset_id
            self.controls["scope"].value = self.scope
        self.baseline = opened.estimate
        self.set_scenario(opened.estimate.scenario, keep_preset=True)
        self._apply_link_decision(query_string)

    def share_query(self) -> str:
        """The query string (with ``?``) of a link to the scenario, language and scope shown
        (:func:`~explorer.app.share_link.share_query`)."""
        return share_link.share_query(self.scenario, language=self.language, scope=self.scope, tab=self._decision_tab,
                                      tabs=(self.analysis, self.whatif, self.plan_view))

    # ------------------------------------------------------------------ the Share tab's chart files
    def chart_caption(self) -> str:
        """The scenario in words, written under a downloaded chart (the share link restores it whole)."""
        return html_tabs.chart_caption(self.estimate, self.language, self.scope)

    def chart_links(self) -> str:
        """Download links for every chart: Breakdown (PNG, SVG), What changed, History, Compare (once a slot is
        pinned) and Uncertainty (PNG), each captioned with the scenario."""
        return html_tabs.chart_links(self.chart_files(), self.chart_caption(), self.language)

    def chart_files(self) -> list[html_tabs.ChartFile]:
        """Every chart file the Share tab offers (:func:`~explorer.app.html_tabs.chart_files`)."""
        return html_tabs.chart_files(self.breakdown.figure, self.waterfall.figure, self.history, self.analysis,
                                     self.language)

    # ------------------------------------------------------------------ the History chart's marker
    def mark_today(self) -> None:
        """Move the History chart's "current" marker to today, if the day has changed since it was placed.

        For an app built well before it is shown (:mod:`explorer.app.prebuilt`); a preset's marker (its
        release year) stays.
        """
        if self.marker.catch_up_today():
            self._mark_history(self.estimate)
            self._render("history")

    def _mark_history(self, e: Estimate) -> None:
        """Put the history chart in ``e``'s currency and its marker at ``e``'s final run (no draw)."""
        self.marker.mark(self.history, e, self.language, self.analysis.run_interval_usd())

    # ------------------------------------------------------------------ building
    def _build_controls(self, s: Scenario, preset_id: str) -> None:
        """The control panel (one control per line of the binding table), set to ``s``."""
        self.panel = ControlPanel(s, settings={"preset": preset_id, "language": self.language, "scope": self.scope},
                                  language=self.language)
        self.rows = self.panel.rows
        self.controls = self.panel.controls
        self._mute = self.panel.mute

    def _build_views(self) -> None:
        self.title = shared_html()
        self.banner = shared_html()
        self.banner.add_class("explorer-banner-box")
        self.kpis = shared_html()
        self.kpis.add_class("explorer-kpis-box")  # first on a phone (estimate_html.STYLE)
        self.warnings = shared_html()
        self.summary = shared_html()
        self.summary.add_class("explorer-summary")
        self.scope_note = shared_html()
        self.breakdown = BreakdownPlot(widget_figure(9.0, 3.7), language=self.language)
        self.waterfall = WaterfallPlot(widget_figure(9.0, 3.7), language=self.language)
        self.breakdown.enable_blitting()
        self.waterfall.enable_blitting()
        # one figure per language, kept: a language switched back is shown, not built again
        # built when its tab is first shown (or its figure read, HistoryPlot.ensure_built): not on the first screen
        self.history = HistoryPlot(self.language, attach=attach_figure, deferred=True)
        widget_figure(0, 0, figure=self.history.figure)
        self.history.enable_blitting()
        #: each chart's figure, canvas and render flags, by tab key (see explorer.app.surface)
        self.charts = {"breakdown": ChartSurface(self.breakdown), "waterfall": ChartSurface(self.waterfall),
                       "history": ChartSurface(self.history, relayout=lambda _plot: self.history.relayout() is not None)}
        self.pin_button = w.Button(icon="thumb-tack", layout=AUTO_WIDTH, style=BUTTON_STYLE)
        self.pin_button.on_click(self._on_pin)
        # the page's chart widths, laid out now or coalesced in a kernel, whose event loop the tabs also use
        self.widths = responsive.WidthRequests(self._apply_width)
        self.whatif = WhatIfView(widget_figure, self.language, on_error=lambda m: self._reject("app", m),
                                 event_loop=self.widths.event_loop)
        # the Plan and Models tabs: empty boxes until first opened (built by their render)
        # the Plan chart widens with the page as Breakdown's does (issue 41): sized from when it is made
        self.plan_view = PlanView(lambda *size: self.sizer.add(widget_figure(*size)), self.language,
                                  on_use=self._load_scenario,
                                  on_error=lambda m: self._reject("app", m))
        self.models_view = ModelsView(self.language, on_load=self._load_scenario,
                                      on_error=lambda m: self._reject("app", m))
        self.analysis = AnalysisViews(widget_figure, self.baseline, self.language, on_baseline=self._set_baseline,
                                      on_recipe=self._on_recipe, on_error=lambda m: self._reject("app", m),
                                      visible=self._tab_key, on_mode=self._render)
        self.assumptions = shared_html()
        self.downloads = shared_html()
        self.share = shared_html()
        self.glossary = shared_html()
        #: writes the Assumptions and Share tabs when shown and out of date
        self.html_tabs = html_tabs.HtmlTabs(self.assumptions, self.glossary, self.share, self.downloads,
                                            share_query=self.share_query, files=self.chart_files,
                                            caption=self.chart_caption, on_error=self._report_error,
                                            event_loop=self.widths.event_loop)
        self.region_note = shared_html()
        # what the scenario holds without a control (a preset's layers, width, sequence...), with a reset
        self.kept = shared_html()
        self.kept_reset = w.Button(layout=AUTO_WIDTH, style=BUTTON_STYLE)
        self.kept_reset.on_click(self._on_reset_kept)
        self.kept_box = w.HBox([self.kept, self.kept_reset],  # own layout: it hides; the button wraps, whole
                               layout=w.Layout(display="none", flex_flow="row wrap", align_items="center"))
        self.kept_box.add_class("explorer-kept")
        self.owned_button = w.Button(layout=w.Layout(width="auto"), style=BUTTON_STYLE)  # own layout: it hides
        self.owned_button.on_click(self._on_owned)
        # the session-ended notice; the page's widget (heartbeat, width sensor, share links) shows it when the
        # kernel stops answering (culled, crashed or the server restarted)
        self.session = shared_html(estimate_html.session_html())
        self.bridge = PageBridge(layout=HIDDEN)
        # narrow screens: the page reports the chart box's width and the charts are laid out again for it
        self.sizer = responsive.ChartSizer((self.breakdown.figure, self.waterfall.figure),
                                           on_resize={self.waterfall.figure: self.waterfall.fit_width})
        self.bridge.observe(self.widths.on_width, names="chart_width")
        for surface in self.charts.values():
            surface.canvas.add_class("explorer-chart")
        # on a phone the History chart keeps its own size (858 px: its labels at 8 px) and scrolls sideways
        history_tab = w.Box([self.history.figure.canvas], layout=PLAIN)
        history_tab.add_class("explorer-history-tab")
        history_tab.add_class("explorer-chart-scroll")
        self.tabs = w.Tab(children=[
            self.breakdown.figure.canvas,
            self.analysis.what_changed.what_changed_tab(self.pin_button, self.waterfall.figure.canvas),
            history_tab,
            self.analysis.compare_tab,
            self.analysis.uncertainty_tab,
            w.VBox([self.assumptions, self.glossary], layout=PLAIN),
            w.VBox([self.share, self.downloads], layout=PLAIN),
            self.whatif.widget,
            self.plan_view.widget,
            self.models_view.widget,
        ], layout=PLAIN)

    def _layout(self) -> None:
        groups = {g: self.panel.group_box(g) for g in GROUPS}
        # where the region changes the bill, one click away
        groups["region"].children = (*groups["region"].children, self.region_note, self.owned_button)
        self.groups = w.Accordion(children=[groups[g] for g in GROUPS], selected_index=0, layout=PLAIN)
        header = w.Box([self.rows[name].box for name in self.panel.names("header")], layout=PLAIN)
        header.add_class("explorer-header")
        left = w.VBox([header, self.kept_box, self.groups, self.panel.group_box("footer")], layout=PLAIN)
        left.add_class("explorer-left")
        right = w.VBox([self.banner, self.kpis, self.warnings, self.summary, self.tabs, self.scope_note], layout=PLAIN)
        right.add_class("explorer-right")
        body = w.Box([left, right], layout=PLAIN)
        body.add_class("explorer-body")
        self.widget = w.VBox([shared_html(estimate_html.STYLE + estimate_html.scroll_hint_css()), self.session, self.title, body,
                              self.bridge],
                             layout=w.Layout(width="100%", max_width=f"{estimate_html.APP_MAX_WIDTH_PX}px"))
        self.widget.add_class("explorer-app")

    # ------------------------------------------------------------------ labels
    def _set_language(self, language: str) -> None:
        self.language = language
        lang = language
        if hasattr(self, "widget"):  # the phone's scroll hints follow the language (estimate_html.scroll_hint_css)
            (self.widget.add_class if lang == "zh" else self.widget.remove_class)("explorer-lang-zh")
        if self.error and self._refusal:  # a refusal on screen, in the new language
            self._reject(*self._refusal)
        # the controls of closed groups are relabelled when their group opens (_on_group): a language switch
        # then sends the page about 40 fewer widget messages; the first call labels them all
        self.panel.set_language(lang, self._open_groups() if hasattr(self, "_labelled_once") else None)
        self._labelled_once = True
        self.html_tabs.stale.add("assumptions")  # the glossary is on that tab: written when it is shown
        self.title.value = (f'<h2 style="margin:4px 0 0 0">{label("app_title", lang)}</h2>'
                            f'<div class="explorer-note">{label("app_subtitle", lang)}</div>')
        # one message per container, not one per title (each re-renders the page's tab bar)
        self.groups.titles = tuple(label(f"group_{group}", lang) for group in GROUPS)
        self.tabs.titles = tuple(label(f"tab_{key}", lang) for key in TAB_KEYS)
        self.pin_button.description = label("pin_baseline_a", lang)
        self.analysis.set_language(lang)
        self.whatif.set_language(lang)
        self.plan_view.set_language(lang)
        self.models_view.set_language(lang)
        self.session.value = estimate_html.session_html()
        self.breakdown.set_language(lang)
        self.waterfall.set_language(lang)
        # Laying a figure out again costs a full draw (the history figure: built, about 0.25 s the first
        # time in a language, then kept and swapped in, see HistoryPlot); do it for each figure only when
        # its tab is shown (see _render).
        charts = self.charts
        charts["breakdown"].needs_layout = charts["waterfall"].needs_layout = True
        charts["history"].needs_layout = self.history.set_language(lang)
        for surface in charts.values():
            surface.stale = True

    def _open_groups(self) -> set[str]:
        """The control groups on screen: the header, the footer and the open accordion panel."""
        index = self.groups.selected_index
        return {"header", "footer"} | ({GROUPS[index]} if index is not None and 0 <= index < len(GROUPS) else set())

    def _on_group(self, _change: dict) -> None:
        with errors_to_viewer(self._report_error):
            self.panel.label_opened(self._open_groups())

    def _read_scenario(self, keep: frozenset = frozenset()) -> Scenario:
        """The scenario the controls describe; ScenarioError when they cannot (:meth:`ControlPanel.read`).

        ``keep``: fields whose box holds a refused value: they keep the value the results use.
        """
        return self.panel.read(self.scenario, keep=keep, preset_project=self._preset_project)

    # ------------------------------------------------------------------ events
    def _on_change(self, change: dict) -> None:
        """Every control's observer: a public entry point, so it never raises."""
        if self.panel.muted:
            return
        owner = change["owner"]
        with errors_to_viewer(self._report_error):
            if owner is self.controls["language"]:
                self._set_language(owner.value)
                self.panel.placeholders(self.estimate.fallbacks)
                self._show(self.estimate)
                return
            if owner is self.controls["scope"]:
                self.scope = owner.value
                self._show(self.estimate)
                return
            if owner is self.controls["preset"]:
                if owner.value:
                    self.marker.at_preset(owner.value)
                    self._remember_preset(owner.value)
                    keep = {"currency": self.scenario.currency, "usd_to_cny": self.scenario.usd_to_cny}
                    self.set_scenario(presets()[owner.value].scenario.replace(**keep), keep_preset=True)
                return
            if owner is self.controls["count_mode"]:
                # start from the cluster shown: its GPU count, or its wall-clock days rounded up
                self.panel.start_cluster_from(owner.value, self.estimate.gpus, self.estimate.wall_days)
            if owner is self.controls["gpu"]:
                self.panel.adapt_precision(owner.value)
                self.panel.adapt_seller(owner.value)
            elif owner is self.controls["precision"]:
                self.rows["precision"].set_note("")
            elif owner is self.controls["seller"]:
                self.rows["seller"].set_note("")
            if owner is not self.controls["currency"] and owner is not self.controls["usd_to_cny"]:
                with self._mute():
                    self.controls["preset"].value = ""
                self.marker.at_today()
            self.panel.sync_visibility()
            changed = next((name for name, row in self.rows.items() if owner is row.widget or owner is row.twin), None)
            if not self.refresh(changed=changed) and isinstance(owner, _REVERTIBLE):
                # a refused choice goes back to the value the results use; the message stays
                error = self.banner.value
                self.panel.write(self.scenario)
                self.panel.sync_visibility()
                self.banner.value = error

    def _on_owned(self, _button) -> None:
        with errors_to_viewer(self._report_error):
            self.controls["pricing"].value = "owned"

    def _apply_width(self, width: int) -> None:
        """Lay the charts out for a box ``width`` wide [CSS px]: the visible one now, the others when their tab opens."""
        with errors_to_viewer(self._report_error):
            changed = self.sizer.apply(width)
            if changed:
                charts = self.all_charts()  # the app's and the Plan tab's (once built)
                keys = [key for key, surface in charts.items() if surface.figure in changed]
                for key in keys:
                    charts[key].needs_layout = True
                self._render(*(key for key in keys if key in self.charts))

    def _report_error(self, message: Message) -> None:
        """Show an unexpected error of a callback in the app's banner (:func:`~explorer.app.guard.errors_to_viewer`)."""
        self._reject("app", message)

    def _reject(self, field: str, message: str, exc: ScenarioError | None = None,
                others: tuple[ScenarioError, ...] = ()) -> None:
        """Show why a change was not applied; the last good result stays.

        The words for the viewer come from ``exc`` when given, else from ``message`` (a
        :class:`~explorer.messages.Message`), rendered in the app's language; a language switch shows them
        again in the new language. ``others``: more values refused at once (a link's), each named in the
        banner and beside its control.
        """
        self.error = "; ".join([message, *map(str, others)])
        self._refusal = (field, message, exc, others)
        text = estimate_html.error_text(exc, self.language) if exc is not None else estimate_html.translate(message, self.language)
        beside = [(other.field, estimate_html.error_text(other, self.language)) for other in others]
        self.panel.show_refusal(field, text, beside)
        self.banner.value = estimate_html.banner_html([text, *(t for _f, t in beside)], self.language)  # the first few

    @property
    def scenario(self) -> Scenario:
        """The scenario behind the results shown."""
        return self.estimate.scenario

    def refresh(self, scenario: Scenario | None = None, *, changed: str | None = None) -> bool:
        """Estimate ``scenario`` (default: read the controls) and update every view (the summary last).

        Parameters
        ----------
        scenario : Scenario, optional
            Default: the scenario the controls describe.
        changed : str, optional
            The control just changed. Another box that still holds a refused value keeps its message and the
            value the results use, so the change of ``changed`` applies on its own (one refused box never
            blocks the others).

        Returns
        -------
        bool
            False when the change was refused (the message is shown and the last good result stays).
        """
        held: list[ScenarioError] = []  # refusals of other boxes, kept beside them while this change applies
        while True:
            try:
                result = estimate(scenario or self._read_scenario(frozenset(e.field for e in held)))
                break
            except ScenarioError as exc:
                if (scenario is None and changed is not None and exc.field != changed and exc.field in self.rows
                        and self.panel.group_of.get(exc.field) and exc.field not in {e.field for e in held}):
                    held.append(exc)
                    continue
                self._reject(exc.field, str(exc), exc)
                return False
        if result.deadline_impossible:
            self._reject("deadline_days", next(m for m in result.warnings if m.id.startswith("deadline_")))
            return False
        if changed == "params":  # the boxes a new size gave back to their defaults show it
            self.panel.write(result.scenario, only=(*_PROJECT_FIELDS, "active_fraction"))
        self.panel.settle_money(result.scenario)  # in the currency and at the rate of the results
        self.estimate, self.error = result, ""
        self.panel.placeholders(result.fallbacks)
        self.panel.clear_messages()
        self.banner.value = ""
        self._show(result)
        if held:  # still refused, beside its box
            self._reject(held[0].field, str(held[0]), held[0])
        return True

    def _show(self, e: Estimate) -> None:
        lang = self.language
        if self.rows["mfu_default"].value:
            with self._mute():
                self.rows["mfu"].widget.value = round(e.mfu, 2)
        self.analysis.update(e, self.baseline, self._tab_key())  # simulates e: the KPI range and the error bar
        self.whatif.update(e)
        self.whatif.render(self._tab_key() == "whatif")
        self.plan_view.update(e)
        self.plan_view.render(self._tab_key() == "plan")
        self.models_view.set_currency(e.scenario.currency, e.usd_to_currency)  # its amounts in the page's currency
        self.rows["training_kind"].set_note(html.escape(self.panel.kind_note(e.scenario)))
        self.kpis.value = estimate_html.kpi_html(e, lang, self.scope, interval=self.analysis.interval(self.scope))
        self.warnings.value = estimate_html.warnings_html(e, lang)
        self.breakdown.update(e, draw=False, scope=self.scope, language=lang)
        self.waterfall.update(self.baseline, e, draw=False)
        # the curve holds final training runs: compare the run, not the whole project
        self._mark_history(e)
        self._render("breakdown", "waterfall", "history")
        self.html_tabs.stale.update(("assumptions", "share"))  # written when their tab is shown (HtmlTabs.write)
        self.html_tabs.write(self._tab_key(), e, lang)
        # in yuan the money boxes take yuan: the rate beside the switch
        self.rows["currency"].set_note(html.escape(self.panel.money_note(e.scenario)))
        kept = self.kept_fields()
        self.kept.value = estimate_html.kept_fields_html(kept, lang)
        self.kept_reset.description = label("kept_reset", lang)
        self.kept_box.layout.display = None if kept else "none"
        self.region_note.value = estimate_html.region_note_html(e, lang)
        self.owned_button.description = label("region_owned_button", lang)
        self.owned_button.layout.display = "none" if e.scenario.pricing == "owned" else None
        self.scope_note.value = f'<div class="explorer-note">{html.escape(label(f"scope_note_{self.scope}", lang))}</div>'
        self.summary.value = (f'<p class="explorer-summary-text">'
                              f'{html.escape(estimate_html.summary_text(e, lang, self.scope))}</p>')

    # ------------------------------------------------------------------ presets, kept fields, baseline, recipe
    def _remember_preset(self, preset_id: str) -> None:
        """Note the team and project length ``preset_id`` sets: they follow the run once the size changes."""
        s = presets()[preset_id].scenario
        self._preset_project = {name: getattr(s, name) for name in _PROJECT_FIELDS if getattr(s, name) is not None}

    def kept_fields(self) -> dict[str, Any]:
        """The scenario's fields that have no control and differ from their default, by name."""
        return self.panel.kept_fields(self.scenario)

    def reset_kept(self) -> bool:
        """Give every field without a control its default (the "reset" of the kept line); see :meth:`set_scenario`."""
        default = Scenario()
        return self.set_scenario(self.scenario.replace(**{name: getattr(default, name) for name in self.kept_fields()}))

    def _on_reset_kept(self, _button) -> None:
        with errors_to_viewer(self._report_error):
            self.reset_kept()

    def _load_scenario(self, scenario: Scenario) -> bool:
        """Show ``scenario`` from the Plan or Models tab, on the Breakdown tab; False when it cannot be shown."""
        ok = self.set_scenario(scenario)
        if ok:
            self.tabs.selected_index = TAB_KEYS.index("breakdown")
        return ok

    def _on_pin(self, _button) -> None:
        with errors_to_viewer(self._report_error):
            self.pin_baseline()

    def pin_baseline(self) -> None:
        """Make the current result the baseline of the "what changed" view: compare slot A."""
        self.analysis.pin("A", self.estimate)

    def _set_baseline(self, e: Estimate) -> None:
        """Slot A was pinned: ``e`` is the baseline of the "what changed" view."""
        self.baseline = e
        self.waterfall.update(self.baseline, self.estimate, draw=False)
        self._render("waterfall")

    def _on_recipe(self) -> None:
        with errors_to_viewer(self._report_error):
            self.apply_savings_recipe()

    def apply_savings_recipe(self) -> bool:
        """Apply :func:`~explorer.analysis.savings_recipe` to the current scenario.

        The recipe's last scenario becomes the current one, the one before is
        pinned as the baseline (slot A), and the "what changed" view shows the
        change by lever with each lever's saving against the article's claim
        (:func:`~explorer.analysis.recipe_verdicts`).

        Returns
        -------
        bool
            False when nothing applies or the result cannot be shown (the scenario stays).
        """
        before = self.estimate
        steps = savings_recipe(before.scenario)
        if len(steps) < 2 or not self.set_scenario(steps[-1][1]):
            self.analysis.what_changed.show_recipe(None)
            return False
        self.analysis.what_changed.show_recipe(recipe_verdicts(before.scenario), steps, before.total_usd)
        self.analysis.pin("A", before)
        return True

    # ------------------------------------------------------------------ rendering
    def _tab_key(self) -> str:
        """Key of the tab in view (:data:`TAB_KEYS`)."""
        index = self.tabs.selected_index
        return TAB_KEYS[index] if index is not None and 0 <= index < len(TAB_KEYS) else ""

    @property
    def history_fig(self) -> Figure:
        """The History chart's figure shown (it changes with the language; see :class:`HistoryPlot`).

        Reading it builds the chart if its tab was never shown (the app defers it: not on the first screen).
        """
        return self.history.ensure_built()

    def _render(self, *changed: str) -> None:
        """Render the visible chart now; render the others when their tab is opened.

        ``changed``: keys of :attr:`charts` whose artists moved. See :mod:`explorer.app.surface`.
        """
        for key in changed:
            self.charts[key].stale = True
        key = self._tab_key()
        by_lever = hasattr(self, "analysis") and self.analysis.what_changed.mode.value == "lever"  # waterfall tab shows levers
        for name, surface in self.charts.items():
            # a hidden chart defers the browser's draw requests
            surface.show(name == key and not (by_lever and name == "waterfall"))
        if key in self.charts:
            self.charts[key].render()
        if hasattr(self, "analysis"):
            self.analysis.render(self._tab_key())  # the analysis tabs' charts: shown and drawn, or left stale
        if hasattr(self, "whatif"):
            self.whatif.render(self._tab_key() == "whatif")
        if hasattr(self, "plan_view"):
            self.plan_view.render(self._tab_key() == "plan")
            self.models_view.render(self._tab_key() == "models")

    def all_charts(self) -> dict[str, ChartSurface]:
        """Every chart built so far, by key: the app's three, the analysis tabs' three, What if's and Plan's
        (those two once their tab was opened). Each is drawn only while on screen (see :mod:`explorer.app.surface`)."""
        return {**self.charts, **self.analysis.charts, **self.whatif.charts, **self.plan_view.charts}

    #: The tab a share link opens on: the last one shown other than Share (see :meth:`share_query`).
    _decision_tab = "breakdown"

    def _on_tab(self, _change: dict) -> None:
        with errors_to_viewer(self._report_error):
            if self._tab_key() not in ("share", ""):
                self._decision_tab = self._tab_key()
            self.html_tabs.stale.add("share")  # slots, names and budget change without a new estimate
            self._render()
            self.html_tabs.write(self._tab_key(), self.estimate, self.language)

    def set_scenario(self, scenario: Scenario, *, keep_preset: bool = False) -> bool:
        """Move every control to ``scenario`` and show its result: the documented way to drive the app.

        Parameters
        ----------
        scenario : Scenario
            The scenario to show.
        keep_preset : bool
            Keep the preset dropdown as it is (default: back to "(custom)").

        Returns
        -------
        bool
            False when the scenario cannot be shown (say, a deadline no cluster meets): the
            message is shown, and the controls go back to the last good scenario.

        Examples
        --------
        >>> from explorer import Scenario
        >>> from explorer.app import ExplorerApp
        >>> app = ExplorerApp(query_string="")
        >>> app.set_scenario(Scenario(params=70e9, gpus=512))
        True
        >>> app.controls["params"].value, app.estimate.gpus
        (70000000000.0, 512)
        """
        if not isinstance(scenario, Scenario):
            raise TypeError(f"set_scenario takes a Scenario, not {type(scenario).__name__}")
        with self._mute():
            if not keep_preset:
                self.controls["preset"].value = ""
        self.rows["precision"].set_note("")
        self.panel.write(scenario)
        self.panel.sync_visibility()
        ok = self.refresh(scenario)
        if not ok:
            error = self.banner.value
            self.panel.write(self.scenario)
            self.panel.sync_visibility()
            self.banner.value = error
        return ok

    def _ipython_display_(self) -> None:  # pragma: no cover - display hook in notebooks
        from IPython.display import display

        display(self.widget)
