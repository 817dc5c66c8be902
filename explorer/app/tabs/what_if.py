"""The what-if grid (issue 17): two or three levers, every combination, one table, a heat-map, a CSV.

The viewer picks up to three levers (pricing, precision, region, accelerator,
...) and the values of each; :func:`explorer.analysis.what_if` computes every
combination in one vectorized call. The table is sorted by the column the
viewer picks; the heat-map shows the whole-project total for the first two
levers, one panel per value of the third (small multiples).
"""

from __future__ import annotations

import html
import math
import asyncio
from typing import Any, Callable

import ipywidgets as w
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from explorer import catalog
from explorer.analysis import WHAT_IF_LEVERS, what_if
from explorer.app import export
from explorer.app.bindings import SELLERS, seller_options
from explorer.app.guard import errors_to_viewer
from explorer.app.ipympl_private import canvas_of
from explorer.app.pages.analysis_html import field_value_text
from explorer.app.tabs.lazy_tab import LazyTab
from explorer.app.shared import (AUTO_WIDTH, BUTTON_STYLE, DESCRIPTION_STYLE, FLEX_INPUT, html as shared_html,
                                 shared)
from explorer.app.surface import ChartSurface
from explorer.app.pages.estimate_html import translate
from explorer.model import Estimate
from explorer.plots.fonts import text_kwargs
from explorer.scenario import ARCHITECTURES, FACILITIES, PRICING_MODES, RECOVERY_MODES, TRAINING_KINDS, Scenario
from explorer.text import breakeven_text, count_in, label, money_in
from explorer.messages import Message

__all__ = ["WhatIfView", "lever_values", "SORT_KEYS", "MAX_LEVERS", "MAX_GRID_ROWS", "COALESCE_SECONDS"]

MAX_LEVERS = 3
#: The largest grid the app computes [rows]. Its cost sets what one What-if message may cost: at 200 rows
#: the grid, its table rows and the heat-map cost 1.7 CPU-s (median, 1.9 max) on the reference machine (2 cores
#: shared, ``python benchmarks/run.py --only whatif_message``), against 2-8 CPU-s for the 972 rows a page could
#: ask for before (pricing 6 x precision 6 x region 27). The rule: the largest grid whose message stays under
#: 2 CPU-s, the cost of a first render of the app (docs/deploy.md). A larger pick is refused with a message beside the pickers. The analysis API
#: (explorer.analysis.what_if) keeps its own, larger limit for scripts.
MAX_GRID_ROWS = 200
#: Requests that arrive within this many seconds of the first are answered once, by the latest [s]: a burst
#: of 40 sort changes costs one table, not 40. After a grid that cost c CPU-s the next grid waits at least c,
#: so a stream of grid requests keeps at most half a core busy (a sort costs milliseconds and waits only this).
COALESCE_SECONDS = 0.25
#: Columns the table can be sorted by (ascending: cheapest, fastest, cleanest first).
SORT_KEYS = ("total_usd", "final_run_usd", "days", "co2_tonnes", "usd_per_1m_tokens")
_SORT_LABEL = {"total_usd": "kpi_total_project", "final_run_usd": "kpi_total_run", "days": "kpi_days",
               "co2_tonnes": "kpi_co2", "usd_per_1m_tokens": "kpi_per_token"}
#: The question of issue 17: on-demand vs spot vs owned, FP8 vs BF16, a cheap Chinese region vs the US average.
DEFAULT = (("pricing", ("on_demand", "spot", "owned")), ("precision", ("bf16", "fp8")),
           ("region", ("cn-ningxia", "us-avg")))
_VALUES_LAYOUT = FLEX_INPUT
_LEVER_LAYOUT = shared(w.Layout, width="auto", flex="0 1 190px")
_ROW_LAYOUT = shared(w.Layout, flex_flow="row wrap", align_items="flex-start", grid_gap="4px 8px", width="100%")


def lever_values(lever: str) -> tuple[str, ...]:
    """The values a lever can take."""
    return {"pricing": PRICING_MODES, "precision": tuple(catalog.PRECISIONS),
            "region": tuple(catalog.regions()), "gpu": tuple(catalog.accelerators()),
            "architecture": ARCHITECTURES, "facility": FACILITIES, "recovery": RECOVERY_MODES,
            "training_kind": TRAINING_KINDS}[lever]


