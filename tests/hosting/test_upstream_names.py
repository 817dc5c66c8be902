"""The upstream names the project relies on: each registered, each checked, each one's absence stops the server.

explorer/hosting/upstream_names.py holds the registry (the server's names from upstream_server.py, the kernel
side's from upstream_kernel.py, the app's from explorer/app/ipympl_private.py and widgets_private.py). Here each
registered name is taken away in turn (monkeypatched off its class or module, or out of its owner's source for a
name the library sets on instances) and the check must refuse, naming it; a real server started with one
name removed must exit with one line naming it.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import clients as cl
from explorer.hosting import upstream_names
from explorer.hosting.kernel import upstream_kernel
from explorer.hosting.server import upstream_server
from explorer.hosting.upstream_names import EXIT_STATUS, REGISTRY, UpstreamChanged

ROOT = Path(__file__).resolve().parents[2]


def _remove(monkeypatch, entry) -> None:
    """Make ``entry`` disappear from the installed package, for this test only."""
    module = importlib.import_module(entry.module)
    if entry.kind == "identity":  # the using module holds something else under that name
        monkeypatch.setattr(importlib.import_module(entry.owner), entry.name, type(entry.name, (), {}))
    elif entry.kind == "attr":
        owner = module
        for part in (entry.owner or "").split(".") if entry.owner else ():
            owner = getattr(owner, part)
        holder = next((c for c in getattr(owner, "__mro__", (owner,)) if entry.name in vars(c)), owner)
        monkeypatch.delattr(holder, entry.name)
    else:  # "source": the library no longer mentions it
        read = upstream_names._source_text
        monkeypatch.setattr(upstream_names, "_source_text",
                            lambda obj: re.sub(rf"\.{re.escape(entry.name)}\b", ".renamed_upstream", read(obj)))


def test_every_registered_name_holds_with_the_installed_packages():
    assert upstream_names.problems() == []
    assert len(REGISTRY) >= 28  # the 28 names in ten packages, and those found since
    assert {e.package for e in REGISTRY} >= {"voila", "jupyter_server", "jupyter_client", "ipykernel", "comm",
                                             "ipywidgets", "ipympl", "matplotlib", "nbconvert", "tornado", "pyzmq"}


@pytest.mark.parametrize("entry", REGISTRY, ids=lambda e: f"{e.dotted}:{e.kind}")
def test_each_name_removed_is_refused_by_name(entry, monkeypatch, capsys):
    _remove(monkeypatch, entry)
    found = upstream_names.problems()
    assert len(found) >= 1 and any(entry.dotted in line for line in found), found
    with pytest.raises(SystemExit) as stopped:
        upstream_names.require()
    assert stopped.value.code == EXIT_STATUS
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and entry.dotted in err and entry.package in err


def test_every_package_checked_has_its_versions_recorded_and_bounded():
    pyproject = (ROOT / "pyproject.toml").read_text()
    for package in {e.package for e in REGISTRY}:
        allowed, checked = upstream_names.CHECKED[package]
        found = re.search(rf'"{re.escape(package)}(>=[^"]+)"', pyproject, re.IGNORECASE)
        assert found, f"{package} is not a dependency with a lower bound in pyproject.toml"
        assert found.group(1) == allowed and ",<" in allowed, (package, found.group(1), allowed)
        low = tuple(int(p) for p in re.match(r">=([\d.]+)", allowed).group(1).split("."))
        high = tuple(int(p) for p in re.search(r",<([\d.]+)", allowed).group(1).split("."))
        first = tuple(int(p) for p in checked[0].split("."))
        assert first == low + (0,) * (len(first) - len(low)), (package, "the lower bound was not checked", checked)
        for version in checked:  # the lower bound and the version CI pins (constraints.txt)
            assert low <= tuple(int(p) for p in version.split(".")) < high, (package, version, allowed)
        pinned = re.search(rf"^{re.escape(package)}==([\d.]+)$", (ROOT / "constraints.txt").read_text(), re.M | re.I)
        assert pinned and pinned.group(1) in checked, (package, pinned, checked)


def test_the_apps_lists_are_the_registrys():
    from explorer.app import ipympl_private, widgets_private

    kinds = {"read": "attr", "source": "source"}
    app = {(m, o, n, kinds[k]) for m, o, n, k in (*ipympl_private.PRIVATE_NAMES, *widgets_private.PRIVATE_NAMES)}
    registered = {(e.module, e.owner, e.name, e.kind) for e in upstream_names._APP_NAMES}
    assert app == registered


def test_no_other_module_reaches_a_registered_private_name():
    """Only the boundary modules touch ``._name`` for a registered private name (the ipympl ones have their own test)."""
    boundary = {"upstream_server.py", "upstream_kernel.py", "upstream_names.py", "widgets_private.py",
                "ipympl_private.py"}
    names = {e.name for e in REGISTRY if e.name.startswith("_") and e.package not in ("ipympl", "matplotlib")}
    offenders = []
    for folder in (ROOT / "explorer" / "hosting", ROOT / "explorer" / "app", ROOT / "deploy"):
        for path in folder.rglob("*.py"):
            if path.name in boundary:
                continue
            code = path.read_text()
            offenders += [f"{path.relative_to(ROOT)}: {n}" for n in names
                          if re.search(rf"(?<!self)\.{re.escape(n)}\b", code) and not _own(path, n, code)]
    assert offenders == []


def _own(path: Path, name: str, code: str) -> bool:
    """A class of the project's own that defines ``name`` itself (``def _name`` or ``_name =`` in the class)."""
    return bool(re.search(rf"^\s+(?:def {re.escape(name)}\b|{re.escape(name)}\s*[:=])", code, re.M))


