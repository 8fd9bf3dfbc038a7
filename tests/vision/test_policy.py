"""The policy stage: one decision per find, with its reason (chickenfoot.vision.policy)."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import fake_models
import numpy as np
import pytest
from PIL import Image, ImageDraw
from shipped import TEST_DATA, needs_shipped

from chickenfoot.rules import get_rules
from chickenfoot.vision.assemble import reading_of
from chickenfoot.vision.draw import REVIEW_COLOUR, annotate
from chickenfoot.vision.geometry import OrientedBox
from chickenfoot.vision.halves import NOT_PIPS_CLASS
from chickenfoot.vision.policy import Decision, Find, Policy, Verdict, among, at_size, decide, near_hand
from chickenfoot.vision.read import STEADY_MOST
from chickenfoot.vision.reader import STAGES, Reader, to_steady
from chickenfoot.vision.reading import Reading, Reason

POLICY = Policy(review_conf=0.8, count_conf=0.45, not_pips_max=0.9, overlap_max=0.4, zero_points=50, hand_asks=True)


def hand(n: int = 4) -> list[Find]:
    """``n`` tiles read surely, 100 x 50, side by side 60 px apart (upright)."""
    return [Find(3, k + 1, OrientedBox(100 + 60 * k, 200, 100, 50, math.pi / 2), 0.95, (0.99, 0.99), (0.01, 0.01),
                 True) for k in range(n)]


def beside(k: int = 4, **kw) -> Find:
    """A find where the hand's next tile would lie, at their size, with a divider."""
    base = dict(a=5, b=0, box=OrientedBox(100 + 60 * k, 200, 100, 50, math.pi / 2), detection=0.83,
                halves=(0.99, 0.6), not_pips=(0.01, 0.97), divider=True)
    return Find(**(base | kw))


def last(finds: list[Find], policy: Policy = POLICY) -> Decision:
    return decide(finds, policy)[-1]


def test_tiles_read_surely_are_counted_and_unsure_ones_flagged():
    finds = [*hand(2), dataclasses.replace(hand(3)[2], halves=(0.8, 0.9))]
    assert [(d.verdict, d.reason) for d in decide(finds, POLICY)] == [
        (Verdict.COUNT, Reason.SURE), (Verdict.COUNT, Reason.SURE), (Verdict.COUNT, Reason.LOW)]
    assert decide(finds, POLICY)[-1].open and not decide(finds, POLICY)[0].open


def test_a_blank_half_beside_a_divider_among_the_hand_is_a_0_and_asked_about():
    """The issue's 0-5 beside coloured pips, its blank half read "not pips": asked about as the
    0-5, never left uncounted as print."""
    d = last([*hand(), beside()])
    assert (d.verdict, d.reason, d.a, d.b) == (Verdict.ASK, Reason.BLANK_FACE, 5, 0)
    assert d.question == "Is this the 0-5?" and d.open


