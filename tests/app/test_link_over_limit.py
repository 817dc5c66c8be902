"""Issue 41: a link over the 4,096-character limit is never cut silently. The app reads it up to its last whole
``key=value`` pair within the limit and the banner names the settings past it (a 4,115-character link reopened on
the wrong tab and lost the Plan GPU cap, with no banner)."""

from __future__ import annotations

from urllib.parse import parse_qsl, quote

from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.app import link
from explorer.app.share_link import long_link_note_html
from strategies import examples

#: A long Chinese slot name (each character 9 characters once percent-encoded) pushes the tab and the Plan GPU cap
#: of the link past 4,096 characters: 8 + 7 + 453 x 9 = 4,092 characters before them, "&tab=plan" ends at 4,101.
_NAME = quote("中" * 453)
LONG = f"gpus=64&name_B={_NAME}&tab=plan&plan_cap=1024&lang=en"


def test_the_link_is_the_issues_length():
    assert len(LONG) == 8 + 7 + 453 * 9 + 9 + 14 + 8 == 4123  # over the limit, as the issue's 4,115
    assert len(LONG) > link.MAX_QUERY_CHARS


def test_a_link_over_the_limit_is_named_in_the_banner_with_what_it_left_out(make_app):
    app = make_app(query_string=LONG)
    assert app._tab_key() != "plan"  # the tab past the limit is not applied ...
    assert app.scenario.gpus == 64  # ... what came before it is
    banner = app.banner.value
    assert "Link length [characters]" in banner and "4,123" in banner and "4,096" in banner  # ... and it is said
    assert "Plan: most GPUs" in banner and "Link: tab shown" in banner and "Link: language" in banner
    assert "plan_cap" in app.error and "tab" in app.error


def test_the_chinese_banner_names_them_in_chinese(make_app):
    app = make_app(query_string="lang=zh&" + LONG.replace("&lang=en", ""))
    assert "链接长度 [字符]" in app.banner.value and "预算规划：GPU 上限" in app.banner.value


def test_a_link_within_the_limit_says_nothing(make_app):
    app = make_app(query_string="gpus=64&tab=plan&plan_cap=1024")
    assert app.error == "" and app._tab_key() == "plan"


def test_a_pair_is_never_cut_in_two():
    """``[:4096]`` cut ``plan_cap=1024`` to ``plan_cap=10``: a wrong value, applied. Now the pair is left out."""
    head = "x=" + "1" * (link.MAX_QUERY_CHARS - 2 - len("&plan_cap=10"))
    url = head + "&plan_cap=1024"
    assert len(url) == link.MAX_QUERY_CHARS + 2
    assert url[:link.MAX_QUERY_CHARS].endswith("plan_cap=10")  # what the old cut read
    assert link.link_within_limit(url) == head
    assert link.dropped_link_keys(url) == ("plan_cap",)


pair = st.tuples(st.sampled_from([*link.EXTRA_KEYS, "gpus", "params", "zz", "a b"]),
                 st.text(max_size=400)).map(lambda kv: f"{quote(kv[0])}={quote(kv[1])}")


@given(st.lists(pair, max_size=60))
@settings(max_examples=examples(200))
def test_law_what_is_read_is_whole_pairs_within_the_limit_and_the_rest_is_named(pairs):
    url = "&".join(pairs)
    kept = link.link_within_limit(url)
    assert len(kept) <= link.MAX_QUERY_CHARS and url.startswith(kept)
    assert kept == url or url[len(kept)] == "&"  # cut only between pairs
    dropped = link.dropped_link_keys(url)
    if len(url) <= link.MAX_QUERY_CHARS:
        assert kept == url and dropped == ()
    else:
        past = [k for k, _v in parse_qsl(url[len(kept):], keep_blank_values=True)]
        known = [k for k in dict.fromkeys(past) if k in link.EXTRA_KEYS or k in ("gpus", "params")]
        assert list(dropped) == known[:16]
        refused = link.refused_fields_from_query(url)
        assert refused[0].field == "link_length" and refused[0].value == len(url)


def test_the_share_tab_says_when_its_link_is_over_the_limit():
    assert long_link_note_html("?gpus=64&tab=plan", "en") == ""
    note = long_link_note_html("?" + LONG, "en")
    assert "4,123 characters" in note and "4,096" in note and "Plan: most GPUs" in note and "Link: tab shown" in note
