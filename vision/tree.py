"""The layout as a tree over the contacts: from the hub, cheapest contact first.

The layout grows like a minimum spanning tree (Prim's algorithm) over the contacts
(:func:`chickenfoot.vision.contacts.contacts`): a contact costs its gap in tile widths, plus
:data:`MISMATCH_COST` when the touching numbers differ, so a misread or crowded corner does not
pull a tile onto the wrong neighbour when a matching one touches too. A line tile takes further
tiles only at its free end, a double on any side.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass

from chickenfoot.rules.errors import ChickenFootError
from chickenfoot.rules.layout import Layout, Placement, check_layout
from chickenfoot.rules.ruleset import RuleSet

from .contacts import A, B, Contact
from .reading import TileReading

#: Extra cost of a contact whose touching numbers differ (a gap of this many widths).
MISMATCH_COST = 0.6


def half(t: TileReading, end: int) -> int:
    return t.a if end == A else t.b


@dataclass(frozen=True)
class Tree:
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


def grow(tiles: Sequence[TileReading], found: Sequence[Contact], hub: int) -> Tree:
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
            shows = tk.a if tk.tile.is_double else half(tk, k_end)  # type: ignore[arg-type]
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
            touching[k] = half(tk, k_end)  # type: ignore[arg-type]
            open_value[k] = half(tk, free)
        else:
            touching[k] = tk.a
        offer(k)
    return Tree(parent, touching, open_value, free_end, total)


def tree_order(parent: Sequence[int | None], hub: int) -> list[int]:
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


def layout_of(tiles: Sequence[TileReading], parent: Sequence[int | None], hub: int, rules: str | None,
            set: int | None) -> Layout:
    plays = tuple(Placement(tiles[i].tile, tiles[parent[i]].tile) for i in tree_order(parent, hub))  # type: ignore[index]
    return Layout(tiles[hub].tile, plays, rules=rules, set=set, ordered=False)


def problems(tiles: Sequence[TileReading], tree: Tree, hub: int, rules: RuleSet) -> int:
    try:
        return len(check_layout(layout_of(tiles, tree.parent, hub, None, None), rules).problems)
    except ChickenFootError:
        return 1_000  # e.g. a tile beyond any set the rules play


def pick_hub(tiles: Sequence[TileReading], found: Sequence[Contact], candidates: Sequence[int],
              size: tuple[int, int], rules: RuleSet) -> int:
    w, h = size

    def score(i: int) -> tuple[int, int, int, float, float]:
        # Every double of one layout grows the same tree, so size only sets other groups
        # apart. Within one, the hub is the double that makes the fewest broken rules (a foot
        # taken for the hub leaves the real hub "on" a line), then the one with the most tiles
        # on it (spokes outnumber toes once play has moved on).
        tree = grow(tiles, found, i)
        box = tiles[i].box
        return (tree.size(), -problems(tiles, tree, i, rules), sum(p == i for p in tree.parent), -tree.cost,
                -math.hypot(box.cx - w / 2, box.cy - h / 2))

    return max(candidates, key=score)
