"""Opening the ONNX models with onnxruntime, and what ultralytics wrote into them."""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .config import ModelError


def open_models(paths: Sequence[Path], threads: int) -> list[Any]:
    """Each model file opened for onnxruntime on the CPU, or :class:`ModelError` naming the file."""
    try:
        import onnxruntime as ort
    except ImportError:  # pragma: no cover - a run-time dependency
        raise ModelError("onnxruntime is not installed") from None
    opts = ort.SessionOptions()
    # Few threads: the reader shares a small machine (and a phone) with everything else.
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    # No busy-waiting: a model's pool thread otherwise spins on after its run and takes a core
    # from the other model (and from decoding), which doubled a 640x480 read.
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    opts.log_severity_level = 3
    out = []
    for path in paths:
        if not path.is_file():
            raise ModelError(f"{path}: model file missing")
        try:
            out.append(ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"]))
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
