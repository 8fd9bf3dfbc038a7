"""Peak memory of ``load_image`` on the worst images its limits admit, one fresh process each.

For every decoded mode the worst case is the largest image the limits let through
(``MAX_PIXELS``, ``DECODE_BUDGET``); each is written as a small single-colour file (a few
hundred KB that decode to hundreds of MB) and loaded at the reader's working size. Prints the
peak resident memory of the process (Python, Pillow and numpy included) per case; the target
is 600 MB or less::

    .venv/bin/python benchmarks/bench_image_memory.py [--keep DIR]
"""

from __future__ import annotations

import argparse
import math
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from chickenfoot.vision.images import DECODE_BUDGET, MAX_PIXELS, decode_cost  # noqa: E402

CASES = [  # (mode, format, whole): the largest square of each the limits admit
    ("L", "PNG", False), ("1", "PNG", False), ("P", "PNG", False), ("LA", "PNG", False),
    ("RGB", "PNG", False), ("RGBA", "PNG", False), ("I;16", "PNG", False), ("I", "TIFF", False),
    ("F", "TIFF", False), ("CMYK", "TIFF", False), ("RGB", "WEBP", False), ("RGB", "JPEG", False),
    ("RGBA", "PNG", True), ("L", "PNG", True),
]


def largest_side(mode: str, fmt: str, whole: bool) -> int:
    """The longest square side the limits admit for this mode and format."""
    from PIL import Image

    probe = Image.new(mode, (1000, 1000))
    probe.format = fmt
    if mode == "P":
        probe.info["transparency"] = 0
    per_pixel = decode_cost(probe, whole) / 1e6
    side = math.isqrt(int(min(MAX_PIXELS, DECODE_BUDGET / per_pixel)))
    return min(side, 16383) if fmt == "WEBP" else side


MAKE = """
import sys
from PIL import Image
path, mode, fmt, side = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
im = Image.new(mode, (side, side), 1 if mode in ("1", "P") else None)
if mode == "P":
    im.info["transparency"] = 0
extra = {"PNG": {"compress_level": 1}, "TIFF": {"compression": "tiff_deflate"}}.get(fmt, {})
im.save(path, fmt, **extra)
"""


def make(path: Path, mode: str, fmt: str, side: int) -> None:
    # In a child process: this one stays small, and the children it measures start small
    # (a forked child's peak memory counts what it inherited).
    subprocess.run([sys.executable, "-c", MAKE, str(path), mode, fmt, str(side)], check=True)


def measure(path: Path, whole: bool) -> tuple[int, str]:
    # VmHWM (Linux) is the child's own peak; ru_maxrss can carry the parent's over exec.
    code = ("import resource, sys\n"
            "from chickenfoot.vision.images import load_image\n"
            f"img = load_image({str(path)!r}, {None if whole else 1600})\n"
            "try:\n"
            "    kb = int(next(x for x in open('/proc/self/status') if x.startswith('VmHWM:')).split()[1])\n"
            "except OSError:\n"
            "    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
            "print(img.size, kb)\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    if out.returncode:
        return -1, out.stderr.strip().splitlines()[-1]
    size, rss = out.stdout.rsplit(" ", 1)
    return int(rss) // 1024, size.strip()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keep", type=Path, help="write the images here and keep them")
    args = ap.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="bench-image-memory-"))
    folder.mkdir(parents=True, exist_ok=True)
    worst = 0
    print(f"DECODE_BUDGET {DECODE_BUDGET // 2**20} MB, MAX_PIXELS {MAX_PIXELS / 1e6:.0f} MP")
    for mode, fmt, whole in CASES:
        side = largest_side(mode, fmt, whole)
        path = folder / f"{mode.replace(';', '_')}-{side}.{fmt.lower()}"
        if not path.exists():
            make(path, mode, fmt, side)
        mb, what = measure(path, whole)
        worst = max(worst, mb)
        print(f"{mode:>5} {fmt:<5} {side}x{side} {'whole' if whole else 'at 1600'}: "
              f"peak {mb} MB ({what}; file {path.stat().st_size // 1024} KB)", flush=True)
        if not args.keep:
            path.unlink()
    print(f"worst peak: {worst} MB (target 600 MB); this process: "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
