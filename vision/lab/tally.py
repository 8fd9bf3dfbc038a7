"""Scoring a reading against labels: matching reads to true tiles, and the counts an evaluation
keeps per source (tile recall and precision, halves, exact tiles, totals, penalties, size bands)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from chickenfoot.rules import Tile
from chickenfoot.vision.geometry import covered_share

#: Least IoU of a read and a true tile to count as the same tile.
IOU_THRESHOLD = 0.5


def aabb_iou(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    iw = min(a[2], b[2]) - max(a[0], b[0])
    ih = min(a[3], b[3]) - max(a[1], b[1])
    if iw <= 0 or ih <= 0:
        return 0.0
    inter = iw * ih
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def greedy_match(
    n_gt: int, n_pred: int, iou: Callable[[int, int], float], threshold: float = IOU_THRESHOLD
) -> list[tuple[int, int]]:
    """Pairs (gt, pred) by descending IoU, each used once, IoU >= threshold."""
    cand = []
    for i in range(n_gt):
        for j in range(n_pred):
            v = iou(i, j)
            if v >= threshold:
                cand.append((v, i, j))
    cand.sort(reverse=True)
    used_g: set[int] = set()
    used_p: set[int] = set()
    pairs = []
    for _, i, j in cand:
        if i not in used_g and j not in used_p:
            used_g.add(i)
            used_p.add(j)
            pairs.append((i, j))
    return pairs


def match_by_value(gt: list[Tile], pred: list[Tile]) -> list[tuple[int, int]]:
    """Pair labelled and read tiles without boxes: identical tiles first, then a shared half."""
    free_g, free_p = set(range(len(gt))), set(range(len(pred)))
    pairs: list[tuple[int, int]] = []
    for rule in (lambda g, p: g == p, lambda g, p: bool({g.low, g.high} & {p.low, p.high}),
                 lambda g, p: True):
        for i in sorted(free_g):
            for j in sorted(free_p):
                if rule(gt[i], pred[j]):
                    pairs.append((i, j))
                    free_g.discard(i)
                    free_p.discard(j)
                    break
    return pairs


def half_pairs(gt: tuple[int, int], pred: tuple[int, int], oriented: bool) -> list[tuple[int, int]]:
    """(true, read) per half. Without orientation, the reading that agrees best is used."""
    direct = [(gt[0], pred[0]), (gt[1], pred[1])]
    if oriented:
        return direct
    swapped = [(gt[0], pred[1]), (gt[1], pred[0])]
    return direct if sum(a == b for a, b in direct) >= sum(a == b for a, b in swapped) else swapped


def _quad_in_rect(quad: np.ndarray, rect: tuple[float, float, float, float]) -> float:
    """Share of ``quad``'s area inside the axis-aligned ``rect`` (x0, y0, x1, y1)."""
    x0, y0, x1, y1 = rect
    return covered_share(quad, np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float))


def closeup_crop(labels: list[dict[str, Any]], size: tuple[int, int], rng: np.random.Generator,
                 min_length: float = 90.0, tries: int = 20) -> tuple[tuple[int, int, int, int], list[int]] | None:
    """A 4:3 crop (x0, y0, x1, y1) of a rendered photo in which one tile fills 55-90% of the
    long side, and the labels wholly inside it; None when every try cut another tile or no
    tile is long enough."""
    big = [i for i, lab in enumerate(labels) if float(lab["box"][2]) >= min_length]
    if not big:
        return None
    for _ in range(tries):
        i = big[int(rng.integers(len(big)))]
        quad = np.asarray(labels[i]["quad"], float)
        (qx0, qy0), (qx1, qy1) = quad.min(0), quad.max(0)
        long_side = float(labels[i]["box"][2]) / rng.uniform(0.55, 0.9)
        landscape = (qx1 - qx0) >= (qy1 - qy0)
        cw, ch = (long_side, long_side * 0.75) if landscape else (long_side * 0.75, long_side)
        if cw < qx1 - qx0 or ch < qy1 - qy0 or cw > size[0] or ch > size[1]:
            continue
        x0 = math.floor(rng.uniform(max(0.0, qx1 - cw), min(qx0, size[0] - cw)))
        y0 = math.floor(rng.uniform(max(0.0, qy1 - ch), min(qy0, size[1] - ch)))
        rect = (x0, y0, x0 + math.ceil(cw), y0 + math.ceil(ch))
        shares = [_quad_in_rect(np.asarray(lab["quad"], float), rect) for lab in labels]
        if all(v < 1e-6 or v > 1 - 1e-6 for v in shares):
            return rect, [k for k, v in enumerate(shares) if v > 0.5]
    return None


