"""chickenfoot.vision.lab.quantize: int8 copies of small convolutional models, and how the runtime opens them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from chickenfoot.vision.config import ModelError
from chickenfoot.vision.lab.quantize import float_nodes, main, quantize_model
from chickenfoot.vision.runtime import QUANTIZED_KEY, metadata, model_bytes, open_models

onnx = pytest.importorskip("onnx", reason="quantising needs onnx (train extra)")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402


def conv_net(path: Path, seed: int = 0) -> Path:
    """A two-convolution network with SiLU and a head named as ultralytics names a detect head:
    ``/model.1/`` is the last module, its ``cv2.0.0`` block quantised, its last conv not."""
    rng = np.random.default_rng(seed)
    w1 = rng.normal(0, 0.3, (8, 3, 3, 3)).astype(np.float32)
    w2 = rng.normal(0, 0.2, (8, 8, 3, 3)).astype(np.float32)
    w3 = rng.normal(0, 0.2, (2, 8, 1, 1)).astype(np.float32)
    nodes = [
        helper.make_node("Conv", ["images", "w1"], ["c1"], name="/model.0/conv/Conv", pads=[1, 1, 1, 1]),
        helper.make_node("Sigmoid", ["c1"], ["s1"], name="/model.0/act/Sigmoid"),
        helper.make_node("Mul", ["c1", "s1"], ["a1"], name="/model.0/act/Mul"),
        helper.make_node("Conv", ["a1", "w2"], ["c2"], name="/model.1/cv2.0/cv2.0.0/conv/Conv", pads=[1, 1, 1, 1]),
        helper.make_node("Sigmoid", ["c2"], ["s2"], name="/model.1/cv2.0/cv2.0.0/act/Sigmoid"),
        helper.make_node("Mul", ["c2", "s2"], ["a2"], name="/model.1/cv2.0/cv2.0.0/act/Mul"),
        helper.make_node("Conv", ["a2", "w3"], ["output0"], name="/model.1/cv2.0/cv2.0.2/Conv"),
    ]
    graph = helper.make_graph(
        nodes, "net",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, ["batch", 3, "h", "w"])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, ["batch", 2, "h", "w"])],
        initializer=[numpy_helper.from_array(w, n) for w, n in ((w1, "w1"), (w2, "w2"), (w3, "w3"))],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    model.metadata_props.add(key="imgsz", value="[16, 16]")
    onnx.save(model, str(path))
    return path


def run(path: Path, x: np.ndarray) -> np.ndarray:
    (model,) = open_models([path], 1)
    return model.run(None, {"images": x})[0]


def test_the_head_from_its_last_convolutions_stays_float() -> None:
    model = onnx.load_from_string(onnx.ModelProto().SerializeToString())
    model.graph.node.extend([
        helper.make_node("Conv", ["a", "b"], ["c"], name="/model.0/conv/Conv"),
        helper.make_node("Conv", ["a", "b"], ["c"], name="/model.22/cv3.1/cv3.1.1/conv/Conv"),
        helper.make_node("Conv", ["a", "b"], ["c"], name="/model.22/cv3.1/cv3.1.2/Conv"),
        helper.make_node("Concat", ["a", "b"], ["c"], name="/model.22/Concat_4"),
        helper.make_node("Sin", ["a"], ["c"], name="/model.22/Sin"),
    ])
    assert float_nodes(model) == ["/model.22/cv3.1/cv3.1.2/Conv", "/model.22/Concat_4", "/model.22/Sin"]
    classifier = onnx.ModelProto()
    classifier.graph.node.extend([
        helper.make_node("Conv", ["a", "b"], ["c"], name="/model.0/conv/Conv"),
        helper.make_node("Gemm", ["a", "b"], ["c"], name="/model.9/linear/Gemm"),
        helper.make_node("Softmax", ["a"], ["c"], name="/model.9/Softmax"),
    ])
    assert float_nodes(classifier) == ["/model.9/linear/Gemm", "/model.9/Softmax"]


def test_int8_weights_only_are_a_quarter_the_size_and_read_as_the_float_model(tmp_path: Path) -> None:
    src = conv_net(tmp_path / "float.onnx")
    dst = tmp_path / "w8.onnx"
    quantize_model(src, dst, [], "weights")
    x = np.random.default_rng(1).random((2, 3, 16, 16), dtype=np.float32)
    want, got = run(src, x), run(dst, x)
    assert np.abs(got - want).max() < 0.02 * np.abs(want).max()
    (model,) = open_models([dst], 1)
    assert metadata(model)[QUANTIZED_KEY] == "weights" and metadata(model)["imgsz"] == [16, 16]
    # opened with the int8 weights folded back into float constants
    assert model.get_session_options().get_session_config_entry("session.disable_quant_qdq") == "1"
    kinds = {n.op_type for n in onnx.load(str(dst)).graph.node}
    assert "DequantizeLinear" in kinds and "QuantizeLinear" not in kinds
    w = {i.name: i.data_type for i in onnx.load(str(dst)).graph.initializer}
    assert w["w2_int8"] == TensorProto.INT8 and "w2" not in w


def test_static_int8_runs_in_int8_and_stays_close_on_inputs_like_its_calibration(tmp_path: Path) -> None:
    src = conv_net(tmp_path / "float.onnx")
    dst = tmp_path / "s8.onnx"
    rng = np.random.default_rng(2)
    calib = [rng.random((1, 3, 16, 16), dtype=np.float32) for _ in range(8)]
    quantize_model(src, dst, calib, "static")
    x = rng.random((2, 3, 16, 16), dtype=np.float32)
    want, got = run(src, x), run(dst, x)
    assert np.abs(got - want).max() < 0.1 * np.abs(want).max()
    nodes = onnx.load(str(dst)).graph.node
    quantized = {n.name for n in nodes if n.op_type == "QuantizeLinear"}
    assert quantized, "activations quantised"
    # the last convolution is fed and left in float: its output is the model's output
    last = next(n for n in nodes if n.name == "/model.1/cv2.0/cv2.0.2/Conv")
    assert last.output[0] == "output0"
    (model,) = open_models([dst], 1)
    assert metadata(model)[QUANTIZED_KEY] == "static"
    with pytest.raises(RuntimeError, match="does not have configuration"):  # QDQ kept, run in int8
        model.get_session_options().get_session_config_entry("session.disable_quant_qdq")


def test_float_mode_copies_the_model(tmp_path: Path) -> None:
    src = conv_net(tmp_path / "float.onnx")
    quantize_model(src, tmp_path / "same.onnx", [], "float")
    assert (tmp_path / "same.onnx").read_bytes() == src.read_bytes()


def test_half_weights_are_half_the_size_and_read_as_the_float_model(tmp_path: Path) -> None:
    src = conv_net(tmp_path / "float.onnx")
    dst = tmp_path / "half.onnx"
    quantize_model(src, dst, [], "half")
    x = np.random.default_rng(3).random((2, 3, 16, 16), dtype=np.float32)
    want, got = run(src, x), run(dst, x)
    assert np.abs(got - want).max() < 2e-3 * np.abs(want).max()
    weights = {i.name: i for i in onnx.load(str(dst)).graph.initializer}
    assert weights["w2_fp16"].data_type == TensorProto.FLOAT16 and "w2" not in weights
    (model,) = open_models([dst], 1)
    assert metadata(model)[QUANTIZED_KEY] == "half" and metadata(model)["imgsz"] == [16, 16]


def test_the_command_writes_every_model_and_the_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    src = tmp_path / "float"
    src.mkdir()
    conv_net(src / "det.onnx")
    conv_net(src / "cls.onnx", seed=1)
    (src / "reader.json").write_text(json.dumps({"detector": "det.onnx", "classifier": "cls.onnx"}))
    out = tmp_path / "small"
    assert main(["--src", str(src), "--out", str(out), "--mode", "cls.onnx=weights"]) == 0
    assert json.loads((out / "reader.json").read_text())["detector"] == "det.onnx"
    kinds = {f: metadata(open_models([out / f], 1)[0])[QUANTIZED_KEY] for f in ("det.onnx", "cls.onnx")}
    assert kinds == {"det.onnx": "half", "cls.onnx": "weights"}
    assert "det.onnx: half" in capsys.readouterr().out
    # xz: the very same model, compressed, under a new name that reader.json gives
    packed = tmp_path / "packed"
    assert main(["--src", str(src), "--out", str(packed), "--mode", "det.onnx=xz", "--mode", "cls.onnx=float"]) == 0
    assert json.loads((packed / "reader.json").read_text())["detector"] == "det.onnx.xz"
    assert not (packed / "det.onnx").exists()
    assert model_bytes(packed / "det.onnx.xz") == (src / "det.onnx").read_bytes()
    x = np.random.default_rng(5).random((1, 3, 16, 16), dtype=np.float32)
    assert np.array_equal(run(packed / "det.onnx.xz", x), run(src / "det.onnx", x))
    # and from the packed folder on, as a source
    again = tmp_path / "again"
    assert main(["--src", str(packed), "--out", str(again), "--mode", "float"]) == 0
    assert json.loads((again / "reader.json").read_text())["detector"] == "det.onnx"
    assert (again / "det.onnx").read_bytes() == (src / "det.onnx").read_bytes()
    assert main(["--src", str(src), "--out", str(out), "--mode", "nope.onnx=half"]) == 2
    assert main(["--src", str(src), "--out", str(src)]) == 2
    assert "error:" in capsys.readouterr().err


def test_a_damaged_compressed_model_is_a_model_error(tmp_path: Path) -> None:
    import lzma

    src = conv_net(tmp_path / "float.onnx")
    whole = lzma.compress(src.read_bytes())
    (tmp_path / "cut.onnx.xz").write_bytes(whole[: len(whole) // 2])
    (tmp_path / "junk.onnx.xz").write_bytes(b"not xz at all")
    with pytest.raises(ModelError, match=r"cut\.onnx\.xz: damaged or truncated"):
        open_models([tmp_path / "cut.onnx.xz"], 1)
    with pytest.raises(ModelError, match=r"junk\.onnx\.xz: cannot unpack"):
        open_models([tmp_path / "junk.onnx.xz"], 1)
