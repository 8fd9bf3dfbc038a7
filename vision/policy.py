"""The policy stage: for every find, one decision: counted, asked about or set apart, and why.

Every other stage measures (boxes, half probabilities, whether a divider shows); this one alone
decides, from those measures and the config, for all finds of a photo at once. Its rule, the one
a player can trust: **a find that may be a face-up tile and lies among the hand's tiles, at their
size, is counted or asked about, never set apart in silence.**

* A face read surely is counted (:data:`Reason.SURE`), flagged to check under ``review_conf``
  (:data:`Reason.LOW`), unless it reads alike from boxes moved as the detector's boxes err
  (``steady_conf``, :data:`Reason.STEADY`) in a photo where no tile-like find is left
  unexplained: such a find, set apart as unsure or print, near the counted tiles at their
  length and lying mostly off them, is often a box astride touching tiles the reader missed
  or a missed tile itself, and the flag on a low tile is then the photo's only warning.
* A find read 0-0 whose middle shows no divider may be a face-down tile: it is a back
  (:data:`Reason.BACK`) when the half reader also takes both halves for no face's
  (``not_pips_max``), print (:data:`Reason.PRINT`) when it takes one for no face's, else it is
  asked about (:data:`Reason.ZERO_OR_BACK`) when the detector found it at least
  ``zero_or_back_conf`` surely, and a back under that. The errors cost alike: 50 points to one
  player or another.
* A blank or nearly blank face with a divider is a 0-0 or a 0-x until shown otherwise: a find
  with a divider among the hand's tiles at their size, one half of which the half reader calls
  "not pips" while the other is pips, or both where it reads 0-0, is asked about with its blank
  halves read 0 (:data:`Reason.BLANK_FACE`, "Is this the 0-0 (50)?", "Is this the 0-5?"), and so
  is one read as a 0-x too unsurely to count; found by the detector at :data:`TILE_DETECTION_MIN`
  or more, or read as a plain 0-0 however unsurely found. A find read too unsurely to count,
  with a divider, among the hand's tiles at their size and found surely as a tile
  (:data:`TILE_DETECTION_MIN`), is asked about too (:data:`Reason.UNSURE_TILE`), and so is
  one found only weakly (:data:`WEAK_TILE_DETECTION`) whose halves both read clearly
  (:data:`CLEAR_HALVES`) and which lies where no counted tile is (:func:`in_a_gap`): a tile
  lying on printed matter (a board's logo) can be found no better than that.
  A find read 0-0 with a divider, found at :data:`TILE_DETECTION_MIN` at the hand's size, is
  asked about wherever it lies: a 0-0 put down apart from the hand is 50 points.
* "Print" (:data:`Reason.PRINT`) and "unsure" (:data:`Reason.UNSURE`) are for finds unlike the
  hand's tiles: another size, outside the hand (but for a 0-0), or no divider.
* One set has one of each tile: of a hand's counted finds read as the same tile, more than the
  sets in play hold (``copies``), the surest are counted and the rest asked about
  (:data:`Reason.TWICE`, "Is this a second 3-6?"). A misread tile turns up as a second copy of
  another more often than a mixed set does in a game of Chicken Foot.
* Tiles lie flat and never overlap: of counted finds that overlap, the surest set that overlaps
  nowhere counts, the rest are set apart (:data:`Reason.OVERLAP`); a find asked about gives way
  to any counted tile it overlaps.

:func:`decide` is a pure function of :class:`Find` values: tested on constructed finds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from chickenfoot.rules.ruleset import RuleSet
from chickenfoot.rules.tiles import Tile

from .config import ReaderConfig
from .detections import box_rows, obb_corners
from .geometry import OrientedBox, covered_share, overlap_share
from .reading import Reason, again, is_it, zero_or_back


class Verdict(StrEnum):
    """What becomes of a find."""

    COUNT = "count"  # in the pips and penalty (flagged ones once checked)
    ASK = "ask"  # open: shown with its question, in no total until a player answers
    APART = "apart"  # set apart: shown grey (or purple, a back), in no total


#: A find set apart alone is asked about instead when the detector was at least this sure it is
#: a tile (and it has a divider and lies among the hand at its size); a plain 0-0 however unsurely
#: it was found.
TILE_DETECTION_MIN = 0.6
#: The other half of a 0-x asked about is pips: the half reader takes it for no face's half
#: less likely than this.
PIPS_HALF = 0.5
#: A half of a 0-x asked about that is not blank is read at least this surely (and so are both
#: halves of a 0-0 read as pips).
HALF_SURE = 0.8
#: A find found more weakly than :data:`TILE_DETECTION_MIN`, but not under this, is asked about
#: among the hand at its size when both its halves read at least :data:`CLEAR_HALVES` ...
WEAK_TILE_DETECTION = 0.3
CLEAR_HALVES = 0.95
#: ... and the counted tiles cover less than this share of it (where they lie, it is most often
#: a box astride two of them).
GAP_COVER = 0.3
#: A find is at the hand's size when its length and width are within this factor of the
#: median counted tile's.
SIZE_FACTOR = 1.4
#: A find lies among the hand's tiles when its centre is within this many median tile lengths
#: of a counted tile's centre: a tile missing from a line lies one length from its neighbours.
AMONG_LENGTHS = 1.2
#: A find read steadily counts only if, in every box it was read again from, each half gives
#: its value at least this probability (beside ``steady_conf`` on average).
STEADY_LEAST = 0.5
#: A find set apart as unsure or print is left unexplained (and no find counts as read
#: steadily) when the detector found it at least this surely ...
UNEXPLAINED_DETECTION = 0.5
#: ... and the counted tiles cover less than this share of it ...
UNEXPLAINED_COVER = 0.5
#: ... and it lies within this many median tile lengths of a counted tile (:func:`near_hand`).
NEAR_LENGTHS = 2.0
#: A box astride two tiles laid end to end is up to this many median lengths long.
ASTRIDE_LENGTHS = 2.2


@dataclass(frozen=True)
class Find:
    """One face-up find as the stages before the policy measured it."""

    a: int
    b: int
    box: OrientedBox
    detection: float
    #: Each half's probability of its value, among pip counts alone.
    halves: tuple[float, float] = (1.0, 1.0)
    #: Each half's probability of being no face's half (print, a back); None when the half
    #: reader has no such class.
    not_pips: tuple[float, float] | None = None
    #: Whether a divider shows across its middle (None: not measured, taken as showing).
    divider: bool | None = None
    #: Read again from boxes moved as the detector's boxes err: the lesser of its halves' mean
    #: probability of the value read, and the least in any box (None: not measured).
    steady: tuple[float, float] | None = None

    @property
    def confidence(self) -> float:
        return self.detection * self.halves[0] * self.halves[1]

    @property
    def least_pips(self) -> float | None:
        """How likely its less tile-like half is not pips (None: no such class)."""
        return None if self.not_pips is None else max(self.not_pips)


@dataclass(frozen=True)
class Policy:
    """The settings the policy decides by: a reader's (:meth:`of`, from ``reader.json``; each
    setting's default and meaning are :class:`~chickenfoot.vision.config.ReaderConfig`'s) and
    the 0-0's points."""

    review_conf: float
    count_conf: float
    not_pips_max: float
    overlap_max: float
    #: Points of the 0-0, named in its questions.
    zero_points: int
    #: Whether finds set apart alone are asked about when they are like the hand's tiles
    #: (``hand_asks``; off for a table's layout, whose gaps the table reader fills itself).
    hand_asks: bool
    #: A find read 0-0 with no divider is asked about only when found at least this surely;
    #: under it, a back (``zero_or_back_conf``; 0: always asked).
    zero_or_back_conf: float = 0.0
    #: How many of each tile the photo may hold: the sets in play (0: no limit). Checked on hands
    #: only (``hand_asks``): a table's layout is checked as a layout.
    copies: int = 1
    #: A find counted under ``review_conf`` is counted as read surely when it reads alike from
    #: moved boxes by this much (:attr:`Find.steady`; 0: never).
    steady_conf: float = 0.0

    @classmethod
    def of(cls, config: ReaderConfig, rules: RuleSet, sets: int = 1) -> Policy:
        """The policy of a reader with ``config``, for a hand scored with ``rules`` from ``sets`` sets."""
        return cls(config.review_conf, config.count_conf, config.not_pips_max, config.overlap_max,
                   rules.penalty([Tile(0, 0)]), config.hand_asks, config.zero_or_back_conf, sets, config.steady_conf)


