"""The one module of the server process that reaches upstream names Voila, jupyter_server, jupyter_client,
nbconvert, tornado and pyzmq do not document.

Every other module of :mod:`explorer.hosting` that runs in the server calls a function here instead of touching
such a name. :data:`PRIVATE_NAMES` lists them (checked at server start by
:func:`explorer.hosting.upstream_names.require`, and by ``tests/hosting/test_upstream_names.py``). The
functions here never fall back: a name missing at run time raises :class:`UpstreamChanged` naming it (the
start-up check should have stopped the server first).
"""

from __future__ import annotations

from explorer.hosting.upstream_names import PrivateName, UpstreamChanged, gone

__all__ = ["PRIVATE_NAMES", "UpstreamChanged", "replace_function", "kernel_pools", "ready_pool_kernel_ids", "query_waiters",
           "query_cache", "activity_stream", "wrap_recv_callback", "pending_write_bytes", "forget_session",
           "response_reason", "replace_handlers", "rebind", "kernel_pid",
           "websocket_stream"]

_POOL = "explorer/hosting/server/demand_pool.py and the kernel cap (handlers.py)"
_WS = "explorer/hosting/server/websocket.py"

#: Every private or undocumented server-side name the hosting layer relies on.
PRIVATE_NAMES = (
    PrivateName("voila", "voila.voila_kernel_manager", None, "_pools", "source",
                f"{_POOL}: the preheated pools are resized, and their ready kernels not counted as viewers'"),
    PrivateName("voila", "voila.handler", None, "get_pool_size", "source",
                "explorer/hosting/server/demand_pool.py: arrivals are counted where Voila's page handler asks the pool's "
                "size (without the call the pool would never grow)"),
    PrivateName("voila", "voila.voila_kernel_manager", None, "wait_before", "attr",
                "explorer/hosting/server/pool_wake.py: a replacement's fill delay that a viewer or the quiet check ends "
                "(without it a class in one language waits the workshop's 600 s)"),
    PrivateName("voila", "voila.voila_kernel_manager", None, "fill_if_needed", "source",
                "explorer/hosting/server/demand_pool.py: a grown pool is filled at once"),
    PrivateName("voila", "voila.voila_kernel_manager", None, "kernel_pools_config", "source",
                "explorer/hosting/server/demand_pool.py: each notebook's pool size is set through it"),
    PrivateName("voila", "voila.handler", "VoilaHandler", "get_generator", "attr",
                "explorer/hosting/server/handlers.py: the page handler streams Voila's page and notes its kernel "
                "(seat cookie, seat caps)"),
    PrivateName("voila", "voila.handler", "VoilaHandler", "should_use_rendered_notebook", "attr",
                "explorer/hosting/server/handlers.py: ?template= and ?theme= ignored when overrides are off"),
    PrivateName("voila", "voila.request_info_handler", "RequestInfoSocketHandler", "_waiters", "attr",
                "explorer/hosting/server/handlers.py: a preheated kernel's query socket, one per waiting kernel"),
    PrivateName("voila", "voila.request_info_handler", "RequestInfoSocketHandler", "_cache", "attr",
                "explorer/hosting/server/handlers.py: a query handed over before its kernel waits for it"),
    PrivateName("voila", "voila.request_info_handler", "voila.handler", "RequestInfoSocketHandler", "identity",
                "explorer/hosting/server/server.py: the page handler hands queries to the guarded request-info handler"),
    PrivateName("voila", "voila.handler", None, "send_updates", "source",
                "explorer/hosting/server/handlers.py: the page handler's query hand-over goes through the guarded class"),
    PrivateName("voila", "voila.exporter", "voila.notebook_renderer", "VoilaExporter", "identity",
                "explorer/hosting/server/template_cache.py: page templates compiled once, not per kernel"),
    PrivateName("nbconvert", "nbconvert.exporters.templateexporter", "TemplateExporter", "_create_environment",
                "attr", "explorer/hosting/server/template_cache.py: the shared template bytecode cache"),
    PrivateName("jupyter_server", "jupyter_server.services.kernels.connection.channels",
                "ZMQChannelsWebsocketConnection", "_open_sessions", "attr",
                f"{_WS}: a websocket that never opened gives its session entry back (else sessions leak)"),
    PrivateName("jupyter_server", "jupyter_server.services.kernels.connection.channels",
                "ZMQChannelsWebsocketConnection", "session_key", "attr",
                f"{_WS}: the session entry of a websocket that never opened"),
    PrivateName("jupyter_server", "jupyter_server.services.kernels.websocket", "KernelWebsocketHandler",
                "pre_get", "attr", f"{_WS}: the connection is remembered to give its place back"),
    PrivateName("jupyter_server", "jupyter_server.services.kernels.kernelmanager", "MappingKernelManager",
                "_activity_stream", "source",
                "explorer/hosting/server/warden.py (BusyClock): the busy-message limit reads each kernel's status"),
    PrivateName("pyzmq", "zmq.eventloop.zmqstream", "ZMQStream", "_recv_callback", "source",
                "explorer/hosting/server/warden.py (BusyClock): the kernel manager's own activity callback is kept"),
    PrivateName("tornado", "tornado.iostream", "BaseIOStream", "_total_write_index", "source",
                f"{_WS}: the slow-reader guard (bytes a client has not taken)"),
    PrivateName("tornado", "tornado.iostream", "BaseIOStream", "_total_write_done_index", "source",
                f"{_WS}: the slow-reader guard (bytes a client has not taken)"),
    PrivateName("tornado", "tornado.websocket", "WebSocketHandler", "ws_connection", "source",
                f"{_WS}: websocket_stream, the slow-reader guard's stream (None once closed)"),
    PrivateName("tornado", "tornado.websocket", "WebSocketProtocol", "stream", "source",
                f"{_WS}: websocket_stream, the slow-reader guard's stream"),
    PrivateName("jupyter_server", "jupyter_server.services.kernels.websocket", "KernelWebsocketHandler",
                "connection", "source",
                f"{_WS}: the handler's connection (its place in the caps, the kernel budget's status messages)"),
    PrivateName("tornado", "tornado.web", "RequestHandler", "_reason", "source",
                "explorer/hosting/server/handlers.py, websocket.py: the plain-text refusal names its reason"),
    PrivateName("jupyter_client", "jupyter_client.provisioning.local_provisioner", "LocalProvisioner", "pgid",
                "source", "explorer/hosting/server/provisioner.py: a forked kernel's process group (interrupts)"),
    PrivateName("jupyter_client", "jupyter_client.provisioning.local_provisioner", "LocalProvisioner", "process",
                "source", "explorer/hosting/server/provisioner.py: the forked kernel as a duck-typed Popen "
                          "(poll, wait, send_signal, kill, terminate); kernel_pid: a kernel's pid, for the "
                          "kernel CPU budget (websocket.py), the memory limit (warden.py) and the pool's kernel "
                          "size (demand_pool.py)"),
    PrivateName("jupyter_client", "jupyter_client.manager", "KernelManager", "provisioner", "attr",
                "kernel_pid: a kernel's provisioner, through which its pid is found (the kernel CPU budget, the "
                "memory limit, the pool's kernel size)"),
    PrivateName("jupyter_client", "jupyter_client.provisioning.local_provisioner", "LocalProvisioner",
                "connection_info", "source", "explorer/hosting/server/provisioner.py: a forked kernel's connection"),
    # the handler classes Voila's init_handlers lists, replaced by identity (server.py's _REPLACEMENTS)
    *(PrivateName(package, module, "voila.app", name, "identity",
                  f"explorer/hosting/server/server.py: {why}")
      for package, module, name, why in (
          ("voila", "voila.tornado.handler", "TornadoVoilaHandler", "the page handler (caps, seat cookie)"),
          ("voila", "voila.tornado.kernel_websocket_handler", "VoilaKernelWebsocketHandler",
           "the kernel websocket (bounded headers, slow readers)"),
          ("voila", "voila.request_info_handler", "RequestInfoSocketHandler", "the guarded query socket"),
          ("voila", "voila.static_file_handler", "TemplateStaticFileHandler", "404 on bad static paths"),
          ("voila", "voila.static_file_handler", "AllowListFileHandler", "404 on bad file paths"),
          ("voila", "voila.static_file_handler", "MultiStaticFileHandler", "404 on bad static paths"),
          ("jupyter_server", "jupyter_server.base.handlers", "FileFindHandler", "labextensions cached by content"),
          ("voila", "voila.shutdown_kernel_handler", "VoilaShutdownKernelHandler",
           "the unload beacon's owner check"),
          ("voila", "voila.tornado.treehandler", "TornadoVoilaTreeHandler", "directory mode lists public notebooks"),
          ("voila", "voila.tornado.contentshandler", "VoilaContentsHandler",
           "directory mode's contents API lists public notebooks"),
      )),
)


