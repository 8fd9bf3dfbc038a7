"""Reading halves over detections (:mod:`chickenfoot.vision.read`): the box search, face-down tiles by their
divider, the second opinion, through real onnxruntime runs of small models."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import fake_models
import numpy as np
import pytest
from PIL import Image
from shipped import needs_shipped

from chickenfoot.rules import get_rules
from chickenfoot.vision import read as read_stage
from chickenfoot.vision.config import ReaderConfig
from chickenfoot.vision.detections import Detections
from chickenfoot.vision.geometry import OrientedBox
from chickenfoot.vision.halves import (
    NOT_PIPS,
    NOT_PIPS_CLASS,
    choose_values,
    half_sureness,
    split_not_pips,
)
from chickenfoot.vision.read import search_boxes
from chickenfoot.vision.reader import Reader
from chickenfoot.vision.reading import Reading

ROOT = Path(__file__).resolve().parents[2]
TEST_DATA = ROOT / "tests" / "data"


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
    probs = h.classify(h.crop(loaded.image, dets, shipped.config.crop_size, shipped.config.crop_pad))

    def outcome(cfg: ReaderConfig):
        tiles, p, choice = search_boxes(loaded.image, dets, probs, choose_values(probs, h.values), h, cfg, None)
        sure, _ = half_sureness(p, choice, h.values)
        read = [tuple(int(v) for v in h.values[choice[2 * i : 2 * i + 2]]) for i in range(len(tiles))]
        off = [abs(float(np.dot(np.subtract(b[:2], (t.cx, t.cy)), t.axes()[0]))) / t.length
               for b, t in zip(tiles.boxes, truth, strict=True)]
        return tiles, sure, read, off

    off_cfg = dataclasses.replace(shipped.config, search_below=0.0)
    tiles0, sure0, read0, off0 = outcome(off_cfg)
    assert np.array_equal(tiles0.boxes, dets.boxes)  # off: nothing moves
    on_cfg = dataclasses.replace(shipped.config, search_below=1.01, search_shifts=(-0.08, -0.04, 0.04, 0.08))
    tiles1, sure1, read1, off1 = outcome(on_cfg)
    assert np.all(sure1 >= sure0 - 1e-9)  # a box moves only when its halves read surer
    assert np.array_equal(tiles1.confidence, dets.confidence)  # the detector's word is kept
    moved = [i for i in range(len(truth)) if not np.array_equal(tiles1.boxes[i], dets.boxes[i])]
    assert len(moved) >= len(truth) // 2
    assert np.mean([off1[i] for i in moved]) < np.mean([off0[i] for i in moved])
    right = [sum(r in (v, v[::-1]) for r, v in zip(read, values, strict=True)) for read in (read0, read1)]
    assert right[1] >= right[0]
    # and through read(): the shipped settings read the photo with the search as configured
    assert shipped.config.search_below > 0 and shipped.config.search_shifts


def _sure(reading: Reading) -> list[str]:
    """The tiles a reading counts with no question (flagged ones included: the fake
    detector's confidence leaves some under ``review_conf``)."""
    return sorted(str(t.tile) for t in reading.tiles if not t.question)


def _points(reading: Reading) -> int:
    """The penalty of :func:`_sure`'s tiles."""
    return get_rules().penalty([t.tile for t in reading.tiles if not t.question])


def test_a_double_blank_with_a_light_coloured_divider_is_not_a_back(tmp_path: Path):
    """``blank_colour_min``: a yellow divider on a white 0-0 hardly shows in grey, so the
    blank-divider check could not tell the tile from a back; in colour, and drawn across, it
    counts. The blank backs are asked about (the fake half reader has no not-pips class to
    call them backs), never counted."""
    pytest.importorskip("onnx", reason="building the test models needs onnx (train extra)")
    photo, models, truth = fake_models.scene(tmp_path)
    image = Image.open(photo).convert("RGB")
    box = next(b for b, name in truth if name == "0-0")
    fake_models.draw_tile(image, box, fake_models.WHITE, fake_models.WHITE, divider_colour=(255, 250, 100))
    image.save(tmp_path / "yellow.png")
    reader = Reader.from_models_dir(models)
    grey_only = reader.with_config(dataclasses.replace(reader.config, blank_colour_min=0.0)).read(tmp_path / "yellow.png")
    # the blank back and the yellow-divided 0-0 (the class-1 back is the detector's, not asked)
    assert "0-0" not in _sure(grey_only) and len(grey_only.questions) == 2 and grey_only.face_down == 1
    assert all(str(t.tile) == "0-0" and t.open and "face-down" in t.question for t in grey_only.questions)
    colour = reader.with_config(dataclasses.replace(reader.config, blank_colour_min=0.12)).read(tmp_path / "yellow.png")
    assert _sure(colour) == sorted(name for _, name in truth)
    assert len(colour.questions) == 1 and _points(colour) == _points(grey_only) + 50
    # a divider too short to cross the tile is not taken for one
    short = reader.with_config(dataclasses.replace(reader.config, blank_colour_min=0.12, blank_colour_span_min=0.99)).read(tmp_path / "yellow.png")
    assert len(short.questions) == 2


def test_a_back_read_double_blank_with_lettering_across_its_middle_is_a_back(tmp_path: Path):
    """``blank_wander_max``: letters across a white back's middle pass the divider tests, so it
    was counted as a 0-0 (50 points); a divider is straight and the letters are not."""
    pytest.importorskip("onnx", reason="building the test models needs onnx (train extra)")
    photo, models, truth = fake_models.scene(tmp_path)
    image = Image.open(photo).convert("RGB")
    fake_models.lettering(image, OrientedBox(640, 110, 150, 76, math.radians(20)), (30, 40, 60))
    image.save(tmp_path / "lettered.png")
    reader = Reader.from_models_dir(models)
    loose = reader.with_config(dataclasses.replace(reader.config, blank_wander_max=0.0)).read(tmp_path / "lettered.png")
    assert _sure(loose) == sorted(["0-0", *(name for _, name in truth)])
    strict = reader.with_config(dataclasses.replace(reader.config, blank_wander_max=0.0125)).read(tmp_path / "lettered.png")
    assert _sure(strict) == sorted(name for _, name in truth)
    assert len(strict.questions) == len(loose.questions) + 1 and _points(strict) == _points(loose) - 50


def test_a_double_blank_on_a_box_the_search_moved_is_tested_again_there(tmp_path: Path, monkeypatch):
    """The 0-0 tests ran on the detector's box; when the box search moves a 0-0 read elsewhere
    (here, as a stand-in for a slide onto print, onto the blank back), the tests run again on
    the new box and the read is no longer sure: it is asked about."""
    pytest.importorskip("onnx", reason="building the test models needs onnx (train extra)")
    photo, models, truth = fake_models.scene(tmp_path)
    base = Reader.from_models_dir(models)
    back = OrientedBox(640, 110, 150, 76, math.radians(20)).scaled(0.5)  # working pixels

    def sliding(image, tiles, probs, choice, halves, c, top):
        zero = int(np.flatnonzero((halves.values[choice].reshape(-1, 2).max(1) == 0) & ~tiles.data["ask"])[0])
        boxes = tiles.boxes.copy()
        boxes[zero] = [back.cx, back.cy, back.length, back.width, back.angle]
        return Detections(boxes, tiles.confidence, tiles.class_id, tiles.data), probs, choice

    plain = base.read(photo)
    monkeypatch.setattr(read_stage, "search_boxes", sliding)
    slid = base.read(photo)
    assert "0-0" in _sure(plain)
    assert _sure(slid) == sorted(name for _, name in truth if name != "0-0")
    assert slid.questions and _points(slid) == _points(plain) - 50


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
    wide = plain.wide.classify(batch)
    assert narrow[:2].max(1).min() > 0.99 and narrow[2].max() < 0.5  # purple: red, blue or white?
    assert np.array_equal(plain.classify(batch), narrow)  # off as configured

    def with_second(below: float) -> Reader:
        return plain.with_config(dataclasses.replace(plain.config, second_opinion_below=below))

    cols = [plain.wide.values.tolist().index(v) for v in plain.values.tolist()]
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
    # a double-18 set is read by the wide classifier alone, as before
    assert np.array_equal(with_second(1.01).classify(batch, plain.wide), wide)
    # with a not-pips class, only the pip counts are averaged: whether the crop is a half at all
    # stays the shipped classifier's (white is "not pips" to it, 0 to the wide one)
    with_x = sorted([*fake_models.CLASS_NAMES, NOT_PIPS_CLASS], key=str)
    fake_models.write_classifier(models / "half_cls.onnx", 16, (3, 4, NOT_PIPS_CLASS), with_x)
    fake_models.write_classifier(models / "half_cls18.onnx", 16, (15, 5, 0),
                                 sorted([*fake_models.WIDE_NAMES, NOT_PIPS_CLASS], key=str))
    xr = Reader.from_models_dir(models)
    xr = xr.with_config(dataclasses.replace(xr.config, second_opinion_below=1.01))
    grey = crops((0.9, 0.9, 0.9), (0.45, 0.45, 0.95))  # white; between blue and white
    mine, theirs = xr.halves.classify(grey), xr.wide.classify(grey)
    both = xr.classify(grey)
    x = xr.values == NOT_PIPS
    np.testing.assert_allclose(both[:, x], mine[:, x], atol=1e-6)
    np.testing.assert_allclose(both.sum(1), 1.0, atol=1e-6)
    pips = split_not_pips(both, xr.values)[0]
    wide_cols = [xr.wide.values.tolist().index(v) for v in xr.values[~x].tolist()]
    expect = (split_not_pips(mine, xr.values)[0][:, ~x]
              + theirs[:, wide_cols] / theirs[:, wide_cols].sum(1, keepdims=True)) / 2
    np.testing.assert_allclose(pips[:, ~x], expect, atol=1e-5)
    # no wide classifier: no second opinion
    (models / "reader.json").write_text(json.dumps(data | {"second_opinion_below": 1.01}))
    alone = Reader.from_models_dir(models)
    assert alone.config.second_opinion_below == 1.01 and alone.wide is None
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
        return {str(t.tile): t.half_confidence for t in reading.tiles if not t.question}

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


def test_jittered_moves_each_box_as_the_detectors_boxes_err():
    box = np.array([[100.0, 50.0, 80.0, 40.0, 0.0], [10.0, 20.0, 60.0, 30.0, math.pi / 2]])
    rows = read_stage.jittered(box)
    n = len(read_stage.STEADY_JITTER)
    assert rows.shape == (2 * n, 5)
    # along its axis by 4% of its length, each way; across by 6% of its width; size and angle kept
    np.testing.assert_allclose(rows[0], [100 + 0.04 * 80, 50, 80, 40, 0])
    np.testing.assert_allclose(rows[1], [100 - 0.04 * 80, 50, 80, 40, 0])
    np.testing.assert_allclose(rows[2], [100, 50 + 0.06 * 40, 80, 40, 0])
    np.testing.assert_allclose(rows[n], [10, 20 + 0.04 * 60, 60, 30, math.pi / 2], atol=1e-9)
    np.testing.assert_allclose(rows[n + 2], [10 - 0.06 * 30, 20, 60, 30, math.pi / 2], atol=1e-9)


@needs_shipped[0]
@needs_shipped[1]
def test_steadiness_measures_the_value_read_on_the_finds_it_is_given():
    """The shipped test photo's true boxes: every tile read again from the moved boxes keeps
    its value; a tile whose half was read wrong does not; finds not given are not measured."""
    label = json.loads((TEST_DATA / "hand.json").read_text())
    shipped = Reader.from_models_dir()
    loaded = shipped.load(TEST_DATA / label["image"])
    dets = Detections.from_boxes([OrientedBox(*b["box"]).scaled(loaded.scale) for b in label["boxes"]],
                                 np.full(len(label["boxes"]), 0.9))
    h = shipped.half_reader(None)
    probs = h.classify(h.crop(loaded.image, dets, shipped.config.crop_size, shipped.config.crop_pad))
    choice = choose_values(probs, h.values)
    values = [tuple(int(v) for v in h.values[choice[2 * i : 2 * i + 2]]) for i in range(len(dets))]
    assert values == [(b["a"], b["b"]) for b in label["boxes"]]
    wrong = choice.copy()
    wrong[0] = int(np.flatnonzero(h.values == (label["boxes"][0]["a"] + 1) % 7)[0])  # half A read one pip off
    c = dataclasses.replace(shipped.config, steady_conf=0.8)
    every = range(len(dets))
    right = read_stage.steadiness(loaded.image, read_stage.with_halves(dets, probs, choice, None), every, h, None, c)
    off = read_stage.steadiness(loaded.image, read_stage.with_halves(dets, probs, wrong, None), every, h, None, c)
    assert (right.data["steady"][:, 0] >= 0.8).all() and (right.data["steady"][:, 1] >= 0.5).all()
    assert off.data["steady"][0, 0] < 0.5 and np.allclose(off.data["steady"][1:], right.data["steady"][1:])
    some = read_stage.steadiness(loaded.image, read_stage.with_halves(dets, probs, choice, None), [1], h, None, c)
    assert np.isnan(some.data["steady"][[0, *range(2, len(dets))]]).all()
    np.testing.assert_allclose(some.data["steady"][1], right.data["steady"][1])
    off_ = read_stage.steadiness(loaded.image, read_stage.with_halves(dets, probs, choice, None), every, h, None,
                                 dataclasses.replace(c, steady_conf=0.0))
    assert np.isnan(off_.data["steady"]).all()
