"""Photos read turned (:mod:`chickenfoot.vision.lab.turned`): a box found on the turned photo
lands back on the same pixels of the upright one, and the command judges real photos."""

from __future__ import annotations

import math

import numpy as np
import pytest
from PIL import Image, ImageDraw

from chickenfoot.rules import get_rules
from chickenfoot.vision.geometry import OrientedBox, polygon_iou
from chickenfoot.vision.images import LoadedImage
from chickenfoot.vision.lab import turned
from chickenfoot.vision.lab.realdata import realdata_root
from chickenfoot.vision.reading import Reading, TileReading


def _bright_box(image: Image.Image) -> OrientedBox:
    """The axis-aligned box of the bright pixels of ``image``, as an oriented box."""
    ys, xs = np.nonzero(np.asarray(image.convert("L")) > 128)
    x0, x1, y0, y1 = xs.min(), xs.max() + 1, ys.min(), ys.max() + 1
    w, h = x1 - x0, y1 - y0
    angle = 0.0 if w >= h else math.pi / 2
    return OrientedBox((x0 + x1) / 2, (y0 + y1) / 2, float(max(w, h)), float(min(w, h)), angle)


@pytest.mark.parametrize("degrees", [0, 90, 180, 270])
def test_box_back_lands_on_the_same_pixels(degrees: int) -> None:
    upright = Image.new("RGB", (300, 200))
    ImageDraw.Draw(upright).rectangle((40, 30, 119, 69), fill=(255, 255, 255))  # 80 x 40, off centre
    loaded = LoadedImage(upright, upright.size)
    turned_photo = turned.turn(loaded, degrees)
    assert turned_photo.original_size == ((200, 300) if degrees in (90, 270) else (300, 200))
    seen = _bright_box(turned_photo.image)
    back = turned.box_back(seen, degrees, upright.size)
    truth = _bright_box(upright)
    assert polygon_iou(back.corners(), truth.corners()) > 0.97


def test_reading_back_moves_every_box() -> None:
    box = OrientedBox(20.0, 50.0, 40.0, 20.0, 0.0)
    r = Reading.scored([TileReading(3, 4, 0.9, box)], [TileReading(1, 1, 0.2, box, uncounted="unsure")], get_rules(),
                       (100, 300), backs=[box])
    back = turned.reading_back(r, 90, (300, 100))
    assert back.image_size == (300, 100)
    moved = turned.box_back(box, 90, (300, 100))
    assert back.tiles[0].box == moved and back.candidates[0].box == moved and back.backs == (moved,)
    assert (moved.cx, moved.cy) == (250.0, 20.0)
    assert back.penalty == r.penalty


def test_a_turn_that_is_no_quarter_is_refused() -> None:
    with pytest.raises(ValueError, match="0, 90, 180 or 270"):
        turned.box_back(OrientedBox(1, 1, 2, 1, 0), 45, (10, 10))


@pytest.mark.skipif(not (realdata_root() / "TAK1EDD1NE__domino-tile-recognition").is_dir(),
                    reason="labelled real photos absent")
def test_command_judges_real_photos_turned(capsys: pytest.CaptureFixture[str]) -> None:
    assert turned.main(["--source", "TAK1EDD1NE__domino-tile-recognition", "--turns", "0,90", "--no-gray"]) == 0
    out = capsys.readouterr().out
    summary = [line for line in out.splitlines() if "deg:" in line]
    assert len(summary) == 2
    for line in summary:  # every photo of the source judged once per turn
        counts = [int(x) for x in line.split("deg:")[1].split(" of ")[0].split(" / ")]
        assert sum(counts) == int(line.rsplit(" of ", 1)[1]) == 6
