"""The real offline training path, tiny: render, train both models one epoch, export ONNX, and
run the exported files in onnxruntime the way the reader does. Needs the ``train`` extra."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

# Checked without importing: importing ultralytics patches PIL.Image.open for the rest of the
# process (it tries to install a HEIF plugin on any unreadable file), which would change how
# the image-loading tests in the same pytest run behave. Training runs in its own process.
if importlib.util.find_spec("ultralytics") is None:
    pytest.skip("training extra not installed: pip install -e '.[train]'", allow_module_level=True)
ort = pytest.importorskip("onnxruntime")

from chickenfoot.vision.geometry import rectify, split_halves  # noqa: E402
from chickenfoot.vision.halves import NOT_PIPS, NOT_PIPS_CLASS  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]


def test_smoke_training_exports_working_onnx(tmp_path: Path) -> None:
    out = tmp_path / "models"
    cmd = [sys.executable, "-m", "chickenfoot.vision.lab.train", "--smoke", "--work", str(tmp_path / "work"), "--out", str(out)]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]

    reader = json.loads((out / "reader.json").read_text())
    assert reader["detector"] == "tile_obb.onnx" and reader["classifier"] == "half_cls.onnx"
    # pip counts 0-12 and x, not pips (the last pass adds it: its halves were mined on rendered photos)
    assert sorted(reader["cls_values"]) == [NOT_PIPS, *range(reader["max_value"] + 1)]
    metrics = json.loads((out / "train_metrics.json").read_text())
    picked = metrics["cls_ft_not_pips"]["picked"]
    assert picked["train"] > 0 and picked["val"] > 0 and metrics["cls_val"]["per_class"][NOT_PIPS_CLASS] >= 0
    assert reader["stage"] == "interim" and reader["seeds"] == [7, 1007, 31026, 13, 17] and reader["finetuned_on"] == []

    det = ort.InferenceSession(str(out / reader["detector"]), providers=["CPUExecutionProvider"])
    meta = det.get_modelmeta().custom_metadata_map
    assert meta["task"] == "obb" and "tile" in meta["names"]
    size = reader["det_imgsz"]
    (y,) = det.run(None, {det.get_inputs()[0].name: np.zeros((1, 3, size, size), np.float32)})
    assert y.shape[0] == 1 and y.shape[1] == 4 + 1 + 1  # cx cy w h, one class score, angle

    # a real rendered val photo and its true boxes, cut as the reader cuts them
    val = sorted((tmp_path / "work" / "det_data" / "images" / "val").glob("*.jpg"))[0]
    tiles = json.loads((tmp_path / "work" / "det_data" / "tiles" / "val" / f"{val.stem}.json").read_text())
    from chickenfoot.vision.geometry import OrientedBox

    img = Image.open(val).convert("RGB")
    crops = []
    for t in tiles[:4] or [{"box": [50, 50, 40, 20, 0.0]}]:
        box = OrientedBox(*t["box"])
        for half in split_halves(rectify(img, box, size=reader["crop_size"], pad=reader["crop_pad"])):
            h = half.resize((reader["cls_imgsz"], reader["cls_imgsz"]))
            crops.append(np.asarray(h, np.float32).transpose(2, 0, 1) / 255.0)
    cls = ort.InferenceSession(str(out / reader["classifier"]), providers=["CPUExecutionProvider"])
    (p,) = cls.run(None, {cls.get_inputs()[0].name: np.stack(crops)})
    assert p.shape == (len(crops), reader["max_value"] + 2)  # dynamic batch; 13 counts and x
    assert np.allclose(p.sum(1), 1.0, atol=1e-3)

    # the reader loads all three models
    from chickenfoot.vision.reader import Reader

    loaded = Reader.from_models_dir(out)
    assert loaded.model_bytes == sum((out / reader[k]).stat().st_size
                                     for k in ("detector", "classifier", "classifier_wide"))

    # the wide-set classifier: the first classifier's weights with a 19-way output, pip counts 0-18
    assert reader["classifier_wide"] == "half_cls18.onnx" and sorted(reader["wide_values"]) == list(range(19))
    wide = ort.InferenceSession(str(out / reader["classifier_wide"]), providers=["CPUExecutionProvider"])
    (q,) = wide.run(None, {wide.get_inputs()[0].name: np.stack(crops)})
    assert q.shape == (len(crops), 19) and np.allclose(q.sum(1), 1.0, atol=1e-3)
    assert loaded.wide is not None and loaded.half_reader(18) is loaded.wide
    assert loaded.half_reader(12) is loaded.halves

    metrics = json.loads((out / "train_metrics.json").read_text())
    assert metrics["det_data"]["images"] == 16 and "map50" in metrics["det_val"]
    assert metrics["cls_val"]["n"] > 0
    wide_m = metrics["classifier_wide"]  # a first pass and one finetune pass on fresh halves
    assert wide_m["val"]["n"] > 0 and wide_m["data"]["halves"] >= 190 and wide_m["data_ft1"]["halves"] >= 76
    assert "train_seconds" in wide_m and "train_ft1_seconds" in wide_m
