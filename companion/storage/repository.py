"""The repository: the only door to stored matches. TinyDB stays behind it.

For the app (and the CLI)::

    repo = Repository.open()                 # or Repository.open("games.json")
    m = repo.create_match(["Ann", "Bob"], "double-chicken-foot", {"zero_zero": 25})
    m = repo.add_round(m.id, penalties={"Ann": 12}, out="Bob")   # atomic read-change-write
    m = repo.update(m.id, lambda m: m.undo())                    # any Match method
    repo.get("3fa8")                         # a unique id prefix is enough
    repo.list_matches()                      # MatchSummary rows, newest first
    d = repo.open_draft(m.id)                # the round being entered, shared and kept on disk
    d = repo.change_draft(d.id, lambda d: {**d.data, "note": 1})  # what was typed so far
    c = repo.commit_draft(d.id, lambda m, d: m.add_round(...), by="phone-2")  # exactly once
    seen = repo.version                      # multi-device refresh: poll
    if repo.version != seen: ...             # ... and reload when it moved

Every change is one transaction: file lock + thread lock, re-read the file if another process
changed it, apply the change to the *latest* stored match, write everything at once with an
atomic replace. So two devices adding rounds to one match never lose one, and a crash leaves
the previous good state (plus ``FILE.bak``, the state before the last write).

Rounds being entered are kept in the same file (table ``drafts``, see
:mod:`chickenfoot.match.draft`), so a restart or a crash loses nothing typed; the photos they
refer to are files named by their SHA-256 in the folder ``FILE-photos`` beside it, removed once
no open draft needs them.

Path: ``--db PATH`` beats the ``CHICKENFOOT_DB`` environment variable, which beats the
default ``platformdirs.user_data_dir("chickenfoot")/matches.json``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tinydb import TinyDB
from tinydb.table import Document, Table

from chickenfoot.match import (
    Commit,
    DraftState,
    Match,
    MatchDataError,
    PlayerStats,
    RoundDraft,
    commit,
    export_csv,
    export_json,
    new_match_id,
    player_stats,
)
from chickenfoot.rules import RuleSet, get_rules
from chickenfoot.rules.jsontext import JSONLimitError
from chickenfoot.rules.words import count

from .errors import (
    ConflictError,
    DamagedFileError,
    DraftNotFoundError,
    MatchNotFoundError,
    SchemaError,
    StorageError,
)
from .migrations import (
    DRAFTS_TABLE,
    META_DOC,
    META_TABLE,
    SCHEMA_VERSION,
    empty,
    match_data,
    match_doc,
    migrate,
    schema_of,
    summarize,
)
from .safe_json import (
    SafeJSONStorage,
    atomic_write,
    db_option,
    encode,
    file_path,
    restore_backup,
    restore_hint,
)

ENV_VAR = "CHICKENFOOT_DB"
APP_NAME = "chickenfoot"
DEFAULT_FILE = "matches.json"
#: Closed drafts stay this long, so a phone that presses Save late hears what became of the round.
CLOSED_DRAFT_KEEP_S = 2 * 24 * 3600
#: A photo no draft refers to is removed after this long (it may be about to be referred to).
LOOSE_BLOB_KEEP_S = 3600
_BLOB_NAME = re.compile(r"[0-9a-f]{64}")


def default_db_path() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP_NAME, appauthor=False)) / DEFAULT_FILE


def resolve_db_path(path: str | os.PathLike[str] | None = None) -> Path:
    """``path`` if given, else ``$CHICKENFOOT_DB``, else the user data directory."""
    if path:
        return Path(path).expanduser()
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env).expanduser()
    return default_db_path()


@dataclass(frozen=True, slots=True)
class MatchSummary:
    """A row of the match list, read without decoding the match."""

    id: str
    players: tuple[str, ...]
    rules: str
    status: str
    rounds: int
    planned_rounds: int
    created_at: str
    updated_at: str
    totals: tuple[int, ...]
    leaders: tuple[str, ...]
    winners: tuple[str, ...]
    draw: bool
    revision: int

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> MatchSummary:
        """Raises KeyError/TypeError when the stored summary is missing or malformed."""
        s = doc["summary"]
        for key in ("rules", "status", "created_at", "updated_at"):
            if not isinstance(s[key], str):
                raise TypeError(key)
        for key in ("rounds", "planned_rounds", "revision"):
            if isinstance(s[key], bool) or not isinstance(s[key], int):
                raise TypeError(key)
        for key in ("players", "totals", "leaders", "winners"):
            if not isinstance(s[key], list):
                raise TypeError(key)
        return cls(id=doc["id"], players=tuple(s["players"]), rules=s["rules"], status=s["status"],
                   rounds=s["rounds"], planned_rounds=s["planned_rounds"],
                   created_at=s["created_at"], updated_at=s["updated_at"],
                   totals=tuple(s["totals"]), leaders=tuple(s["leaders"]),
                   winners=tuple(s["winners"]), draw=bool(s["draw"]), revision=s["revision"])

    def to_dict(self) -> dict[str, Any]:
        return {k: list(v) if isinstance(v, tuple) else v
                for k, v in ((f, getattr(self, f)) for f in self.__slots__)}


@dataclass(frozen=True, slots=True)
class ImportReport:
    added: tuple[str, ...]
    updated: tuple[str, ...]  # the imported copy had more changes than the stored one
    unchanged: tuple[str, ...]  # already stored as is, or the stored copy is newer
    #: (id, id of the copy): changed apart from the stored match since the two parted (two
    #: devices each adding a round), so the imported one was added beside it as a new match.
    kept_apart: tuple[tuple[str, str], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"added": list(self.added), "updated": list(self.updated),
                "unchanged": list(self.unchanged),
                "kept_apart": [{"id": mid, "copy": copy} for mid, copy in self.kept_apart]}

    def summary(self, place: str = "there") -> str:
        """The import in words: "2 added, 1 updated, 3 already there[, 1 kept as a copy ...]"."""
        words = f"{len(self.added)} added, {len(self.updated)} updated, {len(self.unchanged)} already {place}"
        if self.kept_apart:
            words += (f", {len(self.kept_apart)} kept as a copy beside the stored one (changed on both sides "
                      f"since they parted: {', '.join(f'{a[:8]} -> {b[:8]}' for a, b in self.kept_apart)})")
        return words


def _settle(m: Match, stored: Match) -> bool | None:
    """How an imported copy settles against the stored one: None when the two were changed
    apart (the copy goes in beside it), else whether the copy replaces it, holding the later
    state (:meth:`Match.later_than`; copies of one play whose histories parted, by revision)."""
    if stored == m:
        return False
    if m.in_line_with(stored):
        return m.later_than(stored)
    if m.same_play(stored):
        return m.revision > stored.revision
    return None


class Repository:
    """Stored matches in one TinyDB file. Thread-safe; safe across processes.

    Open with :meth:`open`; close with :meth:`close` (or use it as a context manager).
    """

    def __init__(self, path: str | os.PathLike[str], *, lock_timeout: float = 15.0,
                 make_folder: bool = False) -> None:
        self.path = file_path(path)
        self._db = TinyDB(self.path, storage=SafeJSONStorage, lock_timeout=lock_timeout,
                          make_folder=make_folder)
        self._storage: SafeJSONStorage = self._db.storage  # type: ignore[assignment]
        self._lock = threading.RLock()
        self._matches: Table = self._db.table("matches", cache_size=0)
        self._meta: Table = self._db.table(META_TABLE, cache_size=0)
        self._drafts: Table = self._db.table(DRAFTS_TABLE, cache_size=0)
        self._index: dict[str, int] = {}
        #: Entry numbers of match entries without an id or data: no command can name them by an
        #: id, so they are skipped like a spoilt match, and kept in the file as they are.
        self._loose: list[int] = []
        #: Entry numbers (ascending) of each match id held by more than one entry (a hand-pasted
        #: copy): which one is the match cannot be told, so no command reads or writes either
        #: (each would hide the other); both are left out and named by number, like a loose one.
        self._doubled: dict[str, list[int]] = {}
        self._index_gen = -1
        # Decoded matches: ``_fresh`` for the data as now loaded; ``_decoded`` keyed by the stored
        # text as well, so a reload after another process's save re-decodes only what changed.
        self._fresh: dict[str, Match] = {}
        self._decoded: dict[str, tuple[Any, Match]] = {}

    # ------------------------------------------------------------------ opening
    @classmethod
    def open(cls, path: str | os.PathLike[str] | None = None, *, lock_timeout: float = 15.0
             ) -> Repository:
        """Open (not yet create) the file at ``resolve_db_path(path)``; migrate an old schema.

        Raises :class:`StorageError` (damaged file, newer schema, unreadable) with a message
        that names the file and what to do.
        """
        where = resolve_db_path(path)
        # The default place is the project's own and made on the first save; a file someone
        # named (--db, $CHICKENFOOT_DB) must be in a folder that exists, as every output is.
        named = where.expanduser() != default_db_path()
        if named and not where.expanduser().parent.is_dir():
            source = "--db" if path else f"${ENV_VAR}"
            raise StorageError(f"{source} {where}: there is no folder {where.expanduser().parent} "
                               "(it is not created)")
        repo = cls(where, lock_timeout=lock_timeout, make_folder=not named)
        try:
            repo._migrate_if_needed()
        except BaseException:
            repo.close()
            raise
        return repo

    def _migrate_if_needed(self) -> None:
        raw = self._storage.read()
        if schema_of(raw) == SCHEMA_VERSION:
            return
        with self._storage.transaction():
            raw = self._storage.read()
            start = schema_of(raw)
            if start == SCHEMA_VERSION:
                return
            assert raw is not None
            keep = self.path.with_name(f"{self.path.name}.schema-{start}.bak")
            try:
                new, _ = migrate(raw)  # raises SchemaError before anything is written
            except SchemaError as exc:
                raise SchemaError(f"the scorekeeper file {self.path}: {exc}") from None
            if not keep.exists():
                atomic_write(keep, encode(raw), keep_backup=False)
            self._storage.write(new)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Repository:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def backup_path(self) -> Path:
        return self._storage.backup_path

    @staticmethod
    def restore_backup(path: str | os.PathLike[str] | None = None) -> Path | None:
        """Put the last good backup back (see :func:`safe_json.restore_backup`)."""
        return restore_backup(resolve_db_path(path))

    # ------------------------------------------------------------------ reading
    @property
    def version(self) -> int:
        """Counter raised by every write from any process: poll it to know when to refresh."""
        with self._lock:
            meta = self._meta.get(doc_id=int(META_DOC))
            changes = meta.get("changes", 0) if meta else 0
            if isinstance(changes, bool) or not isinstance(changes, int):
                raise DamagedFileError(
                    f"the scorekeeper file {self.path} has a bad change counter {changes!r:.20} "
                    f"(hand-edited?). {self._way_out('Set it to a number')}.")
            return changes

    def changed_on_disk(self) -> bool:
        """Cheap check (one ``stat``) whether another process wrote since we last looked."""
        return self._storage.changed_on_disk()

    def _way_out(self, mend: str) -> str:
        """The ways out of a damaged entry: ``mend`` it first, since the other entries read on,
        then restore the backup where there is one, which would also undo the last save (never
        a restore that would only say there is no backup)."""
        if self.backup_path.exists():
            return f"{mend}, or restore the backup with `{restore_hint(self.path)}` (it also undoes the last save)"
        return f"{mend} (there is no backup to restore)"

    def _refresh_index(self) -> None:
        self._storage.read()  # reload if the file changed
        gen = self._storage.generation
        if gen == self._index_gen:
            return
        index: dict[str, int] = {}
        loose: list[int] = []
        doubled: dict[str, list[int]] = {}
        for doc in self._matches:
            mid = doc.get("id")
            if isinstance(mid, str) and mid and isinstance(doc.get("match"), dict | str):
                if mid in doubled:
                    doubled[mid].append(doc.doc_id)
                elif mid in index:
                    doubled[mid] = [index.pop(mid), doc.doc_id]
                else:
                    index[mid] = doc.doc_id
            else:
                loose.append(doc.doc_id)
        for numbers in doubled.values():
            numbers.sort()
        self._index, self._loose, self._doubled = index, loose, doubled
        self._index_gen, self._fresh = gen, {}
        self._decoded = {k: v for k, v in self._decoded.items() if k in index}

    def resolve_id(self, prefix: str) -> str:
        """The full id of the one match whose id starts with ``prefix``."""
        with self._lock:
            self._refresh_index()
            if prefix.strip() in self._index:  # an id as listed, whatever its case
                return prefix.strip()
            key = prefix.strip().lower()
            if key in self._index:
                return key
            if not key:
                raise MatchNotFoundError("give a match id (or the start of one)")
            for mid in (prefix.strip(), key):
                if mid in self._doubled:
                    raise DamagedFileError(self._doubled_problem(mid))
            hits = [i for i in (*self._index, *self._doubled) if i.startswith(key)]
            if not hits:
                raise MatchNotFoundError(f"no match with id {prefix!r} in {self.path}" + (
                    f" ({count(len(self._loose), 'entry', 'entries')} without an id or data: "
                    f"`chickenfoot db check {db_option(self.path)}` names them)" if self._loose else ""))
            if len(hits) > 1:
                raise MatchNotFoundError(f"{prefix!r} fits {len(hits)} matches; give more of the id")
            if hits[0] in self._doubled:
                raise DamagedFileError(self._doubled_problem(hits[0]))
            return hits[0]

    def __contains__(self, match_id: str) -> bool:
        with self._lock:
            self._refresh_index()
            return match_id in self._index

    def get(self, id_or_prefix: str) -> Match:
        """The stored match (a unique id prefix is enough)."""
        with self._lock:
            mid = self.resolve_id(id_or_prefix)
            fresh = self._fresh.get(mid)
            if fresh is not None:
                return fresh
            doc = self._matches.get(doc_id=self._index[mid])
            assert doc is not None
            raw = doc["match"]
            known = self._decoded.get(mid)
            if known is not None and known[0] == raw:
                m = known[1]
            else:
                m = self._decode(doc)
                self._decoded[mid] = (raw, m)
            self._fresh[mid] = m
            return m

    def _decode(self, doc: Mapping[str, Any]) -> Match:
        try:
            return Match.from_dict(match_data(doc))
        except json.JSONDecodeError as exc:
            why = f"whose data is not JSON ({exc.msg})"
        except (MatchDataError, JSONLimitError) as exc:
            why = f"that cannot be read ({exc})"
        mid = str(doc.get("id"))
        raise DamagedFileError(
            f"the scorekeeper file {self.path} holds match {mid} {why}; it was probably hand-edited: "
            + self._way_out("fix the entry or remove that match with "
                            f"`chickenfoot match delete {mid[:8]} --yes {db_option(self.path)}`"))

    def _loose_problem(self, number: int) -> str:
        """What is wrong with match entry ``number`` (one without an id or data) and the ways out,
        naming it by its number: it has no id to name it by."""
        return (f"match entry #{number} without an id or data (hand-edited?) is left out: "
                + self._way_out("fix it by hand (it needs an \"id\" and a \"match\") or remove it with "
                                f"`chickenfoot match delete --entry {number} --yes {db_option(self.path)}`"))

    def _doubled_problem(self, mid: str) -> str:
        """What is wrong when match ``mid`` is held by more than one entry, what each holds (so
        the one to keep can be chosen) and the ways out, naming the entries by number."""
        numbers = self._doubled[mid]
        held = []
        for n in numbers:
            doc = self._matches.get(doc_id=n)
            try:
                row = MatchSummary.from_doc(doc or {})
                held.append(f"#{n}: {count(row.rounds, 'round')}, last changed "
                            f"{row.updated_at[:16].replace('T', ' ')}")
            except (KeyError, TypeError):
                held.append(f"#{n}: its list entry does not read")
        names = ", ".join(f"#{n}" for n in numbers[:-1]) + f" and #{numbers[-1]}"
        every = "both" if len(numbers) == 2 else "all"
        return (f"match entries {names} {every} hold match {mid} ({'; '.join(held)}): a copy pasted "
                f"in by hand? Which one is the match cannot be told, so {every} are left out and no "
                "command changes or deletes them: "
                + self._way_out("remove the copy not wanted by its entry number, e.g. "
                                f"`chickenfoot match delete --entry {numbers[-1]} --yes {db_option(self.path)}`"))

    def list_matches(self, status: str | None = None) -> list[MatchSummary]:
        """Every match (or those with ``status`` active/finished/abandoned), newest first."""
        return self.listing(status)[0]

    def listing(self, status: str | None = None) -> tuple[list[MatchSummary], list[str]]:
        """:meth:`list_matches`, and what it left out as :meth:`readable_matches` names it: an
        entry without an id or data, or one whose list entry and data both do not read."""
        with self._lock:
            self._refresh_index()
            rows, left_out = [], []
            held_twice = self._held_twice()
            for doc in self._matches:
                if doc.doc_id in self._loose or doc.doc_id in held_twice:
                    left_out.append(entry_name(doc.doc_id))
                    continue
                try:
                    row = MatchSummary.from_doc(doc)
                except (KeyError, TypeError):
                    try:
                        row = MatchSummary.from_doc(match_doc(self._decode(doc)))
                    except DamagedFileError:
                        left_out.append(doc["id"])
                        continue
                if status is None or row.status == status:
                    rows.append((row.created_at, doc.doc_id, row))
            # created in the same second (stamps keep seconds): the one stored later is newer
            rows.sort(key=lambda r: (r[0], r[1]), reverse=True)
            return [row for _, _, row in rows], left_out

    def all_matches(self) -> list[Match]:
        with self._lock:
            self._refresh_index()
            return [self.get(mid) for mid in self._index]

    def readable_matches(self) -> tuple[list[Match], list[str]]:
        """Every match that reads back, and the ids of those that do not (a hand-edited
        entry), then an entry without an id or data by :func:`entry_name`: one damaged entry
        does not hide the others (:meth:`check` says what is wrong)."""
        with self._lock:
            self._refresh_index()
            good, bad = [], []
            for mid in self._index:
                try:
                    good.append(self.get(mid))
                except DamagedFileError:
                    bad.append(mid)
            return good, bad + [entry_name(n) for n in sorted([*self._loose, *self._held_twice()])]

    def loose_entries(self) -> list[int]:
        """The entry numbers of match entries without an id or data (:meth:`check` names them)."""
        with self._lock:
            self._refresh_index()
            return list(self._loose)

    def doubled_entries(self) -> dict[str, list[int]]:
        """Match ids held by more than one entry, with those entries' numbers (:meth:`check`
        names them)."""
        with self._lock:
            self._refresh_index()
            return {mid: list(numbers) for mid, numbers in self._doubled.items()}

    def _held_twice(self) -> set[int]:
        return {n for numbers in self._doubled.values() for n in numbers}

    def __len__(self) -> int:
        with self._lock:
            self._refresh_index()
            return len(self._index)

    def stats(self) -> list[PlayerStats]:
        """Figures per player over every match that reads back (:meth:`readable_matches`: one
        hand-damaged entry leaves out itself, not the rest)."""
        return player_stats(self.readable_matches()[0])

    def export_json(self, ids: Iterable[str] | None = None) -> dict[str, Any]:
        return export_json(self._pick(ids))

    def export_csv(self, ids: Iterable[str] | None = None) -> str:
        return export_csv(self._pick(ids))

    def _pick(self, ids: Iterable[str] | None) -> list[Match]:
        if ids is None:  # every match that reads back: a damaged entry is left for db check
            return sorted(self.readable_matches()[0], key=lambda m: (m.created_at, m.id))
        return [self.get(i) for i in ids]

    # ------------------------------------------------------------------ writing
    def _next_entry(self) -> int:
        """The number a new match entry takes: past every entry, one without an id included."""
        return max([*self._index.values(), *self._loose, *self._held_twice()], default=0) + 1

    def _put(self, m: Match) -> None:
        """Insert or replace one match; call inside a transaction."""
        self._refresh_index()
        if m.id in self._doubled:  # a new entry beside them would be one copy more
            raise DamagedFileError(self._doubled_problem(m.id))
        doc = match_doc(m)
        doc_id = self._index.get(m.id)
        if doc_id is None:
            doc_id = self._next_entry()
            self._matches.insert(Document(doc, doc_id=doc_id))
        else:
            def replace(stored: dict[str, Any]) -> None:
                stored.clear()
                stored.update(doc)
            self._matches.update(replace, doc_ids=[doc_id])
        self._refresh_index()
        self._fresh[m.id] = m
        self._decoded[m.id] = (doc["match"], m)

    def _bump(self) -> None:
        raw = self._storage.read()
        if not raw:
            raw = empty()
        meta = raw.setdefault(META_TABLE, {}).setdefault(
            META_DOC, {"schema": SCHEMA_VERSION, "changes": 0})
        meta["schema"] = SCHEMA_VERSION
        changes = meta.get("changes", 0)
        meta["changes"] = (changes if isinstance(changes, int) and changes >= 0 else 0) + 1
        self._storage.write(raw)

    @contextlib.contextmanager
    def _writing(self) -> Iterator[None]:
        """One transaction = one file write = one step of :attr:`version`."""
        with self._lock, self._storage.transaction():
            yield
            if self._storage.dirty:
                self._bump()

    def create_match(
        self,
        players: Iterable[str],
        rules: str | RuleSet = "double-chicken-foot",
        options: Mapping[str, Any] | None = None,
    ) -> Match:
        """Start and store a new match; ``rules`` is a preset name or a RuleSet."""
        rs = get_rules(rules, options) if isinstance(rules, str) else (
            rules.with_options(options) if options else rules)
        m = Match.new(list(players), rs)
        with self._writing():
            self._put(m)
        return m

    def save(self, match: Match, *, expected_revision: int | None = None) -> Match:
        """Store ``match`` (insert or replace).

        Refuses with :class:`ConflictError` when the stored copy moved on meanwhile: its
        revision differs from ``expected_revision`` when given, else it is not older than
        ``match``. Prefer :meth:`update`, which cannot conflict.
        """
        with self._writing():
            self._refresh_index()
            if match.id in self._index:
                stored = self.get(match.id)
                if stored != match:
                    stale = (stored.revision != expected_revision if expected_revision is not None
                             else stored.revision >= match.revision)
                    if stale:
                        raise ConflictError(
                            f"match {match.id[:8]} was changed elsewhere (stored revision "
                            f"{stored.revision}); reload it and apply the change again")
                else:
                    return stored
            self._put(match)
        return match

    def update(self, match_id: str, change: Callable[[Match], Match]) -> Match:
        """Apply ``change`` to the latest stored match and store the result, atomically."""
        with self._writing():
            current = self.get(match_id)
            new = change(current)
            if not isinstance(new, Match) or new.id != current.id:
                raise StorageError("an update must return the same match")
            if new != current:
                self._put(new)
            return new

    def delete_match(self, match_id: str) -> None:
        """Remove a match for good, with the rounds being entered for it."""
        with self._writing():
            mid = self.resolve_id(match_id)
            self._matches.remove(doc_ids=[self._index[mid]])
            gone = [doc_id for doc_id, d in self._draft_docs().values() if d.match_id == mid]
            if gone:
                self._drafts.remove(doc_ids=gone)
            self._refresh_index()
        self._tidy_blobs()

    def delete_entry(self, number: int) -> None:
        """Remove match entry ``number``, one without an id or data, or one of the entries holding
        the same match (which no id can name apart); a match that has an id is deleted by it
        (:meth:`delete_match`)."""
        with self._writing():
            self.find_entry(number)
            self._matches.remove(doc_ids=[number])
            self._refresh_index()

    def find_entry(self, number: int) -> None:
        """Raises :class:`MatchNotFoundError` unless match entry ``number`` is one without an id
        or data, or one of the entries holding the same match, saying what it is instead."""
        with self._lock:
            self._refresh_index()
            if number in self._loose or number in self._held_twice():
                return
            owner = next((mid for mid, n in self._index.items() if n == number), None)
            raise MatchNotFoundError(
                f"match entry #{number} is match {owner[:8]}: delete it by its id" if owner else
                f"there is no match entry #{number} without an id or data, or holding a match another "
                f"entry holds too, in {self.path}")

    def rename_player(self, match_id: str, name: str, new_name: str) -> Match:
        return self.update(match_id, lambda m: m.rename_player(name, new_name))

    def import_matches(self, matches: Iterable[Match]) -> ImportReport:
        """Merge matches by id: new ones are added; a copy that is the stored one with more
        changes, or with some of them undone (:meth:`Match.in_line_with`), replaces it when it
        holds the later state (:meth:`Match.later_than`), else the stored one stays; a copy
        changed apart from the stored one since they parted is added beside it as a new match,
        so neither's rounds are lost, and meets that copy when the same file is imported again.
        One write for the whole import."""
        added, updated, unchanged = [], [], []
        apart: list[tuple[str, str]] = []
        fresh: list[Document] = []
        with self._writing():
            self._refresh_index()
            first_id = self._next_entry()

            def insert(match: Match) -> None:
                fresh.append(Document(match_doc(match), doc_id=first_id + len(fresh)))

            for m in matches:
                if m.id in added:  # the same match twice in one import
                    unchanged.append(m.id)
                    continue
                if m.id in self._doubled:  # as for a spoilt stored match: nothing is imported
                    raise DamagedFileError(self._doubled_problem(m.id))
                if m.id not in self._index:
                    insert(m)
                    added.append(m.id)
                    continue
                later = _settle(m, self.get(m.id))
                if later is None:
                    # kept apart by an earlier import of this file: that copy is what it meets
                    for kept in self._copies_of(m):
                        later = _settle(dataclasses.replace(m, id=kept.id), kept)
                        if later is not None:
                            m = dataclasses.replace(m, id=kept.id)
                            break
                    else:
                        copy = dataclasses.replace(m, id=new_match_id())
                        insert(copy)
                        apart.append((m.id, copy.id))
                        continue
                if later:
                    self._put(m)
                    updated.append(m.id)
                else:
                    unchanged.append(m.id)
            if fresh:
                self._matches.insert_multiple(fresh)  # one table rewrite for all new matches
        return ImportReport(tuple(added), tuple(updated), tuple(unchanged), tuple(apart))

    def _copies_of(self, m: Match) -> list[Match]:
        """Stored matches under other ids that began as ``m`` did (its players, its start):
        copies an import kept apart from ``m``'s id."""
        return [k for k in self.readable_matches()[0]
                if k.id != m.id and k.created_at == m.created_at and k.players == m.players]

    # ------------------------------------------------------------ round drafts
    def _draft_docs(self) -> dict[str, tuple[int, RoundDraft]]:
        """Every readable draft by id, with its document id (a hand-damaged one is skipped here
        and listed by :meth:`check`)."""
        out: dict[str, tuple[int, RoundDraft]] = {}
        for doc in self._drafts:
            try:
                d = RoundDraft.from_dict(doc["draft"])
            except (MatchDataError, KeyError, TypeError):
                continue
            out[d.id] = (doc.doc_id, d)
        return out

    def _put_draft(self, d: RoundDraft) -> None:
        docs = self._draft_docs()
        doc = {"id": d.id, "draft": d.to_dict()}
        if d.id in docs:
            def replace(stored: dict[str, Any]) -> None:
                stored.clear()
                stored.update(doc)
            self._drafts.update(replace, doc_ids=[docs[d.id][0]])
        else:
            used = [int(k) for k in (self._storage.read() or {}).get(DRAFTS_TABLE, {})]
            self._drafts.insert(Document(doc, doc_id=max(used, default=0) + 1))

    def drafts(self, match_id: str | None = None) -> list[RoundDraft]:
        """Stored drafts (of one match), oldest first."""
        with self._lock:
            self._storage.read()
            mid = None if match_id is None else self.resolve_id(match_id)
            found = [d for _, d in self._draft_docs().values() if mid is None or d.match_id == mid]
            return sorted(found, key=lambda d: (d.created_at, d.id))

    def get_draft(self, draft_id: str) -> RoundDraft:
        with self._lock:
            self._storage.read()
            hit = self._draft_docs().get(draft_id)
            if hit is None:
                raise DraftNotFoundError(f"there is no round being entered with id {draft_id[:8]!r} "
                                         "(it was saved or cancelled long ago)")
            return hit[1]

    def open_draft(self, match_id: str, number: int | None = None, *, edit: bool = False,
                   entry: Callable[[Match], Mapping[str, Any]] | None = None) -> RoundDraft:
        """The open draft for the match's next round (or for editing round ``number``), made
        now if there is none; every device asking gets the same one. ``entry`` gives a new
        draft's first content (e.g. the round being edited as it is)."""
        with self._writing():
            m = self.get(match_id)
            want = number if edit else len(m.rounds) + 1
            for _, d in self._draft_docs().values():
                if d.match_id == m.id and d.open and d.edit == edit and d.number == want \
                        and not d.stale(m):
                    return d
            d = RoundDraft.new(m, number, edit=edit, entry=entry(m) if entry else None)
            self._put_draft(d)
            return d

    def change_draft(self, draft_id: str, change: Callable[[RoundDraft], Mapping[str, Any]]
                     ) -> RoundDraft:
        """Replace a draft's entry with ``change(latest stored draft)``, atomically (two phones
        typing into one round never lose each other's keys). A closed draft is returned as it
        is, unchanged: the caller sees that the round was saved meanwhile."""
        with self._writing():
            d = self.get_draft(draft_id)
            if not d.open:
                return d
            new = d.with_entry(change(d))
            if new is not d:
                self._put_draft(new)
            return new

    def commit_draft(self, draft_id: str, apply: Callable[[Match, RoundDraft], Match], by: str
                     ) -> Commit:
        """Save a draft as its round, exactly once (see :func:`chickenfoot.match.draft.commit`):
        the match and the draft are written together in one atomic replace. ``apply(match,
        draft)`` stores the latest stored draft's content on the latest stored match."""
        with self._writing():
            d = self.get_draft(draft_id)
            m = self.get(d.match_id)
            result = commit(m, d, lambda latest: apply(latest, d), by)
            if result.match is not m:
                self._put(result.match)
            if result.draft is not d:
                self._put_draft(result.draft)
            self._forget_closed_drafts()
        if not result.draft.open:
            self._tidy_blobs()
        return result

    def drop_draft(self, draft_id: str) -> None:
        """Throw a draft away (an edit cancelled); gone already is fine."""
        with self._writing():
            hit = self._draft_docs().get(draft_id)
            if hit is not None:
                self._drafts.remove(doc_ids=[hit[0]])
        self._tidy_blobs()

    def _forget_closed_drafts(self) -> None:
        cutoff = time.time() - CLOSED_DRAFT_KEEP_S
        old = [doc_id for doc_id, d in self._draft_docs().values()
               if d.state is not DraftState.OPEN and _epoch(d.updated_at) < cutoff]
        if old:
            self._drafts.remove(doc_ids=old)

    # ------------------------------------------------------------------ photos
    @property
    def blob_dir(self) -> Path:
        return self.path.with_name(self.path.stem + "-photos")

    def put_blob(self, data: bytes) -> str:
        """Keep ``data`` (a photo) beside the file; returns its key (SHA-256, hex)."""
        key = hashlib.sha256(data).hexdigest()
        target = self.blob_dir / key
        if not target.exists():
            try:
                atomic_write(target, data, keep_backup=False)
            except OSError as exc:
                raise StorageError(f"could not keep the photo in {self.blob_dir}: {exc.strerror}") from None
        return key

    def get_blob(self, key: str) -> bytes | None:
        """The bytes kept under ``key``, or None (never stored, or removed)."""
        if not isinstance(key, str) or not _BLOB_NAME.fullmatch(key):
            return None
        try:
            return (self.blob_dir / key).read_bytes()
        except OSError:
            return None

    def _tidy_blobs(self) -> None:
        """Remove photos no open draft refers to (older than LOOSE_BLOB_KEEP_S when no closed
        draft named them either: they may be about to be referred to)."""
        folder = self.blob_dir
        if not folder.is_dir():
            return
        with self._lock:
            self._storage.read()
            drafts = [d for _, d in self._draft_docs().values()]
        needed = {k for d in drafts if d.open for k in d.blobs}
        done = {k for d in drafts if not d.open for k in d.blobs}
        cutoff = time.time() - LOOSE_BLOB_KEEP_S
        for f in folder.iterdir():
            with contextlib.suppress(OSError):
                if (f.name.endswith(".tmp") and f.stat().st_mtime < cutoff) or (_BLOB_NAME.fullmatch(f.name) and f.name not in needed and (
                        f.name in done or f.stat().st_mtime < cutoff)):
                    f.unlink()

    # ------------------------------------------------ command methods (for app/CLI)
    def add_round(self, match_id: str, **kw: Any) -> Match:
        """``Match.add_round`` on the latest stored copy, stored atomically."""
        return self.update(match_id, lambda m: m.add_round(**kw))

    def edit_round(self, match_id: str, number: int, **kw: Any) -> Match:
        return self.update(match_id, lambda m: m.edit_round(number, **kw))

    def delete_last_round(self, match_id: str) -> Match:
        return self.update(match_id, lambda m: m.delete_last_round())

    def set_holder(self, match_id: str, name: str | None) -> Match:
        return self.update(match_id, lambda m: m.set_holder(name))

    def undo(self, match_id: str) -> Match:
        return self.update(match_id, lambda m: m.undo())

    def redo(self, match_id: str) -> Match:
        return self.update(match_id, lambda m: m.redo())

    def abandon(self, match_id: str) -> Match:
        return self.update(match_id, lambda m: m.abandon())

    def resume(self, match_id: str) -> Match:
        return self.update(match_id, lambda m: m.resume())

    # ------------------------------------------------------------------ checks
    def check(self) -> list[str]:
        """Every problem in the file at once (empty list: all matches read back fine)."""
        problems = []
        with self._lock:
            try:
                self.version  # noqa: B018 - a bad change counter is a problem `db info` trips on
            except DamagedFileError as exc:
                problems.append(str(exc))
            self._refresh_index()
            for doc in self._matches:
                if doc.doc_id in self._loose:
                    problems.append(self._loose_problem(doc.doc_id))
                    continue
                try:
                    m = Match.from_dict(match_data(doc))
                except (MatchDataError, KeyError, TypeError, ValueError) as exc:
                    problems.append(f"match #{doc.doc_id} ({doc.get('id', '?')}): {exc}")
                    continue
                if m.id != doc.get("id"):
                    problems.append(f"match #{doc.doc_id}: listed as {doc.get('id')!r} but holds "
                                    f"match {m.id!r}")
                if doc.get("summary") != summarize(m):
                    problems.append(f"match {m.id}: its list entry does not match its rounds "
                                    "(hand-edited?); the next change to the match rewrites it")
            problems.extend(self._doubled_problem(mid) for mid in self._doubled)
            for doc in self._drafts:
                try:
                    RoundDraft.from_dict(doc["draft"])
                except (MatchDataError, KeyError, TypeError) as exc:
                    problems.append(f"round being entered #{doc.doc_id}: {exc} (it is ignored)")
        return problems

    def info(self) -> dict[str, Any]:
        with self._lock:
            exists = self.path.exists()
            return {
                "path": str(self.path),
                "exists": exists,
                "size_bytes": self.path.stat().st_size if exists else 0,
                "backup": str(self.backup_path) if self.backup_path.exists() else None,
                "schema": SCHEMA_VERSION,
                "matches": len(self),
                "version": self.version,
            }

    def summarize(self, m: Match) -> MatchSummary:
        return MatchSummary.from_doc({"id": m.id, "summary": summarize(m)})


def entry_name(number: int) -> str:
    """How a match entry without an id is named where match ids are listed."""
    return f"entry #{number}"


_ENTRY_NAME = re.compile(r"entry #\d+")


def left_out_words(names: list[str]) -> tuple[str, str]:
    """What was left out, counted as people read it ("1 match", "2 entries", "1 match and 2
    entries": a match held by two entries is two entries, not two matches), and its verb."""
    entries = sum(1 for name in names if _ENTRY_NAME.fullmatch(name))
    matches = len(names) - entries
    parts = [count(n, word, plural) for n, word, plural in ((matches, "match", "matches"), (entries, "entry", "entries"))
             if n]
    return " and ".join(parts), "is" if len(names) == 1 else "are"


def short_name(name: str) -> str:
    """A listed match as people read it: an id's first 8 characters, an entry's name whole."""
    return name if _ENTRY_NAME.fullmatch(name) else name[:8]


def _epoch(stamp: str) -> float:
    """Seconds since 1970 of an ISO time stamp; 0 when it cannot be read (counts as old)."""
    from datetime import datetime

    try:
        return datetime.fromisoformat(stamp).timestamp()
    except (TypeError, ValueError):
        return 0.0
