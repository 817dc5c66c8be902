"""The one error type of the package."""

from __future__ import annotations

__all__ = ["ScenarioError", "short_repr"]


class ScenarioError(ValueError):
    """A scenario field holds a value the model cannot use.

    Parameters
    ----------
    field : str
        Name of the offending field (as in :class:`explorer.Scenario`, the CLI or the app).
    value : object
        The value that was given.
    allowed : str
        What is allowed instead, in words.
    """

    def __init__(self, field: str, value: object, allowed: str):
        self.field = field
        self.value = value
        self.allowed = allowed
        super().__init__(f"{short_repr(field, 60)[1:-1]}: {short_repr(value)} is not allowed; allowed: {allowed}")


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
