"""The reader's pure stages on real arrays and drawn images, then the whole pipeline through
real onnxruntime sessions (small ONNX models with known behaviour), then the shipped models
on the shipped test photo when they exist."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import math
from collections import Counter
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from companion.rules import Tile, get_rules
from vision.detections import Detections, obb_corners, probiou
from vision.geometry import OrientedBox
from vision.images import LoadedImage
from vision.reader import (
    APART_EXACT,
    MODELS_DIR,
    NOT_PIPS,
    NOT_PIPS_CLASS,
    ModelError,
    Reader,
    ReaderConfig,
    Reading,
    TileReading,
    apart,
    as_probabilities,
    assemble,
    choose_values,
    class_values,
    crop_halves,
    decode_obb,
    drop_contained,
    drop_implausible,
    grid_windows,
    half_sureness,
    letterbox,
    letterbox_geometry,
    merge_detections,
    nms_rotated,
    split_not_pips,
    touches_inner_edge,
    unletterbox,
)

ROOT = Path(__file__).resolve().parents[2]
TEST_DATA = ROOT / "tests" / "data"


def _load_fake_models():
    """tests/vision/fake_models.py, loaded by path (pytest runs with --import-mode=importlib)."""
    spec = importlib.util.spec_from_file_location("cf_fake_models", Path(__file__).with_name("fake_models.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


fake_models = _load_fake_models()


# ----------------------------------------------------------------------------- letterbox
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
    for fast in (False, True):
        assert sorted(nms_rotated(boxes, scores, 0.5, fast=fast).tolist()) == list(range(len(boxes)))


def test_nms_greedy_versus_fast_on_a_chain():
    # A overlaps B, B overlaps C, A does not overlap C.
    boxes = np.array([[100, 100, 80, 40, 0], [125, 100, 80, 40, 0], [150, 100, 80, 40, 0]], float)
    m = probiou(boxes, boxes)
    assert m[0, 1] > 0.5 and m[1, 2] > 0.5 and m[0, 2] < 0.5
    scores = np.array([0.9, 0.8, 0.7])
    assert nms_rotated(boxes, scores, 0.5).tolist() == [0, 2]  # greedy: C is freed by B's removal
    assert nms_rotated(boxes, scores, 0.5, fast=True).tolist() == [0]  # ultralytics Fast-NMS
    assert nms_rotated(boxes, scores, 0.5, max_det=1).tolist() == [0]
    assert nms_rotated(np.zeros((0, 5)), np.zeros(0), 0.5).tolist() == []


# ----------------------------------------------------------------------------- OBB decode
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


# ----------------------------------------------------------------------------- small-tile pass
def test_grid_windows_cover_the_image_with_overlap():
    wins = grid_windows((1600, 900), 2, overlap=0.2)
    assert len(wins) == 4
    assert wins[0][:2] == (0, 0) and wins[-1][2:] == (1600, 900)
    (ax0, _, ax1, _), (bx0, *_) = wins[0], wins[1]
    assert bx0 < ax1 and ax1 - bx0 == pytest.approx(0.2 * (ax1 - ax0), abs=2)
    covered = np.zeros((900, 1600), bool)
    for x0, y0, x1, y1 in wins:
        covered[y0:y1, x0:x1] = True
    assert covered.all()


def test_boxes_cut_by_an_inner_window_edge_are_dropped_and_passes_merge():
    win = (0, 0, 500, 400)  # the top-left window of a 1000 x 800 image
    boxes = np.array([[100, 100, 60, 30, 0.0],  # well inside
                      [490, 100, 60, 30, 0.0],  # crosses the right edge, which is inside the image
                      [20, 5, 60, 30, 0.0]])  # crosses the image's own top edge: kept
    assert touches_inner_edge(boxes, win, (1000, 800)).tolist() == [False, True, False]
    whole = Detections(boxes[:1], [0.5], [0])
    fine = Detections(boxes[:1] + np.array([1.0, 0, 0, 0, 0]), [0.8], [0])
    other = Detections(np.array([[700, 600, 60, 30, 1.0]]), [0.7], [0])
    merged = merge_detections([whole, fine, other, Detections.empty()], 0.5)
    assert len(merged) == 2 and merged.confidence.tolist() == pytest.approx([0.8, 0.7])
    assert len(merge_detections([], 0.5)) == 0


# ----------------------------------------------------------------------------- detections
def test_a_detection_on_a_surer_longer_tile_is_dropped():
    big = OrientedBox(200, 200, 160, 80, 0.5)
    u, _ = big.axes()
    pip = OrientedBox(200 + 40 * u[0], 200 + 40 * u[1], 30, 15, 0.0)  # on the tile, a fifth as long
    apart = OrientedBox(400, 400, 30, 15, 0.0)  # as small, but on bare table
    neighbour = OrientedBox(200, 265, 150, 75, 0.5)  # touching tile side by side: centre off the box
    dets = Detections.from_boxes([big, pip, apart, neighbour], [0.9, 0.5, 0.5, 0.8])
    kept = drop_contained(dets, 0.6)
    assert sorted(kept.confidence.tolist()) == pytest.approx([0.5, 0.8, 0.9])
    assert kept.boxes[:, 0].tolist() == pytest.approx([200, 400, 200])
    # a surer small read keeps its place (the big box may be the mistake); ratio 0 keeps all
    sure_pip = Detections.from_boxes([big, pip], [0.6, 0.9])
    assert len(drop_contained(sure_pip, 0.6)) == 2
    assert len(drop_contained(dets, 0.0)) == 4


def test_boxes_no_flat_tile_could_have_are_dropped():
    tiles = [OrientedBox(100 + 60 * k, 300, 88, 46, 1.5) for k in range(5)]
    slanted = OrientedBox(600, 300, 90, 20, 0.3)  # 4.5:1, a tile seen at a slant
    phantom = OrientedBox(400, 500, 1377, 197, 1.0)  # 7:1 and 15x the median length
    dets = Detections.from_boxes([*tiles, slanted, phantom], [0.9] * 6 + [1.0])
    kept = drop_implausible(dets, 5.5, 0.0)
    assert len(kept) == 6 and kept.boxes[:, 2].max() == pytest.approx(90)
    # as long, but tile-shaped: only the length test catches it, and only among three or more
    huge = OrientedBox(400, 500, 600, 300, 1.0)
    dets = Detections.from_boxes([*tiles, huge], [0.9] * 5 + [1.0])
    assert len(drop_implausible(dets, 5.5, 0.0)) == 6
    assert len(drop_implausible(dets, 5.5, 4.0)) == 5
    two = Detections.from_boxes([tiles[0], huge], [0.9, 1.0])
    assert len(drop_implausible(two, 0.0, 4.0)) == 2
    assert len(drop_implausible(Detections.empty(), 5.5, 4.0)) == 0
    assert drop_implausible(dets, 0.0, 0.0) is dets


def test_a_phantom_box_over_a_row_no_longer_swallows_the_row(tmp_path: Path):
    """Seen on a rendered photo: a sure 7:1 box drawn over rows of tiles made contain_ratio drop
    every tile whose centre it covered. With the shipped shape limits the row stays."""
    pytest.importorskip("onnx", reason="building the test models needs onnx (train extra)")
    _, models, _ = fake_models.scene(tmp_path)
    base = Reader.from_models_dir(models)
    shipped = ReaderConfig.load(MODELS_DIR / "reader.json")
    assert shipped.max_aspect > 0 and shipped.contain_ratio > 0
    row = [OrientedBox(300 + 52 * k, 600, 88, 46, 1.5) for k in range(8)]
    phantom = OrientedBox(480, 600, 1377, 197, 0.0)

    class Passes(Reader):
        def _detect_passes(self, image):
            return Detections.from_boxes([*row, phantom], [0.9] * 8 + [1.0])

    image = Image.new("RGB", (1280, 960))
    limits = dataclasses.replace(base.config, contain_ratio=shipped.contain_ratio, max_aspect=shipped.max_aspect)
    kept = Passes(limits, base.detector, base.classifier, models).detect(image)
    assert len(kept) == 8 and kept.boxes[:, 2].max() < 100
    unlimited = dataclasses.replace(limits, max_aspect=0.0, max_length_ratio=0.0)
    assert len(Passes(unlimited, base.detector, base.classifier, models).detect(image)) == 1


def test_detections_validate_their_arrays():
    d = Detections(np.array([[1, 2, 30, 10, 0.5], [5, 5, 20, 8, 0]]), [0.5, 0.9], [0, 1])
    assert len(d) == 2 and d.boxes.dtype == np.float32 and d.class_id.dtype == np.int64
    assert len(d[d.class_id == 1]) == 1 and d[1].confidence.tolist() == pytest.approx([0.9])
    assert len(Detections.empty()) == 0 and Detections.empty().corners().shape == (0, 4, 2)
    with pytest.raises(ValueError):
        Detections(np.zeros((2, 4)), [0.1, 0.2], [0, 0])
    with pytest.raises(ValueError):
        Detections(np.ones((2, 5)), [0.1], [0, 0])
    with pytest.raises(ValueError):
        Detections(np.ones((1, 5)), [1.5], [0])
    with pytest.raises(ValueError):
        Detections(np.array([[1, 1, 0, 1, 0]]), [0.5], [0])
    with pytest.raises(ValueError):
        Detections(np.ones((1, 5)), [0.5], [0], data={"x": np.zeros(3)})
    box = OrientedBox(50, 40, 30, 10, 0.4)
    assert np.allclose(Detections.from_boxes([box], [0.5]).corners()[0], box.corners())
    assert np.allclose(obb_corners([[50, 40, 30, 10, 0.4]])[0], box.corners())


# ----------------------------------------------------------------------------- crops
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


def test_assemble_scores_with_the_rules_and_flags_low_confidence():
    values = np.arange(13)
    dets = Detections(
        np.array([[100, 50, 80, 40, 0.0], [300, 52, 80, 40, 0.0], [100, 200, 80, 40, 1.0],
                  [300, 200, 80, 40, 1.0]]),
        [0.95, 0.9, 0.9, 0.4], [0, 0, 0, 0],
    )
    probs = np.full((8, 13), 0.001)
    for row, (v, p) in enumerate([(3, .99), (4, .98), (0, .99), (0, .99), (6, .5), (2, .99),
                                  (3, .97), (4, .99)]):
        probs[row, v] = p
    reading = assemble(dets, probs, values, to_original=2.0, image_size=(800, 600),
                       review_conf=0.6, rules=get_rules())
    assert [str(t.tile) for t in reading.tiles] == ["3-4", "0-0", "2-6", "3-4"]
    assert reading.pips == 7 + 0 + 8 + 7
    assert reading.penalty == 7 + 50 + 8 + 7  # 0-0 counts 50 in the default preset
    review = [t.needs_review for t in reading.tiles]
    assert review == [False, False, True, True]  # half read at 0.5; detector at 0.4
    assert reading.tiles[0].confidence == pytest.approx(0.95 * 0.99 * 0.98)
    assert reading.tiles[0].box.cx == pytest.approx(200) and reading.tiles[0].box.length == 160
    assert any("3-4 read 2 times" in w for w in reading.warnings)
    assert any("low confidence" in w for w in reading.warnings)
    lenient = assemble(dets, probs, values, to_original=1.0, image_size=(400, 300),
                       review_conf=0.6, rules=get_rules("pagat", {"zero_zero": 25}))
    assert lenient.penalty == 7 + 25 + 8 + 7
    d = reading.to_dict()
    assert d["tiles"][0]["tile"] == "3-4" and d["penalty"] == 72 and len(d["tiles"][0]["box"]) == 5
    json.dumps(d)
    # under count_conf a tile is a candidate: reported for review, never counted
    strict = assemble(dets, probs, values, to_original=2.0, image_size=(800, 600),
                      review_conf=0.6, rules=get_rules(), count_conf=0.5)
    assert [str(t.tile) for t in strict.tiles] == ["3-4", "0-0"]
    assert [str(t.tile) for t in strict.candidates] == ["2-6", "3-4"]
    assert strict.pips == 7 and strict.penalty == 57
    assert not any("read 2 times" in w for w in strict.warnings)  # the second 3-4 is not counted
    assert any("2 possible tiles too unsure to count" in w for w in strict.warnings)
    assert [c["tile"] for c in strict.to_dict()["candidates"]] == ["2-6", "3-4"]
    empty = assemble(Detections.empty(), np.zeros((0, 13)), values, to_original=1.0,
                     image_size=(10, 10), review_conf=0.6, rules=get_rules())
    assert empty.pips == 0 and empty.penalty == 0 and "no face-up tiles" in empty.warnings[0]



def _line(*specs: tuple[float, float]) -> list[OrientedBox]:
    """Boxes 80 x 40 along y = 100, one per (centre x, angle)."""
    return [OrientedBox(x, 100, 80, 40, a) for x, a in specs]


def test_apart_drops_a_box_astride_two_touching_tiles_when_they_are_surer_together():
    # tiles at 40 and 120 touch end to end; the box at 80 straddles their joint
    boxes = _line((40, 0.0), (80, 0.0), (120, 0.0))
    assert apart(boxes, [0.6, 0.9, 0.7], 0.4).tolist() == [True, False, True]
    # the two together are less sure than the one across them: it stays, they go
    assert apart(boxes, [0.3, 0.9, 0.4], 0.4).tolist() == [False, True, False]
    # a double crosswise at the line's end touches it and overlaps nothing: kept whatever its weight
    with_double = [*boxes, OrientedBox(180, 100, 80, 40, math.pi / 2)]
    assert apart(with_double, [0.6, 0.9, 0.7, 0.1], 0.4).tolist() == [True, False, True, True]
    # overlaps under the share allowed are no conflict; 0 turns the check off
    assert apart(boxes, [0.6, 0.9, 0.7], 0.6).all()
    assert apart(boxes, [0.6, 0.9, 0.7], 0.0).all()
    assert apart([], [], 0.4).tolist() == []
    # groups far apart are settled each on its own
    far = _line((40, 0.0), (80, 0.0), (120, 0.0), (1040, 0.0), (1080, 0.0))
    assert apart(far, [0.6, 0.9, 0.7, 0.5, 0.8], 0.4).tolist() == [True, False, True, False, True]


def _boxes_and_weights():
    box = st.builds(OrientedBox, st.floats(0, 300), st.floats(0, 300), st.floats(40, 90),
                    st.floats(20, 40), st.floats(0, math.pi))
    return st.lists(st.tuples(box, st.floats(0.01, 1.0)), min_size=0, max_size=APART_EXACT + 4)


@settings(max_examples=60, deadline=None)
@given(_boxes_and_weights())
def test_apart_keeps_a_set_that_overlaps_nowhere_and_misses_nothing_it_could_add(items):
    from vision.geometry import overlap_share

    boxes, weights = [b for b, _ in items], [w for _, w in items]
    keep = apart(boxes, weights, 0.4)
    corners = [b.corners() for b in boxes]
    kept = np.flatnonzero(keep)
    assert all(overlap_share(corners[i], corners[j]) <= 0.4 for i in kept for j in kept if i < j)
    for i in np.flatnonzero(~keep):  # each box dropped overlaps one kept
        assert any(overlap_share(corners[i], corners[j]) > 0.4 for j in kept)
    # never lighter than taking the surest box first (what a greedy pass would keep)
    greedy: list[int] = []
    for i in sorted(range(len(boxes)), key=lambda i: -weights[i]):
        if all(overlap_share(corners[i], corners[j]) <= 0.4 for j in greedy):
            greedy.append(i)
    assert sum(weights[i] for i in kept) >= sum(weights[i] for i in greedy) - 1e-9


def test_assemble_counts_no_two_overlapping_tiles():
    values = np.arange(13)
    # 3-4 and 5-1 touch end to end; a detection astride them reads 4-5 surely (real halves of both)
    dets = Detections(np.array([[40, 100, 80, 40, 0.0], [80, 100, 80, 40, 0.0], [120, 100, 80, 40, 0.0]]),
                      [0.8, 0.9, 0.85], [0, 0, 0])
    probs = np.full((6, 13), 0.001)
    for row, v in enumerate([3, 4, 4, 5, 5, 1]):
        probs[row, v] = 0.99
    loose = assemble(dets, probs, values, to_original=1.0, image_size=(300, 200), review_conf=0.6,
                     rules=get_rules(), count_conf=0.5)
    assert sorted(str(t.tile) for t in loose.tiles) == ["1-5", "3-4", "4-5"] and loose.pips == 22
    reading = assemble(dets, probs, values, to_original=1.0, image_size=(300, 200), review_conf=0.6,
                       rules=get_rules(), count_conf=0.5, overlap_max=0.4)
    assert sorted(str(t.tile) for t in reading.tiles) == ["1-5", "3-4"] and reading.pips == 13
    assert [(str(t.tile), t.uncounted) for t in reading.candidates] == [("4-5", "overlap")]
    assert any("1 possible tile overlaps a surer tile" in w for w in reading.warnings)
    assert reading.to_dict()["candidates"][0]["uncounted"] == "overlap"


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


# ----------------------------------------------------------------------------- config
def test_reader_config_loading(tmp_path: Path):
    with pytest.raises(ModelError, match=r"no reader\.json"):
        ReaderConfig.load(tmp_path / "reader.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ModelError):
        ReaderConfig.load(bad)
    bad.write_text(json.dumps({"fast_nms": "no"}))
    with pytest.raises(ModelError):
        ReaderConfig.load(bad)
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"det_imgsz": 416, "review_conf": 0.7, "note": "x"}))
    cfg = ReaderConfig.load(good)
    assert cfg.det_imgsz == 416 and cfg.review_conf == 0.7 and cfg.extra == {"note": "x"}
    with pytest.raises(ModelError, match=r"reader\.json"):
        Reader.from_models_dir(tmp_path)
    good.write_text(json.dumps({"search_below": 0.9, "search_shifts": [-0.08, 0.04]}))
    assert ReaderConfig.load(good).search_shifts == (-0.08, 0.04)
    for shifts in ([0.6], ["left"], 0.1, [float("nan")]):
        bad.write_text(json.dumps({"search_shifts": shifts}))
        with pytest.raises(ModelError, match=r"search_shifts|bad value"):
            ReaderConfig.load(bad)


def test_missing_or_broken_model_files(tmp_path: Path):
    (tmp_path / "reader.json").write_text(json.dumps({"detector": "a.onnx", "classifier": "b.onnx"}))
    with pytest.raises(ModelError, match="missing"):
        Reader.from_models_dir(tmp_path)
    (tmp_path / "a.onnx").write_bytes(b"not a model")
    (tmp_path / "b.onnx").write_bytes(b"not a model")
    with pytest.raises(ModelError, match="cannot load"):
        Reader.from_models_dir(tmp_path)


# ----------------------------------------------------------------------------- whole pipeline
def test_a_half_reader_with_not_pips_leaves_print_uncounted_and_says_why(tmp_path: Path):
    pytest.importorskip("onnx", reason="building the test models needs onnx (train extra)")
    photo, models, _ = fake_models.scene(tmp_path)
    # white halves (the 0-3's 0, both halves of the 0-0) now read as "not pips"
    fake_models.write_classifier(models / "half_cls.onnx", 16, (3, 4, NOT_PIPS_CLASS),
                                 sorted([*fake_models.CLASS_NAMES, NOT_PIPS_CLASS], key=str))
    cfg = json.loads((models / "reader.json").read_text())
    (models / "reader.json").write_text(json.dumps(cfg | {"not_pips_max": 0.9, "blank_divider_min": 0.0}))
    reader = Reader.from_models_dir(models)
    assert reader.halves.has_not_pips and reader.values[-1] == NOT_PIPS
    reading = reader.read(photo)
    assert [str(t.tile) for t in reading.tiles] == ["3-4"] and reading.pips == 7
    assert reading.tiles[0].not_pips < 0.1 and reading.tiles[0].uncounted == ""
    printed = [t for t in reading.candidates if t.uncounted == "not pips"]
    assert len(printed) >= 2 and all(t.not_pips >= 0.9 for t in printed)
    assert all(t.a != NOT_PIPS and t.b != NOT_PIPS for t in reading.candidates)  # never read as x
    assert any("look like print or a back" in w for w in reading.warnings)
    as_json = reading.to_dict()
    assert as_json["tiles"][0]["not_pips"] < 0.1 and "uncounted" not in as_json["tiles"][0]
    assert {c["uncounted"] for c in as_json["candidates"]} >= {"not pips"}
    # with the veto off they are counted (these models count everything: count_conf 0) ...
    off = Reader(dataclasses.replace(reader.config, not_pips_max=1.0), reader.detector, reader.classifier,
                 models).read(photo)
    assert len(off.tiles) == len(reading.tiles) + len(printed) and not off.candidates
    # ... unless count_conf leaves them out as too unsure: their pip counts are guesses
    unsure = Reader(dataclasses.replace(reader.config, not_pips_max=1.0, count_conf=0.5), reader.detector,
                    reader.classifier, models).read(photo)
    assert [str(t.tile) for t in unsure.tiles] == ["3-4"]
    assert {t.uncounted for t in unsure.candidates} == {"unsure"}
    # look_at (a tile the layout says must lie somewhere) reports the same not-pips share
    seen = reader.look_at(photo, [t.box for t in printed[:1]])
    assert seen[0].not_pips == pytest.approx(printed[0].not_pips, abs=0.05)


def test_reader_end_to_end_through_onnxruntime(tmp_path: Path):
    pytest.importorskip("onnx", reason="building the test models needs onnx (train extra)")
    photo, models, truth = fake_models.scene(tmp_path)
    reader = Reader.from_models_dir(models)
    assert reader.det_imgsz == 320 and reader.cls_imgsz == 16
    reading = reader.read(photo)
    assert reading.image_size == (800, 600)
    got = {str(t.tile): t for t in reading.tiles}
    assert sorted(got) == sorted(name for _, name in truth)  # duplicate and back not counted
    assert reading.pips == 7 + 3 + 0 and reading.penalty == 7 + 3 + 50
    assert reading.face_down == 2  # the class-1 back and the blank back read as 0-0 (no divider)
    assert any("2 face-down" in w for w in reading.warnings)
    no_check = Reader(dataclasses.replace(reader.config, blank_divider_min=0.0), reader.detector,
                      reader.classifier, models).read(photo)
    assert sorted(str(t.tile) for t in no_check.tiles) == ["0-0", "0-0", "0-3", "3-4"]
    for box, name in truth:  # boxes come back in the photo's own pixels
        b = got[name].box
        assert (b.cx, b.cy) == pytest.approx((box.cx, box.cy), abs=1.0)
        assert (b.length, b.width) == pytest.approx((box.length, box.width), abs=1.0)
        assert math.isclose(b.angle % math.pi, box.angle % math.pi, abs_tol=0.01)
    assert got["3-4"].half_confidence[0] > 0.99 and not got["3-4"].needs_review
    assert got["0-0"].needs_review and got["0-0"].confidence < 0.6  # detector said 0.3
    assert set(reading.timings_ms) == {"decode", "detect", "halves"}
    assert reader.model_bytes > 0
    # A detector exported with dynamic shape reads a rectangle and gives the same reading.
    (tmp_path / "rect").mkdir()
    rect_photo, rect_models, _ = fake_models.scene(tmp_path / "rect", dynamic=True)
    rect = Reader.from_models_dir(rect_models)
    assert (rect.det_stride, reader.det_stride) == (32, 0)
    rect_got = {str(t.tile): t.box for t in rect.read(rect_photo).tiles}
    assert sorted(rect_got) == sorted(got)
    for name, t in got.items():
        assert (rect_got[name].cx, rect_got[name].cy) == pytest.approx((t.box.cx, t.box.cy), abs=1.0)
    # The small-tile pass runs only when tiles are small for the detector's input.
    small = Detections(np.array([[100, 100, 40, 20, 0.0]] * 3), [0.9] * 3, [0] * 3)
    big = Detections(np.array([[100, 100, 300, 150, 0.0]]), [0.9], [0])
    assert reader.needs_fine_pass(small, (1600, 1200))  # 40 px * 320/1600 = 8 px < 16
    assert not reader.needs_fine_pass(big, (1600, 1200))
    assert reader.needs_fine_pass(Detections.empty(), (1600, 1200))
    assert not reader.needs_fine_pass(small, (600, 450))  # under twice the input size
    # Mirrored-view averaging reads the same flat-colour halves.
    mirrored = Reader(dataclasses.replace(reader.config, cls_mirror=True), reader.detector,
                      reader.classifier, models)
    assert sorted(str(t.tile) for t in mirrored.read(photo).tiles) == sorted(got)
    # A PIL image or bytes give the same reading.
    again = reader.read(Image.open(photo))
    assert [str(t.tile) for t in again.tiles] == [str(t.tile) for t in reading.tiles]
    # Single-tile crop reading: the drawn 3-4 tile cut out upright.
    crop = Image.open(photo).rotate(-60, center=(250, 200)).crop((210, 120, 290, 280))
    a, b, conf = reader.read_tile_crop(crop)
    assert (a, b) == (3, 4) and conf > 0.9  # half A (red) ends up on top


def _shipped_models_present() -> bool:
    return (MODELS_DIR / "reader.json").exists()


needs_shipped = [
    pytest.mark.skipif(not _shipped_models_present(), reason="no trained models in models/ yet"),
    pytest.mark.skipif(not (TEST_DATA / "hand.json").exists(), reason="no tests/data/hand.json"),
]


@needs_shipped[0]
def test_shipped_sessions_do_not_spin():
    """Two sessions on two cores: a spinning worker of one would take a core from the other."""
    reader = Reader.from_models_dir()
    for session in (reader.detector, reader.classifier):
        opts = session.get_session_options()
        assert opts.get_session_config_entry("session.intra_op.allow_spinning") == "0"
        assert opts.intra_op_num_threads == reader.config.threads


@needs_shipped[0]
@needs_shipped[1]
def test_shipped_models_run_on_the_shipped_test_photo():
    label = json.loads((TEST_DATA / "hand.json").read_text())
    reader = Reader.from_models_dir()
    reading = reader.read(TEST_DATA / label["image"])
    w, h = reading.image_size
    assert (w, h) == Image.open(TEST_DATA / label["image"]).size
    for t in reading.tiles:
        assert 0 <= t.a <= reader.config.max_value and 0 <= t.b <= reader.config.max_value
        assert 0.0 <= t.confidence <= 1.0 and t.needs_review == (t.confidence < reader.config.review_conf)
        assert -0.5 * t.box.length <= t.box.cx <= w + 0.5 * t.box.length
    assert reading.penalty == get_rules().penalty(reading.tile_list)
    assert reading.pips == sum(t.pips for t in reading.tile_list)


@needs_shipped[0]
@needs_shipped[1]
def test_final_models_read_the_shipped_test_photo_right():
    config = json.loads((MODELS_DIR / "reader.json").read_text())
    if config.get("stage") != "final":
        pytest.skip(f"reader.json stage is {config.get('stage')!r}, not 'final': accuracy not asserted")
    label = json.loads((TEST_DATA / "hand.json").read_text())
    reading = Reader.from_models_dir().read(TEST_DATA / label["image"])
    expected = Counter(Tile.parse(t) for t in label["tiles"])
    read = Counter(reading.tile_list)
    # Every labelled tile is found and read exactly ...
    assert not expected - read, f"missed or misread: {sorted(expected - read)}"
    # ... and at most one extra reading, which the reading itself points out: flagged for review
    # or warned about as read twice. (Session-2 models counted one face-down tile of this photo
    # as a flagged 1-0; the shipped ones leave it an uncounted candidate.)
    extra = read - expected
    assert sum(extra.values()) <= 1, f"extra readings: {sorted(extra.elements())}"
    for tile in extra:
        assert (any(w.startswith(f"{tile} read") for w in reading.warnings)
                or all(t.needs_review for t in reading.tiles if t.tile == tile))
    assert reading.pips == label["pips"] + sum(t.pips for t in extra.elements())
    assert reading.penalty == get_rules().penalty(reading.tile_list)


@needs_shipped[0]
@needs_shipped[1]
def test_a_photo_of_small_tiles_is_asked_to_be_taken_closer(tmp_path: Path):
    label = json.loads((TEST_DATA / "hand.json").read_text())
    reader = Reader.from_models_dir()
    assert reader.config.small_tile_px > 0
    photo = TEST_DATA / label["image"]
    close = reader.read(photo)
    assert not [w for w in close.warnings if "closer" in w]
    with Image.open(photo) as im:  # the same hand from further away: tiles about 50 px long
        im.resize((im.width * 2 // 5, im.height * 2 // 5), Image.Resampling.LANCZOS).save(tmp_path / "far.png")
    far = reader.read(tmp_path / "far.png")
    assert far.tiles and max(t.box.length for t in far.tiles) < reader.config.small_tile_px
    assert len([w for w in far.warnings if "closer" in w]) == 1
    # a whole layout cannot be taken closer: the table reader never asks
    assert not [w for w in reader.for_table().read(tmp_path / "far.png").warnings if "closer" in w]


REAL_PRINTED = ROOT.parent / "shared" / "realdata" / "TAK1EDD1NE__domino-tile-recognition" / (
    "Double Six Domino.v8i.yolov5pytorch") / "valid" / "images"


@needs_shipped[0]
@pytest.mark.skipif(not REAL_PRINTED.is_dir(), reason="../shared/realdata (TAK1EDD1NE) not here")
def test_final_models_do_not_count_printed_matter_in_real_photos(capsys):
    """Two real photos (validation only, never trained on) whose printed matter the reader used
    to count: a row of face-down tiles with a logo on each back, and a box lid's lettering. The
    half reader's not-pips class leaves them uncounted, and says why."""
    config = json.loads((MODELS_DIR / "reader.json").read_text())
    if config.get("stage") != "final":
        pytest.skip("accuracy is asserted for the final models only")
    reader = Reader.from_models_dir()
    assert reader.halves.has_not_pips and reader.config.not_pips_max < 1.0
    backs = next(REAL_PRINTED.glob("Hda20a87cd*.jpg"))
    reading = reader.read(backs)
    # the seven face-up tiles of the bottom row, 57 pips; the six logo backs above them not counted
    assert sorted(str(t.tile) for t in reading.tiles) == ["3-3", "3-4", "3-5", "3-6", "4-4", "4-5", "4-6"]
    assert reading.pips == 57
    printed = [t for t in reading.candidates if t.uncounted == "not pips"]
    assert len(printed) >= 5 and all(t.not_pips >= reader.config.not_pips_max for t in printed)
    assert any("look like print or a back" in w for w in reading.warnings)
    lid = next(REAL_PRINTED.glob("9a814146c1*.jpg"))
    assert reader.read(lid).pips == 79  # the 13 tiles of the layout; the box lid's "DOMINOES" is not a 6-6

    from companion.cli.main import main as cli

    assert cli(["score", str(backs)]) == 0
    assert "NOT COUNTED (looks like print, not pips)" in capsys.readouterr().out


