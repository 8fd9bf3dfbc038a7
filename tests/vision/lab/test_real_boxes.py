"""Detector training crops of the Ruxi12 photos (:mod:`chickenfoot.vision.lab.real_boxes`) and the
plain-faces tally on its held-out games (:mod:`chickenfoot.vision.lab.ruxi_faces`), on a Ruxi12-shaped
folder made here from the fake scene's photo, so they run without ``../shared/realdata``."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import fake_models
import numpy as np
import pytest
from PIL import Image

from chickenfoot.vision.lab.real_boxes import SOURCE, RealBoxesError, box_corners, write_real_boxes

FELT = np.array([60, 110, 60])


def _write_csv(path: Path, rows: list[dict[str, object]]) -> None:
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def _ruxi(tmp_path: Path) -> tuple[Path, Path, list]:
    """A realdata folder holding a Ruxi12-shaped source: the fake scene's photo as game 1 and
    game 2 (two photos each), its three tiles' boxes, and a grid round them; and the fake models."""
    photo, models, truth = fake_models.scene(tmp_path)
    base = tmp_path / "realdata" / SOURCE
    (base / "photos").mkdir(parents=True)
    img = Image.open(photo).convert("RGB")
    files = ["photos/1_01.jpg", "photos/1_02.jpg", "photos/2_01.jpg", "photos/2_02.jpg"]
    boxes, labels = [], []
    for f in files:
        img.save(base / f, quality=95)
        for box, name in truth:
            a, b = (int(v) for v in name.split("-"))
            boxes.append({"file": f, "tile": name, "pips_1": a, "pips_2": b, "cx": box.cx, "cy": box.cy,
                          "length": box.length, "width": box.width, "angle_deg": math.degrees(box.angle)})
        labels.append({"file": f, "tiles": ";".join(n for _, n in truth), "total_pips": 10, "n_tiles": len(truth)})
    _write_csv(base / "boxes.csv", boxes)
    _write_csv(base / "labels_tiles.csv", labels)
    grid = {"top_left_x": 140, "top_left_y": 100, "top_right_x": 680, "top_right_y": 100,
            "bottom_right_x": 680, "bottom_right_y": 560, "bottom_left_x": 140, "bottom_left_y": 560}
    _write_csv(base / "grid_corners.csv", [{"game": g, **grid} for g in (1, 2)])
    return tmp_path / "realdata", models, truth


def test_box_corners_are_opencvs_box_points() -> None:
    c = box_corners(100, 50, 40, 20, 90.0)  # standing: length along y
    assert np.allclose(sorted(c[:, 0]), [90, 90, 110, 110]) and np.allclose(sorted(c[:, 1]), [30, 30, 70, 70])
    assert np.allclose(c.mean(0), [100, 50])
    assert np.isclose(np.linalg.norm(c[1] - c[0]), 40) and np.isclose(np.linalg.norm(c[3] - c[0]), 20)


def test_grid_crops_keep_every_tile_on_its_label_and_name_the_files(tmp_path: Path) -> None:
    root, _models, truth = _ruxi(tmp_path)
    out = tmp_path / "crops"
    st = write_real_boxes(out, [1], copies=2, seed=4, long_side=240, root=root)
    assert st["photos"] == 2 and st["images"] == 4 and st["tiles"] == 4 * len(truth)
    assert st["files"] == [f"{SOURCE}/photos/1_01.jpg", f"{SOURCE}/photos/1_02.jpg"]  # game 2 is left out
    crops = sorted((out / "images" / "train").glob("*.jpg"))
    assert len(crops) == 4
    for img_path in crops:
        img = Image.open(img_path).convert("RGB")
        # cut to the grid (540 x 460) and a margin of 8-30 px a side, long side 240
        assert img.width == 240 and 240 * 476 / 600 - 1 <= img.height <= 240 * 520 / 556 + 1
        arr = np.asarray(img, dtype=float)
        lines = (out / "labels" / "train" / f"{img_path.stem}.txt").read_text().split("\n")
        quads = [np.array([float(v) for v in ln.split()[1:]]).reshape(4, 2) * img.size for ln in lines if ln]
        assert len(quads) == len(truth)
        for q in quads:
            # the middle of each half is tile, not felt: the label sits on its tile
            for end in ((q[0] + q[3]) / 2, (q[1] + q[2]) / 2):
                x, y = ((end + q.mean(0)) / 2).astype(int)
                assert np.abs(arr[y, x] - FELT).max() > 60
    # a limit takes the first photos only
    st = write_real_boxes(tmp_path / "one", [1, 2], copies=1, seed=4, root=root, limit=1)
    assert st["files"] == [f"{SOURCE}/photos/1_01.jpg"]


def test_no_ruxi_folder_or_no_such_game_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(RealBoxesError, match="no such file"):
        write_real_boxes(tmp_path / "o", [1], 1, 0, root=tmp_path)
    root, _, _ = _ruxi(tmp_path)
    with pytest.raises(RealBoxesError, match="no photo of games"):
        write_real_boxes(tmp_path / "o", [7], 1, 0, root=root)


