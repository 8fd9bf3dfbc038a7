"""The server's share of a photo in the app: from the photo's bytes to the review and its preview.

Times :func:`chickenfoot.app.photo_review.read_photo` (decode once, read for the widest set,
draw the display-sized JPEG preview) plus keeping the photo beside a scorekeeper file, as the
round screen runs them in its worker thread, with the shipped reader loaded and warmed as the
server does it. Photos: a rendered 12-megapixel photo with camera-like noise (the reader
bench's, about 2.2 MB), a 1280 x 960 one, and any ``--photo``. Prints the median and each
stage's median (``keep``: the photo is written once, later runs find it kept), and the
preview's size.

The whole path in a browser (upload, this, the screen drawn) is timed by
``tests/app/test_e2e_photo_review.py`` (run it with ``-s``), which prints the time from
choosing a photo to its penalty on screen at 360 px.

    python benchmarks/bench_app_photo.py [--runs 9] [--photo PATH ...]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--photo", type=Path, action="append", default=[], help="also time this photo")
    args = ap.parse_args(argv)

    from chickenfoot.app.photo_review import Preview, read_photo, warm
    from chickenfoot.app.store import MatchStore
    from chickenfoot.rules import get_rules
    from chickenfoot.vision.lab.bench import make_photo
    from chickenfoot.vision.reader import Reader

    t0 = time.perf_counter()
    reader = Reader.from_models_dir()
    warm(reader)
    print(f"reader loaded and warmed in {(time.perf_counter() - t0) * 1e3:.0f} ms (once per server, "
          "in the background)")
    rules = get_rules()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        photos = [("12 MP (4000x3000, rendered)", make_photo(work / "p12.jpg", (4000, 3000), seed=4242)),
                  ("1280x960 (rendered)", make_photo(work / "p1280.jpg", (1280, 960), seed=7)),
                  *((p.name, p) for p in args.photo)]
        store = MatchStore.open(work / "matches.json")
        try:
            for what, path in photos:
                data = path.read_bytes()
                totals: list[float] = []
                stages: dict[str, list[float]] = {}
                size = 0
                for _ in range(args.runs):
                    preview = Preview()
                    t = time.perf_counter()
                    review, ms = read_photo(reader, data, rules, 9, preview, 280)
                    t_keep = time.perf_counter()
                    store.put_photo(data)
                    ms["keep"] = (time.perf_counter() - t_keep) * 1e3
                    totals.append((time.perf_counter() - t) * 1e3)
                    for k, v in ms.items():
                        stages.setdefault(k, []).append(v)
                    size = len(preview.jpeg(review, 280))
                med = {k: statistics.median(v) for k, v in stages.items()}
                print(f"{what}: {len(data) / 2**20:.1f} MB, {len(review.tiles)} tiles; median "
                      f"{statistics.median(totals):.0f} ms (min {min(totals):.0f}) = "
                      + ", ".join(f"{k} {v:.0f}" for k, v in med.items())
                      + f"; preview {preview.size[0]}x{preview.size[1]} JPEG {size / 1024:.0f} KB")
        finally:
            store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