@needs_shipped[0]
def test_final_models_read_a_double_18_hand_with_the_wide_set_classifier():
    """tests/data/hand18.jpg: 16 tiles of one double-18 set (made by make_test_photo.py). Told
    the set, the reader reads its halves of 13-18 with the wide-set classifier."""
    config = json.loads((MODELS_DIR / "reader.json").read_text())
    if config.get("stage") != "final" or not config.get("classifier_wide"):
        pytest.skip("no final wide-set classifier in models/: accuracy not asserted")
    label = json.loads((TEST_DATA / "hand18.json").read_text())
    reader = Reader.from_models_dir()
    reading = reader.read(TEST_DATA / label["image"], top=label["set"])
    assert Counter(reading.tile_list) == Counter(Tile.parse(t) for t in label["tiles"])
    assert sum(t.high > 12 for t in reading.tile_list) >= 5 and reading.pips == label["pips"]
    assert not any("at most" in w for w in reading.warnings)
    # told nothing, the reader keeps to the shipped 0-12 classifier
    plain = reader.read(TEST_DATA / label["image"])
    assert all(t.high <= 12 for t in plain.tile_list) and plain.pips < label["pips"]


@needs_shipped[0]
@needs_shipped[1]
def test_box_search_moves_shifted_boxes_back_onto_their_tiles():
    """The true boxes of the shipped test photo, each pushed a fifteenth of its length along its
    axis (about the detector's worst errors), read with and without the box search."""
    label = json.loads((TEST_DATA / "hand.json").read_text())
    shipped = Reader.from_models_dir()
    loaded = shipped.load(TEST_DATA / label["image"])
    truth = [OrientedBox(*b["box"]).scaled(loaded.scale) for b in label["boxes"]]
    values = [(b["a"], b["b"]) for b in label["boxes"]]
    pushed = []
    for k, t in enumerate(truth):
        u, _ = t.axes()
        step = (1 if k % 2 else -1) * t.length / 15
        pushed.append(OrientedBox(t.cx + u[0] * step, t.cy + u[1] * step, t.length, t.width, t.angle))
    dets = Detections.from_boxes(pushed, np.full(len(pushed), 0.9))
    h = shipped.half_reader(None)
    probs = shipped.read_halves(crop_halves(loaded.image, dets, shipped.config.crop_size, shipped.config.crop_pad,
                                            h.imgsz, shipped.config.crop_max_source_px), h)

    def outcome(reader: Reader):
        tiles, p, choice = reader.search_boxes(loaded.image, dets, probs, choose_values(probs, h.values), None, h)
        sure, _ = half_sureness(p, choice, h.values)
        read = [tuple(int(v) for v in h.values[choice[2 * i : 2 * i + 2]]) for i in range(len(tiles))]
        off = [abs(float(np.dot(np.subtract(b[:2], (t.cx, t.cy)), t.axes()[0]))) / t.length
               for b, t in zip(tiles.boxes, truth, strict=True)]
        return tiles, sure, read, off

    off_cfg = dataclasses.replace(shipped.config, search_below=0.0)
    tiles0, sure0, read0, off0 = outcome(shipped.with_config(off_cfg))
    assert np.array_equal(tiles0.boxes, dets.boxes)  # off: nothing moves
    on_cfg = dataclasses.replace(shipped.config, search_below=1.01, search_shifts=(-0.08, -0.04, 0.04, 0.08))
    tiles1, sure1, read1, off1 = outcome(shipped.with_config(on_cfg))
    assert np.all(sure1 >= sure0 - 1e-9)  # a box moves only when its halves read surer
    assert np.array_equal(tiles1.confidence, dets.confidence)  # the detector's word is kept
    moved = [i for i in range(len(truth)) if not np.array_equal(tiles1.boxes[i], dets.boxes[i])]
    assert len(moved) >= len(truth) // 2
    assert np.mean([off1[i] for i in moved]) < np.mean([off0[i] for i in moved])
    right = [sum(r in (v, v[::-1]) for r, v in zip(read, values, strict=True)) for read in (read0, read1)]
    assert right[1] >= right[0]
    # and through read(): the shipped settings read the photo with the search as configured
    assert shipped.config.search_below > 0 and shipped.config.search_shifts


