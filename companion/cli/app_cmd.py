"""``chickenfoot app``: open the app (desktop window), or serve it to browsers with ``--web``.

The desktop client (``flet-desktop``) is a separate download Flet fetches on first use; with no
display or no such package here, the command says so and serves the web app instead. The web
app is served fully offline (``no_cdn``): CanvasKit and fonts come from the installed
``flet-web`` package, so phones on the same network can open it with no internet.

Everything that can fail is checked before "serving at" is printed: the port and address (the
listening socket is bound first), the scorekeeper file (opened and read) and ``--models`` (its
``reader.json`` and model files). A failure is one line and exit 2, like every bad input.
Served beyond loopback, the app makes a table code (see :mod:`chickenfoot.app.web`).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path

from chickenfoot.rules.errors import InputError

DEFAULT_PORT = 8550


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "app", help="open the table companion app (or serve it to browsers with --web)",
        description="Open the Chicken Foot companion app. With --web, serve it to browsers fully "
        "offline; with --host 0.0.0.0, phones on the same network can join: they need the table "
        "code printed at start, or the QR code printed with it. Exit 2 with one line when the port, "
        "address, scorekeeper file or models cannot be used.")
    p.add_argument("--web", action="store_true", help="serve the web app instead of a desktop window")
    p.add_argument("--port", type=int, default=None,
                   help=f"port to serve on, 1-65535 (default {DEFAULT_PORT}; 0 picks a free one)")
    p.add_argument("--host", default=None,
                   help="address to listen on (default 127.0.0.1, this computer only; 0.0.0.0 lets "
                   "phones on the network in, with the table code)")
    p.add_argument("--db", default=None, help="scorekeeper file (default: $CHICKENFOOT_DB or the user data folder)")
    p.add_argument("--forget-devices", action="store_true",
                   help="make every device join again with the table code (devices that joined once "
                   "otherwise stay joined when the app is started again)")
    p.add_argument("--models", default=None,
                   help="folder with the tile reader's models, reader.json and its ONNX files "
                   "(default: $CHICKENFOOT_MODELS, else the shipped ones)")
    p.set_defaults(func=run)


def desktop_unavailable() -> str | None:
    """Why the desktop window cannot open here, or None when it can."""
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return "no display"
    if importlib.util.find_spec("flet_desktop") is None:
        return "the desktop client (flet-desktop) is not installed and cannot be downloaded offline"
    return None


def check_models(models: str | None) -> None:
    """A models folder named by ``--models`` or ``$CHICKENFOOT_MODELS`` must hold a readable
    ``reader.json`` and the model files it names (the shipped folder is checked on first use)."""
    named = models or os.environ.get("CHICKENFOOT_MODELS")
    if not named:
        return
    from chickenfoot.vision.reader import ReaderConfig

    base = Path(named).expanduser()
    if not base.is_dir():
        raise InputError(f"--models {named}: no such folder")
    config = ReaderConfig.load(base / "reader.json")
    missing = [f for f in config.model_files if not (base / f).is_file()]
    if missing:
        files = "model file" if len(missing) == 1 else "model files"
        raise InputError(f"--models {named}: {files} missing: {', '.join(missing)}")


def run(args: argparse.Namespace) -> int:
    from chickenfoot.app.shell import AppContext, log_to_stderr, run_desktop
    from chickenfoot.app.web import ServeError, check_port
    from chickenfoot.storage.repository import resolve_db_path

    log_to_stderr()

    web = bool(args.web)
    if args.port is not None:
        check_port(args.port)
    check_models(args.models)
    db = resolve_db_path(args.db)
    if not web:
        why = desktop_unavailable()
        if why:
            print(f"chickenfoot app: the desktop window cannot open here ({why}); "
                  "serving the web app instead.", flush=True)
            web = True
    if not web:
        ctx = AppContext(db, args.models)
        try:
            run_desktop(ctx)
            return 0
        except Exception as exc:  # the client could not start (e.g. its first download failed)
            print(f"chickenfoot app: the desktop window could not start "
                  f"({' '.join(str(exc).split())[:200] or type(exc).__name__}); serving the web app instead.",
                  flush=True)
        finally:
            ctx.store.close()
    try:
        return serve_web(args, db)
    except OSError as exc:  # anything else the network refuses at start
        raise ServeError(f"cannot serve the app: {exc.strerror or exc}") from None


def serve_web(args: argparse.Namespace, db: Path) -> int:
    from chickenfoot.app import web
    from chickenfoot.app.shell import AppContext, web_app

    host = args.host or "127.0.0.1"
    port = args.port if args.port is not None else DEFAULT_PORT
    loopback_only = web.is_loopback(host)
    web.check_flet()  # a Flet release without the names the server relies on: one line, not served
    sock = web.bind(host, port)  # port taken, no such address: one line, before anything else
    try:
        port = sock.getsockname()[1]
        code = None if loopback_only else web.new_code()
        join_key = web.new_join_key() if code else None
        lan = web.lan_addresses() if web.is_wildcard(host) else ([] if loopback_only else [host])
        # the network address phones reach, else the one served on
        reached = web.url_host(lan[0]) if lan else "127.0.0.1" if web.is_wildcard(host) else web.url_host(host)
        invite = f"http://{reached}:{port}/join?key={join_key}" if code else None
        ctx = AppContext(db, args.models, web=True, invite_url=invite, table_code=code)
    except BaseException:
        sock.close()
        raise
    shown = "127.0.0.1" if web.is_wildcard(host) else web.url_host(host)
    print(f"Chicken Foot companion: serving at http://{shown}:{port}/ (offline; scorekeeper file {db})",
          flush=True)
    for ip in lan:
        print(f"  phones on this network: http://{web.url_host(ip)}:{port}/", flush=True)
    if code:
        print(f"  table code: {code}  (every device types it once, this computer's browser too)",
              flush=True)
        assert invite is not None
        print(f"  or scan this QR code to join, which holds a key no guessing reaches ({invite}):",
              flush=True)
        print(web.qr_text(invite), end="", flush=True)
    print("Press Ctrl+C to stop.", flush=True)
    devices = None
    if code:  # phones that joined stay joined across a restart (see web.table_key, web.JoinedDevices)
        key_path = ctx.db_path.with_name(ctx.db_path.stem + "-table.key")
        listed = ctx.db_path.with_name(ctx.db_path.stem + "-table-devices.json")
        joined_before = key_path.exists() and not listed.exists() and not args.forget_devices
        try:
            key = web.table_key(key_path, args.forget_devices)
        except OSError as exc:
            print(f"  (joined devices will join again after a restart: the key file cannot be kept: "
                  f"{exc.strerror or exc})", flush=True)
        else:
            devices = web.JoinedDevices(key, listed, forget=args.forget_devices)
            if devices.unread:
                print(f"  (every device joins again with the code: {devices.unread})", flush=True)
            elif joined_before:
                print(f"  (every device joins again with the code: the list of devices that joined, {listed}, "
                      "is missing)", flush=True)
    app = web_app(ctx, port=port, loopback_only=loopback_only, code=code, join_key=join_key, devices=devices)
    web.serve(app, sock, on_stop=ctx.store.close)
    return 0
