"""``llm-cost-explorer app | workshop | kit | lab``: the package's notebooks served from wherever it is installed.

The notebooks ship in the package (``explorer/notebooks/``: the app, the claims page, the lessons, the
analyst's tour) with the server's settings (``explorer/hosting/voila.json``), so an installed wheel serves
them as a checkout does; ``make app`` and ``make workshop`` call these commands with their defaults.

* ``app``: the app, read-only, on http://127.0.0.1:8866 (the hardened Voila of :mod:`explorer.hosting.server.server`
  with voila.json's settings: forked kernels, the preheated pool that follows demand). ``--pool N`` keeps N
  preheated kernels as a floor, refilled a minute after use (a class arriving at once).
* ``workshop``: the lessons and the claims page, read-only, on http://127.0.0.1:8867, sized for a class of
  ``--class`` students (docs/workshop.md): ``ceil(class / 2)`` preheated kernels for lesson 1 in each
  language, at most ``2 × class`` viewers' kernels, and that whole budget open to one client address (a room
  behind one NAT address; the app keeps its 6 seats per address). ``--trusted-proxy`` names nginx's address
  so that its ``X-Real-IP`` / ``X-Forwarded-For`` name the student (docs/workshop.md, "Behind nginx").
* ``kit``: the lecturer's kit (notes per lesson, answer key, handout in en and zh, a static site of the
  lessons) written into ``--out`` (default ``build/kit``), from the lessons' sources shipped in the package.
* ``lab``: JupyterLab on the analyst's notebook (``analyst.ipynb``, copied into ``--dir`` when it holds none),
  where JupyterLab is installed (the ``lab`` extra).

Options the command does not know (``--ExplorerVoila.max_kernels=20``, ``--ServerApp.token=...``) go to the
server as they are. This module starts the server only when a command runs: the CLI's other commands do not
import Voila.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

__all__ = ["NOTEBOOKS", "APP_NOTEBOOK", "FIRST_LESSONS", "register", "app_argv", "workshop_argv", "workshop_sizes",
           "server_argv"]

#: The notebooks shipped in the package (package data of ``explorer``).
NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
APP_NOTEBOOK = NOTEBOOKS / "explorer.ipynb"
ANALYST_NOTEBOOK = NOTEBOOKS / "analyst.ipynb"
#: The lessons a class opens first, preheated by ``workshop`` (paths under :data:`NOTEBOOKS`).
FIRST_LESSONS = ("lessons/en/01_flops_to_dollars.ipynb", "lessons/zh/01_flops_to_dollars.ipynb")
APP_PORT, WORKSHOP_PORT, LAB_PORT = 8866, 8867, 8888
POOL_FILL_DELAY = 60  # [s] app --pool: a used pool kernel is replaced a minute later, not during the rush
WORKSHOP_FILL_DELAY = 600  # [s] late arrivals still find one, and the rush is not slowed by refills
MAX_CLASS = 999


def _count(low: int, high: int | None = None):
    """An argparse type: a whole number from ``low`` to ``high``."""
    def parse(text: str) -> int:
        value = int(text) if text.strip().isdigit() else -1
        if value < low or (high is not None and value > high):
            allowed = f"{low} to {high}" if high is not None else f"{low} or more"
            raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a whole number from {allowed}")
        return value
    return parse


def _network(text: str) -> str:
    """An argparse type: an IP address or network (``127.0.0.1``, ``10.0.0.0/8``), as the server reads it."""
    import ipaddress

    try:
        ipaddress.ip_network(text.strip(), strict=False)
        return text.strip()
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not an IP address or network "
                                         "(e.g. 127.0.0.1 or 10.0.0.0/8)") from None


def app_argv(port: int = APP_PORT, pool: int | None = None, ip: str = "127.0.0.1",
             kernel_at_once: bool = False) -> list[str]:
    """The server's arguments for the app (what ``make app`` ran before it called ``llm-cost-explorer app``).

    ``kernel_at_once``: every page starts its kernel at once, not on the viewer's first touch of the static
    answer (``ExplorerVoila.static_first``, :mod:`explorer.hosting.server.static_page`).
    """
    argv = [str(APP_NOTEBOOK), f"--Voila.ip={ip}", f"--port={port}", "--no-browser"]
    if kernel_at_once:
        argv.append("--ExplorerVoila.static_first=False")
    if pool is not None:
        argv += [f"--pool_size={pool}", f"--VoilaKernelManager.fill_delay={POOL_FILL_DELAY}"]
    return argv


def workshop_sizes(class_size: int, pool: int | None = None, max_kernels: int | None = None,
                   first_lessons: int = 2) -> tuple[int, int]:
    """(preheated kernels per first lesson, cap on viewers' kernels) for a class of ``class_size`` students.

    The class is shared among its ``first_lessons`` (lesson 1 in each language the class may open): one
    language (``--lang en``) preheats the whole class.

    >>> workshop_sizes(30)
    (15, 60)
    >>> workshop_sizes(7), workshop_sizes(12, pool=0, max_kernels=50), workshop_sizes(30, first_lessons=1)
    ((4, 14), (0, 50), (30, 60))
    """
    return (-(-class_size // max(first_lessons, 1)) if pool is None else pool,
            2 * class_size if max_kernels is None else max_kernels)


def workshop_argv(port: int = WORKSHOP_PORT, class_size: int = 30, pool: int | None = None,
                  max_kernels: int | None = None, fill_delay: int = WORKSHOP_FILL_DELAY,
                  first: tuple[str, ...] = FIRST_LESSONS, ip: str = "127.0.0.1",
                  seats_per_address: int | None = None, trusted_proxies: tuple[str, ...] = ()) -> list[str]:
    """The server's arguments for the workshop: directory mode over :data:`NOTEBOOKS`, sized for the class.

    Every lesson's pool follows demand (:mod:`explorer.hosting.server.demand_pool`) from the sizes of
    :func:`workshop_sizes`, so ``pool=0`` preheats nothing at start but keeps the pools on.

    The seats one client address may hold are the class's budget, the kernel cap (``seats_per_address=None``;
    with no cap, none per address either): a room of 30 behind one NAT address was refused at the public
    app's 6 per address (0 of 30 served, issue 42). ``trusted_proxies``: networks whose forwarded headers
    name the client (nginx on this machine: ``127.0.0.1``).
    """
    pool_size, cap = workshop_sizes(class_size, pool, max_kernels, len(first))
    per_address = cap if seats_per_address is None else seats_per_address
    pools = {"default": {"pool_size": 0}, **{nb: {"pool_size": pool_size} for nb in first}}
    return [str(NOTEBOOKS), f"--Voila.ip={ip}", f"--port={port}", "--no-browser",
            f"--ExplorerVoila.max_kernels={cap}", f"--ExplorerVoila.seats_per_address={per_address}",
            *[f"--ExplorerVoila.trusted_proxies={net}" for net in trusted_proxies], "--preheat_kernel=True",
            f"--VoilaKernelManager.fill_delay={fill_delay}",
            f"--VoilaKernelManager.kernel_pools_config={json.dumps(pools)}"]


def _serve(argv: list[str]) -> int:
    from explorer.hosting.upstream_names import require

    require()  # a missing upstream name stops the server here, with one line naming it (exit status 3)
    from explorer.hosting.server.server import main

    main(argv)
    return 0


def server_argv(args: argparse.Namespace) -> list[str]:
    """The server's arguments for a parsed ``app`` or ``workshop`` command line (less the options passed on)."""
    if args.command == "app":
        return app_argv(args.port, args.pool, args.ip, getattr(args, "kernel_at_once", False))
    return workshop_argv(args.port, args.class_size, args.pool, args.max_kernels, args.fill_delay,
                         _first_lessons(args), args.ip, args.seats_per_address,
                         tuple(args.trusted_proxy or ()))


