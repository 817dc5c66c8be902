"""Process names in ``ps`` (explorer/hosting/kernel/process_names.py): the short name and the command line, read back
from /proc as ``ps`` reads them."""

from __future__ import annotations

import subprocess
import sys

from explorer.hosting.kernel.process_names import kernel_title


def test_a_kernels_title_names_its_connection_file_and_id():
    argv = ["ipykernel_launcher", "-f", "/run/jupyter/kernel-1a2b3c4d-0000-4000-8000-000000000000.json",
            "--IPKernelApp.parent_handle=7"]
    assert kernel_title(argv) == ("kernel-1a2b3c4d", "explorer-kernel ipykernel -f "
                                  "/run/jupyter/kernel-1a2b3c4d-0000-4000-8000-000000000000.json")
    assert kernel_title(["ipykernel_launcher", "--f=/x/kernel-ab.json"])[0] == "kernel-ab"
    assert kernel_title(["ipykernel_launcher"]) == ("kernel", "explorer-kernel ipykernel")


def test_a_process_named_shows_its_name_and_command_line_in_proc():
    code = ("import os, sys; from explorer.hosting.kernel.process_names import name_this_process; "
            "assert name_this_process('kernel-test1234', 'explorer-kernel ipykernel -f /tmp/kernel-x.json'); "
            "pid = os.getpid(); print(open(f'/proc/{pid}/comm').read().strip()); "
            "print(open(f'/proc/{pid}/cmdline', 'rb').read().rstrip(b'\\0').decode())")
    # a command line long enough to hold the new one, as the template's is (its script path and modules)
    out = subprocess.run([sys.executable, "-c", code, "x" * 80], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    comm, cmdline = out.stdout.splitlines()
    assert comm == "kernel-test1234"
    assert cmdline == "explorer-kernel ipykernel -f /tmp/kernel-x.json"
