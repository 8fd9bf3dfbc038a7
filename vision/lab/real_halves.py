"""Half crops cut from the labelled real photos of chosen sources, for a half reader pass.

``python -m chickenfoot.vision.lab.real_halves --out DIR --sources TAK1EDD1NE Funallingus``

A pass trains on whole sources (folders of ``../shared/realdata``) and never on a photo of the
others, so the real figures ``chickenfoot.vision.lab.evaluate`` prints afterwards come from sets
the model has never seen: every file of a training source goes to ``reader.json``'s
``finetuned_on``, which the evaluation leaves out.

Each labelled tile is found where the reader finds it (its detector's box, the error the half
reader meets at run time), is the whole crop for tight single-tile crops, or is cut from its
labelled oriented box where the labels say which end holds which value (Ruxi12). Which end carries
which labelled value is taken from the reader's own reading where one half agrees with the
label; a tile whose reading agrees with neither labelled value is left out rather than guessed.
Each tile is then cut ``copies`` times from its box jittered like a detector's error
(:func:`chickenfoot.vision.lab.datasets.halves.jitter_box`), some copies in grey, into an
ultralytics classify folder ``DIR/train/<pips>/``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageOps

from chickenfoot.vision.geometry import OrientedBox, rectify, split_halves
from chickenfoot.vision.images import ImageError, load_image
from chickenfoot.vision.lab.datasets.halves import jitter_box
from chickenfoot.vision.lab.realdata import Sample, half_crop_samples, real_samples, realdata_root
from chickenfoot.vision.lab.tally import IOU_THRESHOLD, aabb_iou
from chickenfoot.vision.reader import Reader
from chickenfoot.vision.reading import TileReading

#: Share of copies cut from a grey version of the photo (real sets are read in grey too).
GREY_SHARE = 0.15


@dataclass(frozen=True)
class RealTile:
    """One labelled real tile: the photo, its box (working pixels) and the values at ends A and B."""

    image: Image.Image
    box: OrientedBox
    a: int
    b: int


def oriented(reading: TileReading, label: tuple[int, int]) -> tuple[int, int] | None:
    """The labelled values at ends A and B of ``reading``'s box: the end whose read value is one
    of the label's takes it. None when neither end agrees (the label cannot be placed)."""
    x, y = label
    if x == y:
        return x, y
    if reading.a == x or reading.b == y:
        return x, y
    if reading.a == y or reading.b == x:
        return y, x
    return None


def tiles_of(sample: Sample, reader: Reader) -> tuple[list[RealTile], int]:
    """The labelled tiles of one real sample that could be placed, and how many could not."""
    try:
        loaded = load_image(sample.path, reader.config.decode_max_side)
    except ImageError:
        return [], len(sample.tiles)
    img, s = loaded.image, loaded.scale
    if sample.kind == "tile-crop":
        # tight crop of one upright tile, half A at the top
        w, h = img.size
        a, b = sample.tiles[0]
        return [RealTile(img, OrientedBox(w / 2, h / 2, h, w, np.pi / 2), a, b)], 0
    if sample.kind == "boxes-oriented":
        # each box's ends are labelled (Ruxi12): cut where the labels say, as the detector's
        # error is added by the jitter of each copy
        return [RealTile(img, box.scaled(s), a, b) for (a, b), box in zip(sample.tiles, sample.boxes, strict=True)], 0
    reading = reader.read(loaded)
    found = [t for t in (*reading.tiles, *reading.candidates) if t.box is not None]
    out: list[RealTile] = []
    if sample.kind == "tile-crop-loose":
        if not found:
            return [], 1
        best = max(found, key=lambda t: t.confidence)
        ends = oriented(best, sample.tiles[0])
        if ends is None:
            return [], 1
        return [RealTile(img, best.box.scaled(s), *ends)], 0
    if sample.kind != "boxes-aabb":
        raise ValueError(f"{sample.rel}: {sample.kind} labels give no tile values to train on")
    missed = 0
    for label, gt in zip(sample.tiles, sample.boxes, strict=True):
        scored = [(aabb_iou(t.box.aabb(), gt), t) for t in found]
        iou, best = max(scored, key=lambda p: p[0], default=(0.0, None))
        ends = oriented(best, label) if best is not None and iou >= IOU_THRESHOLD else None
        if ends is None:
            missed += 1
            continue
        out.append(RealTile(img, best.box.scaled(s), *ends))
    return out, missed


