"""Scoring a round: one stored draft shared by every device, a number pad and Save that stay at
the bottom of the screen, the tiles grouped by suit, photo readings reviewed at the hand.

The round being entered is a stored :class:`chickenfoot.match.RoundDraft` (see
:class:`chickenfoot.app.match_session.MatchSession`): every key is kept in the scorekeeper file,
every device shows the same draft, and Save stores it once, whoever presses it and however often.
A device whose round was saved elsewhere is told so and shown the round as saved, never an open
pad for the next round. What this device has open (the pad, a picker, a photo) is the screen's
:class:`chickenfoot.app.screens.RoundState`, forgotten when another screen is shown.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

import flet as ft

from chickenfoot.app.drafts import DraftContent
from chickenfoot.app.kit import image
from chickenfoot.app.match_session import MatchSession
from chickenfoot.app.photo_review import CHECK, RETAKE, PhotoReview, Preview, ReviewError, read_photo
from chickenfoot.app.round_entry import Mode, RoundEntry, TakenError, tile_label
from chickenfoot.app.screens import PhotoPanel, RoundState
from chickenfoot.app.store import DraftNotFoundError
from chickenfoot.app.views import Screen, bind
from chickenfoot.app.views.board import Framing, zoomed
from chickenfoot.app.views.faces import face_button, face_row, suit_row
from chickenfoot.app.views.match import offer_undo, round_key
from chickenfoot.match import DraftState, RoundDraft, Saved
from chickenfoot.rules import Tile
from chickenfoot.rules.words import article, count

if TYPE_CHECKING:
    from chickenfoot.app.shell import App

log = logging.getLogger(__name__)

#: Height of a number pad key: a thumb's size, the same in large text (a taller pad would hide
#: the players' rows on a phone; the key's label grows inside it).
PAD_KEY = 48
#: The ways a hand is entered, as each player's row names them (one line of buttons).
MODES = ("Went out", "Number", "Tiles", "Photo")
#: Side padding of those buttons and the space between them (px).
MODE_PAD, MODE_SPACING = 8, 4
#: The scroll key of the notice a Save that met another device's change shows.
CONFLICT_KEY = "round-conflict"
#: Height of the photo's thumbnail in a reading (px): the reading's rows stay in view under it.
THUMB_PX = 104


class RoundScreen(Screen):
    """A round being entered (or a past one edited) over the stored draft and this device's
    :class:`RoundState`."""

    State = RoundState
    state: RoundState

    def view(self) -> tuple[str, list[Any], str | None, Any]:
        mid, number = self.route.match_id, self.route.number
        assert mid is not None
        return _round(self.app, self.state, mid, number)


def _round(app: App, st: RoundState, mid: str, number: int | None) -> tuple[str, list[Any], str | None, Any]:
    ms = app.session.match(mid)
    m = ms.match
    back = f"/match/{mid}"
    draft_id = st.draft
    if draft_id is None:
        if number is None and ms.over:
            return "Round", [app.text("The match is over; edit a past round from the scoreboard.")], back, None
        if number is None and m.abandoned:
            return "Round", [app.text("The match is abandoned; resume it on the scoreboard first.")], back, None
        if number is not None and not 1 <= number <= len(m.rounds):
            return "Round", [app.text(f"There is no round {number} yet.")], back, None
        d = ms.open_draft(number)
        st.draft = d.id
    else:
        try:
            d = ms.draft(draft_id)
        except DraftNotFoundError:
            return "Round", [app.text("This round is no longer being entered."),
                             app.button("Scoreboard", lambda _: app.go(back))], back, None
    elsewhere = st.seen is not None and st.seen != d.revision  # this device's changes set st.seen
    st.seen = d.revision
    if not d.open or d.stale(m):
        return _saved_elsewhere(app, ms, d)
    return _entry_screen(app, st, ms, d, elsewhere)


# ------------------------------------------------------------ saved elsewhere
def _saved_elsewhere(app: App, ms: MatchSession, d: RoundDraft) -> tuple[str, list[Any], str | None, Any]:
    """The round this device was entering was saved (here, or on another device, or from the
    command line): say so and show it as saved. Never the next round's pad."""
    mid, n = ms.id, d.number
    mine = d.state is DraftState.SAVED and d.saved_by == app.device
    what = f"The edit of round {n}" if d.edit else f"Round {n}"
    head = f"{what} was saved" + ("" if mine else " on another device")
    if d.state is not DraftState.SAVED and (n > len(ms.match.rounds)):
        head = f"Round {n} is no longer in the match (it was undone or deleted elsewhere)"
    body: list[Any] = [ft.Semantics(live_region=True, content=app.text(head, 22, bold=True))]
    rnd = ms.round_at(n)
    if rnd is not None:
        lines = []
        for seat, name in enumerate(ms.players):
            tiles = rnd.tiles[seat]
            if rnd.out == seat:
                lines.append(f"{name}: went out")
            elif tiles:
                lines.append(f"{name}: {rnd.penalties[seat]} ({', '.join(tile_label(ms.match.rules, t) for t in tiles)})")
            else:
                lines.append(f"{name}: {rnd.penalties[seat]}")
        body.append(app.card(app.text(f"Round {n} as saved · {rnd.double}-{rnd.double}"
                                      + (" · blocked" if rnd.out is None else ""), 18, bold=True),
                             *[app.text(line, 17) for line in lines]))

    def enter_next(_: Any) -> None:
        app.new_screen()

    buttons = [app.button("Scoreboard", lambda _: app.go(f"/match/{mid}"), icon=ft.Icons.LEADERBOARD)]
    if not d.edit and not ms.over and not ms.match.abandoned:
        buttons.append(app.button(f"Enter round {len(ms.match.rounds) + 1}", enter_next, kind="outlined",
                                  icon=ft.Icons.EDIT_NOTE))
    body.append(ft.Row(buttons, wrap=True, spacing=8, run_spacing=8))
    return f"Round {n}", body, f"/match/{mid}", None


