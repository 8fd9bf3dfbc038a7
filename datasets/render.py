"""Render labelled photos of domino tiles on a table, deterministic from a seed.

``python -m chickenfoot.vision.lab.datasets.render --out DIR --count N --seed S`` writes an ultralytics OBB dataset:
``DIR/images/{train,val}/*.jpg``, ``DIR/labels/{train,val}/*.txt`` (``0 x1 y1 ... x4 y4``,
normalised), ``DIR/data.yaml`` and, per image, ``DIR/tiles/{train,val}/*.json`` with each
tile's values and oriented box (see ``TileLabel.to_json``).

How a scene is made: a table texture and clutter are drawn on a canvas that stands for the
table plane (taller than the photo when the camera is tilted, so tiles come out
foreshortened); tiles are laid out as a scatter, a Chicken Foot hub with spokes and toes,
lines with doubles crosswise, or hands in rows; shadows, tile sides, bevels, divider and pips
are drawn at twice the output resolution; the plane is warped into the photo by a homography
(nearer rows larger); then light, colour cast, glare, blur, noise, grayscale and JPEG follow.
Every random choice comes from ``numpy.random.default_rng([seed, index])``, so image ``i`` of
a dataset is the same whatever else is rendered.
"""

from __future__ import annotations

import argparse
import copy
import io
import json
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

from chickenfoot.vision.geometry import OrientedBox
from chickenfoot.vision.lab.datasets.backgrounds import draw_clutter, make_background
from chickenfoot.vision.lab.datasets.pips import MAX_VALUE, layout, pip_radius
from chickenfoot.vision.lab.datasets.printed import draw_printed_matter, paste_mask, text_mask, word

SS = 2  # supersampling factor for drawing

# Saturated pip colours seen on real sets; each set draws its own value->colour map from these.
_PIP_PALETTE = [
    (200, 30, 40), (230, 120, 20), (235, 190, 30), (40, 150, 60), (30, 90, 200), (120, 40, 160),
    (150, 90, 50), (20, 20, 20), (40, 170, 170), (220, 90, 160), (100, 100, 100), (90, 140, 30),
    (20, 40, 110), (170, 40, 90), (160, 160, 170), (60, 200, 120),
]


@dataclass(frozen=True)
class TileStyle:
    """How one domino set looks. Colours are per value and drawn per set, so colour carries no value."""

    body: tuple[int, int, int]
    side: tuple[int, int, int]
    back: tuple[int, int, int]
    pip_colours: tuple[tuple[int, int, int], ...]
    divider: tuple[int, int, int]
    aspect: float
    corner: float
    bevel: float
    thickness: float
    pip_scale: float
    pip_margin: float
    variant: int
    drilled: bool
    spinner: bool
    divider_len: float
    divider_w: float
    # printed backs (hard cases): 0 plain, 1 logo with a row of dots, 2 dot grid, 3 stripes,
    # 4 emblem ring, 5 lettering (printed matter); see _draw_back
    back_print: int = 0
    back_ink: tuple[int, int, int] = (40, 40, 40)
    # the divider cut into the face (a dark slot with a lit edge) instead of a painted line
    groove: bool = False


# Value-ordered pip colours of coloured double-9 to double-18 sets, as common retail sets colour
# them (each value keeps its colour within a set, the sets disagree): index = pip count.
_SET_PALETTES = (
    # light blue, green, red, brown, dark blue, yellow, purple, teal, black, orange, pink, grey ...
    ((0, 0, 0), (60, 160, 220), (40, 150, 60), (200, 30, 40), (120, 70, 40), (30, 60, 170), (230, 190, 30),
     (130, 60, 170), (30, 140, 130), (25, 25, 25), (235, 120, 20), (220, 90, 160), (110, 110, 110),
     (90, 140, 30), (20, 40, 110), (170, 40, 90), (160, 160, 170), (60, 200, 120), (150, 90, 50)),
    ((0, 0, 0), (30, 90, 200), (200, 30, 40), (40, 150, 60), (235, 190, 30), (120, 40, 160), (230, 120, 20),
     (20, 20, 20), (40, 170, 170), (150, 90, 50), (220, 90, 160), (90, 140, 30), (20, 40, 110),
     (200, 30, 40), (30, 90, 200), (40, 150, 60), (235, 190, 30), (120, 40, 160), (230, 120, 20)),
    ((0, 0, 0), (150, 90, 50), (30, 90, 200), (40, 150, 60), (200, 30, 40), (120, 40, 160), (25, 25, 25),
     (230, 120, 20), (40, 170, 170), (170, 40, 90), (60, 160, 220), (235, 190, 30), (90, 140, 30),
     (150, 90, 50), (30, 90, 200), (40, 150, 60), (200, 30, 40), (120, 40, 160), (25, 25, 25)),
)


def face_style(rng: np.random.Generator, style: TileStyle) -> TileStyle:
    """``style`` with the divider drawn as a painted line, a groove or a line with a spinner
    pin (a third each), and, on half the light-bodied sets, pips coloured by value from one of
    :data:`_SET_PALETTES` (``SceneConfig.faces``)."""
    kind = int(rng.integers(3))
    style = replace(style, groove=kind == 1, spinner=kind == 2)
    if sum(style.body) > 330 and rng.random() < 0.5:
        pal = _SET_PALETTES[int(rng.integers(len(_SET_PALETTES)))]
        pips = tuple(tuple(int(np.clip(c + rng.normal(0, 10), 0, 255)) for c in col) for col in pal)
        style = replace(style, pip_colours=pips)
    return style


def make_style(rng: np.random.Generator) -> TileStyle:
    r = rng.random()
    dark = False
    if r < 0.35:  # ivory
        body = (int(rng.uniform(225, 250)), int(rng.uniform(215, 240)), int(rng.uniform(180, 215)))
    elif r < 0.62:  # white
        v = rng.uniform(225, 252)
        body = (int(v), int(v), int(v - rng.uniform(0, 8)))
    elif r < 0.76:  # black
        v = rng.uniform(10, 45)
        body, dark = (int(v), int(v), int(v)), True
    elif r < 0.88:  # green, like the double-six set in the robot photos
        body, dark = (int(rng.uniform(10, 40)), int(rng.uniform(100, 150)), int(rng.uniform(50, 90))), True
    else:  # other coloured bodies (blue, red, wood, cream)
        body = tuple(int(c) for c in _PIP_PALETTE[int(rng.integers(len(_PIP_PALETTE)))])
        dark = sum(body) < 330
    pr = rng.random()
    if dark:
        if pr < 0.6:
            w = int(rng.uniform(215, 255))
            pips = [(w, w, w)] * (MAX_VALUE + 1)
        elif pr < 0.8:
            pips = [(int(rng.uniform(180, 230)), int(rng.uniform(150, 190)), int(rng.uniform(40, 90)))] * (MAX_VALUE + 1)
        else:
            pips = _coloured_pips(rng)
        divider = pips[0] if rng.random() < 0.6 else (200, 170, 80)
    else:
        if pr < 0.4:
            c = (int(rng.uniform(0, 40)),) * 3 if rng.random() < 0.8 else _PIP_PALETTE[int(rng.integers(len(_PIP_PALETTE)))]
            pips = [tuple(int(x) for x in c)] * (MAX_VALUE + 1)
        else:
            pips = _coloured_pips(rng)
        divider = (int(rng.uniform(0, 50)),) * 3 if rng.random() < 0.8 else (int(rng.uniform(150, 200)), 130, 60)
    side_k = rng.uniform(0.6, 0.9)
    back = body if rng.random() < 0.7 else tuple(int(c) for c in rng.integers(0, 256, 3))
    return TileStyle(
        body=body, side=tuple(int(c * side_k) for c in body), back=back,
        pip_colours=tuple(pips), divider=divider,
        aspect=float(rng.uniform(0.46, 0.54)), corner=float(rng.uniform(0.04, 0.2)),
        bevel=float(rng.uniform(0.02, 0.08)), thickness=float(rng.uniform(0.14, 0.24)),
        pip_scale=float(rng.uniform(0.8, 1.2)), pip_margin=float(rng.uniform(0.56, 0.7)),
        variant=int(rng.integers(8)), drilled=bool(rng.random() < 0.5), spinner=bool(rng.random() < 0.3),
        divider_len=float(rng.uniform(0.6, 0.92)), divider_w=float(rng.uniform(0.012, 0.03)),
    )


