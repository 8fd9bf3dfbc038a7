"""Dispute checker: build the table (hub, then tap an open end to add a tile), load a layout
file or read the table from a photo; see open ends, the open foot and spokes still needed; ask
"can 4-7 go here?".

One working surface on a phone: the board on top, whose open ends are the selection, and a sheet
fixed under it (the screen's footer) with what to do next or the verdict, Add, and the tile
picker; the rest of the table (needs, photo, problems, chips, the table in words, files) scrolls
under the board. What is chosen and asked lives in the builder and :class:`DisputeState`."""

from __future__ import annotations

import asyncio
import logging
import math
from typing import TYPE_CHECKING, Any

import flet as ft

from chickenfoot.app.dispute import DisputeBuilder
from chickenfoot.app.kit import image
from chickenfoot.app.screens import DisputeState
from chickenfoot.app.views import Screen, bind
from chickenfoot.app.views.board import (
    MAX_HEIGHT,
    available_width,
    board_view,
    end_label,
    fitted_height,
)
from chickenfoot.app.views.faces import (
    FACE_WIDTH,
    NUMBERS_SIZE,
    SCROLLBAR_ROOM,
    face_button,
    sliding_row,
    suit_row,
)
from chickenfoot.rules import PRESETS, SETS, Tile
from chickenfoot.rules.errors import ChickenFootError
from chickenfoot.rules.words import count

if TYPE_CHECKING:
    from chickenfoot.app.shell import App

log = logging.getLogger(__name__)

#: Where a device keeps its dispute table between sessions.
KEPT_KEY = "chickenfoot.dispute-table"
#: The narrowest a face's button is drawn (Material's least button width, pixels).
FACE_BUTTON_MIN_WIDTH = 64.0


