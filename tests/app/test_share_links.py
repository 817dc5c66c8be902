"""Share links: a scenario written to a query string reads back to the same scenario."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from explorer import Scenario
from explorer.app.query import query_from_scenario, scenario_fields_from_query


def _read_back(scenario: Scenario) -> Scenario:
    fields, _extras = scenario_fields_from_query(query_from_scenario(scenario))
    return Scenario.from_dict({**Scenario().to_dict(), **fields})


@settings(max_examples=150, deadline=None)
@given(
    params=st.floats(1e6, 1e14),
    tokens=st.floats(1e6, 1e15),
    mfu=st.none() | st.floats(0.01, 1.0),
    gpus=st.integers(1, 10_000_000),
    pue=st.none() | st.floats(1.0, 5.0),
    currency=st.sampled_from(["USD", "CNY"]),
)
def test_share_link_round_trip_is_exact(params, tokens, mfu, gpus, pue, currency):
    s = Scenario(params=params, tokens=tokens, mfu=mfu, gpus=gpus, pue=pue, currency=currency)
    assert _read_back(s) == s


def test_deadline_link_round_trip():
    s = Scenario(params=123456789012.0, tokens=2.5e12, gpus=None, deadline_days=12.345678901, mfu=0.4123456)
    assert _read_back(s) == s
