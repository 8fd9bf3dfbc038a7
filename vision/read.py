"""Stage 3, crop and read halves: the face-up detections with both halves read.

The result is the face-up tiles among the detections, as :class:`~chickenfoot.vision.detections.Detections`
carrying their reading in ``data``: ``row`` (the detection each came from), ``probs`` (two rows
of the half reader's probabilities a tile, half A then B), ``choice`` (the class chosen for each
half), ``ask`` (it reads 0-0 but may be a face-down tile: the player is asked) and, when a second
opinion may be asked, ``crops`` (the half crops read). Detections not among them are face-down
tiles: the detector's backs, and tiles read 0-0 whose middle shows no divider and whose halves
the half reader takes for no tile's (a blank back looks like 0-0 to the half reader).

A face's cue is its divider, the bar across its middle; a back has none. A 0-0 taken for a back
costs its owner 50 points and a back taken for a 0-0 costs another player 50, so a tile that
reads 0-0 without a divider is a back only when the half reader, too, says neither half is a
face's; otherwise the reader cannot tell, and asks (:func:`blank_verdict`).
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


def face_up(image: Image.Image, dets: Detections, halves: HalfReader, c: ReaderConfig
            ) -> tuple[Detections, np.ndarray, np.ndarray]:
    """The face-up tiles among ``dets``, each with the detection it came from as ``data["row"]``
    and whether to ask if it is a back as ``data["ask"]``; their halves' probabilities and crops
    (two rows a tile). Detections of another class, and tiles read 0-0 that are backs
    (:func:`blank_verdict`), are left out."""
    tiles = dets.with_data(row=np.arange(len(dets)))
    tiles = tiles[tiles.class_id == TILE_CLASS]
    tiles = tiles.with_data(ask=np.zeros(len(tiles), bool))
    batch = halves.crop(image, tiles, c.crop_size, c.crop_pad)
    probs = halves.classify(batch)
    if c.blank_divider_min > 0 or c.blank_wander_max > 0:
        double_blank = halves.values[choose_values(probs, halves.values)].reshape(-1, 2).max(1) == 0
        ask = np.zeros(len(tiles), bool)
        blank = _backs(image, tiles.oriented_boxes(), probs, halves.values, np.flatnonzero(double_blank), ask, c)
        tiles = tiles.with_data(ask=ask)
        if len(blank):
            keep = np.setdiff1d(np.arange(len(tiles)), blank)
            tiles, probs, batch = tiles[keep], _rows(probs, keep), _rows(batch, keep)
    return tiles, probs, batch


def read_tiles(image: Image.Image, dets: Detections, halves: HalfReader, c: ReaderConfig, top: int | None,
               second: SecondOpinion | None = None) -> Detections:
    """The face-up tiles among ``dets`` (working pixels) with their halves read, each box
    searched (``search_below``). With ``second``, the crops are kept for it."""
    tiles, probs, batch = face_up(image, dets, halves, c)
    choice = choose_values(probs, halves.values, top)
    before = tiles.boxes.copy()
    tiles, probs, choice = search_boxes(image, tiles, probs, choice, halves, c, top)
    shifted = np.any(tiles.boxes != before, axis=1) if len(tiles) else np.zeros(0, bool)
    crops = None
    if second is not None:
        crops = batch
        if np.any(shifted):  # the crops of the boxes the search took
            crops[_half_rows(np.flatnonzero(shifted))] = halves.crop(image, tiles[shifted], c.crop_size, c.crop_pad)
    read = with_halves(tiles, probs, choice, crops)
    # a 0-0 on a box the search moved takes the 0-0 tests again there: the tests were taken on
    # the old box, and the new one may sit on a back's print or a cloth's pattern
    moved = np.flatnonzero((halves.values[choice].reshape(-1, 2).max(1) == 0) & shifted)
    return _judge_blank(image, read, moved, halves.values, c)


def read_added(image: Image.Image, read: Detections, dets: Detections, merged: Detections,
               halves: HalfReader, c: ReaderConfig, top: int | None,
               second: SecondOpinion | None = None) -> Detections | None:
    """``read`` (the tiles of ``dets``) for ``merged``, ``dets`` with what a second look added:
    the tiles kept keep their reading and only the boxes added are read; None when it added
    none."""
    index = {row.tobytes(): i for i, row in enumerate(dets.boxes)}
    from_old = np.array([index.get(row.tobytes(), -1) for row in merged.boxes], np.int64)
    added = np.flatnonzero(from_old < 0)
    if not len(added):
        return None
    place = np.full(len(dets), -1, np.int64)  # where each box of dets is in merged, if kept
    place[from_old[from_old >= 0]] = np.flatnonzero(from_old >= 0)
    kept = read[place[read.data["row"]] >= 0]
    extra = read_tiles(image, merged[added], halves, c, top, second)
    joined = Detections.concat([kept, extra])
    rows = np.concatenate([place[kept.data["row"]], added[extra.data["row"]]])
    return joined.with_data(row=rows)


def second_opinion_of(image: Image.Image, read: Detections, halves: HalfReader, second: SecondOpinion | None,
                      c: ReaderConfig, top: int | None) -> Detections:
    """``read`` with the halves the 0-12 classifier was unsure of read again with ``second``,
    on each tile where it decides: a counted tile it would leave under ``count_conf`` keeps its
    reading (the box search and the second look, which look again at tiles in doubt, have run
    already; letting the opinion drop such tiles left more tiles uncounted than it put
    right), and a tile that only now reads 0-0 takes the 0-0 tests."""
    if second is None or not len(read):
        return read
    old_probs, old_choice = flat(read, "probs"), flat(read, "choice")
    # a tile asked about (0-0 or back?) keeps its reading: most are backs, whose halves any
    # second reading may take for pips
    asked = read.data["ask"] if "ask" in read.data else np.zeros(len(read), bool)
    unsure = np.flatnonzero((old_probs.max(1) < second.below).reshape(-1, 2).any(1) & ~asked)
    if not len(unsure):
        return read
    rows = _half_rows(unsure)
    batch = flat(read, "crops")[rows] if "crops" in read.data else halves.crop(
        image, read[unsure], c.crop_size, c.crop_pad)
    probs, choice = old_probs.copy(), old_choice.copy()
    probs[rows] = second(batch, old_probs[rows], halves.values)
    choice[rows] = choose_values(probs[rows], halves.values, top)
    det = read.confidence.astype(np.float64)
    was_sure = det * half_sureness(old_probs, old_choice, halves.values)[0] >= c.count_conf
    now_sure = det * half_sureness(probs, choice, halves.values)[0] >= c.count_conf
    undo = _half_rows(np.flatnonzero(was_sure & ~now_sure))
    probs[undo], choice[undo] = old_probs[undo], old_choice[undo]
    double_blank = halves.values[choice].reshape(-1, 2).max(1) == 0
    was = halves.values[old_choice].reshape(-1, 2).max(1) == 0
    now = [i for i in unsure if double_blank[i] and not was[i]]
    return _judge_blank(image, with_halves(read, probs, choice, None), now, halves.values, c)


def search_boxes(image: Image.Image, tiles: Detections, probs: np.ndarray, choice: np.ndarray,
                 halves: HalfReader, c: ReaderConfig, top: int | None) -> tuple[Detections, np.ndarray, np.ndarray]:
    """``tiles``, their half probabilities and chosen classes (two rows a tile), with each tile
    read less surely than ``search_below`` moved to the box of ``search_shifts`` its halves are
    read surest from, when that beats its own. The detector's boxes sit a few hundredths of a
    length off along the axis, and a half cut from such a box shows part of the next half."""
    if c.search_below <= 0 or not c.search_shifts or not len(tiles):
        return tiles, probs, choice
    sure, not_pips = half_sureness(probs, choice, halves.values)
    # a tile asked about (0-0 or back?) keeps its box and reading: moved, a back's box reads pips
    asked = tiles.data["ask"] if "ask" in tiles.data else np.zeros(len(tiles), bool)
    weak = np.flatnonzero((tiles.confidence * sure < c.search_below) & ~asked
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


def is_back(image: Image.Image, box: OrientedBox, c: ReaderConfig) -> bool:
    """Whether a tile read 0-0 is a face-down tile after all: its middle shows too little
    divider (``blank_divider_min``) and no coloured line across it (``blank_colour_min``: an
    orange divider on a grey face), or its divider strays from a straight line
    (``blank_wander_max``: lettering or a logo across a printed back's middle). A 0-0 taken
    for a back costs its owner 50 points; a back taken for a 0-0 costs another player 50."""
    if c.blank_divider_min > 0 and divider_contrast(image, box) < c.blank_divider_min and not (
            c.blank_colour_min > 0 and divider_colour_contrast(image, box) >= c.blank_colour_min
            and divider_span(image, box) >= c.blank_colour_span_min):
        return True
    return c.blank_wander_max > 0 and divider_wander(image, box) > c.blank_wander_max


#: What :func:`blank_verdict` says of a tile read 0-0.
FACE, ASK, BACK = "face", "ask", "back"


def blank_verdict(image: Image.Image, box: OrientedBox, not_pips: tuple[float, float] | None,
                  c: ReaderConfig) -> str:
    """Whether a tile read 0-0 is a face (:data:`FACE`: its divider shows), a back
    (:data:`BACK`: no divider, and the half reader takes both halves for no face's, at least
    ``not_pips_max`` likely) or cannot be told (:data:`ASK`). ``not_pips``: each half's
    probability of not being a face's half (None for a half reader without that class)."""
    if not is_back(image, box, c):
        return FACE
    if not_pips is not None and c.not_pips_max > 0 and min(not_pips) >= c.not_pips_max:
        return BACK
    return ASK


def _not_pips_of(probs: np.ndarray, values: np.ndarray, i: int) -> tuple[float, float] | None:
    """Each half of tile ``i``'s probability of not being a face's half (None: no such class)."""
    x = values == NOT_PIPS
    if not np.any(x):
        return None
    return float(probs[2 * i, x].sum()), float(probs[2 * i + 1, x].sum())


def _backs(image: Image.Image, boxes: Sequence[OrientedBox], probs: np.ndarray, values: np.ndarray,
           which: Sequence[int] | np.ndarray, ask: np.ndarray, c: ReaderConfig) -> list[int]:
    """Judge the tiles at ``which``, each read 0-0 (:func:`blank_verdict`; their halves'
    probabilities two rows a tile in ``probs``): marks in ``ask`` those to ask about, and returns
    those that are backs."""
    backs = []
    for i in which:
        verdict = blank_verdict(image, boxes[i], _not_pips_of(probs, values, int(i)), c)
        if verdict == BACK:
            backs.append(int(i))
        ask[i] = verdict == ASK
    return backs


def _judge_blank(image: Image.Image, read: Detections, which: Sequence[int] | np.ndarray, values: np.ndarray,
                 c: ReaderConfig) -> Detections:
    """``read`` with the tiles at ``which`` (now read 0-0) judged again (:func:`blank_verdict`):
    backs dropped, the rest asked about or not."""
    if not len(which):
        return read
    ask = read.data["ask"].copy() if "ask" in read.data else np.zeros(len(read), bool)
    backs = _backs(image, read.oriented_boxes(), flat(read, "probs"), values, which, ask, c)
    return _drop(read.with_data(ask=ask), backs)


def _half_rows(tiles: np.ndarray) -> np.ndarray:
    """The half rows (two a tile, A then B) of the tiles at indices ``tiles``."""
    tiles = np.asarray(tiles, np.int64)
    return np.stack([2 * tiles, 2 * tiles + 1], 1).reshape(-1)


def _rows(halves: np.ndarray, keep: np.ndarray) -> np.ndarray:
    return halves[_half_rows(keep)]


def _drop(read: Detections, backs: list[int]) -> Detections:
    """``read`` less the tiles at ``backs`` (found to be face-down)."""
    if not backs:
        return read
    keep = np.ones(len(read), bool)
    keep[backs] = False
    return read[keep]