# ---------------------------------------------------------------- the entry
class _Screen:
    """The controls of one drawing of the round screen, and the handlers that change them."""

    #: The photo panel (:func:`photo_panel`) serves a hand of this round, not a hand counted on
    #: its own (``views.count``): its reading is used for the hand, its photo kept with the draft.
    standalone = False

    def __init__(self, app: App, st: RoundState, ms: MatchSession, d: RoundDraft, content: DraftContent) -> None:
        self.app, self.st, self.ms, self.d, self.content = app, st, ms, d, content
        self.number = d.number if d.edit else None
        self.statuses: list[ft.Text] = []
        self.pad_display = app.text("", 22, bold=True)
        self.next_key: ft.Control | None = None
        self.summary = app.text("", 14)
        self.errors = ft.Column(spacing=4)
        self.save_button = ft.Container(app.button(f"Save round {d.number}", self.save, icon=ft.Icons.CHECK),
                                        height=max(48, app.fs(48)))
        self.picker_parts: dict[Any, ft.Container] = {}
        self.picker_intro = app.text("", 15)
        self.picker_suit: int | None = None
        self.picker_notice = ft.Column(spacing=6)

    @property
    def entry(self) -> RoundEntry:
        return self.content.entry

    # ------------------------------------------------------------ changes
    def change(self, fn: Any, redraw: bool | None) -> None:
        """Store ``fn`` applied to the draft and tell the other devices; then redraw the screen
        (True or False), or nothing yet (None: the caller does). A redraw is reconciled with the
        controls shown (see ``App.render``): only what changed is sent, and a fast tap lands on
        the control it was aimed at."""
        self.st.said = None  # what was said is about the last change, not this one
        d, content = self.ms.change(self.d.id, fn)
        self.st.seen = d.revision
        self.app.notify_entry(self.ms.id)
        self.d, self.content = d, content
        if not d.open or redraw is not None:
            self.app.render()

    def refresh(self) -> None:
        """Fill the controls that show the entry (statuses, pad, summary, Save) while the screen
        is built: once shown, controls are redrawn, not changed in place."""
        for k, st in enumerate(self.statuses):
            st.value = _status(self.entry, k, self.content.reviews.get(k))
        pad = self.st.pad
        if pad is not None:
            h = self.entry.hands[pad]
            shown = h.pad if h.mode is Mode.PIPS and h.pad else ("0" if h.mode is Mode.PIPS else "")
            self.pad_display.value = f"{h.player}: {shown or '…'} {'point' if shown == '1' else 'points'}"
        self.summary.value = self.entry.summary()
        self.errors.controls = [self.app.warning(w) for w in self.entry.errors()]
        self.save_button.content.disabled = bool(self.entry.problems()) or self.st.conflict
        if self.st.panel is not None and self.st.panel[1] == "tiles":
            self._refresh_picker()

    def tell(self, message: str) -> None:
        """Say what was just done, on the screen above Save (a toast would cover Save for
        seconds); it stays until the next thing said or another screen."""
        self.st.said = message

    def keep_photo(self, data: bytes) -> None:
        """Keep a hand's photo beside the scorekeeper file: its reading lives in the draft."""
        self.app.ctx.store.put_photo(data)

    def photo_title(self, i: int) -> str:
        return f"Photo of {self.entry.hands[i].player}'s hand"

    def use_photo(self, i: int, answer: str | None) -> None:
        """Use seat ``i``'s reading (``answer``: to the question it asked; see
        ``DraftContent.use_photo``), then the pad moves on to the next hand to enter."""
        asked: list[Any] = []
        self.change(lambda c: asked.append(c.use_photo(i, answer)) if i in c.reviews else None, redraw=None)
        if not self.d.open:
            return
        if asked and asked[0] is not None:  # the reading changed meanwhile: it asks now
            self.st.photo(i).asking = True
            self.app.render()
            return
        self.st.photo(i).asking = False
        self.settle_zero(i)
        self.close_panel(i)

    def settle_zero(self, i: int | None = None) -> None:
        """The pad leaves a hand entered as 0 with nobody out (typed, or a photo with nothing
        in it kept as 0; ``i``: that hand, else the pad's): that player went out (see
        ``RoundEntry.settle_zero``), said so on the screen."""
        i = self.st.pad if i is None else i
        if i is None or not self.d.open:
            return
        h = self.entry.hands[i]
        if self.entry.reads_zero(i):
            marked: list[bool] = []
            self.change(lambda c: marked.append(c.entry.settle_zero(i)), redraw=None)
            if marked and marked[0]:
                self.tell(f"{h.player}: 0 points, so {h.player} went out (marked so)")

    def open_pad(self, i: int | None) -> None:
        if i != self.st.pad:
            self.settle_zero()
        self.st.open_pad(i)
        self.app.render()
        if i is not None:
            self.app.scroll_into_view(seat_key(i))

    def went_out(self, i: int) -> None:
        self.change(lambda c: c.entry.went_out(i), redraw=None)
        if self.d.open:
            self.open_pad(self.entry.next_open(i))
        else:
            self.app.render()

    def press(self, key: str) -> None:
        i = self.st.pad
        if i is None:
            return
        fresh = self.st.fresh
        self.st.fresh = False
        self.change(lambda c: c.entry.press(i, key, fresh), redraw=True)

    def next_hand(self, _: Any = None) -> None:
        i = self.st.pad
        self.settle_zero()
        self.open_pad(self.entry.next_open(i))

    def open_panel(self, i: int, kind: str) -> None:
        self.settle_zero()
        self.st.open_panel(i, kind)
        self.app.render()
        self.app.scroll_into_view(seat_key(i))

    async def open_photo(self, i: int) -> None:
        """Photo: the panel opens and, for a hand with no photo yet, the picker (the camera on a
        phone) at once: one tap, not two."""
        self.open_panel(i, "photo")
        ui = self.st.photo(i)
        if ui.choose is not None and i not in self.content.reviews and not ui.busy:
            await ui.choose(None)

    def close_panel(self, i: int) -> None:
        self.open_pad(self.entry.next_open(i))

    def set_started_with(self, v: int) -> None:
        d = self.entry.double

        def apply(c: DraftContent) -> None:
            c.entry.started_with = None if v == d else v
        self.change(apply, redraw=True)

    def check_card(self, i: int) -> ft.Control:
        """Save asks about a typed penalty above what a hand can count, where Save is: keep it,
        or type it again (the first answer sits left, away from Save under the finger)."""
        app, h = self.app, self.entry.hands[i]
        why = self.entry.unlikely(i) or ""

        def keep(_: Any) -> None:
            self.st.checking = None
            self.change(lambda c: c.entry.confirm(i), redraw=None)
            self.save()

        def retype(_: Any) -> None:
            self.st.checking = None
            self.open_pad(i)

        return ft.Column([
            ft.Semantics(live_region=True, content=app.text(f"{why[:1].upper()}{why[1:]}. Is it right?", 16,
                                                            bold=True)),
            ft.Row([app.button("Type it again", retype, kind="outlined", icon=ft.Icons.EDIT),
                    app.button(f"Keep {h.pips}", keep, kind="tonal")], wrap=True, spacing=8, run_spacing=8),
        ], spacing=6)

    def save(self, _: Any = None) -> None:
        app, ms, n = self.app, self.ms, self.d.number
        if any(self.entry.reads_zero(k) for k in range(len(self.entry.hands))):
            marked: list[str] = []
            self.change(lambda c: marked.extend(c.entry.settle_zeros()), redraw=None)
            if marked:
                self.tell(f"{marked[0]}: 0 points, so {marked[0]} went out (marked so)")
        ask = self.entry.to_confirm()
        if ask:  # asked before it is kept: "999 points for Ann is more than 7 tiles can count"
            self.st.checking, self.st.pad, self.st.panel = ask[0], None, None
            app.render()
            return
        result = ms.save_draft(self.d.id, app.device)
        log.info("save of round %d (draft %s) by device %s: %s", n, self.d.id[:8], app.device,
                 result.outcome.value)
        if result.stored or (result.outcome is Saved.ALREADY and result.draft.saved_by == app.device):
            if result.stored:
                app.notify_change(ms.id)
                offer_undo(app, ms, f"Round {n} {'edited' if self.d.edit else 'saved'}", f"/match/{ms.id}")
            if self.d.edit:  # the scoreboard shows the round edited, not its top
                app.session.reveal_next(round_key(n))
            if app.page.route != f"/match/{ms.id}":
                app.go(f"/match/{ms.id}")
            return
        if result.outcome is Saved.CHANGED:
            self.st.notice = (f"Round {n} was changed on another device since this edit began "
                              "(shown below as it is now saved). Replace it with what is entered "
                              "here, or cancel the edit.")
            self.st.conflict = True
            app.render()
            app.scroll_into_view(CONFLICT_KEY)
            return
        app.render()

    def replace_saved(self, _: Any = None) -> None:
        """The notice's answer to a round changed elsewhere: this edit replaces it."""
        self.st.conflict = False
        self.save()

    def cancel(self, _: Any = None) -> None:
        # A new round's entry stays for the other devices (and after a restart); an edit that
        # is given up is thrown away.
        if self.d.edit:
            self.ms.drop_draft(self.d.id)
            self.app.notify_entry(self.ms.id)
        self.app.go(f"/match/{self.ms.id}")

    # ---------------------------------------------------------- tile picker
    def toggle(self, i: int, tile: Any) -> None:
        """Add a tile to hand ``i`` or take it back; a tile another hand holds is refused (the
        refusal is shown with a way to move it), here and, if another device took it meanwhile,
        against the stored round."""
        h = self.entry.hands[i]
        have = h.mode in (Mode.TILES, Mode.PHOTO) and tile in h.tiles
        refused: list[TakenError] = []
        if not have:
            try:
                self.content.check_free(i, tile)
            except TakenError as err:
                refused.append(err)

        def apply(c: DraftContent) -> None:
            if have:
                c.entry.remove_tile(i, tile)
                return
            try:
                c.add_tile(i, tile)
            except TakenError as err:
                refused.append(err)
        if not refused:
            self.change(apply, redraw=None)
            if not self.d.open:
                return  # saved meanwhile: change() drew the round as saved
        self.st.refused = (i, str(tile)) if refused else None
        self.app.render()

    def move(self, i: int, tile: Any) -> None:
        """Move a taken tile to hand ``i`` (a correction: it is really this player's)."""
        moved: list[str] = []
        self.st.refused = None
        self.change(lambda c: moved.extend(c.move_tile(i, tile)), redraw=None)
        if moved:
            self.tell(f"{tile} moved from {' and '.join(moved)} to {self.entry.hands[i].player}")
        self.app.render()

    def _refresh_picker(self) -> None:
        panel = self.st.panel
        if not panel or self.picker_suit is None:
            return
        i = panel[0]
        h = self.entry.hands[i]
        chosen = set(h.tiles) if h.mode in (Mode.TILES, Mode.PHOTO) else set()
        pen = self.entry.penalty(i)
        held = ", ".join(tile_label(self.entry.rules, t) for t in h.tiles) if chosen else "none yet"
        self.picker_intro.value = (f"{h.player}'s hand: {held}. Penalty: {pen if pen is not None else 0}. "
                                   "Tap a tile to add it, again to take it back.")
        for pt in self.entry.suit_tiles(self.picker_suit, i, self.content.photo_tiles()):
            slot = self.picker_parts.get(pt.tile)
            if slot is not None:
                slot.content = self._tile_button(i, pt, pt.tile in chosen)
        self.picker_notice.controls = self._refusal(i)

    def _refusal(self, i: int) -> list[ft.Control]:
        """Why the taken tile just tapped was refused, and the button that moves it instead."""
        refused = self.st.refused
        if not refused or refused[0] != i:
            return []
        try:
            self.content.check_free(i, refused[1])
        except TakenError as err:
            app = self.app
            return [ft.Semantics(live_region=True, content=app.warning(str(err))),
                    app.button(f"Move {err.tile} to {err.player}", bind(self.move, i, err.tile),
                               kind="tonal", icon=ft.Icons.SWAP_HORIZ)]
        return []  # no longer taken (its holder took it back meanwhile)

    def _tile_button(self, i: int, pt: Any, on: bool) -> ft.Control:
        name = pt.label if pt.taken_by is None else f"{pt.label}, taken: {pt.taken_by} has it"
        return face_button(self.app, pt.tile, name, bind(self.toggle, i, pt.tile),
                           zero_zero=self.entry.zero_zero, taken=pt.taken_by is not None, chosen=on)

    def pick_suit(self, v: int) -> None:
        self.st.suit = v
        self.app.render()

    def tile_picker(self, i: int) -> ft.Control:
        app, entry = self.app, self.entry
        suit, suits = suit_row(app, entry.top, self.st.suit, self.pick_suit)
        self.picker_suit = suit
        self.picker_parts = {}
        tiles = []
        for pt in entry.suit_tiles(suit):
            slot = ft.Container()
            self.picker_parts[pt.tile] = slot
            tiles.append(slot)
        self._refresh_picker()
        on_table = entry.on_table
        parts: list[Any] = [self.picker_intro, app.text("Suit (one half of the tile):", 15, bold=True), suits,
                            app.text(f"Tiles with {article(suit)} {suit}:", 15, bold=True), self.picker_notice,
                            face_row(tiles)]
        if on_table is not None:
            parts.append(app.text(f"{on_table} is on the table (it opened the round), so it is not listed.",
                                  14, italic=True))
        return ft.Column(parts, spacing=8)

    # ----------------------------------------------------------------- pad
    def number_pad(self, i: int) -> ft.Control:
        app = self.app

        def key(label: str, k: str, name: str | None = None, expand: int = 1) -> ft.Control:
            return ft.Container(app.button(label, bind(self.press, k), kind="tonal", tooltip=name, name=name,
                                           dense=True), expand=expand, height=PAD_KEY)

        nxt = self.entry.next_open(i)
        who = self.entry.hands[nxt].player if nxt is not None and nxt != i else None
        label = f"Next: {who}" if who else "Done"
        # Most of the last row, its label small enough to fit whole (never clipped in large text).
        room = ((app.page.width or 360) - 28 - 24) * 0.75 - 16
        size = max(11.0, min(app.fs(16), room / (0.56 * len(label))))
        self.next_key = ft.Container(app.button(label, self.next_hand, kind="filled", size=size, dense=True,
                                                tooltip="Next player's hand" if who else "Close the number pad"),
                                     expand=3, height=PAD_KEY)
        self.refresh()
        # Three rows of keys, not four: in large text on a phone the players' rows keep room above.
        rows = [ft.Row([key(str(n), str(n)) for n in five], spacing=6) for five in ((1, 2, 3, 4, 5), (6, 7, 8, 9, 0))]
        rows.append(ft.Row([key("Del", "back", "Delete the last digit"), self.next_key], spacing=6))
        return ft.Column([self.pad_display, *rows], spacing=6)