def _coloured_pips(rng: np.random.Generator) -> list[tuple[int, int, int]]:
    # Each set maps values to colours in its own way, and colours repeat, so the value has to be counted.
    idx = rng.integers(0, len(_PIP_PALETTE), MAX_VALUE + 1)
    return [tuple(int(np.clip(c + rng.normal(0, 12), 0, 255)) for c in _PIP_PALETTE[i]) for i in idx]


#: The halves of a face-down tile's label (``SceneConfig.back_labels``).
BACK = -1


@dataclass
class Placement:
    cx: float
    cy: float
    angle: float
    a: int = 0
    b: int = 0
    face_up: bool = True
    valued: bool = False  # values already set by a chain (matching its neighbour)
    stretch: float = 1.0  # >1: standing on edge, face towards the camera (not foreshortened)
    quad: np.ndarray = field(default_factory=lambda: np.zeros((4, 2)))


@dataclass(frozen=True)
class TileLabel:
    """A face-up tile in the output photo: half ``a`` at corners 0 and 3 (see OrientedBox.corners);
    a face-down one has both halves :data:`BACK` (only with ``SceneConfig.back_labels``)."""

    a: int
    b: int
    quad: tuple[tuple[float, float], ...]  # 4 corners in output pixels, OrientedBox.corners() order

    @property
    def tile(self) -> str:
        lo, hi = sorted((self.a, self.b))
        return f"{lo}-{hi}"

    def box(self) -> OrientedBox:
        q = np.asarray(self.quad, dtype=np.float64)
        end_a = (q[0] + q[3]) / 2
        end_b = (q[1] + q[2]) / 2
        d = end_b - end_a
        length = float(np.hypot(*d))
        width = float((np.hypot(*(q[3] - q[0])) + np.hypot(*(q[2] - q[1]))) / 2)
        c = q.mean(axis=0)
        return OrientedBox(float(c[0]), float(c[1]), max(length, 1e-3), max(width, 1e-3), math.atan2(d[1], d[0]))

    def to_json(self) -> dict[str, object]:
        b = self.box()
        return {"tile": self.tile, "a": self.a, "b": self.b,
                "box": [round(b.cx, 2), round(b.cy, 2), round(b.length, 2), round(b.width, 2), round(b.angle, 5)],
                "quad": [[round(x, 2), round(y, 2)] for x, y in self.quad]}


@dataclass
class SceneConfig:
    width: int = 480
    height: int = 360
    tile_frac: tuple[float, float] = (0.03, 0.3)  # tile length / longer image side, log-uniform
    tile_px: tuple[float, float] | None = None  # or tile length in output pixels
    max_value: int = 12
    uniform_values: bool = False  # halves uniform over 0..max_value (for classifier crops)
    perspective: bool = True  # camera tilt and keystone; off gives exact rectangles (tests)
    photometric: bool = True  # light, glare, blur, noise, grayscale, mirroring
    # Hard cases seen in real photos: a boneyard of face-down tiles with printed backs (logos,
    # dot rows), stone counter tops with veins, hands at the edge, close-ups of a few tiles that
    # fill the frame. Off, a seed renders exactly as before this option existed (its draws come
    # from their own stream).
    hard_cases: bool = False
    # Least RGB distance between a pip colour and the tile's face. Sets whose body comes from
    # the pip palette could get pips in the body's own colour (blue on blue, yellow on yellow):
    # labelled values nobody can see, which teach guessing and cap any reader's score. Real
    # sets keep well clear (grey on white is ~135, yellow on ivory ~170). 0 renders exactly
    # as before this option existed (the shipped models' data); the fix-up draws come from
    # their own stream.
    pip_contrast: float = 0.0
    # Printed matter (chickenfoot.vision.lab.datasets.printed): lettered tile backs, box lids, score sheets and cards on
    # the table, and runs of face-down tiles inside the layout, next to face-up ones. Off, a seed
    # renders exactly as before this option existed (its draws come from their own stream).
    printed: bool = False
    # Least luma difference (Rec. 601, 0-255) between a pip or the divider and the face, in
    # photos that go grayscale. pip_contrast is a distance in colour: a yellow or grey pip on
    # ivory is plain in colour and vanishes once the photo is grey (a 0-2 read as 0-0 by anyone).
    # A scene that goes grey with such a pip is drawn again from the same draws with that colour
    # swapped, so every colour photo, and every grey one that needed nothing, renders exactly as
    # with 0 (which is what the shipped models' data used).
    gray_contrast: float = 0.0
    # Every scene's tiles come from one double-N set (max_value is raised to N). 0: a set is
    # drawn per scene (double-6 to double-18, as far as max_value allows; double-15 and 18 are
    # rare), which leaves too few 13-18 halves to judge a reader of big sets by.
    set_top: int = 0
    # Share of face-up tiles given a blank half (a third of them 0-0), on whatever face and pip
    # colours the set has: real 0-0s taken for backs, and blank halves beside coloured pips read
    # as "not pips", were what readers got wrong. 0 renders exactly as before this option existed
    # (its draws come from a stream spawned from the scene's own).
    blanks: float = 0.0
    # Also label the flat face-down tiles, as TileLabel(BACK, BACK, quad), for half crops of
    # backs (class "x"); off, only face-up tiles are labelled.
    back_labels: bool = False
    # Plain faces: every divider style (painted line, groove, spinner pin; see face_style),
    # value-coloured pips of a retail palette on half the light sets, and one double-9 or
    # double-12 set per photo half the time. Off renders exactly as before this option existed
    # (its draws come from a stream spawned from the scene's own).
    faces: bool = False

    def __post_init__(self) -> None:
        self.max_value = max(self.max_value, self.set_top)


#: What ``python -m chickenfoot.vision.lab.datasets.render`` uses unless told otherwise: every pip readable.
DEFAULT_PIP_CONTRAST = 100.0
#: ... in grey photos too (about what grey pips on white keep; see ``SceneConfig.gray_contrast``).
DEFAULT_GRAY_CONTRAST = 60.0
#: Share of photos that go grayscale (``_photometric``).
GRAY_SHARE = 0.12


def luma(c: tuple[int, int, int]) -> float:
    """Rec. 601 luma, as PIL's ``convert("L")`` computes it."""
    return 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]


def _swap_close_pips(style: TileStyle, close: Callable[[tuple[int, int, int]], bool], stream: tuple[int, ...]
                     ) -> tuple[tuple[tuple[int, int, int], ...], list[tuple[int, int, int]],
                                dict[tuple[int, int, int], tuple[int, int, int]], np.random.Generator]:
    """``style``'s pip colours with each one ``close`` to the face swapped for a palette colour
    that is not (one colour per value: equal values stay equal), the colours far enough, the
    swaps made, and the stream they were drawn from (seeded by ``stream`` and the style itself,
    so the scene's own draws are untouched)."""
    far = [c for c in [*_PIP_PALETTE, (20, 20, 20), (245, 245, 245)] if not close(c)]
    rng = np.random.default_rng([*stream, *style.body, *style.pip_colours[1]])
    swap: dict[tuple[int, int, int], tuple[int, int, int]] = {}
    # one draw per close pip, kept or not: the stream the first data was rendered with
    pips = tuple(swap.setdefault(c, far[int(rng.integers(len(far)))]) if close(c) else c for c in style.pip_colours)
    return pips, far, swap, rng


