"""The table, drawn: a hub-and-spoke board of domino faces, and single domino faces.

Pure code over the rules core, shared by the app and the command line (it imports the rules
core and Pillow, never the app or the CLI):

* :func:`from_report` / :func:`from_layout` / :func:`from_round` lay a table out
  (:class:`Board`: every tile's place, a mark on every open end, a judged play in place);
* :func:`picture` turns a board into a :class:`Picture`: SVG text, PNG bytes, and the mapping
  from a tap on the image to the open end under it (:meth:`Picture.end_at`);
* :func:`face_svg` / :func:`face_png` draw one domino (the tile picker's), the 0-0 marked with
  its value under the rules;
* :func:`save` writes a board as ``.svg`` or ``.png`` by the file's extension.

    report = check_layout(Layout.load("table.json"))
    pic = picture(from_report(report, play=("4-7", "9-4")))
    pic.png(); pic.svg(); pic.end_at(120, 80)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from chickenfoot.rules.errors import InputError
from chickenfoot.rules.layout import Layout, Report, check_layout
from chickenfoot.rules.ruleset import RuleSet
from chickenfoot.rules.tiles import Tile

from .geometry import Board, EndMark, Ghost, Piece, Spot, layout_table
from .scene import DARK, LIGHT, Palette, Scene, board_scene, face_scene
from .svg import to_svg

if TYPE_CHECKING:
    from chickenfoot.rules.engine import RoundState

#: Pixels per board unit (a tile is 2 x 1 units) unless a caller asks otherwise.
SCALE = 40.0
FORMATS = (".svg", ".png")


class DrawingError(InputError):
    """A drawing that cannot be written where it was asked for (wrong extension, no folder)."""


def from_report(report: Report, play: tuple[Tile | str, Tile | str] | None = None) -> Board:
    """The table a :func:`~chickenfoot.rules.layout.check_layout` report rebuilt: tiles where a
    rule is broken are flagged, tiles that could not be placed are listed as loose, and
    ``play`` (tile, on) is judged and drawn in place."""
    table = report.table
    flagged = {p.tile for p in report.problems if p.tile is not None}
    loose = [p.tile for p in report.layout.plays if p.tile not in table]
    verdict = None if play is None else report.judge(*play)
    return layout_table(table, flagged=flagged, loose=loose, play=verdict)


def from_layout(layout: Layout, rules: RuleSet | str | None = None,
                play: tuple[Tile | str, Tile | str] | None = None) -> Board:
    return from_report(check_layout(layout, rules), play)


def from_round(state: RoundState) -> Board:
    """The table of a round in progress (practice): its open ends marked, playable or not."""
    return layout_table(state.table)


@dataclass(frozen=True)
class Picture:
    """A board ready to show: ``scale`` pixels per board unit."""

    board: Board | None
    scene: Scene
    scale: float = SCALE

    @property
    def size(self) -> tuple[int, int]:
        """Width and height in pixels."""
        return round(self.scene.width * self.scale), round(self.scene.height * self.scale)

    def svg(self) -> str:
        return to_svg(self.scene, self.scale)

    def png(self) -> bytes:
        from .png import to_png  # Pillow only when a PNG is asked for

        return to_png(self.scene, self.scale)

    def to_board(self, px: float, py: float) -> tuple[float, float]:
        """A point of the image (pixels from its top left) in board units."""
        return self.scene.box[0] + px / self.scale, self.scene.box[1] + py / self.scale

    def to_pixels(self, x: float, y: float) -> tuple[float, float]:
        return (x - self.scene.box[0]) * self.scale, (y - self.scene.box[1]) * self.scale

    def end_at(self, px: float, py: float, reach_px: float = 14.0) -> EndMark | None:
        """The open end under a tap at image pixel ``(px, py)`` (or within ``reach_px``)."""
        if self.board is None:
            return None
        return self.board.end_at(*self.to_board(px, py), reach=reach_px / self.scale)


def picture(board: Board, scale: float = SCALE, palette: Palette = LIGHT, caption: bool = True) -> Picture:
    return Picture(board, board_scene(board, palette=palette, caption=caption), scale)


def face_svg(tile: Tile | str, *, zero_zero: int | None = None, taken: bool = False,
             scale: float = 48.0, palette: Palette = LIGHT) -> str:
    """One domino face, low half on top, as SVG (``zero_zero``: the 0-0's value under the rules,
    shown on it; ``taken``: greyed and crossed out)."""
    return to_svg(face_scene(Tile.parse(tile), zero_zero=zero_zero, taken=taken, palette=palette), scale)


def face_png(tile: Tile | str, *, zero_zero: int | None = None, taken: bool = False,
             scale: float = 48.0, palette: Palette = LIGHT) -> bytes:
    from .png import to_png

    return to_png(face_scene(Tile.parse(tile), zero_zero=zero_zero, taken=taken, palette=palette), scale)


def check_output(path: str | Path) -> Path:
    """The output path if a drawing can be written there, else :class:`DrawingError`: call it
    before any work, so bad input leaves nothing behind."""
    p = Path(path)
    if p.suffix.lower() not in FORMATS:
        raise DrawingError(f"{str(p)!r}: a drawing is written as .svg or .png (by the file's extension)")
    if p.is_dir():
        raise DrawingError(f"{str(p)!r} is a folder, not a file name")
    folder = p.parent if str(p.parent) else Path(".")
    if not folder.is_dir():
        raise DrawingError(f"cannot write {str(p)!r}: the folder {str(folder)!r} does not exist")
    return p


def save(board: Board, path: str | Path, scale: float = SCALE) -> Path:
    """Write ``board`` as SVG or PNG (by extension), atomically: a temporary file next to it
    replaces it only once complete."""
    p = check_output(path)
    pic = picture(board, scale)
    data = pic.svg().encode("utf-8") if p.suffix.lower() == ".svg" else pic.png()
    tmp = p.with_name(f".{p.name}.tmp")
    try:
        tmp.write_bytes(data)
        tmp.replace(p)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise DrawingError(f"cannot write {str(p)!r}: {exc.strerror or exc}") from None
    return p


__all__ = [
    "DARK",
    "FORMATS",
    "LIGHT",
    "SCALE",
    "Board",
    "DrawingError",
    "EndMark",
    "Ghost",
    "Palette",
    "Picture",
    "Piece",
    "Spot",
    "check_output",
    "face_png",
    "face_svg",
    "from_layout",
    "from_report",
    "from_round",
    "layout_table",
    "picture",
    "save",
]
