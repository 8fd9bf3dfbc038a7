"""End to end, at a phone's width: scoring a round is saved exactly once, survives a server
restart, takes few taps, and the scoreboard of eight players in large text fits the screen.

The real ``chickenfoot app --web`` in headless Debian Chromium (see ``app_e2e_helpers``);
screenshots go to ``artifacts/e2e/scoring-*``. What the file holds is read back with the
storage repository, not from the screen.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from app_e2e_helpers import SEAT_MODES, Server, Ui, make_match, shots_dir

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PHONE = {"width": 360, "height": 780}
LOG = {"CHICKENFOOT_LOG": "INFO"}

#: Every semantics node the browser holds for the app, with its accessible name and its box.
# Flutter's text-editing proxy (an unlabelled <input> under flt-text-editing-host, present while a
# field has the focus) is not in the accessibility tree: the field's own semantics node carries its name.
A11Y_NODES = """() => Array.from(document.querySelectorAll('flt-semantics, input, textarea, h1, h2, h3, h4, h5, h6'))
  .filter(e => !e.closest('flt-text-editing-host'))
  .map(e => {
    const r = e.getBoundingClientRect();
    let name = e.getAttribute('aria-label') || '';
    if (!name) { for (const c of e.childNodes) { if (c.nodeType === 3 || c.tagName === 'SPAN') name += c.textContent; } }
    return {tag: e.tagName, role: e.getAttribute('role') || (e.tagName === 'INPUT' ? 'textbox' : ''),
            name: name.trim(), left: r.left, right: r.right, top: r.top, bottom: r.bottom,
            width: r.width, height: r.height};
  })"""
CONTROL_ROLES = {"button", "checkbox", "radio", "switch", "slider", "textbox", "combobox", "tab", "link",
                 "menuitem"}


def _scoring_shots(name: str) -> Path:
    return shots_dir(f"scoring-{name}")


def _stored(db: Path, mid: str):  # type: ignore[no-untyped-def]
    from chickenfoot.storage import Repository

    with Repository.open(db) as repo:
        return repo.get(mid)


def _saves(log: Path) -> list[str]:
    """The outcome of every Save the server handled ("stored", "already", "superseded")."""
    return re.findall(r"save of round \d+ \(draft \w+\) by device \w+: (\w+)", log.read_text())


class Taps:
    """Clicks on controls, counted; each must be on screen at 360 px when tapped (no scrolling)."""

    def __init__(self, ui: Ui) -> None:
        self.ui, self.n, self.names = ui, 0, []

    def __call__(self, name: str | re.Pattern[str], nth: int = 0) -> None:
        loc = self.ui.button(name).nth(nth)
        loc.wait_for(state="visible", timeout=20_000)
        box = loc.bounding_box()
        vp = self.ui.page.viewport_size
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= vp["height"] \
            and box["x"] + box["width"] <= vp["width"], f"{name!r} is not on screen: {box}"
        loc.click()
        self.n += 1
        self.names.append(name if isinstance(name, str) else name.pattern)
        self.ui.page.wait_for_timeout(300)


def test_a_double_tap_on_save_stores_one_round(tmp_path: Path, browser) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "matches.json"
    mid = make_match(db, ["Ann", "Bob", "Cy", "Dee"])
    srv = Server(db, tmp_path / "app.log", LOG)
    try:
        ui = Ui(browser.new_page(viewport=PHONE), _scoring_shots("double-tap"))
        ui.open(f"{srv.url}match/{mid}/round")
        ui.see("Round 1 · 9-9 · Ann starts")
        ui.click(SEAT_MODES["Went out"], nth=0)
        for digits in ("5", "Next: Cy", "7", "Next: Dee", "9"):
            ui.click(digits)
        ui.see("Every hand is in: ready to save")
        ui.shot("ready-to-save-360px")
        ui.button("Save round 1").dblclick()  # a double tap
        ui.see("Standings")
        ui.see("Round 2 · 8-8 · Bob starts")
        ui.shot("scoreboard-after-double-tap-360px")
        m = _stored(db, mid)
        assert len(m.rounds) == 1 and m.totals() == [0, 5, 7, 9]
        ui.page.wait_for_timeout(500)
        saves = _saves(tmp_path / "app.log")
        assert saves[0] == "stored" and set(saves[1:]) <= {"already"}, saves
        print(f"double tap: the server handled {len(saves)} saves: {saves}; rounds stored: {len(m.rounds)}")
    finally:
        srv.stop()


def test_two_devices_saving_at_once_store_one_round_and_the_second_is_told(tmp_path: Path, browser) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "matches.json"
    mid = make_match(db, ["Ann", "Bob", "Cy", "Dee"])
    srv = Server(db, tmp_path / "app.log", LOG)
    shots = _scoring_shots("two-devices")
    try:
        a = Ui(browser.new_page(viewport=PHONE), shots)
        b = Ui(browser.new_page(viewport=PHONE), shots)
        for ui in (a, b):
            ui.open(f"{srv.url}match/{mid}/round")
            ui.see("Round 1 · 9-9 · Ann starts")
        a.click(SEAT_MODES["Went out"], nth=0)
        a.click("1")
        a.click("2")
        b.see("12 points")  # the other phone sees the entries as they are made
        b.click(SEAT_MODES["Number"], nth=2)
        b.click("7")
        b.click("Next: Dee")
        b.click("3")
        a.see("Every hand is in: ready to save")
        b.see("Every hand is in: ready to save")
        # Both press Save at the same moment: the two taps are sent before the server has
        # answered either (a plain click waits for the page to settle, which would be too late).
        save_a = a.button("Save round 1").element_handle()
        save_b = b.button("Save round 1").element_handle()
        save_a.evaluate("e => e.click()")
        save_b.evaluate("e => e.click()")
        # both saves handled and one device told (within 20 s: the machine may be loaded)
        for _ in range(40):
            a.page.wait_for_timeout(500)
            texts = {ui: ui.page.evaluate("() => document.body.innerText") for ui in (a, b)}
            told = [ui for ui in (a, b) if "Round 1 was saved on another device" in texts[ui]]
            if len(_saves(tmp_path / "app.log")) >= 2 and told:
                break
        assert len(told) == 1, "exactly one device is told the other saved it"
        other = told[0]
        other.see("Ann: went out")
        other.see("Bob: 12")
        assert other.count(re.compile(r"^Save round")) == 0  # shown the saved round, no open pad
        other.shot("second-device-is-told-360px")
        (b if other is a else a).shot("first-device-scoreboard-360px")
        m = _stored(db, mid)
        assert len(m.rounds) == 1 and m.totals() == [0, 12, 7, 3]
        saves = _saves(tmp_path / "app.log")
        assert sorted(saves) == ["already", "stored"], saves

        # round 2: one phone saves while the other has its pad open: the other is told, and is
        # never moved on to round 3 with its pad open
        first, second = (a, b) if other is b else (b, a)
        second.click("Enter round 2")
        second.see("Round 2 · 8-8 · Bob starts")
        first.page.goto(f"{srv.url}match/{mid}/round")
        first.enable_semantics()
        first.see("Round 2 · 8-8 · Bob starts")
        second.click(SEAT_MODES["Number"], nth=1)
        second.see("Bob: … points")
        for key in (SEAT_MODES["Went out"],):
            first.click(key, nth=0)
        for key in ("4", "Next: Cy", "5", "Next: Dee", "6"):
            first.click(key)
        first.click("Save round 2")
        second.see("Round 2 was saved on another device")
        second.see("Bob: 4")
        assert second.count("Bob: … points") == 0 and second.count(re.compile(r"^Round 3 · ")) == 0
        second.shot("round-2-saved-elsewhere-pad-closed-360px")
        assert len(_stored(db, mid).rounds) == 2
    finally:
        srv.stop()


def test_a_server_restart_in_the_middle_of_a_round_keeps_its_entries(tmp_path: Path, browser) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "matches.json"
    mid = make_match(db, ["Eve", "Fay", "Gus"])
    srv = Server(db, tmp_path / "app.log")
    shots = _scoring_shots("restart")
    ui = Ui(browser.new_page(viewport=PHONE), shots)
    try:
        ui.open(f"{srv.url}match/{mid}/round")
        ui.click(SEAT_MODES["Went out"], nth=0)
        ui.click("2")
        ui.click("0")
        ui.see("20 points")
        ui.shot("before-the-crash-360px")
    finally:
        srv.proc.kill()  # a crash: no chance to save anything on the way out
        srv.proc.wait(10)
        srv.stop()
    again = Server(db, tmp_path / "app2.log")
    try:
        ui.open(f"{again.url}match/{mid}/round")
        ui.see("Round 1 · 9-9 · Eve starts")
        ui.see("went out: 0")
        ui.see("20 points")
        ui.shot("after-the-restart-360px")
        ui.click(SEAT_MODES["Number"], nth=2)
        ui.click("3")
        ui.click("Save round 1")
        ui.see("Standings")
        assert _stored(db, mid).totals() == [0, 20, 3]
    finally:
        again.stop()


def test_a_four_player_round_by_numbers_in_eight_taps_at_360px(tmp_path: Path, browser) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "matches.json"
    mid = make_match(db, ["Ann", "Bob", "Cy", "Dee"])
    srv = Server(db, tmp_path / "app.log")
    shots = _scoring_shots("taps")
    try:
        ui = Ui(browser.new_page(viewport=PHONE), shots)
        ui.open(f"{srv.url}match/{mid}/round")
        ui.see("Ann: … points")  # the pad is open on the first hand, nothing tapped yet
        tap = Taps(ui)
        # Ann 12, Bob went out, Cy 7, Dee 30
        tap("1")
        tap("2")
        tap(SEAT_MODES["Went out"], nth=1)  # Bob's row: the pad moves on to Cy by itself
        ui.see("Cy: … points")
        tap("7")
        tap("Next: Dee")
        tap("3")
        tap("0")
        ui.shot("round-1-entered-in-7-taps-360px")
        tap("Save round 1")
        ui.see("Standings")
        assert tap.n == 8, tap.names
        assert _stored(db, mid).totals() == [12, 0, 7, 30]
        ui.shot("round-1-saved-360px")
        print(f"round 1 (Ann 12, Bob out, Cy 7, Dee 30): {tap.n} taps: {tap.names}")

        # the same by numbers with the first player out: the pad opens on Bob after Went out
        ui.click("Enter round 2")
        ui.see("Round 2 · 8-8 · Bob starts")
        tap2 = Taps(ui)
        tap2(SEAT_MODES["Went out"], nth=0)
        ui.see("Bob: … points")
        for key in ("1", "2", "Next: Cy", "7", "Next: Dee", "3", "0", "Save round 2"):
            tap2(key)
        ui.see("Standings")
        assert tap2.n == 9, tap2.names
        assert _stored(db, mid).totals() == [12, 12, 14, 60]
        print(f"round 2 (Ann out, Bob 12, Cy 7, Dee 30): {tap2.n} taps: {tap2.names}")
    finally:
        srv.stop()


def _check_fits(ui: Ui, screen: str, width: int) -> int:
    """Every named node of the accessibility tree lies inside the viewport's width, and every
    control has a name; returns how many named nodes were checked."""
    nodes = ui.page.evaluate(A11Y_NODES)
    named = [n for n in nodes if n["name"] and n["width"] > 0]
    outside = [f"{n['name']!r} x {n['left']:.0f}..{n['right']:.0f}" for n in named
               if n["left"] < -0.5 or n["right"] > width + 0.5]
    assert not outside, f"{screen}: cut off at {width} px: {outside}"
    nameless = [f"{n['role']} at {n['left']:.0f},{n['top']:.0f}" for n in nodes
                if n["role"] in CONTROL_ROLES and not n["name"]]
    assert not nameless, f"{screen}: controls without a name: {nameless}"
    return len(named)


def test_eight_players_in_large_text_at_360px_nothing_is_cut_off(tmp_path: Path, browser) -> None:  # type: ignore[no-untyped-def]
    from chickenfoot.app.settings import Settings, SettingsStore

    db = tmp_path / "matches.json"
    names = ["Annabelle", "Bartholomew", "Cyrus", "Delphine", "Evangeline", "Ferdinand", "Gwendolyn",
             "Hildegard"]
    rounds = [({n: 10 * s + k for s, n in enumerate(names) if s != k}, names[k]) for k in range(4)]
    mid = make_match(db, names, rounds)
    SettingsStore(tmp_path / "matches-settings.json").save(Settings(large_text=True))
    srv = Server(db, tmp_path / "app.log")
    shots = _scoring_shots("eight-players")
    try:
        ui = Ui(browser.new_page(viewport=PHONE), shots)
        checked: dict[str, int] = {}
        ui.open(f"{srv.url}match/{mid}")
        ui.see("Standings")
        ui.see("Round 5 · 8-8 · Evangeline starts")
        for step in range(6):  # the whole scoreboard, screen by screen
            checked[f"scoreboard {step}"] = _check_fits(ui, f"scoreboard, screen {step + 1}", 360)
            ui.shot(f"scoreboard-{step + 1}-large-text-360px")
            ui.page.mouse.move(180, 500)
            ui.page.mouse.wheel(0, 650)
            ui.page.wait_for_timeout(400)
        totals = _stored(db, mid).totals()
        ui.see("Totals: " + " · ".join(f"{n} {t}" for n, t in zip(names, totals, strict=True)))
        ui.click("Edit round 1")  # Edit is reachable for every round
        ui.see("Round 1 · 12-12 · Annabelle starts")
        checked["edit round 1"] = _check_fits(ui, "edit round 1", 360)
        ui.shot("edit-round-1-large-text-360px")
        ui.click("Cancel edit")
        ui.click("Enter round 5")
        ui.see("Round 5 · 8-8 · Evangeline starts")
        ui.click(SEAT_MODES["Tiles"], nth=1)
        ui.see("Tiles with a 12:")
        ui.page.mouse.move(180, 300)
        ui.page.mouse.wheel(0, 420)  # the rows scroll; the pad and Save stay
        checked["round 5 tiles"] = _check_fits(ui, "round 5, tile picker", 360)
        ui.shot("round-5-tile-picker-large-text-360px")
        ui.page.goto(f"{srv.url}match/{mid}/brief")
        ui.enable_semantics()
        ui.see("Remember")
        checked["round brief"] = _check_fits(ui, "round brief", 360)
        ui.shot("round-brief-large-text-360px")
        ui.page.goto(f"{srv.url}new")
        ui.enable_semantics()
        # a preset's name would be cut in a dropdown in large text: a list of radio buttons, named
        ui.see("Rules preset")
        ui.page.get_by_role("radio", name="Chicken Foot (pagat-style)").first.wait_for(state="attached", timeout=20_000)
        assert ui.page.get_by_role("radio", name="Double Chicken Foot", checked=True).count() == 1
        checked["new match"] = _check_fits(ui, "new match", 360)
        ui.shot("new-match-large-text-360px")
        # every other screen at the same size: nothing cut off, every control named
        for route, ready in (("", "New match"), ("history", "Export and import"), ("stats", "Matches finished"),
                             ("rules", "Chickie Sixes"), ("settings", "Theme"),
                             ("dispute", "Read the table from a photo")):
            ui.page.goto(f"{srv.url}{route}")
            ui.enable_semantics()
            ui.see(ready)
            checked[route or "home"] = _check_fits(ui, route or "home", 360)
            ui.shot(f"{route or 'home'}-large-text-360px")
        print("named nodes checked per screen:", checked)
    finally:
        srv.stop()


def test_a_save_is_offered_back_where_it_is_told_and_a_redo_note_never_covers_the_next_screen(
        tmp_path: Path, browser) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "matches.json"
    mid = make_match(db, ["Ann", "Bob", "Cy"], [({"Ann": 0, "Bob": 5, "Cy": 7}, "Ann"),
                                                 ({"Ann": 3, "Bob": 0, "Cy": 4}, "Bob")])
    srv = Server(db, tmp_path / "app.log")
    try:
        ui = Ui(browser.new_page(viewport=PHONE), _scoring_shots("redo-note"))
        # a round saved is told on the scoreboard with its own Undo
        ui.open(f"{srv.url}match/{mid}/round")
        ui.click(SEAT_MODES["Went out"], nth=0)
        for digits in ("5", "Next: Cy", "7"):
            ui.click(digits)
        ui.click("Save round 3")
        ui.see("Round 3 saved")
        ui.shot("saved-note-360px")
        ui.click("Undo")
        ui.see("Undone: round 3 added")
        assert len(_stored(db, mid).rounds) == 2
        ui.click("Undo: round 2 added")
        ui.click("Undo it")
        ui.see("Undone: round 2 added")
        ui.shot("undone-note-360px")
        ui.click("Redo: round 2 added")  # the scoreboard's own Redo, not the note's
        ui.see("Undo: round 2 added")
        ui.page.wait_for_timeout(1000)  # the note's exit
        assert ui.page.get_by_text("Undone: round 2 added").count() == 0
        ui.click("Edit round 1")
        save = ui.button("Save round 1")
        save.wait_for(state="visible", timeout=20_000)
        ui.shot("edit-round-1-no-note-360px")
        assert ui.page.get_by_role("button", name="Redo", exact=True).count() == 0
        assert len(_stored(db, mid).rounds) == 2
    finally:
        srv.stop()


def test_a_refused_rename_is_said_under_its_field(tmp_path: Path, browser) -> None:  # type: ignore[no-untyped-def]
    """A drawn field cannot be changed in place (Flet freezes it): the refusal redraws the
    screen with the error under the field and the name as typed, and nothing fails."""
    db, log = tmp_path / "matches.json", tmp_path / "app.log"
    mid = make_match(db, ["Ann", "Bob", "Fay"], [({"Ann": 12, "Bob": 3}, "Fay")])
    srv = Server(db, log, LOG)
    try:
        ui = Ui(browser.new_page(viewport=PHONE), _scoring_shots("rename"))
        ui.open(f"{srv.url}match/{mid}")
        ui.click("Rename a player")
        ui.type_into("Name of seat 3", "ann", clear=True)
        ui.see("There is already a player called Ann")
        ui.shot("refused-under-the-field")
        assert _stored(db, mid).players == ("Ann", "Bob", "Fay")
        assert "Something went wrong" not in ui.page.content()
        ui.type_into("Name of seat 3", "Bea", clear=True)
        ui.see("Fay is now Bea")
        assert _stored(db, mid).players == ("Ann", "Bob", "Bea")
    finally:
        srv.stop()
    assert "handler failed" not in log.read_text()


def test_a_reload_mid_round_brings_the_hand_the_pad_types_for_back_into_view(tmp_path: Path, browser) -> None:  # type: ignore[no-untyped-def]
    """A refreshed page keeps its session but is drawn from the top: the card of the hand the pad
    types for (the last of six, far down) is brought into view above the pad again."""
    db = tmp_path / "matches.json"
    players = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay"]
    mid = make_match(db, players)
    srv = Server(db, tmp_path / "app.log", LOG)
    try:
        page = browser.new_page(viewport={"width": 360, "height": 740})
        ui = Ui(page, _scoring_shots("reload"))
        ui.open(f"{srv.url}match/{mid}/round")
        for name in players:
            ui.see(f"{name}: … points")
            ui.click("1")
            ui.see(f"{name}: 1 point")
            if name != "Fay":
                ui.click(f"Next: {players[players.index(name) + 1]}")
        page.reload()
        ui.enable_semantics()
        ui.see("Fay: 1 point")
        page.wait_for_timeout(1500)  # the scroll after the redraw
        ui.shot("after-reload")
        card = page.get_by_text("Fay", exact=True).first.bounding_box()
        key = ui.button("7").first.bounding_box()  # the pad, fixed at the foot of the screen
        assert card is not None and key is not None
        assert card["y"] >= 0 and card["y"] + card["height"] <= key["y"], (card, key)
    finally:
        srv.stop()
