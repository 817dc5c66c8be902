"""Every value a link gives a scenario field and the app drops is named (issue 39, attack 8), in English and Chinese.

A law over the input space: for any text in a link, either the field takes it (``scenario_fields_from_query`` keeps
the field) or ``refused_fields_from_query`` names the field and the text; a blank value (the default) is neither.
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from hypothesis import given, settings, strategies as st

from explorer.app.link import _FIELD_ORDER, refused_fields_from_query, scenario_fields_from_query
from strategies import examples

#: the attacker's values of issue 39 (NaN, inf, abc, a decimal comma, a NUL byte: %00 in the link)
ATTACK_VALUES = ("NaN", "inf", "abc", "1,5", "\x00")


@pytest.mark.parametrize("text", ATTACK_VALUES)
@pytest.mark.parametrize("field", ["params", "gpus", "mfu"])
def test_the_attackers_values_are_named_in_both_languages(field, text):
    query = urlencode({field: text})
    assert field not in scenario_fields_from_query(query)[0]
    (refused,) = refused_fields_from_query(query)  # before: none (dropped without a word)
    assert refused.field == field and refused.value == text
    assert "is not allowed" in str(refused) and "不可用" in refused.render("zh"), refused.render("zh")


@pytest.mark.parametrize("field, text", [("gpu", "no-such-gpu"), ("region", "mars"), ("precision", "fp3")])
def test_names_and_choices_a_field_does_not_know_are_named(field, text):
    (refused,) = refused_fields_from_query(urlencode({field: text}))
    assert refused.field == field and "不可用" in refused.render("zh") and "allowed: " in str(refused)


@settings(max_examples=examples(200))
@given(st.sampled_from(_FIELD_ORDER), st.text(max_size=12))
def test_a_value_is_taken_or_named_never_dropped_silently(field, text):
    query = urlencode({field: text})
    taken = field in scenario_fields_from_query(query)[0]
    named = [r for r in refused_fields_from_query(query) if r.field == field]
    blank = text.strip() in ("", "none", "null")
    assert taken or named or blank, (field, text)
    assert not (taken and named), (field, text)
