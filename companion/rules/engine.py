"""The round engine: hidden hands, boneyard, draws, passes, going out, blocked rounds.

OpenSpiel-style: the :class:`~chickenfoot.rules.ruleset.RuleSet` is frozen and lives apart from
the changing :class:`RoundState`; all randomness comes from the ``random.Random`` passed to
:func:`new_round` (the shuffle), so a seed replays a round exactly. ``state.apply(action)``
changes the state in place (fast, for simulation); ``state.child(action)`` returns a new state
and leaves the original untouched.

Actions are :class:`~chickenfoot.rules.plays.Play` tuples, :data:`DRAW` or :data:`PASS`. Only
the player to act has choices, and :meth:`RoundState.legal_actions` lists them:

* a player who can play must play (any legal play);
* a player who cannot play draws one tile (:data:`DRAW`) while the boneyard has tiles;
* after drawing, what happens follows ``rules.draw``: ``may-play`` offers the drawn tile's
  plays and :data:`PASS`; ``must-play`` offers only its plays; ``draw-until-playable`` offers
  :data:`DRAW` again until a tile fits (then it must be played) or the boneyard is empty;
* a player who cannot play and cannot draw (or drew and could not play) passes.

The round ends when a player plays their last tile (``out``), when the boneyard is empty and
every player in turn has passed without being able to play (``blocked``), or, with
``end_when_foot_dead`` (Chickie Sixes), when the open foot can no longer get its toes because
too few tiles showing its number are left off the table (``dead-foot``).

How the round's double reaches the table (decided before the first play, no choices involved):

* ``Start.CENTRE``: the double is taken out of the set before the deal and is the hub.
* ``Start.HOLDER``: its holder places it. Nobody holds it:
  ``draw-until-found``: starting with the round's rotating seat, players draw one tile each in
  turn until it appears; the finder places it. ``next-highest``: the holder of the highest
  double below it places that one; if nobody holds one, players draw in turn until any double at
  or below the round's appears, and its drawer places it. ``skip``: the round is played from the
  next lower double someone holds; if nobody holds one, players draw in turn until the round's
  own double appears.

The first play: ``FirstPlayer.ROTATE`` gives seat ``round_index % players``; ``AFTER_HOLDER``
gives the seat after whoever placed the double (with ``Start.CENTRE`` nobody placed it, so the
seat rotates).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from .errors import IllegalPlayError, InputError
from .layout import Layout, Placement, Table
from .plays import Play, hand_plays, has_play
from .ruleset import DrawPolicy, FirstPlayer, MissingDouble, RuleSet, Start
from .seeded import shuffle
from .tiles import Tile, full_set

DRAW = "draw"
PASS = "pass"
Action = Play | str
#: A bot's ``choose``: the state (seat to act, hands, table) and the legal actions -> one of them.
Chooser = Callable[["RoundState", list[Action]], Action]

OUT = "out"
BLOCKED = "blocked"
DEAD_FOOT = "dead-foot"

# Setup and turn events, kept as small tuples (kind, seat, tile, on) for speed.
Event = tuple[str, int, Tile | None, Tile | None]

_SETS: dict[int, tuple[Tile, ...]] = {}


def canonical_set(top: int) -> tuple[Tile, ...]:
    """The double-``top`` set as shared Tile objects (identity makes dict lookups fast)."""
    tiles = _SETS.get(top)
    if tiles is None:
        tiles = _SETS[top] = full_set(top)
    return tiles


def _double(top: int, n: int) -> Tile:
    # full_set order: (a, b) for a in 0..top, b in a..top; the double n-n sits at row n's start.
    return canonical_set(top)[n * (top + 1) - n * (n - 1) // 2]


class RoundState:
    """One round in progress. Read the fields; change it only through ``apply``/``child``."""

    __slots__ = (
        "_draw",
        "boneyard",
        "current",
        "dealt",
        "drew",
        "first_player",
        "hands",
        "history",
        "hub",
        "out",
        "outcome",
        "passes",
        "placed_by",
        "players",
        "round_double",
        "round_index",
        "rules",
        "setup",
        "table",
        "top",
    )

    rules: RuleSet
    players: int
    top: int
    round_index: int
    #: The double the round is meant to start from (its place in the match's sequence).
    round_double: int
    #: The double actually at the centre (lower than ``round_double`` only with
    #: ``next-highest`` or ``skip`` when nobody held the round's double).
    hub: Tile
    placed_by: int | None
    first_player: int
    hands: list[list[Tile]]
    dealt: list[tuple[Tile, ...]]
    boneyard: list[Tile]
    table: Table
    current: int
    drew: bool
    passes: int
    outcome: str | None
    out: int | None
    setup: list[Event]
    history: list[Event]

    # ------------------------------------------------------------------ queries
    @property
    def terminal(self) -> bool:
        return self.outcome is not None

    def hand(self, seat: int) -> tuple[Tile, ...]:
        return tuple(self.hands[seat])

    def legal_actions(self) -> list[Action]:
        """What the player to act may do, plays first; empty when the round is over."""
        return self._turns(None, 1)

    def penalties(self) -> list[int]:
        """Penalty points per seat for the tiles left in hand (0-0 per the rules)."""
        return [self.rules.penalty(h) for h in self.hands]

    def plays(self) -> list[tuple[int, Tile, Tile]]:
        """Every play so far as ``(seat, tile, on)``, in order."""
        return [(seat, t, on) for kind, seat, t, on in self.history if kind == "play"]  # type: ignore[misc]

    def layout(self) -> Layout:
        """The table as a layout description (the layout-file format)."""
        return Layout(
            self.hub,
            tuple(Placement(t, on, seat) for seat, t, on in self.plays()),
            rules=self.rules.name, set=self.top, ordered=True,
        )

    def observation(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may see: own hand, the table, everyone's hand size, the boneyard's size."""
        return {
            "seat": seat,
            "hand": [str(t) for t in self.hands[seat]],
            "hand_sizes": [len(h) for h in self.hands],
            "boneyard": len(self.boneyard),
            "to_act": self.current,
            "layout": self.layout().to_dict(),
        }

    # ----------------------------------------------------------------- changes
    def clone(self) -> RoundState:
        new = RoundState.__new__(RoundState)
        for name in RoundState.__slots__:
            setattr(new, name, getattr(self, name))
        new.hands = [list(h) for h in self.hands]
        new.boneyard = list(self.boneyard)
        new.table = self.table.copy()
        new.history = list(self.history)
        return new

    def child(self, action: Action | tuple[Tile | str, Tile | str]) -> RoundState:
        """A new state with ``action`` applied; this one is left as it was."""
        new = self.clone()
        new.apply(action)
        return new

    def apply(self, action: Action | tuple[Tile | str, Tile | str], *, check: bool = True) -> None:
        """Apply ``action`` for the player to act: a Play, ``(tile, on)``, DRAW or PASS.

        Raises :class:`IllegalPlayError` (with a reason code) for anything not legal now.
        ``check=False`` skips the check: only for actions taken from :meth:`legal_actions`, as
        the simulator does."""
        if self.outcome is not None:
            raise IllegalPlayError("the round is over", "round-over")
        self._turns(None, 1, self._check(action) if check else action)  # type: ignore[arg-type]

    def _turns(self, choose: Sequence[Chooser] | None, steps: int, given: Action | None = None) -> list[Action]:
        """The turn loop: the one place where the rules of a turn are applied.

        Each turn offers the player to act their legal actions (plays first, in hand order; then
        DRAW or PASS as ``rules.draw`` says) and applies one: ``given`` (already checked), the
        only one offered, or ``choose[seat](state, offer)``'s pick. ``choose`` None and no
        ``given``: return the first offer without acting (:meth:`legal_actions`). ``steps``: how
        many actions to apply; -1 plays the round out (:func:`play_out`). The changing fields
        live in local variables while it runs: one loop instead of a few method calls per
        action is what makes simulation fast.
        """
        if self.outcome is not None:
            return []
        table = self.table
        hands = self.hands
        boneyard = self.boneyard
        history = self.history
        players = self.players
        may_decline = self._draw is DrawPolicy.MAY_PLAY
        draw_again = self._draw is DrawPolicy.DRAW_UNTIL_PLAYABLE
        dead_foot_rule = self.rules.end_when_foot_dead
        seat, drew, passes = self.current, self.drew, self.passes
        try:
            while steps:
                hand = hands[seat]
                if given is not None:
                    action: Action = given
                else:
                    if drew:
                        # The table has not changed since the player found nothing to play, so
                        # only the tile just drawn (the last in hand) can fit.
                        offer: list[Action] = hand_plays(table, (hand[-1],))  # type: ignore[assignment]
                        if offer:
                            if may_decline:
                                offer.append(PASS)
                        else:
                            offer = [DRAW] if draw_again and boneyard else [PASS]
                    else:
                        offer = hand_plays(table, hand)  # type: ignore[assignment]
                        if not offer:
                            offer = [DRAW] if boneyard else [PASS]
                    if choose is None:
                        return offer
                    if len(offer) == 1:
                        action = offer[0]
                    else:
                        self.current, self.drew, self.passes = seat, drew, passes  # what a bot sees
                        action = choose[seat](self, offer)
                steps -= 1
                if action.__class__ is str:
                    if action == DRAW:
                        tile = boneyard.pop()
                        hand.append(tile)
                        drew = True
                        history.append(("draw", seat, tile, None))
                        continue
                    history.append(("pass", seat, None, None))
                    if boneyard:
                        passes = 0  # someone after this player can still draw
                    elif drew and has_play(table, (hand[-1],)):
                        passes = 0  # declined a playable tile: the round is not stuck
                    else:
                        passes += 1
                        if passes >= players:
                            self.outcome = BLOCKED
                            break
                    drew = False
                    seat = (seat + 1) % players
                    continue
                tile, target, free = action  # type: ignore[misc]
                hand.remove(tile)
                table.attach(tile, target, free)
                history.append(("play", seat, tile, target))
                passes = 0
                drew = False
                if not hand:
                    self.outcome = OUT
                    self.out = seat
                    break
                if dead_foot_rule and tile[0] == tile[1]:
                    need = table.short.get(tile, 0)
                    if need and self._left_showing(tile[0]) < need:
                        self.outcome = DEAD_FOOT
                        break
                seat = (seat + 1) % players
        finally:
            self.current, self.drew, self.passes = seat, drew, passes
        return []

    def _left_showing(self, v: int) -> int:
        """Tiles off the table that show ``v``, doubles left out (a double is never a toe)."""
        return self.top - sum(1 for t in self.table.parent if t[0] != t[1] and v in t)

    def _check(self, action: Action | tuple[Tile | str, Tile | str]) -> Action:
        """The legal action meant by ``action`` (a Play, or just ``(tile, on)``), or raise."""
        legal = self.legal_actions()
        for a in legal:  # the legal action itself, so apply can tell a play from DRAW/PASS by type
            if a == action:
                return a
        if isinstance(action, tuple) and len(action) >= 2:
            tile, target = Tile.parse(action[0]), Tile.parse(action[1])
            for a in legal:
                if isinstance(a, Play) and a.tile == tile and a.target == target:
                    return a
            if tile not in self.hands[self.current]:
                raise IllegalPlayError(f"seat {self.current} does not hold {tile}", "not-in-hand")
            verdict = self.table.judge(tile, target)
            if not verdict.legal:
                raise IllegalPlayError(verdict.message, verdict.code)
            raise IllegalPlayError(
                f"{tile} on {target} is not allowed now: after drawing, only the drawn tile may be played",
                "illegal-action",
            )
        allowed = ", ".join(sorted({a if isinstance(a, str) else "play" for a in legal}))
        raise IllegalPlayError(f"{action!r} is not allowed now (allowed: {allowed})", "illegal-action")

    # ------------------------------------------------------------------ output
    def to_dict(self) -> dict[str, Any]:
        """The round's record, JSON-ready (the simulate command prints this)."""
        return {
            "round": self.round_index + 1,
            "round_double": str(_double(self.top, self.round_double)),
            "hub": str(self.hub),
            "placed_by": self.placed_by,
            "first_player": self.first_player,
            "dealt": [[str(t) for t in h] for h in self.dealt],
            "setup": [_event_dict(e) for e in self.setup],
            "plays": [{"tile": str(t), "on": str(on), "seat": seat} for seat, t, on in self.plays()],
            "turns": [_event_dict(e) for e in self.history],
            "end": self.outcome,
            "out": self.out,
            "dead_foot": str(self.table.open_foot) if self.outcome == DEAD_FOOT else None,
            "hands": [[str(t) for t in h] for h in self.hands],
            # In the order the tiles would have been drawn.
            "boneyard": [str(t) for t in reversed(self.boneyard)],
            "penalties": self.penalties(),
        }


