"""The table as a tree, the layout file format, whole-layout checks and disputed plays.

The round's double is the hub. Tiles laid against it are its spokes; every other tile hangs off
exactly one tile already on the table, so the table is a tree and, since tiles are unique in a
set, a position is named by the tile it attaches to. A non-double tile has one free end; a double
closes its line and takes up to ``toes`` tiles (the hub takes ``spokes``).

Two shapes of the same thing live here:

* :class:`Layout` is the description: hub plus plays in the order they were made (or with
  ``ordered=False`` when the order is unknown, as from a photo). It is what the JSON file holds.
* :class:`Table` is the live tree with the indices the engine needs (open ends by value, doubles
  still short of spokes/toes) and judges one play with a stable reason code.

:func:`check_layout` returns every problem of a layout at once, like python-chess's ``status()``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import jsontext
from .errors import IllegalPlayError, InputError, InvalidTileError, TileNotInSetError
from .plays import OFFERS, Play, legal_plays
from .ruleset import DEFAULT_PRESET, OPTIONS, RuleSet, changed_options, get_rules, option_value
from .tiles import MAX_SET, SETS, Tile
from .words import article, count

# ----------------------------------------------------------------------------- reason codes
OK = "ok"
NOT_IN_SET = "not-in-set"
ALREADY_PLAYED = "already-played"
UNKNOWN_TARGET = "unknown-target"
NO_MATCH = "no-match"
END_TAKEN = "end-taken"
HUB_INCOMPLETE = "hub-incomplete"
FOOT_INCOMPLETE = "foot-incomplete"

#: Every reason code with the general sentence the app shows beside it. The codes are stable:
#: the app, the CLI's JSON and stored disputes refer to them.
REASONS: dict[str, str] = {
    OK: "The play is legal.",
    NOT_IN_SET: "That tile is not in the set being played.",
    ALREADY_PLAYED: "That tile is already on the table; every tile is unique in a set.",
    UNKNOWN_TARGET: "The tile it is played on is not on the table.",
    NO_MATCH: "The touching ends do not show the same number.",
    END_TAKEN: "There is no free place there: the line already continues, the double already "
    "has its toes, or the starting double has all its spokes.",
    HUB_INCOMPLETE: "The starting double needs all its spokes before anything else is played.",
    FOOT_INCOMPLETE: "A double played earlier still needs its toes; every play must go on it "
    "until it has them.",
}
REASON_CODES: tuple[str, ...] = tuple(REASONS)


class LayoutError(InputError):
    """A layout description that cannot be used at all (bad JSON, missing hub, bad shape)."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """The judgement of one play: a stable ``code`` and a sentence a player understands."""

    code: str
    message: str
    tile: Tile
    on: Tile
    #: Number left open on the tile's free end when the play is legal.
    orientation: int | None = None

    @property
    def legal(self) -> bool:
        return self.code == OK

    def to_dict(self) -> dict[str, Any]:
        return {
            "tile": str(self.tile),
            "on": str(self.on),
            "legal": self.legal,
            "code": self.code,
            "message": self.message,
        }


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a layout. ``index`` is the play's position in the file (0-based)."""

    code: str
    message: str
    tile: Tile | None = None
    on: Tile | None = None
    index: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "message": self.message,
            "tile": None if self.tile is None else str(self.tile),
            "on": None if self.on is None else str(self.on),
            "index": self.index,
        }


