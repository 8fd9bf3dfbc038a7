"""Re-create ``hand.jpg`` + ``hand.json``: a rendered table photo with known tiles.

    python tests/data/make_test_photo.py [--seed 31009]

Rendered with the project's own renderer (``datasets.render.render_scene``), 960x720, tiles
11-15% of the long side, wood table, 13 face-up tiles (0-0 among them) and face-down tiles
that must not be counted. The seed is outside every range the training scripts use.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from companion.rules import Tile, get_rules
from datasets.render import SceneConfig, render_scene

HERE = Path(__file__).resolve().parent


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=31009)
    args = ap.parse_args()
    rng = np.random.default_rng([args.seed, 0])
    img, labels = render_scene(rng, SceneConfig(width=960, height=720, tile_frac=(0.11, 0.15)))
    img.save(HERE / "hand.jpg", quality=90)
    tiles = [Tile(t.a, t.b) for t in labels]
    label = {
        "image": "hand.jpg",
        "tiles": sorted(str(t) for t in tiles),
        "pips": sum(t.pips for t in tiles),
        "penalty_default_rules": get_rules().penalty(tiles),
        "boxes": [lab.to_json() for lab in labels],
        "made_with": f"python tests/data/make_test_photo.py --seed {args.seed}",
    }
    (HERE / "hand.json").write_text(json.dumps(label, indent=1) + "\n")
    print(label["tiles"], label["pips"], label["penalty_default_rules"])


if __name__ == "__main__":
    main()
