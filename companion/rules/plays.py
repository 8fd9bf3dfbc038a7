"""Legal plays as a generator, for one tile or a whole hand.

A play is ``(tile, target, orientation)``: the tile, the tile on the table it is laid against,
and the number left showing on the tile's free end (what the next player must match there).
Tiles are unique in a set, so the target tile names the position without ambiguity.

>>> from chickenfoot.rules.layout import Table
>>> table = Table(Tile(9, 9), spokes=6, toes=3, top=9)
>>> list(legal_plays(table, [Tile(4, 9), Tile(1, 2)]))
[Play(tile=Tile(4, 9), target=Tile(9, 9), orientation=4)]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, NamedTuple

from .tiles import MAX_SET, Tile, full_set

#: ``Table.ends[NO_END]`` is always empty (no tile shows a number past the biggest set's).
NO_END = MAX_SET + 1

if TYPE_CHECKING:
    from .layout import Table


class Play(NamedTuple):
    """One legal play. ``orientation`` is the number left open on ``tile``'s free end."""

    tile: Tile
    target: Tile
    orientation: int

    def to_dict(self) -> dict[str, str]:
        """The layout-file form of a play: ``{"tile": "4-7", "on": "9-4"}``."""
        return {"tile": str(self.tile), "on": str(self.target)}

    def __str__(self) -> str:
        return f"{self.tile} on {self.target}"


def legal_plays(table: Table, tiles: Tile | Iterable[Tile]) -> Iterator[Play]:
    """Every legal play of ``tiles`` (one tile or a hand) on ``table``, in a stable order.

    While the hub is short of spokes only the hub takes tiles; while a foot is open only that
    foot does; otherwise any open line end. Tiles already on the table, or not in the table's
    set, yield nothing.
    """
    hand: Iterable[Tile] = (tiles,) if isinstance(tiles, Tile) else tiles
    placed, top = table.value, table.top
    # a tile the set does not hold has no play (the judge calls it not-in-set)
    return iter(hand_plays(table, [t for t in hand if t not in placed and t.high <= top]))


class _Offers(dict):  # type: ignore[type-arg]
    """``OFFERS[target][tile]``: the Play of ``tile`` on ``target``, made once per process.

    Two different tiles share at most one number, so the tile, the tile it is laid against and
    the number left open are the same on every table: one Play object serves every round. A
    target's row holds every tile that shares a number with it (up to double-18); for a double
    (the hub, a foot) that is exactly the tiles that fit it."""

    def __missing__(self, target: Tile) -> dict[Tile, Play]:
        row: dict[Tile, Play] = {}
        for v in {target.low, target.high}:
            for w in range(MAX_SET + 1):
                tile = Tile(v, w)
                if tile != target:
                    row[tile] = Play(tile, target, w)
        self[target] = row
        return row


OFFERS = _Offers()
# A tile's halves as a plain pair: taking a Tile (a tuple subclass) apart costs several times
# more than a dict lookup and a plain tuple's unpacking.
HALVES: dict[Tile, tuple[int, int]] = {t: (t.low, NO_END if t.is_double else t.high) for t in full_set(MAX_SET)}


def hand_plays(table: Table, hand: Iterable[Tile]) -> list[Play]:
    """:func:`legal_plays` as a list, for tiles known to be off the table (a player's hand): the
    engine's hot path, so it skips that check. The order is the contract the seeded bots rely
    on: hand order, and for each tile its low half's places before its high half's."""
    out: list[Play] = []
    short = table.short
    if short:
        # Table.confined_to, inlined: this runs on every action of a simulation
        row = OFFERS[next(iter(short))]  # a double's row is exactly the tiles that fit it
        for tile in hand:
            if tile in row:
                out.append(row[tile])
        return out
    offers = table.offers
    for tile in hand:
        lo, hi = HALVES[tile]  # hi is NO_END for a double: it has one number, not two
        if offers[lo]:
            for row in offers[lo]:
                out.append(row[tile])
        if offers[hi]:
            for row in offers[hi]:
                out.append(row[tile])
    return out


def has_play(table: Table, tiles: Iterable[Tile]) -> bool:
    """Whether any of ``tiles`` (off the table) can be played now."""
    short = table.short
    if short:
        row = OFFERS[next(iter(short))]  # Table.confined_to, inlined as above
        return any(tile in row for tile in tiles)
    ends = table.ends
    return any(ends[lo] or ends[hi] for lo, hi in tiles)
