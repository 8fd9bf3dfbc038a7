"""Oriented tile boxes and the crops cut from them, shared by data making, training and reading.

One convention everywhere: an oriented box is ``(cx, cy, length, width, angle)`` in image
pixels, ``length >= width`` along the tile's long axis, ``angle`` in radians of that long
axis from the +x axis. A tile crop is resampled so the long axis is vertical: ``size`` wide
and ``2 * size`` high, half A on top, half B below. Training crops and runtime crops go
through the same function, so the half reader sees at run time exactly what it was taught on.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from PIL import Image


@dataclass(frozen=True, slots=True)
class OrientedBox:
    cx: float
    cy: float
    length: float
    width: float
    angle: float  # radians, direction of the long axis

    def __post_init__(self) -> None:
        if not (self.length > 0 and self.width > 0):
            raise ValueError(f"box sides must be positive, got {self.length}x{self.width}")

    @classmethod
    def from_xywhr(cls, cx: float, cy: float, w: float, h: float, r: float) -> OrientedBox:
        """From ultralytics' OBB ``xywhr`` (w along angle r); the long side becomes ``length``."""
        if h > w:
            return cls(float(cx), float(cy), float(h), float(w), float(r) + math.pi / 2)
        return cls(float(cx), float(cy), float(w), float(h), float(r))

    def axes(self) -> tuple[np.ndarray, np.ndarray]:
        u = np.array([math.cos(self.angle), math.sin(self.angle)])
        v = np.array([-math.sin(self.angle), math.cos(self.angle)])
        return u, v

    def corners(self) -> np.ndarray:
        """Four corners (4x2): end-A left, end-B left, end-B right, end-A right."""
        u, v = self.axes()
        c = np.array([self.cx, self.cy])
        hl, hw = u * self.length / 2, v * self.width / 2
        return np.stack([c - hl - hw, c + hl - hw, c + hl + hw, c - hl + hw])

    def scaled(self, s: float) -> OrientedBox:
        return OrientedBox(self.cx * s, self.cy * s, self.length * s, self.width * s, self.angle)

    def padded(self, frac: float) -> OrientedBox:
        return OrientedBox(self.cx, self.cy, self.length * (1 + frac), self.width * (1 + frac), self.angle)

    def aabb(self) -> tuple[float, float, float, float]:
        pts = self.corners()
        return (float(pts[:, 0].min()), float(pts[:, 1].min()), float(pts[:, 0].max()), float(pts[:, 1].max()))

    def to_list(self) -> list[float]:
        return [round(self.cx, 2), round(self.cy, 2), round(self.length, 2), round(self.width, 2),
                round(math.degrees(self.angle) % 360.0, 2)]

    @classmethod
    def from_list(cls, row: Sequence[float]) -> OrientedBox:
        """The box :meth:`to_list` wrote (centre, length, width, angle in degrees)."""
        cx, cy, length, width, degrees = (float(v) for v in row)
        return cls(cx, cy, length, width, math.radians(degrees))


def rectify(image: Image.Image, box: OrientedBox, size: int = 64, pad: float = 0.0) -> Image.Image:
    """Cut the tile under ``box`` out of ``image`` as an upright ``size`` x ``2*size`` crop."""
    b = box.padded(pad) if pad else box
    quad = b.corners()  # upper-left, lower-left, lower-right, upper-right of the output
    data = tuple(float(x) for x in quad.reshape(-1))
    return image.transform((size, 2 * size), Image.Transform.QUAD, data, resample=Image.Resampling.BILINEAR)