# ---------------------------------------------------------------- Voila's preheated pools
def kernel_pools(kernel_manager) -> dict | None:
    """Voila's preheated pools (notebook -> list of start tasks), or None when the server preheats no kernels.

    A kernel manager that preheats (it has Voila's ``kernel_pools_config``) but holds no ``_pools`` raises
    :class:`UpstreamChanged`: never "no pool".
    """
    if not hasattr(kernel_manager, "kernel_pools_config"):
        return None  # Voila's NormalKernelManager (preheat_kernel false)
    pools = getattr(kernel_manager, "_pools", None)
    if not isinstance(pools, dict):
        raise gone("voila.voila_kernel_manager.VoilaKernelManager._pools", "the preheated pools")
    return pools


def ready_pool_kernel_ids(kernel_manager) -> set[str]:
    """Ids of the kernels started and waiting in Voila's preheated pools (empty when none are kept)."""
    ready = set()
    for pool in (kernel_pools(kernel_manager) or {}).values():
        for task in pool:
            if task.done() and not task.cancelled() and task.exception() is None:
                ready.add(task.result().get("kernel_id"))
    return ready


# ---------------------------------------------------------------- Voila's request-info socket
def _request_info_class():
    from voila.request_info_handler import RequestInfoSocketHandler

    return RequestInfoSocketHandler


