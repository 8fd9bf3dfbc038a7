"""The match in progress over a real TinyDB file (the storage repository), without UI."""

from __future__ import annotations

import json

import pytest

from chickenfoot.app.match_session import MatchSession
from chickenfoot.app.round_entry import EntryError
from chickenfoot.app.store import MatchStore
from chickenfoot.match import MatchError, Saved
from chickenfoot.rules import Tile


@pytest.fixture
def store(tmp_path):
    s = MatchStore.open(tmp_path / "matches.json")
    yield s
    s.close()


def _round(ms: MatchSession, out: int | None, pips: dict[int, int], tiles: dict[int, list[str]]):
    e = ms.new_entry()
    if out is not None:
        e.went_out(out)
    for i, p in pips.items():
        e.set_pips(i, p)
    for i, ts in tiles.items():
        for t in ts:
            e.add_tile(i, t)
    return e


def test_two_rounds_totals_ranks_next_starter_and_edit(store, tmp_path):
    m = store.create(["Ann", "Bob", "Cy", "Dee"], "double-chicken-foot", {})
    ms = MatchSession(store, m.id)
    b = ms.brief()
    assert b and (b.double, b.deal, b.first_player) == (9, 11, "Ann")

    ms.save_round(_round(ms, 0, {1: 12, 2: 7, 3: 30}, {}))
    assert [(s.player, s.total, s.rank) for s in ms.ranked()] == [
        ("Ann", 0, 1), ("Cy", 7, 2), ("Bob", 12, 3), ("Dee", 30, 4)]
    assert ms.next_starter_text().startswith("Bob plays first")

    ms.save_round(_round(ms, 1, {3: 5}, {0: ["0-0", "3-4"], 2: ["1-2"]}))
    assert ms.match.totals() == [57, 12, 10, 35]
    assert ms.leaders() == ["Cy"] and ms.brief().double == 7
    assert ms.chart() == [[0, 0, 57], [0, 12, 12], [0, 7, 10], [0, 30, 35]]
    assert [r.out for r in ms.rows()] == [0, 1]

    # edit round 1 from a pre-filled entry; round 2's tiles were kept and come back as tiles
    e = ms.entry_for(1)
    e.set_pips(1, 20)
    ms.save_round(e, 1)
    assert ms.match.totals() == [57, 20, 10, 35]
    assert ms.entry_for(2).tile_hands()[0] == [Tile(0, 0), Tile(3, 4)]

    # a second screen (new session object, fresh repository) sees the same thing
    other = MatchStore.open(tmp_path / "matches.json")
    try:
        assert MatchSession(other, m.id).match.totals() == [57, 20, 10, 35]
    finally:
        other.close()


def test_undo_redo_and_changes_from_elsewhere(store):
    m = store.create(["Ann", "Bob"], "double-chicken-foot", {})
    a, b = MatchSession(store, m.id), MatchSession(store, m.id)
    a.save_round(_round(a, 0, {1: 9}, {}))
    assert b.refresh() and b.match.totals() == [0, 9]
    assert not b.refresh()
    b.undo()
    assert b.match.rounds == () and b.can_redo and b.redo_label() == "round 1 added"
    assert a.refresh()
    a.redo()
    assert a.match.totals() == [0, 9]
    # a change applied from a stale session lands on the latest copy, not over it
    b.save_round(_round(b, 1, {0: 4}, {}))
    assert store.get(m.id).totals() == [4, 9]


def test_undo_of_a_named_change_takes_back_only_that_change(store):
    """A note's Undo names the change it told of: a phone that saved round 1 must not take back
    round 2, saved on another phone since."""
    m = store.create(["Ann", "Bob"], "double-chicken-foot", {})
    a, b = MatchSession(store, m.id), MatchSession(store, m.id)
    a.save_round(_round(a, 0, {1: 9}, {}))
    told = a.undo_label()
    b.refresh()
    b.save_round(_round(b, 1, {0: 4}, {}))
    with pytest.raises(MatchError, match="round 1 added is no longer the last change"):
        a.undo_last(told)
    assert store.get(m.id).totals() == [4, 9]
    b.undo_last("round 2 added")
    with pytest.raises(MatchError, match="no longer the last change undone"):
        a.redo_last(told)
    a.redo_last("round 2 added")
    assert store.get(m.id).totals() == [4, 9]


def test_incomplete_or_impossible_rounds_are_refused_and_nothing_is_saved(store):
    m = store.create(["Ann", "Bob"], "double-chicken-foot", {})
    ms = MatchSession(store, m.id)
    e = ms.new_entry()
    e.went_out(0)
    with pytest.raises(EntryError, match="Bob: nothing entered yet"):
        ms.save_round(e)
    with pytest.raises(EntryError, match="9-9 is on the table"):
        e.add_tile(1, "9-9")  # the round's double is in the centre, not in a hand
    e.add_tile(1, "9-8")
    e.set_tiles(0, [Tile(9, 8)])  # kept as typed elsewhere (picking it is refused: it is taken)
    with pytest.raises(EntryError, match="8-9 is entered 2 times"):
        ms.save_round(e)
    assert store.get(m.id).rounds == ()


def test_match_end_winner_and_tie_break_explained(store):
    m = store.create(["Ann", "Bob"], "pagat", {"match_length": "single"})
    ms = MatchSession(store, m.id)
    ms.save_round(_round(ms, 0, {1: 15}, {}))
    assert ms.over and ms.brief() is None
    lines = ms.outcome_text()
    assert lines[0] == "Winner: Ann with 0"
    assert any("most rounds scored 0" in line for line in lines)


