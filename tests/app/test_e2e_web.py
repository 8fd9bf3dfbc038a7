"""End to end: the real web app (``chickenfoot app --web``) in headless Debian Chromium.

Screenshots of every screen go to ``artifacts/e2e/`` (git-ignored) for people to look at.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from app_e2e_helpers import SEAT_MODES, Server, Ui, shots_dir, suit

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def _pad(ui: Ui, player: str, keys: str) -> None:
    """Type on the number pad, waiting for the display after every key."""
    shown = ""
    for k in keys:
        ui.click(k)
        shown += k
        n = shown.lstrip('0') or '0'
        ui.see(f"{player}: {n} {'point' if n == '1' else 'points'}")


def _standings(ui: Ui, expected: list[str]) -> None:
    for line in expected:
        ui.see(re.compile("^" + re.escape(line) + r"(\s+\(leader\))?$"))


def test_four_player_match_two_rounds_edit_and_reload(server: Server, browser) -> None:  # type: ignore[no-untyped-def]
    shots = shots_dir("match")
    page = browser.new_page(viewport={"width": 900, "height": 1300})
    ui = Ui(page, shots)
    ui.open(server.url)
    ui.see("New match")
    ui.shot("home")

    # --- new match with four players
    ui.click("New match")
    for name in ("Ann", "Bob", "Cy", "Dee"):
        ui.type_into("Player name", name)
        ui.button(f"Remove {name}").wait_for(timeout=10_000)  # the seat row exists
    ui.see("With 4 players: double-9 set (55 tiles), 11 tiles each, 10 rounds from 9-9 down to 0-0.")
    ui.shot("new-match")
    ui.click("Start match")
    ui.see("Round 1 of 10")
    ui.see("Round 1 of 10. Deal 11 tiles to each player (double-9 set).")
    ui.see("Ann plays first (the first turn moves one seat each round).")
    ui.shot("round-brief")

    # --- round 1 by numbers: Ann out, Bob 12, Cy 7, Dee 30
    ui.click("Enter round 1 results")
    ui.see(re.compile(r"^Scoring round 1"))
    ui.click(SEAT_MODES["Went out"], nth=0)
    for seat, name, digits in ((1, "Bob", "12"), (2, "Cy", "7"), (3, "Dee", "30")):
        ui.click(SEAT_MODES["Number"], nth=seat)
        _pad(ui, name, digits)
    ui.see("30 points")
    ui.shot("round-1-numbers")
    ui.click("Save round 1")
    ui.see("Standings")
    _standings(ui, ["1. Ann: 0", "2. Cy: 7", "3. Bob: 12", "4. Dee: 30"])
    ui.see("Bob plays first (the first turn moves one seat each round).")
    ui.shot("scoreboard-1")

    # --- a second device (a phone) on the same match: Dee enters her own hand there
    phone = browser.new_page(viewport={"width": 360, "height": 780})
    ui2 = Ui(phone, shots)
    ui2.open(page.url)
    _standings(ui2, ["1. Ann: 0", "2. Cy: 7"])
    ui2.click("Enter round 2")
    ui2.see(re.compile(r"^Scoring round 2"))

    # --- round 2 by tiles (0-0 counts 50): Ann 0-0 + 3-4, Bob out, Cy 1-2; Dee 5 from the phone
    ui.click("Enter round 2")
    ui.see(re.compile(r"^Scoring round 2"))
    ui.click(SEAT_MODES["Tiles"], nth=0)
    ui.see("Tiles with a 9:")  # grouped by suit, highest first; 8-8 is on the table, not offered
    assert ui.button("8-8").count() == 0 and ui.button("8-9").count() == 1
    ui.click(suit(0))
    ui.click("0-0 = 50")
    ui.see("50 points (0-0 = 50)")
    ui.click(suit(3))
    ui.click("3-4")
    ui.see("57 points (0-0 = 50, 3-4)")
    ui.click(SEAT_MODES["Went out"], nth=1)
    ui.click(SEAT_MODES["Tiles"], nth=2)
    ui.click(suit(1))
    ui.click("1-2")
    ui.see("3 points (1-2)")
    ui2.see("57 points (0-0 = 50, 3-4)")  # the phone sees the desktop's entries as they are made
    ui2.click(SEAT_MODES["Number"], nth=3)
    _pad(ui2, "Dee", "5")
    ui2.shot("phone-enters-own-hand-360px")
    ui.see("5 points")  # ... and the desktop sees Dee's
    ui.shot("round-2-tiles")
    ui.click(SEAT_MODES["Tiles"], nth=0)  # the picker at phone width
    page.set_viewport_size({"width": 360, "height": 1300})
    ui.shot("round-2-tile-picker-360px")
    page.set_viewport_size({"width": 900, "height": 1300})
    page.wait_for_timeout(1200)  # let the relayout settle before the next tap
    ui.click("Save round 2")
    ui.see("Standings")
    _standings(ui, ["1. Cy: 10", "2. Bob: 12", "3. Dee: 35", "4. Ann: 57"])
    ui.see("Cy plays first (the first turn moves one seat each round).")
    ui.shot("scoreboard-2")

    # --- the phone is told the round it showed was saved there, then follows the edit live
    ui2.see("Round 2 was saved on another device")
    ui2.click("Scoreboard")
    _standings(ui2, ["1. Cy: 10", "2. Bob: 12"])

    # --- edit round 1: Bob had 20, not 12
    ui.click("Edit round 1")
    ui.see(re.compile(r"^Editing round 1"))
    ui.see("12 points")
    ui.click(SEAT_MODES["Number"], nth=1)
    ui.see("Bob: 12 points")
    _pad(ui, "Bob", "20")  # the first key after the pad opens starts a new number
    ui.shot("edit-round-1")
    ui.click("Save round 1")
    ui.see("Standings")
    _standings(ui, ["1. Cy: 10", "2. Bob: 20", "3. Dee: 35", "4. Ann: 57"])
    _standings(ui2, ["1. Cy: 10", "2. Bob: 20", "3. Dee: 35", "4. Ann: 57"])
    ui2.shot("second-device-360px")
    phone.close()

    # --- reload: everything comes back from the file, on the same screen
    page.reload()
    ui.enable_semantics()
    ui.see("Standings")
    _standings(ui, ["1. Cy: 10", "2. Bob: 20", "3. Dee: 35", "4. Ann: 57"])
    ui.see("Cy plays first (the first turn moves one seat each round).")
    ui.see("Total")
    ui.shot("scoreboard-after-reload")

    # --- the same screen on a phone-width window
    page.set_viewport_size({"width": 360, "height": 780})
    page.wait_for_timeout(800)
    ui.see("Cy plays first (the first turn moves one seat each round).")
    ui.shot("scoreboard-360px")

    # --- history: export through the file dialog (a browser download in web mode); stats
    page.set_viewport_size({"width": 900, "height": 1000})
    page.wait_for_timeout(1200)  # the screen is redrawn for the new width: tap once it is
    ui.click("Home")
    ui.see("Resume match")
    ui.click("History")
    ui.see("1. Cy 10 · 2. Bob 20 · 3. Dee 35 · 4. Ann 57")
    with page.expect_download(timeout=20_000) as dl:
        ui.click("Export JSON")
    exported = json.loads(Path(dl.value.path()).read_text(encoding="utf-8"))
    assert [m["players"] for m in exported["matches"]] == [["Ann", "Bob", "Cy", "Dee"]]
    assert [r["penalties"] for r in exported["matches"][0]["rounds"]] == [[0, 20, 7, 30], [57, 0, 3, 5]]
    ui.shot("history")
    ui.click("Home")
    ui.click("Statistics")
    ui.see(re.compile(r"^Wins and the lowest match total count finished matches"))
    ui.shot("statistics")


def _photo_case(tmp_path: Path) -> tuple[Path, dict[str, str], str]:
    """(photo, extra env for the server, what the models are). Real models when shipped,
    else the reader tests' small fake ONNX models with a drawn hand (known answer)."""
    from chickenfoot.vision.config import MODELS_DIR

    if (MODELS_DIR / "reader.json").exists():
        shipped = sorted(p for p in (Path(__file__).parents[1] / "data").glob("*")
                         if p.suffix.lower() in (".png", ".jpg", ".jpeg"))
        if shipped:
            return shipped[0], {}, "shipped models, shipped test image"
        import numpy as np

        from chickenfoot.vision.lab.datasets.render import SceneConfig, render_scene

        img, _ = render_scene(np.random.default_rng(5), SceneConfig(width=640, height=480))
        path = tmp_path / "rendered-hand.png"
        img.save(path)
        return path, {}, "shipped models, image rendered by datasets/render.py"
    try:
        import onnx  # noqa: F401
    except ImportError:
        pytest.skip("no shipped reader models (models/reader.json) and no onnx package to build "
                    "the reader tests' fake models")
    import sys

    sys.path.insert(0, str(Path(__file__).parents[1] / "vision"))
    from fake_models import scene  # the reader's own test fixture: drawn tiles, known answer

    photo, models, _ = scene(tmp_path)
    return photo, {"CHICKENFOOT_MODELS": str(models)}, "fake models from tests/vision/fake_models.py"


