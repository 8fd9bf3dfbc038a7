"""The round engine, hand-written: each seed's special rules on known deals."""

from __future__ import annotations

import random

import pytest

from chickenfoot.rules import (
    DRAW,
    PASS,
    IllegalPlayError,
    InputError,
    Play,
    RuleSet,
    Tile,
    deal_round,
    full_set,
    get_rules,
    make_bot,
    new_round,
    play_out,
)
from chickenfoot.rules.engine import BLOCKED, DEAD_FOOT, OUT


def T(s: str) -> Tile:
    return Tile.parse(s)


def deal(rules: RuleSet, hands: list[list[str]], yard_head: list[str] = (), round_index: int = 0,
         round_double: int | None = None):
    """A known deal: the given hands, the boneyard drawing ``yard_head`` first, then the rest."""
    players = len(hands)
    top = rules.set_for(players)
    d = round_double if round_double is not None else rules.round_doubles(players)[round_index]
    used = {T(t) for h in hands for t in h} | {T(t) for t in yard_head}
    centre = {Tile(d, d)} if rules.start.value == "centre" else set()
    rest = [str(t) for t in full_set(top) if t not in used and t not in centre]
    return deal_round(rules, round_index, hands, [*yard_head, *rest], round_double=round_double)


def play(state, tile: str, on: str) -> None:
    t, o = T(tile), T(on)
    state.apply(Play(t, o, t.other(state.table.value[o])))


# ---------------------------------------------------------------- seed 000: centre start
def test_double_chicken_foot_centre_start_and_deal_sizes():
    r = get_rules("double-chicken-foot")
    s = new_round(r, 4, 0, random.Random(1))
    assert s.hub == Tile(9, 9) and s.placed_by is None and s.setup == []
    assert [len(h) for h in s.hands] == [11] * 4 and len(s.boneyard) == 55 - 1 - 44
    assert all(Tile(9, 9) not in h for h in s.hands)
    two = new_round(r, 2, 3, random.Random(1))
    assert [len(h) for h in two.hands] == [20, 20] and two.hub == Tile(6, 6)
    eight = new_round(r, 8, 0, random.Random(1))
    assert eight.top == 12 and eight.hub == Tile(12, 12) and [len(h) for h in eight.hands] == [9] * 8


def test_first_turn_moves_one_seat_each_round():
    r = get_rules("double-chicken-foot")
    firsts = [new_round(r, 3, k, random.Random(k)).first_player for k in range(10)]
    assert firsts == [0, 1, 2, 0, 1, 2, 0, 1, 2, 0]


def test_six_spokes_before_anything_else():
    r = get_rules("double-chicken-foot")
    s = new_round(r, 4, 0, random.Random(5))
    bots = [make_bot("random", random.Random(i)) for i in range(4)]
    seen_other = False
    while not s.terminal:
        legal = s.legal_actions()
        plays = [a for a in legal if isinstance(a, Play)]
        if len(s.table.kids[s.hub]) < 6:
            assert all(p.target == s.hub for p in plays)
        elif any(p.target != s.hub for p in plays):
            seen_other = True
        s.apply(bots[s.current].choose(s, legal))
    assert seen_other and len(s.table.kids[s.hub]) == 6


# --------------------------------------------------------- seed 001: holder plays it
def test_gameweave_holder_places_and_the_next_player_starts():
    r = get_rules("gameweave")
    s = deal(r, [["1-2", "3-4"], ["9-9", "9-1"], ["9-2", "0-0"]])
    assert s.hub == Tile(9, 9) and s.placed_by == 1 and s.first_player == 2 and s.current == 2
    assert s.setup == [("place", 1, Tile(9, 9), None)]
    assert Tile(9, 9) not in s.hands[1]


def test_gameweave_draw_until_found_in_turn_from_the_rotating_seat():
    r = get_rules("gameweave")
    # Round 3 (7-7), three players: drawing starts at seat 2 and goes round.
    s = deal(r, [["1-2"], ["3-4"], ["5-6"]], ["0-1", "6-6", "2-3", "7-7", "1-1"], round_index=2)
    drawn = [(e[1], str(e[2])) for e in s.setup if e[0] == "draw"]
    assert drawn == [(2, "0-1"), (0, "6-6"), (1, "2-3"), (2, "7-7")]
    assert s.hub == Tile(7, 7) and s.placed_by == 2 and s.first_player == 0
    assert s.hands[0] == [Tile(1, 2), Tile(6, 6)] and s.boneyard[-1] == Tile(1, 1)


