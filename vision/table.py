"""A photo of the table turned into a layout the rules core can check.

The reader gives every face-up tile with its oriented box and which half is at which end. Tiles
in play touch: a line tile's end against the tile it was played on, a spoke's or toe's end
against a double's side. So, for each end of each tile, a short ray is cast outwards along the
tile; the first other tile it meets within :data:`REACH` tile widths is that end's neighbour.
From the hub (the round's double, when known; else the double that gathers the most tiles) the
layout grows like a minimum spanning tree over these contacts, cheapest first: a contact costs
its gap in tile widths, plus :data:`MISMATCH_COST` when the touching numbers differ, so a misread
or crowded corner does not pull a tile onto the wrong neighbour when a matching one touches too.
A line tile takes further tiles only at its free end, a double on any side.

A tile the detector missed cuts off every tile beyond it, so where the layout shows a one-tile
gap (or a line end with loose toes, or a named hub missing among its spokes), a tile is read at
that spot (``look``, e.g. :meth:`vision.reader.Reader.look_at`) and joins only if it shows the
numbers the gap needs.

The result is an unordered :class:`companion.rules.layout.Layout` (a photo does not show the
order of play), the tiles that touch nothing in it (a hand or the boneyard beside the table),
and warnings for what a person should look at. Geometry only: the rules core judges the layout
(its problem count also breaks ties when the hub is guessed).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

import numpy as np

from companion.rules.errors import ChickenFootError, InputError
from companion.rules.layout import NOT_IN_SET, Layout, Placement, Report, check_layout
from companion.rules.ruleset import DEFAULT_PRESET, RuleSet, get_rules
from companion.rules.tiles import SETS, Tile

from .detections import box_rows, probiou
from .geometry import OrientedBox
from .images import LoadedImage
from .reader import Reader
from .reading import Reading, TileReading

#: How far past a tile's end (in widths of that tile) a neighbour may lie and still touch it:
#: players leave gaps, fanned toes sit off the double's corners, boxes are a little loose.
REACH = 0.8
#: How far back into the tile the ray starts, for neighbours whose boxes overlap it.
OVERLAP = 0.3
#: A ray counts as meeting a box this far outside it (in widths of the box's tile).
MARGIN = 0.08
#: Extra cost of a contact whose touching numbers differ (a gap of this many widths).
MISMATCH_COST = 0.6
#: A line tile is played on at its end: a ray that meets it further than this many of its
#: widths from either end meets its side, and costs :data:`OFF_END_COST` more.
END_ZONE = 0.8
OFF_END_COST = 0.5
#: How far (in tile lengths) a tile left out of the layout looks for the open end a missed tile
#: would join it to; a gap of a tile length (these fractions of it) holds a line tile, one of
#: a tile width (these fractions of it) a double crosswise.
GAP_REACH = 1.6
GAP_LONG = (0.7, 1.45)
GAP_WIDE = (0.6, 1.5)
#: Rounds of looking: a tile found can close the next gap along the same line.
LOOK_ROUNDS = 3
#: A reader's candidate overlapping a gap's box this much (probabilistic IoU) lies in the gap.
CANDIDATE_IOU = 0.3

A, B = 0, 1  # the tile's ends: half a at the box's -length/2 end, half b at +length/2


class TableError(InputError):
    """No layout can be read from these tiles (no double to start from, a hub that is no double)."""


@dataclass(frozen=True, slots=True)
class Contact:
    """Tile ``tile``'s end ``end`` touches tile ``other`` after a gap of ``gap`` widths (plus
    :data:`OFF_END_COST` when it meets a line tile's side away from its ends), at ``other``'s
    end ``other_end`` (None: a side of a double laid crosswise)."""

    tile: int
    end: int
    other: int
    gap: float
    other_end: int | None


@dataclass(frozen=True)
class TableReading:
    """What a table photo shows: the layout, and which read tile is which part of it.

    ``tiles`` are the reader's tiles followed by ``found``: tiles the reader missed or did not
    count, taken where the layout said one must lie (see :func:`read_table`). ``parent[i]``
    is the index (into ``tiles``) of the tile tile ``i`` is played on, None for the hub and for
    tiles not in the layout (``loose``).
    """

    reading: Reading
    layout: Layout
    hub: int
    parent: tuple[int | None, ...]
    loose: tuple[int, ...]
    warnings: tuple[str, ...]
    found: tuple[TileReading, ...] = ()

    @property
    def tiles(self) -> tuple[TileReading, ...]:
        return (*self.reading.tiles, *self.found)

    @property
    def in_layout(self) -> list[int]:
        return [i for i, p in enumerate(self.parent) if p is not None or i == self.hub]

    def index_of(self, tile: Tile) -> list[int]:
        """Where ``tile`` is in the layout (indices into ``tiles``; two if read twice)."""
        tiles = self.tiles
        return [i for i in self.in_layout if tiles[i].tile == tile]

    def check(self, rules: RuleSet | str | None = None) -> Report:
        """The rules core's report on the layout (see :func:`companion.rules.layout.check_layout`)."""
        return check_layout(self.layout, rules)

    def problem_tiles(self, report: Report, read_as: Callable[[Tile], Tile] = lambda t: t) -> list[int]:
        """The tiles (indices into ``tiles``) that ``report``'s problems are about. ``read_as``:
        the tile as read, for a layout corrected by hand since."""
        return sorted({i for p in report.problems if p.tile is not None for i in self.index_of(read_as(p.tile))})

    def to_dict(self) -> dict[str, Any]:
        tiles = self.tiles
        return {
            "layout": self.layout.to_dict(),
            "hub": str(tiles[self.hub].tile),
            "joints": [{"tile": str(tiles[i].tile), "on": str(tiles[p].tile), "index": i, "on_index": p}
                       for i, p in enumerate(self.parent) if p is not None],
            "loose": [str(tiles[i].tile) for i in self.loose],
            "found": [t.to_dict() for t in self.found],
            "warnings": list(self.warnings),
        }


