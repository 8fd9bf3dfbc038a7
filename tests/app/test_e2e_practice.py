"""End to end: a practice round against three bots played to its end through the web app at a
phone's width, in headless Debian Chromium (see ``app_e2e_helpers``).

Every move is chosen from what the screen says (the Hint), made by tapping a tile of the hand
and then an open end (once on the drawing itself, otherwise on its chip), or with Draw / Pass
when the hint says nothing fits. A practice round dealt in-process from the same deal number
follows along, so what the screen shows after each move (the hand, the bots' moves, the
penalties at the end) is checked against the practice round itself. Screenshots go to
``artifacts/e2e/practice``.
"""

from __future__ import annotations

import re

import pytest
from app_e2e_helpers import BOARD, Server, Ui, board_box, board_point, reveal, shots_dir

from chickenfoot.app.practice_session import PracticeSession, PracticeSetup
from chickenfoot.app.settings import Settings
from chickenfoot.app.views.board import end_label
from chickenfoot.rules.tiles import Tile

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PHONE = {"width": 360, "height": 780}
SEED = 5


def _hint(ui: Ui) -> list[str]:
    """Press Hint and read what it says: the legal plays ("4-7 on 9-4"), or none."""
    if not ui.button("Hide hint").count():  # shown already (a refused try keeps it)
        ui.click("Hint")
    said = ui.page.get_by_text(re.compile(r"^(You can play: |Nothing in your hand fits: )")).first
    said.wait_for(state="attached", timeout=20_000)
    text = (said.text_content() or "").strip()
    if text.startswith("Nothing"):
        return []
    return text.removeprefix("You can play: ").split(", ")


def _end_chip(ui: Ui, shadow: PracticeSession, target: str) -> None:
    """Tap the chip of the open end on ``target`` ("4 on 9-4", "9 on 9-9, 4 spokes to go";
    the tile named as it lies, "7-2")."""
    end = next(e for e in shadow.open_ends() if str(e.target) == target)
    ui.click(end_label(end))


def _move(ui: Ui, shadow: PracticeSession, tap: bool = False) -> str:
    """One move of the person's, chosen from the Hint on the screen: the first legal play (by a
    tap on the drawing when ``tap``, else on its open end's chip), else Draw, else Pass. The
    practice round ``shadow`` makes the same move; the screen must then show the round moved on
    (the last thing that happened, the boneyard)."""
    p = shadow.practice
    hint = _hint(ui)
    assert hint == shadow.hint(), (hint, shadow.hint())
    if hint:
        # the hint names tiles as they lie ("9-4"); buttons and the shadow by their value ("4-9")
        tile, target = (str(Tile.parse(x)) for x in hint[0].split(" on "))
        if str(shadow.selected) != tile:
            ui.click(tile)
            shadow.choose(tile)
        ui.see(f"Open ends: put the {tile} on")  # redrawn with the tile chosen: the ends are fresh
        if tap:
            pic, _ = shadow.picture()
            mark = next(m for m in pic.board.ends if str(m.end.target) == target)
            px, py = pic.to_pixels(mark.spot.x, mark.spot.y)
            box = board_box(ui, pic)
            ui.shot("tile-chosen")
            ui.page.mouse.click(*board_point(box, px, py))
        else:
            _end_chip(ui, shadow, target)
        assert shadow.play_on(target), shadow.refusal
        kind = "play"
    elif p.can_draw:
        ui.click("Draw")
        assert shadow.draw()
        kind = "draw"
    else:
        ui.click("Pass")
        assert shadow.pass_turn()
        kind = "pass"
    ui.see(shadow.recent()[-1].text)
    ui.see(f"Boneyard: {p.boneyard} tiles")
    return kind


