"""Helpers of the workshop lessons, in one namespace students cannot shadow by accident.

A lesson makes one :class:`Lesson` at its top (``ws = Lesson("en")``) and calls
everything through it: ``ws.t(en, zh)``, ``ws.W.FloatSlider``, ``ws.panel``,
``ws.table``, ``ws.money``. A student who writes ``t = 2e12`` or ``W = 0.0508``
in an exercise cell changes their own variables, not the lesson.

Exercises (:meth:`Lesson.exercise`, :meth:`Lesson.check`) are answered in two
places: in Voila, a box with a Check button; in JupyterLab, the student sets a
variable and the check cell reads it. Both give the same feedback, which says
why a wrong answer is wrong (off by a power of ten, a ratio upside down, a
named mistake such as total instead of active parameters), accept a stated
relative tolerance, and show the solution only when the student asks.
"""

from __future__ import annotations

import base64
import html
import io
import math
import re
from dataclasses import dataclass, field

import ipywidgets as widgets
from IPython.display import HTML, display

from explorer import classroom
from explorer.errors import short_repr
from explorer.text import money as _money
from explorer.text import MAX_NUMBER_CHARS, NumberError, parse_number

__all__ = ["Lesson", "Exercise", "Choice", "Capstone", "parse_answer", "no_math"]

_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def no_math(html_text: str) -> str:
    """HTML that MathJax leaves alone: dollar amounts are money, not TeX delimiters.

    JupyterLab and Voila typeset HTML outputs, so ``$698k / $1.64M`` would become
    math. MathJax skips elements of class ``tex2jax_ignore`` (its default
    ``ignoreHtmlClass``).
    """
    return f'<div class="tex2jax_ignore mathjax_ignore">{html_text}</div>'


#: Scale words written out after a number ("69.3 billion"), read as the suffixes of :func:`explorer.text.parse_number`.
_SCALE_SUFFIX = {"thousand": "k", "million": "M", "billion": "B", "trillion": "T"}
_SCALE_WORD = re.compile(r"(?<=[\d.])\s*(thousand|million|billion|trillion)\b", re.IGNORECASE)
#: A ratio's "times" sign at the end ("1.60x", "1.6×"), as the lessons print ratios; "3 x 10^23" keeps its x.
_TIMES_SIGN = re.compile(r"(?<=[\d.])\s*[x×X]$")
#: Energy units the lessons print (lesson 5: kWh for prices and grids, MWh for a run), in MWh each: an energy
#: answer is read in any of them and converted to the exercise's own unit ("1.47e6 kWh" for "1,470 MWh").
_ENERGY_MWH = {"wh": 1e-6, "kwh": 1e-3, "mwh": 1.0, "gwh": 1e3, "千瓦时": 1e-3, "兆瓦时": 1.0, "吉瓦时": 1e3}
_ENERGY_UNIT = re.compile(r"(?<=[\d.\sKkMBT万亿])\s*(GWh|MWh|kWh|Wh|千瓦时|兆瓦时|吉瓦时)$", re.IGNORECASE)


def parse_answer(text, units=()) -> float:
    """A student's answer: a number, or text such as ``3.15e23``, ``3.15 × 10^23``, ``3.15×10²³``, ``69B``,
    ``6.25%``, ``1,234``, ``0.38/1.2``, ``-$1.09M``, ``500万``, ``1.6x`` or ``$3.2 million``
    (:func:`explorer.text.parse_number`).

    A trailing ``%`` divides by 100. Amounts are in US dollars, as every lesson asks: ``$`` is read, ``¥`` is
    refused (reason ``"currency"``). A trailing unit word is read when it is one of ``units``, the units the
    exercise names (``3.15e+23 FLOP``). Raises :class:`explorer.text.NumberError` (a ValueError) when it is
    not a number, longer than :data:`explorer.text.MAX_NUMBER_CHARS` characters, or outside the float range.

    Examples
    --------
    >>> [parse_answer(s) for s in ("3.15e23", "3.15 x 10^23", "3.15×10**23", "69B", "6.25%", "1,234", 0.5)]
    [3.15e+23, 3.15e+23, 3.15e+23, 69000000000.0, 0.0625, 1234.0, 0.5]
    >>> parse_answer("3.15e+23 FLOP", units=("FLOP",)), parse_answer("-$1.09M"), parse_answer("12 %")
    (3.15e+23, -1090000.0, 0.12)

    The forms the lessons print are read too: a ratio with its "times" sign and scale words written out.

    >>> [parse_answer(s) for s in ("1.6x", "1.60×", "69.3 billion", "$3.2 million", "2 thousand")]
    [1.6, 1.6, 69300000000.0, 3200000.0, 2000.0]

    An exercise that asks for energy (``units`` names Wh, kWh, MWh or GWh) reads the others too, converted:

    >>> [parse_answer(s, units=("MWh",)) for s in ("1.47e6 kWh", "1,470 MWh", "1.47 GWh", "1470")]
    [1470.0, 1470.0, 1470.0, 1470.0]
    """
    if isinstance(text, bool):
        raise ValueError("not a number")
    if isinstance(text, (int, float)):
        value = float(text)
        if not math.isfinite(value):
            raise ValueError("not a finite number")
        return value
    s = str(text)
    if len(s) > MAX_NUMBER_CHARS:  # refused before it is read: an answer box takes text from anyone
        raise NumberError(s, "long")
    s = s.strip().replace("−", "-").replace("，", ",").replace("＊", "*").replace("／", "/").replace("％", "%")
    percent = s.endswith("%")
    if percent:
        s = s[:-1].strip()
    # the forms the lessons print: "1.60x" (a ratio), "69.3 billion", "$3.2 million"
    read = _TIMES_SIGN.sub("", _SCALE_WORD.sub(lambda m: _SCALE_SUFFIX[m.group(1).lower()], s))
    scale = 1.0
    asked = next((_ENERGY_MWH[u.casefold()] for u in units if u.casefold() in _ENERGY_MWH), None)
    typed = _ENERGY_UNIT.search(read) if asked is not None else None
    if typed and asked is not None:  # an energy answer in another unit the lessons print: converted to the exercise's unit
        read, scale = read[:typed.start()].rstrip(), _ENERGY_MWH[typed.group(1).casefold()] / asked
    try:
        value = parse_number(read, currency="USD", units=units) * scale
    except NumberError as exc:
        if read == s:
            raise
        raise NumberError(s, exc.reason, symbol=exc.symbol, currency=exc.currency) from None  # names what was typed
    return value / 100 if percent else value


