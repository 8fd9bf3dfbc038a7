"""Photo -> layout: contacts between tile ends, the tree from the hub, hub choice, warnings;
on hand-placed boxes, on rendered tables (true boxes), and on the rendered test photo
(tests/data/table.jpg) with the shipped models."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chickenfoot.rules.layout import Layout, check_layout
from chickenfoot.rules.ruleset import get_rules
from chickenfoot.vision.geometry import OrientedBox
from chickenfoot.vision.lab.datasets.table import render_table, round_layout
from chickenfoot.vision.reader import Reader, Reading, TileReading
from chickenfoot.vision.table import A, B, TableError, contacts, read_table

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
MODELS = ROOT / "models"
L, W = 100.0, 50.0


def _tile(a: int, b: int, cx: float, cy: float, angle: float, review: bool = False) -> TileReading:
    return TileReading(a, b, 0.9, OrientedBox(cx, cy, L, W, angle), review, 0.95, (0.95, 0.95))


def _reading(*tiles: TileReading, size: tuple[int, int] = (1000, 800)) -> Reading:
    return Reading(tuple(tiles), 0, 0, (), size)


def _joints(table) -> set[tuple[str, str]]:
    return {(str(p.tile), str(p.on)) for p in table.layout.plays}


def _plus(hub: int = 9) -> list[TileReading]:
    """A hub laid along x at (500, 400) with a spoke off each side and each end, half a of each
    spoke against the hub, and 4-4 crosswise at the end of the right-hand spoke."""
    return [
        _tile(hub, hub, 500, 400, 0.0),
        _tile(hub, 4, 500 + L, 400, 0.0),  # off the right end: its a end touches the hub's end
        _tile(hub, 2, 500 - L, 400, math.pi),  # off the left end, pointing left
        _tile(hub, 3, 500, 400 + W / 2 + L / 2, math.pi / 2),  # off the lower side
        _tile(hub, 5, 500, 400 - W / 2 - L / 2, -math.pi / 2),  # off the upper side
        _tile(4, 4, 500 + 1.5 * L + W / 2, 400, math.pi / 2),  # crosswise on the 9-4's 4
    ]


def test_ends_touching_ends_and_sides_are_contacts():
    tiles = _plus()
    boxes = np.array([[t.box.cx, t.box.cy, t.box.length, t.box.width, t.box.angle] for t in tiles])
    found = contacts(boxes, [t.tile.is_double for t in tiles])
    pairs = {(c.tile, c.end, c.other, c.other_end) for c in found}
    assert (1, A, 0, B) in pairs  # 9-4's a end against the hub's b end
    assert (2, A, 0, A) in pairs
    assert (1, B, 5, None) in pairs  # 9-4's b end against the side of the crosswise 4-4
    assert (3, A, 0, None) in pairs and (4, A, 0, None) in pairs  # spokes on the hub's sides
    assert all(c.gap <= 0.1 for c in found)


def test_a_plus_sign_with_a_foot_becomes_its_layout():
    table = read_table(_reading(*_plus()), rules="pagat")
    assert str(table.layout.hub) == "9-9"
    assert _joints(table) == {("4-9", "9-9"), ("2-9", "9-9"), ("3-9", "9-9"), ("5-9", "9-9"), ("4-4", "4-9")}
    assert table.layout.ordered is False and table.loose == ()
    report = table.check("pagat")
    assert report.open_foot is not None and str(report.open_foot) == "4-4"
    assert table.warnings == ()


def test_tiles_side_by_side_are_not_played_on_each_other():
    hand = [_tile(9, 9, 500, 400, 0.0), _tile(2, 3, 500, 400 + W, 0.0), _tile(4, 5, 500, 400 + 2 * W, 0.0)]
    table = read_table(_reading(*hand))
    assert table.layout.plays == ()
    assert sorted(table.loose) == [1, 2]
    assert any("do not join the layout" in w for w in table.warnings)


def test_a_line_takes_tiles_at_its_free_end_only():
    """A tile touching the end of a spoke that faces the hub (beside it) is not played on it."""
    tiles = [
        _tile(6, 6, 500, 400, 0.0),
        _tile(6, 1, 500 + L, 400, 0.0),  # spoke, free 1 at x = 650
        _tile(1, 8, 500 + 2 * L + 5, 400, 0.0),  # on the free 1
        _tile(8, 2, 500 + 3 * L + 10, 400, 0.0),  # on the 8
    ]
    table = read_table(_reading(*tiles))
    assert _joints(table) == {("1-6", "6-6"), ("1-8", "1-6"), ("2-8", "1-8")}


def test_a_named_hub_wins_and_an_unread_one_falls_back_with_a_warning():
    tiles = _plus()
    named = read_table(_reading(*tiles), hub="4-4")
    assert str(named.layout.hub) == "4-4"
    assert not check_layout(named.layout).legal  # a foot taken for the hub breaks rules
    missing = read_table(_reading(*tiles), hub="7-7")
    assert str(missing.layout.hub) == "9-9"
    assert any("no 7-7, the hub named, was read" in w for w in missing.warnings)


def test_no_double_and_a_hub_that_is_no_double_are_clear_errors():
    with pytest.raises(TableError, match="no double was read"):
        read_table(_reading(_tile(1, 2, 100, 100, 0.0)))
    with pytest.raises(TableError, match="must be a double"):
        read_table(_reading(*_plus()), hub="3-4")
    with pytest.raises(TableError, match="set must be one of"):
        read_table(_reading(*_plus()), set=10)


def test_a_tile_laid_the_wrong_way_round_is_pointed_out():
    tiles = _plus()
    tiles[1] = _tile(4, 9, 500 + L, 400, 0.0)  # its 4, not its 9, against the hub
    tiles = tiles[:5]
    table = read_table(_reading(*tiles))
    assert ("4-9", "9-9") in _joints(table)
    assert any("touches the 9-9 with its 4, not its 9" in w for w in table.warnings)


def test_unsure_tiles_are_named_for_checking():
    tiles = _plus()
    tiles[3] = _tile(9, 3, 500, 400 + W / 2 + L / 2, math.pi / 2, review=True)
    table = read_table(_reading(*tiles))
    assert any("read unsurely" in w and "3-9" in w for w in table.warnings)


def test_problem_tiles_point_at_the_tiles_the_rules_complain_about():
    tiles = _plus()
    tiles.append(_tile(4, 7, 500 + 1.5 * L + W + L / 2, 400 + 0.0, 0.0))  # a toe on 4-4
    tiles.append(_tile(7, 1, 500 + 2.5 * L + W + L / 2 + 2, 400, 0.0))  # on the toe, foot still short
    table = read_table(_reading(*tiles), rules="pagat")
    report = table.check("pagat")
    codes = {p.code for p in report.problems}
    assert "foot-incomplete" in codes
    assert 7 in table.problem_tiles(report)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), angle=st.floats(0, 2 * math.pi), scale=st.floats(0.5, 3.0))
def test_rotating_and_scaling_the_photo_changes_nothing(seed: int, angle: float, scale: float):
    """The layout depends on where tiles are relative to each other, not on the camera's turn
    or distance."""
    base = read_table(_reading(*_plus()), rules="pagat")
    c, s = math.cos(angle), math.sin(angle)
    moved = []
    for t in _plus():
        x, y = t.box.cx - 500, t.box.cy - 400
        box = OrientedBox(2000 + (c * x - s * y) * scale, 2000 + (s * x + c * y) * scale,
                          L * scale, W * scale, t.box.angle + angle)
        moved.append(TileReading(t.a, t.b, t.confidence, box, False, 0.95, (0.95, 0.95)))
    np.random.default_rng(seed).shuffle(moved)  # and the order the detector lists them in
    table = read_table(_reading(*moved, size=(4000, 4000)), rules="pagat")
    assert _joints(table) == _joints(base)
    assert table.layout.hub == base.layout.hub


@pytest.mark.parametrize("seed", [11, 12, 13, 14, 15, 16])
def test_rendered_tables_from_their_true_boxes(seed: int):
    """The renderer's tables, read from their true tile boxes, give back their true layouts."""
    img, scene = render_table(seed, width=640, height=480)
    tiles = [TileReading(t.a, t.b, 1.0, t.box(), False, 1.0, (1.0, 1.0)) for t in scene.labels]
    table = read_table(_reading(*tiles, size=img.size), hub=scene.truth.hub, rules=scene.truth.rules)
    assert table.layout.hub == scene.truth.hub
    assert _joints(table) == {(str(p.tile), str(p.on)) for p in scene.truth.plays}


