"""The project as users install it: a wheel built from the repository installs one top-level
package, ``chickenfoot``, beside packages that happen to be named like the checkout's folders
(``datasets``, ``vision``), carries the models and no lab, and its ``chickenfoot score`` reads
a photo from a fresh virtual environment outside the checkout.

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


#: The wheel's packages and the folders they come from; the lab (vision/lab/, datasets/) stays out.
PACKAGE_DIRS = {"chickenfoot": "companion", "chickenfoot.vision": "vision", "chickenfoot.models": "models"}


def test_every_runtime_package_of_the_checkout_is_in_the_wheel_list_and_no_lab():
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert setuptools["package-dir"] == PACKAGE_DIRS
    found = {"chickenfoot.models"}
    for package, folder in PACKAGE_DIRS.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            parts = init.parent.relative_to(ROOT / folder).parts
            if not (folder == "vision" and parts[:1] == ("lab",)):
                found.add(".".join((package, *parts)))
    assert found == set(setuptools["packages"])
    assert {p.split(".")[0] for p in setuptools["packages"]} == {"chickenfoot"}


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
    (wheel,) = _build_wheels([src], dist, tmp)
    venv = tmp / "venv"
    made = _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], tmp)
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    # other people's packages under the names of the checkout's folders, installed first
    others = _build_wheels([_stand_in(tmp / "others", name) for name in STAND_INS], tmp / "others-dist", tmp)
    for w in [*others, wheel]:
        done = _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "-q",
                     str(w)], tmp)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    purelib = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], tmp).stdout.strip()
    # plain path lines: this environment's .pth files (its editable install of the checkout) stay unread
    Path(purelib, "run_time_deps.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    return venv / "bin"


#: Packages of other distributions named like the checkout's folders (``datasets`` is a very
#: common library's name); each says who it is.
STAND_INS = ("datasets", "vision", "companion")


def _stand_in(folder: Path, name: str) -> Path:
    """A tiny distribution on disk whose one package is ``name``."""
    src = folder / name
    (src / name).mkdir(parents=True)
    (src / name / "__init__.py").write_text(f"WHO = 'the other {name}'\n")
    (src / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=68"]\nbuild-backend = "setuptools.build_meta"\n'
        f'[project]\nname = "{name}"\nversion = "9.9.9"\n[tool.setuptools]\npackages = ["{name}"]\n')
    return src


def _build_wheels(sources: list[Path], dist: Path, cwd: Path) -> list[Path]:
    for src in sources:
        built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q",
                      "-w", str(dist), str(src)], cwd)
        assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    wheels = sorted(dist.glob("*.whl"))
    assert len(wheels) == len(sources)
    return wheels


def test_the_wheel_carries_the_models_and_their_config(installed: Path):
    where = _run([str(installed / "python"), "-c",
                  "import chickenfoot.vision.config as c; print(c.__file__); print(c.MODELS_DIR)"], installed)
    config, models = (Path(line) for line in where.stdout.split())
    package = config.parent.parent  # .../site-packages/chickenfoot
    assert installed.parent in package.parents, "chickenfoot came from the checkout, not the wheel"
    assert models == package / "models"
    shipped = json.loads((ROOT / "models" / "reader.json").read_text())
    assert json.loads((models / "reader.json").read_text()) == shipped
    for name in (shipped["detector"], shipped["classifier"], shipped["classifier_wide"]):
        assert (models / name).read_bytes() == (ROOT / "models" / name).read_bytes()


def test_the_wheel_installs_one_package_beside_others_named_like_its_folders(installed: Path):
    code = ("import chickenfoot.cli.main, chickenfoot.vision.reader, datasets, vision, companion\n"  # rename: keep
            "print(datasets.WHO); print(vision.WHO); print(companion.WHO)\n"  # rename: keep
            "import importlib.util; print(importlib.util.find_spec('chickenfoot.vision.lab'))\n")
    done = _run([str(installed / "python"), "-c", code], installed)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("\n")[:4] == [f"the other {n}" for n in STAND_INS] + ["None"]


def test_pip_lists_no_lab_or_training_module_in_the_wheel(installed: Path):
    shown = _run([sys.executable, "-m", "pip", "--python", str(installed / "python"), "show", "-f",
                  "chickenfoot-companion"], installed)
    assert shown.returncode == 0, shown.stderr[-2000:]
    files = [line.strip() for line in shown.stdout.split("Files:", 1)[1].splitlines() if line.strip()]
    tops = {f.split("/")[0] for f in files}
    assert {t for t in tops if not t.endswith(".dist-info") and t != ".."} == {"chickenfoot"}, tops
    assert "chickenfoot/models/reader.json" in files and "chickenfoot/vision/reader.py" in files
    # no module of the lab or the renderer, nor their configs and model yamls (the model card's
    # figures, models/train_metrics.json, ship with the models): every module in the wheel is a
    # runtime module of the checkout
    assert [f for f in files if {"lab", "datasets"} & set(Path(f).parts) or f.endswith((".yaml", ".pt"))] == []
    for f in (f for f in files if f.endswith(".py")):
        rel = Path(f).relative_to("chickenfoot")
        source = ROOT / ("vision" / rel.relative_to("vision") if rel.parts[0] == "vision" else "companion" / rel)
        assert source.is_file(), f
    assert not any(Path(f).name.startswith("train") and f.endswith(".py") for f in files)


def test_the_installed_command_scores_a_photo(installed: Path, tmp_path: Path):
    photo = tmp_path / "hand.jpg"
    shutil.copy(ROOT / "tests" / "data" / "hand.jpg", photo)
    done = _run([str(installed / "chickenfoot"), "score", str(photo), "--json"], tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout)
    truth = json.loads((ROOT / "tests" / "data" / "hand.json").read_text())
    assert sorted(t["tile"] for t in out["photos"][0]["tiles"]) == sorted(truth["tiles"])
    assert out["total"]["pips"] == truth["pips"] and out["total"]["penalty"] == truth["penalty_default_rules"]


def test_the_wheel_carries_the_app_s_own_icons_and_manifest(installed: Path):
    """The web app's face (companion/app/web/assets/) is package data: served from the wheel."""
    code = ("import json; from chickenfoot.app.web import face; print(face.__file__); "
            "print(json.dumps({p: face.file(p)[0].hex() for p in face.FILES}))")
    done = _run([str(installed / "python"), "-c", code], installed)
    assert done.returncode == 0, done.stderr[-2000:]
    where, served = done.stdout.splitlines()
    assert installed.parent in Path(where).parents, "the face came from the checkout, not the wheel"
    from chickenfoot.app.web import face

    assets = ROOT / "companion" / "app" / "web" / "assets"
    assert {p: bytes.fromhex(h) for p, h in json.loads(served).items()} == {
        p: (assets / name).read_bytes() for p, (name, _) in face.FILES.items()}


def test_the_build_carries_every_file_of_the_app_s_face(tmp_path: Path):
    """What setuptools puts in the wheel's ``chickenfoot/app/web`` (its build_py, which needs no
    ``wheel`` package): every file under the package's ``assets/``."""
    src = tmp_path / "src"
    shutil.copytree(ROOT / "companion", src / "companion", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("vision", "models"):
        (src / name).mkdir()
        (src / name / "__init__.py").write_text("")
    shutil.copy(ROOT / "pyproject.toml", src / "pyproject.toml")
    shutil.copy(ROOT / "README.md", src / "README.md")
    built = _run([sys.executable, "-c", "import setuptools; setuptools.setup()", "-q", "build_py",
                  "-d", str(tmp_path / "build")], src)
    assert built.returncode == 0, built.stderr[-2000:]
    assets = ROOT / "companion" / "app" / "web" / "assets"
    shipped = tmp_path / "build" / "chickenfoot" / "app" / "web" / "assets"
    want = sorted(p.relative_to(assets).as_posix() for p in assets.rglob("*") if p.is_file())
    assert want and sorted(p.relative_to(shipped).as_posix() for p in shipped.rglob("*") if p.is_file()) == want
