"""A hand counted from a photo outside any match (:class:`chickenfoot.app.hand_count.HandCount`):
its set, the review kept across a change of set, and a fresh start."""

from __future__ import annotations

import pytest

from chickenfoot.app.hand_count import SEAT, HandCount
from chickenfoot.app.photo_review import PhotoReview
from chickenfoot.vision.geometry import OrientedBox
from chickenfoot.vision.reading import TileReading


def _read(a: int, b: int, x: float) -> TileReading:
    return TileReading(a, b, 0.95, OrientedBox(x, 30, 80, 40, 0.0), False, 0.95, (1.0, 0.95))


def test_the_set_starts_as_the_default_rules_deal_for_four_and_can_be_chosen() -> None:
    hc = HandCount("pagat")
    assert hc.top == hc.rules.set_for(4) and hc.review is None
    assert hc.content.entry.hands[SEAT].player == "this hand"
    hc.set_top(9)
    assert hc.top == 9 and hc.content.entry.top == 9
    with pytest.raises(ValueError, match="not double-7"):
        hc.set_top(7)
    assert hc.top == 9


def test_a_reading_outside_the_set_chosen_says_which_set_it_fits_and_is_kept_when_the_set_changes() -> None:
    hc = HandCount("pagat", top=9)
    hc.content.reviews[SEAT] = PhotoReview(hc.rules, 9, [_read(1, 10, 50), _read(2, 3, 150)], (300, 100), b"jpeg")
    review = hc.review
    assert review is not None and review.outside == [0] and review.fits == 12
    note = review.set_note(match=False)
    assert note.startswith("Tile 1 (1-10) is not in the double-9 set chosen; the tiles read fit a double-12 set.")
    assert note.endswith("if they are double-12, count it as double-12.") and "match" not in note
    hc.set_top(12)
    review = hc.review
    assert review is not None and review.top == 12 and review.outside == [] and review.penalty == 16
    assert review.image == b"jpeg"


def test_another_hand_forgets_the_photo_and_what_was_open() -> None:
    hc = HandCount("pagat")
    hc.content.reviews[SEAT] = PhotoReview(hc.rules, hc.top, [_read(2, 3, 50)], (300, 100))
    hc.photo(SEAT).selected = 0
    hc.clear()
    assert hc.review is None and hc.photo(SEAT).selected is None
