"""What ``reader.json`` says: the model files and the settings the reader reads with.

The shipped ``models/`` folder holds the three ONNX files and ``reader.json``: the package
:mod:`chickenfoot.models`, beside this package both in an installed wheel
(``chickenfoot/models/`` beside ``chickenfoot/vision/``) and in a checkout (``models/`` beside
``vision/``). Every setting below is one the shipped reader uses; a number 0
(or 1 for the zooms) turns its step off, which is how the tests run each step alone.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from chickenfoot.rules import jsontext
from chickenfoot.rules.errors import ChickenFootError

_HERE = Path(__file__).resolve().parent


class ModelError(ChickenFootError):
    """The reader's model files are missing, damaged or do not match ``reader.json``."""


def shipped_models_dir() -> Path:
    """The models that came with the package (:mod:`chickenfoot.models`, the folder beside
    this package in a wheel and in a checkout alike)."""
    return _HERE.parent / "models"


#: The shipped models (see :func:`shipped_models_dir`).
MODELS_DIR = shipped_models_dir()


def resolve_models_dir(models_dir: str | os.PathLike[str] | None = None) -> Path:
    """``models_dir``, else ``$CHICKENFOOT_MODELS``, else the shipped models."""
    return Path(models_dir or os.environ.get("CHICKENFOOT_MODELS") or MODELS_DIR)