def test_the_training_config_writes_the_shipped_reader_settings():
    """``vision.train`` writes the yaml's ``reader`` block into a new reader.json: retraining from
    it must give the settings that ship."""
    import yaml

    block = yaml.safe_load((ROOT / "datasets" / "reader_train.yaml").read_text())["reader"]
    shipped = json.loads((MODELS_DIR / "reader.json").read_text())
    assert {k: shipped.get(k) for k in block} == block
    known = {f.name for f in dataclasses.fields(ReaderConfig)}
    assert set(block) <= known
    # ... and every reader-side setting that ships away from its default is in it
    trainer_written = {"detector", "classifier", "classifier_wide", "det_imgsz", "cls_imgsz", "crop_size", "crop_pad",
                       "max_value"}
    default = ReaderConfig()
    moved = {k for k in known - trainer_written if k in shipped and shipped[k] != getattr(default, k)}
    assert moved <= set(block), f"set in reader.json, missing from the yaml's reader block: {moved - set(block)}"


# ----------------------------------------------------------------------------- evaluation helpers
def test_polygon_iou_and_matching_helpers():
    from vision.evaluate import aabb_iou, greedy_match, half_pairs, match_by_value, polygon_iou

    a = OrientedBox(100, 100, 80, 40, 0.3).corners()
    assert polygon_iou(a, a) == pytest.approx(1.0)
    assert polygon_iou(a, a[::-1]) == pytest.approx(1.0)  # winding does not matter
    shifted = OrientedBox(140, 100, 80, 40, 0.0).corners()
    base = OrientedBox(100, 100, 80, 40, 0.0).corners()
    assert polygon_iou(base, shifted) == pytest.approx(40 / 120)
    assert polygon_iou(base, OrientedBox(500, 500, 80, 40, 0).corners()) == 0.0
    assert aabb_iou((0, 0, 10, 10), (5, 0, 15, 10)) == pytest.approx(1 / 3)
    assert greedy_match(2, 2, lambda i, j: [[0.9, 0.6], [0.7, 0.2]][i][j]) == [(0, 0)]
    gt = [Tile(3, 4), Tile(0, 0), Tile(5, 6)]
    pairs = match_by_value(gt, [Tile(5, 5), Tile(4, 3)])
    assert sorted(pairs) == [(0, 1), (2, 0)]
    assert half_pairs((3, 4), (4, 3), oriented=False) == [(3, 3), (4, 4)]
    assert half_pairs((3, 4), (4, 3), oriented=True) == [(3, 4), (4, 3)]


