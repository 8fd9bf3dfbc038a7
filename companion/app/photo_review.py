"""Reviewing what the tile reader saw in a photo, before the hand is scored.

The review holds the reader's own result, tile by tile: :class:`chickenfoot.vision.reading.TileReading`,
counted tiles first, then the possible tiles the reader was too unsure to count (shown, not
counted until the player accepts or corrects them). The player corrects a misread tile, adds a
missed one or removes a false one; each edit is a tile reading marked ``corrected`` or
``added``, so the corrected review is a :class:`chickenfoot.vision.reading.Reading` again (:attr:`PhotoReview.reading`).
The reader's review flag (``reader.json``'s ``review_conf``) says which tiles to check: such
a tile, and one the reader asks about (:attr:`chickenfoot.vision.reading.TileReading.question`: "Is this
the 0-0 (50) or a face-down tile?"), is open, listed but not in the penalty until the player
counts it (:meth:`PhotoReview.accept`), corrects or removes it; while any is open the headline
reads "23 points so far (4 tiles), 2 tiles to check" (:meth:`PhotoReview.headline`): exactly the tiles the
reader's policy stage left open, so the app, the CLI and the warnings ask the same. Drawing the
outlines is
:func:`chickenfoot.vision.draw.draw_tiles`; :class:`Preview` draws them on a display-sized copy
of the photo, numbers only, big enough to read on a phone, and cuts out each tile to check for
its row (:meth:`Preview.crop`).

A reading is a proposal: one with nothing counted, or with tiles still to check
(:attr:`PhotoReview.to_check`), is never used quietly; :meth:`PhotoReview.use_question` says what
to ask first, in a player's words ("Nothing was read in this photo: did Ann go out, or take
another photo?"), and ``drafts.DraftContent.use_photo`` applies the answer.

What a new player sees first is kept short: possible tiles the reader set apart (grass, a table
edge, print, a box astride two tiles, a tile in the box lid) wait behind one line
(:attr:`PhotoReview.unsure_finds`); a possible tile like the hand's tiles the reader asks about
itself, so it is open, not set apart. A photo is read for
the widest set the reader knows (:func:`read_top`), so tiles from a bigger set than the match's
are said to be so (:meth:`PhotoReview.set_note`) instead of being read as the nearest tile of the
match's set; the player can then have it read as the match's set.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from chickenfoot.rules import RuleSet, Tile
from chickenfoot.rules.errors import InputError
from chickenfoot.rules.tiles import SETS, check_in_set
from chickenfoot.rules.words import count

if TYPE_CHECKING:  # numpy and Pillow load when a photo is read, not when the app starts
    from PIL import Image

    from chickenfoot.vision.reader import Reader
    from chickenfoot.vision.reading import Reading, TileReading

#: Long side of the photo as the review shows it (pixels): enough to zoom in three times on a
#: phone, a fraction of a 12 MP photo's bytes to send.
PREVIEW_SIDE = 1280
#: Font size of the tile numbers drawn on the photo, in logical pixels of the screen it is shown
#: on (a digit is about 0.7 of it: larger than the body text's).
LABEL_PX = 20
#: What the reader's warnings about possible tiles begin with ("3 possible tiles look like...").
_ABOUT_FINDS = re.compile(r"^\d+ possible tiles? ")
#: Reader warnings about tiles the review lists as rows to check (said there, tile by tile).
_ABOUT_ROWS = re.compile(r"^\d+ tiles? (could be the 0-0|read with low confidence)")
#: The reader's measured note on small tiles, said instead in a player's words (:func:`plain`).
_SMALL = re.compile(r"^the tiles are small in this photo \(.*\)")


def plain(warning: str) -> str:
    """A reader's warning as a player reads it: no pixel sizes or thresholds."""
    if _SMALL.match(warning):
        return ("The tiles look small in this photo: a photo taken closer, with the tiles filling more of it, "
                "is read more surely.")
    return warning[:1].upper() + warning[1:]


#: The answers using a reading may ask for (:meth:`PhotoReview.use_question`).
OUT, RETAKE, EMPTY, CHECK, LEAVE = "out", "retake", "empty", "check", "leave"


@dataclass(frozen=True)
class UseQuestion:
    """What using a photo's reading asks first, and its answers: (key, button label)."""

    text: str
    answers: tuple[tuple[str, str], ...]

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(k for k, _ in self.answers)