def cut(tile: RealTile, rng: np.random.Generator, copies: int, crop_size: int, pad: float,
        jitter: float) -> list[tuple[Image.Image, int]]:
    """``copies`` jittered cuts of a tile's two halves, with their pip counts."""
    grey = ImageOps.grayscale(tile.image).convert("RGB")
    out: list[tuple[Image.Image, int]] = []
    for _ in range(copies):
        box, flipped = jitter_box(rng, tile.box, jitter)
        p = max(0.0, pad + rng.uniform(-0.06, 0.06))
        src = grey if rng.random() < GREY_SHARE else tile.image
        ha, hb = split_halves(rectify(src, box, size=crop_size, pad=p))
        va, vb = (tile.b, tile.a) if flipped else (tile.a, tile.b)
        out += [(ha, va), (hb, vb)]
    return out


def matches_source(rel: str, sources: list[str]) -> bool:
    folder = rel.split("/", 1)[0]
    return any(folder.startswith(s) for s in sources)


def write_real_halves(out: Path, sources: list[str], reader: Reader, copies: int = 8, seed: int = 0,
                      crop_size: int = 64, pad: float = 0.06, jitter: float = 1.0,
                      root: Path | None = None) -> dict[str, Any]:
    """Write the half crops of every labelled tile of ``sources`` into ``out/train/<pips>/`` and
    return what was written, with ``files``: every file of those sources (trained on or not),
    relative to the realdata folder, for ``finetuned_on``."""
    root = root or realdata_root()
    if not root.exists():
        raise SystemExit(f"{root}: no real photos (set CHICKENFOOT_REALDATA)")
    rng = np.random.default_rng(seed)
    samples = [s for s in real_samples(root) if matches_source(s.rel, sources)]
    if not samples:
        raise SystemExit(f"no labelled real photos in sources {sources} under {root}")
    files = sorted({s.rel for s in samples}
                   | {rel for _, _, rel in half_crop_samples(root) if matches_source(rel, sources)})
    per_value: Counter[int] = Counter()
    tiles = missed = 0
    for i, sample in enumerate(s for s in samples
                               if s.kind in ("tile-crop", "tile-crop-loose", "boxes-aabb", "boxes-oriented")):
        placed, lost = tiles_of(sample, reader)
        missed += lost
        for j, tile in enumerate(placed):
            tiles += 1
            for k, (img, v) in enumerate(cut(tile, rng, copies, crop_size, pad, jitter)):
                d = out / "train" / str(v)
                d.mkdir(parents=True, exist_ok=True)
                img.save(d / f"real_{i:04d}_{j:02d}_{k:02d}.png", compress_level=1)
                per_value[v] += 1
    return {"sources": sources, "tiles": tiles, "tiles_not_placed": missed, "halves": sum(per_value.values()),
            "per_value": {str(k): per_value[k] for k in sorted(per_value)}, "files": files}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m chickenfoot.vision.lab.real_halves",
                                 description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--sources", nargs="+", required=True, help="realdata folder names (or their starts)")
    ap.add_argument("--copies", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--models", type=Path, default=None, help="reader that places the tiles (default: shipped)")
    args = ap.parse_args(argv)
    st = write_real_halves(args.out, args.sources, Reader.from_models_dir(args.models), args.copies, args.seed)
    print(json.dumps({k: v for k, v in st.items() if k != "files"} | {"files": len(st["files"])}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
