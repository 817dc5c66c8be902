"""The kernel REST route of a public server, for the page that owns the kernel only.

Voila registers jupyter_server's ``KernelHandler`` at ``/api/kernels/<id>``:
``GET`` returned any kernel's state and connection count, and ``DELETE`` shut
any viewer's kernel down for whoever knew its id, also with a made-up
``_xsrf`` pair (``Cookie: _xsrf=abc`` with ``X-XSRFToken: abc`` passes
tornado's check, which only compares the two). The owner-only rule of the
kernel websocket and of the unload beacon covered neither.

:class:`OwnerKernelHandler` applies that rule here too: the request must carry
the seat cookie recorded with the kernel's seat
(:data:`explorer.hosting.server.seats.SEAT_COOKIE`, which the page handler scopes to
this very path). Otherwise the answer is 403 for a kernel the server runs and
404 for one it does not, with no kernel state. The page's own scripts need
none of these requests (its kernel is reached over the websocket and freed by
the unload beacon), but an owner's ``GET`` and ``DELETE`` still work as
jupyter_server's do; a ``DELETE`` frees the seat as the beacon does.

The other REST routes that reach kernels or sessions in a Jupyter server
(``/api/kernels``, ``/api/kernels/<id>/interrupt`` and ``/restart``,
``/api/sessions``) are not registered by Voila; the server's default handler
answers them 404 (checked by ``tests/hosting/test_kernel_attacks.py``).
"""

from __future__ import annotations

from typing import Awaitable, cast

from jupyter_server.services.kernels.handlers import KernelHandler
from tornado import web

from explorer.hosting.server import seats

__all__ = ["OwnerKernelHandler"]


class OwnerKernelHandler(KernelHandler):
    """``GET`` and ``DELETE /api/kernels/<id>`` for the page that owns the kernel (see the module docstring)."""

    def write_error(self, status_code: int, **kwargs) -> None:
        """A plain-text refusal naming no kernel state (jupyter_server's JSON error names the framework)."""
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.set_header("Cache-Control", "no-store")
        self.finish(f"{status_code}\n")

    def _require_owner(self, kernel_id: str) -> None:
        """404 when the server runs no such kernel, 403 when the request lacks the kernel's seat cookie."""
        if kernel_id not in self.kernel_manager:
            raise web.HTTPError(404)
        if not seats.owns(kernel_id, self.get_cookie(seats.SEAT_COOKIE)):
            self.log.warning("Refused %s /api/kernels/%s from %s: not the page that owns it", self.request.method,
                             kernel_id, self.request.remote_ip)
            raise web.HTTPError(403)

    @web.authenticated
    async def get(self, kernel_id):
        """The kernel's model, for its owner only."""
        self._require_owner(kernel_id)
        await cast(Awaitable[None], super().get(kernel_id))  # a coroutine; tornado's decorator types it Optional

    @web.authenticated
    async def delete(self, kernel_id):
        """Shut the kernel down, for its owner only, and free its seat (as the unload beacon does)."""
        self._require_owner(kernel_id)
        seats.SEATS.pop(kernel_id, None)
        await cast(Awaitable[None], super().delete(kernel_id))
        seats.forget_gone(self.kernel_manager.list_kernel_ids())
