"""Opening the ONNX models with onnxruntime, and what ultralytics wrote into them."""

from __future__ import annotations

import ast
import lzma
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .config import ModelError

#: A model file whose name ends so is an ONNX file compressed with xz (lzma), losslessly: the
#: float32 detector ships so, at 78% of its size.
COMPRESSED_SUFFIX = ".xz"
#: Largest ONNX model a compressed file may unpack to.
MAX_MODEL_BYTES = 256 * 2**20

#: Metadata key ``chickenfoot.vision.lab.quantize`` writes: ``static`` (int8 weights and activations, run
#: in int8) or ``weights`` (int8 weights only, run in float).
QUANTIZED_KEY = "quantized"


def model_bytes(path: Path) -> bytes:
    """The ONNX bytes of a model file, unpacked when its name ends in :data:`COMPRESSED_SUFFIX`;
    :class:`ModelError` naming the file when it cannot be read or unpacked."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ModelError(f"{path}: cannot read model file ({exc.strerror or exc})") from None
    if not str(path).endswith(COMPRESSED_SUFFIX):
        return data
    unpack = lzma.LZMADecompressor()
    try:
        out = unpack.decompress(data, max_length=MAX_MODEL_BYTES)
    except lzma.LZMAError as exc:
        raise ModelError(f"{path}: cannot unpack model ({exc})") from None
    if not unpack.eof:
        raise ModelError(f"{path}: damaged or truncated compressed model (or over {MAX_MODEL_BYTES // 2**20} MB)")
    return out


def _options(ort: Any, threads: int, fold_int8_weights: bool = False) -> Any:
    opts = ort.SessionOptions()
    # Few threads: the reader shares a small machine (and a phone) with everything else.
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    # No busy-waiting: a model's pool thread otherwise spins on after its run and takes a core
    # from the other model (and from decoding), which doubled a 640x480 read.
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    if fold_int8_weights:
        # A model stored with int8 weights only is run in float: its DequantizeLinear nodes are
        # folded into float constants at load (left in, onnxruntime dequantizes on every call
        # and takes a slow path for the convolutions they feed: three times the float time).
        opts.add_session_config_entry("session.disable_quant_qdq", "1")
    opts.log_severity_level = 3
    return opts


def open_models(paths: Sequence[Path], threads: int) -> list[Any]:
    """Each model file opened for onnxruntime on the CPU, or :class:`ModelError` naming the file.
    A compressed file (:data:`COMPRESSED_SUFFIX`) is unpacked first; a model
    ``chickenfoot.vision.lab.quantize`` stored with int8 weights only (metadata ``quantized``: ``weights``)
    is opened with those weights folded back to float."""
    try:
        import onnxruntime as ort
    except ImportError:  # pragma: no cover - a run-time dependency
        raise ModelError("onnxruntime is not installed") from None
    opts = _options(ort, threads)
    out = []
    for path in paths:
        if not path.is_file():
            raise ModelError(f"{path}: model file missing")
        data = model_bytes(path)
        try:
            session = ort.InferenceSession(data, sess_options=opts, providers=["CPUExecutionProvider"])
            if (session.get_modelmeta().custom_metadata_map or {}).get(QUANTIZED_KEY) == "weights":
                session = ort.InferenceSession(data, sess_options=_options(ort, threads, True),
                                               providers=["CPUExecutionProvider"])
            out.append(session)
        except Exception as exc:  # onnxruntime raises its own exception types
            raise ModelError(f"{path}: cannot load model ({' '.join(str(exc).split())[:200]})") from None
    return out


def metadata(model: Any) -> dict[str, Any]:
    """ultralytics' custom ONNX metadata (values are Python literals written as text)."""
    raw = model.get_modelmeta().custom_metadata_map or {}
    out: dict[str, Any] = {}
    for key, value in raw.items():
        try:
            out[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            out[key] = value
    return out


def input_size(meta: Mapping[str, Any], default: int) -> int:
    """The (long side of the) input size a model was trained at."""
    v = meta.get("imgsz", default)
    if isinstance(v, list | tuple):
        v = max(v)
    return int(v)
