"""Small real ONNX models with known behaviour, for testing the reader's plumbing end to end
without the trained models (which may not exist yet, and whose accuracy is the evaluation's
business, not the unit tests').

* The "detector" ignores its input and always outputs the same ultralytics-OBB-shaped tensor
  ``(1, 4 + nc + 1, N)`` that the test chose (boxes in letterbox-input pixels).
* The "classifier" really looks at its input: global average colour -> linear -> softmax, so
  a red half reads 3, a blue half 4 and a white half 0 (class names are sorted as text, like
  ultralytics' classify datasets, so index != value).

Needs the ``onnx`` package (in the train extra); tests skip without it.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from chickenfoot.vision.geometry import OrientedBox
from chickenfoot.vision.obb import letterbox_geometry

CLASS_NAMES = sorted((str(v) for v in range(13)), key=str)  # "0", "1", "10", "11", "12", "2", ...
WIDE_NAMES = sorted((str(v) for v in range(19)), key=str)  # a double-18 half reader's classes
RED, BLUE, WHITE = (220, 30, 30), (30, 30, 220), (255, 255, 255)


def _save(model, path: Path, meta: dict[str, str]) -> None:
    import onnx

    for k, v in meta.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = k, v
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


def write_detector(path: Path, output: np.ndarray, imgsz: int, names: dict[int, str],
                   dynamic: bool = False) -> None:
    from onnx import TensorProto, helper, numpy_helper

    out = np.asarray(output, np.float32)
    const = helper.make_node("Constant", [], ["output0"], value=numpy_helper.from_array(out, "c"))
    graph = helper.make_graph(
        [const], "fake_obb",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT,
                                       [1, 3, "height", "width"] if dynamic else [1, 3, imgsz, imgsz])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, list(out.shape))],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    _save(model, path, {"imgsz": f"[{imgsz}, {imgsz}]", "names": repr(names), "task": "obb"})


def write_classifier(path: Path, imgsz: int, values: tuple[int, int, int] = (3, 4, 0),
                     class_names: list[str] = CLASS_NAMES) -> None:
    """Red halves read ``values[0]``, blue ``values[1]``, white ``values[2]``."""
    from onnx import TensorProto, helper, numpy_helper

    k = len(class_names)
    weights = np.zeros((3, k), np.float32)
    red, blue, white = (class_names.index(str(v)) for v in values)
    weights[:, red] = (20, -10, -10)
    weights[:, blue] = (-10, -10, 20)
    weights[:, white] = (5, 5, 5)  # white wins only when all channels are high
    nodes = [
        helper.make_node("GlobalAveragePool", ["images"], ["pooled"]),
        helper.make_node("Flatten", ["pooled"], ["flat"], axis=1),
        helper.make_node("MatMul", ["flat", "w"], ["logits"]),
        helper.make_node("Softmax", ["logits"], ["output0"], axis=1),
    ]
    graph = helper.make_graph(
        nodes, "fake_cls",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, ["batch", 3, imgsz, imgsz])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, ["batch", k])],
        initializer=[numpy_helper.from_array(weights, "w")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    names = {i: n for i, n in enumerate(class_names)}
    _save(model, path, {"imgsz": f"[{imgsz}, {imgsz}]", "names": repr(names), "task": "classify"})


def draw_tile(image: Image.Image, box: OrientedBox, colour_a: tuple, colour_b: tuple,
              divider: bool = True, divider_colour: tuple = (40, 40, 40)) -> None:
    """Paint a tile: half A (the end at centre - u * length / 2) and half B in flat colours,
    with a divider across the middle, dark by default (a face-down tile has none)."""
    u, v = box.axes()
    c = np.array([box.cx, box.cy])
    hl, hw = u * box.length / 2, v * box.width / 2
    half_a = [c - hl - hw, c - hw, c + hw, c - hl + hw]
    half_b = [c - hw, c + hl - hw, c + hl + hw, c + hw]
    draw = ImageDraw.Draw(image)
    draw.polygon([tuple(p) for p in half_a], fill=colour_a)
    draw.polygon([tuple(p) for p in half_b], fill=colour_b)
    if divider:
        ends = [tuple(c - hw * 0.8), tuple(c + hw * 0.8)]
        draw.line(ends, fill=divider_colour, width=max(2, round(box.length / 30)))


def lettering(image: Image.Image, box: OrientedBox, ink: tuple) -> None:
    """Marks across a back's middle, edge to edge but at changing heights, as a line of
    letters printed there is."""
    u, v = box.axes()
    c = np.array([box.cx, box.cy])
    draw = ImageDraw.Draw(image)
    for k, up in enumerate([0.06, -0.05, 0.0, 0.07, -0.07, 0.03, -0.04, 0.05]):
        p0 = c + v * (-0.4 + 0.1 * k) * box.width + u * up * box.length
        draw.line([tuple(p0), tuple(p0 + v * 0.1 * box.width)], fill=ink, width=max(2, round(box.length / 45)))


def obb_rows(boxes: list[OrientedBox], scores: list[list[float]], working_size: tuple[int, int],
             imgsz: int, swap: list[bool] | None = None, stride: int = 0) -> np.ndarray:
    """An ultralytics OBB output ``(1, 4 + nc + 1, N)`` for boxes given in working-image pixels."""
    _, lb = letterbox_geometry(working_size[0], working_size[1], imgsz, stride)
    nc = len(scores[0])
    out = np.zeros((1, 4 + nc + 1, len(boxes)), np.float32)
    for i, b in enumerate(boxes):
        cx, cy = b.cx * lb.gain + lb.pad_x, b.cy * lb.gain + lb.pad_y
        w, h, a = b.length * lb.gain, b.width * lb.gain, b.angle
        if swap and swap[i]:  # the same box written with w across the tile, as a model may
            w, h, a = h, w, a - math.pi / 2
        out[0, :4, i] = (cx, cy, w, h)
        out[0, 4 : 4 + nc, i] = scores[i]
        out[0, -1, i] = a
    return out


def write_models(folder: Path, det_output: np.ndarray, *, det_imgsz: int = 320, cls_imgsz: int = 16,
                 decode_max_side: int = 400, review_conf: float = 0.6,
                 values: tuple[int, int, int] = (3, 4, 0), dynamic: bool = False) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    write_detector(folder / "tile_obb.onnx", det_output, det_imgsz, {0: "tile", 1: "back"}, dynamic)
    write_classifier(folder / "half_cls.onnx", cls_imgsz, values)
    config = {
        "detector": "tile_obb.onnx", "classifier": "half_cls.onnx", "det_imgsz": det_imgsz,
        "cls_imgsz": cls_imgsz, "crop_size": 32, "crop_pad": 0.0, "max_value": 12,
        "det_conf": 0.25, "det_iou": 0.5, "review_conf": review_conf,
        "decode_max_side": decode_max_side, "trainer_note": "fake models for tests",
    }
    (folder / "reader.json").write_text(json.dumps(config))
    return folder


def scene(folder: Path, dynamic: bool = False) -> tuple[Path, Path, list[tuple[OrientedBox, str]]]:
    """An 800x600 photo with three drawn tiles plus models that 'detect' them (``dynamic``: a
    detector with dynamic input shape, fed a stride-32 rectangle instead of the square).

    Returns (photo, models folder, [(box in photo pixels, expected tile)]).
    """
    photo = Image.new("RGB", (800, 600), (60, 110, 60))  # green felt
    tiles = [
        (OrientedBox(250, 200, 160, 80, math.radians(30)), RED, BLUE, "3-4"),
        (OrientedBox(560, 330, 170, 84, math.radians(100)), WHITE, RED, "0-3"),
        (OrientedBox(300, 470, 150, 76, math.radians(-12) % math.pi), WHITE, WHITE, "0-0"),
    ]
    for box, ca, cb, _ in tiles:
        draw_tile(photo, box, ca, cb)
    face_down = OrientedBox(640, 110, 150, 76, math.radians(20))  # a blank back: reads as 0-0
    draw_tile(photo, face_down, WHITE, WHITE, divider=False)
    path = folder / "hand.png"
    photo.save(path)
    working = 0.5  # decode_max_side 400 on an 800 px photo
    boxes = [t[0].scaled(working) for t in tiles]
    dup = OrientedBox(boxes[0].cx + 1.5, boxes[0].cy - 1, boxes[0].length * 1.04, boxes[0].width,
                      boxes[0].angle + 0.03)
    back = OrientedBox(350, 60, 60, 30, 0.2)  # a face-down tile, class 1
    junk = OrientedBox(40, 250, 50, 20, 1.0)  # below the confidence threshold
    rows = obb_rows(
        [*boxes, dup, back, junk, face_down.scaled(working)],
        [[0.92, 0.01], [0.85, 0.02], [0.3, 0.05], [0.7, 0.0], [0.1, 0.8], [0.2, 0.1], [0.8, 0.0]],
        (400, 300), 320, swap=[False, True, False, False, False, False, False], stride=32 if dynamic else 0,
    )
    models = write_models(folder / "models", rows, dynamic=dynamic)
    return path, models, [(t[0], t[3]) for t in tiles]
