"""Scoreboard, round brief, end-of-round entry and photo review for one match."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import flet as ft
import flet.canvas as cv

from companion.app.dispute import DisputeBuilder
from companion.app.match_session import MatchSession
from companion.app.photo_review import PhotoReview, annotate, from_reading, is_low, label
from companion.app.round_entry import Mode, RoundEntry
from companion.app.views import bind
from companion.rules import FirstPlayer

if TYPE_CHECKING:
    from companion.app.shell import App

SERIES_COLOURS = [ft.Colors.BLUE, ft.Colors.RED, ft.Colors.GREEN, ft.Colors.ORANGE,
                  ft.Colors.PURPLE, ft.Colors.TEAL, ft.Colors.BROWN, ft.Colors.PINK]


def _session(app: App, mid: str) -> MatchSession:
    return MatchSession(app.ctx.store, mid)


def _changed(app: App, ms: MatchSession) -> None:
    app.notify_change(ms.id)


# ----------------------------------------------------------------- scoreboard
def build_scoreboard(app: App, mid: str) -> tuple[str, list[Any], str | None]:
    ms = _session(app, mid)
    m = ms.match
    body: list[Any] = [app.text(f"{m.rules.title} · double-{m.set_top} · {m.deal_size} tiles each", 15)]

    if ms.over:
        lines = ms.outcome_text()
        body.append(app.card(app.text("Match over", 22, bold=True),
                             *[app.text(line, 18 if k == 0 else 15, bold=k == 0) for k, line in enumerate(lines)],
                             color=ft.Colors.PRIMARY_CONTAINER))
    elif m.abandoned:
        body.append(app.card(app.text("This match was abandoned.", 18, bold=True),
                             app.button("Resume it", lambda _: (ms.resume(), _changed(app, ms), app.render()))))
    else:
        b = ms.brief()
        assert b is not None
        body.append(app.card(
            app.text(f"Next: round {b.number} of {b.of}, starting from {b.double_text}", 20, bold=True),
            app.text(ms.next_starter_text(), 17),
            ft.Row([
                app.button(f"Enter round {b.number}", lambda _: app.go(f"/match/{mid}/round"), icon=ft.Icons.EDIT_NOTE),
                app.button("Round brief", lambda _: app.go(f"/match/{mid}/brief"), kind="outlined",
                           icon=ft.Icons.INFO_OUTLINE),
                app.button("Check the table", bind(_dispute_round, app, m.rules, b.set_top, b.double),
                           kind="outlined", icon=ft.Icons.GAVEL,
                           tooltip=f"Dispute checker for this round: {m.rules.title}, hub {b.double_text}"),
            ], wrap=True, spacing=8, run_spacing=8)))

    # standings
    ranked = ms.ranked()
    leaders = set(ms.leaders())
    body.append(app.heading("Standings"))
    for s in ranked:
        tag = "  (leader)" if s.player in leaders and not ms.over else ""
        body.append(app.text(f"{s.rank}. {s.player}: {s.total}{tag}", 18, bold=s.player in leaders))

    # round-by-round table
    rows = ms.rows()
    if rows:
        body.append(app.heading("Rounds"))
        cols = [ft.DataColumn(app.text("Round", 15, bold=True)), *[
            ft.DataColumn(app.text(p, 15, bold=True), numeric=True) for p in ms.players],
            ft.DataColumn(app.text("", 15))]
        drows = []
        for r in rows:
            cells = [ft.DataCell(app.text(f"{r.number} ({r.double_text})", 15))]
            for seat, pen in enumerate(r.penalties):
                mark = " out" if r.out == seat else ""
                cells.append(ft.DataCell(app.text(f"{pen}{mark}", 15)))
            cells.append(ft.DataCell(ft.TextButton(
                content=ft.Text(f"Edit round {r.number}", size=app.fs(14)),
                on_click=bind(app.go, f"/match/{mid}/round/{r.number}"))))
            drows.append(ft.DataRow(cells))
        totals = ms.match.totals()
        drows.append(ft.DataRow([ft.DataCell(app.text("Total", 15, bold=True)),
                                 *[ft.DataCell(app.text(str(t), 15, bold=True)) for t in totals],
                                 ft.DataCell(app.text("", 15))]))
        body.append(ft.Row([ft.DataTable(columns=cols, rows=drows, column_spacing=14,
                                         horizontal_margin=6)], scroll=ft.ScrollMode.AUTO))
        body.append(app.text("“out”: went out that round. Tap “Edit round N” to correct a past round.", 14,
                             italic=True))
        body.append(app.heading("Totals over the rounds"))
        body.append(_chart(app, ms))

    # undo / redo
    def undo(_: Any) -> None:
        ms.undo()
        _changed(app, ms)
        app.render()

    def redo(_: Any) -> None:
        ms.redo()
        _changed(app, ms)
        app.render()

    body.append(ft.Row([
        app.button("Undo" + (f": {ms.undo_label()}" if ms.can_undo else ""), undo, kind="outlined",
                   icon=ft.Icons.UNDO, disabled=not ms.can_undo),
        app.button("Redo" + (f": {ms.redo_label()}" if ms.can_redo else ""), redo, kind="outlined",
                   icon=ft.Icons.REDO, disabled=not ms.can_redo),
    ], wrap=True, spacing=8, run_spacing=8))
    return "Scoreboard", body, "/"


def _chart(app: App, ms: MatchSession) -> ft.Control:
    series = ms.chart()
    width = max(280, min((app.page.width or 400) - 60, 720))
    height = 200
    top = max(max(s) for s in series) or 1
    n = len(series[0]) - 1
    pad = 28

    def x(k: int) -> float:
        return pad + (width - pad - 8) * (k / max(n, 1))

    def y(v: float) -> float:
        return height - pad - (height - pad - 8) * (v / top)

    shapes: list[Any] = [
        cv.Line(pad, y(0), width - 8, y(0), paint=ft.Paint(color=ft.Colors.OUTLINE, stroke_width=1)),
        cv.Line(pad, y(0), pad, 8, paint=ft.Paint(color=ft.Colors.OUTLINE, stroke_width=1)),
        cv.Text(2, y(top) - 6, str(top), style=ft.TextStyle(size=11)),
        cv.Text(2, y(0) - 6, "0", style=ft.TextStyle(size=11)),
    ]
    for k in range(n + 1):
        shapes.append(cv.Text(x(k) - 3, height - pad + 6, str(k), style=ft.TextStyle(size=11)))
    for s, values in enumerate(series):
        colour = SERIES_COLOURS[s % len(SERIES_COLOURS)]
        paint = ft.Paint(color=colour, stroke_width=3, style=ft.PaintingStyle.STROKE)
        for k in range(1, len(values)):
            shapes.append(cv.Line(x(k - 1), y(values[k - 1]), x(k), y(values[k]), paint=paint))
        for k, v in enumerate(values):
            shapes.append(cv.Circle(x(k), y(v), 4, paint=ft.Paint(color=colour)))
    legend = ft.Row([ft.Row([ft.Container(width=14, height=14, bgcolor=SERIES_COLOURS[s % 8], border_radius=7),
                             app.text(f"{p} {series[s][-1]}", 14)], spacing=4)
                     for s, p in enumerate(ms.players)], wrap=True, spacing=12)
    chart = ft.Semantics(
        label="Chart of totals after each round: " + "; ".join(
            f"{p} " + ", ".join(str(v) for v in series[s][1:]) for s, p in enumerate(ms.players)),
        content=cv.Canvas(shapes=shapes, width=width, height=height))
    return ft.Column([chart, legend, app.text("Rounds played along the bottom, total points up the side.", 13,
                                              italic=True)], spacing=6)


# ----------------------------------------------------------------- round brief
def _domino(app: App, value: int) -> ft.Control:
    """The round's double drawn large: a tile with its number in each half."""
    half = ft.Container(app.text(str(value), 56, bold=True, color=ft.Colors.BLACK), width=120, height=110,
                        alignment=ft.Alignment.CENTER)
    return ft.Semantics(label=f"The round's double: {value}-{value}", content=ft.Container(
        ft.Column([half, ft.Container(height=3, width=100, bgcolor=ft.Colors.BLACK), half], spacing=0,
                  horizontal_alignment=ft.CrossAxisAlignment.CENTER),
        bgcolor=ft.Colors.WHITE, border=ft.Border.all(3, ft.Colors.BLACK), border_radius=16, padding=6))


