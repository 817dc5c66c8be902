"""A share link in the app: the first result it asks for, its decision handed to the tabs, the link of what is shown.

:mod:`explorer.app.link` is the query string itself (its keys, its limit, reading and writing a scenario).
This module is what :class:`~explorer.app.explorer_app.ExplorerApp` does with one: :func:`read_link` when the
app is built or a request arrives (``ExplorerApp.apply_query``), :func:`apply_link_decision` once the tabs
exist, :func:`share_query` for the Share tab, and :func:`long_link_note_html` under a link longer than the app
reads. Nothing here holds a widget: the tabs are passed in, and the app shows what they refused.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Iterable, Protocol

from explorer.app import link
from explorer.errors import ScenarioError
from explorer.messages import Message
from explorer.model import Estimate, estimate
from explorer.presets import presets
from explorer.scenario import Scenario

__all__ = ["first_estimate", "OpenedLink", "read_link", "DecisionTab", "apply_link_decision", "share_query",
           "long_link_note_html"]


def first_estimate(start: Scenario, fields: dict) -> Estimate:
    """Estimate of ``start`` with the query's ``fields`` on top.

    A field that makes the scenario invalid, or the deadline impossible, is
    dropped, one at a time: the one the error names, else the last in the
    Scenario's field order (``fields`` come in that order, so the result does
    not depend on the order of the URL's keys); the rest stay.

    Parameters
    ----------
    start : Scenario
        The scenario the link's fields apply to (the app's, or the preset's the link names).
    fields : dict
        Scenario fields read from the link (:func:`explorer.app.link.scenario_fields_from_query`).

    Returns
    -------
    Estimate
        The first result that can be shown; ``estimate(start)`` when every field was dropped.
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


@dataclass(frozen=True)
class OpenedLink:
    """What a link's query string asks of the app (:func:`read_link`).

    Attributes
    ----------
    estimate : Estimate
        The first result: the link's fields on the start scenario, or on the preset's it names (:func:`first_estimate`).
    preset_id : str
        The preset the link names ("" for none, or one that does not exist).
    language : str or None
        The page language it asks for ("en" or "zh"); None: the app keeps its own.
    scope : str or None
        What the total shows, "project" or "run"; None: the app keeps its own.
    extras : dict of str to str
        Its keys that are no scenario field (:data:`explorer.app.link.EXTRA_KEYS`): the decision (budget, GPU cap,
        compare slots, the Plan tab's inputs, the What-if picks) and the tab, applied once the tabs exist
        (:func:`apply_link_decision`).
    """

    estimate: Estimate
    preset_id: str = ""
    language: str | None = None
    scope: str | None = None
    extras: dict[str, str] = field(default_factory=dict)


def read_link(start: Scenario, query_string: str) -> OpenedLink:
    """The first result, preset, language, scope and decision a link's ``query_string`` asks for.

    Parameters
    ----------
    start : Scenario
        The scenario shown before the link (the link's fields go on top of it, unless it names a preset).
    query_string : str
        The link's query string, with or without its ``?`` (anything: it comes from any viewer).

    Returns
    -------
    OpenedLink
    """
    fields, extras = link.scenario_fields_from_query(query_string)
    preset_id = extras.get("preset", "")
    if preset_id in presets():
        start = presets()[preset_id].scenario
    else:
        preset_id = ""
    scope = extras["scope"] if extras.get("scope") in ("project", "run") else None
    return OpenedLink(first_estimate(start, fields), preset_id, link.page_language(extras.get("lang")), scope, extras)


class DecisionTab(Protocol):
    """A tab whose inputs travel in a share link (the analysis views, the Plan and What-if tabs)."""

    def decision_items(self) -> dict[str, str]:
        """The tab's inputs as share-link keys (:data:`explorer.app.link.EXTRA_KEYS`)."""
        ...

    def apply_decision(self, extras: dict[str, str]) -> list[ScenarioError] | None:
        """Take the tab's keys from a link's ``extras``; what it refused (None: it names nothing)."""
        ...


def apply_link_decision(query_string: str, extras: dict[str, str], tabs: Iterable[DecisionTab]) -> list[ScenarioError]:
    """Hand a link's decision (budget, GPU cap, compare slots, Plan inputs, What-if picks) to ``tabs``, in order.

    Parameters
    ----------
    query_string : str
        The link's query string: its numbers out of range or past any number (``1e1000000``) are refused.
    extras : dict of str to str
        The link's keys that are no scenario field (:attr:`OpenedLink.extras`).
    tabs : iterable of DecisionTab
        Each takes its own keys (``apply_decision``) and returns what it refused (or None).

    Returns
    -------
    list of ScenarioError
        Every value left out: the link's, then each tab's. Nothing is clamped silently: the app names them all.
    """
    refused = link.refused_fields_from_query(query_string)
    for tab in tabs:
        refused += tab.apply_decision(extras) or []
    return refused


def share_query(scenario: Scenario, *, language: str, scope: str, tab: str, tabs: Iterable[DecisionTab]) -> str:
    """The query string (with ``?``) of a link to ``scenario`` as the app shows it.

    Parameters
    ----------
    scenario : Scenario
        The scenario behind the results shown.
    language : {"en", "zh"}
        The page's language (always in the link).
    scope : {"project", "run"}
        What the total shows (in the link when not "project").
    tab : str
        The tab the link opens on: the last one looked at before Share (in the link when not "breakdown").
    tabs : iterable of DecisionTab
        The tabs whose inputs travel in the link (``decision_items``), in order.

    Returns
    -------
    str
    """
    extras = {"lang": language}
    if scope != "project":
        extras["scope"] = scope
    for decision_tab in tabs:
        extras.update(decision_tab.decision_items())
    if tab != "breakdown":
        extras["tab"] = tab
    return "?" + link.query_from_scenario(scenario, **extras)


def long_link_note_html(share_link: str, language: str) -> str:
    """A note under a share link longer than the app reads (:data:`explorer.app.link.MAX_QUERY_CHARS`).

    Parameters
    ----------
    share_link : str
        The link's query string (with or without ``?``).
    language : {"en", "zh"}

    Returns
    -------
    str
        Escaped HTML naming what the link would leave out when opened (long slot names make it so), or "".
    """
    dropped = link.dropped_link_keys(share_link)
    if not dropped:
        return ""
    text = Message("share_link_too_long", chars=len(share_link.lstrip("?")), limit=link.MAX_QUERY_CHARS,
                   dropped=dropped).render(language)
    return f'<div class="explorer-message">{html.escape(text)}</div>'
