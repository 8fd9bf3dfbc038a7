"""The stages between detect and the policy: crop and read halves, judge, and the extra looks
at halves (box search, second opinion, steadiness). Each is a function of the finds so far, in working
pixels, returning them measured further; none decides what counts (:mod:`chickenfoot.vision.policy`
does, once, at the end).

The finds are :class:`~chickenfoot.vision.detections.Detections` of the detector's face-up class
carrying, in ``data``: ``row`` (the detection each came from), ``probs`` (two rows of the half
reader's probabilities a find, half A then B), ``choice`` (the class chosen for each half),
``crops`` (the half crops read, when a second opinion may be asked), ``divider`` (whether a
divider shows across its middle: 1, 0, or -1 not measured yet) and ``ask`` (it reads 0-0 and
shows no divider, so it may be a back: the extra looks leave it as it is, since a back's box
moved, or its blank halves read again, reads pips).

A face's cue is its divider, the bar across its middle; a back has none
(:func:`is_back` for a find read 0-0, :func:`divider_near` for one with pips). The judge measures it where the policy will need it: on finds read 0-0, on
finds whose half looks like print, and on finds read too unsurely to count.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from PIL import Image

from .config import ReaderConfig
from .detect import TILE_CLASS
from .detections import Detections
from .geometry import OrientedBox, divider_colour_contrast, divider_contrast, divider_span, divider_wander
from .halves import NOT_PIPS, HalfReader, SecondOpinion, choose_values, half_sureness
from .policy import Find, blank_verdict
from .reading import Reason

#: ``data["divider"]`` of a find not measured yet.
UNMEASURED = -1


def flat(read: Detections, key: str) -> np.ndarray:
    """``read.data[key]`` with one row a half (half A, then B, tile by tile)."""
    arr = read.data[key]
    return arr.reshape(2 * len(read), *arr.shape[2:])


def with_halves(tiles: Detections, probs: np.ndarray, choice: np.ndarray, crops: np.ndarray | None) -> Detections:
    """``tiles`` carrying half rows ``probs``, ``choice`` (and ``crops``), two a tile."""
    n = len(tiles)
    data = {"probs": probs.reshape(n, 2, probs.shape[-1]), "choice": choice.reshape(n, 2)}
    if crops is not None:
        data["crops"] = crops.reshape(n, 2, *crops.shape[1:])
    return tiles.with_data(**data)


# --------------------------------------------------------------------------- crop, read halves
def face_up_finds(dets: Detections) -> Detections:
    """The detections of the face-up class, each with the detection it came from as ``row``."""
    finds = dets.with_data(row=np.arange(len(dets)))
    return finds[finds.class_id == TILE_CLASS]


def read_halves(image: Image.Image, finds: Detections, halves: HalfReader, c: ReaderConfig, top: int | None,
                keep_crops: bool = False) -> Detections:
    """``finds`` with both halves cut (crop) and read (``probs``, ``choice``; ``crops`` with
    ``keep_crops``), nothing judged yet."""
    batch = halves.crop(image, finds, c.crop_size, c.crop_pad)
    probs = halves.classify(batch)
    choice = choose_values(probs, halves.values, top)
    n = len(finds)
    read = with_halves(finds, probs, choice, batch if keep_crops else None)
    return read.with_data(divider=np.full(n, UNMEASURED, np.int8), ask=np.zeros(n, bool))


# --------------------------------------------------------------------------- judge
def is_back(image: Image.Image, box: OrientedBox, c: ReaderConfig) -> bool:
    """Whether a find's middle shows no divider: too little contrast (``blank_divider_min``)
    and no coloured line across it (``blank_colour_min``: an orange divider on a grey face), or
    a line that strays from straight (``blank_wander_max``: lettering or a logo across a
    printed back's middle)."""
    if c.blank_divider_min > 0 and divider_contrast(image, box) < c.blank_divider_min and not (
            c.blank_colour_min > 0 and divider_colour_contrast(image, box) >= c.blank_colour_min
            and divider_span(image, box) >= c.blank_colour_span_min):
        return True
    return c.blank_wander_max > 0 and divider_wander(image, box) > c.blank_wander_max


#: Where :func:`divider_near` looks for a divider: shifts of the box along its axis, in lengths.
DIVIDER_SHIFTS = (0.0, -0.06, 0.06, -0.12, 0.12)
#: How strongly a divider on a face with pips stands out across the tile's width, at least
#: (:func:`chickenfoot.vision.geometry.divider_span`: its contrast in three columns of four): a
#: line from edge to edge gives 0.4-0.9; a box astride the ends of two tiles about 0.2.
DIVIDER_SPAN_MIN = 0.3


def divider_near(image: Image.Image, box: OrientedBox, c: ReaderConfig) -> bool:
    """Whether a divider crosses a face with pips near its box's middle: a line that stands out
    (``blank_divider_min``) across the tile (:data:`DIVIDER_SPAN_MIN`) at one of
    :data:`DIVIDER_SHIFTS`. (The straightness test of :func:`is_back` is for blank faces:
    pips beside a divider make it wander.) A find set apart with a box off its tile's middle
    still shows its divider; a back shows none."""
    u = box.axes()[0]
    for k in DIVIDER_SHIFTS:
        step = k * box.length
        moved = OrientedBox(box.cx + u[0] * step, box.cy + u[1] * step, box.length, box.width, box.angle)
        if (divider_contrast(image, moved) >= c.blank_divider_min
                and divider_span(image, moved) >= DIVIDER_SPAN_MIN):
            return True
    return False


def judges_dividers(c: ReaderConfig) -> bool:
    return c.blank_divider_min > 0 or c.blank_wander_max > 0


def not_pips_of(finds: Detections, values: np.ndarray) -> np.ndarray | None:
    """Each find's two halves' probabilities of being no face's half ``(n, 2)``; None when the
    half reader has no such class."""
    x = values == NOT_PIPS
    if not np.any(x):
        return None
    return finds.data["probs"][:, :, x].sum(-1)


def double_blank(finds: Detections, values: np.ndarray) -> np.ndarray:
    return values[finds.data["choice"]].max(1) == 0


def judge(image: Image.Image, finds: Detections, values: np.ndarray, c: ReaderConfig,
          everything: bool = True) -> Detections:
    """``finds`` with the divider measured where it is not yet and the policy needs it: on
    finds read 0-0 and, with ``everything``, on finds whose half looks like print or that are
    read too unsurely to count. ``ask`` marks finds read 0-0 that may be backs
    (:func:`chickenfoot.vision.policy.blank_verdict`)."""
    if not len(finds) or not judges_dividers(c):
        return finds
    divider, ask = finds.data["divider"].copy(), finds.data["ask"].copy()
    blank = double_blank(finds, values)
    need = blank.copy()
    np_ = not_pips_of(finds, values)
    if everything:
        sure, least = half_sureness(flat(finds, "probs"), flat(finds, "choice"), values)
        need |= finds.confidence * sure < c.count_conf
        if least is not None:
            need |= least >= c.not_pips_max
    boxes = finds.oriented_boxes()
    for i in np.flatnonzero(need & (divider == UNMEASURED)):
        shows = not is_back(image, boxes[i], c) if blank[i] else divider_near(image, boxes[i], c)
        divider[i] = 1 if shows else 0
    for i in range(len(finds)):
        if divider[i] != UNMEASURED:
            verdict = blank_verdict(bool(divider[i]), None if np_ is None else tuple(np_[i]), c.not_pips_max)
            ask[i] = bool(blank[i]) and verdict is not None
    return finds.with_data(divider=divider, ask=ask)


def _left_alone(finds: Detections) -> np.ndarray:
    """Finds the extra looks leave as they are: read 0-0 with no divider (most are backs)."""
    return finds.data["ask"] if "ask" in finds.data else np.zeros(len(finds), bool)


# --------------------------------------------------------------------------- extra looks at halves
def search(image: Image.Image, finds: Detections, halves: HalfReader, c: ReaderConfig,
           top: int | None) -> Detections:
    """The box search stage (:func:`search_boxes`): a find moved is judged again where it
    now lies, and its crops are cut again for a second opinion."""
    if not len(finds):
        return finds
    before = finds.boxes.copy()
    moved_finds, probs, choice = search_boxes(image, finds, flat(finds, "probs"), flat(finds, "choice"),
                                              halves, c, top)
    shifted = np.any(moved_finds.boxes != before, axis=1)
    if not np.any(shifted):
        return finds
    crops = None
    if "crops" in finds.data:
        crops = flat(finds, "crops").copy()
        crops[_half_rows(np.flatnonzero(shifted))] = halves.crop(image, moved_finds[shifted], c.crop_size, c.crop_pad)
    out = with_halves(moved_finds, probs, choice, crops)
    divider = out.data["divider"].copy()
    divider[shifted] = UNMEASURED
    return out.with_data(divider=divider)


def search_boxes(image: Image.Image, tiles: Detections, probs: np.ndarray, choice: np.ndarray,
                 halves: HalfReader, c: ReaderConfig, top: int | None) -> tuple[Detections, np.ndarray, np.ndarray]:
    """``tiles``, their half probabilities and chosen classes (two rows a tile), with each tile
    read less surely than ``search_below`` moved to the box of ``search_shifts`` its halves are
    read surest from, when that beats its own. The detector's boxes sit a few hundredths of a
    length off along the axis, and a half cut from such a box shows part of the next half."""
    if c.search_below <= 0 or not c.search_shifts or not len(tiles):
        return tiles, probs, choice
    sure, not_pips = half_sureness(probs, choice, halves.values)
    # a find that may be a back keeps its box and reading: moved, a back's box reads pips
    weak = np.flatnonzero((tiles.confidence * sure < c.search_below) & ~_left_alone(tiles)
                          & (True if not_pips is None else not_pips < c.not_pips_max))
    if not len(weak):
        return tiles, probs, choice
    shifts = np.asarray(c.search_shifts, np.float64)
    rows = np.repeat(tiles.boxes[weak].astype(np.float64), len(shifts), axis=0)
    step = np.tile(shifts, len(weak)) * rows[:, 2]
    rows[:, 0] += np.cos(rows[:, 4]) * step
    rows[:, 1] += np.sin(rows[:, 4]) * step
    moved = Detections(rows.astype(np.float32), np.ones(len(rows), np.float32), np.zeros(len(rows), np.int64))
    tried = halves.classify(halves.crop(image, moved, c.crop_size, c.crop_pad))
    tried_choice = choose_values(tried, halves.values, top)
    tried_sure, tried_np = half_sureness(tried, tried_choice, halves.values)
    if tried_np is not None:  # never a box whose half looks like print
        tried_sure = np.where(tried_np < c.not_pips_max, tried_sure, -1.0)
    tried_sure = tried_sure.reshape(len(weak), len(shifts))
    best = tried_sure.argmax(1)
    better = tried_sure[np.arange(len(weak)), best] > sure[weak]
    if not np.any(better):
        return tiles, probs, choice
    boxes, probs, choice = tiles.boxes.copy(), probs.copy(), choice.copy()
    for i, k in zip(weak[better], (np.arange(len(weak)) * len(shifts) + best)[better], strict=True):
        boxes[i] = rows[k]
        probs[2 * i : 2 * i + 2] = tried[2 * k : 2 * k + 2]
        choice[2 * i : 2 * i + 2] = tried_choice[2 * k : 2 * k + 2]
    return Detections(boxes, tiles.confidence, tiles.class_id, tiles.data), probs, choice


def second_opinion(image: Image.Image, finds: Detections, halves: HalfReader, second: SecondOpinion | None,
                   c: ReaderConfig, top: int | None) -> Detections:
    """``finds`` with the halves the 0-12 classifier was unsure of read again with ``second``,
    on each find where it decides: a find it would leave under ``count_conf`` keeps its
    reading (the box search and the second look, which look again at finds in doubt, have run
    already; letting the opinion drop such finds left more tiles uncounted than it put right),
    and a find that only now reads 0-0 is judged again."""
    if second is None or not len(finds):
        return finds
    old_probs, old_choice = flat(finds, "probs"), flat(finds, "choice")
    # a find that may be a back keeps its reading: a second reading may take a back's halves for pips
    unsure = np.flatnonzero((old_probs.max(1) < second.below).reshape(-1, 2).any(1) & ~_left_alone(finds))
    if not len(unsure):
        return finds
    rows = _half_rows(unsure)
    batch = flat(finds, "crops")[rows] if "crops" in finds.data else halves.crop(
        image, finds[unsure], c.crop_size, c.crop_pad)
    probs, choice = old_probs.copy(), old_choice.copy()
    probs[rows] = second(batch, old_probs[rows], halves.values)
    choice[rows] = choose_values(probs[rows], halves.values, top)
    det = finds.confidence.astype(np.float64)
    was_sure = det * half_sureness(old_probs, old_choice, halves.values)[0] >= c.count_conf
    now_sure = det * half_sureness(probs, choice, halves.values)[0] >= c.count_conf
    undo = _half_rows(np.flatnonzero(was_sure & ~now_sure))
    probs[undo], choice[undo] = old_probs[undo], old_choice[undo]
    out = with_halves(finds, probs, choice, None)
    was = double_blank(finds, halves.values)
    now = double_blank(out, halves.values)
    divider = out.data["divider"].copy()
    divider[now & ~was] = UNMEASURED
    return out.with_data(divider=divider)


#: The boxes a find is read again from (:func:`steadiness`), as (along, across): moved along its
#: axis by 4% of its length and across it by 6% of its width, each way: about the detector's own
#: box errors (datasets/reader_train.yaml). With its own box, five readings of each half.
STEADY_JITTER = ((0.04, 0.0), (-0.04, 0.0), (0.0, 0.06), (0.0, -0.06))
#: A photo with more finds to read again than this is a hard photo: its flags stay, and reading
#: them all again would cost more than a photo's halves do (0.3 ms a half crop here).
STEADY_MOST = 4


def jittered(boxes: np.ndarray) -> np.ndarray:
    """Rows (cx, cy, length, width, angle): each box of ``boxes`` as the :data:`STEADY_JITTER`
    moves it, box by box."""
    j = np.asarray(STEADY_JITTER, np.float64)
    b = np.repeat(np.asarray(boxes, np.float64), len(j), axis=0)
    along, across = np.tile(j[:, 0], len(boxes)), np.tile(j[:, 1], len(boxes))
    cos, sin = np.cos(b[:, 4]), np.sin(b[:, 4])
    out = b.copy()
    out[:, 0] += cos * along * b[:, 2] - sin * across * b[:, 3]
    out[:, 1] += sin * along * b[:, 2] + cos * across * b[:, 3]
    return out


def steadiness(image: Image.Image, finds: Detections, which: Sequence[int], halves: HalfReader,
               second: SecondOpinion | None, c: ReaderConfig) -> Detections:
    """The steadiness stage: the finds at ``which`` (those the policy would flag low) read again
    from the boxes of :data:`STEADY_JITTER`, with the second opinion as first read. ``data``
    gains ``steady``: per find, the lesser of its two halves' mean probability of the value it
    was read as, over its own box and the moved ones, and the least such probability in any of
    them (NaN: not measured). A misread half rarely keeps its value when its box moves a
    little; a right one does."""
    steady = np.full((len(finds), 2), np.nan)
    which = np.asarray(which, np.int64)
    if c.steady_conf <= 0 or not len(which):
        return finds.with_data(steady=steady)
    rows = jittered(finds.boxes[which])
    moved = Detections(rows.astype(np.float32), np.ones(len(rows), np.float32), np.zeros(len(rows), np.int64))
    batch = halves.crop(image, moved, c.crop_size, c.crop_pad)
    again = halves.classify(batch)
    if second is not None:
        again = second(batch, again, halves.values)
    n = len(STEADY_JITTER)
    choice = finds.data["choice"][which]  # (finds, 2) classes read
    own = np.take_along_axis(finds.data["probs"][which], choice[:, :, None], axis=2)[:, :, 0]
    read = np.repeat(choice, n, axis=0)
    k = np.arange(len(read))
    p = np.stack([again[0::2][k, read[:, 0]], again[1::2][k, read[:, 1]]], 1).reshape(len(which), n, 2)
    p = np.concatenate([own[:, None, :], p], axis=1)
    steady[which, 0] = p.mean(1).min(1)
    steady[which, 1] = p.min(axis=(1, 2))
    return finds.with_data(steady=steady)


# --------------------------------------------------------------------------- second look
def read_added(image: Image.Image, finds: Detections, dets: Detections, merged: Detections,
               halves: HalfReader, c: ReaderConfig, top: int | None, keep_crops: bool = False) -> Detections | None:
    """``finds`` (from ``dets``) for ``merged``, ``dets`` with what a second look added: the
    finds kept keep their measures, and the face-up boxes added are read as the first look's
    were (crop, read halves, judge the 0-0s, box search); None when it added none."""
    index = {row.tobytes(): i for i, row in enumerate(dets.boxes)}
    from_old = np.array([index.get(row.tobytes(), -1) for row in merged.boxes], np.int64)
    added = np.flatnonzero(from_old < 0)
    if not len(added):
        return None
    place = np.full(len(dets), -1, np.int64)  # where each box of dets is in merged, if kept
    place[from_old[from_old >= 0]] = np.flatnonzero(from_old >= 0)
    kept = finds[place[finds.data["row"]] >= 0]
    extra = face_up_finds(merged[added])
    extra = read_halves(image, extra, halves, c, top, keep_crops)
    extra = search(image, judge(image, extra, halves.values, c, everything=False), halves, c, top)
    joined = Detections.concat([kept, extra])
    rows = np.concatenate([place[kept.data["row"]], added[extra.data["row"]]])
    return joined.with_data(row=rows)


# --------------------------------------------------------------------------- to the policy
def finds_of(finds: Detections, values: np.ndarray, to_original: float) -> list[Find]:
    """The finds as the policy takes them (boxes in the original photo's pixels)."""
    if not len(finds):
        return []
    probs, choice = flat(finds, "probs"), flat(finds, "choice")
    x = values == NOT_PIPS
    pips = probs if not np.any(x) else np.where(x[None, :], 0.0, probs)
    pips = pips / np.maximum(pips.sum(1, keepdims=True), 1e-12)
    picked = pips[np.arange(len(pips)), choice].reshape(-1, 2)
    chosen = values[choice].reshape(-1, 2)
    np_ = not_pips_of(finds, values)
    divider = finds.data.get("divider", np.full(len(finds), UNMEASURED))
    steady = finds.data.get("steady", np.full((len(finds), 2), np.nan))
    out = []
    for i, box in enumerate(finds.scaled(to_original).oriented_boxes()):
        out.append(Find(int(chosen[i, 0]), int(chosen[i, 1]), box, float(finds.confidence[i]),
                        (float(picked[i, 0]), float(picked[i, 1])),
                        None if np_ is None else (float(np_[i, 0]), float(np_[i, 1])),
                        None if divider[i] == UNMEASURED else bool(divider[i]),
                        None if np.isnan(steady[i, 0]) else (float(steady[i, 0]), float(steady[i, 1]))))
    return out


def face_up(image: Image.Image, dets: Detections, halves: HalfReader, c: ReaderConfig
            ) -> tuple[Detections, np.ndarray, np.ndarray]:
    """The face-up finds among ``dets`` with their 0-0s judged and the backs among them left
    out, their half probabilities and crops (two rows a find): the boxes the half reader reads
    (for mining training halves)."""
    finds = judge(image, read_halves(image, face_up_finds(dets), halves, c, None, keep_crops=True),
                  halves.values, c, everything=False)
    np_ = not_pips_of(finds, halves.values)
    keep = np.array([not (f.a == f.b == 0 and blank_verdict(f.divider, None if np_ is None else tuple(np_[i]),
                                                             c.not_pips_max) is Reason.BACK)
                     for i, f in enumerate(finds_of(finds, halves.values, 1.0))], bool)
    finds = finds[keep] if len(finds) else finds
    return finds, flat(finds, "probs"), flat(finds, "crops")


def _half_rows(tiles: Sequence[int] | np.ndarray) -> np.ndarray:
    """The half rows (two a tile, A then B) of the tiles at indices ``tiles``."""
    tiles = np.asarray(tiles, np.int64)
    return np.stack([2 * tiles, 2 * tiles + 1], 1).reshape(-1)
