"""What the app's typed boxes read: a budget, a GPU cap, a deadline (no widgets; unit-testable).

Every box reads numbers as :func:`explorer.text.parse_number` does (``10M``, ``2.5e6``, ``2,500,000``,
``500万``); a blank box is None, anything else that is not an allowed value raises :class:`explorer.errors.ScenarioError` (a ValueError
naming the box, the value and what is allowed; the caller shows it beside the box and keeps its last good result).
"""

from __future__ import annotations

import datetime as _dt
import math
from typing import Callable

from explorer.errors import ScenarioError
from explorer.messages import Message
from explorer.text import parse_number

__all__ = ["parse_budget", "parse_gpu_cap", "parse_deadline", "same_amount"]


def _parse_number(text: str, currency: str | None = None) -> float | None:
    """A typed number as every box reads it (``10M``, ``2.5e6``, ``2,500,000``, ``500万``:
    :func:`explorer.text.parse_number`); None for a blank box; ValueError when not a number."""
    text = (text or "").strip()
    if not text:
        return None
    return parse_number(text, currency=currency)


def parse_budget(text: str, currency: str = "USD") -> float | None:
    """A typed budget [``currency``]: None for blank, ValueError unless a finite amount > 0.

    The box's own currency symbol is read (``$5M`` in a USD box, ``¥5M`` in a CNY box); the other one is
    refused with :class:`explorer.text.NumberError` (reason ``"currency"``), not converted: the box names its
    currency, and the viewer switches it there.

    >>> parse_budget("2,500,000"), parse_budget("10M"), parse_budget(""), parse_budget("$5M")
    (2500000.0, 10000000.0, None, 5000000.0)
    >>> parse_budget("500万", "CNY"), parse_budget("¥5M", "CNY"), parse_budget("5亿", "CNY")
    (5000000.0, 5000000.0, 500000000.0)
    """
    value = _parse_number(text, currency)
    if value is not None and not (math.isfinite(value) and value > 0):
        raise ScenarioError("budget", text, Message("allowed_plan_budget"))
    return value


def same_amount(text: str, amount: float, parse: Callable[[str], float | None]) -> bool:
    """Whether ``text`` reads (with ``parse``) as ``amount``, to 1 part in 10**9 (a typed box shown back as typed)."""
    try:
        value = parse(text)
    except ValueError:
        return False
    return value is not None and math.isclose(value, amount, rel_tol=1e-9)


def parse_gpu_cap(text: str) -> float | None:
    """A typed GPU cap [GPUs]: None for blank, ValueError unless a finite number >= 1.

    >>> parse_gpu_cap("4096"), parse_gpu_cap(" ")
    (4096.0, None)
    """
    value = _parse_number(text)
    if value is not None and not (math.isfinite(value) and value >= 1):
        raise ScenarioError("gpu_cap", text, Message("allowed_gpu_cap"))
    return value


def parse_deadline(text: str, today: _dt.date | None = None) -> float | None:
    """A typed deadline: days (``90``) or a date (``2027-06-30``, days from ``today``); None for blank.

    Raises ValueError for anything else, or a date not after today.

    >>> parse_deadline("90"), parse_deadline(""), parse_deadline("2027-06-30", _dt.date(2027, 6, 1))
    (90.0, None, 29.0)
    """
    text = (text or "").strip()
    if not text:
        return None
    try:
        day = _dt.date.fromisoformat(text)
    except ValueError:
        value = parse_number(text)
    else:
        value = float((day - (today or _dt.date.today())).days)
    if not (math.isfinite(value) and value > 0):
        raise ScenarioError("deadline", text, Message("allowed_plan_deadline"))
    return value