def _first_lessons(args: argparse.Namespace) -> tuple[str, ...]:
    """The lessons preheated: ``--first``'s, else lesson 1 in ``--lang`` (both languages by default)."""
    if args.first:
        return tuple(args.first)
    lang = getattr(args, "lang", None) or "both"
    return FIRST_LESSONS if lang == "both" else tuple(nb for nb in FIRST_LESSONS if f"/{lang}/" in nb)


def with_options(argv: list[str], extra: list[str]) -> list[str]:
    """``argv`` and then ``extra``, less the options of ``argv`` that ``extra`` sets again (``--Name.key=``).

    The server refuses a one-value setting given twice (``seats_per_address only accepts one value``), so an
    option passed on replaces the command's own.

    >>> with_options(["nb", "--ExplorerVoila.max_kernels=60", "--port=1"], ["--ExplorerVoila.max_kernels=20"])
    ['nb', '--port=1', '--ExplorerVoila.max_kernels=20']
    """
    keys = {e.split("=", 1)[0] for e in extra if e.startswith("--") and "=" in e}
    return [a for a in argv if not (a.startswith("--") and a.split("=", 1)[0] in keys)] + list(extra)


def _app(args: argparse.Namespace, extra: list[str]) -> int:
    return _serve(with_options(server_argv(args), extra))