class DisputeScreen(Screen):
    """The dispute checker over the session's dispute draft (the table, the tile typed, a photo
    being read) and the suit of faces shown."""

    State = DisputeState
    state: DisputeState

    def act(self, fn: Any, *args: Any) -> None:
        """Change the table (``fn(*args)``) and redraw."""
        fn(*args)
        self.app.render()

    def new_table(self, _: Any = None) -> None:
        """A table with tiles on it is not thrown away by one tap: it asks first."""
        b = self.table
        if b.layout is not None and b.layout.plays:
            self.ask_clear(True)
        else:
            self.clear()

    def ask_clear(self, asking: bool) -> None:
        self.state.clearing = asking
        self.app.render()
        if asking:
            self.app.scroll_into_view("clear-table")

    def clear(self, _: Any = None) -> None:
        self.state.clearing = False
        self.act(self.table.clear)

    def pick_suit(self, v: int) -> None:
        self.state.suit = v
        self.app.render()

    @property
    def table(self) -> DisputeBuilder:
        b = self.session.dispute_table()
        b.palette = self.app.board_palette  # drawn in the screen's theme, wherever it is drawn
        return b

    @property
    def typed(self) -> str:
        """The tile in the tile box (a face chosen fills it)."""
        return self.tile_field.value or ""

    def remember(self, e: Any) -> None:
        self.session.drafts.dispute_tile = e.control.value

    def set_preset(self, e: Any) -> None:
        self.act(self.table.set_rules, e.control.value)

    def set_top(self, e: Any) -> None:
        b = self.table
        b.set_rules(b.preset, int(e.control.value))
        self.act(b.clear)

    def ask(self, _: Any) -> None:
        self.act(self.table.ask, self.typed)

    def ask_on_enter(self, _: Any) -> None:
        if self.table.selected is not None:
            self.ask(None)

    def add(self, _: Any) -> None:
        if self.table.add(self.typed).legal:
            self.session.drafts.dispute_tile = ""
        self.app.render()

    def add_anyway(self, _: Any) -> None:
        """Lay the tile just judged where it was judged (the verdict on screen), whatever is
        typed meanwhile."""
        b = self.table
        v = b.last
        if v is None:  # the verdict was answered or cleared meanwhile (another tab, a double tap)
            self.app.render()
            return
        b.add(v.tile, v.on, force=True)
        self.session.drafts.dispute_tile = ""
        self.app.render()

    async def load(self, _: Any) -> None:
        app = self.app
        picked = await app.pick_one("Load a layout file", ["json"])
        if picked is None:
            return
        name, raw = picked
        self.table.load(raw.decode("utf-8", errors="replace"), name)
        app.snack(f"Loaded {name}")
        app.render()

    async def read_photo(self, _: Any) -> None:
        app, b, photo = self.app, self.table, self.session.drafts.dispute_photo
        if b.layout is not None and b.layout.plays and b.photo is None and not photo.replace:
            # A table typed tile by tile is not thrown away by a photo without asking; the
            # question is brought up from under the sheet.
            photo.ask = True
            app.render()
            app.scroll_into_view("read-photo-ask")
            return
        photo.ask = photo.replace = False
        picked = await app.pick_one("Photo of the table")
        if picked is None:
            return
        name, data = picked
        photo.busy, photo.error = True, None
        app.render()
        if b.layout is not None:
            app.scroll_into_view("read-photo-busy")
        try:
            # The reader runs in a worker thread: the page stays responsive meanwhile.
            # Both pictures drawn there too, so the screen that shows them is built at once.
            await asyncio.to_thread(lambda: (b.read_photo(data, app.ctx.reader(), name), b.photo_jpeg(),
                                             b.board_png()))
        except ChickenFootError as exc:  # not an image, truncated, no double read, no models
            photo.error = " ".join(str(exc).split()) or type(exc).__name__
        except Exception as exc:  # the reader itself failed: still a message, never a crash
            log.exception("reading %s failed", name)
            photo.error = f"{name}: the reader failed ({type(exc).__name__})"
        finally:
            photo.busy = False
        error, photo.error = photo.error, None
        if error:  # said on this screen until the next action here (see App.show_error)
            app.show_error(f"Could not read the photo: {error}."
                           + (" The table is unchanged." if b.layout is not None else ""))
            return
        app.snack(f"Read the table from {name}")
        app.render()

    async def replace_it(self, _: Any) -> None:
        photo = self.session.drafts.dispute_photo
        photo.ask, photo.replace = False, True
        await self.read_photo(None)

    def keep_it(self, _: Any) -> None:
        self.session.drafts.dispute_photo.ask = False
        self.app.render()

    async def save(self, _: Any) -> None:
        app = self.app
        said = await app.deliver("layout.json", self.table.to_json().encode("utf-8"), "json")
        if said:
            app.snack(f"Layout saved: {said}")
        app.page.update()

    def choose_end(self, target: Tile) -> None:
        """An open end chosen by its chip (the board's tap goes through :func:`_board`)."""
        end_tapped(self.table, self.state, target)
        self.app.render()

    def toggle_picker(self, _: Any) -> None:
        self.state.toggle_picker()
        self.app.render()

    async def _fetch_kept(self) -> None:
        d = self.session.drafts
        try:
            text = await self.app.kept_on_device(KEPT_KEY)
        finally:
            d.dispute_fetching = False
        if self.table.restore(text):
            d.dispute_kept = text
            self.app.snack("The table from before is back (kept on this device)")
            self.app.render()

    def _keep(self) -> None:
        """Keep the table on this device as it changes; a session's first look brings back the
        one kept before (a phone that slept a few minutes comes back to a new session)."""
        d, b = self.session.drafts, self.table
        if d.dispute_kept is None:
            d.dispute_kept = ""
            if b.layout is None:
                d.dispute_fetching = True
                self.app.page.run_task(self._fetch_kept)
                return
        if d.dispute_fetching:
            return
        text = b.kept()
        if text != d.dispute_kept:
            d.dispute_kept = text
            self.app.keep_on_device(KEPT_KEY, text)

    def view(self) -> tuple[str, list[Any], str | None] | tuple[str, list[Any], str | None, Any]:
        app, b = self.app, self.table
        self._keep()
        photo = self.session.drafts.dispute_photo
        self.tile_field = tile_field = ft.TextField(label="Tile, e.g. 4-7", width=170, text_size=app.fs(18),
                                                    value=self.session.drafts.dispute_tile)
        tile_field.on_change = self.remember
        tile_field.on_submit = app.guarded(self.ask_on_enter)

        another: list[Any] = [
            app.dropdown("Rules", b.preset, [(k, r.title) for k, r in PRESETS.items()], self.set_preset, size=15),
            app.dropdown("Set", str(b.top), [(str(s), f"double-{s}") for s in SETS], self.set_top, size=15),
            ft.Row([
                app.button("Load layout file", self.load, kind="tonal", icon=ft.Icons.FILE_OPEN),
                app.button("Read the table from a photo", self.read_photo, kind="tonal", icon=ft.Icons.PHOTO_CAMERA,
                           disabled=photo.busy),
            ], wrap=True, spacing=8, run_spacing=8)]
        if photo.busy:
            another.append(ft.Row([ft.ProgressRing(width=28, height=28), app.text("Reading the table…", 16)],
                                  key=ft.ScrollKey("read-photo-busy")))
        if photo.ask:
            another.append(app.card(
                ft.Semantics(live_region=True, content=app.text(
                    "Reading a photo replaces the table typed here. Replace it?", 16, bold=True)),
                ft.Row([app.button("Replace it with the photo", self.replace_it, icon=ft.Icons.PHOTO_CAMERA),
                        app.button("Keep this table", self.keep_it, kind="outlined")], wrap=True, spacing=8, run_spacing=8),
                color=ft.Colors.TERTIARY_CONTAINER, key="read-photo-ask"))

        if b.layout is None:
            body = [*another, app.text("Which double is in the centre (the hub)?", 18, bold=True),
                    ft.Row([app.button(f"{h}-{h}", bind(self.act, b.start, h), kind="outlined")
                            for h in range(b.top, -1, -1)], wrap=True, spacing=6, run_spacing=6),
                    app.text("Or read the table from a photo: the hub is then guessed from it (choose "
                             "the hub first if the photo may not show which double it is).", 15)]
            return "Dispute checker", body, "/"

        # One working surface: the board on top (its open ends are the selection), the picker
        # and the verdict in the sheet fixed under it, the rest of the table's story below.
        sheet = _sheet(app, self, b)
        page = (float(getattr(app.page, "width", None) or 360), float(getattr(app.page, "height", None) or 780))
        board = _board(app, b, self.state, max_height=board_height(b, self.state, page, app.scale))
        body: list[Any] = []
        if b.photo is not None and available_width(app) >= 900:
            body.append(_photo_header(app, b))
            body.append(ft.Row([board, _photo(app, b, (available_width(app) - 16) / 2)], spacing=16,
                               vertical_alignment=ft.CrossAxisAlignment.START))
        else:
            body.append(board)
        hub = b.layout.hub
        body.append(app.card(*[app.text(s, 16, bold=True) for s in b.needs().sentences(hub)]))
        if b.photo is not None:
            if available_width(app) < 900:
                body += [_photo_header(app, b), _photo(app, b, available_width(app))]
            notes = b.photo_notes()
            if notes:
                body.append(app.text("Check on the photo", 18, bold=True))
                body.extend(app.warning(n[0].upper() + n[1:]) for n in notes)
        problems = b.problems()
        if problems:
            body.append(app.text("Problems with this table", 18, bold=True))
            body.extend(app.warning(p) for p in problems)

        body.append(app.text("Open ends (the dashed places on the board)", 18, bold=True))
        ends = []
        for e in b.open_ends():
            label = end_label(e)
            ends.append(app.button(label, bind(self.choose_end, e.target),
                                   kind="filled" if b.selected == e.target else "outlined",
                                   tooltip=f"Open end: {label}"))
        body.append(ft.Row(ends, wrap=True, spacing=6, run_spacing=6))
        question = f"Can it go on the {b.end_name(b.selected)}?" if b.selected else "Can it go here? (tap an open end first)"
        body.append(app.text("Or type the tile", 15, bold=True))
        body.append(ft.Row([
            tile_field,
            app.button(question, self.ask, icon=ft.Icons.HELP_OUTLINE, disabled=b.selected is None),
        ], wrap=True, spacing=8, run_spacing=8))
        body.append(app.text("On the table" + ("" if b.layout.ordered else " (order of play unknown)"),
                             18, bold=True))
        body.append(app.text(" · ".join(b.lines()), 15))
        if b.fixed:
            body.extend(_fix_section(app, b))

        back = b.undoable
        body.append(ft.Row([
            app.button(f"Take back {back}" if back else "Take back last tile", bind(self.act, b.undo), kind="outlined",
                       icon=ft.Icons.UNDO, disabled=back is None),
            app.button("Save layout", self.save, kind="outlined", icon=ft.Icons.SAVE),
            app.button("New table", self.new_table, kind="text"),
        ], wrap=True, spacing=8, run_spacing=8))
        if self.state.clearing:
            tiles = len(b.layout.plays) + 1  # and the hub
            body.append(app.card(
                ft.Semantics(live_region=True, content=app.text(
                    f"Start a new table? The {count(tiles, 'tile')} laid on this one "
                    f"{'is' if tiles == 1 else 'are'} not kept (Save layout keeps a table in a file).",
                    16, bold=True)),
                ft.Row([app.button("Keep this table", bind(self.ask_clear, False), kind="outlined"),
                        app.button("Start a new table", self.clear, icon=ft.Icons.DELETE_OUTLINE)],
                       wrap=True, spacing=8, run_spacing=8),
                color=ft.Colors.TERTIARY_CONTAINER, key="clear-table"))
        body.append(app.text("Another table", 18, bold=True))
        body.extend(another)
        return "Dispute checker", body, "/", sheet