def readable_pips(style: TileStyle, min_distance: float) -> TileStyle:
    """``style`` with every pip colour at least ``min_distance`` from the face.

    A pip too close to the face gets another palette colour far enough from it (a set keeps
    one colour per value, so equal values stay equal); the draws come from a stream seeded by
    the style itself, so the scene's own draws are untouched.
    """
    if min_distance <= 0:
        return style

    def close(c: tuple[int, int, int]) -> bool:
        return math.dist(c, style.body) < min_distance

    pips, far, _, _ = _swap_close_pips(style, close, ())
    divider = style.divider
    if close(divider):
        divider = pips[0] if not close(pips[0]) else far[0]
    return replace(style, pip_colours=pips, divider=divider)


def gray_readable(style: TileStyle, min_luma: float) -> TileStyle:
    """``style`` with every pip colour and the divider at least ``min_luma`` from the face in
    luma, so they still show once the photo is grey (the same value keeps one colour).

    Like :func:`readable_pips`, the swaps come from a stream seeded by the style itself.
    """
    if min_luma <= 0:
        return style
    face = luma(style.body)

    def close(c: tuple[int, int, int]) -> bool:
        return abs(luma(c) - face) < min_luma

    pips, far, swap, rng = _swap_close_pips(style, close, (7,))
    divider = style.divider
    if close(divider):
        divider = swap.get(divider) or far[int(rng.integers(len(far)))]
    return replace(style, pip_colours=pips, divider=divider)


# ---------------------------------------------------------------- geometry helpers

def _rect(cx: float, cy: float, length: float, width: float, angle: float) -> np.ndarray:
    return OrientedBox(cx, cy, length, width, angle).corners()


def _overlap(p: np.ndarray, q: np.ndarray, tol: float) -> bool:
    """Separating-axis test for two convex quads; ``tol`` lets them touch."""
    for poly in (p, q):
        for i in range(4):
            e = poly[(i + 1) % 4] - poly[i]
            n = np.array([-e[1], e[0]])
            nn = math.hypot(*n)
            if nn == 0:
                continue
            n /= nn
            pa, qa = p @ n, q @ n
            if pa.max() <= qa.min() + tol or qa.max() <= pa.min() + tol:
                return False
    return True


def _inside(quad: np.ndarray, region: np.ndarray) -> bool:
    """All corners of ``quad`` inside the convex polygon ``region`` (clockwise or not)."""
    n = len(region)
    sign = 0.0
    for i in range(n):
        a, b = region[i], region[(i + 1) % n]
        cross = (b[0] - a[0]) * (quad[:, 1] - a[1]) - (b[1] - a[1]) * (quad[:, 0] - a[0])
        s = np.sign(cross)
        if np.any(s == 0):
            return False
        if sign == 0:
            sign = s[0]
        if np.any(s != sign):
            return False
    return True


class _Board:
    """Placed outlines, so new tiles go only where they fit (touching allowed)."""

    def __init__(self, region: np.ndarray, tol: float) -> None:
        self.region = region
        self.tol = tol
        self.quads: list[np.ndarray] = []
        self.centres: list[np.ndarray] = []
        self.radii: list[float] = []

    def fits(self, quad: np.ndarray) -> bool:
        if not _inside(quad, self.region):
            return False
        c = quad.mean(axis=0)
        r = float(np.max(np.hypot(*(quad - c).T)))
        for q, qc, qr in zip(self.quads, self.centres, self.radii, strict=True):
            if math.hypot(*(c - qc)) < r + qr and _overlap(quad, q, self.tol):
                return False
        return True

    def add(self, quad: np.ndarray) -> None:
        c = quad.mean(axis=0)
        self.quads.append(quad)
        self.centres.append(c)
        self.radii.append(float(np.max(np.hypot(*(quad - c).T))))


# ---------------------------------------------------------------- layouts

#: Lays face-up tiles on the board: ``(rng, board, centre, tile length, tile width)`` -> placements
#: with their values set (``valued``).
Placer = Callable[[np.random.Generator, "_Board", np.ndarray, float, float], list["Placement"]]

def _try_place(board: _Board, out: list[Placement], cx: float, cy: float, angle: float,
               ln: float, wd: float, face_up: bool = True) -> bool:
    q = _rect(cx, cy, ln, wd, angle)
    if not board.fits(q):
        return False
    board.add(q)
    out.append(Placement(cx, cy, angle, face_up=face_up, quad=q))
    return True


def _chain(rng: np.random.Generator, board: _Board, out: list[Placement], start: np.ndarray, phi: float,
           n: int, ln: float, wd: float, first: int, top: int, gap: float, allow_turns: bool = True) -> None:
    """Tiles end to end from ``start`` heading ``phi``, each matching the last; doubles crosswise."""
    pos = start.astype(float).copy()
    value = first
    for _ in range(n):
        nxt = value if rng.random() < 0.18 else int(rng.integers(0, top + 1))
        is_double = nxt == value
        d = np.array([math.cos(phi), math.sin(phi)])
        extent = wd if is_double else ln
        c = pos + d * (extent / 2 + gap)
        ang = phi + math.pi / 2 if is_double else phi
        if not _try_place(board, out, c[0], c[1], ang, ln, wd):
            return
        out[-1].a, out[-1].b = value, nxt  # half a is the end facing back along the chain
        out[-1].valued = True
        if is_double and rng.random() < 0.5:
            out[-1].angle += math.pi  # a double reads the same either way round
        pos = c + d * extent / 2
        value = nxt
        if allow_turns and not is_double and rng.random() < 0.12:
            phi += rng.choice([-1.0, 1.0]) * math.pi / 2
            pos = pos - d * wd / 2  # turn at the corner of the last tile


def _layout_foot(rng: np.random.Generator, board: _Board, out: list[Placement], centre: np.ndarray,
                 ln: float, wd: float, top: int) -> None:
    theta = rng.uniform(0, 2 * math.pi)
    hub = int(rng.integers(0, top + 1))
    if not _try_place(board, out, centre[0], centre[1], theta, ln, wd):
        return
    out[-1].a = out[-1].b = hub
    out[-1].valued = True
    gap = ln * rng.uniform(0, 0.04)
    dirs = [theta + math.pi / 2, theta - math.pi / 2, theta, theta + math.pi]
    if rng.random() < 0.3:
        dirs += [theta + math.pi / 4, theta + 3 * math.pi / 4, theta - math.pi / 4, theta - 3 * math.pi / 4]
    n_spokes = int(rng.integers(2, len(dirs) + 1))
    for k in rng.permutation(len(dirs))[:n_spokes]:
        phi = dirs[k]
        d = np.array([math.cos(phi), math.sin(phi)])
        along_axis = abs(math.cos(phi - theta)) > 0.9
        ext = ln / 2 if along_axis else wd / 2
        if abs(math.cos(phi - theta)) > 0.3 and not along_axis:
            ext = ln * 0.45
        start = centre + d * ext
        before = len(out)
        _chain(rng, board, out, start, phi, int(rng.integers(1, 6)), ln, wd, hub, top, gap, allow_turns=False)
        if len(out) > before and rng.random() < 0.45:
            _toes(rng, board, out, phi, ln, wd, top, gap)


def _toes(rng: np.random.Generator, board: _Board, out: list[Placement], phi: float,
          ln: float, wd: float, top: int, gap: float) -> None:
    """A double crosswise at the end of a spoke, then the three-toed chicken foot."""
    last = out[-1]
    d = np.array([math.cos(phi), math.sin(phi)])
    end = np.array([last.cx, last.cy]) + d * (ln / 2 if abs(math.cos(last.angle - phi)) > 0.5 else wd / 2)
    v = last.b
    c = end + d * (wd / 2 + gap)
    if not _try_place(board, out, c[0], c[1], phi + math.pi / 2, ln, wd):
        return
    out[-1].a = out[-1].b = v
    out[-1].valued = True
    perp = np.array([-d[1], d[0]])
    for off, turn in ((-1, -0.7), (0, 0.0), (1, 0.7)):
        p2 = phi + turn
        start = c + d * (wd / 2) + perp * off * ln * 0.3
        _chain(rng, board, out, start, p2, int(rng.integers(1, 3)), ln, wd, v, top, gap, allow_turns=False)


