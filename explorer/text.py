"""Labels in English and Simplified Chinese, and number formatting.

All user-facing labels live in one table, ``explorer/data/labels.csv``
(``key, en, zh``), used by the plots and the app alike.
"""

from __future__ import annotations

import decimal
import functools
import html
import math
import re
import sys
from typing import Iterable, Mapping

from explorer.tables import read_rows

__all__ = ["LANGUAGES", "rows_html", "label", "labels", "money", "quantity", "quantity_in", "money_in", "number_text",
           "readable_number", "parse_number", "NumberError", "MAX_NUMBER_CHARS", "short_repr",
           "CURRENCY_SYMBOLS", "breakeven_text", "count_in",
           "power_of_ten"]

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


def quantity(x: float | None, digits: int = 3) -> str:
    """A compact number: 1.23k, 45.6M, 7.8B, 1.2T; "unknown" for NaN or None."""
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


_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def power_of_ten(x: float, digits: int = 3) -> str:
    """A large or small number as a person writes it, ``3.8×10²⁵`` (no e-notation, in any language)."""
    if not math.isfinite(x) or x == 0:
        return _significant(x, digits) if math.isfinite(x) else str(x)
    mantissa, exponent = f"{x:.{digits - 1}e}".split("e")
    mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}×10{str(int(exponent)).translate(_SUPERSCRIPT)}"


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
#: Scale words after a number, as powers of ten: SI-style letters and the Chinese 万 (10^4), 亿 (10^8), 万亿 (10^12).
_PARSE_EXP = {"k": 3, "K": 3, "M": 6, "B": 9, "G": 9, "T": 12, "P": 15, "万": 4, "亿": 8, "万亿": 12}
#: Currency symbols a money box reads, by currency (ISO code); any other box refuses them.
_SYMBOL_CURRENCY = {"$": "USD", "¥": "CNY", "￥": "CNY"}
#: Signs of multiplication before a power of ten (``3.15 × 10^23``, ``3.15x10**23``, ``3.15·10²³``).
_TIMES = "x×*·"
#: Superscript digits and signs (``10²³``, ``10⁻⁵``) as their plain characters.
_SUPERSCRIPT_PLAIN = {"⁰": "0", "¹": "1", "²": "2", "³": "3", "⁴": "4", "⁵": "5", "⁶": "6", "⁷": "7", "⁸": "8",
                      "⁹": "9", "⁻": "-", "⁺": "+"}

#: The longest text :func:`parse_number` reads [characters]. The longest number a person types or a link
#: holds is about 30 characters (``123,456,789,012,345,678``; ``repr`` of a float is at most 24, e.g.
#: ``-1.2345678901234567e-100``); twice that leaves room for spaces and separators. Longer text is refused
#: before it is read, so no box, link, answer or option costs more than reading 64 characters (issue 24).
MAX_NUMBER_CHARS = 64
#: Decimal exponents beyond this cannot give a float other than 0 or inf (floats span 4.9e-324 to 1.8e308,
#: and the digits are at most :data:`MAX_NUMBER_CHARS`): refused before any arithmetic.
_MAX_EXPONENT = 400


class NumberError(ValueError):
    """Text that :func:`parse_number` does not read as a number; ``reason`` says why.

    ``reason`` is ``"long"`` (more than :data:`MAX_NUMBER_CHARS` characters), ``"range"`` (a number
    outside the normal float range, about 2.2e-308 to 1.8e308 in size, other than zero), ``"comma"`` (a
    comma between digits that is not followed by exactly three digits, such as the decimal comma of
    ``3,5``: a comma separates thousands here), ``"currency"`` (a currency symbol in a box of another
    currency, or in a box that takes no money; ``symbol`` and ``currency`` say which), ``"zero"`` (a quotient
    by zero) or ``"syntax"``.
    """

    def __init__(self, text: object, reason: str, *, symbol: str = "", currency: str | None = None):
        self.reason, self.symbol, self.currency = reason, symbol, currency
        why = {"long": f"longer than {MAX_NUMBER_CHARS} characters",
               "range": "outside the float range (about 2.2e-308 to 1.8e308 in size, or 0)",
               "comma": "a comma separates thousands (three digits after it); write a decimal with a dot",
               "currency": (f"{symbol} in an amount in {currency}" if currency else
                            f"{symbol} where a plain number is asked"),
               "zero": "a quotient by zero"}.get(reason, "not a number")
        super().__init__(f"{why}: {short_repr(text, 40)}")


