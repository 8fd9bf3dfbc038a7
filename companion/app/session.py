"""One device's session: what the screens read (the scorekeeper file, the settings, this
device's drafts) and the typed state of the screen now shown. Flet-free: the shell draws it,
the tests drive it directly.

A screen's state is a dataclass of its own (which pad is open, a question being asked...),
made afresh whenever another route is shown, so nothing said on one screen shows up on
another. Drafts (a new match being set up, the dispute checker's table, a practice round)
survive moving between screens.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from chickenfoot.rules.errors import ChickenFootError

from .dispute import DisputeBuilder
from .hand_count import HandCount
from .match_session import MatchSession
from .practice_session import PracticeSession, PracticeSetup
from .routes import parse
from .screens import RoundState
from .settings import Settings
from .setup import MatchSetup
from .store import DraftNotFoundError, MatchStore

S = TypeVar("S")

#: Screens Back never returns to: a form that was finished (the new match, a round saved or given
#: up); Back from what followed goes to the screen before it.
NOT_BACK = ("new", "round")
#: How many screens the way back remembers.
TRAIL_MAX = 24


class Shared(Protocol):
    """What every session of one server shares (see :class:`chickenfoot.app.shell.AppContext`)."""

    store: MatchStore
    settings: Settings


@dataclass
class DisputePhoto:
    """The dispute checker's table photo being read: whether it is under way, what went wrong,
    and the question asked before a photo replaces a table typed tile by tile."""

    busy: bool = False
    error: str | None = None
    #: Asking whether the photo may replace the typed table.
    ask: bool = False
    #: The user said yes: the next photo replaces it.
    replace: bool = False


@dataclass
class Drafts:
    """Work in progress on this device that survives moving between screens."""

    #: The new-match form.
    setup: MatchSetup | None = None
    #: The dispute checker's table, the tile typed into it and a correction being typed.
    dispute: DisputeBuilder | None = None
    dispute_tile: str = ""
    dispute_fix: str = ""
    dispute_photo: DisputePhoto = field(default_factory=DisputePhoto)
    #: The table as last kept on the device ("" none; None: not asked for yet this session),
    #: and whether the device's table is being fetched (nothing is kept over it meanwhile).
    dispute_kept: str | None = None
    dispute_fetching: bool = False
    #: The practice form, and the practice round being played.
    practice_setup: PracticeSetup | None = None
    practice: PracticeSession | None = None
    #: A hand being counted from a photo, outside any match.
    hand_count: HandCount | None = None


@dataclass
class NoState:
    """The state of a screen that shows only what the session holds."""


def sentence(message: str) -> str:
    """``message`` as a sentence on the screen: a capital first, unless it starts with a file's
    name, which is written as it is."""
    first = message.split(" ", 1)[0]
    return message if "." in first.rstrip(".:,") else message[:1].upper() + message[1:]


class Session:
    """One browser tab or desktop window, without its drawing."""

    def __init__(self, shared: Shared, device: str | None = None) -> None:
        self.shared = shared
        #: Names this device where it matters (who saved a round).
        self.device = device or uuid.uuid4().hex[:12]
        self.drafts = Drafts()
        #: The route now shown, and a number that changes with each screen opened afresh.
        self.route: str | None = None
        self.seq = 0
        #: The state of the screen now shown (see :meth:`state_of`).
        self.state: Any = None
        #: What went wrong on the screen now shown (see :meth:`say`).
        self.error: str | None = None
        #: What a data-only screen showed when it was last drawn (see :meth:`shown_data`).
        self.shown: Any = None
        #: The screens that led here, the one shown last (see :meth:`back_from`).
        self.trail: list[str] = []
        #: A scroll key the next screen shown brings into view (see :meth:`reveal_next`).
        self.reveal: str | None = None

    @property
    def store(self) -> MatchStore:
        return self.shared.store

    @property
    def settings(self) -> Settings:
        return self.shared.settings

    def match(self, match_id: str) -> MatchSession:
        """The match ``match_id`` in progress (raises if there is none)."""
        return MatchSession(self.store, match_id)

    # -------------------------------------------------------------- drafts
    def setup_form(self) -> MatchSetup:
        """The new-match form being filled in (a new one from the default rules at first)."""
        if self.drafts.setup is None:
            st = self.settings
            self.drafts.setup = MatchSetup(st.default_preset, dict(st.default_options))
        return self.drafts.setup

    def dispute_table(self) -> DisputeBuilder:
        """The dispute checker's table (a new double-9 one under the default rules at first)."""
        if self.drafts.dispute is None:
            self.drafts.dispute = DisputeBuilder(self.settings.default_preset, 9)
        return self.drafts.dispute

    def hand_count(self) -> HandCount:
        """The hand being counted from a photo (under the default rules at first)."""
        if self.drafts.hand_count is None:
            st = self.settings
            self.drafts.hand_count = HandCount(st.default_preset, dict(st.default_options))
        return self.drafts.hand_count

    def practice_form(self) -> PracticeSetup:
        """The practice choices (the default rules at first)."""
        if self.drafts.practice_setup is None:
            st = self.settings
            self.drafts.practice_setup = PracticeSetup(st.default_preset, dict(st.default_options))
        return self.drafts.practice_setup

    # ------------------------------------------------------------ screens
    def visit(self, route: str) -> bool:
        """``route`` is about to be drawn: True if it is another screen than the one shown
        (which then opens afresh)."""
        if route == self.route:
            return False
        self.route = route
        self._walk(route.split("?")[0])
        self.renew()
        return True

    def _walk(self, path: str) -> None:
        """Keep the way here: a screen shown again (by Back, or by a link to where the player
        was) ends the trail there, so Back never walks into a loop."""
        if path in self.trail:
            del self.trail[self.trail.index(path) + 1:]
        else:
            self.trail = [*self.trail, path][-TRAIL_MAX:]

    def back_from(self, default: str | None) -> str | None:
        """Where Back goes from the screen shown: the screen the player came from (never a
        finished form, see :data:`NOT_BACK`), else ``default`` (the screen's own parent); None
        for a screen without Back."""
        if default is None:
            return None
        for prev in reversed(self.trail[:-1]):
            r = parse(prev)
            if r is not None and r.screen not in NOT_BACK:
                return prev
        return default

    def reveal_next(self, key: str) -> None:
        """The next screen shown scrolls the control keyed ``key`` into view (the round just
        edited, on the scoreboard the player returns to)."""
        self.reveal = key

    def take_reveal(self) -> str | None:
        key, self.reveal = self.reveal, None
        return key

    def renew(self) -> None:
        """Open the screen shown afresh: its state and message forgotten."""
        self.state = None
        self.error = None
        self.seq += 1

    def state_of(self, kind: type[S]) -> S:
        """The state of the screen shown, of type ``kind`` (a new one when there is none yet)."""
        if not isinstance(self.state, kind):
            self.state = kind()
        return self.state

    def say(self, message: str) -> None:
        """Say what went wrong on this screen, until the next action there or another screen."""
        self.error = sentence(message)

    # ------------------------------------------------------------- changes
    def shown_data(self, route: str) -> Any:
        """What a data-only screen shows, in brief (match revisions), or None for other screens:
        a screen is redrawn for a change in the file only when what it shows changed, not for
        every key typed into a round on another device."""
        r = parse(route)
        if r is not None and r.lists_matches:
            return tuple((m.id, m.revision) for m in self.store.all())
        if r is not None and r.screen == "scoreboard" and r.match_id:
            try:
                return self.store.get(r.match_id).revision
            except ChickenFootError:
                return None
        return None

    def drawn(self, route: str) -> None:
        """``route`` was just drawn: remember what it showed."""
        try:
            self.shown = self.shown_data(route)
        except ChickenFootError:  # a damaged file: the screen says so
            self.shown = None

    def data_moved(self, route: str) -> bool:
        """True when what the data-only screen at ``route`` shows changed since it was drawn."""
        shown = self.shown_data(route)
        return shown is not None and shown != self.shown

    def draft_moved(self) -> bool:
        """True when the round this device shows changed in the file since it was drawn (a write by
        another process: the round screen then redraws; its own writes do not)."""
        st = self.state
        if not isinstance(st, RoundState) or not st.draft:
            return False
        try:
            return self.store.get_draft(st.draft).revision != st.seen
        except DraftNotFoundError:
            return True

    def concerns(self, route: str, message: Any) -> bool:
        """Whether another device's word (a match id that changed, ``{"entry": match id}``:
        someone typed into that match's round, or ``{"code": True}``: a new table code) calls
        for redrawing the screen at ``route``."""
        r = parse(route)
        if r is None:
            return False
        if isinstance(message, dict):
            if message.get("code"):
                return r.screen == "invite"
            return r.screen == "round" and r.match_id == message.get("entry")
        return r.about(str(message))
