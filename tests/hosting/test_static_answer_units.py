"""Issue 39 without a server: the static answer's cache bound, its key, and the memory cap's arithmetic by hand."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from explorer.hosting.server import memory_cap
from explorer.hosting.server.static_page import AnswerCache, Answers, inject_overlay, static_html
from clients import run_async


def test_the_cache_keeps_at_most_its_entries_and_bytes_dropping_the_least_recently_used():
    cache = AnswerCache(max_entries=3, max_bytes=10**6)
    for key in "abcd":
        cache.put(key, {"html": key * 10})
    assert len(cache) == 3 and cache.get("a") is None  # the oldest went
    cache.get("b")  # b used: c is now the least recently used
    cache.put("e", {"html": "e"})
    assert cache.get("c") is None and cache.get("b") is not None
    small = AnswerCache(max_entries=100, max_bytes=250)
    for i in range(50):
        small.put(str(i), {"html": "x" * 100})
    assert small.bytes <= 250 and len(small) == 2


def test_many_distinct_links_keep_the_cache_within_its_bound_with_the_real_renderer():
    from explorer.app.pages import static_answer

    answers = Answers(static_answer, AnswerCache(max_entries=5, max_bytes=10**6))

    async def many():
        for n in range(12):
            await answers.get(f"params={n + 1}B")
        return await answers.get("tokens=2T&params=13B&utm_source=x"), await answers.get("params=13e9&tokens=2e12")

    first, same = run_async(many())
    assert len(answers.cache) <= 5 and answers.cache.bytes <= 5 * max(AnswerCache.size(first), 1) * 1.5
    assert first is same and answers.renders == 13  # the same link read two ways: one render


@pytest.mark.parametrize("available, total, pool, expected", [
    # 24 GiB machine, 20 GiB available: floor = 10 % of 24,576 = 2,457.6 MB;
    # (20,480 - 2,457.6 - 195.8 - 4 x 114.6) / 114.6 = 17,368.2 / 114.6 = 151.56 -> 151
    (20480, 24576, 4, 151),
    # 4 GiB laptop, 3 GiB available: floor = max(1,024, 409.6) = 1,024;
    # (3,072 - 1,024 - 195.8 - 0) / 114.6 = 1,852.2 / 114.6 = 16.16 -> 16
    (3072, 4096, 0, 16),
    # 1 GiB left of 2 GiB: less than the floor -> still one kernel
    (1024, 2048, 4, 1),
])
def test_the_default_cap_follows_memory_as_computed_by_hand(available, total, pool, expected):
    meminfo = f"MemTotal:       {total * 1024} kB\nMemFree:  1 kB\nMemAvailable:   {available * 1024} kB\n"
    cap, figures = memory_cap.default_max_kernels(pool, meminfo)
    assert figures["kernel_uss_mb_all_tabs"] == 114.6 and figures["template_rss_mb"] == 195.8  # capacity.csv
    assert cap == expected


@pytest.mark.parametrize("processes, expected", [
    # the 24 GiB machine above, 20 GiB available, pool 4, floor 2,457.6 MB kept once:
    # 1 process: 151 (above). 2: (18,022.4 / 2 - 195.8 - 458.4) / 114.6 = 8,356.99 / 114.6 = 72.92 -> 72
    (2, 72),
    # 4: (18,022.4 / 4 - 195.8 - 458.4) / 114.6 = 3,851.4 / 114.6 = 33.61 -> 33
    (4, 33),
    # 40: 450.56 - 654.2 < 0 -> still one kernel each
    (40, 1),
])
def test_several_processes_on_one_machine_each_take_their_share_of_its_memory(processes, expected):
    """deploy/serve.py's N processes each computed the cap from the whole machine: N x 151 kernels planned on
    18 GB of room. Each now plans for an N-th of the room above the floor, with its own template and pool."""
    meminfo = f"MemTotal:       {24576 * 1024} kB\nMemAvailable:   {20480 * 1024} kB\n"
    cap, figures = memory_cap.default_max_kernels(4, meminfo, processes=processes)
    assert cap == expected and figures["processes"] == processes
    room = 20480 - 2457.6  # what all of them may use, by hand
    kernel, template = 114.6, 195.8
    assert processes * (template + (4 + cap) * kernel) <= room or cap == 1
    with pytest.raises(ValueError, match="processes"):
        memory_cap.default_max_kernels(4, meminfo, processes=0)


def test_deploy_serve_tells_each_process_how_many_share_the_machine():
    path = Path(__file__).resolve().parents[2] / "deploy" / "serve.py"
    spec = importlib.util.spec_from_file_location("deploy_serve", path)
    serve = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(serve)
    flag = "--ExplorerVoila.processes_sharing_memory=3"
    assert flag in serve.voila_command(8866, processes=3)
    assert not any("processes_sharing_memory" in a for a in serve.voila_command(8866))  # one process: the default


def test_the_static_page_and_the_overlay_carry_the_answer():
    answer = {"lang": "zh", "title": "T", "style": "<style></style>", "html": "<p>ANSWER</p>", "total_usd": "1.0",
              "hint": "touch", "opening": "opening"}
    page = static_html(answer)
    assert '<html lang="zh"' in page and "ANSWER" in page and "live=1" in page and "kernelId" not in page
    part, placed = inject_overlay('<html><body class="x">rest', "<b>OVER</b>")
    assert placed and part == '<html><body class="x"><b>OVER</b>rest'
    assert inject_overlay("<head>", "x") == ("<head>", False)


from hypothesis import given, strategies as st  # noqa: E402

_KEYS = ["params", "tokens", "gpus", "lang", "scope", "preset", "gpu", "mfu", "utm", "live", "tab"]
_VALUES = st.sampled_from(["13B", "7e9", "2T", "zh", "en", "run", "abc", "1e99", "", "0.4", "H100", "NaN"])


@given(st.lists(st.tuples(st.sampled_from(_KEYS), _VALUES), max_size=8, unique_by=lambda kv: kv[0]),
       st.randoms(use_true_random=False))
def test_the_cache_key_does_not_depend_on_key_order_or_on_keys_the_app_ignores(pairs, rnd):
    from urllib.parse import urlencode

    from explorer.app.pages.static_answer import normalized_query

    shuffled = list(pairs)
    rnd.shuffle(shuffled)
    key, other = normalized_query(urlencode(pairs)).split("&"), normalized_query(urlencode(shuffled)).split("&")
    # the values read are in the Scenario's order; refused values in the link's (the banner names them so)
    assert [p for p in key if not p.startswith("refused:")] == [p for p in other if not p.startswith("refused:")]
    assert sorted(key) == sorted(other)
    assert normalized_query(urlencode(pairs)) == normalized_query(urlencode([*pairs, ("utm_source", "x")]))


@given(st.lists(st.tuples(st.integers(0, 30), st.integers(1, 400)), max_size=80), st.integers(1, 10),
       st.integers(1, 2000))
def test_the_cache_never_holds_more_than_its_bounds(puts, entries, max_bytes):
    cache = AnswerCache(max_entries=entries, max_bytes=max_bytes)
    for key, size in puts:
        cache.put(str(key), {"html": "x" * size})
        assert len(cache) <= entries
        assert cache.bytes <= max_bytes or len(cache) == 1  # one answer larger than the bound is still served
        assert cache.get(str(key)) is not None  # the answer just put is kept


def test_a_phone_gets_a_chart_drawn_for_its_width():
    """The answer carries the wide chart and, for screens under 600 px, one no wider than a 390 px phone's
    content box (390 px less the page's margins), read from each PNG's own header (IHDR width, bytes 16-20)."""
    import base64
    import re

    from explorer.app.pages.static_answer import answer

    page = answer("preset=deepseek_v3&lang=zh")["html"]
    narrow, = re.findall(r'<source media="\(max-width: 599px\)" srcset="data:image/png;base64,([^"]+)"', page)
    wide, = re.findall(r'<img class="explorer-static-chart"[^>]* src="data:image/png;base64,([^"]+)"', page)
    width = [int.from_bytes(base64.b64decode(b)[16:20], "big") for b in (narrow, wide)]
    assert width[0] <= 390 - 2 * 12 and width[1] >= 800, width
