"""Detector training photos from the Ruxi12 real photos: each photo cut to its playing grid.

    python -m chickenfoot.vision.lab.real_boxes --out DIR --games 1 2 3 --copies 3 --seed 41026

``../shared/realdata/Ruxi12__Double-Double-Domino`` gives every tile's oriented box
(``boxes.csv``) and each game's playing grid (``grid_corners.csv``). Round the grid runs a
printed track of domino pictures that is not labelled: trained on whole photos, a detector
would learn that a flat-looking tile is no tile, a plain 0-0 among them (see the folder's
MANIFEST.md). So each copy of a photo is cut to the grid with a margin of 8-30 px a side, short
of the track (about 45 px beyond the grid), and scaled to ``long_side``, as the rendered
training photos are. Written as an ultralytics OBB training split (``images/train``,
``labels/train``) that a detector pass adds to its renders; ``files`` lists every photo used,
relative to the realdata folder, for ``reader.json``'s ``finetuned_on``.

Training code: reads the photos with Pillow only; the evaluation scores the other games.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from chickenfoot.vision.lab.realdata import realdata_root

SOURCE = "Ruxi12__Double-Double-Domino"
#: Margin round the grid, in stored-photo pixels (the printed track starts about 45 px out).
MARGIN_PX = (8.0, 30.0)


class RealBoxesError(ValueError):
    """The Ruxi12 folder is missing or its files do not hold what this module reads."""


def _rows(path: Path) -> list[dict[str, str]]:
    if not path.is_file():
        raise RealBoxesError(f"{path}: no such file (is ../shared/realdata present?)")
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def box_corners(cx: float, cy: float, length: float, width: float, angle_deg: float) -> np.ndarray:
    """The four corners (4x2) of OpenCV's ``((cx, cy), (length, width), angle)`` box."""
    a = math.radians(angle_deg)
    u = np.array([math.cos(a), math.sin(a)]) * length / 2
    v = np.array([-math.sin(a), math.cos(a)]) * width / 2
    c = np.array([cx, cy])
    return np.array([c - u - v, c + u - v, c + u + v, c - u + v])


def game_of(file: str) -> int:
    """``photos/G_MM.jpg`` -> G."""
    return int(Path(file).stem.split("_")[0])


def ruxi_photos(root: Path, games: list[int]) -> list[tuple[str, list[np.ndarray], np.ndarray]]:
    """Each photo of ``games``: its file (relative to the Ruxi12 folder), its tiles' corners,
    and its game's grid corners (4x2)."""
    base = root / SOURCE
    grids = {int(r["game"]): np.array([[float(r[f"{k}_x"]), float(r[f"{k}_y"])]
                                       for k in ("top_left", "top_right", "bottom_right", "bottom_left")])
             for r in _rows(base / "grid_corners.csv")}
    tiles: dict[str, list[np.ndarray]] = defaultdict(list)
    for r in _rows(base / "boxes.csv"):
        tiles[r["file"]].append(box_corners(float(r["cx"]), float(r["cy"]), float(r["length"]), float(r["width"]),
                                            float(r["angle_deg"])))
    files = sorted({r["file"] for r in _rows(base / "labels_tiles.csv")})
    out = []
    for f in files:
        g = game_of(f)
        if g in games:
            if g not in grids:
                raise RealBoxesError(f"{SOURCE}/grid_corners.csv has no grid for game {g}")
            out.append((f, tiles.get(f, []), grids[g]))
    if not out:
        raise RealBoxesError(f"{SOURCE}: no photo of games {games}")
    return out


def write_real_boxes(out: Path, games: list[int], copies: int, seed: int, long_side: int = 480,
                     root: Path | None = None, limit: int | None = None) -> dict[str, Any]:
    """Write ``copies`` grid crops of every photo of ``games`` (the first ``limit`` of them)
    into ``out/images/train`` and ``out/labels/train``; returns counts and the files used
    (relative to the realdata folder)."""
    root = root or realdata_root()
    photos = ruxi_photos(root, games)[:limit]
    for sub in ("images", "labels"):
        (out / sub / "train").mkdir(parents=True, exist_ok=True)
    n_img = n_tiles = 0
    for k, (rel, quads, grid) in enumerate(photos):
        img = Image.open(root / SOURCE / rel).convert("RGB")
        rng = np.random.default_rng([seed, k])
        lo, hi = grid.min(0), grid.max(0)
        for c in range(copies):
            m = rng.uniform(*MARGIN_PX, 4)
            x0, y0 = max(0.0, lo[0] - m[0]), max(0.0, lo[1] - m[1])
            x1, y1 = min(img.width, hi[0] + m[2]), min(img.height, hi[1] + m[3])
            s = long_side / max(x1 - x0, y1 - y0)
            size = (round((x1 - x0) * s), round((y1 - y0) * s))
            crop = img.resize(size, Image.Resampling.BILINEAR, box=(x0, y0, x1, y1), reducing_gap=2.0)
            lines = []
            for q in quads:
                p = (q - [x0, y0]) * s / size
                lines.append("0 " + " ".join(f"{x:.6f} {y:.6f}" for x, y in np.clip(p, 0.0, 1.0)))
            name = f"ruxi_{Path(rel).stem}_{c}"
            crop.save(out / "images" / "train" / f"{name}.jpg", quality=int(rng.integers(80, 96)))
            (out / "labels" / "train" / f"{name}.txt").write_text("\n".join(lines) + "\n" if lines else "")
            n_img += 1
            n_tiles += len(quads)
    return {"photos": len(photos), "images": n_img, "tiles": n_tiles, "games": sorted(games),
            "files": [f"{SOURCE}/{rel}" for rel, _, _ in photos]}


def writer_args(module: str, doc: str, copies: int) -> argparse.ArgumentParser:
    """The command line a training-split writer shares: where to, how many copies a photo, the
    seed and the long side."""
    ap = argparse.ArgumentParser(prog=f"python -m chickenfoot.vision.lab.{module}", description=doc.split("\n")[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--copies", type=int, default=copies)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--long-side", type=int, default=480)
    return ap


def run_writer(write: Callable[[], dict[str, Any]], errors: tuple[type[Exception], ...]) -> int:
    """A writer run from the command line: its figures as one JSON line (the file list left
    out), or its error and exit status 2."""
    try:
        st = write()
    except (OSError, *errors) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps({k: v for k, v in st.items() if k != "files"}))
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = writer_args("real_boxes", __doc__, copies=3)
    ap.add_argument("--games", type=int, nargs="+", default=[1, 2, 3])
    args = ap.parse_args(argv)
    return run_writer(lambda: write_real_boxes(args.out, args.games, args.copies, args.seed, args.long_side),
                      (RealBoxesError,))


if __name__ == "__main__":
    sys.exit(main())