# ------------------------------------------------------------------------------ the table
class Table:
    """The live tree of tiles on the table, with the indices legal-play generation needs.

    ``value[t]`` is the number a tile laid against ``t`` must show (a double's own number, a
    line tile's free end). ``ends[v]`` lists line tips (non-doubles with nothing on them) whose
    free end shows ``v``. ``short[d]`` is how many spokes/toes the double ``d`` still needs; the
    hub is short until it has its spokes, a later double until it has its toes.
    """

    __slots__ = ("_kids", "ends", "hub", "offers", "parent", "short", "spokes", "toes", "top", "value")

    def __init__(self, hub: Tile, *, spokes: int, toes: int, top: int) -> None:
        if not hub.is_double:
            raise LayoutError(f"the hub must be a double, not {hub}")
        self.hub = hub
        self.spokes = spokes
        self.toes = toes
        self.top = top
        self.value: dict[Tile, int] = {hub: hub.low}
        self.parent: dict[Tile, Tile | None] = {hub: None}
        self._kids: dict[Tile, list[Tile]] | None = None
        self.ends: list[list[Tile]] = [[] for _ in range(MAX_SET + 2)]  # + NO_END
        # offers[v][i] is OFFERS[ends[v][i]]: every play onto that tip, by tile
        self.offers: list[list[dict[Tile, Play]]] = [[] for _ in range(MAX_SET + 2)]
        self.short: dict[Tile, int] = {hub: spokes} if spokes > 0 else {}

    @classmethod
    def for_rules(cls, hub: Tile, rules: RuleSet, top: int) -> Table:
        return cls(hub, spokes=rules.spokes, toes=rules.toes, top=top)

    def copy(self) -> Table:
        new = Table.__new__(Table)
        new.hub, new.spokes, new.toes, new.top = self.hub, self.spokes, self.toes, self.top
        new.value = dict(self.value)
        new.parent = dict(self.parent)
        new._kids = None
        new.ends = [list(e) for e in self.ends]
        new.offers = [list(e) for e in self.offers]
        new.short = dict(self.short)
        return new

    # ----------------------------------------------------------------------- queries
    def __contains__(self, tile: object) -> bool:
        return tile in self.value

    def __len__(self) -> int:
        """Tiles on the table, hub included."""
        return len(self.value)

    def tiles(self) -> list[Tile]:
        """The hub, then every tile in the order it was laid."""
        return list(self.parent)

    @property
    def order(self) -> list[Tile]:
        """Every tile but the hub, in the order it was laid."""
        return list(self.parent)[1:]

    @property
    def kids(self) -> dict[Tile, list[Tile]]:
        """The tiles laid against each tile, in the order they were laid (read-only)."""
        # Built when asked for, not on every attach: the round engine never needs it.
        # The table only grows, so a cache as long as the table is up to date.
        kids = self._kids
        if kids is None or len(kids) != len(self.parent):
            kids = {t: [] for t in self.parent}
            for t, p in self.parent.items():
                if p is not None:
                    kids[p].append(t)
            self._kids = kids
        return kids

    @property
    def hub_complete(self) -> bool:
        return self.hub not in self.short

    @property
    def confined_to(self) -> Tile | None:
        """The double every play must go on now, or None. ``short`` keeps the order doubles
        became short in (the hub from the start, a foot when laid), so its first is the hub
        until it has its spokes, then the foot opened first: on a wrong table with a second foot
        open, that one waits."""
        return next(iter(self.short), None)

    @property
    def open_feet(self) -> list[Tile]:
        """Doubles other than the hub still short of toes (more than one only in a wrong layout)."""
        return [d for d in self.short if d != self.hub]

    @property
    def open_foot(self) -> Tile | None:
        for d in self.short:
            if d != self.hub:
                return d
        return None

    def show(self, tile: Tile, toward: int | None = None) -> str:
        """A tile as a player reads it on the table: the half that touches first ("9-4" on the
        9-9, "4-1" on the 9-4). A tile not on the table is turned toward ``toward`` if it has it."""
        parent = self.parent.get(tile)
        if parent is not None:
            toward = self.value[parent]
        if toward is not None and tile.has(toward) and tile.low != tile.high:
            return f"{toward}-{tile.other(toward)}"
        return str(tile)

    def capacity(self, tile: Tile) -> int:
        if tile == self.hub:
            return self.spokes
        return self.toes if tile.is_double else 1

    def open_ends(self) -> list[OpenEnd]:
        """Every place a tile could be laid, ignoring whose turn it is, in table order."""
        out = []
        restricted = self._restricted_targets()
        for t in self.tiles():
            kids = len(self.kids[t])
            if t in self.short:
                slots = self.short[t]
            elif not t.is_double and kids == 0:
                slots = 1
            else:
                continue
            kind = "hub" if t == self.hub else ("foot" if t.is_double else "line")
            playable = restricted is None or t in restricted
            out.append(OpenEnd(t, self.value[t], slots, kind, playable, self.show(t)))
        return out

    def _restricted_targets(self) -> list[Tile] | None:
        """Where play is confined right now (the short hub, or the open foot), or None."""
        first = self.confined_to
        return None if first is None else [first]

    def legal_plays(self, tiles: Tile | Iterable[Tile]) -> Iterator[Play]:
        return legal_plays(self, tiles)

    # ----------------------------------------------------------------------- judging
    def judge(self, tile: Tile, on: Tile) -> Verdict:
        """Judge laying ``tile`` against ``on``; the table is not changed."""
        show = self.show
        if not tile.in_set(self.top):
            return Verdict(NOT_IN_SET, f"{tile} is not in a double-{self.top} set "
                           f"(the numbers go up to {self.top}).", tile, on)
        if tile in self.value:
            where = "as the starting double" if tile == self.hub else f"on the {show(self.parent[tile])}"  # type: ignore[arg-type]
            return Verdict(ALREADY_PLAYED, f"{show(tile)} is already on the table ({where}); every "
                           "tile is unique in a set.", tile, on)
        if on not in self.value:
            return Verdict(UNKNOWN_TARGET, f"There is no {on} on the table to play {tile} on.",
                           tile, on)
        v = self.value[on]
        shown = show(tile, v)
        first = self.confined_to
        if first is not None and on != first:
            need = self.short[first]
            if first == self.hub:
                return Verdict(HUB_INCOMPLETE, f"The {first} still needs {count(need, 'more spoke')}"
                               " before anything else.", tile, on)
            return Verdict(FOOT_INCOMPLETE, f"The {first} still needs {count(need, 'toe')} before "
                           "anything else.", tile, on)
        taken = self.taken(tile, on)
        if taken is not None:
            return taken
        if not tile.has(v):
            where = f"the {on}" if on.is_double else f"the open {v} of the {show(on)}"
            return Verdict(NO_MATCH, f"{tile} has no {v}, so it cannot go on {where}.", tile, on)
        free = tile.other(v)
        if tile.is_double:
            tail = f"it closes that line and needs {count(self.toes, 'toe')}."
        else:
            tail = f"it leaves {article(free)} {free} open."
        role = " as a spoke" if on == self.hub else (" as a toe" if on.is_double else "")
        return Verdict(OK, f"{shown} can go on the {show(on)}{role}; {tail}", tile, on, free)

    def taken(self, tile: Tile, on: Tile) -> Verdict | None:
        """The END_TAKEN verdict when ``on`` has no free place left for ``tile``, else None:
        whose turn it is and which double must be filled first aside."""
        if on in self.short:
            return None
        if on == self.hub:
            return Verdict(END_TAKEN, f"The {on} already has its {count(self.spokes, 'spoke')}.", tile, on)
        if on.is_double:
            return Verdict(END_TAKEN, f"The {on} already has its {count(self.toes, 'toe')}.", tile, on)
        v = self.value[on]
        if on in self.ends[v]:  # a line tile is an open end until something is laid on it
            return None
        kid = self.kids[on][0]
        where = ("play on that double's toes or past them" if kid.is_double
                 else "play at the open end of that line")
        return Verdict(END_TAKEN, f"The {self.show(on)} already has the {self.show(kid)} played on "
                       f"its {v}; {where}.", tile, on)

    # ----------------------------------------------------------------------- changing
    def place(self, tile: Tile, on: Tile) -> Verdict:
        """Lay ``tile`` against ``on`` if legal; raises :class:`IllegalPlayError` otherwise."""
        verdict = self.judge(tile, on)
        if not verdict.legal:
            raise IllegalPlayError(verdict.message, verdict.code)
        self.attach(tile, on)
        return verdict

    def attach(self, tile: Tile, on: Tile, free: int = -1) -> None:
        """Lay ``tile`` against ``on`` without judging (the engine has already checked it).

        Also used to rebuild a layout that breaks rules (a second tile on a line tip, a play
        while the hub is short) so that the rest of it can still be checked. ``tile`` must show
        ``on``'s open number and ``on`` must be on the table. ``free``: the number the tile
        leaves open, when known (a Play's orientation).
        """
        v = self.value[on]
        if free < 0:
            lo, hi = tile
            free = hi if lo == v else lo
        self.value[tile] = free
        self.parent[tile] = on
        short = self.short
        left = short.get(on)
        if left is not None:
            if left > 1:
                short[on] = left - 1
            else:
                del short[on]
        else:
            try:
                i = self.ends[v].index(on)
            except ValueError:  # a wrong layout being rebuilt: a second tile on a line end, a
                pass  # tile on a double that has all its toes
            else:
                del self.ends[v][i]
                del self.offers[v][i]
        if free == v:  # only a double shows the same number at both ends
            if self.toes > 0:
                short[tile] = self.toes
        else:
            self.ends[free].append(tile)
            self.offers[free].append(OFFERS[tile])


