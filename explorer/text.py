"""Labels in English and Simplified Chinese, and number formatting.

All user-facing labels live in one table, ``explorer/data/labels.csv``
(``key, en, zh``), used by the plots and the app alike.
"""

from __future__ import annotations

import functools
import math
from typing import Mapping

from explorer.catalog import read_csv

__all__ = ["LANGUAGES", "label", "labels", "money", "quantity", "number_text", "CURRENCY_SYMBOLS"]

LANGUAGES = ("en", "zh")
CURRENCY_SYMBOLS = {"USD": "$", "CNY": "¥"}


@functools.cache
def labels() -> Mapping[str, Mapping[str, str]]:
    """All labels: ``{key: {"en": ..., "zh": ...}}``."""
    return {row["key"]: {"en": row["en"], "zh": row["zh"] or row["en"]} for row in read_csv("labels.csv")}


def label(key: str, language: str = "en") -> str:
    """The label for ``key`` in ``language`` ("en" or "zh"); the key itself if missing."""
    row = labels().get(key)
    if row is None:
        return key
    return row.get(language) or row["en"]


def quantity(x: float, digits: int = 3) -> str:
    """A compact number: 1.23k, 45.6M, 7.8B, 1.2T; "unknown" for NaN."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "unknown"
    if math.isinf(x):
        return "∞"
    sign = "-" if x < 0 else ""
    x = abs(x)
    if x >= 1e18:
        return f"{sign}{x:.{digits}g}"
    for scale, suffix in ((1e15, "P"), (1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k"), (1.0, "")):
        if x >= scale or scale == 1.0:
            return f"{sign}{_significant(x / scale, digits)}{suffix}"
    raise AssertionError("unreachable")


def _significant(x: float, digits: int) -> str:
    """``x`` with ``digits`` significant digits, never in exponent notation below 1e18."""
    text = f"{x:.{digits}g}"
    return f"{x:.0f}" if "e" in text else text


def money(x: float, currency: str = "USD", digits: int = 3) -> str:
    """An amount with its currency symbol, e.g. ``$8.06M`` or ``¥57.1M``."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "unknown"
    text = quantity(x, digits)
    if text.startswith("-"):
        return "-" + CURRENCY_SYMBOLS.get(currency, "") + text[1:]
    return CURRENCY_SYMBOLS.get(currency, "") + text


def number_text(x: float | int | None) -> str:
    """Exact text of a number, for URLs and text boxes: reads back to the same value.

    ``repr`` gives the shortest text that round-trips (``0.023``, ``1.23456789012e+11``);
    whole floats drop the ``.0``; None gives "".
    """
    if x is None:
        return ""
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e16:
        return str(int(x))
    return repr(x)
