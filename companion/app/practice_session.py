"""The practice screen's state: the choices before the deal, and a round against bots in play.

:class:`PracticeSetup` collects the rules (any preset and its options, through the new-match
form's own :class:`~chickenfoot.app.setup.MatchSetup`), the number of seats, which seats are bots,
the bots' kind and the seed of the shuffle. :class:`PracticeSession` sits on
:class:`chickenfoot.practice.Practice`: it keeps what the person has chosen (a tile from the hand),
the reason the last try was refused, whether the hint is shown and what happened since the
person last acted. Every rule, every bot move and every penalty comes from the practice round
(the rules core and the scorekeeper); nothing here decides one.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from chickenfoot.app.dispute import TableNeeds
from chickenfoot.app.setup import MatchSetup
from chickenfoot.board.scene import LIGHT, Palette
from chickenfoot.practice import Practice, seats_for
from chickenfoot.rules.bots import BOTS
from chickenfoot.rules.errors import ChickenFootError, IllegalPlayError, InputError
from chickenfoot.rules.tiles import Tile
from chickenfoot.rules.words import count

if TYPE_CHECKING:
    from chickenfoot.board import Picture
    from chickenfoot.practice import Event
    from chickenfoot.rules.plays import Play

MIN_SEATS, MAX_SEATS = 2, 8
#: What each bot does, as the setup screen says it.
BOT_WORDS = {
    "greedy": "sheds its heaviest tile that fits",
    "random": "plays any legal move, at random",
    "lookahead": "tries each move against guesses at the hidden tiles (the strongest)",
}


class PracticeError(InputError):
    """A practice choice or action that cannot be done (no seat of yours, no tile chosen)."""


class PracticeSetup:
    """The choices before the deal."""

    def __init__(self, preset: str = "double-chicken-foot", options: dict[str, Any] | None = None,
                 seats: int = 4, bot: str = "greedy", seed: int | None = None) -> None:
        self.form = MatchSetup(preset, options)
        self.seats = 0
        self.bot = "greedy"
        self.bots: set[int] = set()
        self.seed = random.randrange(10**6) if seed is None else seed
        self.set_bot(bot)
        self.set_seats(seats)

    @property
    def rules(self) -> Any:
        return self.form.rules

    def names(self) -> list[str]:
        return [s.name for s in seats_for(self.seats, sorted(self.bots), self.bot)]

    def _sync(self) -> None:
        # The rules form reads the seats as its players (what the deal and the rounds will be).
        self.form.players = self.names()

    def set_seats(self, n: int | str) -> None:
        try:
            n = int(n)
        except (TypeError, ValueError):
            raise PracticeError(f"{n!r} is not a number of seats") from None
        if not MIN_SEATS <= n <= MAX_SEATS:
            raise PracticeError(f"a practice table has {MIN_SEATS} to {MAX_SEATS} seats")
        self.seats = n
        self.bots = set(range(1, n))  # every seat but the first is a bot until told otherwise
        self._sync()

    def set_bot_seat(self, seat: int, bot: bool) -> None:
        if not 0 <= seat < self.seats:
            raise PracticeError(f"there is no seat {seat + 1}")
        if bot:
            self.bots.add(seat)
        else:
            self.bots.discard(seat)
        self._sync()

    def set_bot(self, kind: str) -> None:
        if kind not in BOTS:
            raise PracticeError(f"unknown bot {kind!r}; bots are: {', '.join(BOTS)}")
        self.bot = kind
        if self.seats:
            self._sync()

    def set_seed(self, text: str | int) -> None:
        try:
            seed = int(str(text).strip())
        except ValueError:
            raise PracticeError(f"the deal number is a whole number, not {str(text)!r}") from None
        if not 0 <= seed < 2**32:
            raise PracticeError("the deal number is from 0 to 4294967295")
        self.seed = seed

    def problems(self) -> list[str]:
        out = self.form.problems()
        if len(self.bots) == self.seats:
            out.append("every seat is a bot: keep at least one seat for a person")
        return out

    def summary(self) -> list[str]:
        return self.form.summary()

    def start(self) -> PracticeSession:
        problems = self.problems()
        if problems:
            raise PracticeError("; ".join(problems))
        return PracticeSession(Practice.new(self.rules, self.seats, bots=sorted(self.bots), bot=self.bot,
                                            seed=self.seed))


@dataclass(frozen=True, slots=True)
class SeatLine:
    """One seat at the end of a round: its penalty and its match total."""

    name: str
    bot: str | None
    tiles_left: int
    penalty: int
    total: int
    #: The tiles left in the hand, shown at the end so the penalty can be counted along.
    tiles: tuple[Tile, ...] = ()


class PracticeSession:
    """A practice round in play, as the screen shows it."""

    def __init__(self, practice: Practice) -> None:
        self.practice = practice
        self.selected: Tile | None = None
        #: The rules core's reason the last try was refused (None after a move that stood).
        self.refusal: str | None = None
        self.hint_shown = False
        #: Where in the round's events the person's last action begins (what happened since).
        self.since = 0
        self._picture: tuple[Any, Picture, bytes] | None = None
        #: The colours the board is drawn in (the screen's theme: see ``App.board_palette``).
        self.palette: Palette = LIGHT

    # ------------------------------------------------------------ reading
    @property
    def over(self) -> bool:
        return self.practice.over

    @property
    def waiting(self) -> bool:
        return self.practice.waiting

    @property
    def who(self) -> str:
        """The person to act (or the first person, once the round is over)."""
        p = self.practice
        if p.waiting:
            return p.seats[p.state.current].name
        return next((s.name for s in p.seats if s.person), p.seats[0].name)

    def hand(self) -> tuple[Tile, ...]:
        return self.practice.hand()

    @property
    def drawn(self) -> Tile | None:
        return self.practice.drawn

    def hint(self) -> list[str]:
        """Every legal play for the person to act, in words ("4-7 on 9-4")."""
        return [self._play_words(p) for p in self.practice.hint()]

    def _play_words(self, p: Play) -> str:
        """As the chips and the drawing name it: the tile turned to the end it goes on, the end
        as it lies ("1-3 on 5-1", beside the chip "1 on 5-1")."""
        table = self.practice.state.table
        return f"{table.show(p.tile, table.value.get(p.target))} on {table.show(p.target)}"

    def open_ends(self) -> list[Any]:
        return self.practice.state.table.open_ends()

    def needs(self) -> list[str]:
        """What the table needs now (spokes, the open foot), in words."""
        t = self.practice.state.table
        foot = t.open_foot
        return TableNeeds(t.short.get(t.hub, 0), foot, t.short.get(foot, 0) if foot else 0).sentences(t.hub)

    def status(self) -> str:
        p = self.practice
        if p.over:
            return p.events[-1].text if p.events and p.events[-1].kind == "end" else "The round is over."
        if not p.waiting:
            return f"{p.seats[p.state.current].name} to play."
        who = "" if self.who == "You" else f", {self.who}"  # a table with more than one person
        plays = bool(p.hint())
        if self.drawn is not None:
            if not plays:
                return f"Your turn{who}: you drew {self.drawn}; it fits nowhere, so pass."
            if not p.can_pass:
                return f"Your turn{who}: you drew {self.drawn}; it fits, and the rules say it is played."
            return f"Your turn{who}: you drew {self.drawn}; play it, or pass."
        if not plays:  # what the only move is, said where the eye goes first
            if p.can_draw:
                return f"Your turn{who}: nothing in your hand fits, so draw a tile."
            if p.can_pass:
                return f"Your turn{who}: nothing in your hand fits and the boneyard is empty, so pass."
        return f"Your turn{who}: choose a tile, then an open end."

    def ending(self) -> str:
        """Once the round is over, what the screen's fixed part says: how it ended and the
        penalty of each person at this device (the table of every seat lies under the board)."""
        people = [x for x in self.results() if not x.bot]
        if len(people) == 1:
            mine = f"Your penalty: {count(people[0].penalty, 'point')}."
        else:
            mine = "Penalties: " + ", ".join(f"{x.name} {x.penalty}" for x in people) + "."
        return f"{self.status()} {mine}" if people else self.status()

    def recent(self) -> list[Event]:
        """What happened since the person last acted (their move and the bots' after it)."""
        return self.practice.events[self.since:]

    def seats(self) -> list[str]:
        """Each seat with its tiles left: "Bot 1 (greedy): 5 tiles"."""
        p = self.practice
        out = []
        for i, (s, n) in enumerate(zip(p.seats, p.hand_sizes(), strict=True)):
            turn = " (to play)" if p.to_act == i else ""
            kind = f" ({s.bot})" if s.bot else ""
            out.append(f"{s.name}{kind}: {n} tile{'s' if n != 1 else ''}{turn}")
        return out

    def picture(self) -> tuple[Picture, bytes]:
        """The table drawn (and its PNG), laid out again only when a tile has been laid."""
        from chickenfoot.board import picture

        s = self.practice.state
        key = (len(s.table.order), self.palette)
        if self._picture is None or self._picture[0] != key:
            pic = picture(self.practice.board(), palette=self.palette)
            self._picture = (key, pic, pic.png())
        return self._picture[1], self._picture[2]

    def results(self) -> list[SeatLine]:
        """Once the round is over: every seat's penalty (scored by the scorekeeper) and total."""
        m = self.practice.scored()
        r = m.rounds[-1]
        totals = m.totals()
        return [SeatLine(s.name, s.bot, len(hand), pen, tot, tuple(sorted(hand))) for s, hand, pen, tot in
                zip(self.practice.seats, self.practice.state.hands, r.penalties, totals, strict=True)]

    def match_words(self) -> str:
        m = self.practice.scored()
        if m.is_over:
            return f"The match is over after {len(m.rounds)} rounds: won by {', '.join(m.winners)}."
        return f"Round {len(m.rounds)} of {m.planned_rounds}."

    @property
    def match_over(self) -> bool:
        return self.over and self.practice.scored().is_over

    # ------------------------------------------------------------ acting
    def choose(self, tile: Tile | str) -> None:
        """Pick a tile from the hand (picking it again puts it back)."""
        t = Tile.parse(tile)
        if t not in self.practice.hand():
            raise PracticeError(f"{t} is not in your hand")
        self.selected = None if self.selected == t else t
        self.refusal = None

    def play_on(self, target: Tile | str) -> bool:
        """Lay the chosen tile on ``target``. A play the rules forbid is refused: the reason is
        kept in :attr:`refusal` and False returned (nothing changes)."""
        tile = self.selected or self.drawn
        if tile is None:
            raise PracticeError("choose a tile from your hand first, then an open end")
        return self._act(lambda: self.practice.play(tile, target))

    def tap(self, px: float, py: float, reach_px: float = 14.0) -> bool:
        """A tap on the drawing at image pixel ``(px, py)``: the chosen tile on the open end there."""
        pic, _ = self.picture()
        mark = pic.end_at(px, py, reach_px)
        if mark is None:
            raise PracticeError("that is not an open end: tap a dashed place on the board")
        return self.play_on(mark.end.target)

    def draw(self) -> bool:
        return self._act(self.practice.draw)

    def pass_turn(self) -> bool:
        return self._act(self.practice.pass_turn)

    def show_hint(self) -> None:
        self.hint_shown = not self.hint_shown

    def _act(self, fn: Any) -> bool:
        start = len(self.practice.events)
        try:
            fn()
        except IllegalPlayError as exc:
            self.refusal = str(exc)
            return False
        self.since = start
        self.selected, self.refusal, self.hint_shown = None, None, False
        drawn = self.drawn
        if drawn is not None:
            self.selected = drawn  # only the drawn tile may be played now
        return True

    def again(self, seed: int | None = None) -> PracticeSession:
        """Play again: the same table dealt anew (a new deal number unless given)."""
        return PracticeSession(self.practice.again(random.randrange(10**6) if seed is None else seed))

    def next_round(self) -> PracticeSession:
        """Continue as a match against the bots: the next round, this one scored."""
        if not self.over:
            raise PracticeError("the round is not over yet")
        try:
            return PracticeSession(self.practice.next_round())
        except ChickenFootError as exc:
            raise PracticeError(str(exc)) from None
