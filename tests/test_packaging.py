"""The project as users install it: a wheel built from the repository carries the models, and
its ``chickenfoot score`` reads a photo from a fresh virtual environment outside the checkout.

The wheel is built with this environment's setuptools (no download), and the new environment
finds the run-time dependencies in this one's site-packages through a ``.pth`` file that adds
them after its own: the project itself comes only from the wheel.
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("companion", "vision", "datasets", "models", "pyproject.toml", "README.md")


def test_every_package_of_the_checkout_is_in_the_wheel_list():
    declared = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for top in ("companion", "vision", "datasets")
             for p in (ROOT / top).rglob("__init__.py")}
    assert found | {"chickenfoot.models"} == declared


def test_ci_runs_the_readme_test_command_with_the_cpu_torch():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    (command,) = [line for line in ci.splitlines() if line.startswith("bash scripts/install-browser.sh")]
    assert f"```sh\n{command}\n```" in readme
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in command
    train = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["train"]
    # one torch and its own torchvision: the CPU index has both builds of each
    assert "torch==2.13.*" in train and "torchvision==0.28.*" in train


def _run(cmd: list[str], cwd: Path, timeout: int = 300, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CHICKENFOOT_MODELS", "VIRTUAL_ENV")}
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=clean | env)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with the wheel built from this checkout installed; its bin/."""
    if not (ROOT / "models" / "reader.json").exists():
        pytest.skip("no shipped models to package")
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    junk = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build")
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=junk)
        else:
            shutil.copy(path, src / name)
    dist = tmp / "dist"
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q",
                  "-w", str(dist), str(src)], tmp)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    (wheel,) = dist.glob("*.whl")
    venv = tmp / "venv"
    made = _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], tmp)
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    done = _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "-q",
                 str(wheel)], tmp)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    purelib = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], tmp).stdout.strip()
    # plain path lines: this environment's .pth files (its editable install of the checkout) stay unread
    Path(purelib, "run_time_deps.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    return venv / "bin"


def test_the_wheel_carries_the_models_and_their_config(installed: Path):
    where = _run([str(installed / "python"), "-c",
                  "import chickenfoot.vision.config as c, chickenfoot.vision; print(chickenfoot.vision.__file__); print(c.MODELS_DIR)"], installed)
    package, models = (Path(line) for line in where.stdout.split())
    assert installed.parent in package.parents, "vision came from the checkout, not the wheel"
    assert models == package.parent / "models"
    shipped = json.loads((ROOT / "models" / "reader.json").read_text())
    assert json.loads((models / "reader.json").read_text()) == shipped
    for name in (shipped["detector"], shipped["classifier"], shipped["classifier_wide"]):
        assert (models / name).read_bytes() == (ROOT / "models" / name).read_bytes()
    assert (package.parent / "lab" / "model_yaml" / "tile_obb.yaml").exists()


def test_the_installed_command_scores_a_photo(installed: Path, tmp_path: Path):
    photo = tmp_path / "hand.jpg"
    shutil.copy(ROOT / "tests" / "data" / "hand.jpg", photo)
    done = _run([str(installed / "chickenfoot"), "score", str(photo), "--json"], tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout)
    truth = json.loads((ROOT / "tests" / "data" / "hand.json").read_text())
    assert sorted(t["tile"] for t in out["photos"][0]["tiles"]) == sorted(truth["tiles"])
    assert out["total"]["pips"] == truth["pips"] and out["total"]["penalty"] == truth["penalty_default_rules"]
