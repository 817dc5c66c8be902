"""Control widgets with bilingual labels, typed twins for log sliders, and messages.

A :class:`ControlRow` is one labelled control: the label above, the widget
(and for log-scale sliders a typed-number twin that holds the exact value),
and a message line shown when the value is not allowed.
"""

from __future__ import annotations

import html
import math
from typing import Any, Callable, Sequence

import ipywidgets as w
import traitlets

from explorer.app.shared import (DESCRIPTION_STYLE, FULL_WIDTH, PLAIN, SLIDER_STYLE, TEXT_STYLE, TOGGLE_STYLE, shared)
from explorer.app.shared import html as shared_html
from explorer.errors import ScenarioError
from explorer.messages import Message
from explorer.scenario import range_error
from explorer.text import NumberError, label, parse_number, readable_number

__all__ = ["ControlRow", "NumberBox", "log_slider_row", "slider_row", "choice_row", "toggle_row", "optional_number_row",
           "number_row", "parse_optional_number", "relabel_options"]

# Layouts shared by many widgets (see explorer.app.shared): a row shows or hides by swapping its
# box's layout between the two row layouts, never by changing one in place.
_FULL = FULL_WIDTH
_CAPTION = shared(w.Layout, margin="4px 0 0 0")
_BOX_WIDE = shared(w.Layout, width="58%")
_ROW = shared(w.Layout, width="100%", margin="0 0 2px 0")
_ROW_HIDDEN = shared(w.Layout, width="100%", margin="0 0 2px 0", display="none")


def _number_from_text(text: Any, widget: "NumberBox") -> Any:
    """What the browser typed, as a number (``"7B"`` -> 7e9); text that is no number stays text.

    The Scenario then refuses the text with a message beside the control.
    """
    if not isinstance(text, str):
        return text
    try:
        value = parse_number(text)
    except ValueError:
        return text
    return int(value) if widget.integer and value.is_integer() else value


def _text_from_number(value: Any, widget: "NumberBox") -> str:
    """The text the box shows: the value in readable form (``7B``), or the typed text it refused."""
    return value if isinstance(value, str) else readable_number(value)


class NumberBox(w.Text):
    """A text box whose ``value`` is a number, shown readably ("7B", "1.5T", "1,024").

    Typing "7B", "70e9", "1.5T" or "405000000000" sets ``value`` to the number
    (the box then shows its readable form); setting ``value = 70e9`` from
    Python shows "70B". Text that is not a number stays as typed, as a str
    ``value``, for the Scenario to refuse with a message (so does NaN or an
    infinity set from Python, held as its text); nothing is clamped.
    """

    value = traitlets.Any(0.0).tag(sync=True, to_json=_text_from_number, from_json=_number_from_text)
    integer = traitlets.Bool(False)

    def __init__(self, value: float | int = 0.0, *, integer: bool = False, **kwargs: Any):
        super().__init__(integer=integer, continuous_update=False, **kwargs)
        self.value = value

    @traitlets.validate("value")
    def _finite_or_text(self, proposal: dict) -> Any:
        """A value that is not a finite number is held as its text ("nan"), refused like any other text."""
        value = proposal["value"]
        if isinstance(value, float) and not math.isfinite(value):
            return str(value)
        return value


class ControlRow:
    """A labelled control with an optional twin and a message line.

    Attributes
    ----------
    name : str
        Control name (usually the scenario field it sets).
    widget : ipywidgets.Widget
        The control users move; tests set its ``value``.
    twin : ipywidgets.Widget or None
        Typed-number twin holding the exact value of a log-scale slider.
    link : traitlets.link or None
        What keeps a slider and its twin in step (:func:`log_slider_row`).
    box : ipywidgets.Box
        The row to lay out.
    """

    def __init__(self, name: str, widget: w.Widget, twin: w.Widget | None = None, label_key: str | None = None,
                 readout: w.Widget | None = None):
        self.name = name
        self.widget = widget
        self.twin = twin
        self.link: traitlets.link | None = None
        self.label_key = label_key or name
        self.caption = shared_html(layout=_CAPTION)
        # one HTML below the control holds the note (an explanation) and the message (a refusal)
        self.message = shared_html(classes=("explorer-control-message",))  # its class in its first state
        self._note = self._error = ""
        if twin is not None:  # the slider on its own line, the exact value and its readable form below
            lines = [widget, w.HBox([twin, readout], layout=_FULL) if readout is not None else twin]
        else:
            lines = [w.HBox([widget, readout], layout=_FULL) if readout is not None else widget]
        self.box = w.VBox([self.caption, *lines, self.message], layout=_ROW, _dom_classes=(f"explorer-control-{name}",))

    def set_language(self, language: str) -> None:
        """Show the label in ``language``, with its glossary tooltip (``tip_<name>`` in labels.csv) if any."""
        text = html.escape(label(self.label_key, language))
        # the glossary tip of the label, else of the control (a money box labelled in yuan keeps its tip)
        tip_key = next((f"tip_{k}" for k in (self.label_key, self.name) if label(f"tip_{k}", language) != f"tip_{k}"),
                       None)
        tip = label(tip_key, language) if tip_key else ""
        if tip_key:
            text = (f'<abbr class="explorer-tip" title="{html.escape(tip)}">{text} '
                    f'<span aria-hidden="true">ⓘ</span></abbr>')
        self.caption.value = f'<span style="font-size:12.5px">{text}</span>'

    def set_note(self, text: str) -> None:
        """Show (or clear, with "") an explanatory note under the control (not an error)."""
        self._note = text
        self._show_below()

    @property
    def note(self) -> str:
        """The note shown under the control (HTML), "" for none."""
        return self._note

    def _show_below(self) -> None:
        parts = [f'<div class="explorer-note">{self._note}</div>' if self._note else "",
                 f'<div class="explorer-message">{self._error}</div>' if self._error else ""]
        self.message.value = "".join(parts)
    def set_message(self, text: str) -> None:
        """Show (or clear, with "") an error message under the control."""
        self._error = text
        self._show_below()

    def show(self, visible: bool) -> None:
        """Show or hide the whole row."""
        self.box.layout = _ROW if visible else _ROW_HIDDEN

    @property
    def value(self) -> Any:
        """The exact value: the twin's where there is one."""
        return self.twin.value if self.twin is not None else self.widget.value


