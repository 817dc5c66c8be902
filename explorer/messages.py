"""Warnings and errors as an id and parameters, rendered in English or Chinese.

Every warning of the model and every refusal (:class:`explorer.errors.ScenarioError`)
is a :class:`Message`: an ``id`` naming a row of ``explorer/data/messages.csv``
(``id, en, zh, notes``) and the ``params`` its templates fill in. A message is a
``str`` whose value is its English text, so code that reads warnings as strings
(``"labelled" in w``, ``json.dumps``) keeps working; :meth:`Message.render`
gives it in another language.

Templates use :meth:`str.format` fields. Besides the standard format specs
(``{gpus:,.0f}``, ``{days:.3g}``, ``{lost:.0%}``) a field may carry one of these:

``term``
    a word in the viewer's language: the ``term:<value>`` row of labels.csv, else the value.
``field``
    a field by its label (labels.csv row ``field:<value>``, else ``<value>``, else ``term:<value>``); in plain
    English (``str``, the CLI) the field's name.
``fields``
    a list of field names, each as ``field``.
``choices``
    a list of choices of the message's ``field`` param, each by its label
    (``<field>_<choice>``, else ``term:<choice>``, else the choice).
``list``
    a list of words, each as ``term``, joined with ", " (English) or "、" (Chinese).
``num``
    a number as a text box reads it, exactly (``1M``, ``250,000``; in Chinese ``100万``, ``25万``) when readable,
    else ``{:g}``.
``value``
    a refused value: a nested message rendered, a number as ``num``, else its short ``repr``.
``msg``
    a nested message, rendered in the same language.
``name``, ``name+<suffix>``
    a name of the catalogs or the model (a named default, a field, a price basis) with an optional literal
    suffix (``{basis:name+ price}``): in plain English the value and suffix as they are; else the
    ``term:<value><suffix>`` row of labels.csv, else the ``<value><suffix>`` row, else as ``field``.
``code``
    an id written in capitals when readable (``bf16`` -> ``BF16``); in plain English as it is.
``upper``
    an id written in capitals (``bf16`` -> ``BF16``).
``count<format>``
    a count (days, people, GB) that may be large: in plain English with ``format`` (``{days:count,.3g}``), else as the
    page writes counts, never in e-notation (``1.67k``; in Chinese ``1,670``, ``60.5万``; :func:`explorer.text.count_in`).
``usd<format>``
    an amount in US dollars (a price, a pay, a budget) in the page's currency: in plain English (``str``, the
    CLI) ``format`` and ``USD`` (``{usd:usd,.0f}`` -> ``444,000 USD``); in readable English the amount at the
    exchange rate with ``format`` and the currency's code (``3,145,000 CNY``); in Chinese with 万/亿 and the
    currency as a word (``44.4万美元``, ``315万元``, :func:`explorer.text.money_in`). The template writes no
    currency of its own (``{rate:usd.3g}/GPU-hour``).

This module sits near the bottom of the package: it imports only :mod:`explorer.tables` (the CSV reader) and
:mod:`explorer.text` (labels and number formats); :mod:`explorer.errors` and :mod:`explorer.catalog` sit above it
(docs/architecture.md, checked by ``make lint``).
"""

from __future__ import annotations

import functools
import math
import re
import string
from typing import Any, Iterable, Mapping

from explorer.tables import read_rows
from explorer.text import count_in, label, labels, money_in, power_of_ten, readable_number, short_repr

__all__ = ["Message", "render", "table", "message_ids"]


