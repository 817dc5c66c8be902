"""The registry of every private or undocumented upstream name the project relies on, and its check.

The hosting layer and the app reach into ten upstream packages (Voila, jupyter_server, jupyter_client,
ipykernel, comm, ipywidgets, ipympl, matplotlib, nbconvert, tornado, pyzmq) through names those packages do
not document. Each name is reached in exactly one boundary module:

* :mod:`explorer.hosting.server.upstream_server`: the server process (Voila, jupyter_server, jupyter_client,
  nbconvert, tornado, pyzmq);
* :mod:`explorer.hosting.kernel.upstream_kernel`: the kernel side (ipykernel, comm) of the hosting layer;
* :mod:`explorer.app.widgets_private` and :mod:`explorer.app.ipympl_private`: the app's kernel-side names
  (ipywidgets' registry and model ids; ipympl and matplotlib).

Each boundary module lists its names (``PRIVATE_NAMES``); :data:`REGISTRY` holds them all (the app's two lists
are repeated here as data, since this layer imports nothing of the app: ``tests/hosting/test_upstream_names.py``
checks that the copies agree). :func:`problems` checks every entry against the installed packages, and
:func:`require` runs it when the server starts (``python -m explorer.hosting``, ``llm-cost-explorer app`` and
``workshop``): a missing or changed name stops the server with one line naming it (exit status
:data:`EXIT_STATUS`), before anything is served. Nothing falls back silently.

Kinds of entry:

``attr``
    ``owner.name`` (or ``module.name`` when there is no owner) must exist.
``source``
    An attribute the library sets on an instance and reads itself: the source of the module defining the
    owner (or of ``module``) must still mention ``.name``. Setting or reading one the library dropped would do
    nothing, silently.
``identity``
    ``module.name`` must be the very object ``owner`` (another module, the one that uses it) holds under that
    name: a class replaced by identity (``_REPLACEMENTS`` in :mod:`explorer.hosting.server.server`) or rebound in the
    using module (``voila.handler.RequestInfoSocketHandler``) is found there.

:data:`CHECKED` records, per package, the versions allowed (``pyproject.toml``) and those the registry was
checked against.

This module imports only the standard library; the packages are imported when :func:`problems` runs.
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import inspect
import re
import sys
from dataclasses import dataclass

__all__ = ["PrivateName", "CHECKED", "EXIT_STATUS", "UpstreamChanged", "problems", "require",
           "missing", "gone"]

#: The exit status of a server stopped by a missing upstream name (2 is the CLI's bad input).
EXIT_STATUS = 3


class UpstreamChanged(RuntimeError):
    """An upstream private name the project relies on is gone or changed; the message names it."""


def gone(dotted: str, why: str) -> UpstreamChanged:
    """The error for ``dotted`` (e.g. ``"jupyter_client.KernelManager._activity_stream"``) found missing at run time.

    Parameters
    ----------
    dotted : str
        The upstream name, dotted as in the registry.
    why : str
        What the project uses it for.

    Returns
    -------
    UpstreamChanged
        To raise; its message points to this module's registry.
    """
    return UpstreamChanged(f"{dotted} is gone ({why}); see explorer/hosting/upstream_names.py")


@dataclass(frozen=True)
class PrivateName:
    """One upstream name the project relies on.

    Attributes
    ----------
    package : str
        The distribution that ships it (``pip show`` name).
    module : str
        The module it lives in.
    owner : str or None
        The class holding it (dotted within ``module``), None for a module attribute; for ``identity``, the
        module that must hold the same object.
    name : str
        The name.
    kind : str
        ``attr``, ``source`` or ``identity`` (module docstring).
    breaks : str
        What stops working without it.
    """

    package: str
    module: str
    owner: str | None
    name: str
    kind: str
    breaks: str

    @property
    def dotted(self) -> str:
        """``module.owner.name`` (``module.name`` for ``identity`` and module attributes)."""
        if self.owner is None or self.kind == "identity":
            return f"{self.module}.{self.name}"
        return f"{self.module}.{self.owner}.{self.name}"


# The app's names (explorer/app/ipympl_private.py and explorer/app/widgets_private.py), repeated as data.
_IPYMPL = "explorer/app/ipympl_private.py"
_APP_NAMES = (
    PrivateName("ipympl", "ipympl.backend_nbagg", "Canvas", "_handle_message", "attr",
                f"{_IPYMPL}: every message a page sends a chart is checked and bounded (GuardedCanvas)"),
    PrivateName("ipympl", "ipympl.backend_nbagg", "Canvas", "_data_url", "attr",
                f"{_IPYMPL}: the image a page loads first"),
    PrivateName("ipympl", "ipympl.backend_nbagg", "Canvas", "syncing_data_url", "source",
                f"{_IPYMPL}: the image before a page is there is written whole"),
    PrivateName("matplotlib", "matplotlib.backends.backend_webagg_core", "FigureCanvasWebAggCore", "_last_buff",
                "source", f"{_IPYMPL}: the last rendered pixels, encoded for a page that connects later"),
    PrivateName("matplotlib", "matplotlib.backends.backend_webagg_core", "FigureCanvasWebAggCore", "_force_full",
                "source", f"{_IPYMPL}: a revealed chart is sent whole, not as a difference"),
    PrivateName("matplotlib", "matplotlib.backends.backend_webagg_core", "FigureCanvasWebAggCore", "_png_is_old",
                "source", f"{_IPYMPL}: a revealed chart is re-encoded without rendering again"),
    PrivateName("matplotlib", "matplotlib.backends.backend_webagg_core", "FigureCanvasWebAggCore",
                "_capture_scroll", "source", f"{_IPYMPL}: sent again to a page that connected while hidden"),
    PrivateName("matplotlib", "matplotlib.backend_bases", "FigureCanvasBase", "_set_device_pixel_ratio", "attr",
                f"{_IPYMPL}: a pixel ratio reported while hidden is applied without a render"),
    PrivateName("matplotlib", "matplotlib.backend_bases", "FigureCanvasBase", "_original_dpi", "source",
                f"{_IPYMPL}: a figure moved onto a canvas takes its pixel ratio; downloads at 1x"),
    PrivateName("matplotlib", "matplotlib.figure", "Figure", "_set_dpi", "attr",
                f"{_IPYMPL}: a figure moved onto a canvas takes its pixel ratio"),
    PrivateName("ipywidgets", "ipywidgets.widgets.widget", None, "_instances", "attr",
                "explorer/app/widgets_private.py: the warm-up closes, and the prebuilt app takes out, the widgets "
                "they made (else every kernel's page gets their state)"),
    PrivateName("ipywidgets", "ipywidgets.widgets.widget", "Widget", "_model_id", "source",
                "explorer/app/widgets_private.py: a prebuilt widget reopens under its model id (its parents name "
                "it by that id)"),
    PrivateName("comm", "comm.base_comm", "BaseComm", "_closed", "source",
                "explorer/app/widgets_private.py: a prebuilt widget's template comm is retired without a "
                "comm_close"),
)

#: package -> (versions allowed by pyproject.toml, the versions every name was checked with: the lower bound and
#: constraints.txt's). The lower bounds were checked on 7 Dec 2026 with their wheels (``pip download --no-deps``)
#: unpacked in front of the project's venv: ``PYTHONPATH=<wheels>:. python -c "from explorer.hosting import
#: upstream_names; print(upstream_names.problems())"`` printed ``[]``.
CHECKED = {
    "voila": (">=0.5.12,<0.6", ("0.5.12", "0.5.13")),
    "jupyter_server": (">=2.14,<3", ("2.14.0", "2.21.1")),
    "jupyter_client": (">=8.6,<9", ("8.6.0", "8.10.0")),
    "ipykernel": (">=6.29.5,<8", ("6.29.5", "7.4.0")),
    "comm": (">=0.2.2,<0.3", ("0.2.2", "0.2.3")),
    "ipywidgets": (">=8.1,<9", ("8.1.0", "8.1.9")),
    "ipympl": (">=0.10,<0.11", ("0.10.0", "0.10.0")),
    "matplotlib": (">=3.11,<4", ("3.11.0", "3.11.2")),
    "nbconvert": (">=7.16.5,<8", ("7.16.5", "7.17.2")),
    "tornado": (">=6.5.8,<7", ("6.5.8", "6.6.1")),
    "pyzmq": (">=26.0,<28", ("26.0.0", "27.3.0")),
}


def _registry() -> tuple[PrivateName, ...]:
    from explorer.hosting.kernel import upstream_kernel
    from explorer.hosting.server import upstream_server

    return (*upstream_server.PRIVATE_NAMES, *upstream_kernel.PRIVATE_NAMES, *_APP_NAMES)


def _resolve(module: str, owner: str | None):
    obj = importlib.import_module(module)
    for part in (owner or "").split(".") if owner else ():
        obj = getattr(obj, part)
    return obj


@functools.lru_cache(maxsize=None)
def _source_of(obj) -> str:
    # the source of the module that defines it: reading a file is fast, finding a class in it (inspect parses
    # the module) took most of the check's time
    return inspect.getsource(inspect.getmodule(obj) or obj)


def _source_text(obj) -> str:
    """The source of a class or module, read once (tests replace this to see a ``source`` name disappear)."""
    return _source_of(obj)


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def missing(entry: PrivateName) -> str | None:
    """Why ``entry`` does not hold in the installed packages (one line), or None when it does."""
    try:
        if entry.kind == "identity":
            if entry.owner is None:
                return f"{entry.dotted}: an identity entry names no module to compare (owner is None)"
            found = getattr(importlib.import_module(entry.module), entry.name)
            used = getattr(importlib.import_module(entry.owner), entry.name, None)
            # the user module may hold a replacement this project installed (a subclass): that still counts
            if used is not found and not (isinstance(used, type) and isinstance(found, type)
                                          and issubclass(used, found)):
                return f"{entry.owner} no longer uses {entry.dotted}"
            return None
        obj = _resolve(entry.module, entry.owner)
        if entry.kind == "attr":
            return None if hasattr(obj, entry.name) else f"{entry.dotted} is gone"
        if entry.kind == "source":
            if re.search(rf"\.{re.escape(entry.name)}\b", _source_text(obj)):
                return None
            return f"{entry.dotted} is no longer set or read by {entry.package}"
        return f"{entry.dotted}: unknown kind {entry.kind!r}"
    except (ImportError, AttributeError, OSError, TypeError) as exc:
        return f"{entry.dotted} cannot be reached ({type(exc).__name__}: {exc})"


def problems(entries=None) -> list[str]:
    """One line per registered name that is missing or changed (empty when all hold)."""
    lines = []
    for entry in _registry() if entries is None else entries:
        why = missing(entry)
        if why is not None:
            allowed, checked = CHECKED.get(entry.package, ("?", ("?",)))
            lines.append(f"{why} ({entry.package} {_version(entry.package)} installed, checked with "
                         f"{' and '.join(checked)}, "
                         f"allowed {allowed}): {entry.breaks}")
    return lines


def require(stream=None) -> None:
    """Stop the process (``SystemExit`` with :data:`EXIT_STATUS`) with one line if any registered name fails."""
    found = problems()
    if not found:
        return
    more = f" (and {len(found) - 1} more: {'; '.join(found[1:])})" if len(found) > 1 else ""
    print(f"error: an upstream name this server relies on changed: {found[0]}{more}",
          file=stream or sys.stderr, flush=True)
    raise SystemExit(EXIT_STATUS)


def __getattr__(name: str):
    """``REGISTRY``: every registered name (the server's, the kernel side's, the app's), built when first read."""
    if name == "REGISTRY":
        return _registry()
    raise AttributeError(name)
