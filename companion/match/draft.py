"""A round being scored, before it is saved: a draft with an identity that is saved exactly once.

Several phones score the same round at one table, a button can be pressed twice, a server can
restart half-way: the round being entered is therefore a stored value of its own, a
:class:`RoundDraft`, not something held in one screen's memory. It names the round it scores
(``number``, 1-based; ``edit`` when it replaces a past round) and carries what was entered so
far (``entry``: JSON text the app owns; the match model never reads it).

Saving goes through :func:`commit`, a pure decision taken on the latest stored match and draft
(the storage runs it inside its write transaction):

* a draft is saved once: saving it again (a double tap, a second phone pressing Save on the same
  draft) stores nothing and says who saved it (:attr:`Saved.ALREADY`);
* a new-round draft for round N is saved only while the match has N-1 rounds; once round N was
  stored from somewhere else (another draft, the command line) the draft is closed as
  :attr:`Saved.SUPERSEDED` and nothing is stored;
* an edit draft keeps the round as it was when the edit began (``base``); if that round changed
  meanwhile, nothing is stored, the caller hears :attr:`Saved.CHANGED` and the draft now holds the
  round as it is, so a second Save applies the edit on purpose.
"""

from __future__ import annotations

import dataclasses
import json
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .errors import MatchDataError, MatchStateError
from .model import Match, Round, utc_now


class DraftState(StrEnum):
    OPEN = "open"
    SAVED = "saved"  # stored as a round by this draft
    SUPERSEDED = "superseded"  # its round was stored (or removed) by something else


class Saved(StrEnum):
    """What one press of Save did."""

    STORED = "stored"  # this call stored the round
    ALREADY = "already"  # the draft had been saved before (see RoundDraft.saved_by)
    SUPERSEDED = "superseded"  # the round was stored or removed elsewhere; nothing stored
    CHANGED = "changed"  # (edits) the round changed since the edit began; nothing stored


def _canon(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def round_text(rnd: Round) -> str:
    """A round as canonical JSON text (what an edit draft keeps as its ``base``)."""
    return _canon(rnd.to_dict())


@dataclass(frozen=True, slots=True)
class RoundDraft:
    """One round being entered (or re-entered). Immutable: every change returns a new draft."""

    id: str
    match_id: str
    number: int  # 1-based round number
    edit: bool = False
    #: Edits: the round as it was when the edit began (canonical JSON text), see ``round_text``.
    base: str | None = None
    #: What was entered so far, as canonical JSON text of an object (owned by the app).
    entry: str = "{}"
    revision: int = 0
    state: DraftState = DraftState.OPEN
    saved_by: str | None = None  # who saved it (a device name the app chooses)
    created_at: str = ""
    updated_at: str = ""

    @classmethod
    def new(cls, match: Match, number: int | None = None, *, edit: bool = False,
            entry: Mapping[str, Any] | None = None, now: str | None = None) -> RoundDraft:
        """A draft for the match's next round (``number`` None), or to edit round ``number``."""
        if edit:
            if number is None or not 1 <= number <= len(match.rounds):
                raise MatchStateError(f"there is no round {number} to edit")
            base: str | None = round_text(match.rounds[number - 1])
        else:
            if match.abandoned:
                raise MatchStateError("the match is abandoned; resume it first")
            if match.is_over:
                raise MatchStateError("the match is over; edit a past round instead")
            if number not in (None, len(match.rounds) + 1):
                raise MatchStateError(f"the next round to score is round {len(match.rounds) + 1}")
            number, base = len(match.rounds) + 1, None
        stamp = now or utc_now()
        return cls(uuid.uuid4().hex, match.id, number, edit, base, _canon(dict(entry or {})),
                   created_at=stamp, updated_at=stamp)

    # ------------------------------------------------------------------ facts
    @property
    def open(self) -> bool:
        return self.state is DraftState.OPEN

    @property
    def data(self) -> dict[str, Any]:
        """The entry as an object (a fresh copy: changing it changes nothing stored)."""
        value = json.loads(self.entry)
        return value if isinstance(value, dict) else {}

    @property
    def blobs(self) -> tuple[str, ...]:
        """Keys of the files the entry refers to (photos), listed by the app under ``"blobs"``."""
        keys = self.data.get("blobs", [])
        return tuple(k for k in keys if isinstance(k, str)) if isinstance(keys, list) else ()

    def stale(self, match: Match) -> bool:
        """Open, yet the match no longer has the round it was for (stored or removed elsewhere)."""
        if not self.open:
            return False
        if self.edit:
            return self.number > len(match.rounds)
        return len(match.rounds) != self.number - 1

    # ---------------------------------------------------------------- changes
    def with_entry(self, entry: Mapping[str, Any], now: str | None = None) -> RoundDraft:
        """The draft holding ``entry`` instead (itself when nothing changed or it is closed)."""
        text = _canon(dict(entry))
        if text == self.entry or not self.open:
            return self
        return dataclasses.replace(self, entry=text, revision=self.revision + 1,
                                   updated_at=now or utc_now())

    def close(self, state: DraftState, by: str | None = None, now: str | None = None) -> RoundDraft:
        return dataclasses.replace(self, state=state, saved_by=by, revision=self.revision + 1,
                                   updated_at=now or utc_now())

    # ------------------------------------------------------------ serialising
    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "match": self.match_id, "number": self.number, "edit": self.edit,
                "base": self.base, "entry": self.entry, "revision": self.revision,
                "state": self.state.value, "saved_by": self.saved_by,
                "created_at": self.created_at, "updated_at": self.updated_at}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RoundDraft:
        try:
            d = cls(id=_text(data["id"]), match_id=_text(data["match"]), number=_count(data["number"]),
                    edit=bool(data.get("edit", False)), base=_opt_text(data.get("base")),
                    entry=_text(data.get("entry", "{}")), revision=_count(data.get("revision", 0)),
                    state=DraftState(data.get("state", "open")),
                    saved_by=_opt_text(data.get("saved_by")),
                    created_at=str(data.get("created_at", "")),
                    updated_at=str(data.get("updated_at", "")))
            if not isinstance(json.loads(d.entry), dict):
                raise ValueError("the entry is not an object")
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise MatchDataError(f"a round draft cannot be read ({type(exc).__name__}: {exc})") from None
        if d.edit and d.base is None:
            raise MatchDataError(f"round draft {d.id[:8]} edits a round but does not say how it was")
        return d


