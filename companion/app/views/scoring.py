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
from chickenfoot.app.match_session import MatchSession
from chickenfoot.app.photo_review import PhotoReview, Preview, is_low, label, read_photo
from chickenfoot.app.round_entry import Mode, RoundEntry, TakenError
from chickenfoot.app.screens import PhotoPanel, RoundState
from chickenfoot.app.store import DraftNotFoundError
from chickenfoot.app.views import Screen, bind
from chickenfoot.app.views.faces import face_button, face_row, suit_row
from chickenfoot.match import DraftState, RoundDraft, Saved
from chickenfoot.rules import Tile
from chickenfoot.rules.words import count

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
    st.seen = d.revision
    if not d.open or d.stale(m):
        return _saved_elsewhere(app, ms, d)
    return _entry_screen(app, st, ms, d)


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
                lines.append(f"{name}: {rnd.penalties[seat]} ({', '.join(str(t) for t in tiles)})")
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
            st.value = _status(self.entry, k)
        pad = self.st.pad
        if pad is not None:
            h = self.entry.hands[pad]
            shown = h.pad if h.mode is Mode.PIPS and h.pad else ("0" if h.mode is Mode.PIPS else "")
            self.pad_display.value = f"{h.player}: {shown or '…'} points"
        self.summary.value = self.entry.summary()
        self.errors.controls = [self.app.warning(w) for w in self.entry.errors()]
        self.save_button.content.disabled = bool(self.entry.problems())
        if self.st.panel is not None and self.st.panel[1] == "tiles":
            self._refresh_picker()

    def settle_zero(self) -> None:
        """The pad leaves a hand typed as 0 with nobody out: that player went out (see
        ``RoundEntry.settle_zero``), said so on the screen."""
        i = self.st.pad
        if i is None or not self.d.open:
            return
        h = self.entry.hands[i]
        if h.mode is Mode.PIPS and h.pips == 0:
            marked: list[bool] = []
            self.change(lambda c: marked.append(c.entry.settle_zero(i)), redraw=None)
            if marked and marked[0]:
                self.app.snack(f"{h.player}: 0 points, so {h.player} went out (marked so)")

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

    def save(self, _: Any = None) -> None:
        app, ms, n = self.app, self.ms, self.d.number
        if any(h.mode is Mode.PIPS and h.pips == 0 for h in self.entry.hands):
            marked: list[str] = []
            self.change(lambda c: marked.extend(c.entry.settle_zeros()), redraw=None)
            if marked:
                app.snack(f"{marked[0]}: 0 points, so {marked[0]} went out (marked so)")
        result = ms.save_draft(self.d.id, app.device)
        log.info("save of round %d (draft %s) by device %s: %s", n, self.d.id[:8], app.device,
                 result.outcome.value)
        if result.stored or (result.outcome is Saved.ALREADY and result.draft.saved_by == app.device):
            if result.stored:
                app.notify_change(ms.id)
                app.snack(f"Round {n} saved")
            if app.page.route != f"/match/{ms.id}":
                app.go(f"/match/{ms.id}")
            return
        if result.outcome is Saved.CHANGED:
            self.st.notice = (f"Round {n} was changed on another device since this edit began "
                                  "(shown below as it is now saved). Save again to replace it "
                                  "with what is entered here, or cancel the edit.")
        app.render()

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
        self.change(lambda c: moved.extend(c.move_tile(i, tile)), redraw=True)
        if moved:
            self.app.snack(f"{tile} moved from {' and '.join(moved)} to {self.entry.hands[i].player}")

    def _refresh_picker(self) -> None:
        panel = self.st.panel
        if not panel or self.picker_suit is None:
            return
        i = panel[0]
        h = self.entry.hands[i]
        chosen = set(h.tiles) if h.mode in (Mode.TILES, Mode.PHOTO) else set()
        pen = self.entry.penalty(i)
        held = ", ".join(str(t) for t in h.tiles) if chosen else "none yet"
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
                            app.text(f"Tiles with a {suit}:", 15, bold=True), self.picker_notice,
                            face_row(tiles)]
        if on_table is not None:
            parts.append(app.text(f"{on_table} is on the table (it opened the round), so it is not listed.",
                                  14, italic=True))
        return ft.Column(parts, spacing=8)

    # ----------------------------------------------------------------- pad
    def number_pad(self, i: int) -> ft.Control:
        app = self.app

        def key(label: str, k: str, name: str | None = None, expand: int = 1) -> ft.Control:
            return ft.Container(app.button(label, bind(self.press, k), kind="tonal", tooltip=name, dense=True),
                                expand=expand, height=PAD_KEY)

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