@dataclass(frozen=True)
class Decision:
    """The policy's word on one find: its verdict, its reason, the tile counted or asked about
    (a blank half asked about reads 0), and the question asked ("" when none)."""

    verdict: Verdict
    reason: Reason
    a: int
    b: int
    question: str = ""

    @property
    def open(self) -> bool:
        """Shown and listed, but in no total until a player confirms it."""
        return self.verdict is Verdict.ASK or self.reason is Reason.LOW


def blank_verdict(divider: bool | None, not_pips: tuple[float, float] | None, not_pips_max: float) -> Reason | None:
    """For a find read 0-0: None when it is a face (its divider shows), :data:`Reason.BACK`
    when no divider shows and the half reader takes both halves for no face's, else
    :data:`Reason.ZERO_OR_BACK`."""
    if divider is None or divider:
        return None
    if not_pips is not None and 0 < not_pips_max <= min(not_pips):
        return Reason.BACK
    return Reason.ZERO_OR_BACK


def decide(finds: Sequence[Find], policy: Policy) -> list[Decision]:
    """One decision per find (see the module's text)."""
    out: list[Decision | None] = [_alone(f, policy) for f in finds]
    counted = [k for k, d in enumerate(out) if d is not None and d.verdict is Verdict.COUNT]
    if policy.overlap_max > 0 and len(counted) > 1:
        keep = apart([finds[k].box for k in counted], [finds[k].confidence for k in counted], policy.overlap_max)
        for k in np.asarray(counted)[~keep]:
            out[k] = Decision(Verdict.APART, Reason.OVERLAP, finds[k].a, finds[k].b)
    hand = [k for k, d in enumerate(out) if d is not None and d.verdict is Verdict.COUNT]
    hand_boxes = [finds[k].box for k in hand]
    for k, f in enumerate(finds):
        if out[k] is None:  # set apart alone, unless it is like the hand's tiles
            out[k] = _unlike_or_asked(f, policy, hand_boxes)
    if policy.overlap_max > 0:  # an asked find gives way to a counted tile it overlaps
        for k, d in enumerate(out):
            if d.verdict is Verdict.ASK and any(
                    overlap_share(finds[k].box.corners(), b.corners()) > policy.overlap_max for b in hand_boxes):
                out[k] = Decision(Verdict.APART, Reason.OVERLAP, finds[k].a, finds[k].b)
    if policy.hand_asks and policy.copies > 0:
        _asked_twice(finds, out, policy)  # type: ignore[arg-type]
    if policy.steady_conf > 0:
        _steady(finds, out, policy)  # type: ignore[arg-type]
    return out  # type: ignore[return-value]


