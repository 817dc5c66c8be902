"""Layouts and styles shared by many widgets, which refuse to change.

Every widget, and every ``Layout`` and ``Style`` a widget owns, is a model
the page must receive and build when it connects: a widget made without one
gets a fresh default, so a label brings three models (HTML, Layout,
HTMLStyle). The app's labels, messages and boxes mostly use the same few
layouts and styles; sharing them halves the models a page builds (563 ->
about 300) and the state it receives on connect.

A shared layout or style that changed would change every widget that holds
it, so these refuse any change after they are made (``traitlets.TraitError``,
naming the trait): a widget whose layout changes (a row that hides, a chart
that shows) gets a layout of its own.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import ipywidgets as w
import traitlets
from ipywidgets.widgets.widget_bool import CheckboxStyle
from ipywidgets.widgets.widget_description import DescriptionStyle
from ipywidgets.widgets.widget_string import HTMLStyle, TextStyle

__all__ = ["shared", "html", "PLAIN", "FULL_WIDTH", "AUTO_WIDTH", "HIDDEN", "HTML_STYLE", "TEXT_STYLE",
           "DESCRIPTION_STYLE", "SLIDER_STYLE", "TOGGLE_STYLE", "BUTTON_STYLE", "CHECKBOX_STYLE", "FLEX_INPUT",
           "WRAP_ROW", "INPUT_STYLE"]


# typed as HasTraits, not w.Widget: ipywidgets is untyped, and mypy takes a type[Any] for unhashable (lru_cache's
# arguments must be Hashable; python/typeshed#4638)
@lru_cache(maxsize=None)
def _frozen_class(cls: type[traitlets.HasTraits]) -> type[traitlets.HasTraits]:
    """``cls`` whose synced traits refuse changes once the instance is made."""
    names = [name for name in cls.class_trait_names(sync=True) if not name.startswith("_")]

    def refuse(self, proposal):
        if getattr(self, "_made", False):
            raise traitlets.TraitError(
                f"a shared {cls.__name__} cannot change ({proposal.trait.name} = {proposal.value!r}): "
                f"it is held by many widgets; give the widget its own {cls.__name__}")
        return proposal.value

    return type(f"Shared{cls.__name__}", (cls,), {"_refuse": traitlets.validate(*names)(refuse)})


def shared(cls: type[traitlets.HasTraits], **traits: Any) -> w.Widget:
    """A ``cls`` (a Layout or a Style) with ``traits``, to be held by many widgets; it refuses changes."""
    instance: w.Widget = _frozen_class(cls)(**traits)
    instance._made = True
    return instance


PLAIN = shared(w.Layout)
FULL_WIDTH = shared(w.Layout, width="100%")
AUTO_WIDTH = shared(w.Layout, width="auto")
HIDDEN = shared(w.Layout, display="none")  # widgets the page uses but never shows
HTML_STYLE = shared(HTMLStyle)
TEXT_STYLE = shared(TextStyle)
DESCRIPTION_STYLE = shared(DescriptionStyle)
SLIDER_STYLE = shared(w.SliderStyle)
TOGGLE_STYLE = shared(w.ToggleButtonsStyle, button_width="auto")
BUTTON_STYLE = shared(w.ButtonStyle)
CHECKBOX_STYLE = shared(CheckboxStyle)
#: a box or picker that shares a wrapping row with others and never gets wider than the screen
FLEX_INPUT = shared(w.Layout, width="auto", flex="1 1 180px", max_width="100%")
#: a row of boxes that wraps on a narrow screen
WRAP_ROW = shared(w.Layout, flex_flow="row wrap", align_items="center")
#: a text box whose label takes the width it needs
INPUT_STYLE = shared(TextStyle, description_width="initial")


def html(value: str = "", layout: w.Layout = PLAIN, classes: tuple[str, ...] = ()) -> w.HTML:
    """An HTML widget with the shared style (and the plain layout unless given one), of CSS ``classes``.

    Classes given here go out with the widget's first state; ``add_class`` afterwards would send the page
    one more message per widget (about 120 of the app's first 600 messages were such).
    """
    return w.HTML(value, layout=layout, style=HTML_STYLE, _dom_classes=tuple(classes))