def test_a_round_against_three_bots_played_to_the_end(server: Server, browser) -> None:  # type: ignore[no-untyped-def]
    shots = shots_dir("practice")
    page = browser.new_page(viewport=PHONE)
    ui = Ui(page, shots)
    ui.open(server.url)
    ui.click("Practise a round")
    ui.see("Which seats are bots (the others are people, taking turns on this device):")
    reveal(ui, page.get_by_role("textbox", name="Deal number").first)
    ui.type_into("Deal number", str(SEED), submit=True, clear=True)
    ui.shot("setup-360px")
    ui.click("Deal")
    shadow = PracticeSetup(Settings().default_preset, seats=4, bot="greedy", seed=SEED).start()
    p = shadow.practice
    assert not p.hint()  # this deal leaves nothing to lay at first: the headline says so
    ui.see("Your turn: nothing in your hand fits, so draw a tile.")
    ui.see(f"Boneyard: {p.boneyard} tiles")
    for t in shadow.hand():
        assert ui.button(str(t)).count() == 1, f"no button for {t} of the hand"
    ui.shot("dealt-360px")

    # a try the rules refuse: their reason, in words, and nothing changes
    hint = _hint(ui)
    assert hint == shadow.hint()
    legal = {(pl.tile, pl.target) for pl in p.hint()}
    bad = next((t, e.target) for t in shadow.hand() for e in shadow.open_ends() if (t, e.target) not in legal)
    ui.click(str(bad[0]))
    ui.see(f"Open ends: put the {bad[0]} on")
    _end_chip(ui, shadow, str(bad[1]))
    ui.see(f"Not allowed. {p.state.table.judge(*bad).message}")
    ui.shot("refused-360px")
    shadow.choose(bad[0])

    moves = draws = passes = 0
    while not shadow.over:
        assert moves < 120
        # your first play is made by a tap on the drawing, the others on the open ends' chips
        kind = _move(ui, shadow, tap=not any(e.kind == "play" and e.seat == 0 for e in p.events))
        draws += kind == "draw"
        passes += kind == "pass"
        moves += 1
        if moves == 3:
            board_box(ui, shadow.picture()[0])
            ui.shot("mid-round-360px")
    ui.see("Penalties, as the scorekeeper counts them")
    for line in shadow.results():
        name = f"{line.name} ({line.bot})" if line.bot else line.name
        ui.see(re.compile(rf"^{re.escape(name)}: {line.penalty} points, "))
    # the next round's buttons fixed at the bottom, on the screen however far the page scrolled
    top, _ = _footer(ui, shadow, 1.0)
    for name in ("Play again", "Continue as a match against the bots"):
        assert _on_screen(ui, ui.button(name), name)["y"] >= top - 1
    ui.shot("round-over-360px")
    print(f"practice round, deal {SEED}: {moves} moves of yours ({draws} draws, {passes} passes); "
          f"{shadow.recent()[-1].text} penalties {[x.penalty for x in shadow.results()]}")

    ui.click("Continue as a match against the bots")
    ui.see("Practice · round 2")
    nxt = shadow.next_round()
    ui.see(f"Boneyard: {nxt.practice.boneyard} tiles")
    page.set_viewport_size({"width": 1280, "height": 860})
    page.wait_for_timeout(1200)
    assert page.locator(BOARD).count() == 1
    for _ in range(4):  # a few moves at desktop width, one by a tap on the drawing
        if nxt.over:
            break
        _move(ui, nxt, tap=_ == 1)
    ui.shot("round-2-desktop")


#: The phone the problem was seen on (a little shorter than the helpers' PHONE).
SHORT_PHONE = {"width": 360, "height": 740}
#: A deal whose first turn has a play with a tile among the hand's first faces (9-2 on the hub).
TURN_SEED = 2
APP_BAR = 56.0
FOOTER_TOP = """(footer) => {
  const e = Array.from(document.querySelectorAll('flt-semantics'))
    .find(e => (e.getAttribute('aria-label') || e.innerText || '').trim() === footer);
  return e ? e.getBoundingClientRect().top : null;
}"""


