"""The rules core: tiles, rule sets, layouts, legal plays, rounds and matches.

Imports nothing of the project's outside this package and nothing outside the standard library.
Names load on first use (PEP 562): a command that only needs tiles and rule sets does not pay
for the engine, the layout and the bots (about 50 ms of every command-line start).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .bots import BOTS, GreedyBot, RandomBot, make_bot
    from .engine import DRAW, PASS, RoundState, deal_round, new_round, play_out
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
    from .layout import (
        REASON_CODES,
        REASONS,
        Layout,
        LayoutError,
        OpenEnd,
        Placement,
        Problem,
        Report,
        Table,
        Verdict,
        check_layout,
        judge_play,
    )
    from .plays import Play, legal_plays
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
    from .simulate import MatchResult, simulate, simulate_match
    from .standings import DRAW_RESULT, decide_winners
    from .tiles import SETS, Tile, check_in_set, double, full_set, parse_tiles, set_size

#: public name -> submodule that defines it
_WHERE = {
    "BOTS": "bots",
    "ChickenFootError": "errors",
    "DEFAULT_PRESET": "ruleset",
    "DRAW": "engine",
    "DRAW_RESULT": "standings",
    "DrawPolicy": "ruleset",
    "FirstPlayer": "ruleset",
    "GreedyBot": "bots",
    "IllegalPlayError": "errors",
    "InputError": "errors",
    "InvalidOptionError": "errors",
    "InvalidTileError": "errors",
    "Layout": "layout",
    "LayoutError": "layout",
    "MatchLength": "ruleset",
    "MatchResult": "simulate",
    "MissingDouble": "ruleset",
    "OPTIONS": "ruleset",
    "OpenEnd": "layout",
    "PASS": "engine",
    "PRESETS": "ruleset",
    "Placement": "layout",
    "Play": "plays",
    "PlayerCountError": "errors",
    "Problem": "layout",
    "REASONS": "layout",
    "REASON_CODES": "layout",
    "RandomBot": "bots",
    "Report": "layout",
    "RoundState": "engine",
    "RuleSet": "ruleset",
    "SETS": "tiles",
    "Start": "ruleset",
    "Table": "layout",
    "TieBreak": "ruleset",
    "Tile": "tiles",
    "TileNotInSetError": "errors",
    "UnknownPresetError": "errors",
    "Verdict": "layout",
    "check_in_set": "tiles",
    "check_layout": "layout",
    "deal_round": "engine",
    "decide_winners": "standings",
    "double": "tiles",
    "full_set": "tiles",
    "get_rules": "ruleset",
    "judge_play": "layout",
    "legal_plays": "plays",
    "make_bot": "bots",
    "new_round": "engine",
    "parse_option": "ruleset",
    "parse_tiles": "tiles",
    "play_out": "engine",
    "set_size": "tiles",
    "simulate": "simulate",
    "simulate_match": "simulate",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "BOTS",
    "DEFAULT_PRESET",
    "DRAW",
    "DRAW_RESULT",
    "OPTIONS",
    "PASS",
    "PRESETS",
    "REASONS",
    "REASON_CODES",
    "SETS",
    "ChickenFootError",
    "DrawPolicy",
    "FirstPlayer",
    "GreedyBot",
    "IllegalPlayError",
    "InputError",
    "InvalidOptionError",
    "InvalidTileError",
    "Layout",
    "LayoutError",
    "MatchLength",
    "MatchResult",
    "MissingDouble",
    "OpenEnd",
    "Placement",
    "Play",
    "PlayerCountError",
    "Problem",
    "RandomBot",
    "Report",
    "RoundState",
    "RuleSet",
    "Start",
    "Table",
    "TieBreak",
    "Tile",
    "TileNotInSetError",
    "UnknownPresetError",
    "Verdict",
    "check_in_set",
    "check_layout",
    "deal_round",
    "decide_winners",
    "double",
    "full_set",
    "get_rules",
    "judge_play",
    "legal_plays",
    "make_bot",
    "new_round",
    "parse_option",
    "parse_tiles",
    "play_out",
    "set_size",
    "simulate",
    "simulate_match",
]
