"""Mining the not-pips class (chickenfoot.vision.lab.datasets.not_pips): real renders on disk, read by the shipped
reader; the crops are cut the way the reader cuts halves, and only from boxes on no tile."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from chickenfoot.vision.config import MODELS_DIR
from chickenfoot.vision.lab.datasets.not_pips import (
    JITTERED_CUTS,
    MAX_COVER,
    main,
    mine,
    mine_photo,
    mine_photo_with_tiles,
    pick,
    pick_tiles,
)
from chickenfoot.vision.reader import Reader

pytestmark = pytest.mark.skipif(not (MODELS_DIR / "reader.json").exists(), reason="no shipped models")


def test_mining_cuts_halves_of_boxes_on_no_tile(tmp_path: Path):
    reader = Reader.from_models_dir()
    # photo 2 of seed 31026 has printed matter and a boneyard of printed backs
    crops, n_det, n_not = mine_photo(reader, 31026, 2)
    assert n_det > n_not > 0
    assert len(crops) == n_not * 2 * (1 + JITTERED_CUTS)
    size = reader.halves.imgsz
    assert all(c.size == (size, size) and c.mode == "RGB" for c in crops)
    # the same photo mines the same crops (everything is drawn from the seed)
    again, _, _ = mine_photo(reader, 31026, 2)
    assert all(np.array_equal(np.asarray(a), np.asarray(b)) for a, b in zip(crops, again, strict=True))
    # what the reader's half classifier makes of them: most are "not pips" (class x)
    batch = np.stack([np.asarray(c, np.float32).transpose(2, 0, 1) / 255 for c in crops])
    probs = reader.halves.classify(np.ascontiguousarray(batch))
    x = reader.halves.values == -1
    assert x.any() and float(np.mean(probs[:, x].sum(1) >= 0.5)) > 0.5
    assert 0 < MAX_COVER < 0.5


def test_mine_writes_named_crops_and_pick_splits_by_photo(tmp_path: Path, capsys):
    assert main(["--out", str(tmp_path / "m"), "--count", "2", "--seed", "31026", "--start", "1"]) == 0
    st = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    files = sorted((tmp_path / "m" / "x").glob("*.png"))
    assert st["photos"] == 2 and st["crops"] == len(files) > 0
    photos = {int(f.name.split("_")[1]) for f in files}
    assert photos <= {1, 2} and all(f.name.startswith("31026_") for f in files)
    with Image.open(files[0]) as im:
        assert im.size == (64, 64)

    dest = tmp_path / "data"
    got = pick(tmp_path / "m", dest, n_train=5, n_val=3, val_photos=2, shuffle_seed=11)
    val = sorted((dest / "val" / "x").iterdir())
    train = sorted((dest / "train" / "x").iterdir())
    first = sum(int(f.name.split("_")[1]) < 2 for f in files)
    assert got == {"train": len(train), "val": len(val)} and len(val) == min(3, first)
    assert len(train) == min(5, len(files) - first)
    assert all(int(f.name.split("_")[1]) < 2 for f in val) and all(int(f.name.split("_")[1]) >= 2 for f in train)
    assert all(f.is_symlink() and f.resolve().parent == (tmp_path / "m" / "x").resolve() for f in val + train)
    # picking again links the same files (seeded), and adds nothing
    assert pick(tmp_path / "m", dest, n_train=5, n_val=3, val_photos=2, shuffle_seed=11) == got
    assert sorted((dest / "val" / "x").iterdir()) == val


def test_mine_reports_its_progress(tmp_path: Path, capsys):
    st = mine(tmp_path, 1, 31026, start=0, log_every=1)
    assert "1/1 photos" in capsys.readouterr().out and st["photos"] == 1


def test_true_tiles_give_their_halves_with_their_pips_and_change_nothing_else(tmp_path: Path):
    """The halves of detections on true tiles, labelled in the detector's own orientation: the
    classifier reads (nearly) all of them as their labels; the not-pips crops are unchanged."""
    reader = Reader.from_models_dir()
    crops, n_det, n_not, tiles = mine_photo_with_tiles(reader, 31026, 3)
    plain, _, _ = mine_photo(reader, 31026, 3)
    assert all(np.array_equal(np.asarray(a), np.asarray(b)) for a, b in zip(crops, plain, strict=True))
    assert len(tiles) % 2 == 0 and 0 < len(tiles) // 2 <= n_det - n_not
    batch = np.stack([np.asarray(im, np.float32).transpose(2, 0, 1) / 255 for im, _ in tiles])
    probs = reader.halves.classify(np.ascontiguousarray(batch))
    read = reader.halves.values[probs.argmax(1)]
    labels = np.array([v for _, v in tiles])
    # turned the wrong way round, a half's label would be its partner's: most would disagree
    assert float(np.mean(read == labels)) > 0.9

    assert main(["--out", str(tmp_path / "m"), "--count", "1", "--seed", "31026", "--start", "3", "--tiles"]) == 0
    files = sorted((tmp_path / "m" / "tiles").glob("*/*.png"))
    assert len(files) == len(tiles)
    assert sorted(int(f.parent.name) for f in files) == sorted(int(v) for v in labels)
    got = pick_tiles(tmp_path / "m", tmp_path / "data", n_train=4, n_val=100, val_photos=4, shuffle_seed=1)
    linked = sorted((tmp_path / "data" / "val").glob("*/*.png"))
    assert got == {"train": 0, "val": len(files)} and len(linked) == len(files)
    assert all(f.is_symlink() and f.name.startswith("tile_") for f in linked)
