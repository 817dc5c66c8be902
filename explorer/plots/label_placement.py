"""Where chart labels go: point labels placed without overlaps, and a label kept inside its axes at draw time.

:func:`place_labels` puts one label beside each point of a scatter (the history chart's models), in a
column with leader lines for a crowded range and greedily elsewhere; a placement is computed once per
figure size, limits, texts and points in a process (:data:`PLACEMENTS`), with the layout engine and text
measurements only, never a full draw. :class:`LabelInsideAxes` is an annotation that moves itself inside
its axes at every draw (the history chart's "your run" label). Matplotlib's object API only, no pyplot.
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.figure import Figure
from matplotlib.text import Annotation, Text

__all__ = ["LabelInsideAxes", "PLACEMENTS", "PLACEMENTS_MAX", "label_specs", "place_labels", "placement_key",
           "renderer_of"]


def renderer_of(fig: Figure):
    """The renderer of ``fig``'s canvas (an Agg canvas is attached to a figure that has none)."""
    get = getattr(fig.canvas, "get_renderer", None)
    if get is None:
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        get = FigureCanvasAgg(fig).get_renderer  # now fig.canvas
    return get()


#: Label placements already computed in this process (see :func:`place_labels`), newest last.
PLACEMENTS: dict = {}
PLACEMENTS_MAX = 16


def placement_key(fig, ax, xs, ys, names, fontsize, text_kw, all_xy, column_from_x) -> tuple:
    """Everything a label placement depends on, known before any layout.

    The pixel positions follow from the figure size and dpi, the axis limits and
    the space the texts take (titles, axis labels, tick labels, legend,
    crossing labels), so the key holds those, the points and the label texts.
    """
    leg = ax.get_legend()
    parts = [ax.xaxis.label, ax.yaxis.label, *ax.texts, *(leg.get_texts() if leg is not None else ())]
    texts = (fig.get_suptitle(), *(ax.get_title(loc) for loc in ("left", "center", "right")),
             *(t.get_text() for t in parts if t.get_visible()))  # tick labels: by the limits
    return (tuple(float(v) for v in fig.get_size_inches()), float(fig.dpi), ax.get_xlim(), ax.get_ylim(),
            texts, tuple(names), np.asarray(xs, float).tobytes(), np.asarray(ys, float).tobytes(),
            None if all_xy is None else np.asarray(all_xy, float).tobytes(), float(fontsize),
            tuple(sorted((k, repr(v)) for k, v in text_kw.items())), column_from_x)


def place_labels(fig, ax, xs, ys, names, fontsize, text_kw, all_xy=None, column_from_x=None, key=None) -> list:
    """Place point labels without overlaps.

    Labels of points at ``x >= column_from_x`` (the crowded recent years) go
    to a column right of those points, ordered by height and joined to their
    points by leader lines; the others are placed greedily at the first
    nearby offset whose box hits no marker and no label already placed.

    The placement is computed once per :func:`placement_key` in a process
    (a language switched back costs no layout), and computing it runs only the
    figure's layout engine and text measurements, never a full draw.
    """
    if key is None:
        key = placement_key(fig, ax, xs, ys, names, fontsize, text_kw, all_xy, column_from_x)
    specs = PLACEMENTS.pop(key, None)
    if specs is None:
        specs = label_specs(fig, ax, xs, ys, names, fontsize, text_kw, all_xy, column_from_x)
    PLACEMENTS[key] = specs
    while len(PLACEMENTS) > PLACEMENTS_MAX:
        del PLACEMENTS[next(iter(PLACEMENTS))]
    out = []
    for i, dx, dy, ha, va, arrowprops in specs:
        ann = ax.annotate(names[i], (xs[i], ys[i]), xytext=(dx, dy), textcoords="offset points", ha=ha, va=va,
                          fontsize=fontsize, zorder=4, arrowprops=None if arrowprops is None else dict(arrowprops),
                          **text_kw)
        ann.set_in_layout(False)
        out.append(ann)
    return out


