"""``python -m explorer.hosting``: Voila with the hardening a public server needs.

It runs exactly as ``voila`` does (same options, same ``voila.json``) with:

* the guarded kernel websocket (:mod:`explorer.hosting.websocket`);
* the page handler with a query limit, a cap on viewers' kernels and the
  ``_xsrf`` cookie for the unload beacon (:mod:`explorer.hosting.handlers`);
* 404 instead of 500 for paths the static handlers cannot read, and for
  ``/login`` and ``/logout``, which a login-free server does not offer.

Settings (command line or ``voila.json``, section ``ExplorerVoila``):
``max_kernels`` caps viewers' kernels (0: no cap).
"""

from __future__ import annotations

from traitlets import Int, default
from voila.app import Voila
from voila.static_file_handler import AllowListFileHandler, MultiStaticFileHandler, TemplateStaticFileHandler
from voila.tornado.handler import TornadoVoilaHandler
from voila.tornado.kernel_websocket_handler import VoilaKernelWebsocketHandler

from explorer.hosting.handlers import ExplorerPageHandler, NotFoundHandler, not_found_on_bad_path
from explorer.hosting.websocket import GuardedKernelWebsocketConnection, SafeKernelWebsocketHandler

__all__ = ["ExplorerVoila", "main"]

_REPLACEMENTS = {
    TornadoVoilaHandler: ExplorerPageHandler,
    VoilaKernelWebsocketHandler: SafeKernelWebsocketHandler,
    TemplateStaticFileHandler: not_found_on_bad_path(TemplateStaticFileHandler),
    AllowListFileHandler: not_found_on_bad_path(AllowListFileHandler),
    MultiStaticFileHandler: not_found_on_bad_path(MultiStaticFileHandler),
}
_NOT_OFFERED = (r"/login", r"/logout")


class ExplorerVoila(Voila):
    """Voila for anonymous public viewers (see the module docstring)."""

    max_kernels = Int(40, config=True, help="Most kernels held by viewers at once; 0 for no cap. "
                                            "Further viewers get a 'busy, try again' page (HTTP 503).")

    @default("kernel_websocket_connection_class")
    def _default_connection_class(self):
        return GuardedKernelWebsocketConnection

    def init_settings(self):
        settings = super().init_settings()
        settings["explorer_max_kernels"] = self.max_kernels
        return settings

    def init_handlers(self):
        handlers = []
        for spec in super().init_handlers():
            pattern, handler, *rest = spec
            if any(pattern.rstrip("$").endswith(path) for path in _NOT_OFFERED):
                continue
            handlers.append((pattern, _REPLACEMENTS.get(handler, handler), *rest))
        not_offered = [(self.server_url.rstrip("/") + path, NotFoundHandler) for path in _NOT_OFFERED]
        return not_offered + handlers


def main(argv: list[str] | None = None) -> None:
    """Start the server (``python -m explorer.hosting NOTEBOOK [voila options]``)."""
    ExplorerVoila.launch_instance(argv=argv)
