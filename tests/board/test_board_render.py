"""SVG and PNG of boards and single domino faces, and writing a drawing to a file."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PIL import Image

from chickenfoot.board import DrawingError, check_output, face_png, face_svg, from_layout, picture, save
from chickenfoot.rules import Layout, Tile

SVG = "{http://www.w3.org/2000/svg}"
SPOKES = [(f"9-{i}", "9-9") for i in range(6)]


def dispute() -> Layout:
    return Layout.build("9-9", [*SPOKES, ("4-4", "9-4"), ("4-2", "4-4")])


def test_svg_has_every_tile_pip_mark_and_the_reason():
    board = from_layout(dispute(), play=("0-6", "9-0"))
    svg = picture(board).svg()
    root = ET.fromstring(svg)
    circles = root.findall(f"{SVG}circle")
    pips = sum(p.near + p.far for p in board.pieces) + board.ghost.near + board.ghost.far
    assert len(circles) == pips
    texts = " ".join(t.text or "" for t in root.iter(f"{SVG}text"))
    assert "0-6 on 9-0: not legal." in texts  # the tile as it would lie: its 0 against the 9-0
    assert "still" in texts and "toes" in texts  # the rules core's sentence, wrapped
    assert [t.text for t in root.iter(f"{SVG}text") if t.get("fill") == "#1f6fb4"] == ["4", "4"]  # the open foot


def test_png_is_the_picture_size_and_draws_the_legal_play_green():
    board = from_layout(dispute(), play=("4-7", "4-4"))
    pic = picture(board, scale=30)
    img = Image.open(io.BytesIO(pic.png()))
    assert img.format == "PNG" and img.size == pic.size
    rgb = img.convert("RGB")
    spot = board.ghost.spot
    inside = [rgb.getpixel(tuple(round(v) for v in pic.to_pixels(*spot.point(a / 10, b / 10))))
              for a in range(-8, 9, 2) for b in range(-3, 4)]
    green = [c for c in inside if c[1] > c[0] + 20 and c[1] > c[2] + 20]
    assert len(green) > len(inside) / 2  # green: legal


def test_loose_tiles_are_listed_under_the_table():
    lay = Layout.build("9-9", [("9-4", "9-9"), ("3-5", "5-5")], rules="pagat", ordered=False)
    board = from_layout(lay)
    assert board.loose == (Tile(3, 5),)
    texts = [t.text for t in ET.fromstring(picture(board).svg()).iter(f"{SVG}text")]
    assert "Not on the table:" in texts


@pytest.mark.parametrize("value", range(19))
def test_face_shows_every_value_with_its_pips(value: int):
    tile = Tile(0, value)
    circles = ET.fromstring(face_svg(tile)).findall(f"{SVG}circle")
    assert len(circles) == value
    img = Image.open(io.BytesIO(face_png(tile, scale=30)))
    assert img.size[1] > img.size[0]  # upright


@pytest.mark.parametrize("worth", [50, 25, 0])
def test_double_blank_face_carries_its_value(worth: int):
    texts = [t.text for t in ET.fromstring(face_svg("0-0", zero_zero=worth)).iter(f"{SVG}text")]
    assert texts == [str(worth)]
    assert not list(ET.fromstring(face_svg("0-0")).iter(f"{SVG}text"))
    assert not list(ET.fromstring(face_svg("0-3", zero_zero=worth)).iter(f"{SVG}text"))


def test_taken_face_is_crossed_out():
    plain = ET.fromstring(face_svg("3-4")).findall(f"{SVG}line")
    taken = ET.fromstring(face_svg("3-4", taken=True)).findall(f"{SVG}line")
    assert len(taken) == len(plain) + 1


@pytest.mark.parametrize("name", ["board.svg", "board.PNG"])
def test_save_by_extension(tmp_path: Path, name: str):
    out = save(from_layout(dispute()), tmp_path / name)
    data = out.read_bytes()
    assert data.startswith(b"<svg") if name.endswith(".svg") else data.startswith(b"\x89PNG")
    assert [p.name for p in tmp_path.iterdir()] == [name]  # no temporary file left


@pytest.mark.parametrize("name, fragment", [
    ("board.jpg", "written as .svg or .png"),
    ("missing/board.png", "does not exist"),
    (".", "is a folder"),
])
def test_save_refuses_bad_output_and_writes_nothing(tmp_path: Path, name: str, fragment: str):
    target = tmp_path / name if name != "." else tmp_path / "sub.png"
    if name == ".":
        target.mkdir()
    with pytest.raises(DrawingError, match=fragment):
        check_output(target)
    with pytest.raises(DrawingError):
        save(from_layout(dispute()), target)
    assert sorted(p.name for p in tmp_path.iterdir()) == (["sub.png"] if name == "." else [])


@pytest.mark.parametrize("play", [("0-6", "9-0"), ("4-7", "4-4"), ("4-2", "2-4")], ids=["beside", "legal", "nowhere"])
def test_the_verdict_is_written_inside_the_drawing(play):
    """Every line of writing, measured in the font the PNG draws it with, ends inside the
    drawing: a judged play's sentence is wrapped to the table, never cut at the edge."""
    from chickenfoot.board.png import _SUPER, _font
    from chickenfoot.board.scene import Label, board_scene

    board = from_layout(dispute(), play=play)
    scene = board_scene(board)
    k = 40.0 * _SUPER
    labels = [s for s in scene.shapes if isinstance(s, Label)]
    assert any(board.ghost.verdict.message.split()[0] in s.text for s in labels)
    x0, _, x1, _ = board.bounds()
    if board.ghost.spot is not None:  # no wider than the table: a window fitted to it shows it all
        assert scene.box[2] - scene.box[0] == pytest.approx(x1 - x0 + 2 * 0.8)
    for s in labels:
        width = _font(round(s.size * k)).getlength(s.text) / k
        left = s.x - (width / 2 if s.anchor == "middle" else 0)
        assert scene.box[0] <= left and left + width <= scene.box[2], (s.text, left + width, scene.box)
        assert scene.box[1] <= s.y - s.size and s.y <= scene.box[3], (s.text, s.y, scene.box)


