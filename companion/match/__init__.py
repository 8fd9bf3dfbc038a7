"""The scorekeeper's match model: plain values, imports only the rules core (never storage).

See :mod:`chickenfoot.match.model` for the match, :mod:`.stats` for per-player statistics and
:mod:`.export` for JSON/CSV export and import.
"""

from .draft import Commit, DraftState, RoundDraft, Saved, commit
from .errors import MatchDataError, MatchError, MatchStateError, PlayerError, RoundError, UnlikelyPenaltyError
from .export import (
    CSV_COLUMNS,
    EXPORT_FORMAT,
    EXPORT_VERSION,
    dumps_json,
    export_csv,
    export_json,
    loads_json,
    read_export,
)
from .model import (
    STATUS_ABANDONED,
    STATUS_ACTIVE,
    STATUS_FINISHED,
    Match,
    Outcome,
    Round,
    Standing,
    build_round,
    check_likely,
    check_player_names,
    check_round,
    hand_limit,
    new_match_id,
    unlikely_in_round,
    unlikely_penalty,
    utc_now,
)
from .stats import PlayerStats, player_stats
from .view import match_view

__all__ = [
    "CSV_COLUMNS",
    "EXPORT_FORMAT",
    "EXPORT_VERSION",
    "STATUS_ABANDONED",
    "STATUS_ACTIVE",
    "STATUS_FINISHED",
    "Commit",
    "DraftState",
    "Match",
    "MatchDataError",
    "MatchError",
    "MatchStateError",
    "Outcome",
    "PlayerError",
    "PlayerStats",
    "Round",
    "RoundDraft",
    "RoundError",
    "Saved",
    "Standing",
    "UnlikelyPenaltyError",
    "build_round",
    "check_likely",
    "check_player_names",
    "check_round",
    "commit",
    "dumps_json",
    "export_csv",
    "export_json",
    "hand_limit",
    "loads_json",
    "match_view",
    "new_match_id",
    "player_stats",
    "read_export",
    "unlikely_in_round",
    "unlikely_penalty",
    "utc_now",
]
