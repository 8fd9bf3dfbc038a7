"""The screens' typed states without Flet: the round screen's pad and panels, and each hand's
photo panel, as the session keeps them while the screen is shown."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from chickenfoot.app.screens import DisputeState, PhotoPanel, RoundState, ScoreboardState
from chickenfoot.app.session import Session

ROOT = Path(__file__).resolve().parents[2]


def test_the_pad_and_the_panels_are_open_one_at_a_time() -> None:
    st = RoundState()
    assert not st.placed and st.pad is None and not any(st.active(i) for i in range(4))
    st.open_pad(0)
    assert st.placed and st.pad == 0 and st.fresh and st.active(0) and not st.active(1)
    st.fresh = False
    st.open_panel(1, "tiles")  # the picker under Bob's row: the pad closes
    assert st.pad is None and st.panel == (1, "tiles") and st.active(1) and not st.active(0)
    st.open_pad(2)  # the pad again: the panel closes, a new number starts
    assert st.panel is None and st.pad == 2 and st.fresh
    st.open_pad(None)  # every hand in: nothing open, but the screen has placed the pad
    assert st.placed and not any(st.active(i) for i in range(4))


def test_each_hand_has_its_own_photo_panel_kept_while_the_screen_is_shown() -> None:
    st = RoundState()
    cy = st.photo(2)
    cy.busy, cy.selected, cy.show_unsure = "Reading the tiles…", 3, True
    assert st.photo(2) is cy and st.photo(0) == PhotoPanel() and st.photo(0) is not cy
    assert cy.preview is not st.photo(0).preview  # each panel draws its own photo


def test_a_screen_state_is_made_afresh_when_the_screen_opens_again() -> None:
    class _Shared:
        store = None
        settings = None

    session = Session(_Shared())  # type: ignore[arg-type]
    session.visit("/match/ab12/round")
    st = session.state_of(RoundState)
    st.open_panel(1, "photo")
    session.visit("/match/ab12/round")
    assert session.state_of(RoundState) is st
    session.visit("/match/ab12")
    assert session.state_of(ScoreboardState).asking is None
    session.visit("/match/ab12/round")
    assert session.state_of(RoundState).panel is None and DisputeState().suit is None


def test_the_screen_states_need_no_flet() -> None:
    code = "import sys, chickenfoot.app.screens; print('flet' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_round_opened_half_entered_brings_the_hand_the_pad_types_for_into_view() -> None:
    from chickenfoot.app.screens import RoundState

    st = RoundState()
    st.place(3)  # Ann, Bob and Cy are in: the pad types for Dee, whose row may be under the pad
    assert st.pad == 3 and st.placed and st.fresh and st.panel is None
    assert st.take_reveal() == 3 and st.take_reveal() is None  # once, as the screen is drawn
    st.open_pad(1)
    assert st.reveal is None  # a tap on a row already scrolls to it


def test_the_dispute_checker_opens_its_picker_on_the_end_chosen() -> None:
    st = DisputeState()
    assert st.picking and st.suit is None
    st.suit = 3
    st.toggle_picker()  # folded away for more board
    assert not st.picking
    st.end_chosen()  # a new end: its own number's faces, shown
    assert st.picking and st.suit is None
