"""One device's session without a browser or Flet: the screen shown and its typed state, the
message said on it, the drafts that outlive a screen, and what a data-only screen showed."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from chickenfoot.app.session import Drafts, NoState, Session
from chickenfoot.app.settings import Settings
from chickenfoot.app.setup import MatchSetup
from chickenfoot.app.store import MatchStore

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class _Shared:
    store: MatchStore
    settings: Settings


@dataclass
class _Counting:
    taps: int = 0


@pytest.fixture
def session(tmp_path: Path) -> Iterator[Session]:
    store = MatchStore.open(tmp_path / "matches.json")
    yield Session(_Shared(store, Settings()))
    store.close()


def test_a_screen_keeps_its_state_and_message_until_another_screen_is_shown(session: Session) -> None:
    assert session.visit("/dispute") and session.seq == 1
    state = session.state_of(_Counting)
    state.taps += 2
    session.say("that tile is not in a double-9 set")
    assert not session.visit("/dispute")  # a redraw of the same screen
    assert session.state_of(_Counting) is state and state.taps == 2 and session.seq == 1
    assert session.error == "That tile is not in a double-9 set"
    assert session.visit("/rules") and session.seq == 2  # another screen: opened afresh
    assert session.error is None and session.state_of(NoState) is not None
    assert session.visit("/dispute") and session.state_of(_Counting).taps == 0


def test_a_screen_opened_again_afresh_forgets_its_state_and_gets_a_new_number(session: Session) -> None:
    session.visit("/practice")
    session.state_of(_Counting).taps = 5
    session.say("no")
    session.renew()
    assert session.seq == 2 and session.error is None and session.state_of(_Counting).taps == 0


def test_drafts_outlive_the_screens_and_are_typed(session: Session) -> None:
    assert session.drafts == Drafts()
    session.visit("/new")
    session.drafts.setup = MatchSetup("pagat", {})
    session.drafts.setup.add_player("Ann")
    session.drafts.dispute_tile = "4-7"
    session.visit("/rules")
    assert session.drafts.setup.players == ["Ann"] and session.drafts.dispute_tile == "4-7"
    assert not session.drafts.dispute_photo.busy and session.drafts.practice is None


def test_a_data_only_screen_is_redrawn_only_when_what_it_shows_changed(session: Session) -> None:
    store = session.store
    assert session.shown_data("/rules") is None and not session.data_moved("/rules")
    session.drawn("/")
    assert session.shown == () and not session.data_moved("/")
    m = store.create(["Ann", "Bob"], "pagat", {})
    assert session.data_moved("/") and session.data_moved("/history")
    session.drawn(f"/match/{m.id}")
    assert not session.data_moved(f"/match/{m.id}")
    session.match(m.id).rename(1, "Bea")
    assert session.data_moved(f"/match/{m.id}")
    assert session.shown_data("/match/gone") is None  # a deleted match: nothing to compare


def test_each_device_has_its_own_name(session: Session) -> None:
    other = Session(session.shared)
    assert len(session.device) == 12 and other.device != session.device
    assert Session(session.shared, device="phone-1").device == "phone-1"


def test_the_session_needs_no_flet() -> None:
    code = "import sys, chickenfoot.app.session; print('flet' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_round_shown_is_redrawn_when_its_stored_draft_moved(session: Session) -> None:
    from chickenfoot.app.screens import RoundState

    m = session.store.create(["Ann", "Bob"], "pagat", {})
    ms = session.match(m.id)
    d = ms.open_draft()
    assert not session.draft_moved()  # no round screen shown
    session.visit(f"/match/{m.id}/round")
    st = session.state_of(RoundState)
    st.draft, st.seen = d.id, d.revision
    assert not session.draft_moved()
    d2, _ = ms.change(d.id, lambda c: c.entry.went_out(0))  # another process typed into it
    assert session.draft_moved()
    st.seen = d2.revision  # drawn again
    assert not session.draft_moved()
    ms.drop_draft(d.id)  # gone (saved or dropped elsewhere): the screen says so
    assert session.draft_moved()


@pytest.mark.parametrize(("route", "message", "redraw"), [
    ("/match/ab12/round", {"entry": "ab12"}, True),  # someone typed into this round
    ("/match/ab12/round/2", {"entry": "ab12"}, True),
    ("/match/ab12", {"entry": "ab12"}, False),  # the scoreboard does not show a round being typed
    ("/match/ab12/round", {"entry": "cd34"}, False),
    ("/match/ab12", "ab12", True),  # the match changed
    ("/match/ab12/brief", "ab12", True),
    ("/match/ab12", "cd34", False),
    ("/history", "cd34", True),  # a list of every match
    ("/rules", "ab12", False),
    ("/nothing", "ab12", False),
])
def test_another_devices_word_redraws_only_the_screens_it_concerns(session: Session, route: str,
                                                                  message: object, redraw: bool) -> None:
    assert session.concerns(route, message) is redraw


def test_a_draft_is_made_from_the_default_rules_once_and_kept(tmp_path: Path) -> None:
    store = MatchStore.open(tmp_path / "matches.json")
    try:
        session = Session(_Shared(store, Settings(default_preset="pagat")))
        form = session.setup_form()
        assert form.preset == "pagat" and session.setup_form() is form is session.drafts.setup
        table = session.dispute_table()
        assert (table.preset, table.top) == ("pagat", 9) and session.dispute_table() is table
        practice = session.practice_form()
        assert practice.form.preset == "pagat" and session.practice_form() is practice
        session.drafts.setup = None  # the match started: the next form is a new one
        assert session.setup_form() is not form
    finally:
        store.close()


def test_back_goes_where_the_player_came_from(session: Session) -> None:
    session.visit("/")
    session.visit("/match/ab12")
    session.visit("/dispute")  # "Check the table" on the scoreboard
    assert session.back_from("/") == "/match/ab12"  # not Home
    session.visit("/match/ab12")  # Back: the trail ends there again
    assert session.trail == ["/", "/match/ab12"] and session.back_from("/") == "/"
    session.visit("/history")
    session.visit("/match/cd34")
    session.visit("/match/cd34/round")
    assert session.back_from("/match/cd34") == "/match/cd34"
    session.visit("/match/cd34")  # saved: back on the scoreboard, whose Back goes to History
    assert session.back_from("/") == "/history"
    session.visit("/match/cd34/brief")
    session.visit("/match/cd34/round")
    session.visit("/match/cd34/round/2")  # another round screen: Back never returns to a round
    assert session.back_from("/match/cd34") == "/match/cd34/brief"
    assert session.back_from(None) is None  # a screen without Back keeps none


def test_back_skips_a_finished_new_match_form_and_a_fresh_session_uses_the_screens_own(session: Session) -> None:
    session.visit("/match/ab12/round")  # opened from a link: nothing behind it
    assert session.back_from("/match/ab12") == "/match/ab12"
    session.visit("/")
    session.visit("/new")
    session.visit("/match/ef56")  # the match just set up
    assert session.back_from("/") == "/"
    for k in range(40):
        session.visit(f"/match/x{k}")
    assert len(session.trail) <= 24


def test_a_screen_can_ask_the_next_one_to_bring_a_card_into_view(session: Session) -> None:
    session.reveal_next("round-3")
    assert session.take_reveal() == "round-3" and session.take_reveal() is None
