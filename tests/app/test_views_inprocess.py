"""Every screen built in-process over a real scorekeeper file, no browser: each route renders,
shows what the state objects say, and its handlers work when called directly."""

from __future__ import annotations

import asyncio
import inspect
import json
import re
import time
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import flet as ft
import pytest

from chickenfoot.app.kit import image_bytes
from chickenfoot.app.shell import App, AppContext


class _PubSub:
    def __init__(self) -> None:
        self.sent: list[tuple[str, Any]] = []

    def subscribe_topic(self, topic: str, handler: Any) -> None:
        self.handler = handler

    def send_others_on_topic(self, topic: str, message: Any) -> None:
        self.sent.append((topic, message))


class FakePage:
    """Just what the shell touches on a page: enough to build and inspect screens."""

    def __init__(self) -> None:
        self.pubsub = _PubSub()
        self.controls: list[Any] = []
        self.route = "/"
        self.web = True
        self.width = 400
        self.platform_brightness: Any = None  # the client says it once connected (Flet's default)
        self.updates = 0
        self.dialogs: list[Any] = []
        self.pushed: list[str] = []
        self.tasks: list[Any] = []

    def update(self, *_: Any) -> None:
        self.updates += 1

    def show_dialog(self, d: Any) -> None:
        d.open = True  # as Flet's own does
        self.dialogs.append(d)

    async def push_route(self, route: str) -> None:
        self.pushed.append(route)
        self.route = route

    def run_task(self, fn: Any, *args: Any) -> None:  # navigation: follow it at once
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            asyncio.run(fn(*args))
            return
        self.tasks.append(loop.create_task(fn(*args)))  # from an async handler: run beside it


def _texts(c: Any, out: list[str] | None = None) -> list[str]:
    """Every string shown under control ``c`` (Text values, button captions, labels)."""
    out = [] if out is None else out
    if isinstance(c, list | tuple):
        for x in c:
            _texts(x, out)
        return out
    if isinstance(c, ft.Text) and c.value:
        out.append(c.value)
    for attr in ("content", "controls", "title", "leading", "actions", "rows", "cells", "columns",
                 "label"):
        v = getattr(c, attr, None)
        if isinstance(v, str) and attr == "label":
            out.append(v)
        elif v is not None and not isinstance(v, str | int | float | bool):
            _texts(v, out)
    return out


def _is_face(b: Any) -> bool:
    """A domino face's button: the face's picture, its numbers under it."""
    content = getattr(b, "content", None)
    return isinstance(content, ft.Column) and isinstance(content.controls[0], ft.Image)


def _caption(b: Any) -> str | None:
    """A button's name: its text, or a domino face's accessible name ("3-4", "0-0 = 50")."""
    content = getattr(b, "content", None)
    if isinstance(content, ft.Text):
        return content.value
    if _is_face(b):
        return content.controls[1].semantics_label
    return None


def _buttons(c: Any, out: list[Any] | None = None) -> list[Any]:
    out = [] if out is None else out
    if isinstance(c, list | tuple):
        for x in c:
            _buttons(x, out)
        return out
    if getattr(c, "on_click", None) is not None and _caption(c) is not None:
        out.append(c)
    for attr in ("content", "controls", "rows", "cells"):
        v = getattr(c, attr, None)
        if v is not None and not isinstance(v, str | int | float | bool):
            _buttons(v, out)
    return out


@pytest.fixture
def app(tmp_path) -> Iterator[App]:
    ctx = AppContext(tmp_path / "matches.json")
    page = FakePage()
    a = App(page, ctx)  # type: ignore[arg-type]
    yield a
    ctx.store.close()


def _go(app: App, route: str) -> list[str]:
    app.page.route = route
    app.render()
    return _texts(app.page.controls) + _texts(app.page.appbar)


def _click(app: App, caption: str, nth: int = 0) -> None:
    hits = [b for b in _buttons(app.page.controls) if _caption(b) == caption]
    assert len(hits) > nth, f"no button {caption!r}"
    result = hits[nth].on_click(None)
    if inspect.iscoroutine(result):  # an async handler (Photo, file dialogs): run it to its end
        asyncio.run(result)



def _review_in_draft(app: App, m: Any, seat: int, size: tuple[int, int], tiles: list[Any], *more: Any,
                     fmt: str = "PNG", **kw: Any) -> Any:
    """A plain photo of ``size`` kept by the store, and its review (``tiles`` read; ``more`` and
    ``kw`` as :class:`PhotoReview` takes them after the photo) put in the round draft on screen
    for hand ``seat``. Returns the match session it was stored through."""
    import io

    from PIL import Image

    from chickenfoot.app.match_session import MatchSession
    from chickenfoot.app.photo_review import PhotoReview

    buf = io.BytesIO()
    Image.new("RGB", size, (20, 90, 40)).save(buf, format=fmt)
    app.ctx.store.put_photo(buf.getvalue())
    review = PhotoReview(m.rules, m.set_top, tiles, size, buf.getvalue(), *more, **kw)
    ms = MatchSession(app.ctx.store, m.id)
    ms.change(app.session.state.draft, lambda c: c.reviews.__setitem__(seat, review))
    return ms


def test_every_static_screen_renders(app: App) -> None:
    assert "New match" in " ".join(_go(app, "/"))
    assert any("Chickie Sixes" in t for t in _go(app, "/rules"))
    assert "Theme" in _go(app, "/settings")
    assert "No matches yet." in _go(app, "/history")
    assert any("No matches yet" in t for t in _go(app, "/stats"))
    assert "Which double is in the centre (the hub)?" in _go(app, "/dispute")
    assert "Cannot show this" in _go(app, "/nowhere")
    assert "Cannot show this" in _go(app, "/match/0123456789abcdef")


def test_each_open_in_the_history_is_named_by_whose_match_it_opens(app: App) -> None:
    """The buttons all read "Open"; a screen reader hears whose match each opens (on the web a
    tooltip is not read out)."""
    app.ctx.store.create(["Ann", "Bob"], "gameweave", {})
    app.ctx.store.create(["Cy", "Di", "Ed"], "gameweave", {})
    _go(app, "/history")
    opens = [b for b in _buttons(app.page.controls) if _caption(b) == "Open"]
    assert sorted(b.content.semantics_label for b in opens) == [
        "Open the match of Ann, Bob", "Open the match of Cy, Di, Ed"]


def test_each_seats_ways_in_and_each_suit_are_named_for_a_screen_reader(app: App) -> None:
    """Every seat's four buttons read "Went out", "Number", "Tiles", "Photo": a screen reader
    hears whose each is and which one is in use, the suits which suit is shown."""
    m = app.ctx.store.create(["Ann", "Bob"], "double-chicken-foot", {})
    _go(app, f"/match/{m.id}/round")

    def names(caption: str) -> list[str]:
        return [b.content.semantics_label for b in _buttons(app.page.controls) if _caption(b) == caption]

    assert names("Went out") == ["Went out: Ann", "Went out: Bob"]
    # the pad is open on Ann's hand: her Number is the one in use
    assert names("Number") == ["Number: Ann's points, chosen", "Number: Bob's points"]
    assert names("Photo") == ["Photo: Ann's hand", "Photo: Bob's hand"]
    _click(app, "Tiles", 1)
    assert names("Tiles") == ["Tiles: Ann's tiles", "Tiles: Bob's tiles, chosen"]
    assert names("9") == ["Tiles with a 9, shown"] and names("8") == ["Tiles with an 8"]
    _go(app, f"/match/{m.id}")
    _click(app, "Rename a player")
    assert names("Rename") == ["Rename seat 1", "Rename seat 2"]


def test_holder_rules_brief_records_who_holds_the_double(app: App) -> None:
    m = app.ctx.store.create(["Ann", "Bob", "Cy"], "gameweave", {})
    texts = _go(app, f"/match/{m.id}/brief")
    assert "Who holds (or found) 9-9?" in texts
    assert ("If nobody holds 9-9, players draw one tile each in turn until someone finds it; "
            "that player puts it down.") in texts
    _click(app, "Bob")
    assert app.ctx.store.get(m.id).pending_holder == 1
    assert app.page.pubsub.sent == [("chickenfoot-match", m.id)]
    texts = _go(app, f"/match/{m.id}")
    assert "Bob places 9-9; Cy plays first." in texts


def test_round_entry_handlers_save_a_round_and_the_match_ends(app: App) -> None:
    m = app.ctx.store.create(["Ann", "Bob"], "double-chicken-foot", {"match_length": "single"})
    texts = _go(app, f"/match/{m.id}/round")
    assert "Round 1 · 9-9 · Ann starts" in texts and "9-9 is on the table, in nobody's hand" in texts
    assert "Ann: … points" in texts  # the pad is open on the first hand at once
    _click(app, "Went out", 0)
    assert "Bob: … points" in _texts(app.page.controls)  # ... and moves on by itself
    for k in "42":
        _click(app, k)
    texts = _texts(app.page.controls)
    assert "42 points" in texts and "Every hand is in: ready to save" in texts
    save = next(b for b in _buttons(app.page.controls) if _caption(b) == "Save round 1")
    save.on_click(None)
    save.on_click(None)  # a double tap
    assert app.page.pushed[-1] == f"/match/{m.id}" and len(app.ctx.store.get(m.id).rounds) == 1
    texts = _go(app, f"/match/{m.id}")
    assert "Match over" in texts and "Winner: Ann with 0" in texts
    # told on the scoreboard, with its Undo there (not only at the scoreboard's foot)
    saved = [d for d in app.page.dialogs if isinstance(d, ft.SnackBar) and d.content.value == "Round 1 saved"]
    assert len(saved) == 1 and saved[0].open and saved[0].action.label == "Undo"
    saved[0].action.on_click(None)
    assert app.ctx.store.get(m.id).rounds == ()
    note = app.page.dialogs[-1]
    assert note.content.value == "Undone: round 1 added" and not saved[0].open
    note.action.on_click(None)  # Redo
    assert len(app.ctx.store.get(m.id).rounds) == 1
    texts = _go(app, f"/match/{m.id}")
    assert "Tie-break: lowest total wins; equal lowest totals are a draw." in texts
    # undo asks first ("Keep it" where Undo was: a double tap takes nothing back) ...
    _click(app, "Undo: round 1 added")
    assert len(app.ctx.store.get(m.id).rounds) == 1 and "Undo round 1 added?" in _texts(app.page.controls)
    _click(app, "Keep it")
    assert len(app.ctx.store.get(m.id).rounds) == 1
    _click(app, "Undo: round 1 added")
    _click(app, "Undo it")  # ... brings the round back to be played, and offers its own undo
    assert app.ctx.store.get(m.id).rounds == ()
    snack = app.page.dialogs[-1]
    assert isinstance(snack, ft.SnackBar) and snack.content.value == "Undone: round 1 added"
    assert snack.action.label == "Redo" and snack.persist is False  # it goes by itself
    # redone from the scoreboard instead: the note's Redo would now take back nothing, and the
    # note would lie over the next screen's buttons: the redraw closes it
    _click(app, "Redo: round 1 added")
    assert len(app.ctx.store.get(m.id).rounds) == 1 and not snack.open
    _click(app, "Undo: round 1 added")
    _click(app, "Undo it")
    snack = app.page.dialogs[-1]
    assert snack.open and snack.content.value == "Undone: round 1 added"
    snack.action.on_click(None)
    assert len(app.ctx.store.get(m.id).rounds) == 1
    _go(app, f"/match/{m.id}/round/1")  # another screen: no note from the last one
    assert not any(d.open for d in app.page.dialogs if isinstance(d, ft.SnackBar) and d.action)


