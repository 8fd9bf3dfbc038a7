"""Fuzzing the four doors input comes in by: the image loader, the reader, the scorekeeper
file loader and the layout loader (and the match import beside it).

Each target takes bytes and may only succeed or raise the project's own error
(``ChickenFootError``: one clean line at the command line); anything else is a bug. The inputs
are the regression corpus in ``corpus/`` (every crash found so far, plus good seeds), then
hypothesis mutations of the seeds: bytes flipped, cut, repeated or inserted, and for JSON, any
value of a seed document replaced by a generated one (deep, huge, of the wrong type).

The suite runs a short, derandomised pass. A long run (random, as many examples as asked)::

    CHICKENFOOT_FUZZ_EXAMPLES=20000 .venv/bin/python -m pytest tests/fuzz -q -p no:cacheprovider

A crash it finds is printed by hypothesis as the smallest input that reproduces it: save that
input under ``corpus/<target>/`` so it is replayed by every run from then on.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chickenfoot.rules.errors import ChickenFootError

CORPUS = Path(__file__).parent / "corpus"
LONG = int(os.environ.get("CHICKENFOOT_FUZZ_EXAMPLES", "0"))


def _settings(short: int) -> Callable[[Any], Any]:
    return settings(max_examples=LONG or short, deadline=None, derandomize=not LONG, database=None,
                    suppress_health_check=list(HealthCheck))


# ------------------------------------------------------------------------------ targets
def load_image_target(data: bytes, _: Path) -> None:
    from chickenfoot.vision.images import load_image

    loaded = load_image(data, 1600, name="fuzz")
    assert loaded.image.mode == "RGB" and min(loaded.size) >= 1


@cache
def _reader() -> Any:
    from chickenfoot.vision.config import MODELS_DIR
    from chickenfoot.vision.reader import Reader

    if not (MODELS_DIR / "reader.json").exists():
        pytest.skip("the shipped models are not here")
    return Reader.from_models_dir()


def reader_target(data: bytes, _: Path) -> None:
    from chickenfoot.rules import get_rules

    reading = _reader().read(data, get_rules())
    assert reading.penalty >= 0


def db_target(data: bytes, tmp: Path) -> None:
    from chickenfoot.storage import Repository

    db = tmp / "fuzz.json"
    db.write_bytes(data)
    with Repository.open(db) as repo:
        repo.list_matches()
        repo.all_matches()
        repo.check()
        repo.info()
        repo.stats()


def layout_target(data: bytes, _: Path) -> None:
    from chickenfoot.rules.layout import Layout, check_layout

    layout = Layout.from_json(data.decode("utf-8", errors="replace"), "fuzz")
    report = check_layout(layout)
    report.summary_lines()
    Layout.from_json(layout.to_json())  # what it writes, it reads back


def import_target(data: bytes, _: Path) -> None:
    from chickenfoot.match import loads_json

    loads_json(data.decode("utf-8", errors="replace"))


TARGETS: dict[str, Callable[[bytes, Path], None]] = {
    "image": load_image_target, "db": db_target, "layout": layout_target, "import": import_target,
}


def _survives(target: Callable[[bytes, Path], None], data: bytes, tmp: Path) -> None:
    try:
        target(data, tmp)
    except ChickenFootError as exc:
        message = str(exc)
        assert message and "\n" not in message.strip(), f"not one line: {message!r}"


# ------------------------------------------------------------------------------ corpus
def _corpus() -> list[Any]:
    cases = []
    for kind in sorted(TARGETS):
        for f in sorted((CORPUS / kind).iterdir()):
            cases.append(pytest.param(kind, f, id=f"{kind}/{f.name}"))
    return cases


@pytest.mark.parametrize(("kind", "path"), _corpus())
def test_every_input_in_the_corpus_is_read_or_refused_cleanly(kind: str, path: Path, tmp_path: Path) -> None:
    data = path.read_bytes()
    _survives(TARGETS[kind], data, tmp_path)
    if path.name.startswith("seed-"):
        TARGETS[kind](data, tmp_path)  # good files are read, not refused


def test_the_reader_survives_the_image_corpus() -> None:
    for f in sorted((CORPUS / "image").iterdir()):
        if not f.name.startswith("single-colour"):  # 144 MP: the loader's own case
            _survives(reader_target, f.read_bytes(), CORPUS)


# ---------------------------------------------------------------------------- mutations
@cache
def image_seeds() -> tuple[bytes, ...]:
    from PIL import Image

    out = []
    base = Image.new("RGB", (48, 32), (200, 180, 40))
    base.paste((10, 10, 10), (8, 8, 20, 20))
    for mode, fmt, extra in (("RGB", "JPEG", {}), ("RGB", "PNG", {}), ("RGBA", "PNG", {}),
                             ("P", "PNG", {"transparency": 0}), ("L", "PNG", {}), ("I;16", "PNG", {}),
                             ("RGB", "TIFF", {}), ("RGB", "WEBP", {}), ("P", "GIF", {}), ("RGB", "BMP", {}),
                             ("CMYK", "JPEG", {}), ("LA", "PNG", {})):
        buf = io.BytesIO()
        im = base.convert(mode) if mode != "I;16" else base.convert("L").convert("I;16")
        if fmt == "JPEG" and mode == "RGB":
            exif = Image.Exif()
            exif[0x0112] = 6  # rotated: the EXIF path is exercised too
            extra = {"exif": exif}
        im.save(buf, fmt, **extra)
        out.append(buf.getvalue())
    return tuple(out)


def text_seeds(kind: str) -> tuple[bytes, ...]:
    return tuple(f.read_bytes() for f in sorted((CORPUS / kind).glob("seed-*")))


@st.composite
def byte_mutations(draw: st.DrawFn, seeds: tuple[bytes, ...]) -> bytes:
    data = bytearray(draw(st.sampled_from(seeds)))
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(("flip", "set", "cut", "insert", "repeat", "truncate")))
        at = draw(st.integers(0, max(0, len(data) - 1)))
        if op == "flip" and data:
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif op == "set" and data:
            data[at] = draw(st.sampled_from((0, 0xFF, 0x7F, 0x80, ord("["), ord("9"))))
        elif op == "cut":
            del data[at:at + draw(st.integers(1, 64))]
        elif op == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=16))
        elif op == "repeat":
            data[at:at] = data[at:at + draw(st.integers(1, 32))] * draw(st.integers(1, 8))
        elif op == "truncate":
            del data[at:]
    return bytes(data)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12)
    | st.sampled_from(("9-9", "4-7", "0-0", "18-18", "x", "", "-1", "double-chicken-foot")),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@st.composite
def json_mutations(draw: st.DrawFn, seeds: tuple[bytes, ...]) -> bytes:
    """A seed document with one value (anywhere in it, inside stored JSON strings too) replaced."""
    doc = json.loads(draw(st.sampled_from(seeds)))

    def nodes(value: Any, path: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        out = [path]
        if isinstance(value, dict):
            for k, v in value.items():
                out += nodes(v, (*path, k))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                out += nodes(v, (*path, i))
        return out

    # the scorekeeper file keeps each match as JSON text: open it so its insides get mutated too
    def opened(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: opened(json.loads(v)) if k == "match" and isinstance(v, str) else opened(v)
                    for k, v in value.items()}
        return [opened(v) for v in value] if isinstance(value, list) else value

    doc = opened(doc)
    path = draw(st.sampled_from(nodes(doc, ())))
    new = draw(JSON_VALUES)
    if not path:
        doc = new
    else:
        parent = doc
        for step in path[:-1]:
            parent = parent[step]
        parent[path[-1]] = new
    if draw(st.booleans()) and isinstance(doc, dict):  # and stored back as text, as saved
        doc = {k: ({kk: ({**vv, "match": json.dumps(vv["match"])} if isinstance(vv, dict)
                         and isinstance(vv.get("match"), dict) else vv) for kk, vv in v.items()}
                   if isinstance(v, dict) else v) for k, v in doc.items()}
    return json.dumps(doc).encode()


@_settings(150)
@given(data=byte_mutations(image_seeds()))
def test_fuzz_image_loader(data: bytes) -> None:
    _survives(load_image_target, data, CORPUS)


@_settings(12)
@given(data=byte_mutations(image_seeds()))
def test_fuzz_reader(data: bytes) -> None:
    _survives(reader_target, data, CORPUS)


@pytest.mark.parametrize("kind", ["db", "layout", "import"])
def test_fuzz_json_loaders(kind: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    seeds = text_seeds(kind)
    tmp = tmp_path_factory.mktemp(f"fuzz-{kind}")

    @_settings(120)
    @given(data=byte_mutations(seeds) | json_mutations(seeds))
    def run(data: bytes) -> None:
        _survives(TARGETS[kind], data, tmp)

    run()
