"""Round entry and photo review state, tested without UI (real PNG for the annotated photo)."""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path

import pytest
from PIL import Image

from chickenfoot.app.photo_review import PhotoReview, Preview, ReviewError, from_reading
from chickenfoot.app.round_entry import EntryError, Mode, RoundEntry
from chickenfoot.rules import Tile, get_rules
from chickenfoot.vision.geometry import OrientedBox
from chickenfoot.vision.lab.realdata import realdata_root
from chickenfoot.vision.reading import Reading, TileReading

PLAYERS = ["Ann", "Bob", "Cy", "Dee"]


def test_went_out_number_pad_and_tiles_give_penalties_from_the_rules():
    e = RoundEntry(get_rules(), PLAYERS, 9)
    assert not e.complete and "Ann: nothing entered yet" in e.problems()
    e.went_out(0)
    for k in "012":
        e.press(1, k)
    assert e.hands[1].pad == "12" and e.penalty(1) == 12
    e.press(1, "back")
    assert e.penalty(1) == 1
    e.set_pips(1, 23)
    e.add_tile(2, "0-0")
    e.add_tile(2, "3-4")
    e.add_tile(3, Tile(9, 9))
    assert e.penalties() == [0, 23, 57, 18]
    assert e.tile_hands() == [None, None, [Tile(0, 0), Tile(3, 4)], [Tile(9, 9)]]
    e.remove_tile(2, "4-3")
    assert e.penalty(2) == 50


def test_zero_zero_follows_the_preset_value():
    e = RoundEntry(get_rules(options={"zero_zero": 25}), ["A", "B"], 9)
    labels = {p.tile: p.label for p in e.picker_tiles()}
    assert labels[Tile(0, 0)] == "0-0 = 25" and labels[Tile(4, 7)] == "4-7"
    assert len(labels) == 55
    e.add_tile(0, "0-0")
    assert e.penalty(0) == 25


def test_problems_are_all_reported_and_block_saving():
    e = RoundEntry(get_rules(), PLAYERS, 9)
    e.went_out(0)
    e.went_out(1)
    e.add_tile(2, "5-6")
    e.set_tiles(3, [Tile(6, 5)], Mode.PHOTO)  # a photo's reading used as it was read
    probs = e.problems()
    assert any("only one player can go out" in p for p in probs)
    assert any(p.startswith("5-6 is entered 2 times (Cy, Dee)") for p in probs)
    with pytest.raises(EntryError):
        e.penalties()


@pytest.mark.parametrize("bad", ["9-10", "x", "4-"])
def test_tiles_outside_the_set_are_refused(bad):
    e = RoundEntry(get_rules(), PLAYERS, 9)
    with pytest.raises(EntryError if bad == "9-10" else ValueError):
        e.add_tile(0, bad)
    assert e.hands[0].mode is Mode.UNSET


def test_negative_or_absurd_pips_are_refused():
    e = RoundEntry(get_rules(), PLAYERS, 9)
    for bad in (-1, 10_001, 2.5, True):
        with pytest.raises(EntryError):
            e.set_pips(0, bad)  # type: ignore[arg-type]


def test_edit_a_saved_round_starts_from_what_was_kept():
    e = RoundEntry.from_penalties(get_rules(), PLAYERS, 9, [0, 12, 50, 7],
                                  [None, None, [Tile(0, 0)], None])
    assert [h.mode for h in e.hands] == [Mode.OUT, Mode.PIPS, Mode.TILES, Mode.PIPS]
    assert e.penalties() == [0, 12, 50, 7]


def _tile(a: int, b: int, conf: float, cx: float, angle: float = 0.0, review: bool = False,
          uncounted: str = "") -> TileReading:
    return TileReading(a, b, conf, OrientedBox(cx, 100, 80, 40, angle), review, conf, (1.0, conf),
                       uncounted=uncounted)


def test_the_tiles_centre_is_the_middle_of_the_tiles_shown_not_of_the_photo():
    items = [_tile(3, 4, 0.95, 50), _tile(5, 6, 0.95, 250), _tile(1, 1, 0.3, 1000, uncounted="unsure")]
    r = PhotoReview(get_rules(), 9, items, (1200, 300))
    assert r.tiles_centre(r.shown()) == (150, 100)  # from 10 to 290 across, 80 to 120 down
    assert r.tiles_centre(r.shown(show_unsure=True)) == (525, 100)
    r.add("1-2")  # added by the player: no box on the photo
    assert r.tiles_centre([3]) is None


