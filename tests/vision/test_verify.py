"""The count model: evidence per detection, logistic fitting, storage in reader.json, and the
reader counting by it. Real rendered photos and the shipped ONNX models, no mocks."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from vision.reader import MODELS_DIR, ModelError, Reader
from vision.verify import (
    COUNT_FEATURES,
    CountModel,
    count_evidence,
    design,
    fit_logistic,
    label_detections,
    main,
    rendered_evidence,
)


def _logistic_data(rng: np.random.Generator, n: int, k: int, interaction: bool) -> tuple[np.ndarray, np.ndarray]:
    x = rng.normal(size=(n, k)) * 3 + 1
    z = (x[:, 0] - 1) * (x[:, 1] - 1) if interaction else 2 * x[:, 0] - x[:, 2]
    y = (rng.random(n) < 1 / (1 + np.exp(-z))).astype(float)
    return x, y


def test_fitting_recovers_which_evidence_matters_and_how():
    rng = np.random.default_rng(3)
    names = tuple(f"f{i}" for i in range(4))
    x, y = _logistic_data(rng, 4000, 4, interaction=False)
    m = fit_logistic(x, y, l2=1.0, features=names)
    assert m.weights[0] > 1.0 and m.weights[2] < -0.5  # the two that decide, with their signs
    assert abs(m.weights[1]) < 0.3 and abs(m.weights[3]) < 0.3  # the two that do not
    p = m.probability(x)
    assert ((p > 0.5) == (y > 0.5)).mean() > 0.8
    # An interaction (one piece of evidence flips what another means) needs degree 2.
    x, y = _logistic_data(rng, 4000, 4, interaction=True)
    flat = fit_logistic(x, y, l2=1.0, features=names)
    pairs = fit_logistic(x, y, l2=1.0, features=names, degree=2)
    acc = [((m.probability(x) > 0.5) == (y > 0.5)).mean() for m in (flat, pairs)]
    assert acc[0] < 0.65 < 0.8 < acc[1]
    assert design(np.ones((2, 4)), 2).shape == (2, 4 + 10)
    with pytest.raises(ValueError, match="both"):
        fit_logistic(x, np.ones(len(x)), features=names)
    with pytest.raises(ValueError, match="one label per row"):
        fit_logistic(x[:, :3], y, features=names)


def test_a_count_model_round_trips_through_json_and_refuses_bad_weights():
    rng = np.random.default_rng(0)
    k = len(COUNT_FEATURES)
    x = rng.normal(size=(300, k))
    y = (x[:, 0] + rng.normal(size=300) > 0).astype(float)
    m = fit_logistic(x, y, degree=2)
    back = CountModel.from_dict(json.loads(json.dumps(m.to_dict())))
    assert back.degree == 2 and np.allclose(back.probability(x), m.probability(x), atol=1e-4)
    good = m.to_dict()
    for change, message in (
        ({"features": list(COUNT_FEATURES[:-1])}, "refit"),
        ({"weights": good["weights"][:-1]}, "weights"),
        ({"scale": [0.0] * k}, "positive"),
        ({"mean": [float("nan")] * k}, "finite"),
        ({"degree": 3}, "degree"),
        ({"bias": None}, "needs"),
    ):
        with pytest.raises(ValueError, match=message):
            CountModel.from_dict(good | change)
    with pytest.raises(ValueError, match="needs"):
        CountModel.from_dict({"features": list(COUNT_FEATURES)})


def test_each_detection_is_paired_with_at_most_one_labelled_tile():
    gt = np.array([[100, 100, 80, 40, 0.0], [300, 100, 80, 40, 0.0]])
    boxes = np.array([
        [101, 100, 80, 40, 0.0],  # on the first tile
        [100, 101, 78, 40, 0.0],  # a second box on the same tile: not a tile of its own
        [500, 500, 80, 40, 0.0],  # bare table
        [300, 100, 80, 40, np.pi],  # the second tile, box turned round
    ])
    assert label_detections(gt, boxes).tolist() == [1, 0, 0, 1]
    assert label_detections(gt[:0], boxes).tolist() == [0, 0, 0, 0]


@pytest.fixture(scope="module")
def rendered(tmp_path_factory) -> Path:
    """Four rendered photos at 1280 px, two of them with hard cases (boneyards of face-down
    tiles: detections that are not tiles, which fitting needs)."""
    from datasets.render import render_dataset

    out = tmp_path_factory.mktemp("rendered")
    render_dataset(out / "plain", 2, 4242, 1.0, 12, 1280)
    render_dataset(out / "hard", 2, 4246, 1.0, 12, 1280, hard_cases=True)
    return out


def test_evidence_from_rendered_photos_with_the_shipped_models(rendered: Path):
    reader = Reader.from_models_dir()
    x, y = rendered_evidence(reader, [rendered / "plain", rendered / "hard"])
    n_labels = sum(len(json.loads(p.read_text())) for p in rendered.glob("*/tiles/*/*.json"))
    assert x.shape == (len(y), len(COUNT_FEATURES)) and np.all(np.isfinite(x))
    assert 0.8 * n_labels <= y.sum() <= n_labels  # most tiles found, none paired twice
    col = {name: i for i, name in enumerate(COUNT_FEATURES)}
    assert set(np.unique(x[:, col["blanks"]])) <= {0, 1, 2} and set(np.unique(x[:, col["repeat"]])) <= {0, 1}
    assert np.all(x[:, col["overlap"]] >= 0) and np.all(x[:, col["overlap"]] <= 1)
    with pytest.raises(ValueError, match="no rendered photos"):
        rendered_evidence(reader, [rendered / "absent"])


def test_evidence_marks_a_repeated_read_and_blank_halves():
    from PIL import Image

    image = Image.new("RGB", (400, 300), (90, 120, 90))
    boxes = np.array([[100, 100, 80, 40, 0.0], [300, 100, 80, 40, 0.0], [200, 220, 80, 40, 0.0]])
    probs = np.full((6, 13), 0.01)
    for row, cls in enumerate([3, 4, 4, 3, 0, 0]):  # 3-4, 4-3 (the same tile), 0-0
        probs[row, cls] = 0.88
    x = count_evidence(image, boxes, np.array([0.9, 0.6, 0.8]), probs, probs.argmax(1), np.arange(13))
    col = {name: i for i, name in enumerate(COUNT_FEATURES)}
    assert x[:, col["repeat"]].tolist() == [0, 1, 0]  # the less sure of the two 3-4s
    assert x[:, col["blanks"]].tolist() == [0, 0, 2]
    assert x[:, col["overlap"]].max() < 0.01 and x[:, col["length_rel"]].tolist() == pytest.approx([0, 0, 0])
    assert count_evidence(image, np.zeros((0, 5)), np.zeros(0), np.zeros((0, 13)), np.zeros(0, int),
                          np.arange(13)).shape == (0, len(COUNT_FEATURES))


def _models_copy(tmp_path: Path) -> Path:
    models = tmp_path / "models"
    models.mkdir()
    for path in MODELS_DIR.iterdir():
        if path.suffix in (".onnx", ".json"):
            shutil.copy(path, models / path.name)
    return models


def test_the_reader_counts_by_a_fitted_count_model(rendered: Path, tmp_path: Path, capsys):
    """``python -m vision.verify`` writes the weights into reader.json; the reader then scores
    every detection and counts those at or over ``count_score``."""
    models = _models_copy(tmp_path)
    assert main(["--rendered", str(rendered / "plain"), str(rendered / "hard"), "--models", str(models)]) == 0
    assert "wrote count_model" in capsys.readouterr().out
    data = json.loads((models / "reader.json").read_text())
    assert data["count_model"]["degree"] == 2 and data["count_model"]["features"] == list(COUNT_FEATURES)
    reader = Reader.from_models_dir(models)
    photo = next((rendered / "plain").glob("images/*/*.jpg"))
    reading = reader.with_config(dataclasses.replace(reader.config, count_score=0.0)).read(photo)
    scores = [t.tile_score for t in reading.tiles]
    assert scores and all(0 <= s <= 1 for s in scores) and not reading.candidates
    assert "tile_score" in reading.tiles[0].to_dict()
    cut = sorted(scores)[len(scores) // 2]
    strict = reader.with_config(dataclasses.replace(reader.config, count_score=cut)).read(photo)
    assert all(t.tile_score >= cut for t in strict.tiles) and all(t.tile_score < cut for t in strict.candidates)
    assert len(strict.tiles) + len(strict.candidates) == len(reading.tiles)
    # A damaged count model is refused when the reader loads, with the file named.
    data["count_model"]["weights"] = data["count_model"]["weights"][:3]
    (models / "reader.json").write_text(json.dumps(data))
    with pytest.raises(ModelError, match="count_model"):
        Reader.from_models_dir(models)



def test_the_training_stage_renders_fits_and_stores_a_count_model(tmp_path: Path):
    """``python -m vision.train --stage count`` with a ``count_model:`` block: fresh renders in the
    work folder, the fit, and the weights in the output's reader.json; a second run reuses the
    renders."""
    from vision.train import fit_count_stage

    models = _models_copy(tmp_path)
    cfg = {"max_value": 12, "count_model": {"renders": [{"count": 2, "seed": 4242},
                                                        {"count": 2, "seed": 4246, "hard_cases": True}],
                                            "long_side": 1280, "l2": 1.0, "degree": 1}}
    st = fit_count_stage(cfg, tmp_path / "work", models)
    assert 0 < st["tiles"] < st["detections"]
    assert sorted(p.name for p in (tmp_path / "work").iterdir()) == ["count_4242", "count_4246"]
    stored = json.loads((models / "reader.json").read_text())["count_model"]
    assert stored["degree"] == 1 and len(stored["weights"]) == len(COUNT_FEATURES)
    assert Reader.from_models_dir(models).count_model is not None
    renders = {p: p.stat().st_mtime_ns for p in (tmp_path / "work").rglob("*.jpg")}
    again = fit_count_stage(cfg, tmp_path / "work", models)
    assert (again["detections"], again["tiles"]) == (st["detections"], st["tiles"])
    assert {p: p.stat().st_mtime_ns for p in (tmp_path / "work").rglob("*.jpg")} == renders
