"""Training data for the box refiner: views around jittered tile boxes, and the correction
that moves each box onto its tile, deterministic from a seed.

``python -m datasets.boxes --out boxes.npz --scenes N --seed S`` writes ``x`` (uint8, N x 64 x 32
x 3: :func:`vision.geometry.refine_view` of each jittered box) and ``y`` (float32, N x 2:
:func:`vision.geometry.box_correction`, the shift along the box in box lengths and the log of
the length ratio). Scene ``i`` comes from ``default_rng([seed, i])``.

The jitter is wider than the detector's typical error (length x exp(N(0.04, 0.15)), centre
N(0, 0.12) lengths along and N(0, 0.03) widths across, ends swapped half the time) so the
refiner also learns the tail the reader gets wrong: boxes that run into a touching neighbour
in a line, or stop short of a tile's end.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

from datasets.render import DEFAULT_PIP_CONTRAST, SceneConfig, jpeg_roundtrip, render_scene
from vision.geometry import REFINE_VIEW_SIZE, OrientedBox, box_correction, refine_view

_SIZES = ((960, 720), (960, 540), (720, 960), (800, 800), (640, 480), (1280, 960))


def jitter_box(rng: np.random.Generator, t: OrientedBox) -> OrientedBox:
    u, v = t.axes()
    c = np.array([t.cx, t.cy]) + u * rng.normal(0, 0.12) * t.length + v * rng.normal(0, 0.03) * t.width
    length = t.length * math.exp(rng.normal(0.04, 0.15))
    angle = t.angle + rng.normal(0, 0.03) + (math.pi if rng.random() < 0.5 else 0.0)
    return OrientedBox(float(c[0]), float(c[1]), length, t.width * math.exp(rng.normal(0, 0.06)), angle)


def scene_boxes(rng: np.random.Generator, per_tile: int = 2,
                pip_contrast: float = DEFAULT_PIP_CONTRAST) -> tuple[list[np.ndarray], list[tuple[float, float]]]:
    """One rendered photo (a third with hard cases); ``per_tile`` jittered views of each tile."""
    w, h = _SIZES[int(rng.integers(len(_SIZES)))]
    cfg = SceneConfig(width=w, height=h, tile_px=(24.0, 220.0), pip_contrast=pip_contrast,
                      hard_cases=bool(rng.random() < 0.3))
    img, labels = render_scene(rng, cfg)
    img = jpeg_roundtrip(img, int(rng.integers(35, 96)))
    views, targets = [], []
    for label in labels:
        truth = label.box()
        for _ in range(per_tile):
            box = jitter_box(rng, truth)
            views.append(np.asarray(refine_view(img, box)))
            targets.append(box_correction(box, truth))
    return views, targets


def render_boxes(out: Path, scenes: int, seed: int, log_every: int = 0) -> dict[str, object]:
    views: list[np.ndarray] = []
    targets: list[tuple[float, float]] = []
    t0 = time.time()
    for i in range(scenes):
        v, t = scene_boxes(np.random.default_rng([seed, i]))
        views += v
        targets += t
        if log_every and (i + 1) % log_every == 0:
            print(f"  {i + 1}/{scenes} scenes, {len(views)} views ({time.time() - t0:.0f} s)", flush=True)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    x = np.stack(views) if views else np.zeros((0, 2 * REFINE_VIEW_SIZE, REFINE_VIEW_SIZE, 3), np.uint8)
    np.savez_compressed(out, x=x, y=np.array(targets, np.float32).reshape(-1, 2))
    return {"scenes": scenes, "views": len(views), "seconds": round(time.time() - t0, 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m datasets.boxes", description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--scenes", type=int, default=400)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    print(json.dumps(render_boxes(args.out, args.scenes, args.seed, log_every=max(1, args.scenes // 10))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
