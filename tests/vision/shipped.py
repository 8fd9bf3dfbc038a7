"""Marks for tests that need the shipped models (``models/``) and the labelled test photos."""

from pathlib import Path

import pytest

from chickenfoot.vision.config import MODELS_DIR

TEST_DATA = Path(__file__).resolve().parents[1] / "data"

needs_shipped = [
    pytest.mark.skipif(not (MODELS_DIR / "reader.json").exists(), reason="no trained models in models/ yet"),
    pytest.mark.skipif(not (TEST_DATA / "hand.json").exists(), reason="no tests/data/hand.json"),
]
