"""Shared fixtures: a fresh app for each test, a Voila server on 127.0.0.1 and a headless Debian chromium."""

from __future__ import annotations

import base64
import contextlib
import csv
import io
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings


# Hypothesis profiles. "ci" (the default, `make test`): each property test runs the number of examples it
# asks for (``strategies.examples(n)``) and prints the reproduction blob when it fails. "fast" (`make test-fast`):
# a tenth of them, at least 5, for a quick loop while editing. Choose with --hypothesis-profile=NAME or
# HYPOTHESIS_PROFILE; the header of every run names the profile, and hypothesis prints the failing example and
# the @reproduce_failure blob; --hypothesis-seed=N repeats a run's draws.
settings.register_profile("ci", deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("fast", parent=settings.get_profile("ci"), max_examples=10)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "artifacts"
# The host resolver rule keeps every page on this machine (a host name resolves to nothing) without
# playwright's request routing, which would turn the browser's HTTP cache off.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"]


def _free_port() -> int:
    """A port free now (bound and released: another process may take it before the caller binds it).

    Only for servers that cannot be given port 0 (nginx, the hub, configurable-http-proxy); Voila and
    JupyterLab are started on port 0 and report the port the OS gave them (:func:`port_from_log`).
    """
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_from_log(proc: subprocess.Popen, log: Path, pattern: str, timeout: float) -> int | None:
    """Wait until ``log`` has a line matching ``pattern`` (group 1: the port) and return that port.

    For a server started with port 0: the OS picks a free port when the server binds, and the server
    logs its address. None when the process ends or ``timeout`` [s] passes first.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        found = re.search(pattern, log.read_text(errors="replace")) if log.exists() else None
        if found:
            return int(found.group(1))
        time.sleep(0.1)
    return None


#: Voila's "Voilà is running at:" line, with the address on the next line (explorer.hosting on port 0)
VOILA_RUNNING_AT = r"running at:\s*http://127\.0\.0\.1:(\d+)/"


@dataclass
class CliResult:
    """What ``python -m explorer`` would have returned: exit code and the text written to stdout and stderr."""

    returncode: int
    stdout: str
    stderr: str


def run_cli(*args: str, cwd: str | Path | None = None) -> CliResult:
    """Run ``python -m explorer *args`` in this process: ``explorer.cli.main`` with stdout and stderr captured.

    argparse's own refusals end in ``SystemExit``; its code is the exit code. An exception the CLI lets
    through is not caught (the test fails with it, as the program would end in a traceback).
    ``tests/cli/test_cli.py`` keeps one run of the real program in a subprocess.
    """
    from explorer.cli import main

    out, err = io.StringIO(), io.StringIO()
    before = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        os.chdir(before)
    return CliResult(code or 0, out.getvalue(), err.getvalue())


def open_tab(app, key: str) -> None:
    """Open the app's tab ``key`` (``"compare"``, ``"uncertainty"``, ...) as a viewer's click does: a tab built
    when first shown (History, Compare, Uncertainty, What if, Plan, Models) is built then."""
    from explorer.app.explorer_app import TAB_KEYS

    app.tabs.selected_index = TAB_KEYS.index(key)


def csv_from_link(html_text: str) -> list[dict]:
    """The rows of the CSV in the first ``data:text/csv`` download link of ``html_text`` (an app's HTML widget)."""
    url = re.search(r'href="data:text/csv;charset=utf-8;base64,([^"]+)"', html_text).group(1)
    return list(csv.DictReader(io.StringIO(base64.b64decode(url).decode("utf-8"))))


@contextlib.contextmanager
def app_factory():
    """A factory of fresh headless apps, ``make(query_string="", **kwargs)``, that closes what it built on exit.

    Every call builds its own app (about 0.3 s); keyword arguments go to ``ExplorerApp`` (``scenario=``,
    ``language=``). On exit every widget created inside the ``with`` block is closed (an app holds about
    300, with its figures), so a long run does not keep each test's apps alive until the interpreter exits.
    Tests use it through the :func:`make_app` fixture, or a module-scoped fixture of their own for an app
    shared by a module's tests; ``tests/test_architecture.py`` refuses ``ExplorerApp(`` anywhere else in tests.
    """
    from ipywidgets.widgets import widget as ipywidget

    from explorer.app import ExplorerApp

    before = set(ipywidget._instances)

    def make(query_string: str = "", **kwargs) -> ExplorerApp:
        return ExplorerApp(query_string=query_string, **kwargs)

    try:
        yield make
    finally:
        for model_id in set(ipywidget._instances) - before:
            widget = ipywidget._instances.get(model_id)
            if widget is not None:
                with contextlib.suppress(KeyError):  # its comm already unregistered (closed with its figure)
                    widget.close()


@pytest.fixture
def make_app():
    """A factory of fresh headless apps for one test: ``make_app(query_string="", **kwargs)`` (:func:`app_factory`).

    Every call builds its own app, so no test sees what another one did to it; at the end of the test every
    widget created during it is closed.
    """
    with app_factory() as make:
        yield make


@pytest.fixture
def app(make_app):
    """A fresh app with the default scenario and no link, for one test."""
    return make_app()


class Server:
    """A hardened Voila server (``python -m explorer.hosting``) on 127.0.0.1, as `make app` starts it."""

    def __init__(self, name: str, *options: str, pool_size: int | None = None,
                 notebook: str = "explorer/notebooks/explorer.ipynb", ready_timeout: float = 120.0,
                 env: dict[str, str] | None = None):
        self.port = 0  # the OS picks a free port when the server binds it; read back from the log
        self.url = ""
        self.log = ARTIFACTS / f"voila-{name}.log"
        self.pool_size = pool_size
        ARTIFACTS.mkdir(exist_ok=True)
        # every test client comes from 127.0.0.1: no per-address seat cap unless a test sets one
        per_address = [] if any("seats_per_address" in o for o in options) else ["--ExplorerVoila.seats_per_address=0"]
        # the tests of the live app get it at once (the static first answer has tests of its own:
        # tests/hosting/test_static_first.py, which pass static_first=True)
        if not any("static_first" in o for o in options):
            per_address.append("--ExplorerVoila.static_first=False")
        args = [sys.executable, "-m", "explorer.hosting", notebook, "--Voila.ip=127.0.0.1",
                "--port=0", "--port_retries=0", "--no-browser", *per_address, *options]
        if pool_size is not None:
            args.append(f"--pool_size={pool_size}" if pool_size else "--preheat_kernel=False")
        with open(self.log, "w") as out:
            self.proc = subprocess.Popen(args, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                                         env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})})
        self._wait_ready(ready_timeout)

    def _wait_ready(self, timeout: float = 120.0) -> None:
        """Wait for the server to log its port, then for the preheated pool to fill (its kernels would slow
        the first tests)."""
        deadline = time.monotonic() + timeout
        port = port_from_log(self.proc, self.log, VOILA_RUNNING_AT, timeout)
        if port is None:
            self.stop()
            pytest.fail(f"voila did not start; see {self.log}")
        self.port, self.url = port, f"http://127.0.0.1:{port}/"
        if self.pool_size:
            self.wait_ready_kernels(self.pool_size, max(deadline - time.monotonic(), 0.0))

    def ready_kernels(self) -> int:
        """How many preheated kernels have run the notebook in this server's life (from its log).

        Voila's own "Kernel pool ... is filled" comes when the kernels have only
        started; explorer.hosting logs each one once it is ready for a viewer.
        """
        from explorer.hosting.server.handlers import READY_MARK

        return self.log.read_text().count(READY_MARK)

    def wait_ready_kernels(self, count: int, timeout: float = 300.0) -> None:
        """Wait until :meth:`ready_kernels` reaches ``count`` (or ``timeout`` [s] passes)."""
        deadline = time.monotonic() + timeout
        while self.ready_kernels() < count and time.monotonic() < deadline:
            time.sleep(0.2)

    def stop(self) -> None:
        from clients import children, kernel_templates

        kernels = children(self.proc.pid) + kernel_templates(self.proc.pid)
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        for pid in kernels:  # a server killed hard leaves its kernels behind
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