def test_a_plain_0_0_found_surely_among_the_hand_is_asked_about_as_the_0_0():
    """The issue's 0-0 found at 0.83 and dropped as "looks like print, not pips"."""
    zero = beside(a=0, b=0, halves=(0.5, 0.5), not_pips=(0.95, 0.96))
    d = last([*hand(), zero])
    assert (d.verdict, d.reason, d.a, d.b) == (Verdict.ASK, Reason.BLANK_FACE, 0, 0)
    assert d.question == "Is this the 0-0 (50)?"
    # both halves like print and read as pips, or one like print and the other blank: a printed
    # back (a logo across one end), not a plain face
    for logo in (dict(a=2, b=6, not_pips=(0.95, 0.96)), dict(a=7, b=0, halves=(0.5, 0.98), not_pips=(1.0, 0.0))):
        assert last([*hand(), beside(**logo)]).reason is Reason.PRINT
    # nor is a 0-5 whose other half is hardly pips
    assert last([*hand(), beside(not_pips=(0.6, 0.97))]).reason is Reason.PRINT
    # a face read 0-0 or 0-x, with a divider, among the hand, found at 0.6: asked about; a plain
    # 0-0 however unsurely found
    for weak in (dict(a=0, b=0, halves=(0.99, 0.98), not_pips=(0.01, 0.03), detection=0.31),
                 dict(a=4, b=0, halves=(0.82, 0.8), not_pips=(0.1, 0.2), detection=0.62)):
        d = last([*hand(), beside(**weak)])
        assert (d.verdict, d.reason, d.a, d.b) == (Verdict.ASK, Reason.BLANK_FACE, weak["a"], weak["b"])
    for faint in (dict(a=4, b=0, halves=(0.9, 0.85), not_pips=(0.1, 0.2), detection=0.55),
                  dict(detection=0.5), dict(a=5, b=0, not_pips=(0.01, 0.99), detection=0.4)):
        assert last([*hand(), beside(**faint)]).verdict is Verdict.APART
    # a 0-0 found surely at the hand's size is asked about wherever it lies: a tile put down
    # apart from the rest; found less surely, or at another size, far off it is print
    far = dict(a=0, b=0, halves=(0.96, 0.97), not_pips=(0.97, 0.18), box=OrientedBox(900, 900, 110, 55, 0.3))
    d = last([*hand(), beside(**far)])
    assert (d.verdict, d.reason, d.question) == (Verdict.ASK, Reason.BLANK_FACE, "Is this the 0-0 (50)?")
    for unlike in (dict(detection=0.59), dict(box=OrientedBox(900, 900, 60, 30, 0.3))):
        assert last([*hand(), beside(**(far | unlike))]).reason is Reason.PRINT
    assert last([*hand(), beside(**(far | dict(a=5)))]).reason is Reason.PRINT  # a 0-5 far off: print
    # but a half read as a guess is no 0-x to ask about: print on a board reads as one
    assert last([*hand(), beside(a=4, b=0, halves=(0.5, 0.4), not_pips=(0.1, 0.2), detection=0.35)]).reason \
        is Reason.UNSURE
    assert last([*hand(), beside(halves=(0.45, 0.6))]).reason is Reason.PRINT


@pytest.mark.parametrize("unlike", [
    dict(divider=False),  # no divider: print or a back
    dict(divider=None),  # not measured: no divider seen
    dict(box=OrientedBox(340, 200, 50, 25, math.pi / 2)),  # half the hand's size
    dict(box=OrientedBox(340, 200, 180, 90, math.pi / 2)),  # nearly twice
    dict(box=OrientedBox(900, 900, 100, 50, math.pi / 2)),  # far from the hand
    dict(detection=0.5),  # hardly found as a tile
])
def test_print_is_for_finds_unlike_the_hands_tiles(unlike):
    d = last([*hand(), beside(**unlike)])
    assert (d.verdict, d.reason, d.question) == (Verdict.APART, Reason.PRINT, "")
    assert (d.a, d.b) == (5, 0)


def test_a_find_read_too_unsurely_among_the_hand_is_asked_about_and_elsewhere_set_apart():
    weak = beside(a=2, b=4, halves=(0.6, 0.5), not_pips=(0.1, 0.2))
    d = last([*hand(), weak])
    assert (d.verdict, d.reason, d.question) == (Verdict.ASK, Reason.UNSURE_TILE, "Is this the 2-4?")
    for unlike in (dict(divider=False), dict(divider=None), dict(detection=0.55), dict(not_pips=(0.1, 0.6)),
                   dict(box=OrientedBox(900, 200, 100, 50, math.pi / 2))):
        d = last([*hand(), dataclasses.replace(weak, **unlike)])
        assert (d.verdict, d.reason, d.question) == (Verdict.APART, Reason.UNSURE, "")


def test_a_weakly_found_tile_read_clearly_where_no_counted_tile_lies_is_asked_about():
    """A 6-4 on a board's printed logo (a real grey photo) was found at 0.38, its halves read at
    0.99 and 1.00, and set apart in silence: 10 points short. Where no counted tile lies, such a
    find is asked about."""
    weak = beside(a=6, b=4, detection=0.38, halves=(0.99, 1.0), not_pips=(0.01, 0.0))
    d = last([*hand(), weak])
    assert (d.verdict, d.reason, d.a, d.b) == (Verdict.ASK, Reason.UNSURE_TILE, 6, 4) and d.open
    # over two counted tiles (a box astride them), read less clearly, found more weakly still,
    # without a divider, or away from the hand: set apart
    for unlike in (dict(box=OrientedBox(130, 200, 100, 50, math.pi / 2)), dict(halves=(0.99, 0.9)),
                   dict(detection=0.25), dict(divider=False), dict(box=OrientedBox(900, 200, 100, 50, math.pi / 2))):
        d = last([*hand(), dataclasses.replace(weak, **unlike)])
        assert (d.verdict, d.reason, d.question) == (Verdict.APART, Reason.UNSURE, ""), unlike


