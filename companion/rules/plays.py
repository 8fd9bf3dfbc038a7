"""Legal plays as a generator, for one tile or a whole hand.

A play is ``(tile, target, orientation)``: the tile, the tile on the table it is laid against,
and the number left showing on the tile's free end (what the next player must match there).
Tiles are unique in a set, so the target tile names the position without ambiguity.

>>> from companion.rules.layout import Table
>>> table = Table(Tile(9, 9), spokes=6, toes=3, top=9)
>>> list(legal_plays(table, [Tile(4, 9), Tile(1, 2)]))
[Play(tile=Tile(4, 9), target=Tile(9, 9), orientation=4)]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, NamedTuple

from .tiles import Tile

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
    foot does; otherwise any open line end. Tiles already on the table yield nothing.
    """
    hand: Iterable[Tile] = (tiles,) if isinstance(tiles, Tile) else tiles
    placed = table.value
    return hand_plays(table, [t for t in hand if t not in placed])


def hand_plays(table: Table, hand: Iterable[Tile]) -> Iterator[Play]:
    """:func:`legal_plays` for tiles known to be off the table (a player's hand): the engine's
    hot path, so it skips that check."""
    short = table.short
    if short:
        hub = table.hub
        # The hub first: a layout that is already wrong can have both a short hub and a foot.
        targets = [hub] if hub in short else list(short)
        for target in targets:
            v = table.value[target]
            for tile in hand:
                if tile.low == v:
                    yield Play(tile, target, tile.high)
                elif tile.high == v:
                    yield Play(tile, target, tile.low)
        return
    ends = table.ends
    for tile in hand:
        lo, hi = tile.low, tile.high
        for target in ends[lo]:
            yield Play(tile, target, hi)
        if hi != lo:
            for target in ends[hi]:
                yield Play(tile, target, lo)


def has_play(table: Table, tiles: Iterable[Tile]) -> bool:
    """Whether any of ``tiles`` (off the table) can be played now, without building the list."""
    return next(hand_plays(table, tiles), None) is not None
