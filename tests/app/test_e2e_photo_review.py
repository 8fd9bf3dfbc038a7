"""End to end at a phone's width (360 px): real phone photos reviewed in the real
``chickenfoot app --web`` in headless Debian Chromium, and the time from choosing a photo to its
penalty on screen, printed (run with ``-s``) and written to ``artifacts/e2e/photo-review/``.

The photos are real phone photos of double-12 tiles from ``../shared/realdata`` (skipped when
that folder is absent) and a rendered 12-megapixel photo with camera-like noise (the reader
bench's). What each photo reads as is asked of the shipped reader in this process: the screen
must show exactly that (how good the reading is belongs to the reader's evaluation).
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from app_e2e_helpers import ARTIFACTS, SEAT_MODES, Server, Ui, shots_dir

from chickenfoot.vision.lab.realdata import realdata_root

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PHONE = {"width": 360, "height": 780}
REALDATA = realdata_root() / "jeremyarde__domino-counter" / \
    "labelbox_photos"
#: Eight tiles on a marble counter, reflections in a glass pane above: two reflections read as
#: tiles to check, seven finds that are print or a back, not pips.
UNSURE_FINDS = "20210227_190416.jpg"
#: Seven double-12 tiles, among them 1-10 and 8-10: not in the double-9 set a two-player match plays.
BIG_SET = "20210227_190419.jpg"


def _photos(tmp_path: Path) -> tuple[Path, Path, Path]:
    from chickenfoot.vision.config import MODELS_DIR

    if not (MODELS_DIR / "reader.json").exists():
        pytest.skip("no shipped reader models (models/reader.json)")
    if not (REALDATA / UNSURE_FINDS).exists() or not (REALDATA / BIG_SET).exists():
        pytest.skip(f"real photos missing: {REALDATA} (the shared realdata folder)")
    from chickenfoot.vision.lab.bench import make_photo

    big = make_photo(tmp_path / "phone-12mp.jpg", (4000, 3000), seed=4242)
    return REALDATA / UNSURE_FINDS, REALDATA / BIG_SET, big


def _choose(ui: Ui, page, photo: Path, seat: int) -> float:  # type: ignore[no-untyped-def]
    """Tap Photo on seat ``seat``'s row (a hand with no photo yet: the file dialog opens at once)
    and choose ``photo``; seconds until its penalty is on screen."""
    with page.expect_file_chooser(timeout=20_000) as fc:
        ui.click(SEAT_MODES["Photo"], nth=seat)
    assert ui.count(re.compile(r"^Penalty from this photo: ")) == 0  # another hand's photo closed
    t0 = time.perf_counter()
    fc.value.set_files(str(photo))
    page.get_by_text(re.compile(r"^Penalty from this photo: ")).first.wait_for(state="attached", timeout=60_000)
    return time.perf_counter() - t0


def test_photo_review_at_phone_width(tmp_path: Path, browser) -> None:  # type: ignore[no-untyped-def]
    finds_photo, big_set_photo, phone_photo = _photos(tmp_path)
    from chickenfoot.app.photo_review import from_reading, read_top
    from chickenfoot.rules.words import count
    from chickenfoot.storage import Repository
    from chickenfoot.vision.reader import Reader

    db = tmp_path / "matches.json"
    with Repository.open(db) as repo:
        m = repo.create_match(["Ann", "Bob", "Cy", "Dee"])
    rules, top = m.rules, m.set_top
    assert top == 9
    reader = Reader.from_models_dir()
    wide = read_top(top, reader.readable_top(None))
    finds = from_reading(rules, top, reader.read(finds_photo, rules, wide), None, wide)
    big = from_reading(rules, top, reader.read(big_set_photo, rules, wide), None, wide)
    capped = from_reading(rules, top, reader.read(big_set_photo, rules, top), None, top)
    phone = from_reading(rules, top, reader.read(phone_photo, rules, wide), None, wide)
    assert finds.unsure_finds and big.outside and not finds.outside  # what this test is about

    shots = shots_dir("photo-review")
    timings: dict[str, float] = {}
    srv = Server(db, tmp_path / "app.log", {"CHICKENFOOT_LOG": "INFO"})
    try:
        page = browser.new_page(viewport=PHONE)
        ui = Ui(page, shots)
        ui.open(f"{srv.url}match/{m.id}")
        ui.click("Enter round 1")
        ui.click(SEAT_MODES["Went out"], nth=0)

        # Bob: a photo with unsure finds; they wait behind one line, shown on a tap
        timings[f"{finds_photo.name} (real, 8 MP)"] = _choose(ui, page, finds_photo, 1)
        ui.see(f"Penalty from this photo: {finds.headline()}")
        n = len(finds.unsure_finds)
        ui.see(f"{n} unsure finds: show")
        hidden = finds.unsure_finds[0]
        assert ui.count(f"Tile {hidden + 1} may be") == 0
        assert ui.count(re.compile(r"possible tiles? .*(print or a back|too unsure|overlap)")) == 0
        ui.scroll_to(f"Penalty from this photo: {finds.headline()}", 0.45)
        ui.shot("unsure-finds-hidden-360px")
        ui.click(f"{n} unsure finds: show")
        ui.see(f"{n} unsure finds shown in grey: hide")
        ui.page.get_by_text(re.compile(rf"^Tile {hidden + 1} may be .* \(unsure find\)$")).first.wait_for(
            state="attached", timeout=10_000)
        ui.scroll_to(f"Penalty from this photo: {finds.headline()}", 0.45)
        ui.shot("unsure-finds-shown-360px")
        ui.scroll_to(f"Penalty from this photo: {finds.headline()}", 0.2)
        ui.page.get_by_role("button", name="Photo of Bob's hand: open it full screen").click()  # the thumbnail
        ui.click("Zoom in")
        ui.click("Zoom in")
        ui.shot("photo-full-screen-zoomed-in-360px")
        ui.click("Whole photo")
        ui.click("Close")
        ui.click(f"{n} unsure finds shown in grey: hide")
        ui.see(f"{n} unsure finds: show")
        ui.click(finds.use_label())
        if not finds.tiles:  # nothing counted: never quietly 0 points; check a tile, count it
            ui.see(f"Nothing is counted yet in this photo: {count(len(finds.to_check), 'tile')} "
                   f"{'is' if len(finds.to_check) == 1 else 'are'} still to check.")
            ui.scroll_to(re.compile(r"^Nothing is counted yet"), 0.4)
            ui.shot("nothing-counted-asks-360px")
            ui.click("Check them")
            k = finds.to_check[0]
            ui.click(f"Count it as {finds.items[k].tile}")
            finds.accept(k)
            ui.see(f"Penalty from this photo: {finds.headline()}")
            ui.click(finds.use_label())
        if finds.to_check:  # tiles to check are asked about before the reading is used
            ui.see(re.compile(r"still to check: use \d+ points? without (it|them)\?$"))
            ui.click(f"Use {count(finds.penalty, 'point')}")
        ui.see(f"{count(finds.penalty, 'point')} (")

        # Cy: double-12 tiles in a double-9 match: said so, the set they fit named, read again as double-9
        timings[f"{big_set_photo.name} (real, 8 MP)"] = _choose(ui, page, big_set_photo, 2)
        ui.see(f"Penalty from this photo: {big.headline()}")
        ui.see(re.compile(r"are not in the double-9 set this match plays; the tiles read fit a double-12 set\."))
        assert ui.button(big.use_label()).is_disabled()
        ui.scroll_to(f"Penalty from this photo: {big.headline()}", 0.2)
        ui.shot("bigger-set-named-360px")
        ui.click("Read it as double-9")
        ui.see(f"Penalty from this photo: {capped.headline()}")
        assert ui.count(re.compile(r"this match plays; the tiles read fit")) == 0
        ui.scroll_to(f"Penalty from this photo: {capped.headline()}", 0.35)
        ui.shot("read-as-double-9-360px")

        # Dee: a 12-megapixel photo, timed from the choice to its penalty on screen
        timings["phone-12mp.jpg (rendered, 4000x3000, 2.2 MB)"] = _choose(ui, page, phone_photo, 3)
        ui.see(f"Penalty from this photo: {phone.headline()}")
        ui.scroll_to(f"Penalty from this photo: {phone.headline()}", 0.4)
        ui.shot("12mp-photo-360px")
    finally:
        srv.stop()
    log = (tmp_path / "app.log").read_text().splitlines()
    uploads = [line.split("INFO ", 1)[1].strip() for line in log if "file received: " in line]
    stages = [line.split("photo read in ", 1)[1].strip() for line in log if "photo read in " in line]
    report = {"choose photo -> penalty on screen (s)": {k: round(v, 2) for k, v in timings.items()},
              "uploads, in order": uploads, "server stages, in order": stages}
    (ARTIFACTS / "photo-review" / "timing.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    for what, s in timings.items():
        print(f"photo -> penalty on screen at 360 px in Chromium: {s:.2f} s  {what}")
    for line in uploads:  # one per photo chosen
        print(f"  upload: {line}")
    for line in stages:  # one per reading (the photo read again as double-9 too)
        print(f"  server: {line}")
