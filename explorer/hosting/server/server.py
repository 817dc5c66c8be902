"""``python -m explorer.hosting``: Voila with the hardening a public server needs.

It runs exactly as ``voila`` does (same options) with:

* the project's settings, ``explorer/hosting/voila.json`` (shipped in the package), read after any
  ``voila.json`` of the working directory or the Jupyter config path, which override it key by key;

* the guarded kernel websocket (:mod:`explorer.hosting.server.websocket`);
* the page handler with a query limit, a cap on viewers' kernels and a seat
  cookie per page for its websocket and unload beacon (:mod:`explorer.hosting.server.handlers`);
* a log line when a preheated kernel is ready for a viewer (Voila's own
  "pool is filled" comes when the kernels have only started);
* the page without Voila's two icon-font stylesheets from cdn.jsdelivr.net
  (``templates/index.html.j2``): it loads nothing from another host;
* labextension scripts named by their content kept by browsers for a year
  (Voila sends ``no-cache`` for all of them);
* only the labextensions a page draws with (:data:`PAGE_EXTENSIONS`) unless
  ``VoilaConfiguration.extension_allowlist`` says otherwise: any other
  extension in the environment (JupyterLab's own, jupytext's) would load
  code into every public page and may log errors there;
* 404 instead of 500 for paths the static handlers cannot read, and for
  ``/login`` and ``/logout``, which a login-free server does not offer;
* one fixed error page for every error a viewer can meet, in the page's
  language, naming no framework and giving no debugging advice
  (:func:`~explorer.hosting.server.handlers.error_page`), also in place of a failed
  cell's output;
* in directory mode (``make workshop``), only the notebooks of
  ``public_notebooks`` (the lessons, the claims page, the index); any other
  notebook is a 404, and the tree lists only the public ones.

* request bodies capped at ``max_body_bytes`` (the app posts only tiny
  ones), and every query string that fits in a request head parsed, so that
  the page handler answers a link with thousands of keys with its readable
  400 page, not tornado's empty one.

* seats per client address, the unload beacon honoured only from the page
  that owns the kernel, and a warden that frees idle pages, stuck kernels and
  kernels over their memory limit (:mod:`explorer.hosting.server.seats`);
* the preheated kernels' query socket only for a kernel that waits for it
  (:class:`~explorer.hosting.server.handlers.ReadyLoggingRequestInfoHandler`);
* caps on kernel websockets and on what the server buffers for each, and
  process and ZMQ limits raised to fit the stated file-descriptor budget;
* tornado timeouts for request heads and bodies, for when it is served
  without nginx;
* preheated pools that grow when viewers arrive and shrink when idle, within
  a memory budget (:mod:`explorer.hosting.server.demand_pool`), and whose fill delay
  no viewer waits out (:mod:`explorer.hosting.server.pool_wake`);
* the page templates compiled once for all pages, not once per kernel
  (:mod:`explorer.hosting.server.template_cache`).

Settings (command line or ``voila.json``, section ``ExplorerVoila``; the
production values and their reasons are in docs/deploy.md): ``max_kernels``
caps viewers' kernels (0: no cap); ``max_body_bytes`` caps a request body
[bytes]; ``seats_per_address``, ``trusted_proxies``, ``exempt_networks``,
``page_idle_timeout``, ``connect_timeout``, ``busy_message_limit``, ``busy_cull_timeout``, ``kernel_memory_mb``,
``warden_interval``, ``max_ws_buffer_bytes``, ``fd_budget``,
``header_timeout``, ``body_timeout``.
"""

from __future__ import annotations

import functools
import os
import resource
from pathlib import Path

import voila.handler
import zmq

from jupyter_core.paths import jupyter_config_path
from jupyter_server.base.handlers import FileFindHandler
from jupyter_server.services.kernels.handlers import KernelHandler
from tornado import httputil
from tornado.ioloop import IOLoop
from traitlets import Bool, Float, Int, List, Unicode, default
from voila.app import Voila
from voila.request_info_handler import RequestInfoSocketHandler
from voila.shutdown_kernel_handler import VoilaShutdownKernelHandler
from voila.static_file_handler import AllowListFileHandler, MultiStaticFileHandler, TemplateStaticFileHandler
from voila.tornado.contentshandler import VoilaContentsHandler
from voila.tornado.handler import TornadoVoilaHandler
from voila.tornado.kernel_websocket_handler import VoilaKernelWebsocketHandler
from voila.tornado.treehandler import TornadoVoilaTreeHandler