def test_settings_handlers_persist(app: App, tmp_path) -> None:
    from chickenfoot.app.settings import SettingsStore

    app.ctx.save_settings(app.settings.with_(theme="dark", large_text=True))
    app.apply_settings()
    assert app.page.theme_mode == ft.ThemeMode.DARK and app.fs(10) == 13.0
    assert SettingsStore(tmp_path / "matches-settings.json").load().large_text


def test_a_change_from_another_process_reaches_open_screens(app: App, tmp_path) -> None:
    from chickenfoot.app.store import MatchStore

    m = app.ctx.store.create(["Ann", "Bob"], "double-chicken-foot", {})
    app.ctx.check_external_changes()  # our own write: screens already know
    app.ctx.sessions.add(app)
    assert "1. Bob: 0" in _go(app, f"/match/{m.id}")
    cli = MatchStore.open(tmp_path / "matches.json")  # e.g. `chickenfoot match add` meanwhile
    try:
        cli.update(m.id, lambda x: x.add_round(penalties={"Bob": 9}, out="Ann"))
    finally:
        cli.close()
    before = app.page.updates
    assert app.ctx.check_external_changes()
    assert app.page.updates > before
    assert "2. Bob: 9" in _texts(app.page.controls)
    assert not app.ctx.check_external_changes()


def test_two_devices_share_one_round_entry_and_a_save_elsewhere_is_said(app: App) -> None:
    phone = App(FakePage(), app.ctx)  # type: ignore[arg-type]
    watcher = App(FakePage(), app.ctx)  # type: ignore[arg-type]
    m = app.ctx.store.create(["Ann", "Bob"], "double-chicken-foot", {})
    for a in (app, phone, watcher):
        _go(a, f"/match/{m.id}/round")
    _click(app, "Went out", 0)
    assert app.page.pubsub.sent[-1] == ("chickenfoot-match", {"entry": m.id})
    phone._on_remote_change("chickenfoot-match", {"entry": m.id})
    assert "went out: 0" in _texts(phone.page.controls)
    _click(phone, "Number", 1)
    _click(phone, "7")
    assert "7 points" in _go(app, f"/match/{m.id}/round")
    # both press Save at about the same moment: one round is stored
    _click(app, "Save round 1")
    _click(phone, "Save round 1")
    assert app.ctx.store.get(m.id).totals() == [0, 7] and len(app.ctx.store.get(m.id).rounds) == 1
    texts = _texts(phone.page.controls)
    assert "Round 1 was saved on another device" in texts
    assert "Ann: went out" in texts and "Bob: 7" in texts
    assert not [b for b in _buttons(phone.page.controls) if str(_caption(b)).startswith("Save round")]
    assert not any(t.endswith("points") and ":" in t and "…" in t for t in texts)  # no open pad
    # a device that only watched hears of it too (the scoreboard's message), never round 2's pad
    watcher._on_remote_change("chickenfoot-match", m.id)
    assert "Round 1 was saved on another device" in _texts(watcher.page.controls)
    _click(phone, "Enter round 2")
    assert "Round 2 · 8-8 · Bob starts" in _texts(phone.page.controls)


def test_a_pad_left_open_on_a_hand_entered_on_another_device_moves_on_and_types_over_nothing(app: App) -> None:
    """Phone A's pad is open on Ann while phone B picks Ann's tiles: A's next key must not
    replace them. A's pad moves to the next hand still to enter and says why."""
    phone = App(FakePage(), app.ctx)  # type: ignore[arg-type]
    m = app.ctx.store.create(["Ann", "Bob", "Cy"], "double-chicken-foot", {})
    _go(app, f"/match/{m.id}/round")
    assert "Ann: … points" in _texts(app.page.controls)  # A's pad opens on Ann
    _go(phone, f"/match/{m.id}/round")
    _click(phone, "Tiles", 0)
    _click(phone, "3")
    _click(phone, "3-4")
    app._on_remote_change("chickenfoot-match", {"entry": m.id})
    texts = _texts(app.page.controls)
    assert "7 points (3-4)" in texts
    assert "Ann's hand was entered on another device: this pad moved on, so it types over nothing." in texts
    assert "Bob: … points" in texts
    _click(app, "2")
    from chickenfoot.app.match_session import MatchSession

    ms = MatchSession(app.ctx.store, m.id)
    entry = ms.content(ms.draft(app.session.state.draft)).entry
    assert entry.penalty(0) == 7 and [str(t) for t in entry.hands[0].tiles] == ["3-4"] and entry.penalty(1) == 2
    # a change elsewhere to another hand leaves this pad where it is
    _click(phone, "Went out", 2)
    app._on_remote_change("chickenfoot-match", {"entry": m.id})
    assert "Bob: 2 points" in _texts(app.page.controls)


def test_a_restart_keeps_the_round_being_entered_and_an_unconfirmed_photo(tmp_path) -> None:


    from chickenfoot.vision.geometry import OrientedBox
    from chickenfoot.vision.reading import TileReading

    ctx = AppContext(tmp_path / "matches.json")
    a = App(FakePage(), ctx)  # type: ignore[arg-type]
    m = ctx.store.create(["Eve", "Fay", "Gus"], "double-chicken-foot", {})
    _go(a, f"/match/{m.id}/round")
    _click(a, "Went out", 0)
    _click(a, "2")
    _click(a, "0")
    _review_in_draft(a, m, 2, (200, 100), [TileReading(9, 9, 0.9, OrientedBox(32.5, 22.5, 55, 35, 0.0)),
                                           TileReading(1, 2, 0.9, OrientedBox(110, 22.5, 60, 35, 0.0))])
    ctx.store.close()  # the server stops (a crash leaves the same file: every change is written at once)

    again = AppContext(tmp_path / "matches.json")
    try:
        b = App(FakePage(), again)  # type: ignore[arg-type]
        texts = _go(b, f"/match/{m.id}/round")
        assert "went out: 0" in texts and "20 points" in texts
        _click(b, "Photo", 2)
        texts = _texts(b.page.controls)
        assert "Penalty from this photo: 21 points (2 tiles)" in texts
        # the round's double read in a hand: said at the hand, and the tiles cannot be used
        assert any(t.startswith("Tile 1 reads 9-9, the double on the table") for t in texts)
        use = next(x for x in _buttons(b.page.controls) if _caption(x) == "Use these tiles (21 points)")
        assert use.disabled
        _click(b, "1: 9-9")
        _click(b, "Remove tile 1")
        _click(b, "Use these tiles (3 points)")
        _click(b, "Save round 1")
        assert again.store.get(m.id).totals() == [0, 20, 3]
    finally:
        again.store.close()


def test_round_entry_offers_the_opening_double_when_the_rules_allow(app: App) -> None:
    from chickenfoot.app.match_session import MatchSession

    m = app.ctx.store.create(["Ann", "Bob"], "chickie-sixes", {})
    texts = _go(app, f"/match/{m.id}/round")
    assert "Nobody held 6-6? Which double opened the round:" in texts
    _click(app, "5-5")
    ms = MatchSession(app.ctx.store, m.id)
    content = ms.content(ms.draft(app.session.state.draft))
    assert content.entry.started_with == 5
    assert "5-5 is on the table, in nobody's hand" in _texts(app.page.controls)


def test_tiles_are_picked_by_suit_without_the_double_on_the_table(app: App) -> None:
    m = app.ctx.store.create(["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus"], "double-chicken-foot", {})
    _go(app, f"/match/{m.id}/round")
    _click(app, "Tiles", 1)
    captions = [_caption(b) for b in _buttons(app.page.controls)]
    assert [str(n) for n in range(12, -1, -1)] == [c for c in captions if c.isdigit()][:13]
    assert "12-12" not in captions and "11-12" in captions  # 12-12 is on the table
    assert sum("-" in c for c in captions) == 12  # one suit at a time: a phone sees it all
    _click(app, "0")
    _click(app, "0-0 = 50")
    _click(app, "0-3")
    texts = _texts(app.page.controls)
    assert "53 points (0-0 = 50, 0-3)" in texts
    assert any(t.startswith("Bob's hand: 0-0 = 50, 0-3. Penalty: 53") for t in texts)
    _click(app, "0-0 = 50")  # again: taken back
    assert "3 points (0-3)" in _texts(app.page.controls)


def _rename_seat_2(app: App, mid: str, name: str) -> None:
    _go(app, f"/match/{mid}")
    _click(app, "Rename a player")
    field = _find(app.page.controls, ft.TextField, lambda c: c.label == "Name of seat 2")[0]
    field.value = name
    _click(app, "Rename", 1)


def test_manage_a_match_rename_abandon_and_delete_with_confirmation(app: App) -> None:
    m = app.ctx.store.create(["Ann", "Bob"], "double-chicken-foot", {})
    _rename_seat_2(app, m.id, "Robert")
    assert app.ctx.store.get(m.id).players == ("Ann", "Robert")
    _click(app, "Done renaming")
    _click(app, "Abandon match")
    assert "Abandon this match? It stays in the history and can be resumed later." in _texts(app.page.controls)
    _click(app, "Keep playing")
    assert not app.ctx.store.get(m.id).abandoned
    _click(app, "Abandon match")
    _click(app, "Abandon the match")
    assert app.ctx.store.get(m.id).abandoned and "This match was abandoned." in _texts(app.page.controls)
    _click(app, "Delete match")
    assert any(t.startswith("Delete this match for good? Its 0 rounds") for t in _texts(app.page.controls))
    _click(app, "Keep it")
    assert len(app.ctx.store.all()) == 1
    _click(app, "Delete match")
    _click(app, "Delete for good")
    assert app.ctx.store.all() == [] and app.page.pushed[-1] == "/"


