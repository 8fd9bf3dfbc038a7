"""Half crops for the pip-count classifier, cut from rendered photos the way the reader cuts them.

Each rendered photo is JPEG-compressed, then every tile is cut out with
``chickenfoot.vision.geometry.rectify`` on its true box jittered like a detector's error (centre, size,
angle, and which end comes first, since a detector's box does not know end A from end B), and
split with ``split_halves``. So at run time the classifier sees what it was trained on.

``python -m chickenfoot.vision.lab.datasets.halves --out DIR --count N --seed S`` writes an ultralytics classify
dataset: ``DIR/{train,val}/<pips>/*.png``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np
from PIL import Image

from chickenfoot.vision.geometry import OrientedBox, rectify, split_halves
from chickenfoot.vision.lab.datasets.render import (
    BACK,
    DEFAULT_GRAY_CONTRAST,
    DEFAULT_PIP_CONTRAST,
    SceneConfig,
    jpeg_roundtrip,
    render_scene,
)

_SIZES = ((960, 720), (960, 540), (720, 960), (800, 800), (640, 480))
#: Tile lengths (px, log-uniform) of the photos halves are cut from, unless a pass says otherwise.
TILE_PX = (28.0, 220.0)


def jitter_box(rng: np.random.Generator, box: OrientedBox, strength: float = 1.0) -> tuple[OrientedBox, bool]:
    """A detector-like estimate of ``box``; the flag says the ends came out swapped."""
    s = strength
    flipped = bool(rng.random() < 0.5)
    return OrientedBox(
        box.cx + rng.normal(0, 0.035 * s) * box.width,
        box.cy + rng.normal(0, 0.035 * s) * box.width,
        box.length * (1 + rng.normal(0, 0.04 * s)),
        box.width * (1 + rng.normal(0, 0.05 * s)),
        box.angle + rng.normal(0, 0.03 * s) + (math.pi if flipped else 0.0),
    ), flipped


def scene_halves(rng: np.random.Generator, crop_size: int, pad: float, max_value: int,
                 tile_px: tuple[float, float] = TILE_PX, jitter: float = 1.0,
                 pip_contrast: float = 0.0, gray_contrast: float = 0.0, blanks: float = 0.0,
                 backs: float = 0.0) -> list[tuple[Image.Image, int]]:
    """Render one photo and return its half crops with their pip counts. ``blanks``: the share
    of tiles given a blank half (``SceneConfig.blanks``); ``backs``: the share of face-down
    tiles (boneyards of plain and printed backs, as with hard cases) whose halves are kept, as
    :data:`BACK` (class ``x``)."""
    w, h = _SIZES[int(rng.integers(len(_SIZES)))]
    img, labels = render_scene(rng, SceneConfig(width=w, height=h, tile_px=tile_px, max_value=max_value,
                                                uniform_values=True, pip_contrast=pip_contrast,
                                                gray_contrast=gray_contrast, blanks=blanks,
                                                hard_cases=backs > 0, back_labels=backs > 0))
    img = jpeg_roundtrip(img, int(rng.integers(35, 96)))
    out: list[tuple[Image.Image, int]] = []
    for t in labels:
        if t.a == BACK and rng.random() >= backs:
            continue
        box, flipped = jitter_box(rng, t.box(), jitter)
        # pad varies around the reader's so whole-tile crops (pad 0) read as well
        p = max(0.0, pad + rng.uniform(-0.06, 0.06))
        ha, hb = split_halves(rectify(img, box, size=crop_size, pad=p))
        va, vb = (t.b, t.a) if flipped else (t.a, t.b)
        out.append((ha, va))
        out.append((hb, vb))
    return out


def render_halves(out: Path, count: int, seed: int, crop_size: int = 64, pad: float = 0.06,
                  max_value: int = 12, val_frac: float = 0.1, log_every: int = 0,
                  jitter: float = 1.0, pip_contrast: float = 0.0, gray_contrast: float = 0.0,
                  tile_px: tuple[float, float] = TILE_PX, blanks: float = 0.0,
                  backs: float = 0.0) -> dict[str, object]:
    """Write at least ``count`` half crops (train + val); val comes from separate photos, whose
    tiles are ``tile_px`` long (log-uniform). With ``backs``, halves of face-down tiles go to
    class ``x`` (counted last in ``per_class``)."""
    out = Path(out)
    names = [str(v) for v in range(max_value + 1)] + (["x"] if backs > 0 else [])
    for split in ("train", "val"):
        for name in names:
            (out / split / name).mkdir(parents=True, exist_ok=True)
    n_val_target = int(count * val_frac)
    per_class = {"train": [0] * len(names), "val": [0] * len(names)}
    written, scene, t0 = 0, 0, time.time()
    while written < count:
        split = "val" if written < n_val_target else "train"
        rng = np.random.default_rng([seed, scene])
        for k, (img, v) in enumerate(scene_halves(rng, crop_size, pad, max_value, tile_px=tile_px, jitter=jitter,
                                                  pip_contrast=pip_contrast, gray_contrast=gray_contrast,
                                                  blanks=blanks, backs=backs)):
            img.save(out / split / names[v] / f"{seed}_{scene:06d}_{k:02d}.png", compress_level=1)
            per_class[split][v] += 1
            written += 1
        scene += 1
        if log_every and scene % log_every == 0:
            print(f"  {written}/{count} halves from {scene} photos ({time.time() - t0:.0f} s)", flush=True)
    return {"halves": written, "photos": scene, "per_class": per_class}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m chickenfoot.vision.lab.datasets.halves", description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--crop-size", type=int, default=64)
    ap.add_argument("--pad", type=float, default=0.06)
    ap.add_argument("--max-value", type=int, default=12)
    ap.add_argument("--pip-contrast", type=float, default=DEFAULT_PIP_CONTRAST, metavar="D",
                    help="least RGB distance between pips and the tile face (default %(default)s; "
                         "0 renders as the shipped classifier's training data)")
    ap.add_argument("--gray-contrast", type=float, default=DEFAULT_GRAY_CONTRAST, metavar="L",
                    help="least luma difference between pips and the face in photos that go grayscale "
                         "(default %(default)s; 0 renders as the shipped classifier's training data)")
    ap.add_argument("--blanks", type=float, default=0.0,
                    help="share of tiles given a blank half, a third of them 0-0 (default 0)")
    ap.add_argument("--backs", type=float, default=0.0,
                    help="share of face-down tiles whose halves are written as class x (default 0: none)")
    args = ap.parse_args(argv)
    t0 = time.time()
    stats = render_halves(args.out, args.count, args.seed, args.crop_size, args.pad, args.max_value, log_every=50,
                          pip_contrast=args.pip_contrast, gray_contrast=args.gray_contrast, blanks=args.blanks,
                          backs=args.backs)
    print(json.dumps({**stats, "seconds": round(time.time() - t0, 1)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
