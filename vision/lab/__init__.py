"""The reader's lab: training, warm starts, evaluation and speed benches.

It imports the runtime (:mod:`chickenfoot.vision`) and the renderer
(:mod:`chickenfoot.vision.lab.datasets`); nothing in the runtime imports it, and the app never
needs it (training needs the ``train`` extra). Neither is in the wheel: they are imported from a
checkout (an editable install finds this package in ``vision/lab/`` through
:mod:`chickenfoot.vision`).

The renderer's code stays in the checkout's top-level ``datasets/`` folder beside its dataset
configs (the design card's layout); it is registered here as this package's ``datasets``
subpackage, so ``chickenfoot.vision.lab.datasets.render`` imports (and runs with ``python -m``)
like any other module of the lab.
"""

import importlib.util
import sys
from pathlib import Path

_DATASETS = Path(__file__).resolve().parents[2] / "datasets"
if f"{__name__}.datasets" not in sys.modules and (_DATASETS / "__init__.py").is_file():
    _spec = importlib.util.spec_from_file_location(f"{__name__}.datasets", _DATASETS / "__init__.py",
                                                   submodule_search_locations=[str(_DATASETS)])
    assert _spec is not None and _spec.loader is not None
    datasets = importlib.util.module_from_spec(_spec)
    sys.modules[_spec.name] = datasets
    _spec.loader.exec_module(datasets)
