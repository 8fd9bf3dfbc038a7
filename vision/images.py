"""Loading the photos real phones and cameras produce, or failing with one clear line.

Everything the reader sees goes through :func:`load_image`: JPEG (EXIF rotation applied),
PNG, WebP, HEIC/HEIF (when ``pillow-heif`` is installed), TIFF, grayscale, 16-bit, palette
and transparent images. Big JPEGs are decoded straight to about the reader's working size
with Pillow's ``draft()`` (the JPEG decoder's DCT scaling): a 12-megapixel photo then costs
a fraction of a full decode. A file that is missing, not an image, truncated or a
decompression bomb raises :class:`ImageError`, whose message is a single line.

:func:`resize` is the reader's big shrink (the detector's letterbox): Pillow's own resize,
split while a core is free into bands resized side by side on :data:`THREADS` threads, pixel for
pixel the same image; :func:`in_parallel` shares out other Pillow work (the tile crops) so.
"""

from __future__ import annotations

import io
import os
import stat
import threading
import warnings
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import BinaryIO, TypeVar

import numpy as np
from PIL import Image, ImageFile, UnidentifiedImageError

from chickenfoot.rules.errors import InputError

#: Largest image accepted, in pixels: a 108 MP phone photo (12000 x 9000) passes; beyond
#: this it is a decompression bomb or nothing anyone photographs dominoes with. (Pillow's own
#: hard limit, 2 x ``Image.MAX_IMAGE_PIXELS`` = 179 MP, stays in force above it.)
MAX_PIXELS = 150_000_000
#: Largest file accepted, in bytes (a 200 MP JPEG is about 60-100 MB).
MAX_BYTES = 256 * 1024 * 1024
#: Most memory the decoded pixels may take, checked from the header before decoding: a photo
#: stored without DCT scaling (PNG, TIFF, WebP, HEIC) is decoded whole, at 1, 2 or 4 bytes a
#: pixel by its mode (Pillow keeps RGB in 4); see :func:`decode_cost`. With the shrink done
#: straight after decoding, the worst image each mode admits peaks at 533 MB for the whole
#: process (``benchmarks/bench_image_memory.py``), under the 600 MB allowed.
DECODE_BUDGET = 400 * 2**20
#: Longest side over shortest side: no photo of dominoes is a thin strip, and the reader's
#: resizes need both sides of at least a pixel at every scale it works at.
MAX_ASPECT = 25

#: Threads the reader's big resizes and its tile crops are split over. Pillow lets go of the
#: GIL while it resamples, so on two free cores the tiles are cut in about half the wall-clock
#: time for the same CPU time, and a shrink in two bands in a little over half, for about 15%
#: more CPU time (:func:`resize`). 1: one plain Pillow call each.
THREADS = min(2, os.cpu_count() or 1)
#: Resizes from fewer pixels than this are not split: the hand-off to a thread (about 0.1 ms)
#: would cost more than it saves.
SPLIT_MIN_PIXELS = 400_000

_HEIF_BRANDS = (b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"mif1", b"msf1", b"avif")

try:  # optional: the `heic` extra
    import pillow_heif

    pillow_heif.register_heif_opener()
    HEIF_SUPPORT = True
except ImportError:  # pragma: no cover - depends on the install
    HEIF_SUPPORT = False

# Never decode half a file silently: a truncated photo must fail, not score a grey band.
ImageFile.LOAD_TRUNCATED_IMAGES = False


class ImageError(InputError):
    """A photo that cannot be used: missing, not an image, damaged, or absurdly large."""


@dataclass(frozen=True, slots=True)
class LoadedImage:
    """A decoded photo at working size, upright, 8-bit RGB.

    ``original_size`` is the upright size of the file itself; ``scale`` maps original pixels to
    working pixels (``working = original * scale``), so boxes found on ``image`` can be reported
    in the coordinates of the photo the user has.
    """

    image: Image.Image
    original_size: tuple[int, int]
    name: str = ""

    @property
    def scale(self) -> float:
        return self.image.size[0] / self.original_size[0]

    @property
    def size(self) -> tuple[int, int]:
        return self.image.size


Source = str | os.PathLike[str] | bytes | BinaryIO | Image.Image


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _is_heif(head: bytes) -> bool:
    return len(head) >= 12 and head[4:8] == b"ftyp" and head[8:12] in _HEIF_BRANDS


