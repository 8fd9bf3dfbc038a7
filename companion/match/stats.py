"""Statistics per player across many matches (names compared without regard to case).

Matches *played*, *won* and *best match total* count finished matches only (matches *in
progress* are counted apart: unfinished, not abandoned, at least one round); the round figures
(rounds played and gone out, 0-0 catches, average and worst penalty) count every recorded round
of matches that were not abandoned. "Caught with 0-0" is only known for rounds entered as tiles.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from chickenfoot.rules import Tile

from .model import Match

_BLANK = Tile(0, 0)


@dataclass(frozen=True, slots=True)
class PlayerStats:
    player: str
    matches_played: int
    matches_won: int
    matches_drawn: int
    rounds_played: int
    rounds_out: int
    caught_with_double_blank: int
    average_penalty: float | None
    worst_penalty: int | None
    best_match_total: int | None
    matches_in_progress: int = 0
    #: Rounds in which the player's hand is known tile by tile (entered as tiles or a photo, or
    #: gone out): the rounds ``caught_with_double_blank`` can count.
    rounds_tiles_known: int = 0

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def player_stats(matches: Iterable[Match]) -> list[PlayerStats]:
    """One line per player, most matches won first, then by name."""
    acc: dict[str, dict[str, Any]] = {}
    for m in matches:
        if m.abandoned:
            continue
        outcome = m.outcome()
        totals = m.totals()
        for seat, name in enumerate(m.players):
            a = acc.setdefault(name.casefold(), {
                "player": name, "played": 0, "won": 0, "drawn": 0, "rounds": 0, "out": 0,
                "blank": 0, "known": 0, "pen_sum": 0, "worst": None, "best": None, "going": 0})
            for rnd in m.rounds:
                p = rnd.penalties[seat]
                a["rounds"] += 1
                a["pen_sum"] += p
                a["worst"] = p if a["worst"] is None else max(a["worst"], p)
                a["out"] += rnd.out == seat
                hand = rnd.tiles[seat]
                a["blank"] += bool(hand and _BLANK in hand)
                a["known"] += hand is not None or rnd.out == seat
            if outcome is None and m.rounds:
                a["going"] += 1
            if outcome is not None:
                a["played"] += 1
                if name in outcome.winners:
                    if outcome.draw:
                        a["drawn"] += 1
                    else:
                        a["won"] += 1
                t = totals[seat]
                a["best"] = t if a["best"] is None else min(a["best"], t)
    out = [
        PlayerStats(
            player=a["player"], matches_played=a["played"], matches_won=a["won"],
            matches_drawn=a["drawn"], rounds_played=a["rounds"], rounds_out=a["out"],
            caught_with_double_blank=a["blank"],
            average_penalty=round(a["pen_sum"] / a["rounds"], 2) if a["rounds"] else None,
            worst_penalty=a["worst"], best_match_total=a["best"], matches_in_progress=a["going"],
            rounds_tiles_known=a["known"])
        for a in acc.values()
    ]
    out.sort(key=lambda s: (-s.matches_won, s.player.casefold()))
    return out
