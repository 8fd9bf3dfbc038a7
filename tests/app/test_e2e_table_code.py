"""End to end: the app served beyond loopback (``--host 0.0.0.0``) in headless Chromium. A device
without the table code sees only the join page; one types the code, another joins with the
address in the QR code the first one shows."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from app_e2e_helpers import CHROMIUM, CHROMIUM_ARGS, Server, Ui, require_browser, reveal, shots_dir

from chickenfoot.storage import Repository

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Server]:
    require_browser()
    db = tmp_path / "matches.json"
    with Repository.open(db) as repo:
        repo.create_match(["Zelda", "Yann", "Xavi"], "double-chicken-foot")
    srv = Server(db, tmp_path / "app.log", host="0.0.0.0")
    try:
        yield srv
    finally:
        srv.stop()


def _qr_address(png: Path) -> str | None:
    """The address in the QR code on a screenshot (OpenCV, from the training extra), if readable."""
    try:
        import cv2
    except ImportError:
        return None
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(cv2.imread(str(png)))
    return text or None


def test_a_second_device_joins_the_table_with_its_code(table: Server) -> None:
    from playwright.sync_api import sync_playwright

    assert table.code
    shots = shots_dir("table-code")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            # --- the host's own browser: the join page, then the code typed in
            host = browser.new_context(viewport={"width": 900, "height": 1100}).new_page()
            host.goto(table.url)
            assert host.get_by_role("heading", name="Join this table").is_visible()
            assert "Zelda" not in host.content()
            host.screenshot(path=str(shots / "01-join-page.png"))
            host.fill("#code", "000000" if table.code != "000000" else "111111")
            host.get_by_role("button", name="Join").click()
            host.get_by_text(re.compile(r"^That is not this table's code \(it changes each time")).wait_for(timeout=10_000)
            host.fill("#code", table.code)
            host.get_by_role("button", name="Join").click()
            ui = Ui(host, shots)
            ui.ready()
            ui.see("Resume match")
            ui.see("Zelda, Yann, Xavi · Double Chicken Foot · round 1 of 10")
            ui.shot("host-joined")
            ui.click("Invite a phone")
            ui.see(f"Table code: {table.code}")
            qr_shot = ui.shot("invite-qr")

            # --- a phone: the address from the QR code (as its camera would read it)
            address = _qr_address(qr_shot) or table.join_url
            assert table.qr_url and address.endswith(table.qr_url.split("/join", 1)[1])
            # (the QR code holds this machine's network address, which the test's phone, on the
            # same machine, reaches too)
            ui2 = Ui(browser.new_context(viewport={"width": 360, "height": 780}).new_page(), shots)
            ui2.open(address)
            ui2.see("Resume match")
            ui2.click("Resume match")
            ui2.see("Standings")
            ui2.see("Zelda")
            ui2.shot("phone-joined-360px")

            # --- a third device without the code still sees only the join page
            stranger = browser.new_context().new_page()
            stranger.goto(table.url + "match/anything")
            assert stranger.get_by_role("heading", name="Join this table").is_visible()
            assert "Zelda" not in stranger.content()
        finally:
            browser.close()


def test_a_phone_kept_out_by_wrong_codes_joins_with_a_new_code(table: Server, browser) -> None:  # type: ignore[no-untyped-def]
    """A phone that typed the code wrong until it was kept out (429) is let in by the QR code's
    address, or by a new code made on a device already at the table (Invite a phone, New
    code), at once; the device that made it stays joined, and the old code and QR code no
    longer join."""
    from chickenfoot.app.web import TRIES_PER_MINUTE

    assert table.code
    shots = shots_dir("table-code-new")
    wrong = "000000" if table.code != "000000" else "111111"
    host = Ui(browser.new_context(viewport={"width": 360, "height": 780}).new_page(), shots)
    host.open(table.join_url)
    host.see("Resume match")

    # a phone on another address of the machine (its own wrong codes are its own)
    phone = browser.new_context(viewport={"width": 360, "height": 780}).new_page()
    other = table.url.replace("127.0.0.1", "127.0.0.2")
    phone.goto(other)
    for _ in range(TRIES_PER_MINUTE):
        phone.fill("#code", wrong)
        phone.get_by_role("button", name="Join").click()
        phone.get_by_text(re.compile(r"^That is not this table's code \(it changes each time")).wait_for(timeout=10_000)
    phone.fill("#code", table.code)
    phone.get_by_role("button", name="Join").click()
    phone.get_by_text(re.compile(r"^Too many wrong codes: wait a minute, then try again, or scan the QR "
                                 r"code shown at the table")).wait_for(timeout=10_000)
    phone.screenshot(path=str(shots / "00-phone-kept-out-360px.png"))
    # the QR code's address joins a device of that address all the same (its key is never held back)
    scanned = Ui(browser.new_context(viewport={"width": 360, "height": 780}).new_page(), shots)
    old_qr = table.join_url.replace("127.0.0.1", "127.0.0.2")
    scanned.open(old_qr)
    scanned.see("Resume match")
    scanned.shot("kept-out-address-joined-by-qr-360px")

    host.click("Invite a phone")
    host.see(f"Table code: {table.code}")
    host.click("New code")
    found = re.compile(r"^New table code: (\d{6})\. The old code and its QR code no longer work\.$")
    note = host.page.get_by_text(found).first
    note.wait_for(timeout=10_000)
    code = found.match(note.inner_text().strip())
    new = code.group(1) if code else None
    assert new and new != table.code
    host.see(f"Table code: {new}")
    host.shot("host-new-code-360px")

    phone.fill("#code", table.code)
    phone.get_by_role("button", name="Join").click()
    phone.get_by_text(re.compile(r"^That is not this table's code \(it changes each time")).wait_for(timeout=10_000)
    phone.fill("#code", new)
    phone.get_by_role("button", name="Join").click()
    ui = Ui(phone, shots)
    ui.ready()
    ui.see("Resume match")
    ui.shot("phone-joined-with-new-code-360px")

    host.page.goto(table.url)
    host.ready()
    host.see("Resume match")  # the host's cookie still holds

    # the old QR code no longer joins: said so, with the code to type
    late = browser.new_context(viewport={"width": 360, "height": 780}).new_page()
    late.goto(old_qr)
    late.get_by_text(re.compile(r"^This QR code or link is an old one")).wait_for(timeout=10_000)
    assert late.locator("#code").is_visible()
    late.screenshot(path=str(shots / "04-old-qr-code-360px.png"))


def test_a_device_removed_at_the_table_is_put_out_at_once_and_the_others_stay(table: Server, browser) -> None:  # type: ignore[no-untyped-def]
    """Invite a phone lists the devices that joined, this one marked. Removing one sends its
    open page to the join page, told why, at once; the device that removed it stays in, and so
    does a third; the one removed joins again only with the code."""
    assert table.code
    shots = shots_dir("table-code-remove")
    host = Ui(browser.new_context(viewport={"width": 360, "height": 780}).new_page(), shots)
    host.open(table.join_url)
    host.see("Resume match")
    def joined(system: str) -> Ui:
        # told apart by their browsers' words (all three reach the server from 127.0.0.1); each
        # still Chromium on Linux to the page's own code
        ui = Ui(browser.new_context(viewport={"width": 360, "height": 780}, user_agent=(
            f"Mozilla/5.0 ({system}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36"
        )).new_page(), shots)
        ui.open(table.join_url)
        ui.see("Resume match")
        return ui

    phone = joined("Windows NT 10.0; Win64; x64")
    phone.click("Resume match")
    phone.see("Standings")
    third = joined("Macintosh; Intel Mac OS X 14_5")

    host.click("Invite a phone")
    host.see("Devices at the table (3)")
    host.scroll_to("Devices at the table (3)", top=0.1)
    host.see(re.compile(r"^Linux · Chrome \(this device\)$"))
    host.see("Windows · Chrome")
    host.see("Mac · Chrome")
    host.shot("devices-at-the-table-360px")
    # each Remove is named for screen readers by the device it puts out; none on this device
    assert host.button(re.compile(r"^Remove Linux")).count() == 0
    remove = host.button("Remove Windows · Chrome, 127.0.0.1, from the table")
    reveal(host, remove)
    remove.click()
    host.see(re.compile(r"is off the table: its pages close"))
    host.see("Devices at the table (2)")
    host.shot("device-removed-360px")

    phone.page.get_by_text(re.compile(r"^This phone is no longer joined")).wait_for(timeout=30_000)
    assert phone.page.get_by_role("heading", name="Join this table").is_visible()
    phone.page.screenshot(path=str(shots / "03-removed-phone-360px.png"))
    third.page.reload()
    third.ready()
    third.see("Resume match")  # still in
    phone.page.fill("#code", table.code)
    phone.page.get_by_role("button", name="Join").click()
    phone.ready()
    phone.see("Resume match")  # in again, with the code
    host.see("Devices at the table (3)")
    # the page knows itself by its new entry (its session may be the one it had before)
    phone.click("Invite a phone")
    phone.scroll_to("Devices at the table (3)", top=0.1)
    phone.see("Windows · Chrome (this device)")
    assert phone.count("Mac · Chrome (this device)") == 0 and phone.count("Linux · Chrome (this device)") == 0


def test_pictures_show_on_a_phone_joined_over_the_network(table: Server, browser) -> None:  # type: ignore[no-untyped-def]
    """A phone joins on the machine's network address: plain HTTP there is no secure context,
    so Chrome has no ImageDecoder, and pictures sent as raw bytes came out blank (faces,
    photos, the QR code). The invite's QR code must be drawn, and read back as the address.
    And the page fetches nothing from anywhere else (Flet's client asks a CDN for a script)."""
    from chickenfoot.app.web import lan_addresses

    lan = [ip for ip in lan_addresses() if ":" not in ip]
    if not lan:
        pytest.skip("this machine has no network address but loopback")
    shots = shots_dir("table-code-lan")
    assert table.code
    page = browser.new_context(viewport={"width": 360, "height": 780}).new_page()
    # nothing is fetched from anywhere but the table (a request the page's policy refused
    # never leaves the browser: Playwright reports it, failed "csp")
    elsewhere: list[str] = []
    refused: list[str] = []
    page.on("request", lambda r: None if r.url.startswith(("data:", "blob:", f"http://{lan[0]}:"))
            else elsewhere.append(r.url))
    page.on("requestfailed", lambda r: refused.append(r.url) if r.failure == "csp" else None)
    ui = Ui(page, shots)
    ui.open(table.join_url.replace("127.0.0.1", lan[0]))
    ui.see("Resume match")
    assert page.evaluate("window.isSecureContext") is False  # what this test is about
    ui.click("Invite a phone")
    ui.see(f"Table code: {table.code}")
    page.wait_for_timeout(1000)
    shot = ui.shot("invite-on-the-network-360px")
    address = _qr_address(shot)
    if address is None:
        import cv2  # noqa: F401 - without OpenCV the QR code cannot be read back: say so

    assert address is not None and table.qr_url and address == table.qr_url.replace(
        table.qr_url.split("/join", 1)[0], f"http://{lan[0]}:{table.port}"), address
    assert [u for u in elsewhere if u not in refused] == []


def test_a_phone_left_open_carries_on_after_the_companion_is_killed_and_started_again(tmp_path: Path, browser) -> None:  # type: ignore[no-untyped-def]
    """The companion is killed (SIGKILL) and started again on the same file and port: a phone
    left open on the scoreboard says the companion is not answering while it is down, then
    reconnects by itself, joined as before (its cookie's key is kept beside the file), and shows
    the match; the new code is only for new phones. Started with --forget-devices, the phone left
    open goes to the join page by itself and is told why."""
    import os
    import signal

    db = tmp_path / "matches.json"
    with Repository.open(db) as repo:
        m = repo.create_match(["Zelda", "Yann"], "double-chicken-foot")
        repo.add_round(m.id, penalties={"Yann": 12}, out="Zelda")
    shots = shots_dir("table-code-restart")
    first = Server(db, tmp_path / "app1.log", host="0.0.0.0")
    second: Server | None = None
    try:
        key = db.with_name("matches-table.key")
        assert key.stat().st_mode & 0o777 == 0o600 and len(key.read_bytes()) == 32
        ui = Ui(browser.new_context(viewport={"width": 360, "height": 780}).new_page(), shots)
        ui.open(first.join_url)
        ui.click("Resume match")
        ui.see("Standings")
        os.kill(first.proc.pid, signal.SIGKILL)
        first.proc.wait(10)
        first.stop()
        down = ui.page.get_by_text(re.compile(r"^The companion is not answering: is it still running"))
        down.wait_for(timeout=30_000)  # said while it is down, not just "Working..."
        ui.shot("phone-while-the-companion-is-down-360px")
        with Repository.open(db) as repo:  # changed while the companion was down
            repo.rename_player(m.id, "Yann", "Yvonne")
        second = Server(db, tmp_path / "app2.log", host="0.0.0.0", port=first.port)
        assert second.code
        ui.see("Yvonne", timeout=60_000)  # the page reconnected by itself, joined as before
        ui.see("Standings")
        down.wait_for(state="detached", timeout=30_000)
        ui.shot("phone-after-restart-360px")
        second.stop()
        third = Server(db, tmp_path / "app3.log", host="0.0.0.0", port=first.port, extra=["--forget-devices"])
        try:  # the phone left open is sent to the join page, told why
            ui.page.get_by_text(re.compile(r"^This phone is no longer joined")).wait_for(timeout=60_000)
            assert ui.page.get_by_role("heading", name="Join this table").is_visible()
            ui.page.screenshot(path=str(shots / "03-phone-after-forget-devices-360px.png"))
        finally:
            third.stop()
    finally:  # every server started here stops, whatever failed (a killed one just closes its log)
        for srv in (first, second):
            if srv is not None:
                srv.stop()
