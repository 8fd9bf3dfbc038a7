"""Serving the app to browsers: the trust boundary between the table's phones and the server.

Every client is untrusted: its ``Host`` and ``Origin`` headers, whether it has the table code,
and every message it sends. This module puts one ASGI layer, :class:`TableGate`, in front of
Flet's web app (its static files and its ``/ws`` WebSocket) and runs it with uvicorn itself, so
that nothing reaches a screen unchecked:

* **Host and Origin.** A request must name this server in ``Host`` (an IP address, ``localhost``
  or this machine's name, with the port served; served on loopback only, a loopback name), so a
  web page on another domain that points its name at this address (DNS rebinding) is refused. A
  request carrying ``Origin`` must come from the page this server serves (``http://`` + its own
  ``Host``); the WebSocket must carry it. No answer carries ``Access-Control-Allow-Origin``.
* **The table code.** Served on anything but loopback, the server makes a six-digit code at
  start (printed with the address and as a QR code, and shown on the app's "Invite a phone"
  screen). A client that has not given it gets the "join this table" page and nothing else:
  no app files, no WebSocket (so no match, no player, no button). Giving it (the form, or the
  QR code's ``/join?code=...`` address) sets a cookie signed with a key made at start
  (``HttpOnly``, ``SameSite=Strict``); loopback clients are no exception. A new start makes a new
  code and a new key. Wrong codes are rate-limited per client address only (an IPv6 client's
  /64), so no one can lock the others out (:data:`TRIES_PER_MINUTE`).
* **Uploads.** A photo or a file to import is sent with ``PUT /upload/<token>``, where the
  token is a one-time random name the server made for that one file a moment before
  (:class:`Uploads`): a joined client, from this server's own page, at most the upload limit;
  the bytes stay in memory and go to the session that asked. Nothing is written to disk and no
  client names a path. One file at a time per session, the bodies being received hold at most
  :data:`UPLOADS_HELD_MAX` bytes together, and a body that comes too slowly is cut off.
* **Connections.** Counted per client address and in all (:data:`CONNECTIONS_PER_ADDRESS`,
  :data:`CONNECTIONS_IN_ALL`), and closed when a request's headers do not come within
  :data:`HEADERS_WITHIN_S`: idle or half-sent connections from one address cannot fill the
  server (:func:`server_config`). A closed tab's session is kept :data:`SESSION_KEEP_S`.
* **Errors stay on the server.** The WebSocket's handler never sends a traceback: a failing
  session is logged here and the client is told "something went wrong". A connection whose
  messages the handler cannot read is closed, and never keeps the server from stopping.
* **Stopping.** SIGTERM or Ctrl+C stops the server within 3 s: uvicorn gets one second to close
  the connections, and a watchdog ends the process if a handler thread still holds it at 2.5 s
  (every save is an atomic replace, so no file is left half written).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import hashlib
import hmac
import html
import ipaddress
import logging
import os
import re
import secrets
import socket
import sys
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from starlette.websockets import WebSocket  # a module-level name: FastAPI resolves the hint

from chickenfoot.rules.errors import InputError

log = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

COOKIE = "chickenfoot_table"
#: Largest WebSocket message a client may send. Files travel by ``PUT /upload/<token>``
#: (:class:`Uploads`), so the socket carries only taps and typed text; a client cannot make the
#: server buffer more than this per message.
WS_MAX_BYTES = 4 * 2**20
#: Wrong table codes allowed per client address (an IPv6 client's /64), per minute and per hour.
#: There is no limit for all clients together: wrong codes from one address never keep another
#: from joining. Guessing is bounded by addresses instead: with every one of a /24's 254
#: addresses, an attacker has 254 x 30 guesses an hour, a 0.8% chance of the six-digit code in
#: an hour.
TRIES_PER_MINUTE = 8
TRIES_PER_HOUR = 30
#: Client addresses the wrong-code limiter remembers at most (the least recently failing one is
#: forgotten first): 6.4 MB at most, each with TRIES_PER_HOUR failures (measured with
#: tracemalloc).
TRIES_ADDRESSES = 4096
#: Connections one client address (an IPv6 client's /64) may hold open at once, WebSockets
#: included: a browser opens about 6 to a server, plus one WebSocket per tab. Past it a new
#: connection from that address is closed at once, so no one address can fill the server.
CONNECTIONS_PER_ADDRESS = 32
#: Connections open at once from all addresses together.
CONNECTIONS_IN_ALL = 1000
#: Seconds a connection has to send a request's headers, from connecting or from the end of its
#: previous answer: a connection that sends nothing, or its headers a byte at a time, is closed.
HEADERS_WITHIN_S = 10.0
#: Seconds an idle connection is kept open between two requests (uvicorn's keep-alive).
KEEP_ALIVE_S = 5
#: Seconds a closed tab's session is kept for the same tab to reconnect to (a network blip, a
#: phone waking up); after that the tab starts a new one (a half-entered round is in its stored
#: draft, so nothing is lost). Flet's own default is an hour.
SESSION_KEEP_S = 60
#: Seconds from SIGTERM to the process being gone at the latest.
STOP_GRACE_S = 1.0
STOP_HARD_S = 2.5
CRASH_MESSAGE = "Something went wrong on the server (it is logged there). Reload the page."
#: Where a browser sends a file the app asked it for (see :class:`Uploads`).
UPLOAD_PATH = "/upload/"
#: Seconds a browser has to send a file once the app asked for it.
UPLOAD_WAIT_S = 120.0
#: Bytes all the uploads being received hold at once, at most (three files of the largest size
#: the app takes): a further upload is answered 503 "busy" at once.
UPLOADS_HELD_MAX = 120 * 2**20
#: Files expected at once from all sessions (one at a time per session).
UPLOADS_WAITING_MAX = 32
#: A file's body must come at UPLOAD_MIN_RATE bytes a second on average, counted from
#: UPLOAD_GRACE_S seconds after it starts, with no pause longer than UPLOAD_STALL_S, and be
#: whole within UPLOAD_BODY_S: a body sent a byte at a time is cut off (408) within seconds.
UPLOAD_MIN_RATE = 100 * 1024
UPLOAD_GRACE_S = 5.0
UPLOAD_STALL_S = 10.0
UPLOAD_BODY_S = 120.0


class ServeError(InputError):
    """The app cannot be served as asked (port taken, address not on this machine)."""


# ------------------------------------------------------------------------- addresses
def is_loopback(host: str) -> bool:
    """True for addresses only this machine can reach (127.0.0.0/8, ::1, localhost)."""
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def is_wildcard(host: str) -> bool:
    return host in ("", "*", "0.0.0.0", "::", "[::]")


def check_port(port: int) -> int:
    if not 0 <= port <= 65535:
        raise ServeError(f"--port must be between 1 and 65535 (or 0 for a free one), not {port}")
    return port


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port``, or :class:`ServeError` saying why not, in one line.

    Binding here, before anything is printed, is how ``chickenfoot app`` knows the address works
    before it says "serving at"; uvicorn then serves on this very socket.
    """
    check_port(port)
    name = "" if is_wildcard(host) else host.strip("[]")
    try:
        infos = socket.getaddrinfo(name or None, port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError) as exc:
        raise ServeError(f"cannot listen on {host!r}: not an address of this machine "
                         f"({getattr(exc, 'strerror', None) or exc})") from None
    # A wildcard listens on IPv4's 0.0.0.0 (every phone on the network reaches it).
    infos.sort(key=lambda i: i[0] != socket.AF_INET)
    family, kind, proto, _, addr = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(addr)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        if exc.errno in (98, 48, 10048):  # EADDRINUSE on Linux, macOS, Windows
            raise ServeError(f"port {port} on {host or '0.0.0.0'} is in use (is the app already "
                             "running? open its address, or pick another --port)") from None
        if exc.errno in (13, 10013):  # EACCES
            raise ServeError(f"port {port} needs administrator rights here; pick one above 1023 "
                             "with --port") from None
        raise ServeError(f"cannot listen on {host or '0.0.0.0'}:{port} "
                         f"({exc.strerror or exc})") from None
    sock.setblocking(False)
    return sock


