"""Seeded bots for simulation: random, and a greedy one.

A bot sees what a player at the table sees: its own hand (``state.hands[state.current]``),
the table, and the legal actions it is offered. Each bot gets its own ``random.Random`` so a
seed replays a match exactly.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Protocol

from .engine import PASS, Action, RoundState
from .errors import InvalidOptionError
from .plays import Play
from .seeded import below


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
            tile = p.tile
            lo = tile.low
            score = 4 * (tile.high + lo if tile.high else zero_zero)  # the 0-0 counts per the rules
            if lo == tile.high:
                followers = sum(1 for t in hand if t is not tile and (t.low == tile.low or t.high == tile.low))
                score += 40 + 4 * followers if followers else -20
            if score > best_score:
                best, best_score = [p], score
            elif score == best_score:
                best.append(p)
        return best[0] if len(best) == 1 else best[below(self.rng, len(best))]


BOTS: dict[str, Callable[[random.Random], Bot]] = {"random": RandomBot, "greedy": GreedyBot}


def make_bot(name: str, rng: random.Random) -> Bot:
    try:
        return BOTS[name](rng)
    except KeyError:
        raise InvalidOptionError(f"unknown bot {name!r}; bots are: {', '.join(BOTS)}") from None


__all__ = ["BOTS", "PASS", "Bot", "GreedyBot", "RandomBot", "make_bot"]