# ----------------------------------------------------------------------------- contacts
def _frames(boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    c = boxes[:, :2].astype(np.float64)
    u = np.stack([np.cos(boxes[:, 4]), np.sin(boxes[:, 4])], 1).astype(np.float64)
    v = np.stack([-u[:, 1], u[:, 0]], 1)
    return c, u, v


def _first_hit(pts: np.ndarray, boxes: np.ndarray, frames: tuple[np.ndarray, np.ndarray, np.ndarray],
               among: np.ndarray) -> tuple[int, int, float] | None:
    """The first of ``pts`` (a ray's samples, nearest first) inside one of the boxes ``among``
    (indices, each box grown by :data:`MARGIN` of its width): ``(box, sample, where along the
    box's long axis)``, or None."""
    c, u, v = (f[among] for f in frames)
    ln, wd = boxes[among, 2], boxes[among, 3]
    rel = pts[None, :, :] - c[:, None, :]  # (boxes, samples, 2)
    along = np.einsum("jsk,jk->js", rel, u)
    across = np.einsum("jsk,jk->js", rel, v)
    m = (MARGIN * wd)[:, None]
    inside = (np.abs(along) <= ln[:, None] / 2 + m) & (np.abs(across) <= wd[:, None] / 2 + m)
    if not inside.any():
        return None
    first = np.where(inside.any(1), inside.argmax(1), len(pts))
    k = int(np.argmin(first))
    return int(among[k]), int(first[k]), float(along[k, first[k]])


def contacts(boxes: np.ndarray, doubles: Sequence[bool]) -> list[Contact]:
    """Every tile end that touches another tile, from ``(N, 5)`` oriented boxes.

    Each end casts a ray outwards along its tile, from :data:`OVERLAP` widths inside to
    :data:`REACH` widths beyond the end; the first box (grown by :data:`MARGIN` widths) it meets
    is the neighbour. Where on that box it meets says which end of it (for a line tile's side,
    nothing; for a double's side, ``other_end`` is None).
    """
    boxes = np.asarray(boxes, np.float64).reshape(-1, 5)
    n = len(boxes)
    if n < 2:
        return []
    frames = _frames(boxes)
    c, u, _ = frames
    ln, wd = boxes[:, 2], boxes[:, 3]
    steps = np.arange(-OVERLAP, REACH + 1e-9, 0.05)
    out = []
    for i in range(n):
        near = np.hypot(*(c - c[i]).T) < (ln + ln[i]) * 0.5 + REACH * wd[i] + 1
        near[i] = False
        js = np.flatnonzero(near)
        if js.size == 0:
            continue
        for end, sign in ((A, -1.0), (B, 1.0)):
            tip = c[i] + sign * u[i] * ln[i] / 2
            hit = _first_hit(tip[None, :] + sign * u[i][None, :] * (steps[:, None] * wd[i]), boxes, frames, js)
            if hit is None:
                continue
            j, s, at = hit
            other_end: int | None
            if doubles[j]:
                # a double in line (lengthwise) is met at an end like any tile; crosswise, on a side
                other_end = (B if at > 0 else A) if abs(at) > ln[j] / 2 - END_ZONE * wd[j] * 0.5 else None
            else:
                other_end = B if at > 0 else A
            # a line tile is played on at its end; a ray that meets its side further in is a
            # corner turned (or a sloppy one), kept at a price so a square contact wins
            off_end = not doubles[j] and abs(at) < ln[j] / 2 - END_ZONE * wd[j]
            out.append(Contact(i, end, j, max(0.0, float(steps[s])) + (OFF_END_COST if off_end else 0.0), other_end))
    return out


# ----------------------------------------------------------------------------- the tree
def _half(t: TileReading, end: int) -> int:
    return t.a if end == A else t.b


@dataclass(frozen=True)
class _Tree:
    parent: list[int | None]
    #: The number on the end of each line tile that touches what it is on (a double: its own).
    touching: list[int | None]
    #: The number each tile leaves open: a double's own, a line tile's far half.
    open_value: list[int]
    #: The end of each line tile in the tree that takes the next tile (None: doubles, loose tiles).
    free_end: list[int | None]
    cost: float

    def size(self) -> int:
        return sum(p is not None for p in self.parent)


def _grow(tiles: Sequence[TileReading], found: Sequence[Contact], hub: int) -> _Tree:
    """The cheapest tree over ``found`` from ``hub`` (Prim's algorithm over the contacts)."""
    n = len(tiles)
    by_tile: list[list[Contact]] = [[] for _ in range(n)]
    for ct in found:
        by_tile[ct.tile].append(ct)
        by_tile[ct.other].append(ct)
    parent: list[int | None] = [None] * n
    touching: list[int | None] = [None] * n
    free_end: list[int | None] = [None] * n  # a line tile's end that takes the next tile
    open_value = [t.a for t in tiles]
    joined = [False] * n
    joined[hub] = True
    heap: list[tuple[float, int, int, int, int | None]] = []
    order = 0
    total = 0.0

    def offer(p: int) -> None:
        nonlocal order
        for ct in by_tile[p]:
            # which end of p is touched, and which end (if any) of the tile k touching it
            if ct.other == p:
                k, k_end, p_end = ct.tile, ct.end, ct.other_end
            else:
                k, k_end, p_end = ct.other, ct.other_end, ct.end
            if joined[k]:
                continue
            if free_end[p] is not None and p_end != free_end[p]:
                continue  # a line tile is played on at its free end only
            tk = tiles[k]
            if not tk.tile.is_double and k_end is None:
                continue  # a line tile is laid with an end, not a side, against what it is on
            shows = tk.a if tk.tile.is_double else _half(tk, k_end)  # type: ignore[arg-type]
            order += 1
            heapq.heappush(heap, (ct.gap + (MISMATCH_COST if shows != open_value[p] else 0.0), order, k, p, k_end))

    offer(hub)
    while heap:
        cost, _, k, p, k_end = heapq.heappop(heap)
        if joined[k]:
            continue
        joined[k] = True
        parent[k] = p
        total += cost
        tk = tiles[k]
        if not tk.tile.is_double:
            free = B if k_end == A else A
            free_end[k] = free
            touching[k] = _half(tk, k_end)  # type: ignore[arg-type]
            open_value[k] = _half(tk, free)
        else:
            touching[k] = tk.a
        offer(k)
    return _Tree(parent, touching, open_value, free_end, total)


def _tree_order(parent: Sequence[int | None], hub: int) -> list[int]:
    """Tiles of the tree, breadth first from the hub (parents before their tiles)."""
    kids: dict[int, list[int]] = {}
    for i, p in enumerate(parent):
        if p is not None:
            kids.setdefault(p, []).append(i)
    out, frontier = [], [hub]
    while frontier:
        nxt = []
        for p in frontier:
            for k in kids.get(p, ()):
                out.append(k)
                nxt.append(k)
        frontier = nxt
    return out


def _layout(tiles: Sequence[TileReading], parent: Sequence[int | None], hub: int, rules: str | None,
            set: int | None) -> Layout:
    plays = tuple(Placement(tiles[i].tile, tiles[parent[i]].tile) for i in _tree_order(parent, hub))  # type: ignore[index]
    return Layout(tiles[hub].tile, plays, rules=rules, set=set, ordered=False)


def _problems(tiles: Sequence[TileReading], tree: _Tree, hub: int, rules: RuleSet) -> int:
    try:
        return len(check_layout(_layout(tiles, tree.parent, hub, None, None), rules).problems)
    except ChickenFootError:
        return 1_000  # e.g. a tile beyond any set the rules play


def _pick_hub(tiles: Sequence[TileReading], found: Sequence[Contact], candidates: Sequence[int],
              size: tuple[int, int], rules: RuleSet) -> int:
    w, h = size

    def score(i: int) -> tuple[int, int, int, float, float]:
        # Every double of one layout grows the same tree, so size only sets other groups
        # apart. Within one, the hub is the double that makes the fewest broken rules (a foot
        # taken for the hub leaves the real hub "on" a line), then the one with the most tiles
        # on it (spokes outnumber toes once play has moved on).
        tree = _grow(tiles, found, i)
        box = tiles[i].box
        return (tree.size(), -_problems(tiles, tree, i, rules), sum(p == i for p in tree.parent), -tree.cost,
                -math.hypot(box.cx - w / 2, box.cy - h / 2))

    return max(candidates, key=score)


Look = Callable[[list[OrientedBox]], list[TileReading]]


@dataclass(frozen=True, slots=True)
class Gap:
    """Where a tile the detector missed must lie: between the layout's open end on tile ``on``
    (showing ``near``) and an end of a tile not yet in the layout (showing ``far``). ``box`` has
    half A toward ``on``."""

    box: OrientedBox
    on: int
    near: int
    far: int

    def filled_by(self, t: TileReading) -> bool:
        return t.a == self.near and t.b == self.far


def gaps(tiles: Sequence[TileReading], tree: _Tree, hub: int, boxes: np.ndarray) -> list[Gap]:
    """One-tile gaps between a tile left out of the layout and an open end of it.

    Each end of each tile outside the tree casts a ray up to :data:`GAP_REACH` tile lengths; if
    the first tile it meets is in the tree and takes tiles there (a double, or a line tile's
    free end), and the gap is about a tile long (a line tile) or a tile wide (a double
    crosswise, when both ends show one number), a tile must lie in it.
    """
    frames = _frames(boxes)
    c, u, v = frames
    ln, wd = boxes[:, 2], boxes[:, 3]
    in_tree = np.array([p is not None or i == hub for i, p in enumerate(tree.parent)])
    placed = {t.tile for t, ok in zip(tiles, in_tree, strict=True) if ok}
    out = []
    for x in np.flatnonzero(~in_tree):
        # rays from both ends; a double (crosswise at the end of a line) also from its sides
        rays = [(c[x] + sign * u[x] * ln[x] / 2, sign * u[x], end) for end, sign in ((A, -1.0), (B, 1.0))]
        if tiles[x].tile.is_double:
            rays += [(c[x] + sign * v[x] * wd[x] / 2, sign * v[x], A) for sign in (-1.0, 1.0)]
        others = np.delete(np.arange(len(boxes)), x)
        for tip, d, end in rays:
            steps = np.arange(0.2 * wd[x], GAP_REACH * ln[x], 0.1 * wd[x])
            hit = _first_hit(tip + steps[:, None] * d, boxes, frames, others)
            if hit is None:
                continue
            j, step, at = hit
            if not in_tree[j]:
                continue  # another loose tile is nearer: it is the one to join first
            if tree.free_end[j] is not None and (B if at > 0 else A) != tree.free_end[j]:
                continue
            g = float(steps[step])
            near, far = tree.open_value[j], _half(tiles[x], end)
            mid = tip + d * g / 2
            toward = math.atan2(-d[1], -d[0])  # half A toward the open end
            if near == far and GAP_WIDE[0] * wd[x] <= g <= GAP_WIDE[1] * wd[x]:
                box = OrientedBox(float(mid[0]), float(mid[1]), float(ln[x]), float(wd[x]), toward + math.pi / 2)
            elif GAP_LONG[0] * ln[x] <= g <= GAP_LONG[1] * ln[x]:
                box = OrientedBox(float(mid[0]), float(mid[1]), float(ln[x]), float(wd[x]), toward)
            else:
                continue
            if Tile(near, far) in placed:
                continue  # a set has one: the neighbours are misread, not a tile missed
            out.append(Gap(box, j, near, far))
    out += _open_feet(tiles, tree, in_tree, placed, boxes)
    return out


def _open_feet(tiles: Sequence[TileReading], tree: _Tree, in_tree: np.ndarray, placed: set[Tile],
               boxes: np.ndarray) -> list[Gap]:
    """A double missed crosswise at the end of a line: its toes are left out, and angled, so
    their rays miss the line. Proposed at every line end with nothing on it where a tile left
    out touches the double's place with the line's number."""
    loose = np.flatnonzero(~in_tree)
    if not loose.size:
        return []
    c, u, _ = _frames(boxes)
    ln, wd = boxes[:, 2], boxes[:, 3]
    has_kids = {p for p in tree.parent if p is not None}
    out = []
    for j in np.flatnonzero(in_tree):
        fe, val = tree.free_end[j], tree.open_value[j]
        if fe is None or j in has_kids or Tile(val, val) in placed:
            continue
        d = (-1.0 if fe == A else 1.0) * u[j]
        centre = c[j] + d * (ln[j] / 2 + wd[j] * 0.52)
        box = OrientedBox(float(centre[0]), float(centre[1]), float(ln[j]), float(wd[j]),
                          math.atan2(d[1], d[0]) + math.pi / 2)
        test = np.vstack([boxes[loose], box_rows([box])])
        touching = contacts(test, [tiles[i].tile.is_double for i in loose] + [True])
        if any(ct.other == len(loose) and _half(tiles[loose[ct.tile]], ct.end) == val for ct in touching):
            out.append(Gap(box, int(j), val, val))
    return out


def hub_spots(tiles: Sequence[TileReading], boxes: np.ndarray, value: int) -> list[OrientedBox]:
    """Where a hub the detector missed could lie: against each end showing its number, crosswise
    (a spoke on its side) or in line (a spoke on its end), clear of every tile read."""
    c, u, _ = _frames(boxes)
    ln, wd = boxes[:, 2], boxes[:, 3]
    out = []
    for i, t in enumerate(tiles):
        for end, sign in ((A, -1.0), (B, 1.0)):
            if _half(t, end) != value:
                continue
            d = sign * u[i]
            ang = math.atan2(d[1], d[0])
            for reach, turn in ((wd[i] * 0.52, math.pi / 2), (ln[i] * 0.51, 0.0)):
                centre = c[i] + d * (ln[i] / 2 + reach)
                out.append(OrientedBox(float(centre[0]), float(centre[1]), float(ln[i]), float(wd[i]), ang + turn))
    if not out or not len(boxes):
        return out
    return [b for b, ok in zip(out, probiou(box_rows(out), boxes).max(1) < 0.3, strict=True) if ok]


def read_table(reading: Reading, hub: Tile | str | None = None, set: int | None = None,
               rules: str | None = None, look: Look | None = None) -> TableReading:
    """The layout in a photo of the table, from its :class:`Reading`.

    ``hub``: the round's double, when known (advised: the photo alone cannot always tell the
    hub from a foot). ``set`` and ``rules`` go into the layout for the rules core (``rules``
    also breaks ties when the hub is guessed). ``look``: reads a tile at each given box (e.g.
    :meth:`vision.reader.Reader.look_at` on the photo); with it, a one-tile gap between an open
    end and a tile left out (:func:`gaps`) is read, and a tile showing the two numbers the gap
    needs joins the layout, flagged for review. A possible tile the reader did not count
    (``reading.candidates``) that lies in such a gap and shows those numbers joins the same way,
    with or without ``look``. Raises :class:`TableError` when no double was
    read at all, so there is nothing to start from.
    """
    if set is not None and set not in SETS:
        raise TableError(f"set must be one of {', '.join(map(str, SETS))}, not {set}")
    want = Tile.parse(hub) if isinstance(hub, str) else hub
    if want is not None and not want.is_double:
        raise TableError(f"the hub must be a double, not {want}")
    tiles: list[TileReading] = list(reading.tiles)
    boxes = _boxes(tiles)
    found: list[TileReading] = []
    if want is not None and not any(t.tile == want for t in tiles):
        # the hub the detector missed or did not count: among the candidates, else read against
        # its spokes; of several places, the one most tiles join
        seen = [replace(t, needs_review=True) for t in reading.candidates if t.tile == want]
        if not seen and look is not None:
            seen = [t for t in look(hub_spots(tiles, boxes, want.low)) if t.tile == want]
        if seen:

            def joined(t: TileReading) -> tuple[int, float]:
                trial = [*tiles, t]
                tree = _grow(trial, contacts(_boxes(trial), [x.tile.is_double for x in trial]), len(tiles))
                return tree.size(), t.confidence

            found.append(max(seen, key=joined))
            tiles.append(found[-1])
            boxes = _boxes(tiles)
    doubles = [i for i, t in enumerate(tiles) if t.tile.is_double]
    if not doubles:
        raise TableError("no double was read in the photo, so there is no hub to start the layout from")
    found_contacts = contacts(boxes, [t.tile.is_double for t in tiles])
    rs = get_rules(rules or DEFAULT_PRESET)
    warnings = []
    named = [i for i in doubles if tiles[i].tile == want]
    # the same double read twice: the one that gathers more tiles
    h = _pick_hub(tiles, found_contacts, named or doubles, reading.image_size, rs)
    tree = _grow(tiles, found_contacts, h)
    for _ in range(LOOK_ROUNDS if look is not None or reading.candidates else 0):
        holes = gaps(tiles, tree, h, boxes)
        if not holes:
            break
        # a possible tile the reader was too unsure to count, in the gap and showing what it
        # needs, is taken as it is (the detector's box sits on the tile better than the gap's)
        seen = [_candidate_in(g, reading.candidates) for g in holes]
        todo = [k for k, t in enumerate(seen) if t is None] if look is not None else []
        for k, t in zip(todo, look([holes[k].box for k in todo]) if todo else [], strict=True):  # type: ignore[misc]
            seen[k] = t
        new: list[TileReading] = []
        for g, t in zip(holes, seen, strict=True):
            if t is not None and g.filled_by(t) and all(t.tile != n.tile for n in new):
                new.append(t)
        if not new:
            break
        found += new
        tiles += new
        boxes = _boxes(tiles)
        found_contacts = contacts(boxes, [t.tile.is_double for t in tiles])
        tree = _grow(tiles, found_contacts, h)
    if want is not None and not named:
        warnings.append(f"no {want} was read in the photo; took the {tiles[h].tile} as the hub instead: "
                        "check the photo, or retake it with the hub in view")
    elif want is None and any(i != h and tree.parent[i] is None for i in doubles):
        warnings.append(f"took the {tiles[h].tile} as the hub (it gathers the most tiles); name the "
                        "round's double if that is wrong")
    order = _tree_order(tree.parent, h)
    for i in order:
        t, p = tiles[i], tree.parent[i]
        want_v = tree.open_value[p]  # type: ignore[index]
        if not t.tile.is_double and tree.touching[i] != want_v and t.tile.has(want_v):
            warnings.append(f"{t.tile} touches the {tiles[p].tile} with its {tree.touching[i]}, not its "  # type: ignore[index]
                            f"{want_v}: laid the wrong way round, or misread?")
    if found:
        warnings.append("found by looking where the layout needs a tile (the reader missed them, or "
                        "was too unsure to count them), "
                        "check them: " + ", ".join(str(t.tile) for t in found))
    unsure = [str(tiles[i].tile) for i in (h, *order) if tiles[i].needs_review and i < len(reading.tiles)]
    if unsure:
        warnings.append("read unsurely, check them before trusting the verdict: " + ", ".join(unsure))
    loose = tuple(i for i, p in enumerate(tree.parent) if p is None and i != h)
    if loose:
        warnings.append(f"{len(loose)} tile(s) do not join the layout and are left out (off the table, or "
                        "joined through a tile that was not read): " + ", ".join(str(tiles[i].tile) for i in loose))
    return TableReading(reading, _layout(tiles, tree.parent, h, rules, set), h, tuple(tree.parent), loose,
                        tuple(warnings), tuple(found))


def read_table_photo(reader: Reader, photo: LoadedImage, rules: RuleSet, top: int | None = None,
                     hub: Tile | str | None = None, set: int | None = None) -> TableReading:
    """A decoded photo of the table read into its layout, as ``chickenfoot table`` and the app
    read one: the reader with its table settings (:meth:`Reader.for_table`), tiles missed
    looked for in the photo itself; ``top`` as for :meth:`Reader.read`."""
    reader = reader.for_table()
    reading = reader.read(photo, rules, top)
    return read_table(reading, hub=hub, set=set, rules=rules.name,
                      look=partial(reader.look_at, photo, top=rules.set if top is None else top))


def verdict_word(report: Report) -> str:
    """The rules core's word on a layout, short enough to head a picture of it."""
    return "legal" if report.legal else f"{len(report.problems)} problem(s)"


def set_warning(report: Report) -> str | None:
    """The tiles of a layout read from a photo that its set does not have (misreads, most
    likely), in one sentence; None when there are none."""
    odd = [str(p.tile) for p in report.problems if p.code == NOT_IN_SET and p.tile is not None]
    return f"not in a double-{report.set} set: {', '.join(odd)}; misread?" if odd else None


def _candidate_in(gap: Gap, candidates: Sequence[TileReading]) -> TileReading | None:
    """A reader's candidate lying in ``gap`` and showing its two numbers, turned so its half A
    faces the open end (as :meth:`Gap.filled_by` reads it), flagged for review; else None."""
    if not candidates:
        return None
    near = probiou(box_rows([gap.box]), _boxes(candidates))[0]
    for k in np.argsort(-near):
        if near[k] < CANDIDATE_IOU:
            break
        t = candidates[int(k)]
        b = t.box
        if (t.a, t.b) == (gap.near, gap.far):
            return replace(t, needs_review=True)
        if (t.b, t.a) == (gap.near, gap.far):  # the same tile, the other way round
            return replace(t, a=t.b, b=t.a, needs_review=True, half_confidence=t.half_confidence[::-1],
                           box=OrientedBox(b.cx, b.cy, b.length, b.width, b.angle + math.pi))
    return None


def _boxes(tiles: Sequence[TileReading]) -> np.ndarray:
    return box_rows(t.box for t in tiles)
