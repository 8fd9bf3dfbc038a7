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