def _entry_screen(app: App, st: RoundState, ms: MatchSession, d: RoundDraft,
                  elsewhere: bool = False) -> tuple[str, list[Any], str | None, Any]:
    content = ms.content(d)
    s = _Screen(app, st, ms, d, content)
    entry = content.entry
    mid, n = ms.id, d.number
    if not st.placed:  # just arrived: the pad opens on the first hand still to enter, in view
        st.place(entry.next_open())
    moved = st.moved_elsewhere(entry, elsewhere)
    if moved is not None:
        st.said = f"{moved}'s hand was entered on another device: this pad moved on, so it types over nothing."
    reveal = st.take_reveal()
    if reveal is not None:
        app.scroll_into_view(seat_key(reveal))
    pad, panel = st.pad, st.panel

    body: list[Any] = [
        ft.Semantics(header=True, content=app.text(ms.heading(n), 24, bold=True)),
        app.text(("Editing" if d.edit else "Scoring") + f" round {n}: for each player, went out, "
                 "a number, the tiles left, or a photo of the hand.", 15),
    ]
    if entry.on_table is not None:
        body.append(_on_table(app, entry))
    notice = st.notice
    if notice:
        answers = [app.button(f"Replace round {n} with this edit", s.replace_saved, kind="filled"),
                   app.button("Cancel edit" if d.edit else "Back to scoreboard", s.cancel, kind="outlined")]
        body.append(app.card(ft.Semantics(live_region=True, content=app.text(notice, 16)),
                             *([ft.Row(answers, wrap=True, spacing=8, run_spacing=8)] if st.conflict else []),
                             color=ft.Colors.TERTIARY_CONTAINER, key=CONFLICT_KEY))
        rnd = ms.round_at(n)
        if rnd is not None:
            body.append(app.text("Saved now: " + ", ".join(
                f"{p} {'out' if rnd.out == k else rnd.penalties[k]}" for k, p in enumerate(ms.players)), 15))

    # The four ways in share one line on a phone, large text too (a second line pushed the
    # active row under the pad): their labels shrink a little to fit the card's width.
    room = (app.page.width or 360) - 28 - 26 - 3 * MODE_SPACING - 4 * 2 * MODE_PAD
    mode_size = app.fitted_size(list(MODES), room, 15)
    for i, h in enumerate(entry.hands):
        active = pad == i or (panel is not None and panel[0] == i)
        status = app.text(_status(entry, i, content.reviews.get(i)), 17)
        s.statuses.append(status)
        head = ft.Row([app.text(h.player, 19, bold=True), ft.Container(status, expand=True)], spacing=10,
                      vertical_alignment=ft.CrossAxisAlignment.CENTER)

        def mode_button(label: str, on: bool, handler: Any, tip: str, whose: str) -> ft.Control:
            # each seat's four read alike: the name says whose, and which one is chosen
            return app.button(label, handler, kind="filled" if on else "outlined", tooltip=tip,
                              size=mode_size, pad_x=MODE_PAD, name=f"{label}: {whose}" + (", chosen" if on else ""))

        modes = ft.Row([
            mode_button("Went out", h.mode is Mode.OUT, bind(s.went_out, i), f"{h.player} went out", h.player),
            mode_button("Number", pad == i or h.mode is Mode.PIPS, bind(s.open_pad, i),
                        f"Type {h.player}'s points", f"{h.player}'s points"),
            mode_button("Tiles", h.mode is Mode.TILES or (panel == (i, "tiles")),
                        bind(s.open_panel, i, "tiles"), f"Pick {h.player}'s tiles", f"{h.player}'s tiles"),
            mode_button("Photo", h.mode is Mode.PHOTO or (panel == (i, "photo")),
                        _photo_tap(s, i), f"Photo of {h.player}'s hand", f"{h.player}'s hand"),
        ], wrap=True, spacing=MODE_SPACING, run_spacing=4)
        parts: list[Any] = [head, modes]
        if panel == (i, "tiles"):
            parts.append(s.tile_picker(i))
        elif panel == (i, "photo"):
            parts.append(photo_panel(app, s, i))
        body.append(app.card(*parts, color=ft.Colors.SECONDARY_CONTAINER if active else None, key=seat_key(i)))

    choices = ms.opening_choices(n if d.edit else None)
    if choices:
        dd = entry.double
        current = dd if entry.started_with is None else entry.started_with
        body.append(app.text(f"Nobody held {dd}-{dd}? Which double opened the round:", 16, bold=True))
        body.append(ft.Row([app.button(f"{v}-{v}" + (" (its own)" if v == dd else ""),
                                       bind(s.set_started_with, v),
                                       kind="filled" if v == current else "outlined")
                            for v in choices], wrap=True, spacing=6, run_spacing=6))
    body.append(app.button("Back to scoreboard" if not d.edit else "Cancel edit", s.cancel, kind="text"))

    footer_parts: list[Any] = []
    checking = st.checking if st.checking is not None and entry.unlikely(st.checking) else None
    if checking is not None:
        footer_parts.append(s.check_card(checking))
    elif pad is not None:
        footer_parts.append(s.number_pad(pad))
    else:
        s.refresh()
    if checking is not None:
        s.refresh()
    if st.said:
        footer_parts.append(ft.Semantics(live_region=True, content=app.text(st.said, 15, italic=True)))
    if panel is not None and panel[1] == "tiles":
        # In the fixed part, over Save: however many faces the picker shows, it stays in reach.
        footer_parts.append(app.button("Done with this hand", bind(s.close_panel, panel[0]), kind="tonal",
                                       icon=ft.Icons.CHECK))
    footer_parts += [s.errors, ft.Row([ft.Container(s.summary, expand=True), s.save_button],
                                      vertical_alignment=ft.CrossAxisAlignment.CENTER)]
    footer = ft.Column(footer_parts, spacing=8)
    title = f"Edit round {n}" if d.edit else f"Round {n} results"
    return title, body, f"/match/{mid}", footer


