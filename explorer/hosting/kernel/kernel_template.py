"""The warm template process that kernels are forked from (``python .../explorer/hosting/kernel/kernel_template.py``).

It is run as a script, not with ``-m``: importing ``explorer`` would import numpy before the thread limits
below are set. It imports nothing but the standard library until :func:`preload`.

The server starts one template (:class:`explorer.hosting.server.provisioner.KernelTemplate`). It imports the
modules a kernel of the app would import (numpy, pandas, matplotlib, ipywidgets, ipympl, ipykernel, the
app), runs the warm-ups named among them (``module:function``, e.g. the app's
``explorer.app.warm:warm_up``, which builds the app once so that every kernel finds its data read and its
fonts loaded, and ``explorer.app.prebuilt:prebuild``, which builds the app a forked kernel takes instead of
building it), freezes what it imported out of the garbage collector's reach (:func:`gc.freeze`, so that a collection
in a child does not write to the shared pages), and then waits on a Unix socket inherited from the server.
For each request it forks: the child becomes a session of its own, takes the kernel's environment, working
directory and arguments, and starts ipykernel as ``python -m ipykernel_launcher`` would, on its own
connection file. The child pays neither the imports nor their memory until it writes to a page
(copy-on-write).

Rules kept here:

* no thread and no ZMQ context exists in the template when it forks: it imports with
  ``OPENBLAS_NUM_THREADS=1`` (and the OpenMP and MKL equivalents) unless they are set, since numpy's
  OpenBLAS would otherwise start a worker thread at import; the template counts its threads in
  ``/proc/self/task`` after the imports and refuses to fork when there is more than one;
* ``MPLBACKEND`` is set before matplotlib is imported, as ipykernel sets it in a kernel;
* the template ignores ``SIGCHLD``, so that the kernel processes it forks are reaped by the kernel of the
  operating system as they end (the server watches them through a pidfd); the child restores the default;
* the template exits when the server's end of the socket closes; each kernel watches the *server* (a pidfd on
  the template's parent, :func:`end_with_server`), not its own parent, so a kernel ends when the server ends
  but lives on when only the template dies (the OOM killer's choice, a crash): before, ipykernel's parent
  poller ended every kernel with the template, the restarter brought them back as blank forks and the
  connected viewers lost their apps (issue 39). The next fork starts a new template;
* each kernel raises its own ``oom_score_adj`` to :data:`KERNEL_OOM_SCORE_ADJ` (a process may raise its own
  score without privileges, not lower it), so that under memory pressure the OOM killer takes a kernel
  (one viewer's page) before the template (every later arrival's kernel, until it is started again).

The protocol: one JSON object per line. The template first writes ``{"ready": ...}`` with the import
time and the thread count; then each request ``{"argv": [...], "env": {...}, "cwd": "..."}`` gets
``{"pid": N}`` or ``{"error": "..."}``.
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import signal
import socket
import sys
import time

#: Thread pools of numerical libraries that would start at import: one thread each in the template
#: (and so in each kernel; a public server runs many kernels on few cores).
THREAD_LIMITS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
INLINE_BACKEND = "module://matplotlib_inline.backend_inline"  # what ipykernel's init_gui_pylab sets
#: A kernel's ``oom_score_adj`` (-1000..1000; 0 inherited): 500 puts every kernel ahead of the template, whose
#: resident size is about a kernel's (the pages they share count in both), so the killer's score of a kernel
#: (its share of memory, in thousandths, plus this) is above the template's whatever the two hold.
KERNEL_OOM_SCORE_ADJ = 500
_SERVER_PID = 0  # the template's parent, the server (set in main)


def native_threads() -> int:
    """Threads of this process, as the operating system counts them (``/proc/self/task``; 1 if unknown)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 1


