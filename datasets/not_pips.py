"""Half crops of things the detector takes for face-up tiles and are not: class ``x``, not pips.

Real photos show the reader's worst false reads on printed matter: a row of face-down tiles
with a logo on each back read as 0-0 and 0-2, the lettering on a box lid read as 6-6. The half
classifier had no way to say "this is not a half of a tile": its 13 classes are pip counts, so
a letter became the nearest count, often with a confidence high enough to be counted.

This module mines such crops. It renders photos with the hard cases and printed matter of
:mod:`chickenfoot.vision.lab.datasets.render` (boneyards of printed backs, box lids, score sheets, stone tops, hands),
runs a reader's detector on each, and keeps every face-up detection that covers no rendered
tile (less than ``MAX_COVER`` of its area). Its two halves are cut exactly as the reader cuts
them (:func:`chickenfoot.vision.halves.crop_halves`), plus two jittered cuts of the same box, since a
detector's box wobbles. A box that overlaps a real tile more than that is left out: its halves
may hold that tile's pips, and teaching "pips here are not pips" would cost true reads.

``python -m chickenfoot.vision.lab.datasets.not_pips --out DIR --count N --seed S [--models DIR]`` writes
``DIR/x/<seed>_<photo>_<k>.png``. What it mines depends on the reader it runs (the shipped
models by default), so the crops belong with the commands that made them (see the model card).
"""

from __future__ import annotations

import argparse
import io
import json
import random
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from PIL import Image

from chickenfoot.vision.lab.datasets.halves import jitter_box
from chickenfoot.vision.lab.datasets.render import _SIZES, SceneConfig, render_scene

if TYPE_CHECKING:
    from chickenfoot.vision.reader import Reader

#: A detection counts as "not a tile" when rendered tiles cover less than this share of its box.
MAX_COVER = 0.15
#: Share of the mined photos that also carry printed matter (all carry the hard cases).
PRINTED_SHARE = 0.7
#: Cuts per box: the reader's own, then this many jittered ones.
JITTERED_CUTS = 2
#: A detection is a rendered tile's when their boxes overlap this much (as chickenfoot.vision.lab.evaluate matches).
TILE_IOU = 0.5


def mine_photo(reader: Reader, seed: int, index: int, long_side: int = 1280) -> tuple[list[Image.Image], int, int]:
    """Render photo ``index`` of ``seed`` and return the half crops of its detections that are
    not tiles, with how many face-up detections there were and how many were not tiles."""
    crops, n_det, n_not, _ = mine_photo_with_tiles(reader, seed, index, long_side, tiles=False)
    return crops, n_det, n_not


def mine_photo_with_tiles(reader: Reader, seed: int, index: int, long_side: int = 1280, tiles: bool = True
                          ) -> tuple[list[Image.Image], int, int, list[tuple[Image.Image, int]]]:
    """:func:`mine_photo`, and with ``tiles`` also the halves of every detection that *is* a
    rendered tile (IoU >= ``TILE_IOU``), cut from the detector's own box as the reader cuts it,
    each with its true pip count: the boxes the reader really reads, loose ends and all. (A
    box that runs into the table is what the not-pips class fired on for true tiles; these
    teach that such a half is still its pips.) The photo and the not-tile crops are the same
    either way: nothing here draws from the photo's generator."""
    from chickenfoot.vision.detections import Detections
    from chickenfoot.vision.geometry import covered_share, polygon_iou
    from chickenfoot.vision.read import face_up

    rng = np.random.default_rng([seed, index])
    w, h = _SIZES[int(rng.integers(len(_SIZES)))]
    k = long_side / 480
    cfg = SceneConfig(width=int(w * k), height=int(h * k), max_value=12, hard_cases=True,
                      pip_contrast=100, printed=bool(rng.random() < PRINTED_SHARE))
    img, labels = render_scene(rng, cfg)
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=int(rng.integers(35, 96)))
    loaded = reader.load(buf.getvalue())
    dets = face_up(loaded.image, reader.detect(loaded.image), reader.halves, reader.config)[0]
    if not len(dets):
        return [], 0, 0, []
    quads = [np.asarray(t.quad, np.float64) * loaded.scale for t in labels]
    boxes_all = list(dets.oriented_boxes())
    keep = [j for j, box in enumerate(boxes_all)
            if max((covered_share(np.asarray(box.corners()), q) for q in quads), default=0.0) < MAX_COVER]
    c = reader.config

    def cut(boxes: list) -> list[Image.Image]:
        batch = reader.halves.crop(loaded.image, Detections.from_boxes(boxes, np.ones(len(boxes))), c.crop_size,
                                   c.crop_pad)
        arr = (np.clip(batch, 0, 1) * 255).round().astype(np.uint8).transpose(0, 2, 3, 1)
        return [Image.fromarray(a) for a in arr]

    crops: list[Image.Image] = []
    if keep:
        boxes = [boxes_all[j] for j in keep]
        crops = cut(boxes + [jitter_box(rng, b)[0] for b in boxes for _ in range(JITTERED_CUTS)])
    found: list[tuple[Image.Image, int]] = []
    if tiles:
        pairs = []
        for box in boxes_all:
            corners = np.asarray(box.corners())
            iou, t = max(((polygon_iou(corners, q), i) for i, q in enumerate(quads)), default=(0.0, -1))
            if iou >= TILE_IOU:
                lab = labels[t]
                same_way = float(np.dot(box.axes()[0], lab.box().axes()[0])) >= 0
                pairs.append((box, (lab.a, lab.b) if same_way else (lab.b, lab.a)))
        if pairs:
            halves = cut([b for b, _ in pairs])
            found = [(halves[2 * i + e], vals[e]) for i, (_, vals) in enumerate(pairs) for e in (0, 1)]
    return crops, len(dets), len(keep), found