def rendered_folder(tmp_path: Path, halves: dict[str, tuple[int, int]], extra: tuple[dict, ...] = ()
                    ) -> tuple[Path, Path, Path, list[dict]]:
    """The fake scene as a rendered set of one photo (``x.jpg``), labelled with ``halves`` per
    drawn tile plus ``extra`` labels; (photo, models, folder, labels)."""
    photo, models, truth = fake_models.scene(tmp_path)
    folder = tmp_path / "rendered"
    (folder / "images" / "val").mkdir(parents=True)
    (folder / "tiles" / "val").mkdir(parents=True)
    Image.open(photo).save(folder / "images" / "val" / "x.jpg", quality=95)
    labels = [{"tile": name, "a": halves[name][0], "b": halves[name][1],
               "box": [b.cx, b.cy, b.length, b.width, b.angle]} for b, name in truth] + list(extra)
    (folder / "tiles" / "val" / "x.json").write_text(json.dumps(labels))
    return photo, models, folder, labels


def test_evaluate_scores_a_rendered_folder_and_skips_absent_realdata(tmp_path: Path, capsys):
    pytest.importorskip("onnx", reason="building the test models needs onnx (train extra)")
    from vision import evaluate

    photo, models, folder, labels = rendered_folder(tmp_path, {"3-4": (3, 4), "0-3": (0, 3), "0-0": (0, 0)})
    code = evaluate.main(["--models", str(models), "--rendered", str(folder),
                          "--realdata", str(tmp_path / "absent"), "--json", str(tmp_path / "r.json")])
    out = capsys.readouterr().out
    assert code == 0
    assert "skipped" in out and "absent" in out
    fig = json.loads((tmp_path / "r.json").read_text())["rendered"]
    assert fig["recall"] == 1.0 and fig["precision"] == 1.0
    assert fig["half_accuracy"] == 1.0 and fig["exact_tile"] == 1.0 and fig["total_exact"] == 1.0
    assert fig["penalty_exact"] == 1.0 and fig["penalty_mae"] == 0.0
    # the 0-0 (detector score 0.3) was right but flagged; nothing was wrong
    assert fig["right_reads_flagged"] == pytest.approx(1 / 3, abs=1e-4) and fig["wrong_reads_flagged"] is None
    assert "flagged wrong/right" in out
    assert fig["lost"] == {"misread": 0, "unsure": 0, "not pips": 0, "overlap": 0, "not found": 0}
    assert fig["by_colour"] == {"colour": [3, 3]}
    # a label where no tile lies is "not found"; a grey copy of the photo is counted as grey
    Image.open(photo).convert("L").convert("RGB").save(folder / "images" / "val" / "y.jpg", quality=95)
    far = OrientedBox(5, 5, 4, 2, 0.0)
    (folder / "tiles" / "val" / "y.json").write_text(json.dumps(
        [*labels, {"tile": "6-6", "a": 6, "b": 6, "box": [far.cx, far.cy, far.length, far.width, far.angle]}]))
    assert evaluate.main(["--models", str(models), "--rendered", str(folder), "--skip-real",
                          "--json", str(tmp_path / "r2.json")]) == 0
    assert "not found 1" in capsys.readouterr().out
    fig = json.loads((tmp_path / "r2.json").read_text())["rendered"]
    # (the fake classifier reads colour, so the grey copy's tiles are misread: causes still add up)
    assert fig["lost"]["not found"] == 1 and fig["by_colour"]["colour"] == [3, 3] and fig["by_colour"]["grey"][0] == 4
    assert sum(fig["lost"].values()) == 7 - 3 - fig["by_colour"]["grey"][1]
    (folder / "images" / "val" / "y.jpg").unlink()
    (folder / "tiles" / "val" / "y.json").unlink()
    # --set 18: the reader is told the set, so the wide-set classifier reads the halves (red 15
    # to it, where the labels say 3: the 3-4 and 0-3 are now misread)
    fake_models.write_classifier(models / "half_cls18.onnx", 16, (15, 4, 0), fake_models.WIDE_NAMES)
    cfg = json.loads((models / "reader.json").read_text()) | {"classifier_wide": "half_cls18.onnx"}
    (models / "reader.json").write_text(json.dumps(cfg))
    code = evaluate.main(["--models", str(models), "--rendered", str(folder), "--set", "18",
                          "--skip-real", "--json", str(tmp_path / "r18.json")])
    assert code == 0 and "read as a double-18 set (halves read up to 18)" in capsys.readouterr().out
    fig = json.loads((tmp_path / "r18.json").read_text())["rendered"]
    assert fig["recall"] == 1.0 and fig["exact_tile"] == pytest.approx(1 / 3, abs=1e-4)
    assert fig["lost"]["misread"] == 2

def test_evaluate_lists_and_draws_the_tiles_it_did_not_read_exactly(tmp_path: Path, capsys):
    """``--lost`` / ``--lost-montage``: a label the reader finds nothing on (a 5-5 on bare felt)
    and one it reads otherwise (the 3-4 labelled 3-5) each come back with the reason and the read."""
    pytest.importorskip("onnx", reason="building the test models needs onnx (train extra)")
    from vision import evaluate

    _, models, folder, _ = rendered_folder(tmp_path, {"3-4": (3, 5), "0-3": (0, 3), "0-0": (0, 0)},
                                           ({"tile": "5-5", "a": 5, "b": 5, "box": [100.0, 540.0, 90.0, 45.0, 0.0]},))
    code = evaluate.main(["--models", str(models), "--rendered", str(folder), "--skip-real",
                          "--lost", str(tmp_path / "lost.json"), "--lost-montage", str(tmp_path / "lost.png")])
    assert code == 0
    assert "2 tiles not read exactly written" in capsys.readouterr().out
    lost = {e["tile"]: e for e in json.loads((tmp_path / "lost.json").read_text())}
    assert set(lost) == {"3-5", "5-5"}
    assert lost["3-5"]["reason"] == "misread" and lost["3-5"]["read"] in ("3-4", "4-3")
    assert lost["3-5"]["confidence"] > 0.5 and lost["3-5"]["read_box"] is not None
    assert lost["5-5"]["reason"] == "not found" and lost["5-5"]["read"] is None and lost["5-5"]["read_box"] is None
    assert lost["5-5"]["photo"].endswith("x.jpg") and lost["5-5"]["length"] == 90.0
    sheet = Image.open(tmp_path / "lost.png")
    assert sheet.size == (2 * 240, 240)
    # the true boxes are drawn in bright green (the felt is a dull one)
    px = np.asarray(sheet.convert("RGB")).reshape(-1, 3).astype(int)
    assert np.any((px[:, 1] > 200) & (px[:, 0] < 90) & (px[:, 2] < 90))


