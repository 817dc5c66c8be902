"""File descriptors and memory per kernel and per kernel websocket, measured on a real server (docs/deploy.md).

    python deploy/capacity.py [--pages 3] [--sockets 4]

Starts ``python -m explorer.hosting`` on a free 127.0.0.1 port without a pool and with no per-address
seat cap, loads pages over HTTP, opens kernel websockets to them, and prints one JSON document: the
server's open file descriptors at each step, the server's RSS, and each kernel's RSS. Stops the server.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests import clients as cl  # noqa: E402
from tests.conftest import Server  # noqa: E402


def _fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=3)
    parser.add_argument("--sockets", type=int, default=2, help="websockets per page (the cap per kernel is 2)")
    args = parser.parse_args(argv)
    srv = Server("capacity", "--GuardedKernelWebsocketConnection.max_per_kernel=8", pool_size=0)
    out: dict = {"steps": []}
    try:
        pid = srv.proc.pid
        time.sleep(2)
        out["idle_fds"] = _fds(pid)
        out["idle_server_rss_mb"] = round(cl.rss_mb(pid))
        pages = []
        for _ in range(args.pages):
            pages.append(cl.get_page(srv.url))
            time.sleep(1)
            out["steps"].append({"after": f"page {len(pages)}", "fds": _fds(pid)})
        sockets = []
        for page in pages:
            for _ in range(args.sockets):
                ws = cl.websocket.create_connection(cl.ws_url(srv.url, page.kernel_id, uuid.uuid4().hex),
                                                    subprotocols=[cl.V1], timeout=60, cookie=page.cookie)
                cl.widget_comm_ids(ws, v1=True)
                sockets.append(ws)
                out["steps"].append({"after": f"websocket {len(sockets)}", "fds": _fds(pid)})
        probe = cl.websocket.create_connection(cl.ws_url(srv.url, pages[0].kernel_id, uuid.uuid4().hex),
                                               subprotocols=[cl.V1], timeout=60, cookie=pages[0].cookie)
        sizes: list[int] = []
        recv = probe.recv
        probe.recv = lambda: (lambda frame: sizes.append(len(frame)) or frame)(recv())
        cl.widget_states(probe)
        out["largest_frame_bytes"] = max(sizes)  # the whole widget state: the biggest message a page gets
        probe.close()
        time.sleep(1)
        fd_steps = [s["fds"] for s in out["steps"]]
        page_fds = [b - a for a, b in zip([out["idle_fds"], *fd_steps[:args.pages - 1]], fd_steps[:args.pages])]
        ws_steps = fd_steps[args.pages - 1:]
        out["fds_per_kernel"] = page_fds
        out["fds_per_websocket"] = [b - a for a, b in zip(ws_steps, ws_steps[1:])]
        out["server_rss_mb"] = round(cl.rss_mb(pid))
        out["kernel_rss_mb"] = [round(cl.rss_mb(k)) for k in cl.children(pid)]
        for ws in sockets:
            ws.close()
    finally:
        srv.stop()
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
