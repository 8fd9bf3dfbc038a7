"""What a photo was read as: one type from the reader to the screen and back.

:class:`Reading` is what :meth:`chickenfoot.vision.reader.Reader.read` returns, what ``chickenfoot score
--json`` prints (:meth:`Reading.to_dict`), what the app's photo review shows and corrects
(tiles marked ``corrected`` or ``added`` by a player), and what the evaluation scores. Both
types round-trip through their dicts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from chickenfoot.rules.ruleset import RuleSet
from chickenfoot.rules.tiles import Tile

from .geometry import OrientedBox

#: Why a possible tile was not counted (``TileReading.uncounted``): read too unsurely, its half
#: looks like print or a back, or it overlaps surer tiles (tiles lie flat and never overlap); or
#: a player set it aside (not a tile, face down, another hand's): it keeps its place and number.
UNCOUNTED = ("unsure", "not pips", "overlap", "set aside")
#: Who says what a tile is: the reader, or a player who corrected it, added it by hand, or
#: confirmed the reader's reading of it.
SOURCES = ("read", "corrected", "added", "confirmed")


class Reason(StrEnum):
    """Why the reader counts a find, asks about it or sets it apart
    (:func:`chickenfoot.vision.policy.decide`): kept on each tile read
    (:attr:`TileReading.reason`), so the warnings, the picture and the app say the same."""

    #: Counted: read surely.
    SURE = "sure"
    #: Counted but open: read less surely than ``review_conf``; check it.
    LOW = "low confidence"
    #: Counted: read less surely than ``review_conf`` from its box, but alike from every box
    #: moved as the detector's boxes err, in a photo with no tile-like find left unexplained.
    STEADY = "steady"
    #: Asked: reads 0-0 and shows no divider it is sure of, so it may be a face-down tile.
    ZERO_OR_BACK = "0-0 or back"
    #: Asked: a face with a divider, among the hand's tiles at their size, a half of it blank
    #: or nearly so (the half reader says "not pips"): a 0-0 or a 0-x until shown otherwise.
    BLANK_FACE = "blank face"
    #: Asked: a face with a divider among the hand's tiles at their size, read too unsurely to count.
    UNSURE_TILE = "unsure tile"
    #: Asked: the same tile is counted more times than the sets in play hold (one set has one of
    #: each): all but the surest are asked about.
    TWICE = "read twice"
    #: Set apart: read too unsurely, and unlike the hand's tiles (elsewhere, another size, no divider).
    UNSURE = "unsure"
    #: Set apart: a half looks like print or a back, and the find is unlike the hand's tiles.
    PRINT = "not pips"
    #: Set apart: overlaps a surer tile (tiles lie flat).
    OVERLAP = "overlap"
    #: Set apart as a face-down tile: reads 0-0, shows no divider, halves like no face's.
    BACK = "back"


#: What each reason says to a player, beside the tile (the CLI, the app, the warnings).
REASON_TEXT = {
    Reason.SURE: "read surely",
    Reason.LOW: "read with low confidence: check it",
    Reason.STEADY: "read alike from slightly moved boxes",
    Reason.ZERO_OR_BACK: "could be the 0-0 or a face-down tile",
    Reason.BLANK_FACE: "a blank half beside a divider: a 0 until you say otherwise",
    Reason.UNSURE_TILE: "among the hand's tiles, read too unsurely to count alone",
    Reason.TWICE: "read twice, and one set has one of each tile",
    Reason.UNSURE: "too unsure to count",
    Reason.PRINT: "no pips seen: face down, or not a tile",
    Reason.OVERLAP: "overlaps a surer tile",
    Reason.BACK: "face down",
}
#: The reasons a find is asked about: it carries a question naming its tile.
ASKED = (Reason.ZERO_OR_BACK, Reason.BLANK_FACE, Reason.UNSURE_TILE, Reason.TWICE)


def again(tile: Tile, points: int) -> str:
    """The question the reader asks of a tile read more times than the sets in play hold it
    (:data:`Reason.TWICE`): one of the reads is wrong, or a tile not of the set is in the photo."""
    zero = f" ({points})" if tile == Tile(0, 0) else ""
    return f"Is this a second {tile}{zero}?"


def zero_or_back(points: int) -> str:
    """The question the reader asks of a tile that reads 0-0 but whose middle shows no divider
    it is sure of: a face-down tile looks the same, and taking a 0-0 for a back drops
    ``points`` from its owner's penalty."""
    return f"Is this the 0-0 ({points}) or a face-down tile?"


