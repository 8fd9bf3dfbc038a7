"""Drawing a reading: outlines where the boxes are, review tiles in their own colour, input untouched."""

from __future__ import annotations

import math

import numpy as np
from PIL import Image

from chickenfoot.rules import get_rules
from chickenfoot.vision.draw import CANDIDATE_COLOUR, OK_COLOUR, REVIEW_COLOUR, annotate
from chickenfoot.vision.geometry import OrientedBox
from chickenfoot.vision.reader import Reading, TileReading


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


def test_labels_are_moved_off_each_other_and_kept_in_the_photo():
    from chickenfoot.vision.draw import _overlaps, place_labels

    anchors = [(100.0, 100.0), (104.0, 102.0), (98.0, 97.0), (5.0, 295.0)]
    sizes = [(60.0, 20.0)] * 4
    banner = (0.0, 0.0, 200.0, 30.0)
    rects = place_labels(anchors, sizes, (400, 300), [banner])
    assert rects[0] == (70.0, 90.0, 130.0, 110.0)  # the first stays centred on its tile
    for i, a in enumerate(rects):
        assert a[0] >= 0 and a[1] >= 0 and a[2] <= 400 and a[3] <= 300
        assert not _overlaps(a, banner)
        assert all(not _overlaps(a, b) for b in rects[i + 1:])
        assert abs((a[0] + a[2]) / 2 - anchors[i][0]) <= 2 * 34 and abs((a[1] + a[3]) / 2 - anchors[i][1]) <= 2 * 24 + 5


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