@dataclass(frozen=True, slots=True)
class OpenEnd:
    """A place a tile can be laid: ``slots`` tiles showing ``value`` against ``target``."""

    target: Tile
    value: int
    slots: int
    kind: str  # "hub", "foot" or "line"
    #: False while play is confined elsewhere (short hub, open foot).
    playable: bool = True
    #: How a player reads the target on the table (see :meth:`Table.show`).
    label: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"on": str(self.target), "value": self.value, "slots": self.slots,
                "kind": self.kind, "playable_now": self.playable}

    def describe(self) -> str:
        name = self.label or str(self.target)
        if self.kind == "line":
            return f"{self.value} on {name}"
        word = "spoke" if self.kind == "hub" else "toe"
        return f"{self.value} on {name} ({count(self.slots, word)} to go)"


# -------------------------------------------------------------------------- file format
@dataclass(frozen=True, slots=True)
class Placement:
    """One play in a layout file: ``tile`` laid against ``on`` (by ``seat``, when known)."""

    tile: Tile
    on: Tile
    seat: int | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"tile": str(self.tile), "on": str(self.on)}
        if self.seat is not None:
            d["seat"] = self.seat
        return d


@dataclass(frozen=True)
class Layout:
    """A described table: the hub and the plays, as the layout JSON file holds them.

    ``rules`` names a preset (None: the caller's default); ``set`` is the double-N set (None:
    from the rules, see :func:`resolve_set`); ``ordered`` says whether ``plays`` are listed in
    the order they were made; ``options`` are the rule options that differ from the preset's,
    by their written names (``(("spokes", 4),)``; see :func:`~.ruleset.changed_options`).
    """

    hub: Tile
    plays: tuple[Placement, ...] = ()
    rules: str | None = None
    set: int | None = None
    ordered: bool = True
    options: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        if self.set is not None and self.set not in SETS:
            raise LayoutError(f"set must be one of {', '.join(map(str, SETS))}, not {self.set}")

    @classmethod
    def build(cls, hub: Tile | str, plays: Iterable[tuple[Tile | str, Tile | str]] = (),
              *, rules: str | None = None, set: int | None = None, ordered: bool = True) -> Layout:
        """Build from tiles or strings: ``Layout.build("9-9", [("9-4", "9-9")])``."""
        return cls(
            Tile.parse(hub),
            tuple(Placement(Tile.parse(t), Tile.parse(o)) for t, o in plays),
            rules=rules, set=set, ordered=ordered,
        )

    def with_play(self, tile: Tile | str, on: Tile | str, seat: int | None = None) -> Layout:
        p = Placement(Tile.parse(tile), Tile.parse(on), seat)
        return Layout(self.hub, (*self.plays, p), self.rules, self.set, self.ordered, self.options)

    def tiles(self) -> list[Tile]:
        return [self.hub, *(p.tile for p in self.plays)]

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {}
        if self.rules is not None:
            d["rules"] = self.rules
        if self.options:
            d["options"] = dict(self.options)
        if self.set is not None:
            d["set"] = self.set
        d["hub"] = str(self.hub)
        if not self.ordered:
            d["ordered"] = False
        d["plays"] = [p.to_dict() for p in self.plays]
        return d

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: Any) -> Layout:
        if not isinstance(data, Mapping):
            raise LayoutError("a layout must be a JSON object with \"hub\" and \"plays\"")
        if "hub" not in data:
            raise LayoutError("the layout has no \"hub\" (the starting double, e.g. \"9-9\")")
        hub = _tile_field(data["hub"], "hub")
        rules = data.get("rules")
        if rules is not None and not isinstance(rules, str):
            raise LayoutError("\"rules\" must be a preset name such as \"double-chicken-foot\"")
        top = data.get("set")
        if top is not None:
            if isinstance(top, str) and top.strip().lower().removeprefix("double-").isdigit():
                top = int(top.strip().lower().removeprefix("double-"))
            if not isinstance(top, int) or isinstance(top, bool) or top not in SETS:
                raise LayoutError(f"\"set\" must be one of {', '.join(map(str, SETS))}, not {top!r}")
        ordered = data.get("ordered", True)
        if not isinstance(ordered, bool):
            raise LayoutError("\"ordered\" must be true or false")
        options = _options_field(data.get("options", {}))
        raw_plays = data.get("plays", [])
        if not isinstance(raw_plays, list):
            raise LayoutError("\"plays\" must be a list of {\"tile\": ..., \"on\": ...} objects")
        plays = []
        for i, p in enumerate(raw_plays):
            if not isinstance(p, Mapping) or "tile" not in p or "on" not in p:
                raise LayoutError(f"plays[{i}] must be an object like {{\"tile\": \"9-4\", \"on\": \"9-9\"}}")
            seat = p.get("seat")
            if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool)):
                raise LayoutError(f"plays[{i}].seat must be a whole number")
            plays.append(Placement(_tile_field(p["tile"], f"plays[{i}].tile"),
                                   _tile_field(p["on"], f"plays[{i}].on"), seat))
        return cls(hub, tuple(plays), rules, top, ordered, options)

    @classmethod
    def from_json(cls, text: str, source: str = "layout") -> Layout:
        try:
            data = jsontext.loads(text)
        except json.JSONDecodeError as exc:
            raise LayoutError(f"{source} is not valid JSON (line {exc.lineno}, column "
                              f"{exc.colno}: {exc.msg})") from None
        except jsontext.JSONLimitError as exc:
            raise LayoutError(f"{source} is not a layout: {exc}") from None
        return cls.from_dict(data)

    @classmethod
    def load(cls, path: str | Path) -> Layout:
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise LayoutError(f"layout file {str(p)!r} does not exist") from None
        except IsADirectoryError:
            raise LayoutError(f"{str(p)!r} is a folder, not a layout file") from None
        except UnicodeDecodeError:
            raise LayoutError(f"{str(p)!r} is not a text file") from None
        except OSError as exc:
            raise LayoutError(f"cannot read {str(p)!r}: {exc.strerror or exc}") from None
        return cls.from_json(text, source=str(p))

    def save(self, path: str | Path) -> None:
        """Write the file next to its final name first, so a crash never leaves half a file."""
        p = Path(path)
        tmp = p.with_name(p.name + ".tmp")
        tmp.write_text(self.to_json() + "\n", encoding="utf-8")
        tmp.replace(p)


