"""Which tiles touch in a photo of the table: tile ends against other tiles, from their boxes.

Tiles in play touch: a line tile's end against the tile it was played on, a spoke's or toe's end
against a double's side. So, for each end of each tile, a short ray is cast outwards along the
tile; the first other tile it meets within :data:`REACH` tile widths is that end's neighbour.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: How far past a tile's end (in widths of that tile) a neighbour may lie and still touch it:
#: players leave gaps, fanned toes sit off the double's corners, boxes are a little loose.
REACH = 0.8
#: How far back into the tile the ray starts, for neighbours whose boxes overlap it.
OVERLAP = 0.3
#: A ray counts as meeting a box this far outside it (in widths of the box's tile).
MARGIN = 0.08
#: A line tile is played on at its end: a ray that meets it further than this many of its
#: widths from either end meets its side, and costs :data:`OFF_END_COST` more.
END_ZONE = 0.8
OFF_END_COST = 0.5

A, B = 0, 1  # the tile's ends: half a at the box's -length/2 end, half b at +length/2


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


def frames(boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each box's centre, long axis and short axis."""
    c = boxes[:, :2].astype(np.float64)
    u = np.stack([np.cos(boxes[:, 4]), np.sin(boxes[:, 4])], 1).astype(np.float64)
    v = np.stack([-u[:, 1], u[:, 0]], 1)
    return c, u, v


def first_hit(pts: np.ndarray, boxes: np.ndarray, framed: tuple[np.ndarray, np.ndarray, np.ndarray],
              among: np.ndarray) -> tuple[int, int, float] | None:
    """The first of ``pts`` (a ray's samples, nearest first) inside one of the boxes ``among``
    (indices, each box grown by :data:`MARGIN` of its width): ``(box, sample, where along the
    box's long axis)``, or None."""
    c, u, v = (f[among] for f in framed)
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
    framed = frames(boxes)
    c, u, _ = framed
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
            hit = first_hit(tip[None, :] + sign * u[i][None, :] * (steps[:, None] * wd[i]), boxes, framed, js)
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
