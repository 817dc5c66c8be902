"""Scenarios in a URL query string: read Voila's ``QUERY_STRING``, write share links.

Reading keeps the known keys (scenario fields, ``lang``, ``preset``), clamps
numbers to the field's range, drops values that are not allowed, and ignores
everything else: the query string comes from any viewer of the app.
"""

from __future__ import annotations

import dataclasses
import math
import os
from typing import Any
from urllib.parse import parse_qs, unquote_plus, urlencode

from explorer import catalog, prices
from explorer.errors import ScenarioError
from explorer.messages import Message
from explorer.scenario import Scenario, field_spec, range_error
from explorer.text import NumberError, number_text, parse_number

__all__ = ["scenario_fields_from_query", "query_from_scenario", "scenario_from_query", "request_query_string",
           "EXTRA_KEYS", "refused_fields_from_query", "link_within_limit", "dropped_link_keys", "MAX_QUERY_CHARS"]

#: Keys that are not scenario fields: the view (language, preset, scope, the tab shown, the "what changed" view)
#: and the decision around the scenario (budget [USD] and as typed, GPU cap, each compare slot's scenario as a
#: nested query string and its name, the What-if picks and sort, the Plan tab's inputs as typed:
#: explorer.app.tabs.plan.LINK_KEYS).
EXTRA_KEYS = ("lang", "preset", "scope", "budget_usd", "budget_text", "gpu_cap", "tab", "view", "whatif", "whatif_sort",
              "whatif_seller",
              *(f"slot_{s}" for s in "ABCD"), *(f"name_{s}" for s in "ABCD"),
              "plan_budget", "plan_gpu", "plan_pricing", "plan_seller", "plan_deadline", "plan_cap", "plan_scope")
_FIELD_ORDER = [f.name for f in dataclasses.fields(Scenario)]  # keys are applied in this order, not the URL's
#: The longest query string read [characters]: a longer link is read up to its last whole ``key=value`` pair within
#: this many characters, and the banner names the settings past it (:func:`dropped_link_keys`), never silently.
MAX_QUERY_CHARS = 4096
#: How far past the limit the names of the settings left out are looked for [characters], and how many are named:
#: a bound on the work a hostile link can ask for (the hosting layer refuses longer query strings anyway).
_MAX_SCANNED_CHARS = 65_536
_MAX_DROPPED_NAMED = 16


def link_within_limit(query: str) -> str:
    """``query`` (without its ``?``) up to its last whole ``key=value`` pair within :data:`MAX_QUERY_CHARS`.

    A pair is never cut in two: ``plan_cap=1024`` cut to ``plan_cap=10`` would be a wrong value, not a missing one.

    >>> link_within_limit("a=1&b=2"), len(link_within_limit("a=1&" + "b" * 5000))
    ('a=1&b=2', 3)
    """
    text = (query or "").lstrip("?")
    if len(text) <= MAX_QUERY_CHARS:
        return text
    cut = text.rfind("&", 0, MAX_QUERY_CHARS + 1)
    return text[:cut] if cut > 0 else ""


def dropped_link_keys(query: str) -> tuple[str, ...]:
    """The known settings (scenario fields and :data:`EXTRA_KEYS`) a link holds past :data:`MAX_QUERY_CHARS`.

    Each named once, in the link's order, at most 16; looked for within the first 65,536 characters (linear).

    >>> dropped_link_keys("gpus=64&" + "x=" + "1" * 4100 + "&tab=plan&plan_cap=1024&tab=plan")
    ('tab', 'plan_cap')
    """
    text = (query or "").lstrip("?")
    if len(text) <= MAX_QUERY_CHARS:
        return ()
    kept = len(link_within_limit(text))
    names: list[str] = []
    for pair in text[kept:_MAX_SCANNED_CHARS].split("&"):
        key = unquote_plus(pair.partition("=")[0][:64]).strip()
        if (key in EXTRA_KEYS or key in _FIELD_ORDER) and key not in names:
            names.append(key)
            if len(names) == _MAX_DROPPED_NAMED:
                break
    return tuple(names)