def _photo_tap(s: _Screen, i: int) -> Any:
    async def tap(_: Any) -> None:
        await s.open_photo(i)
    return tap


def seat_key(i: int) -> str:
    """The scroll key of seat ``i``'s card (the pad brings the card it types for into view)."""
    return f"seat-{i}"


def _on_table(app: App, entry: RoundEntry) -> ft.Control:
    d = entry.on_table
    assert d is not None

    def half() -> ft.Control:
        return ft.Container(app.text(str(d.low), 18, bold=True, color=ft.Colors.BLACK), width=34, height=30,
                            alignment=ft.Alignment.CENTER)

    tile = ft.Container(ft.Row([half(), ft.Container(width=2, height=24, bgcolor=ft.Colors.BLACK), half()],
                               spacing=0, tight=True),
                        bgcolor=ft.Colors.WHITE, border=ft.Border.all(2, ft.Colors.BLACK), border_radius=6)
    return ft.Semantics(label=f"{d} is on the table: it opened the round, so it is in nobody's hand",
                        content=ft.Row([tile, ft.Container(app.text(f"{d} is on the table, in nobody's hand", 16),
                                                           expand=True)], spacing=10))


def _status(entry: RoundEntry, i: int, review: PhotoReview | None = None) -> str:
    """A hand's line under its player: what is entered, or a photo reading waiting to be used
    (on every device, and after a restart: it is kept in the draft)."""
    h = entry.hands[i]
    pen = entry.penalty(i)
    if h.mode is Mode.OUT:
        return "went out: 0"
    if pen is None:
        return "not entered: a photo is read, not used yet" if review else "not entered"
    if h.mode in (Mode.TILES, Mode.PHOTO):
        return f"{count(pen, 'point')} ({', '.join(tile_label(entry.rules, t) for t in h.tiles) or 'no tiles'})"
    if pen == 0 and not any(x.mode is Mode.OUT for x in entry.hands):
        return f"0 points (if {h.player} went out, tap Went out)"
    if entry.unlikely(i):
        return f"{count(pen, 'point')}: more than a hand can count (at most {entry.hand_limit}); check it"
    return count(pen, "point")