def lan_addresses() -> list[str]:
    """This machine's address on the local network (where phones reach it), if any."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))  # no packet is sent; this only picks the outgoing interface
            ip = s.getsockname()[0]
    except OSError:
        return []
    return [] if ip.startswith("127.") else [ip]


def new_code() -> str:
    return f"{secrets.randbelow(10**6):06d}"


def qr_text(url: str) -> str:
    """The QR code of ``url`` drawn with block characters, for a terminal."""
    import io

    import segno

    out = io.StringIO()
    segno.make(url, error="m", micro=False).terminal(out=out, border=2, compact=True)
    return out.getvalue()


def qr_png(url: str, scale: int = 8) -> bytes:
    """The QR code of ``url`` as a PNG (black on white, with its quiet zone)."""
    import io

    import segno

    out = io.BytesIO()
    segno.make(url, error="m", micro=False).save(out, kind="png", scale=scale, border=4)
    return out.getvalue()


# ------------------------------------------------------------------------------- gate
def address_key(host: str) -> str:
    """The one name a client's address counts under for the limits: the address itself, an
    IPv4 address mapped into IPv6 as IPv4, and an IPv6 address as its /64 (one device can
    use any address of its /64)."""
    try:
        ip = ipaddress.ip_address(host.strip("[]").split("%")[0])
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


@dataclass
class _Tries:
    """Wrong codes per client address in the last hour, for :data:`TRIES_PER_MINUTE` and
    :data:`TRIES_PER_HOUR`; at most :data:`TRIES_ADDRESSES` addresses are remembered."""

    per_client: OrderedDict[str, deque[float]] = field(default_factory=OrderedDict)
    most: int = TRIES_ADDRESSES

    def blocked(self, client: str, now: float) -> bool:
        q = self.per_client.get(address_key(client))
        if not q:
            return False
        while q and now - q[0] > 3600:
            q.popleft()
        last_minute = sum(1 for t in q if now - t <= 60)
        return last_minute >= TRIES_PER_MINUTE or len(q) >= TRIES_PER_HOUR

    def failed(self, client: str, now: float) -> None:
        key = address_key(client)
        q = self.per_client.pop(key, None) or deque(maxlen=TRIES_PER_HOUR)
        q.append(now)
        self.per_client[key] = q  # the most recent failure last
        while len(self.per_client) > self.most:
            self.per_client.popitem(last=False)


def _headers(scope: Scope) -> dict[str, str]:
    out: dict[str, str] = {}
    for k, v in scope.get("headers", ()):
        out.setdefault(k.decode("latin-1").lower(), v.decode("latin-1"))
    return out


def _cookies(header: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in header.split(";"):
        k, sep, v = part.strip().partition("=")
        if sep:
            out.setdefault(k.strip(), v.strip())
    return out


def split_host(value: str) -> tuple[str, int | None] | None:
    """``("192.168.1.5", 8550)`` from a ``Host`` header; None when it is not one."""
    try:
        parts = urlsplit("//" + value)
        port = parts.port
    except ValueError:
        return None
    host = parts.hostname
    if not host or parts.username or parts.password or parts.path or parts.query:
        return None
    if not re.fullmatch(r"[a-z0-9.\-]+|[0-9a-f:.]+", host):
        return None
    return host.lower(), port


JOIN_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Join this table - Chicken Foot companion</title>
<style>
body {{ font-family: sans-serif; margin: 0; padding: 24px; max-width: 28em; }}
h1 {{ font-size: 1.6em; }}
input {{ font-size: 2em; width: 7em; letter-spacing: .2em; padding: 6px; }}
button {{ font-size: 1.3em; padding: 10px 22px; margin-top: 14px; }}
.err {{ color: #b00020; font-weight: bold; }}
</style></head>
<body>
<h1>Join this table</h1>
<p>Type the table code shown where the Chicken Foot companion was started (or scan its QR code).</p>
{message}
<form method="post" action="/join">
<label for="code">Table code</label><br>
<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" maxlength="12"
 autofocus required><br>
<button type="submit">Join</button>
</form>
</body></html>
"""


