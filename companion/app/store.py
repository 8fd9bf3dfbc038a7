"""Thin adapter between the app and the scorekeeper's storage :class:`Repository`.

The screens and state objects only use :class:`MatchStore`; if the repository's API moves,
only this file changes.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from chickenfoot.match import Commit, Match, RoundDraft, loads_json
from chickenfoot.match.stats import PlayerStats, player_stats
from chickenfoot.storage.errors import DraftNotFoundError
from chickenfoot.storage.repository import ImportReport, Repository, resolve_db_path

__all__ = ["DraftNotFoundError", "MatchStore"]


class MatchStore:
    """Matches kept in one TinyDB file, shared by every open screen and process."""

    #: Photos kept in memory (they are read again on every redraw of a reading).
    PHOTO_CACHE = 8

    def __init__(self, repo: Repository) -> None:
        self.repo = repo
        #: Ids of the matches the file holds that did not read back at the last listing.
        self.unreadable: list[str] = []
        self._photos: OrderedDict[str, bytes] = OrderedDict()
        self._photos_lock = threading.Lock()

    @classmethod
    def open(cls, path: str | Path | None = None) -> MatchStore:
        return cls(Repository.open(resolve_db_path(path)))

    @property
    def path(self) -> Path:
        return self.repo.path

    @property
    def version(self) -> int:
        """Raised by every write from any process (poll it to refresh)."""
        return self.repo.version

    def close(self) -> None:
        self.repo.close()

    # -------------------------------------------------------------- reading
    def get(self, match_id: str) -> Match:
        return self.repo.get(match_id)

    def all(self) -> list[Match]:
        """Every match that reads back, most recently changed first (those that do not are in
        :attr:`unreadable`, so one hand-edited entry never hides the rest)."""
        good, self.unreadable = self.repo.readable_matches()
        return sorted(good, key=lambda m: (m.updated_at, m.created_at), reverse=True)

    def unfinished(self) -> list[Match]:
        return [m for m in self.all() if not m.is_over and not m.abandoned]

    def stats(self) -> list[PlayerStats]:
        return player_stats(self.all())

    # -------------------------------------------------------------- writing
    def create(self, players: Iterable[str], preset: str, options: dict[str, Any]) -> Match:
        return self.repo.create_match(list(players), preset, options or None)

    def update(self, match_id: str, change: Callable[[Match], Match]) -> Match:
        """Apply ``change`` to the latest stored copy and store it, atomically."""
        return self.repo.update(match_id, change)

    def save(self, match: Match) -> None:
        self.repo.save(match)

    def delete(self, match_id: str) -> None:
        self.repo.delete_match(match_id)

    # ------------------------------------------------------ rounds being entered
    def open_draft(self, match_id: str, number: int | None = None, *, edit: bool = False,
                   entry: Callable[[Match], Mapping[str, Any]] | None = None) -> RoundDraft:
        return self.repo.open_draft(match_id, number, edit=edit, entry=entry)

    def get_draft(self, draft_id: str) -> RoundDraft:
        return self.repo.get_draft(draft_id)

    def change_draft(self, draft_id: str, change: Callable[[RoundDraft], Mapping[str, Any]]) -> RoundDraft:
        return self.repo.change_draft(draft_id, change)

    def commit_draft(self, draft_id: str, apply: Callable[[Match, RoundDraft], Match], by: str) -> Commit:
        return self.repo.commit_draft(draft_id, apply, by)

    def drop_draft(self, draft_id: str) -> None:
        self.repo.drop_draft(draft_id)

    def put_photo(self, data: bytes) -> str:
        key = self.repo.put_blob(data)
        self._remember(key, data)
        return key

    def photo(self, key: str) -> bytes | None:
        with self._photos_lock:
            if key in self._photos:
                self._photos.move_to_end(key)
                return self._photos[key]
        data = self.repo.get_blob(key)
        if data is not None:
            self._remember(key, data)
        return data

    def _remember(self, key: str, data: bytes) -> None:
        with self._photos_lock:
            self._photos[key] = data
            self._photos.move_to_end(key)
            while len(self._photos) > self.PHOTO_CACHE:
                self._photos.popitem(last=False)

    def export_json(self, ids: Iterable[str] | None = None) -> str:
        return json.dumps(self.repo.export_json(ids), ensure_ascii=False, indent=1) + "\n"

    def export_csv(self, ids: Iterable[str] | None = None) -> str:
        return self.repo.export_csv(ids)

    def import_json(self, text: str) -> ImportReport:
        """Merge an export file (see ``Repository.import_matches``). All checked first."""
        return self.repo.import_matches(loads_json(text))