def test_a_0_0_without_a_divider_is_asked_about_unless_its_halves_are_no_faces():
    blank = beside(a=0, b=0, halves=(0.99, 0.99), divider=False, not_pips=(0.5, 0.6))
    d = last([*hand(), blank])
    assert (d.verdict, d.reason) == (Verdict.ASK, Reason.ZERO_OR_BACK)
    assert d.question == "Is this the 0-0 (50) or a face-down tile?"
    # however unsure: left out, it would cost its owner 50
    assert last([*hand(), dataclasses.replace(blank, detection=0.2)]).reason is Reason.ZERO_OR_BACK
    # with no divider, a half the half reader takes for print makes it print, both a back
    assert last([*hand(), dataclasses.replace(blank, not_pips=(0.5, 0.95))]).reason is Reason.PRINT
    back = dataclasses.replace(blank, not_pips=(0.93, 0.97))
    assert (last([*hand(), back]).verdict, last([*hand(), back]).reason) == (Verdict.APART, Reason.BACK)
    # with a divider it is a 0-0 read surely, and counted
    assert last([*hand(), dataclasses.replace(blank, divider=True, not_pips=(0.01, 0.01))]).reason is Reason.SURE


def test_with_zero_or_back_conf_a_0_0_without_a_divider_found_weakly_is_a_back():
    """A detector that finds plain faces finds plain backs too, weakly: those are backs; one found
    surely is still asked about, and a 0-0 with a divider is never judged by this."""
    policy = dataclasses.replace(POLICY, zero_or_back_conf=0.8)
    blank = beside(a=0, b=0, halves=(0.99, 0.99), divider=False, not_pips=(0.5, 0.6), detection=0.79)
    d = last([*hand(), blank], policy)
    assert (d.verdict, d.reason, d.question) == (Verdict.APART, Reason.BACK, "")
    assert last([*hand(), dataclasses.replace(blank, detection=0.8)], policy).reason is Reason.ZERO_OR_BACK
    faced = dataclasses.replace(blank, divider=True, not_pips=(0.01, 0.01), detection=0.5)
    assert last([*hand(), faced], policy).verdict is not Verdict.APART


def test_finds_that_overlap_a_surer_tile_are_set_apart_asked_or_not():
    astride = dataclasses.replace(hand(2)[0], box=OrientedBox(120, 200, 100, 50, math.pi / 2), detection=0.9)
    d = decide([*hand(2), astride], POLICY)
    assert [x.reason for x in d] == [Reason.SURE, Reason.SURE, Reason.OVERLAP]
    # a question on a counted tile's spot gives way to it (most such 0-0s are backs)
    on_top = beside(k=1, a=0, b=0, divider=False, not_pips=(0.2, 0.2))
    assert last([*hand(2), on_top]).reason is Reason.OVERLAP
    asked = beside(k=1, box=OrientedBox(165, 200, 100, 50, math.pi / 2))
    assert last([*hand(2), asked]).reason is Reason.OVERLAP


def test_with_the_hand_rule_off_unlike_and_like_finds_are_alike():
    off = dataclasses.replace(POLICY, hand_asks=False)
    assert last([*hand(), beside()], off).reason is Reason.PRINT
    assert last([*hand(), beside(halves=(0.5, 0.5), not_pips=(0.1, 0.1))], off).reason is Reason.UNSURE


