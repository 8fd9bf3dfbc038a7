"""Where every tile of a table lies on the drawing: pure geometry, no drawing library.

Units: a tile is 2 long and 1 wide; ``y`` grows downwards, as on a screen, and angles are in
degrees, clockwise from ``+x``. The round's double sits at the origin; its spokes leave it on a
circle, one direction per spoke the rules ask for (6, 4 or 3). Each line grows straight outward
from its spoke; a later double is laid across its line and its toes leave it splayed, the
outer ones turned away from the middle one (a chicken foot). Before a tile is put down its
place is tested against every tile already on the board: if it would touch one, the line
bends (an L-turn at the joint, as players lay a line round an obstacle) and, if no bend is
free either, continues further out with a thin joint drawn back to its tile. So no two tiles
ever overlap, however long the lines grow.

Tiles are placed in the order they were laid, so a drawing only ever grows: a new play never
moves the tiles already drawn (the practice round redraws after every play).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from chickenfoot.rules.layout import OpenEnd, Table, Verdict
from chickenfoot.rules.tiles import Tile

LENGTH = 2.0
WIDTH = 1.0
#: Space between touching tiles.
GAP = 0.12
#: Two tiles closer than this count as overlapping.
CLEAR = 0.05
#: Distance from the centre of the round's double to the near ends of its spokes.
HUB_RADIUS = 1.5
#: Turns tried, in order, when a tile does not fit straight on (each tried both ways).
_TURNS = (30.0, 60.0, 90.0, 120.0)
#: How far a line may jump outward (in tile widths) before giving up on a spot (never reached:
#: the plane is empty far enough out).
_MAX_JUMP = 400


def _unit(angle: float) -> tuple[float, float]:
    r = math.radians(angle)
    return math.cos(r), math.sin(r)


@dataclass(frozen=True, slots=True)
class Spot:
    """A tile's place: centre, direction of its long axis (from its near end to its far end)."""

    x: float
    y: float
    angle: float
    length: float = LENGTH
    width: float = WIDTH

    @property
    def axis(self) -> tuple[float, float]:
        return _unit(self.angle)

    def corners(self) -> tuple[tuple[float, float], ...]:
        ux, uy = self.axis
        hl, hw = self.length / 2, self.width / 2
        # across = the axis turned a quarter clockwise: (-uy, ux)
        return tuple((self.x + a * hl * ux - b * hw * uy, self.y + a * hl * uy + b * hw * ux)
                     for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1)))

    def point(self, along: float, across: float = 0.0) -> tuple[float, float]:
        """The point ``along`` the axis and ``across`` it from the centre."""
        ux, uy = self.axis
        return self.x + along * ux - across * uy, self.y + along * uy + across * ux

    def contains(self, x: float, y: float, pad: float = 0.0) -> bool:
        ux, uy = self.axis
        dx, dy = x - self.x, y - self.y
        return (abs(dx * ux + dy * uy) <= self.length / 2 + pad
                and abs(-dx * uy + dy * ux) <= self.width / 2 + pad)

    def box(self) -> tuple[float, float, float, float]:
        xs, ys = zip(*self.corners(), strict=True)
        return min(xs), min(ys), max(xs), max(ys)

    def overlaps(self, other: Spot, clearance: float = CLEAR) -> bool:
        """Whether the two rectangles come closer than ``clearance`` (separating-axis test)."""
        if math.hypot(self.x - other.x, self.y - other.y) > (
                math.hypot(self.length, self.width) + math.hypot(other.length, other.width)) / 2 + clearance:
            return False
        mine, theirs = self.corners(), other.corners()
        for spot in (self, other):
            ux, uy = spot.axis
            for ax, ay in ((ux, uy), (-uy, ux)):
                a = [px * ax + py * ay for px, py in mine]
                b = [px * ax + py * ay for px, py in theirs]
                if max(a) + clearance <= min(b) or max(b) + clearance <= min(a):
                    return False
        return True


