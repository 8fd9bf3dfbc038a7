"""Domino faces as buttons: wherever a tile is chosen (the round's tile picker, the photo
review's corrections, the dispute checker), a tile is its face with pips, drawn by
:func:`chickenfoot.board.face_png`, not a "3-4" label.

The PNGs are drawn once per (tile, 0-0 value, taken) and kept; each button is named by its
tile ("3-4", "0-0 = 50") for screen readers and tests, and says who holds a taken tile
("3-4, taken: Ann has it").
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import flet as ft

from chickenfoot.app.views import bind
from chickenfoot.board import face_png
from chickenfoot.rules import Tile

if TYPE_CHECKING:
    from chickenfoot.app.shell import App

#: A face's width on screen (logical pixels, before the large-text scale); the button around it
#: adds 4 px on each side, so the smallest tap target is 52 x 95 (five to a row at 360 px).
FACE_WIDTH = 44.0
#: Pixels per board unit of the PNG: twice what is shown, so phones' dense screens stay sharp.
_PNG_SCALE = 96.0
_ASPECT = (2 + 2 * 0.08) / (1 + 2 * 0.08)  # a face scene: 1 x 2 units and its margin


@lru_cache(maxsize=2048)
def _png(tile: str, zero_zero: int | None, taken: bool) -> bytes:
    return face_png(tile, zero_zero=zero_zero, taken=taken, scale=_PNG_SCALE)


def face_bytes(tile: Tile, zero_zero: int | None = None, taken: bool = False) -> bytes:
    """PNG of ``tile``'s face (kept after the first drawing); ``zero_zero`` is shown on the 0-0."""
    zz = zero_zero if tile.low == 0 and tile.high == 0 else None
    return _png(str(tile), zz, taken)


def face_button(app: App, tile: Tile, label: str, on_click: Callable[[Any], Any], *,
                zero_zero: int | None = None, taken: bool = False, chosen: bool = False) -> ft.Control:
    """A tappable face: filled round it when ``chosen``, greyed and crossed out when ``taken``.
    ``label`` names the button itself: an empty text carrying it merges into the button's own
    node, as a caption would (the picture is left out of the accessibility tree, where it would
    be a node of its own inside a nameless button)."""
    w = app.fs(FACE_WIDTH)
    img = ft.Image(src=face_bytes(tile, zero_zero, taken), width=w, height=round(w * _ASPECT, 1),
                   fit=ft.BoxFit.CONTAIN, exclude_from_semantics=True)
    name = ft.Text("", size=1, semantics_label=label)
    cls = ft.FilledButton if chosen else ft.OutlinedButton
    return cls(content=ft.Stack([img, name]), on_click=app.guarded(on_click),
               style=ft.ButtonStyle(padding=ft.Padding.all(4),
                                    shape=ft.RoundedRectangleBorder(radius=10)))


def face_row(controls: list[ft.Control]) -> ft.Control:
    return ft.Row(controls, wrap=True, spacing=6, run_spacing=6)


def suit_row(app: App, top: int, shown: int | None, pick: Callable[[int], Any]) -> tuple[int, ft.Control]:
    """The suit shown (``shown``, the highest when none is) and the row of suit buttons (0 to
    ``top``) whose tap calls ``pick(suit)``, which keeps it in the screen's state and redraws."""
    suits = list(range(top, -1, -1))
    suit = shown if shown in suits else suits[0]
    return suit, ft.Row([
        ft.Container(app.button(str(v), bind(pick, v), kind="filled" if v == suit else "outlined",
                                tooltip=f"Tiles with a {v}"), width=max(52, app.fs(52)))
        for v in suits], wrap=True, spacing=4, run_spacing=4)
