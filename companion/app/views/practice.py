"""Practice a round against bots: the choices (rules, seats, bots, deal number), then the round:
your hand as domino faces, the table as a board (tap a tile, then an open end on the drawing or
its chip), Hint, Draw, Pass, what the bots did, and at the end the penalties as the scorekeeper
counts them, with "Play again" and "Continue as a match against the bots"."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

import flet as ft

from chickenfoot.app.practice_session import BOT_WORDS, MAX_SEATS, MIN_SEATS, PracticeSession
from chickenfoot.app.views import Screen, bind, bind_event
from chickenfoot.app.views.board import available_width, board_view, end_label
from chickenfoot.app.views.faces import face_button, face_row
from chickenfoot.app.views.setup import options_tile
from chickenfoot.rules import PRESETS
from chickenfoot.rules.bots import BOTS
from chickenfoot.rules.words import count

if TYPE_CHECKING:
    from chickenfoot.app.shell import App

#: The width a tile of the hand is shown at (pixels).
FACE_W = 30


class PracticeScreen(Screen):
    """Practice against bots: the choices (the session's practice form) until a round is dealt,
    then the round being played (the session's practice round)."""

    def act(self, fn: Any, *args: Any) -> None:
        """Change the form or the round (``fn(*args)``) and redraw."""
        fn(*args)
        self.app.render()

    def replace(self, sess: PracticeSession | None) -> None:
        """Play ``sess`` next (None: back to the choices), opened at its top."""
        self.session.drafts.practice = sess
        self.app.new_screen()

    def view(self) -> tuple[str, list[Any], str | None]:
        sess = self.session.drafts.practice
        return self.setup_view() if sess is None else self.round_view(sess)

    def setup_view(self) -> tuple[str, list[Any], str | None]:
        app = self.app
        s = self.session.practice_form()
        seed = ft.TextField(label="Deal number", value=str(s.seed), width=170, text_size=app.fs(16),
                            keyboard_type=ft.KeyboardType.NUMBER)

        def remember_seed(e: Any) -> None:
            s.set_seed(e.control.value or "")

        seed.on_blur = app.guarded(remember_seed)
        seed.on_submit = app.guarded(remember_seed)

        def deal(_: Any) -> None:
            s.set_seed(seed.value or "")
            self.replace(s.start())  # the round opens at its top: what happened, whose turn

        names = s.names()
        seats = [ft.Switch(label=f"Seat {i + 1}: {names[i]}" + (" (bot)" if i in s.bots else " (a person)"),
                           value=i in s.bots, on_change=app.guarded(bind_event(self.act, s.set_bot_seat, i)),
                           height=48,
                           label_text_style=ft.TextStyle(size=app.fs(15)))
                 for i in range(s.seats)]
        problems = s.problems()
        body: list[Any] = [
            app.text("Play a round against bots, by the rules your table uses: the bots play by the same "
                     "rules as the dispute checker, and the round is scored like a real match.", 16),
            app.heading("Rules"),
            app.dropdown("Rules preset", s.form.preset, [(k, r.title) for k, r in PRESETS.items()],
                         bind_event(self.act, s.form.set_preset)),
            *[app.text(line, 15) for line in s.summary()],
            options_tile(app, s.form),
            app.heading("Seats"),
            app.dropdown("Seats at the table", str(s.seats), [(str(n), f"{n} seats")
                                                             for n in range(MIN_SEATS, MAX_SEATS + 1)],
                         bind_event(self.act, s.set_seats)),
            app.text("Which seats are bots (the others are people, taking turns on this device):", 15),
            *seats,
            app.dropdown("Bots play", s.bot, [(k, f"{k}: {BOT_WORDS.get(k, k)}") for k in BOTS],
                         bind_event(self.act, s.set_bot)),
            ft.Row([seed, app.text("The same number deals the same round again.", 14)], wrap=True, spacing=8),
            *[app.text(p, 15, color=ft.Colors.ERROR) for p in problems],
            app.button("Deal", deal, icon=ft.Icons.PLAY_ARROW, disabled=bool(problems)),
        ]
        return "Practise a round", body, "/"

    def round_view(self, sess: PracticeSession) -> tuple[str, list[Any], str | None]:
        app, p = self.app, sess.practice

        def tapped(px: float, py: float, reach: float) -> None:
            self.act(sess.tap, px, py, reach)

        title = f"Practice · round {p.round_index + 1}"
        info: list[Any] = []
        recent = sess.recent()
        if recent:
            info.append(app.card(*[app.text(e.text, 15, bold=e.kind == "end") for e in recent[-12:]]))
        info.append(ft.Semantics(live_region=True, content=app.text(sess.status(), 19, bold=True)))
        if not sess.over:
            info.extend(app.text(line, 15) for line in sess.needs())
        room = available_width(app)
        wide = room >= 900
        sess.palette = app.board_palette
        pic, png = sess.picture()
        ends = p.state.table.open_ends()
        words = " · ".join(f"{pl.tile} on {pl.on}" for pl in p.state.layout().plays)
        drawing = board_view(
            app, pic, png, on_tap=None if sess.over else tapped, width=room * 0.55 if wide else None, whole=sess.over,
            max_height=640 if wide else 520,
            label=f"The table drawn as a board: {p.state.hub} (hub)" + (f" · {words}" if words else "")
            + ". Open ends: " + (", ".join(end_label(e) for e in ends) or "none") + ".")
        rest: list[Any] = (
            _results(app, sess, lambda _: self.replace(sess.again()), lambda _: self.replace(sess.next_round()))
            if sess.over else
            _hand(app, sess, partial(self.act, sess.choose), partial(self.act, sess.play_on), bind(self.act, sess.draw),
                  bind(self.act, sess.pass_turn), bind(self.act, sess.show_hint)))
        rest.append(app.card(*[app.text(line, 15) for line in sess.seats()]
                             + [app.text(f"Boneyard: {count(p.boneyard, 'tile')}", 15)]))
        rest.append(app.button("New practice (change the rules or seats)", bind(self.replace, None), kind="text"))
        head = app.text(f"{p.rules.title} · deal number {p.seed}", 14, italic=True)
        if wide:  # the board on the left, the rest beside it
            return title, [head, ft.Row([drawing, ft.Column([*info, *rest], spacing=12, expand=True)],
                                        spacing=20, vertical_alignment=ft.CrossAxisAlignment.START)], "/"
        return title, [head, *info, drawing, *rest], "/"


def _hand(app: App, sess: PracticeSession, choose: Any, play_on: Any, draw: Any, pass_turn: Any,
          hint: Any) -> list[Any]:
    p = sess.practice
    out: list[Any] = []
    zero = p.rules.zero_zero
    drawn = sess.drawn
    if sess.waiting:
        whose = "Your" if sess.who == "You" else f"{sess.who}'s"
        out.append(app.text(f"{whose} hand: tap a tile, then an open end", 17, bold=True))
        # the chosen tile is filled: its name says so too, for a screen reader
        out.append(face_row([face_button(app, t, f"{t}, chosen" if sess.selected == t else str(t), bind(choose, t),
                                         zero_zero=zero, chosen=sess.selected == t, width=FACE_W,
                                         disabled=drawn is not None and t != drawn)
                             for t in sess.hand()]))
    if sess.refusal:
        out.append(app.card(ft.Semantics(live_region=True, content=app.text(
            f"Not allowed. {sess.refusal}", 17, bold=True, color=ft.Colors.ERROR))))
    out.append(ft.Row([
        app.button("Hide hint" if sess.hint_shown else "Hint", hint, kind="tonal", icon=ft.Icons.LIGHTBULB_OUTLINE,
                   compact=True),
        app.button("Draw", draw, kind="outlined", icon=ft.Icons.FILE_DOWNLOAD, disabled=not p.can_draw,
                   compact=True),
        app.button("Pass", pass_turn, kind="outlined", icon=ft.Icons.SKIP_NEXT, disabled=not p.can_pass,
                   compact=True),
    ], wrap=True, spacing=6, run_spacing=6))
    if sess.hint_shown:
        plays = sess.hint()
        out.append(app.card(app.text("You can play: " + ", ".join(plays) if plays else
                                     "Nothing in your hand fits: " + ("draw a tile." if p.can_draw else "pass."),
                                     16)))
    if sess.waiting:
        chosen = sess.selected
        out.append(app.text(f"Open ends: put the {chosen} on" if chosen else "Open ends", 17, bold=True))
        out.append(ft.Row([
            app.button(end_label(e), bind(play_on, e.target),
                       kind="outlined", compact=True, tooltip=f"Open end: {end_label(e)}")
            for e in p.state.table.open_ends()], wrap=True, spacing=6, run_spacing=6))
    return out


def _results(app: App, sess: PracticeSession, again: Any, next_round: Any) -> list[Any]:
    lines = sess.results()
    rows = [app.text("Penalties, as the scorekeeper counts them", 18, bold=True)]
    for x in lines:
        who = f"{x.name} ({x.bot})" if x.bot else x.name
        held = f" ({', '.join(map(str, x.tiles))})" if x.tiles else ""
        rows.append(app.text(f"{who}: {count(x.penalty, 'point')}, {count(x.tiles_left, 'tile')} "
                             f"left{held} · total {x.total}", 16))
    rows.append(app.text(sess.match_words(), 15, italic=True))
    return [app.card(*rows), ft.Row([
        app.button("Play again", again, icon=ft.Icons.REPLAY),
        app.button("Continue as a match against the bots", next_round, kind="tonal", icon=ft.Icons.SKIP_NEXT,
                   disabled=sess.match_over),
    ], wrap=True, spacing=8, run_spacing=8)]
