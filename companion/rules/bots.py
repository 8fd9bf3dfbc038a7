"""Seeded bots for simulation and practice: random, greedy, and a look-ahead one.

A bot sees what a player at the table sees: its own hand (``state.hands[state.current]``),
the table, how many tiles each hand and the boneyard hold, and the legal actions it is offered.
Each bot gets its own ``random.Random`` so a seed replays a match exactly.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Protocol

from .engine import PASS, Action, RoundState, canonical_set, play_out
from .errors import InvalidOptionError
from .plays import Play
from .seeded import below, shuffle
from .tiles import Tile


class Bot(Protocol):
    name: str

    def choose(self, state: RoundState, legal: Sequence[Action]) -> Action: ...


class RandomBot:
    """Any legal action, uniformly (including declining a drawn tile where that is allowed)."""

    name = "random"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        # A plain Random's own draws, taken directly (the simulator's hottest call).
        self._bits = rng.getrandbits if type(rng) is random.Random else None

    def choose(self, state: RoundState, legal: Sequence[Action]) -> Action:
        n = len(legal)
        if n == 1:
            return legal[0]
        bits = self._bits
        if bits is None:
            return legal[below(self.rng, n)]
        k = n.bit_length()  # below(): rng.randrange(n), drawing the same numbers
        r = bits(k)
        while r >= n:
            r = bits(k)
        return legal[r]


class GreedyBot:
    """Sheds the heaviest tile it can (0-0 counts per the rules), always plays a drawn tile, and
    plays a double when it holds another tile to put on it (a double it cannot follow is kept
    for later). Ties go to a seeded random pick."""

    name = "greedy"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, state: RoundState, legal: Sequence[Action]) -> Action:
        plays = [a for a in legal if isinstance(a, Play)]
        if not plays:
            return legal[0]
        hand = state.hands[state.current]
        zero_zero = state.rules.zero_zero
        best: list[Play] = []
        best_score = -1_000_000
        for p in plays:
            score = greedy_score(p.tile, hand, zero_zero)
            if score > best_score:
                best, best_score = [p], score
            elif score == best_score:
                best.append(p)
        return best[0] if len(best) == 1 else best[below(self.rng, len(best))]


def greedy_score(tile: Tile, hand: Sequence[Tile], zero_zero: int) -> int:
    """How much the greedy bot wants to play ``tile`` from ``hand``: its pips (the 0-0 as the
    rules count it), and for a double more when a tile in hand can follow it, less when none can."""
    lo = tile.low
    score = 4 * (tile.high + lo if tile.high else zero_zero)
    if lo == tile.high:
        followers = sum(1 for t in hand if t is not tile and (t.low == lo or t.high == lo))
        score += 40 + 4 * followers if followers else -20
    return score


#: Actions (plays, draws, passes) one look-ahead decision may simulate, reckoned before it
#: starts: about the most a double-9 or double-12 table's decisions ask for, so those are judged
#: in full, while on a double-15 or double-18 table (hands of 20-30 tiles fitting dozens of open
#: ends, a boneyard of 100) a turn stays well under a second. Scaled down past double-12.
LOOKAHEAD_WORK = 12_000
#: Actions a rollout is played for before its hands are scored as they stand: longer than a
#: double-9 or double-12 round's rest ever ran in measurement (133), far shorter than a
#: double-18 round's (up to 480), whose far end says little about the move now.
LOOKAHEAD_HORIZON = 140
#: Fewest guesses a bounded decision still makes, so one lucky deal cannot decide it.
LOOKAHEAD_MIN_GUESSES = 2


class LookaheadBot:
    """A short look-ahead: for each legal action, a few guesses at what it cannot see (the
    unseen tiles dealt at random to the other hands and the boneyard, sizes as they are), each
    played on by greedy bots to the round's end or :data:`LOOKAHEAD_HORIZON` actions; it takes
    the action whose guesses leave it best off (its own penalty against the others' average).
    The same guesses judge every action, so the comparison is between actions, not between
    lucky and unlucky deals.

    The work is bounded by :data:`LOOKAHEAD_WORK`: where guesses x actions x rollout length
    would pass it, fewer guesses are made (not under :data:`LOOKAHEAD_MIN_GUESSES`), then only
    the actions the greedy bot rates highest are tried. The bound depends only on the state, so
    a seed still replays a match exactly."""

    name = "lookahead"

    def __init__(self, rng: random.Random, guesses: int = 6) -> None:
        self.rng = rng
        self.guesses = guesses

    def plan(self, state: RoundState, legal: Sequence[Action]) -> tuple[int, list[Action]]:
        """How many guesses judge which of the ``legal`` actions, within the work bound."""
        length = min(LOOKAHEAD_HORIZON, sum(map(len, state.hands)) + len(state.boneyard))
        # An action costs more past double-12 (measured about 4x on double-18: hands of 30 tiles
        # tried against many more open ends), so a bigger set gets fewer of them.
        work = LOOKAHEAD_WORK * 169 // max(169, (state.top + 1) ** 2)
        guesses = self.guesses
        if guesses * len(legal) * length <= work:
            return guesses, list(legal)
        guesses = min(guesses, max(LOOKAHEAD_MIN_GUESSES, work // (len(legal) * length)))
        keep = max(2, work // (guesses * length))
        if keep >= len(legal):
            return guesses, list(legal)
        hand, zero_zero = state.hands[state.current], state.rules.zero_zero
        # Draw or pass is always weighed against the plays; the plays by greedy rating, stable.
        ranked = sorted(range(len(legal)), key=lambda i: -greedy_score(legal[i].tile, hand, zero_zero)
                        if isinstance(legal[i], Play) else -10_000_000)
        return guesses, [legal[i] for i in sorted(ranked[:keep])]

    def choose(self, state: RoundState, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        guesses, tried = self.plan(state, legal)
        seat = state.current
        others = state.players - 1
        totals = [0.0] * len(tried)
        for _ in range(guesses):
            world = guess_hidden(state, seat, self.rng)
            seed = self.rng.getrandbits(32)
            for i, action in enumerate(tried):
                rollout = world.child(action) if not world.terminal else world
                bots = [GreedyBot(random.Random(seed + s)) for s in range(state.players)]
                pens = play_out(rollout, bots, LOOKAHEAD_HORIZON).penalties()
                totals[i] += pens[seat] - (sum(pens) - pens[seat]) / others
        best = min(totals)
        picks = [a for a, t in zip(tried, totals, strict=True) if t == best]
        return picks[0] if len(picks) == 1 else picks[below(self.rng, len(picks))]


def guess_hidden(state: RoundState, seat: int, rng: random.Random) -> RoundState:
    """A copy of ``state`` in which everything ``seat`` cannot see is dealt again at random: the
    other hands (same sizes) and the boneyard, from the tiles not on the table or in its hand."""
    world = state.clone()
    seen = set(state.table.tiles()) | set(state.hands[seat])
    unseen = [t for t in canonical_set(state.top) if t not in seen]
    shuffle(unseen, rng)
    for other in range(state.players):
        if other != seat:
            n = len(state.hands[other])
            world.hands[other] = unseen[:n]
            del unseen[:n]
    world.boneyard = unseen
    return world


BOTS: dict[str, Callable[[random.Random], Bot]] = {"random": RandomBot, "greedy": GreedyBot,
                                                    "lookahead": LookaheadBot}


def make_bot(name: str, rng: random.Random) -> Bot:
    try:
        return BOTS[name](rng)
    except KeyError:
        raise InvalidOptionError(f"unknown bot {name!r}; bots are: {', '.join(BOTS)}") from None


__all__ = ["BOTS", "PASS", "Bot", "GreedyBot", "LookaheadBot", "RandomBot", "greedy_score", "guess_hidden", "make_bot"]
