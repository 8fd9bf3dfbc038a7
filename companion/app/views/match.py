"""Scoreboard (standings, rounds, chart, undo, managing the match) and the round brief.

Phone first: nothing is a wide table; every round is a card whose results wrap, so eight
players in large text at 360 px show without sideways scrolling, and "Edit round N" is on
each card. Scoring a round is in :mod:`.scoring`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import flet as ft
import flet_charts as fch

from chickenfoot.app.dispute import DisputeBuilder
from chickenfoot.app.match_session import MatchSession
from chickenfoot.app.screens import ScoreboardState
from chickenfoot.app.session import sentence
from chickenfoot.app.setup import MAX_NAME, clean_name
from chickenfoot.app.views import Screen, bind
from chickenfoot.rules import FirstPlayer
from chickenfoot.rules.errors import InputError
from chickenfoot.rules.words import count

if TYPE_CHECKING:
    from chickenfoot.app.shell import App

SERIES_COLOURS = [ft.Colors.BLUE, ft.Colors.RED, ft.Colors.GREEN, ft.Colors.ORANGE,
                  ft.Colors.PURPLE, ft.Colors.TEAL, ft.Colors.BROWN, ft.Colors.PINK]


def _changed(app: App, ms: MatchSession) -> None:
    app.notify_change(ms.id)


def take_back(app: App, ms: MatchSession, label: str) -> None:
    """Undo the change ``label`` (if it is still the last one) and offer it back in a note."""
    ms.undo_last(label)
    _changed(app, ms)
    app.render()
    app.snack(f"Undone: {label}", action=("Redo", lambda: _give_back(app, ms, label)))


def _give_back(app: App, ms: MatchSession, label: str) -> None:
    ms.redo_last(label)
    _changed(app, ms)
    app.render()


def offer_undo(app: App, ms: MatchSession, message: str, route: str) -> None:
    """Tell of the change just made (``message``) on the screen of ``route``, with its Undo:
    the change is taken back in one tap where it is told, not only from the scoreboard's foot."""
    label = ms.undo_label()
    app.snack_on(route, message, ("Undo", lambda: take_back(app, ms, label)) if label else None)