class UploadRefused(InputError):
    """A file a browser sent that the server does not take (too big, cut off)."""


class Uploads:
    """Files the app asked a browser for (a photo, an export to import), each expected under a
    one-time random token: :meth:`expect` makes one and a future its bytes arrive in;
    ``PUT /upload/<token>`` (:meth:`TableGate`) delivers them, once, within
    :data:`UPLOAD_WAIT_S`, at most ``max_bytes``. Kept in memory only, and bounded: one file
    expected per session at a time, at most ``waiting_max`` in all, and the bodies being
    received hold at most ``held_max`` bytes together."""

    def __init__(self, max_bytes: int, wait_s: float = UPLOAD_WAIT_S, *,
                 held_max: int = UPLOADS_HELD_MAX, waiting_max: int = UPLOADS_WAITING_MAX,
                 min_rate: float = UPLOAD_MIN_RATE, grace_s: float = UPLOAD_GRACE_S,
                 stall_s: float = UPLOAD_STALL_S, body_s: float = UPLOAD_BODY_S) -> None:
        self.max_bytes = max_bytes
        self.wait_s = wait_s
        self.held_max = held_max
        self.waiting_max = waiting_max
        self.min_rate, self.grace_s, self.stall_s, self.body_s = min_rate, grace_s, stall_s, body_s
        #: Bytes the bodies being received hold now, and the most they ever held together.
        self.held = 0
        self.held_peak = 0
        self._lock = threading.Lock()
        self._waiting: dict[str, tuple[float, concurrent.futures.Future[bytes], object]] = {}

    def expect(self, owner: object = None) -> tuple[str, concurrent.futures.Future[bytes]]:
        """A new token and the future its file's bytes (or why it was refused) arrive in. A
        session (``owner``) waits for one file at a time: its earlier token is cancelled."""
        token = secrets.token_urlsafe(24)
        fut: concurrent.futures.Future[bytes] = concurrent.futures.Future()
        now = time.monotonic()
        with self._lock:
            for old in [k for k, (until, f, w) in self._waiting.items()
                        if until <= now or f.done() or (owner is not None and w is owner)]:
                self._waiting.pop(old)[1].cancel()
            if len(self._waiting) >= self.waiting_max:
                raise UploadRefused("the server is waiting for too many files at once; "
                                    "try again in a moment")
            self._waiting[token] = (now + self.wait_s, fut, owner)
        return token, fut

    def take(self, token: str) -> concurrent.futures.Future[bytes] | None:
        """The future waiting for ``token`` (which is then used up); None if there is none."""
        with self._lock:
            entry = self._waiting.pop(token, None)
        if entry is None or entry[0] <= time.monotonic() or entry[1].done():
            return None
        return entry[1]

    def cancel(self, token: str) -> None:
        with self._lock:
            entry = self._waiting.pop(token, None)
        if entry is not None:
            entry[1].cancel()

    def hold(self, n: int) -> bool:
        """Count ``n`` more bytes as held by a body being received; False (nothing counted)
        when that would pass :attr:`held_max`."""
        with self._lock:
            if self.held + n > self.held_max:
                return False
            self.held += n
            self.held_peak = max(self.held_peak, self.held)
            return True

    def release(self, n: int) -> None:
        with self._lock:
            self.held -= n


