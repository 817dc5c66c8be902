"""Labels in English and Simplified Chinese, and number formatting.

All user-facing labels live in one table, ``explorer/data/labels.csv``
(``key, en, zh``), used by the plots and the app alike.
"""

from __future__ import annotations

import decimal
import functools
import math
import re
from typing import Mapping

from explorer.tables import read_rows

__all__ = ["LANGUAGES", "label", "labels", "money", "quantity", "quantity_in", "money_in", "number_text",
           "readable_number", "parse_number", "short_repr", "CURRENCY_SYMBOLS"]

LANGUAGES = ("en", "zh")
CURRENCY_SYMBOLS = {"USD": "$", "CNY": "¥"}


@functools.cache
def labels() -> Mapping[str, Mapping[str, str]]:
    """All labels: ``{key: {"en": ..., "zh": ...}}``."""
    return {row["key"]: {"en": row["en"], "zh": row["zh"] or row["en"]} for row in read_rows("labels.csv")}


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


#: Suffixes of :func:`readable_number` and :func:`parse_number`, as powers of ten.
_SUFFIX_EXP = (("T", 12), ("B", 9), ("M", 6))
_PARSE_EXP = {"k": 3, "K": 3, "M": 6, "B": 9, "G": 9, "T": 12, "P": 15}
_NUMBER = re.compile(r"^([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*([kKMBGTP]?)$")


def readable_number(x: float | int | None) -> str:
    """Exact, readable text of a number for a box: ``7B``, ``1.5T``, ``300B``, ``1,024``, ``0.0333``.

    From a million up the value is written with the suffix M, B or T (T also
    above 1,000T); the digits are exact, so :func:`parse_number` reads the text
    back to the same float. Below a million: digits with thousands separators.
    None gives "".

    Examples
    --------
    >>> [readable_number(v) for v in (7e9, 1e12, 300e9, 1.5e12, 405e9, 1024, 0.0333, 123456789012.0)]
    ['7B', '1T', '300B', '1.5T', '405B', '1,024', '0.0333', '123.456789012B']
    """
    if x is None:
        return ""
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        return str(x)
    exact = decimal.Decimal(repr(x)) if isinstance(x, float) else decimal.Decimal(x)
    size = abs(exact)
    for suffix, exp in _SUFFIX_EXP:
        if size >= decimal.Decimal(10) ** exp:
            return _plain(exact.scaleb(-exp)) + suffix
    text = _plain(exact)
    whole, dot, frac = text.partition(".")
    sign = "-" if whole.startswith("-") else ""
    return sign + f"{int(whole.lstrip('-')):,}" + dot + frac


def _plain(d: decimal.Decimal) -> str:
    """A decimal in positional notation without trailing zeros (``7``, ``1.5``, ``0.0333``)."""
    text = format(d.normalize(), "f")
    return text


def parse_number(text: str) -> float:
    """The number in ``text``: ``"7B"``, ``"70e9"``, ``"1.5T"``, ``"405000000000"``, ``"1,024"``, ``"300 M"``.

    Suffixes k/K (thousand), M (million), B or G (billion), T (trillion), P
    (quadrillion); commas, underscores and spaces between digits are ignored.

    Raises
    ------
    ValueError
        When the text is not such a number (including inf and nan).

    Examples
    --------
    >>> [parse_number(t) for t in ("7B", "70e9", "1.5T", "405000000000", "1,024", "0.0333")]
    [7000000000.0, 70000000000.0, 1500000000000.0, 405000000000.0, 1024.0, 0.0333]
    """
    cleaned = re.sub(r"(?<=\d)[,_ ](?=\d)", "", str(text).strip())
    m = _NUMBER.match(cleaned)
    if not m:
        raise ValueError(f"not a number: {text!r}")
    value = decimal.Decimal(m.group(1)).scaleb(_PARSE_EXP.get(m.group(2), 0))
    result = float(value)
    if not math.isfinite(result):
        raise ValueError(f"not a finite number: {text!r}")
    return result


#: Chinese number scales: 亿 (10^8) and 万 (10^4).
_ZH_SCALES = ((1e8, "亿"), (1e4, "万"))


def quantity_in(x: float, language: str = "en", digits: int = 3) -> str:
    """A compact number in ``language``: :func:`quantity` in English (``1.4M``); in Chinese with
    万 and 亿 (``140万``, ``1.91亿``, ``3,288``).

    >>> quantity_in(1.4e6, "zh"), quantity_in(1.914e8, "zh"), quantity_in(3288, "zh"), quantity_in(1.4e6)
    ('140万', '1.91亿', '3,288', '1.4M')
    """
    if language != "zh":
        return quantity(x, digits)
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "未知"
    if math.isinf(x):
        return "∞"
    sign = "-" if x < 0 else ""
    x = abs(x)
    for scale, suffix in _ZH_SCALES:
        if x >= scale:
            v = x / scale
            return f"{sign}{_significant(v, digits) if v < 10 ** digits else f'{v:,.0f}'}{suffix}"
    return f"{sign}{x:,.0f}" if x >= 10 ** (digits - 1) else f"{sign}{_significant(x, digits)}"


def money_in(x: float, currency: str = "USD", language: str = "en", digits: int = 3) -> str:
    """An amount in ``language``: :func:`money` in English (``$1.4M``); in Chinese the number with
    万/亿 and the currency as a word (``140万美元``, ``2,290万元``).

    >>> money_in(1.4e6, language="zh"), money_in(2.29e7, "CNY", "zh"), money_in(1.4e6)
    ('140万美元', '2,290万元', '$1.4M')
    """
    if language != "zh":
        return money(x, currency, digits)
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "未知"
    return quantity_in(x, "zh", digits) + {"USD": "美元", "CNY": "元"}.get(currency, currency)


def short_repr(value: object, limit: int = 80) -> str:
    """``repr(value)`` on one line, cut to about ``limit`` characters.

    Errors quote the value they refuse; a value from a file or a URL can be
    megabytes long or hold line breaks, which ``repr`` escapes.

    >>> short_repr("x" * 1000, 20)
    "'xxxxxxxxxxxxxxxxxxx… (1,000 characters)"
    """
    if isinstance(value, (str, bytes)) and len(value) > limit:
        return repr(value[:limit - 1])[:-1] + f"… ({len(value):,} characters)"
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 3 * limit:
        return f"an integer of about {int(value.bit_length() * 0.30103) + 1:,} digits"
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"
