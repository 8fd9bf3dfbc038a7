"""Reviewing what the tile reader saw in a photo, before the hand is scored.

The review holds the reader's own result, tile by tile: :class:`vision.reading.TileReading`,
counted tiles first, then the possible tiles the reader was too unsure to count (shown, not
counted until the player accepts or corrects them). The player corrects a misread tile, adds a
missed one or removes a false one; each edit is a tile reading marked ``corrected`` or
``added``, so the corrected review is a :class:`vision.reading.Reading` again (:attr:`PhotoReview.reading`).
The reader's review flag (``reader.json``'s ``review_conf``) is the only threshold. Drawing the
outlines is :func:`vision.draw.draw_tiles`; this module only holds and edits.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from companion.rules import RuleSet, Tile
from companion.rules.errors import InputError
from companion.rules.tiles import check_in_set

if TYPE_CHECKING:  # numpy and Pillow load when a photo is read, not when the app starts
    from vision.reading import Reading, TileReading


class ReviewError(InputError):
    """A correction that cannot be applied (no such tile on the photo, tile outside the set)."""


def is_low(item: TileReading) -> bool:
    """Whether the reader asked for a second look at a tile it read (or did not count)."""
    return item.source == "read" and (item.needs_review or not item.counted)


def label(item: TileReading) -> str:
    """How the review lists a tile: its value and how sure the reader was, or who set it."""
    if not item.counted:
        return f"{item.tile}? (not counted)"
    if item.source == "read":
        return f"{item.tile} ({round(item.confidence * 100)}%)"
    return f"{item.tile} ({item.source})"


@dataclass
class PhotoReview:
    rules: RuleSet
    top: int
    items: list[TileReading] = field(default_factory=list)
    image_size: tuple[int, int] = (0, 0)
    #: The photo itself (encoded bytes) so the screen can show it with the outlines.
    image: bytes | None = None
    #: The reader's own penalty (shown to compare; the review's is used).
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
        self.items[i] = self.items[i].corrected(self._check(tile))

    def accept(self, i: int) -> None:
        """Count a candidate as read (the player says it is a tile and the reading is right)."""
        i = self._index(i)
        if self.items[i].counted:
            raise ReviewError(f"tile {i + 1} is already counted")
        self.items[i] = self.items[i].accepted()

    def add(self, tile: Tile | str) -> None:
        from vision.reading import TileReading

        self.items.append(TileReading.added(self._check(tile)))

    def remove(self, i: int) -> None:
        del self.items[self._index(i)]

    # ----------------------------------------------------------- results
    @property
    def tiles(self) -> list[Tile]:
        return [it.tile for it in self.items if it.counted]

    @property
    def candidates(self) -> list[int]:
        return [i for i, it in enumerate(self.items) if not it.counted]

    @property
    def low_confidence(self) -> list[int]:
        return [i for i, it in enumerate(self.items) if is_low(it)]

    @property
    def penalty(self) -> int:
        return self.rules.penalty(self.tiles)

    @property
    def reading(self) -> Reading:
        """The photo's reading as corrected: what the hand is scored from."""
        from vision.reading import Reading

        return Reading.scored([it for it in self.items if it.counted], [it for it in self.items if not it.counted],
                              self.rules, self.image_size, self.warnings)

    def tile_at(self, x: float, y: float) -> int | None:
        """Index of the outlined tile under image point (x, y) (a tap on the photo)."""
        for i in range(len(self.items) - 1, -1, -1):
            box = self.items[i].box
            if box is not None and _inside([tuple(p) for p in box.corners().tolist()], x, y):
                return i
        return None


def _inside(poly: list[tuple[float, float]], x: float, y: float) -> bool:
    inside = False
    n = len(poly)
    for k in range(n):
        (x1, y1), (x2, y2) = poly[k], poly[(k + 1) % n]
        if (y1 > y) != (y2 > y) and x < (x2 - x1) * (y - y1) / (y2 - y1) + x1:
            inside = not inside
    return inside


def from_reading(rules: RuleSet, top: int, reading: Reading, image: bytes | None = None) -> PhotoReview:
    """A review of the reader's result: its tiles, then its candidates."""
    return PhotoReview(rules, top, [*reading.tiles, *reading.candidates], reading.image_size, image,
                       reading.penalty, reading.warnings)


def annotate(review: PhotoReview, max_side: int = 1024) -> bytes:
    """The photo with every tile outlined and numbered (PNG), as :func:`vision.draw.draw_tiles`
    draws it: green read, orange to check, blue edited, grey not counted."""
    from PIL import Image

    from vision.draw import draw_tiles

    if review.image is None:
        raise ReviewError("no photo to show")
    img = Image.open(io.BytesIO(review.image))
    img.load()
    img = img.convert("RGB")
    scale = min(1.0, max_side / max(img.size))
    if scale < 1.0:
        img = img.resize((round(img.width * scale), round(img.height * scale)))
    size = review.image_size if review.image_size[0] else img.size
    out = io.BytesIO()
    draw_tiles(img, review.items, size, numbered=True, show_confidence=False).save(out, format="PNG")
    return out.getvalue()