@pytest.fixture(scope="session")
def server():
    """The app served with the project's voila.json (a preheated pool of 2 to spare CI's two cores)."""
    srv = Server("main", pool_size=2)
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def voila_url(server):
    return server.url


#: How long a browser test's action or wait may take [ms]: generous, since it waits on a condition (a loaded
#: 2-core machine rendered a page in 40 s); a test that is fast is not slowed by it.
BROWSER_WAIT_MS = 120_000


class ConsoleCheckedBrowser:
    """A playwright ``Browser`` whose pages fail the test on any console error or uncaught exception.

    Every page made through :meth:`new_page` or a context of :meth:`new_context`
    records ``console`` messages of type ``error`` and ``pageerror`` events in
    :attr:`errors`; the ``chromium`` fixture fails the test at teardown if any
    was recorded and not expected with :meth:`allow`. Everything else is the
    browser's own API.
    """

    def __init__(self, browser):
        self._browser = browser
        self.errors: list[str] = []
        self._allowed: list[str] = []

    def __getattr__(self, name):
        return getattr(self._browser, name)

    def allow(self, pattern: str) -> None:
        """Expect console errors matching the regular expression ``pattern`` (a test that provokes them)."""
        self._allowed.append(pattern)

    def watch(self, page):
        """Record ``page``'s console errors and uncaught exceptions; return the page.

        Its actions wait up to :data:`BROWSER_WAIT_MS` for their element (playwright's default is 30 s): a
        test waits on the condition it needs, and a machine under load may take longer to get there.
        """
        page.set_default_timeout(BROWSER_WAIT_MS)
        url = lambda: page.url  # noqa: E731 - the page's address when the error came
        page.on("console", lambda msg: self.errors.append(f"console error at {url()}: {msg.text}")
                if msg.type == "error" else None)
        page.on("pageerror", lambda exc: self.errors.append(f"page error at {url()}: {exc}"))
        return page

    def new_page(self, *args, **kwargs):
        return self.watch(self._browser.new_page(*args, **kwargs))

    def new_context(self, *args, **kwargs):
        context = self._browser.new_context(*args, **kwargs)
        context.on("page", self.watch)
        return context

    def unexpected(self) -> list[str]:
        """The recorded errors that no :meth:`allow` pattern matches."""
        return [e for e in self.errors if not any(re.search(p, e) for p in self._allowed)]


