"""Screens: each ``build_*`` returns (title, controls, back route) for the shell to show."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from companion.rules.errors import InputError

if TYPE_CHECKING:
    from companion.app.shell import App


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
    from . import dispute, home, match, practice, scoring, setup

    parts = [p for p in route.split("?")[0].split("/") if p]
    if not parts:
        return home.build_home(app)
    head = parts[0]
    if head == "new":
        return setup.build_new(app)
    if head == "match" and len(parts) >= 2:
        mid = parts[1]
        if len(parts) == 2:
            return match.build_scoreboard(app, mid)
        if parts[2] == "round":
            number = int(parts[3]) if len(parts) > 3 and parts[3].isdigit() else None
            return scoring.build_round_entry(app, mid, number)
        if parts[2] == "brief":
            return match.build_brief(app, mid)
    if head == "history":
        return home.build_history(app)
    if head == "stats":
        return home.build_stats(app)
    if head == "rules":
        return home.build_rules(app)
    if head == "settings":
        return home.build_settings(app)
    if head == "dispute":
        return dispute.build_dispute(app)
    if head == "practice":
        return practice.build_practice(app)
    if head == "invite" and app.ctx.invite_url:
        return home.build_invite(app)
    raise NotFound(f"nothing at {route}")
