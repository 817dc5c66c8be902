"""Kernels forked from a warm template: the ``explorer-fork`` kernel provisioner.

A kernel of the app spends most of its start importing numpy, pandas, matplotlib, ipywidgets, ipympl,
ipykernel and the app (about 1.1-1.4 CPU-s here), and holds their memory. :class:`ForkProvisioner` starts
each kernel as a fork of one template process that has already imported them
(:mod:`explorer.hosting.kernel.kernel_template`): the child starts ipykernel on its own connection file,
environment and working directory, and shares the template's pages until it writes to them.

Selected with ``"KernelProvisionerFactory": {"default_provisioner_name": "explorer-fork"}`` (``voila.json``;
the entry point is in ``pyproject.toml``); ``"ForkProvisioner": {"preload": [...]}`` names the modules the
template imports, and the warm-ups it runs (an entry ``module:function``: see
:func:`explorer.hosting.kernel.kernel_template.preload`). Everything else is jupyter_client's
:class:`~jupyter_client.provisioning.LocalProvisioner`: interrupt (SIGINT to the kernel's process group), restart (a new fork), shutdown, kill and culling go
through the same methods, on the forked process.

A normal launch (``LocalProvisioner``) is used, and the reason logged, when

* the platform has no ``fork`` or no ``pidfd_open`` (Linux >= 5.3), or is not Linux (macOS system
  frameworks are not fork-safe);
* the kernel's command is not ``<this Python> -m ipykernel_launcher ...`` (another kernel or another
  environment), or the launch asks for its own stdin, stdout or stderr;
* the template cannot be started, or a fork fails (the template is started again for the next kernel).

The kernels are children of the template, not of the server: the server watches each one through a pidfd
(it is not its parent, so it cannot wait for it) and sends its signals there; an exit status is therefore
not known (:attr:`ForkedProcess.returncode` is -9 once a kernel killed here has ended, else 0).
The forked kernels share the template's hash seed and start with its imported state; numpy's global
random state is reseeded in each.

Prior art, read for this (none of it copied): ipykernel's "fork kernel" pull request and jupyter_client's
"Feature: Fork kernel" (a kernel forking itself on request), Sage Cell Server's preforked kernels, and
Voila's preheated kernel pools (which this makes cheap to fill).
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from jupyter_client.connect import KernelConnectionInfo
from jupyter_client.provisioning import LocalProvisioner
from traitlets import Bool, Float, List, Unicode

from explorer.hosting.kernel import held_widgets

__all__ = ["ForkProvisioner", "ForkedProcess", "KernelTemplate", "fork_supported", "stop_templates"]

#: The modules every kernel of a Voila server imports: ipykernel, the widgets, and the numerical stack.
#: voila.json adds the app's own package (the hosting layer does not name it).
#: the template runs as a script (``-m`` would import explorer before it can put its own package first)
TEMPLATE_SCRIPT = str(Path(__file__).parents[1] / "kernel" / "kernel_template.py")
DEFAULT_PRELOAD = ("ipykernel.kernelapp", "ipywidgets", "numpy", "pandas", "matplotlib", "ipympl.backend_nbagg")


def fork_supported() -> tuple[bool, str]:
    """Whether kernels can be forked here, and if not, why."""
    if not sys.platform.startswith("linux"):
        return False, f"forked kernels need Linux (this is {sys.platform})"
    if not hasattr(os, "fork") or not hasattr(os, "pidfd_open"):
        return False, "this Python has no os.fork or os.pidfd_open"
    return True, ""


class ForkedProcess:
    """A kernel forked by the template, with the part of :class:`subprocess.Popen` the provisioner uses.

    Parameters
    ----------
    pid : int
        The kernel's process id (also its process group: the child calls ``setsid``).
    """

    stdin = stdout = stderr = None

    def __init__(self, pid: int):
        self.pid = pid
        self._pidfd: int | None = os.pidfd_open(pid)  # ProcessLookupError if it has already ended
        self.returncode: int | None = None
        self._killed = False

    def poll(self) -> int | None:
        """None while the kernel runs; once it has ended, -9 if it was killed here, else 0 (not known)."""
        if self.returncode is None and self._pidfd is not None and self._ended(self._pidfd, 0):
            self.returncode = -signal.SIGKILL if self._killed else 0
        return self.returncode

    def _ended(self, pidfd: int, timeout: float | None) -> bool:
        """Whether ``pidfd`` (this process's) became readable (its process ended) within ``timeout`` [s] (None: wait).

        ``select.poll``, not ``select.select``: a server holding hundreds of websockets hands out descriptors past
        ``select``'s limit of 1,024 (``ValueError: filedescriptor out of range``).
        """
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        return bool(poller.poll(None if timeout is None else timeout * 1000.0))

    def wait(self, timeout: float | None = None) -> int:
        """Wait until the kernel has ended (``timeout`` [s]); close the pidfd; return :meth:`poll`'s status."""
        if self.returncode is None and self._pidfd is not None:
            if not self._ended(self._pidfd, timeout):
                assert timeout is not None  # without one, _ended waits until the process ends
                raise subprocess.TimeoutExpired(str(self.pid), timeout)
            self.poll()
        self._close()
        assert self.returncode is not None  # set above, or by the wait that closed the pidfd
        return self.returncode

    def send_signal(self, signum: int) -> None:
        """Send ``signum`` to this process only (through its pidfd: never to a process that reused the id)."""
        if self.poll() is None and self._pidfd is not None:
            signal.pidfd_send_signal(self._pidfd, signum)
            if signum == signal.SIGKILL:
                self._killed = True

    def kill(self) -> None:
        """SIGKILL."""
        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        """SIGTERM."""
        self.send_signal(signal.SIGTERM)

    def _close(self) -> None:
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None

    def __del__(self):
        self._close()


class KernelTemplate:
    """The template process: started once, then asked to fork kernels (:mod:`explorer.hosting.kernel.kernel_template`).

    Parameters
    ----------
    modules : tuple of str
        What the template imports before it forks.
    log : logging.Logger
        Where the start and any failure are logged.
    ready_timeout : float
        Seconds the imports may take [s].
    """

    def __init__(self, modules: tuple[str, ...], log, ready_timeout: float = 120.0):
        self.modules = tuple(modules)
        self.log = log
        self.ready_timeout = ready_timeout
        self.proc: subprocess.Popen | None = None
        self.ready: dict = {}
        self._sock: socket.socket | None = None
        self._reader: io.BufferedReader | None = None
        self._lock = threading.Lock()  # one request at a time on the socket

    @property
    def alive(self) -> bool:
        """Started, and still running."""
        return self.proc is not None and self.proc.poll() is None

    def start(self) -> None:
        """Start the template and wait for its imports (:class:`RuntimeError` if it fails or takes too long)."""
        ours, theirs = socket.socketpair()
        try:
            self.proc = subprocess.Popen(
                [sys.executable, TEMPLATE_SCRIPT, str(theirs.fileno()), *self.modules],
                pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, start_new_session=True)
        finally:
            theirs.close()
        ours.settimeout(self.ready_timeout)
        self._sock, self._reader = ours, ours.makefile("rb")
        try:
            self.ready = json.loads(self._reader.readline() or b"{}")
        except (OSError, ValueError) as exc:
            self.stop()
            raise RuntimeError(f"the kernel template did not start: {exc}") from exc
        if not self.ready.get("ready"):
            self.stop()
            raise RuntimeError("the kernel template ended before it was ready")
        if self.ready["failed"]:
            self.log.warning("Kernel template: could not import %s", self.ready["failed"])
        self.log.info("Kernel template %d ready: %d modules imported in %.2f s, %d thread(s)",
                      self.proc.pid, self.ready["modules"], self.ready["import_s"], self.ready["threads"])

    def fork(self, argv: list[str], env: dict[str, str], cwd: str, timeout: float = 60.0) -> int:
        """A new kernel process running ``argv`` (ipykernel's arguments) in ``env`` and ``cwd``; its pid."""
        with self._lock:
            if not self.alive or self._sock is None or self._reader is None:
                raise RuntimeError("the kernel template is not running")
            self._sock.settimeout(timeout)
            self._sock.sendall(json.dumps({"argv": list(argv), "env": dict(env), "cwd": str(cwd)}).encode() + b"\n")
            line = self._reader.readline()
        if not line:
            raise RuntimeError("the kernel template closed its socket")
        reply = json.loads(line)
        if "pid" not in reply:
            raise RuntimeError(reply.get("error", f"unexpected reply {reply!r}"))
        return int(reply["pid"])

    def stop(self) -> None:
        """Close the socket (the template exits when it reads its end) and reap the template."""
        for closable in (self._reader, self._sock):
            if closable is not None:
                closable.close()
        self._sock = self._reader = None
        if self.proc is not None:
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


_templates: dict[tuple[str, ...], KernelTemplate] = {}
_templates_lock = threading.Lock()


def template_for(modules: tuple[str, ...], log, ready_timeout: float = 120.0) -> KernelTemplate:
    """The running template that imported ``modules``, started (or started again) if needed. Blocking."""
    with _templates_lock:
        template = _templates.get(modules)
        if template is None or not template.alive:
            if template is not None:
                log.warning("Kernel template %s ended; starting another", template.proc.pid if template.proc else "?")
                template.stop()
            template = KernelTemplate(modules, log, ready_timeout)
            _templates[modules] = template
            try:
                template.start()
            except Exception:
                del _templates[modules]
                raise
        return template


def stop_templates() -> None:
    """Stop every template of this process (the kernels forked from them end with them)."""
    with _templates_lock:
        for template in _templates.values():
            template.stop()
        _templates.clear()


def _same_python(executable: str) -> bool:
    found = shutil.which(executable) or executable
    try:
        return os.path.samefile(found, sys.executable)
    except OSError:
        return False


class ForkProvisioner(LocalProvisioner):
    """jupyter_client's local provisioner, but each ipykernel is forked from a warm template.

    See the module docstring; configured as ``ForkProvisioner`` (``preload``, ``fork``, ``template_timeout``,
    ``hold_widget_messages``).
    """

    preload = List(Unicode(), default_value=list(DEFAULT_PRELOAD), config=True,
                   help="Modules the template imports before it forks (what every kernel would import), "
                        "and warm-ups it calls ('module:function', in order).")
    fork = Bool(True, config=True, help="Fork kernels from the template; False: launch every kernel normally.")
    template_timeout = Float(120.0, config=True, help="Seconds the template may take to import [s]; a slower "
                                                      "start falls back to normal launches.")
    hold_widget_messages = Bool(True, config=True,
                                help="Forked kernels publish no widget message until a page asks for the widgets "
                                     "(explorer.hosting.kernel.held_widgets); False: every widget message is sent.")
    #: How the last kernel of this provisioner was started: "forked" or "launched" (and why)
    launched_by: str = ""

    def _why_not(self, cmd: list[str], kwargs: dict) -> str:
        if not self.fork:
            return "ForkProvisioner.fork is False"
        ok, reason = fork_supported()
        if not ok:
            return reason
        if len(cmd) < 3 or cmd[1:3] != ["-m", "ipykernel_launcher"] or not _same_python(cmd[0]):
            return f"the kernel command is not this Python's ipykernel_launcher: {cmd[:3]}"
        if any(kwargs.get(stream) is not None for stream in ("stdin", "stdout", "stderr")):
            return "the launch asks for its own stdin, stdout or stderr"
        return ""

    async def launch_kernel(self, cmd: list[str], **kwargs: Any) -> KernelConnectionInfo:
        """Fork the kernel from the template; launch it normally (and log why) if that is not possible."""
        why = self._why_not(cmd, kwargs)
        if not why:
            start = time.perf_counter()
            try:
                template = await asyncio.to_thread(template_for, tuple(self.preload), self.log, self.template_timeout)
                env = dict(kwargs.get("env") or os.environ)
                env[held_widgets.ENV] = "1" if self.hold_widget_messages else "0"
                cwd = str(kwargs.get("cwd") or os.getcwd())
                pid = await asyncio.to_thread(template.fork, cmd, env, cwd)
                # LocalProvisioner declares a Popen; ForkedProcess has the part of it that LocalProvisioner uses
                self.process = ForkedProcess(pid)  # type: ignore[assignment]
            except Exception as exc:  # noqa: BLE001 - any failure: the normal launch, logged
                why = f"forking failed ({type(exc).__name__}: {exc})"
                self.log.warning("Kernel %s: %s; launching it normally", self.kernel_id, why)
            else:
                assert template.proc is not None  # it forked: it runs
                self.pid = self.pgid = pid
                self.cwd = cwd
                self.launched_by = "forked"
                self.log.info("Kernel %s forked from template %d as %d in %.3f s", self.kernel_id,
                              template.proc.pid, pid, time.perf_counter() - start)
                return self.connection_info
        else:
            self.log.debug("Kernel %s launched normally: %s", self.kernel_id, why)
        self.launched_by = f"launched: {why}"
        return await super().launch_kernel(cmd, **kwargs)