def sheet_height(b: DisputeBuilder, st: DisputeState, width: float, scale: float) -> float:
    """About how tall the sheet is drawn (pixels) on a page ``width`` wide at text ``scale``:
    its handle, what it says (the verdict may take a few lines), Add, and the suits and the
    faces when they are shown."""

    def fs(size: float) -> float:
        return size * scale

    room = width - 28 - 52
    if b.last is not None:
        said = len(b.last.message) + 5
    elif b.selected is not None:
        said = 40
    else:
        said = 68
    lines = max(1, math.ceil(said * 0.55 * fs(16) / room))
    h = 15 + 10 + max(48.0, lines * fs(16) * 1.4)
    if b.last is not None and not b.last.legal:
        h += 6 + 2 * fs(14) * 1.4  # where else it could go
    if b.selected is not None:
        h += 6 + max(48.0, fs(15) + 30)  # Add
        if b.can_force and room < 380:  # "It is on the table anyway: add it" wraps under Add
            h += 4 + max(40.0, fs(15) + 24)
    if st.picking:
        h += 6 + max(48.0, fs(16) + 30) + 8 + 6 + FACE_WIDTH * 2.15 + fs(NUMBERS_SIZE) * 1.4 + 8 + 2 * SCROLLBAR_ROOM
    return h