def _layout_rows(rng: np.random.Generator, board: _Board, out: list[Placement], centre: np.ndarray,
                 ln: float, wd: float) -> None:
    """A hand laid flat: rows of tiles side by side (sometimes end to end)."""
    theta = rng.uniform(-0.4, 0.4) if rng.random() < 0.7 else rng.uniform(0, 2 * math.pi)
    u = np.array([math.cos(theta), math.sin(theta)])
    v = np.array([-u[1], u[0]])
    n_rows = int(rng.integers(1, 4))
    end_to_end = rng.random() < 0.25
    step = (ln if end_to_end else wd) * (1 + rng.uniform(0, 0.25) * (rng.random() < 0.6))
    row_gap = (wd if end_to_end else ln) * rng.uniform(1.05, 1.6)
    per_row = int(rng.integers(3, 13))
    for r in range(n_rows):
        rc = centre + v * (r - (n_rows - 1) / 2) * row_gap
        for k in range(per_row):
            c = rc + u * (k - (per_row - 1) / 2) * step
            ang = theta if end_to_end else theta + math.pi / 2
            ang += rng.normal(0, 0.04) + (math.pi if rng.random() < 0.5 else 0.0)
            _try_place(board, out, c[0], c[1], ang, ln, wd)


def _layout_scatter(rng: np.random.Generator, board: _Board, out: list[Placement], lo: np.ndarray,
                    hi: np.ndarray, ln: float, wd: float, n: int) -> None:
    tries = 0
    placed = 0
    while placed < n and tries < n * 12:
        tries += 1
        if out and rng.random() < 0.3:  # touch a tile already down: side by side or end to end
            ref = out[int(rng.integers(len(out)))]
            u = np.array([math.cos(ref.angle), math.sin(ref.angle)])
            v = np.array([-u[1], u[0]])
            if rng.random() < 0.5:
                c = np.array([ref.cx, ref.cy]) + v * wd * rng.choice([-1.0, 1.0]) + u * rng.uniform(-0.3, 0.3) * ln
                ang = ref.angle + rng.choice([0.0, math.pi])
            else:
                c = np.array([ref.cx, ref.cy]) + u * ln * rng.choice([-1.0, 1.0])
                ang = ref.angle + rng.choice([0.0, math.pi])
        else:
            c = lo + rng.random(2) * (hi - lo)
            ang = rng.uniform(0, 2 * math.pi)
        if _try_place(board, out, c[0], c[1], ang, ln, wd):
            placed += 1


def _mixed_layouts(rng: np.random.Generator, board: _Board, centre: np.ndarray, lo_pt: np.ndarray,
                   hi_pt: np.ndarray, ln: float, wd: float, capacity: int) -> list[Placement]:
    """The face-up tiles of an ordinary scene: none, a scatter, a Chicken Foot hub, a line or a
    hand in rows, often with other tiles lying around; at most 40."""
    placements: list[Placement] = []
    mode = rng.random()
    if mode < 0.04:
        return placements  # no face-up tiles at all
    if mode < 0.36:
        _layout_scatter(rng, board, placements, lo_pt, hi_pt, ln, wd, int(rng.integers(1, min(30, capacity) + 1)))
    elif mode < 0.58:
        _layout_foot(rng, board, placements, centre, ln, wd, 12)
    elif mode < 0.75:
        _chain(rng, board, placements, centre, rng.uniform(0, 2 * math.pi), int(rng.integers(3, 12)),
               ln, wd, int(rng.integers(0, 13)), 12, ln * rng.uniform(0, 0.04))
    else:
        _layout_rows(rng, board, placements, centre, ln, wd)
    if rng.random() < 0.7:  # other tiles lying around the layout
        extra = int(rng.integers(1, min(25, capacity) + 1))
        _layout_scatter(rng, board, placements, lo_pt, hi_pt, ln, wd, max(0, extra - len(placements)))
    return placements[:40]


# ---------------------------------------------------------------- drawing

def _rounded(ln: float, wd: float, r: float) -> np.ndarray:
    """Rounded rectangle outline in tile coordinates (x along the tile)."""
    pts = []
    r = min(r, wd / 2 - 1e-3)
    for cx, cy, a0 in ((ln / 2 - r, wd / 2 - r, 0), (-ln / 2 + r, wd / 2 - r, 90),
                       (-ln / 2 + r, -wd / 2 + r, 180), (ln / 2 - r, -wd / 2 + r, 270)):
        for a in np.radians(np.linspace(a0, a0 + 90, 5)):
            pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return np.array(pts)


def _to_canvas(pts: np.ndarray, cx: float, cy: float, angle: float, stretch: float = 1.0) -> list[tuple[float, float]]:
    ca, sa = math.cos(angle), math.sin(angle)
    x, y = pts[:, 0], pts[:, 1]
    return list(zip((cx + x * ca - y * sa).tolist(), (cy + (x * sa + y * ca) * stretch).tolist(), strict=True))


def _stand_up(rng: np.random.Generator, board: _Board, placements: list[Placement], tilt: float,
              ln: float, wd: float) -> None:
    """Stand some tiles on edge facing the camera: the canvas is squashed by ``tilt`` in the
    photo, so a face stretched by ``tilt`` here comes out unforeshortened, like the standing
    tiles in the webcam frames."""
    for p in placements:
        if rng.random() > 0.3:
            continue
        ang = (math.pi / 2 if rng.random() < 0.7 else 0.0) + rng.normal(0, 0.08) + (math.pi if rng.random() < 0.5 else 0.0)
        q = _rect(p.cx, p.cy, ln, wd, ang)
        q = np.column_stack([q[:, 0], p.cy + (q[:, 1] - p.cy) * tilt])
        idx = next(j for j, o in enumerate(board.quads) if o is p.quad)
        if not _inside(q, board.region) or any(
                _overlap(q, o, board.tol) for j, o in enumerate(board.quads) if j != idx):
            continue
        board.quads[idx] = q
        board.radii[idx] = float(np.max(np.hypot(*(q - q.mean(axis=0)).T)))
        p.quad, p.angle, p.stretch = q, ang, tilt


