"""A practice round against bots: seeded deals, bots in between, refusals with the rules
core's reasons, the end scored by the scorekeeper, again, and on as a match."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chickenfoot.practice import Practice, seats_for
from chickenfoot.rules import PRESETS, IllegalPlayError, InputError, Tile, get_rules
from chickenfoot.rules.engine import DRAW, PASS
from chickenfoot.rules.plays import Play


def play_round(p: Practice, rng: random.Random) -> Practice:
    """A person who plays a random legal move every turn."""
    while not p.over:
        options = [*p.hint(), *([DRAW] if p.can_draw else []), *([PASS] if p.can_pass else [])]
        move = options[rng.randrange(len(options))]
        if isinstance(move, Play):
            p.play(move.tile, move.target)
        elif move == DRAW:
            p.draw()
        else:
            p.pass_turn()
    return p


def snapshot(p: Practice) -> tuple:
    s = p.state
    return (tuple(map(tuple, s.hands)), tuple(s.boneyard), len(s.history), s.current, s.drew, len(p.events))


def test_same_seed_same_round():
    a = Practice.new(get_rules("pagat"), 4, seed=11)
    b = Practice.new(get_rules("pagat"), 4, seed=11)
    assert [e.text for e in a.events] == [e.text for e in b.events] and a.hand() == b.hand()
    assert a.waiting or a.over
    assert all(e.seat != 0 or e.kind != "draw" or e.tile is not None for e in a.events)  # your draws shown
    assert all(e.tile is None for e in a.events if e.kind == "draw" and e.seat != 0)  # bots' draws hidden


def test_refusals_carry_the_rules_core_reason_and_change_nothing():
    p = Practice.new(get_rules("pagat"), 4, seed=3)  # seat 0 holds no 9 while the hub needs a spoke
    assert p.waiting and not p.hint() and p.can_draw and not p.can_pass
    before = snapshot(p)
    cases = [
        (lambda: p.play("4-7", "9-9"), "not-in-hand"),
        (lambda: p.play("0-2", "9-0"), "hub-incomplete"),
        (lambda: p.play("0-2", "7-7"), "unknown-target"),
        (lambda: p.pass_turn(), "must-draw"),
    ]
    for act, code in cases:
        with pytest.raises(IllegalPlayError) as exc:
            act()
        assert exc.value.reason == code and str(exc.value)
        assert snapshot(p) == before
    assert _message(lambda: p.play("0-2", "9-0")) == "The 9-9 still needs 2 more spokes before anything else."


def _message(act) -> str:
    with pytest.raises(IllegalPlayError) as exc:
        act()
    return str(exc.value)


def test_a_drawn_tile_is_the_only_one_playable_and_you_cannot_draw_with_a_play():
    for seed in range(200):
        p = Practice.new(get_rules("double-chicken-foot"), 3, seed=seed)
        while p.waiting and not p.can_draw:
            h = p.hint()
            if h:
                with pytest.raises(IllegalPlayError) as exc:
                    p.draw()
                assert exc.value.reason == "has-play"
                p.play(h[0].tile, h[0].target)
            else:
                p.pass_turn()
        if not p.waiting:
            continue
        p.draw()
        if p.drawn is not None and p.hint():
            other = next((t for t in p.hand() if t != p.drawn), None)
            if other is not None:
                with pytest.raises(IllegalPlayError) as exc:
                    p.play(other, p.hint()[0].target)
                assert exc.value.reason == "only-drawn-tile"
                assert p.hint() and all(h.tile == p.drawn for h in p.hint())
                return
    raise AssertionError("no seed drew a tile that fits")  # pragma: no cover


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(PRESETS)), st.integers(0, 2**32), st.data())
def test_any_round_plays_to_its_end_and_is_scored_by_the_scorekeeper(name: str, seed: int, data):
    rules = get_rules(name)
    players = data.draw(st.integers(rules.min_players, rules.max_players))
    people = data.draw(st.sets(st.integers(0, players - 1), min_size=1))
    bot = data.draw(st.sampled_from(["random", "greedy", "lookahead"]))
    p = Practice.new(rules, players, bots=[s for s in range(players) if s not in people], bot=bot, seed=seed)
    play_round(p, random.Random(seed))
    s = p.state
    assert p.penalties() == s.penalties()  # the match's scorer agrees with the engine's hands
    m = p.scored()
    assert len(m.rounds) == 1 and m.totals() == s.penalties()
    assert sum(e.kind == "play" for e in p.events) == len(s.table) - 1
    assert p.events[-1].kind == "end"
    assert p.to_dict()["penalties"] == s.penalties()


def test_continue_as_a_match_then_play_again():
    rules = get_rules("double-chicken-foot", {"match_length": "half"})
    p = Practice.new(rules, 3, seed=5)
    rng = random.Random(5)
    hubs = []
    while True:
        play_round(p, rng)
        hubs.append(p.state.round_double)
        if p.scored().is_over:
            break
        p = p.next_round()
    assert hubs == [9, 8, 7, 6, 5] and len(p.scored().rounds) == 5
    assert p.to_dict()["match_over"] is True and p.to_dict()["winners"]
    with pytest.raises(InputError, match="match is over"):
        p.next_round()
    fresh = p.again(seed=6)
    assert fresh.round_index == 0 and fresh.match.rounds == () and fresh.state.round_double == 9


def test_everyone_a_person_is_a_hot_seat_game():
    p = Practice.new(get_rules("chickie-sixes"), 2, bots=[], seed=1)
    seen = set()
    while not p.over:
        seen.add(p.to_act)
        assert p.waiting and p.hand() == tuple(sorted(p.state.hands[p.to_act]))
        play_round_step(p)
    assert seen == {0, 1}


def play_round_step(p: Practice) -> None:
    h = p.hint()
    if h:
        p.play(h[0].tile, h[0].target)
    elif p.can_draw:
        p.draw()
    else:
        p.pass_turn()


def test_the_board_marks_every_place_a_hint_can_go():
    for seed in range(30):
        p = Practice.new(get_rules("pagat"), 4, seed=seed)
        board = p.board()
        playable = {m.end.target for m in board.ends if m.end.playable}
        assert {h.target for h in p.hint()} <= playable
        for mark in board.ends:
            assert board.end_at(mark.spot.x, mark.spot.y) is mark


@pytest.mark.parametrize("kwargs, fragment", [
    ({"players": 9}, "players, not 9"),
    ({"players": 10**9}, "players, not 1000000000"),  # refused before a seat is made, not after a billion
    ({"players": 4, "bots": [4]}, "no seat 4"),
    ({"players": 4, "bot": "clever"}, "unknown bot"),
])
def test_bad_tables_are_refused(kwargs: dict, fragment: str):
    with pytest.raises(InputError, match=fragment):
        Practice.new(get_rules("pagat"), **kwargs)


def test_seat_names():
    assert [s.name for s in seats_for(3)] == ["You", "Bot 1", "Bot 2"]
    assert [s.bot for s in seats_for(3, bots=[0], bot="random")] == ["random", None, None]
    assert Practice.new(get_rules("pagat"), 2, bots=[1], seed=1).hand(0) == tuple(
        sorted(Practice.new(get_rules("pagat"), 2, bots=[1], seed=1).state.hands[0]))
    assert isinstance(Practice.new(get_rules("pagat"), 2, seed=2).hand()[0], Tile)