def test_an_error_stays_on_its_screen_and_not_on_the_next(app: App) -> None:
    _go(app, "/new")
    for name in ("Ann", "ann"):
        field = _find(app.page.controls, ft.TextField, lambda c: c.label == "Player name")[0]
        field.value = name
        field.on_submit(None)
    said = "There is already a player called Ann"
    assert said in _texts(app.page.controls) and "Dismiss the message" in _labels(app.page.controls)
    assert not app.page.dialogs  # not a toast that vanishes after a few seconds
    assert said in _go(app, "/new")  # a redraw keeps it
    assert said not in _go(app, "/")  # another screen does not show it


def test_a_refused_rename_is_said_under_its_field_and_the_typed_name_kept(app: App) -> None:
    m = app.ctx.store.create(["Ann", "Bob"], "double-chicken-foot", {})
    _rename_seat_2(app, m.id, "ann ")
    field = _find(app.page.controls, ft.TextField, lambda c: c.label == "Name of seat 2")[0]
    assert field.error == "There is already a player called Ann" and field.value == "ann "
    assert app.session.error is None  # not the banner at the top of the page
    assert app.ctx.store.get(m.id).players == ("Ann", "Bob")
    field.value = "B" * 25
    _click(app, "Rename", 1)
    field = _find(app.page.controls, ft.TextField, lambda c: c.label == "Name of seat 2")[0]
    assert field.error == "Names are at most 24 characters" and field.max_length == 24
    assert _find(app.page.controls, ft.TextField, lambda c: c.label == "Name of seat 1")[0].error is None
    field.value = "Bea"
    _click(app, "Rename", 1)
    assert app.ctx.store.get(m.id).players == ("Ann", "Bea")
    assert _find(app.page.controls, ft.TextField, lambda c: c.label == "Name of seat 2")[0].error is None


def _labels(c: Any, out: list[str] | None = None) -> list[str]:
    """Accessible names given to icons and images (semantics labels, tooltips)."""
    out = [] if out is None else out
    if isinstance(c, list | tuple):
        for x in c:
            _labels(x, out)
        return out
    for attr in ("semantics_label", "tooltip", "label"):
        v = getattr(c, attr, None)
        if isinstance(v, str):
            out.append(v)
    for attr in ("content", "controls", "icon"):
        v = getattr(c, attr, None)
        if v is not None and not isinstance(v, str | int | float | bool):
            _labels(v, out)
    return out


def _find(c: Any, cls: type, pred: Any = lambda _c: True, out: list[Any] | None = None) -> list[Any]:
    out = [] if out is None else out
    if isinstance(c, list | tuple):
        for x in c:
            _find(x, cls, pred, out)
        return out
    if isinstance(c, cls) and pred(c):
        out.append(c)
    for attr in ("content", "controls"):
        v = getattr(c, attr, None)
        if v is not None and not isinstance(v, str | int | float | bool):
            _find(v, cls, pred, out)
    return out


def _event(value: Any) -> Any:
    from types import SimpleNamespace

    return SimpleNamespace(control=SimpleNamespace(value=value))


def test_new_match_screen_handlers(app: App) -> None:
    _go(app, "/new")
    for name in ("Ann", "Bob", "Cy"):
        field = _find(app.page.controls, ft.TextField, lambda c: c.label == "Player name")[0]
        field.value = name
        field.on_submit(None)
    # a name refused (taken) is said, and stays in the field to be fixed
    field = _find(app.page.controls, ft.TextField, lambda c: c.label == "Player name")[0]
    field.value = "bob"
    field.on_submit(None)
    assert "There is already a player called Bob" in _texts(app.page.controls)
    assert _find(app.page.controls, ft.TextField, lambda c: c.label == "Player name")[0].value == "bob"
    field = _find(app.page.controls, ft.TextField, lambda c: c.label == "Player name")[0]
    field.value = "Bob B"
    field.on_submit(None)
    assert _find(app.page.controls, ft.TextField, lambda c: c.label == "Player name")[0].value == ""
    _find(app.page.controls, ft.IconButton, lambda c: c.tooltip == "Remove Bob B")[0].on_click(None)
    preset = _find(app.page.controls, ft.Dropdown, lambda c: c.label == "Rules preset")[0]
    preset.on_select(_event("pagat"))
    texts = _texts(app.page.controls)
    assert "With 3 players: double-9 set (55 tiles), 7 tiles each, 10 rounds from 9-9 down to 0-0." in texts
    zero = _find(app.page.controls, ft.Dropdown, lambda c: c.label == "0-0 counts")[0]
    zero.on_select(_event("25"))
    assert any(t.endswith("(changed from the preset)") for t in _texts(app.page.controls))
    seat2 = _find(app.page.controls, ft.TextField, lambda c: c.label == "Seat 2")[0]
    seat2.value = "Bea"
    seat2.on_blur(None)
    _click(app, "Start match")
    m = app.ctx.store.all()[0]
    assert m.players == ("Ann", "Bea", "Cy") and m.rules.name == "pagat" and m.rules.zero_zero == 25
    assert app.page.pushed[-1] == f"/match/{m.id}/brief"


def test_options_a_dropdown_would_cut_are_a_radio_list_written_whole(app: App) -> None:
    """At 360 px an option's words too long for a dropdown ("Placed in the centre before the
    deal") are radio buttons, each written whole; short ones stay a dropdown; a tap on a row
    chooses it."""
    from chickenfoot.app.kit import fits_dropdown

    assert fits_dropdown(["50", "25", "0"], 284, 15)
    assert not fits_dropdown(["Placed in the centre before the deal"], 284, 15)
    app.page.width = 360
    _go(app, "/new")
    def titled(title: str) -> list[Any]:
        return _find(app.page.controls, ft.Column, lambda c: bool(c.controls) and isinstance(c.controls[0], ft.Text)
                     and c.controls[0].value == title)

    start = titled("Start")
    assert len(start) == 1 and _find(start, ft.RadioGroup) and not _find(start, ft.Dropdown)
    words = _texts(start)
    assert "Placed in the centre before the deal" in words and "Played by whoever holds it" in words
    assert _find(app.page.controls, ft.Dropdown, lambda c: c.label == "0-0 counts")  # short: a dropdown
    row = next(c for c in _find(start, ft.Container, lambda c: c.on_click is not None)
               if "Played by whoever holds it" in _texts(c))
    row.on_click(None)
    assert _find(titled("Start"), ft.RadioGroup)[0].value == "holder"
    assert any(t.endswith("(changed from the preset)") for t in _texts(app.page.controls))


def test_photo_review_asks_about_a_tile_and_counts_it_on_request(app: App) -> None:
    """A photo reading with a tile the reader asks about: the screen says so, the penalty leaves
    it out, and its row offers to count it (the reading itself comes from the reader, tested
    in tests/vision; here it is the review object the screen shows)."""


    from chickenfoot.vision.geometry import OrientedBox
    from chickenfoot.vision.reading import TileReading

    m = app.ctx.store.create(["Ann", "Bob"], "double-chicken-foot", {"match_length": "single"})
    _go(app, f"/match/{m.id}/round")
    draft_id = app.session.state.draft
    ms = _review_in_draft(app, m, 0, (300, 100), [
        TileReading(3, 4, 0.95, OrientedBox(50, 30, 80, 40, 0.0), False, 0.95, (1.0, 0.95)),
        TileReading(5, 6, 0.2, OrientedBox(200, 30, 80, 40, 0.0), False, 0.7, (0.5, 0.8),
                    question="Is this the 5-6?", reason="unsure tile"),
    ])
    _click(app, "Photo", 0)
    texts = _texts(app.page.controls)
    assert "Penalty from this photo: 7 points so far (1 tile), 1 tile to check" in texts
    # the tile the reader asks about is a row of its own with its question, why, and the answers
    asked = "Tile 2: Is this the 5-6? (among the hand's tiles, read too unsurely to count alone)"
    assert asked in texts and "Check this tile: it is not counted until you say." in texts
    assert {"Count it as 5-6", "Not a tile", "Another tile"} <= set(texts)
    _click(app, "Count it as 5-6")
    texts = _texts(app.page.controls)
    assert "Penalty from this photo: 18 points (2 tiles)" in texts and asked not in texts
    _click(app, "Use these tiles (18 points)")
    assert ms.content(ms.draft(draft_id)).entry.penalty(0) == 18


def test_photo_review_hides_unsure_finds_and_names_a_bigger_set(app: App) -> None:
    """Finds that are probably not tiles wait behind one line (a tap shows them); tiles of a
    bigger set than the match's are named with the set they fit and cannot be used as read."""


    from chickenfoot.vision.geometry import OrientedBox
    from chickenfoot.vision.reading import TileReading

    m = app.ctx.store.create(["Ann", "Bob"], "double-chicken-foot", {"match_length": "single"})
    _go(app, f"/match/{m.id}/round")
    _review_in_draft(app, m, 0, (400, 100), [
        TileReading(1, 10, 0.95, OrientedBox(50, 30, 80, 40, 0.0), False, 0.95, (1.0, 0.95)),
        TileReading(2, 3, 0.95, OrientedBox(150, 30, 80, 40, 0.0), False, 0.95, (1.0, 0.95)),
        TileReading(5, 5, 0.1, OrientedBox(250, 30, 80, 40, 0.0), True, 0.31, (0.5, 0.6), uncounted="unsure"),
        TileReading(0, 0, 0.6, OrientedBox(350, 30, 80, 40, 0.0), True, 0.6, (1.0, 0.6), not_pips=0.95,
                    uncounted="not pips"),
    ], 16, ("2 possible tiles look like print or a back, not pips: not counted; add any that is a tile",),
        fmt="JPEG", read_as=12)
    _click(app, "Photo", 0)
    texts = _texts(app.page.controls)
    assert "Penalty from this photo: 16 points (2 tiles), 1 tile not in the double-9 set" in texts and "2 unsure finds: show" in texts
    assert not any("print or a back" in t for t in texts) and not any(t.startswith("3: ") for t in texts)
    assert any(t.startswith("Tile 1 (1-10) is not in the double-9 set this match plays; the tiles read fit a "
                            "double-12 set.")
               for t in texts)
    assert "Read it as double-9" in texts
    (use,) = [b for b in _buttons(app.page.controls) if b.content.value == "Use these tiles (16 points)"]
    assert use.disabled
    _click(app, "2 unsure finds: show")
    texts = _texts(app.page.controls)
    assert "2 unsure finds shown in grey: hide" in texts and "Tile 3 may be 5-5 (unsure find)" in texts
    _click(app, "2 unsure finds shown in grey: hide")
    assert "2 unsure finds: show" in _texts(app.page.controls)