def query_waiters() -> dict:
    """Voila's kernel id -> the query socket a preheated kernel waits on (``RequestInfoSocketHandler._waiters``)."""
    waiters = getattr(_request_info_class(), "_waiters", None)
    if not isinstance(waiters, dict):
        raise gone("voila.request_info_handler.RequestInfoSocketHandler._waiters", "the query sockets")
    return waiters


def query_cache() -> dict:
    """Voila's kernel id -> a query handed over before its kernel waited (``RequestInfoSocketHandler._cache``)."""
    cache = getattr(_request_info_class(), "_cache", None)
    if not isinstance(cache, dict):
        raise gone("voila.request_info_handler.RequestInfoSocketHandler._cache", "the query cache")
    return cache


# ---------------------------------------------------------------- jupyter_server and pyzmq: kernel activity
def activity_stream(kernel, *, started: bool):
    """The kernel manager's own IOPub stream of ``kernel`` (jupyter_server's ``_activity_stream``).

    None while the kernel may still be starting (jupyter_server sets it once the kernel has started) and once it
    is being shut down or restarted (``stop_watching_activity`` sets it back to None, while the kernel stays
    listed until its shutdown ends). A kernel known to have started (``started``: handed to a viewer) that
    jupyter_client reports ready but that never had the attribute raises :class:`UpstreamChanged`: the
    busy-message limit would never fire. (Before, a None stream raised too: a kernel culled while the warden
    looked at it stopped the whole server, found by the full suite on CI.)
    """
    if started and not hasattr(kernel, "_activity_stream"):
        ready = getattr(kernel, "ready", None)
        if ready is not None and ready.done():
            raise gone("jupyter_server MappingKernelManager kernel._activity_stream", "the busy-message limit")
    return getattr(kernel, "_activity_stream", None)


def wrap_recv_callback(stream, wrapper) -> None:
    """Make ``stream`` call ``wrapper(original, msg_list)`` on each message, ``original`` its present callback.

    pyzmq keeps one receive callback per stream (``ZMQStream._recv_callback``); the wrapper must call the
    original, or jupyter_server would no longer see its kernel's activity.
    """
    if not hasattr(stream, "_recv_callback"):
        raise gone("zmq.eventloop.zmqstream.ZMQStream._recv_callback", "the busy-message limit")
    original = stream._recv_callback
    stream.on_recv(lambda msg_list: wrapper(original, msg_list))


# ---------------------------------------------------------------- jupyter_client: a kernel's process
def kernel_pid(kernel) -> int | None:
    """The process id of ``kernel`` (a jupyter_client ``KernelManager``), or None while it has no process.

    A kernel has no process while it is still starting (not launched yet) and once it has ended (jupyter_client's
    ``LocalProvisioner.wait`` clears ``process`` when the process has ended, in a shutdown or a restart); both are
    told by jupyter_client's public ``KernelManager.has_kernel``. A kernel that ``has_kernel`` says has a process
    but whose ``provisioner.process`` holds no pid raises :class:`UpstreamChanged`: jupyter_client keeps the
    process under another name, and the kernel CPU budget and the memory limit would silently never apply.
    """
    try:
        has_kernel = kernel.has_kernel
    except AttributeError:
        raise gone("jupyter_client.manager.KernelManager.has_kernel", "a kernel's process") from None
    if not has_kernel:
        return None
    if not hasattr(kernel, "provisioner"):
        raise gone("jupyter_client.manager.KernelManager.provisioner", "a kernel's process")
    pid = getattr(getattr(kernel.provisioner, "process", None), "pid", None)
    if not isinstance(pid, int):
        raise gone("jupyter_client.provisioning.local_provisioner.LocalProvisioner.process",
                       "the kernel CPU budget and the memory limit")
    return pid


