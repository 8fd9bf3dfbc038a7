"""``python -m vision.lab.bench``: end-to-end reading latency and model size.

Times ``Reader.read(path)`` - decode from the file on disk to the finished list of tiles - on
a 12-megapixel photo (4000 x 3000) and a 640 x 480 one, and prints the median (and the 90th
percentile and the median of each stage). Targets: under 150 ms and under 50 ms on the
project's 2-core machine, models under 10 MB.

The two photos are rendered scenes (``datasets.render``, fixed seeds) with camera-like sensor
noise added before JPEG encoding, so the files weigh about what a phone writes (a noiseless
render compresses 5-10x better and would decode unrealistically fast). Pass ``--photo`` to
time your own photos too; a real 8-megapixel phone photo from ``../shared/realdata`` is timed
as well when that folder is present. ``--set 18`` renders the two photos from one double-18 set
and tells the reader so, which times the wide-set half reader.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image

from companion.rules import ChickenFootError, get_rules
from vision.reader import Reader

from .evaluate import DEFAULT_REALDATA

TARGETS_MS = {"12 MP (4000x3000)": 150.0, "640x480": 50.0}
MODEL_TARGET_MB = 10.0
REAL_PHONE_PHOTO = "JackRoache__METR4202-2016/images/test_3__31811764.jpg"


def make_photo(path: Path, size: tuple[int, int], seed: int, noise: float = 4.0, set_top: int = 0) -> Path:
    """A rendered table photo at ``size`` (tiles of one double-``set_top`` set, if given), with
    sensor-like noise, saved as a JPEG (quality 92)."""
    from datasets.render import SceneConfig, render_scene  # data making, only for the bench input

    rng = np.random.default_rng([seed, 0])
    img, _ = render_scene(rng, SceneConfig(width=size[0], height=size[1], tile_frac=(0.06, 0.12), set_top=set_top))
    arr = np.asarray(img, np.float32)
    arr = arr + np.random.default_rng(seed).normal(0, noise, arr.shape).astype(np.float32)
    Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8)).save(path, quality=92)
    return path


def time_reads(reader: Reader, path: Path, runs: int, warmup: int = 2, top: int | None = None) -> dict[str, float]:
    rules = get_rules()
    for _ in range(warmup):
        reader.read(path, rules, top)
    totals, stages = [], {"decode": [], "detect": [], "halves": []}
    tiles = 0
    for _ in range(runs):
        t0 = time.perf_counter()
        reading = reader.read(path, rules, top)
        totals.append((time.perf_counter() - t0) * 1e3)
        tiles = len(reading.tiles)
        for k in stages:
            stages[k].append(reading.timings_ms.get(k, 0.0))
    totals.sort()
    return {
        "median_ms": statistics.median(totals),
        "p90_ms": totals[min(len(totals) - 1, round(0.9 * (len(totals) - 1)))],
        **{f"{k}_ms": statistics.median(v) for k, v in stages.items()},
        "tiles": tiles,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.lab.bench", description=__doc__.split("\n")[0])
    ap.add_argument("--models", type=Path, default=None, help="models folder (default: models/)")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--photo", type=Path, action="append", default=[], help="also time this photo")
    ap.add_argument("--keep", type=Path, default=None, help="write the bench photos here and keep them")
    ap.add_argument("--set", type=int, default=None, choices=(6, 9, 12, 15, 18), metavar="N", dest="top",
                    help="photos of one double-N set, read as such (15, 18: the wide-set half reader)")
    args = ap.parse_args(argv)
    try:
        reader = Reader.from_models_dir(args.models)
    except ChickenFootError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    work = args.keep or Path(tempfile.mkdtemp(prefix="cf-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    d = f"_d{args.top}" if args.top else ""
    photos: list[tuple[str, Path]] = [
        ("12 MP (4000x3000)", make_photo(work / f"bench_12mp{d}.jpg", (4000, 3000), seed=4242, set_top=args.top or 0)),
        ("640x480", make_photo(work / f"bench_640x480{d}.jpg", (640, 480), seed=4243, set_top=args.top or 0)),
    ]
    real = Path(os.environ.get("CHICKENFOOT_REALDATA", DEFAULT_REALDATA)) / REAL_PHONE_PHOTO
    if real.exists():
        photos.append(("real phone photo 3840x2160", real))
    photos += [(p.name, p) for p in args.photo]

    cpus = os.cpu_count()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"reader: det {reader.detector.imgsz}px, halves {reader.cls_imgsz}px, decode to "
          f"~{reader.config.decode_max_side}px, small tiles zoomed up to {reader.config.fine_max_zoom:g}x, "
          f"onnxruntime threads {reader.config.threads}"
          f"{f'; a double-{args.top} set, halves read up to {reader.readable_top(args.top)}' if args.top else ''}; "
          f"{cpus} CPU cores, load average {load:.1f}; median of {args.runs} runs after 2 warm-up runs")
    print(f"{'photo':<28} {'file':>8} {'tiles':>5} {'median':>8} {'p90':>8} {'decode':>7} "
          f"{'detect':>7} {'halves':>7}  target")
    failed = False
    for label, path in photos:
        r = time_reads(reader, path, args.runs, top=args.top)
        target = TARGETS_MS.get(label)
        verdict = ""
        if target is not None:
            ok = r["median_ms"] < target
            failed |= not ok
            verdict = f"< {target:.0f} ms {'MET' if ok else 'MISSED'}"
        size_kb = path.stat().st_size / 1024
        print(f"{label:<28} {size_kb:>6.0f}KB {r['tiles']:>5} {r['median_ms']:>6.1f}ms "
              f"{r['p90_ms']:>6.1f}ms {r['decode_ms']:>5.1f}ms {r['detect_ms']:>5.1f}ms "
              f"{r['halves_ms']:>5.1f}ms  {verdict}")
    files = reader.config.model_files
    sizes = {f: (reader.models_dir / f).stat().st_size / 2**20 for f in files} if reader.models_dir else {}
    total = sum(sizes.values())
    print("model size: " + ", ".join(f"{f} {mb:.2f} MB" for f, mb in sizes.items())
          + f"; total {total:.2f} MB (target < {MODEL_TARGET_MB:.0f} MB "
          + ("MET)" if total < MODEL_TARGET_MB else "MISSED)"))
    if not args.keep:
        for _, p in photos[:2]:
            p.unlink(missing_ok=True)
        if not any(work.iterdir()):
            work.rmdir()
    if failed:
        print("(a latency target was missed; timings on a shared machine vary, rerun to confirm)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