# ----------------------------------------------------------------- photo
def _shown_width(app: App) -> float:
    """How wide the photo is shown (logical pixels): the card's width on a phone."""
    return max(260, min((app.page.width or 400) - 80, 640))


def photo_panel(app: App, s: _Screen, i: int) -> ft.Control:
    """Choose a photo of the hand, read it in the background, review it; the reading is kept in
    the draft until it is used, so a reload or a restart does not lose it. ``s`` is the round
    screen, or a hand counted on its own (``views.count``) that answers the same calls."""
    ui = s.st.photo(i)
    review = s.content.reviews.get(i)
    rules, top = s.entry.rules, s.entry.top
    app.ctx.warm_reader()

    async def read(data: bytes, as_match_set: bool, name: str | None = None) -> None:
        width, preview = _shown_width(app), Preview()

        def work() -> tuple[PhotoReview, dict[str, float]]:
            out = read_photo(app.ctx.reader(), data, rules, top, preview, width,
                             as_match_set=as_match_set, name=name)
            s.keep_photo(data)
            return out

        # Reading, drawing and keeping the photo run in a worker thread, started before the
        # progress indicator is drawn: the page stays responsive meanwhile.
        work_done = asyncio.ensure_future(asyncio.to_thread(work))
        ui.busy, ui.error, ui.selected, ui.adding, ui.show_unsure = "Reading the tiles…", None, None, False, False
        ui.asking = False
        reveal = False
        app.render()
        try:
            new, ms_ = await work_done
            ui.preview = preview
            s.change(lambda c: c.reviews.__setitem__(i, new), redraw=None)
            reveal = True
            log.info("photo read in %s", ", ".join(f"{k} {v:.0f} ms" for k, v in ms_.items()))
        except Exception as exc:  # ModelError, ImageError (ChickenFootError) or a bad file
            ui.error = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        finally:
            ui.busy = ""
        app.render()
        if reveal:  # the reading's headline right under the player's name, in view
            app.scroll_into_view(seat_key(i))

    async def choose(_: Any) -> None:
        ui.busy, ui.error = "Waiting for the photo…", None
        app.render()
        try:
            picked = await app.pick_one(s.photo_title(i))
        finally:
            ui.busy = ""
        if picked is None:
            app.render()
            return
        name, data = picked
        if not data:
            ui.error = f"{name}: the file is empty"
            app.render()
            return
        await read(data, as_match_set=False, name=name)

    async def as_match_set(_: Any) -> None:
        if review is not None and review.image is not None:
            await read(review.image, as_match_set=True)

    ui.choose = choose  # the Photo button opens the picker at once (see _Screen.open_photo)

    def reopen(_: Any) -> None:
        ui.selected, ui.adding, ui.taken, ui.error = None, False, None, None
        s.change(lambda c: c.reopen_photo(i), redraw=True)
        app.scroll_into_view(seat_key(i))

    parts: list[Any] = []
    if review is None:  # with a reading, "Another photo" sits beside its thumbnail
        again = s.content.can_reopen(i)
        parts.append(ft.Row([
            *([app.button("Open its photo's reading again", reopen, icon=ft.Icons.PHOTO_LIBRARY, kind="tonal",
                          disabled=bool(ui.busy))] if again else []),
            app.button("Choose photo" if not again else "Another photo", choose, icon=ft.Icons.PHOTO_CAMERA,
                       kind="outlined" if again else "tonal", disabled=bool(ui.busy)),
        ], wrap=True, spacing=8, run_spacing=8))
    if ui.busy:
        parts.append(ft.Row([ft.ProgressRing(width=28, height=28, semantics_label="Reading"),
                             app.text(ui.busy, 16)]))
    if ui.error:
        # a reading below is the photo before's, kept: said, so its number is not taken for this one's
        parts.append(app.text("Could not read the photo: " + ui.error
                              + (" The reading below is still that of the photo before." if review is not None else ""),
                              15, color=ft.Colors.ERROR))
    if review is not None:
        parts.extend(_review(app, s, i, review, ui, as_match_set))
    return ft.Column(parts, spacing=10)


