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

from explorer.text import money as _money
from explorer.text import parse_number

__all__ = ["Lesson", "Exercise", "parse_answer", "no_math"]

_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def no_math(html_text: str) -> str:
    """HTML that MathJax leaves alone: dollar amounts are money, not TeX delimiters.

    JupyterLab and Voila typeset HTML outputs, so ``$698k / $1.64M`` would become
    math. MathJax skips elements of class ``tex2jax_ignore`` (its default
    ``ignoreHtmlClass``).
    """
    return f'<div class="tex2jax_ignore mathjax_ignore">{html_text}</div>'


def parse_answer(text) -> float:
    """A student's answer: a number, or text such as ``3.15e23``, ``3.15 × 10^23``, ``69B``, ``6.25%``, ``1,234``.

    A trailing ``%`` divides by 100. Raises ValueError when it is not a number.

    Examples
    --------
    >>> [parse_answer(s) for s in ("3.15e23", "3.15 x 10^23", "3.15×10**23", "69B", "6.25%", "1,234", 0.5)]
    [3.15e+23, 3.15e+23, 3.15e+23, 69000000000.0, 0.0625, 1234.0, 0.5]
    """
    if isinstance(text, bool):
        raise ValueError("not a number")
    if isinstance(text, (int, float)):
        value = float(text)
        if not math.isfinite(value):
            raise ValueError("not a finite number")
        return value
    s = str(text).strip().replace("−", "-").replace("，", ",").replace("＊", "*")
    percent = s.endswith("%")
    if percent:
        s = s[:-1].strip()
    m = re.fullmatch(r"(.+?)\s*(?:[x×*·]\s*10\s*(?:\^|\*\*)\s*([+-]?\d+))", s)
    if m:
        value = parse_number(m.group(1)) * 10.0 ** int(m.group(2))
    else:
        value = parse_number(s)
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
        self.widget = widgets.VBox(rows + [label, widgets.HBox([self.box, self.button]), self.feedback, self.fold],
                                   layout=widgets.Layout(max_width="100%"))
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
            value = parse_answer(raw)
        except (ValueError, TypeError, ArithmeticError):
            return False, t(f"“{html.escape(str(raw))}” is not a number I can read: write it like 3.2e23, "
                            "3.2 × 10^23, 69B or 12%.",
                            f"无法读取“{html.escape(str(raw))}”：请写成 3.2e23、3.2 × 10^23、69B 或 12% 这样的数。")
        if self._near(value, self.answer):
            self.correct = True
            return True, t(f"Correct: {_fmt(value)} is within ±{self._tol_text()} of {_fmt(self.answer)}. "
                           "Open the solution to compare your reasoning.",
                           f"正确：{_fmt(value)} 与 {_fmt(self.answer)} 相差在 ±{self._tol_text()} 以内。"
                           "可以打开解答对照你的思路。")
        self.correct = False
        for target, en, zh in self.mistakes:
            if self._near(value, target):
                return False, t(f"Not yet: {en}", f"还不对：{zh}")
        return False, self._diagnose(value)

    def _diagnose(self, value: float) -> str:
        t, a = self.lesson.t, self.answer
        if value == 0:
            return t("Not yet: zero cannot be right here.", "还不对：这里不可能是零。")
        ratio = value / a
        if ratio < 0:
            return t("Not yet: the sign is wrong (a saving is negative, a cost positive).",
                     "还不对：符号错了（节省为负，成本为正）。")
        exp = math.log10(ratio)
        k = round(exp)
        if k != 0 and abs(ratio / 10.0 ** k - 1) <= max(self.tolerance, 0.02):
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
        if self._near(value * a, 1.0) or self._near(1 / value, a):
            return t("Not yet: that is the ratio upside down (divide the other way).",
                     "还不对：比值倒过来了（换个方向除）。")
        if self._near(1 - value, a) and 0 < value < 1:
            return t("Not yet: that is the complement (1 − x): the share kept instead of the share saved, "
                     "or the other way round.", "还不对：这是补数（1 − x）：把保留的比例当成了节省的比例，或反之。")
        direction = t("high", "高") if ratio > 1 else t("low", "低")
        return t(f"Not yet: your answer is {abs(ratio - 1):.0%} too {direction} (allowed ±{self._tol_text()}). "
                 "Recheck each factor of the formula.",
                 f"还不对：你的答案偏{direction} {abs(ratio - 1):.0%}（允许 ±{self._tol_text()}）。请逐项检查公式中的每个因子。")

    def submit(self, raw) -> bool:
        """Judge ``raw`` and show the feedback under the box (what the Check button does)."""
        ok, message = self.judge(raw)
        color = "#1a7f37" if ok else "#9a3412"
        mark = "✔" if ok else "✘"
        self.feedback.value = no_math(f"<p style='color:{color};margin:4px 0'>{mark} {message}</p>")
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
        self.panels: list = []  # every panel of the lesson, in order (tests drive them)

    def t(self, en: str, zh: str) -> str:
        """The text in this lesson's language."""
        return zh if self.LANG == "zh" else en

    def label(self, key: str) -> str:
        """A label of ``explorer/data/labels.csv`` in this lesson's language (e.g. ``pricing_spot``, ``dim_people``)."""
        from explorer.text import label

        return label(key, self.LANG)

    def options(self, ids, prefix: str = ""):
        """Dropdown options as (label, id) pairs: readers see words, the code gets the id."""
        from explorer.text import label

        return [(label(f"{prefix}{i}", self.LANG) if f"{prefix}{i}" in _labels() else i, i) for i in ids]

    def warnings(self, estimate) -> list:
        """The model's warnings for ``estimate`` as table rows, in this lesson's language."""
        from explorer.app.views import translate

        return [(self.t("warning", "提示"), f"<span style='color:#9a3412'>{html.escape(translate(w, self.LANG))}</span>")
                for w in estimate.warnings]

    def session(self):
        """The app's session-ended notice with Reload, and the heartbeat that shows it when the kernel is gone.

        The page's widget pings the kernel every few seconds; with no answer (the kernel
        was culled or crashed, the server restarted) a bar with a Reload button covers the top of the page,
        instead of a lesson whose sliders move while its numbers stay.
        """
        from explorer.app.page_bridge import PageBridge
        from explorer.app.views import session_html

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

    # ------------------------------------------------------------ exercises
    def exercise(self, number: int, answer: float, *, tolerance: float, mistakes=(), solution: str = "",
                 given=()) -> None:
        """Register exercise ``number`` with its computed ``answer`` (see :class:`Exercise`); shows nothing."""
        answer = float(answer)
        if not math.isfinite(answer) or answer == 0:
            raise ValueError(f"answer: {answer!r} must be a finite non-zero number")
        ex = Exercise(self, number, answer, float(tolerance), list(mistakes), solution, list(given))
        self.exercises[number] = ex

    def check(self, number: int, value=None):
        """The answer box of exercise ``number``; with ``value`` (the student's variable), judged at once."""
        ex = self.exercises.get(number)
        if ex is None:
            return HTML(self.t("<p>Run the folded cell above this one first.</p>",
                               "<p>请先运行上面折叠的单元格。</p>"))
        if value is not None:
            ex.box.value = str(value)
            ex.submit(value)
        return ex.widget


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
