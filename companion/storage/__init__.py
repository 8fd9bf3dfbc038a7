"""Persistence for the scorekeeper: a repository over one TinyDB file that never loses data.

Only :class:`Repository` (and the errors) should be used from outside; TinyDB stays hidden.
Imports the match model and the rules, never the app or the CLI.
"""

from .errors import (
    ConflictError,
    DamagedFileError,
    DraftNotFoundError,
    MatchNotFoundError,
    SchemaError,
    StorageBusyError,
    StorageError,
)
from .migrations import MIGRATIONS, SCHEMA_VERSION
from .repository import (
    DEFAULT_FILE,
    ENV_VAR,
    ImportReport,
    MatchSummary,
    Repository,
    default_db_path,
    resolve_db_path,
)
from .safe_json import SafeJSONStorage, backup_path, restore_backup

__all__ = [
    "DEFAULT_FILE",
    "ENV_VAR",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "ConflictError",
    "DamagedFileError",
    "DraftNotFoundError",
    "ImportReport",
    "MatchNotFoundError",
    "MatchSummary",
    "Repository",
    "SafeJSONStorage",
    "SchemaError",
    "StorageBusyError",
    "StorageError",
    "backup_path",
    "default_db_path",
    "resolve_db_path",
    "restore_backup",
]
