"""Detection (:mod:`chickenfoot.vision.detect`): the passes a photo needs and the boxes dropped, through real
onnxruntime runs of small models with known output."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from pathlib import Path

import fake_models
import numpy as np
import pytest
from PIL import Image

from chickenfoot.rules import get_rules
from chickenfoot.vision import detect as detect_stage
from chickenfoot.vision.config import MODELS_DIR, ReaderConfig
from chickenfoot.vision.detect import (
    Detector,
    closeup,
    detect,
    doubt_region,
    drop_contained,
    drop_misshapen,
    look_again,
    zoom_factor,
    zoom_size,
)
from chickenfoot.vision.detections import Detections, obb_corners
from chickenfoot.vision.geometry import OrientedBox
from chickenfoot.vision.policy import Find, Policy
from chickenfoot.vision.read import face_up_finds, finds_of, read_halves
from chickenfoot.vision.reader import Reader, in_doubt

ROOT = Path(__file__).resolve().parents[2]
TEST_DATA = ROOT / "tests" / "data"


def test_a_detection_on_a_surer_longer_tile_is_dropped():
    big = OrientedBox(200, 200, 160, 80, 0.5)
    u, _ = big.axes()
    pip = OrientedBox(200 + 40 * u[0], 200 + 40 * u[1], 30, 15, 0.0)  # on the tile, a fifth as long
    apart = OrientedBox(400, 400, 30, 15, 0.0)  # as small, but on bare table
    neighbour = OrientedBox(200, 265, 150, 75, 0.5)  # touching tile side by side: centre off the box
    dets = Detections.from_boxes([big, pip, apart, neighbour], [0.9, 0.5, 0.5, 0.8])
    kept = drop_contained(dets, 0.6)
    assert sorted(kept.confidence.tolist()) == pytest.approx([0.5, 0.8, 0.9])
    assert kept.boxes[:, 0].tolist() == pytest.approx([200, 400, 200])
    # a surer small read keeps its place (the big box may be the mistake); ratio 0 keeps all
    sure_pip = Detections.from_boxes([big, pip], [0.6, 0.9])
    assert len(drop_contained(sure_pip, 0.6)) == 2
    assert len(drop_contained(dets, 0.0)) == 4


def test_boxes_no_flat_tile_could_have_are_dropped():
    tiles = [OrientedBox(100 + 60 * k, 300, 88, 46, 1.5) for k in range(5)]
    slanted = OrientedBox(600, 300, 90, 20, 0.3)  # 4.5:1, a tile seen at a slant
    phantom = OrientedBox(400, 500, 1377, 197, 1.0)  # 7:1
    dets = Detections.from_boxes([*tiles, slanted, phantom], [0.9] * 6 + [1.0])
    kept = drop_misshapen(dets, 5.5)
    assert len(kept) == 6 and kept.boxes[:, 2].max() == pytest.approx(90)
    assert len(drop_misshapen(Detections.empty(), 5.5)) == 0
    assert drop_misshapen(dets, 0.0) is dets


def test_a_phantom_box_over_a_row_no_longer_swallows_the_row():
    """Seen on a rendered photo: a sure 7:1 box drawn over rows of tiles made contain_ratio drop
    every tile whose centre it covered. With the shipped shape limit, applied first as
    :func:`chickenfoot.vision.detect.detect` does, the row stays."""
    shipped = ReaderConfig.load(MODELS_DIR / "reader.json")
    assert shipped.max_aspect > 0 and shipped.contain_ratio > 0
    row = [OrientedBox(300 + 52 * k, 600, 88, 46, 1.5) for k in range(8)]
    phantom = OrientedBox(480, 600, 1377, 197, 0.0)
    dets = Detections.from_boxes([*row, phantom], [0.9] * 8 + [1.0])
    kept = drop_contained(drop_misshapen(dets, shipped.max_aspect), shipped.contain_ratio)
    assert len(kept) == 8 and kept.boxes[:, 2].max() < 100
    assert len(drop_contained(dets, shipped.contain_ratio)) == 1

@dataclass(frozen=True)
class Scripted(Detector):
    """A detector that gives ``first`` (above the confidence asked) when run at its own input
    size and ``other`` at any other size, and notes each run's input size and confidence."""

    first: Detections = field(default_factory=Detections.empty)
    other: Detections = field(default_factory=Detections.empty)
    runs: list = field(default_factory=list)

    def run(self, image, size, conf, iou):
        self.runs.append((size, conf))
        if size == self.imgsz:
            return self.first[self.first.confidence > conf] if len(self.first) else self.first
        return self.other


def scripted(first: Detections, other: Detections | None = None, imgsz: int = 416, stride: int = 32) -> Scripted:
    return Scripted(None, {0: "tile"}, imgsz, stride, "images", first, other or Detections.empty())