def test_evaluator_says_why_a_true_tile_was_lost():
    """Misread, left uncounted (with the reader's reason) or never read: each true tile that
    was not read exactly is put down to one cause."""
    from vision.evaluate import Evaluator
    from vision.reader import Reading, TileReading

    def read(a, b, box, uncounted=""):
        return TileReading(a, b, 0.9, box, False, 0.9, (0.9, 0.9), uncounted=uncounted)

    boxes = [OrientedBox(100 + 150 * k, 100, 80, 40, 0.0) for k in range(5)]
    gt = [(1, 2), (3, 4), (5, 6), (0, 1), (2, 2)]
    reading = Reading(tiles=(read(1, 2, boxes[0]), read(3, 5, boxes[1])), pips=11, penalty=11, warnings=(),
                      image_size=(1000, 300),
                      candidates=(read(5, 6, boxes[2], "not pips"), read(0, 1, boxes[3], "unsure")))
    ev = Evaluator(None)  # type: ignore[arg-type]  # scoring a reading never calls the reader
    assert ev._score_oriented("rendered", "colour", gt, boxes, reading) == 1
    t = ev.tally("rendered", "colour")
    assert dict(t.lost) == {"misread": 1, "not pips": 1, "unsure": 1, "not found": 1}
    assert t.exact == 1 and t.matched == 2


def test_closeup_crops_frame_one_tile_and_never_cut_another():
    from vision.evaluate import _quad_in_rect, closeup_crop

    def label(cx, cy, length, angle):
        quad = obb_corners(np.array([[cx, cy, length, length / 2, angle]]))[0]
        return {"box": [cx, cy, length, length / 2, angle], "quad": quad.tolist()}

    # a big tile with a smaller one just below it, a far one, and one too short to frame
    labels = [label(400, 300, 200, 0.0), label(400, 420, 100, 0.0), label(1000, 700, 160, 1.2), label(100, 700, 40, 0.0)]
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(40):
        found = closeup_crop(labels, (1280, 960), rng)
        assert found is not None
        rect, inside = found
        shares = [_quad_in_rect(np.asarray(lab["quad"]), rect) for lab in labels]
        assert all(v < 1e-3 or v > 1 - 1e-3 for v in shares)  # nothing cut by the edge
        assert inside == [i for i, v in enumerate(shares) if v > 0.5] and 3 not in inside
        longest = max(labels[i]["box"][2] for i in inside)
        assert 0.55 * max(rect[2] - rect[0], rect[3] - rect[1]) - 2 <= longest <= 0.9 * max(rect[2] - rect[0], rect[3] - rect[1]) + 2
        seen.update(inside)
    assert {0, 1, 2} <= seen
    assert closeup_crop([labels[3]], (1280, 960), rng) is None  # no tile long enough


def test_tally_counts_how_many_wrong_reads_were_flagged():
    from vision.evaluate import Tally

    t = Tally("x")
    t.add_tiles([((3, 4), (3, 4)), ((1, 2), (1, 5)), ((6, 6), (6, 6))], True, 4, 4,
                flags=[False, True, True], unmatched_flags=[False])
    f = t.figures()
    assert (t.wrong, t.wrong_flagged, t.right, t.right_flagged) == (2, 1, 2, 1)
    assert f["wrong_reads_flagged"] == 0.5 and f["right_reads_flagged"] == 0.5
    t.add_tiles([((0, 0), (0, 1))], True, 1, 1)  # a crop: no flags, not counted either way
    assert t.wrong == 2 and t.exact == 2


def test_tally_penalty_sees_a_missed_double_blank_that_the_pip_total_does_not():
    """A 0-0 left out keeps the pip total right and costs its owner 50 points."""
    from vision.evaluate import Tally

    rules = get_rules()
    truth = [Tile(0, 0), Tile(3, 4)]
    t = Tally("x")
    t.add_total(7, 7)  # the 3-4 alone was read
    t.add_penalty(rules.penalty(truth), rules.penalty([Tile(3, 4)]))
    t.add_total(7, 7)
    t.add_penalty(rules.penalty(truth), rules.penalty(truth))
    f = t.figures()
    assert f["total_exact"] == 1.0 and f["total_mae"] == 0.0
    assert f["penalty_exact"] == 0.5 and f["penalty_mae"] == 25.0
    other = Tally("y")
    other.merge(t)
    assert other.figures()["penalty_exact"] == 0.5


def test_small_tile_windows_only_where_the_whole_photo_pass_saw_doubt(tmp_path: Path):
    """With ``fine_seed_conf`` the windowed pass skips bare table and tiles already seen clearly."""
    pytest.importorskip("onnx", reason="building the test models needs onnx (train extra)")
    _, models, _ = fake_models.scene(tmp_path)
    base = Reader.from_models_dir(models)
    cfg = dataclasses.replace(base.config, det_conf=0.3, fine_grid=3, fine_trigger_px=40.0, fine_seed_conf=0.05)

    class Recording(Reader):
        first: Detections = Detections.empty()
        searched: ClassVar[list] = []

        def detect_window(self, image, window=None, conf=None):
            if window is None:
                return self.first[self.first.confidence > (conf or 0)]
            self.searched.append(window)
            return Detections.empty()

    reader = Recording(cfg, base.detector, base.classifier, models)
    image = Image.new("RGB", (1600, 1200))
    # whole-photo pass (gain 416/1600 = 0.26): a clear big tile top left, a small one bottom right
    # (40 px -> 10 px < 40; two of them, so the median tile is small) and an unsure one (conf 0.1)
    reader.first = Detections(np.array([[200, 200, 400, 200, 0.0], [1500, 1100, 40, 20, 0.0],
                                        [1450, 1120, 40, 20, 0.0], [800, 600, 400, 200, 0.0]]),
                              [0.9, 0.8, 0.8, 0.1], [0, 0, 0, 0])
    reader.detect(image)
    windows = grid_windows(image.size, 3)
    assert reader.searched == [w for w in windows if (w[0] <= 800 < w[2] and w[1] <= 600 < w[3])
                               or (w[0] <= 1500 < w[2] and w[1] <= 1100 < w[3])]
    assert 1 < len(reader.searched) < 9
    # a budget of one window goes where most doubtful tiles are (the two small ones)
    reader.searched = []
    reader.config = dataclasses.replace(cfg, fine_max_windows=1)
    reader.detect(image)
    assert reader.searched == [windows[-1]]
    reader.searched = []
    reader.config = dataclasses.replace(cfg, fine_seed_conf=0.0)
    reader.detect(image)
    assert reader.searched == windows  # 0: every window


def test_zoom_pass_runs_the_whole_photo_once_at_the_least_zoom_that_lifts_small_tiles(tmp_path: Path):
    """``fine_mode="zoom"``: no windows; one more pass over the whole photo at 2 or 3 x the input."""
    pytest.importorskip("onnx", reason="building the test models needs onnx (train extra)")
    _, models, _ = fake_models.scene(tmp_path)
    base = Reader.from_models_dir(models)
    cfg = dataclasses.replace(base.config, det_conf=0.3, fine_grid=3, fine_trigger_px=40.0, fine_mode="zoom")

    class Recording(Reader):
        first: Detections = Detections.empty()
        zooms: ClassVar[list] = []

        def detect_window(self, image, window=None, conf=None):
            assert window is None, "zoom mode searches no windows"
            return self.first[self.first.confidence > (conf or 0)]

        def detect_zoomed(self, image, zoom, region=None):
            assert region is None, "fine_roi_margin 0 zooms the whole photo"
            self.zooms.append(zoom)
            return Detections(np.array([[1500.0, 1100.0, 40.0, 20.0, 0.0]]), [0.95], [0])

    reader = Recording(cfg, base.detector, base.classifier, models)
    reader.det_stride = 32  # the shipped detector has a dynamic input
    image = Image.new("RGB", (1600, 1200))
    gain = 416 / 1600
    # median tile 120 px -> 31 px at the input: zoom 2 lifts it to 62 >= 40
    reader.first = Detections(np.array([[200, 200, 120, 60, 0.0], [800, 600, 120, 60, 0.0]]), [0.9, 0.9], [0, 0])
    dets = reader.detect(image)
    assert reader.zooms == [2] and len(dets) == 3
    # median tile 50 px -> 13 px: even zoom 3 (39 px) falls short, and 3 is the most allowed
    reader.first = Detections(np.array([[200, 200, 50, 25, 0.0], [800, 600, 50, 25, 0.0]]), [0.9, 0.9], [0, 0])
    reader.detect(image)
    assert reader.zooms == [2, 3]
    assert reader.zoom_factor(Detections.empty(), gain) == 3
    with pytest.raises(ValueError, match="fine_mode"):
        ReaderConfig(fine_mode="tiles")


def _noting_detector_sizes(models: Path) -> tuple[Reader, list[int]]:
    """The reader of ``models``, and the list it appends each detector run's input size to."""
    sizes: list[int] = []

    class Recording(Reader):
        def _run_detector(self, image, size, conf):
            sizes.append(size)
            return super()._run_detector(image, size, conf)

    base = Reader.from_models_dir(models)
    return Recording(base.config, base.detector, base.classifier, models), sizes


def test_zoom_pass_input_stays_a_multiple_of_the_stride_when_the_photo_caps_it(tmp_path: Path):
    """A zoom larger than the photo's own pixels is capped at them, rounded down to the stride:
    a 1000 px photo zoomed 3x (416 px input) once asked a stride-32 detector for a 1000 px input, and the real
    detector failed mid-read on it (its feature maps no longer lined up)."""
    pytest.importorskip("onnx", reason="building the test models needs onnx (train extra)")
    _, models, _ = fake_models.scene(tmp_path, dynamic=True)
    reader, sizes = _noting_detector_sizes(models)
    photo = Image.new("RGB", (1000, 750), (60, 110, 60))
    reader.detect_zoomed(photo, 4.0)  # 4 x 320 = 1280 > 1000
    assert sizes[-1] == 992 and sizes[-1] % reader.det_stride == 0
    # a region is searched at the whole photo's scale, capped at its own pixels too
    reader.detect_zoomed(photo, 1.0, (100, 100, 600, 475))
    assert sizes[-1] == math.ceil(reader.det_imgsz * 0.5 / 32) * 32
    reader.detect_zoomed(photo, 4.0, (100, 100, 600, 475))
    assert sizes[-1] == 480