def test_the_reader_is_warmed_once_in_the_background(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import time

    from chickenfoot.app.shell import AppContext
    from chickenfoot.vision.config import MODELS_DIR

    if not (MODELS_DIR / "reader.json").exists():
        pytest.skip("no shipped reader models (models/reader.json)")
    ctx = AppContext(tmp_path / "m.json")
    try:
        ctx.warm_reader()
        ctx.warm_reader()  # once per process
        deadline = time.monotonic() + 60
        while ctx._reader is None and time.monotonic() < deadline:
            time.sleep(0.05)
        first = ctx._reader
        assert first is not None and ctx.reader() is first
    finally:
        ctx.store.close()


# ------------------------------------------------------------ dispute checker: table photo
def _photo_bytes() -> bytes:
    from pathlib import Path

    return (Path(__file__).parents[1] / "data" / "table.jpg").read_bytes()


def _picks(app: App, *files: tuple[str, bytes | None]) -> None:
    """The file picker hands over these files, one per pick (the browser's dialog is not here)."""
    queue = list(files)

    async def pick_one(title: str, extensions: list[str] | None = None) -> tuple[str, bytes | None] | None:
        assert extensions is None  # an image picker
        return queue.pop(0) if queue else None

    app.pick_one = pick_one  # type: ignore[method-assign]


def _aclick(app: App, caption: str) -> None:
    """Click a button whose handler is async (file dialogs), and wait for it."""
    import asyncio

    hits = [b for b in _buttons(app.page.controls) if _caption(b) == caption]
    assert hits, f"no button {caption!r}"
    asyncio.run(hits[0].on_click(None))


def _photo_image(app: App) -> Any:
    imgs = _find(app.page.controls, ft.Semantics, lambda c: str(c.label).startswith("Photo of the table"))
    return _find(imgs[0], ft.Image)[0] if imgs else None


def test_dispute_reads_the_table_from_a_photo(app: App) -> None:
    """The rendered table photo (tests/data/table.jpg) and the real shipped reader: the screen
    shows the annotated photo, the table read from it, what to check; undo is named or off; a
    broken file leaves the table as it was."""
    from chickenfoot.vision.config import MODELS_DIR

    if not (MODELS_DIR / "reader.json").exists():
        pytest.skip("no shipped reader models (models/reader.json)")
    photo = _photo_bytes()
    assert "Which double is in the centre (the hub)?" in _go(app, "/dispute")
    _picks(app, ("table.jpg", photo))
    _aclick(app, "Read the table from a photo")
    texts = _texts(app.page.controls)
    assert any(t.startswith("From the photo:") and t.endswith("the hub is 3-3 with 14 tiles joined to it")
               for t in texts)
    assert "The hub has its spokes and no foot is open: any matching open end is fine." in texts
    assert "On the table (order of play unknown)" in texts
    assert not any("Problems with this table" in t for t in texts)
    img = _photo_image(app)
    assert isinstance(img, ft.Image) and image_bytes(img).startswith(b"\xff\xd8")  # a JPEG
    assert "Check on the photo" not in texts  # read cleanly: nothing to check (hand-scoring notes left out)
    snack = app.page.dialogs[-1]
    assert isinstance(snack, ft.SnackBar) and snack.content.value == "Read the table from table.jpg"
    b = app.drafts.dispute
    assert b.layout.hub.is_double and len(b.layout.plays) == 14
    # undo has nothing of the player's to take back; photo tiles are fixed by name
    undo = [x for x in _buttons(app.page.controls) if _caption(x) == "Take back last tile"]
    assert undo and undo[0].disabled
    assert "Correct it" in texts and "Remove it" in texts
    field = _find(app.page.controls, ft.TextField, lambda c: c.label == "Tile on the table")[0]
    field.value = "3-8"
    _click(app, "Remove it")
    texts = _texts(app.page.controls)
    assert "The 3-3 still needs 1 spoke before anything else." in texts
    assert "Problems with this table" in texts
    assert any(t == "Removed by hand: 3-8" for t in texts)
    # the existing flow on the photo's table: open end, ask, add, take back that tile
    _click(app, "8 on 5-8, closed for now")  # the 3-3 is a spoke short now
    tile = _find(app.page.controls, ft.TextField, lambda c: c.label == "Tile, e.g. 4-7")[0]
    tile.value = "8-8"
    tile.on_change(_event("8-8"))  # what typing does: the screen keeps it across redraws
    _click(app, "Can it go on the 5-8?")
    assert any(t.startswith("No. ") for t in _texts(app.page.controls))
    _click(app, "It is on the table anyway: add it")
    _click(app, "Take back 8-8")
    assert len(b.layout.plays) == 13

    # a broken file: a clear message, said once, and the table is as it was
    before = b.layout
    _picks(app, ("broken.jpg", photo[: len(photo) // 2]))
    _aclick(app, "Read the table from a photo")
    texts = _texts(app.page.controls)
    assert any(t.startswith("Could not read the photo: broken.jpg: image file is truncated")
               and t.endswith("The table is unchanged.") for t in texts)
    # said on the screen, not in a toast that vanishes
    assert not any("broken.jpg" in str(getattr(d.content, "value", "")) for d in app.page.dialogs)
    assert b.layout is before and _photo_image(app) is not None
    _picks(app, ("notes.txt", b"not a photo"))
    _aclick(app, "Read the table from a photo")
    assert any(t.startswith("Could not read the photo: notes.txt: not an image")
               for t in _texts(app.page.controls))
    assert b.layout is before
    texts = _go(app, "/dispute")  # a redraw: the message stays until the next action here
    assert any(t.startswith("Could not read the photo: notes.txt") for t in texts)
    # a cancelled dialog does nothing (and the message has been read: it goes)
    _picks(app)
    _aclick(app, "Read the table from a photo")
    assert b.layout is before
    assert not any(t.startswith("Could not read the photo") for t in _go(app, "/dispute"))
    _picks(app, ("notes.txt", b"not a photo"))
    _aclick(app, "Read the table from a photo")
    assert any(t.startswith("Could not read the photo") for t in _texts(app.page.controls))
    _go(app, "/rules")  # another screen: the message belongs to the dispute checker
    assert not any(t.startswith("Could not read the photo") for t in _go(app, "/dispute"))

    # a table with tiles is not thrown away by one tap
    _click(app, "New table")
    assert b.layout is before and any(t.startswith("Start a new table? The 14 tiles laid on this one are not kept")
                                      for t in _texts(app.page.controls))
    _click(app, "Keep this table")
    assert b.layout is before and not any(t.startswith("Start a new table?") for t in _texts(app.page.controls))
    _click(app, "New table")
    _click(app, "Start a new table")
    assert b.layout is None
    # a named hub the photo does not show: the guess is taken and the screen says so
    _click(app, "9-9")
    _picks(app, ("table.jpg", photo))
    _aclick(app, "Read the table from a photo")
    texts = _texts(app.page.controls)
    assert any(t.startswith("No 9-9, the hub named, was read in the photo; took the 3-3 as the hub instead") for t in texts)
    assert b.layout.hub.low == 3 and len(b.layout.plays) == 14


def test_check_the_table_opens_the_dispute_checker_on_this_round(app: App) -> None:
    """From the scoreboard: the dispute checker with the match's own rules (options too), its set
    and this round's double as the hub, so a photo of the table is read around it."""
    m = app.ctx.store.create(["Ann", "Bob", "Cy", "Dee"], "pagat", {"toes": 2})
    _go(app, f"/match/{m.id}")
    _click(app, "Check the table")
    assert app.page.route == "/dispute"
    b = app.drafts.dispute
    assert b.rules.toes == 2 and b.rules.name == "pagat"  # the match's rules, its option kept
    assert b.top == 9 and b.layout is not None and str(b.layout.hub) == "9-9"
    assert str(b.named_hub) == "9-9"
    texts = _go(app, "/dispute")
    assert "The 9-9 still needs 4 spokes before anything else." in texts
    b.set_rules("double-chicken-foot")  # another preset chosen on the screen: its own rules
    assert b.rules.toes == 3


# ------------------------------------------------------------ dispute checker: the board
def test_dispute_draws_the_table_and_a_tap_on_the_drawing_chooses_the_open_end(app: App) -> None:
    from types import SimpleNamespace

    from chickenfoot.rules import Tile

    _go(app, "/dispute")
    _click(app, "9-9")
    b = app.drafts.dispute
    for t in ("9-4", "9-1"):
        b.add(t, "9-9")
    _go(app, "/dispute")
    sem = _find(app.page.controls, ft.Semantics, lambda c: str(c.label).startswith("The table drawn as a board"))
    assert len(sem) == 1
    assert "9-9 (hub) · 4-9 on 9-9 · 1-9 on 9-9" in sem[0].label and "Open ends: 9 on 9-9, 4 spokes to go" in sem[0].label
    img = _find(sem, ft.Image)[0]
    assert image_bytes(img).startswith(b"\x89PNG")
    pic = b.picture()
    # shown no wider than the phone (400 px page less padding), in the drawing's proportions
    assert img.width <= 372 and abs(img.width / img.height - pic.size[0] / pic.size[1]) < 0.02
    assert _find(sem, ft.InteractiveViewer)
    gesture = _find(sem, ft.GestureDetector)[0]
    k = img.width / pic.size[0]
    m = next(m for m in pic.board.ends if m.end.target == Tile(1, 9))
    x, y = pic.to_pixels(m.spot.x, m.spot.y)
    gesture.on_tap_up(SimpleNamespace(local_position=SimpleNamespace(x=x * k, y=y * k)))
    assert b.selected == Tile(1, 9)
    # the question names the end as its chip and the drawing do (as it lies: "9-1")
    assert f"Can it go on the {b.end_name(Tile(1, 9))}?" in _texts(app.page.controls)
    gesture = _find(app.page.controls, ft.GestureDetector)[0]
    gesture.on_tap_up(SimpleNamespace(local_position=SimpleNamespace(x=1, y=1)))  # a corner
    assert any(t.startswith("That is not an open end") for t in _texts(app.page.controls))
    assert b.selected == Tile(1, 9)
    # a question is drawn in place, its verdict said once, in the sheet under the board, and in
    # the drawing's label
    b.ask("1-5")
    texts = _go(app, "/dispute")
    sem = _find(app.page.controls, ft.Semantics, lambda c: str(c.label).startswith("The table drawn as a board"))
    assert "Judged: 1-5 on 1-9: not legal." in sem[0].label
    ghost = b.picture().board.ghost
    assert ghost is not None and not ghost.legal and ghost.caption.endswith(": not legal.")  # drawn in place
    assert [t for t in texts if t.startswith("No. ")] == [f"No. {ghost.verdict.message}"]
    from chickenfoot.app.router import route_screen

    _title, body, _back, sheet = route_screen(app, "/dispute").view()
    assert f"No. {ghost.verdict.message}" in _texts(sheet) and f"No. {ghost.verdict.message}" not in _texts(body)


def test_a_loaded_layout_file_is_drawn_as_a_board(app: App) -> None:
    """Load layout file: the browser uploads the bytes (no path is opened); the table in the file
    is drawn, the file's judged question none, its open ends marked."""
    import asyncio
    from pathlib import Path

    raw = (Path(__file__).parents[2] / "docs" / "board.json").read_bytes()

    async def pick_one(title: str, extensions: list[str] | None = None) -> tuple[str, bytes] | None:
        assert extensions == ["json"]
        return "board.json", raw

    app.pick_one = pick_one  # type: ignore[method-assign]
    _go(app, "/dispute")
    hits = [b for b in _buttons(app.page.controls) if b.content.value == "Load layout file"]
    asyncio.run(hits[0].on_click(None))
    b = app.drafts.dispute
    sem = _find(app.page.controls, ft.Semantics, lambda c: str(c.label).startswith("The table drawn as a board"))
    assert sem and sem[0].label.startswith(f"The table drawn as a board: {b.layout.hub} (hub) · ")
    pic = b.picture()
    assert len(pic.board.pieces) == len(b.layout.plays) + 1 and pic.board.ghost is None
    assert image_bytes(_find(sem, ft.Image)[0]) == b.board_png()


def test_the_picker_shows_taken_tiles_refuses_them_and_moves_one_when_asked(app: App) -> None:
    m = app.ctx.store.create(["Ann", "Bob", "Cy"], "double-chicken-foot", {})
    _go(app, f"/match/{m.id}/round")
    _click(app, "Tiles", 0)
    _click(app, "3")
    _click(app, "3-4")
    assert "7 points (3-4)" in _texts(app.page.controls)
    _click(app, "Tiles", 1)
    _click(app, "3")
    faces = [b for b in _buttons(app.page.controls) if _is_face(b)]
    assert all(image_bytes(b.content.controls[0]).startswith(b"\x89PNG") and b.content.controls[0].width + 8 >= 48
               for b in faces)  # a 4 px padding round each face
    names = [_caption(b) for b in faces]
    assert "3-4, taken: Ann has it" in names and "3-4" not in names and "3-5" in names
    _click(app, "3-4, taken: Ann has it")  # refused, in words, nothing entered
    texts = _texts(app.page.controls)
    assert ("3-4 is already in Ann's hand, and a set has only one 3-4. Move it to Bob if it is really "
            "Bob's, or pick another tile.") in texts
    assert "7 points (3-4)" in texts and sum(t.startswith("not entered") for t in texts) == 2  # the round is unchanged
    _click(app, "Move 3-4 to Bob")
    texts = _texts(app.page.controls)
    assert "7 points (3-4)" in texts and sum(t.startswith("not entered") for t in texts) == 2  # Ann's hand is empty again
    assert "3-4 moved from Ann to Bob" in texts  # said above Save, not in a toast over it
    assert not any(t.startswith("3-4 is already") for t in texts)


def test_boards_and_faces_follow_the_dark_theme_chosen_or_the_devices_own(app: App) -> None:
    """Under the dark theme (chosen in settings, or the device's own under "system") the board
    and the tile faces are drawn on a dark table; under the light one on white."""
    import io

    from PIL import Image

    from chickenfoot.board import DARK

    dark = tuple(int(DARK.background[i:i + 2], 16) for i in (1, 3, 5))

    def corners() -> tuple[Any, Any]:
        _go(app, "/dispute")
        sem = _find(app.page.controls, ft.Semantics, lambda c: str(c.label).startswith("The table drawn as a board"))
        board = Image.open(io.BytesIO(image_bytes(_find(sem, ft.Image)[0]))).convert("RGB").getpixel((1, 1))
        faces = [c for c in _find(app.page.controls, ft.Image) if c.exclude_from_semantics]
        face = Image.open(io.BytesIO(image_bytes(faces[0]))).convert("RGB").getpixel((0, 0))
        return board, face

    _go(app, "/dispute")
    _click(app, "9-9")
    app.drafts.dispute.add("9-4", "9-9")
    assert app.settings.theme == "system" and app.page.platform_brightness is None
    assert corners() == ((255, 255, 255), (255, 255, 255))
    app.page.platform_brightness = ft.Brightness.DARK  # the device is dark: so is the board
    assert corners() == (dark, dark)
    app.ctx.save_settings(app.settings.with_(theme="light"))
    assert corners() == ((255, 255, 255), (255, 255, 255))
    app.ctx.save_settings(app.settings.with_(theme="dark"))
    app.page.platform_brightness = ft.Brightness.LIGHT
    assert corners() == (dark, dark)


def test_the_dispute_checker_chooses_a_tile_by_its_face(app: App) -> None:
    _go(app, "/dispute")
    _click(app, "9-9")
    _click(app, "8")
    names = [_caption(b) for b in _buttons(app.page.controls) if _is_face(b)]
    assert names[:3] == ["8-9", "8-8", "7-8"] and len(names) == 10
    end = next(c for c in map(_caption, _buttons(app.page.controls)) if str(c).startswith("9 on 9-9"))
    _click(app, end)
    _click(app, "8-9")  # chosen and asked at once: an open end is chosen
    assert any(t.startswith("Yes. ") for t in _texts(app.page.controls))
    _click(app, "Add to table")
    assert "8-9, on the table" in [_caption(b) for b in _buttons(app.page.controls)]


def test_a_photo_correction_to_a_taken_tile_is_refused_and_can_move_it(app: App) -> None:


    from chickenfoot.vision.geometry import OrientedBox
    from chickenfoot.vision.reading import TileReading

    m = app.ctx.store.create(["Eve", "Fay", "Gus"], "double-chicken-foot", {})
    _go(app, f"/match/{m.id}/round")
    _click(app, "Tiles", 0)
    _click(app, "5")
    _click(app, "5-6")  # Eve holds 5-6
    _review_in_draft(app, m, 1, (200, 100), [TileReading(5, 6, 0.9, OrientedBox(32.5, 22.5, 55, 35, 0.0)),
                                             TileReading(1, 2, 0.9, OrientedBox(110, 22.5, 60, 35, 0.0))])
    _click(app, "Photo", 1)
    texts = _texts(app.page.controls)
    # Fay's photo reads Eve's 5-6: said at the hand, and its tiles cannot be used yet
    assert any(t.startswith("Tile 1 reads 5-6, already in Eve's hand") for t in texts)
    assert next(x for x in _buttons(app.page.controls) if _caption(x) == "Use these tiles (14 points)").disabled
    _click(app, "1: 5-6")
    _click(app, "Remove tile 1")
    _click(app, "2: 1-2")  # the tile set aside before it keeps its number, and so does this one
    faces = [str(c).split(",")[0] for c in map(_caption, _buttons(app.page.controls)) if re.fullmatch(r"\d+-\d+(, .*)?", str(c))]
    assert "1-2" in faces and all("1" in f.split("-") for f in faces), faces  # opened on a suit of the tile as read
    _click(app, "5")
    _click(app, "5-6, taken: Eve has it")  # correcting it to Eve's tile: refused, in words
    texts = _texts(app.page.controls)
    assert any(t.startswith("5-6 is already in Eve's hand, and a set has only one 5-6. Move it to Fay")
               for t in texts)
    assert "Penalty from this photo: 3 points (1 tile)" in texts  # nothing changed yet
    _click(app, "Move 5-6 to Fay")  # the tile becomes 5-6, and Eve's hand (empty now) loses it
    texts = _texts(app.page.controls)
    assert "5-6 moved from Eve to Fay's photo" in texts
    assert "Penalty from this photo: 11 points (1 tile)" in texts and sum(t.startswith("not entered") for t in texts) == 3
    assert not any("already in Eve's hand" in t for t in texts)
    assert not next(x for x in _buttons(app.page.controls) if _caption(x) == "Use these tiles (11 points)").disabled


def test_a_table_photo_asks_before_replacing_a_typed_table(app: App) -> None:
    _go(app, "/dispute")
    _click(app, "9-9")
    b = app.drafts.dispute
    b.add("9-4", "9-9")
    _go(app, "/dispute")
    _click(app, "Read the table from a photo")  # no file dialog yet: it asks first
    question = "Reading a photo replaces the table typed here. Replace it?"
    assert question in _texts(app.page.controls)
    _click(app, "Keep this table")
    texts = _texts(app.page.controls)
    assert question not in texts and "9-9 (hub) · 4-9 on 9-9" in " ".join(texts)
    assert b.layout is not None and len(b.layout.plays) == 1  # the typed table is untouched


# ------------------------------------------------- a photo's reading is a proposal (issue 47)
def test_a_bare_table_photo_asks_and_stores_0_only_when_the_player_says_so(app: App) -> None:
    # a 0-0 counting nothing: the one rule under which a hand can be worth 0 without going out
    m = app.ctx.store.create(["Ann", "Bob"], "pagat", {"match_length": "single", "zero_zero": 0})
    _go(app, f"/match/{m.id}/round")
    draft_id = app.session.state.draft
    ms = _review_in_draft(app, m, 0, (300, 200), [], None, ("no face-up tiles found in the photo",))
    _go(app, f"/match/{m.id}/round")
    _click(app, "Photo", 0)
    texts = _texts(app.page.controls)
    assert "Penalty from this photo: nothing read" in texts and "No face-up tiles found in the photo" in texts
    # the photo is a thumbnail beside the headline; a tap shows it full screen, zoomable
    (thumb,) = _find(app.page.controls, ft.Semantics, lambda c: c.label == "Photo of Ann's hand: open it full screen")
    thumb.content.on_click(None)
    dialog = app.page.dialogs[-1]
    assert isinstance(dialog, ft.AlertDialog) and isinstance(dialog.content, ft.InteractiveViewer)
    assert [b.tooltip or _caption(b) for b in dialog.actions] == ["Zoom in", "Whole photo", "Close"]
    _click(app, "Use this photo")
    texts = _texts(app.page.controls)
    assert "Nothing was read in this photo: did Ann go out, or take another photo?" in texts
    assert sum(t.startswith("not entered") for t in texts) == 2  # asked: nothing became a number
    assert ms.content(ms.draft(draft_id)).entry.penalty(0) is None
    _click(app, "Keep 0 points for Ann")  # the player says so
    assert ms.content(ms.draft(draft_id)).entry.penalty(0) == 0
    assert "0 points (no tiles)" in _texts(app.page.controls)


def test_a_bare_table_photo_answered_went_out_marks_the_player_out(app: App) -> None:
    m = app.ctx.store.create(["Ann", "Bob"], "pagat", {"match_length": "single"})
    _go(app, f"/match/{m.id}/round")
    _review_in_draft(app, m, 0, (300, 200), [])
    _go(app, f"/match/{m.id}/round")
    _click(app, "Photo", 0)
    _click(app, "Use this photo")
    assert not [b for b in _buttons(app.page.controls) if _caption(b) == "Keep 0 points for Ann"]  # the 0-0 counts
    _click(app, "Ann went out")
    texts = _texts(app.page.controls)
    assert "went out: 0" in texts and not any(t.startswith("Penalty from this photo") for t in texts)


def test_a_typed_penalty_above_a_hands_worth_is_asked_about_at_save(app: App) -> None:
    m = app.ctx.store.create(["Ann", "Bob"], "pagat", {"match_length": "single"})  # 7 tiles: at most 147
    _go(app, f"/match/{m.id}/round")
    _click(app, "Went out", 0)
    for k in "300":
        _click(app, k)
    texts = _texts(app.page.controls)
    assert "300 points: more than a hand can count (at most 147); check it" in texts
    _click(app, "Save round 1")
    texts = _texts(app.page.controls)
    assert "300 points for Bob is more than 7 tiles of a double-9 set can count (at most 147). Is it right?" in texts
    assert app.ctx.store.get(m.id).rounds == ()  # asked before it is kept
    _click(app, "Type it again")
    for k in "30":
        _click(app, k)
    _click(app, "Save round 1")
    assert app.ctx.store.get(m.id).totals() == [0, 30]


def test_keep_saves_the_high_penalty_and_went_out_is_said_above_save(app: App) -> None:
    m = app.ctx.store.create(["Ann", "Bob"], "pagat", {"match_length": "single"})
    _go(app, f"/match/{m.id}/round")
    _click(app, "0")
    _click(app, "Next: Bob")
    texts = _texts(app.page.controls)
    assert "Ann: 0 points, so Ann went out (marked so)" in texts  # on the screen, not a toast over Save
    assert not any(isinstance(d, ft.SnackBar) for d in app.page.dialogs)
    for k in "200":
        _click(app, k)
    _click(app, "Save round 1")
    _click(app, "Keep 200")
    assert app.ctx.store.get(m.id).totals() == [0, 200]


def test_after_an_edit_is_saved_the_scoreboard_shows_the_round_edited(app: App) -> None:
    m = app.ctx.store.create(["Ann", "Bob"], "double-chicken-foot", {})
    for _ in range(3):
        app.ctx.store.update(m.id, lambda x: x.add_round(penalties={"Bob": 9}, out="Ann"))
    scrolled: list[str] = []
    app.scroll_into_view = scrolled.append  # type: ignore[method-assign]
    _go(app, f"/match/{m.id}")
    _go(app, f"/match/{m.id}/round/1")
    _click(app, "Number", 1)
    for k in "12":
        _click(app, k)
    _click(app, "Save round 1")
    assert app.page.pushed[-1] == f"/match/{m.id}" and app.ctx.store.get(m.id).rounds[0].penalties == (0, 12)
    _go(app, f"/match/{m.id}")
    assert scrolled[-1] == "round-1"


def test_back_from_check_the_table_goes_to_the_scoreboard(app: App) -> None:
    m = app.ctx.store.create(["Ann", "Bob"], "double-chicken-foot", {})
    _go(app, "/")
    _go(app, f"/match/{m.id}")
    _click(app, "Check the table")
    _go(app, app.page.pushed[-1])
    assert app.page.route == "/dispute"
    app.page.appbar.leading.on_click(None)  # Back
    assert app.page.pushed[-1] == f"/match/{m.id}"


def test_a_hand_photo_that_is_no_image_is_named_and_nothing_is_entered(app: App) -> None:
    m = app.ctx.store.create(["Ann", "Bob"], "pagat", {"match_length": "single"})
    _go(app, f"/match/{m.id}/round")
    _picks(app, ("notes.jpg", b"these are my notes, not a photo"), ("empty.jpg", b""))
    _aclick(app, "Photo")
    texts = _texts(app.page.controls)
    assert any(t.startswith("Could not read the photo: notes.jpg: not an image") for t in texts), texts
    assert sum(t.startswith("not entered") for t in texts) == 2
    _aclick(app, "Photo")
    assert "Could not read the photo: empty.jpg: the file is empty" in _texts(app.page.controls)


# ------------------------------------------------------------ counting a hand on its own
def _counting(app: App, tiles: list[Any], image: bytes | None = None) -> Any:
    """The hand counter shown with a reading of ``tiles`` on a 300 x 100 photo (``image``)."""
    from chickenfoot.app.hand_count import SEAT
    from chickenfoot.app.photo_review import PhotoReview

    _go(app, "/count")
    hc = app.session.hand_count()
    hc.content.reviews[SEAT] = PhotoReview(hc.rules, hc.top, tiles, (300, 100), image)
    if image is not None:
        hc.panel.preview.set_photo(image)
    _go(app, "/count")
    return hc


def test_a_hand_is_counted_from_a_photo_outside_any_match(app: App) -> None:
    """Home's "Count a hand from a photo": the rendered hand photo (tests/data/hand.jpg) read by
    the shipped reader, reviewed as on the round screen, its points the headline; a tile
    corrected changes them; nothing is stored; another hand starts afresh; a file that is no
    image is said so by name."""
    from pathlib import Path

    from chickenfoot.vision.config import MODELS_DIR

    if not (MODELS_DIR / "reader.json").exists():
        pytest.skip("no shipped reader models (models/reader.json)")
    assert "Count a hand from a photo" in _go(app, "/")
    _click(app, "Count a hand from a photo")
    texts = _go(app, "/count")
    assert "Choose photo" in texts and not any(t.startswith("Penalty from this photo") for t in texts)
    assert any("the 0-0 counts 50" in t for t in texts)
    photo = (Path(__file__).parents[1] / "data" / "hand.jpg").read_bytes()
    _picks(app, ("hand.jpg", photo), ("notes.jpg", b"not an image at all"))
    _aclick(app, "Choose photo")
    texts = _texts(app.page.controls)
    # 13 tiles with the 0-0 (50): 102 pips, 152 under the default rules
    assert "Penalty from this photo: 152 points (13 tiles)" in texts
    assert "Counted (13 tiles): tap one to correct it." in texts
    assert not any(t.startswith("Use ") for t in texts)  # nothing to use it for: the headline is the result
    assert app.ctx.store.all() == []
    # correct the 5-5 to a 5-6: one more point
    _click(app, next(t for t in texts if t.endswith(": 5-5")))
    _click(app, "5-6")
    assert "Penalty from this photo: 153 points (13 tiles)" in _texts(app.page.controls)
    # the reading stays while another screen is shown
    _go(app, "/rules")
    assert "Penalty from this photo: 153 points (13 tiles)" in _go(app, "/count")
    _picks(app, ("broken.jpg", photo[: len(photo) // 2]))
    _aclick(app, "Another photo")
    texts = _texts(app.page.controls)
    # the number still shown is the hand before's, and said to be
    assert any(t.startswith("Could not read the photo: broken.jpg: image file is truncated") and
               t.endswith("The reading below is still that of the photo before.") for t in texts), texts
    assert "Penalty from this photo: 153 points (13 tiles)" in texts
    _picks(app, ("notes.jpg", b"not an image at all"))
    _click(app, "Count another hand")
    texts = _texts(app.page.controls)
    assert "Choose photo" in texts and not any(t.startswith("Penalty from this photo") for t in texts)
    _aclick(app, "Choose photo")
    assert "Could not read the photo: notes.jpg: not an image" in " ".join(_texts(app.page.controls))


def test_a_hand_counted_on_its_own_asks_its_tiles_to_check_and_counts_them_on_request(app: App) -> None:
    """A reading with a tile the reader asks about, in the hand counter: the headline leaves it
    out until the player counts it, as on the round screen."""
    from chickenfoot.vision.geometry import OrientedBox
    from chickenfoot.vision.reading import TileReading

    _counting(app, [
        TileReading(3, 4, 0.95, OrientedBox(50, 30, 80, 40, 0.0), False, 0.95, (1.0, 0.95)),
        TileReading(5, 6, 0.2, OrientedBox(200, 30, 80, 40, 0.0), False, 0.7, (0.5, 0.8),
                    question="Is this the 5-6?", reason="unsure tile"),
    ])
    texts = _texts(app.page.controls)
    assert "Penalty from this photo: 7 points so far (1 tile), 1 tile to check" in texts
    assert "Check this tile: it is not counted until you say." in texts
    _click(app, "Count it as 5-6")
    assert "Penalty from this photo: 18 points (2 tiles)" in _texts(app.page.controls)
    _click(app, "Add a missed tile")
    _click(app, "0")
    _click(app, "0-0 = 50")
    assert "Penalty from this photo: 68 points (3 tiles)" in _texts(app.page.controls)


def test_the_invite_screen_makes_a_new_table_code(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """New code on the invite screen: the gate's code changes (a phone kept out by wrong codes
    can join), the screen and the address follow, the other devices are told to redraw an
    invite they show, and the terminal that printed the old code prints the new one."""
    from chickenfoot.app.shell import TOPIC, web_app

    ctx = AppContext(tmp_path / "matches.json", web=True, invite_url="http://10.0.0.1:8550/join?key=OLDkey",
                     table_code="123456")
    gate = web_app(ctx, port=8550, loopback_only=False, code="123456", join_key="OLDkey")
    app = App(FakePage(), ctx)  # type: ignore[arg-type]
    try:
        assert "Table code: 123456" in _go(app, "/invite")
        _click(app, "New code")
        code, key = gate.code, gate.join_key
        assert code != "123456" and key and key != "OLDkey" and len(key) == 22
        assert ctx.invite_url == f"http://10.0.0.1:8550/join?key={key}" and ctx.table_code == code
        assert f"Table code: {code}" in _texts(app.page.controls)
        snack = app.page.dialogs[-1]
        assert snack.content.value == f"New table code: {code}. The old code and its QR code no longer work."
        assert app.page.pubsub.sent[-1] == (TOPIC, {"code": True})
        assert app.session.concerns("/invite", {"code": True}) and not app.session.concerns("/", {"code": True})
        assert f"new table code: {code} (the one printed above and its QR code no longer work" in capsys.readouterr().out
    finally:
        ctx.store.close()


def test_the_invite_screen_lists_the_joined_devices_and_removes_one(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Invite a phone lists the devices that joined (this one marked, with no Remove); Remove
    puts one out: its cookie no longer lets it in, the others' do, the list and the other
    screens follow."""
    from chickenfoot.app.shell import web_app
    from chickenfoot.app.web.bridge import note_device

    ctx = AppContext(tmp_path / "matches.json", web=True, invite_url="http://10.0.0.1:8550/join?key=k",
                     table_code="123456")
    gate = web_app(ctx, port=8550, loopback_only=False, code="123456", join_key="k")
    devices = gate.devices
    host = devices.join("10.0.0.2", "Mozilla/5.0 (Linux; Android 14) Chrome/126.0 Mobile Safari/537.36")
    phone = devices.join("10.0.0.3", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5) Version/17.5 Mobile Safari/604.1")
    app = App(FakePage(), ctx)  # type: ignore[arg-type]
    note_device(app.page, devices.check(host) or "")  # as the gate names the device a session is on
    watcher = App(FakePage(), ctx)  # type: ignore[arg-type]  # another device showing the invite
    ctx.sessions.add(watcher)
    try:
        assert "Devices at the table (2)" in _go(watcher, "/invite")
        texts = _go(app, "/invite")
        assert "Devices at the table (2)" in texts
        assert "Android · Chrome (this device)" in texts and "iPhone · Safari" in texts
        assert any(t.startswith("joined ") and t.endswith(" · here now · 10.0.0.3") for t in texts)
        assert [_caption(b) for b in _buttons(app.page.controls)].count("Remove") == 1  # not on this device
        _click(app, "Remove")
        assert devices.check(phone) is None and devices.check(host)
        texts = _texts(app.page.controls)
        assert "Devices at the table (1)" in texts and "iPhone · Safari" not in texts
        assert app.page.dialogs[-1].content.value.startswith("iPhone · Safari (10.0.0.3) is off the table")
        for _ in range(50):  # told by the server, once the changes that come together are in
            if "Devices at the table (1)" in _texts(watcher.page.controls):
                break
            time.sleep(0.1)
        assert "Devices at the table (1)" in _texts(watcher.page.controls)
        # a burst of joins: every other device put out at once, this one stays
        for k in range(4):
            devices.join(f"10.0.0.{10 + k}", "")
        _go(app, "/invite")
        _click(app, "Remove every other device")
        assert len(devices) == 1 and devices.check(host)
        assert app.page.dialogs[-1].content.value.startswith("4 devices put out; this one stays.")
        # a session whose page is away (kept a minute for it to come back) is not lost to the
        # server's word: it is redrawn when it reconnects
        watcher.page.session = SimpleNamespace(connection=None)
        devices.join("10.0.0.20", "")
        time.sleep(1.0)
        assert "Devices at the table (1)" in _texts(watcher.page.controls) and watcher in ctx.sessions
        watcher.page.session = None
        watcher._reconnected()
        assert "Devices at the table (2)" in _texts(watcher.page.controls)
    finally:
        ctx.store.close()


def test_a_second_copy_of_a_tile_is_offered_as_another_tile_first(app: App) -> None:
    """"Is this a second 1-3?": one set has one of each, so the likely answers come first (it is
    another tile, or no tile); counting a second 1-3 stays possible (two sets mixed), last."""
    from chickenfoot.vision.geometry import OrientedBox
    from chickenfoot.vision.reading import TileReading

    _counting(app, [
        TileReading(1, 3, 0.95, OrientedBox(50, 30, 80, 40, 0.0), False, 0.95, (1.0, 0.95)),
        TileReading(1, 3, 0.9, OrientedBox(200, 30, 80, 40, 0.0), False, 0.9, (0.9, 0.9),
                    question="Is this a second 1-3?", reason="read twice"),
    ])
    captions = [_caption(b) for b in _buttons(app.page.controls)]
    first = captions.index("Another tile")
    assert captions[first:first + 3] == ["Another tile", "Not a tile", "Count a second 1-3"]
    assert "Count it as 1-3" not in captions
    _click(app, "Not a tile")
    assert "Penalty from this photo: 4 points (1 tile)" in _texts(app.page.controls)


@pytest.mark.parametrize("spoilt", ["data", "id"])
def test_one_hand_edited_match_never_hides_the_others(tmp_path, spoilt: str) -> None:  # type: ignore[no-untyped-def]
    """A scorekeeper file whose one match entry was spoilt by hand (valid JSON, a match that
    does not read back, or an entry whose id was cut): home, history and statistics show the
    other match and say that one is left out, naming no path on the server."""
    import json

    db = tmp_path / "matches.json"
    ctx = AppContext(db)
    bad = ctx.store.create(["Ann", "Bob"], "double-chicken-foot", {})
    good = ctx.store.create(["Cy", "Di"], "double-chicken-foot", {})
    ctx.store.update(good.id, lambda m: m.add_round(penalties={"Di": 5}, out="Cy"))
    ctx.store.close()
    data = json.loads(db.read_text())
    for doc in data["matches"].values():
        if doc["id"] == bad.id and spoilt == "data":
            doc["match"] = doc["match"].replace('"players":["Ann","Bob"]', '"players":"Ann"')
        elif doc["id"] == bad.id:
            del doc["id"]
    db.write_text(json.dumps(data))

    ctx = AppContext(db)
    app = App(FakePage(), ctx)  # type: ignore[arg-type]
    try:
        what = "1 match" if spoilt == "data" else "1 entry"  # an entry without its id names no match
        note = (f"{what} in the scorekeeper file cannot be read (changed by hand?) and is left out here. On the "
                "computer the companion runs on, `chickenfoot db check` says what is wrong.")
        texts = _go(app, "/")
        assert note in " ".join(texts) and "Resume match" in texts
        assert any(t.startswith("Cy, Di") for t in texts) and str(tmp_path) not in " ".join(texts)
        texts = _go(app, "/history")
        assert note in " ".join(texts) and any(t.startswith("Cy, Di") for t in texts)
        assert not any(t.startswith("Ann, Bob") for t in texts)
        assert "Di" in _go(app, "/stats")
    finally:
        ctx.store.close()


def test_an_edit_that_meets_another_phones_change_replaces_it_only_when_asked(app: App) -> None:
    """Phone A edits round 1 while round 1 is changed elsewhere: A's Save stores nothing and
    says so with its own answers; Save is off meanwhile (a double tap replaces nothing unseen);
    the notice's button replaces the round with A's edit."""
    m = app.ctx.store.create(["Ann", "Bob"], "double-chicken-foot", {})
    app.ctx.store.update(m.id, lambda x: x.add_round(penalties={"Bob": 5}, out="Ann"))
    _go(app, f"/match/{m.id}/round/1")
    _click(app, "Number", 1)
    _click(app, "7")
    # meanwhile round 1 is changed elsewhere (another phone's scoreboard, the command line)
    app.ctx.store.update(m.id, lambda x: x.edit_round(1, penalties={"Bob": 9}, out="Ann"))
    _click(app, "Save round 1")
    texts = _texts(app.page.controls)
    assert any(t.startswith("Round 1 was changed on another device since this edit began") for t in texts)
    assert app.ctx.store.get(m.id).rounds[0].penalties == (0, 9)
    (save,) = [b for b in _buttons(app.page.controls) if _caption(b) == "Save round 1"]
    assert save.disabled  # a second tap on Save replaces nothing
    _click(app, "Replace round 1 with this edit")
    assert app.ctx.store.get(m.id).rounds[0].penalties == (0, 7)


def test_a_photo_reading_not_yet_used_is_said_on_its_players_row_on_every_device(app: App) -> None:
    from chickenfoot.vision.geometry import OrientedBox
    from chickenfoot.vision.reading import TileReading

    phone = App(FakePage(), app.ctx)  # type: ignore[arg-type]
    m = app.ctx.store.create(["Ann", "Bob"], "double-chicken-foot", {"match_length": "single"})
    _go(app, f"/match/{m.id}/round")
    _review_in_draft(app, m, 0, (300, 100), [
        TileReading(3, 4, 0.95, OrientedBox(50, 30, 80, 40, 0.0), False, 0.95, (1.0, 0.95))])
    assert "not entered: a photo is read, not used yet" in _go(phone, f"/match/{m.id}/round")


def test_the_options_panel_stays_open_while_options_are_chosen(app: App) -> None:
    from types import SimpleNamespace

    _go(app, "/new")
    (tile,) = _find(app.page.controls, ft.ExpansionTile)
    assert tile.expanded is False
    tile.on_change(SimpleNamespace(data=True, control=tile))  # the player opens it
    app.session.setup_form().set_option("zero-zero", "25")  # a choice, as its dropdown makes it
    app.render()
    (tile,) = _find(app.page.controls, ft.ExpansionTile)
    assert tile.expanded is True
    tile.on_change(SimpleNamespace(data=False, control=tile))
    app.render()
    assert _find(app.page.controls, ft.ExpansionTile)[0].expanded is False


def test_the_full_screen_photo_closes_when_another_screen_is_shown(app: App) -> None:
    """Back (any route change) from a photo shown full screen closes it: it never stays over
    the next screen, nor comes back with a reload."""
    import io

    from PIL import Image

    from chickenfoot.vision.geometry import OrientedBox
    from chickenfoot.vision.reading import TileReading

    buf = io.BytesIO()
    Image.new("RGB", (300, 100), (20, 90, 40)).save(buf, format="JPEG")
    _counting(app, [TileReading(3, 4, 0.95, OrientedBox(50, 30, 80, 40, 0.0), False, 0.95, (1.0, 0.95))],
              buf.getvalue())
    (thumb,) = _find(app.page.controls, ft.Semantics, lambda c: c.label == "Photo of the hand: open it full screen")
    thumb.content.on_click(None)
    (viewer,) = [d for d in app.page.dialogs if isinstance(d, ft.AlertDialog)]
    assert viewer.open
    app.page.route = "/"
    app.page.on_route_change(None)  # the phone's Back
    assert not viewer.open and "New match" in _texts(app.page.controls)


def test_the_full_screen_photo_zooms_in_on_the_tiles_and_names_the_0_0s_worth(app: App, monkeypatch) -> None:
    """A hand lying in a corner of a wide photo (a webcam frame of the table): Zoom in keeps the
    tiles on the screen rather than enlarging the photo's top-left corner, and the counted 0-0
    says what it counts, since a count of the pips misses 50 of the headline's points."""
    from chickenfoot.vision.geometry import OrientedBox
    from chickenfoot.vision.reading import TileReading

    m = app.ctx.store.create(["Ann", "Bob"], "double-chicken-foot", {})
    _go(app, f"/match/{m.id}/round")
    _review_in_draft(app, m, 0, (400, 300), [
        TileReading(0, 0, 0.95, OrientedBox(320, 240, 60, 30, 0.0), False, 0.95, (1.0, 0.95)),
        TileReading(3, 4, 0.95, OrientedBox(360, 250, 60, 30, 0.0), False, 0.95, (1.0, 0.95))])
    _go(app, f"/match/{m.id}/round")
    _click(app, "Photo", 0)
    texts = _texts(app.page.controls)
    assert "Penalty from this photo: 57 points (2 tiles)" in texts
    assert [_caption(b) for b in _buttons(app.page.controls) if re.match(r"^\d+: ", _caption(b) or "")] == [
        "1: 0-0 = 50", "2: 3-4"]

    moves: list[tuple[Any, ...]] = []

    async def reset(self: Any) -> None:
        moves.clear()

    async def zoom(self: Any, factor: float) -> None:
        moves.append(("zoom", factor))

    async def pan(self: Any, dx: float, dy: float = 0, dz: float = 0) -> None:
        moves.append(("pan", dx, dy))

    monkeypatch.setattr(ft.InteractiveViewer, "reset", reset)
    monkeypatch.setattr(ft.InteractiveViewer, "zoom", zoom)
    monkeypatch.setattr(ft.InteractiveViewer, "pan", pan)
    (thumb,) = _find(app.page.controls, ft.Semantics, lambda c: c.label == "Photo of Ann's hand: open it full screen")
    thumb.content.on_click(None)
    dialog = app.page.dialogs[-1]
    viewer = dialog.content
    zoom_in = next(b for b in dialog.actions if b.tooltip == "Zoom in")
    k = viewer.width / 400  # the photo's pixels to the screen's, shown whole
    for z in (1.6, 1.6 ** 2):
        asyncio.run(zoom_in.on_click(None))
        assert app.session.error is None
        assert moves[0] == ("zoom", pytest.approx(z))
        dx, dy = (moves[1][1], moves[1][2]) if len(moves) > 1 else (0.0, 0.0)
        # the viewer scales, then moves by (dx, dy) in the photo as first shown
        x, y = z * (340 * k + dx), z * (245 * k + dy)
        assert 0 <= x <= viewer.width and 0 <= y <= viewer.height, (z, x, y)


def test_a_tile_tapped_before_its_open_end_is_judged_on_the_only_end_or_the_end_is_asked_for(app: App) -> None:
    from chickenfoot.app.views.board import end_label
    from chickenfoot.rules import Tile

    _go(app, "/dispute")
    _click(app, "9-9")
    b = app.drafts.dispute
    assert b.selected is None and [e.target for e in b.open_ends()] == [Tile(9, 9)]
    _go(app, "/dispute")
    _click(app, "8-9")  # the hub is the one place a tile can go: judged there at once
    assert b.selected == Tile(9, 9) and b.last is not None and b.last.tile == Tile(8, 9) and b.last.legal
    b.add("9-4", "9-9")
    b.add("9-1", "9-9")
    b.selected, b.last = None, None
    _go(app, "/dispute")
    _click(app, "5-9")  # several open ends: the tile is kept and the missing tap asked for
    assert b.last is None and app.drafts.dispute_tile == "5-9"
    said = app.page.dialogs[-1]
    assert isinstance(said, ft.SnackBar) and said.content.value == (
        "Now tap the open end the 5-9 is to go on (a dashed place on the board)")
    # ... and judged there as soon as an end is tapped (its chip here; the drawing's tap alike)
    _go(app, "/dispute")
    _click(app, next(end_label(e) for e in b.open_ends() if e.target == Tile(4, 9)))
    assert b.selected == Tile(4, 9) and b.last is not None and b.last.tile == Tile(5, 9) and not b.last.legal
    _go(app, "/dispute")
    _click(app, next(end_label(e) for e in b.open_ends() if e.target == Tile(9, 9)))
    # another end chosen: the verdict on screen follows it, the same tile judged there
    assert b.selected == Tile(9, 9) and b.last.on == Tile(9, 9) and b.last.tile == Tile(5, 9) and b.last.legal
    assert "Yes. 9-5 can go on the 9-9 as a spoke" in " ".join(_texts(app.page.controls))


def test_the_statistics_say_who_held_the_0_0_only_where_the_tiles_are_known(app: App) -> None:
    m = app.ctx.store.create(["Ann", "Bob", "Cy"], "double-chicken-foot", {})
    app.ctx.store.update(m.id, lambda x: x.add_round(penalties={"Ann": 12, "Bob": 3}, out="Cy"))  # typed
    said = [t for t in _go(app, "/stats") if t.startswith("Left holding the 0-0")]
    assert said == ["Left holding the 0-0: 0 times in 1 round with the tiles known"]  # Cy went out
    app.ctx.store.update(m.id, lambda x: x.add_round(penalties={"Ann": 7}, tiles={"Bob": "0-0,1-2"}, out="Cy"))
    said = [t for t in _go(app, "/stats") if t.startswith("Left holding the 0-0")]
    assert "Left holding the 0-0: 1 time in 1 round with the tiles known" in said  # Bob
    assert "Left holding the 0-0: 0 times in 2 rounds with the tiles known" in said  # Cy, out twice
    assert len(said) == 2  # Ann's hands were typed: nothing said of her


def test_rules_that_play_one_set_bring_it_to_the_dispute_checker_or_are_refused_with_why(app: App) -> None:
    _go(app, "/dispute")
    rules = _find(app.page.controls, ft.Dropdown, lambda c: c.label == "Rules")[0]
    rules.on_select(_event("chickie-sixes"))  # no table yet: the hub buttons follow the double-6 set
    texts = _texts(app.page.controls)
    assert "6-6" in texts and "9-9" not in texts
    _find(app.page.controls, ft.Dropdown, lambda c: c.label == "Set")[0].on_select(_event("9"))
    _click(app, "9-9")
    rules = _find(app.page.controls, ft.Dropdown, lambda c: c.label == "Rules")[0]
    rules.on_select(_event("pagat"))
    _find(app.page.controls, ft.Dropdown, lambda c: c.label == "Rules")[0].on_select(_event("chickie-sixes"))
    texts = _texts(app.page.controls)
    assert ("Chickie Sixes is played with a double-6 set, and the 9-9 on this table is not in it: "
            "start a new table for it") in " ".join(texts)
    assert _find(app.page.controls, ft.Dropdown, lambda c: c.label == "Rules")[0].value == "pagat"  # kept
    assert app.drafts.dispute.top == 9 and app.drafts.dispute.layout is not None


def test_the_picker_marks_the_tiles_this_photo_counts_already(app: App) -> None:
    from chickenfoot.vision.geometry import OrientedBox
    from chickenfoot.vision.reading import TileReading

    hc = _counting(app, [
        TileReading(3, 4, 0.95, OrientedBox(50, 30, 80, 40, 0.0), False, 0.95, (1.0, 0.95)),
        TileReading(5, 6, 0.95, OrientedBox(200, 30, 80, 40, 0.0), False, 0.95, (1.0, 0.95)),
    ])
    _click(app, "1: 3-4")  # correcting tile 1: tile 2's 5-6 is in this photo already
    _click(app, "5")
    faces = [str(_caption(b)) for b in _buttons(app.page.controls)]
    assert "5-6, counted in this photo already" in faces and "5-4" not in faces and "4-5" in faces
    _click(app, "5-6, counted in this photo already")
    said = app.page.dialogs[-1]
    assert isinstance(said, ft.SnackBar) and said.content.value == (
        "5-6 is counted in this photo already (tile 2): a set has only one 5-6")
    assert [str(t) for t in hc.review.tiles] == ["3-4", "5-6"]  # nothing changed
    _click(app, "4-5")
    assert [str(t) for t in hc.review.tiles] == ["4-5", "5-6"]


def test_the_dispute_table_is_kept_on_the_device_and_back_in_a_new_session(app: App, tmp_path) -> None:
    """A phone that slept past its session comes back to a new one: the table it was building is
    kept on the device (the browser's storage: its stand-in here is a dict) and brought back."""
    kept: dict[str, str] = {}

    def on_device(a: App) -> None:
        async def get(key: str) -> Any:
            return kept.get(key)

        def keep(key: str, text: str) -> None:
            if text:
                kept[key] = text
            else:
                kept.pop(key, None)

        a.kept_on_device = get  # type: ignore[method-assign]
        a.keep_on_device = keep  # type: ignore[method-assign]

    on_device(app)
    assert "Which double is in the centre (the hub)?" in _go(app, "/dispute")
    assert kept == {}
    _click(app, "9-9")
    app.drafts.dispute.add("9-4", "9-9")
    _go(app, "/dispute")
    assert json.loads(kept["chickenfoot.dispute-table"])["plays"] == [{"tile": "4-9", "on": "9-9"}]

    later = App(FakePage(), app.ctx)  # type: ignore[arg-type]
    on_device(later)
    texts = _go(later, "/dispute")
    assert "9-9 (hub) · 4-9 on 9-9" in texts
    said = later.page.dialogs[-1]
    assert isinstance(said, ft.SnackBar) and said.content.value == "The table from before is back (kept on this device)"
    _click(later, "New table")
    _click(later, "Start a new table")
    assert "chickenfoot.dispute-table" not in kept  # a new table forgets the old one
    # what a device gives back is read as any file from outside: a bad one is left unread
    kept["chickenfoot.dispute-table"] = '{"hub": "9-9", "plays": [{"tile": "9-4"'
    third = App(FakePage(), app.ctx)  # type: ignore[arg-type]
    on_device(third)
    assert "Which double is in the centre (the hub)?" in _go(third, "/dispute")


def test_the_rules_page_first_says_how_any_chicken_foot_round_goes(app: App) -> None:
    texts = _go(app, "/rules")
    start = texts.index("How Chicken Foot is played")
    basics = texts[start + 1:start + 7]
    assert basics[0].startswith("Everyone plays alone. A round starts from one double, the hub")
    assert any("open end that shows the same number" in t for t in basics)
    assert any(t.startswith("The round ends when a player lays their last tile") for t in basics)
    # then each preset's own numbers, the one that ends rounds also otherwise among them
    assert texts.index("Chickie Sixes") > start
    assert "The round also ends when an open foot can no longer be completed." in " ".join(texts)


def test_a_used_photo_reading_is_opened_again_from_its_hand(app: App) -> None:
    from chickenfoot.vision.geometry import OrientedBox
    from chickenfoot.vision.reading import TileReading

    m = app.ctx.store.create(["Eve", "Fay", "Gus"], "double-chicken-foot", {})
    _go(app, f"/match/{m.id}/round")
    _review_in_draft(app, m, 1, (200, 100), [TileReading(5, 6, 0.9, OrientedBox(32.5, 22.5, 55, 35, 0.0)),
                                             TileReading(1, 2, 0.9, OrientedBox(110, 22.5, 60, 35, 0.0))])
    _click(app, "Photo", 1)
    _click(app, "Use these tiles (14 points)")
    texts = _texts(app.page.controls)
    assert not any(t.startswith("Penalty from this photo") for t in texts)
    _click(app, "Photo", 1)
    assert "Open its photo's reading again" in _texts(app.page.controls)
    _click(app, "Open its photo's reading again")
    texts = _texts(app.page.controls)
    assert "Penalty from this photo: 14 points (2 tiles)" in texts and "Use these tiles (14 points)" in texts
    assert "2: 1-2" in texts  # its tiles with their numbers, as before
