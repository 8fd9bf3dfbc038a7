"""Drawing a reading on its photo. Computing happens in :mod:`vision.reader`; this only paints.

Tiles read confidently get a green outline; tiles flagged for review get a thicker orange
outline and a "?" so a player sees at once which ones to check. Half A's end of each box is
marked with a short bar across it, so the label "3-4" can be matched to the tile's ends.
"""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from .detections import obb_corners
from .reader import Reading

OK_COLOUR = (40, 200, 70)
REVIEW_COLOUR = (255, 140, 0)
CANDIDATE_COLOUR = (150, 150, 150)  # a possible tile the reader did not count
TEXT_COLOUR = (255, 255, 255)


@lru_cache(maxsize=8)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, OSError, ImportError):  # Pillow built without FreeType
        return ImageFont.load_default()


def annotate(image: Image.Image, reading: Reading, *, show_confidence: bool = True) -> Image.Image:
    """A copy of ``image`` with every tile of ``reading`` outlined and labelled.

    ``image`` may be the original photo or any resized copy of it: boxes (stored in original
    pixels) are scaled to its size.
    """
    out = image.convert("RGB").copy()
    w, h = out.size
    ow, oh = reading.image_size
    sx, sy = w / ow, h / oh
    side = max(w, h)
    line = max(2, round(side / 400))
    font = _font(max(12, round(side / 45)))
    draw = ImageDraw.Draw(out)
    # candidates first, so a counted tile's outline is drawn over an overlapping candidate's
    for tile, counted in [(t, False) for t in reading.candidates] + [(t, True) for t in reading.tiles]:
        b = tile.box
        corners = obb_corners([[b.cx, b.cy, b.length, b.width, b.angle]])[0]
        pts = [(float(x) * sx, float(y) * sy) for x, y in corners]
        colour = CANDIDATE_COLOUR if not counted else REVIEW_COLOUR if tile.needs_review else OK_COLOUR
        width = line * 2 if counted and tile.needs_review else line
        draw.line([*pts, pts[0]], fill=colour, width=width, joint="curve")
        # Bar across end A (corners 0 and 3 are end A's two corners).
        a0, a3 = pts[0], pts[3]
        mid = ((pts[0][0] + pts[1][0]) / 2, (pts[0][1] + pts[1][1]) / 2)
        inset = 0.18
        bar = [
            (a0[0] + (mid[0] - a0[0]) * inset, a0[1] + (mid[1] - a0[1]) * inset),
            (a3[0] + (mid[0] - a0[0]) * inset, a3[1] + (mid[1] - a0[1]) * inset),
        ]
        draw.line(bar, fill=colour, width=max(1, line // 2 + 1))
        label = f"{tile.a}-{tile.b}"
        if show_confidence:
            label += f" {tile.confidence:.2f}"
        if not counted:
            label += " not counted"
        elif tile.needs_review:
            label += " ?"
        cx, cy = b.cx * sx, b.cy * sy
        left, top, right, bottom = draw.textbbox((0, 0), label, font=font)
        tw, th = right - left, bottom - top
        x = min(max(0, cx - tw / 2), max(0, w - tw - 4))
        y = min(max(0, cy - th / 2), max(0, h - th - 4))
        draw.rectangle((x - 2, y - 2, x + tw + 4, y + th + 4), fill=colour)
        draw.text((x + 1 - left, y + 1 - top), label, fill=TEXT_COLOUR, font=font)
    summary = f"{len(reading.tiles)} tiles  {reading.pips} pips  penalty {reading.penalty}"
    if reading.needs_review:
        summary += "  (check orange tiles)"
    if reading.candidates:
        summary += f"  (+{len(reading.candidates)} grey: not counted)"
    left, top, right, bottom = draw.textbbox((0, 0), summary, font=font)
    draw.rectangle((0, 0, right - left + 12, bottom - top + 12), fill=(0, 0, 0))
    draw.text((6 - left, 6 - top), summary, fill=TEXT_COLOUR, font=font)
    return out