# ---------------------------------------------------------------- the fail-open sites, closed
def test_a_replaced_voila_handler_missing_from_voilas_list_stops_the_server():
    class Page: ...
    class Beacon: ...
    class Guarded: ...
    class Owner: ...

    specs = [("/(.*)", Page), ("/voila/api/shutdown/(.*)", Beacon)]
    assert upstream_server.replace_handlers(specs, {Page: Guarded, Beacon: Owner}) == [
        ("/(.*)", Guarded), ("/voila/api/shutdown/(.*)", Owner)]
    renamed = [("/(.*)", Page), ("/voila/api/shutdown/(.*)", type("RenamedBeacon", (), {}))]
    with pytest.raises(UpstreamChanged, match="Beacon"):
        upstream_server.replace_handlers(renamed, {Page: Guarded, Beacon: Owner})
    assert upstream_server.replace_handlers(specs[:1], {Page: Guarded, Beacon: Owner}, optional=(Beacon,))


def test_a_preheating_kernel_manager_without_its_pools_is_an_error_not_an_off_pool():
    class Preheating:
        kernel_pools_config = {"default": {"pool_size": 1}}

    class Plain:
        pass

    with pytest.raises(UpstreamChanged, match="_pools"):
        upstream_server.kernel_pools(Preheating())
    assert upstream_server.kernel_pools(Plain()) is None  # preheat_kernel false: no pool, rightly


def test_the_busy_clock_refuses_a_seated_started_kernel_without_its_activity_stream():
    from explorer.hosting.server.warden import BusyClock

    class Ready:
        def done(self):
            return True

    kernel = type("Kernel", (), {"ready": Ready()})()
    assert BusyClock().watch("k", kernel, seated=False) is False  # may still be starting
    with pytest.raises(UpstreamChanged, match="_activity_stream"):
        BusyClock().watch("k", kernel, seated=True)


@pytest.mark.server
def test_a_kernel_being_shut_down_is_not_an_upstream_change():
    """jupyter_server's own shutdown drops the activity stream (``stop_watching_activity``) while the kernel stays
    listed until its process has ended; a warden check in that window must not stop the server. Before: CI's full
    suite, where the idle-kernel cull (tests/hosting/test_provisioner.py) met the warden's check, got
    "Connection reset" and then "Connection refused" from the whole server."""
    from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager

    from explorer.hosting.server.warden import BusyClock

    async def scenario():
        km = AsyncMappingKernelManager()
        kernel_id = await km.start_kernel()
        kernel = km.get_kernel(kernel_id)
        try:
            await kernel.ready
            clock = BusyClock()
            assert clock.watch(kernel_id, kernel, seated=True)  # started: the manager's stream is there
            shutdown = asyncio.ensure_future(km.shutdown_kernel(kernel_id))
            for _ in range(1000):  # until the manager has dropped the stream, its shutdown still under way
                await asyncio.sleep(0)
                if getattr(kernel, "_activity_stream", "") is None:
                    break
            assert getattr(kernel, "_activity_stream", "") is None and not shutdown.done()
            assert kernel_id in km.list_kernel_ids()
            dropped = clock.watch(kernel_id, kernel, seated=True)  # before: UpstreamChanged, and the server stopped
            await shutdown
            return dropped
        finally:
            if kernel_id in km.list_kernel_ids():
                await km.shutdown_kernel(kernel_id, now=True)

    assert cl.run_async(scenario()) is False


async def _started_kernel():
    from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager

    km = AsyncMappingKernelManager()
    kernel_id = await km.start_kernel()
    await km.get_kernel(kernel_id).ready
    return km, kernel_id


