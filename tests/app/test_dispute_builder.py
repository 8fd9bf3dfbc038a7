"""The dispute checker's state without UI: verdicts and reasons come from the rules core."""

from __future__ import annotations

import pytest

from chickenfoot.app.dispute import DisputeBuilder, DisputeError
from chickenfoot.rules import Tile
from chickenfoot.rules.layout import FOOT_INCOMPLETE, HUB_INCOMPLETE, NO_MATCH, OK, judge_play


def _hub_done() -> DisputeBuilder:
    d = DisputeBuilder("double-chicken-foot", 9, hub=9)
    for t in ("9-4", "9-1", "9-2", "9-3", "9-5", "9-6"):
        assert d.add(t, "9-9").legal
    return d


def test_hub_then_open_ends_and_spokes_still_needed():
    d = DisputeBuilder("double-chicken-foot", 9)
    with pytest.raises(DisputeError, match="hub"):
        d.open_ends()
    d.start(9)
    assert [e.describe() for e in d.open_ends()] == ["9 on 9-9 (6 spokes to go)"]
    with pytest.raises(DisputeError, match="tap an open end"):
        d.ask("4-7")
    d.select("9-9")
    v = d.ask("4-7")
    assert v.code == NO_MATCH and v.message == "4-7 has no 9, so it cannot go on the 9-9."
    assert d.add("9-4").legal
    assert d.needs().spokes_needed == 5
    v = d.ask("4-7", "9-4")
    assert v.code == HUB_INCOMPLETE and "5 more spokes" in v.message
    assert d.needs().sentences(Tile(9, 9)) == ["The 9-9 still needs 5 spokes before anything else."]


def test_can_4_7_go_here_matches_the_rules_core_and_a_double_grows_toes():
    d = _hub_done()
    v = d.ask("4-7", "9-4")
    assert v.code == OK and v.message == judge_play(d.layout, "4-7", "9-4").message
    assert d.add("4-4", "9-4").legal
    ends = {e.target: e for e in d.open_ends()}
    assert ends[Tile(4, 4)].slots == 3 and ends[Tile(4, 4)].kind == "foot"
    n = d.needs()
    assert (n.open_foot, n.toes_needed) == (Tile(4, 4), 3)
    v = d.ask("3-5", "9-3")
    assert v.code == FOOT_INCOMPLETE
    assert [x.on for x in d.where_can("4-7")] == [Tile(4, 4)]


def test_illegal_play_refused_unless_forced_then_reported():
    d = _hub_done()
    d.add("4-4", "9-4")
    v = d.add("3-5", "9-3")
    assert not v.legal and len(d.layout.plays) == 7
    d.add("3-5", "9-3", force=True)
    assert len(d.layout.plays) == 8 and d.problems()
    d.undo()
    assert not d.problems()
    with pytest.raises(DisputeError, match="no matching number"):
        d.add("1-2", "9-3", force=True)


def test_load_and_save_a_layout_file_round_trip(tmp_path):
    d = _hub_done()
    text = d.to_json()
    (tmp_path / "layout.json").write_text(text)
    e = DisputeBuilder("pagat", 12)
    e.load((tmp_path / "layout.json").read_text(), "layout.json")
    assert e.preset == "double-chicken-foot" and e.top == 9
    assert e.lines() == d.lines() and e.needs().spokes_needed == 0
    with pytest.raises(Exception, match="not valid JSON"):
        e.load("{oops", "broken.json")
    assert e.lines() == d.lines()  # a bad file changes nothing


def test_the_table_drawn_a_tap_on_an_open_end_selects_it_and_a_question_is_drawn_in_place():
    d = _hub_done()
    pic = d.picture()
    assert d.board_png().startswith(b"\x89PNG") and d.picture() is pic  # laid out once per table
    marks = {m.end.target: m for m in pic.board.ends}
    assert set(marks) == {e.target for e in d.open_ends()}
    m = marks[Tile(4, 9)]
    assert d.end_at(*pic.to_pixels(m.spot.x, m.spot.y)) == Tile(4, 9)
    d.select(Tile(4, 9))
    assert d.selected == Tile(4, 9)
    with pytest.raises(DisputeError, match="not an open end"):
        d.end_at(*pic.to_pixels(0.0, 0.0))  # the hub itself
    assert d.selected == Tile(4, 9)
    v = d.ask("4-7")
    assert v.legal
    drawn = d.picture()
    assert drawn is not pic and drawn.board.ghost is not None
    assert drawn.board.ghost.verdict == v and drawn.board.ghost.legal
    assert d.ask("8-8").legal is False and d.picture().board.ghost.legal is False
    # once laid, the tile is part of the table, no longer a question drawn beside it
    d.ask("4-7")
    d.add("4-7")
    assert d.picture().board.ghost is None and d.picture().board.piece("4-7") is not None


def test_after_add_the_selection_stays_on_a_double_still_needing_tiles():
    d = DisputeBuilder("double-chicken-foot", 9, hub=9)
    d.select("9-9")
    for t in ("9-4", "9-1", "9-2"):
        assert d.add(t).legal
        assert d.selected == Tile(9, 9)  # the next spoke goes on the hub too: no re-picking it
    for t in ("9-3", "9-5", "9-6"):
        d.add(t)
    assert d.selected == Tile(6, 9)  # the hub is complete: along the spoke just laid
    d.add("6-6")
    assert d.selected == Tile(6, 6)  # a double on the line: its toes go on it
    d.add("6-1")
    assert d.selected == Tile(6, 6)
    assert next(e for e in d.open_ends() if e.target == Tile(6, 6)).slots == 2


