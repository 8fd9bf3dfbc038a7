"""A practice round against bots: the state object the practice screens and ``chickenfoot
practice`` drive.

:class:`Practice` deals a seeded round of any preset for 2-8 seats (each a person or a bot),
puts the round's double down as the rules say, and lets the bots play until a person has to
act. A person plays a tile on an open end, draws or passes; a move the rules forbid is refused
with the rules core's reason (:class:`~chickenfoot.rules.errors.IllegalPlayError`, ``reason`` a
stable code). When the round ends its penalties are scored by the scorekeeper's own
:class:`~chickenfoot.match.model.Match`, so a practice round counts exactly as a real one; the
round can then be dealt again, or continued as a match against the same bots.

Everything shown to a person comes from here (hand, hint, what may be done now, what the bots
did, the board), so a screen only draws it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from chickenfoot.board import Board, from_round
from chickenfoot.match.model import Match
from chickenfoot.rules.bots import BOTS, Bot, make_bot
from chickenfoot.rules.engine import BLOCKED, DEAD_FOOT, DRAW, OUT, PASS, RoundState, new_round
from chickenfoot.rules.errors import IllegalPlayError, InputError
from chickenfoot.rules.plays import Play
from chickenfoot.rules.ruleset import RuleSet
from chickenfoot.rules.tiles import Tile

#: The bot a seat gets when none is named.
DEFAULT_BOT = "greedy"


@dataclass(frozen=True, slots=True)
class Seat:
    """A seat at the practice table: a person (``bot`` None) or a bot by name."""

    name: str
    bot: str | None = None

    @property
    def person(self) -> bool:
        return self.bot is None


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened, for the screen's log: ``kind`` is place, play, draw, pass or end."""

    seat: int
    kind: str
    text: str
    tile: Tile | None = None
    on: Tile | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"seat": self.seat, "kind": self.kind, "text": self.text}
        if self.tile is not None:
            d["tile"] = str(self.tile)
        if self.on is not None:
            d["on"] = str(self.on)
        return d


def seats_for(players: int, bots: Sequence[int] | None = None, bot: str = DEFAULT_BOT,
              names: Sequence[str] | None = None) -> list[Seat]:
    """``players`` seats; the seats listed in ``bots`` (default: all but seat 0) are ``bot`` bots."""
    if bot not in BOTS:
        raise InputError(f"unknown bot {bot!r}; bots are: {', '.join(BOTS)}")
    chosen = set(range(1, players)) if bots is None else set(bots)
    bad = sorted(s for s in chosen if not 0 <= s < players)
    if bad:
        raise InputError(f"there is no seat {bad[0]} at a table of {players} (seats are 0-{players - 1})")
    if names is not None and len(names) != players:
        raise InputError(f"{len(names)} names for {players} seats")
    out = []
    for s in range(players):
        default = f"Bot {s}" if s in chosen else ("You" if len(chosen) == players - 1 else f"Player {s}")
        out.append(Seat(names[s] if names else default, bot if s in chosen else None))
    return out


