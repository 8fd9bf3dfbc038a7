"""A set has one of each tile: in one round a tile another hand holds is taken, picking it again
is refused, and a correction moves it (round entry and draft state, no UI)."""

from __future__ import annotations

import io
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from chickenfoot.app.drafts import DraftContent
from chickenfoot.app.photo_review import PhotoReview
from chickenfoot.app.round_entry import EntryError, Mode, RoundEntry, TakenError
from chickenfoot.rules import Tile, full_set, get_rules
from chickenfoot.vision.geometry import OrientedBox
from chickenfoot.vision.reading import TileReading

PLAYERS = ["Ann", "Bob", "Cy"]


def _read(a: int, b: int, cx: float, counted: bool = True) -> TileReading:
    return TileReading(a, b, 0.9, OrientedBox(cx, 100, 80, 40, 0.0), False, 0.9, (1.0, 0.9),
                       uncounted="" if counted else "unsure")


def _photo() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (400, 200), (20, 90, 40)).save(buf, format="PNG")
    return buf.getvalue()


def test_a_tile_in_another_hand_is_taken_and_picking_it_again_is_refused():
    e = RoundEntry(get_rules(), PLAYERS, 9, double=9)
    e.add_tile(0, "3-4")
    with pytest.raises(TakenError) as err:
        e.add_tile(1, "4-3")
    assert str(err.value) == ("3-4 is already in Ann's hand, and a set has only one 3-4. "
                              "Move it to Bob if it is really Bob's, or pick another tile.")
    assert (err.value.holder, err.value.seat, err.value.read) == ("Ann", 0, False)
    assert e.hands[1].mode is Mode.UNSET and e.hands[0].tiles == [Tile(3, 4)]  # nothing changed
    with pytest.raises(EntryError, match="3-4 is already in Ann's hand"):
        e.add_tile(0, "3-4")  # twice in one hand: refused too
    assert e.hands[0].tiles == [Tile(3, 4)]


def test_the_picker_marks_who_holds_each_taken_tile():
    e = RoundEntry(get_rules(), PLAYERS, 9, double=9)
    e.add_tile(0, "3-4")
    e.add_tile(2, "4-4")
    row = {p.tile: p.taken_by for p in e.suit_tiles(4, seat=1)}
    assert row[Tile(3, 4)] == "Ann" and row[Tile(4, 4)] == "Cy"
    assert [t for t, who in row.items() if who] == [Tile(4, 4), Tile(3, 4)]
    # the hand's own tiles are not "taken" for it; without a seat nothing is marked
    assert {p.tile: p.taken_by for p in e.suit_tiles(4, seat=0)}[Tile(3, 4)] is None
    assert all(p.taken_by is None for p in e.suit_tiles(4))
    assert sum(1 for p in e.picker_tiles(1) if p.taken_by) == 2
    # a hand no longer entered tile by tile frees its tiles
    e.set_pips(0, 7)
    assert {p.tile: p.taken_by for p in e.suit_tiles(4, seat=1)}[Tile(3, 4)] is None


def test_a_move_takes_the_tile_from_the_other_hand():
    e = RoundEntry(get_rules(), PLAYERS, 9, double=9)
    e.add_tile(0, "3-4")
    e.add_tile(0, "5-5")
    e.add_tile(2, "1-2")
    assert e.move_tile(1, "3-4") == ["Ann"]
    assert e.hands[0].tiles == [Tile(5, 5)] and e.hands[1].tiles == [Tile(3, 4)]
    assert e.move_tile(1, "1-2") == ["Cy"]
    assert e.hands[2].mode is Mode.UNSET and e.penalty(2) is None  # left empty: not entered
    assert e.move_tile(1, "1-2") == []  # already there: nothing moves, nothing doubles
    assert e.hands[1].tiles == [Tile(3, 4), Tile(1, 2)] and not e.duplicates()
    with pytest.raises(EntryError, match="9-9 is on the table"):
        e.move_tile(1, "9-9")


def test_the_zero_zero_face_carries_its_value_under_the_rules():
    assert RoundEntry(get_rules(), PLAYERS, 9).zero_zero == 50
    assert RoundEntry(get_rules(options={"zero_zero": 25}), PLAYERS, 9).zero_zero == 25


