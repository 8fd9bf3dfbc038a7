"""Property-based proof over many simulated rounds and matches, for every preset and options.

Every step of every round is checked: tiles are conserved, at most one foot is open, the fast
legal-play generator agrees with the play judge; every finished layout passes ``check`` (in
order and unordered); penalties equal the hands' pips with 0-0 per the rules; the round
double sequence, the hub and the first player follow the rules.

Examples per test: ``CHICKENFOOT_RULES_EXAMPLES`` (default 200; e.g. 2000 for a heavy run).
"""

from __future__ import annotations

import os
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chickenfoot.rules import (
    PRESETS,
    DrawPolicy,
    FirstPlayer,
    Layout,
    MissingDouble,
    RuleSet,
    Start,
    Tile,
    check_layout,
    full_set,
    get_rules,
    make_bot,
    new_round,
    simulate_match,
)
from chickenfoot.rules.engine import BLOCKED, DEAD_FOOT, OUT, RoundState

EXAMPLES = int(os.environ.get("CHICKENFOOT_RULES_EXAMPLES", "200"))
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=os.environ.get("CHICKENFOOT_RULES_RANDOM") is None,
)

PLAYERS = {
    "double-chicken-foot": (2, 8),
    "gameweave": (2, 6),
    "pagat": (2, 8),
    "chickie-sixes": (2, 2),
}

OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "draw": st.sampled_from([d.value for d in DrawPolicy]),
        "start": st.sampled_from([s.value for s in Start]),
        "missing_double": st.sampled_from([m.value for m in MissingDouble]),
        "first_player": st.sampled_from([f.value for f in FirstPlayer]),
        "spokes": st.sampled_from([3, 4, 6]),
        "toes": st.integers(1, 4),
        "zero_zero": st.sampled_from([0, 25, 50]),
        "end_when_foot_dead": st.booleans(),
    },
)


def _zero_zero_penalty(rules: RuleSet, hand: list[Tile]) -> int:
    return sum(rules.zero_zero if (t.low, t.high) == (0, 0) else t.low + t.high for t in hand)


def reference_replay(hub: Tile, plays: list[tuple[Tile, Tile]], spokes: int, toes: int) -> str | None:
    """An independent, deliberately plain reading of the rules: None if every play is legal."""
    value = {hub: hub.low}
    kids = {hub: 0}
    for tile, on in plays:
        if tile in value:
            return f"{tile} twice"
        if on not in value:
            return f"{on} not on the table"
        v = value[on]
        if v not in (tile.low, tile.high):
            return f"{tile} does not match {on}"
        cap = spokes if on == hub else (toes if on.low == on.high else 1)
        if kids[on] >= cap:
            return f"{on} is full"
        if kids[hub] < spokes and on != hub:
            return "hub short"
        feet = [d for d in value if d != hub and d.low == d.high and kids[d] < toes]
        if len(feet) > 1:
            return "two open feet"
        if feet and on != feet[0]:
            return "foot open"
        kids[on] += 1
        value[tile] = tile.high if tile.low == v else tile.low
        kids[tile] = 0
    return None


def _playable(state: RoundState, seat: int) -> bool:
    table = state.table
    return any(table.judge(t, on).legal for t in state.hands[seat] for on in table.tiles())


def check_step(state: RoundState, full: list[Tile], deep: bool) -> None:
    table = state.table
    on_table = table.tiles()
    every = on_table + [t for h in state.hands for t in h] + state.boneyard
    assert sorted(every) == full, "tiles not conserved"
    # Open feet counted from the tree itself, not from the engine's bookkeeping.
    toes = state.rules.toes
    feet = [d for d in on_table if d != table.hub and d.is_double and len(table.kids[d]) < toes]
    assert feet == table.open_feet
    assert len(feet) <= 1, f"more than one open foot: {feet}"
    if len(table.kids[table.hub]) < state.rules.spokes:
        assert not feet and len(on_table) == 1 + len(table.kids[table.hub]), "played past a short hub"
    if deep and not state.terminal and not state.drew:
        # The fast generator must agree with the judge, tile by tile and target by target.
        hand = state.hands[state.current]
        fast = {(p.tile, p.target) for p in table.legal_plays(hand)}
        slow = {(t, on) for t in hand for on in on_table if table.judge(t, on).legal}
        assert fast == slow