@dataclass
class Exercise:
    """One exercise: its answer, tolerance, known mistakes and the widgets that check it."""

    lesson: "Lesson"
    number: int
    answer: float
    tolerance: float                      # relative, e.g. 0.01 for within 1%
    mistakes: list = field(default_factory=list)   # (value, en, zh): a wrong answer a student is likely to give
    solution: str = ""                    # HTML, shown on request
    given: list = field(default_factory=list)      # (label, value) pairs the student needs (Voila has no code)
    accept: list = field(default_factory=list)     # (value, en, zh): another right answer (e.g. by another method)
    units: tuple = ()                     # unit words the answer may end with, as the exercise names them ("FLOP")

    def __post_init__(self):
        t = self.lesson.t
        self.box = widgets.Text(placeholder=t("your answer, e.g. 3.2e23 or 12%", "你的答案，例如 3.2e23 或 12%"),
                                layout=widgets.Layout(width="16em"))
        self.button = widgets.Button(description=t("Check", "检查"), button_style="primary",
                                     layout=widgets.Layout(width="auto"))
        self.feedback = widgets.HTML()
        self.fold = widgets.Accordion(children=[widgets.HTML(no_math(self.solution))])
        self.fold.set_title(0, t("Show the solution", "显示解答"))
        self.fold.selected_index = None
        self.button.on_click(lambda _: self.submit(self.box.value))
        rows = [widgets.HTML(no_math(self.lesson.table(self.given)))] if self.given else []
        label = widgets.HTML(f"<b>{t('Your answer', '你的答案')}</b> "
                             f"({t('accepted within', '允许误差')} ±{self._tol_text()})")
        self.widget = widgets.VBox(rows + [label, widgets.HBox([self.box, self.button]), self.feedback, self.fold,
                                           self.lesson.progress], layout=widgets.Layout(max_width="100%"))
        self.correct = False

    def _tol_text(self) -> str:
        return f"{self.tolerance:.0%}" if self.tolerance >= 0.01 else f"{self.tolerance:.1%}"

    def _near(self, value: float, target: float) -> bool:
        return target != 0 and abs(value / target - 1) <= self.tolerance

    def judge(self, raw) -> tuple[bool, str]:
        """(correct?, feedback in the lesson's language) for an answer given as text or number."""
        t = self.lesson.t
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            return False, t("Type a number first.", "请先输入一个数。")
        try:
            value = parse_answer(raw, self.units)
        except NumberError as exc:
            if exc.reason in ("comma", "currency"):
                return False, self._refused(raw, exc)
            if exc.reason != "range":
                return False, self._unreadable(raw)
            return False, t(f"“{html.escape(short_repr(str(raw), 40)[1:-1])}” is too large or too small to check: "
                            "a number here lies between about 1e-307 and 1e308 in size.",
                            f"“{html.escape(short_repr(str(raw), 40)[1:-1])}”太大或太小，无法检查："
                            "这里的数的大小在约 1e-307 到 1e308 之间。")
        except (ValueError, TypeError):
            return False, self._unreadable(raw)
        if self._near(value, self.answer):
            self.correct = True
            return True, t(f"Correct: {_fmt(value)} is within ±{self._tol_text()} of {_fmt(self.answer)}. "
                           "Open the solution to compare your reasoning.",
                           f"正确：{_fmt(value)} 与 {_fmt(self.answer)} 相差在 ±{self._tol_text()} 以内。"
                           "可以打开解答对照你的思路。")
        for target, en, zh in self.accept:
            if self._near(value, target):
                self.correct = True
                return True, t(f"Correct: {_fmt(value)} is within ±{self._tol_text()} of {_fmt(target)}: {en}",
                               f"正确：{_fmt(value)} 与 {_fmt(target)} 相差在 ±{self._tol_text()} 以内：{zh}")
        self.correct = False
        for target, en, zh in self.mistakes:
            if self._near(value, target):
                return False, t(f"Not yet: {en}", f"还不对：{zh}")
        if "," in str(raw) and self._near(value / 1000, self.answer):  # 1,234 meant as the decimal 1.234
            shown = html.escape(short_repr(str(raw), 40)[1:-1])
            return False, t(f"Not yet: “{shown}” reads as {_fmt(value)}, because a comma followed by three digits "
                            f"separates thousands. For the decimal {_fmt(value / 1000)}, write a dot.",
                            f"还不对：“{shown}”读作 {_fmt(value)}，因为逗号后跟三位数字时是千位分隔符。"
                            f"如果你的意思是小数 {_fmt(value / 1000)}，请用小数点。")
        return False, self._diagnose(value)

    def _refused(self, raw, exc: NumberError) -> str:
        """Feedback on a decimal comma (``3,5``) or a currency symbol other than ``$`` (``¥5M``)."""
        t, shown = self.lesson.t, html.escape(short_repr(str(raw), 40)[1:-1])
        if exc.reason == "comma":
            return t(f"“{shown}”: a comma here separates thousands and must be followed by three digits "
                     "(1,234 is one thousand two hundred and thirty-four), so this is not read as a decimal. "
                     "Write the decimal point as a dot: 3.5, not 3,5.",
                     f"“{shown}”：这里的逗号是千位分隔符，后面必须跟三位数字（1,234 是一千二百三十四），"
                     "所以不会被读作小数。请用小数点：写 3.5，而不是 3,5。")
        return t(f"“{shown}”: answers here are in US dollars; convert the amount to US dollars and write it "
                 "without ¥ (e.g. 1.2M or $1.2M).",
                 f"“{shown}”：这里的答案以美元计；请把金额换算成美元，并去掉 ¥（例如 1.2M 或 $1.2M）。")

    def _unreadable(self, raw) -> str:
        """Feedback on an answer that is no number (quoted, cut to 40 characters)."""
        t, shown = self.lesson.t, html.escape(short_repr(str(raw), 40)[1:-1])
        return t(f"“{shown}” is not a number I can read: write it like 3.2e23, "
                 "3.2 × 10^23, 69B or 12%.",
                 f"无法读取“{shown}”：请写成 3.2e23、3.2 × 10^23、69B 或 12% 这样的数。")

    def _diagnose(self, value: float) -> str:
        t, a = self.lesson.t, self.answer
        if value == 0:
            return t("Not yet: zero cannot be right here.", "还不对：这里不可能是零。")
        ratio = value / a
        if ratio < 0:
            return t("Not yet: the sign is wrong (a saving is negative, a cost positive).",
                     "还不对：符号错了（节省为负，成本为正）。")
        if self._upside_down(value):
            return t("Not yet: that is the ratio upside down (divide the other way).",
                     "还不对：比值倒过来了（换个方向除）。")
        # in logs: value / answer can overflow to inf or underflow to 0 (1e308 against 1e-10)
        exp = math.log10(abs(value)) - math.log10(abs(a))
        k = round(exp)
        if k != 0 and abs(10.0 ** (exp - k) - 1) <= max(self.tolerance, 0.02):
            word = t("too large", "太大") if k > 0 else t("too small", "太小")
            hint = {2: t(" A percentage where a fraction is asked (write 12% or 0.12)?",
                         " 是不是把分数写成了百分数（应写 12% 或 0.12）？"),
                    -2: t(" A fraction where a percentage is asked?", " 是不是把百分数写成了分数？")}.get(k, "")
            if abs(k) in (3, 6, 9, 12):
                hint = t(" Check the units: k = 10³, M = 10⁶, B = 10⁹, T = 10¹²; seconds vs hours; kWh vs MWh.",
                         " 检查单位：k = 10³，M = 10⁶，B = 10⁹，T = 10¹²；秒与小时；千瓦时与兆瓦时。")
            return t(f"Not yet: your answer is 10{str(abs(k)).translate(_SUPERSCRIPT)} times {word} "
                     f"(off by a power of ten).{hint}",
                     f"还不对：你的答案{word}了 10{str(abs(k)).translate(_SUPERSCRIPT)} 倍（差了 10 的幂）。{hint}")
        if self._near(1 - value, a) and 0 < value < 1:
            return t("Not yet: that is the complement (1 − x): the share kept instead of the share saved, "
                     "or the other way round.", "还不对：这是补数（1 − x）：把保留的比例当成了节省的比例，或反之。")
        if abs(k) >= 3:  # far off, and not by a power of ten: say how far in powers of ten, not in percent
            word = t("too large", "太大") if k > 0 else t("too small", "太小")
            return t(f"Not yet: your answer is about 10{str(abs(k)).translate(_SUPERSCRIPT)} times {word}.",
                     f"还不对：你的答案{word}了约 10{str(abs(k)).translate(_SUPERSCRIPT)} 倍。")
        direction = t("high", "高") if ratio > 1 else t("low", "低")
        return t(f"Not yet: your answer is {abs(ratio - 1):.0%} too {direction} (allowed ±{self._tol_text()}). "
                 "Recheck each factor of the formula.",
                 f"还不对：你的答案偏{direction} {abs(ratio - 1):.0%}（允许 ±{self._tol_text()}）。请逐项检查公式中的每个因子。")

    def _upside_down(self, value: float) -> bool:
        """Is ``value`` about 1 / answer? Judged by the ratio value × answer, which is 1 for the exact inverse.

        The window is wider than the tolerance (the larger of 3 × tolerance and 10%): a student who inverts a
        by-hand answer that is itself within the tolerance lands up to that far from 1. It applies only when
        the inverse explains the answer much better than a plain error does (|ln(value·answer)| under a third
        of |ln(value / answer)|), so that an answer near 1 is not called upside down for being a little off.
        """
        a = self.answer
        product, ratio = value * a, value / a
        if product <= 0 or ratio <= 0:
            return False
        window = max(3 * self.tolerance, 0.10)
        return (abs(product - 1) <= window and 1 / (1 + window) <= product
                and abs(math.log(product)) < abs(math.log(ratio)) / 3)

    def submit(self, raw) -> bool:
        """Judge ``raw`` and show the feedback under the box (what the Check button does)."""
        ok, message = self.judge(raw)
        color = "#1a7f37" if ok else "#9a3412"
        mark = "✔" if ok else "✘"
        self.feedback.value = no_math(f"<p style='color:{color};margin:4px 0'>{mark} {message}</p>")
        self.lesson.checked(f"E{self.number}", ok)
        return ok