def test_a_tile_counted_twice_from_one_set_is_asked_about_once_the_surer_one_counted():
    """One set has one of each: a second 3-6 is a misread or not a tile (a printed lid), asked."""
    finds = [*hand(3), beside(a=6, b=3, halves=(0.97, 0.97), not_pips=(0.0, 0.0), detection=0.91),
             beside(k=6, a=3, b=6, halves=(0.99, 0.99), not_pips=(0.0, 0.0), detection=0.95)]
    decisions = decide(finds, POLICY)
    assert [(d.verdict, d.reason) for d in decisions[3:]] == [(Verdict.ASK, Reason.TWICE),
                                                              (Verdict.COUNT, Reason.SURE)]
    assert decisions[3].question == "Is this a second 3-6?" and decisions[3].open
    reading = reading_of(finds, decisions, get_rules(), (1000, 800), POLICY.review_conf)
    assert reading.headline() == f"penalty at least {4 + 5 + 6 + 9}, 1 to check"
    assert not any("read 2 times" in w for w in reading.warnings)
    # two sets mixed, a table's layout, or a 0-0 twice (named with its points)
    assert [d.reason for d in decide(finds, dataclasses.replace(POLICY, copies=2))][3:] == [Reason.SURE] * 2
    assert [d.reason for d in decide(finds, dataclasses.replace(POLICY, hand_asks=False))][3:] == [Reason.SURE] * 2
    zeros = [*hand(2), *(beside(k=k, a=0, b=0, halves=(0.99, 0.99), not_pips=(0.0, 0.0), detection=0.9 + k / 100)
                         for k in (3, 5))]
    asked = [d for d in decide(zeros, POLICY) if d.verdict is Verdict.ASK]
    assert [d.question for d in asked] == ["Is this a second 0-0 (50)?"]


STEADY = dataclasses.replace(POLICY, steady_conf=0.8)
#: A box astride where the tile after :func:`low` would lie: at the hand's length, 1.1 lengths
#: from the low find, wider than a tile.
ASTRIDE = OrientedBox(450, 200, 120, 90, math.pi / 2)


def low(steady: tuple[float, float] | None, k: int = 4) -> Find:
    """A find beside the hand read under ``review_conf``, and how steadily it read again."""
    return dataclasses.replace(hand(k + 1)[k], halves=(0.95, 0.75), steady=steady)


def test_a_low_tile_read_alike_from_moved_boxes_counts_as_read_surely():
    finds = [*hand(), low((0.9, 0.7))]
    assert last(finds) == Decision(Verdict.COUNT, Reason.LOW, 3, 5)  # off unless steady_conf is set
    d = last(finds, STEADY)
    assert (d.verdict, d.reason, d.a, d.b) == (Verdict.COUNT, Reason.STEADY, 3, 5) and not d.open
    # on average each half keeps its value, and in every box at least half of it
    for unsteady in [(0.79, 0.7), (0.9, 0.49), None]:
        assert last([*hand(), low(unsteady)], STEADY).reason is Reason.LOW
    # a sure tile and a find set apart are left as they were
    sure = dataclasses.replace(hand()[0], steady=(0.2, 0.1))
    assert decide([sure, *hand()[1:]], STEADY)[0].reason is Reason.SURE
    weak = dataclasses.replace(low((0.9, 0.7)), detection=0.5)  # 0.5 x 0.95 x 0.75: under count_conf
    assert last([*hand(), weak], STEADY).verdict is not Verdict.COUNT


def test_no_low_tile_counts_as_steady_while_a_tile_like_find_is_unexplained():
    """A find found surely but set apart as print or unsure, near the counted tiles at their
    length and lying mostly off them, is often a box astride touching tiles the reader missed,
    or a missed tile itself: every low flag stays."""
    astride = Find(9, 9, ASTRIDE, 0.8, (0.99, 0.99), (0.95, 0.99), False)
    finds = [*hand(), low((0.9, 0.7)), astride]
    out = decide(finds, STEADY)
    assert out[-1].reason is Reason.PRINT and out[-2].reason is Reason.LOW
    assert decide([*hand(), low((0.9, 0.7)), dataclasses.replace(astride, detection=0.5)], STEADY)[-2].reason \
        is Reason.LOW
    # found less surely, lying on the counted tiles, away from the hand (a logo, a box across
    # the room) or at another length, it explains nothing away
    for explained in [dataclasses.replace(astride, detection=0.49),
                      dataclasses.replace(astride, box=OrientedBox(130, 200, 100, 110, math.pi / 2)),
                      dataclasses.replace(astride, box=OrientedBox(900, 900, 120, 90, math.pi / 2)),
                      dataclasses.replace(astride, box=OrientedBox(450, 200, 250, 90, math.pi / 2)),
                      dataclasses.replace(astride, box=OrientedBox(450, 200, 70, 90, math.pi / 2))]:
        out = decide([*hand(), low((0.9, 0.7)), explained], STEADY)
        assert out[-1].verdict is Verdict.APART and out[-2].reason is Reason.STEADY


