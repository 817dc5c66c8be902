"""The app's two HTML tabs, Assumptions and Share: written when shown and out of date, the Share tab's chart files
one per turn of the kernel's event loop.

The Assumptions tab holds the assumptions table and the glossary; the Share tab the share link and the downloads
(the scenario as JSON, the breakdown as CSV, and every chart as PNG or SVG, :func:`chart_files`), whose data URIs
hold the whole scenario and breakdown. :class:`HtmlTabs` writes a tab only when it is shown and out of date, so
nothing is sent to the page on every change or language switch while nobody looks at them. In a running kernel the
Share tab shows at once, with a loading sign, and its chart files follow one per turn of the event loop (each
0.1-0.6 CPU-s), so other messages are answered between them and a newer page stops the older one.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any, Callable, NamedTuple, Protocol

from matplotlib.figure import Figure

from explorer import catalog
from explorer.app import export
from explorer.app.guard import errors_to_viewer
from explorer.app.pages import estimate_html
from explorer.app.pages.analysis_html import scenario_line
from explorer.app.share_link import long_link_note_html
from explorer.messages import Message
from explorer.model import Estimate
from explorer.text import label

if TYPE_CHECKING:
    import ipywidgets as w

    from explorer.plots.history import HistoryPlot

__all__ = ["ChartFile", "chart_caption", "chart_files", "chart_links", "loading_html", "HtmlTabs"]


class ChartFile(NamedTuple):
    """One chart file the Share tab offers."""

    figure: Figure
    format: str  # "png" or "svg"
    filename: str  # "breakdown.png", ...
    caption: str  # the link's words ("Download Breakdown (PNG)")


class _ExportedCharts(Protocol):
    """The analysis views' charts as files (:meth:`explorer.app.tabs.analysis_views.AnalysisViews.figure_for_export`)."""

    def figure_for_export(self, key: str) -> Figure | None: ...


def chart_caption(e: Estimate, language: str, scope: str) -> str:
    """The scenario in words, written under a downloaded chart (the share link restores it whole).

    Parameters
    ----------
    e : Estimate
        The result shown.
    language : {"en", "zh"}
    scope : {"project", "run"}
        What the total shows.

    Returns
    -------
    str
        Plain text: the app's title, the scenario, its region and kind of training, and the summary.
    """
    region = estimate_html.region_name(catalog.regions()[e.scenario.region].name, language)
    return (f"{label('app_title', language)}: {scenario_line(e, language)} · {label('region', language)}: {region} · "
            f"{label(f'kind_{e.scenario.training_kind}', language)}. {estimate_html.summary_text(e, language, scope)}")


def chart_files(breakdown: Figure, waterfall: Figure, history: HistoryPlot, analysis: _ExportedCharts,
                language: str) -> list[ChartFile]:
    """Every chart file the Share tab offers, in its order.

    Breakdown (PNG, SVG), What changed (PNG), its By-lever view (PNG, SVG, when it has a finite end), History (PNG,
    in ``language`` even when its tab was not opened in it), Compare (PNG, once a slot is pinned) and Uncertainty (PNG).

    Parameters
    ----------
    breakdown, waterfall : matplotlib.figure.Figure
        The Breakdown and What changed charts' figures.
    history : explorer.plots.history.HistoryPlot
        The History chart (its kept figure in ``language``, or one built for the file).
    analysis : explorer.app.tabs.analysis_views.AnalysisViews
        The analysis views (By-lever, Compare and Uncertainty figures brought up to date for a file).
    language : {"en", "zh"}

    Returns
    -------
    list of ChartFile
    """
    charts = [(breakdown, "breakdown", ("png", "svg")), (waterfall, "what-changed", ("png",))]
    lever = analysis.figure_for_export("lever")  # the By-lever view of "what changed": a file of its own
    if lever is not None:
        charts.append((lever, "what-changed-by-lever", ("png", "svg")))
    charts.append((history.figure_for(language), "history", ("png",)))
    for key in ("compare", "uncertainty"):
        fig = analysis.figure_for_export(key)
        if fig is not None:
            charts.append((fig, key, ("png",)))
    titles = {"what-changed": "tab_waterfall", "what-changed-by-lever": "download_lever_chart"}
    return [ChartFile(fig, fmt, f"{name}.{fmt}", label("download_chart", language).format(
                chart=label(titles.get(name, f"tab_{name}"), language), format=fmt.upper()))
            for fig, name, formats in charts for fmt in formats]


