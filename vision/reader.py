"""Photo in, tiles out: the reader wires the stages to the models ``reader.json`` names.

:meth:`Reader.read` is one straight line of stages (:data:`STAGES`), each run once a photo and
each a function of arrays and :class:`~chickenfoot.vision.detections.Detections`:

1. load (:mod:`chickenfoot.vision.images`): decode, turn upright, shrink to the working size;
2. detect (:mod:`chickenfoot.vision.detect`): oriented boxes of face-up tiles and backs, over the
   passes the photo needs (zoom, second scale, close-up);
3. crop and read halves (:mod:`chickenfoot.vision.read`, :mod:`chickenfoot.vision.halves`): each
   face-up find cut into halves, each half read as a pip count;
4. judge the 0-0s: whether a divider shows on finds read 0-0 (the extra looks leave possible
   backs alone);
5. box search: weak finds read again from boxes moved along their axis;
6. second look: the detector again where the reading is in doubt; what it adds is read as in 3-5;
7. second opinion: the wide-set classifier on halves the 0-12 one is unsure of;
8. judge: the divider where the looks changed a find, and on the finds the policy may ask about;
9. steadiness: finds read under ``review_conf`` read again from boxes moved a little;
10. policy (:mod:`chickenfoot.vision.policy`): for every find, counted, asked about or set apart,
    and its reason; nothing before it decides;
11. reading (:mod:`chickenfoot.vision.assemble`): the tiles, their pips and penalty by the rules,
    and warnings that say each find's reason.

For a photo of the table, :mod:`chickenfoot.vision.table` then connects the tiles into a layout.
The :class:`Reader` holds the models and the config and passes them along. No torch and no
OpenCV: numpy, Pillow and onnxruntime only.
"""

from __future__ import annotations

import dataclasses
import math
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from chickenfoot.rules.ruleset import RuleSet, get_rules

from .assemble import big_set_warning, reading_of, small_tiles_warning
from .config import ModelError, ReaderConfig, resolve_models_dir
from .detect import TILE_CLASS, Detector, detect, doubt_region, look_again
from .detections import Detections
from .geometry import OrientedBox
from .halves import HalfReader, SecondOpinion, choose_values, pip_probs, split_not_pips
from .images import LoadedImage, Source, load_image
from .policy import Find, Policy, Verdict, decide, unexplained
from .read import (
    STEADY_MOST,
    face_up_finds,
    finds_of,
    judge,
    read_added,
    read_halves,
    search,
    second_opinion,
    steadiness,
)
from .reading import Reading, Reason, TileReading
from .runtime import open_models

__all__ = ["ModelError", "Reader", "ReaderConfig", "Reading", "TileReading", "resolve_models_dir"]