def label_specs(fig, ax, xs, ys, names, fontsize, text_kw, all_xy=None, column_from_x=None) -> tuple:
    """Where :func:`place_labels` puts each label: ``(index, dx, dy, ha, va, arrowprops)``, offsets in points."""
    engine = fig.get_layout_engine()
    if engine is not None:
        engine.execute(fig)  # the layout a draw would make, so data->pixel transforms are final
    renderer = renderer_of(fig)
    to_px = ax.transData.transform
    px = to_px(np.column_stack([xs, ys]))
    scale = fig.dpi / 72.0
    r_marker = 5.0 * scale
    pts = to_px(all_xy) if all_xy is not None else px
    obstacles = [(x - r_marker, y - r_marker, x + r_marker, y + r_marker) for x, y in pts]
    # join lines of multi-estimate runs are obstacles too
    for x in np.unique(np.round(pts[:, 0], 1)):
        col = pts[np.abs(pts[:, 0] - x) < 0.2]
        if len(col) > 1:
            obstacles.append((x - 1.5, col[:, 1].min(), x + 1.5, col[:, 1].max()))
    # the legend's area is also taken
    leg = ax.get_legend()
    if leg is not None:
        b = leg.get_window_extent(renderer)
        obstacles.append((b.x0, b.y0, b.x1, b.y1))
    axbox = ax.get_window_extent(renderer)
    candidates: list[tuple[float, float, str, str]] = []  # offset [pt] and alignment
    for d in (6, 13, 22, 34):
        candidates += [(d, 0, "left", "center"), (-d, 0, "right", "center"), (0, d, "center", "bottom"),
                       (0, -d, "center", "top"), (d, d, "left", "bottom"), (d, -d, "left", "top"),
                       (-d, d, "right", "bottom"), (-d, -d, "right", "top")]
    probe = ax.text(0, 0, "", fontsize=fontsize, **text_kw)
    extents = {}

    def extent(i):
        if names[i] not in extents:
            probe.set_text(names[i])
            ext = probe.get_window_extent(renderer)
            extents[names[i]] = (ext.width, ext.height)
        return extents[names[i]]

    placed: list[tuple[float, float, float, float]] = []  # boxes [px]
    out: list[tuple[int, float, float, str, str, tuple[tuple[str, object], ...] | None]] = []
    in_col = (np.asarray(xs) >= column_from_x) if column_from_x is not None else np.zeros(len(xs), bool)
    if in_col.any():
        idx = np.flatnonzero(in_col)
        idx = idx[np.argsort(px[idx, 1])]
        widths, heights = zip(*(extent(i) for i in idx))
        step = max(heights) * 1.12
        want = px[idx, 1].astype(float)
        got = want.copy()
        for k in range(1, len(got)):
            got[k] = max(got[k], got[k - 1] + step)
        got += np.mean(want) - np.mean(got)
        for k in range(1, len(got)):
            got[k] = max(got[k], got[k - 1] + step)
        col_x = px[idx, 0].max() + 22 * scale
        for k, i in enumerate(idx):
            dx = (col_x - px[i, 0]) / scale
            dy = (got[k] - px[i, 1]) / scale
            out.append((int(i), float(dx), float(dy), "left", "center",
                        (("arrowstyle", "-"), ("lw", 0.6), ("color", "0.5"), ("shrinkA", 1), ("shrinkB", 4))))
            placed.append((col_x, got[k] - heights[k] / 2, col_x + widths[k], got[k] + heights[k] / 2))
    order = [i for i in np.argsort(xs) if not in_col[i]]
    for i in order:
        w, h = extent(i)
        best: tuple[float, float, str, str, tuple[float, float, float, float]] | None = None
        best_cost: float | None = None
        for dx, dy, ha, va in candidates:
            x0 = px[i, 0] + dx * scale - {"left": 0, "center": w / 2, "right": w}[ha]
            y0 = px[i, 1] + dy * scale - {"bottom": 0, "center": h / 2, "top": h}[va]
            box = (x0, y0, x0 + w, y0 + h)
            cost = 0.0
            for o in placed + obstacles:
                ix = max(0.0, min(box[2], o[2]) - max(box[0], o[0]))
                iy = max(0.0, min(box[3], o[3]) - max(box[1], o[1]))
                cost += ix * iy
            if box[0] < axbox.x0 or box[2] > axbox.x1 or box[1] < axbox.y0 or box[3] > axbox.y1:
                cost += w * h * 10
            if best_cost is None or cost < best_cost:
                best, best_cost = (dx, dy, ha, va, box), cost
            if cost == 0:
                break
        assert best is not None  # the first candidate sets it
        dx, dy, ha, va, box = best
        placed.append(box)
        leader = ((("arrowstyle", "-"), ("lw", 0.6), ("color", "0.45"), ("shrinkA", 0), ("shrinkB", 4))
                  if max(abs(dx), abs(dy)) > 8 else None)
        out.append((int(i), dx, dy, ha, va, leader))
    probe.remove()
    return tuple(out)


class LabelInsideAxes(Annotation):
    """The "your run" label: drawn beside its star, moved at each draw so that its text lies inside the axes.

    Placed at draw time, with the renderer and the laid-out axes of that draw, so a label inside at one screen
    width is inside at every width, pixel ratio and in every file (issue 27: it was clipped at the right edge).
    ``offset`` [pt] is where it goes before the move; the move is rounded up to whole ``step_pt`` [pt], so the
    pixel or two by which text metrics differ between pixel ratios does not move it.
    """

    pad_pt = 3.0
    step_pt = 6.0

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.offset = self.xyann

    def draw(self, renderer):  # noqa: D102
        if self.get_visible() and self.axes is not None:
            self.xyann = self.offset
            self.update_positions(renderer)
            points = 72.0 / self.figure.dpi  # [pt/px]
            box, axes = Text.get_window_extent(self, renderer), self.axes.get_window_extent(renderer)
            dx = self._shift((box.x0 - axes.x0) * points, (axes.x1 - box.x1) * points)
            dy = self._shift((box.y0 - axes.y0) * points, (axes.y1 - box.y1) * points)
            if dx or dy:
                self.xyann = (self.offset[0] + dx, self.offset[1] + dy)
        super().draw(renderer)

    def _shift(self, low_room: float, high_room: float) -> float:
        """The move [pt] that leaves ``pad_pt`` of room on both sides (low side first), in whole steps."""
        if high_room < self.pad_pt:
            return -math.ceil((self.pad_pt - high_room) / self.step_pt) * self.step_pt
        if low_room < self.pad_pt:
            return math.ceil((self.pad_pt - low_room) / self.step_pt) * self.step_pt
        return 0.0
