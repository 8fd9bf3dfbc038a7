"""A photo judged by its headline (:mod:`chickenfoot.vision.lab.verdict`), the Ruxi12 folder's
labels (:mod:`chickenfoot.vision.lab.realdata`), and both through ``python -m
chickenfoot.vision.lab.evaluate`` on a small folder in Ruxi12's format."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import fake_models
import pytest
from PIL import Image

from chickenfoot.rules import Tile, get_rules
from chickenfoot.vision.geometry import OrientedBox
from chickenfoot.vision.lab.realdata import RUXI12, in_grid, real_samples
from chickenfoot.vision.lab.verdict import (
    ASKED,
    RIGHT,
    WRONG_ASKED,
    WRONG_SILENT,
    VerdictTally,
    judge,
    scoped,
    verdict_table,
    wilson,
)
from chickenfoot.vision.reading import Reading, TileReading, zero_or_back

RULES = get_rules()  # a 0-0 counts 50


def tile(a: int, b: int, x: float = 50.0, *, review: bool = False, question: bool = False,
         uncounted: str = "") -> TileReading:
    return TileReading(a, b, 0.9, OrientedBox(x, 50.0, 40.0, 20.0, 0.0), needs_review=review,
                       question=zero_or_back(50) if question else "", uncounted=uncounted)


def reading(*tiles: TileReading, candidates: tuple[TileReading, ...] = ()) -> Reading:
    return Reading.scored(tiles, candidates, RULES, (400, 100))


def test_right_only_with_nothing_to_check_and_the_true_penalty():
    v = judge(reading(tile(3, 4), tile(0, 0)), [(3, 4), (0, 0)], RULES)
    assert v.outcome == RIGHT and v.true_penalty == v.shown_penalty == 57 and v.headline == "penalty 57"
    assert v.blank_double and not v.wrong
    # a possible tile left uncounted asks nothing: the headline is all a player reads
    v = judge(reading(tile(3, 4), candidates=(tile(0, 0, 200, uncounted="not pips"),)), [(3, 4), (0, 0)], RULES)
    assert v.outcome == WRONG_SILENT and v.shown_penalty == 7 and v.true_penalty == 57
    assert "true penalty 57 (0-0 3-4)" in v.describe() and 'shown "penalty 7"' in v.describe()


def test_a_missed_or_invented_zero_zero_is_wrong_though_the_pips_agree():
    assert judge(reading(tile(3, 4)), [(3, 4), (0, 0)], RULES).outcome == WRONG_SILENT
    assert judge(reading(tile(3, 4), tile(0, 0)), [(3, 4)], RULES).outcome == WRONG_SILENT


def test_a_photo_where_nothing_was_read_is_asked_never_a_0_point_hand():
    # the app asks whether the player went out or takes another photo: right for face-down tiles only
    v = judge(reading(candidates=(tile(1, 1, uncounted="unsure"),)), [], RULES)
    assert v.outcome == RIGHT and v.headline == "nothing read" and v.shown_penalty == 0
    v = judge(reading(), [(3, 4)], RULES)  # a hand the reader did not see: asked, and a retake it needs
    assert v.outcome == ASKED and not v.pointed and not v.wrong
    # the labelled part of a photo read elsewhere is judged by its penalty, as before
    r = reading(tile(3, 4, 350))
    part, outside = scoped(r, RULES, lambda box: box.cx < 200)
    assert judge(part, [], RULES, outside=outside, nothing_read=False).outcome == RIGHT
    v = judge(part, [(1, 2)], RULES, outside=outside, nothing_read=False)
    assert v.outcome == WRONG_SILENT and v.headline == "penalty 0"


def test_asked_while_the_counted_part_stays_within_the_truth():
    # the 0-0 asked about (0-0 or back?) is open: "at least 7, 1 to check", and 57 is reachable
    v = judge(reading(tile(3, 4), tile(0, 0, 100, question=True)), [(3, 4), (0, 0)], RULES)
    assert v.outcome == ASKED and v.pointed and v.to_check == 1 and v.questions == 1
    assert v.headline == "penalty at least 7, 1 to check"
    # asked about a tile that is right after all (the player confirms it): still asked, not right
    assert judge(reading(tile(3, 4), tile(5, 5, 100, review=True)), [(3, 4), (5, 5)], RULES).outcome == ASKED
    # asked about one tile while a sure one is misread: asked, but the question points elsewhere
    v = judge(reading(tile(3, 3), tile(5, 5, 100, review=True)), [(3, 4), (5, 5)], RULES)
    assert v.outcome == ASKED and not v.pointed
    # ... or while a tile is missed and no open tile stands for it
    v = judge(reading(tile(3, 4), tile(5, 5, 100, review=True)), [(3, 4), (5, 5), (1, 2)], RULES)
    assert v.outcome == ASKED and not v.pointed
    # the sure tiles alone over the truth: "at least 12" is false, whatever the player checks
    v = judge(reading(tile(6, 6), tile(1, 1, 100, review=True)), [(1, 1)], RULES)
    assert v.outcome == WRONG_ASKED and v.wrong


def test_finds_outside_the_labelled_part_are_counted_apart():
    r = reading(tile(3, 4, 50), tile(0, 0, 300), tile(2, 2, 350, review=True),
                candidates=(tile(1, 1, 320, uncounted="unsure"),))
    part, outside = scoped(r, RULES, lambda box: box.cx < 200)
    assert [t.tile for t in part.tiles] == [Tile(3, 4)] and part.penalty == 7 and part.to_check == 0
    assert part.candidates == () and len(outside) == 2
    v = judge(part, [(3, 4)], RULES, "src/x.jpg", "gray", outside)
    assert v.outcome == RIGHT and v.outside_counted == 1 and v.outside_open == 1
    assert scoped(r, RULES, None) == (r, [])


def test_verdict_table_places_the_zero_zero_photos_and_questions():
    t = VerdictTally()
    t.add(judge(reading(tile(3, 4), tile(0, 0, 100)), [(3, 4), (0, 0)], RULES))
    t.add(judge(reading(tile(3, 4)), [(3, 4), (0, 0)], RULES, "s/b.jpg"))
    t.add(judge(reading(tile(3, 4), tile(0, 0, 100, question=True)), [(3, 4), (0, 0)], RULES, "s/c.jpg"))
    t.add(judge(reading(tile(1, 2)), [(1, 2)], RULES))
    f = t.figures()
    assert (f["photos"], f[RIGHT], f[ASKED], f[WRONG_SILENT], f[WRONG_ASKED]) == (4, 2, 1, 1, 0)
    assert f["blank_double_photos"] == 3 and f["blank_double"] == {RIGHT: 1, ASKED: 1, WRONG_SILENT: 1, WRONG_ASKED: 0}
    assert f["to_check_per_photo"] == 0.25 and f["questions"] == 1
    assert f["wrong_photos"] == ['s/b.jpg [colour]: wrong, nothing asked; true penalty 57 (0-0 3-4); '
                                 'shown "penalty 7"']
    assert [a.split(" [")[0] for a in f["asked_photos"]] == ["s/c.jpg"]
    line = verdict_table([("some source", t)]).splitlines()[2]
    assert line.split()[:7] == ["some", "source", "4", "2", "50.0%", "15-85%", "1"]
    assert "3  1/1/1/0" in line


def test_the_share_right_comes_with_its_95_percent_interval():
    lo, hi = wilson(30, 36)  # the four held-out sources: 30 of 36 right
    assert (round(lo, 3), round(hi, 3)) == (0.681, 0.921)  # 95% right lies outside it; 32 of 36 inside
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0 and wilson(0, 0) == (0.0, 1.0)
    a, b = wilson(300, 360)
    assert b - a < hi - lo  # ten times the photos: a narrower interval


# ----------------------------------------------------------------- Ruxi12's format
GRID = [(150.0, 150.0), (720.0, 150.0), (720.0, 580.0), (150.0, 580.0)]


def ruxi12_folder(root: Path, photo: Path, truth: dict[str, list[tuple[OrientedBox, int, int]]]) -> Path:
    """A folder in Ruxi12's format (MANIFEST.md there): ``truth`` maps ``photos/G_MM.jpg`` to
    each tile's box and the values at its -length/2 and +length/2 ends. The second tile of each
    photo is written with its ends the other way round (end 1 at +length/2), as the source may."""
    base = root / RUXI12
    (base / "photos").mkdir(parents=True)
    with (base / "boxes.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["file", "tile", "pips_1", "pips_2", "end_1_x", "end_1_y", "end_2_x", "end_2_y",
                    "cx", "cy", "length", "width", "angle_deg"])
        for file, tiles in truth.items():
            Image.open(photo).convert("RGB").save(base / file, quality=95)
            for k, (box, a, b) in enumerate(tiles):
                u, _ = box.axes()
                ea = (box.cx - u[0] * box.length / 4, box.cy - u[1] * box.length / 4)
                eb = (box.cx + u[0] * box.length / 4, box.cy + u[1] * box.length / 4)
                ends = [(a, ea), (b, eb)] if k != 1 else [(b, eb), (a, ea)]
                w.writerow([file, str(Tile(a, b)), ends[0][0], ends[1][0], *ends[0][1], *ends[1][1],
                            box.cx, box.cy, box.length, box.width, math.degrees(box.angle)])
    with (base / "grid_corners.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["game", *(f"{c}_{xy}" for c in ("top_left", "top_right", "bottom_right", "bottom_left")
                               for xy in "xy")])
        for game in sorted({f.split("/")[1].split("_")[0] for f in truth}):
            w.writerow([game, *(v for p in GRID for v in p)])
    with (base / "labels_tiles.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["file", "tiles", "total_pips", "n_tiles"])
        for file, tiles in truth.items():
            w.writerow([file, ";".join(str(Tile(a, b)) for _, a, b in tiles), sum(a + b for _, a, b in tiles),
                        len(tiles)])
    return base


def test_ruxi12_gives_half_a_by_position_and_scores_the_grid_only(tmp_path: Path):
    photo, _, drawn = fake_models.scene(tmp_path)
    boxes = [b for b, _ in drawn]
    ruxi12_folder(tmp_path / "realdata", photo, {"photos/1_01.jpg": [(boxes[0], 3, 4), (boxes[1], 0, 3)]})
    (s,) = [s for s in real_samples(tmp_path / "realdata")]
    assert s.source == RUXI12 and s.kind == "boxes-oriented" and s.rel == f"{RUXI12}/photos/1_01.jpg"
    assert s.tiles == [(3, 4), (0, 3)]  # the second row's ends were written B first
    assert [b.cx for b in s.boxes] == [boxes[0].cx, boxes[1].cx]
    inside = s.labelled_part((800, 600))
    assert inside is not None and all(inside(b) for b in boxes)
    # the grid is 570 px wide: half a cell (19 px) of margin, no more
    assert in_grid(OrientedBox(140, 300, 40, 20, 0), GRID) and not in_grid(OrientedBox(125, 300, 40, 20, 0), GRID)
    assert not in_grid(OrientedBox(640, 110, 150, 76, 0.3), GRID)
    # a turned grid: the same rule along its own edges
    turned = [(400.0, 100.0), (700.0, 400.0), (400.0, 700.0), (100.0, 400.0)]
    assert in_grid(OrientedBox(400, 400, 40, 20, 0), turned) and not in_grid(OrientedBox(150, 150, 40, 20, 0), turned)


def test_evaluate_judges_each_photo_and_leaves_out_a_named_source(tmp_path: Path, capsys):
    """The fake scene on a Ruxi12 grid: the face-down tile above the grid is asked about (0-0
    or back?) and counted apart; the flagged 0-0 on the grid makes each photo ask."""
    pytest.importorskip("onnx", reason="building the test models needs onnx (train extra)")
    from chickenfoot.vision.lab import evaluate

    photo, models, drawn = fake_models.scene(tmp_path)
    (b34, _), (b03, _), (b00, _) = drawn
    bare = OrientedBox(560, 520, 150, 76, 0.0)  # felt, on the grid: nothing found there
    realdata = tmp_path / "realdata"
    ruxi12_folder(realdata, photo, {
        "photos/1_01.jpg": [(b34, 3, 4), (b03, 0, 3), (b00, 0, 0)],  # asked, the 0-0 is what is open
        "photos/1_02.jpg": [(b34, 3, 4)],  # 3-4 and 0-3 are sure: 10 > 7, wrong though asked
        "photos/2_01.jpg": [(b34, 3, 4), (b03, 0, 3), (b00, 0, 0), (bare, 5, 5)],  # a 5-5 not found
    })
    out_json = tmp_path / "r.json"
    code = evaluate.main(["--models", str(models), "--skip-rendered", "--realdata", str(realdata),
                          "--json", str(out_json)])
    out = capsys.readouterr().out
    assert code == 0 and "Photos judged by their headline, colour" in out and "Ruxi12 board" in out
    fig = json.loads(out_json.read_text())["real"]["colour"]["verdicts"]["Ruxi12 board, grid only (obb)"]
    assert (fig["photos"], fig[RIGHT], fig[ASKED], fig[WRONG_SILENT], fig[WRONG_ASKED]) == (3, 0, 2, 0, 1)
    assert fig["asked_pointed"] == 1 and fig["blank_double_photos"] == 2
    assert fig["blank_double"] == {RIGHT: 0, ASKED: 2, WRONG_SILENT: 0, WRONG_ASKED: 0}
    assert fig["to_check_per_photo"] == 1.0 and fig["questions"] == 0  # the question is off the grid
    assert fig["outside_counted"] == 0 and fig["outside_open"] == 3
    assert fig["wrong_photos"] == [f'{RUXI12}/photos/1_02.jpg [colour]: wrong, though asked; true penalty 7 (3-4); '
                                   'shown "penalty at least 10, 1 to check"']
    tiles = json.loads(out_json.read_text())["real"]["colour"]["per_source"]["Ruxi12 board, grid only (obb)"]
    # every tile on the grid is found and read end to end, but for the 5-5 labelled on bare felt
    assert tiles["photos"] == 3 and tiles["recall"] == tiles["exact_tile"] == pytest.approx(7 / 8, abs=1e-4)
    # left out by name; a name that is no folder there is an error, not a silent no-op
    code = evaluate.main(["--models", str(models), "--skip-rendered", "--realdata", str(realdata), "--no-gray",
                          "--exclude-source", RUXI12, "--json", str(out_json)])
    out = capsys.readouterr().out
    assert code == 0 and "0 labelled images" in out and f"sources left out: {RUXI12}" in out
    left = json.loads(out_json.read_text())["real"]["colour"]["verdicts"]
    assert list(left) == ["ALL real scene photos"] and left["ALL real scene photos"]["photos"] == 0
    assert evaluate.main(["--models", str(models), "--skip-rendered", "--realdata", str(realdata),
                          "--exclude-source", "nowhere"]) == 2
    assert "no folder nowhere" in capsys.readouterr().err
