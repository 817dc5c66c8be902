"""The one way an unexpected error in a widget callback reaches the viewer: a message, never a traceback.

Every widget callback is a public entry point (Voila forwards any viewer's widget messages). A callback that
fails for a reason nobody foresaw shows the ``app_error`` message (its kind and detail, in the page's language)
where its owner shows messages, and the app goes on with its last good result.

>>> shown = []
>>> with errors_to_viewer(shown.append) as guard:
...     1 / 0
>>> guard.failed, shown[0].params["kind"]
(True, 'ZeroDivisionError')
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from explorer.messages import Message

__all__ = ["errors_to_viewer", "Guard"]


@dataclass
class Guard:
    """What :func:`errors_to_viewer` saw: ``failed`` is True when the block raised (and was shown)."""
    failed: bool = False


@contextmanager
def errors_to_viewer(on_error: Callable[[Message], object]) -> Iterator[Guard]:
    """Run the block; an exception becomes ``on_error(Message("app_error", kind=..., detail=...))``.

    Parameters
    ----------
    on_error : callable
        Shows a :class:`~explorer.messages.Message` to the viewer (beside a control, or in the app's banner).

    Yields
    ------
    Guard
        Its ``failed`` is set when the block raised, for a caller that must stop after a failure.
    """
    guard = Guard()
    try:
        yield guard
    except Exception as exc:  # noqa: BLE001 - shown to the viewer, never a traceback
        guard.failed = True
        on_error(Message("app_error", kind=type(exc).__name__, detail=str(exc)))
