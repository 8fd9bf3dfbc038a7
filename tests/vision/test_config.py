"""``reader.json`` (:mod:`chickenfoot.vision.config`) and the model files it names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chickenfoot.vision.config import ModelError, ReaderConfig
from chickenfoot.vision.reader import Reader

ROOT = Path(__file__).resolve().parents[2]
TEST_DATA = ROOT / "tests" / "data"


def test_reader_config_loading(tmp_path: Path):
    with pytest.raises(ModelError, match=r"no reader\.json"):
        ReaderConfig.load(tmp_path / "reader.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ModelError):
        ReaderConfig.load(bad)
    bad.write_text(json.dumps({"det_conf": "high"}))
    with pytest.raises(ModelError):
        ReaderConfig.load(bad)
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"det_imgsz": 416, "review_conf": 0.7, "note": "x"}))
    cfg = ReaderConfig.load(good)
    assert cfg.det_imgsz == 416 and cfg.review_conf == 0.7 and cfg.extra == {"note": "x"}
    with pytest.raises(ModelError, match=r"reader\.json"):
        Reader.from_models_dir(tmp_path)
    good.write_text(json.dumps({"search_below": 0.9, "search_shifts": [-0.08, 0.04]}))
    assert ReaderConfig.load(good).search_shifts == (-0.08, 0.04)
    for shifts in ([0.6], ["left"], 0.1, [float("nan")]):
        bad.write_text(json.dumps({"search_shifts": shifts}))
        with pytest.raises(ModelError, match=r"search_shifts|bad value|NaN"):
            ReaderConfig.load(bad)


def test_missing_or_broken_model_files(tmp_path: Path):
    (tmp_path / "reader.json").write_text(json.dumps({"detector": "a.onnx", "classifier": "b.onnx"}))
    with pytest.raises(ModelError, match="missing"):
        Reader.from_models_dir(tmp_path)
    (tmp_path / "a.onnx").write_bytes(b"not a model")
    (tmp_path / "b.onnx").write_bytes(b"not a model")
    with pytest.raises(ModelError, match="cannot load"):
        Reader.from_models_dir(tmp_path)
