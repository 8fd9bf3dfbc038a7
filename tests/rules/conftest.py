"""Makes ``golden_cases`` importable from these tests under ``--import-mode=importlib``
(which, unlike the default mode, does not put test folders on ``sys.path``)."""

import sys
from pathlib import Path

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