def _link_too_long(query: str) -> ScenarioError | None:
    """The refusal of a link over :data:`MAX_QUERY_CHARS`, naming the settings left out; None within it."""
    text = (query or "").lstrip("?")
    if len(text) <= MAX_QUERY_CHARS:
        return None
    return ScenarioError("link_length", len(text), Message("allowed_link_length", limit=MAX_QUERY_CHARS,
                                                    dropped=dropped_link_keys(text)))


def _clamp(name: str, text: str) -> Any:
    """The value of field ``name`` read from ``text``, clamped; KeyError if unusable."""
    spec = field_spec(name)
    kind = spec.get("kind", "str")
    if text in ("", "none", "null"):
        if spec.get("optional"):
            return None
        raise KeyError(name)
    if kind == "choice":
        if text not in spec["choices"]:
            raise KeyError(name)
        return text
    if name == "price_date":  # YYYY, YYYY-MM or YYYY-MM-DD within the price table (explorer.prices)
        try:
            prices.check_price_date(text)
        except ScenarioError:
            raise KeyError(name) from None
        return text
    if kind == "str":
        known = catalog.accelerators() if name == "gpu" else catalog.regions()
        if text not in known:
            raise KeyError(name)
        return text
    try:
        value = parse_number(text)  # the boxes' reader: 7B, 1.5T, 70e9
    except ValueError:
        raise KeyError(name) from None
    if math.isnan(value):
        raise KeyError(name)
    lo, hi = spec["min"], spec["max"]
    if not lo <= value <= hi:  # an absurd link (1e309, 1e99 GPUs) is refused, as the controls refuse it
        raise KeyError(name)
    if spec["lo_open"] and value <= lo:
        value = lo + (1 if kind == "int" else max(abs(lo) * 1e-9, 1e-12))
    value = min(max(value, lo), hi)
    return int(round(value)) if kind == "int" else value


def scenario_fields_from_query(query: str) -> tuple[dict[str, Any], dict[str, str]]:
    """Scenario fields and extra keys (``lang``, ``preset``) from a query string.

    Parameters
    ----------
    query : str
        ``QUERY_STRING`` as Voila passes it (without the leading ``?``).

    Returns
    -------
    fields : dict
        Known scenario fields, clamped to their ranges, in the Scenario's field order.
    extras : dict
        ``lang`` and ``preset`` when present.
    """
    fields: dict[str, Any] = {}
    extras: dict[str, str] = {}
    parsed = parse_qs(link_within_limit(query), keep_blank_values=True)
    for key, values in parsed.items():
        text = values[-1].strip()
        if key in EXTRA_KEYS:
            extras[key] = text
        elif key in _FIELD_ORDER:
            try:
                fields[key] = _clamp(key, text)
            except KeyError:
                continue
    # the cluster is sized by a GPU count or by a deadline: a query naming one means not the other
    if fields.get("deadline_days") is not None and "gpus" not in fields:
        fields["gpus"] = None
    if fields.get("gpus") is not None and "deadline_days" not in fields:
        fields["deadline_days"] = None
    return {name: fields[name] for name in _FIELD_ORDER if name in fields}, extras


def page_language(lang: str | None) -> str | None:
    """The page language a ``lang`` value of a link asks for: ``"zh"`` (``zh``, ``zh-Hans``, ``ZH``...), ``"en"``, or None.

    >>> page_language("zh-Hans"), page_language("en"), page_language("fr"), page_language(None)
    ('zh', 'en', None, None)
    """
    text = (lang or "").strip().lower()
    return "zh" if text.startswith("zh") else "en" if text.startswith("en") else None