class ReviewError(InputError):
    """A correction that cannot be applied (no such tile on the photo, tile outside the set)."""


def is_low(item: TileReading) -> bool:
    """Whether the reader asked for a second look at a tile it read (or did not count)."""
    return item.source == "read" and (item.needs_review or not item.counted)


def read_top(match_top: int, readable: int) -> int:
    """The set a photo is read for: the match's, or the widest the reader reads if that is
    wider, so a tile of a bigger set shows as what it is."""
    return max(match_top, readable)


def fitting_set(tiles: Sequence[Tile]) -> int | None:
    """The smallest set (:data:`SETS`) that holds every one of ``tiles``; None if none does."""
    top = max((t.high for t in tiles), default=0)
    return next((s for s in SETS if s >= top), None)


@dataclass
class PhotoReview:
    rules: RuleSet
    top: int
    items: list[TileReading] = field(default_factory=list)
    image_size: tuple[int, int] = (0, 0)
    #: The photo itself (encoded bytes) so the screen can show it with the outlines.
    image: bytes | None = None
    #: The reader's own penalty (shown to compare; the review's is used).
    reader_penalty: int | None = None
    #: What the reader warned about (no tiles found, a tile read twice, face-down tiles...).
    warnings: tuple[str, ...] = ()
    #: The set the photo was read for (:func:`read_top`; 0: the match's own, ``top``).
    read_as: int = 0
    #: Face-down tiles the reader saw (original pixels), drawn on the photo.
    backs: tuple[Any, ...] = ()

    # ------------------------------------------------------------- edits
    def _check(self, tile: Tile | str) -> Tile:
        t = Tile.parse(tile)
        try:
            return check_in_set(t, self.top)
        except InputError as exc:
            raise ReviewError(str(exc)) from None

    def _index(self, i: int) -> int:
        if not 0 <= i < len(self.items):
            raise ReviewError(f"there is no tile {i + 1} on this photo")
        return i

    def correct(self, i: int, tile: Tile | str) -> None:
        i = self._index(i)
        self.items[i] = self.items[i].corrected(self._check(tile))

    def accept(self, i: int) -> None:
        """Count a candidate or an open tile as read (the player says it is a tile and the
        reading is right; for a tile asked about, that it is the 0-0)."""
        i = self._index(i)
        if self.items[i].counted and not self.items[i].open:
            raise ReviewError(f"tile {i + 1} is already counted")
        self.items[i] = self.items[i].accepted()

    def add(self, tile: Tile | str) -> None:
        from chickenfoot.vision.reading import TileReading

        self.items.append(TileReading.added(self._check(tile)))

    def remove(self, i: int) -> None:
        """Take tile ``i`` out of the hand. A find on the photo is set aside, not deleted: every
        other tile keeps its number, on the photo and in the rows, and it can be counted again
        from the unsure finds; a tile added by hand (no place on the photo) goes."""
        i = self._index(i)
        it = self.items[i]
        if it.box is None:
            del self.items[i]
        else:
            self.items[i] = it.set_aside()

    # ----------------------------------------------------------- results
    @property
    def tiles(self) -> list[Tile]:
        """The tiles in the penalty: counted and not open."""
        return [it.tile for it in self.items if it.sure]

    @property
    def open(self) -> list[int]:
        """Tiles listed but not counted until the player checks them (flagged or asked about)."""
        return [i for i, it in enumerate(self.items) if it.open]

    @property
    def questions(self) -> list[int]:
        """Tiles the reader asks about (is it the 0-0 or a face-down tile?), not yet answered."""
        return [i for i, it in enumerate(self.items) if it.question and it.source == "read" and it.counted]

    def use_label(self) -> str:
        """The button that puts the reading in the hand, with the points it adds."""
        if not self.tiles:
            return "Use this photo"
        return f"Use these tiles ({count(self.penalty, 'point')})"

    def headline(self) -> str:
        """The photo's penalty as the review heads it (after "Penalty from this photo: "):
        "23 points (4 tiles)", "23 points so far (4 tiles), 2 tiles to check", "nothing read",
        and tiles read beyond the set named: "67 points (9 tiles), 3 tiles not in the double-9
        set". The tiles counted are said so that a player holding more sees a tile was missed."""
        n = len(self.to_check)
        check = f"{count(n, 'tile')} to check"
        if not self.tiles:
            return f"nothing counted yet, {check}" if n else "nothing read"
        pts = count(self.penalty, "point") + (" so far" if n else "") + f" ({count(len(self.tiles), 'tile')})"
        head = f"{pts}, {check}" if n else pts
        out = len(self.outside)
        # tiles beyond the set: the points stand for the tiles as read, not yet for this set's
        return f"{head}, {count(out, 'tile')} not in the double-{self.top} set" if out else head

    @property
    def to_check(self) -> list[int]:
        """Tiles the player is asked about, each a row of its own: those the reader flagged or asks
        about (open). Until each is counted, corrected or removed, using the reading asks first
        (:meth:`use_question`)."""
        return [i for i, it in enumerate(self.items) if it.open]

    def use_question(self, player: str) -> UseQuestion | None:
        """What using the reading asks first, in a player's words, or None when it can be used as
        it is: a reading with nothing counted never quietly becomes 0 points, and one with tiles
        still to check never quietly leaves them out."""
        n = len(self.to_check)
        if not self.tiles and not n:
            answers = ((OUT, f"{player} went out"), (RETAKE, "Take another photo"))
            if not self.rules.tile_penalty(Tile(0, 0)):
                # only where the 0-0 counts nothing can a player who did not go out hold 0 points;
                # elsewhere an empty hand is the one that went out
                answers += ((EMPTY, f"Keep 0 points for {player}"),)
            return UseQuestion(f"Nothing was read in this photo: did {player} go out, or take another photo?",
                               answers)
        if not self.tiles:
            return UseQuestion(f"Nothing is counted yet in this photo: {count(n, 'tile')} "
                               f"{'is' if n == 1 else 'are'} still to check.",
                               ((CHECK, "Check them"), (RETAKE, "Take another photo"), (OUT, f"{player} went out")))
        if n:
            pts = count(self.penalty, "point")
            return UseQuestion(f"{count(n, 'tile')} in this photo {'is' if n == 1 else 'are'} still to check: "
                               f"use {pts} without {'it' if n == 1 else 'them'}?",
                               ((CHECK, f"Check {'it' if n == 1 else 'them'} first"), (LEAVE, f"Use {pts}")))
        return None

    @property
    def candidates(self) -> list[int]:
        return [i for i, it in enumerate(self.items) if not it.counted]

    @property
    def low_confidence(self) -> list[int]:
        return [i for i, it in enumerate(self.items) if is_low(it)]

    @property
    def penalty(self) -> int:
        return self.rules.penalty(self.tiles)

    # ------------------------------------------------- what is shown first
    @property
    def unsure_finds(self) -> list[int]:
        """Possible tiles that are probably not tiles (grass, a table edge, print): hidden
        behind one line until the player asks to see them."""
        return [i for i, it in enumerate(self.items) if not it.counted]

    def shown(self, show_unsure: bool = False) -> list[int]:
        """The tiles drawn on the photo and listed under it."""
        hidden = set() if show_unsure else set(self.unsure_finds)
        return [i for i in range(len(self.items)) if i not in hidden]

    @property
    def notes(self) -> list[str]:
        """The reader's warnings in a player's words, less those the rows of tiles to check, the
        line of unsure finds and the tiles' own questions already say."""
        asked = tuple({it.question for it in self.items if it.question})
        return [plain(w) for w in self.warnings
                if not _ABOUT_FINDS.match(w) and not _ABOUT_ROWS.search(w) and not (asked and w.startswith(asked))]

    def finds_line(self, show_unsure: bool) -> str:
        """The one line that stands for the unsure finds ("" when there are none)."""
        n = len(self.unsure_finds)
        if not n:
            return ""
        what = "unsure find" if n == 1 else "unsure finds"
        return f"{n} {what} shown in grey: hide" if show_unsure else f"{n} {what}: show"

    # ----------------------------------------------------- the match's set
    @property
    def outside(self) -> list[int]:
        """Counted tiles that are not in the match's set (a 1-10 in a double-9 match)."""
        return [i for i, it in enumerate(self.items) if it.counted and it.tile.high > self.top]

    @property
    def fits(self) -> int | None:
        """The set the counted tiles fit when some are outside the match's set."""
        return fitting_set([it.tile for it in self.items if it.counted]) if self.outside else None

    def set_note(self, match: bool = True) -> str:
        """Why the tiles cannot be used as read, and what set they fit ("" when they can).
        ``match``: the set is a match's; else the one chosen for a hand counted on its own,
        which the player may change."""
        out = self.outside
        if not out:
            return ""
        which = ", ".join(f"{i + 1} ({self.items[i].tile})" for i in out)
        one = len(out) == 1
        fits = self.fits
        where = f"the tiles read fit a double-{fits} set" if fits else "no set holds the tiles read"
        these = "it" if one else "them"
        head = (f"{'Tile' if one else 'Tiles'} {which} {'is' if one else 'are'} not in the double-{self.top} "
                f"set {'this match plays' if match else 'chosen'}; {where}. If your tiles are double-{self.top}, "
                f"read the photo as double-{self.top}; ")
        if not match:
            return head + (f"if they are double-{fits}, count it as double-{fits}." if fits
                           else f"else correct or remove {these}.")
        return head + (f"if they are double-{fits or 18}, correct or remove {these} (this match "
                       f"was set up for double-{self.top}).")

    @property
    def reading(self) -> Reading:
        """The photo's reading as corrected: what the hand is scored from."""
        from chickenfoot.vision.reading import Reading

        return Reading.scored([it for it in self.items if it.counted], [it for it in self.items if not it.counted],
                              self.rules, self.image_size, self.warnings, backs=self.backs)

    def tiles_centre(self, shown: Sequence[int]) -> tuple[float, float] | None:
        """The middle of the outlined tiles ``shown`` (image pixels), what zooming in is about: a
        hand photographed on a table often fills a small part of the photo, away from its
        corner. None when none of them has a box."""
        xs: list[float] = []
        ys: list[float] = []
        for i in shown:
            box = self.items[i].box
            if box is not None:
                for p in box.corners().tolist():
                    xs.append(float(p[0]))
                    ys.append(float(p[1]))
        if not xs:
            return None
        return (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2

    def tile_at(self, x: float, y: float) -> int | None:
        """Index of the outlined tile under image point (x, y) (a tap on the photo)."""
        for i in range(len(self.items) - 1, -1, -1):
            box = self.items[i].box
            if box is not None and _inside([tuple(p) for p in box.corners().tolist()], x, y):
                return i
        return None


def _inside(poly: list[tuple[float, float]], x: float, y: float) -> bool:
    inside = False
    n = len(poly)
    for k in range(n):
        (x1, y1), (x2, y2) = poly[k], poly[(k + 1) % n]
        if (y1 > y) != (y2 > y) and x < (x2 - x1) * (y - y1) / (y2 - y1) + x1:
            inside = not inside
    return inside


def from_reading(rules: RuleSet, top: int, reading: Reading, image: bytes | None = None,
                 read_as: int = 0) -> PhotoReview:
    """A review of the reader's result: its tiles, then the finds it set apart (so the numbers
    shown first run from 1 without gaps)."""
    return PhotoReview(rules, top, [*reading.tiles, *reading.candidates], reading.image_size, image,
                       reading.penalty, reading.warnings, read_as, reading.backs)


class Preview:
    """The photo as the review shows it: decoded once at display size (:data:`PREVIEW_SIDE`),
    upright, with the shown tiles outlined and numbered at :data:`LABEL_PX` on the screen it is
    shown ``shown_width`` logical pixels wide; a JPEG, drawn again only when the tiles or what is
    shown change. One per photo panel; safe to use from the worker thread that read the photo."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._photo: str | None = None
        self._base: Image.Image | None = None
        self._key: Any = None
        self._jpeg = b""
        self._crops: dict[Any, bytes] = {}

    def set_photo(self, image: bytes, decoded: Image.Image | None = None) -> None:
        """Take the photo (its file bytes); ``decoded``: the same photo already decoded upright
        at any size (the reader's working copy), which spares decoding it again."""
        key = hashlib.sha256(image).hexdigest()
        with self._lock:
            if key == self._photo and self._base is not None:
                return
            if decoded is None:
                from chickenfoot.vision.images import load_image

                decoded = load_image(image, PREVIEW_SIDE).image
            base = decoded.convert("RGB")
            scale = PREVIEW_SIDE / max(base.size)
            if scale < 1.0:
                base = base.resize((max(1, round(base.width * scale)), max(1, round(base.height * scale))),
                                   _resample())
            self._photo, self._base, self._key, self._crops = key, base, None, {}

    @property
    def size(self) -> tuple[int, int]:
        """The preview's size in pixels ((0, 0) before a photo is set)."""
        return (0, 0) if self._base is None else self._base.size

    def jpeg(self, review: PhotoReview, shown_width: float, show_unsure: bool = False) -> bytes:
        """The photo with the tiles :meth:`PhotoReview.shown` outlined and numbered."""
        from chickenfoot.vision.draw import draw_tiles

        if review.image is None:
            raise ReviewError("no photo to show")
        self.set_photo(review.image)
        with self._lock:
            assert self._base is not None
            key = (self._photo, json.dumps([it.to_dict() for it in review.items]), round(shown_width), show_unsure)
            if key != self._key:
                base = self._base
                size = review.image_size if review.image_size[0] else base.size
                hidden = set(range(len(review.items))) - set(review.shown(show_unsure))
                out = io.BytesIO()
                draw_tiles(base, review.items, size, numbered=True, show_confidence=False, values=False,
                           font_px=label_font_px(base.width, shown_width), skip=hidden, backs=review.backs
                           ).save(out, format="JPEG", quality=85)
                self._key, self._jpeg = key, out.getvalue()
            return self._jpeg


    def crop(self, review: PhotoReview, i: int, side: int = 112) -> bytes:
        """Tile ``i`` cut out of the photo with a margin round it, a JPEG ``side`` px on its long
        side: the row that asks about the tile shows it, so nobody hunts for it on the photo."""
        box = review.items[i].box
        if review.image is None or box is None:
            raise ReviewError(f"tile {i + 1} has no place on the photo")
        self.set_photo(review.image)
        with self._lock:
            assert self._base is not None
            base = self._base
            key = (self._photo, json.dumps(box.to_list()), side)
            hit = self._crops.get(key)
            if hit is not None:
                return hit
            k = base.width / (review.image_size[0] or base.width)
            xs = [float(p[0]) * k for p in box.corners().tolist()]
            ys = [float(p[1]) * k for p in box.corners().tolist()]
            pad = 0.15 * max(max(xs) - min(xs), max(ys) - min(ys))
            area = (max(0, round(min(xs) - pad)), max(0, round(min(ys) - pad)),
                    min(base.width, round(max(xs) + pad)), min(base.height, round(max(ys) + pad)))
            cut = base.crop(area) if area[2] > area[0] and area[3] > area[1] else base.copy()
            scale = side / max(cut.size)
            cut = cut.resize((max(1, round(cut.width * scale)), max(1, round(cut.height * scale))), _resample())
            out = io.BytesIO()
            cut.save(out, format="JPEG", quality=85)
            self._crops[key] = out.getvalue()
            return self._crops[key]


def label_font_px(preview_width: int, shown_width: float) -> int:
    """Font size, in preview pixels, that shows :data:`LABEL_PX` high on a screen where the
    preview is ``shown_width`` logical pixels wide."""
    return max(12, round(LABEL_PX * preview_width / max(shown_width, 1.0)))


def _resample() -> Any:
    from PIL import Image

    return Image.Resampling.BILINEAR


def read_photo(reader: Reader, data: bytes, rules: RuleSet, top: int, preview: Preview, shown_width: float,
               *, as_match_set: bool = False, name: str | None = None) -> tuple[PhotoReview, dict[str, float]]:
    """Read a photo of a hand for a double-``top`` match and draw its preview, decoding the
    photo once: the review and the time each step took (ms). Read for the widest set the reader
    knows unless ``as_match_set``. Raises the reader's errors (a bad file, missing models), which
    call the file ``name``."""
    t0 = time.perf_counter()
    loaded = reader.load(data, name)
    t1 = time.perf_counter()
    read_as = top if as_match_set else read_top(top, reader.readable_top(None))
    reading = reader.read(loaded, rules, read_as)
    t2 = time.perf_counter()
    review = from_reading(rules, top, reading, data, read_as)
    preview.set_photo(data, loaded.image)
    preview.jpeg(review, shown_width)
    t3 = time.perf_counter()
    stages = {k: v for k, v in reading.timings_ms.items() if k != "decode"}
    return review, {"decode": (t1 - t0) * 1e3, **stages, "read": (t2 - t1) * 1e3, "preview": (t3 - t2) * 1e3}


def warm(reader: Reader) -> None:
    """Run the reader once on a small blank picture, so its models are ready for the first
    photo (the first run of a model costs several times a later one)."""
    from PIL import Image

    reader.read(Image.new("RGB", (640, 480), (190, 170, 140)))
    reader.read_half_crop([Image.new("RGB", (64, 64), (240, 240, 235))])
