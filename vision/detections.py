"""One detection container with validated arrays (in the manner of ``supervision.Detections``).

Boxes are oriented: ``(cx, cy, length, width, angle)`` rows in pixels of some image, the same
convention as :class:`chickenfoot.vision.geometry.OrientedBox` (``length >= width``, angle in radians of the
long axis). Every array has one row per detection; indexing with an int, slice, index array or
boolean mask returns a new :class:`Detections`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .geometry import OrientedBox


@dataclass(frozen=True)
class Detections:
    boxes: np.ndarray  # (N, 5) float32: cx, cy, length, width, angle
    confidence: np.ndarray  # (N,) float32 in [0, 1]
    class_id: np.ndarray  # (N,) int64
    #: Extra per-detection arrays (first dimension N), e.g. half values read later.
    data: dict[str, np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        boxes = np.asarray(self.boxes, dtype=np.float32)
        if boxes.size == 0:
            boxes = boxes.reshape(0, 5)
        if boxes.ndim != 2 or boxes.shape[1] != 5:
            raise ValueError(f"boxes must have shape (N, 5), got {boxes.shape}")
        n = boxes.shape[0]
        conf = np.asarray(self.confidence, dtype=np.float32).reshape(-1)
        cls = np.asarray(self.class_id).reshape(-1)
        if conf.shape != (n,):
            raise ValueError(f"confidence must have shape ({n},), got {conf.shape}")
        if cls.shape != (n,):
            raise ValueError(f"class_id must have shape ({n},), got {cls.shape}")
        whole = np.issubdtype(cls.dtype, np.integer) or np.all(np.equal(np.mod(cls, 1), 0))
        if cls.size and not whole:
            raise ValueError("class_id must hold whole numbers")
        cls = cls.astype(np.int64)
        if not np.all(np.isfinite(boxes)):
            raise ValueError("boxes must be finite")
        if n and (np.any(boxes[:, 2] <= 0) or np.any(boxes[:, 3] <= 0)):
            raise ValueError("box sides must be positive")
        if n and (np.any(conf < 0) or np.any(conf > 1) or not np.all(np.isfinite(conf))):
            raise ValueError("confidence must lie in [0, 1]")
        data = {}
        for key, value in self.data.items():
            arr = np.asarray(value)
            if arr.shape[:1] != (n,):
                raise ValueError(f"data[{key!r}] must have {n} rows, got shape {arr.shape}")
            data[key] = arr
        object.__setattr__(self, "boxes", boxes)
        object.__setattr__(self, "confidence", conf)
        object.__setattr__(self, "class_id", cls)
        object.__setattr__(self, "data", data)

    @classmethod
    def empty(cls) -> Detections:
        return cls(np.zeros((0, 5), np.float32), np.zeros(0, np.float32), np.zeros(0, np.int64))

    @classmethod
    def from_boxes(
        cls, boxes: list[OrientedBox], confidence: list[float] | np.ndarray, class_id: Any = 0
    ) -> Detections:
        ids = np.full(len(boxes), class_id, np.int64) if np.isscalar(class_id) else class_id
        return cls(box_rows(boxes).astype(np.float32), np.asarray(confidence, np.float32), ids)

    def __len__(self) -> int:
        return int(self.boxes.shape[0])

    def __getitem__(self, index: int | slice | np.ndarray | list[int]) -> Detections:
        if isinstance(index, int | np.integer):
            index = [int(index)]
        return Detections(
            self.boxes[index],
            self.confidence[index],
            self.class_id[index],
            {k: v[index] for k, v in self.data.items()},
        )

    def __iter__(self) -> Iterator[OrientedBox]:
        return iter(self.oriented_boxes())

    def oriented_boxes(self) -> list[OrientedBox]:
        return [OrientedBox(*(float(x) for x in row)) for row in self.boxes]

    def with_data(self, **arrays: np.ndarray) -> Detections:
        return Detections(self.boxes, self.confidence, self.class_id, {**self.data, **arrays})

    def scaled(self, factor: float) -> Detections:
        """Same detections in an image resized by ``factor`` (angles unchanged)."""
        boxes = self.boxes.copy()
        boxes[:, :4] *= factor
        return Detections(boxes, self.confidence, self.class_id, self.data)

    def shifted(self, dx: float, dy: float) -> Detections:
        """Same detections moved by ``(dx, dy)``: found in a crop, placed in the whole image."""
        if not len(self):
            return self
        boxes = self.boxes.astype(np.float64)
        boxes[:, 0] += dx
        boxes[:, 1] += dy
        return Detections(boxes, self.confidence, self.class_id, self.data)

    @classmethod
    def concat(cls, parts: Sequence[Detections]) -> Detections:
        """One set of ``parts``' rows in order; data kept where every part has it."""
        if not parts:
            return cls.empty()
        keys = set.intersection(*(set(p.data) for p in parts))
        return cls(np.concatenate([p.boxes for p in parts]), np.concatenate([p.confidence for p in parts]),
                   np.concatenate([p.class_id for p in parts]),
                   {k: np.concatenate([p.data[k] for p in parts]) for k in sorted(keys)})

    def corners(self) -> np.ndarray:
        """(N, 4, 2) corners in :meth:`OrientedBox.corners` order."""
        return obb_corners(self.boxes)