@pytest.mark.parametrize("play", [("0-6", "9-0"), ("4-2", "2-4")], ids=["beside", "nowhere"])
def test_without_its_caption_the_play_is_drawn_alone(play):
    """A screen that says the verdict in its own words draws the play without the sentence:
    the same tiles and open ends, no writing of the verdict, and the drawing no taller."""
    from chickenfoot.board.scene import Label, Poly, board_scene

    board = from_layout(dispute(), play=play)
    full, bare = board_scene(board), board_scene(board, caption=False)
    words = board.ghost.verdict.message.split()[0]
    assert not any(words in s.text for s in bare.shapes if isinstance(s, Label))
    assert [s for s in full.shapes if isinstance(s, Poly)] == [s for s in bare.shapes if isinstance(s, Poly)]
    assert bare.box[3] < full.box[3]


def _luminance(colour: str) -> float:
    def channel(v: int) -> float:
        c = v / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (int(colour.lstrip("#")[i:i + 2], 16) for i in (0, 2, 4))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def _contrast(a: str, b: str) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_the_dark_palette_draws_a_dark_table_whose_lines_and_words_read_on_it():
    """Under a dark theme the board is no light panel: a dark table, the tiles ivory as dominoes
    are, and every line or word that lies on the table itself (open ends, joints, the judged
    play's sentence, the tiles not on it) light enough to read there (WCAG contrast 4.5)."""
    from chickenfoot.board import DARK, LIGHT
    from chickenfoot.board.scene import Dot, Label, Poly, Segment, board_scene

    layout = Layout.build("9-9", [*SPOKES, ("4-4", "9-4"), ("4-2", "4-4")])
    board = from_layout(layout, play=("0-6", "9-0"))
    scene = board_scene(board, palette=DARK)
    assert scene.background == DARK.background and _luminance(DARK.background) < 0.02
    on_table = [s.fill for s in scene.shapes if isinstance(s, Label)]
    on_table += [s.stroke for s in scene.shapes if isinstance(s, Segment) and s.dash]
    on_table += [s.stroke for s in scene.shapes if isinstance(s, Poly) and s.dash and s.stroke]
    assert on_table and all(_contrast(c, DARK.background) >= 4.5 for c in on_table), on_table
    tiles = [s for s in scene.shapes if isinstance(s, Poly) and s.fill == DARK.ivory]
    assert len(tiles) == len(board.pieces) and DARK.ivory == LIGHT.ivory
    assert {s.fill for s in scene.shapes if isinstance(s, Dot)} == {DARK.ink}
    # the renderers paint the table's colour
    img = Image.open(io.BytesIO(picture(board, palette=DARK).png())).convert("RGB")
    assert img.getpixel((1, 1)) == tuple(int(DARK.background[i:i + 2], 16) for i in (1, 3, 5))
    assert f'fill="{DARK.background}"' in picture(board, palette=DARK).svg()
    light = Image.open(io.BytesIO(picture(board).png())).convert("RGB")
    assert light.getpixel((1, 1)) == (255, 255, 255)
    face = Image.open(io.BytesIO(face_png("0-0", zero_zero=50, palette=DARK))).convert("RGB")
    assert face.getpixel((0, 0)) == img.getpixel((1, 1))
