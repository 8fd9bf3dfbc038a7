"""``python -m chickenfoot.vision.lab.turned``: the labelled real photos read turned.

A photo taken straight down onto a table has no up: the phone guesses its orientation, and a
player may stand at any side. This reads every labelled real scene photo of the chosen sources
as it is and turned a quarter, a half and three quarters (its pixels, not its EXIF tag), maps
each reading back onto the upright photo and judges its headline as
:mod:`chickenfoot.vision.lab.evaluate` does (right with nothing to check, asked, wrong with
nothing asked; :mod:`chickenfoot.vision.lab.verdict`), one table per turn, colour and grey.

    python -m chickenfoot.vision.lab.turned [--models DIR] [--source NAME ...] [--turns 0,90,180,270] [--no-gray]
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
import time
from pathlib import Path

from chickenfoot.rules import get_rules
from chickenfoot.vision.geometry import OrientedBox
from chickenfoot.vision.images import LoadedImage, load_image
from chickenfoot.vision.reader import Reader
from chickenfoot.vision.reading import Reading, TileReading

from .datasets.render import TURNS, turn_point
from .evaluate import LABELS, SCENES, grey_copy
from .realdata import real_samples, realdata_root
from .verdict import OUTCOMES, PER_PHOTO_KINDS, VerdictTally, judge_sample, verdict_table


def turn(loaded: LoadedImage, degrees: int) -> LoadedImage:
    """The photo turned ``degrees`` (0, 90, 180 or 270) counter-clockwise, pixels and all."""
    if degrees == 0:
        return loaded
    w, h = loaded.original_size
    size = (h, w) if degrees in (90, 270) else (w, h)
    return LoadedImage(loaded.image.transpose(TURNS[degrees]), size, loaded.name)


def box_back(box: OrientedBox, degrees: int, size: tuple[int, int]) -> OrientedBox:
    """``box`` found on a photo turned ``degrees`` counter-clockwise, in the pixels of the
    upright photo of ``size`` (width, height)."""
    if degrees == 0:
        return box
    if degrees not in TURNS:
        raise ValueError(f"turns are 0, 90, 180 or 270 degrees, not {degrees}")
    # turning the turned photo on to a whole turn brings it back upright
    w, h = size
    ux, uy = turn_point(box.cx, box.cy, 360 - degrees, (h, w) if degrees in (90, 270) else (w, h))
    return OrientedBox(ux, uy, box.length, box.width, box.angle + math.radians(degrees))


def reading_back(reading: Reading, degrees: int, size: tuple[int, int]) -> Reading:
    """``reading`` of the photo turned ``degrees``, its boxes on the upright photo of ``size``."""
    def back(t: TileReading) -> TileReading:
        return t if t.box is None else dataclasses.replace(t, box=box_back(t.box, degrees, size))

    return dataclasses.replace(reading, tiles=tuple(back(t) for t in reading.tiles),
                               candidates=tuple(back(t) for t in reading.candidates),
                               backs=tuple(box_back(b, degrees, size) for b in reading.backs), image_size=size)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m chickenfoot.vision.lab.turned", description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", type=Path, default=None, help="models folder (default: the shipped models)")
    ap.add_argument("--realdata", type=Path, default=None, help="labelled real photos (default: shared/realdata)")
    ap.add_argument("--source", action="append", default=None,
                    help=f"a realdata folder to read (repeatable; default the four held-out scene sources: {', '.join(SCENES)})")
    ap.add_argument("--turns", default="0,90,180,270", help="turns to read each photo at, degrees counter-clockwise")
    ap.add_argument("--no-gray", action="store_true", help="colour only")
    args = ap.parse_args(argv)
    turns = [int(t) for t in args.turns.split(",")]
    if any(t not in (0, *TURNS) for t in turns):
        ap.error("--turns takes 0, 90, 180 and 270")
    root = args.realdata or realdata_root()
    if not root.is_dir():
        print(f"no labelled real photos at {root}", file=sys.stderr)
        return 2
    sources = tuple(args.source or SCENES)
    reader = Reader.from_models_dir(args.models)
    rules = get_rules()
    modes = ("colour",) if args.no_gray else ("colour", "gray")
    tallies: dict[tuple[int, str, str], VerdictTally] = {}
    t0 = time.time()
    for s in real_samples(root):
        if s.kind not in PER_PHOTO_KINDS or s.source not in sources:
            continue
        upright = load_image(s.path, reader.config.decode_max_side)
        for mode in modes:
            img = upright if mode == "colour" else grey_copy(upright)
            for t in turns:
                reading = reader.read(turn(img, t), rules, sets=s.sets)
                verdict, _ = judge_sample(s, reading_back(reading, t, upright.original_size), rules, mode)
                tallies.setdefault((t, mode, s.source), VerdictTally()).add(verdict)
    pooled: dict[tuple[str, int], VerdictTally] = {}
    for mode in modes:
        for t in turns:
            rows = [(LABELS.get(src, src), v) for src in sources if (v := tallies.get((t, mode, src)))]
            pooled[mode, t] = everything = VerdictTally([x for _, v in rows for x in v.verdicts])
            print(f"\n-- {mode}, turned {t} degrees")
            print(verdict_table([*rows, ("ALL", everything)]))
            for v in everything.verdicts:
                if v.wrong:
                    print("   ", v.describe())
    print(f"\nsummary (right / asked / wrong, nothing asked / wrong, though asked), {len(sources)} sources:")
    for (mode, t), everything in pooled.items():
        print(f"  {mode:6} {t:3d} deg: " + " / ".join(str(everything.count(o)) for o in OUTCOMES)
              + f" of {len(everything.verdicts)}")
    print(f"(took {time.time() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
