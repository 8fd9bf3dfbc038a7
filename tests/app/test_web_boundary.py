"""The web app's trust boundary, against the real server (``chickenfoot app --web``) over HTTP
and its WebSocket, spoken to as a hostile client would: a foreign Origin, no table code, odd
messages, a path on the server in a file dialog's answer."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack
import pytest
from app_e2e_helpers import REGISTER, ROOT, Server, db_with_a_match, free_port, http_request, send_code
from websockets.sync.client import connect

from chickenfoot.app import web
from chickenfoot.app.web import COOKIE, CRASH_MESSAGE, TableGate, split_host


@pytest.fixture
def loopback(tmp_path: Path) -> Iterator[Server]:
    srv = Server(db_with_a_match(tmp_path), tmp_path / "app.log")
    try:
        yield srv
    finally:
        srv.stop()


def _get(srv: Server, path: str, headers: dict[str, str] | None = None,
         method: str = "GET", body: str | None = None) -> tuple[int, dict[str, str], bytes]:
    return http_request(srv.port, path, method=method, headers=headers, body=body)


def _session(srv: Server, origin: str | None, cookie: str | None = None,
             send: list[Any] | None = None, seconds: float = 3.0) -> bytes | str:
    """What the server sends a WebSocket client in ``seconds`` after it registers (and sends
    ``send``); or ``"refused: ..."``."""
    headers = {}
    if origin is not None:
        headers["Origin"] = origin
    if cookie:
        headers["Cookie"] = cookie
    try:
        ws = connect(f"ws://127.0.0.1:{srv.port}/ws", additional_headers=headers, open_timeout=10)
    except Exception as exc:
        return f"refused: {exc}"
    got = b""
    with ws:
        ws.send(b"\x00" + msgpack.packb(REGISTER))
        for message in send or []:
            time.sleep(0.5)
            ws.send(b"\x00" + msgpack.packb(message))
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                got += ws.recv(timeout=0.3)
            except TimeoutError:
                continue
            except Exception:
                break
    return got


def test_a_websocket_from_another_origin_is_refused(loopback: Server) -> None:
    own = f"http://127.0.0.1:{loopback.port}"
    assert _session(loopback, "http://evil.example") == "refused: server rejected WebSocket connection: HTTP 403"
    assert str(_session(loopback, None)).startswith("refused")  # a WebSocket must say where it comes from
    assert str(_session(loopback, f"http://localhost:{loopback.port}")).startswith("refused")
    seen = _session(loopback, own)
    assert isinstance(seen, bytes) and b"Zelda" in seen  # served on loopback: no code needed
    # HTTP: no wildcard CORS, a foreign Origin or Host is refused
    status, headers, _ = _get(loopback, "/")
    assert status == 200 and "access-control-allow-origin" not in headers
    assert _get(loopback, "/", {"Origin": "http://evil.example"})[0] == 403
    assert _get(loopback, "/", {"Host": f"evil.example:{loopback.port}"})[0] == 421
    assert _get(loopback, "/", {"Host": f"192.168.1.20:{loopback.port}"})[0] == 421  # loopback only


def test_beyond_loopback_a_client_without_the_table_code_sees_no_match(table: Server) -> None:
    assert table.code and len(table.code) == 6
    own = f"http://127.0.0.1:{table.port}"
    # no code: the join page, no app files, no WebSocket; loopback clients included
    status, _, body = _get(table, "/")
    assert status == 403 and b"Join this table" in body and b"Zelda" not in body
    assert _get(table, "/main.dart.js")[0] == 403
    assert _get(table, "/match/x")[0] == 403
    assert _session(table, own) == "refused: server rejected WebSocket connection: HTTP 403"
    # a wrong code, a forged cookie
    wrong = "000000" if table.code != "000000" else "111111"
    status, _, body = _get(table, f"/join?code={wrong}")  # the address fills the form in; the page sends it
    assert status == 200 and f'value="{wrong}"'.encode() in body and b".submit()" in body
    assert send_code(table.port, wrong)[0] == 403
    assert _get(table, "/join", {"Content-Type": "application/x-www-form-urlencoded"}, "POST",
                f"code={wrong}")[0] == 403
    assert str(_session(table, own, "chickenfoot_table=" + "0" * 64)).startswith("refused")
    # the code, typed into the form: a cookie, and then the app and its matches
    status, headers, _ = _get(table, "/join", {"Content-Type": "application/x-www-form-urlencoded"},
                              "POST", f"code={table.code}")
    assert status == 303 and headers["location"] == "/"
    cookie = headers["set-cookie"].split(";")[0]
    assert "HttpOnly" in headers["set-cookie"] and "SameSite=Lax" in headers["set-cookie"]
    # kept when the phone's browser is closed: a family's phones do not join again every evening
    assert f"Max-Age={400 * 24 * 3600}" in headers["set-cookie"]
    assert _get(table, "/", {"Cookie": cookie})[0] == 200
    seen = _session(table, own, cookie)
    assert isinstance(seen, bytes) and b"Zelda" in seen
    # the cookie does not let another site in
    assert str(_session(table, "http://evil.example", cookie)).startswith("refused")
    # the QR code's address, opened by a phone that joined already: straight to the app
    status, headers, _ = _get(table, f"/join?code={table.code}", {"Cookie": cookie})
    assert status == 303 and headers["location"] == "/"
    # ... and a wrong code sent by a joined phone (a page that led it to /join?code=000000) is
    # no try: never counted against its own address
    for _ in range(12):
        status, headers, _ = _get(table, "/join", {"Content-Type": "application/x-www-form-urlencoded",
                                                   "Cookie": cookie}, "POST", f"code={wrong}")
        assert status == 303 and headers["location"] == "/"
    status, headers, _ = _get(table, "/join", {"Content-Type": "application/x-www-form-urlencoded"},
                              "POST", f"code={table.code}")
    assert status == 303  # the address was never counted against


def test_wrong_codes_are_rate_limited() -> None:
    gate = TableGate(None, port=8550, loopback_only=False, code="123456")  # type: ignore[arg-type]

    def try_code(code: str, client: str = "10.0.0.9") -> int:
        return _gate_join(gate, "POST", "", _FORM, f"code={code}".encode(), client)[0]

    statuses = [try_code("000000") for _ in range(10)]
    assert statuses[:8] == [403] * 8 and statuses[8:] == [429, 429]
    assert try_code("123456") == 429  # even the right one, for a minute
    assert try_code("123456", "10.0.0.10") == 303  # another phone is not blocked


def _through_gate(gate: TableGate, method: str, path: str, headers: dict[str, str], chunks: list[bytes],
                  client: str = "10.0.0.9", host: str = "10.0.0.1:8550", query: str = ""
                  ) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    """One request through ``gate`` in this process, its body in ``chunks``: the status, the
    headers and the body of the answer."""
    sent: list[dict[str, Any]] = []
    queue = [{"type": "http.request", "body": c, "more_body": k < len(chunks) - 1} for k, c in enumerate(chunks)]

    async def receive() -> dict[str, Any]:
        return queue.pop(0) if queue else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": method, "path": path, "client": (client, 5000),
             "query_string": query.encode(),
             "headers": [(b"host", host.encode()), *((k.lower().encode(), v.encode()) for k, v in headers.items())]}
    asyncio.run(gate(scope, receive, send))
    return int(sent[0]["status"]), list(sent[0]["headers"]), b"".join(m.get("body", b"") for m in sent[1:])


def _gate_join(gate: TableGate, method: str, query: str, headers: dict[str, str], body: bytes = b"",
               client: str = "10.0.0.9", host: str = "10.0.0.1:8550") -> tuple[int, bytes]:
    """One request to ``/join`` through ``gate``: its status and page."""
    status, _, page = _through_gate(gate, method, "/join", headers, [body], client, host, query)
    return status, page


#: The join form as the page sends it.
_FORM = {"Origin": "http://10.0.0.1:8550", "Content-Type": "application/x-www-form-urlencoded"}


def _join_cookie(gate: TableGate, client: str = "10.0.0.2", agent: str = "") -> str:
    """The ``Cookie`` header of a device that joined through ``gate`` with its code."""
    assert gate.code is not None
    status, headers, _ = _through_gate(gate, "POST", "/join", {**_FORM, "User-Agent": agent},
                                       [f"code={gate.code}".encode()], client)
    assert status == 303, status
    return next(v.decode().split(";")[0] for k, v in headers if k == b"set-cookie")


def test_another_site_cannot_spend_a_phones_wrong_codes() -> None:
    """Any page a phone opens can make its browser load /join?code=... (an image, a frame, a
    script's fetch). Were those codes tried, a page left open would lock the phone out of its
    own table: the address only fills the form in."""
    gate = TableGate(None, port=8550, loopback_only=False, code="123456")  # type: ignore[arg-type]
    for _ in range(3 * web.TRIES_PER_MINUTE):
        status, page = _gate_join(gate, "GET", "code=000000", {"Accept": "image/png,*/*"})
        assert status == 200 and b'value="000000"' in page and b".submit()" in page
    # the page that sends itself cannot be framed by another site's page
    assert (b"x-frame-options", b"DENY") in _through_gate(gate, "GET", "/join", {}, [b""], query="code=000000")[1]
    # a form posted from another site's page: refused before its code is looked at
    for headers in ({**_FORM, "Origin": "http://evil.example"}, {"Sec-Fetch-Site": "cross-site"},
                    {**_FORM, "Sec-Fetch-Site": "same-site"}):
        assert _gate_join(gate, "POST", "", headers, b"code=000000")[0] == 403
    # what the address puts in the page is escaped
    status, page = _gate_join(gate, "GET", "code=%22%3E%3Cscript%3Ealert(1)%3C/script%3E", {})
    assert status == 200 and b"<script>alert" not in page
    # none of it counted: the phone's form, sent with the right code, joins
    assert _gate_join(gate, "POST", "", _FORM, b"code=123456")[0] == 303
    # its own wrong codes still count
    statuses = [_gate_join(gate, "POST", "", _FORM, b"code=000000")[0] for _ in range(web.TRIES_PER_MINUTE + 1)]
    assert statuses[-1] == 429 and _gate_join(gate, "POST", "", _FORM, b"code=123456")[0] == 429


def test_a_phone_kept_out_by_its_networks_wrong_codes_is_told_why() -> None:
    """Past the loose cap on an IPv6 /64, a phone that sent no wrong code is refused too: it is
    told that another device of its network was guessing, and what the table can do."""
    gate = TableGate(None, port=8550, loopback_only=False, code="123456")  # type: ignore[arg-type]
    form = {**_FORM, "Origin": "http://[fd00::1]:8550"}
    for k in range(web.TRIES_PER_MINUTE_NETWORK):  # one wrong code from each of many addresses
        _gate_join(gate, "POST", "", form, b"code=000000", client=f"fd00::{k + 2:x}", host="[fd00::1]:8550")
    status, page = _gate_join(gate, "POST", "", form, b"code=123456", client="fd00::ffff", host="[fd00::1]:8550")
    assert status == 429 and b"came from this network" in page and b"Scan the QR code shown at the table" in page
    status, page = _gate_join(gate, "POST", "", _FORM, b"code=123456", client="10.0.0.7")
    assert status == 303  # an IPv4 phone is not held by it


def test_the_qr_codes_key_joins_a_phone_that_wrong_codes_keep_out() -> None:
    """A stranger on a home network's IPv6 /64 can send the loose cap's wrong codes and keep
    every phone of it from typing the code. The QR code holds a 128-bit key besides: no number
    of tries guesses it, so a join with it is never counted nor held back."""
    gate = TableGate(None, port=8550, loopback_only=False, code="123456")  # type: ignore[arg-type]
    key = gate.join_key
    assert key and len(key) == 22 and re.fullmatch(r"[\w-]+", key)
    assert TableGate(None, port=8550, loopback_only=False, code="123456").join_key != key  # type: ignore[arg-type]
    assert TableGate(None, port=8550, loopback_only=True, code=None).join_key is None  # type: ignore[arg-type]
    v6, host = {**_FORM, "Origin": "http://[fd00::1]:8550"}, "[fd00::1]:8550"
    for k in range(web.TRIES_PER_MINUTE_NETWORK):  # the stranger, from many addresses of the /64
        _gate_join(gate, "POST", "", v6, b"code=000000", client=f"fd00::{k + 2:x}", host=host)
    assert _gate_join(gate, "POST", "", v6, b"code=123456", client="fd00::ffff", host=host)[0] == 429
    # the QR code's address fills in a form with the key hidden (nothing to type) and sends it
    status, page = _gate_join(gate, "GET", f"key={key}", {}, client="fd00::ffff", host=host)
    assert status == 200 and f'name="key" value="{key}"'.encode() in page and b".submit()" in page
    assert b'id="code"' not in page and b"Joining this table" in page
    status, headers, _ = _through_gate(gate, "POST", "/join", v6, [f"key={key}".encode()], "fd00::ffff", host)
    assert status == 303 and (b"location", b"/") in headers
    cookie = next(v.decode().split(";")[0] for k, v in headers if k == b"set-cookie")
    assert gate.has_joined({"client": ("fd00::ffff", 5000)}, {"cookie": cookie})
    # a phone that spent its own wrong codes too
    for _ in range(web.TRIES_PER_MINUTE):
        _gate_join(gate, "POST", "", _FORM, b"code=000000", client="10.0.0.3")
    assert _gate_join(gate, "POST", "", _FORM, b"code=123456", client="10.0.0.3")[0] == 429
    assert _gate_join(gate, "POST", "", _FORM, f"key={key}".encode(), client="10.0.0.3")[0] == 303
    # a wrong key is an old QR code: said so, and never counted against the address
    for _ in range(3 * web.TRIES_PER_MINUTE):
        status, page = _gate_join(gate, "POST", "", _FORM, b"key=" + b"A" * 22, client="10.0.0.4")
        assert status == 403 and b"This QR code or link is an old one" in page
        assert b'name="key"' not in page and b'id="code"' in page  # the code can be typed there
    assert _gate_join(gate, "POST", "", _FORM, b"code=123456", client="10.0.0.4")[0] == 303
    # another site's page cannot post it (a phone made to join a table it never saw)
    assert _gate_join(gate, "POST", "", {**_FORM, "Origin": "http://evil.example"}, f"key={key}".encode(),
                      client="10.0.0.5")[0] == 403
    # what the address puts in the page is escaped and cut short
    status, page = _gate_join(gate, "GET", "key=%22%3E%3Cscript%3Ealert(1)%3C/script%3E" + "x" * 200, {})
    assert status == 200 and b"<script>alert" not in page and b"x" * 100 not in page
    # a new code makes a new key: the old QR code no longer joins, the new one does
    gate.new_code()
    assert gate.join_key != key
    assert _gate_join(gate, "POST", "", _FORM, f"key={key}".encode(), client="10.0.0.6")[0] == 403
    assert _gate_join(gate, "POST", "", _FORM, f"key={gate.join_key}".encode(), client="10.0.0.6")[0] == 303


def test_a_new_code_lets_in_the_phones_kept_out_and_keeps_the_joined_ones() -> None:
    """A device at the table makes a new code (the invite screen's New code): the old code no
    longer joins, the wrong codes counted by address and by network are forgotten, and a
    device that joined before stays joined."""
    gate = TableGate(None, port=8550, loopback_only=False, code="123456")  # type: ignore[arg-type]
    cookie = _join_cookie(gate, "10.0.0.2")
    for _ in range(web.TRIES_PER_MINUTE):  # a phone mistyping until it is kept out
        _gate_join(gate, "POST", "", _FORM, b"code=000000", client="10.0.0.3")
    v6 = {**_FORM, "Origin": "http://[fd00::1]:8550"}
    for k in range(web.TRIES_PER_MINUTE_NETWORK):  # a device guessing from many addresses of its /64
        _gate_join(gate, "POST", "", v6, b"code=000000", client=f"fd00::{k + 2:x}", host="[fd00::1]:8550")
    status, page = _gate_join(gate, "POST", "", _FORM, b"code=123456", client="10.0.0.3")
    assert status == 429 and b"scan the QR code shown at the table (Invite a phone)" in page
    code = gate.new_code()
    assert code != "123456" and re.fullmatch(r"\d{6}", code)
    status, _ = _gate_join(gate, "POST", "", _FORM, b"code=123456", client="10.0.0.4")
    assert status == 403  # the old code is wrong now
    status, _ = _gate_join(gate, "POST", "", _FORM, f"code={code}".encode(), client="10.0.0.3")
    assert status == 303
    status, _ = _gate_join(gate, "POST", "", v6, f"code={code}".encode(), client="fd00::ffff", host="[fd00::1]:8550")
    assert status == 303
    assert gate.has_joined({"client": ("10.0.0.2", 5000)}, {"cookie": cookie})
    with pytest.raises(ValueError, match="without a code"):
        TableGate(None, port=8550, loopback_only=True, code=None).new_code()  # type: ignore[arg-type]


def test_host_header_parsing() -> None:
    assert split_host("192.168.1.5:8550") == ("192.168.1.5", 8550)
    assert split_host("[::1]:8550") == ("::1", 8550)
    assert split_host("evil.example") == ("evil.example", None)
    for bad in ("", "a b:1", "x:notaport", "user@host:1", "host:1/path"):
        assert split_host(bad) is None, bad
    gate = TableGate(None, port=8550, loopback_only=False, code="1", names=("mybox",))  # type: ignore[arg-type]
    assert gate.host_ok("10.1.2.3:8550") and gate.host_ok("mybox:8550") and gate.host_ok("localhost:8550")
    assert not gate.host_ok("10.1.2.3:8551") and not gate.host_ok("attacker.example:8550")
    # the addresses printed and put in the QR code: an IPv6 one in brackets, or it is no URL
    assert [web.url_host(h) for h in ("fd00:9::1", "[::1]", "10.0.0.2", "mybox")] == [
        "[fd00:9::1]", "[::1]", "10.0.0.2", "mybox"]
    assert split_host(f"{web.url_host('fd00:9::1')}:8551") == ("fd00:9::1", 8551)


def test_errors_reach_the_client_as_one_short_line_and_sigterm_stops_within_3_s(loopback: Server) -> None:
    own = f"http://127.0.0.1:{loopback.port}"
    # an event whose data Flet cannot read makes the session fail (a traceback, before)
    seen = _session(loopback, own, send=[[3, {"target": 1, "name": "route_change", "data": {"nope": 1}}]])
    assert isinstance(seen, bytes)
    assert CRASH_MESSAGE.encode() in seen
    assert b"Traceback" not in seen and b"File \"" not in seen and b"TypeError" not in seen
    # connections left in every odd state: garbage first, a bad registration, a half-sent event
    with contextlib.ExitStack() as hold:
        for first in (b"\x00\xc1garbage", b"\x00" + msgpack.packb([1, {"x": 1}]), None,
                      b"\x00" + msgpack.packb(REGISTER)):
            ws = hold.enter_context(connect(f"ws://127.0.0.1:{loopback.port}/ws",
                                            additional_headers={"Origin": own}))
            if first:
                ws.send(first)
        ws.send(b"\x00" + msgpack.packb([3, {"target": 1}]))
        time.sleep(1.5)
        start = time.monotonic()
        loopback.proc.send_signal(signal.SIGTERM)
        loopback.proc.wait(10)
        took = time.monotonic() - start
    assert took < 3.0, f"SIGTERM took {took:.2f} s"
    assert loopback.proc.returncode == 0
    assert "Traceback" not in loopback.log.read_text()


# --------------------------------------------------------------------- start-up failures
def _app(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    return subprocess.run([sys.executable, "-m", "chickenfoot", "app", "--web", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)


def _one_line_exit_2(out: subprocess.CompletedProcess[str]) -> str:
    assert out.returncode == 2, out.stdout + out.stderr
    assert "serving at" not in out.stdout
    lines = (out.stdout + out.stderr).strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def test_app_start_up_failures_are_one_line_and_exit_2(tmp_path: Path) -> None:
    db = db_with_a_match(tmp_path)
    before = db.read_bytes()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = str(taken.getsockname()[1])
        line = _one_line_exit_2(_app(tmp_path, "--port", port, "--db", str(db)))
        assert f"port {port} on 127.0.0.1 is in use" in line
    assert "between 1 and 65535" in _one_line_exit_2(_app(tmp_path, "--port", "99999", "--db", str(db)))
    assert "between 1 and 65535" in _one_line_exit_2(_app(tmp_path, "--port", "-1", "--db", str(db)))
    assert "cannot listen on '999.1.1.1'" in _one_line_exit_2(
        _app(tmp_path, "--host", "999.1.1.1", "--port", str(free_port()), "--db", str(db)))
    assert "--models /nonexistent: no such folder" in _one_line_exit_2(
        _app(tmp_path, "--models", "/nonexistent", "--port", str(free_port()), "--db", str(db)))
    assert db.read_bytes() == before
    damaged = tmp_path / "damaged.json"
    damaged.write_text('{"matches": {"1": ')
    line = _one_line_exit_2(_app(tmp_path, "--port", str(free_port()), "--db", str(damaged)))
    assert "is damaged" in line
    assert damaged.read_text() == '{"matches": {"1": '


# ------------------------------------------------------- no path ever comes from a client
class _Picked:
    def __init__(self, name: str, path: str | None, data: bytes | None) -> None:
        self.name, self.path, self.bytes = name, path, data


class _HostilePicker:
    """A client that claims to be a desktop and answers every file dialog with a server path."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.saved: list[tuple[str, bytes | None]] = []

    async def pick_files(self, **_: Any) -> list[_Picked]:
        return [_Picked("matches.json", str(self.path), None)]

    async def upload(self, files: Any) -> None:
        """Asked to send the file to the server's upload address, it never does."""

    async def save_file(self, file_name: str | None = None, src_bytes: bytes | None = None, **_: Any) -> str:
        self.saved.append((file_name or "", src_bytes))
        return str(self.path)


def test_a_path_named_by_a_web_client_is_never_read_or_written(tmp_path: Path) -> None:
    from test_views_inprocess import FakePage, _buttons, _caption, _go

    from chickenfoot.app.shell import App, AppContext

    sentinel = tmp_path / "secret.json"
    sentinel.write_text('{"format": "chickenfoot-matches", "matches": []}')
    os.chmod(sentinel, 0o600)
    stamp = (sentinel.read_bytes(), sentinel.stat().st_mtime_ns)
    ctx = AppContext(db_with_a_match(tmp_path), web=True)
    ctx.uploads.wait_s = 0.3
    page = FakePage()
    page.web = False  # the client's claim; the server knows better
    app = App(page, ctx)  # type: ignore[arg-type]
    picker = _HostilePicker(sentinel)
    app.picker = picker  # type: ignore[assignment]

    errors: list[str] = []

    def press(route: str, caption: str) -> None:
        _go(app, route)
        (button,) = [b for b in _buttons(page.controls) if _caption(b) == caption]
        asyncio.run(button.on_click(None))
        errors.append(app.session.error or "")  # shown on its screen until the next action

    try:
        press("/history", "Export JSON")
        press("/history", "Import JSON")
        press("/dispute", "Load layout file")
        app.drafts.dispute.start(9)  # a hub: the layout can be saved
        press("/dispute", "Save layout")
    finally:
        ctx.store.close()
    assert (sentinel.read_bytes(), sentinel.stat().st_mtime_ns) == stamp
    # exports went to the browser as bytes; the imports were refused with a message
    assert [name for name, _ in picker.saved] == ["chickenfoot-matches.json", "layout.json"]
    assert all(data for _, data in picker.saved)
    assert b"Zelda" in picker.saved[0][1]  # type: ignore[operator]
    assert sum("matches.json did not arrive from the browser" in e for e in errors) == 2, errors


# ------------------------------------------------------------------ uploads
def test_an_upload_goes_only_to_a_token_the_server_made(table: Server) -> None:
    """``PUT /upload/<token>``: refused without the table code, without Origin, from another
    site, for a token nobody asked for; any other method stays refused."""
    own = {"Origin": f"http://127.0.0.1:{table.port}"}
    assert _get(table, "/upload/abc", own, "PUT", "x")[0] == 403  # no table code
    status, headers, _ = send_code(table.port, table.code)
    cookie = headers.get("set-cookie", "").split(";")[0]
    assert status == 303 and cookie.startswith("chickenfoot_table=")
    joined = {**own, "Cookie": cookie}
    assert _get(table, "/upload/abc", joined, "PUT", "x")[0] == 404  # nobody asked for this one
    assert _get(table, "/upload/abc", {"Cookie": cookie}, "PUT", "x")[0] == 403  # no Origin
    assert _get(table, "/upload/abc", {**joined, "Origin": "http://evil.example"}, "PUT", "x")[0] == 403
    assert _get(table, "/upload/abc", joined, "POST", "x")[0] == 405


def _asgi_put(gate: TableGate, path: str, chunks: list[bytes], port: int) -> tuple[int, bytes]:
    """One PUT through ``gate`` in this process, its body in ``chunks``."""
    host = f"127.0.0.1:{port}"
    status, _, body = _through_gate(gate, "PUT", path, {"Origin": f"http://{host}"}, chunks, "127.0.0.1", host)
    return status, body


def test_an_upload_is_delivered_once_whole_and_never_over_the_limit() -> None:
    from chickenfoot.app.web import UploadRefused, Uploads

    async def app(scope: Any, receive: Any, send: Any) -> None:  # the Flet app: never reached
        raise AssertionError("an upload reached the app")

    uploads = Uploads(max_bytes=10)
    gate = TableGate(app, port=8550, loopback_only=True, code=None, uploads=uploads)
    token, fut = uploads.expect()
    assert _asgi_put(gate, f"/upload/{token}", [b"12345", b"678"], 8550)[0] == 200
    assert fut.result(0) == b"12345678"
    assert _asgi_put(gate, f"/upload/{token}", [b"again"], 8550)[0] == 404  # used up
    token, fut = uploads.expect()
    assert _asgi_put(gate, f"/upload/{token}", [b"123456", b"78901"], 8550)[0] == 413
    with pytest.raises(UploadRefused, match="larger than"):
        fut.result(0)
    token, fut = uploads.expect()
    uploads.cancel(token)  # the session stopped waiting (the dialog was closed, the tab gone)
    assert fut.cancelled() and _asgi_put(gate, f"/upload/{token}", [b"1"], 8550)[0] == 404
    late = Uploads(max_bytes=10, wait_s=0.0)
    gate = TableGate(app, port=8550, loopback_only=True, code=None, uploads=late)
    token, _ = late.expect()
    assert _asgi_put(gate, f"/upload/{token}", [b"1"], 8550)[0] == 404  # too late


def test_an_upload_the_app_stopped_waiting_for_midway_is_answered_not_crashed() -> None:
    """The session gives up (its wait timed out, the browser reported an error) while the body is
    still arriving: the late bytes are refused with 410 and the future keeps its first outcome."""
    from chickenfoot.app.web import Uploads

    async def app(scope: Any, receive: Any, send: Any) -> None:
        raise AssertionError("an upload reached the app")

    uploads = Uploads(max_bytes=100)
    gate = TableGate(app, port=8550, loopback_only=True, code=None, uploads=uploads)
    token, fut = uploads.expect()
    sent: list[dict] = []
    queue = [{"type": "http.request", "body": b"abc", "more_body": True},
             {"type": "http.request", "body": b"def", "more_body": False}]

    async def receive() -> dict:
        if len(queue) == 1:
            fut.cancel()  # what asyncio.wait_for does to the wrapped future on a timeout
        return queue.pop(0)

    async def send(message: dict) -> None:
        sent.append(message)

    host = "127.0.0.1:8550"
    scope = {"type": "http", "method": "PUT", "path": f"/upload/{token}",
             "headers": [(b"host", host.encode()), (b"origin", f"http://{host}".encode())]}
    asyncio.run(gate(scope, receive, send))
    assert sent[0]["status"] == 410 and fut.cancelled()


def test_a_file_sized_websocket_message_closes_that_connection_only(loopback: Server) -> None:
    """Files go by PUT, so the socket refuses a message of a photo's size: the sender's
    connection is closed (1009, too big) and the server goes on serving others."""
    from websockets.exceptions import ConnectionClosed

    from chickenfoot.app.web import WS_MAX_BYTES

    own = f"http://127.0.0.1:{loopback.port}"
    with connect(f"ws://127.0.0.1:{loopback.port}/ws", additional_headers={"Origin": own},
                 max_size=None) as ws:
        ws.send(b"\x00" + msgpack.packb(REGISTER))
        ws.send(b"\x00" + b"x" * (WS_MAX_BYTES + 1))
        with pytest.raises(ConnectionClosed) as closed:
            for _ in range(100):
                ws.recv(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    seen = _session(loopback, own)
    assert isinstance(seen, bytes) and b"Zelda" in seen


def test_the_joined_devices_key_is_kept_for_the_next_start_and_made_afresh_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "matches-table.key"
    key = web.table_key(path)
    assert len(key) == 32 and path.read_bytes() == key and path.stat().st_mode & 0o777 == 0o600
    assert web.table_key(path) == key  # the next start: the same key, the phones stay joined
    kept = tmp_path / "matches-table-devices.json"
    one = TableGate(None, port=8550, loopback_only=False, code="123456",  # type: ignore[arg-type]
                    devices=web.JoinedDevices(key, kept))
    cookie = _join_cookie(one)
    two = TableGate(None, port=8550, loopback_only=False, code="654321",  # type: ignore[arg-type]
                    devices=web.JoinedDevices(web.table_key(path), kept))
    assert two.has_joined({"client": ("10.0.0.2", 5000)}, {"cookie": cookie})
    assert kept.stat().st_mode & 0o777 == 0o600 and key.hex() not in kept.read_text()
    fresh = web.table_key(path, forget=True)
    assert fresh != key and path.read_bytes() == fresh
    forgot = web.JoinedDevices(fresh, kept, forget=True)
    assert len(forgot) == 0 and len(web.JoinedDevices(fresh, kept)) == 0
    path.write_bytes(b"not a key")  # damaged: a new one, never a short key
    assert len(web.table_key(path)) == 32 and web.table_key(path) != b"not a key"
    assert not list(tmp_path.glob(".*.tmp"))


def test_the_app_page_watches_whether_it_is_still_joined_and_the_table_still_answers() -> None:
    """Behind a code, the app's page carries a watchdog: /alive answers 204 to a joined device and
    403 to one that is not (a table that forgot its devices), counting no try; the page it puts
    the watchdog in keeps its length right; other answers go through untouched. A phone sent
    back to the join page is told why."""
    page = b"<!doctype html><html><head><title>x</title></head><body>app</body></html>"

    async def app(scope: Any, receive: Any, send: Any) -> None:
        html = scope["path"] == "/"
        body = page if html else b"console.log(1)"
        await send({"type": "http.response.start", "status": 200, "headers": [
            (b"content-type", b"text/html; charset=utf-8" if html else b"text/javascript"),
            (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body[:10], "more_body": True})
        await send({"type": "http.response.body", "body": body[10:]})

    gate = TableGate(app, port=8550, loopback_only=False, code="123456")  # type: ignore[arg-type]
    joined = {"Cookie": _join_cookie(gate, "10.0.0.8")}
    status, headers, body = _through_gate(gate, "GET", "/", joined, [b""])
    assert status == 200 and body.count(b"fetch('/alive'") == 1 and body.endswith(b"</head><body>app</body></html>")
    assert dict(headers)[b"content-length"] == str(len(body)).encode()
    status, _, body = _through_gate(gate, "GET", "/main.js", joined, [b""])
    assert status == 200 and body == b"console.log(1)"
    assert _through_gate(gate, "GET", "/alive", joined, [b""])[0] == 204
    for _ in range(2 * web.TRIES_PER_MINUTE):
        assert _through_gate(gate, "GET", "/alive", {"Cookie": f"{COOKIE}=stale"}, [b""])[0] == 403
    status, _ = _gate_join(gate, "POST", "", _FORM, b"code=123456")
    assert status == 303  # the refused watchdog counted no wrong code
    status, page_ = _gate_join(gate, "GET", "again=1", {})
    assert status == 200 and b"This phone is no longer joined" in page_ and b"Type the code it shows now" in page_
