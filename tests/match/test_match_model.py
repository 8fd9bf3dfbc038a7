"""The match model: round sequences, first player, penalties, standings, end, tie-breaks."""

from __future__ import annotations

import pytest

from chickenfoot.match import (
    Match,
    MatchDataError,
    MatchStateError,
    PlayerError,
    RoundError,
)
from chickenfoot.rules import PlayerCountError, get_rules

NAMES = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]


def new(n: int, preset: str = "double-chicken-foot", **options: object) -> Match:
    return Match.new(NAMES[:n], get_rules(preset, options or None))


def blocked_round(m: Match, points: list[int] | None = None) -> Match:
    pts = points or [1] * m.seats
    return m.add_round(penalties=dict(zip(m.players, pts, strict=True)), blocked=True)


def play_out(m: Match) -> Match:
    while not m.is_over:
        m = blocked_round(m)
    return m


# --------------------------------------------------------------------- round sequences
@pytest.mark.parametrize(("n", "deal"), [(2, 20), (3, 14), (4, 11), (5, 9), (6, 7)])
def test_double_chicken_foot_d9_for_2_to_6(n: int, deal: int) -> None:
    m = new(n)
    assert m.set_top == 9
    assert m.deal_size == deal
    seen = []
    while not m.is_over:
        seen.append(m.current_double)
        m = blocked_round(m)
    assert seen == [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]
    assert [r.double for r in m.rounds] == seen
    assert m.status == "finished" and m.current_double is None


@pytest.mark.parametrize(("n", "deal"), [(7, 10), (8, 9)])
def test_double_chicken_foot_d12_for_7_and_8(n: int, deal: int) -> None:
    m = play_out(new(n))
    assert m.set_top == 12 and m.deal_size == deal
    assert [r.double for r in m.rounds] == list(range(12, -1, -1))
    assert len(m.rounds) == 13


def test_chickie_sixes_seven_rounds_of_five_tiles() -> None:
    m = new(2, "chickie-sixes")
    assert (m.set_top, m.deal_size) == (6, 5)
    m = play_out(m)
    assert [r.double for r in m.rounds] == [6, 5, 4, 3, 2, 1, 0]


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_gameweave_ten_rounds_of_seven(n: int) -> None:
    m = play_out(new(n, "gameweave"))
    assert m.deal_size == 7 and len(m.rounds) == 10


def test_pagat_uses_d12_for_eight() -> None:
    assert len(play_out(new(7, "pagat")).rounds) == 10
    assert len(play_out(new(8, "pagat")).rounds) == 13


def test_half_and_single_match_lengths() -> None:
    assert len(play_out(new(4, match_length="half")).rounds) == 5
    assert len(play_out(new(4, match_length="single")).rounds) == 1
    assert [r.double for r in play_out(new(3, start_double=5)).rounds] == [5, 4, 3, 2, 1, 0]


def test_player_count_outside_rules_is_refused() -> None:
    with pytest.raises(PlayerCountError):
        new(3, "chickie-sixes")
    with pytest.raises(PlayerCountError):
        new(7, "gameweave")


# ----------------------------------------------------------------------- first player
@pytest.mark.parametrize("n", [2, 4, 7])
def test_rotating_first_player_moves_one_seat_each_round(n: int) -> None:
    m = new(n)
    firsts = []
    while not m.is_over:
        firsts.append(m.first_player)
        m = blocked_round(m)
    assert firsts == [m.players[k % n] for k in range(len(m.rounds))]


@pytest.mark.parametrize("preset", ["gameweave", "pagat", "chickie-sixes"])
def test_after_holder_first_player_is_seat_after_holder(preset: str) -> None:
    m = new(2, preset)
    assert m.first_player is None  # not known until someone places the double
    assert "after whoever places" in m.first_player_rule()
    m = m.set_holder("Bob")
    assert m.first_player == "Ann"  # seat after the last seat wraps round
    m = m.add_round(penalties={"Bob": 4}, out="Ann")
    assert m.rounds[0].holder == 1 and m.first_seat(0) == 0
    assert m.pending_holder is None and m.first_player is None
    m = m.add_round(penalties={"Ann": 3}, out="Bob", holder="Ann")
    assert m.first_seat(1) == 1


def test_missing_double_policy_is_described() -> None:
    assert "centre" in new(3).missing_double_rule()
    assert "draw one tile" in new(3, "gameweave").missing_double_rule()
    assert "next-highest" in new(2, "chickie-sixes").missing_double_rule()