class Practice:
    """One practice round in progress (and the match it belongs to, once continued)."""

    def __init__(self, rules: RuleSet, seats: Sequence[Seat], seed: int = 0, *,
                 match: Match | None = None) -> None:
        players = len(seats)
        rules.check_players(players)
        self.rules = rules
        self.seats = tuple(seats)
        self.seed = seed
        # The match this round is scored in: a fresh one for a single practice round.
        self.match = match if match is not None else Match.new([s.name for s in self.seats], rules)
        if self.match.is_over:
            raise InputError("the match is over: start a new practice")
        self.round_index = len(self.match.rounds)
        self.state: RoundState = new_round(rules, players, self.round_index,
                                           random.Random(f"{seed}:{self.round_index}"))
        self._bots: list[Bot | None] = [
            None if s.person else make_bot(s.bot or DEFAULT_BOT, random.Random(f"{seed}:{self.round_index}:{i}"))
            for i, s in enumerate(self.seats)]
        self.events: list[Event] = [self._setup_event(kind, seat, tile) for kind, seat, tile, _ in self.state.setup]
        if self.state.placed_by is None:
            self.events.append(Event(-1, "place", f"{self.state.hub} starts the round in the centre.",
                                     self.state.hub))
        self._scored: Match | None = None
        self.advance()

    @classmethod
    def new(cls, rules: RuleSet, players: int, *, bots: Sequence[int] | None = None, bot: str = DEFAULT_BOT,
            names: Sequence[str] | None = None, seed: int | None = None) -> Practice:
        """A practice round: ``players`` seats, the ``bots`` seats (default all but seat 0)
        played by ``bot`` bots, dealt from ``seed`` (default: a random one)."""
        rules.check_players(players)  # before a seat is made: a mistyped 10**9 would make that many
        seed = random.randrange(2**32) if seed is None else seed
        return cls(rules, seats_for(players, bots, bot, names), seed)

    # ---------------------------------------------------------------- reading
    @property
    def over(self) -> bool:
        return self.state.terminal

    @property
    def to_act(self) -> int | None:
        """The seat whose turn it is (None once the round is over)."""
        return None if self.over else self.state.current

    @property
    def waiting(self) -> bool:
        """Whether a person has to act now."""
        return not self.over and self.seats[self.state.current].person

    def hand(self, seat: int | None = None) -> tuple[Tile, ...]:
        """A seat's tiles, sorted by suit (the person to act, or the only person, by default)."""
        return tuple(sorted(self.state.hands[self._person(seat)]))

    def hint(self) -> list[Play]:
        """Every legal play for the person to act ("Hint")."""
        if not self.waiting:
            return []
        return [a for a in self.state.legal_actions() if isinstance(a, Play)]

    @property
    def can_draw(self) -> bool:
        return self.waiting and DRAW in self.state.legal_actions()

    @property
    def can_pass(self) -> bool:
        return self.waiting and PASS in self.state.legal_actions()

    @property
    def drawn(self) -> Tile | None:
        """The tile the person to act has just drawn (only it may be played now)."""
        return self.state.hands[self.state.current][-1] if self.waiting and self.state.drew else None

    def board(self) -> Board:
        return from_round(self.state)

    def hand_sizes(self) -> list[int]:
        return [len(h) for h in self.state.hands]

    @property
    def boneyard(self) -> int:
        return len(self.state.boneyard)

    # ---------------------------------------------------------------- acting
    def play(self, tile: Tile | str, on: Tile | str) -> Event:
        """The person to act lays ``tile`` on ``on``; refused with the rules core's reason."""
        seat = self._turn()
        t, target = Tile.parse(tile), Tile.parse(on)
        if t not in self.state.hands[seat]:
            raise IllegalPlayError(f"{t} is not in your hand.", "not-in-hand")
        drawn = self.drawn
        if drawn is not None and t != drawn:
            raise IllegalPlayError(f"You have drawn {drawn}: only it may be played now, or pass.",
                                   "only-drawn-tile")
        verdict = self.state.table.judge(t, target)
        if not verdict.legal:
            raise IllegalPlayError(verdict.message, verdict.code)
        self.state.apply((t, target))
        event = self._event(seat, "play", t, target)
        self.advance()
        return event

    def draw(self) -> Event:
        """The person to act draws a tile (only when nothing in hand fits)."""
        return self._draw_or_pass(DRAW)

    def pass_turn(self) -> Event:
        return self._draw_or_pass(PASS)

    def _draw_or_pass(self, action: str) -> Event:
        seat = self._turn()
        if action not in self.state.legal_actions():
            raise self._refusal(action)
        self.state.apply(action)
        event = self._event(seat, action, self.state.hands[seat][-1] if action == DRAW else None)
        self.advance()
        return event

    def advance(self) -> list[Event]:
        """Let the bots play until a person has to act or the round ends."""
        new: list[Event] = []
        state = self.state
        while not state.terminal and not self.seats[state.current].person:
            seat = state.current
            legal = state.legal_actions()
            bot = self._bots[seat]
            assert bot is not None
            action = legal[0] if len(legal) == 1 else bot.choose(state, legal)
            state.apply(action, check=False)
            if isinstance(action, Play):
                new.append(self._event(seat, "play", action.tile, action.target))
            elif action == DRAW:
                new.append(self._event(seat, "draw", None))
            else:
                new.append(self._event(seat, "pass"))
        if state.terminal and (not self.events or self.events[-1].kind != "end"):
            self.events.append(Event(-1 if state.out is None else state.out, "end", self._end_text()))
        return new

    # ---------------------------------------------------------------- scoring
    def scored(self) -> Match:
        """The match with this round scored by the scorekeeper (once the round is over)."""
        if not self.over:
            raise InputError("the round is not over yet")
        if self._scored is None:
            s = self.state
            names = [seat.name for seat in self.seats]
            out = None if s.outcome != OUT else names[s.out]  # type: ignore[index]
            tiles = {names[i]: [str(t) for t in h] for i, h in enumerate(s.hands) if names[i] != out}
            holder = None if s.placed_by is None else names[s.placed_by]
            started = s.hub.low if s.hub.low != s.round_double else None
            self._scored = self.match.add_round(tiles=tiles, out=out, blocked=out is None, holder=holder,
                                                started_with=started)
        return self._scored

    def penalties(self) -> list[int]:
        return list(self.scored().rounds[-1].penalties)

    def again(self, seed: int | None = None) -> Practice:
        """Play again: a fresh practice with the same rules and seats, dealt anew."""
        return Practice(self.rules, self.seats, random.randrange(2**32) if seed is None else seed)

    def next_round(self) -> Practice:
        """Continue as a match against the same bots: the next round, this one scored."""
        return Practice(self.rules, self.seats, self.seed, match=self.scored())

    # ---------------------------------------------------------------- output
    def to_dict(self, seat: int | None = None) -> dict[str, Any]:
        """What a person at ``seat`` may see, JSON-ready."""
        s = self.state
        who = self._person(seat, required=False)
        data: dict[str, Any] = {
            "rules": self.rules.name,
            "seed": self.seed,
            "round": self.round_index + 1,
            "hub": str(s.hub),
            "seats": [{"name": x.name, "bot": x.bot, "tiles": n} for x, n in zip(self.seats, self.hand_sizes(), strict=True)],
            "boneyard": self.boneyard,
            "to_act": self.to_act,
            "layout": s.layout().to_dict(),
            "open_ends": [e.to_dict() for e in s.table.open_ends()],
            "events": [e.to_dict() for e in self.events],
        }
        if who is not None:
            data["seat"] = who
            data["hand"] = [str(t) for t in self.hand(who)]
        if self.waiting:
            data["hint"] = [p.to_dict() for p in self.hint()]
            data["can_draw"], data["can_pass"] = self.can_draw, self.can_pass
            if self.drawn is not None:
                data["drawn"] = str(self.drawn)
        if self.over:
            m = self.scored()
            data["end"] = s.outcome
            data["out"] = s.out
            data["penalties"] = list(m.rounds[-1].penalties)
            data["totals"] = m.totals()
            data["match_over"] = m.is_over
            data["winners"] = m.winners if m.is_over else []
        return data

    # ---------------------------------------------------------------- helpers
    def _person(self, seat: int | None, required: bool = True) -> int:
        if seat is not None:
            if not 0 <= seat < len(self.seats):
                raise InputError(f"there is no seat {seat}")
            return seat
        if self.waiting:
            return self.state.current
        people = [i for i, s in enumerate(self.seats) if s.person]
        if people:
            return people[0]
        if required:
            raise InputError("every seat is a bot")
        return None  # type: ignore[return-value]

    def _turn(self) -> int:
        if self.over:
            raise IllegalPlayError("The round is over.", "round-over")
        if not self.waiting:
            raise IllegalPlayError(f"It is {self.seats[self.state.current].name}'s turn.", "not-your-turn")
        return self.state.current

    def _refusal(self, action: str) -> IllegalPlayError:
        legal = self.state.legal_actions()
        if any(isinstance(a, Play) for a in legal) and PASS not in legal:
            return IllegalPlayError("A tile in your hand fits: play it (Hint shows where).", "has-play")
        if action == PASS and DRAW in legal:
            return IllegalPlayError("Draw a tile first: you may pass only when the boneyard has none "
                                    "or the tile you drew does not fit.", "must-draw")
        if action == DRAW and self.state.drew:
            return IllegalPlayError("You have drawn already: play the drawn tile or pass.", "drawn-already")
        if action == DRAW and not self.state.boneyard:
            return IllegalPlayError("The boneyard is empty: pass.", "boneyard-empty")
        return IllegalPlayError(f"You cannot {action} now.", "illegal-action")

    def _event(self, seat: int, kind: str, tile: Tile | None = None, on: Tile | None = None) -> Event:
        name = self.seats[seat].name
        shown = self.seats[seat].person
        if kind == "play":
            t = self.state.table
            text = f"{name} played {t.show(tile)} on {t.show(on)}."  # type: ignore[arg-type]
        elif kind == "draw":
            text = f"{name} drew {tile}." if shown and tile is not None else f"{name} drew a tile."
            tile = tile if shown else None
        else:
            text = f"{name} passed."
        event = Event(seat, kind, text, tile, on)
        self.events.append(event)
        return event

    def _setup_event(self, kind: str, seat: int, tile: Tile | None) -> Event:
        name = self.seats[seat].name
        if kind == "place":
            return Event(seat, "place", f"{name} placed {tile} in the centre.", tile)
        shown = self.seats[seat].person
        return Event(seat, "draw", f"{name} drew {tile} looking for the round's double." if shown
                     else f"{name} drew a tile looking for the round's double.", tile if shown else None)

    def _end_text(self) -> str:
        s = self.state
        if s.outcome == OUT:
            return f"{self.seats[s.out].name} went out."  # type: ignore[index]
        if s.outcome == DEAD_FOOT:
            return f"The {s.table.open_foot} foot can no longer be completed: the round ends."
        assert s.outcome == BLOCKED
        return "Nobody can play and the boneyard is empty: the round is blocked."