@dataclass
class Choice:
    """A concept question: one letter is right, and every option says why it is right or wrong.

    ``why`` maps each letter to ``(english, chinese)``: for the right letter, why it holds; for a wrong
    one, the misconception it shows. In Voila the student picks a letter and presses Check; in
    JupyterLab they set a variable (``q1 = "B"``) and run the cell.
    """

    lesson: "Lesson"
    key: str
    answer: str
    why: dict

    def __post_init__(self):
        t = self.lesson.t
        self.letters = sorted(self.why)
        if self.answer not in self.letters:
            raise ValueError(f"answer: {self.answer!r} is not one of {self.letters}")
        self.pick = widgets.ToggleButtons(options=self.letters, value=None, style={"button_width": "3em"})
        self.button = widgets.Button(description=t("Check", "检查"), button_style="primary",
                                     layout=widgets.Layout(width="auto"))
        self.feedback = widgets.HTML()
        self.button.on_click(lambda _: self.submit(self.pick.value))
        label = widgets.HTML(f"<b>{t('Your answer', '你的答案')}</b>")
        self.widget = widgets.VBox([label, widgets.HBox([self.pick, self.button],
                                                       layout=widgets.Layout(flex_flow="row wrap")),
                                    self.feedback, self.lesson.progress], layout=widgets.Layout(max_width="100%"))
        self.correct = False

    def judge(self, raw) -> tuple[bool, str]:
        """(correct?, feedback in the lesson's language) for a letter such as ``"B"``, ``"b"`` or ``"(b)"``."""
        t = self.lesson.t
        if raw is None or not str(raw).strip():
            return False, t("Pick a letter first.", "请先选一个字母。")
        letter = re.sub(r"[\s().、．.]", "", str(raw)).upper()
        if letter not in self.why:
            return False, t(f"“{html.escape(str(raw))}” is not one of the letters {', '.join(self.letters)}.",
                            f"“{html.escape(str(raw))}”不是选项 {'、'.join(self.letters)} 之一。")
        en, zh = self.why[letter]
        self.correct = letter == self.answer
        if self.correct:
            return True, t(f"Correct ({letter}): {en}", f"正确（{letter}）：{zh}")
        return False, t(f"Not {letter}: {en} Try another letter.", f"不是 {letter}：{zh} 再试试别的选项。")

    def submit(self, raw) -> bool:
        """Judge ``raw`` and show the feedback under the letters (what the Check button does)."""
        ok, message = self.judge(raw)
        color = "#1a7f37" if ok else "#9a3412"
        self.feedback.value = no_math(f"<p style='color:{color};margin:4px 0'>{'✔' if ok else '✘'} {message}</p>")
        self.lesson.checked(self.key, ok)
        return ok


