"""Image measures in :mod:`chickenfoot.vision.geometry`, on drawn tiles."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from chickenfoot.vision.geometry import (
    OrientedBox,
    divider_colour_contrast,
    divider_contrast,
    divider_span,
    divider_wander,
    overlap_share,
    polygon_iou,
)


def test_a_box_written_as_a_list_reads_back_the_same():
    box = OrientedBox(12.5, 40.25, 90.0, 44.0, math.radians(123.0))
    back = OrientedBox.from_list(box.to_list())
    assert (back.cx, back.cy, back.length, back.width) == (12.5, 40.25, 90.0, 44.0)
    assert back.angle == pytest.approx(box.angle, abs=1e-4)


def test_divider_contrast_tells_a_blank_back_from_a_double_blank():
    sys.path.insert(0, str(Path(__file__).parent))
    from fake_models import draw_tile  # the reader tests' tile drawing

    box = OrientedBox(100, 80, 120, 60, math.radians(55))
    ivory = (235, 230, 215)
    zero_zero = Image.new("RGB", (200, 160), (90, 60, 40))
    draw_tile(zero_zero, box, ivory, ivory, divider=True)
    back = Image.new("RGB", (200, 160), (90, 60, 40))
    draw_tile(back, box, ivory, ivory, divider=False)
    assert divider_contrast(zero_zero, box) > 0.3
    assert divider_contrast(back, box) < 0.02


def test_a_coloured_divider_as_light_as_the_face_shows_in_colour_only():
    """An orange divider on a grey face hardly differs in grey; in colour it stands out, and a
    blank back still shows nothing."""
    sys.path.insert(0, str(Path(__file__).parent))
    from fake_models import draw_tile

    box = OrientedBox(100, 80, 120, 60, math.radians(25))
    grey, orange = (130, 130, 130), (200, 118, 40)  # luma 130 both
    tile = Image.new("RGB", (200, 160), (30, 60, 40))
    draw_tile(tile, box, grey, grey, divider=True, divider_colour=orange)
    back = Image.new("RGB", (200, 160), (30, 60, 40))
    draw_tile(back, box, grey, grey, divider=False)
    assert divider_contrast(tile, box) < 0.05  # the blank-divider check needs 0.09
    assert divider_colour_contrast(tile, box) > 0.3
    assert divider_colour_contrast(back, box) < 0.03
    # a dark divider: about sqrt(3) times its grey contrast
    dark = Image.new("RGB", (200, 160), (30, 60, 40))
    draw_tile(dark, box, grey, grey, divider=True)
    assert divider_colour_contrast(dark, box) == pytest.approx(math.sqrt(3) * divider_contrast(dark, box), rel=0.1)


def test_divider_span_tells_a_divider_from_a_logo_across_a_back():
    sys.path.insert(0, str(Path(__file__).parent))
    from fake_models import draw_tile

    box = OrientedBox(100, 80, 120, 60, math.radians(-30))
    ivory, ink = (235, 230, 215), (30, 40, 60)
    tile = Image.new("RGB", (200, 160), (90, 60, 40))
    draw_tile(tile, box, ivory, ivory, divider=True)
    back = Image.new("RGB", (200, 160), (90, 60, 40))
    draw_tile(back, box, ivory, ivory, divider=False)
    # a brand mark on the back's middle: a blob a third of the width, as dark as a divider
    ImageDraw.Draw(back).ellipse((box.cx - 10, box.cy - 10, box.cx + 10, box.cy + 10), fill=ink)
    assert divider_contrast(back, box) > 0.3  # the old test takes the mark for a divider
    assert divider_span(tile, box) > 0.3
    assert divider_span(back, box) < 0.05


def test_divider_wander_tells_a_straight_divider_from_lettering_across_a_back():
    sys.path.insert(0, str(Path(__file__).parent))
    from fake_models import draw_tile, lettering

    box = OrientedBox(110, 90, 140, 70, math.radians(35))
    ivory, ink = (235, 230, 215), (30, 40, 60)
    tile = Image.new("RGB", (220, 180), (90, 60, 40))
    draw_tile(tile, box, ivory, ivory, divider=True)
    back = Image.new("RGB", (220, 180), (90, 60, 40))
    draw_tile(back, box, ivory, ivory, divider=False)
    lettering(back, box, ink)
    assert divider_contrast(back, box) > 0.09 and divider_span(back, box) > 0.05  # passes both
    assert divider_wander(tile, box) < 0.006
    assert divider_wander(back, box) > 0.02
    # a plain back has no line to fit at all
    plain = Image.new("RGB", (220, 180), (90, 60, 40))
    draw_tile(plain, box, ivory, ivory, divider=False)
    assert divider_wander(plain, box) == 1.0


def test_overlap_share_is_the_part_of_the_smaller_box_the_other_covers():
    tile = OrientedBox(100, 100, 80, 40, 0.0).corners()
    astride = OrientedBox(140, 100, 80, 40, 0.0).corners()  # half a tile along: over its joint
    assert overlap_share(tile, astride) == pytest.approx(0.5)
    assert polygon_iou(tile, astride) == pytest.approx(1 / 3)
    pip = OrientedBox(90, 100, 10, 10, 0.7).corners()
    assert overlap_share(tile, pip) == pytest.approx(1.0)  # inside: all of the smaller
    assert overlap_share(pip, tile[::-1]) == pytest.approx(1.0)  # either order, any winding
    crosswise = OrientedBox(160, 100, 80, 40, math.pi / 2).corners()  # a double touching its end
    assert overlap_share(tile, crosswise) == pytest.approx(0.0, abs=1e-9)
    assert overlap_share(tile, OrientedBox(400, 400, 80, 40, 0.0).corners()) == 0.0
