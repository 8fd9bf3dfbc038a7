"""Stage 4, assemble: half probabilities to tiles, which of them count, and the warnings.

Pips and the penalty come from the rule set: the scoring stays in the rules core.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence

import numpy as np

from chickenfoot.rules import words
from chickenfoot.rules.ruleset import RuleSet
from chickenfoot.rules.tiles import Tile

from .detections import Detections, box_rows, obb_corners
from .geometry import OrientedBox, overlap_share
from .reading import Reading, TileReading, zero_or_back


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
    """Turn tile detections (working-image pixels) and their half probabilities into a reading.

    ``probs`` has two rows per detection (half A, half B); ``to_original`` scales working pixels
    to the original photo's pixels. Tiles whose combined confidence is under ``count_conf``
    become ``candidates``: shown for review, not counted. ``choice``: the class index of each
    half (default: the most likely; see :func:`chickenfoot.vision.halves.choose_values`). ``not_pips``: per detection, the probability that its less tile-like
    half is not a half of a tile (see :func:`split_not_pips`); a tile at ``not_pips_max`` or
    more is a candidate whatever its confidence. ``overlap_max``: of counted tiles that overlap
    by more than this share, only the surest set that overlaps nowhere counts (:func:`apart`);
    the rest are candidates too. ``ask``: per detection, whether it reads 0-0 but may be a
    face-down tile (:func:`chickenfoot.vision.read.face_up`): it carries the question, open until a player
    answers. ``backs``: the face-down tiles seen (original pixels); ``face_down`` counts them
    when larger.
    """
    n = len(dets)
    if probs.shape[0] != 2 * n:
        raise ValueError(f"expected {2 * n} half rows, got {probs.shape[0]}")
    tiles: list[TileReading] = []
    question = zero_or_back(rules.penalty([Tile(0, 0)]))
    if n:
        top = probs.argmax(1) if choice is None else np.asarray(choice)
        top_p = probs[np.arange(2 * n), top]
        half_vals = values[top]
        for i, box in enumerate(dets.scaled(to_original).oriented_boxes()):
            pa, pb = float(top_p[2 * i]), float(top_p[2 * i + 1])
            det = float(dets.confidence[i])
            combined = det * pa * pb
            px = None if not_pips is None else float(not_pips[i])
            # only while it still reads 0-0 (a second opinion may have read pips on it since)
            asked = ask is not None and bool(ask[i]) and int(half_vals[2 * i]) == int(half_vals[2 * i + 1]) == 0
            tiles.append(
                TileReading(
                    a=int(half_vals[2 * i]),
                    b=int(half_vals[2 * i + 1]),
                    confidence=combined,
                    box=box,
                    needs_review=combined < review_conf or asked,
                    detection_confidence=det,
                    half_confidence=(pa, pb),
                    not_pips=px,
                    question=question if asked else "",
                )
            )
    # Reading order: top to bottom, then left to right, so output is stable and easy to check.
    tiles.sort(key=lambda t: (round(t.box.cy / max(t.box.width, 1.0)), t.box.cx))

    def uncounted(t: TileReading) -> str:
        if t.not_pips is not None and t.not_pips >= not_pips_max:
            return "not pips"
        # a possible 0-0 is asked about however unsure: left out, it would cost its owner 50
        return "" if t.confidence >= count_conf or t.question else "unsure"

    judged = [dataclasses.replace(t, uncounted=uncounted(t)) for t in tiles]
    # tiles asked about keep out of the contest of overlapping reads (their confidence is no
    # reading's: most are backs) and give way to any counted tile they overlap
    counted = [k for k, t in enumerate(judged) if not t.uncounted and not t.question]
    if overlap_max > 0 and len(counted) > 1:
        keep = apart([judged[k].box for k in counted], [judged[k].confidence for k in counted], overlap_max)
        for k in np.asarray(counted)[~keep]:
            judged[k] = dataclasses.replace(judged[k], uncounted="overlap")
    if overlap_max > 0:
        kept = [judged[k] for k in counted if not judged[k].uncounted]
        for k, t in enumerate(judged):
            if t.question and not t.uncounted and any(
                    overlap_share(t.box.corners(), o.box.corners()) > overlap_max for o in kept):
                judged[k] = dataclasses.replace(t, uncounted="overlap")
    candidates = [t for t in judged if t.uncounted]
    tiles = [t for t in judged if not t.uncounted]
    tile_values = [t.tile for t in tiles if not t.question]
    warnings: list[str] = []
    if not tiles:
        warnings.append("no face-up tiles found in the photo")
    asked = sum(bool(t.question) for t in tiles)
    if asked:
        warnings.append(f"{words.count(asked, 'tile')} could be the 0-0 ({rules.penalty([Tile(0, 0)])}) or face down: "
                        "not counted until you say which")
    low = sum(t.needs_review and not t.question for t in tiles)
    if low:
        warnings.append(f"{words.count(low, 'tile')} read with low confidence: not counted until you check "
                        f"{'it' if low == 1 else 'them'}")
    unsure = sum(t.uncounted == "unsure" for t in candidates)
    if unsure:
        warnings.append(f"{words.count(unsure, 'possible tile')} too unsure to count: add any that is a tile")
    printed = sum(t.uncounted == "not pips" for t in candidates)
    if printed:
        warnings.append(f"{words.count(printed, 'possible tile')} "
                        f"{'looks' if printed == 1 else 'look'} like print or a back, not pips: "
                        "not counted; add any that is a tile")
    overlapping = sum(t.uncounted == "overlap" for t in candidates)
    if overlapping:
        warnings.append(f"{words.count(overlapping, 'possible tile')} "
                        f"{'overlaps' if overlapping == 1 else 'overlap'} a surer tile, and tiles cannot overlap: "
                        "not counted; add any that is a tile")
    for tile, count in sorted(Counter(tile_values).items()):
        if count > 1:
            warnings.append(f"{tile} read {count} times in this photo (one set has one of each)")
    face_down = max(face_down, len(backs))
    if face_down:
        warnings.append(f"{words.count(face_down, 'face-down tile')} seen and not counted")
    return Reading.scored(tiles, candidates, rules, image_size, warnings, face_down, backs)


def apart(boxes: Sequence[OrientedBox], weights: Sequence[float], max_share: float) -> np.ndarray:
    """Which of ``boxes`` to keep so that no two kept ones overlap by more than ``max_share`` of
    the smaller (:func:`chickenfoot.vision.geometry.overlap_share`): of each group of boxes that overlap, the
    set with the greatest total weight. A box astride two touching tiles loses to the two when
    they are surer together; alone against one, the surer wins. Exact for groups of up to
    ``APART_EXACT`` boxes (they rarely have more than three), greedy by weight beyond."""
    n = len(boxes)
    keep = np.ones(n, bool)
    if n < 2 or max_share <= 0:
        return keep
    w = np.asarray(weights, np.float64)
    rows = box_rows(boxes).astype(np.float64)
    corners = obb_corners(rows)
    near = np.hypot(rows[:, None, 0] - rows[None, :, 0], rows[:, None, 1] - rows[None, :, 1]) < (
        rows[:, None, 2] + rows[None, :, 2]) / 2
    adj: list[set[int]] = [set() for _ in range(n)]
    for i, j in zip(*np.nonzero(np.triu(near, 1)), strict=True):
        if overlap_share(corners[i], corners[j]) > max_share:
            adj[i].add(int(j))
            adj[j].add(int(i))
    seen: set[int] = set()
    for start in range(n):
        if start in seen or not adj[start]:
            continue
        group, stack = [], [start]
        while stack:
            u = stack.pop()
            if u not in seen:
                seen.add(u)
                group.append(u)
                stack.extend(adj[u])
        group.sort(key=lambda u: -w[u])
        if len(group) <= APART_EXACT:
            chosen = _heaviest_apart(group, adj, w)[1]
        else:
            chosen = []
            for u in group:
                if not adj[u] & set(chosen):
                    chosen.append(u)
        keep[[u for u in group if u not in chosen]] = False
    return keep


#: Largest group of overlapping boxes :func:`apart` solves exactly (2**n subsets at worst).
APART_EXACT = 14


def _heaviest_apart(nodes: list[int], adj: list[set[int]], w: np.ndarray) -> tuple[float, list[int]]:
    """The subset of ``nodes`` with no two adjacent and the greatest total weight."""
    if not nodes:
        return 0.0, []
    v, rest = nodes[0], nodes[1:]
    without = _heaviest_apart(rest, adj, w)
    if not adj[v] & set(rest):  # v overlaps none of the rest: always take it
        return without[0] + w[v], [v, *without[1]]
    taken = _heaviest_apart([u for u in rest if u not in adj[v]], adj, w)
    # on a tie the surer box (v comes first) is kept
    return (taken[0] + w[v], [v, *taken[1]]) if taken[0] + w[v] >= without[0] else without


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