def settle(fut: concurrent.futures.Future[bytes], data: bytes | None = None,
           error: BaseException | None = None) -> bool:
    """Give ``fut`` its bytes or its error unless it is settled already (the session gave up
    waiting, or the browser reported an error first); True if this call settled it."""
    try:
        if error is not None:
            fut.set_exception(error)
        else:
            fut.set_result(data if data is not None else b"")
    except concurrent.futures.InvalidStateError:
        return False
    return True


class TableGate:
    """ASGI middleware in front of the Flet app: Host, Origin, table code, headers, uploads."""

    def __init__(self, app: ASGIApp, *, port: int, loopback_only: bool, code: str | None,
                 names: tuple[str, ...] = (), uploads: Uploads | None = None) -> None:
        self.app = app
        self.uploads = uploads
        self.port = port
        self.loopback_only = loopback_only
        self.code = code
        self._key = secrets.token_bytes(32)
        self.token = hmac.new(self._key, b"joined this table", hashlib.sha256).hexdigest()
        self.names = {n.lower() for n in names if n} | {"localhost"}
        self.tries = _Tries()

    # ---------------------------------------------------------------- checks
    def host_ok(self, value: str | None) -> bool:
        parsed = split_host(value or "")
        if parsed is None:
            return False
        host, port = parsed
        if (port or 80) != self.port:
            return False
        if self.loopback_only:
            return is_loopback(host)
        if host in self.names:
            return True
        try:
            ipaddress.ip_address(host.strip("[]"))
        except ValueError:
            return False
        return True

    @staticmethod
    def origin_ok(origin: str | None, host: str) -> bool:
        return origin is not None and origin.lower() == f"http://{host.lower()}"

    def joined(self, headers: dict[str, str]) -> bool:
        if self.code is None:
            return True
        given = _cookies(headers.get("cookie", "")).get(COOKIE, "")
        return hmac.compare_digest(given.encode(), self.token.encode())

    # ---------------------------------------------------------------- ASGI
    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "lifespan":
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        host = headers.get("host", "")
        origin = headers.get("origin")
        if kind == "websocket":
            if not (self.host_ok(host) and self.origin_ok(origin, host) and self.joined(headers)):
                log.info("refused a WebSocket (host %r, origin %r)", host, origin)
                await receive()  # websocket.connect
                await send({"type": "websocket.close", "code": 1008})  # before accept: HTTP 403
                return
            await self.app(scope, receive, send)
            return
        if kind != "http":
            return
        if not self.host_ok(host):
            await _reply(send, 421, "This address is not served here.\n")
            return
        if origin is not None and not self.origin_ok(origin, host):
            await _reply(send, 403, "Requests from other sites are refused.\n")
            return
        path, method = scope.get("path", "/"), scope.get("method", "GET")
        if path == "/join" and self.code is not None:
            await self._join(scope, receive, send, headers)
            return
        if method == "PUT" and path.startswith(UPLOAD_PATH) and self.uploads is not None:
            if origin is None or not self.joined(headers):
                await _reply(send, 403, "Uploads come from this table's own page.\n")
                return
            await self._upload(path[len(UPLOAD_PATH):], headers, receive, send)
            return
        if method not in ("GET", "HEAD"):
            await _reply(send, 405, "Only GET is served here.\n")
            return
        if not self.joined(headers):
            await self._join_page(send, 403, "")
            return
        await self.app(scope, receive, _safe_headers(send))

    async def _upload(self, token: str, headers: dict[str, str], receive: Receive, send: Send) -> None:
        """Hand the request's body to the session waiting for ``token``."""
        assert self.uploads is not None
        fut = self.uploads.take(token)
        if fut is None:
            await _reply(send, 404, "No file is expected here (it was sent already, or too late).\n")
            return
        ups = self.uploads
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > ups.max_bytes:
            await _refuse(fut, send, 413, _too_big(ups.max_bytes))
            return
        # What the body will hold is counted before it is read when the browser says its size
        # (browsers do for files), else as it arrives.
        held = int(declared) if declared.isdigit() else 0
        if not ups.hold(held):
            await _refuse(fut, send, 503, _BUSY)
            return
        counted = [held]  # bytes counted as held for this body so far
        try:
            await self._receive_upload(fut, receive, send, counted)
        finally:
            ups.release(counted[0])

    async def _receive_upload(self, fut: concurrent.futures.Future[bytes], receive: Receive,
                              send: Send, counted: list[int]) -> None:
        ups = self.uploads
        assert ups is not None
        limit = ups.max_bytes
        chunks: list[bytes] = []
        size = 0
        start = time.monotonic()
        while True:
            now = time.monotonic()
            left = min(ups.stall_s, start + ups.body_s - now)
            try:
                message = await asyncio.wait_for(receive(), max(left, 0.001))
            except TimeoutError:
                message = None
            if message is not None and message["type"] == "http.disconnect":
                settle(fut, error=UploadRefused("the browser stopped sending the file"))
                return
            body = b"" if message is None else message.get("body", b"")
            size += len(body)
            elapsed = time.monotonic() - start
            slow = elapsed > ups.grace_s and size < ups.min_rate * elapsed
            if message is None or slow:
                await _refuse(fut, send, 408, _TOO_SLOW)
                return
            if size > limit:
                await _refuse(fut, send, 413, _too_big(limit))
                return
            if size > counted[0]:
                if not ups.hold(size - counted[0]):
                    await _refuse(fut, send, 503, _BUSY)
                    return
                counted[0] = size
            chunks.append(body)
            if not message.get("more_body"):
                break
        if not settle(fut, b"".join(chunks)):
            await _reply(send, 410, "The app stopped waiting for this file.\n")
            return
        await _reply(send, 200, "Received.\n")

    async def _join(self, scope: Scope, receive: Receive, send: Send, headers: dict[str, str]) -> None:
        client = (scope.get("client") or ("?", 0))[0]
        if scope.get("method") == "POST":
            body = await _read_body(receive, 4096)
            given = parse_qs(body.decode("latin-1")).get("code", [""])[0]
        elif scope.get("method") in ("GET", "HEAD"):
            given = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("code", [""])[0]
            if not given:
                if self.joined(headers):
                    await _redirect(send, "/", None)
                else:
                    await self._join_page(send, 200, "")
                return
        else:
            await _reply(send, 405, "Only GET and POST are served here.\n")
            return
        now = time.monotonic()
        if self.tries.blocked(client, now):
            await self._join_page(send, 429, "Too many wrong codes: wait a minute, then try again.")
            return
        assert self.code is not None
        if not hmac.compare_digest("".join(given.split()).encode(), self.code.encode()):
            self.tries.failed(client, now)
            await self._join_page(send, 403, "That is not this table's code.")
            return
        await _redirect(send, "/", f"{COOKIE}={self.token}; Path=/; HttpOnly; SameSite=Strict")

    async def _join_page(self, send: Send, status: int, message: str) -> None:
        text = f'<p class="err" role="alert">{html.escape(message)}</p>' if message else ""
        await _reply(send, status, JOIN_PAGE.format(message=text), "text/html; charset=utf-8")