class Reader:
    """The tile reader: ``Reader.from_models_dir().read("photo.jpg")``."""

    def __init__(self, config: ReaderConfig, detector: Any, classifier: Any, models_dir: Path | None = None,
                 wide: Any = None) -> None:
        self.config = config
        self.models_dir = models_dir
        self.detector = Detector.of(detector, config.det_imgsz)
        self.halves = HalfReader.of(classifier, config.cls_imgsz, config.max_value, config.cls_values)
        self.wide = None if wide is None else HalfReader.of(
            wide, config.cls_imgsz, config.max_value, config.wide_values, "wide-set classifier")
        self.second = SecondOpinion.of(self.halves, self.wide, config.second_opinion_below)

    @classmethod
    def from_models_dir(cls, models_dir: str | os.PathLike[str] | None = None,
                        config_file: str | os.PathLike[str] | None = None) -> Reader:
        """Load ``reader.json`` (or ``config_file``) and the ONNX models it names from
        ``models_dir`` (default: the shipped models)."""
        base = resolve_models_dir(models_dir)
        config = ReaderConfig.load(Path(config_file) if config_file else base / "reader.json")
        models = open_models([base / f for f in config.model_files], config.threads)
        return cls(config, models[0], models[1], base, wide=models[2] if config.classifier_wide else None)

    def with_config(self, config: ReaderConfig) -> Reader:
        """The same loaded models read with other settings."""
        wide = None if self.wide is None else self.wide.model
        return type(self)(config, self.detector.model, self.halves.model, self.models_dir, wide=wide)

    def for_table(self) -> Reader:
        """This reader with the settings for a photo of the whole table: a stronger zoom
        (``table_fine_trigger_px``: one tile missed there cuts off every tile played beyond
        it), no box search (a box slid along a line of touching tiles reads surely as the next
        tile's half and its neighbour's), and no small-tile warning (a whole layout cannot be
        taken closer), and no questions from the hand rule (the table reader fills a layout's
        gaps from the finds set apart)."""
        c = self.config
        table = dataclasses.replace(
            c, fine_trigger_px=c.table_fine_trigger_px if c.table_fine_trigger_px > 0 else c.fine_trigger_px,
            search_below=0.0, small_tile_px=0.0, hand_asks=False)
        return self if table == c else self.with_config(table)

    @property
    def values(self) -> np.ndarray:
        """Pip count of each output of the 0-12 half reader."""
        return self.halves.values

    @property
    def cls_imgsz(self) -> int:
        return self.halves.imgsz

    def half_reader(self, top: int | None) -> HalfReader:
        """The classifier for a double-``top`` set: the 0-12 one unless the set has halves it
        cannot read and the wide-set one can."""
        if top is not None and top > self.halves.top and self.wide is not None:
            return self.wide
        return self.halves

    def readable_top(self, top: int | None) -> int:
        """The most pips a half can be read as for a double-``top`` set."""
        return self.half_reader(top).top

    def _second(self, halves: HalfReader) -> SecondOpinion | None:
        return self.second if halves is self.halves else None

    @property
    def model_bytes(self) -> int:
        """Bytes of the model files on disk (0 when built from models in memory)."""
        if self.models_dir is None:
            return 0
        paths = [self.models_dir / f for f in self.config.model_files]
        return sum(p.stat().st_size for p in paths if p.exists())

    def load(self, source: Source | LoadedImage, name: str | None = None) -> LoadedImage:
        """``source`` decoded for reading; ``name`` (a file's name) is what its errors call it."""
        if isinstance(source, LoadedImage):
            return source
        return load_image(source, self.config.decode_max_side, name=name)

    def detect(self, image: Image.Image) -> Detections:
        return detect(image, self.detector, self.config)

    def policy(self, rules: RuleSet, sets: int = 1) -> Policy:
        """The settings the policy stage decides by, for a hand scored with ``rules`` from ``sets`` sets."""
        return Policy.of(self.config, rules, sets)

    def read(self, source: Source | LoadedImage, rules: RuleSet | None = None, top: int | None = None,
             sets: int = 1) -> Reading:
        """Read every face-up tile in a photo and score it with ``rules`` (default preset).

        ``top``: the set in play is double-``top`` (the table knows; the photo may not), so no
        half is read as more pips; default ``rules.set`` when the rules fix the set.
        ``sets``: how many sets are mixed in the photo (Chicken Foot deals from one: a tile
        counted twice is asked about once; 0: no limit).

        The stages run once each, in this order (:data:`STAGES`); each extra look is a stage of
        its own, and only the policy decides what counts.
        """
        c = self.config
        rules = rules or get_rules()
        top = rules.set if top is None else top
        halves = self.half_reader(top)
        second = self._second(halves)
        clock = _Clock()
        loaded = clock("decode", self.load, source)
        image, to_original = loaded.image, 1.0 / loaded.scale
        dets = clock("detect", detect, image, self.detector, c)
        finds = clock("halves", read_halves, image, face_up_finds(dets), halves, c, top, second is not None)
        finds = clock("halves", judge, image, finds, halves.values, c, everything=False)
        finds = clock("halves", search, image, finds, halves, c, top)
        # the second look goes where the policy, as things stand, would count a find unsurely
        # or set it apart as unsure (asked about by the hand's rule or not: it was tuned so)
        doubt = in_doubt(finds_of(finds, halves.values, to_original),
                         dataclasses.replace(self.policy(rules), hand_asks=False), c.doubt_below)
        region = doubt_region([b.scaled(loaded.scale) for b in doubt], image.size, self.detector, c)
        if region is not None:
            merged = clock("detect", look_again, image, dets, *region, self.detector, c)
            again = clock("halves", read_added, image, finds, dets, merged, halves, c, top, second is not None)
            if again is not None:
                finds, dets = again, merged
        # last, so the box search and the second look go where the 0-12 classifier alone
        # doubts, as they were tuned to
        finds = clock("halves", second_opinion, image, finds, halves, second, c, top)
        finds = clock("halves", judge, image, finds, halves.values, c)
        policy = self.policy(rules, sets)
        found = finds_of(finds, halves.values, to_original)
        which = to_steady(found, policy)
        if which:  # the finds again, with what the stage measured
            finds = clock("halves", steadiness, image, finds, which, halves, second, c)
            found = finds_of(finds, halves.values, to_original)
        decisions = decide(found, policy)
        backs = [b.scaled(to_original) for b in dets[dets.class_id != TILE_CLASS].oriented_boxes()]
        reading = reading_of(found, decisions, rules, loaded.original_size, c.review_conf, backs)
        warnings = (reading.warnings + small_tiles_warning(reading, loaded.scale, c.small_tile_px)
                    + big_set_warning(top, halves.top))
        return dataclasses.replace(reading, timings_ms=clock.ms, warnings=warnings)

    def classify(self, batch: np.ndarray, halves: HalfReader | None = None) -> np.ndarray:
        """Probabilities per half crop as the reader reads them: by ``halves`` (default the
        0-12 classifier), with the second opinion where it applies."""
        halves = halves or self.halves
        probs = halves.classify(batch)
        second = self._second(halves)
        return probs if second is None else second(batch, probs, halves.values)

    def look_at(self, source: Source | LoadedImage, boxes: Sequence[OrientedBox],
                top: int | None = None) -> list[TileReading]:
        """Read the halves of a tile at each of ``boxes`` (original pixels, half A at the box's
        -length/2 end), where something other than the detector says a tile must lie (see
        :func:`chickenfoot.vision.table.read_table`). Every reading is flagged for review and has detection
        confidence 0."""
        if not boxes:
            return []
        loaded = self.load(source)
        s = loaded.scale
        dets = Detections.from_boxes([b.scaled(s) for b in boxes], np.ones(len(boxes)))
        h = self.half_reader(top)
        probs = self.classify(h.crop(loaded.image, dets, self.config.crop_size, self.config.crop_pad), h)
        choice = choose_values(probs, h.values, top)
        probs, not_pips = split_not_pips(probs, h.values)
        out = []
        for i, box in enumerate(dets.oriented_boxes()):
            pa, pb = float(probs[2 * i, choice[2 * i]]), float(probs[2 * i + 1, choice[2 * i + 1]])
            out.append(TileReading(int(h.values[choice[2 * i]]), int(h.values[choice[2 * i + 1]]), pa * pb,
                                   box.scaled(1.0 / s), True, 0.0, (pa, pb),
                                   not_pips=None if not_pips is None else float(not_pips[i])))
        return out

    def read_tile_crop(self, source: Source | LoadedImage) -> tuple[int, int, float]:
        """Read an image that holds exactly one tile, long axis vertical (a single-tile crop):
        the whole image is taken as the tile's box. Returns ``(top value, bottom value,
        confidence)``."""
        loaded = self.load(source)
        w, h = loaded.image.size
        box = OrientedBox(w / 2, h / 2, float(max(w, h)), float(min(w, h)), math.pi / 2 if h >= w else 0.0)
        probs = self.classify(self.halves.crop(loaded.image, Detections.from_boxes([box], [1.0]),
                                               self.config.crop_size, 0.0))
        top = choose_values(probs, self.values)
        probs = pip_probs(probs, self.values)
        return int(self.values[top[0]]), int(self.values[top[1]]), float(probs[0, top[0]] * probs[1, top[1]])

    def read_half_crop(self, images: Sequence[Image.Image]) -> list[tuple[int, float]]:
        """Classify square half crops (divider at the bottom) directly."""
        s = self.cls_imgsz
        batch = np.stack([
            np.asarray(im.convert("RGB").resize((s, s), Image.Resampling.BILINEAR)) for im in images
        ]).transpose(0, 3, 1, 2).astype(np.float32) / np.float32(255.0)
        probs = self.classify(np.ascontiguousarray(batch))
        top = choose_values(probs, self.values)
        probs = pip_probs(probs, self.values)
        return [(int(self.values[k]), float(probs[i, k])) for i, k in enumerate(top)]


