"""``python -m chickenfoot.vision.lab.quantize``: the shipped models, made smaller from the float ones.

    python -m chickenfoot.vision.lab.quantize --src FLOAT_MODELS --out models [--mode [FILE=]MODE] [--check]

Reads the float ONNX files and ``reader.json`` in ``--src`` and writes each model, with the same
file name, metadata and ``reader.json``, to ``--out``, stored as ``--mode`` says:

* ``half`` (the default; the half readers ship so): every weight stored as float16 and cast
  back to float32 when onnxruntime loads the model. Half the size; runs as fast as the float
  model (weights rounded to 11 significant bits).
* ``weights``: int8 weights, one scale per output channel, turned back to float at load
  (:func:`chickenfoot.vision.runtime.open_models`). A quarter of the size; runs as fast as the float model.
* ``static``: int8 weights and activations (QDQ, onnxruntime.quantization), run in int8. The
  detector head from its last convolutions on (box distribution, angle, scores and their
  concatenation: one uint8 scale cannot hold pixel coordinates and probabilities at once) and
  the half readers' linear layer and softmax stay float. Calibration: the float reader reads
  rendered photos (``--calib DIR`` of photos, else ``--calib-count`` rendered here from
  ``--calib-seed``: half plain, half with hard cases and printed matter, sets up to double-18,
  1280 px; the seed is none of the training or evaluation seeds) and every tensor it feeds a
  model - each detector pass at every input size it chose, every batch of half crops - is a
  calibration input of that model. Min-max ranges, 7-bit weights per output channel.
* ``xz`` (the detector ships so): the float model as it is, compressed with xz into
  ``FILE.xz`` (78% of the size for the detector; ``reader.json`` names the new file), unpacked
  when loaded (:func:`chickenfoot.vision.runtime.model_bytes`): the very same model.
* ``float``: copied as it is.

``--check`` prints how far each new model's outputs are from the float one's on the calibration
inputs. Needs ``onnx`` (the ``train`` extra).
"""

from __future__ import annotations

import argparse
import json
import lzma
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from chickenfoot.rules import ChickenFootError, get_rules, jsontext
from chickenfoot.vision.config import ReaderConfig
from chickenfoot.vision.reader import Reader
from chickenfoot.vision.runtime import COMPRESSED_SUFFIX, QUANTIZED_KEY, model_bytes, open_models

#: Calibration photos (``chickenfoot.vision.lab.datasets.render``): a seed no training or evaluation set uses.
CALIB_SEED = 95026
CALIB_COUNT = 48
#: Most inputs a model is calibrated on (the first ones recorded are kept).
MAX_INPUTS = 160
#: How each model is stored: ``static`` (weights and activations int8, run in int8),
#: ``weights`` (int8 weights only, turned back to float when the model is loaded), ``half``
#: (every float weight stored as float16, turned back to float32 when loaded) or ``float``.
MODES = ("static", "weights", "half", "xz", "float")
#: What the shipped models are: the half readers with float16 weights, the detector float32
#: compressed (see :data:`SHIPPED`). The int8 modes cost accuracy (see docs/experiments.md).
DEFAULT_MODE = "half"
#: The detector in float16 (2.17 MB instead of 3.93) moved scores near a threshold by a few
#: thousandths: one photo of 200 lost its right penalty in two of the four held-out sets. With
#: float16 half readers the reader reads every held-out and real photo as the float one does.
SHIPPED = {"tile_obb.onnx": "xz"}


class Recording:
    """An onnxruntime session that keeps a copy of every input it is run on."""

    def __init__(self, session: Any) -> None:
        self.session = session
        self.inputs: list[np.ndarray] = []

    def run(self, outputs: Any, feed: dict[str, np.ndarray]) -> Any:
        if len(self.inputs) < MAX_INPUTS:
            self.inputs.append(np.array(next(iter(feed.values())), copy=True))
        return self.session.run(outputs, feed)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.session, name)