def test_the_steadiness_stage_reads_again_only_what_the_policy_would_flag_low():
    astride = Find(9, 9, ASTRIDE, 0.8, (0.99, 0.99), (0.95, 0.99), False)
    finds = [*hand(), low(None)]
    assert to_steady(finds, STEADY) == [4]
    assert to_steady([*finds, astride], STEADY) == []  # no low find would count while it is unexplained
    many = [*hand(), *(low(None, k) for k in range(4, 4 + STEADY_MOST + 1))]
    assert to_steady(many[:-1], STEADY) == list(range(4, 4 + STEADY_MOST))
    assert to_steady(many, STEADY) == []  # a hard photo: its flags stay
    assert to_steady(finds, POLICY) == []  # steady_conf 0: nothing is read again


def test_among_the_hand_means_at_its_size_and_near_one_of_its_tiles():
    tiles = [f.box for f in hand()]
    assert among(OrientedBox(340, 200, 100, 50, 0.0), tiles)  # lying across: size is length and width
    assert among(OrientedBox(100, 310, 110, 55, 1.0), tiles)  # the next tile of a line
    assert not among(OrientedBox(100, 400, 100, 50, 1.0), tiles)  # two lengths off
    assert among(OrientedBox(5000, 5000, 10, 5, 0.0), [])  # no hand: nothing to be unlike
    # near the hand, for a find that may explain a missed tile: at its length, two lengths off
    assert near_hand(OrientedBox(100, 400, 100, 90, 1.0), tiles)
    assert not near_hand(OrientedBox(100, 420, 100, 50, 1.0), tiles)
    assert near_hand(OrientedBox(100, 300, 210, 50, 1.0), tiles)  # astride two tiles end to end
    assert not near_hand(OrientedBox(100, 300, 250, 50, 1.0), tiles)
    assert not near_hand(OrientedBox(100, 300, 70, 50, 1.0), tiles)
    assert at_size(OrientedBox(5000, 5000, 110, 45, 0.0), tiles) and not at_size(OrientedBox(0, 0, 110, 80, 0), tiles)


def test_the_reading_keeps_each_finds_reason_and_its_warnings_say_them():
    finds = [*hand(), beside(), beside(k=-3, a=1, b=1, halves=(0.3, 0.3), not_pips=(0.1, 0.1), divider=False),
             beside(k=0, box=OrientedBox(110, 200, 100, 50, math.pi / 2), a=3, b=1, detection=0.9,
                    not_pips=(0.0, 0.0))]
    decisions = decide(finds, POLICY)
    reading = reading_of(finds, decisions, get_rules(), (1000, 800), POLICY.review_conf)
    reasons = sorted((str(t.tile), t.reason, t.uncounted) for t in (*reading.tiles, *reading.candidates))
    assert reasons == [("0-5", Reason.BLANK_FACE, ""), ("1-1", Reason.UNSURE, "unsure"), ("1-3", Reason.OVERLAP, "overlap"),
                       ("1-3", Reason.SURE, ""), ("2-3", Reason.SURE, ""), ("3-3", Reason.SURE, ""),
                       ("3-4", Reason.SURE, "")]
    asked = reading.questions[0]
    assert asked.open and asked.question == "Is this the 0-5?" and str(asked.tile) == "0-5"
    assert reading.penalty == 4 + 5 + 6 + 7 and reading.headline() == "penalty at least 22, 1 to check"
    # the question comes first, names its tile and says why
    assert reading.warnings[0] == f"Is this the 0-5? ({asked.reason_text}): not counted until you say"
    assert any("1 possible tile too unsure to count" in w for w in reading.warnings)
    assert any("1 possible tile overlaps a surer tile" in w for w in reading.warnings)
    again = Reading.from_dict(json.loads(json.dumps(reading.to_dict())))
    assert again.to_dict() == reading.to_dict() and again.questions[0].reason == Reason.BLANK_FACE
    with pytest.raises(ValueError, match="reason"):
        Reading.from_dict(reading.to_dict() | {"tiles": [reading.to_dict()["tiles"][0] | {"reason": "luck"}]})


