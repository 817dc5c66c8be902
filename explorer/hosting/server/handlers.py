"""HTTP handlers of the public server: the page, a busy page, and 404s for odd paths.

Each wraps one of Voila's own handlers and changes only what a public,
anonymous server needs:

* :class:`ExplorerPageHandler` serves the app. It refuses an oversized query
  with a readable 400 page, shows a "busy, try again" page (HTTP 503) when the
  server already holds its cap of viewers' kernels or the client address its
  seats (in every mode: one notebook, or a directory, where every page starts
  a kernel), serves only the public notebooks in directory mode (404 for the
  others), and gives each page a seat cookie of its own (:data:`SEAT_COOKIE`,
  scoped to the paths of the page's kernel) that the page's unload beacon and
  the kernel websocket must send back: only the page that owns a kernel may
  shut it down or connect to it.
* :func:`error_page` is the server's one error page (any 4xx or 5xx a viewer
  meets, and the text in place of a failed cell's output): fixed, in the
  page's language (``?lang=zh``), naming no framework and giving no debugging
  advice. Its texts are rows of ``templates/error_pages.csv``.
* :class:`NotFoundHandler` answers paths the public server has no use for
  (``/logout``, ``/login``) with 404 instead of an error page.
* :func:`not_found_on_bad_path` makes a static-file handler answer 404 for a
  path it cannot read (a NUL byte, a template source, a traversal) instead of
  a 500 with a logged traceback.
* :class:`ReadyLoggingRequestInfoHandler` logs when a preheated kernel has run
  the notebook and is ready for a viewer.
"""

from __future__ import annotations

import csv
import fnmatch
import functools
import html
import logging
import os
import posixpath
import re
import secrets
import time

from pathlib import Path
from typing import TYPE_CHECKING

from jupyter_server.base.handlers import FileFindHandler
from jupyter_server.utils import url_path_join
from tornado import web
from voila.request_info_handler import RequestInfoSocketHandler
from voila.shutdown_kernel_handler import VoilaShutdownKernelHandler
from voila.tornado.handler import TornadoVoilaHandler

from explorer.hosting.server import seats, static_page as static, upstream_server
from explorer.hosting.server.seats import SEAT_COOKIE
from explorer.hosting.server.start_watch import StartWatch

__all__ = ["ExplorerPageHandler", "NotFoundHandler", "ReadyLoggingRequestInfoHandler", "not_found_on_bad_path",
           "message_page", "OwnerShutdownHandler", "error_page", "page_language", "is_public", "ErrorPageMixin",
           "CELL_ERROR_MARK", "with_error_page", "public_listing"]

READY_MARK = "is ready: it has run the notebook"  # in the log line of a ready preheated kernel
GAVE_UP_MARK = "stopped waiting for its query string: it shows the defaults"  # EXPLORER_QUERY_WAIT_S passed
MAX_QUERY_KEYS = 64
#: The longest query string served [characters]: four times the app's own limit (explorer.app.link.MAX_QUERY_CHARS,
#: 4,096; this package imports nothing of the app), so that a link a little over the app's limit opens with the
#: banner naming the settings the app left out (issue 41: a 4,115-character link lost its tab and GPU cap
#: silently); a longer one is refused here with a page.
MAX_QUERY_CHARS = 16_384
_KERNEL_ID = re.compile(r'"kernelId":\s*"([0-9a-f-]{36})"')
_TEMPLATES = Path(__file__).parents[1] / "templates"  # explorer/hosting/templates
#: Put in place of Voila's advice after a failed cell ("Please run Voila with --show_tracebacks=True ...",
#: ``VoilaExecutor.cell_error_instruction``); the page handler replaces the whole message with ``cell_error``.
CELL_ERROR_MARK = "explorer-cell-error"
_CELL_ERROR = re.compile(r"(?:There was an error when executing cell \[[^\]]{0,12}\]\.|An exception occurred at the "
                         r"server \(not the notebook\)\.|Cell execution timed out, aborting notebook execution\.)"
                         r"\s*" + CELL_ERROR_MARK)


@functools.cache
def _error_texts() -> dict[str, dict[str, str]]:
    """``templates/error_pages.csv``: key -> {"en": ..., "zh": ...}."""
    with open(_TEMPLATES / "error_pages.csv", newline="", encoding="utf-8") as f:
        return {row["key"]: {"en": row["en"], "zh": row["zh"]} for row in csv.DictReader(f)}