def steady(f: Find, p: Policy) -> bool:
    """Whether ``f`` read alike from every moved box (:attr:`Find.steady`) by ``p``'s measure."""
    return f.steady is not None and f.steady[0] >= p.steady_conf and f.steady[1] >= STEADY_LEAST


def _steady(finds: Sequence[Find], out: list[Decision], p: Policy) -> None:
    """Low finds read steadily count as read surely, unless a tile-like find is unexplained."""
    low = [k for k, d in enumerate(out) if d.reason is Reason.LOW and steady(finds[k], p)]
    if low and not unexplained(finds, out):
        for k in low:
            out[k] = Decision(Verdict.COUNT, Reason.STEADY, out[k].a, out[k].b)


def unexplained(finds: Sequence[Find], out: Sequence[Decision]) -> bool:
    """Whether a find set apart as unsure or print, found at least :data:`UNEXPLAINED_DETECTION`
    surely, near the counted tiles at their length (:func:`near_hand`: where a box astride
    touching tiles, or a tile the reader missed, lies; a logo or a box across the room does
    not), lies mostly (:data:`UNEXPLAINED_COVER`) off the counted tiles."""
    hand = [finds[k].box for k, d in enumerate(out) if d.verdict is Verdict.COUNT]
    return any(d.verdict is Verdict.APART and d.reason in (Reason.UNSURE, Reason.PRINT)
               and f.detection >= UNEXPLAINED_DETECTION and near_hand(f.box, hand)
               and covered(f.box, hand) < UNEXPLAINED_COVER for f, d in zip(finds, out, strict=True))