def board_height(b: DisputeBuilder, st: DisputeState, page: tuple[float, float], scale: float) -> float:
    """The tallest board window that leaves the sheet and the zoom buttons on a page of ``page``
    (width, height) at text ``scale``."""
    return fitted_height(page[1], sheet_height(b, st, page[0], scale))


def end_tapped(b: DisputeBuilder, st: DisputeState, target: Tile) -> None:
    """An open end tapped (on the board or its chip) is chosen; a tile tapped before any end
    was chosen is judged on it at once."""
    b.select(target)
    st.end_chosen()
    if st.waiting is not None:
        b.ask(st.waiting)
        st.waiting = None


def _board(app: App, b: DisputeBuilder, st: DisputeState, width: float | None = None,
           max_height: float = MAX_HEIGHT) -> ft.Control:
    """The table drawn as a board; a tap on an open end selects it (as its chip does)."""

    def tapped(px: float, py: float, reach: float) -> None:
        end_tapped(b, st, b.end_at(px, py, reach))
        app.render()

    words = " · ".join(b.lines())
    ends = ", ".join(end_label(e) for e in b.open_ends())
    verdict = "" if b.last is None else f" Judged: {b.last.tile} on {b.last.on}: " \
        f"{'legal' if b.last.legal else 'not legal'}. {b.last.message}"
    chosen = "" if b.selected is None else f" Chosen: {b.end_name(b.selected)}."
    return board_view(app, b.picture(), b.board_png(), on_tap=tapped, selected=b.selected, width=width,
                      max_height=max_height, selected_note="Pick the tile" if b.last is None else "",
                      label=f"The table drawn as a board: {words}. Open ends: {ends or 'none'}.{chosen}{verdict}")


