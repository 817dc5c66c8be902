"""The app's one front-end widget: heartbeat, chart-width sensor and absolute share links (anywidget).

:class:`PageBridge` is a small `anywidget <https://anywidget.dev>`_ widget
whose script (:data:`ESM`) runs in the page. It replaces three ``<img
onerror>`` scripts and the hidden text boxes they typed into:

* **heartbeat**: every :data:`~explorer.app.pages.estimate_html.HEARTBEAT_SECONDS` the page
  sets ``ping``; the kernel answers by copying it into ``pong``. With no answer
  for :data:`~explorer.app.pages.estimate_html.SESSION_TIMEOUT_SECONDS` (the kernel was
  culled, crashed, or the server restarted) the page shows the session-ended
  notice (:func:`~explorer.app.pages.estimate_html.session_html`), and hides it again when a
  late answer comes. The hosting server does not count a ping as interaction
  (``explorer.hosting.server.websocket``).
* **width sensor**: the width of the visible chart box [CSS px], sent as
  ``chart_width`` on load, after the window or the tab changes (debounced
  250 ms) and every 2 s; the kernel checks it
  (:func:`~explorer.app.responsive.parse_width`) and lays the charts out for it.
* **share links**: a share box (``input.explorer-share-url[data-query]``) gets
  the absolute URL, ``origin + path + query`` of the page (the kernel does not
  know the address viewers use: a proxy may sit in front).

The script is sent with the widget (no file on another host). anywidget
imports it from a ``blob:`` URL, so a Content-Security-Policy must allow
``blob:`` in ``script-src`` (``deploy/nginx.conf.in`` does). Nothing from the
page is trusted: ``ping`` is only echoed (cut to 24 characters) and widths
are clamped.
"""

from __future__ import annotations

import anywidget
import traitlets

from explorer.app.pages.estimate_html import HEARTBEAT_SECONDS, SESSION_TIMEOUT_SECONDS

__all__ = ["PageBridge", "ESM"]

#: The page's side (an ES module: anywidget calls ``render`` once per view).
ESM = """
const INTERVAL_MS = %(interval)d, TIMEOUT_MS = %(timeout)d;

function visibleChart() {
  return [...document.querySelectorAll('.explorer-app .jupyter-matplotlib')]
    .find((e) => e.offsetParent !== null && e.clientWidth > 0);
}

function fillShareLinks() {
  for (const input of document.querySelectorAll('input.explorer-share-url[data-query]')) {
    const url = new window.URL(input.getAttribute('data-query'), location.href).href;
    if (input.value !== url) {
      input.value = url;
      const link = input.parentNode.querySelector('a');
      if (link) { link.href = url; }
    }
  }
}

function render({ model, el }) {
  el.style.display = 'none';
  const timers = [];
  // heartbeat: a ping the kernel answers; no answer for TIMEOUT_MS shows the notice
  let n = 0, last = Date.now();
  model.on('change:pong', () => { last = Date.now(); });
  timers.push(setInterval(() => {
    const notice = document.querySelector('.explorer-session-ended');
    if (notice) { notice.style.display = (Date.now() - last > TIMEOUT_MS) ? 'block' : 'none'; }
    n += 1;
    model.set('ping', n);
    model.save_changes();
  }, INTERVAL_MS));
  // width sensor: the visible chart box's width, when it changes
  let sent = null, timer = null;
  function report() {
    const box = visibleChart();
    if (!box) { return; }
    const width = Math.floor(box.clientWidth);
    if (width === sent) { return; }
    sent = width;
    model.set('chart_width', width);
    model.save_changes();
  }
  function later() { clearTimeout(timer); timer = setTimeout(report, 250); }
  window.addEventListener('resize', later);
  document.addEventListener('click', later);
  timers.push(setInterval(report, 2000));  // until the charts exist, and after tab switches without a click
  report();
  // share links: absolute, as soon as a share box is written (at most once a frame: a language switch
  // changes hundreds of nodes)
  let queued = false;
  const observer = new MutationObserver(() => {
    if (!queued) { queued = true; requestAnimationFrame(() => { queued = false; fillShareLinks(); }); }
  });
  observer.observe(document.body, { subtree: true, childList: true });
  fillShareLinks();
  return () => {
    timers.forEach(clearInterval);
    clearTimeout(timer);
    window.removeEventListener('resize', later);
    document.removeEventListener('click', later);
    observer.disconnect();
  };
}

export default { render };
""" % {"interval": HEARTBEAT_SECONDS * 1000, "timeout": SESSION_TIMEOUT_SECONDS * 1000}


class PageBridge(anywidget.AnyWidget):
    """The page's heartbeat, chart-width sensor and share-link filler, as one hidden widget (see the module).

    Attributes
    ----------
    ping : object
        Set by the page every few seconds (a count); echoed into ``pong``.
    pong : str
        The kernel's answer: the last ``ping``, as text of at most 24 characters.
    chart_width : object
        Width of the visible chart box the page reports [CSS px]; checked by the
        observer (:func:`~explorer.app.responsive.parse_width`), never trusted.
    """

    _esm = traitlets.Unicode(ESM).tag(sync=True)
    # Any: a page may send anything; the kernel checks it (a typed trait would log a TraitError instead)
    ping = traitlets.Any(0).tag(sync=True)
    pong = traitlets.Unicode("").tag(sync=True)
    chart_width = traitlets.Any(None).tag(sync=True)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.observe(self._answer, names="ping")

    def _answer(self, change: dict) -> None:
        """Answer the page's heartbeat."""
        self.pong = str(change["new"])[:24]