def test_started_with_only_where_rules_allow() -> None:
    m = new(2, "chickie-sixes").add_round(penalties={"Ann": 5}, out="Bob", holder="Ann",
                                           started_with="5-5")
    assert m.rounds[0].started_with == 5 and m.rounds[0].double == 6
    with pytest.raises(RoundError, match="own double"):
        new(3, "gameweave").add_round(penalties={"Ann": 5, "Bob": 1}, out="Cy", started_with=8)
    with pytest.raises(RoundError, match="below"):
        new(2, "chickie-sixes").add_round(penalties={"Ann": 5}, out="Bob", started_with=6)


# -------------------------------------------------------------------------- penalties
@pytest.mark.parametrize(("zz", "expected"), [(50, 53), (25, 28), (0, 3)])
def test_double_blank_counts_per_rules(zz: int, expected: int) -> None:
    m = new(3, zero_zero=zz).add_round(tiles={"Ann": "0-0,1-2", "Bob": "4-5"}, out="Cy")
    assert m.rounds[0].penalties == (expected, 9, 0)
    assert [str(t) for t in m.rounds[0].tiles[0]] == ["0-0", "1-2"]


def test_rules_copy_keeps_old_scoring() -> None:
    m = new(3, zero_zero=25).add_round(tiles={"Ann": "0-0"}, penalties={"Bob": 3}, out="Cy")
    back = Match.from_dict(m.to_dict())
    assert back.rules.zero_zero == 25 and back.totals() == [25, 3, 0]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"penalties": {"Ann": 3, "Bob": 2, "Cy": 1}, "out": "Cy"}, "went out"),
        ({"penalties": {"Ann": 3}, "tiles": {"Cy": "1-2"}, "out": "Cy"}, "went out"),
        ({"tiles": {"Ann": "1-2", "Bob": "2-1"}, "out": "Cy"}, "both Ann's and Bob's"),
        ({"tiles": {"Ann": "1-2,1-2", "Bob": "3-3"}, "out": "Cy"}, "twice"),
        ({"tiles": {"Ann": "1-10", "Bob": "3-3"}, "out": "Cy"}, "not in a double-9"),
        ({"penalties": {"Ann": -1, "Bob": 2}, "out": "Cy"}, "0 or more"),
        ({"penalties": {"Ann": True, "Bob": 2}, "out": "Cy"}, "0 or more"),
        ({"penalties": {"Ann": 2.5, "Bob": 2}, "out": "Cy"}, "0 or more"),
        ({"penalties": {"Ann": 9999, "Bob": 2}, "out": "Cy"}, "whole double-9"),
        ({"penalties": {"Ann": 3}, "out": "Cy"}, "no result for Bob"),
        ({"penalties": {"Ann": 3, "Bob": 1}}, "went out, or that the round was blocked"),
        ({"penalties": {"Ann": 3, "Bob": 1}, "out": "Cy", "blocked": True}, "one of the two"),
        ({"penalties": {"Ann": 3}, "tiles": {"Ann": "1-2"}, "out": "Cy"}, "both a penalty"),
        ({"tiles": {"Ann": "9-9", "Bob": "1-1"}, "out": "Cy"}, "9-9 opened the round"),
    ],
)
def test_invalid_rounds_are_refused(kwargs: dict, message: str) -> None:
    m = new(3)
    with pytest.raises(RoundError, match=message):
        m.add_round(**kwargs)


def test_unknown_and_duplicate_players() -> None:
    with pytest.raises(PlayerError, match="not playing"):
        new(3).add_round(penalties={"Zed": 1, "Bob": 2}, out="Ann")
    with pytest.raises(PlayerError, match="twice"):
        Match.new(["Ann", "ann"], get_rules())
    with pytest.raises(PlayerError, match="cannot contain"):
        Match.new(["Ann", "B=b"], get_rules())
    assert new(3).seat_of(" bob ") == 1


def test_out_player_may_be_given_zero_explicitly_and_names_any_case() -> None:
    m = new(3).add_round(penalties={"ann": 4, "BOB": 0, "Cy": 0}, out="cy")
    assert m.rounds[0].penalties == (4, 0, 0) and m.rounds[0].out == 2


