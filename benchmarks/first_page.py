"""What the app's first page costs a forked kernel: CPU, widgets and bytes, without a server or a browser.

    python benchmarks/first_page.py                     # 5 kernels, one at a time
    python benchmarks/first_page.py --kernels 8 --query "lang=zh"
    python benchmarks/first_page.py --profile /tmp/fp   # and py-spy samples of the notebook runs (raw)
    python benchmarks/first_page.py --held both         # widget messages sent as they happen, and held, alternating
    python benchmarks/first_page.py --prebuilt both     # the app built in each kernel, and taken from the template

Each kernel is forked from a template that imported voila.json's ``ForkProvisioner.preload`` modules, as
``make app`` starts them (:class:`explorer.hosting.server.provisioner.ForkProvisioner`). The benchmark then does what
Voila and a viewer's page do, over the kernel protocol:

1. runs the code cells of ``explorer/notebooks/explorer.ipynb`` (the app is built and displayed), with the link's
   query in ``QUERY_STRING`` as a kernel started for a request finds it;
2. the page's widget handshake: a ``jupyter.widget.control`` comm and its ``request_states`` (ipywidgets 8
   answers with every widget's state in one message, which the page builds its models from).

Per kernel it reports the kernel's CPU (user + system, from ``/proc``) for each step, the widgets created by
the run (``comm_open`` messages on IOPub), the bytes the kernel sent on IOPub during the run (every frame of
every message, buffers included), and the widgets and bytes of the handshake's reply (what the page
receives before it draws), and the kernel's private memory (USS) after the handshake, before any chart is
drawn for a page. Figures are medians over the kernels; the first kernel is also reported alone
(it pays the first-touch costs a fresh template passes on to every fork).

CPU seconds are what a rush divides among the cores; they are less distorted by a busy machine than wall
time, but not immune to it (cache and frequency): record the load average, which the output includes.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "explorer" / "notebooks" / "explorer.ipynb"


def _cpu_s(pid: int) -> float:
    """User + system CPU of ``pid`` [s] (``/proc/<pid>/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _uss_mb(pid: int) -> float:
    """Private memory of ``pid`` (USS: ``Private_Clean`` + ``Private_Dirty`` of ``/proc/<pid>/smaps_rollup``) [MB]."""
    text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    return sum(int(line.split()[1]) for line in text.splitlines()
               if line.startswith(("Private_Clean:", "Private_Dirty:"))) / 1024


def _cells() -> list[str]:
    nb = json.loads(NOTEBOOK.read_text())
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]


#: The preload entry that builds the app in the template (:mod:`explorer.app.prebuilt`)
PREBUILD = "explorer.app.prebuilt:prebuild"

#: --held and --prebuilt: the modes each choice measures
_CHOICES = {"both": (False, True), "on": (True,), "off": (False,)}


def voila_preload(prebuilt: bool = True) -> list[str]:
    """voila.json's ``ForkProvisioner.preload``; without :data:`PREBUILD` when not ``prebuilt`` (the notebook
    then builds the app in each kernel, the setting before :mod:`explorer.app.prebuilt`)."""
    preload = json.loads((ROOT / "explorer" / "hosting" / "voila.json").read_text())["ForkProvisioner"]["preload"]
    return [m for m in preload if prebuilt or m != PREBUILD]


def _frame_bytes(msg: dict) -> int:
    """Bytes of one message on the wire, as jupyter_client's session packs it (header, parent, metadata,
    content as JSON, plus the binary buffers)."""
    parts = (msg.get("header", {}), msg.get("parent_header", {}), msg.get("metadata", {}), msg.get("content", {}))
    size = sum(len(json.dumps(p, default=str, separators=(",", ":"))) for p in parts)
    return size + sum(len(memoryview(b).cast("B")) for b in msg.get("buffers", []) or [])


