"""Makes tests/vision/fake_models.py importable by name from every test of the reader."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
