"""Detector training frames of karthikVenkataramana's pose-labelled photos
(:mod:`chickenfoot.vision.lab.pose_boxes`), on constructed labels and finds and on a
karthikVenkataramana-shaped folder made here from the fake scene's photo, so they run without
``../shared/realdata``."""

from __future__ import annotations

import json
import math
from pathlib import Path

import fake_models
import numpy as np
import pytest
from PIL import Image

from chickenfoot.vision.config import MODELS_DIR
from chickenfoot.vision.geometry import OrientedBox
from chickenfoot.vision.lab.pose_boxes import (
    BLUR_PAD,
    SOURCE,
    PoseBoxesError,
    blur_out,
    frame_boxes,
    main,
    write_pose_boxes,
)


def _bounds(q: np.ndarray) -> tuple[float, float, float, float]:
    return (float(q[:, 0].min()), float(q[:, 1].min()), float(q[:, 0].max()), float(q[:, 1].max()))


def _rect(box: tuple[float, float, float, float]) -> np.ndarray:
    x0, y0, x1, y1 = box
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=float)


def _same(got: list[np.ndarray], want: list[np.ndarray]) -> bool:
    return len(got) == len(want) and all(np.array_equal(g, w) for g, w in zip(got, want, strict=True))


def test_face_up_labels_take_their_finds_corners_and_the_rest_is_blurred_or_background() -> None:
    up = OrientedBox(100, 100, 80, 40, 0.3).corners()  # a face-up tile the reader found, tilted
    up2 = OrientedBox(300, 100, 90, 44, 1.2).corners()
    down = OrientedBox(100, 300, 80, 40, 0.2).corners()  # a back the reader took for a tile
    stray = OrientedBox(300, 300, 80, 40, 2.0).corners()  # a tile the source left unlabelled
    finds = [up, up2, down, stray]
    b_up, b_up2 = _bounds(up), _bounds(up2)
    labels = [
        ("B", (b_up[0] - 3, b_up[1] + 2, b_up[2] + 4, b_up[3] - 1)),  # its label: a little off the find
        ("E", b_up2),
        ("A", _bounds(down)),  # face down: background, and so is the find on it
        ("C", (500, 500, 560, 530)),  # standing, nothing found there
        ("F", (600, 40, 660, 70)),  # face down, nothing found there
        ("E", (420, 420, 480, 450)),  # face up, nothing found there
    ]
    tiles, blur = frame_boxes(labels, finds)
    assert _same(tiles, [up, up2])  # the finds' own oriented corners, not the labels' boxes
    # the unmatched face-up label (as its rectangle), then the find matching no label
    assert _same(blur, [_rect((420, 420, 480, 450)), stray])

    # a find is one tile: of two face-up labels on it the first takes it, the second is blurred
    tiles, blur = frame_boxes([("B", b_up), ("E", b_up)], [up])
    assert _same(tiles, [up]) and _same(blur, [_rect(b_up)])
    # a label overlapping a find little (IoU 0.2) is another tile: both are blurred
    fifth = (b_up[0], b_up[1], b_up[0] + (b_up[2] - b_up[0]) / 5, b_up[3])
    tiles, blur = frame_boxes([("B", fifth)], [up])
    assert tiles == [] and _same(blur, [_rect(fifth), up])
    # face-down and standing labels are never labelled, found or not; no find, nothing blurred
    for pose in ("A", "C", "D", "F"):
        assert frame_boxes([(pose, b_up)], [up]) == ([], [])
    assert frame_boxes([], []) == ([], [])


def test_blur_out_changes_the_pixels_inside_the_polygon_and_no_other() -> None:
    rng = np.random.default_rng(7)
    arr = rng.integers(0, 256, (80, 120, 3), dtype=np.uint8)
    img = Image.fromarray(arr, "RGB")
    assert blur_out(img, []) is img
    out = np.asarray(blur_out(img, [_rect((40, 20, 80, 60))]))
    assert out.shape == arr.shape
    inside = (slice(22, 59), slice(42, 79))
    changed = (out[inside] != arr[inside]).any(axis=2)
    assert changed.mean() > 0.95
    assert out[inside].std() < arr[inside].std() / 3  # blurred, not just shifted
    # the polygon grows by BLUR_PAD along its corners' directions: under 3 px a side for a square
    pad = math.ceil(BLUR_PAD / math.sqrt(2)) + 1
    outside = np.ones(arr.shape[:2], bool)
    outside[20 - pad : 61 + pad, 40 - pad : 81 + pad] = False
    assert np.array_equal(out[outside], arr[outside])


def _voc(path: Path, labels: list[tuple[str, tuple[float, float, float, float]]]) -> None:
    objects = "".join(
        f"<object><name>{name}</name><pose>Unspecified</pose><bndbox><xmin>{x0:.0f}</xmin><ymin>{y0:.0f}</ymin>"
        f"<xmax>{x1:.0f}</xmax><ymax>{y1:.0f}</ymax></bndbox></object>"
        for name, (x0, y0, x1, y1) in labels
    )
    path.write_text(f"<annotation><folder>{path.parent.name}</folder><filename>{path.stem}.jpg</filename>"
                    f"<size><width>800</width><height>600</height><depth>3</depth></size>{objects}</annotation>")


