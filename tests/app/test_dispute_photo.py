"""The dispute checker reads the table from a photo: the rendered photo tests/data/table.jpg, read by
the real shipped reader (no mocks), becomes the builder's table; the existing flow (open ends,
ask, add, undo, save) keeps working on it, and a bad file changes nothing."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from PIL import Image

from chickenfoot.app.dispute import PHONE_PHOTO_WIDTH, PHOTO_MAX_SIDE, DisputeBuilder, DisputeError
from chickenfoot.rules import Tile
from chickenfoot.rules.errors import InputError
from chickenfoot.rules.layout import END_TAKEN, HUB_INCOMPLETE, NO_MATCH, OK
from chickenfoot.vision.draw import label_size

DATA = Path(__file__).parents[1] / "data"
PHOTO = DATA / "table.jpg"
TRUTH = json.loads((DATA / "table.json").read_text())["layout"]
TRUTH_PLAYS = sorted((p["tile"], p["on"]) for p in TRUTH["plays"])


@pytest.fixture(scope="module")
def reader():
    from chickenfoot.vision.config import MODELS_DIR
    from chickenfoot.vision.reader import Reader

    if not (MODELS_DIR / "reader.json").exists():
        pytest.skip("no shipped reader models (models/reader.json)")
    return Reader.from_models_dir(None)


@pytest.fixture(scope="module")
def photo() -> bytes:
    return PHOTO.read_bytes()


def _plays(b: DisputeBuilder) -> list[tuple[str, str]]:
    assert b.layout is not None
    return sorted((str(p.tile), str(p.on)) for p in b.layout.plays)


def _read(reader, photo: bytes, hub: int | None = None) -> DisputeBuilder:
    b = DisputeBuilder(TRUTH["rules"], TRUTH["set"], hub=hub)
    b.read_photo(photo, reader, "table.jpg")
    return b


@pytest.mark.parametrize("hub", [None, 3], ids=["hub-guessed", "hub-named"])
def test_the_photo_becomes_exactly_the_true_table(reader, photo, hub):
    b = _read(reader, photo, hub)
    assert b.layout is not None and b.layout.hub == Tile.parse(TRUTH["hub"])
    assert _plays(b) == TRUTH_PLAYS
    assert not b.layout.ordered  # a photo does not show the order of play
    assert (b.layout.rules, b.layout.set) == (TRUTH["rules"], TRUTH["set"])
    assert b.problems() == []
    assert b.named_hub == (None if hub is None else Tile(3, 3))
    assert b.photo is not None and b.photo.name == "table.jpg"
    assert b.photo.tiles_read == len(b.photo.table.reading.tiles) >= 15
    # the notes say what to check; no hub warning when it was named and read
    notes = b.photo_notes()
    assert not any("as the hub" in n for n in notes)
    # the annotated photo: a real JPEG, cut to the table, no bigger than the screen needs
    png = Image.open(io.BytesIO(b.photo_jpeg()))
    assert png.format == "JPEG" and max(png.size) <= PHOTO_MAX_SIDE
    left, top, right, bottom = b.photo_crop()
    assert abs(png.size[0] / png.size[1] - (right - left) / (bottom - top)) < 0.01
    assert b.photo_jpeg() is b.photo_jpeg()  # drawn once while nothing changed


def test_the_photo_is_cut_to_the_table_and_its_labels_read_on_a_phone(reader, photo):
    """Every tile read lies inside the part of the photo shown, which is no bigger than the
    table needs; drawn there, a tile's label is 12 px or more on a phone (the cut photo shown
    PHONE_PHOTO_WIDTH wide), where the whole photo made it about 6 px."""
    b = _read(reader, photo)
    assert b.photo is not None
    w, h = b.photo.image.size
    left, top, right, bottom = b.photo_crop()
    ow, oh = b.photo.table.reading.image_size
    for t in b.photo.table.tiles:
        for x, y in t.box.corners():
            assert left <= x * w / ow <= right and top <= y * h / oh <= bottom
    assert (right - left) * (bottom - top) < 0.5 * w * h  # the table, not the room round it
    label = b.photo_label_px(b.photo_crop())
    assert label is not None and label * PHONE_PHOTO_WIDTH / (right - left) >= 12
    whole = label_size([t.box.length * w / ow for t in b.photo.table.tiles], max(12, round(max(w, h) / 45)), 11)
    # (the whole photo was shown 280 px wide on a 360 px screen: the page less 80 px)
    print(f"a label on a phone: {label * PHONE_PHOTO_WIDTH / (right - left):.1f} px cut to the table, "
          f"{whole * 280 / w:.1f} px on the whole photo 280 px wide")


def test_open_ends_ask_add_undo_and_save_on_a_photo_table(reader, photo, tmp_path):
    b = _read(reader, photo)
    ends = {e.target for e in b.open_ends()}
    assert Tile(3, 8) in ends and Tile(3, 3) not in ends  # the hub has its 6 spokes
    assert b.needs().spokes_needed == 0
    b.select("3-8")
    assert b.ask("8-8").code == OK
    assert b.ask("3-1", "3-3").code == END_TAKEN
    # Nothing added by hand yet: the photo's tiles have no "last one", so undo refuses, loudly.
    assert b.undoable is None
    with pytest.raises(DisputeError, match="no known order"):
        b.undo()
    assert _plays(b) == TRUTH_PLAYS
    # a tile added by hand is appended, the layout stays unordered, and undo takes back that one
    assert b.add("8-8").legal and b.layout is not None and not b.layout.ordered
    assert b.undoable == Tile(8, 8) and b.needs().open_foot == Tile(8, 8)
    assert b.add("8-1", "8-8").legal
    assert b.undoable == Tile(1, 8)
    b.undo()
    assert b.undoable == Tile(8, 8)
    b.undo()
    assert _plays(b) == TRUTH_PLAYS and b.undoable is None
    with pytest.raises(DisputeError, match="correct or remove a tile by name"):
        b.undo()
    # save and load it back: still unordered, still the photo's table; undo still refuses
    b.add("8-8", "3-8")
    (tmp_path / "layout.json").write_text(b.to_json())
    e = DisputeBuilder()
    e.load((tmp_path / "layout.json").read_text(), "layout.json")
    assert e.layout is not None and not e.layout.ordered and e.layout.hub == Tile(3, 3)
    assert sorted((str(p.tile), str(p.on)) for p in e.layout.plays) == sorted([*TRUTH_PLAYS, ("8-8", "3-8")])
    assert e.undoable is None and e.photo is None and e.named_hub == Tile(3, 3)


def test_photo_tiles_are_corrected_or_removed_by_name(reader, photo):
    b = _read(reader, photo)
    assert b.photo is not None
    with pytest.raises(DisputeError, match="7-7 is played on the 3-7"):
        b.remove("3-7")
    with pytest.raises(DisputeError, match="hub cannot be removed"):
        b.remove("3-3")
    with pytest.raises(DisputeError, match="no 6-6 on the table"):
        b.remove("6-6")
    # a misread corrected in place: the rules core judges the new tile where the old one lay,
    # and the red outline goes on the photo's tile that was read there
    before = b.photo_jpeg()
    b.correct("2-7", "2-9")
    assert ("2-9", "7-7") in _plays(b)
    probs = b.report().problems
    assert [p.code for p in probs] == [NO_MATCH] and probs[0].tile == Tile(2, 9)
    assert b.photo_problem_tiles() == b.photo.table.index_of(Tile(2, 7))
    assert "corrected by hand: 2-9 (read as 2-7)" in b.photo_notes()
    assert b.photo_jpeg() != before
    b.correct("2-9", "2-7")  # back as it was read: no correction left to report
    assert not any(n.startswith("corrected") for n in b.photo_notes()) and not b.problems()
    with pytest.raises(DisputeError, match="already on the table"):
        b.correct("2-7", "3-4")
    with pytest.raises(DisputeError, match="not in a double-9 set"):
        b.correct("2-7", "2-11")
    with pytest.raises(DisputeError, match="hub must be a double"):
        b.correct("3-3", "3-9")
    # a stray tile taken off: the hub is a spoke short again, and the notes say what was done
    b.remove("3-8")
    assert len(b.layout.plays) == len(TRUTH_PLAYS) - 1 and b.fixed == len(TRUTH_PLAYS) - 1
    assert b.needs().spokes_needed == 1
    assert {p.code for p in b.report().problems} == {HUB_INCOMPLETE}
    assert "removed by hand: 3-8" in b.photo_notes()


def test_a_hub_that_is_not_in_the_photo_falls_back_and_says_so(reader, photo):
    b = _read(reader, photo, hub=9)
    assert b.layout is not None and b.layout.hub == Tile(3, 3)
    assert _plays(b) == TRUTH_PLAYS
    notes = b.photo_notes()
    assert any(n.startswith("no 9-9, the hub named, was read in the photo; took the 3-3 as the hub") for n in notes)
    assert b.named_hub == Tile(9, 9)  # the player's word stands for the next photo


def test_a_wrong_hub_that_is_in_the_photo_gives_the_rules_problems(reader, photo):
    b = _read(reader, photo, hub=5)  # 5-5 is a foot on this table, not the hub
    assert b.layout is not None and b.layout.hub == Tile(5, 5)
    codes = {p.code for p in b.report().problems}
    assert HUB_INCOMPLETE in codes and END_TAKEN in codes
    # the tiles those problems are about are marked on the photo
    marked = b.photo_problem_tiles()
    tiles = b.photo.table.reading.tiles  # type: ignore[union-attr]
    assert {str(tiles[i].tile) for i in marked} == {str(p.tile) for p in b.report().problems}
    legal = _read(reader, photo, hub=3)
    assert b.photo_jpeg() != legal.photo_jpeg()


@pytest.mark.parametrize(("data", "message"), [
    (b"", "empty data, not an image"),
    (b"these are my notes, not a photo", "not an image"),
    ("truncated", "truncated"),
], ids=["empty", "not-an-image", "truncated"])
def test_a_bad_file_is_a_clear_error_and_the_table_stays(reader, photo, data, message):
    if data == "truncated":
        data = photo[: len(photo) // 2]
    b = _read(reader, photo)
    b.add("8-8", "3-8")
    layout, shown, notes = b.layout, b.photo, b.photo_notes()
    with pytest.raises(InputError, match=message) as err:
        b.read_photo(data, reader, "broken.jpg")
    assert str(err.value).startswith("broken.jpg: ") and "\n" not in str(err.value)
    assert b.layout is layout and b.photo is shown and b.photo_notes() == notes
    assert b.undoable == Tile(8, 8)
    # a table built by hand stays too
    h = DisputeBuilder(hub=9)
    h.add("9-4", "9-9")
    with pytest.raises(InputError):
        h.read_photo(data, reader, "broken.jpg")
    assert [str(p.tile) for p in h.layout.plays] == ["4-9"] and h.photo is None  # type: ignore[union-attr]


def test_a_photo_with_no_double_says_so_and_changes_nothing(reader):
    from chickenfoot.vision.table import TableError

    buf = io.BytesIO()
    Image.new("RGB", (320, 240), (20, 90, 40)).save(buf, format="PNG")  # a bare table
    b = DisputeBuilder(hub=9)
    with pytest.raises(TableError, match="no double was read"):
        b.read_photo(buf.getvalue(), reader, "empty-table.png")
    assert b.layout is not None and b.layout.hub == Tile(9, 9) and b.photo is None


def test_new_table_and_a_new_hub_forget_the_photo(reader, photo):
    b = _read(reader, photo, hub=9)
    b.clear()
    assert (b.layout, b.photo, b.named_hub, b.fixed) == (None, None, None, 0)
    b = _read(reader, photo)
    b.start(4)
    assert b.photo is None and b.fixed == 0 and b.named_hub == Tile(4, 4)
    with pytest.raises(DisputeError, match="no photo"):
        b.photo_jpeg()


def test_undo_in_a_layout_file_follows_its_order():
    """An ordered file says which tile came last, so undo takes its tiles back as before; an
    unordered one does not, so only tiles added by hand since are taken back."""
    built = DisputeBuilder(hub=9)
    for t in ("9-4", "9-1"):
        built.add(t, "9-9")
    b = DisputeBuilder()
    b.load(built.to_json(), "ordered.json")
    assert b.undoable == Tile(1, 9)
    b.undo()
    assert [str(p.tile) for p in b.layout.plays] == ["4-9"]  # type: ignore[union-attr]
    unordered = json.loads(built.to_json()) | {"ordered": False}
    b.load(json.dumps(unordered), "unordered.json")
    assert b.undoable is None and b.fixed == 2
    with pytest.raises(DisputeError, match="from the layout file are in no known order"):
        b.undo()
    b.add("9-2", "9-9")
    b.undo()
    assert len(b.layout.plays) == 2  # type: ignore[union-attr]
