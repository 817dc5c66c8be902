"""The one error type of the package."""

from __future__ import annotations

from explorer.messages import Message
from explorer.text import short_repr  # formatting lives in text; re-exported here, where errors quote values

__all__ = ["ScenarioError", "short_repr"]


class ScenarioError(ValueError):
    """A scenario field holds a value the model cannot use.

    Parameters
    ----------
    field : str
        Name of the offending field (as in :class:`explorer.Scenario`, the CLI or the app).
    value : object
        The value that was given.
    allowed : Message or str
        What is allowed instead: a :class:`~explorer.messages.Message` (an ``allowed_*`` id of
        ``explorer/data/messages.csv`` and its parameters), rendered in the viewer's language; plain
        text is shown as it is in every language.

    Notes
    -----
    ``str(error)`` is English and names the field, the value and what is allowed
    (``params: 250000.0 is not allowed; allowed: a number in [1e+06, 1e+14]``);
    :meth:`render` gives it in Chinese, with the field's label and numbers as the
    boxes write them.
    """

    def __init__(self, field: str, value: object, allowed: Message | str):
        self.field = field
        self.value = value
        self.allowed = allowed
        self.message = Message("error_not_allowed", field=short_repr(field, 60)[1:-1], value=value, allowed=allowed)
        super().__init__(str(self.message))

    def render(self, language: str = "en", *, readable: bool | str = True) -> str:
        """The refusal in ``language`` ("en" or "zh"), naming the field by its label when ``readable``."""
        return self.message.render(language, readable=readable)