def page_language(lang: str | None) -> str:
    """``"zh"`` for a ``lang`` value starting with ``zh`` (``zh``, ``zh-Hans``, ``ZH``), else ``"en"``.

    The rule of ``explorer.app.link.page_language`` (this package imports
    nothing of the app), with English for anything else.
    """
    return "zh" if (lang or "").strip().lower().startswith("zh") else "en"


def error_text(key: str, language: str) -> str:
    """The text ``key`` of ``templates/error_pages.csv`` in ``language`` (``en`` or ``zh``)."""
    return _error_texts()[key]["zh" if language == "zh" else "en"]


def error_page(status: int, language: str) -> str:
    """The server's fixed error page for HTTP ``status``, in ``language`` (no script, no external asset)."""
    title, text = ("not_found_title", "not_found_text") if status == 404 else ("error_title", "error_text")
    tag = "zh" if language == "zh" else "en"
    return (f'<!doctype html><html lang="{tag}"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{html.escape(error_text(title, language))}</title>"
            "<style>body{font-family:system-ui,sans-serif;max-width:36em;margin:3em auto;padding:0 1em;"
            "color:#222;line-height:1.5}h1{font-size:1.4em}a{color:#1f5fa8}</style></head><body>"
            f"<h1>{html.escape(error_text(title, language))}</h1><p>{html.escape(error_text(text, language))}</p>"
            f'<p>{int(status)}</p><p><a href="">{html.escape(error_text("retry", language))}</a></p></body></html>')


if TYPE_CHECKING:  # the mixin's methods are those of the tornado handler it is mixed into
    _HandlerBase = web.RequestHandler
else:
    _HandlerBase = object


class ErrorPageMixin(_HandlerBase):
    """``write_error`` with the server's fixed error page (HTML) in the language of the request's ``?lang=``."""

    def write_error(self, status_code: int, **kwargs) -> None:
        """The fixed error page; never a traceback or the framework's own page."""
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Cache-Control", "no-store")
        self.finish(error_page(status_code, page_language(self.get_argument("lang", None))))


def is_public(path: str, patterns) -> bool:
    """Whether the notebook ``path`` (relative to the served directory) matches one of ``patterns`` (fnmatch).

    ``*`` matches across folders (``lessons/*.ipynb`` takes ``lessons/en/01.ipynb``); a path that leaves
    the folder or names a hidden part never matches.
    """
    clean = posixpath.normpath("/" + (path or "")).lstrip("/")
    if not clean or any(part.startswith(".") for part in clean.split("/")) or clean != (path or "").strip("/"):
        return False
    return any(fnmatch.fnmatchcase(clean, pattern) for pattern in patterns)


def message_page(title_en: str, text_en: str, title_zh: str, text_zh: str, *, retry_seconds: int | None = None) -> str:
    """A small standalone HTML page in English and Chinese (no script, no external asset)."""
    retry = f'<meta http-equiv="refresh" content="{int(retry_seconds)}">' if retry_seconds else ""
    parts = [f"<h1>{html.escape(title_en)}</h1><p>{html.escape(text_en)}</p>",
             f'<h1 lang="zh">{html.escape(title_zh)}</h1><p lang="zh">{html.escape(text_zh)}</p>']
    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{html.escape(title_en)}</title>{retry}"
            "<style>body{font-family:system-ui,sans-serif;max-width:36em;margin:3em auto;padding:0 1em;"
            "color:#222;line-height:1.5}h1{font-size:1.4em}a{color:#1f5fa8}</style></head><body>"
            + "".join(parts) + '<p><a href="">Try again / 重试</a></p></body></html>')


def with_error_page(handler_class: type) -> type:
    """A subclass of ``handler_class`` whose errors are the server's fixed error page (:class:`ErrorPageMixin`)."""
    guarded = type(f"ErrorPage{handler_class.__name__}", (ErrorPageMixin, handler_class), {})
    guarded.__qualname__ = guarded.__name__
    return guarded


def _visible(path: str, kind: str, patterns) -> bool:
    """Whether a directory-mode listing shows ``path`` (a ``directory`` that may hold public notebooks, or one)."""
    if kind == "directory":
        folder = (path or "").strip("/")
        return not folder or any(p.startswith(folder + "/") for p in patterns)
    return is_public(path, patterns)


