"""The detector's ONNX input and output: ultralytics' letterbox, and its oriented-box output
decoded into :class:`~chickenfoot.vision.detections.Detections` with rotated NMS, in numpy.

The arithmetic follows ultralytics exactly (``LetterBox(center=True)``, ``scale_boxes``, the OBB
export's ``(1, 4 + nc + 1, N)`` rows, probabilistic-IoU NMS), so the exported model reads here
as it did in training.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from PIL import Image

from .detections import Detections, probiou
from .images import resize

PAD_VALUE = 114
#: Shrinks of this many times or more start with a box-filter reduce by a whole factor
#: (Pillow's ``reducing_gap``): a 12-megapixel photo's first pass (2000 -> 416 px) then costs
#: two thirds. Photos of 1280 px are resized exactly as without it, and the real photos read
#: the same; at 1.0 (every shrink over 2x) the rendered tuning set lost half a point.
REDUCING_GAP = 2.0
MAX_DET = 300


@dataclass(frozen=True, slots=True)
class Letterbox:
    """How a working image was placed into the square detector input."""

    gain: float  # input pixels per image pixel
    pad_x: int
    pad_y: int
    size: int  # the input's long side
    #: Input width and height: ``(size, size)``, or a smaller rectangle for a model with dynamic shape.
    shape: tuple[int, int] = (0, 0)


def letterbox_geometry(width: int, height: int, size: int, stride: int = 0) -> tuple[tuple[int, int], Letterbox]:
    """ultralytics ``LetterBox(center=True)`` arithmetic: resized size and padding.

    ``stride`` 0 pads to the ``size`` x ``size`` square (``auto=False``); a stride pads only to the
    next multiple of it (``auto=True``, rectangular inference: a 4:3 photo costs 3/4 of a square).
    """
    r = min(size / height, size / width)
    new_w, new_h = round(width * r), round(height * r)
    cw, ch = (size, size) if stride <= 0 else (new_w + (size - new_w) % stride, new_h + (size - new_h) % stride)
    dw, dh = (cw - new_w) / 2, (ch - new_h) / 2
    left, top = round(dw - 0.1), round(dh - 0.1)
    return (new_w, new_h), Letterbox(gain=r, pad_x=left, pad_y=top, size=size, shape=(cw, ch))


def letterbox(image: Image.Image, size: int, stride: int = 0) -> tuple[np.ndarray, Letterbox]:
    """``(1, 3, H, W)`` float32 RGB in 0..1, the image centred on grey 114 (see ``letterbox_geometry``)."""
    (new_w, new_h), lb = letterbox_geometry(image.width, image.height, size, stride)
    resized = image if (new_w, new_h) == image.size else resize(image, (new_w, new_h), REDUCING_GAP)
    canvas = np.full((lb.shape[1], lb.shape[0], 3), PAD_VALUE, np.uint8)
    canvas[lb.pad_y : lb.pad_y + new_h, lb.pad_x : lb.pad_x + new_w] = np.asarray(
        resized if resized.mode == "RGB" else resized.convert("RGB")
    )
    return input_tensor(canvas), lb


def input_tensor(canvas: np.ndarray) -> np.ndarray:
    """``(1, 3, H, W)`` float32 in 0..1 from an ``H x W x 3`` uint8 RGB canvas."""
    return scaled_planes(canvas[None])


def scaled_planes(pixels: np.ndarray) -> np.ndarray:
    """``(N, 3, H, W)`` float32 in 0..1 from ``N x H x W x 3`` uint8, in one pass (the same
    values as converting to float32, then dividing by 255)."""
    n, h, w, c = pixels.shape
    out = np.empty((n, c, h, w), np.float32)
    np.divide(pixels.transpose(0, 3, 1, 2), np.float32(255.0), out=out, dtype=np.float32)
    return out


def unletterbox(dets: Detections, lb: Letterbox) -> Detections:
    """Boxes from detector-input pixels back to the working image (ultralytics ``scale_boxes``)."""
    if not len(dets):
        return dets
    boxes = dets.boxes.astype(np.float64)
    boxes[:, 0] -= lb.pad_x
    boxes[:, 1] -= lb.pad_y
    boxes[:, :4] /= lb.gain
    return Detections(boxes, dets.confidence, dets.class_id, dets.data)


def nms_rotated(boxes: np.ndarray, scores: np.ndarray, iou: float, max_det: int = MAX_DET) -> np.ndarray:
    """ultralytics' Fast-NMS on oriented boxes (what its own predict and val give): indices
    kept, best score first; a box goes if any stronger box overlaps it, suppressed or not."""
    if len(scores) == 0:
        return np.zeros(0, np.int64)
    order = np.argsort(-np.asarray(scores), kind="stable")
    upper = np.triu(probiou(boxes[order], boxes[order]), 1)
    return order[np.flatnonzero(~np.any(upper > iou, axis=0))[:max_det]]


def decode_obb(
    output: np.ndarray,
    conf: float = 0.25,
    iou: float = 0.5,
    max_det: int = MAX_DET,
    num_classes: int | None = None,
) -> Detections:
    """ultralytics OBB export output ``(1, 4 + nc + 1, N)`` -> detections in input pixels.

    Rows are ``cx, cy, w, h`` (input pixels), ``nc`` class scores (already sigmoid), and the
    angle (radians). Boxes come out with ``length >= width`` and the angle in ``[0, pi)``.
    NMS is class-agnostic: one object cannot be both a tile and a tile's back.
    """
    out = np.asarray(output, np.float32)
    if out.ndim == 3:
        if out.shape[0] != 1:
            raise ValueError(f"expected a batch of one, got {out.shape}")
        out = out[0]
    if out.ndim != 2 or out.shape[0] < 6:
        raise ValueError(f"not an OBB output: shape {np.asarray(output).shape}")
    nc = out.shape[0] - 5 if num_classes is None else num_classes
    if out.shape[0] != 5 + nc:
        raise ValueError(f"OBB output has {out.shape[0]} rows, expected {5 + nc} for {nc} classes")
    pred = out.T  # (N, 5 + nc)
    scores = pred[:, 4 : 4 + nc]
    cls = scores.argmax(1)
    best = scores[np.arange(len(scores)), cls]
    keep = best > conf
    if not np.any(keep):
        return Detections.empty()
    pred, cls, best = pred[keep], cls[keep], best[keep]
    w, h, ang = pred[:, 2].astype(np.float64), pred[:, 3].astype(np.float64), pred[:, -1].astype(np.float64)
    swap = h > w  # regularise: long side first, angle of the long side
    length = np.where(swap, h, w)
    width = np.where(swap, w, h)
    ang = np.mod(np.where(swap, ang + math.pi / 2, ang), math.pi)
    boxes = np.stack([pred[:, 0], pred[:, 1], length, width, ang], 1)
    ok = (length > 0) & (width > 0) & np.all(np.isfinite(boxes), 1)
    boxes, cls, best = boxes[ok], cls[ok], best[ok]
    idx = nms_rotated(boxes, best, iou, max_det)
    return Detections(boxes[idx], np.clip(best[idx], 0, 1), cls[idx])


def merge_detections(parts: Sequence[Detections], iou: float, max_det: int = MAX_DET) -> Detections:
    """One set of detections from overlapping passes: concatenated, then NMS across them."""
    parts = [p for p in parts if len(p)]
    if not parts:
        return Detections.empty()
    boxes = np.concatenate([p.boxes for p in parts])
    conf = np.concatenate([p.confidence for p in parts])
    cls = np.concatenate([p.class_id for p in parts])
    keep = nms_rotated(boxes, conf, iou, max_det)
    return Detections(boxes[keep], conf[keep], cls[keep])
