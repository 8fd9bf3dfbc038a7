"""Box-on-box measures in :mod:`vision.detections`, on real arrays."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vision.detections import probiou


def test_probiou_basic_properties():
    a = np.array([[100, 100, 80, 40, 0.3], [300, 300, 80, 40, 1.2], [102, 99, 82, 40, 0.32]])
    m = probiou(a, a)
    assert np.allclose(np.diag(m), 1.0, atol=1e-3)
    assert np.allclose(m, m.T, atol=1e-6)
    assert m[0, 1] < 0.01 and m[0, 2] > 0.85
    # A box and the same box written with the angle turned half a turn are the same box.
    flipped = a[:1].copy()
    flipped[0, 4] += math.pi
    assert probiou(a[:1], flipped)[0, 0] == pytest.approx(1.0, abs=1e-3)
