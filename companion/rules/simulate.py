"""Matches simulated round by round with seeded bots, and the match result rules.

A match plays one round per double of ``rules.round_doubles(players)`` (highest first), adds
each round's penalties to the totals, and stops early when ``rules.loss_total`` is set and a
total passes it. :func:`decide_winners` applies the tie-break; it lives in :mod:`.standings`, so the
scorekeeper imports it without the engine.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .bots import Bot, make_bot
from .engine import RoundState, new_round, play_out
from .ruleset import RuleSet
from .standings import decide_winners


@dataclass(frozen=True)
class MatchResult:
    rules: RuleSet
    players: int
    seed: int
    rounds: tuple[RoundState, ...]
    totals: tuple[int, ...]
    #: Seats in first place (more than one: a draw or shared first place, see ``result``).
    winners: tuple[int, ...]
    #: "win", "draw" (the rules call equal lowest totals a draw) or "shared".
    result: str
    #: What decided it: "lowest-total", "most-zero-rounds", "lowest-non-zero-round", "tied".
    decided_by: str
    #: Seats whose total passed ``rules.loss_total`` (the match ended there).
    losers: tuple[int, ...]
    #: "rounds" (every round played) or "loss-total".
    ended_by: str

    def to_dict(self) -> dict[str, Any]:
        running = [0] * self.players
        rounds = []
        for r in self.rounds:
            d = r.to_dict()
            running = [a + b for a, b in zip(running, d["penalties"], strict=True)]
            d["totals"] = running
            rounds.append(d)
        return {
            "seed": self.seed,
            "rounds": rounds,
            "totals": list(self.totals),
            "winners": list(self.winners),
            "result": self.result,
            "decided_by": self.decided_by,
            "losers": list(self.losers),
            "ended_by": self.ended_by,
        }


def match_seeds(seed: int, matches: int) -> list[int]:
    """One seed per match, derived from the command's seed."""
    master = random.Random(seed)
    return [master.getrandbits(63) for _ in range(matches)]


def simulate_match(
    rules: RuleSet, players: int, seed: int, bot: str | Sequence[Bot] = "greedy"
) -> MatchResult:
    """Play a whole match with bots; the same arguments always give the same match."""
    rules.check_players(players)
    deal_rng = random.Random(seed)
    if isinstance(bot, str):
        bots: Sequence[Bot] = [make_bot(bot, random.Random(seed + 1 + s)) for s in range(players)]
    else:
        bots = bot
    totals = [0] * players
    rounds: list[RoundState] = []
    scores: list[list[int]] = []
    losers: list[int] = []
    for k, _ in enumerate(rules.round_doubles(players)):
        state = play_out(new_round(rules, players, k, deal_rng), bots)
        pens = state.penalties()
        rounds.append(state)
        scores.append(pens)
        totals = [a + b for a, b in zip(totals, pens, strict=True)]
        if rules.loss_total is not None:
            losers = [i for i, t in enumerate(totals) if t > rules.loss_total]
            if losers:
                break
    winners, result, decided_by = decide_winners(rules, totals, scores)
    return MatchResult(
        rules, players, seed, tuple(rounds), tuple(totals), tuple(winners), result, decided_by,
        tuple(losers), "loss-total" if losers else "rounds",
    )


def simulate(
    rules: RuleSet, players: int, seed: int, matches: int = 1, bot: str = "greedy"
) -> dict[str, Any]:
    """Several matches as one JSON-ready record (what ``chickenfoot simulate --json`` prints)."""
    out = []
    for m, s in enumerate(match_seeds(seed, matches)):
        d = simulate_match(rules, players, s, bot).to_dict()
        d = {"match": m + 1, **d}
        out.append(d)
    return {
        "rules": rules.to_dict(),
        "players": players,
        "seed": seed,
        "bot": bot,
        "matches": out,
    }
