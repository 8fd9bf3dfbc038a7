"""End to end: the table drawn as a board in the dispute checker (typed in at 360 px and at
desktop width, a tap on an open end of the drawing, a judged play drawn in place, a table photo
drawn as a board beside the photo).

The real ``chickenfoot app --web`` in headless Debian Chromium (see ``app_e2e_helpers``);
screenshots go to ``artifacts/e2e/board-*``. Where a tap lands is worked out from the same
drawing the app shows (``DisputeBuilder.picture``) and the box the browser gives the drawing.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pytest
from app_e2e_helpers import (
    ARTIFACTS,
    BOARD,
    BOARD_LABEL,
    Server,
    Ui,
    board_box,
    board_point,
    reveal,
    shots_dir,
    wheel,
)
from PIL import Image

from chickenfoot.app.dispute import DisputeBuilder
from chickenfoot.app.views.board import end_label, focus_of, zoomed
from chickenfoot.rules.layout import Verdict
from chickenfoot.rules.tiles import Tile

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PHONE = {"width": 360, "height": 780}
DESKTOP = {"width": 1280, "height": 900}


def frame(ui: Ui, b: DisputeBuilder, scale: float = 1.0) -> dict:  # type: ignore[type-arg]
    """The board's window as the app shows ``b`` now (see board_box): it is as tall as the
    sheet under it leaves room for."""
    from chickenfoot.app.screens import DisputeState
    from chickenfoot.app.views.dispute import board_height

    vp = ui.page.viewport_size
    height = board_height(b, DisputeState(), (vp["width"], vp["height"]), scale)
    return board_box(ui, b.picture(), b.selected, max_height=height)


def tap_end(ui: Ui, b: DisputeBuilder, target: str, nth: int = 0) -> None:
    """Tap the ``nth`` mark of the open end on ``target`` where the browser shows it."""
    pic = b.picture()
    marks = [m for m in pic.board.ends if m.end.target == Tile.parse(target)]
    assert marks, f"no open end on {target}"
    m = marks[nth]
    px, py = pic.to_pixels(m.spot.x, m.spot.y)
    box = frame(ui, b)
    ui.page.mouse.click(*board_point(box, px, py))
    ui.page.wait_for_timeout(400)
    ui.shot(f"tapped-{target}")


def type_tile(ui: Ui, text: str) -> None:
    """Type into the tile field, brought into view first (the board above it is tall); typed
    again if the field, slow to take the focus on a loaded machine, missed the keys."""
    for _ in range(3):
        reveal(ui, ui.page.get_by_role("textbox", name="Tile, e.g. 4-7").first)
        ui.type_into("Tile, e.g. 4-7", text, submit=False, clear=True)
        typed = ui.page.evaluate("() => document.activeElement ? document.activeElement.value : null")
        if typed == text:
            return
    raise AssertionError(f"the tile field holds {typed!r}, not {text!r}")


def add(ui: Ui, b: DisputeBuilder, tile: str, on: str) -> None:
    """Type a tile on an open end chosen with its chip (the way a screen-reader user does)."""
    chip = next(end_label(e) for e in b.open_ends()
                if e.target == Tile.parse(on))
    ui.click(chip)
    ui.button(f"Can it go on the {b.end_name(Tile.parse(on))}?").first.wait_for(timeout=20_000)  # redrawn
    type_tile(ui, tile)
    ui.click("Add to table")
    b.add(tile, on)


def ask_on_drawing(ui: Ui, b: DisputeBuilder, end: str, tile: str) -> Verdict:
    """Choose the open end on ``end`` by a tap on the drawing, ask about ``tile`` there; the
    rules core's verdict on the same question (``b`` follows along)."""
    tap_end(ui, b, end)
    question = f"Can it go on the {b.end_name(Tile.parse(end))}?"
    ui.see(question)
    type_tile(ui, tile)
    ui.click(question)
    b.select(end)
    return b.ask(tile)


