"""Thin adapter between the app and the scorekeeper's storage :class:`Repository`.

The screens and state objects only use :class:`MatchStore`; if the repository's API moves,
only this file changes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from companion.match import Match, loads_json
from companion.match.stats import PlayerStats
from companion.storage.repository import Repository, resolve_db_path


class MatchStore:
    """Matches kept in one TinyDB file, shared by every open screen and process."""

    def __init__(self, repo: Repository) -> None:
        self.repo = repo

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
        """Every match, most recently changed first."""
        return sorted(self.repo.all_matches(), key=lambda m: (m.updated_at, m.created_at), reverse=True)

    def unfinished(self) -> list[Match]:
        return [m for m in self.all() if not m.is_over and not m.abandoned]

    def stats(self) -> list[PlayerStats]:
        return self.repo.stats()

    # -------------------------------------------------------------- writing
    def create(self, players: Iterable[str], preset: str, options: dict[str, Any]) -> Match:
        return self.repo.create_match(list(players), preset, options or None)

    def update(self, match_id: str, change: Callable[[Match], Match]) -> Match:
        """Apply ``change`` to the latest stored copy and store it, atomically."""
        return self.repo.update(match_id, change)

    def save(self, match: Match) -> None:
        self.repo.save(match)

    def export_json(self, ids: Iterable[str] | None = None) -> str:
        return json.dumps(self.repo.export_json(ids), ensure_ascii=False, indent=1) + "\n"

    def export_csv(self, ids: Iterable[str] | None = None) -> str:
        return self.repo.export_csv(ids)

    def import_json(self, text: str) -> tuple[int, int, int]:
        """Merge an export file; returns (added, updated, unchanged). All checked first."""
        report = self.repo.import_matches(loads_json(text))
        return len(report.added), len(report.updated), len(report.unchanged)