def _own_package_first() -> None:
    """Import the ``explorer`` package this script belongs to, not another one the path finds first.

    The server that starts this script runs the package the script is in; the kernels must run the same
    code. Run as a script, the template finds ``explorer`` through the environment instead: with an editable
    install of another checkout (a git worktree beside the main one), its kernels ran that checkout's app
    and hosting code while the server ran this one. The package's parent directory is put on the path only
    for this one import (a checkout's root also holds ``tests`` and ``scripts``, which kernels must not import).
    """
    root = os.path.abspath(__file__)
    for _ in range(4):  # explorer/hosting/kernel/kernel_template.py -> the directory holding explorer/
        root = os.path.dirname(root)
    if "explorer" in sys.modules or not os.path.isfile(os.path.join(root, "explorer", "__init__.py")):
        return
    sys.path.insert(0, root)
    try:
        importlib.import_module("explorer")
    finally:
        sys.path.remove(root)


def preload(modules: list[str]) -> dict:
    """Import ``modules`` (a failure is reported, not raised); return what the ready message says.

    An entry ``module:function`` is a warm-up: ``function()`` of that module is called, in its turn, with no
    arguments. It does once, in the template, the work each kernel would otherwise do first (data read,
    fonts loaded, caches filled), and must leave no thread or socket behind, nor a widget in ipywidgets'
    registry (the kernels inherit what it leaves: a page gets the state of every registered widget).
    """
    for name in THREAD_LIMITS:
        os.environ.setdefault(name, "1")
    os.environ.setdefault("MPLBACKEND", INLINE_BACKEND)
    gc.disable()  # no collection while importing: the frozen objects stay where they were allocated
    start = time.perf_counter()
    failed = {}
    try:
        _own_package_first()
    except Exception as exc:  # noqa: BLE001 - reported like any failed import
        failed["explorer"] = f"{type(exc).__name__}: {exc}"
    for name in modules:
        try:
            if ":" in name:  # "module:function": called once the modules before it are imported
                module, _, function = name.partition(":")
                getattr(importlib.import_module(module), function)()
            else:
                __import__(name)
        except Exception as exc:  # noqa: BLE001 - a kernel imports it again and shows its own error
            failed[name] = f"{type(exc).__name__}: {exc}"
    gc.collect()
    gc.freeze()  # the imported objects: never scanned again, so a child's collection does not copy their pages
    gc.enable()
    return {"ready": True, "import_s": round(time.perf_counter() - start, 3), "failed": failed,
            "threads": native_threads(), "modules": len(sys.modules)}


def _send(sock: socket.socket, message: dict) -> None:
    sock.sendall(json.dumps(message).encode() + b"\n")


def serve(sock: socket.socket) -> dict | None:
    """Answer fork requests until the server closes the socket; in a child, return its request."""
    reader = sock.makefile("rb")
    for line in reader:
        try:
            request = json.loads(line)
            argv, env, cwd = list(request["argv"]), dict(request["env"]), str(request["cwd"])
        except (ValueError, KeyError, TypeError) as exc:
            _send(sock, {"error": f"bad request: {exc}"})
            continue
        if native_threads() > 1:
            _send(sock, {"error": f"the template has {native_threads()} threads; forking it is unsafe"})
            continue
        try:
            pid = os.fork()
        except OSError as exc:
            _send(sock, {"error": f"fork failed: {exc}"})
            continue
        if pid == 0:  # the kernel
            reader.close()
            sock.close()
            return {"argv": argv, "env": env, "cwd": cwd}
        _send(sock, {"pid": pid})
    return None