def _boxes(*rows: list[float], conf: float = 0.9) -> Detections:
    return Detections(np.array(rows, np.float64), [conf] * len(rows), [0] * len(rows))


def test_zoom_pass_runs_the_whole_photo_once_at_the_least_zoom_that_lifts_small_tiles():
    """One more pass over the whole photo at 2 or 3 x the input when the tiles are small there."""
    cfg = ReaderConfig(det_conf=0.3, fine_max_zoom=3, fine_trigger_px=40.0)
    image = Image.new("RGB", (1600, 1200))
    # median tile 120 px -> 31 px at the 416 px input: zoom 2 lifts it to 62 >= 40
    det = scripted(_boxes([200, 200, 120, 60, 0.0], [800, 600, 120, 60, 0.0]), _boxes([1500, 1100, 40, 20, 0.0]))
    assert len(detect(image, det, cfg)) == 3
    assert det.runs == [(416, 0.3), (832, 0.3)]
    # median tile 50 px -> 13 px: even zoom 3 (39 px) falls short, and 3 is the most allowed
    det = scripted(_boxes([200, 200, 50, 25, 0.0], [800, 600, 50, 25, 0.0]))
    detect(image, det, cfg)
    assert det.runs[-1] == (3 * 416, 0.3)
    assert zoom_factor(Detections.empty(), image.size, det, cfg) == 3
    # off, or a detector of fixed input size: no second run
    for off, fixed in ((dataclasses.replace(cfg, fine_max_zoom=1.0), det), (cfg, scripted(det.first, stride=0))):
        fixed.runs.clear()
        detect(image, fixed, off)
        assert len(fixed.runs) == 1


def test_zoom_pass_input_stays_a_multiple_of_the_stride_when_the_photo_caps_it():
    """A zoom larger than the photo's own pixels is capped at them, rounded down to the stride:
    a 1000 px photo zoomed 3x (416 px input) once asked a stride-32 detector for a 1000 px
    input, and the real detector failed mid-read on it (its feature maps no longer lined up)."""
    det = scripted(Detections.empty(), imgsz=320)
    assert zoom_size((1000, 750), 4.0, det) == 992  # 4 x 320 = 1280 > 1000
    assert zoom_size((1000, 750), 2.0, det) == 640


def test_second_scale_pass_runs_on_big_photos_whose_tiles_need_no_zoom():
    """``second_imgsz``: a photo at least twice the detector's input whose tiles are big enough
    for no zoom is searched once more at that input size, at ``second_conf``, and the two passes
    merge (a tile seen by both stays one). Never on a small photo, never alongside the zoom,
    never when off, never with a detector of fixed input size; a size the letterbox cannot pad
    to the stride is refused."""
    seen_both = [200.0, 200.0, 150.0, 75.0, 0.0]
    other = Detections(np.array([[1200.0, 900.0, 150.0, 75.0, 0.0], seen_both]), [0.8, 0.85], [0, 0])
    base = ReaderConfig(det_conf=0.3, fine_max_zoom=3, fine_trigger_px=16.0)
    on = dataclasses.replace(base, second_imgsz=640, second_conf=0.5)
    photo = Image.new("RGB", (1600, 1200))

    def det(first: Detections | None = None, stride: int = 32) -> Scripted:  # 150 of 1600 px: 39 px
        return scripted(_boxes(seen_both) if first is None else first, other, imgsz=320, stride=stride)

    d = det()
    dets = detect(photo, d, on)
    assert d.runs[1:] == [(640, 0.5)]
    assert sorted(dets.boxes[:, 0].tolist()) == [200.0, 1200.0]  # the tile both saw is one box
    d = det()
    assert len(detect(photo, d, dataclasses.replace(base, second_imgsz=640))) == 2 and d.runs[-1] == (640, 0.3)
    for cfg, image, d in ((base, photo, det()), (on, Image.new("RGB", (600, 450)), det()),
                          (on, photo, det(stride=0))):  # off; under twice the input; a fixed input
        assert len(detect(image, d, cfg)) == 1 and len(d.runs) == 1
    d = det(_boxes([200.0, 200.0, 40.0, 20.0, 0.0]))  # 8 px: the zoom runs instead
    detect(photo, d, on)
    assert [size for size, _ in d.runs] == [320, zoom_size(photo.size, 2.0, d)]
    with pytest.raises(ValueError, match="second_imgsz"):
        ReaderConfig(second_imgsz=600)