def test_photo_review_correct_add_remove_and_low_confidence():
    items = [_tile(3, 4, 0.95, 50), _tile(0, 0, 0.4, 150, review=True), _tile(1, 1, 0.3, 250, uncounted="unsure")]
    r = PhotoReview(get_rules(), 9, items, (300, 200))
    assert r.low_confidence == [1, 2] and r.candidates == [2]
    assert [(str(it.tile), it.source, it.counted) for it in r.items] == [("3-4", "read", True), ("0-0", "read", True),
                                                                        ("1-1", "read", False)]
    # the flagged 0-0 is open: listed, not in the penalty until the player counts it
    assert r.penalty == 7 and r.tiles == [Tile(3, 4)] and r.open == [1]
    assert r.headline() == "7 points so far (1 tile), 1 tile to check"
    assert r.tile_at(150, 110) == 1 and r.tile_at(100, 195) is None
    r.accept(1)
    assert r.penalty == 57 and r.tiles == [Tile(3, 4), Tile(0, 0)] and r.open == [] and r.headline() == "57 points (2 tiles)"
    assert r.items[1].source == "confirmed" and r.items[1].counted
    with pytest.raises(ReviewError, match="already counted"):
        r.accept(1)
    r.correct(2, "6-6")  # a candidate corrected is counted, as the player says
    assert r.low_confidence == [] and r.items[2].source == "corrected" and r.candidates == []
    r.add("1-2")
    r.remove(1)  # set aside where it lies: the tiles after it keep their numbers
    assert r.tiles == [Tile(3, 4), Tile(6, 6), Tile(1, 2)] and r.penalty == 22
    assert [(str(it.tile), it.source, it.uncounted) for it in r.items][1:] == [
        ("0-0", "confirmed", "set aside"), ("6-6", "corrected", ""), ("1-2", "added", "")]
    assert r.unsure_finds == [1] and r.open == []
    r.add("2-2")
    r.remove(4)  # a tile added by hand has no place on the photo: it goes
    assert len(r.items) == 4 and r.penalty == 22
    with pytest.raises(ReviewError):
        r.correct(7, "1-1")
    with pytest.raises(ReviewError):
        r.add("9-12")
    # the corrected review is a reading again, and round-trips as the CLI prints it
    reading = r.reading
    assert reading.penalty == 22 and reading.tile_list == r.tiles and reading.tiles[2].box is None
    assert Reading.from_dict(reading.to_dict()) == dataclasses.replace(reading, rules=reading.rules)


def test_review_of_a_reading_and_its_annotated_png():
    buf = io.BytesIO()
    Image.new("RGB", (400, 200), (20, 90, 40)).save(buf, format="PNG")
    tiles = (_tile(2, 5, 0.9, 100), _tile(1, 3, 0.3, 300, angle=1.57, review=True))
    reading = Reading.scored(tiles, (), get_rules(), (400, 200), ["1 tile read with low confidence: check them"])
    r = from_reading(get_rules(), 9, reading, buf.getvalue())
    # the flagged 1-3 is open: out of the penalty until checked
    assert r.reader_penalty == reading.penalty == 7 == r.penalty and r.items == list(tiles)
    assert r.headline() == "7 points so far (1 tile), 1 tile to check" and reading.headline() == "penalty at least 7, 1 to check"
    assert r.warnings == ("1 tile read with low confidence: check them",)
    assert r.tile_at(100, 100) == 0 and r.tile_at(300, 130) == 1
    shown = Image.open(io.BytesIO(Preview().jpeg(r, 360)))
    assert shown.format == "JPEG" and shown.size == (400, 200)  # a small photo is not enlarged
    # the outline of the tile the reader flagged is painted orange (JPEG: near enough)
    assert _near(shown, (255, 140, 0)) > 50


