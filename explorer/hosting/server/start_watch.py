"""A page whose kernel dies while the page is being rendered ends at once, and gives back what it held.

Voila's page handler starts a kernel, then renders the notebook in a task of
its own and waits on a queue for the task's HTML. When the kernel dies before
it answers ``kernel_info`` (a SIGKILL, the OOM killer), the task ends with
"Kernel died before replying to kernel_info" and never puts the end mark in
the queue: the page request waited for ever (Voila sends a heartbeat every
``http_keep_alive_timeout``), its address kept one seat fewer (the page load
stays pending) and the server's cap kept the kernel's slot (jupyter_client's
restarter starts a blank kernel under the same id, which nobody owns).

:class:`StartWatch` stands in for the kernel manager during one page request
(``ExplorerPageHandler.kernel_manager``): it passes everything through, and
notes the kernel the request starts. While the page renders, that kernel's
restarter is paused (jupyter_client's public ``stop_restarter``: a restart
would only race the shutdown below and leave a blank kernel) and
:meth:`StartWatch.parts` checks the process itself every
:data:`POLL_INTERVAL_S`; it yields the page's HTML until the render ends or
the kernel dies, whichever comes first. The page handler then shuts the
kernel down and answers the error page; a kernel that rendered its page gets
its restarter back.
"""

from __future__ import annotations

import asyncio
import contextlib

__all__ = ["StartWatch", "POLL_INTERVAL_S"]

#: How often a rendering page's kernel is checked [s]: jupyter_client's restarter polls every 3 s
#: (``KernelRestarter.time_to_dead``); a third of that ends a dead page sooner at one ``waitpid`` per check.
POLL_INTERVAL_S = 1.0


class StartWatch:
    """The kernel manager, for one page request, watching the kernels the request starts.

    Parameters
    ----------
    kernel_manager
        The server's kernel manager (jupyter_server's ``MappingKernelManager``).
    poll_interval : float
        How often a watched kernel's process is checked while the page renders [s].
    """

    def __init__(self, kernel_manager, poll_interval: float = POLL_INTERVAL_S):
        self._km = kernel_manager
        self.poll_interval = poll_interval
        self.kernel_ids: list[str] = []
        self.died = asyncio.Event()
        self._paused: list = []  # kernels whose restarter is paused while the page renders

    def __getattr__(self, name):
        return getattr(self._km, name)

    def __contains__(self, kernel_id) -> bool:
        return kernel_id in self._km

    async def start_kernel(self, *args, **kwargs):
        """The kernel manager's ``start_kernel``, noting the kernel; its restarter paused while the page renders."""
        start = self._km.start_kernel(*args, **kwargs)
        kernel_id = await start if asyncio.iscoroutine(start) or asyncio.isfuture(start) else start
        self.kernel_ids.append(kernel_id)
        try:
            kernel = self._km.get_kernel(kernel_id)
        except KeyError:  # gone already
            self.died.set()
            return kernel_id
        kernel.stop_restarter()  # a restart would start a blank kernel for a page that is ending
        self._paused.append(kernel)
        return kernel_id

    async def _watch(self) -> None:
        """Set :attr:`died` when a watched kernel's process has ended."""
        while not self.died.is_set():
            await asyncio.sleep(self.poll_interval)
            for kernel in list(self._paused):
                try:
                    alive = await kernel.is_alive()
                except Exception:  # noqa: BLE001 - a kernel being shut down
                    alive = False
                if not alive:
                    self.died.set()

    def stop_watching(self) -> None:
        """Give the kernels that live on their restarter back (the page has its kernel, or has ended)."""
        for kernel in self._paused:
            if not self.died.is_set() and getattr(kernel, "kernel_id", None) in self._km:
                with contextlib.suppress(Exception):
                    kernel.start_restarter()
        self._paused.clear()

    async def parts(self, generator):
        """Yield the parts of the async ``generator`` until it ends or a watched kernel dies (:attr:`died`)."""
        died = asyncio.ensure_future(self._watch())
        try:
            while True:
                step = asyncio.ensure_future(generator.__anext__())
                await asyncio.wait({step, died}, return_when=asyncio.FIRST_COMPLETED)
                if not step.done():
                    step.cancel()
                    with contextlib.suppress(BaseException):
                        await step
                    return
                try:
                    part = step.result()
                except StopAsyncIteration:
                    return
                yield part
        finally:
            died.cancel()
            with contextlib.suppress(BaseException):
                await generator.aclose()
