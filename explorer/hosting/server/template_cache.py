"""The page templates compiled once per server, not once per kernel.

Voila renders each page with a new nbconvert exporter (:class:`voila.exporter.VoilaExporter`, made by the
``NotebookRenderer`` of every kernel, preheated or not), and each exporter makes its own jinja2
environment, which compiles the page templates (``index.html.j2``, ``base.html.j2`` and what they include)
from their source again. Sampled during a rush of viewers, that compiling (``Environment.compile``: lexer,
parser, code generator and Python's ``compile``) was 27% of the server's CPU (docs/deploy.md, "Where a
forked viewer's CPU goes").

:class:`SharedBytecodeCache` is jinja2's own mechanism for this (a :class:`jinja2.BytecodeCache`): every
exporter's environment gets the one cache of the process, so a template is compiled by the first page and
loaded as Python code by the others. jinja2 still reads each template's source and stores its checksum with
the code: a template changed on disk is compiled again, never served stale. The code is kept per set of
environment settings that change what the compiler makes (async or not, extensions, delimiters), so two
differently configured environments never share it.

:func:`install` makes Voila's renderer use :class:`CachedVoilaExporter`; ``python -m explorer.hosting`` calls
it when it starts.
"""

from __future__ import annotations

import threading

import voila.notebook_renderer
from jinja2 import BytecodeCache
from jinja2.bccache import Bucket
from voila.exporter import VoilaExporter

from explorer.hosting.server import upstream_server

__all__ = ["SharedBytecodeCache", "CachedVoilaExporter", "BYTECODE_CACHE", "install"]


def _compile_settings(environment) -> tuple:
    """What, besides the source, decides the code jinja2 compiles a template to."""
    return (environment.is_async, tuple(sorted(environment.extensions)), environment.optimized,
            environment.block_start_string, environment.block_end_string, environment.variable_start_string,
            environment.variable_end_string, environment.comment_start_string, environment.comment_end_string,
            environment.line_statement_prefix, environment.line_comment_prefix, environment.trim_blocks,
            environment.lstrip_blocks, environment.newline_sequence, environment.keep_trailing_newline,
            repr(environment.autoescape))


class SharedBytecodeCache(BytecodeCache):
    """Compiled templates in memory, shared by every jinja2 environment it is given to.

    Attributes
    ----------
    compiled : int
        Templates compiled (a miss: new, or changed on disk) [1].
    loaded : int
        Templates loaded from the cache instead [1].
    """

    def __init__(self) -> None:
        self._code: dict[str, bytes] = {}
        self._lock = threading.Lock()
        self.compiled = 0
        self.loaded = 0

    def get_bucket(self, environment, name, filename, source) -> Bucket:
        """jinja2's bucket, its key made of the template's name and file and the environment's settings."""
        key = self.get_cache_key(f"{_compile_settings(environment)!r}\0{name}", filename)
        bucket = Bucket(environment, key, self.get_source_checksum(source))
        self.load_bytecode(bucket)
        if bucket.code is None:
            self.compiled += 1
        else:
            self.loaded += 1
        return bucket

    def load_bytecode(self, bucket: Bucket) -> None:
        """Give ``bucket`` the stored code; jinja2 drops it if the source's checksum differs."""
        with self._lock:
            data = self._code.get(bucket.key)
        if data is not None:
            bucket.bytecode_from_string(data)

    def dump_bytecode(self, bucket: Bucket) -> None:
        """Keep a newly compiled template's code."""
        data = bucket.bytecode_to_string()
        with self._lock:
            self._code[bucket.key] = data

    def clear(self) -> None:
        """Forget every compiled template."""
        with self._lock:
            self._code.clear()


#: The one cache of this process.
BYTECODE_CACHE = SharedBytecodeCache()


class CachedVoilaExporter(VoilaExporter):
    """Voila's exporter whose jinja2 environment loads compiled templates from :data:`BYTECODE_CACHE`."""

    def _create_environment(self):
        environment = super()._create_environment()
        environment.bytecode_cache = BYTECODE_CACHE
        return environment


def install() -> None:
    """Make Voila's notebook renderer (every page, every preheated kernel) use :class:`CachedVoilaExporter`."""
    upstream_server.rebind(voila.notebook_renderer, "VoilaExporter", CachedVoilaExporter)