def _hull(points: np.ndarray) -> list[tuple[float, float]]:
    pts = sorted(map(tuple, points.tolist()))
    if len(pts) < 3:
        return pts

    def cross(o: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[tuple[float, float]] = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper: list[tuple[float, float]] = []
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def _shade(c: tuple[int, int, int], k: float) -> tuple[int, int, int]:
    return tuple(int(min(255, max(0, x * k))) for x in c)  # type: ignore[return-value]


def _draw_tile(d: ImageDraw.ImageDraw, p: Placement, style: TileStyle, ln: float, wd: float,
               side_off: float, rng: np.random.Generator, canvas: Image.Image) -> None:
    st = p.stretch
    outline = _rounded(ln, wd, style.corner * wd)
    face = np.array(_to_canvas(outline, p.cx, p.cy, p.angle, st))
    if st > 1.0:  # standing: the top edge shows above the face
        side_off = -wd * style.thickness * 2 * (st - 1.0)
    if abs(side_off) > 0.5:
        d.polygon(_hull(np.vstack([face, face + np.array([0.0, side_off])])), fill=style.side)
    body = style.body if p.face_up else style.back
    d.polygon([tuple(x) for x in face], fill=_shade(body, 0.8))  # bevel rim
    bw = style.bevel * wd
    inner = _rounded(ln - 2 * bw, wd - 2 * bw, max(0.5, style.corner * wd - bw))
    d.polygon(_to_canvas(inner, p.cx, p.cy, p.angle, st), fill=body)
    if not p.face_up:
        if style.back_print:
            _draw_back(d, p, style, ln, wd, rng, canvas)
            return
        if rng.random() < 0.3:  # some backs carry a printed mark
            r = wd * 0.15
            c = (p.cx, p.cy)
            d.ellipse((c[0] - r, c[1] - r, c[0] + r, c[1] + r), fill=_shade(body, rng.uniform(0.5, 1.3)))
        return
    dl, dw = style.divider_len * wd / 2, max(1.0, style.divider_w * ln / 2)
    bar = np.array([[-dw, -dl], [dw, -dl], [dw, dl], [-dw, dl]])
    if style.groove:  # a slot in the face: its far wall in shade, its near edge catching the light
        d.polygon(_to_canvas(bar, p.cx, p.cy, p.angle, st), fill=_shade(style.body, 0.55))
        lit = np.array([[dw, -dl], [dw * 2.0, -dl], [dw * 2.0, dl], [dw, dl]])
        d.polygon(_to_canvas(lit, p.cx, p.cy, p.angle, st), fill=_shade(style.body, 1.12))
    else:
        d.polygon(_to_canvas(bar, p.cx, p.cy, p.angle, st), fill=style.divider)
    if style.spinner:
        r = wd * 0.07
        c = (p.cx, p.cy)
        d.ellipse((c[0] - r, c[1] - r * st, c[0] + r, c[1] + r * st), fill=(190, 160, 80), outline=(120, 100, 50))
    for sign, value in ((-1.0, p.a), (1.0, p.b)):
        if value == 0:
            continue
        col = style.pip_colours[value]
        rad = pip_radius(value) * wd * style.pip_scale
        half_l = min(style.pip_margin * ln / 4, ln / 4 - 1.3 * rad)  # keep pips off divider and end
        half_w = min(style.pip_margin * wd / 2, wd / 2 - 1.4 * rad)
        pts = [(sign * (ln / 4 + along * half_l), across * half_w) for along, across in layout(value, style.variant)]
        ry = rad * st
        for cx, cy in _to_canvas(np.array(pts), p.cx, p.cy, p.angle, st):
            if style.drilled:
                d.ellipse((cx - rad, cy - ry, cx + rad, cy + ry), fill=_shade(col, 0.55))
                r2, r2y = rad * 0.78, ry * 0.78
                d.ellipse((cx - r2 + rad * 0.1, cy - r2y + ry * 0.1, cx + r2 + rad * 0.1, cy + r2y + ry * 0.1), fill=col)
            else:
                d.ellipse((cx - rad, cy - ry, cx + rad, cy + ry), fill=col)


def _draw_back(d: ImageDraw.ImageDraw, p: Placement, style: TileStyle, ln: float, wd: float,
               rng: np.random.Generator, canvas: Image.Image) -> None:
    """A printed back: brand logos and dot rows are what real detectors took for faces."""
    ink, kind, st = style.back_ink, style.back_print, p.stretch

    def poly(pts: list[tuple[float, float]], fill: tuple[int, int, int] = ink) -> None:
        d.polygon(_to_canvas(np.array(pts), p.cx, p.cy, p.angle, st), fill=fill)

    def dot(x: float, y: float, r: float) -> None:
        (cx, cy), = _to_canvas(np.array([[x, y]]), p.cx, p.cy, p.angle, st)
        d.ellipse((cx - r, cy - r * st, cx + r, cy + r * st), fill=ink)

    def dot_row(y: float, r: float) -> None:  # three to six dots along the tile
        m = int(rng.integers(3, 7))
        for k in range(m):
            dot(-ln * 0.3 + k * ln * 0.6 / max(1, m - 1), y, r)

    if kind == 5:  # lettering across the back, maybe a row of dots under it
        text = word(rng, 4) if rng.random() < 0.7 else word(rng)
        below = rng.random() < 0.4
        if not below and rng.random() < 0.4:  # across the tile, read with the tile standing up
            mask = text_mask(text, ln * rng.uniform(0.15, 0.3), bold=int(rng.integers(0, 3)))
            paste_mask(canvas, mask, ink, p.cx, p.cy, p.angle + math.pi / 2, st, max_w=wd * 0.9, max_h=ln * 0.6)
        else:
            mask = text_mask(text, wd * rng.uniform(0.3, 0.55), bold=int(rng.integers(0, 3)))
            (cx, cy), = _to_canvas(np.array([[0.0, -wd * 0.1 if below else 0.0]]), p.cx, p.cy, p.angle, st)
            paste_mask(canvas, mask, ink, cx, cy, p.angle, st, max_w=ln * 0.85, max_h=wd * 0.7)
        if below:
            dot_row(wd * 0.3, wd * 0.04)
        return
    if kind == 1:  # two to four blocky glyphs along the tile, a row of small dots under them
        n = int(rng.integers(2, 5))
        gw = ln * 0.7 / n
        for k in range(n):
            x0 = -ln * 0.35 + k * gw
            pts = [(x0 + gw * rng.uniform(0.1, 0.9), -wd * rng.uniform(0.05, 0.3)) for _ in range(int(rng.integers(4, 7)))]
            pts.sort(key=lambda q: math.atan2(q[1] + wd * 0.17, q[0] - x0 - gw / 2))
            poly(pts)
        dot_row(wd * 0.25, wd * 0.05)
    elif kind == 2:  # all-over dot grid
        r = wd * rng.uniform(0.04, 0.08)
        for x in np.linspace(-ln * 0.4, ln * 0.4, int(rng.integers(4, 9))):
            for y in np.linspace(-wd * 0.3, wd * 0.3, int(rng.integers(2, 5))):
                dot(float(x), float(y), r)
    elif kind == 3:  # stripes along the tile (never one bar across the middle: that is a 0-0 face)
        bw = max(1.0, wd * rng.uniform(0.02, 0.06))
        for y in np.linspace(-wd * 0.3, wd * 0.3, int(rng.integers(2, 5))):
            poly([(-ln * 0.42, y - bw), (ln * 0.42, y - bw), (ln * 0.42, y + bw), (-ln * 0.42, y + bw)])
    else:  # an emblem ring with dots round it
        r_out, r_in = wd * 0.32, wd * rng.uniform(0.18, 0.26)
        ring = [(r_out * math.cos(a), r_out * math.sin(a)) for a in np.linspace(0, 2 * math.pi, 24)]
        poly(ring)
        hole = [(r_in * math.cos(a), r_in * math.sin(a)) for a in np.linspace(0, 2 * math.pi, 24)]
        poly(hole, style.back)
        for s_ in (-1.0, 1.0):
            for k in range(int(rng.integers(0, 4))):
                dot(s_ * ln * (0.25 + 0.07 * k), 0.0, wd * 0.05)


def _draw_hand(d: ImageDraw.ImageDraw, rng: np.random.Generator, cw: int, ch: int, ln: float) -> None:
    """Fingers reaching in from an edge: skin tones, rounded, about a tile wide."""
    skin = [(224, 172, 140), (198, 134, 96), (141, 85, 56), (90, 56, 37), (240, 200, 170)]
    col = tuple(int(np.clip(c * rng.uniform(0.85, 1.1), 0, 255)) for c in skin[int(rng.integers(len(skin)))])
    side = int(rng.integers(4))
    t = rng.uniform(0.1, 0.9)
    base = [(t * cw, 0.0), (cw, t * ch), (t * cw, float(ch)), (0.0, t * ch)][side]
    inward = [math.pi / 2, math.pi, -math.pi / 2, 0.0][side] + rng.normal(0, 0.3)
    u = np.array([math.cos(inward), math.sin(inward)])
    v = np.array([-u[1], u[0]])
    fw = ln * rng.uniform(0.3, 0.45)
    palm = np.array(base) - u * ln * 0.3
    for k in range(int(rng.integers(1, 5))):
        start = palm + v * fw * (k - 1.5) * 1.05
        end = start + u * ln * rng.uniform(0.8, 1.6)
        for q in np.linspace(0, 1, 8):
            c = start + (end - start) * q
            d.ellipse((c[0] - fw / 2, c[1] - fw / 2, c[0] + fw / 2, c[1] + fw / 2), fill=col)
    r = ln * 0.9
    d.ellipse((palm[0] - r, palm[1] - r, palm[0] + r, palm[1] + r), fill=col)


def _homography(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    a = []
    for (x, y), (u, v) in zip(src, dst, strict=True):
        a.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        a.append([0, 0, 0, x, y, 1, -v * x, -v * y])
    h = np.linalg.solve(np.array(a, dtype=np.float64), dst.reshape(-1).astype(np.float64))
    return np.append(h, 1.0).reshape(3, 3)


def _apply_h(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.hstack([pts, np.ones((len(pts), 1))]) @ h.T
    return p[:, :2] / p[:, 2:3]


# ---------------------------------------------------------------- scene

def _sample_values(rng: np.random.Generator, n: int, cfg: SceneConfig) -> tuple[list[tuple[int, int]], int]:
    tops = [t for t in (6, 9, 12, 15, 18) if t <= cfg.max_value] or [cfg.max_value]
    weights = np.array([{6: 3, 9: 2, 12: 4, 15: 1, 18: 1}.get(t, 1) for t in tops], float)
    top = int(rng.choice(tops, p=weights / weights.sum()))
    if cfg.set_top:
        top = cfg.set_top
    if cfg.uniform_values:
        top = cfg.max_value
        return [(int(rng.integers(0, top + 1)), int(rng.integers(0, top + 1))) for _ in range(n)], top
    full = [(a, b) for a in range(top + 1) for b in range(a, top + 1)]
    idx = rng.permutation(len(full))
    pairs = [full[i] for i in idx[: min(n, len(full))]]
    while len(pairs) < n:  # two sets mixed, as on the webcam table
        pairs.append(full[int(rng.integers(len(full)))])
    if n and rng.random() < 0.35 and (0, 0) not in pairs:
        pairs[int(rng.integers(n))] = (0, 0)
    return [(a, b) if rng.random() < 0.5 else (b, a) for a, b in pairs], top


def render_scene(rng: np.random.Generator, cfg: SceneConfig,
                 placer: Placer | None = None) -> tuple[Image.Image, list[TileLabel]]:
    """One photo and its face-up tiles. ``placer`` lays the face-up tiles instead of the mixed
    layouts (see :mod:`chickenfoot.vision.lab.datasets.table`); no loose face-up tiles are added and none stand up, so
    the photo shows exactly what it laid."""
    # Whether the photo goes grey is drawn last, so a scene that needs grey-readable pips is
    # drawn again from a copy of the generator: the colour swap draws nothing from it, so the
    # second pass makes the same draws and leaves ``rng`` where the first left it.
    again = copy.deepcopy(rng) if cfg.gray_contrast > 0 else None
    photo, labels, style, gray = _render_scene(rng, cfg, placer, 0.0)
    if again is not None and gray and gray_readable(style, cfg.gray_contrast) != style:
        photo, labels, _, _ = _render_scene(again, cfg, placer, cfg.gray_contrast)
    return photo, labels


def _render_scene(rng: np.random.Generator, cfg: SceneConfig, placer: Placer | None,
                  gray_contrast: float) -> tuple[Image.Image, list[TileLabel], TileStyle, bool]:
    """:func:`render_scene`'s one pass; also the tiles' final style and whether the photo went grey."""
    w, h = cfg.width, cfg.height
    tilt = 1.0 if rng.random() < 0.35 else rng.uniform(1.0, 1.55)
    keystone = rng.uniform(0, 0.22) * min(1.0, (tilt - 1.0) / 0.6 + 0.15)
    k1, k2 = rng.uniform(0.5, 1.5, 2)
    if not cfg.perspective:
        tilt, keystone = 1.0, 0.0
    cw, ch = w * SS, int(h * SS * tilt)
    region = np.array([[0.0, 0.0], [cw, 0.0], [cw * (1 - keystone * k1), ch], [cw * keystone * k2, ch]])
    if cfg.tile_px is not None:
        ln_out = math.exp(rng.uniform(math.log(cfg.tile_px[0]), math.log(cfg.tile_px[1])))
    else:
        lo, hi = cfg.tile_frac
        ln_out = math.exp(rng.uniform(math.log(lo), math.log(hi))) * max(w, h)
    neg = np.random.default_rng(int(rng.integers(2**62))) if cfg.hard_cases else None
    # spawned, not drawn: the scene's own draws stay as without the option, so a printed scene
    # is its plain twin with print added and some layout tiles turned over
    prt = rng.spawn(1)[0] if cfg.printed else None
    close_up = neg is not None and neg.random() < 0.12
    if close_up:  # one to a few tiles filling the frame: a player settling an argument
        ln_out = neg.uniform(0.3, 0.7) * max(w, h)
    fc = rng.spawn(1)[0] if cfg.faces else None
    style = make_style(rng)
    if fc is not None:
        style = face_style(fc, style)
    style = readable_pips(style, cfg.pip_contrast)
    ln = ln_out * SS
    wd = ln * style.aspect

    if neg is not None:
        style = replace(style, back_print=int(neg.choice(5, p=[0.15, 0.3, 0.1, 0.15, 0.3])),
                        back_ink=tuple(int(c) for c in neg.integers(0, 256, 3)) if neg.random() < 0.5
                        else (int(neg.uniform(10, 60)),) * 3)
        if style.back == style.body and neg.random() < 0.5:
            style = replace(style, back=tuple(int(c) for c in neg.integers(0, 256, 3)))
    if prt is not None and prt.random() < 0.6:
        style = replace(style, back_print=5, back_ink=tuple(int(c) for c in prt.integers(0, 256, 3))
                        if prt.random() < 0.4 else (int(prt.uniform(10, 80)),) * 3)
    canvas = make_background(rng, cw, ch, "marble" if neg is not None and neg.random() < 0.3 else None)
    board = _Board(region, tol=-0.5)
    if rng.random() < 0.5:
        for outline in draw_clutter(rng, canvas, int(rng.integers(1, 6)), ln):
            board.add(outline)
    if prt is not None and not close_up and prt.random() < 0.5:
        for outline in draw_printed_matter(prt, canvas, int(prt.integers(1, 3)), ln):
            board.add(outline)

    margin = ln * 0.6
    lo_pt, hi_pt = np.array([margin, margin]), np.array([cw - margin, ch - margin])
    centre = lo_pt + rng.random(2) * (hi_pt - lo_pt) * 0.6 + (hi_pt - lo_pt) * 0.2
    capacity = max(1, int(cw * ch / (ln * wd * 3)))
    if placer is not None:
        placements = placer(rng.spawn(1)[0], board, centre, ln, wd)
    else:
        placements = _mixed_layouts(rng, board, centre, lo_pt, hi_pt, ln, wd, capacity)

    vcfg = cfg
    if fc is not None and fc.random() < 0.5 and not cfg.set_top:
        vcfg = replace(cfg, set_top=int(fc.choice([t for t in (9, 12) if t <= cfg.max_value] or [cfg.max_value])))
    values, _top = _sample_values(rng, len(placements), vcfg)
    for p, (a, b) in zip(placements, values, strict=True):
        if not p.valued or cfg.uniform_values or max(p.a, p.b) > cfg.max_value:
            p.a, p.b = a, b

    if cfg.blanks > 0:
        blank = rng.spawn(1)[0]
        for p in placements:
            if blank.random() < cfg.blanks:
                if blank.random() < 1 / 3:
                    p.a = p.b = 0
                elif blank.random() < 0.5:
                    p.a = 0
                else:
                    p.b = 0

    if prt is not None and len(placements) >= 3 and prt.random() < 0.35:
        # a run of face-down tiles in the layout itself (a hand half turned over, a row of backs
        # beside a row of faces)
        i = int(prt.integers(0, len(placements) - 1))
        for p in placements[i:i + int(prt.integers(2, 9))]:
            p.face_up = False
    n_down = int(rng.integers(1, 7)) if rng.random() < 0.35 else 0
    before = len(placements)
    _layout_scatter(rng, board, placements, lo_pt, hi_pt, ln, wd, n_down)
    if neg is not None and not close_up and neg.random() < 0.6:  # the boneyard: a heap of face-down tiles in one patch
        c0 = lo_pt + neg.random(2) * (hi_pt - lo_pt)
        half = np.array([ln, ln]) * neg.uniform(1.2, 3.0)
        _layout_scatter(neg, board, placements, np.maximum(lo_pt, c0 - half), np.minimum(hi_pt, c0 + half),
                        ln, wd, int(neg.integers(3, 19)))
    for p in placements[before:]:
        p.face_up = False

    if placer is None and tilt > 1.15 and rng.random() < 0.5:
        _stand_up(rng, board, placements, tilt, ln, wd)

    # Shadows, at quarter resolution since they are soft anyway.
    side_off = (tilt - 1.0) * style.thickness * ln * 1.2 + (0.02 * ln if rng.random() < 0.5 else 0.0)
    light = rng.uniform(0, 2 * math.pi)
    s_off = np.array([math.cos(light), math.sin(light)]) * ln * rng.uniform(0.02, 0.14)
    q = 4
    mask = Image.new("L", (cw // q + 1, ch // q + 1), 0)
    md = ImageDraw.Draw(mask)
    for p in placements:
        pts = np.vstack([p.quad + s_off, p.quad + s_off + [0, side_off]]) / q
        md.polygon(_hull(pts), fill=255)
    mask = mask.filter(ImageFilter.GaussianBlur(max(0.5, ln * rng.uniform(0.02, 0.08) / q)))
    mask = mask.resize((cw, ch), Image.Resampling.BILINEAR)
    shadow_k = rng.uniform(0.2, 0.6)
    canvas = Image.composite(Image.new("RGB", (cw, ch), 0), canvas,
                             mask.point(lambda v: int(v * shadow_k)))

    style = gray_readable(style, gray_contrast)
    draw = ImageDraw.Draw(canvas)
    if neg is not None and neg.random() < 0.25:
        _draw_hand(draw, neg, cw, ch, ln)
    # far tiles first so nearer tiles' sides overlap them, as in the photo
    for p in sorted(placements, key=lambda t: t.cy):
        _draw_tile(draw, p, style, ln, wd, side_off, rng, canvas)

    # Camera: warp the table plane into the photo.
    dst = np.array([[0.0, 0.0], [2 * w, 0.0], [2 * w, 2 * h], [0.0, 2 * h]])
    src = region
    hmat = _homography(src, dst)
    hinv = np.linalg.inv(hmat)
    hinv /= hinv[2, 2]
    photo = canvas.transform((2 * w, 2 * h), Image.Transform.PERSPECTIVE, tuple(hinv.reshape(-1)[:8]),
                             resample=Image.Resampling.BILINEAR).reduce(2)
    labels: list[TileLabel] = []
    for p in placements:
        if not p.face_up and not (cfg.back_labels and p.stretch <= 1.0):
            continue
        quad = _apply_h(hmat, p.quad) / 2.0
        a, b = (p.a, p.b) if p.face_up else (BACK, BACK)
        labels.append(TileLabel(a, b, tuple((float(x), float(y)) for x, y in quad)))

    gray = False
    if cfg.photometric:
        photo, gray = _photometric(rng, photo)
    if cfg.photometric and rng.random() < 0.5:
        photo = photo.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
        # mirroring swaps left and right corners but keeps which end is A
        labels = [TileLabel(t.a, t.b, tuple((w - x, y) for x, y in (t.quad[3], t.quad[2], t.quad[1], t.quad[0])))
                  for t in labels]
    return photo, labels, style, gray


def _photometric(rng: np.random.Generator, img: Image.Image) -> tuple[Image.Image, bool]:
    """The photo with light, glare, blur and noise, and whether it went grayscale."""
    w, h = img.size
    if rng.random() < 0.35:
        img = img.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 1.4)))
    a = np.asarray(img, dtype=np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    g = rng.uniform(-1, 1, 2)
    light = 1.0 + rng.uniform(0, 0.35) * ((xx / w - 0.5) * g[0] + (yy / h - 0.5) * g[1])
    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    vign = 1.0 - rng.uniform(0, 0.35) * (((xx - cx) / w) ** 2 + ((yy - cy) / h) ** 2)
    gain = rng.uniform(0.6, 1.25) * light * vign
    cast = np.ones(3, np.float32)
    if rng.random() < 0.5:
        cast = rng.uniform(0.82, 1.15, 3).astype(np.float32)
    a = a * gain[..., None] * cast
    if rng.random() < 0.3:  # glare
        for _ in range(int(rng.integers(1, 3))):
            gx, gy = rng.uniform(0, w), rng.uniform(0, h)
            s = rng.uniform(0.02, 0.12) * max(w, h)
            a += (rng.uniform(60, 200) * np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * s * s)))[..., None]
    if rng.random() < 0.6:
        a += rng.normal(0, rng.uniform(1, 9), a.shape).astype(np.float32)
    out = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8), "RGB")
    gray = bool(rng.random() < GRAY_SHARE)
    if gray:
        out = out.convert("L").convert("RGB")
    return out, gray


