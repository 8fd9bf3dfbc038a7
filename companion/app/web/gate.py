"""The table's gate: the one ASGI layer in front of Flet's web app that checks ``Host``,
``Origin`` and the table code, takes uploads, and serves the app's own icons and manifest."""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import html
import ipaddress
import logging
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs

from . import face
from .addresses import address_key, is_loopback, network_key, new_code, new_join_key, split_host
from .answers import (
    ASGIApp,
    BodyTooSlow,
    Receive,
    Scope,
    Send,
    cookie_values,
    headers_of,
    read_body,
    redirect,
    reply,
    safe_headers,
)
from .devices import DEVICE_SCOPE_KEY, JoinedDevices, TableFull
from .limits import Joined
from .uploads import UPLOAD_PATH, Uploads, receive_upload

log = logging.getLogger(__name__)

COOKIE = "chickenfoot_table"
#: Wrong table codes allowed per client address (its full address, IPv6 as IPv4), per minute
#: and per hour: wrong codes from one address never keep another from typing the code, up to
#: the last cap for everyone (:data:`TRIES_PER_HOUR_ALL`). Guessing is bounded by addresses: with
#: every one of a /24's 254 addresses, an attacker has 254 x 30 guesses an hour, a 0.8% chance of
#: the six-digit code in an hour.
TRIES_PER_MINUTE = 8
TRIES_PER_HOUR = 30
#: Wrong codes an IPv6 /64 as a whole may send, a loose second cap: one device can take any
#: number of addresses in its /64, so without it IPv6 would bound nothing. It is what a whole
#: IPv4 /24 can send (254 addresses' worth), so it is reached only by an attacker with that many
#: addresses' chance. A home network's phones share one /64, so a stranger on it who sends that
#: many keeps them from typing the code; the QR code's key (:data:`~.addresses.JOIN_KEY_BYTES`)
#: still joins them, as no count of wrong codes holds it back.
TRIES_PER_MINUTE_NETWORK = 254 * TRIES_PER_MINUTE
TRIES_PER_HOUR_NETWORK = 254 * TRIES_PER_HOUR
#: Wrong codes all clients together may send, the last cap: without it, someone with the
#: addresses of a big network (a campus /16) would guess without bound. Past it nobody types the
#: code until it is renewed or the hour is over, but the QR code's key still joins every phone:
#: so a stranger reaching it keeps no phone out, and has had at most a 1% chance at the code
#: (10,000 of a million) in an hour.
TRIES_PER_MINUTE_ALL = 2500
TRIES_PER_HOUR_ALL = 10_000
#: Devices one address may join per minute and per hour, by the code or the QR key: a phone
#: joins once, so these only slow someone who has the code and joins over and over.
JOINS_PER_MINUTE = 8
JOINS_PER_HOUR = 30
#: Values of the table's cookie looked at in one request (see :func:`~.answers.cookie_values`).
COOKIES_TRIED = 8
#: Client addresses the wrong-code limiter remembers at most (the least recently failing one is
#: forgotten first): 7.2 MB at most, each with TRIES_PER_HOUR failures (measured with
#: tracemalloc).
TRIES_ADDRESSES = 4096
#: IPv6 /64s it remembers at most (each in at most 360 ten-second buckets: 2.6 MB for all 64
#: full, measured with tracemalloc).
TRIES_NETWORKS = 64
#: Seconds the join form's body has to arrive once its headers have (it is a few bytes).
JOIN_BODY_S = 10.0
#: How long a phone's browser keeps the joined cookie, even when it is closed: 400 days, the
#: most Chromium keeps one. The cookie holds no secret of the code, and it stops working when
#: its device is removed at the table, or the key changes (``--forget-devices``); without a
#: lifetime, a browser that drops session cookies on closing sent the family's phones back to
#: the join page every evening.
COOKIE_MAX_AGE_S = 400 * 24 * 3600


