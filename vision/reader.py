"""Photo in, tiles out: the reader wires the stages to the models ``reader.json`` names.

1. load (:mod:`chickenfoot.vision.images`): decode, turn upright, shrink to the working size;
2. detect (:mod:`chickenfoot.vision.detect`): oriented tile boxes, over the passes the photo needs;
3. read halves (:mod:`chickenfoot.vision.read`): each face-up tile cut into halves, each half read as a pip
   count (:mod:`chickenfoot.vision.halves`), weak boxes searched, face-down tiles set apart;
4. assemble (:mod:`chickenfoot.vision.assemble`): which tiles count, their pips and penalty by the rules,
   and the warnings; then a second look where the reading is in doubt, and the wide-set
   classifier's second opinion on unsure halves;
5. for a photo of the table, :mod:`chickenfoot.vision.table` connects the tiles into a layout.

Each stage is a function of arrays and :class:`~chickenfoot.vision.detections.Detections`; the
:class:`Reader` holds the models and the config and passes them along. No torch and no
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

from .assemble import assemble, big_set_warning, small_tiles_warning
from .config import ModelError, ReaderConfig, resolve_models_dir
from .detect import Detector, detect, doubt_region, look_again
from .detections import Detections
from .geometry import OrientedBox
from .halves import HalfReader, SecondOpinion, choose_values, pip_probs, split_not_pips
from .images import LoadedImage, Source, load_image
from .read import flat, read_added, read_tiles, second_opinion_of
from .reading import Reading, TileReading
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
        taken closer)."""
        c = self.config
        table = dataclasses.replace(
            c, fine_trigger_px=c.table_fine_trigger_px if c.table_fine_trigger_px > 0 else c.fine_trigger_px,
            search_below=0.0, small_tile_px=0.0)
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

    def load(self, source: Source | LoadedImage) -> LoadedImage:
        if isinstance(source, LoadedImage):
            return source
        return load_image(source, self.config.decode_max_side)

    def detect(self, image: Image.Image) -> Detections:
        return detect(image, self.detector, self.config)

    def read(self, source: Source | LoadedImage, rules: RuleSet | None = None, top: int | None = None) -> Reading:
        """Read every face-up tile in a photo and score it with ``rules`` (default preset).

        ``top``: the set in play is double-``top`` (the table knows; the photo may not), so no
        half is read as more pips; default ``rules.set`` when the rules fix the set.
        """
        c = self.config
        rules = rules or get_rules()
        t0 = time.perf_counter()
        loaded = self.load(source)
        image = loaded.image
        t1 = time.perf_counter()
        dets = detect(image, self.detector, c)
        t2 = time.perf_counter()
        top = rules.set if top is None else top
        halves = self.half_reader(top)
        second = self._second(halves)
        read = read_tiles(image, dets, halves, c, top, second)
        reading = self._judge(loaded, read, dets, rules, halves)
        t3 = time.perf_counter()
        timings = {"decode": (t1 - t0) * 1e3, "detect": (t2 - t1) * 1e3, "halves": (t3 - t2) * 1e3}
        region = doubt_region(reading, loaded.scale, image.size, self.detector, c)
        if region is not None:  # a second look where the reading is in doubt
            t3 = time.perf_counter()
            merged = look_again(image, dets, *region, self.detector, c)
            t4 = time.perf_counter()
            again = read_added(image, read, dets, merged, halves, c, top, second)
            if again is not None:
                read, dets = again, merged
                reading = self._judge(loaded, read, dets, rules, halves)
            timings["detect"] += (t4 - t3) * 1e3
            timings["halves"] += (time.perf_counter() - t4) * 1e3
        # last, so the box search and the second look go where the 0-12 classifier alone
        # doubts, as they were tuned to
        t5 = time.perf_counter()
        final = second_opinion_of(image, read, halves, second, c, top)
        if final is not read:
            reading = self._judge(loaded, final, dets, rules, halves)
        timings["halves"] += (time.perf_counter() - t5) * 1e3
        warnings = (reading.warnings + small_tiles_warning(reading, loaded.scale, c.small_tile_px)
                    + big_set_warning(top, halves.top))
        return dataclasses.replace(reading, timings_ms=timings, warnings=warnings)

    def _judge(self, loaded: LoadedImage, read: Detections, dets: Detections, rules: RuleSet,
               halves: HalfReader) -> Reading:
        """The reading of tiles whose halves are read (``read``, from ``dets``: the detections
        not among them are face-down tiles): which count, pips and penalty."""
        c = self.config
        probs, not_pips = split_not_pips(flat(read, "probs"), halves.values)
        down = np.ones(len(dets), bool)
        down[read.data["row"]] = False
        backs = [b.scaled(1.0 / loaded.scale) for b in dets[down].oriented_boxes()]
        return assemble(read, probs, halves.values, to_original=1.0 / loaded.scale, image_size=loaded.original_size,
                        review_conf=c.review_conf, rules=rules, count_conf=c.count_conf,
                        choice=flat(read, "choice"), not_pips=not_pips, not_pips_max=c.not_pips_max,
                        overlap_max=c.overlap_max, ask=read.data.get("ask"), backs=backs)

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