def _event_dict(e: Event) -> dict[str, Any]:
    kind, seat, tile, on = e
    d: dict[str, Any] = {"seat": seat, "action": kind}
    if tile is not None:
        d["tile"] = str(tile)
    if on is not None:
        d["on"] = str(on)
    return d


def new_round(
    rules: RuleSet,
    players: int,
    round_index: int,
    rng: random.Random,
    *,
    round_double: int | None = None,
) -> RoundState:
    """Shuffle, deal and put the round's double down; the returned state awaits the first play.

    ``round_double`` defaults to the match's sequence (``rules.round_doubles(players)``).
    """
    top, size, doubles = _deal_facts(rules, players)
    d = _round_double(top, doubles, round_index, round_double)
    deck = list(canonical_set(top))
    if rules.start is Start.CENTRE:
        deck.remove(_double(top, d))
    shuffle(deck, rng)
    hands = [deck[i * size:(i + 1) * size] for i in range(players)]
    return _start(rules, players, round_index, d, top, hands, deck[players * size:][::-1])


def deal_round(
    rules: RuleSet,
    round_index: int,
    hands: Sequence[Sequence[Tile | str]],
    boneyard: Sequence[Tile | str],
    *,
    round_double: int | None = None,
) -> RoundState:
    """A round from a known deal (tests, replaying a real round): ``boneyard`` is listed in the
    order its tiles will be drawn. Every tile of the set must appear exactly once (with
    ``Start.CENTRE``, every tile but the round's double)."""
    players = len(hands)
    top, _, doubles = _deal_facts(rules, players)
    d = _round_double(top, doubles, round_index, round_double)
    canon = {t: t for t in canonical_set(top)}
    try:
        hs = [[canon[Tile.parse(t)] for t in h] for h in hands]
        yard = [canon[Tile.parse(t)] for t in boneyard]
    except KeyError as exc:
        raise InputError(f"{exc.args[0]} is not in a double-{top} set") from None
    every = [t for h in hs for t in h] + yard
    expected = [t for t in canonical_set(top) if not (rules.start is Start.CENTRE and t.is_double
                                                       and t.low == d)]
    if sorted(every) != sorted(expected):
        raise InputError("the hands and the boneyard must hold every tile of the set exactly once"
                         + (" (all but the round's double)" if rules.start is Start.CENTRE else ""))
    return _start(rules, players, round_index, d, top, hs, yard[::-1])


