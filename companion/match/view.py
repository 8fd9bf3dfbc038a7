"""A match as plain data for screens: what ``match show --json`` prints and the app shows.

Names instead of seats, tiles as text, the current round's facts (double, deal size, first
player, missing-double policy), standings, result and undo state, all in one JSON-ready dict.
"""

from __future__ import annotations

from typing import Any

from chickenfoot.rules import Start

from .model import Match


def match_view(m: Match) -> dict[str, Any]:
    """Everything ``chickenfoot match show --json`` prints; plain JSON-ready data for any screen."""
    table = m.standings()
    outcome = m.outcome()
    idx = m.current_index
    current = None
    if idx is not None:
        d = m.round_doubles[idx]
        current = {
            "number": idx + 1,
            "double": d,
            "double_tile": f"{d}-{d}",
            "first_player": m.first_player,
            "first_player_rule": m.first_player_rule(),
            "holder": None if m.pending_holder is None else m.players[m.pending_holder],
            "deal_size": m.deal_size,
            "missing_double": (None if m.rules.start is Start.CENTRE
                               else m.rules.missing_double.value),
            "missing_double_rule": m.missing_double_rule(),
        }
    rounds = []
    for k, rnd in enumerate(m.rounds, start=1):
        rounds.append({
            "number": k,
            "double": rnd.double,
            "penalties": dict(zip(m.players, rnd.penalties, strict=True)),
            "tiles": {p: [str(t) for t in h] for p, h in zip(m.players, rnd.tiles, strict=True)
                      if h is not None},
            "out": None if rnd.out is None else m.players[rnd.out],
            "blocked": rnd.blocked,
            "holder": None if rnd.holder is None else m.players[rnd.holder],
            "first_player": (None if m.first_seat(k - 1) is None
                             else m.players[m.first_seat(k - 1)]),
            "started_with": rnd.started_with,
        })
    return {
        "id": m.id,
        "players": list(m.players),
        "rules": m.rules.name,
        "rules_title": m.rules.title,
        "status": m.status,
        "over": m.is_over,
        "abandoned": m.abandoned,
        "set": m.set_top,
        "deal_size": m.deal_size,
        "planned_rounds": m.planned_rounds,
        "rounds_played": len(m.rounds),
        "current_round": current,
        "current_double": m.current_double,
        "first_player": m.first_player,
        "standings": [s.to_dict() for s in table],
        "leaders": [s.player for s in table if s.leader],
        "winners": list(outcome.winners) if outcome else [],
        "draw": bool(outcome and outcome.draw),
        "losers": list(outcome.losers) if outcome else [],
        "result": outcome.reason if outcome else None,
        "rounds": rounds,
        "can_undo": m.can_undo,
        "can_redo": m.can_redo,
        "next_undo": m.undo_log[-1]["label"] if m.undo_log else None,
        "revision": m.revision,
        "created_at": m.created_at,
        "updated_at": m.updated_at,
    }
