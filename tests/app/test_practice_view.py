"""The practice screen built in-process over a real app context, no browser: the choices, a
round played to its end through the screen's own controls (tile buttons, open-end chips, a tap
on the drawing, Hint, Draw, Pass), refusals said in the rules core's words, and the results."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import flet as ft
import pytest
from test_views_inprocess import FakePage, _buttons, _caption, _click, _find, _go, _texts

from chickenfoot.app.shell import App, AppContext
from chickenfoot.app.views.board import end_label


@pytest.fixture
def app(tmp_path) -> Iterator[App]:
    ctx = AppContext(tmp_path / "matches.json")
    a = App(FakePage(), ctx)  # type: ignore[arg-type]
    yield a
    ctx.store.close()


def _enabled(app: App, caption: str) -> bool:
    return any(_caption(b) == caption and not b.disabled for b in _buttons(app.page.controls))


def _tile_buttons(app: App) -> dict[str, Any]:
    """The hand's buttons (a face and its name), by tile name."""
    out = {}
    for b in _find(app.page.controls, ft.FilledButton) + _find(app.page.controls, ft.OutlinedButton):
        if isinstance(b.content, ft.Column) and _find(b.content, ft.Image):
            out[b.content.controls[-1].value] = b
    return out


def test_practice_from_home_to_the_end_of_a_round_and_on(app: App) -> None:
    texts = _go(app, "/")
    assert "Practise a round" in texts
    _click(app, "Practise a round")
    assert app.page.route == "/practice"
    texts = _go(app, "/practice")
    assert "Deal" in texts and "Options (each explained)" in texts
    s = app.drafts.practice_setup
    # four seats, three of them greedy bots, pagat rules, a chosen deal number
    preset = _find(app.page.controls, ft.Dropdown, lambda c: c.label == "Rules preset")[0]
    preset.on_select(SimpleNamespace(control=SimpleNamespace(value="pagat")))
    seed = _find(app.page.controls, ft.TextField, lambda c: c.label == "Deal number")[0]
    seed.value = "5"
    assert s.seats == 4 and s.bots == {1, 2, 3}
    texts = _texts(app.page.controls)
    assert "Seat 1: You (a person)" in texts and "Seat 4: Bot 3 (bot)" in texts
    _click(app, "Deal")
    sess = app.drafts.practice
    assert sess.practice.seed == 5 and sess.practice.rules.name == "pagat"
    texts = _texts(app.page.controls)
    assert "Your turn: choose a tile, then an open end." in texts
    sem = _find(app.page.controls, ft.Semantics, lambda c: str(c.label).startswith("The table drawn as a board"))
    assert sem and "Open ends: 9 on 9-9, 4 spokes to go" in sem[0].label
    assert set(_tile_buttons(app)) == {str(t) for t in sess.hand()}

    # Hint, then a play the rules refuse (a tile with no 9 on the hub): their reason, in words
    _click(app, "Hint")
    assert "You can play: 9-3 on 9-9, 9-6 on 9-9" in _texts(app.page.controls)
    bad = next(t for t in sess.hand() if not t.has(9))
    _tile_buttons(app)[str(bad)].on_click(None)
    # the chosen tile is filled and bold, and says so to a screen reader; the others are their tile
    names = {t: b.content.controls[-1].semantics_label for t, b in _tile_buttons(app).items()}
    assert names.pop(str(bad)) == f"{bad}, chosen" and all(name == t for t, name in names.items())
    _click(app, "9 on 9-9, 4 spokes to go")
    verdict = sess.practice.state.table.judge(bad, sess.practice.state.hub)
    assert f"Not allowed. {verdict.message}" in _texts(app.page.controls)

    # then the round to its end: moves from the hint, the first by a tap on the drawing
    tapped = False
    for _ in range(200):
        if sess.over:
            break
        plays = sess.practice.hint()
        if plays:
            play = plays[0]
            if sess.selected != play.tile:
                _tile_buttons(app)[str(play.tile)].on_click(None)
            if not tapped:
                pic, _ = sess.picture()
                img = _find(app.page.controls, ft.Image, lambda c: c.width and c.width > 100)[0]
                k = img.width / pic.size[0]
                m = next(m for m in pic.board.ends if m.end.target == play.target)
                x, y = pic.to_pixels(m.spot.x, m.spot.y)
                _find(app.page.controls, ft.GestureDetector)[0].on_tap_up(
                    SimpleNamespace(local_position=SimpleNamespace(x=x * k, y=y * k)))
                tapped = True
            else:
                end = next(e for e in sess.open_ends() if e.target == play.target)
                _click(app, end_label(end))
            assert sess.refusal is None
        elif _enabled(app, "Draw"):
            _click(app, "Draw")
        else:
            assert _enabled(app, "Pass")
            _click(app, "Pass")
    assert sess.over and tapped
    texts = _texts(app.page.controls)
    assert "Penalties, as the scorekeeper counts them" in texts
    for line in sess.results():
        name = f"{line.name} ({line.bot})" if line.bot else line.name
        assert any(t.startswith(f"{name}: {line.penalty} point") for t in texts)  # "1 point", "7 points"
    assert not _find(app.page.controls, ft.GestureDetector)  # nothing to tap on a finished table

    _click(app, "Continue as a match against the bots")
    nxt = app.drafts.practice
    assert nxt.practice.round_index == 1 and nxt.practice.match.rounds == sess.practice.scored().rounds
    assert "Practice · round 2" in _go(app, "/practice")
    _click(app, "New practice (change the rules or seats)")
    assert "Deal" in _texts(app.page.controls) and app.drafts.practice is None


