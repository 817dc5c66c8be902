"""The hosting server tells interaction from messages a page sends by itself (explorer/hosting/server/websocket.py).

The rule (docs/deploy.md, "the warden"): a widget ``comm_msg`` is interaction when it is an ``update`` of
a control's value or a ``custom`` message (a button's click), as ipywidgets' front end sends them when
the viewer acts. The page's own widget (explorer/app/page_bridge.py) sends its heartbeat (``ping``) and
the chart box's width by itself, and the widget manager asks for states (``request_state``,
``request_states``); none of these, nor any other message type, keeps an idle page's kernel. The
payloads are what ipywidgets' front end sends for ``model.set(...); model.save_changes()``
(JSON.stringify: no spaces), with a spaced variant.
"""

from __future__ import annotations

import json

import pytest

from explorer.hosting.server.websocket import is_interaction

COMM_MSG = json.dumps({"msg_type": "comm_msg", "msg_id": "1"}).encode()


def _content(data: dict, compact: bool = True) -> bytes:
    content = {"comm_id": "0f3c", "data": data}
    return json.dumps(content, separators=(",", ":") if compact else None).encode()


def _update(state: dict, compact: bool = True) -> bytes:
    return _content({"method": "update", "state": state, "buffer_paths": []}, compact)


@pytest.mark.parametrize("compact", [True, False])
@pytest.mark.parametrize("state", [{"ping": 17}, {"chart_width": 372}, {"ping": 3, "chart_width": 372},
                                   {"pong": "3"}, {}])
def test_what_the_page_sends_by_itself_is_not_interaction(state, compact):
    assert not is_interaction(COMM_MSG, _update(state, compact))


@pytest.mark.parametrize("data", [{"method": "request_state"}, {"method": "request_states"}, {"method": "echo_update"},
                                  {"method": "update", "state": "not a dict"}, "text", None])
def test_keep_alive_messages_are_not_interaction(data):
    assert not is_interaction(COMM_MSG, _content(data))


@pytest.mark.parametrize("msg_type", ["comm_info_request", "kernel_info_request", "comm_open", "execute_request"])
def test_other_message_types_are_not_interaction(msg_type):
    header = json.dumps({"msg_type": msg_type}).encode()
    assert not is_interaction(header, _update({"value": "7B"}))


@pytest.mark.parametrize("compact", [True, False])
@pytest.mark.parametrize("state", [{"value": "7B"}, {"value": "ping 3"}, {"index": 2}, {"ping": 3, "value": 1}])
def test_a_control_change_is_interaction(state, compact):
    assert is_interaction(COMM_MSG, _update(state, compact))


def test_a_click_is_interaction():
    assert is_interaction(COMM_MSG, _content({"method": "custom", "content": {"event": "click"}}))


def test_a_malformed_content_is_not_interaction():
    assert not is_interaction(COMM_MSG, b"{not json")
    assert not is_interaction(COMM_MSG, b"\xff\xfe")