def _asked_twice(finds: Sequence[Find], out: list[Decision], p: Policy) -> None:
    """Of counted finds of one tile beyond ``p.copies``, all but the surest become questions."""
    same: dict[Tile, list[int]] = {}
    for k, d in enumerate(out):
        if d.verdict is Verdict.COUNT:
            same.setdefault(Tile(d.a, d.b), []).append(k)
    for tile, ks in same.items():
        for k in sorted(ks, key=lambda k: -finds[k].confidence)[p.copies:]:
            out[k] = Decision(Verdict.ASK, Reason.TWICE, out[k].a, out[k].b, again(tile, p.zero_points))


def _alone(f: Find, p: Policy) -> Decision | None:
    """The decision a find gets on its own measures; None for one set apart unless it is like
    the hand's tiles (decided once the hand is known)."""
    least = f.least_pips
    printed = least is not None and least >= p.not_pips_max
    if f.a == f.b == 0:
        blank = blank_verdict(f.divider, f.not_pips, p.not_pips_max)
        if blank is Reason.BACK:
            return Decision(Verdict.APART, Reason.BACK, 0, 0)
        if blank is Reason.ZERO_OR_BACK and not printed:
            if f.detection < p.zero_or_back_conf:
                # no divider and found weakly: what a detector that finds plain faces makes of a back
                return Decision(Verdict.APART, Reason.BACK, 0, 0)
            # left out, a 0-0 would cost its owner 50
            return Decision(Verdict.ASK, Reason.ZERO_OR_BACK, 0, 0, zero_or_back(p.zero_points))
    if printed:  # with no divider, a half like print is print (or a printed back)
        return None
    if f.confidence < p.count_conf:
        return None
    return Decision(Verdict.COUNT, Reason.SURE if f.confidence >= p.review_conf else Reason.LOW, f.a, f.b)


def _unlike_or_asked(f: Find, p: Policy, hand: Sequence[OrientedBox]) -> Decision:
    # "no divider" (or none measured) is print or a back; a face has one. A 0-0 found surely
    # is like the hand's tiles wherever it lies at their size: a tile put down apart is 50.
    zero_zero = f.a == f.b == 0 and f.detection >= TILE_DETECTION_MIN and at_size(f.box, hand)
    like = p.hand_asks and f.divider is True and (zero_zero or among(f.box, hand))
    printed = [x is not None and x >= p.not_pips_max for x in (f.not_pips or (None, None))]
    # a blank half is what the half reader most often takes for print on a face: read it 0
    a, b = (0 if x else v for v, x in zip((f.a, f.b), printed, strict=True))
    # the halves not like print are read surely: a blank half beside clear pips, not a guess
    read_surely = all(x or h >= HALF_SURE for x, h in zip(printed, f.halves, strict=True))
    if a == b == 0:  # both blank: a plain 0-0 only where it reads 0-0, its divider judged as one's
        blank = f.a == f.b == 0
    elif any(printed):  # one half like print: a 0-x where the other half is pips
        blank = min(f.not_pips) < PIPS_HALF  # type: ignore[arg-type]
    else:
        blank = 0 in (a, b)
    # a plain 0-0, read so on both halves, is asked about however unsurely it was found: left
    # out it costs its owner 50; a 0-x needs the detector's word that it may be a tile
    plain_zero = f.a == f.b == 0 and not any(printed)
    blank = blank and read_surely and (plain_zero or f.detection >= TILE_DETECTION_MIN)
    if like and blank:  # a 0-0 or a 0-x until shown otherwise
        return Decision(Verdict.ASK, Reason.BLANK_FACE, a, b, is_it(Tile(a, b), p.zero_points))
    if any(printed):
        return Decision(Verdict.APART, Reason.PRINT, f.a, f.b)
    pips_like = f.not_pips is None or max(f.not_pips) < PIPS_HALF
    if like and pips_like and (f.detection >= TILE_DETECTION_MIN or in_a_gap(f, hand)):
        return Decision(Verdict.ASK, Reason.UNSURE_TILE, f.a, f.b, is_it(Tile(f.a, f.b), p.zero_points))
    return Decision(Verdict.APART, Reason.UNSURE, f.a, f.b)


