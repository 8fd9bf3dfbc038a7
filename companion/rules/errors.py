"""The project's single error tree.

Every error the project raises on purpose derives from :class:`ChickenFootError`, so a
front end (CLI, app) can catch one type, show ``str(err)`` as a one-line message and
never a traceback. Layers above the rules core (match, storage, vision) subclass these
in their own modules; the rules core itself imports nothing of ours.
"""

from __future__ import annotations


class ChickenFootError(Exception):
    """Root of every deliberate error in the project."""


class InputError(ChickenFootError, ValueError):
    """Input that cannot be used at all (bad notation, bad file, bad option)."""


class InvalidTileError(InputError):
    """A tile written in a way that cannot be parsed, e.g. ``"4/"`` or ``"-1-3"``."""


class TileNotInSetError(InputError):
    """A well-formed tile that the rule set's domino set does not contain, e.g. 9-10 in double-9."""


class UnknownPresetError(InputError):
    """A rules preset name that does not exist."""


class InvalidOptionError(InputError):
    """A rule option with an unknown name or a value outside what the option allows."""


class PlayerCountError(InputError):
    """A player count the rule set cannot seat (too few, too many, not enough tiles)."""


class IllegalPlayError(ChickenFootError):
    """A play the rules forbid. ``reason`` is one of the stable reason codes."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason
