"""Printed matter for rendered scenes: lettered tile backs, box lids, score sheets and cards.

Real photos showed the detector taking print for tiles: a row of face-down tiles with a brand
name across their backs was read as 0-0 and 0-2, and the "DOMINOES" on a set's box lid (its O's
drawn as pip faces) as a 6-6. None of it carries a label, so the renders teach it as background.

Text comes from Pillow's bundled font (``ImageFont.load_default(size)``), the same on every
machine with a Pillow wheel, so a seed renders the same everywhere.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

# Words seen on sets, boxes and score pads, and stand-ins for brand names.
WORDS = (
    "DOMINOES", "DOMINO", "DOUBLE SIX", "DOUBLE 9", "DOUBLE 12", "DOUBLE TWELVE", "CHICKEN FOOT",
    "MEXICAN TRAIN", "GAME NIGHT", "CLASSIC", "DELUXE", "PROFESSIONAL", "28 PCS", "55 TILES",
    "91 TILES", "SCORE", "ROUND", "TOTAL", "PLAYER", "RO", "GO", "OK", "CF", "BB", "XO", "MADE IN",
)
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


@lru_cache(maxsize=64)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=max(6, size))


def word(rng: np.random.Generator, max_chars: int = 14) -> str:
    """A printed word: from WORDS, or a few random letters and digits."""
    if rng.random() < 0.6:
        choices = [w for w in WORDS if len(w) <= max_chars] or ["RO"]
        return choices[int(rng.integers(len(choices)))]
    n = int(rng.integers(1, max(2, min(max_chars, 6)) + 1))
    return "".join(_LETTERS[int(i)] for i in rng.integers(len(_LETTERS), size=n))


def text_mask(text: str, height: float, bold: int = 0) -> Image.Image:
    """``text`` as an 8-bit coverage mask whose capital letters are about ``height`` px tall."""
    font = _font(round(height * 1.35))
    x0, y0, x1, y1 = font.getbbox(text, stroke_width=bold)
    mask = Image.new("L", (max(1, x1 - x0 + 2), max(1, y1 - y0 + 2)), 0)
    ImageDraw.Draw(mask).text((1 - x0, 1 - y0), text, fill=255, font=font, stroke_width=bold, stroke_fill=255)
    return mask


def paste_mask(canvas: Image.Image, mask: Image.Image, ink: tuple[int, int, int], cx: float, cy: float,
               angle: float, stretch: float = 1.0, max_w: float | None = None, max_h: float | None = None) -> None:
    """Ink ``canvas`` through ``mask`` centred at (cx, cy), turned by ``angle`` (radians, the
    tiles' convention: x along, y down) and squashed by ``stretch`` in y as the tiles are;
    shrunk first to fit ``max_w`` x ``max_h``."""
    w, h = mask.size
    k = min(1.0, (max_w / w) if max_w else 1.0, (max_h / h) if max_h else 1.0)
    if k < 1.0:
        mask = mask.resize((max(1, round(w * k)), max(1, round(h * k))), Image.Resampling.LANCZOS)
    mask = mask.rotate(-math.degrees(angle), resample=Image.Resampling.BILINEAR, expand=True)
    if abs(stretch - 1.0) > 1e-3:
        mask = mask.resize((mask.width, max(1, round(mask.height * stretch))), Image.Resampling.BILINEAR)
    x, y = round(cx - mask.width / 2), round(cy - mask.height / 2)
    canvas.paste(Image.new("RGB", mask.size, ink), (x, y), mask)


def _ink(rng: np.random.Generator) -> tuple[int, int, int]:
    if rng.random() < 0.6:
        return (int(rng.uniform(5, 70)),) * 3
    return tuple(int(c) for c in rng.integers(0, 256, 3))


def _pip_disc(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float, n: int, ink: tuple[int, int, int],
              face: tuple[int, int, int]) -> None:
    """A round die or domino face printed in place of a letter O (as on many box lids)."""
    d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=ink)
    d.ellipse((cx - r * 0.8, cy - r * 0.8, cx + r * 0.8, cy + r * 0.8), fill=face)
    spots = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
             4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
             6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}[n]
    s, pr = r * 0.36, r * 0.14
    for u, v in spots:
        d.ellipse((cx + u * s - pr, cy + v * s - pr, cx + u * s + pr, cy + v * s + pr), fill=ink)


def _sheet(rng: np.random.Generator, scale: float) -> Image.Image:
    """One printed item, upright, as RGBA (its alpha is its outline)."""
    kind = int(rng.integers(3))
    if kind == 0:  # a set's box lid: a big word, maybe pip-face O's, a smaller line under it
        w, h = scale * rng.uniform(2.5, 5.0), scale * rng.uniform(1.0, 2.2)
        face = tuple(int(c) for c in (rng.uniform(120, 230, 3) * rng.uniform(0.6, 1.0, 3)))
    elif kind == 1:  # a score sheet: ruled paper with names and columns of numbers
        w, h = scale * rng.uniform(1.8, 3.5), scale * rng.uniform(2.4, 4.5)
        face = tuple(int(c) for c in rng.uniform(225, 255, 3))
    else:  # a card or leaflet of any colour with a few lines of print
        w, h = scale * rng.uniform(1.2, 2.8), scale * rng.uniform(0.8, 2.0)
        face = tuple(int(c) for c in rng.integers(0, 256, 3))
    w, h = max(8, int(w)), max(8, int(h))
    img = Image.new("RGBA", (w, h), (*face, 255))
    d = ImageDraw.Draw(img)
    ink = _ink(rng)
    if kind == 0:
        if rng.random() < 0.6:
            bw = max(1, int(min(w, h) * 0.03))
            d.rectangle((bw, bw, w - 1 - bw, h - 1 - bw), outline=ink, width=bw)
        text = word(rng)
        th = h * rng.uniform(0.18, 0.38)
        mask = text_mask(text, th, bold=int(rng.integers(0, 3)))
        k = min(1.0, w * 0.85 / mask.width)
        mask = mask.resize((max(1, int(mask.width * k)), max(1, int(mask.height * k))), Image.Resampling.LANCZOS)
        tx, ty = (w - mask.width) // 2, int(h * rng.uniform(0.2, 0.45) - mask.height / 2)
        img.paste(Image.new("RGBA", mask.size, (*ink, 255)), (tx, ty), mask)
        if "O" in text and rng.random() < 0.6:
            r = mask.height * 0.45
            one = text_mask("O", th).width * k
            for k_, ch in enumerate(text):
                if ch == "O":  # the glyph's box centre, from the mask of the text before it
                    pre = text_mask(text[:k_], th).width * k if k_ else 0
                    _pip_disc(d, tx + pre + one / 2, ty + mask.height / 2, r, int(rng.integers(1, 7)), ink, face)
        small = word(rng)
        sm = text_mask(small, th * rng.uniform(0.3, 0.5))
        if sm.width < w * 0.9:
            img.paste(Image.new("RGBA", sm.size, (*ink, 255)), ((w - sm.width) // 2, int(h * 0.72)), sm)
    else:
        rows = int(rng.integers(3, 10)) if kind == 1 else int(rng.integers(1, 5))
        lh = h / (rows + 1)
        for r_ in range(rows):
            y = lh * (r_ + 0.6)
            if kind == 1:
                d.line((0, y + lh * 0.45, w, y + lh * 0.45), fill=(150, 170, 210), width=max(1, int(lh * 0.04)))
            x = w * rng.uniform(0.03, 0.1)
            while x < w * 0.85:
                text = str(int(rng.integers(0, 200))) if rng.random() < 0.6 else word(rng, 6)
                m = text_mask(text, lh * rng.uniform(0.35, 0.6), bold=int(rng.integers(0, 2)))
                if x + m.width > w:
                    break
                m = m.rotate(rng.uniform(-6, 6), resample=Image.Resampling.BILINEAR, expand=True)
                img.paste(Image.new("RGBA", m.size, (*ink, 255)), (int(x), int(y)), m)
                x += m.width + lh * rng.uniform(0.3, 1.5)
    return img


def draw_printed_matter(rng: np.random.Generator, canvas: Image.Image, n: int, scale: float) -> list[np.ndarray]:
    """Lay ``n`` printed items on ``canvas`` (``scale``: about one tile length); returns their
    outlines so the tiles are placed around them."""
    outlines: list[np.ndarray] = []
    for _ in range(n):
        sheet = _sheet(rng, scale)
        angle = rng.uniform(-math.pi, math.pi) if rng.random() < 0.6 else rng.normal(0, 0.1)
        cx, cy = rng.uniform(0, canvas.width), rng.uniform(0, canvas.height)
        turned = sheet.rotate(-math.degrees(angle), resample=Image.Resampling.BILINEAR, expand=True)
        canvas.paste(turned, (round(cx - turned.width / 2), round(cy - turned.height / 2)), turned)
        ca, sa = math.cos(angle), math.sin(angle)
        hw, hh = sheet.width / 2, sheet.height / 2
        outlines.append(np.array([(cx + x * ca - y * sa, cy + x * sa + y * ca)
                                  for x, y in ((-hw, -hh), (hw, -hh), (hw, hh), (-hw, hh))]))
    return outlines
