"""Drawing a reading on its photo, for the command line and the app's review alike. Computing
happens in :mod:`chickenfoot.vision.reader`; this only paints.

Tiles read confidently get a green outline; tiles flagged for review get a thicker orange
outline and a "?" so a player sees at once which ones to check; possible tiles not counted are
grey, with a smaller label; tiles a player corrected or added are blue; a tile the reader asks
about ("Is this the 0-0 or a face-down tile?") is orange and labelled "0-0 or back?"; face-down
tiles seen are outlined in purple and labelled "face down". Half A's end of each box is marked with a short bar across it, so
the label "3-4" can be matched to the tile's ends. Labels are sized to the tiles, not the
photo, and moved off each other (:func:`place_labels`): a webcam frame of small tiles stays
readable.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import replace
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from .geometry import OrientedBox
from .reading import Reading, TileReading
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


def place_labels(anchors: Sequence[tuple[float, float]], sizes: Sequence[tuple[float, float]],
                 bounds: tuple[int, int], keep_clear: Sequence[Rect] = ()) -> list[Rect]:
    """Where each label goes (x0, y0, x1, y1), in priority order: centred on its anchor if that
    overlaps no label placed before it (nor ``keep_clear``), else the nearest free spot one or
    two label heights or half-widths away, else on its anchor after all. Always inside
    ``bounds`` (width, height) where the label fits."""
    w, h = bounds
    placed: list[Rect] = list(keep_clear)
    out: list[Rect] = []
    for (ax, ay), (tw, th) in zip(anchors, sizes, strict=True):
        dx, dy = tw / 2 + 4, th + 4
        steps = [(0, 0), (0, -1), (0, 1), (-1, 0), (1, 0), (-1, -1), (1, -1), (-1, 1), (1, 1),
                 (0, -2), (0, 2), (-2, 0), (2, 0)]
        spots = []
        for i, j in steps:
            x = min(max(0.0, ax + i * dx - tw / 2), max(0.0, w - tw))
            y = min(max(0.0, ay + j * dy - th / 2), max(0.0, h - th))
            spots.append((x, y, x + tw, y + th))
        rect = next((r for r in spots if not any(_overlaps(r, p) for p in placed)), spots[0])
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
    if summary is None:
        summary = f"{sum(t.sure for t in reading.tiles)} tiles  {reading.pips} pips  {reading.headline()}"
        if reading.needs_review:
            summary += "  (check orange tiles)"
        if reading.candidates:
            summary += f"  (+{len(reading.candidates)} grey: not counted)"
        if reading.backs:
            summary += f"  ({len(reading.backs)} face down)"
    return draw_tiles(image, (*reading.candidates, *reading.tiles), reading.image_size,
                      show_confidence=show_confidence, summary=summary, backs=reading.backs, font_px=font_px)


def colour_of(tile: TileReading) -> tuple[int, int, int]:
    """Grey not counted, blue corrected or added by a player, orange to check, else green."""
    if not tile.counted:
        return CANDIDATE_COLOUR
    if tile.source != "read":
        return EDITED_COLOUR
    return REVIEW_COLOUR if tile.needs_review else OK_COLOUR


def draw_tiles(image: Image.Image, tiles: Sequence[TileReading], image_size: tuple[int, int], *,
               numbered: bool = False, show_confidence: bool = True, summary: str = "",
               values: bool = True, font_px: int | None = None, skip: Collection[int] = (),
               backs: Sequence[OrientedBox] = ()) -> Image.Image:
    """A copy of ``image`` with ``tiles`` (boxes in pixels of a photo of ``image_size``; tiles
    without a box are skipped) outlined and labelled, in that order: a counted tile's outline
    goes over a candidate's drawn before it. ``numbered``: each label starts with the tile's
    place in ``tiles`` (from 1), as the app's review lists them. ``summary``: a banner (none
    when empty). ``values=False`` (with ``numbered``): the label is the number alone, just above
    its tile (a list beside the picture gives the values). ``font_px``: the labels' size in pixels of ``image``
    (outlines follow it), for a picture shown at a known scale. ``skip``: places in ``tiles``
    not drawn (the numbers of the rest stay). ``backs``: face-down tiles seen, outlined in
    purple under the tiles."""
    out = image.convert("RGB").copy()
    w, h = out.size
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
    draw = ImageDraw.Draw(out)
    for b in backs:
        pts = [(float(x) * sx, float(y) * sy) for x, y in b.corners()]
        draw.line([*pts, pts[0]], fill=BACK_COLOUR, width=line, joint="curve")
    labels: list[tuple[str, tuple[int, int, int], ImageFont.FreeTypeFont | ImageFont.ImageFont, float, float]] = []
    for k, tile in shown:
        b = tile.box
        pts = [(float(x) * sx, float(y) * sy) for x, y in b.corners()]
        colour = colour_of(tile)
        flagged = tile.counted and tile.needs_review and tile.source == "read"
        draw.line([*pts, pts[0]], fill=colour, width=line * 2 if flagged else line, joint="curve")
        # Bar across end A (corners 0 and 3 are end A's two corners).
        a0, a3 = pts[0], pts[3]
        mid = ((pts[0][0] + pts[1][0]) / 2, (pts[0][1] + pts[1][1]) / 2)
        inset = 0.18
        bar = [
            (a0[0] + (mid[0] - a0[0]) * inset, a0[1] + (mid[1] - a0[1]) * inset),
            (a3[0] + (mid[0] - a0[0]) * inset, a3[1] + (mid[1] - a0[1]) * inset),
        ]
        draw.line(bar, fill=colour, width=max(1, line // 2 + 1))
        label = (f"{k + 1}: " if numbered else "") + f"{tile.a}-{tile.b}"
        if numbered and not values:
            label = f"{k + 1}"
        if tile.question and tile.source == "read" and tile.counted:
            label = (f"{k + 1}: " if numbered else "") + ASK_LABEL if values else label + "?"
        elif not tile.counted:
            label += "?"  # grey, and the summary line says grey is not counted
        elif tile.source == "read":
            if show_confidence and values:
                label += f" {tile.confidence:.2f}"
            if tile.needs_review:
                label += " ?"
        ax, ay = b.cx * sx, b.cy * sy
        if numbered and not values:  # a number alone goes just above its tile, off its pips
            ay = min(p[1] for p in pts) - size * 0.75
        labels.append((label, colour, font if tile.counted else small, ax, ay))
    for b in backs:  # after the tiles' labels: a back's label gives way to theirs
        labels.append(("face down", BACK_COLOUR, small, b.cx * sx, b.cy * sy))
    head = _font(big)
    banner: list[Rect] = []
    if summary:
        left, top, right, bottom = draw.textbbox((0, 0), summary, font=head)
        banner = [(0.0, 0.0, float(right - left + 12), float(bottom - top + 12))]
    # counted tiles first, surest first: they get the spot on their own tile
    order = sorted(range(len(labels)), key=lambda i: (True, 1.0) if i >= len(shown) else
                   (not shown[i][1].counted, -shown[i][1].confidence))
    boxes = [draw.textbbox((0, 0), labels[i][0], font=labels[i][2]) for i in order]
    rects = place_labels([(labels[i][3], labels[i][4]) for i in order],
                         [(r - lft + 6, btm - tp + 6) for lft, tp, r, btm in boxes], (w, h), banner)
    for i, (x0, y0, x1, y1), (lft, tp, _, _) in zip(order, rects, boxes, strict=True):
        text, colour, f, _, _ = labels[i]
        draw.rectangle((x0, y0, x1, y1), fill=colour)
        draw.text((x0 + 3 - lft, y0 + 3 - tp), text, fill=TEXT_COLOUR, font=f)
    if summary:
        draw.rectangle(banner[0], fill=(0, 0, 0))
        draw.text((6 - left, 6 - top), summary, fill=TEXT_COLOUR, font=head)
    return out


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