def _memory_warden(km):
    import logging

    from explorer.hosting.server.warden import Warden

    return Warden(km, logging.getLogger("test"), interval=1.0, page_idle_timeout=0, busy_cull_timeout=0,
                  kernel_memory_mb=1024.0, connections=lambda _k: 0)


@pytest.mark.server
def test_a_kernels_pid_is_found_while_it_runs_and_is_none_while_it_starts_or_ends():
    """The kernel CPU budget (websocket._kernel_cpu_seconds), the memory limit (Warden._pid) and the pool's kernel
    size find a kernel's pid through jupyter_client's real KernelManager and LocalProvisioner: a kernel not yet
    launched, and one being shut down or ended, has none, and that is not an upstream change (a false positive
    would stop the whole server, as the activity stream's did on CI)."""
    from jupyter_client.manager import AsyncKernelManager

    from explorer.hosting.server import websocket

    assert upstream_server.kernel_pid(AsyncKernelManager()) is None  # not launched yet

    async def scenario():
        km, kernel_id = await _started_kernel()
        kernel, warden = km.get_kernel(kernel_id), _memory_warden(km)
        try:
            popen_pid = kernel.provisioner.process.pid  # jupyter_client's own Popen
            running = (upstream_server.kernel_pid(kernel), warden._pid(kernel_id),
                       websocket._kernel_cpu_seconds(km, kernel_id))
            await warden.check()  # the memory check reads the pid: nothing raised
            shutdown = asyncio.ensure_future(km.shutdown_kernel(kernel_id))
            during = []
            while not shutdown.done():  # every step of jupyter_client's shutdown, as the warden may meet it
                during.append((warden._pid(kernel_id), websocket._kernel_cpu_seconds(km, kernel_id)))
                await asyncio.sleep(0.005)
            await shutdown
            ended = (upstream_server.kernel_pid(kernel), warden._pid(kernel_id),
                     websocket._kernel_cpu_seconds(km, kernel_id))
            return popen_pid, running, during, ended
        finally:
            if kernel_id in km.list_kernel_ids():
                await km.shutdown_kernel(kernel_id, now=True)

    popen_pid, running, during, ended = cl.run_async(scenario())
    assert running[0] == running[1] == popen_pid and running[2] is not None and running[2] >= 0
    assert during and {pid for pid, _cpu in during} <= {popen_pid, None}  # never raised
    assert ended == (None, None, None)


@pytest.mark.server
@pytest.mark.parametrize("renamed", ["LocalProvisioner.process", "KernelManager.provisioner"])
def test_a_running_kernel_whose_pid_cannot_be_found_stops_the_budget_and_the_warden(renamed, monkeypatch):
    """jupyter_client keeping the process (or the provisioner) under another name: has_kernel still says the kernel
    runs, but ``provisioner.process`` finds nothing. Before, the CPU budget let every message through and the memory
    limit read 0 MB; now the budget's lookup and the warden's check raise UpstreamChanged (the warden then stops the
    server)."""
    from jupyter_client.manager import KernelManager
    from jupyter_client.provisioning.local_provisioner import LocalProvisioner

    from explorer.hosting.server import websocket

    async def scenario():
        km, kernel_id = await _started_kernel()
        kernel, warden = km.get_kernel(kernel_id), _memory_warden(km)
        raised = []
        try:
            with monkeypatch.context() as m:
                if renamed == "LocalProvisioner.process":
                    provisioner = kernel.provisioner
                    provisioner._renamed = provisioner.process
                    m.delattr(provisioner, "process")
                    m.delattr(LocalProvisioner, "process")
                    m.setattr(LocalProvisioner, "has_process", property(lambda self: self._renamed is not None))
                else:
                    kernel._renamed = kernel.provisioner
                    m.delattr(kernel, "provisioner")
                    m.delattr(KernelManager, "provisioner")
                    m.setattr(KernelManager, "has_kernel", property(lambda self: self._renamed.has_process))
                for look in (lambda: websocket._kernel_cpu_seconds(km, kernel_id), lambda: warden._pid(kernel_id),
                             warden.check):
                    try:
                        result = look()
                        if asyncio.iscoroutine(result):
                            await result
                    except UpstreamChanged as exc:
                        raised.append(str(exc))
        finally:
            await km.shutdown_kernel(kernel_id, now=True)
        return raised

    raised = cl.run_async(scenario())
    assert len(raised) == 3 and all(renamed in line and "is gone" in line for line in raised), raised


