"""What one server lets its connections hold, and how it stops.

Connections are counted per client address (:func:`~.addresses.address_key`) and in all.
Addresses that have shown the table code (:class:`Joined`) have room of their own: strangers
(every other address) share :attr:`Limits.strangers` slots, so no flood of strangers reaches the
joined devices' slots. When the strangers' slots are full, a newcomer takes the slot of the
longest-held connection of the address that holds the most of them (unless it is that address
itself), so many slow connections from a few addresses never keep a new phone out.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import struct
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .addresses import address_key
from .answers import ASGIApp

log = logging.getLogger(__name__)

#: Largest WebSocket message a client may send. Files travel by ``PUT /upload/<token>``, so the
#: socket carries only taps and typed text; a client cannot make the server buffer more.
WS_MAX_BYTES = 4 * 2**20
#: Connections one client address may hold open at once, WebSockets included: a browser opens
#: about 6 to a server, plus one WebSocket per tab. Past it a new connection from that address
#: is closed at once, so no one address can fill the server.
CONNECTIONS_PER_ADDRESS = 32
#: Connections open at once from all addresses together.
CONNECTIONS_IN_ALL = 1000
#: Of those, what addresses that have not shown the table code may hold together: the other
#: 400 are kept for the devices that have joined.
CONNECTIONS_OF_STRANGERS = 600
#: Addresses remembered as joined (the least recently seen forgotten first).
JOINED_ADDRESSES = 1024
#: Seconds a connection has to send a request's headers, from connecting or from the end of its
#: previous answer: a connection that sends nothing, or its headers a byte at a time, is closed.
HEADERS_WITHIN_S = 10.0
#: Bytes a request's line and headers may take: past them the connection is answered 431 and
#: closed. The HTTP parser keeps whatever headers it is sent until they end, so without a cap
#: one connection made the server hold 300 MB in half a second on loopback, and an address's
#: 32 connections would exhaust the machine's memory well within HEADERS_WITHIN_S. A browser's
#: request to the table takes under 2 kB; cookies of other servers on the same host (cookies
#: ignore the port) get the rest.
HEADERS_MOST_BYTES = 64 * 1024
#: Requests a stranger's connection may send ahead of an answer not yet finished; one more and
#: the connection is cut. uvicorn pauses reading while an answer is pending, but parses all it
#: has read (up to 256 kB at a time, 6,000 small requests) and reads on after each answer
#: however many still wait: 20,000 pipelined ``GET /`` on one connection that read nothing had
#: the server hold 17,400 of them (46 MB) for as long as the client liked. Browsers do not
#: pipeline.
STRANGERS_AHEAD = 4
#: Seconds a stranger's answers may wait in the server for its client to take them, before the
#: connection is cut and its buffers (the kernel's too) dropped. The kernel takes megabytes of
#: a connection's answers first and strangers' answers take about 1 kB (the join page, refusals),
#: so only a client that reads nothing or next to nothing is ever cut; joined devices, which
#: download Flet's files of megabytes over slow Wi-Fi, are never held to it.
STRANGERS_UNREAD_S = 5.0
#: Seconds an idle connection is kept open between two requests (uvicorn's keep-alive).
KEEP_ALIVE_S = 5
#: Seconds from SIGTERM to the process being gone at the latest: uvicorn gets STOP_GRACE_S to
#: close the connections, a watchdog ends the process at STOP_HARD_S.
STOP_GRACE_S = 1.0
STOP_HARD_S = 2.5


@dataclass(frozen=True)
class Limits:
    """What one server lets its connections hold (see the constants of the same names)."""

    per_address: int = CONNECTIONS_PER_ADDRESS
    in_all: int = CONNECTIONS_IN_ALL
    strangers: int = CONNECTIONS_OF_STRANGERS
    headers_s: float = HEADERS_WITHIN_S
    keep_alive_s: int = KEEP_ALIVE_S
    headers_bytes: int = HEADERS_MOST_BYTES
    strangers_ahead: int = STRANGERS_AHEAD
    strangers_unread_s: float = STRANGERS_UNREAD_S


class Joined:
    """Addresses that have shown the table code (a valid cookie, or the code itself): the gate
    adds them, the connection counting reads them. Bounded (:data:`JOINED_ADDRESSES`)."""

    def __init__(self, most: int = JOINED_ADDRESSES) -> None:
        self.most = most
        self._seen: OrderedDict[str, None] = OrderedDict()

    def add(self, key: str) -> None:
        if key in self._seen:
            self._seen.move_to_end(key)
            return
        self._seen[key] = None
        while len(self._seen) > self.most:
            self._seen.popitem(last=False)

    def __contains__(self, key: object) -> bool:
        return key in self._seen


class Connections:
    """Open connections counted per client address and in all, strangers apart (see the
    module's docstring). A connection is any object with an ``evict()`` method."""

    def __init__(self, limits: Limits, joined: Joined | None = None) -> None:
        self.limits = limits
        self.joined = joined if joined is not None else Joined()
        self.per_address: dict[str, int] = {}
        self.total = 0
        #: Strangers' connections per address, longest held first.
        self.strangers: dict[str, OrderedDict[Any, None]] = {}
        self.stranger_count = 0
        self.refused = 0
        self.evicted = 0

    def admit(self, key: str, conn: Any) -> bool:
        lim = self.limits
        if self.per_address.get(key, 0) >= lim.per_address:
            return self._refuse(key)
        if key in self.joined:
            if self.total >= lim.in_all and not self._evict_for(key):
                return self._refuse(key)
        elif (self.stranger_count >= lim.strangers or self.total >= lim.in_all) and not self._evict_for(key):
            return self._refuse(key)
        self.per_address[key] = self.per_address.get(key, 0) + 1
        self.total += 1
        if key not in self.joined:
            self.strangers.setdefault(key, OrderedDict())[conn] = None
            self.stranger_count += 1
        return True

    def promote(self, key: str, conn: Any) -> None:
        """``conn``'s address has joined: its connection leaves the strangers' slots."""
        held = self.strangers.get(key)
        if held is not None and conn in held and key in self.joined:
            self._drop_stranger(key, conn)

    def move(self, key: str, old: Any, new: Any) -> None:
        """``old``'s slot is ``new``'s now (an HTTP connection upgraded to a WebSocket; the
        gate lets only joined clients' WebSockets through, so it leaves the strangers' slots
        once its address has joined)."""
        held = self.strangers.get(key)
        if held is not None and old in held:
            self._drop_stranger(key, old)
            if key not in self.joined:
                self.strangers.setdefault(key, OrderedDict())[new] = None
                self.stranger_count += 1

    def release(self, key: str, conn: Any) -> None:
        self.total -= 1
        left = self.per_address.get(key, 1) - 1
        if left > 0:
            self.per_address[key] = left
        else:
            self.per_address.pop(key, None)
        held = self.strangers.get(key)
        if held is not None and conn in held:
            self._drop_stranger(key, conn)

    def _drop_stranger(self, key: str, conn: Any) -> None:
        held = self.strangers[key]
        del held[conn]
        self.stranger_count -= 1
        if not held:
            del self.strangers[key]

    def _evict_for(self, key: str) -> bool:
        """Close the longest-held stranger connection of the address holding the most, to make
        room for one from ``key``; False when ``key`` itself holds as many as any."""
        mine = len(self.strangers.get(key, ()))
        biggest = max(self.strangers.items(), key=lambda kv: len(kv[1]), default=None)
        if biggest is None or len(biggest[1]) <= mine:
            return False
        victim = next(iter(biggest[1]))
        victim.evict()  # releases its slot (see release) and closes it
        self.evicted += 1
        if self.evicted in (1, 100) or self.evicted % 10_000 == 0:
            log.warning("closed a connection from %s to make room (%d so far): strangers' "
                        "connections are full", biggest[0], self.evicted)
        return True

    def _refuse(self, key: str) -> bool:
        self.refused += 1
        if self.refused in (1, 100) or self.refused % 10_000 == 0:
            log.warning("refused a connection from %s: too many open (%d refused so far)",
                        key, self.refused)
        return False


#: SO_LINGER on, for 0 s: closing the socket resets the connection and frees its buffer.
_LINGER_0 = struct.pack("HH" if sys.platform == "win32" else "ii", 1, 0)


def _reset(transport: Any) -> None:
    """Close at once, dropping what waits to be sent. A plain close waits for the client to
    read it all; even an abort leaves the kernel sending the socket's buffer to a client that
    reads nothing (3.8 MB held after the process let go, the socket still in FIN-WAIT-1)."""
    with contextlib.suppress(OSError, AttributeError, TypeError):
        transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, _LINGER_0)
    transport.abort()


