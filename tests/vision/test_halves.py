"""The half reader (:mod:`chickenfoot.vision.halves`): crops cut from rotated tiles, class names to pip counts,
and the choice of each half's value."""

from __future__ import annotations

import math
from pathlib import Path

import fake_models
import numpy as np
import pytest
from PIL import Image

from chickenfoot.rules import get_rules
from chickenfoot.vision.assemble import assemble
from chickenfoot.vision.config import ModelError
from chickenfoot.vision.detections import Detections
from chickenfoot.vision.geometry import OrientedBox
from chickenfoot.vision.halves import (
    NOT_PIPS,
    NOT_PIPS_CLASS,
    as_probabilities,
    choose_values,
    class_values,
    crop_halves,
)

ROOT = Path(__file__).resolve().parents[2]
TEST_DATA = ROOT / "tests" / "data"


def _draw_two_colour_tile(size: tuple[int, int], box: OrientedBox) -> Image.Image:
    img = Image.new("RGB", size, (0, 120, 0))
    fake_models.draw_tile(img, box, (230, 20, 20), (20, 20, 230))
    return img


def test_crop_halves_cuts_half_a_then_half_b_from_a_rotated_tile():
    box = OrientedBox(200, 150, 160, 80, math.radians(37))
    img = _draw_two_colour_tile((400, 300), box)
    batch = crop_halves(img, Detections.from_boxes([box], [1.0]), crop_size=32, pad=0.0, cls_imgsz=24)
    assert batch.shape == (2, 3, 24, 24) and batch.dtype == np.float32
    mean_a, mean_b = batch[0].mean((1, 2)), batch[1].mean((1, 2))
    assert mean_a[0] > 0.8 and mean_a[2] < 0.2  # half A is red
    assert mean_b[2] > 0.8 and mean_b[0] < 0.2  # half B is blue
    # The same rectangle pointing the other way swaps the halves.
    turned = OrientedBox(box.cx, box.cy, box.length, box.width, box.angle + math.pi)
    swapped = crop_halves(img, Detections.from_boxes([turned], [1.0]), 32, 0.0, 24)
    assert swapped[0].mean((1, 2))[2] > 0.8 and swapped[1].mean((1, 2))[0] > 0.8
    # Padding takes in background: green appears at the crop's border.
    padded = crop_halves(img, Detections.from_boxes([box], [1.0]), 32, 0.3, 24)
    assert padded[0, 1, 0, :].mean() > 0.3
    assert crop_halves(img, Detections.empty(), 32, 0.0, 24).shape == (0, 3, 24, 24)


def test_big_tiles_are_cut_from_a_shrunk_copy_with_the_same_result():
    box = OrientedBox(700, 500, 900, 450, math.radians(-25))  # a close-up: 900 px long
    img = _draw_two_colour_tile((1400, 1000), box)
    dets = Detections.from_boxes([box], [1.0])
    direct = crop_halves(img, dets, 32, 0.0, 24, max_source_px=None)
    shrunk = crop_halves(img, dets, 32, 0.0, 24, max_source_px=224)
    assert shrunk.shape == direct.shape == (2, 3, 24, 24)
    assert shrunk[0].mean((1, 2))[0] > 0.8 and shrunk[1].mean((1, 2))[2] > 0.8
    assert np.abs(shrunk - direct).mean() < 0.02  # same picture, only resampled differently


# ----------------------------------------------------------------------------- assemble
def test_class_values_follow_names_not_indices():
    names = {i: n for i, n in enumerate(sorted((str(v) for v in range(13)), key=str))}
    values = class_values(names)
    assert values.tolist() == [0, 1, 10, 11, 12, 2, 3, 4, 5, 6, 7, 8, 9]
    with pytest.raises(ModelError):
        class_values({0: "zero"})
    with pytest.raises(ModelError):
        class_values({0: "0", 2: "2"})


def test_as_probabilities_keeps_softmax_and_normalises_logits():
    p = np.array([[0.2, 0.8], [0.5, 0.5]])
    assert np.allclose(as_probabilities(p), p)
    q = as_probabilities(np.array([[2.0, -1.0], [0.0, 0.0]]))
    assert np.allclose(q.sum(1), 1) and q[0, 0] > 0.9


def test_choose_values_keeps_to_the_set_in_play():
    values = np.array([0, 1, 10, 11, 12, 2, 3, 4, 5, 6, 7, 8, 9])  # ultralytics' class order
    probs = np.full((2, 13), 0.01)
    probs[0, 2], probs[0, 7] = 0.6, 0.3  # half A: 10 likely, 4 next
    probs[1, 6] = 0.9  # half B: 3
    assert values[choose_values(probs, values)].tolist() == [10, 3]
    assert values[choose_values(probs, values, top=12)].tolist() == [10, 3]
    assert values[choose_values(probs, values, top=6)].tolist() == [4, 3]
    assert choose_values(np.zeros((0, 13)), values, top=6).shape == (0,)


def test_a_half_is_never_read_as_not_pips_but_not_pips_lowers_its_confidence():
    names = {i: n for i, n in enumerate(sorted([*(str(v) for v in range(13)), NOT_PIPS_CLASS], key=str))}
    values = class_values(names)
    assert values[-1] == NOT_PIPS and sorted(values[:-1].tolist()) == list(range(13))
    probs = np.full((2, 14), 0.01)
    probs[0, -1], probs[0, 0] = 0.8, 0.07  # half A: lettering, the likeliest count is 0
    probs[1, 6] = 0.87  # half B: 3
    choice = choose_values(probs, values)
    assert values[choice].tolist() == [0, 3]
    assert values[choose_values(probs, values, top=6)].tolist() == [0, 3]
    dets = Detections(np.array([[50.0, 50.0, 40.0, 20.0, 0.0]]), np.array([0.95]), np.array([0]))
    reading = assemble(dets, probs, values, to_original=1.0, image_size=(100, 100), review_conf=0.8,
                       rules=get_rules(), count_conf=0.5, choice=choice)
    # the tile's confidence keeps the probability it is not pips out: it is a candidate, not counted
    assert reading.pips == 0 and [str(t.tile) for t in reading.candidates] == ["0-3"]
    with pytest.raises(ModelError, match="not a pip count"):
        class_values({0: "0", 1: "-1"})
    with pytest.raises(ModelError, match="no pip-count class"):
        class_values({0: NOT_PIPS_CLASS})


def test_tiles_cut_on_two_threads_are_cut_as_on_one(monkeypatch: pytest.MonkeyPatch):
    """The crops of many tiles, cut on two threads, are the crops cut one after another (the
    big ones from the shrunk copy too)."""
    from chickenfoot.vision import images

    rng = np.random.default_rng(5)
    with Image.open(TEST_DATA / "table.jpg") as im:
        img = im.convert("RGB")
    boxes = [OrientedBox(float(rng.uniform(0, img.width)), float(rng.uniform(0, img.height)),
                         float(length), float(length) / 2, float(rng.uniform(-math.pi, math.pi)))
             for length in rng.uniform(30, 600, 23)]
    dets = Detections.from_boxes(boxes, np.ones(len(boxes)))
    monkeypatch.setattr(images, "THREADS", 1)
    one = crop_halves(img, dets, 64, 0.06, 64)
    monkeypatch.setattr(images, "THREADS", 2)
    two = crop_halves(img, dets, 64, 0.06, 64)
    assert one.shape == two.shape == (46, 3, 64, 64)
    assert np.array_equal(one, two)
