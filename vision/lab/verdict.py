"""A photo judged as a player judges it: by its headline.

A player reads one thing off a photo: the penalty shown and whether anything is left to check
(:meth:`chickenfoot.vision.reading.Reading.headline`: "penalty 23", or "penalty at least 23, 2
to check" while tiles are open, a 0-0-or-back question among them). Against a photo's true
tiles that headline is one of:

* **right**: nothing to check, and the penalty shown is the true one. The only outcome that
  counts as right.
* **asked**: something to check, and the penalty counted so far (the sure tiles; the open ones
  are not in it) does not exceed the truth, so "at least N" is true and the true penalty is
  still reachable by checking. A photo where nothing at all was read ("nothing read", which
  the app never makes a 0-point hand: it asks whether the player went out or takes another
  photo) is asked when it holds a face-up tile, and right when it holds none. Of those, **pointed** photos are the ones where checking the
  tiles asked about is enough: every sure tile is a true tile (by value) and the true tiles
  not among them are no more than the tiles left open. An asked photo that is not pointed
  asks about one tile while another, sure one is wrong or missing: the player who settles the
  question still ends with a wrong penalty, so it is counted as asked but shown apart.
* **wrong, nothing asked**: nothing to check, and the penalty shown is not the true one: a
  player has no reason to look.
* **wrong, though asked**: something to check, but the sure tiles alone already exceed the
  true penalty: the "at least" is false, and no check of the open tiles brings it down.

A photo's headline is the reading's own (:attr:`Reading.penalty`, :attr:`Reading.to_check`),
recomputed with :meth:`Reading.scored` over the tiles in the labelled part of the photo where
the labels cover only part of it (a play area, a playing grid); finds outside that part are
counted apart (:attr:`Verdict.outside_counted`), never against the photo.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from chickenfoot.rules import Tile
from chickenfoot.rules.ruleset import RuleSet
from chickenfoot.vision.geometry import OrientedBox
from chickenfoot.vision.reading import Reading, TileReading

RIGHT = "right"
ASKED = "asked"
WRONG_SILENT = "wrong, nothing asked"
WRONG_ASKED = "wrong, though asked"
#: Every outcome, in the order the tables print them.
OUTCOMES = (RIGHT, ASKED, WRONG_SILENT, WRONG_ASKED)


@dataclass(frozen=True)
class Verdict:
    """One photo's headline against its truth."""

    rel: str  # the photo, relative to the realdata folder
    mode: str  # "colour" | "grey"
    outcome: str  # one of OUTCOMES
    true_penalty: int
    shown_penalty: int  # the sure tiles' penalty: what the headline shows
    to_check: int  # tiles left open (flagged or asked about)
    questions: int  # of them, tiles the reader asks a question about (0-0 or back?)
    headline: str
    truth: tuple[Tile, ...]
    #: Whether checking the open tiles alone can reach the truth (only meaningful when asked).
    pointed: bool = True
    #: Finds outside the labelled part of the photo: counted as tiles, and left open.
    outside_counted: int = 0
    outside_open: int = 0

    @property
    def blank_double(self) -> bool:
        """Whether a face-up 0-0 is among the true tiles."""
        return Tile(0, 0) in self.truth

    @property
    def wrong(self) -> bool:
        return self.outcome in (WRONG_SILENT, WRONG_ASKED)

    def describe(self) -> str:
        """One line for a report: the photo, its truth and what was shown."""
        tiles = " ".join(str(t) for t in sorted(self.truth)) or "no face-up tile"
        return (f"{self.rel} [{self.mode}]: {self.outcome}; true penalty {self.true_penalty} ({tiles}); "
                f"shown \"{self.headline}\"")


def scoped(reading: Reading, rules: RuleSet, inside: Callable[[OrientedBox], bool] | None
           ) -> tuple[Reading, list[TileReading]]:
    """The reading of the labelled part of the photo (tiles and possible tiles whose box
    ``inside`` accepts, headline recomputed by :meth:`Reading.scored`) and the tiles outside it;
    the reading itself and none when ``inside`` is None."""
    if inside is None:
        return reading, []
    keep = [t for t in reading.tiles if t.box is None or inside(t.box)]
    out = [t for t in reading.tiles if t.box is not None and not inside(t.box)]
    cands = [t for t in reading.candidates if t.box is None or inside(t.box)]
    backs = [b for b in reading.backs if inside(b)]
    part = Reading.scored(keep, cands, rules, reading.image_size, reading.warnings, len(backs), backs)
    return part, out


def judge(reading: Reading, truth: Iterable[tuple[int, int]] | Iterable[Tile], rules: RuleSet, rel: str = "",
          mode: str = "colour", outside: Iterable[TileReading] = (), nothing_read: bool | None = None) -> Verdict:
    """The verdict on ``reading`` (already scoped to the labelled part) for these true tiles.
    ``nothing_read``: whether no tile at all was read in the whole photo (default: in
    ``reading``); the photo is then right when it holds no face-up tile, else asked."""
    true_tiles = tuple(t if isinstance(t, Tile) else Tile(*t) for t in truth)
    true_pen = rules.penalty(true_tiles)
    n_open = reading.to_check
    if nothing_read is None:
        nothing_read = not reading.tiles
    if nothing_read:
        outcome = ASKED if true_tiles else RIGHT
    elif not n_open:
        outcome = RIGHT if reading.penalty == true_pen else WRONG_SILENT
    else:
        outcome = ASKED if reading.penalty <= true_pen else WRONG_ASKED
    sure = Counter(t.tile for t in reading.tiles if t.sure)
    left = Counter(true_tiles)
    left.subtract(sure)
    pointed = all(v >= 0 for v in left.values()) and sum(left.values()) <= n_open
    outside = list(outside)
    # a labelled part where nothing was read, of a photo read elsewhere, adds its 0 points
    headline = reading.headline() if nothing_read or reading.tiles else f"penalty {reading.penalty}"
    return Verdict(rel, mode, outcome, true_pen, reading.penalty, n_open, len(reading.questions), headline,
                   true_tiles, pointed, sum(t.counted and not t.open for t in outside), sum(t.open for t in outside))