def test_the_reader_is_one_line_of_named_stages():
    assert STAGES == ("load", "detect", "crop and read halves", "judge the 0-0s", "box search", "second look",
                      "second opinion", "judge", "steadiness", "policy", "reading")


def _hand_photo(folder: Path) -> tuple[Path, Path, dict[str, OrientedBox]]:
    """A rendered photo (drawn flat colours, 800 x 600) of a hand laid side by side: 3-4 and
    3-3 with coloured pips, a 0-3 and a plain 0-0 whose white halves the half reader takes for
    print, a half in a colour it cannot settle, a face-down tile, and a smaller white blank with
    a divider far from the hand; with models that find each where it is drawn."""
    photo = Image.new("RGB", (800, 600), (60, 110, 60))
    up = math.pi / 2
    w = fake_models.WHITE
    purple = (153, 0, 153)
    laid = {  # name: (box in photo pixels, half A colour, half B colour, divider, detector's tile score)
        "3-4": (OrientedBox(150, 250, 160, 80, up), fake_models.RED, fake_models.BLUE, True, 0.95),
        "3-3": (OrientedBox(250, 250, 160, 80, up), fake_models.RED, fake_models.RED, True, 0.93),
        "0-3": (OrientedBox(350, 250, 160, 80, up), w, fake_models.RED, True, 0.9),
        "0-0": (OrientedBox(250, 430, 160, 80, up), w, w, True, 0.83),
        "purple": (OrientedBox(150, 430, 160, 80, up), fake_models.RED, purple, True, 0.7),
        "back": (OrientedBox(450, 250, 160, 80, up), w, w, False, 0.8),
        "far": (OrientedBox(700, 520, 100, 50, 0.0), w, w, True, 0.8),
    }
    for box, a, b, divider, _ in laid.values():
        fake_models.draw_tile(photo, box, a, b, divider=divider)
    path = folder / "hand.png"
    photo.save(path)
    rows = fake_models.obb_rows([v[0].scaled(0.5) for v in laid.values()], [[v[4], 0.0] for v in laid.values()],
                                (400, 300), 320)
    models = fake_models.write_models(folder / "models", rows)
    fake_models.write_classifier(models / "half_cls.onnx", 16, (3, 4, NOT_PIPS_CLASS),
                                 sorted([*fake_models.CLASS_NAMES, NOT_PIPS_CLASS], key=str))
    config = json.loads((models / "reader.json").read_text())
    (models / "reader.json").write_text(json.dumps(config | {
        "review_conf": 0.8, "count_conf": 0.45, "not_pips_max": 0.9, "overlap_max": 0.4,
        "blank_divider_min": 0.09, "hand_asks": True}))
    return path, models, {k: v[0] for k, v in laid.items()}