def test_second_look_goes_where_the_reading_is_in_doubt():
    """``doubt_below``: the region around finds the policy would count unsurely or set apart as
    unsure, padded by ``doubt_pad`` median lengths, enlarged so they reach ``doubt_tile_px``,
    capped; print and possible backs are no doubt."""
    det = scripted(Detections.empty(), imgsz=320)
    size = (500, 400)  # working pixels

    def find(box: OrientedBox, conf: float, not_pips: float = 0.0, a: int = 3) -> Find:
        return Find(a, 4 if a else 0, box, conf, (1.0, 1.0), (not_pips, not_pips))

    sure = find(OrientedBox(450, 350, 40, 20, 0.0), 0.95)
    doubtful = find(OrientedBox(200, 150, 40, 20, 0.0), 0.6)
    unsure = find(OrientedBox(300, 150, 40, 20, 0.0), 0.3)
    printed = find(OrientedBox(375, 50, 40, 20, 0.0), 0.9, not_pips=0.95)
    cfg = ReaderConfig(doubt_below=0.8, doubt_tile_px=80.0, doubt_pad=1.0, doubt_max_input=832, count_conf=0.45,
                       not_pips_max=0.9)
    policy = Policy(0.8, 0.45, 0.9, 0.0, 50, True)
    doubt = in_doubt([sure, doubtful, unsure, printed], policy, cfg.doubt_below)
    assert doubt == [doubtful.box, unsure.box]
    region, input_px = doubt_region(doubt, size, det, cfg)
    # tiles 40 x 20 at (200, 150) and (300, 150), padded by one median length (40)
    assert region == (140, 100, 360, 200)
    assert input_px == math.ceil(220 * 2.0 / 32) * 32  # 40 px tiles -> 80
    small = dataclasses.replace(cfg, doubt_tile_px=400.0, doubt_max_input=500)
    assert doubt_region(doubt, size, det, small)[1] == 480  # capped, on the stride
    assert in_doubt([sure, printed], policy, cfg.doubt_below) == []  # print is not doubt
    assert in_doubt([dataclasses.replace(find(OrientedBox(200, 150, 40, 20, 0.0), 0.3, a=0), divider=False)],
                    policy, cfg.doubt_below) == []  # nor a possible back
    assert doubt_region([], size, det, cfg) is None
    assert doubt_region(doubt, size, det, dataclasses.replace(cfg, doubt_below=0.0)) is None
    assert doubt_region(doubt, size, scripted(Detections.empty(), stride=0), cfg) is None


@dataclass(frozen=True)
class Noting(Detector):
    """The real detector, noting each run's input size."""

    sizes: list = field(default_factory=list)

    def run(self, image, size, conf, iou):
        self.sizes.append(size)
        return super().run(image, size, conf, iou)


def test_second_look_adds_what_it_finds_in_its_region_and_reads_what_it_added(tmp_path: Path):
    pytest.importorskip("onnx", reason="building the test models needs onnx (train extra)")
    photo, models, _ = fake_models.scene(tmp_path, dynamic=True)
    reader = Reader.from_models_dir(models)
    reader.detector = Noting.of(reader.detector.model, 320)
    sizes = reader.detector.sizes
    reader.read(photo)
    runs = len(sizes)
    assert reader.config.doubt_below == 0.0  # off unless reader.json turns it on
    reader.config = dataclasses.replace(reader.config, doubt_below=0.99, doubt_tile_px=40.0)
    again = reader.read(photo)
    assert len(sizes) == 2 * runs + 1  # one more detector run, on the region in doubt
    last = sizes[-1]
    loaded = reader.load(photo)
    found = finds_of(read_halves(loaded.image, face_up_finds(reader.detect(loaded.image)), reader.halves,
                                 reader.config, None), reader.values, 1.0)
    region, size = doubt_region(in_doubt(found, reader.policy(get_rules()), reader.config.doubt_below),
                                loaded.image.size, reader.detector, reader.config)
    assert last == size
    # what the second look finds is placed in the photo by its region and merged: a box on a
    # tile already seen is one tile, not two
    seen = reader.detect(loaded.image)
    known = seen.boxes[0] - [region[0], region[1], 0, 0, 0]
    new = [region[2] - region[0] - 30.0, 25.0, 40.0, 20.0, 0.0]
    merged = look_again(loaded.image, seen, region, size, scripted(Detections.empty(), _boxes(known, new), imgsz=1),
                        reader.config)
    assert len(merged) == len(seen) + 1
    assert np.isclose(merged.boxes[:, :2], [region[2] - 30.0, region[1] + 25.0], atol=1e-3).all(1).any()
    assert again.pips == sum(t.tile.pips for t in again.tiles) and again.timings_ms["detect"] > 0