def run_round(rules: RuleSet, players: int, k: int, seed: int, bot: str) -> RoundState:
    top = rules.set_for(players)
    full = sorted(full_set(top))
    state = new_round(rules, players, k, random.Random(seed))
    bots = [make_bot(bot, random.Random(seed + 7 * s + 1)) for s in range(players)]
    check_step(state, full, deep=True)
    steps = 0
    while not state.terminal:
        legal = state.legal_actions()
        assert legal
        action = legal[0] if len(legal) == 1 else bots[state.current].choose(state, legal)
        state.apply(action)  # checked apply: the engine's own legality check runs too
        steps += 1
        check_step(state, full, deep=steps % 5 == 0)
        assert steps < 10_000
    return state


def check_finished(state: RoundState) -> None:
    rules = state.rules
    # Every layout produced passes check, in order and unordered.
    layout = state.layout()
    plays = [(p.tile, p.on) for p in layout.plays]
    assert reference_replay(layout.hub, plays, rules.spokes, rules.toes) is None
    report = check_layout(layout, rules)
    assert report.legal, [p.message for p in report.problems]
    unordered = Layout(layout.hub, layout.plays, layout.rules, layout.set, ordered=False)
    assert check_layout(Layout.from_json(unordered.to_json()), rules).legal
    # Penalties: the hands' pips, 0-0 per the rules, 0 for whoever went out.
    pens = state.penalties()
    for seat, hand in enumerate(state.hands):
        assert pens[seat] == _zero_zero_penalty(rules, hand)
    # How it ended.
    if state.outcome == OUT:
        assert state.hands[state.out] == [] and pens[state.out] == 0
    elif state.outcome == BLOCKED:
        assert not state.boneyard
        assert not any(_playable(state, s) for s in range(state.players))
    else:
        assert state.outcome == DEAD_FOOT and rules.end_when_foot_dead
        foot = state.table.open_foot
        assert foot is not None
        left = sum(1 for h in [*state.hands, state.boneyard] for t in h
                   if t.has(foot.low) and not t.is_double)
        assert left < state.table.short[foot]


def check_start(state: RoundState) -> None:
    rules, n, k = state.rules, state.players, state.round_index
    d = state.round_double
    assert d == rules.round_doubles(n)[k]
    dealt = [set(h) for h in state.dealt]
    setup_drawn = [e[2] for e in state.setup if e[0] == "draw"]
    if rules.start is Start.CENTRE:
        assert state.hub == Tile(d, d) and state.placed_by is None
        assert all(state.hub not in h for h in dealt) and not setup_drawn
    else:
        holder = next((s for s, h in enumerate(dealt) if Tile(d, d) in h), None)
        if holder is not None:
            assert state.hub == Tile(d, d) and state.placed_by == holder and not setup_drawn
        elif rules.missing_double is MissingDouble.DRAW_UNTIL_FOUND:
            assert state.hub == Tile(d, d) and setup_drawn[-1] == state.hub
        else:
            lower = [t.low for h in dealt for t in h if t.is_double and t.low < d]
            if lower:
                assert state.hub == Tile(max(lower), max(lower)) and not setup_drawn
                assert state.hub in dealt[state.placed_by]
            else:
                assert setup_drawn and setup_drawn[-1] == state.hub
                if rules.missing_double is MissingDouble.SKIP:
                    assert state.hub == Tile(d, d)
                else:
                    assert state.hub.is_double and state.hub.low <= d
                    assert not any(t.is_double and t.low <= d for t in setup_drawn[:-1])
        # Drawing for the double goes round the table from the rotating seat.
        seats = [e[1] for e in state.setup if e[0] == "draw"]
        assert seats == [(k + i) % n for i in range(len(seats))]
    if rules.first_player is FirstPlayer.AFTER_HOLDER and state.placed_by is not None:
        assert state.first_player == (state.placed_by + 1) % n
    else:
        assert state.first_player == k % n
    first_turn = (state.history or [("", state.first_player)])[0]
    assert first_turn[1] == state.first_player


