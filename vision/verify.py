"""Which detections count as tiles: a small logistic model over the evidence for each one.

The reader used to count a detection when detector x half A x half B confidence passed one
threshold. On rendered tuning photos most missed tiles were found with a well-placed box and
then not counted; most false reads passed. The detector's and the classifier's confidences do
not say the same thing (a sure box on a hard-to-read tile, a sure read of a shadow), and the
shape of a box, how it sits among the others and whether it has a divider say more. This
module turns that evidence into numbers (:func:`count_evidence`), weighs them
(:class:`CountModel`, stored as data in ``reader.json``) and fits the weights on rendered
photos (:func:`fit_logistic`; ``python -m vision.verify``).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from .detections import probiou
from .geometry import OrientedBox, divider_contrast

#: The evidence, in column order. Changing it invalidates stored weights (checked on load).
COUNT_FEATURES: tuple[str, ...] = (
    "det_logit",  # the detector's confidence, as log-odds
    "half_low",  # log of the less sure half's probability
    "half_high",  # log of the surer half's probability
    "margin_low",  # the less sure half: top probability minus the runner-up
    "length_rel",  # log(length / median length of the photo's tiles)
    "aspect",  # log(length / width): a flat tile is near log 2
    "overlap",  # the largest probabilistic IoU with another detection
    "divider",  # contrast of the middle line (0 for a blank back; see divider_contrast)
    "size",  # log(length / the photo's long side)
    "blanks",  # halves read as blank (0, 1 or 2): a back or a shadow reads blank
    "repeat",  # 1 when a surer detection in the photo was read as the same tile
)


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(np.asarray(p, np.float64), 1e-4, 1 - 1e-4)
    return np.log(p / (1 - p))


def count_evidence(
    image: Image.Image,
    boxes: np.ndarray,
    det_conf: np.ndarray,
    probs: np.ndarray,
    choice: np.ndarray,
    values: np.ndarray,
) -> np.ndarray:
    """``(N, len(COUNT_FEATURES))`` evidence for N tile detections.

    ``boxes``: ``(N, 5)`` cx, cy, length, width, angle in ``image`` pixels; ``probs``: two rows
    per detection (half A, half B) of class probabilities; ``choice``: the class read for each
    half (``2N``); ``values``: the pip count of each class.
    """
    n = len(boxes)
    out = np.zeros((n, len(COUNT_FEATURES)), np.float64)
    if not n:
        return out
    b = np.asarray(boxes, np.float64).reshape(n, 5)
    p = np.asarray(probs, np.float64)
    idx = np.asarray(choice, np.int64)
    top = p[np.arange(2 * n), idx]
    runner = np.sort(p, axis=1)[:, -2] if p.shape[1] > 1 else np.zeros(2 * n)
    best = p.max(1)
    # margin of the value read: when the set limit moved the choice off the argmax, the
    # runner-up is the argmax itself
    margin = np.where(top >= best, top - runner, top - best)
    pa, pb = top[0::2], top[1::2]
    length = np.maximum(b[:, 2], 1e-6)
    width = np.maximum(b[:, 3], 1e-6)
    out[:, 0] = _logit(det_conf)
    out[:, 1] = np.log(np.clip(np.minimum(pa, pb), 1e-6, 1))
    out[:, 2] = np.log(np.clip(np.maximum(pa, pb), 1e-6, 1))
    out[:, 3] = np.minimum(margin[0::2], margin[1::2])
    out[:, 4] = np.log(length / float(np.median(length))) if n > 1 else 0.0
    out[:, 5] = np.log(length / width)
    if n > 1:
        iou = probiou(b, b)
        np.fill_diagonal(iou, 0.0)
        out[:, 6] = iou.max(1)
    out[:, 7] = [min(divider_contrast(image, OrientedBox(*row)), 3.0) for row in b]
    out[:, 8] = np.log(length / max(image.size))
    val = np.asarray(values, np.int64)[idx].reshape(n, 2)
    out[:, 9] = (val == 0).sum(1)
    key = np.sort(val, 1)
    conf = np.asarray(det_conf, np.float64)
    for i in range(n):
        same = np.all(key == key[i], 1)
        same[i] = False
        out[i, 10] = float(np.any(same & (conf > conf[i])))
    return out


def design(z: np.ndarray, degree: int) -> np.ndarray:
    """The model's inputs from standardised evidence ``z``: the columns themselves, and with
    ``degree`` 2 also every product of two of them (squares included), so that one piece of
    evidence can change what another means (a sure box on a blank read, say)."""
    z = np.atleast_2d(np.asarray(z, np.float64))
    if degree == 1:
        return z
    i, j = np.triu_indices(z.shape[1])
    return np.c_[z, z[:, i] * z[:, j]]


def _n_weights(k: int, degree: int) -> int:
    return k if degree == 1 else k + k * (k + 1) // 2


@dataclass(frozen=True)
class CountModel:
    """Logistic weights over standardised evidence (and, at ``degree`` 2, products of two
    pieces of it): P(the detection is a face-up tile)."""

    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    bias: float
    degree: int = 1

    def __post_init__(self) -> None:
        if self.degree not in (1, 2):
            raise ValueError("count model degree must be 1 or 2")
        k = len(self.features)
        for name, size in (("mean", k), ("scale", k), ("weights", _n_weights(k, self.degree))):
            arr = np.asarray(getattr(self, name), np.float64)
            if arr.shape != (size,) or not np.all(np.isfinite(arr)):
                raise ValueError(f"count model {name} must be {size} finite numbers")
            object.__setattr__(self, name, arr)
        if np.any(self.scale <= 0):
            raise ValueError("count model scale must be positive")
        if not math.isfinite(self.bias):
            raise ValueError("count model bias must be finite")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CountModel:
        try:
            features = tuple(str(f) for f in data["features"])
            if features != COUNT_FEATURES:
                raise ValueError(f"count model was fitted on features {list(features)}, this reader computes "
                                 f"{list(COUNT_FEATURES)}: refit it (python -m vision.verify)")
            return cls(features, data["mean"], data["scale"], data["weights"], float(data["bias"]),
                       int(data.get("degree", 1)))
        except (KeyError, TypeError) as exc:
            raise ValueError(f"count model needs features, mean, scale, weights and bias ({exc})") from None

    def to_dict(self) -> dict[str, Any]:
        def r(a: np.ndarray) -> list[float]:
            return [round(float(x), 6) for x in a]
        return {"features": list(self.features), "mean": r(self.mean), "scale": r(self.scale),
                "weights": r(self.weights), "bias": round(self.bias, 6), "degree": self.degree}

    def probability(self, evidence: np.ndarray) -> np.ndarray:
        x = design((np.asarray(evidence, np.float64) - self.mean) / self.scale, self.degree)
        z = x @ self.weights + self.bias
        return 1.0 / (1.0 + np.exp(-np.clip(z, -40, 40)))


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1.0, iters: int = 50,
                 features: Sequence[str] = COUNT_FEATURES, degree: int = 1) -> CountModel:
    """Maximum-likelihood logistic weights with an L2 penalty (Newton's method), on
    standardised columns so the penalty treats every feature alike."""
    x = np.asarray(x, np.float64)
    y = np.asarray(y, np.float64)
    if x.ndim != 2 or x.shape[0] != y.shape[0] or x.shape[1] != len(features):
        raise ValueError("evidence must be (N, features) with one label per row")
    if len(np.unique(y)) < 2:
        raise ValueError("fitting needs both tiles and non-tiles")
    mean = x.mean(0)
    scale = x.std(0)
    scale[scale < 1e-9] = 1.0
    z = np.c_[design((x - mean) / scale, degree), np.ones(len(x))]
    w = np.zeros(z.shape[1])
    penalty = np.full(z.shape[1], float(l2))
    penalty[-1] = 0.0  # the bias is not shrunk
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-np.clip(z @ w, -40, 40)))
        grad = z.T @ (p - y) + penalty * w
        hess = (z * (p * (1 - p))[:, None]).T @ z + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.abs(step).max()) < 1e-8:
            break
    return CountModel(tuple(features), mean, scale, w[:-1], float(w[-1]), degree)


# --------------------------------------------------------------------------- fitting on renders
def label_detections(gt_boxes: np.ndarray, boxes: np.ndarray, iou: float = 0.5) -> np.ndarray:
    """1 for each detection paired (greedy, best overlap first, one each) with a labelled tile at
    polygon IoU >= ``iou``; 0 for the rest (backs, shadows, second boxes on one tile)."""
    from vision.evaluate import greedy_match, obb_corners, polygon_iou

    y = np.zeros(len(boxes), np.float64)
    if not len(boxes) or not len(gt_boxes):
        return y
    gc = obb_corners(np.asarray(gt_boxes, np.float64).tolist())
    pc = obb_corners(np.asarray(boxes, np.float64).tolist())
    for _, j in greedy_match(len(gc), len(pc), lambda i, j: polygon_iou(gc[i], pc[j]), iou):
        y[j] = 1.0
    return y


def rendered_evidence(reader: Any, folders: Iterable[Path]) -> tuple[np.ndarray, np.ndarray]:
    """Evidence and 0/1 labels for every tile detection the reader makes on rendered photos
    (a ``datasets.render`` folder: ``images/*/X.jpg`` with ``tiles/*/X.json``)."""
    from vision.images import load_image

    xs, ys = [], []
    for folder in folders:
        for js in sorted(Path(folder).glob("tiles/*/*.json")):
            labels = json.loads(js.read_text())
            img = load_image(Path(folder) / "images" / js.parent.name / (js.stem + ".jpg"), reader.config.decode_max_side)
            ev = reader.evidence(img)
            if ev is None:
                continue
            x, boxes = ev
            gt = np.array([lab["box"] for lab in labels], np.float64).reshape(-1, 5)
            gt[:, :4] *= img.scale  # labels are in the photo's pixels, boxes in working pixels
            xs.append(x)
            ys.append(label_detections(gt, boxes))
    if not xs:
        raise ValueError("no rendered photos with detections found")
    return np.concatenate(xs), np.concatenate(ys)


def store_count_model(models_dir: Path, model: CountModel) -> Path:
    """Write ``model`` into ``models_dir/reader.json`` as ``count_model``, keeping every other key."""
    path = Path(models_dir) / "reader.json"
    data = json.loads(path.read_text())
    data["count_model"] = model.to_dict()
    path.write_text(json.dumps(data, indent=2) + "\n")
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.verify", description=(
        "Fit the count model (which detections count as tiles) on rendered photos and write it "
        "into the models folder's reader.json."))
    ap.add_argument("--rendered", type=Path, nargs="+", required=True, help="datasets.render folders")
    ap.add_argument("--models", type=Path, default=None, help="models folder (default: models/)")
    ap.add_argument("--l2", type=float, default=1.0)
    ap.add_argument("--degree", type=int, choices=(1, 2), default=2)
    ap.add_argument("--dry-run", action="store_true", help="print the weights, write nothing")
    args = ap.parse_args(argv)
    from vision.reader import Reader

    reader = Reader.from_models_dir(args.models)
    x, y = rendered_evidence(reader, args.rendered)
    model = fit_logistic(x, y, args.l2, degree=args.degree)
    p = model.probability(x)
    print(f"{len(y)} detections, {int(y.sum())} tiles; fitted log-loss "
          f"{float(-np.mean(y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12))):.4f}")
    for name, w in zip(model.features, model.weights, strict=False):  # the single-feature terms
        print(f"  {name:>11} {w:+.3f}")
    print(f"  {'bias':>11} {model.bias:+.3f}")
    if not args.dry_run:
        print(f"wrote count_model into {store_count_model(reader.models_dir, model)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