def test_zoomed_pass_finds_small_tiles_the_whole_photo_pass_misses():
    """The shipped detector on a rendered photo of many small tiles: at 416 px it misses some;
    one pass at 3 x the input finds at least as many, in the photo's own pixels."""
    from chickenfoot.vision.lab.datasets.render import SceneConfig, render_scene

    reader = Reader.from_models_dir()
    det = reader.detector
    if not det.stride:
        pytest.skip("the shipped detector has a fixed input size")
    cfg = SceneConfig(width=1600, height=1200, tile_frac=(0.04, 0.05))
    img, labels = render_scene(np.random.default_rng([77, 0]), cfg)
    truth = [t.box() for t in labels]
    c = reader.config
    whole = det.run(img, det.imgsz, c.det_conf, c.det_iou)
    zoomed = det.run(img, zoom_size(img.size, 3, det), c.det_conf, c.det_iou)

    def found(dets: Detections) -> int:
        centres = dets.boxes[:, :2]
        return sum(bool(len(centres)) and float(np.min(np.hypot(*(centres - [b.cx, b.cy]).T))) < b.width / 2
                   for b in truth)

    assert found(zoomed) >= found(whole) and found(zoomed) >= 0.9 * len(truth)


def test_closeup_pass_runs_only_when_nothing_or_a_frame_filling_tile_was_seen(monkeypatch):
    """``closeup_zoom``: the photo shrunk into a margin is searched too when the whole-photo pass
    found nothing, nothing surer than ``closeup_weak``, or a tile longer than
    ``closeup_trigger`` of the long side; never when off.
    Only its boxes of at least ``closeup_keep`` of the long side are taken."""
    calls: list[float] = []
    whole_box = np.array([[400.0, 300.0, 700.0, 350.0, 0.0]])

    def shrunk(image, detector, c):
        calls.append(c.closeup_zoom)  # and a small box there, which ``closeup_keep`` leaves out
        return Detections(np.concatenate([whole_box, [[100.0, 500.0, 150.0, 75.0, 0.0]]]), [0.9, 0.9], [0, 0])

    monkeypatch.setattr(detect_stage, "closeup", shrunk)
    image = Image.new("RGB", (800, 600))
    small = _boxes([200.0, 200.0, 120.0, 60.0, 0.0])
    big = _boxes([380.0, 300.0, 500.0, 250.0, 0.1], conf=0.8)
    assert not len(detect(image, scripted(Detections.empty()), ReaderConfig())) and calls == []
    on = ReaderConfig(closeup_zoom=3.0, closeup_trigger=0.5, closeup_keep=0.25)
    assert np.allclose(detect(image, scripted(Detections.empty()), on).boxes, whole_box) and calls == [3.0]
    assert np.allclose(detect(image, scripted(small), on).boxes, small.boxes) and calls == [3.0]  # 120 px: no
    # 500 of 800 px: searched, and the two views of one tile merge into one box
    assert len(detect(image, scripted(big), on)) == 1 and calls == [3.0, 3.0]
    # only weak finds (a scrap at the edge of a tile that fills the frame): searched with
    # closeup_weak, the scrap kept beside the whole tile; a sure small find is enough
    weak = _boxes([30.0, 300.0, 200.0, 80.0, 0.0], conf=0.32)
    assert np.allclose(detect(image, scripted(weak), on).boxes, weak.boxes) and len(calls) == 2
    keen = dataclasses.replace(on, closeup_weak=0.5)
    assert len(detect(image, scripted(weak), keen)) == 2 and len(calls) == 3
    assert len(detect(image, scripted(_boxes([200.0, 200.0, 120.0, 60.0, 0.0], conf=0.5)), keen)) == 1 \
        and len(calls) == 3


def test_closeup_pass_finds_a_tile_that_fills_the_photo():
    """The shipped detector on a rendered crop where one tile fills most of the frame: the
    close-up pass finds it, in the photo's own pixels."""
    from chickenfoot.vision.geometry import polygon_iou
    from chickenfoot.vision.lab.datasets.render import SceneConfig, render_scene
    from chickenfoot.vision.lab.tally import closeup_crop

    reader = Reader.from_models_dir()
    img, labels = render_scene(np.random.default_rng([78, 3]), SceneConfig(width=1280, height=960, tile_frac=(0.2, 0.25)))
    rows = [t.to_json() for t in labels]
    found = closeup_crop(rows, img.size, np.random.default_rng(5))
    assert found is not None
    (x0, y0, x1, y1), inside = found
    crop = img.crop((x0, y0, x1, y1))
    truth = [OrientedBox(b[0] - x0, b[1] - y0, *b[2:]) for b in (rows[k]["box"] for k in inside)]
    assert max(b.length for b in truth) >= 0.55 * max(crop.size)
    dets = closeup(crop, reader.detector, dataclasses.replace(reader.config, closeup_zoom=3.0))
    corners = obb_corners(dets.boxes)
    for b in truth:
        quad = obb_corners(np.array([[b.cx, b.cy, b.length, b.width, b.angle]]))[0]
        assert max((polygon_iou(quad, c) for c in corners), default=0.0) > 0.6