# ----------------------------------------------------------------------- standings, end
def test_standings_totals_rank_leader_rounds_won_zero_rounds() -> None:
    m = new(3)
    m = m.add_round(penalties={"Ann": 10, "Bob": 0}, out="Cy")
    m = m.add_round(penalties={"Bob": 5, "Cy": 10}, out="Ann")
    s = {x.player: x for x in m.standings()}
    assert (s["Ann"].total, s["Bob"].total, s["Cy"].total) == (10, 5, 10)
    assert (s["Bob"].rank, s["Ann"].rank, s["Cy"].rank) == (1, 2, 2)
    assert s["Bob"].leader and not s["Ann"].leader
    assert (s["Ann"].rounds_won, s["Cy"].rounds_won, s["Bob"].rounds_won) == (1, 1, 0)
    assert s["Bob"].zero_rounds == 1 and s["Ann"].zero_rounds == 1
    assert [x.total for x in m.standings(after=1)] == [10, 0, 0]
    assert m.leaders() == ["Bob"]


def test_target_total_ends_match_and_that_player_loses() -> None:
    m = new(3, loss_total=100)
    m = blocked_round(m, [40, 30, 20])
    m = blocked_round(m, [61, 10, 10])  # Ann reaches 101: passes 100
    assert m.is_over and m.status == "finished" and len(m.rounds) == 2
    out = m.outcome()
    assert out is not None
    assert out.losers == ("Ann",) and out.winners == ("Cy",) and "passed 100" in out.reason
    with pytest.raises(MatchStateError, match="over"):
        blocked_round(m)


def test_reaching_exactly_the_target_does_not_end() -> None:
    m = blocked_round(new(2, loss_total=50), [50, 0])
    assert not m.is_over


def test_draw_tie_break() -> None:
    m = new(2)
    m = play_out(m)  # everyone 1 point each round
    out = m.outcome()
    assert out is not None and out.draw and set(out.winners) == {"Ann", "Bob"}


def test_none_tie_break_shares_first_place() -> None:
    out = play_out(new(2, "gameweave")).outcome()
    assert out is not None and not out.draw and out.winners == ("Ann", "Bob")
    assert "share" in out.reason


def test_zero_rounds_tie_break_most_zero_rounds_then_lowest_nonzero() -> None:
    # Ann: 0 + 20; Bob: 10 + 10 -> equal totals; Ann has a zero round and wins.
    m = new(2, "pagat", match_length="single", start_double=1)  # two rounds: 1-1 and 0-0
    assert m.planned_rounds == 1
    m = new(2, "pagat", start_double=1)
    m = m.add_round(penalties={"Bob": 10}, out="Ann")
    m = m.add_round(penalties={"Ann": 20, "Bob": 10}, blocked=True)
    assert m.outcome().winners == ("Ann",)  # type: ignore[union-attr]
    assert [s.rank for s in m.standings()] == [1, 2]
    # Equal totals and equal zero rounds: the lowest non-zero round decides.
    m = new(2, "pagat", start_double=1)
    m = m.add_round(penalties={"Ann": 2, "Bob": 5}, blocked=True)
    m = m.add_round(penalties={"Ann": 8, "Bob": 5}, blocked=True)
    assert m.outcome().winners == ("Ann",)  # type: ignore[union-attr]
    # Equal on every criterion the seed names: a draw (decided by the rules core, as in simulation).
    m = new(2, "pagat", start_double=1)
    m = m.add_round(penalties={"Ann": 5, "Bob": 5}, blocked=True)
    m = m.add_round(penalties={"Ann": 5, "Bob": 5}, blocked=True)
    out = m.outcome()
    assert out is not None and out.winners == ("Ann", "Bob") and out.draw


# ------------------------------------------------------------------ edits, undo, redo
def test_edit_that_changes_the_winner() -> None:
    m = new(3, match_length="half")  # 5 rounds
    for _ in range(5):
        m = m.add_round(penalties={"Bob": 5, "Cy": 9}, out="Ann")
    assert m.winners == ["Ann"]
    m = m.edit_round(2, penalties={"Ann": 60}, out="Bob")  # Ann now caught with 60
    assert m.rounds[1].penalties == (60, 0, 9)
    assert m.winners == ["Bob"]
    assert m.undo().winners == ["Ann"]


def test_edit_changing_who_went_out_needs_the_old_winner_result() -> None:
    m = new(3).add_round(penalties={"Bob": 5, "Cy": 9}, out="Ann")
    with pytest.raises(RoundError, match="give their penalty"):
        m.edit_round(1, out="Bob")
    with pytest.raises(RoundError, match="no round 2"):
        m.edit_round(2, penalties={"Ann": 1})
    with pytest.raises(RoundError, match="nothing changed"):
        m.edit_round(1, penalties={"Bob": 5})


