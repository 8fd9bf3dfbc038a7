"""Box-on-box measures in :mod:`chickenfoot.vision.detections`, on real arrays."""

from __future__ import annotations

import math

import numpy as np
import pytest

from chickenfoot.vision.detections import Detections, obb_corners, probiou
from chickenfoot.vision.geometry import OrientedBox


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


def test_detections_validate_their_arrays():
    d = Detections(np.array([[1, 2, 30, 10, 0.5], [5, 5, 20, 8, 0]]), [0.5, 0.9], [0, 1])
    assert len(d) == 2 and d.boxes.dtype == np.float32 and d.class_id.dtype == np.int64
    assert len(d[d.class_id == 1]) == 1 and d[1].confidence.tolist() == pytest.approx([0.9])
    assert len(Detections.empty()) == 0 and Detections.empty().corners().shape == (0, 4, 2)
    with pytest.raises(ValueError):
        Detections(np.zeros((2, 4)), [0.1, 0.2], [0, 0])
    with pytest.raises(ValueError):
        Detections(np.ones((2, 5)), [0.1], [0, 0])
    with pytest.raises(ValueError):
        Detections(np.ones((1, 5)), [1.5], [0])
    with pytest.raises(ValueError):
        Detections(np.array([[1, 1, 0, 1, 0]]), [0.5], [0])
    with pytest.raises(ValueError):
        Detections(np.ones((1, 5)), [0.5], [0], data={"x": np.zeros(3)})
    box = OrientedBox(50, 40, 30, 10, 0.4)
    assert np.allclose(Detections.from_boxes([box], [0.5]).corners()[0], box.corners())
    assert np.allclose(obb_corners([[50, 40, 30, 10, 0.4]])[0], box.corners())