# ----------------------------------------------------------------- scoreboard
class ScoreboardScreen(Screen):
    """The match: standings, the rounds, the chart, undo, and managing the match."""

    State = ScoreboardState
    state: ScoreboardState

    def changed(self, fn: Any) -> None:
        """Apply ``fn`` (undo, redo, resume) to the match, tell the other devices and redraw."""
        fn()
        _changed(self.app, self.ms)
        self.app.render()

    def ask(self, what: str | None) -> None:
        self.state.asking, self.state.refused = what, None
        self.app.render()

    def view(self) -> tuple[str, list[Any], str | None]:
        app, mid = self.app, self.route.match_id
        assert mid is not None
        self.ms = ms = self.session.match(mid)
        m = ms.match
        body: list[Any] = []
        if ms.over:
            lines = ms.outcome_text()
            body.append(app.card(app.text("Match over", 22, bold=True),
                                 *[app.text(line, 18 if k == 0 else 15, bold=k == 0) for k, line in enumerate(lines)],
                                 color=ft.Colors.PRIMARY_CONTAINER))
        elif m.abandoned:
            body.append(app.card(app.text("This match was abandoned.", 18, bold=True),
                                 app.button("Resume it", bind(self.changed, ms.resume))))
        else:
            b = ms.brief()
            assert b is not None
            body.append(app.card(
                ft.Semantics(header=True, content=app.text(ms.heading(), 24, bold=True)),
                app.text(ms.next_starter_text(), 16),
                app.button(f"Enter round {b.number}", lambda _: app.go(f"/match/{mid}/round"), icon=ft.Icons.EDIT_NOTE),
                ft.Row([
                    app.button("Round brief", lambda _: app.go(f"/match/{mid}/brief"), kind="outlined",
                               icon=ft.Icons.INFO_OUTLINE),
                    app.button("Check the table", bind(_dispute_round, app, m.rules, b.set_top, b.double),
                               kind="outlined", icon=ft.Icons.GAVEL,
                               tooltip=f"Dispute checker for this round: {m.rules.title}, hub {b.double_text}"),
                ], wrap=True, spacing=8, run_spacing=8), color=ft.Colors.PRIMARY_CONTAINER))
        body.append(app.text(f"{m.rules.title} · double-{m.set_top} · {m.deal_size} tiles each · "
                             f"{count(m.planned_rounds, 'round')}", 15))

        # standings
        leaders = set(ms.leaders())
        ties = m.tie_notes()
        body.append(app.heading("Standings"))
        for s in ms.ranked():
            tag = "  (leader)" if s.player in leaders and not ms.over else ""
            body.append(app.text(f"{s.rank}. {s.player}: {s.total}{tag}", 18, bold=s.player in leaders))
            if s.player in ties:
                body.append(app.text(ties[s.player], 14, italic=True))

        # the rounds, one card each (results wrap: no table wider than a phone)
        rows = ms.rows()
        if rows:
            body.append(app.heading("Rounds"))
            for r in reversed(rows):  # the latest first: the one most often corrected
                who = "blocked" if r.out is None else f"{ms.players[r.out]} went out"
                opened = f" · opened with {r.started_with}-{r.started_with}" if r.started_with is not None else ""
                results = ft.Row([app.text(f"{p} {r.penalties[seat]}", 16, bold=seat == r.out)
                                  for seat, p in enumerate(ms.players)], wrap=True, spacing=14, run_spacing=2)
                body.append(app.card(
                    app.text(f"Round {r.number} · {r.double_text} · {who}{opened}", 17, bold=True), results,
                    app.button(f"Edit round {r.number}", bind(app.go, f"/match/{mid}/round/{r.number}"),
                               kind="outlined", icon=ft.Icons.EDIT), key=round_key(r.number)))
            body.append(app.text("Totals: " + " · ".join(
                f"{p} {t}" for p, t in zip(ms.players, ms.match.totals(), strict=True)), 16, bold=True))
            body.append(app.heading("Totals over the rounds"))
            body.append(_chart(app, ms))

        body.append(self.undo_row())
        body.extend(self.manage())
        reveal = self.session.take_reveal()
        if reveal:  # back from an edit: the round edited, where the player left it
            app.scroll_into_view(reveal)
        return "Scoreboard", body, "/"

    def undo_row(self) -> ft.Control:
        """Undo asks first, its "Keep it" where Undo was (a double tap takes back nothing), and
        once done offers Redo in a note of its own."""
        app, ms = self.app, self.ms
        if self.state.asking == "undo" and ms.can_undo:
            label = ms.undo_label() or "the last change"

            def undo(_: Any) -> None:
                self.state.asking = None
                take_back(app, ms, label)  # the change asked about, not one made since elsewhere

            return ft.Container(app.card(
                ft.Semantics(live_region=True, content=app.text(f"Undo {label}?", 17, bold=True)),
                ft.Row([app.button("Keep it", bind(self.ask, None), kind="outlined"),
                        app.button("Undo it", undo, icon=ft.Icons.UNDO)], wrap=True, spacing=8, run_spacing=8),
                color=ft.Colors.TERTIARY_CONTAINER), key=ft.ScrollKey("undo"))
        return ft.Container(ft.Row([
            app.button("Undo" + (f": {ms.undo_label()}" if ms.can_undo else ""), bind(self.ask, "undo"),
                       kind="outlined", icon=ft.Icons.UNDO, disabled=not ms.can_undo),
            app.button("Redo" + (f": {ms.redo_label()}" if ms.can_redo else ""), bind(self.changed, ms.redo),
                       kind="outlined", icon=ft.Icons.REDO, disabled=not ms.can_redo),
        ], wrap=True, spacing=8, run_spacing=8), key=ft.ScrollKey("undo"))

    def rename(self, seat: int, field: ft.TextField) -> None:
        """A refused name is said under its field, the typed text kept, where the player looks
        (not in the banner at the top of a long page)."""
        ms, app = self.ms, self.app
        old, typed = ms.players[seat], field.value or ""
        self.state.refused = None
        try:
            new = clean_name(typed, [p for k, p in enumerate(ms.players) if k != seat])
            if new == old:
                app.render()
                return
            ms.rename(seat, new)
        except InputError as exc:
            # a drawn field cannot be changed in place: the screen is drawn again with it
            self.state.refused = (seat, typed, sentence(str(exc)))
            app.render()
            app.scroll_into_view(f"rename-{seat}")  # its error in view, not under the screen's edge
            return
        _changed(app, ms)
        app.snack(f"{old} is now {ms.players[seat]}")
        app.render()

    def abandon(self, _: Any) -> None:
        self.ms.abandon()
        _changed(self.app, self.ms)
        self.ask(None)

    def delete(self, _: Any) -> None:
        ms, app = self.ms, self.app
        ms.delete()
        _changed(app, ms)
        app.snack(f"Deleted the match of {', '.join(ms.players)}")
        app.go("/")

    def manage(self) -> list[Any]:
        """Rename a player, abandon the match, delete it (each asks before it acts)."""
        app, ms, asking = self.app, self.ms, self.state.asking
        out: list[Any] = [app.heading("This match")]
        if asking == "rename":
            rows = []
            refused = self.state.refused
            for seat, p in enumerate(ms.players):
                typed, why = (refused[1], refused[2]) if refused and refused[0] == seat else (p, None)
                f = ft.TextField(value=typed, label=f"Name of seat {seat + 1}", text_size=app.fs(16), expand=True,
                                 max_length=MAX_NAME, error=why, error_max_lines=3)
                f.on_submit = app.guarded(bind(self.rename, seat, f))
                rows.append(ft.Container(ft.Row([f, app.button("Rename", bind(self.rename, seat, f), kind="tonal",
                                                               tooltip=f"Rename seat {seat + 1}",
                                                               name=f"Rename seat {seat + 1}")], spacing=6),
                                         key=ft.ScrollKey(f"rename-{seat}")))
            out.extend([app.text("Rounds stay with the seat; only the name changes.", 15), *rows,
                        app.button("Done renaming", bind(self.ask, None), kind="text")])
            return out
        if asking == "abandon":
            out.append(app.card(app.text("Abandon this match? It stays in the history and can be resumed later.",
                                         16),
                                ft.Row([app.button("Abandon the match", self.abandon, icon=ft.Icons.FLAG),
                                        app.button("Keep playing", bind(self.ask, None), kind="text")],
                                       wrap=True, spacing=8, run_spacing=8),
                                color=ft.Colors.TERTIARY_CONTAINER))
            return out
        if asking == "delete":
            n = len(ms.match.rounds)
            out.append(app.card(app.text(f"Delete this match for good? Its {count(n, 'round')} {'leaves' if n == 1 else 'leave'} the history "
                                         "and the statistics; this cannot be undone.", 16),
                                ft.Row([app.button("Delete for good", self.delete, icon=ft.Icons.DELETE_FOREVER),
                                        app.button("Keep it", bind(self.ask, None), kind="text")],
                                       wrap=True, spacing=8, run_spacing=8),
                                color=ft.Colors.ERROR_CONTAINER))
            return out
        buttons = [app.button("Rename a player", bind(self.ask, "rename"), kind="outlined", icon=ft.Icons.PERSON)]
        if not ms.over and not ms.match.abandoned:
            buttons.append(app.button("Abandon match", bind(self.ask, "abandon"), kind="outlined", icon=ft.Icons.FLAG))
        buttons.append(app.button("Delete match", bind(self.ask, "delete"), kind="outlined",
                                  icon=ft.Icons.DELETE_OUTLINE))
        out.append(ft.Row(buttons, wrap=True, spacing=8, run_spacing=8))
        return out