def _digits(s: str, i: int) -> int:
    """The index after the run of decimal digits of ``s`` starting at ``i``."""
    n = len(s)
    while i < n and s[i].isdecimal():
        i += 1
    return i


def _spaces(s: str, i: int) -> int:
    """The index after the run of white space of ``s`` starting at ``i``."""
    n = len(s)
    while i < n and s[i].isspace():
        i += 1
    return i


def _power_of_ten(s: str, i: int) -> tuple[str, int] | None:
    """(signed exponent digits, index after them) of ``× 10^23``, ``x10**23`` or ``·10²³`` at ``s[i]``, or None."""
    n = len(s)
    i = _spaces(s, i)
    if not (i < n and s[i] in _TIMES):
        return None
    i = _spaces(s, i + 1)
    if s[i:i + 2] != "10":
        return None
    i = _spaces(s, i + 2)
    if s[i:i + 1] == "^":
        i += 1
    elif s[i:i + 2] == "**":
        i += 2
    elif i < n and s[i] in _SUPERSCRIPT_PLAIN:  # 10²³, 10⁻⁵
        j = i + (1 if s[i] in "⁻⁺" else 0)
        k = j
        while k < n and s[k] in _SUPERSCRIPT_PLAIN and s[k] not in "⁻⁺":
            k += 1
        if k == j:
            return None
        return "".join(_SUPERSCRIPT_PLAIN[c] for c in s[i:k]), k
    else:
        return None
    i = _spaces(s, i)
    j = i + (1 if i < n and s[i] in "+-" else 0)
    k = _digits(s, j)
    return (s[i:k], k) if k > j else None


def _scan(s: str, units: tuple[str, ...] = ()) -> tuple[str, str, str, str, str, str] | None:
    """Split one term ``s`` into (sign and mantissa, exponent, power of ten, scale word, currency symbol, unit) or None.

    The grammar is ``[+-] [$¥] [+-] (digits [. digits] | . digits) [(e|E) [+-] digits] [× 10^[+-]digits]
    spaces [kKMBGTP|万|亿|万亿] spaces [unit]``, the unit one of ``units`` (compared without case). One
    pass, no backtracking: each character is looked at a bounded number of times, so the time is linear
    in ``len(s)``.
    """
    n = len(s)
    i = 0
    sign = ""
    if i < n and s[i] in "+-−":
        sign, i = ("-" if s[i] != "+" else ""), i + 1
    symbol = ""
    if i < n and s[i] in _SYMBOL_CURRENCY:
        symbol, i = s[i], i + 1
        if not sign and i < n and s[i] in "+-−":  # $-1.09M as well as -$1.09M
            sign, i = ("-" if s[i] != "+" else ""), i + 1
    start = i
    i = _digits(s, i)
    whole = i - start
    frac = 0
    if i < n and s[i] == ".":
        j = _digits(s, i + 1)
        frac, i = j - i - 1, j
    if whole == 0 and frac == 0:
        return None
    mantissa = sign + s[start:i]
    exponent = "0"
    if i < n and s[i] in "eE":
        j = i + 1 + (1 if i + 1 < n and s[i + 1] in "+-" else 0)
        k = _digits(s, j)
        if k == j:
            return None
        exponent, i = s[i + 1:k], k
    power = "0"
    times = _power_of_ten(s, i)
    if times is not None:
        power, i = times
    i = _spaces(s, i)
    unit = _unit_at(s, i, units)
    if unit:
        return (mantissa, exponent, power, "", symbol, unit)
    suffix = ""
    if s[i:i + 2] == "万亿":
        suffix, i = "万亿", i + 2
    elif i < n and s[i] in _PARSE_EXP:
        suffix, i = s[i], i + 1
    i = _spaces(s, i)
    unit = _unit_at(s, i, units)
    return (mantissa, exponent, power, suffix, symbol, unit) if unit or i == n else None


def _unit_at(s: str, i: int, units: tuple[str, ...]) -> str:
    """The unit of ``units`` that ``s[i:]`` is (without case, trailing spaces allowed), or ""."""
    rest = s[i:].rstrip().casefold() if units and i < len(s) else ""
    return next((u for u in units if rest == u.casefold()), "") if rest else ""


