"""Files a session asked a browser for (a photo, an export to import), sent with
``PUT /upload/<token>`` to a one-time random name; bounded in number, bytes held and pace."""

from __future__ import annotations

import asyncio
import concurrent.futures
import secrets
import threading
import time

from chickenfoot.rules.errors import InputError

from .answers import Receive, Send, reply

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


class UploadRefused(InputError):
    """A file a browser sent that the server does not take (too big, cut off)."""


class Uploads:
    """Files the app asked a browser for, each expected under a one-time random token:
    :meth:`expect` makes one and a future its bytes arrive in; ``PUT /upload/<token>``
    (:func:`receive_upload`) delivers them, once, within :data:`UPLOAD_WAIT_S`, at most
    ``max_bytes``. Kept in memory only, and bounded: one file expected per session at a time,
    at most ``waiting_max`` in all, and the bodies being received hold at most ``held_max``
    bytes together."""

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


#: Why an upload was refused: what the session waiting for it says, and the HTTP answer's body.
_BUSY = ("the server is receiving other files; try again in a moment",
         "Busy receiving other files: try again in a moment.\n")
_TOO_SLOW = ("the file came too slowly", "The file came too slowly.\n")


def _too_big(limit: int) -> tuple[str, str]:
    return f"the file is larger than {limit // 2**20} MB", "Too large.\n"


async def _refuse(fut: concurrent.futures.Future[bytes], send: Send, status: int, why: tuple[str, str]) -> None:
    """Tell the session waiting for the file why it will not come, and the sender (whose body
    is not read any further: the connection closes)."""
    settle(fut, error=UploadRefused(why[0]))
    await reply(send, status, why[1], close=True)


async def receive_upload(ups: Uploads, token: str, headers: dict[str, str], receive: Receive,
                         send: Send) -> None:
    """Hand the request's body to the session waiting for ``token``."""
    fut = ups.take(token)
    if fut is None:
        await reply(send, 404, "No file is expected here (it was sent already, or too late).\n", close=True)
        return
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
        await _receive(ups, fut, receive, send, counted)
    finally:
        ups.release(counted[0])


async def _receive(ups: Uploads, fut: concurrent.futures.Future[bytes], receive: Receive,
                   send: Send, counted: list[int]) -> None:
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
        await reply(send, 410, "The app stopped waiting for this file.\n")
        return
    await reply(send, 200, "Received.\n")