def test_score_a_photo_through_the_ui(tmp_path: Path, browser) -> None:  # type: ignore[no-untyped-def]
    photo, env, what = _photo_case(tmp_path)
    from chickenfoot.app.photo_review import from_reading
    from chickenfoot.app.round_entry import tile_label
    from chickenfoot.rules import get_rules
    from chickenfoot.rules.words import count
    from chickenfoot.vision.reader import Reader

    models = env.get("CHICKENFOOT_MODELS")
    # What the reader itself makes of the photo: the UI must show exactly this penalty (how
    # good the reading is belongs to the reader's evaluation, not to this test).
    reading = Reader.from_models_dir(models).read(photo, get_rules())
    review = from_reading(get_rules(), 12, reading)
    expected = review.headline()
    print(f"photo test: {what}; reader read {len(reading.tiles)} tiles, penalty {expected}")

    shots = shots_dir("photo")
    srv = Server(tmp_path / "matches.json", tmp_path / "app.log", env)
    try:
        page = browser.new_page(viewport={"width": 800, "height": 1000})
        ui = Ui(page, shots)
        ui.open(srv.url)
        ui.click("New match")
        for name in ("Ann", "Bob"):
            ui.type_into("Player name", name)
            ui.button(f"Remove {name}").wait_for(timeout=10_000)
        ui.click("Start match")
        ui.click("Enter round 1 results")
        ui.click(SEAT_MODES["Went out"], nth=0)
        with ui.page.expect_file_chooser(timeout=20_000) as fc:  # one tap: the dialog opens at once
            ui.click(SEAT_MODES["Photo"], nth=1)
        fc.value.set_files(str(photo))
        ui.see(f"Penalty from this photo: {expected}", timeout=60_000)
        ui.shot("photo-review")

        while review.questions:  # "the 0-0 or a face-down tile?", on the tile's own row: face down
            ui.click("It is face down")
            review.remove(review.questions[0])
        shown = review.shown()
        counted = [k for k in shown if k not in review.to_check and review.items[k].counted]
        if counted:  # correct the reading: remove a counted tile, the penalty follows
            k = counted[0]
            ui.click(f"{k + 1}: {tile_label(review.rules, review.items[k].tile)}")
            ui.click(f"Remove tile {k + 1}")
            review.remove(k)
        else:  # nothing counted: add the missed tile by hand
            ui.click("Add a missed tile")
            ui.click(suit(0))
            ui.click("0-0 = 50")
            review.add("0-0")
        ui.see(f"Penalty from this photo: {review.headline()}")
        ui.shot("photo-corrected")
        ui.click(review.use_label())
        if review.use_question("Bob") is not None:  # tiles still to check: used without them
            ui.click(f"Use {count(review.penalty, 'point')}")
        ui.see(f"{count(review.penalty, 'point')} (", timeout=10_000)
        ui.click("Save round 1")
        ui.see("Standings")
        _standings(ui, ["1. Ann: 0", f"2. Bob: {review.penalty}"])
        ui.shot("scoreboard-after-photo")
    finally:
        srv.stop()


