"""The joined devices: a cookie of its own for each, the list kept beside the scorekeeper file,
one device put out without the others, its open connections closed."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest
from test_web_boundary import _FORM, _join_cookie, _through_gate

from chickenfoot.app import web
from chickenfoot.app.web import COOKIE, JoinedDevices, TableGate, device_kind

KEY = bytes(range(32))
PIXEL = ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
         "Chrome/126.0.0.0 Mobile Safari/537.36")
IPHONE = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
          "Version/17.5 Mobile/15E148 Safari/604.1")


def test_a_device_is_named_from_a_fixed_list_of_words_never_by_its_own_text() -> None:
    assert device_kind(PIXEL) == "Android · Chrome"
    assert device_kind(IPHONE) == "iPhone · Safari"
    assert device_kind("Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0") == \
        "Windows · Firefox"
    assert device_kind("") == "Device · a browser"
    assert device_kind("<script>alert(1)</script> Mallory's phone") == "Device · a browser"


def test_each_device_has_its_own_cookie_and_one_is_removed_alone(tmp_path: Path) -> None:
    kept = tmp_path / "m-table-devices.json"
    devices = JoinedDevices(KEY, kept)
    told: list[int] = []
    devices.on_change = lambda: told.append(len(devices))
    a = devices.join("10.0.0.2", PIXEL, now=1000.0)
    b = devices.join("10.0.0.3", IPHONE, now=1001.0)
    assert a != b and len(devices) == 2 and told == [1, 2]
    da, db = devices.check(a), devices.check(b)
    assert da and db and da != db
    # a cookie not signed with the table's key, or a made-up id, lets nothing in
    assert devices.check(da + "." + "0" * 64) is None
    assert devices.check(JoinedDevices(bytes(32)).cookie(da)) is None
    assert devices.check("") is None and devices.check("x" * 5000) is None
    assert devices.check(a.upper()) is None
    # the list: the one seen last first, with what the server vouches for
    devices.seen(da, "10.0.0.9", now=2000.0)
    first, second = devices.listing()
    assert (first.id, first.kind, first.address, first.joined_at, first.seen_at) == \
        (da, "Android · Chrome", "10.0.0.9", 1000.0, 2000.0)
    assert (second.id, second.kind) == (db, "iPhone · Safari")
    # one removed: it is out, the other is in, and so it stays after a restart
    assert devices.remove(db) and not devices.remove(db)
    assert devices.check(b) is None and devices.check(a) == da and told[-1] == 1
    again = JoinedDevices(KEY, kept)
    assert again.check(b) is None and again.check(a) == da and again.unread is None
    assert kept.stat().st_mode & 0o777 == 0o600
    # the file holds no secret a cookie can be made from
    text = kept.read_text()
    assert KEY.hex() not in text and a.split(".")[1] not in text


def test_a_list_that_cannot_be_read_lets_nobody_in(tmp_path: Path) -> None:
    kept = tmp_path / "m-table-devices.json"
    devices = JoinedDevices(KEY, kept)
    cookie = devices.join("10.0.0.2", PIXEL)
    for spoilt in (b"{not json", b"[]", json.dumps({"key": "x", "devices": []}).encode(), b""):
        kept.write_bytes(spoilt)
        read = JoinedDevices(KEY, kept)
        assert read.check(cookie) is None and len(read) == 0
    assert read.unread is not None and "not a list of devices" in read.unread
    # written by another key (the key file was made afresh): none of its devices is in
    JoinedDevices(KEY, kept).join("10.0.0.2", PIXEL)
    assert len(JoinedDevices(KEY, kept)) == 1 and len(JoinedDevices(bytes(32), kept)) == 0


def test_a_list_that_cannot_be_kept_says_so(tmp_path: Path) -> None:
    kept = tmp_path / "m-table-devices.json"
    devices = JoinedDevices(KEY, kept)
    kept.mkdir()  # a folder where the list goes: no write can replace it
    cookie = devices.join("10.0.0.2", PIXEL)
    assert devices.check(cookie) and devices.unkept and str(kept) in devices.unkept
    kept.rmdir()
    devices.join("10.0.0.3", IPHONE)
    assert devices.unkept is None and len(JoinedDevices(KEY, kept)) == 2


def test_a_full_list_forgets_only_devices_long_unseen_and_else_refuses_a_join() -> None:
    """A burst of joins by someone who has the code never pushes the table's own devices out:
    past the list's size, only devices unseen for 60 days make room; else the join is refused."""
    from chickenfoot.app.web.devices import STALE_S, TableFull

    devices = JoinedDevices(KEY, most=3)
    now = 10 * STALE_S
    cookies = [devices.join(f"10.0.0.{k}", PIXEL, now=now - 2 * STALE_S + k) for k in range(3)]
    devices.seen(devices.check(cookies[0]) or "", "10.0.0.0", now=now - 10.0)
    fresh = devices.join("10.0.0.9", PIXEL, now=now)  # the two unseen for 60 days make room
    assert len(devices) == 2 and devices.check(cookies[0]) and devices.check(fresh)
    assert devices.check(cookies[1]) is None and devices.check(cookies[2]) is None
    devices.join("10.0.0.8", PIXEL, now=now)
    with pytest.raises(TableFull, match="3 devices have joined this table already"):
        devices.join("10.0.0.7", PIXEL, now=now + 1)
    assert len(devices) == 3 and devices.check(cookies[0])  # nobody pushed out
    # someone at the table puts every other device out: room again
    keep = devices.check(cookies[0])
    assert devices.remove_others(keep) == 2 and len(devices) == 1 and devices.check(cookies[0])
    devices.join("10.0.0.7", PIXEL, now=now + 2)