def _sheet(app: App, screen: DisputeScreen, b: DisputeBuilder) -> ft.Control:
    """The bottom sheet under the board: what to do next or the verdict on one line, Add, and the
    tile picker (folded away on request)."""
    st = screen.state
    v = b.last
    if v is not None:
        colour = ft.Colors.GREEN_800 if v.legal else ft.Colors.ERROR
        head: ft.Control = ft.Semantics(live_region=True, content=app.text(
            ("Yes. " if v.legal else "No. ") + v.message, 16, bold=True, color=colour))
    elif b.selected is not None:
        head = app.text(f"The tile for the {end_label(_end(b))}:", 16, bold=True)
    else:
        head = app.text("Tap an open end on the board (a dashed place), then its tile here.", 15)
    fold = app.icon_button(ft.Icons.KEYBOARD_ARROW_DOWN if st.picking else ft.Icons.KEYBOARD_ARROW_UP,
                           "Hide the tiles" if st.picking else "Show the tiles", screen.toggle_picker)
    parts: list[Any] = [
        ft.Row([ft.Container(width=36, height=4, border_radius=2, bgcolor=ft.Colors.OUTLINE_VARIANT)],
               alignment=ft.MainAxisAlignment.CENTER),
        ft.Row([ft.Container(head, expand=True), fold], spacing=4,
               vertical_alignment=ft.CrossAxisAlignment.CENTER)]
    if v is not None and not v.legal:
        others = b.where_can(v.tile)
        parts.append(app.text(
            f"{v.tile} could go on the " + ", ".join(b.end_name(o.on) for o in others) if others
            else f"{v.tile} has no legal place on this table right now.", 14))
    if b.selected is not None:
        actions = [app.button("Add to table", screen.add, kind="filled" if v is not None and v.legal else "tonal",
                              icon=ft.Icons.ADD, compact=True)]
        if v is not None and not v.legal and b.can_force:
            actions.append(app.button("It is on the table anyway: add it", screen.add_anyway, kind="text",
                                      compact=True))
        parts.append(ft.Row(actions, wrap=True, spacing=6, run_spacing=4))
    if st.picking:
        parts += _tile_chooser(app, b, st, screen.pick_suit)
    return ft.Column(parts, spacing=6, horizontal_alignment=ft.CrossAxisAlignment.STRETCH)


def _end(b: DisputeBuilder) -> Any:
    return next(e for e in b.open_ends() if e.target == b.selected)


