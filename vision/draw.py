"""Drawing a reading on its photo, for the command line and the app's review alike. Computing
happens in :mod:`chickenfoot.vision.reader`; this only paints.

Tiles read confidently get a green outline; tiles flagged for review get a thicker orange
outline and a "?" so a player sees at once which ones to check; possible tiles not counted are
grey, with a smaller label; tiles a player corrected or added are blue; a tile the reader asks
about is orange and labelled with its question's tile ("0-0 or back?" for "Is this the 0-0 or a
face-down tile?", "0-5?" for "Is this the 0-5?"); face-down tiles seen are outlined in purple and
labelled "face down". Labels name a tile low half first, as everywhere else, and the end holding
that half is marked with a short bar across it, so the label "3-4" can be matched to the tile's
ends. Labels are sized to the tiles, not the photo, and go beside their tile, never over its pips,
clear of every other tile and label where the photo leaves room (:func:`place_labels`): a webcam
frame of small tiles stays readable.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from .geometry import OrientedBox
from .reading import Reading, Reason, TileReading
from .table import TableReading

OK_COLOUR = (40, 200, 70)
REVIEW_COLOUR = (255, 140, 0)
CANDIDATE_COLOUR = (150, 150, 150)  # a possible tile the reader did not count
EDITED_COLOUR = (30, 110, 255)  # corrected or added by a player
BACK_COLOUR = (150, 60, 200)  # a face-down tile seen
#: The label of a tile the reader asks about (its question is in the reading).
ASK_LABEL = "0-0 or back?"
TEXT_COLOUR = (255, 255, 255)


@lru_cache(maxsize=8)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, OSError, ImportError):  # Pillow built without FreeType
        return ImageFont.load_default()


Rect = tuple[float, float, float, float]


def label_size(tile_lengths: Sequence[float], cap: int, floor: int) -> int:
    """Label font size: about a third of the median tile (so a label stays over its own tile,
    not its neighbours'), between ``floor`` and ``cap`` (the photo-sized font); ``cap`` with no
    tiles."""
    if not len(tile_lengths):
        return cap
    return min(cap, max(floor, round(float(np.median(tile_lengths)) * 0.3)))


def _overlaps(a: Rect, b: Rect) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


Polygon = np.ndarray  # a tile's four corners (4x2), in the picture's pixels


def rect_meets_polygon(r: Rect, poly: Polygon, margin: float = 0.0) -> bool:
    """Whether the rectangle, grown by ``margin`` on every side, and the convex polygon
    overlap (separating axes: the rectangle's two and each edge normal of the polygon)."""
    x0, y0, x1, y1 = r[0] - margin, r[1] - margin, r[2] + margin, r[3] + margin
    xs, ys = poly[:, 0], poly[:, 1]
    if xs.max() <= x0 or xs.min() >= x1 or ys.max() <= y0 or ys.min() >= y1:
        return False
    corners = np.array([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
    for k in range(len(poly)):
        edge = poly[(k + 1) % len(poly)] - poly[k]
        normal = np.array([-edge[1], edge[0]])
        if not normal.any():
            continue
        p, q = poly @ normal, corners @ normal
        if p.max() <= q.min() or q.max() <= p.min():
            return False
    return True


#: The directions a label is tried in from its tile's centre, in order of preference: above,
#: below, right, left, then the diagonals (unit vectors, y down).
_DIRECTIONS = [(0.0, -1.0), (0.0, 1.0), (1.0, 0.0), (-1.0, 0.0),
               *((x * math.sqrt(0.5), y * math.sqrt(0.5)) for x, y in ((1, -1), (-1, -1), (1, 1), (-1, 1)))]


def _beside(poly: Polygon, size: tuple[float, float], d: tuple[float, float], gap: float) -> float:
    """How far from the polygon's centre, along ``d``, a label of ``size`` centred there first
    clears the polygon by ``gap``. Apart means apart along one of the separating axes (the
    label's two, the polygon's edge normals), and along each the label only moves away: the
    nearest distance any of them gives is the answer."""
    c = poly.mean(axis=0)
    hw, hh = size[0] / 2 + gap, size[1] / 2 + gap
    edges = np.roll(poly, -1, axis=0) - poly
    normals = np.stack([-edges[:, 1], edges[:, 0]], axis=1)
    lengths = np.hypot(normals[:, 0], normals[:, 1])
    axes = [np.array([1.0, 0.0]), np.array([0.0, 1.0]), *(n / m for n, m in zip(normals, lengths, strict=True) if m)]
    best = math.inf
    for n in axes:
        along = d[0] * n[0] + d[1] * n[1]
        if abs(along) < 1e-9:
            continue
        proj, centre, reach = poly @ n, float(c @ n), hw * abs(n[0]) + hh * abs(n[1])
        t = (proj.max() + reach - centre) / along if along > 0 else (proj.min() - reach - centre) / along
        best = min(best, float(t))
    return best + 0.5


def place_labels(owners: Sequence[Polygon], sizes: Sequence[tuple[float, float]], bounds: tuple[int, int],
                 keep_clear: Sequence[Rect] = (), obstacles: Sequence[Polygon] = (), gap: float = 3.0,
                 rings: int = 4) -> list[Rect]:
    """Where each label goes (x0, y0, x1, y1), in priority order (the first placed gets the
    best spot): beside its own tile (``owners[i]``, the polygon it names), never over it. The
    spots tried lie just clear of the tile, above, below, right, left or on a diagonal, then
    ``rings`` steps further out; the first inside ``bounds`` (width, height) that meets no tile
    (the owners and ``obstacles``), no rectangle of ``keep_clear`` and no label placed before
    is taken. Where clutter leaves none free, the spot meeting the fewest other tiles, then the
    fewest labels, is taken: never the label's own tile."""
    w, h = bounds
    every = [*owners, *obstacles]
    hulls = [(float(p[:, 0].min()), float(p[:, 1].min()), float(p[:, 0].max()), float(p[:, 1].max()))
             for p in every]
    placed: list[Rect] = list(keep_clear)
    out: list[Rect] = []
    for own, (tw, th) in zip(owners, sizes, strict=True):
        cx, cy = own.mean(axis=0)
        step = max(th, 4.0) + gap
        spots: list[Rect] = []
        near = [_beside(own, (tw, th), d, gap) for d in _DIRECTIONS]
        for ring in range(rings + 1):
            for d, t0 in zip(_DIRECTIONS, near, strict=True):
                t = t0 + ring * step
                x0, y0 = cx + d[0] * t - tw / 2, cy + d[1] * t - th / 2
                x = min(max(0.0, x0), max(0.0, w - tw))
                y = min(max(0.0, y0), max(0.0, h - th))
                rect = (x, y, x + tw, y + th)
                # moved back into the picture: it must still be off its tile
                if (x, y) == (x0, y0) or not rect_meets_polygon(rect, own, gap / 2):
                    spots.append(rect)
        if not spots:  # a tile filling the picture: nowhere beside it
            spots = [(0.0, 0.0, min(tw, float(w)), min(th, float(h)))]

        def cost(r: Rect, own: Polygon = own) -> tuple[int, int]:
            grown = (r[0] - gap / 2, r[1] - gap / 2, r[2] + gap / 2, r[3] + gap / 2)
            tiles = sum(rect_meets_polygon(r, p, gap / 2) for p, hull in zip(every, hulls, strict=True)
                        if p is not own and _overlaps(grown, hull))
            return tiles, sum(_overlaps(r, q) for q in placed)

        rect = next((r for r in spots if cost(r) == (0, 0)), None) or min(spots, key=cost)
        placed.append(rect)
        out.append(rect)
    return out


def annotate(image: Image.Image, reading: Reading, *, show_confidence: bool = True,
             summary: str | None = None, font_px: int | None = None) -> Image.Image:
    """A copy of ``image`` with every tile of ``reading`` outlined and labelled.

    ``image`` may be the original photo or any resized copy of it: boxes (stored in original
    pixels) are scaled to its size. ``summary``: the banner (default: tiles, pips, penalty).
    ``font_px``: the labels' size in pixels of ``image`` (default: from the tiles' size).
    """
    tiles, kw = _annotated(reading, show_confidence, summary)
    return draw_tiles(image, tiles, reading.image_size, font_px=font_px, **kw)


def annotated_labels(image: Image.Image, reading: Reading, *, show_confidence: bool = True,
                     summary: str | None = None) -> list[PlacedLabel]:
    """The labels :func:`annotate` draws on ``image``, and where."""
    tiles, kw = _annotated(reading, show_confidence, summary)
    return label_layout(image, tiles, reading.image_size, **kw)


def _annotated(reading: Reading, show_confidence: bool,
               summary: str | None) -> tuple[tuple[TileReading, ...], dict[str, Any]]:
    if summary is None:
        summary = f"{sum(t.sure for t in reading.tiles)} tiles  {reading.pips} pips  {reading.headline()}"
        if reading.needs_review:
            summary += "  (check orange tiles)"
        if reading.candidates:
            summary += f"  (+{len(reading.candidates)} grey: not counted)"
        if reading.backs:
            summary += f"  ({len(reading.backs)} face down)"
    return (*reading.candidates, *reading.tiles), {"show_confidence": show_confidence, "summary": summary,
                                                   "backs": reading.backs}


def colour_of(tile: TileReading) -> tuple[int, int, int]:
    """Grey not counted, blue corrected or added by a player, orange to check, else green."""
    if not tile.counted:
        return CANDIDATE_COLOUR
    if tile.source != "read":
        return EDITED_COLOUR
    return REVIEW_COLOUR if tile.needs_review else OK_COLOUR


@dataclass(frozen=True)
class PlacedLabel:
    """A label as drawn: its text and colour, the rectangle it fills (x0, y0, x1, y1) and the
    outline of the tile it names (4x2 corners), in the picture's pixels."""

    text: str
    colour: tuple[int, int, int]
    rect: Rect
    tile: Polygon
    font: Any = field(repr=False, compare=False)
    ink: tuple[float, float] = (0.0, 0.0)  # the text's own offset in its box


@dataclass(frozen=True)
class _Plan:
    shown: list[tuple[int, TileReading]]
    line: int
    labels: list[PlacedLabel]
    banner: Rect | None
    head: Any
    head_ink: tuple[float, float]


def _plan(out_size: tuple[int, int], tiles: Sequence[TileReading], image_size: tuple[int, int],
          numbered: bool, show_confidence: bool, summary: str, values: bool, font_px: int | None,
          skip: Collection[int], backs: Sequence[OrientedBox]) -> _Plan:
    """What :func:`draw_tiles` draws on a picture of ``out_size``: the tiles shown, the line
    width, every label placed, and the banner."""
    w, h = out_size
    ow, oh = image_size
    sx, sy = w / ow, h / oh
    side = max(w, h)
    line = max(2, round(side / 400) if font_px is None else round(font_px / 9))
    big = max(12, round(side / 45))
    shown = [(k, t) for k, t in enumerate(tiles) if t.box is not None and k not in skip]
    lengths = ([t.box.length * (sx + sy) / 2 for _, t in shown if t.counted]
               or [t.box.length * (sx + sy) / 2 for _, t in shown])
    size = label_size(lengths, big, 11) if font_px is None else font_px
    font, small = _font(size), _font(max(10, round(size * 0.8)))
    measure = ImageDraw.Draw(Image.new("L", (1, 1)))
    todo: list[tuple[str, tuple[int, int, int], Any, Polygon]] = []
    for k, tile in shown:
        label = (f"{k + 1}: " if numbered else "") + str(tile.tile)
        if numbered and not values:
            label = f"{k + 1}"
        if tile.question and tile.source == "read" and tile.counted:
            asked = ASK_LABEL if tile.reason in ("", Reason.ZERO_OR_BACK) else f"{tile.a}-{tile.b}?"
            label = (f"{k + 1}: " if numbered else "") + asked if values else label + "?"
        elif not tile.counted:
            label += "?"  # grey, and the summary line says grey is not counted
        elif tile.source == "read":
            if show_confidence and values:
                label += f" {tile.confidence:.2f}"
            if tile.needs_review:
                label += " ?"
        todo.append((label, colour_of(tile), font if tile.counted else small, tile.box.corners() * np.array([sx, sy])))
    for b in backs:  # after the tiles' labels: a back's label gives way to theirs
        todo.append(("face down", BACK_COLOUR, small, b.corners() * np.array([sx, sy])))
    head = _font(big)
    banner, head_ink = None, (0.0, 0.0)
    if summary:
        left, top, right, bottom = measure.textbbox((0, 0), summary, font=head)
        banner, head_ink = (0.0, 0.0, float(right - left + 12), float(bottom - top + 12)), (float(left), float(top))
    # counted tiles first, surest first: they get the best spots beside their own tile
    order = sorted(range(len(todo)), key=lambda i: (True, 1.0) if i >= len(shown) else
                   (not shown[i][1].counted, -shown[i][1].confidence))
    boxes = [measure.textbbox((0, 0), todo[i][0], font=todo[i][2]) for i in order]
    rects = place_labels([todo[i][3] for i in order], [(r - lft + 6, btm - tp + 6) for lft, tp, r, btm in boxes],
                         (w, h), [banner] if banner else [], gap=line + 2)
    labels = [PlacedLabel(todo[i][0], todo[i][1], rect, todo[i][3], todo[i][2], (float(b[0]), float(b[1])))
              for i, rect, b in zip(order, rects, boxes, strict=True)]
    return _Plan(shown, line, labels, banner, head, head_ink)


def label_layout(image: Image.Image, tiles: Sequence[TileReading], image_size: tuple[int, int], *,
                 numbered: bool = False, show_confidence: bool = True, summary: str = "", values: bool = True,
                 font_px: int | None = None, skip: Collection[int] = (),
                 backs: Sequence[OrientedBox] = ()) -> list[PlacedLabel]:
    """The labels :func:`draw_tiles` draws on ``image`` with these arguments, and where."""
    return _plan(image.size, tiles, image_size, numbered, show_confidence, summary, values, font_px, skip,
                 backs).labels


def draw_tiles(image: Image.Image, tiles: Sequence[TileReading], image_size: tuple[int, int], *,
               numbered: bool = False, show_confidence: bool = True, summary: str = "", values: bool = True,
               font_px: int | None = None, skip: Collection[int] = (),
               backs: Sequence[OrientedBox] = ()) -> Image.Image:
    """A copy of ``image`` with ``tiles`` (boxes in pixels of a photo of ``image_size``; tiles
    without a box are skipped) outlined and labelled, in that order: a counted tile's outline
    goes over a candidate's drawn before it. ``numbered``: each label starts with the tile's
    place in ``tiles`` (from 1), as the app's review lists them. ``summary``: a banner (none
    when empty). ``values=False`` (with ``numbered``): the label is the number alone (a list
    beside the picture gives the values). ``font_px``: the labels' size in pixels of ``image``
    (outlines follow it), for a picture shown at a known scale. ``skip``: places in ``tiles``
    not drawn (the numbers of the rest stay). ``backs``: face-down tiles seen, outlined in
    purple under the tiles. Every label goes beside its tile (:func:`place_labels`)."""
    out = image.convert("RGB").copy()
    plan = _plan(out.size, tiles, image_size, numbered, show_confidence, summary, values, font_px, skip, backs)
    w, h = out.size
    ow, oh = image_size
    sx, sy = w / ow, h / oh
    line = plan.line
    draw = ImageDraw.Draw(out)
    for b in backs:
        pts = [(float(x) * sx, float(y) * sy) for x, y in b.corners()]
        draw.line(outside(pts, line), fill=BACK_COLOUR, width=line, joint="curve")
    for _, tile in plan.shown:
        pts = [(float(x) * sx, float(y) * sy) for x, y in tile.box.corners()]
        colour = colour_of(tile)
        flagged = tile.counted and tile.needs_review and tile.source == "read"
        width = line * 2 if flagged else line
        draw.line(outside(pts, width), fill=colour, width=width, joint="curve")
        # A bar across the end holding the low half, the label's first number (corners 0 and 3
        # are end A's, 1 and 2 end B's), a little inside the tile.
        e0, e1 = (pts[0], pts[3]) if tile.a <= tile.b else (pts[1], pts[2])
        mid = ((pts[0][0] + pts[1][0]) / 2, (pts[0][1] + pts[1][1]) / 2)
        inset = 0.18
        bar = [
            (e0[0] + (mid[0] - e0[0]) * inset, e0[1] + (mid[1] - e0[1]) * inset),
            (e1[0] + (mid[0] - e0[0]) * inset, e1[1] + (mid[1] - e0[1]) * inset),
        ]
        draw.line(bar, fill=colour, width=max(1, line // 2 + 1))
    for label in plan.labels:
        _leader(draw, label.rect, label.tile, label.colour, max(1, line // 2))
    for label in plan.labels:
        x0, y0, x1, y1 = label.rect
        draw.rectangle((x0, y0, x1, y1), fill=label.colour)
        draw.text((x0 + 3 - label.ink[0], y0 + 3 - label.ink[1]), label.text, fill=TEXT_COLOUR, font=label.font)
    if plan.banner:
        draw.rectangle(plan.banner, fill=(0, 0, 0))
        draw.text((6 - plan.head_ink[0], 6 - plan.head_ink[1]), summary, fill=TEXT_COLOUR, font=plan.head)
    return out


def outside(corners: Sequence[tuple[float, float]], width: float) -> list[tuple[float, float]]:
    """The closed path of a stroke ``width`` wide that runs round the box ``corners`` (a
    rectangle, corner 0 to 1 along one side) just outside it: a thick outline on a small tile
    (the one a player is asked to look at) never covers its pips."""
    c = np.asarray(corners, dtype=float)
    centre = c.mean(axis=0)
    u, v = c[1] - c[0], c[3] - c[0]
    u, v = u / max(float(np.hypot(*u)), 1e-9), v / max(float(np.hypot(*v)), 1e-9)
    d = width / 2.0
    pts = [(float(x), float(y)) for x, y in
           (p + d * (np.sign((p - centre) @ u) * u + np.sign((p - centre) @ v) * v) for p in c)]
    return [*pts, pts[0]]


def _leader(draw: ImageDraw.ImageDraw, rect: Rect, poly: Polygon, colour: tuple[int, int, int], width: int) -> None:
    """A thin line from a label to its tile's outline where clutter put it further off than
    its own height: which tile it names stays plain."""
    c = np.array([(rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2])
    best, near = math.inf, c
    for k in range(len(poly)):  # the outline's point nearest the label
        a, b = poly[k], poly[(k + 1) % len(poly)]
        t = float(np.clip(np.dot(c - a, b - a) / max(float(np.dot(b - a, b - a)), 1e-9), 0.0, 1.0))
        p = a + t * (b - a)
        if (dist := float(np.hypot(*(c - p)))) < best:
            best, near = dist, p
    x, y = float(np.clip(near[0], rect[0], rect[2])), float(np.clip(near[1], rect[1], rect[3]))
    if math.hypot(x - near[0], y - near[1]) > rect[3] - rect[1]:
        draw.line([(x, y), (float(near[0]), float(near[1]))], fill=colour, width=width)


JOINT_COLOUR = (40, 120, 255)
HUB_COLOUR = (180, 60, 255)
PROBLEM_COLOUR = (230, 30, 30)


def annotate_table(image: Image.Image, table: TableReading, problems: Iterable[int] = (),
                   verdict: str = "", font_px: int | None = None) -> Image.Image:
    """A copy of ``image`` with the layout read from it: every tile as :func:`annotate` draws
    it, a blue line from each tile to the one it is played on, the hub ringed in purple, and
    the tiles at ``problems`` (indices into ``table.tiles``) outlined in red.
    ``verdict`` heads the banner (the rules core's word on the layout); ``font_px``: the labels'
    size in pixels of ``image`` (default: from the tiles' size)."""
    tiles = table.tiles  # the reader's, then those found where the layout needed one
    reading = replace(table.reading, tiles=tiles)
    base = image.convert("RGB").copy()
    w, h = base.size
    ow, oh = reading.image_size
    sx, sy = w / ow, h / oh
    line = max(2, round(max(w, h) / 400))
    draw = ImageDraw.Draw(base)
    for i, p in enumerate(table.parent):
        if p is None:
            continue
        a, b = tiles[i].box, tiles[p].box
        draw.line([(a.cx * sx, a.cy * sy), (b.cx * sx, b.cy * sy)], fill=JOINT_COLOUR, width=line * 2)
    loose = f"  ({len(table.loose)} not in it)" if table.loose else ""
    banner = f"{verdict + '  ' if verdict else ''}hub {tiles[table.hub].tile}, {len(table.layout.plays)} tiles played{loose}"
    out = annotate(base, reading, show_confidence=False, summary=banner, font_px=font_px)
    draw = ImageDraw.Draw(out)

    def outline(i: int, colour: tuple[int, int, int], grow: float, width: int) -> None:
        pts = [(float(x) * sx, float(y) * sy) for x, y in tiles[i].box.padded(grow - 1.0).corners()]
        draw.line([*pts, pts[0]], fill=colour, width=width, joint="curve")

    outline(table.hub, HUB_COLOUR, 1.25, line * 2)
    for i in problems:
        outline(i, PROBLEM_COLOUR, 1.1, line * 2)
    return out
