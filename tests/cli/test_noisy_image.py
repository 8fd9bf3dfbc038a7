"""A damaged TIFF whose decoders talk (Pillow's warnings about its tags, libtiff's own line on
file descriptor 2 about its LZW data) is reported by ``chickenfoot score`` in one line."""

from __future__ import annotations

import io
import json
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]


def noisy_tiff(path: Path) -> Path:
    """An LZW TIFF with its compressed strip overwritten (libtiff: "Using code not yet in
    table.") and a text tag pointing past the end of the file (Pillow: "Truncated File Read")."""
    pixels = np.random.default_rng(0).integers(0, 255, (64, 64, 3), dtype=np.uint8)
    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, format="TIFF", compression="tiff_lzw")
    data = bytearray(buf.getvalue())
    ifd = struct.unpack("<I", data[4:8])[0]
    entries = {}
    for i in range(struct.unpack("<H", data[ifd:ifd + 2])[0]):
        at = ifd + 2 + 12 * i
        entries[struct.unpack("<H", data[at:at + 2])[0]] = at
    strip = struct.unpack("<I", data[entries[273] + 8:entries[273] + 12])[0]
    data[strip + 4:strip + 40] = b"\xff" * 36
    data[entries[284]:entries[284] + 12] = struct.pack("<HHII", 305, 2, 100, 10**8)  # Software
    path.write_bytes(bytes(data))
    return path


def _score(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "chickenfoot", "score", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("as_json", [True, False])
def test_a_noisy_damaged_tiff_is_one_error_line(tmp_path: Path, as_json: bool) -> None:
    photo = noisy_tiff(tmp_path / "noisy.tiff")
    out = _score(str(photo), *(["--json"] if as_json else []))
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert lines == [f"chickenfoot: error: {photo}: damaged image (OSError: decoder error -2)"], out.stderr
    if as_json:
        assert json.loads(out.stdout)["error"]["code"] == "image"
    else:
        assert out.stdout == ""


def test_the_noise_is_real_without_the_quieting(tmp_path: Path) -> None:
    """The same file, decoded by Pillow alone, does make that noise (so the test above tests
    something)."""
    photo = noisy_tiff(tmp_path / "noisy.tiff")
    code = ("import sys; from PIL import Image\n"
            "try:\n    Image.open(sys.argv[1]).load()\nexcept OSError:\n    pass\n")
    out = subprocess.run([sys.executable, "-c", code, str(photo)], capture_output=True, text=True,
                         timeout=60)
    assert "Using code not yet in table" in out.stderr and "Truncated File Read" in out.stderr
