"""Dispute checker: build the table (hub, then tap an open end to add a tile), or load a
layout file; see open ends, the open foot and spokes still needed; ask "can 4-7 go here?"."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import flet as ft

from companion.app.dispute import DisputeBuilder
from companion.app.views import bind
from companion.rules import PRESETS, SETS

if TYPE_CHECKING:
    from companion.app.shell import App


def _builder(app: App) -> DisputeBuilder:
    b = app.drafts.get("dispute")
    if b is None:
        b = DisputeBuilder(app.settings.default_preset, 9)
        app.drafts["dispute"] = b
    return b


def build_dispute(app: App) -> tuple[str, list[Any], str | None]:
    b = _builder(app)
    tile_field = ft.TextField(label="Tile, e.g. 4-7", width=170, text_size=app.fs(18),
                              value=app.drafts.get("dispute-tile", ""))

    def remember(e: Any) -> None:
        app.drafts["dispute-tile"] = e.control.value

    tile_field.on_change = remember

    def set_preset(e: Any) -> None:
        b.set_rules(e.control.value)
        app.render()

    def set_top(e: Any) -> None:
        b.set_rules(b.preset, int(e.control.value))
        b.layout = None
        app.render()

    def start(h: int) -> None:
        b.start(h)
        app.render()

    def select(t: Any) -> None:
        b.select(t)
        app.render()

    def ask(_: Any) -> None:
        b.ask(tile_field.value or "")
        app.render()

    def ask_on_enter(_: Any) -> None:
        if b.selected is not None:
            ask(None)

    tile_field.on_submit = app.guarded(ask_on_enter)

    def add(_: Any) -> None:
        v = b.add(tile_field.value or "")
        if v.legal:
            app.drafts["dispute-tile"] = ""
        app.render()

    def add_anyway(_: Any) -> None:
        b.add(tile_field.value or "", force=True)
        app.drafts["dispute-tile"] = ""
        app.render()

    def undo(_: Any) -> None:
        b.undo()
        app.render()

    async def load(_: Any) -> None:
        picked = await app.pick_one("Load a layout file", ["json"])
        if picked is None:
            return
        name, raw = picked
        b.load((raw or b"").decode("utf-8", errors="replace"), name)
        app.snack(f"Loaded {name}")
        app.render()

    async def save(_: Any) -> None:
        data = b.to_json().encode("utf-8")
        if app.page.web:
            await app.picker.save_file(file_name="layout.json", src_bytes=data)
        else:
            path = await app.picker.save_file(file_name="layout.json", allowed_extensions=["json"],
                                              file_type=ft.FilePickerFileType.CUSTOM)
            if path:
                with open(path, "wb") as fh:
                    fh.write(data)
        app.snack("Layout saved")
        app.page.update()

    body: list[Any] = [ft.Row([
        ft.Dropdown(value=b.preset, label="Rules", text_size=app.fs(15), width=250,
                    options=[ft.DropdownOption(key=k, text=r.title) for k, r in PRESETS.items()],
                    on_select=app.guarded(set_preset)),
        ft.Dropdown(value=str(b.top), label="Set", text_size=app.fs(15), width=150,
                    options=[ft.DropdownOption(key=str(s), text=f"double-{s}") for s in SETS],
                    on_select=app.guarded(set_top)),
        app.button("Load layout file", load, kind="tonal", icon=ft.Icons.FILE_OPEN),
    ], wrap=True, spacing=8, run_spacing=8)]

    if b.layout is None:
        body.append(app.text("Which double is in the centre (the hub)?", 18, bold=True))
        body.append(ft.Row([app.button(f"{h}-{h}", bind(start, h), kind="outlined")
                            for h in range(b.top, -1, -1)], wrap=True, spacing=6, run_spacing=6))
        return "Dispute checker", body, "/"

    hub = b.layout.hub
    needs = b.needs()
    body.append(app.card(*[app.text(s, 17, bold=True) for s in needs.sentences(hub)]))
    body.append(app.text("Open ends: tap one, then type a tile", 18, bold=True))
    ends = []
    for e in b.open_ends():
        label = e.describe() + ("" if e.playable else " (not now)")
        ends.append(app.button(label, bind(select, e.target),
                               kind="filled" if b.selected == e.target else "outlined",
                               tooltip=f"Open end: {label}"))
    body.append(ft.Row(ends, wrap=True, spacing=6, run_spacing=6))
    where = f"on the {b.selected}" if b.selected else "(tap an open end first)"
    body.append(ft.Row([
        tile_field,
        app.button(f"Can it go here? {where}", ask, icon=ft.Icons.HELP_OUTLINE, disabled=b.selected is None),
        app.button("Add to table", add, kind="tonal", icon=ft.Icons.ADD, disabled=b.selected is None),
    ], wrap=True, spacing=8, run_spacing=8))
    if b.last is not None:
        v = b.last
        colour = ft.Colors.GREEN_800 if v.legal else ft.Colors.ERROR
        extra: list[Any] = []
        if not v.legal:
            others = b.where_can(v.tile)
            extra.append(app.text(
                f"{v.tile} could go on: " + ", ".join(str(o.on) for o in others) if others
                else f"{v.tile} has no legal place on this table right now.", 15))
            extra.append(app.button("It is on the table anyway: add it", add_anyway, kind="text"))
        body.append(app.card(app.text(("Yes. " if v.legal else "No. ") + v.message, 19, bold=True, color=colour),
                             *extra))
    problems = b.problems()
    if problems:
        body.append(app.text("Problems with this table", 18, bold=True))
        body.extend(app.warning(p) for p in problems)
    body.append(app.text("On the table", 18, bold=True))
    body.append(app.text(" · ".join(b.lines()), 15))
    body.append(ft.Row([
        app.button("Take back last tile", undo, kind="outlined", icon=ft.Icons.UNDO,
                   disabled=not b.layout.plays),
        app.button("Save layout", save, kind="outlined", icon=ft.Icons.SAVE),
        app.button("New table", lambda _: (setattr(b, "layout", None), app.render()), kind="text"),
    ], wrap=True, spacing=8, run_spacing=8))
    return "Dispute checker", body, "/"
