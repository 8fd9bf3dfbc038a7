"""Practice a round against bots: :class:`Practice`, the state object the practice screens and
``chickenfoot practice`` drive. It sits on the scorekeeper (a finished round is scored by
:class:`~chickenfoot.match.model.Match`) and the board drawing."""

from .round import DEFAULT_BOT, Event, Practice, Seat, seats_for

__all__ = ["DEFAULT_BOT", "Event", "Practice", "Seat", "seats_for"]
