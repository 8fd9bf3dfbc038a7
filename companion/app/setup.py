"""The "new match" form as a state object: seating, preset, options, and what they imply.

Every number shown (set, deal size, rounds) is asked of the :class:`RuleSet`; the form only
collects choices and reports every problem at once (``problems()``), like a status check.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from chickenfoot.rules import OPTIONS, PRESETS, RuleSet, get_rules
from chickenfoot.rules.errors import ChickenFootError, InputError
from chickenfoot.rules.tiles import set_size

MAX_NAME = 24


class SetupError(InputError):
    """A new-match choice that cannot be used (empty name, duplicate name, bad option)."""


def clean_name(name: str, others: list[str]) -> str:
    """A player's name as kept (spaces tidied), or :class:`SetupError` saying why it cannot be:
    empty, longer than :data:`MAX_NAME`, or the name of one of ``others`` in any case."""
    name = " ".join(str(name).split())
    if not name:
        raise SetupError("a player needs a name")
    if len(name) > MAX_NAME:
        raise SetupError(f"names are at most {MAX_NAME} characters")
    for other in others:
        if other.casefold() == name.casefold():
            raise SetupError(f"there is already a player called {other}")
    return name


@dataclass(frozen=True, slots=True)
class OptionView:
    """One rule option as the form shows it: its sentence, current value and allowed values."""

    key: str
    help: str
    value: Any
    choices: tuple[str, ...]
    changed: bool  # differs from the preset's own value

    @property
    def label(self) -> str:
        return LABELS.get(self.key, self.key.replace("_", " ").capitalize())


LABELS = {
    "hand_size": "Tiles each",
    "zero_zero": "0-0 counts",
    "start_double": "First round's double",
    "loss_total": "Stop at total",
    "end_when_foot_dead": "End when a foot is dead",
    "one_tile_call": "Call \"one tile\"",
    "missing_double": "Nobody has the double",
    "first_player": "Who plays first",
    "draw": "Drawing",
    "tie_break": "Tie-break",
}


#: Options shown on the form, in the order a table talks about them.
FORM_OPTIONS = (
    "set", "hand_size", "spokes", "toes", "zero_zero", "start", "missing_double",
    "first_player", "draw", "match_length", "start_double", "loss_total", "tie_break",
    "end_when_foot_dead", "one_tile_call",
)


def _choices(key: str) -> tuple[str, ...]:
    opt = OPTIONS[key]
    if isinstance(opt.kind, type) and issubclass(opt.kind, str) and opt.kind is not str:
        vals = [m.value for m in opt.kind]  # type: ignore[attr-defined]
    elif opt.kind is bool:
        vals = ["true", "false"]
    elif opt.choices is not None:
        vals = [str(c) for c in opt.choices]
    else:
        vals = []  # free number: a text field
    if opt.nullable:
        vals = ["none", *vals] if vals else vals
    return tuple(vals)


def fmt_value(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(getattr(value, "value", value))


class MatchSetup:
    def __init__(self, preset: str = "double-chicken-foot", options: dict[str, Any] | None = None,
                 players: list[str] | None = None) -> None:
        #: Whether the options' panel is open (a choice redraws the form; the panel stays as it was).
        self.options_open = False
        self.players: list[str] = []
        #: A name typed and not added yet (refused: a name taken, too long), kept for fixing.
        self.name_typed = ""
        self.preset = preset
        self.options: dict[str, Any] = {}
        self.set_preset(preset)
        for k, v in (options or {}).items():
            self.set_option(k, v)
        for p in players or []:
            self.add_player(p)

    # ------------------------------------------------------------ players
    def _clean(self, name: str, ignore: int | None = None) -> str:
        return clean_name(name, [p for i, p in enumerate(self.players) if i != ignore])

    def add_player(self, name: str) -> None:
        if len(self.players) >= 8:
            raise SetupError("at most 8 players")
        self.players.append(self._clean(name))

    def rename_player(self, index: int, name: str) -> None:
        self.players[index] = self._clean(name, ignore=index)

    def remove_player(self, index: int) -> None:
        del self.players[index]

    def move_player(self, index: int, delta: int) -> None:
        """Move a seat up (-1) or down (+1); seating order is playing order."""
        j = index + delta
        if not (0 <= index < len(self.players)) or not (0 <= j < len(self.players)):
            return
        self.players[index], self.players[j] = self.players[j], self.players[index]

    # ------------------------------------------------------------- rules
    def set_preset(self, name: str) -> None:
        if name not in PRESETS:
            raise SetupError(f"unknown rules preset {name!r}")
        self.preset = name
        self.options = {}

    def set_option(self, key: str, raw: Any) -> None:
        key = key.replace("-", "_")
        if key not in OPTIONS:
            raise SetupError(f"unknown rule option {key!r}")
        try:
            value = OPTIONS[key].coerce(raw)
            get_rules(self.preset, {**self.options, key: value})
        except ChickenFootError as exc:
            raise SetupError(str(exc)) from None
        if value == getattr(PRESETS[self.preset], key):
            self.options.pop(key, None)
        else:
            self.options[key] = value

    @property
    def rules(self) -> RuleSet:
        return get_rules(self.preset, self.options)

    def option_views(self) -> list[OptionView]:
        base, rules = PRESETS[self.preset], self.rules
        return [
            OptionView(k, OPTIONS[k].help, getattr(rules, k), _choices(k),
                       getattr(rules, k) != getattr(base, k))
            for k in FORM_OPTIONS
        ]

    # ------------------------------------------------------ what follows
    def problems(self) -> list[str]:
        out = []
        r = self.rules
        if len(self.players) < r.min_players:
            out.append(f"{r.title} needs at least {r.min_players} players")
        elif len(self.players) > r.max_players:
            out.append(f"{r.title} is for at most {r.max_players} players")
        else:
            try:
                r.check_players(len(self.players))
            except ChickenFootError as exc:
                out.append(str(exc))
        return out

    @property
    def ready(self) -> bool:
        return not self.problems()

    def to_do(self) -> str | None:
        """The next step while too few players are named, said as a step to take, not as a
        mistake ("Add 2 players to start: Pagat is for 2 to 8"); None once there are enough."""
        r, n = self.rules, len(self.players)
        if n >= r.min_players:
            return None
        need = r.min_players - n
        who = "players" if not n else ("more players" if need > 1 else "more player")
        return f"Add {need} {who} to start: {r.title} is for {r.min_players} to {r.max_players} players."

    def mistakes(self) -> list[str]:
        """What is wrong with the choices (said in red): the problems less a step still to take."""
        return [] if self.to_do() else self.problems()

    def summary(self) -> list[str]:
        """What the choices mean at the table: set, deal, rounds (for the current player count)."""
        r, n = self.rules, len(self.players)
        lines = [r.summary] if r.summary else []
        if n >= 1 and not self.problems():
            top = r.set_for(n)
            doubles = r.round_doubles(n)
            lines.append(
                f"With {n} players: double-{top} set ({set_size(top)} tiles), "
                f"{r.deal_size(n)} tiles each, {len(doubles)} round{'s' if len(doubles) != 1 else ''} "
                f"from {doubles[0]}-{doubles[0]} down to {doubles[-1]}-{doubles[-1]}."
            )
        return lines
