"""The evaluation (:mod:`chickenfoot.vision.lab.evaluate`): matching, tallies, lost tiles and the printed report
on a small rendered folder."""

from __future__ import annotations

import json
from pathlib import Path

import fake_models
import numpy as np
import pytest
from PIL import Image

from chickenfoot.rules import Tile, get_rules
from chickenfoot.vision.detections import obb_corners
from chickenfoot.vision.geometry import OrientedBox

ROOT = Path(__file__).resolve().parents[3]
TEST_DATA = ROOT / "tests" / "data"


def test_polygon_iou_and_matching_helpers():
    from chickenfoot.vision.geometry import polygon_iou
    from chickenfoot.vision.lab.tally import aabb_iou, greedy_match, half_pairs, match_by_value

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
    from chickenfoot.vision.lab import evaluate

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
    from chickenfoot.vision.lab import evaluate

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
    from chickenfoot.vision.lab.evaluate import Evaluator
    from chickenfoot.vision.reader import Reading, TileReading

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
    from chickenfoot.vision.lab.tally import _quad_in_rect, closeup_crop

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
    from chickenfoot.vision.lab.tally import Tally

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
    from chickenfoot.vision.lab.tally import Tally

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