_DROPPED = {b"access-control-allow-origin", b"access-control-allow-credentials", b"server"}
_ADDED = [
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
    (b"x-content-type-options", b"nosniff"),
    # Flutter's web engine wants cross-origin isolation (as Flet's own server sets it).
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-embedder-policy", b"require-corp"),
]


def _safe_headers(send: Send) -> Send:
    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.start":
            kept = [(k, v) for k, v in message.get("headers", ()) if k.lower() not in _DROPPED
                    and k.lower() not in {a for a, _ in _ADDED}]
            message = {**message, "headers": kept + _ADDED}
        await send(message)
    return wrapped


#: Why an upload was refused: what the session waiting for it says, and the HTTP answer's body.
_BUSY = ("the server is receiving other files; try again in a moment",
         "Busy receiving other files: try again in a moment.\n")
_TOO_SLOW = ("the file came too slowly", "The file came too slowly.\n")


def _too_big(limit: int) -> tuple[str, str]:
    return f"the file is larger than {limit // 2**20} MB", "Too large.\n"


async def _refuse(fut: concurrent.futures.Future[bytes], send: Send, status: int, why: tuple[str, str]) -> None:
    """Tell the session waiting for the file why it will not come, and the sender."""
    settle(fut, error=UploadRefused(why[0]))
    await _reply(send, status, why[1])