def test_second_scale_pass_runs_on_big_photos_whose_tiles_need_no_zoom(tmp_path: Path):
    """``second_imgsz``: a photo at least twice the detector's input whose tiles are big enough
    for no small-tile pass is searched once more at that input size, at ``second_conf``, and the
    two passes merge (a tile seen by both stays one). Never on a small photo, never alongside the
    zoom, never when off, never with a detector of fixed input size; a size the letterbox cannot
    pad to the stride is refused."""
    pytest.importorskip("onnx", reason="building the test models needs onnx (train extra)")
    _, models, _ = fake_models.scene(tmp_path, dynamic=True)
    base = Reader.from_models_dir(models)
    calls: list[tuple[int, float]] = []
    seen_both = [200.0, 200.0, 150.0, 75.0, 0.0]

    class Recording(Reader):
        first: Detections = Detections.empty()

        def detect_window(self, image, window=None, conf=None):
            return self.first[self.first.confidence > (conf or 0)]

        def detect_zoomed(self, image, zoom, region=None):
            return Detections.empty()

        def _run_detector(self, image, size, conf):
            calls.append((size, conf))
            return Detections(np.array([[1200.0, 900.0, 150.0, 75.0, 0.0], seen_both]), [0.8, 0.85], [0, 0])

    def reader(**kw) -> Recording:
        cfg = dataclasses.replace(base.config, det_conf=0.3, fine_grid=3, fine_trigger_px=16.0, fine_mode="zoom",
                                  closeup_zoom=0.0, **kw)
        r = Recording(cfg, base.detector, base.classifier, models)
        r.det_stride = 32
        r.first = Detections(np.array([seen_both]), [0.9], [0])  # 150 px of 1600 -> 30 px at 320: no zoom
        return r

    photo = Image.new("RGB", (1600, 1200))
    on = reader(second_imgsz=640, second_conf=0.5)
    dets = on.detect(photo)
    assert calls == [(640, 0.5)]
    assert sorted(dets.boxes[:, 0].tolist()) == [200.0, 1200.0]  # the tile both saw is one box
    assert len(reader(second_imgsz=640).detect(photo)) == 2 and calls[-1] == (640, 0.3)  # det_conf at least
    calls.clear()
    assert len(reader().detect(photo)) == 1 and calls == []  # off
    assert len(on.detect(Image.new("RGB", (600, 450)))) == 1 and calls == []  # under twice the input
    on.det_stride = 0  # a detector of fixed input size takes no other
    assert len(on.detect(photo)) == 1 and calls == []
    on.det_stride = 32
    on.first = Detections(np.array([[200.0, 200.0, 40.0, 20.0, 0.0]]), [0.9], [0])  # 8 px: the zoom runs
    on.detect(photo)
    assert calls == []
    with pytest.raises(ValueError, match="second_imgsz"):
        ReaderConfig(second_imgsz=600)


def test_second_look_goes_where_the_reading_is_in_doubt(tmp_path: Path):
    """``doubt_below``: the region around tiles counted unsurely and possible tiles left unsure,
    padded by ``doubt_pad`` median lengths, enlarged so they reach ``doubt_tile_px``, capped."""
    pytest.importorskip("onnx", reason="building the test models needs onnx (train extra)")
    _, models, _ = fake_models.scene(tmp_path, dynamic=True)
    base = Reader.from_models_dir(models)
    loaded = LoadedImage(Image.new("RGB", (1000, 800)), (2000, 1600), "photo")  # working = half size

    def tile(box: OrientedBox, conf: float, uncounted: str = "") -> TileReading:
        return TileReading(3, 4, conf, box, conf < 0.8, conf, (1.0, 1.0), uncounted=uncounted)

    sure = tile(OrientedBox(1800, 1400, 80, 40, 0.0), 0.95)
    doubtful = tile(OrientedBox(400, 300, 80, 40, 0.0), 0.6)
    unsure = tile(OrientedBox(600, 300, 80, 40, 0.0), 0.3, "unsure")
    printed = tile(OrientedBox(1500, 200, 80, 40, 0.0), 0.9, "not pips")
    reading = Reading((sure, doubtful), 14, 14, (), (2000, 1600), candidates=(unsure, printed))
    cfg = dataclasses.replace(base.config, doubt_below=0.8, doubt_tile_px=80.0, doubt_pad=1.0, doubt_max_input=832)
    region, size = base.with_config(cfg).doubt_region(reading, loaded)
    # working pixels: tiles 40 x 20 at (200, 150) and (300, 150), padded by one median length (40)
    assert region == (140, 100, 360, 200)
    assert size == math.ceil(220 * 2.0 / 32) * 32 and size % base.det_stride == 0  # 40 px tiles -> 80
    small = dataclasses.replace(cfg, doubt_tile_px=400.0, doubt_max_input=500)
    assert base.with_config(small).doubt_region(reading, loaded)[1] == 480  # capped, on the stride
    calm = Reading((sure,), 7, 7, (), (2000, 1600), candidates=(printed,))
    assert base.with_config(cfg).doubt_region(calm, loaded) is None  # print is not doubt
    assert base.with_config(dataclasses.replace(cfg, doubt_below=0.0)).doubt_region(reading, loaded) is None


def test_second_look_adds_what_it_finds_in_its_region_and_reads_what_it_added(tmp_path: Path):
    pytest.importorskip("onnx", reason="building the test models needs onnx (train extra)")
    photo, models, _ = fake_models.scene(tmp_path, dynamic=True)
    reader, sizes = _noting_detector_sizes(models)
    first = reader.read(photo)
    runs = len(sizes)
    assert reader.config.doubt_below == 0.0  # off unless reader.json turns it on
    reader.config = dataclasses.replace(reader.config, doubt_below=0.99, doubt_tile_px=40.0)
    again = reader.read(photo)
    assert len(sizes) == 2 * runs + 1  # one more detector run, on the region in doubt
    loaded = reader.load(photo)
    region, size = reader.doubt_region(first, loaded)
    assert sizes[-1] == size
    # what the second look finds is placed in the photo by its region and merged: a box on a
    # tile already seen is one tile, not two
    seen = reader.detect(loaded.image)
    known = seen.boxes[0] - [region[0], region[1], 0, 0, 0]
    new = [region[2] - region[0] - 30.0, 25.0, 40.0, 20.0, 0.0]

    class Looking(Reader):
        def _run_detector(self, image, size, conf):
            assert image.size == (region[2] - region[0], region[3] - region[1])
            return Detections(np.array([known, new], np.float32), [0.9, 0.9], [0, 0])

    looking = Looking(reader.config, reader.detector, reader.classifier, models)
    merged = looking.look_again(loaded.image, seen, region, size)
    assert len(merged) == len(seen) + 1
    assert np.isclose(merged.boxes[:, :2], [region[2] - 30.0, region[1] + 25.0], atol=1e-3).all(1).any()
    assert again.pips == sum(t.tile.pips for t in again.tiles) and again.timings_ms["detect"] > 0


def test_zoom_pass_searches_only_around_what_the_whole_photo_pass_saw(tmp_path: Path):
    """``fine_roi_margin``: the zoom runs on the part of the photo around every box seen (at
    the seed confidence), that many median tile lengths wider, and its boxes come back in the
    photo's pixels; nothing seen, or a region near the whole photo, zooms the whole photo."""
    pytest.importorskip("onnx", reason="building the test models needs onnx (train extra)")
    _, models, _ = fake_models.scene(tmp_path)
    base = Reader.from_models_dir(models)
    cfg = dataclasses.replace(base.config, det_conf=0.3, fine_grid=3, fine_trigger_px=40.0, fine_mode="zoom",
                              fine_seed_conf=0.05, fine_roi_margin=1.0)
    searched: list[tuple[int, int, int, int] | None] = []

    class Recording(Reader):
        first: Detections = Detections.empty()

        def detect_window(self, image, window=None, conf=None):
            return self.first[self.first.confidence > (conf or 0)]

        def _run_detector(self, image, size, conf):
            searched.append(image.size)
            # one tile at the middle of whatever part it is shown
            return Detections(np.array([[image.width / 2, image.height / 2, 40.0, 20.0, 0.0]]), [0.95], [0])

    reader = Recording(cfg, base.detector, base.classifier, models)
    reader.det_stride = 32
    image = Image.new("RGB", (1600, 1200))
    # two small tiles (50 px long: the median) and an unsure one, all in the top left
    reader.first = Detections(np.array([[200, 200, 50, 25, 0.0], [400, 300, 50, 25, 0.0],
                                        [300, 400, 50, 25, 0.0]]), [0.9, 0.9, 0.1], [0, 0, 0])
    region = reader.zoom_region(reader.first, image.size)
    assert region == (125, 137, 475, 463)  # corners 175..425 x 187.5..412.5, 50 px wider each side
    dets = reader.detect(image)
    assert searched == [(350, 326)]
    assert any(abs(b[0] - 300) < 1 and abs(b[1] - 300) < 1 for b in dets.boxes)  # back in photo pixels
    assert reader.zoom_region(Detections.empty(), image.size) is None
    spread = Detections(np.array([[30, 30, 50, 25, 0.0], [1570, 1170, 50, 25, 0.0]]), [0.9, 0.9], [0, 0])
    assert reader.zoom_region(spread, image.size) is None
    reader.config = dataclasses.replace(cfg, fine_roi_margin=0.0)
    assert reader.zoom_region(reader.first, image.size) is None


def test_det_input_runs_a_dynamic_detector_at_another_size_and_refuses_a_fixed_one(tmp_path: Path):
    """``det_input``: the input size the detector runs at, the zoom pass scaled from it; a
    detector exported with a fixed input cannot take it (a clear error, not a crash mid-read)."""
    pytest.importorskip("onnx", reason="building the test models needs onnx (train extra)")
    (tmp_path / "dyn").mkdir()
    (tmp_path / "fixed").mkdir()
    photo, models, _ = fake_models.scene(tmp_path / "dyn", dynamic=True)
    data = json.loads((models / "reader.json").read_text())
    (models / "reader.json").write_text(json.dumps(data | {"det_input": 480}))
    reader, sizes = _noting_detector_sizes(models)
    assert reader.det_imgsz == 480
    reader.read(photo)
    assert sizes and set(sizes) == {480}
    reader.detect_zoomed(Image.new("RGB", (2000, 1500)), 2)
    assert sizes[-1] == 960  # the zoom pass is twice the new input, not twice the trained one

    _, fixed, _ = fake_models.scene(tmp_path / "fixed", dynamic=False)
    data = json.loads((fixed / "reader.json").read_text())
    (fixed / "reader.json").write_text(json.dumps(data | {"det_input": 480}))
    with pytest.raises(ModelError, match="dynamic shape"):
        Reader.from_models_dir(fixed)
    (fixed / "reader.json").write_text(json.dumps(data | {"det_input": 320}))  # its own size is fine
    assert Reader.from_models_dir(fixed).det_imgsz == 320


def test_box_refiner_moves_every_box_before_the_halves_are_read(tmp_path: Path):
    """``refiner``: each detected box is moved along its axis and resized by the refiner's
    correction (here the same for every box: a tenth of a length forward, 20% shorter),
    ``refine_iters`` times, and the halves are cut from the moved boxes."""
    pytest.importorskip("onnx", reason="building the test models needs onnx (train extra)")
    photo, models, _ = fake_models.scene(tmp_path)
    plain = Reader.from_models_dir(models)
    image = plain.load(photo).image
    before = plain.detect(image)
    assert plain.refiner is None

    fake_models.write_refiner(models / "box_refine.onnx", 0.1, math.log(0.8))
    data = json.loads((models / "reader.json").read_text())
    for iters in (1, 2):
        (models / "reader.json").write_text(json.dumps(data | {"refiner": "box_refine.onnx", "refine_iters": iters}))
        reader = Reader.from_models_dir(models)
        assert reader.refiner is not None and reader.with_config(reader.config).refiner is reader.refiner
        assert reader.model_bytes == plain.model_bytes + (models / "box_refine.onnx").stat().st_size
        after = reader.detect(image)
        assert len(after) == len(before)
        expected = before.boxes.astype(np.float64)
        for _ in range(iters):
            u = np.stack([np.cos(expected[:, 4]), np.sin(expected[:, 4])], 1)
            expected[:, :2] += u * 0.1 * expected[:, 2:3]
            expected[:, 2] *= 0.8
        assert np.allclose(after.boxes, expected, atol=1e-3)
        assert np.array_equal(after.confidence, before.confidence)
        reading = reader.read(photo)  # the whole read runs through it
        assert len(reading.tiles) + len(reading.candidates) > 0

    fake_models.write_classifier(models / "box_refine.onnx", 16)  # a model that is not a refiner
    with pytest.raises(ModelError, match="box refiner takes"):
        Reader.from_models_dir(models)
    (models / "box_refine.onnx").unlink()
    with pytest.raises(ModelError, match=r"box_refine\.onnx"):
        Reader.from_models_dir(models)