def test_round_layout_is_a_legal_prefix_of_a_bot_round():
    rules = get_rules("pagat")
    lay = round_layout(rules, 4, seed=5, plays=12)
    assert len(lay.plays) == 12 and lay.ordered
    assert check_layout(lay, rules).legal
    assert round_layout(rules, 4, seed=5, plays=12) == lay  # seeded


def test_rendered_table_truth_matches_its_photo():
    img, scene = render_table(3, width=640, height=480)
    again, same = render_table(3, width=640, height=480)
    assert np.array_equal(np.asarray(img), np.asarray(again)) and same == scene  # deterministic
    shown = sorted(lab.tile for lab in scene.labels)
    assert shown == sorted(str(t) for t in scene.truth.tiles())  # every tile in the truth is in view


@pytest.mark.skipif(not (MODELS / "reader.json").exists(), reason="shipped models not built")
@pytest.mark.parametrize("hub", ["3-3", None])
def test_shipped_reader_reads_the_rendered_table_photo_into_its_layout(hub: str | None):
    truth = Layout.from_dict(json.loads((DATA / "table.json").read_text())["layout"])
    reader = Reader.from_models_dir(MODELS)
    reading = reader.read(DATA / "table.jpg", get_rules(truth.rules), truth.set)
    table = read_table(reading, hub=hub, set=truth.set, rules=truth.rules)
    assert table.layout.hub == truth.hub
    assert {(p.tile, p.on) for p in table.layout.plays} == {(p.tile, p.on) for p in truth.plays}
    assert table.check().legal
    assert table.to_dict()["hub"] == "3-3"


