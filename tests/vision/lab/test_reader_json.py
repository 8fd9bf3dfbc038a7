"""The training recipe writes the reader settings that ship."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from chickenfoot.vision.config import MODELS_DIR, ReaderConfig

ROOT = Path(__file__).resolve().parents[3]
TEST_DATA = ROOT / "tests" / "data"


def test_the_training_config_writes_the_shipped_reader_settings():
    """``chickenfoot.vision.lab.train`` writes the yaml's ``reader`` block into a new reader.json: retraining from
    it must give the settings that ship."""
    import yaml

    block = yaml.safe_load((ROOT / "datasets" / "reader_train.yaml").read_text())["reader"]
    shipped = json.loads((MODELS_DIR / "reader.json").read_text())
    assert {k: shipped.get(k) for k in block} == block
    known = {f.name for f in dataclasses.fields(ReaderConfig)}
    assert set(block) <= known
    # ... and every reader-side setting that ships away from its default is in it
    trainer_written = {"detector", "classifier", "classifier_wide", "cls_values", "wide_values", "det_imgsz", "cls_imgsz",
                       "crop_size", "crop_pad",
                       "max_value"}
    default = ReaderConfig()
    moved = {k for k in known - trainer_written if k in shipped and shipped[k] != getattr(default, k)}
    assert moved <= set(block), f"set in reader.json, missing from the yaml's reader block: {moved - set(block)}"