def test_edit_keeps_tiles_of_untouched_players_and_revalidates() -> None:
    m = new(3).add_round(tiles={"Bob": "1-2", "Cy": "3-4"}, out="Ann")
    m2 = m.edit_round(1, tiles={"Cy": "3-5"})
    assert [str(t) for t in m2.rounds[0].tiles[1]] == ["1-2"]
    assert m2.rounds[0].penalties == (0, 3, 8)
    with pytest.raises(RoundError, match="both"):
        m.edit_round(1, tiles={"Cy": "1-2"})


def test_edit_that_would_end_the_match_early_is_refused() -> None:
    m = new(2, loss_total=100)
    m = blocked_round(m, [10, 10])
    m = blocked_round(m, [10, 10])
    with pytest.raises(RoundError, match="delete the later rounds"):
        m.edit_round(1, penalties={"Ann": 101})


def test_undo_redo_every_change_back_and_forth() -> None:
    m0 = new(3, "gameweave")
    states = [m0]
    m = m0.set_holder("Cy")
    states.append(m)
    m = m.add_round(penalties={"Ann": 3, "Bob": 7}, out="Cy")
    states.append(m)
    m = m.add_round(tiles={"Ann": "0-0", "Cy": "1-2"}, out="Bob", holder="Ann")
    states.append(m)
    m = m.edit_round(1, penalties={"Bob": 12})
    states.append(m)
    m = m.delete_last_round()
    states.append(m)
    m = m.abandon()
    states.append(m)
    m = m.resume()
    states.append(m)
    assert m.revision == len(states) - 1
    # Undo everything, checking each earlier state; then redo everything.
    for expected in reversed(states[:-1]):
        m = m.undo()
        assert (m.rounds, m.abandoned, m.pending_holder) == (
            expected.rounds, expected.abandoned, expected.pending_holder)
    with pytest.raises(MatchStateError, match="nothing to undo"):
        m.undo()
    for expected in states[1:]:
        m = m.redo()
        assert (m.rounds, m.abandoned, m.pending_holder) == (
            expected.rounds, expected.abandoned, expected.pending_holder)
    with pytest.raises(MatchStateError, match="nothing to redo"):
        m.redo()


def test_a_new_change_clears_redo() -> None:
    m = blocked_round(blocked_round(new(2))).undo()
    assert m.can_redo
    m = blocked_round(m, [3, 3])
    assert not m.can_redo and m.undo_log[-1]["label"] == "round 2 added"


def test_abandon_and_resume() -> None:
    m = blocked_round(new(2)).abandon()
    assert m.status == "abandoned" and m.outcome() is None
    with pytest.raises(MatchStateError, match="abandoned"):
        blocked_round(m)
    m = m.resume()
    assert m.status == "active"
    with pytest.raises(MatchStateError, match="over"):
        play_out(m).abandon()


def test_delete_last_round() -> None:
    m = blocked_round(blocked_round(new(2), [1, 2]), [3, 4]).delete_last_round()
    assert m.totals() == [1, 2]
    with pytest.raises(MatchStateError):
        new(2).delete_last_round()


# ------------------------------------------------------------------------- round trip
def test_to_dict_from_dict_is_lossless_including_undo() -> None:
    m = new(4, "pagat").set_holder("Di")
    m = m.add_round(tiles={"Ann": "0-0,2-3", "Bob": "1-1"}, penalties={"Cy": 7}, out="Di")
    m = m.edit_round(1, penalties={"Bob": 4}).undo()
    back = Match.from_dict(m.to_dict())
    assert back == m
    assert back.redo() == m.redo()


def test_from_dict_rejects_tampered_rounds() -> None:
    m = new(3).add_round(tiles={"Ann": "1-2", "Bob": "3-4"}, out="Cy")
    d = m.to_dict()
    d["rounds"][0]["penalties"][0] = 99  # no longer what Ann's tiles are worth
    with pytest.raises(MatchDataError, match="worth"):
        Match.from_dict(d)
    d = m.to_dict()
    d["rounds"][0]["double"] = 4
    with pytest.raises(MatchDataError, match="starts from 9-9"):
        Match.from_dict(d)
    d = m.to_dict()
    del d["players"]
    with pytest.raises(MatchDataError):
        Match.from_dict(d)
    d = m.to_dict()
    d["rules"]["zero_zero"] = 7
    with pytest.raises(MatchDataError):
        Match.from_dict(d)