# (id of the rules, players) -> (the rules, set, deal size, round doubles): checked once, not per
# round. The rules object is kept, so its id cannot be reused by another while it is cached.
_DEALS: dict[tuple[int, int], tuple[RuleSet, int, int, list[int]]] = {}


def _deal_facts(rules: RuleSet, players: int) -> tuple[int, int, list[int]]:
    facts = _DEALS.get((id(rules), players))
    if facts is None or facts[0] is not rules:
        rules.check_players(players)
        if len(_DEALS) >= 256:
            _DEALS.clear()
        facts = _DEALS[id(rules), players] = (
            rules, rules.set_for(players), rules.deal_size(players), rules.round_doubles(players))
    return facts[1], facts[2], facts[3]


def _round_double(top: int, doubles: list[int], round_index: int, round_double: int | None) -> int:
    if round_double is None:
        if not 0 <= round_index < len(doubles):
            raise InputError(f"round {round_index + 1} is outside this match of {len(doubles)} rounds")
        round_double = doubles[round_index]
    if not 0 <= round_double <= top:
        raise InputError(f"there is no {round_double}-{round_double} in a double-{top} set")
    return round_double


def _start(
    rules: RuleSet,
    players: int,
    round_index: int,
    round_double: int,
    top: int,
    hands: list[list[Tile]],
    boneyard: list[Tile],
) -> RoundState:
    """Put the round's double down and seat the first player. ``boneyard`` pops from its end."""
    dealt = [tuple(h) for h in hands]
    rotating = rules.rotating_first_seat(round_index, players)
    setup: list[Event] = []
    placed_by: int | None
    if rules.start is Start.CENTRE:
        hub, placed_by = _double(top, round_double), None
    else:
        hub, placed_by = _find_starting_double(rules, hands, boneyard, round_double, top, rotating, setup)
        hands[placed_by].remove(hub)
        setup.append(("place", placed_by, hub, None))

    if rules.first_player is FirstPlayer.AFTER_HOLDER and placed_by is not None:
        first = (placed_by + 1) % players
    else:
        first = rotating

    s = RoundState.__new__(RoundState)
    s.rules = rules
    s.players = players
    s.top = top
    s.round_index = round_index
    s.round_double = round_double
    s.hub = hub
    s.placed_by = placed_by
    s.first_player = first
    s.hands = hands
    s.dealt = dealt
    s.boneyard = boneyard
    s.table = Table(hub, spokes=rules.spokes, toes=rules.toes, top=top)
    s.current = first
    s.drew = False
    s.passes = 0
    s.outcome = None
    s.out = None
    s.setup = setup
    s.history = []
    s._draw = rules.draw
    if placed_by is not None and not hands[placed_by]:
        s.outcome, s.out = OUT, placed_by  # a one-tile hand that was the double itself
    return s