def _dispute_round(app: App, rules: Any, top: int, double: int) -> None:
    """Open the dispute checker on this round's table: the match's rules, set and double (so a
    photo of the table is read around the right hub)."""
    app.drafts["dispute"] = DisputeBuilder.for_round(rules, top, double)
    app.go("/dispute")


def build_brief(app: App, mid: str) -> tuple[str, list[Any], str | None]:
    ms = _session(app, mid)
    b = ms.brief()
    if b is None:
        return "Round", [app.text("The match is over."),
                         app.button("Scoreboard", lambda _: app.go(f"/match/{mid}"))], f"/match/{mid}"
    m = ms.match
    body: list[Any] = [
        app.text(f"Round {b.number} of {b.of}", 22, bold=True),
        ft.Row([_domino(app, b.double)], alignment=ft.MainAxisAlignment.CENTER),
        app.text(f"Deal {b.deal} tiles to each player (double-{b.set_top} set).", 18),
        app.card(app.text("Who plays first", 18, bold=True), app.text(ms.next_starter_text(), 17),
                 app.text(b.why_first, 15)),
        app.card(app.text("If nobody holds the double", 18, bold=True), app.text(b.missing_double, 16)),
        app.card(app.text("Remember", 18, bold=True), app.text(b.reminder, 16)),
    ]
    if m.rules.first_player is FirstPlayer.AFTER_HOLDER:
        def hold(name: str) -> None:
            ms.set_holder(name)
            _changed(app, ms)
            app.render()
        body.append(app.text(f"Who holds (or found) {b.double_text}?", 17, bold=True))
        body.append(ft.Row([app.button(p, bind(hold, p),
                                       kind="filled" if m.pending_holder == i else "outlined")
                            for i, p in enumerate(m.players)], wrap=True, spacing=8, run_spacing=8))
    body.append(app.button(f"Enter round {b.number} results", lambda _: app.go(f"/match/{mid}/round"),
                           icon=ft.Icons.EDIT_NOTE))
    return f"Round {b.number}: {b.double_text}", body, f"/match/{mid}"