@pytest.fixture(scope="session")
def _chromium_browser():
    """Debian's chromium driven by plain playwright (never `playwright install`), one per session."""
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if executable is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed; .ci/run installs it with apt-get")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def chromium(_chromium_browser):
    """The session's chromium, for one test: the test fails on any console error or page error.

    A test that provokes an error on purpose says so with ``chromium.allow(pattern)``.
    """
    browser = ConsoleCheckedBrowser(_chromium_browser)
    yield browser
    unexpected = browser.unexpected()
    if unexpected:
        pytest.fail("the browser logged errors:\n" + "\n".join(e[:400] for e in unexpected), pytrace=False)


def pytest_collection_modifyitems(config, items):
    """Keep each notebook's cells together and in their order: nbval runs them top to bottom in one kernel.

    pytest-randomly shuffles the tests within each module and the modules among themselves; nbval's cells
    belong to no Python module, so it would shuffle the cells of every notebook together. This hook runs after
    the shuffle (randomly reorders in a hook wrapper, before other implementations): each notebook keeps the
    place of its first cell in the shuffled order and its cells run in the notebook's order. It is in this
    conftest, so it applies when ``tests`` is collected (``make test``); ``pytest explorer/notebooks`` alone needs
    ``-p no:randomly``.
    """
    notebooks: dict = {}
    for item in items:
        if hasattr(item, "cell_num"):  # an nbval cell (nbval.plugin.IPyNbCell)
            notebooks.setdefault(item.parent, []).append(item)
    if not notebooks:
        return
    ordered = []
    for item in items:
        if not hasattr(item, "cell_num"):
            ordered.append(item)
        elif item.parent in notebooks:
            ordered.extend(sorted(notebooks.pop(item.parent), key=lambda cell: cell.cell_num))
    items[:] = ordered
