"""Kernels forked from a warm template (explorer/hosting/server/provisioner.py), against real kernels and a real Voila.

The first group drives jupyter_client's KernelManager with a kernel spec that names the ``explorer-fork``
provisioner (the entry point in pyproject.toml): start, execute, interrupt, restart, shutdown, and the
fallback to a normal launch. The second starts ``python -m explorer.hosting`` with the project's voila.json
(which selects the provisioner): its preheated pool is forked, a viewer's kernel is culled through the
provisioner, and two viewers' kernels share no state.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

import clients as cl
from conftest import Server

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forked kernels need Linux")

# numpy tells a forked kernel (already imported); ipywidgets and ipympl register with the shell at import
SMALL_PRELOAD = ["ipykernel.kernelapp", "numpy", "ipywidgets", "ipympl.backend_nbagg"]


def _spec_dir(tmp_path, name: str, config: dict) -> str:
    kernel = tmp_path / "kernels" / name
    kernel.mkdir(parents=True)
    (kernel / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": name, "language": "python",
        "metadata": {"kernel_provisioner": {"provisioner_name": "explorer-fork", "config": config}}}))
    return str(tmp_path / "kernels")


@pytest.fixture(scope="module", autouse=True)
def _stop_templates():
    yield
    from explorer.hosting.server.provisioner import stop_templates

    stop_templates()


@pytest.fixture
def kernel(tmp_path):
    """A started kernel manager and a ready blocking client; factory ``kernel(config, cwd=, env=)``."""
    from jupyter_client import KernelManager
    from jupyter_client.kernelspec import KernelSpecManager

    started = []

    def start(config: dict | None = None, cwd=None, env: dict | None = None):
        config = {"preload": SMALL_PRELOAD, **(config or {})}
        ksm = KernelSpecManager(kernel_dirs=[_spec_dir(tmp_path, f"fork{len(started)}", config)])
        km = KernelManager(kernel_spec_manager=ksm, kernel_name=f"fork{len(started)}")
        km.start_kernel(cwd=str(cwd or tmp_path), env={**os.environ, **(env or {})})
        kc = km.blocking_client()
        kc.start_channels()
        kc.wait_for_ready(timeout=120)
        started.append((km, kc))
        return km, kc

    yield start
    for km, kc in started:
        kc.stop_channels()
        if km.has_kernel:
            km.shutdown_kernel(now=True)


def run(kc, code: str, timeout: float = 120) -> tuple[str, str]:
    """Execute ``code``; (stdout text, reply status)."""
    out = []
    reply = kc.execute_interactive(code, timeout=timeout, output_hook=lambda msg: out.append(
        msg["content"].get("text", "")) if msg["msg_type"] == "stream" else None)
    return "".join(out), reply["content"]["status"]


def ended(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"  # a zombie has ended
    except OSError:
        return True


def wait_until(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


def test_forked_kernel_runs_in_its_own_directory_and_environment(kernel, tmp_path):
    from explorer.hosting.server.provisioner import _templates

    work = tmp_path / "work"
    work.mkdir()
    km, kc = kernel(cwd=work, env={"EXPLORER_FORK_TEST": "given"})
    assert km.provisioner.launched_by == "forked"
    template = _templates[tuple(SMALL_PRELOAD)].proc.pid
    text, status = run(kc, "import os, sys\n"
                           "print(os.getpid(), os.getppid(), os.getpgid(0), os.getcwd(), "
                           "os.environ.get('EXPLORER_FORK_TEST'), 'numpy' in sys.modules, '' in sys.path, "
                           "os.environ['JPY_PARENT_PID'])")
    assert status == "ok"
    pid, ppid, pgid, cwd, env, numpy_preloaded, cwd_on_path, parent = text.split()
    assert int(pid) == km.provisioner.pid and int(ppid) == template  # forked by the template
    assert int(pgid) == int(pid)  # a process group of its own: an interrupt reaches only this kernel
    assert cwd == str(work) and env == "given"
    assert numpy_preloaded == "True"  # imported before the fork
    assert cwd_on_path == "True"  # as ipykernel_launcher's kernel has it
    assert parent == str(os.getpid())  # the process that runs the kernels (the server's), not the template
    assert run(kc, "x = 6 * 7\nprint(x)")[0].strip() == "42"


def test_preloaded_modules_register_with_the_forked_kernels_shell(kernel):
    """ipywidgets' comm targets and ipympl's hook, skipped at import in the template (no shell there)."""
    _, kc = kernel()
    text, status = run(kc, "import comm, ipympl.backend_nbagg as nb\n"
                           "print(sorted(comm.get_comm_manager().targets), "
                           "nb.flush_figures in get_ipython().events.callbacks['post_execute'])")
    assert status == "ok"
    assert "'jupyter.widget', 'jupyter.widget.control'" in text and text.strip().endswith("True")


def test_two_forked_kernels_have_separate_state_and_random_streams(kernel):
    _, a = kernel()
    _, b = kernel()
    run(a, "shared = 'a'")
    assert run(b, "print('shared' in dir())")[0].strip() == "False"
    draws = [run(k, "import numpy; print(numpy.random.random())")[0] for k in (a, b)]
    assert draws[0] != draws[1]  # numpy's global stream is reseeded in each child


def test_interrupt_stops_a_running_cell(kernel, tmp_path):
    """The cell says it runs by a file, not by stdout: a 'started' stream reaches the page from ipykernel's IO
    thread while the cell's own ``print(..., flush=True)`` still waits for that thread, and an interrupt landing
    there can leave the stream's flush flag set, so that later output never arrives (a CI run saw '' for
    'alive'). The file is written after every stream call, so the interrupt lands in ``time.sleep``."""
    km, kc = kernel()
    started = tmp_path / "started"
    msg_id = kc.execute(f"import time, pathlib\npathlib.Path({str(started)!r}).touch()\ntime.sleep(600)")
    wait_until(started.exists, 120, "the cell never started")
    km.interrupt_kernel()
    reply = kc.get_shell_msg(timeout=120)
    while reply["parent_header"].get("msg_id") != msg_id:  # earlier replies (wait_for_ready's kernel_info)
        reply = kc.get_shell_msg(timeout=120)
    assert reply["content"]["status"] == "error" and reply["content"]["ename"] == "KeyboardInterrupt"
    # After an error ipykernel aborts the execute requests queued behind it, until a "stop aborting" message it
    # posts to itself (ipykernel 7, kernelbase._abort_queues) comes round; on a loaded machine the next request
    # can land in that window and get the reply 'aborted' (a loaded full run saw it). An aborted reply is the
    # kernel alive and answering, so ask again until the window has closed.
    deadline = time.monotonic() + 120
    while (answer := run(kc, "print('alive')")) == ("", "aborted") and time.monotonic() < deadline:
        time.sleep(0.2)
    assert answer == ("alive\n", "ok")


def test_restart_forks_a_new_kernel_without_the_old_state(kernel):
    km, kc = kernel()
    run(kc, "before_restart = 1")
    old = km.provisioner.pid
    km.restart_kernel(now=True)
    kc.wait_for_ready(timeout=120)
    assert km.provisioner.launched_by == "forked" and km.provisioner.pid != old
    wait_until(lambda: ended(old), 60, "the old kernel outlived the restart")
    text, _ = run(kc, "print('before_restart' in dir())")
    assert text.strip() == "False"


def test_shutdown_ends_the_kernel_process(kernel):
    km, kc = kernel()
    pid = km.provisioner.pid
    km.shutdown_kernel()
    wait_until(lambda: ended(pid), 60, "the kernel outlived its shutdown")
    assert not km.is_alive()


def test_a_dead_templates_kernels_live_on_and_the_next_kernel_gets_a_new_template(kernel):
    """docs/deploy.md: if the template dies (the OOM killer's choice), its kernels live on (they watch the server,
    not their parent: issue 39, where every viewer's kernel ended with it), and the next kernel starts a new
    template; the kernels rank before the template for the OOM killer."""
    from explorer.hosting.server.provisioner import _templates

    km, kc = kernel()
    template = _templates[tuple(SMALL_PRELOAD)].proc
    orphan = km.provisioner.pid
    assert int(open(f"/proc/{orphan}/oom_score_adj").read()) > int(open(f"/proc/{template.pid}/oom_score_adj").read())
    template.kill()
    template.wait(timeout=60)
    assert run(kc, "print(6 * 7)")[0].strip() == "42"  # before: the kernel ended with its template
    assert not ended(orphan)
    km2, kc2 = kernel()
    assert km2.provisioner.launched_by == "forked"
    replacement = _templates[tuple(SMALL_PRELOAD)].proc.pid
    assert replacement != template.pid
    assert run(kc2, "import os; print(os.getppid())")[0].strip() == str(replacement)


def test_warm_ups_run_once_in_the_template_before_it_forks(kernel, tmp_path, monkeypatch, caplog):
    """A preload entry ``module:function`` is called in the template (voila.json's explorer.app.warm:warm_up);
    one that fails is logged and the kernels are still forked."""
    probe = tmp_path / "probe"
    probe.mkdir()
    (probe / "warm_probe.py").write_text("import os\nCALLED_IN = []\n\ndef mark():\n    CALLED_IN.append(os.getpid())\n")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(probe), os.environ.get("PYTHONPATH", "")]))
    preload = [*SMALL_PRELOAD, "warm_probe:mark", "warm_probe:no_such_function"]
    km, kc = kernel({"preload": preload})
    km2, kc2 = kernel({"preload": preload})
    assert km.provisioner.launched_by == km2.provisioner.launched_by == "forked"
    for client in (kc, kc2):
        text, status = run(client, "import os, warm_probe; print(warm_probe.CALLED_IN == [os.getppid()])")
        assert (text.strip(), status) == ("True", "ok")  # called once, by the template, before the fork
    failed = [r.getMessage() for r in caplog.records if "could not import" in r.getMessage()]
    assert len(failed) == 1 and "warm_probe:no_such_function" in failed[0] and "AttributeError" in failed[0]


def test_a_template_that_fails_falls_back_to_a_normal_launch(kernel, caplog):
    # 1 ms is not enough to import ipykernel: the template start fails and the kernel is launched normally
    km, kc = kernel({"template_timeout": 0.001, "preload": ["ipykernel.kernelapp", "json"]})
    assert km.provisioner.launched_by.startswith("launched: forking failed")
    assert any("launching it normally" in r.getMessage() for r in caplog.records)
    assert run(kc, "import os; print(os.getppid())")[0].strip() == str(os.getpid())  # our own child
    km.shutdown_kernel()
    assert not km.is_alive()


def test_without_fork_the_kernel_is_launched_normally(kernel, monkeypatch):
    from explorer.hosting.server import provisioner

    monkeypatch.setattr(provisioner, "fork_supported", lambda: (False, "this platform cannot fork"))
    km, kc = kernel()
    assert km.provisioner.launched_by == "launched: this platform cannot fork"
    assert run(kc, "import os; print(os.getppid())")[0].strip() == str(os.getpid())
    km, kc = kernel({"fork": False})
    assert km.provisioner.launched_by == "launched: ForkProvisioner.fork is False"


# ---------------------------------------------------------------- the server, as voila.json configures it
@pytest.fixture(scope="module")
def forked_server():
    """The app with voila.json's provisioner and a pool of 2; idle unconnected kernels culled after 20 s."""
    srv = Server("forked", "--MappingKernelManager.cull_idle_timeout=20", "--MappingKernelManager.cull_interval=2",
                 pool_size=2, ready_timeout=300)
    yield srv
    srv.stop()


@pytest.mark.server
def test_voila_pool_kernels_are_forked_and_serve_viewers(forked_server):
    log = forked_server.log.read_text()
    assert "Kernel template" in log and "ready" in log
    templates = cl.kernel_templates(forked_server.proc.pid)
    assert len(templates) == 1
    kernels = cl.children(forked_server.proc.pid)
    assert len(kernels) >= 2 and all(cl._direct_children(templates[0]).count(k) for k in kernels)
    assert log.count("forked from template") >= 2 and "launching it normally" not in log
    ok, _ = cl.viewer_handshake(forked_server.url, timeout=300)
    assert ok


def _summary_and_slider(states: dict) -> tuple[str, str, dict]:
    """(summary HTML comm id, the training tokens slider's comm id, its state) of one viewer's app.

    The tokens slider is the log slider with the largest value (1e12 by default; the model size's is 7e9): moved to
    its low end it changes the summary. (The first float slider in the states, picked before, could be one that
    changes nothing in the default scenario: in a kernel that took the template's app, the states did not come in
    the order the widgets were built in.)
    """
    summary = next(c for c, s in states.items() if "explorer-summary" in s["state"].get("_dom_classes", ()))
    slider = max((c for c, s in states.items() if s["state"].get("_model_name") == "FloatLogSliderModel"),
                 key=lambda c: states[c]["state"]["value"])
    return summary, slider, states[slider]["state"]


@pytest.mark.server
def test_a_widget_value_set_by_one_viewer_is_not_seen_by_another(forked_server):
    pages, sockets = [], []
    for _ in range(2):  # each page connects at once, as a browser does (an unconnected kernel is culled)
        pages.append(cl.get_page(forked_server.url, timeout=300))
        assert pages[-1].status == 200 and pages[-1].kernel_id
        sockets.append(cl.connect(forked_server.url, pages[-1].kernel_id, v1=True, timeout=120, cookie=pages[-1].cookie))
    assert pages[0].kernel_id != pages[1].kernel_id
    try:
        before = [cl.widget_states(ws, timeout=120) for ws in sockets]
        summary_a, slider_a, state = _summary_and_slider(before[0])
        summary_b, slider_b, _ = _summary_and_slider(before[1])
        low = state["base"] ** state["min"] if "base" in state else state["min"]  # a log slider's bounds are exponents
        assert state["value"] != low
        new = low
        cl.send_comm_msg(sockets[0], slider_a, {"method": "update", "state": {"value": new}, "buffer_paths": []},
                         v1=True)
        deadline = time.monotonic() + 120
        while True:  # viewer A's summary follows its slider
            after_a = cl.widget_states(sockets[0], timeout=120)
            if after_a[summary_a]["state"]["value"] != before[0][summary_a]["state"]["value"]:
                break
            assert time.monotonic() < deadline, "viewer A's summary did not change"
            time.sleep(0.2)
        assert after_a[slider_a]["state"]["value"] == new
        after_b = cl.widget_states(sockets[1], timeout=120)
        assert after_b[slider_b]["state"]["value"] == before[1][slider_b]["state"]["value"] != new
        assert after_b[summary_b]["state"]["value"] == before[1][summary_b]["state"]["value"]
    finally:
        for ws in sockets:
            ws.close()


@pytest.mark.server
def test_an_idle_forked_kernel_is_culled_through_the_provisioner(forked_server):
    page = cl.get_page(forked_server.url, timeout=300)  # a page read, its kernel never connected
    assert page.status == 200 and page.kernel_id
    pid = cl.forked_kernel_pid(forked_server.log, page.kernel_id)
    assert pid is not None, "the viewer's kernel was not forked"
    assert not ended(pid)
    wait_until(lambda: not cl.kernel_exists(forked_server.url, page.kernel_id), 120, "the idle kernel was not culled")
    wait_until(lambda: ended(pid), 60, "the culled kernel's process outlived it")


# --- widget messages held until a page asks (explorer/hosting/kernel/held_widgets.py) ----------------------------------

def _iopub_of(kc, msg_id: str, timeout: float = 120) -> list[dict]:
    """The IOPub messages of one request, up to the kernel's idle status after it."""
    found = []
    deadline = time.monotonic() + timeout
    while True:
        msg = kc.get_iopub_msg(timeout=max(deadline - time.monotonic(), 0.1))
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        found.append(msg)
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            return found


def _widget_messages(msgs: list[dict]) -> list[tuple[str, str]]:
    """(message type, model name or method) of the comm messages among ``msgs``."""
    out = []
    for m in msgs:
        if m["msg_type"] == "comm_open":
            out.append(("comm_open", m["content"]["data"].get("state", {}).get("_model_name", "")))
        elif m["msg_type"] == "comm_msg":
            out.append(("comm_msg", m["content"]["data"].get("method", "")))
    return out


def _execute(kc, code: str) -> list[dict]:
    msgs = _iopub_of(kc, kc.execute(code))
    errors = [m["content"] for m in msgs if m["msg_type"] == "error"]
    assert not errors, errors
    return msgs


def _request_states(kc) -> dict:
    """What a page's widget manager does first: open the control comm and ask for every widget's state."""
    import uuid

    control = uuid.uuid4().hex
    kc.session.send(kc.shell_channel.socket, "comm_open",
                    {"comm_id": control, "target_name": "jupyter.widget.control", "data": {}},
                    metadata={"version": "1.0.0"})
    asked = kc.session.send(kc.shell_channel.socket, "comm_msg",
                            {"comm_id": control, "data": {"method": "request_states"}})
    for m in _iopub_of(kc, asked["header"]["msg_id"]):
        if m["msg_type"] == "comm_msg" and m["content"]["comm_id"] == control:
            return m["content"]["data"]["states"]
    raise AssertionError("no reply to request_states")


def _stdout(msgs: list[dict]) -> str:
    return "".join(m["content"].get("text", "") for m in msgs if m["msg_type"] == "stream")


def test_widget_messages_are_held_until_a_page_asks_then_sent(kernel):
    """Before a page: a slider made, moved and relabelled sends nothing. The page's request_states gets its
    state as it is now (5, 'x'); the page moves it (7); after that every message goes out as usual."""
    _, kc = kernel()
    before = _execute(kc, "import ipywidgets as w\ns = w.IntSlider(value=1)\ns.value = 5\ns.description = 'x'\n"
                          "print(s.model_id)")
    model_id = _stdout(before).strip()
    assert _widget_messages(before) == []  # not a comm_open, not an update
    states = _request_states(kc)
    assert states[model_id]["state"]["value"] == 5 and states[model_id]["state"]["description"] == "x"
    kc.session.send(kc.shell_channel.socket, "comm_msg", {"comm_id": model_id, "data": {
        "method": "update", "state": {"value": 7}, "buffer_paths": []}})  # the page reaches the held widget
    assert _stdout(_execute(kc, "print(s.value)")).strip() == "7"
    after = _widget_messages(_execute(kc, "b = w.Button()\ns.value = 9"))
    assert ("comm_open", "ButtonModel") in after and ("comm_msg", "update") in after


def test_an_older_page_asking_which_widgets_exist_releases_them(kernel):
    """A front end without the control comm asks comm_info first: the held widgets are listed and then talk."""
    _, kc = kernel()
    made = _execute(kc, "import ipywidgets as w\nt = w.Text()\nt.value = 'held'\nprint(t.model_id)")
    model_id = _stdout(made).strip()
    assert _widget_messages(made) == []  # held before the page asks: its release is what the rest tests
    asked = kc.session.send(kc.shell_channel.socket, "comm_info_request", {"target_name": "jupyter.widget"})
    reply = kc.get_shell_msg(timeout=120)
    while reply["parent_header"].get("msg_id") != asked["header"]["msg_id"]:
        reply = kc.get_shell_msg(timeout=120)
    assert model_id in reply["content"]["comms"]
    assert ("comm_msg", "update") in _widget_messages(_execute(kc, "t.value = 'now sent'"))


def test_output_widgets_and_kernels_that_send_everything_are_not_held(kernel):
    """An Output widget opens at once (nbclient captures a cell's output into it only when it sees it open);
    ``hold_widget_messages = False`` sends every message as a kernel normally does."""
    _, held = kernel()
    assert _widget_messages(_execute(held, "import ipywidgets as w\no = w.Output()\ns = w.IntSlider()")) == [
        ("comm_open", "OutputModel")]
    _, sending = kernel({"hold_widget_messages": False})
    sent = _widget_messages(_execute(sending, "import ipywidgets as w\ns = w.IntSlider()"))
    assert sorted(sent) == [("comm_open", m) for m in ("IntSliderModel", "LayoutModel", "SliderStyleModel")]


# --- the app built in the template and taken by each kernel (explorer/app/prebuilt.py) ------------------------

APP_PRELOAD = [*SMALL_PRELOAD, "explorer.app", "explorer.app.prebuilt:prebuild"]
_APP_STATE = ("from explorer.app.prebuilt import take_app\n"
              "app = take_app()\n"
              "print(app.summary.model_id, app.controls['params'].model_id, app.controls['params'].value)")


def test_a_kernel_takes_the_app_its_template_built_and_a_page_can_use_it(kernel):
    """take_app() in a forked kernel gives the template's app (its widgets held like any until a page asks):
    the page's request_states gets its widgets, and a message to one of them reaches the app, which answers."""
    km, kc = kernel({"preload": APP_PRELOAD})
    assert km.provisioner.launched_by == "forked"  # building the app left no thread behind in the template
    taken = _execute(kc, _APP_STATE + "\nprint(take_app() is app)")
    summary, params, value, again = _stdout(taken).split()
    assert _widget_messages(taken) == [] and again == "False"  # held; a second call builds a new app
    states = _request_states(kc)
    assert summary in states and params in states
    assert "explorer-summary" in states[summary]["state"]["_dom_classes"]
    new = float(value) * 2
    kc.session.send(kc.shell_channel.socket, "comm_msg", {"comm_id": params, "data": {
        "method": "update", "state": {"value": new}, "buffer_paths": []}})  # as the page's slider does
    deadline = time.monotonic() + 120
    while _request_states(kc)[summary]["state"]["value"] == states[summary]["state"]["value"]:
        assert time.monotonic() < deadline, "the taken app's summary did not follow its control"
        time.sleep(0.2)
    assert float(_stdout(_execute(kc, "print(app.scenario.params)"))) == new


def test_a_kernel_that_does_not_take_the_app_shows_none_of_its_widgets(kernel):
    """The app put aside in the template is not in a kernel's widget registry or comm manager until taken:
    a lesson's page, or a notebook of its own, gets none of its 270 widgets."""
    _, kc = kernel({"preload": APP_PRELOAD})
    own = _stdout(_execute(kc, "import ipywidgets as w, comm\ns = w.IntSlider()\n"
                               "print(len(w.Widget.widgets), len(comm.get_comm_manager().comms))")).split()
    states = _request_states(kc)
    assert len(states) == int(own[0]) < 50 and int(own[1]) < 50
    assert not any("explorer-summary" in s["state"].get("_dom_classes", ()) for s in states.values())


def test_a_kernel_that_sends_everything_opens_the_taken_apps_widgets_with_their_state(kernel):
    """Without held messages the taken app's widgets are opened as a new app's would be: a comm_open each,
    with its state (JupyterLab's kind of front end learns of a widget only from that)."""
    _, kc = kernel({"preload": APP_PRELOAD, "hold_widget_messages": False})
    taken = _execute(kc, _APP_STATE)
    summary = _stdout(taken).split()[0]
    opened = {m["content"]["comm_id"]: m["content"]["data"]["state"] for m in taken if m["msg_type"] == "comm_open"}
    assert len(opened) > 200 and "explorer-summary" in opened[summary]["_dom_classes"]


@pytest.mark.server
def test_ps_names_each_forked_kernel_by_its_id_and_the_template_as_such(forked_server):
    """``ps`` showed every kernel as ``kernel_template.py`` (issue 39): a kernel is ``kernel-<id8>`` now, its
    arguments name its connection file, and the template is ``kernel-template``."""
    page = cl.get_page(forked_server.url, timeout=300)
    assert page.status == 200 and page.kernel_id
    pid = cl.forked_kernel_pid(forked_server.log, page.kernel_id)
    assert pid is not None
    assert Path(f"/proc/{pid}/comm").read_text().strip() == f"kernel-{page.kernel_id[:8]}"
    args = Path(f"/proc/{pid}/cmdline").read_bytes().rstrip(b"\0").decode()
    assert args.startswith("explorer-kernel ipykernel -f ") and f"kernel-{page.kernel_id}.json" in args
    template = cl.kernel_templates(forked_server.proc.pid)[0]
    assert Path(f"/proc/{template}/comm").read_text().strip() == "kernel-template"
