"""Practice a round against bots: the choices (rules, seats, bots, deal number), then the round.

The round is one working surface on a phone, as the dispute checker is: the table drawn as a
board on top, fitted to the room left, and the hand fixed at the bottom (the screen's footer):
what to do now (or the rules' reason a try was refused), the hand as one sliding row of domino
faces and Hint / Draw / Pass. A play is a tap on a tile, then on an open end of the drawing (or
its chip, under the board with what the bots did and the seats). At the end the footer holds
"Play again" and "Continue as a match against the bots", and the penalties as the scorekeeper
counts them come first under the board. Every rule comes from the practice round's state
(:class:`~chickenfoot.app.practice_session.PracticeSession`)."""

from __future__ import annotations

import math
from functools import partial
from typing import TYPE_CHECKING, Any

import flet as ft

from chickenfoot.app.practice_session import BOT_WORDS, MAX_SEATS, MIN_SEATS, PracticeSession
from chickenfoot.app.views import Screen, bind, bind_event
from chickenfoot.app.views.board import MAX_HEIGHT, available_width, board_view, end_label, fitted_height
from chickenfoot.app.views.dispute import FACE_BUTTON_MIN_WIDTH
from chickenfoot.app.views.faces import (
    FACE_ASPECT,
    FACE_WIDTH,
    NUMBERS_SIZE,
    SCROLLBAR_ROOM,
    face_button,
    sliding_row,
)
from chickenfoot.app.views.setup import options_tile
from chickenfoot.rules import PRESETS
from chickenfoot.rules.bots import BOTS
from chickenfoot.rules.words import count

if TYPE_CHECKING:
    from chickenfoot.app.shell import App


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

    def view(self) -> tuple[str, list[Any], str | None] | tuple[str, list[Any], str | None, Any]:
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

    def round_view(self, sess: PracticeSession) -> tuple[str, list[Any], str | None, Any]:
        app, p = self.app, sess.practice

        def tapped(px: float, py: float, reach: float) -> None:
            self.act(sess.tap, px, py, reach)

        title = f"Practice · round {p.round_index + 1}"
        page = (float(getattr(app.page, "width", None) or 360), float(getattr(app.page, "height", None) or 780))
        room = available_width(app)
        wide = room >= 900
        # One working surface: the board on top, fitted to what the hand fixed at the bottom
        # leaves; the round's story (what happened, the open ends' chips, the seats) under it.
        footer = (_over_footer(app, sess, lambda _: self.replace(sess.again()),
                               lambda _: self.replace(sess.next_round()))
                  if sess.over else
                  _hand(app, sess, partial(self.act, sess.choose), bind(self.act, sess.draw),
                        bind(self.act, sess.pass_turn), bind(self.act, sess.show_hint)))
        sess.palette = app.board_palette
        pic, png = sess.picture()
        ends = p.state.table.open_ends()
        words = " · ".join(f"{pl.tile} on {pl.on}" for pl in p.state.layout().plays)
        drawing = board_view(
            app, pic, png, on_tap=None if sess.over else tapped, width=room * 0.55 if wide else None, whole=sess.over,
            max_height=board_height(footer_height(sess, page[0], app.scale), page, wide),
            label=f"The table drawn as a board: {p.state.hub} (hub)" + (f" · {words}" if words else "")
            + ". Open ends: " + (", ".join(end_label(e) for e in ends) or "none") + ".")
        rest: list[Any] = []
        if sess.over:
            rest.append(_results(app, sess))
        recent = sess.recent()
        if recent:
            rest.append(app.card(*[app.text(e.text, 15, bold=e.kind == "end") for e in recent[-12:]]))
        if not sess.over:
            rest.extend(app.text(line, 15) for line in sess.needs())
        if sess.waiting:
            rest.extend(_end_chips(app, sess, partial(self.act, sess.play_on)))
        rest.append(app.card(*[app.text(line, 15) for line in sess.seats()]
                             + [app.text(f"Boneyard: {count(p.boneyard, 'tile')}", 15)]))
        rest.append(app.text(f"{p.rules.title} · deal number {p.seed}", 14, italic=True))
        rest.append(app.button("New practice (change the rules or seats)", bind(self.replace, None), kind="text"))
        if wide:  # the board on the left, the rest beside it
            return title, [ft.Row([drawing, ft.Column(rest, spacing=12, expand=True)], spacing=20,
                                  vertical_alignment=ft.CrossAxisAlignment.START)], "/", footer
        return title, [drawing, *rest], "/", footer