class Lesson:
    """Everything a lesson calls, bound to its language (``"en"`` or ``"zh"``)."""

    W = widgets          # ipywidgets, as ws.W.FloatSlider(...)
    HTML = HTML
    display = staticmethod(display)

    def __init__(self, lang: str):
        from explorer.plots.fonts import text_kwargs

        if lang not in ("en", "zh"):
            raise ValueError(f"lang: {lang!r} is not one of 'en', 'zh'")
        self.LANG = lang
        self.TEXT_KW, self.FIG_LANG = text_kwargs(lang)  # Chinese chart text only where a CJK font is installed
        self.exercises: dict[int, Exercise] = {}
        self.concepts: dict[str, Choice] = {}  # concept questions, "Q1", "Q2", ...
        self.panels: list = []  # every panel of the lesson, in order (tests drive them)
        # "you answered 3 of 4": one widget shown under every check of the page, empty until the first check
        self.progress = widgets.HTML(layout=widgets.Layout(margin="0"))

    def t(self, en: str, zh: str) -> str:
        """The text in this lesson's language."""
        return zh if self.LANG == "zh" else en

    def label(self, key: str) -> str:
        """A label of ``explorer/data/labels.csv`` in this lesson's language (e.g. ``pricing_spot``, ``dim_people``)."""
        from explorer.text import label

        return label(key, self.LANG)

    def region(self, region_id: str, *, chart: bool = False) -> str:
        """A region's name in this lesson's language (``cn-ningxia`` -> ``China West - Ningxia (Zhongwei hub)``).

        ``chart=True``: the short name (without the bracketed hub) in the language the charts can draw
        (English where no CJK font is installed), for axis labels.
        """
        from explorer import catalog
        from explorer.app.pages.estimate_html import region_name

        name = region_name(catalog.region(region_id).name, self.FIG_LANG if chart else self.LANG)
        return re.split(r"\s*[(（]", name)[0] if chart else name

    def options(self, ids, prefix: str = ""):
        """Dropdown options as (label, id) pairs: readers see words, the code gets the id."""
        from explorer.text import label

        return [(label(f"{prefix}{i}", self.LANG) if f"{prefix}{i}" in _labels() else i, i) for i in ids]

    def warnings(self, estimate) -> list:
        """The model's warnings for ``estimate`` as table rows, in this lesson's language."""
        from explorer.app.pages.estimate_html import translate

        return [(self.t("warning", "提示"), f"<span style='color:#9a3412'>{html.escape(translate(w, self.LANG))}</span>")
                for w in estimate.warnings]

    def session(self):
        """The app's session-ended notice with Reload, and the heartbeat that shows it when the kernel is gone.

        The page's widget pings the kernel every few seconds; with no answer (the kernel
        was culled or crashed, the server restarted) a bar with a Reload button covers the top of the page,
        instead of a lesson whose sliders move while its numbers stay.
        """
        from explorer.app.page_bridge import PageBridge
        from explorer.app.pages.estimate_html import session_html

        self._heartbeat = PageBridge(layout=widgets.Layout(display="none"))
        return widgets.VBox([widgets.HTML(_SESSION_STYLE + session_html()), self._heartbeat],
                            layout=widgets.Layout(margin="0"))

    def money(self, x: float) -> str:
        """An amount of US dollars, e.g. ``$8.06M`` (put it in :meth:`table` or :func:`no_math` HTML)."""
        return _money(x)

    def reveal(self, answer_html: str):
        """An answer hidden behind a fold the student opens."""
        fold = widgets.Accordion(children=[widgets.HTML(no_math(answer_html))])
        fold.set_title(0, self.t("Show the answer", "显示答案"))
        fold.selected_index = None
        return fold

    def figure_html(self, fig, alt: str):
        """A figure as an image with alt text (screen readers read it)."""
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=96, bbox_inches="tight")
        data = base64.b64encode(buf.getvalue()).decode()
        return HTML(f'<img src="data:image/png;base64,{data}" alt="{html.escape(alt)}" style="max-width:100%">')

    def panel(self, render, **controls):
        """Controls above a result: ``render(**values)`` returns HTML and reruns on every change."""
        out = widgets.HTML()

        def update(_=None):
            try:
                out.value = no_math(render(**{name: c.value for name, c in controls.items()}))
            except ValueError as exc:  # a ScenarioError names the field and what is allowed
                out.value = f"<p style='color:#a00'>{html.escape(str(exc))}</p>"

        for c in controls.values():
            c.observe(update, "value")
            if getattr(c, "description", None):  # long labels wrap instead of being cut
                c.style.description_width = "initial"
        update()
        box = widgets.VBox([*controls.values(), out])
        self.panels.append(box)
        return box

    def table(self, rows) -> str:
        """A small two-column HTML table from (label, value) pairs; dollar signs never become math."""
        body = "".join(f"<tr><td style='padding:2px 12px 2px 0'>{k}</td><td><b>{v}</b></td></tr>" for k, v in rows)
        return no_math(f"<table>{body}</table>")

    def show_table(self, rows):
        """:meth:`table` as a displayed output."""
        return HTML(self.table(rows))

    def wait_for_viewer(self) -> None:
        """In a preheated Voila kernel, wait here for the student's request; elsewhere return at once.

        A pool kernel runs the whole lesson before anyone asks for it, then waits in this call: busy, so the
        idle culler leaves it alone, and Voila's request-info socket logs it as ready for a viewer. In
        JupyterLab, JupyterHub or a plain Voila page (``VOILA_PREHEAT`` unset) it does nothing.
        """
        import os

        if os.environ.get("VOILA_PREHEAT", "False") == "False":
            return
        from voila.utils import wait_for_request

        wait_for_request()

    # ------------------------------------------------------------ progress
    def summary(self) -> tuple[int, int]:
        """(checks answered correctly, checks on the page so far): exercises, concept questions and a capstone.

        A check counts as answered once its last submitted answer was accepted. In Voila every check of the page
        is registered before the student answers; in JupyterLab, those whose folded checker cell has run.
        """
        checks = [ex.correct for ex in self.exercises.values()] + [q.correct for q in self.concepts.values()]
        cap = getattr(self, "_capstone", None)
        if cap is not None:
            checks.append(bool(cap.results) and all(ok for _, ok, _ in cap.results))
        return sum(checks), len(checks)

    def checked(self, check: str, passed: bool) -> None:
        """After a check: update the page's summary and record it in the student's home (on the hub only)."""
        done, total = self.summary()
        if total:
            t = self.t
            color = "#1a7f37" if done == total else "#555"
            self.progress.value = no_math(
                f"<p style='color:{color};margin:2px 0;font-size:90%'>"
                + (t(f"This lesson: you answered {done} of {total} checks correctly.",
                     f"本课：{total} 项检查中你已答对 {done} 项。") if done < total else
                   t(f"This lesson: all {total} checks answered correctly.", f"本课：全部 {total} 项检查均已答对。"))
                + "</p>")
        classroom.record_check(classroom.notebook_stem(), self.LANG, check, passed)

    # ------------------------------------------------------------ exercises
    def exercise(self, number: int, answer: float, *, tolerance: float, mistakes=(), solution: str = "",
                 given=(), accept=(), units=()) -> None:
        """Register exercise ``number`` with its computed ``answer`` (see :class:`Exercise`); shows nothing."""
        answer = float(answer)
        if not math.isfinite(answer) or answer == 0:
            raise ValueError(f"answer: {answer!r} must be a finite non-zero number")
        ex = Exercise(self, number, answer, float(tolerance), list(mistakes), solution, list(given), list(accept),
                      tuple(units))
        self.exercises[number] = ex

    def capstone(self):
        """The capstone's form (see :class:`Capstone`); made once, then returned again."""
        if getattr(self, "_capstone", None) is None:
            self._capstone = Capstone(self)
        return self._capstone

    def check_capstone(self, plan: dict | None = None):
        """The capstone's form; with ``plan`` (the student's ``my_plan`` dict), filled in and checked at once."""
        cap = self.capstone()
        if plan:
            cap.fill(plan)
            if any(plan.get(k) not in (None, "") for k in ("gpu_hours", "budget_usd", "biggest", "why")):
                cap.submit()
        return cap.widget

    def concept(self, key: str, *, answer: str, why: dict) -> None:
        """Register concept question ``key`` (``"Q1"``): the right letter and, per letter, why (see :class:`Choice`)."""
        self.concepts[key] = Choice(self, key, answer, dict(why))

    def check(self, number, value=None):
        """The answer box of exercise ``number`` (or the letters of concept question ``"Q1"``...).

        With ``value`` (the student's variable), the answer is judged at once.
        """
        if isinstance(number, str):
            q = self.concepts.get(number)
            if q is None:
                return HTML(self.t("<p>Run the folded cell above this one first.</p>",
                                   "<p>请先运行上面折叠的单元格。</p>"))
            if value is not None:
                if str(value).strip().upper() in q.letters:
                    q.pick.value = str(value).strip().upper()
                q.submit(value)
            return q.widget
        ex = self.exercises.get(number)
        if ex is None:
            return HTML(self.t("<p>Run the folded cell above this one first.</p>",
                               "<p>请先运行上面折叠的单元格。</p>"))
        if value is not None:
            ex.box.value = str(value)
            ex.submit(value)
        return ex.widget


