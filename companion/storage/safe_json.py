"""A TinyDB storage that never loses data.

Why not TinyDB's ``JSONStorage``: it rewrites the file in place (a kill mid-write leaves half a
file) and has no lock (two writers corrupt it). This storage:

* writes a temporary file in the same folder, flushes and fsyncs it, keeps the current file as
  ``FILE.bak`` (a hard link, so the backup costs no copy), ``os.replace``s the temporary file
  over ``FILE`` and fsyncs the folder: a reader or a crash sees the old file or the new one;
* serialises writers with a cross-process file lock (``FILE.lock``) plus a thread lock, and
  groups everything done inside :meth:`SafeJSONStorage.transaction` into one write, so a
  read-modify-write by another process can neither interleave nor be lost;
* re-reads the file only when it changed on disk (inode, size, mtime, ctime), so repeated
  queries cost a ``stat`` and another process's change is seen before the next read;
* turns an unreadable file into :class:`DamagedFileError` naming the file, the backup and the
  command that restores it, instead of a traceback or a silently empty history.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import shutil
import stat
import tempfile
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tinydb.storages import Storage

from chickenfoot.rules import jsontext

from .errors import DamagedFileError, StorageBusyError, StorageError

LOCK_TIMEOUT_S = 15.0
#: A table key as TinyDB writes one (``str(int)``), so reading it back with ``int`` and writing
#: it again gives the same key; no longer than a number jsontext lets through.
_ENTRY_KEY = re.compile(rf"0|[1-9][0-9]{{0,{jsontext.MAX_DIGITS - 1}}}")

Signature = tuple[int, int, int, int]


def file_path(path: str | os.PathLike[str]) -> Path:
    """The file a scorekeeper name stands for: absolute, and through a link to its target, so a
    save replaces the target (a file kept in a synced folder, linked from elsewhere) instead of
    the link, and the backup and lock lie beside the target."""
    p = Path(path).expanduser().absolute()
    return Path(os.path.realpath(p)) if p.is_symlink() else p


def backup_path(path: Path) -> Path:
    return path.with_name(path.name + ".bak")


def lock_path(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


def db_option(path: Path) -> str:
    """``--db PATH`` as a command in a message gives it, ready to paste (quoted if need be)."""
    return f"--db {_quote(path)}"


def restore_hint(path: Path) -> str:
    return f"chickenfoot db restore {db_option(path)}"


def _quote(path: Path) -> str:
    s = str(path)
    return f'"{s}"' if any(c.isspace() for c in s) else s


def _signature(st: os.stat_result) -> Signature:
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _fsync_dir(folder: Path) -> None:
    # Makes the rename itself durable; not possible on every platform (e.g. Windows).
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


_umask: int | None = None


def _new_file_mode() -> int:
    """The mode an ordinary new file gets here (0666 less the umask), read once: the umask can
    only be read by setting it, which must not race other threads later."""
    global _umask
    if _umask is None:
        _umask = os.umask(0o022)
        os.umask(_umask)
    return 0o666 & ~_umask


def writable_target(path: Path) -> int:
    """The mode the file at ``path`` must keep when it is replaced (an ordinary new file's mode
    when there is none yet). Raises ``IsADirectoryError`` for a folder and ``PermissionError``
    for a read-only file: replacing it would overwrite what its owner made read-only, even for
    root, whom the permission bits do not stop."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return _new_file_mode()
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(errno.EISDIR, "it is a folder, not a file", str(path))
    if not st.st_mode & 0o222 or not os.access(path, os.W_OK):
        raise PermissionError(errno.EACCES, "the file is read-only (make it writable to save)",
                              str(path))
    return stat.S_IMODE(st.st_mode)


def writable_folder(folder: Path) -> None:
    """Check that files can be made in ``folder``: ``FileNotFoundError`` when there is no such
    folder (none is ever made for a file someone named), ``PermissionError`` when it is
    read-only (by its permission bits too, which do not stop root)."""
    try:
        st = os.stat(folder)
    except FileNotFoundError:
        raise FileNotFoundError(errno.ENOENT, f"there is no folder {folder} (it is not created)",
                                str(folder)) from None
    if not stat.S_ISDIR(st.st_mode):
        raise NotADirectoryError(errno.ENOTDIR, f"{folder} is not a folder", str(folder))
    if not st.st_mode & 0o222 or not os.access(folder, os.W_OK | os.X_OK):
        raise PermissionError(errno.EACCES, f"the folder {folder} is read-only", str(folder))