def _eyes(truth: dict[tuple[int, int], tuple[int, int]]):
    """Reads a tile at a box by where its centre is (a stand-in for the reader's eyes, so the
    gap logic is tested apart from the models): ``truth`` maps rounded centres to halves."""
    def look(boxes: list[OrientedBox]) -> list[TileReading]:
        out = []
        for b in boxes:
            a, bb = next((v for (x, y), v in truth.items() if math.hypot(b.cx - x, b.cy - y) < W / 2), (0, 0))
            out.append(TileReading(a, bb, 0.8, b, True, 0.0, (0.9, 0.9)))
        return out
    return look


def test_a_tile_missed_in_a_line_is_read_where_the_gap_is():
    line = [_tile(9, 9, 500, 400, 0.0), _tile(9, 4, 500 + L, 400, 0.0), _tile(7, 2, 500 + 3 * L, 400, 0.0)]
    blind = read_table(_reading(*line))
    assert blind.loose == (2,) and blind.found == ()
    # the gap's box has half A toward the open 4: reading 4 then 7 there fills it
    table = read_table(_reading(*line), look=_eyes({(500 + 2 * L, 400): (4, 7)}))
    assert [str(t.tile) for t in table.found] == ["4-7"]
    assert _joints(table) == {("4-9", "9-9"), ("4-7", "4-9"), ("2-7", "4-7")}
    assert table.loose == () and any("found by looking" in w and "4-7" in w for w in table.warnings)
    assert table.to_dict()["found"][0]["tile"] == "4-7"
    # the same gap reading other numbers is no tile of this line: nothing joins
    wrong = read_table(_reading(*line), look=_eyes({(500 + 2 * L, 400): (4, 6)}))
    assert wrong.found == () and wrong.loose == (2,)