class Capstone:
    """The capstone: a training run of the student's choosing, budgeted, checked for consistency and defended.

    The student chooses the run (parameters, tokens, accelerator, GPUs, pricing, deadline) and states
    what they worked out: GPU-hours, a budget for the whole project and its biggest cost dimension,
    plus a few sentences defending the plan. :meth:`check` compares each statement with the model's
    estimate of the chosen run and says why a wrong one is wrong. In Voila the form has a Check
    button; in JupyterLab :meth:`Lesson.check_capstone` reads the student's ``my_plan`` dict.
    """

    PRICING = ("on_demand", "hyperscaler_on_demand", "reserved_1y", "reserved_3y", "spot", "owned")
    HOURS_TOLERANCE = 0.10   # relative, against the hand formula or the model's billed hours
    FIELDS = ("params_b", "tokens_t", "gpu", "gpus", "pricing", "deadline_days", "team", "pay_basis",
              "gpu_hours", "budget_usd", "biggest", "why")
    #: The form's starting run: lessons 4 and 6's (the ``startup_7b`` preset on demand, a team of 8 at AI-lab pay),
    #: so the capstone's people cost for it is lesson 6's.
    START = dict(params_b=7, tokens_t=2, gpu="h100-sxm", gpus=256, pricing="on_demand", deadline_days=30, team=8,
                 pay_basis="ai_lab")

    def __init__(self, lesson: "Lesson"):
        from explorer import COST_DIMENSIONS, catalog
        from explorer.scenario import PAY_BASES

        t, W, start = lesson.t, widgets, self.START
        self.lesson = lesson
        wide = {"description_width": "initial"}
        self.controls = {
            "params_b": W.BoundedFloatText(value=start["params_b"], min=0.01, max=100_000, step=1, style=wide,
                                           description=t("parameters [billions]", "参数量 [十亿]")),
            "tokens_t": W.BoundedFloatText(value=start["tokens_t"], min=0.001, max=1000, step=0.1, style=wide,
                                           description=t("training tokens [trillions]", "训练 token [万亿]")),
            "gpu": W.Dropdown(options=[(acc.name, key) for key, acc in catalog.accelerators().items()],
                              value=start["gpu"], style=wide, description=t("accelerator", "加速卡")),
            "gpus": W.BoundedIntText(value=start["gpus"], min=1, max=1_000_000, style=wide,
                                     description=t("number of GPUs", "GPU 数")),
            "pricing": W.Dropdown(options=lesson.options(self.PRICING, "pricing_"), value=start["pricing"], style=wide,
                                  description=t("pricing", "计价")),
            "deadline_days": W.BoundedFloatText(value=start["deadline_days"], min=1, max=3650, style=wide,
                                                description=t("deadline [days]", "期限 [天]")),
            "team": W.BoundedIntText(value=start["team"], min=0, max=100_000, style=wide,
                                     description=t("team [people]", "团队 [人]")),
            "pay_basis": W.Dropdown(options=lesson.options(PAY_BASES, "team_pay_basis_"), value=start["pay_basis"],
                                    style=wide, description=lesson.label("team_pay_basis")),
        }
        self.answers = {
            "gpu_hours": W.Text(placeholder=t("e.g. 62,000", "例如 62,000"), style=wide,
                                description=t("your GPU-hours", "你算的卡时")),
            "budget_usd": W.Text(placeholder=t("e.g. 3M", "例如 3M"), style=wide,
                                 description=t("your budget for the project [USD]", "你的项目预算 [美元]")),
            "biggest": W.Dropdown(options=[(t("choose", "请选择"), None)] + lesson.options(COST_DIMENSIONS, "dim_"),
                                  value=None, style=wide,
                                  description=t("biggest cost dimension", "最大的成本维度")),
            "why": W.Textarea(placeholder=t("Defend your plan in two or three sentences: why this size, these "
                                            "tokens, this hardware and pricing; the biggest risk and your answer.",
                                            "用两三句话为你的方案辩护：为什么选这个规模、这些 token、这种硬件和计价；"
                                            "最大的风险是什么、你如何应对。"),
                              layout=W.Layout(width="100%", height="6em")),
        }
        self.given = W.HTML()
        self.button = W.Button(description=t("Check my plan", "检查我的方案"), button_style="primary",
                               layout=W.Layout(width="auto", align_self="flex-start"))
        self.report = W.HTML()
        self.button.on_click(lambda _: self.submit())
        for c in self.controls.values():
            c.observe(lambda _: self._show_given(), "value")
        self._show_given()
        self.widget = W.VBox([W.HTML(f"<b>{t('1. Your run', '1. 你的训练')}</b>"), *self.controls.values(),
                              self.given, W.HTML(f"<b>{t('2. Your figures and your defence', '2. 你的数字与辩护')}</b>"),
                              *self.answers.values(), self.button, self.report],
                             layout=W.Layout(max_width="100%"))
        self.results: list[tuple[str, bool, str]] = []

    # ---------------------------------------------------------------- the run
    def plan(self) -> dict:
        """The form's values: the run and the student's statements (text as typed)."""
        return {k: w.value for k, w in {**self.controls, **self.answers}.items()}

    def fill(self, plan: dict) -> None:
        """Set the form from a dict with any of :attr:`FIELDS` (what the JupyterLab cell does)."""
        unknown = set(plan) - set(self.FIELDS)
        if unknown:
            raise ValueError(f"my_plan: {sorted(unknown)} not among {list(self.FIELDS)}")
        for k, v in plan.items():
            w = {**self.controls, **self.answers}[k]
            if v is None and k in ("gpu_hours", "budget_usd", "why"):
                v = ""
            w.value = str(v) if k in ("gpu_hours", "budget_usd") else v

    def _estimate(self):
        from explorer import Scenario, estimate

        c = {k: w.value for k, w in self.controls.items()}
        return estimate(Scenario(params=float(c["params_b"]) * 1e9, tokens=float(c["tokens_t"]) * 1e12,
                                 gpu=c["gpu"], gpus=int(c["gpus"]), pricing=c["pricing"],
                                 team_headcount=float(c["team"]), team_pay_basis=c["pay_basis"]))

    def _hand(self, e) -> tuple[float, float, float]:
        """(GPU-hours by 6·N·D / (peak · MFU · 3600), peak [FLOP/s], MFU) for the chosen run."""
        peak = next(a.value for a in e.assumptions if a.name.startswith("peak ")) * 1e12
        c = self.controls
        flop = 6 * c["params_b"].value * 1e9 * c["tokens_t"].value * 1e12
        return flop / (peak * e.mfu * 3600), peak, e.mfu

    def _show_given(self) -> None:
        t = self.lesson.t
        try:
            e = self._estimate()
            _, peak, mfu = self._hand(e)
        except ValueError as exc:
            self.given.value = f"<p style='color:#a00'>{html.escape(str(exc))}</p>"
            return
        used = {a.name: a.value for a in e.assumptions}
        loaded = next((v for k, v in used.items() if k.startswith("team_loaded_usd_per_year")), None)
        rows = [
            (t("what a hand calculation needs: peak at BF16", "手算所需：BF16 峰值"), f"{peak / 1e12:,.1f} TFLOP/s"),
            (t("MFU the model assumes for it", "模型为它假设的 MFU"), f"{mfu:.3f}"),
        ]
        if loaded is not None and "project_months" in used:  # people = team x loaded cost x months / 12 (lesson 6)
            rows += [(t("people: loaded cost per person-year", "人员：每人每年全成本"), self.lesson.money(loaded)),
                     (t("project length", "项目时长"), f"{used['project_months']:.3g} " + t("months", "个月"))]
        self.given.value = self.lesson.table(rows)

    # ---------------------------------------------------------------- the checks
    def check(self) -> list[tuple[str, bool, str]]:
        """Each check of the plan: (name, passed?, why) in the lesson's language."""
        from explorer import COST_DIMENSIONS

        t, money = self.lesson.t, self.lesson.money
        try:
            e = self._estimate()
        except ValueError as exc:  # a ScenarioError names the field and what is allowed
            return [("run", False, html.escape(str(exc)))]
        gpus, deadline = int(self.controls["gpus"].value), float(self.controls["deadline_days"].value)
        out = []
        # 1. the model fits in the GPUs' memory
        if e.min_gpus_memory > gpus:
            out.append(("memory", False, t(
                f"The model does not fit: it needs at least {e.min_gpus_memory:,} GPUs to hold the weights, "
                f"gradients and optimizer state, and you chose {gpus:,} (lesson 2).",
                f"放不下：模型至少需要 {e.min_gpus_memory:,} 张卡来存放权重、梯度和优化器状态，你选了 {gpus:,} 张（第 2 课）。")))
        else:
            out.append(("memory", True, t(f"The model fits in the memory of {gpus:,} GPUs (at least "
                                          f"{e.min_gpus_memory:,} needed).",
                                          f"{gpus:,} 张卡的显存放得下模型（至少需要 {e.min_gpus_memory:,} 张）。")))
        # 2. the deadline
        if e.wall_days > deadline:
            need = math.ceil(gpus * e.wall_days / deadline)
            out.append(("deadline", False, t(
                f"The run takes {e.wall_days:,.1f} days, past your deadline of {deadline:g}: about {need:,} GPUs "
                "would finish in time at the same MFU, or train fewer tokens (more GPUs shorten the run; they do "
                "not make it cheaper, lesson 1).",
                f"训练需要 {e.wall_days:,.1f} 天，超过你的期限 {deadline:g} 天：在相同 MFU 下约需 {need:,} 张卡，"
                "或者减少 token（更多 GPU 缩短时间，但不降低成本，第 1 课）。")))
        else:
            out.append(("deadline", True, t(f"The run takes {e.wall_days:,.1f} days, within your {deadline:g}.",
                                            f"训练需要 {e.wall_days:,.1f} 天，在你的 {deadline:g} 天期限内。")))
        # 3. the student's GPU-hours
        hand, _, mfu = self._hand(e)
        out.append(("gpu_hours",) + self._check_hours(self.answers["gpu_hours"].value, hand, e.gpu_hours, mfu))
        # 4. the budget covers the project, not only the final run
        total, run = e.cost_usd["total"], e.final_run_usd
        budget = self._number(self.answers["budget_usd"].value)
        if budget is None:
            out.append(("budget", False, t("Type your budget in US dollars (e.g. 3M).", "请输入你的预算（美元，例如 3M）。")))
        elif budget < total:
            only_run = abs(budget / run - 1) <= 0.15
            out.append(("budget", False, t(
                f"Your budget {money(budget)} is short of the model's project estimate, {money(total)}. "
                + ("It covers the final run only: the project also pays for experiments, people and data "
                   "(lesson 6)." if only_run else "Add up all six dimensions (lesson 6)."),
                f"你的预算 {money(budget)} 低于模型对整个项目的估计 {money(total)}。"
                + ("它只够最终训练：项目还要为实验、人员和数据付费（第 6 课）。" if only_run else "请把六个维度都加起来（第 6 课）。"))))
        else:
            headroom = budget / total - 1
            note = "" if headroom >= 0.2 else t(
                " But with less than 20% headroom, an MFU of 0.32 instead of 0.38 already passes the 120% review "
                "line (lesson 6).", " 但余量不到 20%：MFU 从 0.38 降到 0.32 就会越过 120% 的复核线（第 6 课）。")
            out.append(("budget", True, t(
                f"Your budget {money(budget)} covers the project estimate {money(total)} ({headroom:.0%} headroom).",
                f"你的预算 {money(budget)} 覆盖了项目估计 {money(total)}（余量 {headroom:.0%}）。") + note))
        # 5. the biggest cost dimension
        costs = {d: e.cost_usd[d] for d in COST_DIMENSIONS}
        top = max(costs, key=costs.__getitem__)
        said = self.answers["biggest"].value
        name = self.lesson.label
        if said is None:
            out.append(("biggest", False, t("Choose the biggest cost dimension.", "请选择最大的成本维度。")))
        elif said == top:
            out.append(("biggest", True, t(
                f"Yes: {name('dim_' + top)} is the largest, {money(costs[top])} of {money(total)} "
                f"({costs[top] / total:.0%}).",
                f"对：{name('dim_' + top)}最大，{money(costs[top])}，占 {money(total)} 的 {costs[top] / total:.0%}。")))
        else:
            out.append(("biggest", False, t(
                f"Not {name('dim_' + said)} ({money(costs[said])}): {name('dim_' + top)} is larger, "
                f"{money(costs[top])} ({costs[top] / total:.0%} of the project). Compute is not always the biggest "
                "cost (lesson 6).",
                f"不是{name('dim_' + said)}（{money(costs[said])}）：{name('dim_' + top)}更大，{money(costs[top])}"
                f"（占项目的 {costs[top] / total:.0%}）。算力并不总是最大的成本（第 6 课）。")))
        # 6. a defence in words
        words = self.answers["why"].value.strip()
        enough = len(words) >= 40 or (self.lesson.LANG == "zh" and len(words) >= 20)
        out.append(("defence", enough, t("Your defence is written: read it to your neighbour." if enough else
                                         "Write two or three sentences defending your plan.",
                                         "你的辩护已写好：讲给你的同桌听。" if enough else "请写两三句话为你的方案辩护。")))
        return out

    def _number(self, text):
        try:
            return parse_answer(text) if str(text).strip() else None
        except (ValueError, TypeError, ArithmeticError):
            return None

    def _check_hours(self, text, hand: float, billed: float, mfu: float) -> tuple[bool, str]:
        t, tol = self.lesson.t, self.HOURS_TOLERANCE
        value = self._number(text)
        if value is None:
            return False, t("Type your GPU-hours (a number, e.g. 62,000).", "请输入你算的卡时（一个数，例如 62,000）。")
        near = lambda target: abs(value / target - 1) <= tol  # noqa: E731
        gap = t(f"The model bills {billed:,.0f} GPU-hours, {billed / hand - 1:+.0%} over 6·N·D: attention FLOP and "
                "hours lost to failures, restarts and evaluations.",
                f"模型计费 {billed:,.0f} 卡时，比 6·N·D 多 {billed / hand - 1:+.0%}：注意力计算量以及故障、重启和评估损失的工时。")
        if near(hand) or near(billed):
            return True, t(f"{value:,.0f} GPU-hours matches your run (by hand: {hand:,.0f}). ",
                           f"{value:,.0f} 卡时与你的训练相符（手算：{hand:,.0f}）。") + gap
        for target, en, zh in ((hand * 3600, "that is GPU-seconds; divide by 3,600.", "这是卡秒；再除以 3600。"),
                               (hand * mfu * mfu, "you multiplied by the MFU; divide by it.", "你乘了 MFU；应除以它。"),
                               (hand * mfu, "you left out the MFU: divide by it.", "你漏掉了 MFU：要除以它。"),
                               (hand / 3, "that is 2·N·D, the forward pass only; training is 6·N·D.",
                                "这是 2·N·D，只算了前向；训练是 6·N·D。")):
            if near(target):
                return False, t(f"Not yet: {en}", f"还不对：{zh}")
        exp = math.log10(value) - math.log10(hand) if value > 0 else 0.0  # in logs: value / hand may underflow
        k = round(exp)
        if k and abs(10.0 ** (exp - k) - 1) <= tol:
            return False, t(f"Not yet: {value:,.0f} is 10{str(abs(k)).translate(_SUPERSCRIPT)} times too "
                            f"{'large' if k > 0 else 'small'}. Check the units: B = 10⁹, T = 10¹², TFLOP/s = 10¹² FLOP/s.",
                            f"还不对：{value:,.0f} {'大' if k > 0 else '小'}了 10{str(abs(k)).translate(_SUPERSCRIPT)} 倍。"
                            "检查单位：B = 10⁹，T = 10¹²，TFLOP/s = 10¹² FLOP/s。")
        return False, t(f"Not yet: {value:,.0f} is {abs(value / hand - 1):.0%} off 6·N·D / (peak · MFU · 3600) = "
                        f"{hand:,.0f} for the run you chose (allowed ±{tol:.0%}).",
                        f"还不对：{value:,.0f} 与你所选训练的 6·N·D / (峰值 · MFU · 3600) = {hand:,.0f} 相差 "
                        f"{abs(value / hand - 1):.0%}（允许 ±{tol:.0%}）。")

    def submit(self) -> bool:
        """Run every check and show the report under the form (what the Check button does)."""
        t = self.lesson.t
        self.results = self.check()
        rows = "".join(f"<li style='color:{'#1a7f37' if ok else '#9a3412'}'>{'✔' if ok else '✘'} {msg}</li>"
                       for _, ok, msg in self.results)
        passed = all(ok for _, ok, _ in self.results)
        head = (t("Your plan is consistent. Defend it to your neighbour: what if the MFU is 0.30?",
                  "你的方案前后一致。向同桌为它辩护：如果 MFU 只有 0.30 呢？") if passed else
                t("Not yet consistent: fix the lines marked ✘.", "还不一致：请修改标 ✘ 的各项。"))
        self.report.value = no_math(f"<p><b>{head}</b></p><ul style='padding-left:1.2em'>{rows}</ul>")
        self.lesson.checked("plan", passed)
        return passed



_SESSION_STYLE = """<style>
.explorer-session-ended {display:none; position:fixed; top:0; left:0; right:0; z-index:10000; background:#7b241c;
  color:white; padding:12px 16px; font-size:14px; box-shadow:0 2px 8px rgba(0,0,0,.3);}
.explorer-session-ended button {margin-left:12px; font-size:14px; padding:4px 14px; cursor:pointer;}
</style>"""


def _labels():
    from explorer.text import labels

    return labels()


def _fmt(x: float) -> str:
    if x == 0:
        return "0"
    if abs(x) >= 1e5 or abs(x) < 1e-3:
        return f"{x:.3g}"
    return f"{x:,.4g}"