def _entry_screen(app: App, st: RoundState, ms: MatchSession, d: RoundDraft) -> tuple[str, list[Any], str | None, Any]:
    content = ms.content(d)
    s = _Screen(app, st, ms, d, content)
    entry = content.entry
    mid, n = ms.id, d.number
    if not st.placed:  # just arrived: the pad opens on the first hand still to enter
        st.open_pad(entry.next_open())
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
        body.append(app.card(ft.Semantics(live_region=True, content=app.text(notice, 16)),
                             color=ft.Colors.TERTIARY_CONTAINER))
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
        status = app.text(_status(entry, i), 17)
        s.statuses.append(status)
        head = ft.Row([app.text(h.player, 19, bold=True), ft.Container(status, expand=True)], spacing=10,
                      vertical_alignment=ft.CrossAxisAlignment.CENTER)

        def mode_button(label: str, on: bool, handler: Any, tip: str) -> ft.Control:
            return app.button(label, handler, kind="filled" if on else "outlined", tooltip=tip,
                              size=mode_size, pad_x=MODE_PAD)

        modes = ft.Row([
            mode_button("Went out", h.mode is Mode.OUT, bind(s.went_out, i), f"{h.player} went out"),
            mode_button("Number", pad == i or h.mode is Mode.PIPS, bind(s.open_pad, i),
                        f"Type {h.player}'s points"),
            mode_button("Tiles", h.mode is Mode.TILES or (panel == (i, "tiles")),
                        bind(s.open_panel, i, "tiles"), f"Pick {h.player}'s tiles"),
            mode_button("Photo", h.mode is Mode.PHOTO or (panel == (i, "photo")),
                        _photo_tap(s, i), f"Photo of {h.player}'s hand"),
        ], wrap=True, spacing=MODE_SPACING, run_spacing=4)
        parts: list[Any] = [head, modes]
        if panel == (i, "tiles"):
            parts.append(s.tile_picker(i))
        elif panel == (i, "photo"):
            parts.append(_photo_panel(app, s, i))
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
    if pad is not None:
        footer_parts.append(s.number_pad(pad))
    else:
        s.refresh()
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


def _status(entry: RoundEntry, i: int) -> str:
    h = entry.hands[i]
    pen = entry.penalty(i)
    if h.mode is Mode.OUT:
        return "went out: 0"
    if pen is None:
        return "not entered"
    if h.mode in (Mode.TILES, Mode.PHOTO):
        return f"{pen} points ({', '.join(str(t) for t in h.tiles) or 'no tiles'})"
    if pen == 0 and not any(x.mode is Mode.OUT for x in entry.hands):
        return f"0 points (if {h.player} went out, tap Went out)"
    return f"{pen} points"


# ----------------------------------------------------------------- photo
def _shown_width(app: App) -> float:
    """How wide the photo is shown (logical pixels): the card's width on a phone."""
    return max(260, min((app.page.width or 400) - 80, 640))


def _photo_panel(app: App, s: _Screen, i: int) -> ft.Control:
    """Choose a photo of the hand, read it in the background, review it; the reading is kept in
    the draft until it is used, so a reload or a restart does not lose it."""
    ms = s.ms
    ui = s.st.photo(i)
    h = s.entry.hands[i]
    review = s.content.reviews.get(i)
    app.ctx.warm_reader()

    async def read(data: bytes, as_match_set: bool) -> None:
        width, preview = _shown_width(app), Preview()

        def work() -> tuple[PhotoReview, dict[str, float]]:
            out = read_photo(app.ctx.reader(), data, ms.match.rules, ms.match.set_top, preview, width,
                             as_match_set=as_match_set)
            app.ctx.store.put_photo(data)
            return out

        # Reading, drawing and keeping the photo run in a worker thread, started before the
        # progress indicator is drawn: the page stays responsive meanwhile.
        work_done = asyncio.ensure_future(asyncio.to_thread(work))
        ui.busy, ui.error, ui.selected, ui.adding, ui.show_unsure = "Reading the tiles…", None, None, False, False
        app.render()
        try:
            new, ms_ = await work_done
            ui.preview = preview
            s.change(lambda c: c.reviews.__setitem__(i, new), redraw=None)
            log.info("photo read in %s", ", ".join(f"{k} {v:.0f} ms" for k, v in ms_.items()))
        except Exception as exc:  # ModelError, ImageError (ChickenFootError) or a bad file
            ui.error = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        finally:
            ui.busy = ""
        app.render()

    async def choose(_: Any) -> None:
        ui.busy, ui.error = "Waiting for the photo…", None
        app.render()
        try:
            picked = await app.pick_one(f"Photo of {h.player}'s hand")
        finally:
            ui.busy = ""
        if picked is None:
            app.render()
            return
        _, data = picked
        if not data:
            ui.error = "the photo could not be read"
            app.render()
            return
        await read(data, as_match_set=False)

    async def as_match_set(_: Any) -> None:
        if review is not None and review.image is not None:
            await read(review.image, as_match_set=True)

    ui.choose = choose  # the Photo button opens the picker at once (see _Screen.open_photo)

    parts: list[Any] = [app.button("Choose photo" if review is None else "Choose another photo",
                                   choose, icon=ft.Icons.PHOTO_CAMERA, kind="tonal", disabled=bool(ui.busy))]
    if ui.busy:
        parts.append(ft.Row([ft.ProgressRing(width=28, height=28, semantics_label="Reading"),
                             app.text(ui.busy, 16)]))
    if ui.error:
        parts.append(app.text("Could not read the photo: " + ui.error, 15, color=ft.Colors.ERROR))
    if review is not None:
        parts.extend(_review(app, s, i, review, ui, as_match_set))
    return ft.Column(parts, spacing=10)


