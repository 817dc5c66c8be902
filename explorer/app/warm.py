"""Build the app once and throw it away, so that a process forked afterwards builds it faster.

A Voila server forks every kernel from one template process (:mod:`explorer.hosting.kernel.kernel_template`, named
in ``voila.json``'s ``ForkProvisioner.preload`` as ``explorer.app.warm:warm_up``). The first
:class:`~explorer.app.ExplorerApp` a process builds pays once for what every later one finds done: the
catalogs and labels read from their CSV files, the presets resolved, matplotlib's fonts opened (the CJK
font for ``?lang=zh``), its text and layout code's first calls, the PNG encoder loaded. Measured in one
process on the development machine (2 Dec 2026, loaded): the first build took 1.41 CPU-s, the next ones
0.81-0.88 (``python benchmarks/first_page.py`` measures it in forked kernels, with and without this).
Done in the template, it is paid once per server instead of once per viewer, and its pages are shared
copy-on-write by every kernel.

What it leaves behind is what a kernel may inherit: caches of data and fonts. It closes every widget it
made (the page of a kernel gets the state of every open widget), starts no thread, and opens no socket.
"""

from __future__ import annotations

from explorer.app.explorer_app import TAB_KEYS, ExplorerApp
from explorer.app.ipympl_private import canvas_of, page_connected
from explorer.app.widgets_private import widget_registry
from explorer.text import LANGUAGES

__all__ = ["warm_up"]

def warm_up() -> None:
    """Build the app in each language, draw and encode its first chart as a page would ask, then close it all.

    Only widgets made here are closed: the shared layouts and styles made when :mod:`explorer.app.shared` was
    imported stay open, as in any kernel.
    """
    registry = widget_registry()
    before = set(registry)
    try:
        for language in LANGUAGES:
            app = ExplorerApp(query_string="", language=language)
            # the page's first request: its chart drawn and sent as a PNG (no kernel here: nothing is sent)
            page_connected(canvas_of(app.breakdown.figure))
            # the tabs built when first opened (History, Compare, Uncertainty): built and drawn once here, so a
            # viewer opening one in a forked kernel finds its first-time work (label placement, fonts) done
            for key in ("history", "compare", "uncertainty"):
                app.tabs.selected_index = TAB_KEYS.index(key)  # as a viewer's click
    finally:
        for model_id in set(registry) - before:
            made = registry.get(model_id)
            if made is not None:
                made.close()