def test_wide_set_classifier_reads_only_sets_the_shipped_one_cannot(tmp_path: Path):
    """``classifier_wide``: a double-15 or double-18 set is read by the 0-18 classifier; smaller
    sets (and an unknown set) keep the shipped 0-12 one. Without it, a big set gets a warning."""
    pytest.importorskip("onnx", reason="building the test models needs onnx (train extra)")
    photo, models, _ = fake_models.scene(tmp_path)
    plain = Reader.from_models_dir(models)
    assert plain.half_reader(18) is plain.halves and plain.readable_top(15) == 12
    warned = plain.read(photo, top=15)
    assert any("at most 12 pips" in w and "13-15" in w for w in warned.warnings)
    assert not any("at most" in w for w in plain.read(photo, top=12).warnings)

    # red halves read 15 by the wide classifier (3 by the shipped one), blue 17, white 0
    fake_models.write_classifier(models / "half_cls18.onnx", 16, (15, 17, 0), fake_models.WIDE_NAMES)
    data = json.loads((models / "reader.json").read_text())
    (models / "reader.json").write_text(json.dumps(data | {"classifier_wide": "half_cls18.onnx"}))
    reader = Reader.from_models_dir(models)
    assert reader.wide_halves is not None and reader.wide_halves.top == 18
    assert reader.model_bytes == plain.model_bytes + (models / "half_cls18.onnx").stat().st_size
    assert reader.with_config(reader.config).wide is reader.wide
    for top in (None, 9, 12):
        assert reader.half_reader(top) is reader.halves
        assert sorted(str(t.tile) for t in reader.read(photo, top=top).tiles) == ["0-0", "0-3", "3-4"]
    big = reader.read(photo, top=18)
    assert sorted(str(t.tile) for t in big.tiles) == ["0-0", "0-15", "15-17"]
    assert big.pips == 47 and not any("at most" in w for w in big.warnings)
    # double-15: the wide classifier reads it, but never more pips than the set has (the blue
    # half, 17 to this classifier, takes its next best value)
    d15 = reader.read(photo, top=15)
    assert "0-15" in [str(t.tile) for t in d15.tiles] and max(max(t.a, t.b) for t in d15.tiles) == 15
    assert not any(17 in (t.a, t.b) for t in d15.tiles + d15.candidates)

    (models / "reader.json").write_text(json.dumps(data | {"classifier_wide": "half_cls18.onnx",
                                                           "wide_values": list(range(19))}))
    with pytest.raises(ModelError, match="wide-set classifier values"):
        Reader.from_models_dir(models)
    (models / "reader.json").write_text(json.dumps(data | {"classifier_wide": "nothere.onnx"}))
    with pytest.raises(ModelError, match=r"nothere\.onnx: model file missing"):
        Reader.from_models_dir(models)


def test_zoomed_pass_finds_small_tiles_the_whole_photo_pass_misses():
    """The shipped detector on a rendered photo of many small tiles: at 416 px it misses some;
    one pass at 3 x the input finds at least as many, in the photo's own pixels."""
    from datasets.render import SceneConfig, render_scene

    reader = Reader.from_models_dir()
    if not reader.det_stride:
        pytest.skip("the shipped detector has a fixed input size")
    cfg = SceneConfig(width=1600, height=1200, tile_frac=(0.04, 0.05))
    img, labels = render_scene(np.random.default_rng([77, 0]), cfg)
    truth = [t.box() for t in labels]
    whole = reader.detect_window(img)
    zoomed = reader.detect_zoomed(img, 3)

    def found(dets: Detections) -> int:
        centres = dets.boxes[:, :2]
        return sum(bool(len(centres)) and float(np.min(np.hypot(*(centres - [b.cx, b.cy]).T))) < b.width / 2
                   for b in truth)

    assert found(zoomed) >= found(whole) and found(zoomed) >= 0.9 * len(truth)


def test_closeup_pass_runs_only_when_nothing_or_a_frame_filling_tile_was_seen(tmp_path: Path):
    """``closeup_zoom``: the photo shrunk into a margin is searched too when the whole-photo pass
    found nothing, or a tile longer than ``closeup_trigger`` of the long side; never when off.
    Only its boxes of at least ``closeup_keep`` of the long side are taken."""
    pytest.importorskip("onnx", reason="building the test models needs onnx (train extra)")
    _, models, _ = fake_models.scene(tmp_path)
    base = Reader.from_models_dir(models)
    calls: list[float] = []
    whole_box = np.array([[400.0, 300.0, 700.0, 350.0, 0.0]])

    class Recording(Reader):
        first: Detections = Detections.empty()

        def detect_window(self, image, window=None, conf=None):
            return self.first

        def detect_closeup(self, image, zoom):
            calls.append(zoom)  # and a small box there, which ``closeup_keep`` leaves out
            return Detections(np.concatenate([whole_box, [[100.0, 500.0, 150.0, 75.0, 0.0]]]), [0.9, 0.9], [0, 0])

    image = Image.new("RGB", (800, 600))
    small = Detections(np.array([[200.0, 200.0, 120.0, 60.0, 0.0]]), [0.9], [0])
    big = Detections(np.array([[380.0, 300.0, 500.0, 250.0, 0.1]]), [0.8], [0])
    off = Recording(dataclasses.replace(base.config, fine_grid=0, closeup_zoom=0.0), base.detector,
                    base.classifier, models)
    assert not len(off.detect(image)) and calls == []
    on = Recording(dataclasses.replace(base.config, fine_grid=0, closeup_zoom=3.0, closeup_trigger=0.5, closeup_keep=0.25),
                   base.detector, base.classifier, models)
    assert np.allclose(on.detect(image).boxes, whole_box) and calls == [3.0]  # nothing seen
    on.first = small
    assert np.allclose(on.detect(image).boxes, small.boxes) and calls == [3.0]  # a 120 px tile: no
    on.first = big  # 500 of 800 px: searched, and the two views of one tile merge into one box
    assert len(on.detect(image)) == 1 and calls == [3.0, 3.0]


def test_closeup_pass_finds_a_tile_that_fills_the_photo():
    """The shipped detector on a rendered crop where one tile fills most of the frame: the
    close-up pass finds it, in the photo's own pixels."""
    from datasets.render import SceneConfig, render_scene
    from vision.evaluate import closeup_crop, polygon_iou

    reader = Reader.from_models_dir()
    img, labels = render_scene(np.random.default_rng([78, 3]), SceneConfig(width=1280, height=960, tile_frac=(0.2, 0.25)))
    rows = [t.to_json() for t in labels]
    found = closeup_crop(rows, img.size, np.random.default_rng(5))
    assert found is not None
    (x0, y0, x1, y1), inside = found
    crop = img.crop((x0, y0, x1, y1))
    truth = [OrientedBox(b[0] - x0, b[1] - y0, *b[2:]) for b in (rows[k]["box"] for k in inside)]
    assert max(b.length for b in truth) >= 0.55 * max(crop.size)
    closeup = Reader(dataclasses.replace(reader.config, closeup_zoom=3.0), reader.detector, reader.classifier)
    dets = closeup.detect_closeup(crop, 3.0)
    corners = obb_corners(dets.boxes)
    for b in truth:
        quad = obb_corners(np.array([[b.cx, b.cy, b.length, b.width, b.angle]]))[0]
        assert max((polygon_iou(quad, c) for c in corners), default=0.0) > 0.6


def test_a_double_blank_with_a_light_coloured_divider_is_not_a_back(tmp_path: Path):
    """``blank_colour_min``: a yellow divider on a white 0-0 hardly shows in grey, so the
    blank-divider check took the tile for a back; in colour, and drawn across, it counts. The
    blank back stays a back."""
    pytest.importorskip("onnx", reason="building the test models needs onnx (train extra)")
    photo, models, truth = fake_models.scene(tmp_path)
    image = Image.open(photo).convert("RGB")
    box = next(b for b, name in truth if name == "0-0")
    fake_models.draw_tile(image, box, fake_models.WHITE, fake_models.WHITE, divider_colour=(255, 250, 100))
    image.save(tmp_path / "yellow.png")
    reader = Reader.from_models_dir(models)
    grey_only = Reader(dataclasses.replace(reader.config, blank_colour_min=0.0), reader.detector,
                       reader.classifier, models).read(tmp_path / "yellow.png")
    assert "0-0" not in [str(t.tile) for t in grey_only.tiles] and grey_only.face_down == 3
    colour = Reader(dataclasses.replace(reader.config, blank_colour_min=0.12), reader.detector,
                    reader.classifier, models).read(tmp_path / "yellow.png")
    assert sorted(str(t.tile) for t in colour.tiles) == sorted(name for _, name in truth)
    assert colour.face_down == 2 and colour.penalty == grey_only.penalty + 50
    # a divider too short to cross the tile is not taken for one
    short = Reader(dataclasses.replace(reader.config, blank_colour_min=0.12, blank_colour_span_min=0.99),
                   reader.detector, reader.classifier, models).read(tmp_path / "yellow.png")
    assert short.face_down == 3


def test_a_back_read_double_blank_with_lettering_across_its_middle_is_a_back(tmp_path: Path):
    """``blank_wander_max``: letters across a white back's middle pass the divider tests, so it
    was counted as a 0-0 (50 points); a divider is straight and the letters are not."""
    pytest.importorskip("onnx", reason="building the test models needs onnx (train extra)")
    photo, models, truth = fake_models.scene(tmp_path)
    image = Image.open(photo).convert("RGB")
    fake_models.lettering(image, OrientedBox(640, 110, 150, 76, math.radians(20)), (30, 40, 60))
    image.save(tmp_path / "lettered.png")
    reader = Reader.from_models_dir(models)
    loose = Reader(dataclasses.replace(reader.config, blank_wander_max=0.0), reader.detector,
                   reader.classifier, models).read(tmp_path / "lettered.png")
    assert sorted(str(t.tile) for t in loose.tiles) == sorted(["0-0", *(name for _, name in truth)])
    strict = Reader(dataclasses.replace(reader.config, blank_wander_max=0.0125), reader.detector,
                    reader.classifier, models).read(tmp_path / "lettered.png")
    assert sorted(str(t.tile) for t in strict.tiles) == sorted(name for _, name in truth)
    assert strict.face_down == loose.face_down + 1 and strict.penalty == loose.penalty - 50


