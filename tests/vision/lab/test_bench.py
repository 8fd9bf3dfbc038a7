"""chickenfoot.vision.lab.bench's pieces: the rendered bench photos and the timing of whole reads (the figures
themselves are the benchmark's business, not the tests')."""

from __future__ import annotations

import json
from pathlib import Path

import fake_models
import pytest
from PIL import Image

from chickenfoot.vision.lab.bench import main, make_photo, open_reader, time_reads
from chickenfoot.vision.reader import Reader


def test_bench_photos_are_noisy_jpegs_and_can_show_one_big_set(tmp_path: Path) -> None:
    plain = make_photo(tmp_path / "plain.jpg", (320, 240), seed=1)
    again = make_photo(tmp_path / "again.jpg", (320, 240), seed=1)
    big = make_photo(tmp_path / "d18.jpg", (320, 240), seed=1, set_top=18)
    for p in (plain, big):
        with Image.open(p) as im:
            assert im.format == "JPEG" and im.size == (320, 240)
    assert plain.read_bytes() == again.read_bytes()  # fixed seeds: the same photo every run
    assert big.read_bytes() != plain.read_bytes()


def test_time_reads_reports_every_stage_and_reads_the_set_it_is_told(tmp_path: Path) -> None:
    pytest.importorskip("onnx", reason="building the test models needs onnx (train extra)")
    fm = fake_models
    photo, models, _ = fm.scene(tmp_path)
    fm.write_classifier(models / "half_cls18.onnx", 16, (15, 17, 0), fm.WIDE_NAMES)
    reader = Reader.from_models_dir(models)
    r, = time_reads([reader], photo, runs=3, warmup=1)
    assert {"median_ms", "p90_ms", "cpu_ms", "decode_ms", "detect_ms", "halves_ms", "tiles"} <= set(r)
    # the scene's three tiles and its blank back, listed as asked about (the 0-0 or a back?)
    assert r["tiles"] == 4 and r["p90_ms"] >= r["median_ms"] > 0
    assert all(r[f"{k}_ms"] > 0 for k in ("decode", "detect", "halves"))
    # told a double-18 set, the same photo is read by the wide-set classifier (when it is there)

    data = json.loads((models / "reader.json").read_text()) | {"classifier_wide": "half_cls18.onnx"}
    (models / "reader.json").write_text(json.dumps(data))
    wide = Reader.from_models_dir(models)
    assert time_reads([wide], photo, runs=1, warmup=0, top=18)[0]["tiles"] == 4


def test_readers_take_turns_and_a_reader_json_names_its_own_settings(tmp_path: Path) -> None:
    pytest.importorskip("onnx", reason="building the test models needs onnx (train extra)")
    photo, models, _ = fake_models.scene(tmp_path)
    data = json.loads((models / "reader.json").read_text())
    (models / "other.json").write_text(json.dumps(data | {"det_conf": 0.99}))
    plain, strict = open_reader(models), open_reader(models / "other.json")
    assert plain.models_dir == strict.models_dir == models
    assert plain.config.det_conf != 0.99 and strict.config.det_conf == 0.99
    a, b = time_reads([plain, strict], photo, runs=2, warmup=0)
    assert a["tiles"] == 4 and b["tiles"] < 4  # the same photo, each reader with its own settings


def test_bench_prints_each_reader_side_by_side(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("onnx", reason="building the test models needs onnx (train extra)")
    photo, models, _ = fake_models.scene(tmp_path)
    monkeypatch.setenv("CHICKENFOOT_REALDATA", str(tmp_path / "none"))
    monkeypatch.setenv("CHICKENFOOT_MODELS", str(models))
    keep = tmp_path / "b"
    keep.mkdir()
    for name in ("bench_12mp.jpg", "bench_640x480.jpg"):  # kept photos are reused, not rendered
        Image.open(photo).convert("RGB").save(keep / name)
    assert main(["--models", str(models), "--runs", "1", "--photo", str(photo), "--keep", str(keep)]) == 0
    out = capsys.readouterr().out
    assert "load average" in out and f"reader {models}:" in out and "reader shipped:" in out
    rows = [line for line in out.splitlines() if "KB" in line]
    assert len(rows) == 2 * 3  # two readers on the 12 MP, 640x480 and the given photo
    assert out.count("model size (") == 2


def test_bench_names_a_missing_models_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--models", str(tmp_path / "nowhere")]) == 2
    assert "error:" in capsys.readouterr().err


def test_bench_times_the_pixel_work_on_one_thread_beside_the_default(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("onnx", reason="building the test models needs onnx (train extra)")
    from chickenfoot.vision import images

    photo, models, _ = fake_models.scene(tmp_path)
    monkeypatch.setenv("CHICKENFOOT_REALDATA", str(tmp_path / "none"))
    monkeypatch.setenv("CHICKENFOOT_MODELS", str(models))
    monkeypatch.setattr(images, "THREADS", 2)
    keep = tmp_path / "b"
    keep.mkdir()
    for name in ("bench_12mp.jpg", "bench_640x480.jpg"):
        Image.open(photo).convert("RGB").save(keep / name)
    seen = []
    read = Reader.read
    monkeypatch.setattr(Reader, "read", lambda self, *a, **k: seen.append(images.THREADS) or read(self, *a, **k))
    assert main(["--threads", "1", "--runs", "1", "--keep", str(keep)]) == 0
    out = capsys.readouterr().out
    assert "reader shipped, 2 threads:" in out and "reader shipped, 1 thread:" in out
    assert len([line for line in out.splitlines() if "KB" in line]) == 2 * 2  # two variants, two photos
    assert out.count("model size (") == 1
    assert set(seen) == {1, 2} and images.THREADS == 2  # each read on its own count, the default put back