@dataclass(frozen=True, slots=True)
class Piece:
    """One tile on the board. ``near`` is the number at the end touching the tile it is laid
    against (``on``); ``far`` the number it leaves open. ``kind``: hub, spoke, line, foot (a
    later double, laid across its line) or toe. ``joint`` is where the tile it is laid against
    ends, when the line had to jump to find room (None when the two touch)."""

    tile: Tile
    near: int
    far: int
    spot: Spot
    kind: str
    on: Tile | None
    heading: float
    flagged: bool = False
    joint: tuple[float, float] | None = None

    @property
    def crosswise(self) -> bool:
        return self.kind in ("hub", "foot")

    def near_edge(self) -> tuple[float, float]:
        """The middle of the edge that faces the tile it is laid against."""
        return _near_edge(self.spot, self.heading, self.crosswise)


@dataclass(frozen=True, slots=True)
class EndMark:
    """An open end on the drawing: where the next tile on ``end.target`` would lie (one mark per
    free spoke or toe of a double)."""

    end: OpenEnd
    spot: Spot
    slot: int


@dataclass(frozen=True, slots=True)
class Ghost:
    """A judged play drawn in place: the tile where it would lie (``spot`` None when there is no
    such place, e.g. the tile it is played on is not on the table)."""

    verdict: Verdict
    near: int
    far: int
    spot: Spot | None
    joint: tuple[float, float] | None = None
    heading: float = 0.0
    #: "4-7 on 9-4: not legal." as a player reads the tiles on the table.
    caption: str = ""

    @property
    def legal(self) -> bool:
        return self.verdict.legal

    def near_edge(self) -> tuple[float, float]:
        assert self.spot is not None
        return _near_edge(self.spot, self.heading, self.verdict.tile.is_double)


def _near_edge(spot: Spot, heading: float, crosswise: bool) -> tuple[float, float]:
    back = WIDTH / 2 if crosswise else spot.length / 2
    ux, uy = _unit(heading)
    return spot.x - back * ux, spot.y - back * uy


@dataclass(frozen=True)
class Board:
    """A table laid out for drawing (see :func:`layout_table`)."""

    hub: Tile
    top: int
    pieces: tuple[Piece, ...]
    ends: tuple[EndMark, ...]
    #: Tiles of the description that are not on the table (played on a tile that is not there).
    loose: tuple[Tile, ...] = ()
    ghost: Ghost | None = None

    def spots(self) -> Iterator[Spot]:
        yield from (p.spot for p in self.pieces)
        yield from (m.spot for m in self.ends)
        if self.ghost is not None and self.ghost.spot is not None:
            yield self.ghost.spot

    def bounds(self) -> tuple[float, float, float, float]:
        """``(x0, y0, x1, y1)`` around every tile, open end and the judged play."""
        boxes = [s.box() for s in self.spots()]
        return (min(b[0] for b in boxes), min(b[1] for b in boxes),
                max(b[2] for b in boxes), max(b[3] for b in boxes))

    def piece(self, tile: Tile | str) -> Piece | None:
        t = Tile.parse(tile)
        return next((p for p in self.pieces if p.tile == t), None)

    def end_at(self, x: float, y: float, reach: float = 0.35) -> EndMark | None:
        """The open end whose mark is at (or within ``reach`` of) the board point ``(x, y)``:
        "tap an open end". The nearest mark wins when several are in reach."""
        hits = [m for m in self.ends if m.spot.contains(x, y, reach)]
        return min(hits, key=lambda m: math.hypot(m.spot.x - x, m.spot.y - y), default=None)

    def piece_at(self, x: float, y: float) -> Piece | None:
        return next((p for p in self.pieces if p.spot.contains(x, y)), None)


# ------------------------------------------------------------------------------ placing
class _Index:
    """The spots already on the board, bucketed by grid cell for quick overlap tests."""

    CELL = 3.0

    def __init__(self) -> None:
        self.cells: dict[tuple[int, int], list[Spot]] = {}

    def _keys(self, spot: Spot) -> Iterator[tuple[int, int]]:
        x0, y0, x1, y1 = spot.box()
        c = self.CELL
        for i in range(math.floor((x0 - CLEAR) / c), math.floor((x1 + CLEAR) / c) + 1):
            for j in range(math.floor((y0 - CLEAR) / c), math.floor((y1 + CLEAR) / c) + 1):
                yield i, j

    def free(self, spot: Spot) -> bool:
        seen: set[int] = set()
        for key in self._keys(spot):
            for other in self.cells.get(key, ()):
                if id(other) not in seen:
                    seen.add(id(other))
                    if spot.overlaps(other):
                        return False
        return True

    def add(self, spot: Spot) -> None:
        for key in self._keys(spot):
            self.cells.setdefault(key, []).append(spot)