# ----------------------------------------------------------------- round entry
def _entry(app: App, ms: MatchSession, number: int | None) -> RoundEntry:
    """The round being entered, shared by every device on this server (each player can enter
    their own hand on their own phone). Rebuilt when the match moved on: for a new round once
    it is saved, for an edit once the match changed since the edit began."""
    key = f"{ms.id}:{number or 'new'}"
    stamp = ("new", len(ms.match.rounds)) if number is None else ("edit", ms.match.revision)
    with app.ctx.lock:
        draft = app.ctx.drafts.get(key)
        if draft is None or draft[0] != stamp:
            entry = ms.new_entry() if number is None else ms.entry_for(number)
            draft = (stamp, entry)
            app.ctx.drafts[key] = draft
    return draft[1]


def build_round_entry(app: App, mid: str, number: int | None) -> tuple[str, list[Any], str | None]:
    ms = _session(app, mid)
    m = ms.match
    if number is None and ms.over:
        return "Round", [app.text("The match is over; edit a past round from the scoreboard.")], f"/match/{mid}"
    if number is not None and not 1 <= number <= len(m.rounds):
        return "Round", [app.text(f"There is no round {number} yet.")], f"/match/{mid}"
    entry = _entry(app, ms, number)
    okey = f"open:{mid}:{number or 'new'}"
    opened: tuple[int, str] | None = app.drafts.get(okey)
    idx = len(m.rounds) if number is None else number - 1
    d = m.round_doubles[idx]

    def open_editor(i: int, mode: str) -> None:
        app.drafts[okey] = (i, mode)
        if mode == "out":
            entry.went_out(i)
            app.drafts[okey] = None
            app.notify_entry(mid)
        app.render()

    body: list[Any] = [app.text(
        ("Editing" if number else "Scoring") + f" round {idx + 1} ({d}-{d}). For each player: went out, "
        "a number, the tiles left, or a photo of the hand.", 15)]
    statuses: list[ft.Text] = []
    for i, h in enumerate(entry.hands):
        status = app.text(_status(entry, i), 17)
        statuses.append(status)
        head = ft.Row([app.text(h.player, 19, bold=True), ft.Container(status, expand=True)], spacing=10,
                      vertical_alignment=ft.CrossAxisAlignment.CENTER)
        modes = ft.Row([
            app.button("Went out", bind(open_editor, i, "out"),
                       kind="filled" if h.mode is Mode.OUT else "outlined", tooltip=f"{h.player} went out"),
            app.button("Number", bind(open_editor, i, "pips"),
                       kind="filled" if h.mode is Mode.PIPS else "outlined", tooltip=f"Type {h.player}'s points"),
            app.button("Tiles", bind(open_editor, i, "tiles"),
                       kind="filled" if h.mode is Mode.TILES else "outlined", tooltip=f"Pick {h.player}'s tiles"),
            app.button("Photo", bind(open_editor, i, "photo"),
                       kind="filled" if h.mode is Mode.PHOTO else "outlined", tooltip=f"Photo of {h.player}'s hand"),
        ], wrap=True, spacing=6, run_spacing=6)
        parts: list[Any] = [head, modes]
        if opened and opened[0] == i:
            if opened[1] == "pips":
                parts.append(_number_pad(app, entry, i, lambda: changed()))
            elif opened[1] == "tiles":
                parts.append(_tile_picker(app, entry, i, lambda: changed()))
            elif opened[1] == "photo":
                parts.append(_photo_panel(app, ms, entry, i, f"{okey}:photo:{i}", okey))
        body.append(app.card(*parts, color=ft.Colors.SECONDARY_CONTAINER if opened and opened[0] == i else None))

    choices = ms.opening_choices(number)
    if choices:
        def opened_with(v: int) -> None:
            entry.started_with = None if v == d else v
            app.notify_entry(mid)
            app.render()

        current = d if entry.started_with is None else entry.started_with
        body.append(app.text(f"Nobody held {d}-{d}? Which double opened the round:", 16, bold=True))
        body.append(ft.Row([app.button(f"{v}-{v}" + (" (its own)" if v == d else ""), bind(opened_with, v),
                                       kind="filled" if v == current else "outlined")
                            for v in choices], wrap=True, spacing=6, run_spacing=6))

    notes = ft.Column(spacing=6)

    def save(_: Any) -> None:
        ms.save_round(entry, number)
        with app.ctx.lock:
            app.ctx.drafts.pop(f"{mid}:{number or 'new'}", None)
        app.drafts.pop(okey, None)
        _changed(app, ms)
        app.snack(f"Round {idx + 1} saved")
        app.go(f"/match/{mid}")

    save_button = app.button("Save round" if number is None else f"Save round {number}", save,
                             icon=ft.Icons.CHECK)

    def refresh() -> None:
        """Update only what a key press or tile tap changes, so fast taps are never lost
        to a whole-screen rebuild."""
        for k, st in enumerate(statuses):
            st.value = _status(entry, k)
        problems = entry.problems()
        dups = entry.duplicates()
        others = [p for p in problems if p not in dups]
        notes.controls = [app.warning(w) for w in dups]
        if others and any(h.mode is not Mode.UNSET for h in entry.hands):
            notes.controls.append(app.text("Still needed: " + "; ".join(others), 15))
        save_button.disabled = bool(problems)

    def changed() -> None:
        refresh()
        app.notify_entry(mid)

    def cancel(_: Any) -> None:
        # A new round's entry stays for the other phones; an abandoned edit is dropped.
        if number is not None:
            with app.ctx.lock:
                app.ctx.drafts.pop(f"{mid}:{number}", None)
            app.notify_entry(mid)
        app.go(f"/match/{mid}")

    refresh()
    body.append(notes)
    body.append(ft.Row([
        save_button,
        app.button("Back to scoreboard" if number is None else "Cancel edit", cancel, kind="text"),
    ], wrap=True, spacing=8))
    title = f"Edit round {number}" if number else f"Round {idx + 1} results"
    return title, body, f"/match/{mid}"


