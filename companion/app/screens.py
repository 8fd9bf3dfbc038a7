"""The typed state each screen keeps while it is shown (see :meth:`Session.state_of
<chickenfoot.app.session.Session.state_of>`): which pad or panel is open, a question being
asked, the suit of faces shown. Flet-free; made afresh whenever another screen is shown.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .photo_review import Preview


@dataclass
class ScoreboardState:
    #: What the match's management asks about ("rename", "abandon", "delete"), if anything.
    asking: str | None = None
    #: A name refused for a seat: (seat, the name as typed, why), shown under its field.
    refused: tuple[int, str, str] | None = None


@dataclass
class DisputeState:
    """The dispute checker on this device: the tile picker in its sheet under the board."""

    #: The suit whose faces are shown, as the player chose it (None: the number the chosen open
    #: end needs, else the set's highest; see DisputeBuilder.suit_for).
    suit: int | None = None
    #: Whether the picker's faces are shown (the player may fold them away for more board).
    picking: bool = True
    #: Whether "New table" is being asked about (the table has tiles that would be lost).
    clearing: bool = False
    #: A tile tapped before any open end was chosen: judged on the end tapped next.
    waiting: Any = None

    def end_chosen(self) -> None:
        """An open end was chosen: the faces it needs are shown, the picker opened for them."""
        self.suit, self.picking = None, True

    def toggle_picker(self) -> None:
        self.picking = not self.picking


@dataclass
class PhotoPanel:
    """One hand's photo panel on the round screen."""

    #: What it is waiting for ("Reading the tiles…"), empty when idle.
    busy: str = ""
    #: Why the last photo could not be read.
    error: str | None = None
    #: The tile of the reading being corrected, or a missed tile being added.
    selected: int | None = None
    adding: bool = False
    #: Whether the unsure finds are shown.
    show_unsure: bool = False
    #: Whether Use was tapped on a reading that asks first (its question is shown).
    asking: bool = False
    #: A correction refused because another hand holds that tile (its name).
    taken: str | None = None
    #: The suit of faces shown for a correction.
    suit: int | None = None
    #: The annotated photo as last drawn (kept while the photo is the same).
    preview: Preview = field(default_factory=Preview, compare=False)
    #: Opens the picker for this hand (the Photo button does it at once: one tap).
    choose: Callable[[Any], Any] | None = field(default=None, compare=False)


@dataclass
class RoundState:
    """The round screen on this device: the stored draft it shows, and what is open here."""

    #: The draft shown (its id) and its revision as drawn last.
    draft: str | None = None
    seen: int | None = None
    #: False until the screen has chosen where the pad opens (on the first hand to enter).
    placed: bool = False
    #: The hand the number pad types for, and whether the next key starts the number afresh.
    pad: int | None = None
    fresh: bool = False
    #: The panel open under a hand: (seat, "tiles" or "photo").
    panel: tuple[int, str] | None = None
    #: The suit of faces shown in the tile picker.
    suit: int | None = None
    #: Something to say at the top (an edit that crossed another device's).
    notice: str | None = None
    #: Save met a round changed on another device: it is replaced only by the notice's own
    #: button (Save is off meanwhile, so a double tap on Save never replaces it unseen).
    conflict: bool = False
    #: What was just done, said above Save (never a toast over it): "Dee: 0 points, so Dee went out".
    said: str | None = None
    #: The seat whose typed penalty Save asks about (more than a hand can count), if any.
    checking: int | None = None
    #: The seat to bring into view once the screen is drawn (the hand the pad types for).
    reveal: int | None = None
    #: (seat, tile) of a taken tile tapped in the picker, refused.
    refused: tuple[int, str] | None = None
    #: The hand the pad or the tile picker works on, as this device last drew it (see
    #: :meth:`moved_elsewhere`).
    working: tuple[int, Any] | None = None
    photos: dict[int, PhotoPanel] = field(default_factory=dict)

    def open_pad(self, i: int | None) -> None:
        """The pad types for hand ``i`` (None: closed), a new number; any panel closes."""
        self.placed, self.pad, self.fresh, self.panel = True, i, True, None

    def place(self, first_open: int | None) -> None:
        """The screen was just opened (maybe in a round half entered): the pad types for the
        first hand still to enter, and that hand's row is brought into view, never left hidden
        under the pad."""
        self.open_pad(first_open)
        self.reveal = first_open

    def reconnected(self) -> None:
        """The browser was refreshed (or came back online) and draws the screen afresh at its
        top: the hand the pad or a panel works on is brought into view again, never left under
        the pad."""
        self.reveal = self.pad if self.pad is not None else (self.panel[0] if self.panel else None)

    def take_reveal(self) -> int | None:
        """The seat to bring into view now (once)."""
        seat, self.reveal = self.reveal, None
        return seat

    def open_panel(self, i: int, kind: str) -> None:
        """Hand ``i``'s tile picker or photo panel opens; the pad closes."""
        self.placed, self.pad, self.panel = True, None, (i, kind)

    def active(self, i: int) -> bool:
        """Whether hand ``i`` is the one being worked on (the pad or a panel is its)."""
        return self.pad == i or (self.panel is not None and self.panel[0] == i)

    def moved_elsewhere(self, entry: Any, elsewhere: bool) -> str | None:
        """Another device changed the hand this one's pad (or tile picker) works on: the pad
        moves to the next hand still to enter (the picker closes), so the next key tapped here
        never types over what was entered there. Returns that player's name, else None.
        ``entry``: the round's entry now; ``elsewhere``: its draft changed on another device
        since this one drew it."""
        hands = entry.hands
        seat = self.pad if self.pad is not None else (self.panel[0] if self.panel and self.panel[1] == "tiles"
                                                      else None)
        now = None if seat is None else (seat, _shape(hands[seat]))
        moved = (elsewhere and seat is not None and self.working is not None and self.working[0] == seat
                 and self.working != now)
        self.working = now
        if not moved or seat is None:
            return None
        nxt = entry.next_open(seat)
        self.open_pad(nxt)
        self.working = None if nxt is None else (nxt, _shape(hands[nxt]))
        return str(hands[seat].player)

    def photo(self, i: int) -> PhotoPanel:
        """Hand ``i``'s photo panel (a new one the first time)."""
        return self.photos.setdefault(i, PhotoPanel())


def _shape(hand: Any) -> tuple[Any, ...]:
    """What a hand holds, to tell whether it changed: its way of entry, number and tiles."""
    return (hand.mode, hand.pips, tuple(hand.tiles))
