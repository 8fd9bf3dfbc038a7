"""The Flet front end: one :class:`AppContext` per server process, one :class:`App` per session.

What a session holds and reads is :class:`chickenfoot.app.session.Session` (Flet-free); the
screens are classes in :mod:`chickenfoot.app.views` over it and their own typed state, drawn with
the widget kit (:mod:`chickenfoot.app.kit`) and found by the router (:mod:`chickenfoot.app.router`,
over the route table :mod:`chickenfoot.app.routes`); this module draws them and talks to the page
(navigation, files, messages, other devices). Nothing here scores or decides a rule. Routes live in the URL, so a reload (or a second
phone opening the same address) lands on the same screen with the same data.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
import time
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

import flet as ft

from chickenfoot.board.scene import DARK, LIGHT, Palette
from chickenfoot.rules.errors import ChickenFootError, InputError

from .kit import Kit
from .session import Drafts, Session
from .settings import Settings, SettingsStore
from .store import MatchStore

log = logging.getLogger(__name__)

TOPIC = "chickenfoot-match"
#: Largest file a client may hand over (a photo, an export to import).
UPLOAD_MAX_BYTES = 40 * 2**20
#: Seconds between checks of the scorekeeper file's change counter (writes from other processes).
POLL_S = 2.0
#: Seconds a screen showing the joined devices waits for more changes before it is redrawn.
DEVICES_REDRAW_S = 0.5
#: Seconds after a device connects before the tile reader is loaded in the background.
WARM_DELAY_S = 2.0
#: Seconds a screen waits before redrawing for another device's change (see App._remote_change).
REMOTE_REDRAW_DELAY_S = 0.15
#: Seconds between a redraw and scrolling a card into view (see App.scroll_into_view).
SCROLL_DELAY_S = 0.12
#: Seconds a note asked for on the way to another screen waits for that screen (App.snack_on).
NOTE_ON_S = 10.0
#: What screen readers call the part fixed at the bottom of a screen (the number pad, Save).
FOOTER_LABEL = "Number pad and Save"


class UploadError(InputError):
    """A file handed to the app that it cannot take (too big, no data, nowhere to write)."""


class AppContext:
    """What every session of one server shares: the match store, settings, the tile reader."""

    def __init__(self, db_path: str | Path, models_dir: str | Path | None = None, *,
                 web: bool = False, invite_url: str | None = None, table_code: str | None = None) -> None:
        self.store = MatchStore.open(db_path)
        self.db_path = self.store.path
        #: Served to browsers: no session may name a path on this machine, whatever its client
        #: says about itself (``page.web`` is the client's word; this is the server's).
        self.web = web
        #: The QR code's address (``/join?key=...``) and the code to type, when the table needs one.
        self.invite_url = invite_url
        self.table_code = table_code
        #: Makes a new table code and QR key and returns them (set where the table's gate is made).
        self.renew_code: Callable[[], tuple[str, str]] | None = None
        #: The devices that joined the table (:class:`chickenfoot.app.web.JoinedDevices`), when
        #: it has a code.
        self.table_devices: Any = None
        self._devices_lock = threading.Lock()
        self._devices_timer: threading.Timer | None = None
        self.settings_store = SettingsStore(self.db_path.with_name(self.db_path.stem + "-settings.json"))
        self.settings: Settings = self.settings_store.load()
        self.models_dir = models_dir
        self._reader: Any = None
        self._reader_lock = threading.Lock()
        self._warming = False
        self._warm_timer: threading.Timer | None = None
        #: Files this server asked browsers for (web only): see :class:`chickenfoot.app.web.Uploads`.
        self.uploads: Any = None
        if web:
            from .web import Uploads

            self.uploads = Uploads(UPLOAD_MAX_BYTES)
        self.sessions: weakref.WeakSet[App] = weakref.WeakSet()
        self._seen_version = self.store.version  # a damaged file fails here, before serving
        self._poller: threading.Thread | None = None

    def add_session(self, app: App) -> None:
        self.sessions.add(app)
        if self._warm_timer is None:
            # after the first screen is drawn: loading the models would slow that down
            self._warm_timer = threading.Timer(WARM_DELAY_S, self.warm_reader)
            self._warm_timer.daemon = True
            self._warm_timer.start()
        if self._poller is None:
            # Another process (the CLI, a second server) may write the same file: poll the
            # repository's change counter so open screens pick that up too.
            self._poller = threading.Thread(target=self._poll, name="db-poller", daemon=True)
            self._poller.start()

    def _poll(self) -> None:
        while True:
            time.sleep(POLL_S)
            try:
                self.check_external_changes()
            except Exception:  # a damaged file mid-write by someone else: try again later
                log.debug("change poll failed", exc_info=True)

    def check_external_changes(self) -> bool:
        """Refresh every open screen if the file's change counter moved; True if it did."""
        version = self.store.version
        if version == self._seen_version:
            return False
        self._seen_version = version
        self._tell_sessions(lambda app: app.external_change())
        return True

    def _tell_sessions(self, tell: Callable[[App], None]) -> None:
        """``tell(app)`` for every open session; one that fails is a tab closing as it is told
        (it goes from the weak set once it is gone)."""
        for app in list(self.sessions):
            try:
                tell(app)
            except Exception:
                log.debug("a session could not be told", exc_info=True)

    def new_table_code(self) -> str:
        """Replace the table code and the QR code's key (see ``TableGate.new_code``); the invite
        address follows."""
        if self.renew_code is None or self.invite_url is None:
            raise InputError("this table is served without a code")
        code, key = self.renew_code()
        self.invite_url = self.invite_url.split("/join", 1)[0] + "/join?key=" + key
        self.table_code = code
        return code

    def devices_changed(self) -> None:
        """A device joined or was removed: screens showing the list redraw it, once for changes
        that come together (a burst of joins redraws each screen once, not once a join)."""
        with self._devices_lock:
            if self._devices_timer is not None:
                return
            self._devices_timer = threading.Timer(DEVICES_REDRAW_S, self._tell_devices_changed)
            self._devices_timer.daemon = True
            self._devices_timer.start()

    def _tell_devices_changed(self) -> None:
        with self._devices_lock:
            self._devices_timer = None
        self._tell_sessions(lambda app: app.table_devices_changed())

    def save_settings(self, settings: Settings) -> None:
        self.settings_store.save(settings)
        self.settings = settings

    def reader(self) -> Any:
        """The ONNX tile reader, loaded on first use (a photo); raises ModelError if absent."""
        with self._reader_lock:
            if self._reader is None:
                from chickenfoot.vision.reader import Reader

                self._reader = Reader.from_models_dir(self.models_dir)
            return self._reader

    def warm_reader(self) -> None:
        """Load the reader and run it once in the background (once per process), so that the
        first photo a player chooses is read at full speed. A reader that cannot be loaded says
        so when a photo is read."""
        with self._reader_lock:
            if self._warming:
                return
            self._warming = True
        threading.Thread(target=self._warm, name="reader-warm", daemon=True).start()

    def _warm(self) -> None:
        from .photo_review import warm

        t0 = time.perf_counter()
        try:
            warm(self.reader())
        except Exception as exc:  # missing models: the photo panel says so when used
            log.info("tile reader not warmed: %s", " ".join(str(exc).split())[:200] or type(exc).__name__)
            return
        log.info("tile reader loaded and warmed in %.0f ms", (time.perf_counter() - t0) * 1e3)