def test_review_built_from_a_real_reader_reading(tmp_path):
    """The adapter against the real ``chickenfoot.vision.reader`` output, using the reader tests' small
    fake ONNX models (known answer: 3-4, 0-3 and a low-confidence 0-0)."""
    pytest.importorskip("onnx", reason="the fake reader models need the onnx package (train extra)")
    import sys

    sys.path.insert(0, str(Path(__file__).parents[1] / "vision"))
    from fake_models import scene

    from chickenfoot.vision.reader import Reader

    photo, models, _ = scene(tmp_path)
    reading = Reader.from_models_dir(models).read(photo, get_rules())
    r = from_reading(get_rules(), 9, reading, photo.read_bytes())
    assert sorted(str(t) for t in r.tiles) == sorted(str(t.tile) for t in reading.tiles if t.sure)
    # the blank back read 0-0 is asked about, and answered face down it goes
    assert [(str(r.items[k].tile), r.items[k].reason) for k in r.questions] == [("0-0", "0-0 or back")]
    assert set(r.questions) <= set(r.open)
    assert r.penalty == reading.penalty == r.reader_penalty
    assert r.low_confidence == [i for i, t in enumerate(reading.tiles) if t.needs_review]
    assert all(it.box is not None for it in r.items)
    # a tap in the middle of each outlined tile finds that tile
    for i, t in enumerate(reading.tiles):
        assert r.tile_at(t.box.cx, t.box.cy) == i
    assert Image.open(io.BytesIO(Preview().jpeg(r, 360))).size == (800, 600)


def test_candidates_are_shown_not_counted_until_accepted(tmp_path):
    """With the reader's count_conf above the low 0-0's confidence, that tile comes back as a
    candidate: outlined grey, not in the penalty, counted once the player accepts it."""
    pytest.importorskip("onnx", reason="the fake reader models need the onnx package (train extra)")
    import json
    import sys

    sys.path.insert(0, str(Path(__file__).parents[1] / "vision"))
    from fake_models import scene

    from chickenfoot.vision.reader import Reader

    photo, models, _ = scene(tmp_path)
    cfg = json.loads((models / "reader.json").read_text())
    (models / "reader.json").write_text(json.dumps(cfg | {"count_conf": 0.5}))
    reading = Reader.from_models_dir(models).read(photo, get_rules())
    assert [str(t.tile) for t in reading.candidates] == ["0-0"]
    r = from_reading(get_rules(), 9, reading, photo.read_bytes())
    k = r.candidates[0]
    assert str(r.items[k].tile) == "0-0" and not r.items[k].counted and k in r.low_confidence
    assert Tile(0, 0) not in r.tiles and r.penalty == reading.penalty == 7 + 3
    assert _near(Image.open(io.BytesIO(Preview().jpeg(r, 360, show_unsure=True))), (150, 150, 150)) > 50
    with pytest.raises(ReviewError, match="already counted"):
        r.accept(next(i for i, it in enumerate(r.items) if it.sure))
    r.accept(k)
    assert r.candidates == [] and Tile(0, 0) in r.tiles and r.penalty == 7 + 3 + 50


def test_the_double_on_the_table_is_not_offered_and_is_refused_in_a_hand():
    e = RoundEntry(get_rules(), PLAYERS, 12, double=6)
    assert e.on_table == Tile(6, 6)
    assert Tile(6, 6) not in [p.tile for p in e.picker_tiles()] and len(e.picker_tiles()) == 90
    assert [p.label for p in e.suit_tiles(6)][:3] == ["6-12", "6-11", "6-10"]
    assert Tile(6, 6) not in [p.tile for p in e.suit_tiles(6)] and len(e.suit_tiles(6)) == 12
    assert e.suits() == list(range(12, -1, -1)) and len(e.suit_tiles(0)) == 13
    with pytest.raises(EntryError, match="6-6 is on the table"):
        e.add_tile(1, "6-6")
    e.set_tiles(1, [Tile(6, 6), Tile(1, 2)], Mode.PHOTO)  # a photo may read it: said at the hand
    assert e.errors() == ["6-6 is on the table (it opened the round), so it cannot be in Bob's hand: "
                          "remove it"]
    e.started_with = 5  # nobody held 6-6: 5-5 opened, so 6-6 can be in a hand after all
    assert e.errors() == [] and e.on_table == Tile(5, 5)


def test_missing_hands_are_steps_and_mistakes_are_errors():
    e = RoundEntry(get_rules(), PLAYERS, 9, double=9)
    assert e.summary() == "Still to enter: Ann, Bob, Cy, Dee" and e.errors() == []
    assert RoundEntry(get_rules(), [*PLAYERS, "Eve"], 9).summary() == "Still to enter: 5 players"
    e.went_out(0)
    e.went_out(1)
    assert e.missing() == ["Cy", "Dee"]
    assert e.errors() == ["only one player can go out in a round (Ann, Bob are marked)"]
    e.set_pips(2, 4)
    e.set_pips(3, 5)
    assert e.summary() == "Fix 1 problem to save"
    e.set_pips(1, 3)
    assert e.summary() == "Every hand is in: ready to save" and e.complete


