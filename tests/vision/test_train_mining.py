"""Hard-example mining for a classifier pass (vision.train.mine_halves): real rendered half
crops on disk, judged by the shipped ONNX classifier."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np

from datasets.halves import render_halves
from vision.reader import MODELS_DIR
from vision.train import classify_files, classify_probs, mine_halves


def _files(root: Path) -> list[Path]:
    return sorted(root.glob("*/*.png"))


def test_mining_keeps_the_hard_halves_and_a_share_of_the_easy_ones(tmp_path: Path):
    render_halves(tmp_path / "pool", 120, 31, val_frac=0.0, jitter=2.0)
    train = tmp_path / "pool" / "train"
    files = _files(train)
    probs, values = classify_probs(MODELS_DIR / "half_cls.onnx", files)
    assert probs.shape == (len(files), len(values)) and np.allclose(probs.sum(1), 1, atol=1e-3)
    assert classify_files(MODELS_DIR / "half_cls.onnx", files).tolist() == [values[k] for k in probs.argmax(1)]
    truth = np.array([int(f.parent.name) for f in files])
    p_true = probs[np.arange(len(files)), [values.index(t) for t in truth]]

    keep_all = tmp_path / "all"
    shutil.copytree(train, keep_all)
    st = mine_halves(MODELS_DIR / "half_cls.onnx", keep_all, below=1.01, keep_easy=0.0, seed=0)
    assert st["pool"] == st["hard"] == st["kept"] == len(files) and len(_files(keep_all)) == len(files)

    hard_only = tmp_path / "hard"
    shutil.copytree(train, hard_only)
    st = mine_halves(MODELS_DIR / "half_cls.onnx", hard_only, below=0.999, keep_easy=0.0, seed=0)
    kept = {f.name for f in _files(hard_only)}
    assert kept == {f.name for f, p in zip(files, p_true, strict=True) if p < 0.999}
    assert st["kept"] == st["hard"] == len(kept) and st["misread"] <= st["hard"]

    some = tmp_path / "some"
    shutil.copytree(train, some)
    st = mine_halves(MODELS_DIR / "half_cls.onnx", some, below=0.999, keep_easy=0.5, seed=1)
    left = {f.name for f in _files(some)}
    assert kept <= left and st["kept"] == len(left)
    assert 0.2 * (len(files) - len(kept)) < len(left - kept) < 0.8 * (len(files) - len(kept))
