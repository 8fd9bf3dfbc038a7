"""torchvision beside a torch build its compiled ops were not made for.

torchvision's compiled operators (``torchvision/_C.so``) load only beside the torch build they
were compiled against. PyPI's torchvision for Linux x86_64 is built against PyPI's CUDA torch:
next to the CPU build of the same torch version (PyTorch's CPU index, or a local wheel) its
``_C.so`` does not load (it needs ``libtorch_cuda.so``), and ``import torchvision`` then stops
with "operator torchvision::nms does not exist", raised by torchvision's own registration of a
fake kernel for that operator.

Training here needs none of torchvision's compiled operators: ultralytics imports torchvision
for its transforms and model zoo, and the oriented boxes are suppressed by its own rotated NMS.
So when the compiled library does not load, :func:`provide_missing_ops` declares the two
operators torchvision registers unconditionally (``nms``, ``qnms``) and gives ``nms`` a
plain-torch kernel (ultralytics' ``TorchNMS.nms``, which keeps the same boxes as torchvision's);
every other compiled operator (RoIAlign, deformable convolution, image decoding) stays missing
and fails where it is called. With a matching torchvision (PyTorch's CPU index gives
``torchvision==0.28.0+cpu``) the library loads and nothing is declared.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

_LIBRARY: Any = None  # the declared operators live as long as this object


def _compiled_ops() -> Path | None:
    spec = importlib.util.find_spec("torchvision")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations)))
    return next((p for p in sorted(folder.glob("_C.*")) if p.suffix in (".so", ".pyd")), None)


def _nms(dets: Any, scores: Any, iou_threshold: float) -> Any:
    from ultralytics.utils.nms import TorchNMS

    return TorchNMS.nms(dets, scores, iou_threshold)


def provide_missing_ops() -> bool:
    """Before torchvision is imported: load its compiled operators, or declare the ones its
    import needs when they do not load. True when declared here."""
    global _LIBRARY
    import sys

    if _LIBRARY is not None or "torchvision" in sys.modules:
        return _LIBRARY is not None
    lib = _compiled_ops()
    if lib is None:
        return False  # no torchvision at all: ultralytics says what is missing
    import torch

    try:
        torch.ops.load_library(str(lib))
        return False
    except OSError:
        pass
    _LIBRARY = torch.library.Library("torchvision", "DEF")
    for name in ("nms", "qnms"):
        _LIBRARY.define(f"{name}(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    _LIBRARY.impl("nms", _nms, "CompositeExplicitAutograd")
    return True