def test_from_dict_rejects_a_player_count_the_rules_cannot_seat() -> None:
    d = new(2, "chickie-sixes").to_dict()
    d["players"] = ["Ann", "Bob", "Cy"]
    with pytest.raises(MatchDataError, match="is for 2 players, not 3"):
        Match.from_dict(d)


def test_rename_a_player_keeps_rounds_by_seat_and_is_no_undo_step():
    from chickenfoot.match import MatchStateError, PlayerError

    m = Match.new(["Ann", "Bob", "Cy"], get_rules("double-chicken-foot"))
    m = m.add_round(penalties={"Bob": 4, "Cy": 5}, out="Ann")
    r = m.rename_player("bob", "  Robert ")
    assert r.players == ("Ann", "Robert", "Cy") and r.totals() == m.totals()
    assert r.revision == m.revision + 1 and r.undo_log == m.undo_log
    assert r.undo().players == ("Ann", "Robert", "Cy")  # undo takes back the round, not the name
    with pytest.raises(PlayerError, match="listed twice"):
        r.rename_player("Robert", "ann")
    with pytest.raises(PlayerError, match="cannot contain"):
        r.rename_player("Robert", "Rob,ert")
    with pytest.raises(MatchStateError, match="already called that"):
        r.rename_player("Robert", "Robert")
    assert Match.from_dict(r.to_dict()) == r


def test_an_empty_hand_is_only_the_out_players_or_in_a_blocked_round() -> None:
    m = new(3)
    with pytest.raises(RoundError, match="Bob has no tiles left, but Cy went out"):
        m.add_round(tiles={"Ann": "1-2", "Bob": ""}, out="Cy")
    blocked = m.add_round(tiles={"Ann": "1-2", "Bob": ""}, penalties={"Cy": 4}, blocked=True)
    assert blocked.rounds[0].penalties == (3, 0, 4)
    ok = m.add_round(tiles={"Ann": "1-2", "Cy": ""}, penalties={"Bob": 5}, out="Cy")
    assert ok.rounds[0].out == 2


def test_a_penalty_above_what_the_tiles_dealt_can_count_is_named_not_refused() -> None:
    from chickenfoot.match import UnlikelyPenaltyError, check_likely, unlikely_in_round

    m = new(4, "pagat")  # double-9, 7 tiles each: at most 9-9, 8-9, 8-8, 7-9, 7-8, 6-9 and 0-0 (50)
    assert (m.set_top, m.deal_size, m.hand_limit) == (9, 7, 147)
    m2 = m.add_round(penalties={"Ann": 300, "Bob": 147, "Cy": 3}, out="Di")  # the model keeps it
    assert unlikely_in_round(m2, m2.rounds[0]) == [
        "300 points for Ann is more than 7 tiles of a double-9 set can count (at most 147)"]
    assert unlikely_in_round(m2, m2.rounds[0], seats=[1, 2]) == []
    with pytest.raises(UnlikelyPenaltyError, match="300 points for Ann"):
        check_likely(m2, m2.rounds[0])
    tiles = m.add_round(tiles={"Ann": "8-9,8-8,7-9,7-8,6-9,0-0,5-9,6-8"}, penalties={"Bob": 1, "Cy": 2}, out="Di")
    assert unlikely_in_round(tiles, tiles.rounds[0]) == []  # tiles entered one by one are facts


def test_players_level_on_points_are_told_why_one_ranks_above_the_other() -> None:
    m = new(3, "pagat")
    m = m.add_round(penalties={"Bob": 10, "Cy": 30}, out="Ann")
    assert m.tie_notes() == {}
    m = m.add_round(penalties={"Ann": 10, "Cy": 4}, out="Bob")
    ann, bob = m.standings()[:2]
    assert ann.total == bob.total == 10 and ann.rank == bob.rank == 1  # level on every count so far
    assert m.tie_notes() == {}
    m = m.add_round(penalties={"Ann": 6, "Bob": 2}, out="Cy")
    # Ann 16 with one round at 0 and a best round of 6; Bob 12
    m = m.add_round(penalties={"Bob": 4, "Cy": 1}, out="Ann")
    ann, bob, _ = m.standings()
    assert ann.total == bob.total == 16 and ann.rank == 1 and bob.rank == 2
    assert m.tie_notes() == {"Ann": "level with Bob on 16, ahead on more rounds scored 0 (2 to 1)"}
    assert m.tie_notes(after=1) == {}
