"""Where the layout says a tile must lie that the detector missed: one-tile gaps between an open
end and a tile left out, a double missing at a line's end, a hub missing among its spokes."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from chickenfoot.rules.tiles import Tile

from .contacts import A, B, contacts, first_hit, frames
from .detections import box_rows, probiou
from .geometry import OrientedBox
from .reading import TileReading
from .tree import Tree, half

#: How far (in tile lengths) a tile left out of the layout looks for the open end a missed tile
#: would join it to; a gap of a tile length (these fractions of it) holds a line tile, one of
#: a tile width (these fractions of it) a double crosswise.
GAP_REACH = 1.6
GAP_LONG = (0.7, 1.45)
GAP_WIDE = (0.6, 1.5)


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


def gaps(tiles: Sequence[TileReading], tree: Tree, hub: int, boxes: np.ndarray) -> list[Gap]:
    """One-tile gaps between a tile left out of the layout and an open end of it.

    Each end of each tile outside the tree casts a ray up to :data:`GAP_REACH` tile lengths; if
    the first tile it meets is in the tree and takes tiles there (a double, or a line tile's
    free end), and the gap is about a tile long (a line tile) or a tile wide (a double
    crosswise, when both ends show one number), a tile must lie in it.
    """
    framed = frames(boxes)
    c, u, v = framed
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
            hit = first_hit(tip + steps[:, None] * d, boxes, framed, others)
            if hit is None:
                continue
            j, step, at = hit
            if not in_tree[j]:
                continue  # another loose tile is nearer: it is the one to join first
            if tree.free_end[j] is not None and (B if at > 0 else A) != tree.free_end[j]:
                continue
            g = float(steps[step])
            near, far = tree.open_value[j], half(tiles[x], end)
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


def _open_feet(tiles: Sequence[TileReading], tree: Tree, in_tree: np.ndarray, placed: set[Tile],
               boxes: np.ndarray) -> list[Gap]:
    """A double missed crosswise at the end of a line: its toes are left out, and angled, so
    their rays miss the line. Proposed at every line end with nothing on it where a tile left
    out touches the double's place with the line's number."""
    loose = np.flatnonzero(~in_tree)
    if not loose.size:
        return []
    c, u, _ = frames(boxes)
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
        if any(ct.other == len(loose) and half(tiles[loose[ct.tile]], ct.end) == val for ct in touching):
            out.append(Gap(box, int(j), val, val))
    return out


def hub_spots(tiles: Sequence[TileReading], boxes: np.ndarray, value: int) -> list[OrientedBox]:
    """Where a hub the detector missed could lie: against each end showing its number, crosswise
    (a spoke on its side) or in line (a spoke on its end), clear of every tile read."""
    c, u, _ = frames(boxes)
    ln, wd = boxes[:, 2], boxes[:, 3]
    out = []
    for i, t in enumerate(tiles):
        for end, sign in ((A, -1.0), (B, 1.0)):
            if half(t, end) != value:
                continue
            d = sign * u[i]
            ang = math.atan2(d[1], d[0])
            for reach, turn in ((wd[i] * 0.52, math.pi / 2), (ln[i] * 0.51, 0.0)):
                centre = c[i] + d * (ln[i] / 2 + reach)
                out.append(OrientedBox(float(centre[0]), float(centre[1]), float(ln[i]), float(wd[i]), ang + turn))
    if not out or not len(boxes):
        return out
    return [b for b, ok in zip(out, probiou(box_rows(out), boxes).max(1) < 0.3, strict=True) if ok]
