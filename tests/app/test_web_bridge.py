"""The bridge to Flet's web app, against the real server (``chickenfoot app --web``) on loopback:
Flet's private names are checked, one device holds a bounded number of sessions, a tab closed
while the server asks its browser for a file is one log line, and SIGTERM ends the server within
3 s however many sessions it keeps. Other devices are other loopback addresses (127.0.0.2, ...),
bound as the source."""

from __future__ import annotations

import concurrent.futures
import contextlib
import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack
import pytest
from app_e2e_helpers import Server, db_with_a_match
from websockets.exceptions import InvalidStatus
from websockets.sync.client import ClientConnection, connect

from chickenfoot.app import web
from chickenfoot.app.web import bridge

#: Flet's message kinds (flet.messaging.protocol.MessageAction) these tests send or read.
REGISTER, CONTROL_EVENT, INVOKE_METHOD = 1, 3, 5


def test_flet_still_has_the_private_names_the_bridge_relies_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fails loudly, naming the name, when a Flet release renames one of them."""
    web.check_flet()
    monkeypatch.setattr(bridge, "FLET_PRIVATE", (*bridge.FLET_PRIVATE, "_FletApp__gone_in_this_release"))
    with pytest.raises(web.FletChanged, match=r"flet 1\.\S+ has no _FletApp__gone_in_this_release"):
        web.check_flet()


def test_only_the_bridge_names_flet_s_private_attributes() -> None:
    here = Path(web.__file__).parent
    for f in [*here.parent.rglob("*.py")]:
        if f != here / "bridge.py":
            assert "_FletApp__" not in f.read_text(), f"{f} names a private attribute of Flet"


# ------------------------------------------------------------------------------ helpers
@pytest.fixture
def served(tmp_path: Path) -> Iterator[Server]:
    """The app on loopback, logging what it does (``CHICKENFOOT_LOG=INFO``)."""
    srv = Server(db_with_a_match(tmp_path), tmp_path / "app.log", env={"CHICKENFOOT_LOG": "INFO"})
    try:
        yield srv
    finally:
        srv.stop()


@contextlib.contextmanager
def _tab(port: int, source: str, route: str = "/", wait_for: bytes = b"Zelda") -> Iterator[tuple[ClientConnection, list[Any]]]:
    """A browser tab of device ``source`` on ``route``, once its screen has arrived (with the
    messages that drew it)."""
    with connect(f"ws://127.0.0.1:{port}/ws", additional_headers={"Origin": f"http://127.0.0.1:{port}"},
                 source_address=(source, 0), open_timeout=20) as ws:
        page = {"route": route, "web": True, "width": 800, "height": 600}
        ws.send(b"\x00" + msgpack.packb([REGISTER, {"session_id": "", "page_name": "", "page": page}]))
        got, raw = [], b""
        end = time.monotonic() + 30
        while wait_for not in raw and time.monotonic() < end:
            with contextlib.suppress(TimeoutError):
                m = ws.recv(timeout=0.5)
                raw += m
                got.append(msgpack.unpackb(m[1:], strict_map_key=False))
        assert wait_for in raw, f"{route} did not arrive"
        yield ws, got


def _held(log: str, device: str) -> list[int]:
    """The sessions ``device`` held after each of its sessions started, as the server logged."""
    return [int(n) for n in re.findall(rf"session of {re.escape(device)}: (\d+) held by it", log)]


def _button(messages: list[Any], caption: str) -> int:
    """The control id of the button captioned ``caption`` in the screen's messages."""
    found: list[int] = []

    def walk(o: Any) -> None:
        if isinstance(o, dict):
            c = o.get("content")
            if o.get("on_click") and isinstance(c, dict) and c.get("value") == caption:
                found.append(o["_i"])
            for v in o.values():
                walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)

    walk(messages)
    assert found, f"no button {caption!r}"
    return found[0]


