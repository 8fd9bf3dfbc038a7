"""Counting one hand from a photo, outside any match: the photo read, reviewed and corrected
exactly as on the round screen, its penalty the result.

For a player who keeps the score on paper, or who wants to see the reader at work before
setting up a match. The count is under the default rules of the settings (what the 0-0 counts)
and for the set the player chooses. It is a draft of this device, kept while the app runs
(moving to another screen and back keeps it), never stored: nothing is scored.

The review is a one-hand :class:`chickenfoot.app.drafts.DraftContent`, so the round screen's
photo panel serves it unchanged. Flet-free.
"""

from __future__ import annotations

import dataclasses

from chickenfoot.rules import RuleSet, get_rules
from chickenfoot.rules.tiles import SETS

from .drafts import DraftContent
from .photo_review import PhotoReview
from .round_entry import RoundEntry
from .screens import PhotoPanel

#: The one hand counted, as the review's messages name it.
HAND = "this hand"
#: The seat of that hand in the draft.
SEAT = 0
#: The set a count starts with when the default rules name none for four players.
DEFAULT_TOP = 12


class HandCount:
    """The hand being counted: the rules, the set, the photo's review and its panel."""

    def __init__(self, preset: str, options: dict | None = None, top: int | None = None) -> None:
        self.rules: RuleSet = get_rules(preset, options or {})
        if top is None:
            top = self.rules.set_for(4)
        self.top = top if top in SETS else DEFAULT_TOP
        self.content = DraftContent(RoundEntry(self.rules, [HAND], self.top))
        self.panel = PhotoPanel()

    def photo(self, seat: int) -> PhotoPanel:
        """The photo panel (the round screen's state asks for it by seat)."""
        return self.panel

    @property
    def review(self) -> PhotoReview | None:
        return self.content.reviews.get(SEAT)

    def set_top(self, top: int) -> None:
        """Count for a double-``top`` set. A reading already made is kept (the photo was read
        for the widest set the reader knows): only what the review says about its tiles changes."""
        if top not in SETS:
            raise ValueError(f"sets are double-{', double-'.join(map(str, SETS))}, not double-{top}")
        review = self.review
        self.top = top
        self.content = DraftContent(RoundEntry(self.rules, [HAND], top))
        if review is not None:
            self.content.reviews[SEAT] = dataclasses.replace(review, top=top)
        self.panel.selected, self.panel.adding, self.panel.suit, self.panel.taken = None, False, None, None

    def clear(self) -> None:
        """Forget the photo and its reading: the next hand."""
        self.content.reviews.pop(SEAT, None)
        self.panel = PhotoPanel()
