"""The depth pre-scan of a client's JSON (explorer.hosting.server.json_depth): the law, and the page's own messages pass."""

from __future__ import annotations

import json

from hypothesis import given, settings, strategies as st

from explorer.hosting.server.json_depth import MAX_JSON_DEPTH, nested_deeper_than
from strategies import examples

_LEAVES = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
                    st.text(alphabet=st.sampled_from('[]{}"\\ ax,:\u00e9')))
_JSON = st.recursive(_LEAVES, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                      st.dictionaries(st.text(alphabet='[{"\\a', max_size=4), inner,
                                                                      max_size=3)), max_leaves=60)


def _depth(value) -> int:
    """Nesting depth by hand: a list or object is one level more than its deepest member; a scalar is 0."""
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    return 0


@settings(max_examples=examples(300))
@given(_JSON, st.integers(min_value=0, max_value=12), st.booleans())
def test_the_scan_agrees_with_the_depth_counted_by_hand(value, limit, compact):
    """Strings holding brackets, quotes and backslashes are not structure; either bracket kind counts."""
    text = json.dumps(value, separators=(",", ":") if compact else None, ensure_ascii=False).encode()
    assert nested_deeper_than(text, limit) == (_depth(value) > limit)


@settings(max_examples=examples(100))
@given(st.lists(st.sampled_from("[{"), min_size=1, max_size=80))
def test_alternating_bracket_kinds_count_one_level_each(kinds):
    """A document of ``len(kinds)`` levels of lists and objects in any order: deeper than the limit exactly when
    it has more levels."""
    doc = "".join(k + ('"k":' if k == "{" else "") for k in kinds) + "0" + "".join(
        "]" if k == "[" else "}" for k in reversed(kinds))
    assert _depth(json.loads(doc)) == len(kinds)
    assert nested_deeper_than(doc.encode(), MAX_JSON_DEPTH) == (len(kinds) > MAX_JSON_DEPTH)


def test_the_attack_and_unbalanced_brackets_are_refused():
    assert nested_deeper_than(b"[" * 50_000 + b"]" * 50_000)  # raised RecursionError in the server
    assert nested_deeper_than(b"[" * 50_000)  # unbalanced: no parser accepts it
    assert nested_deeper_than(b"]" * 40 + b"[" * 40)


def test_a_widget_update_as_the_page_sends_it_passes():
    """The page's deepest message: an update of a list-valued widget state (content, data, state, list: 4 levels)."""
    content = {"comm_id": "a" * 32, "data": {"method": "update", "state": {"index": [0, 2], "value": ["x", "y"]},
                                               "buffer_paths": [["value", 0]]}}
    text = json.dumps(content).encode()
    assert _depth(content) == 4 and not nested_deeper_than(text, 4) and not nested_deeper_than(text)