def _value_text(lever: str, value: str, language: str) -> str:
    if lever == "architecture":
        return label(f"arch_{value}", language)
    if lever == "precision":
        return value.upper()
    return field_value_text(lever, value, language)


class WhatIfView(LazyTab):
    """The What-if tab: lever pickers, the sorted table with its CSV link, and the heat-map (its chart, ``whatif``).

    Parameters
    ----------
    make_figure : callable
        ``make_figure(width_in, height_in)`` -> a Figure on a widget canvas.
    language : {"en", "zh"}
    on_error : callable
        Called with a message when something fails (shown by the app, never a traceback).
    """

    key = "whatif"

    def __init__(self, make_figure: Callable[[float, float], Figure], language: str = "en", *,
                 on_error: Callable[[Message], object] = lambda m: None,
                 event_loop: Callable[[], asyncio.AbstractEventLoop | None] = lambda: None):
        super().__init__(language, on_error=on_error, css_class="explorer-whatif")
        self.make_figure = make_figure
        #: the running kernel's event loop, or None (headless: every request is answered at once)
        self.event_loop = event_loop
        self.estimate: Estimate | None = None
        self.table: pd.DataFrame | None = None
        # (scenario, levers picked) of self.table: a sort reuses the grid
        self._grid_key: tuple[Scenario, tuple[tuple[str, tuple], ...]] | None = None
        self._rows: tuple | None = None  # (language, {table index: row HTML}) of self.table
        self._pending: str | None = None  # "sort" or "grid": a request waiting to be answered (coalesced)
        self._not_before = 0.0  # monotonic time before which no answer starts (half a core at most)
        #: what the last answer cost [CPU-s] and which kind it was (benchmarks/bench_whatif.py reads it)
        self.last_cost = (0.0, "")
        # ((lever, values) ..., sort) from a share link, applied when the tab is built
        self._linked: tuple[tuple[tuple[str, tuple[str, ...]], ...], str] | None = None
        self._linked_seller = ""  # the provider a share link picked ("": as in the scenario)
        # The tab holds an empty box until it is first opened: a page that never opens it builds no model of it
        # (tests/app/test_app_levers.py counts them).


    def _build(self) -> None:
        """Make the pickers, the table and the heat-map (the first time the tab is shown)."""
        self.levers = [w.Dropdown(layout=_LEVER_LAYOUT, style=DESCRIPTION_STYLE) for _ in range(MAX_LEVERS)]
        self.values = [w.SelectMultiple(rows=4, layout=_VALUES_LAYOUT, style=DESCRIPTION_STYLE)
                       for _ in range(MAX_LEVERS)]
        start = self._linked[0] if self._linked is not None else DEFAULT
        for i in range(MAX_LEVERS):
            lever, picked = start[i] if i < len(start) else ("", ())
            self.levers[i].options = [("-", ""), *((lv, lv) for lv in WHAT_IF_LEVERS)]
            self.levers[i].value = lever
            self.values[i].options = [(v, v) for v in lever_values(lever)] if lever else []
            self.values[i].value = tuple(picked)
        sort = self._linked[1] if self._linked is not None else "total_usd"
        self.sort = w.Dropdown(options=list(SORT_KEYS), value=sort, layout=_LEVER_LAYOUT, style=DESCRIPTION_STYLE)
        for i, box in enumerate(self.levers):
            box.observe(lambda _c, i=i: self._safely(self._on_lever, i), names="value")
        for box in self.values:
            box.observe(lambda _c: self._safely(self._changed), names="value")
        self.sort.observe(lambda _c: self._safely(self._request, "sort"), names="value")
        # one provider's own prices for every row, or the scenario's seller (as the Plan tab's seller)
        self.seller = w.Dropdown(options=[("", "")], value="", layout=_LEVER_LAYOUT, style=DESCRIPTION_STYLE)
        self.seller.add_class("explorer-whatif-seller")
        self.seller.observe(lambda _c: self._safely(self._changed), names="value")
        self.intro = shared_html()
        self.message = shared_html()
        self.table_html = shared_html()
        # the CSV is written when asked for, not with every table (a 972-row grid was 150 kB per sort)
        self.csv_button = w.Button(layout=AUTO_WIDTH, style=BUTTON_STYLE)  # shared models (explorer.app.shared)
        self.csv_button.add_class("explorer-whatif-csv")
        self.csv_button.on_click(lambda _b: self._safely(self._write_csv))
        self.csv_link = shared_html()
        self.figure = self.make_figure(9.0, 3.7)
        canvas_of(self.figure).add_class("explorer-chart")
        canvas_of(self.figure).add_class("explorer-whatif-chart")
        #: the heat-map; its redraw computes the grid and writes the table too (all of the tab's out-of-date work)
        self.charts[self.key] = ChartSurface.of(self.figure, self._refresh)
        pickers = [x for pair in zip(self.levers, self.values) for x in pair]
        self.widget.children = [self.intro, w.HBox([*pickers, self.sort, self.seller], layout=_ROW_LAYOUT), self.message,
                                self.table_html, w.HBox([self.csv_button, self.csv_link], layout=_ROW_LAYOUT),
                                self.figure.canvas]
        self.set_language(self.language)

    # ------------------------------------------------------------------ entry points (widget callbacks)
    def _on_lever(self, i: int) -> None:
        lever = self.levers[i].value
        self._muted = True
        try:
            if lever and lever in WHAT_IF_LEVERS:
                current = getattr(self.estimate.scenario, lever) if self.estimate is not None else None
                self.values[i].options = [(_value_text(lever, v, self.language), v) for v in lever_values(lever)]
                self.values[i].value = (current,) if current in lever_values(lever) else ()
            else:
                self.values[i].options = []
        finally:
            self._muted = False
        self._changed()

    def _changed(self) -> None:
        self._request("grid")

    def _request(self, kind: str) -> None:
        """A viewer's change: ``"sort"`` reorders the rows already computed, ``"grid"`` computes the grid again.

        In a running kernel requests are coalesced (:data:`COALESCE_SECONDS`): the ones that arrive before the
        answer are answered once, with the latest pickers, so stale requests queued behind a newer one are
        dropped. Headless (tests, scripts) the answer comes at once.
        """
        self._pending = "grid" if "grid" in (kind, self._pending) else "sort"
        loop = self.event_loop()
        if loop is None:
            self._answer()
            return
        if self._scheduled:
            return
        self._scheduled = True
        import time

        # a sort (milliseconds) never waits behind a grid's back-off; a grid does
        delay = COALESCE_SECONDS if self._pending == "sort" else max(COALESCE_SECONDS, self._not_before - time.monotonic())
        loop.call_later(delay, lambda: self._safely_answer())

    _scheduled = False

    def _safely_answer(self) -> None:
        self._scheduled = False
        with errors_to_viewer(self.on_error):
            self._answer()

    def _answer(self) -> None:
        import time

        kind, self._pending = self._pending, None
        if kind is None:
            return
        start = time.process_time()
        if kind == "grid":
            self.stale = True
            self.render(True)
        else:
            self._show_sorted()
        cost = time.process_time() - start
        self.last_cost = (cost, kind)
        if kind == "grid":  # the next grid waits as long as this one computed: half a core at most
            self._not_before = time.monotonic() + cost

    # ------------------------------------------------------------------ app side
    def set_language(self, language: str) -> None:
        """Relabel the lever and value boxes in ``language`` (``"en"`` or ``"zh"``) without firing a change."""
        self.language = lang = language
        self.stale = True
        if not self.built:
            return
        self._muted = True
        try:
            for i, box in enumerate(self.levers):
                lever = box.value
                box.options = [("—", ""), *((label(lv, lang).split(" [")[0], lv) for lv in WHAT_IF_LEVERS)]
                box.value = lever
                if lever:
                    picked = self.values[i].value
                    self.values[i].options = [(_value_text(lever, v, lang), v) for v in lever_values(lever)]
                    self.values[i].value = picked
            sort = self.sort.value  # new options reset the value: keep the viewer's (or the link's) sort
            self.sort.options = [(label(_SORT_LABEL[k], lang), k) for k in SORT_KEYS]
            self.sort.value = sort
            self.csv_button.description = label("whatif_prepare_csv", lang)
            self.csv_link.value = ""
            self.seller.description = label("seller", lang)
        finally:
            self._muted = False
        self._seller_options()
        self.intro.value = (f'<div class="explorer-note">{html.escape(label("whatif_intro", lang))}</div>'
                            # the value lists take several picks: say how (issue 27: Ctrl-click, with no hint)
                            f'<div class="explorer-note explorer-whatif-hint">'
                            f'{html.escape(label("whatif_multi_hint", lang))}</div>')

    def update(self, e: Estimate) -> None:
        """A new current scenario: the grid starts from it (computed when the tab is shown)."""
        gpu_changed = self.estimate is None or self.estimate.scenario.gpu != e.scenario.gpu
        self.estimate = e
        self.stale = True
        if self.built and gpu_changed:
            self._seller_options()

    def _seller_options(self) -> None:
        """The sellers of the scenario's accelerator after "as in the scenario"; a provider that does not price a
        new accelerator goes back to "as in the scenario"."""
        if not self.built:
            return
        gpu = self.estimate.scenario.gpu if self.estimate is not None else None
        keep = self.seller.value or self._linked_seller
        options = [(label("plan_as_scenario", self.language), "")] + seller_options(self.language, gpu)
        with self.muted():
            self.seller.options = options
            self.seller.value = keep if keep in {v for _, v in options} else ""
        self._linked_seller = ""

    def base(self) -> Scenario | None:
        """The scenario every row of the grid starts from: the app's, with the tab's provider when one is picked
        (its own prices of each accelerator, not a typed rate)."""
        if self.estimate is None:
            return None
        return self._base_of(self.estimate)

    def _base_of(self, e: Estimate) -> Scenario:
        """:meth:`base` for the result ``e``."""
        s = e.scenario
        if self.built and self.seller.value:
            return s.replace(seller=self.seller.value, rate_usd_per_gpu_hour=None)
        return s

    # ------------------------------------------------------------------ the picks in a link
    def decision_items(self) -> dict[str, str]:
        """The pickers and sort as share-link keys: ``whatif=pricing:on_demand,spot;precision:bf16,fp8`` and
        ``whatif_sort`` (when not the total); nothing while the tab was never opened (the defaults)."""
        if not self.built:
            return {}
        items = {"whatif": ";".join(f"{lever}:{','.join(values)}" for lever, values in self.levers_picked().items())
                 or "none"}
        if self.sort.value != "total_usd":
            items["whatif_sort"] = self.sort.value
        if self.seller.value:
            items["whatif_seller"] = self.seller.value
        return items

    def apply_decision(self, extras: dict[str, str]) -> None:
        """Restore what :meth:`decision_items` wrote; unknown levers, values and sorts are left out (a link
        comes from anyone)."""
        text, sort = extras.get("whatif"), extras.get("whatif_sort", "total_usd")
        seller = extras.get("whatif_seller", "")
        self._linked_seller = seller if seller in SELLERS else ""
        if self.built and self._linked_seller:
            self._seller_options()
            self.stale = True
        if text is None and "whatif_sort" not in extras:
            return
        picks: list[tuple[str, tuple[str, ...]]] = []
        for part in (text or "").split(";")[:MAX_LEVERS * 2]:
            lever, _, values = part.partition(":")
            if lever in WHAT_IF_LEVERS and lever not in dict(picks):
                allowed = lever_values(lever)
                kept = tuple(dict.fromkeys(v for v in values.split(",") if v in allowed))
                if kept:
                    picks.append((lever, kept))
        picks = picks[:MAX_LEVERS] if text is not None else list(DEFAULT)
        self._linked = (tuple(picks), sort if sort in SORT_KEYS else "total_usd")
        if self.built:  # set the pickers as the link says; the grid follows when the tab is shown
            self._muted = True
            try:
                for i in range(MAX_LEVERS):
                    lever, picked = picks[i] if i < len(picks) else ("", ())
                    self.levers[i].value = lever
                    self.values[i].options = ([(_value_text(lever, v, self.language), v) for v in lever_values(lever)]
                                              if lever else [])
                    self.values[i].value = tuple(picked)
                self.sort.value = self._linked[1]
            finally:
                self._muted = False
            self.stale = True

    def levers_picked(self) -> dict[str, tuple]:
        """Lever -> values, for the pickers that name a lever and at least one value (a lever named twice: once)."""
        picked: dict[str, tuple] = {}
        for lever, values in zip(self.levers, self.values):
            if lever.value in WHAT_IF_LEVERS and values.value and lever.value not in picked:
                picked[lever.value] = tuple(values.value)
        return picked

    def _refresh(self) -> None:
        """Compute and show the grid (the tab is on screen and was out of date: see :class:`ChartSurface`)."""
        if self.estimate is None:
            return
        lang, e = self.language, self.estimate
        picked = self.levers_picked()
        if not picked:
            self.table = None
            self.message.value = f'<div class="explorer-message">{html.escape(label("whatif_pick", lang))}</div>'
            self.table_html.value = ""
            self._draw_heatmap(None, [])
            return
        rows = math.prod(len(v) for v in picked.values())
        if rows > MAX_GRID_ROWS:  # refused beside the pickers; the last good grid stays
            self.message.value = ('<div class="explorer-message">'
                                  + html.escape(label("whatif_too_many", lang).format(n=rows, limit=MAX_GRID_ROWS))
                                  + "</div>")
            return
        base = self._base_of(e)
        key = (base, tuple(picked.items()))
        if key != self._grid_key or self.table is None:
            self.table, self._grid_key, self._rows = what_if(base, picked), key, None
            self.csv_link.value = ""
            self._draw_heatmap(self.table, list(picked))
        elif self._rows is not None and self._rows[0] != lang:
            self._draw_heatmap(self.table, list(picked))  # the language changed: labels of the panels
        table = self.table
        warned = table.attrs.get("warnings", [])
        self.message.value = "".join(f'<div class="explorer-message">'
                                     f'{html.escape(translate(m, lang, (e.scenario.currency, e.usd_to_currency)))}</div>'
                                     for m in warned)
        self.table_html.value = self.table_page(table, list(picked), e, lang)

    # ------------------------------------------------------------------ views
    def _show_sorted(self) -> None:
        """Reorder the table's rows for the sort picked: no grid, no heat-map, no CSV (the rows are kept)."""
        if self.table is None or self.estimate is None or self._grid_key is None:
            return
        self.table_html.value = self.table_page(self.table, [lv for lv, _ in self._grid_key[1]], self.estimate,
                                                self.language)

    _COLS = (("total_usd", "kpi_total_project"), ("final_run_usd", "kpi_total_run"), ("days", "kpi_days"),
             ("gpus", "kpi_gpus"), ("co2_tonnes", "kpi_co2"), ("usd_per_1m_tokens", "kpi_per_token"),
             ("capex_usd", "owned_capex"), ("breakeven_months", "owned_breakeven"))

    def _row_cells(self, table: pd.DataFrame, levers: list[str], e: Estimate, lang: str) -> dict:
        """Each row's cells as HTML, by table index: written once per grid and language, reordered by a sort."""
        if self._rows is not None and self._rows[0] == lang and self.table is table:
            return self._rows[1]
        cur, fx = e.scenario.currency, e.usd_to_currency
        cols = self._COLS
        cells_by_index = {}
        for index, row in zip(table.index, table.to_dict("records")):
            cells = "".join(f"<td>{html.escape(_value_text(lv, row[lv], lang))}</td>" for lv in levers)
            if row["note"]:
                note = translate(row["note"], lang, (cur, fx))
                cells += f'<td colspan="{len(cols) + 1}" class="note">{html.escape(note)}</td>'
            else:
                cells += "".join(f"<td>{html.escape(self._cell(c, row[c], cur, fx, lang))}</td>" for c, _ in cols)
                cells += f"<td>{row['vs_start'] - 1:+.0%}</td>" if math.isfinite(row["vs_start"]) else "<td></td>"
            cells_by_index[index] = cells
        if self.table is table:
            self._rows = (lang, cells_by_index)
        return cells_by_index

    def table_page(self, table: pd.DataFrame, levers: list[str], e: Estimate, lang: str) -> str:
        """The grid as an HTML table sorted by :attr:`sort`, the best row first (the CSV is written on request)."""
        cur = e.scenario.currency
        key = self.sort.value
        ordered = table.sort_values(key, kind="stable", na_position="last").index
        head = "".join(f"<th>{html.escape(label(lv, lang).split(' [')[0])}</th>" for lv in levers)
        head += "".join(f'<th{" class=sorted" if c == key else ""}>{html.escape(label(k, lang))}'
                        f'{" ▲" if c == key else ""}</th>' for c, k in self._COLS)
        head += f"<th>{html.escape(label('whatif_vs_start', lang))}</th>"
        cells = self._row_cells(table, levers, e, lang)
        body = "".join(f'<tr class="{"best" if i == 0 else ""}">{cells[index]}</tr>' for i, index in enumerate(ordered))
        note = label("whatif_note", lang).format(n=len(table), currency=label(f"term:{cur}", lang))  # 元, 美元
        return (f'<div class="explorer-compare explorer-whatif-table"><table><tr>{head}</tr>{body}</table>'
                f'</div><div class="explorer-note">{html.escape(note)}</div>')

    def _write_csv(self) -> None:
        """The CSV of the grid shown, as a download link beside its button (what the button does)."""
        if self.table is None or self.estimate is None or self._grid_key is None:
            self.csv_link.value = ""
            return
        e, lang = self.estimate, self.language
        text = self.csv(self.table, [lv for lv, _ in self._grid_key[1]], e.scenario.currency, e.usd_to_currency,
                        base=self._grid_key[0])  # the grid's own start (its provider)
        self.csv_link.value = export.download_link(text, "text/csv", "what-if.csv", label("whatif_download", lang))

    @staticmethod
    def _cell(col: str, value: float, cur: str, fx: float, lang: str) -> str:
        if col in ("capex_usd", "breakeven_months") and math.isnan(value):
            return "–"  # a cloud row: nothing to buy
        if col == "breakeven_months":
            return breakeven_text(value, lang)
        if not math.isfinite(value):
            return label("unit_unknown", lang)
        if col.endswith("_usd") or col == "usd_per_1m_tokens":
            return money_in(value * fx, cur, lang, symbol=True)
        if col == "days":
            return f"{count_in(value, lang)} {label('unit_days', lang)}"
        if col == "gpus":
            return f"{int(value):,}"
        return f"{count_in(value, lang)} {label('unit_tco2', lang)}"

    @staticmethod
    def csv(table: pd.DataFrame, levers: list[str], currency: str, fx: float, base: Scenario | None = None) -> str:
        """The grid as plain-decimal CSV: lever columns (ids), amounts in ``currency``, quantities, note, and the
        base scenario every row starts from (``base_scenario``: its fields that differ from the defaults, as a
        share link's query string, ``default`` for none; :func:`explorer.app.link.scenario_from_query` reads it).

        Owned rows carry ``capex`` (the cluster's purchase up front, in ``currency``) and ``breakeven_months``
        against renting on demand (``inf``: never); cloud rows leave them blank.
        """
        import csv as _csv
        import io

        from explorer.app.link import query_from_scenario

        base_text = (query_from_scenario(base) or "default") if base is not None else ""

        out = io.StringIO()
        writer = _csv.writer(out, lineterminator="\n")
        amounts = ["total_usd", "final_run_usd", *(c for c in table.columns if c.endswith("_usd")
                                                    and c not in ("total_usd", "final_run_usd"))]
        quantities = ["days", "gpus", "gpu_hours", "energy_mwh", "co2_tonnes",
                      *(["breakeven_months"] if "breakeven_months" in table.columns else [])]
        writer.writerow([*levers, *(c[:-4] for c in amounts), "per_1m_tokens", *quantities, "vs_start",
                         "currency", "usd_to_currency", "note", "base_scenario"])
        for _, row in table.iterrows():
            def num(x, places=None):
                return export.plain_decimal(round(float(x), 6) if places is None else float(x), places) \
                    if math.isfinite(x) else ""
            writer.writerow([*(row[lv] for lv in levers), *(num(row[c] * fx, 2) for c in amounts),
                             num(row["usd_per_1m_tokens"] * fx, 4), *("inf" if math.isinf(row[q]) else num(row[q]) for q in quantities),
                             num(row["vs_start"]), currency, export.plain_decimal(fx), row["note"], base_text])
        return out.getvalue()

    def _draw_heatmap(self, table: pd.DataFrame | None, levers: list[str]) -> None:
        """Whole-project total: the lever with the most values as rows, the next as columns, one panel per value of
        the third (the one with the fewest values)."""
        fig, lang = self.figure, self.language
        kw = text_kwargs(lang)[0]
        fig.clear()
        e = self.estimate
        if table is None or not levers or e is None:  # e is set whenever a table is (see _refresh)
            fig.canvas.draw()
            return
        cur, fx = e.scenario.currency, e.usd_to_currency
        # the lever with the most values down the side, the fewest as panels (ties keep the viewer's order):
        # at most MAX_GRID_ROWS cells, in at most 5 panels (the cube root of 200), not 27 small ones
        counts = {lv: table[lv].nunique() for lv in levers}
        levers = sorted(levers, key=lambda lv: -counts[lv])
        rows_lv = levers[0]
        cols_lv = levers[1] if len(levers) > 1 else None
        panel_lv = levers[2] if len(levers) > 2 else None
        row_vals = list(dict.fromkeys(table[rows_lv]))
        # the levers' values as the table holds them; [None]: one column, or one panel
        col_vals: list[Any] = list(dict.fromkeys(table[cols_lv])) if cols_lv else [None]
        panel_vals: list[Any] = list(dict.fromkeys(table[panel_lv])) if panel_lv else [None]
        totals = table["total_usd"].to_numpy(dtype=float) * fx
        finite = totals[np.isfinite(totals)]
        lo, hi = (finite.min(), finite.max()) if finite.size else (0.0, 1.0)
        axes = fig.subplots(1, len(panel_vals), squeeze=False)[0]
        grids = {pv: np.full((len(row_vals), len(col_vals)), np.nan) for pv in panel_vals}
        row_at, col_at = {v: i for i, v in enumerate(row_vals)}, {v: j for j, v in enumerate(col_vals)}
        for r in table.to_dict("records"):  # one pass over the rows (was one per panel)
            grids[r[panel_lv] if panel_lv else None][row_at[r[rows_lv]], col_at[r[cols_lv]] if cols_lv else 0] = \
                r["total_usd"] * fx
        for k, (ax, pv) in enumerate(zip(axes, panel_vals)):
            grid = grids[pv]
            ax.imshow(grid, cmap="YlOrRd", vmin=lo, vmax=hi if hi > lo else lo + 1, aspect="auto")
            for i in range(len(row_vals)):
                for j in range(len(col_vals)):
                    v = grid[i, j]
                    text = money_in(v, cur, lang, symbol=True) if math.isfinite(v) else "—"
                    dark = math.isfinite(v) and hi > lo and (v - lo) / (hi - lo) > 0.6
                    ax.text(j, i, text, ha="center", va="center", fontsize=8.5,
                            color="white" if dark else "#1b2631", **kw)
            ax.set_yticks(range(len(row_vals)),
                          [_value_text(rows_lv, v, lang) for v in row_vals] if k == 0 else [], fontsize=8, **kw)
            ax.set_xticks(range(len(col_vals)),
                          [_value_text(cols_lv, v, lang) for v in col_vals] if cols_lv else [""], fontsize=8, **kw)
            if panel_lv:
                ax.set_title(_value_text(panel_lv, pv, lang), fontsize=9, **kw)
        fig.suptitle(label("whatif_chart_title", lang).format(currency=label(f"term:{cur}", lang)), fontsize=10, **kw)
        fig.canvas.draw()