def _status(entry: RoundEntry, i: int) -> str:
    h = entry.hands[i]
    pen = entry.penalty(i)
    if h.mode is Mode.OUT:
        return "went out: 0"
    if pen is None:
        return "not entered"
    if h.mode in (Mode.TILES, Mode.PHOTO):
        return f"{pen} points ({', '.join(str(t) for t in h.tiles) or 'no tiles'})"
    return f"{pen} points"


def _number_pad(app: App, entry: RoundEntry, i: int, refresh: Any) -> ft.Control:
    h = entry.hands[i]
    display = app.text("", 24, bold=True)

    def show() -> None:
        shown = h.pad if h.mode is Mode.PIPS and h.pad else "0"
        display.value = f"{h.player}: {shown} points"

    def press(k: str) -> None:
        was = h.mode
        entry.press(i, k)
        if was is not h.mode:
            refresh()  # tells the other devices
            app.render()  # the mode buttons change too
            return
        show()
        refresh()
        app.page.update()

    def key(label: str, k: str, tip: str | None = None) -> ft.Control:
        return ft.Container(app.button(label, bind(press, k), kind="tonal", tooltip=tip), width=86)

    show()
    grid = ft.Column([
        ft.Row([key(str(n), str(n)) for n in (1, 2, 3)], spacing=6),
        ft.Row([key(str(n), str(n)) for n in (4, 5, 6)], spacing=6),
        ft.Row([key(str(n), str(n)) for n in (7, 8, 9)], spacing=6),
        ft.Row([key("C", "clear", "Clear"), key("0", "0"), key("Del", "back", "Delete last digit")], spacing=6),
    ], spacing=6)
    return ft.Column([display, grid], spacing=8)


