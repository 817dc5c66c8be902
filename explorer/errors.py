"""The one error type of the package."""

from __future__ import annotations

__all__ = ["ScenarioError"]


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
        super().__init__(f"{field}: {value!r} is not allowed; allowed: {allowed}")