def test_a_typed_layout_is_drawn_as_a_board_at_phone_and_desktop_width(server: Server, browser) -> None:  # type: ignore[no-untyped-def]
    shots = shots_dir("board-dispute")
    page = browser.new_page(viewport=PHONE)
    ui = Ui(page, shots)
    ui.open(server.url)
    ui.click("Dispute checker")
    ui.click("9-9")
    b = DisputeBuilder("double-chicken-foot", 9, 9)
    for tile in ("9-4", "9-1", "9-7", "9-0", "9-3", "9-8"):
        add(ui, b, tile, "9-9")
    add(ui, b, "7-7", "9-7")
    ui.see("Open foot: the 7-7 needs 3 more toes; every play must go there.")
    box = frame(ui, b)
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
    # readable at its first zoom: the smallest writing 12 px or more, an open end a 44 px target
    from chickenfoot.app.views.board import SMALLEST_TEXT_UNITS, TAP_REACH

    pic = b.picture()
    assert box["framing"].k * SMALLEST_TEXT_UNITS * pic.scale >= 12 and 2 * TAP_REACH >= 44
    print(f"board at 360 px: {pic.size} px drawn at {box['framing'].k:.2f} in a "
          f"{box['framing'].width}x{box['framing'].height} window, smallest text "
          f"{box['framing'].k * SMALLEST_TEXT_UNITS * pic.scale:.1f} px")
    label = page.locator(BOARD_LABEL).first.get_attribute("aria-label") or ""
    assert "9-9 (hub) · 4-9 on 9-9" in label and "7-7 on 7-9" in label, label
    frame(ui, b)
    ui.shot("typed-layout-360px")

    # a tap on the drawing chooses the open end: the 4-9's, then a question about it
    v = ask_on_drawing(ui, b, "4-9", "4-5")
    assert not v.legal
    ui.see(f"No. {v.message}")
    label = page.locator(BOARD_LABEL).first.get_attribute("aria-label") or ""
    assert f"Judged: 4-5 on 4-9: not legal. {v.message}" in label
    frame(ui, b)
    ui.shot("judged-illegal-360px")

    # a legal one on the open foot, chosen on the drawing too
    v = ask_on_drawing(ui, b, "7-7", "7-2")
    assert v.legal
    ui.see(f"Yes. {v.message}")
    frame(ui, b)
    ui.shot("judged-legal-360px")
    ui.click("Zoom in on the board")
    ui.click("Zoom in on the board")
    ui.shot("zoomed-in-360px")
    ui.click("Show the whole board")

    page.set_viewport_size(DESKTOP)
    page.wait_for_timeout(1200)
    ui.see(f"Yes. {v.message}")
    box = frame(ui, b)
    assert box["width"] > 360, box  # drawn larger when the window has room
    ui.shot("judged-legal-desktop")

    # Zoom is about the play: back on the phone, the 1-9's end chosen and the board zoomed in
    # once, a tap where that zoom puts the 4-9's end chooses the 4-9 (a zoom about the window's
    # corner puts nothing there).
    page.set_viewport_size(PHONE)
    page.wait_for_timeout(1200)
    ui.click(next(end_label(e) for e in b.open_ends() if e.target == Tile(1, 9)))
    b.select("1-9")
    ui.see(f"Can it go on the {b.end_name(Tile(1, 9))}?")
    pic = b.picture()
    frame(ui, b)
    ui.click("Zoom in on the board")
    page.wait_for_timeout(600)
    box = frame(ui, b)
    box["framing"] = zoomed(box["framing"], pic.size, focus_of(pic, b.selected), 1.6)
    ui.shot("zoomed-in-on-1-9-360px")
    four = next(m for m in pic.board.ends if m.end.target == Tile(4, 9))
    page.mouse.click(*board_point(box, *pic.to_pixels(four.spot.x, four.spot.y)))
    ui.see(f"Can it go on the {b.end_name(Tile(4, 9))}?")