def readable_number(x: float | int | None, language: str = "en") -> str:
    """Exact, readable text of a number for a box: ``7B``, ``1.5T``, ``300B``, ``1,024``, ``0.0333``.

    From a million up the value is written with the suffix M, B or T (T also
    above 1,000T); the digits are exact, so :func:`parse_number` reads the text
    back to the same float. Below a million: digits with thousands separators.
    None gives "".

    In Chinese (``language="zh"``) the scales are 万 (10^4), 亿 (10^8) and 万亿 (10^12), the largest whose
    number has at most three decimals (``100万``, ``18.9亿``, ``100万亿``), else digits with thousands separators
    (``12,345``): exact too, and read back by :func:`parse_number`.

    Examples
    --------
    >>> [readable_number(v) for v in (7e9, 1e12, 300e9, 1.5e12, 405e9, 1024, 0.0333, 123456789012.0)]
    ['7B', '1T', '300B', '1.5T', '405B', '1,024', '0.0333', '123.456789012B']
    >>> [readable_number(v, "zh") for v in (1e6, 1.89e9, 1e14, 250000, 12345, 1024, 0.0333, 1e7)]
    ['100万', '18.9亿', '100万亿', '25万', '12,345', '1,024', '0.0333', '1,000万']
    """
    if x is None:
        return ""
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        return str(x)
    exact = decimal.Decimal(repr(x)) if isinstance(x, float) else decimal.Decimal(x)
    size = abs(exact)
    if language == "zh":
        return _readable_zh(x, exact, size)
    for suffix, exp in _SUFFIX_EXP:
        if size >= decimal.Decimal(10) ** exp:
            text = _plain(exact.scaleb(-exp)) + suffix
            return text if len(text) <= MAX_NUMBER_CHARS - 16 else number_text(x)
    text = _plain(exact)
    if len(text) > MAX_NUMBER_CHARS - 16:  # 1e-30, 1e40: positional text would be longer than a box reads back
        return number_text(x)
    whole, dot, frac = text.partition(".")
    sign = "-" if whole.startswith("-") else ""
    return sign + f"{int(whole.lstrip('-')):,}" + dot + frac


def _readable_zh(x: float | int, exact: decimal.Decimal, size: decimal.Decimal) -> str:
    """:func:`readable_number` in Chinese: the largest of 万/亿/万亿 the number reaches, if it keeps at most three
    decimals there, else digits with thousands separators."""
    suffix, exp = next(((s, e) for s, e in (("万亿", 12), ("亿", 8), ("万", 4)) if size >= decimal.Decimal(10) ** e),
                       ("", 0))
    scaled = exact.scaleb(-exp).normalize()
    exponent = scaled.as_tuple().exponent  # an int for a finite number ('n', 'N' or 'F' for NaN and infinity)
    if suffix and isinstance(exponent, int) and exponent >= -3:
        text = _grouped(scaled) + suffix
    else:
        text = _grouped(exact)
    return text if len(text) <= MAX_NUMBER_CHARS - 16 else number_text(x)


def _grouped(exact: decimal.Decimal) -> str:
    """Digits with thousands separators (``12,345``, ``0.0333``)."""
    whole, dot, frac = _plain(exact).partition(".")
    return ("-" if whole.startswith("-") else "") + f"{int(whole.lstrip('-')):,}" + dot + frac


def _plain(d: decimal.Decimal) -> str:
    """A decimal in positional notation without trailing zeros (``7``, ``1.5``, ``0.0333``)."""
    text = format(d.normalize(), "f")
    return text


#: A comma between digits that is not followed by exactly three digits (``3,5``, ``12,34``, ``1,2345``): no
#: thousands separator, most likely a decimal comma. Bounded look-ahead, so one pass.
_BAD_COMMA = re.compile(r"\d[,，](?!\d{3}(?!\d))(?=\d)")