def _options_field(raw: Any) -> tuple[tuple[str, Any], ...]:
    if not isinstance(raw, Mapping):
        raise LayoutError("\"options\" must be an object of rule options, e.g. {\"spokes\": 4}")
    out = []
    for key, value in raw.items():
        option = OPTIONS.get(str(key).replace("-", "_"))
        if option is None:
            raise LayoutError(f"options: unknown rule option {key!r}")
        try:
            out.append((option.name, option_value(option.coerce(value))))
        except InputError as exc:
            raise LayoutError(f"options: {exc}") from None
    return tuple(sorted(out))


def _tile_field(raw: Any, where: str) -> Tile:
    if not isinstance(raw, str):
        raise LayoutError(f"{where} must be a tile written like \"4-7\", not {raw!r}")
    try:
        return Tile.parse(raw)
    except InvalidTileError as exc:
        raise LayoutError(f"{where}: {exc}") from None


def resolve_rules(layout: Layout, rules: RuleSet | str | None = None) -> RuleSet:
    """The rules to judge ``layout`` by: ``rules`` if given, else the file's (with its options),
    else the default. The file's options are changes to its own preset, so they are dropped
    when another preset is named."""
    if isinstance(rules, RuleSet):
        return rules
    # the file's preset named again, in any case or spelling get_rules takes, keeps its options
    keep = rules is None or (layout.rules is not None and get_rules(rules).name == get_rules(layout.rules).name)
    return get_rules(rules or layout.rules or DEFAULT_PRESET, dict(layout.options) if keep else None)