class _PublicContents:
    """A contents manager that shows only the public notebooks (and the folders that hold them)."""

    def __init__(self, manager, patterns):
        self._manager = manager
        self._patterns = list(patterns)

    def __getattr__(self, name):
        return getattr(self._manager, name)

    async def get(self, path, *args, **kwargs):
        """The model of ``path``, with only the visible entries; 404 for a path not shown."""
        from jupyter_core.utils import ensure_async

        model = await ensure_async(self._manager.get(path, *args, **kwargs))
        if not _visible(path, model.get("type", ""), self._patterns):
            raise web.HTTPError(404)
        if model.get("type") == "directory" and isinstance(model.get("content"), list):
            model["content"] = [c for c in model["content"] if _visible(c.get("path", ""), c.get("type", ""),
                                                                        self._patterns)]
        return model


def public_listing(handler_class: type) -> type:
    """A subclass of a directory-mode listing handler (tree page, contents API) that lists only public notebooks.

    Voila's contents API also hands out a notebook's source (``content=1``):
    only the public ones are found.
    """

    class Listing(ErrorPageMixin, handler_class):
        @property
        def contents_manager(self):
            return _PublicContents(self.settings["contents_manager"], self.settings.get("explorer_public_notebooks",
                                                                                        ["*"]))

    Listing.__name__ = Listing.__qualname__ = f"Public{handler_class.__name__}"
    return Listing


_STATIC_CACHE: dict[str, tuple[float, str | None]] = {}  # notebook file -> (mtime, its static page or None)


def static_page(notebook_file: str) -> str | None:
    """A notebook with no code cell (the lessons' index, the glossary) as plain HTML, or None if it has code.

    Such a page needs no kernel: serving it at its usual address (relative links keep working) holds no seat
    and is never refused by the kernel cap. The markdown is rendered by nbconvert's markdown filter, as Voila
    renders it; cached until the file changes.
    """
    try:
        mtime = os.path.getmtime(notebook_file)
    except OSError:
        return None
    cached = _STATIC_CACHE.get(notebook_file)
    if cached and cached[0] == mtime:
        return cached[1]
    import nbformat
    from nbconvert.filters.markdown_mistune import markdown2html_mistune

    nb = nbformat.read(notebook_file, as_version=4)
    page = None
    if not any(cell.cell_type == "code" for cell in nb.cells):
        body = "".join(f'<div class="cell">{markdown2html_mistune(cell.source)}</div>'
                       for cell in nb.cells if cell.cell_type == "markdown")
        title = next((line.lstrip("# ").strip() for cell in nb.cells for line in cell.source.splitlines()
                      if line.startswith("# ")), os.path.basename(notebook_file))
        page = ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                f"<title>{html.escape(title)}</title>"
                "<style>body{font-family:system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em;"
                "color:#222;line-height:1.5}a{color:#1f5fa8}table{border-collapse:collapse}"
                "td,th{border:1px solid #ccc;padding:.3em .6em}</style></head><body>" + body + "</body></html>")
    _STATIC_CACHE[notebook_file] = (mtime, page)
    return page


