"""Rebuild a trainable ultralytics checkpoint from a shipped ONNX file.

    python -m chickenfoot.vision.lab.train_warmstart --onnx models/half_cls.onnx --yaml vision/lab/model_yaml/half_cls.yaml --out cls.pt
    python -m chickenfoot.vision.lab.train_warmstart --onnx models/tile_obb.onnx --yaml vision/lab/model_yaml/tile_obb.yaml --out det.pt

Why: ``chickenfoot.vision.lab.train`` keeps its checkpoints in a work folder that does not outlive the machine,
and the shipped models took about eight hours of passes on the 2-core CPU. Without this, the
next pass has to run the whole chain again; with it, a pass starts from the shipped weights.

How: the export fuses each convolution with its BatchNorm, and keeps the parameter names
(``model.4.m.0.cv1.conv.weight`` and its fused ``.bias``). The network is built again from its
yaml, each convolution gets the fused weights, and each BatchNorm is set back so that it
*still* gives the fused bias in eval mode - but with running statistics measured on rendered
calibration inputs and the matching scale, so that batch statistics in training mode give
about the same output. (With mean 0 and variance 1, the first training step would normalise
every layer by statistics it has never seen, and the weights would be lost.) Nothing else of
ours is trained here: the checkpoint is checked against the ONNX file before it is written.

Training code: needs the ``train`` extra (torch, ultralytics, onnx).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import shutil
import sys
from pathlib import Path
from typing import Any

import numpy as np

from chickenfoot.vision.runtime import model_bytes

#: Largest difference allowed between the checkpoint's and the ONNX file's outputs, relative to
#: the largest output (the detector's are box coordinates in input pixels, up to its size).
TOLERANCE = 1e-4


def _find_font() -> Path | None:
    try:
        import matplotlib

        p = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
        if p.exists():
            return p
    except ImportError:
        pass
    for root in ("/usr/share/fonts", "/usr/local/share/fonts", "/Library/Fonts", "C:/Windows/Fonts"):
        hits = sorted(Path(root).rglob("*.ttf")) if Path(root).is_dir() else []
        if hits:
            return hits[0]
    return None


def setup_offline(config_dir: Path) -> None:
    """Make ultralytics work with no network: offline flag, its own settings folder, and a local
    font where it would otherwise download Arial. Must run before ultralytics is imported.
    A ``YOLO_CONFIG_DIR`` already set (the test suite sets one per run) is kept, and the font
    goes there: that is where ultralytics looks for it."""
    config_dir = Path(os.environ.get("YOLO_CONFIG_DIR") or config_dir).resolve()
    font_dir = config_dir / "Ultralytics"
    font_dir.mkdir(parents=True, exist_ok=True)
    font = _find_font()
    for name in ("Arial.ttf", "Arial.Unicode.ttf"):
        if font is not None and not (font_dir / name).exists():
            shutil.copy(font, font_dir / name)
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_CONFIG_DIR"] = str(config_dir)
    os.environ.setdefault("YOLO_VERBOSE", "True")
    from chickenfoot.vision.lab.train_torchvision import provide_missing_ops

    provide_missing_ops()  # PyPI's torchvision beside the CPU torch (see that module)


def _initializers(onnx_path: Path) -> tuple[dict[str, np.ndarray], Any]:
    import onnx
    from onnx import numpy_helper

    if not Path(onnx_path).is_file():
        raise ValueError(f"{onnx_path}: no such file")
    try:
        m = onnx.load_from_string(model_bytes(Path(onnx_path)))
    except Exception as exc:  # protobuf's DecodeError and friends: not an ONNX file
        raise ValueError(f"{onnx_path}: not an ONNX file ({type(exc).__name__})") from exc
    init = {i.name: numpy_helper.to_array(i).copy() for i in m.graph.initializer}
    # weights chickenfoot.vision.lab.quantize stored smaller come back as float32 under their own names:
    # float16 through a Cast, int8 through a DequantizeLinear (one scale per output channel)
    for node in m.graph.node:
        if node.op_type == "Cast" and node.input[0] in init:
            init[node.output[0]] = init[node.input[0]].astype(np.float32)
        elif node.op_type == "DequantizeLinear" and all(i in init for i in node.input[:2]):
            q, scale = init[node.input[0]].astype(np.float32), init[node.input[1]]
            zero = init[node.input[2]].astype(np.float32) if len(node.input) > 2 and node.input[2] in init else 0.0
            shape = (-1, *[1] * (q.ndim - 1)) if np.ndim(scale) else ()
            init[node.output[0]] = ((q - np.reshape(zero, shape)) * np.reshape(scale, shape)).astype(np.float32)
    return init, m


def _metadata(m: Any) -> dict[str, str]:
    """The metadata ultralytics writes into an exported file (``task``, ``names``, ...)."""
    return {p.key: p.value for p in m.metadata_props}


def build(onnx_path: Path, model_yaml: Path) -> tuple[Any, str, list[str]]:
    """The ultralytics model of ``model_yaml`` with the ONNX file's weights (BatchNorm as the
    identity plus the fused bias), its task, and its class names."""
    import torch
    from ultralytics.nn.modules import Conv
    from ultralytics.nn.tasks import ClassificationModel, OBBModel

    init, m = _initializers(onnx_path)
    meta = _metadata(m)
    task = meta.get("task", "")
    names_meta = meta.get("names", "")
    names = ast.literal_eval(names_meta) if names_meta else {}
    if task == "classify":
        nc = int(m.graph.output[0].type.tensor_type.shape.dim[1].dim_value)
        model = ClassificationModel(str(model_yaml), nc=nc, verbose=False)
    elif task == "obb":
        model = OBBModel(str(model_yaml), nc=len(names) or 1, verbose=False)
    else:
        raise ValueError(f"{onnx_path}: task {task!r} in its metadata; expected 'classify' or 'obb'")
    model.names = {int(k): str(v) for k, v in names.items()} if names else {i: str(i) for i in range(model.nc)}
    model.eval()
    used: set[str] = set()
    with torch.no_grad():
        for name, mod in model.named_modules():
            if isinstance(mod, Conv) and hasattr(mod, "bn"):
                w, b = f"{name}.conv.weight", f"{name}.conv.bias"
                if w not in init or b not in init or tuple(mod.conv.weight.shape) != init[w].shape:
                    raise ValueError(f"{onnx_path.name} does not fit {model_yaml.name} at {name}: "
                                     "not the yaml it was trained from")
                mod.conv.weight.copy_(torch.from_numpy(init[w]))
                mod.bn.running_mean.zero_()
                mod.bn.running_var.fill_(1.0 - mod.bn.eps)
                mod.bn.weight.fill_(1.0)
                mod.bn.bias.copy_(torch.from_numpy(init[b]))
                used |= {w, b}
        state = model.state_dict()
        for k, v in init.items():
            if k not in used and k in state and tuple(state[k].shape) == v.shape:
                state[k].copy_(torch.from_numpy(v))
                used.add(k)
    bn_names = {f"{n}.bn.{p}" for n, mod in model.named_modules() if isinstance(mod, Conv) and hasattr(mod, "bn")
                for p in ("weight", "bias", "running_mean", "running_var", "num_batches_tracked")}
    missing = [k for k, v in model.state_dict().items()
               if k not in used and k not in bn_names and v.is_floating_point() and not k.endswith("dfl.conv.weight")]
    if missing:
        raise ValueError(f"{onnx_path} gives no value for {missing[:5]}{'...' if len(missing) > 5 else ''}")
    return model, task, list(model.names.values())


def calibrate(model: Any, x: np.ndarray) -> None:
    """Set each BatchNorm's statistics to those of its convolution's output on ``x``, and its
    scale and shift so that eval mode gives exactly what it gave before."""
    import torch
    from ultralytics.nn.modules import Conv

    stats: dict[str, tuple[Any, Any]] = {}
    hooks = []
    mods = {n: m for n, m in model.named_modules() if isinstance(m, Conv) and hasattr(m, "bn")}
    for name, mod in mods.items():
        def hook(_m: Any, _inp: Any, out: Any, name: str = name) -> None:
            y = out.detach().double()
            stats[name] = (y.mean((0, 2, 3)), y.var((0, 2, 3), unbiased=False))
        hooks.append(mod.conv.register_forward_hook(hook))
    model.eval()
    with torch.no_grad():
        model(torch.from_numpy(x))
    for h in hooks:
        h.remove()
    with torch.no_grad():
        for name, (mu, var) in stats.items():
            bn = mods[name].bn
            fused_bias = bn.bias.detach().double().clone()
            bn.running_mean.copy_(mu)
            bn.running_var.copy_(var)
            bn.weight.copy_(torch.sqrt(var + bn.eps))
            bn.bias.copy_(mu + fused_bias)


#: The training settings ultralytics' classifier augmentation reads.
CLASSIFY_AUGMENT_KEYS = ("scale", "fliplr", "flipud", "erasing", "auto_augment", "hsv_h", "hsv_s", "hsv_v")


def calibration_inputs(task: str, imgsz: int, count: int, seed: int,
                       hyp: dict[str, Any] | None = None, folder: Path | None = None) -> np.ndarray:
    """Rendered inputs: half crops for the classifier, photos for the detector. With ``hyp``
    (the classifier's training augmentation, as in the yaml), each crop goes through the
    transforms ultralytics trains with, so the statistics are those training will see."""
    from PIL import Image

    from chickenfoot.vision.lab.datasets.halves import scene_halves
    from chickenfoot.vision.lab.datasets.render import SceneConfig, render_scene

    rng = np.random.default_rng([seed, 0])
    images = []
    if task != "classify" and folder is not None:
        return _detector_batches(Path(folder), imgsz, count, seed, hyp or {})
    if folder is not None:  # the data the next pass trains on: its statistics, class mix and all
        files = sorted(p for p in Path(folder).rglob("*") if p.suffix.lower() in (".png", ".jpg", ".jpeg"))
        if not files:
            raise ValueError(f"{folder}: no images to calibrate on")
        pick = rng.choice(len(files), size=min(count, len(files)), replace=False)
        images = [Image.open(files[i]).convert("RGB").resize((imgsz, imgsz)) for i in sorted(pick)]
    while len(images) < count:
        if task == "classify":
            images += [img.convert("RGB").resize((imgsz, imgsz)) for img, _ in
                       scene_halves(rng, imgsz, 0.06, 12, pip_contrast=100.0)]
        else:
            images.append(render_scene(rng, SceneConfig(width=imgsz, height=imgsz, pip_contrast=100.0))[0])
    images = images[:count]
    if task == "classify" and hyp is not None:
        import torch

        from chickenfoot.vision.lab.train_torchvision import provide_missing_ops

        provide_missing_ops()  # the transforms below import torchvision
        from ultralytics.cfg import get_cfg
        from ultralytics.data.augment import classify_augmentations

        torch.manual_seed(seed)
        # ultralytics' own defaults for any key the yaml leaves out (randaugment, say), as its
        # ClassificationDataset builds the same transforms from the same settings
        a = get_cfg(overrides={k: v for k, v in hyp.items() if k in CLASSIFY_AUGMENT_KEYS})
        aug = classify_augmentations(size=imgsz, scale=(1.0 - float(a.scale), 1.0), hflip=a.fliplr, vflip=a.flipud,
                                     erasing=a.erasing, auto_augment=a.auto_augment, hsv_h=a.hsv_h, hsv_s=a.hsv_s,
                                     hsv_v=a.hsv_v)
        return np.stack([aug(im).numpy() for im in images]).astype(np.float32)
    return (np.stack([np.asarray(im.convert("RGB"), np.float32) for im in images]) / 255.0).transpose(0, 3, 1, 2).copy()


def _detector_batches(data_yaml: Path, imgsz: int, count: int, seed: int, hyp: dict[str, Any]) -> np.ndarray:
    """``count`` training images of ``data_yaml`` as ultralytics' detector training loads them
    (mosaic, flips, scale, colour: the yaml's ``hyp``)."""
    import torch
    from ultralytics.cfg import get_cfg
    from ultralytics.data import build_yolo_dataset
    from ultralytics.data.utils import check_det_dataset

    torch.manual_seed(seed)
    random.seed(seed)
    np.random.seed(seed)  # ultralytics' mosaic and affine draw from the global generators
    cfg = get_cfg(overrides={k: v for k, v in hyp.items() if k not in ("time", "patience", "nbs", "warmup_epochs")}
                  | {"imgsz": imgsz, "task": "obb", "data": str(data_yaml)})
    data = check_det_dataset(str(data_yaml))
    ds = build_yolo_dataset(cfg, data["train"], 16, data, mode="train", rect=False, stride=32)
    idx = np.random.default_rng(seed).choice(len(ds), size=count, replace=count > len(ds))
    return np.stack([ds[int(i)]["img"].numpy() for i in idx]).astype(np.float32) / 255.0


def onnx_outputs(onnx_path: Path, x: np.ndarray) -> np.ndarray:
    import onnxruntime as ort

    sess = ort.InferenceSession(model_bytes(Path(onnx_path)), providers=["CPUExecutionProvider"])
    shape = sess.get_inputs()[0].shape
    if all(isinstance(d, int) for d in shape[1:]):  # a fixed batch of one: one input at a time
        return np.concatenate([sess.run(None, {sess.get_inputs()[0].name: x[i:i + 1]})[0] for i in range(len(x))])
    return sess.run(None, {sess.get_inputs()[0].name: x})[0]


def model_outputs(model: Any, x: np.ndarray) -> np.ndarray:
    import torch

    model.eval()
    with torch.no_grad():
        y = model(torch.from_numpy(x))
    return (y[0] if isinstance(y, (tuple, list)) else y).numpy()


def checkpoint_from_onnx(onnx_path: Path, model_yaml: Path, dest: Path, imgsz: int, count: int = 16,
                         seed: int = 0, hyp: dict[str, Any] | None = None,
                         folder: Path | None = None) -> dict[str, Any]:
    """Write an ultralytics checkpoint at ``dest`` that computes what ``onnx_path`` computes and
    trains from there; returns what was checked. ``hyp``: the training augmentation the
    statistics are measured under (see :func:`calibration_inputs`)."""
    import torch

    model, task, names = build(onnx_path, model_yaml)
    calib = calibration_inputs(task, imgsz, count, seed, hyp, folder)
    calibrate(model, calib)
    x = calibration_inputs(task, imgsz, min(count, 16), seed + 1)
    want, got = onnx_outputs(onnx_path, x), model_outputs(model, x)
    if want.shape != got.shape:
        raise ValueError(f"outputs differ in shape: ONNX {want.shape}, rebuilt {got.shape}")
    diff = float(np.abs(want - got).max() / max(1.0, float(np.abs(want).max())))
    if diff > TOLERANCE:
        raise ValueError(f"the rebuilt model differs from {onnx_path.name} by {diff:.2e} (relative): not saved")
    dest.parent.mkdir(parents=True, exist_ok=True)
    from ultralytics.cfg import DEFAULT_CFG_DICT

    model.args = {**DEFAULT_CFG_DICT, "imgsz": imgsz, "task": task}
    torch.save({"model": model, "train_args": {"imgsz": imgsz, "task": task, "model": str(model_yaml)},
                "epoch": -1, "optimizer": None, "ema": None, "updates": 0,
                "warmstart": {"onnx": str(onnx_path), "relative_max_diff": diff}}, dest)
    return {"onnx": str(onnx_path), "checkpoint": str(dest), "task": task, "classes": len(names),
            "calibration_inputs": len(calib), "checked_on": len(x), "relative_max_diff": diff}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m chickenfoot.vision.lab.train_warmstart", description=__doc__.split("\n")[0])
    ap.add_argument("--onnx", required=True, type=Path, help="a detector or half classifier this project exported")
    ap.add_argument("--yaml", required=True, type=Path, help="the model yaml it was trained from")
    ap.add_argument("--out", required=True, type=Path, help="checkpoint to write (.pt)")
    ap.add_argument("--imgsz", type=int, default=None, help="input size (default: 64 for a classifier, 416 for a detector)")
    ap.add_argument("--count", type=int, default=16, help="rendered calibration inputs")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    setup_offline(args.out.parent / "yolo_config")
    try:
        _, m = _initializers(args.onnx)
        task = _metadata(m).get("task", "")
        imgsz = args.imgsz or (64 if task == "classify" else 416)
        report = checkpoint_from_onnx(args.onnx, args.yaml, args.out, imgsz, args.count, args.seed)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
