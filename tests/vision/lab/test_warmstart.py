"""Training from the shipped ONNX files (``chickenfoot.vision.lab.train_warmstart``, a stage's ``start`` in the training
yaml): the rebuilt checkpoint computes what the ONNX file computes, a bad pairing is refused,
and a continuation run trains from it and exports. Needs the ``train`` extra; runs in
subprocesses, as the smoke training does (importing ultralytics patches PIL for the process)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

if importlib.util.find_spec("ultralytics") is None:
    pytest.skip("training extra not installed: pip install -e '.[train]'", allow_module_level=True)
ort = pytest.importorskip("onnxruntime")

ROOT = Path(__file__).resolve().parents[3]


def _run(*args: str, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize(("onnx_file", "model_yaml", "classes"), [
    ("half_cls.onnx", "half_cls.yaml", 14), ("tile_obb.onnx.xz", "tile_obb.yaml", 1), ("half_cls18.onnx", "half_cls.yaml", 20),
])
def test_checkpoint_rebuilt_from_the_shipped_onnx_computes_the_same(tmp_path: Path, onnx_file: str, model_yaml: str,
                                                                    classes: int) -> None:
    out = tmp_path / "start.pt"
    done = _run("-m", "chickenfoot.vision.lab.train_warmstart", "--onnx", f"models/{onnx_file}", "--yaml", f"vision/lab/model_yaml/{model_yaml}",
                "--out", str(out), "--count", "8")
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["classes"] == classes and report["calibration_inputs"] == 8
    assert report["relative_max_diff"] < 1e-4 and out.stat().st_size > 100_000


def test_a_yaml_that_does_not_match_the_onnx_file_is_refused(tmp_path: Path) -> None:
    done = _run("-m", "chickenfoot.vision.lab.train_warmstart", "--onnx", "models/half_cls.onnx", "--yaml", "vision/lab/model_yaml/tile_obb.yaml",
                "--out", str(tmp_path / "x.pt"))
    assert done.returncode == 2 and done.stderr.startswith("error: ")
    assert not (tmp_path / "x.pt").exists()
    done = _run("-m", "chickenfoot.vision.lab.train_warmstart", "--onnx", str(tmp_path / "absent.onnx"), "--yaml", "vision/lab/model_yaml/half_cls.yaml",
                "--out", str(tmp_path / "x.pt"))
    assert done.returncode == 2 and "absent.onnx" in done.stderr
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"\x00not a model at all" * 10)
    done = _run("-m", "chickenfoot.vision.lab.train_warmstart", "--onnx", str(junk), "--yaml", "vision/lab/model_yaml/half_cls.yaml",
                "--out", str(tmp_path / "x.pt"))
    assert done.returncode == 2 and "not an ONNX file" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "x.pt").exists()


def test_a_continuation_run_trains_from_the_shipped_files_and_exports(tmp_path: Path) -> None:
    """Both stages start from the shipped files: no first pass, one short pass on fresh data
    each; the exported files load, and reader.json keeps the shipped models' seeds too."""
    cfg = yaml.safe_load((ROOT / "datasets" / "reader_smoke.yaml").read_text())
    cfg["detector"] |= {"start": "models/tile_obb.onnx.xz", "imgsz": 160,
                        "finetune": [{"images": 8, "seed": 41, "epochs": 1, "lr0": 0.0001}]}
    cfg["classifier"] |= {"start": "models/half_cls.onnx", "finetune": [{"halves": 60, "seed": 43, "epochs": 1, "lr0": 0.0001}]}
    cfg.pop("classifier_wide")
    config = tmp_path / "continue.yaml"
    config.write_text(yaml.safe_dump(cfg))
    out, work = tmp_path / "models", tmp_path / "work"
    done = _run("-m", "chickenfoot.vision.lab.train", "--config", str(config), "--work", str(work), "--out", str(out), timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    # no first pass was rendered or trained
    assert not (work / "det_data").exists() and not (work / "cls_data").exists()
    assert not (work / "runs" / "det").exists() and not (work / "runs" / "cls").exists()
    for start in ("det_start", "cls_start"):
        assert json.loads((work / "runs" / start / "done").read_text())["relative_max_diff"] < 1e-4
    metrics = json.loads((out / "train_metrics.json").read_text())
    assert metrics["cls_start"]["calibration_inputs"] > 0 and metrics["det_start"]["task"] == "obb"
    reader = json.loads((out / "reader.json").read_text())
    shipped = json.loads((ROOT / "models" / "reader.json").read_text())
    assert set(shipped["seeds"]) | {41, 43} <= set(reader["seeds"])
    det = ort.InferenceSession(str(out / "tile_obb.onnx"), providers=["CPUExecutionProvider"])
    (y,) = det.run(None, {det.get_inputs()[0].name: np.zeros((1, 3, 160, 160), np.float32)})
    assert y.shape[:2] == (1, 6)
    cls = ort.InferenceSession(str(out / "half_cls.onnx"), providers=["CPUExecutionProvider"])
    (p,) = cls.run(None, {cls.get_inputs()[0].name: np.zeros((2, 3, 64, 64), np.float32)})
    assert p.shape == (2, 13) and np.allclose(p.sum(1), 1.0, atol=1e-3)  # this pass's halves: 0-12, no x


def test_a_start_may_name_a_file_as_it_was_at_a_git_revision(tmp_path: Path) -> None:
    from chickenfoot.vision.lab.train import MissingStart, start_file

    assert start_file("models/half_cls.onnx", tmp_path) == ROOT / "models" / "half_cls.onnx"
    old = start_file("models/half_cls.onnx@HEAD", tmp_path)
    assert old.is_relative_to(tmp_path) and old.read_bytes() == (ROOT / "models" / "half_cls.onnx").read_bytes()
    with pytest.raises(MissingStart, match="git cannot show it"):
        start_file("models/no_such.onnx@HEAD", tmp_path)


def test_calibration_augments_with_ultralytics_defaults_for_keys_the_yaml_leaves_out():
    """The classifier's calibration crops go through ultralytics' own training transforms: a key
    missing from the yaml's ``hyp`` takes ultralytics' default (randaugment, say), not a guess."""
    code = """
import numpy as np
from ultralytics.cfg import DEFAULT_CFG_DICT
from chickenfoot.vision.lab.train_warmstart import CLASSIFY_AUGMENT_KEYS, calibration_inputs
defaults = {k: DEFAULT_CFG_DICT[k] for k in CLASSIFY_AUGMENT_KEYS}
assert defaults["auto_augment"], defaults
left_out = calibration_inputs("classify", 32, 6, 3, hyp={"time": 0.5})
spelled_out = calibration_inputs("classify", 32, 6, 3, hyp=defaults)
assert np.array_equal(left_out, spelled_out)
other = calibration_inputs("classify", 32, 6, 3, hyp=defaults | {"auto_augment": None})
assert not np.array_equal(left_out, other)
print("ok")
"""
    done = _run("-c", code)
    # the last line: ultralytics' first import on a fresh machine prints that it made its settings
    assert done.returncode == 0 and done.stdout.strip().splitlines()[-1:] == ["ok"], done.stderr[-2000:]
