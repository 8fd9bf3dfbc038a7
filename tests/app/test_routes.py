"""The route table: every address the app shows parses to its screen and back."""

from __future__ import annotations

import pytest

from chickenfoot.app.routes import Route, parse


@pytest.mark.parametrize(("path", "route"), [
    ("/", Route("home")),
    ("", Route("home")),
    ("/new", Route("new")),
    ("/history", Route("history")),
    ("/stats", Route("stats")),
    ("/rules", Route("rules")),
    ("/settings", Route("settings")),
    ("/dispute", Route("dispute")),
    ("/practice", Route("practice")),
    ("/invite", Route("invite")),
    ("/match/ab12", Route("scoreboard", "ab12")),
    ("/match/ab12/round", Route("round", "ab12")),
    ("/match/ab12/round/3", Route("round", "ab12", 3)),
    ("/match/ab12/brief", Route("brief", "ab12")),
])
def test_every_screen_has_one_address(path: str, route: Route) -> None:
    assert parse(path) == route
    assert parse(route.path) == route


@pytest.mark.parametrize("path", ["/nothing", "/match", "/match/ab12/round/x", "/match/ab12/brief/2",
                                  "/match/ab12/elsewhere", "/rules/more"])
def test_an_address_naming_nothing_parses_to_none(path: str) -> None:
    assert parse(path) is None


def test_a_query_string_is_ignored_and_match_lists_follow_every_match() -> None:
    assert parse("/dispute?from=ab12") == Route("dispute")
    assert parse("/history").about("ab12") and parse("/").about("zz")
    assert parse("/match/ab12/round").about("ab12") and not parse("/match/ab12").about("cd34")
    assert not parse("/rules").about("ab12")
