"""The router: from an address (see :mod:`chickenfoot.app.routes`) to the screen that shows it."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

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
    "invite": "home:InviteScreen", "scoreboard": "match:ScoreboardScreen", "brief": "match:BriefScreen",
    "round": "scoring:build_round_entry",
}


class _Function(Screen):
    """A screen still written as a function of the app (and the route's match and round)."""

    fn: Any = None

    def view(self) -> tuple[Any, ...]:
        r = self.route
        if r.screen == "round":
            return type(self).fn(self.app, r.match_id, r.number)
        return type(self).fn(self.app, r.match_id) if r.match_id is not None else type(self).fn(self.app)


def screen_class(name: str) -> type[Screen]:
    module, attr = SCREENS[name].split(":")
    found = getattr(import_module(f"chickenfoot.app.views.{module}"), attr)
    if isinstance(found, type) and issubclass(found, Screen):
        return found
    return type(attr, (_Function,), {"fn": staticmethod(found)})


def route_screen(app: App, route: str) -> Screen:
    """The screen at ``route``; raises :class:`NotFound` when it names none."""
    r: Route | None = parse(route)
    if r is None or (r.screen == "invite" and not app.ctx.invite_url):
        raise NotFound(f"nothing at {route}")
    return screen_class(r.screen)(app, r)
