"""Screens: each a :class:`Screen` over the session and a typed state of its own, whose
:meth:`Screen.view` gives (title, controls, back route[, fixed bottom part]) for the shell to
show; the router (:mod:`chickenfoot.app.router`) finds the screen of a route."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from chickenfoot.app.session import NoState
from chickenfoot.rules.errors import InputError

if TYPE_CHECKING:
    from chickenfoot.app.routes import Route
    from chickenfoot.app.shell import App


class NotFound(InputError):
    """A route that names nothing (a deleted match, a mistyped address)."""


def bind(fn: Callable[..., Any], *args: Any) -> Callable[[Any], Any]:
    """A click handler calling ``fn(*args)`` (binds loop values without closure surprises)."""
    return lambda _e: fn(*args)


def bind_event(fn: Callable[..., Any], *args: Any) -> Callable[[Any], Any]:
    """A change/submit handler calling ``fn(*args, control value)``."""
    return lambda e: fn(*args, e.control.value)


class Screen:
    """One screen, drawn afresh from the session and its own state at every redraw (Flet
    reconciles the new controls with those shown): handlers change the state or the session and
    call ``app.render()``, never the controls drawn."""

    #: The dataclass of what the screen keeps while it is shown (made afresh when it opens).
    State: type = NoState

    def __init__(self, app: App, route: Route) -> None:
        self.app = app
        self.route = route
        self.session = app.session
        self.state = app.session.state_of(self.State)

    def view(self) -> tuple[Any, ...]:
        """(title, controls, back route) or, for screens with a fixed bottom part, (..., footer)."""
        raise NotImplementedError
