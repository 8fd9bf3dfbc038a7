"""End to end: the app served beyond loopback (``--host 0.0.0.0``) in headless Chromium. A device
without the table code sees only the join page; one types the code, another joins with the
address in the QR code the first one shows."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from app_e2e_helpers import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, Server, Ui, require_browser

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
    shots = ARTIFACTS / "table-code"
    shots.mkdir(parents=True, exist_ok=True)
    for old in shots.glob("*.png"):
        old.unlink()
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
            host.get_by_text("That is not this table's code.").wait_for(timeout=10_000)
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
            assert address.endswith(f"/join?code={table.code}")
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
