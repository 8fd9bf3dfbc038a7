"""Photo in, tiles out: the reading pipeline as pure stages around two ONNX models.

Stages (each a plain function of arrays, usable and testable on its own):

1. :func:`letterbox` - resize keeping the ratio and pad to the detector's square input,
   exactly like ultralytics' ``LetterBox`` (grey 114, centred).
2. :func:`decode_obb` - ultralytics OBB export output ``(1, 4 + nc + 1, N)`` to
   :class:`~vision.detections.Detections`, with :func:`nms_rotated` (probabilistic IoU, as
   ultralytics uses for oriented boxes) done in numpy.
3. :func:`unletterbox` - boxes back into the working image.
4. :func:`crop_halves` - every tile rectified with :func:`vision.geometry.rectify`, split with
   :func:`vision.geometry.split_halves`, stacked into one classifier batch.
5. :func:`assemble` - half probabilities to tiles, confidences and review flags; pips and the
   penalty come from the rule set (the scoring stays in the rules core).

:class:`Reader` wires them to onnxruntime sessions described by ``models/reader.json``.
No torch and no OpenCV here: numpy, Pillow and onnxruntime only.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import math
import os
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from companion.rules import words
from companion.rules.errors import ChickenFootError
from companion.rules.ruleset import RuleSet, get_rules
from companion.rules.tiles import Tile

from .detections import Detections, box_rows, obb_corners, probiou
from .geometry import (
    REFINE_VIEW_SIZE,
    OrientedBox,
    apply_box_corrections,
    divider_colour_contrast,
    divider_contrast,
    divider_span,
    divider_wander,
    overlap_share,
    rectify,
    refine_view,
    split_halves,
)
from .images import LoadedImage, Source, load_image
from .verify import CountModel, count_evidence

#: Where the shipped models live (``models/`` next to the packages).
MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
PAD_VALUE = 114


class ModelError(ChickenFootError):
    """The reader's model files are missing, damaged or do not match ``reader.json``."""


# --------------------------------------------------------------------------- configuration
@dataclass(frozen=True)
class ReaderConfig:
    """What ``models/reader.json`` says (trainer's keys plus reader-side thresholds)."""

    detector: str = "tile_obb.onnx"
    classifier: str = "half_cls.onnx"
    det_imgsz: int = 640
    cls_imgsz: int = 64
    crop_size: int = 64
    crop_pad: float = 0.0
    max_value: int = 12
    #: Run the detector at this input size (long side) instead of the one it was trained at
    #: (``det_imgsz``, from its ONNX metadata); needs a detector exported with dynamic shape.
    #: A detector trained at 416 on 480 px renders saw tiles of 12-125 px at its input; on a
    #: 1280 px photo at 416 the small tiles come out at 9-16 px, and the boxes it draws them
    #: are looser. 0: the trained size.
    det_input: int = 0
    det_conf: float = 0.25
    det_iou: float = 0.5
    review_conf: float = 0.6
    #: Tiles read with less confidence than this are returned as ``candidates`` and not counted:
    #: most of them are face-down tiles, shadows or a second box on one tile, and a wrong
    #: count is worse than a tile the player adds back with one tap. 0 counts everything.
    count_conf: float = 0.0
    #: Logistic weights that decide which detections count (see :mod:`vision.verify`); when
    #: set, a detection counts when their probability reaches ``count_score`` (and
    #: ``count_conf`` is not used).
    count_model: Mapping[str, Any] = field(default_factory=dict)
    count_score: float = 0.5
    #: With a half reader that has the not-pips class (``x``: lettering, a printed back, a box
    #: lid), a tile one of whose halves is at least this likely not pips is not counted (it
    #: stays a candidate). The halves' confidences are their pip counts' probabilities among
    #: pip counts alone, so ``count_conf`` keeps its meaning. 1 or more turns the veto off.
    not_pips_max: float = 1.0
    decode_max_side: int = 1600
    max_det: int = 300
    #: Tiles longer than this (working pixels) are cut from a box-filtered smaller copy.
    crop_max_source_px: float = 224.0
    #: ultralytics' Fast-NMS (the boxes its own predict and val give) instead of greedy NMS.
    fast_nms: bool = True
    #: Small-tile pass: when the whole-photo pass sees tiles shorter than ``fine_trigger_px``
    #: (median, in detector-input pixels; the detector was trained on 12-125 px tiles) - or
    #: none in a photo much bigger than the detector's input - a photo at least twice the
    #: input size is also searched in ``fine_grid`` x ``fine_grid`` overlapping windows.
    #: 0 or 1 turns it off.
    fine_grid: int = 2
    fine_trigger_px: float = 16.0
    #: A window is searched only if the whole-photo pass saw something in it that is unsure (at
    #: least this confidence, under ``det_conf``) or small (under ``fine_trigger_px``): windows of
    #: bare table, or of tiles already seen clearly, cost nothing. 0 searches every window.
    fine_seed_conf: float = 0.0
    #: At most this many windows (those holding the most doubtful detections): a time budget
    #: for big photos. 0: no limit.
    fine_max_windows: int = 0
    #: How the small-tile pass searches: "windows" (the grid above) or "zoom": the whole photo
    #: once more at ``z`` times the detector's input size, ``z`` (``fine_min_zoom`` to
    #: ``fine_grid``) the least that lifts the median tile to ``fine_trigger_px``. A zoom is one
    #: run, with no overlaps to pay for and no tile cut at a window edge, and its cost follows
    #: the tiles' size, not the photo's; it needs a detector exported with dynamic shape.
    fine_mode: str = "windows"
    fine_min_zoom: float = 2.0
    #: The zoom searches only the part of the photo around what the whole-photo pass saw (at
    #: ``fine_seed_conf`` or more), this many median tile lengths beyond it on each side: a
    #: hand or a table covers part of the frame, and the zoom's cost follows its pixels. 0
    #: zooms the whole photo.
    fine_roi_margin: float = 0.0
    #: Second-scale pass: when a photo at least twice the detector's input gets no small-tile
    #: pass (its tiles are big enough), the detector sees it once more at this input size and
    #: the two are merged. Big tiles on a busy cloth (a check, stripes in the tiles' colour) can
    #: be seen at one scale and not the other. 0 turns it off.
    second_imgsz: int = 0
    #: Least confidence of the second-scale pass's detections (under ``det_conf``: ``det_conf``).
    second_conf: float = 0.0
    #: ``fine_trigger_px`` for photos of the whole table (:meth:`Reader.for_table`; 0: the same
    #: as for hands). A table is photographed from further off, and one tile missed there cuts
    #: off every tile played beyond it, so a stronger zoom is worth its time.
    table_fine_trigger_px: float = 0.0
    #: Close-up pass: when the whole-photo pass finds no tile, or one longer than
    #: ``closeup_trigger`` of the photo's long side, the detector also sees the photo shrunk to
    #: 1/``closeup_zoom`` of its input, on a margin of the photo's own border colour. The
    #: detector was trained on tiles up to about 0.7 of the frame (hard-case close-ups); a player
    #: showing one disputed tile to the camera fills more than that. 1 or less turns it off.
    closeup_zoom: float = 0.0
    closeup_trigger: float = 0.5
    #: The close-up pass keeps only boxes at least this share of the long side: smaller tiles
    #: are the whole-photo pass's, and what the shrunk view adds there is mostly junk (a
    #: face-down tile, a print) in photos of bare table. 0 keeps all.
    closeup_keep: float = 0.0
    #: Also classify every half mirrored left-right (a view the classifier was trained on) and
    #: average the two: twice the classifier work for steadier reads.
    cls_mirror: bool = False
    #: Box search: a tile read with less confidence than this (detector x both halves) is read
    #: again from its box moved along its long axis by each of ``search_shifts`` (box lengths,
    #: either sign), and takes the box its halves are read surest from (never one whose half
    #: looks like print, ``not_pips_max``). The detector's boxes sit a few hundredths of a
    #: length off along the axis; the half reader, cut from the true boxes, reads 99.4% of the
    #: rendered tuning tiles exactly and surely, from the detector's boxes 97.8%. 0 turns it off.
    search_below: float = 0.0
    search_shifts: tuple[float, ...] = ()
    #: Whether photos of the whole table (:meth:`Reader.for_table`) get the box search too. On
    #: rendered tables it cost layouts: a box slid along a line of touching tiles can read
    #: surely as the next tile's half and its neighbour's, and the layout then has a wrong joint.
    table_search: bool = True
    #: Second look: when a photo's reading has tiles counted with less confidence than this, or
    #: possible tiles left uncounted as unsure, the detector looks once more at the part of the
    #: photo around them (``doubt_pad`` median tile lengths wider on each side), enlarged so
    #: those tiles come out about ``doubt_tile_px`` long at its input (never over
    #: ``doubt_max_input``); its boxes join the first ones, and the ones it added are read. The
    #: tiles the detector misses or boxes badly sit in such places: far, dense or foreshortened
    #: rows. 0 turns it off.
    doubt_below: float = 0.0
    doubt_tile_px: float = 80.0
    doubt_pad: float = 1.0
    doubt_max_input: int = 832
    #: At most this many second looks, each where the reading before it is still in doubt.
    doubt_rounds: int = 1
    #: A tile read 0-0 whose middle shows no divider (relative contrast below this) is a
    #: face-down tile: blank backs look like 0-0 to the half reader. 0 turns the check off.
    blank_divider_min: float = 0.09
    #: A tile read 0-0 that fails ``blank_divider_min`` is face up after all when its middle
    #: stands out this much in colour (:func:`vision.geometry.divider_colour_contrast`) and its
    #: divider crosses at least ``blank_colour_span_min`` of its width
    #: (:func:`vision.geometry.divider_span`): an orange divider on a grey face, or a faint one
    #: drawn edge to edge. A 0-0 taken for a back costs its owner 50 points, and backs rarely
    #: show a coloured line across their middle. 0 turns it off.
    blank_colour_min: float = 0.0
    blank_colour_span_min: float = 0.05
    #: A tile read 0-0 whose divider strays from a straight line more than this share of its
    #: length (:func:`vision.geometry.divider_wander`) is a back too: lettering, a logo or a
    #: stripe across a printed back's middle passes the contrast tests, but it is not a line.
    #: A face-down tile read as a 0-0 costs a player 50 points. 0 turns it off.
    blank_wander_max: float = 0.0
    #: Any tile whose middle shows no divider at all (contrast below this) is a face-down tile
    #: too, whatever its halves were read as: a printed back's pattern can look like pips.
    #: 0 turns it off.
    divider_min: float = 0.0
    #: Any tile whose divider crosses too little of its width (:func:`vision.geometry.divider_span`
    #: under this) is a face-down tile too: a logo or a line of text across a back's middle
    #: passes ``divider_min``, but it is not a line from edge to edge. 0 turns it off.
    divider_span_min: float = 0.0
    #: Tiles lie flat and never overlap, so of two counted reads that overlap by more than this
    #: share of the smaller, one is wrong: typically a box astride the joint of two touching
    #: tiles in a line, whose halves are real halves of two tiles. The reads counted are the
    #: set that overlaps nowhere with the greatest total confidence (see :func:`apart`); the
    #: others become candidates ("overlap"). 0 turns it off.
    overlap_max: float = 0.0
    #: Drop a detection that sits on a surer, longer tile (its length under this share of the
    #: other's): see :func:`drop_contained`. 0 keeps them.
    contain_ratio: float = 0.0
    #: A flat tile is a 2:1 rectangle; seen at a slant it stays under about 5:1 (rendered
    #: labels top out at 5.25). A longer, thinner box is the detector's phantom, often drawn
    #: over a whole row of tiles, and if it stayed it would swallow them (``contain_ratio``).
    #: 0 keeps every shape.
    max_aspect: float = 0.0
    #: With at least three detections, drop one more than this many times longer than their
    #: median. Off when shipped: rendered tiles stay under 2x their photo's median, but a real
    #: webcam frame can mix a close tile with far ones and glyphs, and 4x dropped true tiles.
    max_length_ratio: float = 0.0
    #: Box refiner (ONNX file in the models folder; empty: none). It looks at the area around
    #: each tile box (:func:`vision.geometry.refine_view`) and moves the box along its axis and
    #: sets its length (:func:`vision.geometry.apply_box_corrections`), ``refine_iters`` times.
    #: The detector's boxes of touching tiles in a line often run into the neighbour, and then
    #: a half is read from a crop that is not that half.
    refiner: str = ""
    refine_iters: int = 1
    #: Half reader for sets bigger than the classifier's (ONNX file in the models folder; empty:
    #: none): pip counts to 18, used only when the set in play has more pips a half than
    #: ``classifier`` reads (double-15 and double-18), so reading smaller sets is unchanged.
    classifier_wide: str = ""
    #: Second opinion: a half the shipped classifier reads with a top probability under this is
    #: read by the wide-set classifier (``classifier_wide``) too, and the two pip counts are
    #: averaged (the wide one's counts beyond the shipped one's largest left out, the rest
    #: renormalised; how likely the crop is no half at all stays the shipped one's). The two
    #: were trained apart, on different halves, and miss different halves: the shipped one
    #: alone misreads many-pip halves of small tiles (11 as 12, 10 as 8) that the pair reads
    #: right. It comes last, on the tiles read (after the box search and the second look, which
    #: go where the shipped classifier alone doubts), and only where it decides: a counted tile
    #: it would leave under ``count_conf`` keeps the shipped reading. Halves read surely cost no
    #: second run. 0 turns it off; over 1, every half is read twice.
    second_opinion_below: float = 0.0
    #: A photo whose counted tiles are, by their median, shorter than this (in the pixels the
    #: reader reads, at most ``decode_max_side`` on the long side) gets a warning to take it
    #: closer: on rendered photos tiles under 70 px were read 96.9-97.6% exactly, longer ones
    #: 99.3-99.7% (session 20). Photos of the whole table (:meth:`Reader.for_table`) get none:
    #: a whole layout cannot be taken closer. 0 turns it off.
    small_tile_px: float = 0.0
    threads: int = 2
    #: Detector class that means "face-up tile"; every other class (e.g. "back") is not counted.
    tile_class: int = 0
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def model_files(self) -> tuple[str, ...]:
        """The ONNX files this config names, in load order: detector, classifier, then the box
        refiner and the wide-set classifier (each if any)."""
        return ((self.detector, self.classifier) + ((self.refiner,) if self.refiner else ())
                + ((self.classifier_wide,) if self.classifier_wide else ()))

    def __post_init__(self) -> None:
        if self.fine_mode not in ("windows", "zoom"):
            raise ValueError(f"fine_mode must be 'windows' or 'zoom', not {self.fine_mode!r}")
        if self.second_imgsz < 0 or self.second_imgsz % 32:
            # the letterbox pads to the stride only from a multiple of it (see detect_zoomed)
            raise ValueError(f"second_imgsz must be 0 or a multiple of 32, not {self.second_imgsz}")
        shifts = tuple(float(v) for v in self.search_shifts)
        if not all(math.isfinite(v) and abs(v) < 0.5 for v in shifts):
            raise ValueError("search_shifts must be numbers between -0.5 and 0.5 (box lengths)")
        object.__setattr__(self, "search_shifts", shifts)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ReaderConfig:
        known = {f.name for f in fields(cls)} - {"extra"}
        kw: dict[str, Any] = {}
        defaults = cls()
        for name in known:
            if name in data:
                kind = type(getattr(defaults, name))
                value = data[name]
                if kind is bool and not isinstance(value, bool):
                    raise ValueError(f"{name} must be true or false")
                kw[name] = kind(value)
        extra = {k: v for k, v in data.items() if k not in known}
        return cls(**kw, extra=extra)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> ReaderConfig:
        p = Path(path)
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ModelError(f"{p}: no reader.json (models not installed?)") from None
        except (OSError, ValueError) as exc:
            raise ModelError(f"{p}: unreadable reader config ({exc})") from None
        if not isinstance(data, dict):
            raise ModelError(f"{p}: reader config must be a JSON object")
        try:
            return cls.from_dict(data)
        except (TypeError, ValueError) as exc:
            raise ModelError(f"{p}: bad value in reader config ({exc})") from None


