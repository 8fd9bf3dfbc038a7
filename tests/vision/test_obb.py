"""The detector's input and output (:mod:`chickenfoot.vision.obb`): ultralytics' letterbox arithmetic and the
OBB export decoded with rotated NMS, on real arrays."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from chickenfoot.vision.detections import Detections, probiou
from chickenfoot.vision.obb import decode_obb, letterbox, letterbox_geometry, nms_rotated, unletterbox

ROOT = Path(__file__).resolve().parents[2]
TEST_DATA = ROOT / "tests" / "data"


def test_letterbox_geometry_matches_ultralytics_arithmetic():
    (w, h), lb = letterbox_geometry(1600, 1200, 640)
    assert (w, h) == (640, 480) and lb.gain == pytest.approx(0.4)
    assert (lb.pad_x, lb.pad_y) == (0, 80)
    (w, h), lb = letterbox_geometry(480, 640, 320)  # portrait
    assert (w, h) == (240, 320) and (lb.pad_x, lb.pad_y) == (40, 0)
    (w, h), lb = letterbox_geometry(1000, 333, 640)  # odd padding: ultralytics rounds dh - 0.1
    assert h == 213 and lb.pad_y == round((640 - 213) / 2 - 0.1) == 213


def test_letterbox_places_the_image_on_grey_114():
    img = Image.new("RGB", (800, 400), (255, 0, 0))
    tensor, lb = letterbox(img, 320)
    assert tensor.shape == (1, 3, 320, 320) and tensor.dtype == np.float32
    assert lb.pad_y == 80 and lb.pad_x == 0
    assert np.allclose(tensor[0, :, 40, 160], 114 / 255)  # top band
    assert np.allclose(tensor[0, :, 300, 10], 114 / 255)  # bottom band
    assert np.allclose(tensor[0, :, 160, 160], [1.0, 0.0, 0.0])  # image, RGB order
    assert tensor.min() >= 0 and tensor.max() <= 1


def test_rectangular_letterbox_pads_only_to_the_stride():
    """A detector with dynamic shape gets ultralytics' rect input: a 4:3 photo costs 416x320."""
    (w, h), lb = letterbox_geometry(640, 480, 416, stride=32)
    assert (w, h) == (416, 312) and lb.shape == (416, 320) and (lb.pad_x, lb.pad_y) == (0, 4)
    _, portrait = letterbox_geometry(480, 640, 416, stride=32)
    assert portrait.shape == (320, 416) and (portrait.pad_x, portrait.pad_y) == (4, 0)
    _, square = letterbox_geometry(640, 480, 416)
    assert square.shape == (416, 416)
    tensor, _ = letterbox(Image.new("RGB", (640, 480), (0, 255, 0)), 416, stride=32)
    assert tensor.shape == (1, 3, 320, 416)
    assert np.allclose(tensor[0, :, 1, 200], 114 / 255) and np.allclose(tensor[0, :, 160, 200], [0, 1, 0])


def test_unletterbox_inverts_the_placement():
    _, lb = letterbox_geometry(1000, 600, 640)
    working = np.array([[420.0, 210.0, 120.0, 60.0, 0.7]])
    to_input = working.copy()
    to_input[:, :4] *= lb.gain
    to_input[:, 0] += lb.pad_x
    to_input[:, 1] += lb.pad_y
    back = unletterbox(Detections(to_input, [0.9], [0]), lb)
    assert np.allclose(back.boxes, working, atol=1e-4)


# ----------------------------------------------------------------------------- IoU + NMS
def test_touching_tiles_in_a_line_and_a_crosswise_double_all_survive_nms():
    # Five tiles end to end along a line (as on a Chicken Foot table), then a double crosswise.
    line = [[100 + 80 * i, 200, 80, 40, 0.0] for i in range(5)]
    double = [[100 + 80 * 4 + 40 + 20, 200, 80, 40, math.pi / 2]]
    side_by_side = [[100, 240, 80, 40, 0.0]]  # touching the first tile along its long side
    boxes = np.array(line + double + side_by_side, float)
    scores = np.linspace(0.9, 0.6, len(boxes))
    assert sorted(nms_rotated(boxes, scores, 0.5).tolist()) == list(range(len(boxes)))


def test_nms_is_ultralytics_fast_nms_on_a_chain():
    # A overlaps B, B overlaps C, A does not overlap C.
    boxes = np.array([[100, 100, 80, 40, 0], [125, 100, 80, 40, 0], [150, 100, 80, 40, 0]], float)
    m = probiou(boxes, boxes)
    assert m[0, 1] > 0.5 and m[1, 2] > 0.5 and m[0, 2] < 0.5
    scores = np.array([0.9, 0.8, 0.7])
    # C goes with B although B itself went: what ultralytics' own predict and val keep
    assert nms_rotated(boxes, scores, 0.5).tolist() == [0]
    assert nms_rotated(boxes[[0, 2]], scores[[0, 2]], 0.5, max_det=1).tolist() == [0]
    assert nms_rotated(np.zeros((0, 5)), np.zeros(0), 0.5).tolist() == []


def _raw(rows: list[list[float]]) -> np.ndarray:
    """Columns per candidate: cx, cy, w, h, score_tile, score_back, angle."""
    return np.array(rows, np.float32).T[None]


def test_decode_obb_thresholds_regularises_and_suppresses():
    raw = _raw([
        [100, 100, 80, 40, 0.90, 0.05, 0.2],  # kept
        [101, 100, 81, 40, 0.70, 0.01, 0.21],  # duplicate of the first: suppressed
        [300, 200, 30, 90, 0.80, 0.10, 0.1],  # h > w: becomes length 90 at angle 0.1 + pi/2
        [500, 400, 60, 30, 0.20, 0.85, -0.5],  # a back (class 1), angle wrapped into [0, pi)
        [50, 50, 60, 30, 0.10, 0.20, 0.0],  # below 0.25: dropped
    ])
    dets = decode_obb(raw, conf=0.25, iou=0.5)
    assert len(dets) == 3
    assert dets.confidence.tolist() == pytest.approx([0.90, 0.85, 0.80])
    assert dets.class_id.tolist() == [0, 1, 0]
    assert np.allclose(dets.boxes[0], [100, 100, 80, 40, 0.2], atol=1e-5)
    assert np.allclose(dets.boxes[1], [500, 400, 60, 30, math.pi - 0.5], atol=1e-5)
    assert np.allclose(dets.boxes[2], [300, 200, 90, 30, 0.1 + math.pi / 2], atol=1e-5)
    assert np.all(dets.boxes[:, 2] >= dets.boxes[:, 3])
    assert len(decode_obb(raw, conf=0.95)) == 0


def test_decode_obb_rejects_wrong_shapes():
    with pytest.raises(ValueError):
        decode_obb(np.zeros((1, 4, 10), np.float32))
    with pytest.raises(ValueError):
        decode_obb(np.zeros((2, 7, 10), np.float32))
    with pytest.raises(ValueError):
        decode_obb(np.zeros((1, 7, 10), np.float32), num_classes=1)