def is_it(tile: Tile, points: int) -> str:
    """The question the reader asks of a face it may have read right but will not count alone
    (:data:`Reason.BLANK_FACE`, :data:`Reason.UNSURE_TILE`): it names the tile, and a 0-0 its
    points."""
    return f"Is this the 0-0 ({points})?" if tile == Tile(0, 0) else f"Is this the {tile}?"


@dataclass(frozen=True)
class TileReading:
    """One tile read from a photo. ``box`` is in the pixels of the original (upright) photo,
    half A at its ``-length/2`` end; None for a tile a player added by hand."""

    a: int
    b: int
    confidence: float  # detector x half A x half B: how sure the whole tile is right
    box: OrientedBox | None
    needs_review: bool = False
    detection_confidence: float = 0.0
    half_confidence: tuple[float, float] = (0.0, 0.0)
    #: How likely its less tile-like half is not pips at all (print, a back; None when the half
    #: reader has no such class).
    not_pips: float | None = None
    #: Why a possible tile is not counted (one of :data:`UNCOUNTED`); "" for a counted tile.
    uncounted: str = ""
    source: str = "read"
    #: A question the reader cannot settle alone and asks the player (:func:`zero_or_back`);
    #: "" when none. A tile with a question is open until answered.
    question: str = ""
    #: Why the reader counts it, asks about it or sets it apart (a :class:`Reason` value; ""
    #: for a tile a player added).
    reason: str = ""

    @property
    def reason_text(self) -> str:
        """The reason in a player's words ("" when none)."""
        try:
            return REASON_TEXT[Reason(self.reason)]
        except ValueError:
            return ""

    @property
    def tile(self) -> Tile:
        return Tile(self.a, self.b)

    @property
    def counted(self) -> bool:
        return not self.uncounted

    @property
    def open(self) -> bool:
        """Counted by the reader but not sure: flagged for review, or asked about. An open
        tile is shown and listed, never in the pips or penalty until a player confirms it."""
        return self.counted and self.source == "read" and (self.needs_review or bool(self.question))

    @property
    def sure(self) -> bool:
        """In the pips and penalty: counted and not open."""
        return self.counted and not self.open

    @classmethod
    def added(cls, tile: Tile) -> TileReading:
        """A tile a player says is in the photo, where the reader found none."""
        return cls(tile.low, tile.high, 1.0, None, source="added")

    def corrected(self, tile: Tile) -> TileReading:
        """This tile as a player says it reads; it counts."""
        return replace(self, a=tile.low, b=tile.high, uncounted="", needs_review=False, question="",
                       source="corrected")

    def set_aside(self) -> TileReading:
        """This find as a player says it is not in the hand (not a tile, face down, or another
        hand's): not counted, kept with its box."""
        return replace(self, uncounted="set aside", needs_review=False, question="", source="confirmed")

    def accepted(self) -> TileReading:
        """A possible tile, or an open one, that a player says is a tile read right: it counts."""
        return replace(self, uncounted="", needs_review=False, question="", source="confirmed")

    def to_dict(self) -> dict[str, Any]:
        return {
            "tile": str(self.tile),
            "halves": [self.a, self.b],
            "confidence": round(self.confidence, 4),
            "box": None if self.box is None else self.box.to_list(),
            "needs_review": self.needs_review,
            "detection_confidence": round(self.detection_confidence, 4),
            "half_confidence": [round(c, 4) for c in self.half_confidence],
            **({} if self.not_pips is None else {"not_pips": round(self.not_pips, 4)}),
            **({"uncounted": self.uncounted} if self.uncounted else {}),
            **({"source": self.source} if self.source != "read" else {}),
            **({"question": self.question} if self.question else {}),
            **({"reason": self.reason} if self.reason else {}),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TileReading:
        a, b = (int(v) for v in data["halves"])
        box = data.get("box")
        pa, pb = (float(v) for v in data.get("half_confidence", (0.0, 0.0)))
        source, uncounted = str(data.get("source", "read")), str(data.get("uncounted", ""))
        reason = str(data.get("reason", ""))
        if source not in SOURCES or (uncounted and uncounted not in UNCOUNTED) or (
                reason and reason not in {r.value for r in Reason}):
            raise ValueError(f"not a tile reading: source {source!r}, uncounted {uncounted!r}, reason {reason!r}")
        return cls(a, b, float(data["confidence"]), None if box is None else OrientedBox.from_list(box),
                   bool(data.get("needs_review", False)), float(data.get("detection_confidence", 0.0)), (pa, pb),
                   None if data.get("not_pips") is None else float(data["not_pips"]), uncounted, source,
                   str(data.get("question", "")), reason)


@dataclass(frozen=True)
class Reading:
    """Everything read from one photo, with its score under a rule set.

    ``pips`` and ``penalty`` are those of the sure tiles alone: a tile flagged for review or
    asked about (:attr:`TileReading.open`) is left out until a player confirms it, so while any
    is open the penalty is a least one (:meth:`headline`: "at least N, M to check")."""

    tiles: tuple[TileReading, ...]
    pips: int
    penalty: int
    warnings: tuple[str, ...]
    image_size: tuple[int, int]
    rules: str = ""
    face_down: int = 0
    #: Possible tiles not counted (each says why in ``uncounted``); not in ``pips``.
    candidates: tuple[TileReading, ...] = ()
    timings_ms: Mapping[str, float] = field(default_factory=dict)
    #: Where the face-down tiles seen lie (original pixels), drawn on the annotated picture.
    backs: tuple[OrientedBox, ...] = ()

    @classmethod
    def scored(cls, tiles: Iterable[TileReading], candidates: Iterable[TileReading], rules: RuleSet,
               image_size: tuple[int, int], warnings: Iterable[str] = (), face_down: int = 0,
               backs: Iterable[OrientedBox] = ()) -> Reading:
        """The reading of these tiles, the pips and penalty of the sure ones under ``rules``."""
        tiles = tuple(tiles)
        values = [t.tile for t in tiles if t.sure]
        return cls(tiles, sum(t.pips for t in values), rules.penalty(values), tuple(warnings), image_size,
                   rules.name, face_down, tuple(candidates), backs=tuple(backs))

    @property
    def tile_list(self) -> list[Tile]:
        return [t.tile for t in self.tiles]

    @property
    def needs_review(self) -> bool:
        return any(t.needs_review or t.question for t in self.tiles)

    @property
    def to_check(self) -> int:
        """How many tiles are open (flagged or asked about): not in the penalty until checked."""
        return sum(t.open for t in self.tiles)

    @property
    def questions(self) -> tuple[TileReading, ...]:
        """The tiles the reader asks about (:attr:`TileReading.question`)."""
        return tuple(t for t in self.tiles if t.question)

    def headline(self) -> str:
        """The penalty as a player should read it: "penalty 23", or, while tiles are open,
        "penalty at least 23, 2 to check", or "nothing counted yet, 2 to check" (never "at least 0");
        "nothing read" when no tile was read at all: an unread photo is never a 0-point hand."""
        n = self.to_check
        if not self.tiles:
            return "nothing read"
        if not n:
            return f"penalty {self.penalty}"
        if not any(t.sure for t in self.tiles):
            return f"nothing counted yet, {n} to check"
        return f"penalty at least {self.penalty}, {n} to check"

    def to_dict(self) -> dict[str, Any]:
        return {
            "tiles": [t.to_dict() for t in self.tiles],
            # every tile listed (counted and to check); "counted" is the pips' and penalty's
            "count": len(self.tiles),
            "counted": sum(t.sure for t in self.tiles),
            "tiles_to_check": [str(t.tile) for t in self.tiles if t.open],
            "pips": self.pips,
            "penalty": self.penalty,
            "rules": self.rules,
            "needs_review": self.needs_review,
            "to_check": self.to_check,
            "headline": self.headline(),
            "face_down": self.face_down,
            "backs": [b.to_list() for b in self.backs],
            "candidates": [t.to_dict() for t in self.candidates],
            "image_size": list(self.image_size),
            "warnings": list(self.warnings),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Reading:
        w, h = (int(v) for v in data["image_size"])
        return cls(tuple(TileReading.from_dict(t) for t in data["tiles"]), int(data["pips"]), int(data["penalty"]),
                   tuple(str(x) for x in data.get("warnings", ())), (w, h), str(data.get("rules", "")),
                   int(data.get("face_down", 0)), tuple(TileReading.from_dict(t) for t in data.get("candidates", ())),
                   backs=tuple(OrientedBox.from_list(b) for b in data.get("backs", ())))
