"""Storage errors: every one names the file and, where there is one, the way out."""

from __future__ import annotations

from chickenfoot.rules.errors import ChickenFootError, InputError


class StorageError(ChickenFootError):
    """The scorekeeper file cannot be used as it is."""


class DamagedFileError(StorageError):
    """The file is not a scorekeeper database any more (truncated, garbage, hand-edited)."""


class StorageBusyError(StorageError):
    """Another process held the file lock for too long."""


class SchemaError(StorageError):
    """The file was written by a newer program, or an old file could not be migrated."""


class ConflictError(StorageError):
    """The match was changed by another device or process since it was read."""


class MatchNotFoundError(StorageError, InputError, LookupError):
    """No match has that id (or the prefix fits several)."""


class DraftNotFoundError(StorageError, LookupError):
    """No round being entered has that id (saved or cancelled long ago)."""