# --------------------------------------------------------------------------- 1. letterbox
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
    resized = image if (new_w, new_h) == image.size else image.resize(
        (new_w, new_h), Image.Resampling.BILINEAR, reducing_gap=3.0
    )
    canvas = np.full((lb.shape[1], lb.shape[0], 3), PAD_VALUE, np.uint8)
    canvas[lb.pad_y : lb.pad_y + new_h, lb.pad_x : lb.pad_x + new_w] = np.asarray(
        resized.convert("RGB")
    )
    return input_tensor(canvas), lb


def input_tensor(canvas: np.ndarray) -> np.ndarray:
    """``(1, 3, H, W)`` float32 in 0..1 from an ``H x W x 3`` uint8 RGB canvas."""
    return np.ascontiguousarray(canvas.transpose(2, 0, 1)[None].astype(np.float32) / np.float32(255.0))


def unletterbox(dets: Detections, lb: Letterbox) -> Detections:
    """Boxes from detector-input pixels back to the working image (ultralytics ``scale_boxes``)."""
    if not len(dets):
        return dets
    boxes = dets.boxes.astype(np.float64)
    boxes[:, 0] -= lb.pad_x
    boxes[:, 1] -= lb.pad_y
    boxes[:, :4] /= lb.gain
    return Detections(boxes, dets.confidence, dets.class_id, dets.data)


# --------------------------------------------------------------------------- 2. decode + NMS
def nms_rotated(
    boxes: np.ndarray, scores: np.ndarray, iou: float, max_det: int = 300, fast: bool = False
) -> np.ndarray:
    """NMS on oriented boxes; indices kept, best score first.

    Greedy by default (a box suppressed by a stronger one suppresses nothing itself).
    ``fast=True`` is ultralytics' Fast-NMS: a box goes if any stronger box overlaps it,
    suppressed or not - what ultralytics' own validation uses.
    """
    n = len(scores)
    if n == 0:
        return np.zeros(0, np.int64)
    order = np.argsort(-np.asarray(scores), kind="stable")
    overlaps = probiou(boxes[order], boxes[order])
    if fast:
        upper = np.triu(overlaps, 1)
        return order[np.flatnonzero(~np.any(upper > iou, axis=0))[:max_det]]
    suppressed = np.zeros(n, bool)
    keep: list[int] = []
    for i in range(n):
        if suppressed[i]:
            continue
        keep.append(i)
        if len(keep) >= max_det:
            break
        suppressed |= overlaps[i] > iou  # row i: everything this box covers, itself included
    return order[np.asarray(keep, np.int64)]