class _Window:
    """Failures of one address in the last hour: their times, at most ``hour`` of them."""

    def __init__(self, minute: int, hour: int) -> None:
        self.minute, self.hour = minute, hour
        self.times: deque[float] = deque(maxlen=hour)

    def over(self, now: float) -> str | None:
        """Which cap is reached: ``"hour"``, ``"minute"``, or None."""
        q = self.times
        while q and now - q[0] > 3600:
            q.popleft()
        if len(q) >= self.hour:
            return "hour"
        return "minute" if sum(1 for t in q if now - t <= 60) >= self.minute else None

    def add(self, now: float) -> None:
        self.times.append(now)


class _Buckets(_Window):
    """Failures of a whole /64 in the last hour, counted in 10-second buckets: at most 360
    entries however many failures it counts."""

    def __init__(self, minute: int, hour: int) -> None:
        super().__init__(minute, hour)
        self.buckets: deque[list[float]] = deque()  # [start, count], oldest first

    def over(self, now: float) -> str | None:
        q = self.buckets
        while q and now - q[0][0] > 3600:
            q.popleft()
        if sum(c for _, c in q) >= self.hour:
            return "hour"
        return "minute" if sum(c for t, c in q if now - t <= 60) >= self.minute else None

    def add(self, now: float) -> None:
        q = self.buckets
        if q and now - q[-1][0] < 10.0:
            q[-1][1] += 1
        else:
            q.append([now, 1])


@dataclass
class Tries:
    """Wrong codes per client address (:func:`address_key`) in the last hour, per IPv6 /64 as a
    loose second cap (:func:`network_key`), and from everyone as a last one; at most ``most``
    addresses and ``most_networks`` /64s are remembered (the least recently failing forgotten
    first)."""

    keys: OrderedDict[str, _Window] = field(default_factory=OrderedDict)
    networks: OrderedDict[str, _Window] = field(default_factory=OrderedDict)
    everyone: _Buckets = field(default_factory=lambda: _Buckets(TRIES_PER_MINUTE_ALL, TRIES_PER_HOUR_ALL))
    #: Devices joined per address: a burst of joins by someone who has the code is slowed.
    joins: OrderedDict[str, _Window] = field(default_factory=OrderedDict)
    most: int = TRIES_ADDRESSES
    most_networks: int = TRIES_NETWORKS

    def blocked(self, client: str, now: float) -> bool:
        return self.blocked_by(client, now) is not None

    def blocked_by(self, client: str, now: float) -> str | None:
        """Why ``client`` may not try a code now: ``"address"`` (its own wrong codes),
        ``"network"`` (its IPv6 /64's, the loose second cap), ``"everyone"`` (the last cap), or
        None."""
        why = self.held(client, now)
        return None if why is None else why[0]

    def held(self, client: str, now: float) -> tuple[str, str] | None:
        """:meth:`blocked_by` with the cap reached, ``"minute"`` or ``"hour"``."""
        own, wide = address_key(client), network_key(client)
        window, net = self.keys.get(own), self.networks.get(wide)
        cap = window.over(now) if window else None
        if cap:
            return "address", cap
        cap = net.over(now) if net else None
        if cap:
            return "network", cap
        cap = self.everyone.over(now)
        return ("everyone", cap) if cap else None

    def failed(self, client: str, now: float) -> None:
        own, wide = address_key(client), network_key(client)
        _note(self.keys, own, now, self.most, lambda: _Window(TRIES_PER_MINUTE, TRIES_PER_HOUR))
        if wide != own:
            _note(self.networks, wide, now, self.most_networks,
                  lambda: _Buckets(TRIES_PER_MINUTE_NETWORK, TRIES_PER_HOUR_NETWORK))
        self.everyone.add(now)

    def joins_held(self, client: str, now: float) -> str | None:
        """Whether ``client`` has joined too many devices lately: the cap reached, or None."""
        window = self.joins.get(address_key(client))
        return window.over(now) if window else None

    def joined(self, client: str, now: float) -> None:
        _note(self.joins, address_key(client), now, self.most, lambda: _Window(JOINS_PER_MINUTE, JOINS_PER_HOUR))


def _note(windows: OrderedDict[str, _Window], key: str, now: float, most: int,
          new: Callable[[], _Window]) -> None:
    window = windows.pop(key, None) or new()
    window.add(now)
    windows[key] = window  # the most recent failure last
    while len(windows) > most:
        windows.popitem(last=False)


