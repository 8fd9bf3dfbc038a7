"""The app's addresses: one table from a route (``/match/ab12/round/2``) to the screen it shows.

Flet-free, so the shell, the views and the tests read a route the same way. A route that names
nothing parses to None.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Screens whose address is a single word (``/history``), by that word.
PLAIN = ("new", "history", "stats", "rules", "settings", "dispute", "practice", "invite", "count")
#: Screens that list matches: redrawn when any match changes.
MATCH_LISTS = ("home", "history", "stats")


@dataclass(frozen=True)
class Route:
    """Which screen an address shows, and the match (and round) it is about."""

    screen: str
    match_id: str | None = None
    #: ``/match/<id>/round/<n>``: round ``n`` being edited (None: the next round).
    number: int | None = None

    @property
    def lists_matches(self) -> bool:
        return self.screen in MATCH_LISTS

    @property
    def path(self) -> str:
        if self.screen == "home":
            return "/"
        if self.match_id is None:
            return f"/{self.screen}"
        tail = {"scoreboard": "", "round": "/round", "brief": "/brief"}[self.screen]
        if self.number is not None:
            tail += f"/{self.number}"
        return f"/match/{self.match_id}{tail}"

    def about(self, match_id: str) -> bool:
        """True when this screen shows match ``match_id`` (or every match)."""
        return self.lists_matches or self.match_id == match_id


def parse(route: str | None) -> Route | None:
    """The screen at ``route`` (query string ignored), or None when it names none."""
    parts = [p for p in (route or "/").split("?")[0].split("/") if p]
    if not parts:
        return Route("home")
    head = parts[0]
    if head in PLAIN and len(parts) == 1:
        return Route(head)
    if head == "match" and len(parts) >= 2:
        mid = parts[1]
        if len(parts) == 2:
            return Route("scoreboard", mid)
        if parts[2] == "round" and len(parts) <= 4:
            number = None
            if len(parts) == 4:
                if not parts[3].isdigit():
                    return None
                number = int(parts[3])
            return Route("round", mid, number)
        if parts[2] == "brief" and len(parts) == 3:
            return Route("brief", mid)
    return None