#: True tile length bands, in pixels of the photo scaled to :data:`BAND_SIDE` on its long side,
#: with the exact-tile target of each (None: reported, not targeted). Under 40 px a pip is a
#: few pixels across; the reader asks for a closer photo there (``small_tile_px``).
LENGTH_BUCKETS = ((40, "under 40 px", None), (70, "40-70 px", 0.98), (100, "70-100 px", 0.995),
                  (math.inf, "100 px and up", 0.995))
BAND_SIDE = 1280


def length_bucket(length: float) -> str:
    """The band of a tile ``length`` px long in a photo of :data:`BAND_SIDE` px on its long side."""
    return next(name for top, name, _ in LENGTH_BUCKETS if length < top)


def band_table(by_length: dict[str, list[int]]) -> str:
    """Exact tile by true tile length, with each band's share of the tiles and its target."""
    def pct(v: float | None) -> str:
        return "-" if v is None else f"{100 * v:.2f}%"

    total = sum(row[0] for row in by_length.values()) or 1
    lines = [f"{'true tile length at ' + str(BAND_SIDE) + ' px':<27}{'tiles':>7}{'share':>9}{'found':>9}"
             f"{'exact':>9}{'target':>9}"]
    for _, name, target in LENGTH_BUCKETS:
        n, found, exact = by_length.get(name, [0, 0, 0])
        lines.append(f"{name:<27}{n:>7}{pct(n / total):>9}{pct(found / n if n else None):>9}"
                     f"{pct(exact / n if n else None):>9}{pct(target) if target else 'report':>9}")
    return "\n".join(lines)


#: The kinds of tile scored apart (:func:`tile_kind`): the 0-0 costs 50 points and looks like a
#: back, blank halves beside pips were read as "not pips", doubles lie crosswise.
TILE_KINDS = ("0-0", "other doubles", "blank halves (0-x)", "the rest")


def tile_kind(tile: tuple[int, int]) -> str:
    """Which of :data:`TILE_KINDS` a true tile is."""
    a, b = tile
    if a == b:
        return TILE_KINDS[0] if a == 0 else TILE_KINDS[1]
    return TILE_KINDS[2] if 0 in (a, b) else TILE_KINDS[3]


def kind_table(by_kind: dict[str, list[int]], overall_exact: float | None) -> str:
    """Found and exact tile by kind of tile, and each kind's exact tile against the overall."""
    def pct(v: float | None) -> str:
        return "-" if v is None else f"{100 * v:.2f}%"

    lines = [f"{'tile kind':<22}{'tiles':>7}{'found':>9}{'exact':>9}{'vs all':>9}"]
    for name in TILE_KINDS:
        n, found, exact = by_kind.get(name, [0, 0, 0])
        gap = "-" if not n or overall_exact is None else f"{100 * (exact / n - overall_exact):+.2f}"
        lines.append(f"{name:<22}{n:>7}{pct(found / n if n else None):>9}{pct(exact / n if n else None):>9}{gap:>9}")
    return "\n".join(lines)