class Message(str):
    """A warning or an explanation: ``id`` and ``params``, whose ``str`` is the English text.

    Parameters
    ----------
    msg_id : str
        A row of ``explorer/data/messages.csv`` (positional only; kept as the attribute ``id``).
    **params
        The values its templates fill in (numbers unformatted; ids, not words).

    Examples
    --------
    >>> m = Message("mfu_outside_range", mfu=0.9, lo=0.15, hi=0.55)
    >>> m  # its repr is the text's, so a printed list of warnings reads as before
    'MFU 0.90 is outside the range seen in published runs (0.15-0.55).'
    >>> m.id, m.params
    ('mfu_outside_range', {'mfu': 0.9, 'lo': 0.15, 'hi': 0.55})
    >>> m.render("zh")
    'MFU 0.90 超出公开训练中见过的范围（0.15–0.55）。'
    """

    id: str
    params: Mapping[str, Any]

    def __new__(cls, msg_id: str, /, **params: Any) -> "Message":
        """The message ``msg_id`` with ``params``; its string value is the English text."""
        self = super().__new__(cls, _format(msg_id, params, "en", readable=False))
        self.id = msg_id
        self.params = params
        return self

    def render(self, language: str = "en", *, readable: bool | str = True,
               currency: tuple[str, float] = ("USD", 1.0)) -> str:
        """The message in ``language`` ("en" or "zh").

        ``readable`` (the app's and the Chinese CLI's way) names fields by their
        labels and writes numbers as the text boxes do; without it the English is
        ``str(message)``; ``readable="numbers"`` (the English CLI's way) keeps the
        English field names of ``str(message)`` and writes numbers readably.
        ``currency`` is the page's (ISO code, units per US dollar): amounts in dollars (the ``usd`` fields)
        are shown in it, except in plain English, which is the model's own text in USD.

        >>> Message("team_pay_us_default", usd=444_000.0, country="Japan").render("zh", currency=("CNY", 7.0))
        '人力成本采用美国的人均综合成本（每年 311万元）；请填写日本的实际成本。'
        """
        return _format(self.id, self.params, language, readable=readable, currency=currency)


    def __reduce__(self) -> tuple[Any, tuple[str, dict[str, Any]]]:
        return (_rebuild, (self.id, dict(self.params)))

    def __copy__(self) -> "Message":
        return self

    def __deepcopy__(self, memo: object) -> "Message":
        return self


def _rebuild(msg_id: str, params: Mapping[str, Any]) -> Message:
    return Message(msg_id, **params)


def render(message: object, language: str = "en", *, readable: bool | str = True,
           currency: tuple[str, float] = ("USD", 1.0)) -> str:
    """``message`` in ``language``: a :class:`Message` or a :class:`~explorer.errors.ScenarioError` rendered,
    any other text as it is (it has no id to translate by).

    Parameters
    ----------
    message : object
        Anything with a ``render(language, readable=...)`` method (a :class:`Message`, a
        :class:`~explorer.errors.ScenarioError`), else any object, shown as ``str(message)``.
    language : {"en", "zh"}
        The viewer's language.
    readable : bool or "numbers"
        As :meth:`Message.render`.
    currency : (str, float)
        The page's currency and its units per US dollar, as :meth:`Message.render` (passed on to a Message only).

    Returns
    -------
    str
        The text in ``language``.
    """
    if isinstance(message, Message):
        return message.render(language, readable=readable, currency=currency)
    if hasattr(message, "render"):
        return str(message.render(language, readable=readable))
    return str(message)


@functools.cache
def table() -> Mapping[str, Mapping[str, str]]:
    """All message templates: ``{id: {"en": ..., "zh": ...}}`` from ``explorer/data/messages.csv``.

    A table that breaks its schema raises :class:`explorer.tables.TableError`, worded without the table.

    Returns
    -------
    mapping of str to mapping of str to str
        Each message id -> ``{"en": template, "zh": template}``, in table order.
    """
    return {row["id"]: {"en": row["en"], "zh": row["zh"]} for row in read_rows("messages.csv")}


def message_ids() -> tuple[str, ...]:
    """The ids of every message, in table order.

    Returns
    -------
    tuple of str
        The ``id`` column of ``explorer/data/messages.csv``.
    """
    return tuple(table())


def _format(msg_id: str, params: Mapping[str, Any], language: str, *, readable: bool | str,
            currency: tuple[str, float] = ("USD", 1.0)) -> str:
    try:
        row = table()[msg_id]
    except KeyError:
        raise KeyError(f"no message {msg_id!r} in explorer/data/messages.csv") from None
    template = row.get(language) or row["en"]
    text = _Formatter(params, language, readable, currency).vformat(template, (), params)
    # Chinese templates space out what they insert (H100, 1,024); between two Chinese words the space goes
    return _CJK_SPACE.sub("", text) if language == "zh" else text


_CJK_SPACE = re.compile(r"(?<=[\u3000-\u9fff\uff00-\uffef]) (?=[\u3000-\u9fff\uff00-\uffef])")


