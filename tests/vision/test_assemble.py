"""Assembling a reading (:mod:`chickenfoot.vision.assemble`): which tiles count, pips and penalty by the rules,
and the warnings."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image
from shipped import needs_shipped

from chickenfoot.rules import get_rules
from chickenfoot.vision.assemble import APART_EXACT, apart, assemble
from chickenfoot.vision.detections import Detections
from chickenfoot.vision.geometry import OrientedBox
from chickenfoot.vision.reader import Reader
from chickenfoot.vision.reading import Reading

ROOT = Path(__file__).resolve().parents[2]
TEST_DATA = ROOT / "tests" / "data"


def _sure_halves(*halves: int) -> np.ndarray:
    """Half-reader probabilities (one row a half, values 0-12) each sure of its value."""
    probs = np.full((len(halves), 13), 0.001)
    probs[np.arange(len(halves)), halves] = 0.99
    return probs


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
    # tiles flagged for review are open: listed, but in pips and penalty only once checked
    assert reading.pips == 7 + 0
    assert reading.penalty == 7 + 50  # 0-0 counts 50 in the default preset
    review = [t.needs_review for t in reading.tiles]
    assert review == [False, False, True, True]  # half read at 0.5; detector at 0.4
    assert reading.to_check == 2 and reading.headline() == "penalty at least 57, 2 to check"
    assert any("not counted until you check them" in w for w in reading.warnings)
    assert reading.tiles[0].confidence == pytest.approx(0.95 * 0.99 * 0.98)
    assert reading.tiles[0].box.cx == pytest.approx(200) and reading.tiles[0].box.length == 160
    assert any("3-4 read 2 times" in w for w in reading.warnings)
    assert any("low confidence" in w for w in reading.warnings)
    lenient = assemble(dets, probs, values, to_original=1.0, image_size=(400, 300),
                       review_conf=0.6, rules=get_rules("pagat", {"zero_zero": 25}))
    assert lenient.penalty == 7 + 25
    d = reading.to_dict()
    assert d["tiles"][0]["tile"] == "3-4" and d["penalty"] == 57 and len(d["tiles"][0]["box"]) == 5
    assert d["to_check"] == 2 and d["headline"] == "penalty at least 57, 2 to check"
    assert d["count"] == d["counted"] + len(d["tiles_to_check"]) and len(d["tiles_to_check"]) == 2
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
    from chickenfoot.vision.geometry import overlap_share

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
    probs = _sure_halves(*[3, 4, 4, 5, 5, 1])
    loose = assemble(dets, probs, values, to_original=1.0, image_size=(300, 200), review_conf=0.6,
                     rules=get_rules(), count_conf=0.5)
    assert sorted(str(t.tile) for t in loose.tiles) == ["1-5", "3-4", "4-5"] and loose.pips == 22
    reading = assemble(dets, probs, values, to_original=1.0, image_size=(300, 200), review_conf=0.6,
                       rules=get_rules(), count_conf=0.5, overlap_max=0.4)
    assert sorted(str(t.tile) for t in reading.tiles) == ["1-5", "3-4"] and reading.pips == 13
    assert [(str(t.tile), t.uncounted) for t in reading.candidates] == [("4-5", "overlap")]
    assert any("1 possible tile overlaps a surer tile" in w for w in reading.warnings)
    assert reading.to_dict()["candidates"][0]["uncounted"] == "overlap"


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


def test_a_tile_asked_about_is_open_and_gives_way_to_a_counted_tile_it_overlaps():
    """A tile read 0-0 that may be a back carries the question, counts in neither pips nor
    penalty until answered, and never wins against a tile it overlaps (most are backs)."""
    values = np.arange(13)
    dets = Detections(np.array([[100, 50, 80, 40, 0.0], [300, 50, 80, 40, 0.0], [310, 52, 80, 40, 0.0]]),
                      [0.95, 0.9, 0.3], [0, 0, 0])
    probs = _sure_halves(*[0, 0, 5, 6, 0, 0])
    reading = assemble(dets, probs, values, to_original=1.0, image_size=(400, 100), review_conf=0.8,
                       rules=get_rules(), count_conf=0.45, ask=np.array([True, False, True]), overlap_max=0.4)
    asked = reading.questions
    assert [str(t.tile) for t in asked] == ["0-0"] and asked[0].box.cx == 100
    assert asked[0].open and asked[0].needs_review and asked[0].question == "Is this the 0-0 (50) or a face-down tile?"
    assert reading.penalty == 11 and reading.pips == 11 and reading.to_check == 1  # the 5-6 alone
    assert any("could be the 0-0 (50) or face down" in w for w in reading.warnings)
    # the one over the 5-6 (0.3, under count_conf too) is an overlapping candidate, asked nothing
    assert [(str(t.tile), t.uncounted) for t in reading.candidates] == [("0-0", "overlap")]
    assert not reading.candidates[0].open and len(reading.questions) == 1
    again = Reading.from_dict(reading.to_dict())
    assert again.to_dict() == reading.to_dict() and again.questions[0].question == asked[0].question


def test_a_headline_with_nothing_counted_never_says_at_least_0():
    values = np.arange(13)
    dets = Detections(np.array([[100, 50, 80, 40, 0.0], [300, 52, 80, 40, 0.0]]), [0.4, 0.4], [0, 0])
    probs = np.full((4, 13), 0.001)
    for row, v in enumerate([3, 4, 2, 6]):
        probs[row, v] = 0.99
    reading = assemble(dets, probs, values, to_original=1.0, image_size=(400, 300),
                       review_conf=0.6, rules=get_rules())
    assert reading.to_check == 2 and not any(t.sure for t in reading.tiles)
    assert reading.headline() == "nothing counted yet, 2 to check"


def test_a_photo_where_nothing_was_read_says_so_never_penalty_0():
    values = np.arange(13)
    none = Detections(np.zeros((0, 5)), np.zeros(0), np.zeros(0, int))
    reading = assemble(none, np.zeros((0, 13)), values, to_original=1.0, image_size=(400, 300), review_conf=0.6,
                       rules=get_rules())
    assert not reading.tiles and reading.penalty == 0 and reading.headline() == "nothing read"