def _tile_picker(app: App, entry: RoundEntry, i: int, refresh: Any) -> ft.Control:
    h = entry.hands[i]
    intro = app.text("", 15)
    slots: dict[Any, ft.Container] = {}

    def chosen() -> set[Any]:
        return set(h.tiles) if h.mode in (Mode.TILES, Mode.PHOTO) else set()

    def tile_button(pt: Any) -> ft.Control:
        on = pt.tile in chosen()
        return (ft.FilledButton if on else ft.OutlinedButton)(
            content=ft.Text(pt.label, size=app.fs(15)),
            tooltip=f"{'Remove' if on else 'Add'} {pt.tile} ({pt.penalty} points)",
            on_click=app.guarded(bind(toggle, pt)),
            style=ft.ButtonStyle(padding=ft.Padding.symmetric(horizontal=8, vertical=8)))

    def show() -> None:
        pen = entry.penalty(i)
        intro.value = (f"Tap the tiles left in {h.player}'s hand (tap again to take one back). "
                       f"Penalty: {pen if pen is not None else 0}")

    def toggle(pt: Any) -> None:
        was = h.mode
        if pt.tile in chosen():
            entry.remove_tile(i, pt.tile)
        else:
            entry.add_tile(i, pt.tile)
        if was is not h.mode:
            refresh()
            app.render()
            return
        slots[pt.tile].content = tile_button(pt)
        show()
        refresh()
        app.page.update()

    for pt in entry.picker_tiles():
        slots[pt.tile] = ft.Container(tile_button(pt))
    show()
    return ft.Column([intro, ft.Row(list(slots.values()), wrap=True, spacing=4, run_spacing=4)], spacing=8)


# ----------------------------------------------------------------- photo
def _photo_panel(app: App, ms: MatchSession, entry: RoundEntry, i: int, key: str,
                 okey: str) -> ft.Control:
    state = app.drafts.setdefault(key, {"review": None, "busy": False, "error": None, "selected": None,
                                        "adding": False})
    h = entry.hands[i]

    async def choose(_: Any) -> None:
        picked = await app.pick_one(f"Photo of {h.player}'s hand")
        if picked is None:
            return
        _, data = picked
        if not data:
            state["error"] = "the photo could not be read"
            app.render()
            return
        state.update(busy=True, error=None, review=None, selected=None)
        app.render()
        try:
            # The reader runs in a worker thread: the page stays responsive meanwhile.
            reading = await asyncio.to_thread(_read_photo, app, data, ms.match.rules, ms.match.set_top)
            state["review"] = from_reading(ms.match.rules, ms.match.set_top, reading, data)
        except Exception as exc:  # ModelError, ImageError (ChickenFootError) or a bad file
            state["error"] = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        finally:
            state["busy"] = False
        app.render()

    parts: list[Any] = [app.button("Choose photo" if state["review"] is None else "Choose another photo",
                                   choose, icon=ft.Icons.PHOTO_CAMERA, kind="tonal",
                                   disabled=state["busy"])]
    if state["busy"]:
        parts.append(ft.Row([ft.ProgressRing(width=28, height=28), app.text("Reading the tiles…", 16)]))
    if state["error"]:
        parts.append(app.text("Could not read the photo: " + state["error"], 15, color=ft.Colors.ERROR))
    review: PhotoReview | None = state["review"]
    if review is not None:
        parts.extend(_review(app, ms, entry, i, review, state, okey))
    return ft.Column(parts, spacing=10)