def jpeg_roundtrip(img: Image.Image, quality: int) -> Image.Image:
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=quality)
    buf.seek(0)
    return Image.open(buf).convert("RGB")


# ---------------------------------------------------------------- dataset

_SIZES = ((480, 360), (480, 270), (480, 480), (360, 480), (270, 480), (480, 320))


def obb_label_lines(labels: list[TileLabel], w: int, h: int) -> list[str]:
    lines = []
    for t in labels:
        q = np.asarray(t.quad)
        xs = np.clip(q[:, 0] / w, 0.0, 1.0)
        ys = np.clip(q[:, 1] / h, 0.0, 1.0)
        lines.append("0 " + " ".join(f"{x:.6f} {y:.6f}" for x, y in zip(xs, ys, strict=True)))
    return lines


#: Pillow's transpose that turns a photo this many degrees counter-clockwise.
TURNS = {90: Image.Transpose.ROTATE_90, 180: Image.Transpose.ROTATE_180, 270: Image.Transpose.ROTATE_270}


def turn_point(x: float, y: float, degrees: int, size: tuple[int, int]) -> tuple[float, float]:
    """Where the point (x, y) of a photo of ``size`` (width, height) lies once the photo is
    turned ``degrees`` (90, 180 or 270) counter-clockwise (:data:`TURNS`)."""
    w, h = size
    if degrees == 90:
        return y, w - x
    if degrees == 180:
        return w - x, h - y
    if degrees == 270:
        return h - y, x
    raise ValueError(f"a photo is turned 90, 180 or 270 degrees, not {degrees}")