def _drain(kc, until_idle_of: str, timeout: float) -> tuple[int, int, list[str]]:
    """Read IOPub until the kernel is idle after ``until_idle_of``; (messages, bytes, comm_open target names)."""
    count = size = 0
    opened: list[str] = []
    deadline = time.monotonic() + timeout
    while True:
        msg = kc.get_iopub_msg(timeout=max(deadline - time.monotonic(), 0.1))
        count += 1
        size += _frame_bytes(msg)
        kind = msg["header"]["msg_type"]
        if kind == "comm_open":
            opened.append(msg["content"].get("target_name", ""))
        elif kind == "error":
            raise RuntimeError("the notebook failed: " + "\n".join(msg["content"].get("traceback", []))[-2000:])
        if (kind == "status" and msg["content"].get("execution_state") == "idle"
                and msg["parent_header"].get("msg_id") == until_idle_of):
            return count, size, opened


def _handshake(kc, timeout: float) -> tuple[int, int]:
    """The page's ``request_states``; (widgets in the reply, bytes of the reply)."""
    control = uuid.uuid4().hex
    session = kc.session
    session.send(kc.shell_channel.socket, "comm_open",
                 {"comm_id": control, "target_name": "jupyter.widget.control", "data": {}},
                 metadata={"version": "1.0.0"})
    session.send(kc.shell_channel.socket, "comm_msg", {"comm_id": control, "data": {"method": "request_states"}})
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        msg = kc.get_iopub_msg(timeout=max(deadline - time.monotonic(), 0.1))
        content = msg["content"]
        if msg["header"]["msg_type"] == "comm_msg" and content.get("comm_id") == control:
            return len(content.get("data", {}).get("states", {})), _frame_bytes(msg)
    raise TimeoutError("no reply to request_states")