def test_a_foot_missed_at_the_end_of_a_line_is_read_where_its_toes_point():
    tiles = [_tile(9, 9, 500, 400, 0.0), _tile(9, 4, 500 + L, 400, 0.0),
             _tile(4, 1, 500 + 1.5 * L + W + L / 2, 400, 0.0)]  # a toe beyond the missing 4-4
    table = read_table(_reading(*tiles), look=_eyes({(round(500 + 1.5 * L + W / 2), 400): (4, 4)}))
    assert [str(t.tile) for t in table.found] == ["4-4"]
    assert _joints(table) == {("4-9", "9-9"), ("4-4", "4-9"), ("1-4", "4-4")}


def test_a_named_hub_the_detector_missed_is_looked_for_against_its_spokes():
    spokes = _plus()[1:5]
    table = read_table(_reading(*spokes), hub="9-9", look=_eyes({(500, 400): (9, 9)}))
    assert str(table.layout.hub) == "9-9" and len(table.layout.plays) == 4
    assert [str(t.tile) for t in table.found] == ["9-9"]
    assert not any("no 9-9 was read" in w for w in table.warnings)


@pytest.mark.skipif(not (MODELS / "reader.json").exists(), reason="shipped models not built")
def test_the_shipped_reader_finds_a_tile_left_out_of_the_rendered_table_photo_again():
    """Drop tiles from the reading of the rendered test photo, as a detector miss would; looking where
    the layout needs them reads them back from the photo, with the right numbers."""
    from functools import partial

    reader = Reader.from_models_dir(MODELS)
    loaded = reader.load(DATA / "table.jpg")
    reading = reader.read(loaded, get_rules("double-chicken-foot"), 9)
    full = read_table(reading, rules="double-chicken-foot")
    for gone in ("3-7", "5-5"):  # a line tile between the hub and a foot; a foot with toes
        i = next(k for k, t in enumerate(reading.tiles) if str(t.tile) == gone)
        holed = Reading(reading.tiles[:i] + reading.tiles[i + 1:], 0, 0, (), reading.image_size)
        assert read_table(holed, rules="double-chicken-foot").loose  # its line falls off the layout
        table = read_table(holed, rules="double-chicken-foot", look=partial(reader.look_at, loaded, top=9))
        assert [str(t.tile) for t in table.found] == [gone]
        assert _joints(table) == _joints(full) and table.loose == ()


