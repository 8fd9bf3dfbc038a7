"""Image loading on real files of every kind a phone, a camera or a bad download produces."""

from __future__ import annotations

import io
import struct
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from chickenfoot.rules.errors import ChickenFootError
from chickenfoot.vision.images import MAX_PIXELS, ImageError, image_size, load_image
from chickenfoot.vision.lab.realdata import realdata_root

RED = (220, 30, 30)


def _marked(w: int = 400, h: int = 200) -> Image.Image:
    """Grey image with a red block in the stored top-left corner."""
    im = Image.new("RGB", (w, h), (128, 128, 128))
    im.paste(RED, (0, 0, w // 4, h // 4))
    return im


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _png(width: int, height: int, bit_depth: int, colour_type: int, raw_rows: bytes) -> bytes:
    """A PNG written byte by byte (for kinds Pillow cannot write, e.g. 48-bit RGB)."""
    ihdr = struct.pack(">IIBBBBB", width, height, bit_depth, colour_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", ihdr)
            + _png_chunk(b"IDAT", zlib.compress(raw_rows)) + _png_chunk(b"IEND", b""))


def _is_red(pixel: tuple[int, ...]) -> bool:
    r, g, b = pixel[:3]
    return r > 170 and g < 90 and b < 90


def test_jpeg_with_exif_rotation_comes_out_upright(tmp_path: Path):
    path = tmp_path / "rotated.jpg"
    exif = Image.Exif()
    exif[0x0112] = 6  # stored landscape, shown rotated 90 degrees clockwise
    _marked().save(path, quality=95, exif=exif.tobytes())
    loaded = load_image(path)
    assert loaded.image.size == (200, 400)
    assert loaded.original_size == (200, 400)
    assert image_size(path) == (200, 400)
    # The stored top-left corner is the displayed top-right after a clockwise turn.
    assert _is_red(loaded.image.getpixel((190, 10)))
    assert not _is_red(loaded.image.getpixel((10, 10)))


def test_big_jpeg_decodes_near_working_size_and_keeps_original_size(tmp_path: Path):
    path = tmp_path / "12mp.jpg"
    exif = Image.Exif()
    exif[0x0112] = 8
    _marked(4000, 3000).save(path, quality=85, exif=exif.tobytes())
    loaded = load_image(path, max_side=1600)
    assert loaded.original_size == (3000, 4000)  # upright, full resolution
    long_side = max(loaded.image.size)
    assert 1600 <= long_side < 3200  # DCT-scaled, not a full 4000 px decode
    assert loaded.image.size[1] > loaded.image.size[0]  # portrait like the original
    assert loaded.scale == pytest.approx(loaded.image.size[0] / 3000)
    small = load_image(path, max_side=300)  # beyond DCT scaling: resized to the limit
    assert max(small.image.size) <= 600
    assert small.image.mode == "RGB"


def test_png_larger_than_max_side_is_resized(tmp_path: Path):
    path = tmp_path / "big.png"
    _marked(2000, 1000).save(path)
    loaded = load_image(path, max_side=800)
    assert loaded.image.size == (800, 400)
    assert loaded.original_size == (2000, 1000)
    assert _is_red(loaded.image.getpixel((10, 10)))


def test_grayscale_and_16_bit_grayscale(tmp_path: Path):
    gray = tmp_path / "gray.jpg"
    Image.new("L", (64, 32), 90).save(gray)
    loaded = load_image(gray)
    assert loaded.image.mode == "RGB" and abs(loaded.image.getpixel((5, 5))[0] - 90) <= 2

    ramp = np.tile(np.linspace(0, 65535, 256).astype(np.uint16), (16, 1))
    p16 = tmp_path / "gray16.png"
    Image.fromarray(ramp).save(p16)
    assert Image.open(p16).mode.startswith("I")
    img = np.asarray(load_image(p16).image)
    # Scaled into 8 bits, not clipped: the middle of the ramp is mid-grey, the end white.
    assert img[0, 0, 0] == 0 and img[0, -1, 0] == 255
    assert 120 <= img[0, 128, 0] <= 135


def test_48_bit_rgb_png(tmp_path: Path):
    w, h = 8, 4
    px = np.zeros((h, w, 3), ">u2")
    px[..., 0] = 60000  # strong red in 16 bits per channel
    px[..., 2] = 10000
    rows = b"".join(b"\x00" + px[y].tobytes() for y in range(h))
    path = tmp_path / "rgb48.png"
    path.write_bytes(_png(w, h, 16, 2, rows))
    r, g, b = load_image(path).image.getpixel((3, 2))
    assert r > 220 and g == 0 and 30 < b < 45


def test_rgba_and_palette_transparency_go_over_white(tmp_path: Path):
    rgba = Image.new("RGBA", (20, 10), (0, 0, 0, 0))
    rgba.paste((200, 0, 0, 255), (0, 0, 10, 10))
    path = tmp_path / "rgba.png"
    rgba.save(path)
    loaded = load_image(path).image
    assert loaded.getpixel((15, 5)) == (255, 255, 255)
    assert loaded.getpixel((5, 5)) == (200, 0, 0)

    pal = Image.new("P", (20, 10), 0)
    pal.putpalette([0, 0, 0, 0, 0, 200] + [0] * 762)
    pal.paste(1, (0, 0, 10, 10))
    ppath = tmp_path / "pal.png"
    pal.save(ppath, transparency=0)
    loaded = load_image(ppath).image
    assert loaded.getpixel((15, 5)) == (255, 255, 255)
    assert loaded.getpixel((5, 5)) == (0, 0, 200)


def test_webp_and_tiff(tmp_path: Path):
    for ext in ("webp", "tiff"):
        path = tmp_path / f"photo.{ext}"
        _marked(120, 60).save(path)
        loaded = load_image(path)
        assert loaded.image.size == (120, 60) and _is_red(loaded.image.getpixel((5, 5)))


def test_heic_when_pillow_heif_is_installed(tmp_path: Path):
    pillow_heif = pytest.importorskip("pillow_heif", reason="HEIC needs the heic extra")
    path = tmp_path / "phone.heic"
    try:
        pillow_heif.from_pillow(_marked(128, 64)).save(str(path), quality=90)
    except Exception as exc:  # a libheif build without an HEVC encoder
        pytest.skip(f"pillow-heif cannot encode HEIC here: {exc}")
    loaded = load_image(path)
    assert loaded.image.size == (128, 64)
    assert _is_red(loaded.image.getpixel((8, 8)))


def test_bytes_file_objects_and_pil_images_are_accepted(tmp_path: Path):
    buf = io.BytesIO()
    _marked(40, 20).save(buf, format="PNG")
    assert load_image(buf.getvalue()).image.size == (40, 20)
    buf.seek(0)
    assert load_image(buf).image.size == (40, 20)
    src = _marked(40, 20).convert("RGBA")
    out = load_image(src)
    assert out.image.mode == "RGB" and out.image is not src


def _assert_one_line(err: ImageError, *words: str) -> None:
    text = str(err)
    assert "\n" not in text and text.strip() == text
    for w in words:
        assert w in text.lower()
    assert isinstance(err, ChickenFootError)


def test_truncated_jpeg_is_refused(tmp_path: Path):
    good = tmp_path / "good.jpg"
    rng = np.random.default_rng(1)
    Image.fromarray(rng.integers(0, 255, (300, 400, 3), dtype=np.uint8)).save(good, quality=90)
    cut = tmp_path / "cut.jpg"
    cut.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    with pytest.raises(ImageError) as err:
        load_image(cut)
    _assert_one_line(err.value, "truncated", "cut.jpg")
    with pytest.raises(ImageError):
        load_image(cut, max_side=100)  # the draft path fails the same way


def test_text_file_named_jpg_is_refused(tmp_path: Path):
    path = tmp_path / "notes.jpg"
    path.write_text("3-4, 5-5, 0-0\nthis is not a photo\n")
    with pytest.raises(ImageError) as err:
        load_image(path)
    _assert_one_line(err.value, "not an image")


def test_missing_empty_and_folder(tmp_path: Path):
    with pytest.raises(ImageError) as err:
        load_image(tmp_path / "nope.jpg")
    _assert_one_line(err.value, "no such file")
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    with pytest.raises(ImageError) as err:
        load_image(empty)
    _assert_one_line(err.value, "empty")
    with pytest.raises(ImageError) as err:
        load_image(tmp_path)
    _assert_one_line(err.value, "folder")


def test_decompression_bomb_header_is_refused_before_decoding(tmp_path: Path):
    # A valid PNG whose header claims 60000 x 60000 pixels (3.6 gigapixels), a few bytes long.
    path = tmp_path / "bomb.png"
    path.write_bytes(_png(60000, 60000, 1, 0, b"\x00" * 10))
    with pytest.raises(ImageError) as err:
        load_image(path)
    _assert_one_line(err.value, "large")


def test_real_bomb_over_our_limit_is_refused(tmp_path: Path):
    # A genuine 1-bit PNG of 12500 x 12500 (156 MP, 4 KB of zlib): over MAX_PIXELS, under
    # Pillow's own hard limit, so our check is the one that catches it.
    w = h = 12500
    assert w * h > MAX_PIXELS
    row = b"\x00" + b"\x00" * ((w + 7) // 8)
    path = tmp_path / "bomb1bit.png"
    path.write_bytes(_png(w, h, 1, 0, row * h))
    assert path.stat().st_size < 200_000
    with pytest.raises(ImageError) as err:
        load_image(path)
    _assert_one_line(err.value, "limit")
    with pytest.raises(ImageError):
        load_image(_marked(100, 100), max_pixels=5000)


CORPUS = Path(__file__).resolve().parents[1] / "fuzz" / "corpus" / "image"


@pytest.mark.parametrize("size", [(1700, 2), (2, 1700), (830, 1), (260, 10)])
def test_strips_are_refused_before_decoding(size: tuple[int, int]):
    buf = io.BytesIO()
    Image.new("RGB", size, "white").save(buf, "PNG")
    with pytest.raises(ImageError) as err:
        load_image(buf.getvalue(), 1600)
    _assert_one_line(err.value, "strip")
    assert load_image(Image.new("RGB", (250, 10), "white"), 1600).size == (250, 10)  # 25:1 passes


def test_any_decoder_failure_is_an_image_error(monkeypatch: pytest.MonkeyPatch):
    for name, said in (("tiff-bad-dimensions.tif", "a damaged image that cannot be opened (valueerror"),
                       ("tiff-bad-tag-type.tif", "damaged image (typeerror")):
        with pytest.raises(ImageError) as err:
            load_image(CORPUS / name, 1600)
        _assert_one_line(err.value, said)

    def broken_load(self: Any) -> None:
        raise TypeError("Missing dimensions")

    photo = _marked(100, 100)
    monkeypatch.setattr(Image.Image, "load", broken_load)
    with pytest.raises(ImageError) as err:
        load_image(photo, 1600)
    _assert_one_line(err.value, "damaged image (typeerror: missing dimensions)")


def test_memory_is_checked_from_the_header_before_decoding():
    from chickenfoot.vision.images import DECODE_BUDGET, decode_cost

    big = Image.new("RGBA", (1, 1))
    big._size = (10500, 10500)  # a header's claim: nothing is decoded
    assert decode_cost(big) > DECODE_BUDGET
    with pytest.raises(ImageError) as err:
        from chickenfoot.vision.images import _check_memory

        _check_memory(big, "x.png", whole=False)
    _assert_one_line(err.value, "needs")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux /proc")
def test_the_single_colour_12000_px_png_stays_under_600_mb():
    """The issue's image (a 144 MP PNG of a few hundred KB) took 1.24 GB; in a fresh process."""
    # VmHWM is this process's own peak: ru_maxrss would count the peak of the (large) pytest
    # process the child was spawned from, which a vfork'd child inherits at exec.
    code = ("from chickenfoot.vision.images import load_image\n"
            f"img = load_image({str(CORPUS / 'single-colour-12000x12000.png')!r}, 1600)\n"
            "hwm = next(x for x in open('/proc/self/status') if x.startswith('VmHWM:'))\n"
            "print(img.size[0], int(hwm.split()[1]) // 1024)\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[2],
                         capture_output=True, text=True, check=True)
    side, peak_mb = map(int, out.stdout.split())
    assert side == 1600
    assert peak_mb < 600, f"peak {peak_mb} MB"


def test_a_photo_from_a_file_object_is_its_own_image_once_the_file_is_closed(tmp_path: Path):
    path = tmp_path / "plain.jpg"
    _marked(400, 200).save(path, quality=95)
    with path.open("rb") as fh:
        from_file = load_image(fh)
    from_path = load_image(path)
    assert np.array_equal(np.asarray(from_file.image), np.asarray(from_path.image))
    assert _is_red(from_file.image.getpixel((10, 10)))
    src = Image.open(path)
    src.load()
    assert load_image(src).image is not src  # the caller's own image is never handed back


REAL_PHONE = realdata_root() / (
    "JackRoache__METR4202-2016") / "images" / "test_3__31811764.jpg"


@pytest.mark.skipif(not REAL_PHONE.is_file(), reason="../shared/realdata (JackRoache) not here")
def test_a_real_phone_photo_turned_by_exif_reads_the_same_tiles_from_a_reduced_decode(tmp_path: Path):
    """The 3840 x 2160 photo is decoded at half size in the DCT; stored turned a quarter with
    EXIF orientation 6, it comes out upright and the shipped reader finds the same tile."""
    from chickenfoot.vision.config import MODELS_DIR
    from chickenfoot.vision.reader import Reader

    if not (MODELS_DIR / "reader.json").is_file():
        pytest.skip("no shipped models")
    turned = tmp_path / "turned.jpg"
    exif = Image.Exif()
    exif[0x0112] = 6
    with Image.open(REAL_PHONE) as im:
        # stored so that a clockwise turn shows the original: the pixels turned counter-clockwise
        im.transpose(Image.Transpose.ROTATE_90).save(turned, quality=95, exif=exif.tobytes())
    upright = load_image(turned, 1600)
    assert upright.original_size == (3840, 2160) and upright.image.size == (1920, 1080)
    reader = Reader.from_models_dir()
    a, b = reader.read(REAL_PHONE), reader.read(turned)
    assert [str(t.tile) for t in a.tiles] == [str(t.tile) for t in b.tiles] and len(a.tiles) == 1
    assert b.tiles[0].box.cx == pytest.approx(a.tiles[0].box.cx, abs=0.02 * 3840)
    assert b.tiles[0].box.cy == pytest.approx(a.tiles[0].box.cy, abs=0.02 * 3840)


# ----------------------------------------------------------------------------- turns and resizes
@pytest.mark.parametrize("orientation", range(1, 9))
def test_each_exif_orientation_comes_out_as_exif_transpose_turns_it(tmp_path: Path, orientation: int):
    from PIL import ImageOps

    path = tmp_path / f"o{orientation}.jpg"
    exif = Image.Exif()
    exif[0x0112] = orientation
    _marked(300, 200).save(path, quality=95, exif=exif.tobytes())
    loaded = load_image(path)
    with Image.open(path) as im:
        expected = ImageOps.exif_transpose(im).convert("RGB")
    assert loaded.image.size == expected.size == loaded.original_size
    assert loaded.image.tobytes() == expected.tobytes()
    assert "exif" not in loaded.image.info or orientation == 1  # no stale turn left to apply again


REAL_TURNED = [realdata_root() / "JackRoache__METR4202-2016" / "images" / name
               for name in ("test_1__3052e044.jpg", "test_2__29f6a3d1.jpg")]  # EXIF orientation 6 and 8


@pytest.mark.parametrize("path", REAL_TURNED, ids=lambda p: p.name)
def test_a_real_turned_phone_photo_decodes_small_as_a_full_decode_turned_and_shrunk(path: Path):
    """The reduced DCT decode of a real 3840 x 2160 phone photo stored turned (EXIF 6 and 8)
    against the whole photo decoded, turned by Pillow's exif_transpose and shrunk: the same
    size and way up, and nearly the same pixels."""
    if not path.is_file():
        pytest.skip("../shared/realdata (JackRoache) not here")
    from PIL import ImageOps

    loaded = load_image(path, 1600)
    with Image.open(path) as im:
        full = ImageOps.exif_transpose(im).convert("RGB")
    assert loaded.original_size == full.size == (2160, 3840)
    assert loaded.image.size == (1080, 1920)
    reference = np.asarray(full.resize(loaded.image.size, Image.Resampling.BOX), np.float64)
    got = np.asarray(loaded.image, np.float64)
    assert np.abs(got - reference).mean() < 2.0
    # turned the other way (or not at all) it would be a different picture altogether
    assert np.abs(got[::-1, ::-1] - reference).mean() > 10 * np.abs(got - reference).mean()


def _noise(size: tuple[int, int], mode: str, seed: int) -> Image.Image:
    w, h = size
    rng = np.random.default_rng(seed)
    return Image.fromarray(rng.integers(0, 256, (h, w, 3) if mode == "RGB" else (h, w), np.uint8)).convert(mode)


@pytest.mark.parametrize("source", [(2000, 1500), (1920, 1080), (2016, 980), (1280, 960), (960, 720), (2001, 1499),
                                    (3999, 2999), (1500, 1500), (1080, 1920), (980, 2016)])
def test_a_resize_in_bands_is_pillows_resize(monkeypatch: pytest.MonkeyPatch, source: tuple[int, int]):
    """Split over two threads, the detector's shrinks (each input size it is fed, from 4:3,
    16:9, 2:1, odd and portrait working images) come out exactly as Pillow's own."""
    from chickenfoot.vision import images
    from chickenfoot.vision.obb import REDUCING_GAP, letterbox_geometry

    monkeypatch.setattr(images, "THREADS", 2)
    monkeypatch.setattr(images, "core_free", lambda: True)
    for mode, seed in (("RGB", 1), ("L", 2)):
        im = _noise(source, mode, seed)
        for side in (416, 640, 832, 1248):
            (w, h), _ = letterbox_geometry(*source, side, 32)
            if w > source[0]:
                continue
            for gap in (REDUCING_GAP, None):
                want = im.resize((w, h), Image.Resampling.BILINEAR, reducing_gap=gap)
                got = images.resize(im, (w, h), gap)
                assert (got.mode, got.size) == (want.mode, want.size)
                assert got.tobytes() == want.tobytes(), (source, side, gap, mode)


def test_in_parallel_keeps_the_order_and_runs_on_two_threads(monkeypatch: pytest.MonkeyPatch):
    import threading

    from chickenfoot.vision import images

    monkeypatch.setattr(images, "THREADS", 2)
    seen: set[int] = set()

    def square(x: int) -> int:
        seen.add(threading.get_ident())
        return x * x

    assert images.in_parallel(square, list(range(11))) == [x * x for x in range(11)]
    assert len(seen) == 2
    seen.clear()
    assert images.in_parallel(square, [3], threads=2) == [9] and len(seen) == 1
    assert images.in_parallel(square, []) == []


def test_the_reader_reads_the_test_photos_alike_on_one_thread_and_two(monkeypatch: pytest.MonkeyPatch):
    """The shipped reader's readings of the test photos (decode, letterbox shrinks and tile
    crops split over two threads, or each one plain Pillow call) are the same to the last digit."""
    from chickenfoot.vision import images
    from chickenfoot.vision.config import MODELS_DIR
    from chickenfoot.vision.reader import Reader

    if not (MODELS_DIR / "reader.json").is_file():
        pytest.skip("no shipped models")
    reader = Reader.from_models_dir()
    data = Path(__file__).resolve().parents[1] / "data"

    def reading(path: Path) -> list[Any]:
        r = reader.read(path)
        return [[(t.a, t.b, t.confidence, t.box.to_list(), t.uncounted, t.question) for t in r.tiles + r.candidates],
                r.warnings]

    monkeypatch.setattr(images, "core_free", lambda: True)
    for name in ("hand.jpg", "table.jpg"):
        monkeypatch.setattr(images, "THREADS", 1)
        one = reading(data / name)
        monkeypatch.setattr(images, "THREADS", 2)
        assert reading(data / name) == one, name


@pytest.mark.parametrize("source", [(1920, 1080), (2001, 1499), (1080, 1920), (1000, 997)])
def test_a_reduction_in_bands_is_pillows_reduction(monkeypatch: pytest.MonkeyPatch, source: tuple[int, int]):
    from chickenfoot.vision import images

    monkeypatch.setattr(images, "THREADS", 2)
    monkeypatch.setattr(images, "core_free", lambda: True)
    im = _noise(source, "RGB", 3)
    for k in (2, 3, 4, 7):
        assert images.reduce(im, k).tobytes() == im.reduce(k).tobytes(), (source, k)


def test_a_resize_is_split_only_while_a_core_is_free(monkeypatch: pytest.MonkeyPatch):
    from chickenfoot.vision import images

    monkeypatch.setattr(images, "THREADS", 2)
    core_free = images.core_free
    im = _noise((1280, 960), "RGB", 4)
    calls: list[int] = []
    real = images.in_parallel
    monkeypatch.setattr(images, "in_parallel", lambda fn, items, threads=None: calls.append(len(items))
                        or real(fn, items, threads))
    for free in (False, True):
        monkeypatch.setattr(images, "core_free", lambda free=free: free)
        assert images.resize(im, (832, 624)).tobytes() == im.resize((832, 624), Image.Resampling.BILINEAR).tobytes()
    assert calls == [2]  # split once: while a core was free
    monkeypatch.setattr(images.os, "getloadavg", lambda: (99.0, 99.0, 99.0))
    assert not core_free()
    monkeypatch.setattr(images.os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    assert core_free()


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="no fork here")
def test_a_forked_child_shares_out_its_own_work(monkeypatch: pytest.MonkeyPatch):
    import os

    from chickenfoot.vision import images

    monkeypatch.setattr(images, "THREADS", 2)
    assert images.in_parallel(abs, [-1, -2, -3, -4]) == [1, 2, 3, 4]  # the parent's pool runs
    pid = os.fork()
    if pid == 0:  # the child: its pool's thread was not forked with it
        os._exit(0 if images.in_parallel(abs, [-5, -6, -7, -8]) == [5, 6, 7, 8] else 1)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def test_a_heic_photo_without_its_reader_says_how_to_get_it(tmp_path: Path) -> None:
    from chickenfoot.vision import images

    if images.HEIF_SUPPORT:
        pytest.skip("pillow-heif is installed: HEIC photos are read")
    photo = tmp_path / "IMG_0001.HEIC"
    photo.write_bytes(b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + bytes(64))
    with pytest.raises(ImageError, match=r"IMG_0001.HEIC: reading HEIC/HEIF photos needs pillow-heif \(pip install "
                                         r"pillow-heif"):
        load_image(photo)
