"""A photo of the table turned into a layout the rules core can check.

Stage 5, for a photo of the whole table. The reader gives every face-up tile with its oriented
box and which half is at which end; tiles in play touch (:mod:`chickenfoot.vision.contacts`). From the hub
(the round's double, when known; else the double that gathers the most tiles) the layout grows
like a minimum spanning tree over those contacts, cheapest first (:mod:`chickenfoot.vision.tree`).

A tile the detector missed cuts off every tile beyond it, so where the layout shows a one-tile
gap (or a line end with loose toes, or a named hub missing among its spokes), a tile is read at
that spot (``look``, e.g. :meth:`chickenfoot.vision.reader.Reader.look_at`) and joins only if it shows the
numbers the gap needs.

The result is an unordered :class:`chickenfoot.rules.layout.Layout` (a photo does not show the
order of play), the tiles that touch nothing in it (a hand or the boneyard beside the table),
and warnings for what a person should look at. Geometry only: the rules core judges the layout
(its problem count also breaks ties when the hub is guessed).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

import numpy as np

from chickenfoot.rules import words
from chickenfoot.rules.errors import InputError
from chickenfoot.rules.layout import NOT_IN_SET, Layout, Report, check_layout
from chickenfoot.rules.ruleset import DEFAULT_PRESET, RuleSet, get_rules
from chickenfoot.rules.tiles import SETS, Tile

from .contacts import A, B, contacts
from .detections import box_rows, probiou
from .gaps import Gap, gaps, hub_spots
from .geometry import OrientedBox
from .images import LoadedImage
from .reader import Reader
from .reading import Reading, TileReading
from .tree import grow, layout_of, pick_hub, tree_order

__all__ = ["A", "B", "Look", "TableError", "TableReading", "contacts", "read_table", "read_table_photo",
           "set_warning", "verdict_word"]

#: Rounds of looking: a tile found can close the next gap along the same line.
LOOK_ROUNDS = 3
#: A reader's candidate overlapping a gap's box this much (probabilistic IoU) lies in the gap.
CANDIDATE_IOU = 0.3


class TableError(InputError):
    """No layout can be read from these tiles (no double to start from, a hub that is no double)."""


@dataclass(frozen=True)
class TableReading:
    """What a table photo shows: the layout, and which read tile is which part of it.

    ``tiles`` are the reader's tiles followed by ``found``: tiles the reader missed or did not
    count, taken where the layout said one must lie (see :func:`read_table`). ``parent[i]``
    is the index (into ``tiles``) of the tile tile ``i`` is played on, None for the hub and for
    tiles not in the layout (``loose``).
    """

    reading: Reading
    layout: Layout
    hub: int
    parent: tuple[int | None, ...]
    loose: tuple[int, ...]
    warnings: tuple[str, ...]
    found: tuple[TileReading, ...] = ()

    @property
    def tiles(self) -> tuple[TileReading, ...]:
        return (*self.reading.tiles, *self.found)

    @property
    def in_layout(self) -> list[int]:
        return [i for i, p in enumerate(self.parent) if p is not None or i == self.hub]

    def index_of(self, tile: Tile) -> list[int]:
        """Where ``tile`` is in the layout (indices into ``tiles``; two if read twice)."""
        tiles = self.tiles
        return [i for i in self.in_layout if tiles[i].tile == tile]

    def check(self, rules: RuleSet | str | None = None) -> Report:
        """The rules core's report on the layout (see :func:`chickenfoot.rules.layout.check_layout`)."""
        return check_layout(self.layout, rules)

    def problem_tiles(self, report: Report, read_as: Callable[[Tile], Tile] = lambda t: t) -> list[int]:
        """The tiles (indices into ``tiles``) that ``report``'s problems are about. ``read_as``:
        the tile as read, for a layout corrected by hand since."""
        return sorted({i for p in report.problems if p.tile is not None for i in self.index_of(read_as(p.tile))})

    def to_dict(self) -> dict[str, Any]:
        tiles = self.tiles
        return {
            "layout": self.layout.to_dict(),
            "hub": str(tiles[self.hub].tile),
            "joints": [{"tile": str(tiles[i].tile), "on": str(tiles[p].tile), "index": i, "on_index": p}
                       for i, p in enumerate(self.parent) if p is not None],
            "loose": [str(tiles[i].tile) for i in self.loose],
            "found": [t.to_dict() for t in self.found],
            "warnings": list(self.warnings),
        }


