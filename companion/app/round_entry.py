"""End-of-round entry: per player "went out", a pip count, picked tiles, or a read photo.

Penalties come from the :class:`RuleSet` (so 0-0 counts what the preset says); the entry only
keeps what was entered and reports every problem at once before the round can be saved.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum

from companion.rules import RuleSet, Tile, full_set
from companion.rules.errors import InputError
from companion.rules.tiles import check_in_set

MAX_PIPS = 10_000


class EntryError(InputError):
    """A value that cannot be entered for a hand (negative pips, a tile outside the set)."""


class Mode(StrEnum):
    UNSET = "unset"
    OUT = "out"  # went out: 0
    PIPS = "pips"  # typed total from the number pad
    TILES = "tiles"  # picked tile by tile
    PHOTO = "photo"  # read from a photo, then reviewed (tiles like TILES)


@dataclass
class HandEntry:
    player: str
    mode: Mode = Mode.UNSET
    pips: int | None = None
    tiles: list[Tile] = field(default_factory=list)
    #: Digits typed on the number pad so far (kept apart so a half-typed value is visible).
    pad: str = ""


@dataclass(frozen=True, slots=True)
class PickerTile:
    tile: Tile
    label: str  # "4-7", or "0-0 = 50" so the double-blank's worth is plain
    penalty: int


class RoundEntry:
    """The hands of one round, being entered (or re-entered when a past round is edited)."""

    def __init__(self, rules: RuleSet, players: list[str], top: int) -> None:
        self.rules = rules
        self.top = top
        self.hands = [HandEntry(p) for p in players]
        #: The double that opened the round when it was not the round's own (rules that let
        #: the next-highest double start, or skip a double nobody holds); None: its own.
        self.started_with: int | None = None

    @classmethod
    def from_penalties(cls, rules: RuleSet, players: list[str], top: int,
                       penalties: list[int], hands: list[list[Tile] | None] | None = None) -> RoundEntry:
        """Start from a saved round (to edit it): tiles where they were kept, else the number."""
        entry = cls(rules, players, top)
        for i, pen in enumerate(penalties):
            tiles = hands[i] if hands and i < len(hands) else None
            if tiles:
                entry.set_tiles(i, tiles)
            elif pen == 0:
                entry.went_out(i)
            else:
                entry.set_pips(i, pen)
        return entry

    # ------------------------------------------------------------ picker
    def picker_tiles(self) -> list[PickerTile]:
        out = []
        for t in full_set(self.top):
            pen = self.rules.tile_penalty(t)
            label = f"{t} = {pen}" if t.low == 0 and t.high == 0 else str(t)
            out.append(PickerTile(t, label, pen))
        return out

    # ------------------------------------------------------------- edits
    def went_out(self, i: int) -> None:
        h = self.hands[i]
        h.mode, h.pips, h.tiles, h.pad = Mode.OUT, 0, [], ""

    def set_pips(self, i: int, pips: int) -> None:
        if isinstance(pips, bool) or not isinstance(pips, int) or pips < 0 or pips > MAX_PIPS:
            raise EntryError(f"a penalty is a whole number 0-{MAX_PIPS}, got {pips!r}")
        h = self.hands[i]
        h.mode, h.pips, h.tiles, h.pad = Mode.PIPS, pips, [], str(pips)

    def press(self, i: int, key: str) -> None:
        """Number pad: digits, "back" and "clear"."""
        h = self.hands[i]
        pad = h.pad if h.mode is Mode.PIPS else ""
        if key == "back":
            pad = pad[:-1]
        elif key == "clear":
            pad = ""
        elif key.isdigit() and len(key) == 1:
            pad = (pad + key).lstrip("0") or "0"
            if int(pad) > MAX_PIPS:
                return
        else:
            raise EntryError(f"unknown key {key!r}")
        h.mode, h.tiles, h.pad = Mode.PIPS, [], pad
        h.pips = int(pad) if pad else None

    def add_tile(self, i: int, tile: Tile | str) -> None:
        t = self._tile(tile)
        h = self.hands[i]
        if h.mode not in (Mode.TILES, Mode.PHOTO):
            h.mode, h.tiles, h.pips, h.pad = Mode.TILES, [], None, ""
        h.tiles.append(t)

    def remove_tile(self, i: int, tile: Tile | str) -> None:
        t = self._tile(tile)
        h = self.hands[i]
        if t in h.tiles:
            h.tiles.remove(t)

    def set_tiles(self, i: int, tiles: list[Tile], mode: Mode = Mode.TILES) -> None:
        checked = [self._tile(t) for t in tiles]
        h = self.hands[i]
        h.mode, h.tiles, h.pips, h.pad = mode, checked, None, ""

    def clear(self, i: int) -> None:
        h = self.hands[i]
        h.mode, h.tiles, h.pips, h.pad = Mode.UNSET, [], None, ""

    def _tile(self, tile: Tile | str) -> Tile:
        t = Tile.parse(tile)
        try:
            return check_in_set(t, self.top)
        except InputError as exc:
            raise EntryError(str(exc)) from None

    # ----------------------------------------------------------- results
    def penalty(self, i: int) -> int | None:
        h = self.hands[i]
        if h.mode is Mode.OUT:
            return 0
        if h.mode is Mode.PIPS:
            return h.pips
        if h.mode in (Mode.TILES, Mode.PHOTO):
            return self.rules.penalty(h.tiles)
        return None

    def penalties(self) -> list[int]:
        probs = self.problems()
        if probs:
            raise EntryError("; ".join(probs))
        return [int(self.penalty(i) or 0) for i in range(len(self.hands))]

    def tile_hands(self) -> list[list[Tile] | None]:
        """The tiles of each hand where they were entered tile by tile (kept with the round)."""
        return [list(h.tiles) if h.mode in (Mode.TILES, Mode.PHOTO) else None for h in self.hands]

    def duplicates(self) -> list[str]:
        """Warnings for a tile entered more than once across the round (a set has one of each)."""
        where: dict[Tile, list[str]] = {}
        for h in self.hands:
            if h.mode in (Mode.TILES, Mode.PHOTO):
                for t in h.tiles:
                    where.setdefault(t, []).append(h.player)
        out = []
        for t, who in sorted(where.items()):
            if len(who) > 1:
                c = Counter(who)
                names = ", ".join(f"{p} (x{n})" if n > 1 else p for p, n in c.items())
                out.append(f"{t} is entered {len(who)} times ({names}); a set has only one")
        return out

    def problems(self) -> list[str]:
        out = [f"{h.player}: nothing entered yet"
               for i, h in enumerate(self.hands) if self.penalty(i) is None]
        outs = [h.player for h in self.hands if h.mode is Mode.OUT]
        if len(outs) > 1:
            out.append(f"only one player can go out in a round ({', '.join(outs)} are marked)")
        out.extend(self.duplicates())
        return out

    @property
    def complete(self) -> bool:
        return not self.problems()
