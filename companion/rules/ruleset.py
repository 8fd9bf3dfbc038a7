"""Rules as data: one frozen :class:`RuleSet` per variant, named presets, free options.

The presets follow the four source documents in ``shared/seeds`` (see ``shared/RULES.md``).
A rule set never changes; ``with_options`` returns a new one. Everything that depends on
the number of players (set, deal, rounds, who starts) is a method here so that the round
engine, the scorekeeper and the app all ask the same place.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .errors import InvalidOptionError, PlayerCountError, UnknownPresetError
from .tiles import SETS, Tile, set_size


class Start(StrEnum):
    """How the round's double reaches the table."""

    CENTRE = "centre"  # placed in the centre before the deal; in nobody's hand
    HOLDER = "holder"  # the player who holds it plays it


class MissingDouble(StrEnum):
    """What happens when nobody was dealt the round's double (only with ``Start.HOLDER``)."""

    DRAW_UNTIL_FOUND = "draw-until-found"  # players draw in turn until it appears
    NEXT_HIGHEST = "next-highest"  # the next-highest double held starts instead
    SKIP = "skip"  # the round starts from the next lower double that someone holds


class FirstPlayer(StrEnum):
    """Who makes the first play after the round's double is down."""

    ROTATE = "rotate"  # moves one seat each round
    AFTER_HOLDER = "after-holder"  # the player after whoever placed the double


class DrawPolicy(StrEnum):
    """What a player who cannot play does."""

    MAY_PLAY = "may-play"  # draw one; may play it if it fits
    MUST_PLAY = "must-play"  # draw one; must play it if it fits
    DRAW_UNTIL_PLAYABLE = "draw-until-playable"  # keep drawing until one fits or the yard is empty


class MatchLength(StrEnum):
    FULL = "full"  # one round per double, highest to 0-0
    HALF = "half"  # the first half of those rounds (rounded up)
    SINGLE = "single"  # one round, from the highest double


class TieBreak(StrEnum):
    DRAW = "draw"  # equal lowest totals: the match is a draw
    ZERO_ROUNDS = "zero-rounds"  # most rounds scored 0 wins, then lowest non-zero round
    NONE = "none"  # the rules say nothing: tied players share first place


