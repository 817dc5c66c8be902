"""The hosting server tells the page's heartbeat from interaction (explorer/hosting/websocket.py).

The heartbeat is an update of the ``ping`` trait alone, sent by the page's
widget (explorer/app/page_bridge.py) every few seconds; it must not keep an
idle page's kernel alive. Anything else (a width, a control) is interaction.
The payloads are what ipywidgets' front end sends for ``model.set(...);
model.save_changes()`` (JSON.stringify: no spaces), with a spaced variant.
"""

from __future__ import annotations

import json

import pytest

from explorer.hosting.websocket import _HEARTBEAT


def _update(state: dict, compact: bool = True) -> bytes:
    content = {"comm_id": "0f3c", "data": {"method": "update", "state": state, "buffer_paths": []}}
    return json.dumps(content, separators=(",", ":") if compact else None).encode()


@pytest.mark.parametrize("compact", [True, False])
def test_a_ping_is_a_heartbeat(compact):
    assert _HEARTBEAT.search(_update({"ping": 17}, compact))


@pytest.mark.parametrize("state", [{"chart_width": 372}, {"ping": 3, "chart_width": 372}, {"value": "7B"},
                                   {"value": "ping 3"}, {"pong": "3"}])
def test_anything_else_is_interaction(state):
    assert not _HEARTBEAT.search(_update(state))