def test_the_next_hand_to_enter_goes_round_the_table():
    e = RoundEntry(get_rules(), PLAYERS, 9, double=9)
    assert e.next_open() == 0 and e.next_open(0) == 1
    e.went_out(1)
    assert e.next_open(0) == 2 and e.next_open(3) == 0
    for i in (0, 2, 3):
        e.set_pips(i, 1)
    assert e.next_open(2) is None


def test_a_fresh_pad_starts_a_new_number():
    e = RoundEntry(get_rules(), PLAYERS, 9)
    e.set_pips(0, 12)
    e.press(0, "2", fresh=True)
    assert e.penalty(0) == 2
    e.press(0, "0")
    e.press(0, "back", fresh=True)  # Del edits what is there
    assert e.penalty(0) == 2


def test_an_entry_round_trips_through_plain_data_and_bad_data_is_left_blank():
    e = RoundEntry(get_rules(), PLAYERS, 9, double=8)
    e.went_out(0)
    e.press(1, "1")
    e.add_tile(2, "0-0")
    e.started_with = 7
    back = RoundEntry.from_dict(e.to_dict(), get_rules(), PLAYERS, 9, 8)
    assert back.to_dict() == e.to_dict() and back.penalties is not None and back.started_with == 7
    assert back.hands[1].pad == "1" and back.penalty(2) == 50
    data = e.to_dict()
    data["hands"][0] = {"mode": "flying"}
    data["hands"][2]["tiles"] = ["9-10"]
    data["started_with"] = 9
    odd = RoundEntry.from_dict(data, get_rules(), PLAYERS, 9, 8)
    assert [h.mode for h in odd.hands] == [Mode.UNSET, Mode.PIPS, Mode.UNSET, Mode.UNSET]
    assert odd.started_with is None
    assert RoundEntry.from_dict("nonsense", get_rules(), PLAYERS, 9).missing() == PLAYERS


def test_a_photo_review_round_trips_with_its_photo_kept_by_key():
    from chickenfoot.app.drafts import DraftContent, photo_key

    img = _png(40, 20)
    r = PhotoReview(get_rules(), 9, [_tile(3, 4, 0.5, 50, review=True), _tile(5, 6, 0.7, 150, uncounted="unsure")],
                    (40, 20), img, 7, ("1 tile read with low confidence",), read_as=12)
    e = RoundEntry(get_rules(), PLAYERS, 9, double=9)
    c = DraftContent(e, {1: r})
    data = c.to_dict()
    assert data["blobs"] == [photo_key(img)]
    back = DraftContent.from_dict(data, get_rules(), PLAYERS, 9, 9, {photo_key(img): img}.get)
    assert back.reviews[1].items == r.items and back.reviews[1].image == img
    assert (back.reviews[1].image_size, back.reviews[1].reader_penalty, back.reviews[1].warnings,
            back.reviews[1].read_as) == ((40, 20), 7, ("1 tile read with low confidence",), 12)
    r.correct(0, "9-9")
    assert DraftContent(e, {1: r}).on_table_in_review(1) == [1]
    data["photos"]["0"] = {"items": "junk"}
    assert set(DraftContent.from_dict(data, get_rules(), PLAYERS, 9, 9, lambda k: None).reviews) == {1}


def _near(img: Image.Image, colour: tuple[int, int, int], tol: int = 40) -> int:
    """How many pixels of ``img`` are within ``tol`` of ``colour`` in every channel."""
    import numpy as np

    a = np.asarray(img.convert("RGB")).astype(int)
    return int((np.abs(a - np.array(colour)) <= tol).all(-1).sum())


def _png(w: int, h: int) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (w, h), (20, 90, 40)).save(buf, format="PNG")
    return buf.getvalue()


# ------------------------------------------------------------ the review at phone width
REAL = realdata_root() / "jeremyarde__domino-counter" / "labelbox_photos"


def _real(name: str) -> bytes:
    from chickenfoot.vision.config import MODELS_DIR

    if not (MODELS_DIR / "reader.json").exists():
        pytest.skip("no shipped reader models (models/reader.json)")
    if not (REAL / name).exists():
        pytest.skip(f"{REAL / name} is missing (the shared realdata folder)")
    return (REAL / name).read_bytes()