def resolve_set(layout: Layout, rules: RuleSet, holding: Iterable[Tile] = ()) -> int:
    """The double-N set of a layout: the file's ``set``, else the rules' fixed set, else the
    smallest set the rules use (for any player count) that holds every tile in the layout and
    in ``holding`` (a tile someone holds, proposed for a play: the set has it)."""
    if layout.set is not None:
        return layout.set
    if rules.set is not None:
        return rules.set
    candidates = sorted({top for _, top in rules.set_by_players})
    highest = max(t.high for t in (*layout.tiles(), *holding))
    for top in candidates:
        if highest <= top:
            return top
    return candidates[-1]


# --------------------------------------------------------------------------- checking
@dataclass(frozen=True)
class Report:
    """Everything :func:`check_layout` found: problems, spokes, open foot, open ends."""

    layout: Layout
    rules: RuleSet
    set: int
    table: Table = field(repr=False, compare=False)
    problems: tuple[Problem, ...]

    @property
    def legal(self) -> bool:
        return not self.problems

    @property
    def spokes(self) -> list[Tile]:
        return list(self.table.kids[self.table.hub])

    @property
    def open_foot(self) -> Tile | None:
        return self.table.open_foot

    def open_ends(self) -> list[OpenEnd]:
        return self.table.open_ends()

    def judge(self, tile: Tile | str, on: Tile | str) -> Verdict:
        """Judge one more play against the layout as it stands."""
        return self.table.judge(Tile.parse(tile), Tile.parse(on))

    def to_dict(self) -> dict[str, Any]:
        t = self.table
        foot = t.open_foot
        return {
            "legal": self.legal,
            "rules": self.rules.name,
            "set": self.set,
            "hub": str(t.hub),
            "ordered": self.layout.ordered,
            "tiles_on_table": len(t),
            "spokes": {
                "tiles": [str(s) for s in self.spokes],
                "have": len(self.spokes),
                "need": t.spokes,
                "complete": t.hub_complete,
            },
            "open_foot": None if foot is None else {
                "tile": str(foot),
                "toes": [str(k) for k in t.kids[foot]],
                "need": t.toes,
                "missing": t.short[foot],
            },
            "open_ends": [e.to_dict() for e in t.open_ends()],
            "problems": [p.to_dict() for p in self.problems],
        }

    def summary_lines(self) -> list[str]:
        """The report for people, one fact per line."""
        t = self.table
        spokes = self.spokes
        changed = changed_options(self.rules)
        named = self.rules.name + (f" with {', '.join(f'{k}={v}' for k, v in changed.items())}" if changed else "")
        lines = [
            # the title may hold brackets of its own ("Chicken Foot (pagat-style)")
            f"Rules: {self.rules.title}, preset {named}, double-{self.set} set; "
            f"{count(len(t), 'tile')} on the table"
            + ("" if self.layout.ordered else " (order unknown: only order-free checks)") + ".",
            f"Hub {t.hub}: {len(spokes)} of {t.spokes} spokes"
            + (f" ({', '.join(map(t.show, spokes))})" if spokes else "")
            + ("." if t.hub_complete else f"; {count(t.short[t.hub], 'more spoke')} needed."),
        ]
        foot = t.open_foot
        if foot is not None:
            toes = t.kids[foot]
            lines.append(f"Open foot: {foot} needs {count(t.short[foot], 'more toe')}"
                         + (f" (has {', '.join(map(t.show, toes))})." if toes else "."))
        else:
            lines.append("Open foot: none.")
        ends = t.open_ends()
        now = [e for e in ends if e.playable]
        lines.append("Open ends: " + (", ".join(e.describe() for e in ends) or "none") + ".")
        if len(now) != len(ends):
            lines.append("Playable now: " + (", ".join(e.describe() for e in now) or "nowhere") + ".")
        if self.problems:
            lines.append(f"{count(len(self.problems), 'problem')}:")
            for p in self.problems:
                where = (f"play {p.index + 1} ({t.show(p.tile) if p.tile else ''} on "
                         f"{t.show(p.on) if p.on else ''}): " if p.index is not None else "")
                lines.append(f"  [{p.code}] {where}{p.message}")
        else:
            lines.append("No problems: the layout is legal.")
        return lines