# ---------------------------------------------------------------- tornado
def pending_write_bytes(stream) -> int:
    """Bytes written to a tornado ``IOStream`` that the client has not taken yet."""
    try:
        return stream._total_write_index - stream._total_write_done_index
    except AttributeError:
        raise gone("tornado.iostream.BaseIOStream._total_write_index", "the slow-reader guard") from None


def websocket_stream(handler):
    """The ``IOStream`` under a tornado websocket ``handler``; None once it has closed (``ws_connection`` None).

    An open websocket whose protocol object has no ``stream`` raises :class:`UpstreamChanged`: the slow-reader
    guard would read nothing and never close a socket that does not read.
    """
    try:
        connection = handler.ws_connection
    except AttributeError:
        raise gone("tornado.websocket.WebSocketHandler.ws_connection", "the slow-reader guard") from None
    if connection is None:
        return None
    if not hasattr(connection, "stream"):
        raise gone("tornado.websocket.WebSocketProtocol.stream", "the slow-reader guard")
    return connection.stream


def response_reason(handler) -> str:
    """The reason phrase a tornado handler will send with its status (``RequestHandler._reason``)."""
    try:
        return handler._reason
    except AttributeError:
        raise gone("tornado.web.RequestHandler._reason", "the refusal's reason") from None


# ---------------------------------------------------------------- jupyter_server's websocket sessions
def forget_session(connection, handler) -> None:
    """Drop ``handler``'s entry from jupyter_server's open sessions, if it is the one recorded for ``connection``."""
    sessions = getattr(type(connection), "_open_sessions", None)
    if not isinstance(sessions, dict) or not hasattr(connection, "session_key"):
        raise gone("jupyter_server ZMQChannelsWebsocketConnection._open_sessions/session_key",
                       "sessions of websockets that never opened")
    key = connection.session_key
    if key and sessions.get(key) is handler:
        sessions.pop(key, None)


# ---------------------------------------------------------------- Voila's handlers, replaced by identity
def replace_handlers(specs, replacements: dict, *, optional=()) -> list:
    """Voila's handler ``specs`` with each handler class in ``replacements`` swapped for its replacement.

    Fails closed: a handler listed in ``replacements`` (other than those in ``optional``, which Voila lists only
    in some configurations) that Voila's list does not hold raises :class:`UpstreamChanged` naming it. Voila
    renaming or re-deriving a handler would otherwise serve it as it is, without its guard (the unload beacon
    without the owner check).
    """
    seen, out = set(), []
    for spec in specs:
        pattern, handler, *rest = spec
        if handler in replacements:
            seen.add(handler)
            handler = replacements[handler]
        out.append((pattern, handler, *rest))
    absent = [h for h in replacements if h not in seen and h not in optional]
    if absent:
        names = ", ".join(f"{h.__module__}.{h.__qualname__}" for h in absent)
        raise UpstreamChanged(f"Voila's handlers no longer include {names}: its replacement would not be served")
    return out


def replace_function(module, name: str, replacement) -> None:
    """Set the function ``module.name`` to ``replacement``; raise if ``module`` has no such function.

    As :func:`rebind`, for a module-level function (a name that is gone would be created and change nothing).
    """
    if not callable(getattr(module, name, None)) or isinstance(getattr(module, name), type):
        raise gone(f"{module.__name__}.{name}", f"replaced by {replacement.__qualname__}")
    setattr(module, name, replacement)


def rebind(module, name: str, replacement) -> None:
    """Set ``module.name`` to ``replacement`` (a subclass of what it holds); raise if ``module`` has no ``name``.

    Setting a name the module no longer has would create it and change nothing (the guard silently off).
    """
    current = getattr(module, name, None)
    if not (isinstance(current, type) and isinstance(replacement, type) and issubclass(replacement, current)):
        raise gone(f"{module.__name__}.{name}", f"replaced by {replacement.__qualname__}")
    setattr(module, name, replacement)