async def _reply(send: Send, status: int, body: str, ctype: str = "text/plain; charset=utf-8") -> None:
    data = body.encode("utf-8")
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", ctype.encode()), (b"content-length", str(len(data)).encode()),
                            (b"cache-control", b"no-store"), *_ADDED]})
    await send({"type": "http.response.body", "body": data})


async def _redirect(send: Send, to: str, cookie: str | None) -> None:
    headers = [(b"location", to.encode()), (b"content-length", b"0"), (b"cache-control", b"no-store"), *_ADDED]
    if cookie:
        headers.append((b"set-cookie", cookie.encode()))
    await send({"type": "http.response.start", "status": 303, "headers": headers})
    await send({"type": "http.response.body", "body": b""})


async def _read_body(receive: Receive, limit: int) -> bytes:
    data = b""
    while True:
        message = await receive()
        data += message.get("body", b"")
        if len(data) > limit:
            return b""
        if not message.get("more_body"):
            return data


# ------------------------------------------------------------------- Flet's handler
#: The WebSocket handlers running now (a closed connection's handler leaves within 2 s).
HANDLERS: set[asyncio.Future[Any]] = set()


def flet_app(main: Callable[[Any], Any], keep_s: int = SESSION_KEEP_S) -> ASGIApp:
    """Flet's web app (static files + ``/ws``) without its wildcard CORS, API docs, upload or
    OAuth endpoints, whose sessions never send a traceback to the client, and whose closed
    sessions are kept ``keep_s`` seconds for a reconnection."""
    from flet.messaging.protocol import Message as FletMessage
    from flet.messaging.protocol import MessageAction, RegisterClientResponseBody, SessionCrashedBody
    from flet_web.fastapi import FastAPI, FletApp, FletStaticFiles, app_manager

    class QuietFletApp(FletApp):
        #: Set when Flet's receive loop has ended, for whatever reason: a client gone, or a
        #: message it could not read (then, with no session started, Flet's handler would wait
        #: for its send loop forever).
        receive_ended: asyncio.Event

        async def _FletApp__receive_loop(self) -> None:
            try:
                await FletApp._FletApp__receive_loop(self)  # type: ignore[attr-defined]
            finally:
                self.receive_ended.set()

        #: The session this connection served, kept past :meth:`dispose` for
        #: :func:`_forget_later`.
        served: Any = None

        def dispose(self) -> None:
            self.served = getattr(self, "_FletApp__session", None)
            super().dispose()

        def send_message(self, message: FletMessage) -> None:
            body = message.body
            if message.action == MessageAction.SESSION_CRASHED:
                log.error("a session failed: %s", _last_line(getattr(body, "message", body)))
                message = FletMessage(message.action, SessionCrashedBody(CRASH_MESSAGE))
            elif isinstance(body, RegisterClientResponseBody) and body.error:
                log.error("a session could not start: %s", _last_line(body.error))
                body.error = CRASH_MESSAGE
            try:
                super().send_message(message)
            except AttributeError:  # the connection is already closed: nobody to tell
                log.debug("dropped a message to a closed session")

    app = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)

    @app.websocket("/ws")
    async def ws(websocket: WebSocket) -> None:
        watched = _WatchedSocket(websocket)
        conn = QuietFletApp(loop=asyncio.get_running_loop(), executor=app_manager.executor,
                            main=main, before_main=None, session_timeout_seconds=keep_s)
        conn.receive_ended = watched.ended
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
            _forget_later(conn, keep_s)

    app.mount("/", FletStaticFiles(app_name="Chicken Foot companion", no_cdn=True,
                                   websocket_endpoint_path="ws"))
    return app