def _workshop(args: argparse.Namespace, extra: list[str]) -> int:
    pool_size, cap = workshop_sizes(args.class_size, args.pool, args.max_kernels, len(_first_lessons(args)))
    print(f"Workshop index: http://{args.ip}:{args.port}/voila/render/lessons/index.ipynb")
    print(f"Sized for a class of {args.class_size}: {pool_size} preheated kernels per first lesson, "
          f"at most {cap} viewers' kernels", flush=True)
    return _serve(with_options(server_argv(args), extra))


def _kit(args: argparse.Namespace, extra: list[str]) -> int:
    if extra:
        print(f"error: kit does not take {' '.join(extra)[:80]!r} (see --help)", file=sys.stderr)
        return 2
    spec = importlib.util.spec_from_file_location("build_kit", NOTEBOOKS / "lessons" / "build_kit.py")
    assert spec is not None and spec.loader is not None  # a .py file: the path's loader
    build_kit = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build_kit)
    return build_kit.main(["--out", args.out, "--class-url", args.class_url])


def _lab(args: argparse.Namespace, extra: list[str]) -> int:
    if importlib.util.find_spec("jupyterlab") is None:
        print("error: JupyterLab is not installed here; install the lab extra: "
              "pip install 'llm-cost-explorer[lab]'", file=sys.stderr)
        return 2
    folder = Path(args.dir).resolve()
    notebook = folder / ANALYST_NOTEBOOK.name
    if not notebook.exists():  # a copy of the analyst's tour to edit, not the installed file
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ANALYST_NOTEBOOK, notebook)
    return subprocess.call([sys.executable, "-m", "jupyterlab", str(notebook), f"--ServerApp.root_dir={folder}",
                            f"--ServerApp.ip={args.ip}", f"--port={args.port}", *extra])


