"""End to end at 360x780, normal and large text: a photo's reading is a proposal the player
confirms where they look.

- A photo of a bare table never becomes a 0-point hand by itself: Use asks, in a player's words,
  and nothing is kept until the player answers.
- A portrait photo's headline ("Penalty from this photo: ...") is in view as soon as the photo
  is read, without scrolling: the photo is a thumbnail under it, full screen on a tap.
- A half-entered round opens with the row the pad types for in view, not under the pad.

The photos are made from the real test photos in ``tests/data`` (a corner of ``table.jpg`` with
no tile on it; ``hand.jpg`` turned upright in a 9:16 frame, as a phone takes it). Screenshots go
to ``artifacts/e2e/issue-47/``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from app_e2e_helpers import SEAT_MODES, Server, Ui, make_match, reveal, shots_dir

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

DATA = Path(__file__).resolve().parents[1] / "data"
PHONE = {"width": 360, "height": 780}
APP_BAR = 56
#: The top of the fixed part (pad, Save), found by its named edge.
BAR_TOP = """(footer) => {
  const e = Array.from(document.querySelectorAll('flt-semantics'))
    .find(e => (e.getAttribute('aria-label') || e.innerText || '').trim() === footer);
  return e ? e.getBoundingClientRect().top : window.innerHeight;
}"""


def _need_reader() -> None:
    from chickenfoot.vision.config import MODELS_DIR

    if not (MODELS_DIR / "reader.json").exists():
        pytest.skip("no shipped reader models (models/reader.json)")


def _bare_table(tmp_path: Path) -> Path:
    from PIL import Image

    path = tmp_path / "bare-table.jpg"
    Image.open(DATA / "table.jpg").crop((0, 500, 420, 720)).resize((960, 503)).save(path, quality=92)
    return path


def _portrait(tmp_path: Path) -> Path:
    from PIL import Image

    hand = Image.open(DATA / "hand.jpg").rotate(90, expand=True)  # 720x960, upright
    frame = Image.new("RGB", (720, 1280), hand.getpixel((5, 5)))
    frame.paste(hand, (0, 160))
    path = tmp_path / "portrait-hand.jpg"
    frame.save(path, quality=92)
    return path


def _start(tmp_path: Path, large: bool) -> tuple[Path, str, Server]:
    from chickenfoot.app.settings import Settings, SettingsStore

    db = tmp_path / "matches.json"
    mid = make_match(db, ["Ann", "Bob", "Cy", "Dee"])
    SettingsStore(tmp_path / "matches-settings.json").save(Settings(large_text=large))
    return db, mid, Server(db, tmp_path / "app.log")


def _photo(ui: Ui, seat: int, photo: Path) -> None:
    with ui.page.expect_file_chooser(timeout=20_000) as fc:
        ui.click(SEAT_MODES["Photo"], nth=seat)
    fc.value.set_files(str(photo))
    ui.page.get_by_text(re.compile(r"^Penalty from this photo: ")).first.wait_for(state="attached", timeout=90_000)
    ui.page.wait_for_timeout(1200)  # the redraw and the scroll to the row


def _in_view(ui: Ui, loc: Any, what: str) -> dict[str, float]:
    from chickenfoot.app.shell import FOOTER_LABEL

    bar = ui.page.evaluate(BAR_TOP, FOOTER_LABEL)
    box = loc.bounding_box()
    assert box is not None, f"{what} is not on the screen"
    assert box["y"] >= APP_BAR - 0.5 and box["y"] + box["height"] <= bar + 0.5, \
        f"{what} is not in view without scrolling: {box}, app bar to {APP_BAR}, pad/Save from {bar:.0f}"
    return box


def _draft(db: Path, mid: str) -> Any:
    from chickenfoot.app.match_session import MatchSession
    from chickenfoot.app.store import MatchStore

    store = MatchStore.open(db)
    try:
        ms = MatchSession(store, mid)
        return ms.content(ms.open_draft()).entry  # the round being entered, as every device shares it
    finally:
        store.close()


@pytest.mark.parametrize("large", [False, True], ids=["normal-text", "large-text"])
def test_a_bare_table_photo_cannot_store_0_unless_the_player_says_so(tmp_path: Path, browser, large: bool) -> None:  # type: ignore[no-untyped-def]
    _need_reader()
    bare = _bare_table(tmp_path)
    db, mid, srv = _start(tmp_path, large)
    text = "large" if large else "normal"
    ui = Ui(browser.new_page(viewport=PHONE), shots_dir(f"issue-47/bare-table-{text}"))
    try:
        ui.open(f"{srv.url}match/{mid}/round")
        _photo(ui, 0, bare)
        head = ui.page.get_by_text("Penalty from this photo: nothing read").first
        _in_view(ui, head, "the headline of the bare table's reading")
        ui.shot(f"bare-table-read-{text}")
        ui.click("Use this photo")
        question = ui.page.get_by_text("Nothing was read in this photo: did Ann go out, or take another photo?").first
        question.wait_for(state="attached", timeout=20_000)
        ui.page.wait_for_timeout(800)
        _in_view(ui, question, "the question Use asks")
        _in_view(ui, ui.button("Ann went out"), "its first answer")
        ui.shot(f"bare-table-asks-{text}")
        entry = _draft(db, mid)
        assert entry.penalty(0) is None, "Use made a number of a photo where nothing was read"
        assert ui.count("0 points (no tiles)") == 0
        ui.click("Ann went out")
        ui.see("went out: 0")
        ui.shot(f"bare-table-answered-{text}")
        entry = _draft(db, mid)
        assert entry.hands[0].mode.value == "out" and entry.penalty(0) == 0
    finally:
        srv.stop()


@pytest.mark.parametrize("large", [False, True], ids=["normal-text", "large-text"])
def test_a_portrait_photos_headline_is_in_view_without_scrolling(tmp_path: Path, browser, large: bool) -> None:  # type: ignore[no-untyped-def]
    _need_reader()
    from chickenfoot.app.photo_review import from_reading, read_top
    from chickenfoot.storage import Repository
    from chickenfoot.vision.reader import Reader

    portrait = _portrait(tmp_path)
    db, mid, srv = _start(tmp_path, large)
    with Repository.open(db) as repo:
        m = repo.get(mid)
    reader = Reader.from_models_dir()
    wide = read_top(m.set_top, reader.readable_top(None))
    review = from_reading(m.rules, m.set_top, reader.read(portrait, m.rules, wide), None, wide)
    assert review.tiles, "the hand photo reads tiles (what this test is about)"
    text = "large" if large else "normal"
    ui = Ui(browser.new_page(viewport=PHONE), shots_dir(f"issue-47/portrait-{text}"))
    try:
        ui.open(f"{srv.url}match/{mid}/round")
        ui.click(SEAT_MODES["Went out"], nth=0)
        _photo(ui, 1, portrait)  # Bob: the pad had moved to him
        head = ui.page.get_by_text(f"Penalty from this photo: {review.headline()}").first
        head.wait_for(state="attached", timeout=20_000)
        _in_view(ui, head, "the portrait photo's headline")
        thumb = ui.page.get_by_role("button", name="Photo of Bob's hand: open it full screen")
        _in_view(ui, thumb, "the photo's thumbnail")
        ui.shot(f"portrait-read-{text}")
        thumb.click()
        ui.page.get_by_role("button", name="Zoom in").first.wait_for(state="visible", timeout=20_000)
        ui.shot(f"portrait-full-screen-{text}")
        ui.click("Zoom in")
        ui.shot(f"portrait-full-screen-zoomed-{text}")
        ui.click("Close")
        if review.to_check:  # a tile to check: its answers, and the faces "Another tile" opens, in view
            ui.click("Another tile")
            pick = ui.page.get_by_text(re.compile(r"^Pick what tile \d+ really is:")).first
            pick.wait_for(state="attached", timeout=20_000)
            ui.page.wait_for_timeout(800)
            _in_view(ui, pick, "the choices of the tile tapped")
            ui.shot(f"portrait-tile-choices-{text}")
        use = review.use_label()
        reveal(ui, ui.button(use).first)
        ui.click(use)
        if review.to_check:
            ui.click(f"Use {review.penalty} points")
        ui.see(f"{review.penalty} points (")
        ui.shot(f"portrait-used-{text}")
    finally:
        srv.stop()


def test_a_half_entered_round_opens_with_the_pads_row_in_view(tmp_path: Path, browser) -> None:  # type: ignore[no-untyped-def]
    from chickenfoot.app.match_session import MatchSession
    from chickenfoot.app.store import MatchStore

    players = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay"]
    db = tmp_path / "matches.json"
    mid = make_match(db, players)
    store = MatchStore.open(db)
    try:
        ms = MatchSession(store, mid)
        d = ms.open_draft()

        def typed(c: Any) -> None:
            for seat in range(5):
                c.entry.set_pips(seat, 10 + seat)
        ms.change(d.id, typed)
    finally:
        store.close()
    srv = Server(db, tmp_path / "app.log")
    ui = Ui(browser.new_page(viewport=PHONE), shots_dir("issue-47/half-entered"))
    try:
        ui.open(f"{srv.url}match/{mid}/round")
        ui.see("Fay: … points")
        ui.page.wait_for_timeout(1200)
        _in_view(ui, ui.button(SEAT_MODES["Went out"]).nth(5), "Fay's row (the pad types for Fay)")
        ui.shot("half-entered-round-opens-on-fay")
    finally:
        srv.stop()