def parse_number(text: str, *, currency: str | None = None, units: Iterable[str] = ()) -> float:
    """The number in ``text``: ``"7B"``, ``"70e9"``, ``"1.5T"``, ``"1,024"``, ``"3.15 × 10^23"``, ``"500万"``.

    Scale words k/K (thousand), M (million), B or G (billion), T (trillion), P
    (quadrillion), 万 (10^4), 亿 (10^8), 万亿 (10^12); a power of ten written
    ``e23``, ``× 10^23``, ``x 10**23`` or ``×10²³``; a simple quotient of two such
    numbers (``0.38/1.2``, one ``/`` only). Underscores, spaces and commas between
    digits are ignored, a comma only as a thousands separator: it must be followed
    by exactly three digits (``1,024``; ``1,234,567``). ``3,5`` is refused
    (reason ``"comma"``): in English and Chinese a comma separates thousands, so
    it is not read as 3.5 (a decimal comma) nor silently as 35.

    A currency symbol (``$``, ``¥`` or ``￥``) after an optional sign is read only
    when it is the symbol of ``currency`` (``-$1.09M`` with ``currency="USD"``;
    ``¥5M`` with ``"CNY"``); in a box of another currency, or of no money, it is
    refused (reason ``"currency"``) rather than converted: the box says its
    currency, and a silent conversion at an exchange rate the student or viewer
    did not choose would hide a mistake. A trailing unit word is read only when it
    is one of ``units`` (compared without case): ``3.15e+23 FLOP`` with
    ``units=("FLOP",)``.

    Text longer than :data:`MAX_NUMBER_CHARS` is refused before it is read; the
    rest is read in one pass (time linear in its length, no backtracking).

    Raises
    ------
    NumberError
        A ValueError, when the text is not such a number, is too long, or its value is
        not a normal float (inf, nan, beyond 1.8e308, or a non-zero value below 2.2e-308);
        ``reason`` says which.

    Examples
    --------
    >>> [parse_number(t) for t in ("7B", "70e9", "1.5T", "405000000000", "1,024", "0.0333")]
    [7000000000.0, 70000000000.0, 1500000000000.0, 405000000000.0, 1024.0, 0.0333]
    >>> [parse_number(t) for t in ("3.15×10²³", "3.15 × 10^23", "500万", "5亿", "0.38/1.2")]
    [3.15e+23, 3.15e+23, 5000000.0, 500000000.0, 0.3166666666666667]
    >>> parse_number("-$1.09M", currency="USD"), parse_number("3.15e+23 FLOP", units=("FLOP",))
    (-1090000.0, 3.15e+23)
    >>> parse_number("1e1000000")
    Traceback (most recent call last):
    ...
    explorer.text.NumberError: outside the float range (about 2.2e-308 to 1.8e308 in size, or 0): '1e1000000'
    """
    raw = text if isinstance(text, str) else str(text)
    if len(raw) > MAX_NUMBER_CHARS:
        raise NumberError(raw, "long")
    units = (units,) if isinstance(units, str) else tuple(units)
    s = raw.strip()
    if _BAD_COMMA.search(s):
        raise NumberError(raw, "comma")
    # separators between digits: fixed-width look-arounds, one pass
    cleaned = re.sub(r"(?<=\d)[,_ ](?=\d)", "", s)
    if cleaned.count("/") == 1:  # a simple quotient: 0.38/1.2
        top, bottom = cleaned.split("/")
        numerator = _term(top.strip(), raw, currency, units)
        denominator = _term(bottom.strip(), raw, None, ())
        if denominator == 0:
            raise NumberError(raw, "zero")
        result = numerator / denominator
        if result != 0 and not (sys.float_info.min <= abs(result) <= sys.float_info.max):
            raise NumberError(raw, "range")
        return result
    return _term(cleaned, raw, currency, units)


def _term(s: str, raw: str, currency: str | None, units: tuple[str, ...]) -> float:
    """One number of :func:`parse_number` (no quotient); ``raw`` is the text quoted in an error."""
    parts = _scan(s, units)
    if parts is None:
        raise NumberError(raw, "syntax")
    mantissa, exponent, times, suffix, symbol, _ = parts
    if symbol and _SYMBOL_CURRENCY[symbol] != currency:
        raise NumberError(raw, "currency", symbol=symbol, currency=currency)
    digits = decimal.Decimal(mantissa)  # at most 64 characters, exact (no context, no traps)
    if digits.is_zero():
        return -0.0 if mantissa.startswith("-") else 0.0
    power = int(exponent) + int(times) + _PARSE_EXP.get(suffix, 0)  # at most 64 digits: cheap
    if abs(power + digits.adjusted()) > _MAX_EXPONENT:
        raise NumberError(raw, "range")
    result = float(decimal.Decimal(f"{mantissa}e{power}"))  # the constructor is exact; float() rounds once
    if not (sys.float_info.min <= abs(result) <= sys.float_info.max):
        raise NumberError(raw, "range")
    return result


