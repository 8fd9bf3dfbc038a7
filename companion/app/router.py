"""The router: from an address (see :mod:`chickenfoot.app.routes`) to the screen that shows it."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from .routes import parse
from .views import NotFound, Screen

if TYPE_CHECKING:
    from .routes import Route
    from .shell import App

#: Each screen of :data:`chickenfoot.app.routes` by name: ``module:class`` in
#: :mod:`chickenfoot.app.views` (imported when first shown).
SCREENS: dict[str, str] = {
    "home": "home:HomeScreen", "new": "setup:NewMatchScreen", "history": "home:HistoryScreen",
    "stats": "home:StatsScreen", "rules": "home:RulesScreen", "settings": "home:SettingsScreen",
    "dispute": "dispute:DisputeScreen", "practice": "practice:PracticeScreen",
    "invite": "home:InviteScreen", "count": "count:CountScreen", "scoreboard": "match:ScoreboardScreen", "brief": "match:BriefScreen",
    "round": "scoring:RoundScreen",
}


def screen_class(name: str) -> type[Screen]:
    module, attr = SCREENS[name].split(":")
    found: type[Screen] = getattr(import_module(f"chickenfoot.app.views.{module}"), attr)
    return found


def route_screen(app: App, route: str) -> Screen:
    """The screen at ``route``; raises :class:`NotFound` when it names none."""
    r: Route | None = parse(route)
    if r is None or (r.screen == "invite" and not app.ctx.invite_url):
        raise NotFound(f"nothing at {route}")
    return screen_class(r.screen)(app, r)