def _forget_later(conn: Any, keep_s: float) -> None:
    """Delete the session of a closed connection ``keep_s`` seconds from now unless a tab has
    reconnected to it: Flet's own sweep (every 10 s) would do it up to 10 s later, and an
    hour later with its default timeout."""
    from flet_web.fastapi import app_manager

    try:  # Flet keeps both private; without them its own sweep frees the session
        session = conn._FletApp__session or conn.served
        key = conn._FletApp__get_unique_session_id(session.id) if session is not None else None
    except AttributeError:
        return
    if key is None:
        return

    async def forget() -> None:
        if session.connection is None and await app_manager.get_session(key) is session:
            await app_manager.delete_session(key)

    def start() -> None:
        task = loop.create_task(forget())
        _FORGETTING.add(task)  # referenced until done
        task.add_done_callback(_FORGETTING.discard)

    loop = asyncio.get_running_loop()
    loop.call_later(keep_s, start)


_FORGETTING: set[asyncio.Task[None]] = set()


def _last_line(text: Any) -> str:
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


# ---------------------------------------------------------------------------- serving
@dataclass(frozen=True)
class Limits:
    """What one server lets its connections hold (see the constants of the same names)."""

    per_address: int = CONNECTIONS_PER_ADDRESS
    in_all: int = CONNECTIONS_IN_ALL
    headers_s: float = HEADERS_WITHIN_S
    keep_alive_s: int = KEEP_ALIVE_S