def refused_fields_from_query(query: str) -> list[ScenarioError]:
    """Why each value of a scenario field in ``query`` was left out (an error per field).

    Every value :func:`scenario_fields_from_query` drops is named, except a blank one (``""``, ``none``,
    ``null``: the field's default): a number outside its field's range or past any number (``1e1000000``),
    text that is no number (``abc``, ``NaN``, ``inf``, the decimal comma of ``1,5``, a NUL byte), a choice or
    a name the field does not know, a date the price table does not cover. A link longer than
    :data:`MAX_QUERY_CHARS` is read to its last whole pair within it, and its refusal (field ``link_length``) comes first,
    naming the settings left out.
    """
    too_long = _link_too_long(query)
    refused = [too_long] if too_long is not None else []
    parsed = parse_qs(link_within_limit(query), keep_blank_values=True)
    for key, values in parsed.items():
        if key not in _FIELD_ORDER:
            continue
        spec = field_spec(key)
        text = values[-1].strip()
        if key == "price_date" and text not in ("", "none", "null"):  # a date the price table does not cover
            try:
                prices.check_price_date(text)
            except ScenarioError as exc:
                refused.append(exc)
            continue
        kind = spec.get("kind", "str")
        if text in ("", "none", "null"):
            continue  # blank: the default (or, for a field that must have a value, left as it is)
        if kind not in ("int", "float"):
            try:
                _clamp(key, text)
            except KeyError:
                allowed = (Message("allowed_choices", field=key, choices=tuple(spec["choices"])) if kind == "choice"
                           else Message("allowed_known_gpu" if key == "gpu" else "allowed_known_region"))
                refused.append(ScenarioError(key, text, allowed))
            continue
        try:
            value = parse_number(text)  # as _clamp reads it: 7B, 1e1000000 (past the float range: refused)
        except NumberError:  # past any number, or no number at all (abc, NaN, inf, a decimal comma, a NUL)
            value = math.nan
        if not spec["min"] <= value <= spec["max"]:  # false for NaN: refused
            refused.append(range_error(key, text))  # the boxes' and the CLI's words (one wording for 1e400)
    return refused


def request_query_string() -> str:
    """The query string of the page request this kernel serves ("" outside Voila).

    A preheated Voila kernel runs the notebook before any viewer asks for it;
    there this waits for the request on the server's query socket. A kernel
    started for a request finds the query in ``QUERY_STRING``. When the socket
    cannot be opened, closes, or nothing comes within ``EXPLORER_QUERY_WAIT_S``
    seconds (unset: as long as the socket is open), the app shows the defaults
    rather than wait for ever.
    """
    if os.environ.get("VOILA_PREHEAT") != "True":
        return os.environ.get("QUERY_STRING", "")
    return _wait_for_query(float(os.environ.get("EXPLORER_QUERY_WAIT_S") or 0) or None)


def _wait_for_query(timeout: float | None) -> str:
    """Voila's ``get_query_string`` with a bound on the wait and without its uncaught errors."""
    import asyncio
    import json
    import threading

    import websockets

    base = os.environ.get("VOILA_WS_BASE_URL", os.environ.get("VOILA_SERVER_URL", "/"))
    url = (f"{os.environ.get('VOILA_WS_PROTOCOL', 'ws')}://{os.environ.get('VOILA_APP_IP', '127.0.0.1')}:"
           f"{os.environ.get('VOILA_APP_PORT', '8866')}{base}voila/query/{os.environ.get('VOILA_KERNEL_ID', '')}")
    found: dict[str, str] = {}

    async def receive() -> None:
        async with websockets.connect(url, open_timeout=5) as socket:
            found.update(json.loads(await asyncio.wait_for(socket.recv(), timeout)))

    def run() -> None:
        try:
            asyncio.run(receive())
        except Exception:  # noqa: BLE001 - no query: the defaults
            pass

    thread = threading.Thread(target=run, daemon=True)  # the kernel's own event loop is running here
    thread.start()
    thread.join()
    os.environ.update({k: v for k, v in found.items() if isinstance(k, str) and isinstance(v, str)})
    return found.get("QUERY_STRING", "")


def query_from_scenario(scenario: Scenario, **extras: str) -> str:
    """A query string holding the fields of ``scenario`` that differ from the defaults."""
    base = Scenario()
    items = []
    for f in dataclasses.fields(Scenario):
        value = getattr(scenario, f.name)
        if value != getattr(base, f.name):
            items.append((f.name, number_text(value) if value is None or isinstance(value, (int, float)) else value))
    items += [(k, v) for k, v in extras.items() if v]
    return urlencode(items)


def scenario_from_query(text: str, start: Scenario | None = None) -> Scenario | None:
    """The scenario a (nested) query string describes on top of ``start`` (default: the defaults); None if invalid.

    Keys that make the scenario invalid are not dropped one by one here (a
    compare slot either comes back whole or not at all).
    """
    fields, _extras = scenario_fields_from_query(text)
    try:
        return Scenario.from_dict({**(start or Scenario()).to_dict(), **fields})
    except Exception:  # noqa: BLE001 - any invalid combination from a URL: the slot is left out
        return None