def _find_starting_double(
    rules: RuleSet,
    hands: list[list[Tile]],
    boneyard: list[Tile],
    d: int,
    top: int,
    first_drawer: int,
    setup: list[Event],
) -> tuple[Tile, int]:
    dd = _double(top, d)
    for seat, hand in enumerate(hands):
        if dd in hand:
            return dd, seat
    policy = rules.missing_double
    if policy in (MissingDouble.NEXT_HIGHEST, MissingDouble.SKIP):
        best: tuple[int, int] | None = None
        for seat, hand in enumerate(hands):
            for t in hand:
                if t.low == t.high and t.low < d and (best is None or t.low > best[0]):
                    best = (t.low, seat)
        if best is not None:
            return _double(top, best[0]), best[1]

    # With next-highest, any double at or below the round's that turns up will do.
    any_double = policy is MissingDouble.NEXT_HIGHEST
    seat = first_drawer
    players = len(hands)
    while boneyard:  # the round's double is in the boneyard, so this always finds one
        tile = boneyard.pop()
        hands[seat].append(tile)
        setup.append(("draw", seat, tile, None))
        if tile is dd or (any_double and tile[0] == tile[1] and tile[0] <= d):
            return tile, seat
        seat = (seat + 1) % players
    raise AssertionError("the round's double was neither dealt nor in the boneyard")


def play_out(state: RoundState, bots: Sequence[Any], max_actions: int = -1) -> RoundState:
    """Let ``bots`` (one per seat, each with ``choose(state, legal)``) play the round to its end,
    or until ``max_actions`` actions (plays, draws, passes) are applied when it is not negative.
    A bot is asked only when there is a choice (more than one legal action)."""
    state._turns([b.choose for b in bots], max_actions)
    return state