def _open(source: Source, name: str) -> tuple[Image.Image, bytes]:
    """Open lazily (header only) and return the image plus the file's first bytes."""
    if isinstance(source, str | os.PathLike):
        path = Path(source)
        try:
            st = path.stat()
        except FileNotFoundError:
            raise ImageError(f"{name}: no such file") from None
        except OSError as exc:  # a name too long, a folder that cannot be entered
            raise ImageError(f"{name}: cannot read file ({_one_line(exc.strerror or exc)})") from None
        if stat.S_ISDIR(st.st_mode):
            raise ImageError(f"{name}: is a folder, not an image")
        size = st.st_size
        if size == 0:
            raise ImageError(f"{name}: empty file, not an image")
        if size > MAX_BYTES:
            raise ImageError(f"{name}: file is {size / 2**20:.0f} MB, larger than {MAX_BYTES // 2**20} MB")
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise ImageError(f"{name}: cannot read file ({_one_line(exc.strerror or exc)})") from None
        fp: BinaryIO = io.BytesIO(data)
    elif isinstance(source, bytes | bytearray | memoryview):
        data = bytes(source)
        if not data:
            raise ImageError(f"{name}: empty data, not an image")
        if len(data) > MAX_BYTES:
            raise ImageError(f"{name}: {len(data) / 2**20:.0f} MB, larger than {MAX_BYTES // 2**20} MB")
        fp = io.BytesIO(data)
    else:
        fp = source  # a binary file object
        pos = fp.tell()
        data = fp.read(16)
        fp.seek(pos)
    head = data[:16]
    try:
        with warnings.catch_warnings():
            # Pillow warns from 89 MP (our own limit, checked next, decides instead) and about
            # damaged tags: a bad file is told in the one line of its ImageError, or not at all.
            warnings.simplefilter("ignore")
            im = Image.open(fp)
            im.size  # noqa: B018 - a header that names no size fails here, not later
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise ImageError(f"{name}: image is absurdly large (decompression bomb), refused") from None
    except UnidentifiedImageError:
        if _is_heif(head) and not HEIF_SUPPORT:
            raise ImageError(
                f"{name}: reading HEIC/HEIF photos needs pillow-heif (pip install pillow-heif into the "
                "companion's environment, or install it with its heic extra: pip install '.[heic]'), "
                "or a JPEG copy of the photo"
            ) from None
        raise ImageError(f"{name}: not an image (JPEG, PNG, WebP, HEIC, ...) or a damaged one") from None
    except MemoryError:
        raise ImageError(f"{name}: image too large to open in memory") from None
    except Exception as exc:  # any decoder's own failure: the decoders raise every kind there is
        if "truncat" in _one_line(exc).lower():
            raise ImageError(f"{name}: image file is truncated (incomplete download or copy?)") from None
        raise ImageError(f"{name}: a damaged image that cannot be opened ({_decoder_message(exc)})") from None
    return im, head


def _decoder_message(exc: BaseException) -> str:
    msg = _one_line(exc)[:200]
    return f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__


def _check_size(im: Image.Image, name: str, max_pixels: int) -> None:
    w, h = im.size
    if w <= 0 or h <= 0:
        raise ImageError(f"{name}: image has no pixels ({w}x{h})")
    if w * h > max_pixels:
        raise ImageError(
            f"{name}: image is {w}x{h} ({w * h / 1e6:.0f} MP), over the {max_pixels / 1e6:.0f} MP "
            "limit (decompression bomb?)"
        )
    if max(w, h) > MAX_ASPECT * min(w, h):
        raise ImageError(f"{name}: image is {w}x{h}, a strip {max(w, h) / min(w, h):.0f} times longer "
                         f"than wide (at most {MAX_ASPECT}:1 is a photo)")


#: Bytes a decoded pixel takes in Pillow, by mode (every other mode, RGB and LA included, 4).
_ONE_BYTE = {"1", "L", "P"}
_TWO_BYTES = {"I;16", "I;16L", "I;16B", "I;16N"}
#: Modes whose shrinking premultiplies the alpha into a full-size copy first.
_ALPHA = {"LA", "La", "PA", "RGBA", "RGBa"}


def _decoded_bytes(im: Image.Image) -> int:
    w, h = im.size
    bpp = 1 if im.mode in _ONE_BYTE else 2 if im.mode in _TWO_BYTES else 4
    return w * h * bpp


