"""``vision/lab/device_pass.sh``, the one-command detector pass for a lent GPU machine, run dry
on this machine's CPU: the GPU config cut to a few photos, the script's own steps end to end.
Needs the ``train`` extra."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

if importlib.util.find_spec("ultralytics") is None:
    pytest.skip("training extra not installed: pip install -e '.[train]'", allow_module_level=True)
ort = pytest.importorskip("onnxruntime")

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "vision" / "lab" / "device_pass.sh"


def _tiny(config: str, tmp_path: Path) -> tuple[Path, dict]:
    """``config`` cut to a few photos, written into ``tmp_path``; its one pass."""
    cfg = yaml.safe_load((ROOT / "datasets" / config).read_text())
    det = cfg["detector"]
    det |= {"imgsz": 160, "batch": 8, "long_side": 320, "calib_images": 8, "cache": False, "val_frac": 0.25}
    (ft,) = det["finetune"]
    ft |= {"images": 12, "epochs": 1, "hyp": {**ft["hyp"], "time": None, "close_mosaic": 0}}
    ft["hyp"] = {k: v for k, v in ft["hyp"].items() if v is not None}
    for key in ("real_boxes", "pose_boxes"):
        if key in ft:
            ft[key] |= {"limit": 2, "copies": 1}
    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump(cfg))
    return config, ft


def _run(step: str, config: Path, tmp_path: Path) -> str:
    env = {**os.environ, "CF_SKIP_INSTALL": "1", "CF_TRAIN_DEVICE": "cpu", "CF_RENDER_JOBS": "2",
           "CF_TRAIN_WORKERS": "0", "CF_TRAIN_THREADS": "1", "CF_PASS_DIR": str(tmp_path / "pass"),
           "OUT": str(tmp_path / "out"), "PYTHON": sys.executable}
    done = subprocess.run(["bash", str(SCRIPT), step, str(config)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


def test_the_gpu_pass_runs_dry_on_the_cpu_and_leaves_what_comes_back(tmp_path: Path) -> None:
    config, ft = _tiny("reader_gpu.yaml", tmp_path)
    out = tmp_path / "out"
    said = _run("train", config, tmp_path)
    # the package is the checkout laid out as pyproject.toml maps it, not what pip installed here
    shim = tmp_path / "pass" / "src" / "chickenfoot"
    assert f"chickenfoot from {shim / 'vision' / 'lab' / 'train.py'}" in said
    assert (shim / "vision").resolve() == ROOT / "vision" and (shim / "rules").resolve() == ROOT / "companion" / "rules"
    assert sorted(p.name for p in out.iterdir()) == [
        "best.pt", "reader.json", "tile_obb.onnx", "train.log", "train_metrics.json"]
    metrics = json.loads((out / "train_metrics.json").read_text())
    assert metrics["det_ft_data"]["images"] == 12 and metrics["det_start"]["calibration_inputs"] == 8
    reader = json.loads((out / "reader.json").read_text())
    # the pass's seed beside those of the shipped detector it starts from
    shipped = json.loads((ROOT / "models" / "reader.json").read_text())
    assert reader["seeds"][-1] == ft["seed"] and set(shipped["seeds"]) <= set(reader["seeds"])
    det_model = ort.InferenceSession(str(out / "tile_obb.onnx"), providers=["CPUExecutionProvider"])
    assert det_model.get_modelmeta().custom_metadata_map["task"] == "obb"
    # the renders and runs went where CF_PASS_DIR says
    assert len(list((tmp_path / "pass" / "work" / "det_ft_data" / "new" / "images" / "train").glob("*.jpg"))) == 9


def test_the_real_photos_are_made_here_and_trained_on_from_the_work_folder(tmp_path: Path) -> None:
    from chickenfoot.vision.lab.realdata import realdata_root

    if not (realdata_root() / "Ruxi12__Double-Double-Domino").is_dir():
        pytest.skip("the labelled real photos (../shared/realdata) are not here")
    config, _ = _tiny("reader_gpu_real.yaml", tmp_path)
    _run("real", config, tmp_path)
    data = tmp_path / "pass" / "work" / "det_ft_data"
    made = {p.parent.parent.name: len(list(p.glob("*.jpg"))) for p in data.glob("*/images/train")}
    assert made == {"real": 2, "pose": 2}
    # the pass then finds them made (as on a machine without the labelled photos) and trains on them
    _run("train", config, tmp_path)
    metrics = json.loads((tmp_path / "out" / "train_metrics.json").read_text())
    assert "det_ft_real" not in metrics and metrics["det_ft_data"]["images"] == 12
    train = yaml.safe_load((tmp_path / "pass" / "work" / "det_ft_data" / "data.yaml").read_text())["train"]
    assert {Path(t).parent.parent.name for t in train} >= {"real", "pose"}
    reader = json.loads((tmp_path / "out" / "reader.json").read_text())
    assert any("Ruxi12" in f for f in reader["finetuned_on"]) and any("karthik" in f for f in reader["finetuned_on"])


def test_the_script_says_how_it_is_used() -> None:
    done = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "usage" in done.stderr