def decode_obb(
    output: np.ndarray,
    conf: float = 0.25,
    iou: float = 0.5,
    max_det: int = 300,
    num_classes: int | None = None,
    fast_nms: bool = True,
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
    idx = nms_rotated(boxes, best, iou, max_det, fast=fast_nms)
    return Detections(boxes[idx], np.clip(best[idx], 0, 1), cls[idx])


def grid_windows(size: tuple[int, int], grid: int, overlap: float = 0.2) -> list[tuple[int, int, int, int]]:
    """``grid`` x ``grid`` windows covering an image, neighbours overlapping by ``overlap`` of a window."""
    w, h = size
    out = []
    for gy in range(grid):
        for gx in range(grid):
            ww, wh = w / (grid - (grid - 1) * overlap), h / (grid - (grid - 1) * overlap)
            x0, y0 = gx * ww * (1 - overlap), gy * wh * (1 - overlap)
            out.append((round(x0), round(y0), min(w, round(x0 + ww)), min(h, round(y0 + wh))))
    return out


def touches_inner_edge(
    boxes: np.ndarray, window: tuple[int, int, int, int], size: tuple[int, int], margin: float = 2.0
) -> np.ndarray:
    """Boxes cut by a window edge that lies inside the image (a neighbour window sees them whole)."""
    if not len(boxes):
        return np.zeros(0, bool)
    pts = obb_corners(boxes)
    x0, y0, x1, y1 = window
    bad = np.zeros(len(boxes), bool)
    if x0 > 0:
        bad |= pts[:, :, 0].min(1) < x0 + margin
    if y0 > 0:
        bad |= pts[:, :, 1].min(1) < y0 + margin
    if x1 < size[0]:
        bad |= pts[:, :, 0].max(1) > x1 - margin
    if y1 < size[1]:
        bad |= pts[:, :, 1].max(1) > y1 - margin
    return bad


def _count_inside(boxes: np.ndarray, window: tuple[int, int, int, int]) -> int:
    x0, y0, x1, y1 = window
    cx, cy = boxes[:, 0], boxes[:, 1]
    return int(np.count_nonzero((cx >= x0) & (cx < x1) & (cy >= y0) & (cy < y1)))


def merge_detections(parts: Sequence[Detections], iou: float, max_det: int = 300,
                     fast: bool = True) -> Detections:
    """One set of detections from overlapping passes: concatenated, then NMS across them."""
    parts = [p for p in parts if len(p)]
    if not parts:
        return Detections.empty()
    boxes = np.concatenate([p.boxes for p in parts])
    conf = np.concatenate([p.confidence for p in parts])
    cls = np.concatenate([p.class_id for p in parts])
    keep = nms_rotated(boxes, conf, iou, max_det, fast=fast)
    return Detections(boxes[keep], conf[keep], cls[keep])


def drop_implausible(dets: Detections, max_aspect: float, max_length_ratio: float) -> Detections:
    """Drop boxes no flat tile could have: longer than ``max_aspect`` times their width, or
    (among three or more) over ``max_length_ratio`` times the median length. 0 turns a test off."""
    if not len(dets):
        return dets
    length, width = dets.boxes[:, 2].astype(np.float64), dets.boxes[:, 3].astype(np.float64)
    keep = np.ones(len(dets), bool)
    if max_aspect > 0:
        keep &= length <= max_aspect * np.maximum(width, 1e-6)
    if max_length_ratio > 0 and len(dets) >= 3:
        keep &= length <= max_length_ratio * float(np.median(length))
    return dets if keep.all() else dets[keep]


def drop_contained(dets: Detections, ratio: float) -> Detections:
    """Tiles lie flat and never overlap, so a detection whose centre lies on a surer tile that is
    much longer (its length under ``ratio`` of the other's) is a pip, a glyph or a half of that
    tile, not a tile of its own. ``ratio`` 0 keeps everything."""
    n = len(dets)
    if ratio <= 0 or n < 2:
        return dets
    b = dets.boxes.astype(np.float64)
    cos, sin = np.cos(b[:, 4]), np.sin(b[:, 4])
    dx = b[None, :, 0] - b[:, None, 0]  # [i, j]: centre of j seen from box i
    dy = b[None, :, 1] - b[:, None, 1]
    along = np.abs(dx * cos[:, None] + dy * sin[:, None])
    across = np.abs(-dx * sin[:, None] + dy * cos[:, None])
    on = (along < b[:, None, 2] / 2) & (across < b[:, None, 3] / 2)
    smaller = b[None, :, 2] < ratio * b[:, None, 2]
    surer = dets.confidence[:, None] > dets.confidence[None, :]
    inside = on & smaller & surer
    np.fill_diagonal(inside, False)
    return dets[~inside.any(axis=0)]


def apart(boxes: Sequence[OrientedBox], weights: Sequence[float], max_share: float) -> np.ndarray:
    """Which of ``boxes`` to keep so that no two kept ones overlap by more than ``max_share`` of
    the smaller (:func:`vision.geometry.overlap_share`): of each group of boxes that overlap, the
    set with the greatest total weight. A box astride two touching tiles loses to the two when
    they are surer together; alone against one, the surer wins. Exact for groups of up to
    ``APART_EXACT`` boxes (they rarely have more than three), greedy by weight beyond."""
    n = len(boxes)
    keep = np.ones(n, bool)
    if n < 2 or max_share <= 0:
        return keep
    w = np.asarray(weights, np.float64)
    rows = box_rows(boxes).astype(np.float64)
    corners = obb_corners(rows)
    near = np.hypot(rows[:, None, 0] - rows[None, :, 0], rows[:, None, 1] - rows[None, :, 1]) < (
        rows[:, None, 2] + rows[None, :, 2]) / 2
    adj: list[set[int]] = [set() for _ in range(n)]
    for i, j in zip(*np.nonzero(np.triu(near, 1)), strict=True):
        if overlap_share(corners[i], corners[j]) > max_share:
            adj[i].add(int(j))
            adj[j].add(int(i))
    seen: set[int] = set()
    for start in range(n):
        if start in seen or not adj[start]:
            continue
        group, stack = [], [start]
        while stack:
            u = stack.pop()
            if u not in seen:
                seen.add(u)
                group.append(u)
                stack.extend(adj[u])
        group.sort(key=lambda u: -w[u])
        if len(group) <= APART_EXACT:
            chosen = _heaviest_apart(group, adj, w)[1]
        else:
            chosen = []
            for u in group:
                if not adj[u] & set(chosen):
                    chosen.append(u)
        keep[[u for u in group if u not in chosen]] = False
    return keep


#: Largest group of overlapping boxes :func:`apart` solves exactly (2**n subsets at worst).
APART_EXACT = 14


def _heaviest_apart(nodes: list[int], adj: list[set[int]], w: np.ndarray) -> tuple[float, list[int]]:
    """The subset of ``nodes`` with no two adjacent and the greatest total weight."""
    if not nodes:
        return 0.0, []
    v, rest = nodes[0], nodes[1:]
    without = _heaviest_apart(rest, adj, w)
    if not adj[v] & set(rest):  # v overlaps none of the rest: always take it
        return without[0] + w[v], [v, *without[1]]
    taken = _heaviest_apart([u for u in rest if u not in adj[v]], adj, w)
    # on a tie the surer box (v comes first) is kept
    return (taken[0] + w[v], [v, *taken[1]]) if taken[0] + w[v] >= without[0] else without


# --------------------------------------------------------------------------- 4. crops
def crop_halves(
    image: Image.Image,
    dets: Detections,
    crop_size: int,
    pad: float,
    cls_imgsz: int,
    max_source_px: float | None = 224.0,
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
    for i, box in enumerate(dets.oriented_boxes()):
        k = 1
        if max_source_px:
            k = max(1, min(8, int(box.length // max_source_px)))
        if k not in levels:
            levels[k] = image.reduce(k)
        src = levels[k]
        crop = rectify(src, box.scaled(1.0 / k) if k > 1 else box, size=crop_size, pad=pad)
        for j, half in enumerate(split_halves(crop)):
            if half.size != (cls_imgsz, cls_imgsz):
                half = half.resize((cls_imgsz, cls_imgsz), Image.Resampling.BILINEAR)
            batch[2 * i + j] = np.asarray(half.convert("RGB"))
    return np.ascontiguousarray(batch.transpose(0, 3, 1, 2).astype(np.float32) / np.float32(255.0))


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


# --------------------------------------------------------------------------- 5. assemble
@dataclass(frozen=True)
class TileReading:
    """One tile read from a photo. ``box`` is in the pixels of the original (upright) photo."""

    a: int
    b: int
    confidence: float  # detector x half A x half B: how sure the whole tile is right
    box: OrientedBox
    needs_review: bool
    detection_confidence: float
    half_confidence: tuple[float, float]
    #: The count model's probability that this box is a face-up tile (None without one).
    tile_score: float | None = None
    #: How likely its less tile-like half is not pips at all (print, a back; None when the half
    #: reader has no such class).
    not_pips: float | None = None
    #: Why a candidate was not counted: "unsure" (confidence under ``count_conf``), "not pips"
    #: (a half looks like print or a back, not pips) or "overlap" (it overlaps surer tiles,
    #: see ``ReaderConfig.overlap_max``); "" for a counted tile.
    uncounted: str = ""

    @property
    def tile(self) -> Tile:
        return Tile(self.a, self.b)

    def to_dict(self) -> dict[str, Any]:
        return {
            "tile": str(self.tile),
            "halves": [self.a, self.b],
            "confidence": round(self.confidence, 4),
            "box": self.box.to_list(),
            "needs_review": self.needs_review,
            "detection_confidence": round(self.detection_confidence, 4),
            "half_confidence": [round(c, 4) for c in self.half_confidence],
            **({} if self.tile_score is None else {"tile_score": round(self.tile_score, 4)}),
            **({} if self.not_pips is None else {"not_pips": round(self.not_pips, 4)}),
            **({"uncounted": self.uncounted} if self.uncounted else {}),
        }


@dataclass(frozen=True)
class Reading:
    """Everything read from one photo, with its score under a rule set."""

    tiles: tuple[TileReading, ...]
    pips: int
    penalty: int
    warnings: tuple[str, ...]
    image_size: tuple[int, int]
    rules: str = ""
    face_down: int = 0
    #: Possible tiles read too unsurely to count (see ``ReaderConfig.count_conf``); not in ``pips``.
    candidates: tuple[TileReading, ...] = ()
    timings_ms: Mapping[str, float] = field(default_factory=dict)

    @property
    def tile_list(self) -> list[Tile]:
        return [t.tile for t in self.tiles]

    @property
    def needs_review(self) -> bool:
        return any(t.needs_review for t in self.tiles)

    def to_dict(self) -> dict[str, Any]:
        return {
            "tiles": [t.to_dict() for t in self.tiles],
            "count": len(self.tiles),
            "pips": self.pips,
            "penalty": self.penalty,
            "rules": self.rules,
            "needs_review": self.needs_review,
            "face_down": self.face_down,
            "candidates": [t.to_dict() for t in self.candidates],
            "image_size": list(self.image_size),
            "warnings": list(self.warnings),
        }


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
    p_x = probs[:, x].sum(1)
    pips = np.where(x[None, :], 0.0, probs)
    return pips / np.maximum(pips.sum(1, keepdims=True), 1e-12), p_x.reshape(-1, 2).max(1)


def half_sureness(probs: np.ndarray, choice: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """Per tile (``probs`` has two rows per tile, as the half reader gave them): how sure both
    halves' chosen pip counts are together, among pip counts alone, and how likely its less
    tile-like half is not pips (None for a half reader without that class)."""
    pips, not_pips = split_not_pips(probs, values)
    picked = pips[np.arange(len(pips)), choice].reshape(-1, 2)
    return picked.prod(1), not_pips


def assemble(
    dets: Detections,
    probs: np.ndarray,
    values: np.ndarray,
    *,
    to_original: float,
    image_size: tuple[int, int],
    review_conf: float,
    rules: RuleSet,
    face_down: int = 0,
    count_conf: float = 0.0,
    choice: np.ndarray | None = None,
    tile_score: np.ndarray | None = None,
    not_pips: np.ndarray | None = None,
    not_pips_max: float = 1.0,
    overlap_max: float = 0.0,
) -> Reading:
    """Turn tile detections (working-image pixels) and their half probabilities into a reading.

    ``probs`` has two rows per detection (half A, half B); ``to_original`` scales working pixels
    to the original photo's pixels. Tiles whose combined confidence is under ``count_conf``
    become ``candidates``: shown for review, not counted. ``choice``: the class index of each
    half (default: the most likely; see :func:`choose_values`). ``tile_score``: the count
    model's probability per detection; when given, it (not the combined confidence) is what
    ``count_conf`` tests. ``not_pips``: per detection, the probability that its less tile-like
    half is not a half of a tile (see :func:`split_not_pips`); a tile at ``not_pips_max`` or
    more is a candidate whatever its confidence. ``overlap_max``: of counted tiles that overlap
    by more than this share, only the surest set that overlaps nowhere counts (:func:`apart`);
    the rest are candidates too.
    """
    n = len(dets)
    if probs.shape[0] != 2 * n:
        raise ValueError(f"expected {2 * n} half rows, got {probs.shape[0]}")
    tiles: list[TileReading] = []
    if n:
        top = probs.argmax(1) if choice is None else np.asarray(choice)
        top_p = probs[np.arange(2 * n), top]
        half_vals = values[top]
        for i, box in enumerate(dets.scaled(to_original).oriented_boxes()):
            pa, pb = float(top_p[2 * i]), float(top_p[2 * i + 1])
            det = float(dets.confidence[i])
            combined = det * pa * pb
            score = None if tile_score is None else float(tile_score[i])
            px = None if not_pips is None else float(not_pips[i])
            tiles.append(
                TileReading(
                    a=int(half_vals[2 * i]),
                    b=int(half_vals[2 * i + 1]),
                    confidence=combined,
                    box=box,
                    needs_review=combined < review_conf,
                    detection_confidence=det,
                    half_confidence=(pa, pb),
                    tile_score=score,
                    not_pips=px,
                )
            )
    # Reading order: top to bottom, then left to right, so output is stable and easy to check.
    tiles.sort(key=lambda t: (round(t.box.cy / max(t.box.width, 1.0)), t.box.cx))
    def sureness(t: TileReading) -> float:  # what count_conf tests
        return t.confidence if t.tile_score is None else t.tile_score

    def uncounted(t: TileReading) -> str:
        if t.not_pips is not None and t.not_pips >= not_pips_max:
            return "not pips"
        return "" if sureness(t) >= count_conf else "unsure"

    judged = [dataclasses.replace(t, uncounted=uncounted(t)) for t in tiles]
    counted = [k for k, t in enumerate(judged) if not t.uncounted]
    if overlap_max > 0 and len(counted) > 1:
        keep = apart([judged[k].box for k in counted], [sureness(judged[k]) for k in counted], overlap_max)
        for k in np.asarray(counted)[~keep]:
            judged[k] = dataclasses.replace(judged[k], uncounted="overlap")
    candidates = [t for t in judged if t.uncounted]
    tiles = [t for t in judged if not t.uncounted]
    tile_values = [t.tile for t in tiles]
    warnings: list[str] = []
    if not tiles:
        warnings.append("no face-up tiles found in the photo")
    low = sum(t.needs_review for t in tiles)
    if low:
        warnings.append(f"{words.count(low, 'tile')} read with low confidence: check them")
    unsure = sum(t.uncounted == "unsure" for t in candidates)
    if unsure:
        warnings.append(f"{words.count(unsure, 'possible tile')} too unsure to count: add any that is a tile")
    printed = sum(t.uncounted == "not pips" for t in candidates)
    if printed:
        warnings.append(f"{words.count(printed, 'possible tile')} "
                        f"{'looks' if printed == 1 else 'look'} like print or a back, not pips: "
                        "not counted; add any that is a tile")
    overlapping = sum(t.uncounted == "overlap" for t in candidates)
    if overlapping:
        warnings.append(f"{words.count(overlapping, 'possible tile')} "
                        f"{'overlaps' if overlapping == 1 else 'overlap'} a surer tile, and tiles cannot overlap: "
                        "not counted; add any that is a tile")
    for tile, count in sorted(Counter(tile_values).items()):
        if count > 1:
            warnings.append(f"{tile} read {count} times in this photo (one set has one of each)")
    if face_down:
        warnings.append(f"{words.count(face_down, 'face-down tile')} seen and not counted")
    return Reading(
        tiles=tuple(tiles),
        pips=sum(t.pips for t in tile_values),
        penalty=rules.penalty(tile_values),
        warnings=tuple(warnings),
        image_size=image_size,
        rules=rules.name,
        face_down=face_down,
        candidates=tuple(candidates),
    )


# --------------------------------------------------------------------------- the reader
def half_rows(tiles: np.ndarray) -> np.ndarray:
    """The rows of half-reader output (two a tile, A then B) of the tiles at indices ``tiles``."""
    tiles = np.asarray(tiles, np.int64)
    return np.stack([2 * tiles, 2 * tiles + 1], 1).reshape(-1)


@dataclass(frozen=True)
class _Halves:
    """Face-up tile detections with their halves read: probabilities as the half reader gave
    them (two rows a tile), the class chosen for each half, and how many detections were backs."""

    tiles: Detections
    probs: np.ndarray
    choice: np.ndarray
    backs: int
    #: The half crops the probabilities were read from (two rows a tile), kept for the second
    #: opinion so it need not cut them again; None when not kept.
    crops: np.ndarray | None = None

    def subset(self, keep: np.ndarray) -> _Halves:
        rows = half_rows(np.flatnonzero(keep))
        crops = None if self.crops is None else self.crops[rows]
        return _Halves(self.tiles[keep], self.probs[rows], self.choice[rows], self.backs, crops)

    def without_backs(self, backs: Sequence[int]) -> _Halves:
        """These tiles less the ones at ``backs``, counted as face-down instead."""
        if not len(backs):
            return self
        keep = np.ones(len(self.tiles), bool)
        keep[list(backs)] = False
        return dataclasses.replace(self.subset(keep), backs=self.backs + len(backs))

    @staticmethod
    def join(a: _Halves, b: _Halves, rows: np.ndarray, backs: int) -> _Halves:
        """``a``'s tiles then ``b``'s, ``rows`` their new ``data["row"]``."""
        tiles = Detections(np.concatenate([a.tiles.boxes, b.tiles.boxes]),
                           np.concatenate([a.tiles.confidence, b.tiles.confidence]),
                           np.concatenate([a.tiles.class_id, b.tiles.class_id]), {"row": rows})
        crops = None if a.crops is None or b.crops is None else np.concatenate([a.crops, b.crops])
        return _Halves(tiles, np.concatenate([a.probs, b.probs]), np.concatenate([a.choice, b.choice]), backs, crops)


def _metadata(session: Any) -> dict[str, Any]:
    """ultralytics' custom ONNX metadata (values are Python literals written as text)."""
    raw = session.get_modelmeta().custom_metadata_map or {}
    out: dict[str, Any] = {}
    for key, value in raw.items():
        try:
            out[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            out[key] = value
    return out


def _imgsz(meta: Mapping[str, Any], default: int) -> int:
    v = meta.get("imgsz", default)
    if isinstance(v, list | tuple):
        v = max(v)
    return int(v)


def padded_bounds(boxes: np.ndarray, pad: float, size: tuple[int, int]) -> tuple[int, int, int, int]:
    """The whole-pixel rectangle around every corner of ``boxes`` (rows cx, cy, length, width,
    angle), ``pad`` pixels wider on each side, clipped to an image of ``size``."""
    corners = obb_corners(np.asarray(boxes, np.float64)).reshape(-1, 2)
    w, h = size
    x0, y0 = (max(0, math.floor(v - pad)) for v in corners.min(0))
    x1, y1 = min(w, math.ceil(corners[:, 0].max() + pad)), min(h, math.ceil(corners[:, 1].max() + pad))
    return x0, y0, x1, y1


def _offset(dets: Detections, window: tuple[int, int, int, int]) -> Detections:
    """``dets`` found in a crop at ``window``, in the whole image's pixels."""
    if not len(dets):
        return dets
    boxes = dets.boxes.astype(np.float64)
    boxes[:, 0] += window[0]
    boxes[:, 1] += window[1]
    return Detections(boxes, dets.confidence, dets.class_id)


def resolve_models_dir(models_dir: str | os.PathLike[str] | None = None) -> Path:
    """``models_dir``, else ``$CHICKENFOOT_MODELS``, else the shipped ``models/``."""
    return Path(models_dir or os.environ.get("CHICKENFOOT_MODELS") or MODELS_DIR)


@dataclass(frozen=True)
class HalfReader:
    """One half classifier: its session, the pip count of each output and its input size."""

    session: Any
    values: np.ndarray
    imgsz: int
    input_name: str

    @classmethod
    def of(cls, session: Any, config: ReaderConfig, declared: Any = None, what: str = "classifier") -> HalfReader:
        meta = _metadata(session)
        names = meta.get("names") or {i: str(i) for i in range(config.max_value + 1)}
        values = class_values({int(k): str(v) for k, v in names.items()})
        if declared is not None and list(declared) != values.tolist():
            raise ModelError(
                f"reader.json {what} values {list(declared)} disagree with the {what}'s class names "
                f"{values.tolist()}"
            )
        return cls(session, values, _imgsz(meta, config.cls_imgsz), session.get_inputs()[0].name)

    @property
    def top(self) -> int:
        """The most pips it reads on a half."""
        return int(self.values.max())

    @property
    def has_not_pips(self) -> bool:
        """Whether it also says how likely a crop is not a half of a tile (class ``x``)."""
        return bool(np.any(self.values == NOT_PIPS))

    def classify(self, batch: np.ndarray) -> np.ndarray:
        if not len(batch):
            return np.zeros((0, len(self.values)), np.float64)
        return as_probabilities(self.session.run(None, {self.input_name: batch})[0])


class Reader:
    """The tile reader: ``Reader.from_models_dir().read("photo.jpg")``."""

    def __init__(
        self, config: ReaderConfig, detector: Any, classifier: Any, models_dir: Path | None = None,
        refiner: Any = None, wide: Any = None,
    ) -> None:
        self.config = config
        self.refiner = refiner
        self.models_dir = models_dir
        self.detector = detector
        self.classifier = classifier
        self.wide = wide
        det_meta = _metadata(detector)
        self.det_names: dict[int, str] = {int(k): str(v) for k, v in det_meta.get("names", {0: "tile"}).items()}
        self.det_imgsz = _imgsz(det_meta, config.det_imgsz)
        self.halves = HalfReader.of(classifier, config, config.extra.get("cls_values"), "classifier")
        self.wide_halves = None if wide is None else HalfReader.of(
            wide, config, config.extra.get("wide_values"), "wide-set classifier")
        #: For each of the shipped classifier's outputs, the wide-set classifier's output of the
        #: same pip count (None when it lacks one: no second opinion then).
        self._second_columns = None
        if self.wide_halves is not None and self.wide_halves.imgsz == self.halves.imgsz:
            wide_values = self.wide_halves.values.tolist()
            if all(v in wide_values for v in self.halves.values.tolist()):
                self._second_columns = np.array([wide_values.index(v) for v in self.halves.values.tolist()])
        self._det_input = detector.get_inputs()[0].name
        # a detector exported with dynamic shape reads rectangles padded to its stride (32)
        shape = detector.get_inputs()[0].shape
        self.det_stride = 0 if all(isinstance(d, int) for d in shape[2:]) else 32
        if config.det_input > 0:
            if not self.det_stride and config.det_input != self.det_imgsz:
                raise ModelError(
                    f"reader.json det_input {config.det_input} needs a detector exported with dynamic "
                    f"shape; this one takes {self.det_imgsz} px only"
                )
            self.det_imgsz = config.det_input
        view = [3, 2 * REFINE_VIEW_SIZE, REFINE_VIEW_SIZE]
        if refiner is not None and list(refiner.get_inputs()[0].shape[1:]) != view:
            raise ModelError(f"the box refiner takes {refiner.get_inputs()[0].shape}, not N x {' x '.join(map(str, view))} views")
        self.tile_class = config.tile_class
        try:
            self.count_model = CountModel.from_dict(config.count_model) if config.count_model else None
        except ValueError as exc:
            raise ModelError(f"reader.json count_model: {exc}") from None

    @classmethod
    def from_models_dir(cls, models_dir: str | os.PathLike[str] | None = None) -> Reader:
        """Load ``reader.json`` and the two ONNX models it names (default: shipped ``models/``)."""
        base = resolve_models_dir(models_dir)
        config = ReaderConfig.load(base / "reader.json")
        try:
            import onnxruntime as ort
        except ImportError:  # pragma: no cover - a runtime dependency
            raise ModelError("onnxruntime is not installed") from None
        opts = ort.SessionOptions()
        # Two threads: the reader shares a small machine (and a phone) with everything else.
        opts.intra_op_num_threads = config.threads
        opts.inter_op_num_threads = 1
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # No busy-waiting: each session's pool thread otherwise spins on after its run and takes
        # a core from the other model (and from decoding), which doubled a 640x480 read here.
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        opts.log_severity_level = 3
        sessions = []
        for fname in config.model_files:
            path = base / fname
            if not path.is_file():
                raise ModelError(f"{path}: model file missing")
            try:
                sessions.append(
                    ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])
                )
            except Exception as exc:  # onnxruntime raises its own exception types
                raise ModelError(f"{path}: cannot load model ({' '.join(str(exc).split())[:200]})") from None
        named = dict(zip(config.model_files, sessions, strict=True))
        return cls(config, sessions[0], sessions[1], base, refiner=named.get(config.refiner) if config.refiner else None,
                   wide=named.get(config.classifier_wide) if config.classifier_wide else None)

    def with_config(self, config: ReaderConfig) -> Reader:
        """The same loaded models (box refiner and wide-set classifier included) read with other settings."""
        return type(self)(config, self.detector, self.classifier, self.models_dir, refiner=self.refiner,
                          wide=self.wide)

    def for_table(self) -> Reader:
        """This reader with the settings for a photo of the whole table (see
        ``ReaderConfig.table_fine_trigger_px``); itself when there are none."""
        c = self.config
        table = dataclasses.replace(
            c, fine_trigger_px=c.table_fine_trigger_px if c.table_fine_trigger_px > 0 else c.fine_trigger_px,
            search_below=c.search_below if c.table_search else 0.0, small_tile_px=0.0)
        return self if table == c else self.with_config(table)

    @property
    def values(self) -> np.ndarray:
        """Pip count of each output of the shipped (0-12) half reader."""
        return self.halves.values

    @property
    def cls_imgsz(self) -> int:
        return self.halves.imgsz

    def half_reader(self, top: int | None) -> HalfReader:
        """The classifier for a double-``top`` set: the shipped one unless the set has halves it
        cannot read and the wide-set classifier can."""
        if top is not None and top > self.halves.top and self.wide_halves is not None:
            return self.wide_halves
        return self.halves

    def readable_top(self, top: int | None) -> int:
        """The most pips a half can be read as for a double-``top`` set."""
        return self.half_reader(top).top

    @property
    def model_bytes(self) -> int:
        """Bytes of the model files on disk (0 when built from sessions in memory)."""
        if self.models_dir is None:
            return 0
        paths = [self.models_dir / f for f in self.config.model_files]
        return sum(p.stat().st_size for p in paths if p.exists())

    # -- stages bound to the sessions
    def load(self, source: Source | LoadedImage) -> LoadedImage:
        if isinstance(source, LoadedImage):
            return source
        return load_image(source, self.config.decode_max_side)

    def detect_window(self, image: Image.Image, window: tuple[int, int, int, int] | None = None,
                      conf: float | None = None) -> Detections:
        """Detections in ``image`` pixels from one detector pass over ``window`` (whole image if None)."""
        part = image if window is None else image.crop(window)
        dets = self._run_detector(part, self.det_imgsz, self.config.det_conf if conf is None else conf)
        return dets if window is None else _offset(dets, window)

    def _run_detector(self, image: Image.Image, size: int, conf: float) -> Detections:
        """Detections in ``image`` pixels from the detector fed ``image`` letterboxed to ``size``."""
        tensor, lb = letterbox(image, size, self.det_stride)
        raw = self.detector.run(None, {self._det_input: tensor})[0]
        c = self.config
        return unletterbox(decode_obb(raw, conf, c.det_iou, c.max_det, fast_nms=c.fast_nms), lb)

    def zoom_factor(self, seen: Detections, gain: float) -> float:
        """The least zoom (``fine_min_zoom`` to ``fine_grid``) at which the median tile seen
        reaches ``fine_trigger_px``."""
        top = max(2.0, float(self.config.fine_grid))
        if not len(seen):
            return top
        median = float(np.median(seen.boxes[:, 2])) * gain
        return float(np.clip(self.config.fine_trigger_px / max(median, 1e-6), self.config.fine_min_zoom, top))

    def detect_zoomed(self, image: Image.Image, zoom: float,
                      region: tuple[int, int, int, int] | None = None) -> Detections:
        """Detections from one pass over the whole photo at ``zoom`` x the detector's input size
        (never more than the photo's own pixels), or over ``region`` of it at the same scale."""
        stride = self.det_stride or 32
        long_side = max(image.size)
        part = image if region is None else image.crop(region)
        scale = max(part.size) / long_side
        # a multiple of the stride: ultralytics' rectangular letterbox pads to one only then
        cap = max(stride, max(part.size) // stride * stride)
        size = min(math.ceil(self.det_imgsz * zoom * scale / stride) * stride, cap)
        dets = self._run_detector(part, size, self.config.det_conf)
        return dets if region is None else _offset(dets, region)

    def zoom_region(self, seen: Detections, size: tuple[int, int]) -> tuple[int, int, int, int] | None:
        """The part of the photo the zoom searches (``fine_roi_margin``): the corners of every box
        seen, ``fine_roi_margin`` median tile lengths wider on each side; None for the whole photo."""
        margin = self.config.fine_roi_margin
        if margin <= 0 or not len(seen):
            return None
        x0, y0, x1, y1 = padded_bounds(seen.boxes, margin * float(np.median(seen.boxes[:, 2])), size)
        w, h = size
        if x1 <= x0 or y1 <= y0 or (x1 - x0) * (y1 - y0) >= 0.9 * w * h:
            return None
        return (x0, y0, x1, y1)

    def detect_closeup(self, image: Image.Image, zoom: float) -> Detections:
        """Detections from one pass over ``image`` shrunk to 1/``zoom`` of the detector's input,
        centred on a margin of its median border colour (tiles that fill the photo come out the
        size the detector was trained on)."""
        w, h = image.size
        (_, _), lb = letterbox_geometry(round(w * zoom), round(h * zoom), self.det_imgsz, self.det_stride)
        new_w, new_h = max(1, round(w * lb.gain)), max(1, round(h * lb.gain))
        small = np.asarray(image.convert("RGB").resize((new_w, new_h), Image.Resampling.BILINEAR, reducing_gap=3.0))
        border = np.concatenate([small[0], small[-1], small[:, 0], small[:, -1]])
        cw, ch = lb.shape
        canvas = np.empty((ch, cw, 3), np.uint8)
        canvas[:] = np.median(border, axis=0).astype(np.uint8)
        x0, y0 = (cw - new_w) // 2, (ch - new_h) // 2
        canvas[y0 : y0 + new_h, x0 : x0 + new_w] = small
        raw = self.detector.run(None, {self._det_input: input_tensor(canvas)})[0]
        c = self.config
        placed = Letterbox(gain=new_w / w, pad_x=x0, pad_y=y0, size=lb.size, shape=lb.shape)
        return unletterbox(decode_obb(raw, c.det_conf, c.det_iou, c.max_det, fast_nms=c.fast_nms), placed)

    def needs_closeup_pass(self, dets: Detections, size: tuple[int, int]) -> bool:
        c = self.config
        if c.closeup_zoom <= 1.0:
            return False
        return not len(dets) or float(dets.boxes[:, 2].max()) > c.closeup_trigger * max(size)

    def outsizes_input(self, size: tuple[int, int]) -> bool:
        """Whether a photo of ``size`` is at least twice the detector's input: smaller ones seen
        at another scale would hardly be sharper than at the input size."""
        return max(size) >= 2.0 * self.det_imgsz

    def needs_second_pass(self, size: tuple[int, int]) -> bool:
        """Whether a photo that gets no small-tile pass is searched at ``second_imgsz`` too (a
        detector with dynamic shape only: a fixed one takes no other input size)."""
        return self.config.second_imgsz > 0 and bool(self.det_stride) and self.outsizes_input(size)

    def needs_fine_pass(self, dets: Detections, size: tuple[int, int]) -> bool:
        grid, long_side = self.config.fine_grid, max(size)
        if grid <= 1 or not self.outsizes_input(size):
            return False  # windows would hardly be sharper than the whole photo
        gain = self.det_imgsz / long_side
        if not len(dets):
            return long_side >= 2.5 * self.det_imgsz
        return float(np.median(dets.boxes[:, 2])) * gain < self.config.fine_trigger_px

    def detect(self, image: Image.Image) -> Detections:
        """Tile (and back) detections in ``image`` pixels: a whole-photo pass, plus a zoomed or
        windowed pass (``fine_mode``) when the tiles are too small for the detector's input
        size; boxes no flat tile could have (``max_aspect``, ``max_length_ratio``) and reads sitting
        on a surer, longer tile (``contain_ratio``) are dropped."""
        c = self.config
        dets = drop_implausible(self._detect_passes(image), c.max_aspect, c.max_length_ratio)
        return self.refine(image, drop_contained(dets, c.contain_ratio))

    def refine(self, image: Image.Image, dets: Detections) -> Detections:
        """``dets`` with each box moved onto its tile by the box refiner (unchanged without one)."""
        if self.refiner is None or not len(dets):
            return dets
        boxes = dets.boxes.astype(np.float64)
        name = self.refiner.get_inputs()[0].name
        for _ in range(self.config.refine_iters):
            views = np.stack([np.asarray(refine_view(image, OrientedBox(*row))) for row in boxes])
            corrections = self.refiner.run(None, {name: np.ascontiguousarray(views.transpose(0, 3, 1, 2), np.float32)})[0]
            boxes = apply_box_corrections(boxes, corrections)
        boxes[:, 2] = np.maximum(boxes[:, 2], 1.0)
        return Detections(boxes.astype(np.float32), dets.confidence, dets.class_id, dets.data)

    def _detect_passes(self, image: Image.Image) -> Detections:
        c = self.config
        seed = c.fine_seed_conf if 0 < c.fine_seed_conf < c.det_conf else c.det_conf
        seen = self.detect_window(image, conf=seed)
        dets = seen[seen.confidence > c.det_conf] if len(seen) else seen
        if self.needs_closeup_pass(dets, image.size):
            extra = self.detect_closeup(image, c.closeup_zoom)
            extra = extra[extra.boxes[:, 2] >= c.closeup_keep * max(image.size)] if len(extra) else extra
            dets = merge_detections([dets, extra], c.det_iou, c.max_det, c.fast_nms)
        if not self.needs_fine_pass(dets, image.size):
            if self.needs_second_pass(image.size):
                extra = self._run_detector(image, c.second_imgsz, max(c.det_conf, c.second_conf))
                dets = merge_detections([dets, extra], c.det_iou, c.max_det, c.fast_nms)
            return dets
        found = [dets]
        gain = self.det_imgsz / max(image.size)
        if c.fine_mode == "zoom" and self.det_stride:
            found.append(self.detect_zoomed(image, self.zoom_factor(seen, gain), self.zoom_region(seen, image.size)))
            return merge_detections(found, c.det_iou, c.max_det, c.fast_nms)
        doubtful = seen.boxes[(seen.confidence <= c.det_conf) | (seen.boxes[:, 2] * gain < c.fine_trigger_px)]
        # skip bare table, and tiles the whole-photo pass saw clearly
        windows = grid_windows(image.size, c.fine_grid)
        if c.fine_seed_conf > 0 and len(seen):
            count = {win: _count_inside(doubtful, win) for win in windows}
            windows = [win for win in windows if count[win]]
            if 0 < c.fine_max_windows < len(windows):
                keep = set(sorted(windows, key=lambda w: -count[w])[: c.fine_max_windows])
                windows = [win for win in windows if win in keep]
        for win in windows:
            part = self.detect_window(image, win)
            found.append(part[~touches_inner_edge(part.boxes, win, image.size)])
        return merge_detections(found, self.config.det_iou, self.config.max_det, self.config.fast_nms)

    def classify(self, batch: np.ndarray) -> np.ndarray:
        """Probabilities per half crop as the reader's final reading of a set up to double-12
        gives them (:meth:`read_halves`, then :meth:`second_opinion`)."""
        return self.second_opinion(batch, self.read_halves(batch))

    def read_halves(self, batch: np.ndarray, halves: HalfReader | None = None) -> np.ndarray:
        """Probabilities per half crop (by ``halves``, default the shipped classifier), averaged
        over the mirrored view when ``cls_mirror``."""
        h = halves or self.halves
        if not self.config.cls_mirror or not len(batch):
            return h.classify(batch)
        both = h.classify(np.ascontiguousarray(np.concatenate([batch, batch[..., ::-1]])))
        return (both[: len(batch)] + both[len(batch) :]) / 2

    def has_second_opinion(self, halves: HalfReader | None = None) -> bool:
        """Whether halves read by ``halves`` (default the shipped classifier) get the wide-set
        classifier's second opinion (``second_opinion_below``)."""
        return (self.config.second_opinion_below > 0 and self._second_columns is not None
                and (halves is None or halves is self.halves))

    def second_opinion(self, batch: np.ndarray, probs: np.ndarray, halves: HalfReader | None = None) -> np.ndarray:
        """``probs`` (read by ``halves``, default the shipped classifier, per half crop of
        ``batch``) with the wide-set classifier's pip counts averaged in on the rows whose top
        probability is under ``second_opinion_below``; as they are when ``halves`` gets no
        second opinion."""
        below = self.config.second_opinion_below
        if not self.has_second_opinion(halves) or not len(batch):
            return probs
        unsure = np.flatnonzero(probs.max(1) < below)
        if not len(unsure):
            return probs
        wide = self.wide_halves.classify(np.ascontiguousarray(batch[unsure]))[:, self._second_columns]
        # only the pip count is averaged: whether a crop is a half at all stays the shipped
        # classifier's word (it saw far more print and backs), else backs are counted as tiles
        x = self.halves.values == NOT_PIPS
        out = np.array(probs, np.float64)
        mine = out[unsure]
        pips = [np.where(x, 0.0, p) for p in (mine, wide)]
        pips = [p / np.maximum(p.sum(1, keepdims=True), 1e-12) for p in pips]
        out[unsure] = np.where(x, mine, (1.0 - mine[:, x].sum(1, keepdims=True)) * (pips[0] + pips[1]) / 2)
        return out

    def read(self, source: Source | LoadedImage, rules: RuleSet | None = None, top: int | None = None) -> Reading:
        """Read every face-up tile in a photo and score it with ``rules`` (default preset).

        ``top``: the set in play is double-``top`` (the table knows; the photo may not), so no
        half is read as more pips; default ``rules.set`` when the rules fix the set.
        """
        rules = rules or get_rules()
        t0 = time.perf_counter()
        loaded = self.load(source)
        t1 = time.perf_counter()
        dets = self.detect(loaded.image)
        t2 = time.perf_counter()
        top = rules.set if top is None else top
        halves = self.half_reader(top)
        read = self._halves_of(loaded.image, dets, top, halves)
        reading = self._judge(loaded, read, rules, halves)
        t3 = time.perf_counter()
        timings = {"decode": (t1 - t0) * 1e3, "detect": (t2 - t1) * 1e3, "halves": (t3 - t2) * 1e3}
        for _ in range(self.config.doubt_rounds):
            region = self.doubt_region(reading, loaded)
            if region is None:
                break
            t3 = time.perf_counter()
            merged = self.look_again(loaded.image, dets, *region)
            t4 = time.perf_counter()
            again = self._read_merged(loaded.image, read, dets, merged, top, halves)
            if again is not None:
                read = again
                reading = self._judge(loaded, read, rules, halves)
            dets = merged
            timings["detect"] += (t4 - t3) * 1e3
            timings["halves"] += (time.perf_counter() - t4) * 1e3
        # last, so the box search and the second look go where the shipped classifier alone
        # doubts, as they were tuned to
        t4 = time.perf_counter()
        final = self.second_opinion_of(loaded.image, read, top, halves)
        if final is not read:
            reading = self._judge(loaded, final, rules, halves)
        timings["halves"] += (time.perf_counter() - t4) * 1e3
        warnings = reading.warnings + self.small_tiles_warning(reading, loaded.scale)
        if top is not None and top > halves.top:
            warnings += (f"a double-{top} set: this reader counts at most {halves.top} pips on a half, so "
                         f"halves of {halves.top + 1}-{top} are misread; check them",)
        return dataclasses.replace(reading, timings_ms=timings, warnings=warnings)

    def small_tiles_warning(self, reading: Reading, scale: float) -> tuple[str, ...]:
        """A warning to take the photo closer when its counted tiles are small as read
        (``small_tile_px``; ``scale``: the reader's pixels per pixel of the photo)."""
        px = self.config.small_tile_px
        if px <= 0 or not reading.tiles:
            return ()
        median = float(np.median([t.box.length for t in reading.tiles])) * scale
        if median >= px:
            return ()
        return (f"the tiles are small in this photo (about {int(median)} px long as read; from {px:.0f} px "
                f"they read surest): a photo taken closer is counted more surely",)

    def _halves_of(self, image: Image.Image, dets: Detections, top: int | None, halves: HalfReader) -> _Halves:
        """The face-up tiles among ``dets`` (working pixels), each with its index in ``dets`` as
        ``data["row"]``, their halves read and their boxes searched."""
        tiles, probs, choice, backs, crops = self._read_halves_of(
            image, dets.with_data(row=np.arange(len(dets))), top, halves)
        before = tiles.boxes.copy()
        tiles, probs, choice = self.search_boxes(image, tiles, probs, choice, top, halves)
        shifted = np.any(tiles.boxes != before, axis=1) if len(tiles) else np.zeros(0, bool)
        if not self.has_second_opinion(halves):
            crops = None
        elif np.any(shifted):  # the crops of the boxes it took
            c = self.config
            crops[half_rows(np.flatnonzero(shifted))] = crop_halves(
                image, tiles[shifted], c.crop_size, c.crop_pad, halves.imgsz, c.crop_max_source_px)
        # a 0-0 on a box the search moved passes the 0-0 tests again there: the tests were
        # taken on the old box, and the new one may sit on a back's print or a cloth's pattern
        moved = np.flatnonzero((halves.values[choice].reshape(-1, 2).max(1) == 0) & shifted)
        boxes = tiles.oriented_boxes() if len(moved) else []
        blank = [i for i in moved if self._is_back(image, boxes[i], True)]
        return _Halves(tiles, probs, choice, backs, crops).without_backs(blank)

    def second_opinion_of(self, image: Image.Image, read: _Halves, top: int | None, halves: HalfReader) -> _Halves:
        """``read`` with the halves the shipped classifier was unsure of read again with the
        wide-set classifier's second opinion (:meth:`second_opinion`), on each tile where it
        decides: a tile it would leave under ``count_conf`` keeps the shipped reading, and a tile
        that only now reads 0-0 takes the 0-0 tests (a back, else). ``read`` itself when there
        is no second opinion to ask."""
        if not self.has_second_opinion(halves) or not len(read.tiles):
            return read
        unsure = np.flatnonzero((read.probs.max(1) < self.config.second_opinion_below).reshape(-1, 2).any(1))
        if not len(unsure):
            return read
        c = self.config
        rows = half_rows(unsure)
        batch = read.crops[rows] if read.crops is not None else crop_halves(
            image, read.tiles[unsure], c.crop_size, c.crop_pad, halves.imgsz, c.crop_max_source_px)
        probs = read.probs.copy()
        probs[rows] = self.second_opinion(batch, read.probs[rows])
        choice = read.choice.copy()
        choice[rows] = choose_values(probs[rows], halves.values, top)
        # a second opinion that leaves a counted tile too unsure to count decides nothing: the
        # shipped reading stands (the box search and second look, which would look again at a
        # tile in doubt, have run already; letting the opinion drop such tiles left 37 more
        # tiles of the 1,500 tuning photos uncounted, against 27 misreads it put right). With a count model, its
        # word decides what counts, and this guard does not apply.
        det = read.tiles.confidence.astype(np.float64)
        was_sure = det * half_sureness(read.probs, read.choice, halves.values)[0] >= c.count_conf
        now_sure = det * half_sureness(probs, choice, halves.values)[0] >= c.count_conf
        back = np.flatnonzero(was_sure & ~now_sure) if self.count_model is None else []
        if len(back):
            undo = half_rows(back)
            probs[undo], choice[undo] = read.probs[undo], read.choice[undo]
        double_blank = halves.values[choice].reshape(-1, 2).max(1) == 0
        was = halves.values[read.choice].reshape(-1, 2).max(1) == 0
        boxes = read.tiles.oriented_boxes()
        blank = [i for i in unsure if double_blank[i] and not was[i] and self._is_back(image, boxes[i], True)]
        return dataclasses.replace(read, probs=probs, choice=choice).without_backs(blank)

    def _read_merged(self, image: Image.Image, read: _Halves, dets: Detections, merged: Detections,
                     top: int | None, halves: HalfReader) -> _Halves | None:
        """``read`` (the halves of ``dets``) for ``merged``, ``dets`` with what the second look
        added: the boxes ``dets`` had keep their reading and only the added ones are read; None
        when it added none."""
        index = {row.tobytes(): i for i, row in enumerate(dets.boxes)}
        from_old = np.array([index.get(row.tobytes(), -1) for row in merged.boxes], np.int64)
        added = np.flatnonzero(from_old < 0)
        if not len(added):
            return None
        place = np.full(len(dets), -1, np.int64)  # where each box of dets is in merged, if kept
        place[from_old[from_old >= 0]] = np.flatnonzero(from_old >= 0)
        kept = place[read.tiles.data["row"]] >= 0
        extra = self._halves_of(image, merged[added], top, halves)
        rows = np.concatenate([place[read.tiles.data["row"][kept]], added[extra.tiles.data["row"]]])
        # the boxes of dets the merge kept that were not read as tiles are backs still
        backs = int(np.count_nonzero(from_old >= 0)) - int(np.count_nonzero(kept))
        return _Halves.join(read.subset(kept), extra, rows, backs + extra.backs)

    def _judge(self, loaded: LoadedImage, read: _Halves, rules: RuleSet, halves: HalfReader) -> Reading:
        """The reading of tiles whose halves are read: which count, pips and penalty."""
        probs, not_pips = split_not_pips(read.probs, halves.values)
        score = None
        if self.count_model is not None:
            score = self.count_model.probability(
                self._evidence_of(loaded.image, read.tiles, probs, read.choice, halves.values))
        return assemble(
            read.tiles,
            probs,
            halves.values,
            to_original=1.0 / loaded.scale,
            image_size=loaded.original_size,
            review_conf=self.config.review_conf,
            rules=rules,
            face_down=read.backs,
            count_conf=self.config.count_conf if score is None else self.config.count_score,
            choice=read.choice,
            tile_score=score,
            not_pips=not_pips,
            not_pips_max=self.config.not_pips_max,
            overlap_max=self.config.overlap_max,
        )

    def doubt_region(self, reading: Reading, loaded: LoadedImage) -> tuple[tuple[int, int, int, int], int] | None:
        """Where the second look goes (``doubt_below``), in working pixels, and the detector input
        size for it; None when nothing in ``reading`` is in doubt."""
        c = self.config
        if c.doubt_below <= 0 or not self.det_stride:
            return None
        doubt = [t.box for t in reading.tiles if t.confidence < c.doubt_below]
        doubt += [t.box for t in reading.candidates if t.uncounted == "unsure"]
        if not doubt:
            return None
        boxes = box_rows([b.scaled(loaded.scale) for b in doubt])
        median = float(np.median(boxes[:, 2]))
        x0, y0, x1, y1 = padded_bounds(boxes, c.doubt_pad * median, loaded.image.size)
        if x1 - x0 < 8 or y1 - y0 < 8:
            return None
        stride = self.det_stride
        zoom = max(1.0, c.doubt_tile_px / max(median, 1e-6))
        size = math.ceil(max(x1 - x0, y1 - y0) * zoom / stride) * stride
        return (x0, y0, x1, y1), int(min(max(c.doubt_max_input // stride * stride, stride), max(size, stride)))

    def look_again(self, image: Image.Image, dets: Detections, region: tuple[int, int, int, int],
                   size: int) -> Detections:
        """``dets`` joined by what the detector sees in ``region`` of ``image`` fed at ``size``
        (boxes no flat tile could have, and reads on a surer, longer tile, dropped again)."""
        c = self.config
        part = self.refine(image, _offset(self._run_detector(image.crop(region), size, c.det_conf), region))
        merged = merge_detections([dets, part], c.det_iou, c.max_det, c.fast_nms)
        return drop_contained(drop_implausible(merged, c.max_aspect, c.max_length_ratio), c.contain_ratio)

    def look_at(self, source: Source | LoadedImage, boxes: Sequence[OrientedBox],
                top: int | None = None) -> list[TileReading]:
        """Read the halves of a tile at each of ``boxes`` (original pixels, half A at the box's
        -length/2 end), where something other than the detector says a tile must lie (see
        :func:`vision.table.read_table`). Boxes go through the box refiner first; every
        reading is flagged for review and has detection confidence 0."""
        if not boxes:
            return []
        loaded = self.load(source)
        s = loaded.scale
        dets = self.refine(loaded.image, Detections.from_boxes([b.scaled(s) for b in boxes], np.ones(len(boxes))))
        h = self.half_reader(top)
        c = self.config
        batch = crop_halves(loaded.image, dets, c.crop_size, c.crop_pad, h.imgsz, c.crop_max_source_px)
        probs = self.second_opinion(batch, self.read_halves(batch, h), h)
        choice = choose_values(probs, h.values, top)
        probs, not_pips = split_not_pips(probs, h.values)
        out = []
        for i, box in enumerate(dets.oriented_boxes()):
            pa, pb = float(probs[2 * i, choice[2 * i]]), float(probs[2 * i + 1, choice[2 * i + 1]])
            out.append(TileReading(int(h.values[choice[2 * i]]), int(h.values[choice[2 * i + 1]]), pa * pb,
                                   box.scaled(1.0 / s), True, 0.0, (pa, pb),
                                   not_pips=None if not_pips is None else float(not_pips[i])))
        return out

    def _read_halves_of(self, image: Image.Image, dets: Detections, top: int | None,
                        halves: HalfReader | None = None) -> tuple[Detections, np.ndarray, np.ndarray, int, np.ndarray]:
        """The face-up tile detections, their half probabilities (two rows each, by ``halves``,
        default the shipped classifier), the class chosen for each half, how many detections
        were backs, and the half crops read (two rows a tile)."""
        h = halves or self.halves
        is_tile = dets.class_id == self.tile_class
        tiles, backs = dets[is_tile], int(np.count_nonzero(~is_tile))
        batch = crop_halves(
            image, tiles, self.config.crop_size, self.config.crop_pad, h.imgsz,
            self.config.crop_max_source_px,
        )
        probs = self.read_halves(batch, h)
        c = self.config
        if (c.blank_divider_min > 0 or c.divider_min > 0 or c.divider_span_min > 0 or c.blank_wander_max > 0) \
                and len(tiles):
            # blank backs look like 0-0 to the half reader, so 0-0 reads pass the stricter tests
            double_blank = h.values[choose_values(probs, h.values)].reshape(-1, 2).max(1) == 0
            boxes = tiles.oriented_boxes()
            blank = [i for i in range(len(tiles)) if self._is_back(image, boxes[i], bool(double_blank[i]))]
            if blank:  # backs, not tiles: counted as face-down, never scored
                keep = np.setdiff1d(np.arange(len(tiles)), blank)
                backs += len(blank)
                tiles = tiles[keep]
                rows = half_rows(keep)
                probs, batch = probs[rows], batch[rows]
        return tiles, probs, choose_values(probs, h.values, top), backs, batch

    def _is_back(self, image: Image.Image, box: OrientedBox, double_blank: bool) -> bool:
        """Whether a face-up detection is a face-down tile after all, by its divider."""
        c = self.config
        need = max(c.blank_divider_min, c.divider_min) if double_blank else c.divider_min
        if need > 0 and divider_contrast(image, box) < need \
                and not (double_blank and need > c.divider_min and self._coloured_divider(image, box)):
            return True
        if double_blank and c.blank_wander_max > 0 and divider_wander(image, box) > c.blank_wander_max:
            return True
        return c.divider_span_min > 0 and divider_span(image, box) < c.divider_span_min

    def _coloured_divider(self, image: Image.Image, box: OrientedBox) -> bool:
        """Whether a tile read 0-0 that shows too little divider in grey shows one in colour,
        drawn across it (``blank_colour_min``, ``blank_colour_span_min``)."""
        c = self.config
        return (c.blank_colour_min > 0 and divider_colour_contrast(image, box) >= c.blank_colour_min
                and divider_span(image, box) >= c.blank_colour_span_min)

    def search_boxes(self, image: Image.Image, tiles: Detections, probs: np.ndarray, choice: np.ndarray,
                     top: int | None, halves: HalfReader) -> tuple[Detections, np.ndarray, np.ndarray]:
        """``tiles``, their half probabilities (two rows each, as the half reader gave them) and
        chosen classes (:func:`choose_values`), with each tile read less surely than
        ``search_below`` moved to the box of ``search_shifts`` its halves are read surest from,
        when that beats its own."""
        c = self.config
        if c.search_below <= 0 or not c.search_shifts or not len(tiles):
            return tiles, probs, choice
        sure, not_pips = half_sureness(probs, choice, halves.values)
        weak = np.flatnonzero((tiles.confidence * sure < c.search_below)
                              & (True if not_pips is None else not_pips < c.not_pips_max))
        if not len(weak):
            return tiles, probs, choice
        shifts = np.asarray(c.search_shifts, np.float64)
        rows = np.repeat(tiles.boxes[weak].astype(np.float64), len(shifts), axis=0)
        step = np.tile(shifts, len(weak)) * rows[:, 2]
        rows[:, 0] += np.cos(rows[:, 4]) * step
        rows[:, 1] += np.sin(rows[:, 4]) * step
        moved = Detections(rows.astype(np.float32), np.ones(len(rows), np.float32), np.zeros(len(rows), np.int64))
        tried = self.read_halves(crop_halves(image, moved, c.crop_size, c.crop_pad, halves.imgsz,
                                             c.crop_max_source_px), halves)
        tried_choice = choose_values(tried, halves.values, top)
        tried_sure, tried_np = half_sureness(tried, tried_choice, halves.values)
        if tried_np is not None:
            tried_sure = np.where(tried_np < c.not_pips_max, tried_sure, -1.0)
        tried_sure = tried_sure.reshape(len(weak), len(shifts))
        best = tried_sure.argmax(1)
        better = tried_sure[np.arange(len(weak)), best] > sure[weak]
        if not np.any(better):
            return tiles, probs, choice
        boxes, probs, choice = tiles.boxes.copy(), probs.copy(), choice.copy()
        for i, k in zip(weak[better], (np.arange(len(weak)) * len(shifts) + best)[better], strict=True):
            boxes[i] = rows[k]
            probs[2 * i : 2 * i + 2] = tried[2 * k : 2 * k + 2]
            choice[2 * i : 2 * i + 2] = tried_choice[2 * k : 2 * k + 2]
        return Detections(boxes, tiles.confidence, tiles.class_id, tiles.data), probs, choice

    def evidence(self, source: Source | LoadedImage,
                 rules: RuleSet | None = None) -> tuple[np.ndarray, np.ndarray] | None:
        """What the count model weighs for each face-up tile detection (``COUNT_FEATURES``
        columns), and the detections' boxes in working pixels; None when nothing was found.
        Used to fit the count model (:mod:`vision.verify`)."""
        loaded = self.load(source)
        top = (rules or get_rules()).set
        tiles, probs, choice, _, _ = self._read_halves_of(loaded.image, self.detect(loaded.image), top)
        if not len(tiles):
            return None
        probs = split_not_pips(probs, self.values)[0]
        return self._evidence_of(loaded.image, tiles, probs, choice), tiles.boxes.astype(np.float64)

    def _evidence_of(self, image: Image.Image, tiles: Detections, probs: np.ndarray,
                     choice: np.ndarray, values: np.ndarray | None = None) -> np.ndarray:
        return count_evidence(image, tiles.boxes, tiles.confidence, probs, choice,
                              self.values if values is None else values)

    def read_tile_crop(self, source: Source | LoadedImage) -> tuple[int, int, float]:
        """Read an image that holds exactly one tile, long axis vertical (a single-tile crop).

        Used for labelled crops: the whole image is taken as the tile's box. Returns
        ``(top value, bottom value, confidence)``.
        """
        loaded = self.load(source)
        w, h = loaded.image.size
        box = OrientedBox(w / 2, h / 2, float(max(w, h)), float(min(w, h)), math.pi / 2 if h >= w else 0.0)
        dets = Detections.from_boxes([box], [1.0])
        probs = self.classify(crop_halves(
            loaded.image, dets, self.config.crop_size, 0.0, self.cls_imgsz, self.config.crop_max_source_px
        ))
        top = choose_values(probs, self.values)
        probs = split_not_pips(probs, self.values)[0]
        conf = float(probs[0, top[0]] * probs[1, top[1]])
        return int(self.values[top[0]]), int(self.values[top[1]]), conf

    def read_half_crop(self, images: Sequence[Image.Image]) -> list[tuple[int, float]]:
        """Classify square half crops (divider at the bottom) directly."""
        s = self.cls_imgsz
        batch = np.stack([
            np.asarray(im.convert("RGB").resize((s, s), Image.Resampling.BILINEAR)) for im in images
        ]).transpose(0, 3, 1, 2).astype(np.float32) / np.float32(255.0)
        probs = self.classify(np.ascontiguousarray(batch))
        top = choose_values(probs, self.values)
        probs = split_not_pips(probs, self.values)[0]
        return [(int(self.values[k]), float(probs[i, k])) for i, k in enumerate(top)]
