"""The plain HTTP the gate speaks itself (ASGI): reading a request's headers and a small body
within a deadline, and answering with the headers every answer carries."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: Headers every answer gets, and those dropped from Flet's (its wildcard CORS, its name).
ADDED = [
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
    (b"x-content-type-options", b"nosniff"),
    # Flutter's web engine wants cross-origin isolation (as Flet's own server sets it).
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-embedder-policy", b"require-corp"),
    # Scripts and fetches only from the table itself: Flet's client asks a CDN for a script on
    # every load (rive_native.js from jsdelivr), and nothing is to be downloaded at run time. Offline that
    # request already failed; the browser now never makes it. Inline scripts (Flet's settings,
    # the join form) and WebAssembly (the renderer) stay allowed.
    (b"content-security-policy", b"script-src 'self' 'unsafe-inline' 'unsafe-eval' 'wasm-unsafe-eval' blob:; "
                                 b"connect-src 'self' data: blob:"),
]
DROPPED = {b"access-control-allow-origin", b"access-control-allow-credentials", b"server"}


class BodyTooSlow(Exception):
    """A request's body did not arrive within its deadline."""


def headers_of(scope: Scope) -> dict[str, str]:
    out: dict[str, str] = {}
    for k, v in scope.get("headers", ()):
        out.setdefault(k.decode("latin-1").lower(), v.decode("latin-1"))
    return out


def cookie_values(header: str, name: str) -> list[str]:
    """Every value of cookie ``name`` in a ``Cookie`` header: a page on another port of the same
    host can set one of the same name on a longer path, which browsers then send first."""
    out = []
    for part in header.split(";"):
        k, sep, v = part.strip().partition("=")
        if sep and k.strip() == name:
            out.append(v.strip())
    return out


async def read_body(receive: Receive, limit: int, within_s: float) -> bytes | None:
    """The request's whole body if it comes within ``within_s`` seconds; b"" past ``limit``
    bytes; None when the client went away. Raises :class:`BodyTooSlow` at the deadline."""
    data = b""
    try:
        async with asyncio.timeout(within_s):  # no task of its own per request (wait_for makes one)
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    return None
                data += message.get("body", b"")
                if len(data) > limit:
                    return b""
                if not message.get("more_body"):
                    return data
    except TimeoutError:
        raise BodyTooSlow from None


async def reply(send: Send, status: int, body: str | bytes, ctype: str = "text/plain; charset=utf-8",
                *, close: bool = False, cache: bytes = b"no-store") -> None:
    """Answer ``status`` with ``body``; ``close`` ends the connection after it (a request body
    left unread is not waited for)."""
    data = body.encode("utf-8") if isinstance(body, str) else body
    headers = [(b"content-type", ctype.encode()), (b"content-length", str(len(data)).encode()),
               (b"cache-control", cache), *ADDED]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


async def redirect(send: Send, to: str, cookie: str | None) -> None:
    headers = [(b"location", to.encode()), (b"content-length", b"0"), (b"cache-control", b"no-store"), *ADDED]
    if cookie:
        headers.append((b"set-cookie", cookie.encode()))
    await send({"type": "http.response.start", "status": 303, "headers": headers})
    await send({"type": "http.response.body", "body": b""})


def safe_headers(send: Send) -> Send:
    """``send`` with :data:`DROPPED` taken out of an answer's headers and :data:`ADDED` put in."""
    added = {a for a, _ in ADDED}

    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.start":
            kept = [(k, v) for k, v in message.get("headers", ()) if k.lower() not in DROPPED
                    and k.lower() not in added]
            message = {**message, "headers": kept + ADDED}
        await send(message)
    return wrapped