def _spot_from(anchor: tuple[float, float], heading: float, double: bool) -> Spot:
    """The tile whose near edge is centred on ``anchor`` and which leaves it along ``heading``;
    a double lies across that direction."""
    ux, uy = _unit(heading)
    if double:
        d = GAP + WIDTH / 2
        return Spot(anchor[0] + d * ux, anchor[1] + d * uy, heading + 90.0)
    d = GAP + LENGTH / 2
    return Spot(anchor[0] + d * ux, anchor[1] + d * uy, heading)


def _splay(count: int) -> list[tuple[float, float]]:
    """(across offset, turn) of each toe of a double with ``count`` toe places, left to right."""
    if count <= 1:
        return [(0.0, 0.0)]
    spread, turn = (0.65, 30.0) if count == 2 else (1.05, 45.0) if count == 3 else (1.3, 60.0)
    return [(-spread + 2 * spread * i / (count - 1), -turn + 2 * turn * i / (count - 1)) for i in range(count)]


class _Placer:
    def __init__(self, table: Table) -> None:
        self.table = table
        self.index = _Index()
        self.pieces: dict[Tile, Piece] = {}
        self.kid_count: dict[Tile, int] = {}
        self.ghosted: dict[Tile, int] = {}

    # -- where the k-th tile on a piece starts, and which way it heads
    def slots(self, parent: Piece) -> int:
        t = self.table
        if parent.kind == "hub":
            return max(t.spokes, len(t.kids[parent.tile]), 1)
        if parent.kind == "foot":
            return max(t.toes, len(t.kids[parent.tile]), 1)
        return 1

    def start(self, parent: Piece, slot: int) -> tuple[tuple[float, float], float, bool]:
        """(anchor, heading, bends) of a tile in ``slot`` of ``parent``. ``bends``: the tile may
        turn at the joint as a line does (not a spoke or a toe, which have their own places)."""
        if parent.kind == "hub":
            n = self.slots(parent)
            heading = -90.0 + 360.0 * slot / n
            ux, uy = _unit(heading)
            return (HUB_RADIUS * ux, HUB_RADIUS * uy), heading, False
        if parent.kind == "foot":
            n = self.slots(parent)
            across, turn = _splay(n)[slot] if slot < n else (0.0, 0.0)
            h = parent.heading
            ux, uy = _unit(h)
            fx, fy = parent.spot.x + (WIDTH / 2 + GAP) * ux, parent.spot.y + (WIDTH / 2 + GAP) * uy
            return (fx - across * uy, fy + across * ux), h + turn, False
        # a line tile: its far end; a second tile on it (a wrong layout) branches off sideways
        h = parent.heading
        ux, uy = _unit(h)
        end = (parent.spot.x + LENGTH / 2 * ux, parent.spot.y + LENGTH / 2 * uy)
        if slot == 0:
            return end, h, True
        turn = 60.0 if slot % 2 else -60.0
        return _joint(end, h, turn), h + turn, False

    def find(self, parent: Piece, slot: int, double: bool) -> tuple[Spot, float, tuple[float, float] | None]:
        """A free spot for a tile in ``slot`` of ``parent``: (spot, heading, joint or None)."""
        anchor, heading, bends = self.start(parent, slot)
        tries = [(anchor, heading)]
        if bends:
            for turn in _TURNS:
                pair = [(_joint(anchor, heading, t), heading + t) for t in (turn, -turn)]
                # Of the two ways round, the one that leads away from the middle first.
                pair.sort(key=lambda p: -_reach(_spot_from(p[0], p[1], double)))
                tries += pair
        else:
            for turn in _TURNS[:2]:
                tries += [(anchor, heading + turn), (anchor, heading - turn)]
        for a, h in tries:
            spot = _spot_from(a, h, double)
            if self.index.free(spot):
                return spot, h, None
        # Nothing free next to it: continue further out, joined back by a thin line.
        ux, uy = _unit(heading)
        for step in range(1, _MAX_JUMP):
            for a, h in tries:
                moved = (a[0] + step * 0.5 * ux, a[1] + step * 0.5 * uy)
                spot = _spot_from(moved, h, double)
                if self.index.free(spot):
                    return spot, h, anchor
        raise AssertionError("no free place on an unbounded board")  # pragma: no cover

    def place_hub(self) -> None:
        hub = self.table.hub
        piece = Piece(hub, hub.low, hub.low, Spot(0.0, 0.0, 90.0), "hub", None, -90.0)
        self.pieces[hub] = piece
        self.index.add(piece.spot)

    def place(self, tile: Tile, flagged: bool) -> None:
        t = self.table
        on = t.parent[tile]
        assert on is not None
        parent = self.pieces[on]
        slot = self.kid_count.get(on, 0)
        self.kid_count[on] = slot + 1
        near = t.value[on]
        far = t.value[tile]
        double = tile.is_double
        spot, heading, joint = self.find(parent, slot, double)
        kind = ("foot" if double else "spoke" if parent.kind == "hub"
                else "toe" if parent.kind == "foot" else "line")
        piece = Piece(tile, near, far, spot, kind, on, heading, flagged, joint)
        self.pieces[tile] = piece
        self.index.add(spot)

    def mark(self, end: OpenEnd) -> list[EndMark]:
        parent = self.pieces[end.target]
        taken = self.kid_count.get(end.target, 0)
        marks = []
        # A judged play drawn on one of these places stands in for its mark.
        for k in range(end.slots - self.ghosted.get(end.target, 0)):
            spot, _, _ = self.find(parent, taken + k, False)
            self.index.add(spot)
            marks.append(EndMark(end, spot, taken + k))
        return marks


