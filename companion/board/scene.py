"""A board or a single domino as a list of plain shapes in board units, so that the SVG and PNG
renderers only translate shapes and never decide what to draw.

Colours (:class:`Palette`): tiles ivory with dark pips; the round's double outlined in gold; a
tile where a rule is broken outlined in red; open ends dashed blue (grey while play is confined
elsewhere); a judged play green when legal, red when not, with the rules core's sentence beside
it. :data:`DARK` keeps the tiles ivory (they are dominoes) on a dark table, with lines and words
light enough to read there.
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass, field

from chickenfoot.rules.tiles import Tile

from . import pips
from .geometry import LENGTH, Board, Spot

INK = "#222222"
IVORY = "#fbf6e9"
EDGE = "#3a3a3a"
HUB = "#c08a00"
FLAG = "#d62728"
OPEN = "#1f6fb4"
CLOSED = "#9a9a9a"
LEGAL = "#2ca02c"
ILLEGAL = "#d62728"
TEXT = "#222222"


@dataclass(frozen=True, slots=True)
class Palette:
    """The colours a scene is drawn in."""

    background: str = "#ffffff"
    ink: str = INK
    ivory: str = IVORY
    edge: str = EDGE
    joint: str = EDGE  # the dashed line from a tile to the end it was played on
    hub: str = HUB
    flag: str = FLAG
    open: str = OPEN
    closed: str = CLOSED
    legal: str = LEGAL
    illegal: str = ILLEGAL
    text: str = TEXT
    taken: str = "#e6e6e6"
    badge: str = "#fff3c4"


LIGHT = Palette()
#: For a dark theme: the colours that lie on the table itself lightened (contrast of at least
#: 4.5 against its background), the tiles as they are.
DARK = Palette(background="#1c211e", joint="#a9b0ab", hub="#e6b422", flag="#ff7a7a", open="#71b7f2",
               closed="#9aa19c", legal="#6cd26c", illegal="#ff7a7a", text="#eef1ee", taken="#8d918e")

#: Pip centres sit this far (in half widths) from the middle of their half.
_PIP_SPREAD = 0.31
_CORNER = 0.12


@dataclass(frozen=True, slots=True)
class Poly:
    points: tuple[tuple[float, float], ...]
    fill: str | None
    stroke: str | None = None
    width: float = 0.05
    dash: bool = False
    opacity: float = 1.0


@dataclass(frozen=True, slots=True)
class Dot:
    x: float
    y: float
    r: float
    fill: str


@dataclass(frozen=True, slots=True)
class Segment:
    x0: float
    y0: float
    x1: float
    y1: float
    stroke: str
    width: float = 0.04
    dash: bool = False


@dataclass(frozen=True, slots=True)
class Label:
    x: float
    y: float
    text: str
    size: float
    fill: str = TEXT
    anchor: str = "middle"  # "middle" or "start"
    bold: bool = False


Shape = Poly | Dot | Segment | Label


@dataclass
class Scene:
    """Shapes to draw, in order, inside ``(x0, y0, x1, y1)`` board units."""

    box: tuple[float, float, float, float]
    shapes: list[Shape] = field(default_factory=list)
    background: str = LIGHT.background

    @property
    def width(self) -> float:
        return self.box[2] - self.box[0]

    @property
    def height(self) -> float:
        return self.box[3] - self.box[1]


def rounded(spot: Spot, r: float = _CORNER, steps: int = 3) -> tuple[tuple[float, float], ...]:
    """The outline of a tile with rounded corners, as a polygon."""
    hl, hw = spot.length / 2 - r, spot.width / 2 - r
    pts = []
    for (a, b), start in (((1, 1), 0), ((-1, 1), 90), ((-1, -1), 180), ((1, -1), 270)):
        for k in range(steps + 1):
            ang = math.radians(start + 90 * k / steps)
            pts.append(spot.point(a * hl + r * math.cos(ang), b * hw + r * math.sin(ang)))
    return tuple(pts)


def tile_shapes(spot: Spot, near: int, far: int, *, fill: str = IVORY, edge: str = EDGE,
                edge_width: float = 0.05, opacity: float = 1.0, ink: str = INK) -> list[Shape]:
    """A domino face on ``spot``: ``near`` on the half at the near end, ``far`` on the other."""
    out: list[Shape] = [Poly(rounded(spot), fill, edge, edge_width, opacity=opacity)]
    a, b = spot.point(0, -spot.width / 2 + 0.1), spot.point(0, spot.width / 2 - 0.1)
    out.append(Segment(a[0], a[1], b[0], b[1], edge, 0.035))
    half = spot.length / 4
    for value, sign in ((near, -1), (far, 1)):
        # along runs from the divider (-1) to this half's end (+1)
        r = pips.pip_radius(value) * spot.width
        for along, across in pips.layout(value):
            x, y = spot.point(sign * (half + along * _PIP_SPREAD * spot.width),
                              across * _PIP_SPREAD * spot.width)
            out.append(Dot(x, y, r, ink))
    return out


#: The judged play's sentence: its letters' height, a letter's width in letters' heights (wide
#: enough for the bold face the PNG draws), and the fewest letters a line is wrapped to.
_CAPTION = 0.5
_CHAR_WIDTH = 0.6
_MIN_LINE = 18


def _wrap(text: str, width: int = 38) -> list[str]:
    return textwrap.wrap(text, width) or [""]


def board_scene(board: Board, *, margin: float = 0.8, palette: Palette = LIGHT, caption: bool = True) -> Scene:
    """Everything on ``board`` as shapes: tiles, joints, open ends, the judged play and, below
    the table, the tiles that are not on it and a judged play with no place on it.
    ``caption``: the judged play's sentence under the table (without it, the play is drawn
    alone: a screen that says the verdict in its own words, where a window framed on the play
    would cut the sentence)."""
    c = palette
    x0, y0, x1, y1 = board.bounds()
    shapes: list[Shape] = []
    ghost = board.ghost
    ghost_text: list[str] = []
    if ghost is not None and caption:
        # Wrapped to the table's own width (never under a few words a line): the sentence then
        # lies inside the drawing, where a window fitted to the table shows it whole.
        ghost_text = _wrap(f"{ghost.caption} {ghost.verdict.message}",
                           max(_MIN_LINE, int((x1 - x0) / (_CAPTION * _CHAR_WIDTH))))
    # marks first, under everything
    for m in board.ends:
        colour = c.open if m.end.playable else c.closed
        shapes.append(Poly(rounded(m.spot), colour, colour, 0.05, dash=True, opacity=0.12))
        shapes.append(Poly(rounded(m.spot), None, colour, 0.05, dash=True))
        shapes.append(Label(m.spot.x, m.spot.y + 0.22, str(m.end.value), 0.62, colour, bold=True))
    for p in board.pieces:
        if p.joint is not None:
            nx, ny = p.near_edge()
            shapes.append(Segment(p.joint[0], p.joint[1], nx, ny, c.joint, 0.05, dash=True))
        edge = c.flag if p.flagged else c.hub if p.kind == "hub" else c.edge
        shapes += tile_shapes(p.spot, p.near, p.far, fill=c.ivory, edge=edge, ink=c.ink,
                              edge_width=0.1 if p.flagged or p.kind == "hub" else 0.05)
    bottom = y1 + margin
    if ghost is not None and ghost.spot is not None:
        colour = c.legal if ghost.legal else c.illegal
        if ghost.joint is not None:
            nx, ny = ghost.near_edge()
            shapes.append(Segment(ghost.joint[0], ghost.joint[1], nx, ny, colour, 0.05, dash=True))
        shapes += tile_shapes(ghost.spot, ghost.near, ghost.far, fill=colour, edge=colour,
                              edge_width=0.12, opacity=0.35, ink=c.ink)
        # The sentence goes under the table, in the play's colour, so that it never covers a
        # tile or an open end and never runs off the drawing's side.
        for i, line in enumerate(ghost_text):
            shapes.append(Label(x0, bottom + (i + 0.7) * _CAPTION * 1.2, line, _CAPTION, colour, "start",
                                bold=i == 0))
        if ghost_text:
            x1 = max(x1, x0 + max(len(t) for t in ghost_text) * _CAPTION * _CHAR_WIDTH)
            bottom += len(ghost_text) * _CAPTION * 1.2 + 0.3
    tray_x = x0
    if board.loose:
        shapes.append(Label(tray_x, bottom + 0.5, "Not on the table:", 0.5, c.flag, "start", True))
        for i, tile in enumerate(board.loose):
            spot = Spot(tray_x + 1.0 + i * (LENGTH + 0.4), bottom + 1.4, 0.0)
            shapes += tile_shapes(spot, tile.low, tile.high, fill=c.ivory, edge=c.flag, edge_width=0.08, ink=c.ink)
        x1 = max(x1, tray_x + len(board.loose) * (LENGTH + 0.4))
        bottom += 2.2
    if ghost is not None and ghost.spot is None:
        colour = c.legal if ghost.legal else c.illegal
        spot = Spot(tray_x + 1.0, bottom + 0.9, 0.0)
        shapes += tile_shapes(spot, ghost.near, ghost.far, fill=colour, edge=colour, edge_width=0.12,
                              opacity=0.35, ink=c.ink)
        for i, line in enumerate(ghost_text):
            shapes.append(Label(tray_x + 2.4, bottom + 0.75 + i * 0.6, line, 0.5, colour, "start", i == 0))
        x1 = max(x1, tray_x + 2.4 + max((len(t) for t in ghost_text), default=0) * _CAPTION * _CHAR_WIDTH)
        bottom += 1.2 + 0.6 * len(ghost_text)
    return Scene((x0 - margin, y0 - margin, x1 + margin, max(bottom, y1 + margin)), shapes, c.background)


def face_scene(tile: Tile, *, zero_zero: int | None = None, taken: bool = False,
               upright: bool = True, palette: Palette = LIGHT) -> Scene:
    """One domino face (the tile picker's): low half on top when ``upright``. The 0-0 carries its
    penalty under the rules (``zero_zero``: 50, 25 or 0) in a badge; a ``taken`` tile is greyed
    and crossed out."""
    c = palette
    spot = Spot(0.0, 0.0, 90.0 if upright else 0.0)
    shapes: list[Shape] = tile_shapes(spot, tile.low, tile.high, fill=c.taken if taken else c.ivory,
                                      edge=c.closed if taken else c.edge, opacity=0.6 if taken else 1.0, ink=c.ink)
    if taken:
        (ax, ay), _, (bx, by), _ = spot.corners()
        shapes.append(Segment(ax, ay, bx, by, c.flag, 0.07))
    if zero_zero is not None and tile.low == 0 and tile.high == 0:
        # on the tile: the light badge's own dark words, whatever the palette
        shapes.append(Poly(rounded(Spot(0.0, 0.0, 0.0, 0.86, 0.46), 0.1), c.badge, HUB, 0.04))
        shapes.append(Label(0.0, 0.15, str(zero_zero), 0.38, TEXT, bold=True))
    m = 0.08
    x0, y0, x1, y1 = spot.box()
    return Scene((x0 - m, y0 - m, x1 + m, y1 + m), shapes, c.background)