def check_layout(layout: Layout, rules: RuleSet | str | None = None, holding: Iterable[Tile] = ()) -> Report:
    """Check a whole layout and return every problem at once (none: it is legal). ``holding``:
    tiles about to be judged against it, which the set must hold when the layout names none
    (:func:`resolve_set`).

    Ordered layouts are replayed play by play, each judged exactly as a disputed play would be;
    plays that break a rule but can still be placed (a second tile on a line tip, a play while
    the hub is short) are kept so the rest is judged against the real table. Unordered layouts
    get only the checks that do not need the order.
    """
    rs = resolve_rules(layout, rules)
    top = resolve_set(layout, rs, holding)
    if not layout.hub.in_set(top):
        raise TileNotInSetError(f"the hub {layout.hub} is not in a double-{top} set")
    table = Table.for_rules(layout.hub, rs, top)
    check = _check_ordered if layout.ordered else _check_unordered
    problems = check(layout, table)
    return Report(layout, rs, top, table, tuple(problems))


def judge_play(layout: Layout, tile: Tile | str, on: Tile | str,
               rules: RuleSet | str | None = None) -> Verdict:
    """Judge one proposed play against a described layout."""
    return check_layout(layout, rules).judge(tile, on)


_PLACEABLE = {OK, END_TAKEN, HUB_INCOMPLETE, FOOT_INCOMPLETE}


