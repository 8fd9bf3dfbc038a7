"""The shipped reader on every labelled real photo it never trained on, judged as a player judges
a photo: by its headline (:mod:`chickenfoot.vision.lab.verdict`, the scoring of ``python -m
chickenfoot.vision.lab.evaluate``), in colour and as a grey copy.

A photo fails when it is wrong with nothing asked, or wrong though asked (its "at least N" is
over the truth); each source fails when fewer of its photos than :data:`RIGHT_FLOOR` are right
with nothing to check. Photos the shipped reader gets wrong today are listed in
:data:`KNOWN_WRONG` and marked ``xfail(strict=True)``: each fails here until it is fixed, and
then the mark must go. Sources with a file in ``reader.json``'s ``finetuned_on`` are left out
whole. Skips where ``shared/realdata`` (or ``$CHICKENFOOT_REALDATA``) is absent.
"""

from __future__ import annotations

import json
from functools import cache

import pytest

from chickenfoot.rules import get_rules
from chickenfoot.vision.config import MODELS_DIR
from chickenfoot.vision.lab.realdata import Sample, real_samples, realdata_root, source_of
from chickenfoot.vision.lab.verdict import PER_PHOTO_KINDS, RIGHT, Verdict, judge_sample

REALDATA = realdata_root()
MODES = ("colour", "gray")

#: Least photos right with nothing to check, per source and mode (the shipped reader's count;
#: raise it with the reader, never lower it to pass).
RIGHT_FLOOR: dict[str, dict[str, int]] = {
    "JackRoache__METR4202-2016": {"colour": 17, "gray": 17},
    "Ruxi12__Double-Double-Domino": {"colour": 71, "gray": 60},
    "TAK1EDD1NE__domino-tile-recognition": {"colour": 6, "gray": 6},
    "danb-dev-ui__DominoCounter": {"colour": 6, "gray": 6},
    "jeremyarde__domino-counter": {"colour": 1, "gray": 1},
}

#: (photo relative to the realdata folder, mode) -> why the shipped reader's headline is wrong.
KNOWN_WRONG: dict[tuple[str, str], str] = {
    ("Ruxi12__Double-Double-Domino/photos/1_16.jpg", "gray"):
        'wrong, nothing asked: true penalty 141, shown "penalty 145"',
    ("Ruxi12__Double-Double-Domino/photos/1_19.jpg", "gray"):
        'wrong, though asked: true penalty 200, shown "penalty at least 204, 1 to check"',
    ("Ruxi12__Double-Double-Domino/photos/2_06.jpg", "colour"):
        'wrong, nothing asked: true penalty 34, shown "penalty 31"',
    ("Ruxi12__Double-Double-Domino/photos/5_10.jpg", "gray"):
        'wrong, nothing asked: true penalty 63, shown "penalty 57"',
    ("Ruxi12__Double-Double-Domino/photos/5_17.jpg", "gray"):
        'wrong, nothing asked: true penalty 98, shown "penalty 92"',
    ("Ruxi12__Double-Double-Domino/photos/5_19.jpg", "gray"):
        'wrong, nothing asked: true penalty 109, shown "penalty 104"',
}


def _finetuned_on() -> set[str]:
    path = MODELS_DIR / "reader.json"
    return set(json.loads(path.read_text()).get("finetuned_on") or []) if path.exists() else set()


def _photos() -> list[Sample]:
    """Every labelled real photo with a per-photo truth, from sources the models never trained on."""
    if not REALDATA.is_dir():
        return []
    trained = {source_of(rel) for rel in _finetuned_on()}
    return [s for s in real_samples(REALDATA) if s.kind in PER_PHOTO_KINDS and source_of(s.rel) not in trained]


PHOTOS = _photos()
#: 136 photos read twice: about 110 s of CPU (measured with /usr/bin/time, 2-core machine).
pytestmark = pytest.mark.slow
ABSENT = pytest.mark.skip(reason=f"labelled real photos absent: {REALDATA} (put shared/realdata beside the "
                                 "checkout, or point $CHICKENFOOT_REALDATA at it)")
NO_MODELS = pytest.mark.skipif(not (MODELS_DIR / "reader.json").exists(), reason="no trained models in models/")


def _cases() -> list:
    if not PHOTOS:
        return [pytest.param(None, "colour", marks=ABSENT, id="absent")]
    cases = []
    for s in PHOTOS:
        for mode in MODES:
            why = KNOWN_WRONG.get((s.rel, mode))
            marks = [pytest.mark.xfail(strict=True, reason=why)] if why else []
            cases.append(pytest.param(s, mode, marks=marks, id=f"{s.rel}-{mode}"))
    return cases


@cache
def _reader():
    from chickenfoot.vision.reader import Reader

    return Reader.from_models_dir(None)


@cache
def verdict(rel: str, mode: str) -> Verdict:
    """The photo read by the shipped reader and judged, each (photo, mode) once per session."""
    from chickenfoot.vision.images import load_image
    from chickenfoot.vision.lab.evaluate import grey_copy

    s = next(p for p in PHOTOS if p.rel == rel)
    reader, rules = _reader(), get_rules()
    loaded = load_image(s.path, reader.config.decode_max_side)
    if mode == "gray":
        loaded = grey_copy(loaded)
    return judge_sample(s, reader.read(loaded, rules, sets=s.sets), rules, mode)[0]


@NO_MODELS
@pytest.mark.parametrize(("sample", "mode"), _cases())
def test_no_photo_is_wrong_without_asking(sample: Sample, mode: str):
    v = verdict(sample.rel, mode)
    assert not v.wrong, v.describe()


@NO_MODELS
@pytest.mark.parametrize("source", sorted({source_of(s.rel) for s in PHOTOS}) or [pytest.param(None, marks=ABSENT)])
@pytest.mark.parametrize("mode", MODES)
def test_photos_right_with_nothing_to_check_stay_at_their_floor(source: str, mode: str):
    verdicts = [verdict(s.rel, mode) for s in PHOTOS if source_of(s.rel) == source]
    right = sum(v.outcome == RIGHT for v in verdicts)
    floor = RIGHT_FLOOR[source][mode]
    assert right >= floor, (f"{source}, {mode}: {right} of {len(verdicts)} photos right with nothing to check, "
                            f"under the floor of {floor}:\n" + "\n".join(v.describe() for v in verdicts
                                                                         if v.outcome != RIGHT))
