"""Re-create ``table.jpg`` + ``table.json``: a rendered picture of a Chicken Foot table (drawn by
the project's renderer, not photographed) with the layout it shows.

    python tests/data/make_table_photo.py            # the seed the rule below picks: 41021
    python tests/data/make_table_photo.py --seed N   # another scene

Rendered by ``chickenfoot.vision.lab.datasets.table.render_table`` at 960x720: a double-chicken-foot round the bots
played part way, laid out as players lay it. The seed is picked from the scene alone, never from
a reading of it (:func:`table_seed`): the first seed from 41000 (outside every range the training
and evaluation scripts use) whose scene is a double-chicken-foot double-9 round of 10-22 tiles
with the hub's six spokes and at least one foot, every foot with its three toes: a legal table
with nothing open, which is what the CLI, dispute-checker and app tests built on it ask about.
Those tests assert what ``table.json`` says; how often the reader reads such tables right is
``python -m chickenfoot.vision.lab.table_eval``'s business, not theirs.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from chickenfoot.vision.lab.datasets.table import TableScene, render_table

HERE = Path(__file__).resolve().parent
FIRST_SEED = 41000


def closed_table(scene: TableScene, size: int) -> bool:
    """A double-chicken-foot double-9 round of 10-22 tiles, the hub with all its spokes, and at
    least one foot, each with all its toes."""
    truth = scene.truth
    on = Counter(p.on for p in truth.plays)
    feet = [d for d in on if d.is_double and d != truth.hub]
    return (truth.rules == "double-chicken-foot" and truth.set == 9 and 10 <= size <= 22
            and on[truth.hub] == scene.spokes and bool(feet) and all(on[d] == scene.toes for d in feet))


def table_seed() -> int:
    """The first seed from :data:`FIRST_SEED` whose scene is a :func:`closed_table`."""
    seed = FIRST_SEED
    while not closed_table(scene := render_table(seed, width=960, height=720)[1], len(scene.labels)):
        seed += 1
    return seed


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=None, help="default: table_seed()")
    ap.add_argument("--name", default="table")
    args = ap.parse_args()
    seed = table_seed() if args.seed is None else args.seed
    img, scene = render_table(seed, width=960, height=720)
    img.save(HERE / f"{args.name}.jpg", quality=90)  # type: ignore[attr-defined]
    label = {
        "image": f"{args.name}.jpg",
        "layout": scene.truth.to_dict(),
        "tiles": [t.to_json() for t in scene.labels],
        "made_with": f"python tests/data/make_table_photo.py --seed {seed}",
    }
    (HERE / f"{args.name}.json").write_text(json.dumps(label, indent=1) + "\n")
    print(scene.truth.to_json(indent=None))


if __name__ == "__main__":
    main()
