"""Errors of the scorekeeper, named by their cause (all under the project's one error tree)."""

from __future__ import annotations

from chickenfoot.rules.errors import InputError


class MatchError(InputError):
    """A change or a value the match cannot take."""


class PlayerError(MatchError):
    """Bad player names: empty, repeated, unknown to the match, or not writable on a command line."""


class RoundError(MatchError):
    """A round result that cannot be right (went-out player with tiles, a tile in two hands...)."""


class MatchStateError(MatchError):
    """A change that does not fit the match's state: it is over, abandoned, nothing to undo."""


class MatchDataError(MatchError):
    """A stored or imported match that cannot be read back (missing fields, wrong types)."""


class UnlikelyPenaltyError(RoundError):
    """A penalty above what a hand of the tiles dealt could hold: kept only once the player
    says it is right (tiles drawn from the boneyard), never on its own."""