def test_dispute_rules_settings_history_at_phone_and_desktop_width(server: Server, browser, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    shots = shots_dir("tour")
    page = browser.new_page(viewport={"width": 360, "height": 780})
    ui = Ui(page, shots)
    ui.open(server.url)
    ui.shot("home-360px")

    # dispute checker, reached with the keyboard alone: hub, open end, ask about 4-7, a spoke
    ui.tab_to("Dispute checker")
    page.keyboard.press("Enter")
    ui.click("9-9")
    ui.see("The 9-9 still needs 6 spokes before anything else.")
    ui.click("9 on 9-9, 6 spokes to go")
    ui.scroll_to("Can it go on the 9-9?", top=0.4)  # below the board on a phone
    ui.type_into("Tile, e.g. 4-7", "4-7", submit=False)
    ui.click("Can it go on the 9-9?")
    ui.see("No. 4-7 has no 9, so it cannot go on the 9-9.")
    ui.shot("dispute-verdict-360px")
    ui.type_into("Tile, e.g. 4-7", "9-4", submit=False, clear=True)
    ui.click("Add to table")
    ui.see("The 9-9 still needs 5 spokes before anything else.")
    ui.see("9-9 (hub) · 4-9 on 9-9")
    ui.shot("dispute-table-360px")

    # rules page generated from the presets
    ui.click("Home")
    ui.click("Rules")
    ui.see("Chickie Sixes")
    ui.see("• The round's double needs 4 spokes before any other play.")
    ui.shot("rules-360px")

    # settings: dark theme and large text, then the home screen at desktop width
    ui.click("Home")
    ui.click("Settings")
    page.get_by_role("radio", name="Dark").click()
    page.wait_for_timeout(400)
    page.get_by_role("switch", name="Large text").click()
    page.wait_for_timeout(600)
    ui.shot("settings-dark-large-360px")
    page.set_viewport_size({"width": 1200, "height": 800})
    page.wait_for_timeout(800)
    ui.click("Home")
    ui.see("Statistics")
    ui.shot("home-dark-large-desktop")
    ui.click("History")
    ui.see("No matches yet.")

    # import a JSON export (written by another scorekeeper file) through the file dialog
    from chickenfoot.app.store import MatchStore

    other = MatchStore.open(tmp_path / "elsewhere.json")
    m = other.create(["Zoe", "Yan"], "pagat", {})
    export = tmp_path / "export.json"
    export.write_text(other.export_json(), encoding="utf-8")
    other.close()
    ui.choose_file("Import JSON", export)
    ui.see("Imported export.json: 1 added, 0 updated, 0 already here")
    ui.see(re.compile(r"^Zoe, Yan · Chicken Foot \(pagat-style\)"))
    ui.shot("history-imported-desktop")
    assert m.id


def test_dispute_reads_the_table_from_a_photo(server: Server, browser, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The browser's own file dialog hands the rendered table photo (tests/data/table.jpg) to the dispute checker; the
    shipped reader reads it; a broken file then is refused and the table stays."""
    from chickenfoot.vision.config import MODELS_DIR

    if not (MODELS_DIR / "reader.json").exists():
        pytest.skip("no shipped reader models (models/reader.json)")
    photo = Path(__file__).parents[1] / "data" / "table.jpg"
    page = browser.new_page(viewport={"width": 800, "height": 1100})
    ui = Ui(page, shots_dir("dispute-photo"))
    ui.open(server.url)
    ui.click("Dispute checker")
    ui.choose_file("Read the table from a photo", photo)
    ui.see(re.compile(r"^From the photo: .*the hub is 3-3 with 14 tiles joined to it$"), timeout=60_000)
    ui.see("The hub has its spokes and no foot is open: any matching open end is fine.")
    ui.see("On the table (order of play unknown)")
    ui.shot("dispute-photo-read")

    broken = tmp_path / "broken.jpg"
    broken.write_bytes(photo.read_bytes()[:4000])
    ui.choose_file("Read the table from a photo", broken)
    ui.see(re.compile(r"^Could not read the photo: broken\.jpg: .*The table is unchanged\.$"),
           timeout=30_000)
    ui.see(re.compile(r"^From the photo: "))
    ui.shot("dispute-photo-broken-file")