Look = Callable[[list[OrientedBox]], list[TileReading]]


def read_table(reading: Reading, hub: Tile | str | None = None, set: int | None = None,
               rules: str | None = None, look: Look | None = None) -> TableReading:
    """The layout in a photo of the table, from its :class:`Reading`.

    ``hub``: the round's double, when known (advised: the photo alone cannot always tell the
    hub from a foot). ``set`` and ``rules`` go into the layout for the rules core (``rules``
    also breaks ties when the hub is guessed). ``look``: reads a tile at each given box (e.g.
    :meth:`chickenfoot.vision.reader.Reader.look_at` on the photo); with it, a one-tile gap between an open
    end and a tile left out (:func:`gaps`) is read, and a tile showing the two numbers the gap
    needs joins the layout, flagged for review. A possible tile the reader did not count
    (``reading.candidates``) that lies in such a gap and shows those numbers joins the same way,
    with or without ``look``. Raises :class:`TableError` when no double was
    read at all, so there is nothing to start from.
    """
    if set is not None and set not in SETS:
        raise TableError(f"set must be one of {', '.join(map(str, SETS))}, not {set}")
    want = Tile.parse(hub) if isinstance(hub, str) else hub
    if want is not None and not want.is_double:
        raise TableError(f"the hub must be a double, not {want}")
    # a tile read 0-0 that may be a back is neither a layout tile nor a possible one (a back
    # taken for a missing 0-0 hub would root the layout on the boneyard)
    if any(t.question for t in (*reading.tiles, *reading.candidates)):
        reading = replace(reading, tiles=tuple(t for t in reading.tiles if not t.question),
                          candidates=tuple(t for t in reading.candidates if not t.question))
    tiles: list[TileReading] = list(reading.tiles)
    boxes = _boxes(tiles)
    found: list[TileReading] = []
    if want is not None and not any(t.tile == want for t in tiles):
        # the hub the detector missed or did not count: among the candidates, else read against
        # its spokes; of several places, the one most tiles join
        seen = [replace(t, needs_review=True) for t in reading.candidates if t.tile == want]
        if not seen and look is not None:
            seen = [t for t in look(hub_spots(tiles, boxes, want.low)) if t.tile == want]
        if seen:

            def joined(t: TileReading) -> tuple[int, float]:
                trial = [*tiles, t]
                tree = grow(trial, contacts(_boxes(trial), [x.tile.is_double for x in trial]), len(tiles))
                return tree.size(), t.confidence

            found.append(max(seen, key=joined))
            tiles.append(found[-1])
            boxes = _boxes(tiles)
    doubles = [i for i, t in enumerate(tiles) if t.tile.is_double]
    if not doubles:
        raise TableError("no double was read in the photo, so there is no hub to start the layout from")
    found_contacts = contacts(boxes, [t.tile.is_double for t in tiles])
    rs = get_rules(rules or DEFAULT_PRESET)
    warnings = []
    named = [i for i in doubles if tiles[i].tile == want]
    # the same double read twice: the one that gathers more tiles
    h = pick_hub(tiles, found_contacts, named or doubles, reading.image_size, rs)
    tree = grow(tiles, found_contacts, h)
    for _ in range(LOOK_ROUNDS if look is not None or reading.candidates else 0):
        holes = gaps(tiles, tree, h, boxes)
        if not holes:
            break
        # a possible tile the reader was too unsure to count, in the gap and showing what it
        # needs, is taken as it is (the detector's box sits on the tile better than the gap's)
        seen = [_candidate_in(g, reading.candidates) for g in holes]
        todo = [k for k, t in enumerate(seen) if t is None] if look is not None else []
        for k, t in zip(todo, look([holes[k].box for k in todo]) if todo else [], strict=True):  # type: ignore[misc]
            seen[k] = t
        new: list[TileReading] = []
        for g, t in zip(holes, seen, strict=True):
            if t is not None and g.filled_by(t) and all(t.tile != n.tile for n in new):
                new.append(t)
        if not new:
            break
        found += new
        tiles += new
        boxes = _boxes(tiles)
        found_contacts = contacts(boxes, [t.tile.is_double for t in tiles])
        tree = grow(tiles, found_contacts, h)
    if want is not None and not named:
        warnings.append(f"no {want}, the hub named, was read in the photo; took the {tiles[h].tile} as the hub instead: "
                        "check the photo, or retake it with the hub in view")
    elif want is None and any(i != h and tree.parent[i] is None for i in doubles):
        warnings.append(f"took the {tiles[h].tile} as the hub (it gathers the most tiles); name the "
                        "round's double if that is wrong")
    order = tree_order(tree.parent, h)
    for i in order:
        t, p = tiles[i], tree.parent[i]
        want_v = tree.open_value[p]  # type: ignore[index]
        if not t.tile.is_double and tree.touching[i] != want_v and t.tile.has(want_v):
            warnings.append(f"{t.tile} touches the {tiles[p].tile} with its {tree.touching[i]}, not its "  # type: ignore[index]
                            f"{want_v}: laid the wrong way round, or misread?")
    if found:
        warnings.append("found by looking where the layout needs a tile (the reader missed them, or "
                        "was too unsure to count them), "
                        "check them: " + ", ".join(str(t.tile) for t in found))
    unsure = [str(tiles[i].tile) for i in (h, *order) if tiles[i].needs_review and i < len(reading.tiles)]
    if unsure:
        warnings.append("read unsurely, check them before trusting the verdict: " + ", ".join(unsure))
    loose = tuple(i for i, p in enumerate(tree.parent) if p is None and i != h)
    if loose:
        warnings.append(f"{words.count(len(loose), 'tile')} "
                        f"{'does' if len(loose) == 1 else 'do'} not join the layout and "
                        f"{'is' if len(loose) == 1 else 'are'} left out (off the table, or "
                        "joined through a tile that was not read): " + ", ".join(str(tiles[i].tile) for i in loose))
    return TableReading(reading, layout_of(tiles, tree.parent, h, rules, set), h, tuple(tree.parent), loose,
                        tuple(warnings), tuple(found))


