"""Screens: each ``build_*`` returns (title, controls, back route) for the shell to show."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from chickenfoot.rules.errors import InputError

if TYPE_CHECKING:
    from chickenfoot.app.shell import App


class NotFound(InputError):
    """A route that names nothing (a deleted match, a mistyped address)."""


def bind(fn: Callable[..., Any], *args: Any) -> Callable[[Any], Any]:
    """A click handler calling ``fn(*args)`` (binds loop values without closure surprises)."""
    return lambda _e: fn(*args)


def bind_event(fn: Callable[..., Any], *args: Any) -> Callable[[Any], Any]:
    """A change/submit handler calling ``fn(*args, control value)``."""
    return lambda e: fn(*args, e.control.value)


def build(app: App, route: str) -> tuple[Any, ...]:
    """(title, controls, back route) or, for screens with a fixed bottom part, (..., footer)."""
    from chickenfoot.app.routes import parse

    from . import dispute, home, match, practice, scoring, setup

    screens: dict[str, Callable[..., tuple[Any, ...]]] = {
        "home": home.build_home, "new": setup.build_new, "history": home.build_history,
        "stats": home.build_stats, "rules": home.build_rules, "settings": home.build_settings,
        "dispute": dispute.build_dispute, "practice": practice.build_practice,
        "invite": home.build_invite,
        "scoreboard": lambda a, r: match.build_scoreboard(a, r.match_id),
        "brief": lambda a, r: match.build_brief(a, r.match_id),
        "round": lambda a, r: scoring.build_round_entry(a, r.match_id, r.number),
    }
    r = parse(route)
    if r is None or (r.screen == "invite" and not app.ctx.invite_url):
        raise NotFound(f"nothing at {route}")
    fn = screens[r.screen]
    return fn(app, r) if r.match_id is not None else fn(app)
