"""The interactive explorer (ipywidgets + ipympl); see :class:`ExplorerApp`."""

from explorer.app.explorer_app import ExplorerApp

__all__ = ["ExplorerApp"]
