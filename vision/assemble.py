"""The reading stage: the policy's decisions (:mod:`chickenfoot.vision.policy`) turned into a
:class:`~chickenfoot.vision.reading.Reading`: the tiles counted and asked about, those set apart,
the penalty of the sure ones, and warnings that say each find's reason.

Pips and the penalty come from the rule set: the scoring stays in the rules core.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from chickenfoot.rules import words
from chickenfoot.rules.ruleset import RuleSet
from chickenfoot.rules.tiles import Tile

from .detections import Detections
from .geometry import OrientedBox
from .policy import APART_EXACT, Decision, Find, Policy, Verdict, apart, decide
from .reading import Reading, Reason, TileReading

__all__ = ["APART_EXACT", "apart", "assemble", "big_set_warning", "reading_of", "small_tiles_warning"]


def assemble(
    dets: Detections,
    probs: np.ndarray,
    values: np.ndarray,
    *,
    to_original: float,
    image_size: tuple[int, int],
    review_conf: float,
    rules: RuleSet,
    face_down: int = 0,
    count_conf: float = 0.0,
    choice: np.ndarray | None = None,
    not_pips: np.ndarray | None = None,
    not_pips_max: float = 1.0,
    overlap_max: float = 0.0,
    ask: np.ndarray | None = None,
    backs: Sequence[OrientedBox] = (),
) -> Reading:
    """The reading of tile detections (working-image pixels) and their half probabilities,
    decided by the policy (:func:`chickenfoot.vision.policy.decide`) with no divider measured.

    ``probs`` has two rows per detection (half A, half B, pip counts alone); ``to_original``
    scales working pixels to the original photo's. ``choice``: the class index of each half
    (default: the most likely). ``not_pips``: per detection, the probability that its less
    tile-like half is not pips. ``ask``: per detection, whether it reads 0-0 but may be a
    face-down tile (it is asked about while it still reads 0-0). ``backs``: the face-down tiles
    seen (original pixels); ``face_down`` counts them when larger.
    """
    n = len(dets)
    if probs.shape[0] != 2 * n:
        raise ValueError(f"expected {2 * n} half rows, got {probs.shape[0]}")
    finds: list[Find] = []
    if n:
        top = probs.argmax(1) if choice is None else np.asarray(choice)
        top_p = probs[np.arange(2 * n), top]
        half_vals = values[top]
        for i, box in enumerate(dets.scaled(to_original).oriented_boxes()):
            px = None if not_pips is None else (float(not_pips[i]),) * 2
            finds.append(Find(int(half_vals[2 * i]), int(half_vals[2 * i + 1]), box, float(dets.confidence[i]),
                              (float(top_p[2 * i]), float(top_p[2 * i + 1])), px,
                              None if ask is None or not ask[i] else False))
    policy = Policy(review_conf, count_conf, not_pips_max, overlap_max, rules.penalty([Tile(0, 0)]), hand_asks=False)
    return reading_of(finds, decide(finds, policy), rules, image_size, review_conf, backs, face_down)


def reading_of(finds: Sequence[Find], decisions: Sequence[Decision], rules: RuleSet, image_size: tuple[int, int],
               review_conf: float, backs: Sequence[OrientedBox] = (), face_down: int = 0) -> Reading:
    """The reading of ``finds`` (boxes in the original photo's pixels) as the policy decided
    them: each tile keeps its reason, and the warnings say the same reasons."""
    tiles: list[TileReading] = []
    candidates: list[TileReading] = []
    backs = list(backs)
    for f, d in zip(finds, decisions, strict=True):
        if d.reason is Reason.BACK:
            backs.append(f.box)
            continue
        t = TileReading(
            a=d.a, b=d.b, confidence=f.confidence, box=f.box,
            needs_review=d.open or (d.verdict is Verdict.APART and f.confidence < review_conf),
            detection_confidence=f.detection, half_confidence=f.halves, not_pips=f.least_pips,
            uncounted=d.reason.value if d.verdict is Verdict.APART else "", question=d.question,
            reason=d.reason.value)
        (candidates if d.verdict is Verdict.APART else tiles).append(t)

    def order(t: TileReading) -> tuple[float, float]:  # top to bottom, then left to right
        return round(t.box.cy / max(t.box.width, 1.0)), t.box.cx

    tiles.sort(key=order)
    candidates.sort(key=order)
    face_down = max(face_down, len(backs))
    return Reading.scored(tiles, candidates, rules, image_size, warnings_of(tiles, candidates, rules, face_down),
                          face_down, backs)


def warnings_of(tiles: Sequence[TileReading], candidates: Sequence[TileReading], rules: RuleSet,
                face_down: int) -> list[str]:
    """What to check, in the reasons the tiles carry: questions first, each naming its tile."""
    warnings: list[str] = []
    if not tiles:
        warnings.append("no face-up tiles found in the photo")
    zero = rules.penalty([Tile(0, 0)])
    asked = sum(t.reason == Reason.ZERO_OR_BACK for t in tiles)
    if asked:
        warnings.append(f"{words.count(asked, 'tile')} could be the 0-0 ({zero}) or face down: "
                        "not counted until you say which")
    for t in tiles:
        if t.question and t.reason != Reason.ZERO_OR_BACK:
            warnings.append(f"{t.question} ({t.reason_text}): not counted until you say")
    low = sum(t.reason == Reason.LOW for t in tiles)
    if low:
        warnings.append(f"{words.count(low, 'tile')} read with low confidence: not counted until you check "
                        f"{'it' if low == 1 else 'them'}")
    unsure = sum(t.reason == Reason.UNSURE for t in candidates)
    if unsure:
        warnings.append(f"{words.count(unsure, 'possible tile')} too unsure to count: add any that is a tile")
    printed = sum(t.reason == Reason.PRINT for t in candidates)
    if printed:
        warnings.append(f"{words.count(printed, 'possible tile')} "
                        f"{'looks' if printed == 1 else 'look'} like print or a back, not pips: "
                        "not counted; add any that is a tile")
    overlapping = sum(t.reason == Reason.OVERLAP for t in candidates)
    if overlapping:
        warnings.append(f"{words.count(overlapping, 'possible tile')} "
                        f"{'overlaps' if overlapping == 1 else 'overlap'} a surer tile, and tiles cannot overlap: "
                        "not counted; add any that is a tile")
    counted = [t.tile for t in tiles if not t.question]
    for tile, count in sorted(Counter(counted).items()):
        if count > 1:
            warnings.append(f"{tile} read {count} times in this photo (one set has one of each)")
    if face_down:
        warnings.append(f"{words.count(face_down, 'face-down tile')} seen and not counted")
    return warnings


def small_tiles_warning(reading: Reading, scale: float, small_px: float) -> tuple[str, ...]:
    """A warning to take the photo closer when its counted tiles are, by their median, shorter
    than ``small_px`` as read (``scale``: the reader's pixels per pixel of the photo; 0: none).
    Small tiles are where the reader misreads: their pips are a few pixels across."""
    if small_px <= 0 or not reading.tiles:
        return ()
    median = float(np.median([t.box.length for t in reading.tiles if t.box is not None])) * scale
    if median >= small_px:
        return ()
    return (f"the tiles are small in this photo (about {int(median)} px long as read; from {small_px:.0f} px "
            f"they read surest): a photo taken closer is counted more surely",)


def big_set_warning(top: int | None, readable: int) -> tuple[str, ...]:
    """A warning when the set in play has halves of more pips than the half reader reads."""
    if top is None or top <= readable:
        return ()
    return (f"a double-{top} set: this reader counts at most {readable} pips on a half, so "
            f"halves of {readable + 1}-{top} are misread; check them",)
