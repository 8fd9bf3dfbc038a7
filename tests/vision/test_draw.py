"""Drawing a reading: outlines where the boxes are, review tiles in their own colour, input untouched."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from PIL import Image
from shipped import TEST_DATA, needs_shipped

from chickenfoot.rules import get_rules
from chickenfoot.vision.draw import CANDIDATE_COLOUR, OK_COLOUR, REVIEW_COLOUR, annotate
from chickenfoot.vision.geometry import OrientedBox
from chickenfoot.vision.lab.realdata import realdata_root
from chickenfoot.vision.reader import Reading, TileReading

REAL_CLUTTER = realdata_root() / "JackRoache__METR4202-2016" / "images" / "G-7-C__d99cc628.png"


def _reading(size: tuple[int, int]) -> Reading:
    good = TileReading(3, 4, 0.95, OrientedBox(200, 150, 160, 80, math.radians(20)), False, 0.97,
                       (0.99, 0.99))
    unsure = TileReading(0, 0, 0.31, OrientedBox(600, 420, 160, 80, math.radians(95)), True, 0.33,
                         (0.95, 0.99))
    rules = get_rules()
    return Reading(tiles=(good, unsure), pips=7, penalty=rules.penalty([good.tile, unsure.tile]),
                   warnings=("1 tile read with low confidence: check them",), image_size=size)


def _colour_near(arr: np.ndarray, xy: tuple[float, float], colour: tuple[int, int, int],
                 radius: int = 6) -> bool:
    x, y = round(xy[0]), round(xy[1])
    patch = arr[max(0, y - radius): y + radius + 1, max(0, x - radius): x + radius + 1].astype(int)
    return bool(np.any(np.all(np.abs(patch - np.array(colour)) <= 10, axis=-1)))


def test_outlines_follow_the_boxes_and_review_tiles_stand_out():
    photo = Image.new("RGB", (800, 600), (30, 30, 90))
    reading = _reading(photo.size)
    out = annotate(photo, reading)
    assert out.size == photo.size and out is not photo
    assert photo.getpixel((200, 150)) == (30, 30, 90)  # the input is not drawn on
    arr = np.asarray(out)
    for tile, colour in ((reading.tiles[0], OK_COLOUR), (reading.tiles[1], REVIEW_COLOUR)):
        corners = tile.box.corners()
        for a, b in zip(corners, np.roll(corners, -1, axis=0), strict=True):
            mid = (a + b) / 2  # midpoints of every side carry the outline colour
            assert _colour_near(arr, tuple(mid), colour), (tile, mid)
    # Review tiles get the thicker line: count outline-coloured pixels per unit of perimeter.
    ok_px = np.all(np.abs(arr.astype(int) - OK_COLOUR) <= 10, axis=-1).sum()
    review_px = np.all(np.abs(arr.astype(int) - REVIEW_COLOUR) <= 10, axis=-1).sum()
    assert review_px > ok_px
    # Far from any tile the photo is unchanged.
    assert out.getpixel((780, 20)) == (30, 30, 90)


def test_boxes_scale_to_a_resized_copy_of_the_photo():
    reading = _reading((800, 600))
    small = Image.new("RGB", (400, 300), (30, 30, 90))
    arr = np.asarray(annotate(small, reading))
    corners = reading.tiles[0].box.corners() * 0.5
    mid = (corners[0] + corners[1]) / 2
    assert _colour_near(arr, tuple(mid), OK_COLOUR)


def test_grayscale_and_empty_readings():
    gray = Image.new("L", (120, 90), 128)
    empty = Reading(tiles=(), pips=0, penalty=0, warnings=("no face-up tiles found in the photo",),
                    image_size=(120, 90))
    out = annotate(gray, empty)
    assert out.mode == "RGB" and out.size == (120, 90)
    assert out.getpixel((110, 80)) == (128, 128, 128)


def test_candidates_are_outlined_grey_and_said_not_counted():
    base = _reading((800, 600))
    maybe = TileReading(1, 2, 0.12, OrientedBox(600, 150, 120, 60, 0.0), True, 0.2, (0.8, 0.75), uncounted="unsure")
    reading = Reading(tiles=base.tiles, pips=base.pips, penalty=base.penalty, warnings=(),
                      image_size=(800, 600), candidates=(maybe,))
    arr = np.asarray(annotate(Image.new("RGB", (800, 600), (30, 30, 90)), reading))
    corners = maybe.box.corners()
    for a, b in zip(corners, np.roll(corners, -1, axis=0), strict=True):
        assert _colour_near(arr, tuple((a + b) / 2), CANDIDATE_COLOUR)
    # the counted tiles keep their own colours
    assert _colour_near(arr, tuple(base.tiles[0].box.corners()[:2].mean(0)), OK_COLOUR)


def _apart(labels: list, size: tuple[int, int], tiles: list[np.ndarray]) -> None:
    """No label over any tile (each drawn as pixels: its rectangle against every tile's
    outline filled in), none over another label, each inside the picture."""
    from PIL import ImageDraw

    w, h = size
    for k, tile in enumerate(tiles):
        mask = Image.new("1", size, 0)
        ImageDraw.Draw(mask).polygon([(float(x), float(y)) for x, y in tile], fill=1)
        inside = np.asarray(mask)
        for label in labels:
            x0, y0, x1, y1 = (round(v) for v in label.rect)
            assert not inside[y0:y1, x0:x1].any(), (label.text, label.rect, "over tile", k)
    for i, a in enumerate(labels):
        assert a.rect[0] >= 0 and a.rect[1] >= 0 and a.rect[2] <= w and a.rect[3] <= h, a
        for b in labels[i + 1:]:
            assert not (a.rect[0] < b.rect[2] and b.rect[0] < a.rect[2] and a.rect[1] < b.rect[3]
                        and b.rect[1] < a.rect[3]), (a.text, a.rect, b.text, b.rect)


def _near(label, gap: float) -> float:
    """How far a label lies from its tile's outline (0: touching)."""
    x0, y0, x1, y1 = label.rect
    return min(float(np.hypot(max(x0 - x, 0, x - x1), max(y0 - y, 0, y - y1))) for x, y in label.tile)