def _tile_chooser(app: App, b: DisputeBuilder, st: DisputeState, pick: Any) -> list[Any]:
    """Tap the tile's face (its suit first, when it is not the chosen end's number): it fills the
    tile box and, with an open end chosen, asks at once. Tiles on the table already are greyed:
    a set has one of each. Each row slides sideways, so the sheet stays two rows high."""
    suit, row = suit_row(app, b.top, b.suit_for(st.suit), pick, scroll=True)
    zero_zero = b.rules.tile_penalty(Tile(0, 0))

    def choose(t: Tile) -> None:
        app.drafts.dispute_tile = str(t)
        ends = b.open_ends()
        if b.selected is None and len(ends) == 1:  # one place it could go: no tap needed to name it
            b.select(ends[0].target)
        if b.selected is not None:
            b.ask(t)
        else:  # a tile tapped before its end is kept, judged on the end tapped next
            st.waiting = t
            app.snack(f"Now tap the open end the {t} is to go on (a dashed place on the board)")
        app.render()

    def laid(t: Tile) -> None:
        app.snack(f"{t} is on the table already: a set has only one {t}")

    # The faces at their own size in large text too (their numbers grow): the sheet stays low
    # enough to leave the board its room.
    faces = [face_button(app, t, f"{t}, on the table" if on else str(t),
                         bind(laid if on else choose, t), zero_zero=zero_zero, taken=on, width=FACE_WIDTH)
             for t, on in b.tile_choices(suit)]
    # (a face's button is at least Material's 64 px wide)
    return [row, sliding_row(app, faces, max(FACE_BUTTON_MIN_WIDTH, FACE_WIDTH + 8), gap=3)]


def _photo_header(app: App, b: DisputeBuilder) -> ft.Control:
    ph = b.photo
    assert ph is not None
    return app.text(f"From the photo: {count(ph.tiles_read, 'tile')} seen, the hub is {ph.table.layout.hub} "
                    f"with {count(len(ph.table.layout.plays), 'tile')} joined to it", 16, bold=True)


def _photo(app: App, b: DisputeBuilder, width: float) -> ft.Control:
    """The photo, cut to the table, with the layout read from it drawn on; zoomable."""
    ph = b.photo
    assert ph is not None and b.layout is not None
    jpeg = b.photo_jpeg()
    left, top, right, bottom = b.photo_crop()
    height = width * (bottom - top) / max(1, right - left)
    return ft.Semantics(
        label=f"Photo of the table with the layout read from it: hub {ph.table.layout.hub} ringed, "
              "joints in blue, tiles with a problem in red",
        content=ft.InteractiveViewer(
            content=image(jpeg, width=width, height=height, fit=ft.BoxFit.CONTAIN),
            min_scale=1.0, max_scale=6.0, width=width, height=height, clip_behavior=ft.ClipBehavior.HARD_EDGE))


def _fix_section(app: App, b: DisputeBuilder) -> list[Any]:
    """Tiles from a photo (or an unordered file) are fixed by name, not taken back in order."""
    source = "the photo" if b.photo is not None else "the file"
    read_as = ft.TextField(label="Tile on the table", width=170, text_size=app.fs(16),
                           value=app.drafts.dispute_fix)
    really = ft.TextField(label="Really, e.g. 3-7", width=170, text_size=app.fs(16))

    def remember(e: Any) -> None:
        app.drafts.dispute_fix = e.control.value

    read_as.on_change = remember

    def correct(_: Any) -> None:
        b.correct(read_as.value or "", really.value or "")
        app.drafts.dispute_fix = ""
        app.render()

    def remove(_: Any) -> None:
        b.remove(read_as.value or "")
        app.drafts.dispute_fix = ""
        app.render()

    return [
        app.text(f"Misread, or not in play? The tiles from {source} have no known order, so they are "
                 "corrected or removed by name (a tile with others on it can only be corrected).", 15),
        ft.Row([read_as, really,
                app.button("Correct it", correct, kind="outlined", icon=ft.Icons.EDIT),
                app.button("Remove it", remove, kind="outlined", icon=ft.Icons.DELETE_OUTLINE)],
               wrap=True, spacing=8, run_spacing=8),
    ]
