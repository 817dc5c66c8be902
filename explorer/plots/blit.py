"""Blitting: re-render only the artists that move, over a cached background.

The matplotlib pattern (see the "Faster rendering by using blitting" guide):
the moving artists are *animated*, so a full draw leaves them out; after
every full draw the background is cached and the artists drawn on top; an
update restores the background and draws just those artists. On a widget
canvas (ipympl) ``blit`` pushes the changed pixels to the browser.

Animated artists are skipped by ``savefig``: enable blitting only on figures
shown through an interactive canvas.
"""

from __future__ import annotations

from typing import Callable, Iterable

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
    """

    def __init__(self, figure: Figure, artists: Iterable[Artist], layout_key: Callable[[], object] | None = None):
        self.figure = figure
        self.artists = tuple(artists)
        self.layout_key = layout_key or (lambda: None)
        for artist in self.artists:
            artist.set_animated(True)
        self.canvas = figure.canvas
        self.background = None
        self.key = None
        self.cid = self.canvas.mpl_connect("draw_event", self._on_draw)

    def _on_draw(self, event) -> None:
        if event.canvas is not self.canvas or self.figure.canvas is not self.canvas:
            return  # a savefig through a temporary canvas
        self.background = self.canvas.copy_from_bbox(self.figure.bbox)
        self.key = (self.layout_key(), tuple(self.figure.bbox.bounds))
        self._draw_artists()
        self.canvas.blit(self.figure.bbox)

    def _draw_artists(self) -> None:
        for artist in self.artists:
            if artist.get_visible():
                self.figure.draw_artist(artist)

    def redraw(self) -> None:
        """Show the artists as they now are: a blit, or a full draw if the background changed."""
        if self.background is None or self.key != (self.layout_key(), tuple(self.figure.bbox.bounds)):
            self.canvas.draw()  # the draw_event handler draws the artists
            return
        self.canvas.restore_region(self.background)
        self._draw_artists()
        self.canvas.blit(self.figure.bbox)

    def disconnect(self) -> None:
        """Stop following full draws (before the figure is rebuilt)."""
        self.canvas.mpl_disconnect(self.cid)