def mine(out: Path, count: int, seed: int, models: Path | None = None, start: int = 0,
         log_every: int = 0, tiles: bool = False) -> dict[str, int]:
    """Mine photos ``start`` .. ``start + count - 1`` of ``seed`` into ``out/x`` (and, with
    ``tiles``, the true tiles' halves into ``out/tiles/<pips>``)."""
    from chickenfoot.vision.reader import Reader

    reader = Reader.from_models_dir(models)
    (out / "x").mkdir(parents=True, exist_ok=True)
    st = {"photos": 0, "detections": 0, "not_tiles": 0, "crops": 0} | ({"tile_halves": 0} if tiles else {})
    t0 = time.time()
    for i in range(start, start + count):
        crops, n_det, n_not, found = mine_photo_with_tiles(reader, seed, i, tiles=tiles)
        for m, im in enumerate(crops):
            im.save(out / "x" / f"{seed}_{i:06d}_{m:02d}.png", compress_level=1)
        for m, (im, v) in enumerate(found):
            d = out / "tiles" / str(v)
            d.mkdir(parents=True, exist_ok=True)
            im.save(d / f"{seed}_{i:06d}_{m:02d}.png", compress_level=1)
        st["photos"] += 1
        st["detections"] += n_det
        st["not_tiles"] += n_not
        st["crops"] += len(crops)
        if tiles:
            st["tile_halves"] += len(found)
        if log_every and st["photos"] % log_every == 0:
            print(f"  {st['photos']}/{count} photos: {st['detections']} face-up detections, "
                  f"{st['not_tiles']} not tiles ({time.time() - t0:.0f} s)", flush=True)
    return st


def _split(files: list[Path], val_photos: int, rnd: random.Random) -> tuple[list[Path], list[Path]]:
    """Crops of the first ``val_photos`` photos (val) and of the rest (train), each shuffled by ``rnd``:
    no box has cuts on both sides."""
    val = [f for f in files if int(f.name.split("_")[1]) < val_photos]
    train = [f for f in files if int(f.name.split("_")[1]) >= val_photos]
    rnd.shuffle(val)
    rnd.shuffle(train)
    return val, train


def pick(mined: Path, dest: Path, n_train: int, n_val: int, val_photos: int, shuffle_seed: int) -> dict[str, int]:
    """Link a class ``x`` into an ultralytics classify dataset ``dest/{train,val}/x``: val crops
    from the first ``val_photos`` photos only (so no box has cuts on both sides), train from the
    rest, each a seeded random pick of the mined crops."""
    val, train = _split(sorted((mined / "x").glob("*.png")), val_photos, random.Random(shuffle_seed))
    got = {}
    for split, chosen in (("train", train[:n_train]), ("val", val[:n_val])):
        d = dest / split / "x"
        d.mkdir(parents=True, exist_ok=True)
        for f in chosen:
            link = d / f.name
            if not link.exists():
                link.symlink_to(f.resolve())
        got[split] = len(chosen)
    return got


def pick_tiles(mined: Path, dest: Path, n_train: int, n_val: int, val_photos: int, shuffle_seed: int) -> dict[str, int]:
    """Link a seeded pick of the mined true-tile halves (``mined/tiles/<pips>``) into
    ``dest/{train,val}/<pips>``, split by photo as :func:`pick` splits the not-pips crops."""
    val, train = _split(sorted((mined / "tiles").glob("*/*.png")), val_photos, random.Random(shuffle_seed + 1))
    got = {}
    for split, chosen in (("train", train[:n_train]), ("val", val[:n_val])):
        for f in chosen:
            d = dest / split / f.parent.name
            d.mkdir(parents=True, exist_ok=True)
            link = d / f"tile_{f.name}"
            if not link.exists():
                link.symlink_to(f.resolve())
        got[split] = len(chosen)
    return got


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m chickenfoot.vision.lab.datasets.not_pips", description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--count", type=int, default=100, help="photos to render and mine")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--start", type=int, default=0, help="first photo index (to split work between processes)")
    ap.add_argument("--models", type=Path, default=None, help="the reader to mine with (default: the shipped one)")
    ap.add_argument("--tiles", action="store_true",
                    help="also keep the halves of detections that are true tiles, in OUT/tiles/<pips>")
    args = ap.parse_args(argv)
    st = mine(args.out, args.count, args.seed, args.models, args.start, log_every=max(1, args.count // 10),
              tiles=args.tiles)
    print(json.dumps(st))
    return 0


if __name__ == "__main__":
    sys.exit(main())
