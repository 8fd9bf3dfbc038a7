"""End-of-round entry: per player "went out", a pip count, picked tiles, or a read photo.

Penalties come from the :class:`RuleSet` (so 0-0 counts what the preset says); the entry only
keeps what was entered and reports every problem at once before the round can be saved. The
double that opened the round lies on the table, so it is never offered for a hand. A set has one
of each tile: a tile another hand holds (entered, or read from that player's photo and not yet
used) is *taken*; picking it again is refused (:class:`TakenError`) unless it is moved
(:meth:`RoundEntry.move_tile`). An entry
round-trips through plain data (``to_dict`` / ``from_dict``) so it can be kept as a stored
round draft while it is being typed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from chickenfoot.match import hand_limit, unlikely_penalty
from chickenfoot.rules import RuleSet, Tile, full_set
from chickenfoot.rules.errors import InputError
from chickenfoot.rules.tiles import check_in_set
from chickenfoot.rules.words import count

MAX_PIPS = 10_000


class EntryError(InputError):
    """A value that cannot be entered for a hand (negative pips, a tile outside the set)."""


class TakenError(EntryError):
    """A tile picked for a hand while another hand holds it (a set has one of each)."""

    def __init__(self, tile: Tile, player: str, holder: str, seat: int, read: bool) -> None:
        self.tile, self.player, self.holder, self.seat, self.read = tile, player, holder, seat, read
        where = f"read from {holder}'s photo" if read else f"in {holder}'s hand"
        super().__init__(f"{tile} is already {where}, and a set has only one {tile}. "
                         f"Move it to {player} if it is really {player}'s, or pick another tile.")


#: Tiles read from photos not yet used for their hands, by seat (see ``drafts.DraftContent``).
Photos = Mapping[int, Iterable[Tile]]


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
    #: The player said a typed penalty above what a hand can count is right (see ``unlikely``).
    sure: bool = False


def tile_label(rules: RuleSet, t: Tile) -> str:
    """A tile as a player reads it: "4-7", or "0-0 = 50", whose worth a count of pips misses."""
    return f"{t} = {rules.tile_penalty(t)}" if t.low == 0 and t.high == 0 else str(t)


@dataclass(frozen=True, slots=True)
class PickerTile:
    tile: Tile
    label: str  # "4-7", or "0-0 = 50" so the double-blank's worth is plain
    penalty: int
    #: Who else holds it this round (entered for them, or read from their photo); None: free.
    taken_by: str | None = None


class RoundEntry:
    """The hands of one round, being entered (or re-entered when a past round is edited)."""

    def __init__(self, rules: RuleSet, players: list[str], top: int, double: int | None = None) -> None:
        self.rules = rules
        self.top = top
        #: The round's own double (None: not known, nothing is kept off the hands).
        self.double = double
        self.hands = [HandEntry(p) for p in players]
        #: The double that opened the round when it was not the round's own (rules that let
        #: the next-highest double start, or skip a double nobody holds); None: its own.
        self.started_with: int | None = None

    @classmethod
    def from_penalties(cls, rules: RuleSet, players: list[str], top: int,
                       penalties: list[int], hands: list[list[Tile] | None] | None = None,
                       double: int | None = None, started_with: int | None = None) -> RoundEntry:
        """Start from a saved round (to edit it): tiles where they were kept, else the number."""
        entry = cls(rules, players, top, double)
        entry.started_with = started_with
        for i, pen in enumerate(penalties):
            tiles = hands[i] if hands and i < len(hands) else None
            if tiles:
                entry.set_tiles(i, tiles)
            elif pen == 0:
                entry.went_out(i)
            else:
                entry.set_pips(i, pen)
                entry.hands[i].sure = True  # kept once already: asked about only if retyped
        return entry

    @property
    def on_table(self) -> Tile | None:
        """The double that opened the round: it lies on the table, in nobody's hand."""
        d = self.double if self.started_with is None else self.started_with
        return None if d is None else Tile(d, d)

    # ------------------------------------------------------------ picker
    @property
    def zero_zero(self) -> int:
        """What the 0-0 counts under the rules (50, 25 or 0): shown on its face."""
        return self.rules.tile_penalty(Tile(0, 0))

    def _picker_tile(self, t: Tile, taken: dict[Tile, tuple[int, bool]] | None = None) -> PickerTile:
        pen = self.rules.tile_penalty(t)
        who = (taken or {}).get(t)
        return PickerTile(t, tile_label(self.rules, t), pen, None if who is None else self.hands[who[0]].player)

    def picker_tiles(self, seat: int | None = None, photos: Photos | None = None) -> list[PickerTile]:
        """Every tile a hand can hold: the set without the double on the table (each marked
        with who else holds it when ``seat`` is the hand being picked for)."""
        taken = self.taken(seat, photos) if seat is not None else None
        return [self._picker_tile(t, taken) for t in full_set(self.top) if t != self.on_table]

    def suits(self) -> list[int]:
        """The suits (numbers) the picker is grouped by, highest first."""
        return list(range(self.top, -1, -1))

    def suit_tiles(self, suit: int, seat: int | None = None, photos: Photos | None = None) -> list[PickerTile]:
        """The tiles with a ``suit`` half, from the other half highest to 0 (a suit's row of the
        tile picker; the double on the table is left out). With ``seat``, each tile says who
        else holds it (:meth:`taken`)."""
        if not 0 <= suit <= self.top:
            raise EntryError(f"there is no suit {suit} in a double-{self.top} set")
        taken = self.taken(seat, photos) if seat is not None else None
        return [self._picker_tile(Tile(suit, o), taken) for o in range(self.top, -1, -1)
                if Tile(suit, o) != self.on_table]

    # ------------------------------------------------------------- taken
    def taken(self, seat: int, photos: Photos | None = None) -> dict[Tile, tuple[int, bool]]:
        """Tiles another hand than ``seat`` holds: tile -> (that seat, whether only read from its
        photo). Entered tiles win over a photo's; ``photos``: tiles read from photos not yet used
        (by seat)."""
        out: dict[Tile, tuple[int, bool]] = {}
        for k, tiles in (photos or {}).items():
            if k != seat and 0 <= k < len(self.hands):
                for t in tiles:
                    out.setdefault(t, (k, True))
        for k, h in enumerate(self.hands):
            if k != seat and h.mode in (Mode.TILES, Mode.PHOTO):
                for t in h.tiles:
                    out[t] = (k, False)
        return out

    def check_free(self, i: int, tile: Tile | str, photos: Photos | None = None) -> Tile:
        """``tile`` if hand ``i`` may take it, else :class:`TakenError` (another hand holds it)
        or :class:`EntryError` (outside the set, or the double on the table)."""
        t = self.check_tile(i, tile)
        who = self.taken(i, photos).get(t)
        if who is not None:
            raise TakenError(t, self.hands[i].player, self.hands[who[0]].player, who[0], who[1])
        return t

    def check_tile(self, i: int, tile: Tile | str) -> Tile:
        """``tile`` if it can be in hand ``i`` at all: in the set, and not the double on the table."""
        t = self._tile(tile)
        if t == self.on_table:
            raise EntryError(f"{t} is on the table (it opened the round), so it is not in "
                             f"{self.hands[i].player}'s hand")
        return t

    # ------------------------------------------------------------- edits
    def went_out(self, i: int) -> None:
        h = self.hands[i]
        h.mode, h.pips, h.tiles, h.pad, h.sure = Mode.OUT, 0, [], "", False

    def settle_zero(self, i: int) -> bool:
        """A hand entered as 0 points (typed, or a photo with nothing in it kept as 0) when nobody
        is marked out is the player who went out: under
        rules where the 0-0 counts, no hand left at the end holds 0 points. Marks it so and
        returns True; a round is never saved as blocked because the out player's 0 was typed."""
        if (self.reads_zero(i) and self.zero_zero > 0
                and not any(x.mode is Mode.OUT for x in self.hands)):
            self.went_out(i)
            return True
        return False

    def reads_zero(self, i: int) -> bool:
        """Hand ``i`` is entered as 0 points: typed 0, or a photo kept with no tile in it."""
        h = self.hands[i]
        return (h.mode is Mode.PIPS and h.pips == 0) or (h.mode is Mode.PHOTO and not h.tiles)

    def settle_zeros(self) -> list[str]:
        """``settle_zero`` for the first hand it applies to; the players so marked."""
        for i, h in enumerate(self.hands):
            if self.settle_zero(i):
                return [h.player]
        return []

    def set_pips(self, i: int, pips: int) -> None:
        if isinstance(pips, bool) or not isinstance(pips, int) or pips < 0 or pips > MAX_PIPS:
            raise EntryError(f"a penalty is a whole number 0-{MAX_PIPS}, got {pips!r}")
        h = self.hands[i]
        h.mode, h.pips, h.tiles, h.pad, h.sure = Mode.PIPS, pips, [], str(pips), False

    def press(self, i: int, key: str, fresh: bool = False) -> None:
        """Number pad: digits, "back" and "clear". ``fresh``: the first key since the pad
        opened, so a digit starts a new number instead of adding to the one shown."""
        h = self.hands[i]
        pad = h.pad if h.mode is Mode.PIPS and not (fresh and key.isdigit()) else ""
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
        h.mode, h.tiles, h.pad, h.sure = Mode.PIPS, [], pad, False
        h.pips = int(pad) if pad else None

    def add_tile(self, i: int, tile: Tile | str, photos: Photos | None = None) -> None:
        """Put ``tile`` in hand ``i``; refused (nothing changes) when it is on the table, already
        in this hand, or held by another hand (:class:`TakenError`: :meth:`move_tile` moves it)."""
        t = self.check_free(i, tile, photos)
        h = self.hands[i]
        if h.mode in (Mode.TILES, Mode.PHOTO) and t in h.tiles:
            raise EntryError(f"{t} is already in {h.player}'s hand, and a set has only one {t}")
        if h.mode not in (Mode.TILES, Mode.PHOTO):
            h.mode, h.tiles, h.pips, h.pad = Mode.TILES, [], None, ""
        h.tiles.append(t)

    def move_tile(self, i: int, tile: Tile | str) -> list[str]:
        """Move ``tile`` into hand ``i`` from every other hand it was entered for (a correction:
        it was really this player's); returns who lost it. A photo's tiles not yet used are the
        draft's to move (``drafts.DraftContent.move_tile``)."""
        moved = self.take_from_others(i, tile)
        t = self._tile(tile)
        h = self.hands[i]
        if not (h.mode in (Mode.TILES, Mode.PHOTO) and t in h.tiles):
            self.add_tile(i, t)
        return moved

    def take_from_others(self, i: int, tile: Tile | str) -> list[str]:
        """Take ``tile`` out of every hand but ``i`` it was entered for; returns who lost it. A
        hand left with no tile is back to "not entered" (an empty hand did not go out)."""
        t = self._tile(tile)
        moved = []
        for k, h in enumerate(self.hands):
            if k != i and h.mode in (Mode.TILES, Mode.PHOTO) and t in h.tiles:
                h.tiles = [x for x in h.tiles if x != t]
                moved.append(h.player)
                if not h.tiles:
                    self.clear(k)
        return moved

    def remove_tile(self, i: int, tile: Tile | str) -> None:
        """Take ``tile`` out of hand ``i``; a hand left with no tile is back to "not entered"
        (a hand with no tiles is the player who went out: never 0 points by itself)."""
        t = self._tile(tile)
        h = self.hands[i]
        if t in h.tiles:
            h.tiles.remove(t)
            if not h.tiles:
                self.clear(i)

    def set_tiles(self, i: int, tiles: list[Tile], mode: Mode = Mode.TILES) -> None:
        checked = [self._tile(t) for t in tiles]
        h = self.hands[i]
        h.mode, h.tiles, h.pips, h.pad, h.sure = mode, checked, None, "", False

    def clear(self, i: int) -> None:
        h = self.hands[i]
        h.mode, h.tiles, h.pips, h.pad, h.sure = Mode.UNSET, [], None, "", False

    # ------------------------------------------------------- plausibility
    @property
    def hand_limit(self) -> int:
        """The most a hand of the tiles dealt can count (``chickenfoot.match.hand_limit``)."""
        return hand_limit(self.rules, len(self.hands))

    def unlikely(self, i: int) -> str | None:
        """Why hand ``i``'s typed penalty needs a second look (more than a hand of the tiles dealt
        can count), until the player says it is right (:meth:`confirm`); else None."""
        h = self.hands[i]
        if h.mode is not Mode.PIPS or h.pips is None or h.sure or h.pips > self.rules.penalty(full_set(self.top)):
            return None  # more than the whole set is an error (see errors), not a question
        return unlikely_penalty(self.rules, len(self.hands), h.player, h.pips)

    def to_confirm(self) -> list[int]:
        """Hands whose typed penalty is asked about before the round is saved."""
        return [i for i in range(len(self.hands)) if self.unlikely(i)]

    def confirm(self, i: int) -> None:
        """The player says hand ``i``'s typed penalty is right, however high."""
        h = self.hands[i]
        if h.mode is not Mode.PIPS:
            raise EntryError(f"{h.player}'s hand has no typed penalty to confirm")
        h.sure = True

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

    def missing(self) -> list[str]:
        """Players whose hand is still to be entered (steps to do, not mistakes)."""
        return [h.player for i, h in enumerate(self.hands) if self.penalty(i) is None]

    def errors(self) -> list[str]:
        """What is wrong in what was entered (each needs a correction before saving)."""
        out = []
        outs = [h.player for h in self.hands if h.mode is Mode.OUT]
        if len(outs) > 1:
            out.append(f"only one player can go out in a round ({', '.join(outs)} are marked)")
        if outs and self.zero_zero > 0:
            out.extend(f"{h.player}: 0 points, but {outs[0]} went out: a hand left at the end of a round "
                       f"has points (type them, or tap Went out for {h.player})"
                       for h in self.hands if h.mode is Mode.PIPS and h.pips == 0)
        most = self.rules.penalty(full_set(self.top))
        out.extend(f"{h.player}: {h.pips} points is more than the whole double-{self.top} set counts ({most}): "
                   "type it again" for h in self.hands if h.mode is Mode.PIPS and (h.pips or 0) > most)
        if outs:  # the same guard for a hand entered by tiles or a photo: none is not 0 points
            out.extend(f"{h.player}: no tiles, but {outs[0]} went out: a hand left at the end of a round "
                       f"has tiles (pick them, take another photo, or tap Went out for {h.player})"
                       for h in self.hands if h.mode in (Mode.TILES, Mode.PHOTO) and not h.tiles)
        out.extend(self.duplicates())
        out.extend(self.on_table_warnings())
        return out

    def on_table_warnings(self) -> list[str]:
        """A hand holding the double that lies on the table (a tile exists once)."""
        d = self.on_table
        return [f"{d} is on the table (it opened the round), so it cannot be in {h.player}'s hand: "
                "remove it" for h in self.hands if h.mode in (Mode.TILES, Mode.PHOTO) and d in h.tiles]

    def problems(self) -> list[str]:
        return [f"{p}: nothing entered yet" for p in self.missing()] + self.errors()

    def next_open(self, after: int | None = None) -> int | None:
        """The next hand with nothing entered, in seating order after seat ``after`` (from the
        first seat when None), going round the table; None when every hand is in."""
        n = len(self.hands)
        start = 0 if after is None else after + 1
        for k in range(n):
            i = (start + k) % n
            if self.penalty(i) is None:
                return i
        return None

    def summary(self) -> str:
        """What is left to do, in few words (it sits beside Save on a phone): "Still to enter:
        Cy, Dee", "Still to enter: 6 players", "Every hand is in: ready to save"."""
        missing = self.missing()
        if missing:
            return "Still to enter: " + (", ".join(missing) if len(missing) <= 4
                                         else count(len(missing), "player"))
        if self.errors():
            return f"Fix {count(len(self.errors()), 'problem')} to save"
        return "Every hand is in: ready to save"

    # ------------------------------------------------------------- storing
    def to_dict(self) -> dict[str, Any]:
        """Plain data for a stored draft (``from_dict`` gives the same entry back)."""
        return {"hands": [{"mode": h.mode.value, "pips": h.pips, "pad": h.pad,
                           "tiles": [str(t) for t in h.tiles], **({"sure": True} if h.sure else {})}
                          for h in self.hands],
                "started_with": self.started_with}

    @classmethod
    def from_dict(cls, data: Any, rules: RuleSet, players: list[str], top: int,
                  double: int | None = None) -> RoundEntry:
        """The entry kept in ``data``; anything unreadable in it (a hand-edited file, another
        version) is left blank rather than guessed."""
        entry = cls(rules, players, top, double)
        if not isinstance(data, dict):
            return entry
        sw = data.get("started_with")
        if isinstance(sw, int) and not isinstance(sw, bool) and double is not None and 0 <= sw < double:
            entry.started_with = sw
        hands = data.get("hands")
        for h, raw in zip(entry.hands, hands if isinstance(hands, list) else [], strict=False):
            try:
                mode = Mode(raw["mode"])
                pips, pad = raw.get("pips"), str(raw.get("pad") or "")
                tiles = [entry._tile(t) for t in raw.get("tiles") or []]
                if pips is not None and (isinstance(pips, bool) or not isinstance(pips, int)
                                         or not 0 <= pips <= MAX_PIPS):
                    raise EntryError("bad pips")
                if not pad.isdigit() and pad:
                    raise EntryError("bad pad")
            except (KeyError, TypeError, ValueError, AttributeError, InputError):
                continue
            h.mode, h.pips, h.pad, h.tiles = mode, pips, pad, tiles
            h.sure = raw.get("sure") is True
        return entry

    @property
    def complete(self) -> bool:
        return not self.problems()
