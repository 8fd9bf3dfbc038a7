"""End to end: the table drawn as a board in the dispute checker (typed in at 360 px and at
desktop width, a tap on an open end of the drawing, a judged play drawn in place, a table photo
drawn as a board beside the photo).

The real ``chickenfoot app --web`` in headless Debian Chromium (see ``app_e2e_helpers``);
screenshots go to ``artifacts/e2e/board-*``. Where a tap lands is worked out from the same
drawing the app shows (``DisputeBuilder.picture``) and the box the browser gives the drawing.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from app_e2e_helpers import (
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

from chickenfoot.app.dispute import DisputeBuilder
from chickenfoot.app.views.board import end_label, focus_of, zoomed
from chickenfoot.rules.layout import Verdict
from chickenfoot.rules.tiles import Tile

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PHONE = {"width": 360, "height": 780}
DESKTOP = {"width": 1280, "height": 900}


def tap_end(ui: Ui, b: DisputeBuilder, target: str, nth: int = 0) -> None:
    """Tap the ``nth`` mark of the open end on ``target`` where the browser shows it."""
    pic = b.picture()
    marks = [m for m in pic.board.ends if m.end.target == Tile.parse(target)]
    assert marks, f"no open end on {target}"
    m = marks[nth]
    px, py = pic.to_pixels(m.spot.x, m.spot.y)
    box = board_box(ui, pic, b.selected)
    ui.page.mouse.click(*board_point(box, px, py))
    ui.page.wait_for_timeout(400)
    ui.shot(f"tapped-{target}")


def type_tile(ui: Ui, text: str) -> None:
    """Type into the tile field, brought into view first (the board above it is tall)."""
    reveal(ui, ui.page.get_by_role("textbox", name="Tile, e.g. 4-7").first)
    ui.type_into("Tile, e.g. 4-7", text, submit=False, clear=True)


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
    box = board_box(ui, b.picture(), b.selected)
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
    board_box(ui, b.picture())
    ui.shot("typed-layout-360px")

    # a tap on the drawing chooses the open end: the 4-9's, then a question about it
    v = ask_on_drawing(ui, b, "4-9", "4-5")
    assert not v.legal
    ui.see(f"No. {v.message}")
    label = page.locator(BOARD_LABEL).first.get_attribute("aria-label") or ""
    assert f"Judged: 4-5 on 4-9: not legal. {v.message}" in label
    board_box(ui, b.picture())
    ui.shot("judged-illegal-360px")

    # a legal one on the open foot, chosen on the drawing too
    v = ask_on_drawing(ui, b, "7-7", "7-2")
    assert v.legal
    ui.see(f"Yes. {v.message}")
    board_box(ui, b.picture())
    ui.shot("judged-legal-360px")
    ui.click("Zoom in on the board")
    ui.click("Zoom in on the board")
    ui.shot("zoomed-in-360px")
    ui.click("Show the whole board")

    page.set_viewport_size(DESKTOP)
    page.wait_for_timeout(1200)
    ui.see(f"Yes. {v.message}")
    box = board_box(ui, b.picture())
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
    board_box(ui, pic, b.selected)
    ui.click("Zoom in on the board")
    page.wait_for_timeout(600)
    box = board_box(ui, pic, b.selected)
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
    ui.see(re.compile(r"^From the photo: .*the hub is 3-3 with 14 tiles played on it$"), timeout=60_000)
    label = page.locator(BOARD_LABEL).first.get_attribute("aria-label") or ""
    assert label.startswith("The table drawn as a board: 3-3 (hub) · ") and label.count(" on ") >= 14, label
    photo_box = page.locator('flt-semantics[aria-label^="Photo of the table"], '
                             'flt-semantics:has(> flt-semantics-img[aria-label^="Photo of the table"])').first
    a = photo_box.bounding_box()
    b = page.locator(BOARD).first.bounding_box()
    assert a and b and b["x"] >= a["x"] + a["width"] and abs(b["y"] - a["y"]) < 5, (a, b)  # side by side
    ui.shot("photo-and-board-desktop")
    page.set_viewport_size(PHONE)
    page.wait_for_timeout(1500)
    a = photo_box.bounding_box()
    b = page.locator(BOARD).first.bounding_box()
    assert a and b and b["y"] >= a["y"] + a["height"] - 1 and b["x"] + b["width"] <= PHONE["width"], (a, b)
    wheel(ui, b["y"] - 120)
    ui.shot("photo-and-board-360px")