def _on_screen(ui: Ui, loc, what: str, below: float | None = None) -> dict:  # type: ignore[no-untyped-def]
    """``loc``'s box as it is drawn now (no scrolling), asserted wholly on the screen under the
    app bar (and above ``below``, the fixed part's top, when given)."""
    loc.first.wait_for(state="attached", timeout=20_000)
    # (a live region's words are also in the page once more, off screen, for screen readers)
    boxes = [b for b in (m.bounding_box() for m in loc.all()) if b and b["x"] > -1000]
    box = boxes[0] if boxes else None
    vp = ui.page.viewport_size
    bottom = vp["height"] if below is None else below
    if not (box and box["y"] >= APP_BAR - 0.5 and box["y"] + box["height"] <= bottom + 0.5
            and box["x"] >= 0 and box["x"] + box["width"] <= vp["width"] + 0.5):
        ui.shot(f"FAILED-{what}-off-screen")
        raise AssertionError(f"{what} is not on the screen as drawn: {box} (app bar {APP_BAR}, bottom {bottom})")
    return box


def _footer(ui: Ui, sess: PracticeSession, scale: float) -> tuple[float, float]:
    """Where the part fixed at the bottom begins on the screen, and its estimated height: it is
    drawn no taller than estimated (the board's room is never counted short)."""
    from chickenfoot.app.shell import FOOTER_LABEL
    from chickenfoot.app.views.practice import footer_height

    vp = ui.page.viewport_size
    ui.page.wait_for_timeout(400)
    top = ui.page.evaluate(FOOTER_TOP, FOOTER_LABEL)
    assert top is not None, "no fixed part at the bottom"
    estimate = footer_height(sess, vp["width"], scale)
    drawn = vp["height"] - top
    print(f"{vp['width']}x{vp['height']} at text x{scale}: the fixed part is {drawn:.0f} px high, "
          f"estimated {estimate:.0f}")
    assert drawn <= estimate + 1, (drawn, estimate)
    return top, estimate


def _surface(ui: Ui, sess: PracticeSession, scale: float) -> tuple[dict, float]:  # type: ignore[type-arg]
    """The board's window and the fixed part's top as drawn now: the board under the app bar and
    wholly above the hand, as tall as the estimate of the hand leaves it, and the hand no
    taller than that estimate."""
    from app_e2e_helpers import BOARD

    from chickenfoot.app.views.board import focus_of, framing
    from chickenfoot.app.views.practice import board_height

    vp = ui.page.viewport_size
    top, estimate = _footer(ui, sess, scale)
    box = _on_screen(ui, ui.page.locator(BOARD), "the board", below=top)
    pic, _ = sess.picture()
    wide = vp["width"] - 28 >= 900
    f = framing(pic, box["width"] - 2, board_height(estimate, (vp["width"], vp["height"]), wide), focus_of(pic))
    assert abs(box["height"] - (f.height + 2)) <= 3, (box, f)
    zoom = _on_screen(ui, ui.button("Show the whole board"), "the zoom buttons", below=top)
    assert zoom["y"] >= box["y"] + box["height"] - 1
    return {**box, "framing": f}, top