def test_a_tile_read_from_another_players_photo_is_taken_and_a_move_takes_it_off_the_photo():
    rules = get_rules()
    e = RoundEntry(rules, PLAYERS, 9, double=9)
    c = DraftContent(e, {0: PhotoReview(rules, 9, [_read(3, 4, 50), _read(1, 1, 150, counted=False)],
                                        (400, 200), _photo())})
    assert c.taken(1) == {Tile(3, 4): (0, True)}  # a tile not counted is not taken
    with pytest.raises(TakenError, match="3-4 is already read from Ann's photo"):
        c.add_tile(1, "3-4")
    c.add_tile(1, "1-1")
    assert c.move_tile(1, "3-4") == ["Ann"]
    assert c.reviews[0].tiles == [] and e.hands[1].tiles == [Tile(1, 1), Tile(3, 4)]


def test_a_reading_left_unused_once_the_hand_is_entered_another_way_takes_no_tile():
    rules = get_rules()
    e = RoundEntry(rules, PLAYERS, 9, double=9)
    c = DraftContent(e, {0: PhotoReview(rules, 9, [_read(3, 4, 50)], (400, 200), _photo())})
    assert c.taken(1) == {Tile(3, 4): (0, True)}
    for enter in (lambda: e.set_pips(0, 12), lambda: e.went_out(0), lambda: e.add_tile(0, "5-6")):
        enter()  # Ann typed her hand, went out, or picked her tiles instead of using the photo
        assert Tile(3, 4) not in c.taken(1)
        assert c.check_free(1, "3-4") == Tile(3, 4)
        assert 0 in c.reviews  # her reading is kept: the Photo button still opens it
    c.add_tile(1, "3-4")  # Bob's photo (or pick) of the 3-4 is his, not refused
    assert e.hands[1].tiles == [Tile(3, 4)]
    # opened again, the reading says its 3-4 is the one Bob now holds: a clash to settle
    assert [(k, err.holder) for k, err in c.clashes_in_review(0)] == [(1, "Bob")]


def test_a_photo_reading_that_clashes_says_so_and_a_correction_can_move_the_tile():
    rules = get_rules()
    e = RoundEntry(rules, PLAYERS, 9, double=9)
    e.add_tile(1, "3-4")
    e.add_tile(1, "2-2")
    c = DraftContent(e, {0: PhotoReview(rules, 9, [_read(3, 4, 50), _read(5, 6, 150)], (400, 200), _photo())})
    clashes = c.clashes_in_review(0)
    assert [(k, err.holder) for k, err in clashes] == [(1, "Bob")]
    with pytest.raises(TakenError, match="2-2 is already in Bob's hand"):
        c.check_free(0, "2-2")
    assert c.correct_moving(0, 1, "2-2") == ["Bob"]  # tile 2 of the photo is really Bob's 2-2
    assert [str(t) for t in c.reviews[0].tiles] == ["3-4", "2-2"] and e.hands[1].tiles == [Tile(3, 4)]
    c.correct_moving(0, None, "0-1")  # a missed tile, free: added
    assert c.reviews[0].tiles[-1] == Tile(0, 1)


# ------------------------------------------------------------------ property
EXAMPLES = int(os.environ.get("CHICKENFOOT_PROPERTY_EXAMPLES", "60"))
TILES = [t for t in full_set(6) if t != Tile(6, 6)]
OPS = st.lists(st.tuples(st.sampled_from(["add", "move", "remove", "out", "pips", "clear"]),
                         st.integers(0, 2), st.sampled_from(TILES)), max_size=40)


@settings(max_examples=EXAMPLES, deadline=None)
@given(OPS)
def test_whatever_is_picked_or_moved_no_tile_is_ever_in_two_hands(ops):
    e = RoundEntry(get_rules(), PLAYERS, 6, double=6)
    for op, seat, tile in ops:
        before = e.to_dict()
        if op == "add":
            try:
                e.add_tile(seat, tile)
            except EntryError:
                assert e.to_dict() == before  # a refusal changes nothing
                holders = [h.player for h in e.hands if h.mode is Mode.TILES and tile in h.tiles]
                assert holders  # ... and only happens when someone holds it
        elif op == "move":
            e.move_tile(seat, tile)
            assert tile in e.hands[seat].tiles
        elif op == "remove":
            e.remove_tile(seat, tile)
        elif op == "out":
            e.went_out(seat)
        elif op == "pips":
            e.set_pips(seat, 5)
        else:
            e.clear(seat)
        assert not e.duplicates()
        held = {t for h in e.hands if h.mode is Mode.TILES for t in h.tiles}
        for k in range(3):  # the picker shows exactly the other hands' tiles as taken
            taken = {p.tile for p in e.picker_tiles(k) if p.taken_by}
            mine = set(e.hands[k].tiles) if e.hands[k].mode is Mode.TILES else set()
            assert taken == held - mine
