"""The suite as on a machine where nothing ran before: the tools the tests run keep their
settings and caches in the run's own folders (``tests/conftest.py``), so an empty HOME stays
empty and a warmed one changes nothing. ``.ci/run`` runs the whole test command with an empty
HOME as well."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: First runs that write settings, caches or data: ultralytics its settings file (and says so
#: on stdout), matplotlib its font cache, pip (a rustup-managed rustc, asked its version for
#: pip's user agent, writes rustup's settings), the scorekeeper its default file, the CLI as a
#: player first runs it.
FIRST_RUNS = """
import importlib.util, json, subprocess, sys
for name in ("ultralytics", "matplotlib.pyplot"):
    if importlib.util.find_spec(name.split(".")[0]):
        __import__(name)
# nothing to find (no index): pip only sets up, as the packaging test's builds do
subprocess.run([sys.executable, "-m", "pip", "download", "--no-index", "--no-deps", "-q", "-d", "pip-out",
                "chickenfoot-no-such-package"], capture_output=True, timeout=300)
from chickenfoot.cli.main import main
from chickenfoot.storage.repository import default_db_path
assert main(["match", "new", "--players", "Ann,Bob", "--json"]) == 0
print(json.dumps({"db": str(default_db_path())}))
"""


def test_first_runs_of_the_tools_leave_an_empty_home_empty(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    done = subprocess.run([sys.executable, "-c", FIRST_RUNS], cwd=tmp_path, capture_output=True, text=True,
                          timeout=600, env={**os.environ, "HOME": str(home)})
    assert done.returncode == 0, done.stderr[-3000:]
    written = sorted(str(p.relative_to(home)) for p in home.rglob("*"))
    assert written == [], f"written to HOME: {written}"
    db = Path(json.loads(done.stdout.strip().splitlines()[-1])["db"])
    assert db.is_file() and Path(os.environ["XDG_DATA_HOME"]) in db.parents
    if importlib.util.find_spec("ultralytics"):
        assert (Path(os.environ["YOLO_CONFIG_DIR"]) / "Ultralytics" / "settings.json").is_file()


def test_each_run_starts_from_empty_tool_folders_outside_home() -> None:
    from hypothesis.configuration import storage_directory

    home = Path.home().resolve()
    for name in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "YOLO_CONFIG_DIR", "MPLCONFIGDIR",
                 "PIP_CACHE_DIR", "RUSTUP_HOME"):
        folder = Path(os.environ[name]).resolve()
        assert folder.is_dir() and home not in folder.parents, (name, folder)
        assert "chickenfoot-tests-home-" in str(folder)
    # Hypothesis' example database too, not .hypothesis/ in the working folder
    assert "chickenfoot-tests-home-" in str(storage_directory("examples").path)