def test_joins_are_slowed_per_address_and_a_full_table_says_why(tmp_path: Path) -> None:
    gate = TableGate(None, port=8550, loopback_only=False, code="123456",  # type: ignore[arg-type]
                     devices=JoinedDevices(KEY, tmp_path / "d.json", most=web.JOINS_PER_MINUTE + 2))
    for _ in range(web.JOINS_PER_MINUTE):
        _join_cookie(gate, "10.0.0.2")
    status, _, page = _through_gate(gate, "POST", "/join", _FORM, [f"key={gate.join_key}".encode()], "10.0.0.2")
    assert status == 429 and b"Too many devices joined from this address just now: wait a minute." in page
    _join_cookie(gate, "10.0.0.3")  # another address joins
    _join_cookie(gate, "10.0.0.4")
    status, _, page = _through_gate(gate, "POST", "/join", _FORM, [b"code=123456"], "10.0.0.5")
    assert status == 503 and b"devices have joined this table already" in page
    assert len(gate.devices) == web.JOINS_PER_MINUTE + 2


def test_a_post_with_no_code_is_no_try_and_a_block_says_how_long(monkeypatch: pytest.MonkeyPatch) -> None:
    import chickenfoot.app.web.gate as gate_module

    clock = [1000.0]
    monkeypatch.setattr(gate_module.time, "monotonic", lambda: clock[0])
    gate = TableGate(None, port=8550, loopback_only=False, code="123456")  # type: ignore[arg-type]
    for body in (b"", b"code=", b"code=%20%20", b"other=1"):
        status, _, page = _through_gate(gate, "POST", "/join", _FORM, [body], "10.0.0.2")
        assert status == 400 and b"Type the table code" in page
    for _ in range(web.TRIES_PER_MINUTE):
        assert _through_gate(gate, "POST", "/join", _FORM, [b"code=000000"], "10.0.0.3")[0] == 403
    status, _, page = _through_gate(gate, "POST", "/join", _FORM, [b"code=123456"], "10.0.0.3")
    assert status == 429 and b"wait a minute, then try again" in page
    # the hour's cap: wrong codes spread out, then told to wait up to an hour
    for _ in range(web.TRIES_PER_HOUR):
        clock[0] += 20.0
        _through_gate(gate, "POST", "/join", _FORM, [b"code=000000"], "10.0.0.4")
    clock[0] += 120.0
    status, _, page = _through_gate(gate, "POST", "/join", _FORM, [b"code=123456"], "10.0.0.4")
    assert status == 429 and b"wait up to an hour" in page
    assert _through_gate(gate, "POST", "/join", _FORM, [b"code=123456"], "10.0.0.2")[0] == 303


def test_a_cookie_of_the_same_name_tossed_by_another_port_does_not_shadow_the_real_one() -> None:
    """Cookies are not kept apart by port: a page on another port of the same host can set
    chickenfoot_table=junk on the path /alive, which the browser then sends first."""
    gate = TableGate(None, port=8550, loopback_only=False, code="123456")  # type: ignore[arg-type]
    real = _join_cookie(gate, "10.0.0.2")
    tossed = f"{COOKIE}=junk; {real}; {COOKIE}=" + "a" * 16 + "." + "0" * 64
    assert _through_gate(gate, "GET", "/alive", {"Cookie": tossed}, [b""], "10.0.0.2")[0] == 204
    flood = "; ".join([f"{COOKIE}=junk{k}" for k in range(web.COOKIES_TRIED)] + [real])
    assert _through_gate(gate, "GET", "/alive", {"Cookie": flood}, [b""], "10.0.0.2")[0] == 403  # looked at so many


def test_a_list_file_that_is_no_plain_file_or_nested_deep_lets_nobody_in_without_hanging(tmp_path: Path) -> None:
    kept = tmp_path / "m-table-devices.json"
    os.mkfifo(kept)
    read = JoinedDevices(KEY, kept)  # a pipe in its place: never waited on
    assert len(read) == 0 and read.unread and "not a plain file" in read.unread
    kept.unlink()
    kept.write_text("[" * 200_000)
    read = JoinedDevices(KEY, kept)
    assert len(read) == 0 and read.unread and "RecursionError" in read.unread
    kept.write_bytes(b" " * (2 << 20))
    read = JoinedDevices(KEY, kept)
    assert len(read) == 0 and read.unread and "more than a list of devices holds" in read.unread


