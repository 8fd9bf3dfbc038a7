"""The scorekeeper's match: players, a frozen copy of the rules, rounds, standings, undo/redo.

A :class:`Match` is an immutable value: every change (:meth:`Match.add_round`,
:meth:`Match.edit_round`, :meth:`Match.undo`...) returns a new match with ``revision`` one
higher. The match keeps its own copy of its :class:`RuleSet` (stored with ``RuleSet.to_dict``),
so a game in history re-scores the way it was played even if a preset changes later.

Undo/redo is stored *in* the match as small patches (``{"kind": "pop"}`` for "remove the last
round"), so it survives a restart, travels through export/import, and costs almost nothing for
the common case of rounds simply being added.

Typical use (the app and the CLI do exactly this through the storage repository)::

    m = Match.new(["Ann", "Bob", "Cy"], get_rules("double-chicken-foot"))
    m.current_double, m.first_player, m.deal_size      # 9, 'Ann', 14
    m = m.add_round(penalties={"Ann": 12}, tiles={"Bob": "3-4,0-0"}, out="Cy")
    [(s.player, s.total, s.rank) for s in m.standings()]
"""

from __future__ import annotations

import dataclasses
import math
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from chickenfoot.rules import (
    SETS,
    ChickenFootError,
    FirstPlayer,
    MissingDouble,
    RuleSet,
    Start,
    TieBreak,
    Tile,
    full_set,
    parse_tiles,
    set_size,
)
from chickenfoot.rules.ruleset import MISSING_DOUBLE_WORDS
from chickenfoot.rules.standings import DRAW_RESULT, decide_winners
from chickenfoot.rules.words import count

from .errors import MatchDataError, MatchStateError, PlayerError, RoundError, UnlikelyPenaltyError

MAX_NAME = 40
#: Characters a player name may not hold, because the command line writes ``Ann=12,Bob=3``.
_NAME_FORBIDDEN = set(",=;")

STATUS_ACTIVE, STATUS_FINISHED, STATUS_ABANDONED = "active", "finished", "abandoned"


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def new_match_id() -> str:
    """A stable, globally unique id, so imports from other devices merge without clashes."""
    return uuid.uuid4().hex


# ---------------------------------------------------------------------------------- rounds
@dataclass(frozen=True, slots=True)
class Round:
    """One played round, by seat (``penalties[i]`` belongs to ``match.players[i]``).

    ``tiles[i]`` is ``None`` when only the number was entered, else the tiles left in that
    hand (kept so the penalty can be re-checked, e.g. with a photo). ``out`` is the seat that
    went out, or ``None`` when the round was blocked. ``holder`` is the seat that held (or
    drew and placed) the round's double, when the rules make that matter. ``started_with`` is
    the double that actually opened the round when nobody held the round's own double and the
    rules let another one start (``MissingDouble.NEXT_HIGHEST`` / ``SKIP``).
    """

    double: int
    penalties: tuple[int, ...]
    tiles: tuple[tuple[Tile, ...] | None, ...]
    out: int | None = None
    holder: int | None = None
    started_with: int | None = None

    @property
    def blocked(self) -> bool:
        return self.out is None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"double": self.double, "penalties": list(self.penalties)}
        if any(t is not None for t in self.tiles):
            d["tiles"] = [None if t is None else [str(x) for x in t] for t in self.tiles]
        d["out"] = self.out
        if self.holder is not None:
            d["holder"] = self.holder
        if self.started_with is not None:
            d["started_with"] = self.started_with
        return d

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], seats: int) -> Round:
        try:
            pens = tuple(_int(p, "penalty") for p in data["penalties"])
            raw_tiles = data.get("tiles") or [None] * seats
            tiles = tuple(None if t is None else _stored_tiles(t) for t in raw_tiles)
            rnd = cls(
                double=_int(data["double"], "double"),
                penalties=pens,
                tiles=tiles,
                out=_opt_int(data.get("out"), "out"),
                holder=_opt_int(data.get("holder"), "holder"),
                started_with=_opt_int(data.get("started_with"), "started_with"),
            )
        except (KeyError, TypeError) as exc:
            raise MatchDataError(f"a round cannot be read: {exc!r}") from None
        if len(rnd.penalties) != seats or len(rnd.tiles) != seats:
            raise MatchDataError(f"a round has {len(rnd.penalties)} results for {seats} players")
        return rnd


_TILE_TEXT: dict[str, Tile] = {}


def _stored_tiles(items: Any) -> tuple[Tile, ...]:
    """Tiles as stored (``["3-4", "0-0"]``); memoised because long histories repeat them."""
    if isinstance(items, str) or not isinstance(items, list):
        raise MatchDataError(f"tiles must be a list like [\"3-4\"], got {items!r:.40}")
    out = []
    for text in items:
        tile = _TILE_TEXT.get(text) if isinstance(text, str) else None
        if tile is None:
            tile = Tile.parse(text)
            if isinstance(text, str) and len(_TILE_TEXT) < 4096:
                _TILE_TEXT[text] = tile
        out.append(tile)
    return tuple(out)