def decode_cost(im: Image.Image, whole: bool = False) -> int:
    """Bytes of pixel buffers alive at once while :func:`load_image` decodes ``im`` (from its
    header): the decoded image, the premultiplied copy an alpha image is shrunk through, the
    buffers libwebp decodes into first, and for an image kept whole its RGB conversion."""
    w, h = im.size
    raw = _decoded_bytes(im)
    cost = raw * (4 if im.format == "WEBP" else 2 if im.mode in _ALPHA else 1)
    if whole and im.mode != "RGB":
        cost += w * h * 4 * (3 if im.mode in _ALPHA or "transparency" in im.info else 1)
    return cost


def _check_memory(im: Image.Image, name: str, whole: bool) -> None:
    """Refuse, before decoding, an image whose decoding would not fit :data:`DECODE_BUDGET`."""
    need = decode_cost(im, whole)
    if need > DECODE_BUDGET:
        w, h = im.size
        raise ImageError(f"{name}: a {w}x{h} {im.format or ''} image in mode {im.mode} needs "
                         f"{need / 2**20:.0f} MB to decode, over the {DECODE_BUDGET // 2**20} MB limit "
                         "(save it as JPEG, or smaller)")


def _draft_target(size: tuple[int, int], max_side: int) -> tuple[int, int] | None:
    w, h = size
    long = max(w, h)
    if long <= max_side:
        return None
    s = max_side / long
    return max(1, int(w * s)), max(1, int(h * s))


#: The turn that makes a photo of each EXIF orientation upright (as ImageOps.exif_transpose).
_TURN = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}


def _to_rgb(im: Image.Image) -> Image.Image:
    """8-bit RGB from any mode; transparency over white, 16-bit scaled, not clipped."""
    mode = im.mode
    if mode == "RGB":
        return im
    if mode in ("I;16", "I;16L", "I;16B", "I;16N", "I", "F"):
        arr = np.asarray(im, dtype=np.float64)
        hi = float(arr.max()) if arr.size else 0.0
        if mode == "F" and hi <= 1.0:
            arr = arr * 255.0
        elif hi > 255.0:
            # Scale by the container's range (16-bit) so a dark photo stays dark.
            arr = arr * (255.0 / (65535.0 if hi <= 65535.0 else hi))
        gray = Image.fromarray(np.clip(arr + 0.5, 0, 255).astype(np.uint8), "L")
        return gray.convert("RGB")
    if mode == "P":
        im = im.convert("RGBA") if "transparency" in im.info else im.convert("RGB")
        mode = im.mode
    if mode in ("RGBA", "LA", "PA", "RGBa", "La"):
        rgba = im.convert("RGBA")
        background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        return Image.alpha_composite(background, rgba).convert("RGB")
    if mode == "L" and "transparency" in im.info:
        return _to_rgb(im.convert("LA"))
    return im.convert("RGB")


def load_image(
    source: Source,
    max_side: int | None = None,
    *,
    name: str | None = None,
    max_pixels: int = MAX_PIXELS,
) -> LoadedImage:
    """Decode a photo upright as 8-bit RGB, at about ``max_side`` on its long side.

    Non-JPEG images larger than ``max_side`` are resized to it. JPEGs are decoded at the
    smallest DCT scale (1, 1/2, 1/4, 1/8) that keeps the long side >= ``max_side``, so they come
    out between ``max_side`` and twice it (or are resized if still larger).

    ``source`` is a path, bytes, a binary file object or an already open PIL image.
    Raises :class:`ImageError` (one line) for anything that is not a usable image.
    """
    if name is None:
        name = str(source) if isinstance(source, str | os.PathLike) else "image"
    if isinstance(source, Image.Image):
        im = source
        _check_size(im, name, max_pixels)
    else:
        im, _ = _open(source, name)
        _check_size(im, name, max_pixels)
    stored = im.size
    orientation = _orientation(im)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rgb = _decode(im, max_side, name, orientation)
    except ImageError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise ImageError(f"{name}: image is absurdly large (decompression bomb), refused") from None
    except MemoryError:
        raise ImageError(f"{name}: image too large to decode in memory") from None
    except Exception as exc:  # the decoders raise every kind there is: each is a damaged image
        msg = _one_line(exc)
        if "truncated" in msg.lower() or isinstance(exc, EOFError):
            raise ImageError(f"{name}: image file is truncated (incomplete download or copy?)") from None
        raise ImageError(f"{name}: damaged image ({_decoder_message(exc)})") from None
    full = (stored[1], stored[0]) if orientation in (5, 6, 7, 8) else stored
    if rgb is source or (rgb is im and not isinstance(source, str | os.PathLike | bytes | bytearray | memoryview)):
        # never hand out (or later close) the caller's own object, nor one reading its file
        rgb = rgb.copy()
    return LoadedImage(image=rgb, original_size=(int(full[0]), int(full[1])), name=name)


