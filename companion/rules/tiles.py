"""Domino tiles as small hashable values with a notation that round-trips.

>>> Tile.parse("7-4")
Tile(4, 7)
>>> str(Tile(4, 7))
'4-7'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from .errors import InvalidTileError, TileNotInSetError

#: Largest set the project knows pip layouts for.
MAX_SET = 18
SETS = (6, 9, 12, 15, 18)

# Players write tiles "4-7", "4:7", "4|7", "4/7" or "4 7"; the order of the halves is free.
_TILE_RE = re.compile(r"^\s*\[?\s*(\d+)\s*(?:[-:|/,xX]|\s)\s*(\d+)\s*\]?\s*$")


_INTERNED: dict[tuple[int, int], Tile] = {}


class _Halves(NamedTuple):
    low: int
    high: int


class Tile(_Halves):
    """One domino. Always stored low half first, so ``Tile(7, 4) == Tile(4, 7)``.

    A tile is a pair of halves (a tuple underneath), so hashing and comparing tiles is done in
    C, which the round engine does millions of times per second of simulation; ``lo, hi = tile``
    unpacks it. Tiles are interned: ``Tile(7, 4) is Tile(4, 7)``, one object per tile.
    """

    __slots__ = ()

    def __new__(cls, a: int, b: int) -> Tile:
        if type(a) is int and type(b) is int and cls is Tile:  # not bool, not 1.0: equal keys
            tile = _INTERNED.get((a, b) if a <= b else (b, a))
            if tile is not None:
                return tile
        for v in (a, b):
            if not isinstance(v, int) or isinstance(v, bool) or v < 0 or v > MAX_SET:
                raise InvalidTileError(f"tile halves must be whole numbers 0-{MAX_SET}, got {a!r}-{b!r}")
        key = (int(a), int(b)) if a <= b else (int(b), int(a))
        tile = tuple.__new__(cls, key)
        if cls is Tile:
            _INTERNED[key] = tile
        return tile

    def _replace(self, **kw: int) -> Tile:  # the namedtuple one would skip the checks above
        return Tile(kw.get("low", self.low), kw.get("high", self.high))

    @classmethod
    def parse(cls, text: str | Tile) -> Tile:
        """Parse ``"4-7"``, ``"7-4"``, ``"4:7"``, ``"4|7"``; a Tile passes through."""
        if isinstance(text, Tile):
            return text
        if not isinstance(text, str):
            raise InvalidTileError(f"a tile is written like 4-7, got {text!r}")
        m = _TILE_RE.match(text)
        if not m:
            raise InvalidTileError(f"cannot read {text!r} as a tile; write it like 4-7")
        # a number of any length is read (as no set's half), not taken for a bad way of writing
        digits = [g.lstrip("0") or "0" for g in m.groups()]
        if any(len(d) > 2 for d in digits) or max(int(d) for d in digits) > MAX_SET:
            raise InvalidTileError(f"{text!r}: no domino set has a half above {MAX_SET}")
        return cls(int(digits[0]), int(digits[1]))

    def __str__(self) -> str:
        return f"{self.low}-{self.high}"

    def __repr__(self) -> str:
        return f"Tile({self.low}, {self.high})"

    @property
    def is_double(self) -> bool:
        return self.low == self.high

    @property
    def pips(self) -> int:
        return self.low + self.high

    def has(self, value: int) -> bool:
        return value in (self.low, self.high)

    def other(self, value: int) -> int:
        """The half left free when this tile is joined on ``value``."""
        if value == self.low:
            return self.high
        if value == self.high:
            return self.low
        raise ValueError(f"{self} has no {value}")

    def in_set(self, top: int) -> bool:
        return self.high <= top


def double(n: int) -> Tile:
    return Tile(n, n)


def full_set(top: int) -> tuple[Tile, ...]:
    """Every tile of the double-``top`` set, in a fixed order."""
    return tuple(Tile(a, b) for a in range(top + 1) for b in range(a, top + 1))


def set_size(top: int) -> int:
    return (top + 1) * (top + 2) // 2


def check_in_set(tile: Tile, top: int) -> Tile:
    if not tile.in_set(top):
        raise TileNotInSetError(f"{tile} is not in a double-{top} set (halves go up to {top})")
    return tile


def parse_tiles(items: str | Iterable[str | Tile], top: int | None = None) -> list[Tile]:
    """Parse a comma/space separated list (``"3-4, 0-0"``) or an iterable of tiles."""
    if isinstance(items, str):
        # every separator Tile.parse takes within a tile (4x7 too) marks the next tile after a space
        parts = [p for p in re.split(r"[,;]\s*|\s+(?=\d+\s*[-:|/xX]\s*\d)", items.strip()) if p.strip()]
    else:
        parts = list(items)
    tiles = [Tile.parse(p) for p in parts]
    if top is not None:
        for t in tiles:
            check_in_set(t, top)
    return tiles


def iter_values(tiles: Iterable[Tile]) -> Iterator[int]:
    for t in tiles:
        yield t.low
        yield t.high
