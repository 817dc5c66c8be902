"""A matplotlib Figure that shows itself in a notebook, whatever the backend (no pyplot).

A bare ``matplotlib.figure.Figure`` made without pyplot has no rich display:
IPython prints ``<Figure size 700x360 with 1 Axes>`` unless ``%matplotlib
inline`` registered a formatter for it. :class:`NotebookFigure` renders itself
as PNG (``_repr_png_``), so every figure the package returns draws in
JupyterLab, Jupyter Notebook, nbval or VS Code, with or without a backend set.
"""

from __future__ import annotations

import io

from matplotlib.figure import Figure

__all__ = ["NotebookFigure", "png_bytes"]


def png_bytes(figure: Figure, dpi: float | str = "figure") -> bytes:
    """``figure`` as PNG, rendered through a fresh Agg canvas (the figure's own canvas is not touched)."""
    out = io.BytesIO()
    figure.savefig(out, format="png", backend="agg", dpi=dpi, facecolor="white")
    return out.getvalue()


class NotebookFigure(Figure):
    """A :class:`~matplotlib.figure.Figure` with a PNG representation for notebooks."""

    def _repr_png_(self) -> bytes:
        return png_bytes(self)
