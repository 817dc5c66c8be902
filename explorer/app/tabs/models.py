"""The Models tab: every published run and Epoch frontier model, searchable and sortable, one click to load.

The table is :func:`explorer.analysis.runs.models_table`: each run's disclosed facts beside the model's replay
of it (GPU-hours and their error) and each cost method. A search box filters by model, organization or
hardware; a dropdown and a toggle sort. The rows are drawn in the page by :class:`ModelsTable`, a small
anywidget whose "Load" button in each row sends the row's id back; the kernel loads the row's replay scenario
into the app, or says beside the table what the row lacks. Every cell is text (``textContent``), never HTML.

The tab holds an empty box until it is first opened: the table (about 100 estimates) and its widgets are built
then, not with the page.
"""

from __future__ import annotations

import html
import functools
import math
import re
from typing import Any, Callable

import anywidget
import ipywidgets as w
import pandas as pd
import traitlets

from explorer import catalog
from explorer.analysis.runs import models_table, run_scenario
from explorer.model import estimate
from explorer.app.shared import (AUTO_WIDTH, CHECKBOX_STYLE, DESCRIPTION_STYLE, FLEX_INPUT, INPUT_STYLE, PLAIN,
                                 TOGGLE_STYLE, WRAP_ROW,
                                 html as shared_html)
from explorer.errors import ScenarioError
from explorer.app.tabs.lazy_tab import LazyTab
from explorer.scenario import Scenario
from explorer.text import label, money_in, power_of_ten, quantity_in, readable_number
from explorer.messages import Message

__all__ = ["ModelsView", "ModelsTable", "SORT_COLUMNS", "DEFAULT_SORT", "evidence_rank", "COLUMNS", "KEY_COLUMNS", "filter_sort", "developer_prices",
           "with_cost_ratio"]

#: Columns shown, in order: (column of models_table, label key). The key columns lead (what the tab is for: the
#: replay beside what was reported, in GPU-hours and in dollars); the rest show with "All columns" (issue 41: the
#: table was 1,464 px wide in an 880 px box and its error column started past the box's edge).
KEY_COLUMNS = (("model", "models_col_model"), ("source", "models_col_source"),
               ("reported_gpu_hours", "models_col_reported_hours"), ("replay_gpu_hours", "models_col_replay_hours"),
               ("gpu_hours_error", "models_col_error"), ("reported_cost_usd", "models_col_reported_cost"),
               ("replay_run_usd", "models_col_replay_cost"), ("cost_ratio", "models_col_cost_ratio"))
COLUMNS = KEY_COLUMNS + (
    ("date", "models_col_date"), ("organization", "models_col_org"), ("params", "models_col_params"),
    ("tokens", "models_col_tokens"), ("compute_flop", "models_col_compute"), ("hardware", "models_col_hardware"),
    ("gpus", "models_col_gpus"), ("epoch_cloud_usd", "models_col_epoch_cloud"),
    ("epoch_acquisition_usd", "models_col_epoch_acquisition"), ("epoch_amortized_usd", "models_col_epoch_amortized"))
#: A published cost resting on the developer's own price per GPU-hour: ``$2/H800-GPU-hour`` in the
#: ``cost_basis`` column of published_runs.csv (DeepSeek-V3; MPT-7B's MosaicML price).
_DEVELOPER_PRICE = re.compile(r"\$(\d+(?:\.\d+)?)/([A-Za-z0-9-]*?)-?(?:GPU-)?hour")
#: The default order, "evidence": the rows the tab is for first (issue 41: sorted by date, the newest Epoch
#: frontier models, with nothing reported nor replayed, filled the first screen). Rank 0: the GPU-hours replay error
#: is known (reported GPU-hours and a replay); 1: a reported cost and a replay (the cost ratio); 2: a replay or
#: a reported figure; 3: neither. Within a rank the newest first. Descending gives this order, ascending its reverse.
DEFAULT_SORT = "evidence"
#: Columns the table sorts by (``evidence``: :data:`DEFAULT_SORT`).
SORT_COLUMNS = ("evidence", "date", "model", "params", "tokens", "compute_flop", "gpu_hours_error", "reported_cost_usd",
                "epoch_cloud_usd", "replay_run_usd", "cost_ratio")

