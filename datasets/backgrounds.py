"""Procedural table surfaces and clutter for rendered scenes: wood, felt, cloth, paper, laminate.

Everything is drawn from the ``rng`` passed in, so a scene is a pure function of its seed.
Textures are made at reduced resolution with numpy and scaled up: the tiles, not the table,
need the fine detail.
"""

from __future__ import annotations

import math

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

KINDS = ("wood", "planks", "felt", "cloth", "print", "paper", "laminate")


def _smooth_noise(rng: np.random.Generator, w: int, h: int, cells: int) -> np.ndarray:
    """Low-frequency noise in [0, 1], ``cells`` blobs across the longer side."""
    cw = max(2, int(cells * w / max(w, h)) + 1)
    ch = max(2, int(cells * h / max(w, h)) + 1)
    small = rng.random((ch, cw)).astype(np.float32)
    img = Image.fromarray((small * 255).astype(np.uint8), "L").resize((w, h), Image.Resampling.BICUBIC)
    return np.asarray(img, dtype=np.float32) / 255.0


def _rand_colour(rng: np.random.Generator, lo: int = 0, hi: int = 255) -> np.ndarray:
    return rng.integers(lo, hi + 1, 3).astype(np.float32)


def _felt(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    palette = [(40, 110, 60), (30, 90, 50), (25, 60, 110), (120, 30, 40), (70, 70, 75), (60, 40, 90),
               (20, 20, 25), (150, 120, 80)]
    base = np.array(palette[rng.integers(len(palette))], np.float32) * rng.uniform(0.7, 1.3)
    n = _smooth_noise(rng, w, h, int(rng.integers(3, 8)))[..., None]
    fine = rng.normal(0, rng.uniform(3, 10), (h, w, 1)).astype(np.float32)
    return base * (0.8 + 0.4 * n) + fine


def _wood(rng: np.random.Generator, w: int, h: int, planks: bool = False) -> np.ndarray:
    dark = np.array([rng.uniform(60, 120), rng.uniform(35, 75), rng.uniform(15, 40)], np.float32)
    light = dark + np.array([rng.uniform(50, 110), rng.uniform(40, 80), rng.uniform(20, 50)], np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    warp = _smooth_noise(rng, w, h, int(rng.integers(2, 6))) * rng.uniform(10, 40)
    freq = rng.uniform(0.15, 0.6)
    grain = 0.5 + 0.5 * np.sin((yy + warp) * freq + np.sin(xx * rng.uniform(0.005, 0.03)) * 3)
    grain = grain ** rng.uniform(1, 4)
    streak = rng.normal(0, 1, (h, 1)).astype(np.float32) * 0.15
    t = np.clip(grain * 0.7 + streak + 0.3 * _smooth_noise(rng, w, h, 6), 0, 1)[..., None]
    img = dark * t + light * (1 - t)
    if planks:
        pitch = rng.uniform(0.12, 0.35) * h
        gap = max(2.0, pitch * rng.uniform(0.03, 0.12))
        phase = rng.uniform(0, pitch)
        in_gap = ((yy + phase) % pitch) < gap
        img[in_gap] = img[in_gap] * rng.uniform(0.1, 0.4)
    if rng.random() < 0.5:
        img = img.transpose(1, 0, 2)
        img = np.ascontiguousarray(np.asarray(Image.fromarray(np.clip(img, 0, 255).astype(np.uint8)).resize((w, h))),
                                   dtype=np.float32)
    return img


def _cloth(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    c1, c2 = _rand_colour(rng, 20, 240), _rand_colour(rng, 20, 240)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ang = rng.uniform(0, math.pi)
    p = xx * math.cos(ang) + yy * math.sin(ang)
    q = -xx * math.sin(ang) + yy * math.cos(ang)
    period = rng.uniform(6, 40)
    kind = rng.integers(3)
    if kind == 0:  # stripes
        m = ((p // period) % 2).astype(np.float32)
    elif kind == 1:  # checks
        m = (((p // period) + (q // period)) % 2).astype(np.float32)
    else:  # plaid
        m = 0.5 * (np.sin(p / period * math.pi) > 0.3) + 0.5 * (np.sin(q / period * math.pi) > 0.3)
    weave = (np.sin(xx * 2.2) * np.sin(yy * 2.2) * rng.uniform(0, 8)).astype(np.float32)
    img = c1 * m[..., None] + c2 * (1 - m[..., None]) + weave[..., None]
    return img * (0.85 + 0.3 * _smooth_noise(rng, w, h, 4))[..., None]


def _print(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """Patterned cloth or wrapping with round motifs, which look a little like pips."""
    base = _rand_colour(rng, 30, 240)
    img = Image.new("RGB", (w, h), tuple(int(x) for x in base))
    d = ImageDraw.Draw(img)
    n = int(rng.integers(20, 120))
    for _ in range(n):
        x, y = rng.uniform(0, w), rng.uniform(0, h)
        r = rng.uniform(2, 0.06 * max(w, h))
        col = tuple(int(c) for c in _rand_colour(rng))
        if rng.random() < 0.6:
            d.ellipse((x - r, y - r, x + r, y + r), fill=col)
        else:
            d.polygon([(x + r * math.cos(a), y + r * math.sin(a))
                       for a in np.linspace(0, 2 * math.pi, int(rng.integers(3, 7)), endpoint=False)], fill=col)
    return np.asarray(img, np.float32)


def _paper(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    if rng.random() < 0.5:
        base = rng.uniform(200, 250) * np.ones(3, np.float32) - _rand_colour(rng, 0, 25)
    else:  # coloured card, like the pink and green sheets in the webcam photos
        base = _rand_colour(rng, 30, 250)
    n = _smooth_noise(rng, w, h, 3)[..., None]
    return base * (0.9 + 0.15 * n) + rng.normal(0, 2, (h, w, 1)).astype(np.float32)


def _laminate(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    base = rng.uniform(120, 240) * np.ones(3, np.float32) + rng.normal(0, 8, 3).astype(np.float32)
    yy = np.linspace(0, 1, h, dtype=np.float32)[:, None, None]
    return base * (0.8 + 0.3 * yy) + rng.normal(0, 1.5, (h, w, 1)).astype(np.float32)


def _marble(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """Stone or marble counter tops: pale, cloudy, with dark thin veins that cross tiles' edges
    and look like dividers or pip rows to a detector trained on plain tables."""
    base = rng.uniform(170, 240) * np.ones(3, np.float32) + rng.normal(0, 12, 3).astype(np.float32)
    cloud = _smooth_noise(rng, w, h, int(rng.integers(3, 9)))[..., None]
    img = Image.fromarray(np.clip(base * (0.85 + 0.25 * cloud), 0, 255).astype(np.uint8), "RGB")
    d = ImageDraw.Draw(img)
    vein = tuple(int(c) for c in np.clip(base * rng.uniform(0.25, 0.7), 0, 255))
    for _ in range(int(rng.integers(3, 12))):
        x, y = rng.uniform(0, w), rng.uniform(0, h)
        a = rng.uniform(0, 2 * math.pi)
        pts = [(x, y)]
        for _k in range(int(rng.integers(4, 14))):
            a += rng.normal(0, 0.5)
            step = rng.uniform(0.03, 0.12) * max(w, h)
            x, y = x + step * math.cos(a), y + step * math.sin(a)
            pts.append((x, y))
        d.line(pts, fill=vein, width=int(rng.integers(1, 4)))
    img = img.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 1.2)))
    return np.asarray(img, np.float32) + rng.normal(0, 2, (h, w, 1)).astype(np.float32)


def make_background(rng: np.random.Generator, w: int, h: int, kind: str | None = None) -> Image.Image:
    """A ``w`` x ``h`` RGB table surface of a random (or given) kind (``marble`` only when asked:
    it came later, and ``KINDS`` fixes the draw for earlier seeds)."""
    kind = kind or KINDS[int(rng.integers(len(KINDS)))]
    sw, sh = max(8, w // 2), max(8, h // 2)
    maker = {
        "wood": lambda: _wood(rng, sw, sh),
        "planks": lambda: _wood(rng, sw, sh, planks=True),
        "felt": lambda: _felt(rng, sw, sh),
        "cloth": lambda: _cloth(rng, sw, sh),
        "print": lambda: _print(rng, sw, sh),
        "paper": lambda: _paper(rng, sw, sh),
        "laminate": lambda: _laminate(rng, sw, sh),
        "marble": lambda: _marble(rng, sw, sh),
    }[kind]
    arr = np.clip(maker(), 0, 255).astype(np.uint8)
    img = Image.fromarray(arr, "RGB").resize((w, h), Image.Resampling.BILINEAR)
    if rng.random() < 0.4:
        img = _sheet(rng, img)
    return img


def _sheet(rng: np.random.Generator, img: Image.Image) -> Image.Image:
    """A sheet of paper or a placemat lying on the table under part of the scene."""
    w, h = img.size
    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    sw, sh = rng.uniform(0.3, 1.0) * w, rng.uniform(0.3, 1.0) * h
    a = rng.uniform(0, math.pi)
    ca, sa = math.cos(a), math.sin(a)
    pts = [(cx + x * ca - y * sa, cy + x * sa + y * ca) for x, y in
           ((-sw / 2, -sh / 2), (sw / 2, -sh / 2), (sw / 2, sh / 2), (-sw / 2, sh / 2))]
    ImageDraw.Draw(img).polygon(pts, fill=tuple(int(c) for c in _rand_colour(rng, 30, 250)))
    return img


def draw_clutter(rng: np.random.Generator, img: Image.Image, n: int, scale: float) -> list[np.ndarray]:
    """Draw ``n`` everyday objects (pens, cards, coins, phones, dice) on ``img``; returns their
    outlines so the tiles can be placed around them. ``scale`` is about one tile length."""
    d = ImageDraw.Draw(img)
    w, h = img.size
    outlines: list[np.ndarray] = []
    for _ in range(n):
        kind = rng.integers(5)
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        a = rng.uniform(0, math.pi)
        col = tuple(int(c) for c in _rand_colour(rng))
        if kind == 0:  # pen or marker
            ln, wd = scale * rng.uniform(1.5, 3.5), scale * rng.uniform(0.12, 0.25)
        elif kind == 1:  # card or phone
            ln, wd = scale * rng.uniform(1.2, 2.5), scale * rng.uniform(0.7, 1.4)
        elif kind == 2:  # die: a small square with dots, a classic false positive for pips
            ln = wd = scale * rng.uniform(0.3, 0.6)
        else:  # coin / cup / bottle top
            r = scale * rng.uniform(0.2, 0.8)
            d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=col, outline=tuple(max(0, c - 60) for c in col))
            outlines.append(np.array([[cx - r, cy - r], [cx + r, cy - r], [cx + r, cy + r], [cx - r, cy + r]]))
            continue
        ca, sa = math.cos(a), math.sin(a)
        pts = np.array([(cx + x * ca - y * sa, cy + x * sa + y * ca) for x, y in
                        ((-ln / 2, -wd / 2), (ln / 2, -wd / 2), (ln / 2, wd / 2), (-ln / 2, wd / 2))])
        d.polygon([tuple(p) for p in pts], fill=col)
        if kind == 2:
            dot = tuple(int(c) for c in _rand_colour(rng))
            rr = ln * 0.09
            for _k in range(int(rng.integers(1, 7))):
                px, py = rng.uniform(-0.3, 0.3, 2) * ln
                qx, qy = cx + px * ca - py * sa, cy + px * sa + py * ca
                d.ellipse((qx - rr, qy - rr, qx + rr, qy + rr), fill=dot)
        outlines.append(pts)
    return outlines


def soften(img: Image.Image, rng: np.random.Generator) -> Image.Image:
    """Slight defocus of the table, so it is not sharper than the tiles."""
    return img.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 1.5)))