def render_calibration(out: Path, count: int, seed: int) -> list[Path]:
    """``count`` rendered photos at 1280 px: the first half plain, the rest with hard cases and
    printed matter (seed ``seed`` and ``seed + 1``), sets drawn up to double-18."""
    from chickenfoot.vision.lab.datasets.render import render_dataset  # data making, only for calibration

    plain = count // 2
    render_dataset(out / "plain", plain, seed, 1.0, 18, 1280, pip_contrast=100.0, gray_contrast=60.0)
    render_dataset(out / "hard", count - plain, seed + 1, 1.0, 18, 1280, hard_cases=True, printed=True,
                   pip_contrast=100.0, gray_contrast=60.0)
    return sorted((out / "plain").rglob("*.jpg")) + sorted((out / "hard").rglob("*.jpg"))


def record_inputs(src: Path, photos: list[Path]) -> dict[str, list[np.ndarray]]:
    """Every input the float reader in ``src`` feeds each of its models while reading ``photos``
    (each also read as a double-18 set, which runs the wide half reader)."""
    config = ReaderConfig.load(src / "reader.json")
    sessions = [Recording(s) for s in open_models([src / f for f in config.model_files], config.threads)]
    reader = Reader(config, sessions[0], sessions[1], src, wide=sessions[2] if len(sessions) > 2 else None)
    rules = get_rules()
    for i, photo in enumerate(photos):
        reader.read(photo, rules)
        if len(sessions) > 2 and i % 2:
            reader.read(photo, rules, 18)
    return {f: s.inputs for f, s in zip(config.model_files, sessions, strict=True)}


def float_nodes(model: Any) -> list[str]:
    """The nodes of an ultralytics export left in float: the detect head from its last
    convolutions on (every node of the head module but its first two convolution blocks), or a
    classifier's linear layer and softmax."""
    names = [(n.name, n.op_type) for n in model.graph.node]
    if any(op == "Gemm" for _, op in names):
        return [n for n, op in names if op in ("Gemm", "Softmax", "Flatten")]
    modules = [int(m.group(1)) for n, _ in names if (m := re.match(r"/model\.(\d+)/", n))]
    head = f"/model.{max(modules)}/"
    keep = re.compile(r"/cv\d\.\d+/cv\d\.\d+\.[01]/")
    return [n for n, _ in names if n.startswith(head) and not keep.search(n)]


class _Feed:
    def __init__(self, name: str, inputs: list[np.ndarray]) -> None:
        self.name, self.items = name, iter(inputs)

    def get_next(self) -> dict[str, np.ndarray] | None:
        x = next(self.items, None)
        return None if x is None else {self.name: x}


def out_name(name: str, mode: str) -> str:
    """The file name a model of ``name`` is written under in ``mode``."""
    if mode == "xz":
        return name if name.endswith(COMPRESSED_SUFFIX) else name + COMPRESSED_SUFFIX
    return name.removesuffix(COMPRESSED_SUFFIX)


def load_onnx(path: Path) -> Any:
    """An ONNX file (unpacked when compressed) as an ``onnx.ModelProto``."""
    import onnx

    return onnx.load_from_string(model_bytes(path))


def quantize_model(src: Path, dst: Path, inputs: list[np.ndarray], mode: str = "static") -> None:
    """An int8 copy of ``src`` at ``dst`` (``mode``, see :data:`MODES`; ``static`` calibrated on
    ``inputs``), ultralytics' metadata (class names, input size) kept and the mode recorded as
    ``quantized``."""
    import onnx

    model = load_onnx(src)
    if mode in ("float", "xz"):
        data = model_bytes(src)
        dst.write_bytes(lzma.compress(data, preset=9 | lzma.PRESET_EXTREME) if mode == "xz" else data)
        return
    if mode == "weights":
        out = weights_only(model)
    elif mode == "half":
        out = half_weights(model)
    else:
        from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

        class Feed(_Feed, CalibrationDataReader):
            pass

        # reduce_range: 7-bit weights. Without it the uint8 x int8 products saturate in the
        # AVX2 kernels (no VNNI): the half readers then changed 2% of halves, with it none.
        float_src = dst.with_name(dst.name + ".float.onnx")
        float_src.write_bytes(model_bytes(src))
        quantize_static(
            str(float_src), str(dst), Feed(model.graph.input[0].name, inputs), quant_format=QuantFormat.QDQ,
            per_channel=True, reduce_range=True, activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
            nodes_to_exclude=float_nodes(model), extra_options={"CalibMaxIntermediateOutputs": 16},
        )
        float_src.unlink()
        out = onnx.load(str(dst))
        del out.metadata_props[:]
        out.metadata_props.extend(model.metadata_props)
    for p in list(out.metadata_props):
        if p.key == QUANTIZED_KEY:
            out.metadata_props.remove(p)
    out.metadata_props.add(key=QUANTIZED_KEY, value=mode)
    onnx.save(out, str(dst))


