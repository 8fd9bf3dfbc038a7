"""Detector training photos from karthikVenkataramana's pose-labelled frames: face-down tiles as
negatives.

    python -m chickenfoot.vision.lab.pose_boxes --out DIR --copies 2 --seed 41028

``../shared/realdata/karthikVenkataramana__Domino-Detection`` labels 1,529 green double-six tiles
with axis-aligned boxes and a pose: face up (B, E), face down (A, F) or standing on an edge. Its
plain green backs are what a detector trained on plain faces must learn to tell from a 0-0, so
every face-down and standing tile stays unlabelled: background to the detector.

A face-up tile needs an oriented box. It gets the box of the shipped reader's find whose
axis-aligned bounds match the label (IoU 0.5 or more); failing that it is blurred out, as is any
find of the reader that matches no label (a tile the source left unlabelled): neither is left to
be learnt as background. A label's own box is no tile's outline: the frames are taken at a slant,
so it holds the tile's edge and body too. Each copy is scaled to
``long_side`` as the rendered photos are and written as an ultralytics OBB training split
(``images/train``, ``labels/train``); ``files`` lists every photo used, relative to the realdata
folder, for ``reader.json``'s ``finetuned_on``.

Training code: the evaluation's figures on this source are no longer held out once a pass uses it.
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

from chickenfoot.vision.lab.real_boxes import run_writer, writer_args
from chickenfoot.vision.lab.realdata import realdata_root

SOURCE = "karthikVenkataramana__Domino-Detection"
FACE_UP = ("B", "E")
MATCH_IOU = 0.5
#: A find left over that overlaps any label this much is that tile seen again (a face-down or
#: standing tile misread, or a second box on a face-up one): left as it is; one overlapping no
#: label is an unlabelled tile of unknown pose, blurred out.
KNOWN_IOU = 0.3
BLUR_RADIUS = 12
BLUR_PAD = 4.0


class PoseBoxesError(ValueError):
    """The karthikVenkataramana folder is missing or holds no labelled frame."""


Box = tuple[float, float, float, float]


def aabb_iou(a: Box, b: Box) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def pose_frames(root: Path) -> list[tuple[Path, list[tuple[str, Box]]]]:
    """Every labelled frame: its photo and its (pose, box) labels."""
    base = root / SOURCE / "images_classes"
    out = []
    for xml in sorted(base.glob("*/*.xml")) if base.exists() else []:
        img = xml.with_suffix(".jpg")
        if not img.exists():
            continue
        labels = []
        for obj in ET.parse(xml).getroot().iter("object"):
            bb = obj.find("bndbox")
            if bb is not None:
                box = tuple(float(bb.findtext(k, "0")) for k in ("xmin", "ymin", "xmax", "ymax"))
                labels.append((obj.findtext("name", "").strip(), box))
        out.append((img, labels))
    if not out:
        raise PoseBoxesError(f"{base}: no labelled frame (is ../shared/realdata present?)")
    return out


def frame_boxes(labels: list[tuple[str, Box]], finds: list[np.ndarray]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The frame's face-up tiles as corner arrays (4x2), and the polygons to blur out.

    ``finds``: the corners of every find the reader made (counted or not), surest first."""
    bounds = [(q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max()) for q in finds]
    used: set[int] = set()
    tiles, blur = [], []
    for pose, box in labels:
        if pose not in FACE_UP:
            continue
        best, best_iou = -1, MATCH_IOU
        for j, b in enumerate(bounds):
            iou = aabb_iou(box, b)
            if j not in used and iou >= best_iou:
                best, best_iou = j, iou
        x0, y0, x1, y1 = box
        if best >= 0:
            used.add(best)
            tiles.append(finds[best])
        else:
            blur.append(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=float))
    for j, b in enumerate(bounds):
        if j not in used and all(aabb_iou(box, b) < KNOWN_IOU for _, box in labels):
            blur.append(finds[j])
    return tiles, blur


def blur_out(img: Image.Image, polygons: list[np.ndarray]) -> Image.Image:
    if not polygons:
        return img
    mask = Image.new("L", img.size, 0)
    draw = ImageDraw.Draw(mask)
    for q in polygons:
        c = q.mean(0)
        grown = c + (q - c) * (1 + BLUR_PAD / max(1.0, float(np.linalg.norm(q[0] - c))))
        draw.polygon([tuple(p) for p in grown], fill=255)
    return Image.composite(img.filter(ImageFilter.GaussianBlur(BLUR_RADIUS)), img, mask)


def write_pose_boxes(out: Path, copies: int, seed: int, long_side: int = 480, root: Path | None = None,
                     models: Path | None = None, limit: int | None = None) -> dict[str, Any]:
    """Write ``copies`` scaled copies of every labelled frame (the first ``limit``) into
    ``out/images/train`` and ``out/labels/train``; returns counts and the files used."""
    from chickenfoot.vision.reader import Reader

    root = root or realdata_root()
    frames = pose_frames(root)[:limit]
    reader = Reader.from_models_dir(models) if models else Reader.from_models_dir()
    for sub in ("images", "labels"):
        (out / sub / "train").mkdir(parents=True, exist_ok=True)
    n_img = n_tiles = n_blur = 0
    for k, (path, labels) in enumerate(frames):
        img = Image.open(path).convert("RGB")
        reading = reader.read(img)
        finds = [t.box.corners() for t in (*reading.tiles, *reading.candidates) if t.box is not None]
        tiles, blur = frame_boxes(labels, finds)
        img = blur_out(img, blur)
        rng = np.random.default_rng([seed, k])
        for c in range(copies):
            s = long_side / max(img.size) * (1.0 if c == 0 else float(rng.uniform(0.8, 1.0)))
            size = (round(img.width * s), round(img.height * s))
            copy = img.resize(size, Image.Resampling.BILINEAR)
            lines = []
            for q in tiles:
                p = np.clip(q * s / size, 0.0, 1.0)
                lines.append("0 " + " ".join(f"{x:.6f} {y:.6f}" for x, y in p))
            name = f"pose_{path.parent.name}_{path.stem.replace(' ', '_')}_{c}"
            copy.save(out / "images" / "train" / f"{name}.jpg", quality=int(rng.integers(80, 96)))
            (out / "labels" / "train" / f"{name}.txt").write_text("\n".join(lines) + "\n" if lines else "")
            n_img += 1
            n_tiles += len(tiles)
        n_blur += len(blur)
    return {"photos": len(frames), "images": n_img, "tiles": n_tiles, "blurred": n_blur,
            "files": [str(p.relative_to(root)) for p, _ in frames]}


def main(argv: list[str] | None = None) -> int:
    ap = writer_args("pose_boxes", __doc__, copies=2)
    ap.add_argument("--models", type=Path, default=None, help="models folder whose reader labels the face-up tiles")
    args = ap.parse_args(argv)
    return run_writer(lambda: write_pose_boxes(args.out, args.copies, args.seed, args.long_side, models=args.models),
                      (PoseBoxesError,))


if __name__ == "__main__":
    sys.exit(main())
