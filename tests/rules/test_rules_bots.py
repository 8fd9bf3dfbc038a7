"""The bots: the greedy bot's rating, and the look-ahead bot's work bound (every decision on
every table size within it, the standard tables judged in full, a seed replayed exactly)."""

from __future__ import annotations

import random

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from chickenfoot.rules import PRESETS, PlayerCountError, get_rules
from chickenfoot.rules.bots import (
    LOOKAHEAD_HORIZON,
    LOOKAHEAD_MIN_GUESSES,
    LOOKAHEAD_WORK,
    GreedyBot,
    LookaheadBot,
    RandomBot,
    greedy_score,
)
from chickenfoot.rules.engine import RoundState, new_round, play_out
from chickenfoot.rules.plays import Play


def _state_at(preset: str, top: int | None, players: int, seed: int, steps: int) -> RoundState:
    """A round of ``preset`` (on a double-``top`` set) played ``steps`` actions in by random bots."""
    rules = get_rules(preset, {"set": top} if top else None)
    players = max(rules.min_players, min(rules.max_players, players))
    try:
        rules.check_players(players)
    except PlayerCountError:  # a set too small for the deal: no round to look at
        assume(False)
    state = new_round(rules, players, 0, random.Random(seed))
    return play_out(state, [RandomBot(random.Random(seed + s)) for s in range(players)], steps)


def _length(state: RoundState) -> int:
    return min(LOOKAHEAD_HORIZON, sum(map(len, state.hands)) + len(state.boneyard))


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(sorted(PRESETS)), st.sampled_from([None, 9, 12, 15, 18]), st.integers(2, 8),
       st.integers(0, 2**32), st.integers(0, 150))
def test_a_lookahead_decision_stays_within_its_work_bound(preset: str, top: int | None, players: int,
                                                          seed: int, steps: int) -> None:
    state = _state_at(preset, top, players, seed, steps)
    legal = state.legal_actions()
    if len(legal) < 2:
        return
    bot = LookaheadBot(random.Random(seed))
    guesses, tried = bot.plan(state, legal)
    length = _length(state)
    work = LOOKAHEAD_WORK * 169 // max(169, (state.top + 1) ** 2)  # a bigger set, fewer actions
    if 6 * len(legal) * length <= work:
        assert (guesses, tried) == (6, legal)  # judged in full, as before the bound
        return
    assert LOOKAHEAD_MIN_GUESSES <= guesses <= 6
    assert guesses * len(tried) * length <= work or guesses == LOOKAHEAD_MIN_GUESSES
    assert len(tried) >= 2 and tried == [a for a in legal if a in tried]  # in the order offered
    assert [a for a in legal if not isinstance(a, Play)] == [a for a in tried if not isinstance(a, Play)]
    hand, zz = state.hands[state.current], state.rules.zero_zero
    dropped = [greedy_score(a.tile, hand, zz) for a in legal if a not in tried]
    kept = [greedy_score(a.tile, hand, zz) for a in tried if isinstance(a, Play)]
    assert not dropped or min(kept) >= max(dropped)  # the plays the greedy bot rates highest


def test_a_big_table_is_bounded_and_a_double_9_opening_is_judged_in_full() -> None:
    big = _state_at("pagat", 18, 2, 4, 24)  # 45 plays open to a hand of 30-odd tiles
    legal = big.legal_actions()
    guesses, tried = LookaheadBot(random.Random(1)).plan(big, legal)
    assert guesses == LOOKAHEAD_MIN_GUESSES and len(tried) < len(legal)
    small = _state_at("double-chicken-foot", None, 4, 3, 0)
    legal = small.legal_actions()
    assert LookaheadBot(random.Random(1)).plan(small, legal) == (6, legal)


def test_a_bounded_lookahead_replays_exactly_for_a_seed() -> None:
    state = _state_at("pagat", 18, 2, 4, 24)
    legal = state.legal_actions()
    assert LookaheadBot(random.Random(0)).plan(state, legal)[1] != legal  # the bound applies here
    picks = {str(LookaheadBot(random.Random(5)).choose(state.clone(), legal)) for _ in range(2)}
    assert len(picks) == 1 and legal == state.legal_actions()  # the state is left as it was


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(PRESETS)), st.integers(2, 8), st.integers(0, 2**32), st.integers(0, 40))
def test_play_out_stops_after_max_actions_or_at_the_round_end(preset: str, players: int, seed: int, n: int) -> None:
    state = _state_at(preset, None, players, seed, 0)
    before = len(state.history)
    play_out(state, [GreedyBot(random.Random(s)) for s in range(state.players)], n)
    assert len(state.history) - before == n or state.terminal
    assert len(state.history) - before <= n


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(PRESETS)), st.sampled_from([None, 12, 18]), st.integers(2, 8),
       st.integers(0, 2**32), st.integers(0, 60))
def test_the_greedy_bot_plays_a_tile_it_rates_highest(preset: str, top: int | None, players: int, seed: int,
                                                     steps: int) -> None:
    state = _state_at(preset, top, players, seed, steps)
    legal = state.legal_actions()
    plays = [a for a in legal if isinstance(a, Play)]
    if len(legal) < 2 or not plays:
        return
    hand, zz = state.hands[state.current], state.rules.zero_zero
    pick = GreedyBot(random.Random(seed)).choose(state, legal)
    assert greedy_score(pick.tile, hand, zz) == max(greedy_score(p.tile, hand, zz) for p in plays)