def _guarded_protocols(conns: Connections, http: type, ws: type) -> tuple[type, type]:
    """uvicorn's HTTP and WebSocket protocols, counting each connection under its address
    from accepting it to closing it (an upgraded one hands its count to the WebSocket), and
    closing one that has not sent a request's headers within ``headers_s`` of connecting or of
    its previous answer, and cutting a stranger's that pipelines past ``strangers_ahead`` or
    leaves its answers unread for ``strangers_unread_s``."""

    class Slotted:
        """A connection counted under its address until it closes; evicted, it gives its slot
        back at once."""

        _slot: str | None = None
        transport: Any

        def evict(self) -> None:
            if self._slot is not None:
                conns.release(self._slot, self)
                self._slot = None
            _reset(self.transport)

    class GuardedHTTP(Slotted, http):  # type: ignore[misc, valid-type]
        _refused = False
        _headers_timer: asyncio.TimerHandle | None = None
        #: Bytes received since the last request's headers ended (outside its body), and
        #: whether the connection was cut for them.
        _head_bytes = 0
        _cut = False
        _unread_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            peer = transport.get_extra_info("peername")
            key = address_key(str(peer[0])) if isinstance(peer, tuple) and peer else "?"
            self._slot = key
            if not conns.admit(key, self):
                self._slot = None
                self._refused = True
                transport.abort()
                return
            super().connection_made(transport)
            self._expect_headers()

        def data_received(self, data: bytes) -> None:
            if self._cut:
                return
            before = self.cycle
            in_body = before is not None and before.more_body
            super().data_received(data)
            if self.cycle is not before:  # a request's headers ended: the next ones count afresh
                self._head_bytes = 0
                return
            if in_body or self.transport.get_protocol() is not self:
                return
            self._head_bytes += len(data)
            if self._head_bytes > conns.limits.headers_bytes and not self.transport.is_closing():
                self._cut = True  # what else it sends is not read
                body = b"The request's headers are too large.\n"
                self.transport.write(b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
                                     b"content-type: text/plain; charset=utf-8\r\n"
                                     b"content-length: %d\r\nconnection: close\r\n\r\n%s" % (len(body), body))
                self.transport.close()

        # httptools' parser calls these for each request in what was read, so a stranger is cut
        # inside one read, before the rest of it is parsed into waiting answers.
        def on_headers_complete(self) -> None:
            if self._cut:
                return
            super().on_headers_complete()
            if len(self.pipeline) > conns.limits.strangers_ahead and self._stranger():
                self._cut_off()

        def on_body(self, body: bytes) -> None:
            if not self._cut:
                super().on_body(body)

        def on_message_complete(self) -> None:
            if not self._cut:
                super().on_message_complete()

        def pause_writing(self) -> None:
            super().pause_writing()
            self._watch_unread()

        def _stranger(self) -> bool:
            return self._slot is not None and self._slot not in conns.joined

        def _watch_unread(self) -> None:
            """Cut a stranger's connection if answers still wait in the server for it
            ``strangers_unread_s`` from now."""
            if self._unread_timer is not None or not self._stranger():
                return

            def check() -> None:
                self._unread_timer = None
                t = self.transport
                if t.get_protocol() is self and self._stranger() and t.get_write_buffer_size():
                    self._cut_off()

            self._unread_timer = self.loop.call_later(conns.limits.strangers_unread_s, check)

        def _cut_off(self) -> None:
            self._cut = True
            _reset(self.transport)

        def connection_lost(self, exc: Exception | None) -> None:
            if self._refused:
                return
            if self._headers_timer is not None:
                self._headers_timer.cancel()
            if self._unread_timer is not None:
                self._unread_timer.cancel()
            if self._slot is not None:
                conns.release(self._slot, self)
                self._slot = None
            super().connection_lost(exc)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if self._slot is not None:
                conns.promote(self._slot, self)
            if not self.transport.is_closing():
                self._expect_headers()
            if self.transport.get_write_buffer_size():
                self._watch_unread()

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

    class GuardedWS(Slotted, ws):  # type: ignore[misc, valid-type]

        def connection_made(self, transport: Any) -> None:
            upgraded = transport.get_protocol()  # the HTTP protocol, still set at this point
            self._slot = getattr(upgraded, "_slot", None)
            if self._slot is not None:
                conns.move(self._slot, upgraded, self)
                upgraded._slot = None
                for timer in (upgraded._headers_timer, upgraded._unread_timer):
                    if timer is not None:
                        timer.cancel()
            super().connection_made(transport)

        def connection_lost(self, exc: Exception | None) -> None:
            if self._slot is not None:
                conns.release(self._slot, self)
                self._slot = None
            super().connection_lost(exc)

    return GuardedHTTP, GuardedWS