@dataclass(frozen=True)
class ReaderConfig:
    """The reader's model files and settings (see docs/vision-reading.md for each step)."""

    # -- the models and how they were trained
    detector: str = "tile_obb.onnx"
    classifier: str = "half_cls.onnx"
    #: Half reader for double-15 and double-18 sets (pip counts to 18); also the second opinion.
    classifier_wide: str = ""
    #: Pip count of each output of the two half readers, checked against their class names.
    cls_values: tuple[int, ...] = ()
    wide_values: tuple[int, ...] = ()
    #: Input sizes when the ONNX files do not say (ultralytics writes them into the metadata).
    det_imgsz: int = 640
    cls_imgsz: int = 64
    #: Halves are cut as the classifier's training halves were: a tile rectified to
    #: ``crop_size`` x ``2 crop_size`` with ``crop_pad`` of its size added around it.
    crop_size: int = 64
    crop_pad: float = 0.0
    max_value: int = 12
    #: Photos are decoded to at most this many pixels on the long side.
    decode_max_side: int = 1600
    threads: int = 2

    # -- detect
    det_conf: float = 0.25
    det_iou: float = 0.5
    #: A box longer than this many times its width is no flat tile (0: any shape).
    max_aspect: float = 0.0
    #: A detection whose centre lies on a surer tile it is under this share as long as is a pip,
    #: a glyph or a half of that tile (0: keep all).
    contain_ratio: float = 0.0
    #: Small-tile zoom: when the median tile seen is under ``fine_trigger_px`` at the detector's
    #: input, a photo at least twice that input is searched once more, zoomed by the least of
    #: ``fine_min_zoom`` .. ``fine_max_zoom`` that lifts the median to ``fine_trigger_px``.
    #: ``fine_seed_conf``: the detections the zoom's size is taken from (0: ``det_conf``).
    fine_max_zoom: float = 1.0
    fine_min_zoom: float = 2.0
    fine_trigger_px: float = 16.0
    fine_seed_conf: float = 0.0
    #: ``fine_trigger_px`` for photos of the whole table (0: the same as for hands).
    table_fine_trigger_px: float = 0.0
    #: Second scale: a photo at least twice the detector's input that needs no zoom is also
    #: searched at ``second_imgsz`` (0: off), keeping what it finds at ``second_conf`` or more.
    second_imgsz: int = 0
    second_conf: float = 0.0
    #: Close-up pass: when nothing is found, nothing surer than ``closeup_weak`` (0: off), or a
    #: tile longer than ``closeup_trigger`` of the photo's long side, the photo is also searched
    #: shrunk ``closeup_zoom`` times on a margin of its border colour, keeping boxes at least
    #: ``closeup_keep`` of the long side (<= 1: off).
    closeup_zoom: float = 0.0
    closeup_trigger: float = 0.5
    closeup_keep: float = 0.0
    closeup_weak: float = 0.0
    #: Second look: when tiles are counted under ``doubt_below`` or left unsure, the detector
    #: looks again at the part of the photo around them (``doubt_pad`` median tile lengths
    #: wider), enlarged so they come out ``doubt_tile_px`` long, at most ``doubt_max_input``.
    doubt_below: float = 0.0
    doubt_tile_px: float = 80.0
    doubt_pad: float = 1.0
    doubt_max_input: int = 832

    # -- read halves
    #: Box search: a tile read less surely than ``search_below`` is read again from its box moved
    #: along its axis by each of ``search_shifts`` (box lengths), and keeps the surest (0: off).
    #: Photos of the whole table get none: a box slid along a line reads the neighbour's half.
    search_below: float = 0.0
    search_shifts: tuple[float, ...] = ()
    #: Second opinion: halves the 0-12 classifier reads with a top probability under this are
    #: also read by the wide-set one, and the two pip-count distributions averaged (0: off).
    second_opinion_below: float = 0.0
    #: Steadiness: a tile counted under ``review_conf`` is read again from boxes moved as the
    #: detector's boxes err (:data:`chickenfoot.vision.read.STEADY_JITTER`); the policy counts it
    #: as read surely when each half keeps on average at least this probability of its value,
    #: and at least half of it in every box (0: off; :mod:`chickenfoot.vision.policy`).
    steady_conf: float = 0.0
    #: Face-down tiles: a tile read 0-0 whose middle shows less divider contrast than
    #: ``blank_divider_min`` is a back, unless its middle stands out ``blank_colour_min`` in
    #: colour across ``blank_colour_span_min`` of its width; also one whose divider strays from a
    #: straight line more than ``blank_wander_max`` of its length (0: that test off).
    blank_divider_min: float = 0.09
    blank_colour_min: float = 0.0
    blank_colour_span_min: float = 0.05
    blank_wander_max: float = 0.0

    # -- assemble
    #: Tiles read less surely than this are flagged for a second look (the CLI's CHECK, the
    #: app's orange outline).
    review_conf: float = 0.6
    #: Tiles read less surely than this are candidates, not counted (0: count everything).
    count_conf: float = 0.0
    #: A tile one of whose halves is at least this likely not pips (print, a back) is not
    #: counted (1 or more: off).
    not_pips_max: float = 1.0
    #: Of counted tiles overlapping by more than this share of the smaller, only the surest set
    #: that overlaps nowhere is counted (0: off).
    overlap_max: float = 0.0
    #: A hand photo whose counted tiles are, by their median, shorter than this (reader pixels)
    #: is asked to be taken closer (0: off).
    small_tile_px: float = 0.0
    #: A find the policy would set apart alone is asked about when it has a divider and lies
    #: among the hand's tiles at their size (:mod:`chickenfoot.vision.policy`; false: off).
    hand_asks: bool = False
    #: A find read 0-0 whose divider does not show is asked about ("the 0-0 or a face-down
    #: tile?") when the detector found it at least this surely; under it, it is a back (0: every
    #: such find is asked about).
    zero_or_back_conf: float = 0.0

    #: What ``reader.json`` records beyond the settings (training seeds, stage).
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def model_files(self) -> tuple[str, ...]:
        """The ONNX files this config names, in load order."""
        return (self.detector, self.classifier) + ((self.classifier_wide,) if self.classifier_wide else ())

    def __post_init__(self) -> None:
        if self.second_imgsz < 0 or self.second_imgsz % 32:
            # the letterbox pads to the stride only from a multiple of it
            raise ValueError(f"second_imgsz must be 0 or a multiple of 32, not {self.second_imgsz}")
        shifts = tuple(float(v) for v in self.search_shifts)
        if not all(math.isfinite(v) and abs(v) < 0.5 for v in shifts):
            raise ValueError("search_shifts must be numbers between -0.5 and 0.5 (box lengths)")
        object.__setattr__(self, "search_shifts", shifts)
        object.__setattr__(self, "cls_values", tuple(int(v) for v in self.cls_values))
        object.__setattr__(self, "wide_values", tuple(int(v) for v in self.wide_values))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ReaderConfig:
        known = {f.name for f in fields(cls)} - {"extra"}
        kw: dict[str, Any] = {}
        defaults = cls()
        for name in known & data.keys():
            kind = type(getattr(defaults, name))
            value = data[name]
            if kind is bool and not isinstance(value, bool):
                raise ValueError(f"{name} must be true or false")
            kw[name] = kind(value)
        return cls(**kw, extra={k: v for k, v in data.items() if k not in known})

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> ReaderConfig:
        p = Path(path)
        try:
            data = jsontext.loads(p.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ModelError(f"{p}: no reader.json (models not installed?)") from None
        except (OSError, ValueError, jsontext.JSONLimitError) as exc:
            raise ModelError(f"{p}: unreadable reader config ({exc})") from None
        if not isinstance(data, dict):
            raise ModelError(f"{p}: reader config must be a JSON object")
        try:
            return cls.from_dict(data)
        except (TypeError, ValueError) as exc:
            raise ModelError(f"{p}: bad value in reader config ({exc})") from None
