"""Every tool the suite runs keeps its settings and caches in one temporary folder per test run,
never in HOME: each run is a first run, as on a machine where nothing ran before.

Set when this file is imported, before any test module imports a tool (ultralytics writes its
settings file on its first import and prints that it did), and inherited by every child process
a test starts. Each run starting from empty folders is what keeps a test from passing only on a
warmed machine; ``tests/test_fresh_home.py`` checks that nothing lands in HOME.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

TOOL_HOME = Path(tempfile.mkdtemp(prefix="chickenfoot-tests-home-"))

#: Variables that move a tool's settings, caches and data out of HOME, and the folder each gets.
TOOL_DIRS = {
    # platformdirs (the scorekeeper's default file), pip, fontconfig, torch, Chromium, ...
    "XDG_CONFIG_HOME": "config",
    "XDG_CACHE_HOME": "cache",
    "XDG_DATA_HOME": "data",
    "XDG_STATE_HOME": "state",
    "YOLO_CONFIG_DIR": "ultralytics",  # ultralytics' settings.json and fonts
    "MPLCONFIGDIR": "matplotlib",  # matplotlib's font cache (built, with a warning, on first import)
    "TORCH_HOME": "torch",
    "TRITON_CACHE_DIR": "triton",
    "PIP_CACHE_DIR": "pip-cache",
    # rustup's rustc, which pip runs for its user agent: rustup writes its settings on first run
    "RUSTUP_HOME": "rustup",
    "RUFF_CACHE_DIR": "ruff-cache",
}

for _name, _sub in TOOL_DIRS.items():
    (TOOL_HOME / _sub).mkdir()
    os.environ[_name] = str(TOOL_HOME / _sub)
# the scorekeeper's file: only where a test names one
os.environ.pop("CHICKENFOOT_DB", None)


def _hypothesis_home() -> None:
    """Hypothesis' example database, otherwise ``.hypothesis/`` in the working folder."""
    try:
        from hypothesis.configuration import set_hypothesis_home_dir
    except ImportError:
        return
    set_hypothesis_home_dir(TOOL_HOME / "hypothesis")


_hypothesis_home()


def pytest_unconfigure(config: object) -> None:
    shutil.rmtree(TOOL_HOME, ignore_errors=True)