def test_a_tile_laid_leaves_no_verdict_behind_and_a_refused_one_stays_said():
    d = _hub_done()
    d.select("9-4")
    assert d.ask("4-7").legal and d.picture().board.ghost is not None
    assert d.add("4-7").legal
    assert d.last is None and d.picture().board.ghost is None  # answered by the tile on the table
    e = DisputeBuilder("double-chicken-foot", 9, hub=9)
    e.add("9-4", "9-9")
    e.select("9-4")
    refused = e.add("4-7")  # the hub still needs spokes: refused, and why stays on the screen
    assert not refused.legal and e.last == refused and e.picture().board.ghost is not None
    assert e.can_force
    e.add("4-7", force=True)  # on the table anyway: reported as a problem, naming it; no verdict left
    assert e.last is None and e.problems() == ["4-7 on the 9-4: the 9-9 still needs 5 more spokes before anything else."]


def test_the_verdict_follows_the_open_end_chosen_after_it():
    d = DisputeBuilder("double-chicken-foot", 9, hub=9)
    for t in ("9-8", "9-1", "9-2", "9-3", "9-4", "9-5"):
        d.add(t, "9-9")
    no = d.ask("7-8", "9-4")  # judged on the 9-4 ...
    assert no.code == NO_MATCH and not d.can_force  # a 7-8 cannot lie against a 4 at all
    with pytest.raises(DisputeError, match="7-8 cannot touch the 4-9: no matching number"):
        d.add("7-8", "9-4", force=True)
    d.select("9-8")  # ... then the 8 end chosen: judged there, not left saying "no" about the 9-4
    assert d.last is not None and (d.last.tile, d.last.on) == (Tile(7, 8), Tile(8, 9)) and d.last.legal
    d.add("8-8", "9-8")
    assert d.ask("1-6", "9-1").code == FOOT_INCOMPLETE and d.can_force  # it does touch the 1
    d.select("8-8")
    assert d.last is not None and d.last.on == Tile(8, 8) and d.last.code == NO_MATCH and not d.can_force


def test_a_tile_not_chosen_yet_is_asked_for_by_name():
    d = DisputeBuilder("double-chicken-foot", 9, hub=9)
    d.select("9-9")
    with pytest.raises(DisputeError, match="choose the tile first: tap its face, or type it like 4-7"):
        d.add("")


def test_rules_that_play_one_set_bring_it_unless_the_table_holds_tiles_outside_it():
    d = DisputeBuilder("double-chicken-foot", 9)
    d.set_rules("chickie-sixes")
    assert d.top == 6 and d.rules.name == "chickie-sixes"
    d.set_rules("double-chicken-foot")
    assert d.top == 6  # a preset that leaves the set open keeps the one chosen
    d.set_rules("double-chicken-foot", 9)
    d.start(9)
    with pytest.raises(DisputeError, match="Chickie Sixes is played with a double-6 set, and the 9-9 on this "
                                           "table is not in it: start a new table for it"):
        d.set_rules("chickie-sixes")
    assert d.preset == "double-chicken-foot" and d.top == 9  # kept as it was
    d.set_rules("chickie-sixes", 9)  # the set named with it: Chickie Sixes on a double-9 set, as asked
    assert d.top == 9 and d.report().set == 9


def test_a_foot_open_while_the_hub_is_short_is_said_to_come_after_the_spokes():
    d = DisputeBuilder("double-chicken-foot", 9, hub=9)
    d.add("9-4", "9-9")
    d.add("4-4", "9-4", force=True)
    assert d.needs().sentences(Tile(9, 9)) == [
        "The 9-9 still needs 5 spokes before anything else.",
        "Open foot: the 4-4 needs 3 more toes; it comes after the hub's spokes."]


def test_the_picker_shows_the_number_the_chosen_end_needs():
    assert DisputeBuilder("double-chicken-foot", 9, hub=5).suit_for(None) == 9  # nothing chosen: the highest
    d = _hub_done()
    d.select("9-4")
    assert d.suit_for(None) == 4  # the 4 of the 9-4 is open
    assert d.suit_for(2) == 2  # the player's own choice wins
    assert d.suit_for(12) == 4  # not in a double-9 set: ignored
    e = DisputeBuilder("double-chicken-foot", 9, hub=5)
    e.select("5-5")
    assert e.suit_for(None) == 5  # the hub's spokes need its number


def test_each_problem_is_said_once():
    import json

    lay = {"rules": "double-chicken-foot", "hub": "9-9", "ordered": False,
           "plays": [{"tile": "9-5", "on": "9-9"}] * 3 + [{"tile": "9-1", "on": "9-9"}]}
    d = DisputeBuilder()
    d.load(json.dumps(lay), "triple.json")
    problems = d.problems()
    assert "5-9 appears twice on the table; every tile is unique in a set." in problems
    assert len(problems) == len(set(problems))