def test_draw_policies_may_must_and_until_playable():
    base = get_rules("gameweave")
    hands = [["9-9", "0-0"], ["1-2", "3-4"], ["5-5", "0-1"]]
    yard = ["5-6", "9-8", "2-2"]
    may = deal(base, hands, yard)
    assert may.current == 1 and may.legal_actions() == [DRAW]
    may.apply(DRAW)
    assert may.legal_actions() == [PASS]  # 5-6 does not fit: the turn ends
    may.apply(PASS)
    assert may.current == 2 and may.legal_actions() == [DRAW]
    may.apply(DRAW)  # 9-8 fits: may play it, or pass
    assert may.legal_actions() == [Play(T("9-8"), T("9-9"), 8), PASS]

    must = deal(base.with_options(draw="must-play"), hands, ["9-8", "5-6"])
    must.apply(DRAW)
    assert must.legal_actions() == [Play(T("9-8"), T("9-9"), 8)]
    with pytest.raises(IllegalPlayError):
        must.apply(PASS)

    until = deal(base.with_options(draw="draw-until-playable"), hands, yard)
    until.apply(DRAW)
    assert until.legal_actions() == [DRAW] and until.current == 1
    until.apply(DRAW)
    assert until.legal_actions() == [Play(T("9-8"), T("9-9"), 8)]
    until.apply(until.legal_actions()[0])
    assert until.current == 2 and until.hands[1] == [T("1-2"), T("3-4"), T("5-6")]
    assert [e[0] for e in until.history] == ["draw", "draw", "play"]


def test_a_player_who_can_play_must_play():
    s = deal(get_rules("gameweave"), [["9-9", "0-0"], ["9-1", "3-4"], ["5-5", "0-1"]])
    assert s.legal_actions() == [Play(T("9-1"), T("9-9"), 1)]
    with pytest.raises(IllegalPlayError) as err:
        s.apply(DRAW)
    assert err.value.reason == "illegal-action"


# --------------------------------------------------------- seed 002: four spokes
def test_pagat_plus_sign_then_free_play_and_finder_starts_round_one():
    r = get_rules("pagat")
    s = deal(r, [["1-2"], ["3-4"]], ["0-5", "9-9"])  # nobody holds 9-9
    assert [e[:2] for e in s.setup] == [("draw", 0), ("draw", 1), ("place", 1)]
    assert s.placed_by == 1 and s.first_player == 0
    assert s.table.spokes == 4


# --------------------------------------------------------- seed 003: Chickie Sixes
CHICKIE = get_rules("chickie-sixes")


def test_chickie_next_highest_held_double_starts():
    s = deal(CHICKIE, [["4-4", "1-2"], ["2-2", "3-5"]])
    assert s.round_double == 6 and s.hub == Tile(4, 4) and s.placed_by == 0 and s.first_player == 1
    assert s.setup == [("place", 0, Tile(4, 4), None)]
    assert s.to_dict()["round_double"] == "6-6" and s.to_dict()["hub"] == "4-4"
    # A double above the round's is not usable: round 2 (5-5) with the 6-6 held.
    s = deal(CHICKIE, [["6-6", "1-2"], ["2-2", "3-5"]], round_index=1)
    assert s.hub == Tile(2, 2) and s.placed_by == 1


def test_chickie_no_double_held_draw_until_a_usable_one():
    s = deal(CHICKIE, [["0-1", "1-2"], ["2-3", "3-5"]], ["0-2", "3-3", "6-6"])
    assert [(e[0], e[1], str(e[2])) for e in s.setup] == [
        ("draw", 0, "0-2"), ("draw", 1, "3-3"), ("place", 1, "3-3")]
    assert s.hub == Tile(3, 3) and s.first_player == 0


def test_skip_variant_uses_the_next_lower_held_double_or_draws_for_the_round_double():
    skip = CHICKIE.with_options(missing_double="skip")
    s = deal(skip, [["4-4", "1-2"], ["2-2", "3-5"]])
    assert s.hub == Tile(4, 4)
    s = deal(skip, [["0-1", "1-2"], ["2-3", "3-5"]], ["3-3", "0-2", "6-6"])
    assert s.hub == Tile(6, 6) and s.placed_by == 0
    assert [str(e[2]) for e in s.setup if e[0] == "draw"] == ["3-3", "0-2", "6-6"]
    strict = CHICKIE.with_options(missing_double="draw-until-found")
    s = deal(strict, [["4-4", "1-2"], ["2-2", "3-5"]], ["6-6"])
    assert s.hub == Tile(6, 6) and s.placed_by == 0 and s.hands[0] == [T("4-4"), T("1-2")]


DEAD_HANDS = [["6-6", "6-2", "6-4", "2-1", "4-1", "0-0"], ["6-1", "6-3", "1-0", "3-1", "1-1", "5-5"]]
DEAD_PLAYS = [("6-1", "6-6"), ("6-2", "6-6"), ("6-3", "6-6"), ("6-4", "6-6"), ("1-0", "6-1"),
              ("2-1", "6-2"), ("3-1", "6-3"), ("4-1", "6-4"), ("1-1", "2-1")]