def test_a_rendered_hand_asks_about_its_blank_faces_and_draws_the_questions(tmp_path: Path):
    pytest.importorskip("onnx", reason="building the test models needs onnx (train extra)")
    photo, models, boxes = _hand_photo(tmp_path)
    reader = Reader.from_models_dir(models)
    reading = reader.read(photo)
    sure = sorted(str(t.tile) for t in reading.tiles if t.sure)
    assert sure == ["3-3", "3-4"] and reading.penalty == 13
    asked = {t.question: t for t in reading.questions}
    assert set(asked) >= {"Is this the 0-3?", "Is this the 0-0 (50)?"}
    assert asked["Is this the 0-3?"].reason == Reason.BLANK_FACE
    assert asked["Is this the 0-0 (50)?"].reason == Reason.BLANK_FACE
    unsure = [t for t in reading.questions if t.reason == Reason.UNSURE_TILE]
    assert len(unsure) == 1 and unsure[0].question.startswith("Is this the 3-")
    assert reading.headline() == "penalty at least 13, 3 to check"
    # the back and the far blank are set apart, each with its reason
    assert reading.face_down == 1 and [t.reason for t in reading.candidates] == [Reason.PRINT]
    far = reading.candidates[0].box
    assert math.hypot(far.cx - boxes["far"].cx, far.cy - boxes["far"].cy) < 5
    for q in asked.values():
        assert any(w.startswith(q.question) for w in reading.warnings)
    # the questions are drawn: orange on the tiles asked about
    picture = np.asarray(annotate(Image.open(photo), reading, summary=""))
    for name in ("0-3", "0-0"):
        b = boxes[name]
        edge = picture[round(b.cy - b.length / 2) - 1: round(b.cy - b.length / 2) + 2, round(b.cx) - 5: round(b.cx) + 5]
        assert (np.abs(edge.astype(int) - REVIEW_COLOUR).sum(-1) < 60).any()
    # without the hand rule the same finds are dropped as print and as unsure: the case
    off = reader.with_config(dataclasses.replace(reader.config, hand_asks=False)).read(photo)
    assert not off.questions and off.headline() == "penalty 13"
    assert sorted(t.reason for t in off.candidates) == sorted([Reason.PRINT, Reason.PRINT, Reason.PRINT,
                                                              Reason.UNSURE])


def _half_b(box: OrientedBox) -> np.ndarray:
    """Corners of half B's whole face inside ``box``, up to the divider and the tile's edge: a
    pip cut only in part by a smaller patch still shows as arcs, which a reader may count."""
    u, v = box.axes()
    c = np.array([box.cx, box.cy])
    near, far, side = 0.04 * box.length, 0.47 * box.length, 0.45 * box.width
    return np.array([c + u * near - v * side, c + u * far - v * side, c + u * far + v * side, c + u * near + v * side])


@needs_shipped[0]
@needs_shipped[1]
@pytest.mark.parametrize("grey", [False, True], ids=["colour", "grey"])
def test_a_rendered_hand_counts_or_asks_every_tile_and_says_why(tmp_path: Path, grey: bool):
    """The shipped reader on the rendered test photo (tests/data/hand.jpg), as it is and with the
    pips of one half painted over in the face's colour: every find carries its reason, the
    face-down tile is set apart as print (no divider), and the tile with a blank half is counted
    as a 0-x or asked about as one, never set apart."""
    label = json.loads((TEST_DATA / "hand.json").read_text())
    reader = Reader.from_models_dir()
    photo = Image.open(TEST_DATA / label["image"]).convert("RGB")
    if grey:
        photo = photo.convert("L").convert("RGB")
    photo.save(tmp_path / "hand.png")
    reading = reader.read(tmp_path / "hand.png")
    assert all(t.reason in (Reason.SURE, Reason.LOW) for t in reading.tiles)
    assert all(t.reason == Reason.PRINT for t in reading.candidates)  # the face-down tile, if found
    assert not reading.questions and reading.penalty == label["penalty_default_rules"]

    spec = next(b for b in label["boxes"] if b["tile"] == "1-6")
    box = OrientedBox(*spec["box"])
    half = _half_b(box)
    pixels = np.asarray(photo)
    face = tuple(int(v) for v in np.median(pixels[int(box.cy) - 3: int(box.cy) + 4, int(box.cx) - 3: int(box.cx) + 4]
                                            .reshape(-1, 3), axis=0))
    ImageDraw.Draw(photo).polygon([tuple(p) for p in half], fill=face)
    photo.save(tmp_path / "blank-half.png")
    blank = reader.read(tmp_path / "blank-half.png")
    where = [t for t in (*blank.tiles, *blank.candidates)
             if math.hypot(t.box.cx - box.cx, t.box.cy - box.cy) < box.width / 2]
    assert len(where) == 1 and where[0].counted, [(str(t.tile), t.reason) for t in where]
    t = where[0]
    assert str(t.tile) == "0-1" and t.reason in (Reason.SURE, Reason.LOW, Reason.BLANK_FACE)
    assert t.reason != Reason.BLANK_FACE or t.question == "Is this the 0-1?"