def box_rows(boxes: Iterable[OrientedBox]) -> np.ndarray:
    """``(N, 5)`` float64 rows ``cx, cy, length, width, angle`` of oriented boxes."""
    return np.array([[b.cx, b.cy, b.length, b.width, b.angle] for b in boxes], np.float64).reshape(-1, 5)


def obb_corners(boxes: np.ndarray) -> np.ndarray:
    """Vectorised :meth:`OrientedBox.corners` for (N, 5) rows."""
    boxes = np.asarray(boxes, np.float64).reshape(-1, 5)
    cx, cy, ln, wd, a = boxes.T
    ux, uy = np.cos(a), np.sin(a)
    vx, vy = -uy, ux
    hl, hw = ln / 2, wd / 2
    c = np.stack([cx, cy], 1)
    u = np.stack([ux * hl, uy * hl], 1)
    v = np.stack([vx * hw, vy * hw], 1)
    return np.stack([c - u - v, c + u - v, c + u + v, c - u + v], 1)


def normalize_angle(angle: float) -> float:
    """An undirected axis angle in [0, pi)."""
    return float(angle % math.pi)


def _covariance(boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Covariance (a, b, c) of each box seen as a uniform 2-D distribution."""
    a = boxes[:, 2] ** 2 / 12.0
    b = boxes[:, 3] ** 2 / 12.0
    cos, sin = np.cos(boxes[:, 4]), np.sin(boxes[:, 4])
    return a * cos**2 + b * sin**2, a * sin**2 + b * cos**2, (a - b) * cos * sin


def probiou(boxes1: np.ndarray, boxes2: np.ndarray, eps: float = 1e-7) -> np.ndarray:
    """Pairwise probabilistic IoU (Hellinger distance of Gaussians), as ultralytics'
    ``batch_probiou``: (N, 5) x (M, 5) -> (N, M). 1 for identical boxes, ~0 for distant ones."""
    b1 = np.asarray(boxes1, np.float64).reshape(-1, 5)
    b2 = np.asarray(boxes2, np.float64).reshape(-1, 5)
    x1, y1 = b1[:, 0:1], b1[:, 1:2]
    x2, y2 = b2[None, :, 0], b2[None, :, 1]
    a1, bb1, c1 = (v[:, None] for v in _covariance(b1))
    a2, bb2, c2 = (v[None, :] for v in _covariance(b2))
    denom = (a1 + a2) * (bb1 + bb2) - (c1 + c2) ** 2 + eps
    t1 = ((a1 + a2) * (y1 - y2) ** 2 + (bb1 + bb2) * (x1 - x2) ** 2) / denom * 0.25
    t2 = ((c1 + c2) * (x2 - x1) * (y1 - y2)) / denom * 0.5
    det1 = np.clip(a1 * bb1 - c1**2, 0, None)
    det2 = np.clip(a2 * bb2 - c2**2, 0, None)
    t3 = np.log(denom / (4 * np.sqrt(det1 * det2) + eps) + eps) * 0.5
    bd = np.clip(t1 + t2 + t3, eps, 100.0)
    hd = np.sqrt(1.0 - np.exp(-bd) + eps)
    return 1.0 - hd
