"""New match: seating (add, rename, reorder), rules preset, every option explained."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import flet as ft

from chickenfoot.app.setup import MatchSetup, fmt_value
from chickenfoot.app.views import Screen, bind, bind_event
from chickenfoot.rules import PRESETS
from chickenfoot.rules.words import option_choice

if TYPE_CHECKING:
    from chickenfoot.app.shell import App


def options_tile(app: App, s: MatchSetup) -> ft.Control:
    """Every rule option of the form's preset, each explained, folded away until opened (the
    new-match screen and the practice screen share it)."""

    def set_opt(key: str, value: str | None) -> None:
        s.set_option(key, value or "none")
        app.render()

    def set_opt_if_changed(key: str, before: str, value: str | None) -> None:
        if (value or "none") != before:
            set_opt(key, value)

    opts: list[Any] = []
    for ov in s.option_views():
        current = fmt_value(ov.value)
        if ov.choices:
            ctl: Any = app.dropdown(ov.label, current, [(c, option_choice(ov.key, c)) for c in ov.choices],
                                    bind_event(set_opt, ov.key), size=15, inset=48)
        else:
            ctl = ft.TextField(value="" if current == "none" else current, label=ov.label, width=200, text_size=app.fs(15),
                               keyboard_type=ft.KeyboardType.NUMBER)
            ctl.on_submit = app.guarded(bind_event(set_opt, ov.key))
            ctl.on_blur = app.guarded(bind_event(set_opt_if_changed, ov.key, current))
        opts.append(ft.Column([ctl, app.text(ov.help + (" (changed from the preset)" if ov.changed else ""), 14)],
                              spacing=4))
    def toggled(e: Any) -> None:  # kept on the form: a choice redraws the screen, the panel stays open
        s.options_open = e.data in (True, "true")

    return ft.ExpansionTile(title=app.text("Options (each explained)", 16, bold=True), expanded=s.options_open,
                            on_change=app.guarded(toggled),
                            controls=[ft.Container(ft.Column(opts, spacing=12), padding=8)])


class NewMatchScreen(Screen):
    """The new-match form: seating (add, rename, reorder), rules preset, options; the form is the
    session's draft, kept until the match starts."""

    def changed(self, fn: Any, *args: Any) -> None:
        """Change the form (``fn(*args)``) and redraw it."""
        fn(*args)
        self.app.render()

    def rename(self, i: int, field: ft.TextField) -> None:
        self.changed(self.form.rename_player, i, field.value or "")

    def rename_if_changed(self, i: int, field: ft.TextField) -> None:
        if field.value != self.form.players[i]:
            self.rename(i, field)

    def start(self, _: Any) -> None:
        app, s = self.app, self.form
        problems = s.problems()
        if problems:
            app.snack("; ".join(problems), error=True)
            app.page.update()
            return
        m = self.session.store.create(s.players, s.preset, s.options)
        self.session.drafts.setup = None
        app.notify_change(m.id)
        app.go(f"/match/{m.id}/brief")

    def view(self) -> tuple[str, list[Any], str | None]:
        app = self.app
        self.form = s = self.session.setup_form()
        name = ft.TextField(label="Player name", value=s.name_typed, autofocus=True, text_size=app.fs(16),
                            expand=True, max_length=24)

        def add_it(typed: str) -> None:
            s.name_typed = typed  # kept on the redrawn form if it is refused, for fixing
            s.add_player(typed)
            s.name_typed = ""

        def add(_: Any = None) -> None:
            self.changed(add_it, name.value or "")

        name.on_submit = app.guarded(add)
        rows: list[Any] = []
        for i, p in enumerate(s.players):
            field = ft.TextField(value=p, label=f"Seat {i + 1}", text_size=app.fs(16), expand=True,
                                 max_length=24)
            field.on_submit = app.guarded(bind(self.rename, i, field))
            field.on_blur = app.guarded(bind(self.rename_if_changed, i, field))
            rows.append(ft.Row([
                field,
                app.icon_button(ft.Icons.ARROW_UPWARD, f"Move {p} up", bind(self.changed, s.move_player, i, -1),
                                disabled=i == 0),
                app.icon_button(ft.Icons.ARROW_DOWNWARD, f"Move {p} down", bind(self.changed, s.move_player, i, 1),
                                disabled=i == len(s.players) - 1),
                app.icon_button(ft.Icons.DELETE_OUTLINE, f"Remove {p}", bind(self.changed, s.remove_player, i)),
            ], spacing=2))

        def pick_preset(e: Any) -> None:
            self.changed(s.set_preset, e.control.value)

        problems = s.problems()
        body: list[Any] = [
            app.heading("Players (in seating order)"),
            *rows,
            ft.Row([name, app.button("Add player", add, icon=ft.Icons.PERSON_ADD)]),
            app.heading("Rules"),
            app.dropdown("Rules preset", s.preset, [(k, r.title) for k, r in PRESETS.items()], pick_preset),
            *[app.text(line, 15) for line in s.summary()],
            options_tile(app, s),
            *([app.text(s.to_do() or "", 15)] if s.to_do() else []),
            *[app.text(p, 15, color=ft.Colors.ERROR) for p in s.mistakes()],
            app.button("Start match", self.start, icon=ft.Icons.PLAY_ARROW, disabled=bool(problems)),
        ]
        return "New match", body, "/"
