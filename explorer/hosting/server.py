"""``python -m explorer.hosting``: Voila with the hardening a public server needs.

It runs exactly as ``voila`` does (same options, same ``voila.json``) with:

* the guarded kernel websocket (:mod:`explorer.hosting.websocket`);
* the page handler with a query limit, a cap on viewers' kernels and the
  ``_xsrf`` cookie for the unload beacon (:mod:`explorer.hosting.handlers`);
* a log line when a preheated kernel is ready for a viewer (Voila's own
  "pool is filled" comes when the kernels have only started);
* the page without Voila's two icon-font stylesheets from cdn.jsdelivr.net
  (``templates/index.html.j2``): it loads nothing from another host;
* labextension scripts named by their content kept by browsers for a year
  (Voila sends ``no-cache`` for all of them);
* 404 instead of 500 for paths the static handlers cannot read, and for
  ``/login`` and ``/logout``, which a login-free server does not offer.

* request bodies capped at ``max_body_bytes`` (the app posts only tiny
  ones), and every query string that fits in a request head parsed, so that
  the page handler answers a link with thousands of keys with its readable
  400 page, not tornado's empty one.

Settings (command line or ``voila.json``, section ``ExplorerVoila``):
``max_kernels`` caps viewers' kernels (0: no cap); ``max_body_bytes`` caps a
request body [bytes].
"""

from __future__ import annotations

import functools
from pathlib import Path

from jupyter_server.base.handlers import FileFindHandler
from tornado import httputil
from traitlets import Int, default
from voila.app import Voila
from voila.request_info_handler import RequestInfoSocketHandler
from voila.static_file_handler import AllowListFileHandler, MultiStaticFileHandler, TemplateStaticFileHandler
from voila.tornado.handler import TornadoVoilaHandler
from voila.tornado.kernel_websocket_handler import VoilaKernelWebsocketHandler

from explorer.hosting.handlers import (ExplorerPageHandler, LabExtensionFileHandler, NotFoundHandler,
                                      ReadyLoggingRequestInfoHandler, not_found_on_bad_path)
from explorer.hosting.websocket import GuardedKernelWebsocketConnection, SafeKernelWebsocketHandler

__all__ = ["ExplorerVoila", "main"]

_REPLACEMENTS = {
    TornadoVoilaHandler: ExplorerPageHandler,
    VoilaKernelWebsocketHandler: SafeKernelWebsocketHandler,
    RequestInfoSocketHandler: ReadyLoggingRequestInfoHandler,
    TemplateStaticFileHandler: not_found_on_bad_path(TemplateStaticFileHandler),
    AllowListFileHandler: not_found_on_bad_path(AllowListFileHandler),
    MultiStaticFileHandler: not_found_on_bad_path(MultiStaticFileHandler),
    FileFindHandler: LabExtensionFileHandler,
}
PAGE_TEMPLATE_DIR = Path(__file__).with_name("templates")  # searched before Voila's lab template
_NOT_OFFERED = (r"/login", r"/logout")
_MAX_HEADER_BYTES = 65536  # tornado's default request-head limit, stated so that the parser limit can follow it


def _parse_every_query_that_fits() -> None:
    """Let tornado parse any query string a request head can hold (at most one field per byte).

    Tornado refuses a query of more than 1,000 fields while it reads the
    request, before any handler runs, with an empty 400 the viewer cannot
    read. A query is bounded by the head size, and parsing 65,536 fields takes
    about 10 ms here; the same limit applies to urlencoded bodies, which
    ``max_body_bytes`` keeps small.
    """
    if hasattr(httputil, "set_parse_body_config"):  # tornado >= 6.5.8; older versions had no field limit
        httputil.set_parse_body_config(httputil.ParseBodyConfig(
            urlencoded=httputil.ParseUrlEncodedConfig(max_arguments=_MAX_HEADER_BYTES)))


class ExplorerVoila(Voila):
    """Voila for anonymous public viewers (see the module docstring)."""

    max_kernels = Int(40, config=True, help="Most kernels held by viewers at once; 0 for no cap. "
                                            "Further viewers get a 'busy, try again' page (HTTP 503).")

    max_body_bytes = Int(1 << 20, config=True, help="Largest request body accepted [bytes]; the app's own "
                                                      "requests (the unload beacon) are a few hundred bytes.")

    @default("kernel_websocket_connection_class")
    def _default_connection_class(self):
        return GuardedKernelWebsocketConnection

    def setup_template_dirs(self):
        super().setup_template_dirs()
        if self.voila_configuration.template == "lab":  # the page without CDN stylesheets (see the file)
            self.template_paths.insert(0, str(PAGE_TEMPLATE_DIR))

    def init_settings(self):
        settings = super().init_settings()
        settings["explorer_max_kernels"] = self.max_kernels
        settings["explorer_log"] = self.log  # handlers log as the server does
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


    def listen(self):
        _parse_every_query_that_fits()
        self.app.listen = functools.partial(self.app.listen, max_body_size=self.max_body_bytes,
                                            max_header_size=_MAX_HEADER_BYTES)
        super().listen()


def main(argv: list[str] | None = None) -> None:
    """Start the server (``python -m explorer.hosting NOTEBOOK [voila options]``)."""
    ExplorerVoila.launch_instance(argv=argv)