class ExplorerPageHandler(TornadoVoilaHandler):
    """Voila's page handler with a query limit, a kernel cap and a seat cookie per page.

    ``max_kernels`` comes from the handler's settings (``explorer_max_kernels``).

    The seat cookie (:data:`SEAT_COOKIE`) holds a random token recorded with the page's kernel, and is scoped to
    that kernel's two paths (its websocket, ``api/kernels/<id>``, and its unload beacon,
    ``voila/api/shutdown/<id>``), so a browser sends it nowhere else and two pages never share one. Before,
    the owner was the page's ``_xsrf`` token, one per browser: two pages opened at once by a browser without
    the cookie were each given a new token, the second overwrote the first in the browser, and the first page's
    websocket was refused (403) for good (Voila's page retries without the subprotocol after a failed first
    socket, which the server refuses too). The page's parts are held back until the kernel is known, so the
    cookie goes out with the response's headers.
    """

    def initialize(self, **kwargs) -> None:
        """Voila's setup, then this request's own state: the kernel its page seated (known once the render names
        it), whether the viewer has left (:meth:`on_connection_close`) and the watch on a kernel dying while the
        page renders."""
        self._seat_kernel_id: str | None = None
        self._viewer_left = False
        self._start_watch: StartWatch | None = None  # set first: Voila's setup may already ask for the kernel manager
        super().initialize(**kwargs)

    def _viewer_kernels(self) -> int:
        """Kernels held by viewers: running kernels less those ready in the preheated pool, plus pages admitted
        whose kernel is not running yet.

        A burst of arrivals is admitted before any of its kernels exists: counting only running kernels let
        30 + 15 arrivals start 45 kernels under a cap of 40. A running kernel with no seat yet belongs to one of
        the admitted pages (or is a pool kernel still starting), so the admitted count is the larger of those
        kernels and the pages still waiting (``seats.PENDING``). A pool kernel still starting counts as a
        viewer's for the second or two it takes: the cap errs towards refusing, never towards overcommitting.
        """
        km = self.kernel_manager
        ready_in_pool = upstream_server.ready_pool_kernel_ids(km)  # Voila's pools of preheated kernels
        live = set(km.list_kernel_ids()) - ready_in_pool
        seated = {k for k in live if k in seats.SEATS}
        return len(seated) + max(len(live - seated), sum(seats.PENDING.values()))

    def _refuse(self, status: int, page: str, retry_seconds: int | None = None) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Cache-Control", "no-store")
        if retry_seconds:
            self.set_header("Retry-After", str(retry_seconds))
        self.finish(page)

    def write_error(self, status_code: int, **kwargs) -> None:
        """The server's fixed error page, in the page's language (jupyter_server's template needs settings Voila
        lacks, and names the framework)."""
        ErrorPageMixin.write_error(self, status_code, **kwargs)

    @web.authenticated
    async def get(self, path=None):
        """Serve the page, or refuse it: link too long (400), not a public notebook (404), kernel cap or this
        address's seat cap reached (503)."""
        query = self.request.query or ""
        if len(query) > MAX_QUERY_CHARS or len(self.request.arguments) > MAX_QUERY_KEYS:
            self._refuse(400, message_page(
                "Link too long",
                f"This link carries more than {MAX_QUERY_KEYS} settings or {MAX_QUERY_CHARS:,} characters. "
                "Open the app without them and use its Share tab to make a new link.",
                "链接过长",
                f"此链接包含超过 {MAX_QUERY_KEYS} 项设置或 {MAX_QUERY_CHARS:,} 个字符。请去掉这些参数打开应用，"
                "再用“分享”标签生成新链接。"))
            return
        directory_mode = not self.notebook_path
        if directory_mode and not is_public(path, self.settings.get("explorer_public_notebooks", ["*"])):
            self.log.warning("Not served: %r is not one of the public notebooks", (path or "")[:200])
            raise web.HTTPError(404)
        if path and not self.notebook_path and path.endswith(".ipynb"):  # directory mode: index, glossary
            root = os.path.realpath(self.contents_manager.root_dir)
            notebook_file = os.path.realpath(os.path.join(root, path))
            page = static_page(notebook_file) if notebook_file.startswith(root + os.sep) else None
            if page is not None:
                self.set_header("Content-Type", "text/html; charset=utf-8")
                self.finish(page)
                return
        overlay = None  # the static answer over the live page until its widgets draw (static_page)
        answers = self.settings.get("explorer_answers")
        static_first = self.settings.get("explorer_static_first", True)
        if (answers is not None and not directory_mode and not path
                and (static_first or static.LIVE_KEY in self.request.arguments)):
            answer = await answers.get(query)
            if answer is None:  # too many distinct links rendering at once
                self._busy()
                return
            if not static.wants_live(self.request.arguments, static_first):
                self.set_header("Content-Type", "text/html; charset=utf-8")
                self.set_header("Cache-Control", "no-cache")
                self.finish(static.static_html(answer))  # a look: no kernel, no seat
                return
            if static.LIVE_KEY in self.request.arguments:  # after the first touch: the answer stays on screen
                overlay = static.overlay_html(answer)
        cap = int(self.settings.get("explorer_max_kernels", 0) or 0)
        starts_kernel = directory_mode or not path  # one-notebook mode redirects other paths to files
        if cap and starts_kernel and self._viewer_kernels() >= cap:
            self.log.warning("Busy: %d viewers' kernels, cap %d", self._viewer_kernels(), cap)
            self._busy()
            return
        address = seats.client_address(self.request, self.settings.get("explorer_trusted_proxies", []))
        per_address = int(self.settings.get("explorer_seats_per_address", 0) or 0)
        if (per_address and starts_kernel
                and not seats.is_exempt(address, self.settings.get("explorer_exempt_networks", []))
                and seats.seats_of(address, self.kernel_manager.list_kernel_ids()) >= per_address):
            self.log.warning("Busy: %s holds %d seats, the most one address may", address, per_address)
            self._busy()
            return
        self.xsrf_token  # sets the _xsrf cookie: the unload beacon's form carries it (tornado's own check)
        token = secrets.token_urlsafe(24)
        seats.PENDING[address] = seats.PENDING.get(address, 0) + 1
        kernel_id = None
        cell_error = html.escape(error_text("cell_error", page_language(self.get_argument("lang", None))))
        seats.ARRIVING_FROM.set(address)  # the demand pool counts this arrival for its address
        self._start_watch = watch = StartWatch(self.settings["kernel_manager"])  # a kernel dying while it renders
        try:
            async for html_part in watch.parts(self.get_generator(path=path)):  # TornadoVoilaHandler.get
                if kernel_id is None:
                    found = _KERNEL_ID.search(html_part)
                    if found:
                        kernel_id = found.group(1)
                        seats.SEATS[kernel_id] = seats.Seat(address, token)
                        self._seat_kernel_id = kernel_id
                        if self._viewer_left:  # the viewer left before the page began
                            seats.SEATS[kernel_id].delivered = time.monotonic()
                        seats.PENDING[address] -= 1
                        self._set_seat_cookie(kernel_id, token)
                if overlay is not None:
                    html_part, placed = static.inject_overlay(html_part, overlay)
                    overlay = None if placed else overlay
                if CELL_ERROR_MARK in html_part:  # a failed cell: the fixed text, not the framework's advice
                    html_part = _CELL_ERROR.sub(cell_error, html_part).replace(CELL_ERROR_MARK, cell_error)
                self.write(html_part)
                if kernel_id is not None:  # held until then: the seat cookie goes with the headers
                    self.flush()
            if watch.died.is_set():
                await self._kernel_died_while_rendering(watch, kernel_id)
        finally:
            watch.stop_watching()
            self._start_watch = None
            seat = seats.SEATS.get(kernel_id) if kernel_id else None
            if seat is not None:  # the idle clock starts when the viewer has the page (a render can take a minute)
                seat.last_interaction = time.monotonic()
                if seat.delivered is None:  # not already set by the viewer leaving (on_connection_close)
                    seat.delivered = seat.last_interaction
            if kernel_id is None:
                seats.PENDING[address] -= 1
            if not seats.PENDING.get(address):
                seats.PENDING.pop(address, None)

    def on_connection_close(self) -> None:
        """The viewer left while their page was still being sent: their page can never connect.

        Its seat's ``delivered`` clock starts now (or when the seat is taken, for a viewer who left before), so the
        warden's ``connect_timeout`` frees the kernel even if the render itself never ends (Voila's page keeps
        sending heartbeats to a closed stream while a notebook runs).
        """
        self._viewer_left = True
        seat = seats.SEATS.get(self._seat_kernel_id or "")
        if seat is not None and seat.delivered is None:
            seat.delivered = time.monotonic()
        super().on_connection_close()

    @property
    def kernel_manager(self):
        """The server's kernel manager; during a page render, the :class:`StartWatch` standing in for it."""
        return self._start_watch or self.settings["kernel_manager"]

    async def _kernel_died_while_rendering(self, watch: StartWatch, kernel_id: str | None) -> None:
        """End the page with the error page, shut down what the restarter started in its place, free the seat."""
        self.log.warning("The kernel of a page died while the page was rendered: the page ends with the error page")
        manager = self.settings["kernel_manager"]
        for started in watch.kernel_ids:
            seats.SEATS.pop(started, None)
            if started in manager:
                try:
                    await manager.shutdown_kernel(started, now=True)
                except Exception:  # noqa: BLE001 - already gone
                    pass
        seats.forget_gone(manager.list_kernel_ids())
        language = page_language(self.get_argument("lang", None))
        if kernel_id is None:  # nothing sent yet: the fixed error page in place of the app
            self.clear()
            self.set_status(503)
            self.set_header("Content-Type", "text/html; charset=utf-8")
            self.set_header("Cache-Control", "no-store")
            self.finish(error_page(503, language))
        else:  # the page has begun: its end says what happened
            self.finish(f"<p>{html.escape(error_text('error_text', language))}</p></body></html>")

    def _set_seat_cookie(self, kernel_id: str, token: str) -> None:
        """The page's seat cookie, on the paths of its kernel's websocket and unload beacon only.

        Two ``Set-Cookie`` headers of one name (tornado's ``set_cookie`` keeps one per name). The token is
        URL-safe base64 and the kernel id hexadecimal, so neither needs quoting.
        """
        for path in (url_path_join(self.base_url, "api/kernels", kernel_id),
                     url_path_join(self.base_url, "voila/api/shutdown", kernel_id)):
            self.add_header("Set-Cookie", f"{SEAT_COOKIE}={token}; Path={path}; HttpOnly; SameSite=Strict")

    def should_use_rendered_notebook(self, notebook_data, pool_size, template_name, theme, request_args):
        """Voila's test, ignoring ``?template=`` and ``?theme=`` when overrides are off (they are ignored anyway)."""
        config = self.voila_configuration
        if config.allow_template_override != "YES":
            template_name = None
        if config.allow_theme_override != "YES":
            theme = None
        return super().should_use_rendered_notebook(notebook_data, pool_size, template_name, theme, request_args)

    def _busy(self) -> None:
        self._refuse(503, message_page(
            "The explorer is busy",
            "Every seat on this server is taken right now. Please try again in a minute; "
            "this page retries by itself.",
            "服务器繁忙",
            "目前所有席位都已占用。请一分钟后再试；本页会自动重试。",
            retry_seconds=30), retry_seconds=30)


