"""Domino faces as buttons: wherever a tile is chosen (the round's tile picker, the photo
review's corrections, the dispute checker), a tile is its face with pips, drawn by
:func:`chickenfoot.board.face_png`, with its numbers ("3-4") under it: on a small face 8 pips
and 9 look alike, and the numbers settle it without counting.

The PNGs are drawn once per (tile, 0-0 value, taken) and kept; each button is named by its
tile ("3-4", "0-0 = 50") for screen readers and tests, and says who holds a taken tile
("3-4, taken: Ann has it").
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import flet as ft

from chickenfoot.app.kit import image
from chickenfoot.app.views import bind
from chickenfoot.board import LIGHT, Palette, face_png
from chickenfoot.rules import Tile
from chickenfoot.rules.words import article

if TYPE_CHECKING:
    from chickenfoot.app.shell import App

#: A face's width on screen (logical pixels, before the large-text scale); the button around it
#: adds 4 px on each side and the numbers under it, so the smallest tap target is 52 x 111 (five
#: to a row at 360 px).
FACE_WIDTH = 44.0
#: The size of the numbers under a face (before the large-text scale).
NUMBERS_SIZE = 13.0
#: A sliding row's scrollbar (thickness in logical pixels) and the room under its controls that
#: keeps it off their labels.
SCROLLBAR = 4.0
SCROLLBAR_ROOM = 6.0
#: Pixels per board unit of the PNG: twice what is shown, so phones' dense screens stay sharp.
_PNG_SCALE = 96.0
#: A face's height over its width (a face scene: 1 x 2 units and its margin).
FACE_ASPECT = (2 + 2 * 0.08) / (1 + 2 * 0.08)


@lru_cache(maxsize=2048)
def _png(tile: str, zero_zero: int | None, taken: bool, palette: Palette) -> bytes:
    return face_png(tile, zero_zero=zero_zero, taken=taken, scale=_PNG_SCALE, palette=palette)


def face_bytes(tile: Tile, zero_zero: int | None = None, taken: bool = False, palette: Palette = LIGHT) -> bytes:
    """PNG of ``tile``'s face (kept after the first drawing); ``zero_zero`` is shown on the 0-0."""
    zz = zero_zero if tile.low == 0 and tile.high == 0 else None
    return _png(str(tile), zz, taken, palette)


def face_button(app: App, tile: Tile, label: str, on_click: Callable[[Any], Any], *,
                zero_zero: int | None = None, taken: bool = False, chosen: bool = False,
                width: float | None = None, disabled: bool = False) -> ft.Control:
    """A tappable face: filled round it when ``chosen``, greyed and crossed out when ``taken``.
    ``label`` names the button itself: the numbers under the face carry it, merged into the
    button's own node (the picture is left out of the accessibility tree, where it would be a
    node of its own inside a nameless button). ``width``: the face's width (default
    :data:`FACE_WIDTH` at the text scale)."""
    w = width or app.fs(FACE_WIDTH)
    img = image(face_bytes(tile, zero_zero, taken, app.board_palette), width=w, height=round(w * FACE_ASPECT, 1),
                   fit=ft.BoxFit.CONTAIN, exclude_from_semantics=True)
    numbers = ft.Text(str(tile), size=app.fs(NUMBERS_SIZE), weight=ft.FontWeight.BOLD, no_wrap=True,
                      semantics_label=label, color=ft.Colors.OUTLINE if taken else None,
                      text_align=ft.TextAlign.CENTER)
    cls = ft.FilledButton if chosen else ft.OutlinedButton
    return cls(content=ft.Column([img, numbers], spacing=0, tight=True,
                                 horizontal_alignment=ft.CrossAxisAlignment.CENTER),
               on_click=app.guarded(on_click), disabled=disabled,
               style=ft.ButtonStyle(padding=ft.Padding.all(4),
                                    shape=ft.RoundedRectangleBorder(radius=10)))


def face_row(controls: list[ft.Control]) -> ft.Control:
    return ft.Row(controls, wrap=True, spacing=6, run_spacing=6)


def suit_row(app: App, top: int, shown: int | None, pick: Callable[[int], Any], *,
             scroll: bool = False) -> tuple[int, ft.Control]:
    """The suit shown (``shown``, the highest when none is) and the row of suit buttons (0 to
    ``top``) whose tap calls ``pick(suit)``, which keeps it in the screen's state and redraws.
    ``scroll``: one line that slides sideways (a sheet of fixed height), else wrapped."""
    suits = list(range(top, -1, -1))
    suit = shown if shown in suits else suits[0]

    def button(v: int) -> ft.Control:
        what = f"Tiles with {article(v)} {v}"
        return ft.Container(app.button(str(v), bind(pick, v), kind="filled" if v == suit else "outlined",
                                       tooltip=what, name=what + (", shown" if v == suit else "")),
                            width=max(52, app.fs(52)))

    buttons = [button(v) for v in suits]
    if scroll:
        return suit, sliding_row(app, buttons, max(52, app.fs(52)))
    return suit, ft.Row(buttons, wrap=True, spacing=4, run_spacing=4)


def sliding_row(app: App, controls: list[ft.Control], width: float, gap: float = 4.0,
                room: float | None = None) -> ft.Control:
    """``controls`` (each at least ``width`` wide) on one line that slides sideways, widened so
    that the line ``room`` wide (default: the screen less its padding) shows only whole ones at
    rest: a control cut at the edge would be a target too narrow for a thumb."""
    room = room or float(app.page.width or 360) - 28
    n = max(1, int((room + gap) // (width + gap)))
    each = (room - gap * (n - 1)) / n
    # The scrollbar, always shown (the line goes on past the screen's edge), is drawn over the
    # row's bottom edge: thin, and with room under the controls, it stays off their labels.
    return ft.Row([ft.Container(c, width=each, padding=ft.Padding.only(bottom=SCROLLBAR_ROOM)) for c in controls],
                  spacing=gap, scroll=ft.Scrollbar(thumb_visibility=True, thickness=SCROLLBAR))