def log_slider_row(name: str, value: float, lo: float, hi: float, *, integer: bool = False) -> ControlRow:
    """A log-scale slider from ``lo`` to ``hi`` with a typed twin that holds the exact value (any number)."""
    slider = w.FloatLogSlider(
        value=min(max(value, lo), hi), base=10, min=math.log10(lo), max=math.log10(hi), step=0.01,
        continuous_update=False, readout=False, layout=_FULL, style=SLIDER_STYLE,
    )
    # the twin takes any number: the Scenario says what is allowed, nothing is clamped silently
    twin = NumberBox(value, integer=integer, layout=_BOX_WIDE, style=TEXT_STYLE)
    row = ControlRow(name, slider, twin)

    def to_slider(v):
        """The slider shows the nearest end it has; text that is no number leaves it where it is."""
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            return slider.value
        return min(max(v, lo), hi)

    def to_twin(v):
        return int(round(v)) if integer else float(f"{v:.4g}")

    # the twin holds the exact value (any number or text typed); the slider follows it, and a moved slider
    # writes its rounded value into the twin (the link's own guard stops the echo)
    row.link = traitlets.link((twin, "value"), (slider, "value"), transform=(to_slider, to_twin))
    return row


def slider_row(name: str, value: float, lo: float, hi: float, step: float, fmt: str = ".2f") -> ControlRow:
    """A linear slider."""
    slider = w.FloatSlider(value=value, min=lo, max=hi, step=step, continuous_update=False,
                           readout_format=fmt, layout=_FULL, style=SLIDER_STYLE)
    return ControlRow(name, slider)


def choice_row(name: str, options: Sequence[tuple[str, Any]], value: Any) -> ControlRow:
    """A dropdown of (label, value) options."""
    return ControlRow(name, w.Dropdown(options=list(options), value=value, layout=_FULL, style=DESCRIPTION_STYLE))


def toggle_row(name: str, options: Sequence[tuple[str, Any]], value: Any) -> ControlRow:
    """Toggle buttons of (label, value) options."""
    toggle = w.ToggleButtons(options=list(options), value=value, style=TOGGLE_STYLE, layout=PLAIN)
    return ControlRow(name, toggle)


def number_row(name: str, value: float) -> ControlRow:
    """A number box that takes any number in readable form (the Scenario checks it)."""
    return ControlRow(name, NumberBox(value, layout=_BOX_WIDE, style=TEXT_STYLE))


def optional_number_row(name: str, placeholder: str = "") -> ControlRow:
    """A text box for an optional number: blank means "use the catalog or default"."""
    return ControlRow(name, w.Text(value="", placeholder=placeholder, continuous_update=False, layout=_FULL,
                                   style=TEXT_STYLE))


def parse_optional_number(field: str, text: str) -> float | None:
    """None for blank text, else the number; :class:`ScenarioError` for anything else."""
    text = (text or "").strip()
    if not text:
        return None
    try:
        return parse_number(text)
    except NumberError as exc:
        raise range_error(field, text) if exc.reason == "range" else ScenarioError(
            field, text, Message("allowed_number_or_blank")) from None
    except ValueError:
        raise ScenarioError(field, text, Message("allowed_number_or_blank")) from None


def relabel_options(widget: w.Widget, options: Sequence[tuple[str, Any]], mute: Callable[[], Any]) -> None:
    """Replace the option labels of a selection widget, keeping its value, without firing updates."""
    with mute(), widget.hold_sync():  # one message to the page, not one per trait the change touches
        value = widget.value
        widget.options = list(options)
        widget.value = value
