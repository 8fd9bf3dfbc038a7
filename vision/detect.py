"""Stage 2, detect: every tile (and back) in a photo as oriented boxes in working pixels.

One whole-photo pass at the detector's input size, and where that pass shows the photo needs
it, one more: zoomed in when the tiles are small at that size, shrunk when one tile fills the
photo, or at a second input size for big photos of big tiles. Boxes no flat tile could have,
and reads sitting on a surer, longer tile, are dropped. The second look (:func:`look_again`) is
a stage of its own, once the halves show where the reading is in doubt.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from PIL import Image

from .config import ReaderConfig
from .detections import Detections, box_rows, obb_corners
from .geometry import OrientedBox
from .obb import (
    Letterbox,
    decode_obb,
    input_tensor,
    letterbox,
    letterbox_geometry,
    merge_detections,
    unletterbox,
)
from .runtime import input_size, metadata

Window = tuple[int, int, int, int]

#: The detector's class of a face-up tile; any other class (a back) is seen and not counted.
TILE_CLASS = 0


@dataclass(frozen=True)
class Detector:
    """The tile detector: its model, class names, input size and stride (0: fixed input)."""

    model: Any
    names: Mapping[int, str]
    imgsz: int
    #: A detector exported with dynamic shape reads rectangles padded to its stride (32); one
    #: with a fixed square input (0) reads only at its own size.
    stride: int
    input_name: str

    @classmethod
    def of(cls, model: Any, default_imgsz: int) -> Detector:
        meta = metadata(model)
        names = {int(k): str(v) for k, v in meta.get("names", {0: "tile"}).items()}
        shape = model.get_inputs()[0].shape
        stride = 0 if all(isinstance(d, int) for d in shape[2:]) else 32
        return cls(model, names, input_size(meta, default_imgsz), stride, model.get_inputs()[0].name)

    def raw(self, tensor: np.ndarray) -> np.ndarray:
        return self.model.run(None, {self.input_name: tensor})[0]

    def run(self, image: Image.Image, size: int, conf: float, iou: float) -> Detections:
        """Detections in ``image`` pixels from ``image`` letterboxed to ``size``."""
        tensor, lb = letterbox(image, size, self.stride)
        return unletterbox(decode_obb(self.raw(tensor), conf, iou), lb)

    def outsized_by(self, size: tuple[int, int]) -> bool:
        """Whether a photo of ``size`` is at least twice the input: smaller ones seen at another
        scale would hardly be sharper than at the input size."""
        return max(size) >= 2.0 * self.imgsz


def detect(image: Image.Image, detector: Detector, c: ReaderConfig) -> Detections:
    """Tile (and back) detections in ``image`` pixels (see the module's text)."""
    seed = c.fine_seed_conf if 0 < c.fine_seed_conf < c.det_conf else c.det_conf
    seen = detector.run(image, detector.imgsz, seed, c.det_iou)
    dets = seen[seen.confidence > c.det_conf] if len(seen) else seen
    if needs_closeup(dets, image.size, c):
        extra = closeup(image, detector, c)
        extra = extra[extra.boxes[:, 2] >= c.closeup_keep * max(image.size)] if len(extra) else extra
        dets = merge_detections([dets, extra], c.det_iou)
    if needs_zoom(dets, image.size, detector, c):
        zoomed = detector.run(image, zoom_size(image.size, zoom_factor(seen, image.size, detector, c), detector),
                              c.det_conf, c.det_iou)
        dets = merge_detections([dets, zoomed], c.det_iou)
    elif c.second_imgsz > 0 and detector.stride and detector.outsized_by(image.size):
        extra = detector.run(image, c.second_imgsz, max(c.det_conf, c.second_conf), c.det_iou)
        dets = merge_detections([dets, extra], c.det_iou)
    return drop_contained(drop_misshapen(dets, c.max_aspect), c.contain_ratio)


def needs_zoom(dets: Detections, size: tuple[int, int], detector: Detector, c: ReaderConfig) -> bool:
    """Whether the tiles seen are too small at the detector's input (or none were seen in a
    photo much bigger than it), in a photo big enough to zoom into."""
    if c.fine_max_zoom <= 1 or not detector.stride or not detector.outsized_by(size):
        return False
    if not len(dets):
        return max(size) >= 2.5 * detector.imgsz
    gain = detector.imgsz / max(size)
    return float(np.median(dets.boxes[:, 2])) * gain < c.fine_trigger_px


def zoom_factor(seen: Detections, size: tuple[int, int], detector: Detector, c: ReaderConfig) -> float:
    """The least zoom (``fine_min_zoom`` to ``fine_max_zoom``) at which the median tile seen
    reaches ``fine_trigger_px``."""
    top = max(2.0, c.fine_max_zoom)
    if not len(seen):
        return top
    median = float(np.median(seen.boxes[:, 2])) * detector.imgsz / max(size)
    return float(np.clip(c.fine_trigger_px / max(median, 1e-6), c.fine_min_zoom, top))


def zoom_size(size: tuple[int, int], zoom: float, detector: Detector) -> int:
    """The detector input for a whole-photo pass at ``zoom`` times its size: a multiple of the
    stride (ultralytics' rectangular letterbox pads to one only then), never more pixels than
    the photo has."""
    stride = detector.stride or 32
    cap = max(stride, max(size) // stride * stride)
    return min(math.ceil(detector.imgsz * zoom / stride) * stride, cap)


def needs_closeup(dets: Detections, size: tuple[int, int], c: ReaderConfig) -> bool:
    """Whether the whole-photo pass missed what a close-up shows: it found nothing, only weak
    finds (a tile filling the frame is often seen as nothing but a scrap at its edge), or a
    tile that fills much of the photo."""
    if c.closeup_zoom <= 1.0:
        return False
    return (not len(dets) or float(dets.confidence.max()) < c.closeup_weak
            or float(dets.boxes[:, 2].max()) > c.closeup_trigger * max(size))


def closeup(image: Image.Image, detector: Detector, c: ReaderConfig) -> Detections:
    """Detections from ``image`` shrunk to 1/``closeup_zoom`` of the detector's input, centred
    on a margin of its median border colour: a tile that fills the photo comes out the size the
    detector was trained on."""
    w, h = image.size
    (_, _), lb = letterbox_geometry(round(w * c.closeup_zoom), round(h * c.closeup_zoom), detector.imgsz,
                                    detector.stride)
    new_w, new_h = max(1, round(w * lb.gain)), max(1, round(h * lb.gain))
    small = np.asarray(image.convert("RGB").resize((new_w, new_h), Image.Resampling.BILINEAR, reducing_gap=3.0))
    border = np.concatenate([small[0], small[-1], small[:, 0], small[:, -1]])
    cw, ch = lb.shape
    canvas = np.empty((ch, cw, 3), np.uint8)
    canvas[:] = np.median(border, axis=0).astype(np.uint8)
    x0, y0 = (cw - new_w) // 2, (ch - new_h) // 2
    canvas[y0 : y0 + new_h, x0 : x0 + new_w] = small
    raw = detector.raw(input_tensor(canvas))
    placed = Letterbox(gain=new_w / w, pad_x=x0, pad_y=y0, size=lb.size, shape=lb.shape)
    return unletterbox(decode_obb(raw, c.det_conf, c.det_iou), placed)


def drop_misshapen(dets: Detections, max_aspect: float) -> Detections:
    """Drop boxes longer than ``max_aspect`` times their width (0: keep all). A flat tile is a
    2:1 rectangle and stays under about 5:1 seen at a slant; a longer, thinner box is the
    detector's phantom, often drawn over a whole row of tiles, which would swallow them
    (:func:`drop_contained`)."""
    if not len(dets) or max_aspect <= 0:
        return dets
    keep = dets.boxes[:, 2].astype(np.float64) <= max_aspect * np.maximum(dets.boxes[:, 3].astype(np.float64), 1e-6)
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


def padded_bounds(boxes: np.ndarray, pad: float, size: tuple[int, int]) -> Window:
    """The whole-pixel rectangle around every corner of ``boxes`` (rows cx, cy, length, width,
    angle), ``pad`` pixels wider on each side, clipped to an image of ``size``."""
    corners = obb_corners(np.asarray(boxes, np.float64)).reshape(-1, 2)
    w, h = size
    x0, y0 = (max(0, math.floor(v - pad)) for v in corners.min(0))
    x1, y1 = min(w, math.ceil(corners[:, 0].max() + pad)), min(h, math.ceil(corners[:, 1].max() + pad))
    return x0, y0, x1, y1


def doubt_region(doubt: Sequence[OrientedBox], size: tuple[int, int], detector: Detector,
                 c: ReaderConfig) -> tuple[Window, int] | None:
    """Where the second look goes (working pixels) and the detector input size for it: around
    the finds in ``doubt`` (working pixels; :func:`chickenfoot.vision.reader.in_doubt`), padded
    by ``doubt_pad`` median lengths; None when nothing is in doubt."""
    if c.doubt_below <= 0 or not detector.stride or not doubt:
        return None
    boxes = box_rows(doubt)
    median = float(np.median(boxes[:, 2]))
    x0, y0, x1, y1 = padded_bounds(boxes, c.doubt_pad * median, size)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    stride = detector.stride
    zoom = max(1.0, c.doubt_tile_px / max(median, 1e-6))
    want = math.ceil(max(x1 - x0, y1 - y0) * zoom / stride) * stride
    return (x0, y0, x1, y1), int(min(max(c.doubt_max_input // stride * stride, stride), max(want, stride)))


def look_again(image: Image.Image, dets: Detections, region: Window, size: int, detector: Detector,
               c: ReaderConfig) -> Detections:
    """``dets`` joined by what the detector sees in ``region`` of ``image`` fed at ``size`` (the
    same filters as :func:`detect` applied to the whole again)."""
    part = detector.run(image.crop(region), size, c.det_conf, c.det_iou)
    merged = merge_detections([dets, part.shifted(region[0], region[1])], c.det_iou)
    return drop_contained(drop_misshapen(merged, c.max_aspect), c.contain_ratio)
