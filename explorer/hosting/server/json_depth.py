"""How deep a client's JSON nests, found before anything parses it.

Python's ``json`` module parses nested lists and objects recursively: a
message part of 50,000 ``[`` raised ``RecursionError`` in the server (the
parser gives up at about 1,000 levels, the interpreter's recursion limit),
and the kernel's own parser would meet the same part next. The kernel
websocket (:mod:`explorer.hosting.server.websocket`) is the one place the server
parses JSON a client sent (the unload beacon is a form, the page request a
query string), and it checks every JSON part of a frame with
:func:`nested_deeper_than` first.

:data:`MAX_JSON_DEPTH` is 32 levels. The rule: well below the parser's own
limit (about 1,000) and far above what the page sends; the deepest message of
the page's widget manager is a widget state update (``content.data.state``
with a list value: 4 levels), checked in
``tests/hosting/test_json_depth.py``.
"""

from __future__ import annotations

import re

__all__ = ["MAX_JSON_DEPTH", "nested_deeper_than"]

MAX_JSON_DEPTH = 32  # levels of [ and { (see the module docstring)

_STRING = re.compile(rb'"(?:[^"\\]++|\\.)*+"', re.DOTALL)  # a JSON string, escapes included (no backtracking)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_ONE_KIND = bytes.maketrans(b"{}", b"[]")  # a parser's depth is the open brackets of either kind


def nested_deeper_than(text: bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """True when the JSON ``text`` nests lists and objects more than ``limit`` levels deep.

    Linear in ``len(text)`` for a fixed ``limit``, and every step runs in C:
    a text with at most ``limit`` opening brackets cannot be deeper (one count);
    otherwise the strings are removed (their brackets are not structure), then
    everything but the brackets, ``{}`` become ``[]`` (a parser is as deep as
    the brackets of either kind still open), and at most ``limit`` passes each
    remove every ``[]``: a pass removes exactly the pairs with nothing nested
    in them, so ``limit`` passes remove every pair at most ``limit`` levels
    tall. Brackets left over mean a deeper nesting, or brackets that do not
    balance (text no JSON parser accepts), and both are refused.

    Parameters
    ----------
    text : bytes
        A JSON document as sent (UTF-8).
    limit : int
        The deepest nesting accepted [levels].
    """
    if text.count(b"[") + text.count(b"{") <= limit:
        return False
    brackets = _STRING.sub(b"", text).translate(_ONE_KIND, _NOT_BRACKETS)
    for _ in range(limit):
        if not brackets:
            return False
        shorter = brackets.replace(b"[]", b"")  # left to right, never rescanning what it joined
        if len(shorter) == len(brackets):
            return True  # unbalanced: nothing left to remove
        brackets = shorter
    return bool(brackets)
