"""The table drawn as a board: one control the dispute checker and the practice screen share.

The drawing is a PNG of :mod:`companion.board` shown at the width the screen has (never wider
than drawn), inside an :class:`ft.InteractiveViewer` for pinch/wheel zoom and pan, with zoom
buttons for a mouse or a screen reader. A tap on the drawing is handed back in the drawing's own
pixels (the viewer's zoom and the shrinking to fit already undone), so the caller asks
:meth:`companion.board.Picture.end_at` which open end is there. The drawing carries the table in
words as its semantics label: a screen reader reads the layout, not "image".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import flet as ft

if TYPE_CHECKING:
    from companion.app.shell import App
    from companion.board import Picture
    from companion.rules.tiles import Tile

#: Tallest the board is shown before zooming (pixels).
MAX_HEIGHT = 520
#: How far a tap may miss an open end, in screen pixels: a 44 px target around each one (the
#: nearest end within reach is chosen).
TAP_REACH = 22.0


def end_label(e: Any) -> str:
    """An open end's chip: "9 on 9-9, 5 spokes to go" (the same words the board's hint uses)."""
    from companion.rules.words import open_end

    return open_end(e.value, e.label or str(e.target), e.slots, e.kind, e.playable)


def fit(pic: Picture, width: float, max_height: float = MAX_HEIGHT) -> float:
    """The factor the drawing is shown at in ``width`` pixels: never enlarged, never taller
    than ``max_height``."""
    pw, ph = pic.size
    return min(1.0, width / max(pw, 1), max_height / max(ph, 1))


def available_width(app: App) -> float:
    """The width a full-width control has on this screen (the page less its padding)."""
    return max(240.0, min(float(app.page.width or 400) - 28, 1100.0))


def board_view(app: App, pic: Picture, png: bytes, *, label: str,
               on_tap: Callable[[float, float, float], Any] | None = None,
               selected: Tile | None = None, width: float | None = None,
               max_height: float = MAX_HEIGHT) -> ft.Control:
    """The board ``pic`` (its PNG ``png``), fitted into ``width`` (default: the screen's).

    ``on_tap(px, py, reach_px)`` gets a tap in the drawing's pixels; ``selected``: the open end
    (its tile) to ring on the drawing."""
    k = fit(pic, width or available_width(app), max_height)
    pw, ph = pic.size
    dw, dh = round(pw * k), round(ph * k)
    layers: list[ft.Control] = [ft.Image(src=png, width=dw, height=dh, fit=ft.BoxFit.FILL,
                                         gapless_playback=True)]
    if selected is not None and pic.board is not None:
        for m in pic.board.ends:
            if m.end.target != selected:
                continue
            cx, cy = pic.to_pixels(m.spot.x, m.spot.y)
            r = max(16.0, 0.75 * pic.scale * k)
            layers.append(ft.Container(left=cx * k - r, top=cy * k - r, width=2 * r, height=2 * r,
                                       shape=ft.BoxShape.CIRCLE,
                                       border=ft.Border.all(4, ft.Colors.PRIMARY)))
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
    viewer = ft.InteractiveViewer(content=content, min_scale=1.0, max_scale=8.0, width=dw, height=dh,
                                  boundary_margin=ft.Margin.all(0), clip_behavior=ft.ClipBehavior.HARD_EDGE)

    async def zoom_in(_: Any) -> None:
        await viewer.zoom(1.6)

    async def zoom_out(_: Any) -> None:
        await viewer.zoom(1 / 1.6)

    async def reset(_: Any) -> None:
        await viewer.reset()

    def zoom_button(icon: Any, name: str, fn: Callable[..., Any]) -> ft.Control:
        return ft.IconButton(ft.Icon(icon, semantics_label=name), tooltip=name, on_click=app.aguarded(fn),
                             width=48, height=48)

    tools = ft.Row([zoom_button(ft.Icons.ZOOM_IN, "Zoom in on the board", zoom_in),
                    zoom_button(ft.Icons.ZOOM_OUT, "Zoom out", zoom_out),
                    zoom_button(ft.Icons.FIT_SCREEN, "Show the whole board", reset)], spacing=0)
    framed = ft.Container(viewer, border=ft.Border.all(1, ft.Colors.OUTLINE_VARIANT), border_radius=8,
                          bgcolor="#f3efe6", width=dw + 2, height=dh + 2)
    return ft.Column([ft.Semantics(label=label, image=True, content=framed), tools], spacing=2,
                     horizontal_alignment=ft.CrossAxisAlignment.START)