@dataclass
class Tally:
    """Counts for one source (or a pool of sources) in one colour mode."""

    name: str
    photos: int = 0
    gt_tiles: int = 0
    pred_tiles: int = 0
    matched: int = 0
    exact: int = 0
    halves: int = 0
    halves_ok: int = 0
    total_photos: int = 0
    totals_ok: int = 0
    abs_err: float = 0.0
    #: Photos whose penalty (per the rules: a 0-0 counts 50 under the default preset) came out
    #: right, and the absolute error of penalties. A 0-0 missed or invented leaves the pip total
    #: right and costs a player 50 points, so the pip total alone hides it.
    penalty_photos: int = 0
    penalties_ok: int = 0
    penalty_abs_err: float = 0.0
    confusion: Counter[tuple[int, int]] = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)
    #: (tile length band) -> [true tiles, found, read exactly]; rendered sets only.
    by_length: dict[str, list[int]] = field(default_factory=dict)
    #: Photos where a true tile under 40 px was counted, and how many of them the reader warned
    #: were of small tiles; rendered sets only.
    small_photos: int = 0
    small_photos_warned: int = 0
    #: Why true tiles were not read exactly (see :data:`LOST_REASONS`); rendered sets only.
    lost: Counter[str] = field(default_factory=Counter)
    #: "colour" / "grey" photo -> [true tiles, read exactly]; rendered sets only.
    by_colour: dict[str, list[int]] = field(default_factory=dict)
    #: Counted reads that are wrong (misread, or no tile there) and how many of them the reader
    #: flagged for review; right reads and how many were flagged anyway (the review burden).
    wrong: int = 0
    wrong_flagged: int = 0
    right: int = 0
    right_flagged: int = 0
    #: (tile kind, :data:`TILE_KINDS`) -> [true tiles, found, read exactly].
    by_kind: dict[str, list[int]] = field(default_factory=dict)
    #: Photos with tiles left open (flagged or asked about: not in the penalty until checked);
    #: photos whose total or penalty as read is wrong with nothing open (wrong, and no sign of
    #: it); photos whose penalty of sure tiles alone is over the true one (its "at least" false).
    open_photos: int = 0
    silent_wrong: int = 0
    unwarned_wrong: int = 0
    over_claimed: int = 0
    #: Tiles asked about (is it the 0-0 or face down?), right or wrong.
    asked: int = 0

    def add_kinds(self, gt: list[tuple[int, int]], found: dict[int, bool]) -> None:
        """Each true tile of ``gt`` by kind; ``found``: true index -> read exactly."""
        for i, tile in enumerate(gt):
            row = self.by_kind.setdefault(tile_kind(tile), [0, 0, 0])
            row[0] += 1
            row[1] += i in found
            row[2] += bool(found.get(i, False))

    def add_check(self, wrong: bool, open_tiles: int, over: bool, warned: bool = True, asked: int = 0) -> None:
        """One photo: whether its total or penalty as read is wrong, how many tiles it left
        open, whether the penalty of its sure tiles alone is over the true one, and whether
        the reading gave any warning."""
        self.open_photos += open_tiles > 0
        self.silent_wrong += wrong and not open_tiles
        self.unwarned_wrong += wrong and not open_tiles and not warned
        self.asked += asked
        self.over_claimed += over

    def add_tiles(self, pairs: list[tuple[tuple[int, int], tuple[int, int]]], oriented: bool,
                  n_gt: int, n_pred: int, flags: list[bool] | None = None,
                  unmatched_flags: list[bool] | None = None) -> None:
        """``flags``: needs_review of each pair's read; ``unmatched_flags``: of the reads that
        matched no true tile (both optional: crops and count-only sources have none)."""
        self.gt_tiles += n_gt
        self.pred_tiles += n_pred
        self.matched += len(pairs)
        for k, (g, p) in enumerate(pairs):
            hp = half_pairs(g, p, oriented)
            ok = [a == b for a, b in hp]
            self.halves += 2
            self.halves_ok += sum(ok)
            self.exact += all(ok)
            for a, b in hp:
                self.confusion[(a, b)] += 1
            if flags is not None:
                if all(ok):
                    self.right += 1
                    self.right_flagged += flags[k]
                else:
                    self.wrong += 1
                    self.wrong_flagged += flags[k]
        for flagged in unmatched_flags or ():
            self.wrong += 1
            self.wrong_flagged += flagged

    def add_total(self, true_pips: int, read_pips: int) -> None:
        self.total_photos += 1
        self.totals_ok += true_pips == read_pips
        self.abs_err += abs(true_pips - read_pips)

    def add_penalty(self, true_penalty: int, read_penalty: int) -> None:
        self.penalty_photos += 1
        self.penalties_ok += true_penalty == read_penalty
        self.penalty_abs_err += abs(true_penalty - read_penalty)

    def merge(self, other: Tally) -> None:
        for f in ("photos", "gt_tiles", "pred_tiles", "matched", "exact", "halves", "halves_ok",
                  "total_photos", "totals_ok", "abs_err", "penalty_photos", "penalties_ok", "penalty_abs_err", "wrong", "wrong_flagged", "right", "right_flagged",
                  "open_photos", "silent_wrong", "unwarned_wrong", "over_claimed", "asked"):
            setattr(self, f, getattr(self, f) + getattr(other, f))
        self.confusion.update(other.confusion)
        for name, row in other.by_kind.items():
            mine = self.by_kind.setdefault(name, [0, 0, 0])
            for k in range(3):
                mine[k] += row[k]

    def figures(self) -> dict[str, Any]:
        def ratio(a: float, b: float) -> float | None:
            return round(a / b, 4) if b else None

        return {
            "photos": self.photos,
            "tiles": self.gt_tiles,
            "read": self.pred_tiles,
            "recall": ratio(self.matched, self.gt_tiles),
            "precision": ratio(self.matched, self.pred_tiles),
            "half_accuracy": ratio(self.halves_ok, self.halves),
            "exact_tile": ratio(self.exact, self.gt_tiles),
            "exact_of_found": ratio(self.exact, self.matched),
            "wrong_reads_flagged": ratio(self.wrong_flagged, self.wrong),
            "right_reads_flagged": ratio(self.right_flagged, self.right),
            "total_exact": ratio(self.totals_ok, self.total_photos),
            "total_mae": ratio(self.abs_err, self.total_photos),
            "total_photos": self.total_photos,
            "false_tiles": self.pred_tiles - self.matched,
            "penalty_exact": ratio(self.penalties_ok, self.penalty_photos),
            "penalty_mae": ratio(self.penalty_abs_err, self.penalty_photos),
            "open_photos": self.open_photos,
            "wrong_nothing_open": self.silent_wrong,
            "wrong_no_warning": self.unwarned_wrong,
            "at_least_over": self.over_claimed,
            "asked": self.asked,
            "by_kind": {k: list(v) for k, v in self.by_kind.items()},
        }


