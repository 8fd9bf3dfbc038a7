"""What the table needs to hear before a round, and the rules page: all generated from RuleSets.

Nothing here decides a rule; it puts into words what the :class:`RuleSet` says, so the app
can never disagree with the engine.
"""

from __future__ import annotations

from dataclasses import dataclass

from chickenfoot.rules import PRESETS, FirstPlayer, MissingDouble, RuleSet, Start
from chickenfoot.rules.tiles import set_size


@dataclass(frozen=True, slots=True)
class RoundBrief:
    number: int  # 1-based
    of: int
    double: int
    set_top: int
    deal: int
    first_seat: int | None  # None: depends on who holds the double
    first_player: str
    why_first: str
    missing_double: str
    reminder: str

    @property
    def double_text(self) -> str:
        return f"{self.double}-{self.double}"


def round_brief(rules: RuleSet, players: list[str], round_index: int,
                first_seat: int | None = None) -> RoundBrief:
    """The brief for round ``round_index`` (0-based). ``first_seat`` overrides (from the match)."""
    n = len(players)
    doubles = rules.round_doubles(n)
    d = doubles[round_index]
    dd = f"{d}-{d}"
    if rules.first_player is FirstPlayer.ROTATE:
        seat = rules.rotating_first_seat(round_index, n) if first_seat is None else first_seat
        who = players[seat]
        nxt = players[rules.seat_after(seat, n)]
        why = f"Seat {seat + 1} starts round {round_index + 1}; the next round starts with {nxt}."
    else:
        seat = first_seat
        who = players[seat] if seat is not None else f"the player after whoever plays {dd}"
        why = f"Whoever holds {dd} plays it; the next player in seating order goes first."
    if rules.start is Start.CENTRE:
        place = f"Take {dd} out of the set and put it in the centre before dealing."
        missing = f"{dd} starts in the centre, so nobody has to find it."
    else:
        place = f"The player holding {dd} puts it down to start the round."
        missing = {
            MissingDouble.DRAW_UNTIL_FOUND:
                f"If nobody holds {dd}, players draw one tile each in turn until someone finds it; "
                "that player puts it down.",
            MissingDouble.NEXT_HIGHEST:
                f"If nobody holds {dd}, the player with the next-highest double starts with it instead.",
            MissingDouble.SKIP:
                f"If nobody holds {dd}, start from the next lower double that someone holds.",
        }[rules.missing_double]
    reminder = (f"{place} It needs {rules.spokes} spokes before any other play. "
                f"Every later double closes its line and needs {rules.toes} toes first.")
    return RoundBrief(round_index + 1, len(doubles), d, rules.set_for(n), rules.deal_size(n),
                      seat, who, why, missing, reminder)


@dataclass(frozen=True, slots=True)
class RulesSection:
    name: str
    title: str
    source: str
    summary: str
    lines: tuple[str, ...]
    players: str


#: How every preset is played, for a player who has never played: the words the presets' own
#: lines build on (each preset then says its numbers: spokes, toes, drawing, the 0-0).
BASICS = (
    "Everyone plays alone. A round starts from one double, the hub, in the middle of the table: the "
    "set's highest double in the first round, one lower each round after, down to 0-0.",
    "A tile is laid against an open end that shows the same number. The hub's tiles are its spokes; "
    "each spoke starts a line, which goes on from its open end.",
    "The hub needs all its spokes before a tile goes anywhere else.",
    "A double laid at the end of a line closes it and makes a chicken foot: it needs its toes, tiles "
    "with its number laid against it, before a tile goes anywhere else.",
    "A player who cannot lay a tile draws one from the boneyard (the tiles not dealt); if it fits it "
    "can be laid, else the turn passes. With the boneyard empty, a player who cannot lay a tile passes.",
    "The round ends when a player lays their last tile, or when nobody can lay one and the boneyard "
    "is empty. The tiles left in each hand are penalty points (their pips; the 0-0 counts more in "
    "most presets). After the last round the lowest total wins.",
)


def rules_sections() -> list[RulesSection]:
    """One section per preset for the rules page, straight from ``RuleSet.describe()``."""
    out = []
    for r in PRESETS.values():
        sets = sorted({r.set_for(p) for p in range(r.min_players, r.max_players + 1)})
        players = f"{r.min_players}-{r.max_players} players" if r.min_players != r.max_players \
            else f"{r.min_players} players"
        players += "; " + ", ".join(f"double-{s} ({set_size(s)} tiles)" for s in sets)
        out.append(RulesSection(r.name, r.title, r.source, r.summary, tuple(r.describe()), players))
    return out
