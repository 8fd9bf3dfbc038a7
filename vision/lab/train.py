"""Reproduce the shipped tile reader: render data, train both models offline, export ONNX.

    python -m chickenfoot.vision.lab.train --config datasets/reader_train.yaml --work /tmp/cf-train --out models
    python -m chickenfoot.vision.lab.train --smoke --work /tmp/cf-smoke --out /tmp/cf-smoke/models   # about a minute

Steps (each skipped when its output is already in ``--work``, so a stopped run picks up where it
was; ``--resume`` also resumes a stopped ultralytics run from its last checkpoint):
1. ``chickenfoot.vision.lab.datasets.render`` photos -> OBB dataset; ``chickenfoot.vision.lab.datasets.halves`` half crops -> classify dataset.
2. Train the tile detector (YOLO OBB, one class) and the half classifier (YOLO classify,
   pip counts) from the yamls in ``vision/lab/model_yaml`` with no pretrained weights.
3. Export both to ONNX, check them with onnxruntime on the rendered validation halves (and the
   real half crops in ``../shared/realdata`` when present, as a sanity check only), and write
   ``reader.json`` and ``train_metrics.json`` next to them.

Training needs the ``train`` extra (ultralytics, torch); nothing is downloaded: the environment
is set up for offline use here, before ultralytics is imported.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from PIL import Image

from chickenfoot.vision.halves import NOT_PIPS, NOT_PIPS_CLASS, class_values
from chickenfoot.vision.lab.realdata import realdata_root
from chickenfoot.vision.lab.train_warmstart import checkpoint_from_onnx, setup_offline
from chickenfoot.vision.runtime import model_bytes

REPO = Path(__file__).resolve().parents[2]
DEFAULT_CONFIG = REPO / "datasets" / "reader_train.yaml"
SMOKE_CONFIG = REPO / "datasets" / "reader_smoke.yaml"
REAL_HALVES = realdata_root() / "jeremyarde__domino-counter" / "half_crops"
# Two torch threads on a free 2-core machine; 1 when two trainings share it (set CF_TRAIN_THREADS=1):
# oversubscribed OpenMP threads spin at barriers and ran 4-5x slower here.
THREADS = int(os.environ.get("CF_TRAIN_THREADS", "2"))
#: Where torch trains and validates: the CPU, or a GPU's index where one is lent
#: (``vision/lab/device_pass.sh`` sets CF_TRAIN_DEVICE=0 there).
DEVICE = os.environ.get("CF_TRAIN_DEVICE", "cpu")
#: Dataloader worker processes: none on two cores (they would take the training's threads).
WORKERS = int(os.environ.get("CF_TRAIN_WORKERS", "0"))
#: Processes rendering a pass's fresh photos at once (the same files for any number).
RENDER_JOBS = int(os.environ.get("CF_RENDER_JOBS", "1"))
CLS_SEED_OFFSET = 1000  # classifier photos use seed + 1000, detector photos seed
#: The half reader for double-15 and double-18 sets (pip counts 0-18); see ``classifier_wide``.
WIDE_CLS_FILE = "half_cls18.onnx"


def _threads_callback(_trainer: Any) -> None:
    import torch

    torch.set_num_threads(THREADS)  # ultralytics drops to one thread on a 2-core machine


def _common_args(work: Path, name: str, seed: int) -> dict[str, Any]:
    # amp stays off on a GPU too: its check loads a downloaded model, and nothing is downloaded
    return {"device": DEVICE, "amp": False, "plots": False, "workers": WORKERS, "pretrained": False,
            "project": str(work / "runs"), "name": name, "exist_ok": True, "seed": seed, "verbose": False}


def _train(model_yaml: Path, data: str, run_dir: Path, args: dict[str, Any], resume: bool) -> Path:
    """Train (or resume) one ultralytics model; returns its best checkpoint."""
    from ultralytics import YOLO

    best, last = run_dir / "weights" / "best.pt", run_dir / "weights" / "last.pt"
    if best.exists() and (run_dir / "done").exists():
        return best
    if resume and last.exists():
        import torch

        # a resumed run takes the budget (time, epochs, patience) of the current config
        ckpt = torch.load(last, map_location="cpu", weights_only=False)
        ckpt["train_args"].update({k: args[k] for k in ("time", "epochs", "patience") if k in args})
        torch.save(ckpt, last)
        model = YOLO(str(last))
        model.add_callback("on_train_start", _threads_callback)
        model.train(resume=True)
    else:
        model = YOLO(str(model_yaml))
        model.add_callback("on_train_start", _threads_callback)
        model.train(data=data, **args)
    (run_dir / "done").write_text(time.strftime("%Y-%m-%d %H:%M:%S"))
    return best if best.exists() else last


def _export(pt: Path, imgsz: int, dynamic: bool, dest: Path) -> Path:
    from ultralytics import YOLO

    out = YOLO(str(pt)).export(format="onnx", imgsz=imgsz, simplify=True, dynamic=dynamic, device="cpu")
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(out, dest)
    return dest


def _cls_model(path: Path) -> tuple[Any, list[int], int]:
    import onnxruntime as ort

    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    meta = sess.get_modelmeta().custom_metadata_map
    names = yaml.safe_load(meta["names"])
    values = class_values({int(k): str(v) for k, v in names.items()}).tolist()
    imgsz = yaml.safe_load(meta["imgsz"])
    return sess, values, int(imgsz[0] if isinstance(imgsz, list) else imgsz)


def classify_files(path: Path, files: list[Path], rot180: bool = False) -> np.ndarray:
    """Pip counts the exported classifier gives the images in ``files`` (as the reader feeds it)."""
    probs, values = classify_probs(path, files, rot180)
    return np.array([values[j] for j in probs.argmax(1)], np.int64)


def classify_probs(path: Path, files: list[Path], rot180: bool = False) -> tuple[np.ndarray, list[int]]:
    """Class probabilities ``(len(files), classes)`` from the exported classifier, and the pip
    count of each class."""
    sess, values, size = _cls_model(path)
    out: list[np.ndarray] = []
    for i in range(0, len(files), 256):
        batch = []
        for f in files[i:i + 256]:
            im = Image.open(f).convert("RGB").resize((size, size), Image.Resampling.BILINEAR)
            if rot180:
                im = im.rotate(180)
            batch.append(np.asarray(im, np.float32).transpose(2, 0, 1) / 255.0)
        out.append(sess.run(None, {sess.get_inputs()[0].name: np.stack(batch)})[0])
    return (np.concatenate(out) if out else np.zeros((0, len(values)), np.float32)), values


def eval_classifier(path: Path, root: Path, max_value: int) -> dict[str, Any]:
    """Top-1, per-class accuracy and confusion of the ONNX classifier on ``root/<value>/*``
    (and ``root/x/*``, not pips, when there is such a class; it is the confusion's last row
    and column)."""
    classes = [str(v) for v in range(max_value + 1)] + ([NOT_PIPS_CLASS] if (root / NOT_PIPS_CLASS).is_dir() else [])
    files, truth = [], []
    for k, name in enumerate(classes):
        for f in sorted((root / name).glob("*.*")):
            if f.suffix.lower() in (".png", ".jpg", ".jpeg"):
                files.append(f)
                truth.append(k)
    if not files:
        return {"n": 0}
    y = np.array(truth)
    index = {int(name) if name != NOT_PIPS_CLASS else NOT_PIPS: k for k, name in enumerate(classes)}
    p = np.array([index.get(int(v), -1) for v in classify_files(path, files)])
    conf = np.zeros((len(classes), len(classes)), int)
    for t, q in zip(y, p, strict=True):
        if q >= 0:
            conf[t, q] += 1
    per = {name: round(float((p[y == k] == k).mean()), 4) for k, name in enumerate(classes) if (y == k).any()}
    return {"n": len(files), "top1": round(float((p == y).mean()), 4), "per_class": per, "confusion": conf.tolist()}


def eval_real_halves(path: Path) -> dict[str, Any] | None:
    """Sanity check on the 39 real half crops (labelled by someone else, not cut by our rectify;
    the divider is on either side there, so we also report the crop turned 180 degrees)."""
    csv = REAL_HALVES / "labels.csv"
    if not csv.exists():
        return None
    rows = [line.split(",") for line in csv.read_text().splitlines()[1:] if line.strip()]
    files = [REAL_HALVES / r[0] for r in rows]
    y = np.array([int(r[1]) for r in rows])
    p0 = classify_files(path, files)
    p1 = classify_files(path, files, rot180=True)
    return {"n": len(files), "top1": round(float((p0 == y).mean()), 4),
            "top1_rot180": round(float((p1 == y).mean()), 4),
            "errors": [f"{f.name}: true {t} read {q}" for f, t, q in zip(files, y, p0, strict=True) if t != q]}


def write_reader_json(out: Path, cfg: dict[str, Any], work: Path | None = None) -> Path:
    """Write our keys into ``reader.json``, keeping any keys the reader side added."""
    path = out / "reader.json"
    data: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {}
    c = cfg["classifier"]
    data.update({
        "detector": "tile_obb.onnx", "classifier": "half_cls.onnx",
        "det_imgsz": cfg["detector"]["imgsz"], "cls_imgsz": c["imgsz"],
        "crop_size": c["crop_size"], "crop_pad": c["crop_pad"], "max_value": cfg["max_value"],
        # "final" only for the shipped config; the reader's exact-reading test keys on it
        "stage": cfg.get("stage", "interim"),
        # render seeds used for training (detector photos, classifier photos): keep eval sets off them
        "seeds": [int(cfg["seed"]), int(cfg["seed"]) + CLS_SEED_OFFSET]
        + [int(f["seed"]) for f in (c.get("finetune") or []) if "seed" in f]
        + [int(f["not_pips"]["seed"]) for f in (c.get("finetune") or []) if f.get("not_pips")]
        + [int(f["seed"]) for f in (cfg["detector"].get("finetune") or []) if "seed" in f]
        + [int(w["seed"]) for w in ([cfg["classifier_wide"], *(cfg["classifier_wide"].get("finetune") or [])]
                                    if cfg.get("classifier_wide") else []) if "seed" in w],
        # real files trained on, whole sources at a time: the evaluation leaves them out
        "finetuned_on": trained_real_files(cfg, work) if work else [],
    })
    # a stage that starts from an ONNX file inherits the seeds that file was trained on (from the
    # reader.json beside it, at the same revision)
    for start in (cfg["detector"].get("start"), c.get("start"), (cfg.get("classifier_wide") or {}).get("start")):
        if not start:
            continue
        onnx_path, _, rev = str(start).partition("@")
        rj = str(Path(onnx_path).parent / "reader.json") + (f"@{rev}" if rev else "")
        try:
            inherited = json.loads(start_file(rj, work or out).read_text())
        except (MissingStart, OSError):
            inherited = {}
        data["seeds"] = list(dict.fromkeys([*inherited.get("seeds", []), *data["seeds"]]))
        data["finetuned_on"] = sorted({*inherited.get("finetuned_on", []), *data["finetuned_on"]})
    cls_path = out / "half_cls.onnx"
    if cls_path.exists():
        # class index -> pip count; ultralytics orders class folders as strings ("10" before "2")
        data["cls_values"] = _cls_model(cls_path)[1]
    wide_path = out / WIDE_CLS_FILE
    if cfg.get("classifier_wide") and wide_path.exists():
        data["classifier_wide"] = WIDE_CLS_FILE
        data["wide_values"] = _cls_model(wide_path)[1]
    for k, v in cfg.get("reader", {}).items():
        data.setdefault(k, v)
    path.write_text(json.dumps(data, indent=2) + "\n")
    return path


def half_crop_data(fdir: Path, count: int, seed: int, cls: dict[str, Any], top: int, label: str,
                   jitter: float = 1.0, pip_contrast: float = 0.0, gray_contrast: float = 0.0,
                   tile_px: tuple[float, float] | None = None, blanks: float = 0.0,
                   backs: float = 0.0) -> dict[str, Any] | None:
    """Render a half-crop dataset for a classifier pass into ``fdir`` (cut as ``cls`` says, from
    tiles ``tile_px`` long, default :data:`chickenfoot.vision.lab.datasets.halves.TILE_PX`), unless an earlier run
    finished it; its stats and seconds, or None when it was already there."""
    from chickenfoot.vision.lab.datasets.halves import TILE_PX, render_halves

    if (fdir / "done").exists():
        return None
    t0 = time.time()
    st = render_halves(fdir, count, seed, cls["crop_size"], cls["crop_pad"], top, cls.get("val_frac", 0.1),
                       log_every=100, jitter=jitter, pip_contrast=pip_contrast, gray_contrast=gray_contrast,
                       tile_px=tuple(tile_px) if tile_px else TILE_PX, blanks=blanks, backs=backs)
    (fdir / "done").write_text(json.dumps(st))
    made = {**st, "seconds": round(time.time() - t0, 1)}
    print(f"{label} data:", {k: v for k, v in made.items() if k != "per_class"}, flush=True)
    return made


def pass_data(ps: dict[str, Any], fdir: Path, work: Path, best: Path, cls: dict[str, Any], top: int, out: Path,
              label: str, jitter: float, pip_contrast: float, gray_contrast: float) -> dict[str, Any]:
    """The half crops of one classifier pass in ``fdir``: fresh renders of its ``seed``, or an
    earlier pass's halves again (``halves_from``), plus mined not-pips halves (``not_pips``).
    Returns what was made now, for the metrics (``data``, ``not_pips``)."""
    made: dict[str, Any] = {}
    if ps.get("halves_from"):
        data = reuse_halves(work / str(ps["halves_from"]), fdir)
    else:
        data = half_crop_data(fdir, int(ps["halves"]), int(ps["seed"]), cls, top, label, jitter, pip_contrast,
                              gray_contrast, ps.get("tile_px"), float(ps.get("blanks", 0.0)),
                              float(ps.get("backs", 0.0)))
    if data is not None:
        made["data"] = data
    if ps.get("real") and not (fdir / "real_done").exists():
        made["real"] = real_data(ps["real"], fdir, cls)
        print(f"{label}, real halves:", {k: v for k, v in made["real"].items() if k != "files"}, flush=True)
    if ps.get("not_pips") and not (fdir / "not_pips_done").exists():
        st = not_pips_data(ps["not_pips"], work, fdir, best, cls["imgsz"], out)
        (fdir / "not_pips_done").write_text(json.dumps(st))
        made["not_pips"] = st
        print(f"{label}, not-pips halves:", st, flush=True)
    return made


def real_data(real: dict[str, Any], fdir: Path, cls: dict[str, Any]) -> dict[str, Any]:
    """Half crops of the labelled real photos of whole ``sources`` (:mod:`chickenfoot.vision.lab.real_halves`),
    placed by the shipped reader, added to ``fdir``'s training split; every file of those sources
    is recorded in ``fdir/real_done`` for ``reader.json``'s ``finetuned_on``."""
    from chickenfoot.vision.lab.real_halves import write_real_halves
    from chickenfoot.vision.reader import Reader

    linked = [d for d in (fdir / "train").iterdir() if d.is_symlink()] if (fdir / "train").exists() else []
    if linked:
        raise SystemExit(f"{fdir}: real halves cannot join reused halves (linked class folders {linked[0].name}...)")
    t0 = time.time()
    st = write_real_halves(fdir, [str(s) for s in real["sources"]], Reader.from_models_dir(REPO / "models"),
                           int(real.get("copies", 8)), int(real["seed"]), cls["crop_size"], cls["crop_pad"],
                           float(real.get("jitter", 1.0)))
    st["seconds"] = round(time.time() - t0, 1)
    (fdir / "real_done").write_text(json.dumps(st))
    return st


def cls_pass_dir(work: Path, i: int) -> Path:
    """The half crops of classifier pass ``i`` (0: the first ``finetune`` entry) in ``work``."""
    return work / f"cls_data_ft{'' if i == 0 else i + 1}"


def det_pass_name(i: int) -> str:
    """The name of detector pass ``i`` (0: the first ``finetune`` entry): its run and data folder."""
    return f"det_ft{'' if i == 0 else i + 1}"


def det_real_dir(work: Path, i: int) -> Path:
    """The real grid crops (:mod:`chickenfoot.vision.lab.real_boxes`) detector pass ``i`` adds."""
    return work / f"{det_pass_name(i)}_data" / "real"


def det_pose_dir(work: Path, i: int) -> Path:
    """The pose-labelled real frames (:mod:`chickenfoot.vision.lab.pose_boxes`) detector pass ``i`` adds."""
    return work / f"{det_pass_name(i)}_data" / "pose"


def trained_real_files(cfg: dict[str, Any], work: Path) -> list[str]:
    """The real files a config's classifier and detector passes trained on (each pass's ``real_done``)."""
    passes = cfg["classifier"].get("finetune") or []
    files: list[str] = []
    for i, ft in enumerate(passes if isinstance(passes, list) else [passes]):
        done = cls_pass_dir(work, i) / "real_done"
        if ft.get("real") and done.exists():
            files += json.loads(done.read_text())["files"]
    for i, ft in enumerate(cfg["detector"].get("finetune") or []):
        for key, (_, folder, _, _) in DET_REAL_PARTS.items():
            done = folder(work, i) / "real_done"
            if ft.get(key) and done.exists():
                files += json.loads(done.read_text())["files"]
    return sorted(set(files))


def reuse_halves(src: Path, fdir: Path) -> dict[str, Any] | None:
    """Train a pass on an earlier pass's half crops again: link each of ``src``'s class folders
    into ``fdir`` (a pass that adds a class, such as not pips, keeps what the classifier learnt
    on the same halves)."""
    if (fdir / "done").exists():
        return None
    if not (src / "done").exists():
        raise SystemExit(f"{src}: no finished half crops to reuse")
    for split in ("train", "val"):
        (fdir / split).mkdir(parents=True, exist_ok=True)
        for d in sorted(p for p in (src / split).iterdir() if p.is_dir()):
            if not (fdir / split / d.name).exists():
                (fdir / split / d.name).symlink_to(d.resolve(), target_is_directory=True)
    (fdir / "done").write_text((src / "done").read_text())
    return {"reused": str(src)}


def not_pips_data(np_cfg: dict[str, Any], work: Path, fdir: Path, best: Path, imgsz: int, out: Path) -> dict[str, Any]:
    """Mine half crops of detections that are not tiles (:mod:`chickenfoot.vision.lab.datasets.not_pips`) and link a
    pick of them into ``fdir`` as class ``x``. The mining reader is the detector in ``out`` (else
    the shipped one), the classifier as it stands before this pass, and the shipped reader
    settings, so the same entry mines the same crops."""
    from chickenfoot.vision.lab.datasets.not_pips import mine, pick, pick_tiles

    seed, photos = int(np_cfg["seed"]), int(np_cfg["photos"])
    # "tiles": also the halves of the detections that are true tiles, cut from the detector's boxes
    tiles = np_cfg.get("tiles")
    mined = work / f"not_pips_{seed}{'_tiles' if tiles else ''}"
    st: dict[str, Any] = {}
    if not (mined / "done").exists():
        miner = fdir / "miner"
        miner.mkdir(parents=True, exist_ok=True)
        # "detector: shipped" mines with the repository's detector (the smoke run's one-epoch
        # detector finds too little to mine)
        det = out / "tile_obb.onnx"
        if np_cfg.get("detector") == "shipped" or not det.exists():
            det = REPO / "models" / json.loads((REPO / "models" / "reader.json").read_text())["detector"]
        (miner / "tile_obb.onnx").write_bytes(model_bytes(det))
        if best.suffix == ".onnx":  # a stage that starts from an ONNX file: that file, as it is
            shutil.copy(best, miner / "half_cls.onnx")
        else:
            _export(best, imgsz, True, miner / "half_cls.onnx")
        rj = json.loads((REPO / "models" / "reader.json").read_text())
        for key in ("classifier_wide", "wide_values"):
            rj.pop(key, None)
        rj |= {"detector": "tile_obb.onnx", "classifier": "half_cls.onnx",
               "cls_values": _cls_model(miner / "half_cls.onnx")[1]}
        (miner / "reader.json").write_text(json.dumps(rj, indent=1))
        t0 = time.time()
        st = mine(mined, photos, seed, miner, log_every=max(1, photos // 10), tiles=bool(tiles))
        st["seconds"] = round(time.time() - t0, 1)
        (mined / "done").write_text(json.dumps(st))
    picked = pick(mined, fdir, int(np_cfg["train"]), int(np_cfg["val"]), int(np_cfg.get("val_photos", 100)),
                  int(np_cfg.get("shuffle_seed", seed)))
    made = {"mined": st or json.loads((mined / "done").read_text()), "picked": picked}
    if tiles:
        made["picked_tiles"] = pick_tiles(mined, fdir, int(tiles["train"]), int(tiles["val"]),
                                          int(np_cfg.get("val_photos", 100)), int(np_cfg.get("shuffle_seed", seed)))
    return made


def export_classifier(best: Path, imgsz: int, dest: Path, val_dir: Path, top: int, label: str) -> dict[str, Any]:
    """Export a trained half classifier to ``dest`` (ONNX) and check the exported file: on its
    own val halves, and on the real half crops when ``../shared/realdata`` is there."""
    onnx_path = _export(best, imgsz, True, dest)
    checked: dict[str, Any] = {"val": eval_classifier(onnx_path, val_dir, top)}
    print(f"{label} val top1:", checked["val"].get("top1"), checked["val"].get("per_class"), flush=True)
    real = eval_real_halves(onnx_path)
    if real is not None:
        checked["real_half_crops"] = real
        print(f"{label} on real half crops:", {k: real[k] for k in ("n", "top1", "top1_rot180")}, flush=True)
    return checked


def last_classifier_run(work: Path, cls: dict[str, Any]) -> Path:
    """The run folder of the classifier's last pass on pip counts alone: the wide classifier
    starts there (passes that add the not-pips class come after it and are not its start)."""
    passes = cls.get("finetune") or []
    passes = passes if isinstance(passes, list) else [passes]
    n = len(passes)
    while n and passes[n - 1].get("not_pips"):
        n -= 1
    return work / "runs" / ("cls" if n == 0 else f"cls_ft{'' if n == 1 else n}")


def wide_classifier_stage(cfg: dict[str, Any], work: Path, out: Path, resume: bool = False) -> dict[str, Any]:
    """The half reader for double-15/18 sets: the finished classifier's weights with a new
    output layer of 19 pip counts (ultralytics reshapes it to the data's classes), trained on
    half crops of renders whose values run to ``max_value``; each ``finetune`` entry trains on
    from there on fresh crops of its own seed. Reading a smaller set keeps the shipped
    classifier, so nothing it was measured on changes."""
    cls, wide = cfg["classifier"], cfg["classifier_wide"]
    top = int(wide["max_value"])
    # "start: models/half_cls18.onnx" begins from that file: only the finetune entries train
    wstart = wide.get("start")
    passes = [wide, *(wide.get("finetune") or [])]
    first = 1 if wstart else 0
    if wstart:
        if len(passes) < 2:
            raise SystemExit("classifier_wide.start needs a finetune pass: the data it trains on")
        best = start_file(str(wstart), work)
    else:
        best = last_classifier_run(work, cls) / "weights" / "best.pt"
        if not best.exists():
            raise SystemExit(f"{best}: no trained classifier to start from (run --stage cls first)")
    metrics: dict[str, Any] = {}
    for i, ps in enumerate(passes[first:], start=first):
        sfx = "" if i == 0 else f"_ft{i}"
        fdir = work / f"cls_wide_data{sfx}"
        made = pass_data(ps, fdir, work, best, cls, top, out, "wide classifier",
                         float(ps.get("jitter", wide.get("jitter", 1.0))),
                         float(ps.get("pip_contrast", wide.get("pip_contrast", 0.0))),
                         float(ps.get("gray_contrast", wide.get("gray_contrast", 0.0))))
        metrics |= {f"{k}{sfx}": v for k, v in made.items()}
        args = _common_args(work, f"cls_wide{sfx}", int(cfg["seed"])) | {
            "epochs": ps.get("epochs", 20), "imgsz": cls["imgsz"], "batch": cls["batch"], "cache": cls.get("cache", "ram"),
        } | cls.get("hyp", {}) | {"lr0": ps.get("lr0", 0.001), "optimizer": "AdamW", "warmup_epochs": 0,
                                  "pretrained": True} | ps.get("hyp", {})
        if best.suffix == ".onnx":
            best = warm_start(best, REPO / cls["model"], work / "runs" / "cls_wide_start", cls["imgsz"],
                              fdir / "train", args, metrics, "start")
        t0 = time.time()
        best = _train(best, str(fdir), work / "runs" / f"cls_wide{sfx}", args, resume)
        metrics[f"train{sfx}_seconds"] = round(time.time() - t0, 1)
    return metrics | export_classifier(best, cls["imgsz"], out / WIDE_CLS_FILE, fdir / "val", top, "wide classifier")


class MissingStart(SystemExit):
    """A stage's ``start`` (or the reader.json beside it) cannot be had at the revision named:
    the command stops with this message, and a caller that can do without it catches it alone."""


def start_file(spec: str, work: Path) -> Path:
    """The ONNX file a stage's ``start`` names: a path in the repository, or ``path@rev`` for
    that file as it was at git revision ``rev`` (so a continuation stays reproducible after its
    output replaced the file); the revision's copy is written into ``work``."""
    if "@" not in spec:
        return REPO / spec
    path, rev = spec.rsplit("@", 1)
    dest = work / "starts" / rev / path
    if not dest.exists():
        import subprocess

        done = subprocess.run(["git", "-C", str(REPO), "show", f"{rev}:{path}"], capture_output=True)
        if done.returncode != 0:
            raise MissingStart(f"start {spec}: git cannot show it ({done.stderr.decode(errors='replace').strip()})")
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(done.stdout)
    return dest


def warm_start(onnx_file: Path, model_yaml: Path, run_dir: Path, imgsz: int, calib: Path,
               hyp: dict[str, Any], metrics: dict[str, Any], name: str, count: int = 512) -> Path:
    """A stage's ``start``: the checkpoint rebuilt from that ONNX file (:mod:`chickenfoot.vision.lab.train_warmstart`),
    its BatchNorm statistics measured on ``calib`` (the first pass's training data, as training
    augments it), in place of the stage's first pass."""
    best = run_dir / "weights" / "best.pt"
    if not (run_dir / "done").exists():
        report = checkpoint_from_onnx(onnx_file, model_yaml, best, imgsz, count, 0, hyp, calib)
        (run_dir / "done").write_text(json.dumps(report))
        metrics[name] = report
        print(f"{name}:", report, flush=True)
    return best


def _fresh_det_data(fdir: Path, base: Path | None, count: int, seed: int, val_frac: float, top: int, long_side: int,
                    metrics: dict[str, Any], name: str, hard_cases: bool = False,
                    pip_contrast: float = 0.0, printed: bool = False, gray_contrast: float = 0.0,
                    blanks: float = 0.0, faces: bool = False, extra: list[Path] | None = None,
                    turned: float = 0.0, tables: float = 0.0) -> Path:
    """Render ``count`` more detector photos into ``fdir``; its data.yaml trains on them plus every
    training folder of ``base`` (so earlier renders stay in the mix; None: a stage that starts
    from an ONNX file has none) and the ``extra`` training folders (real photos), and validates
    on the new renders."""
    from chickenfoot.vision.lab.datasets.render import render_dataset
    from chickenfoot.vision.lab.datasets.table import table_scene

    if not (fdir / "data.yaml").exists():
        t0 = time.time()
        st = render_dataset(fdir / "new", count, seed, val_frac, top, long_side, log_every=max(1, count // 5),
                            hard_cases=hard_cases, pip_contrast=pip_contrast, printed=printed,
                            gray_contrast=gray_contrast, blanks=blanks, faces=faces, resume=True, turned=turned,
                            tables=tables, table_scene=table_scene, jobs=RENDER_JOBS)
        metrics[f"{name}_data"] = {**st, "seconds": round(time.time() - t0, 1)}
        print(f"{name} data:", metrics[f"{name}_data"], flush=True)
        base_yaml = (base / "data.yaml").read_text() if base is not None else ""
        train = [str((fdir / "new" / "images" / "train").resolve())] + [str(Path(e).resolve()) for e in extra or []]
        # a base made by an earlier fresh pass lists its own training folders
        for line in base_yaml.splitlines():
            if line.startswith("  - "):
                train.append(line[4:].strip())
        if base is not None and not any(line.startswith("  - ") for line in base_yaml.splitlines()):
            train.append(str((base / "images" / "train").resolve()))
        (fdir / "data.yaml").write_text(
            "train:\n" + "".join(f"  - {t}\n" for t in train)
            + f"val: {(fdir / 'new' / 'images' / 'val').resolve()}\nnames:\n  0: tile\n")
    return fdir / "data.yaml"


def _write_real_boxes(spec: dict[str, Any], rdir: Path, long_side: int) -> dict[str, Any]:
    from chickenfoot.vision.lab.real_boxes import write_real_boxes

    return write_real_boxes(rdir, [int(g) for g in spec["games"]], int(spec.get("copies", 3)), int(spec["seed"]),
                            long_side, limit=spec.get("limit"))


def _write_pose_boxes(spec: dict[str, Any], rdir: Path, long_side: int) -> dict[str, Any]:
    from chickenfoot.vision.lab.pose_boxes import write_pose_boxes

    return write_pose_boxes(rdir, int(spec.get("copies", 2)), int(spec["seed"]), long_side, limit=spec.get("limit"))


#: The real photos a detector pass may add, by their key in the pass: what writes them, their
#: folder, the suffix of their metrics and what the log calls them.
DET_REAL_PARTS: dict[str, tuple[Any, Any, str, str]] = {
    "real_boxes": (_write_real_boxes, det_real_dir, "real", "real grid crops"),  # chickenfoot.vision.lab.real_boxes
    "pose_boxes": (_write_pose_boxes, det_pose_dir, "pose", "pose-labelled frames"),  # ...lab.pose_boxes
}


def det_real_part(key: str, spec: dict[str, Any], rdir: Path, long_side: int, metrics: dict[str, Any],
                  name: str) -> Path:
    """The real photos (``key`` of :data:`DET_REAL_PARTS`) a detector pass trains on, made once into
    ``rdir`` (whose ``real_done`` lists the files for ``reader.json``); their training folder."""
    write, _, suffix, what = DET_REAL_PARTS[key]
    if not (rdir / "real_done").exists():
        t0 = time.time()
        st = write(spec, rdir, int(spec.get("long_side", long_side)))
        st["seconds"] = round(time.time() - t0, 1)
        (rdir / "real_done").write_text(json.dumps(st))
        metrics[f"{name}_{suffix}"] = {k: v for k, v in st.items() if k != "files"}
        print(f"{name}, {what}:", metrics[f"{name}_{suffix}"], flush=True)
    return rdir / "images" / "train"


def det_real_parts(ft: dict[str, Any], i: int, work: Path, long_side: int, metrics: dict[str, Any]) -> list[Path]:
    """The training folders of the real photos detector pass ``i`` (its config ``ft``) trains
    on, each made once (:func:`det_real_part`)."""
    name = det_pass_name(i)
    out = []
    for key, (_, folder, _, _) in DET_REAL_PARTS.items():
        if ft.get(key):
            if "seed" not in ft:
                raise SystemExit(f"detector pass {name}: {key} needs a pass with its own seed and renders")
            out.append(det_real_part(key, ft[key], folder(work, i), long_side, metrics, name))
    return out


def run(cfg: dict[str, Any], work: Path, out: Path, resume: bool = False, stages: str = "all") -> dict[str, Any]:
    # ultralytics puts a relative project under its own runs folder, where _train would not look
    work, out = Path(work).resolve(), Path(out).resolve()
    setup_offline(work / "yolo_config")
    work.mkdir(parents=True, exist_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    seed, top = int(cfg["seed"]), int(cfg["max_value"])
    det, cls = cfg["detector"], cfg["classifier"]
    metrics: dict[str, Any] = {"config": cfg}
    t_all = time.time()

    if stages == "det-real":
        # the real photos of every detector pass, written now and reused by the pass (its
        # real_done): made where the labelled photos are, carried to a machine without them
        for i, ft in enumerate(det.get("finetune") or []):
            det_real_parts(ft, i, work, det.get("long_side", 480), metrics)
        return metrics
    if stages in ("all", "det") and det.get("start") and not det.get("finetune"):
        # a start with no passes is that file as it is (a continuation that trains the classifier only)
        (out / "tile_obb.onnx").write_bytes(model_bytes(start_file(str(det["start"]), work)))
    elif stages in ("all", "det"):
        from chickenfoot.vision.lab.datasets.render import render_dataset

        # "start: models/tile_obb.onnx" begins from that file instead of a first pass (see warm_start)
        start = det.get("start")
        ddir: Path | None = None if start else work / "det_data"
        if start and "seed" not in ((det.get("finetune") or [{}])[0]):
            raise SystemExit("detector.start needs a first finetune pass with its own seed: the data it trains on")
        if ddir is not None and not (ddir / "data.yaml").exists():
            t0 = time.time()
            metrics["det_data"] = render_dataset(ddir, det["images"], seed, det.get("val_frac", 0.1), top,
                                                 det.get("long_side", 480), log_every=max(1, det["images"] // 5),
                                                 jobs=RENDER_JOBS)
            metrics["det_data"]["seconds"] = round(time.time() - t0, 1)
            print("detector data:", metrics["det_data"], flush=True)
        args = _common_args(work, "det", seed) | {"epochs": det["epochs"], "imgsz": det["imgsz"],
                                                   "batch": det["batch"], "cache": det.get("cache", "ram")}
        args |= det.get("hyp", {})
        best: Path | None = None
        if ddir is not None:
            t0 = time.time()
            best = _train(REPO / det["model"], str(ddir / "data.yaml"), work / "runs" / "det", args, resume)
            metrics["det_train_seconds"] = round(time.time() - t0, 1)
        for i, ft in enumerate(det.get("finetune") or []):
            # more epochs from the trained weights at a lower learning rate (the first pass was cut
            # short by its time budget; see the model card); a pass with its own "seed" also adds
            # "images" fresh renders to the training set and is validated on their val split
            name = det_pass_name(i)
            data = ddir / "data.yaml" if ddir is not None else Path()
            extra = det_real_parts(ft, i, work, det.get("long_side", 480), metrics)
            if "seed" in ft:
                data = _fresh_det_data(work / f"{name}_data", ddir, int(ft["images"]), int(ft["seed"]),
                                       det.get("val_frac", 0.1), top, det.get("long_side", 480), metrics, name,
                                       bool(ft.get("hard_cases", False)), float(ft.get("pip_contrast", 0.0)),
                                       bool(ft.get("printed", False)), float(ft.get("gray_contrast", 0.0)),
                                       float(ft.get("blanks", 0.0)), bool(ft.get("faces", False)), extra,
                                       float(ft.get("turned", 0.0)), float(ft.get("tables", 0.0)))
            fargs = args | {"epochs": ft.get("epochs", 20), "lr0": ft.get("lr0", 0.0005), "optimizer": "AdamW",
                            "warmup_epochs": 0, "name": name, "pretrained": True} | ft.get("hyp", {})
            if best is None:
                best = warm_start(start_file(str(start), work), REPO / det["model"], work / "runs" / "det_start",
                                  det["imgsz"], data, fargs, metrics, "det_start", int(det.get("calib_images", 512)))
            t0 = time.time()
            best = _train(best, str(data), work / "runs" / name, fargs, resume)
            ddir = data.parent
            metrics[f"{name}_train_seconds"] = round(time.time() - t0, 1)
        from ultralytics import YOLO

        torch_threads()
        v = YOLO(str(best)).val(data=str(ddir / "data.yaml"), imgsz=det["imgsz"], batch=det["batch"], device=DEVICE,
                                plots=False, workers=WORKERS, verbose=False, project=str(work / "runs"), name="det_val",
                                exist_ok=True)
        metrics["det_val"] = {"map50": round(float(v.box.map50), 4), "map50_95": round(float(v.box.map), 4),
                              "precision": round(float(v.box.mp), 4), "recall": round(float(v.box.mr), 4)}
        print("detector val:", metrics["det_val"], flush=True)
        # dynamic shape: the reader feeds rectangles padded to the stride (a 4:3 photo costs 3/4)
        _export(best, det["imgsz"], True, out / "tile_obb.onnx")

    if stages in ("all", "cls"):
        # "start: models/half_cls.onnx" begins from that file instead of a first pass (see warm_start)
        cstart = cls.get("start")
        cdir = work / "cls_data"
        args = _common_args(work, "cls", seed) | {"epochs": cls["epochs"], "imgsz": cls["imgsz"],
                                                   "batch": cls["batch"], "cache": cls.get("cache", "ram")}
        args |= cls.get("hyp", {})
        if cstart:
            if not cls.get("finetune"):
                raise SystemExit("classifier.start needs a finetune pass: the data it trains on")
            # the classifier as it stands before the first pass (what a not-pips pass mines with)
            best = start_file(str(cstart), work)
        else:
            made = half_crop_data(cdir, cls["halves"], seed + CLS_SEED_OFFSET, cls, top, "classifier")
            if made is not None:
                metrics["cls_data"] = made
            t0 = time.time()
            best = _train(REPO / cls["model"], str(cdir), work / "runs" / "cls", args, resume)
            metrics["cls_train_seconds"] = round(time.time() - t0, 1)
        passes = cls.get("finetune") or []
        for i, ft in enumerate(passes if isinstance(passes, list) else [passes]):
            # further passes on fresh half-crop sets from a newer renderer (see the model card)
            sfx = "" if i == 0 else str(i + 1)
            fdir = cls_pass_dir(work, i)
            made = pass_data(ft, fdir, work, best, cls, top, out, f"classifier pass {i + 2}",
                             float(ft.get("jitter", 1.0)), float(ft.get("pip_contrast", 0.0)),
                             float(ft.get("gray_contrast", 0.0)))
            metrics |= {f"cls_ft{sfx}_{k}": v for k, v in made.items()}
            fargs = args | {"epochs": ft.get("epochs", 20), "lr0": ft.get("lr0", 0.0005), "optimizer": "AdamW",
                            "warmup_epochs": 0, "name": f"cls_ft{sfx}",
                            # pretrained=True keeps the loaded weights: with False, ultralytics' classify
                            # trainer resets every layer (the first pass of the shipped model did)
                            "pretrained": bool(ft.get("from_weights", True))} | ft.get("hyp", {})
            if best.suffix == ".onnx":
                best = warm_start(best, REPO / cls["model"], work / "runs" / "cls_start", cls["imgsz"],
                                  fdir / "train", fargs, metrics, "cls_start")
            t0 = time.time()
            best = _train(best, str(fdir), work / "runs" / f"cls_ft{sfx}", fargs, resume)
            metrics[f"cls_ft{sfx}_train_seconds"] = round(time.time() - t0, 1)
            cdir = fdir
        checked = export_classifier(best, cls["imgsz"], out / "half_cls.onnx", cdir / "val", top, "classifier")
        metrics |= {f"cls_{k}": v for k, v in checked.items()}

    if stages in ("all", "wide") and cfg.get("classifier_wide"):
        metrics["classifier_wide"] = wide_classifier_stage(cfg, work, out, resume)
    write_reader_json(out, cfg, work)
    metrics["total_seconds"] = round(time.time() - t_all, 1)
    sizes = {p.name: p.stat().st_size for p in (out / "tile_obb.onnx", out / "half_cls.onnx", out / WIDE_CLS_FILE) if p.exists()}
    metrics["onnx_bytes"] = sizes
    mpath = out / "train_metrics.json"
    old = json.loads(mpath.read_text()) if mpath.exists() and stages != "all" else {}
    mpath.write_text(json.dumps(old | metrics, indent=1) + "\n")
    return metrics


def torch_threads() -> None:
    import torch

    torch.set_num_threads(THREADS)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m chickenfoot.vision.lab.train", description=__doc__.split("\n")[0])
    ap.add_argument("--config", type=Path, default=None, help=f"training yaml (default {DEFAULT_CONFIG.name})")
    ap.add_argument("--smoke", action="store_true", help=f"tiny run of the same pipeline ({SMOKE_CONFIG.name})")
    ap.add_argument("--work", type=Path, default=Path("runs/reader"), help="data, runs and checkpoints")
    ap.add_argument("--out", type=Path, default=REPO / "models", help="where the ONNX files and reader.json go")
    ap.add_argument("--stage", choices=("all", "det", "cls", "wide", "det-real"), default="all",
                    help="det-real: only write the real photos the detector passes train on, into --work")
    ap.add_argument("--resume", action="store_true", help="resume stopped training from last.pt")
    args = ap.parse_args(argv)
    config = args.config or (SMOKE_CONFIG if args.smoke else DEFAULT_CONFIG)
    cfg = yaml.safe_load(config.read_text())
    m = run(cfg, args.work, args.out, resume=args.resume, stages=args.stage)
    print(json.dumps({k: v for k, v in m.items() if k != "config"}, default=str)[:4000])
    return 0


if __name__ == "__main__":
    sys.exit(main())