def test_finds_the_reader_set_apart_wait_behind_one_line_and_only_its_open_tiles_are_asked():
    """The review asks what the reader's policy left open, no more: a find set apart as unsure,
    however surely it was detected (a tile in the box lid), waits with the others."""
    lid = dataclasses.replace(_tile(5, 6, 0.3, 150, uncounted="unsure"), detection_confidence=0.9)
    grass = dataclasses.replace(_tile(1, 1, 0.2, 250, uncounted="unsure"), detection_confidence=0.35)
    printed = dataclasses.replace(_tile(0, 0, 0.7, 350, uncounted="not pips"), detection_confidence=0.9)
    astride = dataclasses.replace(_tile(2, 2, 0.9, 450, uncounted="overlap"), detection_confidence=0.9)
    reading = Reading.scored([_tile(3, 4, 0.95, 50)], [grass, lid, printed, astride], get_rules(), (500, 200),
                             ["2 possible tiles too unsure to count: add any that is a tile",
                              "1 possible tile looks like print or a back, not pips: not counted; add any that is a tile",
                              "3-4 read 2 times in this photo (one set has one of each)"])
    r = from_reading(get_rules(), 9, reading)
    # counted first, then the finds in the reader's order: the numbers shown run 1, 2, ...
    assert [str(it.tile) for it in r.items] == ["3-4", "1-1", "5-6", "0-0", "2-2"]
    assert r.to_check == [] and r.headline() == "7 points (1 tile)"
    assert r.unsure_finds == [1, 2, 3, 4] and r.shown() == [0] and r.shown(True) == [0, 1, 2, 3, 4]
    assert r.finds_line(False) == "4 unsure finds: show" and r.finds_line(True) == "4 unsure finds shown in grey: hide"
    assert r.notes == ["3-4 read 2 times in this photo (one set has one of each)"]
    r.accept(3)  # the player says the print is a tile after all: it counts, and is no longer a find
    assert r.unsure_finds == [1, 2, 4] and r.finds_line(False) == "3 unsure finds: show"
    assert from_reading(get_rules(), 9, Reading.scored([], [], get_rules(), (9, 9))).finds_line(False) == ""


def test_tiles_of_a_bigger_set_are_named_with_the_set_they_fit():
    from chickenfoot.app.photo_review import fitting_set, read_top

    assert read_top(9, 12) == 12 and read_top(18, 12) == 18
    assert [fitting_set([Tile(a, b)]) for a, b in ((1, 6), (1, 7), (8, 10), (3, 13), (0, 18))] == [6, 9, 12, 15, 18]
    r = PhotoReview(get_rules(), 9, [_tile(1, 10, 0.9, 50), _tile(3, 4, 0.9, 150), _tile(8, 11, 0.9, 250),
                                     _tile(2, 12, 0.3, 350, uncounted="unsure")], (400, 200), read_as=12)
    assert r.outside == [0, 2] and r.fits == 12  # an uncounted candidate is not held against the set
    assert r.set_note() == ("Tiles 1 (1-10), 3 (8-11) are not in the double-9 set this match plays; the tiles "
                            "read fit a double-12 set. If your tiles are double-9, read the photo as double-9; if "
                            "they are double-12, correct or remove them (this match was set up for double-9).")
    r.correct(0, "1-9")
    assert r.outside == [2] and r.set_note().startswith("Tile 3 (8-11) is not in the double-9 set")
    with pytest.raises(ReviewError):  # a correction stays in the match's set
        r.correct(2, "8-10")
    r.remove(2)
    assert r.outside == [] and r.fits is None and r.set_note() == ""


def test_the_preview_is_a_display_sized_jpeg_with_numbers_legible_on_a_phone():
    from chickenfoot.app.photo_review import LABEL_PX, PREVIEW_SIDE

    buf = io.BytesIO()
    Image.new("RGB", (4000, 3000), (20, 90, 40)).save(buf, format="JPEG", quality=90)
    box = OrientedBox(2000, 1500, 400, 200, 0.0)
    r = PhotoReview(get_rules(), 9, [TileReading(3, 4, 0.95, box, False, 0.95, (1.0, 0.95))], (4000, 3000),
                    buf.getvalue())
    shown_width = 280  # a 360 px phone, less the card's margins
    img = Image.open(io.BytesIO(Preview().jpeg(r, shown_width)))
    assert img.format == "JPEG" and max(img.size) == PREVIEW_SIDE and img.size == (1280, 960)
    img = img.convert("RGB")
    import numpy as np

    a = np.asarray(img).astype(int)
    green = (np.abs(a - np.array((40, 200, 70))) <= 40).all(-1)
    rows = np.nonzero(green.sum(1) > 20)[0]
    label_rows = rows[rows < (1500 - 100) * 1280 / 4000 - 4]  # the number's filled box, above the tile
    on_screen = (label_rows.max() - label_rows.min() + 1) * shown_width / img.width
    # a digit is about 0.7 of the font's size: at least the size of the body text's digits
    assert on_screen >= 0.7 * LABEL_PX, on_screen
    assert len(Preview().jpeg(r, shown_width)) < 300_000