def _review(app: App, s: _Screen, i: int, review: PhotoReview, ui: PhotoPanel, as_match_set: Any) -> list[Any]:
    """The reading as a proposal, right under the player's name: its headline, the photo as a
    thumbnail (full screen with zoom on a tap), each tile to check as a row with its crop and
    its answers, the counted tiles, and Use, which asks first when the reading is not whole
    (see ``DraftContent.use_photo``)."""
    out: list[Any] = []
    player = s.entry.hands[i].player
    show_unsure = ui.show_unsure
    shown = review.shown(show_unsure)
    to_check = review.to_check
    rows = [k for k in shown if k in to_check or not review.items[k].counted]
    sel = ui.selected

    def edit(fn: Any) -> None:
        """Change the kept reading (``fn(review)``) and redraw."""
        def apply(c: DraftContent) -> None:
            r = c.reviews.get(i)
            if r is not None:
                fn(r)
        s.change(apply, redraw=True)

    out.append(ft.Semantics(live_region=True, content=app.text(
        f"Penalty from this photo: {review.headline()}", 20, bold=True)))
    if review.image is not None:
        out.append(ft.Row([_thumbnail(app, s, i, review, ui),
                           ft.Container(ft.Column([
                               app.text("Tap the photo to see it whole and zoom in.", 14),
                               app.button("Another photo", ui.choose or (lambda _: None), kind="outlined",
                                          icon=ft.Icons.PHOTO_CAMERA, compact=True, disabled=bool(ui.busy)),
                           ], spacing=6), expand=True)],
                          spacing=10, vertical_alignment=ft.CrossAxisAlignment.START))
    for w in review.notes:
        out.append(app.text(w, 15, italic=True))
    set_note = review.set_note(match=not s.standalone)
    if set_note:
        out.append(app.warning(set_note))
        if review.image is not None:  # the photo is kept: it can be read again
            out.append(app.button(f"Read it as double-{review.top}", as_match_set, kind="outlined",
                                  icon=ft.Icons.REFRESH))
        if s.standalone and review.fits:
            out.append(app.button(f"Count it as double-{review.fits}", bind(s.set_top, review.fits),
                                  kind="outlined", icon=ft.Icons.SWAP_HORIZ))
    on_table = s.content.on_table_in_review(i)
    for k in on_table:
        out.append(app.warning(f"Tile {k} reads {s.entry.on_table}, the double on the table: it cannot be in "
                               f"{player}'s hand. Correct it or remove it."))
    clashes = s.content.clashes_in_review(i)
    for k, err in clashes:
        where = f"read from {err.holder}'s photo" if err.read else f"in {err.holder}'s hand"
        out.append(app.warning(f"Tile {k} reads {err.tile}, already {where} (a set has only one): "
                               "correct it or remove it, or correct the other hand."))

    # Use sits under the headline and the photo, and asks there: where the player looks.
    blocked = bool(on_table or clashes or review.outside)
    question = review.use_question(player)

    def use(_: Any) -> None:
        if question is not None:
            ui.asking = True
            app.render()
            app.scroll_into_view(seat_key(i))  # the name, the headline and the question together
            return
        s.use_photo(i, None)

    async def answer(key: str) -> None:
        ui.asking = False
        if key == CHECK:
            first = next((k for k in review.to_check if k in shown), None)
            app.render()
            if first is not None:
                app.scroll_into_view(check_key(i, first))
            return
        if key == RETAKE:
            app.render()
            if ui.choose is not None:
                await ui.choose(None)
            return
        s.use_photo(i, key)

    if ui.asking and question is not None:
        out.append(ft.Container(app.card(
            ft.Semantics(live_region=True, content=app.text(question.text, 17, bold=True)),
            ft.Row([app.button(text, _answer(answer, k), kind="filled" if n == 0 else "outlined")
                    for n, (k, text) in enumerate(question.answers)], wrap=True, spacing=8, run_spacing=8),
            color=ft.Colors.TERTIARY_CONTAINER), key=ft.ScrollKey(use_key(i))))
    elif not s.standalone:  # a hand counted on its own is not used for anything: its headline is all
        out.append(ft.Container(app.button(review.use_label(), use, icon=ft.Icons.CHECK, disabled=blocked),
                                key=ft.ScrollKey(use_key(i))))

    def set_tile(t: Any) -> None:
        try:
            s.content.check_free(i, t)
        except TakenError:
            ui.taken = str(t)  # refused: said below, with the move it offers
            app.render()
            return
        ui.taken = None
        if ui.adding:
            ui.adding = False
            edit(lambda r: r.add(t))
        elif sel is not None:
            ui.selected = None
            edit(lambda r: r.correct(sel, t))

    def move_here(t: Any) -> None:
        at = None if ui.adding else sel
        moved: list[str] = []
        ui.taken, ui.selected, ui.adding = None, None, False
        s.change(lambda c: moved.extend(c.correct_moving(i, at, t)) if i in c.reviews else None, redraw=None)
        if moved:
            s.tell(f"{t} moved from {' and '.join(moved)} to {player}'s photo")
        app.render()

    def remove(k: int) -> None:
        ui.selected = None
        edit(lambda r: r.remove(k))

    def accept(k: int) -> None:
        ui.selected = None
        edit(lambda r: r.accept(k))

    def select(k: int) -> None:
        ui.selected, ui.adding, ui.taken, ui.asking = (None if ui.selected == k else k), False, None, False
        if ui.selected is not None:  # the correction opens on a suit of the tile as read
            ui.suit = review.items[k].tile.low
        app.render()
        if ui.selected is not None:
            app.scroll_into_view(check_key(i, k))

    def picker() -> list[Any]:
        return [*_taken_notice(app, s, i, ui, move_here), _suit_grid(app, s, i, ui, set_tile)]

    if rows:
        n = len([k for k in rows if k in to_check])
        if n:
            out.append(app.text(f"Check {'this tile' if n == 1 else f'these {n} tiles'}: "
                                f"{'it is' if n == 1 else 'they are'} not counted until you say.", 16, bold=True))
    for k in rows:
        out.append(_check_row(app, review, ui.preview, k, sel == k, accept, remove, select, picker, key=check_key(i, k)))

    counted = [k for k in shown if k not in rows]
    if counted:
        out.append(app.text(f"Counted ({count(len(counted), 'tile')}): tap one to correct it.", 15))
        out.append(ft.Row([app.button(f"{k + 1}: {tile_label(review.rules, review.items[k].tile)}", bind(select, k),
                                      kind="filled" if sel == k else "outlined", compact=True)
                           for k in counted], wrap=True, spacing=6, run_spacing=6))
        if sel is not None and sel in counted:
            out.append(ft.Container(ft.Column([
                app.text(f"Tile {sel + 1}: pick what it really is, or remove it.", 16, bold=True),
                app.button(f"Remove tile {sel + 1}", bind(remove, sel), kind="outlined",
                           icon=ft.Icons.DELETE_OUTLINE),
                *picker()], spacing=8), key=ft.ScrollKey(check_key(i, sel))))

    finds = review.finds_line(show_unsure)
    if finds:
        def toggle(_: Any) -> None:
            ui.show_unsure, ui.selected = not show_unsure, None
            app.render()

        out.append(app.button(finds, toggle, kind="text", icon=ft.Icons.VISIBILITY_OFF if show_unsure
                              else ft.Icons.VISIBILITY, compact=True))
    if ui.adding:
        out.append(app.text("Pick the tile the reader missed.", 16, bold=True))
        out.extend(picker())
    elif sel is None:
        def add_missed(_: Any) -> None:
            ui.adding, ui.asking = True, False
            app.render()

        out.append(app.button("Add a missed tile", add_missed, kind="outlined", icon=ft.Icons.ADD))

    return out