@dataclass
class VerdictTally:
    """The verdicts of one source in one mode."""

    verdicts: list[Verdict] = field(default_factory=list)

    def add(self, v: Verdict) -> None:
        self.verdicts.append(v)

    def count(self, outcome: str, blank_double: bool | None = None) -> int:
        return sum(v.outcome == outcome and (blank_double is None or v.blank_double == blank_double)
                   for v in self.verdicts)

    def figures(self) -> dict[str, Any]:
        n = len(self.verdicts)
        return {
            "photos": n,
            **{o: self.count(o) for o in OUTCOMES},
            "asked_pointed": sum(v.outcome == ASKED and v.pointed for v in self.verdicts),
            "blank_double_photos": sum(v.blank_double for v in self.verdicts),
            "blank_double": {o: self.count(o, True) for o in OUTCOMES},
            "to_check": sum(v.to_check for v in self.verdicts),
            "questions": sum(v.questions for v in self.verdicts),
            "to_check_per_photo": sum(v.to_check for v in self.verdicts) / n if n else None,
            "outside_photos": sum(bool(v.outside_counted) for v in self.verdicts),
            "outside_counted": sum(v.outside_counted for v in self.verdicts),
            "outside_open": sum(v.outside_open for v in self.verdicts),
            "wrong_photos": [v.describe() for v in self.verdicts if v.wrong],
            "asked_photos": [v.describe() for v in self.verdicts if v.outcome == ASKED],
        }


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% (Wilson score) interval of a share seen as ``k`` of ``n``: where the share for
    photos like these lies. On 36 photos, 30 right is 68-92%: a change of two or three photos
    is within it."""
    if n <= 0:
        return 0.0, 1.0
    p, q = k / n, z * z / n
    centre, half = (p + q / 2) / (1 + q), z * math.sqrt(p * (1 - p) / n + q / (4 * n)) / (1 + q)
    return max(0.0, centre - half), min(1.0, centre + half)


def verdict_table(rows: list[tuple[str, VerdictTally]]) -> str:
    """Per source: photos right with nothing to check (and the 95% interval of that share,
    :func:`wilson`), asked (of them, pointed at what is wrong), wrong with nothing asked, wrong
    though asked; the same for the photos with a face-up 0-0; tiles to check per photo
    (0-0-or-back questions among them); and finds outside the labelled part counted as sure
    tiles, per photo (in how many photos)."""
    head = (f"{'source':<34} {'photos':>6} {'right':>11} {'(95%)':>9} {'asked (ptd)':>11} {'wrong,silent':>12} "
            f"{'wrong,asked':>11} {'0-0: n  R/A/W/WA':>18} {'check/photo':>11} {'(0-0?)':>6} {'outside/photo':>13}")
    lines = [head, "-" * len(head)]
    for label, t in rows:
        f = t.figures()
        n = f["photos"]
        if not n:
            continue
        z = f["blank_double"]
        zeros = f"{f['blank_double_photos']:>3}  {z[RIGHT]}/{z[ASKED]}/{z[WRONG_SILENT]}/{z[WRONG_ASKED]}"
        out = f"{f['outside_counted'] / n:.1f} ({f['outside_photos']})" if f["outside_counted"] else "-"
        lo, hi = wilson(f[RIGHT], n)
        lines.append(
            f"{label[:34]:<34} {n:>6} {f[RIGHT]:>4} {100 * f[RIGHT] / n:>5.1f}% {f'{100 * lo:.0f}-{100 * hi:.0f}%':>9} "
            f"{f[ASKED]:>4} ({f['asked_pointed']:>2})  {f[WRONG_SILENT]:>12} {f[WRONG_ASKED]:>11} "
            f"{zeros:>18} {f['to_check_per_photo']:>11.2f} {f['questions']:>6} {out:>13}"
        )
    return "\n".join(lines)


#: Kinds of sample (:class:`chickenfoot.vision.lab.realdata.Sample`) whose labels give every
#: face-up tile of the photo (or of its labelled part): a per-photo truth to judge a headline by.
PER_PHOTO_KINDS = ("list", "boxes-aabb", "boxes-oriented")


def judge_sample(sample: Any, reading: Reading, rules: RuleSet, mode: str) -> tuple[Verdict, Reading]:
    """The verdict on a labelled real photo's reading (:data:`PER_PHOTO_KINDS`), and the
    reading of its labelled part that it judged."""
    part, outside = scoped(reading, rules, sample.labelled_part(reading.image_size))
    return judge(part, sample.tiles, rules, sample.rel, mode, outside, not reading.tiles), part