#: The fixed part's own edge (its border, its named edge, its padding), in pixels.
_FOOTER_EDGE = 17.0
#: Gaps between the footer's lines and between its buttons (pixels).
_GAP = 6.0
#: How wide a letter of the app's font is, about, as a share of its size: in a line of words,
#: bold and not (measured in the offline web font: about 0.45 in bold, 0.42 not; a little
#: more here, so a line is not guessed shorter than it is), and in a button's label (a
#: generous guess, as ``App.fitted_size`` makes it).
_BOLD_LETTER = 0.48
_LETTER = 0.46
_LABEL_LETTER = 0.56
#: A line of text's height as a share of its size (measured: 1.44 in the offline web font).
_LINE = 1.45
#: A button's padding (compact: 12 px each side) and its icon with the gap after it.
_PAD_X = 24.0
_ICON = 26.0
#: The tallest the board is shown on a wide screen (the rest of the round beside it).
WIDE_MAX_HEIGHT = 640.0


def _line_height(chars: int, size: float, room: float, bold: bool = False) -> float:
    """How tall ``chars`` letters at ``size`` are drawn in a line ``room`` pixels wide (wrapped)."""
    return max(1, math.ceil(chars * (_BOLD_LETTER if bold else _LETTER) * size / room)) * size * _LINE


def _button_width(label: str, size: float, icon: bool, letter: float = _LABEL_LETTER) -> float:
    return max(64.0, len(label) * letter * size + _PAD_X + (_ICON if icon else 0.0))


def _button_rows_height(labels: list[str], size: float, room: float) -> float:
    """The height of ``labels`` as compact buttons with icons in a row that wraps in ``room``
    pixels (a label wider than the row wraps inside its button)."""
    rows: list[float] = []
    used = room + 1
    for label in labels:
        w = _button_width(label, size, True, _LETTER)
        lines = max(1, math.ceil((w - _PAD_X - _ICON) / (room - _PAD_X - _ICON))) if w > room else 1
        h = max(48.0, lines * size * _LINE + 28)
        if used + _GAP + min(w, room) > room:
            rows.append(h)
            used = min(w, room)
        else:
            rows[-1] = max(rows[-1], h)
            used += _GAP + w
    return sum(rows) + (len(rows) - 1) * _GAP


def _said(sess: PracticeSession) -> tuple[str, bool]:
    """The footer's line: the rules' reason a try was refused (and True), else what to do now."""
    if sess.refusal:
        return f"Not allowed. {sess.refusal}", True
    if sess.waiting and sess.selected is not None and sess.drawn is None:
        return f"Now tap an open end for the {sess.selected}.", False
    return sess.ending() if sess.over else sess.status(), False


def _hint_words(sess: PracticeSession) -> str:
    plays = sess.hint()
    if plays:
        return "You can play: " + ", ".join(plays)
    return "Nothing in your hand fits: " + ("draw a tile." if sess.practice.can_draw else "pass.")


def _icons_fit(size: float, room: float) -> bool:
    """Whether Hint / Draw / Pass keep their icons on one line ``room`` wide, whichever way Hint
    is said (large text on a phone leaves them out rather than wrap the row)."""
    return sum(_button_width(t, size, True) for t in ("Hide hint", "Draw", "Pass")) + 2 * _GAP <= room


#: The labels of the buttons at the end of a round.
OVER_LABELS = ["Play again", "Continue as a match against the bots"]


def footer_height(sess: PracticeSession, width: float, scale: float) -> float:
    """About how tall the part fixed at the bottom is drawn (pixels, its edge included) on a page
    ``width`` wide at text ``scale``: its line (a refusal may take a few), the hint when shown,
    the hand's sliding row of faces and Hint / Draw / Pass; at the round's end its line and
    the buttons for the next round."""

    def fs(size: float) -> float:
        return round(size * scale, 1)

    room = width - 28
    said, _ = _said(sess)
    h = _FOOTER_EDGE + _line_height(len(said), fs(16), room, bold=True)
    if sess.over:
        return h + _GAP + _button_rows_height(OVER_LABELS, fs(15), room)
    if not sess.waiting:
        return h
    if sess.hint_shown:
        h += _GAP + _line_height(len(_hint_words(sess)), fs(15), room)
    face = 8 + FACE_WIDTH * FACE_ASPECT + fs(NUMBERS_SIZE) * _LINE + SCROLLBAR_ROOM
    return h + _GAP + face + _GAP + max(48.0, fs(15) * _LINE + 28)