def _text(v: Any) -> str:
    if not isinstance(v, str) or not v:
        raise TypeError(f"expected text, got {v!r:.30}")
    return v


def _opt_text(v: Any) -> str | None:
    return None if v is None else _text(v)


def _count(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise TypeError(f"expected a whole number, got {v!r:.30}")
    return v


@dataclass(frozen=True, slots=True)
class Commit:
    """The result of one Save: what happened, the match and the draft as they now are."""

    outcome: Saved
    match: Match
    draft: RoundDraft

    @property
    def stored(self) -> bool:
        return self.outcome is Saved.STORED


def commit(match: Match, draft: RoundDraft, apply: Callable[[Match], Match], by: str,
           now: str | None = None) -> Commit:
    """Decide one Save of ``draft`` on the latest ``match`` (see the module docstring).

    ``apply`` turns the match into the match with the draft's round stored (``add_round`` or
    ``edit_round`` with what was entered); it runs only when the round is to be stored, and its
    errors (an impossible round) leave everything as it was.
    """
    if draft.match_id != match.id:
        raise MatchStateError(f"round draft {draft.id[:8]} belongs to another match")
    if draft.state is DraftState.SAVED:
        return Commit(Saved.ALREADY, match, draft)
    if draft.state is DraftState.SUPERSEDED:
        return Commit(Saved.SUPERSEDED, match, draft)
    if draft.stale(match):
        return Commit(Saved.SUPERSEDED, match, draft.close(DraftState.SUPERSEDED, now=now))
    if draft.edit:
        current = round_text(match.rounds[draft.number - 1])
        if current != draft.base:
            moved = dataclasses.replace(draft, base=current, revision=draft.revision + 1,
                                        updated_at=now or utc_now())
            return Commit(Saved.CHANGED, match, moved)
    new = apply(match)
    if not isinstance(new, Match) or new.id != match.id:
        raise MatchStateError("saving a round must give the same match back")
    if not draft.edit and len(new.rounds) != draft.number:
        raise MatchStateError(f"saving round {draft.number} did not add it")
    return Commit(Saved.STORED, new, draft.close(DraftState.SAVED, by, now))