def _int(v: Any, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise MatchDataError(f"{what} must be a whole number, got {v!r}")
    return v


def _opt_int(v: Any, what: str) -> int | None:
    return None if v is None else _int(v, what)


# ------------------------------------------------------------------------------- standings
@dataclass(frozen=True, slots=True)
class Standing:
    """One player's line in the table after some rounds."""

    player: str
    seat: int
    total: int
    rank: int
    rounds_won: int  # rounds this player went out
    zero_rounds: int  # rounds this player scored 0 (went out, or was caught with nothing)
    lowest_nonzero: int | None  # best non-zero round (the pagat tie-break's second key)
    leader: bool

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished match ended. ``draw`` only when the rules call equal totals a draw."""

    winners: tuple[str, ...]
    draw: bool
    losers: tuple[str, ...]  # players who passed the loss total, if the rules have one
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"winners": list(self.winners), "draw": self.draw, "losers": list(self.losers),
                "reason": self.reason}


# ------------------------------------------------------------------------------- the match
@dataclass(frozen=True, slots=True)
class Match:
    """A match in progress, finished or abandoned. See the module docstring."""

    id: str
    players: tuple[str, ...]
    rules: RuleSet
    rounds: tuple[Round, ...] = ()
    created_at: str = ""
    updated_at: str = ""
    abandoned: bool = False
    #: Seat that holds (or found) the current round's double, recorded before the round is scored.
    pending_holder: int | None = None
    revision: int = 0
    undo_log: tuple[dict[str, Any], ...] = field(default=())
    redo_log: tuple[dict[str, Any], ...] = field(default=())

    # ---------------------------------------------------------------- creation
    @classmethod
    def new(
        cls,
        players: Sequence[str],
        rules: RuleSet,
        *,
        match_id: str | None = None,
        now: str | None = None,
    ) -> Match:
        names = check_player_names(players)
        check_rules_for(rules, len(names))
        stamp = now or utc_now()
        return cls(id=match_id or new_match_id(), players=names, rules=rules,
                   created_at=stamp, updated_at=stamp)

    # ------------------------------------------------------------ derived facts
    @property
    def seats(self) -> int:
        return len(self.players)

    @property
    def set_top(self) -> int:
        """The double-N set this match is played with."""
        return self.rules.set_for(self.seats)

    @property
    def deal_size(self) -> int:
        return self.rules.deal_size(self.seats)

    @property
    def hand_limit(self) -> int:
        """The most a hand of the tiles dealt can count (see :func:`hand_limit`)."""
        return hand_limit(self.rules, self.seats)

    @property
    def round_doubles(self) -> list[int]:
        return self.rules.round_doubles(self.seats)

    @property
    def planned_rounds(self) -> int:
        return len(self.round_doubles)

    @property
    def end_after(self) -> int:
        """How many rounds this match lasts given the rounds so far (a loss total can cut it short)."""
        limit = self.rules.loss_total
        if limit is not None:
            totals = [0] * self.seats
            for k, rnd in enumerate(self.rounds, start=1):
                totals = [t + p for t, p in zip(totals, rnd.penalties, strict=True)]
                if max(totals) > limit:
                    return k
        return self.planned_rounds

    @property
    def is_over(self) -> bool:
        return len(self.rounds) >= self.end_after

    @property
    def status(self) -> str:
        if self.abandoned:
            return STATUS_ABANDONED
        return STATUS_FINISHED if self.is_over else STATUS_ACTIVE

    @property
    def current_index(self) -> int | None:
        """0-based index of the round to be played next, or None when the match is over."""
        return None if self.is_over else len(self.rounds)

    @property
    def current_double(self) -> int | None:
        i = self.current_index
        return None if i is None else self.round_doubles[i]

    def first_seat(self, index: int) -> int | None:
        """Seat that plays first in round ``index`` (0-based); None while it is not known yet.

        With ``FirstPlayer.AFTER_HOLDER`` it is the seat after whoever held the round's double,
        known once the round records that (or, for the current round, once ``set_holder`` ran).
        """
        if self.rules.first_player is FirstPlayer.ROTATE:
            return self.rules.rotating_first_seat(index, self.seats)
        if index < len(self.rounds):
            holder = self.rounds[index].holder
        elif index == len(self.rounds):
            holder = self.pending_holder
        else:
            holder = None
        return None if holder is None else self.rules.seat_after(holder, self.seats)

    @property
    def first_player(self) -> str | None:
        i = self.current_index
        if i is None:
            return None
        seat = self.first_seat(i)
        return None if seat is None else self.players[seat]

    def first_player_rule(self) -> str:
        """A sentence for people: who starts the current round, or how to find out."""
        i = self.current_index
        if i is None:
            return "The match is over."
        d = self.round_doubles[i]
        if self.rules.first_player is FirstPlayer.ROTATE:
            return f"{self.first_player} plays first (the first turn moves one seat each round)."
        if self.pending_holder is not None:
            return (f"{self.players[self.pending_holder]} places {d}-{d}; "
                    f"{self.first_player} plays first.")
        return f"The player after whoever places {d}-{d} plays first (record who holds it)."

    def missing_double_rule(self) -> str:
        """What to do when nobody was dealt the current round's double, per the rules."""
        r = self.rules
        if r.start is Start.CENTRE:
            return "The round's double is placed in the centre before the deal; nobody can miss it."
        return MISSING_DOUBLE_WORDS[r.missing_double]

    def seat_of(self, name: str) -> int:
        key = name.strip().casefold()
        for i, p in enumerate(self.players):
            if p.casefold() == key:
                return i
        raise PlayerError(f"{name!r} is not playing in this match (players: {', '.join(self.players)})")

    # --------------------------------------------------------------- standings
    def totals(self, after: int | None = None) -> list[int]:
        rounds = self.rounds if after is None else self.rounds[:after]
        totals = [0] * self.seats
        for rnd in rounds:
            totals = [t + p for t, p in zip(totals, rnd.penalties, strict=True)]
        return totals

    def standings(self, after: int | None = None) -> list[Standing]:
        """The table after ``after`` rounds (default: all), in seating order."""
        rounds = self.rounds if after is None else self.rounds[:after]
        n = self.seats
        totals = self.totals(after)
        won = [sum(1 for r in rounds if r.out == s) for s in range(n)]
        zeros = [sum(1 for r in rounds if r.penalties[s] == 0) for s in range(n)]
        lows: list[int | None] = []
        for s in range(n):
            nz = [r.penalties[s] for r in rounds if r.penalties[s] > 0]
            lows.append(min(nz) if nz else None)
        keys = [self._rank_key(totals[s], zeros[s], lows[s]) for s in range(n)]
        ranks = [1 + sum(1 for k in keys if k < keys[s]) for s in range(n)]
        return [Standing(self.players[s], s, totals[s], ranks[s], won[s], zeros[s], lows[s],
                         ranks[s] == 1) for s in range(n)]

    def _rank_key(self, total: int, zeros: int, low: int | None) -> tuple[float, ...]:
        if self.rules.tie_break is TieBreak.ZERO_ROUNDS:
            return (total, -zeros, math.inf if low is None else low)
        return (total,)

    def leaders(self) -> list[str]:
        return [s.player for s in self.standings() if s.leader]

    def tie_notes(self, after: int | None = None) -> dict[str, str]:
        """Why a player level on points with another is ranked above them (the rules'
        tie-break): "level with Cy on 29, ahead on rounds scored 0 (2 to 1)", by player."""
        table = self.standings(after)
        notes: dict[str, str] = {}
        for s in table:
            below = [o for o in table if o.total == s.total and o.rank > s.rank]
            if not below:
                continue
            o = min(below, key=lambda x: (x.rank, x.seat))
            if s.zero_rounds != o.zero_rounds:
                why = f"more rounds scored 0 ({s.zero_rounds} to {o.zero_rounds})"
            else:
                why = f"a lower lowest non-zero round ({s.lowest_nonzero} to {o.lowest_nonzero})"
            notes[s.player] = f"level with {o.player} on {s.total}, ahead on {why}"
        return notes

    def outcome(self) -> Outcome | None:
        """Winner(s) of a finished match per the rules' tie-break; None while unfinished."""
        if not self.is_over or self.abandoned:
            return None
        totals = self.totals()
        # One tie-break implementation for simulated and real matches: the rules core's.
        seats, result, decided_by = decide_winners(self.rules, totals, [r.penalties for r in self.rounds])
        best = [self.players[s] for s in seats]
        limit = self.rules.loss_total
        losers = tuple(p for p, t in zip(self.players, totals, strict=True) if limit is not None and t > limit)
        if losers:
            reason = f"{', '.join(losers)} passed {limit} after round {len(self.rounds)}"
        else:
            n = len(self.rounds)
            reason = "its one round played" if n == 1 else f"all {n} rounds played"
        draw = result == DRAW_RESULT
        reason += {
            "lowest-total": "",
            "most-zero-rounds": f"; equal lowest totals of {min(totals)}, decided by most rounds scored 0",
            "lowest-non-zero-round": f"; equal lowest totals of {min(totals)} and equal zero rounds, "
            "decided by the lowest non-zero round",
        }.get(decided_by, "; equal lowest totals: a draw" if draw else "; tied players share first place")
        return Outcome(tuple(best), draw, losers, reason)

    @property
    def winners(self) -> list[str]:
        out = self.outcome()
        return list(out.winners) if out else []

    # ----------------------------------------------------------------- changes
    def add_round(
        self,
        penalties: Mapping[str, int] | None = None,
        tiles: Mapping[str, str | Iterable[str | Tile]] | None = None,
        *,
        out: str | None = None,
        blocked: bool = False,
        holder: str | None = None,
        started_with: int | None = None,
        now: str | None = None,
    ) -> Match:
        """Score the current round. Every player needs a penalty or their tiles, except the
        one who went out (0, no tiles); exactly one of ``out`` / ``blocked``."""
        self._check_open()
        index = len(self.rounds)
        if holder is None and self.pending_holder is not None:
            holder_seat: int | None = self.pending_holder
        else:
            holder_seat = None if holder is None else self.seat_of(holder)
        rnd = build_round(self, index, penalties or {}, tiles or {}, out=out, blocked=blocked,
                          holder=holder_seat, started_with=started_with)
        patches = [{"kind": "push", "round": rnd.to_dict()}]
        if self.pending_holder is not None:
            patches.append({"kind": "held", "value": None})
        return self._change(f"round {index + 1} added", patches, now)

    def edit_round(
        self,
        number: int,
        penalties: Mapping[str, int] | None = None,
        tiles: Mapping[str, str | Iterable[str | Tile]] | None = None,
        *,
        out: str | None = None,
        blocked: bool = False,
        holder: str | None = None,
        started_with: int | None = None,
        now: str | None = None,
    ) -> Match:
        """Change round ``number`` (1-based). Only the players and facts given change; the
        rest of the round stays. If who went out changes, the player who had gone out needs a
        result too."""
        if self.abandoned:
            raise MatchStateError("the match is abandoned; resume it before editing")
        if not isinstance(number, int) or not 1 <= number <= len(self.rounds):
            raise RoundError(f"no round {number}: this match has {count(len(self.rounds), 'round')}")
        old = self.rounds[number - 1]
        pens = dict(penalties or {})
        tls = dict(tiles or {})
        given = {self.seat_of(n) for n in (*pens, *tls)}
        new_out: int | None
        if out is not None or blocked:
            new_out = None if blocked else self.seat_of(out or "")
            if old.out is not None and old.out != new_out and old.out not in given:
                raise RoundError(f"{self.players[old.out]} no longer went out in round {number}: "
                                 "give their penalty or tiles too")
        else:
            new_out = old.out
        # Start from the old round; the given players replace their entries.
        full_pens: dict[str, int] = {}
        full_tiles: dict[str, Any] = {}
        for s, name in enumerate(self.players):
            if s in given or s == new_out:
                continue
            if old.tiles[s] is not None:
                full_tiles[name] = old.tiles[s]
            else:
                full_pens[name] = old.penalties[s]
        for n, v in pens.items():
            full_pens[self.players[self.seat_of(n)]] = v
        for n, v in tls.items():
            full_tiles[self.players[self.seat_of(n)]] = v
        holder_seat = old.holder if holder is None else self.seat_of(holder)
        sw = old.started_with if started_with is None else started_with
        rnd = build_round(self, number - 1, full_pens, full_tiles,
                          out=None if new_out is None else self.players[new_out],
                          blocked=new_out is None, holder=holder_seat, started_with=sw)
        if rnd == old:
            raise RoundError(f"round {number} already reads like that; nothing changed")
        trial = dataclasses.replace(self, rounds=(*self.rounds[: number - 1], rnd,
                                                  *self.rounds[number:]))
        if trial.end_after < len(trial.rounds):
            raise RoundError(
                f"with this edit the match would have ended after round {trial.end_after} "
                f"(a total passes {self.rules.loss_total}), but {len(self.rounds)} rounds are "
                "recorded; delete the later rounds first")
        return self._change(f"round {number} edited",
                            [{"kind": "put", "n": number - 1, "round": rnd.to_dict()}], now)

    def delete_last_round(self, now: str | None = None) -> Match:
        if self.abandoned:
            raise MatchStateError("the match is abandoned; resume it before deleting rounds")
        if not self.rounds:
            raise MatchStateError("there is no round to delete")
        return self._change(f"round {len(self.rounds)} deleted", [{"kind": "pop"}], now)

    def set_holder(self, name: str | None, now: str | None = None) -> Match:
        """Record who holds (or found) the current round's double, before the round is scored."""
        self._check_open()
        seat = None if name is None else self.seat_of(name)
        if seat == self.pending_holder:
            raise MatchStateError("that is already recorded")
        return self._change("holder recorded", [{"kind": "held", "value": seat}], now)

    def rename_player(self, name: str, new_name: str, now: str | None = None) -> Match:
        """Call a player something else (a typo at the start, a nickname). Rounds are kept by
        seat, so nothing else changes. Not an undo step: renaming back undoes it, and the undo
        history stays readable by versions that know only rounds."""
        seat = self.seat_of(name)
        names = list(self.players)
        names[seat] = new_name
        checked = check_player_names(names)
        if checked == self.players:
            raise MatchStateError(f"{self.players[seat]} is already called that")
        return dataclasses.replace(self, players=checked, revision=self.revision + 1,
                                   updated_at=now or utc_now())

    def abandon(self, now: str | None = None) -> Match:
        if self.abandoned:
            raise MatchStateError("the match is already abandoned")
        if self.is_over:
            raise MatchStateError("the match is over; there is nothing to abandon")
        return self._change("match abandoned", [{"kind": "abandoned", "value": True}], now)

    def resume(self, now: str | None = None) -> Match:
        if not self.abandoned:
            raise MatchStateError("the match is not abandoned")
        return self._change("match resumed", [{"kind": "abandoned", "value": False}], now)

    @property
    def can_undo(self) -> bool:
        return bool(self.undo_log)

    @property
    def can_redo(self) -> bool:
        return bool(self.redo_log)

    def undo(self, now: str | None = None) -> Match:
        if not self.undo_log:
            raise MatchStateError("nothing to undo")
        entry = self.undo_log[-1]
        state, inverse = _apply(self, entry["patches"])
        return dataclasses.replace(
            state, undo_log=self.undo_log[:-1],
            redo_log=(*self.redo_log, {"label": entry["label"], "patches": inverse}),
            revision=self.revision + 1, updated_at=now or utc_now())

    def redo(self, now: str | None = None) -> Match:
        if not self.redo_log:
            raise MatchStateError("nothing to redo")
        entry = self.redo_log[-1]
        state, inverse = _apply(self, entry["patches"])
        return dataclasses.replace(
            state, redo_log=self.redo_log[:-1],
            undo_log=(*self.undo_log, {"label": entry["label"], "patches": inverse}),
            revision=self.revision + 1, updated_at=now or utc_now())

    # ------------------------------------------------------------ copies of it
    def same_play(self, other: Match) -> bool:
        """Whether the two hold the match as played alike: its rules, seats, rounds, who holds
        the double and whether it is abandoned (names and revisions aside)."""
        return (self.rules, len(self.players), self.rounds, self.pending_holder, self.abandoned) == (
            other.rules, len(other.players), other.rounds, other.pending_holder, other.abandoned)

    def in_line_with(self, other: Match) -> bool:
        """Whether one of two copies of a match is the other with some of its last changes
        undone: the shorter undo history begins the longer one, and undoing the rest of the
        longer gives the other's play. Two copies changed apart (each device adding a round of
        its own) are not, so neither may replace the other without losing a change."""
        if self.id != other.id:
            return False
        longer, shorter = (self, other) if len(self.undo_log) >= len(other.undo_log) else (other, self)
        n = len(shorter.undo_log)
        if longer.undo_log[:n] != shorter.undo_log:
            return False
        earlier = longer
        try:
            for _ in range(len(longer.undo_log) - n):
                earlier = earlier.undo(now=longer.updated_at)
        except (MatchStateError, MatchDataError):
            return False
        return earlier.same_play(shorter)

    def later_than(self, other: Match) -> bool:
        """Of two copies in line (:meth:`in_line_with`), whether this one holds the later state.
        The copy with the longer undo history is later, unless the shorter was made from it by
        undoing: its redo list then ends with what was undone. Copies of the same play go by
        their revision (a rename). Revisions alone would let a stale copy win whose device only
        undid and redid, and so drop a round added since."""
        k = len(self.undo_log) - len(other.undo_log)
        if k == 0:
            return self.revision > other.revision
        longer, shorter = (self, other) if k > 0 else (other, self)
        undone = longer
        for _ in range(abs(k)):
            undone = undone.undo(now=longer.updated_at)
        made_by_undoing = shorter.redo_log[-abs(k):] == undone.redo_log[-abs(k):]
        return (shorter if made_by_undoing else longer) is self

    def _check_open(self) -> None:
        if self.abandoned:
            raise MatchStateError("the match is abandoned; resume it first")
        if self.is_over:
            raise MatchStateError("the match is over; edit a past round or undo instead")

    def _change(self, label: str, patches: list[dict[str, Any]], now: str | None) -> Match:
        state, inverse = _apply(self, patches)
        return dataclasses.replace(
            state, undo_log=(*self.undo_log, {"label": label, "patches": inverse}), redo_log=(),
            revision=self.revision + 1, updated_at=now or utc_now())

    # ------------------------------------------------------------ serialising
    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data; ``from_dict(to_dict())`` gives an equal match (lossless)."""
        return {
            "id": self.id,
            "players": list(self.players),
            "rules": self.rules.to_dict(),
            "rounds": [r.to_dict() for r in self.rounds],
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "abandoned": self.abandoned,
            "pending_holder": self.pending_holder,
            "revision": self.revision,
            "undo": list(self.undo_log),
            "redo": list(self.redo_log),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Match:
        """Rebuild and re-check a match (every round is validated against its own rules)."""
        if not isinstance(data, Mapping):
            raise MatchDataError("a match must be an object")
        try:
            mid = data["id"]
            if not isinstance(mid, str) or not mid:
                raise MatchDataError("a match needs a text id")
            players = check_player_names(data["players"])
            rules = RuleSet.from_dict(data["rules"])
            check_rules_for(rules, len(players))
            rounds = tuple(Round.from_dict(r, len(players)) for r in data.get("rounds", []))
            m = cls(
                id=mid, players=players, rules=rules, rounds=(),
                created_at=str(data.get("created_at", "")),
                updated_at=str(data.get("updated_at", "")),
                abandoned=bool(data.get("abandoned", False)),
                pending_holder=_opt_int(data.get("pending_holder"), "pending_holder"),
                revision=_int(data.get("revision", 0), "revision"),
                undo_log=tuple(_check_entry(e, len(players)) for e in data.get("undo", [])),
                redo_log=tuple(_check_entry(e, len(players)) for e in data.get("redo", [])),
            )
        except MatchDataError:
            raise
        except ChickenFootError as exc:
            raise MatchDataError(f"match {data.get('id', '?')}: {exc}") from None
        except (KeyError, TypeError, AttributeError, ValueError, IndexError) as exc:
            # Malformed data deep inside (e.g. a rules table edited by hand): one clear error.
            raise MatchDataError(f"match {data.get('id', '?')} cannot be read: missing or wrong "
                                 f"field ({type(exc).__name__}: {exc})") from None
        # Re-validate each round against the match's own rules (tiles in the set, no tile in
        # two hands, penalties equal the tiles' value) so hand edits cannot slip in nonsense.
        for i, rnd in enumerate(rounds):
            try:
                check_round(m, i, rnd)
            except ChickenFootError as exc:
                raise MatchDataError(f"match {mid}, round {i + 1}: {exc}") from None
            except (TypeError, ValueError, IndexError) as exc:
                raise MatchDataError(f"match {mid}, round {i + 1} cannot be read ({exc})") from None
        if len(rounds) > len(m.round_doubles):
            raise MatchDataError(f"match {mid} has {len(rounds)} rounds; its rules allow "
                                 f"{len(m.round_doubles)}")
        if m.pending_holder is not None and not 0 <= m.pending_holder < m.seats:
            raise MatchDataError(f"match {mid}: pending_holder is not a seat")
        return dataclasses.replace(m, rounds=rounds)


def check_rules_for(rules: RuleSet, players: int) -> None:
    """The rules can seat this many players, with a real set (guards hand-edited rule tables:
    a set of double-1000000 would make every later check enormous)."""
    if not isinstance(players, int) or not 2 <= players <= 8:
        raise PlayerError(f"a match has 2-8 players, not {players}")
    top = rules.set_for(players)
    if top not in SETS:
        raise MatchDataError(f"the rules pick a double-{top} set; sets are "
                             f"{', '.join(map(str, SETS))}")
    rules.check_players(players)
    if not 1 <= rules.deal_size(players) <= set_size(top):
        raise MatchDataError(f"the rules deal {rules.deal_size(players)} tiles each")


_PATCH_KINDS = ("push", "pop", "put", "abandoned", "held")


def _check_entry(e: Any, seats: int) -> dict[str, Any]:
    """Shape-check one undo/redo entry so that applying it later cannot fail half-way."""
    if not isinstance(e, Mapping) or not isinstance(e.get("patches"), list):
        raise MatchDataError("an undo/redo entry needs a list of patches")
    for p in e["patches"]:
        if not isinstance(p, Mapping) or p.get("kind") not in _PATCH_KINDS:
            raise MatchDataError(f"unknown undo/redo step {p!r:.60}")
        kind = p["kind"]
        if kind in ("push", "put"):
            if not isinstance(p.get("round"), Mapping):
                raise MatchDataError("an undo/redo step lacks its round")
            Round.from_dict(p["round"], seats)
        if kind == "put":
            _int(p.get("n"), "undo/redo round index")
        if kind == "abandoned" and not isinstance(p.get("value"), bool):
            raise MatchDataError("an undo/redo step has a bad abandoned flag")
        if kind == "held":
            v = _opt_int(p.get("value"), "undo/redo holder")
            if v is not None and not 0 <= v < seats:
                raise MatchDataError("an undo/redo step names a seat that does not exist")
    return {"label": str(e.get("label", "")), "patches": [dict(p) for p in e["patches"]]}


def _apply(m: Match, patches: list[dict[str, Any]]) -> tuple[Match, list[dict[str, Any]]]:
    """Apply patches in order; return the new match and the patches that undo them."""
    try:
        return _apply_unchecked(m, patches)
    except ChickenFootError as exc:
        raise MatchDataError(f"the undo history of match {m.id[:8]} does not fit its rounds "
                             f"({exc}); nothing was changed") from None


def _apply_unchecked(m: Match, patches: list[dict[str, Any]]
                     ) -> tuple[Match, list[dict[str, Any]]]:
    inverse: list[dict[str, Any]] = []
    for p in patches:
        kind = p.get("kind")
        if kind == "push":
            rnd = Round.from_dict(p["round"], m.seats)
            check_round(m, len(m.rounds), rnd)
            m = dataclasses.replace(m, rounds=(*m.rounds, rnd))
            inverse.append({"kind": "pop"})
        elif kind == "pop":
            if not m.rounds:
                raise MatchDataError("a round to take away is missing")
            inverse.append({"kind": "push", "round": m.rounds[-1].to_dict()})
            m = dataclasses.replace(m, rounds=m.rounds[:-1])
        elif kind == "put":
            n = p["n"]
            if not 0 <= n < len(m.rounds):
                raise MatchDataError(f"there is no round {n + 1} to put back")
            rnd = Round.from_dict(p["round"], m.seats)
            check_round(m, n, rnd)
            inverse.append({"kind": "put", "n": n, "round": m.rounds[n].to_dict()})
            m = dataclasses.replace(m, rounds=(*m.rounds[:n], rnd, *m.rounds[n + 1:]))
        elif kind == "abandoned":
            inverse.append({"kind": "abandoned", "value": m.abandoned})
            m = dataclasses.replace(m, abandoned=bool(p["value"]))
        elif kind == "held":
            inverse.append({"kind": "held", "value": m.pending_holder})
            m = dataclasses.replace(m, pending_holder=p.get("value"))
        else:
            raise MatchDataError(f"unknown undo step {kind!r}")
    inverse.reverse()
    return m, inverse


# ------------------------------------------------------------------------ validation
def check_player_names(players: Sequence[str] | Any) -> tuple[str, ...]:
    if isinstance(players, str) or not isinstance(players, Sequence):
        raise PlayerError("players must be a list of names")
    names = []
    seen: set[str] = set()
    for p in players:
        if not isinstance(p, str) or not p.strip():
            raise PlayerError("a player name cannot be empty")
        name = " ".join(p.split())
        if len(name) > MAX_NAME:
            raise PlayerError(f"player name {name[:20]!r}... is longer than {MAX_NAME} characters")
        if _NAME_FORBIDDEN & set(name):
            raise PlayerError(f"player name {name!r} cannot contain , = or ;")
        if name.casefold() in seen:
            raise PlayerError(f"player {name!r} is listed twice")
        seen.add(name.casefold())
        names.append(name)
    return tuple(names)


def build_round(
    m: Match,
    index: int,
    penalties: Mapping[str, Any],
    tiles: Mapping[str, Any],
    *,
    out: str | None,
    blocked: bool,
    holder: int | None,
    started_with: int | None,
) -> Round:
    """Turn per-player input into a validated :class:`Round` for round ``index`` (0-based)."""
    if (out is None) == (not blocked):
        raise RoundError("say who went out, or that the round was blocked (one of the two)")
    out_seat = None if blocked else m.seat_of(out or "")
    pens: list[int | None] = [None] * m.seats
    hands: list[tuple[Tile, ...] | None] = [None] * m.seats
    for name, value in penalties.items():
        s = m.seat_of(name)
        if pens[s] is not None:
            raise RoundError(f"{m.players[s]} has two results")
        pens[s] = _check_penalty(m, value, m.players[s])
    for name, value in tiles.items():
        s = m.seat_of(name)
        if pens[s] is not None:
            raise RoundError(f"{m.players[s]} has both a penalty and tiles; give one of them")
        hand = tuple(parse_tiles(value) if isinstance(value, str) else [Tile.parse(t) for t in value])
        hands[s] = hand
        pens[s] = m.rules.penalty(hand)
    for s, hand in enumerate(hands):
        if hand is not None and not hand and not blocked and s != out_seat:
            raise RoundError(f"{m.players[s]} has no tiles left, but {m.players[out_seat or 0]} went out: "
                             "only the player who went out ends with no tiles (anyone may, in a blocked "
                             f"round); give {m.players[s]}'s tiles or points")
    if out_seat is not None:
        if pens[out_seat] not in (None, 0) or hands[out_seat]:
            raise RoundError(f"{m.players[out_seat]} went out, so they have 0 and no tiles")
        pens[out_seat] = 0
        hands[out_seat] = None
    missing = [m.players[s] for s in range(m.seats) if pens[s] is None]
    if missing:
        raise RoundError(f"no result for {', '.join(missing)}: give a penalty or their tiles")
    if isinstance(started_with, str):
        started_with = _parse_double(started_with)
    rnd = Round(double=m.round_doubles[index], penalties=tuple(p or 0 for p in pens),
                tiles=tuple(hands), out=out_seat, holder=holder, started_with=started_with)
    check_round(m, index, rnd)
    return rnd


def hand_limit(rules: RuleSet, seats: int) -> int:
    """The most a hand of the tiles dealt can count: that many of the set's largest tiles, the
    0-0 at what the rules count it. A hand can hold more (tiles drawn from the boneyard), so a
    penalty above it is asked about, not refused."""
    worths = sorted((rules.tile_penalty(t) for t in full_set(rules.set_for(seats))), reverse=True)
    return sum(worths[:rules.deal_size(seats)])


def unlikely_penalty(rules: RuleSet, seats: int, player: str, value: int) -> str | None:
    """Why ``value`` points for ``player`` needs a second look (more than a hand of the tiles
    dealt can count), or None when it is plausible. The app and the command line both ask it."""
    limit = hand_limit(rules, seats)
    if value <= limit:
        return None
    return (f"{value} points for {player} is more than {rules.deal_size(seats)} tiles of a "
            f"double-{rules.set_for(seats)} set can count (at most {limit})")


def unlikely_in_round(m: Match, rnd: Round, seats: Iterable[int] | None = None) -> list[str]:
    """:func:`unlikely_penalty` for each typed penalty of ``rnd`` (of ``seats`` only, when
    given): tiles entered one by one are what they are."""
    which = range(m.seats) if seats is None else seats
    out = []
    for s in which:
        if rnd.tiles[s] is None:
            why = unlikely_penalty(m.rules, m.seats, m.players[s], rnd.penalties[s])
            if why:
                out.append(why)
    return out


def check_likely(m: Match, rnd: Round, seats: Iterable[int] | None = None) -> None:
    """Raise :class:`UnlikelyPenaltyError` naming every penalty of ``rnd`` to check."""
    why = unlikely_in_round(m, rnd, seats)
    if why:
        raise UnlikelyPenaltyError("; ".join(why))


def _parse_double(text: str) -> int:
    t = text.strip()
    if t.isdigit():
        return int(t)
    tile = Tile.parse(t)
    if not tile.is_double:
        raise RoundError(f"{text!r} is not a double")
    return tile.low


def _check_penalty(m: Match, value: Any, who: str) -> int:
    if isinstance(value, str):
        if not value.strip().isdigit():
            raise RoundError(f"penalty for {who} must be a whole number 0 or more, got {value!r}")
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise RoundError(f"penalty for {who} must be a whole number 0 or more, got {value!r}")
    ceiling = m.rules.penalty(full_set(m.set_top))
    if value > ceiling:
        raise RoundError(f"penalty {value} for {who} is more than the whole double-{m.set_top} "
                         f"set is worth ({ceiling})")
    return value


def check_round(m: Match, index: int, rnd: Round) -> None:
    """Every rule a recorded round must satisfy; raises :class:`RoundError` on the first break."""
    doubles = m.round_doubles
    if not 0 <= index < len(doubles):
        raise RoundError(f"the rules have {len(doubles)} rounds, not {index + 1}")
    if rnd.double != doubles[index]:
        raise RoundError(f"round {index + 1} starts from {doubles[index]}-"
                         f"{doubles[index]}, not {rnd.double}-{rnd.double}")
    for seat in (rnd.out, rnd.holder):
        if seat is not None and not 0 <= seat < m.seats:
            raise RoundError(f"seat {seat} does not exist")
    top = m.set_top
    seen: dict[Tile, str] = {}
    for s, hand in enumerate(rnd.tiles):
        p = rnd.penalties[s]
        if isinstance(p, bool) or not isinstance(p, int) or p < 0:
            raise RoundError(f"penalty for {m.players[s]} must be a whole number 0 or more")
        if hand is None:
            continue
        for t in hand:
            if not t.in_set(top):
                raise RoundError(f"{t} is not in a double-{top} set ({m.players[s]}'s hand)")
            if t in seen:
                where = "twice in " + m.players[s] + "'s hand" if seen[t] == m.players[s] else (
                    f"in both {seen[t]}'s and {m.players[s]}'s hands")
                raise RoundError(f"{t} is {where}; a tile exists once")
            seen[t] = m.players[s]
        if p != m.rules.penalty(hand):
            raise RoundError(f"{m.players[s]}'s tiles are worth {m.rules.penalty(hand)}, not {p}")
    if rnd.out is not None and (rnd.penalties[rnd.out] != 0 or rnd.tiles[rnd.out]):
        raise RoundError(f"{m.players[rnd.out]} went out, so they have 0 and no tiles")
    if rnd.started_with is not None:
        r = m.rules
        if r.start is not Start.HOLDER or r.missing_double is MissingDouble.DRAW_UNTIL_FOUND:
            raise RoundError("these rules always start from the round's own double")
        if not 0 <= rnd.started_with < rnd.double:
            raise RoundError(f"the round can only start from a double below {rnd.double}-{rnd.double}")
    table_double = rnd.double if rnd.started_with is None else rnd.started_with
    opening = Tile(table_double, table_double)
    if opening in seen:
        raise RoundError(f"{opening} opened the round, so it cannot be left in {seen[opening]}'s hand")