#: Chinese number scales: 万亿 (10^12), 亿 (10^8) and 万 (10^4).
_ZH_SCALES = ((1e12, "万亿"), (1e8, "亿"), (1e4, "万"))


def quantity_in(x: float | None, language: str = "en", digits: int = 3) -> str:
    """A compact number in ``language``: :func:`quantity` in English (``1.4M``); in Chinese with
    万, 亿 and 万亿 (``140万``, ``1.91亿``, ``1.39万亿``, ``3,288``).

    >>> quantity_in(1.4e6, "zh"), quantity_in(1.914e8, "zh"), quantity_in(3288, "zh"), quantity_in(1.4e6)
    ('140万', '1.91亿', '3,288', '1.4M')
    >>> quantity_in(1.392e12, "zh")
    '1.39万亿'
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


def money_in(x: float, currency: str = "USD", language: str = "en", digits: int = 3, *, symbol: bool = False) -> str:
    """An amount in ``language``: :func:`money` in English (``$1.4M``); in Chinese the number with
    万/亿 and the currency as a word (``140万美元``, ``2,290万元``), or with ``symbol`` its sign first, for
    cards, cells and chart axes (``¥3,660万``, ``¥1.89亿``).

    >>> money_in(1.4e6, language="zh"), money_in(2.29e7, "CNY", "zh"), money_in(1.4e6)
    ('140万美元', '2,290万元', '$1.4M')
    >>> money_in(3.66e7, "CNY", "zh", symbol=True), money_in(1.89e8, "CNY", "zh", symbol=True)
    ('¥3,660万', '¥1.89亿')
    """
    if language != "zh":
        return money(x, currency, digits)
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "未知"
    text = quantity_in(x, "zh", digits)
    if symbol and currency in CURRENCY_SYMBOLS:
        sign = CURRENCY_SYMBOLS[currency]
        return "-" + sign + text[1:] if text.startswith("-") else sign + text
    return text + {"USD": "美元", "CNY": "元"}.get(currency, currency)


def count_in(x: float, language: str = "en", digits: int = 3) -> str:
    """A count (GPU-hours, tokens, MWh) in ``language``: :func:`quantity` in English, 万/亿 in Chinese; from
    10^16 up as a power of ten in both (``1.18×10²⁴``), never in e-notation.

    >>> count_in(6.05e5, "zh"), count_in(6.05e5), count_in(1.18e24, "zh"), count_in(1.18e24)
    ('60.5万', '605k', '1.18×10²⁴', '1.18×10²⁴')
    """
    if x is not None and not (isinstance(x, float) and math.isnan(x)) and math.isfinite(x) and abs(x) >= 1e16:
        return power_of_ten(x, digits)
    return quantity_in(x, language, digits)


def breakeven_text(months: float, language: str = "en") -> str:
    """A break-even time [months] in words: ``"34 months"``, ``"never"`` when renting stays cheaper (infinite),
    ``"–"`` when there is nothing to buy (NaN, a rented run).

    >>> breakeven_text(34.4), breakeven_text(float("inf")), breakeven_text(float("inf"), "zh")
    ('34 months', 'never', '永不')
    """
    if months is None or math.isnan(months):
        return "–"
    if math.isinf(months):
        return label("owned_never", language)
    return f"{months:.0f} {label('unit_months', language)}"


def rows_html(title: str, rows: Iterable[tuple[str, str]], notes: Iterable[object] = ()) -> str:
    """A notebook's table of named figures: the ``_repr_html_`` of :class:`~explorer.analysis.plan.Plan` and
    :class:`~explorer.analysis.budget.BudgetStatus`, one row per (name, value), then ``notes`` as a list.

    Every text is escaped.

    >>> page = rows_html("Plan", [("budget", "$5M")], ["a <note>"])
    >>> "<th style='text-align:left'>budget</th><td style='text-align:right'>$5M</td>" in page
    True
    >>> page.endswith("<ul><li>a &lt;note&gt;</li></ul>")
    True
    """
    cells = "".join(f"<tr><th style='text-align:left'>{html.escape(k)}</th><td style='text-align:right'>"
                    f"{html.escape(v)}</td></tr>" for k, v in rows)
    items = "".join(f"<li>{html.escape(str(note))}</li>" for note in notes)
    return (f"<table><caption style='text-align:left'><b>{html.escape(title)}</b></caption>{cells}</table>"
            + (f"<ul>{items}</ul>" if items else ""))


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
