"""Layouts: the file format, every reason code with its sentence, whole-layout checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chickenfoot.rules import (
    REASON_CODES,
    REASONS,
    IllegalPlayError,
    Layout,
    LayoutError,
    Play,
    Table,
    Tile,
    TileNotInSetError,
    check_layout,
    get_rules,
    judge_play,
    legal_plays,
)

SPOKES = [("9-0", "9-9"), ("9-1", "9-9"), ("9-2", "9-9"), ("9-3", "9-9"), ("9-4", "9-9"), ("9-5", "9-9")]
DCF = "double-chicken-foot"


def layout(plays: list[tuple[str, str]], hub: str = "9-9", **kw: object) -> Layout:
    return Layout.build(hub, plays, rules=kw.pop("rules", DCF), **kw)  # type: ignore[arg-type]


# ------------------------------------------------------------------------ reason codes
def test_reason_codes_are_the_documented_stable_set_with_sentences():
    assert REASON_CODES == ("ok", "not-in-set", "already-played", "unknown-target", "no-match",
                            "end-taken", "hub-incomplete", "foot-incomplete")
    assert all(REASONS[c].endswith(".") and len(REASONS[c]) > 15 for c in REASON_CODES)


def test_ok_names_the_open_number():
    v = judge_play(layout(SPOKES), "4-7", "9-4")
    assert v.code == "ok" and v.legal and v.orientation == 7
    assert v.message == "4-7 can go on the 9-4; it leaves a 7 open."
    assert judge_play(layout(SPOKES), "4-8", "9-4").message == "4-8 can go on the 9-4; it leaves an 8 open."


def test_ok_spoke_and_double():
    assert judge_play(layout([]), "4-9", "9-9").message == "9-4 can go on the 9-9 as a spoke; it leaves a 4 open."
    v = judge_play(layout(SPOKES), "4-4", "9-4")
    assert v.legal and v.message == "4-4 can go on the 9-4; it closes that line and needs 3 toes."


def test_not_in_set():
    v = judge_play(layout(SPOKES, set=9), "9-10", "9-0")
    assert v.code == "not-in-set" and "not in a double-9 set" in v.message


def test_already_played_names_where_it_lies():
    v = judge_play(layout(SPOKES), "9-4", "9-9")
    assert v.code == "already-played" and v.message.startswith("9-4 is already on the table (on the 9-9)")
    assert judge_play(layout(SPOKES), "9-9", "9-0").code == "already-played"


def test_unknown_target():
    v = judge_play(layout(SPOKES), "6-7", "6-6")
    assert v.code == "unknown-target" and v.message == "There is no 6-6 on the table to play 6-7 on."


def test_no_match_on_a_line_and_on_a_double():
    v = judge_play(layout(SPOKES), "2-8", "9-4")
    assert v.code == "no-match" and v.message == "2-8 has no 4, so it cannot go on the open 4 of the 9-4."
    v = judge_play(layout([]), "1-2", "9-9")
    assert v.code == "no-match" and v.message == "1-2 has no 9, so it cannot go on the 9-9."


def test_end_taken_line_double_and_hub():
    lay = layout([*SPOKES, ("4-1", "9-4")])
    v = judge_play(lay, "4-6", "9-4")
    assert v.code == "end-taken" and "The 9-4 already has the 4-1 played on its 4" in v.message
    v = judge_play(layout(SPOKES), "9-6", "9-9")
    assert v.code == "end-taken" and v.message == "The 9-9 already has its 6 spokes."
    full_foot = layout([*SPOKES, ("4-4", "9-4"), ("4-1", "4-4"), ("4-2", "4-4"), ("4-3", "4-4")])
    v = judge_play(full_foot, "4-5", "4-4")
    assert v.code == "end-taken" and v.message == "The 4-4 already has its 3 toes."
    # the line goes on at the double's toes, not at an open end of its own
    v = judge_play(full_foot, "4-6", "9-4")
    assert v.code == "end-taken" and v.message.endswith(
        "already has the 4-4 played on its 4; play on that double's toes or past them.")
    assert "open end of that line" in judge_play(lay, "4-6", "9-4").message


def test_hub_incomplete():
    v = judge_play(layout(SPOKES[:4]), "3-5", "9-3")
    assert v.code == "hub-incomplete"
    assert v.message == "The 9-9 still needs 2 more spokes before anything else."


def test_short_hub_outranks_a_foot_wrongly_opened_before_it():
    # A described table can break the rules (a double on a spoke while the hub is short); the
    # judge must still say the hub comes first, as the "playable now" list does.
    lay = layout([("9-4", "9-9"), ("4-4", "9-4"), ("9-3", "9-9")])
    v = judge_play(lay, "4-7", "4-4")
    assert v.code == "hub-incomplete"
    assert v.message == "The 9-9 still needs 4 more spokes before anything else."
    assert judge_play(lay, "9-0", "9-9").legal


def test_foot_incomplete_sentence_from_the_issue():
    lay = layout([*SPOKES, ("4-4", "9-4"), ("4-1", "4-4")])
    v = judge_play(lay, "0-6", "9-0")
    assert v.code == "foot-incomplete"
    assert v.message == "The 4-4 still needs 2 toes before anything else."
    assert judge_play(lay, "4-6", "4-4").legal


def test_plus_sign_hub_for_four_spoke_rules():
    lay = layout(SPOKES[:4], rules="pagat")
    assert judge_play(lay, "3-5", "9-3").legal
    assert judge_play(lay, "9-8", "9-9").code == "end-taken"


def test_verdict_as_data():
    d = judge_play(layout(SPOKES), "4-7", "9-4").to_dict()
    assert d == {"tile": "4-7", "on": "4-9", "legal": True, "code": "ok",
                 "message": "4-7 can go on the 9-4; it leaves a 7 open."}


# ----------------------------------------------------------------------- legal plays
def test_legal_plays_for_a_tile_and_a_hand_in_every_phase():
    t = Table(Tile(9, 9), spokes=6, toes=3, top=9)
    assert list(legal_plays(t, Tile(4, 9))) == [Play(Tile(4, 9), Tile(9, 9), 4)]
    assert list(legal_plays(t, [Tile(1, 2), Tile(3, 3)])) == []
    # tiles the double-9 set does not hold have no play, as the judge calls them not-in-set
    assert list(legal_plays(t, [Tile(9, 10), Tile(9, 18)])) == []
    assert t.judge(Tile(9, 10), Tile(9, 9)).code == "not-in-set"
    for a, b in SPOKES:
        t.place(Tile.parse(a), Tile.parse(b))
    hand = [Tile(4, 7), Tile(0, 1), Tile(6, 6)]
    got = set(t.legal_plays(hand))
    assert got == {Play(Tile(4, 7), Tile(4, 9), 7), Play(Tile(0, 1), Tile(0, 9), 1),
                   Play(Tile(0, 1), Tile(1, 9), 0)}
    t.place(Tile(4, 4), Tile(4, 9))  # a foot opens: only its toes now
    assert list(t.legal_plays(hand)) == [Play(Tile(4, 7), Tile(4, 4), 7)]
    assert Play(Tile(4, 7), Tile(4, 4), 7).to_dict() == {"tile": "4-7", "on": "4-4"}


def test_place_raises_with_the_reason_code():
    t = Table(Tile(9, 9), spokes=6, toes=3, top=9)
    with pytest.raises(IllegalPlayError) as err:
        t.place(Tile(1, 2), Tile(9, 9))
    assert err.value.reason == "no-match"
    assert len(t) == 1  # nothing changed


def test_table_copy_is_independent():
    t = Table(Tile(9, 9), spokes=6, toes=3, top=9)
    c = t.copy()
    c.place(Tile(9, 4), Tile(9, 9))
    assert len(t) == 1 and len(c) == 2 and t.hub_complete is False


# ---------------------------------------------------------------- whole-layout checks
def test_legal_layout_reports_spokes_foot_and_open_ends():
    rep = check_layout(layout([*SPOKES, ("4-4", "9-4"), ("4-1", "4-4"), ("1-8", "4-1")]))
    assert not rep.legal
    rep = check_layout(layout([*SPOKES, ("4-4", "9-4"), ("4-1", "4-4")]))
    assert rep.legal and rep.problems == ()
    d = rep.to_dict()
    assert d["spokes"] == {"tiles": ["0-9", "1-9", "2-9", "3-9", "4-9", "5-9"], "have": 6,
                           "need": 6, "complete": True}
    assert d["open_foot"] == {"tile": "4-4", "toes": ["1-4"], "need": 3, "missing": 2}
    ends = {(e["on"], e["value"], e["slots"], e["playable_now"]) for e in d["open_ends"]}
    assert ends == {("0-9", 0, 1, False), ("1-9", 1, 1, False), ("2-9", 2, 1, False),
                    ("3-9", 3, 1, False), ("5-9", 5, 1, False), ("4-4", 4, 2, True),
                    ("1-4", 1, 1, False)}
    assert any("Open foot: 4-4 needs 2 more toes" in line for line in rep.summary_lines())


def test_every_problem_at_once_in_order():
    plays = [
        ("9-0", "9-9"),
        ("0-3", "9-0"),   # hub-incomplete: the hub has 1 spoke
        ("9-0", "9-9"),   # already-played
        ("9-1", "9-9"), ("9-2", "9-9"), ("9-3", "9-9"), ("9-4", "9-9"), ("9-5", "9-9"),
        ("9-6", "9-9"),   # end-taken: the hub is full
        ("2-8", "9-4"),   # no-match
        ("7-8", "8-8"),   # unknown-target
        ("3-5", "0-3"),   # fine: 0-3 was kept on the table to judge the rest
        ("5-5", "9-5"),   # opens a foot
        ("1-6", "9-1"),   # foot-incomplete
        ("1-2", "9-1"),   # foot-incomplete, and end-taken (9-1 already continued)
    ]
    rep = check_layout(layout(plays))
    got = [(p.index, p.code) for p in rep.problems]
    assert got == [(1, "hub-incomplete"), (2, "already-played"), (8, "end-taken"), (9, "no-match"),
                   (10, "unknown-target"), (13, "foot-incomplete"), (14, "foot-incomplete"), (14, "end-taken")]
    assert rep.problems[4].message == "There is no 8-8 on the table to play 7-8 on."
    assert rep.problems[-1].message == "The 9-1 already has the 1-6 played on its 1; play at the open end of that line."


def test_a_line_end_taken_twice_while_the_hub_is_short_is_said_too():
    rep = check_layout(layout([("9-4", "9-9"), ("4-1", "9-4"), ("4-2", "9-4")]))
    got = [(p.index, p.code) for p in rep.problems]
    assert got == [(1, "hub-incomplete"), (2, "hub-incomplete"), (2, "end-taken")]
    # the same table with its order unknown finds the doubled end too
    unordered = check_layout(layout([("9-4", "9-9"), ("4-1", "9-4"), ("4-2", "9-4")], ordered=False))
    assert "end-taken" in {p.code for p in unordered.problems}


def test_a_second_foot_opened_too_early_takes_no_plays_until_the_first_is_filled():
    plays = [*SPOKES, ("4-4", "9-4"), ("4-2", "4-4"), ("5-5", "9-5"),
             ("5-0", "5-5"), ("5-1", "5-5"), ("5-3", "5-5"), ("3-3", "5-3")]
    rep = check_layout(layout(plays))
    got = [(p.index, p.code) for p in rep.problems]
    assert got == [(8, "foot-incomplete"), (9, "foot-incomplete"), (10, "foot-incomplete"),
                   (11, "foot-incomplete"), (12, "foot-incomplete")]
    assert all(p.message == "The 4-4 still needs 2 toes before anything else." for p in rep.problems)
    # both 4-4 and 3-3 are short of toes, but only the first one opened takes plays
    v = rep.judge("3-2", "3-3")
    assert v.code == "foot-incomplete" and "4-4" in v.message
    assert rep.judge("4-1", "4-4").legal
    assert [(p.tile, p.target) for p in rep.table.legal_plays([Tile(2, 3), Tile(1, 4)])] == [(Tile(1, 4), Tile(4, 4))]
    assert [e.target for e in rep.open_ends() if e.playable] == [Tile(4, 4)]


def test_play_before_its_target_is_on_the_table():
    rep = check_layout(layout([*SPOKES, ("4-7", "7-7"), ("7-7", "9-9")]))
    assert rep.problems[0].code == "unknown-target"
    assert rep.problems[0].message == "4-7 is played on the 7-7 before the 7-7 is on the table."


def test_two_open_feet_in_order():
    rep = check_layout(layout([*SPOKES, ("4-4", "9-4"), ("5-5", "9-5")]))
    assert [p.code for p in rep.problems] == ["foot-incomplete"]


def test_unordered_layout_only_order_free_checks():
    # The same tiles listed in any order: a legal table stays legal.
    plays = [("4-1", "4-4"), ("4-4", "9-4"), *reversed(SPOKES), ("1-7", "4-1"), ("4-2", "4-4"),
             ("4-3", "4-4")]
    assert check_layout(layout(plays, ordered=False)).legal
    assert not check_layout(layout(plays)).legal  # in that order it is not
    # Order-free problems are still found.
    bad = [*SPOKES[:5], ("0-1", "9-0"), ("4-4", "9-4"), ("4-1", "4-4"), ("1-8", "4-1")]
    rep = check_layout(layout(bad, ordered=False))
    codes = sorted(p.code for p in rep.problems)
    assert codes == ["foot-incomplete", "hub-incomplete", "hub-incomplete"]
    bad = [*SPOKES, ("4-4", "9-4"), ("4-1", "4-4"), ("1-8", "4-1"), ("5-5", "9-5"), ("0-6", "9-0"),
           ("0-7", "9-0"), ("8-8", "8-7"), ("6-1", "8-8"), ("2-3", "9-1")]
    codes = sorted(p.code for p in check_layout(layout(bad, ordered=False)).problems)
    assert codes == ["end-taken", "foot-incomplete", "foot-incomplete", "no-match",
                     "unknown-target", "unknown-target"]


def test_unordered_cycle_is_not_connected():
    rep = check_layout(layout([*SPOKES, ("1-2", "2-3"), ("2-3", "1-2")], ordered=False))
    assert {p.code for p in rep.problems} == {"unknown-target"}
    assert "not connected to the hub" in rep.problems[0].message


def test_duplicate_tile_from_a_photo():
    rep = check_layout(layout([*SPOKES, ("9-4", "9-9")], ordered=False))
    assert [p.code for p in rep.problems] == ["already-played"]


# ------------------------------------------------------------------- the file format
def test_file_round_trip_and_both_orders_and_separators(tmp_path: Path):
    path = tmp_path / "table.json"
    path.write_text(json.dumps({"rules": "pagat", "hub": "9:9", "plays": [
        {"tile": "4-9", "on": "9-9"}, {"tile": "4:4", "on": "9-4"}, {"tile": "7-4", "on": "4:4"}]}))
    lay = Layout.load(path)
    assert lay.hub == Tile(9, 9) and lay.plays[2].tile == Tile(4, 7) and lay.plays[2].on == Tile(4, 4)
    assert lay.rules == "pagat" and lay.ordered and lay.set is None
    out = tmp_path / "out.json"
    lay.save(out)
    assert Layout.load(out) == lay
    assert json.loads(out.read_text()) == {"rules": "pagat", "hub": "9-9", "plays": [
        {"tile": "4-9", "on": "9-9"}, {"tile": "4-4", "on": "4-9"}, {"tile": "4-7", "on": "4-4"}]}


def test_programmatic_build_and_with_play():
    lay = Layout.build("6-6", [("6-1", "6-6")], rules="chickie-sixes", set=6, ordered=False)
    lay2 = lay.with_play("6-2", "6-6", seat=1)
    assert lay2.to_dict() == {"rules": "chickie-sixes", "set": 6, "hub": "6-6", "ordered": False,
                              "plays": [{"tile": "1-6", "on": "6-6"},
                                        {"tile": "2-6", "on": "6-6", "seat": 1}]}
    assert Layout.from_json(lay2.to_json()) == lay2


@pytest.mark.parametrize("text, fragment", [
    ("{", "not valid JSON"),
    ("[]", "must be a JSON object"),
    ('{"plays": []}', "no \"hub\""),
    ('{"hub": "9-9", "plays": {}}', "\"plays\" must be a list"),
    ('{"hub": "9-9", "plays": [{"tile": "9-4"}]}', "plays[0] must be an object"),
    ('{"hub": "9-9", "plays": [{"tile": "9/", "on": "9-9"}]}', "plays[0].tile: cannot read"),
    ('{"hub": 99}', "hub must be a tile"),
    ('{"hub": "9-9", "set": 10}', "\"set\" must be one of"),
    ('{"hub": "9-9", "ordered": "no"}', "\"ordered\" must be true or false"),
])
def test_bad_files_raise_layout_errors(text: str, fragment: str):
    with pytest.raises(LayoutError) as err:
        Layout.from_json(text)
    assert fragment in str(err.value)


def test_missing_file_and_folder(tmp_path: Path):
    with pytest.raises(LayoutError, match="does not exist"):
        Layout.load(tmp_path / "nope.json")
    with pytest.raises(LayoutError, match="is a folder"):
        Layout.load(tmp_path)


def test_hub_must_be_a_double_in_the_set():
    with pytest.raises(LayoutError, match="must be a double"):
        check_layout(layout([], hub="9-8"))
    with pytest.raises(TileNotInSetError):
        check_layout(layout([], hub="12-12", rules="gameweave"))


def test_set_from_rules_and_tiles():
    assert check_layout(layout([])).set == 9
    assert check_layout(layout([], hub="12-12")).set == 12  # double-chicken-foot: d12 for 7-8
    assert check_layout(layout([], hub="9-9", set=12)).set == 12
    assert check_layout(layout([]), get_rules("chickie-sixes").with_options(set=9)).set == 9
    assert check_layout(layout([], rules="chickie-sixes", hub="6-6")).set == 6