@pytest.mark.parametrize("large", [False, True], ids=["normal-text", "large-text"])
def test_a_turn_is_played_on_one_screen_at_360px(tmp_path, browser, large: bool) -> None:  # type: ignore[no-untyped-def]
    """At 360 x 740, normal and large text: the board on top and the hand fixed under it, so a
    whole turn (Hint, a tile of the hand, then an open end on the drawing) is played with the
    tile, the open end and the buttons all on the screen, without scrolling; then the same at
    desktop width. Screenshots: artifacts/e2e/practice-surface."""

    from chickenfoot.app.settings import SettingsStore

    text = "large" if large else "normal"
    scale = 1.3 if large else 1.0
    SettingsStore(tmp_path / "matches-settings.json").save(Settings(large_text=large))
    shots = shots_dir("practice-surface", f"{text}-")
    srv = Server(tmp_path / "matches.json", tmp_path / "app.log")
    try:
        page = browser.new_page(viewport=SHORT_PHONE)
        ui = Ui(page, shots)
        ui.open(srv.url)
        ui.click("Practise a round")
        reveal(ui, page.get_by_role("textbox", name="Deal number").first)
        ui.type_into("Deal number", str(TURN_SEED), submit=True, clear=True)
        ui.click("Deal")
        shadow = PracticeSetup(Settings().default_preset, seats=4, bot="greedy", seed=TURN_SEED).start()
        ui.see("Your turn: choose a tile, then an open end.")
        _surface(ui, shadow, scale)
        buttons = [_on_screen(ui, ui.button(name), name) for name in ("Hint", "Draw", "Pass")]
        assert len({round(b["y"]) for b in buttons}) == 1, buttons  # on one line
        page.screenshot(path=str(shots / f"{text}-1-dealt.png"))

        # Hint, in the fixed part: what it says is there too
        page.mouse.click(buttons[0]["x"] + buttons[0]["width"] / 2, buttons[0]["y"] + buttons[0]["height"] / 2)
        shadow.show_hint()
        said = "You can play: " + ", ".join(shadow.hint())
        _, top = _surface(ui, shadow, scale)
        hint = _on_screen(ui, page.get_by_text(said, exact=True), "the hint")
        assert hint["y"] >= top - 1, (hint, top)  # in the fixed part

        # a tile of the hand, tapped where it is drawn (of the plays, the one whose tile shows
        # first in the sliding row: the others are a slide away)
        hand = [str(t) for t in shadow.hand()]
        tile, target = min(((str(Tile.parse(a)), str(Tile.parse(b))) for a, b in (x.split(" on ") for x in shadow.hint())),
                           key=lambda play: hand.index(play[0]))
        face = _on_screen(ui, ui.button(tile), f"the {tile} in the hand")
        assert face["y"] >= top - 1, (face, top)
        page.mouse.click(face["x"] + face["width"] / 2, face["y"] + face["height"] / 2)
        shadow.choose(tile)
        ui.see(f"Now tap an open end for the {tile}.")
        box, top = _surface(ui, shadow, scale)
        _on_screen(ui, ui.button(f"{tile}, chosen"), f"the {tile} chosen")
        for name in ("Hide hint", "Draw", "Pass"):
            _on_screen(ui, ui.button(name), name)
        page.screenshot(path=str(shots / f"{text}-2-tile-chosen.png"))

        # then its open end, tapped on the drawing: on the screen as drawn, above the hand
        pic, _ = shadow.picture()
        mark = next(m for m in pic.board.ends if str(m.end.target) == target)
        x, y = board_point(box, *pic.to_pixels(mark.spot.x, mark.spot.y))
        assert APP_BAR < y < top and 0 < x < SHORT_PHONE["width"], (x, y, top)
        page.mouse.click(x, y)
        assert shadow.play_on(target), shadow.refusal
        ui.see(shadow.recent()[-1].text)
        ui.see(f"Boneyard: {shadow.practice.boneyard} tiles")
        ui.see(shadow.status())
        assert str(Tile.parse(tile)) not in {str(t) for t in shadow.hand()}
        _surface(ui, shadow, scale)  # the next turn: the same surface, not scrolled
        page.screenshot(path=str(shots / f"{text}-3-played.png"))

        # the rest of the round's story is under the board: the chips, what the bots did, the seats
        ui.see(re.compile(r"^Open ends"))
        ui.see(re.compile(rf"deal number {TURN_SEED}$"))

        page.set_viewport_size({"width": 1280, "height": 860})
        page.wait_for_timeout(1500)
        _surface(ui, shadow, scale)
        for name in ("Hint", "Draw", "Pass"):
            _on_screen(ui, ui.button(name), name)
        page.screenshot(path=str(shots / f"{text}-4-desktop.png"))
    finally:
        srv.stop()