def register(sub, prog: str) -> None:
    """Add ``app``, ``workshop``, ``kit`` and ``lab`` to the CLI's subcommands ``sub`` (``prog``: the CLI's name).

    Each sets ``serve(args, extra)`` on the parsed namespace: ``extra`` is the options the command does not
    know, passed on to the server.
    """
    more = "; other options (--ExplorerVoila.max_kernels=20 ...) go to the server"
    app = sub.add_parser("app", help="serve the app read-only on http://127.0.0.1:8866 (hardened Voila)",
                         description=f"Serve the app read-only (the hardened Voila and its voila.json){more}.")
    app.add_argument("--port", type=_count(0, 65535), default=APP_PORT, help="port (0: one the OS picks)")
    app.add_argument("--pool", type=_count(0), default=None,
                     help="keep this many preheated kernels as a floor, refilled a minute after use (a class "
                          "arriving at once); default: voila.json's pool of 4, which follows demand")
    app.add_argument("--ip", default="127.0.0.1", help="address to listen on (0.0.0.0 in a container)")
    app.add_argument("--kernel-at-once", action="store_true",
                     help="start each viewer's kernel with the page (default: the page first shows the link's "
                          "answer without a kernel, and starts one when the viewer first touches it)")
    app.set_defaults(serve=_app)

    shop = sub.add_parser("workshop", help="serve the workshop lessons read-only on http://127.0.0.1:8867",
                          description=f"Serve the lessons and the claims page read-only, sized for a class{more}.")
    shop.add_argument("--port", type=_count(0, 65535), default=WORKSHOP_PORT, help="port (0: one the OS picks)")
    shop.add_argument("--class", dest="class_size", type=_count(1, MAX_CLASS), default=30,
                      help="students in the class (default 30): ceil(class / 2) preheated kernels for lesson 1 "
                           "in each language, at most 2 x class viewers' kernels")
    shop.add_argument("--pool", type=_count(0), default=None, help="preheated kernels per first lesson "
                      "(default ceil(class / 2), the class with --lang; 0: none at start, the pools still follow demand)")
    shop.add_argument("--max-kernels", type=_count(0), default=None, help="viewers' kernels at most "
                      "(default 2 x class; 0: no cap)")
    shop.add_argument("--fill-delay", type=_count(0), default=WORKSHOP_FILL_DELAY,
                      help=f"seconds before a used pool kernel is replaced (default {WORKSHOP_FILL_DELAY})")
    shop.add_argument("--first", action="append", metavar="NOTEBOOK",
                      help="a lesson to preheat, relative to the notebooks (repeat; default: lesson 1 in en and zh)")
    shop.add_argument("--lang", choices=("en", "zh", "both"), default=None,
                      help="the class's language: lesson 1 in it is preheated for the whole class (default both: "
                           "ceil(class / 2) each)")
    shop.add_argument("--ip", default="127.0.0.1", help="address to listen on")
    shop.add_argument("--seats-per-address", type=_count(0), default=None,
                      help="kernels one client address may hold (default: the kernel cap, so a room behind one "
                           "NAT address is served whole; 0: no per-address cap)")
    shop.add_argument("--trusted-proxy", action="append", metavar="NETWORK", type=_network,
                      help="a reverse proxy whose X-Real-IP / X-Forwarded-For name the student (repeat; nginx on "
                           "this machine: 127.0.0.1); from anyone else those headers are ignored")
    shop.set_defaults(serve=_workshop)

    kit = sub.add_parser("kit", help="write the lecturer's kit (notes, answer key, handout, static lessons)",
                         description="Write the lecturer's kit into --out: lecturer notes per lesson, a one-page "
                                     "answer key, a student handout (en, zh) and a static site of the lessons "
                                     "(docs/workshop.md).")
    kit.add_argument("--out", default=str(Path("build") / "kit"), help="output folder (default build/kit)")
    kit.add_argument("--class-url", default=f"http://127.0.0.1:{WORKSHOP_PORT}/voila/render/lessons/index.ipynb",
                     help="the class server's lesson index, printed on the handout (default: the workshop "
                          "command's own)")
    kit.set_defaults(serve=_kit)

    lab = sub.add_parser("lab", help="open JupyterLab on the analyst's notebook (needs the lab extra)",
                         description=f"Open JupyterLab on analyst.ipynb, copied into --dir if it holds none "
                                     f"(needs JupyterLab: pip install 'llm-cost-explorer[lab]'); other "
                                     f"options go to JupyterLab. {prog} lab --dir . opens it here.")
    lab.add_argument("--port", type=_count(0, 65535), default=LAB_PORT, help="port (default 8888)")
    lab.add_argument("--dir", default=".", help="folder to work in (default: the current one)")
    lab.add_argument("--ip", default="127.0.0.1", help="address to listen on")
    lab.set_defaults(serve=_lab)
