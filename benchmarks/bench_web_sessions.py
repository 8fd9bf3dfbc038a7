"""Memory a closed browser tab leaves on the served app, per session (Python allocations,
``tracemalloc``), while its session is kept for a reconnection and once it is deleted.

The real app (``make_main`` on a temporary scorekeeper file with one match of four players and
three rounds) is served by uvicorn as ``chickenfoot app --web`` serves it, in this process on
loopback; ``--sessions`` WebSocket clients, each from its own loopback address (a device holds
at most ``SESSIONS_PER_DEVICE``), open ``--screen`` (the match's scoreboard by default, its
round screen, or home), wait for it, and close.

    python benchmarks/bench_web_sessions.py [--sessions 30] [--keep 10] [--screen match|round|home]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import sys
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path

import msgpack
from websockets.sync.client import connect

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

def _open_and_close(port: int, route: str, source: str, shows: bytes) -> None:
    own = {"Origin": f"http://127.0.0.1:{port}"}
    page = {"route": route, "web": True, "width": 400, "height": 800}
    with connect(f"ws://127.0.0.1:{port}/ws", additional_headers=own, source_address=(source, 0)) as ws:
        ws.send(b"\x00" + msgpack.packb([1, {"session_id": "", "page_name": "", "page": page}]))
        got = b""
        end = time.monotonic() + 20
        while shows not in got and time.monotonic() < end:
            with contextlib.suppress(TimeoutError):
                got += ws.recv(timeout=0.5)
        if shows not in got:
            raise SystemExit(f"{route} did not arrive")


def _traced() -> int:
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=30)
    ap.add_argument("--keep", type=float, default=10.0, help="seconds a closed session is kept")
    ap.add_argument("--screen", choices=("match", "round", "home"), default="match")
    args = ap.parse_args()

    import uvicorn

    from chickenfoot.app import web
    from chickenfoot.app.shell import AppContext, make_main
    from chickenfoot.storage import Repository

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "matches.json"
        with Repository.open(db) as repo:
            m = repo.create_match(["Zelda", "Yann", "Xavi", "Wren"], "double-chicken-foot")
            for k in range(3):
                repo.add_round(m.id, penalties={"Yann": 12 + k, "Xavi": 30, "Wren": 7}, out="Zelda")
        route = {"match": f"/match/{m.id}", "round": f"/match/{m.id}/round", "home": "/"}[args.screen]
        shows = b"Wren"
        ctx = AppContext(db, web=True)
        sock = web.bind("127.0.0.1", 0)
        port = sock.getsockname()[1]
        gate = web.TableGate(web.flet_app(make_main(ctx), keep_s=args.keep), port=port,
                             loopback_only=True, code=None, uploads=ctx.uploads)
        server = uvicorn.Server(web.server_config(gate))
        thread = threading.Thread(target=lambda: asyncio.run(server.serve(sockets=[sock])), daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.05)
        _open_and_close(port, route, "127.0.0.1", shows)  # the first loads what every session shares
        time.sleep(args.keep + 1)
        tracemalloc.start()
        base = _traced()
        for k in range(args.sessions):
            _open_and_close(port, route, f"127.0.{k // 200 + 1}.{k % 200 + 1}", shows)
        time.sleep(1.0)
        kept = _traced()
        open_apps = len(ctx.sessions)
        time.sleep(args.keep + 1.0)
        after = _traced()
        tracemalloc.stop()
        left_apps = len(ctx.sessions)
        server.should_exit = True
        thread.join(10)
        ctx.store.close()
    n = args.sessions
    print(f"{n} sessions of {route} opened and closed; each kept {args.keep:g} s for a reconnection")
    print(f"  kept (closed, not yet deleted): {(kept - base) / n / 1024:.1f} KB per session "
          f"({open_apps} App objects alive)")
    print(f"  after deletion:                 {(after - base) / n / 1024:.1f} KB per session "
          f"({left_apps} App objects alive)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