#: A deal table entry: (set, players) -> tiles per hand.
DealTable = tuple[tuple[int, int, int], ...]


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Everything that varies between the ways real groups play Chicken Foot."""

    name: str
    title: str
    source: str = ""
    summary: str = ""
    min_players: int = 2
    max_players: int = 8
    #: Fixed set (double-N); ``None`` means chosen from the player count by ``set_by_players``.
    set: int | None = None
    #: (up to this many players, set) pairs, used when ``set`` is None.
    set_by_players: tuple[tuple[int, int], ...] = ((8, 9),)
    #: Fixed hand size; ``None`` means looked up in ``deal_table``.
    hand_size: int | None = None
    deal_table: DealTable = ()
    start: Start = Start.CENTRE
    missing_double: MissingDouble = MissingDouble.DRAW_UNTIL_FOUND
    first_player: FirstPlayer = FirstPlayer.ROTATE
    spokes: int = 6
    toes: int = 3
    draw: DrawPolicy = DrawPolicy.MAY_PLAY
    zero_zero: int = 50
    match_length: MatchLength = MatchLength.FULL
    #: Start the match from this double instead of the set's highest.
    start_double: int | None = None
    #: Match ends as soon as a player's total passes this; that player loses.
    loss_total: int | None = None
    tie_break: TieBreak = TieBreak.DRAW
    #: Chickie Sixes: the round ends when an open foot can no longer be completed.
    end_when_foot_dead: bool = False
    #: Chickie Sixes house rule: a player with one tile left must announce it.
    one_tile_call: bool = False
    notes: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        _validate(self)

    # ---------------------------------------------------------------- options
    def with_options(self, options: Mapping[str, Any] | None = None, **kw: Any) -> RuleSet:
        """A new rule set with some options changed; values may be strings (from a CLI)."""
        merged = dict(options or {})
        merged.update(kw)
        changes: dict[str, Any] = {}
        for key, raw in merged.items():
            attr = key.replace("-", "_")
            if attr not in OPTIONS:
                raise InvalidOptionError(
                    f"unknown rule option {key!r}; options are: {', '.join(sorted(OPTION_KEYS))}"
                )
            changes[attr] = OPTIONS[attr].coerce(raw)
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if isinstance(v, tuple):
                v = [list(x) if isinstance(x, tuple) else x for x in v]
            out[f.name] = v.value if isinstance(v, StrEnum) else v
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RuleSet:
        """Rebuild from ``to_dict`` output (e.g. a stored match keeps its own copy of its rules)."""
        if not isinstance(data, Mapping):
            raise InvalidOptionError("rules must be an object")
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise InvalidOptionError(f"unknown rule fields: {', '.join(sorted(unknown))}")
        kw: dict[str, Any] = {}
        for name, value in data.items():
            if name in ("set_by_players", "deal_table"):
                kw[name] = _int_rows(name, value, 2 if name == "set_by_players" else 3)
            elif name == "notes":
                kw[name] = tuple(value)
            elif name in OPTIONS:
                kw[name] = OPTIONS[name].coerce(value)
            else:
                kw[name] = value
        return cls(**kw)

    # --------------------------------------------------------- player count
    def check_players(self, players: int) -> None:
        if not isinstance(players, int) or players < self.min_players or players > self.max_players:
            allowed = (f"{self.min_players}" if self.min_players == self.max_players
                       else f"{self.min_players}-{self.max_players}")
            raise PlayerCountError(f"{self.title} is for {allowed} players, not {players}")
        top = self.set_for(players)
        need = players * self.deal_size(players) + (1 if self.start is Start.CENTRE else 0)
        if need > set_size(top):
            raise PlayerCountError(
                f"a double-{top} set has {set_size(top)} tiles: not enough to deal "
                f"{self.deal_size(players)} each to {players} players"
            )

    def set_for(self, players: int) -> int:
        """The double-N set used with this many players."""
        if self.set is not None:
            return self.set
        for upto, top in self.set_by_players:
            if players <= upto:
                return top
        return self.set_by_players[-1][1]

    def deal_size(self, players: int) -> int:
        if self.hand_size is not None:
            return self.hand_size
        top = self.set_for(players)
        for s, p, n in self.deal_table:
            if s == top and p == players:
                return n
        # No entry (a set or player count the source did not list): 7 each when it fits,
        # else as many as fit while leaving a boneyard of at least one tile per player.
        spare = set_size(top) - 1
        return max(1, min(7, (spare - players) // players))

    # --------------------------------------------------------------- rounds
    def top_double(self, players: int) -> int:
        top = self.set_for(players)
        return top if self.start_double is None else min(self.start_double, top)

    def round_doubles(self, players: int) -> list[int]:
        """The double each round starts from, in order (e.g. 9, 8, ..., 0)."""
        first = self.top_double(players)
        full = list(range(first, -1, -1))
        if self.match_length is MatchLength.SINGLE:
            return full[:1]
        if self.match_length is MatchLength.HALF:
            return full[: math.ceil(len(full) / 2)]
        return full

    def rotating_first_seat(self, round_index: int, players: int) -> int:
        """With ``FirstPlayer.ROTATE``: seat that plays first in round ``round_index`` (0-based)."""
        return round_index % players

    def seat_after(self, seat: int, players: int) -> int:
        return (seat + 1) % players

    # -------------------------------------------------------------- scoring
    def tile_penalty(self, tile: Tile) -> int:
        return self.zero_zero if tile.low == 0 and tile.high == 0 else tile.pips

    def penalty(self, tiles: Iterable[Tile]) -> int:
        """Penalty points for the tiles left in a hand (0-0 per the rules)."""
        return sum(self.tile_penalty(t) for t in tiles)

    def describe(self) -> list[str]:
        """Sentences a player understands, generated from the data (used by the app's rules page)."""
        return describe(self)


@dataclass(frozen=True, slots=True)
class Option:
    """A rule option the user can set, with the sentence that explains it."""

    key: str
    kind: type
    help: str
    choices: tuple[Any, ...] | None = None
    nullable: bool = False
    low: int | None = None
    high: int | None = None

    @property
    def name(self) -> str:
        """How people write the option (``zero-zero``); ``key`` is the field (``zero_zero``)."""
        return self.key.replace("_", "-")

    def coerce(self, raw: Any) -> Any:
        # "none" is a real value for some enums (tie-break=none); it means "unset" only where
        # the option can be unset.
        blank = isinstance(raw, str) and raw.strip().lower() in ("none", "null", "")
        if raw is None or (blank and self.nullable):
            if self.nullable:
                return None
            raise InvalidOptionError(f"option {self.name!r} needs a value")
        try:
            if issubclass(self.kind, StrEnum):
                value: Any = self.kind(str(raw).strip().lower())
            elif self.kind is bool:
                if isinstance(raw, bool):
                    value = raw
                elif str(raw).strip().lower() in ("1", "true", "yes", "on"):
                    value = True
                elif str(raw).strip().lower() in ("0", "false", "no", "off"):
                    value = False
                else:
                    raise ValueError(raw)
            elif self.kind is int:
                if isinstance(raw, bool):
                    raise ValueError(raw)
                value = int(str(raw).strip()) if not isinstance(raw, int) else raw
            else:
                value = self.kind(raw)
        except ValueError:
            allowed = self._allowed()
            raise InvalidOptionError(f"option {self.name!r}: {raw!r} is not allowed ({allowed})") from None
        if self.choices is not None and value not in self.choices:
            raise InvalidOptionError(f"option {self.name!r}: {raw!r} is not allowed ({self._allowed()})")
        if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
            raise InvalidOptionError(f"option {self.name!r}: {raw!r} is not allowed ({self._allowed()})")
        return value

    def allowed(self) -> str:
        """The values the option takes, in words: "one of 3, 4, 6", "a whole number 1-6"."""
        return self._allowed()

    def _allowed(self) -> str:
        if issubclass(self.kind, StrEnum):
            return "one of " + ", ".join(m.value for m in self.kind)
        if self.choices is not None:
            return "one of " + ", ".join(str(c) for c in self.choices) + (" or none" if self.nullable else "")
        if self.kind is bool:
            return "true or false"
        rng = f"{self.low if self.low is not None else ''}-{self.high if self.high is not None else ''}"
        return f"a whole number {rng}" + (" or none" if self.nullable else "")


OPTIONS: dict[str, Option] = {
    o.key: o
    for o in (
        Option("set", int, "Which set: double-6, 9, 12, 15 or 18 (none: chosen from the player count).",
               choices=SETS, nullable=True),
        Option("hand_size", int, "Tiles dealt to each player (none: from the deal table for the set and player count).",
               nullable=True, low=1, high=60),
        Option("start", Start, "How the round's double reaches the table: placed in the centre before the deal, or played by the player who holds it."),
        Option("missing_double", MissingDouble, "When nobody holds the round's double: draw in turn until it is found, let the next-highest double held start, or skip to the next lower double."),
        Option("first_player", FirstPlayer, "Who plays first: the seat moves one place each round, or the player after whoever placed the double."),
        Option("spokes", int, "Tiles the round's double needs around it before anything else is played: 6 (double chicken foot), 4 (plus sign) or 3.",
               choices=(3, 4, 6)),
        Option("toes", int, "Toes every later double needs before play moves elsewhere.", low=1, high=6),
        Option("draw", DrawPolicy, "A player who cannot play draws one tile and may play it, must play it, or keeps drawing until a tile fits."),
        Option("zero_zero", int, "Penalty for the double-blank (0-0) left in a hand: 50, 25 or 0.",
               choices=(50, 25, 0)),
        Option("match_length", MatchLength, "Match length: every double down to 0-0, the first half of those rounds, or a single round."),
        Option("start_double", int, "Start the match from this double instead of the set's highest (none: the highest).",
               nullable=True, low=0, high=18),
        Option("loss_total", int, "End the match as soon as a player's total passes this number; that player loses (none: play every round).",
               nullable=True, low=1, high=100000),
        Option("tie_break", TieBreak, "Equal lowest totals: a draw, or most rounds scored 0 then lowest non-zero round, or shared first place."),
        Option("end_when_foot_dead", bool, "End the round when an open foot can no longer be completed because its tiles are all played."),
        Option("one_tile_call", bool, "A player with one tile left must announce it or draw (reminder only; the scorekeeper does not enforce it)."),
        Option("min_players", int, "Fewest players.", low=2, high=8),
        Option("max_players", int, "Most players.", low=2, high=8),
    )
}
OPTION_KEYS = tuple(k.replace("_", "-") for k in OPTIONS)


def _int_rows(name: str, value: Any, width: int) -> tuple[tuple[int, ...], ...]:
    """A table such as ``deal_table`` read back from JSON, refusing anything of the wrong shape."""
    try:
        rows = tuple(tuple(int(x) for x in row) for row in value)
    except (TypeError, ValueError):
        rows = ()
        ok = False
    else:
        ok = all(len(r) == width and all(0 <= x <= 100 for x in r) for r in rows)
    if not ok or isinstance(value, str | bytes):
        raise InvalidOptionError(f"{name} must be a list of rows of {width} small whole numbers")
    return rows


def _validate(r: RuleSet) -> None:
    if not r.name:
        raise InvalidOptionError("a rule set needs a name")
    if r.min_players > r.max_players:
        raise InvalidOptionError(f"min_players {r.min_players} is above max_players {r.max_players}")
    if r.set is not None and r.set not in SETS:
        raise InvalidOptionError(f"set must be one of {', '.join(map(str, SETS))}")
    if r.start_double is not None and r.set is not None and r.start_double > r.set:
        raise InvalidOptionError(f"start_double {r.start_double} is above the set's highest double {r.set}")
    if r.spokes not in (3, 4, 6):
        raise InvalidOptionError("spokes must be 3, 4 or 6")
    if r.zero_zero not in (0, 25, 50):
        raise InvalidOptionError("zero_zero must be 50, 25 or 0")


D9_D12_DEAL: DealTable = (
    (9, 2, 20), (9, 3, 14), (9, 4, 11), (9, 5, 9), (9, 6, 7),
    (12, 7, 10), (12, 8, 9),
)

PRESETS: dict[str, RuleSet] = {
    r.name: r
    for r in (
        RuleSet(
            name="double-chicken-foot",
            title="Double Chicken Foot",
            source="“Chicken Foot”, the rules page of an online Dominoes game",
            summary="2-8 players; double-9 up to 6 players, double-12 for 7-8; the round's double "
            "starts in the centre and needs six spokes.",
            min_players=2, max_players=8,
            set_by_players=((6, 9), (8, 12)),
            deal_table=D9_D12_DEAL,
            start=Start.CENTRE,
            first_player=FirstPlayer.ROTATE,
            spokes=6, toes=3, draw=DrawPolicy.MAY_PLAY, zero_zero=50,
            tie_break=TieBreak.DRAW,
        ),
        RuleSet(
            name="gameweave",
            title="Gameweave Chickenfoot",
            source="“Chickenfoot”, Gameweave edition",
            summary="2-6 players, double-9, 7 tiles each, ten rounds; the holder of the round's "
            "double plays it and the player to their left goes next.",
            min_players=2, max_players=6,
            set=9, hand_size=7,
            start=Start.HOLDER, missing_double=MissingDouble.DRAW_UNTIL_FOUND,
            first_player=FirstPlayer.AFTER_HOLDER,
            spokes=6, toes=3, draw=DrawPolicy.MAY_PLAY, zero_zero=50,
            tie_break=TieBreak.NONE,
        ),
        RuleSet(
            name="pagat",
            title="Chicken Foot (pagat-style)",
            source="“Pileće nožne domine” (Chicken Foot Dominoes), a Croatian rules page",
            summary="2-8 players, double-9 (double-12 for 8), 7 tiles each; the round's double is "
            "placed by its holder and needs four spokes; ties go to most zero rounds.",
            min_players=2, max_players=8,
            set_by_players=((7, 9), (8, 12)),
            hand_size=7,
            start=Start.HOLDER, missing_double=MissingDouble.DRAW_UNTIL_FOUND,
            first_player=FirstPlayer.AFTER_HOLDER,
            spokes=4, toes=3, draw=DrawPolicy.MAY_PLAY, zero_zero=50,
            tie_break=TieBreak.ZERO_ROUNDS,
        ),
        RuleSet(
            name="chickie-sixes",
            title="Chickie Sixes",
            source="“Chickie Sixes”, EngravedDominoes.com",
            summary="2 players, double-6, 5 tiles each, seven rounds; a plus-sign start, a drawn "
            "tile that fits must be played.",
            min_players=2, max_players=2,
            set=6, hand_size=5,
            start=Start.HOLDER, missing_double=MissingDouble.NEXT_HIGHEST,
            first_player=FirstPlayer.AFTER_HOLDER,
            # The seed counts the dots; 50 or 25 for the 0-0 is a house rule it names (and
            # only plays with engraved sets), so those are options here.
            spokes=4, toes=3, draw=DrawPolicy.MUST_PLAY, zero_zero=0,
            tie_break=TieBreak.NONE,
            end_when_foot_dead=True,
        ),
    )
}
DEFAULT_PRESET = "double-chicken-foot"


def get_rules(name: str = DEFAULT_PRESET, options: Mapping[str, Any] | None = None) -> RuleSet:
    """A preset by name (any case, ``_`` read as ``-``: ``Pagat``, ``Double_Chicken_Foot``),
    with options applied."""
    try:
        base = PRESETS[name] if name in PRESETS else PRESETS[name.strip().lower().replace("_", "-")]
    except (KeyError, AttributeError):
        raise UnknownPresetError(
            f"unknown rules preset {name!r}; presets are: {', '.join(PRESETS)}"
        ) from None
    return base.with_options(options) if options else base


def option_value(value: Any) -> Any:
    """An option's value as JSON and the command line write it."""
    return value.value if isinstance(value, StrEnum) else value


def changed_options(rules: RuleSet) -> dict[str, Any]:
    """The options of ``rules`` that differ from its preset's, by their written names
    (``{"spokes": 4}``): what a file must carry besides the preset's name to mean these rules."""
    base = PRESETS.get(rules.name)
    return {o.name: option_value(getattr(rules, o.key)) for o in OPTIONS.values()
            if base is None or getattr(rules, o.key) != getattr(base, o.key)}


def parse_option(text: str) -> tuple[str, str]:
    """Split a CLI ``KEY=VALUE`` option."""
    if "=" not in text:
        raise InvalidOptionError(f"option {text!r} must be written KEY=VALUE")
    key, value = text.split("=", 1)
    return key.strip(), value.strip()


#: What the players do when nobody was dealt the round's double (the rules page, a match's
#: next round), one sentence per :class:`MissingDouble`.
MISSING_DOUBLE_WORDS = {
    MissingDouble.DRAW_UNTIL_FOUND: ("If nobody holds it, players draw one tile at a time in turn until it appears; "
                                     "whoever finds it places it."),
    MissingDouble.NEXT_HIGHEST: ("If nobody holds it, the next-highest double held starts the round instead; if nobody "
                                 "holds a lower double either, players draw one tile at a time in turn until one appears."),
    MissingDouble.SKIP: "If nobody holds it, the round starts from the next lower double that someone holds.",
}


def describe(r: RuleSet) -> list[str]:
    lines = []
    if r.set is not None:
        lines.append(f"Played with a double-{r.set} set ({set_size(r.set)} tiles).")
    else:
        parts = []
        lo = r.min_players
        for upto, top in r.set_by_players:
            if upto >= lo:
                hi = min(upto, r.max_players)
                who = f"{lo} players" if lo == hi else f"{lo}-{hi} players"
                parts.append(f"double-{top} for {who}")
                lo = upto + 1
        lines.append("Set: " + "; ".join(parts) + ".")
    if r.hand_size is not None:
        lines.append(f"Each player is dealt {r.hand_size} tiles.")
    elif r.deal_table:
        by_set: dict[int, list[str]] = {}
        for s, p, n in r.deal_table:
            by_set.setdefault(s, []).append(f"{n} with {p}")
        lines.append("Deal: " + "; ".join(f"double-{s}: {', '.join(v)} players" for s, v in by_set.items()) + ".")
    rounds = {MatchLength.FULL: "one round per double, from the highest down to 0-0",
              MatchLength.HALF: "the first half of the rounds, from the highest double down",
              MatchLength.SINGLE: "a single round, from the highest double"}[r.match_length]
    start = ""
    if r.start_double is not None:  # capped by the set in play (top_double): say so where it may be
        capped = r.set is None and r.start_double > min(top for _, top in r.set_by_players)
        start = (f", starting from {r.start_double}-{r.start_double}"
                 + (" (or the set's highest double, if lower)" if capped else ""))
    lines.append(f"A match is {rounds}{start}.")
    if r.start is Start.CENTRE:
        lines.append("The round's double is placed in the centre before the deal.")
    else:
        lines.append("The player who holds the round's double plays it.")
        lines.append(MISSING_DOUBLE_WORDS[r.missing_double])
    if r.first_player is FirstPlayer.ROTATE:
        lines.append("The first turn moves one seat each round.")
    elif r.start is Start.CENTRE:  # nobody placed it: the engine falls back to the rotating seat
        lines.append("Nobody placed the double, so the first turn moves one seat each round.")
    else:
        lines.append("The player after whoever placed the double plays first.")
    lines.append(f"The round's double needs {r.spokes} spokes before any other play.")
    lines.append(f"Every later double closes its line and needs {r.toes} toes before play goes anywhere else.")
    lines.append({
        DrawPolicy.MAY_PLAY: "A player who cannot play draws one tile and may play it if it fits, else passes.",
        DrawPolicy.MUST_PLAY: "A player who cannot play draws one tile and must play it if it fits, else passes.",
        DrawPolicy.DRAW_UNTIL_PLAYABLE: "A player who cannot play draws until a tile fits or the boneyard is empty.",
    }[r.draw])
    if r.end_when_foot_dead:
        lines.append("The round also ends when an open foot can no longer be completed.")
    lines.append(f"Tiles left in hand are penalty points; the 0-0 counts {r.zero_zero}.")
    if r.loss_total is not None:
        lines.append(f"The match ends when a player's total passes {r.loss_total}; that player loses.")
    lines.append({
        TieBreak.DRAW: "Lowest total wins; equal lowest totals are a draw.",
        TieBreak.ZERO_ROUNDS: "Lowest total wins; on a tie, most rounds scored 0 wins, then the lowest non-zero round.",
        TieBreak.NONE: "Lowest total wins; tied players share first place.",
    }[r.tie_break])
    if r.one_tile_call:
        lines.append("A player with one tile left must say so, or draw a tile.")
    return lines