def test_chickie_round_ends_when_the_open_foot_cannot_be_completed():
    s = deal(CHICKIE, DEAD_HANDS)
    for t, on in DEAD_PLAYS:
        assert not s.terminal
        play(s, t, on)
    # Only 1-5 still shows a 1 off the table: the 1-1 can never get its 3 toes.
    assert s.outcome == DEAD_FOOT and s.to_dict()["dead_foot"] == "1-1"
    assert s.penalties() == [0, 10]  # 0-0 counts its dots in Chickie Sixes
    assert CHICKIE.with_options(zero_zero=25).penalty(s.hands[0]) == 25
    # Without the rule the round goes on.
    s = deal(CHICKIE.with_options(end_when_foot_dead=False), DEAD_HANDS)
    for t, on in DEAD_PLAYS:
        play(s, t, on)
    assert not s.terminal and s.table.open_foot == Tile(1, 1)


def test_going_out_ends_the_round_with_zero():
    s = deal(CHICKIE, [["6-6", "6-2", "6-4", "3-3"], ["6-1", "6-3"]])
    play(s, "6-1", "6-6")
    play(s, "6-2", "6-6")
    play(s, "6-3", "6-6")
    assert s.outcome == OUT and s.out == 1 and s.penalties() == [10 + 6, 0]
    assert s.legal_actions() == []
    with pytest.raises(IllegalPlayError):
        s.apply(DRAW)


# ------------------------------------------------------------------- blocked rounds
def test_blocked_round_is_boneyard_empty_and_everyone_passing():
    r = get_rules("double-chicken-foot")
    for seed in range(200):
        s = play_out(new_round(r, 4, 0, random.Random(seed)),
                     [make_bot("random", random.Random(seed + i)) for i in range(4)])
        if s.outcome == BLOCKED:
            break
    else:
        pytest.fail("no blocked round in 200 seeds")
    assert s.boneyard == []
    assert [e[0] for e in s.history[-4:]] == ["pass"] * 4
    assert not any(s.table.judge(t, on).legal for h in s.hands for t in h for on in s.table.tiles())
    assert s.penalties() == [r.penalty(h) for h in s.hands]


# ---------------------------------------------------------------- OpenSpiel hygiene
def test_child_leaves_the_state_alone_and_same_seed_same_round():
    r = get_rules("double-chicken-foot")
    a = new_round(r, 4, 0, random.Random(42))
    b = new_round(r, 4, 0, random.Random(42))
    assert a.to_dict() == b.to_dict()
    before = a.to_dict()
    c = a.child(a.legal_actions()[0])
    assert a.to_dict() == before and len(c.table) == 2
    assert c.clone().to_dict() == c.to_dict()


def test_illegal_plays_carry_reason_codes():
    s = deal(get_rules("gameweave"), [["9-9", "0-0"], ["9-1", "3-4"], ["5-5", "0-1"]])
    with pytest.raises(IllegalPlayError) as err:
        s.apply(Play(T("0-1"), T("9-9"), 0))
    assert err.value.reason == "not-in-hand"
    with pytest.raises(IllegalPlayError) as err:
        s.apply(Play(T("3-4"), T("9-9"), 3))
    assert err.value.reason == "no-match"
    with pytest.raises(IllegalPlayError) as err:
        s.apply(Play(T("3-4"), T("7-7"), 3))
    assert err.value.reason == "unknown-target"


def test_bad_deals_are_input_errors():
    r = get_rules("gameweave")
    with pytest.raises(InputError, match="exactly once"):
        deal_round(r, 0, [["9-9"], ["1-2"]], [])
    with pytest.raises(InputError, match="not in a double-9 set"):
        deal_round(r, 0, [["9-10"], ["1-2"]], [])
    with pytest.raises(InputError, match="outside this match"):
        new_round(r, 2, 10, random.Random(0))


def test_observation_hides_other_hands():
    s = new_round(get_rules("pagat"), 4, 0, random.Random(3))
    obs = s.observation(2)
    assert obs["hand"] == [str(t) for t in s.hands[2]]
    assert obs["hand_sizes"] == [len(h) for h in s.hands] and obs["boneyard"] == len(s.boneyard)
    assert "hands" not in obs and obs["layout"]["hub"] == str(s.hub)


def test_apply_accepts_a_tile_and_target_pair():
    s = deal(get_rules("gameweave"), [["9-9", "0-0"], ["9-1", "3-4"], ["5-5", "0-1"]])
    s.apply(("1-9", "9-9"))
    assert s.plays() == [(1, T("1-9"), T("9-9"))] and s.current == 2
    assert s.layout().to_dict()["plays"] == [{"tile": "1-9", "on": "9-9", "seat": 1}]
