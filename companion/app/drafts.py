"""What a stored round draft holds for the round screen: the hands and the photo readings.

A :class:`chickenfoot.match.RoundDraft` keeps its entry as plain data; this module says what that
data is: the :class:`RoundEntry` (went out, numbers, tiles) and, per hand, a photo reading not yet
used (:class:`PhotoReview`, its photo kept beside the scorekeeper file under its SHA-256). Both
go through small explicit ``*_to_dict`` / ``*_from_dict`` functions of what the app holds, so a
half-entered round and an unconfirmed reading survive a reload, a restart or a crash.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from chickenfoot.rules import RuleSet, Tile

from .photo_review import CHECK, EMPTY, LEAVE, OUT, RETAKE, PhotoReview, ReviewError, UseQuestion
from .round_entry import Mode, RoundEntry, TakenError


def photo_key(image: bytes) -> str:
    """The name a photo is kept under (the storage names it the same way)."""
    return hashlib.sha256(image).hexdigest()


def review_to_dict(review: PhotoReview) -> dict[str, Any]:
    return {
        "items": [it.to_dict() for it in review.items],
        "image_size": list(review.image_size),
        "image": None if review.image is None else photo_key(review.image),
        "reader_penalty": review.reader_penalty,
        "warnings": list(review.warnings),
        "read_as": review.read_as,
        "backs": [b.to_list() for b in review.backs],
    }


def review_from_dict(data: dict[str, Any], rules: RuleSet, top: int,
                     photo: Callable[[str], bytes | None]) -> PhotoReview:
    """Raises ``KeyError``/``TypeError``/``ValueError`` on data that is not a kept review."""
    from chickenfoot.vision.geometry import OrientedBox
    from chickenfoot.vision.reading import TileReading  # numpy loads with a kept reading, not at start-up

    items = [TileReading.from_dict(it) for it in data["items"]]
    key = data.get("image")
    image = photo(key) if isinstance(key, str) else None
    w, h = data["image_size"]
    pen = data.get("reader_penalty")
    read_as = data.get("read_as", 0)
    return PhotoReview(rules, top, items, (int(w), int(h)), image,
                       pen if isinstance(pen, int) and not isinstance(pen, bool) else None,
                       tuple(str(x) for x in data.get("warnings", ())),
                       read_as if isinstance(read_as, int) and not isinstance(read_as, bool) else 0,
                       tuple(OrientedBox.from_list(b) for b in data.get("backs", ())))


@dataclass
class DraftContent:
    """The round screen's view of one draft: the entry, and photo reviews by seat."""

    entry: RoundEntry
    reviews: dict[int, PhotoReview] = field(default_factory=dict)
    #: Photos this draft has used: kept (and removed with the draft) even after their reading
    #: became a hand, so the storage knows which files to remove when the round is saved.
    photos: set[str] = field(default_factory=set)
    #: Readings used for a hand, by seat, kept so the hand's reading can be opened again (its
    #: numbered photo, its tiles to check) until the round is saved.
    used: dict[int, PhotoReview] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        photos = {str(i): review_to_dict(r) for i, r in sorted(self.reviews.items())}
        used = {str(i): review_to_dict(r) for i, r in sorted(self.used.items())}
        blobs = sorted(self.photos | {p["image"] for p in (*photos.values(), *used.values()) if p["image"]})
        return {"entry": self.entry.to_dict(), "photos": photos, "blobs": blobs, "used": used}

    @classmethod
    def from_dict(cls, data: dict[str, Any], rules: RuleSet, players: list[str], top: int,
                  double: int | None, photo: Callable[[str], bytes | None]) -> DraftContent:
        entry = RoundEntry.from_dict(data.get("entry"), rules, players, top, double)

        def readings(key: str) -> dict[int, PhotoReview]:
            out: dict[int, PhotoReview] = {}
            kept = data.get(key)
            for k, raw in (kept.items() if isinstance(kept, dict) else ()):
                try:
                    seat = int(k)
                    if 0 <= seat < len(players):
                        out[seat] = review_from_dict(raw, rules, top, photo)
                except (KeyError, TypeError, ValueError, IndexError):
                    continue  # a reading that cannot be read back is dropped, not guessed
            return out

        blobs = data.get("blobs")
        kept = {k for k in blobs if isinstance(k, str)} if isinstance(blobs, list) else set()
        return cls(entry, readings("photos"), kept, readings("used"))

    def use_photo(self, seat: int, answer: str | None = None) -> UseQuestion | None:
        """Use seat's photo reading for its hand. A reading with nothing counted, or with tiles
        still to check, is a proposal: without ``answer`` the question it asks comes back and
        nothing changes. Answers: ``out`` (the player went out), ``empty`` (0 points: the player
        says so), ``leave`` (the counted tiles, those to check left out); ``check`` and
        ``retake`` change nothing here (the screen shows the tiles or the camera)."""
        review = self.reviews.get(seat)
        if review is None:
            raise ReviewError(f"there is no photo reading for {self.entry.hands[seat].player}")
        q = review.use_question(self.entry.hands[seat].player)
        if q is not None and answer is None:
            return q
        if answer is not None and (q is None or answer not in q.keys):
            raise ReviewError(f"{answer!r} does not answer this photo's question")
        if answer in (CHECK, RETAKE):
            return None
        del self.reviews[seat]
        self.used.pop(seat, None)
        if answer == OUT:
            self.entry.went_out(seat)
        else:
            assert answer in (None, LEAVE, EMPTY)
            self.entry.set_tiles(seat, [] if answer == EMPTY else review.tiles, Mode.PHOTO)
            if answer != EMPTY:
                self.used[seat] = review
        return None

    def can_reopen(self, seat: int) -> bool:
        """Whether seat's hand is still the tiles its used photo reading counted (nothing changed
        since), so the reading can be opened again."""
        review, h = self.used.get(seat), self.entry.hands[seat]
        return (review is not None and seat not in self.reviews and h.mode is Mode.PHOTO
                and sorted(h.tiles) == sorted(review.tiles))

    def reopen_photo(self, seat: int) -> None:
        """Open seat's used photo reading again, to check or correct it; the hand keeps its tiles
        until the reading is used again. A hand changed since (tiles corrected by hand, a number
        typed) is not the reading any more: refused, and the reading let go."""
        if seat not in self.used:
            raise ReviewError(f"no photo reading was used for {self.entry.hands[seat].player}'s hand")
        if not self.can_reopen(seat):
            del self.used[seat]
            raise ReviewError(f"{self.entry.hands[seat].player}'s hand was changed after its photo was used, so "
                              "the reading is not the hand any more: choose the photo again to read it anew")
        self.reviews[seat] = self.used.pop(seat)

    def on_table_in_review(self, seat: int) -> list[int]:
        """Tiles of seat's photo reading that are the double on the table (1-based numbers as
        the photo shows them)."""
        review = self.reviews.get(seat)
        d = self.entry.on_table
        if review is None or d is None:
            return []
        return [k + 1 for k, it in enumerate(review.items) if it.counted and it.tile == d]

    # ------------------------------------------------------------ taken tiles
    def photo_tiles(self) -> dict[int, list[Tile]]:
        """Tiles counted in each seat's photo reading not yet used for its hand. A reading left
        unused after the hand was entered another way (a number, tiles, went out) holds none:
        the player chose otherwise, and its tiles must not block the other hands' photos."""
        return {seat: r.tiles for seat, r in self.reviews.items()
                if self.entry.hands[seat].mode in (Mode.UNSET, Mode.PHOTO)}

    def taken(self, seat: int) -> dict[Tile, tuple[int, bool]]:
        """Tiles another seat holds, entered or read from its photo (see ``RoundEntry.taken``)."""
        return self.entry.taken(seat, self.photo_tiles())

    def add_tile(self, seat: int, tile: Tile | str) -> None:
        """Pick ``tile`` for seat's hand: refused with :class:`TakenError` when another hand holds
        it, entered or read from a photo."""
        self.entry.add_tile(seat, tile, self.photo_tiles())

    def move_tile(self, seat: int, tile: Tile | str) -> list[str]:
        """Move ``tile`` to seat's hand from whoever else holds it: out of the hands it was
        entered for, and out of other seats' photo readings not yet used. Returns who lost it."""
        t = self.entry.check_tile(seat, tile)  # outside the set, or the double on the table
        moved = self.entry.move_tile(seat, t)
        self._drop_from_readings(seat, t, moved)
        return moved

    def _drop_from_readings(self, seat: int, t: Tile, moved: list[str]) -> None:
        for k, r in sorted(self.reviews.items()):
            if k == seat:
                continue
            hits = [n for n, it in enumerate(r.items) if it.counted and it.tile == t]
            for n in reversed(hits):
                r.remove(n)
            if hits and self.entry.hands[k].player not in moved:
                moved.append(self.entry.hands[k].player)

    def check_free(self, seat: int, tile: Tile | str) -> Tile:
        """``tile`` if seat's hand may take it (picked, or a correction of its photo reading),
        else :class:`TakenError`: another hand holds it, entered or read from its photo."""
        return self.entry.check_free(seat, tile, self.photo_tiles())

    def correct_moving(self, seat: int, index: int | None, tile: Tile | str) -> list[str]:
        """Correct tile ``index`` of seat's photo reading to ``tile`` (``None``: add it as a
        missed tile), taking ``tile`` from whoever else holds it. Returns who lost it."""
        review = self.reviews[seat]
        t = self.entry.check_tile(seat, tile)
        moved = self.entry.take_from_others(seat, t)
        self._drop_from_readings(seat, t, moved)
        if index is None:
            review.add(t)
        else:
            review.correct(index, t)
        return moved

    def clashes_in_review(self, seat: int) -> list[tuple[int, TakenError]]:
        """Counted tiles of seat's photo reading another hand already holds: (1-based number as
        the photo shows it, why)."""
        review = self.reviews.get(seat)
        if review is None:
            return []
        taken = self.taken(seat)
        out = []
        for k, it in enumerate(review.items):
            who = taken.get(it.tile) if it.counted else None
            if who is not None:
                h = self.entry.hands
                out.append((k + 1, TakenError(it.tile, h[seat].player, h[who[0]].player, who[0], who[1])))
        return out
