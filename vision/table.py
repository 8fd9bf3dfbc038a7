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

The result is an unordered :class:`companion.rules.layout.Layout` (a photo does not show the
order of play), the tiles that touch nothing in it (a hand or the boneyard beside the table),
and warnings for what a person should look at. Geometry only: every rule is the rules core's.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from companion.rules.errors import ChickenFootError, InputError
from companion.rules.layout import Layout, Placement, Report, check_layout
from companion.rules.ruleset import DEFAULT_PRESET, RuleSet, get_rules
from companion.rules.tiles import SETS, Tile

from .reader import Reading, TileReading

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

    ``parent[i]`` is the index (into ``reading.tiles``) of the tile tile ``i`` is played on,
    None for the hub and for tiles not in the layout (``loose``).
    """

    reading: Reading
    layout: Layout
    hub: int
    parent: tuple[int | None, ...]
    loose: tuple[int, ...]
    warnings: tuple[str, ...]

    @property
    def in_layout(self) -> list[int]:
        return [i for i, p in enumerate(self.parent) if p is not None or i == self.hub]

    def index_of(self, tile: Tile) -> list[int]:
        """Where ``tile`` is in the layout (indices into ``reading.tiles``; two if read twice)."""
        return [i for i in self.in_layout if self.reading.tiles[i].tile == tile]

    def check(self, rules: RuleSet | str | None = None) -> Report:
        """The rules core's report on the layout (see :func:`companion.rules.layout.check_layout`)."""
        return check_layout(self.layout, rules)

    def problem_tiles(self, report: Report) -> list[int]:
        """The tiles (indices into ``reading.tiles``) that ``report``'s problems are about."""
        return sorted({i for p in report.problems if p.tile is not None for i in self.index_of(p.tile)})

    def to_dict(self) -> dict[str, Any]:
        tiles = self.reading.tiles
        return {
            "layout": self.layout.to_dict(),
            "hub": str(tiles[self.hub].tile),
            "joints": [{"tile": str(tiles[i].tile), "on": str(tiles[p].tile), "index": i, "on_index": p}
                       for i, p in enumerate(self.parent) if p is not None],
            "loose": [str(tiles[i].tile) for i in self.loose],
            "warnings": list(self.warnings),
        }


# ----------------------------------------------------------------------------- contacts
def _frames(boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    c = boxes[:, :2].astype(np.float64)
    u = np.stack([np.cos(boxes[:, 4]), np.sin(boxes[:, 4])], 1).astype(np.float64)
    v = np.stack([-u[:, 1], u[:, 0]], 1)
    return c, u, v


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
    c, u, v = _frames(boxes)
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
            pts = tip[None, :] + sign * u[i][None, :] * (steps[:, None] * wd[i])  # (S, 2)
            rel = pts[None, :, :] - c[js][:, None, :]  # (J, S, 2)
            along = np.einsum("jsk,jk->js", rel, u[js])
            across = np.einsum("jsk,jk->js", rel, v[js])
            m = (MARGIN * wd[js])[:, None]
            inside = (np.abs(along) <= ln[js][:, None] / 2 + m) & (np.abs(across) <= wd[js][:, None] / 2 + m)
            if not inside.any():
                continue
            first = np.where(inside.any(1), inside.argmax(1), len(steps))
            k = int(np.argmin(first))
            j = int(js[k])
            s = int(first[k])
            at = float(along[k, s])
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
    return _Tree(parent, touching, open_value, total)


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


def read_table(reading: Reading, hub: Tile | str | None = None, set: int | None = None,
               rules: str | None = None) -> TableReading:
    """The layout in a photo of the table, from its :class:`Reading`.

    ``hub``: the round's double, when known (advised: the photo alone cannot always tell the
    hub from a foot). ``set`` and ``rules`` go into the layout for the rules core (``rules``
    also breaks ties when the hub is guessed). Raises :class:`TableError` when no double was
    read at all, so there is nothing to start from.
    """
    if set is not None and set not in SETS:
        raise TableError(f"set must be one of {', '.join(map(str, SETS))}, not {set}")
    want = Tile.parse(hub) if isinstance(hub, str) else hub
    if want is not None and not want.is_double:
        raise TableError(f"the hub must be a double, not {want}")
    tiles = reading.tiles
    doubles = [i for i, t in enumerate(tiles) if t.tile.is_double]
    if not doubles:
        raise TableError("no double was read in the photo, so there is no hub to start the layout from")
    boxes = np.array([[t.box.cx, t.box.cy, t.box.length, t.box.width, t.box.angle] for t in tiles],
                     np.float64).reshape(-1, 5)
    found = contacts(boxes, [t.tile.is_double for t in tiles])
    rs = get_rules(rules or DEFAULT_PRESET)
    warnings = []
    named = [i for i in doubles if tiles[i].tile == want]
    # the same double read twice: the one that gathers more tiles
    h = _pick_hub(tiles, found, named or doubles, reading.image_size, rs)
    tree = _grow(tiles, found, h)
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
    unsure = [str(tiles[i].tile) for i in (h, *order) if tiles[i].needs_review]
    if unsure:
        warnings.append("read unsurely, check them before trusting the verdict: " + ", ".join(unsure))
    loose = tuple(i for i, p in enumerate(tree.parent) if p is None and i != h)
    if loose:
        warnings.append(f"{len(loose)} tile(s) do not join the layout and are left out (off the table, or "
                        "joined through a tile that was not read): " + ", ".join(str(tiles[i].tile) for i in loose))
    return TableReading(reading, _layout(tiles, tree.parent, h, rules, set), h, tuple(tree.parent), loose,
                        tuple(warnings))
