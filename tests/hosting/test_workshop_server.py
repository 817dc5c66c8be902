"""`make workshop` for a room: a kernel cap in directory mode, and preheated kernels for the first lesson.

Starts the hardened server over ``explorer/notebooks`` (as `make workshop` does) on a free port and opens pages
over plain HTTP. Each page that renders holds a kernel until the server ends.
"""

from __future__ import annotations

import json
import subprocess
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import conftest
from clients import children, viewer_handshake

LESSON1 = "lessons/en/01_flops_to_dollars.ipynb"

pytestmark = [pytest.mark.server]


class Server(conftest.Server):
    """The hardened server over the ``notebooks`` directory, as `make workshop` starts it."""

    def __init__(self, *options: str, name: str):
        super().__init__(name, *options, notebook="explorer/notebooks", ready_timeout=90.0)

    def get(self, path: str) -> tuple[int, str]:
        url = f"http://127.0.0.1:{self.port}/voila/render/{path}"
        try:
            with urllib.request.urlopen(url, timeout=180) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()

    def wait_log(self, text: str, count: int, timeout: float = 180) -> None:
        deadline = time.monotonic() + timeout
        while self.log.read_text().count(text) < count:
            assert time.monotonic() < deadline, f"{count} x {text!r} not in {self.log}"
            time.sleep(0.5)


def test_kernel_cap_holds_in_directory_mode():
    """`make workshop --ExplorerVoila.max_kernels=2`: the third page gets the busy page (v1 opened it)."""
    server = Server("--preheat_kernel=False", "--ExplorerVoila.max_kernels=2", name="workshop-cap")
    try:
        assert server.get("claims.ipynb")[0] == 200
        assert server.get("claims.ipynb")[0] == 200
        status, body = server.get(LESSON1)
        assert status == 503 and "busy" in body and "繁忙" in body, (status, body[:200])
        assert len(children(server.proc.pid)) == 2  # no third kernel was started
    finally:
        server.stop()


def test_preheated_first_lesson_is_served_and_pool_kernels_are_not_viewers():
    """Kernels waiting in a lesson's pool do not count against the cap; a viewer's kernel does."""
    pools = json.dumps({"default": {"pool_size": 0}, LESSON1: {"pool_size": 2}})
    server = Server("--preheat_kernel=True", f"--VoilaKernelManager.kernel_pools_config={pools}",
                    "--VoilaKernelManager.fill_delay=600", "--ExplorerVoila.max_kernels=1", name="workshop-pool")
    try:
        server.wait_log("waits for a viewer", 2)  # both pool kernels ran the lesson up to the request
        started = time.monotonic()
        status, body = server.get(LESSON1)
        assert status == 200 and "Exercise 1" in body, body[:300]
        assert "Using pre-heated kernel" in server.log.read_text()
        first_render = time.monotonic() - started
        status, _ = server.get("claims.ipynb")  # one viewer holds a kernel: the cap of 1 is reached
        assert status == 503
        print(f"preheated lesson 1 served in {first_render:.1f} s")
    finally:
        server.stop()


ROOT = Path(__file__).resolve().parents[2]


def _workshop_options(*make_args: str) -> list[str]:
    """The server options `make workshop ...` starts the server with, less the directory, address and port.

    `make -n` prints the `llm-cost-explorer workshop ...` line it would run; the CLI's own parser reads it and
    :func:`explorer.hosting.commands.server_argv` gives what that command passes to the server.
    """
    import shlex

    from explorer import cli
    from explorer.hosting import commands

    out = subprocess.run(["make", "-n", "--no-print-directory", "workshop", *make_args], cwd=ROOT,
                         capture_output=True, text=True, timeout=120).stdout
    line = next(ln for ln in out.replace("\\\n", " ").splitlines() if "llm-cost-explorer workshop" in ln)
    words = shlex.split(line)
    args, extra = cli._parser().parse_known_args(words[words.index("workshop"):])
    assert not extra, extra
    return [a for a in commands.server_argv(args)[1:] if not a.startswith(("--Voila.ip", "--port", "--no-browser"))]


def _pools(options: list[str]) -> dict:
    prefix = "--VoilaKernelManager.kernel_pools_config="
    return json.loads(next(o for o in options if o.startswith(prefix))[len(prefix):])


