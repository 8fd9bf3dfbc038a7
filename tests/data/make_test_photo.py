"""Re-create ``hand.jpg`` + ``hand.json``: a rendered table photo with known tiles.

    python tests/data/make_test_photo.py [--seed 31009]
    python tests/data/make_test_photo.py --set 18 --seed 31018 --name hand18   # a double-18 hand

Rendered with the project's own renderer (``chickenfoot.vision.lab.datasets.render.render_scene``), 960x720, tiles
11-15% of the long side, wood table, 13 face-up tiles (0-0 among them) and face-down tiles
that must not be counted. The seed is outside every range the training scripts use.
``--set 18`` draws the tiles from one double-18 set, with readable pips (``pip_contrast`` 100,
as the wide-set classifier's training data).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from chickenfoot.rules import Tile, get_rules
from chickenfoot.vision.lab.datasets.render import SceneConfig, render_scene

HERE = Path(__file__).resolve().parent


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=31009)
    ap.add_argument("--set", type=int, default=0, dest="set_top", help="tiles of one double-N set")
    ap.add_argument("--name", default="hand")
    args = ap.parse_args()
    rng = np.random.default_rng([args.seed, 0])
    big = {} if not args.set_top else {"set_top": args.set_top, "pip_contrast": 100.0}
    img, labels = render_scene(rng, SceneConfig(width=960, height=720, tile_frac=(0.11, 0.15), **big))
    img.save(HERE / f"{args.name}.jpg", quality=90)
    tiles = [Tile(t.a, t.b) for t in labels]
    label = {
        "image": f"{args.name}.jpg",
        "tiles": sorted(str(t) for t in tiles),
        "pips": sum(t.pips for t in tiles),
        "penalty_default_rules": get_rules().penalty(tiles),
        "boxes": [lab.to_json() for lab in labels],
        "made_with": "python tests/data/make_test_photo.py --seed "
        + (f"{args.seed}" if not args.set_top else f"{args.seed} --set {args.set_top} --name {args.name}"),
    }
    if args.set_top:
        label["set"] = args.set_top
    (HERE / f"{args.name}.json").write_text(json.dumps(label, indent=1) + "\n")
    print(label["tiles"], label["pips"], label["penalty_default_rules"])


if __name__ == "__main__":
    main()