_ESM = """
function render({ model, el }) {
  el.classList.add('explorer-compare', 'explorer-models-table');
  function draw() {
    const columns = model.get('columns'), rows = model.get('rows'), load = model.get('load_label');
    const WORDS = model.get('words');  // columns of words (model, organization, hardware): left-aligned, wrapped
    const table = document.createElement('table');
    const head = table.insertRow();
    ['', ...columns].forEach((text, i) => {  // a column of words has its title on the left, as its cells
      const th = document.createElement('th'); th.textContent = text; head.appendChild(th);
      if (WORDS.includes(i - 1)) { th.style.textAlign = 'left'; }
    });
    for (const row of rows) {
      const tr = table.insertRow();
      tr.dataset.id = row.id;
      const first = tr.insertCell();
      const button = document.createElement('button');
      button.textContent = load;
      button.className = 'explorer-models-load';
      if (row.missing) { button.disabled = true; button.title = row.missing; }
      button.addEventListener('click', () => {
        model.set('picked', [row.id, Date.now()]);
        model.save_changes();
      });
      first.appendChild(button);
      row.cells.forEach((text, i) => {
        const td = tr.insertCell(); td.textContent = text;
        if (WORDS.includes(i)) {  // names wrap (an organization list can be long); numbers stay on one line
          td.style.textAlign = 'left'; td.style.whiteSpace = 'normal'; td.style.minWidth = '80px';
          td.style.maxWidth = '180px';
        }
        if (i === 0) { td.style.fontWeight = '600'; }
      });
    }
    el.replaceChildren(table);
    // the model column stays in view beside the buttons while the rest scrolls (CSS: position sticky)
    const first = table.rows.length > 1 ? table.rows[1].cells[0] : null;
    if (first) { el.style.setProperty('--explorer-load-width', first.offsetWidth + 'px'); }
  }
  model.on('change:rows', draw);
  model.on('change:columns', draw);
  model.on('change:words', draw);
  draw();
}
export default { render };
"""


class ModelsTable(anywidget.AnyWidget):
    """The rows of the Models tab, drawn in the page, each with a "Load" button.

    Attributes
    ----------
    columns : list of str
        Column titles (the first column, the buttons, has none).
    rows : list of dict
        ``{"id", "cells" (texts), "missing" (why the row cannot load; "" when it can)}``.
    load_label : str
        The buttons' text.
    picked : object
        Set by the page when a button is clicked: ``[row id, time]``; checked by the observer, never trusted.
    """

    _esm = traitlets.Unicode(_ESM).tag(sync=True)
    columns = traitlets.List(traitlets.Unicode()).tag(sync=True)
    rows: traitlets.List[dict[str, Any]] = traitlets.List().tag(sync=True)
    load_label = traitlets.Unicode("Load").tag(sync=True)
    words = traitlets.List(traitlets.Int()).tag(sync=True)
    picked = traitlets.Any(None).tag(sync=True)


@functools.cache
def developer_prices() -> dict[str, tuple[float, str]]:
    """Rows whose published cost rests on the developer's own price: ``{row id: (price [USD/GPU-hour], basis)}``.

    Read from the ``cost_basis`` column of published_runs.csv (its source is the run's paper or blog):
    DeepSeek-V3's $5.576M is 2.788M H800-hours at "$2/H800-GPU-hour (developer assumption)".
    """
    out = {}
    for row in catalog.published_runs():
        match = _DEVELOPER_PRICE.search(row.get("cost_basis") or "")
        if match and row.get("reported_cost_usd"):
            out["run:" + row["model"]] = (float(match.group(1)), row["cost_basis"])
    return out


@functools.cache
def _replay_at_developer_price() -> dict[str, float]:
    """The final-run cost of each row of :func:`developer_prices` replayed at that price [USD]."""
    out = {}
    for row_id, (price, _basis) in developer_prices().items():
        try:
            out[row_id] = estimate(run_scenario(row_id).replace(rate_usd_per_gpu_hour=price)).final_run_usd
        except ScenarioError:
            continue
    return out


def with_cost_ratio(table: pd.DataFrame, developer_price: bool = False) -> pd.DataFrame:
    """``table`` with ``cost_ratio`` = replayed / reported final-run cost (NaN where either is unknown).

    ``developer_price``: replay the rows whose published cost rests on the developer's own price per GPU-hour
    (:func:`developer_prices`) at that price instead of the catalog's.
    """
    table = table.copy()
    if developer_price:
        replays = _replay_at_developer_price()
        mask = table["id"].isin(list(replays))
        table.loc[mask, "replay_run_usd"] = table.loc[mask, "id"].map(replays)
    table["cost_ratio"] = table["replay_run_usd"] / table["reported_cost_usd"]
    return table