def test_draw_is_explained(store):
    m = store.create(["Ann", "Bob"], "double-chicken-foot", {"match_length": "single"})
    ms = MatchSession(store, m.id)
    ms.save_round(_round(ms, None, {0: 6, 1: 6}, {}))
    assert ms.outcome_text()[0] == "Draw: Ann (6) and Bob (6)"


def test_export_import_round_trip_between_files(store, tmp_path):
    m = store.create(["Ann", "Bob"], "double-chicken-foot", {})
    MatchSession(store, m.id).save_round(_round(MatchSession(store, m.id), 0, {1: 3}, {}))
    text = store.export_json()
    assert json.loads(text)["matches"][0]["id"] == m.id
    assert "Ann" in store.export_csv()
    other = MatchStore.open(tmp_path / "other.json")
    try:
        assert other.import_json(text).summary() == "1 added, 0 updated, 0 already there"
        assert other.import_json(text).summary("here") == "0 added, 0 updated, 1 already here"
        assert other.get(m.id).totals() == [0, 3]
        assert [x.id for x in other.unfinished()] == [m.id]
    finally:
        other.close()
    with pytest.raises(MatchError):
        store.import_json('{"format": "chickenfoot-matches", "matches": [{"id": 1}]}')


def test_next_highest_double_can_open_the_round(store):
    m = store.create(["Ann", "Bob"], "chickie-sixes", {})
    ms = MatchSession(store, m.id)
    assert ms.opening_choices() == [6, 5, 4, 3, 2, 1, 0]
    e = _round(ms, 0, {}, {})
    e.started_with = 5  # nobody held 6-6 at the start: 5-5 opened, and 6-6 can be in a hand
    e.add_tile(1, "6-6")
    e.add_tile(1, "1-2")
    assert [t.tile for t in e.picker_tiles()].count(Tile(5, 5)) == 0
    ms.save_round(e)
    assert ms.match.rounds[0].started_with == 5 and ms.match.totals() == [0, 15]
    assert ms.entry_for(1).started_with == 5
    assert MatchSession(store, store.create(["A", "B"], "double-chicken-foot", {}).id).opening_choices() == []


def test_a_round_draft_is_shared_kept_on_disk_and_saved_once(store, tmp_path):
    m = store.create(["Ann", "Bob", "Cy"], "double-chicken-foot", {})
    phone, tablet = MatchSession(store, m.id), MatchSession(store, m.id)
    d = phone.open_draft()
    assert tablet.open_draft().id == d.id and phone.heading() == "Round 1 · 9-9 · Ann starts"
    phone.change(d.id, lambda c: c.entry.went_out(0))
    tablet.change(d.id, lambda c: c.entry.press(1, "1"))
    phone.change(d.id, lambda c: c.entry.press(1, "2"))
    # a restarted server: a new store on the same file sees what was typed
    again = MatchStore.open(tmp_path / "matches.json")
    try:
        c = MatchSession(again, m.id).content(again.get_draft(d.id))
        assert [c.entry.penalty(i) for i in range(3)] == [0, 12, None]
    finally:
        again.close()
    d2, c = tablet.change(d.id, lambda c: c.entry.set_pips(2, 7))
    assert c.entry.complete and d2.revision == 4
    first = phone.save_draft(d.id, by="phone")
    second = tablet.save_draft(d.id, by="tablet")  # pressed at the same moment
    assert (first.outcome, second.outcome) == (Saved.STORED, Saved.ALREADY)
    assert second.draft.saved_by == "phone" and store.get(m.id).totals() == [0, 12, 7]
    # the tablet's view of its draft now says it was saved, and typing into it changes nothing
    d3, _ = tablet.change(d.id, lambda c: c.entry.set_pips(2, 99))
    assert not d3.open and store.get(m.id).totals() == [0, 12, 7]
    assert tablet.open_draft().number == 2


def test_an_edit_draft_starts_from_the_round_and_a_photo_reading_is_kept(store):
    m = store.create(["Ann", "Bob"], "double-chicken-foot", {})
    ms = MatchSession(store, m.id)
    d = ms.open_draft()
    ms.change(d.id, lambda c: (c.entry.went_out(0), c.entry.add_tile(1, "3-4")))
    assert ms.save_draft(d.id, "p").stored
    e = ms.open_draft(1)
    assert e.edit and ms.content(e).entry.tile_hands() == [None, [Tile(3, 4)]]
    import io

    from PIL import Image

    from chickenfoot.app.photo_review import PhotoReview
    from chickenfoot.vision.geometry import OrientedBox
    from chickenfoot.vision.reading import TileReading

    buf = io.BytesIO()
    Image.new("RGB", (30, 20)).save(buf, format="PNG")
    key = store.put_photo(buf.getvalue())
    review = PhotoReview(ms.match.rules, 9, [TileReading(5, 6, 0.9, OrientedBox(10, 10, 8, 4, 0.0))],
                         (30, 20), buf.getvalue())
    ms.change(e.id, lambda c: c.reviews.__setitem__(1, review))
    assert ms.content(ms.draft(e.id)).reviews[1].image == buf.getvalue()
    assert store.repo.get_blob(key) == buf.getvalue()
    ms.change(e.id, lambda c: c.entry.set_tiles(1, c.reviews.pop(1).tiles))
    assert ms.save_draft(e.id, "p").stored and store.get(m.id).totals() == [0, 11]
    assert store.repo.get_blob(key) is None  # the photo is removed with its saved draft