def in_a_gap(f: Find, hand: Sequence[OrientedBox]) -> bool:
    """Whether ``f``, found at least :data:`WEAK_TILE_DETECTION`, reads clearly on both halves
    (:data:`CLEAR_HALVES`) and lies mostly off the ``hand``'s tiles (under :data:`GAP_COVER`)."""
    return f.detection >= WEAK_TILE_DETECTION and min(f.halves) >= CLEAR_HALVES and covered(f.box, hand) < GAP_COVER


def covered(box: OrientedBox, hand: Sequence[OrientedBox]) -> float:
    """The share of ``box`` the ``hand``'s tiles cover (summed over them: tiles never overlap)."""
    corners = box.corners()
    return sum(covered_share(corners, b.corners()) for b in hand)


def _hand_size(hand: Sequence[OrientedBox]) -> tuple[float, float]:
    """The median length and width of the ``hand``'s tiles."""
    return float(np.median([b.length for b in hand])), float(np.median([b.width for b in hand]))


def _fits(box: OrientedBox, length: float, width: float) -> bool:
    return (length / SIZE_FACTOR <= box.length <= length * SIZE_FACTOR
            and width / SIZE_FACTOR <= box.width <= width * SIZE_FACTOR)


def at_size(box: OrientedBox, hand: Sequence[OrientedBox]) -> bool:
    """Whether ``box`` is at the size of the ``hand``'s tiles: their median length and width,
    within :data:`SIZE_FACTOR`. With no hand, any find is."""
    return not hand or _fits(box, *_hand_size(hand))


def among(box: OrientedBox, hand: Sequence[OrientedBox]) -> bool:
    """Whether ``box`` is at the size of the ``hand``'s tiles (:func:`at_size`) and lies among
    them (within :data:`AMONG_LENGTHS` median lengths of one). With no hand, any find is."""
    if not hand:
        return True
    length, width = _hand_size(hand)
    return _fits(box, length, width) and any(
        np.hypot(box.cx - b.cx, box.cy - b.cy) <= AMONG_LENGTHS * length for b in hand)


def near_hand(box: OrientedBox, hand: Sequence[OrientedBox]) -> bool:
    """Whether ``box`` is as long as one of the ``hand``'s tiles or two end to end (from their
    median length over :data:`SIZE_FACTOR` to :data:`ASTRIDE_LENGTHS` times it; a box astride
    two tiles side by side is as long as one and wider) and lies within :data:`NEAR_LENGTHS`
    median lengths of one. With no hand, any find is."""
    if not hand:
        return True
    length = float(np.median([b.length for b in hand]))
    if not length / SIZE_FACTOR <= box.length <= length * ASTRIDE_LENGTHS:
        return False
    return any(np.hypot(box.cx - b.cx, box.cy - b.cy) <= NEAR_LENGTHS * length for b in hand)


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