def test_a_table_photo_is_shown_as_a_board_beside_the_photo(server: Server, browser) -> None:  # type: ignore[no-untyped-def]
    """The rendered table photo (tests/data/table.jpg) through the browser's file dialog and the shipped reader: the table
    read from it is drawn as a board beside the annotated photo (below it on a phone)."""
    from chickenfoot.vision.config import MODELS_DIR

    if not (MODELS_DIR / "reader.json").exists():
        pytest.skip("no shipped reader models (models/reader.json)")
    photo = Path(__file__).parents[1] / "data" / "table.jpg"
    page = browser.new_page(viewport=DESKTOP)
    ui = Ui(page, shots_dir("board-photo"))
    ui.open(server.url)
    ui.click("Dispute checker")
    ui.choose_file("Read the table from a photo", photo)
    ui.see(re.compile(r"^From the photo: .*the hub is 3-3 with 14 tiles joined to it$"), timeout=60_000)
    label = page.locator(BOARD_LABEL).first.get_attribute("aria-label") or ""
    assert label.startswith("The table drawn as a board: 3-3 (hub) · ") and label.count(" on ") >= 14, label
    photo_box = page.locator('flt-semantics[aria-label^="Photo of the table"], '
                             'flt-semantics:has(> flt-semantics-img[aria-label^="Photo of the table"])').first
    a = photo_box.bounding_box()
    b = page.locator(BOARD).first.bounding_box()
    assert a and b and a["x"] >= b["x"] + b["width"] and abs(b["y"] - a["y"]) < 5, (a, b)  # side by side
    ui.shot("photo-and-board-desktop")
    page.set_viewport_size(PHONE)
    page.wait_for_timeout(1500)
    wheel(ui, -3000)
    a = photo_box.bounding_box()
    b = page.locator(BOARD).first.bounding_box()
    assert a and b and a["y"] >= b["y"] + b["height"] - 1 and b["x"] + b["width"] <= PHONE["width"], (a, b)
    assert b["y"] < 120  # the board on top
    ui.shot("photo-and-board-360px")

    # "Show the whole board": every tile and open end inside the window (its edges show only
    # the background: no tile's outline or pips, no end's dashes), where the zoom used to stop
    # with an open end cut off at the right edge (4 such pixels on that edge)
    ui.click("Show the whole board")
    page.wait_for_timeout(1200)
    b = page.locator(BOARD).first.bounding_box()
    assert b
    shots = ARTIFACTS / "issue-47"
    shots.mkdir(parents=True, exist_ok=True)
    png = page.screenshot(path=str(shots / "after-photo-whole-board-360px.png"))
    img = np.asarray(Image.open(io.BytesIO(png)).convert("L")).astype(int)
    x0, x1 = int(b["x"]) + 4, int(b["x"] + b["width"]) - 5
    y0, y1 = int(b["y"]) + 4, min(int(b["y"] + b["height"]) - 5, PHONE["height"] - 1)
    edges = {"left": img[y0:y1, x0], "right": img[y0:y1, x1], "top": img[y0, x0:x1], "bottom": img[y1, x0:x1]}
    drawn = {k: int((v < 200).sum()) for k, v in edges.items()}
    print(f"drawn pixels on the window's edges after Show the whole board: {drawn}")
    assert not any(drawn.values()), f"the board cut off at the window's edge: {drawn}"

    # the photo, cut to the table, under the board
    wheel(ui, a["y"] - 150)
    page.screenshot(path=str(shots / "after-photo-360px.png"))


def _in_view(ui: Ui, loc, what: str) -> dict:  # type: ignore[no-untyped-def]
    """``loc``'s box, asserted wholly on the screen (below the app bar) as it is, without scrolling."""
    loc.first.wait_for(state="attached", timeout=20_000)
    ui.page.wait_for_timeout(300)
    # (a live region's words are also in the page once more, off screen, for screen readers to
    # announce: the node drawn is the one with a place on the screen)
    boxes = [b for b in (m.bounding_box() for m in loc.all()) if b and b["x"] > -1000]
    box = boxes[0] if boxes else None
    vp = ui.page.viewport_size
    if not (box and box["y"] >= 56 and box["y"] + box["height"] <= vp["height"] + 0.5):
        ui.shot("FAILED-off-screen")
        raise AssertionError(f"{what} is off screen: {box}")
    return box


