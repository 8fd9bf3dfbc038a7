"""The half reader: tiles cut into two square halves, each read as a pip count.

A tile's box is rectified upright (:func:`chickenfoot.vision.geometry.rectify`) and split at the divider,
half A on top; the classifier gives each half a probability per pip count (and per "not pips",
class ``x``, when it has that class). Two classifiers ship: the 0-12 one, and a 0-18 one for
double-15 and double-18 sets, which also gives the 0-12 one a second opinion on unsure halves.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from PIL import Image

from .config import ModelError
from .detections import Detections
from .geometry import rectify, split_halves
from .images import in_parallel, reduce
from .obb import scaled_planes
from .runtime import input_size, metadata

#: A tile longer than this (working pixels) is cut from a box-filtered smaller copy.
CROP_MAX_SOURCE_PX = 224.0
#: Fewer tiles than this are cut on the calling thread alone (a hand-off to a thread costs
#: about as much as cutting two tiles).
MIN_PARALLEL_CROPS = 4


def crop_halves(
    image: Image.Image,
    dets: Detections,
    crop_size: int,
    pad: float,
    cls_imgsz: int,
    max_source_px: float | None = CROP_MAX_SOURCE_PX,
) -> np.ndarray:
    """``(2N, 3, S, S)`` float32 batch: half A then half B of each tile, in detection order.

    A tile longer than ``max_source_px`` is cut from a copy of the image shrunk by a whole
    factor (box filter) first: ``rectify`` samples bilinearly, which at 3-6x minification
    aliases pips and keeps sensor noise, while the classifier was trained on tiles of at most
    ~220 px cut straight from rendered photos.
    """
    n = len(dets)
    batch = np.empty((2 * n, cls_imgsz, cls_imgsz, 3), np.uint8)
    levels: dict[int, Image.Image] = {1: image}
    cuts = []
    for box in dets.oriented_boxes():
        k = 1
        if max_source_px:
            k = max(1, min(8, int(box.length // max_source_px)))
        if k not in levels:
            levels[k] = reduce(image, k)
        cuts.append((levels[k], box.scaled(1.0 / k) if k > 1 else box))
    # Pillow lets go of the GIL while it resamples: the tiles are cut on two threads
    crops = in_parallel(lambda cut: rectify(*cut, size=crop_size, pad=pad), cuts,
                        None if n >= MIN_PARALLEL_CROPS else 1)
    for i, crop in enumerate(crops):
        if crop_size == cls_imgsz and crop.mode == "RGB":
            # split_halves in numpy: half A on top, half B below turned 180 degrees
            pixels = np.asarray(crop)
            batch[2 * i] = pixels[:crop_size]
            batch[2 * i + 1] = pixels[crop_size : 2 * crop_size][::-1, ::-1]
            continue
        for j, half in enumerate(split_halves(crop)):
            if half.size != (cls_imgsz, cls_imgsz):
                half = half.resize((cls_imgsz, cls_imgsz), Image.Resampling.BILINEAR)
            batch[2 * i + j] = np.asarray(half.convert("RGB"))
    return scaled_planes(batch)


#: The class name of "not a half of a face-up tile" (lettering, a printed back, a box lid):
#: its value in :func:`class_values` is :data:`NOT_PIPS`, which no half is ever read as.
NOT_PIPS_CLASS = "x"
NOT_PIPS = -1


def class_values(names: Mapping[int, str]) -> np.ndarray:
    """Pip value of each classifier output index (class names are "0".."18", sorted as text;
    ``"x"``, not pips, gets :data:`NOT_PIPS`)."""
    if not names:
        raise ModelError("classifier has no class names")
    values = np.full(max(names) + 1, -2, np.int64)
    for idx, name in names.items():
        text = str(name).strip()
        if text == NOT_PIPS_CLASS:
            values[int(idx)] = NOT_PIPS
            continue
        try:
            values[int(idx)] = int(text)
        except ValueError:
            raise ModelError(f"classifier class {name!r} is not a pip count") from None
        if values[int(idx)] < 0:
            raise ModelError(f"classifier class {name!r} is not a pip count")
    if np.any(values == -2):
        raise ModelError("classifier class indices have gaps")
    if not np.any(values >= 0):
        raise ModelError("classifier has no pip-count class")
    return values


def as_probabilities(logits: np.ndarray) -> np.ndarray:
    """The classifier's rows as probabilities (ultralytics exports softmax already)."""
    x = np.asarray(logits, np.float64)
    if x.size and np.all(x >= 0) and np.allclose(x.sum(1), 1.0, atol=1e-3):
        return x
    x = x - x.max(1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(1, keepdims=True)


def choose_values(probs: np.ndarray, values: np.ndarray, top: int | None = None) -> np.ndarray:
    """The class index chosen for each half (two rows per tile): the most likely value, and with
    ``top`` (the set in play is double-``top``) never more pips than that set has.

    (Making the tiles of one photo unique - one set has one of each - was tried: on the rendered
    tuning set it changed more right readings than wrong ones, so it is not done.)
    """
    p = np.where(values[None, :] >= 0, np.asarray(probs), -1.0)  # a half is never read as "not pips"
    if top is not None:
        p = np.where(values[None, :] <= top, p, -1.0)
    return p.argmax(1)


def split_not_pips(probs: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """Each half's probabilities over pip counts alone (the not-pips column zeroed, the rest
    renormalised), and each tile's probability that its less tile-like half is not pips (one
    per tile: ``probs`` has two rows per tile; None for a half reader without that class)."""
    probs = np.asarray(probs, np.float64)
    x = values == NOT_PIPS
    if not np.any(x):
        return probs, None
    return pip_probs(probs, values), probs[:, x].sum(1).reshape(-1, 2).max(1)


def pip_probs(probs: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Each half's probabilities over pip counts alone (the not-pips column zeroed, the rest
    renormalised); any number of halves, not only whole tiles."""
    probs = np.asarray(probs, np.float64)
    x = values == NOT_PIPS
    if not np.any(x):
        return probs
    pips = np.where(x[None, :], 0.0, probs)
    return pips / np.maximum(pips.sum(1, keepdims=True), 1e-12)


def half_sureness(probs: np.ndarray, choice: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """Per tile (``probs`` has two rows per tile, as the half reader gave them): how sure both
    halves' chosen pip counts are together, among pip counts alone, and how likely its less
    tile-like half is not pips (None for a half reader without that class)."""
    pips, not_pips = split_not_pips(probs, values)
    picked = pips[np.arange(len(pips)), choice].reshape(-1, 2)
    return picked.prod(1), not_pips


@dataclass(frozen=True)
class HalfReader:
    """One half classifier: its model, the pip count of each output and its input size."""

    model: Any
    values: np.ndarray
    imgsz: int
    input_name: str

    @classmethod
    def of(cls, model: Any, default_imgsz: int, max_value: int, declared: Sequence[int] = (),
           what: str = "classifier") -> HalfReader:
        meta = metadata(model)
        names = meta.get("names") or {i: str(i) for i in range(max_value + 1)}
        values = class_values({int(k): str(v) for k, v in names.items()})
        if declared and list(declared) != values.tolist():
            raise ModelError(f"reader.json {what} values {list(declared)} disagree with the {what}'s class names "
                             f"{values.tolist()}")
        return cls(model, values, input_size(meta, default_imgsz), model.get_inputs()[0].name)

    @property
    def top(self) -> int:
        """The most pips it reads on a half."""
        return int(self.values.max())

    def classify(self, batch: np.ndarray) -> np.ndarray:
        """Probabilities per half crop, one row each."""
        if not len(batch):
            return np.zeros((0, len(self.values)), np.float64)
        return as_probabilities(self.model.run(None, {self.input_name: batch})[0])

    def crop(self, image: Image.Image, dets: Detections, crop_size: int, pad: float) -> np.ndarray:
        """The half crops of ``dets`` at this reader's input size (:func:`crop_halves`)."""
        return crop_halves(image, dets, crop_size, pad, self.imgsz)


@dataclass(frozen=True)
class SecondOpinion:
    """The wide-set classifier's word on halves the 0-12 one reads with a top probability under
    ``below``: the two were trained apart, on different halves, and miss different halves (the
    0-12 one alone misreads many-pip halves of small tiles, 11 as 12, 10 as 8)."""

    wide: HalfReader
    #: For each of the 0-12 classifier's outputs, the wide one's output of the same pip count.
    columns: np.ndarray
    below: float

    @classmethod
    def of(cls, main: HalfReader, wide: HalfReader | None, below: float) -> SecondOpinion | None:
        """The second opinion, when asked for and the two classifiers fit together."""
        if below <= 0 or wide is None or wide.imgsz != main.imgsz:
            return None
        wide_values = wide.values.tolist()
        if not all(v in wide_values for v in main.values.tolist()):
            return None
        return cls(wide, np.array([wide_values.index(v) for v in main.values.tolist()]), below)

    def __call__(self, batch: np.ndarray, probs: np.ndarray, values: np.ndarray) -> np.ndarray:
        """``probs`` (the 0-12 classifier's, per half crop of ``batch``, of pip counts
        ``values``) with the wide one's pip counts averaged in on the rows under ``below``."""
        if not len(batch):
            return probs
        unsure = np.flatnonzero(probs.max(1) < self.below)
        if not len(unsure):
            return probs
        wide = self.wide.classify(np.ascontiguousarray(batch[unsure]))[:, self.columns]
        # only the pip count is averaged: whether a crop is a half at all stays the 0-12
        # classifier's word (it saw far more print and backs), else backs are counted as tiles
        x = values == NOT_PIPS
        out = np.array(probs, np.float64)
        mine = out[unsure]
        pips = [np.where(x, 0.0, p) for p in (mine, wide)]
        pips = [p / np.maximum(p.sum(1, keepdims=True), 1e-12) for p in pips]
        out[unsure] = np.where(x, mine, (1.0 - mine[:, x].sum(1, keepdims=True)) * (pips[0] + pips[1]) / 2)
        return out