def _karthik(tmp_path: Path) -> tuple[Path, Path, list[tuple[OrientedBox, str]]]:
    """A realdata folder holding a karthikVenkataramana-shaped source: the fake scene's photo as
    two labelled frames (the 3-4 and 0-3 face up, the back face down, the 0-0 unlabelled, and a
    face-up label where nothing lies), a label file without its photo and a photo without its
    labels; and the fake models."""
    photo, models, truth = fake_models.scene(tmp_path)
    img = Image.open(photo).convert("RGB")
    base = tmp_path / "realdata" / SOURCE / "images_classes"
    boxes = {name: _bounds(box.corners()) for box, name in truth}
    back = _bounds(OrientedBox(640, 110, 150, 76, math.radians(20)).corners())  # the scene's face-down tile
    labels = [("B", boxes["3-4"]), ("E", boxes["0-3"]), ("A", back), ("E", (40, 40, 100, 70))]
    for name in ("train/f1", "test/f 2"):
        (base / name).parent.mkdir(parents=True, exist_ok=True)
        img.save(base / f"{name}.jpg", quality=95)
        _voc(base / f"{name}.xml", labels)
    _voc(base / "test" / "no_photo.xml", labels)
    (base / "validation").mkdir()
    img.save(base / "validation" / "f3.jpg")
    return tmp_path / "realdata", models, truth


def test_frames_are_written_scaled_with_their_face_up_tiles_labelled(tmp_path: Path) -> None:
    pytest.importorskip("onnx", reason="building the test models needs onnx (train extra)")
    root, models, truth = _karthik(tmp_path)
    out = tmp_path / "pose"
    st = write_pose_boxes(out, copies=2, seed=3, long_side=400, root=root, models=models)
    # per frame: the 3-4 and 0-3 labelled; the empty face-up label and the unlabelled 0-0 blurred
    assert st == {"photos": 2, "images": 4, "tiles": 8, "blurred": 4,
                  "files": [f"{SOURCE}/images_classes/test/f 2.jpg", f"{SOURCE}/images_classes/train/f1.jpg"]}
    images = sorted(p.name for p in (out / "images" / "train").iterdir())
    assert images == ["pose_test_f_2_0.jpg", "pose_test_f_2_1.jpg", "pose_train_f1_0.jpg", "pose_train_f1_1.jpg"]
    assert sorted(p.name for p in (out / "labels" / "train").iterdir()) == [n[:-4] + ".txt" for n in images]
    want = sorted((box.corners() for box, name in truth if name in ("3-4", "0-3")), key=lambda q: q[0, 0])
    for name in images:
        img = Image.open(out / "images" / "train" / name)
        assert 320 <= img.width <= 400 and img.width / img.height == pytest.approx(4 / 3, abs=0.01)
        if name.endswith("_0.jpg"):
            assert img.size == (400, 300)  # the first copy at long_side exactly
        lines = (out / "labels" / "train" / f"{name[:-4]}.txt").read_text().splitlines()
        assert len(lines) == 2 and all(ln.split()[0] == "0" for ln in lines)
        values = np.array([[float(v) for v in ln.split()[1:]] for ln in lines])
        assert values.shape == (2, 8) and values.min() >= 0.0 and values.max() <= 1.0
        # each line is a face-up tile's oriented corners, scaled with its copy
        quads = sorted((v.reshape(4, 2) * (800, 600) for v in values), key=lambda q: q[0, 0])
        for q, w in zip(quads, want, strict=True):
            assert np.abs(q - w).max() < 2.0
    # a limit takes the first frames only
    st = write_pose_boxes(tmp_path / "one", copies=1, seed=3, root=root, models=models, limit=1)
    assert st["files"] == [f"{SOURCE}/images_classes/test/f 2.jpg"] and st["images"] == 1


def test_no_labelled_frame_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(PoseBoxesError, match="no labelled frame"):
        write_pose_boxes(tmp_path / "o", 1, 0, root=tmp_path)
    base = tmp_path / SOURCE / "images_classes" / "train"
    base.mkdir(parents=True)
    _voc(base / "f1.xml", [("B", (1, 1, 20, 10))])  # its photo missing
    with pytest.raises(PoseBoxesError, match="no labelled frame"):
        write_pose_boxes(tmp_path / "o", 1, 0, root=tmp_path)
    assert not (tmp_path / "o").exists()


def test_cli_writes_frames_labelled_by_the_shipped_reader_or_exits_2_with_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    if not (MODELS_DIR / "reader.json").exists():
        pytest.skip("no trained models in models/ yet")
    monkeypatch.setenv("CHICKENFOOT_REALDATA", str(tmp_path / "nothing"))
    assert main(["--out", str(tmp_path / "o"), "--models", str(MODELS_DIR)]) == 2
    cap = capsys.readouterr()
    assert cap.out == "" and cap.err.startswith("error: ") and cap.err.count("\n") == 1
    assert "no labelled frame" in cap.err

    pytest.importorskip("onnx", reason="building the test models needs onnx (train extra)")
    root, _models, _truth = _karthik(tmp_path)
    monkeypatch.setenv("CHICKENFOOT_REALDATA", str(root))
    out = tmp_path / "shipped"
    assert main(["--out", str(out), "--copies", "1", "--seed", "2", "--long-side", "320",
                 "--models", str(MODELS_DIR)]) == 0
    st = json.loads(capsys.readouterr().out)
    assert st["photos"] == 2 and st["images"] == 2 and "files" not in st
    labels = sorted((out / "labels" / "train").glob("*.txt"))
    assert [p.stem for p in labels] == ["pose_test_f_2_0", "pose_train_f1_0"]
    values = [float(v) for p in labels for ln in p.read_text().splitlines() for v in ln.split()[1:]]
    assert len(values) == 8 * st["tiles"] and all(0.0 <= v <= 1.0 for v in values)
    assert all(Image.open(p).size == (320, 240) for p in (out / "images" / "train").glob("*.jpg"))
