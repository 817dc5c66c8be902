"""Which page messages the kernel's CPU budget holds, and which replace one another while they wait
(explorer.hosting.server.websocket.widget_message_key, explorer.hosting.server.kernel_budget)."""

from __future__ import annotations

import json

from explorer.hosting.server.websocket import widget_message_key


def _key(comm_id: str, data: dict, msg_id: str = "m1"):
    header = json.dumps({"msg_type": "comm_msg", "msg_id": msg_id}).encode()
    return widget_message_key(header, json.dumps({"comm_id": comm_id, "data": data}).encode())


def test_a_charts_draw_requests_replace_one_another_while_they_wait():
    # 20 tab switches a second make every shown chart's view ask for a drawing: queued in order they filled the
    # queue (64) and held the page's own request for the widgets' states behind them for minutes
    draw = {"method": "custom", "content": {"type": "draw"}}
    gated_a, key_a, _ = _key("canvas-a", draw, "m1")
    gated_b, key_b, msg_id = _key("canvas-a", draw, "m2")
    assert gated_a and gated_b and key_a == key_b and msg_id == "m2"
    assert _key("canvas-b", draw)[1] != key_a  # another chart's drawing is its own
    assert _key("canvas-a", {"method": "custom", "content": {"type": "resize", "width": 300}})[1] is None
    assert _key("canvas-a", {"method": "request_states"})[1] is None  # kept in order, never replaced