def test_a_double_blank_on_a_box_the_search_moved_is_tested_again_there(tmp_path: Path):
    """The 0-0 tests ran on the detector's box; when the box search moves a 0-0 read elsewhere
    (here, as a stand-in for a slide onto print, onto the blank back), the tests run again on
    the new box and the read is a back."""
    pytest.importorskip("onnx", reason="building the test models needs onnx (train extra)")
    photo, models, truth = fake_models.scene(tmp_path)
    base = Reader.from_models_dir(models)
    back = OrientedBox(640, 110, 150, 76, math.radians(20)).scaled(0.5)  # working pixels

    class Sliding(Reader):
        def search_boxes(self, image, tiles, probs, choice, top, halves):
            zero = int(np.flatnonzero(halves.values[choice].reshape(-1, 2).max(1) == 0)[0])
            boxes = tiles.boxes.copy()
            boxes[zero] = [back.cx, back.cy, back.length, back.width, back.angle]
            return Detections(boxes, tiles.confidence, tiles.class_id, tiles.data), probs, choice

    plain = base.read(photo)
    slid = Sliding(base.config, base.detector, base.classifier, models).read(photo)
    assert "0-0" in [str(t.tile) for t in plain.tiles]
    assert sorted(str(t.tile) for t in slid.tiles) == sorted(name for _, name in truth if name != "0-0")
    assert slid.face_down == plain.face_down + 1


def test_a_tile_with_no_divider_is_a_back_whatever_its_halves_read(tmp_path: Path):
    """``divider_min``: a printed back whose pattern reads as pips (here plain red, "3-3")."""
    pytest.importorskip("onnx", reason="building the test models needs onnx (train extra)")
    photo, models, truth = fake_models.scene(tmp_path)
    image = Image.open(photo).convert("RGB")
    # the detector's last box is the face-down tile at (640, 110); paint it as a patterned back
    fake_models.draw_tile(image, OrientedBox(640, 110, 150, 76, math.radians(20)), fake_models.RED,
                          fake_models.RED, divider=False)
    image.save(tmp_path / "patterned.png")
    reader = Reader.from_models_dir(models)
    plain = reader.read(tmp_path / "patterned.png")
    assert sorted(str(t.tile) for t in plain.tiles) == ["0-0", "0-3", "3-3", "3-4"]
    checked = Reader(dataclasses.replace(reader.config, divider_min=0.05), reader.detector, reader.classifier,
                     models).read(tmp_path / "patterned.png")
    assert sorted(str(t.tile) for t in checked.tiles) == sorted(name for _, name in truth)
    assert checked.face_down == plain.face_down + 1 and checked.pips == plain.pips - 6


def test_a_back_with_a_mark_across_its_middle_is_not_a_tile(tmp_path: Path):
    """``divider_span_min``: a logo on a back's middle passes the contrast test, but a divider
    runs from edge to edge; the true tiles (drawn with one) all stay."""
    pytest.importorskip("onnx", reason="building the test models needs onnx (train extra)")
    from PIL import ImageDraw

    photo, models, truth = fake_models.scene(tmp_path)
    image = Image.open(photo).convert("RGB")
    back = OrientedBox(640, 110, 150, 76, math.radians(20))
    fake_models.draw_tile(image, back, fake_models.RED, fake_models.RED, divider=False)
    ImageDraw.Draw(image).ellipse((back.cx - 12, back.cy - 12, back.cx + 12, back.cy + 12), fill=(20, 20, 20))
    image.save(tmp_path / "logo.png")
    reader = Reader.from_models_dir(models)
    contrast_only = reader.with_config(dataclasses.replace(reader.config, divider_min=0.05)).read(tmp_path / "logo.png")
    assert "3-3" in [str(t.tile) for t in contrast_only.tiles]  # the mark passes for a divider
    spanned = reader.with_config(dataclasses.replace(reader.config, divider_span_min=0.08)).read(tmp_path / "logo.png")
    assert sorted(str(t.tile) for t in spanned.tiles) == sorted(name for _, name in truth)
    assert spanned.face_down == contrast_only.face_down + 1


def _scene_with_wide_reader(folder: Path, wide: tuple[int, int, int]) -> tuple[Path, Path, dict, Reader]:
    """The fake scene and models, plus a wide-set classifier reading red, blue and white halves
    as ``wide``; its photo, models folder, reader.json as it was, and the reader."""
    pytest.importorskip("onnx", reason="building the test models needs onnx (train extra)")
    photo, models, _ = fake_models.scene(folder)
    fake_models.write_classifier(models / "half_cls18.onnx", 16, wide, fake_models.WIDE_NAMES)
    data = json.loads((models / "reader.json").read_text())
    (models / "reader.json").write_text(json.dumps(data | {"classifier_wide": "half_cls18.onnx"}))
    return photo, models, data, Reader.from_models_dir(models)


def test_second_opinion_averages_the_wide_classifier_in_on_unsure_halves_only(tmp_path: Path):
    """``second_opinion_below``: a half the shipped classifier reads less surely than that is read
    by the wide-set classifier too, its pip counts over 12 left out, and the two averaged; sure
    halves, the wide classifier's own sets and a reader without one are read as before."""
    # red halves: 3 to the shipped classifier, 15 to the wide one (beyond 12); blue 4 and 5
    _, models, data, plain = _scene_with_wide_reader(tmp_path, (15, 5, 0))

    def crops(*colours: tuple[float, float, float]) -> np.ndarray:
        return np.ascontiguousarray(np.stack([np.ones((3, 16, 16), np.float32) * np.array(c, np.float32)[:, None, None]
                                              for c in colours]))

    red, blue, purple = (1.0, 0.0, 0.0), (0.0, 0.0, 1.0), (0.5, 0.0, 0.5)
    batch = crops(red, blue, purple)
    narrow = plain.halves.classify(batch)
    wide = plain.wide_halves.classify(batch)
    assert narrow[:2].max(1).min() > 0.99 and narrow[2].max() < 0.5  # purple: red, blue or white?
    assert np.array_equal(plain.classify(batch), narrow)  # off as configured

    def with_second(below: float) -> Reader:
        return plain.with_config(dataclasses.replace(plain.config, second_opinion_below=below))

    cols = [plain.wide_halves.values.tolist().index(v) for v in plain.values.tolist()]
    restricted = wide[:, cols] / wide[:, cols].sum(1, keepdims=True)
    every = with_second(1.01).classify(batch)
    np.testing.assert_allclose(every, (narrow + restricted) / 2, atol=1e-6)
    np.testing.assert_allclose(every.sum(1), 1.0, atol=1e-6)
    v = plain.values
    assert v[every[0].argmax()] == 3  # the wide classifier's 15 is no value of a double-12 set
    # blue: each sure of its own count, so the average splits between them
    assert sorted(v[np.argsort(every[1])[-2:]].tolist()) == [4, 5] and every[1].max() < 0.51
    some = with_second(0.9).classify(batch)
    assert np.array_equal(some[:2], narrow[:2])  # sure halves: no second run
    np.testing.assert_allclose(some[2], (narrow[2] + restricted[2]) / 2, atol=1e-6)
    # the stages before the final reading (box search, second look) read with the shipped one alone
    assert np.array_equal(with_second(1.01).read_halves(batch), narrow)
    # a double-18 set is read by the wide classifier alone, as before
    assert not with_second(1.01).has_second_opinion(plain.wide_halves)
    # with a not-pips class, only the pip counts are averaged: whether the crop is a half at all
    # stays the shipped classifier's (white is "not pips" to it, 0 to the wide one)
    with_x = sorted([*fake_models.CLASS_NAMES, NOT_PIPS_CLASS], key=str)
    fake_models.write_classifier(models / "half_cls.onnx", 16, (3, 4, NOT_PIPS_CLASS), with_x)
    fake_models.write_classifier(models / "half_cls18.onnx", 16, (15, 5, 0),
                                 sorted([*fake_models.WIDE_NAMES, NOT_PIPS_CLASS], key=str))
    xr = Reader.from_models_dir(models)
    xr = xr.with_config(dataclasses.replace(xr.config, second_opinion_below=1.01))
    grey = crops((0.9, 0.9, 0.9), (0.45, 0.45, 0.95))  # white; between blue and white
    mine, theirs = xr.halves.classify(grey), xr.wide_halves.classify(grey)
    both = xr.classify(grey)
    x = xr.values == NOT_PIPS
    np.testing.assert_allclose(both[:, x], mine[:, x], atol=1e-6)
    np.testing.assert_allclose(both.sum(1), 1.0, atol=1e-6)
    pips = split_not_pips(both, xr.values)[0]
    wide_cols = [xr.wide_halves.values.tolist().index(v) for v in xr.values[~x].tolist()]
    expect = (split_not_pips(mine, xr.values)[0][:, ~x]
              + theirs[:, wide_cols] / theirs[:, wide_cols].sum(1, keepdims=True)) / 2
    np.testing.assert_allclose(pips[:, ~x], expect, atol=1e-5)
    # no wide classifier: no second opinion
    (models / "reader.json").write_text(json.dumps(data | {"second_opinion_below": 1.01}))
    alone = Reader.from_models_dir(models)
    assert alone.config.second_opinion_below == 1.01 and alone.wide_halves is None
    assert np.array_equal(alone.classify(batch), alone.halves.classify(batch))


def test_second_opinion_reads_the_final_tiles_only_where_the_shipped_classifier_doubts(tmp_path: Path):
    """In a whole reading the second opinion comes last, on the tiles read: a half both
    classifiers read alike keeps its value, a half they disagree on is read less surely, and
    halves the shipped classifier reads surely are read exactly as without it."""
    # red: 3 to the shipped classifier, 15 (no double-12 value) to the wide one; blue 4 to both
    photo, _, _, plain = _scene_with_wide_reader(tmp_path, (15, 4, 0))
    before = plain.read(photo)

    def read(below: float) -> Reading:
        return plain.with_config(dataclasses.replace(plain.config, second_opinion_below=below)).read(photo)

    def halves(reading: Reading) -> dict[str, tuple[float, float]]:
        return {str(t.tile): t.half_confidence for t in reading.tiles}

    assert halves(read(0.9)) == halves(before)  # the shipped classifier is sure of every half
    after = read(1.01)
    assert sorted(str(t.tile) for t in after.tiles) == sorted(str(t.tile) for t in before.tiles)
    threes = [c for t in after.tiles for v, c in zip((t.a, t.b), t.half_confidence, strict=True) if v == 3]
    fours = [c for t in after.tiles for v, c in zip((t.a, t.b), t.half_confidence, strict=True) if v == 4]
    assert threes and all(0.4 < c < 0.6 for c in threes)  # the wide one thinks it no 3
    assert fours and all(c > 0.95 for c in fours)  # both read 4
    # an opinion that would leave a counted tile too unsure to count decides nothing
    strict = plain.with_config(dataclasses.replace(plain.config, count_conf=0.7))
    counted = strict.read(photo)
    assert any(3 in (t.a, t.b) for t in counted.tiles)
    opinion = strict.with_config(dataclasses.replace(strict.config, second_opinion_below=1.01)).read(photo)
    assert halves(opinion) == halves(counted)