def turn_scene(img: Image.Image, labels: list[TileLabel], quarters: int) -> tuple[Image.Image, list[TileLabel]]:
    """The photo and its labels turned ``quarters`` (1 or 3) quarters counter-clockwise: the
    tiles' sides and shadows, drawn below their faces as from a player's seat, then lie beside
    them, as in an overhead photo whose orientation the phone guessed otherwise."""
    if quarters not in (1, 3):
        raise ValueError(f"a scene is turned 1 or 3 quarters, not {quarters}")
    degrees = 90 * quarters
    return img.transpose(TURNS[degrees]), [
        TileLabel(t.a, t.b, tuple(turn_point(x, y, degrees, img.size) for x, y in t.quad)) for t in labels]


def render_dataset(out: Path, count: int, seed: int, val_frac: float = 0.1, max_value: int = 12,
                   long_side: int = 480, log_every: int = 0, hard_cases: bool = False,
                   pip_contrast: float = 0.0, printed: bool = False, set_top: int = 0,
                   gray_contrast: float = 0.0, blanks: float = 0.0, faces: bool = False,
                   resume: bool = False, turned: float = 0.0, tables: float = 0.0,
                   table_scene: Callable[[np.random.Generator, SceneConfig], tuple[object, list[TileLabel]]] | None = None,
                   jobs: int = 1) -> dict[str, int]:
    """Write ``count`` images (the last ``val_frac`` of them as the val split); ``set_top``:
    every photo shows one double-``set_top`` set; ``blanks``, ``faces``: see :class:`SceneConfig`;
    ``resume``: keep the images a stopped run of the same settings already wrote; ``turned``:
    the share of training images turned a quarter either way (:func:`turn_scene`; the val split
    stays upright); ``tables``: the share of images drawn by ``table_scene`` instead, a Chicken
    Foot table laid out (:func:`chickenfoot.vision.lab.datasets.table.table_scene`, which draws
    with this module and is passed in; 0: none; the other images are those of the same seed
    without tables); ``jobs``: processes rendering at once (image ``i`` depends on ``(seed, i)``
    alone, so the files are the same for any number)."""
    if tables > 0 and table_scene is None:
        raise ValueError("tables needs table_scene (chickenfoot.vision.lab.datasets.table.table_scene)")
    if jobs < 1:
        raise ValueError(f"jobs is at least 1, not {jobs}")
    out = Path(out)
    n_val = max(1, round(count * val_frac)) if count > 1 else 0
    for split in ("train", "val"):
        for sub in ("images", "labels", "tiles"):
            (out / sub / split).mkdir(parents=True, exist_ok=True)
    job = _RenderJob(out, count, n_val, seed, max_value, long_side, hard_cases, pip_contrast, printed, set_top,
                     gray_contrast, blanks, faces, resume, turned, tables, table_scene)
    t0 = time.time()
    stats = {"images": 0, "tiles": 0, "blank_halves": 0, "double_blank": 0}
    done = 0

    def add(part: dict[str, int]) -> None:
        nonlocal done
        for k, v in part.items():
            stats[k] += v
        before, done = done, done + part["images"]
        if log_every and done // log_every > before // log_every:
            print(f"  rendered {done}/{count} ({(time.time() - t0) / done * 1000:.0f} ms/image)", flush=True)

    step = max(1, log_every) if jobs == 1 else max(1, min(log_every or 64, -(-count // (jobs * 4))))
    chunks = [range(i, min(count, i + step)) for i in range(0, count, step)]
    if jobs == 1 or len(chunks) == 1:
        for chunk in chunks:
            add(job(chunk))
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        # fork: the workers start with this module (and a table_scene passed in) already loaded
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            for part in pool.map(job, chunks):
                add(part)
    (out / "data.yaml").write_text(
        f"path: {out.resolve()}\ntrain: images/train\nval: images/val\nnames:\n  0: tile\n")
    return stats


@dataclass(frozen=True)
class _RenderJob:
    """Renders a range of a dataset's images (:func:`render_dataset`); picklable, for workers."""

    out: Path
    count: int
    n_val: int
    seed: int
    max_value: int
    long_side: int
    hard_cases: bool
    pip_contrast: float
    printed: bool
    set_top: int
    gray_contrast: float
    blanks: float
    faces: bool
    resume: bool
    turned: float
    tables: float
    table_scene: Callable[[np.random.Generator, SceneConfig], tuple[object, list[TileLabel]]] | None

    def __call__(self, indices: range) -> dict[str, int]:
        out, seed = self.out, self.seed
        stats = {"images": 0, "tiles": 0, "blank_halves": 0, "double_blank": 0}
        for i in indices:
            split = "val" if i >= self.count - self.n_val else "train"
            name = f"{seed}_{i:06d}"
            done = out / "tiles" / split / f"{name}.json"
            if self.resume and done.exists() and (out / "images" / split / f"{name}.jpg").exists():
                # image i depends on (seed, i) alone: one an earlier run finished is kept as it is
                kept = [(t["a"], t["b"]) for t in json.loads(done.read_text())]
                _tally(stats, kept)
                continue
            rng = np.random.default_rng([seed, i])
            w, h = _SIZES[int(rng.integers(len(_SIZES)))]
            k = self.long_side / 480
            cfg = SceneConfig(width=int(w * k), height=int(h * k), max_value=self.max_value,
                              hard_cases=self.hard_cases, pip_contrast=self.pip_contrast, printed=self.printed,
                              set_top=self.set_top, gray_contrast=self.gray_contrast, blanks=self.blanks,
                              faces=self.faces)
            if (self.table_scene is not None and self.tables > 0
                    and np.random.default_rng([seed, i, 2]).random() < self.tables):
                img, labels = self.table_scene(rng, cfg)
            else:
                img, labels = render_scene(rng, cfg)
            quality = int(rng.integers(35, 96))
            if self.turned > 0 and split == "train":
                # its own stream: the scenes stay those of the same seed without turns
                turn = np.random.default_rng([seed, i, 1])
                if turn.random() < self.turned:
                    img, labels = turn_scene(img, labels, int(turn.choice([1, 3])))
            img.save(out / "images" / split / f"{name}.jpg", quality=quality)
            (out / "labels" / split / f"{name}.txt").write_text(
                "\n".join(obb_label_lines(labels, *img.size)) + "\n" if labels else "")
            done.write_text(json.dumps([t.to_json() for t in labels]))
            _tally(stats, [(t.a, t.b) for t in labels])
        return stats


def _tally(stats: dict[str, int], tiles: list[tuple[int, int]]) -> None:
    """Count one image of these tiles (their two values) into a dataset's ``stats``."""
    stats["images"] += 1
    stats["tiles"] += len(tiles)
    stats["blank_halves"] += sum((a == 0) + (b == 0) for a, b in tiles)
    stats["double_blank"] += sum(a == 0 and b == 0 for a, b in tiles)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m chickenfoot.vision.lab.datasets.render", description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--val-frac", type=float, default=0.1)
    ap.add_argument("--max-value", type=int, default=12, choices=range(6, MAX_VALUE + 1), metavar="6..18")
    ap.add_argument("--set", type=int, default=0, choices=(6, 9, 12, 15, 18), metavar="N", dest="set_top",
                    help="every photo shows tiles of one double-N set (default: a set drawn per photo, "
                         "up to --max-value); raises --max-value to N")
    ap.add_argument("--long-side", type=int, default=480)
    ap.add_argument("--hard-cases", action="store_true",
                    help="add boneyards of printed backs, stone tops, hands and close-ups (see SceneConfig)")
    ap.add_argument("--printed", action="store_true",
                    help="add printed matter: lettered backs, box lids, score sheets, face-down runs in the layout")
    ap.add_argument("--pip-contrast", type=float, default=DEFAULT_PIP_CONTRAST, metavar="D",
                    help="least RGB distance between pips and the tile face (default %(default)s; "
                         "0 renders as the shipped models' training data, where a few pips match the face)")
    ap.add_argument("--gray-contrast", type=float, default=DEFAULT_GRAY_CONTRAST, metavar="L",
                    help="least luma difference between pips (and divider) and the face in photos that go "
                         "grayscale (default %(default)s; 0 renders as the shipped models' training data)")
    ap.add_argument("--blanks", type=float, default=0.0, metavar="F",
                    help="share of face-up tiles given a blank half, a third of them 0-0 (default 0)")
    ap.add_argument("--turned", type=float, default=0.0, metavar="F",
                    help="share of training images turned a quarter either way (default 0)")
    ap.add_argument("--faces", action="store_true",
                    help="every divider style (line, groove, spinner pin), value-coloured retail palettes, "
                         "double-9 and double-12 sets (see SceneConfig.faces)")
    ap.add_argument("--jobs", type=int, default=1, metavar="N",
                    help="processes rendering at once (the same files for any number; default 1)")
    args = ap.parse_args(argv)
    if args.jobs < 1:
        ap.error("--jobs is at least 1")
    t0 = time.time()
    stats = render_dataset(args.out, args.count, args.seed, args.val_frac, args.max_value, args.long_side,
                           log_every=max(1, args.count // 10), hard_cases=args.hard_cases,
                           pip_contrast=args.pip_contrast, printed=args.printed, set_top=args.set_top,
                           gray_contrast=args.gray_contrast, blanks=args.blanks, faces=args.faces,
                           turned=args.turned, jobs=args.jobs)
    dt = time.time() - t0
    print(json.dumps({**stats, "seconds": round(dt, 1), "ms_per_image": round(1000 * dt / max(1, args.count))}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