#: The script that sends the join form filled in from the QR code's address. It runs only in a
#: page the player opened: every answer forbids framing (``X-Frame-Options``), and an image or a
#: script's fetch of the address runs nothing.
SEND_FORM = "<script>document.getElementById('join').submit()</script>"
#: Where the app's page asks whether this device is still joined (204) or not (403).
ALIVE_PATH = "/alive"
#: Put in the app's page (served behind a code): every few seconds, while it is shown, it asks
#: :data:`ALIVE_PATH`. Refused (the table forgot its devices), the phone goes to the join page
#: and is told why; unanswered twice (the companion stopped), a line says so at the top until it
#: answers again. Flet's own client only spins ("Working...") in both cases.
WATCHDOG = b"""<script>(function () {
  var missed = 0, line = null;
  function say(text) {
    if (!line) {
      line = document.createElement('div');
      line.setAttribute('role', 'status');
      line.style.cssText = 'position:fixed;left:0;right:0;top:0;z-index:2147483647;padding:10px 14px;' +
        'background:#ffe08a;color:#222;font:16px/1.35 sans-serif;text-align:center';
      document.body.appendChild(line);
    }
    line.textContent = text;
  }
  function check() {
    if (document.visibilityState !== 'visible') return;
    fetch('%s', {cache: 'no-store', credentials: 'same-origin'}).then(function (r) {
      if (r.status === 403) { location.href = '/join?again=1'; return; }
      missed = 0;
      if (line) { line.remove(); line = null; }
    }, function () {
      missed += 1;
      if (missed >= 2) say('The companion is not answering: is it still running on its computer? ' +
                           'This page carries on by itself when it is back.');
    });
  }
  setInterval(check, 4000);
})();</script>""" % ALIVE_PATH.encode()


#: The join form's field: the code to type, or (from the QR code's address) its key, hidden.
CODE_FIELD = """<label for="code">Table code</label><br>
<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" maxlength="12"
 value="{code}" autofocus required><br>"""
KEY_FIELD = """<input type="hidden" name="key" value="{key}">"""
#: Characters of a key the join page takes from an address (a real one has 22).
KEY_MAX_CHARS = 64