def read_table_photo(reader: Reader, photo: LoadedImage, rules: RuleSet, top: int | None = None,
                     hub: Tile | str | None = None, set: int | None = None) -> TableReading:
    """A decoded photo of the table read into its layout, as ``chickenfoot table`` and the app
    read one: the reader with its table settings (:meth:`Reader.for_table`), tiles missed
    looked for in the photo itself; ``top`` as for :meth:`Reader.read`."""
    reader = reader.for_table()
    reading = reader.read(photo, rules, top)
    return read_table(reading, hub=hub, set=set, rules=rules.name,
                      look=partial(reader.look_at, photo, top=rules.set if top is None else top))


def verdict_word(report: Report) -> str:
    """The rules core's word on a layout, short enough to head a picture of it."""
    return "legal" if report.legal else words.count(len(report.problems), 'problem')


def set_warning(report: Report) -> str | None:
    """The tiles of a layout read from a photo that its set does not have (misreads, most
    likely), in one sentence; None when there are none."""
    odd = [str(p.tile) for p in report.problems if p.code == NOT_IN_SET and p.tile is not None]
    return f"not in a double-{report.set} set: {', '.join(odd)}; misread?" if odd else None


def _candidate_in(gap: Gap, candidates: Sequence[TileReading]) -> TileReading | None:
    """A reader's candidate lying in ``gap`` and showing its two numbers, turned so its half A
    faces the open end (as :meth:`Gap.filled_by` reads it), flagged for review; else None."""
    if not candidates:
        return None
    near = probiou(box_rows([gap.box]), _boxes(candidates))[0]
    for k in np.argsort(-near):
        if near[k] < CANDIDATE_IOU:
            break
        t = candidates[int(k)]
        b = t.box
        if (t.a, t.b) == (gap.near, gap.far):
            return replace(t, needs_review=True)
        if (t.b, t.a) == (gap.near, gap.far):  # the same tile, the other way round
            return replace(t, a=t.b, b=t.a, needs_review=True, half_confidence=t.half_confidence[::-1],
                           box=OrientedBox(b.cx, b.cy, b.length, b.width, b.angle + math.pi))
    return None


def _boxes(tiles: Sequence[TileReading]) -> np.ndarray:
    return box_rows(t.box for t in tiles)