@st.composite
def round_case(draw: st.DrawFn, preset: str) -> tuple[RuleSet, int, int, int, str]:
    lo, hi = PLAYERS[preset]
    players = draw(st.integers(lo, hi))
    rules = PRESETS[preset]
    if draw(st.booleans()):
        rules = rules.with_options(draw(OPTIONS))
    k = draw(st.integers(0, len(rules.round_doubles(players)) - 1))
    seed = draw(st.integers(0, 2**32))
    bot = draw(st.sampled_from(["random", "greedy"]))
    return rules, players, k, seed, bot


@pytest.mark.parametrize("preset", list(PRESETS))
@SETTINGS
@given(data=st.data())
def test_simulated_rounds_keep_every_rule(preset: str, data: st.DataObject) -> None:
    rules, players, k, seed, bot = data.draw(round_case(preset))
    state = run_round(rules, players, k, seed, bot)
    check_start(state)
    check_finished(state)


@pytest.mark.parametrize("preset", list(PRESETS))
@settings(SETTINGS, max_examples=max(10, EXAMPLES // 6))
@given(data=st.data())
def test_matches_follow_round_sequence_scoring_and_tie_break(preset: str, data: st.DataObject) -> None:
    lo, hi = PLAYERS[preset]
    players = data.draw(st.integers(lo, hi))
    extra = data.draw(st.fixed_dictionaries({}, optional={
        "match_length": st.sampled_from(["full", "half", "single"]),
        "loss_total": st.integers(20, 200),
        "first_player": st.sampled_from(["rotate", "after-holder"]),
        "start": st.sampled_from(["centre", "holder"]),
    }))
    rules = get_rules(preset, extra)
    seed = data.draw(st.integers(0, 2**40))
    bot = data.draw(st.sampled_from(["random", "greedy"]))
    m = simulate_match(rules, players, seed, bot)
    sequence = rules.round_doubles(players)
    played = [r.round_double for r in m.rounds]
    assert played == sequence[: len(played)]
    assert [r.round_index for r in m.rounds] == list(range(len(played)))
    totals = [sum(r.penalties()[s] for r in m.rounds) for s in range(players)]
    assert list(m.totals) == totals
    if rules.loss_total is None:
        assert len(played) == len(sequence) and m.ended_by == "rounds"
    else:
        passed = [i for i, t in enumerate(totals) if t > rules.loss_total]
        assert list(m.losers) == passed
        assert (len(played) == len(sequence)) or passed
        before = [sum(r.penalties()[s] for r in m.rounds[:-1]) for s in range(players)]
        assert all(t <= rules.loss_total for t in before)
    assert min(totals) == totals[m.winners[0]]
    assert all(totals[w] == min(totals) for w in m.winners)
    if rules.first_player is FirstPlayer.ROTATE or rules.start is Start.CENTRE:
        assert [r.first_player for r in m.rounds] == [k % players for k in range(len(played))]
    else:
        assert [r.first_player for r in m.rounds] == [(r.placed_by + 1) % players for r in m.rounds]
    for r in m.rounds:
        check_start(r)
        check_finished(r)


@settings(SETTINGS, max_examples=max(5, EXAMPLES // 12))
@given(seed=st.integers(0, 2**40), preset=st.sampled_from(list(PRESETS)))
def test_same_seed_same_match(seed: int, preset: str) -> None:
    players = PLAYERS[preset][0] + 1 if PLAYERS[preset][1] > 2 else 2
    a = simulate_match(PRESETS[preset], players, seed, "random").to_dict()
    b = simulate_match(PRESETS[preset], players, seed, "random").to_dict()
    assert a == b