def one_kernel(km_factory, query: str, timeout: float, spy_dir: Path | None, index: int) -> dict:
    km = km_factory()
    km.start_kernel(env={**os.environ, "QUERY_STRING": query, "VOILA_PREHEAT": "False"}, cwd=str(NOTEBOOK.parent))
    kc = km.client()
    kc.start_channels()
    spy = None
    try:
        kc.wait_for_ready(timeout=timeout)
        pid = km.provisioner.pid
        cpu0 = _cpu_s(pid)
        if spy_dir is not None and shutil.which("py-spy"):
            spy = subprocess.Popen([shutil.which("py-spy"), "record", "--pid", str(pid), "--rate", "200",
                                    "--nonblocking", "--format", "raw", "--output", str(spy_dir / f"k{index}.txt")],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
            time.sleep(1.0)
        messages = size = 0
        opened: list[str] = []
        start = time.perf_counter()
        for cell in _cells():
            msg_id = kc.execute(cell)
            m, s, o = _drain(kc, msg_id, timeout)
            messages, size, opened = messages + m, size + s, opened + o
        run_wall = time.perf_counter() - start
        cpu1 = _cpu_s(pid)
        states, state_bytes = _handshake(kc, timeout)
        cpu2 = _cpu_s(pid)
        uss = _uss_mb(pid)
        if spy is not None:
            spy.send_signal(signal.SIGINT)
            spy.wait(timeout=60)
        return {"run_cpu_s": round(cpu1 - cpu0, 3), "run_wall_s": round(run_wall, 3),
                "handshake_cpu_s": round(cpu2 - cpu1, 3), "widgets_created": opened.count("jupyter.widget"),
                "iopub_messages": messages, "iopub_bytes": size,
                "widgets_in_state": states, "state_bytes": state_bytes, "uss_mb": round(uss, 1),
                "launched_by": getattr(km.provisioner, "launched_by", "")}
    finally:
        if spy is not None and spy.poll() is None:
            spy.kill()
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def _mode_name(hold: bool, prebuilt: bool, prebuilt_modes: tuple[bool, ...]) -> str:
    name = "held" if hold else "sent"
    if len(prebuilt_modes) > 1 or not prebuilt:
        name += ", app taken from the template" if prebuilt else ", app built in the kernel"
    return name


def run(kernels: int, query: str, timeout: float, spy_dir: Path | None, held: tuple[bool, ...] = (True,),
        prebuilt: tuple[bool, ...] = (True,)) -> dict:
    """Fork ``kernels`` kernels for each mode (widget messages ``held`` or not; the app ``prebuilt`` in the
    template or not: voila.json's preload with or without :data:`PREBUILD`), the modes alternating."""
    from jupyter_client import KernelManager
    from traitlets.config import Config

    from jupyter_client.provisioning import KernelProvisionerFactory

    from explorer.hosting.server.provisioner import stop_templates

    config = Config()
    config.KernelProvisionerFactory.default_provisioner_name = "explorer-fork"
    config.ForkProvisioner.preload = voila_preload()
    config.KernelManager.transport = "ipc"  # as voila.json; the sockets' paths are absolute (the kernel's cwd differs)
    config.KernelManager.ip = str(Path(tempfile.mkdtemp(prefix="first-page-")) / "kernel")
    KernelProvisionerFactory.instance(config=config)  # the factory is a singleton: configured once, here
    if spy_dir is not None:
        spy_dir.mkdir(parents=True, exist_ok=True)
    load = os.getloadavg()
    configs = {}
    for hold in held:
        for taken in prebuilt:
            configs[hold, taken] = copy.deepcopy(config)  # Config(config) would share the ForkProvisioner section
            configs[hold, taken].ForkProvisioner.hold_widget_messages = hold
            configs[hold, taken].ForkProvisioner.preload = voila_preload(taken)
    rows = []
    try:
        for i in range(kernels):
            for mode in configs:  # the modes alternate, so that all see the same machine
                row = one_kernel(lambda: KernelManager(kernel_name="python3", config=configs[mode]), query, timeout,
                                 spy_dir, len(rows))
                rows.append({"held": mode[0], "prebuilt": mode[1], **row})
    finally:
        stop_templates()
    modes = {}
    for hold, taken in configs:
        mine = [r for r in rows if (r["held"], r["prebuilt"]) == (hold, taken)]
        modes[_mode_name(hold, taken, prebuilt)] = {
            "median": {k: statistics.median(r[k] for r in mine) for k in mine[0]
                       if k not in ("launched_by", "held", "prebuilt")},
            "first_kernel": mine[0]}
    out = {"kernels": kernels, "query": query, "load_avg_before": [round(x, 2) for x in load],
           "load_avg_after": [round(x, 2) for x in os.getloadavg()], **modes, "per_kernel": rows}
    if len(held) == 2 and len(prebuilt) == 1:
        sent, kept = (modes[_mode_name(h, prebuilt[0], prebuilt)]["median"] for h in (False, True))
        out["ratio_sent_over_held"] = {k: round(sent[k] / kept[k], 2) for k in sent if kept[k]}
    if len(prebuilt) == 2 and len(held) == 1:
        built, taken = (modes[_mode_name(held[0], p, prebuilt)]["median"] for p in (False, True))
        out["ratio_built_over_taken"] = {k: round(built[k] / taken[k], 2) for k in built if taken[k]}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", type=int, default=5, help="kernels forked and measured, one at a time")
    parser.add_argument("--query", default="", help="the link's query string (QUERY_STRING), e.g. lang=zh")
    parser.add_argument("--timeout", type=float, default=300.0, help="for each step [s]")
    parser.add_argument("--profile", type=Path, help="write py-spy's raw samples of each kernel here (k<i>.txt)")
    parser.add_argument("--held", choices=("both", "on", "off"), default="on",
                        help="widget messages held until the page asks (ForkProvisioner.hold_widget_messages, "
                             "make app's setting: on), sent as they happen (off), or both, alternating kernels")
    parser.add_argument("--prebuilt", choices=("both", "on", "off"), default="on",
                        help="the app built in the template and taken by the notebook (voila.json's preload, "
                             "make app's setting: on), built by the notebook in each kernel (off), or both")
    args = parser.parse_args()
    if args.kernels < 1:
        parser.error("--kernels must be at least 1")
    sys.path.insert(0, str(ROOT))
    out = {"machine_cpus": os.cpu_count(), "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
           "command": " ".join(["python", "benchmarks/first_page.py", *sys.argv[1:]]),
           "run": run(args.kernels, args.query, args.timeout, args.profile,
                      _CHOICES[args.held], _CHOICES[args.prebuilt])}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