class _Formatter(string.Formatter):
    """:meth:`str.format` with the message specs of the module docstring."""

    def __init__(self, params: Mapping[str, Any], language: str, readable: bool | str,
                 currency: tuple[str, float] = ("USD", 1.0)):
        self.params, self.language, self.readable, self.currency = params, language, readable, currency
        # str(message): ids and names as they are; readable="numbers" (the English CLI): names as they are,
        # numbers as the boxes and options write them (1M, not 1e+06)
        self.plain = language == "en" and readable is not True

    def format_field(self, value: Any, spec: str) -> str:
        lang = self.language
        if spec == "term":
            return _term(value, lang)
        if spec == "field":
            return self._field(value)
        if spec == "fields":
            return self._join(self._field(v) for v in value)
        if spec == "choices":
            if self.plain:
                return ", ".join(str(v) for v in value)
            return self._join(_choice(self.params.get("field", ""), v, lang) for v in value)
        if spec == "list":
            if self.plain:
                return ", ".join(str(v) for v in value)
            return self._join(_term(v, lang) for v in value)
        if spec == "num":
            return self._num(value)
        if spec == "sci":
            return power_of_ten(float(value))
        if spec == "value":
            return self._value(value)
        if spec == "msg":
            return render(value, lang, readable=self.readable, currency=self.currency)
        if spec == "name" or spec.startswith("name+"):
            return self._name(f"{value}{spec[5:]}")
        if spec == "code":
            return str(value) if self.plain else str(value).upper()
        if spec == "upper":
            return str(value).upper()
        if spec.startswith("usd"):
            return self._usd(value, spec[3:])
        if spec.startswith("count") and isinstance(value, (int, float)) and not isinstance(value, bool):
            if not math.isfinite(value):
                return _unknown(lang) if math.isnan(value) else "∞"
            return format(value, spec[5:]) if self.plain else count_in(value, lang)
        if isinstance(value, float) and not math.isfinite(value) and spec:
            return _unknown(lang) if math.isnan(value) else "∞"
        return str(super().format_field(value, spec))

    def _join(self, words: Iterable[str]) -> str:
        # labels may hold commas ("On-demand, hyperscaler list"): readable English lists use semicolons
        return ("、" if self.language == "zh" else ", " if self.plain else "; ").join(words)

    def _field(self, name: str) -> str:
        if self.plain:
            return str(name)
        for key in (f"field:{name}", str(name), f"term:{name}"):  # a field's own label first (the Plan's budget)
            if key in labels():
                return _label(key, self.language)
        return str(name)

    def _name(self, key: str) -> str:
        if self.plain:
            return key
        for k in (f"term:{key}", key):
            if k in labels():
                return _label(k, self.language)
        return self._field(key)

    def _num(self, x: Any) -> str:
        if isinstance(x, int) and not isinstance(x, bool) and x.bit_length() > 1000:  # past any float (a hostile file)
            return short_repr(x)
        if self.readable and isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x):
            return readable_number(int(x) if float(x).is_integer() and abs(x) < 2**53 else x, self.language)
        return format(x, "g") if isinstance(x, (int, float)) and not isinstance(x, bool) else str(x)

    def _usd(self, x: Any, fmt: str) -> str:
        """An amount in US dollars in the page's currency (the ``usd`` spec of the module docstring)."""
        if isinstance(x, bool) or not isinstance(x, (int, float)):
            return str(x)
        if not math.isfinite(x):
            return _unknown(self.language) if math.isnan(x) else "∞"
        if self.plain:
            return f"{format(x, fmt)} USD"
        code, per_usd = self.currency
        if self.language == "zh":
            return money_in(x * per_usd, code, "zh")
        return f"{format(x * per_usd, fmt)} {code}"

    def _value(self, value: Any) -> str:
        if hasattr(value, "render"):
            return render(value, self.language, readable=self.readable, currency=self.currency)
        if self.readable and isinstance(value, float) and not math.isfinite(value):
            return "NaN" if math.isnan(value) else "∞" if value > 0 else "-∞"
        if self.readable and isinstance(value, (int, float)) and not isinstance(value, bool):
            return self._num(value)
        return short_repr(value)


def _label(key: str, language: str) -> str:
    return label(key, language)


def _term(value: Any, language: str) -> str:
    key = f"term:{value}"
    return _label(key, language) if key in labels() else str(value)


def _choice(field: str, value: Any, language: str) -> str:
    for key in (f"{field}_{value}", f"term:{value}"):
        if key in labels():
            return _label(key, language)
    return str(value)


def _unknown(language: str) -> str:
    return "未知" if language == "zh" else "unknown"