class App(Kit):
    """One browser tab / desktop window."""

    def __init__(self, page: ft.Page, ctx: AppContext) -> None:
        self.page = page
        self.ctx = ctx
        #: What this session holds: drafts, the state of the screen shown, its message.
        self.session = Session(ctx)
        self._render_lock = threading.RLock()
        #: The open note whose button takes a change back (Redo): it speaks of the screen it
        #: was shown over, so the next redraw closes it.
        self._undo_note: ft.SnackBar | None = None
        #: A note to show once the screen of a route is drawn (a change made on the way to it),
        #: and when it was asked for.
        self._note_on: tuple[str, str, tuple[str, Callable[[], Any]] | None, float] | None = None
        #: The scrolling part of the screen now drawn (see scroll_into_view).
        self.scroller: ft.Column | None = None
        page.title = "Chicken Foot companion"
        page.padding = 0
        page.on_route_change = self._route_changed
        page.on_connect = self._reconnected
        #: The dialog over the screen (the full-screen photo), closed when another screen is shown.
        self._modal: ft.AlertDialog | None = None
        page.on_resize = self._resized
        # under the "system" theme, the boards follow the device's light or dark
        page.on_platform_brightness_change = lambda _e: self.render()
        self._drawn_width = page.width
        page.pubsub.subscribe_topic(TOPIC, self._remote_change)
        # One picker per session, made while the page is the current context (so it registers).
        self.picker = ft.FilePicker(on_upload=self._upload_event)
        self._uploading: Any = None  # the upload under way (see _upload)
        #: What this device keeps between sessions (the browser's storage of this address, or
        #: the desktop app's): a session ends a minute after its tab closed or its phone slept.
        self.device_store = ft.SharedPreferences()
        self.apply_settings()

    async def kept_on_device(self, key: str) -> Any:
        """What this device keeps under ``key`` (None: nothing, or no answer: it is only a
        convenience, and the client's to give)."""
        try:
            return await self.device_store.get(key)
        except Exception:
            log.debug("the device's storage did not answer", exc_info=True)
            return None

    def keep_on_device(self, key: str, text: str) -> None:
        """Keep ``text`` on this device under ``key`` ("" forgets it); sent beside the redraw."""
        async def keep() -> None:
            try:
                if text:
                    await self.device_store.set(key, text)
                else:
                    await self.device_store.remove(key)
            except Exception:
                log.debug("the device's storage did not keep %s", key, exc_info=True)

        self.page.run_task(keep)

    # ------------------------------------------------------------ plumbing
    @property
    def device(self) -> str:
        """Names this device where it matters (who saved a round)."""
        return self.session.device

    @property
    def drafts(self) -> Drafts:
        """Work in progress on this device that survives moving between screens."""
        return self.session.drafts

    @property
    def settings(self) -> Settings:
        return self.ctx.settings

    @property
    def table_device(self) -> str | None:
        """The joined device this session's connection came from (the table's gate names it, at
        every connection: a page may come back after its device joined anew), or None without
        a table code."""
        if not self.ctx.web:
            return None
        from .web.bridge import device_of

        return device_of(self.page)

    @property
    def board_palette(self) -> Palette:
        """The colours boards and faces are drawn in: dark under the dark theme (chosen, or the
        device's own under "system")."""
        theme = self.settings.theme
        dark = theme == "dark" or (theme == "system" and self.page.platform_brightness == ft.Brightness.DARK)
        return DARK if dark else LIGHT

    @property
    def scale(self) -> float:
        return self.settings.text_scale

    def apply_settings(self) -> None:
        self.page.theme_mode = {"light": ft.ThemeMode.LIGHT, "dark": ft.ThemeMode.DARK}.get(
            self.settings.theme, ft.ThemeMode.SYSTEM)
        # Standard density everywhere (a desktop browser would get the compact one): buttons keep
        # their padding, so every target is at least a thumb's 48 px.
        self.page.theme = ft.Theme(color_scheme_seed=ft.Colors.GREEN, visual_density=ft.VisualDensity.STANDARD)
        self.page.dark_theme = ft.Theme(color_scheme_seed=ft.Colors.GREEN,
                                        visual_density=ft.VisualDensity.STANDARD)

    def _resized(self, e: Any) -> None:
        # Widths are laid out for the page (dropdowns, photos, the chart): redraw when the width
        # changes, not the height (a phone's keyboard opening must not redraw a field being typed).
        width = getattr(e, "width", None) or self.page.width
        if width and abs(width - (self._drawn_width or 0)) > 1:
            self.render()

    def go(self, route: str) -> None:
        """Navigate (works from sync handlers running in worker threads)."""
        self.page.run_task(self.page.push_route, route)

    def notify_change(self, match_id: str) -> None:
        """Tell every other session that a match changed (they refresh if they show it)."""
        self.page.pubsub.send_others_on_topic(TOPIC, match_id)

    def external_change(self) -> None:
        """The file changed (maybe from another process): redraw screens whose data changed."""
        route = self.page.route or "/"
        if self._connected() and (self.session.data_moved(route) or self.session.draft_moved()):
            self.page.run_task(self._render_async)

    async def _render_async(self) -> None:
        self.render()

    def show_modal(self, dialog: ft.AlertDialog) -> None:
        """Show ``dialog`` over this screen only: the phone's Back (another route) closes it, so
        it never stays over the next screen, nor comes back with a reload."""
        self._modal = dialog
        self.page.show_dialog(dialog)

    def _reconnected(self, _: Any = None) -> None:
        # A refreshed page keeps its session (Flet reconnects it) but the browser draws it anew,
        # scrolled to the top: the screen says what it needs brought back into view.
        hook = getattr(self.session.state, "reconnected", None)
        if hook is not None:
            hook()
        # What changed while it was away (a phone asleep under a minute) was not sent to it.
        route = self.page.route or "/"
        if hook is not None or self.session.data_moved(route) or self.session.draft_moved() \
                or self.session.concerns(route, {"code": True}):
            self.render()

    def _connected(self) -> bool:
        """Whether this session's browser is connected now (a session is kept a minute after
        its page went away, for the same page to come back to)."""
        session = getattr(self.page, "session", None)
        return session is None or getattr(session, "connection", None) is not None

    def _route_changed(self, _: Any = None) -> None:
        modal, self._modal = self._modal, None
        if modal is not None and modal.open:
            modal.open = False  # sent with the redraw below
        self.render()

    def notify_invite(self) -> None:
        """Tell the other devices that the table code changed (an invite shown is redrawn)."""
        self.page.pubsub.send_others_on_topic(TOPIC, {"code": True})

    def notify_entry(self, match_id: str) -> None:
        """Tell the other devices that the shared round entry of a match changed."""
        self.page.pubsub.send_others_on_topic(TOPIC, {"entry": match_id})

    def table_devices_changed(self) -> None:
        """A device joined the table or was removed (the server's word): an invite shown is
        redrawn."""
        if self._connected():  # else it is redrawn when it reconnects
            self.page.run_task(self._remote_change, TOPIC, {"code": True})

    async def _remote_change(self, topic: str, message: Any) -> None:
        # On the event loop, a moment later: taps this page sent before it heard of the change
        # are handled first, on the controls they were aimed at. So a Save pressed here at the
        # same moment as on another device is handled (and told "saved on another device")
        # instead of being lost under a redrawn screen.
        await asyncio.sleep(REMOTE_REDRAW_DELAY_S)
        self._on_remote_change(topic, message)

    def _on_remote_change(self, topic: str, message: Any) -> None:
        if self.session.concerns(self.page.route or "/", message):
            self.render()

    @property
    def web(self) -> bool:
        """Served to a browser (the server's knowledge, never the client's claim)."""
        return self.ctx.web

    async def pick_one(self, title: str, extensions: list[str] | None = None) -> tuple[str, bytes] | None:
        """One file from the picker with its bytes, or None if cancelled; images when no
        ``extensions`` are given. In a web session only the bytes the browser uploads are read
        (at most :data:`UPLOAD_MAX_BYTES`), never a path: a path there names a file on the
        server, and the client chose it. A desktop window reads the path its user picked."""
        kind = ft.FilePickerFileType.CUSTOM if extensions else ft.FilePickerFileType.IMAGE
        uploads = self.ctx.uploads if self.web else None
        files = await self.picker.pick_files(dialog_title=title, file_type=kind, allowed_extensions=extensions,
                                             with_data=uploads is None)
        if not files:
            return None
        f = files[0]
        name = Path(str(f.name or "file")).name[:120] or "file"
        if uploads is not None:  # sent over HTTP: many times faster than inside a WebSocket message
            return name, await self._upload(uploads, f, name)
        data = f.bytes
        if data is None and f.path and not self.web:
            path = Path(f.path)
            size = await asyncio.to_thread(lambda: path.stat().st_size)
            if size > UPLOAD_MAX_BYTES:
                raise UploadError(f"{name} is {size / 2**20:.0f} MB; the most a file may be is "
                                  f"{UPLOAD_MAX_BYTES // 2**20} MB")
            data = await asyncio.to_thread(path.read_bytes)
        if data is None:
            raise UploadError(f"{name} could not be read: the browser sent no data")
        if len(data) > UPLOAD_MAX_BYTES:
            raise UploadError(f"{name} is {len(data) / 2**20:.0f} MB; the most a file may be is "
                              f"{UPLOAD_MAX_BYTES // 2**20} MB")
        return name, bytes(data)

    async def _upload(self, uploads: Any, f: Any, name: str) -> bytes:
        """The bytes of picked file ``f``, which the browser sends to a one-time address."""
        from .web import UploadRefused

        size = getattr(f, "size", None)
        if isinstance(size, int) and size > UPLOAD_MAX_BYTES:
            raise UploadError(f"{name} is {size / 2**20:.0f} MB; the most a file may be is "
                              f"{UPLOAD_MAX_BYTES // 2**20} MB")
        try:
            token, fut = uploads.expect(owner=self)
        except UploadRefused as exc:
            raise UploadError(f"{name}: {exc}") from None
        self._uploading = fut
        t0 = time.perf_counter()
        try:
            await self.picker.upload([ft.FilePickerUploadFile(upload_url=f"/upload/{token}", id=getattr(f, "id", None),
                                                               name=f.name)])
            data: bytes = await asyncio.wait_for(asyncio.wrap_future(fut), uploads.wait_s)
            log.info("file received: %d bytes in %.0f ms", len(data), (time.perf_counter() - t0) * 1e3)
            return data
        except (TimeoutError, asyncio.CancelledError):
            raise UploadError(f"{name} did not arrive from the browser") from None
        except UploadRefused as exc:
            raise UploadError(f"{name}: {exc}") from None
        finally:
            self._uploading = None
            uploads.cancel(token)

    def _upload_event(self, e: Any) -> None:
        """The browser could not send the file (its own word on why)."""
        fut = self._uploading
        if e.error and fut is not None:
            from .web import UploadRefused, settle

            settle(fut, error=UploadRefused(" ".join(str(e.error).split())[:200]))

    async def deliver(self, name: str, data: bytes, extension: str) -> str | None:
        """Hand a file to the user: a download in a web session (the server writes nothing), a
        save dialog and the path its user chose in a desktop window. Returns what to tell the
        user, or None when they cancelled."""
        if self.web:
            await self.picker.save_file(file_name=name, src_bytes=data)
            return f"{name} downloaded"
        path = await self.picker.save_file(file_name=name, allowed_extensions=[extension],
                                           file_type=ft.FilePickerFileType.CUSTOM)
        if not path:
            return None
        try:
            await asyncio.to_thread(Path(path).write_bytes, data)
        except OSError as exc:
            raise UploadError(f"cannot write {path}: {exc.strerror or exc}") from None
        return f"saved to {path}"

    def snack(self, message: str, error: bool = False, action: tuple[str, Callable[[], Any]] | None = None) -> None:
        """A short note that something was done; an error goes on its screen instead.
        ``action``: (label, handler) of a button on the note that takes it back (Redo)."""
        if error:
            self.show_error(message)
            return
        act = None
        if action is not None:
            label, fn = action
            act = ft.SnackBarAction(label, on_click=self.guarded(lambda _: fn()))
        # persist=False: since Flutter 3.29 a note with a button stays until it is pressed, and
        # would cover the buttons of every screen after it
        note = ft.SnackBar(ft.Text(message, size=self.fs(15)), action=act, persist=False,
                           duration=ft.Duration(seconds=6 if act else 3))
        self.page.show_dialog(note)
        if act is not None:
            self._undo_note = note

    def snack_on(self, route: str, message: str, action: tuple[str, Callable[[], Any]] | None = None) -> None:
        """:meth:`snack` once the screen of ``route`` is drawn (now, if it is the one shown): a
        change made on the way to another screen is told, and offered back, there."""
        if (self.page.route or "/") == route:
            self.snack(message, action=action)
        else:
            self._note_on = (route, message, action, time.monotonic())

    def _close_undo_note(self) -> None:
        """Close the note that offers to take a change back: once the screen changed (another
        change made, another screen shown) its button would take back something else, or
        nothing."""
        note, self._undo_note = self._undo_note, None
        if note is not None and note.open:
            note.open = False
            with contextlib.suppress(RuntimeError):  # not on a page (any more): nothing to close
                note.update()

    def show_error(self, message: str) -> None:
        """Say what went wrong on the screen where it happened, until the next action there or
        until another screen is shown (never a toast that vanishes, never on the next screen)."""
        self.session.say(message)
        self.render()

    def failed(self, exc: BaseException) -> None:
        """Show why a handler failed: the project's own message, or a short line for a bug
        (logged on the server in one line, its traceback only at DEBUG; never sent to the
        client). A tab that closed while the server waited for its browser (a file dialog
        open) has nobody left to tell: one line in the log, at INFO."""
        if self.web and _gone(exc):
            log.info("a tab closed while the server waited for its browser (%s)", type(exc).__name__)
            return
        if isinstance(exc, ChickenFootError):
            self.snack(" ".join(str(exc).split()) or type(exc).__name__, error=True)
        else:
            log.error("a handler failed: %s", one_line(exc))
            log.debug("the handler's traceback", exc_info=exc)
            self.snack(f"Something went wrong ({type(exc).__name__}); nothing was changed by it.",
                       error=True)
        self.page.update()

    def guarded(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """Wrap a handler: any error becomes a message, never a crash or a traceback."""
        def run(*args: Any) -> Any:
            self.session.error = None
            try:
                return fn(*args)
            except Exception as exc:
                self.failed(exc)
        return run

    def aguarded(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """``guarded`` for async handlers (file dialogs, background reads)."""
        async def run(*args: Any) -> Any:
            self.session.error = None
            try:
                return await fn(*args)
            except Exception as exc:
                self.failed(exc)
        return run

    def _error_banner(self) -> ft.Control | None:
        message = self.session.error
        if not message:
            return None

        def dismiss(_: Any) -> None:
            self.session.error = None
            self.render()

        return ft.Container(ft.Row([
            ft.Icon(ft.Icons.ERROR_OUTLINE, color=ft.Colors.ON_ERROR_CONTAINER, size=self.fs(22),
                    semantics_label="Error"),
            ft.Container(ft.Semantics(live_region=True, content=self.text(
                message, 16, color=ft.Colors.ON_ERROR_CONTAINER)), expand=True),
            self.icon_button(ft.Icons.CLOSE, "Dismiss the message", dismiss),
        ], vertical_alignment=ft.CrossAxisAlignment.START), bgcolor=ft.Colors.ERROR_CONTAINER,
            border_radius=10, padding=ft.Padding.only(left=12, top=6, bottom=6, right=4))

    # --------------------------------------------------------------- render
    def render(self) -> None:
        # Handlers, pub/sub messages from other devices and the file poller can all ask for a
        # redraw at once, from different threads: one at a time per screen.
        with self._render_lock:
            self._render()

    def _render(self) -> None:
        from .router import route_screen

        route = self.page.route or "/"
        self._close_undo_note()
        self._drawn_width = self.page.width
        self.session.drawn(route)
        self.session.visit(route)
        footer: ft.Control | None = None
        try:
            title, body, back, *rest = route_screen(self, route).view()
            footer = rest[0] if rest else None
        except ChickenFootError as exc:
            title, body, back = "Cannot show this", [self.text(str(exc)),
                                             self.button("Home", lambda _: self.go("/"))], "/"
        back = self.session.back_from(back)
        self.page.appbar = ft.AppBar(
            title=self.text(title, 20, bold=True),
            leading=self.icon_button(ft.Icons.ARROW_BACK, "Back", lambda _: self.go(back))
            if back else None,
            automatically_imply_leading=False,
            actions=[self.icon_button(ft.Icons.HOME, "Home", lambda _: self.go("/"))]
            if route != "/" else [self.icon_button(ft.Icons.SETTINGS, "Settings",
                                                   lambda _: self.go("/settings"))],
        )
        banner = self._error_banner()
        # One scroll view per screen, keyed by the screen: a redraw of the same screen is
        # reconciled with what the browser shows (Flet diffs a keyed tree by position), so the
        # scroll position and the focus survive a tap; another screen gets a new key and opens
        # at its top.
        key = ft.ValueKey(f"screen-{self.session.seq}")
        self.page.scroll = None
        if footer is None:
            self.scroller = ft.Column([ft.Container(ft.Column([banner, *body] if banner else body, spacing=14),
                                                    padding=ft.Padding.all(14))],
                                      scroll=ft.ScrollMode.AUTO, expand=True, spacing=0)
            root = ft.SafeArea(self.scroller, expand=True, key=key)
        else:
            # The footer (a number pad, Save) stays at the bottom of the screen; the rest scrolls
            # above it, so nothing in the list is ever drawn under it.
            self.scroller = ft.Column([ft.Container(ft.Column(body, spacing=14), padding=ft.Padding.all(14))],
                                      scroll=ft.ScrollMode.AUTO, expand=True, spacing=0)
            root = ft.SafeArea(ft.Column([
                self.scroller,
                ft.Container(ft.Column([
                    # a thin named edge: where the fixed part begins, for screen readers and tests
                    ft.Semantics(label=FOOTER_LABEL, content=ft.Container(height=1)),
                    ft.Container(ft.Column([banner, footer] if banner else [footer], spacing=8),
                                 padding=ft.Padding.only(left=14, right=14, bottom=8, top=7)),
                ], spacing=0), bgcolor=ft.Colors.SURFACE_CONTAINER,
                    border=ft.Border.only(top=ft.BorderSide(1, ft.Colors.OUTLINE_VARIANT))),
            ], spacing=0, expand=True), expand=True, key=key)
        self.page.controls[:] = [root]
        self.page.update()
        if self._note_on is not None:
            to, message, action, asked = self._note_on
            if time.monotonic() - asked > NOTE_ON_S:  # the way there was left: the news is old
                self._note_on = None
            elif to == route:
                self._note_on = None
                self.snack(message, action=action)

    def new_screen(self) -> None:
        """Show the current route as a screen opened afresh (its state emptied, at its top)."""
        self.session.renew()
        self.render()

    def scroll_into_view(self, key: str) -> None:
        """Scroll the screen so the control with ``ft.ScrollKey(key)`` is at the top of the
        scrolling part (above a fixed number pad). Asked while a screen is being drawn, it
        scrolls that screen once it is shown."""
        async def go() -> None:
            # after the browser has laid out the redraw sent just before (a panel that closed
            # changes where the card is)
            await asyncio.sleep(SCROLL_DELAY_S)
            scroller = self.scroller
            if scroller is None:
                return
            try:
                await scroller.scroll_to(scroll_key=key, duration=200)
            except Exception:  # the screen was redrawn meanwhile: nothing to scroll
                log.debug("scroll_to %s failed", key, exc_info=True)
        self.page.run_task(go)


def one_line(exc: BaseException) -> str:
    """``TypeError: message (at shell.py:123 in render)``: a failure in one log line, where it
    was raised."""
    import traceback

    where = ""
    frames = traceback.extract_tb(exc.__traceback__)
    if frames:
        last = frames[-1]
        where = f" (at {Path(last.filename).name}:{last.lineno} in {last.name})"
    return f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}{where}"


def _gone(exc: BaseException) -> bool:
    from .web import is_gone

    return is_gone(exc)


def make_main(ctx: AppContext) -> Callable[[ft.Page], Any]:
    def main(page: ft.Page) -> None:
        app = App(page, ctx)
        page.data = app
        ctx.add_session(app)
        app.render()
        if ctx.settings_store.problem:
            app.show_error(ctx.settings_store.problem)

    return main


def log_to_stderr() -> None:
    """``$CHICKENFOOT_LOG`` (e.g. ``INFO``) writes what the app does (rounds saved, by which
    device) to standard error."""
    level = os.environ.get("CHICKENFOOT_LOG")
    if level:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
        ours = logging.getLogger("chickenfoot")
        ours.addHandler(handler)
        ours.setLevel(level.upper())


def run_desktop(ctx: AppContext) -> None:
    """Open the app in a desktop window; blocks until it is closed."""
    ft.run(make_main(ctx), view=ft.AppView.FLET_APP, no_cdn=True)


def web_app(ctx: AppContext, *, port: int, loopback_only: bool, code: str | None,
            join_key: str | None = None, devices: Any = None) -> Any:
    """The ASGI app browsers get: Flet's web app behind the table's gate (see :mod:`.web`);
    ``devices`` the joined devices kept beside the file (with the key their cookies are signed
    with), else a list with a key of its own for this run."""
    import socket as _socket

    from .web import TableGate, flet_app

    names = (_socket.gethostname(), _socket.gethostname() + ".local")
    gate = TableGate(flet_app(make_main(ctx)), port=port, loopback_only=loopback_only, code=code,
                     names=names, uploads=ctx.uploads, join_key=join_key, devices=devices)
    if code is not None:
        ctx.table_devices = gate.devices
        gate.devices.on_change = ctx.devices_changed
        def renew() -> tuple[str, str]:
            new = gate.new_code()
            # whoever reads the terminal is told too: the code and QR code printed there are old
            print(f"  new table code: {new} (the one printed above and its QR code no longer work; "
                  "Invite a phone shows the new QR code)", flush=True)
            assert gate.join_key is not None
            return new, gate.join_key

        ctx.renew_code = renew
    return gate