@pytest.mark.parametrize("large", [False, True], ids=["normal-text", "large-text"])
def test_the_dispute_checker_is_one_surface_at_360px(tmp_path: Path, browser, large: bool) -> None:  # type: ignore[no-untyped-def]
    """A tap on an open end of the board chooses it (said beside the finger), a face in the sheet
    under the board asks about its tile, and the verdict shows on the same screen without
    scrolling; after Add the verdict is gone. Screenshots: artifacts/e2e/issue-47."""

    from chickenfoot.app.settings import Settings, SettingsStore

    text = "large" if large else "normal"
    SettingsStore(tmp_path / "matches-settings.json").save(Settings(large_text=large))
    b = DisputeBuilder("double-chicken-foot", 9, 9)
    for t in ("9-4", "9-1", "9-7", "9-0", "9-3", "9-8"):
        b.add(t, "9-9")
    layout = tmp_path / "table.json"
    layout.write_text(b.to_json())
    b = DisputeBuilder()
    b.load(layout.read_text(), "table.json")  # as the app has it: no end chosen yet
    shots = shots_dir("issue-47", f"after-dispute-{text}-")
    srv = Server(tmp_path / "matches.json", tmp_path / "app.log")
    try:
        page = browser.new_page(viewport=PHONE)
        ui = Ui(page, shots)
        ui.open(srv.url)
        ui.click("Dispute checker")
        ui.choose_file("Load layout file", layout)
        ui.see("The hub has its spokes and no foot is open: any matching open end is fine.")
        wheel(ui, -2000)
        ui.see("Tap an open end on the board (a dashed place), then its tile here.")
        page.screenshot(path=str(shots / f"after-dispute-{text}-1-table.png"))

        # the open end on the 9-8, tapped where the board shows it
        pic = b.picture()
        mark = next(m for m in pic.board.ends if m.end.target == Tile(8, 9))
        box = frame(ui, b, 1.3 if large else 1.0)
        x, y = board_point(box, *pic.to_pixels(mark.spot.x, mark.spot.y))
        page.wait_for_timeout(3000)  # the snack bar gone: the screen still
        around = {"x": max(0, x - 70), "y": max(56, y - 70), "width": 140, "height": 140}
        still = Image.open(io.BytesIO(page.screenshot(clip=around))).convert("RGB")
        page.mouse.click(x, y)
        b.select("9-8")
        chosen = f"The tile for the {end_label(next(e for e in b.open_ends() if e.target == Tile(8, 9)))}:"
        ui.see(chosen)
        page.wait_for_timeout(700)
        tapped = Image.open(io.BytesIO(page.screenshot(clip=around))).convert("RGB")
        changed = np.abs(np.asarray(tapped, int) - np.asarray(still, int)).sum(axis=2) > 60
        print(f"{text} text: {changed.mean():.0%} of the 140 px square round the finger changed on the tap")
        assert changed.mean() > 0.08  # the end ringed and the note beside it, where the finger is
        label = page.locator(BOARD_LABEL).first.get_attribute("aria-label") or ""
        assert f"Chosen: {b.end_name(Tile(8, 9))}" in label, label
        page.screenshot(path=str(shots / f"after-dispute-{text}-2-end-tapped.png"))

        # the picker shows the 8s (the number that end needs), each face with its numbers
        face = ui.button("6-8")
        _in_view(ui, face, "the 6-8 face")
        assert ui.button("8-9, on the table").count() == 1  # laid already: greyed, still named
        face.first.click()
        v = b.ask("8-6")
        assert v.legal
        verdict = page.get_by_text(f"Yes. {v.message}", exact=True)
        vbox = _in_view(ui, verdict, "the verdict")
        board = page.locator(BOARD).first.bounding_box()
        assert board and vbox and vbox["y"] >= board["y"] + board["height"] - 1, (board, vbox)  # under the board
        label = page.locator(BOARD_LABEL).first.get_attribute("aria-label") or ""
        assert f"Judged: 6-8 on 8-9: legal. {v.message}" in label, label
        page.screenshot(path=str(shots / f"after-dispute-{text}-3-verdict.png"))

        ui.click("Add to table")
        b.add("8-6")
        ui.see(re.compile(r"6-8 on 8-9"))  # on the table, in words
        page.wait_for_timeout(500)
        said = [b for b in (m.bounding_box() for m in page.get_by_text(re.compile(r"^(Yes|No)\. ")).all())
                if b and b["x"] > -1000]
        assert not said, said  # the answered question is gone from the screen
        label = page.locator(BOARD_LABEL).first.get_attribute("aria-label") or ""
        assert "Judged:" not in label, label
        page.screenshot(path=str(shots / f"after-dispute-{text}-4-added.png"))
    finally:
        srv.stop()


def test_a_table_being_built_is_kept_on_the_phone_for_its_next_session(tmp_path: Path, browser) -> None:  # type: ignore[no-untyped-def]
    """The browser keeps the dispute table (its storage for this address): a new tab, or the
    session a phone gets after sleeping past its old one, opens on the same table."""
    srv = Server(tmp_path / "matches.json", tmp_path / "app.log")
    try:
        ctx = browser.new_context(viewport=PHONE)
        ui = Ui(ctx.new_page(), shots_dir("board-kept"))
        ui.open(srv.url)
        ui.click("Dispute checker")
        ui.click("9-9")
        ui.click(re.compile(r"^9 on 9-9"))
        ui.click("8-9")
        ui.click("Add to table")
        ui.see(re.compile(r"9-8 on 9-9|8-9 on 9-9"))
        ui.page.wait_for_timeout(500)  # the table sent to the browser's storage beside the redraw
        later = Ui(ctx.new_page(), ui.shots)
        later.open(srv.url + "dispute")
        later.see(re.compile(r"9-8 on 9-9|8-9 on 9-9"))  # the same table, in a session of its own
        later.shot("kept")
        ctx.close()
    finally:
        srv.stop()
