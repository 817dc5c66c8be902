"""Charts of the package, each a matplotlib Figure built once and updated in place (object API, no pyplot).

:mod:`~explorer.plots.breakdown` (cost breakdown, "what changed"), :mod:`~explorer.plots.history` (the
historical cost curve), :mod:`~explorer.plots.analysis` (tornado, lever waterfall, comparison bars),
:mod:`~explorer.plots.blit` (redrawing only what moves), :mod:`~explorer.plots.figure` (a Figure that shows
itself in a notebook) and :mod:`~explorer.plots.fonts` (Chinese where a CJK font is installed).
"""
