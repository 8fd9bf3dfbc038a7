"""Image measures in :mod:`vision.geometry`, on drawn tiles."""

from __future__ import annotations

import math
import sys
from pathlib import Path

from PIL import Image

from vision.geometry import OrientedBox, divider_contrast


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
