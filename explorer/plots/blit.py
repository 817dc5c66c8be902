"""Blitting: re-render only the artists that move, over a cached background.

The matplotlib pattern (see the "Faster rendering by using blitting" guide):
the moving artists are *animated*, so a full draw leaves them out; after
every full draw the background is cached and the artists drawn on top; an
update restores the background and draws just those artists. On a widget
canvas (ipympl) ``blit`` pushes the changed pixels to the browser.

Animated artists are skipped by ``savefig``: enable blitting only on figures
shown through an interactive canvas.

With a ``cache``, backgrounds are also kept by layout key: going back to a
state already drawn (say, a currency shown before) restores its background
instead of drawing the figure again.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from matplotlib.artist import Artist
from matplotlib.figure import Figure

__all__ = ["Blitter"]


class Blitter:
    """Redraw ``artists`` of ``figure`` by blitting.

    Parameters
    ----------
    figure : Figure
        A figure on a canvas that supports blitting (Agg, ipympl).
    artists : iterable of Artist
        The artists that change between updates.
    layout_key : callable, optional
        Returns something that changes when the background must be redrawn
        (e.g. axis limits); a change triggers a full draw.
    cache : dict, optional
        Backgrounds by key (layout key and figure size), shared by the blitters
        of one figure; a change of key to one in ``cache`` restores that
        background instead of a full draw. The key must then identify everything
        the background shows. At most ``cache_size`` backgrounds are kept (the
        newest; each is the figure's size in RGBA pixels).
    cache_size : int
        Most backgrounds kept in ``cache``.
    """

    def __init__(self, figure: Figure, artists: Iterable[Artist], layout_key: Callable[[], object] | None = None,
                 cache: dict | None = None, cache_size: int = 4):
        self.figure = figure
        self.artists = tuple(artists)
        self.layout_key = layout_key or (lambda: None)
        self.cache = cache
        self.cache_size = cache_size
        for artist in self.artists:
            artist.set_animated(True)
        self.canvas = figure.canvas
        self.background: Any = None  # the canvas's saved region (a backend's BufferRegion)
        self.key: tuple | None = None
        self.cid = self.canvas.mpl_connect("draw_event", self._on_draw)

    def _on_draw(self, event) -> None:
        if event.canvas is not self.canvas or self.figure.canvas is not self.canvas:
            return  # a savefig through a temporary canvas
        self.background = self.canvas.copy_from_bbox(self.figure.bbox)
        self.key = self._key()
        if self.cache is not None:
            self.cache.pop(self.key, None)
            # with the axes positions of this draw: the layout engine may have moved them
            self.cache[self.key] = (self.background, [(ax.get_position(original=True).frozen(),
                                                       ax.get_position().frozen()) for ax in self.figure.axes])
            while len(self.cache) > self.cache_size:
                del self.cache[next(iter(self.cache))]  # the oldest
        self._draw_artists()
        self.canvas.blit(self.figure.bbox)

    def _key(self) -> tuple:
        return self.layout_key(), tuple(self.figure.bbox.bounds)

    def _draw_artists(self) -> None:
        for artist in self.artists:
            if artist.get_visible():
                self.figure.draw_artist(artist)

    def redraw(self) -> None:
        """Show the artists as they now are: a blit, or a full draw if the background changed.

        A changed background already in the cache is restored, not drawn.
        """
        key = self._key()
        if self.background is None or self.key != key:
            cached = self.cache.get(key) if self.cache is not None else None
            if self.cache is None or cached is None:
                self.canvas.draw()  # the draw_event handler draws the artists
                return
            self.background, positions = cached
            self.key = key
            self.cache[key] = self.cache.pop(key)  # now the newest
            if len(positions) == len(self.figure.axes):
                # where the draw of this background put the axes, for the artists drawn over it
                for ax, (original, active) in zip(self.figure.axes, positions):
                    in_layout = ax.get_in_layout()  # set_position takes an axes out of the layout: put it back
                    ax.set_position(original, which="original")
                    ax.set_position(active, which="active")
                    ax.set_in_layout(in_layout)
        # on the canvases a Blitter takes (Agg and those built on it, as ipympl's), not on FigureCanvasBase
        self.canvas.restore_region(self.background)  # type: ignore[attr-defined]
        self._draw_artists()
        self.canvas.blit(self.figure.bbox)

    def disconnect(self) -> None:
        """Stop following full draws (before the figure is rebuilt)."""
        self.canvas.mpl_disconnect(self.cid)
