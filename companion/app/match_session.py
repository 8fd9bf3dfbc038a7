"""The match in progress as the screens see it: table, brief, entry, undo/redo, the end.

Every fact comes from :class:`chickenfoot.match.Match` (totals, ranks, leader, who starts,
winner and tie-break); every change goes through it and is saved at once through the
store, which bumps the shared change counter so every other open screen refreshes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from chickenfoot.match import Commit, Match, MatchStateError, Outcome, Round, RoundDraft, Standing
from chickenfoot.rules import MissingDouble, Start, TieBreak

from .brief import RoundBrief, round_brief
from .drafts import DraftContent
from .round_entry import Mode, RoundEntry
from .store import MatchStore


@dataclass(frozen=True, slots=True)
class TableRow:
    number: int  # 1-based
    double: int
    penalties: tuple[int, ...]
    out: int | None  # seat that went out, None when blocked
    started_with: int | None = None

    @property
    def double_text(self) -> str:
        return f"{self.double}-{self.double}"


class MatchSession:
    """One match, loaded from the store; ``refresh()`` picks up changes made elsewhere."""

    def __init__(self, store: MatchStore, match_id: str) -> None:
        self.store = store
        self.match: Match = store.get(match_id)

    @property
    def id(self) -> str:
        return self.match.id

    def refresh(self) -> bool:
        """Reload; True when someone (another screen, another phone) changed the match."""
        latest = self.store.get(self.match.id)
        changed = latest.revision != self.match.revision or latest.updated_at != self.match.updated_at
        self.match = latest
        return changed

    # --------------------------------------------------------------- reading
    @property
    def players(self) -> list[str]:
        return list(self.match.players)

    def rows(self) -> list[TableRow]:
        return [TableRow(i + 1, r.double, r.penalties, r.out, r.started_with)
                for i, r in enumerate(self.match.rounds)]

    def standings(self) -> list[Standing]:
        return self.match.standings()

    def ranked(self) -> list[Standing]:
        return sorted(self.match.standings(), key=lambda s: (s.rank, s.seat))

    def leaders(self) -> list[str]:
        return self.match.leaders() if self.match.rounds else []

    def chart(self) -> list[list[int]]:
        """Running totals per player: ``chart()[seat][k]`` is the total after k rounds (k=0: 0)."""
        m = self.match
        return [[m.totals(k)[s] for k in range(len(m.rounds) + 1)] for s in range(m.seats)]

    def brief(self) -> RoundBrief | None:
        """The round about to be played, or None when the match is over."""
        m = self.match
        i = m.current_index
        if i is None:
            return None
        return round_brief(m.rules, list(m.players), i, m.first_seat(i))

    def next_starter_text(self) -> str:
        return self.match.first_player_rule()

    @property
    def over(self) -> bool:
        return self.match.is_over

    def outcome(self) -> Outcome | None:
        return self.match.outcome()

    def outcome_text(self) -> list[str]:
        """Winner(s) or draw, and the tie-break in words."""
        out = self.match.outcome()
        if out is None:
            return []
        totals = {s.player: s.total for s in self.match.standings()}
        if out.draw:
            head = "Draw: " + " and ".join(f"{w} ({totals[w]})" for w in out.winners)
        elif len(out.winners) > 1:
            head = "Shared win: " + " and ".join(f"{w} ({totals[w]})" for w in out.winners)
        else:
            w = out.winners[0]
            head = f"Winner: {w} with {totals[w]}"
        lines = [head, out.reason[0].upper() + out.reason[1:] + "."]
        tb = self.match.rules.tie_break
        lines.append({
            TieBreak.DRAW: "Tie-break: lowest total wins; equal lowest totals are a draw.",
            TieBreak.ZERO_ROUNDS: "Tie-break: on equal totals, most rounds scored 0 wins, "
                                  "then the lowest non-zero round.",
            TieBreak.NONE: "Tie-break: none in these rules; tied players share first place.",
        }[tb])
        if out.losers:
            lines.append("Passed the limit (lost): " + ", ".join(out.losers) + ".")
        return lines

    @property
    def can_undo(self) -> bool:
        return self.match.can_undo

    @property
    def can_redo(self) -> bool:
        return self.match.can_redo

    def undo_label(self) -> str | None:
        return self.match.undo_log[-1]["label"] if self.match.undo_log else None

    def redo_label(self) -> str | None:
        return self.match.redo_log[-1]["label"] if self.match.redo_log else None

    # --------------------------------------------------------------- entry
    def new_entry(self) -> RoundEntry:
        return _new_entry(self.match)

    def entry_for(self, number: int) -> RoundEntry:
        """An entry pre-filled from saved round ``number`` (1-based), to edit it."""
        return _entry_for(self.match, number)

    def round_at(self, number: int) -> Round | None:
        return self.match.rounds[number - 1] if 1 <= number <= len(self.match.rounds) else None

    def heading(self, number: int | None = None) -> str:
        """The round in a few words, for large type: "Round 4 · 6-6 · Dee starts"."""
        m = self.match
        idx = len(m.rounds) if number is None else number - 1
        if idx >= m.planned_rounds:
            return "The match is over"
        d = m.round_doubles[idx]
        seat = m.first_seat(idx)
        who = f"{m.players[seat]} starts" if seat is not None else "the player after its holder starts"
        return f"Round {idx + 1} · {d}-{d} · {who}"

    # ------------------------------------------------------- drafts (stored)
    def open_draft(self, number: int | None = None) -> RoundDraft:
        """The round being entered for the next round (or to edit round ``number``), shared by
        every device and kept in the scorekeeper file."""
        if number is None:
            return self.store.open_draft(self.id, entry=lambda m: DraftContent(_new_entry(m)).to_dict())
        return self.store.open_draft(self.id, number, edit=True,
                                     entry=lambda m: DraftContent(_entry_for(m, number)).to_dict())

    def draft(self, draft_id: str) -> RoundDraft:
        return self.store.get_draft(draft_id)

    def content(self, draft: RoundDraft, match: Match | None = None) -> DraftContent:
        m = match or self.match
        return DraftContent.from_dict(draft.data, m.rules, list(m.players), m.set_top,
                                      m.round_doubles[draft.number - 1], self.store.photo)

    def change(self, draft_id: str, fn: Callable[[DraftContent], object]
               ) -> tuple[RoundDraft, DraftContent]:
        """Apply ``fn`` to the latest stored content of a draft and store the result, atomically
        (a key typed on one phone and a tile picked on another are both kept). A draft saved
        meanwhile is returned unchanged (its ``open`` is False)."""
        done: list[DraftContent] = []

        def apply(d: RoundDraft) -> dict:
            c = self.content(d, self.store.get(self.id))
            fn(c)
            done.append(c)
            return c.to_dict()

        d = self.store.change_draft(draft_id, apply)
        return d, (done[-1] if done and d.open else self.content(d))

    def save_draft(self, draft_id: str, by: str) -> Commit:
        """Save a draft as its round, exactly once, whichever device presses Save and however
        often; ``by`` names the device (see :class:`chickenfoot.match.Saved` for the outcomes)."""
        def apply(m: Match, d: RoundDraft) -> Match:
            payload = self._payload(self.content(d, m).entry)
            return m.edit_round(d.number, **payload) if d.edit else m.add_round(**payload)

        result = self.store.commit_draft(draft_id, apply, by)
        self.match = result.match
        return result

    def drop_draft(self, draft_id: str) -> None:
        self.store.drop_draft(draft_id)

    def _payload(self, entry: RoundEntry) -> dict:
        pens = entry.penalties()  # raises with every problem listed
        out = [h.player for h in entry.hands if h.mode is Mode.OUT]
        penalties: dict[str, int] = {}
        tiles: dict[str, list] = {}
        for i, h in enumerate(entry.hands):
            if h.mode is Mode.OUT:
                continue
            if h.mode in (Mode.TILES, Mode.PHOTO):
                tiles[h.player] = list(h.tiles)
            else:
                penalties[h.player] = pens[i]
        payload = {"penalties": penalties, "tiles": tiles,
                   "out": out[0] if out else None, "blocked": not out}
        if entry.started_with is not None:
            payload["started_with"] = entry.started_with
        return payload

    def opening_choices(self, number: int | None = None) -> list[int]:
        """Doubles a round may have started from: its own, and lower ones when the rules let
        another double open it (next-highest / skip). Empty when only its own is possible."""
        r = self.match.rules
        if r.start is not Start.HOLDER or r.missing_double is MissingDouble.DRAW_UNTIL_FOUND:
            return []
        idx = len(self.match.rounds) if number is None else number - 1
        d = self.match.round_doubles[idx]
        return list(range(d, -1, -1))

    # -------------------------------------------------------------- changes
    def _apply(self, change: Callable[[Match], Match]) -> None:
        # Applied to the latest stored copy inside the store's transaction, so a change made
        # on another phone a moment ago is kept, not overwritten.
        self.match = self.store.update(self.match.id, change)

    def save_round(self, entry: RoundEntry, number: int | None = None) -> None:
        """Score the current round (``number`` None) or replace past round ``number``."""
        payload = self._payload(entry)
        if number is None:
            self._apply(lambda m: m.add_round(**payload))
        else:
            self._apply(lambda m: m.edit_round(number, **payload))

    def set_holder(self, name: str | None) -> None:
        self._apply(lambda m: m.set_holder(name))

    def undo(self) -> None:
        self._apply(lambda m: m.undo())

    def redo(self) -> None:
        self._apply(lambda m: m.redo())

    def undo_last(self, label: str) -> None:
        """Undo the last change if it is still ``label`` (another phone may have made one since);
        else :class:`MatchStateError` and nothing is undone."""
        def change(m: Match) -> Match:
            if not m.undo_log or m.undo_log[-1]["label"] != label:
                raise MatchStateError(f"{label} is no longer the last change (another was made since): "
                                      "nothing was undone")
            return m.undo()
        self._apply(change)

    def redo_last(self, label: str) -> None:
        """Redo ``label`` if it is still the last change undone; else :class:`MatchStateError`."""
        def change(m: Match) -> Match:
            if not m.redo_log or m.redo_log[-1]["label"] != label:
                raise MatchStateError(f"{label} is no longer the last change undone: nothing was redone")
            return m.redo()
        self._apply(change)

    def abandon(self) -> None:
        self._apply(lambda m: m.abandon())

    def rename(self, seat: int, new_name: str) -> None:
        old = self.match.players[seat]
        self._apply(lambda m: m.rename_player(old, new_name))

    def delete(self) -> None:
        self.store.delete(self.id)

    def resume(self) -> None:
        self._apply(lambda m: m.resume())


def _new_entry(m: Match) -> RoundEntry:
    return RoundEntry(m.rules, list(m.players), m.set_top, m.current_double)


def _entry_for(m: Match, number: int) -> RoundEntry:
    rnd = m.rounds[number - 1]
    entry = RoundEntry.from_penalties(m.rules, list(m.players), m.set_top, list(rnd.penalties),
                                      [list(t) if t is not None else None for t in rnd.tiles],
                                      rnd.double, rnd.started_with)
    if rnd.out is None:
        for i, h in enumerate(entry.hands):  # a blocked round's 0 is a score, not "went out"
            if h.mode is Mode.OUT:
                entry.set_pips(i, 0)
    return entry
