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
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

log = logging.getLogger(__name__)

#: Devices the list keeps at most; past it, the one seen least recently is forgotten (it joins
#: again with the code). Each join needs the code or the QR key, so only someone who has it can
#: fill the list.
DEVICES_MOST = 200
#: Where a joined device's WebSocket scope names it, for the session it starts (see
#: :func:`~.bridge.device_of`).
DEVICE_SCOPE_KEY = "chickenfoot.device"
#: Seconds between two notes of one device's last visit (its page asks every 4 s while shown).
SEEN_EVERY_S = 30.0

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
        if not (len(device) == 16 and all(c in "0123456789abcdef" for c in device)):
            return None
        if not hmac.compare_digest(mac.encode(), self._mac(device).encode()):
            return None
        with self._lock:
            return device if device in self._devices else None

    # ------------------------------------------------------------ the list
    def join(self, address: str, user_agent: str, now: float | None = None) -> str:
        """A new device on the list; its cookie."""
        now = time.time() if now is None else now
        device = secrets.token_hex(8)
        with self._lock:
            self._devices[device] = JoinedDevice(device, device_kind(user_agent), address, now, now)
            while len(self._devices) > self.most:
                oldest = min(self._devices.values(), key=lambda d: d.seen_at)
                del self._devices[oldest.id]
            self._save_locked()
        self._changed()
        return self.cookie(device)

    def seen(self, device: str, address: str, now: float | None = None) -> None:
        """Note a device's visit (kept in memory: the file is written on joins and removals)."""
        now = time.time() if now is None else now
        with self._lock:
            d = self._devices.get(device)
            if d is None or (now - d.seen_at < SEEN_EVERY_S and d.address == address):
                return
            self._devices[device] = replace(d, seen_at=now, address=address)

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
        with self._lock:
            if self._devices.pop(device, None) is None:
                return False
            self._save_locked()
            sockets = list(self._sockets.get(device, ()))
        for loop, cut in sockets:
            loop.call_soon_threadsafe(cut.set)
        self._changed()
        return True

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
            raw = self.path.read_bytes()
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
                for d, v in kept.items() if len(d) == 16 and all(c in "0123456789abcdef" for c in d)}
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
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