def become_kernel(request: dict) -> None:
    """In the forked child: take the kernel's session, environment, directory and arguments; run ipykernel."""
    os.setsid()  # a process group of its own, as jupyter_client's launch does: interrupts reach only this kernel
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # Python's own: KeyboardInterrupt
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)  # the kernel reads nothing from stdin (jupyter_client gives it a pipe)
    os.close(devnull)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    # jupyter_client names the launching process (JPY_PARENT_PID): the server. ipykernel's parent poller (which
    # would end the kernel with the template, its parent) is off: parent_handle 1, which ipykernel reads as "the
    # parent is init, nothing to poll" (0 would also print its console banner and connection file to the
    # server's log); end_with_server watches the server instead. ipykernel read the variable when the template
    # imported it: the handle is given as an argument.
    os.environ["JPY_PARENT_PID"] = str(_SERVER_PID)
    end_with_server(_SERVER_PID)
    raise_oom_score(KERNEL_OOM_SCORE_ADJ)
    _reseed()
    # the launcher's arguments after ``-m ipykernel_launcher`` (the connection file and any others)
    argv = ["ipykernel_launcher", *request["argv"][3:], "--IPKernelApp.parent_handle=1"]
    from explorer.hosting.kernel.process_names import kernel_title, name_this_process

    name_this_process(*kernel_title(argv))  # ps: "kernel-1a2b3c4d", "explorer-kernel ipykernel -f .../kernel-<id>.json"
    from explorer.hosting.kernel import upstream_kernel
    from explorer.hosting.kernel.held_widgets import hold_until_a_page_asks

    def before_start(app) -> None:
        upstream_kernel.register_with_shell(app.shell)
        hold_until_a_page_asks(app.kernel)  # when the server asks for it (ForkProvisioner.hold_widget_messages)

    # what ipykernel_launcher's launch_new_instance does, with one step between initialize and start
    upstream_kernel.start_kernel_app(argv, before_start)


def end_with_server(server_pid: int) -> None:
    """End this process when ``server_pid`` ends (a daemon thread waiting on its pidfd); at once if it has."""
    import select
    import threading

    try:
        pidfd = os.pidfd_open(server_pid)
    except (ProcessLookupError, OSError, ValueError):
        os._exit(1)

    def wait() -> None:
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        while not poller.poll(None):
            pass
        os._exit(1)  # as ipykernel's parent poller does: the server that served this kernel has gone

    threading.Thread(target=wait, name="end-with-server", daemon=True).start()


def raise_oom_score(adj: int) -> bool:
    """Set this process's ``oom_score_adj`` to ``adj`` if that raises it; False where it cannot be written."""
    path = "/proc/self/oom_score_adj"
    try:
        with open(path) as f:
            if int(f.read()) >= adj:
                return True
        with open(path, "w") as f:
            f.write(str(adj))
        return True
    except (OSError, ValueError):
        return False


def register_with_shell(shell) -> None:
    """Do what the preloaded modules do at import when a shell is running, now that the kernel's shell is.

    The template imports them with no IPython shell, so these import-time registrations were skipped:
    ipywidgets' comm targets (``jupyter.widget`` and the page's ``jupyter.widget.control``, without which a
    page gets no widget state) and ipympl's ``post_execute`` hook (figures shown after a cell). A module
    added to the preload list that registers anything at import when ``get_ipython()`` is set needs a line
    here (in :func:`explorer.hosting.kernel.upstream_kernel.register_with_shell`); ``tests/hosting/test_provisioner.py``
    checks these two against a real kernel.
    """
    from explorer.hosting.kernel import upstream_kernel

    upstream_kernel.register_with_shell(shell)


def _reseed() -> None:
    """Give the child its own numpy global random state (Python's ``random`` reseeds itself after a fork)."""
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed()


def main(argv: list[str] | None = None) -> None:
    """``python kernel_template.py FD MODULE ...``: preload, report, serve on socket FD."""
    args = sys.argv[1:] if argv is None else argv
    if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
        del sys.path[0]  # the script's directory; ipykernel puts the kernel's working directory first
    global _SERVER_PID
    _SERVER_PID = os.getppid()  # the server that started this template
    sock = socket.socket(fileno=int(args[0]))
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the kernels are reaped as they end
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # an interrupt of the server's terminal is not for the template
    _send(sock, preload(args[1:]))
    from explorer.hosting.kernel.process_names import TEMPLATE_NAME, name_this_process  # after preload: imports explorer

    name_this_process(TEMPLATE_NAME)  # its command line stays: it names the script and the preloaded modules
    request = serve(sock)
    if request is not None:
        become_kernel(request)


if __name__ == "__main__":
    main()
