"""The router: every screen of the route table has its screen class, a route naming nothing is
refused, and each screen opens over a state of its own type from the session."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pytest

from chickenfoot.app.router import SCREENS, route_screen, screen_class
from chickenfoot.app.routes import MATCH_LISTS, PLAIN
from chickenfoot.app.session import Session
from chickenfoot.app.settings import Settings
from chickenfoot.app.store import MatchStore
from chickenfoot.app.views import NotFound, Screen


@dataclass
class _Shared:
    store: MatchStore
    settings: Settings


@pytest.fixture
def app(tmp_path: Path) -> Iterator[SimpleNamespace]:
    store = MatchStore.open(tmp_path / "matches.json")
    yield SimpleNamespace(session=Session(_Shared(store, Settings())), ctx=SimpleNamespace(invite_url=None))
    store.close()


def test_every_screen_of_the_route_table_has_a_screen_class() -> None:
    names = {*PLAIN, *MATCH_LISTS, "scoreboard", "round", "brief"}
    assert set(SCREENS) == names
    for name in names:
        assert issubclass(screen_class(name), Screen), name


def test_a_route_opens_its_screen_over_the_state_the_session_keeps_for_it(app: SimpleNamespace) -> None:
    s = route_screen(app, "/match/ab12/round/2")  # type: ignore[arg-type]
    assert s.route.screen == "round" and (s.route.match_id, s.route.number) == ("ab12", 2)
    app.session.visit("/match/ab12/round/2")
    first = route_screen(app, "/match/ab12/round/2")  # type: ignore[arg-type]
    again = route_screen(app, "/match/ab12/round/2")  # type: ignore[arg-type]
    assert isinstance(first.state, first.State) and again.state is first.state


@pytest.mark.parametrize("route", ["/nothing", "/match/ab12/elsewhere", "/invite"])
def test_a_route_naming_nothing_is_refused(app: SimpleNamespace, route: str) -> None:
    with pytest.raises(NotFound, match="nothing at"):
        route_screen(app, route)  # type: ignore[arg-type]
    app.ctx.invite_url = "http://10.0.0.2:8550/join?key=k3Y"
    assert route_screen(app, "/invite").route.screen == "invite"  # type: ignore[arg-type]
