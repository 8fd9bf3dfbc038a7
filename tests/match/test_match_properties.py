"""Property tests: any sequence of changes keeps the match consistent, serialisable and undoable."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chickenfoot.match import (
    Match,
    MatchError,
    dumps_json,
    export_csv,
    hand_limit,
    loads_json,
    unlikely_penalty,
)
from chickenfoot.rules import PRESETS, full_set

PLAYERS = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]

op = st.one_of(
    st.tuples(st.just("add"), st.integers(0, 10**6)),
    st.tuples(st.just("edit"), st.integers(0, 10**6)),
    st.tuples(st.just("delete"), st.just(0)),
    st.tuples(st.just("undo"), st.just(0)),
    st.tuples(st.just("redo"), st.just(0)),
    st.tuples(st.just("abandon"), st.just(0)),
    st.tuples(st.just("resume"), st.just(0)),
)


def _round_input(m: Match, seed: int, index: int) -> dict:
    """A valid round for ``m`` derived from ``seed``: tiles for some players, numbers for others."""
    import random

    rng = random.Random(seed)
    d = m.round_doubles[index]
    pool = [t for t in full_set(m.set_top) if t != type(t)(d, d)]
    rng.shuffle(pool)
    blocked = rng.random() < 0.3
    out = None if blocked else m.players[rng.randrange(m.seats)]
    pens, tiles = {}, {}
    for name in m.players:
        if name == out:
            continue
        if rng.random() < 0.5:
            tiles[name] = [str(pool.pop()) for _ in range(rng.randint(0 if blocked else 1, 3))]
        else:
            pens[name] = rng.randint(0, 40)
    return {"penalties": pens, "tiles": tiles, "out": out, "blocked": blocked}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    preset=st.sampled_from(sorted(PRESETS)),
    n=st.integers(2, 8),
    loss=st.sampled_from([None, 60, 150]),
    ops=st.lists(op, max_size=20),
)
def test_random_changes_keep_the_match_consistent(preset, n, loss, ops) -> None:
    rules = PRESETS[preset]
    n = max(rules.min_players, min(n, rules.max_players))
    rules = rules.with_options({"loss_total": loss})
    m = Match.new(PLAYERS[:n], rules)
    undo_stack: list[Match] = []  # the states undo must give back, most recent last
    redo_stack: list[Match] = []
    changes = 0
    for kind, seed in ops:
        before = m
        try:
            if kind == "add":
                if m.is_over or m.abandoned:
                    continue
                m = m.add_round(**_round_input(m, seed, len(m.rounds)))
            elif kind == "edit":
                if not m.rounds:
                    continue
                k = seed % len(m.rounds)
                kw = _round_input(m, seed, k)
                m = m.edit_round(k + 1, kw["penalties"], kw["tiles"], out=kw["out"],
                                 blocked=kw["blocked"])
            else:
                m = getattr(m, {"delete": "delete_last_round"}.get(kind, kind))()
        except MatchError:
            continue  # refused changes (nothing to undo, edit ending the match early...) are fine
        changes += 1
        if kind == "undo":
            redo_stack.append(before)
            expected = undo_stack.pop()
        elif kind == "redo":
            undo_stack.append(before)
            expected = redo_stack.pop()
        else:
            undo_stack.append(before)
            redo_stack.clear()
            expected = m
        assert _state(m) == _state(expected)
        assert len(m.undo_log) == len(undo_stack) and len(m.redo_log) == len(redo_stack)
        # Invariants after every change.
        assert len(m.rounds) <= m.end_after <= m.planned_rounds
        assert [s.total for s in m.standings()] == [sum(r.penalties[i] for r in m.rounds)
                                                   for i in range(n)]
        assert sum(s.rank == 1 for s in m.standings()) >= 1
        if m.is_over and not m.abandoned:
            assert m.outcome() is not None and m.winners
        assert Match.from_dict(m.to_dict()) == m
    assert m.revision == changes
    assert loads_json(dumps_json([m])) == [m]
    assert export_csv([m]).count("\n") == 1 + n * len(m.rounds)
    while undo_stack:
        m = m.undo()
        assert _state(m) == _state(undo_stack.pop())
    assert m.rounds == () and not m.abandoned and not m.can_undo


def _state(m: Match) -> tuple:
    return (m.rounds, m.abandoned, m.pending_holder)


@settings(max_examples=60, deadline=None)
@given(preset=st.sampled_from(sorted(PRESETS)), n=st.integers(2, 8), zero_zero=st.sampled_from([0, 25, 50]),
       seed=st.integers(0, 10**6))
def test_no_dealt_hand_counts_more_than_the_hand_limit_and_the_largest_reach_it(preset, n, zero_zero, seed) -> None:
    import random

    rules = PRESETS[preset]
    n = max(rules.min_players, min(n, rules.max_players))
    rules = rules.with_options({"zero_zero": zero_zero})
    m = Match.new(PLAYERS[:n], rules)
    deal, tiles = m.deal_size, full_set(m.set_top)
    limit = hand_limit(rules, n)
    assert limit == m.hand_limit
    hand = random.Random(seed).sample(tiles, deal)
    assert rules.penalty(hand) <= limit
    assert unlikely_penalty(rules, n, "Ann", rules.penalty(hand)) is None
    largest = sorted(tiles, key=rules.tile_penalty, reverse=True)[:deal]
    assert rules.penalty(largest) == limit  # the bound is reached, not only never passed
    why = unlikely_penalty(rules, n, "Ann", limit + 1)
    assert why is not None and f"at most {limit}" in why and f"{deal} tiles" in why