def test_a_real_photo_read_for_the_review_once_decoded(tmp_path):
    """The shipped reader on a real 8 MP phone photo: read for the widest set, the big-set
    tiles named; read again as the match's set, none is outside it; the preview is drawn from
    the reader's own decode."""
    from chickenfoot.app.photo_review import read_photo, warm
    from chickenfoot.vision.reader import Reader

    data = _real("20210227_190419.jpg")
    reader = Reader.from_models_dir()
    warm(reader)
    pv = Preview()
    r, ms = read_photo(reader, data, get_rules(), 9, pv, 280)
    assert set(ms) >= {"decode", "detect", "halves", "read", "preview"}
    # (the 1-10 is read less surely than review_conf: listed, open, and outside the set all the same)
    assert r.read_as == 12 and r.outside and r.fits == 12 and "1-10" in {str(it.tile) for it in r.items if it.counted}
    assert max(pv.size) == 1280
    capped, _ = read_photo(reader, data, get_rules(), 9, pv, 280, as_match_set=True)
    assert capped.read_as == 9 and capped.outside == [] and all(t.high <= 9 for t in capped.tiles)
    # a photo whose labels do not line up with it: what must hold for any photo is asserted, not
    # how many unsure finds this one gives
    finds, _ = read_photo(reader, _real("20210227_190416.jpg"), get_rules(), 9, Preview(), 280)
    hidden = finds.unsure_finds
    assert all(not finds.items[i].counted for i in hidden) and not set(hidden) & set(finds.to_check)
    assert not set(hidden) & set(finds.shown()) and finds.shown(True) == list(range(len(finds.items)))
    assert finds.finds_line(False) == (f"{len(hidden)} unsure find{'s' * (len(hidden) > 1)}: show" if hidden else "")
    assert not any("possible tile" in w for w in finds.notes)


def test_a_zero_typed_for_the_player_who_went_out_marks_them_out() -> None:
    from chickenfoot.app.round_entry import Mode, RoundEntry
    from chickenfoot.rules import PRESETS

    rules = PRESETS["double-chicken-foot"]
    e = RoundEntry(rules, ["Ann", "Bob", "Cy"], 9)
    assert e.zero_zero > 0
    e.press(0, "0", fresh=True)
    assert e.hands[0].mode is Mode.PIPS and e.penalty(0) == 0
    assert e.settle_zero(0) and e.hands[0].mode is Mode.OUT  # never a blocked round by mistake
    e.press(1, "0", fresh=True)
    assert not e.settle_zero(1)  # Ann is out already: Bob's 0 is a mistake, said so
    assert any("Bob: 0 points, but Ann went out" in w for w in e.errors())
    e.press(1, "7", fresh=True)
    assert not any("0 points" in w for w in e.errors())
    e.press(2, "0", fresh=True)
    e.hands[0].mode = Mode.PIPS
    e.hands[0].pips = 4
    assert e.settle_zeros() == ["Cy"] and e.hands[2].mode is Mode.OUT


# ----------------------------------------------- a reading is a proposal the player confirms
def _content(review: PhotoReview, seat: int = 0):  # type: ignore[no-untyped-def]
    from chickenfoot.app.drafts import DraftContent

    return DraftContent(RoundEntry(get_rules(), PLAYERS, 9, 9), {seat: review})