def test_through_the_gate_a_removed_device_is_out_and_the_others_stay_in() -> None:
    gate = TableGate(None, port=8550, loopback_only=False, code="123456")  # type: ignore[arg-type]
    phone = _join_cookie(gate, "10.0.0.2", PIXEL)
    other = _join_cookie(gate, "10.0.0.3", IPHONE)
    assert phone != other
    alive = [_through_gate(gate, "GET", "/alive", {"Cookie": c}, [b""], client)[0]
             for c, client in ((phone, "10.0.0.2"), (other, "10.0.0.7"))]
    assert alive == [204, 204]
    listed = {d.kind: d for d in gate.devices.listing()}
    # the address it was seen at last (a phone moving between networks)
    assert set(listed) == {"Android · Chrome", "iPhone · Safari"} and listed["iPhone · Safari"].address == "10.0.0.7"
    gate.devices.remove(listed["Android · Chrome"].id)
    assert _through_gate(gate, "GET", "/alive", {"Cookie": phone}, [b""])[0] == 403
    status, _, page = _through_gate(gate, "GET", "/", {"Cookie": phone}, [b""])
    assert status == 403 and b"Join this table" in page
    assert _through_gate(gate, "GET", "/alive", {"Cookie": other}, [b""])[0] == 204
    # it joins again with the code (a new cookie, a new entry)
    again = _join_cookie(gate, "10.0.0.2", PIXEL)
    assert again != phone and _through_gate(gate, "GET", "/alive", {"Cookie": again}, [b""])[0] == 204
    # a new code keeps the joined devices
    gate.new_code()
    assert _through_gate(gate, "GET", "/alive", {"Cookie": other}, [b""])[0] == 204


def test_a_removed_devices_open_connection_is_closed() -> None:
    """A device that ignores the page's watchdog keeps no open session: its WebSocket is closed
    when it is removed, and the app is told it disconnected; another device's stays open."""

    seen: dict[str, list[Any]] = {"phone": [], "other": []}

    async def app(scope: Any, receive: Any, send: Any) -> None:  # reads until told it ended
        who = "phone" if scope["client"][0] == "10.0.0.2" else "other"
        while True:
            message = await receive()
            seen[who].append(message["type"])
            if message["type"] == "websocket.connect":
                await send({"type": "websocket.accept"})
            if message["type"] == "websocket.disconnect":
                return

    gate = TableGate(app, port=8550, loopback_only=False, code="123456")
    cookies = {"phone": _join_cookie(gate, "10.0.0.2", PIXEL), "other": _join_cookie(gate, "10.0.0.3")}

    async def scenario() -> tuple[list[Any], list[Any], list[Any], list[Any]]:
        inbox: dict[str, asyncio.Queue[Any]] = {w: asyncio.Queue() for w in cookies}
        sent: dict[str, list[Any]] = {w: [] for w in cookies}

        def connection(who: str, client: str) -> Any:
            async def receive() -> Any:
                return await inbox[who].get()

            async def send(message: Any) -> None:
                sent[who].append(message)

            scope = {"type": "websocket", "path": "/ws", "client": (client, 5000), "headers": [
                (b"host", b"10.0.0.1:8550"), (b"origin", _FORM["Origin"].encode()),
                (b"cookie", cookies[who].encode())]}
            return asyncio.ensure_future(gate(scope, receive, send))

        for who in cookies:
            await inbox[who].put({"type": "websocket.connect"})
        tasks = {"phone": connection("phone", "10.0.0.2"), "other": connection("other", "10.0.0.3")}
        await asyncio.sleep(0.05)
        phone_id = next(d.id for d in gate.devices.listing() if d.kind == "Android · Chrome")
        # removed from a session's thread, as the invite screen's button does
        await asyncio.get_running_loop().run_in_executor(None, gate.devices.remove, phone_id)
        await asyncio.wait_for(tasks["phone"], 5)
        assert not tasks["other"].done()
        await inbox["other"].put({"type": "websocket.disconnect", "code": 1000})
        await asyncio.wait_for(tasks["other"], 5)
        return seen["phone"], sent["phone"], seen["other"], sent["other"]

    phone_seen, phone_sent, other_seen, other_sent = asyncio.run(scenario())
    assert phone_seen == ["websocket.connect", "websocket.disconnect"]
    assert phone_sent == [{"type": "websocket.accept"}, {"type": "websocket.close", "code": 4003}]
    assert other_seen == ["websocket.connect", "websocket.disconnect"]
    assert other_sent == [{"type": "websocket.accept"}]


def test_a_cookie_from_before_devices_had_their_own_lets_nothing_in() -> None:
    import hashlib
    import hmac

    gate = TableGate(None, port=8550, loopback_only=False, code="123456", key=KEY)  # type: ignore[arg-type]
    shared = hmac.new(KEY, b"joined this table", hashlib.sha256).hexdigest()
    assert _through_gate(gate, "GET", "/alive", {"Cookie": f"{COOKIE}={shared}"}, [b""])[0] == 403
