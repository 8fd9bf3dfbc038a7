"""Dispute checker: build the table (hub, then tap an open end to add a tile), load a layout
file or read the table from a photo; see open ends, the open foot and spokes still needed; ask
"can 4-7 go here?"."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

import flet as ft

from chickenfoot.app.dispute import DisputeBuilder
from chickenfoot.app.screens import DisputeState
from chickenfoot.app.views import Screen, bind
from chickenfoot.app.views.board import available_width, board_view, end_label
from chickenfoot.app.views.faces import face_button, face_row, suit_row
from chickenfoot.rules import PRESETS, SETS, Tile
from chickenfoot.rules.errors import ChickenFootError
from chickenfoot.rules.words import count

if TYPE_CHECKING:
    from chickenfoot.app.shell import App

log = logging.getLogger(__name__)


class DisputeScreen(Screen):
    """The dispute checker over the session's dispute draft (the table, the tile typed, a photo
    being read) and the suit of faces shown."""

    State = DisputeState
    state: DisputeState

    def act(self, fn: Any, *args: Any) -> None:
        """Change the table (``fn(*args)``) and redraw."""
        fn(*args)
        self.app.render()

    def pick_suit(self, v: int) -> None:
        self.state.suit = v
        self.app.render()

    @property
    def table(self) -> DisputeBuilder:
        return self.session.dispute_table()

    @property
    def typed(self) -> str:
        """The tile in the tile box."""
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
        self.table.add(self.typed, force=True)
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
            # A table typed tile by tile is not thrown away by a photo without asking.
            photo.ask = True
            app.render()
            return
        photo.ask = photo.replace = False
        picked = await app.pick_one("Photo of the table")
        if picked is None:
            return
        name, data = picked
        photo.busy, photo.error = True, None
        app.render()
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
                           + (" The table below is unchanged." if b.layout is not None else ""))
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

    def view(self) -> tuple[str, list[Any], str | None]:
        app, b = self.app, self.table
        photo = self.session.drafts.dispute_photo
        self.tile_field = tile_field = ft.TextField(label="Tile, e.g. 4-7", width=170, text_size=app.fs(18),
                                                    value=self.session.drafts.dispute_tile)
        tile_field.on_change = self.remember
        tile_field.on_submit = app.guarded(self.ask_on_enter)

        body: list[Any] = [
            app.dropdown("Rules", b.preset, [(k, r.title) for k, r in PRESETS.items()], self.set_preset, size=15),
            app.dropdown("Set", str(b.top), [(str(s), f"double-{s}") for s in SETS], self.set_top, size=15),
            ft.Row([
                app.button("Load layout file", self.load, kind="tonal", icon=ft.Icons.FILE_OPEN),
                app.button("Read the table from a photo", self.read_photo, kind="tonal", icon=ft.Icons.PHOTO_CAMERA,
                           disabled=photo.busy),
            ], wrap=True, spacing=8, run_spacing=8)]
        if photo.busy:
            body.append(ft.Row([ft.ProgressRing(width=28, height=28), app.text("Reading the table…", 16)]))
        if photo.ask:
            body.append(app.card(
                ft.Semantics(live_region=True, content=app.text(
                    "Reading a photo replaces the table typed here. Replace it?", 16, bold=True)),
                ft.Row([app.button("Replace it with the photo", self.replace_it, icon=ft.Icons.PHOTO_CAMERA),
                        app.button("Keep this table", self.keep_it, kind="outlined")], wrap=True, spacing=8, run_spacing=8),
                color=ft.Colors.TERTIARY_CONTAINER))

        if b.layout is None:
            body.append(app.text("Which double is in the centre (the hub)?", 18, bold=True))
            body.append(ft.Row([app.button(f"{h}-{h}", bind(self.act, b.start, h), kind="outlined")
                                for h in range(b.top, -1, -1)], wrap=True, spacing=6, run_spacing=6))
            body.append(app.text("Or read the table from a photo: the hub is then guessed from it (choose "
                                 "the hub first if the photo may not show which double it is).", 15))
            return "Dispute checker", body, "/"

        hub = b.layout.hub
        needs = b.needs()
        if b.photo is not None:
            body.extend(_photo_section(app, b))
        body.append(app.card(*[app.text(s, 17, bold=True) for s in needs.sentences(hub)]))
        if b.photo is None:
            body.append(_board(app, b))
        body.append(app.text("Open ends: tap one (on the board or here), then type a tile", 18, bold=True))
        ends = []
        for e in b.open_ends():
            label = end_label(e)
            ends.append(app.button(label, bind(self.act, b.select, e.target),
                                   kind="filled" if b.selected == e.target else "outlined",
                                   tooltip=f"Open end: {label}"))
        body.append(ft.Row(ends, wrap=True, spacing=6, run_spacing=6))
        question = f"Can it go on the {b.end_name(b.selected)}?" if b.selected else "Can it go here? (tap an open end first)"
        body.append(ft.Row([
            tile_field,
            app.button(question, self.ask, icon=ft.Icons.HELP_OUTLINE, disabled=b.selected is None),
            app.button("Add to table", self.add, kind="tonal", icon=ft.Icons.ADD, disabled=b.selected is None),
        ], wrap=True, spacing=8, run_spacing=8))
        # The verdict right under the question, above the faces: a phone shows it without scrolling.
        if b.last is not None:
            v = b.last
            colour = ft.Colors.GREEN_800 if v.legal else ft.Colors.ERROR
            extra: list[Any] = []
            if not v.legal:
                others = b.where_can(v.tile)
                extra.append(app.text(
                    f"{v.tile} could go on the " + ", ".join(b.end_name(o.on) for o in others) if others
                    else f"{v.tile} has no legal place on this table right now.", 15))
                extra.append(app.button("It is on the table anyway: add it", self.add_anyway, kind="text"))
            body.append(app.card(app.text(("Yes. " if v.legal else "No. ") + v.message, 19, bold=True, color=colour),
                                 *extra))
        body.extend(_tile_chooser(app, b, self.state.suit, self.pick_suit))
        problems = b.problems()
        if problems:
            body.append(app.text("Problems with this table", 18, bold=True))
            body.extend(app.warning(p) for p in problems)
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
            app.button("New table", bind(self.act, b.clear), kind="text"),
        ], wrap=True, spacing=8, run_spacing=8))
        return "Dispute checker", body, "/"


def _board(app: App, b: DisputeBuilder, width: float | None = None) -> ft.Control:
    """The table drawn as a board; a tap on an open end selects it (as its chip does)."""

    def tapped(px: float, py: float, reach: float) -> None:
        b.tap(px, py, reach)
        app.render()

    words = " · ".join(b.lines())
    ends = ", ".join(end_label(e) for e in b.open_ends())
    verdict = "" if b.last is None else f" Judged: {b.last.tile} on {b.last.on}: " \
        f"{'legal' if b.last.legal else 'not legal'}. {b.last.message}"
    pic = b.picture()
    drawing = board_view(app, pic, b.board_png(), on_tap=tapped, selected=b.selected, width=width,
                         label=f"The table drawn as a board: {words}. Open ends: {ends or 'none'}.{verdict}")
    ghost = pic.board.ghost if pic.board is not None else None
    if ghost is None:
        return drawing
    # The verdict in words right under the drawing too: on a phone the sentence drawn beside
    # the play is small until zoomed.
    colour = ft.Colors.GREEN_800 if ghost.legal else ft.Colors.ERROR
    return ft.Column([drawing, app.text(f"{ghost.caption} {ghost.verdict.message}", 16, bold=True, color=colour)],
                     spacing=4)


def _tile_chooser(app: App, b: DisputeBuilder, shown: int | None, pick: Any) -> list[Any]:
    """Or tap the tile's face (a suit, then the tile): it fills the tile box and, with an open end
    chosen, asks at once. Tiles on the table already are greyed: a set has one of each."""
    suit, row = suit_row(app, b.top, shown, pick)
    zero_zero = b.rules.tile_penalty(Tile(0, 0))

    def choose(t: Tile) -> None:
        app.drafts.dispute_tile = str(t)
        if b.selected is not None:
            b.ask(t)
        app.render()

    def laid(t: Tile) -> None:
        app.snack(f"{t} is on the table already: a set has only one {t}")

    faces = [face_button(app, t, f"{t}, on the table" if on else str(t),
                         bind(laid if on else choose, t), zero_zero=zero_zero, taken=on)
             for t, on in b.tile_choices(suit)]
    return [app.text("Or tap the tile: its suit, then its face", 15, bold=True), row, face_row(faces)]


def _photo_section(app: App, b: DisputeBuilder) -> list[Any]:
    """The photo with the layout drawn on it, the same table drawn as a board beside it (below
    it on a phone), and what the player should check."""
    ph = b.photo
    assert ph is not None and b.layout is not None
    out: list[Any] = [app.text(f"From the photo: {count(ph.tiles_read, 'tile')} seen, the hub is "
                               f"{ph.table.layout.hub} with {count(len(ph.table.layout.plays), 'tile')} played on it",
                               16, bold=True)]
    jpeg = b.photo_jpeg()
    room = available_width(app)
    side_by_side = room >= 900
    width = (room - 16) / 2 if side_by_side else max(260, min((app.page.width or 400) - 80, 640))
    iw, ih = ph.image.size
    height = width * ih / iw
    photo = ft.Semantics(
        label=f"Photo of the table with the layout read from it: hub {ph.table.layout.hub} ringed, "
              "joints in blue, tiles with a problem in red",
        content=ft.Image(src=jpeg, width=width, height=height, fit=ft.BoxFit.CONTAIN))
    board = _board(app, b, width=(room - 16) / 2 if side_by_side else None)
    out.append(ft.Row([photo, board], spacing=16, vertical_alignment=ft.CrossAxisAlignment.START)
               if side_by_side else ft.Column([photo, board], spacing=10))
    notes = b.photo_notes()
    if notes:
        out.append(app.text("Check on the photo", 18, bold=True))
        out.extend(app.warning(n[0].upper() + n[1:]) for n in notes)
    return out


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
