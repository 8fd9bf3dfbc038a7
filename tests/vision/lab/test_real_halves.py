"""Half crops cut from labelled real photos (:mod:`chickenfoot.vision.lab.real_halves`): each end gets its
labelled value, whole sources are taken, and every file of them is named for ``finetuned_on``."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import fake_models
import numpy as np
import pytest
from PIL import Image

from chickenfoot.vision.geometry import OrientedBox
from chickenfoot.vision.lab.real_halves import oriented
from chickenfoot.vision.reading import TileReading

TAK = "TAK1EDD1NE__domino-tile-recognition"
JEREMY = "jeremyarde__domino-counter"


def _reading(a: int, b: int) -> TileReading:
    return TileReading(a, b, 0.9, OrientedBox(10, 10, 20, 10, 0.0))


def test_the_end_whose_read_value_is_labelled_takes_it():
    assert oriented(_reading(9, 5), (0, 5)) == (0, 5)  # half B read right: A is the other value
    assert oriented(_reading(5, 9), (0, 5)) == (5, 0)
    assert oriented(_reading(0, 5), (0, 5)) == (0, 5)
    assert oriented(_reading(4, 4), (4, 4)) == (4, 4)
    assert oriented(_reading(6, 6), (3, 3)) == (3, 3)  # a double needs no end
    assert oriented(_reading(9, 8), (0, 5)) is None  # nothing agrees: not guessed


def _write_csv(path: Path, rows: list[dict[str, str]], fields: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)


def _realdata(tmp_path: Path) -> tuple[Path, Path]:
    """A realdata folder with a box-labelled scene (the fake scene's three tiles), a tight tile
    crop, and a list-labelled source that is not asked for; and the fake models."""
    photo, models, truth = fake_models.scene(tmp_path)
    root = tmp_path / "realdata"
    img_dir = root / TAK / "train" / "images"
    img_dir.mkdir(parents=True)
    Image.open(photo).save(img_dir / "hand.png")
    w, h = Image.open(photo).size
    lines, rows = [], []
    for k, (box, name) in enumerate(truth):
        c = box.corners()
        x0, y0, x1, y1 = c[:, 0].min(), c[:, 1].min(), c[:, 0].max(), c[:, 1].max()
        lines.append(f"0 {(x0 + x1) / 2 / w} {(y0 + y1) / 2 / h} {(x1 - x0) / w} {(y1 - y0) / h}")
        rows.append({"file": "train/images/hand.png", "label_line": str(k), "tile": name})
    (root / TAK / "train" / "labels").mkdir(parents=True)
    (root / TAK / "train" / "labels" / "hand.txt").write_text("\n".join(lines) + "\n")
    _write_csv(root / TAK / "boxes_tiles.csv", rows, ["file", "label_line", "tile"])

    # a tight crop of one upright tile: red (3) at the top, white (0) at the bottom
    crop = Image.new("RGB", (80, 160), (60, 110, 60))
    fake_models.draw_tile(crop, OrientedBox(40, 80, 158, 78, math.pi / 2), fake_models.RED, fake_models.WHITE)
    (root / JEREMY / "tile_crops").mkdir(parents=True)
    crop.save(root / JEREMY / "tile_crops" / "t1.png")
    _write_csv(root / JEREMY / "tile_crops" / "labels.csv",
               [{"file": "t1.png", "a_top": "3", "b_bottom": "0", "usable": "1"}], ["file", "a_top", "b_bottom", "usable"])
    _write_csv(root / JEREMY / "tiles_from_halves.csv", [], ["image", "a_read", "b_read", "x0", "y0", "x1", "y1"])

    (root / "danb-dev-ui__DominoCounter").mkdir(parents=True)
    Image.new("RGB", (64, 48)).save(root / "danb-dev-ui__DominoCounter" / "p.png")
    _write_csv(root / "danb-dev-ui__DominoCounter" / "labels_tiles.csv", [{"file": "p.png", "tiles": "1-2"}],
               ["file", "tiles"])
    return root, models


def test_real_halves_go_to_the_labelled_value_folders_and_name_every_file_of_their_sources(tmp_path: Path):
    pytest.importorskip("onnx", reason="building the test models needs onnx (train extra)")
    from chickenfoot.vision.lab.real_halves import write_real_halves
    from chickenfoot.vision.reader import Reader

    root, models = _realdata(tmp_path)
    out = tmp_path / "halves"
    st = write_real_halves(out, ["TAK1EDD1NE", "jeremyarde"], Reader.from_models_dir(models), copies=3,
                           seed=1, crop_size=32, pad=0.0, jitter=0.5, root=root)

    # the scene's 3-4, 0-3 and 0-0 and the crop's 3-0, each cut 3 times
    assert st["tiles"] == 4 and st["tiles_not_placed"] == 0
    assert st["per_value"] == {"0": 4 * 3, "3": 3 * 3, "4": 1 * 3}
    assert st["halves"] == 24
    assert st["files"] == [f"{TAK}/train/images/hand.png", f"{JEREMY}/tile_crops/t1.png"]  # not danb's

    # each half went to its own value: red halves are 3, blue 4, white 0 (grey copies aside)
    def means(value: str) -> list[np.ndarray]:
        files = sorted((out / "train" / value).glob("*.png"))
        assert len(files) == st["per_value"][value]
        return [np.asarray(Image.open(f).convert("RGB"), dtype=float).reshape(-1, 3).mean(0) for f in files]

    for value, channel in (("3", 0), ("4", 2)):
        coloured = [m for m in means(value) if np.ptp(m) > 20]  # not a grey copy
        assert coloured and all(int(np.argmax(m)) == channel for m in coloured), value
    assert all(m.min() > 150 for m in means("0"))  # white, never a red or blue half


def test_no_labelled_photos_in_the_sources_is_a_clear_stop(tmp_path: Path):
    pytest.importorskip("onnx", reason="building the test models needs onnx (train extra)")
    from chickenfoot.vision.lab.real_halves import write_real_halves
    from chickenfoot.vision.reader import Reader

    root, models = _realdata(tmp_path)
    with pytest.raises(SystemExit, match="no labelled real photos in sources"):
        write_real_halves(tmp_path / "o", ["nowhere"], Reader.from_models_dir(models), root=root)


def test_the_files_a_pass_trained_on_are_named_in_reader_json(tmp_path: Path):
    """The evaluation leaves out ``finetuned_on``: a pass with real halves must fill it, and a pass
    started from a file keeps the files that file was trained on."""
    # yaml, not ultralytics: imported here, ultralytics patches PIL's Image.open for the whole
    # test process (a non-image then fails on its missing pi_heif instead of as "not an image")
    pytest.importorskip("yaml", reason="the training recipe needs the train extra")
    import json

    from chickenfoot.vision.lab.train import write_reader_json

    work, out = tmp_path / "work", tmp_path / "out"
    (work / "cls_data_ft2").mkdir(parents=True)
    (work / "cls_data_ft2" / "real_done").write_text(json.dumps({"files": ["b/2.png", "a/1.png"]}))
    out.mkdir()
    cfg = {"seed": 1, "max_value": 12, "detector": {"imgsz": 416},
           "classifier": {"imgsz": 64, "crop_size": 64, "crop_pad": 0.06,
                          "finetune": [{"halves": 10, "seed": 5}, {"halves": 10, "seed": 6, "real": {"sources": ["a"]}}]}}
    data = json.loads(write_reader_json(out, cfg, work).read_text())
    assert data["finetuned_on"] == ["a/1.png", "b/2.png"]

    start = tmp_path / "start"
    start.mkdir()
    (start / "half_cls.onnx").write_bytes(b"")
    (start / "reader.json").write_text(json.dumps({"seeds": [9], "finetuned_on": ["c/3.png"]}))
    cfg["classifier"]["start"] = str(start / "half_cls.onnx")
    data = json.loads(write_reader_json(tmp_path / "out", cfg, work).read_text())
    assert data["finetuned_on"] == ["a/1.png", "b/2.png", "c/3.png"]
    assert 9 in data["seeds"]


def test_a_tile_whose_ends_are_labelled_is_cut_from_its_labelled_box(tmp_path: Path):
    """Ruxi12's labels give each tile's oriented box and which end holds which value: the halves
    are cut there (scaled to the working photo), each end with its own value."""
    from types import SimpleNamespace

    from chickenfoot.vision.lab.real_halves import cut, tiles_of
    from chickenfoot.vision.lab.realdata import Sample

    photo = Image.new("RGB", (800, 600), (60, 110, 60))
    box = OrientedBox(300, 200, 240, 120, math.radians(30))
    fake_models.draw_tile(photo, box, fake_models.RED, fake_models.BLUE)
    path = tmp_path / "1_01.jpg"
    photo.save(path, quality=95)
    sample = Sample("Ruxi12", path, "boxes-oriented", [(3, 5)], [box], rel="Ruxi12/1_01.jpg")
    reader = SimpleNamespace(config=SimpleNamespace(decode_max_side=400))  # the photo read at half size
    (tile,), missed = tiles_of(sample, reader)  # type: ignore[arg-type]
    assert missed == 0 and (tile.a, tile.b) == (3, 5)
    assert tile.image.size == (400, 300) and tile.box.cx == pytest.approx(150) and tile.box.length == pytest.approx(120)
    halves = cut(tile, np.random.default_rng(0), copies=6, crop_size=64, pad=0.06, jitter=0.0)
    seen = []
    for img, v in halves:
        r, _, b = np.asarray(img.convert("RGB"), float)[16:48, 16:48].mean(axis=(0, 1))
        if abs(r - b) > 40:  # a colour copy (grey ones say nothing of the ends)
            seen.append((v, 3 if r > b else 5))
    assert len(seen) >= 8 and all(v == shown for v, shown in seen)
