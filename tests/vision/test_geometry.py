"""Image measures in :mod:`vision.geometry`, on drawn tiles."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

from PIL import Image

from vision.geometry import OrientedBox, divider_contrast


def _load_fake_models():
    """tests/vision/fake_models.py, loaded by path (pytest runs with --import-mode=importlib)."""
    spec = importlib.util.spec_from_file_location("cf_fake_models", Path(__file__).with_name("fake_models.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


fake_models = _load_fake_models()


def test_divider_contrast_tells_a_blank_back_from_a_double_blank():
    box = OrientedBox(100, 80, 120, 60, math.radians(55))
    ivory = (235, 230, 215)
    zero_zero = Image.new("RGB", (200, 160), (90, 60, 40))
    fake_models.draw_tile(zero_zero, box, ivory, ivory, divider=True)
    back = Image.new("RGB", (200, 160), (90, 60, 40))
    fake_models.draw_tile(back, box, ivory, ivory, divider=False)
    assert divider_contrast(zero_zero, box) > 0.3
    assert divider_contrast(back, box) < 0.02
