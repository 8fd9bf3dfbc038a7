"""The project's single error tree.

Every error the project raises on purpose derives from :class:`ChickenFootError`, so a
front end (CLI, app) can catch one type, show ``str(err)`` as a one-line message and
never a traceback. Layers above the rules core (match, storage, vision) subclass these
in their own modules; the rules core itself imports nothing of ours.
"""

from __future__ import annotations

import re

#: A word of an error line (a tile, a name, a path, an option) longer than this is cut.
WORD_LIMIT = 100
#: An error line longer than this (after cutting words) is cut.
LINE_LIMIT = 1000
_LONG_WORD = re.compile(rf"\S{{{WORD_LIMIT + 1},}}")


def excerpt(text: str) -> str:
    """``text`` with every overlong word cut to its start and end and its length, and the whole
    cut to ``LINE_LIMIT`` characters: an error repeats what it was given, and a 5,000-digit tile
    must not make a 5,000-byte line. Every error message goes through here (see
    :class:`ChickenFootError`; the CLI passes argparse's own messages through it too)."""

    def cut(m: re.Match[str]) -> str:
        word = m.group()
        stem = word.rstrip(";:,.")
        return f"{stem[:WORD_LIMIT // 2]}...{stem[-10:]} ({len(stem):,} characters){word[len(stem):]}"

    text = _LONG_WORD.sub(cut, text)
    if len(text) > LINE_LIMIT:
        text = f"{text[:LINE_LIMIT]}... ({len(text):,} characters in all)"
    return text


class ChickenFootError(Exception):
    """Root of every deliberate error in the project. Its message is shown cut to a short
    excerpt of any long input it repeats (:func:`excerpt`)."""

    def __str__(self) -> str:
        return excerpt(super().__str__())


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
