"""Reviewing what the tile reader saw in a photo, before the hand is scored.

Holds the read tiles with their confidences and outlines (image pixels); the player corrects a
misread tile, adds a missed one or removes a false one. Low-confidence reads are flagged so the
screen can highlight them; possible tiles the reader was too unsure to count are kept as
candidates, shown but not counted until the player accepts or corrects them. Drawing the outlines is a separate function (``annotate``) that
only paints what this object holds.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass, field, replace
from typing import Any

from companion.rules import RuleSet, Tile
from companion.rules.errors import InputError
from companion.rules.tiles import check_in_set

#: Reads under this confidence are highlighted for a second look.
LOW_CONFIDENCE = 0.6

Point = tuple[float, float]


class ReviewError(InputError):
    """A correction that cannot be applied (no such tile on the photo, tile outside the set)."""


@dataclass(frozen=True, slots=True)
class ReadTile:
    tile: Tile | None  # None: the reader found a tile but could not read its halves
    confidence: float
    corners: tuple[Point, ...] = ()  # outline in image pixels; empty for a tile added by hand
    source: str = "read"  # "read", "corrected", "added" or "candidate" (seen, not counted)
    flagged: bool = False  # the reader itself asked for a second look

    @property
    def counted(self) -> bool:
        return self.source != "candidate" and self.tile is not None

    @property
    def low(self) -> bool:
        return self.source in ("read", "candidate") and (
            self.flagged or self.tile is None or self.confidence < LOW_CONFIDENCE)

    def label(self) -> str:
        name = str(self.tile) if self.tile is not None else "?"
        if self.source == "read":
            return f"{name} ({round(self.confidence * 100)}%)"
        if self.source == "candidate":
            return f"{name}? (not counted)"
        return f"{name} ({self.source})"


@dataclass
class PhotoReview:
    rules: RuleSet
    top: int
    items: list[ReadTile] = field(default_factory=list)
    image_size: tuple[int, int] = (0, 0)
    #: The photo itself (encoded bytes) so the screen can show it with the outlines.
    image: bytes | None = None
    #: The reader's own penalty, when it gave one (shown to compare; the review's is used).
    reader_penalty: int | None = None
    #: What the reader warned about (no tiles found, a tile read twice, face-down tiles...).
    warnings: tuple[str, ...] = ()

    # ------------------------------------------------------------- edits
    def _check(self, tile: Tile | str) -> Tile:
        t = Tile.parse(tile)
        try:
            return check_in_set(t, self.top)
        except InputError as exc:
            raise ReviewError(str(exc)) from None

    def _index(self, i: int) -> int:
        if not 0 <= i < len(self.items):
            raise ReviewError(f"there is no tile {i + 1} on this photo")
        return i

    def correct(self, i: int, tile: Tile | str) -> None:
        i = self._index(i)
        self.items[i] = replace(self.items[i], tile=self._check(tile), source="corrected")

    def accept(self, i: int) -> None:
        """Count a candidate as read (the player says it is a tile and the reading is right)."""
        i = self._index(i)
        it = self.items[i]
        if it.source != "candidate":
            raise ReviewError(f"tile {i + 1} is already counted")
        self.items[i] = replace(it, source="read", flagged=True)

    def add(self, tile: Tile | str) -> None:
        self.items.append(ReadTile(self._check(tile), 1.0, (), "added"))

    def remove(self, i: int) -> None:
        del self.items[self._index(i)]

    # ----------------------------------------------------------- results
    @property
    def tiles(self) -> list[Tile]:
        return [it.tile for it in self.items if it.counted and it.tile is not None]

    @property
    def unread(self) -> list[int]:
        return [i for i, it in enumerate(self.items) if it.tile is None and it.source != "candidate"]

    @property
    def candidates(self) -> list[int]:
        return [i for i, it in enumerate(self.items) if it.source == "candidate"]

    @property
    def low_confidence(self) -> list[int]:
        return [i for i, it in enumerate(self.items) if it.low]

    @property
    def penalty(self) -> int:
        return self.rules.penalty(self.tiles)

    def problems(self) -> list[str]:
        return [f"tile {i + 1} could not be read: correct or remove it" for i in self.unread]

    def tile_at(self, x: float, y: float) -> int | None:
        """Index of the outlined tile under image point (x, y) (a tap on the photo)."""
        for i in range(len(self.items) - 1, -1, -1):
            poly = self.items[i].corners
            if len(poly) >= 3 and _inside(poly, x, y):
                return i
        return None


def _inside(poly: tuple[Point, ...], x: float, y: float) -> bool:
    inside = False
    n = len(poly)
    for k in range(n):
        (x1, y1), (x2, y2) = poly[k], poly[(k + 1) % n]
        if (y1 > y) != (y2 > y) and x < (x2 - x1) * (y - y1) / (y2 - y1) + x1:
            inside = not inside
    return inside


def from_reading(rules: RuleSet, top: int, reading: Any, image: bytes | None = None) -> PhotoReview:
    """Build a review from the reader's result (adapter over ``vision.reader.Reading``).

    A ``Reading`` has ``tiles`` of ``TileReading`` (``tile``, ``confidence``, oriented ``box``,
    ``needs_review``), ``image_size`` and ``penalty``. Plain dicts with ``tiles``,
    ``confidences`` and ``boxes`` rows (``cx, cy, length, width, angle``) work too.
    """
    raw_tiles = list(_get(reading, "tiles", []))
    items: list[ReadTile] = []
    if raw_tiles and hasattr(raw_tiles[0], "box"):
        corners = _corners_of({"boxes": [t.box for t in raw_tiles]}, len(raw_tiles))
        for t, c in zip(raw_tiles, corners, strict=True):
            items.append(ReadTile(t.tile, float(t.confidence), c,
                                  flagged=bool(getattr(t, "needs_review", False))))
        maybe = list(_get(reading, "candidates", ()))
        for t, c in zip(maybe, _corners_of({"boxes": [t.box for t in maybe]}, len(maybe)), strict=True):
            items.append(ReadTile(t.tile, float(t.confidence), c, "candidate", True))
    else:
        confs = list(_get(reading, "confidences", [1.0] * len(raw_tiles)))
        corners = _corners_of(reading, len(raw_tiles))
        for i, (t, c) in enumerate(zip(raw_tiles, confs, strict=False)):
            items.append(ReadTile(Tile.parse(t) if t is not None else None, float(c), corners[i]))
    size = _get(reading, "image_size", None) or (0, 0)
    pen = _get(reading, "penalty", None)
    return PhotoReview(rules, top, items, (int(size[0]), int(size[1])), image,
                       int(pen) if isinstance(pen, int | float) else None,
                       tuple(str(w) for w in _get(reading, "warnings", ())))


def _get(obj: Any, name: str, default: Any) -> Any:
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def _corners_of(reading: Any, n: int) -> list[tuple[Point, ...]]:
    raw = _get(reading, "corners", None)
    if raw is None:
        boxes = _get(reading, "boxes", None)
        if boxes is not None:
            from vision.detections import obb_corners  # numpy only; no torch

            rows = [[b.cx, b.cy, b.length, b.width, b.angle] if hasattr(b, "cx") else list(b)
                    for b in boxes]
            raw = obb_corners(rows).tolist() if rows else []
    raw = list(raw or [])
    out = [tuple((float(p[0]), float(p[1])) for p in c) for c in raw[:n]]
    return out + [()] * (n - len(out))


def annotate(review: PhotoReview, max_side: int = 1024) -> bytes:
    """The photo with every tile outlined and numbered (PNG): green read, orange low, blue edited,
    grey not counted."""
    from PIL import Image, ImageDraw, ImageFont

    if review.image is None:
        raise ReviewError("no photo to show")
    img = Image.open(io.BytesIO(review.image))
    img.load()
    img = img.convert("RGB")
    scale = min(1.0, max_side / max(img.size))
    if scale < 1.0:
        img = img.resize((round(img.width * scale), round(img.height * scale)))
    sx = img.width / review.image_size[0] if review.image_size[0] else scale
    sy = img.height / review.image_size[1] if review.image_size[1] else scale
    from vision.draw import label_size, place_labels

    draw = ImageDraw.Draw(img)
    width = max(2, round(max(img.size) / 250))
    shown = [(i, it, [(x * sx, y * sy) for x, y in it.corners]) for i, it in enumerate(review.items) if it.corners]
    lengths = [max(math.dist(pts[0], pts[1]), math.dist(pts[1], pts[2])) for _, _, pts in shown]
    font = ImageFont.load_default(size=label_size(lengths, max(16, round(max(img.size) / 28)), 12))
    labels = []
    for i, it, pts in shown:
        colour = ((150, 150, 150) if it.source == "candidate" else (255, 140, 0) if it.low
                  else (30, 110, 255) if it.source != "read" else (0, 200, 80))
        draw.line([*pts, pts[0]], fill=colour, width=width)
        text = f"{i + 1}: {it.tile if it.tile is not None else '?'}"
        cx = sum(p[0] for p in pts) / len(pts)
        cy = sum(p[1] for p in pts) / len(pts)
        labels.append((text, colour, cx, cy, draw.textbbox((0, 0), text, font=font)))
    rects = place_labels([(cx, cy) for _, _, cx, cy, _ in labels],
                         [(b[2] - b[0] + 6, b[3] - b[1] + 6) for *_, b in labels], img.size)
    for (text, colour, _, _, b), (x0, y0, x1, y1) in zip(labels, rects, strict=True):
        draw.rectangle((x0, y0, x1, y1), fill=(0, 0, 0))
        draw.text((x0 + 3 - b[0], y0 + 3 - b[1]), text, fill=colour, font=font)
    out = io.BytesIO()
    img.save(out, format="PNG")
    return out.getvalue()