def split_halves(crop: Image.Image) -> tuple[Image.Image, Image.Image]:
    """The two halves of an upright tile crop, each square; half B is turned 180 degrees so
    both halves are seen from the tile's divider outwards the same way."""
    w, h = crop.size
    a = crop.crop((0, 0, w, h // 2))
    b = crop.crop((0, h // 2, w, h)).rotate(180)
    return a, b


def _middle_and_halves(image: Image.Image, box: OrientedBox, size: int, mode: str = "L",
                       band: int = 16) -> tuple[np.ndarray, np.ndarray]:
    """Rows of the upright crop (in ``mode``: grey, or RGB with a last axis of 3) where a divider
    would be (within 1/``band`` of the length of the middle) and the halves' inner rows (an
    eighth of the length in from each end and from the middle) that the divider is measured
    against."""
    g = np.asarray(rectify(image, box, size=size, pad=0.0).convert(mode), np.float32)
    h = g.shape[0]
    mid = h // 2
    return g[mid - h // band : mid + h // band + 1], np.concatenate([g[h // 8 : mid - h // 8], g[mid + h // 8 : h - h // 8]])


def divider_contrast(image: Image.Image, box: OrientedBox, size: int = 32) -> float:
    """How much the tile's middle (where the divider is) stands out from its two halves.

    Row means over the central half of the upright crop; the largest relative difference
    within 1/16 of the length of the middle, against the median of the halves' inner parts.
    A painted or engraved divider gives ~0.15-7; a blank back gives ~0.00-0.06.
    """
    zone, halves = _middle_and_halves(image, box, size)
    cols = slice(size // 4, 3 * size // 4)
    ref = float(np.median(halves[:, cols].mean(1)))
    return float(np.max(np.abs(zone[:, cols].mean(1) - ref)) / (ref + 1e-3))


def divider_colour_contrast(image: Image.Image, box: OrientedBox, size: int = 32) -> float:
    """:func:`divider_contrast` in colour: the largest RGB distance, within 1/16 of the length of
    the middle, between the middle's row colour and the median colour of the halves' inner
    parts, over that colour's mean level.

    A divider painted in a colour as light as the face (orange or red on ivory or grey) hardly
    shows in grey, and a 0-0 with one was taken for a back. A grey divider gives about
    sqrt(3) times :func:`divider_contrast`.
    """
    zone, halves = _middle_and_halves(image, box, size, "RGB")
    cols = slice(size // 4, 3 * size // 4)
    row_colour, ref = zone[:, cols].mean(1), np.median(halves[:, cols].mean(1), axis=0)
    return float(np.sqrt(((row_colour - ref[None]) ** 2).sum(1)).max() / (float(ref.mean()) + 1e-3))


def divider_wander(image: Image.Image, box: OrientedBox, size: int = 48) -> float:
    """How far the tile's divider strays from a straight line, as a share of the tile's length.

    Per column of the upright crop (the outer eighths left out): the row, within 1/12 of the
    length of the middle, that differs most in colour from that column's median in the
    halves. A line is fitted through the rows of the columns that stand out (at least half the
    median column's difference); the RMS distance from it. A divider is a straight line (under
    perspective too), so its rows lie on one: ~0.002-0.007. Letters, a logo or a stripe printed
    across a back's middle, which pass the contrast tests, wander: their strongest rows jump
    from stroke to stroke. Fewer than three such columns is 1.0 (nothing to fit).
    """
    zone, halves = _middle_and_halves(image, box, size, "RGB", band=12)
    cols = slice(size // 8, size - size // 8)
    ref = np.median(halves[:, cols], axis=0)
    diff = np.sqrt(((zone[:, cols] - ref[None]) ** 2).sum(-1)) / (float(ref.mean()) + 1e-3)
    peak, row = diff.max(0), diff.argmax(0).astype(np.float64)
    typical = float(np.median(peak))
    strong = peak >= 0.5 * typical if typical > 0 else peak > 0
    x, y = np.flatnonzero(strong).astype(np.float64), row[strong]
    if len(x) < 3:
        return 1.0
    a = np.stack([x, np.ones_like(x)], 1)
    coef = np.linalg.lstsq(a, y, rcond=None)[0]
    return float(np.sqrt(np.mean((a @ coef - y) ** 2)) / (2 * size))  # the crop is 2 * size long


def divider_span(image: Image.Image, box: OrientedBox, size: int = 32) -> float:
    """How much of the tile's width its divider crosses.

    Per column of the upright crop (the outer eighths left out): the largest relative
    difference within 1/16 of the length of the middle, against that column's median in the
    halves; the 25th percentile over columns. A divider is a line from edge to edge, so it
    stands out in nearly every column; a printed back's logo or text, which
    :func:`divider_contrast` can take for one, stands out in a few.
    """
    zone, halves = _middle_and_halves(image, box, size)
    cols = slice(size // 8, size - size // 8)
    ref = np.median(halves[:, cols], axis=0)
    return float(np.percentile(np.abs(zone[:, cols] - ref[None]).max(0) / (ref + 1e-3), 25))


Point = tuple[float, float]


def _clip(subject: list[Point], a: Point, b: Point) -> list[Point]:
    """Sutherland-Hodgman: the part of ``subject`` left of the edge a->b (counter-clockwise)."""
    out: list[Point] = []
    if not subject:
        return out
    ax, ay = a
    ex, ey = b[0] - ax, b[1] - ay
    prev = subject[-1]
    sp = ex * (prev[1] - ay) - ey * (prev[0] - ax)
    for cur in subject:
        sc = ex * (cur[1] - ay) - ey * (cur[0] - ax)
        if sc >= 0:
            if sp < 0:
                t = sp / (sp - sc)
                out.append((prev[0] + (cur[0] - prev[0]) * t, prev[1] + (cur[1] - prev[1]) * t))
            out.append(cur)
        elif sp >= 0:
            t = sp / (sp - sc)
            out.append((prev[0] + (cur[0] - prev[0]) * t, prev[1] + (cur[1] - prev[1]) * t))
        prev, sp = cur, sc
    return out


def _points(poly: Iterable[Sequence[float]]) -> list[Point]:
    return [(float(p[0]), float(p[1])) for p in poly]


def _area(poly: Iterable[Sequence[float]]) -> float:
    """Signed area (shoelace; counter-clockwise in image axes is positive)."""
    pts = _points(poly)
    if len(pts) < 3:
        return 0.0
    return 0.5 * sum(x0 * y1 - y0 * x1 for (x0, y0), (x1, y1) in zip(pts, pts[1:] + pts[:1], strict=True))


def _ccw(poly: Iterable[Sequence[float]]) -> list[Point]:
    p = _points(poly)
    return p[::-1] if _area(p) < 0 else p


def _overlap_area(p: list[Point], q: list[Point]) -> float:
    """Area of the intersection of two convex polygons, both counter-clockwise."""
    inter = list(p)
    for i in range(len(q)):
        inter = _clip(inter, q[i], q[(i + 1) % len(q)])
        if not inter:
            return 0.0
    return abs(_area(inter))


def polygon_iou(p: np.ndarray, q: np.ndarray) -> float:
    """Exact IoU of two convex quadrilaterals (4x2 corners, any winding)."""
    p, q = _ccw(p), _ccw(q)
    ai = _overlap_area(p, q)
    union = abs(_area(p)) + abs(_area(q)) - ai
    return ai / union if union > 0 else 0.0


def covered_share(p: np.ndarray, q: np.ndarray) -> float:
    """Share of convex polygon ``p``'s area that lies inside convex polygon ``q`` (any winding)."""
    p, q = _ccw(p), _ccw(q)
    whole = abs(_area(p))
    return _overlap_area(p, q) / whole if whole > 0 else 0.0


def overlap_share(p: np.ndarray, q: np.ndarray) -> float:
    """Share of the smaller of two convex polygons that the other covers (any winding): 1 when
    one lies inside the other, 0 when they do not meet."""
    p, q = _ccw(p), _ccw(q)
    smaller = min(abs(_area(p)), abs(_area(q)))
    return _overlap_area(p, q) / smaller if smaller > 0 else 0.0