def test_table_eval_scores_written_tables(tmp_path: Path, capsys):
    """``python -m chickenfoot.vision.lab.datasets.table`` writes photos with their truth; ``chickenfoot.vision.lab.table_eval`` reads
    them back and scores the layout step from the true boxes."""
    from chickenfoot.vision.lab.datasets.table import main as render_main
    from chickenfoot.vision.lab.table_eval import evaluate
    from chickenfoot.vision.lab.table_eval import main as eval_main

    assert render_main(["--out", str(tmp_path), "--count", "3", "--seed", "7"]) == 0
    assert json.loads(capsys.readouterr().out)["images"] == 3
    assert len(list(tmp_path.glob("table_7_*.jpg"))) == 3
    rows = evaluate(tmp_path, None)
    assert set(rows) == {"truth_boxes_hub_named", "truth_boxes_hub_guessed"}
    named = rows["truth_boxes_hub_named"]
    assert named["photos"] == 3 and named["hub_right"] == 100.0
    assert named["layout_exact"] == 100.0 and named["same_verdict"] == 100.0
    assert eval_main(["--data", str(tmp_path), "--truth-only", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == rows


@pytest.mark.skipif(not (MODELS / "reader.json").exists(), reason="shipped models not built")
def test_a_table_is_read_with_its_own_zoom_and_hands_are_not():
    import dataclasses

    reader = Reader.from_models_dir(MODELS)
    table = reader.for_table()
    assert reader.config.table_fine_trigger_px > reader.config.fine_trigger_px  # shipped: 80 > 40
    assert table.config.fine_trigger_px == reader.config.table_fine_trigger_px
    # shipped: the box search is for hands only (it cost rendered tables their joints)
    assert reader.config.search_below > 0 and table.config.search_below == 0
    # nor asked to be taken closer: a whole layout cannot be
    assert reader.config.small_tile_px > 0 and table.config.small_tile_px == 0
    # nor does the hand rule ask about finds: the table reader fills gaps from them itself
    assert reader.config.hand_asks and not table.config.hand_asks
    assert dataclasses.replace(table.config, fine_trigger_px=reader.config.fine_trigger_px,
                               search_below=reader.config.search_below,
                               small_tile_px=reader.config.small_tile_px, hand_asks=True) == reader.config
    assert table.detector.model is reader.detector.model  # the same loaded models
    plain = reader.with_config(dataclasses.replace(reader.config, table_fine_trigger_px=0.0, search_below=0.0,
                                                   small_tile_px=0.0, hand_asks=False))
    assert plain.for_table() is plain


def test_a_possible_tile_the_reader_did_not_count_fills_a_gap_it_lies_in():
    """An uncounted candidate in a one-tile gap that shows the gap's numbers joins (turned to
    face the open end if read the other way round); one showing other numbers does not."""
    line = [_tile(9, 9, 500, 400, 0.0), _tile(9, 4, 500 + L, 400, 0.0), _tile(7, 2, 500 + 3 * L, 400, 0.0)]
    backwards = TileReading(7, 4, 0.3, OrientedBox(500 + 2 * L, 400, L, W, 0.0), True, 0.4, (0.6, 0.5))
    table = read_table(Reading(tuple(line), 0, 0, (), (1000, 800), candidates=(backwards,)))
    assert [str(t.tile) for t in table.found] == ["4-7"]
    assert (table.found[0].a, table.found[0].b) == (4, 7) and table.found[0].needs_review
    assert _joints(table) == {("4-9", "9-9"), ("4-7", "4-9"), ("2-7", "4-7")} and table.loose == ()
    other = TileReading(7, 5, 0.3, OrientedBox(500 + 2 * L, 400, L, W, 0.0), True, 0.4, (0.6, 0.5))
    table = read_table(Reading(tuple(line), 0, 0, (), (1000, 800), candidates=(other,)))
    assert table.found == () and table.loose == (2,)


def test_a_named_hub_the_reader_did_not_count_is_taken_from_its_candidates():
    spokes = _plus()[1:5]
    hub = TileReading(9, 9, 0.35, OrientedBox(500, 400, L, W, 0.0), True, 0.4, (0.6, 0.6))
    table = read_table(Reading(tuple(spokes), 0, 0, (), (1000, 800), candidates=(hub,)), hub="9-9")
    assert str(table.layout.hub) == "9-9" and len(table.layout.plays) == 4
    assert [str(t.tile) for t in table.found] == ["9-9"] and table.found[0].needs_review
    with pytest.raises(TableError, match="no double was read"):  # not named: a candidate is no hub
        read_table(Reading(tuple(spokes), 0, 0, (), (1000, 800), candidates=(hub,)))


def test_set_warning_names_the_tiles_the_set_does_not_have():
    from chickenfoot.vision.table import set_warning

    odd = check_layout(Layout.build("9-9", [("9-10", "9-9"), ("9-4", "9-9")], set=9, ordered=False))
    assert set_warning(odd) == "not in a double-9 set: 9-10; misread?"
    assert set_warning(check_layout(Layout.build("9-9", [("9-4", "9-9")], set=9))) is None
