"""End to end at a phone's width: tiles are chosen by their faces, a tile another hand holds is
shown taken and refused (and moved when asked), and the totals chart is drawn by the web client
with its tooltips.

The real ``chickenfoot app --web`` in headless Debian Chromium (see ``app_e2e_helpers``);
screenshots go to ``artifacts/e2e/faces``. What the file holds is read back with the storage
repository, not from the screen.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import numpy as np
import pytest
from app_e2e_helpers import SEAT_MODES, Server, Ui, make_match, shots_dir, suit
from PIL import Image

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PHONE = {"width": 360, "height": 780}


def _draft_hands(db: Path, mid: str) -> list[list[str]]:
    """The tiles of each hand in the round being entered, as the scorekeeper file holds them."""
    from chickenfoot.storage import Repository

    with Repository.open(db) as repo:
        drafts = [d for d in repo.drafts(mid) if d.open]
    assert len(drafts) == 1
    return [h["tiles"] for h in json.loads(drafts[0].entry)["entry"]["hands"]]


def _tap_on_screen(ui: Ui, name: str) -> None:
    """Scroll the page (as a thumb does) until the button ``name`` is above the fixed footer, then
    tap it."""
    loc = ui.button(name).first
    loc.wait_for(state="attached", timeout=20_000)
    for _ in range(12):
        box = loc.bounding_box()
        # the fixed footer holds Save, and "Done with this hand" over it while the picker is open
        if box and box["y"] > 60 and box["y"] + box["height"] < PHONE["height"] - 150:
            break
        ui.page.mouse.move(180, 400)
        ui.page.mouse.wheel(0, 200 if not box or box["y"] > 60 else -200)
        ui.page.wait_for_timeout(400)
    ui.steady(loc)
    loc.click()
    ui.page.wait_for_timeout(250)


def test_a_tile_entered_for_one_player_is_taken_for_the_next_and_refused_at_360px(tmp_path: Path,
                                                                                   browser) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "matches.json"
    mid = make_match(db, ["Ann", "Bob", "Cy"])
    srv = Server(db, tmp_path / "app.log")
    try:
        ui = Ui(browser.new_page(viewport=PHONE), shots_dir("faces"))
        ui.open(f"{srv.url}match/{mid}/round")
        ui.see("Round 1 results")
        ui.click(SEAT_MODES["Tiles"], nth=0)
        ui.see("Tiles with a 9:")
        ui.click(suit(3))
        ui.see("Tiles with a 3:")
        ui.shot("ann-picks-by-face-360px")
        _tap_on_screen(ui, "3-4")  # a face: its accessible name is the tile
        ui.see("7 points (3-4)")
        ui.click(SEAT_MODES["Tiles"], nth=1)
        ui.click(suit(3))
        ui.see("Tiles with a 3:")
        assert ui.button("3-4").count() == 0  # Bob's picker shows Ann's 3-4 as taken
        _tap_on_screen(ui, "3-4, taken: Ann has it")
        ui.see("3-4 is already in Ann's hand, and a set has only one 3-4. Move it to Bob if it is really "
               "Bob's, or pick another tile.")
        ui.shot("taken-tile-refused-360px")  # the taken face greyed and crossed out, and why
        assert _draft_hands(db, mid) == [["3-4"], [], []]  # refused: nothing entered for Bob
        _tap_on_screen(ui, "Move 3-4 to Bob")
        ui.see("3-4 moved from Ann to Bob")
        ui.see("7 points (3-4)")
        ui.shot("taken-tile-moved-360px")
        assert _draft_hands(db, mid) == [[], ["3-4"], []]
    finally:
        srv.stop()


def _crop(png: bytes, box: dict) -> np.ndarray:
    img = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    x0, y0 = max(0, int(box["x"])), max(0, int(box["y"]))
    return img[y0:int(box["y"] + box["height"]), x0:int(box["x"] + box["width"])]


def _colour_pixels(png: bytes, box: dict, colour: tuple[int, int, int], tol: int = 40) -> int:
    return int((np.abs(_crop(png, box) - np.array(colour)).max(axis=2) <= tol).sum())


def _changed_pixels(a: bytes, b: bytes, box: dict) -> int:
    return int((_crop(a, box) != _crop(b, box)).any(axis=2).sum())


def test_the_totals_chart_is_drawn_offline_with_tooltips(tmp_path: Path, browser) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "matches.json"
    mid = make_match(db, ["Ann", "Bob", "Cy"], [({"Bob": 12, "Cy": 30}, "Ann"), ({"Ann": 20, "Cy": 5}, "Bob"),
                                            ({"Ann": 7, "Bob": 40}, "Cy")])
    srv = Server(db, tmp_path / "app.log")
    try:
        page = browser.new_page(viewport=PHONE)
        ui = Ui(page, shots_dir("chart"))
        ui.open(f"{srv.url}match/{mid}")
        ui.see("Standings")
        box = None
        for _ in range(10):  # scroll the scoreboard until the whole chart is on screen
            found = page.evaluate(
                "() => Array.from(document.querySelectorAll('flt-semantics'))"
                ".filter(e => (e.getAttribute('aria-label') || e.textContent || '').startsWith('Chart of totals'))"
                ".map(e => JSON.stringify(e.getBoundingClientRect()))")
            box = json.loads(found[0]) if found else None
            if box and box["y"] + box["height"] <= PHONE["height"] - 10:
                break
            page.mouse.move(180, 400)
            page.mouse.wheel(0, 250)
            page.wait_for_timeout(500)
        assert box is not None and box["width"] > 250 and box["height"] > 150
        ui.shot("totals-chart-360px")
        plain = page.screenshot()
        # the three lines are drawn (Flet's blue, red and green): not an empty box
        for colour in ((0x21, 0x96, 0xF3), (0xF4, 0x43, 0x36), (0x4C, 0xAF, 0x50)):
            assert _colour_pixels(plain, box, colour) > 40, colour
        # a hover near round 2 shows each player's total then, in a tooltip: the pointer sweeps
        # along the chart (a tooltip opens within a few pixels of a round's points)
        y = box["y"] + box["height"] * 0.45
        page.mouse.move(box["x"] + 5, y)
        best, best_shot = 0, b""
        for k in range(16):
            page.mouse.move(box["x"] + box["width"] * (0.5 + 0.02 * k), y, steps=3)
            page.wait_for_timeout(250)
            shot = page.screenshot()
            changed = _changed_pixels(plain, shot, box)
            if changed > best:
                best, best_shot = changed, shot
        (ui.shots / "totals-chart-tooltip-360px.png").write_bytes(best_shot)
        print(f"chart: at most {best} pixels of the chart changed on hover")
        assert best > 1500  # a tooltip box with three totals, not just a highlighted dot
    finally:
        srv.stop()


@pytest.mark.parametrize("large", [False, True], ids=["normal-text", "large-text"])
def test_done_with_this_hand_stays_in_reach_with_many_faces_picked(tmp_path: Path, browser, large: bool) -> None:  # type: ignore[no-untyped-def]
    """At 360 px, normal and large text: once the picker's faces fill the screen and many are
    picked, "Done with this hand" is wholly on the screen and not under Save; each face carries
    its numbers under it. Screenshots: artifacts/e2e/issue-47."""
    from app_e2e_helpers import ARTIFACTS

    from chickenfoot.app.settings import Settings, SettingsStore
    from chickenfoot.app.shell import FOOTER_LABEL

    text = "large" if large else "normal"
    SettingsStore(tmp_path / "matches-settings.json").save(Settings(large_text=large))
    db = tmp_path / "matches.json"
    mid = make_match(db, ["Ann", "Bob", "Cy"])
    shots = ARTIFACTS / "issue-47"
    shots.mkdir(parents=True, exist_ok=True)
    srv = Server(db, tmp_path / "app.log")
    try:
        page = browser.new_page(viewport=PHONE)
        ui = Ui(page, shots)
        ui.open(f"{srv.url}match/{mid}/round")
        ui.see("Round 1 results")
        ui.click(SEAT_MODES["Tiles"], nth=0)
        ui.see("Tiles with a 9:")
        picked = ["8-9", "7-9", "6-9", "5-9", "4-9", "3-9", "2-9", "1-9"]
        for t in picked:
            _tap_on_screen(ui, t)
        ui.see(re.compile(r"^\d+ points \(.*1-9"))
        assert sorted(_draft_hands(db, mid)[0]) == sorted(picked)
        # the faces carry their numbers: a face's button is taller than the face by a line of text
        face = ui.button("0-9").first.bounding_box()
        from chickenfoot.app.views.faces import FACE_ASPECT, FACE_WIDTH

        scale = 1.3 if large else 1.0
        assert face and face["height"] >= FACE_WIDTH * scale * FACE_ASPECT + 12 * scale, face
        done = ui.button("Done with this hand").first
        done.wait_for(state="visible", timeout=20_000)
        box = done.bounding_box()
        save = ui.button("Save round 1").first.bounding_box()
        bar = page.evaluate('''(footer) => {
          const edge = Array.from(document.querySelectorAll('flt-semantics'))
            .find(e => (e.getAttribute('aria-label') || e.innerText || '').trim() === footer);
          return edge ? edge.getBoundingClientRect().top : null; }''', FOOTER_LABEL)
        assert box and save and bar is not None
        assert box["y"] >= 56 and box["y"] + box["height"] <= PHONE["height"], box  # wholly on the screen
        assert box["y"] + box["height"] <= save["y"] or box["x"] + box["width"] <= save["x"], (box, save)  # not under Save
        assert box["y"] >= bar - 1, (box, bar)  # in the fixed part: no scrolling takes it away
        page.screenshot(path=str(shots / f"after-picker-{text}-many-faces.png"))
        done.click()
        page.wait_for_timeout(500)
        assert ui.button("Done with this hand").count() == 0
    finally:
        srv.stop()