class _Repeats(logging.Filter):
    """Lets through the first of each of uvicorn's warnings (an invalid request, an upgrade it
    does not speak), then only every so often with its count: a stranger makes one with each
    connection (1,000 lines in 0.6 s), which would scroll the table code and the QR code printed
    at start, and a new code printed later, out of the host's terminal."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: dict[str, int] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno > logging.WARNING:
            return True
        key = str(record.msg)  # the format, not its arguments: those may be the client's
        n = self.seen[key] = self.seen.get(key, 0) + 1
        if n in (1, 100) or n % 10_000 == 0:
            if n > 1:
                record.msg, record.args = f"{record.getMessage()} ({n} so far)", None
            return True
        return False


def _quiet_repeats() -> None:
    """A new count for the server being configured (one filter at a time)."""
    logger = logging.getLogger("uvicorn.error")
    for old in [f for f in logger.filters if isinstance(f, _Repeats)]:
        logger.removeFilter(old)
    logger.addFilter(_Repeats())


def server_config(app: ASGIApp, limits: Limits | None = None, joined: Joined | None = None) -> Any:
    """The ``uvicorn.Config`` the app is served with: connections limited per address and in
    all (strangers apart from ``joined`` addresses: the gate's own when ``app`` is a gate),
    headers and idle connections timed out, WebSocket messages capped, uvicorn's warnings about
    bad requests logged once and then only counted."""
    import uvicorn
    from uvicorn.protocols.http.auto import AutoHTTPProtocol
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

    limits = limits or Limits()
    joined = joined if joined is not None else getattr(app, "joined", None)
    http, ws = _guarded_protocols(Connections(limits, joined), AutoHTTPProtocol, WebSocketsSansIOProtocol)
    config = uvicorn.Config(
        app, log_level="warning", access_log=False, proxy_headers=False, server_header=False,
        http=http, ws=ws, ws_max_size=WS_MAX_BYTES, timeout_graceful_shutdown=STOP_GRACE_S,
        timeout_keep_alive=limits.keep_alive_s, lifespan="on", limit_concurrency=limits.in_all + 1)
    _quiet_repeats()  # after the Config: it sets uvicorn's loggers up
    return config


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
    """Serve ``app`` on the bound ``sock`` until SIGTERM/SIGINT, then end the process (exit
    status 0) within 3 s of it, however many sessions it holds."""
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
        for name in ("flet", "flet_web", "flet_transport"):
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
    # Tearing down the interpreter frees every kept session's objects one by one (3.8 s for 600
    # sessions, measured); the store is closed and every save was an atomic replace, so there is
    # nothing left to do but go.
    _hard_exit()


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
    # Also where a session's handler thread still runs (a photo being read) when the watchdog
    # fires: the server is closed and every save is an atomic replace, so ending loses nothing.
    with contextlib.suppress(Exception):
        logging.shutdown()
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(0)