def test_practice_setup_refuses_a_table_of_bots(app: App) -> None:
    _go(app, "/practice")
    for i in range(4):
        sw = _find(app.page.controls, ft.Switch, lambda c, i=i: c.label.startswith(f"Seat {i + 1}:"))[0]
        sw.on_change(SimpleNamespace(control=SimpleNamespace(value=True)))
    texts = _texts(app.page.controls)
    assert "every seat is a bot: keep at least one seat for a person" in texts
    assert not _enabled(app, "Deal")


@pytest.mark.parametrize(("scale", "measured"), [(1.0, (215, 242)), (1.3, (264, 268))],
                         ids=["normal-text", "large-text"])
def test_the_hand_fixed_at_the_bottom_is_estimated_at_360px(scale: float, measured: tuple[int, int]) -> None:
    """The footer's height as estimated for a 360 px phone, normal and large text: never under
    what Chromium drew (``measured``: deal number 2 dealt, then with the hint shown and a tile
    chosen; see test_e2e_practice), not much over it, and leaving the board at least its least
    on a 740 px phone whatever the footer says (a long refusal, the hint, the end of the round)."""
    from chickenfoot.app.practice_session import PracticeSetup
    from chickenfoot.app.views.board import MIN_BOARD_HEIGHT
    from chickenfoot.app.views.practice import board_height, footer_height

    sess = PracticeSetup("double-chicken-foot", seats=4, seed=2).start()
    dealt = footer_height(sess, 360, scale)
    assert measured[0] <= dealt <= measured[0] + 10
    sess.show_hint()
    sess.choose(sess.practice.hint()[0].tile)
    chosen = footer_height(sess, 360, scale)
    assert measured[1] <= chosen <= measured[1] + 10
    assert footer_height(sess, 1280, scale) <= chosen  # a wide screen wraps no more

    # a refusal is said whole: each line of it more
    bad = next(t for t in sess.hand() if not t.has(9))
    sess.choose(bad)
    assert not sess.play_on(sess.practice.state.hub) and sess.refusal
    refused = footer_height(sess, 360, scale)
    assert refused > footer_height(sess, 1280, scale)
    for h in (dealt, chosen, refused):
        assert board_height(h, (360, 740)) == 740 - 56 - 14 - 52 - h >= MIN_BOARD_HEIGHT

    # at the round's end: its line and the next round's buttons, lower than the hand
    while not sess.over:
        plays = sess.practice.hint()
        if plays:
            sess.choose(plays[0].tile)
            assert sess.play_on(plays[0].target)
        elif sess.practice.can_draw:
            assert sess.draw()
        else:
            assert sess.pass_turn()
    over = footer_height(sess, 360, scale)
    assert 17 + 2 * 48 < over < dealt
    assert board_height(over, (360, 740)) >= MIN_BOARD_HEIGHT
    assert board_height(10_000, (360, 740)) == MIN_BOARD_HEIGHT  # never shorter than its least
