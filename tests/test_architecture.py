"""The import arrows from the design card, checked on the source itself.

rules <- match <- storage; rules <- board (the drawing); match, board <- practice; the reader
(``vision/`` but its lab) reads only the rules; the lab (``vision/lab/``, ``datasets/``) reads the
reader and the rules and is read by nothing below the app; app and CLI on top; torch only in
training; no import loop anywhere in vision or datasets.

The folders are the design card's; the import names are the installed package's (pyproject's
package-dir): ``companion/`` is ``chickenfoot``, ``vision/`` ``chickenfoot.vision`` and
``datasets/`` the lab's ``chickenfoot.vision.lab.datasets``.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STDLIB = set(sys.stdlib_module_names)
TRAINING_ONLY = {"torch", "torchvision", "ultralytics", "cv2"}
#: Each source folder and the package it is imported as.
PACKAGE_OF = {"companion": "chickenfoot", "vision": "chickenfoot.vision", "datasets": "chickenfoot.vision.lab.datasets"}


def _module_parts(f: Path) -> tuple[str, ...]:
    """``vision/reader.py`` -> ("chickenfoot", "vision", "reader")."""
    top, *rest = f.relative_to(ROOT).with_suffix("").parts
    return (*PACKAGE_OF[top].split("."), *rest)


def _imports(path: Path) -> set[str]:
    """Absolute dotted names imported by a file (relative imports resolved against its package)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    pkg = _module_parts(path)[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg[: len(pkg) - (node.level - 1)]
                mod = ".".join((*base, node.module)) if node.module else ".".join(base)
            else:
                mod = node.module or ""
            found.add(mod)
            found.update(f"{mod}.{a.name}" for a in node.names)
    return found


def _files(pkg: str) -> list[Path]:
    return sorted((ROOT / pkg).rglob("*.py"))


def _ours(name: str) -> bool:
    return name.split(".")[0] == "chickenfoot"


def _violations(pkg: str, allowed_ours: tuple[str, ...], extra_check=None) -> list[str]:
    bad = []
    for f in _files(pkg):
        for name in _imports(f):
            if _ours(name) and not name.startswith(allowed_ours):
                bad.append(f"{f.relative_to(ROOT)} imports {name}")
            if extra_check:
                bad.extend(extra_check(f, name))
    return bad


def test_rules_core_imports_only_stdlib_and_itself():
    def stdlib_only(f: Path, name: str) -> list[str]:
        top = name.split(".")[0]
        if top and not _ours(name) and top not in STDLIB and top != "__future__":
            return [f"{f.relative_to(ROOT)} imports third-party {name}"]
        return []

    assert _violations("companion/rules", ("chickenfoot.rules",), stdlib_only) == []


def test_match_imports_rules_only():
    if not (ROOT / "companion/match").exists():
        pytest.skip("companion/match not built yet")
    assert _violations("companion/match", ("chickenfoot.rules", "chickenfoot.match")) == []


def test_storage_sits_on_match():
    if not (ROOT / "companion/storage").exists():
        pytest.skip("companion/storage not built yet")
    allowed = ("chickenfoot.rules", "chickenfoot.match", "chickenfoot.storage")
    assert _violations("companion/storage", allowed) == []


def test_board_draws_from_the_rules_core_alone():
    """The drawing is shared by the app and the CLI: it sits on the rules core, and the layers
    the scorekeeper is built from never draw."""
    assert _violations("companion/board", ("chickenfoot.rules", "chickenfoot.board")) == []
    bad = [f"{f.relative_to(ROOT)} imports {n}" for pkg in ("companion/rules", "companion/match", "companion/storage")
           for f in _files(pkg) for n in _imports(f) if n.startswith("chickenfoot.board")]
    assert bad == []


def test_practice_sits_on_the_scorekeeper_and_the_board():
    allowed = ("chickenfoot.rules", "chickenfoot.match", "chickenfoot.board", "chickenfoot.practice")
    assert _violations("companion/practice", allowed) == []
    bad = [f"{f.relative_to(ROOT)} imports {n}"
           for pkg in ("companion/rules", "companion/match", "companion/storage", "companion/board")
           for f in _files(pkg) for n in _imports(f) if n.startswith("chickenfoot.practice")]
    assert bad == []


def _runtime_files() -> list[Path]:
    return [f for f in _files("vision") if "lab" not in f.relative_to(ROOT / "vision").parts]


def _module(f: Path) -> str:
    parts = _module_parts(f)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_reader_imports_only_rules_and_itself_never_the_lab():
    runtime = {_module(f) for f in _runtime_files()}
    bad = []
    for f in _runtime_files():
        for name in _imports(f):
            if name.split(".")[0] in TRAINING_ONLY:
                bad.append(f"{f.relative_to(ROOT)} imports {name} (training-only)")
            elif _ours(name) and not (name.startswith("chickenfoot.rules")
                                      or any(name == m or name.startswith(m + ".")
                                             for m in runtime - {"chickenfoot.vision"})
                                      or name == "chickenfoot.vision"):
                bad.append(f"{f.relative_to(ROOT)} imports {name}")
    assert bad == []


def test_the_lab_reads_the_reader_and_nothing_reads_the_lab():
    # the renderer and data makers read the reader, the rules and the board's pip layouts (one
    # drawing of a domino face for the app and the training data), never the lab's tools
    assert _violations("datasets", ("chickenfoot.rules", "chickenfoot.board.pips", "chickenfoot.vision")) == []
    assert [f"{f.relative_to(ROOT)} imports {n}" for f in _files("datasets") for n in _imports(f)
            if n.startswith("chickenfoot.vision.lab") and not n.startswith("chickenfoot.vision.lab.datasets")] == []
    assert _violations("vision/lab", ("chickenfoot.rules", "chickenfoot.vision")) == []
    assert [f"{f.relative_to(ROOT)} imports {n}" for f in _files("companion") for n in _imports(f)
            if n.startswith("chickenfoot.vision.lab")] == []


def _import_graph(pkgs: tuple[str, ...]) -> dict[str, set[str]]:
    """Module -> the modules of ``pkgs`` it imports (at the top or inside a function)."""
    files = [f for pkg in pkgs for f in _files(pkg)]
    modules = {_module(f) for f in files}
    graph: dict[str, set[str]] = {}
    for f in files:
        here = _module(f)
        targets = set()
        for name in _imports(f):
            while name and name not in modules:  # "chickenfoot.vision.reader.Reader" -> "chickenfoot.vision.reader"
                name = name.rpartition(".")[0]
            if name and name != here and name not in ("chickenfoot.vision", "chickenfoot.vision.lab",
                                                      "chickenfoot.vision.lab.datasets"):
                targets.add(name)
        graph[here] = targets
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_loops_in_the_reader_or_its_lab():
    assert _cycles(_import_graph(("vision", "datasets"))) == []
    # the check sees a loop where there is one
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_nothing_below_imports_app_or_cli():
    bad = []
    for pkg in ("companion/rules", "companion/match", "companion/storage", "companion/board", "companion/practice",
                "vision", "datasets"):
        if not (ROOT / pkg).exists():
            continue
        for f in _files(pkg):
            bad += [
                f"{f.relative_to(ROOT)} imports {n}"
                for n in _imports(f)
                if n.startswith(("chickenfoot.app", "chickenfoot.cli"))
            ]
    assert bad == []


def test_torch_only_in_training_code():
    bad = []
    for pkg in ("companion", "vision", "datasets"):
        for f in _files(pkg):
            if f.parent.name == "lab" and f.name.startswith("train"):
                continue
            bad += [
                f"{f.relative_to(ROOT)} imports {n}"
                for n in _imports(f)
                if n.split(".")[0] in ("torch", "torchvision", "ultralytics")
            ]
    assert bad == []


def test_app_side_runtime_never_loads_torch():
    """Importing everything the app and CLI use at run time leaves torch unloaded."""
    mods = ["chickenfoot.cli.main", "chickenfoot.rules"]
    for m in ("chickenfoot.app", "chickenfoot.match", "chickenfoot.storage", "chickenfoot.board", "chickenfoot.practice",
              "chickenfoot.vision.reader"):
        where = ROOT / "companion" / Path(*m.split(".")[1:])
        if m.startswith("chickenfoot.vision") or where.with_suffix(".py").exists() or where.is_dir():
            mods.append(m)
    code = (
        "import importlib, sys\n"
        f"for m in {mods!r}: importlib.import_module(m)\n"
        "from chickenfoot.cli.main import build_parser; build_parser()\n"
        "bad = sorted(k for k in sys.modules if k.split('.')[0] in ('torch', 'ultralytics', 'cv2'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_command_line_start_does_not_load_the_round_engine():
    """Every command builds the whole parser and most open a match: neither may pull in the
    engine, layout, bots or simulator (half of a command's start-up time before they were lazy)."""
    code = (
        "import sys, chickenfoot.cli.main as m, chickenfoot.match, chickenfoot.storage\n"
        "m.build_parser()\n"
        "import chickenfoot.rules as r\n"
        "r.get_rules(); r.Tile.parse('3-4'); r.decide_winners\n"
        "print(sorted(n for n in sys.modules if n.startswith('chickenfoot.rules.')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    loaded = set(eval(out.stdout))
    assert not loaded & {f"chickenfoot.rules.{m}" for m in ("engine", "layout", "bots", "simulate", "plays")}, loaded
    # and the lazy package still gives every public name
    import chickenfoot.rules as rules

    assert all(hasattr(rules, name) for name in rules.__all__)
    with pytest.raises(AttributeError):
        _ = rules.no_such_name