def test_labels_go_beside_their_tiles_in_a_cluttered_render():
    """30 small tiles at every angle, a few pixels apart, in a frame with a banner: every label
    beside its own tile, over no tile and no other label, and near the tile it names."""
    from chickenfoot.vision.draw import annotated_labels

    rng = np.random.default_rng(7)
    boxes: list[OrientedBox] = []
    while len(boxes) < 30:
        box = OrientedBox(float(rng.uniform(80, 1200)), float(rng.uniform(120, 640)), 64, 32,
                          float(rng.uniform(0, math.pi)))
        if all(math.hypot(box.cx - b.cx, box.cy - b.cy) > 60 for b in boxes):
            boxes.append(box)
    tiles = tuple(TileReading(int(rng.integers(0, 13)), int(rng.integers(0, 13)), 0.9, b, False, 0.95, (0.97, 0.97))
                  for b in boxes)
    reading = Reading(tiles=tiles, pips=0, penalty=0, warnings=(), image_size=(1280, 720))
    photo = Image.new("RGB", (1280, 720), (30, 30, 90))
    labels = annotated_labels(photo, reading)
    assert len(labels) == 30
    _apart(labels, photo.size, [b.corners() for b in boxes])
    assert max(_near(label, 0) for label in labels) < 80  # beside it: at most a few label heights off


@pytest.mark.parametrize("name", ["table", "hand", "hand18"])
def test_labels_keep_off_every_tile_of_the_test_photos(name: str):
    """The test photos' own tiles where they lie (their label files' boxes, no model): the
    hand's scattered tiles, the table's lines of touching tiles."""
    from chickenfoot.vision.draw import annotated_labels

    data = json.loads((TEST_DATA / f"{name}.json").read_text())
    rows = data.get("boxes") or data["tiles"]
    tiles = tuple(TileReading(r["a"], r["b"], 0.95, OrientedBox(*r["box"]), False, 0.97, (0.99, 0.99)) for r in rows)
    with Image.open(TEST_DATA / data["image"]) as photo:
        photo.load()
        reading = Reading(tiles=tiles, pips=0, penalty=0, warnings=(), image_size=photo.size)
        labels = annotated_labels(photo, reading)
        assert sorted(label.text.split()[0] for label in labels) == sorted(str(t.tile) for t in tiles)
        _apart(labels, photo.size, [t.box.corners() for t in tiles])
        out = np.asarray(annotate(photo, reading))
    # the middle of every tile, where its pips are, is the photo's own
    for t in tiles:
        x, y = round(t.box.cx), round(t.box.cy)
        with Image.open(TEST_DATA / data["image"]) as photo:
            assert tuple(out[y, x]) == photo.convert("RGB").getpixel((x, y))


@pytest.mark.skipif(not REAL_CLUTTER.is_file(), reason="../shared/realdata (JackRoache) not here")
@needs_shipped[0]
def test_labels_keep_off_every_tile_of_a_real_cluttered_photo():
    """A webcam frame of seven tiles beside a tin of tiles whose lid is printed with dominoes
    and a marker: the reader finds about thirty boxes, counted, to check and not counted."""
    from chickenfoot.vision.draw import annotated_labels
    from chickenfoot.vision.images import load_image
    from chickenfoot.vision.reader import Reader

    reader = Reader.from_models_dir()
    photo = load_image(REAL_CLUTTER, reader.config.decode_max_side)
    reading = reader.read(photo)
    labels = annotated_labels(photo.image, reading)
    assert len(labels) >= 20
    _apart(labels, photo.image.size, [label.tile for label in labels])