from explorer.hosting.server.handlers import (CELL_ERROR_MARK, ExplorerPageHandler, LabExtensionFileHandler,
                                      NotFoundHandler, OwnerShutdownHandler, ReadyLoggingRequestInfoHandler,
                                      not_found_on_bad_path, public_listing, with_error_page)
from explorer.hosting.server import memory_cap, pool_wake, static_page, template_cache, upstream_server
from explorer.hosting.server.kernel_rest import OwnerKernelHandler
from explorer.hosting.upstream_names import require
from explorer.hosting.server.demand_pool import DemandPool
from explorer.hosting.server.warden import Warden
from explorer.hosting.server.websocket import GuardedKernelWebsocketConnection, SafeKernelWebsocketHandler, kernel_connections

__all__ = ["ExplorerVoila", "main"]

_REPLACEMENTS = {
    TornadoVoilaHandler: ExplorerPageHandler,
    VoilaKernelWebsocketHandler: SafeKernelWebsocketHandler,
    RequestInfoSocketHandler: ReadyLoggingRequestInfoHandler,
    TemplateStaticFileHandler: with_error_page(not_found_on_bad_path(TemplateStaticFileHandler)),
    AllowListFileHandler: with_error_page(not_found_on_bad_path(AllowListFileHandler)),
    MultiStaticFileHandler: with_error_page(not_found_on_bad_path(MultiStaticFileHandler)),
    FileFindHandler: with_error_page(LabExtensionFileHandler),
    VoilaShutdownKernelHandler: OwnerShutdownHandler,
    KernelHandler: OwnerKernelHandler,  # GET and DELETE /api/kernels/<id>: the owning page only (issue 39)
}
# Voila's page handler hands a preheated kernel its query through this class's send_updates
upstream_server.rebind(voila.handler, "RequestInfoSocketHandler", ReadyLoggingRequestInfoHandler)
template_cache.install()  # the page templates compiled once, not by every kernel's renderer
pool_wake.install()  # a viewer who takes a replacement still waiting its fill delay starts it at once
ZMQ_SOCKETS_PER_WEBSOCKET = 4  # shell, control, stdin, iopub (jupyter_server's ZMQChannelsWebsocketConnection)
FDS_PER_WEBSOCKET = 9  # those 4 ZMQ sockets (2 descriptors each) and the TCP socket (deploy/capacity.py: 9)
FDS_PER_KERNEL = 12  # the server's side of one kernel (deploy/capacity.py: 4-10), with room for the query socket
PAGE_TEMPLATE_DIR = Path(__file__).parents[1] / "templates"  # searched before Voila's lab template
CONFIG_DIR = Path(__file__).parents[1]  # explorer/hosting/voila.json: the project's settings, in the package (last, lowest priority)
_NOT_OFFERED = (r"/login", r"/logout")

