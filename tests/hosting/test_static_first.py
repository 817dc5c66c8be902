"""Issue 39, a look costs no kernel: the app's first answer as a static page, the kernel on the first touch.

Against a real server on 127.0.0.1 (``python -m explorer.hosting``, voila.json's settings, static answer first as
``make app`` serves it). The expected totals come from the CLI (``python -m explorer estimate --json``), a path
that shares the model with the page but none of its reading, formatting or rendering.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

import clients as cl
from conftest import ROOT, Server

pytestmark = pytest.mark.server

LINK = "params=13B&tokens=2T"
_MONEY = re.compile(r'explorer-kpi total"><div class="v">\$([0-9.,]+)([KMBT]?)</div>')
_SCALE = {"": 1, "K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}


def _cli_total_usd(*args: str) -> float:
    """The project's total cost [USD] by the CLI's JSON output."""
    out = subprocess.run([sys.executable, "-m", "explorer", "estimate", *args, "--json"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)["cost"]["total"]


def _shown_usd(body: str) -> float:
    found = _MONEY.search(body)
    assert found, body[:2000]
    return float(found.group(1).replace(",", "")) * _SCALE[found.group(2)]


def _kernels_started(srv) -> int:
    """Kernels the server has started in its life (jupyter_server logs each)."""
    return srv.log.read_text().count("Kernel started:")


@pytest.fixture(scope="module")
def look_server():
    srv = Server("static-first", "--ExplorerVoila.static_first=True", "--ExplorerVoila.static_cache_entries=4",
                 pool_size=1)
    yield srv
    srv.stop()


def test_static_page_shows_the_links_total_as_the_cli_computes_it(look_server):
    expected = _cli_total_usd("--params", "13B", "--tokens", "2T")
    page = cl.get_page(look_server.url + "?" + LINK)
    assert page.status == 200 and 'id="explorer-static"' in page.body
    assert page.kernel_id is None and not page.rendered  # no kernel, no widget: a static page
    shown = _shown_usd(page.body)
    assert abs(shown - expected) <= 0.005 * expected, (shown, expected)  # shown to 3 significant digits
    assert abs(float(re.search(r'data-total-usd="([^"]+)"', page.body).group(1)) - expected) <= 1e-6 * expected
    assert 'src="data:image/png;base64,' in page.body  # the cost breakdown chart
    zh = cl.get_page(look_server.url + "?" + LINK + "&lang=zh")
    assert zh.status == 200 and '<html lang="zh"' in zh.body and "总成本" in zh.body


def test_a_bad_link_shows_its_banner_on_the_static_page(look_server):
    page = cl.get_page(look_server.url + "?gpus=1e99&params=13B")
    assert page.status == 200 and 'class="explorer-banner"' in page.body
    banner = re.search(r'<div class="explorer-banner">(.*?)</div>', page.body).group(1)
    assert "GPUs" in banner and "1e99" in banner
    zh = cl.get_page(look_server.url + "?gpus=1e99&lang=zh")
    assert "未应用" in zh.body or "explorer-banner" in zh.body
    # the rest of the link still applies, as in the app: 13B, the CLI's default cluster
    assert abs(_shown_usd(page.body) - _cli_total_usd("--params", "13B")) <= 0.005 * _shown_usd(page.body)


def test_no_kernel_is_started_until_the_first_touch_and_then_the_same_scenario(look_server):
    before, processes = _kernels_started(look_server), len(cl.children(look_server.proc.pid))
    static = [cl.get_page(look_server.url + "?" + LINK + f"&n={i}") for i in range(6)]
    assert all(p.status == 200 and p.kernel_id is None for p in static)
    assert _kernels_started(look_server) == before
    assert len(cl.children(look_server.proc.pid)) == processes
    # the first touch: the page asks for the same link with live=1
    live = cl.get_page(look_server.url + "?" + LINK + "&live=1")
    assert live.status == 200 and live.rendered and live.kernel_id
    assert 'id="explorer-static"' in live.body  # the answer stays on screen until the widgets draw
    ws = cl.connect(look_server.url, live.kernel_id, v1=True, cookie=live.cookie, timeout=120)
    try:
        states = cl.widget_states(ws, timeout=120)
    finally:
        ws.close()
    kpis = [s.get("state", s).get("value", "") for s in states.values()
            if "explorer-kpi total" in str(s.get("state", s).get("value", ""))]
    assert kpis, "the live app has no KPI cards"
    assert _shown_usd(kpis[0]) == _shown_usd(static[0].body)


def test_the_answer_cache_is_bounded(look_server):
    """With 4 answers kept, 10 distinct links and the first again: the first is rendered again (it was dropped)."""
    links = [f"params={n}B" for n in range(21, 31)]
    for link in links + links[:1]:
        assert cl.get_page(look_server.url + "?" + link).status == 200
    lines = [line for line in look_server.log.read_text().splitlines() if "Static answer rendered" in line]
    kept = [int(re.search(r"(\d+) kept", line).group(1)) for line in lines]
    assert max(kept) <= 4, lines
    assert sum(f"params={21 * 10**9!r}" in line or "params=21000000000" in line for line in lines) == 2, lines