def filter_sort(table: pd.DataFrame, search: str, column: str, descending: bool) -> pd.DataFrame:
    """The rows of ``table`` whose model, organization or hardware contains ``search`` (any case), sorted by
    ``column`` (unknown values last)."""
    text = (search or "").strip().lower()[:80]
    if text:
        hay = (table["model"].fillna("") + " " + table["organization"].fillna("") + " "
               + table["hardware"].fillna("")).str.lower()
        table = table[hay.str.contains(text, regex=False)]
    column = column if column in SORT_COLUMNS and (column in table or column == DEFAULT_SORT) else DEFAULT_SORT
    if column == DEFAULT_SORT:
        keyed = table.assign(_rank=evidence_rank(table))
        order = keyed.sort_values(["_rank", "date"], ascending=[True, False] if descending else [False, True],
                                  kind="stable", na_position="last").index
        return table.loc[order]
    key = table[column].abs() if column == "gpu_hours_error" else table[column]
    order = key.sort_values(ascending=not descending, kind="stable", na_position="last").index
    return table.loc[order]


def evidence_rank(table: pd.DataFrame) -> pd.Series:
    """Each row's rank of :data:`DEFAULT_SORT`: 0 replay error known, 1 reported cost and a replay, 2 a replay or
    a reported figure, 3 nothing to compare."""
    def known(column: str) -> pd.Series:
        return table[column].apply(lambda v: isinstance(v, (int, float)) and math.isfinite(v))

    replay = known("replay_gpu_hours") | known("replay_run_usd")
    reported = known("reported_gpu_hours") | known("reported_cost_usd")
    rank = pd.Series(3, index=table.index)
    rank[replay | reported] = 2
    rank[replay & known("reported_cost_usd")] = 1
    rank[known("gpu_hours_error")] = 0
    return rank


def _cell(column: str, value, row: pd.Series, lang: str, currency: tuple[str, float] = ("USD", 1.0)) -> str:
    if column in ("model", "organization", "date", "hardware"):
        return "" if not isinstance(value, str) else value
    if column == "source":
        return label(f"models_source_{value}", lang)
    if not isinstance(value, (int, float)) or not math.isfinite(value):
        return "—"
    if column == "gpu_hours_error":
        return f"{value * 100:+.0f}%"
    if column == "cost_ratio":
        return f"{value:.2f}×"
    if column.endswith("_usd"):  # in the page's currency, as every amount of the page (issue 41)
        return money_in(value * currency[1], currency[0], lang, symbol=True)
    if column == "compute_flop":
        return power_of_ten(value, 2)
    if column == "tokens":
        text = quantity_in(value, lang) if lang == "zh" else readable_number(float(f"{value:.3g}"))
        return ("≈" + text) if row["tokens_derived"] else text
    if column in ("params",):
        return quantity_in(value, lang) if lang == "zh" else readable_number(float(f"{value:.3g}"))
    if column in ("reported_gpu_hours", "replay_gpu_hours"):
        return quantity_in(value, lang)
    return f"{int(value):,}"