def _review(app: App, s: _Screen, i: int, review: PhotoReview, ui: PhotoPanel, as_match_set: Any) -> list[Any]:
    out: list[Any] = []
    width = _shown_width(app)
    iw, ih = review.image_size if review.image_size[0] else (4, 3)
    height = width * ih / iw
    show_unsure = ui.show_unsure
    shown = review.shown(show_unsure)

    def edit(fn: Any) -> None:
        """Change the kept reading (``fn(review)``) and redraw."""
        def apply(c: DraftContent) -> None:
            r = c.reviews.get(i)
            if r is not None:
                fn(r)
        s.change(apply, redraw=True)

    def tap(e: Any) -> None:
        pos = e.local_position
        if pos is None:
            return
        hit = review.tile_at(pos.x * iw / width, pos.y * ih / height)
        if hit is not None and hit in shown:
            ui.selected, ui.adding = hit, False
            app.render()

    if review.image is not None:
        viewer = ft.InteractiveViewer(
            content=ft.GestureDetector(
                content=ft.Semantics(
                    label=f"Photo with {count(len(shown), 'tile')} outlined and numbered",
                    content=ft.Image(src=ui.preview.jpeg(review, width, show_unsure), width=width,
                                     height=height, fit=ft.BoxFit.CONTAIN, gapless_playback=True)),
                on_tap_down=tap),
            min_scale=1.0, max_scale=5.0, width=width, height=height)

        async def zoom_in(_: Any) -> None:
            await viewer.zoom(1.6)

        async def zoom_out(_: Any) -> None:
            await viewer.reset()

        out.append(viewer)
        out.append(ft.Row([app.button("Zoom in", zoom_in, kind="outlined", icon=ft.Icons.ZOOM_IN, compact=True),
                           app.button("Whole photo", zoom_out, kind="outlined", icon=ft.Icons.ZOOM_OUT_MAP,
                                      compact=True)], wrap=True, spacing=6))
    out.append(app.text(f"Penalty from this photo: {review.headline()}", 20, bold=True))
    for k in review.questions:
        out.append(app.warning(f"Tile {k + 1}: {review.items[k].question} Tap it to say which; "
                               "it is not counted until you do."))
    for w in review.notes:
        out.append(app.text("Reader: " + w, 15, italic=True))
    set_note = review.set_note()
    if set_note:
        out.append(app.warning(set_note))
        if review.image is not None:  # the photo is kept: it can be read again
            out.append(app.button(f"Read it as double-{review.top}", as_match_set, kind="outlined",
                                  icon=ft.Icons.REFRESH))
    on_table = s.content.on_table_in_review(i)
    for k in on_table:
        out.append(app.warning(f"Tile {k} reads {s.entry.on_table}, the double on the table: it cannot be in "
                               f"{s.entry.hands[i].player}'s hand. Correct it or remove it."))
    clashes = s.content.clashes_in_review(i)
    for k, err in clashes:
        where = f"read from {err.holder}'s photo" if err.read else f"in {err.holder}'s hand"
        out.append(app.warning(f"Tile {k} reads {err.tile}, already {where} (a set has only one): "
                               "correct it or remove it, or correct the other hand."))
    unsure = [k for k in review.open if k not in review.questions]
    if unsure:
        out.append(app.text(f"{count(len(unsure), 'tile')} marked orange "
                            f"{'needs' if len(unsure) == 1 else 'need'} a second look and "
                            f"{'is' if len(unsure) == 1 else 'are'} not counted yet: tap one to count or correct it.",
                            15, color=ft.Colors.ORANGE_800))
    grey = [k for k in review.candidates if k in shown]
    if grey:
        n = len(grey)
        out.append(app.text(f"{count(n, 'possible tile')} in grey {'is' if n == 1 else 'are'} not counted: "
                            "tap one to count, correct or remove it.", 15, color=ft.Colors.GREY_700))
    finds = review.finds_line(show_unsure)
    if finds:
        def toggle(_: Any) -> None:
            ui.show_unsure, ui.selected = not show_unsure, None
            app.render()

        out.append(app.button(finds, toggle, kind="text", icon=ft.Icons.VISIBILITY_OFF if show_unsure
                              else ft.Icons.VISIBILITY, compact=True))

    def select(k: int) -> None:
        ui.selected, ui.adding = k, False
        app.render()

    out.append(ft.Row([app.button(f"{k + 1}: {label(it)}", bind(select, k),
                                  kind="filled" if ui.selected == k else "outlined",
                                  icon=ft.Icons.WARNING_AMBER if is_low(it) else None)
                       for k, it in enumerate(review.items) if k in shown],
                      wrap=True, spacing=6, run_spacing=6))
    sel = ui.selected

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
        s.change(lambda c: moved.extend(c.correct_moving(i, at, t)) if i in c.reviews else None, redraw=True)
        if moved:
            app.snack(f"{t} moved from {' and '.join(moved)} to {s.entry.hands[i].player}'s photo")

    def remove(_: Any) -> None:
        ui.selected = None
        edit(lambda r: r.remove(sel))

    def accept(_: Any) -> None:
        ui.selected = None
        edit(lambda r: r.accept(sel))

    if sel is not None and sel < len(review.items) and sel in review.questions:
        out.append(app.text(f"Tile {sel + 1}: {review.items[sel].question}", 16, bold=True))
        out.append(app.button(f"It is the 0-0 ({review.rules.penalty([Tile(0, 0)])} points)", accept,
                              icon=ft.Icons.ADD_TASK))
        out.append(app.button("It is face down (not counted)", remove, kind="outlined", icon=ft.Icons.DELETE_OUTLINE))
    elif sel is not None and sel < len(review.items):
        out.append(app.text(f"Tile {sel + 1}: pick what it really is, or remove it.", 16, bold=True))
        if sel in review.candidates or sel in review.open:
            out.append(app.button(f"Count it as {review.items[sel].tile}", accept, icon=ft.Icons.ADD_TASK))
        out.append(app.button(f"Remove tile {sel + 1}", remove, kind="outlined", icon=ft.Icons.DELETE_OUTLINE))
        out.extend(_taken_notice(app, s, i, ui, move_here))
        out.append(_suit_grid(app, s, i, ui, set_tile))
    elif ui.adding:
        out.append(app.text("Pick the tile the reader missed.", 16, bold=True))
        out.extend(_taken_notice(app, s, i, ui, move_here))
        out.append(_suit_grid(app, s, i, ui, set_tile))
    else:
        def add_missed(_: Any) -> None:
            ui.adding = True
            app.render()

        out.append(app.button("Add a missed tile", add_missed,
                              kind="outlined", icon=ft.Icons.ADD))

    def use(_: Any) -> None:
        def apply(c: DraftContent) -> None:
            r = c.reviews.pop(i)
            c.entry.set_tiles(i, r.tiles, Mode.PHOTO)
        s.change(apply, redraw=None)
        s.close_panel(i)

    if review.questions:
        out.append(app.text("Say whether each tile asked about is the 0-0 or face down before using these tiles.",
                            15, color=ft.Colors.ORANGE_800))
    out.append(app.button(review.use_label(), use, icon=ft.Icons.CHECK,
                          disabled=bool(on_table or clashes) or bool(review.outside) or bool(review.questions)))
    return out


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
    faces = []
    for pt in entry.suit_tiles(suit, i, s.content.photo_tiles()):
        name = pt.label if pt.taken_by is None else f"{pt.label}, taken: {pt.taken_by} has it"
        faces.append(face_button(app, pt.tile, name, bind(on_pick, pt.tile), zero_zero=entry.zero_zero,
                                 taken=pt.taken_by is not None))
    return ft.Column([suits, face_row(faces)], spacing=8)