def _check_ordered(layout: Layout, table: Table) -> list[Problem]:
    problems = []
    later = {p.tile for p in layout.plays}
    rejected: set[Tile] = set()
    for i, p in enumerate(layout.plays):
        verdict = table.judge(p.tile, p.on)
        if verdict.code == UNKNOWN_TARGET:
            if p.on in rejected:
                msg = f"The {p.on} that {p.tile} is played on was not itself accepted, so it is not on the table."
            elif p.on in later:
                msg = f"{p.tile} is played on the {p.on} before the {p.on} is on the table."
            else:
                msg = verdict.message
            verdict = Verdict(UNKNOWN_TARGET, msg, p.tile, p.on)
        if not verdict.legal:
            problems.append(Problem(verdict.code, verdict.message, p.tile, p.on, i))
        if verdict.code in (HUB_INCOMPLETE, FOOT_INCOMPLETE):
            # a play out of turn can also be on a place already full: say both
            taken = table.taken(p.tile, p.on)
            if taken is not None:
                problems.append(Problem(END_TAKEN, taken.message, p.tile, p.on, i))
        if verdict.code in _PLACEABLE:
            v = table.value[p.on]
            if p.tile.has(v):
                table.attach(p.tile, p.on)
                continue
            # Wrong place and wrong number: say both.
            where = f"the {p.on}" if p.on.is_double else f"the open {v} of the {table.show(p.on)}"
            problems.append(Problem(NO_MATCH, f"{p.tile} has no {v}, so it cannot go on {where}.",
                                    p.tile, p.on, i))
            rejected.add(p.tile)
        elif verdict.code != ALREADY_PLAYED:
            rejected.add(p.tile)
    return problems