def _joint(end: tuple[float, float], heading: float, turn: float) -> tuple[float, float]:
    """Where a tile turning ``turn`` degrees at a line's far ``end`` starts: its near half sits
    square in front of the line's last half, as a player lays a line round a corner."""
    s = abs(math.sin(math.radians(turn)))
    ux, uy = _unit(heading)
    vx, vy = _unit(heading + turn)
    return (end[0] + (GAP + 0.5 * s) * ux - 0.5 * s * vx, end[1] + (GAP + 0.5 * s) * uy - 0.5 * s * vy)


def _reach(spot: Spot) -> float:
    return math.hypot(spot.x, spot.y)


def layout_table(table: Table, *, flagged: Iterable[Tile] = (), loose: Iterable[Tile] = (),
                 play: Verdict | None = None) -> Board:
    """Lay ``table`` out for drawing: every tile in the order it was laid, then a mark on every
    open end (one per free spoke or toe), then the judged ``play`` in place."""
    marked = set(flagged)
    placer = _Placer(table)
    placer.place_hub()
    for tile in table.order:
        placer.place(tile, tile in marked)
    # The judged play first, so that the marks of the other open ends keep clear of it.
    ghost = None if play is None else _ghost(placer, table, play)
    ends = [m for end in table.open_ends() for m in placer.mark(end)]
    return Board(table.hub, table.top, tuple(placer.pieces.values()), tuple(ends),
                 tuple(dict.fromkeys(t for t in loose if t not in table)), ghost)


def _ghost(placer: _Placer, table: Table, verdict: Verdict) -> Ghost:
    tile, on = verdict.tile, verdict.on
    if on not in table:
        return Ghost(verdict, tile.low, tile.high, None, caption=_caption(table, verdict))
    v = table.value[on]
    near, far = (v, tile.other(v)) if tile.has(v) else (tile.low, tile.high)
    # The next place on that tile: a free spoke, toe or line end, or (none left) a branch
    # beside it.
    slot = placer.kid_count.get(on, 0)
    spot, heading, joint = placer.find(placer.pieces[on], slot, tile.is_double)
    placer.index.add(spot)
    placer.kid_count[on] = slot + 1
    if on in table.short or (not on.is_double and not table.kids[on]):
        placer.ghosted[on] = 1  # it took a free place: no mark there
    return Ghost(verdict, near, far, spot, joint, heading, _caption(table, verdict))


def _caption(table: Table, verdict: Verdict) -> str:
    word = "legal" if verdict.legal else "not legal"
    return f"{table.show(verdict.tile, table.value.get(verdict.on))} on {table.show(verdict.on)}: {word}."
