"""Home, history (with export/import), statistics, rules page and settings."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import flet as ft

from chickenfoot.app.brief import BASICS, rules_sections
from chickenfoot.app.kit import image
from chickenfoot.app.settings import THEMES
from chickenfoot.app.views import Screen, bind
from chickenfoot.rules import PRESETS
from chickenfoot.rules.words import count
from chickenfoot.storage.repository import left_out_words

if TYPE_CHECKING:
    from chickenfoot.app.shell import App


def _match_line(app: App, m: Any) -> str:
    done = len(m.rounds)
    state = "finished" if m.is_over else "abandoned" if m.abandoned else f"round {done + 1} of {m.planned_rounds}"
    return f"{', '.join(m.players)} · {m.rules.title} · {state}"


class HomeScreen(Screen):
    """The first screen: the match in progress, a new one, the rest of the app."""

    def view(self) -> tuple[str, list[Any], str | None]:
        app = self.app
        body: list[Any] = [app.text("Keep the score of your Chicken Foot games, counting the hands left at a "
                                    "round's end by number, tile or photo, and settle arguments about a play.", 16)]
        unfinished = self.session.store.unfinished()
        body.extend(unreadable_note(app))
        # One clear first action (resume the match in progress, else start one); the rest is a list
        # of full-width rows, each a thumb's height. Settings is the app bar's gear, not repeated here.
        if unfinished:
            m = unfinished[0]
            body.append(app.card(
                app.text("Unfinished match", 18, bold=True),
                app.text(_match_line(app, m)),
                ft.Column([app.button("Resume match", lambda _: app.go(f"/match/{m.id}"), icon=ft.Icons.PLAY_ARROW)],
                          horizontal_alignment=ft.CrossAxisAlignment.STRETCH),
            ))
        body.append(ft.Column([app.button("New match", bind(app.go, "/new"), icon=ft.Icons.ADD,
                                          kind="tonal" if unfinished else "filled")],
                              horizontal_alignment=ft.CrossAxisAlignment.STRETCH))
        items = [
            ("Count a hand from a photo", "/count", ft.Icons.PHOTO_CAMERA),
            ("Dispute checker", "/dispute", ft.Icons.GAVEL),
            ("Practise a round", "/practice", ft.Icons.SPORTS_ESPORTS),
            ("History", "/history", ft.Icons.HISTORY),
            ("Statistics", "/stats", ft.Icons.BAR_CHART),
            ("Rules", "/rules", ft.Icons.MENU_BOOK),
        ]
        if app.ctx.invite_url:
            items.append(("Invite a phone", "/invite", ft.Icons.QR_CODE))
        body.append(ft.Column([app.button(label, bind(app.go, route), icon=icon, kind="outlined")
                               for label, route, icon in items],
                              spacing=8, horizontal_alignment=ft.CrossAxisAlignment.STRETCH))
        if len(unfinished) > 1:
            body.append(app.text("Other unfinished matches", 18, bold=True))
            for m in unfinished[1:]:
                body.append(app.button(_match_line(app, m), bind(app.go, f"/match/{m.id}"), kind="text"))
        return "Chicken Foot", body, None


def unreadable_note(app: App) -> list[Any]:
    """A warning when the scorekeeper file holds matches that cannot be read (hand-edited): the
    rest are shown, and the computer the companion runs on is told what to do (never a path on
    it: the screen may be a phone's)."""
    if not app.session.store.unreadable:
        return []
    what, verb = left_out_words(app.session.store.unreadable)
    return [app.warning(f"{what} in the scorekeeper file cannot be read (changed by hand?) and {verb} left "
                        "out here. On the computer the companion runs on, `chickenfoot db check` says what "
                        "is wrong.")]


class InviteScreen(Screen):
    """The table code and its QR code, for the next phone to join with."""

    def new_code(self, _: Any) -> None:
        app = self.app
        code = app.ctx.new_table_code()
        app.notify_invite()
        app.snack(f"New table code: {code}. The old code and its QR code no longer work.")
        app.render()

    def view(self) -> tuple[str, list[Any], str | None]:
        app = self.app
        from chickenfoot.app.web import qr_png

        url = app.ctx.invite_url or ""
        code = app.ctx.table_code or ""
        side = min(320, int(getattr(app.page, "width", None) or 360) - 40)
        return "Invite a phone", [
            app.text("Scan this code with the phone's camera, or open the address below on it and "
                     "type the table code.", 16),
            ft.Semantics(label=f"QR code of {url}", content=image(
                qr_png(url), width=side, height=side, fit=ft.BoxFit.CONTAIN)),
            app.text(f"Table code: {code}", 26, bold=True),
            app.text(url.split("/join", 1)[0] + "/", 16, selectable=True),
            app.text("The code changes each time the app is started.", 14, italic=True),
            app.text("A phone told it typed too many wrong codes (or that another device of its network "
                     "did) joins by scanning this QR code all the same, or with a new code. Phones "
                     "already at the table stay joined.", 14),
            app.button("New code", self.new_code, kind="outlined", icon=ft.Icons.REFRESH),
            *self.devices_view(),
        ], "/"

    def remove(self, device: Any) -> None:
        app = self.app
        if app.ctx.table_devices.remove(device.id):
            app.snack(f"{device.kind} ({device.address}) is off the table: its pages close, and it joins "
                      "again only with the code or the QR code. If it should not come back, make a New code too.")
        app.render()

    def devices_view(self) -> list[Any]:
        """The devices that joined, this one marked, each other one with Remove."""
        app = self.app
        devices = app.ctx.table_devices
        if devices is None:
            return []
        me = app.table_device
        listing = sorted(devices.listing(), key=lambda d: d.id != me)  # this one first
        out: list[Any] = [app.heading(f"Devices at the table ({len(listing)})")]
        if devices.unkept:
            out.append(app.text(f"The list of devices could not be saved ({devices.unkept}): after a restart, "
                                "a device removed here would be let in again, unless the companion is started "
                                "with --forget-devices (every device then joins again).", 14,
                                color=ft.Colors.ERROR))
        now = time.time()
        for d in listing:
            mine = d.id == me
            lines: list[Any] = [app.text(d.kind + (" (this device)" if mine else ""), 16, bold=True),
                                app.text(f"{_when('joined', d.joined_at, now)} · {_ago(d.seen_at, now)} · "
                                         f"{d.address}", 14)]
            if not mine:
                lines.append(app.button("Remove", bind(self.remove, d), kind="outlined", icon=ft.Icons.LOGOUT,
                                        name=f"Remove {d.kind}, {d.address}, from the table"))
            out.append(app.card(*lines))
        out.append(app.text("A device removed is put out at once, and joins again only with the code or the "
                            "QR code.", 14))
        if len(listing) > 1:
            out.append(app.button("Remove every other device", self.remove_others, kind="outlined",
                                  icon=ft.Icons.GROUP_REMOVE))
        return out

    def remove_others(self, _: Any) -> None:
        app = self.app
        gone = app.ctx.table_devices.remove_others(app.table_device)
        app.snack(f"{count(gone, 'device')} put out; this one stays. Each joins again only with the code or the "
                  "QR code: make a New code too if someone who should not be here has them.")
        app.render()


def _when(word: str, at: float, now: float) -> str:
    t, today = time.localtime(at), time.localtime(now)
    same_day = (t.tm_year, t.tm_yday) == (today.tm_year, today.tm_yday)
    return f"{word} {time.strftime('%H:%M' if same_day else '%d %b %H:%M', t)}"


def _ago(at: float, now: float) -> str:
    seconds = max(0.0, now - at)
    if seconds < 90:
        return "here now"
    if seconds < 3600:
        return f"seen {round(seconds / 60)} min ago"
    return _when("seen", at, now)


class HistoryScreen(Screen):
    """Every match, with export and import."""

    async def export(self, fmt: str) -> None:
        app, store = self.app, self.session.store
        data = store.export_json() if fmt == "json" else store.export_csv()
        n = len(store.all())
        said = await app.deliver(f"chickenfoot-matches.{fmt}", data.encode("utf-8"), fmt)
        if said:
            app.snack(f"Exported {count(n, 'match', 'matches')}: {said}")
        app.page.update()

    async def export_json(self, _: Any) -> None:
        await self.export("json")

    async def export_csv(self, _: Any) -> None:
        await self.export("csv")

    async def import_json(self, _: Any) -> None:
        app = self.app
        picked = await app.pick_one("Import matches (JSON export)", ["json"])
        if picked is None:
            return
        name, raw = picked
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            app.snack(f"The file {name} is not a text (JSON) file: matches are imported from a JSON export", error=True)
            app.page.update()
            return
        report = self.session.store.import_json(text)
        app.snack(f"Imported {name}: {report.summary('here')}")
        app.render()

    def view(self) -> tuple[str, list[Any], str | None]:
        app, store = self.app, self.session.store
        body: list[Any] = []
        matches = store.all()
        body.extend(unreadable_note(app))
        if not matches:
            body.append(app.text("No matches yet."))
        for m in matches:
            lines = [app.text(_match_line(app, m), bold=True), app.text(f"Started {m.created_at[:16].replace('T', ' ')}", 14)]
            if m.rounds:
                table = sorted(m.standings(), key=lambda s: s.rank)
                lines.append(app.text(" · ".join(f"{s.rank}. {s.player} {s.total}" for s in table), 15))
            out = m.outcome()
            if out:
                lines.append(app.text(("Draw: " if out.draw else "Won by ") + ", ".join(out.winners), 15))
            # each "Open" says whose match it opens, to a screen reader (its name) and a pointer
            whose = f"Open the match of {', '.join(m.players)}"
            lines.append(app.button("Open", bind(app.go, f"/match/{m.id}"), kind="outlined", tooltip=whose,
                                    name=whose))
            body.append(app.card(*lines))
        # The matches first; keeping a copy or bringing one in is what a few need, below them.
        body.append(app.heading("Export and import"))
        body.append(app.text("A copy of every match, to keep or to open on another device.", 15))
        body.append(ft.Row([
            app.button("Export JSON", self.export_json, kind="outlined", icon=ft.Icons.DOWNLOAD),
            app.button("Export CSV", self.export_csv, kind="outlined", icon=ft.Icons.TABLE_VIEW),
            app.button("Import JSON", self.import_json, kind="outlined", icon=ft.Icons.UPLOAD),
        ], wrap=True, spacing=8, run_spacing=8))
        return "History", body, "/"


class StatsScreen(Screen):
    """Each player's figures over every match."""

    def view(self) -> tuple[str, list[Any], str | None]:
        app = self.app
        stats = self.session.store.stats()
        if not stats:
            return "Statistics", [app.text("No matches yet: statistics appear after the first round.")], "/"
        cards = []
        for s in stats:
            facts: list[tuple[str, Any]] = [
                ("Matches finished", s.matches_played), ("In progress", s.matches_in_progress),
                ("Won", s.matches_won), ("Drawn", s.matches_drawn),
                ("Rounds played", s.rounds_played), ("Went out", s.rounds_out)]
            # a figure with nothing behind it yet is left out, not shown as "-"
            if s.average_penalty is not None:
                facts.append(("Average points a round", f"{s.average_penalty:.1f}"))
            if s.worst_penalty is not None:
                facts.append(("Most points in a round", s.worst_penalty))
            if s.best_match_total is not None:
                facts.append(("Lowest match total", s.best_match_total))
            if s.rounds_tiles_known:  # unknown where every hand was typed as a number
                facts.append(("Left holding the 0-0", f"{count(s.caught_with_double_blank, 'time')} in "
                              f"{count(s.rounds_tiles_known, 'round')} with the tiles known"))
            # One card per player whose figures wrap: no table wider than a phone.
            cards.append(app.card(app.text(s.player, 18, bold=True), ft.Row(
                [app.text(f"{label}: {value}", 15) for label, value in facts], wrap=True, spacing=16, run_spacing=4)))
        note = app.text("Wins and the lowest match total count finished matches; round figures count every round "
                        "of matches not abandoned, those in progress included. Who was left holding the 0-0 is known "
                        "only for hands entered as tiles or a photo.", 14, italic=True)
        return "Statistics", [*cards, note], "/"


class RulesScreen(Screen):
    """The rules the scorekeeper and the dispute checker follow, preset by preset."""

    def view(self) -> tuple[str, list[Any], str | None]:
        app = self.app
        body: list[Any] = [app.text("These are the rules the scorekeeper and the dispute checker follow, "
                                    "so this page always agrees with them.", 15, italic=True),
                           app.card(app.text("How Chicken Foot is played", 20, bold=True),
                                    *[app.text(line, 15) for line in BASICS],
                                    app.text("Groups differ on the numbers: each set of rules below says its own.",
                                             14, italic=True))]
        for sec in rules_sections():
            body.append(app.card(
                app.text(sec.title, 20, bold=True),
                # the summary and the first line say the players and the set already
                app.text(f"Source: {sec.source}.", 14, italic=True),
                app.text(sec.summary),
                *[app.text("• " + line, 15) for line in sec.lines],
            ))
        return "Rules", body, "/"


class SettingsScreen(Screen):
    """Theme, text size and the default rules."""

    def save(self, **changes: Any) -> None:
        self.app.ctx.save_settings(self.session.settings.with_(**changes))
        self.app.render()

    def set_theme(self, e: Any) -> None:
        self.app.ctx.save_settings(self.session.settings.with_(theme=e.control.value))
        self.app.apply_settings()
        self.app.render()

    def set_large(self, e: Any) -> None:
        self.save(large_text=bool(e.control.value))

    def set_preset(self, e: Any) -> None:
        self.save(default_preset=e.control.value, default_options={})

    def view(self) -> tuple[str, list[Any], str | None]:
        app, s = self.app, self.session.settings
        theme = ft.RadioGroup(value=s.theme, on_change=app.guarded(self.set_theme), content=ft.Row(
            [ft.Radio(value=t, label=t.capitalize(), height=48, label_style=ft.TextStyle(size=app.fs(16)))
             for t in THEMES], wrap=True))
        body = [
            app.text("Theme", 18, bold=True), theme,
            ft.Switch(label="Large text", value=s.large_text, on_change=app.guarded(self.set_large), height=48,
                      label_text_style=ft.TextStyle(size=app.fs(16))),
            app.text("Default rules for new matches", 18, bold=True),
            app.dropdown("Preset", s.default_preset, [(k, r.title) for k, r in PRESETS.items()], self.set_preset),
            app.text(PRESETS[s.default_preset].summary, 15),
        ]
        return "Settings", body, "/"
