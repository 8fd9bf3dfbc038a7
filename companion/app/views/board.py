"""The table drawn as a board: one control the dispute checker and the practice screen share.

The drawing is a PNG of :mod:`chickenfoot.board` shown at the width the screen has (never wider
than drawn), inside an :class:`ft.InteractiveViewer` for pinch/wheel zoom and pan, with zoom
buttons for a mouse or a screen reader. A tap on the drawing is handed back in the drawing's own
pixels (the viewer's zoom and the shrinking to fit already undone), so the caller asks
:meth:`chickenfoot.board.Picture.end_at` which open end is there. The drawing carries the table in
words as its semantics label: a screen reader reads the layout, not "image".
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import flet as ft

from chickenfoot.app.kit import image

if TYPE_CHECKING:
    from chickenfoot.app.shell import App
    from chickenfoot.board import Picture
    from chickenfoot.rules.tiles import Tile

log = logging.getLogger(__name__)

#: The smallest writing on a board (a verdict, the tray of loose tiles), in board units, and how
#: many screen pixels it needs to be read: a board is never shown smaller than that.
SMALLEST_TEXT_UNITS = 0.5
READABLE_PX = 12.0
#: Seconds between drawing the board and moving its view onto the play (the browser lays it
#: out first).
CENTRE_DELAY_S = 0.15
#: Tallest the board is shown before zooming (pixels).
MAX_HEIGHT = 520
#: The board's window is never shorter than this (pixels), whatever a screen fixes under it.
MIN_BOARD_HEIGHT = 200.0
#: Height of the app bar and of the page's padding above the board (pixels), and of the zoom
#: buttons under it: with what a screen fixes at its bottom, what the board's window leaves.
_APP_BAR = 56.0
_ABOVE_BOARD = 14.0
_ZOOM_ROW = 52.0
#: The note beside a chosen open end (width, height in pixels).
SELECTED_NOTE_SIZE = (112.0, 24.0)
#: How far a tap may miss an open end, in screen pixels: a 44 px target around each one (the
#: nearest end within reach is chosen).
TAP_REACH = 22.0


def end_label(e: Any) -> str:
    """An open end's chip: "9 on 9-9, 5 spokes to go" (the same words the board's hint uses)."""
    from chickenfoot.rules.words import open_end

    return open_end(e.value, e.label or str(e.target), e.slots, e.kind, e.playable)


def fit(pic: Picture, width: float, max_height: float = MAX_HEIGHT) -> float:
    """The factor the drawing is shown at in ``width`` pixels: never enlarged, never taller
    than ``max_height``."""
    pw, ph = pic.size
    return min(1.0, width / max(pw, 1), max_height / max(ph, 1))


@dataclass(frozen=True)
class Framing:
    """How a board is shown: the drawing at ``k`` screen pixels per drawing pixel, in a window
    ``width`` x ``height`` on the screen whose top-left corner shows the drawing's point
    (``x``, ``y``) (screen pixels from the drawing's corner; 0, 0 when the whole drawing fits)."""

    k: float
    width: int
    height: int
    x: float
    y: float
    #: The factor that would show the whole drawing (zooming out goes down to it).
    whole: float

    @property
    def panned(self) -> bool:
        return self.k > self.whole + 1e-9


def framing(pic: Picture, width: float, max_height: float = MAX_HEIGHT,
            focus: tuple[float, float] | None = None) -> Framing:
    """Fit the drawing into ``width`` x ``max_height``, but never so small that its writing is
    under :data:`READABLE_PX`: a big table on a phone is shown readable, in a window centred on
    ``focus`` (a point in the drawing's pixels: the play; default its middle)."""
    whole = fit(pic, width, max_height)
    k = max(whole, min(1.0, READABLE_PX / (SMALLEST_TEXT_UNITS * pic.scale)))
    pw, ph = pic.size
    dw, dh = pw * k, ph * k
    vw, vh = min(width, dw), min(max_height, dh)
    fx, fy = (dw / 2, dh / 2) if focus is None else (focus[0] * k, focus[1] * k)
    x = min(max(fx - vw / 2, 0.0), dw - vw)
    y = min(max(fy - vh / 2, 0.0), dh - vh)
    return Framing(k, round(vw), round(vh), round(x, 1), round(y, 1), whole)


def zoomed(f: Framing, size: tuple[float, float], focus: tuple[float, float] | None, z: float) -> Framing:
    """``f`` zoomed ``z`` times (1: as first shown) about the play at ``focus`` (the drawing's
    pixels; default its middle): the play in the middle of the window unless the drawing's edge
    is nearer; a drawing smaller than the window sits in its middle (``x``, ``y`` negative)."""
    pw, ph = size
    dw, dh = round(pw * f.k) * z, round(ph * f.k) * z
    fx, fy = focus or (pw / 2, ph / 2)
    x = fx * f.k * z - f.width / 2
    y = fy * f.k * z - f.height / 2
    x = min(max(x, 0.0), dw - f.width) if dw > f.width else (dw - f.width) / 2
    y = min(max(y, 0.0), dh - f.height) if dh > f.height else (dh - f.height) / 2
    return Framing(f.k * z, f.width, f.height, x, y, f.whole)


def whole_margin(f: Framing, shown: tuple[float, float]) -> tuple[float, float]:
    """The room (horizontal, vertical; the drawing's pixels as first shown, ``shown`` its size
    then) the viewer needs round the drawing so that zooming out to :attr:`Framing.whole` shows
    all of it. The viewer keeps its window inside the drawing and that room: with none, a
    drawing of another shape than its window stops shrinking once it spans the window's
    shorter side, and the rest of it stays cut off."""
    z = f.whole / f.k
    dw, dh = shown
    return max(0.0, (f.width / z - dw) / 2), max(0.0, (f.height / z - dh) / 2)


def focus_of(pic: Picture, selected: Tile | None = None) -> tuple[float, float] | None:
    """Where the play is on the drawing (its pixels): the open end chosen, else the question
    drawn in place, else the double every play must go on (an open foot), else the hub."""
    board = pic.board
    if board is None:
        return None
    spot = None
    if selected is not None:
        spot = next((m.spot for m in board.ends if m.end.target == selected), None)
    if spot is None and board.ghost is not None:
        spot = board.ghost.spot
    if spot is None:
        confined = [m for m in board.ends if m.end.playable]
        if confined and len(confined) < len(board.ends) and len({m.end.target for m in confined}) == 1:
            xs, ys = zip(*((m.spot.x, m.spot.y) for m in confined), strict=True)
            return pic.to_pixels(sum(xs) / len(xs), sum(ys) / len(ys))
    if spot is None:
        hub = board.piece(board.hub)
        spot = hub.spot if hub is not None else None
    return None if spot is None else pic.to_pixels(spot.x, spot.y)


def fitted_height(page_height: float, fixed: float, most: float = MAX_HEIGHT) -> float:
    """The tallest board window that leaves the app bar, the zoom buttons and the part a screen
    fixes at its bottom (``fixed`` pixels) on a page ``page_height`` tall, from
    :data:`MIN_BOARD_HEIGHT` to ``most``."""
    room = page_height - _APP_BAR - _ABOVE_BOARD - _ZOOM_ROW - fixed
    return max(MIN_BOARD_HEIGHT, min(most, room))


def available_width(app: App) -> float:
    """The width a full-width control has on this screen (the page less its padding)."""
    return max(240.0, min(float(app.page.width or 400) - 28, 1100.0))


def board_view(app: App, pic: Picture, png: bytes, *, label: str,
               on_tap: Callable[[float, float, float], Any] | None = None,
               selected: Tile | None = None, width: float | None = None,
               max_height: float = MAX_HEIGHT, selected_note: str = "", whole: bool = False) -> ft.Control:
    """The board ``pic`` (its PNG ``png``), fitted into ``width`` (default: the screen's).

    ``on_tap(px, py, reach_px)`` gets a tap in the drawing's pixels; ``selected``: the open end
    (its tile) to ring on the drawing, with ``selected_note`` beside the ring (what to do next);
    ``whole``: shown whole at first (a round over: no play to centre on)."""
    f = framing(pic, width or available_width(app), max_height, focus_of(pic, selected))
    k = f.k
    pw, ph = pic.size
    dw, dh = round(pw * k), round(ph * k)
    layers: list[ft.Control] = [image(png, width=dw, height=dh, fit=ft.BoxFit.FILL,
                                         gapless_playback=True)]
    if selected is not None and pic.board is not None:
        r = max(16.0, 0.75 * pic.scale * k)
        rings = [(x * k, y * k) for m in pic.board.ends if m.end.target == selected
                 for x, y in [pic.to_pixels(m.spot.x, m.spot.y)]]
        for cx, cy in rings:
            layers.append(ft.Container(left=cx - r, top=cy - r, width=2 * r, height=2 * r,
                                       shape=ft.BoxShape.CIRCLE, bgcolor=ft.Colors.with_opacity(0.22, ft.Colors.PRIMARY),
                                       border=ft.Border.all(4, ft.Colors.PRIMARY)))
        if selected_note and rings:
            # Said once, where the finger is: the end is chosen, and what comes next. A double
            # has a ring on each free place; the note goes over the highest (under the lowest
            # where the top of the drawing leaves no room), not over each, where the notes
            # would cover one another and the double.
            w, h = SELECTED_NOTE_SIZE
            cx, cy = min(rings, key=lambda p: p[1])
            top = cy - r - h - 4
            if top < 0:
                cx, cy = max(rings, key=lambda p: p[1])
                top = cy + r + 4
            layers.append(ft.Container(
                ft.Text(selected_note, size=13, color=ft.Colors.ON_PRIMARY, weight=ft.FontWeight.BOLD,
                        no_wrap=True),
                left=min(max(cx - w / 2, 0.0), max(dw - w, 0.0)), top=min(max(top, 0.0), max(dh - h, 0.0)),
                width=w, height=h, bgcolor=ft.Colors.PRIMARY, border_radius=h / 2,
                alignment=ft.Alignment.CENTER))
    content: ft.Control = ft.Stack(layers, width=dw, height=dh)
    if on_tap is not None:
        def tapped(e: Any) -> None:
            pos = e.local_position
            if pos is None:
                return
            on_tap(pos.x / k, pos.y / k, max(TAP_REACH, TAP_REACH / k))

        # On the tap's release, not its press: a finger that starts a pan or a pinch on an open
        # end must not play a tile there.
        content = ft.GestureDetector(content=content, on_tap_up=app.guarded(tapped),
                                     mouse_cursor=ft.MouseCursor.CLICK, exclude_from_semantics=True)
    # A drawing bigger than its window (readable on a phone) pans; zooming out shows it whole.
    mx, my = whole_margin(f, (dw, dh))
    viewer = ft.InteractiveViewer(content=content, min_scale=f.whole / k, max_scale=8.0, width=f.width,
                                  height=f.height, constrained=not f.panned,
                                  boundary_margin=ft.Margin.symmetric(horizontal=mx, vertical=my),
                                  clip_behavior=ft.ClipBehavior.HARD_EDGE)
    zoom = {"z": 1.0}

    async def show(z: float) -> None:
        """Zoom ``z`` times the drawing as shown first, the play in the middle of the window."""
        zoom["z"] = z
        at = zoomed(f, pic.size, focus_of(pic, selected), z)
        x, y = at.x, at.y
        await viewer.reset()
        if z != 1.0:
            await viewer.zoom(z)
        if x or y:
            await viewer.pan(-x / z, -y / z)

    async def moved(change: Callable[[], Awaitable[None]]) -> None:
        try:
            await change()
        except RuntimeError:
            # a button of a drawing the page no longer holds (a page reloaded before it was
            # drawn again): draw the screen anew, whose buttons move its own board
            log.debug("zoomed a board no longer on the page", exc_info=True)
            app.render()

    async def zoom_in(_: Any) -> None:
        await moved(lambda: show(min(zoom["z"] * 1.6, 8.0)))

    async def zoom_out(_: Any) -> None:
        await moved(lambda: show(max(zoom["z"] / 1.6, f.whole / k)))

    async def whole_board() -> None:
        zoom["z"] = 1.0
        await viewer.reset()
        if f.panned:
            await show(f.whole / k)

    async def reset(_: Any) -> None:
        await moved(whole_board)

    if f.panned:
        async def centre() -> None:
            await asyncio.sleep(CENTRE_DELAY_S)
            try:
                await (whole_board() if whole else show(1.0))
            except Exception:  # redrawn meanwhile, or not in a browser: nothing to move
                log.debug("board not centred", exc_info=True)
        app.page.run_task(centre)

    def zoom_button(icon: Any, name: str, fn: Callable[..., Any]) -> ft.Control:
        return ft.IconButton(ft.Icon(icon, semantics_label=name), tooltip=name, on_click=app.aguarded(fn),
                             width=48, height=48)

    tools = ft.Row([zoom_button(ft.Icons.ZOOM_IN, "Zoom in on the board", zoom_in),
                    zoom_button(ft.Icons.ZOOM_OUT, "Zoom out", zoom_out),
                    zoom_button(ft.Icons.FIT_SCREEN, "Show the whole board", reset)], spacing=0)
    framed = ft.Container(viewer, border=ft.Border.all(1, ft.Colors.OUTLINE_VARIANT), border_radius=8,
                          bgcolor="#f3efe6", width=f.width + 2, height=f.height + 2)
    return ft.Column([ft.Semantics(label=label, image=True, content=framed), tools], spacing=2,
                     horizontal_alignment=ft.CrossAxisAlignment.START)