def _own_temp_name(name: str) -> re.Pattern[str]:
    """The temporary files written for the file ``name``: its new contents and its backup's
    (``_write_temp``: mkstemp's 8 random characters) and the backup's hard link."""
    return re.compile(rf"\.{re.escape(name)}\.(?:bak\.)?[a-z0-9_]{{8}}\.tmp|\.{re.escape(name)}\.bak-\d+-\d+\.tmp")


def _culprit(exc: OSError, path: Path) -> str:
    """" (at FILE.bak)" when the error is about a file beside ``path`` (its backup or lock made a
    folder, say), not ``path`` itself; a temporary file is not named (it is gone)."""
    for name in (exc.filename2, exc.filename):
        if not name:
            continue
        p = Path(os.fsdecode(name))
        if p.name.endswith(".tmp"):
            continue
        return "" if p == path else f" (at {p})"
    return ""


def _write_temp(folder: Path, stem: str, data: bytes, mode: int | None = None) -> Path:
    fd, tmp = tempfile.mkstemp(prefix=f".{stem}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            if mode is not None:
                os.fchmod(f.fileno(), mode)  # mkstemp makes 0600; the file keeps its own mode
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return Path(tmp)


def _keep_backup(path: Path) -> None:
    """Make ``FILE.bak`` the current ``FILE`` without a window where neither is complete."""
    bak = backup_path(path)
    with contextlib.suppress(OSError):
        if os.path.samefile(bak, path):
            # A writer was killed between this step and its replace: the backup already is
            # the current file. (Renaming a second link of the same inode onto it would be a
            # no-op that leaves the temporary link behind.)
            return
    tmp = path.with_name(f".{path.name}.bak-{os.getpid()}-{threading.get_ident()}.tmp")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    try:
        os.link(path, tmp)  # same inode: free, and still the old file after the replace
    except OSError:
        tmp = _write_temp(path.parent, path.name + ".bak", path.read_bytes(),
                          stat.S_IMODE(os.stat(path).st_mode))
    try:
        os.replace(tmp, bak)
    except OSError:  # a folder where the backup goes, say: no temporary copy left behind
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()  # only still there if rename found both names on one inode


def atomic_write(path: Path, data: bytes, *, keep_backup: bool = True, make_folder: bool = True,
                 mode: int | None = None) -> None:
    """Replace ``path`` with ``data`` so that a crash at any moment leaves the old or new file.

    The file keeps its mode (a shared 0664 file stays shared), or takes ``mode`` (a secret's
    0600); a read-only file or a folder is refused with ``PermissionError`` /
    ``IsADirectoryError`` before anything is written. With ``make_folder=False`` a missing
    folder is ``FileNotFoundError`` instead of being created.
    """
    if make_folder:
        path.parent.mkdir(parents=True, exist_ok=True)
    writable_folder(path.parent)
    kept = writable_target(path)
    mode = kept if mode is None else mode
    tmp = _write_temp(path.parent, path.name, data, mode)
    try:
        if keep_backup and path.exists():
            _keep_backup(path)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


def decode(raw: bytes, path: Path) -> dict[str, Any]:
    """Parse and shape-check a database file; :class:`DamagedFileError` when it is not one."""
    if not raw.strip():
        raise damaged(path, "the file is empty")
    try:
        data = jsontext.loads(raw)
    except UnicodeDecodeError:
        raise damaged(path, "the file is not text") from None
    except json.JSONDecodeError as exc:
        raise damaged(path, f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except jsontext.JSONLimitError as exc:
        raise damaged(path, str(exc)) from None
    if not isinstance(data, dict):
        raise damaged(path, "the top level is not an object of tables")
    for name, table in data.items():
        if not isinstance(table, dict):
            raise damaged(path, f"table {name!r} is not an object")
        for key, doc in table.items():
            if not _ENTRY_KEY.fullmatch(key):
                # TinyDB reads a key with int() and writes str() back: "01" beside "1" would
                # become one entry on the next save (a match gone), "²" a ValueError.
                free = 1 + max((int(k) for k in table if _ENTRY_KEY.fullmatch(k)), default=0)
                raise damaged(path, f"table {name!r} has an entry under the key {key[:40]!r}, not an entry "
                              "number as this program writes one: digits only, no leading zero; hand-edited?",
                              mend=f"Write its key as \"{free}\", a number no other entry there uses")
            if not isinstance(doc, dict):
                raise damaged(path, f"table {name!r} has an entry {key!r} that is not a document")
    return data


def encode(data: dict[str, Any]) -> bytes:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


def damaged(path: Path, why: str, mend: str | None = None) -> DamagedFileError:
    """The file cannot be read as it is: ``why``, then the ways out. ``mend`` (a hand repair that
    makes the file read again) comes first, since restoring the backup also undoes the last save."""
    bak = backup_path(path)
    if bak.exists():
        when = datetime.fromtimestamp(bak.stat().st_mtime, UTC).strftime("%Y-%m-%d %H:%M UTC")
        if mend:
            way_out = (f"{mend}, or restore the last good copy {bak} (saved {when}; it also undoes "
                       f"the last save) with `{restore_hint(path)}`, or open another file with --db.")
        else:
            way_out = (f"The last good copy is {bak} (saved {when}); restore it with "
                       f"`{restore_hint(path)}`, or open another file with --db.")
    elif mend:
        way_out = f"{mend} (there is no backup to restore), or open another file with --db."
    else:
        way_out = ("There is no backup; move the file aside (it is kept for repair) to start a "
                   "new history, or open another file with --db.")
    return DamagedFileError(f"the scorekeeper file {path} is damaged ({why}); nothing was "
                            f"changed. {way_out}")


class SafeJSONStorage(Storage):
    """TinyDB storage with atomic replace, backup, cross-process lock and change detection.

    Use :meth:`transaction` around every read-modify-write (the repository does); a bare
    ``write`` outside one takes the locks for itself.
    """

    def __init__(self, path: str | os.PathLike[str], lock_timeout: float = LOCK_TIMEOUT_S,
                 make_folder: bool = False) -> None:
        self.path = file_path(path)
        #: Whether the first write may make the file's folder: only for the default place, never
        #: for a file someone named (a typo would otherwise become a new folder and history).
        self.make_folder = make_folder
        self.backup_path = backup_path(self.path)
        self._lock_timeout = lock_timeout
        self._file_lock: Any = None  # created on the first write: reading needs no lock
        self._thread_lock = threading.RLock()
        self._data: dict[str, Any] | None = None
        self._sig: Signature | None = None
        self._depth = 0
        self._dirty = False
        #: Goes up whenever the data this storage serves changed (reload or write).
        self.generation = 0

    # ---------------------------------------------------------------- reading
    def read(self) -> dict[str, Any] | None:
        with self._thread_lock:
            if self._depth:  # inside a transaction the locked, in-memory state is the truth
                if self._data is None and self._sig is None:
                    self._load()
                return self._data
            self._load()
            return self._data

    def _load(self) -> None:
        """Re-read the file if it changed since we last saw it."""
        try:
            sig = _signature(os.stat(self.path))
        except FileNotFoundError:
            if self.backup_path.exists():
                raise StorageError(
                    f"the scorekeeper file {self.path} is missing but its backup "
                    f"{self.backup_path} exists; restore it with `{restore_hint(self.path)}` "
                    "(or delete the backup to start a new history)") from None
            if self._data is not None or self._sig is not None:
                self.generation += 1
            self._data, self._sig = None, None
            return
        except OSError as exc:
            raise StorageError(f"cannot read the scorekeeper file {self.path}: {exc.strerror}") from None
        if sig == self._sig:
            return
        try:
            with open(self.path, "rb") as f:
                raw = f.read()
                sig = _signature(os.fstat(f.fileno()))  # what we actually read
        except OSError as exc:
            raise StorageError(f"cannot read the scorekeeper file {self.path}: {exc.strerror}") from None
        self._data = decode(raw, self.path)
        self._sig = sig
        self.generation += 1

    @property
    def dirty(self) -> bool:
        """Something was written inside the current transaction and is not on disk yet."""
        return self._dirty

    def changed_on_disk(self) -> bool:
        """True when the file differs from what this storage last read or wrote."""
        try:
            return _signature(os.stat(self.path)) != self._sig
        except FileNotFoundError:
            return self._sig is not None

    # ---------------------------------------------------------------- writing
    def write(self, data: dict[str, Any]) -> None:
        with self._thread_lock:
            if self._depth:
                self._data = data
                self._dirty = True
                self.generation += 1
                return
            with self.transaction():
                self._data = data
                self._dirty = True
                self.generation += 1

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """Hold both locks; everything written inside becomes one atomic file replace.

        If the block raises, nothing is written and the in-memory state is dropped (the next
        read re-reads the file).
        """
        with self._thread_lock:
            outer = self._depth == 0
            if outer:
                from filelock import FileLock, Timeout  # ~30 ms to import; only writers pay

                if self._file_lock is None:
                    self._file_lock = FileLock(str(lock_path(self.path)),
                                               timeout=self._lock_timeout)
                try:
                    if self.make_folder:
                        self.path.parent.mkdir(parents=True, exist_ok=True)  # first run: no folder
                    # checked before the lock file is made in it: an error names the folder
                    writable_folder(self.path.parent)
                    self._file_lock.acquire()
                except Timeout:
                    raise StorageBusyError(
                        f"the scorekeeper file {self.path} is busy (another chickenfoot process "
                        f"held {lock_path(self.path).name} for {self._lock_timeout:.0f} s); "
                        "try again") from None
                except OSError as exc:
                    raise StorageError(f"cannot write the scorekeeper file {self.path}: {exc.strerror}"
                                       f"{_culprit(exc, self.path)}; nothing was changed") from None
            try:
                if outer:
                    self._load()
                    self._dirty = False
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                if outer and self._dirty:
                    self._flush()
            except BaseException:
                if outer:
                    self._forget()
                raise
            finally:
                if outer:
                    self._dirty = False
                    self._file_lock.release()

    def _flush(self) -> None:
        assert self._data is not None
        try:
            self.remove_stale_temp_files()
            atomic_write(self.path, encode(self._data), make_folder=self.make_folder)
            self._sig = _signature(os.stat(self.path))
        except OSError as exc:
            self._forget()
            raise StorageError(f"could not save {self.path}: {exc.strerror}{_culprit(exc, self.path)}; "
                               "the previous state is kept") from None
        self._dirty = False

    def _forget(self) -> None:
        self._data, self._sig = None, None
        self.generation += 1

    def remove_stale_temp_files(self) -> int:
        """Delete temporary files a killed writer left behind (only call under the lock): this
        file's own, never another's whose name starts with this one's (``s.json.old`` beside
        ``s.json``), which its own writer may be writing now."""
        n = 0
        own = _own_temp_name(self.path.name)
        for p in self.path.parent.glob(f".{self.path.name}.*.tmp"):
            if not own.fullmatch(p.name):
                continue
            with contextlib.suppress(OSError):
                p.unlink()
                n += 1
        return n

    def close(self) -> None:
        self._data, self._sig = None, None


def restore_backup(path: str | os.PathLike[str]) -> Path | None:
    """Put ``FILE.bak`` back as ``FILE``; the file it replaces is kept as ``FILE.damaged-TIME``.

    Returns where the replaced file was kept (None when there was none). Raises
    :class:`StorageError` when there is no usable backup.
    """
    from filelock import FileLock

    path = file_path(path)
    bak = backup_path(path)
    if path.is_dir():
        raise StorageError(f"{path} is a folder, not a scorekeeper file; give the file with --db")
    try:
        writable_target(path)
    except OSError as exc:
        raise StorageError(f"cannot restore {path}: {exc.strerror}; nothing was changed") from None
    with FileLock(str(lock_path(path)), timeout=LOCK_TIMEOUT_S):
        if not bak.exists():
            raise StorageError(f"there is no backup {bak} to restore")
        try:
            raw = bak.read_bytes()
        except OSError as exc:
            raise StorageError(f"cannot read the backup {bak}: {exc.strerror}; nothing was changed") from None
        try:
            decode(raw, bak)
        except DamagedFileError:
            raise StorageError(f"the backup {bak} is damaged too; nothing was changed") from None
        kept = None
        try:
            if path.exists():
                stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
                kept = path.with_name(f"{path.name}.damaged-{stamp}")
                n = 1
                while kept.exists():  # restored twice in one second: never over a copy kept before
                    n += 1
                    kept = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
                shutil.copy2(path, kept)
            atomic_write(path, raw, keep_backup=False)
        except OSError as exc:  # a full disk: the file stays as it was, and no half copy is left
            if kept is not None:
                kept.unlink(missing_ok=True)
            raise StorageError(f"cannot restore {path}: {exc.strerror or exc}; nothing was changed") from None
        return kept