# ------------------------------------------------------------------------------ sessions
def test_one_device_cannot_hold_more_sessions_than_the_cap(served: Server) -> None:
    cap = web.SESSIONS_PER_DEVICE
    with contextlib.ExitStack() as tabs:
        for _ in range(cap):
            tabs.enter_context(_tab(served.port, "127.0.0.5"))
        with pytest.raises(InvalidStatus, match="403"), _tab(served.port, "127.0.0.5"):
            pass  # a device with the cap's tabs open gets no other
        with _tab(served.port, "127.0.0.6"):
            pass  # another device does
    # closed tabs' sessions are kept, but a new one forgets the longest-closed one
    for _ in range(cap + 5):
        with _tab(served.port, "127.0.0.5"):
            pass
    held = _held(served.log.read_text(), "127.0.0.5")
    print(f"sessions held by one device after each new one: {held}")
    assert len(held) == 2 * cap + 5 and max(held) == cap and held[-1] == cap
    assert "Traceback" not in served.log.read_text()


def test_a_tab_closed_while_the_server_asks_its_browser_for_a_file_logs_one_line(served: Server) -> None:
    """The tab asks for a file (Import JSON) and is closed before the browser answers; when its
    kept session is deleted the wait ends: one line in the log, no traceback."""
    device = "127.0.0.8"
    closed = 3
    for _ in range(closed):
        with _tab(served.port, device, "/history", b"Import JSON") as (ws, got):
            target = _button(got, "Import JSON")
            ws.send(b"\x00" + msgpack.packb([CONTROL_EVENT, {"target": target, "name": "click", "data": None}]))
            asked = False
            end = time.monotonic() + 10
            while not asked and time.monotonic() < end:
                with contextlib.suppress(TimeoutError):
                    m = msgpack.unpackb(ws.recv(timeout=0.5)[1:], strict_map_key=False)
                    asked = m[0] == INVOKE_METHOD and m[1].get("name") == "pick_files"
            assert asked, "the server did not ask the browser for a file"
    for _ in range(web.SESSIONS_PER_DEVICE):  # the closed tabs' kept sessions are forgotten
        with _tab(served.port, device):
            pass
    end = time.monotonic() + 10
    lines: list[str] = []
    while len(lines) < closed and time.monotonic() < end:
        time.sleep(0.2)
        lines = [x for x in served.log.read_text().splitlines() if "a tab closed" in x]
    log = served.log.read_text()
    print("\n".join(lines))
    assert len(lines) == closed, log
    assert "Traceback" not in log and "Session closed" not in log and "a handler failed" not in log, log


def _open_and_close(port: int, source: str) -> None:
    with _tab(port, source):
        pass


@pytest.mark.slow
def test_sigterm_ends_the_server_within_3_s_with_2000_kept_sessions(tmp_path: Path) -> None:
    """2,000 tabs from 200 devices (the cap's worth each) open their home screen and close; their
    sessions are kept (Flet's FLET_SESSION_TIMEOUT at 10 minutes, so none expires meanwhile)."""
    sessions = 2000
    devices = sessions // web.SESSIONS_PER_DEVICE
    srv = Server(db_with_a_match(tmp_path), tmp_path / "app.log",
                 env={"CHICKENFOOT_LOG": "INFO", "FLET_SESSION_TIMEOUT": "600"})
    try:
        sources = [f"127.1.{d // 200}.{d % 200 + 1}" for d in range(devices)] * web.SESSIONS_PER_DEVICE
        start = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            list(pool.map(lambda s: _open_and_close(srv.port, s), sources))
        opened = time.monotonic() - start
        time.sleep(0.5)
        held = re.findall(r"held by it, (\d+) in all", srv.log.read_text())
        assert max(map(int, held)) == sessions
        rss = Path(f"/proc/{srv.proc.pid}/status").read_text().split("VmRSS:")[1].split()[0]
        start = time.monotonic()
        srv.proc.send_signal(signal.SIGTERM)
        srv.proc.wait(30)
        took = time.monotonic() - start
    finally:
        srv.stop()
    print(f"{sessions} kept sessions (opened in {opened:.0f} s, RSS {int(rss) / 1024:.0f} MB): "
          f"SIGTERM to exit {took:.2f} s")
    assert srv.proc.returncode == 0
    assert took < 3.0, f"SIGTERM took {took:.2f} s"
    assert "Traceback" not in srv.log.read_text()
