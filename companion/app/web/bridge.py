"""The bridge to Flet's web app (its static files and its ``/ws`` WebSocket handler).

Every private name of Flet the server relies on is here and only here (:data:`FLET_PRIVATE`),
and :func:`check_flet` fails at start, naming them, when a Flet release changes them:

* ``FletApp.__receive_loop`` is wrapped to learn when a client's messages stop (a client gone,
  or a message Flet cannot read: its handler would then wait for its send loop forever);
* ``FletApp.__session`` and ``FletApp.__get_unique_session_id`` name the session a connection
  served, so a closed tab's session is deleted after :data:`SESSION_KEEP_S` (Flet's own sweep
  is an hour) and a device's sessions can be counted and capped (:data:`SESSIONS_PER_DEVICE`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from starlette.websockets import WebSocket  # a module-level name: FastAPI resolves the hint

from chickenfoot.rules.errors import ChickenFootError

from .addresses import address_key
from .answers import ASGIApp
from .devices import DEVICE_SCOPE_KEY

log = logging.getLogger(__name__)

#: Seconds a closed tab's session is kept for the same tab to reconnect to (a network blip, a
#: phone waking up); after that the tab starts a new one (a half-entered round is in its stored
#: draft, so nothing is lost). Flet's own default is an hour; Flet's ``FLET_SESSION_TIMEOUT``
#: sets it (as it does Flet's own timeout).
SESSION_KEEP_S = 60
#: Sessions one device (client address) may hold, its open tabs and its closed tabs' kept
#: sessions together. A new session past it first forgets the device's longest-closed kept
#: session; a device with this many tabs open is refused another (the WebSocket gets 403).
SESSIONS_PER_DEVICE = 10
CRASH_MESSAGE = "Something went wrong on the server (it is logged there). Reload the page."
#: Flet's private names this module uses (name-mangled ``FletApp.__x`` as ``_FletApp__x``).
FLET_PRIVATE = ("_FletApp__receive_loop", "_FletApp__session", "_FletApp__get_unique_session_id")
#: The WebSocket handlers running now (a closed connection's handler leaves within 2 s).
HANDLERS: set[asyncio.Future[Any]] = set()


class FletChanged(ChickenFootError):
    """The installed Flet lacks a private name the server relies on (see :data:`FLET_PRIVATE`)."""


def check_flet() -> None:
    """Raise :class:`FletChanged`, naming what is missing, unless Flet's web app still has
    every name in :data:`FLET_PRIVATE`."""
    from flet_web.fastapi import FletApp

    probe = FletApp(loop=None, executor=None, main=None, before_main=None)  # type: ignore[arg-type]
    missing = [n for n in FLET_PRIVATE if not hasattr(probe, n)]
    if missing:
        import flet

        raise FletChanged(f"flet {flet.__version__} has no {', '.join(missing)}: the web server "
                          "relies on them (chickenfoot/app/web/bridge.py)")


def is_gone(exc: BaseException) -> bool:
    """Whether ``exc`` only says the session's browser went away while the server waited for
    it (a file dialog open when the tab closed): nothing failed, nobody is left to tell."""
    from flet.controls.exceptions import FletPageDisconnectedException

    if isinstance(exc, FletPageDisconnectedException | BrokenPipeError):
        return True
    # what Flet's Session.close() resolves a pending call to the browser with
    return isinstance(exc, RuntimeError) and str(exc) == "Session closed"


_DEVICE_OF: dict[int, str] = {}


def device_of(page: Any) -> str | None:
    """The joined device (:class:`~.devices.JoinedDevices`) whose connection the session of
    ``page`` last came back on; None without a table code, or outside the served web app."""
    return _DEVICE_OF.get(id(page))


def note_device(page: Any, device: str) -> None:
    """Name the joined device the session of ``page`` is served to (see :func:`device_of`)."""
    _DEVICE_OF[id(page)] = device
    weakref.finalize(page, _DEVICE_OF.pop, id(page), None)


class Devices:
    """The sessions each device (:func:`address_key`) holds, oldest first, and the new ones
    still registering, for :data:`SESSIONS_PER_DEVICE`."""

    def __init__(self, most: int = SESSIONS_PER_DEVICE) -> None:
        self.most = most
        self.sessions: dict[str, OrderedDict[str, Any]] = {}
        self.starting: dict[str, int] = {}

    def held(self, device: str) -> int:
        return len(self.sessions.get(device, ())) + self.starting.get(device, 0)

    def total(self) -> int:
        return sum(len(s) for s in self.sessions.values())

    async def make_room(self, device: str) -> bool:
        """Room for one more session of ``device``: its longest-closed kept sessions are
        forgotten until there is; False when its open tabs alone fill it."""
        from flet_web.fastapi import app_manager

        held = self.sessions.get(device, OrderedDict())
        waited = 0
        while self.held(device) >= self.most:
            closed = next((k for k, s in held.items() if s.connection is None), None)
            if closed is None:
                if waited >= 20:
                    return False
                # a reloaded tab closes its WebSocket as the new one opens: give it a moment
                waited += 1
                await asyncio.sleep(0.05)
                continue
            held.pop(closed)
            await app_manager.delete_session(closed)
        self.starting[device] = self.starting.get(device, 0) + 1
        return True

    def started(self, device: str, key: str | None, session: Any) -> None:
        """A connection of ``device`` ended its registration (``key`` None: it never did)."""
        left = self.starting.get(device, 1) - 1
        if left > 0:
            self.starting[device] = left
        else:
            self.starting.pop(device, None)
        if key is not None:
            held = self.sessions.setdefault(device, OrderedDict())
            held[key] = session
            held.move_to_end(key)
            log.info("session of %s: %d held by it, %d in all", device, len(held), self.total())

    def forget(self, device: str, key: str) -> None:
        held = self.sessions.get(device)
        if held is not None:
            held.pop(key, None)
            if not held:
                del self.sessions[device]


def flet_app(main: Callable[[Any], Any], keep_s: float | None = None,
             devices: Devices | None = None) -> ASGIApp:
    """Flet's web app (static files + ``/ws``) without its wildcard CORS, API docs, upload or
    OAuth endpoints, whose sessions never send a traceback to the client, whose closed
    sessions are kept ``keep_s`` seconds for a reconnection, and whose devices hold at most
    :data:`SESSIONS_PER_DEVICE` sessions each (``devices``)."""
    from flet.messaging.protocol import Message as FletMessage
    from flet.messaging.protocol import MessageAction, RegisterClientResponseBody, SessionCrashedBody
    from flet_web.fastapi import FastAPI, FletApp, FletStaticFiles, app_manager

    check_flet()
    devices = devices if devices is not None else Devices()
    if keep_s is None:
        keep_s = float(os.environ.get("FLET_SESSION_TIMEOUT") or SESSION_KEEP_S)

    class QuietFletApp(FletApp):
        #: Set when Flet's receive loop has ended, for whatever reason.
        receive_ended: asyncio.Event
        device: str = "?"
        #: The joined device this connection came from (the gate names it), if any.
        joined: str | None = None
        registered = False
        #: The session this connection served, kept past :meth:`dispose` for _forget_later.
        served: Any = None

        async def _FletApp__receive_loop(self) -> None:
            try:
                await FletApp._FletApp__receive_loop(self)  # type: ignore[attr-defined]
            finally:
                self.receive_ended.set()

        def session_key(self) -> tuple[Any, str | None]:
            session = getattr(self, "_FletApp__session", None) or self.served
            if session is None:
                return None, None
            return session, self._FletApp__get_unique_session_id(session.id)

        def dispose(self) -> None:
            self.served = getattr(self, "_FletApp__session", None)
            super().dispose()

        def send_message(self, message: FletMessage) -> None:
            body = message.body
            if message.action == MessageAction.SESSION_CRASHED:
                log.error("a session failed: %s", last_line(getattr(body, "message", body)))
                message = FletMessage(message.action, SessionCrashedBody(CRASH_MESSAGE))
            elif isinstance(body, RegisterClientResponseBody):
                if body.error:
                    log.error("a session could not start: %s", last_line(body.error))
                    body.error = CRASH_MESSAGE
                if not self.registered:
                    self.registered = True
                    devices.started(self.device, *reversed(self.session_key()))
                    session = self.session_key()[0]
                    if self.joined and session is not None:  # a session resumed: by this device now
                        note_device(session.page, self.joined)
            try:
                super().send_message(message)
            except AttributeError:  # the connection is already closed: nobody to tell
                log.debug("dropped a message to a closed session")

    app = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)

    @app.websocket("/ws")
    async def ws(websocket: WebSocket) -> None:
        device = address_key(websocket.client.host if websocket.client else "?")
        if not await devices.make_room(device):
            log.warning("refused a new session from %s: it has %d tabs open", device, devices.held(device))
            await websocket.close(code=1008)  # before accept: HTTP 403
            return
        watched = _WatchedSocket(websocket)
        # the gate names the joined device: the session's page is told which one it is on
        joined = websocket.scope.get(DEVICE_SCOPE_KEY)
        conn = QuietFletApp(loop=asyncio.get_running_loop(), executor=app_manager.executor, main=main,
                            before_main=(lambda page: note_device(page, joined)) if joined else None,
                            session_timeout_seconds=int(keep_s) or 1)
        conn.receive_ended = watched.ended
        conn.device = device
        conn.joined = joined
        task = asyncio.ensure_future(conn.handle(watched))
        ended = asyncio.ensure_future(watched.ended.wait())
        HANDLERS.add(task)
        try:
            await asyncio.wait({task, ended}, return_when=asyncio.FIRST_COMPLETED)
            if not task.done():
                # The client is gone or sent what the handler cannot read: Flet's handler waits
                # for a session that may never have started, so give it a moment, then end it.
                await asyncio.wait({task}, timeout=2.0)
                task.cancel()
            with contextlib.suppress(BaseException):
                await task
        except asyncio.CancelledError:
            pass  # the server is stopping: the session ends with it, quietly
        finally:
            ended.cancel()
            if not task.done():
                task.cancel()
            HANDLERS.discard(task)
            if not conn.registered:
                conn.registered = True
                devices.started(device, None, None)
            _forget_later(conn, keep_s, devices)

    app.mount("/", FletStaticFiles(app_name="Chicken Foot companion", app_short_name="Chicken Foot",
                                   app_description=DESCRIPTION, no_cdn=True, websocket_endpoint_path="ws"))
    return app


#: What the page says it is (its description; the manifest's is :mod:`.face`'s, the same).
DESCRIPTION = "Scores, hands read from photos and rule checks for Chicken Foot dominoes at the table"


def _forget_later(conn: Any, keep_s: float, devices: Devices) -> None:
    """Delete the session of a closed connection ``keep_s`` seconds from now unless a tab has
    reconnected to it."""
    from flet_web.fastapi import app_manager

    session, key = conn.session_key()
    if key is None:
        return

    async def forget() -> None:
        if session.connection is None and await app_manager.get_session(key) is session:
            devices.forget(conn.device, key)
            await app_manager.delete_session(key)

    def start() -> None:
        task = loop.create_task(forget())
        _FORGETTING.add(task)  # referenced until done
        task.add_done_callback(_FORGETTING.discard)

    loop = asyncio.get_running_loop()
    loop.call_later(keep_s, start)


_FORGETTING: set[asyncio.Task[None]] = set()


def last_line(text: Any) -> str:
    lines = [x for x in str(text).splitlines() if x.strip()]
    return lines[-1].strip()[:300] if lines else ""


class _WatchedSocket:
    """The client's WebSocket as Flet's handler sees it; says when its receiving ended."""

    def __init__(self, websocket: Any) -> None:
        self._ws = websocket
        self.ended = asyncio.Event()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ws, name)

    async def receive_bytes(self) -> bytes:
        try:
            data = await self._ws.receive_bytes()
        except BaseException:
            self.ended.set()
            raise
        if not isinstance(data, bytes | bytearray):
            self.ended.set()
            raise ConnectionError("not a binary frame")
        return bytes(data)