class _Connections:
    """Open connections counted per client address (:func:`address_key`) and in all."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.per_address: dict[str, int] = {}
        self.total = 0
        self.refused = 0

    def admit(self, key: str) -> bool:
        if (self.total >= self.limits.in_all
                or self.per_address.get(key, 0) >= self.limits.per_address):
            self.refused += 1
            if self.refused in (1, 100) or self.refused % 10_000 == 0:
                log.warning("refused a connection from %s: too many open (%d refused so far)",
                            key, self.refused)
            return False
        self.per_address[key] = self.per_address.get(key, 0) + 1
        self.total += 1
        return True

    def release(self, key: str) -> None:
        self.total -= 1
        left = self.per_address.get(key, 1) - 1
        if left > 0:
            self.per_address[key] = left
        else:
            self.per_address.pop(key, None)


def _guarded_protocols(conns: _Connections, http: type, ws: type) -> tuple[type, type]:
    """uvicorn's HTTP and WebSocket protocols, counting each connection under its address
    from accepting it to closing it (an upgraded one hands its count to the WebSocket), and
    closing one that has not sent a request's headers within ``headers_s`` of connecting or of
    its previous answer."""

    class GuardedHTTP(http):  # type: ignore[misc, valid-type]
        _slot: str | None = None
        _refused = False
        _headers_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            peer = transport.get_extra_info("peername")
            key = address_key(str(peer[0])) if isinstance(peer, tuple) and peer else "?"
            if not conns.admit(key):
                self._refused = True
                transport.abort()
                return
            self._slot = key
            super().connection_made(transport)
            self._expect_headers()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._refused:
                return
            if self._headers_timer is not None:
                self._headers_timer.cancel()
            if self._slot is not None:
                conns.release(self._slot)
                self._slot = None
            super().connection_lost(exc)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._expect_headers()

        def _expect_headers(self) -> None:
            if self._headers_timer is not None:
                self._headers_timer.cancel()
            waited_for = self.cycle  # a new request's headers make a new cycle

            def check() -> None:
                t = self.transport
                if (t.get_protocol() is self and not t.is_closing() and self.cycle is waited_for
                        and (waited_for is None or waited_for.response_complete)):
                    t.close()

            self._headers_timer = self.loop.call_later(conns.limits.headers_s, check)

    class GuardedWS(ws):  # type: ignore[misc, valid-type]
        _slot: str | None = None

        def connection_made(self, transport: Any) -> None:
            upgraded = transport.get_protocol()  # the HTTP protocol, still set at this point
            self._slot = getattr(upgraded, "_slot", None)
            if self._slot is not None:
                upgraded._slot = None
                if upgraded._headers_timer is not None:
                    upgraded._headers_timer.cancel()
            super().connection_made(transport)

        def connection_lost(self, exc: Exception | None) -> None:
            if self._slot is not None:
                conns.release(self._slot)
                self._slot = None
            super().connection_lost(exc)

    return GuardedHTTP, GuardedWS


def server_config(app: ASGIApp, limits: Limits | None = None) -> Any:
    """The ``uvicorn.Config`` the app is served with: connections limited per address and in
    all, headers and idle connections timed out, WebSocket messages capped."""
    import uvicorn
    from uvicorn.protocols.http.auto import AutoHTTPProtocol
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

    limits = limits or Limits()
    http, ws = _guarded_protocols(_Connections(limits), AutoHTTPProtocol, WebSocketsSansIOProtocol)
    return uvicorn.Config(
        app, log_level="warning", access_log=False, proxy_headers=False, server_header=False,
        http=http, ws=ws, ws_max_size=WS_MAX_BYTES, timeout_graceful_shutdown=STOP_GRACE_S,
        timeout_keep_alive=limits.keep_alive_s, lifespan="on", limit_concurrency=limits.in_all + 1)


def _room_for_connections(limits: Limits) -> None:
    """Raise the open-file limit so :data:`CONNECTIONS_IN_ALL` sockets fit beside the rest."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        want = limits.in_all + 512
        if soft != resource.RLIM_INFINITY and soft < want:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want if hard == resource.RLIM_INFINITY
                                                        else min(want, hard), hard))
    except (ImportError, ValueError, OSError):  # not on this system: the limit stays
        pass


def serve(app: ASGIApp, sock: socket.socket, *, on_stop: Callable[[], None] | None = None) -> None:
    """Serve ``app`` on the bound ``sock`` until SIGTERM/SIGINT; returns within 3 s of one."""
    import uvicorn

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            _arm_watchdog()
            super().handle_exit(sig, frame)
            # A stop that was asked for is a normal end (exit 0, the store closed), not a death
            # by the signal raised again once serving is over.
            self._captured_signals.clear()

    # What a client did wrong is logged here in one line, not as Flet's tracebacks on the host's
    # screen (FLET_LOG_LEVEL brings them back).
    if not os.environ.get("FLET_LOG_LEVEL"):
        for name in ("flet", "flet_web"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
    _room_for_connections(Limits())
    server = Server(server_config(app))
    try:
        asyncio.run(server.serve(sockets=[sock]))
    finally:
        with contextlib.suppress(OSError):
            sock.close()
        if on_stop:
            with contextlib.suppress(Exception):
                on_stop()


_watchdog_lock = threading.Lock()
_watchdog: threading.Timer | None = None


def _arm_watchdog() -> None:
    global _watchdog
    with _watchdog_lock:
        if _watchdog is None:
            _watchdog = threading.Timer(STOP_HARD_S, _hard_exit)
            _watchdog.daemon = True
            _watchdog.start()


def _hard_exit() -> None:
    # A session's handler thread still runs (a photo being read, say); the server is closed and
    # every save is an atomic replace, so ending here loses nothing written.
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(0)