#: The labextensions a page loads by default: Voila's widget manager and the widgets' own (controls),
#: ipympl's canvas, anywidget (front-end widgets), and the syntax-highlighting styles of Voila's lab template.
PAGE_EXTENSIONS = ("@voila-dashboards/widgets-manager8", "@jupyter-widgets/jupyterlab-manager", "jupyter-matplotlib",
                   "anywidget", "jupyterlab_pygments")
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

    classes = [*Voila.classes, DemandPool]  # --DemandPool.<setting>= on the command line, and in --help-all

    max_kernels = Int(config=True, help="Most kernels held by viewers at once; 0 for no cap. Further viewers get "
                                        "a 'busy, try again' page (HTTP 503). Default: what the memory available "
                                        "at start holds (explorer/hosting/server/memory_cap.py, docs/deploy.md).")
    processes_sharing_memory = Int(1, min=1, config=True,
                                   help="Server processes on this machine, this one included (deploy/serve.py passes "
                                        "its --processes): the default max_kernels plans for an N-th of the memory "
                                        "above the free floor, not the whole machine N times.")

    max_body_bytes = Int(1 << 20, config=True, help="Largest request body accepted [bytes]; the app's own "
                                                      "requests (the unload beacon) are a few hundred bytes.")

    seats_per_address = Int(6, config=True, help="Most kernels one client address may hold at once (0: no cap); "
                                                  "the rest get the busy page. See trusted_proxies.")
    trusted_proxies = List(Unicode(), config=True, help="Networks of the reverse proxy whose X-Real-IP header "
                                                        "names the client (deploy/serve.py passes 127.0.0.1).")
    exempt_networks = List(Unicode(), config=True, help="Client networks without a per-address seat cap "
                                                        "(a class behind one NAT).")
    page_idle_timeout = Float(1800.0, config=True, help="A page with no interaction for this long gets the "
                                                         "session notice and frees its kernel [s]; 0: never.")
    connect_timeout = Float(20.0, config=True, help="A page that has not opened its kernel websocket this long after "
                                                   "it was sent frees its kernel [s]; 0: never. 20 s is over ten "
                                                   "times a cold chromium page's 1.72 s (docs/deploy.md).")
    busy_message_limit = Float(60.0, config=True, help="A viewer's kernel busy on one message for this long, "
                                                        "connected or not, is shut down and its page shows the "
                                                        "session notice [s]; 0: never (docs/deploy.md).")
    busy_cull_timeout = Float(180.0, config=True, help="A viewer's kernel that is busy with no connection for "
                                                        "this long is shut down [s]; 0: never.")
    kernel_memory_mb = Float(1024.0, config=True, help="A kernel holding more private memory (USS) than this is shut down and "
                                                        "its page shows the session notice [MB]; 0: no limit.")
    warden_interval = Float(5.0, config=True, help="How often the idle, stuck and memory checks run [s].")
    max_ws_buffer_bytes = Int(8 << 20, config=True, help="Bytes the server may hold for one kernel websocket "
                                                         "that does not read before it closes it.")
    fd_budget = Int(4096, config=True, help="File descriptors the server plans for; the process and ZMQ "
                                            "limits are raised to fit it, and the websocket cap must fit in it.")
    header_timeout = Float(20.0, config=True, help="Seconds a client may take to send a request head (and "
                                                   "that an idle keep-alive connection stays open).")
    body_timeout = Float(20.0, config=True, help="Seconds a client may take to send a request body.")
    public_notebooks = List(Unicode(), ["lessons/*.ipynb", "claims.ipynb"], config=True,
                            help="Directory mode: the notebooks served, as patterns relative to the directory "
                                 "('*' crosses folders); any other notebook is a 404. Default: the workshop's "
                                 "lessons, their index and glossary, and the claims page (not analyst.ipynb, "
                                 "which runs code for analysts, nor explorer.ipynb, served by `make app`).")

    static_answer = Unicode("", config=True, help="Module (dotted name) that renders the app's first answer as "
                                                  "static HTML (voila.json: explorer.app.pages.static_answer); a viewer "
                                                  "then gets it with no kernel (explorer.hosting.server.static_page). "
                                                  "Empty: every page starts a kernel.")
    static_first = Bool(True, config=True, help="With static_answer: serve the static answer first and start a "
                                                "kernel on the viewer's first touch; False: the live app at once "
                                                "(the answer shown over it until it draws).")
    static_cache_entries = Int(256, config=True, help="Static answers kept (least recently used dropped).")
    static_cache_mb = Float(16.0, config=True, help="Static answers kept at most, in total [MB].")

    @default("max_kernels")
    def _max_kernels_by_memory(self) -> int:
        """The viewers' kernels the machine's memory holds (:mod:`explorer.hosting.server.memory_cap`), logged with its figures."""
        config = self.voila_configuration
        pool = int(config.default_pool_size) if config.preheat_kernel else 0
        processes = self.processes_sharing_memory
        cap, fig = memory_cap.default_max_kernels(pool, processes=processes)
        self.log.info("Kernel cap %d, set by memory: ((MemAvailable %.0f MB - free floor max(%.0f MB, %.0f%% of %.0f "
                      "MB)) / %d process(es) - template %.0f MB - pool %d x %.0f MB) / %.0f MB per viewer's kernel", cap,
                      fig["MemAvailable"], fig["free_floor_min_mb"], 100 * fig["free_floor_fraction"], fig["MemTotal"],
                      processes, fig["template_rss_mb"], pool, fig["kernel_uss_mb_all_tabs"],
                      fig["kernel_uss_mb_all_tabs"])
        return cap

    @default("config_file_paths")
    def _config_file_paths_default(self):
        """Voila's (the working directory, then the Jupyter config path), then the package's ``voila.json``."""
        return [os.getcwd(), *jupyter_config_path(), str(CONFIG_DIR)]

    @default("kernel_websocket_connection_class")
    def _default_connection_class(self):
        return GuardedKernelWebsocketConnection

    def setup_template_dirs(self):
        """Put the project's page template (no CDN stylesheets) before Voila's ``lab`` template."""
        super().setup_template_dirs()
        if self.voila_configuration.template == "lab":  # the page without CDN stylesheets (see the file)
            self.template_paths.insert(0, str(PAGE_TEMPLATE_DIR))

    def init_settings(self):
        """Voila's settings plus the caps the handlers read (``explorer_*``); raises the descriptor limits.

        The page loads only the lab extensions it draws with (:data:`PAGE_EXTENSIONS`) unless configured.
        """
        if not self.voila_configuration.extension_allowlist:  # not set (Voila: empty = every extension)
            self.voila_configuration.extension_allowlist = list(PAGE_EXTENSIONS)
        if self.port == 0:
            self._bind_a_port_the_os_picks()  # before the kernel manager gives preheated kernels the port
        settings = super().init_settings()
        settings["explorer_max_kernels"] = self.max_kernels
        settings["explorer_log"] = self.log  # handlers log as the server does
        settings["explorer_seats_per_address"] = self.seats_per_address
        settings["explorer_trusted_proxies"] = list(self.trusted_proxies)
        settings["explorer_exempt_networks"] = list(self.exempt_networks)
        settings["explorer_max_ws_buffer_bytes"] = self.max_ws_buffer_bytes
        settings["explorer_public_notebooks"] = list(self.public_notebooks)
        settings["explorer_answers"] = self._static_answers()
        settings["explorer_static_first"] = self.static_first
        settings["default_handler_class"] = NotFoundHandler  # a path nothing serves: the fixed 404 page
        for advice in ("cell_error_instruction", "cell_timeout_instruction"):  # "Please run Voila with --..."
            if advice not in self.config.VoilaExecutor:
                self.config.VoilaExecutor[advice] = CELL_ERROR_MARK  # the page handler puts its own text there
        self._raise_limits()  # before the kernel manager's context makes its first socket
        return settings

    def _static_answers(self) -> static_page.Answers | None:
        """The static answers (:mod:`explorer.hosting.server.static_page`) when ``static_answer`` names a renderer for
        the notebook served (its ``NOTEBOOK``); a renderer that cannot be loaded stops the server."""
        renderer = static_page.renderer_or_none(self.static_answer, self.log)
        if renderer is None or not self.notebook_path or Path(self.notebook_path).name != getattr(
                renderer, "NOTEBOOK", None):
            return None
        return static_page.Answers(renderer, static_page.AnswerCache(self.static_cache_entries,
                                                                     int(self.static_cache_mb * 2**20)), self.log)

    def init_handlers(self):
        """Voila's handlers with the guarded replacements, and 404 for the paths a public server does not offer."""
        specs = [spec for spec in super().init_handlers()
                 if not any(spec[0].rstrip("$").endswith(path) for path in _NOT_OFFERED)]
        # every replaced handler must be in Voila's list (fails closed: upstream_server.replace_handlers)
        optional = () if self.voila_configuration.preheat_kernel else (RequestInfoSocketHandler,)
        handlers = upstream_server.replace_handlers(specs, _REPLACEMENTS, optional=optional)
        not_offered = [(self.server_url.rstrip("/") + path, NotFoundHandler) for path in _NOT_OFFERED]
        # the tree page and the contents API (directory mode) list only the public notebooks
        handlers = [(p, public_listing(h) if h in (TornadoVoilaTreeHandler, VoilaContentsHandler) else h, *r)
                    for p, h, *r in handlers]
        return not_offered + handlers


    def _raise_limits(self) -> None:
        """Make room for ``fd_budget`` descriptors: the process limit and ZMQ's socket limit (1,023 by default)."""
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        wanted = self.fd_budget if hard == resource.RLIM_INFINITY else min(self.fd_budget, hard)
        if soft != resource.RLIM_INFINITY and soft < wanted:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        # ZMQ sockets (4 per websocket) come from the kernel manager's context; 1,023 by default
        for context in {id(c): c for c in (zmq.Context.instance(), getattr(self.kernel_manager, "context", None))
                        if c is not None}.values():
            context.set(zmq.MAX_SOCKETS, max(wanted, 1024))
        default_total = GuardedKernelWebsocketConnection.class_traits()["max_total"].default_value
        websockets = int(self.config.get("GuardedKernelWebsocketConnection", {}).get("max_total", default_total))
        needed = websockets * FDS_PER_WEBSOCKET + max(self.max_kernels, 1) * FDS_PER_KERNEL + 256
        self.log.info("File descriptors: limit %d, planned use %d (%d websockets, %d kernels)",
                      resource.getrlimit(resource.RLIMIT_NOFILE)[0], needed, websockets, self.max_kernels)
        if needed > wanted:
            self.log.warning("The websocket and kernel caps need about %d file descriptors; fd_budget "
                             "(or the hard limit) allows %d", needed, wanted)

    def listen(self):
        """Listen with the size and time limits on requests, and start the :class:`~explorer.hosting.server.warden.Warden`."""
        _parse_every_query_that_fits()
        self.app.listen = functools.partial(self.app.listen, max_body_size=self.max_body_bytes,
                                            max_header_size=_MAX_HEADER_BYTES,
                                            idle_connection_timeout=self.header_timeout,
                                            body_timeout=self.body_timeout)
        warden = Warden(self.kernel_manager, self.log, interval=self.warden_interval,
                        page_idle_timeout=self.page_idle_timeout, busy_cull_timeout=self.busy_cull_timeout,
                        busy_message_limit=self.busy_message_limit, connect_timeout=self.connect_timeout,
                        kernel_memory_mb=self.kernel_memory_mb, connections=kernel_connections)
        IOLoop.current().add_callback(warden.start)
        answers = self.app.settings.get("explorer_answers")
        if answers is not None:  # the first render pays matplotlib's first-use costs: before any viewer does
            IOLoop.current().add_callback(answers.get, "")
        self._start_demand_pool()
        IOLoop.current().add_callback(pool_wake.attach, self.kernel_manager, self.log)
        if self._bound_sockets:
            self._listen_on_the_bound_sockets()
        super().listen()

    def _start_demand_pool(self) -> None:
        """Let the preheated pools follow demand (:mod:`explorer.hosting.server.demand_pool`, section ``DemandPool``)."""
        self.demand_pool = DemandPool(self.kernel_manager, parent=self, log=self.log)
        IOLoop.current().add_callback(self.demand_pool.start)

    _bound_sockets: list = []

    def _bind_a_port_the_os_picks(self) -> None:
        """``--port=0``: bind a port the OS assigns, at start-up, and make it the server's port.

        Voila would listen on port 0 but keep 0 as its port, which it logs and gives preheated kernels
        (``VOILA_APP_PORT``, set when the kernel manager first fills its pool) to connect back. Binding
        before the kernel manager exists sets the real port first; :meth:`listen` then hands Voila the
        bound socket instead of binding again, so no other process can take the port in between (the
        tests start every server this way and read the port from the "running at" log line).
        """
        from tornado.netutil import bind_sockets

        self._bound_sockets = bind_sockets(0, self.ip or None)
        self.port = self._bound_sockets[0].getsockname()[1]

    def _listen_on_the_bound_sockets(self) -> None:
        """Make Voila's ``app.listen`` serve the sockets of :meth:`_bind_a_port_the_os_picks`."""
        from tornado.httpserver import HTTPServer

        options = self.app.listen.keywords  # the limits set in listen()
        sockets = self._bound_sockets

        def listen_on_bound_sockets(port, address="", **kwargs):
            server = HTTPServer(self.app, **{**options, **kwargs})
            server.add_sockets(sockets)
            return server

        self.app.listen = listen_on_bound_sockets


def main(argv: list[str] | None = None) -> None:
    """Start the server (``python -m explorer.hosting NOTEBOOK [voila options]``).

    First every upstream name the server relies on is checked (:func:`explorer.hosting.upstream_names.require`):
    one missing stops it with one line naming it, exit status 3.
    """
    require()
    ExplorerVoila.launch_instance(argv=argv)
