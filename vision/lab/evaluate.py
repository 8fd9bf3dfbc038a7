"""``python -m chickenfoot.vision.lab.evaluate``: how well the shipped reader reads, on rendered and real photos.

Prints, per source and pooled (:mod:`chickenfoot.vision.lab.tally`): tile recall and precision, false
tiles, per-half accuracy, exact-tile accuracy, share of photos whose pip total is exactly right,
mean absolute error of totals, share of photos whose penalty is right (a 0-0 counts 50 by
default: missing or inventing one leaves the pip total right and costs a player 50 points), and
confusion tables of half values. Real photos (:mod:`chickenfoot.vision.lab.realdata`) are read twice, in
colour and as grayscale copies (pip colours often encode the value; the reader must count pips).

Sources and how each label format is scored (see each folder's MANIFEST.md):

* rendered validation set (``--rendered DIR`` from ``python -m chickenfoot.vision.lab.datasets.render``, or rendered
  here with a seed the training did not use, 1280 px on the long side like a phone photo after
  decoding): oriented boxes with half A/B -> rotated-IoU matching, halves compared end to end;
  also exact tile by true tile length at 1280 px (under 40, 40-70, 70-100, 100 px and up, with
  each band's share and target), by colour and grey photo, and why each lost tile was lost.
* rendered close-ups (``--closeups``): from each rendered photo, a 4:3 crop around one tile that
  then fills 55-90% of the frame (a player showing a disputed tile to the camera), kept only
  where no other tile is cut by the crop's edge; scored like the rendered set.
* tile lists per photo (JackRoache, danb-dev-ui): no boxes, so detections are paired with
  labelled tiles by value (exact matches first, then tiles sharing a half): recall/precision
  count-based, half accuracy optimistic. JackRoache webcam frames are scored in their play
  area only, as their labels are (background tin and far-edge tiles were not read).
* YOLO whole-tile boxes with a tile per box (TAK1EDD1NE) and Labelbox half boxes paired into
  tiles (jeremyarde, aligned photos only): axis-aligned IoU >= 0.5 against each prediction's
  enclosing box.
* oriented boxes with half A/B (Ruxi12, overhead photos of a board): scored like the rendered
  set, on the playing grid only (its labels cover nothing else; a find's centre may lie half a
  cell outside it); finds outside it, the board's printed track of dominoes among them, are
  counted apart and never against the photo.
* VOC pose boxes (karthikVenkataramana): no values, so count only - recall of face-up tiles
  (poses B, E), and how many face-down tiles (A, F) were read as tiles.
* single-tile crops (Funallingus: loose crops -> detector on the crop, whole crop if it finds
  nothing; jeremyarde tile_crops: tight -> the whole crop is the tile) and half crops by pip
  count (classifier only, mean of the crop and its 180-degree turn since the divider side is
  unknown).

Every real photo whose labels name all its face-up tiles (lists, tile boxes, Ruxi12) is also
judged as a player judges it, by its headline (:mod:`chickenfoot.vision.lab.verdict`): right with
nothing to check, asked (the true penalty still reachable), or wrong with nothing asked; where
the photos with a face-up 0-0 fall among those; and tiles to check per photo. Pose boxes and
crops give no per-photo truth and stay in their rows above.

Images listed in ``reader.json`` under ``finetuned_on`` (paths relative to the realdata
folder), or in ``--exclude FILE``, are never counted; ``--exclude-source NAME`` leaves out a
whole folder (one a model trained on). Nothing here is tuned on real photos.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from chickenfoot.rules import ChickenFootError, Tile, get_rules
from chickenfoot.vision.detections import obb_corners
from chickenfoot.vision.geometry import OrientedBox, polygon_iou
from chickenfoot.vision.images import ImageError, LoadedImage, load_image
from chickenfoot.vision.lab.lost import LOST_REASONS, lost_entry, lost_montage, nearest_read
from chickenfoot.vision.lab.realdata import (
    RUXI12,
    Sample,
    half_crop_samples,
    real_samples,
    realdata_root,
    sets_in,
    source_of,
)
from chickenfoot.vision.lab.tally import (
    BAND_SIDE,
    LENGTH_BUCKETS,
    Tally,
    aabb_iou,
    band_table,
    check_table,
    closeup_crop,
    confusion_table,
    greedy_match,
    kind_table,
    length_bucket,
    match_by_value,
    pct,
    table,
)
from chickenfoot.vision.lab.verdict import Verdict, VerdictTally, judge_sample, verdict_table
from chickenfoot.vision.reader import Reader, Reading, TileReading

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_REALDATA = realdata_root()
DEFAULT_RENDER_SEED = 90210


# --------------------------------------------------------------------------- scoring
def grey_copy(loaded: LoadedImage) -> LoadedImage:
    """The photo as a grayscale copy (pip colours often encode the value: the reader must count
    pips)."""
    return LoadedImage(loaded.image.convert("L").convert("RGB"), loaded.original_size, loaded.name)


def is_grey(image: Image.Image, tol: float = 1.5) -> bool:
    """Whether a photo is grey (its channels agree to within JPEG's rounding, on average)."""
    a = np.asarray(image.convert("RGB"), np.int16)
    return bool(np.abs(a[..., 0] - a[..., 1]).mean() < tol and np.abs(a[..., 1] - a[..., 2]).mean() < tol)


def _pad_canvas(image: Image.Image, factor: float = 3.0) -> tuple[Image.Image, tuple[int, int]]:
    """The crop centred on a larger canvas of its own border colour, so the tile is photo-sized."""
    arr = np.asarray(image)
    border = np.concatenate([arr[0], arr[-1], arr[:, 0], arr[:, -1]])
    colour = tuple(int(v) for v in np.median(border, axis=0))
    side = int(max(image.size) * factor)
    canvas = Image.new("RGB", (side, side), colour)
    off = ((side - image.width) // 2, (side - image.height) // 2)
    canvas.paste(image, off)
    return canvas, off


class Evaluator:
    def __init__(self, reader: Reader, gray: bool = True, top: int | None = None) -> None:
        self.reader = reader
        self.rules = get_rules()
        #: The rendered photos are of a double-``top`` set (the reader is told, as a player
        #: would tell it); None leaves it to the rules. Real photos are read without it.
        self.top = top
        self.modes = ("colour", "gray") if gray else ("colour",)
        self.tallies: dict[tuple[str, str], Tally] = {}
        self.crop_fallbacks: Counter[str] = Counter()
        self.crop_counts: Counter[str] = Counter()
        self.poses: dict[str, Counter[str]] = {m: Counter() for m in self.modes}
        #: Face-down confusion on the real photos, per mode (:meth:`_face_down`).
        self.facedown: dict[str, Counter[str]] = {m: Counter() for m in self.modes}
        self.skipped: list[str] = []
        #: Each true tile of the rendered set not read exactly (:meth:`lost_entry`), in order.
        self.lost_tiles: list[dict[str, Any]] = []
        #: (source, mode) -> each labelled real photo's headline judged against its truth.
        self.verdicts: dict[tuple[str, str], VerdictTally] = {}

    def tally(self, source: str, mode: str) -> Tally:
        key = (source, mode)
        if key not in self.tallies:
            self.tallies[key] = Tally(source)
        return self.tallies[key]

    def _load(self, path: Path) -> LoadedImage | None:
        try:
            return load_image(path, self.reader.config.decode_max_side)
        except ImageError as exc:
            self.skipped.append(str(exc))
            return None

    # -- rendered
    def rendered(self, folder: Path, limit: int | None = None) -> int:
        jsons = sorted(folder.glob("tiles/*/*.json"))[: limit or None]
        for js in jsons:
            split = js.parent.name
            img_path = folder / "images" / split / (js.stem + ".jpg")
            loaded = self._load(img_path)
            if loaded is None:
                continue
            labels = json.loads(js.read_text())
            gt_boxes = [OrientedBox(*(float(v) for v in lab["box"])) for lab in labels]
            gt = [(int(lab["a"]), int(lab["b"])) for lab in labels]
            reading = self.reader.read(loaded, self.rules, self.top, sets_in(gt))
            exact = self._score_oriented("rendered", "colour", gt, gt_boxes, reading, photo=str(img_path))
            row = self.tally("rendered", "colour").by_colour.setdefault(
                "grey" if is_grey(loaded.image) else "colour", [0, 0])
            row[0] += len(gt)
            row[1] += exact
        return len(jsons)

    def closeups(self, folder: Path, seed: int, limit: int | None = None) -> int:
        """Score close-up crops cut from a rendered set (:func:`closeup_crop`); how many."""
        rng = np.random.default_rng([seed, 7])
        n = 0
        for js in sorted(folder.glob("tiles/*/*.json"))[: limit or None]:
            labels = json.loads(js.read_text())
            img_path = folder / "images" / js.parent.name / (js.stem + ".jpg")
            loaded = self._load(img_path)
            if loaded is None or not labels:
                continue
            found = closeup_crop(labels, loaded.original_size, rng)
            if found is None:
                continue
            (x0, y0, x1, y1), inside = found
            scale = loaded.scale
            crop = loaded.image.crop((round(x0 * scale), round(y0 * scale), round(x1 * scale), round(y1 * scale)))
            gt_boxes, gt = [], []
            for k in inside:
                b = [float(v) for v in labels[k]["box"]]
                gt_boxes.append(OrientedBox((b[0] - x0) * scale, (b[1] - y0) * scale, b[2] * scale, b[3] * scale, b[4]))
                gt.append((int(labels[k]["a"]), int(labels[k]["b"])))
            reading = self.reader.read(LoadedImage(crop, crop.size, f"{js.stem}-closeup"), self.rules, self.top)
            self._score_oriented("close-ups", "colour", gt, gt_boxes, reading)
            n += 1
        return n

    def _score_oriented(self, source: str, mode: str, gt: list[tuple[int, int]],
                        gt_boxes: list[OrientedBox], reading: Reading, photo: str | None = None) -> int:
        """Score one photo's reading against its true tiles; how many were read exactly. With
        ``photo``, each true tile not read exactly goes to :attr:`lost_tiles`."""
        pred = _reads(reading)
        gt_c = obb_corners([[b.cx, b.cy, b.length, b.width, b.angle] for b in gt_boxes])
        pr_c = obb_corners([[t.box.cx, t.box.cy, t.box.length, t.box.width, t.box.angle] for t in pred])
        pairs = greedy_match(len(gt), len(pred), lambda i, j: polygon_iou(gt_c[i], pr_c[j]))
        tile_pairs, flags = [], []
        t = self.tally(source, mode)
        found = dict(pairs)
        # a true tile no counted read matched may still be among the reads left uncounted
        free = [i for i in range(len(gt)) if i not in found]
        cands = list(reading.candidates)
        ca_c = obb_corners([[c.box.cx, c.box.cy, c.box.length, c.box.width, c.box.angle] for c in cands])
        seen = {free[i]: cands[j].uncounted or "unsure"
                for i, j in greedy_match(len(free), len(cands), lambda i, j: polygon_iou(gt_c[free[i]], ca_c[j]))}
        exact = 0
        kinds: dict[int, bool] = {}
        to_band = BAND_SIDE / max(reading.image_size)
        small_counted = False
        for i, box in enumerate(gt_boxes):
            band = length_bucket(box.length * to_band)
            row = t.by_length.setdefault(band, [0, 0, 0])
            small_counted |= i in found and band == LENGTH_BUCKETS[0][1]
            row[0] += 1
            if i in found:
                j = found[i]
                p = (pred[j].a, pred[j].b)
                gu, _ = box.axes()
                pu, _ = pred[j].box.axes()
                if float(np.dot(gu, pu)) < 0:  # the reader's box points the other way: its A is our B
                    p = (p[1], p[0])
                tile_pairs.append((gt[i], p))
                flags.append(pred[j].needs_review)
                row[1] += 1
                row[2] += p == gt[i]
                exact += p == gt[i]
                kinds[i] = p == gt[i]
                if p != gt[i]:
                    t.lost["misread"] += 1
                    if photo is not None:
                        self.lost_tiles.append(lost_entry(photo, gt[i], box, "misread", pred[j], p))
            else:
                why = seen.get(i, "not found")
                t.lost[why] += 1
                if photo is not None:
                    self.lost_tiles.append(lost_entry(photo, gt[i], box, why,
                                                      *nearest_read(gt_c[i], pred + cands, np.concatenate([pr_c, ca_c]))))
        t.photos += 1
        if small_counted:
            t.small_photos += 1
            t.small_photos_warned += any("tiles are small" in w for w in reading.warnings)
        used = set(found.values())
        t.add_tiles(tile_pairs, True, len(gt), len(pred), flags,
                    [x.needs_review for j, x in enumerate(pred) if j not in used])
        t.add_kinds(gt, kinds)
        self._totals(t, gt, reading, pred)
        return exact

    def _totals(self, t: Tally, gt: list[tuple[int, int]], reading: Reading, pred: list[TileReading]) -> None:
        """A photo's total and penalty as read (every tile read, open ones too: what a player
        gets who confirms every read as shown) against the truth, and its checks: tiles left
        open, wrong with nothing open, and a sure penalty over the true one."""
        true_pips, true_pen = sum(a + b for a, b in gt), self.rules.penalty(Tile(a, b) for a, b in gt)
        read_pips, read_pen = sum(x.a + x.b for x in pred), self.rules.penalty(x.tile for x in pred)
        t.add_total(true_pips, read_pips)
        t.add_penalty(true_pen, read_pen)
        open_tiles = sum(x.open for x in pred) + sum(bool(x.question) for x in reading.tiles)
        sure_pen = self.rules.penalty(x.tile for x in pred if x.sure)
        t.add_check(read_pips != true_pips or read_pen != true_pen, open_tiles, sure_pen > true_pen,
                    bool(reading.warnings), len(reading.questions))

    # -- real
    def real(self, samples: Iterable[Sample]) -> None:
        for s in samples:
            loaded = self._load(s.path)
            if loaded is None:
                continue
            for mode in self.modes:
                img = loaded if mode == "colour" else grey_copy(loaded)
                getattr(self, "_" + s.kind.replace("-", "_"))(s, img, mode)

    def _read(self, img: LoadedImage, s: Sample | None = None) -> Reading:
        return self.reader.read(img, self.rules, sets=1 if s is None else s.sets)

    def _judge(self, s: Sample, mode: str, reading: Reading) -> tuple[Verdict, Reading]:
        """The photo's headline judged against its truth (:mod:`chickenfoot.vision.lab.verdict`), kept
        per source; and the reading of the labelled part of the photo."""
        verdict, part = judge_sample(s, reading, self.rules, mode)
        self.verdicts.setdefault((s.source, mode), VerdictTally()).add(verdict)
        return verdict, part

    def _list(self, s: Sample, img: LoadedImage, mode: str) -> None:
        reading = self._read(img, s)
        _, part = self._judge(s, mode, reading)
        area = list(part.tiles)
        pred = [t for t in area if not t.question]
        gt_tiles = [Tile(a, b) for a, b in s.tiles]
        pairs = match_by_value(gt_tiles, [t.tile for t in pred])
        asked = [t for t in area if t.question]
        self._add_reads(s, mode, pred, pairs, part)
        c = self.facedown[mode]
        if not s.tiles:  # a photo of face-down tiles only
            c["backs_photos"] += 1
            c["backs_photo_tiles_counted"] += len(pred)
            c["backs_photo_asked"] += len(asked)
        else:
            c["list_photos"] += 1
            missed = len(s.tiles) - len(pairs)
            # count only: a face-up tile missed where the reader saw a back or asked
            c["list_missed_with_back_or_question"] += min(missed, len(reading.backs) + len(asked))

    def _boxes_oriented(self, s: Sample, img: LoadedImage, mode: str) -> None:
        """Oriented boxes with half A/B (Ruxi12): scored on the labelled grid like the rendered
        set; finds outside it are counted apart by the verdict."""
        _, part = self._judge(s, mode, self._read(img, s))
        self._score_oriented(s.source, mode, list(s.tiles), list(s.boxes), part)

    def _boxes_aabb(self, s: Sample, img: LoadedImage, mode: str) -> None:
        reading = self._read(img, s)
        self._judge(s, mode, reading)
        pred = _reads(reading)
        pred_boxes = [t.box.aabb() for t in pred]
        pairs = greedy_match(len(s.boxes), len(pred), lambda i, j: aabb_iou(s.boxes[i], pred_boxes[j]))
        self._add_reads(s, mode, pred, pairs, reading)
        self._face_down(mode, "boxes", list(s.boxes), {i for i, _ in pairs}, reading)

    def _face_down(self, mode: str, what: str, up_boxes: list[tuple[float, float, float, float]], found: set[int],
                   reading: Reading) -> None:
        """Face-up tiles (``up_boxes``, axis-aligned; ``found``: those a counted read matched)
        that the reader called face down, or asked about, instead."""
        c = self.facedown[mode]
        for kind, boxes in (("called_face_down", [b.aabb() for b in reading.backs]),
                            ("asked", [t.box.aabb() for t in reading.questions])):
            pairs = greedy_match(len(up_boxes), len(boxes), lambda i, j, bx=boxes: aabb_iou(up_boxes[i], bx[j]))
            c[f"{what}_up_{kind}"] += sum(i not in found for i, _ in pairs)
        c[f"{what}_up"] += len(up_boxes)

    def _add_reads(self, s: Sample, mode: str, pred: list[TileReading], pairs: list[tuple[int, int]],
                   reading: Reading) -> None:
        """One photo's reads, paired (true index, read index) without orientation, into its tally
        (and the tally of photos of 10 tiles or more), with each read's review flag, kind of
        tile, total, penalty and checks."""
        for t in [self.tally(s.source, mode)] + ([self.tally(MANY, mode)] if len(s.tiles) >= MANY_TILES else []):
            t.photos += 1
            used = {j for _, j in pairs}
            t.add_tiles([(s.tiles[i], (pred[j].a, pred[j].b)) for i, j in pairs], False, len(s.tiles), len(pred),
                        [pred[j].needs_review for _, j in pairs],
                        [x.needs_review for j, x in enumerate(pred) if j not in used])
            t.add_kinds(list(s.tiles), {i: sorted(s.tiles[i]) == sorted((pred[j].a, pred[j].b)) for i, j in pairs})
            self._totals(t, list(s.tiles), reading, pred)

    def _poses(self, s: Sample, img: LoadedImage, mode: str) -> None:
        reading = self._read(img)
        pred_boxes = [t.box.aabb() for t in _reads(reading)]
        boxes = [b for _, b in s.poses]
        pairs = greedy_match(len(boxes), len(pred_boxes), lambda i, j: aabb_iou(boxes[i], pred_boxes[j]))
        matched = {i for i, _ in pairs}
        c = self.poses[mode]
        c["photos"] += 1
        c["read"] += len(pred_boxes)
        for i, (pose, _) in enumerate(s.poses):
            group = "up" if pose in ("B", "E") else "down" if pose in ("A", "F") else "edge"
            c[f"{group}_boxes"] += 1
            c[f"{group}_read"] += i in matched
        c["unmatched_reads"] += len(pred_boxes) - len(pairs)
        self.facedown[mode]["poses_asked_anywhere"] += len(reading.questions)
        up = [i for i, (pose, _) in enumerate(s.poses) if pose in ("B", "E")]
        self._face_down(mode, "poses", [boxes[i] for i in up], {k for k, i in enumerate(up) if i in matched}, reading)
        down = [boxes[i] for i, (pose, _) in enumerate(s.poses) if pose in ("A", "F")]
        asked = [t.box.aabb() for t in reading.questions]
        self.facedown[mode]["poses_down"] += len(down)
        self.facedown[mode]["poses_down_asked"] += len(greedy_match(len(down), len(asked),
                                                                    lambda i, j: aabb_iou(down[i], asked[j])))

    def _tile_crop(self, s: Sample, img: LoadedImage, mode: str) -> None:
        a, b, _ = self.reader.read_tile_crop(img)
        self._crop_result(s, mode, (a, b), oriented=True)

    def _tile_crop_loose(self, s: Sample, img: LoadedImage, mode: str) -> None:
        canvas, _ = _pad_canvas(img.image)
        reading = self.reader.read(LoadedImage(canvas, canvas.size, img.name), self.rules)
        self.crop_counts[mode] += 1
        if reading.tiles:
            best = max(reading.tiles, key=lambda t: t.detection_confidence)
            got = (best.a, best.b)
        else:
            self.crop_fallbacks[mode] += 1
            a, b, _ = self.reader.read_tile_crop(img)
            got = (a, b)
        self._crop_result(s, mode, got, oriented=False)

    def _crop_result(self, s: Sample, mode: str, got: tuple[int, int], oriented: bool) -> None:
        t = self.tally(s.source, mode)
        t.photos += 1
        t.add_tiles([(s.tiles[0], got)], oriented, 1, 1)
        t.add_kinds([s.tiles[0]], {0: sorted(s.tiles[0]) == sorted(got)})
        t.add_total(sum(s.tiles[0]), sum(got))

    def half_crops(self, items: list[tuple[Path, int, str]]) -> None:
        for path, value, _ in items:
            loaded = self._load(path)
            if loaded is None:
                continue
            for mode in self.modes:
                im = loaded.image if mode == "colour" else loaded.image.convert("L").convert("RGB")
                both = [im, im.rotate(180)]
                s = self.reader.cls_imgsz
                batch = np.stack([np.asarray(x.resize((s, s), Image.Resampling.BILINEAR)) for x in both])
                probs = self.reader.classify(
                    np.ascontiguousarray(batch.transpose(0, 3, 1, 2).astype(np.float32) / 255.0)
                ).mean(0)
                read = int(self.reader.values[int(probs.argmax())])
                t = self.tally("jeremyarde__domino-counter half crops", mode)
                t.photos += 1
                t.halves += 1
                t.halves_ok += read == value
                t.confusion[(value, read)] += 1


def _reads(reading: Reading) -> list[TileReading]:
    """The tiles a reading read: counted, open ones included, less those it asks about (a
    possible 0-0 that may be a back is not yet a read)."""
    return [t for t in reading.tiles if not t.question]


#: Real photos of this many labelled tiles or more are also pooled apart (:data:`MANY`).
MANY_TILES = 10
MANY = f"real scene photos with {MANY_TILES}+ tiles"


def render_validation(seed: int, count: int, max_value: int, out: Path, long_side: int = 1280,
                      hard_cases: bool = False, pip_contrast: float | None = None, printed: bool = False,
                      set_top: int = 0, gray_contrast: float | None = None) -> Path:
    """Render a validation set with the project's renderer (a separate process: it is data
    making, not reading). The scenes are the training scenes' layouts; 1280 px on the long side
    gives tiles of 38-384 px, as in phone photos (at the detector's 480 px training size the
    smallest tiles are 14 px long, with pips of a pixel or two)."""
    cmd = [sys.executable, "-m", "chickenfoot.vision.lab.datasets.render", "--out", str(out), "--count", str(count),
           "--seed", str(seed), "--val-frac", "1.0", "--max-value", str(max_value),
           "--long-side", str(long_side)] + (["--hard-cases"] if hard_cases else []) + (["--printed"] if printed else [])
    if pip_contrast is not None:
        cmd += ["--pip-contrast", str(pip_contrast)]
    if gray_contrast is not None:
        cmd += ["--gray-contrast", str(gray_contrast)]
    if set_top:
        cmd += ["--set", str(set_top)]
    subprocess.run(cmd, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return out


def _training_seeds(reader: Reader) -> set[int]:
    extra = reader.config.extra
    seeds = set()
    for key in ("seed", "det_seed", "cls_seed", "train_seeds", "seeds"):
        v = extra.get(key)
        if isinstance(v, int):
            seeds.add(v)
        elif isinstance(v, list):
            seeds.update(int(x) for x in v if isinstance(x, int))
    return seeds


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m chickenfoot.vision.lab.evaluate", description=__doc__.split("\n")[0])
    ap.add_argument("--models", type=Path, default=None, help="models folder (default: models/)")
    ap.add_argument("--rendered", type=Path, default=None, help="rendered dataset to score")
    ap.add_argument("--render-count", type=int, default=200, help="images to render when no --rendered")
    ap.add_argument("--render-seed", type=int, default=DEFAULT_RENDER_SEED)
    ap.add_argument("--render-long-side", type=int, default=1280, help="long side of rendered images")
    ap.add_argument("--render-hard-cases", action="store_true",
                    help="render with boneyards of printed backs, stone tops, hands and close-ups (chickenfoot.vision.lab.datasets.render)")
    ap.add_argument("--render-printed", action="store_true",
                    help="render with printed matter: lettered backs, box lids, score sheets (chickenfoot.vision.lab.datasets.render --printed)")
    ap.add_argument("--render-pip-contrast", type=float, default=None, metavar="D",
                    help="least RGB distance between pips and face (chickenfoot.vision.lab.datasets.render --pip-contrast; "
                         "default: the renderer's, 100)")
    ap.add_argument("--render-gray-contrast", type=float, default=None, metavar="L",
                    help="least luma difference between pips and face in grey photos (chickenfoot.vision.lab.datasets.render "
                         "--gray-contrast; default: the renderer's, 60; 0: no luma check)")
    ap.add_argument("--set", type=int, default=None, choices=(6, 9, 12, 15, 18), metavar="N", dest="top",
                    help="render photos of one double-N set each and tell the reader so; 15 and 18 "
                         "are read by the wide-set classifier when the models have one")
    ap.add_argument("--closeups", action="store_true",
                    help="also score close-up crops cut from the rendered set (one tile filling 55-90%% of the frame)")
    ap.add_argument("--keep-rendered", action="store_true", help="keep the rendered set")
    ap.add_argument("--limit", type=int, default=None, help="score at most this many rendered images")
    ap.add_argument("--realdata", type=Path, default=None, help=f"default {DEFAULT_REALDATA}")
    ap.add_argument("--exclude", type=Path, default=None, help="file of realdata paths to leave out")
    ap.add_argument("--exclude-source", action="append", default=[], metavar="NAME",
                    help="leave out a whole realdata folder (e.g. one a retrained model trained on); repeatable")
    ap.add_argument("--no-gray", action="store_true", help="skip the grayscale copies")
    ap.add_argument("--skip-rendered", action="store_true")
    ap.add_argument("--skip-real", action="store_true")
    ap.add_argument("--json", type=Path, default=None, help="also write every figure here")
    ap.add_argument("--lost", type=Path, default=None,
                    help="write each rendered tile not read exactly (photo, tile, box, reason, read) as JSON here")
    ap.add_argument("--lost-montage", type=Path, default=None,
                    help="draw each rendered tile not read exactly, with the read on or nearest it, into this PNG")
    args = ap.parse_args(argv)

    try:
        reader = Reader.from_models_dir(args.models)
    except ChickenFootError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    ev = Evaluator(reader, gray=not args.no_gray, top=args.top)
    report: dict[str, Any] = {"models": str(args.models or "models/"), "config": {
        k: getattr(reader.config, k) for k in ("det_imgsz", "cls_imgsz", "crop_size", "crop_pad",
                                               "det_conf", "det_iou", "review_conf", "decode_max_side")}}
    t0 = time.time()

    cleanup: Path | None = None
    if not args.skip_rendered:
        if args.rendered:
            folder = args.rendered
            print(f"rendered set: {folder}")
        else:
            if args.render_seed in _training_seeds(reader):
                print(f"error: seed {args.render_seed} was used for training; pick another", file=sys.stderr)
                return 2
            folder = cleanup = Path(tempfile.mkdtemp(prefix="cf-eval-render-"))
            print(f"rendering {args.render_count} validation images, seed {args.render_seed}, "
                  f"long side {args.render_long_side}"
                  f"{', hard cases' if args.render_hard_cases else ''}"
                  f"{', printed matter' if args.render_printed else ''}"
                  f"{f', one double-{args.top} set per photo' if args.top else ''} -> {folder}")
            render_validation(args.render_seed, args.render_count, args.top or reader.config.max_value, folder,
                              args.render_long_side, args.render_hard_cases, args.render_pip_contrast,
                              args.render_printed, args.top or 0, args.render_gray_contrast)
        n = ev.rendered(folder, args.limit)
        rt = ev.tallies.get(("rendered", "colour"), Tally("rendered"))
        told = "" if args.top is None else (f", read as a double-{args.top} set (halves read up to "
                                            f"{reader.readable_top(args.top)})")
        print(f"\n== Rendered validation ({n} images{told})")
        print(table([("rendered", rt)]))
        print()
        print(band_table(rt.by_length))
        print(f"photos where tiles under 40 px were counted: {rt.small_photos}, "
              f"of them warned to be taken closer: {rt.small_photos_warned}")
        print("true tiles not read exactly:  " + ", ".join(f"{why} {rt.lost[why]}" for why in LOST_REASONS)
              + "  (unsure / not pips / overlap: read but left uncounted)")
        print("exact tile by photo colour:  " + " | ".join(
            f"{name}: {row[0]} tiles, exact {pct(row[1] / row[0]).strip()}"
            for name in ("colour", "grey") if (row := rt.by_colour.get(name)) and row[0]))
        print()
        print(kind_table(rt.by_kind, rt.figures()["exact_tile"]))
        print()
        print(check_table([("rendered", rt)]))
        print()
        print(confusion_table(rt.confusion, "Half values, rendered"))
        report["rendered"] = {"folder": str(folder), **rt.figures(), "by_length": rt.by_length,
                              "small_photos": rt.small_photos, "small_photos_warned": rt.small_photos_warned,
                              "lost": {why: rt.lost[why] for why in LOST_REASONS}, "by_colour": rt.by_colour}
        if args.lost:
            args.lost.write_text(json.dumps(ev.lost_tiles, indent=1) + "\n")
            print(f"{len(ev.lost_tiles)} tiles not read exactly written to {args.lost}")
        if args.lost_montage:
            lost_montage(ev.lost_tiles).save(args.lost_montage)
            print(f"{len(ev.lost_tiles)} tiles not read exactly drawn in {args.lost_montage}")
        if args.closeups:
            m = ev.closeups(folder, args.render_seed, args.limit)
            ct = ev.tallies.get(("close-ups", "colour"), Tally("close-ups"))
            print(f"\n== Rendered close-ups ({m} crops of those images)")
            print(table([("close-ups", ct)]))
            report["closeups"] = ct.figures()

    if not args.skip_real:
        root = args.realdata or realdata_root()
        if not root.is_dir():
            print(f"\n== Real photos: skipped, {root} is absent (see shared/realdata/README.md)")
        else:
            excluded = set(reader.config.extra.get("finetuned_on", []) or [])
            if args.exclude:
                excluded |= {ln.strip() for ln in args.exclude.read_text().splitlines() if ln.strip()}
            unknown = sorted(set(args.exclude_source) - {p.name for p in root.iterdir()})
            if unknown:
                print(f"error: --exclude-source: no folder {', '.join(unknown)} in {root}", file=sys.stderr)
                return 2
            left_out = set(args.exclude_source)
            samples = [s for s in real_samples(root) if s.rel not in excluded and source_of(s.rel) not in left_out]
            halves = [h for h in half_crop_samples(root) if h[2] not in excluded and source_of(h[2]) not in left_out]
            n_excl = len(excluded)
            print(f"\n== Real photos from {root} ({len(samples)} labelled images, {len(halves)} half "
                  f"crops; {n_excl} files excluded as fine-tuning data"
                  + (f"; sources left out: {', '.join(sorted(left_out))}" if left_out else "") + ")")
            ev.real(samples)
            ev.half_crops(halves)
            report["real"] = _report_real(ev)
    if ev.skipped:
        print("\nunreadable files skipped:\n  " + "\n  ".join(ev.skipped))
    print(f"\n(evaluation took {time.time() - t0:.0f} s)")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    if cleanup is not None and not args.keep_rendered:
        shutil.rmtree(cleanup, ignore_errors=True)
    return 0


SCENES = ("JackRoache__METR4202-2016", "danb-dev-ui__DominoCounter",
          "TAK1EDD1NE__domino-tile-recognition", "jeremyarde__domino-counter")
#: Scene sources kept out of the pooled row of :data:`SCENES` (one board, one set, 100 photos of
#: five games: pooled, they would outweigh every other source).
APART = (RUXI12,)
CROPS = ("Funallingus__METR4202_PROJECT_REPOSITORY tile crops", "jeremyarde__domino-counter tile crops")
LABELS = {
    "JackRoache__METR4202-2016": "JackRoache webcam+phone (lists*)",
    "danb-dev-ui__DominoCounter": "danb-dev-ui phone (lists*)",
    "TAK1EDD1NE__domino-tile-recognition": "TAK1EDD1NE (boxes)",
    "jeremyarde__domino-counter": "jeremyarde phone (half boxes)",
    RUXI12: "Ruxi12 board, grid only (obb)",
    "Funallingus__METR4202_PROJECT_REPOSITORY tile crops": "Funallingus tile crops (loose)",
    "jeremyarde__domino-counter tile crops": "jeremyarde tile crops (tight)",
    MANY: MANY,
}


def _pool(ev: Evaluator, mode: str, sources: Any, name: str, rows: list[tuple[str, Tally]]) -> Tally:
    """Append each source's row and then their pooled row to ``rows``; return the pool."""
    pooled = Tally(name)
    for src in sources:
        t = ev.tallies.get((src, mode))
        if t:
            rows.append((LABELS[src], t))
            pooled.merge(t)
    rows.append((name, pooled))
    return pooled


def _report_real(ev: Evaluator) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for mode in ev.modes:
        rows: list[tuple[str, Tally]] = []
        pooled = _pool(ev, mode, SCENES, "ALL real scene photos", rows)
        many = ev.tallies.get((MANY, mode))
        if many:
            rows.append((MANY, many))
        rows += [(LABELS[src], t) for src in APART if (t := ev.tallies.get((src, mode)))]
        crops = _pool(ev, mode, CROPS, "ALL single-tile crops", rows)
        print(f"\n-- {mode}: scenes and crops")
        print(table(rows))
        print("   tot.ok / pen.ok: every tile as read (open ones too, what a player gets confirming each as shown);\n"
              "   the tiles asked about (0-0 or face down?) are not reads.")
        print()
        print(check_table(rows))
        kinds = Tally("kinds")
        kinds.merge(pooled)
        kinds.merge(crops)
        print()
        print(f"By kind of tile, real scenes + crops, {mode}:")
        print(kind_table(kinds.by_kind, kinds.figures()["exact_tile"]))
        fd = ev.facedown[mode]
        print()
        print(f"Face-down confusion, {mode}: karthikVenkataramana (pose boxes): face-up tiles {fd['poses_up']}, "
              f"called face down {fd['poses_up_called_face_down']}, asked about {fd['poses_up_asked']}; "
              f"face-down tiles {fd['poses_down']}, read as tiles {ev.poses[mode]['down_read']}, "
              f"asked about {fd['poses_down_asked']}; questions asked in all {fd['poses_asked_anywhere']}")
        print(f"  box-labelled scenes: face-up tiles {fd['boxes_up']}, called face down "
              f"{fd['boxes_up_called_face_down']}, asked about {fd['boxes_up_asked']}; "
              f"all-face-down photos ({fd['backs_photos']}): tiles counted {fd['backs_photo_tiles_counted']}, "
              f"asked about {fd['backs_photo_asked']}; list-labelled photos ({fd['list_photos']}): face-up tiles "
              f"missed where a back or question was ({fd['list_missed_with_back_or_question']}, count only)")
        print("   * lists: labels name the tiles but not where they are; detections are paired with "
              "labelled tiles by value,\n     so recall/precision there are count-based and half "
              "accuracy is optimistic.")
        hc = ev.tallies.get(("jeremyarde__domino-counter half crops", mode))
        if hc:
            print(f"half crops (classifier only): {hc.halves_ok}/{hc.halves} = {pct(hc.halves_ok / max(1, hc.halves))}")
        if ev.crop_counts[mode]:
            print(f"loose crops where the detector found no tile (whole crop read instead): "
                  f"{ev.crop_fallbacks[mode]}/{ev.crop_counts[mode]}")
        pc = ev.poses[mode]
        if pc["photos"]:
            print(f"karthikVenkataramana poses ({pc['photos']} photos, count only): face-up found "
                  f"{pc['up_read']}/{pc['up_boxes']} = {pct(pc['up_read'] / max(1, pc['up_boxes']))}; "
                  f"face-down read as tiles {pc['down_read']}/{pc['down_boxes']}; standing edge-on read "
                  f"{pc['edge_read']}/{pc['edge_boxes']}; reads matching no box {pc['unmatched_reads']}")
        allconf = Counter(pooled.confusion)
        allconf.update(crops.confusion)
        print()
        print(confusion_table(allconf, f"Half values, real scenes + crops, {mode}"))
        verdicts = [(LABELS[src], v) for src in SCENES if (v := ev.verdicts.get((src, mode)))]
        verdicts.append(("ALL real scene photos", VerdictTally([x for _, v in verdicts for x in v.verdicts])))
        verdicts += [(LABELS[src], v) for src in APART if (v := ev.verdicts.get((src, mode)))]
        print()
        print(f"Photos judged by their headline, {mode} (chickenfoot.vision.lab.verdict):")
        print(verdict_table(verdicts))
        print("   right: nothing to check, penalty right (the only right); (95%): where the share right lies\n"
              "   for photos like these (Wilson interval): two photos more or fewer of 36 are within it;\n"
              "   asked: something to check and the\n"
              "   counted part not over the truth (ptd: the tiles asked about are all that is wrong);\n"
              "   wrong,asked: the counted part already over the truth. 0-0: photos with a face-up 0-0 and\n"
              "   where they fall (right/asked/wrong,silent/wrong,asked). check/photo: tiles left to check per\n"
              "   photo; (0-0?): of them, 0-0-or-back questions. outside/photo: finds outside the labelled part\n"
              "   (Ruxi12's printed track, JackRoache's background) counted as sure tiles, per photo (in how\n"
              "   many photos); never held against a photo.")
        wrong = [line for label, v in verdicts if not label.startswith("ALL") for line in v.figures()["wrong_photos"]]
        if wrong:
            print("   wrong photos:\n     " + "\n     ".join(wrong))
        out[mode] = {
            "verdicts": {label: v.figures() for label, v in verdicts},
            "per_source": {label: t.figures() for label, t in rows},
            "half_crops": None if not hc else {"correct": hc.halves_ok, "total": hc.halves},
            "poses": dict(pc),
            "face_down": dict(ev.facedown[mode]),
            "by_kind": {k: list(v) for k, v in kinds.by_kind.items()},
            "loose_crop_fallbacks": ev.crop_fallbacks[mode],
        }
    return out


if __name__ == "__main__":
    sys.exit(main())
