"""``python -m chickenfoot.vision.lab.bench``: end-to-end reading latency and model size.

Times ``Reader.read(path)`` - decode from the file on disk to the finished list of tiles, penalty
and warnings - on a 12-megapixel photo (4000 x 3000, 24 tiles), a 640 x 480 one and a real
3840 x 2160 phone photo of one tile, and prints the median (and the 90th percentile, the
median of each stage: decode, detect, halves, and the CPU time a read takes on all its threads,
which other programs' load inflates less than the wall-clock figures). Targets on the project's 2-core machine: 60 ms,
25 ms and 40 ms; models 5 MB or less.

``--models DIR`` (repeatable) times the reader of another models folder beside the shipped one,
in the same run: each photo is read by every reader in turn, run after run, so all see the same
load and the figures stand side by side. ``DIR`` may also be a ``reader.json`` file: that
config, with the models in its folder. ``--threads N`` (repeatable) times each reader again with
its pixel work (the detector's shrinks and the tile crops, :data:`chickenfoot.vision.images.THREADS`)
on N threads, in the same turns; ``--threads 1`` is each of them one plain Pillow call.

The two rendered photos are scenes (``chickenfoot.vision.lab.datasets.render``, fixed seeds) with camera-like sensor
noise added before JPEG encoding, so the files weigh about what a phone writes (a noiseless
render compresses 5-10x better and would decode unrealistically fast). Pass ``--photo`` to
time your own photos too. ``--set 18`` renders the two photos from one double-18 set and tells
the reader so, which times the wide-set half reader.
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

from chickenfoot.rules import ChickenFootError, get_rules
from chickenfoot.vision import images
from chickenfoot.vision.reader import Reader, Reading

from .realdata import realdata_root

REAL_LABEL = "phone 3840x2160, 1 tile"
TARGETS_MS = {"12 MP (4000x3000)": 60.0, "640x480": 25.0, REAL_LABEL: 40.0}
MODEL_TARGET_MB = 5.0
REAL_PHONE_PHOTO = "JackRoache__METR4202-2016/images/test_3__31811764.jpg"
STAGES = ("decode", "detect", "halves")


def make_photo(path: Path, size: tuple[int, int], seed: int, noise: float = 4.0, set_top: int = 0) -> Path:
    """A rendered table photo at ``size`` (tiles of one double-``set_top`` set, if given), with
    sensor-like noise, saved as a JPEG (quality 92)."""
    from chickenfoot.vision.lab.datasets.render import (  # data making, only for the bench input
        SceneConfig,
        render_scene,
    )

    rng = np.random.default_rng([seed, 0])
    img, _ = render_scene(rng, SceneConfig(width=size[0], height=size[1], tile_frac=(0.06, 0.12), set_top=set_top))
    arr = np.asarray(img, np.float32)
    arr = arr + np.random.default_rng(seed).normal(0, noise, arr.shape).astype(np.float32)
    Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8)).save(path, quality=92)
    return path


def open_reader(spec: Path | None) -> Reader:
    """The reader of a models folder, or of a ``reader.json`` with the models beside it (None:
    the shipped models)."""
    if spec is not None and spec.suffix == ".json":
        return Reader.from_models_dir(spec.parent, spec)
    return Reader.from_models_dir(spec)


def time_reads(readers: list[Reader], path: Path, runs: int, warmup: int = 2, top: int | None = None,
               threads: list[int] | None = None) -> list[dict[str, float]]:
    """Each reader's figures on ``path``: the readers take turns, run after run (reader ``i``
    with its pixel work on ``threads[i]`` threads, when given)."""
    rules = get_rules()
    default = images.THREADS

    def read(i: int) -> Reading:
        images.THREADS = threads[i] if threads else default
        try:
            return readers[i].read(path, rules, top)
        finally:
            images.THREADS = default

    for _ in range(warmup):
        for i in range(len(readers)):
            read(i)
    totals: list[list[float]] = [[] for _ in readers]
    cpu: list[list[float]] = [[] for _ in readers]
    stages: list[dict[str, list[float]]] = [{k: [] for k in STAGES} for _ in readers]
    tiles = [0] * len(readers)
    for _ in range(runs):
        for i in range(len(readers)):
            t0, c0 = time.perf_counter(), time.process_time()
            reading = read(i)
            totals[i].append((time.perf_counter() - t0) * 1e3)
            cpu[i].append((time.process_time() - c0) * 1e3)
            tiles[i] = len(reading.tiles)
            for k in STAGES:
                stages[i][k].append(reading.timings_ms.get(k, 0.0))
    out = []
    for i in range(len(readers)):
        t = sorted(totals[i])
        out.append({
            "median_ms": statistics.median(t),
            "p90_ms": t[min(len(t) - 1, round(0.9 * (len(t) - 1)))],
            "cpu_ms": statistics.median(cpu[i]),
            **{f"{k}_ms": statistics.median(v) for k, v in stages[i].items()},
            "tiles": tiles[i],
        })
    return out


def model_sizes(reader: Reader) -> dict[str, float]:
    files = reader.config.model_files
    return {f: (reader.models_dir / f).stat().st_size / 2**20 for f in files} if reader.models_dir else {}


def load_average() -> str:
    return f"{os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else "?"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m chickenfoot.vision.lab.bench", description=__doc__.split("\n")[0])
    ap.add_argument("--models", type=Path, action="append", default=[], metavar="DIR",
                    help="also time the reader of this models folder (or reader.json), side by side")
    ap.add_argument("--threads", type=int, action="append", default=[], metavar="N",
                    help="also time each reader with its pixel work on N threads (1: plain Pillow calls)")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--photo", type=Path, action="append", default=[], help="also time this photo")
    ap.add_argument("--keep", type=Path, default=None,
                    help="write the bench photos here and keep them (photos already there are reused)")
    ap.add_argument("--set", type=int, default=None, choices=(6, 9, 12, 15, 18), metavar="N", dest="top",
                    help="photos of one double-N set, read as such (15, 18: the wide-set half reader)")
    args = ap.parse_args(argv)
    specs: list[Path | None] = [None, *args.models]
    try:
        readers = [open_reader(spec) for spec in specs]
    except ChickenFootError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    names = ["shipped" if spec is None else str(spec) for spec in specs]
    threads: list[int] = []
    if args.threads:
        counts = [images.THREADS, *(n for n in args.threads if n != images.THREADS)]
        readers = [r for r in readers for _ in counts]
        names = [f"{name}, {n} thread{'s' if n > 1 else ''}" for name in names for n in counts]
        threads = counts * len(specs)

    work = args.keep or Path(tempfile.mkdtemp(prefix="cf-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    d = f"_d{args.top}" if args.top else ""
    photos: list[tuple[str, Path]] = []
    for label, name, size, seed in (("12 MP (4000x3000)", "bench_12mp", (4000, 3000), 4242),
                                    ("640x480", "bench_640x480", (640, 480), 4243)):
        path = work / f"{name}{d}.jpg"
        photos.append((label, path if path.is_file() else make_photo(path, size, seed=seed, set_top=args.top or 0)))
    real = realdata_root() / REAL_PHONE_PHOTO
    if real.exists():
        photos.append((REAL_LABEL, real))
    photos += [(p.name, p) for p in args.photo]

    print(f"{os.cpu_count()} CPU cores, load average {load_average()} at the start; median of {args.runs} runs "
          f"after 2 warm-up runs, the readers taking turns")
    print(f"pixel work (tile crops; shrinks while a core is free, now {'yes' if images.core_free() else 'no'}) on "
          f"{images.THREADS} thread(s) unless named; cpu: CPU time of the process, all threads")
    for name, reader in zip(names, readers, strict=True):
        print(f"reader {name}: det {reader.detector.imgsz}px, halves {reader.cls_imgsz}px, decode to "
              f"~{reader.config.decode_max_side}px, small tiles zoomed up to {reader.config.fine_max_zoom:g}x, "
              f"onnxruntime threads {reader.config.threads}"
              f"{f'; a double-{args.top} set, halves read up to {reader.readable_top(args.top)}' if args.top else ''}")
    width = max(8, *(len(n) for n in names))
    print(f"{'photo':<28} {'reader':<{width}} {'file':>8} {'tiles':>5} {'median':>8} {'p90':>8} {'decode':>7} "
          f"{'detect':>7} {'halves':>7} {'cpu':>7}  target")
    failed = False
    for label, path in photos:
        results = time_reads(readers, path, args.runs, top=args.top, threads=threads or None)
        target = TARGETS_MS.get(label)
        size_kb = path.stat().st_size / 1024
        for i, (name, r) in enumerate(zip(names, results, strict=True)):
            verdict = ""
            if target is not None:
                ok = r["median_ms"] <= target
                failed |= not ok and i == 0
                verdict = f"<= {target:.0f} ms {'MET' if ok else 'MISSED'}"
            print(f"{label if i == 0 else '':<28} {name:<{width}} {size_kb:>6.0f}KB {r['tiles']:>5} "
                  f"{r['median_ms']:>6.1f}ms {r['p90_ms']:>6.1f}ms {r['decode_ms']:>5.1f}ms {r['detect_ms']:>5.1f}ms "
                  f"{r['halves_ms']:>5.1f}ms {r['cpu_ms']:>5.0f}ms  {verdict}")
    for name, reader in list(zip(names, readers, strict=True))[:: max(1, len(readers) // len(specs))]:
        sizes = model_sizes(reader)
        total = sum(sizes.values())
        print(f"model size ({name}): " + ", ".join(f"{f} {mb:.2f} MB" for f, mb in sizes.items())
              + f"; total {total:.2f} MB (target <= {MODEL_TARGET_MB:.0f} MB "
              + ("MET)" if total <= MODEL_TARGET_MB else "MISSED)"))
    print(f"load average {load_average()} at the end")
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