def test_labels_name_the_low_half_first_and_the_bar_marks_it():
    """A tile read 11-2 as it lies (half A, 11, on the left) is labelled 2-11, and the bar
    across an end is at the 2's end, the right."""
    from chickenfoot.vision.draw import annotated_labels

    box = OrientedBox(400, 300, 200, 100, 0.0)
    tile = TileReading(11, 2, 0.95, box, False, 0.97, (0.99, 0.99))
    reading = Reading(tiles=(tile,), pips=13, penalty=13, warnings=(), image_size=(800, 600))
    photo = Image.new("RGB", (800, 600), (30, 30, 90))
    (label,) = annotated_labels(photo, reading)
    assert label.text == "2-11 0.95"
    arr = np.asarray(annotate(photo, reading))
    bar_b, bar_a = 500 - 0.18 * 100, 300 + 0.18 * 100  # 18% of the half length in from each end
    assert _colour_near(arr, (bar_b, 300), OK_COLOUR, radius=2)
    assert not _colour_near(arr, (bar_a, 300), OK_COLOUR, radius=2)


def test_labels_are_sized_to_the_tiles_not_the_photo():
    """A wide frame of small tiles: each label stays about as long as its tile, not a photo-sized banner."""
    tiles = tuple(TileReading(3, 4, 0.95, OrientedBox(300 + 90 * i, 500, 60, 30, 0.0), False, 0.97, (0.99, 0.99))
                  for i in range(8))
    reading = Reading(tiles=tiles, pips=56, penalty=56, warnings=(), image_size=(1600, 900))
    arr = np.asarray(annotate(Image.new("RGB", (1600, 900), (30, 30, 90)), reading))
    ok = np.all(np.abs(arr.astype(int) - OK_COLOUR) <= 10, axis=-1)
    rows = np.flatnonzero(ok[440:560].any(axis=1))
    # rows where the label box (filled in the outline colour) or the outline crosses tile 0:
    # 15 with labels sized to the tiles, 26 with the photo-sized labels of before
    filled = [r for r in rows if ok[440 + r, 300 - 30: 300 + 30].sum() > 40]
    assert filled and len(filled) <= 20


def test_numbers_alone_at_a_given_size_above_their_tiles_and_skipped_tiles_left_out():
    from chickenfoot.vision.draw import draw_tiles

    photo = Image.new("RGB", (800, 600), (30, 30, 90))
    reading = _reading(photo.size)
    tiles = [reading.tiles[0], reading.tiles[1]]
    out = np.asarray(draw_tiles(photo, tiles, photo.size, numbered=True, values=False, font_px=60, skip={1}))
    review = np.all(np.abs(out.astype(int) - REVIEW_COLOUR) <= 10, axis=-1)
    assert not review.any()  # tile 2 is skipped: neither outline nor label
    green = np.all(np.abs(out.astype(int) - OK_COLOUR) <= 10, axis=-1)
    rows = np.nonzero(green.sum(1) > 20)[0]
    top_of_tile = tiles[0].box.corners()[:, 1].min()
    label = rows[rows < top_of_tile]
    assert len(label) and 40 <= label.max() - label.min() + 1 <= 80  # the "1" box, about the font's size
    assert _colour_near(out, (tiles[0].box.cx, tiles[0].box.cy), (30, 30, 90), radius=3)  # no label on the pips


def test_a_thick_outline_runs_round_a_small_tile_never_over_its_face():
    """At the app's label size an asked tile's outline is several times wider than a webcam
    frame's tile is high: it is drawn outside the box, so the tile asked about stays in sight."""
    from chickenfoot.vision.draw import draw_tiles

    photo = Image.new("RGB", (1280, 720), (30, 30, 90))
    small = TileReading(4, 6, 0.7, OrientedBox(640, 360, 66, 17, math.radians(20)), True, 0.72, (0.8, 0.9))
    out = np.asarray(draw_tiles(photo, [small], photo.size, numbered=True, values=False, font_px=62))
    xs, ys = np.meshgrid(np.arange(1280), np.arange(720))
    # every pixel well inside the tile's box is the photo's own (but for the bar at its low end)
    u, v = small.box.axes()
    along = (xs - small.box.cx) * u[0] + (ys - small.box.cy) * u[1]
    across = (xs - small.box.cx) * v[0] + (ys - small.box.cy) * v[1]
    face = (np.abs(along) < small.box.length * 0.25) & (np.abs(across) < small.box.width * 0.4)
    assert face.sum() > 100
    assert (np.abs(out[face].astype(int) - (30, 30, 90)) <= 2).all()
    # and the outline is there, just outside each side
    for a, b in zip(small.box.corners(), np.roll(small.box.corners(), -1, axis=0), strict=True):
        mid = (a + b) / 2
        out_dir = mid - (small.box.cx, small.box.cy)
        out_dir = out_dir / np.hypot(*out_dir)
        assert _colour_near(out, tuple(mid + 5 * out_dir), REVIEW_COLOUR, radius=2)