class OwnerShutdownHandler(VoilaShutdownKernelHandler):
    """The unload beacon (``POST /voila/api/shutdown/<kernel>``), honoured only from the page that owns the kernel.

    The page's seat cookie (:data:`SEAT_COOKIE`) was recorded with its seat; a request without it, or with
    another page's (and passing tornado's own ``_xsrf`` check), gets 403.
    """

    def write_error(self, status_code: int, **kwargs) -> None:
        """A plain-text refusal (jupyter_server's error template needs settings Voila lacks)."""
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.finish(f"{status_code} {upstream_server.response_reason(self)}\n")

    @web.authenticated
    async def post(self, kernel_id):
        """Shut the kernel down if the request carries the seat cookie of the page that holds it; else 403."""
        if not seats.owns(kernel_id, self.get_cookie(SEAT_COOKIE)):
            raise web.HTTPError(403, "not this page's kernel")
        seats.SEATS.pop(kernel_id, None)
        await super().post(kernel_id)
        seats.forget_gone(self.kernel_manager.list_kernel_ids())  # its websockets close and give their places back


class LabExtensionFileHandler(FileFindHandler):
    """Voila's labextension files, kept by browsers when their URL names their content.

    Voila serves every labextension file with ``Cache-Control: no-cache``, so a
    returning viewer's browser asks again for each of the about 20 scripts the
    page loads (a 304 each). The page names them by content: ``remoteEntry.<hash>.js``
    and ``<n>.<hash>.js?v=<hash>``; those never change under their URL and are
    kept for a year. Anything else (``package.json``, ``style.js``) is still
    revalidated.
    """

    _NAMED_BY_CONTENT = re.compile(r"/remoteEntry\.[0-9a-f]{8,}\.js$")

    def set_headers(self) -> None:
        super().set_headers()
        if "v" in self.request.arguments or self._NAMED_BY_CONTENT.search(self.request.path):
            self.set_header("Cache-Control", "public, max-age=31536000, immutable")


