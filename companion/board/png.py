"""PNG of a board or a domino face, drawn with Pillow (drawn at twice the size and scaled down,
for smooth edges)."""

from __future__ import annotations

import io
import itertools
import math
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from .scene import Dot, Label, Poly, Scene, Segment

_SUPER = 2
_DASH_ON, _DASH_OFF = 0.18, 0.12


def _rgba(colour: str, opacity: float = 1.0) -> tuple[int, int, int, int]:
    c = colour.lstrip("#")
    return int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16), round(255 * opacity)


@lru_cache(maxsize=32)
def _font(px: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=max(6, px))


def _dashes(points: list[tuple[float, float]]) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """Dash pieces along a closed or open path given in board units."""
    out = []
    on, left = True, _DASH_ON
    for (ax, ay), (bx, by) in itertools.pairwise(points):
        length = math.hypot(bx - ax, by - ay)
        pos = 0.0
        while pos < length:
            step = min(left, length - pos)
            if on:
                t0, t1 = pos / length, (pos + step) / length
                out.append(((ax + (bx - ax) * t0, ay + (by - ay) * t0), (ax + (bx - ax) * t1, ay + (by - ay) * t1)))
            pos += step
            left -= step
            if left <= 1e-9:
                on = not on
                left = _DASH_ON if on else _DASH_OFF
    return out


def to_image(scene: Scene, scale: float = 40.0) -> Image.Image:
    """The scene as an RGB image, ``scale`` pixels per board unit."""
    k = scale * _SUPER
    x0, y0 = scene.box[0], scene.box[1]
    size = (max(1, round(scene.width * k)), max(1, round(scene.height * k)))
    img = Image.new("RGB", size, _rgba(scene.background)[:3])
    draw = ImageDraw.Draw(img, "RGBA")

    def px(p: tuple[float, float]) -> tuple[float, float]:
        return (p[0] - x0) * k, (p[1] - y0) * k

    for s in scene.shapes:
        if isinstance(s, Poly):
            pts = [px(p) for p in s.points]
            if s.fill:
                draw.polygon(pts, fill=_rgba(s.fill, s.opacity))
            if s.stroke:
                w = max(1, round(s.width * k))
                if s.dash:
                    for a, b in _dashes([*s.points, s.points[0]]):
                        draw.line([px(a), px(b)], fill=_rgba(s.stroke), width=w)
                else:
                    draw.line([*pts, pts[0]], fill=_rgba(s.stroke), width=w, joint="curve")
        elif isinstance(s, Dot):
            cx, cy = px((s.x, s.y))
            r = s.r * k
            draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=_rgba(s.fill))
        elif isinstance(s, Segment):
            w = max(1, round(s.width * k))
            pieces = _dashes([(s.x0, s.y0), (s.x1, s.y1)]) if s.dash else [((s.x0, s.y0), (s.x1, s.y1))]
            for a, b in pieces:
                draw.line([px(a), px(b)], fill=_rgba(s.stroke), width=w)
        elif isinstance(s, Label):
            size = round(s.size * k)
            draw.text(px((s.x, s.y)), s.text, font=_font(size), fill=_rgba(s.fill),
                      anchor="ms" if s.anchor == "middle" else "ls",
                      stroke_width=size // 40 if s.bold else 0, stroke_fill=_rgba(s.fill))
    out_size = (max(1, round(scene.width * scale)), max(1, round(scene.height * scale)))
    return img.resize(out_size, Image.Resampling.LANCZOS)


def to_png(scene: Scene, scale: float = 40.0) -> bytes:
    """PNG bytes; a drawing of a few flat colours loses nothing in a 256-colour palette and the
    file is a third of the size."""
    buf = io.BytesIO()
    to_image(scene, scale).quantize(256, dither=Image.Dither.NONE).save(buf, format="PNG", optimize=True)
    return buf.getvalue()