def test_a_bare_table_photo_asks_and_never_stores_0_unless_the_player_says_so():
    from chickenfoot.app.photo_review import EMPTY, OUT, RETAKE

    bare = PhotoReview(get_rules(), 9, [], (640, 480), warnings=("no face-up tiles found in the photo",))
    assert bare.headline() == "nothing read" and bare.use_label() == "Use this photo"
    c = _content(bare)
    q = c.use_photo(0)
    assert q is not None and q.text == "Nothing was read in this photo: did Ann go out, or take another photo?"
    # where the 0-0 counts, a hand with nothing in it is the one that went out: no "keep 0"
    assert q.keys == (OUT, RETAKE)
    assert c.entry.hands[0].mode is Mode.UNSET and 0 in c.reviews  # asked, nothing kept
    assert c.use_photo(0, RETAKE) is None and c.entry.hands[0].mode is Mode.UNSET and 0 in c.reviews
    with pytest.raises(ReviewError):
        c.use_photo(0, "leave")  # not an answer to this question
    with pytest.raises(ReviewError):
        c.use_photo(0, EMPTY)
    assert c.use_photo(0, OUT) is None
    assert c.entry.hands[0].mode is Mode.OUT and 0 not in c.reviews
    free = get_rules(options={"zero_zero": 0})
    from chickenfoot.app.drafts import DraftContent

    said = DraftContent(RoundEntry(free, PLAYERS, 9, 9), {0: PhotoReview(free, 9, [], (640, 480))})
    q = said.use_photo(0)
    assert q is not None and q.keys == (OUT, RETAKE, EMPTY)  # a 0-0 alone is 0 points there
    said.use_photo(0, EMPTY)  # the player says so: 0 points, kept as an empty hand
    assert said.entry.hands[0].mode is Mode.PHOTO and said.entry.penalty(0) == 0
    assert said.entry.reads_zero(0) and not said.entry.settle_zero(0)  # not taken for going out
    said.entry.went_out(1)  # ... and no hand at all once another player went out
    assert any(p.startswith("Ann: no tiles, but Bob went out") for p in said.entry.problems())
    # where the 0-0 counts, an empty hand kept (a draft from before) with nobody out is the
    # player who went out, as a typed 0 is: a blocked round has no 0-point hand
    e = RoundEntry(get_rules(), PLAYERS, 9, 9)
    e.set_tiles(0, [], Mode.PHOTO)
    assert e.reads_zero(0) and e.settle_zero(0) and e.hands[0].mode is Mode.OUT


def test_tiles_to_check_are_asked_about_before_the_reading_is_used():
    from chickenfoot.app.photo_review import CHECK, LEAVE, OUT, RETAKE

    two = [_tile(3, 4, 0.95, 100), _tile(5, 6, 0.4, 300, review=True)]
    c = _content(PhotoReview(get_rules(), 9, list(two), (640, 480)))
    r = c.reviews[0]
    assert r.to_check == [1] and r.headline() == "7 points so far (1 tile), 1 tile to check"
    q = c.use_photo(0)
    assert q is not None and q.text == "1 tile in this photo is still to check: use 7 points without it?"
    assert q.keys == (CHECK, LEAVE)
    assert c.use_photo(0, CHECK) is None and 0 in c.reviews
    c.use_photo(0, LEAVE)
    assert c.entry.hands[0].mode is Mode.PHOTO and c.entry.hands[0].tiles == [Tile(3, 4)]
    # nothing counted, only tiles to check: the headline never says "at least 0"
    open_only = PhotoReview(get_rules(), 9, [two[1], _tile(1, 2, 0.3, 500, review=True)], (640, 480))
    assert open_only.headline() == "nothing counted yet, 2 tiles to check"
    q2 = open_only.use_question("Bob")
    assert q2 is not None and q2.keys == (CHECK, RETAKE, OUT) and "2 tiles are still to check" in q2.text
    # all checked: used at once, no question
    r2 = PhotoReview(get_rules(), 9, list(two), (640, 480))
    r2.accept(1)
    assert r2.use_question("Ann") is None and r2.use_label() == "Use these tiles (18 points)"
    one = PhotoReview(get_rules(), 9, [_tile(0, 1, 0.95, 100)], (640, 480))
    assert one.headline() == "1 point (1 tile)" and one.use_label() == "Use these tiles (1 point)"


def test_a_tile_the_reader_asks_about_is_to_check_a_find_it_set_apart_is_not():
    asked = dataclasses.replace(_tile(2, 2, 0.4, 100), detection_confidence=0.9, question="Is this the 2-2?",
                                reason="unsure tile")
    find = dataclasses.replace(_tile(1, 5, 0.4, 300, uncounted="unsure"), detection_confidence=0.9)
    r = PhotoReview(get_rules(), 9, [_tile(3, 4, 0.95, 500), asked, find], (640, 480))
    assert r.to_check == [1] and r.unsure_finds == [2]