def test_a_detector_pass_on_real_crops_and_pose_frames_names_them_in_reader_json(tmp_path: Path) -> None:
    pytest.importorskip("yaml", reason="the training recipe needs the train extra")
    from chickenfoot.vision.lab.pose_boxes import SOURCE as POSE_SOURCE
    from chickenfoot.vision.lab.train import det_pose_dir, det_real_dir, write_reader_json

    work, out = tmp_path / "work", tmp_path / "out"
    pose = f"{POSE_SOURCE}/images_classes/train/f1.jpg"
    for folder, files in ((det_real_dir(work, 1), [f"{SOURCE}/photos/1_02.jpg"]), (det_pose_dir(work, 1), [pose]),
                          (det_pose_dir(work, 0), [f"{POSE_SOURCE}/images_classes/test/stale.jpg"])):
        folder.mkdir(parents=True)
        (folder / "real_done").write_text(json.dumps({"files": files}))
    out.mkdir()
    cfg = {"seed": 1, "max_value": 12,
           "detector": {"imgsz": 416, "finetune": [{"images": 4, "seed": 5},
                                                   {"images": 4, "seed": 6, "real_boxes": {"games": [1], "seed": 2},
                                                    "pose_boxes": {"seed": 3}}]},
           "classifier": {"imgsz": 64, "crop_size": 64, "crop_pad": 0.06}}
    data = json.loads(write_reader_json(out, cfg, work).read_text())
    # both real sources of the pass that names them; not a pass's leftover frames it does not name
    assert data["finetuned_on"] == [f"{SOURCE}/photos/1_02.jpg", pose]
    assert data["seeds"] == [1, 1001, 5, 6]


def test_plain_faces_tally_puts_each_true_tile_in_one_outcome_per_kind(tmp_path: Path) -> None:
    pytest.importorskip("onnx", reason="building the test models needs onnx (train extra)")
    from chickenfoot.vision.lab.ruxi_faces import KINDS, OUTCOMES, score, table
    from chickenfoot.vision.reader import Reader

    root, models, _truth = _ruxi(tmp_path)
    res = score(Reader.from_models_dir(models), [2], gray=True, root=root)
    assert res["photos"] == 2
    for mode in ("colour", "gray"):
        by_kind = res[mode]["by_kind"]
        assert set(by_kind) == set(KINDS)
        # the scene's 0-0, 0-3 and 3-4 on each of the two photos
        assert [by_kind[k]["n"] for k in KINDS] == [2, 2, 2]
        assert all(sum(by_kind[k].get(o, 0) for o in OUTCOMES) == by_kind[k]["n"] for k in KINDS)
    assert res["colour"]["by_kind"]["other"].get("exact") == 2  # the fake reader reads the 3-4 right
    assert "| colour | 0-0 | 2 |" in table(res)


def test_detector_pass_from_the_shipped_file_on_renders_and_real_crops_exports_onnx(tmp_path: Path) -> None:
    """datasets/reader_faces.yaml's pipeline, tiny: the shipped detector rebuilt from its ONNX file,
    one epoch at 160 px on 6 plain-faces renders and 2 real grid crops, exported, and the real
    files named in reader.json."""
    import importlib.util
    import os
    import subprocess
    import sys

    if importlib.util.find_spec("ultralytics") is None:
        pytest.skip("training extra not installed: pip install -e '.[train]'")
    import yaml

    ort = pytest.importorskip("onnxruntime")
    root, _models, _truth = _ruxi(tmp_path)
    repo = Path(__file__).resolve().parents[3]
    cfg = yaml.safe_load((repo / "datasets" / "reader_faces.yaml").read_text())
    det = cfg["detector"]
    det.update({"start": "models/tile_obb.onnx.xz", "imgsz": 160, "batch": 4, "long_side": 320, "val_frac": 0.25,
                "cache": False, "calib_images": 8})
    det["finetune"] = [det["finetune"][0] | {"images": 8, "seed": 5, "epochs": 1, "hyp": {"close_mosaic": 0},
                                             "real_boxes": {"games": [1], "copies": 1, "seed": 3, "limit": 2}}]
    config, work, out = tmp_path / "faces.yaml", tmp_path / "work", tmp_path / "out"
    config.write_text(yaml.safe_dump(cfg))
    done = subprocess.run([sys.executable, "-m", "chickenfoot.vision.lab.train", "--config", str(config), "--work",
                           str(work), "--out", str(out), "--stage", "det"], cwd=repo, capture_output=True, text=True,
                          timeout=600, env=os.environ | {"CHICKENFOOT_REALDATA": str(root)})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]

    train = (work / "det_ft_data" / "data.yaml").read_text()
    assert "det_ft_data/real/images/train" in train and "det_ft_data/new/images/train" in train
    assert len(list((work / "det_ft_data" / "real" / "images" / "train").glob("*.jpg"))) == 2
    reader = json.loads((out / "reader.json").read_text())
    assert reader["finetuned_on"] == [f"{SOURCE}/photos/1_01.jpg", f"{SOURCE}/photos/1_02.jpg"]
    assert 5 in reader["seeds"]
    metrics = json.loads((out / "train_metrics.json").read_text())
    assert metrics["det_start"]["relative_max_diff"] < 1e-4  # the start computes what the shipped file does
    assert metrics["det_ft_data"]["blank_halves"] > 0
    det_s = ort.InferenceSession(str(out / "tile_obb.onnx"), providers=["CPUExecutionProvider"])
    assert det_s.get_modelmeta().custom_metadata_map["task"] == "obb"
    (y,) = det_s.run(None, {det_s.get_inputs()[0].name: np.zeros((1, 3, 160, 224), np.float32)})  # dynamic shape
    assert y.shape[:2] == (1, 6)