class ModelsView(LazyTab):
    """The Models tab: search, sort, the table, and the message of the last load.

    Parameters
    ----------
    language : {"en", "zh"}
    on_load : callable
        Called with a row's replay :class:`~explorer.scenario.Scenario`; returns True when the app shows it.
    on_error : callable
        Called with a message when something fails (shown by the app, never a traceback).
    """

    def __init__(self, language: str = "en", *, on_load: Callable[[Scenario], object],
                 on_error: Callable[[Message], object] = lambda m: None):
        super().__init__(language, on_error=on_error, css_class="explorer-models")
        self.on_load = on_load
        self.currency: tuple[str, float] = ("USD", 1.0)  # the page's (ISO code, units per US dollar)

    def set_currency(self, code: str, usd_to_currency: float) -> None:
        """Show the amounts in the page's currency ``code`` at ``usd_to_currency`` of it per US dollar."""
        if (code, usd_to_currency) == self.currency:
            return
        self.currency = (code, usd_to_currency)
        if self.built:
            self.show()

    def _build(self) -> None:
        self.table_data = models_table()
        self.intro = shared_html()
        self.search = w.Text(value="", continuous_update=False, layout=FLEX_INPUT, style=INPUT_STYLE)
        self.search.add_class("explorer-models-search")
        self.sort = w.Dropdown(options=list(SORT_COLUMNS), value=DEFAULT_SORT, layout=AUTO_WIDTH, style=DESCRIPTION_STYLE)
        self.order = w.ToggleButtons(options=[("↓", True), ("↑", False)], value=True, style=TOGGLE_STYLE,
                                     layout=PLAIN)
        self.count = shared_html()
        # the rest of the columns on demand; the developers' own prices for a replay at them
        self.all_columns = w.Checkbox(value=False, indent=False, layout=AUTO_WIDTH, style=CHECKBOX_STYLE)
        self.all_columns.add_class("explorer-models-all")
        self.developer_price = w.Checkbox(value=False, indent=False, layout=AUTO_WIDTH, style=CHECKBOX_STYLE)
        self.developer_price.add_class("explorer-models-devprice")
        self.price_note = shared_html()
        self.price_note.add_class("explorer-models-price-note")
        self.message = shared_html()
        self.message.add_class("explorer-models-message")
        self.table = ModelsTable(layout=PLAIN)
        self.table.observe(lambda c: self._safely(self._on_picked, c["new"]), names="picked")
        for box in (self.search, self.sort, self.order, self.all_columns, self.developer_price):
            box.observe(lambda _c: self._safely(self.show), names="value")
        row = w.HBox([self.search, self.sort, self.order, self.count], layout=WRAP_ROW)
        toggles = w.HBox([self.all_columns, self.developer_price], layout=WRAP_ROW)
        self.widget.children = [self.intro, row, toggles, self.price_note, self.message, self.table]
        self.set_language(self.language)

    def set_language(self, language: str) -> None:
        """Relabel the tab in ``language`` (``"en"`` or ``"zh"``)."""
        self.language = lang = language
        if not self.built:
            return
        self._muted = True
        try:
            self.intro.value = f'<div class="explorer-note">{html.escape(label("models_intro", lang))}</div>'
            self.search.description = label("models_search", lang)
            self.search.placeholder = label("models_search_placeholder", lang)
            self.sort.description = label("models_sort", lang)
            self.sort.options = [(label(dict(COLUMNS).get(c, f"models_sort_{c}"), lang), c) for c in SORT_COLUMNS]
            self.order.options = [(label("models_descending", lang), True), (label("models_ascending", lang), False)]
        finally:
            self._muted = False
        self.all_columns.description = label("models_all_columns", lang)
        self.developer_price.description = label("models_developer_price", lang)
        self.table.load_label = label("models_load", lang)
        self.show()

    def shown_rows(self) -> pd.DataFrame:
        """The rows on screen, filtered and sorted as the boxes say."""
        table = with_cost_ratio(self.table_data, bool(self.developer_price.value))
        return filter_sort(table, self.search.value, self.sort.value, bool(self.order.value))

    def columns(self) -> tuple[tuple[str, str], ...]:
        """The columns on screen: the key ones, or all with "All columns"."""
        return COLUMNS if self.all_columns.value else KEY_COLUMNS

    def show(self) -> None:
        """Send the rows for the search and sort to the page."""
        lang = self.language
        rows = self.shown_rows()
        columns = self.columns()
        self.table.columns = [label(key, lang) for _, key in columns]
        self.table.words = [i for i, (c, _k) in enumerate(columns) if c in ("model", "organization", "hardware")]
        self.table.rows = [{"id": r["id"], "cells": [_cell(c, r[c], r, lang, self.currency) for c, _ in columns],
                            "missing": self._missing_text(r["missing"])} for _, r in rows.iterrows()]
        self.price_note.value = self._price_note()
        self.count.value = (f'<span class="explorer-note">'
                            f'{html.escape(label("models_count", lang).format(n=len(rows), total=len(self.table_data)))}'
                            "</span>")

    def _price_note(self) -> str:
        """Which published costs rest on the developer's own price, and at what price the replay is."""
        lang = self.language
        notes = []
        for row_id, (price, _basis) in developer_prices().items():
            model = row_id.split(":", 1)[1]
            key = "models_note_developer_price_on" if self.developer_price.value else "models_note_developer_price"
            cur, fx = self.currency
            notes.append(label(key, lang).format(model=model, price=money_in(price * fx, cur, lang, digits=3)))
        return "".join(f'<div class="explorer-note">{html.escape(n)}</div>' for n in notes)

    def _missing_text(self, missing: str) -> str:
        if not missing:
            return ""
        names = [label(f"models_missing_{m.strip()}", self.language) for m in missing.split(",")]
        return label("models_cannot_load", self.language).format(fields=", ".join(names))

    def _on_picked(self, picked) -> None:
        """A "Load" click from the page: ``[row id, time]`` (anything else is ignored)."""
        if isinstance(picked, (list, tuple)) and picked and isinstance(picked[0], str):
            self.load(picked[0][:200])

    def load(self, row_id: str) -> bool:
        """Load row ``row_id``'s replay into the app (what its "Load" button does); False, with the reason
        beside the table, when the row cannot be loaded."""
        lang = self.language
        known = self.table_data[self.table_data["id"] == row_id]
        if known.empty:
            return False
        row = known.iloc[0]
        try:
            scenario = run_scenario(row_id)
        except ScenarioError:
            self.message.value = (f'<div class="explorer-message">{html.escape(row["model"])}: '
                                  f'{html.escape(self._missing_text(row["missing"]))}</div>')
            return False
        ok = bool(self.on_load(scenario))
        self.message.value = (f'<div class="explorer-note">{html.escape(label("models_loaded", lang).format(model=row["model"]))}</div>'
                              if ok else "")
        return ok
