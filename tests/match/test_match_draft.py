"""Round drafts: identity, exactly-once decisions, round trip; pure values, no storage."""

from __future__ import annotations

import pytest

from chickenfoot.match import Match, MatchDataError, MatchStateError, RoundDraft, Saved, commit
from chickenfoot.match.draft import DraftState
from chickenfoot.rules import get_rules


def _match(rounds: int = 0) -> Match:
    m = Match.new(["Ann", "Bob", "Cy"], get_rules("double-chicken-foot"), match_id="m1", now="t0")
    for _ in range(rounds):
        m = m.add_round(penalties={"Bob": 4, "Cy": 5}, out="Ann")
    return m


def _add(m: Match) -> Match:
    return m.add_round(penalties={"Ann": 3, "Bob": 2}, out="Cy")


def test_a_new_round_draft_is_saved_exactly_once():
    m = _match(2)
    d = RoundDraft.new(m, entry={"hands": [1]})
    assert (d.number, d.edit, d.open, d.data) == (3, False, True, {"hands": [1]})
    first = commit(m, d, _add, by="phone-1")
    assert first.stored and len(first.match.rounds) == 3
    assert first.draft.state is DraftState.SAVED and first.draft.saved_by == "phone-1"
    # the same draft again (double tap, or a second phone on the shared draft): nothing stored
    again = commit(first.match, first.draft, _add, by="phone-2")
    assert again.outcome is Saved.ALREADY and again.match is first.match
    assert again.draft.saved_by == "phone-1"


def test_a_round_stored_elsewhere_supersedes_the_draft():
    m = _match(1)
    d = RoundDraft.new(m)
    elsewhere = _add(m)  # e.g. `chickenfoot match round` meanwhile
    assert d.stale(elsewhere) and not d.stale(m)
    c = commit(elsewhere, d, _add, by="phone-1")
    assert c.outcome is Saved.SUPERSEDED and c.match is elsewhere and len(c.match.rounds) == 2
    assert c.draft.state is DraftState.SUPERSEDED and not c.draft.stale(elsewhere)
    assert commit(elsewhere, c.draft, _add, by="x").outcome is Saved.SUPERSEDED


def test_an_edit_draft_notices_the_round_changed_meanwhile_and_a_second_save_applies_it():
    m = _match(2)
    d = RoundDraft.new(m, 1, edit=True)
    other = m.edit_round(1, penalties={"Bob": 9})  # another device edited round 1 first

    def mine(x: Match) -> Match:
        return x.edit_round(1, penalties={"Cy": 11})

    c = commit(other, d, mine, by="phone-1")
    assert c.outcome is Saved.CHANGED and c.match is other and c.draft.open
    c2 = commit(other, c.draft, mine, by="phone-1")
    assert c2.stored and c2.match.rounds[0].penalties == (0, 9, 11)
    # the round it edits was undone away: the edit is superseded
    gone = c2.match.undo().undo().undo()
    assert len(gone.rounds) == 1
    late = RoundDraft.new(c2.match, 2, edit=True)
    assert commit(gone, late, mine, by="p").outcome is Saved.SUPERSEDED


def test_a_failing_save_changes_nothing():
    m = _match()
    d = RoundDraft.new(m)

    def impossible(x: Match) -> Match:
        return x.add_round(penalties={"Ann": 3}, out="Cy")  # Bob has no result

    with pytest.raises(Exception, match="Bob"):
        commit(m, d, impossible, by="p")
    assert d.open


def test_drafts_refuse_rounds_that_cannot_be_entered():
    with pytest.raises(MatchStateError, match="round 3"):
        RoundDraft.new(_match(2), 5)
    with pytest.raises(MatchStateError, match="no round 4"):
        RoundDraft.new(_match(2), 4, edit=True)
    with pytest.raises(MatchStateError, match="abandoned"):
        RoundDraft.new(_match().abandon())
    with pytest.raises(MatchStateError, match="another match"):
        other = Match.new(["A", "B"], get_rules(), match_id="m2")
        commit(other, RoundDraft.new(_match()), _add, by="p")


def test_round_trip_and_entry_changes():
    m = _match(1)
    d = RoundDraft.new(m, 1, edit=True, entry={"b": 1, "a": [1, 2], "blobs": ["k1", 3]})
    assert RoundDraft.from_dict(d.to_dict()) == d
    assert d.blobs == ("k1",)
    same = d.with_entry({"a": [1, 2], "b": 1, "blobs": ["k1", 3]})
    assert same is d  # key order does not make a change
    changed = d.with_entry({"a": [1]})
    assert changed.revision == d.revision + 1 and changed.data == {"a": [1]}
    closed = changed.close(DraftState.SAVED, "p")
    assert closed.with_entry({"z": 1}) is closed  # a saved draft no longer changes
    assert hash(d) == hash(RoundDraft.from_dict(d.to_dict()))


@pytest.mark.parametrize("bad", [{}, {"id": "x", "match": "m", "number": -1},
                                 {"id": "x", "match": "m", "number": 1, "entry": "[1]"},
                                 {"id": "x", "match": "m", "number": 1, "state": "eaten"},
                                 {"id": "x", "match": "m", "number": 1, "edit": True},
                                 {"id": "x", "match": "m", "number": 1, "entry": "{"}])
def test_damaged_drafts_give_one_clear_error(bad):
    with pytest.raises(MatchDataError, match="draft"):
        RoundDraft.from_dict(bad)