JOIN_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Join this table - Chicken Foot companion</title>
<link rel="icon" type="image/png" href="/favicon.png">
<meta name="theme-color" content="{theme}">
<style>
body {{ font-family: sans-serif; margin: 0; padding: 24px; max-width: 28em; }}
h1 {{ font-size: 1.6em; }}
input {{ font-size: 2em; width: 7em; letter-spacing: .2em; padding: 6px; }}
button {{ font-size: 1.3em; padding: 10px 22px; margin-top: 14px; }}
.err {{ color: #b00020; font-weight: bold; }}
.note {{ font-weight: bold; }}
</style></head>
<body>
<h1>Join this table</h1>
<p>Type the table code shown where the Chicken Foot companion was started (or scan its QR code).
The code is new each time the companion starts.</p>
{message}
<form id="join" method="post" action="/join">
{field}
<button type="submit">Join</button>
</form>
{send}
</body></html>
"""


class TableGate:
    """ASGI middleware in front of the Flet app: Host, Origin, table code, uploads, the app's
    own face. ``joined`` is where the addresses that showed the code are told to the
    connection counting (:func:`~.limits.server_config` finds it here)."""

    def __init__(self, app: ASGIApp, *, port: int, loopback_only: bool, code: str | None,
                 names: tuple[str, ...] = (), uploads: Uploads | None = None, key: bytes | None = None,
                 join_key: str | None = None, devices: JoinedDevices | None = None) -> None:
        import secrets

        self.app = app
        self.uploads = uploads
        self.port = port
        self.loopback_only = loopback_only
        self.code = code
        #: What the QR code's address holds besides the code (see :data:`~.addresses.JOIN_KEY_BYTES`).
        self.join_key = (join_key or new_join_key()) if code is not None else None
        # the joined devices' cookies: kept across restarts when ``key`` and ``devices`` are (see
        # table_key, JoinedDevices)
        self.devices = devices if devices is not None else JoinedDevices(key or secrets.token_bytes(32))
        self.names = {n.lower() for n in names if n} | {"localhost"}
        self.tries = Tries()
        self.joined = Joined()

    def new_code(self) -> str:
        """A new table code, made from a device already at the table (the invite screen's New
        code): the old code and its QR code stop working (a new :attr:`join_key` with it), and
        every wrong code counted so far, by address or by network, is forgotten, so phones kept
        out by someone's guessing (or their own mistyping) can type it at once. Joined devices
        stay: their cookie does not depend on the code."""
        if self.code is None:
            raise ValueError("this table is served without a code")
        self.code = new_code()
        self.join_key = new_join_key()
        self.tries = Tries()
        log.info("a new table code was made; wrong codes so far forgotten")
        return self.code

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

    def has_joined(self, scope: Scope, headers: dict[str, str]) -> bool:
        """Whether the client shows a joined device's cookie (always, with no code); its address
        is then remembered as joined, for the room kept for joined devices."""
        return self.joined_device(scope, headers) is not None

    def joined_device(self, scope: Scope, headers: dict[str, str]) -> str | None:
        """The joined device whose cookie the client shows (``""`` when the table has no code),
        or None; its visit is noted."""
        device = ""
        if self.code is not None:
            found = next((d for v in cookie_values(headers.get("cookie", ""), COOKIE)[:COOKIES_TRIED]
                          if (d := self.devices.check(v)) is not None), None)
            if found is None:
                return None
            device = found
            self.devices.seen(device, str((scope.get("client") or ("?", 0))[0]))
        self._remember(scope)
        return device

    def _remember(self, scope: Scope) -> None:
        client = scope.get("client")
        if client:
            self.joined.add(address_key(str(client[0])))

    # ---------------------------------------------------------------- ASGI
    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "lifespan":
            await self.app(scope, receive, send)
            return
        headers = headers_of(scope)
        host = headers.get("host", "")
        origin = headers.get("origin")
        if kind == "websocket":
            device = self.joined_device(scope, headers) if self.host_ok(host) and self.origin_ok(origin, host) else None
            if device is None:
                log.info("refused a WebSocket (host %r, origin %r)", host, origin)
                await receive()  # websocket.connect
                await send({"type": "websocket.close", "code": 1008})  # before accept: HTTP 403
                return
            if not device:  # no code, no devices to put out
                await self.app(scope, receive, send)
                return
            cut = self.devices.opened(device)
            try:
                await self.app({**scope, DEVICE_SCOPE_KEY: device}, _until(cut, receive, send), send)
            finally:
                self.devices.closed(device, cut)
            return
        if kind != "http":
            return
        if not self.host_ok(host):
            await reply(send, 421, "This address is not served here.\n", close=True)
            return
        if origin is not None and not self.origin_ok(origin, host):
            await reply(send, 403, "Requests from other sites are refused.\n", close=True)
            return
        path, method = scope.get("path", "/"), scope.get("method", "GET")
        if path == "/join" and self.code is not None:
            await self._join(scope, receive, send, headers)
            return
        if method == "PUT" and path.startswith(UPLOAD_PATH) and self.uploads is not None:
            if origin is None or not self.has_joined(scope, headers):
                await reply(send, 403, "Uploads come from this table's own page.\n", close=True)
                return
            await receive_upload(self.uploads, path[len(UPLOAD_PATH):], headers, receive, send)
            return
        if method not in ("GET", "HEAD"):
            await reply(send, 405, "Only GET is served here.\n", close=True)
            return
        own = face.file(path)  # the app's own icons and manifest, for everyone (no match in them)
        if own is not None:
            await reply(send, 200, own[0], own[1], cache=b"max-age=3600")
            return
        if path == ALIVE_PATH:  # the page's watchdog: never a try of a code, never counted
            await reply(send, 204 if self.has_joined(scope, headers) else 403, b"")
            return
        if not self.has_joined(scope, headers):
            await self._join_page(send, 403, "")
            return
        watched = self.code is not None and method == "GET"
        await self.app(scope, receive, with_watchdog(safe_headers(send)) if watched else safe_headers(send))

    async def _join(self, scope: Scope, receive: Receive, send: Send, headers: dict[str, str]) -> None:
        client = (scope.get("client") or ("?", 0))[0]
        if scope.get("method") == "POST":
            try:
                body = await read_body(receive, 4096, JOIN_BODY_S)
            except BodyTooSlow:
                await reply(send, 408, "The form came too slowly.\n", close=True)
                return
            if body is None:
                return
            form = parse_qs(body.decode("latin-1"))
            given, given_key = form.get("code", [""])[0], form.get("key", [""])[0]
        elif scope.get("method") in ("GET", "HEAD"):
            # Any page a phone opens can make its browser load /join?code=... (an image, a
            # frame, a script's fetch): were such codes tried, a page left open would spend the
            # phone's wrong codes and lock it out of its own table. So the address only fills
            # the form in, and the page sends it: a POST, which carries its Origin.
            query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
            given, given_key = query.get("code", [""])[0], query.get("key", [""])[0]
            if self.has_joined(scope, headers):
                await redirect(send, "/", None)
            else:
                said = ("Joining this table (press Join if nothing happens)." if given or given_key else
                        "This phone is no longer joined to the table (it was removed there, the companion "
                        "asks every device to join anew, or this browser forgot it). Type the code it shows now."
                        if "again" in query else "")
                await self._join_page(send, 200, said, given, given_key)
            return
        else:
            await reply(send, 405, "Only GET and POST are served here.\n", close=True)
            return
        if headers.get("sec-fetch-site", "same-origin") != "same-origin":
            await reply(send, 403, "Requests from other sites are refused.\n", close=True)
            return
        if self.has_joined(scope, headers):
            # joined already: whatever code a page sent it here with, it is no try (a wrong one
            # would count against the phone's own address)
            await redirect(send, "/", None)
            return
        assert self.code is not None and self.join_key is not None
        now = time.monotonic()
        if given_key:
            # the QR code's key: never guessed, so never counted nor held back by wrong codes
            if not hmac.compare_digest(given_key.strip().encode(), self.join_key.encode()):
                await self._join_page(send, 403, "This QR code or link is an old one: the table has a new "
                                      "code since. Scan the QR code it shows now (Invite a phone), or "
                                      "type its code.")
                return
            await self._let_in(scope, send, headers, client, now)
            return
        if not given.strip():  # nothing guessed: nothing counted
            await self._join_page(send, 400, "Type the table code shown where the companion was started.")
            return
        held = self.tries.held(client, now)
        if held is not None:
            wait = "wait a minute, then try again" if held[1] == "minute" else "wait up to an hour"
            qr = "the QR code shown at the table (Invite a phone): it joins whatever codes were typed"
            if held[0] == "address":
                await self._join_page(send, 429, f"Too many wrong codes: {wait}, or scan {qr}.")
            elif held[0] == "network":  # another device of this network, guessing: not this phone
                await self._join_page(send, 429, "Too many wrong codes came from this network (another device "
                                      f"guessing the code). Scan {qr}. Or ask for a new code.")
            else:
                await self._join_page(send, 429, "Too many wrong codes have come to this table (someone guessing "
                                      f"the code). Scan {qr}. Or ask for a new code.")
            return
        if not hmac.compare_digest("".join(given.split()).encode(), self.code.encode()):
            self.tries.failed(client, now)
            await self._join_page(send, 403, "That is not this table's code (it changes each time the companion "
                                  "starts, and with New code: ask for the one it shows now).")
            return
        await self._let_in(scope, send, headers, client, now)

    async def _let_in(self, scope: Scope, send: Send, headers: dict[str, str], client: str, now: float) -> None:
        """A cookie of its own for the device, and on to the app."""
        cap = self.tries.joins_held(client, now)
        if cap is not None:
            await self._join_page(send, 429, "Too many devices joined from this address just now: wait "
                                  + ("a minute." if cap == "minute" else "up to an hour."))
            return
        try:
            cookie = self.devices.join(client, headers.get("user-agent", ""))
        except TableFull as exc:
            await self._join_page(send, 503, f"This phone cannot join now: {exc}.")
            return
        self.tries.joined(client, now)
        self._remember(scope)
        # Lax, not Strict: a joined phone that follows a link to the table from another site (a
        # chat, a browser's start page) is sent the app, not the join page. What another site
        # could do with the cookie sent is refused on its own: a POST or an upload by its Origin,
        # the WebSocket by its Origin, and a GET only ever answers the app's page.
        await redirect(send, "/", f"{COOKIE}={cookie}; Path=/; Max-Age={COOKIE_MAX_AGE_S}; HttpOnly; "
                       "SameSite=Lax")

    async def _join_page(self, send: Send, status: int, message: str, code: str = "", key: str = "") -> None:
        """The join page; ``code`` or ``key`` (from the QR code's address) filled in and sent at
        once. A key is sent as it is, hidden: there is nothing to type."""
        kind = "note" if status == 200 else "err"
        text = f'<p class="{kind}" role="alert">{html.escape(message)}</p>' if message else ""
        key = html.escape(key.strip()[:KEY_MAX_CHARS], quote=True) if status == 200 else ""
        filled = html.escape("".join(code.split())[:12], quote=True)
        field = KEY_FIELD.format(key=key) if key else CODE_FIELD.format(code=filled)
        page = JOIN_PAGE.format(message=text, theme=face.THEME_COLOUR, field=field,
                                send=SEND_FORM if (filled or key) and status == 200 else "")
        await reply(send, status, page, "text/html; charset=utf-8")


#: The close code a removed device's open connection is closed with.
REMOVED_CLOSE_CODE = 4003


def _until(cut: asyncio.Event, receive: Receive, send: Send) -> Receive:
    """``receive`` that ends the connection once ``cut`` is set (its device was removed): the
    client is sent a close, the app a disconnect."""

    async def guarded() -> dict:
        if not cut.is_set():
            got = asyncio.ensure_future(receive())
            waiting = asyncio.ensure_future(cut.wait())
            try:
                await asyncio.wait({got, waiting}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                waiting.cancel()
                if not got.done():
                    got.cancel()
            if got.done() and not got.cancelled():
                return got.result()
        with contextlib.suppress(Exception):  # the app or the client closed it already
            await send({"type": "websocket.close", "code": REMOVED_CLOSE_CODE})
        return {"type": "websocket.disconnect", "code": REMOVED_CLOSE_CODE}

    return guarded


#: Bytes of the key the joined devices' cookie is made with.
KEY_BYTES = 32


def table_key(path: Path, forget: bool = False) -> bytes:
    """The key of the joined devices' cookie, kept in ``path`` (readable by its owner only), so
    a restart of the companion keeps the table's phones joined: a phone left open reconnects by
    itself instead of waiting on a server that refuses it. Made afresh when ``forget`` (every
    device then joins again with the code), or when the file is missing or not a key."""
    import secrets

    from chickenfoot.storage.safe_json import atomic_write

    if not forget:
        try:
            kept = path.read_bytes()
        except OSError:
            kept = b""
        if len(kept) == KEY_BYTES:
            return kept
    key = secrets.token_bytes(KEY_BYTES)
    atomic_write(path, key, keep_backup=False, make_folder=False, mode=0o600)
    return key


def with_watchdog(send: Send) -> Send:
    """``send`` with :data:`WATCHDOG` put in every HTML page it answers with (the app's own
    page), its length told again; anything else goes through as it is."""
    held: dict | None = None
    parts: list[bytes] = []

    async def wrapped(message: dict) -> None:
        nonlocal held
        if message["type"] == "http.response.start":
            headers = {k.lower(): v for k, v in message.get("headers", [])}
            if (message.get("status") == 200 and headers.get(b"content-type", b"").startswith(b"text/html")
                    and b"content-encoding" not in headers):
                held = message
                return
        elif held is not None and message["type"] == "http.response.body":
            parts.append(message.get("body", b""))
            if message.get("more_body"):
                return
            page = b"".join(parts)
            page = page.replace(b"</head>", WATCHDOG + b"</head>", 1) if b"</head>" in page else page + WATCHDOG
            headers = [(k, v) for k, v in held.get("headers", []) if k.lower() != b"content-length"]
            await send({**held, "headers": [*headers, (b"content-length", str(len(page)).encode())]})
            await send({"type": "http.response.body", "body": page})
            return
        await send(message)

    return wrapped