def _read_photo(app: App, data: bytes, rules: Any, top: int) -> Any:
    return app.ctx.reader().read(data, rules, top)


def _review(app: App, ms: MatchSession, entry: RoundEntry, i: int, review: PhotoReview, state: dict,
            okey: str) -> list[Any]:
    out: list[Any] = []
    width = max(260, min((app.page.width or 400) - 80, 640))
    iw, ih = review.image_size if review.image_size[0] else (4, 3)
    height = width * ih / iw

    def tap(e: Any) -> None:
        pos = e.local_position
        if pos is None:
            return
        hit = review.tile_at(pos.x * iw / width, pos.y * ih / height)
        if hit is not None:
            state.update(selected=hit, adding=False)
            app.render()

    key = tuple(review.items)
    if state.get("png_key") != key:  # redraw the outlines only when the tiles changed
        state["png"], state["png_key"] = annotate(review), key
    png = state["png"]
    out.append(ft.GestureDetector(
        content=ft.Semantics(label=f"Photo with {len(review.items)} tiles outlined",
                             content=ft.Image(src=png, width=width, height=height, fit=ft.BoxFit.CONTAIN)),
        on_tap_down=tap))
    out.append(app.text(f"Penalty from this photo: {review.penalty}", 20, bold=True))
    for w in review.warnings:
        out.append(app.text("Reader: " + w, 15, italic=True))
    unsure = [k for k in review.low_confidence if k not in review.candidates]
    if unsure:
        out.append(app.text(f"{len(unsure)} tile(s) marked orange need a second look: "
                            "tap one to correct it.", 15, color=ft.Colors.ORANGE_800))
    if review.candidates:
        out.append(app.text(f"{len(review.candidates)} possible tile(s) in grey are not counted: "
                            "tap one to count, correct or remove it.", 15, color=ft.Colors.GREY_700))
    def select(k: int) -> None:
        state.update(selected=k, adding=False)
        app.render()

    chips = []
    for k, it in enumerate(review.items):
        chips.append(ft.Container(app.button(
            f"{k + 1}: {label(it)}", bind(select, k),
            kind="filled" if state["selected"] == k else "outlined", icon=ft.Icons.WARNING_AMBER if is_low(it) else None)))
    out.append(ft.Row(chips, wrap=True, spacing=6, run_spacing=6))
    sel = state["selected"]

    def set_tile(t: Any) -> None:
        if state["adding"]:
            review.add(t)
            state["adding"] = False
        elif sel is not None:
            review.correct(sel, t)
            state["selected"] = None
        app.render()

    def remove(_: Any) -> None:
        review.remove(sel)
        state["selected"] = None
        app.render()

    def accept(_: Any) -> None:
        review.accept(sel)
        state["selected"] = None
        app.render()

    if sel is not None and sel < len(review.items):
        out.append(app.text(f"Tile {sel + 1}: pick what it really is, or remove it.", 16, bold=True))
        if sel in review.candidates:
            out.append(app.button(f"Count it as {review.items[sel].tile}", accept, icon=ft.Icons.ADD_TASK))
        out.append(app.button(f"Remove tile {sel + 1}", remove, kind="outlined", icon=ft.Icons.DELETE_OUTLINE))
        out.append(_grid(app, entry, set_tile))
    elif state["adding"]:
        out.append(app.text("Pick the tile the reader missed.", 16, bold=True))
        out.append(_grid(app, entry, set_tile))
    else:
        out.append(app.button("Add a missed tile", lambda _: (state.update(adding=True), app.render()),
                              kind="outlined", icon=ft.Icons.ADD))
    def use(_: Any) -> None:
        entry.set_tiles(i, review.tiles, Mode.PHOTO)
        app.drafts[okey] = None
        app.notify_entry(ms.id)
        app.render()

    out.append(app.button(f"Use these tiles ({review.penalty} points)", use, icon=ft.Icons.CHECK))
    return out


def _grid(app: App, entry: RoundEntry, on_pick: Any) -> ft.Control:
    return ft.Row([
        ft.OutlinedButton(content=ft.Text(pt.label, size=app.fs(14)),
                          on_click=app.guarded(bind(on_pick, pt.tile)),
                          style=ft.ButtonStyle(padding=ft.Padding.symmetric(horizontal=6, vertical=6)))
        for pt in entry.picker_tiles()
    ], wrap=True, spacing=4, run_spacing=4)
