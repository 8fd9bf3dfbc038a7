"""How a reader does on the plain faces of the Ruxi12 photos: face-up 0-0s and blank halves.

    python -m chickenfoot.vision.lab.ruxi_faces --models DIR --games 4 5

Each true tile of the photos of ``games`` (``boxes.csv``, see :mod:`chickenfoot.vision.lab.real_boxes`)
is matched by oriented-box IoU (0.5) to the reading's tiles, and ends in one of: ``exact`` (a
read tile of the right values), ``misread`` (a read tile of other values), ``asked`` (the reader
asks about it: a possible 0-0), ``uncounted`` (seen as a possible tile and left out, with its
reason), ``missed`` (not seen at all). Counted per kind of tile (0-0, a blank half 0-x, the
rest), in colour and on grayscale copies. Finds on no true tile are ``false`` inside the grid
and ``on the track`` outside it (the printed dominoes round the board).

Only games a detector never trained on should be quoted (the faces pass trains on games 1-3).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from chickenfoot.rules import get_rules
from chickenfoot.vision.detections import obb_corners
from chickenfoot.vision.geometry import OrientedBox, polygon_iou
from chickenfoot.vision.images import LoadedImage, load_image
from chickenfoot.vision.lab.real_boxes import SOURCE, RealBoxesError, game_of
from chickenfoot.vision.lab.realdata import realdata_root
from chickenfoot.vision.lab.tally import greedy_match
from chickenfoot.vision.reader import Reader

KINDS = ("0-0", "0-x", "other")
OUTCOMES = ("exact", "misread", "asked", "uncounted", "missed")


def kind(a: int, b: int) -> str:
    return "0-0" if a == b == 0 else "0-x" if 0 in (a, b) else "other"


def ruxi_tiles(root: Path, games: list[int]) -> dict[str, list[tuple[int, int, OrientedBox]]]:
    """The true tiles of each photo of ``games``: values and oriented box (stored-photo pixels)."""
    path = root / SOURCE / "boxes.csv"
    if not path.is_file():
        raise RealBoxesError(f"{path}: no such file (is ../shared/realdata present?)")
    out: dict[str, list[tuple[int, int, OrientedBox]]] = defaultdict(list)
    with path.open(newline="", encoding="utf-8") as fh:
        for r in csv.DictReader(fh):
            if game_of(r["file"]) in games:
                box = OrientedBox(float(r["cx"]), float(r["cy"]), float(r["length"]), float(r["width"]),
                                  math.radians(float(r["angle_deg"])))
                out[r["file"]].append((int(r["pips_1"]), int(r["pips_2"]), box))
    if not out:
        raise RealBoxesError(f"{SOURCE}: no tiles in games {games}")
    return dict(sorted(out.items()))


def _grid(root: Path) -> dict[int, tuple[float, float, float, float]]:
    with (root / SOURCE / "grid_corners.csv").open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    return {int(r["game"]): (min(float(r["top_left_x"]), float(r["bottom_left_x"])),
                             min(float(r["top_left_y"]), float(r["top_right_y"])),
                             max(float(r["top_right_x"]), float(r["bottom_right_x"])),
                             max(float(r["bottom_left_y"]), float(r["bottom_right_y"]))) for r in rows}


def _corners(boxes: list[OrientedBox]) -> np.ndarray:
    return obb_corners([[b.cx, b.cy, b.length, b.width, b.angle] for b in boxes])


def _match(gt_c: np.ndarray, which: list[int], reads: list[Any]) -> dict[int, int]:
    """True tiles ``which`` (indices into ``gt_c``) paired with ``reads`` by oriented-box IoU."""
    rd_c = _corners([t.box for t in reads])
    return {which[i]: j for i, j in greedy_match(len(which), len(reads),
                                                 lambda i, j: polygon_iou(gt_c[which[i]], rd_c[j]))}


def score(reader: Reader, games: list[int], gray: bool = True, root: Path | None = None) -> dict[str, Any]:
    """Outcomes per mode and kind of tile, false finds, and the photos read."""
    root = root or realdata_root()
    tiles = ruxi_tiles(root, games)
    grids = _grid(root)
    rules = get_rules()
    res: dict[str, Any] = {"photos": len(tiles), "games": games}
    for mode in ("colour", "gray") if gray else ("colour",):
        counts: dict[str, Counter[str]] = {k: Counter() for k in KINDS}
        reasons: Counter[str] = Counter()
        false_in, on_track, photos_right = 0, 0, 0
        for rel, truth in tiles.items():
            loaded = load_image(root / SOURCE / rel, reader.config.decode_max_side)
            if mode == "gray":
                loaded = LoadedImage(loaded.image.convert("L").convert("RGB"), loaded.original_size, loaded.name)
            reading = reader.read(loaded, rules)
            reads = [t for t in reading.tiles if not t.question]
            asked = list(reading.questions)
            cands = list(reading.candidates)
            gt_c = _corners([b for _, _, b in truth])
            found = _match(gt_c, list(range(len(truth))), reads)
            free = [i for i in range(len(truth)) if i not in found]
            got_asked = set(_match(gt_c, free, asked))
            rest = [i for i in free if i not in got_asked]
            seen = {i: cands[j].uncounted or "unsure" for i, j in _match(gt_c, rest, cands).items()}
            right = True
            for i, (a, b, _) in enumerate(truth):
                k = kind(a, b)
                if i in found:
                    t = reads[found[i]]
                    ok = sorted((t.a, t.b)) == sorted((a, b))
                    counts[k]["exact" if ok else "misread"] += 1
                    right &= ok
                elif i in got_asked:
                    counts[k]["asked"] += 1
                elif i in seen:
                    counts[k]["uncounted"] += 1
                    reasons[str(seen[i])] += 1
                    right = False
                else:
                    counts[k]["missed"] += 1
                    right = False
            x0, y0, x1, y1 = grids[game_of(rel)]
            used = set(found.values())
            for j, t in enumerate(reads):
                if j not in used:
                    inside = x0 <= t.box.cx <= x1 and y0 <= t.box.cy <= y1
                    false_in += inside
                    on_track += not inside
            right &= not any(j not in used and x0 <= t.box.cx <= x1 and y0 <= t.box.cy <= y1
                             for j, t in enumerate(reads))
            photos_right += right
        res[mode] = {"by_kind": {k: dict(counts[k]) | {"n": sum(counts[k].values())} for k in KINDS},
                     "uncounted_reasons": dict(reasons), "false_in_grid": false_in, "on_track": on_track,
                     "photos_all_read_exactly": photos_right}
    return res


def table(res: dict[str, Any]) -> str:
    lines = ["| mode | kind | tiles | " + " | ".join(OUTCOMES) + " |", "|---|---|---|" + "---|" * len(OUTCOMES)]
    for mode in ("colour", "gray"):
        if mode not in res:
            continue
        for k in KINDS:
            c = res[mode]["by_kind"][k]
            lines.append(f"| {mode} | {k} | {c['n']} | " + " | ".join(str(c.get(o, 0)) for o in OUTCOMES) + " |")
    for mode in ("colour", "gray"):
        if mode in res:
            r = res[mode]
            lines.append(f"{mode}: {r['photos_all_read_exactly']} of {res['photos']} photos with every grid tile read "
                         f"exactly and no false tile in the grid; false in grid {r['false_in_grid']}, "
                         f"finds on the track {r['on_track']}; uncounted because {r['uncounted_reasons']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m chickenfoot.vision.lab.ruxi_faces", description=__doc__.split("\n")[0])
    ap.add_argument("--models", type=Path, default=Path(__file__).resolve().parents[2] / "models")
    ap.add_argument("--games", type=int, nargs="+", default=[4, 5])
    ap.add_argument("--no-gray", action="store_true")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    try:
        res = score(Reader.from_models_dir(args.models), args.games, not args.no_gray)
    except (OSError, RealBoxesError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(table(res))
    if args.json:
        args.json.write_text(json.dumps(res, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