def board_height(footer: float, page: tuple[float, float], wide: bool = False) -> float:
    """The tallest board window that leaves the zoom buttons and a footer ``footer`` pixels high
    on a page of ``page`` (width, height) (:func:`~chickenfoot.app.views.board.fitted_height`)."""
    return fitted_height(page[1], footer, WIDE_MAX_HEIGHT if wide else MAX_HEIGHT)


def _hand(app: App, sess: PracticeSession, choose: Any, draw: Any, pass_turn: Any, hint: Any) -> ft.Control:
    """The part fixed at the bottom while the round is played: what to do now (or the rules'
    reason a try was refused), the hint when asked, the hand as one sliding row of faces, and
    Hint / Draw / Pass on one line."""
    p = sess.practice
    said, refused = _said(sess)
    parts: list[Any] = [ft.Semantics(live_region=True, content=app.text(
        said, 16, bold=True, color=ft.Colors.ERROR if refused else None))]
    if not sess.waiting:
        return ft.Column(parts, spacing=_GAP, horizontal_alignment=ft.CrossAxisAlignment.STRETCH)
    if sess.hint_shown:
        parts.append(app.text(_hint_words(sess), 15))
    zero, drawn = p.rules.zero_zero, sess.drawn
    # the chosen tile is filled: its name says so too, for a screen reader; after a draw only
    # the tile drawn may be played, and the others are greyed
    faces = [face_button(app, t, f"{t}, chosen" if sess.selected == t else str(t), bind(choose, t),
                         zero_zero=zero, chosen=sess.selected == t, width=FACE_WIDTH,
                         disabled=drawn is not None and t != drawn)
             for t in sess.hand()]
    parts.append(sliding_row(app, faces, max(FACE_BUTTON_MIN_WIDTH, FACE_WIDTH + 8), gap=3))
    icons = _icons_fit(app.fs(15), float(getattr(app.page, "width", None) or 360) - 28)
    parts.append(ft.Row([
        app.button("Hide hint" if sess.hint_shown else "Hint", hint, kind="tonal",
                   icon=ft.Icons.LIGHTBULB_OUTLINE if icons else None, compact=True),
        app.button("Draw", draw, kind="outlined", icon=ft.Icons.FILE_DOWNLOAD if icons else None,
                   disabled=not p.can_draw, compact=True),
        app.button("Pass", pass_turn, kind="outlined", icon=ft.Icons.SKIP_NEXT if icons else None,
                   disabled=not p.can_pass, compact=True),
    ], spacing=_GAP))
    return ft.Column(parts, spacing=_GAP, horizontal_alignment=ft.CrossAxisAlignment.STRETCH)


def _end_chips(app: App, sess: PracticeSession, play_on: Any) -> list[Any]:
    """The open ends as chips (for a screen reader, or a board too small to tap): the chosen
    tile on the end."""
    chosen = sess.selected
    return [
        app.text(f"Open ends: put the {chosen} on" if chosen else "Open ends", 17, bold=True),
        ft.Row([app.button(end_label(e), bind(play_on, e.target), kind="outlined", compact=True,
                           tooltip=f"Open end: {end_label(e)}")
                for e in sess.open_ends()], wrap=True, spacing=6, run_spacing=6)]


def _over_footer(app: App, sess: PracticeSession, again: Any, next_round: Any) -> ft.Control:
    """The part fixed at the bottom once the round is over: how it ended, and the next round."""
    return ft.Column([
        ft.Semantics(live_region=True, content=app.text(_said(sess)[0], 16, bold=True)),
        ft.Row([
            app.button(OVER_LABELS[0], again, icon=ft.Icons.REPLAY, compact=True),
            app.button(OVER_LABELS[1], next_round, kind="tonal", icon=ft.Icons.SKIP_NEXT,
                       disabled=sess.match_over, compact=True),
        ], wrap=True, spacing=_GAP, run_spacing=_GAP),
    ], spacing=_GAP, horizontal_alignment=ft.CrossAxisAlignment.STRETCH)


def _results(app: App, sess: PracticeSession) -> ft.Control:
    lines = sess.results()
    rows = [app.text("Penalties, as the scorekeeper counts them", 18, bold=True)]
    for x in lines:
        who = f"{x.name} ({x.bot})" if x.bot else x.name
        held = f" ({', '.join(map(str, x.tiles))})" if x.tiles else ""
        rows.append(app.text(f"{who}: {count(x.penalty, 'point')}, {count(x.tiles_left, 'tile')} "
                             f"left{held} · total {x.total}", 16))
    rows.append(app.text(sess.match_words(), 15, italic=True))
    return app.card(*rows)