#: The stages of :meth:`Reader.read`, in order (see the module's text).
STAGES = ("load", "detect", "crop and read halves", "judge the 0-0s", "box search", "second look",
          "second opinion", "judge", "steadiness", "policy", "reading")


def in_doubt(finds: Sequence[Find], policy: Policy, below: float) -> list[OrientedBox]:
    """The boxes of ``finds`` the second look goes to: finds the policy, as they
    stand, would count under ``below`` or set apart as too unsure (never a possible back, nor print)."""
    if below <= 0:
        return []
    # a second copy of a tile is doubt only as its own reading is: copies are judged after the look
    return [f.box for f, d in zip(finds, decide(finds, dataclasses.replace(policy, copies=0)), strict=True)
            if (d.verdict is Verdict.COUNT and f.confidence < below) or d.reason is Reason.UNSURE]


def to_steady(finds: Sequence[Find], policy: Policy) -> list[int]:
    """Which of ``finds`` the steadiness stage reads again: those the policy, as they stand,
    would flag low; none while a tile-like find is unexplained (the policy then counts no find
    as steady), nor where more than :data:`~chickenfoot.vision.read.STEADY_MOST` would be, nor
    when the policy counts none as steady (``steady_conf`` 0)."""
    if policy.steady_conf <= 0:
        return []
    decisions = decide(finds, policy)
    if unexplained(finds, decisions):
        return []
    low = [k for k, d in enumerate(decisions) if d.reason is Reason.LOW]
    return low if len(low) <= STEADY_MOST else []


class _Clock:
    """Milliseconds spent per stage group (decode, detect, halves), as the bench reports them."""

    def __init__(self) -> None:
        self.ms: dict[str, float] = {"decode": 0.0, "detect": 0.0, "halves": 0.0}

    def __call__(self, name: str, fn: Any, *args: Any, **kw: Any) -> Any:
        t = time.perf_counter()
        try:
            return fn(*args, **kw)
        finally:
            self.ms[name] += (time.perf_counter() - t) * 1e3
