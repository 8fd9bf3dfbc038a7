"""The true tiles an evaluation did not read exactly: one entry each, and a contact sheet of them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from chickenfoot.vision.geometry import OrientedBox, polygon_iou
from chickenfoot.vision.reader import TileReading

#: Why a true tile was not read exactly: a counted read with a wrong value; a read left
#: uncounted as too unsure, as print rather than pips, or as overlapping surer tiles
#: (``TileReading.uncounted``); no read.
LOST_REASONS = ("misread", "unsure", "not pips", "overlap", "not found")


def nearest_read(quad: np.ndarray, reads: list[TileReading], corners: np.ndarray
                  ) -> tuple[TileReading | None, tuple[int, int] | None]:
    """Of ``reads`` (counted or not, with their ``corners``), the one that overlaps a true
    tile's corners ``quad`` most, if any does."""
    if not reads:
        return None, None
    ious = [polygon_iou(quad, c) for c in corners]
    best = int(np.argmax(ious))
    return (reads[best], (reads[best].a, reads[best].b)) if ious[best] > 0 else (None, None)


def lost_entry(photo: str, truth: tuple[int, int], box: OrientedBox, why: str,
               read: TileReading | None, value: tuple[int, int] | None) -> dict[str, Any]:
    """One true tile not read exactly: the photo, the tile (half A first) and its box, why it
    was lost (:data:`LOST_REASONS`), and the read on it or nearest it (its value turned to the
    true tile's direction for a match; for "not found", whatever read overlaps it most)."""
    return {"photo": photo, "tile": f"{truth[0]}-{truth[1]}", "box": box.to_list(), "length": round(box.length, 1),
            "reason": why, "read": None if value is None else f"{value[0]}-{value[1]}",
            "read_box": None if read is None else read.box.to_list(),
            "confidence": None if read is None else round(float(read.confidence), 3)}


def lost_montage(entries: Sequence[dict], *, cell: int = 240, columns: int = 6) -> Image.Image:
    """A contact sheet of tiles an evaluation did not read exactly (``lost_entry``
    rows): around each, its photo with the true box in green and the read on or nearest it in
    red, captioned with the true tile, the reason and the read. Photos are opened from the
    entries' paths; one that cannot be opened leaves its cell grey."""
    rows = max(1, -(-len(entries) // columns))
    sheet = Image.new("RGB", (cell * min(max(len(entries), 1), columns), cell * rows), (60, 60, 60))
    font = ImageFont.load_default(size=12)
    opened: dict[str, Image.Image | None] = {}
    for k, e in enumerate(entries):
        if e["photo"] not in opened:
            try:
                with Image.open(e["photo"]) as im:
                    opened[e["photo"]] = im.convert("RGB")
            except OSError:
                opened[e["photo"]] = None
        photo = opened[e["photo"]]
        if photo is None:
            continue
        view = photo.copy()
        draw = ImageDraw.Draw(view)
        truth = OrientedBox.from_list(e["box"])
        width = max(1, round(truth.length / 60))
        draw.polygon([tuple(p) for p in truth.corners()], outline=(0, 255, 0), width=width)
        if e.get("read_box"):
            draw.polygon([tuple(p) for p in OrientedBox.from_list(e["read_box"]).corners()], outline=(255, 0, 0), width=width)
        half = max(truth.length * 1.6, 40.0)
        crop = view.crop((round(truth.cx - half), round(truth.cy - half), round(truth.cx + half), round(truth.cy + half)))
        crop = crop.resize((cell, cell), Image.Resampling.BILINEAR)
        read = "" if e.get("read") is None else f" read {e['read']}" + (
            "" if e.get("confidence") is None else f" {e['confidence']:.2f}")
        ImageDraw.Draw(crop).text((3, 3), f"{e['tile']} {e['reason']}{read}", fill=(255, 255, 0), font=font)
        sheet.paste(crop, ((k % columns) * cell, (k // columns) * cell))
    return sheet
