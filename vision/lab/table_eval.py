"""How well a table photo becomes the right layout: ``python -m chickenfoot.vision.lab.table_eval``.

Renders table photos (:mod:`chickenfoot.vision.lab.datasets.table`: a bot-played round stopped part way, laid out as
players lay it) and reads each one twice: from the true tile boxes and values (the layout
step alone) and with the shipped reader (the whole pipeline, as the app and ``chickenfoot
layout`` run it). Each is scored with the round's double named (as the app does, knowing the
round) and guessed from the photo alone. Printed per way:

* layout exact: photos whose hub and every joint (tile, what it is played on) are right;
* joints recall / precision: over all joints in the photos;
* same verdict: photos where the rules core finds the same problems (by code) in the read
  layout as in the true one, so a dispute would be settled the same way.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from PIL import Image

from chickenfoot.rules.errors import ChickenFootError
from chickenfoot.rules.layout import Layout, check_layout
from chickenfoot.rules.ruleset import get_rules
from chickenfoot.vision.lab.datasets.render import TileLabel
from chickenfoot.vision.reader import Reader, Reading, TileReading
from chickenfoot.vision.table import Look, read_table

#: Seeds the printed figures in the model card were measured on.
DEFAULT_SEED = 91001


@dataclass
class Tally:
    photos: int = 0
    exact: int = 0
    hub: int = 0
    joints_true: int = 0
    joints_read: int = 0
    joints_right: int = 0
    same_verdict: int = 0
    failed: Counter[str] = field(default_factory=Counter)

    def add(self, truth: Layout, read: Layout | None) -> None:
        self.photos += 1
        want = {(p.tile, p.on) for p in truth.plays}
        self.joints_true += len(want)
        if read is None:
            return
        got = {(p.tile, p.on) for p in read.plays}
        self.joints_read += len(got)
        self.joints_right += len(want & got)
        self.hub += read.hub == truth.hub
        self.exact += read.hub == truth.hub and want == got
        same = Layout(read.hub, read.plays, truth.rules, truth.set, ordered=False)
        try:
            codes = sorted(p.code for p in check_layout(same).problems)
        except ChickenFootError:
            codes = ["unreadable"]
        self.same_verdict += codes == sorted(p.code for p in check_layout(truth).problems)

    def row(self) -> dict[str, float]:
        n = max(1, self.photos)
        return {
            "photos": self.photos,
            "layout_exact": round(100 * self.exact / n, 1),
            "hub_right": round(100 * self.hub / n, 1),
            "joint_recall": round(100 * self.joints_right / max(1, self.joints_true), 1),
            "joint_precision": round(100 * self.joints_right / max(1, self.joints_read), 1),
            "same_verdict": round(100 * self.same_verdict / n, 1),
            **({"no_layout": dict(self.failed)} if self.failed else {}),
        }


def truth_reading(labels: list[dict[str, object]], size: tuple[int, int]) -> Reading:
    """A :class:`Reading` of exactly the rendered tiles (the layout step judged alone)."""
    tiles = []
    for t in labels:
        lab = TileLabel(int(t["a"]), int(t["b"]), tuple(map(tuple, t["quad"])))  # type: ignore[arg-type, call-overload]
        tiles.append(TileReading(lab.a, lab.b, 1.0, lab.box(), False, 1.0, (1.0, 1.0)))
    return Reading(tuple(tiles), 0, 0, (), size)


def _score(tally: Tally, reading: Reading, truth: Layout, hub: bool, look: Look | None = None) -> None:
    try:
        got = read_table(reading, hub=truth.hub if hub else None, set=truth.set, rules=truth.rules,
                         look=look).layout
    except ChickenFootError as exc:
        tally.failed[type(exc).__name__] += 1
        got = None
    tally.add(truth, got)


def evaluate(folder: Path, reader: Reader | None, no_look: bool = False) -> dict[str, dict[str, float]]:
    ways = {"truth_boxes_hub_named": Tally(), "truth_boxes_hub_guessed": Tally()}
    if reader is not None:
        ways |= {"reader_hub_named": Tally(), "reader_hub_guessed": Tally()}
    for f in sorted(folder.glob("*.json")):
        data = json.loads(f.read_text())
        truth = Layout.from_dict(data["layout"])
        img = f.with_suffix(".jpg")
        with Image.open(img) as im:
            size = im.size
        exact = truth_reading(data["tiles"], size)
        _score(ways["truth_boxes_hub_named"], exact, truth, True)
        _score(ways["truth_boxes_hub_guessed"], exact, truth, False)
        if reader is not None:
            loaded = reader.load(img)
            reading = reader.read(loaded, rules=get_rules(truth.rules), top=truth.set)
            look = None if no_look else partial(reader.look_at, loaded, top=truth.set)
            _score(ways["reader_hub_named"], reading, truth, True, look)
            _score(ways["reader_hub_guessed"], reading, truth, False, look)
    return {k: v.row() for k, v in ways.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m chickenfoot.vision.lab.table_eval", description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=200, help="table photos to render (default %(default)s)")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--data", type=Path, help="use table photos already written by chickenfoot.vision.lab.datasets.table")
    ap.add_argument("--models", type=Path, help="models folder (default: the shipped models)")
    ap.add_argument("--truth-only", action="store_true", help="judge the layout step alone (no reader)")
    ap.add_argument("--no-look", action="store_true",
                    help="do not read the gaps where a tile was missed (the reader's uncounted candidates in them still join)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    from chickenfoot.vision.lab.datasets.table import write_tables

    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="cf-tables-") as tmp:
        folder = args.data
        if folder is None:
            folder = Path(tmp)
            print(f"rendering {args.count} table photos (seed {args.seed}) ...", file=sys.stderr, flush=True)
            write_tables(folder, args.count, args.seed)
        reader = None if args.truth_only else Reader.from_models_dir(args.models).for_table()
        rows = evaluate(folder, reader, args.no_look)
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print(f"{'way':<26}{'photos':>7}{'exact':>8}{'hub':>8}{'j.rec':>8}{'j.prec':>8}{'verdict':>9}")
        for name, r in rows.items():
            print(f"{name:<26}{r['photos']:>7}{r['layout_exact']:>7.1f}%{r['hub_right']:>7.1f}%"
                  f"{r['joint_recall']:>7.1f}%{r['joint_precision']:>7.1f}%{r['same_verdict']:>8.1f}%")
        print(f"({time.time() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
