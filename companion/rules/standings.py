"""Who won a match: lowest total, then the rules' tie-break.

Apart from the engine so the scorekeeper (and every command that opens a match) loads it
without the round engine, the layout and the bots.
"""

from __future__ import annotations

from collections.abc import Sequence

from .ruleset import RuleSet, TieBreak

WIN, DRAW_RESULT, SHARED = "win", "draw", "shared"


def decide_winners(
    rules: RuleSet, totals: Sequence[int], round_scores: Sequence[Sequence[int]]
) -> tuple[list[int], str, str]:
    """``(winners, result, decided_by)`` for final ``totals`` given each round's scores.

    Lowest total wins. Equal lowest: ``draw`` rules make it a draw; ``zero-rounds`` (pagat)
    prefers most rounds scored 0, then the lowest non-zero round score, and calls it a draw only
    if that still ties; ``none`` leaves the tied players sharing first place.
    """
    low = min(totals)
    tied = [i for i, t in enumerate(totals) if t == low]
    if len(tied) == 1:
        return tied, WIN, "lowest-total"
    if rules.tie_break is TieBreak.ZERO_ROUNDS:
        zeros = {i: sum(1 for r in round_scores if r[i] == 0) for i in tied}
        most = max(zeros.values())
        tied = [i for i in tied if zeros[i] == most]
        if len(tied) == 1:
            return tied, WIN, "most-zero-rounds"
        inf = float("inf")
        lowest = {i: min((r[i] for r in round_scores if r[i] > 0), default=inf) for i in tied}
        least = min(lowest.values())
        tied = [i for i in tied if lowest[i] == least]
        if len(tied) == 1:
            return tied, WIN, "lowest-non-zero-round"
        return tied, DRAW_RESULT, "tied"
    if rules.tie_break is TieBreak.DRAW:
        return tied, DRAW_RESULT, "tied"
    return tied, SHARED, "tied"