class NotFoundHandler(ErrorPageMixin, web.RequestHandler):
    """404 for any method: paths a public, login-free server does not offer."""

    def prepare(self):
        """Answer 404 before any method runs."""
        raise web.HTTPError(404)


def not_found_on_bad_path(handler_class: type[web.StaticFileHandler]) -> type[web.StaticFileHandler]:
    """A subclass of a static-file handler that answers 404 where the original raised an error.

    Voila's template and file handlers end in an assertion, a ``ValueError``
    (``embedded null byte``) or an unpacking error on some paths, which tornado
    reports as 500.
    """

    class Guarded(handler_class):  # type: ignore[valid-type,misc]  # mypy takes no variable as a base class
        async def get(self, path, include_body=True):
            if "\x00" in path or "\\" in path or any(part == ".." for part in path.split("/")):
                raise web.HTTPError(404)
            try:
                return await super().get(path, include_body)
            except web.HTTPError:
                raise
            except (AssertionError, ValueError, TypeError, OSError):
                raise web.HTTPError(404) from None

    Guarded.__name__ = Guarded.__qualname__ = f"NotFoundOnBadPath{handler_class.__name__}"
    return Guarded


class ReadyLoggingRequestInfoHandler(RequestInfoSocketHandler):
    """Voila's request-info websocket, for waiting kernels only, logging when a preheated kernel is ready.

    A preheated kernel opens this websocket (``/voila/query/<kernel id>``)
    when its notebook reaches :func:`voila.utils.get_query_string`, that is,
    once everything before it has run, and waits on it for the page request's
    query string. Voila's handler let anyone open it for any id, and its
    ``on_close`` deleted the *last* waiter when it did not find itself: two
    opens and two closes left a preheated kernel waiting for ever, holding a
    seat. Here:

    * the socket is accepted only for a kernel this server runs that is not
      already waiting and has not had its query yet (one per kernel, the
      first one: the kernel itself, which connects before its id is known
      to anyone); every other open is closed at once;
    * closing removes only the socket's own entry.

    Voila itself logs "Kernel pool ... is filled" when the kernels have only
    *started*; the line logged here, once per kernel, says the kernel is
    ready for a viewer (the benchmarks and tests wait for it).
    """

    _logged: set = set()
    _served: set = set()  # kernels whose query string was handed over (they never wait again)

    def open(self, kernel_id: str) -> None:
        """Accept the first socket of a running kernel not yet served (then log it ready once); close any other."""
        manager = self.settings.get("kernel_manager")
        waiters = upstream_server.query_waiters()
        if manager is None or kernel_id not in manager or kernel_id in waiters or kernel_id in self._served:
            self._refused = True
            self.close(1008, "no kernel waits for its query here")
            return
        self._refused = False
        self._kernel_id = kernel_id
        waiters[kernel_id] = self
        cached = upstream_server.query_cache().pop(kernel_id, None)
        if cached is not None:
            self._served.add(kernel_id)
            self.write_message(cached)
        if kernel_id in self._logged:
            return
        self._logged.add(kernel_id)
        log = self.settings.get("explorer_log") or logging.getLogger("tornado.application")
        log.info("Preheated kernel %s %s and waits for a viewer", kernel_id, READY_MARK)

    def on_close(self) -> None:
        """Forget this socket's own entry, logging a preheated kernel that gave up waiting."""
        kernel_id = getattr(self, "_kernel_id", None)
        waiters = upstream_server.query_waiters()
        if kernel_id is not None and waiters.get(kernel_id) is self:
            del waiters[kernel_id]
            if kernel_id not in self._served:
                log = self.settings.get("explorer_log") or logging.getLogger("tornado.application")
                log.info("Preheated kernel %s %s", kernel_id, GAVE_UP_MARK)

    @classmethod
    def send_updates(cls, msg: dict) -> None:
        """Hand a page request's details to its kernel (now, or when the kernel connects)."""
        kernel_id = msg["kernel_id"]
        waiter = upstream_server.query_waiters().get(kernel_id)
        if waiter is None:
            upstream_server.query_cache()[kernel_id] = msg["payload"]
            return
        cls._served.add(kernel_id)
        try:
            waiter.write_message(msg["payload"])
        except Exception:  # noqa: BLE001 - the kernel's socket closed: it falls back to the defaults
            logging.getLogger("tornado.application").warning("Could not send kernel %s its query", kernel_id)

    @classmethod
    def prune(cls, live: set) -> None:
        """Drop what is kept for kernels that have gone (``live``: the kernels still running)."""
        cache = upstream_server.query_cache()
        for kernel_id in [k for k in cache if k not in live]:
            cache.pop(kernel_id, None)
        cls._served &= live
        cls._logged &= live


seats.ON_GONE.append(ReadyLoggingRequestInfoHandler.prune)