def half_weights(model: Any) -> Any:
    """``model`` with every float32 initializer of more than 16 values stored as float16 and
    cast back to float32 by a Cast node (which onnxruntime folds into a float constant at load:
    the model runs as fast as the float one, on weights rounded to 11 significant bits)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    model = onnx.ModelProto.FromString(model.SerializeToString())
    casts = []
    for init in list(model.graph.initializer):
        if init.data_type != TensorProto.FLOAT:
            continue
        w = numpy_helper.to_array(init)
        if w.size <= 16:
            continue
        name = init.name
        model.graph.initializer.remove(init)
        model.graph.initializer.append(numpy_helper.from_array(w.astype(np.float16), f"{name}_fp16"))
        casts.append(helper.make_node("Cast", [f"{name}_fp16"], [name], name=f"{name}_cast", to=TensorProto.FLOAT))
    nodes = list(model.graph.node)
    del model.graph.node[:]
    model.graph.node.extend(casts + nodes)
    onnx.checker.check_model(model)
    return model


def weights_only(model: Any) -> Any:
    """``model`` with every convolution's and linear layer's weights stored as int8, one scale
    per output channel, each turned back to float by a DequantizeLinear node (which onnxruntime
    folds into a float constant at load: see :func:`chickenfoot.vision.runtime.open_models`)."""
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.ModelProto.FromString(model.SerializeToString())
    inits = {i.name: i for i in model.graph.initializer}
    done: set[str] = set()
    dequant = []
    for node in model.graph.node:
        if node.op_type not in ("Conv", "Gemm") or len(node.input) < 2:
            continue
        name = node.input[1]
        if name not in inits or name in done:
            continue
        done.add(name)
        w = numpy_helper.to_array(inits[name]).astype(np.float32)
        scale = np.abs(w.reshape(len(w), -1)).max(1) / 127.0
        scale = np.where(scale > 0, scale, 1.0).astype(np.float32)
        q = np.clip(np.round(w / scale.reshape(-1, *[1] * (w.ndim - 1))), -127, 127).astype(np.int8)
        model.graph.initializer.remove(inits[name])
        model.graph.initializer.extend([
            numpy_helper.from_array(q, f"{name}_int8"), numpy_helper.from_array(scale, f"{name}_scale"),
            numpy_helper.from_array(np.zeros(len(w), np.int8), f"{name}_zero"),
        ])
        dequant.append(helper.make_node("DequantizeLinear", [f"{name}_int8", f"{name}_scale", f"{name}_zero"],
                                        [name], name=f"{name}_dequant", axis=0))
    nodes = list(model.graph.node)
    del model.graph.node[:]
    model.graph.node.extend(dequant + nodes)
    onnx.checker.check_model(model)
    return model


def compare(src: Path, dst: Path, inputs: list[np.ndarray], threads: int) -> str:
    """How far ``dst``'s outputs are from ``src``'s on ``inputs``: for a classifier, how often
    the two pick the same class and the mean difference of the picked probability; for the
    detector, of the anchors either scores over 0.25, the mean score difference and the share
    that differ by more than 0.1."""
    a, b = open_models([src, dst], threads)
    name = a.get_inputs()[0].name
    same, diffs, far = [], [], []
    for x in inputs:
        ya, yb = a.run(None, {name: x})[0], b.run(None, {name: x})[0]
        if ya.ndim == 3:  # detector: (1, 4 + nc + 1, anchors), scores in rows 4 .. 4 + nc
            sa, sb = ya[0, 4:-1].max(0), yb[0, 4:-1].max(0)
            on = (sa > 0.25) | (sb > 0.25)
            diffs.extend(np.abs(sa - sb)[on])
            far.extend(np.abs(sa - sb)[on] > 0.1)
        else:
            ka = ya.argmax(1)
            same.extend(ka == yb.argmax(1))
            diffs.extend(np.abs(ya[np.arange(len(ka)), ka] - yb[np.arange(len(ka)), ka]))
    if same:
        return f"same class on {100 * np.mean(same):.2f}% of {len(same)} halves, mean difference {np.mean(diffs):.4f}"
    return (f"{len(diffs)} anchors scored over 0.25: mean score difference {np.mean(diffs):.4f}, "
            f"{100 * np.mean(far):.2f}% differ by more than 0.1")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m chickenfoot.vision.lab.quantize", description=__doc__.split("\n")[0])
    ap.add_argument("--src", type=Path, required=True, help="folder of the float models and reader.json")
    ap.add_argument("--out", type=Path, required=True, help="folder to write the smaller models and reader.json to")
    ap.add_argument("--mode", action="append", default=[], metavar="[FILE=]MODE",
                    help=f"how to store every model, or one model file: {', '.join(MODES)} "
                         f"(default: {DEFAULT_MODE}, {', '.join(f'{f} {m}' for f, m in SHIPPED.items())})")
    ap.add_argument("--calib", type=Path, default=None, help="folder of calibration photos (default: rendered)")
    ap.add_argument("--calib-seed", type=int, default=CALIB_SEED)
    ap.add_argument("--calib-count", type=int, default=CALIB_COUNT)
    ap.add_argument("--check", action="store_true",
                    help="print how far each new model is from its float one on the calibration inputs")
    args = ap.parse_args(argv)
    if args.src.resolve() == args.out.resolve():
        print("error: --out must differ from --src (the float models are read while writing)", file=sys.stderr)
        return 2
    try:
        config = ReaderConfig.load(args.src / "reader.json")
    except ChickenFootError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    modes = {f: SHIPPED.get(f, DEFAULT_MODE) for f in config.model_files}
    for item in args.mode:
        f, _, mode = item.rpartition("=")
        if (f and f not in config.model_files) or mode not in MODES:
            print(f"error: --mode {item}: expected MODE or FILE=MODE, FILE one of {list(config.model_files)}, "
                  f"MODE one of {list(MODES)}", file=sys.stderr)
            return 2
        modes.update({f: mode} if f else dict.fromkeys(config.model_files, mode))
    with tempfile.TemporaryDirectory(prefix="cf-quant-") as tmp:
        photos: list[Path] = []
        inputs: dict[str, list[np.ndarray]] = {f: [] for f in config.model_files}
        if args.check or "static" in modes.values():
            if args.calib is not None:
                photos = sorted(p for p in args.calib.rglob("*") if p.suffix.lower() in (".jpg", ".jpeg", ".png"))
            else:
                photos = render_calibration(Path(tmp), args.calib_count, args.calib_seed)
            if not photos:
                print(f"error: no photos in {args.calib}", file=sys.stderr)
                return 2
            inputs = record_inputs(args.src, photos)
        args.out.mkdir(parents=True, exist_ok=True)
        names = {f: out_name(f, modes[f]) for f in config.model_files}
        for f, name in names.items():
            quantize_model(args.src / f, args.out / name, inputs[f], modes[f])
            size = (args.out / name).stat().st_size / 2**20
            note = f"; {compare(args.src / f, args.out / name, inputs[f], config.threads)}" if args.check else ""
            print(f"{name}: {modes[f]}, {size:.2f} MB (from {f}, {(args.src / f).stat().st_size / 2**20:.2f} MB){note}")
    data = jsontext.loads((args.src / "reader.json").read_text(encoding="utf-8"))
    for key in ("detector", "classifier", "classifier_wide"):
        if data.get(key):
            data[key] = names[data[key]]
    (args.out / "reader.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    if photos:
        print(json.dumps({"calibration": args.calib_seed if args.calib is None else str(args.calib),
                          "photos": len(photos)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