def chart_links(files: list[ChartFile], caption: str, language: str) -> str:
    """Download links (HTML) for ``files``, each file captioned with ``caption`` (:func:`chart_caption`)."""
    return " &nbsp; ".join(export.figure_link(f.figure, f.format, f.filename, f.caption, caption, language)
                           for f in files)


def loading_html(language: str) -> str:
    """The loading sign shown while the Share tab's chart files are rendered (HTML)."""
    return (f'<span class="explorer-loading" role="status">⏳ {html.escape(label("share_preparing", language))}'
            "</span>")


class HtmlTabs:
    """The Assumptions and Share tabs' HTML, written when the tab is shown and out of date.

    Parameters
    ----------
    assumptions, glossary : ipywidgets.HTML
        The Assumptions tab's table and glossary.
    share, downloads : ipywidgets.HTML
        The Share tab's link and its downloads.
    share_query : callable
        ``share_query()``: the query string of the link to what the app shows (with ``?``).
    files : callable
        ``files()``: the chart files to offer (:func:`chart_files`), read when the Share tab is written.
    caption : callable
        ``caption()``: the words under each downloaded chart (:func:`chart_caption`).
    on_error : callable
        Shows an unexpected error of a chart file (a :class:`~explorer.messages.Message`) in the app's banner.
    event_loop : callable
        ``event_loop()``: the running kernel's event loop, or None headless (every file is then written at once).

    Attributes
    ----------
    stale : set of str
        The tabs to write when next shown: ``"assumptions"``, ``"share"``.
    generation : int
        How many Share pages were begun: a chain of chart files stops when a newer page begins.
    """

    def __init__(self, assumptions: w.HTML, glossary: w.HTML, share: w.HTML, downloads: w.HTML, *,
                 share_query: Callable[[], str], files: Callable[[], list[ChartFile]], caption: Callable[[], str],
                 on_error: Callable[[Message], None], event_loop: Callable[[], Any]):
        self.assumptions, self.glossary, self.share, self.downloads = assumptions, glossary, share, downloads
        self.share_query, self.files, self.caption = share_query, files, caption
        self.on_error, self.event_loop = on_error, event_loop
        self.stale: set[str] = set()
        self.generation = 0

    def write(self, key: str, e: Estimate, language: str) -> None:
        """Write the tab ``key`` (the tab shown) if it is the Assumptions or Share tab and out of date.

        Parameters
        ----------
        key : str
            The key of the tab shown (``explorer.app.explorer_app.TAB_KEYS``).
        e : Estimate
            The result shown.
        language : {"en", "zh"}
        """
        if key not in self.stale:
            return
        self.stale.discard(key)
        if key == "assumptions":
            self.assumptions.value = estimate_html.assumptions_html(e, language)
            self.glossary.value = estimate_html.glossary_html(language)
            return
        head = (export.download_link(export.scenario_json(e), "application/json", "scenario.json",
                                     label("download_scenario", language)) + " &nbsp; " +
                export.download_link(export.breakdown_csv(e), "text/csv", "breakdown.csv",
                                     label("download_breakdown", language)))
        share_link = self.share_query()
        self.share.value = estimate_html.share_html(share_link, language) + long_link_note_html(share_link, language)
        self.generation += 1
        loop = self.event_loop()
        if loop is None:  # headless: every file at once
            self.downloads.value = head + "<br>" + chart_links(self.files(), self.caption(), language)
            return
        files, caption = self.files(), self.caption()
        self.downloads.value = head + "<br>" + loading_html(language)
        loop.call_soon(self._next_chart_file, loop, self.generation, head, files, caption, language, [])

    def _next_chart_file(self, loop: Any, generation: int, head: str, files: list[ChartFile], caption: str,
                         language: str, links: list[str]) -> None:
        """Render the next chart file of the Share page ``generation`` and show its link; then the next, a turn later."""
        if generation != self.generation:
            return  # a newer page is being written
        with errors_to_viewer(self.on_error) as guard:
            links.append(chart_links([files[len(links)]], caption, language))
        if guard.failed:
            return
        more = len(links) < len(files)
        self.downloads.value = head + "<br>" + " &nbsp; ".join(links) + (" " + loading_html(language) if more else "")
        if more:
            loop.call_soon(self._next_chart_file, loop, generation, head, files, caption, language, links)