def test_the_slow_reader_guard_refuses_an_open_websocket_without_its_stream(monkeypatch):
    """tornado's real protocol object holds ``stream``; one without it raises, never "no bytes waiting"."""
    from tornado.websocket import WebSocketProtocol13, _WebSocketParams

    from explorer.hosting.server.websocket import SafeKernelWebsocketHandler

    protocol = WebSocketProtocol13(object(), False, _WebSocketParams())
    assert upstream_server.websocket_stream(type("H", (), {"ws_connection": protocol})()) is None  # not accepted
    assert upstream_server.websocket_stream(type("H", (), {"ws_connection": None})()) is None  # closed
    del protocol.stream
    for klass in type(protocol).__mro__:  # tornado 6.5 also declares it on the class (`stream = None`); 6.6 does not
        if "stream" in vars(klass):
            monkeypatch.delattr(klass, "stream")
    handler = type("H", (), {"ws_connection": protocol, "settings": {}, "max_buffer_bytes": 1})()
    with pytest.raises(UpstreamChanged, match=r"WebSocketProtocol\.stream"):
        SafeKernelWebsocketHandler.write_message(handler, "a message")  # before: sent unguarded


def test_the_busy_clock_keeps_the_managers_own_callback():
    from zmq.eventloop.zmqstream import ZMQStream

    from explorer.hosting.server.warden import BusyClock

    seen = []
    stream = ZMQStream.__new__(ZMQStream)  # only its callback slot is used here
    stream._recv_callback = seen.append
    stream.on_recv = lambda callback: setattr(stream, "_recv_callback", callback)
    kernel = type("Kernel", (), {"_activity_stream": stream})()
    clock = BusyClock(clock=lambda: 5.0)
    assert clock.watch("k", kernel, seated=True) and clock.watch("k", kernel, seated=True)  # wrapped once
    status = [b"<IDS|MSG>", b"sig", b'{"msg_type": "status"}', b'{"msg_id": "m1"}', b"{}",
              b'{"execution_state": "busy"}']
    stream._recv_callback(status)
    assert seen == [status] and clock.busy_for("k") == 0.0 and clock._busy["k"] == {"m1": 5.0}


def test_the_slow_reader_guard_and_the_session_entry_refuse_a_stream_without_their_counters():
    with pytest.raises(UpstreamChanged, match="_total_write_index"):
        upstream_server.pending_write_bytes(object())
    stream = type("S", (), {"_total_write_index": 10, "_total_write_done_index": 4})()
    assert upstream_server.pending_write_bytes(stream) == 6
    with pytest.raises(UpstreamChanged, match="_open_sessions"):
        upstream_server.forget_session(object(), object())


def test_a_kernel_without_a_front_end_handler_to_wrap_is_an_error():
    kernel = type("K", (), {"shell_handlers": {"comm_open": print}})()
    with pytest.raises(UpstreamChanged, match="comm_msg"):
        upstream_kernel.wrap_shell_handler(kernel, "comm_msg", lambda h: h)
    upstream_kernel.wrap_shell_handler(kernel, "comm_open", lambda h: "wrapped")
    assert kernel.shell_handlers["comm_open"] == "wrapped"


def test_rebinding_a_name_the_module_no_longer_has_is_an_error():
    module = type(sys)("fake_upstream")
    with pytest.raises(UpstreamChanged, match="fake_upstream.Handler"):
        upstream_server.rebind(module, "Handler", type("Guarded", (), {}))


# ---------------------------------------------------------------- a real server
@pytest.mark.server
@pytest.mark.parametrize("command", [["-m", "explorer.hosting", "explorer/notebooks/explorer.ipynb"],
                                     ["-m", "explorer", "app"]], ids=["python-m-explorer.hosting", "cli-app"])
def test_a_server_with_a_name_removed_exits_with_one_line_naming_it(command, tmp_path):
    """The name is removed before the server starts, by a ``sitecustomize`` on the child's path (nothing in the
    package reads a test flag)."""
    (tmp_path / "sitecustomize.py").write_text(
        "import voila.request_info_handler as m\ndel m.RequestInfoSocketHandler._waiters\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    done = subprocess.run([sys.executable, *command, "--port=0", "--Voila.ip=127.0.0.1", "--no-browser"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == EXIT_STATUS, (done.returncode, done.stderr[-2000:])
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert "voila.request_info_handler.RequestInfoSocketHandler._waiters is gone" in lines[0]
    assert "Voil" not in done.stdout and "running at" not in done.stderr  # nothing was served


def test_an_identity_entry_without_its_module_is_named_as_such():
    """An ``identity`` entry compares the name in ``module`` with the one in ``owner``: without an owner, the line
    says so (it read "cannot be reached (AttributeError ...)" before mypy pointed at import_module(None))."""
    entry = upstream_names.PrivateName("tornado", "tornado.web", None, "RequestHandler", "identity", "nothing")
    assert upstream_names.missing(entry) == ("tornado.web.RequestHandler: an identity entry names no module to "
                                             "compare (owner is None)")