def _decode(im: Image.Image, max_side: int | None, name: str = "image", orientation: int = 1) -> Image.Image:
    """Decode (shrunk while decoding where the format allows), upright, RGB, <= max_side."""
    if getattr(im, "n_frames", 1) > 1:
        im.seek(0)  # animated/multi-page: the first frame is the photo
    limit = max_side
    if max_side and im.format in ("JPEG", "MPO"):
        target = _draft_target(im.size, max_side)
        if target and im.draft(im.mode, target) is not None:
            # Decoded at 1/2, 1/4 or 1/8 scale in the DCT domain: the long side now lies in
            # [max_side, 2 * max_side). Resizing that again would cost more than the decode
            # saved (17 ms for 1920 -> 1600 here), so it is kept as it is.
            limit = 2 * max_side
    _check_memory(im, name, whole=not max_side)
    im.load()
    if limit and max(im.size) >= 2 * limit:
        # Shrink first, in the decoded mode: converting a full-size image to RGB (and
        # compositing its transparency) would take several times its memory again.
        k = max(im.size) // limit
        if im.mode in _ONE_BYTE or im.mode.startswith("I;16"):
            im = im.resize((max(1, im.size[0] // k), max(1, im.size[1] // k)), Image.Resampling.NEAREST)
        else:
            im = im.reduce(k)
    # Turned by the orientation read from the header; ImageOps.exif_transpose would also write the
    # EXIF block again without its orientation (2 ms of a phone photo), which nothing here reads.
    upright = im.transpose(_TURN[orientation]) if orientation in _TURN else im
    if upright is not im:
        upright.info.pop("exif", None)
    rgb = _to_rgb(upright)
    if limit and max(rgb.size) > limit:
        s = max_side / max(rgb.size)
        new = (max(1, round(rgb.size[0] * s)), max(1, round(rgb.size[1] * s)))
        rgb = rgb.resize(new, Image.Resampling.BILINEAR, reducing_gap=2.0)
    return rgb


T = TypeVar("T")
U = TypeVar("U")
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=max(1, THREADS - 1), thread_name_prefix="chickenfoot-pixels")
        return _pool


def _forget_pool() -> None:
    # a forked child has none of its parent's threads: it starts a pool of its own when it needs one
    global _pool, _pool_lock
    _pool, _pool_lock = None, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


def in_parallel(fn: Callable[[T], U], items: Sequence[T], threads: int | None = None) -> list[U]:
    """``[fn(x) for x in items]``, the items shared out in order over ``threads`` (default
    :data:`THREADS`) threads, the calling thread taking the first share. Only for work that
    lets go of the GIL (Pillow's resampling, transforms and reductions)."""
    n = min(THREADS if threads is None else threads, len(items))
    if n <= 1:
        return [fn(x) for x in items]
    shares = [items[len(items) * i // n : len(items) * (i + 1) // n] for i in range(n)]
    pending = [_executor().submit(lambda share=share: [fn(x) for x in share]) for share in shares[1:]]
    out = [fn(x) for x in shares[0]]
    for future in pending:
        out.extend(future.result())
    return out


def core_free() -> bool:
    """Whether a core is free to take a share of a resize: the load average over the last
    minute is under the number of cores (where the system tells none, as on Windows, yes)."""
    try:
        return os.getloadavg()[0] < (os.cpu_count() or 1)
    except (AttributeError, OSError):
        return True


def _bands(rows: int, n: int) -> list[tuple[int, int]]:
    cuts = [rows * i // n for i in range(n + 1)]
    return list(pairwise(cuts))


def _stack(mode: str, size: tuple[int, int], parts: Sequence[tuple[int, Image.Image]]) -> Image.Image:
    out = Image.new(mode, size)
    for y, part in parts:
        out.paste(part, (0, y))
    return out


def _reduce(image: Image.Image, factor: tuple[int, int], n: int) -> Image.Image:
    """``image.reduce(factor)`` in ``n`` bands of whole blocks of rows (so each output pixel
    averages the same block of pixels as in one call)."""
    w, h = image.size
    fx, fy = factor
    size = (-(-w // fx), -(-h // fy))
    bands = _bands(size[1], n)
    parts = in_parallel(lambda b: image.reduce(factor, box=(0, b[0] * fy, w, min(h, b[1] * fy))), bands, n)
    return _stack(image.mode, size, [(b[0], p) for b, p in zip(bands, parts, strict=True)])


def reduce(image: Image.Image, factor: int) -> Image.Image:
    """``image.reduce(factor)`` (each pixel the mean of a block), in bands of rows reduced side
    by side on :data:`THREADS` threads: the same pixels."""
    n = min(THREADS, image.height // (8 * factor))
    if n < 2 or image.width * image.height < SPLIT_MIN_PIXELS or not core_free():
        return image.reduce(factor)
    return _reduce(image, (factor, factor), n)


def _exact_cuts(size: int, span: float, n: int) -> list[int] | None:
    """Where to cut ``size`` output columns, resized from ``span`` source columns, into ``n``
    bands: near equal shares, each starting at a source column a float32 holds exactly (a whole
    or half column), since Pillow takes a band's source columns as float32 and a rounded start
    would shift the band's filters. None when some cut has no such column."""
    cuts = [0]
    for i in range(1, n):
        near = size * i // n
        for x in sorted(range(max(cuts[-1] + 1, near - size // 8), min(size, near + size // 8 + 1)),
                        key=lambda x: abs(x - near)):
            if (2 * x * span / size).is_integer():
                cuts.append(x)
                break
        else:
            return None
    return [*cuts, size]


def resize(image: Image.Image, size: tuple[int, int], reducing_gap: float | None = None) -> Image.Image:
    """``image.resize(size, BILINEAR, reducing_gap=reducing_gap)`` as Pillow does it (a whole-
    block reduction, then a horizontal and a vertical pass), in bands of columns resized side by
    side on :data:`THREADS` threads: the same pixels (``tests/vision/test_images.py`` compares
    them over the detector's input sizes).

    Each band is the horizontal pass for its own columns, read through ``box`` from the whole
    image (so its filters reach over the band's edges, and start at a whole or half source
    column: the whole image's filters), then the vertical pass, which works column by column.
    Split so, a shrink costs about 15% more CPU time (each band reads every row again), so it is
    split only while a core is free (:func:`core_free`).
    """
    w0, h0 = image.size
    w, h = size
    n = min(THREADS, w // 8)
    # (Pillow 13 runs some shrinks of images taller than wide vertical pass first; those are
    # left to it whole, so that every image comes out as Pillow's own resize makes it)
    if (n < 2 or w0 * h0 < SPLIT_MIN_PIXELS or image.mode not in ("RGB", "L") or w > w0 or h > h0
            or (w, h) == (w0, h0) or h0 > w0 or not core_free()):
        return image.resize(size, Image.Resampling.BILINEAR, reducing_gap=reducing_gap)
    src, box_w, box_h = image, float(w0), float(h0)
    if reducing_gap is not None:
        # Pillow's own choice (Image.resize): reduce by whole blocks first, then resample the rest
        fx, fy = int(w0 / w / reducing_gap) or 1, int(h0 / h / reducing_gap) or 1
        if fx > 1 or fy > 1:
            src, box_w, box_h = _reduce(image, (fx, fy), n), w0 / fx, h0 / fy
    cuts = _exact_cuts(w, box_w, n) if (2 * box_w).is_integer() else None
    if cuts is None or w == src.width:
        return src.resize(size, Image.Resampling.BILINEAR, box=(0, 0, box_w, box_h))
    height = src.height

    def band(cols: tuple[int, int]) -> Image.Image:
        x0, x1 = cols
        # the horizontal pass alone (all rows: box and size the same height), then the vertical
        part = src.resize((x1 - x0, height), Image.Resampling.BILINEAR,
                          box=(x0 * box_w / w, 0, x1 * box_w / w, height))
        return part if (h, box_h) == (height, float(height)) else part.resize(
            (x1 - x0, h), Image.Resampling.BILINEAR, box=(0, 0, x1 - x0, box_h))

    bands = list(pairwise(cuts))
    parts = in_parallel(band, bands, n)
    out = Image.new(image.mode, size)
    for (x0, _), part in zip(bands, parts, strict=True):
        out.paste(part, (x0, 0))
    return out


def _orientation(im: Image.Image) -> int:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "Corrupt EXIF data": the photo is read upright
            value = im.getexif().get(0x0112, 1)
        return int(value) if value in range(1, 9) else 1
    except Exception:  # a broken EXIF block is ignored, as viewers do
        return 1


def image_size(source: str | os.PathLike[str]) -> tuple[int, int]:
    """Upright pixel size of an image file without decoding it (EXIF rotation applied)."""
    im, _ = _open(source, str(source))
    w, h = im.size
    return (h, w) if _orientation(im) in (5, 6, 7, 8) else (w, h)