def _check_unordered(layout: Layout, table: Table) -> list[Problem]:
    problems: list[Problem] = []
    top = table.top
    hub = table.hub
    index: dict[Tile, int] = {}
    children: dict[Tile, list[Tile]] = {}
    for i, p in enumerate(layout.plays):
        if not p.tile.in_set(top):
            problems.append(Problem(NOT_IN_SET, f"{p.tile} is not in a double-{top} set "
                                    f"(the numbers go up to {top}).", p.tile, p.on, i))
            continue
        if p.tile == hub or p.tile in index:
            problems.append(Problem(ALREADY_PLAYED, f"{p.tile} appears twice on the table; every "
                                    "tile is unique in a set.", p.tile, p.on, i))
            continue
        index[p.tile] = i
        children.setdefault(p.on, []).append(p.tile)
    on_of = {layout.plays[i].tile: layout.plays[i].on for i in index.values()}
    # Top-down from the hub: a tree needs no order to know which number each tile shows.
    mismatched: set[Tile] = set()
    frontier = [hub]
    while frontier:
        nxt = []
        for parent in frontier:
            for kid in children.get(parent, ()):
                if not kid.has(table.value[parent]):
                    v = table.value[parent]
                    where = (f"the {parent}" if parent.is_double
                             else f"the open {v} of the {table.show(parent)}")
                    problems.append(Problem(NO_MATCH, f"{kid} has no {v}, so it cannot go on {where}.",
                                            kid, parent, index[kid]))
                    mismatched.add(kid)
                    continue
                table.attach(kid, parent)
                nxt.append(kid)
        frontier = nxt
    for tile, i in index.items():
        if tile in table or tile in mismatched:
            continue
        on = on_of[tile]
        if on != hub and on not in index:
            msg = f"There is no {on} on the table to play {tile} on."
        elif _reaches_hub(on, on_of, hub):
            msg = f"The {on} that {tile} is played on was not itself accepted, so it is not on the table."
        else:
            msg = f"{tile} is played on the {on}, which is not connected to the hub."
        problems.append(Problem(UNKNOWN_TARGET, msg, tile, on, i))
    # Order-free rule checks on the rebuilt tree.
    for t in table.tiles():
        kids = table.kids[t]
        cap = table.capacity(t)
        if len(kids) > cap:
            for extra in kids[cap:]:
                if t == hub:
                    msg = f"The {t} has {len(kids)} spokes; it takes {cap}."
                elif t.is_double:
                    msg = f"The {t} has {len(kids)} toes; it takes {cap}."
                else:
                    msg = (f"The {table.show(t)} has {len(kids)} tiles on its {table.value[t]} "
                           f"({', '.join(map(table.show, kids))}); a line end takes one.")
                problems.append(Problem(END_TAKEN, msg, extra, t, index.get(extra)))
    spokes = table.kids[hub]
    if len(spokes) < table.spokes:
        missing = table.spokes - len(spokes)
        for s in spokes:
            for kid in table.kids[s]:
                problems.append(Problem(
                    HUB_INCOMPLETE,
                    f"{table.show(kid)} extends the spoke {table.show(s)}, but the {hub} still needs "
                    f"{count(missing, 'more spoke')} before anything else.", kid, s, index.get(kid)))
    feet = table.open_feet
    for foot in feet:
        need = table.short[foot]
        for toe in table.kids[foot]:
            for kid in table.kids[toe]:
                problems.append(Problem(
                    FOOT_INCOMPLETE,
                    f"{table.show(kid)} extends the toe {table.show(toe)}, but the {foot} still needs "
                    f"{count(need, 'toe')} before anything else.", kid, toe, index.get(kid)))
    if len(feet) > 1:
        listed = ", ".join(map(str, feet))
        for foot in feet[1:]:
            problems.append(Problem(
                FOOT_INCOMPLETE,
                f"{listed} are all short of toes; only one foot can be open at a time.",
                foot, table.parent[foot], index.get(foot)))
    problems.sort(key=lambda p: (p.index is None, p.index if p.index is not None else 0))
    return problems


def _reaches_hub(tile: Tile, on_of: Mapping[Tile, Tile], hub: Tile) -> bool:
    seen = set()
    while tile != hub:
        if tile in seen or tile not in on_of:
            return False
        seen.add(tile)
        tile = on_of[tile]
    return True
