"""The rules core: tiles, rule sets, layouts, legal plays, rounds and matches.

Imports nothing of the project's outside this package and nothing outside the standard library.
"""

from .errors import (
    ChickenFootError,
    IllegalPlayError,
    InputError,
    InvalidOptionError,
    InvalidTileError,
    PlayerCountError,
    TileNotInSetError,
    UnknownPresetError,
)
from .ruleset import (
    DEFAULT_PRESET,
    OPTIONS,
    PRESETS,
    DrawPolicy,
    FirstPlayer,
    MatchLength,
    MissingDouble,
    RuleSet,
    Start,
    TieBreak,
    get_rules,
    parse_option,
)
from .tiles import SETS, Tile, check_in_set, double, full_set, parse_tiles, set_size

__all__ = [
    "DEFAULT_PRESET",
    "OPTIONS",
    "PRESETS",
    "SETS",
    "ChickenFootError",
    "DrawPolicy",
    "FirstPlayer",
    "IllegalPlayError",
    "InputError",
    "InvalidOptionError",
    "InvalidTileError",
    "MatchLength",
    "MissingDouble",
    "PlayerCountError",
    "RuleSet",
    "Start",
    "TieBreak",
    "Tile",
    "TileNotInSetError",
    "UnknownPresetError",
    "check_in_set",
    "double",
    "full_set",
    "get_rules",
    "parse_option",
    "parse_tiles",
    "set_size",
]