def _answer(fn: Any, key: str) -> Any:
    async def run(_: Any) -> None:
        await fn(key)
    return run


def check_key(i: int, k: int) -> str:
    """The scroll key of tile ``k``'s row in seat ``i``'s photo reading."""
    return f"check-{i}-{k}"


def use_key(i: int) -> str:
    """The scroll key of seat ``i``'s Use button (or the question it asks)."""
    return f"use-{i}"


def _check_row(app: App, review: PhotoReview, preview: Preview, k: int, open_: bool, accept: Any, remove: Any,
               select: Any, picker: Any, key: str) -> ft.Control:
    """One tile to check: its crop of the photo, what the reader saw, and the answers: "Count it
    as 4-7" / "Not a tile" / "Another tile", or for a tile asked about "It is the 0-0 (50)" /
    "It is face down". "Another tile" opens the faces right under the row."""
    it = review.items[k]
    ui_crop: ft.Control
    try:
        ui_crop = image(preview.crop(review, k), width=64, height=64, fit=ft.BoxFit.CONTAIN,
                           semantics_label=f"Tile {k + 1} as the photo shows it")
    except ReviewError:
        ui_crop = ft.Container(width=64, height=64)
    if it.question and it.counted and it.reason in ("", "0-0 or back"):
        what = f"Tile {k + 1}: the 0-0 or a face-down tile?"
        buttons = [app.button(f"It is the 0-0 ({review.rules.tile_penalty(Tile(0, 0))})", bind(accept, k),
                              kind="tonal", compact=True),
                   app.button("It is face down", bind(remove, k), kind="outlined", compact=True)]
    else:
        if it.question:  # the reader's own question, and why it asks
            why = f" ({it.reason_text})" if it.reason_text else ""
            what = f"Tile {k + 1}: {it.question}{why}"
        elif it.counted:
            what = f"Tile {k + 1} reads {it.tile}, not surely"
        elif it.uncounted == "set aside":
            what = f"Tile {k + 1}, read {it.tile}: set aside, not counted"
        elif k in review.unsure_finds:
            what = f"Tile {k + 1} may be {it.tile} (unsure find)"
        else:
            what = f"Tile {k + 1} may be {it.tile}"
        buttons = [app.button(f"Count it as {it.tile}", bind(accept, k), kind="tonal", compact=True),
                   app.button("Not a tile", bind(remove, k), kind="outlined", compact=True),
                   app.button("Another tile", bind(select, k), kind="filled" if open_ else "text", compact=True)]
        if it.reason == "read twice":  # one set has one of each: most likely misread, or no tile
            buttons = [app.button("Another tile", bind(select, k), kind="filled" if open_ else "tonal", compact=True),
                       app.button("Not a tile", bind(remove, k), kind="outlined", compact=True),
                       app.button(f"Count a second {it.tile}", bind(accept, k), kind="text", compact=True)]
    parts: list[Any] = [ft.Row([ui_crop, ft.Container(app.text(what, 16), expand=True)], spacing=10,
                               vertical_alignment=ft.CrossAxisAlignment.CENTER),
                        ft.Row(buttons, wrap=True, spacing=6, run_spacing=6)]
    if open_:
        parts.append(app.text(f"Pick what tile {k + 1} really is:", 15, bold=True))
        parts.extend(picker())
    return ft.Container(ft.Column(parts, spacing=6), key=ft.ScrollKey(key), padding=8, border_radius=10,
                        border=ft.Border.all(1, ft.Colors.ORANGE_300))


