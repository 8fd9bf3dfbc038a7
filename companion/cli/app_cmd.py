"""``chickenfoot app``: open the app (desktop window), or serve it to browsers with ``--web``.

The desktop client (``flet-desktop``) is a separate download Flet fetches on first use; with no
display or no such package here, the command says so and serves the web app instead. The web
app is served fully offline (``no_cdn``): CanvasKit and fonts come from the installed
``flet-web`` package, so phones on the same network can open it with no internet.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import socket
import sys

DEFAULT_PORT = 8550


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "app", help="open the table companion app (or serve it to browsers with --web)",
        description="Open the Chicken Foot companion app. With --web, serve it to browsers "
        "(phones on the same network: --host 0.0.0.0) fully offline.")
    p.add_argument("--web", action="store_true", help="serve the web app instead of a desktop window")
    p.add_argument("--port", type=int, default=None,
                   help=f"port to serve on (default {DEFAULT_PORT}; 0 picks a free one)")
    p.add_argument("--host", default=None,
                   help="address to listen on (default 127.0.0.1; 0.0.0.0 lets phones on the LAN in)")
    p.add_argument("--db", default=None, help="scorekeeper file (default: $CHICKENFOOT_DB or the user data folder)")
    p.add_argument("--models", default=None, help="folder with the tile reader's models (default: shipped)")
    p.set_defaults(func=run)


def desktop_unavailable() -> str | None:
    """Why the desktop window cannot open here, or None when it can."""
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return "no display"
    if importlib.util.find_spec("flet_desktop") is None:
        return "the desktop client (flet-desktop) is not installed and cannot be downloaded offline"
    return None


def _free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host if host not in ("", "*", "0.0.0.0") else "", 0))
        return int(s.getsockname()[1])


def _lan_addresses() -> list[str]:
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))  # no packet is sent; this only picks the outgoing interface
            return [s.getsockname()[0]]
    except OSError:
        return []


def run(args: argparse.Namespace) -> int:
    from companion.app.shell import run_app
    from companion.storage.repository import resolve_db_path

    web = bool(args.web)
    if not web:
        why = desktop_unavailable()
        if why:
            print(f"chickenfoot app: the desktop window cannot open here ({why}); "
                  "serving the web app instead.", flush=True)
            web = True
    db = resolve_db_path(args.db)
    host = args.host or "127.0.0.1"
    port = args.port if args.port is not None else DEFAULT_PORT
    if web:
        if port == 0:
            port = _free_port(host)
        # Never try to open a browser on the server, and never fall back to the CDN.
        os.environ["FLET_FORCE_WEB_SERVER"] = "1"
        os.environ["FLET_WEB_NO_CDN"] = "1"
        shown = "127.0.0.1" if host in ("0.0.0.0", "", "*") else host
        print(f"Chicken Foot companion: serving at http://{shown}:{port}/ (offline; scorekeeper file {db})",
              flush=True)
        if host in ("0.0.0.0", "", "*"):
            for ip in _lan_addresses():
                print(f"  phones on this network: http://{ip}:{port}/", flush=True)
        print("Press Ctrl+C to stop.", flush=True)
    if not web:
        try:
            run_app(db, web=False, models_dir=args.models)
            return 0
        except Exception as exc:  # the client could not start (e.g. its first download failed)
            print(f"chickenfoot app: the desktop window could not start "
                  f"({' '.join(str(exc).split())[:200] or type(exc).__name__}); serving the web app instead.",
                  flush=True)
            return run(argparse.Namespace(**{**vars(args), "web": True}))
    run_app(db, web=True, host=host, port=port, models_dir=args.models)
    return 0