def test_reader_notes_are_in_a_players_words():
    r = PhotoReview(get_rules(), 9, [], (640, 480), warnings=(
        "the tiles are small in this photo (about 69 px long as read; from 70 px they read surest): "
        "a photo taken closer is counted more surely",
        "2 tiles read with low confidence: not counted until you check them",
        "3-4 read 2 times in this photo (one set has one of each)"))
    assert r.notes == ["The tiles look small in this photo: a photo taken closer, with the tiles filling more of it, "
                       "is read more surely.", "3-4 read 2 times in this photo (one set has one of each)"]
    assert not any("px" in n for n in r.notes)


def test_a_typed_penalty_above_what_a_hand_can_count_is_asked_about():
    e = RoundEntry(get_rules("pagat"), PLAYERS, 9)  # 7 tiles each: at most 147
    assert e.hand_limit == 147
    for k in "999":
        e.press(0, k)
    # more than the whole set counts (545): an error to fix, not a question
    assert e.unlikely(0) is None and any(p.startswith("Ann: 999 points is more than the whole double-9 set")
                                         for p in e.errors())
    e.set_pips(0, 300)
    assert e.unlikely(0) == "300 points for Ann is more than 7 tiles of a double-9 set can count (at most 147)"
    assert e.to_confirm() == [0]
    e.confirm(0)
    assert e.to_confirm() == [] and e.unlikely(0) is None
    back = RoundEntry.from_dict(e.to_dict(), get_rules("pagat"), PLAYERS, 9)
    assert back.hands[0].sure and back.to_confirm() == []
    e.press(0, "back")  # typed again: asked again
    e.press(0, "5")
    assert e.hands[0].pips == 305 and e.to_confirm() == [0]
    e.set_pips(1, 147)
    assert e.unlikely(1) is None
    with pytest.raises(EntryError):
        e.confirm(2)  # nothing typed for Cy


def test_taking_the_last_tile_out_of_a_hand_leaves_it_not_entered():
    e = RoundEntry(get_rules(), PLAYERS, 9)
    e.add_tile(0, "3-4")
    e.remove_tile(0, "3-4")
    assert e.hands[0].mode is Mode.UNSET and e.penalty(0) is None and "Ann" in e.missing()


def test_a_tile_row_shows_its_crop_of_the_photo(tmp_path):
    img = Image.new("RGB", (640, 480), (200, 180, 150))
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    r = PhotoReview(get_rules(), 9, [_tile(3, 4, 0.95, 320)], (640, 480), buf.getvalue())
    jpeg = Preview().crop(r, 0, side=112)
    crop = Image.open(io.BytesIO(jpeg))
    assert crop.format == "JPEG" and max(crop.size) == 112
    # the box is 80x40 with a margin: wider than high
    assert crop.width > crop.height


def test_a_used_reading_can_be_opened_again_while_the_hand_is_still_its_tiles():
    from chickenfoot.app.drafts import DraftContent
    from chickenfoot.app.photo_review import LEAVE

    two = [_tile(3, 4, 0.95, 100), _tile(5, 6, 0.4, 300, review=True)]
    c = _content(PhotoReview(get_rules(), 9, list(two), (640, 480)))
    assert not c.can_reopen(0)  # not used yet: it is open already
    c.use_photo(0, LEAVE)  # the 5-6 left out, unchecked
    assert 0 not in c.reviews and c.can_reopen(0) and c.entry.hands[0].tiles == [Tile(3, 4)]
    # kept with the draft: a reload, a restart or another device opens it again too
    back = DraftContent.from_dict(json.loads(json.dumps(c.to_dict())), get_rules(), PLAYERS, 9, 9,
                                  lambda _k: None)
    assert back.can_reopen(0)
    back.reopen_photo(0)
    r = back.reviews[0]
    assert r.to_check == [1] and r.headline() == "7 points so far (1 tile), 1 tile to check"  # as it was
    assert back.entry.hands[0].tiles == [Tile(3, 4)]  # the hand keeps its tiles meanwhile
    r.accept(1)
    assert back.use_photo(0) is None and back.entry.hands[0].tiles == [Tile(3, 4), Tile(5, 6)]
    # a hand changed after its photo was used is not that reading any more
    back.entry.add_tile(0, "1-2")
    assert not back.can_reopen(0)
    with pytest.raises(ReviewError, match="hand was changed after its photo was used"):
        back.reopen_photo(0)
    assert 0 not in back.used and 0 not in back.reviews