def pct(v: float | None) -> str:
    return "   -  " if v is None else f"{100 * v:5.1f}%"


def table(rows: list[tuple[str, Tally]]) -> str:
    head = (f"{'source':<44} {'imgs':>5} {'tiles':>5} {'read':>5} {'recall':>7} {'prec':>7} "
            f"{'half':>7} {'exact':>7} {'tot.ok':>7} {'MAE':>6} {'pen.ok':>7} {'flagged wrong/right':>19}")
    lines = [head, "-" * len(head)]
    for label, t in rows:
        f = t.figures()
        mae = "   -  " if f["total_mae"] is None else f"{f['total_mae']:6.2f}"
        lines.append(
            f"{label[:44]:<44} {f['photos']:>5} {f['tiles']:>5} {f['read']:>5} {pct(f['recall']):>7} "
            f"{pct(f['precision']):>7} {pct(f['half_accuracy']):>7} {pct(f['exact_tile']):>7} "
            f"{pct(f['total_exact']):>7} {mae} {pct(f['penalty_exact']):>7} "
            f"{pct(f['wrong_reads_flagged']):>9} {pct(f['right_reads_flagged']):>9}"
        )
    return "\n".join(lines)


def check_table(rows: list[tuple[str, Tally]]) -> str:
    """Per source: photos with tiles left open, photos wrong as read with nothing open (and of
    those, with no warning either), and photos whose "at least" penalty (sure tiles alone) is
    over the true one; and how many tiles it asked about (0-0 or face down?)."""
    head = (f"{'source':<44} {'photos':>6} {'open':>6} {'wrong, nothing open':>20} {'wrong, no warning':>18} "
            f"{'at least > true':>16} {'asked':>6}")
    lines = [head, "-" * len(head)]
    for label, t in rows:
        if t.penalty_photos:
            lines.append(f"{label[:44]:<44} {t.penalty_photos:>6} {t.open_photos:>6} {t.silent_wrong:>20} "
                         f"{t.unwarned_wrong:>18} {t.over_claimed:>16} {t.asked:>6}")
    return "\n".join(lines)


def confusion_table(conf: Counter[tuple[int, int]], title: str) -> str:
    if not conf:
        return f"{title}: (no halves)"
    vals = sorted({v for pair in conf for v in pair})
    lines = [f"{title} (rows: true value, columns: read value)"]
    lines.append("true\\read " + "".join(f"{v:>5}" for v in vals) + "   acc")
    for g in vals:
        row = [conf.get((g, p), 0) for p in vals]
        n = sum(row)
        acc = f"{100 * conf.get((g, g), 0) / n:5.1f}%" if n else "   -  "
        lines.append(f"{g:>9} " + "".join(f"{c:>5}" if c else "    ." for c in row) + f"  {acc}")
    return "\n".join(lines)


