"""The devices that joined the table: each its own cookie, each one removable.

A device that gives the table code (or the QR code's key) is given a cookie of its own,
``ID.MAC``: a random id and its HMAC under the table's key (:func:`~.gate.table_key`). A cookie
lets its device in while its id is on the list kept beside the scorekeeper file
(``FILE-table-devices.json``), so a device removed at the table (Invite a phone, Remove) is out
at once and stays out after a restart, while every other device stays in. A list that cannot be
read lets nobody in (every device joins again with the code): it fails closed.

What is shown of a device is what the server can vouch for: its address, when it joined and was
last seen, and its kind of phone and browser picked from a fixed list of words (a browser's
``User-Agent`` is its own word, so none of its text is shown as it is).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import os
import secrets
import stat
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from chickenfoot.rules.errors import ChickenFootError

log = logging.getLogger(__name__)

#: Devices the list keeps at most. A join past it first forgets devices unseen for
#: :data:`STALE_S`; if none is, it is refused (someone at the table removes devices): a burst of
#: joins by someone who has the code never pushes the table's own devices out.
DEVICES_MOST = 200
#: Seconds unseen after which a device may be forgotten to make room: 60 days.
STALE_S = 60 * 24 * 3600.0
#: Where a joined device's WebSocket scope names it, for the session it serves (see
#: :func:`~.bridge.device_of`).
DEVICE_SCOPE_KEY = "chickenfoot.device"
#: Seconds between two notes of one device's last visit (its page asks every 4 s while shown),
#: and between two writes of it to the file.
SEEN_EVERY_S = 30.0
SEEN_KEPT_EVERY_S = 24 * 3600.0
#: Bytes of a list file read at most (200 devices take about 30 kB).
FILE_MOST = 1 << 20


class TableFull(ChickenFootError):
    """The list holds :data:`DEVICES_MOST` devices, all seen lately: no device joins until some
    are removed."""

_SYSTEMS = (("iPhone", "iPhone"), ("iPad", "iPad"), ("Android", "Android"), ("CrOS", "Chromebook"),
            ("Windows", "Windows"), ("Macintosh", "Mac"), ("Linux", "Linux"))
_BROWSERS = (("Firefox/", "Firefox"), ("FxiOS/", "Firefox"), ("Edg", "Edge"), ("SamsungBrowser/", "Samsung Internet"),
             ("CriOS/", "Chrome"), ("Chrome/", "Chrome"), ("Safari/", "Safari"))


def device_kind(user_agent: str) -> str:
    """A device's kind in words from a fixed list ("Android · Chrome"), never the browser's
    own text."""
    system = next((name for mark, name in _SYSTEMS if mark in user_agent), "Device")
    browser = next((name for mark, name in _BROWSERS if mark in user_agent), "a browser")
    return f"{system} · {browser}"


@dataclass(frozen=True)
class JoinedDevice:
    """One device at the table, as the list shows it."""

    id: str
    kind: str
    address: str
    joined_at: float  # seconds since the epoch
    seen_at: float

    def to_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "address": self.address, "joined_at": self.joined_at, "seen_at": self.seen_at}


class JoinedDevices:
    """The table's joined devices: who may come in (:meth:`check`), who is shown (:meth:`listing`)
    and who is put out (:meth:`remove`), kept in ``path`` when one is given."""

    def __init__(self, key: bytes, path: Path | None = None, *, forget: bool = False,
                 most: int = DEVICES_MOST) -> None:
        self._key = key
        self.path = path
        self.most = most
        self._lock = threading.Lock()
        self._devices: dict[str, JoinedDevice] = {}
        #: Open WebSockets per device, each as (its loop, the event that cuts it).
        self._sockets: dict[str, set[tuple[asyncio.AbstractEventLoop, asyncio.Event]]] = {}
        #: Called (on the server's loop or a session's thread) when the list changes.
        self.on_change: Callable[[], None] | None = None
        #: Why the kept list was not read at start (every device then joins again), if so.
        self.unread: str | None = None
        #: Why the last change could not be kept in the file (it holds until a restart), if so.
        self.unkept: str | None = None
        #: When each device's visit was last written to the file.
        self._kept_seen: dict[str, float] = {}
        if path is not None:
            if forget:
                self._save()
            else:
                self._load()

    # ------------------------------------------------------------ cookies
    def _mac(self, device: str) -> str:
        return hmac.new(self._key, b"device " + device.encode(), hashlib.sha256).hexdigest()

    def cookie(self, device: str) -> str:
        return f"{device}.{self._mac(device)}"

    def check(self, cookie: str) -> str | None:
        """The device a cookie stands for, if it is signed by this table and still on the list."""
        device, _, mac = cookie.partition(".")
        if not _is_id(device):
            return None
        if not hmac.compare_digest(mac.encode(), self._mac(device).encode()):
            return None
        with self._lock:
            return device if device in self._devices else None

    # ------------------------------------------------------------ the list
    def join(self, address: str, user_agent: str, now: float | None = None) -> str:
        """A new device on the list; its cookie. :class:`TableFull` when the list is full of
        devices seen lately."""
        now = time.time() if now is None else now
        device = secrets.token_hex(8)
        with self._lock:
            if len(self._devices) >= self.most:
                for d in [d for d in self._devices.values() if now - d.seen_at > STALE_S]:
                    del self._devices[d.id]
            if len(self._devices) >= self.most:
                raise TableFull(f"{len(self._devices)} devices have joined this table already: someone "
                                "at the table can remove those that should not be there (Invite a phone)")
            self._devices[device] = JoinedDevice(device, device_kind(user_agent), address, now, now)
            self._save_locked()
        self._changed()
        return self.cookie(device)

    def seen(self, device: str, address: str, now: float | None = None) -> None:
        """Note a device's visit (written to the file at most once a day a device, so that a
        device in use is never taken for one unseen for long)."""
        now = time.time() if now is None else now
        with self._lock:
            d = self._devices.get(device)
            if d is None or (now - d.seen_at < SEEN_EVERY_S and d.address == address):
                return
            self._devices[device] = replace(d, seen_at=now, address=address)
            if now - self._kept_seen.get(device, d.seen_at) > SEEN_KEPT_EVERY_S:
                self._kept_seen[device] = now
                self._save_locked()

    def listing(self) -> list[JoinedDevice]:
        """Every device on the list, the one seen most recently first."""
        with self._lock:
            return sorted(self._devices.values(), key=lambda d: (-d.seen_at, d.joined_at, d.id))

    def __contains__(self, device: object) -> bool:
        with self._lock:
            return device in self._devices

    def __len__(self) -> int:
        with self._lock:
            return len(self._devices)

    def remove(self, device: str) -> bool:
        """Put a device out: its cookie lets nothing in from now on (a restart included), and its
        open connections are closed. False if it was not on the list."""
        return self._remove({device}) == 1

    def remove_others(self, keep: str | None) -> int:
        """Put out every device but ``keep``; how many went."""
        with self._lock:
            others = set(self._devices) - {keep}
        return self._remove(others)

    def _remove(self, devices: set[str]) -> int:
        with self._lock:
            gone = [d for d in devices if self._devices.pop(d, None) is not None]
            if not gone:
                return 0
            self._save_locked()
            sockets = [entry for d in gone for entry in self._sockets.get(d, ())]
        for loop, cut in sockets:
            loop.call_soon_threadsafe(cut.set)
        self._changed()
        return len(gone)

    # ------------------------------------------------------------ open connections
    def opened(self, device: str) -> asyncio.Event:
        """An open WebSocket of ``device`` (on the running loop): the event is set when the device
        is removed. :meth:`closed` when it ends."""
        cut = asyncio.Event()
        entry = (asyncio.get_running_loop(), cut)
        with self._lock:
            self._sockets.setdefault(device, set()).add(entry)
            if device not in self._devices:
                cut.set()  # removed between its check and now
        return cut

    def closed(self, device: str, cut: asyncio.Event) -> None:
        with self._lock:
            held = self._sockets.get(device, set())
            held.discard((asyncio.get_running_loop(), cut))
            if not held:
                self._sockets.pop(device, None)

    # ------------------------------------------------------------ the file
    def _changed(self) -> None:
        if self.on_change is not None:
            try:
                self.on_change()
            except Exception:  # a screen that could not be told: the list itself is kept
                log.exception("telling the screens of the devices' list failed")

    def _fingerprint(self) -> str:
        """Which key the kept list goes with (not the key: nothing of it can be worked back)."""
        return hmac.new(self._key, b"the list of devices", hashlib.sha256).hexdigest()[:16]

    def _load(self) -> None:
        assert self.path is not None
        try:
            raw = _read_regular(self.path)
        except FileNotFoundError:
            return
        except OSError as exc:
            self.unread = f"{self.path} cannot be read ({exc.strerror or exc})"
            return
        try:
            whole = json.loads(raw)
            if whole["key"] != self._fingerprint():  # the key was made afresh: no cookie holds
                return
            kept = whole["devices"]
            self._devices = {
                d: JoinedDevice(d, str(v["kind"]), str(v["address"]), float(v["joined_at"]), float(v["seen_at"]))
                for d, v in kept.items() if _is_id(d)}
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
            self._devices = {}
            self.unread = f"{self.path} is not a list of devices ({type(exc).__name__})"

    def _save(self) -> None:
        with self._lock:
            self._save_locked()

    def _save_locked(self) -> None:
        if self.path is None:
            return
        from chickenfoot.storage.safe_json import atomic_write

        data = {"key": self._fingerprint(), "devices": {d.id: d.to_dict() for d in self._devices.values()}}
        try:
            atomic_write(self.path, json.dumps(data, indent=1).encode(), keep_backup=False, make_folder=False,
                         mode=0o600)
        except OSError as exc:  # the list in memory still holds until a restart
            self.unkept = f"{self.path} cannot be written ({exc.strerror or exc})"
            log.error("the joined devices could not be kept: %s", self.unkept)
        else:
            self.unkept = None


def _is_id(text: str) -> bool:
    """Whether ``text`` is a device id as :meth:`JoinedDevices.join` makes them (16 hex digits)."""
    return len(text) == 16 and all(c in "0123456789abcdef" for c in text)


def _read_regular(path: Path) -> bytes:
    """The bytes of ``path`` if it is a plain file of at most :data:`FILE_MOST` bytes (never
    waiting on a pipe put in its place); OSError otherwise."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"not a plain file (at {path})")
        if info.st_size > FILE_MOST:
            raise OSError(f"{info.st_size} bytes, more than a list of devices holds (at {path})")
        chunks = []
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)