def round_key(n: int) -> str:
    """The scroll key of round ``n``'s card on the scoreboard."""
    return f"round-{n}"


def _chart(app: App, ms: MatchSession) -> ft.Control:
    """The totals after each round as lines (flet-charts, drawn by the web client itself): a tap
    or a hover on a round shows every player's total then."""
    series = ms.chart()
    width = max(280, min((app.page.width or 400) - 60, 720))
    top = max(max(s) for s in series) or 1
    n = len(series[0]) - 1

    def axis_labels(values: list[int]) -> list[fch.ChartAxisLabel]:
        return [fch.ChartAxisLabel(value=v, label=ft.Text(str(v), size=app.fs(11))) for v in values]

    lines = []
    for s, (player, values) in enumerate(zip(ms.players, series, strict=True)):
        colour = SERIES_COLOURS[s % len(SERIES_COLOURS)]
        lines.append(fch.LineChartData(
            points=[fch.LineChartDataPoint(k, v, tooltip=fch.LineChartDataPointTooltip(
                text=f"{player} {v}", text_style=ft.TextStyle(size=app.fs(13), color=colour,
                                                              weight=ft.FontWeight.BOLD)))
                    for k, v in enumerate(values)],
            color=colour, stroke_width=3, point=True))
    rounds = sorted({0, n, *range(0, n + 1, max(1, n // 8))})
    chart = fch.LineChart(
        data_series=lines, min_x=0, max_x=max(n, 1), min_y=0, max_y=top,
        left_axis=fch.ChartAxis(labels=axis_labels(sorted({0, top})), label_size=app.fs(34)),
        bottom_axis=fch.ChartAxis(labels=axis_labels(rounds), label_size=app.fs(22)),
        horizontal_grid_lines=fch.ChartGridLines(interval=max(1, top / 4), color=ft.Colors.OUTLINE_VARIANT,
                                                 width=1),
        border=ft.Border.only(left=ft.BorderSide(1, ft.Colors.OUTLINE), bottom=ft.BorderSide(1, ft.Colors.OUTLINE)),
        tooltip=fch.LineChartTooltip(bgcolor=ft.Colors.SURFACE_CONTAINER_HIGHEST, fit_inside_horizontally=True,
                                     fit_inside_vertically=True),
        interactive=True)
    legend = ft.Row([ft.Row([ft.Container(width=14, height=14, bgcolor=SERIES_COLOURS[s % 8], border_radius=7),
                             app.text(f"{p} {series[s][-1]}", 14)], spacing=4)
                     for s, p in enumerate(ms.players)], wrap=True, spacing=12)
    labelled = ft.Semantics(
        label="Chart of totals after each round: " + "; ".join(
            f"{p} " + ", ".join(str(v) for v in series[s][1:]) for s, p in enumerate(ms.players)),
        content=ft.Container(chart, width=width, height=200 * app.scale, padding=ft.Padding.only(right=12, top=8)))
    return ft.Column([labelled, legend, app.text("Rounds played along the bottom, total points up the side. "
                                                 "Tap a round for the totals then.", 13, italic=True)], spacing=6)


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
    app.drafts.dispute = DisputeBuilder.for_round(rules, top, double)
    app.go("/dispute")


class BriefScreen(Screen):
    """What to do before the round: who plays first, the deal, the double, reminders."""

    def view(self) -> tuple[str, list[Any], str | None]:
        app, mid = self.app, self.route.match_id
        assert mid is not None
        ms = self.session.match(mid)
        b = ms.brief()
        if b is None:
            return "Round", [app.text("The match is over."),
                             app.button("Scoreboard", lambda _: app.go(f"/match/{mid}"))], f"/match/{mid}"
        m = ms.match
        who: list[Any] = [app.text("Who plays first", 18, bold=True), app.text(ms.next_starter_text(), 17),
                          app.text(b.why_first, 15)]
        if m.rules.first_player is FirstPlayer.AFTER_HOLDER:
            # Right under the sentence they change, so it updates where the tap was.
            def hold(name: str) -> None:
                ms.set_holder(name)
                _changed(app, ms)
                app.render()
            who.append(app.text(f"Who holds (or found) {b.double_text}?", 17, bold=True))
            who.append(ft.Row([app.button(p, bind(hold, p), kind="filled" if m.pending_holder == i else "outlined")
                               for i, p in enumerate(m.players)], wrap=True, spacing=8, run_spacing=8))
        body: list[Any] = [
            ft.Semantics(header=True, content=app.text(ms.heading(), 24, bold=True)),
            app.text(f"Round {b.number} of {b.of}. Deal {b.deal} tiles to each player (double-{b.set_top} set).", 18),
            app.card(*who),
            ft.Row([_domino(app, b.double)], alignment=ft.MainAxisAlignment.CENTER),
            app.button(f"Enter round {b.number} results", lambda _: app.go(f"/match/{mid}/round"),
                       icon=ft.Icons.EDIT_NOTE),
            app.card(app.text("If nobody holds the double", 18, bold=True), app.text(b.missing_double, 16)),
            app.card(app.text("Remember", 18, bold=True), app.text(b.reminder, 16)),
        ]
        return f"Round {b.number}: {b.double_text}", body, f"/match/{mid}"
