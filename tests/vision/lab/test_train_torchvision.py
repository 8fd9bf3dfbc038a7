"""torchvision imports beside whichever torch build is installed (``chickenfoot.vision.lab.train_torchvision``):
its compiled operators load, or the two its import needs are declared and ``nms`` keeps the
boxes torchvision's own kernel keeps. Runs in a subprocess, as training does."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

if importlib.util.find_spec("torchvision") is None or importlib.util.find_spec("ultralytics") is None:
    pytest.skip("training extra not installed: pip install -e '.[train]'", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[3]

CODE = """
from chickenfoot.vision.lab.train_torchvision import provide_missing_ops
declared = provide_missing_ops()
import torch, torchvision, torchvision.transforms
boxes = torch.tensor([[0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 30, 30], [0, 0, 9, 10.]])
scores = torch.tensor([0.9, 0.8, 0.7, 0.95])
kept = torch.ops.torchvision.nms(boxes, scores, 0.5).tolist()
assert kept == [3, 2], kept
assert provide_missing_ops() == declared  # once per process
print("declared" if declared else "loaded", torch.__version__, torchvision.__version__)
"""


def test_torchvision_imports_and_nms_keeps_the_right_boxes() -> None:
    done = subprocess.run([sys.executable, "-c", CODE], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    # the answer is a line of its own: a tool's first import may print before it (ultralytics
    # announces the settings file it creates on a machine where it never ran)
    answers = [line for line in done.stdout.splitlines() if line.split()[:1] in (["declared"], ["loaded"])]
    assert len(answers) == 1, done.stdout