def _thumbnail(app: App, s: _Screen, i: int, review: PhotoReview, ui: PhotoPanel) -> ft.Control:
    """The photo small, with the tiles outlined; a tap shows it full screen, zoomable."""
    iw, ih = review.image_size if review.image_size[0] else (4, 3)
    th = THUMB_PX
    tw = min(THUMB_PX * 1.4, th * iw / ih)
    th = tw * ih / iw
    src = ui.preview.jpeg(review, _shown_width(app), ui.show_unsure)

    def full(_: Any) -> None:
        _full_screen(app, s, i, review, ui, src)

    return ft.Semantics(button=True, label=f"{s.photo_title(i)}: open it full screen",
                        content=ft.Container(image(src, width=tw, height=th, fit=ft.BoxFit.CONTAIN,
                                                      gapless_playback=True),
                                             on_click=app.guarded(full), border_radius=6,
                                             border=ft.Border.all(1, ft.Colors.OUTLINE)))


def _full_screen(app: App, s: _Screen, i: int, review: PhotoReview, ui: PhotoPanel, src: bytes) -> None:
    """The photo as large as the screen allows, pinch or buttons to zoom, a tap on a tile opens
    its row on the round screen."""
    iw, ih = review.image_size if review.image_size[0] else (4, 3)
    width = max(200, (app.page.width or 360) - 16)
    height = min(width * ih / iw, max(200, (getattr(app.page, "height", None) or 780) - 110))
    width = height * iw / ih
    shown = review.shown(ui.show_unsure)

    def tap(e: Any) -> None:
        pos = e.local_position
        if pos is None:
            return
        hit = review.tile_at(pos.x * iw / width, pos.y * ih / height)
        if hit is not None and hit in shown:
            ui.selected, ui.adding, ui.suit = hit, False, review.items[hit].tile.low
            app.page.pop_dialog()
            app.render()
            app.scroll_into_view(check_key(i, hit))

    viewer = ft.InteractiveViewer(
        content=ft.GestureDetector(content=ft.Semantics(
            label=f"Photo with {count(sum(review.items[k].box is not None for k in shown), 'tile')} "
                  "outlined and numbered",
            content=image(src, width=width, height=height, fit=ft.BoxFit.CONTAIN, gapless_playback=True)),
            on_tap_down=tap),
        min_scale=1.0, max_scale=6.0, width=width, height=height)

    # Zoomed about the tiles, not the photo's corner: a hand often lies in a small part of it.
    shown_as = Framing(width / iw, width, height, 0.0, 0.0, width / iw)
    focus = review.tiles_centre(shown)
    zoom = {"z": 1.0}

    async def show(z: float) -> None:
        zoom["z"] = z
        at = zoomed(shown_as, (iw, ih), focus, z)
        await viewer.reset()
        if z != 1.0:
            await viewer.zoom(z)
            if at.x or at.y:
                await viewer.pan(-at.x / z, -at.y / z)

    async def zoom_in(_: Any) -> None:
        await show(min(zoom["z"] * 1.6, 6.0))

    async def whole(_: Any) -> None:
        await show(1.0)

    def close(_: Any) -> None:
        app.page.pop_dialog()

    app.show_modal(ft.AlertDialog(
        content=viewer, content_padding=ft.Padding.all(0), inset_padding=ft.Padding.all(8),
        # one row of actions under the photo (labelled buttons stack on a phone, taking its room)
        actions=[app.icon_button(ft.Icons.ZOOM_IN, "Zoom in", zoom_in),
                 app.icon_button(ft.Icons.ZOOM_OUT_MAP, "Whole photo", whole),
                 app.button("Close", close, kind="filled", compact=True)],
        actions_alignment=ft.MainAxisAlignment.END, semantics_label="The photo, full screen"))


def _taken_notice(app: App, s: _Screen, i: int, ui: PhotoPanel, move_here: Any) -> list[Any]:
    """A correction to a tile another hand holds: refused in words, with the move it offers."""
    t = ui.taken
    if not t:
        return []
    try:
        s.content.check_free(i, t)
    except TakenError as err:
        return [ft.Semantics(live_region=True, content=app.warning(str(err))),
                app.button(f"Move {err.tile} to {err.player}", bind(move_here, err.tile), kind="tonal",
                           icon=ft.Icons.SWAP_HORIZ)]
    return []


def _suit_grid(app: App, s: _Screen, i: int, ui: PhotoPanel, on_pick: Any) -> ft.Control:
    """Pick one tile for seat ``i``'s photo: a suit, then a face of that suit (a double-18 set fits
    on a phone); tiles other hands hold are shown taken."""
    entry = s.entry
    def pick(v: int) -> None:
        ui.suit = v
        app.render()

    suit, suits = suit_row(app, entry.top, ui.suit, pick)
    review = s.content.reviews.get(i)
    # tiles this photo counts already (but the one being corrected): a set has one of each
    here = {} if review is None else {it.tile: k for k, it in enumerate(review.items)
                                      if it.counted and k != ui.selected}

    def counted_here(t: Tile) -> None:
        s.tell(f"{t} is counted in this photo already (tile {here[t] + 1}): a set has only one {t}")

    faces = []
    for pt in entry.suit_tiles(suit, i, s.content.photo_tiles()):
        if pt.taken_by is None and pt.tile in here:
            faces.append(face_button(app, pt.tile, f"{pt.label}, counted in this photo already",
                                     bind(counted_here, pt.tile), zero_zero=entry.zero_zero, taken=True))
            continue
        name = pt.label if pt.taken_by is None else f"{pt.label}, taken: {pt.taken_by} has it"
        faces.append(face_button(app, pt.tile, name, bind(on_pick, pt.tile), zero_zero=entry.zero_zero,
                                 taken=pt.taken_by is not None))
    return ft.Column([suits, face_row(faces)], spacing=8)
