"""A look costs no kernel: the app's first answer served as a static page, the kernel started on the first touch.

A viewer who opens the app (one-notebook mode, ``make app``) first gets a page rendered by the server: the
link's KPIs, summary and cost breakdown chart, built by the app's own code (the renderer named by
``ExplorerVoila.static_answer`` in ``voila.json``, :mod:`explorer.app.pages.static_answer`; this package imports
nothing of the app). No kernel, seat or slot is taken for it, so the kernel cap and the seat cap do not
refuse it. A small script on the page waits for the viewer's first pointer or key press anywhere and then
asks for the live app at the same link with ``live=1`` added (:data:`LIVE_KEY`), replacing the page.

The live page carries the same answer as an overlay at the top of its body, shown from its first paint until
the app's widgets have drawn their summary, then removed: the switch keeps what is on screen (chromium holds
the old page's paint until the new one paints, and the new one paints the same answer). ``static_first =
False`` (``llm-cost-explorer app --kernel-at-once``) serves the live page at once, as before issue 39 (no
overlay: nothing was on screen before it).

Answers are kept in an :class:`AnswerCache`, a least-recently-used cache bounded by entries and bytes, keyed
by the renderer's normalized query (links that read the same share one entry). A render takes about 0.1 CPU-s
(measured in docs/deploy.md); renders run on one worker thread, at most :data:`MAX_PENDING_RENDERS` waiting,
and viewers of the same link wait on one render.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import html
import importlib
import json
import re
from collections import OrderedDict
from typing import Callable

__all__ = ["AnswerCache", "load_renderer", "static_html", "inject_overlay", "LIVE_KEY", "MAX_PENDING_RENDERS",
           "Answers", "STATIC_MARK"]

#: The query key the static page adds when it asks for the live app (the app ignores keys it does not know).
LIVE_KEY = "live"
#: Renders waiting at once, at most; further links with no cached answer get the busy page.
MAX_PENDING_RENDERS = 16
#: In every page that carries the static answer (tests and benchmarks look for it).
STATIC_MARK = 'id="explorer-static"'
_BODY_OPEN = re.compile(r"<body[^>]*>", re.IGNORECASE)

_STATIC_CSS = """<style>
body {font-family:system-ui,-apple-system,'Segoe UI',Roboto,'Noto Sans CJK SC','PingFang SC',sans-serif;
  margin:0; color:#1b2631; background:#fff;}
.explorer-static {box-sizing:border-box; max-width:1200px; margin:0 auto; padding:12px 14px 24px 14px;}
.explorer-static h1 {font-size:20px; margin:4px 0 6px 0;}
.explorer-static-note {font-size:13px; color:#566573; margin:0 0 8px 0;}
.explorer-static-chart {max-width:100%; height:auto; display:block; margin-top:6px;}
.explorer-static-overlay {position:fixed; inset:0; z-index:10000; overflow:auto; background:#fff;}
</style>"""


class AnswerCache:
    """A least-recently-used cache of rendered answers, bounded by entries and by their total size.

    Parameters
    ----------
    max_entries : int
        Answers kept at most.
    max_bytes : int
        Total size of the answers kept at most [bytes] (the length of their HTML, which is ASCII but for
        the words; about 38 kB each with the chart as PNG).
    """

    def __init__(self, max_entries: int = 256, max_bytes: int = 16 << 20):
        self.max_entries = max(int(max_entries), 1)
        self.max_bytes = max(int(max_bytes), 1)
        self._items: OrderedDict[str, tuple[dict, int]] = OrderedDict()
        self.bytes = 0

    @staticmethod
    def size(answer: dict) -> int:
        """The size an answer counts for [bytes]."""
        return sum(len(str(v)) for v in answer.values())

    def get(self, key: str) -> dict | None:
        """The answer kept for ``key`` (now the most recently used), or None."""
        item = self._items.get(key)
        if item is None:
            return None
        self._items.move_to_end(key)
        return item[0]

    def put(self, key: str, answer: dict) -> None:
        """Keep ``answer`` for ``key``, dropping the least recently used answers beyond the bounds."""
        if key in self._items:
            self.bytes -= self._items.pop(key)[1]
        size = self.size(answer)
        self._items[key] = (answer, size)
        self.bytes += size
        while len(self._items) > self.max_entries or (self.bytes > self.max_bytes and len(self._items) > 1):
            self.bytes -= self._items.popitem(last=False)[1][1]

    def __len__(self) -> int:
        return len(self._items)


def load_renderer(name: str):
    """The renderer module ``name`` (dotted), which has ``normalized_query(query)`` and ``answer(query)``.

    Raises ImportError or AttributeError naming it when it cannot be used: the server does not start.
    """
    module = importlib.import_module(name)
    for attribute in ("normalized_query", "answer"):
        if not callable(getattr(module, attribute, None)):
            raise AttributeError(f"ExplorerVoila.static_answer: {name} has no function {attribute}()")
    return module


class Answers:
    """The answers of one server: the renderer, the cache, one worker thread and the renders under way."""

    def __init__(self, renderer, cache: AnswerCache, log=None):
        self.renderer = renderer
        self.log = log
        self.cache = cache
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="static-answer")
        self._pending: dict[str, asyncio.Future] = {}
        self.renders = 0  # answers rendered in this server's life (the cache's misses)

    def key(self, query: str) -> str:
        """The cache key of ``query`` (the renderer's normalized query; cheap, no estimate)."""
        return self.renderer.normalized_query(query)

    async def get(self, query: str) -> dict | None:
        """The answer for ``query``: kept, rendered now (one render per key at a time), or None when
        :data:`MAX_PENDING_RENDERS` renders already wait."""
        key = self.key(query)
        found = self.cache.get(key)
        if found is not None:
            return found
        pending = self._pending.get(key)
        if pending is None:
            if len(self._pending) >= MAX_PENDING_RENDERS:
                return None
            pending = asyncio.get_running_loop().run_in_executor(self._pool, self.renderer.answer, query)
            self._pending[key] = pending
            try:
                answer = await pending
            finally:
                self._pending.pop(key, None)
            self.renders += 1
            self.cache.put(key, answer)
            if self.log is not None:
                self.log.info("Static answer rendered for %s (%d rendered, %d kept, %d bytes)", key[:300],
                              self.renders, len(self.cache), self.cache.bytes)
            return answer
        return await asyncio.shield(pending)


def _answer_block(answer: dict, overlay: bool) -> str:
    cls = "explorer-static explorer-app" + (" explorer-static-overlay" if overlay else "")
    note = answer["opening"] if overlay else answer["hint"]
    return (f'<div {STATIC_MARK} class="{cls}" data-total-usd="{html.escape(answer["total_usd"])}">'
            f'<h1>{html.escape(answer["title"])}</h1>'
            f'<p class="explorer-static-note" id="explorer-static-note">{html.escape(note)}</p>'
            f'{answer["html"]}</div>')


def static_html(answer: dict) -> str:
    """The static page of ``answer``: the answer and the script that opens the live app on the first touch."""
    opening = json.dumps(answer["opening"])
    script = ("<script>(function(){var gone=false;function live(){if(gone)return;gone=true;"
              "var n=document.getElementById('explorer-static-note');if(n)n.textContent=" + opening + ";"
              "var s=location.search;location.replace(location.pathname+(s?s+'&':'?')+'" + LIVE_KEY + "=1'"
              "+location.hash);}"
              "['pointerdown','keydown','touchstart'].forEach(function(t){"
              "window.addEventListener(t,live,{capture:true,passive:true});});})();</script>")
    return (f'<!doctype html><html lang="{html.escape(answer["lang"])}"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            '<link rel="icon" href="data:,">'  # no favicon request (the server has none to give)
            f'<title>{html.escape(answer["title"])}</title>{answer["style"]}{_STATIC_CSS}</head><body>'
            f"{_answer_block(answer, overlay=False)}{script}</body></html>")


def overlay_html(answer: dict) -> str:
    """The answer as an overlay for the live page, removed once the app's own summary is in the page.

    The link's ``live=1`` is taken out of the address bar (the page's link is the viewer's link).
    """
    script = ("<script>(function(){try{var u=new URL(location.href);if(u.searchParams.has('" + LIVE_KEY + "')){"
              "var q=location.search.slice(1).split('&').filter(function(p){return p.split('=')[0]!=='"
              + LIVE_KEY + "';}).join('&');history.replaceState(history.state,'',location.pathname+(q?'?'+q:'')"
              "+location.hash);}}catch(e){}"
              "var o=document.getElementById('explorer-static');if(!o)return;"
              "function ready(){var s=document.querySelectorAll('.explorer-summary-text');"
              "for(var i=0;i<s.length;i++){if(!o.contains(s[i]))return true;}return false;}"
              "var w=new MutationObserver(function(){if(ready()){w.disconnect();"
              "requestAnimationFrame(function(){o.remove();});}});"
              "w.observe(document.documentElement,{childList:true,subtree:true});})();</script>")
    return f"{_STATIC_CSS}{answer['style']}{_answer_block(answer, overlay=True)}{script}"


def inject_overlay(html_part: str, overlay: str) -> tuple[str, bool]:
    """``html_part`` with ``overlay`` put just after its ``<body>`` tag, and whether it was found there."""
    found = _BODY_OPEN.search(html_part)
    if found is None:
        return html_part, False
    return html_part[:found.end()] + overlay + html_part[found.end():], True


def wants_live(arguments: dict, static_first: bool) -> bool:
    """Whether a request (its query ``arguments``) is for the live app: at once, or after the first touch."""
    return not static_first or LIVE_KEY in arguments


def renderer_or_none(name: str, log) -> Callable | None:
    """:func:`load_renderer` for ``name``, None when ``name`` is empty (no static answer)."""
    if not name:
        return None
    renderer = load_renderer(name)
    log.info("Static answers by %s: a look costs no kernel", name)
    return renderer
