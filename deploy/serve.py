"""Serve the explorer: N Voila processes on 127.0.0.1 behind one nginx.

Everything nginx writes (pid, logs, temp files, static cache) and the rendered config live in
one prefix directory, so this runs unprivileged, as root, and in CI::

    python deploy/serve.py --processes 2 --listen 127.0.0.1:8080            # temp prefix
    python deploy/serve.py --processes 4 --listen 0.0.0.0:80 --prefix /srv/explorer-nginx \\
        --exempt 10.0.0.0/8 -- --preheat_kernel=True --pool_size=2          # options after --
                                                                             # go to each Voila
    python deploy/serve.py --render-only --prefix /srv/explorer-nginx \\
        --backend 127.0.0.1:8866 --backend 127.0.0.1:8867                   # just write the config

Ctrl-C (or SIGTERM) stops nginx and every Voila it started.  See docs/deploy.md.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = Path(__file__).with_name("nginx.conf.in")
NOTEBOOK = "explorer/notebooks/explorer.ipynb"

# Defaults for a public deployment; docs/deploy.md says why each is what it is.
DEFAULTS = dict(
    page_rate="6r/m",      # one new page (= one kernel) per 10 s per address, sustained ...
    page_burst=5,          # ... after 6 at once (a reload or two, a few tabs)
    asset_rate="50r/s",    # static files, websocket handshakes, kernel REST calls, beacons
    asset_burst=500,       # a cold page fetches ~100 at once; a few tabs at once must not break
    conn_per_ip=40,        # concurrent requests + open websockets per address
    max_args=100,          # query keys; the app knows a few dozen
    header_timeout="5s",   # a request head must arrive within this (slow-header clients)
    worker_connections=8192,  # one address must open 8,192 slow heads every 5 s to fill nginx
    worker_rlimit=16384,   # file descriptors per worker: two per proxied connection
)


def find_nginx() -> str | None:
    """The nginx binary: on PATH, or Debian's /usr/sbin/nginx (not on a user's PATH)."""
    found = shutil.which("nginx")
    if found:
        return found
    return "/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None


def find_voila() -> str:
    sibling = Path(sys.executable).with_name("voila")
    return str(sibling) if sibling.exists() else (shutil.which("voila") or "voila")


def render(prefix: Path, listen: str, backends: list[str], *, exempt: tuple[str, ...] = (),
           tls: bool = False, worker_user: str | None = None, **limits) -> Path:
    """Write ``prefix/nginx.conf`` from the template and create the directories it names.

    ``limits`` overrides entries of ``DEFAULTS``.  Returns the path of the written config.
    """
    unknown = set(limits) - set(DEFAULTS)
    if unknown:
        raise ValueError(f"unknown nginx settings {sorted(unknown)}; allowed: {sorted(DEFAULTS)}")
    if not backends:
        raise ValueError("backends: at least one Voila address (host:port) is needed")
    values = {**DEFAULTS, **limits}
    prefix = Path(prefix).resolve()
    if worker_user is None and os.geteuid() == 0:
        # as root, nginx's workers run as nobody: they must reach the temp and cache dirs
        private = [p for p in (prefix, *prefix.parents) if p.exists() and not p.stat().st_mode & 0o001]
        if private:
            raise ValueError(f"prefix {prefix}: nginx runs its workers as nobody when started as root, "
                             f"and {private[0]} is not world-searchable; chmod o+x it, choose another "
                             f"prefix, or pass --worker-user")
    for sub in ("logs", "tmp", "cache"):
        (prefix / sub).mkdir(parents=True, exist_ok=True)
    replacements = {
        "PREFIX": str(prefix),
        "USER": f"user {worker_user};" if worker_user else "# user: nginx's default (nobody) when started as root",
        "LISTEN": listen,
        "UPSTREAM_SERVERS": "\n".join(f"        server {b} max_fails=0;" for b in backends),
        "EXEMPT": "\n        ".join(f"{net} 1;" for net in exempt) or "# e.g. 203.0.113.0/24 1;",
        "COOKIE_SECURE": "; Secure" if tls else "",
        "HSTS": ('add_header Strict-Transport-Security "max-age=31536000" always;' if tls
                 else "# HSTS is sent only when rendered with --tls"),
        **{key.upper(): str(value) for key, value in values.items()},
    }
    text = TEMPLATE.read_text(encoding="utf-8")
    for key, value in replacements.items():
        text = text.replace(f"@@{key}@@", value)
    if "@@" in text:
        raise ValueError(f"unfilled placeholder in {TEMPLATE}: {text[text.index('@@'):][:40]!r}")
    conf = prefix / "nginx.conf"
    conf.write_text(text, encoding="utf-8")
    return conf


def nginx_command(nginx: str, prefix: Path, *extra: str) -> list[str]:
    """nginx with every path inside ``prefix`` (``-e``: even the log written before the config)."""
    prefix = Path(prefix).resolve()
    return [nginx, "-p", str(prefix), "-c", str(prefix / "nginx.conf"),
            "-e", str(prefix / "logs" / "error.log"), *extra]


def voila_command(port: int, extra: list[str] = (), root: Path = ROOT, exempt: tuple[str, ...] = (),
                  processes: int = 1) -> list[str]:
    """The server as `make app` starts it, on 127.0.0.1; port_retries=0 so a busy port fails loudly.

    A checkout with the hardened server (``explorer/hosting``: guarded kernel websocket, kernel
    cap, ``_xsrf`` cookie) runs ``python -m explorer.hosting``; otherwise plain ``voila``.
    Both read ``voila.json`` from ``root``, the working directory; since issue 40 the hardened server also reads
    the one in its package (``explorer/hosting/voila.json``), and the notebook is under ``explorer/notebooks``
    (a checkout from before serves its ``notebooks/explorer.ipynb``).

    ``processes``: how many servers this machine runs (``--processes``); a server that sets its kernel cap by
    memory (issue 39) is told, so each plans for its share of the memory, not the whole machine.
    """
    hardened = (Path(root) / "explorer" / "hosting" / "__main__.py").exists()
    program = [sys.executable, "-m", "explorer.hosting"] if hardened else [find_voila()]
    proxied = []
    if hardened and any((Path(root) / "explorer" / "hosting" / where / "seats.py").exists()
                        for where in ("server", ".")):  # hosting/server/ since issue 39; a checkout from before
        # nginx on this machine names the client in X-Real-IP: seats are counted per client address
        proxied = ["--ExplorerVoila.trusted_proxies=127.0.0.1",
                   *[f"--ExplorerVoila.exempt_networks={net}" for net in exempt]]
    if processes > 1 and (Path(root) / "explorer" / "hosting" / "server" / "memory_cap.py").exists():
        proxied.append(f"--ExplorerVoila.processes_sharing_memory={processes}")
    notebook = NOTEBOOK if (Path(root) / NOTEBOOK).exists() else "notebooks/explorer.ipynb"
    return [*program, notebook, "--Voila.ip=127.0.0.1", f"--port={port}", "--no-browser",
            "--Voila.port_retries=0", *proxied, *extra]


def wait_for_port(port: int, timeout_s: float, proc: subprocess.Popen | None = None,
                  host: str = "127.0.0.1") -> bool:
    """True once ``host:port`` accepts connections; False on timeout or if ``proc`` exits."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host, port), timeout=1):
                return True
        except OSError:
            if proc is not None and proc.poll() is not None:
                return False
            time.sleep(0.2)
    return False


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop(procs: list[subprocess.Popen]) -> None:
    """Terminate the given processes (our own children only), newest first."""
    for proc in reversed(procs):
        if proc.poll() is None:
            proc.terminate()
    for proc in reversed(procs):
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    voila_extra: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, voila_extra = argv[:cut], argv[cut + 1:]
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", type=int, default=2, help="Voila processes to start (default 2)")
    parser.add_argument("--ports", help="comma-separated Voila ports (default: free ports)")
    parser.add_argument("--backend", action="append", default=[],
                        help="proxy to an already running Voila host:port instead of starting any")
    parser.add_argument("--listen", default="127.0.0.1:8080", help="nginx listen address (default 127.0.0.1:8080)")
    parser.add_argument("--prefix", help="directory for nginx.conf, pid, logs, temp files (default: a new temp dir)")
    parser.add_argument("--exempt", action="append", default=[],
                        help="client network exempt from the per-address limits (a workshop's NAT), repeatable")
    parser.add_argument("--worker-user", help="user (and group) for nginx's workers when started as root")
    parser.add_argument("--tls", action="store_true", help="render for TLS termination: Secure cookie, HSTS")
    parser.add_argument("--render-only", action="store_true", help="write PREFIX/nginx.conf, check it, print it, exit")
    parser.add_argument("--timeout", type=float, default=120, help="seconds to wait for each process to listen")
    for key, value in DEFAULTS.items():
        parser.add_argument("--" + key.replace("_", "-"), default=value, type=type(value))
    args = parser.parse_args(argv)

    nginx = find_nginx()
    if nginx is None:
        print("nginx not found (apt-get install nginx)", file=sys.stderr)
        return 2
    if args.prefix:
        prefix = Path(args.prefix).resolve()
    else:
        prefix = Path(tempfile.mkdtemp(prefix="explorer-nginx-")).resolve()
        prefix.chmod(0o755)  # nginx's workers (nobody, when started as root) write in it
    limits = {key: getattr(args, key) for key in DEFAULTS}
    procs: list[subprocess.Popen] = []

    if args.backend or args.render_only:
        backends = args.backend or ["127.0.0.1:8866"]
    else:
        ports = ([int(p) for p in args.ports.split(",")] if args.ports
                 else [free_port() for _ in range(args.processes)])
        backends = [f"127.0.0.1:{port}" for port in ports]
        (prefix / "logs").mkdir(parents=True, exist_ok=True)
        for port in ports:
            log = open(prefix / "logs" / f"voila-{port}.log", "w")
            procs.append(subprocess.Popen(voila_command(port, voila_extra, exempt=tuple(args.exempt),
                                                        processes=len(ports)), cwd=ROOT, stdout=log,
                                          stderr=subprocess.STDOUT, start_new_session=True,
                                          env={**os.environ, "PYTHONUNBUFFERED": "1"}))
            log.close()

    try:
        conf = render(prefix, args.listen, backends, exempt=tuple(args.exempt), tls=args.tls,
                  worker_user=args.worker_user, **limits)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        stop(procs)
        return 2
    check = subprocess.run(nginx_command(nginx, prefix, "-t", "-q"), capture_output=True, text=True)
    if check.returncode != 0:
        print(check.stderr, file=sys.stderr)
        stop(procs)
        return 1
    if args.render_only:
        print(conf.read_text(encoding="utf-8"))
        return 0

    def on_signal(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_signal)
    try:
        for proc, backend in zip(procs, backends):
            if not wait_for_port(int(backend.rsplit(":", 1)[1]), args.timeout, proc):
                print(f"Voila on {backend} did not start; see {prefix}/logs/", file=sys.stderr)
                return 1
        procs.append(subprocess.Popen(nginx_command(nginx, prefix, "-g", "daemon off;"), cwd=prefix))
        host, _, port = args.listen.rpartition(":")
        if not wait_for_port(int(port), 15, procs[-1], host if host not in ("", "0.0.0.0", "*") else "127.0.0.1"):
            print(f"nginx did not start; see {prefix}/logs/error.log", file=sys.stderr)
            return 1
        print(f"serving on http://{args.listen}/ -> {', '.join(backends)}; prefix {prefix}", flush=True)
        while all(proc.poll() is None for proc in procs):
            time.sleep(1)
        print("a process exited; stopping the rest", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    finally:
        stop(procs)


if __name__ == "__main__":
    sys.exit(main())