def test_make_workshop_is_sized_from_the_class():
    """CLASS=30 (the default): 15 preheated kernels per language of lesson 1, a cap of 2 × 30 viewers' kernels."""
    for args in ((), ("CLASS=30",)):
        options = _workshop_options(*args)
        assert "--ExplorerVoila.max_kernels=60" in options, options
        assert _pools(options) == {"default": {"pool_size": 0}, LESSON1: {"pool_size": 15},
                                   LESSON1.replace("/en/", "/zh/"): {"pool_size": 15}}
        assert "--VoilaKernelManager.fill_delay=600" in options
    options = _workshop_options("CLASS=7")
    assert "--ExplorerVoila.max_kernels=14" in options and {c["pool_size"] for c in _pools(options).values()} == {0, 4}
    options = _workshop_options("CLASS=12", "MAX_KERNELS=50", "POOL=0")
    assert "--ExplorerVoila.max_kernels=50" in options
    # POOL=0: nothing preheated at start, but the pools stay on so that they can follow demand (demand_pool.py)
    assert "--preheat_kernel=True" in options and "--preheat_kernel=False" not in options
    assert {nb: c["pool_size"] for nb, c in _pools(options).items()} == {"default": 0, LESSON1: 0,
                                                                         LESSON1.replace("/en/", "/zh/"): 0}


@pytest.mark.parametrize("size", ["thirty", "0", "1000", "-3", "2.5"])
def test_a_bad_class_size_stops_with_one_line(size):
    result = conftest.run_cli("workshop", "--class", size)
    assert result.returncode == 2 and result.stdout == "", result
    assert len(result.stderr.strip().splitlines()) == 1 and "--class" in result.stderr
    assert "1 to 999" in result.stderr


def test_a_burst_never_overshoots_the_cap():
    """Six viewers at the same second under a cap of 3: three pages, three busy pages, never a fourth kernel."""
    server = Server("--preheat_kernel=False", "--ExplorerVoila.max_kernels=3", name="workshop-burst")
    try:
        with ThreadPoolExecutor(6) as pool:
            statuses = sorted(status for status, _ in pool.map(lambda _: server.get(LESSON1), range(6)))
        assert statuses == [200, 200, 200, 503, 503, 503], statuses
        assert len(children(server.proc.pid)) == 3
    finally:
        server.stop()


def test_index_and_glossary_hold_no_kernel():
    """Markdown-only notebooks are plain pages: no kernel, served even when the cap is reached."""
    server = Server("--preheat_kernel=False", "--ExplorerVoila.max_kernels=1", name="workshop-static")
    try:
        for path, words in (("lessons/index.ipynb", ("en/01_flops_to_dollars.ipynb", "工作坊")),
                            ("lessons/glossary.ipynb", ("6·N·D", "术语表"))):
            status, body = server.get(path)
            assert status == 200 and all(w in body for w in words), (path, body[:300])
            assert "kernelId" not in body
        assert children(server.proc.pid) == []
        status, body = server.get(LESSON1)  # a lesson takes the one seat
        assert status == 200 and "Exercise 1" in body
        assert server.get("lessons/index.ipynb")[0] == 200  # the index still opens at the cap
        assert server.get("lessons/en/02_utilization_precision.ipynb")[0] == 503  # a lesson does not
        assert len(children(server.proc.pid)) == 1
    finally:
        server.stop()


def test_a_class_of_30_then_15_on_lesson_2_get_no_busy_page():
    """`make workshop CLASS=30`: 30 protocol clients open lesson 1 at once (15 in each language), then 15 of
    them open lesson 2 at once, keeping lesson 1 open. Every page renders and completes the widget handshake;
    none is refused, and the viewers hold 45 kernels under the cap of 60."""
    options = _workshop_options("CLASS=30")
    assert "--ExplorerVoila.max_kernels=60" in options
    server = Server(*options, name="workshop-class30")
    try:
        server.wait_log("waits for a viewer", 30, timeout=1200)  # the pool: 15 + 15 kernels ran lesson 1
        base = server.url
        first = [f"{base}voila/render/{LESSON1.replace('/en/', f'/{lang}/')}" for lang in ("en", "zh")
                 for _ in range(15)]
        with ThreadPoolExecutor(30) as pool:
            lesson1 = list(pool.map(lambda url: viewer_handshake(url, base, timeout=900), first))
        assert all(ok for ok, _ in lesson1), [round(s, 1) for ok, s in lesson1 if not ok]
        second = [f"{base}voila/render/lessons/{lang}/02_utilization_precision.ipynb" for lang in ("en", "zh")
                  for _ in range(8)][:15]
        with ThreadPoolExecutor(15) as pool:
            lesson2 = list(pool.map(lambda url: viewer_handshake(url, base, timeout=900), second))
        assert all(ok for ok, _ in lesson2), [round(s, 1) for ok, s in lesson2 if not ok]
        log = server.log.read_text()
        assert "Busy:" not in log
        print(f"lesson 1: slowest {max(s for _, s in lesson1):.1f} s; lesson 2: slowest "
              f"{max(s for _, s in lesson2):.1f} s")
    finally:
        server.stop()
